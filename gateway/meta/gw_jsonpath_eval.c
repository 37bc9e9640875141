/* JSONPath evaluation: client-go's FindResults over a Jansson document, node by node, with its
 * rules for what is skipped (nulls), what is an error (indexes out of bounds, missing fields
 * unless allowed, comparisons of unlike types) and kube's messages. */
#include "gw_jsonpath.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_buf.h"
#include "gw_gotype.h"
#include "gw_err.h"
#include "gw_jsonpath_int.h"

typedef struct {
    const json_t **v;
    size_t n, cap;
} vals_t;

/* One evaluation: its options, and the loop state kube keeps in its evaluator for range and
   end (ranges opened and not ended, ends met, and the slot of the last end met). */
typedef struct {
    bool allow_missing;
    char *err;
    size_t err_len;
    int begin_range, in_range, end_range;
    gw_jp__node_t *const *last_end;
} ev_t;

static void
push(vals_t *a, const json_t *v)
{
    if (a->n == a->cap) {
        a->cap = a->cap ? a->cap * 2 : 8;
        a->v = gw_realloc(a->v, a->cap * sizeof(*a->v));
    }
    a->v[a->n++] = v;
}

static void
vals_free(vals_t *a)
{
    free(a->v);
    *a = (vals_t){0};
}

static void
vals_append(vals_t *a, const vals_t *b)
{
    for (size_t i = 0; i < b->n; i++)
        push(a, b->v[i]);
}

static int fail(ev_t *ev, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int
fail(ev_t *ev, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ev->err, ev->err_len, fmt, ap);
    va_end(ap);
    return GW_EINVAL;
}

/* An error after which kube's evaluator hands back its input (what an existence filter then
   counts). */
static int
fail_input(ev_t *ev, const vals_t *in, vals_t *out, const char *what)
{
    vals_free(out);
    vals_append(out, in);
    return fail(ev, "%s", what);
}

/* Copies the pending message so that fail_input can write it back. */
static int
fail_keep(ev_t *ev, const vals_t *in, vals_t *out)
{
    char keep[256];
    snprintf(keep, sizeof(keep), "%s", ev->err);
    return fail_input(ev, in, out, keep);
}

static int walk(ev_t *ev, const vals_t *in, const gw_jp__node_t *n, vals_t *out);

/* evalList: the nodes in turn; on an error, what the failing node gave. */
static int
eval_list(ev_t *ev, const vals_t *in, const gw_jp__node_t *list, vals_t *out)
{
    vals_t cur = {0};
    vals_append(&cur, in);
    for (size_t i = 0; i < list->n_nodes; i++) {
        vals_t next = {0};
        int rc = walk(ev, &cur, list->nodes[i], &next);
        vals_free(&cur);
        cur = next;
        if (rc != 0) {
            *out = cur;
            return rc;
        }
    }
    *out = cur;
    return 0;
}

static int
eval_field(ev_t *ev, const vals_t *in, const gw_jp__node_t *n, vals_t *out)
{
    if (in->n == 0)
        return 0;
    for (size_t i = 0; i < in->n; i++) {
        const json_t *m = json_object_get(in->v[i], n->name);
        if (m != NULL)
            push(out, m);
    }
    if (out->n == 0 && !ev->allow_missing)
        return fail(ev, "%s is not found", n->name);
    return 0;
}

/* One array through a slice; *done when kube stops at an empty slice. */
static int
slice_one(ev_t *ev, const json_t *a, const gw_jp__param_t *p, vals_t *out, bool *done)
{
    long long len = (long long)json_array_size(a), step = 1;
    long long from = p[0].known ? p[0].value : 0, to = p[1].known ? p[1].value : len;
    if (from < 0)
        from += len;
    if (to < 0 || (to == 0 && p[1].derived))
        to += len;
    if (to == from) {
        *done = true; /* kube returns what it has: the inputs after this one are not read */
        return 0;
    }
    if (from >= len || from < 0)
        return fail(ev, "array index out of bounds: index %lld, length %lld", from, len);
    if (to > len || to < 0)
        return fail(ev, "array index out of bounds: index %lld, length %lld", to - 1, len);
    if (from > to)
        return fail(ev, "starting index %lld is greater than ending index %lld", from, to);
    if (p[2].known && p[2].value <= 0)
        return fail(ev, "step must be > 0");
    if (p[2].known)
        step = p[2].value;
    for (long long i = from; i < to; i += step)
        push(out, json_array_get(a, (size_t)i));
    return 0;
}

