/* Unit tests for gateway/validation/gw_fieldval: duplicate keys in raw JSON, and the walk of a
 * document against a structural schema (unknown fields pruned, type errors in kube-apiserver's
 * words, required fields), with hand-built schemas. */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "gw_catalog.h"
#include "gw_err.h"
#include "gw_fieldval.h"
#include "gw_yaml.h"
#include "tap.h"

/* kube-apiserver's field validation test body (invalidBodyJSON) */
static const char *const kube_body =
    "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"dupename\","
    "\"name\":\"d\",\"unknownMeta\":\"metaVal\",\"labels\":{\"app\":\"nginx\"}},\"spec\":{"
    "\"unknown1\":\"val1\",\"unknownDupe\":\"valDupe\",\"unknownDupe\":\"valDupe2\","
    "\"paused\":true,\"paused\":false,\"selector\":{\"matchLabels\":{\"app\":\"nginx\"}},"
    "\"template\":{\"metadata\":{\"labels\":{\"app\":\"nginx\"}},\"spec\":{\"containers\":[{"
    "\"name\":\"nginx\",\"image\":\"nginx:latest\",\"unknownNested\":\"val1\","
    "\"imagePullPolicy\":\"Always\",\"imagePullPolicy\":\"Never\"}]}}}}";

static void
test_duplicates(void)
{
    gw_field_issues_t is = {0};
    tap_is_int(gw_json_find_duplicates(kube_body, strlen(kube_body), &is), 0,
               "kube's test body scans");
    const char *want[] = {"metadata.name", "spec.unknownDupe", "spec.paused",
                          "spec.template.spec.containers[0].imagePullPolicy"};
    tap_is_int(is.n, 4, "four keys are set twice");
    for (size_t i = 0; i < is.n && i < 4; i++) {
        char msg[128];
        snprintf(msg, sizeof(msg), "duplicate field \"%s\"", want[i]);
        tap_is_str(is.items[i].path, want[i], "  in document order, with kube's path");
        tap_is_str(is.items[i].message, msg, "  and kube's message");
        tap_ok(is.items[i].kind == GW_FIELD_DUPLICATE, "  as a duplicate");
    }
    gw_field_issues_clear(&is);

    const char *escaped = "{\"a\\u0062\":1,\"ab\":2,\"\\ud83d\\ude00\":[{\"x\":1,\"x\":2}],"
                          "\"\xf0\x9f\x98\x80\":3}";
    tap_is_int(gw_json_find_duplicates(escaped, strlen(escaped), &is), 0, "escapes scan");
    tap_ok(is.n == 3 && strcmp(is.items[0].path, "ab") == 0 &&
               strcmp(is.items[1].path, "\xf0\x9f\x98\x80[0].x") == 0 &&
               strcmp(is.items[2].path, "\xf0\x9f\x98\x80") == 0,
           "keys compare unescaped (\\u0062 is b, a surrogate pair is its character)");
    gw_field_issues_clear(&is);

    /* past 16 keys an object's keys are indexed: duplicates of keys from before and after */
    char many[512] = "{";
    for (int i = 0; i < 20; i++)
        snprintf(many + strlen(many), sizeof(many) - strlen(many), "\"k%02d\":%d,", i, i);
    strcat(many, "\"k03\":1,\"k18\":2,\"k20\":3,\"k20\":4}");
    tap_is_int(gw_json_find_duplicates(many, strlen(many), &is), 0, "an object of 23 keys scans");
    tap_ok(is.n == 3 && strcmp(is.items[0].path, "k03") == 0 &&
               strcmp(is.items[1].path, "k18") == 0 && strcmp(is.items[2].path, "k20") == 0,
           "its duplicates are found, whether their key came before the 16th or after");
    gw_field_issues_clear(&is);

    const char *fine = " [ {\"a\":{\"a\":1}}, {\"a\":2}, [], {}, \"s\", -0.5e+3, true, null ] ";
    tap_ok(gw_json_find_duplicates(fine, strlen(fine), &is) == 0 && is.n == 0,
           "the same key in different objects is no duplicate");

    static const char *const bad[] = {
        "",           "{",           "{\"a\":1,}", "[1,]",
        "{\"a\" 1}",  "{a:1}",       "01",         "1.",
        "-",          "1e",          "tru",        "\"\\x\"",
        "\"\x01\"",   "\"\\ud800\"", "\"\xff\"",   "\"\xc0\x80\"",
        "{\"a\":1}x", "[1] [2]",     "\"abc",      "{\"a\":1,\"a\":2",
    };
    int all = 1;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        int rc = gw_json_find_duplicates(bad[i], strlen(bad[i]), &is);
        all &= rc == GW_EINVAL && is.n == 0;
    }
    tap_ok(all, "malformed JSON is GW_EINVAL, with no issues appended");
    char *deep = malloc(5000);
    memset(deep, '[', 2500);
    memset(deep + 2500, ']', 2500);
    tap_is_int(gw_json_find_duplicates(deep, 5000, &is), GW_EINVAL, "nesting is bounded");
    free(deep);
}

