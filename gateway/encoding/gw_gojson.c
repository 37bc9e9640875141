/*
 * encoding/json's scanner as a state machine over bytes: each state takes one byte and
 * either moves on or names the byte it cannot take and the context it was in. The stack of
 * open arrays and objects is bounded by Go's own depth limit, so the scan never recurses and
 * never allocates. gw_gojson_load copies the text only when Go would decode part of it as
 * U+FFFD where Jansson refuses it.
 */
#include "gw_gojson.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_json.h"

typedef enum {
    ST_BEGIN_VALUE_OR_EMPTY, /* after '[' */
    ST_BEGIN_VALUE,
    ST_BEGIN_STRING_OR_EMPTY, /* after '{' */
    ST_BEGIN_STRING,          /* after '{"key": value,' */
    ST_END_VALUE,
    ST_END_TOP,
    ST_IN_STRING,
    ST_IN_STRING_ESC,
    ST_IN_STRING_ESC_U, /* hex digits left in hex_left */
    ST_NEG,
    ST_1, /* in a number's integer part, after a nonzero digit */
    ST_0,
    ST_DOT,
    ST_DOT0,
    ST_E,
    ST_E_SIGN,
    ST_E0,
    ST_LITERAL, /* true, false or null: literal[lit_at] comes next */
    ST_ERROR,
} state_t;

/* What an open composite value expects next (Go's parseState values). */
enum { PS_OBJECT_KEY, PS_OBJECT_VALUE, PS_ARRAY_VALUE };

typedef struct {
    state_t state;
    bool end_top;
    int hex_left;
    const char *literal;
    size_t lit_at;
    size_t depth;
    unsigned char bad;   /* the byte refused */
    const char *context; /* why, when not a literal */
    uint8_t stack[GW_GOJSON_MAX_DEPTH];
} scan_t;

