/* /openapi/v2 as gnostic's openapi.v2.Document: the bytes are walked with a wire-format reader
 * of this file's own and checked against OpenAPIv2.proto's field numbers. */
#include "gw_openapi_proto.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

#include <jansson.h>

#include "gw_openapi.h"
#include "gw_yaml.h"
#include "tap.h"

#define DEPLOYMENT "io.k8s.api.apps.v1.Deployment"
#define DEPLOYMENT_PATH "/apis/apps/v1/namespaces/{namespace}/deployments/{name}"

/* ---- a wire-format reader ------------------------------------------------------------------ */

typedef struct {
    const uint8_t *p;
    size_t n;
} msg_t;

typedef struct {
    int number, wire;
    uint64_t u;
    msg_t bytes;
} field_t;

static bool
read_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
    *v = 0;
    for (int shift = 0; shift < 64 && *p < end; shift += 7) {
        uint8_t b = *(*p)++;
        *v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            return true;
    }
    return false;
}

/* The field at *p, advancing past it; false at the end or on malformed bytes (*bad set). */
static bool
next(const uint8_t **p, const uint8_t *end, field_t *f, bool *bad)
{
    uint64_t key, len;

    if (*p >= end)
        return false;
    *bad = true;
    if (!read_varint(p, end, &key) || (key >> 3) == 0)
        return false;
    f->number = (int)(key >> 3);
    f->wire = (int)(key & 7);
    if (f->wire == 0) {
        if (!read_varint(p, end, &f->u))
            return false;
    } else if (f->wire == 1) {
        if (end - *p < 8)
            return false;
        f->u = 0;
        for (int i = 0; i < 8; i++)
            f->u |= (uint64_t)(*p)[i] << (8 * i);
        *p += 8;
    } else if (f->wire == 2) {
        if (!read_varint(p, end, &len) || len > (uint64_t)(end - *p))
            return false;
        f->bytes = (msg_t){*p, (size_t)len};
        *p += len;
    } else {
        return false;
    }
    *bad = false;
    return true;
}

/* Whether m parses to its end as a sequence of fields. */
static bool
well_formed(msg_t m)
{
    const uint8_t *p = m.p;
    field_t f;
    bool bad = false;

    while (next(&p, m.p + m.n, &f, &bad))
        ;
    return !bad;
}

/* The index-th occurrence of field `number` in m. */
static bool
get(msg_t m, int number, size_t index, field_t *out)
{
    const uint8_t *p = m.p;
    bool bad;

    while (next(&p, m.p + m.n, out, &bad)) {
        if (out->number == number && index-- == 0)
            return true;
    }
    return false;
}

static size_t
count(msg_t m, int number)
{
    field_t f;
    size_t n = 0;

    while (get(m, number, n, &f))
        n++;
    return n;
}

static bool
is_bytes(field_t f, const char *s)
{
    return f.wire == 2 && f.bytes.n == strlen(s) && memcmp(f.bytes.p, s, f.bytes.n) == 0;
}

/* A length-delimited field's bytes as a message (empty when absent). */
static msg_t
sub(msg_t m, int number)
{
    field_t f;

    return get(m, number, 0, &f) && f.wire == 2 ? f.bytes : (msg_t){NULL, 0};
}

static bool
has(msg_t m, int number)
{
    field_t f;

    return get(m, number, 0, &f);
}

/* Named* pairs {name = 1; value = 2} repeated at `number`: the value of the one named name. */
static bool
named(msg_t m, int number, const char *name, msg_t *value)
{
    field_t pair, f;

    for (size_t i = 0; get(m, number, i, &pair); i++) {
        if (pair.wire == 2 && get(pair.bytes, 1, 0, &f) && is_bytes(f, name)) {
            *value = sub(pair.bytes, 2);
            return true;
        }
    }
    return false;
}

/* A string field as a NUL-terminated copy in buf (empty when absent). */
static const char *
str(msg_t m, int number, char *buf, size_t cap)
{
    field_t f;
    size_t n;

    buf[0] = '\0';
    if (get(m, number, 0, &f) && f.wire == 2) {
        n = f.bytes.n < cap - 1 ? f.bytes.n : cap - 1;
        memcpy(buf, f.bytes.p, n);
        buf[n] = '\0';
    }
    return buf;
}

/* Whether repeated string field `number` of m holds s. */
static bool
holds(msg_t m, int number, const char *s)
{
    field_t f;

    for (size_t i = 0; get(m, number, i, &f); i++) {
        if (is_bytes(f, s))
            return true;
    }
    return false;
}

