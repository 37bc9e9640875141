/* The garbage collector's graph: what it asks the workers to do as objects come, change and
 * go (kube's graph builder), and the decisions over classified references (kube's
 * attemptToDeleteItem), without etcd. */
#include "gw_gc_graph.h"

#include <stdlib.h>
#include <string.h>

#include "tap.h"

static json_t *calls; /* what the sink was asked, in order */

static void
on_delete(const gw_gc_node_t *n, void *ctx)
{
    (void)ctx;
    json_array_append_new(calls, json_sprintf("delete %s", n->uid));
}

static void
on_orphan(const gw_gc_node_t *n, void *ctx)
{
    (void)ctx;
    json_array_append_new(calls, json_sprintf("orphan %s", n->uid));
}

static void
on_invalid(const gw_gc_node_t *dep, const gw_gc_ref_t *owner, void *ctx)
{
    (void)ctx;
    json_array_append_new(calls, json_sprintf("invalid %s %s", dep->uid, owner->uid));
}

/* The calls since the last look, joined by ", ". */
static char *
taken(void)
{
    size_t len = 1, i;
    json_t *c;
    json_array_foreach(calls, i, c) len += strlen(json_string_value(c)) + 2;
    char *out = calloc(1, len);
    json_array_foreach(calls, i, c)
    {
        if (i > 0)
            strcat(out, ", ");
        strcat(out, json_string_value(c));
    }
    json_array_clear(calls);
    return out;
}

static void
calls_are(const char *want, const char *name)
{
    char *got = taken();
    tap_is_str(got, want, name);
    free(got);
}

/* An object: uid, namespace, kind; owners "uid:kind:name[:block]" space-separated; flags
 * "d" (deletionTimestamp), "o" (orphan), "f" (foregroundDeletion). */
static void
see(gw_gc_graph_t *g, const char *key, const char *uid, const char *ns, const char *kind,
    const char *owners, const char *flags, int64_t gen)
{
    json_t *refs = json_array(), *fins = json_array();
    char *copy = strdup(owners), *save = NULL;
    for (char *t = strtok_r(copy, " ", &save); t != NULL; t = strtok_r(NULL, " ", &save)) {
        char *u = strtok(t, ":"), *k = strtok(NULL, ":"), *nm = strtok(NULL, ":");
        char *b = strtok(NULL, ":");
        json_array_append_new(refs,
                              json_pack("{s:s,s:s,s:s,s:s,s:b}", "apiVersion", "v1", "kind", k,
                                        "name", nm, "uid", u, "blockOwnerDeletion", b != NULL));
    }
    free(copy);
    if (strchr(flags, 'o'))
        json_array_append_new(fins, json_string("orphan"));
    if (strchr(flags, 'f'))
        json_array_append_new(fins, json_string("foregroundDeletion"));
    json_t *o = json_pack("{s:s,s:s,s:{s:s,s:s,s:s,s:o,s:o}}", "apiVersion", "v1", "kind", kind,
                          "metadata", "name", strrchr(key, '/') + 1, "namespace", ns, "uid", uid,
                          "ownerReferences", refs, "finalizers", fins);
    if (strchr(flags, 'd'))
        json_object_set_new(json_object_get(o, "metadata"), "deletionTimestamp",
                            json_string("2024-01-01T00:00:00Z"));
    gw_gc_meta_t m;
    if (gw_gc_meta_parse(o, &m)) {
        gw_gc_graph_observe(g, key, &m, gen);
        gw_gc_meta_clear(&m);
    }
    json_decref(o);
}

static gw_gc_graph_t *
graph(void)
{
    gw_gc_sink_t sink = {
        .attempt_delete = on_delete, .attempt_orphan = on_orphan, .invalid_namespace = on_invalid};
    return gw_gc_graph_new(&sink);
}

static void
test_owner_lifecycle(void)
{
    gw_gc_graph_t *g = graph();

    see(g, "pods/ns/p", "P", "ns", "Pod", "R:ReplicaSet:rs:b", "", 1);
    calls_are("delete R", "an owner not seen yet becomes a virtual node to verify");
    gw_gc_node_t *r = gw_gc_graph_get(g, "R");
    tap_ok(r != NULL && r->key == NULL && r->n_deps == 1, "virtual, with the pod as dependent");
    see(g, "replicasets/ns/rs", "R", "ns", "ReplicaSet", "", "", 1);
    calls_are("", "observed where the pod said: nothing to verify");
    tap_is_str(gw_gc_graph_get(g, "R")->key, "replicasets/ns/rs", "the node is observed");
    size_t n = 0;
    gw_gc_node_t **b = gw_gc_blocking_dependents(gw_gc_graph_get(g, "R"), &n);
    tap_is_int(n, 1, "the pod blocks its deletion");
    free(b);

    see(g, "replicasets/ns/rs", "R", "ns", "ReplicaSet", "", "df", 1);
    calls_are("delete P, delete R", "foreground: its dependents, then itself");
    tap_ok(gw_gc_graph_get(g, "R")->deleting_deps, "waits for its dependents");
    see(g, "replicasets/ns/rs", "R", "ns", "ReplicaSet", "", "df", 1);
    calls_are("", "the same state again: no transition");

    see(g, "pods/ns/p", "P", "ns", "Pod", "R:ReplicaSet:rs", "", 1);
    calls_are("delete R", "a blocking reference turned non-blocking attempts the owner");
    b = gw_gc_blocking_dependents(gw_gc_graph_get(g, "R"), &n);
    tap_is_int(n, 0, "nothing blocks it any more");
    free(b);

    gw_gc_graph_remove_key(g, "pods/ns/p");
    calls_are("delete R", "a dependent gone attempts an owner waiting for its dependents");
    gw_gc_graph_remove_key(g, "replicasets/ns/rs");
    calls_are("", "the owner gone, no dependents left");
    tap_is_int(gw_gc_graph_count(g), 0, "the graph is empty");
    gw_gc_graph_free(g);
}

