/*
 * The string extension library as kube-apiserver enables it (cel-go ext.Strings version 2):
 * charAt, indexOf, lastIndexOf, lowerAscii, upperAscii, replace, split, substring, trim, join,
 * strings.quote and format (cel_lib_format.c), plus reverse. Indexes count code points, as
 * cel-go does; index errors carry cel-go's messages, including its quirks (indexOf on an empty
 * string with a non-empty search is an index error, an empty search string returns the offset
 * unchecked).
 */
#include "cel.h"

#include <string.h>

#include "cel_int.h"

#define FN(name)                                                                                   \
    static cel_value_t name(cel__eval_t *ev, const cel__node_t *call, const cel_value_t *a, int n)

static bool
str_all_strings(const cel_value_t *a, int from, int to)
{
    for (int i = from; i < to; i++) {
        if (a[i].kind != CEL_STRING)
            return false;
    }
    return true;
}

static cel_value_t
str_index_error(cel__eval_t *ev, int64_t i)
{
    return cel__err(ev, "index out of range: %lld", (long long)i);
}

/* Byte offset of code point `cp` of `s`, which has at least that many. */
static size_t
str_cp_offset(const cel_value_t *s, int64_t cp)
{
    return cel__utf8_offset(s->v.str.data, s->v.str.len, (size_t)cp);
}

FN(str_char_at)
{
    (void)call;
    if (a[0].kind != CEL_STRING || a[1].kind != CEL_INT)
        return cel__no_overload(ev, "charAt", a, n);
    int64_t len = cel__str_cplen(&a[0]), i = a[1].v.i;
    if (i < 0 || i > len)
        return str_index_error(ev, i);
    if (!cel__work_size(ev, a[0].v.str.len))
        return cel__halt_error(ev);
    size_t from = str_cp_offset(&a[0], i),
           to = cel__utf8_offset(a[0].v.str.data, a[0].v.str.len, (size_t)i + (i < len));
    return cel__string_own(a[0].v.str.data + from, to - from);
}

/* First code-point index >= `off` where `t` occurs in `s`, or -1. */
static int64_t
str_find_forward(const cel_value_t *s, const cel_value_t *t, int64_t off)
{
    size_t from = str_cp_offset(s, off);
    const char *hit =
        memmem(s->v.str.data + from, s->v.str.len - from, t->v.str.data, t->v.str.len);
    if (hit == NULL)
        return -1;
    return off +
           (int64_t)cel__utf8_count(s->v.str.data + from, (size_t)(hit - s->v.str.data) - from);
}

/* Last code-point index <= `off` where `t` occurs in `s`, or -1. */
static int64_t
str_find_backward(const cel_value_t *s, const cel_value_t *t, int64_t off)
{
    int64_t len = cel__str_cplen(s), tlen = cel__str_cplen(t);
    if (off > len - tlen)
        off = len - tlen;
    for (int64_t i = off; i >= 0; i--) {
        size_t at = str_cp_offset(s, i);
        if (s->v.str.len - at >= t->v.str.len &&
            memcmp(s->v.str.data + at, t->v.str.data, t->v.str.len) == 0)
            return i;
    }
    return -1;
}

FN(str_index_of)
{
    if (a[0].kind != CEL_STRING)
        return cel__fn_next(ev, call, str_index_of, a, n);
    if (a[1].kind != CEL_STRING || (n == 3 && a[2].kind != CEL_INT))
        return cel__no_overload(ev, "indexOf", a, n);
    int64_t off = n == 3 ? a[2].v.i : 0;
    if (a[1].v.str.len == 0)
        return cel_int(off);
    if (off < 0 || off >= cel__str_cplen(&a[0]))
        return str_index_error(ev, off);
    if (!cel__work_size(ev, a[0].v.str.len + a[1].v.str.len))
        return cel__halt_error(ev);
    return cel_int(str_find_forward(&a[0], &a[1], off));
}

