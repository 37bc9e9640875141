/*
 * bench_cel: what CEL costs an admission check, on one thread. Each row is an expression
 * over a Deployment of about 2 KiB, parsed once with Jansson and bound as `object` straight
 * from it (typed by its schema, read lazily, never copied), as admission binds the request's
 * object:
 *  - compile: cel_compile() with type checking against the variables admission declares
 *    (object and oldObject typed by the schema, request, params, namespaceObject, authorizer),
 *    which includes the static cost estimate; the program is freed again;
 *  - eval: an arena, an activation binding the document, cel_eval() under kube-apiserver's
 *    per-expression cost limit, the arena freed: what one admission request pays;
 *  - native: a plain C function checking the same thing on the same json_t, for scale.
 * Every operation is timed on its own (the clock read, printed in the header, is included).
 * The cost column is the runtime cost of one evaluation, the estimate column the static one.
 *
 * Usage: bench_cel. Needs no etcd. BENCH_SECONDS as for every benchmark (bench.h).
 */

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "bench.h"
#include "cel.h"

/* kube-apiserver's per-expression runtime cost limit (celconfig.PerCallLimit). */
#define PER_CALL_LIMIT 1000000

/* A Deployment as a client sends it: labels that all start with "app", a long description
 * ending in the release it describes, and the bulk of a pod template. */
static const char deployment[] =
    "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":"
    "\"checkout-frontend\",\"namespace\":\"shop\",\"labels\":{\"app\":\"checkout\","
    "\"app.kubernetes.io/name\":\"checkout-frontend\",\"app.kubernetes.io/version\":\"2.14.1\","
    "\"app.kubernetes.io/part-of\":\"shop\",\"app-tier\":\"web\"},\"annotations\":{"
    "\"description\":\"Serves the checkout pages of the shop: it renders the basket, the "
    "delivery options and the payment step, talks to the checkout API for prices and stock, "
    "and hands the payment over to the provider's hosted page. It keeps no state of its own: "
    "sessions live in the API, so any replica can serve any request and a rolling update "
    "drains nothing. Scale it with the traffic of the shop front; two replicas are enough "
    "outside of sales. Owned by the web team, paged through the shop rota. Current release: "
    "v2.14.1\",\"owner\":\"web-team\"}},\"spec\":{\"replicas\":3,\"revisionHistoryLimit\":10,"
    "\"selector\":{\"matchLabels\":{\"app\":\"checkout\"}},\"strategy\":{\"type\":"
    "\"RollingUpdate\",\"rollingUpdate\":{\"maxSurge\":\"25%\",\"maxUnavailable\":\"25%\"}},"
    "\"template\":{\"metadata\":{\"labels\":{\"app\":\"checkout\",\"app-tier\":\"web\"}},"
    "\"spec\":{\"containers\":[{\"name\":\"web\",\"image\":"
    "\"registry.example.com/shop/checkout-frontend:2.14.1\",\"ports\":[{\"name\":\"http\","
    "\"containerPort\":8080,\"protocol\":\"TCP\"}],\"env\":[{\"name\":\"LOG_LEVEL\",\"value\":"
    "\"info\"},{\"name\":\"CHECKOUT_API\",\"value\":\"http://checkout-api.shop.svc:8080\"},"
    "{\"name\":\"PAYMENT_PROVIDER\",\"value\":\"https://pay.example.com/hosted\"}],"
    "\"resources\":{\"requests\":{\"cpu\":\"250m\",\"memory\":\"256Mi\"},\"limits\":{\"cpu\":"
    "\"1\",\"memory\":\"512Mi\"}},\"readinessProbe\":{\"httpGet\":{\"path\":\"/healthz\","
    "\"port\":8080},\"periodSeconds\":10},\"livenessProbe\":{\"httpGet\":{\"path\":"
    "\"/livez\",\"port\":8080},\"periodSeconds\":20,\"failureThreshold\":3}},{\"name\":"
    "\"metrics\",\"image\":\"registry.example.com/shop/metrics-agent:0.9.3\",\"args\":["
    "\"--listen=:9102\",\"--scrape=http://localhost:8080/metrics\"],\"ports\":[{\"name\":"
    "\"metrics\",\"containerPort\":9102,\"protocol\":\"TCP\"}],\"resources\":{\"requests\":{"
    "\"cpu\":\"10m\",\"memory\":\"32Mi\"}}}],\"terminationGracePeriodSeconds\":30,"
    "\"dnsPolicy\":\"ClusterFirst\",\"restartPolicy\":\"Always\",\"serviceAccountName\":"
    "\"checkout-frontend\"}}}}";

