/* The Webhook authorizer through the chain, with a stand-in HTTPS function that records each
 * SubjectAccessReview and answers when the test says: allow, deny and no opinion, the review's
 * shape in v1beta1 and v1, the cache and its TTLs, failed exchanges, callers that cannot wait,
 * and the start-up errors. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "authz.h"
#include "gw_err.h"
#include "authz_result.h"
#include "tap.h"

static char err[512];
static char dir[] = "/tmp/authz_webhook_XXXXXX";
static char kubeconfig[512];

/* The exchange in flight, if any. */
static struct {
    int calls;
    char url[256];
    char token[64];
    json_t *review;
    authz_https_cb cb;
    void *ctx;
} hook;

static void
fake_https(void *io, const char *url, const char *body, const authn_tls_t *tls, authz_https_cb cb,
           void *ctx)
{
    (void)io;
    hook.calls++;
    snprintf(hook.url, sizeof(hook.url), "%s", url);
    json_decref(hook.review);
    hook.review = json_loads(body, 0, NULL);
    hook.cb = cb;
    hook.ctx = ctx;
    snprintf(hook.token, sizeof(hook.token), "%s", tls->bearer_token ? tls->bearer_token : "");
}

/* Answer the exchange in flight. */
static void
answer(int e, int status, const char *body)
{
    authz_https_cb cb = hook.cb;
    hook.cb = NULL;
    cb(e, status, body, body != NULL ? strlen(body) : 0, hook.ctx);
}

static char *groups[] = {(char *)"devs", (char *)"system:authenticated"};
static authn_user_t alice = {
    .name = (char *)"alice", .uid = (char *)"42", .groups = groups, .n_groups = 2};

/* Ask for `verb` on pods in default; the result so far (calls 0: waiting on the hook). */
static result_t *
ask(const authz_t *z, const char *verb, void *io)
{
    static result_t r;
    authz_attrs_t attrs = {.user = &alice,
                           .verb = verb,
                           .resource_request = true,
                           .api_group = "",
                           .api_version = "v1",
                           .resource = "pods",
                           .subresource = "",
                           .namespace_ = "default",
                           .name = "",
                           .path = "",
                           .io = io};
    r = (result_t){0};
    authz_authorize(z, &attrs, on_done, &r);
    return &r;
}

static authz_t *
chain(const char *modes, const char *version, int64_t allowed_ttl_ms, int64_t other_ttl_ms)
{
    authz_config_t cfg = {.webhook_config_file = kubeconfig,
                          .webhook_version = version,
                          .webhook_authorized_ttl_ms = allowed_ttl_ms,
                          .webhook_unauthorized_ttl_ms = other_ttl_ms,
                          .https = fake_https};
    authz_t *z = NULL;
    if (authz_new_config(modes, &cfg, &z, err, sizeof(err)) != 0)
        tap_diag("%s: %s", modes, err);
    return z;
}

static const char *
spec_str(const char *path1, const char *path2)
{
    const json_t *spec = json_object_get(hook.review, "spec");
    const json_t *v = json_object_get(spec, path1);
    return json_string_value(path2 != NULL ? json_object_get(v, path2) : v);
}

static void
test_review_shape(void)
{
    authz_t *z = chain("Webhook", NULL, 60000, 60000);
    result_t *r = ask(z, "list", (void *)1);

    tap_ok(r->calls == 0 && hook.calls == 1, "the decision waits on one exchange");
    tap_is_str(hook.url, "https://127.0.0.1:9/authorize", "POSTed to the kubeconfig's server");
    tap_is_str(hook.token, "sar-secret", "with the kubeconfig's credentials");
    tap_is_str(json_string_value(json_object_get(hook.review, "apiVersion")),
               "authorization.k8s.io/v1beta1", "a v1beta1 review by default");
    tap_is_str(json_string_value(json_object_get(hook.review, "kind")), "SubjectAccessReview",
               "of kind SubjectAccessReview");
    tap_is_str(spec_str("user", NULL), "alice", "spec.user");
    tap_is_str(spec_str("uid", NULL), "42", "spec.uid");
    tap_is_int((int)json_array_size(json_object_get(json_object_get(hook.review, "spec"), "group")),
               2, "v1beta1 names the groups spec.group");
    tap_is_str(spec_str("resourceAttributes", "verb"), "list", "resourceAttributes.verb");
    tap_is_str(spec_str("resourceAttributes", "namespace"), "default",
               "resourceAttributes.namespace");
    tap_is_str(spec_str("resourceAttributes", "resource"), "pods", "resourceAttributes.resource");
    tap_ok(spec_str("resourceAttributes", "name") == NULL, "empty attributes are left out");
    answer(0, 200, "{\"status\":{\"allowed\":true,\"reason\":\"alice may\"}}");
    tap_ok(r->calls == 1 && r->decision == AUTHZ_ALLOW, "status.allowed allows");
    tap_is_str(r->reason, "alice may", "with the webhook's reason");
    authz_free(z);

    z = chain("Webhook", "v1", 60000, 60000);
    ask(z, "get", (void *)1);
    tap_is_str(json_string_value(json_object_get(hook.review, "apiVersion")),
               "authorization.k8s.io/v1", "--authorization-webhook-version=v1");
    tap_is_int(
        (int)json_array_size(json_object_get(json_object_get(hook.review, "spec"), "groups")), 2,
        "v1 names the groups spec.groups");
    answer(0, 200, "{\"status\":{\"allowed\":false}}");
    authz_free(z);
}