FN(str_last_index_of)
{
    if (a[0].kind != CEL_STRING)
        return cel__fn_next(ev, call, str_last_index_of, a, n);
    if (a[1].kind != CEL_STRING || (n == 3 && a[2].kind != CEL_INT))
        return cel__no_overload(ev, "lastIndexOf", a, n);
    int64_t len = cel__str_cplen(&a[0]);
    if (n == 2 && a[1].v.str.len == 0)
        return cel_int(len);
    int64_t off = n == 3 ? a[2].v.i : len - 1;
    if (a[1].v.str.len == 0)
        return cel_int(off);
    if (off < 0 || off >= len)
        return str_index_error(ev, off);
    if (!cel__work_size(ev, a[0].v.str.len * (a[1].v.str.len + 1)))
        return cel__halt_error(ev);
    return cel_int(str_find_backward(&a[0], &a[1], off));
}

/* lowerAscii / upperAscii: only ASCII letters change; multi-byte sequences never contain
 * ASCII bytes, so a byte walk is exact. */
static cel_value_t
str_ascii_case(cel__eval_t *ev, const cel_value_t *a, int n, bool upper)
{
    if (a[0].kind != CEL_STRING)
        return cel__no_overload(ev, upper ? "upperAscii" : "lowerAscii", a, n);
    if (!cel__work_size(ev, a[0].v.str.len))
        return cel__halt_error(ev);
    char *out = cel_arena_strndup(ev->arena, a[0].v.str.data, a[0].v.str.len);
    for (size_t i = 0; i < a[0].v.str.len; i++) {
        if (upper && out[i] >= 'a' && out[i] <= 'z')
            out[i] = (char)(out[i] - 'a' + 'A');
        else if (!upper && out[i] >= 'A' && out[i] <= 'Z')
            out[i] = (char)(out[i] - 'A' + 'a');
    }
    return cel__string_own(out, a[0].v.str.len);
}

FN(str_lower_ascii)
{
    (void)call;
    return str_ascii_case(ev, a, n, false);
}

FN(str_upper_ascii)
{
    (void)call;
    return str_ascii_case(ev, a, n, true);
}

/* Occurrences of `t` in `s` as Go's strings.Count counts them (empty: code points + 1). */
static int64_t
str_count_occurrences(const char *s, size_t sl, const char *t, size_t tl)
{
    if (tl == 0)
        return (int64_t)cel__utf8_count(s, sl) + 1;
    int64_t count = 0;
    const char *p = s, *end = s + sl;
    while ((p = memmem(p, (size_t)(end - p), t, tl)) != NULL)
        count++, p += tl;
    return count;
}

/* Go's strings.Replace: at most `limit` replacements (negative: all); an empty `old` matches
 * before every code point and at the end. */
static cel_value_t
str_replace_n(cel__eval_t *ev, const cel_value_t *s, const cel_value_t *old,
              const cel_value_t *new_, int64_t limit)
{
    const char *p = s->v.str.data, *end = p + s->v.str.len;
    int64_t m = str_count_occurrences(p, s->v.str.len, old->v.str.data, old->v.str.len);
    if (limit < 0 || m < limit)
        limit = m;
    cel__buf_t b;
    cel__buf_init(&b, ev->arena, s->v.str.len);
    for (int64_t i = 0; i < limit; i++) {
        const char *j = p;
        if (old->v.str.len == 0) {
            uint32_t cp;
            if (i > 0)
                j += cel__utf8_decode(p, (size_t)(end - p), &cp);
        } else {
            j = memmem(p, (size_t)(end - p), old->v.str.data, old->v.str.len);
        }
        cel__buf_put(&b, p, (size_t)(j - p));
        cel__buf_put(&b, new_->v.str.data, new_->v.str.len);
        p = j + old->v.str.len;
    }
    cel__buf_put(&b, p, (size_t)(end - p));
    return cel__buf_string(&b);
}

FN(str_replace)
{
    (void)call;
    if (!str_all_strings(a, 0, 3) || (n == 4 && a[3].kind != CEL_INT))
        return cel__no_overload(ev, "replace", a, n);
    int64_t limit = n == 4 ? a[3].v.i : -1;
    if (limit == 0)
        return a[0];
    uint64_t work = a[0].v.str.len + a[1].v.str.len + a[2].v.str.len;
    if (!cel__work_size(ev, work * (a[2].v.str.len + 1)))
        return cel__halt_error(ev);
    return str_replace_n(ev, &a[0], &a[1], &a[2], limit);
}