/* ---- hand-built schemas ------------------------------------------------------------------ */

#define REF(name) "io.k8s.api.test.v1." name
#define FIELDS(a) .fields = a, .n_fields = sizeof(a) / sizeof(a[0])

static const gw_schema_t str = {.type = GW_SCHEMA_STRING};
static const gw_schema_t bytes = {.type = GW_SCHEMA_STRING, .format = "byte"};
static const gw_schema_t i32 = {.type = GW_SCHEMA_INTEGER, .format = "int32"};
static const gw_schema_t i64 = {.type = GW_SCHEMA_INTEGER, .format = "int64"};
static const gw_schema_t num = {.type = GW_SCHEMA_NUMBER, .format = "double"};
static const gw_schema_t boolean = {.type = GW_SCHEMA_BOOLEAN};
static const gw_schema_t any = {.type = GW_SCHEMA_ANY};
static const gw_schema_t quantity = {.type = GW_SCHEMA_QUANTITY,
                                     .ref = "io.k8s.apimachinery.pkg.api.resource.Quantity"};
static const gw_schema_t intstr = {.type = GW_SCHEMA_INT_OR_STRING,
                                   .ref = "io.k8s.apimachinery.pkg.util.intstr.IntOrString"};
static const gw_schema_t mtime = {.type = GW_SCHEMA_TIME,
                                  .format = "date-time",
                                  .ref = "io.k8s.apimachinery.pkg.apis.meta.v1.Time"};
static const gw_schema_t labels = {.type = GW_SCHEMA_MAP, .values = &str};
static const gw_schema_t data = {.type = GW_SCHEMA_MAP, .values = &bytes};
static const gw_schema_t limits = {.type = GW_SCHEMA_MAP, .values = &quantity};
static const gw_schema_t strings = {.type = GW_SCHEMA_ARRAY, .items = &str};

/* fields sorted by name, as the catalog keeps them */
static const gw_schema_field_t meta_fields[] = {
    {"creationTimestamp", &mtime}, {"labels", &labels}, {"name", &str}, {"namespace", &str}};
static const gw_schema_t meta = {.type = GW_SCHEMA_OBJECT,
                                 .ref = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta",
                                 FIELDS(meta_fields)};
static const gw_schema_field_t port_fields[] = {{"containerPort", &i32}, {"protocol", &str}};
static const char *const port_required[] = {"containerPort"};
static const gw_schema_t port = {.type = GW_SCHEMA_OBJECT,
                                 .ref = REF("ContainerPort"),
                                 FIELDS(port_fields),
                                 .required = port_required,
                                 .n_required = 1};
