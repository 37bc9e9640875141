/*
 * Evaluation cases from the .txt files of tests/unit/cel/cases, one per line:
 *
 *     <expression> ==> <expected> [;; <bindings as a JSON object>]
 *
 * <expected> is either a CEL expression whose value the result must equal, kinds included
 * (so 1 and 1.0 differ), or `!substring` for a compile or evaluation error whose message
 * contains it. Bindings are bound as Jansson documents, so they exercise lazy JSON values.
 * Lines starting with '#' are comments; `%container NAME` and `%macros on|off` set the
 * environment for the lines after them in the same file, and `%mutation` gives it the mutation
 * library (dynamic objects).
 *
 * Also: cost budgets, the public value API and concurrency-free reuse of a program.
 */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cel.h"
#include "tap.h"

#define CASE_BUDGET 10000000

static bool strict_eq(const cel_value_t *a, const cel_value_t *b);

static bool
map_has_strict(const cel_value_t *m, const cel_value_t *k, const cel_value_t *v)
{
    cel_map_iter_t it = CEL_MAP_ITER_INIT;
    cel_value_t k2, v2;
    while (cel_map_next(m, &it, &k2, &v2)) {
        if (strict_eq(k, &k2))
            return strict_eq(v, &v2);
    }
    return false;
}

/* Equality that also demands equal kinds, all the way down. */
static bool
strict_eq(const cel_value_t *a, const cel_value_t *b)
{
    if (a->kind != b->kind)
        return false;
    switch (a->kind) {
    case CEL_DOUBLE:
        return (isnan(a->v.d) && isnan(b->v.d)) || a->v.d == b->v.d;
    case CEL_LIST:
        if (cel_list_size(a) != cel_list_size(b))
            return false;
        for (size_t i = 0; i < cel_list_size(a); i++) {
            cel_value_t x = cel_list_at(a, i), y = cel_list_at(b, i);
            if (!strict_eq(&x, &y))
                return false;
        }
        return true;
    case CEL_MAP: {
        if (cel_map_size(a) != cel_map_size(b))
            return false;
        cel_map_iter_t it = CEL_MAP_ITER_INIT;
        cel_value_t k, v;
        while (cel_map_next(a, &it, &k, &v)) {
            if (!map_has_strict(b, &k, &v))
                return false;
        }
        return true;
    }
    case CEL_OPTIONAL:
        if (a->v.opt == NULL || b->v.opt == NULL)
            return a->v.opt == b->v.opt;
        return strict_eq(a->v.opt, b->v.opt);
    case CEL_ERROR:
        return false;
    default:
        return cel_value_equal(a, b);
    }
}

typedef struct outcome {
    cel_program_t *prog; /* results may point at its constants: freed after comparing */
    bool compiled;
    cel_value_t v;
    char *issue; /* compile error text, malloc'd */
} outcome_t;

static outcome_t
run(const cel_env_t *env, const char *expr, json_t *bindings, cel_arena_t *a)
{
    outcome_t o = {0};
    cel_program_t *prog;
    cel_issue_t issue;
    if (cel_compile(env, expr, &prog, &issue) != 0) {
        o.issue = issue.message;
        return o;
    }
    cel_activation_t *act = cel_activation_new(a);
    const char *name;
    json_t *val;
    json_object_foreach(bindings, name, val) cel_activation_bind_json(act, name, val);
    o.compiled = true;
    cel_eval(prog, act, a, CASE_BUDGET, &o.v, NULL);
    o.prog = prog;
    return o;
}

static const char *
describe(const outcome_t *o, cel_arena_t *a)
{
    (void)a;
    if (!o->compiled)
        return o->issue;
    if (o->v.kind == CEL_ERROR)
        return o->v.v.err;
    return cel_type_name(cel_value_type(&o->v));
}

/* Compare one case; prints the TAP line. */
static void
check_case(const cel_env_t *env, const char *where, const char *expr, const char *want,
           json_t *bindings)
{
    cel_arena_t *a = cel_arena_new();
    outcome_t got = run(env, expr, bindings, a);
    bool ok;
    if (want[0] == '!') {
        const char *msg = got.compiled ? (got.v.kind == CEL_ERROR ? got.v.v.err : NULL) : got.issue;
        ok = msg != NULL && strstr(msg, want + 1) != NULL;
    } else {
        outcome_t exp = run(env, want, NULL, a);
        if (!exp.compiled || exp.v.kind == CEL_ERROR)
            tap_diag("bad expectation %s: %s", want, describe(&exp, a));
        ok = got.compiled && exp.compiled && strict_eq(&got.v, &exp.v);
        free(exp.issue);
        cel_program_free(exp.prog);
    }
    if (!tap_ok(ok, "%s: %s", where, expr))
        tap_diag("  got %s, want %s", describe(&got, a), want);
    free(got.issue);
    cel_program_free(got.prog);
    cel_arena_free(a);
}

