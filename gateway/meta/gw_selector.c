/*
 * Label and field selectors. The label selector grammar, its tokens and its error messages are
 * those of k8s.io/apimachinery/pkg/labels (a lexer into tokens, then a recursive descent with
 * one token of lookahead, in which "in" and "notin" read as plain values where values go).
 */
#include "gw_selector.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_err.h"
#include "gw_names.h"

/* ---- requirements ----------------------------------------------------------------------- */

static int
cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int
cmp_req(const void *a, const void *b)
{
    return strcmp(((const gw_sel_req_t *)a)->key, ((const gw_sel_req_t *)b)->key);
}

static void
sort_reqs(gw_selector_t *sel)
{
    if (sel->n > 1)
        qsort(sel->reqs, sel->n, sizeof(*sel->reqs), cmp_req);
}

static void
req_clear(gw_sel_req_t *q)
{
    for (size_t i = 0; i < q->n_values; i++)
        free(q->values[i]);
    free(q->values);
    free(q->key);
}

void
gw_selector_clear(gw_selector_t *sel)
{
    for (size_t i = 0; i < sel->n; i++)
        req_clear(&sel->reqs[i]);
    free(sel->reqs);
    sel->reqs = NULL;
    sel->n = 0;
}

static gw_sel_req_t *
sel_add(gw_selector_t *sel, const char *key, size_t klen, gw_sel_op_t op)
{
    gw_sel_req_t *q;

    sel->reqs = gw_realloc(sel->reqs, (sel->n + 1) * sizeof(*sel->reqs));
    q = &sel->reqs[sel->n++];
    *q = (gw_sel_req_t){.key = gw_strndup(key, klen), .op = op};
    return q;
}

/* Add a value, keeping the set sorted and free of duplicates (kube's sets.String). */
static void
req_add_value(gw_sel_req_t *q, const char *v, size_t len)
{
    char *s = gw_strndup(v, len);

    for (size_t i = 0; i < q->n_values; i++) {
        if (strcmp(q->values[i], s) == 0) {
            free(s);
            return;
        }
    }
    q->values = gw_realloc(q->values, (q->n_values + 1) * sizeof(*q->values));
    q->values[q->n_values++] = s;
    qsort(q->values, q->n_values, sizeof(*q->values), cmp_str);
}

