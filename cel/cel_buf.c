/*
 * Growable text buffers in an arena: how library functions build the strings they return.
 * A buffer that outgrows its block moves to a bigger one; the old block stays in the arena
 * until the arena dies, which costs little for the short strings expressions build.
 */
#include "cel.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cel_int.h"

void
cel__buf_init(cel__buf_t *b, cel_arena_t *a, size_t cap)
{
    b->a = a;
    b->cap = cap < 16 ? 16 : cap;
    b->data = cel_arena_alloc(a, b->cap);
    b->len = 0;
}

static void
buf_reserve(cel__buf_t *b, size_t more)
{
    if (b->len + more + 1 <= b->cap)
        return;
    size_t cap = b->cap * 2;
    while (cap < b->len + more + 1)
        cap *= 2;
    char *data = cel_arena_alloc(b->a, cap);
    memcpy(data, b->data, b->len);
    b->data = data;
    b->cap = cap;
}

void
cel__buf_put(cel__buf_t *b, const char *s, size_t n)
{
    buf_reserve(b, n);
    if (n > 0)
        memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void
cel__buf_putc(cel__buf_t *b, char c)
{
    cel__buf_put(b, &c, 1);
}

void
cel__buf_puts(cel__buf_t *b, const char *s)
{
    cel__buf_put(b, s, strlen(s));
}

void
cel__buf_printf(cel__buf_t *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = cel__arena_vsprintf(b->a, fmt, ap);
    va_end(ap);
    cel__buf_puts(b, s);
}

cel_value_t
cel__buf_string(const cel__buf_t *b)
{
    return cel__string_own(b->data, b->len);
}

cel_value_t
cel__string_lossy(cel_arena_t *a, const char *s, size_t len)
{
    if (cel__utf8_valid(s, len))
        return cel__string_own(cel_arena_strndup(a, s, len), len);
    cel__buf_t b;
    cel__buf_init(&b, a, len + 8);
    for (size_t i = 0; i < len;) {
        uint32_t cp;
        size_t w = cel__utf8_decode(s + i, len - i, &cp);
        if (w == 0)
            cel__buf_puts(&b, "\xEF\xBF\xBD");
        else
            cel__buf_put(&b, s + i, w);
        i += w ? w : 1;
    }
    return cel__buf_string(&b);
}
