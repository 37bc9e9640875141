/* Unit tests for gateway/audit/gw_audit_file and gw_audit_log: the log file as kube's
 * ensureLogFile prepares it, lumberjack's rotation (backup names, max size, max backups, max
 * age, an event larger than the limit), and the bounded buffer that drops and counts what does
 * not fit instead of waiting. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "gw_alloc.h"
#include "gw_audit_file.h"
#include "gw_audit_log.h"
#include "tap.h"

static char dir[256];

/* Files in dir/sub whose names start with prefix; the first one's name into first. */
static int
count(const char *sub, const char *prefix, char *first, size_t len)
{
    char *p = gw_sprintf("%s/%s", dir, sub);
    DIR *d = opendir(p);
    struct dirent *e;
    int n = 0;
    free(p);
    while (d != NULL && (e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, prefix, strlen(prefix)) == 0) {
            if (n++ == 0 && first != NULL)
                snprintf(first, len, "%s", e->d_name);
        }
    }
    if (d != NULL)
        closedir(d);
    return n;
}

static long long
size_of(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long long)st.st_size : -1;
}

static void
test_open(void)
{
    char err[512];
    char *path = gw_sprintf("%s/new/deeper/audit.log", dir);
    gw_audit_file_t *f = gw_audit_file_open(path, 0, 0, 0, err, sizeof(err));
    struct stat st;
    tap_ok(f != NULL, "missing directories are created");
    tap_ok(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600, "the file is created 0600");
    gw_audit_file_close(f);
    free(path);
    char *plain = gw_sprintf("%s/plain", dir);
    fclose(fopen(plain, "w"));
    path = gw_sprintf("%s/audit.log", plain);
    f = gw_audit_file_open(path, 0, 0, 0, err, sizeof(err));
    tap_ok(f == NULL, "a path under a regular file is refused");
    char *want = gw_sprintf("ensureLogFile: mkdir %s: not a directory", plain);
    tap_is_str(err, want, "... with kube's message");
    free(want);
    free(path);
    path = gw_sprintf("%s/adir", dir);
    mkdir(path, 0700);
    f = gw_audit_file_open(path, 0, 0, 0, err, sizeof(err));
    want = gw_sprintf("ensureLogFile: open %s: is a directory", path);
    tap_ok(f == NULL, "a directory as the log is refused");
    tap_is_str(err, want, "... with Go's words");
    free(want);
    free(path);
    free(plain);
}

static void
test_rotation(void)
{
    char err[512], first[256] = "";
    char line[100];
    char *path = gw_sprintf("%s/rot/audit.log", dir);
    gw_audit_file_t *f = gw_audit_file_open(path, 1000, 0, 2, err, sizeof(err));
    memset(line, 'x', sizeof(line) - 1);
    line[sizeof(line) - 1] = '\n';
    int rc = 0;
    for (int i = 0; i < 10; i++)
        rc |= gw_audit_file_write(f, line, sizeof(line), err, sizeof(err));
    tap_ok(rc == 0, "ten 100-byte events fill exactly 1000 bytes");
    tap_is_int(size_of(path), 1000, "the file reaches its limit without rotating");
    tap_is_int(count("rot", "audit-", NULL, 0), 0, "no backup yet");
    rc = gw_audit_file_write(f, line, sizeof(line), err, sizeof(err));
    tap_ok(rc == 0, "one more event");
    tap_is_int(size_of(path), 100, "... goes into a new file");
    tap_is_int(count("rot", "audit-", first, sizeof(first)), 1, "... after one backup");
    int y, mo, d, h, mi, s, ms;
    char ext[8] = "";
    tap_ok(sscanf(first, "audit-%4d-%2d-%2dT%2d-%2d-%2d.%3d%7s", &y, &mo, &d, &h, &mi, &s, &ms,
                  ext) == 8 &&
               strcmp(ext, ".log") == 0 &&
               strlen(first) == strlen("audit-2006-01-02T15-04-05.000.log"),
           "the backup is named <name>-<2006-01-02T15-04-05.000>.log (%s)", first);
    for (int k = 0; k < 3; k++) {
        usleep(2000); /* backups a millisecond apart have distinct names */
        for (int i = 0; i < 10; i++)
            gw_audit_file_write(f, line, sizeof(line), err, sizeof(err));
    }
    tap_is_int(count("rot", "audit-", NULL, 0), 2, "max backups: two kept");
    char big[1200];
    memset(big, 'y', sizeof(big));
    rc = gw_audit_file_write(f, big, sizeof(big), err, sizeof(err));
    tap_ok(rc != 0, "an event larger than the limit is refused");
    tap_is_str(err, "write length 1200 exceeds maximum file size 1000",
               "... in lumberjack's words");
    gw_audit_file_close(f);
    free(path);
}

static void
test_max_age(void)
{
    char err[512];
    char *sub = gw_sprintf("%s/age", dir);
    mkdir(sub, 0700);
    char *old = gw_sprintf("%s/a-2001-01-01T00-00-00.000.log", sub);
    char *other = gw_sprintf("%s/b-2001-01-01T00-00-00.000.log", sub);
    fclose(fopen(old, "w"));
    fclose(fopen(other, "w"));
    char *path = gw_sprintf("%s/a.log", sub);
    gw_audit_file_t *f = gw_audit_file_open(path, 10, 1, 0, err, sizeof(err));
    gw_audit_file_write(f, "0123456789", 10, err, sizeof(err));
    gw_audit_file_write(f, "0123456789", 10, err, sizeof(err));
    tap_ok(access(old, F_OK) != 0, "max age: an old backup is removed at rotation");
    tap_ok(access(other, F_OK) == 0, "another log's backup is left alone");
    tap_is_int(count("age", "a-", NULL, 0), 1, "the new backup stays");
    gw_audit_file_close(f);
    free(sub);
    free(old);
    free(other);
    free(path);
}

static void
test_buffer(void)
{
    char err[512];
    char *path = gw_sprintf("%s/buf.log", dir);
    gw_audit_file_t *f = gw_audit_file_open(path, 0, 0, 0, err, sizeof(err));
    gw_audit_log_t *l = gw_audit_log_start(f, 4);
    int queued = 0;
    for (int i = 0; i < 20000; i++)
        queued += gw_audit_log_submit(l, gw_strdup("{\"a\":1}\n"), 8);
    tap_ok(queued > 0 && queued < 20000, "a full buffer drops instead of waiting (%d queued)",
           queued);
    tap_is_int(gw_audit_log_dropped(l), 20000 - queued, "what was dropped is counted");
    gw_audit_log_stop(l);
    tap_is_int(size_of(path), 8LL * queued, "what was queued is written by the time it stops");
    free(path);
}

int
main(void)
{
    snprintf(dir, sizeof(dir), "/tmp/gw_audit_file.XXXXXX");
    if (mkdtemp(dir) == NULL)
        return 1;
    test_open();
    test_rotation();
    test_max_age();
    test_buffer();
    char *rm = gw_sprintf("rm -rf '%s'", dir);
    if (system(rm) != 0)
        tap_diag("could not remove %s", dir);
    free(rm);
    return tap_done();
}