static int
eval_array(ev_t *ev, const vals_t *in, const gw_jp__node_t *n, vals_t *out)
{
    char msg[96];
    bool done = false;
    for (size_t i = 0; i < in->n && !done; i++) {
        const json_t *v = in->v[i];
        if (json_is_null(v))
            continue;
        if (!json_is_array(v)) {
            snprintf(msg, sizeof(msg), "%s is not array or slice", gw_json_go_type(v));
            return fail_input(ev, in, out, msg);
        }
        if (slice_one(ev, v, n->params, out, &done) != 0)
            return fail_keep(ev, in, out);
    }
    return 0;
}

/* ---- filters: text/template's eq and lt over Go's kinds ---------------------------------- */

enum { K_INVALID, K_BOOL, K_INT, K_FLOAT, K_STRING };

static int
kind_of(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_TRUE:
    case JSON_FALSE:
        return K_BOOL;
    case JSON_INTEGER:
        return K_INT;
    case JSON_REAL:
        return K_FLOAT;
    case JSON_STRING:
        return K_STRING;
    default:
        return K_INVALID;
    }
}

static int
str_cmp(const json_t *a, const json_t *b)
{
    size_t na = json_string_length(a), nb = json_string_length(b);
    int c = memcmp(json_string_value(a), json_string_value(b), na < nb ? na : nb);
    return c != 0 ? c : (na > nb) - (na < nb);
}

/* The kinds of a and b when both can be compared and are alike (else kube's error). */
static int
kinds(ev_t *ev, const json_t *a, const json_t *b, int *k)
{
    int kb = kind_of(b);
    *k = kind_of(a);
    if (*k == K_INVALID || kb == K_INVALID)
        return fail(ev, "invalid type for comparison");
    if (*k != kb)
        return fail(ev, "incompatible types for comparison");
    return 0;
}

static int
equal(ev_t *ev, const json_t *a, const json_t *b, bool *truth)
{
    int k, rc = kinds(ev, a, b, &k);
    if (rc != 0)
        return rc;
    if (k == K_BOOL)
        *truth = json_is_true(a) == json_is_true(b);
    else if (k == K_INT)
        *truth = json_integer_value(a) == json_integer_value(b);
    else if (k == K_FLOAT)
        *truth = json_real_value(a) == json_real_value(b);
    else
        *truth = str_cmp(a, b) == 0;
    return 0;
}

static int
less(ev_t *ev, const json_t *a, const json_t *b, bool *truth)
{
    int k, rc = kinds(ev, a, b, &k);
    if (rc != 0)
        return rc;
    if (k == K_BOOL)
        return fail(ev, "invalid type for comparison");
    if (k == K_INT)
        *truth = json_integer_value(a) < json_integer_value(b);
    else if (k == K_FLOAT)
        *truth = json_real_value(a) < json_real_value(b);
    else
        *truth = str_cmp(a, b) < 0;
    return 0;
}

static int
compare(ev_t *ev, const char *op, const json_t *a, const json_t *b, bool *pass)
{
    int rc;
    if (strcmp(op, "==") == 0 || strcmp(op, "!=") == 0) {
        rc = equal(ev, a, b, pass);
        *pass = op[0] == '!' ? !*pass : *pass;
        return rc;
    }
    if (strcmp(op, "<") == 0 || strcmp(op, ">=") == 0) {
        rc = less(ev, a, b, pass);
        *pass = op[0] == '>' ? !*pass : *pass;
        return rc;
    }
    if (strcmp(op, "<=") == 0 || strcmp(op, ">") == 0) {
        rc = less(ev, a, b, pass); /* <= is < or ==; > is its inverse */
        if (rc == 0 && !*pass)
            rc = equal(ev, a, b, pass);
        *pass = op[0] == '>' ? !*pass : *pass;
        return rc;
    }
    return fail(ev, "unrecognized filter operator %s", op);
}

/* One side of a comparison: exactly one value, none (the element is skipped), or an error. */
static int
one_side(ev_t *ev, const vals_t *elem, const gw_jp__node_t *side, const json_t **v)
{
    vals_t got = {0};
    int rc = eval_list(ev, elem, side, &got);
    *v = rc == 0 && got.n == 1 ? got.v[0] : NULL;
    if (rc == 0 && got.n > 1)
        rc = fail(ev, "can only compare one element at a time");
    vals_free(&got);
    return rc;
}

