/*
 * Regular expressions on PCRE2 with RE2's syntax and meaning, as kube-apiserver has them (Go's
 * regexp). A pattern is first read the way Go's regexp/syntax reads it: what Go rejects
 * (backreferences, lookaround, atomic groups, possessive or stacked quantifiers, repetitions
 * of nothing, unbalanced parentheses, \C, unknown escapes and flags, counts over 1000) fails
 * here with Go's message (what only PCRE2 catches, in PCRE2's words), and the few constructs
 * PCRE2 reads differently are rewritten (\v is a vertical tab, \s leaves it out, "{" that
 * starts no valid count is a literal, \12 is octal). Every match runs under match and heap
 * limits so a pathological pattern cannot stall an evaluation.
 */
#include "cel.h"

#include <stdlib.h>
#include <string.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "cel_int.h"

#define MATCH_LIMIT 200000
#define HEAP_LIMIT_KIB 16384
#define MAX_REPEAT 1000

/* ---- Reading RE2 syntax ---- */

typedef struct re2 {
    const char *p;
    size_t len;
    size_t i;
    cel__buf_t out;  /* the pattern as PCRE2 should read it */
    long last_rep;   /* start of the repetition operator just before this token, or -1 */
    int depth;       /* groups open */
    bool operand;    /* something precedes that a repetition here would repeat */
    const char *err; /* Go's message, when the pattern is refused */
} re2_t;

static bool
re2_fail(re2_t *r, const char *what, size_t from, size_t to)
{
    r->err = cel__arena_sprintf(r->out.a, "error parsing regexp: %s: `%.*s`", what,
                                (int)(to - from), r->p + from);
    return false;
}

static bool
re2_octal(char c)
{
    return c >= '0' && c <= '7';
}

