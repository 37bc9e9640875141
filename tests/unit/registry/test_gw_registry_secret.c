/* Unit tests for the Secret and ConfigMap rules (gateway/registry/gw_registry_secret.c,
 * gw_registry_configmap.c) through the strategy over the built-in catalog: ValidateSecret's
 * rules per type, ValidateSecretUpdate's type and immutable rules, ValidateConfigMap and
 * ValidateConfigMapUpdate; each as kube's aggregate message, so the order of the errors counts. */
#include <stdlib.h>
#include <string.h>

#include "gw_catalog.h"
#include "gw_registry_int.h"
#include "tap.h"

static const gw_catalog_t *cat;

#define KEY_MSG                                                                                    \
    "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. "           \
    "'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')"
#define IMMUTABLE "Forbidden: field is immutable when `immutable` is set"
#define REDACTED "Invalid value: \"<secret contents redacted>\": "

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

static const gw_resource_t *
core(const char *name)
{
    return gw_catalog_find(cat, "", "v1", name);
}

/* The kind's validation of `text` (over `old_text` when not NULL) as kube's aggregate message,
 * "" when valid. */
static void
check(const char *resource, const char *text, const char *old_text, const char *want,
      const char *name)
{
    json_t *obj = doc(text), *old = old_text ? doc(old_text) : NULL;
    gw_field_errors_t errs = {0};
    char *got;

    gw_registry__validate_kind(core(resource), obj, old, &errs);
    got = gw_ferr_count(&errs) ? gw_ferr_summary(&errs) : strdup("");
    tap_is_str(got, want, name);
    free(got);
    gw_ferr_clear(&errs);
    json_decref(obj);
    json_decref(old);
}

static void
secret(const char *text, const char *want, const char *name)
{
    check("secrets", text, NULL, want, name);
}

