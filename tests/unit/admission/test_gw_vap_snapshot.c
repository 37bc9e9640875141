/* Unit tests for gateway/admission/gw_vap_snapshot: policies joined to their bindings, params
 * by name and by selector with kube's namespace rules and parameterNotFoundAction, an unserved
 * paramKind, reuse of compiled policies across rebuilds, and the published snapshot. */
#include <stdlib.h>
#include <string.h>

#include "gw_map_compile.h"
#include "gw_vap_snapshot.h"
#include "tap.h"

static const gw_catalog_t *cat;

static json_t *
load(const char *s)
{
    json_error_t e;
    json_t *j = json_loads(s, 0, &e);
    if (j == NULL)
        tap_diag("bad JSON: %s", e.text);
    return j;
}

#define POLICY(name, extra)                                                                        \
    "{\"metadata\":{\"name\":\"" name "\"},\"spec\":{\"matchConstraints\":{\"resourceRules\":"     \
    "[{\"apiGroups\":[\"\"],\"apiVersions\":[\"v1\"],\"operations\":[\"CREATE\"],"                 \
    "\"resources\":[\"configmaps\"]}]},\"validations\":[{\"expression\":\"true\"}]" extra "}}"
#define BINDING(name, policy, extra)                                                               \
    "{\"metadata\":{\"name\":\"" name "\"},\"spec\":{\"policyName\":\"" policy                     \
    "\",\"validationActions\":[\"Deny\"]" extra "}}"
#define CM(ns, name, labels)                                                                       \
    "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"namespace\":\"" ns              \
    "\",\"name\":\"" name "\",\"labels\":" labels "}}"
#define PK_CM ",\"paramKind\":{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\"}"
#define PK_PC ",\"paramKind\":{\"apiVersion\":\"scheduling.k8s.io/v1\",\"kind\":\"PriorityClass\"}"

static gw_vap_snap_t *
build(const char *policies, const char *bindings, const char *params, const gw_vap_snap_t *prev)
{
    json_t *p = load(policies), *b = load(bindings), *pa = load(params);
    gw_vap_snap_t *s = gw_vap_snap_new(cat, p, b, pa, prev);
    json_decref(p);
    json_decref(b);
    json_decref(pa);
    return s;
}

static const gw_vap_policy_t *
find(const gw_vap_snap_t *s, const char *name)
{
    for (size_t i = 0; i < gw_vap_snap_count(s); i++)
        if (strcmp(gw_vap_snap_policy(s, i)->name, name) == 0)
            return gw_vap_snap_policy(s, i);
    return NULL;
}

/* The names of the params binding `bi` of `p` finds for namespace ns, "a,b", or "ERR:<msg>",
 * or "NONE" for no paramKind; in a static buffer. */
static const char *
params(const gw_vap_policy_t *p, size_t bi, const char *ns)
{
    static char buf[512];
    json_t *out;
    char *err;
    size_t i;
    json_t *o;

    if (gw_vap_snap_params(p, &p->bindings[bi], ns, cat, &out, &err) != 0) {
        snprintf(buf, sizeof(buf), "ERR:%s", err);
        free(err);
        return buf;
    }
    if (out == NULL)
        return "NONE";
    buf[0] = '\0';
    json_array_foreach(out, i, o)
    {
        if (i > 0)
            strcat(buf, ",");
        strcat(buf, json_string_value(json_object_get(json_object_get(o, "metadata"), "name")));
    }
    json_decref(out);
    return buf;
}

/* clang-format off */
static const char *cms =
    "{\"configmaps\":["
    CM("default", "limits", "{}") ","
    CM("default", "s1", "{\"kind\":\"limit\"}") ","
    CM("other", "s2", "{\"kind\":\"limit\"}") ","
    CM("other", "limits", "{\"kind\":\"x\"}") "],"
    "\"priorityclasses\":[{\"metadata\":{\"name\":\"high\"}}]}";

static const char *policies =
    "[" POLICY("pz", "") "," POLICY("pa", PK_CM) "," POLICY("pc", PK_PC) "]";

static const char *bindings =
    "[" BINDING("b-none", "pz", "") ","
    BINDING("b-name", "pa", ",\"paramRef\":{\"name\":\"limits\","
                            "\"parameterNotFoundAction\":\"Deny\"}") ","
    BINDING("b-ns", "pa", ",\"paramRef\":{\"name\":\"limits\",\"namespace\":\"other\"}") ","
    BINDING("b-sel", "pa", ",\"paramRef\":{\"selector\":{\"matchLabels\":{\"kind\":\"limit\"}},"
                           "\"parameterNotFoundAction\":\"Allow\"}") ","
    BINDING("b-all", "pa", ",\"paramRef\":{\"selector\":{}}") ","
    BINDING("b-noref", "pa", "") ","
    BINDING("b-pc", "pc", ",\"paramRef\":{\"name\":\"high\"}") ","
    BINDING("b-pcns", "pc", ",\"paramRef\":{\"name\":\"high\",\"namespace\":\"default\"}") ","
    BINDING("b-other", "nosuch", "") "]";
