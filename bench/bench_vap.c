/*
 * bench_vap: what ValidatingAdmissionPolicies cost a create.
 *
 * In-process first (no HTTP, no etcd), on one thread: one policy of 3 validations that pass,
 * reading `params.data` and `object.spec`, compiled once with gw_vap_compile as the policy
 * snapshot compiles it, then gw_vap_eval on a 2 KiB Deployment with its ConfigMap param (a
 * fresh arena per evaluation, as the plugin runs it); beside it, in the same run, one CEL
 * evaluation of `true` (arena, activation binding the same object, cel_eval) as the baseline,
 * and gw_vap_compile of the policy for scale. Each call is timed alone.
 *
 * Then through kgate: creates of a 2 KiB apps/v1 Deployment (a name of its own each, one
 * HTTPS keep-alive connection per caller, 16 callers, closed-loop) under four sets of policies
 * measured one after the other in the same run:
 *  - none: no policy at all (the baseline);
 *  - 10 policies with their bindings that match only configmaps;
 *  - 1 policy matching the creates, and then 10: each as the in-process one (paramKind
 *    ConfigMap, its binding's paramRef by name to a ConfigMap in the request's namespace,
 *    validationActions [Deny]).
 * Before each set is measured it must be in force: a probe policy created after it (which
 * denies Deployments labelled bench-probe) has to deny a dry-run create, then, deleted, has to
 * let it through; policies are snapshots built from informers in etcd's order, so the set
 * created before the probe is in force once the probe is, and "let through" also proves that
 * the matching policies have their param. A Deployment over the param's replica limit must
 * then be denied by a matching policy where the set has one, and created where it has none.
 * Each row gives creates/s, p50, p99 and creates/s as a ratio of the baseline's.
 *
 * Usage: bench_vap https://IP:PORT PKI_DIR
 *   PKI_DIR holds ca.crt (which signed kgate's serving certificate) and admin.crt/admin.key
 *   (a system:masters client certificate). The objects go into namespace bench-vap, which must
 *   not exist yet; it and the policies are deleted at the end. BENCH_SECONDS as for every
 *   benchmark (bench.h). Any failed or unexpected answer ends the run with exit status 1.
 */

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/event.h>
#include <jansson.h>
#include <openssl/ssl.h>

#include "bench.h"
#include "cel.h"
#include "gw_alloc.h"
#include "gw_vap_compile.h"
#include "gw_vap_eval.h"

#define NAMESPACE "bench-vap"
#define NS_PATH "/api/v1/namespaces/" NAMESPACE
#define DEPLOYMENTS "/apis/apps/v1/namespaces/" NAMESPACE "/deployments"
#define ARV "/apis/admissionregistration.k8s.io/v1"
#define POLICIES ARV "/validatingadmissionpolicies"
#define BINDINGS ARV "/validatingadmissionpolicybindings"
#define PARAMS "bench-params"
#define PROBE "bench-probe"
#define DEPLOY_SIZE 2048 /* bytes of the Deployment sent */
#define CONC 16          /* callers, as the other create rows at their highest */
#define MAX_POLICIES 10
#define REPLICAS 3                 /* within the param's maxReplicas */
#define BAD_REPLICAS 9             /* above it */
#define IN_FORCE_S 30              /* how long a set of policies may take to be in force */
#define CEL_PER_CALL_LIMIT 1000000 /* kube's celconfig.PerCallLimit */

/* ---- the documents ------------------------------------------------------------------------ */

