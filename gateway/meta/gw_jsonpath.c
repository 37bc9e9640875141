/* JSONPath templates, parsed as client-go's util/jsonpath parser reads them: text with
 * {actions}, each action a list of nodes, with kube's error messages. The scanner keeps kube's
 * positions (start: the beginning of the pending token, pos: the next byte) so that the tokens
 * and messages come out as kube's do. */
#include "gw_jsonpath.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_buf.h"
#include "gw_err.h"
#include "gw_jsonpath_int.h"

#define EOF_RUNE (-1)

typedef struct {
    const char *in;
    size_t len, pos, start, width;
    gw_jp__node_t *root;
    char *err;
    size_t err_len;
} parser_t;

/* ---- nodes ------------------------------------------------------------------------------ */

static gw_jp__node_t *
node_new(gw_jp__kind_t kind)
{
    gw_jp__node_t *n = gw_calloc(1, sizeof(*n));
    n->kind = kind;
    return n;
}

static void
node_append(gw_jp__node_t *list, gw_jp__node_t *n)
{
    if (list->n_nodes == list->cap_nodes) {
        list->cap_nodes = list->cap_nodes ? list->cap_nodes * 2 : 4;
        list->nodes = gw_realloc(list->nodes, list->cap_nodes * sizeof(*list->nodes));
    }
    list->nodes[list->n_nodes++] = n;
}

void
gw_jp__node_free(gw_jp__node_t *n)
{
    if (n == NULL)
        return;
    for (size_t i = 0; i < n->n_nodes; i++)
        gw_jp__node_free(n->nodes[i]);
    free(n->nodes);
    free(n->name);
    json_decref(n->literal);
    free(n);
}

/* A TEXT node; the text may hold any bytes an escape made (kube's strings are bytes). */
static gw_jp__node_t *
text_node(const char *s, size_t n)
{
    gw_jp__node_t *t = node_new(GW_JP_TEXT);
    t->literal = json_stringn(s, n);
    if (t->literal == NULL)
        t->literal = json_stringn_nocheck(s, n);
    return t;
}

/* ---- the scanner ------------------------------------------------------------------------ */

static int fail(parser_t *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int
fail(parser_t *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->err, p->err_len, fmt, ap);
    va_end(ap);
    return GW_EINVAL;
}

/* The rune at i and its width (an invalid byte is U+FFFD of width 1, as Go decodes it). */
static long
decode(const char *s, size_t len, size_t i, size_t *width)
{
    const unsigned char *u = (const unsigned char *)s + i;
    size_t avail = len - i, n = u[0] < 0x80 ? 1 : u[0] >= 0xF0 ? 4 : u[0] >= 0xE0 ? 3 : 2;
    long r = u[0] < 0x80 ? u[0] : u[0] >= 0xF0 ? u[0] & 7 : u[0] >= 0xE0 ? u[0] & 15 : u[0] & 31;
    if (u[0] >= 0x80 && (u[0] < 0xC2 || u[0] > 0xF4 || avail < n))
        n = 0;
    for (size_t k = 1; k < n; k++) {
        if ((u[k] & 0xC0) != 0x80) {
            n = 0;
            break;
        }
        r = (r << 6) | (u[k] & 0x3F);
    }
    if (n == 0) {
        *width = 1;
        return 0xFFFD;
    }
    *width = n;
    return r;
}

static long
next_rune(parser_t *p)
{
    if (p->pos >= p->len) {
        p->width = 0;
        return EOF_RUNE;
    }
    long r = decode(p->in, p->len, p->pos, &p->width);
    p->pos += p->width;
    return r;
}

static void
backup(parser_t *p)
{
    p->pos -= p->width;
}

static long
peek_rune(parser_t *p)
{
    long r = next_rune(p);
    backup(p);
    return r;
}

static bool
has_prefix(const parser_t *p, const char *s)
{
    size_t n = strlen(s);
    return p->len - p->pos >= n && memcmp(p->in + p->pos, s, n) == 0;
}

/* The token since the last call: in[start, pos). */
static const char *
consume(parser_t *p, size_t *n)
{
    const char *s = p->in + p->start;
    *n = p->pos - p->start;
    p->start = p->pos;
    return s;
}

static void
skip_token(parser_t *p)
{
    size_t n;
    (void)consume(p, &n);
}

