/* The compiled policies, their bindings and params, as one reference-counted snapshot. */
#include "gw_vap_snapshot.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_err.h"
#include "gw_map_compile.h"

/* A compiled policy, shared by the snapshots built while its spec stays the same. */
typedef struct {
    atomic_int refs;
    gw_vap_compiled_t *compiled; /* a validating policy's */
    gw_map_compiled_t *mutating; /* a mutating policy's (its base is `compiled`'s role) */
    json_t *name;
    json_t *spec;
} box_t;

/* The stored objects of one param resource. */
struct gw_vap_params {
    const char *path;
    json_t *by_key; /* "<namespace>/<name>" -> object */
    json_t *all;    /* in key order */
};

typedef struct {
    gw_vap_policy_t pub;
    box_t *box;
} policy_t;

struct gw_vap_snap {
    atomic_int refs;
    bool mutating; /* of MutatingAdmissionPolicies (gw_map_snap_new) */
    json_t *policies, *bindings, *params_doc;
    policy_t *items;
    size_t n;
    struct gw_vap_params *params;
    size_t nparams;
    size_t reused;
    const gw_catalog_t *catalog; /* held: the param kinds' resources point into it */
};

static pthread_mutex_t current_mu = PTHREAD_MUTEX_INITIALIZER;
static gw_vap_snap_t *current, *current_map;

static const char *
meta_str(const json_t *o, const char *member)
{
    const char *v = json_string_value(json_object_get(json_object_get(o, "metadata"), member));
    return v != NULL ? v : "";
}

static void
box_unref(box_t *b)
{
    if (b == NULL || atomic_fetch_sub(&b->refs, 1) != 1)
        return;
    gw_vap_compiled_free(b->compiled);
    gw_map_compiled_free(b->mutating);
    json_decref(b->name);
    json_decref(b->spec);
    free(b);
}

/* The previous snapshot's compiled form of `policy` when its name and spec are unchanged. */
static box_t *
box_reuse(const gw_vap_snap_t *prev, const json_t *policy)
{
    const json_t *spec = json_object_get(policy, "spec");
    const char *name = meta_str(policy, "name");

    for (size_t i = 0; prev != NULL && i < prev->n; i++) {
        box_t *b = prev->items[i].box;
        if (strcmp(json_string_value(b->name), name) == 0 && json_equal(b->spec, spec)) {
            atomic_fetch_add(&b->refs, 1);
            return b;
        }
    }
    return NULL;
}

static box_t *
box_new(const json_t *policy, bool mutating)
{
    box_t *b = gw_calloc(1, sizeof(*b));
    const json_t *spec = json_object_get(policy, "spec");

    atomic_init(&b->refs, 1);
    if (mutating)
        b->mutating = gw_map_compile(policy, NULL);
    else
        b->compiled = gw_vap_compile(policy, NULL);
    b->name = json_string(meta_str(policy, "name"));
    b->spec = spec != NULL ? json_deep_copy(spec) : json_null();
    return b;
}

const gw_resource_t *
gw_vap_param_resource(const gw_catalog_t *cat, const json_t *policy, bool *named)
{
    const json_t *pk = json_object_get(json_object_get(policy, "spec"), "paramKind");
    const char *av = json_string_value(json_object_get(pk, "apiVersion"));
    const char *kind = json_string_value(json_object_get(pk, "kind"));
    const char *slash;
    char group[256];

    *named = json_is_object(pk);
    if (!*named || av == NULL || kind == NULL)
        return NULL;
    slash = strchr(av, '/');
    if (slash == NULL)
        return gw_catalog_find_kind(cat, "", av, kind);
    if ((size_t)(slash - av) >= sizeof(group))
        return NULL;
    snprintf(group, sizeof(group), "%.*s", (int)(slash - av), av);
    return gw_catalog_find_kind(cat, group, slash + 1, kind);
}

/* kube's GroupVersionKind.String(): "<group>/<version>, Kind=<kind>". */
static char *
param_kind_error(const json_t *policy)
{
    const json_t *pk = json_object_get(json_object_get(policy, "spec"), "paramKind");
    const char *av = json_string_value(json_object_get(pk, "apiVersion"));
    const char *kind = json_string_value(json_object_get(pk, "kind"));

    av = av != NULL ? av : "";
    return gw_sprintf("failed to find resource referenced by paramKind: '%s%s, Kind=%s'",
                      strchr(av, '/') != NULL ? "" : "/", av, kind != NULL ? kind : "");
}

