/* Unit tests for gateway/admission/gw_admission_match: kube 1.32's admission matching of a
 * MatchResources (rules, exclude rules, Exact and Equivalent, namespace and object selectors),
 * the exemption of the admission configuration resources, and a binding's intersection with
 * its policy's matchConstraints. The documents are written with ' for " to stay readable. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gw_admission_match.h"
#include "gw_err.h"
#include "tap.h"

static const gw_catalog_t *served;

/* JSON with ' for ", or NULL. The caller decrefs. */
static json_t *
doc(const char *text)
{
    char *s;
    json_t *j;
    json_error_t e;

    if (text == NULL)
        return NULL;
    s = strdup(text);
    for (char *p = s; *p != '\0'; p++)
        *p = *p == '\'' ? '"' : *p;
    j = json_loads(s, JSON_DECODE_ANY, &e);
    if (j == NULL)
        tap_diag("bad test JSON %s: %s", text, e.text);
    free(s);
    return j;
}

/* A request on "group/version/resource[/subresource]" ("" group: "/v1/pods"), through the
 * chain's attributes as the admission plugin will build it. */
typedef struct {
    gw_admission_request_t rq;
    json_t *obj, *old;
    char path[4][64];
} req_t;

static bool
req_make(req_t *r, gw_admission_op_t op, const char *gvr, const char *ns, const char *name,
         const char *obj, const char *old)
{
    const gw_resource_t *res;
    gw_admission_attrs_t a;

    memset(r, 0, sizeof(*r));
    sscanf(gvr, "%63[^/]", r->path[0]);
    if (gvr[0] == '/')
        sscanf(gvr, "/%63[^/]/%63[^/]/%63s", r->path[1], r->path[2], r->path[3]);
    else
        sscanf(gvr, "%*[^/]/%63[^/]/%63[^/]/%63s", r->path[1], r->path[2], r->path[3]);
    res = gw_catalog_find(served, r->path[0], r->path[1], r->path[2]);
    if (res == NULL) {
        tap_diag("no resource %s", gvr);
        return false;
    }
    r->obj = doc(obj);
    r->old = doc(old);
    a = (gw_admission_attrs_t){.op = op,
                               .resource = res,
                               .subresource = r->path[3],
                               .namespace_ = ns,
                               .name = name,
                               .object = r->obj,
                               .old_object = r->old};
    gw_admission_request_from_attrs(&r->rq, &a);
    return true;
}

static void
req_clear(req_t *r)
{
    json_decref(r->obj);
    json_decref(r->old);
}

/* ---- the table ---------------------------------------------------------------------------- */

#define C GW_ADMISSION_CREATE
#define U GW_ADMISSION_UPDATE
#define D GW_ADMISSION_DELETE
#define X GW_ADMISSION_CONNECT

#define RULE(ops, groups, versions, resources)                                                     \
    "{'resourceRules':[{'operations':[" ops "],'apiGroups':[" groups "],'apiVersions':[" versions  \
    "],'resources':[" resources "]}]}"
#define ALL_RULE "{'operations':['*'],'apiGroups':['*'],'apiVersions':['*'],'resources':['*']}"

static const char *const ns_prod = "{'metadata':{'name':'a','labels':{'env':'prod'}}}";
static const char *const ns_none = "{'metadata':{'name':'a'}}";
static const char *const obj_web = "{'metadata':{'name':'x','labels':{'app':'web'}}}";
static const char *const obj_db = "{'metadata':{'name':'x','labels':{'app':'db'}}}";
static const char *const obj_bare = "{'metadata':{'name':'x'}}";

typedef struct {
    const char *what;
    const char *match; /* MatchResources */
    gw_admission_op_t op;
    const char *gvr, *ns, *name;
    const char *obj, *old, *ns_obj;
    int want;              /* 1, 0 or a GW_E* code */
    const char *want_gvr;  /* matched "group/version/resource", or NULL (the request's own) */
    const char *want_kind; /* matched "group/version/Kind", or NULL (not checked) */
    const char *want_err;  /* the error's message, for an error */
} tcase_t;

