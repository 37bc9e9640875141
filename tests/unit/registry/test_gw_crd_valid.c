/* Unit tests for the CustomResourceDefinition's defaults, strategy and validation
 * (gateway/registry/gw_defaults_apis.c, gw_strategy_crd.c, gw_crd_valid*.c): cases transcribed
 * from kube's validation_test.go (v1 documents standing for its internal objects) with the
 * aggregate 422 text kube gives them, the v1-to-internal paths (spec.validation for a schema
 * every version shares, spec.versions[i].schema otherwise, spec.conversion.webhookClientConfig),
 * the structural-schema rules, the update rules and the status subresource's. */
#include <stdlib.h>
#include <string.h>

#include "gw_catalog.h"
#include "gw_crd_valid.h"
#include "gw_defaults.h"
#include "gw_registry_int.h"
#include "gw_strategy.h"
#include "tap.h"

#define DNS1035                                                                                    \
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "   \
    "alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or "           \
    "'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"

/* A version with a schema (JSON of openAPIV3Schema) and extra members. */
#define VER(name, storage, schema, extra)                                                          \
    "{\"name\":\"" name "\",\"served\":true,\"storage\":" storage                                  \
    ",\"schema\":{\"openAPIV3Schema\":" schema "}" extra "}"
#define OBJ "{\"type\":\"object\"}"
#define ONE(schema) "[" VER("version", "true", schema, "") "]"
#define TWO(schema)                                                                                \
    "[" VER("version", "true", schema, "") "," VER("version2", "false", schema, "") "]"
#define V "spec.validation.openAPIV3Schema"

static json_t *
doc(const char *text)
{
    json_error_t err;
    json_t *d = json_loads(text, 0, &err);

    if (d == NULL) {
        printf("Bail out! bad test JSON (%s): %s\n", err.text, text);
        exit(1);
    }
    return d;
}

/* A CRD named plural.group.com with these versions and extra spec members. */
static json_t *
crd(const char *versions, const char *spec_extra)
{
    char *text;
    json_t *d;

    if (asprintf(
            &text,
            "{\"apiVersion\":\"apiextensions.k8s.io/v1\",\"kind\":\"CustomResourceDefinition\","
            "\"metadata\":{\"name\":\"plural.group.com\"},\"spec\":{\"group\":\"group.com\","
            "\"scope\":\"Cluster\",\"names\":{\"plural\":\"plural\",\"singular\":\"singular\","
            "\"kind\":\"Plural\",\"listKind\":\"PluralList\"},\"versions\":%s%s}}",
            versions, spec_extra) < 0)
        abort();
    d = doc(text);
    free(text);
    return d;
}

/* What a create does before validation: defaults, the status reset, storedVersions. */
static void
prepare(json_t *obj)
{
    gw_defaults_apply("apiextensions.k8s.io", "v1", "CustomResourceDefinition", obj);
    json_object_set_new(obj, "status", json_object());
    gw_strategy_crd.prepare_create(NULL, NULL, obj);
}

/* The compact JSON (keys sorted) of v must be `want`. */
static void
is_json(const json_t *v, const char *want, const char *name)
{
    char *got = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);

    tap_is_str(got, want, name);
    free(got);
}

static char *
summary(gw_field_errors_t *errs)
{
    char *s = gw_ferr_count(errs) ? gw_ferr_summary(errs) : strdup("");

    gw_ferr_clear(errs);
    return s;
}

/* Create validation of obj (consumed): kube's aggregate text must be `want`. */
static void
create_is(json_t *obj, const char *want, const char *name)
{
    gw_field_errors_t errs = {0};
    char *got;

    prepare(obj);
    gw_crd_definition_validate(obj, &errs);
    got = summary(&errs);
    tap_is_str(got, want, name);
    free(got);
    json_decref(obj);
}

/* The same, for texts that hold Go dumps: `want` must be contained. */
static void
create_has(json_t *obj, const char *want, const char *name)
{
    gw_field_errors_t errs = {0};
    char *got;

    prepare(obj);
    gw_crd_definition_validate(obj, &errs);
    got = summary(&errs);
    if (!tap_ok(strstr(got, want) != NULL, "%s", name))
        tap_diag("  got \"%s\", want it to contain \"%s\"", got, want);
    free(got);
    json_decref(obj);
}

static void
update_is(json_t *obj, json_t *old, const char *want, const char *name)
{
    gw_field_errors_t errs = {0};
    char *got;

    gw_crd_definition_validate_update(obj, old, &errs);
    got = summary(&errs);
    tap_is_str(got, want, name);
    free(got);
    json_decref(obj);
    json_decref(old);
}

/* ---- the cases of kube's TestValidateCustomResourceDefinition ---------------------------- */