/* clang-format on */

static void
test_bindings_and_params(void)
{
    gw_vap_snap_t *s = build(policies, bindings, cms, NULL);
    const gw_vap_policy_t *pz = find(s, "pz"), *pa = find(s, "pa"), *pc = find(s, "pc");

    tap_is_int((int)gw_vap_snap_count(s), 3, "three policies");
    tap_is_str(gw_vap_snap_policy(s, 0)->name, "pa", "ordered by name");
    tap_is_int((int)pz->nbindings, 1, "pz has its one binding");
    tap_is_int((int)pa->nbindings, 5, "pa has its five, a binding of a missing policy is nobody's");
    tap_ok(pa->constraints != NULL && pa->compiled != NULL, "constraints and compiled form");
    tap_ok(gw_vap_policy_may_match(pa, "configmaps"), "its rules' resource may match");
    tap_ok(!gw_vap_policy_may_match(pa, "secrets"), "... another resource may not");
    tap_is_str(params(pz, 0, "default"), "NONE", "no paramKind: one evaluation, null params");
    tap_is_str(params(pa, 0, "default"), "limits", "by name, in the request's namespace");
    tap_is_str(params(pa, 0, "nowhere"),
               "ERR:no params found for policy binding with `Deny` parameterNotFoundAction",
               "not found under Deny");
    tap_is_str(params(pa, 0, ""),
               "ERR:cannot use namespaced paramRef in policy binding that matches cluster-scoped "
               "resources",
               "a namespaced param kind for a cluster-scoped request");
    tap_is_str(params(pa, 1, "default"), "limits", "paramRef.namespace wins");
    tap_is_str(params(pa, 1, ""), "limits", "... also for cluster-scoped requests");
    tap_is_str(params(pa, 2, "default"), "s1", "by selector, in the request's namespace");
    tap_is_str(params(pa, 2, "other"), "s2", "... only there");
    tap_is_str(params(pa, 2, "empty"), "", "none found under Allow: an empty list");
    tap_is_str(params(pa, 3, "other"), "s2,limits", "{} selects them all, in the order given");
    tap_is_str(params(pa, 4, "default"), "NONE",
               "a binding without paramRef: one evaluation, null params");
    tap_is_str(params(pc, 0, "default"), "high", "a cluster-scoped param kind ignores namespaces");
    tap_is_str(params(pc, 0, ""), "high", "... for cluster-scoped requests too");
    tap_is_str(params(pc, 1, "default"),
               "ERR:paramRef.namespace must not be provided for a cluster-scoped `paramKind`",
               "paramRef.namespace on a cluster-scoped param kind");
    gw_vap_snap_unref(s);
}

static void
test_unserved_param_kind(void)
{
    gw_vap_snap_t *s = build("[" POLICY("p", ",\"paramKind\":{\"apiVersion\":\"example.com/v1\","
                                             "\"kind\":\"Limit\"}") "]",
                             "[]", "{}", NULL);
    const gw_vap_policy_t *p = gw_vap_snap_policy(s, 0);

    tap_ok(p->param_resource == NULL, "an unserved paramKind has no resource");
    tap_is_str(p->config_error,
               "failed to find resource referenced by paramKind: 'example.com/v1, Kind=Limit'",
               "... and is kube's configuration error");
    gw_vap_snap_unref(s);
}

static void
test_may_match(void)
{
    gw_vap_snap_t *s =
        build("[{\"metadata\":{\"name\":\"w\"},\"spec\":{\"matchConstraints\":{\"resourceRules\":"
              "[{\"resources\":[\"pods/status\"]},{\"resources\":[\"*/scale\"]}]}}},"
              "{\"metadata\":{\"name\":\"x\"},\"spec\":{\"matchConstraints\":{\"resourceRules\":"
              "[{\"resources\":[\"pods/*\",\"deployments\"]}]}}}]",
              "[]", "{}", NULL);

    tap_ok(gw_vap_policy_may_match(find(s, "w"), "anything"), "a */scale rule may match any");
    tap_ok(gw_vap_policy_may_match(find(s, "x"), "pods"), "pods/* names pods");
    tap_ok(gw_vap_policy_may_match(find(s, "x"), "deployments"), "... and the other resource");
    tap_ok(!gw_vap_policy_may_match(find(s, "x"), "services"), "... but not services");
    gw_vap_snap_unref(s);
}