static void
directive(cel_env_t *env, const char *line)
{
    if (strncmp(line, "%container ", 11) == 0)
        cel_env_set_container(env, line + 11);
    else if (strcmp(line, "%container") == 0)
        cel_env_set_container(env, "");
    else if (strncmp(line, "%macros ", 8) == 0)
        cel_env_set_macros(env, strcmp(line + 8, "on") == 0);
    else if (strcmp(line, "%mutation") == 0)
        cel_env_enable_mutation(env, NULL);
}

static void
run_line(cel_env_t *env, const char *where, char *line)
{
    char *arrow = strstr(line, " ==> ");
    if (arrow == NULL) {
        tap_ok(0, "%s: malformed case line", where);
        return;
    }
    *arrow = '\0';
    char *want = arrow + 5, *sep = strstr(want, " ;; ");
    json_t *bindings = NULL;
    if (sep != NULL) {
        *sep = '\0';
        json_error_t jerr;
        bindings = json_loads(sep + 4, 0, &jerr);
        if (!json_is_object(bindings)) {
            tap_ok(0, "%s: malformed bindings: %s", where, jerr.text);
            json_decref(bindings);
            return;
        }
    }
    check_case(env, where, line, want, bindings);
    json_decref(bindings);
}

static int
run_file(const char *dir, const char *file)
{
    char path[1024], where[1024];
    snprintf(path, sizeof(path), "%s/%s", dir, file);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return tap_ok(0, "open %s", path);
    cel_env_t *env = cel_env_new();
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    int lineno = 0, cases = 0;
    while ((n = getline(&line, &cap, f)) >= 0) {
        lineno++;
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
            line[--n] = '\0';
        if (n == 0 || line[0] == '#')
            continue;
        if (line[0] == '%') {
            directive(env, line);
            continue;
        }
        snprintf(where, sizeof(where), "%s:%d", file, lineno);
        run_line(env, where, line);
        cases++;
    }
    free(line);
    fclose(f);
    cel_env_free(env);
    return cases;
}

static int
cmp_names(const void *x, const void *y)
{
    return strcmp(*(char *const *)x, *(char *const *)y);
}

static void
run_case_files(void)
{
    char dir[512];
    const char *src = __FILE__, *slash = strrchr(src, '/');
    snprintf(dir, sizeof(dir), "%.*s/cases", slash ? (int)(slash - src) : 1, slash ? src : ".");
    DIR *d = opendir(dir);
    if (!tap_ok(d != NULL, "open case directory %s", dir))
        return;
    char *names[256];
    int count = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && count < 256) {
        size_t len = strlen(e->d_name);
        if (len > 4 && strcmp(e->d_name + len - 4, ".txt") == 0)
            names[count++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, (size_t)count, sizeof(char *), cmp_names);
    int total = 0;
    for (int i = 0; i < count; i++) {
        total += run_file(dir, names[i]);
        free(names[i]);
    }
    tap_diag("%d cases in %d files", total, count);
}

/* ---- Beyond the case files ---- */

static void
test_budget(void)
{
    cel_env_t *env = cel_env_new();
    cel_program_t *prog;
    cel_issue_t issue;
    const char *expr = "[1,2,3,4,5,6,7,8,9,10].map(x, [1,2,3,4,5,6,7,8,9,10].map(y, x * y))"
                       ".size() == 10 || true";
    tap_ok(cel_compile(env, expr, &prog, &issue) == 0, "budget: compile");
    cel_arena_t *a = cel_arena_new();
    cel_value_t v;
    uint64_t cost = 0;
    tap_is_int(cel_eval(prog, NULL, a, 0, &v, &cost), 0, "budget: unlimited evaluation runs");
    tap_ok(v.kind == CEL_BOOL && v.v.b, "budget: unlimited result is true");
    tap_ok(cost > 100, "budget: cost counted (%llu)", (unsigned long long)cost);
    uint64_t full = cost;
    tap_is_int(cel_eval(prog, NULL, a, full, &v, &cost), 0, "budget: exact budget suffices");
    tap_is_int(cel_eval(prog, NULL, a, full / 2, &v, &cost), CEL_ECOST,
               "budget: half the budget halts");
    tap_ok(v.kind == CEL_ERROR && strstr(v.v.err, "cost limit") != NULL,
           "budget: halting error is not absorbed by ||");
    cel_program_free(prog);
    cel_arena_free(a);
    cel_env_free(env);
}