/* Whether one element passes the filter. */
static int
filter_one(ev_t *ev, const json_t *elem, const gw_jp__node_t *f, bool *pass)
{
    const json_t *left, *right;
    vals_t one = {0};
    push(&one, elem);
    *pass = false;
    if (strcmp(f->name, "exists") == 0) {
        vals_t got = {0};
        (void)eval_list(ev, &one, f->nodes[0], &got); /* kube counts what came back, error or not */
        *pass = got.n > 0;
        ev->err[0] = '\0';
        vals_free(&got);
        vals_free(&one);
        return 0;
    }
    int rc = one_side(ev, &one, f->nodes[0], &left);
    if (rc == 0 && left != NULL)
        rc = one_side(ev, &one, f->nodes[1], &right);
    if (rc == 0 && left != NULL && right != NULL)
        rc = compare(ev, f->name, left, right, pass);
    vals_free(&one);
    return rc;
}

static int
eval_filter(ev_t *ev, const vals_t *in, const gw_jp__node_t *n, vals_t *out)
{
    for (size_t i = 0; i < in->n; i++) {
        const json_t *v = in->v[i];
        if (!json_is_array(v)) {
            gw_buf_t b = {0};
            gw_jp__go_value(&b, v);
            gw_buf_str(&b, " is not array or slice and cannot be filtered");
            int rc = fail_input(ev, in, out, gw_buf_cstr(&b));
            gw_buf_free(&b);
            return rc;
        }
        for (size_t k = 0; k < json_array_size(v); k++) {
            bool pass;
            if (filter_one(ev, json_array_get(v, k), n, &pass) != 0)
                return fail_keep(ev, in, out);
            if (pass)
                push(out, json_array_get(v, k));
        }
    }
    return 0;
}

/* ---- wildcards, recursive descent, unions, literals -------------------------------------- */

static void
children(const json_t *v, vals_t *out)
{
    const char *key;
    json_t *m;
    if (json_is_object(v)) {
        json_object_foreach((json_t *)v, key, m) push(out, m);
    } else if (json_is_array(v)) {
        for (size_t i = 0; i < json_array_size(v); i++)
            push(out, json_array_get(v, i));
    }
}

/* evalRecursive: every value that has something inside (objects, arrays, non-empty strings),
   parents before their children. */
static void
descend(const json_t *v, vals_t *out)
{
    vals_t kids = {0};
    if (json_is_string(v) && json_string_length(v) > 0)
        push(out, v);
    children(v, &kids);
    if (kids.n > 0)
        push(out, v);
    for (size_t i = 0; i < kids.n; i++)
        descend(kids.v[i], out);
    vals_free(&kids);
}

static int
eval_union(ev_t *ev, const vals_t *in, const gw_jp__node_t *n, vals_t *out)
{
    for (size_t i = 0; i < n->n_nodes; i++) {
        vals_t got = {0};
        int rc = eval_list(ev, in, n->nodes[i], &got);
        if (rc == 0)
            vals_append(out, &got);
        vals_free(&got);
        if (rc != 0)
            return fail_keep(ev, in, out);
    }
    return 0;
}

/* range opens a loop over what its path finds; end closes the innermost one. */
static int
eval_identifier(ev_t *ev, const vals_t *in, const gw_jp__node_t *n, vals_t *out)
{
    char msg[160];
    if (strcmp(n->name, "range") == 0) {
        ev->begin_range++;
        vals_append(out, in);
        return 0;
    }
    if (strcmp(n->name, "end") == 0) {
        if (ev->in_range == 0)
            return fail(ev, "not in range, nothing to end");
        ev->end_range++;
        return 0;
    }
    snprintf(msg, sizeof(msg), "unrecognized identifier %s", n->name);
    return fail_input(ev, in, out, msg);
}

