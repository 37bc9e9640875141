/* --authorization-config: every validation rule with kube's words, match conditions (true,
 * false, an error) under both failure policies, failure policies on failed exchanges, and
 * reloading (a decision in flight keeps its chain, a bad file keeps the old one, the minute's
 * content comparison). The chain code is included to reach its clock. */
#include "authz.c"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "authz_result.h"
#include "tap.h"

static char err[4096];
static char dir[] = "/tmp/authz_config_XXXXXX";
static char kubeconfig[512], config[512];

/* ---- a stand-in HTTPS function ------------------------------------------------------------- */

static struct {
    int calls;
    json_t *review;
    authz_https_cb cb;
    void *ctx;
} hook;

static void
fake_https(void *io, const char *url, const char *body, const authn_tls_t *tls, authz_https_cb cb,
           void *ctx)
{
    (void)io, (void)url;
    hook.calls++;
    json_decref(hook.review);
    hook.review = json_loads(body, 0, NULL);
    hook.cb = cb;
    hook.ctx = ctx;
    tap_ok(tls->timeout_ms == 3000, "the exchange is bounded by the entry's timeout (%d ms)",
           tls->timeout_ms);
}

static void
answer(int e, int status, const char *body)
{
    authz_https_cb cb = hook.cb;
    hook.cb = NULL;
    cb(e, status, body, body != NULL ? strlen(body) : 0, hook.ctx);
}

static authn_user_t alice = {.name = (char *)"alice", .uid = (char *)"", .n_groups = 0};

/* `verb` on pods in `ns` (a non-resource /healthz when ns is NULL), into *r. */
static void
ask(const authz_t *z, const char *verb, const char *ns, result_t *r)
{
    authz_attrs_t attrs = {.user = &alice,
                           .verb = verb,
                           .resource_request = ns != NULL,
                           .api_group = "",
                           .api_version = "v1",
                           .resource = "pods",
                           .subresource = "",
                           .namespace_ = ns,
                           .name = "",
                           .path = "/healthz",
                           .io = (void *)1};
    *r = (result_t){0};
    authz_authorize(z, &attrs, on_done, r);
}

/* ---- configurations ------------------------------------------------------------------------ */

#define HEAD "apiVersion: apiserver.config.k8s.io/v1\nkind: AuthorizationConfiguration\n"

/* text with every "@KC@" replaced by the kubeconfig's path (new). */
static char *
with_kc(const char *text)
{
    char *out = gw_strdup("");
    const char *p = text, *at;

    while ((at = strstr(p, "@KC@")) != NULL) {
        char *next = gw_sprintf("%s%.*s%s", out, (int)(at - p), p, kubeconfig);
        free(out);
        out = next;
        p = at + 4;
    }
    char *next = gw_sprintf("%s%s", out, p);
    free(out);
    return next;
}

/* A webhook entry named `name` with extra webhook fields (YAML flow pairs, may be ""). */
static char *
hook_entry(const char *name, const char *extra)
{
    return gw_sprintf("- type: Webhook\n  name: %s\n  webhook: {timeout: 3s, "
                      "subjectAccessReviewVersion: v1, failurePolicy: Deny, connectionInfo: "
                      "{type: KubeConfigFile, kubeConfigFile: @KC@}%s%s}\n",
                      name, *extra ? ", " : "", extra);
}

/* Build text; 0 or the error in err. */
static int
build_text(const char *text, authz__chain_t **c)
{
    char *t = with_kc(text);
    int rc = authz__config_build(t, strlen(t), NULL, fake_https, c, err, sizeof(err));
    free(t);
    return rc;
}

/* Building text fails with exactly `want`. */
static void
refused(const char *text, const char *want, const char *what)
{
    authz__chain_t *c = NULL;
    err[0] = '\0';
    int rc = build_text(text, &c);
    tap_ok(rc == GW_EINVAL && c == NULL, "%s: refused", what);
    tap_is_str(err, want, "... as kube says");
    authz__chain_free(c);
}