static bool
host_resolve(void *ctx, const char *name, size_t len, cel_arena_t *a, cel_value_t *out)
{
    (void)ctx;
    if (len == 4 && memcmp(name, "host", 4) == 0) {
        *out = cel_string(a, "from-callback", 13);
        return true;
    }
    return false;
}

static void
test_activation(void)
{
    cel_env_t *env = cel_env_new();
    cel_program_t *prog;
    cel_issue_t issue;
    tap_ok(cel_compile(env, "host + '/' + bound + '/' + string(doc.items[1].n)", &prog, &issue) ==
               0,
           "activation: compile");
    cel_arena_t *a = cel_arena_new();
    cel_activation_t *act = cel_activation_new(a);
    json_t *doc = json_pack("{s:[{s:i},{s:i}]}", "items", "n", 1, "n", 2);
    cel_activation_bind(act, "bound", cel_string(a, "direct", 6));
    cel_activation_bind_json(act, "doc", doc);
    cel_activation_set_resolver(act, host_resolve, NULL);
    cel_value_t v;
    cel_eval(prog, act, a, 0, &v, NULL);
    tap_ok(v.kind == CEL_STRING && v.v.str.len == 22 &&
               memcmp(v.v.str.data, "from-callback/direct/2", 22) == 0,
           "activation: callback, direct and JSON bindings resolve");
    json_decref(doc);
    cel_program_free(prog);
    cel_arena_free(a);
    cel_env_free(env);
}

static void
test_values(void)
{
    cel_arena_t *a = cel_arena_new();
    cel_value_t keys[] = {cel_int(1), cel_uint(1)}, vals[] = {cel_bool(true), cel_bool(false)};
    cel_value_t m = cel_map(a, keys, vals, 2);
    tap_ok(m.kind == CEL_ERROR, "values: 1 and 1u are the same map key");
    m = cel_map(a, keys, vals, 1);
    cel_value_t out, k = cel_double(1.0);
    tap_ok(cel_map_find(&m, &k, &out) && out.v.b, "values: a double key finds an int key");
    tap_ok(cel_string(a, "\xff", 1).kind == CEL_ERROR, "values: invalid UTF-8 is refused");
    tap_ok(cel_timestamp(253402300800LL, 0).kind == CEL_ERROR,
           "values: timestamp beyond year 9999 is refused");
    tap_is_str(cel_type_name(cel_value_type(&m)), "map", "values: type name of a map");
    tap_ok(cel_type_find("google.protobuf.Duration") != NULL, "values: type lookup by name");
    cel_arena_free(a);
}

/* Property-name escaping: each name, its identifier (NULL: none), and the way back. */
static void
test_escaping(void)
{
    static const struct {
        const char *name;
        const char *ident;
    } cases[] = {
        {"", NULL},
        {"1a", NULL},
        {"a b", NULL},
        {"\xc3\xa9", NULL},
        {"a:b", NULL},
        {"namespace", "__namespace__"},
        {"in", "__in__"},
        {"true", "__true__"},
        {"x-y", "x__dash__y"},
        {"a.b/c-d", "a__dot__b__slash__c__dash__d"},
        {"a__b", "a__underscores__b"},
        {"___", "__underscores___"},
        {"_a", "_a"},
        {"int", "int"},
        {"sprint", "sprint"},
        {"-", "__dash__"},
    };
    cel_arena_t *a = cel_arena_new();
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const char *got = cel_escape_property(a, cases[i].name, strlen(cases[i].name));
        bool ok = cases[i].ident ? got && strcmp(got, cases[i].ident) == 0 : got == NULL;
        tap_ok(ok, "escape '%s' -> %s", cases[i].name, cases[i].ident ? cases[i].ident : "none");
        if (cases[i].ident == NULL)
            continue;
        size_t n;
        const char *back = cel_unescape_property(a, got, strlen(got), &n);
        tap_ok(back && n == strlen(cases[i].name) && memcmp(back, cases[i].name, n) == 0,
               "unescape '%s' -> '%s'", cases[i].ident, cases[i].name);
    }
    size_t n;
    tap_ok(cel_unescape_property(a, "a__b", 4, &n) == NULL, "unescape: bare __ is refused");
    tap_ok(cel_unescape_property(a, "__int__", 7, &n) == NULL, "unescape: __int__ is no escape");
    cel_arena_free(a);
}