/* A Deployment as a client sends it; the pad annotation brings it to DEPLOY_SIZE bytes. */
static const char deployment_fmt[] =
    "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"%s\","
    "\"namespace\":\"" NAMESPACE "\",\"labels\":{\"app\":\"checkout\",\"tier\":\"web\"%s},"
    "\"annotations\":{\"owner\":\"web-team\",\"bench/pad\":\"%s\"}},\"spec\":{\"replicas\":%d,"
    "\"revisionHistoryLimit\":10,\"selector\":{\"matchLabels\":{\"app\":\"checkout\"}},"
    "\"strategy\":{\"type\":\"RollingUpdate\",\"rollingUpdate\":{\"maxSurge\":\"25%%\","
    "\"maxUnavailable\":\"25%%\"}},\"template\":{\"metadata\":{\"labels\":{\"app\":\"checkout\","
    "\"tier\":\"web\"}},\"spec\":{\"containers\":[{\"name\":\"web\",\"image\":"
    "\"registry.example.com/shop/checkout-frontend:2.14.1\",\"ports\":[{\"name\":\"http\","
    "\"containerPort\":8080,\"protocol\":\"TCP\"}],\"env\":[{\"name\":\"LOG_LEVEL\",\"value\":"
    "\"info\"},{\"name\":\"CHECKOUT_API\",\"value\":\"http://checkout-api.shop.svc:8080\"}],"
    "\"resources\":{\"requests\":{\"cpu\":\"250m\",\"memory\":\"256Mi\"},\"limits\":{\"cpu\":"
    "\"1\",\"memory\":\"512Mi\"}},\"readinessProbe\":{\"httpGet\":{\"path\":\"/healthz\","
    "\"port\":8080},\"periodSeconds\":10}},{\"name\":\"metrics\",\"image\":"
    "\"registry.example.com/shop/metrics-agent:0.9.3\",\"args\":[\"--listen=:9102\"],"
    "\"ports\":[{\"name\":\"metrics\",\"containerPort\":9102,\"protocol\":\"TCP\"}]}],"
    "\"terminationGracePeriodSeconds\":30,\"serviceAccountName\":\"checkout-frontend\"}}}}";

/* Deployment `name` of DEPLOY_SIZE bytes with `replicas` and extra labels (`,"k":"v"...` or
 * ""). The caller frees it. */
static char *
deployment_json(const char *name, const char *labels, int replicas)
{
    char *bare = gw_sprintf(deployment_fmt, name, labels, "", replicas);
    size_t n = strlen(bare), pad_len = n < DEPLOY_SIZE ? DEPLOY_SIZE - n : 0;
    char *pad = gw_malloc(pad_len + 1), *doc;

    memset(pad, 'p', pad_len);
    pad[pad_len] = '\0';
    doc = gw_sprintf(deployment_fmt, name, labels, pad, replicas);
    free(pad);
    free(bare);
    return doc;
}

/* The param every matching policy's binding names, in the requests' namespace. */
static const char params_json[] =
    "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"" PARAMS "\","
    "\"namespace\":\"" NAMESPACE "\"},\"data\":{\"maxReplicas\":\"5\",\"registry\":"
    "\"registry.example.com/\",\"app\":\"checkout\"}}";

/* The three validations of every policy: each reads the param and the object's spec. */
#define N_VALIDATIONS 3
#define VALIDATIONS                                                                                \
    "[{\"expression\":\"object.spec.replicas <= int(params.data.maxReplicas)\",\"message\":"       \
    "\"too many replicas\"},{\"expression\":\"object.spec.template.spec.containers.all(c, "        \
    "c.image.startsWith(params.data.registry))\",\"message\":\"images come from the registry\"},"  \
    "{\"expression\":\"object.spec.selector.matchLabels.app == params.data.app\",\"message\":"     \
    "\"not the app of the param\"}]"

/* A policy on CREATEs of Deployments (`matching`) or of ConfigMaps. The caller frees it. */
static char *
policy_json(const char *name, bool matching)
{
    return gw_sprintf(
        "{\"apiVersion\":\"admissionregistration.k8s.io/v1\",\"kind\":"
        "\"ValidatingAdmissionPolicy\",\"metadata\":{\"name\":\"%s\"},\"spec\":{"
        "\"failurePolicy\":\"Fail\",\"paramKind\":{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\"},"
        "\"matchConstraints\":{\"resourceRules\":[{\"apiGroups\":[\"%s\"],\"apiVersions\":"
        "[\"v1\"],\"operations\":[\"CREATE\"],\"resources\":[\"%s\"]}]},"
        "\"validations\":" VALIDATIONS "}}",
        name, matching ? "apps" : "", matching ? "deployments" : "configmaps");
}