/* A one-webhook configuration with these webhook fields is refused with `want`. */
static void
hook_refused(const char *fields, const char *want, const char *what)
{
    char *entry = hook_entry("hook", fields);
    char *text = gw_sprintf(HEAD "authorizers:\n%s", entry);
    refused(text, want, what);
    free(text);
    free(entry);
}

/* A webhook whose fields are given in full (timeout and all). */
static void
raw_hook_refused(const char *webhook, const char *want, const char *what)
{
    char *text =
        gw_sprintf(HEAD "authorizers:\n- {type: Webhook, name: hook, webhook: %s}\n", webhook);
    refused(text, want, what);
    free(text);
}

static void
test_document(void)
{
    refused("", "authorizers: Required value: at least one authorization mode must be defined",
            "an empty file");
    refused(HEAD "authorizers: []\n",
            "authorizers: Required value: at least one authorization mode must be defined",
            "no authorizers");
    refused("apiVersion: apiserver.config.k8s.io/v2\nkind: AuthorizationConfiguration\n",
            "failed to decode: no kind \"AuthorizationConfiguration\" is registered for version "
            "\"apiserver.config.k8s.io/v2\"",
            "an unknown version");
    refused("authorizers: [\n",
            "failed to decode: yaml: line 2, column 1: did not find expected "
            "node content",
            "bad YAML");
    authz__chain_t *c = NULL;
    tap_is_int(build_text("apiVersion: apiserver.config.k8s.io/v1beta1\nkind: "
                          "AuthorizationConfiguration\nauthorizers: [{type: AlwaysAllow, name: "
                          "alwaysallow}]\n",
                          &c),
               0, "v1beta1 is accepted");
    authz__chain_free(c);
    c = NULL;
    tap_is_int(build_text("{\"apiVersion\": \"apiserver.config.k8s.io/v1alpha1\", \"kind\": "
                          "\"AuthorizationConfiguration\", \"authorizers\": [{\"type\": \"Node\", "
                          "\"name\": \"node\"}]}",
                          &c),
               0, "so is v1alpha1, in JSON");
    tap_ok(c != NULL && c->n == 1 && c->items[0] == &authz_node_authorizer, "... its Node entry");
    authz__chain_free(c);
}

static void
test_entries(void)
{
    refused(HEAD "authorizers: [{name: x}]\n", "authorizers[0].type: Required value",
            "a missing type");
    refused(HEAD "authorizers: [{type: Magic, name: magic}]\n",
            "authorizers[0].type: Unsupported value: \"Magic\": supported values: \"ABAC\", "
            "\"AlwaysAllow\", \"AlwaysDeny\", \"Node\", \"RBAC\", \"Webhook\"",
            "an unknown type");
    refused(HEAD "authorizers: [{type: RBAC, name: rbac}, {type: RBAC, name: rbac2}]\n",
            "authorizers[1].type: Duplicate value: \"RBAC\"", "a repeated non-webhook type");
    refused(HEAD "authorizers: [{type: RBAC}]\n", "authorizers[0].name: Required value",
            "a missing name");
    char *a = hook_entry("hook", ""), *text = gw_sprintf(HEAD "authorizers:\n%s%s", a, a);
    refused(text, "authorizers[1].name: Duplicate value: \"hook\"", "two webhooks of one name");
    free(text);
    free(a);
    a = hook_entry("Bad_Name", "");
    text = gw_sprintf(HEAD "authorizers:\n%s", a);
    refused(text,
            "authorizers[0].name: Invalid value: \"Bad_Name\": authorizer name is invalid: a "
            "lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
            "'-' or '.', and must start and end with an alphanumeric character (e.g. "
            "'example.com', regex used for validation is "
            "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
            "a name that is not a DNS subdomain");
    free(text);
    free(a);
    refused(HEAD "authorizers: [{type: Webhook, name: hook}]\n",
            "authorizers[0].webhook: Required value: required when type=Webhook",
            "a webhook entry without webhook");
    refused(HEAD "authorizers: [{type: RBAC, name: rbac, webhook: {timeout: 3s}}]\n",
            "authorizers[0].webhook: Invalid value: \"non-null\": may only be specified when "
            "type=Webhook",
            "webhook settings on RBAC");
    refused(HEAD "authorizers: [{type: RBAC, name: foo}]\n",
            "expected name rbac for authorizer RBAC instead of foo", "RBAC not named rbac");
    refused(HEAD "authorizers: [{type: Node, name: nodes}, {type: AlwaysDeny, name: deny}]\n",
            "[expected name node for authorizer Node instead of nodes, expected name alwaysdeny "
            "for authorizer AlwaysDeny instead of deny]",
            "two wrong names: kube's aggregate");
    refused(HEAD "authorizers: [{type: Magic, name: magic}, {name: x}]\n",
            "[authorizers[0].type: Unsupported value: \"Magic\": supported values: \"ABAC\", "
            "\"AlwaysAllow\", \"AlwaysDeny\", \"Node\", \"RBAC\", \"Webhook\", "
            "authorizers[1].type: Required value]",
            "every error at once");
}