static void
index_params(gw_vap_snap_t *s, json_t *params)
{
    const char *path;
    json_t *arr;

    s->params = gw_calloc(json_object_size(params) + 1, sizeof(*s->params));
    json_object_foreach(params, path, arr)
    {
        struct gw_vap_params *p = &s->params[s->nparams++];
        size_t i;
        json_t *o;

        p->path = path;
        p->all = json_is_array(arr) ? json_incref(arr) : json_array();
        p->by_key = json_object();
        json_array_foreach(p->all, i, o)
        {
            char *key = gw_sprintf("%s/%s", meta_str(o, "namespace"), meta_str(o, "name"));
            json_object_set(p->by_key, key, o);
            free(key);
        }
    }
}

static const struct gw_vap_params *
params_of(const gw_vap_snap_t *s, const gw_resource_t *res)
{
    for (size_t i = 0; res != NULL && i < s->nparams; i++)
        if (strcmp(s->params[i].path, res->storage_path) == 0)
            return &s->params[i];
    return NULL;
}

static void
add_binding(policy_t *p, const json_t *b)
{
    const json_t *spec = json_object_get(b, "spec");
    const json_t *mr = json_object_get(spec, "matchResources");
    const json_t *ref = json_object_get(spec, "paramRef");
    const json_t *sel = json_object_get(ref, "selector");
    gw_vap_binding_t *nb;

    p->pub.bindings = gw_realloc(p->pub.bindings, (p->pub.nbindings + 1) * sizeof(*nb));
    nb = &p->pub.bindings[p->pub.nbindings++];
    *nb = (gw_vap_binding_t){.name = meta_str(b, "name"), .doc = b};
    if (json_is_object(mr))
        nb->match = gw_admission_match_new(mr);
    if (json_is_object(ref)) {
        nb->param_ref = ref;
        if (json_is_object(sel)) {
            json_t *doc = json_pack("{s:O}", "objectSelector", sel);
            nb->param_sel = gw_admission_match_new(doc);
            json_decref(doc);
        }
    }
}

/* The resource names the rules of matchConstraints name, NULL when any resource may match
 * (a rule on "*", alone or with a subresource, or no rules). Equivalent resources kube's
 * matchPolicy finds share the name (other versions, the same objects in another group), so
 * names are a safe filter. */
static json_t *
rule_resources(const json_t *mc)
{
    const json_t *rules = json_object_get(mc, "resourceRules");
    json_t *names = json_object();
    size_t i, j;
    json_t *r, *res;

    if (json_array_size(rules) == 0)
        goto any;
    json_array_foreach(rules, i, r)
    {
        json_array_foreach(json_object_get(r, "resources"), j, res)
        {
            const char *n = json_string_value(res);
            size_t len = n != NULL ? strcspn(n, "/") : 0;
            char *name;
            if (len == 0 || (len == 1 && n[0] == '*'))
                goto any;
            name = gw_sprintf("%.*s", (int)len, n);
            json_object_set_new(names, name, json_true());
            free(name);
        }
    }
    return names;
any:
    json_decref(names);
    return NULL;
}

bool
gw_vap_policy_may_match(const gw_vap_policy_t *p, const char *resource)
{
    return p->resources == NULL || json_object_get(p->resources, resource) != NULL;
}

static void
build_policy(gw_vap_snap_t *s, policy_t *p, const json_t *doc, const gw_catalog_t *cat,
             const gw_vap_snap_t *prev)
{
    const json_t *mc = json_object_get(json_object_get(doc, "spec"), "matchConstraints");
    bool named;
    size_t i;
    json_t *b;

    p->box = box_reuse(prev, doc);
    if (p->box != NULL)
        s->reused++;
    else
        p->box = box_new(doc, s->mutating);
    p->pub.name = meta_str(doc, "name");
    p->pub.doc = doc;
    p->pub.mutating = p->box->mutating;
    p->pub.compiled =
        p->box->mutating != NULL ? gw_map_compiled_base(p->box->mutating) : p->box->compiled;
    if (json_is_object(mc))
        p->pub.constraints = gw_admission_match_new(mc);
    p->pub.resources = rule_resources(mc);
    p->pub.param_resource = gw_vap_param_resource(cat, doc, &named);
    if (named && p->pub.param_resource == NULL)
        p->pub.config_error = param_kind_error(doc);
    p->pub.params = params_of(s, p->pub.param_resource);
    json_array_foreach(s->bindings, i, b)
    {
        const char *pn =
            json_string_value(json_object_get(json_object_get(b, "spec"), "policyName"));
        if (pn != NULL && strcmp(pn, p->pub.name) == 0)
            add_binding(p, b);
    }
}