/* Its binding (same name): the param by name in the request's namespace, Deny. */
static char *
binding_json(const char *name)
{
    return gw_sprintf("{\"apiVersion\":\"admissionregistration.k8s.io/v1\",\"kind\":"
                      "\"ValidatingAdmissionPolicyBinding\",\"metadata\":{\"name\":\"%s\"},"
                      "\"spec\":{\"policyName\":\"%s\",\"paramRef\":{\"name\":\"" PARAMS "\","
                      "\"parameterNotFoundAction\":\"Deny\"},\"validationActions\":[\"Deny\"]}}",
                      name, name);
}

/* The readiness probe: it denies every Deployment labelled bench-probe. */
static const char probe_policy_json[] =
    "{\"apiVersion\":\"admissionregistration.k8s.io/v1\",\"kind\":\"ValidatingAdmissionPolicy\","
    "\"metadata\":{\"name\":\"" PROBE "\"},\"spec\":{\"matchConstraints\":{\"resourceRules\":[{"
    "\"apiGroups\":[\"apps\"],\"apiVersions\":[\"v1\"],\"operations\":[\"CREATE\"],\"resources\":"
    "[\"deployments\"]}],\"objectSelector\":{\"matchLabels\":{\"" PROBE "\":\"deny\"}}},"
    "\"validations\":[{\"expression\":\"false\",\"message\":\"probe\"}]}}";
static const char probe_binding_json[] =
    "{\"apiVersion\":\"admissionregistration.k8s.io/v1\",\"kind\":"
    "\"ValidatingAdmissionPolicyBinding\",\"metadata\":{\"name\":\"" PROBE "\"},\"spec\":{"
    "\"policyName\":\"" PROBE "\",\"validationActions\":[\"Deny\"]}}";

/* ---- in-process: one evaluation ----------------------------------------------------------- */

typedef struct {
    json_t *policy, *object, *bad_object, *params, *request, *ns;
    gw_vap_compiled_t *compiled;
    gw_vap_memo_t *memo;
    gw_vap_input_t in;
    size_t admitted; /* validations the last evaluation admitted */
    cel_env_t *env;
    cel_program_t *trivial;
} local_t;

static json_t *
parse(const char *what, const char *text)
{
    json_error_t err;
    json_t *doc = json_loads(text, 0, &err);

    if (doc == NULL)
        die("%s: %s", what, err.text);
    return doc;
}

/* The namespace of the requests, as stored. */
static const char namespace_json[] =
    "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"" NAMESPACE "\","
    "\"labels\":{\"kubernetes.io/metadata.name\":\"" NAMESPACE "\"}},\"spec\":{\"finalizers\":"
    "[\"kubernetes\"]},\"status\":{\"phase\":\"Active\"}}";

/* The request document the plugin builds for the admin's create. */
static json_t *
request_doc(void)
{
    static const char *const groups[] = {"system:masters", "system:authenticated"};

    return gw_vap_request_doc(&(gw_vap_request_t){.kind_group = "apps",
                                                  .kind_version = "v1",
                                                  .kind = "Deployment",
                                                  .resource_group = "apps",
                                                  .resource_version = "v1",
                                                  .resource = "deployments",
                                                  .request_kind_group = "apps",
                                                  .request_kind_version = "v1",
                                                  .request_kind = "Deployment",
                                                  .request_resource_group = "apps",
                                                  .request_resource_version = "v1",
                                                  .request_resource = "deployments",
                                                  .name = "checkout",
                                                  .namespace_ = NAMESPACE,
                                                  .operation = "CREATE",
                                                  .username = "kubernetes-admin",
                                                  .uid = "",
                                                  .groups = groups,
                                                  .ngroups = 2});
}