/* The part of the Deployment schema the expressions reach (OpenAPI v3, as in the catalog). */
static const char schema[] =
    "{\"type\":\"object\",\"properties\":{\"apiVersion\":{\"type\":\"string\"},\"kind\":{"
    "\"type\":\"string\"},\"metadata\":{\"type\":\"object\",\"properties\":{\"name\":{\"type\":"
    "\"string\"},\"namespace\":{\"type\":\"string\"},\"labels\":{\"type\":\"object\","
    "\"additionalProperties\":{\"type\":\"string\"}},\"annotations\":{\"type\":\"object\","
    "\"additionalProperties\":{\"type\":\"string\"}}}},\"spec\":{\"type\":\"object\","
    "\"properties\":{\"replicas\":{\"type\":\"integer\"},\"revisionHistoryLimit\":{\"type\":"
    "\"integer\"},\"selector\":{\"type\":\"object\",\"properties\":{\"matchLabels\":{\"type\":"
    "\"object\",\"additionalProperties\":{\"type\":\"string\"}}}},\"template\":{\"type\":"
    "\"object\",\"properties\":{\"spec\":{\"type\":\"object\",\"properties\":{\"containers\":{"
    "\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{\"name\":{\"type\":"
    "\"string\"},\"image\":{\"type\":\"string\"}}}}}}}}}}}}";

typedef struct row row_t;

struct row {
    const char *name;
    const char *expr;
    bool (*native)(const json_t *doc); /* the same check in plain C */
};

/* ---- the native checks ------------------------------------------------------------------ */

static bool
native_admission(const json_t *doc)
{
    const json_t *spec = json_object_get(doc, "spec"), *meta = json_object_get(doc, "metadata");
    json_t *replicas = json_object_get(spec, "replicas"), *v;
    const char *key;

    if (!json_is_integer(replicas) || json_integer_value(replicas) > 5)
        return false;
    json_object_foreach(json_object_get(meta, "labels"), key, v)
    {
        if (strncmp(key, "app", 3) != 0)
            return false;
    }
    return true;
}

static bool
alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

/* A DNS-1123 label: lower-case alphanumerics and '-', starting and ending alphanumeric. */
static bool
native_matches(const json_t *doc)
{
    const char *s = json_string_value(json_object_get(json_object_get(doc, "metadata"), "name"));
    size_t n = s != NULL ? strlen(s) : 0;

    if (n == 0 || !alnum(s[0]) || !alnum(s[n - 1]))
        return false;
    for (size_t i = 1; i + 1 < n; i++) {
        if (!alnum(s[i]) && s[i] != '-')
            return false;
    }
    return true;
}

/* Digits at s[*i], and the position after them; false when there are none. */
static bool
digits(const char *s, size_t *i)
{
    size_t from = *i;

    while (s[*i] >= '0' && s[*i] <= '9')
        (*i)++;
    return *i > from;
}

/* The first "v<digits>.<digits>.<digits>" of the description is v2.14.1. */
static bool
native_find(const json_t *doc)
{
    const json_t *ann = json_object_get(json_object_get(doc, "metadata"), "annotations");
    const char *s = json_string_value(json_object_get(ann, "description"));

    for (const char *v = s != NULL ? strchr(s, 'v') : NULL; v != NULL; v = strchr(v + 1, 'v')) {
        size_t i = 1;
        if (digits(v, &i) && v[i++] == '.' && digits(v, &i) && v[i++] == '.' && digits(v, &i))
            return i == 7 && strncmp(v, "v2.14.1", 7) == 0;
    }
    return false;
}