static void
test_reuse(void)
{
    gw_vap_snap_t *s1 = build("[" POLICY("a", "") "," POLICY("b", "") "]", "[]", "{}", NULL);
    gw_vap_snap_t *s2 = build("[" POLICY("a", "") "," POLICY(
                                  "b", ",\"failurePolicy\":\"Ignore\"") "," POLICY("c", "") "]",
                              "[]", "{}", s1);

    tap_is_int((int)gw_vap_snap_reused(s1), 0, "a first snapshot compiles everything");
    tap_is_int((int)gw_vap_snap_reused(s2), 1, "a rebuild reuses the unchanged policy only");
    tap_ok(find(s2, "a")->compiled == find(s1, "a")->compiled, "... the very same compiled form");
    tap_ok(find(s2, "b")->compiled != find(s1, "b")->compiled, "a changed spec is compiled again");
    tap_ok(gw_vap_compiled_ignores_failures(find(s2, "b")->compiled), "... from its new spec");
    gw_vap_snap_unref(s1);
    tap_is_str(gw_vap_compiled_name(find(s2, "a")->compiled), "a",
               "the shared compiled form outlives the snapshot it came from");
    gw_vap_snap_publish(s2);
    gw_vap_snap_t *cur = gw_vap_snap_current();
    tap_ok(cur == s2, "the published snapshot is the current one");
    gw_vap_snap_unref(cur);
    gw_vap_snap_publish(NULL);
    tap_ok(gw_vap_snap_current() == NULL, "publishing NULL leaves no policies");
}

#define MAP(name, extra)                                                                           \
    "{\"metadata\":{\"name\":\"" name "\"},\"spec\":{\"matchConstraints\":{\"resourceRules\":"     \
    "[{\"apiGroups\":[\"\"],\"apiVersions\":[\"v1\"],\"operations\":[\"CREATE\"],"                 \
    "\"resources\":[\"configmaps\"]}]},\"reinvocationPolicy\":\"IfNeeded\",\"mutations\":[{"       \
    "\"patchType\":\"ApplyConfiguration\",\"applyConfiguration\":{\"expression\":\"Object{}\"}}"   \
    "]" extra "}}"

/* MutatingAdmissionPolicies: their own snapshot, published apart, each compiled as a mutating
 * policy with the validating form of its variables and matchConditions. */
static void
test_mutating(void)
{
    json_t *p = load("[" MAP("m", ",\"failurePolicy\":\"Ignore\"") "]");
    json_t *b = load("[" BINDING("mb", "m", "") "]"), *pa = load("{}");
    gw_vap_snap_t *s1 = gw_map_snap_new(cat, p, b, pa, NULL);
    gw_vap_snap_t *s2 = gw_map_snap_new(cat, p, b, pa, s1);
    const gw_vap_policy_t *m = find(s1, "m");

    tap_ok(m != NULL && m->mutating != NULL && gw_map_compiled_mutations(m->mutating) == 1 &&
               gw_map_compiled_reinvokes(m->mutating),
           "a mutating policy is compiled with its mutations");
    tap_ok(m != NULL && m->compiled == gw_map_compiled_base(m->mutating) &&
               gw_vap_compiled_ignores_failures(m->compiled),
           "... its failure policy read from its base");
    tap_ok(m != NULL && m->nbindings == 1, "... with its binding");
    tap_is_int((int)gw_vap_snap_reused(s2), 1, "... and reused by a rebuild");
    gw_vap_snap_publish(s2);
    gw_vap_snap_t *cur = gw_map_snap_current(), *vcur = gw_vap_snap_current();
    tap_ok(cur == s2 && vcur == NULL, "published as the mutating snapshot, apart from the other");
    gw_vap_snap_unref(cur);
    gw_vap_snap_unref(vcur);
    gw_vap_snap_unref(s1);
    json_decref(p);
    json_decref(b);
    json_decref(pa);
}

int
main(void)
{
    const gw_catalog_t *served = NULL;
    char err[256];

    if (gw_catalog_configure(gw_catalog_builtin(), NULL, &served, err, sizeof(err)) != 0) {
        tap_diag("%s", err);
        return 1;
    }
    cat = served;
    test_bindings_and_params();
    test_unserved_param_kind();
    test_may_match();
    test_reuse();
    test_mutating();
    return tap_done();
}