static bool
is_digit(long r)
{
    return r >= '0' && r <= '9';
}

/* unicode.IsLetter or IsDigit: ASCII exactly; beyond it, every rune but the punctuation and
   symbol blocks of Latin-1 and General Punctuation (and U+FFFD). */
static bool
is_alnum(long r)
{
    if (r < 0x80)
        return r == '_' || is_digit(r) || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z');
    return !(r < 0xC0 || r == 0xD7 || r == 0xF7 || (r >= 0x2000 && r <= 0x206F) || r == 0xFFFD);
}

static bool
is_terminator(long r)
{
    return r == EOF_RUNE || r == ' ' || r == '\t' || r == '\r' || r == '\n' || r == '.' ||
           r == ',' || r == '[' || r == ']' || r == '$' || r == '@' || r == '{' || r == '}';
}

/* Go's %#U: "U+002A '*'", the character only when it is printable. */
static void
rune_name(long r, char *buf, size_t n)
{
    char ch[5] = {0};
    if (r < 0x80) {
        ch[0] = (char)r;
    } else if (r < 0x800) {
        ch[0] = (char)(0xC0 | (r >> 6)), ch[1] = (char)(0x80 | (r & 0x3F));
    } else if (r < 0x10000) {
        ch[0] = (char)(0xE0 | (r >> 12)), ch[1] = (char)(0x80 | ((r >> 6) & 0x3F));
        ch[2] = (char)(0x80 | (r & 0x3F));
    } else {
        ch[0] = (char)(0xF0 | (r >> 18)), ch[1] = (char)(0x80 | ((r >> 12) & 0x3F));
        ch[2] = (char)(0x80 | ((r >> 6) & 0x3F)), ch[3] = (char)(0x80 | (r & 0x3F));
    }
    bool printable = (r >= 0x20 && r < 0x7F) || r >= 0xA1;
    if (printable)
        snprintf(buf, n, "U+%04lX '%s'", r, ch);
    else
        snprintf(buf, n, "U+%04lX", r);
}

/* ---- strconv ---------------------------------------------------------------------------- */

/* strconv.Atoi: an optional sign and decimal digits that fit 64 bits. */
static bool
go_atoi(const char *s, size_t n, long long *out)
{
    char buf[32];
    size_t i = n > 0 && (s[0] == '+' || s[0] == '-');
    if (n == i || n >= sizeof(buf))
        return false;
    for (size_t k = i; k < n; k++) {
        if (!is_digit((unsigned char)s[k]))
            return false;
    }
    memcpy(buf, s, n);
    buf[n] = '\0';
    errno = 0;
    *out = strtoll(buf, NULL, 10);
    return errno == 0;
}

/* strconv.ParseFloat of what parseNumber scans (a sign, digits and dots). */
static bool
go_parse_float(const char *s, size_t n, double *out)
{
    char buf[64], *end;
    size_t i = n > 0 && (s[0] == '+' || s[0] == '-'), digits = 0, dots = 0;
    if (n >= sizeof(buf))
        return false;
    for (size_t k = i; k < n; k++) {
        digits += is_digit((unsigned char)s[k]);
        dots += s[k] == '.';
    }
    if (digits == 0 || dots > 1)
        return false;
    memcpy(buf, s, n);
    buf[n] = '\0';
    *out = strtod(buf, &end);
    return *end == '\0';
}

static void
put_rune(gw_buf_t *b, long r)
{
    char ch[4];
    size_t n;
    if (r < 0x80) {
        ch[0] = (char)r, n = 1;
    } else if (r < 0x800) {
        ch[0] = (char)(0xC0 | (r >> 6)), ch[1] = (char)(0x80 | (r & 0x3F)), n = 2;
    } else if (r < 0x10000) {
        ch[0] = (char)(0xE0 | (r >> 12)), ch[1] = (char)(0x80 | ((r >> 6) & 0x3F));
        ch[2] = (char)(0x80 | (r & 0x3F)), n = 3;
    } else {
        ch[0] = (char)(0xF0 | (r >> 18)), ch[1] = (char)(0x80 | ((r >> 12) & 0x3F));
        ch[2] = (char)(0x80 | ((r >> 6) & 0x3F)), ch[3] = (char)(0x80 | (r & 0x3F)), n = 4;
    }
    gw_buf_add(b, ch, n);
}