static void
test_types(void)
{
    secret("{\"type\":\"Opaque\"}", "", "Opaque: no data needed");
    secret("{\"type\":\"\"}", "", "an empty type: no rules");
    secret("{\"type\":\"example.com/my Type!\"}", "", "a custom type: any name, no rules");
    secret("{\"type\":\"bootstrap.kubernetes.io/token\"}", "", "bootstrap tokens: no rules here");

    secret("{\"type\":\"kubernetes.io/service-account-token\"}",
           "metadata.annotations[kubernetes.io/service-account.name]: Required value",
           "service-account-token: the account annotation is required");
    secret("{\"metadata\":{\"annotations\":{\"kubernetes.io/service-account.name\":\"\"}},"
           "\"type\":\"kubernetes.io/service-account-token\"}",
           "metadata.annotations[kubernetes.io/service-account.name]: Required value",
           "... and may not be empty");
    secret("{\"metadata\":{\"annotations\":{\"kubernetes.io/service-account.name\":\"sa\"}},"
           "\"type\":\"kubernetes.io/service-account-token\"}",
           "", "... and with it, no token is needed (the controller adds it)");

    secret("{\"type\":\"kubernetes.io/dockercfg\",\"data\":{\".dockerconfigjson\":\"e30=\"}}",
           "data[.dockercfg]: Required value", "dockercfg: .dockercfg is required");
    secret("{\"type\":\"kubernetes.io/dockercfg\",\"data\":{\".dockercfg\":\"ewo=\"}}",
           "data[.dockercfg]: " REDACTED "unexpected end of JSON input",
           "dockercfg: the decoded value must be JSON (Go's message, the value redacted)");
    secret("{\"type\":\"kubernetes.io/dockercfg\",\"data\":{\".dockercfg\":\"W10=\"}}",
           "data[.dockercfg]: " REDACTED
           "json: cannot unmarshal array into Go value of type map[string]interface {}",
           "dockercfg: a JSON array is not an object");
    secret("{\"type\":\"kubernetes.io/dockercfg\",\"data\":{\".dockercfg\":\"\"}}",
           "data[.dockercfg]: " REDACTED "unexpected end of JSON input",
           "dockercfg: an empty value is not JSON");
    /* {"r.io":{"auth":"eDp5"}} */
    secret("{\"type\":\"kubernetes.io/dockercfg\",\"data\":{\".dockercfg\":"
           "\"eyJyLmlvIjp7ImF1dGgiOiJlRHA1In19\"}}",
           "", "dockercfg: a JSON object passes");
    secret("{\"type\":\"kubernetes.io/dockercfg\",\"data\":{\".dockercfg\":\"bnVsbA==\"}}", "",
           "dockercfg: null passes (Go leaves the map nil)");

    secret("{\"type\":\"kubernetes.io/dockerconfigjson\",\"data\":{\".dockercfg\":\"e30=\"}}",
           "data[.dockerconfigjson]: Required value",
           "dockerconfigjson: .dockerconfigjson is required");
    /* {'auths':{}} */
    secret("{\"type\":\"kubernetes.io/dockerconfigjson\",\"data\":{\".dockerconfigjson\":"
           "\"eydhdXRocyc6e319\"}}",
           "data[.dockerconfigjson]: " REDACTED
           "invalid character '\\'' looking for beginning of object key string",
           "dockerconfigjson: single quotes are not JSON");
    /* {"auths":{}} */
    secret("{\"type\":\"kubernetes.io/dockerconfigjson\",\"data\":{\".dockerconfigjson\":"
           "\"eyJhdXRocyI6e319\"}}",
           "", "dockerconfigjson: a JSON object passes");

    secret("{\"type\":\"kubernetes.io/basic-auth\",\"data\":{\"user\":\"eA==\"}}",
           "[data[username]: Required value, data[password]: Required value]",
           "basic-auth: neither username nor password: both reported");
    secret("{\"type\":\"kubernetes.io/basic-auth\",\"data\":{\"password\":\"\"}}", "",
           "basic-auth: an empty password alone is enough");
    secret("{\"type\":\"kubernetes.io/basic-auth\",\"data\":{\"username\":\"eA==\"}}", "",
           "basic-auth: a username alone is enough");

    secret("{\"type\":\"kubernetes.io/ssh-auth\"}", "data[ssh-privatekey]: Required value",
           "ssh-auth: ssh-privatekey is required");
    secret("{\"type\":\"kubernetes.io/ssh-auth\",\"data\":{\"ssh-privatekey\":\"\"}}",
           "data[ssh-privatekey]: Required value", "ssh-auth: ... and may not be empty");
    secret("{\"type\":\"kubernetes.io/ssh-auth\",\"data\":{\"ssh-privatekey\":\"eA==\"}}", "",
           "ssh-auth: a key passes");

    secret("{\"type\":\"kubernetes.io/tls\"}",
           "[data[tls.crt]: Required value, data[tls.key]: Required value]",
           "tls: tls.crt and tls.key are required, in that order");
    secret("{\"type\":\"kubernetes.io/tls\",\"data\":{\"tls.crt\":\"\"}}",
           "data[tls.key]: Required value", "tls: tls.key missing");
    secret("{\"type\":\"kubernetes.io/tls\",\"data\":{\"tls.crt\":\"\",\"tls.key\":\"\"}}", "",
           "tls: empty values are present");
}

static void
test_order(void)
{
    char *big = malloc(1500000), *text;

    secret("{\"type\":\"kubernetes.io/tls\",\"data\":{\"bad key\":\"\"}}",
           "[data[bad key]: Invalid value: \"bad key\": " KEY_MSG
           ", data[tls.crt]: Required value, data[tls.key]: Required value]",
           "the data keys come before the type's rules");

    /* 1048577 bytes as base64 (1398104 characters, padded) */
    memset(big, 'A', 1398104);
    memcpy(big + 1398100, "AAA=", 4);
    big[1398104] = '\0';
    text = malloc(1500000);
    snprintf(text, 1500000, "{\"type\":\"kubernetes.io/ssh-auth\",\"data\":{\"k\":\"%s\"}}", big);
    secret(text,
           "[data: Too long: may not be more than 1048576 bytes, data[ssh-privatekey]: Required "
           "value]",
           "the size comes after the keys, before the type's rules");
    memcpy(big + 1398100, "AAAA", 4);
    big[1398100] = '\0';
    snprintf(text, 1500000, "{\"data\":{\"k\":\"%s\"}}", big);
    secret(text, "", "1048575 bytes pass");
    free(big);
    free(text);
}