/* Field numbers of OpenAPIv2.proto used below. */
enum {
    DOC_SWAGGER = 1,
    DOC_INFO = 2,
    DOC_PATHS = 8,
    DOC_DEFINITIONS = 9,
    DOC_SECURITY = 12,
    DOC_SECURITY_DEFINITIONS = 13,
    DOC_VENDOR = 16,
    INFO_TITLE = 1,
    INFO_VERSION = 2,
    PATHS_VENDOR = 1,
    PATHS_PATH = 2,
    ITEM_GET = 2,
    ITEM_PATCH = 8,
    ITEM_PARAMETERS = 9,
    OP_OPERATION_ID = 5,
    OP_PARAMETERS = 8,
    OP_RESPONSES = 9,
    OP_VENDOR = 13,
    PARAMS_ITEM_PARAMETER = 1,
    PARAMS_ITEM_REF = 2,
    PARAM_BODY = 1,
    PARAM_NON_BODY = 2,
    NON_BODY_HEADER = 1,
    NON_BODY_QUERY = 3,
    NON_BODY_PATH = 4,
    RESPONSES_CODE = 1,
    RESPONSES_VENDOR = 2,
    RESPONSE_VALUE_RESPONSE = 1,
    RESPONSE_VALUE_REF = 2,
    RESPONSE_SCHEMA = 2,
    SCHEMA_ITEM_SCHEMA = 1,
    SCHEMA_REF = 1,
    SCHEMA_FORMAT = 2,
    SCHEMA_DEFAULT = 5,
    SCHEMA_MAXIMUM = 7,
    SCHEMA_MINIMUM = 9,
    SCHEMA_REQUIRED = 19,
    SCHEMA_ENUM = 20,
    SCHEMA_ADDITIONAL = 21,
    SCHEMA_TYPE = 22,
    SCHEMA_ITEMS = 23,
    SCHEMA_PROPERTIES = 25,
    SCHEMA_VENDOR = 31,
    ANY_YAML = 2,
    NAMED = 1
};

/* The YAML text of vendor extension `name` among the NamedAny pairs at `number`. */
static const char *
extension(msg_t m, int number, const char *name, char *buf, size_t cap)
{
    msg_t any;

    buf[0] = '\0';
    return named(m, number, name, &any) ? str(any, ANY_YAML, buf, cap) : buf;
}

/* A definition's property schema. */
static msg_t
property(msg_t schema, const char *name)
{
    msg_t v = {NULL, 0};

    named(sub(schema, SCHEMA_PROPERTIES), NAMED, name, &v);
    return v;
}

/* TypeItem's single value. */
static const char *
type_of(msg_t schema, char *buf, size_t cap)
{
    return str(sub(schema, SCHEMA_TYPE), 1, buf, cap);
}

/* ---- the served document -------------------------------------------------------------------- */

static const gw_catalog_t *
builtin(void)
{
    const gw_catalog_t *c = NULL;
    char err[256];

    if (gw_catalog_configure(gw_catalog_builtin(), NULL, &c, err, sizeof(err)) != 0)
        tap_diag("catalog: %s", err);
    return c;
}

static void
test_document_level(const gw_catalog_t *c, msg_t doc, json_t *json)
{
    gw_openapi_doc_t j, again;
    char buf[256];
    msg_t info = sub(doc, DOC_INFO), defs = sub(doc, DOC_DEFINITIONS), paths = sub(doc, DOC_PATHS);

    gw_openapi_v2(c, &j);
    gw_openapi_v2_proto(c, &again);
    tap_ok(again.data == (const char *)doc.p, "second call returns the cached bytes");
    tap_is_str(again.hash, j.hash, "the protobuf carries the JSON's hash, as kube's ETag");
    tap_ok(well_formed(doc), "the document walks to its end (%zu bytes)", doc.n);
    tap_is_str(str(doc, DOC_SWAGGER, buf, sizeof(buf)), "2.0", "swagger = 1 is 2.0");
    tap_is_str(str(info, INFO_TITLE, buf, sizeof(buf)), "Kubernetes", "info.title");
    tap_ok(strncmp(str(info, INFO_VERSION, buf, sizeof(buf)), "v1.32.", 6) == 0,
           "info.version is v1.32.x (%s)", buf);
    tap_is_int(count(defs, NAMED), json_object_size(json_object_get(json, "definitions")),
               "one NamedSchema per JSON definition");
    tap_is_int(count(paths, PATHS_PATH), json_object_size(json_object_get(json, "paths")),
               "one NamedPathItem per JSON path");
    tap_ok(!has(paths, PATHS_VENDOR) && !has(doc, DOC_VENDOR), "no vendor extension at the top");
}

