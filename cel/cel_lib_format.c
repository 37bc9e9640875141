/*
 * string.format(list): printf-style substitution with cel-go's clauses and messages (ext
 * strings version 2, locale en_US as kube-apiserver leaves it). %s renders any value, lists and
 * maps as CEL literals (map entries sorted by their rendered key); %d integers; %f fixed point
 * and %e scientific notation as golang.org/x/text prints them for en_US (digit grouping,
 * "1.000000 × 10⁰⁰"); %b, %o, %x, %X integers (and bool, strings, bytes where cel-go allows).
 * cel-go passes the precision of %e as a width, so %e always shows six fraction digits; that
 * is reproduced.
 */
#include "cel.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cel_int.h"

#define DEFAULT_PRECISION 6

typedef struct fmt_state {
    cel__eval_t *ev;
    cel__buf_t *out;
    const char *why; /* the clause's error, without the "error during formatting" prefix */
} fmt_state_t;

static bool fmt_fail(fmt_state_t *st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static bool
fmt_fail(fmt_state_t *st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    st->why = cel__arena_vsprintf(st->ev->arena, fmt, ap);
    va_end(ap);
    return false;
}

static const char *
fmt_type_of(const cel_value_t *v)
{
    return cel_value_type(v)->name;
}

/* ---- Go's %q ---- */

/* Approximates Go's strconv.IsPrint outside ASCII: controls, separators other than the space,
 * format characters, surrogates, private use and non-characters are not printable. */
static bool
fmt_go_printable(uint32_t c)
{
    if (c < 0x80)
        return c >= 0x20 && c < 0x7F;
    if (c < 0xA0 || c == 0xAD || (c >= 0xD800 && c <= 0xF8FF) || (c & 0xFFFE) == 0xFFFE)
        return false;
    if (c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200F) || (c >= 0x2028 && c <= 0x202F))
        return false;
    if ((c >= 0x205F && c <= 0x206F) || c == 0x3000 || c == 0xFEFF || (c >= 0xFFF9 && c <= 0xFFFB))
        return false;
    if ((c >= 0x600 && c <= 0x605) || c == 0x61C || c == 0x6DD || c == 0x70F || c == 0x180E)
        return false;
    return c < 0xF0000;
}

static void
fmt_go_escape(cel__buf_t *b, uint32_t c)
{
    static const char from[] = "\a\b\f\n\r\t\v", to[] = "abfnrtv";
    const char *e = c != 0 && c < 0x80 ? strchr(from, (int)c) : NULL;
    if (e != NULL)
        cel__buf_printf(b, "\\%c", to[e - from]);
    else if (c < 0x20 || c == 0x7F)
        cel__buf_printf(b, "\\x%02x", c);
    else if (c < 0x10000)
        cel__buf_printf(b, "\\u%04x", c);
    else
        cel__buf_printf(b, "\\U%08x", c);
}

void
cel__go_quote(cel__buf_t *b, const char *s, size_t len)
{
    cel__buf_putc(b, '"');
    for (size_t i = 0; i < len;) {
        uint32_t c;
        size_t w = cel__utf8_decode(s + i, len - i, &c);
        if (w == 0) {
            cel__buf_printf(b, "\\x%02x", (unsigned char)s[i]);
            i++;
            continue;
        }
        if (c == '"' || c == '\\')
            cel__buf_putc(b, '\\');
        if (fmt_go_printable(c) || c == '"' || c == '\\')
            cel__buf_put(b, s + i, w);
        else
            fmt_go_escape(b, c);
        i += w;
    }
    cel__buf_putc(b, '"');
}

/* ---- %s ---- */

