/*
 * The x-kubernetes-validations checks of a CRD's schema (kube's
 * ValidateCustomResourceDefinitionOpenAPISchema with its CELSchemaContext): each node's rules
 * compiled as they will run, their estimated cost times the number of times they may run
 * (the product of maxItems and maxProperties above them, else what fits in a request) within
 * StaticEstimatedCostLimit, the schema's total within StaticEstimatedCRDCostLimit, and oldSelf
 * only where old and new values correlate (not under the items of an atomic or set list).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_crd_rules_int.h"
#include "gw_crd_schema.h"

/* celconfig.MaxRequestSizeBytes */
#define MAX_REQUEST_BYTES (3 * 1024 * 1024)

/* ObjectMeta stands for itself: CEL sees only name and generateName of it. */
static const gw_schema_t objmeta = {.type = GW_SCHEMA_OBJECT};

typedef struct {
    char *path;
    uint64_t cost;
} expensive_t;

typedef struct {
    gw_arena_t *a;
    gw_field_errors_t *errs;
    uint64_t total;
    expensive_t top[5]; /* the 4 most expensive rules of at least 1% of the limit */
    size_t ntop;
} check_t;

/* How far a child sits below the root: a bounded count of its possible values, or none. */
typedef struct {
    bool bounded;
    uint64_t n;
} card_t;

static uint64_t
mul(uint64_t a, uint64_t b)
{
    if (a == 0)
        return 0;
    return UINT64_MAX / a < b ? UINT64_MAX : a * b;
}

/* getCostErrorMessage. */
static char *
cost_message(const char *what, uint64_t cost, uint64_t limit)
{
    double f = (double)cost / (double)limit;
    char factor[64];
    if (f > 100.0)
        snprintf(factor, sizeof(factor), "more than 100x");
    else if (f < 1.5)
        snprintf(factor, sizeof(factor), "%fx", f);
    else
        snprintf(factor, sizeof(factor), "%.1fx", f);
    return gw_sprintf("%s exceeds budget by factor of %s (try simplifying the rule, or adding "
                      "maxItems, maxProperties, and maxLength where arrays, maps, and strings are "
                      "declared)",
                      what, factor);
}

static void
forbid_cost(check_t *c, const char *path, const char *what, uint64_t cost)
{
    char *m = cost_message(what, cost, GW_CRD_RULE_COST_LIMIT);
    gw_ferr_forbidden(c->errs, path, m);
    free(m);
}

/* TotalCost.ObserveExpressionCost. */
static void
observe(check_t *c, const char *path, uint64_t cost)
{
    c->total = UINT64_MAX - c->total < cost ? UINT64_MAX : c->total + cost;
    if (cost < GW_CRD_RULES_TOTAL_COST_LIMIT / 100)
        return;
    size_t i = c->ntop;
    while (i > 0 && c->top[i - 1].cost < cost) {
        c->top[i] = c->top[i - 1];
        i--;
    }
    c->top[i] = (expensive_t){gw_arena_strdup(c->a, path), cost};
    if (c->ntop < 4)
        c->ntop++;
}

static void
invalid_rule(check_t *c, const char *path, const gw_crd__rule_t *r, const char *detail)
{
    char *v = gw_crd__rule_gostring(r);
    char *m = gw_sprintf("Invalid value: %s: %s", v, detail);
    gw_ferr_add(c->errs, "FieldValueInvalid", path, m);
    free(m);
    free(v);
}

/* One compiled rule's errors, in kube's order. */
static void
check_rule(check_t *c, const gw_crd__node_t *n, size_t i, const char *path, card_t card,
           const char *uncorrelatable)
{
    const gw_crd__rule_t *r = &n->rules[i];
    char *rp = gw_sprintf("%s.x-kubernetes-validations[%zu].rule", path, i);
    char *mp = gw_sprintf("%s.x-kubernetes-validations[%zu].messageExpression", path, i);
    uint64_t times = card.bounded ? card.n : MAX_REQUEST_BYTES / (uint64_t)(n->min_size + 1);
    uint64_t cost = mul(r->cost, times);

    if (cost > GW_CRD_RULE_COST_LIMIT)
        forbid_cost(c, rp, "estimated rule cost", cost);
    observe(c, rp, cost);
    if (r->error != NULL)
        invalid_rule(c, rp, r, r->error);
    if (r->msg_error != NULL) {
        invalid_rule(c, mp, r, r->msg_error);
    } else if (r->msg_prog != NULL) {
        if (r->msg_cost > GW_CRD_RULE_COST_LIMIT)
            forbid_cost(c, mp, "estimated messageExpression cost", r->msg_cost);
        observe(c, mp, r->msg_cost);
    }
    if (r->uses_old_self && uncorrelatable != NULL) {
        char *m = gw_sprintf(
            "oldSelf cannot be used on the uncorrelatable portion of the schema within %s",
            uncorrelatable);
        gw_ferr_invalid_str(c->errs, rp, r->rule, m);
        free(m);
    }
    free(rp);
    free(mp);
}

