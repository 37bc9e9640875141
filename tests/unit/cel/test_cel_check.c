/*
 * Type checking and costs, as data. Files in tests/unit/cel/check/ hold lines
 *
 *     <expression> ==> <type>            the expression checks, with this type
 *     <expression> ==> !<text>           checking fails; the issues contain <text>
 *
 * and files in tests/unit/cel/cost/ hold lines
 *
 *     <expression> ==> <min>..<max> [<cost>] [true|false] [;; <bindings as a JSON object>]
 *     <expression> ==> <cost> [true|false] [;; <bindings>]
 *
 * where <min>..<max> is the static estimate, <cost> what an evaluation charges and true or
 * false what it gives (bindings are bound as Jansson documents, typed by the schema of a
 * variable declared with %schema). Directives apply to the lines after them in the file:
 * `%decl NAME TYPE` declares a variable (CEL's type notation), `%schema NAME [root] JSON`
 * one whose type comes from an OpenAPI schema (`root`: the root of a resource),
 * `%container NAME`, `%optimize on|off`, `%mutation [NAME]` (the mutation library, its objects
 * typed as the %schema variable NAME) and `%reset` (a fresh environment).
 *
 * Also: type-checked compilation, estimates on programs, the budget's halting point.
 */
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cel.h"
#include "tap.h"

/* ---- OpenAPI schemas as JSON, into the structure hosts fill ---- */

static const cel_schema_t *schema_from_json(cel_arena_t *a, json_t *j);

static int64_t
bound(json_t *j, const char *key)
{
    json_t *v = json_object_get(j, key);
    return json_is_integer(v) ? json_integer_value(v) : CEL_SCHEMA_UNBOUNDED;
}

static const char *
copy(cel_arena_t *a, const char *s)
{
    return s ? cel_arena_strndup(a, s, strlen(s)) : NULL;
}

static const char *const *
strings(cel_arena_t *a, json_t *arr, size_t *n)
{
    *n = json_array_size(arr);
    const char **out = cel_arena_alloc(a, sizeof(*out) * (*n + 1));
    for (size_t i = 0; i < *n; i++)
        out[i] = copy(a, json_string_value(json_array_get(arr, i)));
    return out;
}

static cel_schema_kind_t
kind_of(json_t *j)
{
    static const struct {
        const char *name;
        cel_schema_kind_t kind;
    } kinds[] = {{"object", CEL_SCHEMA_OBJECT}, {"array", CEL_SCHEMA_ARRAY},
                 {"string", CEL_SCHEMA_STRING}, {"integer", CEL_SCHEMA_INTEGER},
                 {"number", CEL_SCHEMA_NUMBER}, {"boolean", CEL_SCHEMA_BOOLEAN}};
    const char *t = json_string_value(json_object_get(j, "type"));
    if (json_is_true(json_object_get(j, "x-kubernetes-int-or-string")))
        return CEL_SCHEMA_INT_OR_STRING;
    for (size_t i = 0; t != NULL && i < sizeof(kinds) / sizeof(kinds[0]); i++) {
        if (strcmp(kinds[i].name, t) == 0)
            return kinds[i].kind;
    }
    return CEL_SCHEMA_NONE;
}

static void
props_from_json(cel_arena_t *a, json_t *j, cel_schema_t *s)
{
    json_t *props = json_object_get(j, "properties"), *req = json_object_get(j, "required"), *p;
    const char *name;
    cel_schema_prop_t *out = cel_arena_alloc(a, sizeof(*out) * (json_object_size(props) + 1));
    size_t n = 0, i;
    json_t *r;
    json_object_foreach(props, name, p)
    {
        out[n] = (cel_schema_prop_t){copy(a, name), schema_from_json(a, p), false};
        json_array_foreach(req, i, r) out[n].required |= strcmp(json_string_value(r), name) == 0;
        n++;
    }
    s->props = out;
    s->nprops = n;
}

