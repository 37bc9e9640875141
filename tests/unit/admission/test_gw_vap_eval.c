/* Unit tests for gateway/admission/gw_vap_compile and gw_vap_eval: kube-apiserver 1.32's
 * ValidatingAdmissionPolicy compilation and evaluation, with kube's texts: compile errors,
 * variables, matchConditions, messages, reasons, cost budgets, params, namespaceObject,
 * request, audit annotations and the authorizer's memo. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gw_vap_compile.h"
#include "gw_vap_eval.h"
#include "tap.h"

/* ---- building policies and inputs ------------------------------------------------------- */

static json_t *
pol(const char *failure_policy)
{
    return json_pack("{s:{s:s}, s:{s:s}}", "metadata", "name", "p1", "spec", "failurePolicy",
                     failure_policy);
}

static json_t *
list_of(json_t *p, const char *key)
{
    json_t *spec = json_object_get(p, "spec"), *l = json_object_get(spec, key);
    if (l == NULL) {
        l = json_array();
        json_object_set_new(spec, key, l);
    }
    return l;
}

static void
add_val(json_t *p, const char *expr, const char *msg, const char *mexpr, const char *reason)
{
    json_t *v = json_pack("{s:s}", "expression", expr);
    if (msg)
        json_object_set_new(v, "message", json_string(msg));
    if (mexpr)
        json_object_set_new(v, "messageExpression", json_string(mexpr));
    if (reason)
        json_object_set_new(v, "reason", json_string(reason));
    json_array_append_new(list_of(p, "validations"), v);
}

static void
add_named(json_t *p, const char *list, const char *k1, const char *name, const char *k2,
          const char *expr)
{
    json_array_append_new(list_of(p, list), json_pack("{s:s, s:s}", k1, name, k2, expr));
}
#define add_var(p, n, e) add_named(p, "variables", "name", n, "expression", e)
#define add_match(p, n, e) add_named(p, "matchConditions", "name", n, "expression", e)
#define add_audit(p, k, e) add_named(p, "auditAnnotations", "key", k, "valueExpression", e)

static json_t *object_doc, *request_doc, *ns_doc;
static gw_vap_input_t input;
static cel_arena_t *arena;

static void
setup(void)
{
    static const char *const groups[] = {"system:authenticated", "devs"};
    json_t *ns = json_loads("{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":"
                            "\"ns1\",\"uid\":\"u-1\",\"labels\":{\"env\":\"prod\"},"
                            "\"managedFields\":[{}]},\"spec\":{\"finalizers\":[\"kubernetes\"]},"
                            "\"status\":{\"phase\":\"Active\"}}",
                            0, NULL);
    gw_vap_request_t r = {
        .kind_group = "apps",
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
        .name = "web",
        .namespace_ = "ns1",
        .operation = "CREATE",
        .username = "alice",
        .groups = groups,
        .ngroups = 2,
    };
    object_doc = json_loads("{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":"
                            "{\"name\":\"web\",\"namespace\":\"ns1\",\"labels\":{\"app\":\"web\"}},"
                            "\"spec\":{\"replicas\":3}}",
                            0, NULL);
    request_doc = gw_vap_request_doc(&r);
    ns_doc = gw_vap_namespace_doc(ns);
    json_decref(ns);
    input = (gw_vap_input_t){
        .object = object_doc,
        .request = request_doc,
        .namespace_object = ns_doc,
        .request_resource = {.resource_request = true,
                             .group = "apps",
                             .resource = "deployments",
                             .subresource = "",
                             .ns = "ns1",
                             .name = "web"},
    };
}

static gw_vap_compiled_t *kept[64];
static size_t nkept;

/* Compile `p` (consumed) and evaluate it once for `in` without an authorizer memo. */
static gw_vap_result_t
run(json_t *p, const gw_vap_input_t *in, gw_vap_compiled_t **keep)
{
    gw_vap_result_t r;
    gw_vap_compiled_t *c = gw_vap_compile(p, NULL);
    json_decref(p);
    gw_vap_eval(c, in, NULL, arena, &r);
    if (keep != NULL)
        *keep = c;
    else if (nkept < sizeof(kept) / sizeof(kept[0]))
        kept[nkept++] = c; /* results point into the policy: freed at the end */
    else
        abort();
    return r;
}

static const char *
msg0(const gw_vap_result_t *r)
{
    return r->ndecisions > 0 ? r->decisions[0].message : "(no decision)";
}

/* ---- compile errors ------------------------------------------------------------------------ */