static int
hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* \x, \u, \U and \ooo of strconv.UnquoteChar; c is the letter or first digit, s[*i..n) what
   follows it. */
static bool
unquote_code(const char *s, size_t n, size_t *i, char c, gw_buf_t *b)
{
    long v = 0;
    if (c >= '0' && c <= '7') {
        v = c - '0';
        for (int k = 0; k < 2; k++, (*i)++) {
            if (*i >= n || s[*i] < '0' || s[*i] > '7')
                return false;
            v = v * 8 + (s[*i] - '0');
        }
        if (v > 255)
            return false;
        gw_buf_char(b, (char)v);
        return true;
    }
    size_t size = c == 'x' ? 2 : c == 'u' ? 4 : 8;
    if (n - *i < size)
        return false;
    for (size_t k = 0; k < size; k++, (*i)++) {
        int h = hex_value(s[*i]);
        if (h < 0)
            return false;
        v = v * 16 + h;
    }
    if (c == 'x') {
        gw_buf_char(b, (char)v); /* a byte, not a rune */
        return true;
    }
    if (v > 0x10FFFF || (v >= 0xD800 && v < 0xE000))
        return false;
    put_rune(b, v);
    return true;
}

/* strconv.UnquoteChar: one character of s[*i..n) inside `quote`, its bytes appended to b. */
static bool
unquote_char(const char *s, size_t n, size_t *i, char quote, gw_buf_t *b)
{
    static const char simple[] = "a\ab\bf\fn\nr\rt\tv\v\\\\";
    unsigned char c = (unsigned char)s[*i];
    if (c == (unsigned char)quote)
        return false;
    if (c >= 0x80) {
        size_t w;
        put_rune(b, decode(s, n, *i, &w));
        *i += w;
        return true;
    }
    if (c != '\\') {
        gw_buf_char(b, (char)c);
        (*i)++;
        return true;
    }
    if (n - *i <= 1)
        return false;
    c = (unsigned char)s[*i + 1];
    *i += 2;
    for (size_t k = 0; simple[k] != '\0'; k += 2) {
        if (simple[k] == (char)c) {
            gw_buf_char(b, simple[k + 1]);
            return true;
        }
    }
    if (c == '\'' || c == '"') {
        gw_buf_char(b, (char)c);
        return c == (unsigned char)quote;
    }
    if (c == 'x' || c == 'u' || c == 'U' || (c >= '0' && c <= '7'))
        return unquote_code(s, n, i, (char)c, b);
    return false;
}

/* jsonpath.UnquoteExtend: strconv.Unquote that takes single quotes too. */
static bool
unquote_extend(const char *s, size_t n, gw_buf_t *out)
{
    if (n < 2 || s[0] != s[n - 1] || (s[0] != '"' && s[0] != '\''))
        return false;
    char quote = s[0];
    s++, n -= 2;
    if (memchr(s, '\\', n) == NULL && memchr(s, quote, n) == NULL) {
        gw_buf_add(out, s, n);
        return true;
    }
    for (size_t i = 0; i < n;) {
        if (!unquote_char(s, n, &i, quote, out))
            return false;
    }
    return true;
}

/* ---- the parser --------------------------------------------------------------------------- */

static int parse_text(parser_t *p);
static int parse_action(parser_t *p, gw_jp__node_t *cur);

static void
parser_init(parser_t *p, const char *text, size_t len, char *err, size_t err_len)
{
    *p = (parser_t){.in = text, .len = len, .err = err, .err_len = err_len};
    p->root = node_new(GW_JP_LIST);
}

/* parseAction: the first action of "{" text "}" parsed on its own, kube's sub-parsers for
   unions, bracketed keys and the sides of a filter. */
static int
parse_sub(parser_t *p, const char *text, size_t n, gw_jp__node_t **out)
{
    parser_t sub;
    char *wrapped = gw_malloc(n + 3);
    wrapped[0] = '{';
    memcpy(wrapped + 1, text, n);
    memcpy(wrapped + 1 + n, "}", 2);
    parser_init(&sub, wrapped, n + 2, p->err, p->err_len);
    int rc = parse_text(&sub);
    if (rc == 0) {
        *out = sub.root->nodes[0]; /* the text starts with "{": its first part is the action */
        sub.root->nodes[0] = node_new(GW_JP_LIST);
    }
    gw_jp__node_free(sub.root);
    free(wrapped);
    return rc;
}