static void
test_conversion(void)
{
    create_is(crd(TWO(OBJ), ",\"conversion\":{\"strategy\":\"Webhook\",\"webhook\":{"
                            "\"conversionReviewVersions\":[\"v1\"],\"clientConfig\":{\"service\":{"
                            "\"name\":\"n\",\"namespace\":\"ns\",\"port\":0}}}}"),
              "spec.conversion.webhookClientConfig.service.port: Invalid value: 0: port is not "
              "valid: must be between 1 and 65535, inclusive",
              "webhookconfig: invalid port 0");
    create_is(crd(TWO(OBJ), ",\"conversion\":{\"strategy\":\"Webhook\",\"webhook\":{"
                            "\"conversionReviewVersions\":[\"v1\"],\"clientConfig\":{\"service\":{"
                            "\"name\":\"n\",\"namespace\":\"ns\",\"port\":65536}}}}"),
              "spec.conversion.webhookClientConfig.service.port: Invalid value: 65536: port is not "
              "valid: must be between 1 and 65535, inclusive",
              "webhookconfig: invalid port 65536");
    create_is(crd(TWO(OBJ), ",\"conversion\":{\"strategy\":\"Webhook\",\"webhook\":{"
                            "\"conversionReviewVersions\":[\"v1\"],\"clientConfig\":{\"url\":"
                            "\"https://example.com/webhook\",\"service\":{\"name\":\"n\","
                            "\"namespace\":\"ns\"}}}}"),
              "spec.conversion.webhookClientConfig: Required value: exactly one of url or service "
              "is required",
              "webhookconfig: both service and URL provided");
    create_is(crd(TWO(OBJ),
                  ",\"conversion\":{\"strategy\":\"Webhook\",\"webhook\":{"
                  "\"conversionReviewVersions\":[\"v1\"],\"clientConfig\":{\"url\":\"\"}}}"),
              "[spec.conversion.webhookClientConfig.url: Invalid value: \"\": 'https' is the only "
              "allowed URL scheme; desired format: https://host[/path], "
              "spec.conversion.webhookClientConfig.url: Invalid value: \"\": host must be "
              "specified; desired format: https://host[/path]]",
              "webhookconfig: blank URL");
    create_is(crd(TWO(OBJ), ",\"conversion\":{\"strategy\":\"None\",\"webhook\":{\"clientConfig\":"
                            "{\"url\":\"https://example.com/webhook\"}}}"),
              "spec.conversion.webhookClientConfig: Forbidden: should not be set when strategy is "
              "not set to Webhook",
              "webhookconfig_should_not_be_set");
    create_is(crd(TWO(OBJ), ",\"conversion\":{\"strategy\":\"None\",\"webhook\":{"
                            "\"conversionReviewVersions\":[\"v1beta1\"]}}"),
              "spec.conversion.conversionReviewVersions: Forbidden: should not be set when "
              "strategy is not set to Webhook",
              "ConversionReviewVersions_should_not_be_set");
    create_is(
        crd(TWO(OBJ), ",\"conversion\":{\"strategy\":\"Webhook\",\"webhook\":{"
                      "\"conversionReviewVersions\":[\"invalid-version\"],\"clientConfig\":{"
                      "\"url\":\"https://example.com/webhook\"}}}"),
        "spec.conversion.conversionReviewVersions: Invalid value: []string{\"invalid-version\"}: "
        "must include at least one of v1, v1beta1",
        "webhookconfig: invalid ConversionReviewVersion");
    create_is(crd(TWO(OBJ), ",\"conversion\":{\"strategy\":\"Webhook\",\"webhook\":{"
                            "\"conversionReviewVersions\":[\"0v\"],\"clientConfig\":{"
                            "\"url\":\"https://example.com/webhook\"}}}"),
              "[spec.conversion.conversionReviewVersions[0]: Invalid value: \"0v\": " DNS1035 ", "
              "spec.conversion.conversionReviewVersions: Invalid value: []string{\"0v\"}: must "
              "include at least one of v1, v1beta1]",
              "webhookconfig: invalid ConversionReviewVersion version string");
    create_is(crd(TWO(OBJ), ",\"conversion\":{\"strategy\":\"Webhook\",\"webhook\":{"
                            "\"conversionReviewVersions\":[\"v1\",\"v1\"],\"clientConfig\":{"
                            "\"url\":\"http://u:p@example.com/hook?x=1#f\"}}}"),
              "[spec.conversion.webhookClientConfig.url: Invalid value: \"http\": 'https' is the "
              "only allowed URL scheme; desired format: https://host[/path], "
              "spec.conversion.webhookClientConfig.url: Invalid value: \"u:p\": user information "
              "is not permitted in the URL, spec.conversion.webhookClientConfig.url: Invalid "
              "value: \"f\": fragments are not permitted in the URL, "
              "spec.conversion.webhookClientConfig.url: Invalid value: \"x=1\": query parameters "
              "are not permitted in the URL, spec.conversion.conversionReviewVersions[1]: Invalid "
              "value: \"v1\": duplicate version]",
              "webhookconfig: url rules and duplicate review versions");
    create_is(crd(TWO(OBJ), ",\"conversion\":{\"strategy\":\"Webhook\",\"webhook\":{"
                            "\"conversionReviewVersions\":[\"v1\"],\"clientConfig\":{\"service\":{"
                            "\"name\":\"n\",\"path\":\"foo//Bar/\"}}}}"),
              "[spec.conversion.webhookClientConfig.service.name: Required value, "
              "spec.conversion.webhookClientConfig.service.path: Invalid value: \"foo//Bar/\": "
              "must start with a '/', spec.conversion.webhookClientConfig.service.path: Invalid "
              "value: \"foo//Bar/\": segment[1] may not be empty, "
              "spec.conversion.webhookClientConfig.service.path: Invalid value: \"foo//Bar/\": "
              "segment[2]: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
              "characters, '-' or '.', and must start and end with an alphanumeric character "
              "(e.g. 'example.com', regex used for validation is "
              "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')]",
              "webhook service: the missing namespace is reported as name (kube's argument order), "
              "path segments");
    create_is(crd(TWO(OBJ), ",\"conversion\":{\"strategy\":\"Webhook\"}"),
              "[spec.conversion.webhookClientConfig: Required value: required when strategy is "
              "set to Webhook, spec.conversion.conversionReviewVersions: Required value]",
              "webhook strategy without a webhook");
    create_is(crd(TWO(OBJ), ",\"conversion\":{\"strategy\":\"Bogus\"}"),
              "spec.conversion.strategy: Unsupported value: \"Bogus\": supported values: "
              "\"None\", \"Webhook\"",
              "unknown conversion strategy");
}