static const cel_schema_t *
schema_from_json(cel_arena_t *a, json_t *j)
{
    cel_schema_t *s = cel_arena_alloc(a, sizeof(*s));
    *s = CEL_SCHEMA(kind_of(j));
    s->format = copy(a, json_string_value(json_object_get(j, "format")));
    s->max_length = bound(j, "maxLength");
    s->max_items = bound(j, "maxItems");
    s->max_properties = bound(j, "maxProperties");
    if (json_object_get(j, "items"))
        s->items = schema_from_json(a, json_object_get(j, "items"));
    if (json_is_object(json_object_get(j, "additionalProperties")))
        s->additional_properties = schema_from_json(a, json_object_get(j, "additionalProperties"));
    props_from_json(a, j, s);
    s->enum_values = strings(a, json_object_get(j, "enum"), &s->nenum);
    s->has_default = json_object_get(j, "default") != NULL;
    s->embedded_resource = json_is_true(json_object_get(j, "x-kubernetes-embedded-resource"));
    const char *lt = json_string_value(json_object_get(j, "x-kubernetes-list-type"));
    s->list_type = lt == NULL               ? CEL_LIST_ATOMIC
                   : strcmp(lt, "set") == 0 ? CEL_LIST_SET
                   : strcmp(lt, "map") == 0 ? CEL_LIST_MAP
                                            : CEL_LIST_ATOMIC;
    s->list_map_keys = strings(a, json_object_get(j, "x-kubernetes-list-map-keys"), &s->nkeys);
    return s;
}

/* ---- Case files ---- */

#define MAX_TYPED 16

typedef struct suite {
    cel_env_t *env;
    const char *where;
    bool cost; /* a file of cost/ */
    struct {
        char name[128];
        const cel_decltype_t *type;
    } typed[MAX_TYPED]; /* variables declared from schemas */
    int ntyped;
} suite_t;

static bool
declare_schema(suite_t *s, const char *args)
{
    char name[128];
    int used = 0;
    if (sscanf(args, "%127s %n", name, &used) != 1)
        return false;
    bool root = strncmp(args + used, "root ", 5) == 0;
    json_error_t jerr;
    json_t *j = json_loads(args + used + (root ? 5 : 0), 0, &jerr);
    cel_arena_t *a = cel_arena_new();
    const cel_decltype_t *t =
        j ? cel_env_schema_type(s->env, schema_from_json(a, j), name, root) : NULL;
    bool ok = t != NULL && cel_env_declare(s->env, name, t) == 0 && s->ntyped < MAX_TYPED;
    if (ok) {
        snprintf(s->typed[s->ntyped].name, sizeof(s->typed[0].name), "%s", name);
        s->typed[s->ntyped++].type = t;
    }
    cel_arena_free(a);
    json_decref(j);
    return ok;
}

static const cel_decltype_t *
typed(const suite_t *s, const char *name)
{
    for (int i = s->ntyped; i-- > 0;) {
        if (strcmp(s->typed[i].name, name) == 0)
            return s->typed[i].type;
    }
    return NULL;
}

static bool
directive(suite_t *s, const char *line)
{
    char name[128];
    int used = 0;
    if (strcmp(line, "%reset") == 0) {
        cel_env_free(s->env);
        s->env = cel_env_new();
        s->ntyped = 0;
        return true;
    }
    if (sscanf(line, "%%decl %127s %n", name, &used) == 1 && used > 0)
        return cel_env_declare(s->env, name, cel_env_type(s->env, line + used)) == 0;
    if (strncmp(line, "%schema ", 8) == 0)
        return declare_schema(s, line + 8);
    if (strncmp(line, "%container", 10) == 0)
        return cel_env_set_container(s->env, line[10] ? line + 11 : "") == 0;
    /* `%mutation` gives the mutation library with dynamic objects, `%mutation NAME` with the
     * objects typed as the variable NAME declared by %schema. */
    if (strcmp(line, "%mutation") == 0 || strncmp(line, "%mutation ", 10) == 0) {
        const cel_decltype_t *t = line[9] ? typed(s, line + 10) : NULL;
        cel_env_enable_mutation(s->env, t);
        return line[9] == '\0' || t != NULL;
    }
    if (strncmp(line, "%optimize ", 10) == 0) {
        cel_env_set_optimize(s->env, strcmp(line + 10, "on") == 0);
        return true;
    }
    return false;
}