static int
re2_hex(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = (char)(c | 0x20);
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* \x{...} or \xHH at r->i: Go wants at least one hex digit in braces, a value at most
 * U+10FFFF, or exactly two digits. */
static bool
re2_hex_escape(re2_t *r)
{
    size_t at = r->i, j = at + 2;
    if (j < r->len && r->p[j] == '{') {
        uint32_t v = 0;
        size_t digits = 0;
        for (j++; j < r->len && re2_hex(r->p[j]) >= 0 && v <= 0x10FFFF; j++, digits++)
            v = v * 16 + (uint32_t)re2_hex(r->p[j]);
        if (j >= r->len || r->p[j] != '}' || digits == 0 || v > 0x10FFFF)
            return re2_fail(r, "invalid escape sequence", at, j < r->len ? j + 1 : j);
        j++;
    } else {
        if (j + 2 > r->len || re2_hex(r->p[j]) < 0 || re2_hex(r->p[j + 1]) < 0)
            return re2_fail(r, "invalid escape sequence", at, j + 2 > r->len ? r->len : j + 2);
        j += 2;
    }
    cel__buf_put(&r->out, r->p + at, j - at);
    r->i = j;
    return true;
}

/* \0, \0nn and \1nn-\7nn are octal in Go; a lone \1-\9 is a backreference, refused. */
static bool
re2_octal_escape(re2_t *r)
{
    size_t at = r->i, j = at + 1;
    if (r->p[j] != '0' && (j + 1 >= r->len || !re2_octal(r->p[j + 1])))
        return re2_fail(r, "invalid escape sequence", at, j + 1);
    unsigned v = (unsigned)(r->p[j++] - '0');
    for (int k = 1; k < 3 && j < r->len && re2_octal(r->p[j]); k++)
        v = v * 8 + (unsigned)(r->p[j++] - '0');
    cel__buf_printf(&r->out, "\\x{%x}", v);
    r->i = j;
    return true;
}

/* \p{Name} or \pN: copied for PCRE2 to check the name. */
static bool
re2_property(re2_t *r)
{
    size_t j = r->i + 2;
    if (j < r->len && r->p[j] == '{') {
        while (j < r->len && r->p[j] != '}')
            j++;
    }
    j = j < r->len ? j + 1 : j;
    cel__buf_put(&r->out, r->p + r->i, j - r->i);
    r->i = j;
    return true;
}

/* \Q...\E: literal text, copied as is (PCRE2 reads it the same way). */
static bool
re2_quoted(re2_t *r)
{
    const char *end = memmem(r->p + r->i + 2, r->len - r->i - 2, "\\E", 2);
    size_t j = end ? (size_t)(end - r->p) + 2 : r->len;
    cel__buf_put(&r->out, r->p + r->i, j - r->i);
    r->i = j;
    return true;
}

static bool
re2_escape(re2_t *r, bool in_class)
{
    size_t at = r->i;
    if (at + 1 >= r->len)
        return re2_fail(r, "trailing backslash at end of expression", at, at);
    char c = r->p[at + 1];
    if (!in_class && c == 'Q')
        return re2_quoted(r);
    if (c == 'x')
        return re2_hex_escape(r);
    if (c >= '0' && c <= '9')
        return re2_octal_escape(r);
    if (c == 'p' || c == 'P')
        return re2_property(r);
    /* Go's \s is [\t\n\f\r ] (no \v); its \v is the vertical tab itself. */
    if (c == 's' || c == 'S' || c == 'v') {
        cel__buf_puts(&r->out, c == 'v'   ? "\\x0b"
                               : in_class ? "\\t\\n\\f\\r "
                               : c == 's' ? "[\\t\\n\\f\\r ]"
                                          : "[^\\t\\n\\f\\r ]");
        r->i += 2;
        return true;
    }
    bool word = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (unsigned char)c >= 0x80;
    const char *known = in_class ? "afnrtdDwW" : "afnrtdDwWAbBz";
    if (word && strchr(known, c) == NULL) {
        uint32_t cp;
        size_t w = cel__utf8_decode(r->p + at + 1, r->len - at - 1, &cp);
        return re2_fail(r, "invalid escape sequence", at, at + 1 + (w ? w : 1));
    }
    cel__buf_put(&r->out, r->p + at, 2);
    r->i += 2;
    return true;
}

/* [...]: escapes as in Go; POSIX classes and ranges left for PCRE2 to check. */
static bool
re2_class(re2_t *r)
{
    size_t start = r->i++;
    cel__buf_putc(&r->out, '[');
    if (r->i < r->len && r->p[r->i] == '^')
        cel__buf_putc(&r->out, r->p[r->i++]);
    for (bool first = true; r->i < r->len; first = false) {
        char c = r->p[r->i];
        if (c == ']' && !first) {
            cel__buf_putc(&r->out, c);
            r->i++;
            return true;
        }
        if (c == '\\') {
            if (!re2_escape(r, true))
                return false;
        } else if (c == '[' && r->i + 1 < r->len && r->p[r->i + 1] == ':') {
            const char *end = memmem(r->p + r->i + 2, r->len - r->i - 2, ":]", 2);
            size_t j = end ? (size_t)(end - r->p) + 2 : r->i + 1;
            cel__buf_put(&r->out, r->p + r->i, j - r->i);
            r->i = j;
        } else {
            cel__buf_putc(&r->out, c);
            r->i++;
        }
    }
    return re2_fail(r, "missing closing ]", start, r->len);
}

/* Go's isValidCaptureName: word characters, at least one. */
static bool
re2_capture_name(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_'))
            return false;
    }
    return len > 0;
}

/* "(?P<name>" or "(?<name>" at r->i. */
static bool
re2_named(re2_t *r, size_t name_at)
{
    const char *gt = memchr(r->p + name_at, '>', r->len - name_at);
    if (gt == NULL)
        return re2_fail(r, "invalid named capture", r->i, r->len);
    size_t end = (size_t)(gt - r->p);
    if (!re2_capture_name(r->p + name_at, end - name_at))
        return re2_fail(r, "invalid named capture", r->i, end + 1);
    cel__buf_put(&r->out, r->p + r->i, end + 1 - r->i);
    r->i = end + 1;
    return true;
}

/* "(?" at r->i: a named group, or flags (i, m, s, U, one '-') ending in ':' (a group) or ')'
 * (flags for what follows: no operand of their own). */