static const tcase_t cases[] = {
    /* operations */
    {"CREATE rule, CREATE request", RULE("'CREATE'", "'apps'", "'v1'", "'deployments'"), C,
     "apps/v1/deployments", "a", "d", obj_bare, NULL, NULL, 1, NULL, "apps/v1/Deployment", NULL},
    {"CREATE rule, UPDATE request", RULE("'CREATE'", "'apps'", "'v1'", "'deployments'"), U,
     "apps/v1/deployments", "a", "d", obj_bare, obj_bare, NULL, 0, NULL, NULL, NULL},
    {"several operations", RULE("'CREATE','DELETE'", "'apps'", "'v1'", "'deployments'"), D,
     "apps/v1/deployments", "a", "d", NULL, obj_bare, NULL, 1, NULL, NULL, NULL},
    {"* is every operation", RULE("'*'", "'apps'", "'v1'", "'deployments'"), D,
     "apps/v1/deployments", "a", "d", NULL, obj_bare, NULL, 1, NULL, NULL, NULL},
    {"CONNECT", RULE("'CONNECT'", "''", "'v1'", "'pods/exec'"), X, "/v1/pods/exec", "a", "p", NULL,
     NULL, NULL, 1, "/v1/pods", "/v1/PodExecOptions", NULL},
    {"CONNECT rule, CREATE request", RULE("'CONNECT'", "''", "'v1'", "'pods'"), C, "/v1/pods", "a",
     "p", obj_bare, NULL, NULL, 0, NULL, NULL, NULL},
    {"an unknown operation matches nothing", RULE("'PATCH'", "'*'", "'*'", "'*'"), U, "/v1/pods",
     "a", "p", obj_bare, obj_bare, NULL, 0, NULL, NULL, NULL},
    {"no operations match nothing", RULE("", "'*'", "'*'", "'*'"), C, "/v1/pods", "a", "p",
     obj_bare, NULL, NULL, 0, NULL, NULL, NULL},
    /* groups and versions */
    {"another group", RULE("'*'", "''", "'v1'", "'deployments'"), C, "apps/v1/deployments", "a",
     "d", obj_bare, NULL, NULL, 0, NULL, NULL, NULL},
    {"the core group is ''", RULE("'*'", "''", "'v1'", "'pods'"), C, "/v1/pods", "a", "p", obj_bare,
     NULL, NULL, 1, "/v1/pods", "/v1/Pod", NULL},
    {"* group", RULE("'*'", "'*'", "'v1'", "'deployments'"), C, "apps/v1/deployments", "a", "d",
     obj_bare, NULL, NULL, 1, NULL, NULL, NULL},
    {"another version", RULE("'*'", "'apps'", "'v1beta1'", "'deployments'"), C,
     "apps/v1/deployments", "a", "d", obj_bare, NULL, NULL, 0, NULL, NULL, NULL},
    {"* version", RULE("'*'", "'apps'", "'*'", "'deployments'"), C, "apps/v1/deployments", "a", "d",
     obj_bare, NULL, NULL, 1, NULL, NULL, NULL},
    {"one of several groups", RULE("'*'", "'batch','apps'", "'v1'", "'*'"), C,
     "apps/v1/deployments", "a", "d", obj_bare, NULL, NULL, 1, NULL, NULL, NULL},
    /* resources and subresources */
    {"* is every resource", RULE("'*'", "'*'", "'*'", "'*'"), C, "apps/v1/deployments", "a", "d",
     obj_bare, NULL, NULL, 1, NULL, NULL, NULL},
    {"* is no subresource", RULE("'*'", "'*'", "'*'", "'*'"), U, "apps/v1/deployments/status", "a",
     "d", obj_bare, obj_bare, NULL, 0, NULL, NULL, NULL},
    {"a resource alone is not its subresources", RULE("'*'", "''", "'v1'", "'pods'"), U,
     "/v1/pods/status", "a", "p", obj_bare, obj_bare, NULL, 0, NULL, NULL, NULL},
    {"pods/status", RULE("'*'", "''", "'v1'", "'pods/status'"), U, "/v1/pods/status", "a", "p",
     obj_bare, obj_bare, NULL, 1, "/v1/pods", "/v1/Pod", NULL},
    {"pods/status is not the main resource", RULE("'*'", "''", "'v1'", "'pods/status'"), U,
     "/v1/pods", "a", "p", obj_bare, obj_bare, NULL, 0, NULL, NULL, NULL},
    {"pods/* takes a subresource", RULE("'*'", "''", "'v1'", "'pods/*'"), C, "/v1/pods/eviction",
     "a", "p", obj_bare, NULL, NULL, 1, "/v1/pods", "policy/v1/Eviction", NULL},
    {"pods/* takes the main resource too (kube's * matches the empty subresource)",
     RULE("'*'", "''", "'v1'", "'pods/*'"), C, "/v1/pods", "a", "p", obj_bare, NULL, NULL, 1, NULL,
     NULL, NULL},
    {"*/scale", RULE("'*'", "'apps'", "'v1'", "'*/scale'"), U, "apps/v1/deployments/scale", "a",
     "d", obj_bare, obj_bare, NULL, 1, "apps/v1/deployments", "autoscaling/v1/Scale", NULL},
    {"*/scale is not status", RULE("'*'", "'apps'", "'v1'", "'*/scale'"), U,
     "apps/v1/deployments/status", "a", "d", obj_bare, obj_bare, NULL, 0, NULL, NULL, NULL},
    {"*/scale is not the main resource", RULE("'*'", "'apps'", "'v1'", "'*/scale'"), U,
     "apps/v1/deployments", "a", "d", obj_bare, obj_bare, NULL, 0, NULL, NULL, NULL},
    {"*/* is everything", RULE("'*'", "'*'", "'*'", "'*/*'"), U, "apps/v1/deployments/status", "a",
     "d", obj_bare, obj_bare, NULL, 1, NULL, NULL, NULL},
    {"*/* takes main resources", RULE("'*'", "'*'", "'*'", "'*/*'"), C, "/v1/configmaps", "a", "c",
     obj_bare, NULL, NULL, 1, NULL, NULL, NULL},
    {"one of several resources", RULE("'*'", "'*'", "'*'", "'pods','configmaps'"), C,
     "/v1/configmaps", "a", "c", obj_bare, NULL, NULL, 1, NULL, NULL, NULL},
    /* resourceNames */
    {"resourceNames: the name",
     "{'resourceRules':[{'operations':['*'],'apiGroups':['*'],'apiVersions':['*'],"
     "'resources':['*'],'resourceNames':['x','y']}]}",
     U, "/v1/configmaps", "a", "y", obj_bare, obj_bare, NULL, 1, NULL, NULL, NULL},
    {"resourceNames: another name",
     "{'resourceRules':[{'operations':['*'],'apiGroups':['*'],'apiVersions':['*'],"
     "'resources':['*'],'resourceNames':['x']}]}",
     U, "/v1/configmaps", "a", "z", obj_bare, obj_bare, NULL, 0, NULL, NULL, NULL},
    {"resourceNames: a name still to be generated",
     "{'resourceRules':[{'operations':['*'],'apiGroups':['*'],'apiVersions':['*'],"
     "'resources':['*'],'resourceNames':['x']}]}",
     C, "/v1/configmaps", "a", "", obj_bare, NULL, NULL, 0, NULL, NULL, NULL},
    {"a later rule without names",
     "{'resourceRules':[{'operations':['*'],'apiGroups':['*'],'apiVersions':['*'],"
     "'resources':['*'],'resourceNames':['x']}," ALL_RULE "]}",
     C, "/v1/configmaps", "a", "z", obj_bare, NULL, NULL, 1, NULL, NULL, NULL},
    /* scope */
    {"Namespaced: a pod",
     "{'resourceRules':[{'operations':['*'],'apiGroups':['*'],'apiVersions':['*'],"
     "'resources':['*'],'scope':'Namespaced'}]}",
     C, "/v1/pods", "a", "p", obj_bare, NULL, NULL, 1, NULL, NULL, NULL},
    {"Namespaced: not a namespace, which carries its own name as namespace",
     "{'resourceRules':[{'operations':['*'],'apiGroups':['*'],'apiVersions':['*'],"
     "'resources':['*'],'scope':'Namespaced'}]}",
     U, "/v1/namespaces", "", "a", ns_prod, ns_prod, NULL, 0, NULL, NULL, NULL},
    {"Namespaced: not a cluster role",
     "{'resourceRules':[{'operations':['*'],'apiGroups':['*'],'apiVersions':['*'],"
     "'resources':['*'],'scope':'Namespaced'}]}",
     C, "rbac.authorization.k8s.io/v1/clusterroles", "", "r", obj_bare, NULL, NULL, 0, NULL, NULL,
     NULL},
    {"Cluster: a cluster role",
     "{'resourceRules':[{'operations':['*'],'apiGroups':['*'],'apiVersions':['*'],"
     "'resources':['*'],'scope':'Cluster'}]}",
     C, "rbac.authorization.k8s.io/v1/clusterroles", "", "r", obj_bare, NULL, NULL, 1, NULL, NULL,
     NULL},
    {"Cluster: a namespace",
     "{'resourceRules':[{'operations':['*'],'apiGroups':['*'],'apiVersions':['*'],"
     "'resources':['*'],'scope':'Cluster'}]}",
     U, "/v1/namespaces", "", "a", ns_prod, ns_prod, NULL, 1, NULL, NULL, NULL},
    {"Cluster: not a pod",
     "{'resourceRules':[{'operations':['*'],'apiGroups':['*'],'apiVersions':['*'],"
     "'resources':['*'],'scope':'Cluster'}]}",
     C, "/v1/pods", "a", "p", obj_bare, NULL, NULL, 0, NULL, NULL, NULL},
    {"scope *",
     "{'resourceRules':[{'operations':['*'],'apiGroups':['*'],'apiVersions':['*'],"
     "'resources':['*'],'scope':'*'}]}",
     C, "/v1/pods", "a", "p", obj_bare, NULL, NULL, 1, NULL, NULL, NULL},
    {"an unknown scope matches nothing",
     "{'resourceRules':[{'operations':['*'],'apiGroups':['*'],'apiVersions':['*'],"
     "'resources':['*'],'scope':'Global'}]}",
     C, "/v1/pods", "a", "p", obj_bare, NULL, NULL, 0, NULL, NULL, NULL},
    /* rules: none, exclude */
    {"no resource rules match everything, as the request came", "{}", U,
     "apps/v1/deployments/scale", "a", "d", obj_bare, obj_bare, NULL, 1, "apps/v1/deployments",
     "autoscaling/v1/Scale", NULL},
    {"excluded",
     "{'resourceRules':[" ALL_RULE "],'excludeResourceRules':[{'operations':['*'],"
     "'apiGroups':['apps'],'apiVersions':['*'],'resources':['deployments']}]}",
     C, "apps/v1/deployments", "a", "d", obj_bare, NULL, NULL, 0, NULL, NULL, NULL},
    {"not excluded",
     "{'resourceRules':[" ALL_RULE "],'excludeResourceRules':[{'operations':['*'],"
     "'apiGroups':['apps'],'apiVersions':['*'],'resources':['deployments']}]}",
     C, "/v1/pods", "a", "p", obj_bare, NULL, NULL, 1, NULL, NULL, NULL},
    {"excluded by name",
     "{'resourceRules':[" ALL_RULE "],'excludeResourceRules':[{'operations':['*'],"
     "'apiGroups':['*'],'apiVersions':['*'],'resources':['*'],'resourceNames':['p']}]}",
     U, "/v1/pods", "a", "p", obj_bare, obj_bare, NULL, 0, NULL, NULL, NULL},
    {"another name is not excluded",
     "{'resourceRules':[" ALL_RULE "],'excludeResourceRules':[{'operations':['*'],"
     "'apiGroups':['*'],'apiVersions':['*'],'resources':['*'],'resourceNames':['p']}]}",
     U, "/v1/pods", "a", "q", obj_bare, obj_bare, NULL, 1, NULL, NULL, NULL},
    {"exclude rules alone exclude from everything",
     "{'excludeResourceRules':[{'operations':['DELETE'],'apiGroups':['*'],'apiVersions':['*'],"
     "'resources':['*']}]}",
     D, "/v1/pods", "a", "p", NULL, obj_bare, NULL, 0, NULL, NULL, NULL},
    /* Exact and Equivalent */
    {"Exact: another version does not match",
     "{'matchPolicy':'Exact','resourceRules':[{'operations':['*'],'apiGroups':['autoscaling'],"
     "'apiVersions':['v2'],'resources':['horizontalpodautoscalers']}]}",
     C, "autoscaling/v1/horizontalpodautoscalers", "a", "h", obj_bare, NULL, NULL, 0, NULL, NULL,
     NULL},
    {"no matchPolicy is Exact",
     "{'resourceRules':[{'operations':['*'],'apiGroups':['autoscaling'],"
     "'apiVersions':['v2'],'resources':['horizontalpodautoscalers']}]}",
     C, "autoscaling/v1/horizontalpodautoscalers", "a", "h", obj_bare, NULL, NULL, 0, NULL, NULL,
     NULL},
    {"Equivalent: another version matches, as the version the rule names",
     "{'matchPolicy':'Equivalent','resourceRules':[{'operations':['*'],"
     "'apiGroups':['autoscaling'],'apiVersions':['v2'],'resources':['horizontalpodautoscalers']}]}",
     C, "autoscaling/v1/horizontalpodautoscalers", "a", "h", obj_bare, NULL, NULL, 1,
     "autoscaling/v2/horizontalpodautoscalers", "autoscaling/v2/HorizontalPodAutoscaler", NULL},
    {"Equivalent: the request's own version is reported when it matches",
     "{'matchPolicy':'Equivalent','resourceRules':[{'operations':['*'],"
     "'apiGroups':['autoscaling'],'apiVersions':['*'],'resources':['horizontalpodautoscalers']}]}",
     C, "autoscaling/v1/horizontalpodautoscalers", "a", "h", obj_bare, NULL, NULL, 1,
     "autoscaling/v1/horizontalpodautoscalers", "autoscaling/v1/HorizontalPodAutoscaler", NULL},
    {"Equivalent: a subresource through another version",
     "{'matchPolicy':'Equivalent','resourceRules':[{'operations':['UPDATE'],"
     "'apiGroups':['autoscaling'],'apiVersions':['v2'],"
     "'resources':['horizontalpodautoscalers/status']}]}",
     U, "autoscaling/v1/horizontalpodautoscalers/status", "a", "h", obj_bare, obj_bare, NULL, 1,
     "autoscaling/v2/horizontalpodautoscalers", "autoscaling/v2/HorizontalPodAutoscaler", NULL},
    {"Equivalent: the subresource must still match",
     "{'matchPolicy':'Equivalent','resourceRules':[{'operations':['*'],"
     "'apiGroups':['autoscaling'],'apiVersions':['v2'],'resources':['horizontalpodautoscalers']}]}",
     U, "autoscaling/v1/horizontalpodautoscalers/status", "a", "h", obj_bare, obj_bare, NULL, 0,
     NULL, NULL, NULL},
    {"Equivalent: the same stored resource in another group",
     "{'matchPolicy':'Equivalent','resourceRules':[{'operations':['CREATE'],"
     "'apiGroups':['events.k8s.io'],'apiVersions':['v1'],'resources':['events']}]}",
     C, "/v1/events", "a", "e", obj_bare, NULL, NULL, 1, "events.k8s.io/v1/events",
     "events.k8s.io/v1/Event", NULL},
    {"Equivalent: and back",
     "{'matchPolicy':'Equivalent','resourceRules':[{'operations':['CREATE'],"
     "'apiGroups':[''],'apiVersions':['v1'],'resources':['events']}]}",
     C, "events.k8s.io/v1/events", "a", "e", obj_bare, NULL, NULL, 1, "/v1/events", "/v1/Event",
     NULL},
    {"Equivalent: an unrelated resource does not match",
     "{'matchPolicy':'Equivalent','resourceRules':[{'operations':['*'],"
     "'apiGroups':['apps'],'apiVersions':['v1'],'resources':['deployments']}]}",
     C, "apps/v1/replicasets", "a", "r", obj_bare, NULL, NULL, 0, NULL, NULL, NULL},
    {"Equivalent: resourceNames hold through the equivalent",
     "{'matchPolicy':'Equivalent','resourceRules':[{'operations':['*'],"
     "'apiGroups':['events.k8s.io'],'apiVersions':['v1'],'resources':['events'],"
     "'resourceNames':['f']}]}",
     C, "/v1/events", "a", "e", obj_bare, NULL, NULL, 0, NULL, NULL, NULL},
    {"Equivalent: exclude rules through the equivalent",
     "{'matchPolicy':'Equivalent','resourceRules':[" ALL_RULE "],'excludeResourceRules':"
     "[{'operations':['*'],'apiGroups':['autoscaling'],'apiVersions':['v2'],"
     "'resources':['horizontalpodautoscalers']}]}",
     C, "autoscaling/v1/horizontalpodautoscalers", "a", "h", obj_bare, NULL, NULL, 0, NULL, NULL,
     NULL},
    {"Exact: exclude rules only as the request came",
     "{'matchPolicy':'Exact','resourceRules':[" ALL_RULE "],'excludeResourceRules':"
     "[{'operations':['*'],'apiGroups':['autoscaling'],'apiVersions':['v2'],"
     "'resources':['horizontalpodautoscalers']}]}",
     C, "autoscaling/v1/horizontalpodautoscalers", "a", "h", obj_bare, NULL, NULL, 1, NULL, NULL,
     NULL},
    /* namespaceSelector */
    {"namespaceSelector: the namespace's labels match",
     "{'namespaceSelector':{'matchLabels':{'env':'prod'}}}", C, "/v1/pods", "a", "p", obj_bare,
     NULL, ns_prod, 1, NULL, NULL, NULL},
    {"namespaceSelector: they do not", "{'namespaceSelector':{'matchLabels':{'env':'dev'}}}", C,
     "/v1/pods", "a", "p", obj_bare, NULL, ns_prod, 0, NULL, NULL, NULL},
    {"namespaceSelector: a namespace without labels",
     "{'namespaceSelector':{'matchLabels':{'env':'prod'}}}", C, "/v1/pods", "a", "p", obj_bare,
     NULL, ns_none, 0, NULL, NULL, NULL},
    {"namespaceSelector: NotIn holds for a namespace without the label",
     "{'namespaceSelector':{'matchExpressions':[{'key':'env','operator':'NotIn',"
     "'values':['dev']}]}}",
     C, "/v1/pods", "a", "p", obj_bare, NULL, ns_none, 1, NULL, NULL, NULL},
    {"namespaceSelector: In",
     "{'namespaceSelector':{'matchExpressions':[{'key':'env','operator':'In',"
     "'values':['dev','prod']}]}}",
     C, "/v1/pods", "a", "p", obj_bare, NULL, ns_prod, 1, NULL, NULL, NULL},
    {"namespaceSelector: Exists",
     "{'namespaceSelector':{'matchExpressions':[{'key':'env','operator':'Exists'}]}}", C,
     "/v1/pods", "a", "p", obj_bare, NULL, ns_none, 0, NULL, NULL, NULL},
    {"namespaceSelector: DoesNotExist",
     "{'namespaceSelector':{'matchExpressions':[{'key':'env','operator':'DoesNotExist'}]}}", C,
     "/v1/pods", "a", "p", obj_bare, NULL, ns_none, 1, NULL, NULL, NULL},
    {"namespaceSelector: matchLabels and matchExpressions together",
     "{'namespaceSelector':{'matchLabels':{'env':'prod'},'matchExpressions':[{'key':'tier',"
     "'operator':'Exists'}]}}",
     C, "/v1/pods", "a", "p", obj_bare, NULL, ns_prod, 0, NULL, NULL, NULL},
    {"namespaceSelector: a missing namespace is kube's 404",
     "{'namespaceSelector':{'matchLabels':{'env':'prod'}}}", C, "/v1/pods", "a", "p", obj_bare,
     NULL, NULL, GW_ENOTFOUND, NULL, NULL, "namespaces \"a\" not found"},
    {"namespaceSelector: a missing namespace does not matter when the rules do not match",
     "{'namespaceSelector':{'matchLabels':{'env':'prod'}},'resourceRules':[{'operations':['*'],"
     "'apiGroups':['apps'],'apiVersions':['*'],'resources':['*']}]}",
     C, "/v1/pods", "a", "p", obj_bare, NULL, NULL, 0, NULL, NULL, NULL},
    {"namespaceSelector: an empty selector needs no namespace", "{'namespaceSelector':{}}", C,
     "/v1/pods", "a", "p", obj_bare, NULL, NULL, 1, NULL, NULL, NULL},
    {"namespaceSelector: other cluster-scoped requests always pass",
     "{'namespaceSelector':{'matchLabels':{'env':'dev'}}}", C,
     "rbac.authorization.k8s.io/v1/clusterroles", "", "r", obj_bare, NULL, NULL, 1, NULL, NULL,
     NULL},
    {"namespaceSelector: a namespace created matches its own labels",
     "{'namespaceSelector':{'matchLabels':{'env':'prod'}}}", C, "/v1/namespaces", "", "a", ns_prod,
     NULL, NULL, 1, NULL, NULL, NULL},
    {"namespaceSelector: a namespace updated matches its new labels, not the stored ones",
     "{'namespaceSelector':{'matchLabels':{'env':'prod'}}}", U, "/v1/namespaces", "", "a", ns_none,
     ns_prod, ns_prod, 0, NULL, NULL, NULL},
    {"namespaceSelector: a namespace deleted matches the stored namespace",
     "{'namespaceSelector':{'matchLabels':{'env':'prod'}}}", D, "/v1/namespaces", "", "a", NULL,
     ns_prod, ns_prod, 1, NULL, NULL, NULL},
    {"namespaceSelector: a namespace's subresource matches the stored namespace",
     "{'namespaceSelector':{'matchLabels':{'env':'prod'}}}", U, "/v1/namespaces/finalize", "", "a",
     ns_none, ns_none, ns_prod, 1, NULL, NULL, NULL},
    /* objectSelector */
    {"objectSelector: create, the object matches",
     "{'objectSelector':{'matchLabels':{'app':'web'}}}", C, "/v1/pods", "a", "p", obj_web, NULL,
     NULL, 1, NULL, NULL, NULL},
    {"objectSelector: create, it does not", "{'objectSelector':{'matchLabels':{'app':'web'}}}", C,
     "/v1/pods", "a", "p", obj_db, NULL, NULL, 0, NULL, NULL, NULL},
    {"objectSelector: an object without labels", "{'objectSelector':{'matchLabels':{'app':'web'}}}",
     C, "/v1/pods", "a", "p", obj_bare, NULL, NULL, 0, NULL, NULL, NULL},
    {"objectSelector: DoesNotExist on an object without labels",
     "{'objectSelector':{'matchExpressions':[{'key':'app','operator':'DoesNotExist'}]}}", C,
     "/v1/pods", "a", "p", obj_bare, NULL, NULL, 1, NULL, NULL, NULL},
    {"objectSelector: update, the old object matches",
     "{'objectSelector':{'matchLabels':{'app':'web'}}}", U, "/v1/pods", "a", "p", obj_db, obj_web,
     NULL, 1, NULL, NULL, NULL},
    {"objectSelector: update, the new object matches",
     "{'objectSelector':{'matchLabels':{'app':'web'}}}", U, "/v1/pods", "a", "p", obj_web, obj_db,
     NULL, 1, NULL, NULL, NULL},
    {"objectSelector: update, neither", "{'objectSelector':{'matchLabels':{'app':'web'}}}", U,
     "/v1/pods", "a", "p", obj_db, obj_db, NULL, 0, NULL, NULL, NULL},
    {"objectSelector: delete, the stored object",
     "{'objectSelector':{'matchLabels':{'app':'web'}}}", D, "/v1/pods", "a", "p", NULL, obj_web,
     NULL, 1, NULL, NULL, NULL},
    {"objectSelector: no object never matches, even DoesNotExist",
     "{'objectSelector':{'matchExpressions':[{'key':'app','operator':'DoesNotExist'}]}}", D,
     "/v1/pods", "a", "p", NULL, NULL, NULL, 0, NULL, NULL, NULL},
    {"objectSelector: a null object is no object",
     "{'objectSelector':{'matchExpressions':[{'key':'app','operator':'DoesNotExist'}]}}", D,
     "/v1/pods", "a", "p", "null", NULL, NULL, 0, NULL, NULL, NULL},
    {"objectSelector: an empty selector takes no object too", "{'objectSelector':{}}", D,
     "/v1/pods", "a", "p", NULL, NULL, NULL, 1, NULL, NULL, NULL},
    {"objectSelector: NotIn",
     "{'objectSelector':{'matchExpressions':[{'key':'app',"
     "'operator':'NotIn','values':['db']}]}}",
     C, "/v1/pods", "a", "p", obj_web, NULL, NULL, 1, NULL, NULL, NULL},
    /* selectors kube cannot convert */
    {"a bad operator is an error when the rules match",
     "{'objectSelector':{'matchExpressions':[{'key':'app','operator':'Has'}]}}", C, "/v1/pods", "a",
     "p", obj_web, NULL, NULL, GW_EINVAL, NULL, NULL,
     "\"Has\" is not a valid label selector operator"},
    {"... and no match when they do not",
     "{'objectSelector':{'matchExpressions':[{'key':'app','operator':'Has'}]},"
     "'resourceRules':[{'operations':['*'],'apiGroups':['apps'],'apiVersions':['*'],"
     "'resources':['*']}]}",
     C, "/v1/pods", "a", "p", obj_web, NULL, NULL, 0, NULL, NULL, NULL},
    {"... nor when the namespace selector plainly does not match",
     "{'namespaceSelector':{'matchLabels':{'env':'dev'}},"
     "'objectSelector':{'matchExpressions':[{'key':'app','operator':'Has'}]}}",
     C, "/v1/pods", "a", "p", obj_web, NULL, ns_prod, 0, NULL, NULL, NULL},
    {"In without values",
     "{'namespaceSelector':{'matchExpressions':[{'key':'env','operator':'In','values':[]}]}}", C,
     "/v1/pods", "a", "p", obj_web, NULL, ns_prod, GW_EINVAL, NULL, NULL,
     "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be "
     "empty"},
    {"Exists with values",
     "{'objectSelector':{'matchExpressions':[{'key':'app','operator':'Exists',"
     "'values':['a','b']}]}}",
     C, "/v1/pods", "a", "p", obj_web, NULL, NULL, GW_EINVAL, NULL, NULL,
     "values: Invalid value: []string{\"a\", \"b\"}: values set must be empty for exists and "
     "does not exist"},
    {"the namespace selector's error comes first",
     "{'namespaceSelector':{'matchExpressions':[{'key':'env','operator':'Nope'}]},"
     "'objectSelector':{'matchExpressions':[{'key':'app','operator':'Has'}]}}",
     C, "/v1/pods", "a", "p", obj_web, NULL, ns_prod, GW_EINVAL, NULL, NULL,
     "\"Nope\" is not a valid label selector operator"},
    {"objectSelector: an empty label value", "{'objectSelector':{'matchLabels':{'app':''}}}", C,
     "/v1/pods", "a", "p", "{'metadata':{'labels':{'app':''}}}", NULL, NULL, 1, NULL, NULL, NULL},
    {"objectSelector: an empty label value is not absence",
     "{'objectSelector':{'matchLabels':{'app':''}}}", C, "/v1/pods", "a", "p", obj_bare, NULL, NULL,
     0, NULL, NULL, NULL},
    {"objectSelector: a qualified key",
     "{'objectSelector':{'matchLabels':{'app.kubernetes.io/name':'web'}}}", C, "/v1/pods", "a", "p",
     "{'metadata':{'labels':{'app.kubernetes.io/name':'web'}}}", NULL, NULL, 1, NULL, NULL, NULL},
    {"a bad label key", "{'objectSelector':{'matchLabels':{'-app':'web'}}}", C, "/v1/pods", "a",
     "p", obj_web, NULL, NULL, GW_EINVAL, NULL, NULL,
     "key: Invalid value: \"-app\": name part must consist of alphanumeric characters, ..."},
    {"a bad key in an expression",
     "{'objectSelector':{'matchExpressions':[{'key':'a/b/c','operator':'Exists'}]}}", C, "/v1/pods",
     "a", "p", obj_web, NULL, NULL, GW_EINVAL, NULL, NULL,
     "key: Invalid value: \"a/b/c\": a qualified name must consist of ..."},
    {"a bad label value", "{'namespaceSelector':{'matchLabels':{'env':'-prod'}}}", C, "/v1/pods",
     "a", "p", obj_web, NULL, ns_prod, GW_EINVAL, NULL, NULL,
     "values[0]: Invalid value: \"-prod\": a valid label must be an empty string or ..."},
    {"a bad value in a set",
     "{'namespaceSelector':{'matchExpressions':[{'key':'env','operator':'In',"
     "'values':['prod','x y']}]}}",
     C, "/v1/pods", "a", "p", obj_web, NULL, ns_prod, GW_EINVAL, NULL, NULL,
     "values[1]: Invalid value: \"x y\": a valid label must be ..."},
};