static void
local_init(local_t *l)
{
    char *policy = policy_json("bench-match-00", true);
    char *obj = deployment_json("checkout", "", REPLICAS);
    char *bad = deployment_json("checkout", "", BAD_REPLICAS);
    json_t *ns = parse("namespace", namespace_json);

    l->policy = parse("policy", policy);
    l->object = parse("deployment", obj);
    l->bad_object = parse("deployment", bad);
    l->params = parse("params", params_json);
    l->request = request_doc();
    l->ns = gw_vap_namespace_doc(ns);
    l->compiled = gw_vap_compile(l->policy, NULL);
    l->memo = gw_vap_memo_new();
    l->in = (gw_vap_input_t){.object = l->object,
                             .request = l->request,
                             .params = l->params,
                             .namespace_object = l->ns,
                             .request_resource = {.resource_request = true,
                                                  .group = "apps",
                                                  .resource = "deployments",
                                                  .ns = NAMESPACE,
                                                  .name = "checkout"}};
    for (size_t i = 0; i < gw_vap_compiled_count(l->compiled, GW_VAP_VALIDATION); i++) {
        const char *err = gw_vap_compile_error(l->compiled, GW_VAP_VALIDATION, i);
        if (err != NULL)
            die("validation %zu: %s", i, err);
    }
    json_decref(ns);
    free(policy);
    free(obj);
    free(bad);
}

/* How many validations admit l->in.object; dies when the evaluation fails as a whole. */
static size_t
eval_admitted(local_t *l, cel_arena_t *a)
{
    gw_vap_result_t res;
    size_t n = 0;

    if (gw_vap_eval(l->compiled, &l->in, l->memo, a, &res) != 0)
        die("gw_vap_eval asked the authorizer");
    for (size_t i = 0; i < res.ndecisions; i++)
        n += res.decisions[i].action == GW_VAP_ADMIT &&
             res.decisions[i].evaluation == GW_VAP_EVAL_ADMIT;
    if (res.ndecisions != N_VALIDATIONS)
        die("gw_vap_eval: %zu decisions, not one per validation", res.ndecisions);
    return n;
}

static void
op_vap_eval(void *ctx)
{
    local_t *l = ctx;
    cel_arena_t *a = cel_arena_new();

    l->admitted = eval_admitted(l, a);
    cel_arena_free(a);
}

static void
op_vap_compile(void *ctx)
{
    local_t *l = ctx;

    gw_vap_compiled_free(gw_vap_compile(l->policy, NULL));
}

static void
op_cel_trivial(void *ctx)
{
    local_t *l = ctx;
    cel_arena_t *a = cel_arena_new();
    cel_activation_t *act = cel_activation_new(a);
    cel_value_t v;
    uint64_t cost;

    cel_activation_bind_json(act, "object", l->object);
    if (cel_eval(l->trivial, act, a, CEL_PER_CALL_LIMIT, &v, &cost) != 0 || v.kind != CEL_BOOL ||
        !v.v.b)
        die("the trivial expression is not true");
    cel_arena_free(a);
}

/* The trivial expression in an environment declaring `object`, as admission binds it. */
static void
trivial_init(local_t *l)
{
    cel_issue_t issue;

    l->env = cel_env_new();
    if (cel_env_declare(l->env, "object", cel_env_type(l->env, "dyn")) != 0)
        die("cannot declare object");
    cel_env_set_type_check(l->env, true);
    if (cel_compile(l->env, "true", &l->trivial, &issue) != 0)
        die("true: %s", issue.message);
}