static const gw_schema_t ports = {.type = GW_SCHEMA_ARRAY, .items = &port};
static const gw_schema_field_t res_fields[] = {{"limits", &limits}};
static const gw_schema_t resources = {
    .type = GW_SCHEMA_OBJECT, .ref = REF("ResourceRequirements"), FIELDS(res_fields)};
static const gw_schema_field_t ctr_fields[] = {
    {"args", &strings}, {"image", &str},           {"name", &str},
    {"ports", &ports},  {"resources", &resources}, {"weight", &num}};
static const char *const ctr_required[] = {"name"};
static const gw_schema_t container = {.type = GW_SCHEMA_OBJECT,
                                      .ref = REF("Container"),
                                      FIELDS(ctr_fields),
                                      .required = ctr_required,
                                      .n_required = 1};
static const gw_schema_t containers = {.type = GW_SCHEMA_ARRAY, .items = &container};
static const gw_schema_field_t spec_fields[] = {
    {"containers", &containers}, {"data", &data},    {"extra", &any},   {"maxSurge", &intstr},
    {"paused", &boolean},        {"replicas", &i32}, {"revision", &i64}};
static const char *const spec_required[] = {"containers"};
static const gw_schema_t spec = {.type = GW_SCHEMA_OBJECT,
                                 .ref = REF("WidgetSpec"),
                                 FIELDS(spec_fields),
                                 .required = spec_required,
                                 .n_required = 1};
static const gw_schema_field_t widget_fields[] = {
    {"apiVersion", &str}, {"kind", &str}, {"metadata", &meta}, {"spec", &spec}};
static const gw_schema_t widget = {
    .type = GW_SCHEMA_OBJECT, .ref = REF("Widget"), FIELDS(widget_fields)};

/* A custom resource: no Go types; a preserved subtree and an embedded resource. */
static const gw_schema_t free_form = {
    .type = GW_SCHEMA_OBJECT, .preserve_unknown = true, FIELDS(port_fields)};
static const gw_schema_field_t emb_fields[] = {{"kind", &str}};
static const gw_schema_t embedded = {
    .type = GW_SCHEMA_OBJECT, .embedded_resource = true, FIELDS(emb_fields)};
static const gw_schema_field_t cr_spec_fields[] = {
    {"count", &i64},
    {"embedded", &embedded},
    {"free", &free_form},
    {"name", &str},
    {"ports", &(const gw_schema_t){
                  .type = GW_SCHEMA_ARRAY,
                  .items = &(const gw_schema_t){.type = GW_SCHEMA_OBJECT, FIELDS(port_fields)}}}};
static const gw_schema_t cr_spec = {.type = GW_SCHEMA_OBJECT, FIELDS(cr_spec_fields)};
static const gw_schema_field_t cr_fields[] = {{"spec", &cr_spec}};
static const gw_schema_t cr = {.type = GW_SCHEMA_OBJECT, FIELDS(cr_fields)};

typedef struct {
    gw_field_issue_kind_t kind;
    const char *path;
    const char *message;
} want_t;

static void
expect(const char *name, const gw_schema_t *schema, const char *body, const char *pruned,
       const want_t *want, size_t n_want)
{
    json_error_t e;
    json_t *doc = json_loads(body, 0, &e);
    gw_field_issues_t is = {0};
    gw_fieldval_check(doc, schema, &is);
    int ok = is.n == n_want;
    for (size_t i = 0; ok && i < n_want; i++)
        ok = is.items[i].kind == want[i].kind && strcmp(is.items[i].path, want[i].path) == 0 &&
             strcmp(is.items[i].message, want[i].message) == 0;
    if (!tap_ok(ok, "%s", name)) {
        for (size_t i = 0; i < is.n; i++)
            tap_diag("  got %d %s: %s", is.items[i].kind, is.items[i].path, is.items[i].message);
    }
    if (pruned != NULL) {
        json_t *want_doc = json_loads(pruned, 0, &e);
        tap_ok(json_equal(doc, want_doc), "  leaves the expected document");
        json_decref(want_doc);
    }
    gw_field_issues_clear(&is);
    json_decref(doc);
}