static void
update(const char *text, const char *old, const char *want, const char *name)
{
    check("secrets", text, old, want, name);
}

static void
test_update(void)
{
    const char *tls = "{\"type\":\"kubernetes.io/tls\",\"data\":{\"tls.crt\":\"YQ==\","
                      "\"tls.key\":\"Yg==\"}}";
    const char *frozen = "{\"type\":\"Opaque\",\"immutable\":true,\"data\":{\"a\":\"YWI=\"}}";

    update("{\"type\":\"Opaque\",\"data\":{\"tls.crt\":\"YQ==\",\"tls.key\":\"Yg==\"}}", tls,
           "type: Invalid value: \"Opaque\": field is immutable", "type may not change");
    update("{\"type\":\"kubernetes.io/tls\"}", "{\"type\":\"Opaque\"}",
           "[type: Invalid value: \"kubernetes.io/tls\": field is immutable, data[tls.crt]: "
           "Required value, data[tls.key]: Required value]",
           "... and the new type's rules follow");
    update(tls, tls, "", "an unchanged tls secret passes");

    update("{\"type\":\"Opaque\",\"data\":{\"a\":\"YWI=\"}}", frozen, "immutable: " IMMUTABLE,
           "immutable may not be unset");
    update("{\"type\":\"Opaque\",\"immutable\":false,\"data\":{\"a\":\"YWI=\"}}", frozen,
           "immutable: " IMMUTABLE, "... nor set to false");
    update("{\"type\":\"Opaque\",\"immutable\":true,\"data\":{\"a\":\"YWM=\"}}", frozen,
           "data: " IMMUTABLE, "the data of an immutable secret may not change");
    update("{\"type\":\"Opaque\",\"immutable\":true,\"data\":{\"a\":\"YWI=\",\"b\":\"\"}}", frozen,
           "data: " IMMUTABLE, "... nor gain a key");
    update("{\"type\":\"Opaque\",\"immutable\":true}", frozen, "data: " IMMUTABLE,
           "... nor lose them all");
    update("{\"type\":\"Opaque\",\"immutable\":true,\"data\":{\"a\":\"YW\\nI=\"}}", frozen, "",
           "the same bytes in other base64 lines are the same data");
    update("{\"type\":\"Opaque\",\"immutable\":true,\"data\":{}}",
           "{\"type\":\"Opaque\",\"immutable\":true}", "", "no data and empty data are the same");
    update("{\"type\":\"Opaque\",\"immutable\":true,\"metadata\":{\"labels\":{\"a\":\"b\"}},"
           "\"data\":{\"a\":\"YWI=\"}}",
           frozen, "", "an immutable secret's metadata may change");
    update("{\"type\":\"Opaque\",\"immutable\":true,\"data\":{\"z\":\"\"}}",
           "{\"type\":\"Opaque\",\"data\":{\"a\":\"YWI=\"}}", "",
           "data may change in the update that sets immutable");
    update("{\"type\":\"kubernetes.io/ssh-auth\",\"data\":{\"bad key\":\"\"}}", frozen,
           "[type: Invalid value: \"kubernetes.io/ssh-auth\": field is immutable, "
           "immutable: " IMMUTABLE ", data: " IMMUTABLE
           ", data[bad key]: Invalid value: \"bad key\": " KEY_MSG
           ", data[ssh-privatekey]: Required value]",
           "kube's order: type, immutable, data, then ValidateSecret's keys and type rules");
}