/* Go's strings.SplitN with an empty separator: at most `limit` code points, the last one
 * taking the rest. */
static cel_value_t
str_explode(cel__eval_t *ev, const cel_value_t *s, int64_t limit)
{
    int64_t len = cel__str_cplen(s);
    if (limit < 0 || limit > len)
        limit = len;
    cel_list_t *l = cel__list_new(ev->arena, (size_t)limit);
    const char *p = s->v.str.data, *end = p + s->v.str.len;
    for (int64_t i = 0; i < limit; i++) {
        uint32_t cp;
        size_t w = i == limit - 1 ? (size_t)(end - p) : cel__utf8_decode(p, (size_t)(end - p), &cp);
        cel__list_push(ev->arena, l, cel__string_own(p, w));
        p += w;
    }
    return cel__list_value(l);
}

static cel_value_t
str_split_n(cel__eval_t *ev, const cel_value_t *s, const cel_value_t *sep, int64_t limit)
{
    if (limit == 0)
        return cel__list_value(cel__list_new(ev->arena, 0));
    if (sep->v.str.len == 0)
        return str_explode(ev, s, limit);
    const char *p = s->v.str.data, *end = p + s->v.str.len;
    if (limit < 0)
        limit = str_count_occurrences(p, s->v.str.len, sep->v.str.data, sep->v.str.len) + 1;
    cel_list_t *l = cel__list_new(ev->arena, 4);
    for (int64_t i = 0; i < limit - 1; i++) {
        const char *m = memmem(p, (size_t)(end - p), sep->v.str.data, sep->v.str.len);
        if (m == NULL)
            break;
        cel__list_push(ev->arena, l, cel__string_own(p, (size_t)(m - p)));
        p = m + sep->v.str.len;
    }
    cel__list_push(ev->arena, l, cel__string_own(p, (size_t)(end - p)));
    return cel__list_value(l);
}

FN(str_split)
{
    (void)call;
    if (!str_all_strings(a, 0, 2) || (n == 3 && a[2].kind != CEL_INT))
        return cel__no_overload(ev, "split", a, n);
    if (!cel__work_size(ev, a[0].v.str.len + a[1].v.str.len))
        return cel__halt_error(ev);
    return str_split_n(ev, &a[0], &a[1], n == 3 ? a[2].v.i : -1);
}

FN(str_substring)
{
    (void)call;
    if (a[0].kind != CEL_STRING || a[1].kind != CEL_INT || (n == 3 && a[2].kind != CEL_INT))
        return cel__no_overload(ev, "substring", a, n);
    int64_t len = cel__str_cplen(&a[0]), start = a[1].v.i, end = n == 3 ? a[2].v.i : len;
    if (n == 3 && start > end)
        return cel__err(ev, "invalid substring range. start: %lld, end: %lld", (long long)start,
                        (long long)end);
    if (start < 0 || start > len)
        return str_index_error(ev, start);
    if (end < 0 || end > len)
        return str_index_error(ev, end);
    if (!cel__work_size(ev, a[0].v.str.len))
        return cel__halt_error(ev);
    size_t from = str_cp_offset(&a[0], start), to = str_cp_offset(&a[0], end);
    return cel__string_own(a[0].v.str.data + from, to - from);
}

/* Go's unicode.IsSpace: what strings.TrimSpace removes. */
static bool
str_is_space(uint32_t c)
{
    if (c <= 0xFF)
        return c == ' ' || (c >= '\t' && c <= '\r') || c == 0x85 || c == 0xA0;
    return c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 ||
           c == 0x202F || c == 0x205F || c == 0x3000;
}

