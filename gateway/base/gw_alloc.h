#ifndef GATEWAY_BASE_GW_ALLOC_H
#define GATEWAY_BASE_GW_ALLOC_H

#include <stddef.h>

/*
 * Allocation that never returns NULL: on exhaustion the process logs and aborts, because a
 * half-done request is worse than a restart (etcd transactions are the only commit point).
 * Callers therefore never NULL-check these. Thread: any.
 */

/** malloc(n) or abort. n == 0 returns a unique pointer. Caller frees with free(). */
void *gw_malloc(size_t n);
/** calloc(count, size) or abort, with overflow checking. Caller frees with free(). */
void *gw_calloc(size_t count, size_t size);
/** realloc(p, n) or abort. Caller frees the result with free(). */
void *gw_realloc(void *p, size_t n);
/** strdup(s) or abort; s must not be NULL. Caller frees with free(). */
char *gw_strdup(const char *s);
/** Copy of the first n bytes of s plus a NUL, or abort. Caller frees with free(). */
char *gw_strndup(const char *s, size_t n);
/** Copy of n bytes (not terminated), or abort; n == 0 gives a unique pointer. Caller frees. */
void *gw_memdup(const void *p, size_t n);
/** printf into a new string, or abort. Caller frees with free(). */
char *gw_sprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
