/* Unit tests for gateway/base: error names and texts, allocation helpers, log levels, files
 * read whole, error lists. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gw_alloc.h"
#include "gw_arena.h"
#include "gw_err.h"
#include "gw_errlist.h"
#include "gw_file.h"
#include "gw_log.h"
#include "tap.h"

static void
test_errors(void)
{
    tap_is_str(gw_errname(GW_OK), "GW_OK", "GW_OK has its name");
    tap_is_str(gw_errname(GW_ECONFLICT), "GW_ECONFLICT", "GW_ECONFLICT has its name");
    tap_is_str(gw_errname(GW_EINTERNAL), "GW_EINTERNAL", "the last code has its name");
    tap_is_str(gw_strerror(GW_ECOMPACTED), "requested revision has been compacted",
               "compaction has a readable text");
    tap_is_str(gw_strerror(-1000), "unknown error", "an unknown code has a fallback text");
    tap_is_str(gw_strerror(5), "unknown error", "a positive code is unknown too");
    int named = 1;
    for (int e = GW_ERR_MIN_; e <= 0; e++)
        named &= gw_errname(e)[0] == 'G' && strlen(gw_strerror(e)) > 0;
    tap_ok(named, "every code from GW_ERR_MIN_ to 0 has a name and a text");
}

static void
test_alloc(void)
{
    char *s = gw_sprintf("%s-%d", "pods", 42);
    tap_is_str(s, "pods-42", "gw_sprintf formats into a new string");
    free(s);
    s = gw_strndup("namespace/name", 9);
    tap_is_str(s, "namespace", "gw_strndup copies a prefix and terminates it");
    free(s);
    unsigned char *m = gw_memdup("a\0b", 3);
    tap_ok(m[0] == 'a' && m[1] == 0 && m[2] == 'b', "gw_memdup copies embedded NULs");
    free(m);
    void *z = gw_malloc(0);
    tap_ok(z != NULL, "gw_malloc(0) returns a unique pointer");
    free(z);
    int *c = gw_calloc(4, sizeof(int));
    tap_ok(c[0] == 0 && c[3] == 0, "gw_calloc zeroes");
    c = gw_realloc(c, 1024 * sizeof(int));
    c[1023] = 7;
    tap_is_int(c[1023], 7, "gw_realloc grows");
    free(c);
}

/* Capture stderr into a pipe while `emit` logs, and return what was written. */
static char *
capture_log(void (*emit)(void))
{
    int fds[2], saved = dup(STDERR_FILENO);
    if (pipe(fds) != 0)
        return gw_strdup("");
    dup2(fds[1], STDERR_FILENO);
    emit();
    dup2(saved, STDERR_FILENO);
    close(saved);
    close(fds[1]);
    fcntl(fds[0], F_SETFL, O_NONBLOCK);
    char buf[4096];
    ssize_t n = read(fds[0], buf, sizeof(buf) - 1);
    close(fds[0]);
    return gw_strndup(buf, n > 0 ? (size_t)n : 0);
}

static void
emit_levels(void)
{
    gw_log_set_level(GW_LOG_WARN);
    gw_log_info(NULL, "hidden %d", 1);
    gw_log_warn("audit-123", "shown %s", "warning");
    gw_log_error(NULL, "shown error");
    gw_log_set_level(GW_LOG_INFO);
}

static void
test_log(void)
{
    tap_is_int(gw_log_level_parse("debug"), GW_LOG_DEBUG, "level 'debug' parses");
    tap_is_int(gw_log_level_parse("WARN"), GW_LOG_WARN, "level names are case-insensitive");
    tap_is_int(gw_log_level_parse("verbose"), -1, "an unknown level is rejected");
    char *out = capture_log(emit_levels);
    tap_ok(strstr(out, "hidden") == NULL, "messages below the threshold are dropped");
    tap_ok(strstr(out, " W [audit-123] shown warning\n") != NULL,
           "a warning carries its level letter and audit id");
    tap_ok(strstr(out, " E shown error\n") != NULL, "an error without an id has no brackets");
    free(out);
}

static int cleanup_order[3];
static int cleanup_count;

static void
record_cleanup(void *p)
{
    cleanup_order[cleanup_count++] = *(int *)p;
}