/* ---- The authorizer library, answered by a fake host authorizer ---- */

typedef struct fake_authz {
    int calls;
    char last[512]; /* the last check's attributes, as text */
} fake_authz_t;

/* Allows "get", denies everything else, fails on the resource "broken". */
static void
fake_authorize(void *ctx, const cel_authz_attrs_t *at, cel_arena_t *a, cel_authz_result_t *out)
{
    fake_authz_t *f = ctx;
    (void)a;
    f->calls++;
    if (at->resource_request)
        snprintf(f->last, sizeof(f->last), "%s%s%s|%s|%s/%s/%s|%s|%s|%s|%s",
                 at->sa_namespace ? at->sa_namespace : "", at->sa_namespace ? "/" : "",
                 at->sa_name ? at->sa_name : "", at->verb, at->group, at->resource, at->subresource,
                 at->ns, at->name, at->field_selector, at->label_selector);
    else
        snprintf(f->last, sizeof(f->last), "path|%s|%s", at->verb, at->path);
    if (at->resource != NULL && strcmp(at->resource, "broken") == 0) {
        out->error = "webhook unreachable";
        return;
    }
    out->decision = strcmp(at->verb, "get") == 0 ? CEL_AUTHZ_ALLOW : CEL_AUTHZ_DENY;
    out->reason = out->decision == CEL_AUTHZ_ALLOW ? "rbac: allowed" : "rbac: denied";
}

/* Evaluate `expr` with `authorizer` and `authorizer.requestResource` bound. */
static cel_value_t
authz_eval(const char *expr, fake_authz_t *f, cel_arena_t *a, cel_program_t **prog)
{
    cel_env_t *env = cel_env_new();
    cel_issue_t issue;
    cel_value_t v = {.kind = CEL_ERROR, .v.err = "compile failed"};
    if (cel_compile(env, expr, prog, &issue) != 0) {
        tap_diag("%s", issue.message);
        cel_issue_clear(&issue);
        cel_env_free(env);
        return v;
    }
    cel_activation_t *act = cel_activation_new(a);
    cel_authz_attrs_t req = {.group = "apps",
                             .resource = "deployments",
                             .subresource = "scale",
                             .ns = "prod",
                             .name = "web"};
    cel_activation_bind(act, "authorizer", cel_authorizer(a, fake_authorize, f));
    cel_activation_bind(act, "authorizer.requestResource",
                        cel_authorizer_request_resource(a, fake_authorize, f, &req));
    cel_eval(*prog, act, a, 0, &v, NULL);
    cel_env_free(env);
    return v;
}

static void
authz_case(const char *expr, const char *want, const char *want_attrs)
{
    fake_authz_t f = {0};
    cel_arena_t *a = cel_arena_new();
    cel_program_t *prog = NULL;
    cel_value_t v = authz_eval(expr, &f, a, &prog);
    char got[512];
    if (v.kind == CEL_ERROR)
        snprintf(got, sizeof(got), "!%s", v.v.err);
    else if (v.kind == CEL_BOOL)
        snprintf(got, sizeof(got), "%s", v.v.b ? "true" : "false");
    else if (v.kind == CEL_STRING)
        snprintf(got, sizeof(got), "'%.*s'", (int)v.v.str.len, v.v.str.data);
    else
        snprintf(got, sizeof(got), "<%s>", cel_type_name(cel_value_type(&v)));
    bool same = want[0] == '!' ? strncmp(got, want, strlen(want)) == 0 : strcmp(got, want) == 0;
    bool ok = same && (want_attrs == NULL || strcmp(f.last, want_attrs) == 0);
    if (!tap_ok(ok, "authz: %s", expr))
        tap_diag("  got %s (asked %s), want %s (asked %s)", got, f.last, want,
                 want_attrs ? want_attrs : "-");
    cel_program_free(prog);
    cel_arena_free(a);
}