static void
check_type(suite_t *s, const char *expr, const char *want)
{
    cel_check_t c;
    int rc = cel_check(s->env, expr, &c);
    bool ok;
    if (want[0] == '!') {
        ok = false;
        for (size_t i = 0; rc != 0 && i < c.nissues; i++)
            ok = ok || strstr(c.issues[i].message, want + 1) != NULL;
    } else {
        ok = rc == 0 && c.type != NULL && strcmp(c.type, want) == 0;
    }
    if (!tap_ok(ok, "%s: %s", s->where, expr)) {
        tap_diag("  want %s, got type %s", want, c.type ? c.type : "(none)");
        for (size_t i = 0; i < c.nissues; i++)
            tap_diag("  %s", c.issues[i].message);
    }
    cel_check_clear(&c);
}

static void
check_estimate(suite_t *s, const char *expr, uint64_t min, uint64_t max)
{
    cel_check_t c;
    int rc = cel_check(s->env, expr, &c);
    if (!tap_ok(rc == 0 && c.cost.min == min && c.cost.max == max, "%s: estimate of %s", s->where,
                expr))
        tap_diag("  want %" PRIu64 "..%" PRIu64 ", got %" PRIu64 "..%" PRIu64 "%s%s", min, max,
                 c.cost.min, c.cost.max, c.nissues ? "; " : "",
                 c.nissues ? c.issues[0].message : "");
    cel_check_clear(&c);
}

/* Evaluate; `want` is the cost (or UINT64_MAX: any), `value` the boolean result (-1: any). */
static void
check_runtime(suite_t *s, const char *expr, uint64_t want, int value, json_t *bindings)
{
    cel_program_t *prog;
    cel_issue_t issue;
    if (cel_compile(s->env, expr, &prog, &issue) != 0) {
        tap_ok(0, "%s: compile %s", s->where, expr);
        tap_diag("  %s", issue.message);
        cel_issue_clear(&issue);
        return;
    }
    cel_arena_t *a = cel_arena_new();
    cel_activation_t *act = cel_activation_new(a);
    const char *name;
    json_t *val;
    json_object_foreach(bindings, name, val)
        cel_activation_bind_json_typed(act, name, val, typed(s, name));
    cel_value_t v;
    uint64_t cost = 0;
    cel_eval(prog, act, a, 0, &v, &cost);
    const char *err = v.kind == CEL_ERROR ? v.v.err : "";
    if (want != UINT64_MAX && !tap_ok(cost == want, "%s: cost of %s", s->where, expr))
        tap_diag("  want %" PRIu64 ", got %" PRIu64 " %s", want, cost, err);
    if (value >= 0 &&
        !tap_ok(v.kind == CEL_BOOL && v.v.b == (value == 1), "%s: value of %s", s->where, expr))
        tap_diag("  want %s %s", value ? "true" : "false", err);
    cel_arena_free(a);
    cel_program_free(prog);
}

/* "<min>..<max>", "<cost>", "true" or "false", space separated. */
static void
cost_case(suite_t *s, const char *expr, char *want, json_t *bindings)
{
    uint64_t cost = UINT64_MAX;
    int value = -1;
    for (char *tok = strtok(want, " "); tok != NULL; tok = strtok(NULL, " ")) {
        unsigned long long x, y;
        if (sscanf(tok, "%llu..%llu", &x, &y) == 2)
            check_estimate(s, expr, x, y);
        else if (sscanf(tok, "%llu", &x) == 1)
            cost = x;
        else if (strcmp(tok, "true") == 0 || strcmp(tok, "false") == 0)
            value = tok[0] == 't';
        else
            tap_ok(0, "%s: malformed expectation %s", s->where, tok);
    }
    if (cost != UINT64_MAX || value >= 0)
        check_runtime(s, expr, cost, value, bindings);
}

static void
run_line(suite_t *s, char *line)
{
    char *arrow = strstr(line, " ==> ");
    if (arrow == NULL) {
        tap_ok(0, "%s: malformed case line", s->where);
        return;
    }
    *arrow = '\0';
    char *want = arrow + 5, *sep = strstr(want, " ;; ");
    json_t *bindings = NULL;
    if (sep != NULL) {
        *sep = '\0';
        bindings = json_loads(sep + 4, 0, NULL);
    }
    if (s->cost)
        cost_case(s, line, want, bindings);
    else
        check_type(s, line, want);
    json_decref(bindings);
}