static void
check_case(const tcase_t *t)
{
    json_t *mr = doc(t->match), *ns = doc(t->ns_obj);
    gw_admission_match_t *m = gw_admission_match_new(mr);
    gw_admission_matched_t out = {{"?", "?", "?"}, {"?", "?", "?"}};
    char err[512] = "", got[256], want[256];
    req_t r;
    int rc;

    if (!req_make(&r, t->op, t->gvr, t->ns, t->name, t->obj, t->old)) {
        tap_ok(0, "%s: the request", t->what);
        goto done;
    }
    rc = gw_admission_match(m, &r.rq, ns, served, &out, err, sizeof(err));
    tap_is_int(rc, t->want, t->what);
    /* A message ending in "..." is compared up to there (kube's long regex explanations). */
    if (t->want_err != NULL && strstr(t->want_err, "...") != NULL) {
        size_t n = (size_t)(strstr(t->want_err, "...") - t->want_err);

        if (!tap_ok(strncmp(err, t->want_err, n) == 0, "%s: the message", t->what))
            tap_diag("  got \"%s\"", err);
    } else if (t->want_err != NULL) {
        tap_is_str(err, t->want_err, t->what);
    }
    if (t->want == 1 && (t->want_gvr != NULL || t->want_kind != NULL)) {
        snprintf(got, sizeof(got), "%s/%s/%s", out.resource.group, out.resource.version,
                 out.resource.resource);
        snprintf(want, sizeof(want), "%s", t->want_gvr != NULL ? t->want_gvr : t->gvr);
        tap_is_str(got, want, "  matched resource");
        if (t->want_kind != NULL) {
            snprintf(got, sizeof(got), "%s/%s/%s", out.kind.group, out.kind.version, out.kind.kind);
            tap_is_str(got, t->want_kind, "  matched kind");
        }
    }
    req_clear(&r);
done:
    gw_admission_match_free(m);
    json_decref(mr);
    json_decref(ns);
}

