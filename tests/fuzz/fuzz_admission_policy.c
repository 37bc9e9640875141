/*
 * libFuzzer driver for ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding
 * documents, which API clients send. The first byte picks the kind (odd: a binding) and, for
 * a policy, what else it goes through; the rest is the JSON document. A policy goes through
 * what kgate runs on one: the registry's validation, the matcher compile of
 * spec.matchConstraints with a few fixed requests matched, and then one of: the updates'
 * validation (against a fixed stored policy and against itself) with the plugin's compiler;
 * the status controller's type check against the real catalog; the plugin's compiler and an
 * evaluation on a small fixed object (with the cost limits scaled down, so that every run
 * stays short). A binding goes through its validation and the matcher compile of
 * spec.matchResources.
 *
 * Besides not crashing or leaking, it checks what the modules promise: every field error has
 * a reason, a field and a message; an update against the policy itself reports no more than a
 * create does; an expression the validator accepts compiles for the plugin; a matchConstraints
 * the validator accepts never fails matching as unconvertible; type-check warnings name a
 * validation's expression or messageExpression, once each; an evaluation's decisions and
 * audit annotations are complete and the same when run again.
 * Builds on its own: clang -fsanitize=fuzzer,address,undefined ...
 * tests/fuzz/fuzz_admission_policy.c
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The evaluator's cost limits, scaled down from kube's (1,000,000 per call, 10,000,000 and
 * 2,500,000 per phase) so that an evaluation costs milliseconds: gw_vap_int.h's guard keeps
 * these when gw_vap_eval.c includes it. */
#include "gw_vap_int.h"
#undef GW_VAP__PER_CALL_LIMIT
#undef GW_VAP__BUDGET
#undef GW_VAP__BUDGET_MATCH_CONDITIONS
#define GW_VAP__PER_CALL_LIMIT 10000ULL
#define GW_VAP__BUDGET 40000LL
#define GW_VAP__BUDGET_MATCH_CONDITIONS 20000LL

#include "../../cel/cel_arena.c"
#include "../../cel/cel_buf.c"
#include "../../cel/cel_builtins.c"
#include "../../cel/cel_check.c"
#define rules cel_cost__rules
#include "../../cel/cel_cost.c"
#undef rules
#include "../../cel/cel_decls.c"
#include "../../cel/cel_dump.c"
#include "../../cel/cel_env.c"
#include "../../cel/cel_escape.c"
#include "../../cel/cel_eval.c"
#include "../../cel/cel_lex.c"
#include "../../cel/cel_lib_authz.c"
#include "../../cel/cel_lib_comprehensions.c"
#include "../../cel/cel_lib_encoders.c"
#include "../../cel/cel_lib_format.c"
#include "../../cel/cel_lib_lists.c"
#include "../../cel/cel_lib_math.c"
#include "../../cel/cel_lib_mutation.c"
#include "../../cel/cel_lib_named_format.c"
#include "../../cel/cel_lib_net.c"
#include "../../cel/cel_lib_quantity.c"
#include "../../cel/cel_lib_regex.c"
#include "../../cel/cel_lib_semver.c"
#include "../../cel/cel_lib_sets.c"
#include "../../cel/cel_lib_strings.c"
#include "../../cel/cel_lib_url.c"
#include "../../cel/cel_parse.c"
#include "../../cel/cel_regex.c"
#include "../../cel/cel_strconv.c"
#include "../../cel/cel_time.c"
#include "../../cel/cel_types.c"
#include "../../cel/cel_value.c"

