/* The audit log file and its rotation, as lumberjack does it for kube's log backend. */
#include "gw_audit_file.h"

#include <dirent.h>
#include <stdbool.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "gw_alloc.h"
#include "gw_audit_int.h"
#include "gw_err.h"
#include "gw_log.h"

struct gw_audit_file {
    char *path;
    char *dir;    /* the directory of path */
    char *prefix; /* the base name without its extension, then "-" */
    char *ext;    /* the extension with its dot, or "" */
    int fd;       /* -1 until opened again after a failure */
    int64_t size, max_size;
    int max_age_days, max_backups;
    bool stdout_;
};

char *
gw_audit__errtext(int e, char *buf, size_t len)
{
    snprintf(buf, len, "%s", strerror(e));
    if (buf[0] >= 'A' && buf[0] <= 'Z' && !(buf[1] >= 'A' && buf[1] <= 'Z'))
        buf[0] = (char)(buf[0] - 'A' + 'a');
    return buf;
}

/* mkdir -p with mode 0700, as Go's os.MkdirAll; false with Go's message. */
static bool
mkdir_all(const char *dir, char *err, size_t err_len)
{
    struct stat st;
    char *copy, *parent;
    char ebuf[128];
    bool ok;
    if (stat(dir, &st) == 0) {
        if (S_ISDIR(st.st_mode))
            return true;
        snprintf(err, err_len, "ensureLogFile: mkdir %s: not a directory", dir);
        return false;
    }
    copy = gw_strdup(dir);
    parent = dirname(copy);
    ok = strcmp(parent, dir) == 0 || mkdir_all(parent, err, err_len);
    free(copy);
    if (ok && mkdir(dir, 0700) != 0 && errno != EEXIST) {
        snprintf(err, err_len, "ensureLogFile: mkdir %s: %s", dir,
                 gw_audit__errtext(errno, ebuf, sizeof(ebuf)));
        return false;
    }
    return ok;
}

static int
open_log(const char *path)
{
    return open(path, O_CREAT | O_APPEND | O_WRONLY | O_CLOEXEC, 0600);
}

static void
split_name(gw_audit_file_t *f)
{
    char *copy = gw_strdup(f->path);
    char *base = gw_strdup(basename(copy));
    char *dot = strrchr(base, '.');
    free(copy);
    copy = gw_strdup(f->path);
    f->dir = gw_strdup(dirname(copy));
    free(copy);
    f->ext = gw_strdup(dot != NULL ? dot : "");
    if (dot != NULL)
        *dot = '\0';
    f->prefix = gw_sprintf("%s-", base);
    free(base);
}

gw_audit_file_t *
gw_audit_file_open(const char *path, int64_t max_size, int max_age_days, int max_backups, char *err,
                   size_t err_len)
{
    gw_audit_file_t *f = gw_calloc(1, sizeof(*f));
    char ebuf[128];
    struct stat st;
    f->path = gw_strdup(path);
    f->max_size = max_size > 0 ? max_size : GW_AUDIT_FILE_DEFAULT_MAX;
    f->max_age_days = max_age_days;
    f->max_backups = max_backups;
    f->fd = -1;
    if (strcmp(path, "-") == 0) {
        f->stdout_ = true;
        f->fd = STDOUT_FILENO;
        return f;
    }
    split_name(f);
    if (!mkdir_all(f->dir, err, err_len)) {
        gw_audit_file_close(f);
        return NULL;
    }
    f->fd = open_log(path);
    if (f->fd < 0) {
        snprintf(err, err_len, "ensureLogFile: open %s: %s", path,
                 gw_audit__errtext(errno, ebuf, sizeof(ebuf)));
        gw_audit_file_close(f);
        return NULL;
    }
    f->size = fstat(f->fd, &st) == 0 ? (int64_t)st.st_size : 0;
    return f;
}

/* lumberjack's backup name of now: <prefix><2006-01-02T15-04-05.000><ext>. */
static char *
backup_name(const gw_audit_file_t *f)
{
    struct timeval tv;
    struct tm tm;
    gettimeofday(&tv, NULL);
    gmtime_r(&tv.tv_sec, &tm);
    return gw_sprintf("%s/%s%04d-%02d-%02dT%02d-%02d-%02d.%03d%s", f->dir, f->prefix,
                      tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
                      tm.tm_sec, (int)(tv.tv_usec / 1000), f->ext);
}