static int
run_file(const char *dir, const char *file, bool cost)
{
    char path[1024], where[1024];
    snprintf(path, sizeof(path), "%s/%s", dir, file);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return tap_ok(0, "open %s", path);
    suite_t s = {.env = cel_env_new(), .where = where, .cost = cost};
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    int lineno = 0, cases = 0;
    while ((n = getline(&line, &cap, f)) >= 0) {
        lineno++;
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
            line[--n] = '\0';
        snprintf(where, sizeof(where), "%s:%d", file, lineno);
        if (n == 0 || line[0] == '#')
            continue;
        if (line[0] == '%') {
            if (!directive(&s, line))
                tap_ok(0, "%s: bad directive %s", where, line);
            continue;
        }
        run_line(&s, line);
        cases++;
    }
    free(line);
    fclose(f);
    cel_env_free(s.env);
    return cases;
}

static int
cmp_names(const void *x, const void *y)
{
    return strcmp(*(char *const *)x, *(char *const *)y);
}

static void
run_dir(const char *sub, bool cost)
{
    char dir[512];
    const char *src = __FILE__, *slash = strrchr(src, '/');
    snprintf(dir, sizeof(dir), "%.*s/%s", slash ? (int)(slash - src) : 1, slash ? src : ".", sub);
    DIR *d = opendir(dir);
    if (!tap_ok(d != NULL, "open case directory %s", dir))
        return;
    char *names[128];
    int count = 0, total = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && count < 128) {
        size_t len = strlen(e->d_name);
        if (len > 4 && strcmp(e->d_name + len - 4, ".txt") == 0)
            names[count++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, (size_t)count, sizeof(char *), cmp_names);
    for (int i = 0; i < count; i++) {
        total += run_file(dir, names[i], cost);
        free(names[i]);
    }
    tap_diag("%d %s cases in %d files", total, sub, count);
}

/* ---- Beyond the case files ---- */

static void
test_declarations(void)
{
    cel_env_t *env = cel_env_new();
    tap_ok(cel_env_type(env, "list(") == NULL, "types: malformed notation refused");
    tap_ok(cel_env_type(env, "map(string)") == NULL, "types: map wants two parameters");
    tap_ok(cel_env_type(env, "foo.Bar") == NULL, "types: unknown names refused");
    tap_ok(cel_env_type(env, "int int") == NULL, "types: trailing text refused");
    char *text = cel_decltype_format(cel_env_type(env, " map( string ,list(optional_type(int)))"));
    tap_is_str(text, "map(string, list(optional_type(int)))", "types: printed as cel-go does");
    free(text);
    tap_is_int(cel_env_declare(env, "1x", cel_env_type(env, "int")), CEL_EINVAL,
               "declare: malformed name refused");
    tap_is_int(cel_env_declare(env, "x", NULL), CEL_EINVAL, "declare: a type is needed");
    cel_schema_t none = CEL_SCHEMA(CEL_SCHEMA_NONE);
    tap_ok(cel_env_schema_type(env, &none, "x", false) == NULL,
           "schemas: a schema without a type is not visible");
    cel_env_declare(env, "x", cel_env_type(env, "int"));
    cel_env_declare(env, "x", cel_env_type(env, "string"));
    cel_check_t c;
    cel_check(env, "x", &c);
    tap_is_str(c.type, "string", "declare: the later declaration wins");
    cel_check_clear(&c);
    char many[1024] = "v0";
    for (int i = 1; i <= 100; i++)
        snprintf(many + strlen(many), sizeof(many) - strlen(many), " + v%d", i);
    cel_check(env, many, &c);
    tap_is_int((int)c.nissues, 100, "check: at most 100 issues, as cel-go reports");
    cel_check_clear(&c);
    cel_env_free(env);
}