static void
test_compile_errors(void)
{
    json_t *p = pol("Fail");
    add_val(p, "1 + 1", NULL, NULL, NULL);
    add_val(p, "params.max > 1", NULL, NULL, NULL);
    add_val(p, "object.spec.replicas > 1", NULL, "1", NULL);
    add_val(p, "true", NULL, "authorizer.path('/x').check('get').reason()", NULL);
    add_audit(p, "k", "1");
    add_match(p, "m", "'x'");
    gw_vap_compiled_t *c = gw_vap_compile(p, NULL);
    json_decref(p);
    tap_is_str(gw_vap_compile_error(c, GW_VAP_VALIDATION, 0), "must evaluate to bool but got int",
               "a validation must be bool");
    tap_is_str(gw_vap_compile_error(c, GW_VAP_VALIDATION, 1),
               "compilation failed: ERROR: <input>:1:1: undeclared reference to 'params' (in "
               "container '')\n | params.max > 1\n | ^",
               "params is undeclared without paramKind");
    tap_is_str(gw_vap_compile_error(c, GW_VAP_MESSAGE_EXPRESSION, 2),
               "must evaluate to string but got int", "a messageExpression must be a string");
    tap_ok(gw_vap_compile_error(c, GW_VAP_MESSAGE_EXPRESSION, 0) == NULL,
           "no messageExpression, no error");
    tap_ok(gw_vap_compile_error(c, GW_VAP_MESSAGE_EXPRESSION, 3) != NULL &&
               strstr(gw_vap_compile_error(c, GW_VAP_MESSAGE_EXPRESSION, 3),
                      "undeclared reference to 'authorizer'") != NULL,
           "messageExpressions have no authorizer");
    tap_is_str(gw_vap_compile_error(c, GW_VAP_AUDIT_ANNOTATION, 0),
               "must evaluate to one of [string null_type] but got int",
               "an audit annotation is a string or null");
    tap_is_str(gw_vap_compile_error(c, GW_VAP_MATCH_CONDITION, 0),
               "must evaluate to bool but got string", "a match condition must be bool");
    tap_ok(gw_vap_compile_error(c, GW_VAP_VALIDATION, 2) == NULL, "a good validation compiles");

    /* The policy is kept; at admission the error is handled per failurePolicy. */
    gw_vap_result_t r;
    gw_vap_compiled_t *c2;
    p = pol("Fail");
    add_val(p, "1 + 1", NULL, NULL, NULL);
    add_val(p, "true", NULL, NULL, NULL);
    r = run(p, &input, &c2);
    tap_is_int(r.ndecisions, 2, "one decision per validation");
    tap_is_str(msg0(&r), "compilation error: must evaluate to bool but got int",
               "kube's message for a validation that did not compile");
    tap_ok(r.decisions[0].action == GW_VAP_DENY && r.decisions[0].evaluation == GW_VAP_EVAL_ERROR,
           "Fail: the error denies");
    tap_ok(r.decisions[1].action == GW_VAP_ADMIT, "the other validation admits");
    gw_vap_compiled_free(c2);
    p = pol("Ignore");
    add_val(p, "1 + 1", NULL, NULL, NULL);
    r = run(p, &input, NULL);
    tap_ok(r.decisions[0].action == GW_VAP_ADMIT && r.decisions[0].evaluation == GW_VAP_EVAL_ERROR,
           "Ignore: the error admits");
    gw_vap_compiled_free(c);
}

/* ---- variables ----------------------------------------------------------------------------- */

/* An object with a list of n integers, for expressions of a known large cost. */
static json_t *
big_object(size_t n)
{
    json_t *items = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(items, json_integer((json_int_t)i));
    return json_pack("{s:o}", "items", items);
}

