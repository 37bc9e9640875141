/*
 * Go's encoding/json over bytes: Unmarshal first runs the whole input through its scanner
 * (checkValid), so a syntax error wins over anything the decoder would say; then the decoder
 * reports the first value it cannot store. The scanner below keeps Go's states and their
 * fall-throughs (a number ends in the state after a value, "01" is a value followed by '1'),
 * since the messages name the state the offending byte was read in.
 */
#include "gw_gojson.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"

/* encoding/json's maxNestingDepth */
#define MAX_DEPTH 10000

typedef enum {
    S_BEGIN_VALUE,
    S_BEGIN_VALUE_OR_EMPTY,
    S_BEGIN_STRING,
    S_BEGIN_STRING_OR_EMPTY,
    S_END_VALUE,
    S_END_TOP,
    S_IN_STRING,
    S_IN_STRING_ESC,
    S_ESC_U, /* after \u, then after each of its first three hex digits */
    S_ESC_U1,
    S_ESC_U12,
    S_ESC_U123,
    S_NEG,
    S_1,
    S_0,
    S_DOT,
    S_DOT0,
    S_E,
    S_ESIGN,
    S_E0,
    S_LITERAL, /* inside true, false or null: lit and lit_pos say where */
    S_ERROR,
} state_t;

enum { P_OBJECT_KEY, P_OBJECT_VALUE, P_ARRAY_VALUE };

typedef struct {
    state_t step;
    bool end_top;
    char *stack; /* parse states, outermost first */
    size_t depth;
    const char *lit; /* the literal being read ("true", ...) */
    size_t lit_pos;  /* its next expected byte */
    char *err;       /* the message, once set */
    size_t err_len;
} scanner_t;

/* Go's quoteChar: the byte as a rune in single quotes, escaped as strconv.Quote does. */
static void
quote_char(unsigned char c, char out[12])
{
    static const char ctl[] = "\a\b\t\n\v\f\r";
    static const char ctl_names[] = "abtnvfr";

    if (c == '\'') {
        strcpy(out, "'\\''");
    } else if (c == '"') {
        strcpy(out, "'\"'");
    } else if (c == '\\') {
        strcpy(out, "'\\\\'");
    } else if (c >= 0x20 && c < 0x7f) {
        snprintf(out, 12, "'%c'", c);
    } else if (c != 0 && strchr(ctl, c) != NULL) {
        snprintf(out, 12, "'\\%c'", ctl_names[strchr(ctl, c) - ctl]);
    } else if (c < 0x20 || c == 0x7f) {
        snprintf(out, 12, "'\\x%02x'", c);
    } else if (c >= 0xa1 && c != 0xad) {
        /* a printable Latin-1 rune: its UTF-8 */
        snprintf(out, 12, "'%c%c'", 0xc0 | (c >> 6), 0x80 | (c & 0x3f));
    } else {
        snprintf(out, 12, "'\\u%04x'", c);
    }
}

static void
fail(scanner_t *s, unsigned char c, const char *context)
{
    char q[12];

    quote_char(c, q);
    s->step = S_ERROR;
    snprintf(s->err, s->err_len, "invalid character %s %s", q, context);
}

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

static void
push(scanner_t *s, unsigned char c, char p)
{
    s->stack[s->depth++] = p;
    if (s->depth > MAX_DEPTH)
        fail(s, c, "exceeded max depth");
}

static void
pop(scanner_t *s)
{
    s->depth--;
    s->step = s->depth == 0 ? S_END_TOP : S_END_VALUE;
    s->end_top = s->depth == 0;
}

static void
end_top(scanner_t *s, unsigned char c)
{
    if (!is_space(c))
        fail(s, c, "after top-level value");
}

static void
end_value(scanner_t *s, unsigned char c)
{
    char *ps;

    if (s->depth == 0) {
        s->step = S_END_TOP;
        s->end_top = true;
        end_top(s, c);
        return;
    }
    s->step = S_END_VALUE;
    if (is_space(c))
        return;
    ps = &s->stack[s->depth - 1];
    if (*ps == P_OBJECT_KEY) {
        if (c != ':') {
            fail(s, c, "after object key");
            return;
        }
        *ps = P_OBJECT_VALUE;
        s->step = S_BEGIN_VALUE;
    } else if (*ps == P_OBJECT_VALUE) {
        if (c == ',') {
            *ps = P_OBJECT_KEY;
            s->step = S_BEGIN_STRING;
        } else if (c == '}') {
            pop(s);
        } else {
            fail(s, c, "after object key:value pair");
        }
    } else if (c == ',') {
        s->step = S_BEGIN_VALUE;
    } else if (c == ']') {
        pop(s);
    } else {
        fail(s, c, "after array element");
    }
}

static void
begin_literal(scanner_t *s, const char *lit)
{
    s->step = S_LITERAL;
    s->lit = lit;
    s->lit_pos = 1;
}

static void
begin_value(scanner_t *s, unsigned char c)
{
    if (is_space(c))
        return;
    if (c == '{') {
        s->step = S_BEGIN_STRING_OR_EMPTY;
        push(s, c, P_OBJECT_KEY);
    } else if (c == '[') {
        s->step = S_BEGIN_VALUE_OR_EMPTY;
        push(s, c, P_ARRAY_VALUE);
    } else if (c == '"') {
        s->step = S_IN_STRING;
    } else if (c == '-') {
        s->step = S_NEG;
    } else if (c == '0') {
        s->step = S_0;
    } else if (c >= '1' && c <= '9') {
        s->step = S_1;
    } else if (c == 't') {
        begin_literal(s, "true");
    } else if (c == 'f') {
        begin_literal(s, "false");
    } else if (c == 'n') {
        begin_literal(s, "null");
    } else {
        fail(s, c, "looking for beginning of value");
    }
}

