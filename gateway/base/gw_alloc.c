#include "gw_alloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void
out_of_memory(size_t n)
{
    fprintf(stderr, "kgate: out of memory allocating %zu bytes\n", n);
    abort();
}

void *
gw_malloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (p == NULL)
        out_of_memory(n);
    return p;
}

void *
gw_calloc(size_t count, size_t size)
{
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (p == NULL)
        out_of_memory(count * size);
    return p;
}

void *
gw_realloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (q == NULL)
        out_of_memory(n);
    return q;
}

char *
gw_strdup(const char *s)
{
    return gw_strndup(s, strlen(s));
}

char *
gw_strndup(const char *s, size_t n)
{
    char *p = gw_malloc(n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

void *
gw_memdup(const void *p, size_t n)
{
    void *q = gw_malloc(n);
    if (n > 0)
        memcpy(q, p, n);
    return q;
}

char *
gw_sprintf(const char *fmt, ...)
{
    char small[256];
    va_list ap;
    int n;

    /* Most strings made here (keys, field paths, messages) are short: one formatting pass into
     * the stack, and a second only for a string that did not fit. */
    va_start(ap, fmt);
    n = vsnprintf(small, sizeof(small), fmt, ap);
    va_end(ap);
    if (n < 0)
        out_of_memory(0);
    if ((size_t)n < sizeof(small))
        return gw_memdup(small, (size_t)n + 1);
    char *s = gw_malloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return s;
}