static void
test_variables(void)
{
    json_t *p = pol("Fail");
    gw_vap_compiled_t *c;
    add_var(p, "a", "object.spec.replicas");
    add_var(p, "b", "variables.a * 2");
    add_var(p, "c", "variables.d");
    add_var(p, "d", "1");
    add_var(p, "bad", "object.missing");
    add_val(p, "variables.b == 6", NULL, NULL, NULL);
    add_val(p, "variables.bad == 1", NULL, NULL, NULL);
    add_val(p, "variables.c == 1", NULL, NULL, NULL);
    add_val(p, "variables.b + 'x' == 'y'", NULL, NULL, NULL);
    gw_vap_result_t r = run(p, &input, &c);
    tap_ok(gw_vap_compile_error(c, GW_VAP_VARIABLE, 1) == NULL, "a variable sees earlier ones");
    tap_is_str(gw_vap_compile_error(c, GW_VAP_VARIABLE, 2),
               "compilation failed: ERROR: <input>:1:10: undefined field 'd'\n | variables.d\n"
               " | .........^",
               "a variable does not see later ones");
    tap_ok(r.decisions[0].action == GW_VAP_ADMIT, "variables.b is object.spec.replicas * 2");
    tap_is_str(r.decisions[1].message,
               "expression 'variables.bad == 1' resulted in error: composited variable \"bad\" "
               "fails to evaluate: no such key: missing",
               "a variable's runtime error, in kube's words");
    tap_ok(r.decisions[2].message != NULL &&
               strncmp(r.decisions[2].message,
                       "expression 'variables.c == 1' resulted in error: composited variable \"c\" "
                       "fails to compile: compilation failed: ERROR: <input>:1:10: undefined "
                       "field 'd'",
                       150) == 0,
           "a variable's compile error, in kube's words");
    tap_ok(gw_vap_compile_error(c, GW_VAP_VALIDATION, 3) != NULL &&
               strstr(gw_vap_compile_error(c, GW_VAP_VALIDATION, 3),
                      "found no matching overload for '_+_' applied to '(int, string)'") != NULL,
           "variables are typed by what they compiled to");
    gw_vap_compiled_free(c);

    p = pol("Fail");
    add_var(p, "a", "object.spec.replicas");
    add_val(p, "has(variables.a)", NULL, NULL, NULL);
    add_val(p, "has(variables.zz)", NULL, NULL, NULL);
    r = run(p, &input, NULL);
    tap_ok(r.decisions[0].action == GW_VAP_ADMIT, "has() on variables");
    tap_ok(r.decisions[1].message != NULL && strstr(r.decisions[1].message, "undefined field 'zz'"),
           "has() of an unknown variable does not compile (variables is an object type)");

    /* Each variable is evaluated at most once per evaluation: a variable of ~700k cost read by
     * fifteen validations stays within the 10M budget; the same expression written out fifteen
     * times does not. */
    json_t *big = big_object(100000);
    gw_vap_input_t in = input;
    in.object = big;
    p = pol("Fail");
    add_var(p, "small", "object.items.all(i, i >= 0 && i < 1000000)");
    for (int i = 0; i < 15; i++)
        add_val(p, "variables.small", NULL, NULL, NULL);
    r = run(p, &in, NULL);
    int admitted = 0;
    for (size_t i = 0; i < r.ndecisions; i++)
        admitted += r.decisions[i].action == GW_VAP_ADMIT;
    tap_is_int(admitted, 15, "a variable read fifteen times is evaluated once");
    p = pol("Fail");
    for (int i = 0; i < 15; i++)
        add_val(p, "object.items.all(i, i >= 0 && i < 1000000)", NULL, NULL, NULL);
    r = run(p, &in, NULL);
    tap_is_int(r.ndecisions, 1, "written out fifteen times: the budget runs out");
    tap_is_str(msg0(&r),
               "validation failed due to running out of cost budget, no further validation rules "
               "will be run",
               "with kube's message");
    json_decref(big);

    /* Each expression (and each variable) also stops at the per-call limit of 1M. */
    big = big_object(150000);
    in.object = big;
    p = pol("Fail");
    add_var(p, "small", "object.items.all(i, i >= 0 && i < 1000000)");
    add_val(p, "object.items.all(i, i >= 0 && i < 1000000)", NULL, NULL, NULL);
    add_val(p, "variables.small", NULL, NULL, NULL);
    r = run(p, &in, NULL);
    tap_is_str(msg0(&r),
               "expression 'object.items.all(i, i >= 0 && i < 1000000)' resulted in error: "
               "operation cancelled: actual cost limit exceeded",
               "an expression over the per-call limit");
    tap_is_str(r.decisions[1].message,
               "expression 'variables.small' resulted in error: composited variable \"small\" "
               "fails to evaluate: operation cancelled: actual cost limit exceeded",
               "a variable over the per-call limit");
    json_decref(big);
}

/* Two variables of one name: kube's composition keeps its variables by name, so the later one
 * replaces the earlier one, in the type of `variables` (for what compiles after it) and when
 * evaluated (the earlier one is never read). */
static void
test_variables_same_name(void)
{
    json_t *p = pol("Fail");
    gw_vap_compiled_t *c;
    add_var(p, "a", "object.spec.replicas");
    add_var(p, "b", "variables.a + 1");
    add_var(p, "a", "['x', 'y']");
    add_val(p, "variables.a.size() == 2", NULL, NULL, NULL);
    add_val(p, "variables.a[0] == 'x'", NULL, NULL, NULL);
    add_val(p, "variables.b == 4", NULL, NULL, NULL);
    gw_vap_result_t r = run(p, &input, &c);
    tap_ok(gw_vap_compile_error(c, GW_VAP_VALIDATION, 0) == NULL &&
               gw_vap_compile_error(c, GW_VAP_VALIDATION, 1) == NULL,
           "a validation compiles against the later variable of a name");
    tap_ok(gw_vap_compile_error(c, GW_VAP_VARIABLE, 1) == NULL,
           "a variable between the two compiled against the earlier one");
    tap_is_int((int)r.ndecisions, 3, "three decisions");
    tap_ok(r.decisions[0].action == GW_VAP_ADMIT && r.decisions[1].action == GW_VAP_ADMIT,
           "the later variable of a name is the one evaluated");
    tap_ok(r.decisions[2].message != NULL &&
               strstr(r.decisions[2].message,
                      "expression 'variables.b == 4' resulted in error: composited variable "
                      "\"b\" fails to evaluate: no such overload") == r.decisions[2].message,
           "what read the name before the later one reads the later one's value, as in kube");
    gw_vap_compiled_free(c);

    p = pol("Fail");
    add_var(p, "a", "1");
    add_var(p, "a", "'x'");
    add_val(p, "has(variables.a) && variables.a == 'x'", NULL, NULL, NULL);
    r = run(p, &input, NULL);
    tap_ok(r.ndecisions == 1 && r.decisions[0].action == GW_VAP_ADMIT,
           "`variables` read whole holds the later one");
}

/* ---- cost ------------------------------------------------------------------------------------ */