static void
test_authz(void)
{
    authz_case("authorizer.group('').resource('pods').namespace('default').check('get').allowed()",
               "true", "|get|/pods/|default|||");
    authz_case("authorizer.group('apps').resource('deployments').subresource('scale')"
               ".namespace('ns').name('web').check('update').allowed()",
               "false", "|update|apps/deployments/scale|ns|web||");
    authz_case("authorizer.group('').resource('pods').check('list').reason()", "'rbac: denied'",
               "|list|/pods/||||");
    authz_case("authorizer.group('').resource('pods').fieldSelector('spec.nodeName=n1')"
               ".labelSelector('app=x').check('list').errored()",
               "false", "|list|/pods/|||spec.nodeName=n1|app=x");
    authz_case("authorizer.group('').resource('broken').check('get').errored()", "true", NULL);
    authz_case("authorizer.group('').resource('broken').check('get').error()",
               "'webhook unreachable'", NULL);
    authz_case("authorizer.group('').resource('broken').check('get').allowed()", "false", NULL);
    authz_case("authorizer.group('').resource('pods').check('get').error()", "''", NULL);
    authz_case("authorizer.path('/healthz').check('get').allowed()", "true", "path|get|/healthz");
    authz_case("authorizer.path('healthz').check('post').reason()", "'rbac: denied'",
               "path|post|healthz");
    authz_case("authorizer.path('  ')", "!path must not be empty", NULL);
    authz_case("authorizer.group('apps').resource(' ')", "!resource must not be empty", NULL);
    authz_case("authorizer.serviceAccount('kube-system', 'ctrl').group('').resource('pods')"
               ".check('get').allowed()",
               "true", "kube-system/ctrl|get|/pods/||||");
    authz_case("authorizer.serviceAccount('default', 'invalid@*name')",
               "!Invalid service account name", NULL);
    authz_case("authorizer.serviceAccount('not@a#valid!namespace', 'validname')",
               "!Invalid service account namespace", NULL);
    authz_case("authorizer.serviceAccount('a.b', 'valid.example.com')",
               "!Invalid service account namespace", NULL);
    authz_case("authorizer.requestResource.check('get').allowed()", "true",
               "|get|apps/deployments/scale|prod|web||");
    authz_case("authorizer.requestResource.namespace('').check('create').reason()",
               "'rbac: denied'", "|create|apps/deployments/scale||web||");
    authz_case("type(authorizer) == kubernetes.authorization.Authorizer", "true", NULL);
    authz_case("type(authorizer.path('/x').check('get'))", "<type>", NULL);
    authz_case("authorizer.group('').check('get')", "!no such overload", NULL);
    authz_case("authorizer.path('/x').resource('pods')", "!no such overload", NULL);
    authz_case("authorizer.group(1)", "!no such overload", NULL);
    authz_case("authorizer.group('').resource('pods').check('get').allowed() && "
               "authorizer.group('').resource('pods').check('get').allowed() && "
               "authorizer.group('').resource('pods').check('get').allowed()",
               "true", NULL);
}

/* The mutation library's constructed values: maps that carry their type name. */
static void
test_mutation_values(void)
{
    cel_env_t *env = cel_env_new();
    cel_env_enable_mutation(env, NULL);
    cel_arena_t *a = cel_arena_new();
    cel_program_t *prog = NULL;
    cel_issue_t issue = {0};
    const char *src = "[Object.spec{replicas: 2}, JSONPatch{op: 'add', path: '/x'}, {'a': 1}]";
    cel_value_t v = {0};
    bool ok = cel_compile(env, src, &prog, &issue) == 0 &&
              cel_eval(prog, NULL, a, 0, &v, NULL) == 0 && v.kind == CEL_LIST;
    if (tap_ok(ok, "mutation: construction evaluates")) {
        cel_value_t o = cel_list_at(&v, 0), p = cel_list_at(&v, 1), m = cel_list_at(&v, 2);
        cel_value_t key = cel_string(a, "replicas", 8), got;
        tap_ok(o.kind == CEL_MAP && strcmp(cel_value_object_name(&o), "Object.spec") == 0,
               "mutation: an object is a map named Object.spec");
        tap_ok(cel_map_find(&o, &key, &got) && got.kind == CEL_INT && got.v.i == 2,
               "mutation: its fields are map entries");
        tap_ok(p.kind == CEL_MAP && strcmp(cel_value_object_name(&p), "JSONPatch") == 0 &&
                   cel_map_size(&p) == 2,
               "mutation: a JSONPatch holds the fields set");
        tap_ok(cel_value_object_name(&m) == NULL, "mutation: a plain map has no type name");
        tap_ok(strcmp(cel_type_name(cel_value_type(&o)), "Object.spec") == 0,
               "mutation: type() names the object type");
    }
    cel_issue_clear(&issue);
    cel_program_free(prog);
    cel_arena_free(a);
    cel_env_free(env);
}

int
main(void)
{
    run_case_files();
    test_budget();
    test_activation();
    test_values();
    test_escaping();
    test_authz();
    test_mutation_values();
    return tap_done();
}