/* The evaluation measured must be a real one: the over-limit Deployment is denied. */
static void
check_local(local_t *l)
{
    cel_arena_t *a = cel_arena_new();

    if (eval_admitted(l, a) != N_VALIDATIONS)
        die("gw_vap_eval does not admit the Deployment");
    l->in.object = l->bad_object;
    if (eval_admitted(l, a) != N_VALIDATIONS - 1)
        die("gw_vap_eval does not deny a Deployment over the param's limit");
    l->in.object = l->object;
    cel_arena_free(a);
}

static void
print_local(const char *what, const figures_t *f, const figures_t *base)
{
    printf("%-30s %10.0f %8.2f %8.2f %8.1f\n", what, f->ops_s, f->p50_us, f->p99_us,
           f->ops_s > 0 ? base->ops_s / f->ops_s : 0.0);
}

static void
run_local(const timing_t *t)
{
    local_t l = {0};
    figures_t cel, eval, compile;

    local_init(&l);
    trivial_init(&l);
    check_local(&l);
    printf("admission policies in-process, one thread: gw_vap_eval of one policy (3 validations "
           "reading params.data and object.spec) on a %d-byte Deployment with a ConfigMap "
           "param, an arena per evaluation; baseline: CEL `true` with `object` bound; %.1f s per "
           "row after %.1f s warm-up\n",
           DEPLOY_SIZE, t->seconds, t->warmup);
    printf("%-30s %10s %8s %8s %8s\n", "what", "calls/s", "p50 us", "p99 us", "x base");
    time_calls(op_cel_trivial, &l, t, &cel);
    print_local("cel eval `true` (baseline)", &cel, &cel);
    time_calls(op_vap_eval, &l, t, &eval);
    print_local("vap eval, 3 validations", &eval, &cel);
    time_calls(op_vap_compile, &l, t, &compile);
    print_local("vap compile", &compile, &cel);
    fflush(stdout);
    cel_program_free(l.trivial);
    cel_env_free(l.env);
    gw_vap_memo_free(l.memo);
    gw_vap_compiled_free(l.compiled);
    json_decref(l.policy), json_decref(l.object), json_decref(l.bad_object);
    json_decref(l.params), json_decref(l.request), json_decref(l.ns);
}

/* ---- through kgate ------------------------------------------------------------------------ */

typedef struct {
    const char *name;
    int others;   /* policies (with bindings) that match only configmaps */
    int matching; /* policies (with bindings) that match the creates */
} config_t;

/* Phase op = index into configs. */
static const config_t configs[] = {
    {"none", 0, 0},
    {"10 not matching", MAX_POLICIES, 0},
    {"1 matching", 0, 1},
    {"10 matching", 0, MAX_POLICIES},
};
#define N_CONFIGS (sizeof configs / sizeof configs[0])
static const char *const op_names[] = {"create-none", "create-10-other", "create-1-matching",
                                       "create-10-matching"};

typedef struct {
    evdriver_t ev;
    kgate_addr_t k;
    https_conn_t conns[MAX_CONC];
    char *owned[MAX_CONC]; /* each caller's create in flight */
    unsigned seq[MAX_CONC];
    size_t ref_len; /* the length of a create's answer */
} http_t;

/* One request on connection 0 with nothing else in flight; dies unless answered `want`
 * (or anything, for HTTPS_ANY_STATUS). Returns the status; the answer, NUL-terminated, goes
 * to *answer (the caller frees it) unless answer is NULL. */
static int
call(http_t *h, const char *method, const char *path, const char *body, int want, char **answer)
{
    char *req =
        https_request(&(https_req_t){.k = &h->k, .method = method, .path = path, .body = body});
    struct evbuffer *out;
    int status = https_call(&h->conns[0], req, want, &out);
    size_t n = evbuffer_get_length(out);

    if (answer != NULL) {
        *answer = gw_malloc(n + 1);
        evbuffer_remove(out, *answer, n);
        (*answer)[n] = '\0';
    }
    evbuffer_free(out);
    free(req);
    return status;
}