static void
test_owner_gone(void)
{
    gw_gc_graph_t *g = graph();

    see(g, "deployments/ns/d", "D", "ns", "Deployment", "", "", 1);
    see(g, "replicasets/ns/a", "A", "ns", "ReplicaSet", "D:Deployment:d:b", "", 1);
    see(g, "replicasets/ns/b", "B", "ns", "ReplicaSet", "D:Deployment:d", "", 1);
    calls_are("", "owner seen first: nothing to verify");
    gw_gc_graph_remove_key(g, "deployments/ns/d");
    char *got = taken();
    tap_ok(strcmp(got, "delete A, delete B") == 0 || strcmp(got, "delete B, delete A") == 0,
           "the owner gone attempts every dependent (%s)", got);
    free(got);

    see(g, "configmaps/ns/c", "C", "ns", "ConfigMap", "X:ConfigMap:x", "", 1);
    calls_are("delete X", "a dangling owner uid: its virtual node is verified");
    gw_gc_graph_virtual_delete(g, "X");
    calls_are("delete C", "confirmed absent: the dependent is attempted");
    tap_ok(gw_gc_graph_get(g, "X") == NULL, "and the virtual node is gone");
    gw_gc_graph_virtual_delete(g, "C");
    tap_ok(gw_gc_graph_get(g, "C") != NULL, "a virtual delete leaves an observed node alone");

    see(g, "configmaps/ns/c", "C", "ns", "ConfigMap", "", "", 2);
    see(g, "replicasets/ns/a", "A", "ns", "ReplicaSet", "", "", 2);
    gw_gc_graph_sweep(g, 2);
    tap_ok(gw_gc_graph_get(g, "B") == NULL && gw_gc_graph_get(g, "A") != NULL,
           "a relist sweeps what it did not see");
    see(g, "configmaps/ns/c", "C2", "ns", "ConfigMap", "", "", 3);
    see(g, "replicasets/ns/a", "A", "ns", "ReplicaSet", "", "", 3);
    gw_gc_graph_sweep(g, 3);
    tap_ok(gw_gc_graph_get(g, "C") == NULL && gw_gc_graph_get(g, "C2") != NULL &&
               gw_gc_graph_by_key(g, "configmaps/ns/c") == gw_gc_graph_get(g, "C2"),
           "a key holding another object after a relist: the old one goes, the new one stays");
    json_array_clear(calls);
    gw_gc_graph_free(g);
}

static void
test_orphan_and_namespaces(void)
{
    gw_gc_graph_t *g = graph();

    see(g, "configmaps/a/o", "O", "a", "ConfigMap", "", "", 1);
    see(g, "secrets/b/s", "S", "b", "Secret", "O:ConfigMap:o", "", 1);
    calls_are("invalid S O, delete S", "an owner observed in another namespace: reported");
    see(g, "clusterroles/r", "CR", "", "ClusterRole", "O:ConfigMap:o", "", 1);
    calls_are("invalid CR O, delete CR", "a cluster-scoped dependent of a namespaced owner");

    see(g, "clusterroles/q", "CQ", "", "ClusterRole", "V:ConfigMap:v", "", 1);
    calls_are("delete V", "virtual owner in the dependent's (no) namespace");
    see(g, "configmaps/c/v", "V", "c", "ConfigMap", "", "", 1);
    calls_are("invalid CQ V, delete CQ", "observed later in a namespace: reported then");

    see(g, "configmaps/a/o", "O", "a", "ConfigMap", "", "do", 1);
    calls_are("orphan O", "deleted with the orphan finalizer: orphaning");
    see(g, "configmaps/a/o", "O", "a", "ConfigMap", "", "do", 1);
    calls_are("", "once");
    gw_gc_graph_free(g);
}

static gw_gc_class_t
cl(char c)
{
    return c == 's' ? GW_GC_SOLID : c == 'd' ? GW_GC_DANGLING : GW_GC_WAITING;
}

static gw_gc_action_t
decide(const char *classes, const gw_gc_node_t *item)
{
    gw_gc_class_t cls[8];
    size_t n = strlen(classes);
    for (size_t i = 0; i < n; i++)
        cls[i] = cl(classes[i]);
    return gw_gc_decide(item, cls, n);
}

