/* The Node authorizer over a hand-built graph: which objects the pods bound to a node reach
 * (volumes, env, imagePullSecrets, claims and their volumes, service accounts), its pods
 * listed through a spec.nodeName field selector, its own Node and Lease, what the static
 * rules grant (events, services, registering a Node, mirror pods), and no opinion for
 * everything and everyone else. */
#include <stdio.h>
#include <string.h>

#include "authz_node.h"
#include "tap.h"

static const char pods_json[] =
    "[{\"metadata\":{\"name\":\"web\",\"namespace\":\"dev\"},"
    " \"spec\":{\"nodeName\":\"n1\",\"serviceAccountName\":\"web-sa\","
    "  \"imagePullSecrets\":[{\"name\":\"pull\"}],"
    "  \"volumes\":[{\"name\":\"v1\",\"secret\":{\"secretName\":\"vol-secret\"}},"
    "   {\"name\":\"v2\",\"configMap\":{\"name\":\"vol-cm\"}},"
    "   {\"name\":\"v3\",\"persistentVolumeClaim\":{\"claimName\":\"data\"}},"
    "   {\"name\":\"v4\",\"projected\":{\"sources\":[{\"secret\":{\"name\":\"proj-secret\"}},"
    "     {\"configMap\":{\"name\":\"proj-cm\"}}]}},"
    "   {\"name\":\"v5\",\"csi\":{\"driver\":\"d\",\"nodePublishSecretRef\":{\"name\":\"csi-s\"}}},"
    "   {\"name\":\"v6\",\"rbd\":{\"secretRef\":{\"name\":\"rbd-s\"}}},"
    "   {\"name\":\"scratch\",\"ephemeral\":{}}],"
    "  \"initContainers\":[{\"name\":\"i\",\"envFrom\":[{\"secretRef\":{\"name\":\"init-env\"}}]}],"
    "  \"containers\":[{\"name\":\"c\",\"env\":[{\"name\":\"A\",\"valueFrom\":"
    "     {\"secretKeyRef\":{\"name\":\"env-secret\",\"key\":\"k\"}}},"
    "    {\"name\":\"B\",\"valueFrom\":{\"configMapKeyRef\":{\"name\":\"env-cm\",\"key\":\"k\"}}}],"
    "   \"envFrom\":[{\"configMapRef\":{\"name\":\"envfrom-cm\"}}]}]}},"
    " {\"metadata\":{\"name\":\"db\",\"namespace\":\"dev\"},"
    "  \"spec\":{\"nodeName\":\"n2\",\"volumes\":[{\"name\":\"s\",\"secret\":"
    "   {\"secretName\":\"db-secret\"}}],\"containers\":[{\"name\":\"c\"}]}},"
    " {\"metadata\":{\"name\":\"pending\",\"namespace\":\"dev\"},"
    "  \"spec\":{\"volumes\":[{\"name\":\"s\",\"secret\":{\"secretName\":\"pending-secret\"}}],"
    "   \"containers\":[{\"name\":\"c\"}]}}]";

static const char claims_json[] =
    "[{\"metadata\":{\"name\":\"data\",\"namespace\":\"dev\"},\"spec\":{\"volumeName\":\"pv-1\"}},"
    " {\"metadata\":{\"name\":\"web-scratch\",\"namespace\":\"dev\"},"
    "  \"spec\":{\"volumeName\":\"pv-2\"}},"
    " {\"metadata\":{\"name\":\"other\",\"namespace\":\"dev\"},\"spec\":{\"volumeName\":\"pv-3\"}}"
    "]";

typedef struct {
    authz_decision_t decision;
    char reason[256];
} result_t;

static void
on_done(authz_decision_t decision, const char *reason, const char *error, void *ctx)
{
    (void)error;
    result_t *r = ctx;
    r->decision = decision;
    snprintf(r->reason, sizeof(r->reason), "%s", reason);
}

static char *nodes_group[] = {(char *)"system:nodes"};
static authn_user_t node1 = {
    .name = (char *)"system:node:n1", .uid = (char *)"", .groups = nodes_group, .n_groups = 1};

/* Ask as `u`: verb, "group/resource[/subresource]", ns, name ("" for none) and a field
 * selector (NULL for none). */