static void
test_checked_compile(void)
{
    cel_env_t *env = cel_env_new();
    cel_env_declare(env, "x", cel_env_type(env, "int"));
    cel_program_t *prog;
    cel_issue_t issue;
    cel_cost_estimate_t est;
    tap_is_int(cel_compile(env, "x + 'a'", &prog, &issue), 0, "compile: unchecked by default");
    tap_is_int(cel_program_estimate(prog, &est), CEL_EINVAL, "compile: no estimate unchecked");
    cel_program_free(prog);
    cel_env_set_type_check(env, true);
    tap_is_int(cel_compile(env, "y + x + 'a'", &prog, &issue), CEL_EPARSE,
               "compile: type errors fail a checked compilation");
    tap_ok(issue.line == 1 && issue.column == 1, "compile: the first issue's position");
    tap_ok(issue.message && strstr(issue.message, "undeclared reference to 'y'") &&
               strstr(issue.message, "\nERROR: <input>:1:7: found no matching overload"),
           "compile: every issue is reported");
    cel_issue_clear(&issue);
    tap_is_int(cel_compile(env, "x.bogus()", &prog, &issue), CEL_EPARSE,
               "compile: unknown functions are type errors");
    tap_ok(issue.message && strstr(issue.message, "undeclared reference to 'bogus' (in container"),
           "compile: in cel-go's words");
    cel_issue_clear(&issue);
    tap_is_int(cel_compile(env, "[x, 2].map(v, v * 2)", &prog, &issue), 0,
               "compile: a checked expression compiles");
    tap_ok(cel_program_estimate(prog, &est) == 0 && est.min == 50 && est.max == 50,
           "compile: the program carries its estimate");
    cel_program_free(prog);
    cel_env_free(env);
}

/* The budget stops an evaluation exactly when its cost passes it, with kube's message. */
static void
test_budget(void)
{
    cel_env_t *env = cel_env_new();
    cel_program_t *prog;
    cel_issue_t issue;
    cel_compile(env, "s.matches('[0-9]+') || true", &prog, &issue);
    cel_arena_t *a = cel_arena_new();
    cel_activation_t *act = cel_activation_new(a);
    cel_activation_bind(act, "s", cel_string(a, "abcdefghijklmnopqrst", 20));
    cel_value_t v;
    uint64_t cost;
    tap_is_int(cel_eval(prog, act, a, 0, &v, &cost), 0, "budget: unlimited");
    tap_is_int((int)cost, 7, "budget: 1 + ceil(21 / 10) * ceil(6 / 4)");
    tap_is_int(cel_eval(prog, act, a, 7, &v, &cost), 0, "budget: the exact cost is within it");
    tap_is_int(cel_eval(prog, act, a, 6, &v, &cost), CEL_ECOST, "budget: one less halts");
    tap_ok(v.kind == CEL_ERROR &&
               strcmp(v.v.err, "operation cancelled: actual cost limit exceeded") == 0,
           "budget: kube-apiserver's message, not absorbed by ||");
    cel_arena_free(a);
    cel_program_free(prog);
    cel_env_free(env);
}

/* An object type declared by the host (kube's request) selects its properties as written; a
 * schema's properties are escaped, as CRD schemas' are. */
static void
test_verbatim_names(void)
{
    cel_schema_t str = CEL_SCHEMA(CEL_SCHEMA_STRING);
    cel_schema_prop_t props[] = {{"namespace", &str, false}};
    cel_schema_t obj = CEL_SCHEMA(CEL_SCHEMA_OBJECT);
    cel_env_t *env = cel_env_new();
    cel_check_t c;

    obj.props = props;
    obj.nprops = 1;
    obj.verbatim_names = true;
    cel_env_declare(env, "request", cel_env_schema_type(env, &obj, "Request", false));
    obj.verbatim_names = false;
    cel_env_declare(env, "crd", cel_env_schema_type(env, &obj, "Crd", false));
    tap_is_int(cel_check(env, "request.namespace == 'a' && crd.__namespace__ == 'b'", &c), 0,
               "verbatim properties: request.namespace; escaped ones: crd.__namespace__");
    cel_check_clear(&c);
    cel_check(env, "request.__namespace__ == 'a'", &c);
    tap_ok(c.nissues == 1 && strstr(c.issues[0].message, "undefined field '__namespace__'"),
           "verbatim properties are not escaped");
    cel_check_clear(&c);
    cel_env_free(env);
}

int
main(void)
{
    run_dir("check", false);
    run_dir("cost", true);
    test_declarations();
    test_checked_compile();
    test_budget();
    test_verbatim_names();
    return tap_done();
}