static bool
re2_perl_group(re2_t *r, bool operand)
{
    const char *t = r->p + r->i;
    size_t rest = r->len - r->i;
    r->operand = false;
    r->depth++;
    if (rest > 4 && t[2] == 'P' && t[3] == '<')
        return re2_named(r, r->i + 4);
    if (rest > 3 && t[2] == '<')
        return re2_named(r, r->i + 3);
    bool neg = false, saw = false;
    for (size_t j = r->i + 2; j < r->len; j++) {
        char c = r->p[j];
        if (c != '\0' && strchr("imsU", c) != NULL) {
            saw = true;
        } else if (c == '-' && !neg) {
            neg = true, saw = false;
        } else if ((c == ':' || c == ')') && (!neg || saw)) {
            cel__buf_put(&r->out, r->p + r->i, j + 1 - r->i);
            r->i = j + 1;
            if (c == ')') {
                r->depth--;
                r->operand = operand;
            }
            return true;
        } else {
            uint32_t cp;
            size_t w = cel__utf8_decode(r->p + j, r->len - j, &cp);
            return re2_fail(r, "invalid or unsupported Perl syntax", r->i, j + (w ? w : 1));
        }
    }
    return re2_fail(r, "missing closing )", r->i, r->len);
}

/* Digits at r->p[*j] as Go's parseInt reads them: at least one, no leading zero; large values
 * stop growing once they are certainly too large. */
static bool
re2_int(const re2_t *r, size_t *j, long *v)
{
    size_t d = *j;
    *v = 0;
    for (; *j < r->len && r->p[*j] >= '0' && r->p[*j] <= '9'; (*j)++) {
        if (*v <= 100000000)
            *v = *v * 10 + (r->p[*j] - '0');
    }
    return *j > d && !(*j - d > 1 && r->p[d] == '0');
}

/* A count {n}, {n,} or {n,m} at r->i as Go parses it; the length of its text, or 0 when Go
 * reads the "{" as a literal. */
static size_t
re2_count(const re2_t *r, long *min, long *max)
{
    size_t j = r->i + 1;
    if (!re2_int(r, &j, min) || j >= r->len)
        return 0;
    *max = *min;
    if (r->p[j] == ',') {
        j++;
        if (j < r->len && r->p[j] == '}')
            *max = -1;
        else if (!re2_int(r, &j, max))
            return 0;
    }
    if (j >= r->len || r->p[j] != '}')
        return 0;
    return j + 1 - r->i;
}

/* *, +, ?, {n,m} (each optionally lazy): Go refuses one right after another, and one with
 * nothing before it (at the start, after "(" or "|"). */
static bool
re2_repeat(re2_t *r, size_t oplen, bool count, long min, long max, bool operand)
{
    size_t at = r->i, end = at + oplen;
    if (end < r->len && r->p[end] == '?')
        end++;
    if (count && (min > MAX_REPEAT || max > MAX_REPEAT || (max >= 0 && min > max)))
        return re2_fail(r, "invalid repeat count", at, at + oplen);
    if (r->last_rep >= 0)
        return re2_fail(r, "invalid nested repetition operator", (size_t)r->last_rep, end);
    if (!operand)
        return re2_fail(r, "missing argument to repetition operator", at, end);
    cel__buf_put(&r->out, r->p + at, end - at);
    r->i = end;
    r->last_rep = (long)at;
    return true;
}

/* "(" and "|": what follows starts a new operand. ")" closes a group (Go names the whole
 * pattern when there is none open). */
static bool
re2_paren(re2_t *r, char c)
{
    if (c == ')' && r->depth == 0)
        return re2_fail(r, "unexpected )", 0, r->len);
    r->depth += c == '(' ? 1 : c == ')' ? -1 : 0;
    r->operand = c == ')';
    cel__buf_putc(&r->out, c);
    r->i++;
    return true;
}

static bool
re2_token(re2_t *r)
{
    long min, max;
    size_t n;
    char c = r->p[r->i];
    bool operand = r->operand;
    r->operand = true; /* what most tokens are */
    switch (c) {
    case '\\':
        return re2_escape(r, false);
    case '[':
        return re2_class(r);
    case '(':
        if (r->i + 1 < r->len && r->p[r->i + 1] == '?')
            return re2_perl_group(r, operand);
        return re2_paren(r, c);
    case ')':
    case '|':
        return re2_paren(r, c);
    case '*':
    case '+':
    case '?':
        return re2_repeat(r, 1, false, 0, 0, operand);
    case '{':
        n = re2_count(r, &min, &max);
        if (n > 0)
            return re2_repeat(r, n, true, min, max, operand);
        cel__buf_puts(&r->out, "\\{");
        r->i++;
        return true;
    default:
        break;
    }
    cel__buf_putc(&r->out, c);
    r->i++;
    return true;
}