static void
test_names_and_group(void)
{
    json_t *o = crd(ONE(OBJ), "");

    json_object_set_new(json_object_get(o, "metadata"), "name", json_string("other.group.com"));
    create_is(o,
              "metadata.name: Invalid value: \"other.group.com\": must be "
              "spec.names.plural+\".\"+spec.group",
              "the name is <plural>.<group>");
    {
        gw_field_errors_t errs = {0};
        char *got;
        o = crd(ONE(OBJ), "");
        json_object_set_new(json_object_get(o, "metadata"), "name", json_string("Other"));
        json_object_set_new(json_object_get(o, "metadata"), "labels", json_pack("{s:s}", "a", "%"));
        prepare(o);
        gw_objmeta_validate(o, false, GW_NAME_SUBDOMAIN, &errs);
        gw_crd_definition_validate(o, &errs);
        got = summary(&errs);
        tap_ok(
            strstr(got, "[metadata.name: Invalid value: \"Other\": a lowercase RFC 1123 "
                        "subdomain") == got &&
                strstr(got, "'), metadata.name: Invalid value: \"Other\": must be "
                            "spec.names.plural+\".\"+spec.group, metadata.labels: ") != NULL,
            "the name rule follows ObjectMeta's name errors, before its labels' (kube's nameFn)");
        free(got);
        json_decref(o);
    }
    o = crd(ONE(OBJ), "");
    json_object_set_new(json_object_get(o, "spec"), "group", json_string("group"));
    json_object_set_new(json_object_get(o, "metadata"), "name", json_string("plural.group"));
    create_is(o, "spec.group: Invalid value: \"group\": should be a domain with at least one dot",
              "the group has a dot");
    o = crd(ONE(OBJ), "");
    json_object_set_new(json_object_get(o, "spec"), "scope", json_string("Foo"));
    create_is(o,
              "spec.scope: Unsupported value: \"Foo\": supported values: \"Cluster\", "
              "\"Namespaced\"",
              "bad scope");
    o = crd(ONE(OBJ), "");
    json_object_del(json_object_get(o, "spec"), "scope");
    create_is(o, "spec.scope: Required value", "missing scope");
    o = crd(ONE(OBJ), "");
    json_object_set_new(json_object_get(json_object_get(o, "spec"), "names"), "listKind",
                        json_string("Plural"));
    create_is(
        o, "spec.names.listKind: Invalid value: \"Plural\": kind and listKind may not be the same",
        "kind and listKind differ");
    o = crd(ONE(OBJ), "");
    json_object_set_new(json_object_get(json_object_get(o, "spec"), "names"), "shortNames",
                        json_pack("[s,s]", "ok", "Bad_"));
    json_object_set_new(json_object_get(json_object_get(o, "spec"), "names"), "categories",
                        json_pack("[s]", "all-1"));
    json_object_set_new(json_object_get(json_object_get(o, "spec"), "names"), "kind",
                        json_string("Plu_ral"));
    create_is(o,
              "[spec.names.kind: Invalid value: \"Plu_ral\": may have mixed case, but should "
              "otherwise match: " DNS1035
              ", spec.names.shortNames[1]: Invalid value: \"Bad_\": " DNS1035 "]",
              "names: kind mixed case, shortNames");
    o = doc("{\"metadata\":{\"name\":\".\"},\"spec\":{\"versions\":[]}}");
    create_has(o,
               "spec.group: Required value, spec.scope: Required value, spec.versions: Invalid "
               "value: []apiextensions.CustomResourceDefinitionVersion{}: must have exactly one "
               "version marked as storage version, spec.names.plural: Required value, "
               "spec.names.singular: Required value, spec.names.kind: Required value, "
               "spec.names.listKind: Required value, status.storedVersions: Invalid value: "
               "[]string(nil): must have at least one stored version",
               "an empty spec: kube's required fields in its order");
    create_has(
        doc("{\"metadata\":{\"name\":\"x\"},\"spec\":{}}"),
        "spec.versions: Invalid value: []apiextensions.CustomResourceDefinitionVersion(nil): "
        "must have exactly one version marked as storage version",
        "absent versions are a nil slice");
    o = doc("{\"metadata\":{\"name\":\"plural.k8s.io\"},\"spec\":{\"group\":\"k8s.io\",\"scope\":"
            "\"Cluster\",\"names\":{\"plural\":\"plural\",\"kind\":\"Plural\"},\"versions\":" ONE(
                OBJ) "}}");
    create_is(o,
              "metadata.annotations[api-approved.kubernetes.io]: Required value: protected "
              "groups must have approval annotation \"api-approved.kubernetes.io\", see "
              "https://github.com/kubernetes/enhancements/pull/1111",
              "a protected group needs the approval annotation");
    o = doc("{\"metadata\":{\"name\":\"plural.x.kubernetes.io\",\"annotations\":{"
            "\"api-approved.kubernetes.io\":\"yes\"}},\"spec\":{\"group\":\"x.kubernetes.io\","
            "\"scope\":\"Cluster\",\"names\":{\"plural\":\"plural\",\"kind\":\"Plural\"},"
            "\"versions\":" ONE(OBJ) "}}");
    create_is(o,
              "metadata.annotations[api-approved.kubernetes.io]: Invalid value: \"yes\": "
              "protected groups must have approval annotation \"api-approved.kubernetes.io\" "
              "with either a URL or a reason starting with \"unapproved\", see "
              "https://github.com/kubernetes/enhancements/pull/1111",
              "an approval that is neither a URL nor unapproved");
    o = doc("{\"metadata\":{\"name\":\"plural.k8s.io\",\"annotations\":{"
            "\"api-approved.kubernetes.io\":\"https://github.com/kubernetes/kubernetes/pull/1\"}},"
            "\"spec\":{\"group\":\"k8s.io\",\"scope\":\"Cluster\",\"names\":{\"plural\":\"plural\","
            "\"kind\":\"Plural\"},\"versions\":" ONE(OBJ) "}}");
    create_is(o, "", "an approved protected group");
    o = crd(ONE(OBJ), ",\"preserveUnknownFields\":true");
    create_is(o,
              "spec.preserveUnknownFields: Invalid value: true: cannot set to true, set "
              "x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead",
              "v1 cannot turn preserveUnknownFields on");
}

