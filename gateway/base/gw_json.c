/*
 * A reader and a writer of Jansson documents that move over runs of plain bytes at once
 * instead of one character at a time. The reader is strict where Jansson is: it gives up
 * (and Jansson reads the text again, for its result or its error) on anything it is not sure
 * Jansson takes the same way, so its only job is to be fast on what Jansson accepts.
 */
#include "gw_json.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"

/* Jansson counts every value it enters against JSON_PARSER_MAX_DEPTH; deeper text is left to
 * it, as is its error. */
#define READ_MAX_DEPTH 1024
/* Deeper than anything the reader makes: a cycle, which json_dumps refuses. */
#define WRITE_MAX_DEPTH 2048

size_t
gw_utf8_len(const unsigned char *p, size_t n)
{
    unsigned char c = p[0], lo = 0x80, hi = 0xbf;
    size_t len = c < 0x80 ? 1 : c < 0xc2 ? 0 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : c < 0xf5 ? 4 : 0;

    if (len <= 1)
        return len;
    if (c == 0xe0)
        lo = 0xa0;
    else if (c == 0xed)
        hi = 0x9f;
    else if (c == 0xf0)
        lo = 0x90;
    else if (c == 0xf4)
        hi = 0x8f;
    if (n < len || p[1] < lo || p[1] > hi)
        return 0;
    for (size_t i = 2; i < len; i++)
        if (p[i] < 0x80 || p[i] > 0xbf)
            return 0;
    return len;
}

/* ---- reading -------------------------------------------------------------------------------- */

typedef struct {
    const unsigned char *p, *end;
    int depth;
    gw_buf_t scratch; /* a string with escapes, decoded */
} onepass_rd_t;

/* A byte of plain string text: no quote, backslash, control or non-ASCII byte. */
static const bool onepass_plain[256] = {
    [0x20 ... 0x21] = true, /* '"' is 0x22 */
    [0x23 ... 0x5b] = true, /* '\\' is 0x5c */
    [0x5d ... 0x7f] = true,
};

/* Whether any of the 8 bytes at p is not plain (a quote, a backslash, a control or a
 * non-ASCII byte): the words of a long run of text are passed over 8 bytes at a time. */
static bool
onepass_word_special(const unsigned char *p)
{
    const uint64_t ones = 0x0101010101010101ULL, high = 0x8080808080808080ULL;
    uint64_t v, q, b;

    memcpy(&v, p, 8);
    q = v ^ (ones * '"');
    b = v ^ (ones * '\\');
    return ((v | ((v - ones * 0x20) & ~v) | ((q - ones) & ~q) | ((b - ones) & ~b)) & high) != 0;
}

/* The first byte from p on (before end) that is not plain, or end. */
static const unsigned char *
onepass_plain_run(const unsigned char *p, const unsigned char *end)
{
    while (end - p >= 8 && !onepass_word_special(p))
        p += 8;
    while (p < end && onepass_plain[*p])
        p++;
    return p;
}

static void
onepass_skip_ws(onepass_rd_t *r)
{
    while (r->p < r->end && (*r->p == ' ' || *r->p == '\n' || *r->p == '\r' || *r->p == '\t'))
        r->p++;
}