static result_t
ask_sel_as(const authn_user_t *u, const char *verb, const char *res, const char *ns,
           const char *name, const char *field_selector)
{
    char group[64] = "", resource[64], sub[64] = "";
    const char *slash = strchr(res, '/');
    if (slash != NULL && memchr(res, '.', (size_t)(slash - res)) != NULL) { /* a group */
        snprintf(group, sizeof(group), "%.*s", (int)(slash - res), res);
        res = slash + 1;
    }
    snprintf(resource, sizeof(resource), "%s", res);
    char *sl = strchr(resource, '/');
    if (sl != NULL) {
        snprintf(sub, sizeof(sub), "%s", sl + 1);
        *sl = '\0';
    }
    authz_attrs_t a = {.user = u,
                       .verb = verb,
                       .resource_request = true,
                       .api_group = group,
                       .api_version = "v1",
                       .resource = resource,
                       .subresource = sub,
                       .namespace_ = ns,
                       .name = name,
                       .path = "",
                       .field_selector = field_selector};
    result_t r = {.decision = AUTHZ_DENY}; /* the authorizer never denies */
    authz_node_authorizer.authorize(&authz_node_authorizer, &a, on_done, &r);
    return r;
}

static result_t
ask_as(const authn_user_t *u, const char *verb, const char *res, const char *ns, const char *name)
{
    return ask_sel_as(u, verb, res, ns, name, NULL);
}

static result_t
ask(const char *verb, const char *res, const char *ns, const char *name)
{
    return ask_as(&node1, verb, res, ns, name);
}

static void
allows(const char *verb, const char *res, const char *ns, const char *name)
{
    result_t r = ask(verb, res, ns, name);
    tap_ok(r.decision == AUTHZ_ALLOW, "n1 may %s %s %s/%s", verb, res, ns, name);
}

static void
no_opinion(const char *verb, const char *res, const char *ns, const char *name, const char *why)
{
    result_t r = ask(verb, res, ns, name);
    tap_ok(r.decision == AUTHZ_NO_OPINION, "n1: no opinion on %s %s %s/%s", verb, res, ns, name);
    if (why != NULL)
        tap_is_str(r.reason, why, "... with kube's reason");
}

/* A list or watch of pods (name "" unless narrowed to one) with a field selector. */
static void
lists(const char *verb, const char *ns, const char *name, const char *field_selector, bool allowed,
      const char *why)
{
    result_t r = ask_sel_as(&node1, verb, "pods", ns, name, field_selector);
    tap_ok(r.decision == (allowed ? AUTHZ_ALLOW : AUTHZ_NO_OPINION), "n1 %s %s pods %s/%s, %s",
           allowed ? "may" : "may not", verb, ns, name,
           field_selector != NULL ? field_selector : "no selector");
    if (why != NULL)
        tap_is_str(r.reason, why, "... with kube's reason");
}

static void
test_pod_selectors(void)
{
    const char *need = "can only list/watch pods with spec.nodeName field selector";
    const char *unrelated = "no relationship found between node 'n1' and this object";

    lists("list", "", "", "spec.nodeName=n1", true, NULL);
    lists("watch", "", "", "spec.nodeName==n1", true, NULL);
    lists("list", "dev", "", "metadata.namespace=dev,spec.nodeName=n1", true, NULL);
    lists("watch", "", "", "spec.nodeName=n1,status.phase!=Failed", true, NULL);
    lists("list", "", "", NULL, false, need);
    lists("list", "", "", "", false, need);
    lists("list", "", "", "spec.nodeName!=n1", false, need);
    lists("list", "", "", "spec.nodeName=n2", false, need);
    lists("watch", "", "", "spec.nodeName=n1x", false, need);
    lists("list", "", "", "spec.nodeName", false, need);
    lists("list", "", "", "spec.nodeName=n1=x", false, need);
    lists("list", "", "", "status.nodeName=n1", false, need);
    lists("deletecollection", "", "", "spec.nodeName=n1", false, "");
    /* narrowed to one pod by metadata.name: read as a get of that pod */
    lists("list", "dev", "web", "metadata.name=web", true, NULL);
    lists("watch", "dev", "db", "metadata.name=db", false, unrelated);
    lists("watch", "dev", "db", "metadata.name=db,spec.nodeName=n1", true, NULL);
    no_opinion("get", "pods/log", "dev", "web", "");
}