static const row_t rows[] = {
    {"admission", "object.spec.replicas <= 5 && object.metadata.labels.all(k, k.startsWith('app'))",
     native_admission},
    {"matches", "object.metadata.name.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$')", native_matches},
    {"find",
     "object.metadata.annotations.description.find('v[0-9]+[.][0-9]+[.][0-9]+') == 'v2.14.1'",
     native_find},
};

/* ---- the schema, from its JSON ---------------------------------------------------------- */

static cel_schema_kind_t
schema_kind(const char *type)
{
    static const char *const names[] = {
        [CEL_SCHEMA_OBJECT] = "object", [CEL_SCHEMA_ARRAY] = "array",
        [CEL_SCHEMA_STRING] = "string", [CEL_SCHEMA_INTEGER] = "integer",
        [CEL_SCHEMA_NUMBER] = "number", [CEL_SCHEMA_BOOLEAN] = "boolean",
    };

    for (size_t k = CEL_SCHEMA_OBJECT; type != NULL && k <= CEL_SCHEMA_BOOLEAN; k++) {
        if (strcmp(type, names[k]) == 0)
            return (cel_schema_kind_t)k;
    }
    return CEL_SCHEMA_NONE;
}

/* The schema of JSON node j, in arena a; names point into j. */
static cel_schema_t *
schema_read(cel_arena_t *a, const json_t *j)
{
    cel_schema_t *s = cel_arena_alloc(a, sizeof *s);
    const json_t *props = json_object_get(j, "properties"), *items, *addl;
    cel_schema_prop_t *p = cel_arena_alloc(a, sizeof *p * (json_object_size(props) + 1));
    const char *name;
    json_t *v;

    *s = CEL_SCHEMA(schema_kind(json_string_value(json_object_get(j, "type"))));
    items = json_object_get(j, "items");
    addl = json_object_get(j, "additionalProperties");
    s->items = items != NULL ? schema_read(a, items) : NULL;
    s->additional_properties = addl != NULL ? schema_read(a, addl) : NULL;
    json_object_foreach((json_t *)props, name, v)
    {
        p[s->nprops++] = (cel_schema_prop_t){.name = name, .schema = schema_read(a, v)};
    }
    s->props = p;
    return s;
}

/* ---- compiling and evaluating ------------------------------------------------------------ */

typedef struct {
    cel_env_t *env;
    const cel_decltype_t *object_type;
    const json_t *doc;
    const row_t *row;
    cel_program_t *prog;
    bool result;
    uint64_t cost;
} bench_t;

/* The environment admission compiles in: its variables declared, type checking on. */
static void
env_init(bench_t *b, const json_t *schema_doc)
{
    static const char *const vars[][2] = {
        {"request", "map(string, dyn)"},
        {"params", "dyn"},
        {"namespaceObject", "dyn"},
        {"authorizer", "kubernetes.authorization.Authorizer"},
        {"authorizer.requestResource", "kubernetes.authorization.ResourceCheck"},
    };
    cel_arena_t *a = cel_arena_new();

    b->env = cel_env_new();
    b->object_type = cel_env_schema_type(b->env, schema_read(a, schema_doc), "Object", false);
    cel_arena_free(a);
    if (b->object_type == NULL || cel_env_declare(b->env, "object", b->object_type) != 0 ||
        cel_env_declare(b->env, "oldObject", b->object_type) != 0)
        die("cannot declare object");
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        if (cel_env_declare(b->env, vars[i][0], cel_env_type(b->env, vars[i][1])) != 0)
            die("cannot declare %s", vars[i][0]);
    }
    cel_env_set_type_check(b->env, true);
}