static int
parse_text(parser_t *p)
{
    size_t n;
    const char *s;
    for (;;) {
        if (has_prefix(p, "{")) {
            if (p->pos > p->start) {
                s = consume(p, &n);
                node_append(p->root, text_node(s, n));
            }
            p->pos++;
            skip_token(p);
            gw_jp__node_t *list = node_new(GW_JP_LIST);
            node_append(p->root, list);
            int rc = parse_action(p, list);
            if (rc != 0)
                return rc;
            continue;
        }
        if (next_rune(p) == EOF_RUNE)
            break;
    }
    if (p->pos > p->start) {
        s = consume(p, &n);
        node_append(p->root, text_node(s, n));
    }
    return 0;
}

/* parseField: the name after a '.' up to a terminator, backslash escapes kept out; "*" is the
   wildcard. */
static void
parse_field(parser_t *p, gw_jp__node_t *cur)
{
    size_t n;
    skip_token(p);
    for (;;) {
        long r = next_rune(p);
        if (r == '\\') {
            next_rune(p);
        } else if (is_terminator(r)) {
            backup(p);
            break;
        }
    }
    const char *s = consume(p, &n);
    if (n == 1 && s[0] == '*') {
        node_append(cur, node_new(GW_JP_WILDCARD));
        return;
    }
    gw_jp__node_t *f = node_new(GW_JP_FIELD);
    f->name = gw_malloc(n + 1);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] != '\\')
            f->name[k++] = s[i];
    }
    f->name[k] = '\0';
    node_append(cur, f);
}

/* parseIdentifier: a bare word; true and false are booleans. */
static void
parse_identifier(parser_t *p, gw_jp__node_t *cur)
{
    size_t n;
    while (!is_terminator(next_rune(p)))
        ;
    backup(p);
    const char *s = consume(p, &n);
    gw_jp__node_t *id;
    if ((n == 4 && memcmp(s, "true", 4) == 0) || (n == 5 && memcmp(s, "false", 5) == 0)) {
        id = node_new(GW_JP_BOOL);
        id->literal = json_boolean(n == 4);
    } else {
        id = node_new(GW_JP_IDENTIFIER);
        id->name = gw_strndup(s, n);
    }
    node_append(cur, id);
}

/* parseNumber: a sign, then digits and dots; an int when strconv.Atoi takes it, else a
   float. */
static int
parse_number(parser_t *p, gw_jp__node_t *cur)
{
    size_t n;
    long r = peek_rune(p);
    long long i;
    double d;
    if (r == '+' || r == '-')
        next_rune(p);
    for (;;) {
        r = next_rune(p);
        if (r != '.' && !is_digit(r)) {
            backup(p);
            break;
        }
    }
    const char *s = consume(p, &n);
    gw_jp__node_t *num;
    if (go_atoi(s, n, &i)) {
        num = node_new(GW_JP_INT);
        num->literal = json_integer(i);
    } else if (go_parse_float(s, n, &d)) {
        num = node_new(GW_JP_FLOAT);
        num->literal = json_real(d);
    } else {
        return fail(p, "cannot parse number %.*s", (int)n, s);
    }
    node_append(cur, num);
    return 0;
}

/* parseQuote: a quoted string up to its unescaped closing quote. */
static int
parse_quote(parser_t *p, gw_jp__node_t *cur, long end)
{
    size_t n;
    for (;;) {
        long r = next_rune(p);
        if (r == EOF_RUNE || r == '\n')
            return fail(p, "unterminated quoted string");
        if (r == end && p->in[p->pos - 2] != '\\')
            break;
    }
    const char *s = consume(p, &n);
    gw_buf_t b = {0};
    if (!unquote_extend(s, n, &b)) {
        gw_buf_free(&b);
        return fail(p, "unquote string %.*s error invalid syntax", (int)n, s);
    }
    node_append(cur, text_node(b.data != NULL ? b.data : "", b.len));
    gw_buf_free(&b);
    return 0;
}

static int
parse_recursive(parser_t *p, gw_jp__node_t *cur)
{
    if (cur->n_nodes > 0 && cur->nodes[cur->n_nodes - 1]->kind == GW_JP_RECURSIVE)
        return fail(p, "invalid multiple recursive descent");
    p->pos += 2;
    skip_token(p);
    node_append(cur, node_new(GW_JP_RECURSIVE));
    if (is_alnum(peek_rune(p)))
        parse_field(p, cur);
    return 0;
}