static void
test_graph_reads(void)
{
    static const char *const secrets[] = {"pull",  "vol-secret", "proj-secret", "csi-s",
                                          "rbd-s", "env-secret", "init-env"};
    static const char *const cms[] = {"vol-cm", "proj-cm", "env-cm", "envfrom-cm"};
    for (size_t i = 0; i < sizeof(secrets) / sizeof(secrets[0]); i++)
        allows("get", "secrets", "dev", secrets[i]);
    for (size_t i = 0; i < sizeof(cms) / sizeof(cms[0]); i++)
        allows("get", "configmaps", "dev", cms[i]);
    allows("watch", "secrets", "dev", "vol-secret");
    allows("get", "pods", "dev", "web");
    allows("update", "pods/status", "dev", "web");
    allows("get", "persistentvolumeclaims", "dev", "data");
    allows("get", "persistentvolumeclaims", "dev", "web-scratch");
    allows("get", "persistentvolumes", "", "pv-1");
    allows("get", "persistentvolumes", "", "pv-2");
    allows("create", "serviceaccounts/token", "dev", "web-sa");

    const char *unrelated = "no relationship found between node 'n1' and this object";
    no_opinion("get", "secrets", "dev", "db-secret", unrelated);
    no_opinion("get", "secrets", "dev", "pending-secret", unrelated);
    no_opinion("get", "secrets", "other", "vol-secret", unrelated);
    no_opinion("get", "pods", "dev", "db", unrelated);
    no_opinion("patch", "pods/status", "dev", "db", unrelated);
    no_opinion("get", "persistentvolumes", "", "pv-3", unrelated);
    no_opinion("create", "serviceaccounts/token", "dev", "default", unrelated);
    no_opinion("list", "secrets", "dev", "", "No Object name found");
    no_opinion("update", "secrets", "dev", "vol-secret", "can only read resources of this type");
    no_opinion("list", "persistentvolumeclaims", "dev", "data",
               "can only get individual resources of this type");
    no_opinion("get", "serviceaccounts", "dev", "web-sa",
               "can only create tokens for individual service accounts");
    no_opinion("delete", "pods", "dev", "web", "");
}

static void
test_own_objects(void)
{
    allows("get", "nodes", "", "n1");
    allows("list", "nodes", "", "n1");
    allows("watch", "nodes", "", "n1");
    allows("patch", "nodes/status", "", "n1");
    allows("update", "nodes", "", "n1");
    no_opinion("list", "nodes", "", "",
               "node 'n1' cannot read all nodes, only its own Node object");
    no_opinion("watch", "nodes", "", "",
               "node 'n1' cannot read all nodes, only its own Node object");
    no_opinion("get", "nodes", "", "n2", "node 'n1' cannot read 'n2', only its own Node object");
    no_opinion("list", "nodes", "", "n2", "node 'n1' cannot read 'n2', only its own Node object");
    no_opinion("get", "nodes/proxy", "", "n1", "");
    no_opinion("patch", "nodes/status", "", "n2", "node 'n1' can only modify its own Node object");
    allows("delete", "nodes", "", "n1");
    no_opinion("delete", "nodes", "", "n2", "node 'n1' can only modify its own Node object");
    allows("create", "coordination.k8s.io/leases", "kube-node-lease", "");
    allows("update", "coordination.k8s.io/leases", "kube-node-lease", "n1");
    allows("delete", "coordination.k8s.io/leases", "kube-node-lease", "n1");
    no_opinion("update", "coordination.k8s.io/leases", "kube-node-lease", "n2",
               "can only access node lease with the same name as the requesting node");
    no_opinion("get", "coordination.k8s.io/leases", "default", "n1",
               "can only access leases in the kube-node-lease namespace");
    no_opinion("list", "coordination.k8s.io/leases", "kube-node-lease", "",
               "can only get, create, update, patch, or delete a node lease");
}