/* What string(v) gives for the scalar kinds %s accepts; false for other kinds. */
static bool
fmt_scalar_text(fmt_state_t *st, const cel_value_t *v, const char **s, size_t *len)
{
    cel_arena_t *a = st->ev->arena;
    switch (v->kind) {
    case CEL_INT:
        *s = cel__arena_sprintf(a, "%lld", (long long)v->v.i);
        break;
    case CEL_UINT:
        *s = cel__arena_sprintf(a, "%llu", (unsigned long long)v->v.u);
        break;
    case CEL_DOUBLE:
        *s = cel__format_double(a, v->v.d);
        break;
    case CEL_BOOL:
        *s = v->v.b ? "true" : "false";
        break;
    case CEL_STRING:
    case CEL_BYTES:
        if (v->kind == CEL_BYTES && !cel__utf8_valid(v->v.str.data, v->v.str.len))
            return fmt_fail(st, "could not convert argument \"invalid UTF-8 in bytes, cannot "
                                "convert to string\" to string");
        *s = v->v.str.data, *len = v->v.str.len;
        return true;
    case CEL_TIMESTAMP:
        *s = cel__ts_format(a, v->v.ts.sec, v->v.ts.nsec);
        break;
    case CEL_DURATION:
        *s = cel__dur_format(a, v->v.dur);
        break;
    case CEL_TYPE:
        *s = cel_type_name(v->v.type);
        break;
    case CEL_NULL:
        *s = "null";
        break;
    default:
        return fmt_fail(st,
                        "string clause can only be used on strings, bools, bytes, ints, "
                        "doubles, maps, lists, types, durations, and timestamps, was given %s",
                        fmt_type_of(v));
    }
    *len = strlen(*s);
    return true;
}

static bool fmt_format_list(fmt_state_t *st, const cel_value_t *v);
static bool fmt_format_map(fmt_state_t *st, const cel_value_t *v);

static bool
fmt_format_string(fmt_state_t *st, const cel_value_t *v)
{
    const char *s;
    size_t len;
    if (v->kind == CEL_LIST)
        return fmt_format_list(st, v);
    if (v->kind == CEL_MAP)
        return fmt_format_map(st, v);
    if (!fmt_scalar_text(st, v, &s, &len))
        return false;
    cel__buf_put(st->out, s, len);
    return true;
}

/* A list element or map value, written so that the whole reads back as a CEL literal. */
static bool
fmt_format_member(fmt_state_t *st, const cel_value_t *v)
{
    const char *s;
    size_t len;
    cel_arena_t *a = st->ev->arena;
    switch (v->kind) {
    case CEL_LIST:
    case CEL_MAP:
    case CEL_INT:
    case CEL_UINT:
    case CEL_BOOL:
    case CEL_NULL:
    case CEL_TYPE:
        return fmt_format_string(st, v);
    case CEL_STRING:
    case CEL_BYTES:
        if (!fmt_scalar_text(st, v, &s, &len))
            return false;
        cel__buf_puts(st->out, v->kind == CEL_BYTES ? "b" : "");
        cel__go_quote(st->out, s, len);
        return true;
    case CEL_TIMESTAMP:
    case CEL_DURATION:
        s = v->kind == CEL_TIMESTAMP ? cel__ts_format(a, v->v.ts.sec, v->v.ts.nsec)
                                     : cel__dur_format(a, v->v.dur);
        cel__buf_puts(st->out, v->kind == CEL_TIMESTAMP ? "timestamp(" : "duration(");
        cel__go_quote(st->out, s, strlen(s));
        cel__buf_putc(st->out, ')');
        return true;
    case CEL_DOUBLE:
        if (isfinite(v->v.d))
            cel__buf_printf(st->out, "%.*f", DEFAULT_PRECISION, v->v.d);
        else
            cel__buf_puts(st->out, isnan(v->v.d) ? "\"NaN\""
                                   : v->v.d > 0  ? "\"+Inf\""
                                                 : "\"-Inf\"");
        return true;
    default:
        return fmt_fail(st, "no formatting function for %s", fmt_type_of(v));
    }
}

static bool
fmt_format_list(fmt_state_t *st, const cel_value_t *v)
{
    size_t n = cel_list_size(v);
    cel__buf_putc(st->out, '[');
    for (size_t i = 0; i < n; i++) {
        cel_value_t x = cel_list_at(v, i);
        if (i > 0)
            cel__buf_puts(st->out, ", ");
        if (!fmt_format_member(st, &x))
            return false;
    }
    cel__buf_putc(st->out, ']');
    return true;
}

typedef struct fmt_pair {
    const char *key;
    const char *val;
} fmt_pair_t;

static int
fmt_cmp_pairs(const void *x, const void *y)
{
    return strcmp(((const fmt_pair_t *)x)->key, ((const fmt_pair_t *)y)->key);
}