/* The members of [a, b, ...], each parsed as "[member]" with its spaces trimmed. */
static int
parse_union(parser_t *p, gw_jp__node_t *cur, const char *s, size_t n)
{
    gw_jp__node_t *u = node_new(GW_JP_UNION);
    node_append(cur, u);
    for (size_t i = 0; i <= n;) {
        const char *comma = memchr(s + i, ',', n - i);
        size_t a = i, b = comma != NULL ? (size_t)(comma - s) : n;
        i = b + 1;
        while (a < b && s[a] == ' ')
            a++;
        while (b > a && s[b - 1] == ' ')
            b--;
        char *member = gw_sprintf("[%.*s]", (int)(b - a), s + a);
        gw_jp__node_t *list = NULL;
        int rc = parse_sub(p, member, strlen(member), &list);
        free(member);
        if (rc != 0)
            return rc;
        node_append(u, list);
    }
    return 0;
}

/* One bound of the slice regexp's groups: text after its ':' (group > 0), absent when
   `present` is false. */
static int
slice_param(parser_t *p, gw_jp__param_t *params, int i, const char *s, size_t n, bool present)
{
    params[i] = (gw_jp__param_t){0};
    if (!present) {
        if (i == 1)
            params[1] = (gw_jp__param_t){params[0].value + 1, true, true};
        return 0;
    }
    if (i > 0 && n == 0)
        return 0;
    params[i].known = true;
    if (!go_atoi(s, n, &params[i].value))
        return fail(p, "array index %.*s is not a number", (int)n, s);
    return 0;
}

