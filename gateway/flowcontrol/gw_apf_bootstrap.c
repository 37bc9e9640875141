/* kube 1.32's configuration objects (pkg/apis/flowcontrol/bootstrap): names, precedences,
 * rules and shares as kube-apiserver creates them. */
#include "gw_apf.h"

#define API_VERSION "flowcontrol.apiserver.k8s.io/v1"

static json_t *
strs(const char *const *v)
{
    json_t *a = json_array();
    for (; *v != NULL; v++)
        json_array_append_new(a, json_string(*v));
    return a;
}

#define S(...) strs((const char *const[]){__VA_ARGS__, NULL})

static json_t *
meta(const char *name)
{
    return json_pack("{s:s}", "name", name);
}

static json_t *
queued(const char *name, int shares, int lendable, int queues, int hand, int qlen)
{
    return json_pack("{s:s,s:s,s:o,s:{s:s,s:{s:i,s:i,s:{s:s,s:{s:i,s:i,s:i}}}}}", "apiVersion",
                     API_VERSION, "kind", "PriorityLevelConfiguration", "metadata", meta(name),
                     "spec", "type", "Limited", "limited", "nominalConcurrencyShares", shares,
                     "lendablePercent", lendable, "limitResponse", "type", "Queue", "queuing",
                     "queues", queues, "handSize", hand, "queueLengthLimit", qlen);
}

static json_t *
subject(const char *kind, const char *name)
{
    if (kind[0] == 'U')
        return json_pack("{s:s,s:{s:s}}", "kind", "User", "user", "name", name);
    if (kind[0] == 'G')
        return json_pack("{s:s,s:{s:s}}", "kind", "Group", "group", "name", name);
    return json_pack("{s:s,s:{s:s,s:s}}", "kind", "ServiceAccount", "serviceAccount", "name", name,
                     "namespace", "kube-system");
}

static json_t *
rrule(json_t *verbs, json_t *groups, json_t *resources, json_t *namespaces, bool cluster)
{
    json_t *r = json_pack("{s:o,s:o,s:o,s:o}", "verbs", verbs, "apiGroups", groups, "resources",
                          resources, "namespaces", namespaces);
    if (cluster)
        json_object_set_new(r, "clusterScope", json_true());
    return r;
}

static json_t *
all_resources(void)
{
    return json_pack("[o]", rrule(S("*"), S("*"), S("*"), S("*"), true));
}

static json_t *
all_nonresources(void)
{
    return json_pack("[{s:o,s:o}]", "verbs", S("*"), "nonResourceURLs", S("*"));
}

/* A FlowSchema; dm NULL for no distinguisher. rules: one PolicyRulesWithSubjects. */
static json_t *
fs(const char *name, const char *pl, int precedence, const char *dm, json_t *rules)
{
    json_t *spec = json_pack("{s:{s:s},s:i,s:[o]}", "priorityLevelConfiguration", "name", pl,
                             "matchingPrecedence", precedence, "rules", rules);
    if (dm != NULL)
        json_object_set_new(spec, "distinguisherMethod", json_pack("{s:s}", "type", dm));
    return json_pack("{s:s,s:s,s:o,s:o}", "apiVersion", API_VERSION, "kind", "FlowSchema",
                     "metadata", meta(name), "spec", spec);
}

/* Rules over everything for the given subjects (a new array of subjects, stolen). */
static json_t *
everything(json_t *subjects)
{
    return json_pack("{s:o,s:o,s:o}", "subjects", subjects, "resourceRules", all_resources(),
                     "nonResourceRules", all_nonresources());
}

static json_t *
leader_rules(json_t *subjects, const char *cm_namespace)
{
    return json_pack(
        "{s:o,s:[o,o]}", "subjects", subjects, "resourceRules",
        rrule(S("get", "create", "update"), S(""), S("endpoints", "configmaps"), S(cm_namespace),
              false),
        rrule(S("get", "create", "update"), S("coordination.k8s.io"), S("leases"), S("*"), false));
}

