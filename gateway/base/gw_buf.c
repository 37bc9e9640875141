/* Growable byte buffers, doubling as they fill. */
#include "gw_buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"

/* Room for n more bytes and the NUL. */
static void
reserve(gw_buf_t *b, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        b->cap = (b->len + n + 1) * 2;
        b->data = gw_realloc(b->data, b->cap);
    }
}

void
gw_buf_add(gw_buf_t *b, const void *p, size_t n)
{
    reserve(b, n);
    if (n > 0)
        memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void
gw_buf_str(gw_buf_t *b, const char *s)
{
    gw_buf_add(b, s, strlen(s));
}

void
gw_buf_char(gw_buf_t *b, char c)
{
    gw_buf_add(b, &c, 1);
}

void
gw_buf_truncate(gw_buf_t *b, size_t len)
{
    b->len = len;
    if (b->data != NULL)
        b->data[len] = '\0';
}

void
gw_buf_printf(gw_buf_t *b, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        abort(); /* only a bad format, which the format attribute rules out */
    reserve(b, (size_t)n);
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

const char *
gw_buf_cstr(const gw_buf_t *b)
{
    return b->data != NULL ? b->data : "";
}

char *
gw_buf_take(gw_buf_t *b)
{
    char *s = b->data != NULL ? b->data : gw_strdup("");

    *b = (gw_buf_t){0};
    return s;
}

void
gw_buf_free(gw_buf_t *b)
{
    free(b->data);
    *b = (gw_buf_t){0};
}