#define EXPECT(name, schema, body, pruned, ...)                                                    \
    do {                                                                                           \
        const want_t w_[] = {__VA_ARGS__};                                                         \
        expect(name, schema, body, pruned, w_, sizeof(w_) / sizeof(w_[0]));                        \
    } while (0)

static void
test_unknown_and_required(void)
{
    EXPECT("unknown fields are reported with kube's path and pruned", &widget,
           "{\"apiVersion\":\"test/v1\",\"kind\":\"Widget\",\"metadata\":{\"name\":\"w\","
           "\"colour\":\"red\"},\"spec\":{\"containers\":[{\"name\":\"a\",\"ports\":[{"
           "\"containerPort\":80,\"bogus\":{\"deep\":1}}]},{\"name\":\"b\",\"x\":1}],"
           "\"extra\":{\"anything\":[1]}},\"status\":{}}",
           "{\"apiVersion\":\"test/v1\",\"kind\":\"Widget\",\"metadata\":{\"name\":\"w\"},"
           "\"spec\":{\"containers\":[{\"name\":\"a\",\"ports\":[{\"containerPort\":80}]},"
           "{\"name\":\"b\"}],\"extra\":{\"anything\":[1]}}}",
           {GW_FIELD_UNKNOWN, "metadata.colour", "unknown field \"metadata.colour\""},
           {GW_FIELD_UNKNOWN, "spec.containers[0].ports[0].bogus",
            "unknown field \"spec.containers[0].ports[0].bogus\""},
           {GW_FIELD_UNKNOWN, "spec.containers[1].x", "unknown field \"spec.containers[1].x\""},
           {GW_FIELD_UNKNOWN, "status", "unknown field \"status\""});
    EXPECT("required fields: missing or null", &widget,
           "{\"spec\":{\"containers\":[{\"image\":\"i\",\"ports\":[{\"protocol\":\"TCP\"}]},"
           "{\"name\":null}]}}",
           NULL, {GW_FIELD_REQUIRED, "spec.containers[0].ports[0].containerPort", "Required value"},
           {GW_FIELD_REQUIRED, "spec.containers[0].name", "Required value"},
           {GW_FIELD_REQUIRED, "spec.containers[1].name", "Required value"});
    EXPECT("a missing list is required too", &widget, "{\"spec\":{}}", NULL,
           {GW_FIELD_REQUIRED, "spec.containers", "Required value"});
    expect("nulls are fine anywhere", &widget,
           "{\"metadata\":null,\"spec\":{\"containers\":[null],\"replicas\":null,"
           "\"data\":{\"a\":null}}}",
           NULL, NULL, 0);
}