static void
test_versions(void)
{
    create_has(crd("[" VER("v1", "false", OBJ, "") "]", ""),
               "spec.versions: Invalid value: []apiextensions.CustomResourceDefinitionVersion{"
               "apiextensions.CustomResourceDefinitionVersion{Name:\"v1\", Served:true, "
               "Storage:false, Deprecated:false,",
               "no storage version: kube's Go dump of the versions");
    create_has(crd("[" VER("v1", "false", OBJ, "") "]", ""),
               "must have exactly one version marked as storage version, status.storedVersions: "
               "Invalid value: []string(nil): must have at least one stored version",
               "... and no stored version");
    create_has(crd("[" VER("v1", "true", OBJ, "") "," VER("v1", "true", OBJ, "") "]", ""),
               "must contain unique version names", "version names are unique");
    create_is(crd("[" VER("V1", "true", OBJ, "") "]", ""),
              "[spec.versions[0].name: Invalid value: \"V1\": " DNS1035
              ", spec.version: Invalid value: \"V1\": " DNS1035 "]",
              "a bad first version name is spec.version's too (the internal form)");
    create_is(crd("[" VER("v1", "true", OBJ, ",\"deprecationWarning\":\"old\"") "]", ""),
              "spec.versions[0].deprecationWarning: Invalid value: \"old\": can only be set for "
              "deprecated versions",
              "deprecationWarning needs deprecated");
    create_is(
        crd("[" VER("v1", "true", OBJ, ",\"deprecated\":true,\"deprecationWarning\":\"\"") "]", ""),
        "spec.versions[0].deprecationWarning: Invalid value: \"\": must not be an empty string",
        "deprecationWarning not empty");
    create_is(crd("[{\"name\":\"v1\",\"served\":true,\"storage\":true},"
                  "{\"name\":\"v2\",\"served\":false,\"storage\":false}]",
                  ""),
              "[spec.versions[0].schema.openAPIV3Schema: Required value: schemas are required, "
              "spec.versions[1].schema.openAPIV3Schema: Required value: schemas are required]",
              "every version needs a schema");
    create_is(crd("[" VER("v1", "true", "{\"type\":\"object\",\"properties\":{\"a\":{}}}",
                          "") "," VER("v2", "false", OBJ, "") "]",
                  ""),
              "spec.versions[0].schema.openAPIV3Schema.properties[a].type: Required value: must "
              "not be empty for specified object fields",
              "different schemas are validated per version");
}

