/*
 * Admission matching (k8s.io/apiserver pkg/admission/plugin/policy/matching, the webhook
 * predicates rules, namespace and object, and policy/generic's policy matcher): a compiled
 * MatchResources checked against a request's resource, operation, name, namespace labels and
 * object labels.
 */
#include "gw_admission_match.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_err.h"
#include "gw_names.h"
#include "gw_selector.h"

/* ---- compiled documents ----------------------------------------------------------------- */

typedef struct {
    char **v;
    size_t n;
} strv_t;

enum { OP_ALL = 1u << 4 }; /* beside the bits 1 << gw_admission_op_t */

typedef enum { SCOPE_ALL, SCOPE_CLUSTER, SCOPE_NAMESPACED, SCOPE_NONE } scope_t;

/* A NamedRuleWithOperations; each resource entry is kept split at its first '/'. */
typedef struct {
    unsigned ops;
    strv_t groups, versions, res, sub, names;
    scope_t scope;
} rule_t;

/* A metav1.LabelSelector as kube's LabelSelectorAsSelector converts it. */
typedef struct {
    bool everything;
    gw_selector_t sel;
    char *err; /* the conversion's error, reported when matching needs the selector */
} lsel_t;

struct gw_admission_match {
    rule_t *rules, *excludes;
    size_t n_rules, n_excludes;
    lsel_t ns_sel, obj_sel;
    bool equivalent;
    bool no_rules_no_match; /* a webhook: no rules call it for nothing */
};

static void
strv_push(strv_t *s, const char *v, size_t len)
{
    s->v = gw_realloc(s->v, (s->n + 1) * sizeof(*s->v));
    s->v[s->n++] = gw_strndup(v, len);
}

static void
strv_from_json(strv_t *s, const json_t *arr)
{
    const json_t *v;
    size_t i;

    json_array_foreach(arr, i, v)
    {
        if (json_is_string(v))
            strv_push(s, json_string_value(v), strlen(json_string_value(v)));
    }
}

static void
strv_clear(strv_t *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->v[i]);
    free(s->v);
}

static bool
strv_has(const strv_t *s, const char *v)
{
    for (size_t i = 0; i < s->n; i++) {
        if (strcmp(s->v[i], v) == 0)
            return true;
    }
    return false;
}

/* kube's exactOrWildcard. */
static bool
strv_matches(const strv_t *s, const char *v)
{
    return strv_has(s, "*") || strv_has(s, v);
}

static unsigned
ops_from_json(const json_t *arr)
{
    static const char *const names[] = {
        [GW_ADMISSION_CREATE] = "CREATE",
        [GW_ADMISSION_UPDATE] = "UPDATE",
        [GW_ADMISSION_DELETE] = "DELETE",
        [GW_ADMISSION_CONNECT] = "CONNECT",
    };
    const json_t *v;
    unsigned ops = 0;
    size_t i;

    json_array_foreach(arr, i, v)
    {
        const char *s = json_string_value(v);

        for (size_t k = 0; s != NULL && k < sizeof(names) / sizeof(names[0]); k++) {
            if (strcmp(s, names[k]) == 0)
                ops |= 1u << k;
        }
        if (s != NULL && strcmp(s, "*") == 0)
            ops |= OP_ALL;
    }
    return ops;
}

static scope_t
scope_from_json(const json_t *v)
{
    const char *s = json_string_value(v);

    if (s == NULL || strcmp(s, "*") == 0)
        return SCOPE_ALL;
    if (strcmp(s, "Cluster") == 0)
        return SCOPE_CLUSTER;
    /* kube's scope() answers false for any other value: nothing matches. */
    return strcmp(s, "Namespaced") == 0 ? SCOPE_NAMESPACED : SCOPE_NONE;
}

static void
rule_compile(rule_t *r, const json_t *j)
{
    const json_t *v;
    size_t i;

    r->ops = ops_from_json(json_object_get(j, "operations"));
    strv_from_json(&r->groups, json_object_get(j, "apiGroups"));
    strv_from_json(&r->versions, json_object_get(j, "apiVersions"));
    strv_from_json(&r->names, json_object_get(j, "resourceNames"));
    r->scope = scope_from_json(json_object_get(j, "scope"));
    json_array_foreach(json_object_get(j, "resources"), i, v)
    {
        const char *s = json_string_value(v), *slash;

        if (s == NULL)
            continue;
        /* kube's splitResource: "pods" and "pods/" name the main resource alone. */
        slash = strchr(s, '/');
        strv_push(&r->res, s, slash != NULL ? (size_t)(slash - s) : strlen(s));
        strv_push(&r->sub, slash != NULL ? slash + 1 : "", slash != NULL ? strlen(slash + 1) : 0);
    }
}