static void
test_decode_errors(void)
{
    EXPECT("scalar type errors name the Go struct field", &widget,
           "{\"kind\":1,\"metadata\":{\"labels\":{\"a\":true}},\"spec\":{\"containers\":[{"
           "\"name\":\"a\",\"image\":[],\"args\":[\"x\",5],\"weight\":\"heavy\"}],"
           "\"paused\":\"yes\",\"replicas\":1.5,\"revision\":{}}}",
           NULL,
           {GW_FIELD_DECODE, "kind",
            "json: cannot unmarshal number into Go struct field Widget.kind of type string"},
           {GW_FIELD_DECODE, "metadata.labels.a",
            "json: cannot unmarshal bool into Go struct field ObjectMeta.metadata.labels of type "
            "string"},
           {GW_FIELD_DECODE, "spec.containers[0].image",
            "json: cannot unmarshal array into Go struct field Container.spec.containers.image of "
            "type string"},
           {GW_FIELD_DECODE, "spec.containers[0].args[1]",
            "json: cannot unmarshal number into Go struct field Container.spec.containers.args of "
            "type string"},
           {GW_FIELD_DECODE, "spec.containers[0].weight",
            "json: cannot unmarshal string into Go struct field Container.spec.containers.weight "
            "of type float64"},
           {GW_FIELD_DECODE, "spec.paused",
            "json: cannot unmarshal string into Go struct field WidgetSpec.spec.paused of type "
            "bool"},
           {GW_FIELD_DECODE, "spec.replicas",
            "json: cannot unmarshal number 1.5 into Go struct field WidgetSpec.spec.replicas of "
            "type int32"},
           {GW_FIELD_DECODE, "spec.revision",
            "json: cannot unmarshal object into Go struct field WidgetSpec.spec.revision of type "
            "int64"});
    EXPECT("collection type errors name Go's collection types", &widget,
           "{\"metadata\":\"m\",\"spec\":{\"containers\":{\"name\":\"a\"},"
           "\"data\":[\"x\"]}}",
           NULL,
           {GW_FIELD_DECODE, "metadata",
            "json: cannot unmarshal string into Go struct field Widget.metadata of type "
            "v1.ObjectMeta"},
           {GW_FIELD_DECODE, "spec.containers",
            "json: cannot unmarshal object into Go struct field WidgetSpec.spec.containers of type "
            "[]v1.Container"},
           {GW_FIELD_DECODE, "spec.data",
            "json: cannot unmarshal array into Go struct field WidgetSpec.spec.data of type "
            "map[string][]uint8"});
    EXPECT(
        "int32 overflow", &widget,
        "{\"spec\":{\"containers\":[],\"replicas\":3000000000,\"revision\":3000000000}}", NULL,
        {GW_FIELD_DECODE, "spec.replicas",
         "json: cannot unmarshal number 3000000000 into Go struct field WidgetSpec.spec.replicas "
         "of type int32"});
    EXPECT("custom decoders: base64, quantity, int-or-string, time", &widget,
           "{\"metadata\":{\"creationTimestamp\":\"2024-13-01T00:00:00Z\"},\"spec\":{"
           "\"containers\":[{\"name\":\"a\",\"resources\":{\"limits\":{\"cpu\":\"500m\","
           "\"memory\":\"1Gi\",\"n\":2.5,\"bad\":\"1 Gi\",\"suffix\":\"1MM\",\"b\":true}}}],"
           "\"data\":{\"ok\":\"aGVsbG8=\",\"bad\":\"aGVs!G8=\",\"short\":\"aGVsbG8\"},"
           "\"maxSurge\":true}}",
           NULL,
           {GW_FIELD_DECODE, "metadata.creationTimestamp",
            "parsing time \"2024-13-01T00:00:00Z\": month out of range"},
           {GW_FIELD_DECODE, "spec.containers[0].resources.limits.bad",
            "quantities must match the regular expression "
            "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"},
           {GW_FIELD_DECODE, "spec.containers[0].resources.limits.suffix",
            "unable to parse quantity's suffix"},
           {GW_FIELD_DECODE, "spec.containers[0].resources.limits.b",
            "quantities must match the regular expression "
            "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"},
           {GW_FIELD_DECODE, "spec.data.bad", "illegal base64 data at input byte 4"},
           {GW_FIELD_DECODE, "spec.data.short", "illegal base64 data at input byte 4"},
           {GW_FIELD_DECODE, "spec.maxSurge",
            "json: cannot unmarshal bool into Go value of type int32"});
}