static void
test_decisions(void)
{
    authz_t *z = chain("Webhook,AlwaysAllow", NULL, 60000, 60000);
    result_t *r = ask(z, "delete", (void *)1);

    answer(0, 200, "{\"status\":{\"allowed\":false,\"denied\":true,\"reason\":\"no way\"}}");
    tap_ok(r->calls == 1 && r->decision == AUTHZ_DENY, "status.denied denies, the chain stops");
    tap_is_str(r->reason, "no way", "with the webhook's reason");
    r = ask(z, "patch", (void *)1);
    answer(0, 200, "{\"status\":{\"allowed\":false}}");
    tap_ok(r->calls == 1 && r->decision == AUTHZ_ALLOW,
           "neither allowed nor denied: no opinion, the next mode decides");
    r = ask(z, "create", (void *)1);
    answer(GW_ETIMEOUT, 0, NULL);
    tap_ok(r->calls == 1 && r->decision == AUTHZ_ALLOW, "a failed exchange has no opinion");
    tap_ok(strstr(r->error, "no answer in time") != NULL, "... and an error: %s", r->error);
    r = ask(z, "update", (void *)1);
    answer(0, 500, "{\"status\":{\"allowed\":true}}");
    tap_ok(r->calls == 1 && r->decision == AUTHZ_ALLOW, "an error status has no opinion");
    tap_ok(strstr(r->error, "HTTP status 500") != NULL, "... and an error: %s", r->error);
    r = ask(z, "watch", (void *)1);
    answer(0, 200, "not json");
    tap_ok(r->calls == 1 && r->decision == AUTHZ_ALLOW, "an unreadable answer has no opinion");
    tap_is_str(r->error,
               "authorization webhook https://127.0.0.1:9/authorize: not a SubjectAccessReview",
               "... and an error naming the server");
    int calls = hook.calls;
    r = ask(z, "escalate", NULL);
    tap_ok(r->calls == 1 && r->decision == AUTHZ_ALLOW && hook.calls == calls,
           "a caller that cannot wait: no opinion at once, nothing asked");
    authz_free(z);
}

static void
test_cache(void)
{
    authz_t *z = chain("Webhook", NULL, 60000, 60000);
    ask(z, "get", (void *)1);
    answer(0, 200, "{\"status\":{\"allowed\":true,\"reason\":\"ok\"}}");
    int calls = hook.calls;
    result_t *r = ask(z, "get", (void *)1);
    tap_ok(r->calls == 1 && r->decision == AUTHZ_ALLOW && hook.calls == calls,
           "an allow is cached: answered at once, not asked again");
    tap_is_str(r->reason, "ok", "... with its reason");
    ask(z, "list", (void *)1);
    tap_is_int(hook.calls, calls + 1, "other attributes are asked");
    answer(0, 200, "{\"status\":{\"denied\":true}}");
    r = ask(z, "list", (void *)1);
    tap_ok(r->calls == 1 && r->decision == AUTHZ_DENY && hook.calls == calls + 1,
           "a denial is cached");
    ask(z, "create", (void *)1);
    answer(GW_EUNAVAILABLE, 0, NULL);
    ask(z, "create", (void *)1);
    tap_is_int(hook.calls, calls + 3, "a failure is not cached");
    answer(0, 200, "{\"status\":{}}");
    authz_free(z);

    z = chain("Webhook", NULL, 60000, 0);
    ask(z, "get", (void *)1);
    answer(0, 200, "{\"status\":{\"denied\":true}}");
    calls = hook.calls;
    ask(z, "get", (void *)1);
    tap_is_int(hook.calls, calls + 1, "the unauthorized TTL (0) applies to denials");
    answer(0, 200, "{\"status\":{\"allowed\":true}}");
    ask(z, "get", (void *)1);
    tap_is_int(hook.calls, calls + 1, "the authorized TTL to allows");
    authz_free(z);
}