static int
by_name(const void *x, const void *y)
{
    return strcmp(((const policy_t *)x)->pub.name, ((const policy_t *)y)->pub.name);
}

static gw_vap_snap_t *
snap_new(const gw_catalog_t *cat, json_t *policies, json_t *bindings, json_t *params,
         const gw_vap_snap_t *prev, bool mutating)
{
    gw_vap_snap_t *s = gw_calloc(1, sizeof(*s));
    size_t i;
    json_t *o;

    atomic_init(&s->refs, 1);
    s->mutating = mutating;
    s->catalog = gw_catalog_ref(cat);
    s->policies = json_is_array(policies) ? json_incref(policies) : json_array();
    s->bindings = json_is_array(bindings) ? json_incref(bindings) : json_array();
    s->params_doc = json_is_object(params) ? json_incref(params) : json_object();
    index_params(s, s->params_doc);
    s->items = gw_calloc(json_array_size(s->policies) + 1, sizeof(*s->items));
    json_array_foreach(s->policies, i, o)
    {
        if (json_is_object(o))
            build_policy(s, &s->items[s->n++], o, cat, prev);
    }
    qsort(s->items, s->n, sizeof(*s->items), by_name);
    return s;
}

gw_vap_snap_t *
gw_vap_snap_new(const gw_catalog_t *cat, json_t *policies, json_t *bindings, json_t *params,
                const gw_vap_snap_t *prev)
{
    return snap_new(cat, policies, bindings, params, prev, false);
}

gw_vap_snap_t *
gw_map_snap_new(const gw_catalog_t *cat, json_t *policies, json_t *bindings, json_t *params,
                const gw_vap_snap_t *prev)
{
    return snap_new(cat, policies, bindings, params, prev, true);
}

gw_vap_snap_t *
gw_vap_snap_ref(gw_vap_snap_t *s)
{
    if (s != NULL)
        atomic_fetch_add(&s->refs, 1);
    return s;
}

static void
policy_clear(policy_t *p)
{
    for (size_t j = 0; j < p->pub.nbindings; j++) {
        gw_admission_match_free(p->pub.bindings[j].match);
        gw_admission_match_free(p->pub.bindings[j].param_sel);
    }
    free(p->pub.bindings);
    gw_admission_match_free(p->pub.constraints);
    json_decref(p->pub.resources);
    free((char *)p->pub.config_error);
    box_unref(p->box);
}

void
gw_vap_snap_unref(gw_vap_snap_t *s)
{
    if (s == NULL || atomic_fetch_sub(&s->refs, 1) != 1)
        return;
    for (size_t i = 0; i < s->n; i++)
        policy_clear(&s->items[i]);
    for (size_t i = 0; i < s->nparams; i++) {
        json_decref(s->params[i].by_key);
        json_decref(s->params[i].all);
    }
    free(s->params);
    free(s->items);
    json_decref(s->policies);
    json_decref(s->bindings);
    json_decref(s->params_doc);
    gw_catalog_unref(s->catalog);
    free(s);
}

void
gw_vap_snap_publish(gw_vap_snap_t *s)
{
    pthread_mutex_lock(&current_mu);
    gw_vap_snap_t **slot = s != NULL && s->mutating ? &current_map : &current;
    gw_vap_snap_t *old = *slot;
    *slot = s;
    pthread_mutex_unlock(&current_mu);
    gw_vap_snap_unref(old);
}

gw_vap_snap_t *
gw_map_snap_current(void)
{
    pthread_mutex_lock(&current_mu);
    gw_vap_snap_t *s = gw_vap_snap_ref(current_map);
    pthread_mutex_unlock(&current_mu);
    return s;
}

gw_vap_snap_t *
gw_vap_snap_current(void)
{
    pthread_mutex_lock(&current_mu);
    gw_vap_snap_t *s = gw_vap_snap_ref(current);
    pthread_mutex_unlock(&current_mu);
    return s;
}

