/*
 * libFuzzer driver for the CEL library: compiles the input as an expression and, when it
 * compiles, evaluates it against a small JSON document with a small cost budget, so every
 * run is bounded in time and memory; then type-checks it and estimates its cost against
 * declarations (a schema-typed object among them), and compiles it type-checked. Crashes,
 * sanitizer reports and leaks are failures.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../cel/cel_arena.c"
#include "../../cel/cel_buf.c"
#include "../../cel/cel_builtins.c"
#include "../../cel/cel_check.c"
#include "../../cel/cel_cost.c"
#include "../../cel/cel_decls.c"
#include "../../cel/cel_dump.c"
#include "../../cel/cel_env.c"
#include "../../cel/cel_escape.c"
#include "../../cel/cel_eval.c"
#include "../../cel/cel_lex.c"
#include "../../cel/cel_lib_comprehensions.c"
#include "../../cel/cel_lib_authz.c"
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

#define FUZZ_BUDGET 20000
#define FUZZ_MAX_INPUT 4096

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char doc_text[] =
    "{\"metadata\": {\"name\": \"web\", \"labels\": {\"app\": \"web\", \"tier\": \"1\"}},"
    " \"spec\": {\"replicas\": 3, \"ratio\": 0.5, \"paused\": false, \"items\": [1, \"two\","
    " null, {\"k\": [true]}], \"when\": \"2024-05-01T10:00:00Z\", \"conditions\":"
    " [{\"type\": \"A\", \"status\": \"True\"}, {\"type\": \"B\"}, {\"status\": 1}]}}";

/* A host authorizer for `authorizer`: allows "get", fails on resource "x". */
static void
fuzz_authorize(void *ctx, const cel_authz_attrs_t *attrs, cel_arena_t *a, cel_authz_result_t *out)
{
    (void)ctx, (void)a;
    if (attrs->resource != NULL && strcmp(attrs->resource, "x") == 0) {
        out->error = "failed";
        return;
    }
    out->decision = strcmp(attrs->verb, "get") == 0 ? CEL_AUTHZ_ALLOW : CEL_AUTHZ_DENY;
    out->reason = "fuzz";
}

#define UNBOUNDED                                                                                  \
    .max_length = CEL_SCHEMA_UNBOUNDED, .max_items = CEL_SCHEMA_UNBOUNDED,                         \
    .max_properties = CEL_SCHEMA_UNBOUNDED

static const cel_schema_t fz_str_schema = {.type = CEL_SCHEMA_STRING, UNBOUNDED};
static const cel_schema_t fz_int_schema = {.type = CEL_SCHEMA_INTEGER, UNBOUNDED};
static const cel_schema_t fz_labels_schema = {.type = CEL_SCHEMA_OBJECT,
                                              .max_length = CEL_SCHEMA_UNBOUNDED,
                                              .max_items = CEL_SCHEMA_UNBOUNDED,
                                              .max_properties = 16,
                                              .additional_properties = &fz_str_schema};
static const cel_schema_prop_t fz_meta_props[] = {{"name", &fz_str_schema, true},
                                                  {"labels", &fz_labels_schema, false}};
static const cel_schema_t fz_meta_schema = {
    .type = CEL_SCHEMA_OBJECT, UNBOUNDED, .props = fz_meta_props, .nprops = 2};
static const cel_schema_t fz_items_schema = {.type = CEL_SCHEMA_ARRAY,
                                             .max_length = CEL_SCHEMA_UNBOUNDED,
                                             .max_items = 8,
                                             .max_properties = CEL_SCHEMA_UNBOUNDED,
                                             .items = &fz_int_schema,
                                             .list_type = CEL_LIST_SET};
static const cel_schema_prop_t fz_cond_props[] = {{"type", &fz_str_schema, true},
                                                  {"status", &fz_str_schema, false}};
static const cel_schema_t fz_cond_schema = {
    .type = CEL_SCHEMA_OBJECT, UNBOUNDED, .props = fz_cond_props, .nprops = 2};
static const char *const fz_cond_keys[] = {"type"};
static const cel_schema_t fz_conds_schema = {.type = CEL_SCHEMA_ARRAY,
                                             UNBOUNDED,
                                             .items = &fz_cond_schema,
                                             .list_type = CEL_LIST_MAP,
                                             .list_map_keys = fz_cond_keys,
                                             .nkeys = 1};
static const cel_schema_prop_t fz_spec_props[] = {{"replicas", &fz_int_schema, false},
                                                  {"items", &fz_items_schema, false},
                                                  {"conditions", &fz_conds_schema, false}};
static const cel_schema_t fz_spec_schema = {
    .type = CEL_SCHEMA_OBJECT, UNBOUNDED, .props = fz_spec_props, .nprops = 3};
static const cel_schema_prop_t fz_root_props[] = {{"metadata", &fz_meta_schema, false},
                                                  {"spec", &fz_spec_schema, false}};
static const cel_schema_t fz_root_schema = {
    .type = CEL_SCHEMA_OBJECT, UNBOUNDED, .props = fz_root_props, .nprops = 2};

/* Type-check and estimate `src`, then compile it type-checked. */
static void
fuzz_check(const char *src)
{
    cel_env_t *env = cel_env_new();
    cel_env_set_container(env, "k8s.io");
    cel_env_declare(env, "object", cel_env_schema_type(env, &fz_root_schema, "Object", true));
    cel_env_declare(env, "n", cel_env_type(env, "int"));
    cel_env_declare(env, "d", cel_env_type(env, "dyn"));
    cel_env_declare(env, "authorizer", cel_env_type(env, "kubernetes.authorization.Authorizer"));
    cel_check_t c;
    cel_check(env, src, &c);
    cel_check_clear(&c);
    cel_env_set_type_check(env, true);
    cel_program_t *prog = NULL;
    cel_issue_t issue;
    cel_compile(env, src, &prog, &issue);
    cel_issue_clear(&issue);
    cel_program_free(prog);
    cel_env_free(env);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FUZZ_MAX_INPUT)
        return 0;
    char *src = malloc(size + 1);
    memcpy(src, data, size);
    src[size] = '\0';
    json_t *doc = json_loads(doc_text, 0, NULL);
    cel_env_t *env = cel_env_new();
    cel_env_set_container(env, "k8s.io");
    cel_program_t *prog = NULL;
    cel_issue_t issue;
    if (cel_compile(env, src, &prog, &issue) == 0) {
        cel_arena_t *a = cel_arena_new();
        cel_activation_t *act = cel_activation_new(a);
        cel_activation_bind_json(act, "object", doc);
        /* The same document read with its schema: set and map lists. */
        cel_activation_bind_json_typed(act, "self", doc,
                                       cel_env_schema_type(env, &fz_root_schema, "Object", true));
        cel_activation_bind(act, "n", cel_int(7));
        cel_activation_bind(act, "authorizer", cel_authorizer(a, fuzz_authorize, NULL));
        cel_value_t v;
        cel_eval(prog, act, a, FUZZ_BUDGET, &v, NULL);
        /* The tree renderer is part of the library too. */
        cel__node_dump(a, prog->root);
        cel_arena_free(a);
    }
    cel_issue_clear(&issue);
    cel_program_free(prog);
    cel_env_free(env);
    json_decref(doc);
    fuzz_check(src);
    free(src);
    return 0;
}
