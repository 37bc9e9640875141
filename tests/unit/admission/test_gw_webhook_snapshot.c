/* Unit tests for gateway/admission/gw_webhook_snapshot: kube's order (configurations by name,
 * webhooks as listed), each webhook's compiled fields and their defaults, odd stored values
 * taken without a crash, matchConditions compiled, and the published snapshot. */
#include <stdlib.h>
#include <string.h>

#include "gw_webhook_snapshot.h"
#include "tap.h"

static json_t *
load(const char *s)
{
    json_error_t e;
    json_t *j = json_loads(s, 0, &e);
    if (j == NULL)
        tap_diag("bad JSON: %s", e.text);
    return j;
}

#define RULES                                                                                      \
    "\"rules\":[{\"operations\":[\"CREATE\"],\"apiGroups\":[\"\"],\"apiVersions\":[\"v1\"],"       \
    "\"resources\":[\"configmaps\"]}]"
#define HOOK(name, extra)                                                                          \
    "{\"name\":\"" name "\",\"clientConfig\":{\"url\":\"https://h/" name "\"}," RULES              \
    ",\"sideEffects\":\"None\",\"admissionReviewVersions\":[\"v1\"]" extra "}"
#define CONFIG(name, hooks) "{\"metadata\":{\"name\":\"" name "\"},\"webhooks\":[" hooks "]}"

static void
test_order_and_fields(void)
{
    json_t *m = load("[" CONFIG("b", HOOK("b1", "") "," HOOK("b2", "")) "," CONFIG(
        "a", HOOK("a1", ",\"reinvocationPolicy\":\"IfNeeded\",\"failurePolicy\":\"Ignore\","
                        "\"timeoutSeconds\":3")) "]");
    json_t *v = load(
        "[" CONFIG("v", "{\"name\":\"svc\",\"clientConfig\":{\"service\":{\"namespace\":\"ns\","
                        "\"name\":\"s\",\"path\":\"/p\"},\"caBundle\":\"aGVsbG8=\"}," RULES
                        ",\"sideEffects\":\"Some\",\"admissionReviewVersions\":[\"v2\","
                        "\"v1beta1\",\"v1\"]}") "]");
    gw_webhook_snap_t *s = gw_webhook_snap_new(m, v, NULL);
    const gw_webhook_t *w;

    tap_is_int(gw_webhook_snap_count(s, true), 3, "three mutating webhooks");
    tap_is_str(gw_webhook_snap_at(s, true, 0)->name, "a1", "configurations by name: a first");
    tap_is_str(gw_webhook_snap_at(s, true, 1)->name, "b1", "... then b's in listed order");
    tap_is_str(gw_webhook_snap_at(s, true, 2)->name, "b2", "... b2 last");
    w = gw_webhook_snap_at(s, true, 0);
    tap_ok(w->reinvoke_if_needed && w->ignore && w->timeout_s == 3 && w->mutating,
           "a1: IfNeeded, Ignore, 3 s");
    tap_is_str(w->uid, "a/a1/0", "kube's webhook UID");
    tap_is_str(w->url, "https://h/a1", "its URL");
    w = gw_webhook_snap_at(s, true, 1);
    tap_ok(!w->reinvoke_if_needed && !w->ignore && w->timeout_s == 10,
           "defaults: Never, Fail, 10 s");
    tap_ok(w->side_effects == GW_WEBHOOK_SIDE_EFFECTS_NONE && strcmp(w->review_version, "v1") == 0,
           "sideEffects None, review v1");
    tap_ok(w->conditions == NULL, "no matchConditions: nothing compiled");
    tap_is_int(gw_webhook_snap_count(s, false), 1, "one validating webhook");
    w = gw_webhook_snap_at(s, false, 0);
    tap_ok(w->url == NULL && strcmp(w->svc_namespace, "ns") == 0 && strcmp(w->svc_name, "s") == 0 &&
               strcmp(w->svc_path, "/p") == 0 && w->svc_port == 443,
           "a service: namespace, name, path, default port 443");
    tap_is_str(w->ca_pem, "hello", "the caBundle decoded");
    tap_is_str(w->review_version, "v1beta1", "the first review version kgate speaks");
    tap_ok(w->side_effects == GW_WEBHOOK_SIDE_EFFECTS_SOME && !w->mutating, "sideEffects Some");
    gw_webhook_snap_unref(s);
    json_decref(m);
    json_decref(v);
}