static void
test_schemas(void)
{
    create_is(crd(ONE("{\"type\":\"object\",\"properties\":{\"foo\":{\"type\":\"bogus\"}}}"), ""),
              V ".properties[foo].type: Unsupported value: \"bogus\": supported values: \"array\", "
                "\"boolean\", \"integer\", \"number\", \"object\", \"string\"",
              "invalid types disallowed");
    create_is(
        crd(ONE("{\"type\":\"object\",\"properties\":{\"spec\":{\"description\":\"x\"}}}"), ""),
        V ".properties[spec].type: Required value: must not be empty for specified object "
          "fields",
        "every specified field has a type");
    create_is(crd(ONE("{\"properties\":{\"l\":{\"type\":\"array\"},\"m\":{\"type\":\"object\","
                      "\"additionalProperties\":{}}}}"),
                  ""),
              "[" V ".properties[l].items: Required value: must be specified, " V
              ".properties[m].additionalProperties.type: Required value: must not be empty for "
              "specified object fields, " V ".type: Required value: must not be empty at the root]",
              "structural: items specified, types everywhere, errors sorted");
    create_is(crd(ONE("{\"type\":\"string\"}"), ""),
              V ".type: Invalid value: \"string\": must be object at the root",
              "structural: object at the root");
    create_is(crd(ONE("{\"type\":\"object\",\"additionalProperties\":{\"type\":\"string\"}}"), ""),
              V ".additionalProperties: Forbidden: must not be used at the root",
              "structural: no additionalProperties at the root");
    create_is(crd(ONE("{\"type\":\"object\",\"properties\":{\"metadata\":{\"type\":\"object\","
                      "\"properties\":{\"labels\":{\"type\":\"object\"}}}}}"),
                  ""),
              V ".properties[metadata]: Forbidden: must not specify anything other than name and "
                "generateName, but metadata is implicitly specified",
              "structural: metadata only restricts name and generateName");
    create_is(crd(ONE("{\"type\":\"object\",\"properties\":{\"metadata\":{\"type\":\"object\","
                      "\"properties\":{\"name\":{\"type\":\"string\",\"maxLength\":10}}},"
                      "\"kind\":{\"type\":\"integer\"}}}"),
                  ""),
              V ".properties[kind].type: Invalid value: \"integer\": must be string",
              "structural: a restricted name is fine, kind is a string");
    create_is(crd(ONE("{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\"}},"
                      "\"anyOf\":[{\"properties\":{\"b\":{\"type\":\"string\"}}},"
                      "{\"required\":[\"a\"],\"description\":\"d\"}]}"),
                  ""),
              "[" V ".anyOf[0].properties[b].type: Forbidden: must be empty to be structural, " V
              ".anyOf[1].description: Forbidden: must be empty to be structural, " V
              ".properties[b]: Required value: because it is defined in " V
              ".anyOf[0].properties[b]]",
              "structural: value validations say no more than the schema (completeness)");
    create_is(
        crd(ONE("{\"type\":\"object\",\"properties\":{\"p\":{\"x-kubernetes-int-or-string\":"
                "true,\"anyOf\":[{\"type\":\"integer\"},{\"type\":\"string\"}]},\"q\":{"
                "\"x-kubernetes-int-or-string\":true,\"x-kubernetes-preserve-unknown-fields\":"
                "true}}}"),
            ""),
        V ".properties[q].x-kubernetes-preserve-unknown-fields: Invalid value: true: must be "
          "false if x-kubernetes-int-or-string is true",
        "int-or-string: kube's anyOf pattern is allowed, preserve-unknown-fields is not");
    create_is(
        crd(ONE("{\"type\":\"object\",\"properties\":{\"e\":{"
                "\"x-kubernetes-embedded-resource\":true},\"f\":{\"type\":\"object\","
                "\"x-kubernetes-embedded-resource\":true}}}"),
            ""),
        "[" V ".properties[e].properties: Required value: must not be empty if "
        "x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields, " V
        ".properties[e].type: Required value: must be object if "
        "x-kubernetes-embedded-resource is true, " V ".properties[f].properties: Required "
        "value: must not be empty if x-kubernetes-embedded-resource is true without "
        "x-kubernetes-preserve-unknown-fields]",
        "embedded resources are objects with properties");
    create_is(crd(ONE("{\"type\":\"object\",\"properties\":{\"x\":{\"$ref\":\"#/definitions/a\"},"
                      "\"u\":{\"type\":\"array\",\"uniqueItems\":true,\"items\":{\"type\":"
                      "\"string\"}},\"n\":{\"type\":\"null\"}}}"),
                  ""),
              "[" V
              ".properties[n].type: Unsupported value: \"null\": supported values: \"array\", "
              "\"boolean\", \"integer\", \"number\", \"object\", \"string\", " V
              ".properties[n].type: Forbidden: type cannot be set to null, use nullable as an "
              "alternative, " V ".properties[u].uniqueItems: Forbidden: uniqueItems cannot be set "
              "to true since the runtime complexity becomes quadratic, " V
              ".properties[x].$ref: Forbidden: $ref is not supported]",
              "$ref, null and uniqueItems are refused (not structural: no structural errors)");
    create_is(
        crd(ONE("{\"type\":\"object\",\"properties\":{\"m\":{\"type\":\"object\","
                "\"properties\":{\"a\":{\"type\":\"string\"}},\"additionalProperties\":false}}}"),
            ""),
        V ".properties[m].additionalProperties: Forbidden: additionalProperties and "
          "properties are mutual exclusive",
        "additionalProperties and properties");
    create_is(crd(ONE("{\"type\":\"object\",\"properties\":{\"metadata\":{\"type\":\"object\","
                      "\"default\":{}}}}"),
                  ""),
              V ".properties[metadata].default: Forbidden: must not be set in top-level metadata",
              "no defaults in top-level metadata");
    create_is(crd(ONE("{\"type\":\"object\",\"nullable\":true}"), ""),
              "spec.validation.openAPIV3Schema.nullable: Forbidden: nullable cannot be true at "
              "the root",
              "nullable root");
    create_is(crd(ONE("{\"type\":\"object\",\"properties\":{\"p\":{\"type\":\"string\","
                      "\"x-kubernetes-preserve-unknown-fields\":false}}}"),
                  ""),
              V
              ".properties[p].x-kubernetes-preserve-unknown-fields: Invalid value: false: must be "
              "true or undefined",
              "preserve-unknown-fields is true or absent (NewStructural's refusal stays hidden)");
    create_is(crd(ONE("{\"type\":\"object\",\"$schema\":\"x\"}"), ""),
              V ": Invalid value: \"\": OpenAPIV3Schema 'schema' is not supported",
              "NewStructural's own refusal shows when nothing else does");
}