static void
test_arena(void)
{
    gw_arena_t *a = gw_arena_new();
    char *s = gw_arena_sprintf(a, "%s/%s", "default", "web");
    tap_is_str(s, "default/web", "arena sprintf");
    tap_is_str(gw_arena_strndup(a, "abcdef", 3), "abc", "arena strndup terminates");
    int aligned = 1, zero = 1;
    for (int i = 0; i < 1000; i++) {
        unsigned char *p = gw_arena_calloc(a, (size_t)(i % 37) + 1);
        aligned &= ((uintptr_t)p % _Alignof(max_align_t)) == 0;
        zero &= p[0] == 0;
        p[0] = 0xff;
    }
    tap_ok(aligned, "every small allocation is max-aligned");
    tap_ok(zero, "calloc'd blocks come zeroed and do not overlap earlier ones");
    char *big = gw_arena_alloc(a, 100000);
    memset(big, 'x', 100000);
    tap_ok(big[99999] == 'x', "a block larger than a chunk is served");
    static int ids[3] = {1, 2, 3};
    for (int i = 0; i < 3; i++)
        gw_arena_defer(a, record_cleanup, &ids[i]);
    gw_arena_free(a);
    tap_ok(cleanup_count == 3 && cleanup_order[0] == 3 && cleanup_order[2] == 1,
           "cleanups run once each, last registered first");
    gw_arena_free(NULL);
}

/* A long-running request keeps its arena: a small one holds little more than it used. */
static void
test_arena_growth(void)
{
    gw_arena_t *a = gw_arena_new();
    size_t first = gw_arena_held(a);
    tap_ok(first > 0 && first <= 2048, "a new arena holds at most 2 KiB (%zu)", first);
    for (int i = 0; i < 12; i++)
        gw_arena_alloc(a, 100);
    tap_ok(gw_arena_held(a) == first, "1.2 KiB of small blocks fit the first chunk");
    for (int i = 0; i < 20; i++)
        gw_arena_alloc(a, 100);
    tap_ok(gw_arena_held(a) == first + 2 * first, "the next chunk is twice the first (%zu)",
           gw_arena_held(a));
    gw_arena_alloc(a, 3072);
    tap_ok(gw_arena_held(a) == 3 * first + 3072, "a block past 2 KiB gets a chunk of its own");
    size_t before = gw_arena_held(a);
    for (int i = 0; i < 1000; i++)
        gw_arena_alloc(a, 100); /* 112 bytes each, aligned */
    size_t grown = gw_arena_held(a) - before;
    tap_ok(grown >= 100000 && grown <= 112000 + 2 * 8192,
           "chunks stop growing at 8 KiB (%zu more held for 112 KB)", grown);
    gw_arena_free(a);
}

/* Write text to a new temporary file; its path is returned (static). */
static const char *
temp_file(const char *text)
{
    static char path[64];
    snprintf(path, sizeof(path), "/tmp/gw_file_XXXXXX");
    int fd = mkstemp(path);
    if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
        abort();
    close(fd);
    return path;
}

static void
test_file(void)
{
    size_t len = 99;
    const char *path = temp_file("hello\n");
    char *s = gw_file_read(path, 6, &len);
    tap_ok(s != NULL && len == 6 && strcmp(s, "hello\n") == 0, "a file of exactly max bytes");
    free(s);
    errno = 0;
    tap_ok(gw_file_read(path, 5, &len) == NULL && errno == EFBIG, "one byte over max: EFBIG");
    unlink(path);
    path = temp_file("");
    s = gw_file_read(path, 10, &len);
    tap_ok(s != NULL && len == 0 && *s == '\0', "an empty file is an empty string");
    free(s);
    unlink(path);
    char big[10000];
    memset(big, 'x', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    path = temp_file(big);
    s = gw_file_read(path, 1u << 20, &len);
    tap_ok(s != NULL && len == sizeof(big) - 1 && strcmp(s, big) == 0,
           "a file larger than the first buffer, whole");
    free(s);
    unlink(path);
    errno = 0;
    tap_ok(gw_file_read("/nonexistent/x", 10, &len) == NULL && errno == ENOENT,
           "a missing file: ENOENT");
    errno = 0;
    tap_ok(gw_file_read("/tmp", 10, &len) == NULL && errno == EISDIR, "a directory: EISDIR");
}

static void
test_errlist(void)
{
    gw_errlist_t e = {0};
    char out[128];

    gw_errlist_print(&e, "p: ", out, sizeof(out));
    tap_is_str(out, "p: ", "no errors: the prefix alone");
    gw_errlist_add(&e, "a: %s", "Required value");
    gw_errlist_print(&e, "", out, sizeof(out));
    tap_is_str(out, "a: Required value", "one error as it is");
    tap_ok(e.text == NULL && e.n == 0, "... and the list is emptied");
    gw_errlist_add(&e, "a");
    gw_errlist_add(&e, "b%d", 2);
    gw_errlist_print(&e, "failed to decode: ", out, sizeof(out));
    tap_is_str(out, "failed to decode: [a, b2]", "several in brackets, joined by commas");
    gw_errlist_add(&e, "dropped");
    gw_errlist_clear(&e);
    tap_ok(e.text == NULL && e.n == 0, "cleared");
}

int
main(void)
{
    test_arena();
    test_arena_growth();
    test_file();
    test_errlist();
    test_errors();
    test_alloc();
    test_log();
    return tap_done();
}