static void
test_decisions(void)
{
    gw_gc_node_t leaf = {.n_deps = 0}, dep = {.deleting_deps = false};
    gw_gc_node_t *deps[1] = {&dep};
    gw_gc_node_t mid = {.deps = deps, .n_deps = 1};

    tap_is_int(decide("s", &leaf), GW_GC_KEEP, "a solid owner: kept");
    tap_is_int(decide("sd", &leaf), GW_GC_REMOVE_REFS, "solid and dangling: the dangling ref goes");
    tap_is_int(decide("ws", &leaf), GW_GC_REMOVE_REFS, "solid and waiting: the waiting ref goes");
    tap_is_int(decide("d", &leaf), GW_GC_DELETE, "only dangling: deleted");
    tap_is_int(decide("dd", &leaf), GW_GC_DELETE, "two dangling: deleted");
    tap_is_int(decide("w", &leaf), GW_GC_DELETE, "waiting owner, no dependents: deleted");
    tap_is_int(decide("w", &mid), GW_GC_DELETE_FOREGROUND, "waiting owner, dependents: foreground");
    dep.deleting_deps = true;
    tap_is_int(decide("wd", &mid), GW_GC_UNBLOCK_FOREGROUND,
               "a dependent deleting its own: unblock first (kube's cycle guard)");

    json_t *o = json_pack("{s:{s:[s,s]}}", "metadata", "finalizers", "x", "orphan");
    tap_is_int(gw_gc_delete_policy(o), GW_GC_ORPHAN, "orphan finalizer: orphan policy");
    gw_gc_policy_finalizers(o, GW_GC_FOREGROUND);
    char *s = json_dumps(o, JSON_COMPACT);
    tap_is_str(s, "{\"metadata\":{\"finalizers\":[\"x\",\"foregroundDeletion\"]}}",
               "foreground: orphan replaced, others kept");
    free(s);
    tap_is_int(gw_gc_delete_policy(o), GW_GC_FOREGROUND, "foreground finalizer: foreground");
    json_array_remove(json_object_get(json_object_get(o, "metadata"), "finalizers"), 0);
    gw_gc_policy_finalizers(o, GW_GC_BACKGROUND);
    s = json_dumps(o, JSON_COMPACT);
    tap_is_str(s, "{\"metadata\":{}}", "background: an emptied list is dropped");
    free(s);
    tap_is_int(gw_gc_delete_policy(o), GW_GC_BACKGROUND, "no finalizer: background");
    json_decref(o);

    o = json_pack("{s:{s:[{s:s,s:b},{s:s,s:b}]}}", "metadata", "ownerReferences", "uid", "a",
                  "blockOwnerDeletion", 1, "uid", "b", "blockOwnerDeletion", 0);
    tap_ok(gw_gc_unblock_refs(o), "a blocking reference is unblocked");
    tap_ok(!gw_gc_unblock_refs(o), "then nothing is left to unblock");
    const char *gone[] = {"a"};
    tap_ok(gw_gc_remove_refs(o, gone, 1), "a reference removed by uid");
    s = json_dumps(o, JSON_COMPACT);
    tap_is_str(
        s, "{\"metadata\":{\"ownerReferences\":[{\"uid\":\"b\",\"blockOwnerDeletion\":false}]}}",
        "the other stays");
    free(s);
    const char *last[] = {"b", "zz"};
    tap_ok(gw_gc_remove_refs(o, last, 2), "the last reference removed");
    tap_ok(json_object_get(json_object_get(o, "metadata"), "ownerReferences") == NULL,
           "the emptied list is dropped");
    json_decref(o);

    json_t *pod = json_pack("{s:{s:s}}", "spec", "nodeName", "n1");
    tap_is_int(gw_gc_pod_grace(pod), 30, "a pod on a node: 30 s by default");
    json_object_set_new(json_object_get(pod, "spec"), "terminationGracePeriodSeconds",
                        json_integer(-5));
    tap_is_int(gw_gc_pod_grace(pod), 1, "a negative period: 1 s");
    json_object_set_new(pod, "status", json_pack("{s:s}", "phase", "Succeeded"));
    tap_is_int(gw_gc_pod_grace(pod), 0, "a finished pod: none");
    json_object_del(pod, "status");
    json_object_del(json_object_get(pod, "spec"), "nodeName");
    tap_is_int(gw_gc_pod_grace(pod), 0, "a pod never scheduled: none");
    json_decref(pod);

    gw_gc_meta_t m;
    o = json_pack("{s:{s:s}}", "metadata", "name", "x");
    tap_ok(!gw_gc_meta_parse(o, &m), "an object without uid is not the collector's");
    json_decref(o);
}

int
main(void)
{
    calls = json_array();
    test_owner_lifecycle();
    test_owner_gone();
    test_orphan_and_namespaces();
    test_decisions();
    json_decref(calls);
    return tap_done();
}