/* ---- the request, the namespace to read -------------------------------------------------- */

static void
test_request(void)
{
    req_t r;

    req_make(&r, U, "apps/v1/deployments/scale", "a", "d", obj_bare, obj_bare);
    tap_is_str(r.rq.kind.kind, "Scale", "a subresource's request has the subresource's kind");
    tap_is_str(r.rq.kind.group, "autoscaling", "... and group");
    tap_is_str(r.rq.resource.resource, "deployments", "... on the parent's resource");
    tap_is_str(r.rq.subresource, "scale", "... and the subresource");
    tap_ok(r.rq.namespaced, "deployments are namespaced");
    tap_is_str(gw_admission_match_namespace_of(&r.rq), "a", "the namespace to read");
    req_clear(&r);

    req_make(&r, D, "/v1/namespaces", "", "ns1", NULL, ns_none);
    tap_is_str(r.rq.namespace_, "ns1", "a namespace's request carries its own name as namespace");
    tap_ok(!r.rq.namespaced, "namespaces are cluster-scoped");
    tap_is_str(gw_admission_match_namespace_of(&r.rq), "ns1", "a namespace deleted is read");
    req_clear(&r);

    req_make(&r, C, "/v1/namespaces", "", "ns1", ns_none, NULL);
    tap_ok(gw_admission_match_namespace_of(&r.rq) == NULL,
           "a namespace created is not read (its labels are the object's)");
    req_clear(&r);

    req_make(&r, C, "rbac.authorization.k8s.io/v1/clusterroles", "", "r", obj_bare, NULL);
    tap_ok(gw_admission_match_namespace_of(&r.rq) == NULL, "a cluster role has no namespace");
    tap_is_str(r.rq.kind.kind, "ClusterRole", "the main resource's kind");
    req_clear(&r);
}

