#include "gw_fieldval.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_buf.h"
#include "gw_err.h"
#include "gw_json.h"

/* ---- duplicate keys in raw JSON ---------------------------------------------------------- */

/* kube-apiserver's JSON decoder nests no deeper than this either way (Jansson stops at 2048) */
#define JSON_MAX_DEPTH 2048

typedef struct {
    const unsigned char *p, *end;
    gw_field_issues_t *out;
    gw_buf_t path; /* "spec.containers[0].image" of the value being read */
    int depth;
} scan_t;

static bool scan_value(scan_t *s);

static void
skip_ws(scan_t *s)
{
    while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r'))
        s->p++;
}

static size_t
path_push(scan_t *s, const char *seg, size_t n, bool index)
{
    size_t saved = s->path.len;
    if (!index && s->path.len > 0)
        gw_buf_char(&s->path, '.');
    gw_buf_add(&s->path, seg, n);
    return saved;
}

static void
path_pop(scan_t *s, size_t saved)
{
    gw_buf_truncate(&s->path, saved);
}

static int
hex4(const unsigned char *p)
{
    int v = 0;
    for (int i = 0; i < 4; i++) {
        int c = p[i], d = c >= '0' && c <= '9'   ? c - '0'
                          : c >= 'a' && c <= 'f' ? c - 'a' + 10
                          : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                                 : -1;
        if (d < 0)
            return -1;
        v = v * 16 + d;
    }
    return v;
}

