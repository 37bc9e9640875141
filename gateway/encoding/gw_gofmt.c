/*
 * Go's fmt verbs over decoded JSON, as kube-apiserver's messages print values: the dynamic
 * types encoding/json gives them (map[string]interface{}, []interface{}, string, int64 for
 * integers as kube decodes with PreserveInts, float64, bool, nil).
 */
#include "gw_gofmt.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_buf.h"

typedef enum { T_NIL, T_MAP, T_SLICE, T_STRING, T_INT, T_FLOAT, T_BOOL } go_type_t;

static go_type_t
go_type(const json_t *v)
{
    switch (v == NULL ? JSON_NULL : json_typeof(v)) {
    case JSON_OBJECT:
        return T_MAP;
    case JSON_ARRAY:
        return T_SLICE;
    case JSON_STRING:
        return T_STRING;
    case JSON_INTEGER:
        return T_INT;
    case JSON_REAL:
        return T_FLOAT;
    case JSON_TRUE:
    case JSON_FALSE:
        return T_BOOL;
    default:
        return T_NIL;
    }
}

static const char *
go_type_name(const json_t *v)
{
    static const char *const names[] = {
        [T_NIL] = "<nil>",
        [T_MAP] = "map[string]interface {}",
        [T_SLICE] = "[]interface {}",
        [T_STRING] = "string",
        [T_INT] = "int64",
        [T_FLOAT] = "float64",
        [T_BOOL] = "bool",
    };
    return names[go_type(v)];
}

/* ---- floats: strconv.FormatFloat(f, 'g', -1, 64) ------------------------------------------- */

/* The shortest decimal digits that read back as f, and the exponent of the first digit. */
static void
shortest_digits(double f, char *digits, int *exp10)
{
    char buf[40];

    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, sizeof(buf), "%.*e", prec - 1, f);
        if (strtod(buf, NULL) == f || prec == 17)
            break;
    }
    /* buf is "-d.ddde[+-]x" */
    char *e = strchr(buf, 'e'), *o = digits;
    for (char *c = buf; c < e; c++) {
        if (*c >= '0' && *c <= '9')
            *o++ = *c;
    }
    while (o > digits + 1 && o[-1] == '0')
        o--;
    *o = '\0';
    *exp10 = atoi(e + 1);
}

static void
put_float(gw_buf_t *b, double f)
{
    char digits[24], out[64];
    int exp10, nd, n = 0;

    if (f == 0) {
        gw_buf_str(b, signbit(f) ? "-0" : "0");
        return;
    }
    shortest_digits(fabs(f), digits, &exp10);
    nd = (int)strlen(digits);
    if (f < 0)
        out[n++] = '-';
    if (exp10 < -4 || exp10 >= 6) { /* the shortest %g decides on precision 6 */
        out[n++] = digits[0];
        if (nd > 1) {
            out[n++] = '.';
            memcpy(out + n, digits + 1, (size_t)nd - 1);
            n += nd - 1;
        }
        n += snprintf(out + n, sizeof(out) - (size_t)n, "e%c%02d", exp10 < 0 ? '-' : '+',
                      exp10 < 0 ? -exp10 : exp10);
    } else if (exp10 < 0) {
        out[n++] = '0';
        out[n++] = '.';
        for (int i = 0; i < -exp10 - 1; i++)
            out[n++] = '0';
        memcpy(out + n, digits, (size_t)nd);
        n += nd;
    } else {
        for (int i = 0; i <= exp10; i++)
            out[n++] = i < nd ? digits[i] : '0';
        if (nd > exp10 + 1) {
            out[n++] = '.';
            memcpy(out + n, digits + exp10 + 1, (size_t)(nd - exp10 - 1));
            n += nd - exp10 - 1;
        }
    }
    out[n] = '\0';
    gw_buf_str(b, out);
}

/* ---- %v and %s ------------------------------------------------------------------------------ */

static int
key_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void put_value(gw_buf_t *b, const json_t *v, char verb, bool top);