static void
test_webhook_fields(void)
{
    const char *conn = "connectionInfo: {type: KubeConfigFile, kubeConfigFile: @KC@}";
    char *w;

    w = gw_sprintf("{subjectAccessReviewVersion: v1, failurePolicy: Deny, %s}", conn);
    raw_hook_refused(w, "authorizers[0].webhook.timeout: Required value", "no timeout");
    free(w);
    w = gw_sprintf("{timeout: 45s, subjectAccessReviewVersion: v1, failurePolicy: Deny, %s}", conn);
    raw_hook_refused(w,
                     "authorizers[0].webhook.timeout: Invalid value: \"45s\": must be > 0s and "
                     "<= 30s",
                     "a 45s timeout");
    free(w);
    w = gw_sprintf("{timeout: -1.5s, subjectAccessReviewVersion: v1, failurePolicy: Deny, %s}",
                   conn);
    raw_hook_refused(w,
                     "authorizers[0].webhook.timeout: Invalid value: \"-1.5s\": must be > 0s "
                     "and <= 30s",
                     "a negative timeout");
    free(w);
    w = gw_sprintf("{timeout: 90s, subjectAccessReviewVersion: v1, failurePolicy: Deny, %s}", conn);
    raw_hook_refused(w,
                     "authorizers[0].webhook.timeout: Invalid value: \"1m30s\": must be > 0s "
                     "and <= 30s",
                     "a 90s timeout, printed as Go does");
    free(w);
    w = gw_sprintf("{timeout: 1e3s, subjectAccessReviewVersion: v1, failurePolicy: Deny, %s}",
                   conn);
    raw_hook_refused(w,
                     "failed to decode: authorizers[0].webhook.timeout: time: invalid "
                     "duration \"1e3s\"",
                     "an exponent is not a Go duration");
    free(w);
    w = gw_sprintf("{timeout: soon, subjectAccessReviewVersion: v1, failurePolicy: Deny, %s}",
                   conn);
    raw_hook_refused(w,
                     "failed to decode: authorizers[0].webhook.timeout: time: invalid "
                     "duration \"soon\"",
                     "a timeout that is not a duration");
    free(w);
    hook_refused("authorizedTTL: -1m30s",
                 "authorizers[0].webhook.authorizedTTL: Invalid value: \"-1m30s\": must be > 0s",
                 "a negative authorizedTTL");
    hook_refused("unauthorizedTTL: -300ms",
                 "authorizers[0].webhook.unauthorizedTTL: Invalid value: \"-300ms\": must be > 0s",
                 "a negative unauthorizedTTL");
    w = gw_sprintf("{timeout: 3s, failurePolicy: Deny, %s}", conn);
    raw_hook_refused(w, "authorizers[0].webhook.subjectAccessReviewVersion: Required value",
                     "no review version");
    free(w);
    w = gw_sprintf("{timeout: 3s, subjectAccessReviewVersion: v2, failurePolicy: Deny, %s}", conn);
    raw_hook_refused(w,
                     "authorizers[0].webhook.subjectAccessReviewVersion: Unsupported value: "
                     "\"v2\": supported values: \"v1\", \"v1beta1\"",
                     "review version v2");
    free(w);
    hook_refused("matchConditions: [{expression: 'true'}]",
                 "authorizers[0].webhook.matchConditionSubjectAccessReviewVersion: Required value: "
                 "required if match conditions are specified",
                 "match conditions without their review version");
    hook_refused("matchConditionSubjectAccessReviewVersion: v1beta1",
                 "authorizers[0].webhook.matchConditionSubjectAccessReviewVersion: Unsupported "
                 "value: \"v1beta1\": supported values: \"v1\"",
                 "match conditions over v1beta1");
    w = gw_sprintf("{timeout: 3s, subjectAccessReviewVersion: v1, %s}", conn);
    raw_hook_refused(w, "authorizers[0].webhook.failurePolicy: Required value", "no failurePolicy");
    free(w);
    w = gw_sprintf("{timeout: 3s, subjectAccessReviewVersion: v1, failurePolicy: Allow, %s}", conn);
    raw_hook_refused(w,
                     "authorizers[0].webhook.failurePolicy: Unsupported value: \"Allow\": "
                     "supported values: \"Deny\", \"NoOpinion\"",
                     "failurePolicy Allow");
    free(w);
}

