#include "gw_log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

volatile gw_log_level_t gw_log_threshold = GW_LOG_INFO;

static const char level_letter[] = {'D', 'I', 'W', 'E'};
static const char *const level_name[] = {"debug", "info", "warn", "error", "off"};

void
gw_log_set_level(gw_log_level_t level)
{
    gw_log_threshold = level;
}

int
gw_log_level_parse(const char *name)
{
    for (int i = 0; i <= GW_LOG_OFF; i++) {
        if (strcasecmp(name, level_name[i]) == 0)
            return i;
    }
    return -1;
}

static size_t
format_prefix(char *buf, size_t cap, gw_log_level_t level, const char *id)
{
    struct timespec ts;
    struct tm tm;
    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    size_t n = strftime(buf, cap, "%Y-%m-%dT%H:%M:%S", &tm);
    int m = snprintf(buf + n, cap - n, ".%03ldZ %c ", ts.tv_nsec / 1000000L,
                     level_letter[level < GW_LOG_OFF ? level : GW_LOG_ERROR]);
    n += (size_t)m;
    if (id != NULL && n < cap) {
        m = snprintf(buf + n, cap - n, "[%s] ", id);
        n += (size_t)m;
    }
    return n < cap ? n : cap - 1;
}

void
gw_log_write(gw_log_level_t level, const char *id, const char *fmt, ...)
{
    char line[2048];
    size_t n = format_prefix(line, sizeof(line), level, id);
    va_list ap;
    va_start(ap, fmt);
    int m = vsnprintf(line + n, sizeof(line) - n - 1, fmt, ap);
    va_end(ap);
    if (m < 0)
        m = 0;
    n += (size_t)m;
    if (n > sizeof(line) - 2)
        n = sizeof(line) - 2; /* truncated: long lines are cut, never split */
    line[n++] = '\n';
    ssize_t w = write(STDERR_FILENO, line, n);
    (void)w; /* nowhere to report a failing stderr */
}