static void
test_extensions(void)
{
    create_is(crd(ONE("{\"type\":\"object\",\"properties\":{\"l\":{\"type\":\"array\","
                      "\"x-kubernetes-list-type\":\"map\",\"items\":{\"type\":\"object\"}}}}"),
                  ""),
              V ".properties[l].x-kubernetes-list-map-keys: Required value: must not be empty if "
                "x-kubernetes-list-type is map",
              "a map list has keys");
    create_is(crd(ONE("{\"type\":\"object\",\"properties\":{\"l\":{\"type\":\"array\","
                      "\"x-kubernetes-list-type\":\"map\",\"x-kubernetes-list-map-keys\":[\"name\","
                      "\"k\"],\"items\":{\"type\":\"object\",\"properties\":{\"k\":{\"type\":"
                      "\"string\"},\"o\":{\"type\":\"object\"}}}}}}"),
                  ""),
              "[" V ".properties[l].x-kubernetes-list-map-keys: Invalid value: []string{\"name\", "
              "\"k\"}: entries must all be names of item properties, " V
              ".properties[l].items.properties[k].default: Required value: this property is in "
              "x-kubernetes-list-map-keys, so it must have a default or be a required property]",
              "map list keys name item properties, required or defaulted");
    create_is(crd(ONE("{\"type\":\"object\",\"properties\":{\"s\":{\"type\":\"array\","
                      "\"x-kubernetes-list-type\":\"set\",\"items\":{\"type\":\"object\","
                      "\"properties\":{\"a\":{\"type\":\"string\"}}}},\"t\":{\"type\":\"string\","
                      "\"x-kubernetes-list-type\":\"bag\"}}}"),
                  ""),
              "[" V ".properties[s].items.x-kubernetes-map-type: Invalid value: null: must be "
              "atomic as item of a list with x-kubernetes-list-type=set, " V
              ".properties[t].type: Invalid value: \"string\": must be array if "
              "x-kubernetes-list-type is specified, " V ".properties[t].x-kubernetes-list-type: "
              "Unsupported value: \"bag\": supported values: \"atomic\", \"set\", \"map\"]",
              "set items are atomic; list types on arrays only");
    create_is(crd(ONE("{\"type\":\"object\",\"properties\":{\"m\":{\"type\":\"string\","
                      "\"x-kubernetes-map-type\":\"loose\"}}}"),
                  ""),
              "[" V ".properties[m].type: Invalid value: \"string\": must be object if "
              "x-kubernetes-map-type is specified, " V ".properties[m].x-kubernetes-map-type: "
              "Unsupported value: \"loose\": supported values: \"atomic\", \"granular\"]",
              "map types");
    create_is(crd(ONE("{\"type\":\"object\",\"x-kubernetes-validations\":[{\"rule\":\" \"},"
                      "{\"rule\":\"self.a\",\"message\":\"a\\nb\"},{\"rule\":\"x\",\"reason\":"
                      "\"Nope\",\"messageExpression\":\" \",\"fieldPath\":\".missing\"},"
                      "{\"rule\":\"a\\n&& b\"}],\"properties\":{\"a\":{\"type\":\"string\"}}}"),
                  ""),
              "[" V ".x-kubernetes-validations[0].rule: Required value: rule is not specified, " V
              ".x-kubernetes-validations[1].message: Invalid value: \"a\\nb\": message must not "
              "contain line breaks, " V ".x-kubernetes-validations[2].messageExpression: Required "
              "value: messageExpression must be non-empty if specified, " V
              ".x-kubernetes-validations[2].reason: Unsupported value: \"Nope\": supported values: "
              "\"FieldValueDuplicate\", \"FieldValueForbidden\", \"FieldValueInvalid\", "
              "\"FieldValueRequired\", " V ".x-kubernetes-validations[2].fieldPath: Invalid value: "
              "\".missing\": fieldPath must be a valid path, " V
              ".x-kubernetes-validations[3].message: Required value: message must be specified if "
              "rule contains line breaks]",
              "x-kubernetes-validations: the rules' static shape");
    create_is(crd(ONE("{\"type\":\"object\",\"x-kubernetes-validations\":[{\"rule\":\"true\","
                      "\"fieldPath\":\".a['b']\"}],\"properties\":{\"a\":{\"type\":\"object\","
                      "\"additionalProperties\":{\"type\":\"string\"}}}}"),
                  ""),
              "", "a fieldPath through a map's key");
}