static void
test_wants_namespace(void)
{
    const char *docs[] = {
        "{}", "{'namespaceSelector':{}}", "{'namespaceSelector':{'matchLabels':{'a':'b'}}}",
        "{'namespaceSelector':{'matchExpressions':[{'key':'a','operator':'X'}]}}"};
    const bool want[] = {false, false, true, false};

    for (size_t i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
        json_t *j = doc(docs[i]);
        gw_admission_match_t *m = gw_admission_match_new(j);

        tap_ok(gw_admission_match_wants_namespace(m) == want[i], "wants the namespace: %s",
               docs[i]);
        gw_admission_match_free(m);
        json_decref(j);
    }
}

/* ---- policies: exemption, definition, binding --------------------------------------------- */

static void
test_exempt(void)
{
    static const char *const exempt[] = {
        "admissionregistration.k8s.io/v1/validatingadmissionpolicies",
        "admissionregistration.k8s.io/v1/validatingadmissionpolicies/status",
        "admissionregistration.k8s.io/v1/validatingadmissionpolicybindings",
        "admissionregistration.k8s.io/v1/validatingwebhookconfigurations",
        "admissionregistration.k8s.io/v1/mutatingwebhookconfigurations",
    };
    json_t *all = doc("{'resourceRules':[" ALL_RULE ",{'operations':['*'],'apiGroups':['*'],"
                      "'apiVersions':['*'],'resources':['*/*']}]}");
    gw_admission_match_t *m = gw_admission_match_new(all);
    char err[256];
    req_t r;

    for (size_t i = 0; i < sizeof(exempt) / sizeof(exempt[0]); i++) {
        req_make(&r, U, exempt[i], "", "x", obj_bare, obj_bare);
        tap_ok(gw_admission_match_exempt(&r.rq), "exempt: %s", exempt[i]);
        tap_is_int(gw_admission_match(m, &r.rq, NULL, served, NULL, err, sizeof(err)), 1,
                   "  the plain matcher still matches it");
        tap_is_int(gw_admission_match_definition(m, &r.rq, NULL, served, NULL, err, sizeof(err)), 0,
                   "  no policy does");
        tap_is_int(gw_admission_match_policy(m, NULL, &r.rq, NULL, served, NULL, err, sizeof(err)),
                   0, "  nor a policy with a binding");
        req_clear(&r);
    }
    req_make(&r, C, "admissionregistration.k8s.io/v1/validatingadmissionpolicies", "", "x",
             obj_bare, NULL);
    r.rq.kind.group = "example.com";
    tap_ok(!gw_admission_match_exempt(&r.rq), "the kind's group decides");
    req_clear(&r);
    req_make(&r, C, "/v1/pods", "a", "p", obj_bare, NULL);
    tap_ok(!gw_admission_match_exempt(&r.rq), "a pod is not exempt");
    req_clear(&r);
    gw_admission_match_free(m);
    json_decref(all);
}