/* A part of kube's NodeRules, as the bootstrap policy's system:node ClusterRole holds them. */
static const char static_rules_json[] =
    "[{\"apiGroups\":[\"\"],\"resources\":[\"services\"],\"verbs\":[\"get\",\"list\",\"watch\"]},"
    " {\"apiGroups\":[\"\"],\"resources\":[\"nodes\"],\"verbs\":[\"create\",\"get\",\"list\","
    "\"watch\"]},"
    " {\"apiGroups\":[\"\"],\"resources\":[\"nodes\"],\"verbs\":[\"delete\",\"patch\",\"update\"]},"
    " {\"apiGroups\":[\"\"],\"resources\":[\"nodes/status\"],\"verbs\":[\"patch\",\"update\"]},"
    " {\"apiGroups\":[\"\"],\"resources\":[\"events\"],\"verbs\":[\"create\",\"update\",\"patch\"]}"
    ","
    " {\"apiGroups\":[\"events.k8s.io\"],\"resources\":[\"events\"],"
    "  \"verbs\":[\"create\",\"update\",\"patch\"]},"
    " {\"apiGroups\":[\"\"],\"resources\":[\"pods\"],\"verbs\":[\"get\",\"list\",\"watch\"]},"
    " {\"apiGroups\":[\"\"],\"resources\":[\"pods\"],\"verbs\":[\"create\",\"delete\"]},"
    " {\"apiGroups\":[\"\"],\"resources\":[\"pods/eviction\"],\"verbs\":[\"create\"]}]";

static void
use_static_rules(void)
{
    no_opinion("create", "events", "dev", "", "");
    no_opinion("update", "nodes", "", "n1", "");
    tap_diag("(before the static rules are set, nothing beyond the graph's, own Node included)");
    json_t *rules = json_loads(static_rules_json, 0, NULL);
    authz_node_use_rules(rules);
    json_decref(rules);
}

static void
test_static_rules(void)
{
    allows("create", "events", "dev", "");
    allows("patch", "events.k8s.io/events", "dev", "e");
    no_opinion("delete", "events", "dev", "e", "");
    allows("get", "services", "dev", "s");
    allows("create", "nodes", "", "");
    allows("create", "pods", "dev", "");
    allows("delete", "pods", "dev", "static-web-n1");
    allows("create", "pods/eviction", "dev", "web");
    no_opinion("get", "secrets", "dev", "unrelated",
               "no relationship found between node 'n1' and this object");
    no_opinion("list", "pods", "", "",
               "can only list/watch pods with spec.nodeName field selector");
    no_opinion("get", "nodes", "", "n2", "node 'n1' cannot read 'n2', only its own Node object");
    no_opinion("get", "configmaps", "dev", "x",
               "no relationship found between node 'n1' and this "
               "object");
    authz_node_use_rules(NULL);
    no_opinion("get", "services", "dev", "s", "");
}

static void
test_other_users(void)
{
    char *groups[] = {(char *)"system:authenticated"};
    authn_user_t not_in_group = {
        .name = (char *)"system:node:n1", .uid = (char *)"", .groups = groups, .n_groups = 1};
    authn_user_t alice = {
        .name = (char *)"alice", .uid = (char *)"", .groups = nodes_group, .n_groups = 1};
    authn_user_t nameless = {
        .name = (char *)"system:node:", .uid = (char *)"", .groups = nodes_group, .n_groups = 1};
    result_t r = ask_as(&not_in_group, "get", "nodes", "", "n1");
    tap_ok(r.decision == AUTHZ_NO_OPINION && *r.reason == '\0',
           "a node name outside system:nodes: no opinion");
    r = ask_as(&alice, "get", "secrets", "dev", "vol-secret");
    tap_ok(r.decision == AUTHZ_NO_OPINION, "system:nodes without a node name: no opinion");
    r = ask_as(&nameless, "get", "nodes", "", "");
    tap_ok(r.decision == AUTHZ_NO_OPINION, "system:node: alone: no opinion");
    tap_is_str(r.reason, "unknown node for user \"system:node:\"", "... unknown node");
}

int
main(void)
{
    no_opinion("get", "secrets", "dev", "vol-secret",
               "no relationship found between node 'n1' and this object");
    tap_diag("(before any graph is published, nothing is related)");

    json_t *pods = json_loads(pods_json, 0, NULL);
    json_t *claims = json_loads(claims_json, 0, NULL);
    tap_ok(pods != NULL && claims != NULL, "fixtures parse");
    authz_node_publish(authz_node_graph_new(pods, claims));
    json_decref(pods);
    json_decref(claims);

    test_graph_reads();
    test_pod_selectors();
    use_static_rules();
    test_own_objects();
    test_static_rules();
    test_other_users();

    authz_node_publish(authz_node_graph_new(NULL, NULL));
    no_opinion("get", "secrets", "dev", "vol-secret",
               "no relationship found between node 'n1' and this object");
    tap_diag("(a new, empty graph replaces the old one)");
    authz_node_publish(NULL);
    return tap_done();
}
