/*
 * cel-go's encoders extension: base64.encode(bytes) and base64.decode(string). Decoding
 * follows Go's encoding/base64 as cel-go uses it: the padded alphabet first and, when that
 * input is corrupt, the unpadded one, whose error is the one reported ("illegal base64 data
 * at input byte N"); line breaks are skipped anywhere.
 */
#include "cel.h"

#include <string.h>

#include "cel_int.h"

static int
enc_digit(unsigned char c)
{
    static const char alphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const char *p = c != 0 ? strchr(alphabet, c) : NULL;
    return p ? (int)(p - alphabet) : -1;
}

static size_t
enc_skip_newlines(const char *s, size_t len, size_t i)
{
    while (i < len && (s[i] == '\n' || s[i] == '\r'))
        i++;
    return i;
}

/* After a '=' at s[*si - 1] ending a quantum of `j` digits: the offset of the error, or -1. */
static long
enc_padding(const char *s, size_t len, size_t *si, int j)
{
    if (j < 2)
        return (long)*si - 1;
    if (j == 2) {
        /* "==" is needed; the first one is consumed. */
        *si = enc_skip_newlines(s, len, *si);
        if (*si == len)
            return (long)len;
        if (s[*si] != '=')
            return (long)*si - 1;
        (*si)++;
    }
    *si = enc_skip_newlines(s, len, *si);
    return *si < len ? (long)*si : -1;
}

/* One quantum of up to four digits from s[*si] into `out`; the digits read in `*dlen` (fewer
 * than four only at the end). The offset of an error, or -1. */
static long
enc_quantum(const char *s, size_t len, size_t *si, bool padded, uint32_t *acc, int *dlen)
{
    *acc = 0;
    for (int j = 0; j < 4; j++) {
        if (*si == len) {
            *dlen = j;
            return j == 0 || (j > 1 && !padded) ? -1 : (long)*si - j;
        }
        unsigned char c = (unsigned char)s[(*si)++];
        int d = enc_digit(c);
        if (d >= 0) {
            *acc |= (uint32_t)d << (18 - 6 * j);
            continue;
        }
        if (c == '\n' || c == '\r') {
            j--;
            continue;
        }
        if (!padded || c != '=')
            return (long)*si - 1;
        *dlen = j;
        return enc_padding(s, len, si, j);
    }
    *dlen = 4;
    return -1;
}

/* Go's Encoding.DecodeString: decoded bytes in `*out`, or the offset of the error. */
static long
enc_decode(cel_arena_t *a, const char *s, size_t len, bool padded, cel__buf_t *out)
{
    size_t si = 0;
    cel__buf_init(out, a, len / 4 * 3 + 3);
    for (;;) {
        uint32_t acc = 0;
        int dlen = 0;
        long err = enc_quantum(s, len, &si, padded, &acc, &dlen);
        if (err >= 0)
            return err;
        for (int k = 0; k < dlen - 1; k++)
            cel__buf_putc(out, (char)(acc >> (16 - 8 * k)));
        if (dlen < 4)
            return -1;
    }
}

static cel_value_t
enc_decode_fn(cel__eval_t *ev, const cel__node_t *call, const cel_value_t *a, int n)
{
    (void)call;
    if (a[0].kind != CEL_STRING)
        return cel__no_overload(ev, "base64.decode", a, n);
    if (!cel__work_size(ev, a[0].v.str.len))
        return cel__halt_error(ev);
    cel__buf_t out;
    long err = enc_decode(ev->arena, a[0].v.str.data, a[0].v.str.len, true, &out);
    if (err >= 0)
        err = enc_decode(ev->arena, a[0].v.str.data, a[0].v.str.len, false, &out);
    if (err >= 0)
        return cel__err(ev, "illegal base64 data at input byte %ld", err);
    cel_value_t v = {.kind = CEL_BYTES};
    v.v.str.data = out.data, v.v.str.len = out.len, v.v.str.cp = -1;
    return v;
}

static cel_value_t
enc_encode_fn(cel__eval_t *ev, const cel__node_t *call, const cel_value_t *a, int n)
{
    (void)call;
    size_t len;
    if (a[0].kind != CEL_BYTES)
        return cel__no_overload(ev, "base64.encode", a, n);
    if (!cel__work_size(ev, a[0].v.str.len))
        return cel__halt_error(ev);
    const char *s =
        cel__base64_encode(ev->arena, (const unsigned char *)a[0].v.str.data, a[0].v.str.len, &len);
    return cel__string_own(s, len);
}

const cel__fn_t cel__encoders_fns[] = {
    {"base64.decode", false, 1, 1, enc_decode_fn},
    {"base64.encode", false, 1, 1, enc_encode_fn},
    {NULL, false, 0, 0, NULL},
};