/* A webhook with this connectionInfo is refused with `want`. */
static void
conn_refused(const char *conn, const char *want, const char *what)
{
    char *w = gw_sprintf("{timeout: 3s, subjectAccessReviewVersion: v1, failurePolicy: Deny, "
                         "connectionInfo: %s}",
                         conn);
    raw_hook_refused(w, want, what);
    free(w);
}

static void
test_connection(void)
{
    conn_refused("{}", "authorizers[0].webhook.connectionInfo.type: Required value",
                 "no connection type");
    conn_refused("{type: Carrier}",
                 "authorizers[0].webhook.connectionInfo.type: Unsupported value: \"Carrier\": "
                 "supported values: \"InClusterConfig\", \"KubeConfigFile\"",
                 "an unknown connection type");
    conn_refused("{type: KubeConfigFile}",
                 "authorizers[0].webhook.connectionInfo.kubeConfigFile: Required value",
                 "a kubeconfig type without its file");
    conn_refused("{type: KubeConfigFile, kubeConfigFile: hook.yaml}",
                 "authorizers[0].webhook.connectionInfo.kubeConfigFile: Invalid value: "
                 "\"hook.yaml\": must be an absolute path",
                 "a relative kubeconfig path");
    conn_refused("{type: KubeConfigFile, kubeConfigFile: /nonexistent/k.yaml}",
                 "authorizers[0].webhook.connectionInfo.kubeConfigFile: Invalid value: "
                 "\"/nonexistent/k.yaml\": error loading file: stat /nonexistent/k.yaml: No such "
                 "file or directory",
                 "a missing kubeconfig");
    char *c = gw_sprintf("{type: KubeConfigFile, kubeConfigFile: %s}", dir);
    char *want = gw_sprintf("authorizers[0].webhook.connectionInfo.kubeConfigFile: Invalid "
                            "value: \"%s\": must be a regular file",
                            dir);
    conn_refused(c, want, "a folder as kubeconfig");
    free(want);
    free(c);
    want = gw_sprintf("authorizers[0].webhook.connectionInfo.kubeConfigFile: Invalid value: "
                      "\"%s\": can only be set when type=KubeConfigFile",
                      kubeconfig);
    conn_refused("{type: InClusterConfig, kubeConfigFile: @KC@}", want,
                 "InClusterConfig with a file");
    free(want);
    conn_refused("{type: InClusterConfig}",
                 "authorizers[0] \"hook\": connectionInfo type InClusterConfig is not available: "
                 "kgate does not run in a cluster",
                 "InClusterConfig: valid, but kgate cannot build it");
}