static void
test_security(msg_t doc)
{
    msg_t item, scheme, req = sub(doc, DOC_SECURITY), list;
    char buf[64];

    tap_ok(named(sub(doc, DOC_SECURITY_DEFINITIONS), NAMED, "BearerToken", &item),
           "securityDefinitions has BearerToken");
    scheme = sub(item, 2);
    tap_ok(has(item, 2) && !has(item, 1), "... as the ApiKeySecurity member (2)");
    tap_ok(strcmp(str(scheme, 1, buf, sizeof(buf)), "apiKey") == 0 &&
               strcmp(str(scheme, 2, buf, sizeof(buf)), "authorization") == 0 &&
               strcmp(str(scheme, 3, buf, sizeof(buf)), "header") == 0,
           "... type apiKey, name authorization, in header");
    tap_is_int(count(doc, DOC_SECURITY), 1, "one SecurityRequirement");
    tap_ok(named(req, NAMED, "BearerToken", &list) && list.p != NULL && list.n == 0,
           "... naming BearerToken with an empty, present StringArray");
}

static void
test_deployment_definition(msg_t doc)
{
    msg_t defs = sub(doc, DOC_DEFINITIONS), deploy = {NULL, 0}, spec = {NULL, 0}, cm = {NULL, 0};
    msg_t replicas, data;
    char buf[256];

    tap_ok(named(defs, NAMED, DEPLOYMENT, &deploy), "definitions has " DEPLOYMENT);
    tap_is_str(type_of(deploy, buf, sizeof(buf)), "object", "its TypeItem is object");
    tap_is_str(str(property(deploy, "spec"), SCHEMA_REF, buf, sizeof(buf)),
               "#/definitions/io.k8s.api.apps.v1.DeploymentSpec", "spec is a $ref as _ref = 1");
    tap_is_str(type_of(property(deploy, "kind"), buf, sizeof(buf)), "string", "kind is a string");
    tap_is_str(
        extension(deploy, SCHEMA_VENDOR, "x-kubernetes-group-version-kind", buf, sizeof(buf)),
        "- group: apps\n  kind: Deployment\n  version: v1\n",
        "x-kubernetes-group-version-kind as a NamedAny holding YAML");
    named(defs, NAMED, "io.k8s.api.apps.v1.DeploymentSpec", &spec);
    tap_ok(holds(spec, SCHEMA_REQUIRED, "selector") && holds(spec, SCHEMA_REQUIRED, "template") &&
               count(spec, SCHEMA_REQUIRED) == 2,
           "DeploymentSpec requires selector and template");
    replicas = property(spec, "replicas");
    tap_ok(strcmp(type_of(replicas, buf, sizeof(buf)), "integer") == 0 &&
               strcmp(str(replicas, SCHEMA_FORMAT, buf, sizeof(buf)), "int32") == 0,
           "replicas is an int32 integer");
    tap_is_str(extension(property(spec, "strategy"), SCHEMA_VENDOR, "x-kubernetes-patch-strategy",
                         buf, sizeof(buf)),
               "retainKeys\n", "a property's extension beside its $ref");
    named(defs, NAMED, "io.k8s.api.core.v1.ConfigMap", &cm);
    data = property(cm, "data");
    tap_ok(has(sub(data, SCHEMA_ADDITIONAL), 1),
           "ConfigMap.data's additionalProperties is a Schema");
    tap_is_str(type_of(sub(sub(data, SCHEMA_ADDITIONAL), 1), buf, sizeof(buf)), "string",
               "... of strings");
    tap_is_str(extension(cm, SCHEMA_VENDOR, "x-kubernetes-group-version-kind", buf, sizeof(buf)),
               "- group: \"\"\n  kind: ConfigMap\n  version: v1\n",
               "the core group is an empty quoted string");
}

/* The query parameter `name` of an operation, as its QueryParameterSubSchema. */
static bool
query_param(msg_t op, const char *name, msg_t *out)
{
    field_t item;
    char buf[128];

    for (size_t i = 0; get(op, OP_PARAMETERS, i, &item); i++) {
        msg_t q = sub(sub(sub(item.bytes, PARAMS_ITEM_PARAMETER), PARAM_NON_BODY), NON_BODY_QUERY);
        if (strcmp(str(q, 4, buf, sizeof(buf)), name) == 0) {
            *out = q;
            return true;
        }
    }
    return false;
}

