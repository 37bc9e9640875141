/* The embedded bootstrap policy: well-formed objects, bindings to roles that exist, and the
 * aggregation of view into edit into admin settling as kube's controller leaves them. */
#include <string.h>

#include "authz_rbac.h"
#include "gw_rbac_aggregate.h"
#include "gw_rbac_bootstrap.h"
#include "tap.h"

static const char *
meta(const json_t *o, const char *member)
{
    const char *v = json_string_value(json_object_get(json_object_get(o, "metadata"), member));
    return v != NULL ? v : "";
}

static const json_t *
find(const json_t *objs, const char *kind, const char *ns, const char *name)
{
    size_t i;
    json_t *o;

    json_array_foreach(objs, i, o)
    {
        if (strcmp(json_string_value(json_object_get(o, "kind")), kind) == 0 &&
            strcmp(meta(o, "namespace"), ns) == 0 && strcmp(meta(o, "name"), name) == 0)
            return o;
    }
    return NULL;
}

static void
test_objects(const json_t *objs)
{
    size_t i, bad_meta = 0, dangling = 0;
    json_t *o;

    tap_ok(json_array_size(objs) > 60, "the policy has its objects (%zu)", json_array_size(objs));
    json_array_foreach(objs, i, o)
    {
        const json_t *labels = json_object_get(json_object_get(o, "metadata"), "labels");
        const json_t *ann = json_object_get(json_object_get(o, "metadata"), "annotations");
        const json_t *ref = json_object_get(o, "roleRef");
        const char *v = json_string_value(json_object_get(labels, "kubernetes.io/bootstrapping"));
        const char *au =
            json_string_value(json_object_get(ann, "rbac.authorization.kubernetes.io/autoupdate"));
        if (v == NULL || strcmp(v, "rbac-defaults") != 0 || au == NULL || strcmp(au, "true") != 0)
            bad_meta++;
        if (ref != NULL &&
            find(objs, json_string_value(json_object_get(ref, "kind")), meta(o, "namespace"),
                 json_string_value(json_object_get(ref, "name"))) == NULL)
            dangling++;
    }
    tap_is_int((long)bad_meta, 0, "every object is labelled rbac-defaults and autoupdate");
    tap_is_int((long)dangling, 0, "every binding names a role of the policy");
    const json_t *crb = find(objs, "ClusterRoleBinding", "", "cluster-admin");
    tap_ok(crb != NULL && strcmp(json_string_value(json_object_get(
                                     json_array_get(json_object_get(crb, "subjects"), 0), "name")),
                                 "system:masters") == 0,
           "cluster-admin is bound to system:masters");
    tap_ok(find(objs, "Role", "kube-system", "system:controller:token-cleaner") != NULL,
           "token-cleaner is a Role of kube-system");
}

/* Aggregate the ClusterRoles of objs until nothing changes, as the controller's passes do. */
static json_t *
aggregated(const json_t *objs)
{
    json_t *roles = json_array();
    size_t i;
    json_t *o;
    bool changed = true;

    json_array_foreach(objs, i, o)
    {
        if (strcmp(json_string_value(json_object_get(o, "kind")), "ClusterRole") == 0)
            json_array_append_new(roles, json_deep_copy(o));
    }
    for (int pass = 0; changed && pass < 10; pass++) {
        changed = false;
        json_array_foreach(roles, i, o)
        {
            json_t *rules = gw_rbac_aggregate_rules(o, roles);
            if (rules != NULL && !json_equal(rules, json_object_get(o, "rules"))) {
                json_object_set(o, "rules", rules);
                changed = true;
            }
            json_decref(rules);
        }
    }
    return roles;
}

static const json_t *
rules_of(const json_t *roles, const char *name)
{
    return json_object_get(find(roles, "ClusterRole", "", name), "rules");
}

static void
test_aggregation(const json_t *objs)
{
    json_t *roles = aggregated(objs);
    const json_t *view = rules_of(roles, "view"), *edit = rules_of(roles, "edit");
    const json_t *admin = rules_of(roles, "admin");
    size_t i;
    json_t *r;
    bool in_edit = true, in_admin = true;

    tap_ok(json_array_size(view) > 0, "view gets the aggregate-to-view rules");
    json_array_foreach(view, i, r)
    {
        in_edit = in_edit && authz_rbac_rules_cover(edit, r);
    }
    json_array_foreach(edit, i, r)
    {
        in_admin = in_admin && authz_rbac_rules_cover(admin, r);
    }
    tap_ok(in_edit, "edit holds everything view does");
    tap_ok(in_admin, "admin holds everything edit does");
    tap_ok(json_array_size(admin) > json_array_size(edit), "admin holds more");
    tap_ok(gw_rbac_aggregate_rules(find(roles, "ClusterRole", "", "cluster-admin"), roles) == NULL,
           "a role without aggregationRule is not aggregated");
    json_decref(roles);
}

int
main(void)
{
    json_t *objs = gw_rbac_bootstrap_objects();

    test_objects(objs);
    test_aggregation(objs);
    json_decref(objs);
    return tap_done();
}