static void
test_condition_rules(void)
{
    char *many = gw_strdup("matchConditionSubjectAccessReviewVersion: v1, matchConditions: [");
    for (int i = 0; i < 65; i++) {
        char *next =
            gw_sprintf("%s%s{expression: 'request.user != \"u%d\"'}", many, i ? ", " : "", i);
        free(many);
        many = next;
    }
    char *fields = gw_sprintf("%s]", many);
    hook_refused(fields,
                 "authorizers[0].webhook.matchConditions: Too many: 65: must have at most "
                 "64 items",
                 "65 match conditions");
    free(fields);
    free(many);
    hook_refused("matchConditionSubjectAccessReviewVersion: v1, matchConditions: "
                 "[{expression: '  '}]",
                 "authorizers[0].webhook.matchConditions[0].expression: Required value",
                 "a blank expression");
    hook_refused("matchConditionSubjectAccessReviewVersion: v1, matchConditions: "
                 "[{expression: 'has(request.uid)'}, {expression: 'has(request.uid)'}]",
                 "authorizers[0].webhook.matchConditions[1].expression: Duplicate value: "
                 "\"has(request.uid)\"",
                 "a repeated expression");
    hook_refused("matchConditionSubjectAccessReviewVersion: v1, matchConditions: "
                 "[{expression: 'request.user'}]",
                 "authorizers[0].webhook.matchConditions[0].expression: Invalid value: "
                 "\"request.user\": must evaluate to bool but got string",
                 "an expression that is not a bool");
    hook_refused("matchConditionSubjectAccessReviewVersion: v1, matchConditions: "
                 "[{expression: 'request.nobody == 1'}]",
                 "authorizers[0].webhook.matchConditions[0].expression: Invalid value: "
                 "\"request.nobody == 1\": compilation failed: ERROR: <input>:1:8: undefined "
                 "field 'nobody'\n | request.nobody == 1\n | .......^",
                 "a field the spec does not have: a type error");
    hook_refused("matchConditionSubjectAccessReviewVersion: v1, matchConditions: "
                 "[{expression: 'object.x'}]",
                 "authorizers[0].webhook.matchConditions[0].expression: Invalid value: "
                 "\"object.x\": compilation failed: ERROR: <input>:1:1: undeclared reference to "
                 "'object' (in container '')\n | object.x\n | ^",
                 "a variable other than request");
}

/* ---- deciding ----------------------------------------------------------------------------- */

static authz_t *
file_chain(const char *text)
{
    char *t = with_kc(text), *tmp = gw_sprintf("%s.tmp", config);
    FILE *f = fopen(tmp, "w");
    fputs(t, f);
    fclose(f);
    rename(tmp, config); /* a new inode: the reload check sees it at once */
    free(tmp);
    free(t);
    authz_t *z = NULL;
    authz_config_t cfg = {.https = fake_https};
    if (authz_new_file(config, &cfg, &z, err, sizeof(err)) != 0)
        tap_diag("%s", err);
    return z;
}

/* A one-webhook chain (then AlwaysAllow when `then_allow`) with a condition and a policy. */
static authz_t *
condition_chain(const char *cond, const char *policy, bool then_allow)
{
    char *fields = gw_sprintf("failurePolicy: %s, matchConditionSubjectAccessReviewVersion: v1, "
                              "matchConditions: [{expression: '%s'}]",
                              policy, cond);
    char *entry = hook_entry("hook", fields);
    char *text = gw_sprintf(HEAD "authorizers:\n%s%s", entry,
                            then_allow ? "- {type: AlwaysAllow, name: alwaysallow}\n" : "");
    /* the later failurePolicy key wins in the flow mapping */
    authz_t *z = file_chain(text);
    free(text);
    free(entry);
    free(fields);
    return z;
}