/* The time in a backup's name, or -1 when the name is not a backup's. */
static time_t
backup_time(const gw_audit_file_t *f, const char *name)
{
    size_t pl = strlen(f->prefix), el = strlen(f->ext), n = strlen(name);
    struct tm tm = {0};
    int ms;
    char tail[8];
    if (n != pl + 23 + el || strncmp(name, f->prefix, pl) != 0 ||
        strcmp(name + n - el, f->ext) != 0)
        return -1;
    if (sscanf(name + pl, "%4d-%2d-%2dT%2d-%2d-%2d.%3d%7s", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
               &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &ms, tail) < 7)
        return -1;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    return timegm(&tm);
}

typedef struct {
    char *name;
    time_t t;
} backup_t;

static int
newest_first(const void *a, const void *b)
{
    const backup_t *x = a, *y = b;
    /* names sort as their times; the later name first */
    return strcmp(y->name, x->name);
}

/* lumberjack's mill: drop backups beyond max_backups and older than max_age days. */
static void
mill(gw_audit_file_t *f)
{
    DIR *d;
    struct dirent *e;
    backup_t *v = NULL;
    size_t n = 0, cap = 0;
    time_t cutoff = time(NULL) - (time_t)f->max_age_days * 24 * 3600;
    if ((f->max_backups == 0 && f->max_age_days == 0) || (d = opendir(f->dir)) == NULL)
        return;
    while ((e = readdir(d)) != NULL) {
        time_t t = backup_time(f, e->d_name);
        if (t < 0)
            continue;
        if (n == cap)
            v = gw_realloc(v, (cap = cap ? cap * 2 : 16) * sizeof(*v));
        v[n++] = (backup_t){gw_strdup(e->d_name), t};
    }
    closedir(d);
    qsort(v, n, sizeof(*v), newest_first);
    for (size_t i = 0; i < n; i++) {
        bool drop = (f->max_backups > 0 && i >= (size_t)f->max_backups) ||
                    (f->max_age_days > 0 && v[i].t < cutoff);
        if (drop) {
            char *p = gw_sprintf("%s/%s", f->dir, v[i].name);
            if (unlink(p) != 0)
                gw_log_warn(NULL, "audit log: cannot remove the old backup %s", p);
            free(p);
        }
        free(v[i].name);
    }
    free(v);
}

static int
rotate(gw_audit_file_t *f, char *err, size_t err_len)
{
    char *to = backup_name(f);
    char ebuf[128];
    if (f->fd >= 0)
        close(f->fd);
    f->fd = -1;
    if (rename(f->path, to) != 0 && errno != ENOENT) {
        snprintf(err, err_len, "can't rename log file: rename %s %s: %s", f->path, to,
                 gw_audit__errtext(errno, ebuf, sizeof(ebuf)));
        free(to);
        return GW_EINTERNAL;
    }
    free(to);
    f->fd = open_log(f->path);
    f->size = 0;
    if (f->fd < 0) {
        snprintf(err, err_len, "can't open new logfile: open %s: %s", f->path,
                 gw_audit__errtext(errno, ebuf, sizeof(ebuf)));
        return GW_EINTERNAL;
    }
    mill(f);
    return 0;
}

static int
write_all(int fd, const char *p, size_t len)
{
    while (len > 0) {
        ssize_t w = write(fd, p, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        len -= (size_t)w;
    }
    return 0;
}

int
gw_audit_file_write(gw_audit_file_t *f, const char *data, size_t len, char *err, size_t err_len)
{
    char ebuf[128];
    if (!f->stdout_) {
        if ((int64_t)len > f->max_size) {
            snprintf(err, err_len, "write length %zu exceeds maximum file size %lld", len,
                     (long long)f->max_size);
            return GW_EINTERNAL;
        }
        if ((f->fd < 0 || f->size + (int64_t)len > f->max_size) && rotate(f, err, err_len) != 0)
            return GW_EINTERNAL;
    }
    if (write_all(f->fd, data, len) != 0) {
        snprintf(err, err_len, "write %s: %s", f->stdout_ ? "/dev/stdout" : f->path,
                 gw_audit__errtext(errno, ebuf, sizeof(ebuf)));
        return GW_EINTERNAL;
    }
    f->size += (int64_t)len;
    return 0;
}

void
gw_audit_file_close(gw_audit_file_t *f)
{
    if (f == NULL)
        return;
    if (!f->stdout_ && f->fd >= 0)
        close(f->fd);
    free(f->path);
    free(f->dir);
    free(f->prefix);
    free(f->ext);
    free(f);
}