static void
check_node(check_t *c, const gw_schema_t *s, bool root, const char *path, card_t card,
           const char *uncorrelatable)
{
    gw_crd__node_t n;

    if (json_array_size(s->rules->validations) == 0)
        return;
    gw_crd__rules_node(c->a, s, root, &n);
    if (n.self_type == NULL) {
        char *p = gw_sprintf("%s.x-kubernetes-validations", path);
        gw_ferr_add(c->errs, "InternalError", p,
                    "Internal error: internal error: failed to construct type information for "
                    "x-kubernetes-validations rules: unable to convert structural schema to CEL "
                    "declarations");
        free(p);
        return;
    }
    for (size_t i = 0; i < n.n_rules; i++)
        check_rule(c, &n, i, path, card, uncorrelatable);
}

/* extractMaxElements of the parent times the parent's cardinality. */
static card_t
child_card(card_t card, bool bounded, int64_t max)
{
    if (!card.bounded || !bounded)
        return (card_t){false, 0};
    return (card_t){true, mul(card.n, max < 0 ? 0 : (uint64_t)max)};
}

static void walk(check_t *c, const gw_schema_t *s, bool root, const char *path, card_t card,
                 const char *uncorrelatable, int depth);

/* Children before the node itself (kube appends a node's CEL errors after its children's):
 * additionalProperties, properties, items. */
static void
walk_children(check_t *c, const gw_schema_t *s, const char *path, card_t card,
              const char *uncorrelatable, int depth)
{
    const struct gw_schema_rules *r = s->rules;
    if (s->values != NULL) {
        char *p = gw_sprintf("%s.additionalProperties", path);
        card_t cc = child_card(card, r->max_properties >= 0, r->max_properties);
        walk(c, s->values, s->values->embedded_resource, p, cc, uncorrelatable, depth + 1);
        free(p);
    }
    for (size_t i = 0; i < s->n_fields; i++) {
        const gw_schema_t *f = s->fields[i].schema;
        char *p = gw_sprintf("%s.properties[%s]", path, s->fields[i].name);
        card_t cc =
            s->values != NULL ? child_card(card, r->max_properties >= 0, r->max_properties) : card;
        walk(c, f, f->embedded_resource, p, cc, uncorrelatable, depth + 1);
        free(p);
    }
    if (s->items != NULL) {
        char *p = gw_sprintf("%s.items", path);
        bool map_list = s->list_type != NULL && strcmp(s->list_type, "map") == 0;
        walk(c, s->items, s->items->embedded_resource, p,
             child_card(card, r->max_items >= 0, r->max_items),
             uncorrelatable != NULL || map_list ? uncorrelatable : path, depth + 1);
        free(p);
    }
}

static void
walk(check_t *c, const gw_schema_t *s, bool root, const char *path, card_t card,
     const char *uncorrelatable, int depth)
{
    if (s == NULL || s->rules == NULL || depth > 128)
        return;
    walk_children(c, s, path, card, uncorrelatable, depth);
    check_node(c, s, root, path, card, uncorrelatable);
}

void
gw_crd_rules_check(const json_t *schema, const char *path, gw_field_errors_t *errs)
{
    check_t c = {.errs = errs};
    const gw_schema_t *root;
    char err[256];

    if (!json_is_object(schema))
        return;
    c.a = gw_arena_new();
    if (gw_crd_schema_compile(c.a, schema, &objmeta, &root, err, sizeof(err)) == 0)
        walk(&c, root, true, path, (card_t){true, 1}, NULL, 0);
    if (c.total > GW_CRD_RULES_TOTAL_COST_LIMIT) {
        for (size_t i = 0; i < c.ntop; i++)
            gw_ferr_forbidden(errs, c.top[i].path,
                              "contributed to estimated rule cost total exceeding cost limit for "
                              "entire OpenAPIv3 schema");
        char *m = cost_message("x-kubernetes-validations estimated rule cost total for entire "
                               "OpenAPIv3 schema",
                               c.total, GW_CRD_RULES_TOTAL_COST_LIMIT);
        gw_ferr_forbidden(errs, path, m);
        free(m);
    }
    gw_arena_free(c.a);
}