static bool
is_space(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static bool
is_hex(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static bool
scan_fail(scan_t *s, unsigned char c, const char *context)
{
    s->state = ST_ERROR;
    s->bad = c;
    s->context = context;
    return false;
}

static bool
push(scan_t *s, unsigned char c, uint8_t ps)
{
    if (s->depth == GW_GOJSON_MAX_DEPTH)
        return scan_fail(s, c, "exceeded max depth");
    s->stack[s->depth++] = ps;
    return true;
}

static void
pop(scan_t *s)
{
    s->depth--;
    s->end_top = s->depth == 0;
    s->state = s->depth == 0 ? ST_END_TOP : ST_END_VALUE;
}

static bool
begin_literal(scan_t *s, const char *literal)
{
    s->state = ST_LITERAL;
    s->literal = literal;
    s->lit_at = 1;
    return true;
}

/* Go's stateBeginValue (spaces already skipped). */
static bool
begin_value(scan_t *s, unsigned char c)
{
    switch (c) {
    case '{':
        s->state = ST_BEGIN_STRING_OR_EMPTY;
        return push(s, c, PS_OBJECT_KEY);
    case '[':
        s->state = ST_BEGIN_VALUE_OR_EMPTY;
        return push(s, c, PS_ARRAY_VALUE);
    case '"':
        s->state = ST_IN_STRING;
        return true;
    case '-':
        s->state = ST_NEG;
        return true;
    case '0':
        s->state = ST_0;
        return true;
    case 't':
        return begin_literal(s, "true");
    case 'f':
        return begin_literal(s, "false");
    case 'n':
        return begin_literal(s, "null");
    default:
        if (c >= '1' && c <= '9') {
            s->state = ST_1;
            return true;
        }
        return scan_fail(s, c, "looking for beginning of value");
    }
}

static bool
end_top(scan_t *s, unsigned char c)
{
    return is_space(c) || scan_fail(s, c, "after top-level value");
}

/* Go's stateEndValue: a value just ended before c. */
static bool
end_value(scan_t *s, unsigned char c)
{
    if (s->depth == 0) {
        s->state = ST_END_TOP;
        s->end_top = true;
        return end_top(s, c);
    }
    if (is_space(c)) {
        s->state = ST_END_VALUE;
        return true;
    }
    uint8_t *ps = &s->stack[s->depth - 1];
    if (*ps == PS_OBJECT_KEY) {
        if (c != ':')
            return scan_fail(s, c, "after object key");
        *ps = PS_OBJECT_VALUE;
        s->state = ST_BEGIN_VALUE;
    } else if (c == ',') {
        s->state = *ps == PS_OBJECT_VALUE ? ST_BEGIN_STRING : ST_BEGIN_VALUE;
        *ps = *ps == PS_OBJECT_VALUE ? PS_OBJECT_KEY : PS_ARRAY_VALUE;
    } else if (c == (*ps == PS_OBJECT_VALUE ? '}' : ']')) {
        pop(s);
    } else {
        return scan_fail(
            s, c, *ps == PS_OBJECT_VALUE ? "after object key:value pair" : "after array element");
    }
    return true;
}

static bool
in_string(scan_t *s, unsigned char c)
{
    if (c == '"')
        s->state = ST_END_VALUE;
    else if (c == '\\')
        s->state = ST_IN_STRING_ESC;
    else if (c < 0x20)
        return scan_fail(s, c, "in string literal");
    return true;
}

static bool
in_string_esc(scan_t *s, unsigned char c)
{
    if (c == 'u') {
        s->state = ST_IN_STRING_ESC_U;
        s->hex_left = 4;
        return true;
    }
    if (strchr("bfnrt\\/\"", c) == NULL || c == '\0')
        return scan_fail(s, c, "in string escape code");
    s->state = ST_IN_STRING;
    return true;
}

static bool
in_literal(scan_t *s, unsigned char c)
{
    if (c != (unsigned char)s->literal[s->lit_at])
        return scan_fail(s, c, NULL); /* the message names the literal and the letter expected */
    if (s->literal[++s->lit_at] == '\0')
        s->state = ST_END_VALUE;
    return true;
}

/* One byte through the state machine; false once the text cannot be JSON. States that in
 * Go hand the byte on to another state function do so here by changing state and looping. */
static bool
step(scan_t *s, unsigned char c)
{
    for (;;) {
        switch (s->state) {
        case ST_BEGIN_VALUE_OR_EMPTY:
            if (is_space(c))
                return true;
            s->state = c == ']' ? ST_END_VALUE : ST_BEGIN_VALUE;
            continue;
        case ST_BEGIN_VALUE:
            return is_space(c) || begin_value(s, c);
        case ST_BEGIN_STRING_OR_EMPTY:
            if (is_space(c))
                return true;
            if (c == '}')
                s->stack[s->depth - 1] = PS_OBJECT_VALUE;
            s->state = c == '}' ? ST_END_VALUE : ST_BEGIN_STRING;
            continue;
        case ST_BEGIN_STRING:
            if (is_space(c))
                return true;
            if (c != '"')
                return scan_fail(s, c, "looking for beginning of object key string");
            s->state = ST_IN_STRING;
            return true;
        case ST_END_VALUE:
            return end_value(s, c);
        case ST_END_TOP:
            return end_top(s, c);
        case ST_IN_STRING:
            return in_string(s, c);
        case ST_IN_STRING_ESC:
            return in_string_esc(s, c);
        case ST_IN_STRING_ESC_U:
            if (!is_hex(c))
                return scan_fail(s, c, "in \\u hexadecimal character escape");
            if (--s->hex_left == 0)
                s->state = ST_IN_STRING;
            return true;
        case ST_NEG:
            if (c < '0' || c > '9')
                return scan_fail(s, c, "in numeric literal");
            s->state = c == '0' ? ST_0 : ST_1;
            return true;
        case ST_1:
            if (c >= '0' && c <= '9')
                return true;
            s->state = ST_0;
            continue;
        case ST_0:
            if (c != '.' && c != 'e' && c != 'E') {
                s->state = ST_END_VALUE;
                continue;
            }
            s->state = c == '.' ? ST_DOT : ST_E;
            return true;
        case ST_DOT0:
            if (c >= '0' && c <= '9')
                return true;
            if (c != 'e' && c != 'E') {
                s->state = ST_END_VALUE;
                continue;
            }
            s->state = ST_E;
            return true;
        case ST_DOT:
            if (c < '0' || c > '9')
                return scan_fail(s, c, "after decimal point in numeric literal");
            s->state = ST_DOT0;
            return true;
        case ST_E:
            s->state = ST_E_SIGN;
            if (c == '+' || c == '-')
                return true;
            continue;
        case ST_E_SIGN:
            if (c < '0' || c > '9')
                return scan_fail(s, c, "in exponent of numeric literal");
            s->state = ST_E0;
            return true;
        case ST_E0:
            if (c >= '0' && c <= '9')
                return true;
            s->state = ST_END_VALUE;
            continue;
        case ST_LITERAL:
            return in_literal(s, c);
        case ST_ERROR:
            return false;
        }
    }
}

/* Go's quoteChar: the byte as a rune in single quotes, strconv.Quote's escapes inside (a
 * byte above 0x7f is the Latin-1 rune of that number, written as UTF-8 when printable). */
static void
quote_char(unsigned char c, char out[16])
{
    static const char controls[] = "abtnvfr"; /* \a through \r are 7..13 */

    if (c == '\'')
        strcpy(out, "'\\''");
    else if (c == '"')
        strcpy(out, "'\"'");
    else if (c == '\\')
        strcpy(out, "'\\\\'");
    else if (c >= 7 && c <= 13)
        sprintf(out, "'\\%c'", controls[c - 7]);
    else if (c < 0x20 || c == 0x7f)
        sprintf(out, "'\\x%02x'", c);
    else if (c < 0x80)
        sprintf(out, "'%c'", c);
    else if (c <= 0xa0 || c == 0xad) /* C1 controls, no-break space, soft hyphen */
        sprintf(out, "'\\u%04x'", c);
    else
        sprintf(out, "'%c%c'", 0xc0 | (c >> 6), 0x80 | (c & 0x3f));
}

static void
describe(const scan_t *s, char *msg, size_t msg_len)
{
    char q[16];

    quote_char(s->bad, q);
    if (s->context != NULL)
        snprintf(msg, msg_len, "invalid character %s %s", q, s->context);
    else
        snprintf(msg, msg_len, "invalid character %s in literal %s (expecting '%c')", q, s->literal,
                 s->literal[s->lit_at]);
}

bool
gw_gojson_syntax_error(const char *text, size_t len, char *msg, size_t msg_len)
{
    scan_t s; /* about 10 KiB: the stack is bounded by Go's depth limit */
    bool ok = true;

    s.state = ST_BEGIN_VALUE;
    s.end_top = false;
    s.depth = 0;
    s.context = NULL;
    for (size_t i = 0; i < len && ok; i++)
        ok = step(&s, (unsigned char)text[i]);
    /* Go's scanner.eof: a space ends a number, or shows a literal or escape cut short */
    if (ok && !s.end_top)
        ok = step(&s, ' ');
    if (!ok)
        describe(&s, msg, msg_len);
    else if (!s.end_top)
        snprintf(msg, msg_len, "unexpected end of JSON input");
    return !ok || !s.end_top;
}

/* ---- what Go decodes and Jansson refuses ---------------------------------------------------- */

static unsigned
hex4(const unsigned char *p)
{
    unsigned v = 0;

    for (int i = 0; i < 4; i++)
        v = v << 4 | (unsigned)(p[i] <= '9' ? p[i] - '0' : (p[i] | 0x20) - 'a' + 10);
    return v;
}

/* A \u escape at p (6 bytes) of half a surrogate pair that is not followed by its other
 * half: Go decodes it as U+FFFD (the text is valid, so 4 hex digits follow each \u). */
static bool
lone_surrogate(const unsigned char *p, size_t n)
{
    unsigned u = hex4(p + 2);

    if (u < 0xd800 || u > 0xdfff)
        return false;
    if (u >= 0xdc00 || n < 12 || p[6] != '\\' || p[7] != 'u')
        return true;
    u = hex4(p + 8);
    return u < 0xdc00 || u > 0xdfff;
}

/* Copies the character or escape at p to w as Go decodes it; returns the bytes written and
 * sets *n to the bytes read. */
static size_t
copy_one(const unsigned char *p, size_t left, char *w, size_t *n)
{
    if (p[0] == '\\' && p[1] == 'u' && lone_surrogate(p, left)) {
        *n = 6;
        memcpy(w, "\\ufffd", 6);
        return 6;
    }
    if (p[0] == '\\')
        *n = p[1] != 'u' ? 2 : hex4(p + 2) - 0xd800u < 0x400u ? 12 : 6; /* a pair, both halves */
    else
        *n = gw_utf8_len(p, left);
    if (*n == 0) {
        *n = 1;
        memcpy(w, "\xef\xbf\xbd", 3);
        return 3;
    }
    memcpy(w, p, *n);
    return *n;
}

/* The text with what Go decodes as U+FFFD written as U+FFFD: each byte of invalid UTF-8
 * and each unpaired surrogate escape. NULL when there is none. The text is valid JSON to
 * Go, so backslashes and bytes above 0x7f occur inside strings only. Caller frees. */
static char *
go_replacements(const char *text, size_t len, size_t *out_len)
{
    const unsigned char *p = (const unsigned char *)text;
    char *out = gw_malloc(len * 3 + 1);
    size_t w = 0;

    for (size_t i = 0, n; i < len; i += n)
        w += copy_one(p + i, len - i, out + w, &n);
    if (w == len && memcmp(out, text, len) == 0) {
        free(out);
        return NULL;
    }
    *out_len = w;
    return out;
}

json_t *
gw_gojson_load(const char *text, size_t len, size_t flags, char *err, size_t err_len)
{
    json_error_t jerr;
    json_t *doc = gw_json_loadb(text, len, flags, &jerr);
    char *fixed;
    size_t n;

    /* Jansson takes a NUL byte for the end of the text; to Go it is a character out of place
     * wherever it stands */
    if (doc != NULL && memchr(text, '\0', len) == NULL)
        return doc;
    json_decref(doc);
    if (gw_gojson_syntax_error(text, len, err, err_len))
        return NULL;
    fixed = go_replacements(text, len, &n);
    if (fixed != NULL) {
        doc = gw_json_loadb(fixed, n, flags, &jerr);
        free(fixed);
        if (doc != NULL)
            return doc;
    }
    /* valid to Go, refused by Jansson for what it cannot hold (see the header): its words */
    snprintf(err, err_len, "%s (line %d, column %d)", jerr.text, jerr.line, jerr.column);
    return NULL;
}

/* ---- json.Unmarshal into a map[string]interface{} ---------------------------------------- */

/* The first number of a valid document that float64 cannot hold (strconv.ParseFloat's
 * ErrRange: the decoder stores every number of an interface{} as a float64), as Go reports it;
 * NULL when there is none. */
static char *
number_out_of_range(const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (p[i] == '"') {
            for (i++; i < n && p[i] != '"'; i++)
                i += p[i] == '\\';
        } else if (p[i] == '-' || (p[i] >= '0' && p[i] <= '9')) {
            size_t len = 0;
            char *num, *msg = NULL;
            while (i + len < n && p[i + len] != '\0' && strchr("-+.eE0123456789", p[i + len]))
                len++;
            num = gw_strndup((const char *)p + i, len);
            if (isinf(strtod(num, NULL)))
                msg = gw_sprintf("json: cannot unmarshal number %s into Go value of type float64",
                                 num);
            free(num);
            if (msg != NULL)
                return msg;
            i += len - 1;
        }
    }
    return NULL;
}

char *
gw_gojson_unmarshal_map(const unsigned char *p, size_t n)
{
    char err[160];
    const char *kind;
    size_t i = 0;

    if (gw_gojson_syntax_error((const char *)p, n, err, sizeof(err)))
        return gw_strdup(err);
    while (i < n && is_space(p[i]))
        i++;
    switch (p[i]) {
    case '{':
        return number_out_of_range(p, n);
    case 'n':
        return NULL;
    case '[':
        kind = "array";
        break;
    case '"':
        kind = "string";
        break;
    case 't':
    case 'f':
        kind = "bool";
        break;
    default:
        kind = "number";
        break;
    }
    return gw_sprintf("json: cannot unmarshal %s into Go value of type map[string]interface {}",
                      kind);
}

const char *
gw_gojson_kind(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT:
        return "object";
    case JSON_ARRAY:
        return "array";
    case JSON_STRING:
        return "string";
    case JSON_TRUE:
    case JSON_FALSE:
        return "bool";
    default:
        return "number";
    }
}
