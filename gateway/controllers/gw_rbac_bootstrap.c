/* The bootstrap RBAC policy: expanded from the embedded data, and reconciled into etcd. */
#include "gw_rbac_bootstrap.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "authz_rbac.h"
#include "gw_alloc.h"
#include "gw_ctl_int.h"
#include "gw_err.h"
#include "gw_uuid.h"
#include "gw_log.h"

#define RBAC_API "rbac.authorization.k8s.io"
#define AUTOUPDATE "rbac.authorization.kubernetes.io/autoupdate"
#define MAX_ATTEMPTS 5
/* A mutate that finds nothing to change gives up with this code, read as success. */
#define UNCHANGED GW_EEXIST

/* gw_rbac_blob.S: rbac_bootstrap.json's bytes, then a NUL. */
extern const char gw_rbac_blob_start[];

/* The entry's metadata: name, namespace (namespaced kinds), the bootstrap label and any of
 * the entry's own labels, the autoupdate annotation. */
static json_t *
metadata(const json_t *e)
{
    json_t *labels = json_pack("{s:s}", "kubernetes.io/bootstrapping", "rbac-defaults");
    json_t *meta = json_pack("{s:O}", "name", json_object_get(e, "name"));

    json_object_update(labels, json_object_get(e, "labels"));
    if (json_object_get(e, "namespace") != NULL)
        json_object_set(meta, "namespace", json_object_get(e, "namespace"));
    json_object_set_new(meta, "labels", labels);
    json_object_set_new(meta, "annotations", json_pack("{s:s}", AUTOUPDATE, "true"));
    return meta;
}

/* A ClusterRole or Role. */
static json_t *
role(const json_t *e, const char *kind)
{
    json_t *o = json_pack("{s:s,s:s,s:o}", "apiVersion", RBAC_API "/v1", "kind", kind, "metadata",
                          metadata(e));
    json_t *agg = json_object_get(e, "aggregationRule");
    json_t *rules = json_object_get(e, "rules");

    if (agg != NULL)
        json_object_set(o, "aggregationRule", agg);
    json_object_set_new(o, "rules", json_is_array(rules) ? json_deep_copy(rules) : json_array());
    return o;
}

/* Users and groups carry RBAC's API group; service accounts the core one (none), as kube's
 * v1 defaulting leaves them. */
static json_t *
subjects(const json_t *list)
{
    json_t *out = json_deep_copy(list);
    size_t i;
    json_t *s;

    json_array_foreach(out, i, s)
    {
        const char *kind = json_string_value(json_object_get(s, "kind"));
        if (kind != NULL && strcmp(kind, "ServiceAccount") != 0)
            json_object_set_new(s, "apiGroup", json_string(RBAC_API));
    }
    return out;
}

/* A ClusterRoleBinding (to a ClusterRole) or a RoleBinding (to a Role of its namespace). */
static json_t *
binding(const json_t *e, const char *kind, const char *role_kind)
{
    return json_pack("{s:s,s:s,s:o,s:{s:s,s:s,s:O},s:o}", "apiVersion", RBAC_API "/v1", "kind",
                     kind, "metadata", metadata(e), "roleRef", "apiGroup", RBAC_API, "kind",
                     role_kind, "name", json_object_get(e, "role"), "subjects",
                     subjects(json_object_get(e, "subjects")));
}

json_t *
gw_rbac_bootstrap_objects(void)
{
    json_t *policy = json_loads(gw_rbac_blob_start, 0, NULL), *out = json_array();
    size_t i;
    json_t *e;

    if (policy == NULL)
        abort(); /* the embedded data is checked by the tests */
    json_array_foreach(json_object_get(policy, "clusterRoles"), i, e)
    {
        json_array_append_new(out, role(e, "ClusterRole"));
    }
    json_array_foreach(json_object_get(policy, "clusterRoleBindings"), i, e)
    {
        json_array_append_new(out, binding(e, "ClusterRoleBinding", "ClusterRole"));
    }
    json_array_foreach(json_object_get(policy, "roles"), i, e)
    {
        json_array_append_new(out, role(e, "Role"));
    }
    json_array_foreach(json_object_get(policy, "roleBindings"), i, e)
    {
        json_array_append_new(out, binding(e, "RoleBinding", "Role"));
    }
    json_decref(policy);
    return out;
}

/* ---- reconciling one object ------------------------------------------------------------- */

/* Add the members of `want` that `have` (created when missing) lacks; whether any was. */
static bool
merge_map(json_t *meta, const char *member, const json_t *want)
{
    json_t *have = gw_json_child(meta, member);
    const char *k;
    json_t *v;
    bool changed = false;

    json_object_foreach((json_t *)want, k, v)
    {
        if (json_object_get(have, k) == NULL) {
            json_object_set(have, k, v);
            changed = true;
        }
    }
    return changed;
}

/* Append to the array o.<member> each entry of `want` that keep() says is missing. */
static bool
add_missing(json_t *o, const char *member, const json_t *want,
            bool (*present)(const json_t *have, const json_t *entry))
{
    json_t *have = json_object_get(o, member);
    size_t i;
    json_t *e;
    bool changed = false;

    if (!json_is_array(have)) {
        have = json_array();
        json_object_set_new(o, member, have);
    }
    json_array_foreach(want, i, e)
    {
        if (!present(have, e)) {
            json_array_append(have, e);
            changed = true;
        }
    }
    return changed;
}