/* The review's resourceAttributes.<which>.requirements, compact JSON (new), or NULL. */
static char *
requirements_of(const char *which)
{
    const json_t *attrs =
        json_object_get(json_object_get(hook.review, "spec"), "resourceAttributes");
    const json_t *sel = json_object_get(attrs, which);
    return sel != NULL ? json_dumps(sel, JSON_COMPACT) : NULL;
}

static void
ask_selected(const authz_t *z, const char *fields, const char *labels)
{
    static result_t r; /* the decision ends later, in answer() */
    authz_attrs_t attrs = {.user = &alice,
                           .verb = "list",
                           .resource_request = true,
                           .api_version = "v1",
                           .resource = "pods",
                           .namespace_ = "default",
                           .field_selector = fields,
                           .label_selector = labels,
                           .io = (void *)1};
    authz_authorize(z, &attrs, on_done, &r);
}

static void
test_selectors(void)
{
    authz_t *z = chain("Webhook", "v1", 60000, 60000);
    char *got;

    ask_selected(z, "spec.nodeName=n1,metadata.name!=x", "app in (b,a),!old,tier,env=prod,n>3");
    got = requirements_of("fieldSelector");
    tap_is_str(got,
               "{\"requirements\":[{\"key\":\"metadata.name\",\"operator\":\"NotIn\","
               "\"values\":[\"x\"]},{\"key\":\"spec.nodeName\",\"operator\":\"In\","
               "\"values\":[\"n1\"]}]}",
               "the field selector's requirements: = is In, != is NotIn");
    free(got);
    got = requirements_of("labelSelector");
    tap_is_str(got,
               "{\"requirements\":[{\"key\":\"app\",\"operator\":\"In\",\"values\":[\"a\","
               "\"b\"]},{\"key\":\"env\",\"operator\":\"In\",\"values\":[\"prod\"]},"
               "{\"key\":\"old\",\"operator\":\"DoesNotExist\"},{\"key\":\"tier\","
               "\"operator\":\"Exists\"}]}",
               "the label selector's: In, DoesNotExist, Exists; > is left out as kube does");
    free(got);
    answer(0, 200, "{\"status\":{\"allowed\":true}}");
    ask_selected(z, "novalue", "app in (");
    char *fields = requirements_of("fieldSelector"), *labels = requirements_of("labelSelector");
    tap_ok(hook.cb != NULL && fields == NULL && labels == NULL,
           "unparsable selectors are left out");
    free(fields);
    free(labels);
    answer(0, 200, "{\"status\":{\"allowed\":true}}");
    authz_free(z);
}

static void
test_start_errors(void)
{
    authz_t *z = NULL;
    authz_config_t cfg = {.https = fake_https};

    tap_is_int(authz_new_config("RBAC,Webhook", &cfg, &z, err, sizeof(err)), GW_EINVAL,
               "Webhook without a kubeconfig is refused");
    tap_is_str(err, "authorization-mode Webhook's authorization config file not passed",
               "... as kube says");
    cfg.webhook_config_file = "/nonexistent/hook.yaml";
    tap_is_int(authz_new_config("Webhook", &cfg, &z, err, sizeof(err)), GW_EINVAL,
               "an unreadable kubeconfig is refused");
    tap_ok(strstr(err, "--authorization-webhook-config-file \"/nonexistent/hook.yaml\"") != NULL,
           "... naming the flag and file");
    cfg.webhook_config_file = kubeconfig;
    tap_is_int(authz_new_config("Webhook,Webhook", &cfg, &z, err, sizeof(err)), GW_EINVAL,
               "Webhook twice is refused");
    tap_ok(z == NULL, "nothing is built");
}

static void
write_kubeconfig(void)
{
    if (mkdtemp(dir) == NULL)
        abort();
    snprintf(kubeconfig, sizeof(kubeconfig), "%s/hook.yaml", dir);
    FILE *f = fopen(kubeconfig, "w");
    fputs("clusters:\n- name: sar\n  cluster: {server: \"https://127.0.0.1:9/authorize\"}\n"
          "users:\n- name: kgate\n  user: {token: sar-secret}\n",
          f);
    fclose(f);
}

int
main(void)
{
    write_kubeconfig();
    test_review_shape();
    test_decisions();
    test_cache();
    test_selectors();
    test_start_errors();
    json_decref(hook.review);
    unlink(kubeconfig);
    rmdir(dir);
    return tap_done();
}