static int fail(char *err, size_t err_len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int
fail(char *err, size_t err_len, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(err, err_len, fmt, ap);
    va_end(ap);
    return GW_EINVAL;
}

/* ---- label selector lexer --------------------------------------------------------------- */

typedef enum {
    T_END,
    T_CLOSE,
    T_COMMA,
    T_NOT,
    T_DEQ,
    T_EQ,
    T_GT,
    T_IN,
    T_LT,
    T_NEQ,
    T_NOTIN,
    T_OPEN,
    T_ID,
} tok_t;

typedef struct {
    tok_t tok;
    const char *s; /* the literal, into the input */
    size_t len;
} item_t;

static const struct {
    const char *text;
    tok_t tok;
} symbols[] = {
    {")", T_CLOSE}, {",", T_COMMA}, {"!", T_NOT},  {"==", T_DEQ},      {"=", T_EQ},   {">", T_GT},
    {"in", T_IN},   {"<", T_LT},    {"!=", T_NEQ}, {"notin", T_NOTIN}, {"(", T_OPEN},
};

static bool
is_ws(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static bool
is_special(char c)
{
    return c != '\0' && strchr("=!(),><", c) != NULL;
}

static tok_t
lookup(const char *s, size_t len, bool *found)
{
    for (size_t i = 0; i < sizeof(symbols) / sizeof(symbols[0]); i++) {
        if (strlen(symbols[i].text) == len && memcmp(symbols[i].text, s, len) == 0) {
            *found = true;
            return symbols[i].tok;
        }
    }
    *found = false;
    return T_ID;
}

/* One token at *pp: the longest run of special characters that is a token, or a word. */
static item_t
lex(const char **pp)
{
    const char *p = *pp;
    item_t it = {.tok = T_END, .s = p, .len = 0};
    bool found;

    while (is_ws(*p))
        p++;
    it.s = p;
    if (*p == '\0') {
        *pp = p;
        return it;
    }
    if (is_special(*p)) {
        size_t n = 0;
        for (size_t k = 1; is_special(p[k - 1]); k++) {
            tok_t t = lookup(p, k, &found);
            if (found) {
                it.tok = t;
                n = k;
            } else if (n > 0) {
                break;
            }
        }
        it.len = n;
        *pp = p + n;
        return it;
    }
    while (*p != '\0' && !is_special(*p) && !is_ws(*p))
        p++;
    it.len = (size_t)(p - it.s);
    it.tok = lookup(it.s, it.len, &found);
    *pp = p;
    return it;
}

/* ---- label selector parser -------------------------------------------------------------- */

typedef struct {
    item_t *items;
    size_t n, pos;
    char *err;
    size_t err_len;
} parser_t;

/* In a values context "in" and "notin" are just words. */
static item_t
peek(const parser_t *p, bool values)
{
    item_t it = p->items[p->pos];

    if (values && (it.tok == T_IN || it.tok == T_NOTIN))
        it.tok = T_ID;
    return it;
}

static item_t
next(parser_t *p, bool values)
{
    item_t it = peek(p, values);

    if (p->pos + 1 < p->n)
        p->pos++;
    return it;
}

static int
perr(parser_t *p, const item_t *it, const char *expected)
{
    return fail(p->err, p->err_len, "found '%.*s', expected: %s", (int)it->len, it->s, expected);
}

static int
parse_key(parser_t *p, gw_selector_t *sel, gw_sel_req_t **out)
{
    gw_sel_op_t op = GW_SEL_EQUALS;
    item_t it = next(p, true), la;
    const char *msg;
    char *key;

    if (it.tok == T_NOT) {
        op = GW_SEL_NOT_EXISTS;
        it = next(p, true);
    }
    if (it.tok != T_ID)
        return perr(p, &it, "identifier");
    key = gw_strndup(it.s, it.len);
    msg = gw_valid_qualified_name(key);
    if (msg != NULL) {
        fail(p->err, p->err_len, "Invalid value: \"%s\": %s", key, msg);
        free(key);
        return GW_EINVAL;
    }
    free(key);
    la = peek(p, true);
    if ((la.tok == T_END || la.tok == T_COMMA) && op != GW_SEL_NOT_EXISTS)
        op = GW_SEL_EXISTS;
    *out = sel_add(sel, it.s, it.len, op);
    return 0;
}

static int
parse_operator(parser_t *p, gw_sel_req_t *q)
{
    static const struct {
        tok_t tok;
        gw_sel_op_t op;
    } ops[] = {{T_IN, GW_SEL_IN},         {T_EQ, GW_SEL_EQUALS}, {T_DEQ, GW_SEL_EQUALS},
               {T_GT, GW_SEL_GT},         {T_LT, GW_SEL_LT},     {T_NOTIN, GW_SEL_NOT_IN},
               {T_NEQ, GW_SEL_NOT_EQUALS}};
    item_t it = next(p, false);

    for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
        if (ops[i].tok == it.tok) {
            q->op = ops[i].op;
            return 0;
        }
    }
    return perr(p, &it, "in, notin, =, ==, !=, gt, lt");
}

/* "(a,b)": empty members are the empty value, as kube reads "(,a)" and "()". */
static int
parse_set(parser_t *p, gw_sel_req_t *q)
{
    item_t it = next(p, true), first;

    if (it.tok != T_OPEN)
        return fail(p->err, p->err_len, "found '%.*s' expected: '('", (int)it.len, it.s);
    first = peek(p, true);
    if (first.tok == T_CLOSE) {
        next(p, true);
        req_add_value(q, "", 0);
        return 0;
    }
    if (first.tok != T_ID && first.tok != T_COMMA)
        return perr(p, &first, "',', ')' or identifier");
    for (;;) {
        it = next(p, true);
        if (it.tok == T_ID) {
            req_add_value(q, it.s, it.len);
            item_t la = peek(p, true);
            if (la.tok == T_CLOSE)
                break;
            if (la.tok != T_COMMA)
                return perr(p, &la, "',' or ')'");
        } else if (it.tok == T_COMMA) {
            tok_t la = peek(p, true).tok;
            if (q->n_values == 0 || la == T_CLOSE || la == T_COMMA)
                req_add_value(q, "", 0);
            if (la == T_CLOSE)
                break;
        } else {
            return perr(p, &it, "',', or identifier");
        }
    }
    if (next(p, true).tok != T_CLOSE)
        return perr(p, &first, "')'");
    return 0;
}

static int
parse_exact(parser_t *p, gw_sel_req_t *q)
{
    item_t it = peek(p, true);

    if (it.tok == T_END || it.tok == T_COMMA) {
        req_add_value(q, "", 0);
        return 0;
    }
    it = next(p, true);
    if (it.tok != T_ID)
        return perr(p, &it, "identifier");
    req_add_value(q, it.s, it.len);
    return 0;
}

static bool
parse_int(const char *s, long long *v)
{
    char *end;

    errno = 0;
    *v = strtoll(s, &end, 10);
    return errno == 0 && end != s && *end == '\0';
}

/* kube's NewRequirement checks on the values. */
static int
check_values(parser_t *p, const gw_sel_req_t *q)
{
    long long v;

    for (size_t i = 0; i < q->n_values; i++) {
        const char *msg = gw_valid_label_value(q->values[i]);
        if (msg != NULL)
            return fail(p->err, p->err_len, "values[%zu][%s]: Invalid value: \"%s\": %s", i, q->key,
                        q->values[i], msg);
        if ((q->op == GW_SEL_GT || q->op == GW_SEL_LT) && !parse_int(q->values[i], &v))
            return fail(p->err, p->err_len,
                        "values[%zu]: Invalid value: \"%s\": for 'Gt', 'Lt' operators, the "
                        "value must be an integer",
                        i, q->values[i]);
    }
    return 0;
}

static int
parse_requirement(parser_t *p, gw_selector_t *sel)
{
    gw_sel_req_t *q = NULL;
    int rc = parse_key(p, sel, &q);

    if (rc != 0 || q->op == GW_SEL_EXISTS || q->op == GW_SEL_NOT_EXISTS)
        return rc;
    rc = parse_operator(p, q);
    if (rc == 0)
        rc = q->op == GW_SEL_IN || q->op == GW_SEL_NOT_IN ? parse_set(p, q) : parse_exact(p, q);
    return rc != 0 ? rc : check_values(p, q);
}

static int
parse_all(parser_t *p, gw_selector_t *sel)
{
    char why[256];

    for (;;) {
        item_t it = peek(p, true);
        if (it.tok == T_END)
            return 0;
        if (it.tok != T_ID && it.tok != T_NOT)
            return perr(p, &it, "!, identifier, or 'end of string'");
        if (parse_requirement(p, sel) != 0) {
            snprintf(why, sizeof(why), "%s", p->err);
            return fail(p->err, p->err_len, "unable to parse requirement: %s", why);
        }
        it = next(p, true);
        if (it.tok == T_END)
            return 0;
        if (it.tok != T_COMMA)
            return perr(p, &it, "',' or 'end of string'");
        it = peek(p, true);
        if (it.tok != T_ID && it.tok != T_NOT)
            return perr(p, &it, "identifier after ','");
    }
}

int
gw_label_selector_parse(const char *s, gw_selector_t *out, char *err, size_t err_len)
{
    parser_t p = {.err = err, .err_len = err_len};
    const char *cur = s;
    size_t cap = 0;
    int rc;

    *out = (gw_selector_t){0};
    do {
        if (p.n == cap) {
            cap = cap ? cap * 2 : 16;
            p.items = gw_realloc(p.items, cap * sizeof(*p.items));
        }
        p.items[p.n] = lex(&cur);
    } while (p.items[p.n++].tok != T_END);
    rc = parse_all(&p, out);
    free(p.items);
    if (rc != 0) {
        gw_selector_clear(out);
        return rc;
    }
    sort_reqs(out);
    return 0;
}

/* ---- matching --------------------------------------------------------------------------- */

static bool
has_value(const gw_sel_req_t *q, const char *v)
{
    return q->n_values > 0 &&
           bsearch(&v, q->values, q->n_values, sizeof(*q->values), cmp_str) != NULL;
}

static bool
req_match(const gw_sel_req_t *q, const char *v)
{
    long long have, want;

    switch (q->op) {
    case GW_SEL_EQUALS:
    case GW_SEL_IN:
        return v != NULL && has_value(q, v);
    case GW_SEL_NOT_EQUALS:
    case GW_SEL_NOT_IN:
        return v == NULL || !has_value(q, v);
    case GW_SEL_EXISTS:
        return v != NULL;
    case GW_SEL_NOT_EXISTS:
        return v == NULL;
    case GW_SEL_GT:
    case GW_SEL_LT:
        if (v == NULL || q->n_values != 1 || !parse_int(v, &have) ||
            !parse_int(q->values[0], &want))
            return false;
        return q->op == GW_SEL_GT ? have > want : have < want;
    }
    return false;
}

bool
gw_label_selector_match(const gw_selector_t *sel, const json_t *labels)
{
    for (size_t i = 0; i < sel->n; i++) {
        const char *v = json_string_value(json_object_get(labels, sel->reqs[i].key));
        if (!req_match(&sel->reqs[i], v))
            return false;
    }
    return true;
}

bool
gw_field_selector_match(const gw_selector_t *sel, gw_field_get_fn get, void *arg)
{
    for (size_t i = 0; i < sel->n; i++) {
        const char *v = get(sel->reqs[i].key, arg);
        if (!req_match(&sel->reqs[i], v != NULL ? v : ""))
            return false;
    }
    return true;
}

/* ---- field selectors -------------------------------------------------------------------- */

/* A term's value with kube's escapes undone ('\\', '\,', '\='); on a bad escape or a bare
 * ',' or '=' false, with kube's message. */
static bool
unescape(const char *s, size_t len, char **out, char *err, size_t err_len)
{
    char *o = gw_malloc(len + 1), *w = o;

    for (size_t i = 0; i < len; i++) {
        if (s[i] == '\\') {
            if (i + 1 == len || strchr("\\,=", s[i + 1]) == NULL) {
                fail(err, err_len, "invalid field selector: invalid escape sequence: %.*s",
                     i + 1 == len ? 1 : 2, s + i);
                free(o);
                return false;
            }
            i++;
        } else if (s[i] == ',' || s[i] == '=') {
            fail(err, err_len, "invalid field selector: unescaped character in value: %c", s[i]);
            free(o);
            return false;
        }
        *w++ = s[i];
    }
    *w = '\0';
    *out = o;
    return true;
}

/* The first operator in a term splits it ("!=" before "==" before "="). */
static bool
split_term(const char *t, size_t len, size_t *lhs, gw_sel_op_t *op, size_t *rhs)
{
    for (size_t i = 0; i < len; i++) {
        if (i + 1 < len && t[i] == '!' && t[i + 1] == '=') {
            *op = GW_SEL_NOT_EQUALS;
            *lhs = i;
            *rhs = i + 2;
            return true;
        }
        if (t[i] == '=') {
            *op = GW_SEL_EQUALS;
            *lhs = i;
            *rhs = i + 1 < len && t[i + 1] == '=' ? i + 2 : i + 1;
            return true;
        }
    }
    return false;
}

static int
field_term(gw_selector_t *sel, const char *all, const char *t, size_t len, char *err,
           size_t err_len)
{
    size_t lhs, rhs;
    gw_sel_op_t op;
    gw_sel_req_t *q;
    char *v;

    if (!split_term(t, len, &lhs, &op, &rhs))
        return fail(err, err_len, "invalid selector: '%s'; can't understand '%.*s'", all, (int)len,
                    t);
    if (!unescape(t + rhs, len - rhs, &v, err, err_len))
        return GW_EINVAL;
    q = sel_add(sel, t, lhs, op);
    q->values = gw_malloc(sizeof(*q->values));
    q->values[0] = v;
    q->n_values = 1;
    return 0;
}

int
gw_field_selector_parse(const char *s, gw_selector_t *out, char *err, size_t err_len)
{
    const char *start = s;

    *out = (gw_selector_t){0};
    for (const char *p = s;; p++) {
        if (*p == '\\' && p[1] != '\0') {
            p++;
            continue;
        }
        if (*p != ',' && *p != '\0')
            continue;
        if (p > start && field_term(out, s, start, (size_t)(p - start), err, err_len) != 0) {
            gw_selector_clear(out);
            return GW_EINVAL;
        }
        if (*p == '\0')
            break;
        start = p + 1;
    }
    sort_reqs(out);
    return 0;
}

/* ---- metav1.LabelSelector as a string --------------------------------------------------- */

static const char *const op_names[] = {
    [GW_SEL_IN] = "In",
    [GW_SEL_NOT_IN] = "NotIn",
    [GW_SEL_EXISTS] = "Exists",
    [GW_SEL_NOT_EXISTS] = "DoesNotExist",
};

static bool
add_expression(gw_selector_t *sel, const json_t *e)
{
    const char *key = json_string_value(json_object_get(e, "key"));
    const char *opname = json_string_value(json_object_get(e, "operator"));
    const json_t *vals = json_object_get(e, "values"), *v;
    gw_sel_req_t *q;
    size_t i;
    int op = -1;

    for (i = 0; opname != NULL && i < sizeof(op_names) / sizeof(op_names[0]); i++) {
        if (op_names[i] != NULL && strcmp(op_names[i], opname) == 0)
            op = (int)i;
    }
    if (key == NULL || op < 0)
        return false;
    q = sel_add(sel, key, strlen(key), (gw_sel_op_t)op);
    json_array_foreach(vals, i, v)
    {
        if (!json_is_string(v))
            return false;
        req_add_value(q, json_string_value(v), json_string_length(v));
    }
    /* kube's NewRequirement: sets need values, existence tests take none. */
    return (q->n_values > 0) == (op == GW_SEL_IN || op == GW_SEL_NOT_IN);
}

static bool
build_selector(const json_t *selector, gw_selector_t *sel)
{
    const json_t *labels = json_object_get(selector, "matchLabels");
    const json_t *exprs = json_object_get(selector, "matchExpressions"), *v;
    const char *k;
    size_t i;

    /* A plain map (a replication controller's selector) is matchLabels alone. */
    if (labels == NULL && exprs == NULL)
        labels = selector;
    json_object_foreach((json_t *)labels, k, v)
    {
        if (!json_is_string(v))
            return false;
        req_add_value(sel_add(sel, k, strlen(k), GW_SEL_EQUALS), json_string_value(v),
                      json_string_length(v));
    }
    json_array_foreach(exprs, i, v)
    {
        if (!add_expression(sel, v))
            return false;
    }
    sort_reqs(sel);
    return true;
}

static void
append(char **out, size_t *len, const char *s)
{
    size_t n = strlen(s);

    *out = gw_realloc(*out, *len + n + 1);
    memcpy(*out + *len, s, n + 1);
    *len += n;
}

static void
append_req(char **out, size_t *len, const gw_sel_req_t *q)
{
    bool set = q->op == GW_SEL_IN || q->op == GW_SEL_NOT_IN;

    if (q->op == GW_SEL_NOT_EXISTS)
        append(out, len, "!");
    append(out, len, q->key);
    if (q->op == GW_SEL_EXISTS || q->op == GW_SEL_NOT_EXISTS)
        return;
    append(out, len, q->op == GW_SEL_EQUALS ? "=" : q->op == GW_SEL_IN ? " in (" : " notin (");
    for (size_t i = 0; i < q->n_values; i++) {
        if (i > 0)
            append(out, len, ",");
        append(out, len, q->values[i]);
    }
    if (set)
        append(out, len, ")");
}

char *
gw_label_selector_string(const json_t *selector)
{
    gw_selector_t sel = {0};
    char *out = gw_strdup("");
    size_t len = 0;

    if (!json_is_object(selector) || !build_selector(selector, &sel)) {
        gw_selector_clear(&sel);
        free(out);
        return NULL;
    }
    for (size_t i = 0; i < sel.n; i++) {
        if (i > 0)
            append(&out, &len, ",");
        append_req(&out, &len, &sel.reqs[i]);
    }
    gw_selector_clear(&sel);
    return out;
}