static void
test_conditions(void)
{
    const char *cond = "request.resourceAttributes.namespace == \"kube-system\"";
    result_t r;

    for (int deny = 0; deny < 2; deny++) {
        const char *policy = deny ? "Deny" : "NoOpinion";
        authz_t *z = condition_chain(cond, policy, false);
        int calls = hook.calls;
        ask(z, "get", "kube-system", &r);
        tap_ok(hook.calls == calls + 1 && r.calls == 0, "%s: a true condition calls the webhook",
               policy);
        tap_is_str(json_string_value(json_object_get(hook.review, "apiVersion")),
                   "authorization.k8s.io/v1", "... with a v1 review");
        answer(0, 200, "{\"status\":{\"allowed\":true}}");
        tap_ok(r.calls == 1 && r.decision == AUTHZ_ALLOW, "... which decides");
        ask(z, "get", "default", &r);
        tap_ok(hook.calls == calls + 1 && r.calls == 1 && r.decision == AUTHZ_NO_OPINION &&
                   r.error[0] == '\0',
               "%s: a false condition: no opinion, not asked, no error", policy);
        ask(z, "get", NULL, &r);
        tap_ok(hook.calls == calls + 1 && r.calls == 1, "%s: an evaluation error: not asked",
               policy);
        tap_ok(r.decision == (deny ? AUTHZ_DENY : AUTHZ_NO_OPINION),
               "... the failure policy decides (%d)", r.decision);
        tap_ok(strncmp(r.error,
                       "cel evaluation error: expression 'request.resourceAttributes.namespace == "
                       "\"kube-system\"' resulted in error: ",
                       strlen("cel evaluation error: expression 'request.resourceAttributes."
                              "namespace == \"kube-system\"' resulted in error: ")) == 0,
               "... with kube's error: %s", r.error);
        authz_free(z);
    }
    authz_t *z = condition_chain("request.user == \"bob\"", "NoOpinion", true);
    int calls = hook.calls;
    ask(z, "get", "default", &r);
    tap_ok(hook.calls == calls && r.calls == 1 && r.decision == AUTHZ_ALLOW,
           "a skipped webhook leaves the decision to the next authorizer");
    authz_free(z);
}

static void
test_failure_policy(void)
{
    result_t r;

    for (int deny = 0; deny < 2; deny++) {
        char *fields = gw_sprintf("failurePolicy: %s", deny ? "Deny" : "NoOpinion");
        char *entry = hook_entry("hook", fields);
        char *text = gw_sprintf(HEAD "authorizers:\n%s", entry);
        authz_t *z = file_chain(text);
        const int errs[] = {GW_ETIMEOUT, 0, 0};
        const int status[] = {0, 503, 200};
        for (int i = 0; i < 3; i++) {
            ask(z, i == 0 ? "get" : i == 1 ? "list" : "watch", "default", &r);
            answer(errs[i], status[i], "nonsense");
            tap_ok(r.calls == 1 && r.decision == (deny ? AUTHZ_DENY : AUTHZ_NO_OPINION) &&
                       strstr(r.error, "authorization webhook") != NULL,
                   "failurePolicy %s on %s: its decision with the error (%s)",
                   deny ? "Deny" : "NoOpinion",
                   i == 0   ? "a timeout"
                   : i == 1 ? "a 503"
                            : "an unreadable answer",
                   r.error);
        }
        authz_free(z);
        free(text);
        free(entry);
        free(fields);
    }
}

/* ---- reloading ------------------------------------------------------------------------------ */

static int64_t fake_now = 1000000;

static int64_t
fake_clock(void)
{
    return fake_now;
}

static void
rewrite(const char *text)
{
    char *t = with_kc(text), *tmp = gw_sprintf("%s.tmp", config);
    FILE *f = fopen(tmp, "w");
    fputs(t, f);
    fclose(f);
    rename(tmp, config);
    free(tmp);
    free(t);
}