/* Render `v` as a member into its own buffer. */
static const char *
fmt_member_text(fmt_state_t *st, const cel_value_t *v, bool key)
{
    cel__buf_t b, *saved = st->out;
    cel__buf_init(&b, st->ev->arena, 32);
    st->out = &b;
    bool ok;
    if (key && !cel__map_key_ok(v))
        ok = fmt_fail(st, "no formatting function for map key of type %s", fmt_type_of(v));
    else
        ok = fmt_format_member(st, v);
    st->out = saved;
    return ok ? b.data : NULL;
}

static bool
fmt_format_map(fmt_state_t *st, const cel_value_t *v)
{
    size_t n = cel_map_size(v), i = 0;
    fmt_pair_t *pairs = cel_arena_alloc(st->ev->arena, (n + 1) * sizeof(*pairs));
    cel_map_iter_t it = CEL_MAP_ITER_INIT;
    cel_value_t k, x;
    while (cel_map_next(v, &it, &k, &x)) {
        pairs[i].key = fmt_member_text(st, &k, true);
        pairs[i].val = pairs[i].key ? fmt_member_text(st, &x, false) : NULL;
        if (pairs[i++].val == NULL)
            return false;
    }
    /* Keys are distinct, so sorting by key alone is deterministic. */
    qsort(pairs, n, sizeof(*pairs), fmt_cmp_pairs);
    cel__buf_putc(st->out, '{');
    for (i = 0; i < n; i++)
        cel__buf_printf(st->out, "%s%s:%s", i ? ", " : "", pairs[i].key, pairs[i].val);
    cel__buf_putc(st->out, '}');
    return true;
}

/* ---- Numeric clauses ---- */

static bool
fmt_format_decimal(fmt_state_t *st, const cel_value_t *v)
{
    if (v->kind == CEL_INT)
        cel__buf_printf(st->out, "%lld", (long long)v->v.i);
    else if (v->kind == CEL_UINT)
        cel__buf_printf(st->out, "%llu", (unsigned long long)v->v.u);
    else
        return fmt_fail(st, "decimal clause can only be used on integers, was given %s",
                        fmt_type_of(v));
    return true;
}

/* Magnitude and sign of an int or uint, as Go prints signed integers in any base. */
static uint64_t
fmt_magnitude(const cel_value_t *v, bool *neg)
{
    *neg = v->kind == CEL_INT && v->v.i < 0;
    if (v->kind == CEL_UINT)
        return v->v.u;
    return *neg ? (uint64_t)0 - (uint64_t)v->v.i : (uint64_t)v->v.i;
}

static void
fmt_put_base(cel__buf_t *b, const cel_value_t *v, unsigned base, bool upper)
{
    const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
    char tmp[72];
    int i = (int)sizeof(tmp);
    bool neg;
    uint64_t u = fmt_magnitude(v, &neg);
    do {
        tmp[--i] = digits[u % base];
        u /= base;
    } while (u > 0);
    if (neg)
        tmp[--i] = '-';
    cel__buf_put(b, tmp + i, sizeof(tmp) - (size_t)i);
}

static bool
fmt_format_binary(fmt_state_t *st, const cel_value_t *v)
{
    if (v->kind == CEL_BOOL)
        cel__buf_putc(st->out, v->v.b ? '1' : '0');
    else if (v->kind == CEL_INT || v->kind == CEL_UINT)
        fmt_put_base(st->out, v, 2, false);
    else
        return fmt_fail(st, "only integers and bools can be formatted as binary, was given %s",
                        fmt_type_of(v));
    return true;
}

static bool
fmt_format_octal(fmt_state_t *st, const cel_value_t *v)
{
    if (v->kind != CEL_INT && v->kind != CEL_UINT)
        return fmt_fail(st, "octal clause can only be used on integers, was given %s",
                        fmt_type_of(v));
    fmt_put_base(st->out, v, 8, false);
    return true;
}

static bool
fmt_format_hex(fmt_state_t *st, const cel_value_t *v, bool upper)
{
    if (v->kind == CEL_INT || v->kind == CEL_UINT) {
        fmt_put_base(st->out, v, 16, upper);
        return true;
    }
    if (v->kind != CEL_STRING && v->kind != CEL_BYTES)
        return fmt_fail(st,
                        "only integers, byte buffers, and strings can be formatted as hex, "
                        "was given %s",
                        fmt_type_of(v));
    for (size_t i = 0; i < v->v.str.len; i++)
        cel__buf_printf(st->out, upper ? "%02X" : "%02x", (unsigned char)v->v.str.data[i]);
    return true;
}