static void
test_deployment_path(msg_t doc)
{
    msg_t item = {NULL, 0}, get_op, patch_op, ok = {NULL, 0}, schema, q, body, first;
    field_t f;
    char buf[256];

    tap_ok(named(sub(doc, DOC_PATHS), PATHS_PATH, DEPLOYMENT_PATH, &item),
           "paths has " DEPLOYMENT_PATH);
    get_op = sub(item, ITEM_GET);
    patch_op = sub(item, ITEM_PATCH);
    tap_is_str(str(get_op, OP_OPERATION_ID, buf, sizeof(buf)), "readAppsV1NamespacedDeployment",
               "get's operationId");
    tap_is_str(extension(get_op, OP_VENDOR, "x-kubernetes-action", buf, sizeof(buf)), "get\n",
               "get's x-kubernetes-action");
    tap_ok(named(sub(get_op, OP_RESPONSES), RESPONSES_CODE, "200", &ok), "get answers 200");
    schema = sub(sub(sub(ok, RESPONSE_VALUE_RESPONSE), RESPONSE_SCHEMA), SCHEMA_ITEM_SCHEMA);
    tap_is_str(str(schema, SCHEMA_REF, buf, sizeof(buf)), "#/definitions/" DEPLOYMENT,
               "... a Deployment, through Response, SchemaItem and Schema._ref");
    get(item, ITEM_PARAMETERS, 0, &f);
    first = sub(sub(f.bytes, PARAMS_ITEM_PARAMETER), PARAM_NON_BODY);
    tap_ok(has(first, NON_BODY_PATH) || has(first, NON_BODY_QUERY),
           "path-level parameters are NonBodyParameters");
    tap_ok(query_param(patch_op, "fieldValidation", &q), "patch takes fieldValidation");
    tap_ok(strcmp(str(q, 2, buf, sizeof(buf)), "query") == 0 &&
               strcmp(str(q, 6, buf, sizeof(buf)), "string") == 0,
           "... in: query, type: string (QueryParameterSubSchema 2 and 6)");
    get(patch_op, OP_PARAMETERS, 0, &f);
    body = sub(sub(f.bytes, PARAMS_ITEM_PARAMETER), PARAM_BODY);
    tap_ok(strcmp(str(body, 2, buf, sizeof(buf)), "body") == 0 && has(body, 5),
           "patch's first parameter is the BodyParameter with a schema");
}

static void
test_served(void)
{
    const gw_catalog_t *c = builtin();
    gw_openapi_doc_t pb, j;
    json_t *json;
    size_t len, skipped = 99;
    uint8_t *again;

    tap_is_int(gw_openapi_v2_proto(c, &pb), 0, "v2 protobuf builds");
    gw_openapi_v2(c, &j);
    json = json_loadb(j.data, j.len, 0, NULL);
    again = gw_openapi_proto_encode(json, &len, &skipped);
    tap_ok(len == pb.len && memcmp(again, pb.data, len) == 0,
           "the served bytes are the encoding of the served JSON");
    tap_is_int(skipped, 0, "every member of the JSON document has its field");
    free(again);
    msg_t doc = {(const uint8_t *)pb.data, pb.len};
    test_document_level(c, doc, json);
    test_security(doc);
    test_deployment_definition(doc);
    test_deployment_path(doc);
    json_decref(json);
}

/* ---- gnostic's rules, on small documents ------------------------------------------------------
 */

static msg_t
encode(const char *text, size_t *skipped, uint8_t **buf)
{
    json_t *j = json_loads(text, 0, NULL);
    size_t len;

    *buf = gw_openapi_proto_encode(j, &len, skipped);
    json_decref(j);
    return (msg_t){*buf, len};
}

static double
as_double(field_t f)
{
    double d;

    memcpy(&d, &f.u, sizeof(d));
    return d;
}