static size_t
put_utf8(char *o, unsigned cp)
{
    if (cp < 0x80) {
        o[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (char)(0xc0 | (cp >> 6));
        o[1] = (char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (char)(0xe0 | (cp >> 12));
        o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        o[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    o[0] = (char)(0xf0 | (cp >> 18));
    o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
    o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
    o[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

/* One \u escape (a surrogate pair counts as one); p is after the 'u'. -1 when malformed. */
static long
unicode_escape(scan_t *s)
{
    int hi = s->end - s->p >= 4 ? hex4(s->p) : -1;
    if (hi < 0 || (hi >= 0xdc00 && hi <= 0xdfff))
        return -1;
    s->p += 4;
    if (hi < 0xd800 || hi > 0xdbff)
        return hi;
    int lo = s->end - s->p >= 6 && s->p[0] == '\\' && s->p[1] == 'u' ? hex4(s->p + 2) : -1;
    if (lo < 0xdc00 || lo > 0xdfff)
        return -1;
    s->p += 6;
    return 0x10000 + ((long)(hi - 0xd800) << 10) + (lo - 0xdc00);
}

/* Length of the UTF-8 sequence at p (RFC 3629: no overlongs, surrogates or > U+10FFFF), or 0. */
static size_t
utf8_len(const unsigned char *p, const unsigned char *end)
{
    size_t n = p[0] < 0x80                    ? 1
               : p[0] >= 0xc2 && p[0] <= 0xdf ? 2
               : p[0] >= 0xe0 && p[0] <= 0xef ? 3
               : p[0] >= 0xf0 && p[0] <= 0xf4 ? 4
                                              : 0;
    if (n == 0 || (size_t)(end - p) < n)
        return 0;
    for (size_t i = 1; i < n; i++)
        if ((p[i] & 0xc0) != 0x80)
            return 0;
    if ((p[0] == 0xe0 && p[1] < 0xa0) || (p[0] == 0xed && p[1] > 0x9f) ||
        (p[0] == 0xf0 && p[1] < 0x90) || (p[0] == 0xf4 && p[1] > 0x8f))
        return 0;
    return n;
}

/* One escape sequence (s->p at the backslash): its code point, or -1. */
static long
escape(scan_t *s)
{
    static const char names[] = "\"\\/bfnrt", values[] = "\"\\/\b\f\n\r\t";
    if (s->end - s->p < 2)
        return -1;
    unsigned char c = s->p[1];
    s->p += 2;
    if (c == 'u')
        return unicode_escape(s);
    const char *e = c != '\0' ? strchr(names, c) : NULL;
    return e != NULL ? (unsigned char)values[e - names] : -1;
}

/* A string, unescaped into buf (when not NULL: room for the string's raw length) as *n
 * bytes. */
static bool
scan_string(scan_t *s, char *buf, size_t *n)
{
    size_t len = 0;
    s->p++; /* the opening quote */
    while (s->p < s->end && *s->p >= 0x20) {
        const unsigned char *run = s->p;
        s->p = (const unsigned char *)gw_json_plain_run((const char *)run, (const char *)s->end);
        if (s->p > run) {
            if (buf != NULL)
                memcpy(buf + len, run, (size_t)(s->p - run));
            len += (size_t)(s->p - run);
            continue;
        }
        if (*s->p == '"') {
            s->p++;
            if (n != NULL)
                *n = len;
            return true;
        }
        if (*s->p == '\\') {
            long cp = escape(s);
            if (cp < 0)
                return false;
            len += buf != NULL ? put_utf8(buf + len, (unsigned)cp) : 0;
            continue;
        }
        size_t k = utf8_len(s->p, s->end);
        if (k == 0)
            return false;
        if (buf != NULL)
            memcpy(buf + len, s->p, k);
        len += k;
        s->p += k;
    }
    return false;
}

/* A key: checked first, then unescaped into a buffer of its raw size (caller frees). */
static char *
scan_key(scan_t *s, size_t *n)
{
    const unsigned char *start = s->p;
    if (s->p >= s->end || *s->p != '"' || !scan_string(s, NULL, NULL))
        return NULL;
    scan_t again = *s;
    char *key = gw_malloc((size_t)(s->p - start) + 1);
    again.p = start;
    scan_string(&again, key, n);
    key[*n] = '\0';
    return key;
}

static bool
scan_digits(scan_t *s)
{
    const unsigned char *start = s->p;
    while (s->p < s->end && *s->p >= '0' && *s->p <= '9')
        s->p++;
    return s->p > start;
}

/* -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)? */
static bool
scan_number(scan_t *s)
{
    if (*s->p == '-')
        s->p++;
    if (s->p < s->end && *s->p == '0')
        s->p++;
    else if (!scan_digits(s))
        return false;
    if (s->p < s->end && *s->p == '.' && (s->p++, !scan_digits(s)))
        return false;
    if (s->p < s->end && (*s->p == 'e' || *s->p == 'E')) {
        s->p++;
        if (s->p < s->end && (*s->p == '-' || *s->p == '+'))
            s->p++;
        return scan_digits(s);
    }
    return true;
}

static bool
scan_word(scan_t *s, const char *w)
{
    size_t n = strlen(w);
    if ((size_t)(s->end - s->p) < n || memcmp(s->p, w, n) != 0)
        return false;
    s->p += n;
    return true;
}

/* After a member or element: true with *more set at ',', true at `close`, false otherwise. */
static bool
scan_next(scan_t *s, char close, bool *more)
{
    skip_ws(s);
    if (s->p >= s->end || (*s->p != ',' && *s->p != close))
        return false;
    *more = *s->p++ == ',';
    return true;
}

/* The keys of one object so far. Most objects have a few members: a short list searched in
 * order, with no allocation of its own; past SEEN_LIST keys a Jansson object indexes them. */
#define SEEN_LIST 16

typedef struct {
    char *list[SEEN_LIST];
    size_t lens[SEEN_LIST];
    size_t n;
    json_t *index; /* NULL until more than SEEN_LIST keys */
} seen_t;

/* Record key (taken); false when the object already had it. */
static bool
seen_add(seen_t *seen, char *key, size_t klen)
{
    bool fresh = true;

    if (seen->index == NULL) {
        for (size_t i = 0; i < seen->n && fresh; i++)
            fresh = seen->lens[i] != klen || memcmp(seen->list[i], key, klen) != 0;
        if (fresh && seen->n < SEEN_LIST) {
            seen->list[seen->n] = key;
            seen->lens[seen->n++] = klen;
            return true;
        }
        if (fresh) { /* the list is full: index every key from now on */
            seen->index = json_object();
            for (size_t i = 0; i < seen->n; i++) {
                json_object_setn_new_nocheck(seen->index, seen->list[i], seen->lens[i],
                                             json_null());
                free(seen->list[i]);
            }
            seen->n = 0;
        }
    }
    if (fresh && json_object_getn(seen->index, key, klen) != NULL)
        fresh = false;
    else if (fresh)
        json_object_setn_new_nocheck(seen->index, key, klen, json_null());
    free(key);
    return fresh;
}

static void
seen_clear(seen_t *seen)
{
    for (size_t i = 0; i < seen->n; i++)
        free(seen->list[i]);
    json_decref(seen->index);
}

/* One member; reports its key when the object already had it (kube-apiserver's decoder
 * reports the second occurrence, where it is met). */
static bool
scan_member(scan_t *s, seen_t *seen)
{
    size_t klen;
    skip_ws(s);
    char *key = scan_key(s, &klen);
    if (key == NULL)
        return false;
    skip_ws(s);
    if (s->p >= s->end || *s->p != ':') {
        free(key);
        return false;
    }
    s->p++;
    size_t saved = path_push(s, key, klen, false);
    if (!seen_add(seen, key, klen)) {
        char *msg = gw_sprintf("duplicate field \"%s\"", s->path.data);
        gw_field_issues_add(s->out, GW_FIELD_DUPLICATE, s->path.data, msg);
        free(msg);
    }
    bool ok = scan_value(s);
    path_pop(s, saved);
    return ok;
}

static bool
scan_object(scan_t *s)
{
    seen_t seen = {0}; /* the keys so far */
    bool ok, more = true;
    s->p++;
    skip_ws(s);
    if (s->p < s->end && *s->p == '}') {
        s->p++;
        more = false;
    }
    for (ok = true; ok && more;)
        ok = scan_member(s, &seen) && scan_next(s, '}', &more);
    seen_clear(&seen);
    return ok;
}

static bool
scan_array(scan_t *s)
{
    bool ok, more = true;
    char seg[32];
    s->p++;
    skip_ws(s);
    if (s->p < s->end && *s->p == ']') {
        s->p++;
        more = false;
    }
    for (size_t i = 0; more; i++) {
        size_t saved = path_push(s, seg, (size_t)snprintf(seg, sizeof(seg), "[%zu]", i), true);
        ok = scan_value(s);
        path_pop(s, saved);
        if (!ok || !scan_next(s, ']', &more))
            return false;
    }
    return true;
}

static bool
scan_value(scan_t *s)
{
    bool ok = false;
    skip_ws(s);
    if (s->p >= s->end)
        return false;
    if (++s->depth > JSON_MAX_DEPTH)
        return false;
    switch (*s->p) {
    case '{':
        ok = scan_object(s);
        break;
    case '[':
        ok = scan_array(s);
        break;
    case '"':
        ok = scan_string(s, NULL, NULL);
        break;
    case 't':
        ok = scan_word(s, "true");
        break;
    case 'f':
        ok = scan_word(s, "false");
        break;
    case 'n':
        ok = scan_word(s, "null");
        break;
    default:
        ok = (*s->p == '-' || (*s->p >= '0' && *s->p <= '9')) && scan_number(s);
    }
    s->depth--;
    return ok;
}

int
gw_json_find_duplicates(const char *json, size_t len, gw_field_issues_t *out)
{
    gw_field_issues_t found = {0};
    scan_t s = {(const unsigned char *)json, (const unsigned char *)json + len, &found, {0}, 0};
    bool ok = scan_value(&s);
    skip_ws(&s);
    ok = ok && s.p == s.end;
    for (size_t i = 0; ok && i < found.n; i++)
        gw_field_issues_add(out, GW_FIELD_DUPLICATE, found.items[i].path, found.items[i].message);
    gw_field_issues_clear(&found);
    gw_buf_free(&s.path);
    return ok ? 0 : GW_EINVAL;
}