#include "gw_json.c"
#include "gw_admission_match.c"
#include "gw_admission_policy_valid.c"
#define ptr gw_admission_rules__ptr
#include "gw_admission_rules.c"
#undef ptr
#include "gw_alloc.c"
#define cleanup gw_arena__cleanup
#define cleanup_t gw_arena__cleanup_t
#include "gw_arena.c"
#undef cleanup
#undef cleanup_t
#include "gw_buf.c"
#include "gw_clock.c"
#define lookup gw_catalog__lookup
#include "gw_catalog.c"
#include "gw_catalog_custom.c"
#undef lookup
#include "gw_err.c"
#include "gw_log.c"
#define str_or_empty gw_metav1_valid__str_or_empty
#include "gw_metav1_valid.c"
#undef str_or_empty
/* cel_lib_named_format.c words these its own way */
#undef SUBDOMAIN_MSG
#undef LABEL_MSG
#undef DNS1035_MSG
#undef LABEL_VALUE_MSG
#include "gw_names.c"
#include "gw_objmeta.c"
#include "gw_schema.c"
#include "gw_schema_proto.c"
#define find gw_schema_cel__find
#include "gw_schema_cel.c"
#undef find
#define fail gw_selector__fail
#define lookup gw_selector__lookup
#define parser_t gw_selector__parser_t
#define next gw_selector__next
#include "gw_selector.c"
#undef fail
#undef lookup
#undef parser_t
#undef next
#define blank gw_vap_compile__blank
#include "gw_vap_compile.c"
#undef blank
#define resolve gw_vap_eval__resolve
#define trim gw_vap_eval__trim
#include "gw_vap_eval.c"
#undef resolve
#undef trim
#include "gw_vap_snapshot.c"
#define white gw_map_compile__white
#include "gw_map_compile.c"
#undef white
#define sor gw_map_policy_valid__sor
#define ptr gw_map_policy_valid__ptr
#define blank gw_map_policy_valid__blank
#define policy_spec gw_map_policy_valid__policy_spec
#include "gw_map_policy_valid.c"
#undef sor
#undef ptr
#undef blank
#undef policy_spec
#define gvk_cmp gw_vap_typecheck__gvk_cmp
#define add_issue gw_vap_typecheck__add_issue
#include "gw_vap_typecheck.c"
#undef gvk_cmp
#undef add_issue

#include "fuzz_catalog_blob.h"

#define FUZZ_MAX_INPUT 8192
#define FUZZ_MAX_ROUNDS 8 /* authorizer rounds of one evaluation */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The stored policy an update replaces. */
static const char stored_text[] =
    "{\"metadata\": {\"name\": \"p\"}, \"spec\": {\"failurePolicy\": \"Fail\","
    " \"paramKind\": {\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\"},"
    " \"matchConstraints\": {\"resourceRules\": [{\"apiGroups\": [\"apps\"], \"apiVersions\":"
    " [\"v1\"], \"operations\": [\"CREATE\", \"UPDATE\"], \"resources\": [\"deployments\"]}]},"
    " \"matchConditions\": [{\"name\": \"m\", \"expression\": \"true\"}],"
    " \"variables\": [{\"name\": \"r\", \"expression\": \"object.spec.replicas\"}],"
    " \"validations\": [{\"expression\": \"variables.r < 5\", \"messageExpression\":"
    " \"'too many: ' + string(variables.r)\"}, {\"expression\": \"object.x == 1\"}],"
    " \"auditAnnotations\": [{\"key\": \"k\", \"valueExpression\": \"'v'\"}]}}";

static const char object_text[] =
    "{\"apiVersion\": \"apps/v1\", \"kind\": \"Deployment\", \"metadata\": {\"name\": \"web\","
    " \"namespace\": \"default\", \"labels\": {\"app\": \"web\"}}, \"spec\": {\"replicas\": 3,"
    " \"template\": {\"spec\": {\"containers\": [{\"name\": \"c\", \"image\": \"nginx\"}]}}}}";

static const char params_text[] =
    "{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"metadata\": {\"name\": \"cm\","
    " \"namespace\": \"default\"}, \"data\": {\"max\": \"4\", \"name\": \"web\"}}";

static const char ns_text[] =
    "{\"metadata\": {\"name\": \"default\", \"labels\": {\"env\": \"prod\"}}, \"spec\":"
    " {\"finalizers\": [\"kubernetes\"]}, \"status\": {\"phase\": \"Active\"}}";

static json_t *
load(const char *text)
{
    json_t *v = json_loads(text, 0, NULL);
    if (v == NULL)
        abort();
    return v;
}