static void
test_custom_resource(void)
{
    EXPECT("without Go types: structural validation's messages, preserved subtrees kept, an "
           "embedded resource's type and object metadata kept, the rest of it pruned",
           &cr,
           "{\"apiVersion\":\"x/v1\",\"kind\":\"W\",\"metadata\":{\"name\":\"w\",\"odd\":1},"
           "\"spec\":{\"count\":\"3\",\"name\":7,\"free\":{\"containerPort\":\"x\",\"k\":1},"
           "\"embedded\":{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{},"
           "\"data\":{}},\"ports\":[{\"containerPort\":1.5,\"zz\":0}],\"gone\":1}}",
           "{\"apiVersion\":\"x/v1\",\"kind\":\"W\",\"metadata\":{\"name\":\"w\",\"odd\":1},"
           "\"spec\":{\"count\":\"3\",\"name\":7,\"free\":{\"containerPort\":\"x\",\"k\":1},"
           "\"embedded\":{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{}},"
           "\"ports\":[{\"containerPort\":1.5}]}}",
           {GW_FIELD_INVALID, "spec.count",
            "Invalid value: \"string\": spec.count in body must be of type integer: \"string\""},
           {GW_FIELD_INVALID, "spec.name",
            "Invalid value: \"integer\": spec.name in body must be of type string: \"integer\""},
           {GW_FIELD_INVALID, "spec.free.containerPort",
            "Invalid value: \"string\": spec.free.containerPort in body must be of type integer: "
            "\"string\""},
           {GW_FIELD_UNKNOWN, "spec.embedded.data", "unknown field \"spec.embedded.data\""},
           {GW_FIELD_INVALID, "spec.ports[0].containerPort",
            "Invalid value: \"number\": spec.ports[0].containerPort in body must be of type "
            "integer: \"number\""},
           {GW_FIELD_UNKNOWN, "spec.ports[0].zz", "unknown field \"spec.ports[0].zz\""},
           {GW_FIELD_UNKNOWN, "spec.gone", "unknown field \"spec.gone\""});
}

static void
expect_messages(const char *name, const gw_field_issues_t *is, const char *const *want, size_t n)
{
    int ok = is->n == n;
    for (size_t i = 0; ok && i < n; i++)
        ok = strcmp(is->items[i].message, want[i]) == 0;
    if (!tap_ok(ok, "%s", name))
        for (size_t i = 0; i < is->n; i++)
            tap_diag("  got %s", is->items[i].message);
}

/* kube-apiserver's field validation tests, on the catalog's Deployment schema */
static void
test_catalog_deployment(void)
{
    const gw_catalog_t *cat = gw_catalog_builtin();
    const gw_resource_t *r = gw_catalog_find(cat, "apps", "v1", "deployments");
    if (!tap_ok(r != NULL && r->schema != NULL, "the catalog has apps/v1 deployments"))
        return;
    static const char *const json_want[] = {
        "duplicate field \"metadata.name\"",
        "unknown field \"metadata.unknownMeta\"",
        "unknown field \"spec.unknown1\"",
        "unknown field \"spec.unknownDupe\"",
        "duplicate field \"spec.paused\"",
        "unknown field \"spec.template.spec.containers[0].unknownNested\"",
        "duplicate field \"spec.template.spec.containers[0].imagePullPolicy\"",
    };
    gw_field_issues_t is = {0};
    json_t *doc = json_loads(kube_body, 0, NULL);
    gw_json_find_duplicates(kube_body, strlen(kube_body), &is);
    gw_fieldval_check(doc, r->schema, &is);
    expect_messages("a JSON body: kube-apiserver's warnings, in its order", &is, json_want,
                    sizeof(json_want) / sizeof(json_want[0]));
    tap_ok(json_object_get(json_object_get(doc, "spec"), "unknown1") == NULL &&
               json_object_get(json_object_get(doc, "spec"), "paused") != NULL,
           "  unknown fields pruned, known ones kept");
    json_decref(doc);
    gw_field_issues_clear(&is);

    const char *yaml =
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: dupename\n  name: d\n"
        "  unknownMeta: metaVal\n  labels:\n    app: nginx\nspec:\n  unknown1: val1\n"
        "  unknownDupe: valDupe\n  unknownDupe: valDupe2\n  paused: true\n  paused: false\n"
        "  selector:\n    matchLabels:\n      app: nginx\n  template:\n    metadata:\n"
        "      labels:\n        app: nginx\n    spec:\n      containers:\n      - name: nginx\n"
        "        image: nginx:latest\n        unknownNested: val1\n"
        "        imagePullPolicy: Always\n        imagePullPolicy: Never";
    static const char *const yaml_want[] = {
        "line 5: key \"name\" already set in map",
        "line 12: key \"unknownDupe\" already set in map",
        "line 14: key \"paused\" already set in map",
        "line 28: key \"imagePullPolicy\" already set in map",
        "unknown field \"metadata.unknownMeta\"",
        "unknown field \"spec.template.spec.containers[0].unknownNested\"",
        "unknown field \"spec.unknown1\"",
        "unknown field \"spec.unknownDupe\"",
    };
    char err[256];
    doc = gw_yaml_to_json_dups(yaml, strlen(yaml), &is, err, sizeof(err));
    gw_fieldval_check(doc, r->schema, &is);
    expect_messages("a YAML body: kube-apiserver's warnings, in its order", &is, yaml_want,
                    sizeof(yaml_want) / sizeof(yaml_want[0]));
    json_decref(doc);
    gw_field_issues_clear(&is);
}