json_t *
gw_apf_bootstrap_levels(bool mandatory)
{
    if (mandatory)
        return json_pack(
            "[{s:s,s:s,s:o,s:{s:s,s:{s:i,s:i}}},{s:s,s:s,s:o,s:{s:s,s:{s:i,s:i,s:{s:s}}}}]",
            "apiVersion", API_VERSION, "kind", "PriorityLevelConfiguration", "metadata",
            meta("exempt"), "spec", "type", "Exempt", "exempt", "nominalConcurrencyShares", 0,
            "lendablePercent", 0, "apiVersion", API_VERSION, "kind", "PriorityLevelConfiguration",
            "metadata", meta("catch-all"), "spec", "type", "Limited", "limited",
            "nominalConcurrencyShares", 5, "lendablePercent", 0, "limitResponse", "type", "Reject");
    return json_pack(
        "[o,o,o,o,o,o]", queued("system", 30, 33, 64, 6, 50),
        queued("node-high", 40, 25, 64, 6, 50), queued("leader-election", 10, 0, 16, 4, 50),
        queued("workload-high", 40, 50, 128, 6, 50), queued("workload-low", 100, 90, 128, 6, 50),
        queued("global-default", 20, 50, 128, 6, 50));
}

static json_t *
suggested_flowschemas(void)
{
    json_t *a = json_array();
    json_t *probes =
        json_pack("{s:[o,o],s:[{s:o,s:o}]}", "subjects", subject("G", "system:unauthenticated"),
                  subject("G", "system:authenticated"), "nonResourceRules", "verbs", S("get"),
                  "nonResourceURLs", S("/healthz", "/readyz", "/livez"));
    json_t *node_high =
        json_pack("{s:[o],s:[o,o]}", "subjects", subject("G", "system:nodes"), "resourceRules",
                  rrule(S("*"), S(""), S("nodes", "nodes/status"), S("*"), true),
                  rrule(S("*"), S("coordination.k8s.io"), S("leases"), S("*"), false));
    json_t *endpoints = json_pack(
        "{s:[o,o,o],s:[o]}", "subjects", subject("U", "system:kube-controller-manager"),
        subject("S", "endpoint-controller"), subject("S", "endpointslicemirroring-controller"),
        "resourceRules", rrule(S("get", "create", "update"), S(""), S("endpoints"), S("*"), false));

    json_array_append_new(a, fs("probes", "exempt", 2, NULL, probes));
    json_array_append_new(
        a, fs("system-leader-election", "leader-election", 100, "ByUser",
              leader_rules(json_pack("[o,o,o]", subject("U", "system:kube-controller-manager"),
                                     subject("U", "system:kube-scheduler"), subject("S", "*")),
                           "kube-system")));
    json_array_append_new(a, fs("endpoint-controller", "workload-high", 150, "ByUser", endpoints));
    json_array_append_new(a, fs("workload-leader-election", "leader-election", 200, "ByUser",
                                leader_rules(json_pack("[o]", subject("S", "*")), "*")));
    json_array_append_new(a, fs("system-node-high", "node-high", 400, "ByUser", node_high));
    json_array_append_new(a, fs("system-nodes", "system", 500, "ByUser",
                                everything(json_pack("[o]", subject("G", "system:nodes")))));
    json_array_append_new(
        a, fs("kube-controller-manager", "workload-high", 800, "ByNamespace",
              everything(json_pack("[o]", subject("U", "system:kube-controller-manager")))));
    json_array_append_new(a,
                          fs("kube-scheduler", "workload-high", 800, "ByNamespace",
                             everything(json_pack("[o]", subject("U", "system:kube-scheduler")))));
    json_array_append_new(a, fs("kube-system-service-accounts", "workload-high", 900, "ByNamespace",
                                everything(json_pack("[o]", subject("S", "*")))));
    json_array_append_new(a,
                          fs("service-accounts", "workload-low", 9000, "ByUser",
                             everything(json_pack("[o]", subject("G", "system:serviceaccounts")))));
    json_array_append_new(a,
                          fs("global-default", "global-default", 9900, "ByUser",
                             everything(json_pack("[o,o]", subject("G", "system:unauthenticated"),
                                                  subject("G", "system:authenticated")))));
    return a;
}

json_t *
gw_apf_bootstrap_flowschemas(bool mandatory)
{
    if (!mandatory)
        return suggested_flowschemas();
    return json_pack("[o,o]",
                     fs("exempt", "exempt", 1, NULL,
                        everything(json_pack("[o]", subject("G", "system:masters")))),
                     fs("catch-all", "catch-all", 10000, "ByUser",
                        everything(json_pack("[o,o]", subject("G", "system:unauthenticated"),
                                             subject("G", "system:authenticated")))));
}