/* The PCRE2 form of RE2 pattern `pat`, or NULL with Go's message in `*why`. */
static const char *
re2_translate(cel_arena_t *a, const char *pat, size_t len, size_t *outlen, const char **why)
{
    re2_t r = {.p = pat, .len = len, .last_rep = -1};
    cel__buf_init(&r.out, a, len + 16);
    while (r.i < r.len) {
        size_t at = r.i;
        if (!re2_token(&r)) {
            *why = r.err;
            return NULL;
        }
        /* A repetition right after a repetition is refused: remember only the last token's. */
        if (r.last_rep != (long)at)
            r.last_rep = -1;
    }
    if (r.depth > 0) {
        re2_fail(&r, "missing closing )", 0, r.len);
        *why = r.err;
        return NULL;
    }
    *outlen = r.out.len;
    return r.out.data;
}

/* ---- Compiling and matching ---- */

void *
cel__regex_compile(cel_arena_t *a, const char *pat, size_t len, const char **why)
{
    int code;
    PCRE2_SIZE off, plen = 0;
    const char *detail = NULL;
    const char *p = re2_translate(a, pat, len, &plen, &detail);
    if (p == NULL) {
        *why = detail;
        return NULL;
    }
    uint32_t opts =
        PCRE2_UTF | PCRE2_DOLLAR_ENDONLY | PCRE2_ALT_CIRCUMFLEX | PCRE2_NEVER_BACKSLASH_C;
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)p, plen, opts, &code, &off, NULL);
    if (re == NULL) {
        PCRE2_UCHAR msg[128];
        pcre2_get_error_message(code, msg, sizeof(msg));
        *why = cel__arena_sprintf(a, "error parsing regexp: %s at offset %zu: `%.*s`",
                                  (const char *)msg, (size_t)off, (int)len, pat);
    }
    return re;
}

void
cel__regex_free(void *re)
{
    pcre2_code_free(re);
}

int
cel__regex_find(cel__eval_t *ev, void *re, const char *s, size_t len, size_t start, size_t *mstart,
                size_t *mend, const char **why)
{
    pcre2_match_data *md = pcre2_match_data_create(1, NULL);
    pcre2_match_context *mc = pcre2_match_context_create(NULL);
    if (md == NULL || mc == NULL)
        abort();
    pcre2_set_match_limit(mc, MATCH_LIMIT);
    pcre2_set_heap_limit(mc, HEAP_LIMIT_KIB);
    int rc = pcre2_match(re, (PCRE2_SPTR)s, len, start, PCRE2_NO_UTF_CHECK, md, mc);
    if (rc >= 0) {
        PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
        *mstart = ov[0], *mend = ov[1];
    }
    pcre2_match_context_free(mc);
    pcre2_match_data_free(md);
    if (rc >= 0)
        return 1;
    if (rc == PCRE2_ERROR_NOMATCH)
        return 0;
    PCRE2_UCHAR msg[128];
    pcre2_get_error_message(rc, msg, sizeof(msg));
    *why = cel__arena_sprintf(ev->arena, "regular expression match failed: %s", (const char *)msg);
    return -1;
}

int
cel__regex_search(cel__eval_t *ev, void *re, const char *s, size_t len, const char **why)
{
    size_t ms, me;
    return cel__regex_find(ev, re, s, len, 0, &ms, &me, why);
}

cel_value_t
cel__fn_matches(cel__eval_t *ev, const cel__node_t *call, const cel_value_t *a, int n)
{
    if (a[0].kind != CEL_STRING || a[1].kind != CEL_STRING)
        return cel__no_overload(ev, "matches", a, n);
    /* Backtracking cost grows with both lengths. */
    uint64_t work = (uint64_t)(a[0].v.str.len + 1) * (a[1].v.str.len + 1);
    if (!cel__work_size(ev, work))
        return cel__halt_error(ev);
    const char *why;
    void *re = call->u.call.regex;
    if (re == NULL) {
        re = cel__regex_compile(ev->arena, a[1].v.str.data, a[1].v.str.len, &why);
        if (re == NULL)
            return cel__err(ev, "%s", why);
    }
    int rc = cel__regex_search(ev, re, a[0].v.str.data, a[0].v.str.len, &why);
    if (re != call->u.call.regex)
        cel__regex_free(re);
    return rc < 0 ? cel__err(ev, "%s", why) : cel_bool(rc == 1);
}