static void
test_cost(void)
{
    json_t *big = big_object(40000);
    gw_vap_input_t in = input;
    in.object = big;
    json_t *p = pol("Fail");
    /* ~280k each (under the per-call limit); 40 of them exceed the 10M budget. */
    for (int i = 0; i < 40; i++)
        add_val(p, "object.items.all(i, i >= 0 && i < 1000000)", NULL, NULL, NULL);
    gw_vap_result_t r = run(p, &in, NULL);
    tap_is_int(r.ndecisions, 1, "out of budget: one decision");
    tap_is_str(msg0(&r),
               "validation failed due to running out of cost budget, no further validation rules "
               "will be run",
               "kube's out-of-budget message");
    tap_ok(r.decisions[0].action == GW_VAP_DENY && r.decisions[0].evaluation == GW_VAP_EVAL_ERROR,
           "under Fail it denies");

    /* The messageExpressions spend what the validations left. */
    p = pol("Fail");
    for (int i = 0; i < 20; i++)
        add_val(p, "object.items.all(i, i >= 0 && i < 1000000)", NULL,
                "object.items.all(i, i >= 0 && i < 1000000) ? 'a' : 'b'", NULL);
    r = run(p, &in, NULL);
    tap_is_int(r.ndecisions, 20, "validations within budget keep their decisions");
    tap_is_str(msg0(&r),
               "failed messageExpression: validation failed due to running out of cost budget, "
               "no further validation rules will be run",
               "the messages' budget running out turns every decision into an error");

    /* matchConditions have their own 2.5M budget. */
    p = pol("Fail");
    for (int i = 0; i < 10; i++)
        add_match(p, "m", "object.items.all(i, i >= 0 && i < 1000000)");
    add_val(p, "true", NULL, NULL, NULL);
    r = run(p, &in, NULL);
    tap_is_str(msg0(&r),
               "validation failed due to running out of cost budget, no further validation rules "
               "will be run",
               "matchConditions run out of their budget");
    json_decref(big);
}

/* ---- matchConditions ------------------------------------------------------------------------ */

static void
test_match_conditions(void)
{
    json_t *p = pol("Fail");
    add_match(p, "yes", "true");
    add_match(p, "no", "object.spec.replicas > 5");
    add_val(p, "false", NULL, NULL, NULL);
    gw_vap_result_t r = run(p, &input, NULL);
    tap_is_int(r.ndecisions, 0, "a false condition: the policy does not apply");

    p = pol("Fail");
    add_match(p, "yes", "true");
    add_match(p, "also", "object.spec.replicas == 3");
    add_val(p, "false", NULL, NULL, NULL);
    r = run(p, &input, NULL);
    tap_is_int(r.ndecisions, 1, "all true: the validations run");
    tap_is_str(msg0(&r), "failed expression: false", "and decide");

    p = pol("Fail");
    add_match(p, "err", "object.missing == 1");
    add_match(p, "no", "false");
    add_val(p, "false", NULL, NULL, NULL);
    r = run(p, &input, NULL);
    tap_is_int(r.ndecisions, 0, "an error and a false: not applicable");

    p = pol("Fail");
    add_match(p, "err", "object.missing == 1");
    add_match(p, "yes", "true");
    add_val(p, "false", NULL, NULL, NULL);
    r = run(p, &input, NULL);
    tap_is_int(r.ndecisions, 1, "an error and no false under Fail: one error decision");
    tap_is_str(msg0(&r), "expression 'object.missing == 1' resulted in error: no such key: missing",
               "the condition's error");
    tap_ok(r.decisions[0].action == GW_VAP_DENY, "which denies");

    p = pol("Fail");
    add_match(p, "e1", "object.missing == 1");
    add_match(p, "e2", "object.other == 1");
    add_match(p, "e3", "object.missing == 1");
    add_val(p, "false", NULL, NULL, NULL);
    r = run(p, &input, NULL);
    tap_is_str(msg0(&r),
               "[expression 'object.missing == 1' resulted in error: no such key: missing, "
               "expression 'object.other == 1' resulted in error: no such key: other]",
               "several errors aggregate (repeats once)");

    p = pol("Ignore");
    add_match(p, "err", "object.missing == 1");
    add_val(p, "false", NULL, NULL, NULL);
    r = run(p, &input, NULL);
    tap_is_int(r.ndecisions, 0, "an error under Ignore: not applicable");

    p = pol("Fail");
    add_match(p, "ns", "namespaceObject == null");
    add_val(p, "false", NULL, NULL, NULL);
    r = run(p, &input, NULL);
    tap_is_int(r.ndecisions, 1, "matchConditions see no namespaceObject, as kube's matcher");
}

/* An object with annotations "long" (11000 bytes) and "limit" (5120 bytes). */
static json_t *
long_object(void)
{
    char *l = malloc(11001), *m = malloc(5121);
    memset(l, 'x', 11000);
    l[11000] = '\0';
    memset(m, 'y', 5120);
    m[5120] = '\0';
    json_t *o = json_pack("{s:{s:s, s:{s:s, s:s}}, s:{s:i}}", "metadata", "name", "web",
                          "annotations", "long", l, "limit", m, "spec", "replicas", 3);
    free(l);
    free(m);
    return o;
}