/* %f and %e take doubles, and the strings "NaN", "Infinity" and "-Infinity". */
static bool
fmt_float_arg(fmt_state_t *st, const cel_value_t *v, const char *what, double *d)
{
    if (v->kind == CEL_DOUBLE) {
        *d = v->v.d;
        return true;
    }
    if (v->kind == CEL_STRING) {
        static const char *const words[] = {"NaN", "Infinity", "-Infinity"};
        const double vals[] = {NAN, INFINITY, -INFINITY};
        for (int i = 0; i < 3; i++) {
            if (v->v.str.len == strlen(words[i]) &&
                memcmp(v->v.str.data, words[i], v->v.str.len) == 0) {
                *d = vals[i];
                return true;
            }
        }
    }
    return fmt_fail(st, "%s clause can only be used on doubles, was given %s", what,
                    fmt_type_of(v));
}

static bool
fmt_put_special(cel__buf_t *b, double d)
{
    if (isnan(d))
        cel__buf_puts(b, "NaN");
    else if (isinf(d))
        cel__buf_puts(b, d > 0 ? "∞" : "-∞");
    return !isfinite(d);
}

/* en_US fixed point: grouped integer digits; at most `prec` fraction digits, trailing zeros
 * dropped below `prec` mod 256 (x/text keeps the minimum in a byte). */
static bool
fmt_format_fixed(fmt_state_t *st, const cel_value_t *v, int prec)
{
    double d;
    if (!fmt_float_arg(st, v, "fixed-point", &d))
        return false;
    if (fmt_put_special(st->out, d))
        return true;
    char *s = cel__arena_sprintf(st->ev->arena, "%.*f", prec > 1100 ? 1100 : prec, fabs(d));
    char *dot = strchr(s, '.');
    size_t ilen = dot ? (size_t)(dot - s) : strlen(s), flen = dot ? strlen(dot + 1) : 0;
    size_t min_frac = (size_t)(prec & 0xFF);
    while (flen > min_frac && dot[flen] == '0')
        flen--;
    if (d < 0)
        cel__buf_putc(st->out, '-');
    for (size_t i = 0; i < ilen; i++) {
        if (i > 0 && (ilen - i) % 3 == 0)
            cel__buf_putc(st->out, ',');
        cel__buf_putc(st->out, s[i]);
    }
    if (flen > 0) {
        cel__buf_putc(st->out, '.');
        cel__buf_put(st->out, dot + 1, flen);
    }
    return true;
}

/* en_US scientific notation: six fraction digits, "× 10" and a superscript exponent of at least
 * two digits, padded with spaces to `width` code points. */
static bool
fmt_format_scientific(fmt_state_t *st, const cel_value_t *v, int width)
{
    static const char *const sup[] = {"⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"};
    double d;
    if (!fmt_float_arg(st, v, "scientific", &d))
        return false;
    cel__buf_t b;
    cel__buf_init(&b, st->ev->arena, 32);
    if (!fmt_put_special(&b, d)) {
        char *s = cel__arena_sprintf(st->ev->arena, "%.*e", DEFAULT_PRECISION, d);
        char *e = strchr(s, 'e');
        int exp = atoi(e + 1);
        cel__buf_put(&b, s, (size_t)(e - s));
        cel__buf_puts(&b, "\u202f×\u202f10");
        if (exp < 0)
            cel__buf_puts(&b, "⁻");
        char digits[16];
        snprintf(digits, sizeof(digits), "%02d", abs(exp));
        for (char *p = digits; *p != '\0'; p++)
            cel__buf_puts(&b, sup[*p - '0']);
    }
    for (int pad = width - (int)cel__utf8_count(b.data, b.len); pad > 0; pad--)
        cel__buf_putc(st->out, ' ');
    cel__buf_put(st->out, b.data, b.len);
    return true;
}

/* ---- The format string ---- */

