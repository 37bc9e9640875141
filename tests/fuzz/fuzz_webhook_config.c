/*
 * libFuzzer driver for MutatingWebhookConfiguration and ValidatingWebhookConfiguration
 * documents, which API clients send. The first byte picks the kind (odd: mutating); the rest
 * is the JSON document. It goes through the registry's create validation, the update's
 * validation against a fixed stored configuration that breaks the newer rules, and against
 * itself.
 *
 * Besides not crashing or leaking, it checks what the module promises: every field error has
 * a reason, a field and a message, and its field lies under `webhooks[`; an update against
 * the configuration itself reports no field error a create does not (the stored object
 * relaxes, never adds).
 * Builds on its own: clang -fsanitize=fuzzer,address,undefined ...
 * tests/fuzz/fuzz_webhook_config.c
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
#define ptr gw_webhook_config_valid__ptr
#define sor gw_webhook_config_valid__sor
#define child gw_webhook_config_valid__child
#define trim gw_webhook_config_valid__trim
#define qualified_name gw_webhook_config_valid__qualified_name
#define match_condition gw_webhook_config_valid__match_condition
#define match_conditions gw_webhook_config_valid__match_conditions
#define preexisting gw_webhook_config_valid__preexisting
#define same gw_webhook_config_valid__same
#define white gw_webhook_config_valid__white
#include "gw_webhook_config_valid.c"
#undef ptr
#undef sor
#undef child
#undef trim
#undef qualified_name
#undef match_condition
#undef match_conditions
#undef preexisting
#undef same
#undef white
#define member gw_webhook_client_valid__member
#define str gw_webhook_client_valid__str
#define url_parse gw_webhook_client_valid__url_parse
#include "gw_webhook_client_valid.c"
#undef member
#undef str
#undef url_parse
#define gvk_cmp gw_vap_typecheck__gvk_cmp
#define add_issue gw_vap_typecheck__add_issue
#include "gw_vap_typecheck.c"
#undef gvk_cmp
#undef add_issue

#include "fuzz_catalog_blob.h"

#define FUZZ_MAX_INPUT 8192

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A stored configuration an update replaces: side effects, review versions, duplicate names,
 * a selector's label value and a match condition that newer rules refuse. */
static const char stored_text[] =
    "{\"metadata\": {\"name\": \"c\"}, \"webhooks\": [{\"name\": \"a.example.com\","
    " \"clientConfig\": {\"url\": \"https://h\"}, \"sideEffects\": \"Unknown\","
    " \"admissionReviewVersions\": [\"v0\"], \"objectSelector\": {\"matchExpressions\":"
    " [{\"key\": \"a\", \"operator\": \"In\", \"values\": [\"-x\"]}]},"
    " \"matchConditions\": [{\"name\": \"m\", \"expression\": \"x\"}]},"
    " {\"name\": \"a.example.com\", \"clientConfig\": {\"service\": {\"name\": \"s\","
    " \"namespace\": \"n\", \"port\": 443}}, \"sideEffects\": \"None\","
    " \"admissionReviewVersions\": [\"v1\"]}]}";

static bool
nonempty(const json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s != NULL && s[0] != '\0';
}

/* Every cause is a kube StatusCause with its three members, about a webhook. */
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
        if (strncmp(json_string_value(json_object_get(c, "field")), "webhooks[", 9) != 0)
            abort();
    }
}

/* Whether errs has a cause of want's reason at want's field (a relaxed rule may word its
 * message differently: sideEffects' Required lists the classes an update allows). */
static bool
has_cause(const gw_field_errors_t *errs, const json_t *want)
{
    size_t i;
    const json_t *c;

    json_array_foreach(errs->causes, i, c)
    {
        if (json_equal(json_object_get(c, "reason"), json_object_get(want, "reason")) &&
            json_equal(json_object_get(c, "field"), json_object_get(want, "field")))
            return true;
    }
    return false;
}

static void
fuzz_check(const json_t *doc, bool mutating)
{
    static json_t *stored;
    gw_field_errors_t create = {0}, upd = {0}, self = {0};
    size_t i;
    const json_t *e;

    if (stored == NULL && (stored = json_loads(stored_text, 0, NULL)) == NULL)
        abort();
    gw_webhook_config_validate(doc, NULL, mutating, &create);
    check_causes(&create);
    gw_webhook_config_validate(doc, stored, mutating, &upd);
    check_causes(&upd);
    gw_webhook_config_validate(doc, doc, mutating, &self);
    check_causes(&self);
    json_array_foreach(self.causes, i, e)
    {
        if (!has_cause(&create, e))
            abort();
    }
    gw_ferr_clear(&create);
    gw_ferr_clear(&upd);
    gw_ferr_clear(&self);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_t *doc;

    if (size < 1 || size > FUZZ_MAX_INPUT)
        return 0;
    doc = json_loadb((const char *)data + 1, size - 1, 0, NULL);
    if (json_is_object(doc))
        fuzz_check(doc, data[0] & 1);
    json_decref(doc);
    return 0;
}