typedef struct {
    const char *what;
    const char *policy, *binding; /* NULL binding: no matchResources */
    gw_admission_op_t op;
    const char *gvr;
    const char *obj, *ns_obj;
    int want;
    const char *want_gvr;
} pcase_t;

#define DEPLOY_AND_PODS                                                                            \
    "{'resourceRules':[{'operations':['*'],'apiGroups':['apps',''],'apiVersions':['v1'],"          \
    "'resources':['deployments','pods']}]}"
#define HPA_V2_EQUIVALENT                                                                          \
    "{'matchPolicy':'Equivalent','resourceRules':[{'operations':['*'],"                            \
    "'apiGroups':['autoscaling'],'apiVersions':['v2'],'resources':['horizontalpodautoscalers']}]}"

static const pcase_t pcases[] = {
    {"binding without matchResources: the policy decides", DEPLOY_AND_PODS, NULL, C,
     "apps/v1/deployments", obj_bare, NULL, 1, "apps/v1/deployments"},
    {"binding narrower: inside", DEPLOY_AND_PODS, RULE("'*'", "''", "'v1'", "'pods'"), C,
     "/v1/pods", obj_bare, NULL, 1, "/v1/pods"},
    {"binding narrower: outside", DEPLOY_AND_PODS, RULE("'*'", "''", "'v1'", "'pods'"), C,
     "apps/v1/deployments", obj_bare, NULL, 0, NULL},
    {"binding wider than the policy: the policy still bounds it", DEPLOY_AND_PODS, "{}", C,
     "/v1/configmaps", obj_bare, NULL, 0, NULL},
    {"binding's namespaceSelector", DEPLOY_AND_PODS,
     "{'namespaceSelector':{'matchLabels':{'env':'dev'}}}", C, "/v1/pods", obj_bare, ns_prod, 0,
     NULL},
    {"binding's objectSelector", DEPLOY_AND_PODS,
     "{'objectSelector':{'matchLabels':{'app':'web'}}}", C, "/v1/pods", obj_web, NULL, 1,
     "/v1/pods"},
    {"binding's exclude rules", DEPLOY_AND_PODS,
     "{'excludeResourceRules':[{'operations':['CREATE'],'apiGroups':[''],'apiVersions':['v1'],"
     "'resources':['pods']}]}",
     C, "/v1/pods", obj_bare, NULL, 0, NULL},
    {"the matched resource is the policy's (Equivalent), whatever the binding's", HPA_V2_EQUIVALENT,
     RULE("'*'", "'autoscaling'", "'v1'", "'horizontalpodautoscalers'"), C,
     "autoscaling/v1/horizontalpodautoscalers", obj_bare, NULL, 1,
     "autoscaling/v2/horizontalpodautoscalers"},
    {"a binding with its own Exact rules for another version", HPA_V2_EQUIVALENT,
     RULE("'*'", "'autoscaling'", "'v2'", "'horizontalpodautoscalers'"), C,
     "autoscaling/v1/horizontalpodautoscalers", obj_bare, NULL, 0, NULL},
    {"a binding's error", DEPLOY_AND_PODS,
     "{'objectSelector':{'matchExpressions':[{'key':'app','operator':'Has'}]}}", C, "/v1/pods",
     obj_web, NULL, GW_EINVAL, NULL},
    {"a binding's error does not matter when the policy does not match",
     RULE("'*'", "'batch'", "'v1'", "'jobs'"),
     "{'objectSelector':{'matchExpressions':[{'key':'app','operator':'Has'}]}}", C, "/v1/pods",
     obj_web, NULL, 0, NULL},
};