/* ---- messages and reasons -------------------------------------------------------------------- */

static void
test_messages(void)
{
    json_t *p = pol("Fail");
    add_val(p, "false", "  static message  ", NULL, NULL);
    add_val(p, "false", "static", "'from ' + object.metadata.name", NULL);
    add_val(p, "false", "static after error", "object.missing", NULL);
    add_val(p, "false", "static after empty", "'   '", NULL);
    add_val(p, "false", "static after multi-line", "'a\\nb'", NULL);
    add_val(p, " object.spec.replicas > 5 ", NULL, NULL, NULL);
    add_val(p, "false", NULL, "string(object.missing)", NULL);
    add_val(p, "true", "never", "'never'", NULL);
    add_val(p, "false", "long", "string(object.metadata.annotations.long)", NULL);
    add_val(p, "false", "5 KiB", "string(object.metadata.annotations.limit)", NULL);
    add_val(p, "false", "dyn", "object.metadata.name", NULL);
    gw_vap_input_t in = input;
    in.object = long_object();
    gw_vap_result_t r = run(p, &in, NULL);
    json_decref((json_t *)in.object);
    tap_is_str(r.decisions[0].message, "static message", "message, trimmed");
    tap_is_str(r.decisions[1].message, "from web", "messageExpression wins over message");
    tap_is_str(r.decisions[2].message, "static after error", "an erroring messageExpression");
    tap_is_str(r.decisions[3].message, "static after empty", "an empty messageExpression");
    tap_is_str(r.decisions[4].message, "static after multi-line", "a multi-line messageExpression");
    tap_is_str(r.decisions[5].message, "failed expression: object.spec.replicas > 5",
               "no message: kube's failed expression");
    tap_is_str(r.decisions[6].message, "failed expression: false",
               "an erroring messageExpression and no message");
    tap_ok(r.decisions[7].action == GW_VAP_ADMIT && r.decisions[7].message == NULL,
           "a passing validation has no message");
    tap_is_str(r.decisions[8].message, "long", "a messageExpression over 5 KiB is dropped");
    tap_is_int(strlen(r.decisions[9].message), 5120, "one of 5 KiB is kept");
    tap_is_str(r.decisions[10].message, "dyn",
               "a dynamic messageExpression does not compile (kube wants exactly string)");
    tap_is_str(r.decisions[0].reason, "Invalid", "the default reason");

    p = pol("Fail");
    add_val(p, "false", "m", NULL, "Forbidden");
    add_val(p, "false", "m", NULL, "Unauthorized");
    add_val(p, "false", "m", NULL, "RequestEntityTooLarge");
    add_val(p, "object.missing == 1", "m", NULL, "Forbidden");
    r = run(p, &input, NULL);
    tap_is_str(r.decisions[0].reason, "Forbidden", "reason Forbidden");
    tap_is_str(r.decisions[1].reason, "Unauthorized", "reason Unauthorized");
    tap_is_str(r.decisions[2].reason, "RequestEntityTooLarge", "reason RequestEntityTooLarge");
    tap_ok(r.decisions[3].reason == NULL && r.decisions[3].evaluation == GW_VAP_EVAL_ERROR,
           "an error carries no reason (Invalid when it denies)");
    tap_is_str(r.decisions[3].message,
               "expression 'object.missing == 1' resulted in error: no such key: missing",
               "kube's runtime error text");
}

/* ---- params, namespaceObject, object, request -------------------------------------------------
 */