static void
test_schema_rules(void)
{
    uint8_t *buf;
    size_t skipped;
    msg_t doc = encode("{\"swagger\":\"2.0\",\"definitions\":{\"A\":{\"properties\":{},"
                       "\"additionalProperties\":false,\"minimum\":0,\"maximum\":2.5,\"default\":{"
                       "\"a\":[1,\"x\"]},"
                       "\"enum\":[\"a\",\"true\"],\"type\":[\"string\",\"null\"],"
                       "\"items\":[{\"type\":\"integer\"},{\"$ref\":\"#/definitions/A\"}]}}}",
                       &skipped, &buf);
    msg_t a = {NULL, 0}, add, props, any;
    field_t f;
    char text[128];

    named(sub(doc, DOC_DEFINITIONS), NAMED, "A", &a);
    tap_is_int(skipped, 0, "a well-formed schema skips nothing");
    props = sub(a, SCHEMA_PROPERTIES);
    tap_ok(has(a, SCHEMA_PROPERTIES) && props.n == 0, "empty properties: a present, empty message");
    add = sub(a, SCHEMA_ADDITIONAL);
    tap_ok(get(add, 2, 0, &f) && f.wire == 0 && f.u == 0,
           "additionalProperties: false is the oneof's boolean = 2, written though false");
    tap_ok(!has(a, SCHEMA_MINIMUM), "minimum 0 is left out (proto3)");
    tap_ok(get(a, SCHEMA_MAXIMUM, 0, &f) && f.wire == 1 && as_double(f) == 2.5,
           "maximum is a double");
    get(a, SCHEMA_DEFAULT, 0, &f);
    any = f.bytes;
    json_t *def = gw_yaml_to_json((const char *)sub(any, ANY_YAML).p, sub(any, ANY_YAML).n, text,
                                  sizeof(text));
    json_t *want = json_pack("{s:[i,s]}", "a", 1, "x");
    tap_ok(def != NULL && json_equal(def, want), "default is an Any whose YAML reads back");
    json_decref(def);
    json_decref(want);
    tap_is_int(count(a, SCHEMA_ENUM), 2, "enum: one Any per value");
    get(a, SCHEMA_ENUM, 1, &f);
    tap_is_str(str(f.bytes, ANY_YAML, text, sizeof(text)), "\"true\"\n",
               "the string \"true\" stays a string in YAML");
    tap_ok(holds(sub(a, SCHEMA_TYPE), 1, "string") && holds(sub(a, SCHEMA_TYPE), 1, "null"),
           "a type list is a TypeItem of two values");
    tap_is_int(count(sub(a, SCHEMA_ITEMS), 1), 2, "an items list is an ItemsItem of two schemas");
    free(buf);
}

static void
test_oneofs(void)
{
    uint8_t *buf;
    size_t skipped;
    msg_t doc = encode(
        "{\"swagger\":\"2.0\",\"paths\":{\"x-top\":true,\"/a\":{\"get\":{\"parameters\":["
        "{\"$ref\":\"#/parameters/p\"},{\"name\":\"h\",\"in\":\"header\",\"type\":\"string\"}],"
        "\"responses\":{\"default\":{\"$ref\":\"#/responses/r\"},\"x-r\":1,"
        "\"404\":{\"description\":\"gone\"}}}}},\"bogus\":1}",
        &skipped, &buf);
    msg_t paths = sub(doc, DOC_PATHS), item = {NULL, 0}, op, responses, v = {NULL, 0};
    field_t f, first;
    char text[64];

    tap_is_int(skipped, 1, "an unknown top-level key is counted as skipped");
    tap_ok(get(paths, PATHS_VENDOR, 0, &first) && get(paths, PATHS_PATH, 0, &f) &&
               first.bytes.p < f.bytes.p,
           "Paths: the x- extension (1) before the paths (2), as Go orders fields");
    named(paths, PATHS_PATH, "/a", &item);
    op = sub(item, ITEM_GET);
    get(op, OP_PARAMETERS, 0, &f);
    tap_is_str(str(sub(f.bytes, PARAMS_ITEM_REF), 1, text, sizeof(text)), "#/parameters/p",
               "a $ref parameter is the JsonReference member");
    get(op, OP_PARAMETERS, 1, &f);
    tap_ok(has(sub(sub(f.bytes, PARAMS_ITEM_PARAMETER), PARAM_NON_BODY), NON_BODY_HEADER),
           "an in: header parameter is the HeaderParameterSubSchema member");
    responses = sub(op, OP_RESPONSES);
    tap_ok(named(responses, RESPONSES_CODE, "default", &v) && has(v, RESPONSE_VALUE_REF),
           "a default $ref response is a JsonReference");
    tap_ok(named(responses, RESPONSES_CODE, "404", &v) && has(v, RESPONSE_VALUE_RESPONSE),
           "a 404 is a Response");
    tap_is_str(extension(responses, RESPONSES_VENDOR, "x-r", text, sizeof(text)), "1\n",
               "Responses' x- keys are its vendor extensions");
    free(buf);
}

int
main(void)
{
    test_served();
    test_schema_rules();
    test_oneofs();
    return tap_done();
}