/* ---- field errors ------------------------------------------------------------------------- */

static bool
nonempty(const json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s != NULL && s[0] != '\0';
}

/* Every cause is a kube StatusCause with its three members. */
static void
check_causes(const gw_field_errors_t *errs)
{
    size_t i;
    const json_t *c;

    if (errs->causes != NULL && json_array_size(errs->causes) == 0)
        abort();
    json_array_foreach(errs->causes, i, c)
    {
        if (!nonempty(c, "reason") || !nonempty(c, "field") || !nonempty(c, "message"))
            abort();
    }
}

static bool
has_cause(const gw_field_errors_t *errs, const json_t *want)
{
    size_t i;
    const json_t *c;

    json_array_foreach(errs->causes, i, c)
    {
        if (json_equal(c, want))
            return true;
    }
    return false;
}

/* Whether a cause's field is `field` (or, with `prefix`, lies under it). */
static bool
has_field(const gw_field_errors_t *errs, const char *field, bool prefix)
{
    size_t i, n = strlen(field);
    const json_t *c;

    json_array_foreach(errs->causes, i, c)
    {
        const char *f = json_string_value(json_object_get(c, "field"));
        if (prefix ? strncmp(f, field, n) == 0 && (f[n] == '\0' || f[n] == '.' || f[n] == '[')
                   : strcmp(f, field) == 0)
            return true;
    }
    return false;
}

/* ---- the checks of a policy ---------------------------------------------------------------- */

/* An expression the validator let through (no error at its path) compiles for the plugin. */
static void
check_accepted_compile(const gw_field_errors_t *errs, const gw_vap_compiled_t *c,
                       gw_vap_list_t list, const char *member, const char *key)
{
    char path[96];

    for (size_t i = 0; i < gw_vap_compiled_count(c, list); i++) {
        snprintf(path, sizeof(path), "spec.%s[%zu].%s", member, i, key);
        if (gw_vap_compile_error(c, list, i) != NULL && !has_field(errs, path, false))
            abort();
    }
}

static void
check_accepted(const gw_vap_compiled_t *c, const gw_field_errors_t *errs)
{
    /* variables the validator refused (a blank one is left out there, and what reads it sees
     * another type) type the plugin's expressions differently */
    if (has_field(errs, "spec.variables", true))
        return;
    check_accepted_compile(errs, c, GW_VAP_VARIABLE, "variables", "expression");
    check_accepted_compile(errs, c, GW_VAP_MATCH_CONDITION, "matchConditions", "expression");
    check_accepted_compile(errs, c, GW_VAP_VALIDATION, "validations", "expression");
    check_accepted_compile(errs, c, GW_VAP_MESSAGE_EXPRESSION, "validations", "messageExpression");
    check_accepted_compile(errs, c, GW_VAP_AUDIT_ANNOTATION, "auditAnnotations", "valueExpression");
}

/* The updates' validation: against a stored policy, and against itself, where every
 * expression is stored and the match conditions unchanged, so it reports no more than a
 * create (`create`) does. */
static void
check_updates(const json_t *policy, const gw_field_errors_t *create)
{
    static json_t *stored;
    gw_field_errors_t upd = {0}, self = {0};
    size_t i;
    const json_t *e;

    if (stored == NULL)
        stored = load(stored_text);
    gw_vap_validate_update(policy, stored, &upd);
    check_causes(&upd);
    gw_ferr_clear(&upd);
    gw_vap_validate_update(policy, policy, &self);
    check_causes(&self);
    json_array_foreach(self.causes, i, e)
    {
        if (!has_cause(create, e))
            abort();
    }
    gw_ferr_clear(&self);
}

