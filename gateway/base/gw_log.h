#ifndef GATEWAY_BASE_GW_LOG_H
#define GATEWAY_BASE_GW_LOG_H

/*
 * kgate's one logging family. Lines go to stderr as
 *   2026-01-02T03:04:05.678Z W [audit-id] message
 * The level is checked before the arguments are formatted, so disabled levels cost a compare.
 * `id` is the request's Audit-ID, or NULL outside a request.
 */

typedef enum {
    GW_LOG_DEBUG = 0,
    GW_LOG_INFO = 1,
    GW_LOG_WARN = 2,
    GW_LOG_ERROR = 3,
    GW_LOG_OFF = 4,
} gw_log_level_t;

/** Current threshold; messages below it are dropped. Read without a lock (a stale read only
 *  delays a level change). */
extern volatile gw_log_level_t gw_log_threshold;

/** Set the threshold. Thread: any. */
void gw_log_set_level(gw_log_level_t level);

/** Parse "debug", "info", "warn", "error" or "off"; returns -1 for anything else. */
int gw_log_level_parse(const char *name);

/** Format and write one line at `level`. Use the macros below instead. Thread: any; a line is
 *  written with one write(2), so lines from different threads do not interleave. */
void gw_log_write(gw_log_level_t level, const char *id, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#define GW_LOG_AT(level, id, ...)                                                                  \
    do {                                                                                           \
        if ((level) >= gw_log_threshold)                                                           \
            gw_log_write((level), (id), __VA_ARGS__);                                              \
    } while (0)

#define gw_log_debug(id, ...) GW_LOG_AT(GW_LOG_DEBUG, id, __VA_ARGS__)
#define gw_log_info(id, ...) GW_LOG_AT(GW_LOG_INFO, id, __VA_ARGS__)
#define gw_log_warn(id, ...) GW_LOG_AT(GW_LOG_WARN, id, __VA_ARGS__)
#define gw_log_error(id, ...) GW_LOG_AT(GW_LOG_ERROR, id, __VA_ARGS__)

#endif