/* The slice regexp ^(-?\d*)(:-?\d*)?(:-?\d*)?$ and its three bounds. */
static int
parse_slice(parser_t *p, gw_jp__node_t *cur, const char *s, size_t n)
{
    size_t at = 0, from[3], len[3];
    bool present[3];
    for (int g = 0; g < 3; g++) {
        if (g > 0) {
            present[g] = at < n && s[at] == ':';
            from[g] = at + present[g], len[g] = 0;
            if (!present[g])
                continue;
            at++;
        }
        from[g] = at;
        at += at < n && s[at] == '-';
        while (at < n && is_digit((unsigned char)s[at]))
            at++;
        len[g] = at - from[g];
        if (g == 0)
            present[0] = len[0] > 0;
    }
    if (at != n)
        return fail(p, "invalid array index %.*s", (int)n, s);
    gw_jp__node_t *a = node_new(GW_JP_ARRAY);
    node_append(cur, a);
    for (int g = 0; g < 3; g++) {
        int rc = slice_param(p, a->params, g, s + from[g], len[g], present[g]);
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* parseArray: [*], unions, 'quoted keys' and slices. */
static int
parse_array(parser_t *p, gw_jp__node_t *cur)
{
    size_t n;
    for (;;) {
        long r = next_rune(p);
        if (r == EOF_RUNE || r == '\n')
            return fail(p, "unterminated array");
        if (r == ']')
            break;
    }
    const char *s = consume(p, &n) + 1;
    n -= 2;
    if (n == 1 && s[0] == '*')
        s = ":";
    if (memchr(s, ',', n) != NULL)
        return parse_union(p, cur, s, n);
    if (n >= 2 && s[0] == '\'' && s[n - 1] == '\'' && memchr(s + 1, '\'', n - 2) == NULL) {
        char *field = gw_sprintf(".%.*s", (int)(n - 2), s + 1);
        gw_jp__node_t *list = NULL;
        int rc = parse_sub(p, field, strlen(field), &list);
        free(field);
        if (rc != 0)
            return rc;
        for (size_t i = 0; i < list->n_nodes; i++)
            node_append(cur, list->nodes[i]);
        list->n_nodes = 0;
        gw_jp__node_free(list);
        return 0;
    }
    return parse_slice(p, cur, s, n);
}

static bool
is_op_char(char c)
{
    return c == '!' || c == '<' || c == '>' || c == '=';
}

/* The filter's regexp ^([^!<>=]+)([!<>=]+)(.+?)$: the operator's offset and length, or false
   for an existence test. */
static bool
split_filter(const char *s, size_t n, size_t *op, size_t *op_len)
{
    size_t i = 0, j;
    while (i < n && !is_op_char(s[i]))
        i++;
    if (i == 0 || i == n)
        return false;
    for (j = i; j < n && is_op_char(s[j]); j++)
        ;
    if (j == n) /* the right side takes back one operator character, if any can go */
        j--;
    if (j == i)
        return false;
    *op = i;
    *op_len = j - i;
    return true;
}

/* parseFilter: [?(left op right)] or [?(path)]; parentheses inside one quoted string do not
   end it. */
static int
parse_filter(parser_t *p, gw_jp__node_t *cur)
{
    bool begin = false, end = false;
    long pair = 0;
    size_t n, op = 0, op_len = 0;
    p->pos += 3;
    skip_token(p);
    for (;;) {
        long r = next_rune(p);
        if (r == EOF_RUNE || r == '\n')
            return fail(p, "unterminated filter");
        if ((r == '"' || r == '\'') && !begin) {
            begin = true, pair = r;
        } else if (r == '"' || r == '\'') {
            end = end || (p->in[p->pos - 2] != '\\' && r == pair);
        } else if (r == ')' && begin == end) {
            break;
        }
    }
    if (next_rune(p) != ']')
        return fail(p, "unclosed array expect ]");
    const char *s = consume(p, &n);
    n -= 2;
    gw_jp__node_t *f = node_new(GW_JP_FILTER), *left = NULL, *right = NULL;
    node_append(cur, f);
    bool cmp = split_filter(s, n, &op, &op_len);
    int rc = parse_sub(p, s, cmp ? op : n, &left);
    if (rc != 0)
        return rc;
    node_append(f, left);
    if (cmp && (rc = parse_sub(p, s + op + op_len, n - op - op_len, &right)) != 0)
        return rc;
    node_append(f, right != NULL ? right : node_new(GW_JP_LIST));
    f->name = cmp ? gw_strndup(s + op, op_len) : gw_strdup("exists");
    return 0;
}

/* One token of an action after the checks for "}", "[?(" and "..". */
static int
parse_token(parser_t *p, gw_jp__node_t *cur)
{
    char name[32];
    long r = next_rune(p);
    if (r == EOF_RUNE || r == '\r' || r == '\n')
        return fail(p, "unclosed action");
    if (r == ' ' || r == '@' || r == '$') {
        skip_token(p);
        return 0;
    }
    if (r == '[')
        return parse_array(p, cur);
    if (r == '"' || r == '\'')
        return parse_quote(p, cur, r);
    if (r == '.') {
        parse_field(p, cur);
        return 0;
    }
    if (r == '+' || r == '-' || is_digit(r)) {
        backup(p);
        return parse_number(p, cur);
    }
    if (is_alnum(r)) {
        backup(p);
        parse_identifier(p, cur);
        return 0;
    }
    rune_name(r, name, sizeof(name));
    return fail(p, "unrecognized character in action: %s", name);
}

/* parseInsideAction, as a loop: the nodes of one action up to its "}". */
static int
parse_action(parser_t *p, gw_jp__node_t *cur)
{
    for (;;) {
        int rc;
        if (has_prefix(p, "}")) {
            p->pos++;
            skip_token(p);
            return 0;
        }
        if (has_prefix(p, "[?("))
            rc = parse_filter(p, cur);
        else if (has_prefix(p, ".."))
            rc = parse_recursive(p, cur);
        else
            rc = parse_token(p, cur);
        if (rc != 0)
            return rc;
    }
}

/* ---- the contract ----------------------------------------------------------------------- */

gw_jsonpath_t *
gw_jsonpath_parse(const char *text, char *err, size_t err_len)
{
    parser_t p;
    char scratch[8];
    if (err == NULL || err_len == 0)
        err = scratch, err_len = sizeof(scratch);
    err[0] = '\0';
    parser_init(&p, text, strlen(text), err, err_len);
    if (parse_text(&p) != 0) {
        gw_jp__node_free(p.root);
        return NULL;
    }
    gw_jsonpath_t *jp = gw_malloc(sizeof(*jp));
    jp->root = p.root;
    return jp;
}

void
gw_jsonpath_free(gw_jsonpath_t *p)
{
    if (p == NULL)
        return;
    gw_jp__node_free(p->root);
    free(p);
}

size_t
gw_jsonpath_parts(const gw_jsonpath_t *p)
{
    return p->root->n_nodes;
}