static void
op_compile(void *ctx)
{
    bench_t *b = ctx;
    cel_program_t *prog;
    cel_issue_t issue;

    if (cel_compile(b->env, b->row->expr, &prog, &issue) != 0)
        die("%s: %s", b->row->name, issue.message);
    cel_program_free(prog);
}

static void
op_eval(void *ctx)
{
    bench_t *b = ctx;
    cel_arena_t *a = cel_arena_new();
    cel_activation_t *act = cel_activation_new(a);
    cel_value_t v;

    cel_activation_bind_json_typed(act, "object", b->doc, b->object_type);
    if (cel_eval(b->prog, act, a, PER_CALL_LIMIT, &v, &b->cost) != 0 || v.kind != CEL_BOOL)
        die("%s: %s", b->row->name, v.kind == CEL_ERROR ? v.v.err : "not a bool");
    b->result = v.v.b;
    cel_arena_free(a);
}

static void
op_native(void *ctx)
{
    bench_t *b = ctx;

    b->result = b->row->native(b->doc);
}

/* ---- timing ---------------------------------------------------------------------------- */

/* Nanoseconds one now_ns() takes, as every timed call pays it once. */
static double
clock_cost(void)
{
    enum { N = 1000000 };
    int64_t start = now_ns();

    for (int i = 0; i < N; i++)
        (void)now_ns();
    return (double)(now_ns() - start) / N;
}

static void
run_row(bench_t *b, const row_t *row, const timing_t *t)
{
    cel_cost_estimate_t est;
    cel_issue_t issue;
    figures_t c, e, n;
    bool native;

    b->row = row;
    if (cel_compile(b->env, row->expr, &b->prog, &issue) != 0)
        die("%s: %s", row->name, issue.message);
    cel_program_estimate(b->prog, &est);
    time_calls(op_compile, b, t, &c);
    time_calls(op_native, b, t, &n);
    native = b->result;
    time_calls(op_eval, b, t, &e);
    if (b->result != native || !native)
        die("%s: CEL says %d, the native check %d", row->name, b->result, native);
    printf("%-9s  %10.0f %8.2f %8.2f  %10.0f %8.2f %8.2f  %6" PRIu64 "  %10.0f %8.2f  %8.1f\n",
           row->name, c.ops_s, c.p50_us, c.p99_us, e.ops_s, e.p50_us, e.p99_us, b->cost, n.ops_s,
           n.p50_us, e.ops_s > 0 ? n.ops_s / e.ops_s : 0.0);
    printf("%-9s  %s\n%-9s  estimate %" PRIu64 "..%" PRIu64 "\n", "", row->expr, "", est.min,
           est.max);
    fflush(stdout);
    cel_program_free(b->prog);
}

int
main(int argc, char **argv)
{
    json_error_t jerr;
    json_t *doc = json_loads(deployment, 0, &jerr), *schema_doc = json_loads(schema, 0, &jerr);
    bench_t b = {.doc = doc};
    timing_t t;

    (void)argv;
    if (argc > 1)
        die("usage: bench_cel (no arguments; BENCH_SECONDS sets each phase's duration)");
    if (doc == NULL || schema_doc == NULL)
        die("built-in JSON: %s", jerr.text);
    parse_timing(&t);
    env_init(&b, schema_doc);
    char *text = json_dumps(doc, JSON_COMPACT);
    printf("CEL on one thread: a %zu-byte Deployment bound from Jansson; compile = parse + type "
           "check + estimate; eval = arena + binding + evaluation\n",
           strlen(text));
    printf("%.1f s per phase after %.1f s warm-up; each call timed alone (clock read %.0f ns "
           "included); cost limit %d\n\n",
           t.seconds, t.warmup, clock_cost(), PER_CALL_LIMIT);
    printf("expr       compile/s   p50 us   p99 us      eval/s   p50 us   p99 us    cost    "
           "native/s   p50 us  CEL/native\n");
    free(text);
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        run_row(&b, &rows[i], &t);
    cel_env_free(b.env);
    json_decref(schema_doc);
    json_decref(doc);
    return 0;
}