static void
test_catalog_pod(void)
{
    const gw_resource_t *r = gw_catalog_find(gw_catalog_builtin(), "", "v1", "pods");
    if (!tap_ok(r != NULL && r->schema != NULL, "the catalog has v1 pods"))
        return;
    const char *body =
        "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\","
        "\"labels\":{\"a\":\"b\"},\"creationTimestamp\":null},\"spec\":{\"containers\":[{"
        "\"name\":\"c\",\"image\":\"nginx\",\"ports\":[{\"containerPort\":\"80\"}],"
        "\"resources\":{\"limits\":{\"cpu\":\"lots\"}},\"livenessProbe\":{\"httpGet\":{"
        "\"port\":\"http\",\"path\":\"/\"}},\"colour\":\"red\"}],\"restartPolicy\":\"Always\"}}";
    json_t *doc = json_loads(body, 0, NULL);
    gw_field_issues_t is = {0};
    gw_fieldval_check(doc, r->schema, &is);
    static const char *const want[] = {
        "json: cannot unmarshal string into Go struct field ContainerPort.spec.containers.ports."
        "containerPort of type int32",
        "quantities must match the regular expression "
        "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
        "unknown field \"spec.containers[0].colour\"",
    };
    expect_messages("a Pod: type errors, a bad quantity, an unknown field; named ports fine", &is,
                    want, sizeof(want) / sizeof(want[0]));
    tap_ok(is.n == 3 && is.items[0].kind == GW_FIELD_DECODE &&
               strcmp(is.items[0].path, "spec.containers[0].ports[0].containerPort") == 0,
           "  the type error is a decode error with kube's field path");
    gw_field_issues_clear(&is);
    json_decref(doc);
    doc = json_loads("{\"metadata\":{\"name\":\"p\"},\"spec\":{}}", 0, NULL);
    gw_fieldval_check(doc, r->schema, &is);
    tap_ok(is.n == 1 && is.items[0].kind == GW_FIELD_REQUIRED &&
               strcmp(is.items[0].path, "spec.containers") == 0,
           "a Pod without containers: spec.containers: Required value");
    gw_field_issues_clear(&is);
    json_decref(doc);
}

/* An object as kube-apiserver returns it (managed fields, status, probes, volumes) has
 * nothing unknown and nothing mistyped. */