static int
walk(ev_t *ev, const vals_t *in, const gw_jp__node_t *n, vals_t *out)
{
    switch (n->kind) {
    case GW_JP_LIST:
        return eval_list(ev, in, n, out);
    case GW_JP_TEXT:
        push(out, n->literal);
        return 0;
    case GW_JP_FIELD:
        return eval_field(ev, in, n, out);
    case GW_JP_ARRAY:
        return eval_array(ev, in, n, out);
    case GW_JP_FILTER:
        return eval_filter(ev, in, n, out);
    case GW_JP_INT:
    case GW_JP_FLOAT:
    case GW_JP_BOOL:
        for (size_t i = 0; i < in->n; i++)
            push(out, n->literal);
        return 0;
    case GW_JP_WILDCARD:
        for (size_t i = 0; i < in->n; i++)
            children(in->v[i], out);
        return 0;
    case GW_JP_RECURSIVE:
        for (size_t i = 0; i < in->n; i++)
            descend(in->v[i], out);
        return 0;
    case GW_JP_UNION:
        return eval_union(ev, in, n, out);
    case GW_JP_IDENTIFIER:
        return eval_identifier(ev, in, n, out);
    }
    return fail(ev, "unexpected node");
}

/* ---- the contract ----------------------------------------------------------------------- */

void
gw_jsonpath_results_free(gw_jsonpath_results_t *r)
{
    free(r->values);
    free(r->end);
    *r = (gw_jsonpath_results_t){0};
}

static void
results_add(gw_jsonpath_results_t *r, const vals_t *part)
{
    for (size_t i = 0; i < part->n; i++) {
        if (r->n_values == r->cap_values) {
            r->cap_values = r->cap_values ? r->cap_values * 2 : 8;
            r->values = gw_realloc(r->values, r->cap_values * sizeof(*r->values));
        }
        r->values[r->n_values++] = part->v[i];
    }
    if (r->n_parts == r->cap_parts) {
        r->cap_parts = r->cap_parts ? r->cap_parts * 2 : 8;
        r->end = gw_realloc(r->end, r->cap_parts * sizeof(*r->end));
    }
    r->end[r->n_parts++] = r->n_values;
}

static int find(ev_t *ev, gw_jp__node_t *const *nodes, size_t n, const json_t *data,
                gw_jsonpath_results_t *out);

/* The loop a range opened at nodes[i]: the nodes after it once per value found (once over
   nothing, its results dropped, when it found none, to reach its end), then on past the last
   end met. Returns the index to go on after. */
static int
run_range(ev_t *ev, gw_jp__node_t *const *nodes, size_t n, size_t *i, const vals_t *found,
          gw_jsonpath_results_t *out)
{
    int rc = 0;
    ev->begin_range--;
    ev->in_range++;
    for (size_t k = 0; k < found->n && rc == 0; k++)
        rc = find(ev, nodes + *i + 1, n - *i - 1, found->v[k], out);
    if (rc == 0 && found->n == 0) {
        gw_jsonpath_results_t dropped = {0};
        rc = find(ev, nodes + *i + 1, n - *i - 1, json_null(), &dropped);
        gw_jsonpath_results_free(&dropped);
    }
    ev->in_range--;
    for (size_t k = *i + 1; k < n && rc == 0; k++) {
        if (nodes + k == ev->last_end) {
            *i = k;
            break;
        }
    }
    return rc;
}

/* FindResults over nodes[0..n) with `data` as the current value. */
static int
find(ev_t *ev, gw_jp__node_t *const *nodes, size_t n, const json_t *data,
     gw_jsonpath_results_t *out)
{
    vals_t cur = {0};
    int rc = 0;
    push(&cur, data);
    for (size_t i = 0; i < n && rc == 0; i++) {
        vals_t res = {0};
        rc = walk(ev, &cur, nodes[i], &res);
        if (rc == 0 && ev->end_range > 0 && ev->end_range <= ev->in_range) {
            ev->end_range--;
            ev->last_end = nodes + i;
            vals_free(&res);
            break;
        }
        if (rc == 0 && ev->begin_range > 0)
            rc = run_range(ev, nodes, n, &i, &res, out);
        else if (rc == 0)
            results_add(out, &res);
        vals_free(&res);
    }
    vals_free(&cur);
    return rc;
}

int
gw_jsonpath_find(const gw_jsonpath_t *p, const json_t *data, bool allow_missing,
                 gw_jsonpath_results_t *out, char *err, size_t err_len)
{
    char scratch[256];
    ev_t ev = {.allow_missing = allow_missing,
               .err = err != NULL && err_len > 0 ? err : scratch,
               .err_len = err != NULL && err_len > 0 ? err_len : sizeof(scratch)};
    ev.err[0] = '\0';
    out->n_values = out->n_parts = 0;
    int rc = find(&ev, p->root->nodes, p->root->n_nodes, data, out);
    if (rc != 0)
        out->n_values = out->n_parts = 0;
    return rc;
}