size_t
gw_vap_snap_count(const gw_vap_snap_t *s)
{
    return s != NULL ? s->n : 0;
}

const gw_vap_policy_t *
gw_vap_snap_policy(const gw_vap_snap_t *s, size_t i)
{
    return &s->items[i].pub;
}

size_t
gw_vap_snap_reused(const gw_vap_snap_t *s)
{
    return s->reused;
}

/* ---- params ------------------------------------------------------------------------------- */

static int
params_by_selector(const gw_vap_policy_t *p, const gw_vap_binding_t *b, const char *ns,
                   const gw_catalog_t *cat, json_t *out, char **err)
{
    size_t i;
    json_t *o;
    char msg[512];

    if (p->params == NULL)
        return 0;
    json_array_foreach(p->params->all, i, o)
    {
        gw_admission_request_t rq = {.op = GW_ADMISSION_CREATE,
                                     .subresource = "",
                                     .namespace_ = "",
                                     .name = "",
                                     .object = o,
                                     .resource = {"", "", ""},
                                     .kind = {"", "", ""}};
        int rc;
        if (ns != NULL && strcmp(meta_str(o, "namespace"), ns) != 0)
            continue;
        rc = gw_admission_match(b->param_sel, &rq, NULL, cat, NULL, msg, sizeof(msg));
        if (rc < 0) {
            *err = gw_strdup(msg);
            return -1;
        }
        if (rc == 1)
            json_array_append(out, o);
    }
    return 0;
}

/* The namespace to look params up in, as CollectParams chooses it; NULL for every one. */
static int
params_namespace(const gw_vap_policy_t *p, const gw_vap_binding_t *b, const char *ns,
                 const char **out, char **err)
{
    const char *ref_ns = json_string_value(json_object_get(b->param_ref, "namespace"));

    *out = NULL;
    if (!p->param_resource->namespaced)
        return 0;
    *out = ref_ns != NULL && ref_ns[0] != '\0' ? ref_ns : ns;
    if ((*out)[0] == '\0') {
        *err = gw_strdup("cannot use namespaced paramRef in policy binding that matches "
                         "cluster-scoped resources");
        return -1;
    }
    return 0;
}

/* The params by paramRef name or selector into `out`; -1 with *err for a bad paramRef. */
static int
params_find(const gw_vap_policy_t *p, const gw_vap_binding_t *b, const char *where,
            const gw_catalog_t *cat, json_t *out, char **err)
{
    const char *name = json_string_value(json_object_get(b->param_ref, "name"));

    if (name != NULL && name[0] != '\0') {
        char *key = gw_sprintf("%s/%s", where != NULL ? where : "", name);
        json_t *o = p->params != NULL ? json_object_get(p->params->by_key, key) : NULL;
        free(key);
        if (o != NULL)
            json_array_append(out, o);
        return 0;
    }
    if (b->param_sel != NULL)
        return params_by_selector(p, b, where, cat, out, err);
    *err = gw_strdup("one of name or selector must be provided");
    return -1;
}

int
gw_vap_snap_params(const gw_vap_policy_t *p, const gw_vap_binding_t *b, const char *ns,
                   const gw_catalog_t *cat, json_t **out, char **err)
{
    const char *action =
        json_string_value(json_object_get(b->param_ref, "parameterNotFoundAction"));
    const char *where;

    *out = NULL;
    *err = NULL;
    if (p->param_resource == NULL || b->param_ref == NULL)
        return 0; /* no paramKind, or a binding that does not use it: null params */
    if (params_namespace(p, b, ns, &where, err) != 0)
        return -1;
    if (!p->param_resource->namespaced &&
        json_string_length(json_object_get(b->param_ref, "namespace")) > 0) {
        *err = gw_strdup("paramRef.namespace must not be provided for a cluster-scoped "
                         "`paramKind`");
        return -1;
    }
    *out = json_array();
    if (params_find(p, b, where, cat, *out, err) == 0 && json_array_size(*out) == 0 &&
        action != NULL && strcmp(action, "Deny") == 0)
        *err = gw_strdup("no params found for policy binding with `Deny` parameterNotFoundAction");
    if (*err != NULL) {
        json_decref(*out);
        *out = NULL;
        return -1;
    }
    return 0;
}
