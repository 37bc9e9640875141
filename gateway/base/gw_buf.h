#ifndef GATEWAY_BASE_GW_BUF_H
#define GATEWAY_BASE_GW_BUF_H

/* A growable byte buffer: reply bodies, Go-formatted text, emitted YAML, joined lists. The
 * bytes are malloc'd and, once anything is added, always followed by a NUL (not counted in
 * len), so text can be used as a C string. Zero-initialise to start: gw_buf_t b = {0}.
 * One buffer belongs to one thread at a time. */

#include <stddef.h>

typedef struct gw_buf {
    char *data; /* NULL until the first add */
    size_t len, cap;
} gw_buf_t;

/** Append n bytes of p (p may be NULL when n is 0). Allocation failure aborts. */
void gw_buf_add(gw_buf_t *b, const void *p, size_t n);

/** Append the C string s. */
void gw_buf_str(gw_buf_t *b, const char *s);

/** Append one byte. */
void gw_buf_char(gw_buf_t *b, char c);

/** Cut b back to its first len bytes (len <= b->len), e.g. to pop a path segment. */
void gw_buf_truncate(gw_buf_t *b, size_t len);

/** Append printf output. */
void gw_buf_printf(gw_buf_t *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/** The bytes as a C string, "" when nothing was added; valid until the next change to b. */
const char *gw_buf_cstr(const gw_buf_t *b);

/** The bytes as a C string ("" when empty) that the caller now owns and frees; b is empty
 *  afterwards and may be reused. */
char *gw_buf_take(gw_buf_t *b);

/** Free the bytes; b is empty afterwards and may be reused. */
void gw_buf_free(gw_buf_t *b);

#endif