FN(str_trim)
{
    (void)call;
    if (a[0].kind != CEL_STRING)
        return cel__no_overload(ev, "trim", a, n);
    if (!cel__work_size(ev, a[0].v.str.len))
        return cel__halt_error(ev);
    const char *s = a[0].v.str.data;
    size_t from = 0, to = a[0].v.str.len;
    uint32_t cp;
    size_t w;
    while (from < to && (w = cel__utf8_decode(s + from, to - from, &cp)) > 0 && str_is_space(cp))
        from += w;
    while (to > from) {
        size_t start = to - 1;
        while (start > from && ((unsigned char)s[start] & 0xC0) == 0x80)
            start--;
        if (cel__utf8_decode(s + start, to - start, &cp) == 0 || !str_is_space(cp))
            break;
        to = start;
    }
    return cel__string_own(s + from, to - from);
}

FN(str_join)
{
    (void)call;
    if (a[0].kind != CEL_LIST || (n == 2 && a[1].kind != CEL_STRING))
        return cel__no_overload(ev, "join", a, n);
    size_t size = cel_list_size(&a[0]);
    cel__buf_t b;
    cel__buf_init(&b, ev->arena, 64);
    for (size_t i = 0; i < size; i++) {
        cel_value_t x = cel_list_at(&a[0], i);
        if (x.kind != CEL_STRING)
            return cel__err(ev, "join: invalid input: %s", cel__value_text(ev->arena, &x));
        if (i > 0 && n == 2)
            cel__buf_put(&b, a[1].v.str.data, a[1].v.str.len);
        cel__buf_put(&b, x.v.str.data, x.v.str.len);
    }
    if (!cel__work_size(ev, b.len + size))
        return cel__halt_error(ev);
    return cel__buf_string(&b);
}

FN(str_reverse)
{
    if (a[0].kind != CEL_STRING)
        return cel__fn_next(ev, call, str_reverse, a, n);
    if (!cel__work_size(ev, a[0].v.str.len))
        return cel__halt_error(ev);
    const char *s = a[0].v.str.data;
    size_t len = a[0].v.str.len;
    char *out = cel_arena_alloc(ev->arena, len + 1);
    for (size_t i = 0; i < len;) {
        uint32_t cp;
        size_t w = cel__utf8_decode(s + i, len - i, &cp);
        memcpy(out + len - i - w, s + i, w);
        i += w;
    }
    return cel__string_own(out, len);
}

FN(str_quote)
{
    (void)call;
    if (a[0].kind != CEL_STRING)
        return cel__no_overload(ev, "strings.quote", a, n);
    if (!cel__work_size(ev, a[0].v.str.len))
        return cel__halt_error(ev);
    cel__buf_t b;
    cel__buf_init(&b, ev->arena, a[0].v.str.len + 2);
    cel__buf_putc(&b, '"');
    for (size_t i = 0; i < a[0].v.str.len; i++) {
        static const char from[] = "\a\b\f\n\r\t\v\\\"", to[] = "abfnrtv\\\"";
        char c = a[0].v.str.data[i];
        const char *e = c != '\0' ? strchr(from, c) : NULL;
        if (e != NULL) {
            cel__buf_putc(&b, '\\');
            cel__buf_putc(&b, to[e - from]);
        } else {
            cel__buf_putc(&b, c);
        }
    }
    cel__buf_putc(&b, '"');
    return cel__buf_string(&b);
}

const cel__fn_t cel__strings_fns[] = {
    {"charAt", true, 2, 2, str_char_at},
    {"indexOf", true, 2, 3, str_index_of},
    {"lastIndexOf", true, 2, 3, str_last_index_of},
    {"lowerAscii", true, 1, 1, str_lower_ascii},
    {"upperAscii", true, 1, 1, str_upper_ascii},
    {"replace", true, 3, 4, str_replace},
    {"split", true, 2, 3, str_split},
    {"substring", true, 2, 3, str_substring},
    {"trim", true, 1, 1, str_trim},
    {"join", true, 1, 2, str_join},
    {"reverse", true, 1, 1, str_reverse},
    {"strings.quote", false, 1, 1, str_quote},
    {"format", true, 2, 2, cel__fn_format},
    {NULL, false, 0, 0, NULL},
};

#undef FN