static void
test_catalog_clean(void)
{
    const gw_resource_t *r = gw_catalog_find(gw_catalog_builtin(), "apps", "v1", "deployments");
    const char *body =
        "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"web\","
        "\"namespace\":\"default\",\"uid\":\"0b6f1f0e-2a9b-4d7e-9a53-1c2d3e4f5a6b\","
        "\"resourceVersion\":\"42\",\"generation\":2,\"creationTimestamp\":"
        "\"2024-05-01T10:00:00Z\",\"labels\":{\"app\":\"web\"},\"annotations\":{"
        "\"deployment.kubernetes.io/revision\":\"1\"},\"ownerReferences\":[],\"finalizers\":[],"
        "\"managedFields\":[{\"manager\":\"kubectl\",\"operation\":\"Update\",\"apiVersion\":"
        "\"apps/v1\",\"time\":\"2024-05-01T10:00:00Z\",\"fieldsType\":\"FieldsV1\","
        "\"fieldsV1\":{\"f:spec\":{\"f:replicas\":{}}}}]},\"spec\":{\"replicas\":2,"
        "\"selector\":{\"matchLabels\":{\"app\":\"web\"},\"matchExpressions\":[{\"key\":\"x\","
        "\"operator\":\"Exists\"}]},\"strategy\":{\"type\":\"RollingUpdate\",\"rollingUpdate\":"
        "{\"maxSurge\":\"25%\",\"maxUnavailable\":1}},\"revisionHistoryLimit\":10,"
        "\"progressDeadlineSeconds\":600,\"template\":{\"metadata\":{\"labels\":{\"app\":"
        "\"web\"},\"creationTimestamp\":null},\"spec\":{\"containers\":[{\"name\":\"web\","
        "\"image\":\"nginx:1.25\",\"ports\":[{\"containerPort\":80,\"protocol\":\"TCP\"}],"
        "\"env\":[{\"name\":\"A\",\"valueFrom\":{\"fieldRef\":{\"fieldPath\":"
        "\"metadata.name\"}}}],\"resources\":{\"limits\":{\"cpu\":\"500m\",\"memory\":"
        "\"128Mi\"},\"requests\":{\"cpu\":0.25}},\"readinessProbe\":{\"httpGet\":{\"path\":"
        "\"/\",\"port\":\"http\"},\"periodSeconds\":10},\"volumeMounts\":[{\"name\":\"v\","
        "\"mountPath\":\"/data\"}],\"terminationMessagePath\":\"/dev/termination-log\","
        "\"imagePullPolicy\":\"IfNotPresent\"}],\"volumes\":[{\"name\":\"v\",\"emptyDir\":{"
        "\"sizeLimit\":\"1Gi\"}}],\"restartPolicy\":\"Always\",\"dnsPolicy\":\"ClusterFirst\","
        "\"securityContext\":{},\"schedulerName\":\"default-scheduler\","
        "\"terminationGracePeriodSeconds\":30}}},\"status\":{\"observedGeneration\":2,"
        "\"replicas\":2,\"updatedReplicas\":2,\"readyReplicas\":2,\"availableReplicas\":2,"
        "\"conditions\":[{\"type\":\"Available\",\"status\":\"True\",\"lastUpdateTime\":"
        "\"2024-05-01T10:00:05Z\",\"lastTransitionTime\":\"2024-05-01T10:00:05Z\",\"reason\":"
        "\"MinimumReplicasAvailable\",\"message\":\"ok\"}]}}";
    json_t *doc = json_loads(body, 0, NULL), *before = json_deep_copy(doc);
    gw_field_issues_t is = {0};
    if (r != NULL)
        gw_fieldval_check(doc, r->schema, &is);
    if (!tap_ok(r != NULL && is.n == 0 && json_equal(doc, before),
                "a Deployment as kube-apiserver returns it passes untouched"))
        for (size_t i = 0; i < is.n; i++)
            tap_diag("  %s: %s", is.items[i].path, is.items[i].message);
    gw_field_issues_clear(&is);
    json_decref(doc);
    json_decref(before);
}

int
main(void)
{
    test_duplicates();
    test_unknown_and_required();
    test_decode_errors();
    test_custom_resource();
    test_catalog_deployment();
    test_catalog_pod();
    test_catalog_clean();
    return tap_done();
}