static void
test_odd_values(void)
{
    json_t *v = load(
        "[" CONFIG("odd", "{\"name\":\"o\",\"timeoutSeconds\":-4,\"sideEffects\":7,"
                          "\"admissionReviewVersions\":[\"v9\"],\"clientConfig\":{\"caBundle\":"
                          "\"!!\"},\"rules\":\"x\",\"matchConditions\":[{\"name\":\"c\","
                          "\"expression\":\"1 +\"}]},7,{}") ",{\"webhooks\":5},3,{}]");
    gw_webhook_snap_t *s = gw_webhook_snap_new(NULL, v, NULL);
    const gw_webhook_t *w;

    tap_is_int(gw_webhook_snap_count(s, false), 2, "odd webhooks are kept, non-objects left out");
    tap_is_int(gw_webhook_snap_count(s, true), 0, "no mutating configurations");
    w = gw_webhook_snap_at(s, false, 0);
    tap_ok(w->timeout_s == 1, "a timeout below a second is a second");
    tap_ok(w->side_effects == GW_WEBHOOK_SIDE_EFFECTS_UNSET, "sideEffects not a string: unset");
    tap_ok(w->review_version == NULL, "no review version kgate speaks");
    tap_ok(w->ca_pem == NULL && w->url == NULL && w->svc_name == NULL,
           "an unreadable caBundle, no URL, no service");
    tap_ok(w->conditions != NULL, "a matchCondition that does not compile is compiled anyway");
    w = gw_webhook_snap_at(s, false, 1);
    tap_is_str(w->name, "", "a webhook without a name");
    gw_webhook_snap_publish(s);
    gw_webhook_snap_t *cur = gw_webhook_snap_current();
    tap_ok(cur == s, "the published snapshot is the current one");
    gw_webhook_snap_unref(cur);
    gw_webhook_snap_publish(NULL);
    tap_ok(gw_webhook_snap_current() == NULL, "publishing NULL leaves no webhooks");
    json_decref(v);
}

static void
test_reuse(void)
{
    json_t *v1 = load("[" CONFIG("a", HOOK("a1", "")) "," CONFIG("b", HOOK("b1", "")) "]");
    json_t *v2 = load("[" CONFIG("a", HOOK("a1", "")) "," CONFIG(
        "b", HOOK("b1", ",\"failurePolicy\":\"Ignore\"")) "]");
    gw_webhook_snap_t *s1 = gw_webhook_snap_new(NULL, v1, NULL);
    gw_webhook_snap_t *s2 = gw_webhook_snap_new(NULL, v2, s1);

    tap_is_int(gw_webhook_snap_reused(s1), 0, "a first build compiles everything");
    tap_is_int(gw_webhook_snap_reused(s2), 1, "a rebuild reuses the unchanged configuration");
    tap_ok(gw_webhook_snap_at(s2, false, 0) == gw_webhook_snap_at(s1, false, 0),
           "... its very webhooks");
    tap_ok(gw_webhook_snap_at(s2, false, 1) != gw_webhook_snap_at(s1, false, 1) &&
               gw_webhook_snap_at(s2, false, 1)->ignore,
           "a changed configuration is compiled again");
    gw_webhook_snap_unref(s1);
    tap_is_str(gw_webhook_snap_at(s2, false, 0)->name, "a1",
               "the shared webhooks outlive the snapshot they came from");
    gw_webhook_snap_unref(s2);
    json_decref(v1);
    json_decref(v2);
}

/* A stored webhook without matchPolicy is read as kube's decoding defaults it: Equivalent. */
static void
test_match_policy_default(void)
{
    const gw_catalog_t *cat = NULL;
    char err[256];
    json_t *v = load(
        "[" CONFIG("e", "{\"name\":\"unset\",\"rules\":[{\"operations\":[\"CREATE\"],\"apiGroups\":"
                        "[\"autoscaling\"],\"apiVersions\":[\"v1\"],\"resources\":"
                        "[\"horizontalpodautoscalers\"]}]},{\"name\":\"exact\",\"matchPolicy\":"
                        "\"Exact\",\"rules\":[{\"operations\":[\"CREATE\"],\"apiGroups\":"
                        "[\"autoscaling\"],\"apiVersions\":[\"v1\"],\"resources\":"
                        "[\"horizontalpodautoscalers\"]}]}") "]");
    gw_webhook_snap_t *s = gw_webhook_snap_new(NULL, v, NULL);
    json_t *obj = load("{\"metadata\":{\"name\":\"h\"}}");
    gw_admission_request_t rq = {
        .op = GW_ADMISSION_CREATE,
        .resource = {"autoscaling", "v2", "horizontalpodautoscalers"},
        .subresource = "",
        .kind = {"autoscaling", "v2", "HorizontalPodAutoscaler"},
        .namespace_ = "default",
        .name = "h",
        .object = obj,
        .namespaced = true,
    };
    gw_admission_matched_t m;

    if (gw_catalog_configure(gw_catalog_builtin(), NULL, &cat, err, sizeof(err)) != 0) {
        tap_diag("%s", err);
        return;
    }
    tap_is_int(gw_admission_match(gw_webhook_snap_at(s, false, 0)->match, &rq, NULL, cat, &m, err,
                                  sizeof(err)),
               1, "no matchPolicy: an autoscaling/v2 request matches a v1 rule (Equivalent)");
    tap_is_str(m.resource.version, "v1", "... through the v1 resource");
    tap_is_int(gw_admission_match(gw_webhook_snap_at(s, false, 1)->match, &rq, NULL, cat, &m, err,
                                  sizeof(err)),
               0, "matchPolicy Exact: it does not");
    gw_webhook_snap_unref(s);
    json_decref(obj);
    json_decref(v);
}

int
main(void)
{
    test_order_and_fields();
    test_odd_values();
    test_reuse();
    test_match_policy_default();
    return tap_done();
}