static int
onepass_hex_digit(unsigned char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c |= 0x20;
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* The 4 hex digits at p (n bytes left), or -1. */
static long
onepass_hex4(const unsigned char *p, size_t n)
{
    long v = 0;

    if (n < 4)
        return -1;
    for (int i = 0; i < 4; i++) {
        int d = onepass_hex_digit(p[i]);
        if (d < 0)
            return -1;
        v = v << 4 | d;
    }
    return v;
}

static void
onepass_put_utf8(gw_buf_t *b, unsigned long u)
{
    char s[4];
    size_t n;

    if (u < 0x80) {
        s[0] = (char)u, n = 1;
    } else if (u < 0x800) {
        s[0] = (char)(0xc0 | u >> 6), s[1] = (char)(0x80 | (u & 0x3f)), n = 2;
    } else if (u < 0x10000) {
        s[0] = (char)(0xe0 | u >> 12), s[1] = (char)(0x80 | (u >> 6 & 0x3f));
        s[2] = (char)(0x80 | (u & 0x3f)), n = 3;
    } else {
        s[0] = (char)(0xf0 | u >> 18), s[1] = (char)(0x80 | (u >> 12 & 0x3f));
        s[2] = (char)(0x80 | (u >> 6 & 0x3f)), s[3] = (char)(0x80 | (u & 0x3f)), n = 4;
    }
    gw_buf_add(b, s, n);
}

/* A \u escape at q (its 'u') into scratch; the bytes read from q, or 0 where Jansson refuses
 * it (a lone surrogate) or the reader leaves it to Jansson (\u0000). */
static size_t
onepass_unicode_escape(onepass_rd_t *r, const unsigned char *q)
{
    long u = onepass_hex4(q + 1, (size_t)(r->end - q - 1)), lo;

    if (u <= 0 || (u >= 0xdc00 && u <= 0xdfff))
        return 0;
    if (u < 0xd800 || u > 0xdbff) {
        onepass_put_utf8(&r->scratch, (unsigned long)u);
        return 5;
    }
    if (r->end - q < 11 || q[5] != '\\' || q[6] != 'u')
        return 0;
    lo = onepass_hex4(q + 7, 4);
    if (lo < 0xdc00 || lo > 0xdfff)
        return 0;
    onepass_put_utf8(&r->scratch,
                     0x10000 + ((unsigned long)(u - 0xd800) << 10) + (unsigned long)(lo - 0xdc00));
    return 11;
}

/* One escape at q (a backslash) into scratch; the bytes read, or 0. */
static size_t
onepass_escape(onepass_rd_t *r, const unsigned char *q)
{
    static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
    const char *e;

    if (r->end - q < 2)
        return 0;
    if (q[1] == 'u') {
        size_t n = onepass_unicode_escape(r, q + 1);
        return n == 0 ? 0 : n + 1;
    }
    e = strchr(from, q[1]);
    if (q[1] == '\0' || e == NULL)
        return 0;
    gw_buf_char(&r->scratch, to[e - from]);
    return 2;
}

/* The rest of a string whose first escape is at q (the text from s to q is plain), decoded
 * into scratch. 0, or -1 when the reader gives up. */
static int
onepass_scan_escaped(onepass_rd_t *r, const unsigned char *s, const unsigned char *q)
{
    r->scratch.len = 0;
    gw_buf_add(&r->scratch, s, (size_t)(q - s));
    while (q < r->end) {
        const unsigned char *run = q;
        size_t n;
        q = onepass_plain_run(q, r->end);
        gw_buf_add(&r->scratch, run, (size_t)(q - run));
        if (q == r->end)
            return -1;
        if (*q == '"') {
            r->p = q + 1;
            return 0;
        }
        if (*q == '\\')
            n = onepass_escape(r, q);
        else if (*q >= 0x80 && (n = gw_utf8_len(q, (size_t)(r->end - q))) > 0)
            gw_buf_add(&r->scratch, q, n);
        else
            n = 0; /* a control character */
        if (n == 0)
            return -1;
        q += n;
    }
    return -1;
}

/* A string's text from r->p (after its opening quote): 0 with *s, *n pointing into the input,
 * 1 with them pointing into scratch (until the next string), -1 when the reader gives up. */
static int
onepass_scan_string(onepass_rd_t *r, const char **s, size_t *n)
{
    const unsigned char *start = r->p, *q = start;

    for (;;) {
        q = onepass_plain_run(q, r->end);
        if (q == r->end)
            return -1;
        if (*q == '"') {
            *s = (const char *)start;
            *n = (size_t)(q - start);
            r->p = q + 1;
            return 0;
        }
        if (*q == '\\') {
            if (onepass_scan_escaped(r, start, q) != 0)
                return -1;
            *s = r->scratch.data;
            *n = r->scratch.len;
            return 1;
        }
        size_t len = *q >= 0x80 ? gw_utf8_len(q, (size_t)(r->end - q)) : 0;
        if (len == 0)
            return -1;
        q += len;
    }
}

static bool
onepass_is_digit(const onepass_rd_t *r, const unsigned char *q)
{
    return q < r->end && *q >= '0' && *q <= '9';
}

/* Digits from s to e, an integer as strtoll reads it; NULL beyond long long (Jansson's
 * "too big integer"). */
static json_t *
onepass_integer(const unsigned char *s, const unsigned char *e)
{
    bool neg = *s == '-';
    unsigned long long v = 0, lim = neg ? (unsigned long long)LLONG_MAX + 1 : LLONG_MAX;

    for (s += neg; s < e; s++) {
        unsigned d = (unsigned)(*s - '0');
        if (v > (lim - d) / 10)
            return NULL;
        v = v * 10 + d;
    }
    if (!neg)
        return json_integer((json_int_t)v);
    return json_integer(v == (unsigned long long)LLONG_MAX + 1 ? LLONG_MIN : -(json_int_t)v);
}

/* A real from s to e as Jansson's jsonp_strtod reads it; NULL on overflow. */
static json_t *
onepass_real(const unsigned char *s, const unsigned char *e)
{
    char text[64], *end;
    size_t n = (size_t)(e - s);
    double d;

    if (n >= sizeof(text))
        return NULL;
    memcpy(text, s, n);
    text[n] = '\0';
    errno = 0;
    d = strtod(text, &end);
    if (end != text + n || (errno == ERANGE && (d == HUGE_VAL || d == -HUGE_VAL)))
        return NULL;
    return json_real(d);
}

/* A number as Jansson's lexer scans it: an integer unless it has a fraction or exponent. */
static json_t *
onepass_number(onepass_rd_t *r)
{
    const unsigned char *s = r->p, *q = s;
    bool is_real = false;

    q += *q == '-';
    if (!onepass_is_digit(r, q))
        return NULL;
    if (*q == '0') {
        if (onepass_is_digit(r, ++q))
            return NULL;
    } else {
        while (onepass_is_digit(r, q))
            q++;
    }
    if (q < r->end && *q == '.') {
        is_real = true;
        if (!onepass_is_digit(r, ++q))
            return NULL;
        while (onepass_is_digit(r, q))
            q++;
    }
    if (q < r->end && (*q == 'e' || *q == 'E')) {
        is_real = true;
        q++;
        q += q < r->end && (*q == '+' || *q == '-');
        if (!onepass_is_digit(r, q))
            return NULL;
        while (onepass_is_digit(r, q))
            q++;
    }
    r->p = q;
    return is_real ? onepass_real(s, q) : onepass_integer(s, q);
}

static json_t *
onepass_literal(onepass_rd_t *r, const char *word, size_t n, json_t *v)
{
    if ((size_t)(r->end - r->p) < n || memcmp(r->p, word, n) != 0)
        return NULL;
    r->p += n;
    return v;
}

static json_t *onepass_value(onepass_rd_t *r);

/* After a member or element: true past a ',', false at the closing byte (consumed), NULL
 * through *bad otherwise. */
static bool
onepass_next_or_close(onepass_rd_t *r, unsigned char close, bool *bad)
{
    onepass_skip_ws(r);
    if (r->p < r->end && *r->p == ',') {
        r->p++;
        onepass_skip_ws(r);
        return true;
    }
    *bad = r->p == r->end || *r->p != close;
    if (!*bad)
        r->p++;
    return false;
}

static bool onepass_skip(onepass_rd_t *r);

/* The most "<member>.<name>" keys naming one member's members (gw_json_load_members). */
#define SUB_KEYS_MAX 32

typedef enum { WANT_NONE, WANT_ALL, WANT_SOME } onepass_want_t;

/* How keys name member k: not at all, whole (keys NULL, or "k"), or only its members named
 * by keys "k.<name>", whose names go to sub (room for SUB_KEYS_MAX). */
static onepass_want_t
onepass_wanted(const char *k, size_t kn, const char *const *keys, size_t n_keys, const char **sub,
               size_t *n_sub)
{
    onepass_want_t how = keys == NULL ? WANT_ALL : WANT_NONE;

    *n_sub = 0;
    for (size_t i = 0; keys != NULL && i < n_keys && how != WANT_ALL; i++) {
        size_t n = strlen(keys[i]);
        if (n < kn || memcmp(keys[i], k, kn) != 0)
            continue;
        if (n == kn) {
            how = WANT_ALL;
        } else if (keys[i][kn] == '.' && *n_sub < SUB_KEYS_MAX) {
            sub[(*n_sub)++] = keys[i] + kn + 1;
            how = WANT_SOME;
        }
    }
    return how;
}

static json_t *onepass_object(onepass_rd_t *r, const char *const *keys, size_t n_keys);

/* A value of which only the members named in sub are wanted: an object is read with those
 * alone, anything else whole. */
static json_t *
onepass_some(onepass_rd_t *r, const char *const *sub, size_t n_sub)
{
    json_t *v;

    if (*r->p != '{')
        return onepass_value(r);
    if (r->depth == READ_MAX_DEPTH)
        return NULL;
    r->depth++;
    v = onepass_object(r, sub, n_sub);
    r->depth--;
    return v;
}

/* One "key": value member into o, or read and dropped when keys do not name it; false when
 * the reader gives up. */
static bool
onepass_member(onepass_rd_t *r, json_t *o, const char *const *keys, size_t n_keys)
{
    const char *k, *sub[SUB_KEYS_MAX];
    char *copy = NULL;
    size_t kn, n_sub;
    json_t *v = NULL;
    bool ok = false;
    onepass_want_t how;
    int rc;

    if (r->p == r->end || *r->p != '"')
        return false;
    r->p++;
    rc = onepass_scan_string(r, &k, &kn);
    if (rc < 0)
        return false;
    if (rc == 1) /* the value's strings reuse scratch */
        k = copy = gw_memdup(k, kn);
    onepass_skip_ws(r);
    if (r->p < r->end && *r->p == ':') {
        r->p++;
        onepass_skip_ws(r);
        how = onepass_wanted(k, kn, keys, n_keys, sub, &n_sub);
        if (how == WANT_NONE) {
            ok = onepass_skip(r);
        } else if ((v = how == WANT_SOME ? onepass_some(r, sub, n_sub) : onepass_value(r)) !=
                   NULL) {
            json_object_setn_new_nocheck(o, k, kn, v);
            ok = true;
        }
    }
    free(copy);
    return ok;
}

static json_t *
onepass_object(onepass_rd_t *r, const char *const *keys, size_t n_keys)
{
    json_t *o = json_object();
    bool bad = false;

    r->p++;
    onepass_skip_ws(r);
    if (r->p < r->end && *r->p == '}') {
        r->p++;
        return o;
    }
    do {
        if (!onepass_member(r, o, keys, n_keys)) {
            bad = true;
            break;
        }
    } while (onepass_next_or_close(r, '}', &bad));
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *
onepass_array(onepass_rd_t *r)
{
    json_t *a = json_array(), *v;
    bool bad = false;

    r->p++;
    onepass_skip_ws(r);
    if (r->p < r->end && *r->p == ']') {
        r->p++;
        return a;
    }
    do {
        v = onepass_value(r);
        if (v == NULL) {
            bad = true;
            break;
        }
        json_array_append_new(a, v);
    } while (onepass_next_or_close(r, ']', &bad));
    if (bad) {
        json_decref(a);
        return NULL;
    }
    return a;
}

static json_t *
onepass_string_value(onepass_rd_t *r)
{
    const char *s;
    size_t n;

    r->p++;
    if (onepass_scan_string(r, &s, &n) < 0)
        return NULL;
    return json_stringn_nocheck(s, n);
}

static json_t *
onepass_value(onepass_rd_t *r)
{
    json_t *v;

    if (r->p == r->end || r->depth == READ_MAX_DEPTH)
        return NULL;
    r->depth++;
    switch (*r->p) {
    case '{':
        v = onepass_object(r, NULL, 0);
        break;
    case '[':
        v = onepass_array(r);
        break;
    case '"':
        v = onepass_string_value(r);
        break;
    case 't':
        v = onepass_literal(r, "true", 4, json_true());
        break;
    case 'f':
        v = onepass_literal(r, "false", 5, json_false());
        break;
    case 'n':
        v = onepass_literal(r, "null", 4, json_null());
        break;
    default:
        v = onepass_number(r);
        break;
    }
    r->depth--;
    return v;
}

/* The members or elements of the object or array at r->p read and dropped. */
static bool
onepass_skip_composite(onepass_rd_t *r)
{
    static const char *const none[] = {""}; /* with a count of 0: every member dropped */
    unsigned char close = *r->p == '{' ? '}' : ']';
    bool bad = false;

    r->p++;
    onepass_skip_ws(r);
    if (r->p < r->end && *r->p == close) {
        r->p++;
    } else {
        do
            bad = close == '}' ? !onepass_member(r, NULL, none, 0) : !onepass_skip(r);
        while (!bad && onepass_next_or_close(r, close, &bad));
    }
    return !bad;
}

/* A value read and dropped: the reader's checks without the document (a scalar is made and
 * freed: whether Jansson holds a number is what its checks are). */
static bool
onepass_skip(onepass_rd_t *r)
{
    json_t *v;
    bool ok;

    if (r->p == r->end || r->depth == READ_MAX_DEPTH)
        return false;
    if (*r->p == '"') {
        const char *k;
        size_t kn;
        r->p++;
        return onepass_scan_string(r, &k, &kn) >= 0;
    }
    if (*r->p != '{' && *r->p != '[') {
        v = onepass_value(r);
        ok = v != NULL;
        json_decref(v);
        return ok;
    }
    r->depth++;
    ok = onepass_skip_composite(r);
    r->depth--;
    return ok;
}

/* What json_loadb leaves in err on success. */
static void
onepass_error_init(json_error_t *err)
{
    if (err == NULL)
        return;
    err->text[0] = '\0';
    err->line = -1;
    err->column = -1;
    err->position = 0;
    snprintf(err->source, sizeof(err->source), "<buffer>");
}

json_t *
gw_json_loadb(const char *text, size_t len, size_t flags, json_error_t *err)
{
    onepass_rd_t r = {.p = (const unsigned char *)text, .end = (const unsigned char *)text + len};
    json_t *v = NULL;

    if (text != NULL && (flags & ~(size_t)JSON_DECODE_ANY) == 0) {
        onepass_skip_ws(&r);
        if (r.p < r.end && ((flags & JSON_DECODE_ANY) || *r.p == '{' || *r.p == '['))
            v = onepass_value(&r);
        onepass_skip_ws(&r);
        if (v != NULL && r.p != r.end) {
            json_decref(v);
            v = NULL;
        }
        gw_buf_free(&r.scratch);
    }
    if (v == NULL)
        return json_loadb(text, len, flags, err);
    onepass_error_init(err);
    return v;
}

/* ---- writing -------------------------------------------------------------------------------- */

#define FAST_DUMP_FLAGS                                                                            \
    ((size_t)(JSON_INDENT(31) | JSON_COMPACT | JSON_ENCODE_ANY | JSON_PRESERVE_ORDER |             \
              JSON_SORT_KEYS | JSON_REAL_PRECISION(31)))

typedef struct {
    gw_buf_t *b;
    size_t flags;
    const char *colon; /* ":" compact, ": " otherwise */
    int indent;        /* spaces per level: 0 writes everything on one line */
    int depth;         /* of the value being written, the outermost at 1 */
} onepass_wr_t;

/* What Jansson's dump_indent writes before a member or element, or a closing bracket, at
 * `depth`: a new line indented, or one space after a comma of a spaced one-line dump. */
static void
onepass_put_indent(onepass_wr_t *w, int depth, bool after_comma)
{
    if (w->indent > 0) {
        gw_buf_char(w->b, '\n');
        for (int i = 0; i < depth * w->indent; i++)
            gw_buf_char(w->b, ' ');
    } else if (after_comma && !(w->flags & JSON_COMPACT)) {
        gw_buf_char(w->b, ' ');
    }
}

/* s as Jansson's dump_string writes it: \" \\ and the short escapes, other controls as
 * \u00XX, everything else as it is. -1 for invalid UTF-8 (json_dumps fails). */
static int
onepass_put_string(onepass_wr_t *w, const char *str, size_t n)
{
    static const char hex[] = "0123456789ABCDEF";
    const unsigned char *p = (const unsigned char *)str, *end = p + n;

    gw_buf_char(w->b, '"');
    while (p < end) {
        const unsigned char *run = p;
        p = onepass_plain_run(p, end);
        while (p < end && *p >= 0x80) {
            size_t len = gw_utf8_len(p, (size_t)(end - p));
            if (len == 0)
                return -1;
            p = onepass_plain_run(p + len, end);
        }
        gw_buf_add(w->b, run, (size_t)(p - run));
        if (p == end)
            break;
        char e[6] = {'\\', 0, '0', '0', hex[*p >> 4], hex[*p & 0xf]};
        const char *s = *p != '\0' ? strchr("\"\\\b\f\n\r\t", *p) : NULL;
        e[1] = s != NULL ? "\"\\bfnrt"[s - "\"\\\b\f\n\r\t"] : 'u';
        gw_buf_add(w->b, e, s != NULL ? 2 : 6);
        p++;
    }
    gw_buf_char(w->b, '"');
    return 0;
}

static void
onepass_put_integer(onepass_wr_t *w, json_int_t i)
{
    char text[24], *e = text + sizeof(text), *s = e;
    unsigned long long u = i < 0 ? 0ULL - (unsigned long long)i : (unsigned long long)i;

    do
        *--s = (char)('0' + u % 10);
    while ((u /= 10) != 0);
    if (i < 0)
        *--s = '-';
    gw_buf_add(w->b, s, (size_t)(e - s));
}

/* Jansson's own text for a real, so every precision and exponent form stays its own. */
static int
onepass_put_real(onepass_wr_t *w, const json_t *v)
{
    char *s = json_dumps(v, JSON_ENCODE_ANY | (w->flags & (size_t)JSON_REAL_PRECISION(31)));

    if (s == NULL)
        return -1;
    gw_buf_str(w->b, s);
    free(s);
    return 0;
}

static int onepass_put_value(onepass_wr_t *w, const json_t *v);

/* One member of an object being written. */
typedef struct {
    const char *key;
    size_t len;
    json_t *value;
} onepass_member_t;

/* Jansson's order for JSON_SORT_KEYS: bytes, then length. */
static int
onepass_member_cmp(const void *a, const void *b)
{
    const onepass_member_t *x = a, *y = b;
    int c = memcmp(x->key, y->key, x->len < y->len ? x->len : y->len);

    return c != 0 ? c : (x->len > y->len) - (x->len < y->len);
}

static int
onepass_put_members(onepass_wr_t *w, const onepass_member_t *m, size_t n)
{
    gw_buf_char(w->b, '{');
    for (size_t i = 0; i < n; i++) {
        if (i > 0)
            gw_buf_char(w->b, ',');
        onepass_put_indent(w, w->depth, i > 0);
        if (onepass_put_string(w, m[i].key, m[i].len) != 0)
            return -1;
        gw_buf_str(w->b, w->colon);
        if (onepass_put_value(w, m[i].value) != 0)
            return -1;
    }
    if (n > 0)
        onepass_put_indent(w, w->depth - 1, false);
    gw_buf_char(w->b, '}');
    return 0;
}

static int
onepass_put_object(onepass_wr_t *w, const json_t *o)
{
    json_t *obj = (json_t *)o; /* Jansson's iterators take non-const objects */
    onepass_member_t few[16], *m = few;
    size_t n = json_object_size(o), i = 0;
    int rc;

    if (n > sizeof(few) / sizeof(few[0]))
        m = gw_malloc(n * sizeof(*m));
    for (void *it = json_object_iter(obj); it != NULL && i < n;
         it = json_object_iter_next(obj, it), i++)
        m[i] = (onepass_member_t){json_object_iter_key(it), json_object_iter_key_len(it),
                                  json_object_iter_value(it)};
    if (w->flags & JSON_SORT_KEYS)
        qsort(m, i, sizeof(*m), onepass_member_cmp);
    rc = onepass_put_members(w, m, i);
    if (m != few)
        free(m);
    return rc;
}

static int
onepass_put_array(onepass_wr_t *w, const json_t *a)
{
    size_t n = json_array_size(a);

    gw_buf_char(w->b, '[');
    for (size_t i = 0; i < n; i++) {
        if (i > 0)
            gw_buf_char(w->b, ',');
        onepass_put_indent(w, w->depth, i > 0);
        if (onepass_put_value(w, json_array_get(a, i)) != 0)
            return -1;
    }
    if (n > 0)
        onepass_put_indent(w, w->depth - 1, false);
    gw_buf_char(w->b, ']');
    return 0;
}

static int
onepass_put_value(onepass_wr_t *w, const json_t *v)
{
    int rc = 0;

    if (v == NULL || w->depth == WRITE_MAX_DEPTH)
        return -1;
    w->depth++;
    switch (json_typeof(v)) {
    case JSON_OBJECT:
        rc = onepass_put_object(w, v);
        break;
    case JSON_ARRAY:
        rc = onepass_put_array(w, v);
        break;
    case JSON_STRING:
        rc = onepass_put_string(w, json_string_value(v), json_string_length(v));
        break;
    case JSON_INTEGER:
        onepass_put_integer(w, json_integer_value(v));
        break;
    case JSON_REAL:
        rc = onepass_put_real(w, v);
        break;
    case JSON_TRUE:
        gw_buf_str(w->b, "true");
        break;
    case JSON_FALSE:
        gw_buf_str(w->b, "false");
        break;
    case JSON_NULL:
        gw_buf_str(w->b, "null");
        break;
    }
    w->depth--;
    return rc;
}

int
gw_json_dump_buf(const json_t *doc, size_t flags, gw_buf_t *out)
{
    size_t mark = out->len;
    char *s;

    if (doc != NULL && (flags & ~FAST_DUMP_FLAGS) == 0 &&
        ((flags & JSON_ENCODE_ANY) || json_is_object(doc) || json_is_array(doc))) {
        onepass_wr_t w = {.b = out,
                          .flags = flags,
                          .colon = (flags & JSON_COMPACT) ? ":" : ": ",
                          .indent = (int)(flags & JSON_MAX_INDENT)};
        if (onepass_put_value(&w, doc) == 0)
            return 0;
        gw_buf_truncate(out, mark);
    }
    s = json_dumps(doc, flags);
    if (s == NULL)
        return -1;
    gw_buf_str(out, s);
    free(s);
    return 0;
}

char *
gw_json_dumps(const json_t *doc, size_t flags)
{
    gw_buf_t b = {0};

    if (gw_json_dump_buf(doc, flags, &b) != 0) {
        gw_buf_free(&b);
        return NULL;
    }
    return gw_buf_take(&b);
}

/* Jansson's document cut down to what gw_json_load_members keeps. */
static void
keep_members(json_t *o, const char *const *keys, size_t n_keys)
{
    const char *k, *sub[SUB_KEYS_MAX];
    size_t n_sub;
    void *tmp;
    json_t *v;

    json_object_foreach_safe(o, tmp, k, v)
    {
        onepass_want_t how = onepass_wanted(k, strlen(k), keys, n_keys, sub, &n_sub);
        if (how == WANT_NONE)
            json_object_del(o, k);
        else if (how == WANT_SOME && json_is_object(v))
            keep_members(v, sub, n_sub);
    }
}

json_t *
gw_json_load_members(const char *text, size_t len, const char *const *keys, size_t n_keys)
{
    onepass_rd_t r = {.p = (const unsigned char *)text, .end = (const unsigned char *)text + len};
    json_t *o = NULL;

    if (text != NULL) {
        onepass_skip_ws(&r);
        if (r.p < r.end && *r.p == '{') {
            r.depth = 1;
            o = onepass_object(&r, keys, n_keys);
        }
        onepass_skip_ws(&r);
        if (o != NULL && r.p != r.end) {
            json_decref(o);
            o = NULL;
        }
        gw_buf_free(&r.scratch);
        if (o != NULL)
            return o;
    }
    /* what the reader leaves to Jansson: the whole document, then only the members asked */
    o = json_loadb(text, len, 0, NULL);
    if (!json_is_object(o)) {
        json_decref(o);
        return NULL;
    }
    keep_members(o, keys, n_keys);
    return o;
}

const char *
gw_json_plain_run(const char *p, const char *end)
{
    return (const char *)onepass_plain_run((const unsigned char *)p, (const unsigned char *)end);
}
