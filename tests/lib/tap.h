#ifndef TESTS_LIB_TAP_H
#define TESTS_LIB_TAP_H

/*
 * A small TAP producer for C tests, read by `prove`. Header-only: each test binary includes
 * it once. Checks never abort; tap_done() prints the plan and returns the exit status.
 */

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_count_;
static int tap_failed_;

static inline int tap_ok(int cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/** Record one test; prints "ok N - name" or "not ok N - name". Returns cond. */
static inline int
tap_ok(int cond, const char *fmt, ...)
{
    va_list ap;
    tap_count_++;
    if (!cond)
        tap_failed_++;
    printf("%sok %d - ", cond ? "" : "not ", tap_count_);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
    fflush(stdout);
    return cond;
}

/** A comment line ("# ...") for context; shown by prove -v and on failures. */
static inline void tap_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline void
tap_diag(const char *fmt, ...)
{
    va_list ap;
    fputs("# ", stdout);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
    fflush(stdout);
}

#define tap_is_int(got, want, name)                                                                \
    do {                                                                                           \
        long long g_ = (long long)(got), w_ = (long long)(want);                                   \
        if (!tap_ok(g_ == w_, "%s", name))                                                         \
            tap_diag("  got %lld, want %lld (%s:%d)", g_, w_, __FILE__, __LINE__);                 \
    } while (0)

#define tap_is_str(got, want, name)                                                                \
    do {                                                                                           \
        const char *g_ = (got), *w_ = (want);                                                      \
        int eq_ = (g_ == NULL && w_ == NULL) || (g_ && w_ && strcmp(g_, w_) == 0);                 \
        if (!tap_ok(eq_, "%s", name))                                                              \
            tap_diag("  got \"%s\", want \"%s\" (%s:%d)", g_ ? g_ : "(null)", w_ ? w_ : "(null)",  \
                     __FILE__, __LINE__);                                                          \
    } while (0)

/** Skip the whole file (prints "1..0 # SKIP reason") and exit 0. */
static inline void
tap_skip_all(const char *reason)
{
    printf("1..0 # SKIP %s\n", reason);
    exit(0);
}

/** Print the plan; return the process exit status (0 when every check passed). */
static inline int
tap_done(void)
{
    printf("1..%d\n", tap_count_);
    return tap_failed_ == 0 && tap_count_ > 0 ? 0 : 1;
}

#endif