static void
test_inputs(void)
{
    json_t *p = pol("Fail");
    json_t *params = json_loads("{\"kind\":\"ConfigMap\",\"data\":{\"max\":\"2\"}}", 0, NULL);
    json_object_set_new(json_object_get(p, "spec"), "paramKind",
                        json_pack("{s:s, s:s}", "apiVersion", "v1", "kind", "ConfigMap"));
    add_val(p, "params == null", NULL, NULL, NULL);
    add_val(p, "int(params.data.max) >= object.spec.replicas", NULL, NULL, NULL);
    gw_vap_compiled_t *c = gw_vap_compile(p, NULL);
    json_decref(p);
    gw_vap_result_t r;
    gw_vap_eval(c, &input, NULL, arena, &r);
    tap_ok(r.decisions[0].action == GW_VAP_ADMIT, "no param: params is null");
    gw_vap_input_t in = input;
    in.params = params;
    gw_vap_eval(c, &in, NULL, arena, &r);
    tap_ok(r.decisions[0].action == GW_VAP_DENY, "a param: params is set");
    tap_is_str(r.decisions[1].message,
               "failed expression: int(params.data.max) >= object.spec.replicas", "and read from");
    gw_vap_compiled_free(c);
    json_decref(params);

    p = pol("Fail");
    add_val(p,
            "namespaceObject.metadata.name == 'ns1' && namespaceObject.metadata.labels.env == "
            "'prod' && namespaceObject.status.phase == 'Active'",
            NULL, NULL, NULL);
    add_val(p, "!has(namespaceObject.metadata.managedFields)", NULL, NULL, NULL);
    add_val(p, "namespaceObject == null", NULL, NULL, NULL);
    gw_vap_compiled_t *cn = gw_vap_compile(p, NULL);
    json_decref(p);
    gw_vap_eval(cn, &input, NULL, arena, &r);
    tap_ok(r.decisions[0].action == GW_VAP_ADMIT, "namespaceObject of a namespaced request");
    tap_ok(gw_vap_compile_error(cn, GW_VAP_VALIDATION, 1) != NULL,
           "namespaceObject's type has no managedFields");
    tap_ok(r.decisions[2].action == GW_VAP_DENY, "it is not null");
    in = input;
    in.namespace_object = NULL;
    gw_vap_eval(cn, &in, NULL, arena, &r);
    tap_ok(r.decisions[2].action == GW_VAP_ADMIT, "cluster-scoped: namespaceObject is null");
    gw_vap_compiled_free(cn);

    p = pol("Fail");
    add_val(p,
            "request.operation == 'CREATE' && request.userInfo.username == 'alice' && "
            "request.userInfo.groups == ['system:authenticated', 'devs'] && "
            "request.namespace == 'ns1' && request.name == 'web' && "
            "request.kind.kind == 'Deployment' && request.resource.resource == 'deployments' "
            "&& request.requestKind.group == 'apps' && request.dryRun == false",
            NULL, NULL, NULL);
    add_val(p, "has(request.subResource)", NULL, NULL, NULL);
    add_val(p, "oldObject == null && object.metadata.labels.app == 'web'", NULL, NULL, NULL);
    add_val(p, "request.nosuch == 1", NULL, NULL, NULL);
    gw_vap_compiled_t *cr = gw_vap_compile(p, NULL);
    json_decref(p);
    gw_vap_eval(cr, &input, NULL, arena, &r);
    tap_ok(r.decisions[0].action == GW_VAP_ADMIT, "request's fields");
    tap_ok(r.decisions[1].action == GW_VAP_DENY, "empty fields are left out (omitempty)");
    tap_ok(r.decisions[2].action == GW_VAP_ADMIT, "object set, oldObject null on CREATE");
    tap_is_str(gw_vap_compile_error(cr, GW_VAP_VALIDATION, 3),
               "compilation failed: ERROR: <input>:1:8: undefined field 'nosuch'\n"
               " | request.nosuch == 1\n | .......^",
               "request is typed as kube's AdmissionRequest");
    gw_vap_compiled_free(cr);
}

/* ---- audit annotations ---------------------------------------------------------------------- */

static void
test_audit_annotations(void)
{
    json_t *p = pol("Fail");
    add_audit(p, "null", "null");
    add_audit(p, "empty", "'  '");
    add_audit(p, "value", "' replicas ' + string(object.spec.replicas)");
    add_audit(p, "long", "string(object.metadata.annotations.long)");
    add_audit(p, "err", "string(object.missing)");
    add_audit(p, "dyn", "object.spec.replicas");
    gw_vap_input_t in = input;
    in.object = long_object();
    gw_vap_result_t r = run(p, &in, NULL);
    json_decref((json_t *)in.object);
    tap_is_int(r.naudits, 6, "one result per audit annotation");
    tap_ok(r.audits[0].action == GW_VAP_AUDIT_EXCLUDE, "null is left out");
    tap_ok(r.audits[1].action == GW_VAP_AUDIT_EXCLUDE, "empty is left out");
    tap_ok(r.audits[2].action == GW_VAP_AUDIT_PUBLISH, "a value is published");
    tap_is_str(r.audits[2].value, "replicas 3", "trimmed");
    tap_is_int(strlen(r.audits[3].value), 11000, "truncation comes when publishing");
    tap_ok(r.audits[4].action == GW_VAP_AUDIT_ERROR, "an error, under Fail");
    tap_is_str(r.audits[4].error,
               "expression 'string(object.missing)' resulted in error: no such key: missing",
               "with kube's text");
    tap_is_str(r.audits[5].error,
               "compilation error: must evaluate to one of [string null_type] but got dyn",
               "a dynamic value does not compile (kube wants exactly string or null)");
    p = pol("Ignore");
    add_audit(p, "err", "object.missing");
    r = run(p, &input, NULL);
    tap_ok(r.audits[0].action == GW_VAP_AUDIT_EXCLUDE, "an error under Ignore is left out");
}

/* ---- typed bindings ------------------------------------------------------------------------ */