static void
test_subresources_columns_fields(void)
{
    create_is(crd("[" VER("v1", "true", OBJ,
                          ",\"subresources\":{\"status\":{},\"scale\":{\"specReplicasPath\":"
                          "\"spec.replicas\",\"statusReplicasPath\":\".spec.replicas\","
                          "\"labelSelectorPath\":\".selector\"}}") "]",
                  ""),
              "[spec.subresources.scale.specReplicasPath: Invalid value: \"spec.replicas\": must "
              "be a simple json path starting with ., spec.subresources.scale.statusReplicasPath: "
              "Invalid value: \".spec.replicas\": should be a json path under .status, "
              "spec.subresources.scale.labelSelectorPath: Invalid value: \".selector\": should be "
              "a json path under either .spec or .status]",
              "scale paths");
    create_has(crd("[" VER("v1", "true", "{\"type\":\"object\",\"minProperties\":1}",
                           ",\"subresources\":{\"status\":{}}") "]",
                   ""),
               "spec.validation.openAPIV3Schema: Invalid value: "
               "{\"type\":\"object\",\"minProperties\":1}: only [Description Type Format Title "
               "Maximum ExclusiveMaximum Minimum "
               "ExclusiveMinimum MaxLength MinLength Pattern MaxItems MinItems UniqueItems "
               "MultipleOf Required Items Properties ExternalDocs Example XPreserveUnknownFields "
               "XValidations] fields are allowed at the root of the schema if the status "
               "subresource is enabled",
               "a status subresource restricts the root");
    create_is(
        crd("[" VER("v1", "true", OBJ,
                    ",\"additionalPrinterColumns\":[{\"name\":\"\",\"type\":\"bool\","
                    "\"format\":\"short\",\"jsonPath\":\"spec.x\"},{\"name\":\"a\","
                    "\"jsonPath\":\".spec.x\"}]") "]",
            ""),
        "[spec.additionalPrinterColumns[0].name: Required value, "
        "spec.additionalPrinterColumns[0].type: Invalid value: \"bool\": must be one of "
        "boolean,date,integer,number,string, spec.additionalPrinterColumns[0].format: Invalid "
        "value: \"short\": must be one of byte,date,date-time,double,float,int32,int64,password, "
        "spec.additionalPrinterColumns[0].JSONPath: Invalid value: \"spec.x\": must be a "
        "simple json path starting with ., spec.additionalPrinterColumns[1].type: Required "
        "value: must be one of boolean,date,integer,number,string]",
        "printer columns");
    create_is(
        crd("[" VER("v1", "true",
                    "{\"type\":\"object\",\"properties\":{\"spec\":{\"type\":\"object\","
                    "\"properties\":{\"s\":{\"type\":\"string\"},\"o\":{\"type\":\"object\"}}}}}",
                    ",\"selectableFields\":[{\"jsonPath\":\".spec.s\"},{\"jsonPath\":"
                    "\".spec.missing\"},{\"jsonPath\":\".spec.o\"},{\"jsonPath\":\".spec.s\"},"
                    "{\"jsonPath\":\"spec.s\"},{\"jsonPath\":\".spec['s']\"}]") "]",
            ""),
        "[spec.selectableFields[1].jsonPath: Invalid value: \".spec.missing\": is an invalid "
        "path: does not refer to a valid field, spec.selectableFields[2].jsonPath: Invalid "
        "value: \".spec.o\": must point to a field of type string, boolean or integer. Enum "
        "string fields and strings with formats are allowed., "
        "spec.selectableFields[3].jsonPath: Duplicate value: \".spec.s\", "
        "spec.selectableFields[4].jsonPath: Invalid value: \"spec.s\": is an invalid path: "
        "expected [ or . but got: spec, spec.selectableFields[5].jsonPath: Invalid value: "
        "\".spec['s']\": is an invalid path: array notation is not allowed]",
        "selectable fields");
    create_is(
        crd("[" VER("v1", "true", OBJ, ",\"selectableFields\":[{\"jsonPath\":\".a\"}]") "," VER(
                "v2", "false", OBJ, "") "]",
            ""),
        "spec.versions[0].selectableFields: Invalid value: \"\": selectableFields may only be "
        "set when version.schema.openAPIV3Schema is not included",
        "per-version selectable fields with a shared schema (kube's internal form)");
}

/* ---- updates and status ------------------------------------------------------------------- */

static json_t *
stored(const char *versions, const char *status)
{
    json_t *o = crd(versions, "");

    gw_defaults_apply("apiextensions.k8s.io", "v1", "CustomResourceDefinition", o);
    json_object_set_new(o, "status", doc(status));
    return o;
}

#define ESTABLISHED                                                                                \
    "{\"storedVersions\":[\"version\"],\"conditions\":[{\"type\":\"Established\",\"status\":"      \
    "\"True\"}]}"

static void
test_update(void)
{
    json_t *o = stored(ONE(OBJ), ESTABLISHED), *n = json_deep_copy(o);

    json_object_set_new(json_object_get(n, "spec"), "group", json_string("other.com"));
    json_object_set_new(json_object_get(json_object_get(n, "spec"), "names"), "plural",
                        json_string("plurals"));
    json_object_set_new(json_object_get(n, "spec"), "scope", json_string("Namespaced"));
    json_object_set_new(json_object_get(json_object_get(n, "spec"), "names"), "kind",
                        json_string("Other"));
    update_is(n, o,
              "[spec.scope: Invalid value: \"Namespaced\": field is immutable, spec.names.kind: "
              "Invalid value: \"Other\": field is immutable, spec.group: Invalid value: "
              "\"other.com\": field is immutable, spec.names.plural: Invalid value: \"plurals\": "
              "field is immutable]",
              "update: group and plural never change, scope and kind once established");
    o = stored(ONE(OBJ), "{\"storedVersions\":[\"version\"]}");
    n = json_deep_copy(o);
    json_object_set_new(json_object_get(n, "spec"), "scope", json_string("Namespaced"));
    update_is(n, o, "", "update: scope may change before the CRD is established");
    o = stored(ONE(OBJ), "{\"storedVersions\":[\"old\",\"version\"]}");
    update_is(json_deep_copy(o), o,
              "status.storedVersions[0]: Invalid value: \"old\": missing from spec.versions; old "
              "was previously a storage version, and must remain in spec.versions until a storage "
              "migration ensures no data remains persisted in old and removes old from "
              "status.storedVersions",
              "update: a stored version stays in spec.versions");
    o = stored("[" VER("version", "false", OBJ, "") "," VER("v2", "true", OBJ, "") "]",
               "{\"storedVersions\":[\"version\"]}");
    update_is(json_deep_copy(o), o,
              "status.storedVersions: Invalid value: []string{\"version\"}: must have the storage "
              "version v2",
              "update: the storage version is stored (the strategy adds it first)");
    o = stored(ONE("{\"type\":\"object\",\"properties\":{\"a\":{}}}"),
               "{\"storedVersions\":[\"version\"]}");
    json_object_set_new(json_object_get(o, "spec"), "preserveUnknownFields", json_true());
    n = json_deep_copy(o);
    json_object_set_new(json_object_get(json_object_get(n, "spec"), "names"), "shortNames",
                        json_pack("[s]", "pl"));
    update_is(n, o, "",
              "update: a CRD that preserves unknown fields keeps its schema that was not "
              "structural");
    o = stored(ONE(OBJ), "{\"storedVersions\":[\"version\"]}");
    n = json_deep_copy(o);
    json_array_set_new(
        json_object_get(json_object_get(n, "spec"), "versions"), 0,
        doc(VER("version", "true", "{\"type\":\"object\",\"properties\":{\"a\":{}}}", "")));
    update_is(n, o,
              V ".properties[a].type: Required value: must not be empty for specified object "
                "fields",
              "update: a structural schema stays structural");
}