/* A create of Deployment `name` (kept by the caller until answered); the caller frees it. */
static char *
create_request(const http_t *h, const char *name, int replicas)
{
    char *body = deployment_json(name, "", replicas);
    char *req = https_request(
        &(https_req_t){.k = &h->k, .method = "POST", .path = DEPLOYMENTS, .body = body});

    free(body);
    return req;
}

/* Each create has a name of its own, of one length: d<config>-<caller>-<sequence>. */
static void
http_start(driver_t *d, slot_t *s)
{
    http_t *h = (http_t *)d;
    char name[32];

    snprintf(name, sizeof name, "d%d-%02d-%07u", s->phase->op, s->id, h->seq[s->id]++ % 10000000u);
    free(h->owned[s->id]);
    h->owned[s->id] = create_request(h, name, REPLICAS);
    https_send(&h->conns[s->id], h->owned[s->id], 201, h->ref_len, s);
}

/* Each row opens its connections afresh (their handshakes fall in the warm-up). */
static void
http_run(driver_t *d, phase_t *p)
{
    http_t *h = (http_t *)d;

    evdriver_run(d, p);
    for (int i = 0; i < p->conc; i++)
        https_close(&h->conns[i]);
}

/* Create (or delete) the policies and bindings of cfg. */
static void
set_policies(http_t *h, const config_t *cfg, bool create)
{
    for (int m = 0; m < 2; m++) {
        for (int i = 0; i < (m ? cfg->matching : cfg->others); i++) {
            char *name = gw_sprintf("bench-%s-%02d", m ? "match" : "other", i);
            char *policy = policy_json(name, m), *binding = binding_json(name);
            char *ppath = gw_sprintf(POLICIES "/%s", name),
                 *bpath = gw_sprintf(BINDINGS "/%s", name);
            if (create) {
                call(h, "POST", POLICIES, policy, 201, NULL);
                call(h, "POST", BINDINGS, binding, 201, NULL);
            } else {
                call(h, "DELETE", bpath, NULL, 200, NULL);
                call(h, "DELETE", ppath, NULL, 200, NULL);
            }
            free(name), free(policy), free(binding), free(ppath), free(bpath);
        }
    }
}

/* Dry-run creates of the probe Deployment until one is answered `want` with `needle` in its
 * answer (NULL: anything), for up to IN_FORCE_S; dies then. */
static void
poll_probe(http_t *h, int want, const char *needle)
{
    char *body = deployment_json("probe", ",\"" PROBE "\":\"deny\"", REPLICAS), *answer = NULL;
    int64_t until = now_ns() + (int64_t)IN_FORCE_S * 1000000000;
    int status = 0;

    while (now_ns() < until) {
        free(answer);
        status = call(h, "POST", DEPLOYMENTS "?dryRun=All", body, HTTPS_ANY_STATUS, &answer);
        if (status == want && (needle == NULL || strstr(answer, needle) != NULL)) {
            free(answer);
            free(body);
            return;
        }
        usleep(20000);
    }
    die("the probe was not answered %d within %d s; last %d: %.400s", want, IN_FORCE_S, status,
        answer);
}

/* Wait until cfg, just created, is in force (see the top of the file), then check that it
 * denies what it should. */
static void
await_in_force(http_t *h, const config_t *cfg)
{
    char *bad = deployment_json("over-limit", "", BAD_REPLICAS), *answer;

    call(h, "POST", POLICIES, probe_policy_json, 201, NULL);
    call(h, "POST", BINDINGS, probe_binding_json, 201, NULL);
    poll_probe(h, 422, "ValidatingAdmissionPolicy '" PROBE "' with binding '" PROBE "'");
    call(h, "DELETE", BINDINGS "/" PROBE, NULL, 200, NULL);
    call(h, "DELETE", POLICIES "/" PROBE, NULL, 200, NULL);
    poll_probe(h, 201, NULL);
    call(h, "POST", DEPLOYMENTS "?dryRun=All", bad, cfg->matching > 0 ? 422 : 201, &answer);
    if (cfg->matching > 0 && (strstr(answer, "ValidatingAdmissionPolicy 'bench-match-") == NULL ||
                              strstr(answer, "denied request: too many replicas") == NULL))
        die("%s: the Deployment over the limit is not denied by a bench policy: %.400s", cfg->name,
            answer);
    free(answer);
    free(bad);
}