static void
test_reload(void)
{
    char *entry = hook_entry("hook", "failurePolicy: NoOpinion");
    char *with_hook =
        gw_sprintf(HEAD "authorizers:\n%s- {type: AlwaysAllow, name: alwaysallow}\n", entry);
    const char *no_hook = HEAD "authorizers:\n- {type: AlwaysAllow, name: alwaysallow}\n";
    result_t first, r;

    authz_t *z = file_chain(with_hook);
    tap_ok(authz_has_mode(z, "Webhook") && authz_has_mode(z, "AlwaysAllow"),
           "the file's modes are known");
    int calls = hook.calls;
    ask(z, "get", "default", &first);
    tap_ok(hook.calls == calls + 1 && first.calls == 0, "a decision waits on the webhook");
    rewrite(no_hook);
    authz_reload_check(z);
    tap_ok(!authz_has_mode(z, "Webhook"), "a changed file is reloaded at once: no webhook now");
    ask(z, "get", "default", &r);
    tap_ok(hook.calls == calls + 1 && r.calls == 1 && r.decision == AUTHZ_ALLOW,
           "new decisions use the new chain");
    answer(0, 200, "{\"status\":{\"allowed\":false}}");
    tap_ok(first.calls == 1 && first.decision == AUTHZ_ALLOW,
           "the decision in flight finished on its own chain (webhook, then AlwaysAllow)");

    rewrite(HEAD "authorizers: [{type: AlwaysAllow, name: wrong}]\n");
    authz_reload_check(z);
    rewrite("nonsense: [");
    authz_reload_check(z);
    ask(z, "get", "default", &r);
    tap_ok(r.calls == 1 && r.decision == AUTHZ_ALLOW && !authz_has_mode(z, "Webhook"),
           "invalid files keep the chain in use");
    char *only_hook = gw_sprintf(HEAD "authorizers:\n%s", entry);
    rewrite(only_hook);
    authz_reload_check(z);
    tap_ok(!authz_has_mode(z, "Webhook"), "a file without start-up's AlwaysAllow is refused");
    char *text = with_kc(only_hook);
    authz__chain_t *c = NULL;
    tap_is_int(authz__config_build(text, strlen(text), &z->types, fake_https, &c, err, sizeof(err)),
               GW_EINVAL, "... as kube does");
    tap_is_str(err, "missing required types: [AlwaysAllow]", "... naming the missing type");
    free(text);
    authz_free(z);
    free(only_hook);
    free(with_hook);
    free(entry);
}

/* Two files of one size: the webhook is asked about alice, or about nobody. */
static char *
same_size(const char *who)
{
    char *fields = gw_sprintf("failurePolicy: NoOpinion, matchConditionSubjectAccessReviewVersion: "
                              "v1, matchConditions: [{expression: 'request.user == \"%s\"'}]",
                              who);
    char *entry = hook_entry("hook", fields);
    char *text =
        gw_sprintf(HEAD "authorizers:\n%s- {type: AlwaysAllow, name: alwaysallow}\n", entry);
    char *out = with_kc(text);
    free(text);
    free(entry);
    free(fields);
    return out;
}

static void
test_compare(void)
{
    char *asks = same_size("alice"), *skips = same_size("zzzzz");
    result_t r;
    struct stat st;

    clock_ms = fake_clock;
    authz_t *z = file_chain(asks);
    stat(config, &st);
    FILE *f = fopen(config, "r+"); /* the same inode and size... */
    fputs(skips, f);
    fclose(f);
    struct timespec times[2] = {st.st_atim, st.st_mtim};
    utimensat(AT_FDCWD, config, times, 0); /* ... and mtime */
    authz_reload_check(z);
    int calls = hook.calls;
    ask(z, "get", "default", &r);
    tap_ok(hook.calls == calls + 1, "an unchanged stat: the file is not read");
    answer(0, 200, "{\"status\":{}}");
    fake_now += 60000;
    authz_reload_check(z);
    ask(z, "get", "default", &r);
    tap_ok(hook.calls == calls + 1 && r.calls == 1 && r.decision == AUTHZ_ALLOW,
           "after a minute the content is compared and the new file used");
    authz_free(z);
    clock_ms = gw_monotonic_ms;
    free(asks);
    free(skips);
}

static void
test_unreadable(void)
{
    authz_t *z = NULL;
    authz_config_t cfg = {.https = fake_https};

    tap_is_int(authz_new_file("/nonexistent/authz.yaml", &cfg, &z, err, sizeof(err)), GW_EINVAL,
               "an unreadable file is refused");
    tap_is_str(err,
               "failed to read file path \"/nonexistent/authz.yaml\": No such file or "
               "directory",
               "... as kube says");
}

static void
write_kubeconfig(void)
{
    if (mkdtemp(dir) == NULL)
        abort();
    snprintf(kubeconfig, sizeof(kubeconfig), "%s/hook.yaml", dir);
    snprintf(config, sizeof(config), "%s/authz.yaml", dir);
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
    test_document();
    test_entries();
    test_webhook_fields();
    test_connection();
    test_condition_rules();
    test_conditions();
    test_failure_policy();
    test_reload();
    test_compare();
    test_unreadable();
    json_decref(hook.review);
    unlink(kubeconfig);
    unlink(config);
    rmdir(dir);
    return tap_done();
}