/* Parse "[.digits]verb" at `f` (after the '%'); the bytes consumed, or -1 with `*why` set. */
static int
fmt_parse_clause(fmt_state_t *st, const char *f, size_t len, int *prec, char *verb)
{
    size_t i = 0;
    *prec = -1;
    if (i < len && f[i] == '.') {
        size_t start = ++i;
        while (i < len && f[i] >= '0' && f[i] <= '9')
            i++;
        if (i >= len) {
            fmt_fail(st, "error while parsing precision: could not find end of precision "
                         "specifier");
            return -1;
        }
        char *digits = cel_arena_strndup(st->ev->arena, f + start, i - start);
        if (i == start || i - start > 9) {
            fmt_fail(st,
                     "error while parsing precision: error while converting precision to "
                     "integer: strconv.Atoi: parsing \"%s\": %s",
                     digits, i == start ? "invalid syntax" : "value out of range");
            return -1;
        }
        *prec = atoi(digits);
    }
    *verb = f[i];
    if (*verb == '\0' || strchr("sdfebxXo", *verb) == NULL) {
        /* cel-go reads the verb as a byte, so a multi-byte character shows as its lead byte. */
        char c[4];
        size_t w = cel__utf8_encode((unsigned char)*verb, c);
        fmt_fail(st, "unrecognized formatting clause \"%.*s\"", (int)w, c);
        return -1;
    }
    return (int)i + 1;
}

static bool
fmt_apply_clause(fmt_state_t *st, char verb, int prec, const cel_value_t *v)
{
    switch (verb) {
    case 's':
        return fmt_format_string(st, v);
    case 'd':
        return fmt_format_decimal(st, v);
    case 'f':
        return fmt_format_fixed(st, v, prec < 0 ? DEFAULT_PRECISION : prec);
    case 'e':
        return fmt_format_scientific(st, v, prec < 0 ? DEFAULT_PRECISION : prec);
    case 'b':
        return fmt_format_binary(st, v);
    case 'o':
        return fmt_format_octal(st, v);
    default:
        return fmt_format_hex(st, v, verb == 'X');
    }
}

/* One "%..." clause at f[*i]; false with the reply in `*err`. */
static bool
fmt_clause(fmt_state_t *st, const char *f, size_t len, size_t *i, const cel_value_t *args,
           size_t *argi, cel_value_t *err)
{
    int prec;
    char verb;
    if (*argi >= cel_list_size(args)) {
        *err = cel__err(st->ev, "index %zu out of range", *argi);
        return false;
    }
    if (*i + 1 >= len) {
        *err = cel__err(st->ev, "unexpected end of string");
        return false;
    }
    int used = fmt_parse_clause(st, f + *i + 1, len - *i - 1, &prec, &verb);
    if (used < 0) {
        *err = cel__err(st->ev, "could not parse formatting clause: %s", st->why);
        return false;
    }
    cel_value_t v = cel_list_at(args, (*argi)++);
    if (!fmt_apply_clause(st, verb, prec, &v)) {
        *err = cel__err(st->ev, "error during formatting: %s", st->why);
        return false;
    }
    *i += 1 + (size_t)used;
    return true;
}

cel_value_t
cel__fn_format(cel__eval_t *ev, const cel__node_t *call, const cel_value_t *a, int n)
{
    (void)call;
    if (a[0].kind != CEL_STRING || a[1].kind != CEL_LIST)
        return cel__no_overload(ev, "format", a, n);
    const char *f = a[0].v.str.data;
    size_t len = a[0].v.str.len, i = 0, argi = 0;
    cel__buf_t out;
    cel__buf_init(&out, ev->arena, len + 16);
    fmt_state_t st = {.ev = ev, .out = &out};
    cel_value_t err;
    while (i < len) {
        if (f[i] != '%') {
            cel__buf_putc(&out, f[i++]);
        } else if (i + 1 < len && f[i + 1] == '%') {
            cel__buf_putc(&out, '%');
            i += 2;
        } else if (!fmt_clause(&st, f, len, &i, &a[1], &argi, &err)) {
            return err;
        }
    }
    if (!cel__work_size(ev, out.len))
        return cel__halt_error(ev);
    return cel__buf_string(&out);
}

const char *
cel__value_text(cel_arena_t *a, const cel_value_t *v)
{
    cel__eval_t ev = {.arena = a};
    cel__buf_t b;
    cel__buf_init(&b, a, 32);
    fmt_state_t st = {.ev = &ev, .out = &b};
    return fmt_format_string(&st, v) ? b.data : fmt_type_of(v);
}