/* stringData is merged before validation: a change through it is a change of data. */
static void
test_update_string_data(void)
{
    const gw_resource_t *s = core("secrets");
    json_t *old = doc("{\"type\":\"Opaque\",\"immutable\":true,\"data\":{\"a\":\"YWI=\"}}");
    json_t *obj = doc("{\"type\":\"Opaque\",\"immutable\":true,\"data\":{\"a\":\"YWI=\"},"
                      "\"stringData\":{\"a\":\"ab\"}}");
    gw_field_errors_t errs = {0};

    gw_registry__prepare_update(s, obj, old);
    gw_registry__validate_kind(s, obj, old, &errs);
    tap_is_int(gw_ferr_count(&errs), 0, "stringData giving the same bytes changes nothing");
    json_decref(obj);
    obj = doc("{\"type\":\"Opaque\",\"immutable\":true,\"stringData\":{\"a\":\"abc\"}}");
    gw_registry__prepare_update(s, obj, old);
    gw_registry__validate_kind(s, obj, old, &errs);
    tap_ok(gw_ferr_count(&errs) == 1 &&
               strcmp(json_string_value(json_object_get(json_array_get(errs.causes, 0), "field")),
                      "data") == 0,
           "stringData changing a value is a change of data");
    gw_ferr_clear(&errs);
    json_decref(obj);
    json_decref(old);
}

static void
configmap(const char *text, const char *old, const char *want, const char *name)
{
    check("configmaps", text, old, want, name);
}

static void
test_configmap(void)
{
    const char *frozen =
        "{\"immutable\":true,\"data\":{\"a\":\"x\"},\"binaryData\":{\"b\":\"eA==\"}}";
    char *text = malloc(1100000), *p;

    configmap("{\"data\":{\"a\":\"x\"},\"binaryData\":{\"b\":\"eA==\"}}", NULL, "",
              "a valid ConfigMap");
    configmap("{\"data\":{\"a b\":\"\",\"dup\":\"\"},\"binaryData\":{\"dup\":\"\",\"..\":\"\"}}",
              NULL,
              "[data[a b]: Invalid value: \"a b\": " KEY_MSG
              ", data[dup]: Invalid value: \"dup\": duplicate of key present in binaryData, "
              "binaryData[..]: Invalid value: \"..\": must not be '..']",
              "data keys, a key in both maps, then binaryData keys");

    /* 1048570 bytes of data and 8 bytes of binaryData */
    p = text + sprintf(text, "{\"data\":{\"k\":\"");
    memset(p, 'v', 1048570);
    strcpy(p + 1048570, "\"},\"binaryData\":{\"b\":\"MTIzNDU2Nzg=\"}}");
    configmap(text, NULL, "[]: Too long: may not be more than 1048576 bytes",
              "data and binaryData count together; the error names the object (\"[]\")");
    free(text);

    configmap("{\"data\":{\"a\":\"x\"},\"binaryData\":{\"b\":\"eA==\"}}", frozen,
              "immutable: " IMMUTABLE, "immutable may not be unset");
    configmap("{\"immutable\":true,\"data\":{\"a\":\"y\"},\"binaryData\":{\"b\":\"eQ==\"}}", frozen,
              "[data: " IMMUTABLE ", binaryData: " IMMUTABLE "]",
              "data and binaryData of an immutable ConfigMap may not change");
    configmap("{\"immutable\":false,\"binaryData\":{\"b\":\"eA==\",\"c c\":\"\"}}", frozen,
              "[immutable: " IMMUTABLE ", data: " IMMUTABLE ", binaryData: " IMMUTABLE
              ", binaryData[c c]: Invalid value: \"c c\": " KEY_MSG "]",
              "kube's order: immutable, data, binaryData, then ValidateConfigMap");
    configmap(frozen, frozen, "", "an unchanged immutable ConfigMap passes");
    configmap("{\"immutable\":true,\"data\":{}}", "{\"immutable\":true}", "",
              "empty and absent data are the same");
    configmap("{\"data\":{\"a\":\"changed\"}}", "{\"immutable\":false,\"data\":{\"a\":\"x\"}}", "",
              "a mutable ConfigMap changes freely");
}

int
main(void)
{
    cat = gw_catalog_builtin();
    test_types();
    test_order();
    test_update();
    test_update_string_data();
    test_configmap();
    return tap_done();
}