static void
test_status_and_strategy(void)
{
    json_t *o = stored(ONE(OBJ), "{\"storedVersions\":[\"version\"],\"acceptedNames\":{"
                                 "\"plural\":\"Bad\",\"kind\":\"K\",\"listKind\":\"K\"}}");
    gw_field_errors_t errs = {0};
    char *got;

    gw_crd_definition_validate_status(o, &errs);
    got = summary(&errs);
    tap_is_str(got,
               "[status.acceptedNames.plural: Invalid value: \"Bad\": " DNS1035
               ", status.acceptedNames.listKind: Invalid value: \"K\": kind and listKind may not "
               "be the same]",
               "status: acceptedNames are names");
    free(got);
    json_decref(o);

    o = crd("[" VER("v1", "false", OBJ, "") "," VER("v2", "true", OBJ, "") "]", "");
    prepare(o);
    is_json(json_object_get(o, "status"), "{\"storedVersions\":[\"v2\"]}",
            "create: the storage version is stored");
    json_decref(o);
    o = crd(ONE(OBJ), "");
    json_object_set_new(o, "status", doc("{\"storedVersions\":[\"v0\"]}"));
    gw_strategy_crd.prepare_update_status(NULL, o, NULL);
    is_json(json_object_get(json_object_get(o, "status"), "storedVersions"), "[\"v0\",\"version\"]",
            "update: the storage version joins the stored ones");
    gw_strategy_crd.mark_on_first_delete(o);
    tap_ok(json_is_string(json_object_get(json_object_get(o, "metadata"), "deletionTimestamp")),
           "first delete: deletionTimestamp");
    is_json(json_object_get(json_object_get(o, "metadata"), "finalizers"),
            "[\"customresourcecleanup.apiextensions.k8s.io\"]", "first delete: the finalizer");
    json_t *c = json_array_get(json_object_get(json_object_get(o, "status"), "conditions"), 0);
    tap_ok(json_is_string(json_object_get(c, "lastTransitionTime")), "... a transition time");
    json_object_del(c, "lastTransitionTime");
    is_json(c,
            "{\"message\":\"CustomResourceDefinition marked for deletion; CustomResource "
            "deletion will begin soon\",\"reason\":\"InstanceDeletionPending\",\"status\":"
            "\"True\",\"type\":\"Terminating\"}",
            "first delete: the Terminating condition");
    json_decref(o);
    tap_ok(gw_strategy_lookup("apiextensions.k8s.io", "customresourcedefinitions") ==
                   &gw_strategy_crd &&
               gw_strategy_crd.conditional_update,
           "CRDs have their strategy, with conditional updates");
}

static void
test_defaults(void)
{
    json_t *o = doc("{\"spec\":{\"names\":{\"kind\":\"FooBar\"},\"versions\":[{\"name\":\"v1\","
                    "\"storage\":true}],\"conversion\":{\"strategy\":\"Webhook\",\"webhook\":{"
                    "\"clientConfig\":{\"service\":{\"name\":\"s\",\"namespace\":\"n\"}}}}}}");
    json_t *p =
        doc("{\"spec\":{\"names\":{\"kind\":\"K\",\"singular\":\"s\",\"listKind\":\"L\"}}}");

    gw_defaults_apply("apiextensions.k8s.io", "v1", "CustomResourceDefinition", o);
    is_json(o,
            "{\"spec\":{\"conversion\":{\"strategy\":\"Webhook\",\"webhook\":{\"clientConfig\":"
            "{\"service\":{\"name\":\"s\",\"namespace\":\"n\",\"port\":443}}}},\"names\":{"
            "\"kind\":\"FooBar\",\"listKind\":\"FooBarList\",\"singular\":\"foobar\"},"
            "\"versions\":[{\"name\":\"v1\",\"storage\":true}]},\"status\":{\"storedVersions\":"
            "[\"v1\"]}}",
            "defaults: singular, listKind, service port, storedVersions");
    gw_defaults_apply("apiextensions.k8s.io", "v1", "CustomResourceDefinition", p);
    is_json(json_object_get(p, "spec"),
            "{\"conversion\":{\"strategy\":\"None\"},\"names\":{\"kind\":\"K\",\"listKind\":"
            "\"L\",\"singular\":\"s\"}}",
            "defaults: conversion None; set names stay");
    json_decref(o);
    json_decref(p);
}

int
main(void)
{
    test_conversion();
    test_names_and_group();
    test_versions();
    test_schemas();
    test_extensions();
    test_subresources_columns_fields();
    test_update();
    test_status_and_strategy();
    test_defaults();
    return tap_done();
}
