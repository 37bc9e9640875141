/*
 * Text helpers: UTF-8, number formatting and parsing with CEL's (Go-derived) conventions,
 * base64.
 */
#include "cel.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cel_int.h"

size_t
cel__utf8_decode(const char *s, size_t len, uint32_t *cp)
{
    const unsigned char *u = (const unsigned char *)s;
    if (len == 0)
        return 0;
    if (u[0] < 0x80) {
        *cp = u[0];
        return 1;
    }
    size_t n;
    uint32_t c, min;
    if ((u[0] & 0xE0) == 0xC0) {
        n = 2, c = u[0] & 0x1F, min = 0x80;
    } else if ((u[0] & 0xF0) == 0xE0) {
        n = 3, c = u[0] & 0x0F, min = 0x800;
    } else if ((u[0] & 0xF8) == 0xF0) {
        n = 4, c = u[0] & 0x07, min = 0x10000;
    } else {
        return 0;
    }
    if (len < n)
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((u[i] & 0xC0) != 0x80)
            return 0;
        c = (c << 6) | (u[i] & 0x3F);
    }
    if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
        return 0;
    *cp = c;
    return n;
}

size_t
cel__utf8_encode(uint32_t cp, char *out)
{
    unsigned char *o = (unsigned char *)out;
    if (cp < 0x80) {
        o[0] = (unsigned char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (unsigned char)(0xC0 | (cp >> 6));
        o[1] = (unsigned char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (unsigned char)(0xE0 | (cp >> 12));
        o[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
        o[2] = (unsigned char)(0x80 | (cp & 0x3F));
        return 3;
    }
    o[0] = (unsigned char)(0xF0 | (cp >> 18));
    o[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
    o[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
    o[3] = (unsigned char)(0x80 | (cp & 0x3F));
    return 4;
}

bool
cel__utf8_valid(const char *s, size_t len)
{
    size_t i = 0;
    while (i < len) {
        uint32_t cp;
        if ((unsigned char)s[i] < 0x80) {
            i++;
            continue;
        }
        size_t n = cel__utf8_decode(s + i, len - i, &cp);
        if (n == 0)
            return false;
        i += n;
    }
    return true;
}

size_t
cel__utf8_count(const char *s, size_t len)
{
    size_t n = 0;
    for (size_t i = 0; i < len; i++)
        n += ((unsigned char)s[i] & 0xC0) != 0x80;
    return n;
}

size_t
cel__utf8_offset(const char *s, size_t len, size_t n)
{
    size_t i = 0;
    while (i < len && n > 0) {
        i++;
        while (i < len && ((unsigned char)s[i] & 0xC0) == 0x80)
            i++;
        n--;
    }
    return i;
}

/* Shortest "%.*e" rendering that reads back as exactly `d`: digits without the point. */
static int
shortest_digits(double d, char *digits, int *exp10)
{
    char buf[40];
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, sizeof(buf), "%.*e", prec - 1, d);
        if (strtod(buf, NULL) == d || prec == 17)
            break;
    }
    int n = 0;
    char *p = buf;
    for (; *p != 'e'; p++) {
        if (*p >= '0' && *p <= '9')
            digits[n++] = *p;
    }
    *exp10 = atoi(p + 1);
    while (n > 1 && digits[n - 1] == '0')
        n--;
    digits[n] = '\0';
    return n;
}

char *
cel__format_double(cel_arena_t *a, double d)
{
    if (isnan(d))
        return cel_arena_strndup(a, "NaN", 3);
    if (isinf(d))
        return cel_arena_strndup(a, d > 0 ? "+Inf" : "-Inf", 4);
    if (d == 0)
        return cel_arena_strndup(a, signbit(d) ? "-0" : "0", signbit(d) ? 2 : 1);
    char digits[24];
    int exp10;
    int nd = shortest_digits(fabs(d), digits, &exp10);
    /* Go's %g with shortest precision: exponent form below 1e-4 or from 1e6 up. */
    if (exp10 < -4 || exp10 >= 6) {
        return cel__arena_sprintf(a, "%s%c%s%.*se%c%02d", d < 0 ? "-" : "", digits[0],
                                  nd > 1 ? "." : "", nd - 1, digits + 1, exp10 < 0 ? '-' : '+',
                                  abs(exp10));
    }
    /* Plain form: at most 4 leading zeros after the point or 5 trailing before it. */
    char buf[48];
    size_t o = 0;
    if (d < 0)
        buf[o++] = '-';
    if (exp10 < 0) {
        buf[o++] = '0', buf[o++] = '.';
        for (int i = 0; i < -exp10 - 1; i++)
            buf[o++] = '0';
        memcpy(buf + o, digits, (size_t)nd), o += (size_t)nd;
    } else {
        for (int i = 0; i <= exp10 || i < nd; i++) {
            if (i == exp10 + 1)
                buf[o++] = '.';
            buf[o++] = i < nd ? digits[i] : '0';
        }
    }
    return cel_arena_strndup(a, buf, o);
}

static bool
is_inf_word(const char *s, size_t len)
{
    if (len > 0 && (s[0] == '+' || s[0] == '-'))
        s++, len--;
    return (len == 3 && strncasecmp(s, "inf", 3) == 0) ||
           (len == 8 && strncasecmp(s, "infinity", 8) == 0);
}

bool
cel__parse_double(const char *s, size_t len, double *out)
{
    char buf[128];
    if (len == 0 || len >= sizeof(buf))
        return false;
    memcpy(buf, s, len);
    buf[len] = '\0';
    for (size_t i = 0; i < len; i++) {
        if (buf[i] == '(' || buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\n' || buf[i] == '_')
            return false;
    }
    char *end;
    errno = 0;
    double d = strtod(buf, &end);
    if (end != buf + len)
        return false;
    /* Overflow is an error; a literal infinity is not. */
    if (isinf(d) && !is_inf_word(buf, len))
        return false;
    *out = d;
    return true;
}

bool
cel__parse_uint(const char *s, size_t len, uint64_t *out)
{
    if (len == 0)
        return false;
    uint64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        unsigned d = (unsigned)(s[i] - '0');
        if (v > (UINT64_MAX - d) / 10)
            return false;
        v = v * 10 + d;
    }
    *out = v;
    return true;
}

bool
cel__parse_int(const char *s, size_t len, int64_t *out)
{
    bool neg = false;
    if (len > 0 && (s[0] == '-' || s[0] == '+')) {
        neg = s[0] == '-';
        s++, len--;
    }
    uint64_t u;
    if (!cel__parse_uint(s, len, &u))
        return false;
    if (neg) {
        if (u > (uint64_t)INT64_MAX + 1)
            return false;
        *out = u == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)u;
        return true;
    }
    if (u > (uint64_t)INT64_MAX)
        return false;
    *out = (int64_t)u;
    return true;
}

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

char *
cel__base64_encode(cel_arena_t *a, const unsigned char *s, size_t len, size_t *outlen)
{
    char *out = cel_arena_alloc(a, (len + 2) / 3 * 4 + 1);
    size_t o = 0;
    for (size_t i = 0; i < len; i += 3) {
        uint32_t v = (uint32_t)s[i] << 16;
        if (i + 1 < len)
            v |= (uint32_t)s[i + 1] << 8;
        if (i + 2 < len)
            v |= s[i + 2];
        out[o++] = b64[(v >> 18) & 63];
        out[o++] = b64[(v >> 12) & 63];
        out[o++] = i + 1 < len ? b64[(v >> 6) & 63] : '=';
        out[o++] = i + 2 < len ? b64[v & 63] : '=';
    }
    out[o] = '\0';
    *outlen = o;
    return out;
}

static int
b64_val(char c)
{
    const char *p = c ? strchr(b64, c) : NULL;
    return p ? (int)(p - b64) : -1;
}

bool
cel__base64_decode(cel_arena_t *a, const char *s, size_t len, unsigned char **out, size_t *outlen)
{
    while (len > 0 && s[len - 1] == '=')
        len--;
    if (len % 4 == 1)
        return false;
    unsigned char *o = cel_arena_alloc(a, len / 4 * 3 + 3);
    size_t n = 0;
    uint32_t acc = 0;
    int bits = 0;
    for (size_t i = 0; i < len; i++) {
        int v = b64_val(s[i]);
        if (v < 0)
            return false;
        acc = (acc << 6) | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            o[n++] = (unsigned char)(acc >> bits);
        }
    }
    *out = o;
    *outlen = n;
    return true;
}