static void
check_pcase(const pcase_t *t)
{
    json_t *pj = doc(t->policy), *bj = doc(t->binding), *ns = doc(t->ns_obj);
    gw_admission_match_t *p = gw_admission_match_new(pj);
    gw_admission_match_t *b = bj != NULL ? gw_admission_match_new(bj) : NULL;
    gw_admission_matched_t out;
    char err[256], got[256];
    req_t r;
    int rc;

    req_make(&r, t->op, t->gvr, "a", "x", t->obj, NULL);
    rc = gw_admission_match_policy(p, b, &r.rq, ns, served, &out, err, sizeof(err));
    tap_is_int(rc, t->want, t->what);
    if (rc == 1 && t->want_gvr != NULL) {
        snprintf(got, sizeof(got), "%s/%s/%s", out.resource.group, out.resource.version,
                 out.resource.resource);
        tap_is_str(got, t->want_gvr, "  matched resource");
    }
    if (t->want == 1 || t->want == 0)
        tap_is_int(
            gw_admission_match_binding(b, &r.rq, ns, served, err, sizeof(err)) == 1 &&
                gw_admission_match_definition(p, &r.rq, ns, served, NULL, err, sizeof(err)) == 1,
            t->want, "  the same as the definition and the binding each");
    req_clear(&r);
    gw_admission_match_free(p);
    gw_admission_match_free(b);
    json_decref(pj);
    json_decref(bj);
    json_decref(ns);
}