/* expressionWarnings: {fieldRef, warning} for a validation that exists, each at most once. */
static void
typecheck(const json_t *policy)
{
    json_t *w = gw_vap_typecheck(policy, gw_catalog_builtin());
    size_t nval = json_array_size(json_object_get(json_object_get(policy, "spec"), "validations"));
    size_t i, j;
    const json_t *e;

    if (!json_is_array(w))
        abort();
    json_array_foreach(w, i, e)
    {
        const char *ref = json_string_value(json_object_get(e, "fieldRef"));
        char field[32];
        size_t k;
        int end = 0;
        if (ref == NULL || !nonempty(e, "warning") || json_object_size(e) != 2)
            abort();
        if (sscanf(ref, "spec.validations[%zu].%31[a-zA-Z]%n", &k, field, &end) != 2 ||
            ref[end] != '\0' || k >= nval ||
            (strcmp(field, "expression") != 0 && strcmp(field, "messageExpression") != 0))
            abort();
        for (j = 0; j < i; j++)
            if (strcmp(json_string_value(json_object_get(json_array_get(w, j), "fieldRef")), ref) ==
                0)
                abort();
    }
    json_decref(w);
}

/* ---- matching ------------------------------------------------------------------------------ */

static const gw_admission_request_t *
fixed_requests(size_t *n)
{
    static gw_admission_request_t rq[4];
    static json_t *object;

    if (object == NULL) {
        object = load(object_text);
        rq[0] = (gw_admission_request_t){GW_ADMISSION_CREATE,
                                         {"apps", "v1", "deployments"},
                                         "",
                                         {"apps", "v1", "Deployment"},
                                         "default",
                                         "web",
                                         object,
                                         NULL,
                                         true};
        rq[1] = (gw_admission_request_t){GW_ADMISSION_UPDATE,
                                         {"apps", "v1", "deployments"},
                                         "scale",
                                         {"autoscaling", "v1", "Scale"},
                                         "default",
                                         "web",
                                         object,
                                         object,
                                         true};
        rq[2] = (gw_admission_request_t){GW_ADMISSION_DELETE,
                                         {"", "v1", "pods"},
                                         "",
                                         {"", "v1", "Pod"},
                                         "kube-system",
                                         "p",
                                         NULL,
                                         object,
                                         true};
        rq[3] = (gw_admission_request_t){GW_ADMISSION_CREATE,
                                         {"", "v1", "namespaces"},
                                         "",
                                         {"", "v1", "Namespace"},
                                         "team",
                                         "",
                                         object,
                                         NULL,
                                         false};
    }
    *n = sizeof(rq) / sizeof(rq[0]);
    return rq;
}

/* Compile and match; `valid`: the validator found nothing wrong in the document, so its
 * selectors convert. */
static void
check_match(const json_t *mr, bool valid)
{
    static json_t *ns;
    gw_admission_match_t *m = gw_admission_match_new(mr);
    size_t n;
    const gw_admission_request_t *rq = fixed_requests(&n);

    if (ns == NULL)
        ns = load(ns_text);
    for (size_t i = 0; i < n; i++) {
        char err[256] = "";
        gw_admission_matched_t out;
        int r = gw_admission_match(m, &rq[i], i == 2 ? NULL : ns, gw_catalog_builtin(), &out, err,
                                   sizeof(err));
        if (r != 0 && r != 1 && (r != GW_ENOTFOUND && r != GW_EINVAL && r != GW_EINTERNAL))
            abort();
        if (r < 0 && err[0] == '\0')
            abort();
        if (r == GW_EINVAL && valid)
            abort();
        if (r == 1 && (out.resource.resource == NULL || out.kind.kind == NULL))
            abort();
    }
    gw_admission_match_free(m);
}

/* ---- evaluation ---------------------------------------------------------------------------- */

static void
check_result(const gw_vap_compiled_t *c, const gw_vap_result_t *r)
{
    size_t nval = gw_vap_compiled_count(c, GW_VAP_VALIDATION);

    if (r->ndecisions != 0 && r->ndecisions != 1 && r->ndecisions != nval)
        abort();
    for (size_t i = 0; i < r->ndecisions; i++) {
        const gw_vap_decision_t *d = &r->decisions[i];
        if (d->evaluation != GW_VAP_EVAL_ADMIT && d->message == NULL)
            abort();
        if (d->evaluation == GW_VAP_EVAL_DENY && (d->reason == NULL || d->action != GW_VAP_DENY))
            abort();
        if (d->evaluation == GW_VAP_EVAL_ADMIT && d->action != GW_VAP_ADMIT)
            abort();
    }
    for (size_t i = 0; i < r->naudits; i++) {
        const gw_vap_audit_t *a = &r->audits[i];
        if (a->key == NULL || (a->action == GW_VAP_AUDIT_PUBLISH && a->value == NULL) ||
            (a->action == GW_VAP_AUDIT_ERROR && a->error == NULL))
            abort();
    }
}

