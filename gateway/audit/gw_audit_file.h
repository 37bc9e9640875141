#ifndef GATEWAY_AUDIT_GW_AUDIT_FILE_H
#define GATEWAY_AUDIT_GW_AUDIT_FILE_H

/*
 * The audit log file, rotated as kube-apiserver's log backend rotates it (lumberjack): a write
 * that would take the file past max_size bytes first renames it to
 * `<name>-<UTC time as 2006-01-02T15-04-05.000><.ext>` beside it and starts a new one; then
 * backups beyond max_backups (newest kept) and older than max_age days are removed (0: no
 * limit). "-" is standard output, never rotated. One writer thread at a time.
 */

#include <stddef.h>
#include <stdint.h>

typedef struct gw_audit_file gw_audit_file_t;

/** lumberjack's size when none is given: 100 MB. */
#define GW_AUDIT_FILE_DEFAULT_MAX (100LL * 1024 * 1024)

/**
 * Open path for appending, as kube's ensureLogFile does first: its directory is created
 * (0700) and the file opened or created (0600), so that an unwritable path is a start-up
 * error. NULL with kube's message in err ("ensureLogFile: open <path>: permission denied").
 * max_size: bytes (0: lumberjack's default). Thread: any.
 */
gw_audit_file_t *gw_audit_file_open(const char *path, int64_t max_size, int max_age_days,
                                    int max_backups, char *err, size_t err_len);

/** Append len bytes (one event), rotating first when they would not fit. 0, or GW_EINTERNAL with a
 *  message in err (lumberjack's "write length N exceeds maximum file size M" for one event
 *  larger than the limit). Thread: the writer's. */
int gw_audit_file_write(gw_audit_file_t *f, const char *data, size_t len, char *err,
                        size_t err_len);

/** Close and free. NULL is fine. */
void gw_audit_file_close(gw_audit_file_t *f);

#endif