static void
put_map(gw_buf_t *b, const json_t *v, char verb)
{
    size_t n = json_object_size(v), i = 0;
    const char **keys = gw_malloc((n ? n : 1) * sizeof(*keys));
    const char *k;
    json_t *x;

    json_object_foreach((json_t *)v, k, x) keys[i++] = k;
    qsort(keys, n, sizeof(*keys), key_cmp);
    gw_buf_str(b, "map[");
    for (i = 0; i < n; i++) {
        if (i > 0)
            gw_buf_str(b, " ");
        gw_buf_str(b, keys[i]);
        gw_buf_str(b, ":");
        put_value(b, json_object_get(v, keys[i]), verb, false);
    }
    gw_buf_str(b, "]");
    free(keys);
}

static void
put_scalar(gw_buf_t *b, const json_t *v)
{
    char num[32];

    switch (go_type(v)) {
    case T_STRING:
        gw_buf_add(b, json_string_value(v), json_string_length(v));
        break;
    case T_INT:
        snprintf(num, sizeof(num), "%lld", (long long)json_integer_value(v));
        gw_buf_str(b, num);
        break;
    case T_FLOAT:
        put_float(b, json_real_value(v));
        break;
    case T_BOOL:
        gw_buf_str(b, json_is_true(v) ? "true" : "false");
        break;
    default:
        gw_buf_str(b, "<nil>");
        break;
    }
}

/* fmt prints a nil inside a container as <nil> whatever the verb, a top-level nil under %s as
 * %!s(<nil>), and a non-string scalar under %s as %!s(<type>=<value>). */
static void
put_value(gw_buf_t *b, const json_t *v, char verb, bool top)
{
    go_type_t t = go_type(v);
    size_t i;
    json_t *x;

    if (t == T_MAP) {
        put_map(b, v, verb);
    } else if (t == T_SLICE) {
        gw_buf_str(b, "[");
        json_array_foreach(v, i, x)
        {
            if (i > 0)
                gw_buf_str(b, " ");
            put_value(b, x, verb, false);
        }
        gw_buf_str(b, "]");
    } else if (verb == 's' && t != T_STRING && (t != T_NIL || top)) {
        gw_buf_str(b, "%!s(");
        gw_buf_str(b, go_type_name(v));
        if (t != T_NIL) {
            gw_buf_str(b, "=");
            put_scalar(b, v);
        }
        gw_buf_str(b, ")");
    } else {
        put_scalar(b, v);
    }
}

char *
gw_go_value(const json_t *v)
{
    gw_buf_t b = {0};

    put_value(&b, v, 'v', true);
    return gw_buf_take(&b);
}

char *
gw_go_string(const json_t *v)
{
    gw_buf_t b = {0};

    put_value(&b, v, 's', true);
    return gw_buf_take(&b);
}

/* ---- %q ------------------------------------------------------------------------------------- */

/* The length of the valid UTF-8 sequence at s (0 when invalid). */
static size_t
utf8_len(const unsigned char *s)
{
    size_t n = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;

    if (s[0] >= 0xf8)
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    }
    return n;
}

char *
gw_go_quote(const char *s)
{
    static const char esc[] = "\a\b\f\n\r\t\v", letters[] = "abfnrtv";
    const unsigned char *c = (const unsigned char *)s;
    gw_buf_t b = {0};
    char tmp[8];

    gw_buf_str(&b, "\"");
    while (*c) {
        const char *e = *c ? strchr(esc, *c) : NULL;
        size_t n = *c >= 0x80 ? utf8_len(c) : 1;
        if (*c == '"' || *c == '\\') {
            snprintf(tmp, sizeof(tmp), "\\%c", *c);
        } else if (e != NULL) {
            snprintf(tmp, sizeof(tmp), "\\%c", letters[e - esc]);
        } else if (*c < 0x20 || *c == 0x7f || n == 0) {
            snprintf(tmp, sizeof(tmp), "\\x%02x", *c);
            n = 1;
        } else {
            gw_buf_add(&b, (const char *)c, n);
            c += n;
            continue;
        }
        gw_buf_str(&b, tmp);
        c += n;
    }
    gw_buf_str(&b, "\"");
    return b.data;
}