static http_t *
http_new(const char *url, const char *pki)
{
    http_t *h = gw_calloc(1, sizeof *h);
    char *req;

    h->ev = (evdriver_t){
        .d = {.name = "kgate", .op_names = op_names, .start = http_start, .run = http_run},
        .base = event_base_new(),
    };
    kgate_addr_init(&h->k, url, pki);
    for (int i = 0; i < MAX_CONC; i++)
        https_conn_init(&h->conns[i], h->ev.base, &h->k);
    call(h, "POST", "/api/v1/namespaces", "{\"metadata\":{\"name\":\"" NAMESPACE "\"}}", 201, NULL);
    call(h, "POST", NS_PATH "/configmaps", params_json, 201, NULL);
    req = create_request(h, "d9-00-0000000", REPLICAS);
    https_call(&h->conns[0], req, 201, NULL);
    h->ref_len = h->conns[0].len;
    free(req);
    return h;
}

static void
http_free(http_t *h)
{
    call(h, "DELETE", NS_PATH, NULL, 200, NULL);
    for (int i = 0; i < MAX_CONC; i++) {
        https_close(&h->conns[i]);
        free(h->owned[i]);
    }
    SSL_CTX_free(h->k.tls);
    event_base_free(h->ev.base);
    free(h);
}

/* The four rows; returns the errors their phases met. */
static uint64_t
run_http(const char *url, const char *pki, const timing_t *t)
{
    http_t *h = http_new(url, pki);
    result_t r[N_CONFIGS];
    uint64_t errors = 0;

    printf("admission policies through kgate: creates of a %d-byte apps/v1 Deployment (%zu bytes "
           "answered) by the admin, %d callers over HTTPS keep-alive; each matching policy: 3 "
           "validations, a ConfigMap param by name, Deny; %.1f s per row after %.1f s warm-up\n",
           DEPLOY_SIZE, h->ref_len, CONC, t->seconds, t->warmup);
    printf("%-16s %9s %7s %7s %6s\n", "policies", "creates/s", "p50 ms", "p99 ms", "ratio");
    for (size_t i = 0; i < N_CONFIGS; i++) {
        if (i > 0)
            set_policies(h, &configs[i - 1], false);
        set_policies(h, &configs[i], true);
        await_in_force(h, &configs[i]);
        https_close(&h->conns[0]);
        run_phase(&h->ev.d, (int)i, CONC, t, &r[i]);
        errors += r[i].errors;
        printf("%-16s %9.0f %7.3f %7.3f %6.2f\n", configs[i].name, r[i].ops_s, r[i].p50_ms,
               r[i].p99_ms, r[0].ops_s > 0 ? r[i].ops_s / r[0].ops_s : 0.0);
        fflush(stdout);
    }
    set_policies(h, &configs[N_CONFIGS - 1], false);
    http_free(h);
    return errors;
}

int
main(int argc, char **argv)
{
    timing_t t;
    uint64_t errors;

    if (argc != 3)
        die("usage: bench_vap https://IP:PORT PKI_DIR");
    signal(SIGPIPE, SIG_IGN); /* a connection kgate closes is an error reported, not a kill */
    parse_timing(&t);
    run_local(&t);
    printf("\n");
    errors = run_http(argv[1], argv[2], &t);
    return errors == 0 ? 0 : 1;
}