static bool
same_str_or_null(const char *a, const char *b)
{
    return a == b || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

static bool
same_result(const gw_vap_result_t *x, const gw_vap_result_t *y)
{
    if (x->ndecisions != y->ndecisions || x->naudits != y->naudits)
        return false;
    for (size_t i = 0; i < x->ndecisions; i++) {
        const gw_vap_decision_t *a = &x->decisions[i], *b = &y->decisions[i];
        if (a->action != b->action || a->evaluation != b->evaluation ||
            !same_str_or_null(a->reason, b->reason) || !same_str_or_null(a->message, b->message))
            return false;
    }
    for (size_t i = 0; i < x->naudits; i++) {
        const gw_vap_audit_t *a = &x->audits[i], *b = &y->audits[i];
        if (a->action != b->action || !same_str_or_null(a->key, b->key) ||
            !same_str_or_null(a->value, b->value) || !same_str_or_null(a->error, b->error))
            return false;
    }
    return true;
}

/* Evaluate until the memo holds every answer (allow "get", deny the rest); false when the
 * rounds ran out. */
static bool
eval_rounds(const gw_vap_compiled_t *c, const gw_vap_input_t *in, gw_vap_memo_t *memo,
            cel_arena_t *a, gw_vap_result_t *out)
{
    for (int round = 0; round < FUZZ_MAX_ROUNDS; round++) {
        int rc = gw_vap_eval(c, in, memo, a, out);
        /* 0 leaves nothing pending; a rerun is asked for only with something to answer */
        if ((rc == 0) != (gw_vap_memo_pending(memo) == 0))
            abort();
        if (rc == 0)
            return true;
        while (gw_vap_memo_pending(memo) > 0) {
            const cel_authz_attrs_t *at = gw_vap_memo_pending_attrs(memo, 0);
            bool get = at->verb != NULL && strcmp(at->verb, "get") == 0;
            cel_authz_result_t r = {.decision = get ? CEL_AUTHZ_ALLOW : CEL_AUTHZ_DENY,
                                    .reason = "fuzz"};
            gw_vap_memo_answer(memo, 0, &r);
        }
    }
    return false;
}

/* The documents an evaluation reads, built once. */
typedef struct {
    json_t *object, *params, *request, *ns;
} inputs_t;

static const inputs_t *
inputs(void)
{
    static inputs_t in;
    static const char *const groups[] = {"dev"};

    if (in.object == NULL) {
        gw_vap_request_t r = {.kind_group = "apps",
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
                              .namespace_ = "default",
                              .operation = "UPDATE",
                              .username = "alice",
                              .groups = groups,
                              .ngroups = 1};
        json_t *ns = load(ns_text);
        in = (inputs_t){load(object_text), load(params_text), gw_vap_request_doc(&r),
                        gw_vap_namespace_doc(ns)};
        json_decref(ns);
    }
    return &in;
}

static void
evaluate(const gw_vap_compiled_t *c)
{
    const inputs_t *d = inputs();
    gw_vap_input_t in = {.object = d->object,
                         .old_object = d->object,
                         .request = d->request,
                         .params = gw_vap_compiled_has_params(c) ? d->params : NULL,
                         .namespace_object = d->ns,
                         .request_resource = {.resource_request = true,
                                              .verb = "update",
                                              .group = "apps",
                                              .resource = "deployments",
                                              .ns = "default",
                                              .name = "web"}};
    gw_vap_memo_t *memo = gw_vap_memo_new();
    cel_arena_t *a = cel_arena_new();
    gw_vap_result_t r1, r2;

    if (eval_rounds(c, &in, memo, a, &r1)) {
        check_result(c, &r1);
        /* with every answer in the memo a run is the same run */
        if (gw_vap_eval(c, &in, memo, a, &r2) != 0 || !same_result(&r1, &r2))
            abort();
    }
    cel_arena_free(a);
    gw_vap_memo_free(memo);
}

/* ---- the two kinds ------------------------------------------------------------------------- */

/* What a policy goes through after its validation and matching, picked by `path` so that a
 * run compiles it two or three times rather than all of them: 0, the updates' validation and
 * the plugin's compile; 1, the type check; 2, the plugin's compile and an evaluation. */
static void
policy(const json_t *doc, unsigned path)
{
    gw_field_errors_t errs = {0};
    const json_t *mc = json_object_get(json_object_get(doc, "spec"), "matchConstraints");
    gw_vap_compiled_t *c = NULL;

    gw_vap_validate(doc, &errs);
    check_causes(&errs);
    if (json_is_object(mc))
        check_match(mc, !has_field(&errs, "spec.matchConstraints", true));
    if (path == 1) {
        typecheck(doc);
    } else {
        c = gw_vap_compile(doc, NULL);
        check_accepted(c, &errs);
    }
    if (path == 0)
        check_updates(doc, &errs);
    else if (path == 2)
        evaluate(c);
    gw_vap_compiled_free(c);
    gw_ferr_clear(&errs);
}

static void
binding(const json_t *doc)
{
    gw_field_errors_t errs = {0};
    const json_t *mr = json_object_get(json_object_get(doc, "spec"), "matchResources");

    gw_vapb_validate(doc, &errs);
    check_causes(&errs);
    if (json_is_object(mr))
        check_match(mr, !has_field(&errs, "spec.matchResouces", true));
    gw_ferr_clear(&errs);
}

/* ---- MutatingAdmissionPolicy --------------------------------------------------------------- */

/* A mutating policy: its validation's causes are well formed, a mutation the validator let
 * through compiles for the plugin, and the update's validation against itself reports no more
 * than the create's. */
static void
map_policy(const json_t *doc)
{
    gw_field_errors_t errs = {0}, self = {0};
    gw_map_compiled_t *c;
    char path[96];
    size_t i;
    const json_t *e;

    gw_map_validate(doc, &errs);
    check_causes(&errs);
    c = gw_map_compile(doc, NULL);
    for (i = 0; i < gw_map_compiled_mutations(c) && !has_field(&errs, "spec.variables", true);
         i++) {
        snprintf(path, sizeof(path), "spec.mutations[%zu]", i);
        if (gw_map_mutation_error(c, i) != NULL && !has_field(&errs, path, true))
            abort();
        if (gw_map_mutation_type(c, i) == GW_MAP_NONE && !has_field(&errs, path, true))
            abort();
    }
    gw_map_compiled_free(c);
    gw_map_validate_update(doc, doc, &self);
    check_causes(&self);
    json_array_foreach(self.causes, i, e)
    {
        if (!has_cause(&errs, e))
            abort();
    }
    gw_ferr_clear(&self);
    gw_ferr_clear(&errs);
}

static void
map_binding(const json_t *doc)
{
    gw_field_errors_t errs = {0};

    gw_mapb_validate(doc, &errs);
    check_causes(&errs);
    gw_ferr_clear(&errs);
}

/* The first byte picks what the JSON after it is: bit 0 a binding (else a policy), bit 3 of
 * MutatingAdmissionPolicy (else ValidatingAdmissionPolicy), bits 1-2 a validating policy's
 * path. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_t *doc;

    if (size < 1 || size > FUZZ_MAX_INPUT)
        return 0;
    doc = json_loadb((const char *)data + 1, size - 1, 0, NULL);
    if (json_is_object(doc) && (data[0] & 8)) {
        if (data[0] & 1)
            map_binding(doc);
        else
            map_policy(doc);
    } else if (json_is_object(doc)) {
        if (data[0] & 1)
            binding(doc);
        else
            policy(doc, (data[0] >> 1) % 3u);
    }
    json_decref(doc);
    return 0;
}