static void
test_no_constraints(void)
{
    char err[256] = "";
    req_t r;

    req_make(&r, C, "/v1/pods", "a", "p", obj_bare, NULL);
    tap_is_int(gw_admission_match_definition(NULL, &r.rq, NULL, served, NULL, err, sizeof(err)),
               GW_EINVAL, "a policy without matchConstraints is an error");
    tap_is_str(err, "policy contained no match constraints, a required field", "kube's words");
    tap_is_int(gw_admission_match_binding(NULL, &r.rq, NULL, served, err, sizeof(err)), 1,
               "a binding without matchResources matches");
    req_clear(&r);
}

/* ---- webhooks ------------------------------------------------------------------------------ */

static int
webhook_match(const char *webhook, gw_admission_op_t op, const char *gvr, const char *name,
              gw_admission_matched_t *out)
{
    json_t *j = doc(webhook);
    gw_admission_match_t *m = gw_admission_match_new_webhook(j);
    char err[256];
    req_t r;
    int rc;

    req_make(&r, op, gvr, "a", name, obj_web, NULL);
    rc = gw_admission_match(m, &r.rq, NULL, served, out, err, sizeof(err));
    req_clear(&r);
    gw_admission_match_free(m);
    json_decref(j);
    return rc;
}

static void
test_webhook(void)
{
    gw_admission_matched_t out;

    tap_is_int(webhook_match("{'name':'w','rules':[{'operations':['CREATE'],'apiGroups':[''],"
                             "'apiVersions':['v1'],'resources':['pods'],'scope':'*'}]}",
                             C, "/v1/pods", "p", NULL),
               1, "webhook: its rules");
    tap_is_int(webhook_match("{'name':'w','rules':[{'operations':['CREATE'],'apiGroups':[''],"
                             "'apiVersions':['v1'],'resources':['pods']}]}",
                             U, "/v1/pods", "p", NULL),
               0, "webhook: another operation");
    tap_is_int(webhook_match("{'name':'w'}", C, "/v1/pods", "p", NULL), 0,
               "webhook: no rules call it for nothing");
    tap_is_int(webhook_match("{'name':'w','rules':[],'resourceRules':[" ALL_RULE "]}", C,
                             "/v1/pods", "p", NULL),
               0, "webhook: only its rules count");
    tap_is_int(webhook_match("{'name':'w','objectSelector':{'matchLabels':{'app':'db'}},"
                             "'rules':[" ALL_RULE "]}",
                             C, "/v1/pods", "p", NULL),
               0, "webhook: its objectSelector");
    tap_is_int(webhook_match("{'name':'w','matchPolicy':'Equivalent','rules':[{'operations':['*'],"
                             "'apiGroups':['autoscaling'],'apiVersions':['v2'],"
                             "'resources':['horizontalpodautoscalers']}]}",
                             C, "autoscaling/v1/horizontalpodautoscalers", "h", &out),
               1, "webhook: Equivalent");
    tap_is_str(out.resource.version, "v2", "  called as the version its rules name");
}

int
main(void)
{
    char err[256];

    if (gw_catalog_configure(gw_catalog_builtin(), NULL, &served, err, sizeof(err)) != 0) {
        tap_diag("catalog: %s", err);
        return 1;
    }
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        check_case(&cases[i]);
    test_request();
    test_wants_namespace();
    test_exempt();
    for (size_t i = 0; i < sizeof(pcases) / sizeof(pcases[0]); i++)
        check_pcase(&pcases[i]);
    test_no_constraints();
    test_webhook();
    return tap_done();
}