static void
test_typed(void)
{
    static const cel_schema_t s_int = CEL_SCHEMA(CEL_SCHEMA_INTEGER);
    static const cel_schema_t s_str = CEL_SCHEMA(CEL_SCHEMA_STRING);
    static const char *const set_keys[] = {"name"};
    static const cel_schema_prop_t port_props[] = {{"name", &s_str, true}};
    cel_schema_t port = CEL_SCHEMA(CEL_SCHEMA_OBJECT);
    port.props = port_props;
    port.nprops = 1;
    cel_schema_t ports = CEL_SCHEMA(CEL_SCHEMA_ARRAY);
    ports.items = &port;
    ports.list_type = CEL_LIST_MAP;
    ports.list_map_keys = set_keys;
    ports.nkeys = 1;
    const cel_schema_prop_t spec_props[] = {{"replicas", &s_int, false}, {"ports", &ports, false}};
    cel_schema_t spec = CEL_SCHEMA(CEL_SCHEMA_OBJECT);
    spec.props = spec_props;
    spec.nprops = 2;
    const cel_schema_prop_t root_props[] = {{"spec", &spec, false}};
    cel_schema_t root = CEL_SCHEMA(CEL_SCHEMA_OBJECT);
    root.props = root_props;
    root.nprops = 1;
    gw_vap_schemas_t schemas = {.object = &root, .object_name = "Thing"};

    json_t *p = pol("Fail");
    add_val(p, "object.spec.replicas == 3", NULL, NULL, NULL);
    add_val(p, "object.spec.replicas == 'x'", NULL, NULL, NULL);
    add_val(p, "object.spec.nosuch == 1", NULL, NULL, NULL);
    add_val(p, "object.spec.ports == oldObject.spec.ports", NULL, NULL, NULL);
    gw_vap_compiled_t *c = gw_vap_compile(p, &schemas);
    gw_vap_compiled_t *dyn = gw_vap_compile(p, NULL);
    json_decref(p);
    tap_ok(gw_vap_compile_error(c, GW_VAP_VALIDATION, 0) == NULL, "typed: a good expression");
    tap_ok(gw_vap_compile_error(c, GW_VAP_VALIDATION, 1) != NULL &&
               strstr(gw_vap_compile_error(c, GW_VAP_VALIDATION, 1),
                      "found no matching overload for '_==_' applied to '(int, string)'") != NULL,
           "typed: a type error");
    tap_ok(gw_vap_compile_error(c, GW_VAP_VALIDATION, 2) != NULL &&
               strstr(gw_vap_compile_error(c, GW_VAP_VALIDATION, 2), "undefined field 'nosuch'") !=
                   NULL,
           "typed: an unknown field");
    tap_ok(gw_vap_compile_error(dyn, GW_VAP_VALIDATION, 1) == NULL &&
               gw_vap_compile_error(dyn, GW_VAP_VALIDATION, 2) == NULL,
           "dynamic (as admission compiles): both compile");
    json_t *o = json_loads("{\"spec\":{\"replicas\":3,\"ports\":[{\"name\":\"a\"},"
                           "{\"name\":\"b\"}]}}",
                           0, NULL);
    json_t *old = json_loads("{\"spec\":{\"replicas\":3,\"ports\":[{\"name\":\"b\"},"
                             "{\"name\":\"a\"}]}}",
                             0, NULL);
    gw_vap_input_t in = input;
    in.object = o;
    in.old_object = old;
    gw_vap_result_t r;
    gw_vap_eval(c, &in, NULL, arena, &r);
    tap_ok(r.decisions[0].action == GW_VAP_ADMIT, "typed: evaluates");
    tap_ok(r.decisions[3].action == GW_VAP_ADMIT, "typed: map lists compare without order");
    gw_vap_eval(dyn, &in, NULL, arena, &r);
    tap_ok(r.decisions[3].action == GW_VAP_DENY, "dynamic: lists compare in order");
    gw_vap_compiled_free(c);
    gw_vap_compiled_free(dyn);

    /* The type-checking controller's compile: no return type, the checker's words alone. */
    schemas.type_checking = true;
    p = pol("Fail");
    add_val(p, "object.spec.replicas", NULL, NULL, NULL);
    add_val(p, "object.spec.nosuch == 1", NULL, NULL, NULL);
    c = gw_vap_compile(p, &schemas);
    json_decref(p);
    tap_ok(gw_vap_compile_error(c, GW_VAP_VALIDATION, 0) == NULL,
           "type checking: no return type is enforced");
    tap_is_str(gw_vap_compile_error(c, GW_VAP_VALIDATION, 1),
               "ERROR: <input>:1:12: undefined field 'nosuch'\n | object.spec.nosuch == 1\n"
               " | ...........^",
               "type checking: the checker's issues as kube's warning carries them");
    gw_vap_compiled_free(c);
    json_decref(o);
    json_decref(old);
}

/* ---- many workers, one compiled policy -------------------------------------------------- */

typedef struct {
    const gw_vap_compiled_t *c;
    int good;
} worker_t;

static void *
worker(void *arg)
{
    worker_t *w = arg;
    for (int i = 0; i < 200; i++) {
        cel_arena_t *a = cel_arena_new();
        gw_vap_result_t r;
        gw_vap_eval(w->c, &input, NULL, a, &r);
        w->good += r.ndecisions == 2 && r.decisions[0].action == GW_VAP_ADMIT &&
                   r.decisions[1].action == GW_VAP_DENY &&
                   strcmp(r.decisions[1].message, "replicas 3 of web") == 0 && r.naudits == 1 &&
                   strcmp(r.audits[0].value, "web") == 0;
        cel_arena_free(a);
    }
    return NULL;
}