static bool
has_equal(const json_t *have, const json_t *entry)
{
    size_t i;
    json_t *v;

    json_array_foreach(have, i, v)
    {
        if (json_equal(v, entry))
            return true;
    }
    return false;
}

static bool
rule_held(const json_t *have, const json_t *rule)
{
    return authz_rbac_rules_cover(have, rule);
}

/* kube's computeReconciledRole / computeReconciledRoleBinding, without removals. */
static bool
reconcile(json_t *o, const json_t *want)
{
    const json_t *wmeta = json_object_get(want, "metadata");
    json_t *meta = gw_json_child(o, "metadata");
    bool changed = merge_map(meta, "labels", json_object_get(wmeta, "labels"));
    const json_t *agg = json_object_get(want, "aggregationRule");

    changed |= merge_map(meta, "annotations", json_object_get(wmeta, "annotations"));
    if (json_object_get(want, "roleRef") != NULL)
        return add_missing(o, "subjects", json_object_get(want, "subjects"), has_equal) || changed;
    if (agg != NULL)
        return add_missing(gw_json_child(o, "aggregationRule"), "clusterRoleSelectors",
                           json_object_get(agg, "clusterRoleSelectors"), has_equal) ||
               changed;
    return add_missing(o, "rules", json_object_get(want, "rules"), rule_held) || changed;
}

static bool
is_protected(const json_t *o)
{
    const char *v = json_string_value(json_object_get(
        json_object_get(json_object_get(o, "metadata"), "annotations"), AUTOUPDATE));
    return v != NULL && strcmp(v, "false") == 0;
}

/* ---- the reconciliation, one object after another ------------------------------------------ */

typedef struct {
    gw_store_t *store;
    json_t *objs;
    size_t at;
    int err;
    gw_rbac_bootstrap_done_fn done;
    void *arg;
} boot_t;

static void step(boot_t *b);

static void
mutate(gw_store_update_t *u, const gw_obj_t *cur, void *ctx)
{
    boot_t *b = ctx;
    const json_t *want = json_array_get(b->objs, b->at);
    json_t *o = cur != NULL ? gw_ctl__parse(cur) : json_deep_copy(want);
    size_t len;

    if (o == NULL) {
        gw_store_update_abort(u, GW_EINTERNAL);
        return;
    }
    if (cur == NULL) {
        char uid[GW_UUID_LEN + 1], now[32];
        gw_uuid_v4(uid);
        gw_time_now(now);
        json_object_set_new(gw_json_child(o, "metadata"), "uid", json_string(uid));
        json_object_set_new(gw_json_child(o, "metadata"), "creationTimestamp", json_string(now));
    } else if (is_protected(o) || !reconcile(o, want)) {
        json_decref(o);
        gw_store_update_abort(u, UNCHANGED);
        return;
    }
    uint8_t *bytes = gw_ctl__dump(o, &len);
    json_decref(o);
    gw_store_update_commit(u, bytes, len);
}

static void
written(int err, const gw_obj_t *obj, void *ctx)
{
    boot_t *b = ctx;
    const char *key = obj != NULL ? obj->key : "?";

    if (err == GW_ECANCELED) {
        b->err = err;
        b->at = json_array_size(b->objs);
    } else if (err == 0) {
        gw_log_info(NULL, "rbac bootstrap: reconciled %s", key);
    } else if (err != UNCHANGED) {
        gw_log_warn(NULL, "rbac bootstrap: object %zu: %s", b->at, gw_strerror(err));
        if (b->err == 0)
            b->err = err;
    }
    b->at++;
    step(b);
}

/* "clusterroles/<name>", "roles/<ns>/<name>", ...: the kind's resource, lowercased. */
static char *
object_key(const json_t *o)
{
    const char *kind = json_string_value(json_object_get(o, "kind"));
    const json_t *meta = json_object_get(o, "metadata");
    const char *ns = json_string_value(json_object_get(meta, "namespace"));
    char *lower = gw_strdup(kind), *path, *key;

    for (char *c = lower; *c != '\0'; c++)
        *c = (char)tolower((unsigned char)*c);
    path = gw_sprintf("%ss", lower);
    key = gw_store_object_key(path, ns, json_string_value(json_object_get(meta, "name")));
    free(path);
    free(lower);
    return key;
}

static void
step(boot_t *b)
{
    if (b->at >= json_array_size(b->objs)) {
        b->done(b->err, b->arg);
        json_decref(b->objs);
        free(b);
        return;
    }
    char *key = object_key(json_array_get(b->objs, b->at));
    int rc = gw_store_guaranteed_update(b->store, key, MAX_ATTEMPTS, mutate, written, b);
    free(key);
    if (rc != 0)
        written(rc, NULL, b);
}

void
gw_rbac_bootstrap_reconcile(gw_store_t *store, gw_rbac_bootstrap_done_fn done, void *arg)
{
    boot_t *b = gw_calloc(1, sizeof(*b));

    *b = (boot_t){.store = store, .objs = gw_rbac_bootstrap_objects(), .done = done, .arg = arg};
    step(b);
}