static void
rule_clear(rule_t *r)
{
    strv_clear(&r->groups);
    strv_clear(&r->versions);
    strv_clear(&r->res);
    strv_clear(&r->sub);
    strv_clear(&r->names);
}

static rule_t *
rules_compile(const json_t *arr, size_t *n)
{
    rule_t *rules = gw_calloc(json_array_size(arr) + 1, sizeof(*rules));
    const json_t *v;
    size_t i;

    *n = 0;
    json_array_foreach(arr, i, v)
    {
        if (json_is_object(v))
            rule_compile(&rules[(*n)++], v);
    }
    return rules;
}

/* ---- label selectors -------------------------------------------------------------------- */

static void lsel_fail(lsel_t *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
lsel_fail(lsel_t *l, const char *fmt, ...)
{
    char buf[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    l->err = gw_strdup(buf);
}

/* Go's %#v of a []string: []string{"a", "b"}, or []string(nil) when empty (kube copies the
   values with append to a nil slice). */
static void
go_strings(const json_t *vals, char *out, size_t len)
{
    const json_t *v;
    size_t i, at;

    if (json_array_size(vals) == 0) {
        snprintf(out, len, "[]string(nil)");
        return;
    }
    at = (size_t)snprintf(out, len, "[]string{");
    json_array_foreach(vals, i, v)
    {
        if (at < len)
            at += (size_t)snprintf(out + at, len - at, "%s\"%s\"", i > 0 ? ", " : "",
                                   json_is_string(v) ? json_string_value(v) : "");
    }
    if (at < len)
        snprintf(out + at, len - at, "}");
}

/* labels.NewRequirement's checks of a key and its values, in its words (the first failing). */
static bool
lsel_check_requirement(lsel_t *l, const char *key, const json_t *vals)
{
    const char *msg = gw_valid_qualified_name(key);
    const json_t *v;
    size_t i;

    if (msg != NULL) {
        lsel_fail(l, "key: Invalid value: \"%s\": %s", key, msg);
        return false;
    }
    json_array_foreach(vals, i, v)
    {
        const char *s = json_is_string(v) ? json_string_value(v) : "";

        if ((msg = gw_valid_label_value(s)) != NULL) {
            lsel_fail(l, "values[%zu]: Invalid value: \"%s\": %s", i, s, msg);
            return false;
        }
    }
    return true;
}

/* One matchExpressions entry as LabelSelectorAsSelector converts it: a known operator, values
   for the set operators and none for the existence tests, then the requirement's checks. */
static bool
lsel_check_expression(lsel_t *l, const json_t *e)
{
    const char *op = json_string_value(json_object_get(e, "operator"));
    const char *key = json_string_value(json_object_get(e, "key"));
    const json_t *v = json_object_get(e, "values");
    bool set = op != NULL && (strcmp(op, "In") == 0 || strcmp(op, "NotIn") == 0);
    bool exists = op != NULL && (strcmp(op, "Exists") == 0 || strcmp(op, "DoesNotExist") == 0);
    char vals[256];

    go_strings(v, vals, sizeof(vals));
    if (!set && !exists)
        lsel_fail(l, "\"%s\" is not a valid label selector operator", op != NULL ? op : "");
    else if (!lsel_check_requirement(l, key != NULL ? key : "", NULL))
        return false;
    else if (set && json_array_size(v) == 0)
        lsel_fail(l,
                  "values: Invalid value: %s: for 'in', 'notin' operators, values set can't be "
                  "empty",
                  vals);
    else if (exists && json_array_size(v) != 0)
        lsel_fail(l,
                  "values: Invalid value: %s: values set must be empty for exists and does not "
                  "exist",
                  vals);
    else
        return lsel_check_requirement(l, key, v);
    return false;
}

/* The checks of LabelSelectorAsSelector: matchLabels, then matchExpressions. */
static bool
lsel_check(lsel_t *l, const json_t *labels, const json_t *exprs)
{
    const char *k;
    const json_t *v;
    size_t i;

    json_object_foreach((json_t *)labels, k, v)
    {
        json_t *one = json_pack("[O]", v);
        bool ok = json_is_string(v) && lsel_check_requirement(l, k, one);

        json_decref(one);
        if (!ok) {
            if (l->err == NULL)
                lsel_fail(l, "matchLabels: the value of %s is not a string", k);
            return false;
        }
    }
    json_array_foreach(exprs, i, v)
    {
        if (!lsel_check_expression(l, v))
            return false;
    }
    return true;
}

/* Compile a LabelSelector document: absent or {} selects everything (kube's policy matcher
   defaults a nil selector to {}); otherwise checked as kube converts it, then parsed from its
   string form (the parser sorts the requirements and their values as kube's selector does). */
static void
lsel_compile(lsel_t *l, const json_t *doc)
{
    const json_t *labels = json_object_get(doc, "matchLabels");
    const json_t *exprs = json_object_get(doc, "matchExpressions");
    char err[256], *text;
    json_t *both;

    if (json_object_size(labels) + json_array_size(exprs) == 0) {
        l->everything = true;
        return;
    }
    if (!lsel_check(l, labels, exprs))
        return;
    /* Both members, so that an empty one is not read as a plain label map. */
    both = json_pack("{s:O?,s:O?}", "matchLabels", labels, "matchExpressions", exprs);
    text = gw_label_selector_string(both);
    json_decref(both);
    if (text == NULL)
        lsel_fail(l, "invalid label selector");
    else if (gw_label_selector_parse(text, &l->sel, err, sizeof(err)) != 0)
        lsel_fail(l, "%s", err);
    free(text);
}

static void
lsel_clear(lsel_t *l)
{
    gw_selector_clear(&l->sel);
    free(l->err);
}

/* metadata.labels of an object (NULL when it has none). */
static const json_t *
labels_of(const json_t *obj)
{
    return json_object_get(json_object_get(obj, "metadata"), "labels");
}

/* ---- building ----------------------------------------------------------------------------- */

static gw_admission_match_t *
match_new(const json_t *doc, const char *rules_member, const char *excludes_member)
{
    gw_admission_match_t *m = gw_calloc(1, sizeof(*m));
    const char *policy = json_string_value(json_object_get(doc, "matchPolicy"));

    m->rules = rules_compile(json_object_get(doc, rules_member), &m->n_rules);
    m->excludes = rules_compile(
        excludes_member != NULL ? json_object_get(doc, excludes_member) : NULL, &m->n_excludes);
    lsel_compile(&m->ns_sel, json_object_get(doc, "namespaceSelector"));
    lsel_compile(&m->obj_sel, json_object_get(doc, "objectSelector"));
    /* kube: "if match policy is undefined or exact, don't perform fuzzy matching". */
    m->equivalent = policy != NULL && strcmp(policy, "Equivalent") == 0;
    return m;
}

gw_admission_match_t *
gw_admission_match_new(const json_t *mr)
{
    return match_new(mr, "resourceRules", "excludeResourceRules");
}

gw_admission_match_t *
gw_admission_match_new_webhook(const json_t *webhook)
{
    gw_admission_match_t *m = match_new(webhook, "rules", NULL);

    m->no_rules_no_match = true;
    return m;
}

void
gw_admission_match_free(gw_admission_match_t *m)
{
    if (m == NULL)
        return;
    for (size_t i = 0; i < m->n_rules; i++)
        rule_clear(&m->rules[i]);
    for (size_t i = 0; i < m->n_excludes; i++)
        rule_clear(&m->excludes[i]);
    free(m->rules);
    free(m->excludes);
    lsel_clear(&m->ns_sel);
    lsel_clear(&m->obj_sel);
    free(m);
}

bool
gw_admission_match_wants_namespace(const gw_admission_match_t *m)
{
    return !m->ns_sel.everything && m->ns_sel.err == NULL;
}

/* ---- the request ------------------------------------------------------------------------ */

static bool
is_core_namespaces(const gw_resource_t *res)
{
    return res->group[0] == '\0' && strcmp(res->name, "namespaces") == 0;
}

void
gw_admission_request_from_attrs(gw_admission_request_t *rq, const gw_admission_attrs_t *a)
{
    const gw_resource_t *res = a->resource;
    const char *sub = a->subresource != NULL ? a->subresource : "";
    const gw_subresource_t *s = sub[0] != '\0' ? gw_resource_subresource(res, sub) : NULL;
    const char *ns = a->namespace_ != NULL ? a->namespace_ : "";
    const char *name = a->name != NULL ? a->name : "";

    *rq = (gw_admission_request_t){
        .op = a->op,
        .resource = {res->group, res->version, res->name},
        .subresource = sub,
        .kind = {res->group, res->version, res->kind},
        .namespace_ = ns,
        .name = name,
        .object = a->object,
        .old_object = a->old_object,
        .namespaced = res->namespaced,
    };
    if (s != NULL && s->kind != NULL)
        rq->kind = (gw_admission_gvk_t){s->group, s->version, s->kind};
    /* kube's handlers put a namespace's own name in the attributes' namespace. */
    if (ns[0] == '\0' && is_core_namespaces(res))
        rq->namespace_ = name;
}

static bool
gvr_equal(const gw_admission_gvr_t *a, const gw_admission_gvr_t *b)
{
    return strcmp(a->group, b->group) == 0 && strcmp(a->version, b->version) == 0 &&
           strcmp(a->resource, b->resource) == 0;
}

/* ---- rules (predicates/rules) ------------------------------------------------------------- */

static bool
rule_scope(const rule_t *r, const gw_admission_request_t *rq, const gw_admission_gvr_t *res)
{
    static const gw_admission_gvr_t namespaces = {"", "v1", "namespaces"};
    bool is_ns = gvr_equal(res, &namespaces), cluster = rq->namespace_[0] == '\0';

    switch (r->scope) {
    case SCOPE_ALL:
        return true;
    case SCOPE_NAMESPACED: /* a namespace is cluster-scoped though it carries a namespace */
        return !is_ns && !cluster;
    case SCOPE_CLUSTER:
        return is_ns || cluster;
    default:
        return false;
    }
}

static bool
rule_resource(const rule_t *r, const gw_admission_request_t *rq, const gw_admission_gvr_t *res)
{
    for (size_t i = 0; i < r->res.n; i++) {
        bool res_ok = strcmp(r->res.v[i], "*") == 0 || strcmp(r->res.v[i], res->resource) == 0;
        bool sub_ok = strcmp(r->sub.v[i], "*") == 0 || strcmp(r->sub.v[i], rq->subresource) == 0;

        if (res_ok && sub_ok)
            return true;
    }
    return false;
}

/* kube's rules.Matcher over the request seen as `res`, and the named rule's resourceNames
   (none: any name). */
static bool
rule_matches(const rule_t *r, const gw_admission_request_t *rq, const gw_admission_gvr_t *res)
{
    return rule_scope(r, rq, res) && (r->ops & (OP_ALL | 1u << rq->op)) != 0 &&
           strv_matches(&r->groups, res->group) && strv_matches(&r->versions, res->version) &&
           rule_resource(r, rq, res) && (r->names.n == 0 || strv_has(&r->names, rq->name));
}

/* ---- equivalent resources --------------------------------------------------------------- */

#define MAX_EQUIVALENTS 32

/* kube's equivalence registry keys a resource by its storage: every served version of a
   resource, and a resource another group serves over the same stored objects (core and
   events.k8s.io events). Resources that are not stored are keyed by group and name. */
static bool
same_resource(const gw_resource_t *a, const gw_resource_t *b)
{
    if (strcmp(a->group, b->group) == 0 && strcmp(a->name, b->name) == 0)
        return true;
    return !a->virtual_only && !b->virtual_only && a->storage_path != NULL &&
           b->storage_path != NULL && strcmp(a->storage_path, b->storage_path) == 0;
}

/* Registration order: the groups as the catalog orders them (core first), each group's
   versions preferred first. */
static size_t
order_of(const gw_catalog_t *cat, const gw_resource_t *r)
{
    size_t n = gw_catalog_group_count(cat);

    for (size_t g = 0; g < n; g++) {
        const gw_group_t *grp = gw_catalog_group_at(cat, g);

        if (strcmp(grp->name, r->group) != 0)
            continue;
        for (size_t v = 0; v < grp->n_versions; v++) {
            if (strcmp(grp->versions[v], r->version) == 0)
                return g * 64 + v;
        }
        return g * 64 + 63;
    }
    return n * 64;
}

/* kube's EquivalentResourcesFor(resource, subresource): the served resources equivalent to the
   request's that have its subresource, in registration order. */
static size_t
equivalents(const gw_catalog_t *cat, const gw_admission_request_t *rq, const gw_resource_t **out)
{
    const gw_resource_t *self =
        gw_catalog_find(cat, rq->resource.group, rq->resource.version, rq->resource.resource);
    size_t n = 0, keys[MAX_EQUIVALENTS];

    for (size_t i = 0; self != NULL && i < gw_catalog_count(cat) && n < MAX_EQUIVALENTS; i++) {
        const gw_resource_t *r = gw_catalog_at(cat, i);
        size_t key, k;

        if (!same_resource(self, r) ||
            (rq->subresource[0] != '\0' && gw_resource_subresource(r, rq->subresource) == NULL))
            continue;
        key = order_of(cat, r);
        for (k = n; k > 0 && keys[k - 1] > key; k--) {
            keys[k] = keys[k - 1];
            out[k] = out[k - 1];
        }
        keys[k] = key;
        out[k] = r;
        n++;
    }
    return n;
}

/* kube's KindFor(resource, subresource). */
static gw_admission_gvk_t
kind_for(const gw_resource_t *r, const char *subresource)
{
    const gw_subresource_t *s;

    if (subresource[0] == '\0')
        return (gw_admission_gvk_t){r->group, r->version, r->kind};
    s = gw_resource_subresource(r, subresource);
    if (s == NULL || s->kind == NULL)
        return (gw_admission_gvk_t){"", "", ""};
    return (gw_admission_gvk_t){s->group, s->version, s->kind};
}

/* ---- matching (policy/matching) --------------------------------------------------------- */

typedef struct {
    const gw_admission_request_t *rq;
    const gw_catalog_t *cat;
    gw_admission_matched_t *out;
    char *err;
    size_t err_len;
} ctx_t;

static int
equivalent_rules(const ctx_t *c, const rule_t *rules, size_t n)
{
    const gw_resource_t *eq[MAX_EQUIVALENTS];
    size_t n_eq = c->cat != NULL ? equivalents(c->cat, c->rq, eq) : 0;

    for (size_t i = 0; i < n; i++) {
        for (size_t k = 0; k < n_eq; k++) {
            gw_admission_gvr_t res = {eq[k]->group, eq[k]->version, eq[k]->name};
            gw_admission_gvk_t kind;

            if (gvr_equal(&res, &c->rq->resource) || !rule_matches(&rules[i], c->rq, &res))
                continue;
            kind = kind_for(eq[k], c->rq->subresource);
            if (kind.kind[0] == '\0') {
                snprintf(c->err, c->err_len,
                         "unable to convert to %s/%s, Resource=%s: unknown kind", res.group,
                         res.version, res.resource);
                return GW_EINTERNAL;
            }
            c->out->resource = res;
            c->out->kind = kind;
            return 1;
        }
    }
    return 0;
}

/* kube's matchesResourceRules: the request as it came, then (Equivalent) as each equivalent
   resource, rule by rule. */
static int
match_rules(const ctx_t *c, const rule_t *rules, size_t n, bool equivalent)
{
    for (size_t i = 0; i < n; i++) {
        if (rule_matches(&rules[i], c->rq, &c->rq->resource)) {
            c->out->resource = c->rq->resource;
            c->out->kind = c->rq->kind;
            return 1;
        }
    }
    return equivalent ? equivalent_rules(c, rules, n) : 0;
}

const char *
gw_admission_match_namespace_of(const gw_admission_request_t *rq)
{
    bool on_namespaces = strcmp(rq->resource.resource, "namespaces") == 0;

    if (rq->namespace_[0] == '\0' && !on_namespaces)
        return NULL;
    if (on_namespaces && rq->subresource[0] == '\0' &&
        (rq->op == GW_ADMISSION_CREATE || rq->op == GW_ADMISSION_UPDATE))
        return NULL;
    return rq->namespace_;
}

/* kube's MatchNamespaceSelector: 1, 0 or an error. */
static int
match_namespace(const ctx_t *c, const lsel_t *l, const json_t *ns)
{
    const gw_admission_request_t *rq = c->rq;
    const char *name;

    /* Cluster-scoped requests other than on namespaces are never left out. */
    if (rq->namespace_[0] == '\0' && strcmp(rq->resource.resource, "namespaces") != 0)
        return 1;
    if (l->err != NULL) {
        snprintf(c->err, c->err_len, "%s", l->err);
        return GW_EINVAL;
    }
    if (l->everything)
        return 1;
    name = gw_admission_match_namespace_of(rq);
    if (name == NULL) /* a namespace written: its new labels, not the stored ones */
        return gw_label_selector_match(&l->sel, labels_of(rq->object));
    if (ns == NULL) {
        snprintf(c->err, c->err_len, "namespaces \"%s\" not found", name);
        return GW_ENOTFOUND;
    }
    return gw_label_selector_match(&l->sel, labels_of(ns));
}

static bool
object_matches(const lsel_t *l, const json_t *obj)
{
    return json_is_object(obj) && gw_label_selector_match(&l->sel, labels_of(obj));
}

/* kube's MatchObjectSelector. */
static int
match_object(const ctx_t *c, const lsel_t *l)
{
    if (l->err != NULL) {
        snprintf(c->err, c->err_len, "%s", l->err);
        return GW_EINVAL;
    }
    return l->everything || object_matches(l, c->rq->object) ||
           object_matches(l, c->rq->old_object);
}

int
gw_admission_match(const gw_admission_match_t *m, const gw_admission_request_t *rq,
                   const json_t *ns, const gw_catalog_t *cat, gw_admission_matched_t *out,
                   char *err, size_t err_len)
{
    gw_admission_matched_t ignored, matched = {rq->resource, rq->kind};
    char ns_err[512] = "", obj_err[512] = "";
    ctx_t c = {rq, cat, &ignored, err, err_len};
    ctx_t nc = {rq, cat, &ignored, ns_err, sizeof(ns_err)};
    ctx_t oc = {rq, cat, &ignored, obj_err, sizeof(obj_err)};
    int ns_rc, obj_rc, rc;

    /* A selector's error waits until the rules say the request is one the document is about;
       a selector that plainly does not match ends it at once. */
    ns_rc = match_namespace(&nc, &m->ns_sel, ns);
    if (ns_rc == 0)
        return 0;
    obj_rc = match_object(&oc, &m->obj_sel);
    if (obj_rc == 0)
        return 0;
    rc = match_rules(&c, m->excludes, m->n_excludes, m->equivalent);
    if (rc != 0)
        return rc > 0 ? 0 : rc;
    c.out = &matched;
    if (m->n_rules == 0)
        rc = m->no_rules_no_match ? 0 : 1;
    else
        rc = match_rules(&c, m->rules, m->n_rules, m->equivalent);
    if (rc <= 0)
        return rc;
    if (ns_rc < 0 || obj_rc < 0) {
        snprintf(err, err_len, "%s", ns_rc < 0 ? ns_err : obj_err);
        return ns_rc < 0 ? ns_rc : obj_rc;
    }
    if (out != NULL)
        *out = matched;
    return 1;
}

/* ---- policies --------------------------------------------------------------------------- */

bool
gw_admission_match_exempt(const gw_admission_request_t *rq)
{
    static const char *const kinds[] = {
        "ValidatingWebhookConfiguration", "MutatingWebhookConfiguration",
        "ValidatingAdmissionPolicy",      "ValidatingAdmissionPolicyBinding",
        "MutatingAdmissionPolicy",        "MutatingAdmissionPolicyBinding",
    };

    if (strcmp(rq->kind.group, "admissionregistration.k8s.io") != 0)
        return false;
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
        if (strcmp(rq->kind.kind, kinds[i]) == 0)
            return true;
    }
    return false;
}

int
gw_admission_match_definition(const gw_admission_match_t *constraints,
                              const gw_admission_request_t *rq, const json_t *ns,
                              const gw_catalog_t *cat, gw_admission_matched_t *out, char *err,
                              size_t err_len)
{
    if (gw_admission_match_exempt(rq))
        return 0;
    if (constraints == NULL) {
        snprintf(err, err_len, "policy contained no match constraints, a required field");
        return GW_EINVAL;
    }
    return gw_admission_match(constraints, rq, ns, cat, out, err, err_len);
}

int
gw_admission_match_binding(const gw_admission_match_t *binding, const gw_admission_request_t *rq,
                           const json_t *ns, const gw_catalog_t *cat, char *err, size_t err_len)
{
    if (binding == NULL)
        return 1;
    return gw_admission_match(binding, rq, ns, cat, NULL, err, err_len);
}

int
gw_admission_match_policy(const gw_admission_match_t *constraints,
                          const gw_admission_match_t *binding, const gw_admission_request_t *rq,
                          const json_t *ns, const gw_catalog_t *cat, gw_admission_matched_t *out,
                          char *err, size_t err_len)
{
    gw_admission_matched_t matched;
    int rc = gw_admission_match_definition(constraints, rq, ns, cat, &matched, err, err_len);

    if (rc <= 0)
        return rc;
    rc = gw_admission_match_binding(binding, rq, ns, cat, err, err_len);
    if (rc > 0 && out != NULL)
        *out = matched;
    return rc;
}