static void
test_threads(void)
{
    json_t *p = pol("Fail");
    add_var(p, "name", "object.metadata.name");
    add_val(p, "variables.name == 'web'", NULL, NULL, NULL);
    add_val(p, "object.spec.replicas > 5", NULL,
            "'replicas ' + string(object.spec.replicas) + ' of ' + variables.name", NULL);
    add_audit(p, "name", "string(variables.name)");
    gw_vap_compiled_t *c = gw_vap_compile(p, NULL);
    json_decref(p);
    pthread_t t[4];
    worker_t w[4];
    for (int i = 0; i < 4; i++) {
        w[i] = (worker_t){c, 0};
        pthread_create(&t[i], NULL, worker, &w[i]);
    }
    int good = 0;
    for (int i = 0; i < 4; i++) {
        pthread_join(t[i], NULL);
        good += w[i].good;
    }
    tap_is_int(good, 800, "four threads evaluate one compiled policy at once, each right");
    gw_vap_compiled_free(c);
}

/* ---- the authorizer memo --------------------------------------------------------------- */

/* A fake asynchronous authorizer: allows "get" and "update", denies everything else. */
static int answered;

static void
answer_all(gw_vap_memo_t *m)
{
    while (gw_vap_memo_pending(m) > 0) {
        const cel_authz_attrs_t *at = gw_vap_memo_pending_attrs(m, 0);
        bool allow = strcmp(at->verb, "get") == 0 || strcmp(at->verb, "update") == 0;
        cel_authz_result_t res = {allow ? CEL_AUTHZ_ALLOW : CEL_AUTHZ_DENY,
                                  allow ? "allowed by test" : "denied by test", NULL};
        gw_vap_memo_answer(m, 0, &res);
        answered++;
    }
}

static void
test_authorizer_memo(void)
{
    json_t *p = pol("Fail");
    add_val(p,
            "authorizer.group('apps').resource('deployments').namespace('ns1').check('get')"
            ".allowed()",
            NULL, NULL, NULL);
    add_val(p, "authorizer.requestResource.check('delete').allowed()", NULL,
            "authorizer.requestResource.check('delete').reason()", NULL);
    add_val(p,
            "authorizer.requestResource.check('update').allowed() ? "
            "authorizer.group('').resource('secrets').check('list').allowed() : true",
            NULL, NULL, NULL);
    gw_vap_compiled_t *c = gw_vap_compile(p, NULL);
    json_decref(p);
    tap_ok(gw_vap_compile_error(c, GW_VAP_MESSAGE_EXPRESSION, 1) != NULL,
           "messageExpressions cannot use the authorizer");
    gw_vap_memo_t *m = gw_vap_memo_new();
    gw_vap_result_t r;
    int rounds = 0, rc;
    rc = gw_vap_eval(c, &input, m, arena, &r);
    tap_is_int(rc, GW_VAP_NEEDS_ANSWERS, "unknown checks: the evaluation needs answers");
    tap_is_int(gw_vap_memo_pending(m), 3, "the first round records the checks it met");
    const cel_authz_attrs_t *at = gw_vap_memo_pending_attrs(m, 1);
    tap_ok(at->resource_request && strcmp(at->verb, "delete") == 0 &&
               strcmp(at->group, "apps") == 0 && strcmp(at->resource, "deployments") == 0 &&
               strcmp(at->ns, "ns1") == 0 && strcmp(at->name, "web") == 0,
           "requestResource checks carry the request's resource");
    tap_is_int(r.ndecisions, 0, "and no result");
    do {
        answer_all(m);
        rounds++;
        rc = gw_vap_eval(c, &input, m, arena, &r);
    } while (rc == GW_VAP_NEEDS_ANSWERS && rounds < 10);
    tap_is_int(rounds, 2, "a check that depends on an answer takes another round");
    tap_is_int(answered, 4, "each check is asked once");
    tap_is_int(rc, 0, "then the evaluation completes");
    tap_ok(r.decisions[0].action == GW_VAP_ADMIT, "an allowed check");
    tap_ok(r.decisions[1].action == GW_VAP_DENY, "a denied check");
    tap_is_str(r.decisions[1].message,
               "failed expression: authorizer.requestResource.check('delete').allowed()",
               "its message");
    tap_ok(r.decisions[2].action == GW_VAP_DENY, "the dependent check was denied");
    rc = gw_vap_eval(c, &input, m, arena, &r);
    tap_ok(rc == 0 && gw_vap_memo_pending(m) == 0, "the memo answers a rerun at once");
    gw_vap_memo_free(m);
    gw_vap_compiled_free(c);
}

int
main(void)
{
    arena = cel_arena_new();
    setup();
    test_compile_errors();
    test_variables();
    test_variables_same_name();
    test_cost();
    test_match_conditions();
    test_messages();
    test_inputs();
    test_audit_annotations();
    test_typed();
    test_threads();
    test_authorizer_memo();
    cel_arena_free(arena);
    for (size_t i = 0; i < nkept; i++)
        gw_vap_compiled_free(kept[i]);
    json_decref(object_doc);
    json_decref(request_doc);
    json_decref(ns_doc);
    return tap_done();
}