static void
begin_string(scanner_t *s, unsigned char c)
{
    if (is_space(c))
        return;
    if (c == '"')
        s->step = S_IN_STRING;
    else
        fail(s, c, "looking for beginning of object key string");
}

static void
in_string(scanner_t *s, unsigned char c)
{
    if (s->step == S_IN_STRING) {
        if (c == '"')
            s->step = S_END_VALUE;
        else if (c == '\\')
            s->step = S_IN_STRING_ESC;
        else if (c < 0x20)
            fail(s, c, "in string literal");
    } else if (s->step == S_IN_STRING_ESC) {
        if (c == 'u')
            s->step = S_ESC_U;
        else if (c != 0 && strchr("bfnrt\\/\"", c) != NULL)
            s->step = S_IN_STRING;
        else
            fail(s, c, "in string escape code");
    } else if (!is_hex(c)) {
        fail(s, c, "in \\u hexadecimal character escape");
    } else {
        s->step = s->step == S_ESC_U123 ? S_IN_STRING : s->step + 1;
    }
}

/* Go's state0: after a number's integer part (state1 goes on as this past its digits). */
static void
after_int(scanner_t *s, unsigned char c)
{
    if (c == '.')
        s->step = S_DOT;
    else if (c == 'e' || c == 'E')
        s->step = S_E;
    else
        end_value(s, c);
}

/* Go's stateESign (stateE goes on as this past a sign). */
static void
exponent_digit(scanner_t *s, unsigned char c)
{
    if (c >= '0' && c <= '9')
        s->step = S_E0;
    else
        fail(s, c, "in exponent of numeric literal");
}

/* The number states: Go's stateNeg, state1, state0, stateDot, stateDot0, stateE, stateESign,
 * stateE0. */
static void
number(scanner_t *s, unsigned char c)
{
    bool digit = c >= '0' && c <= '9';

    switch (s->step) {
    case S_NEG:
        if (c == '0')
            s->step = S_0;
        else if (digit)
            s->step = S_1;
        else
            fail(s, c, "in numeric literal");
        return;
    case S_1:
        if (!digit)
            after_int(s, c);
        return;
    case S_0:
        after_int(s, c);
        return;
    case S_DOT:
        if (digit)
            s->step = S_DOT0;
        else
            fail(s, c, "after decimal point in numeric literal");
        return;
    case S_DOT0:
        if (c == 'e' || c == 'E')
            s->step = S_E;
        else if (!digit)
            end_value(s, c);
        return;
    case S_E:
        if (c == '+' || c == '-')
            s->step = S_ESIGN;
        else
            exponent_digit(s, c);
        return;
    case S_ESIGN:
        exponent_digit(s, c);
        return;
    default: /* S_E0 */
        if (!digit)
            end_value(s, c);
        return;
    }
}

static void
literal(scanner_t *s, unsigned char c)
{
    char context[48];

    if (c == (unsigned char)s->lit[s->lit_pos]) {
        if (s->lit[++s->lit_pos] == '\0')
            s->step = S_END_VALUE;
        return;
    }
    snprintf(context, sizeof(context), "in literal %s (expecting '%c')", s->lit,
             s->lit[s->lit_pos]);
    fail(s, c, context);
}

static void
step(scanner_t *s, unsigned char c)
{
    switch (s->step) {
    case S_BEGIN_VALUE_OR_EMPTY:
    case S_BEGIN_VALUE:
        if (s->step == S_BEGIN_VALUE_OR_EMPTY && c == ']')
            end_value(s, c);
        else
            begin_value(s, c);
        break;
    case S_BEGIN_STRING_OR_EMPTY:
    case S_BEGIN_STRING:
        if (s->step == S_BEGIN_STRING_OR_EMPTY && c == '}') {
            s->stack[s->depth - 1] = P_OBJECT_VALUE;
            end_value(s, c);
        } else {
            begin_string(s, c);
        }
        break;
    case S_END_VALUE:
        end_value(s, c);
        break;
    case S_END_TOP:
        end_top(s, c);
        break;
    case S_IN_STRING:
    case S_IN_STRING_ESC:
    case S_ESC_U:
    case S_ESC_U1:
    case S_ESC_U12:
    case S_ESC_U123:
        in_string(s, c);
        break;
    case S_LITERAL:
        literal(s, c);
        break;
    case S_ERROR:
        break;
    default:
        number(s, c);
        break;
    }
}

/* checkValid: true when p[0..n) is one JSON value; else the message is in s->err. */
static bool
check_valid(scanner_t *s, const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n && s->step != S_ERROR; i++)
        step(s, p[i]);
    if (s->step == S_ERROR)
        return false;
    if (s->end_top)
        return true;
    step(s, ' ');
    if (s->end_top && s->step != S_ERROR)
        return true;
    if (s->step != S_ERROR)
        snprintf(s->err, s->err_len, "unexpected end of JSON input");
    return false;
}

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
    char err[128];
    scanner_t s = {.step = S_BEGIN_VALUE, .err = err, .err_len = sizeof(err)};
    const char *kind;
    size_t i = 0;
    bool ok;

    s.stack = gw_malloc((n < MAX_DEPTH ? n : MAX_DEPTH) + 1);
    ok = check_valid(&s, p, n);
    free(s.stack);
    if (!ok)
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
