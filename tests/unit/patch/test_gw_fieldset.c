/* Unit tests for gateway/patch/gw_fieldset: FieldsV1 read and written as kube writes it (its
 * element order, "." for members with children, unknown element types dropped), the set
 * algebra server-side apply is made of, and paths printed as kube prints them in conflicts. */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "gw_err.h"
#include "gw_fieldset.h"
#include "tap.h"

/* FieldsV1 of a Deployment created by kubectl's client-side apply, as kube-apiserver records
 * it for the kubectl-client-side-apply manager. */
static const char deployment_fields[] =
    "{\"f:metadata\":{\"f:annotations\":{\".\":{},\"f:kubectl.kubernetes.io/last-applied-"
    "configuration\":{}},\"f:labels\":{\".\":{},\"f:app\":{}}},\"f:spec\":{\"f:progressDeadline"
    "Seconds\":{},\"f:replicas\":{},\"f:revisionHistoryLimit\":{},\"f:selector\":{},\"f:strategy"
    "\":{\"f:rollingUpdate\":{\".\":{},\"f:maxSurge\":{},\"f:maxUnavailable\":{}},\"f:type\":{}},"
    "\"f:template\":{\"f:metadata\":{\"f:labels\":{\".\":{},\"f:app\":{}}},\"f:spec\":{\"f:con"
    "tainers\":{\"k:{\\\"name\\\":\\\"web\\\"}\":{\".\":{},\"f:image\":{},\"f:imagePullPolicy\":"
    "{},\"f:name\":{},\"f:ports\":{\".\":{},\"k:{\\\"containerPort\\\":80,\\\"protocol\\\":\\\"TCP"
    "\\\"}\":{\".\":{},\"f:containerPort\":{},\"f:protocol\":{}}},\"f:resources\":{},\"f:termin"
    "ationMessagePath\":{},\"f:terminationMessagePolicy\":{}}},\"f:dnsPolicy\":{},\"f:restartPo"
    "licy\":{},\"f:schedulerName\":{},\"f:securityContext\":{},\"f:terminationGracePeriodSeconds"
    "\":{}}}}}";

static gw_fieldset_t *
parse(const char *text)
{
    char err[256];
    json_t *j = json_loads(text, 0, NULL);
    gw_fieldset_t *s = NULL;

    if (j == NULL || gw_fieldset_from_json(j, &s, err, sizeof(err)) != 0)
        tap_diag("cannot read %s: %s", text, j ? err : "bad JSON");
    json_decref(j);
    return s;
}

/* The text of a set (new string). */
static char *
text(const gw_fieldset_t *s)
{
    size_t len;
    return s ? gw_fieldset_to_text(s, &len) : strdup("(null)");
}

static void
is_text(gw_fieldset_t *s, const char *want, const char *name)
{
    char *got = text(s);
    tap_is_str(got, want, name);
    free(got);
    gw_fieldset_free(s);
}

static void
read_write(void)
{
    gw_fieldset_t *s = parse(deployment_fields);

    tap_ok(s != NULL && gw_fieldset_count(s) == 30, "kubectl's Deployment fields: 30 members");
    is_text(s, deployment_fields, "... written back byte for byte");
    is_text(parse("{\"i:10\":{},\"i:2\":{},\"v:\\\"b\\\"\":{},\"v:1\":{},\"k:{\\\"b\\\":1}\":{},"
                  "\"k:{\\\"a\\\":2}\":{},\"f:z\":{},\"f:a\":{}}"),
            "{\"f:a\":{},\"f:z\":{},\"k:{\\\"a\\\":2}\":{},\"k:{\\\"b\\\":1}\":{},\"v:1\":{},"
            "\"v:\\\"b\\\"\":{},\"i:2\":{},\"i:10\":{}}",
            "fields, then keys, then values, then indexes (numerically)");
    is_text(parse("{\"v:null\":{},\"v:{}\":{},\"v:[1]\":{},\"v:true\":{},\"v:\\\"a\\\"\":{},"
                  "\"v:1.5\":{},\"v:2\":{},\"v:false\":{}}"),
            "{\"v:1.5\":{},\"v:2\":{},\"v:\\\"a\\\"\":{},\"v:false\":{},\"v:true\":{},\"v:[1]\":{},"
            "\"v:{}\":{},\"v:null\":{}}",
            "values: numbers, strings, booleans, lists, maps, null");
    is_text(parse("{\"k:{\\\"protocol\\\":\\\"TCP\\\",\\\"containerPort\\\":80}\":{}}"),
            "{\"k:{\\\"containerPort\\\":80,\\\"protocol\\\":\\\"TCP\\\"}\":{}}",
            "key fields are written sorted by name");
    is_text(
        parse("{\"k:{\\\"a\\\":1,\\\"b\\\":2}\":{},\"k:{\\\"a\\\":1}\":{},\"k:{\\\"a\\\":0,"
              "\\\"z\\\":0}\":{}}"),
        "{\"k:{\\\"a\\\":0,\\\"z\\\":0}\":{},\"k:{\\\"a\\\":1}\":{},\"k:{\\\"a\\\":1,\\\"b\\\":2}"
        "\":{}}",
        "keys compare field by field, the shorter first");
    is_text(parse("{\"x:future\":{},\"f:a\":{\"y:thing\":{}},\"f:b\":{}}"),
            "{\"f:a\":{},\"f:b\":{}}", "element types this version does not know are dropped");
    is_text(parse("{}"), "{}", "the empty set");
    is_text(parse("{\"f:a\":{\".\":{}}}"), "{\"f:a\":{}}", "a lone \".\" is a member");
}

static void
bad_input(void)
{
    static const struct {
        const char *json, *err;
    } cases[] = {
        {"{\"f\":{}}", "parsing key as path element: key must be 2 characters long:"},
        {"{\"fa\":{}}", "parsing key as path element: missing colon: fa"},
        {"{\"i:x\":{}}",
         "parsing key as path element: strconv.Atoi: parsing \"x\": invalid syntax"},
        {"{\"k:[1]\":{}}", "parsing key as path element: invalid JSON after k:"},
        {"{\"v:{\":{}}", "parsing key as path element: invalid JSON after v:"},
        {"{\"f:a\":1}", "FieldsV1 must be a JSON object of path elements"},
        {"{\"f:a\":{\".\":[]}}", "FieldsV1 must be a JSON object of path elements"},
        {"[]", "FieldsV1 must be a JSON object of path elements"},
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char err[256] = "";
        json_t *j = json_loads(cases[i].json, JSON_DECODE_ANY, NULL);
        gw_fieldset_t *s = NULL;
        int rc = gw_fieldset_from_json(j, &s, err, sizeof(err));
        if (!tap_ok(rc == GW_EINVAL && s == NULL && strcmp(err, cases[i].err) == 0, "refused: %s",
                    cases[i].json))
            tap_diag("rc %d, err [%s]", rc, err);
        json_decref(j);
    }
}

/* ---- building and querying ------------------------------------------------------------------ */

#define F(n) ((gw_pe_t){.kind = GW_PE_FIELD, .name = (n)})

static void
paths(void)
{
    json_t *key = json_pack("{s:s}", "name", "c"), *val = json_string("a");
    gw_pe_t image[] = {F("spec"), F("containers"), {.kind = GW_PE_KEY, .value = key}, F("image")};
    gw_pe_t fin[] = {F("metadata"), F("finalizers"), {.kind = GW_PE_VALUE, .value = val}};
    gw_pe_t arg[] = {F("args"), {.kind = GW_PE_INDEX, .index = 0}};
    gw_fieldset_t *s = gw_fieldset_new();

    gw_fieldset_insert(s, image, 4);
    gw_fieldset_insert(s, image, 4);
    gw_fieldset_insert(s, fin, 3);
    gw_fieldset_insert(s, arg, 2);
    tap_ok(gw_fieldset_count(s) == 3, "inserting a path twice keeps one member");
    tap_ok(gw_fieldset_has(s, image, 4) && gw_fieldset_has(s, fin, 3) && gw_fieldset_has(s, arg, 2),
           "has the inserted paths");
    tap_ok(!gw_fieldset_has(s, image, 3) && !gw_fieldset_has(s, image, 1),
           "... not the paths they go through");
    is_text(s,
            "{\"f:args\":{\"i:0\":{}},\"f:metadata\":{\"f:finalizers\":{\"v:\\\"a\\\"\":{}}},"
            "\"f:spec\":{\"f:containers\":{\"k:{\\\"name\\\":\\\"c\\\"}\":{\"f:image\":{}}}}}",
            "written as FieldsV1");
    json_decref(key);
    json_decref(val);
}

typedef struct {
    char text[1024];
} collect_t;

static void
collect(const char *path, void *ctx)
{
    collect_t *c = ctx;
    size_t n = strlen(c->text);
    snprintf(c->text + n, sizeof(c->text) - n, "%s%s", n ? " " : "", path);
}

static void
path_texts(void)
{
    gw_fieldset_t *s = parse(
        "{\"f:metadata\":{\"f:labels\":{\".\":{},\"f:app\":{}},\"f:finalizers\":{\"v:\\\"x/y\\\"\":"
        "{}}},\"f:spec\":{\"f:ports\":{\"k:{\\\"port\\\":80,\\\"protocol\\\":\\\"TCP\\\"}\":{\"f:"
        "targetPort\":{}}},\"f:replicas\":{},\"f:args\":{\"i:1\":{}},\"f:w\":{\"v:1.5\":{},\"v:"
        "[true,null]\":{}}}}");
    collect_t c = {{0}};

    if (s != NULL)
        gw_fieldset_foreach(s, collect, &c);
    tap_is_str(c.text,
               ".metadata.labels .metadata.finalizers[=\"x/y\"] .metadata.labels.app "
               ".spec.replicas .spec.args[1] .spec.ports[port=80,protocol=\"TCP\"].targetPort "
               ".spec.w[=1.5] .spec.w[=[true,null]]",
               "paths as kube prints them, members of a node before its children's");
    gw_fieldset_free(s);
}

/* ---- algebra -------------------------------------------------------------------------------- */

static void
identities(const gw_fieldset_t *a, const gw_fieldset_t *b, const gw_fieldset_t *parent,
           const gw_fieldset_t *child)
{
    gw_fieldset_t *i = gw_fieldset_intersection(parent, child), *u = gw_fieldset_union(a, a);
    gw_fieldset_t *d = gw_fieldset_difference(a, a);

    tap_ok(gw_fieldset_empty(i), "a member and a path through it have nothing in common");
    tap_ok(gw_fieldset_equal(u, a) && !gw_fieldset_equal(a, b), "a union a is a, not b");
    tap_ok(gw_fieldset_empty(d) && gw_fieldset_count(d) == 0, "a minus a is empty");
    gw_fieldset_free(i);
    gw_fieldset_free(u);
    gw_fieldset_free(d);
}

static void
algebra(void)
{
    gw_fieldset_t *a = parse("{\"f:metadata\":{\"f:labels\":{\"f:app\":{}}},\"f:spec\":{\"f:"
                             "replicas\":{},\"f:template\":{\"f:spec\":{\"f:containers\":{\"k:{"
                             "\\\"name\\\":\\\"c\\\"}\":{\".\":{},\"f:image\":{}}}}}}}");
    gw_fieldset_t *b = parse("{\"f:metadata\":{\"f:labels\":{\"f:tier\":{}}},\"f:spec\":{\"f:"
                             "replicas\":{},\"f:template\":{\"f:spec\":{\"f:containers\":{\"k:{"
                             "\\\"name\\\":\\\"c\\\"}\":{\"f:image\":{}}}}}}}");
    gw_fieldset_t *parent = parse("{\"f:a\":{}}"), *child = parse("{\"f:a\":{\"f:b\":{}}}");

    is_text(gw_fieldset_union(a, b),
            "{\"f:metadata\":{\"f:labels\":{\"f:app\":{},\"f:tier\":{}}},\"f:spec\":{\"f:replicas"
            "\":{},\"f:template\":{\"f:spec\":{\"f:containers\":{\"k:{\\\"name\\\":\\\"c\\\"}\":{\""
            ".\":{},\"f:image\":{}}}}}}}",
            "union");
    is_text(gw_fieldset_difference(a, b),
            "{\"f:metadata\":{\"f:labels\":{\"f:app\":{}}},\"f:spec\":{\"f:template\":{\"f:spec\":"
            "{\"f:containers\":{\"k:{\\\"name\\\":\\\"c\\\"}\":{}}}}}}",
            "difference: what only a has (the container element itself)");
    is_text(gw_fieldset_intersection(a, b),
            "{\"f:spec\":{\"f:replicas\":{},\"f:template\":{\"f:spec\":{\"f:containers\":{\"k:{\\"
            "\"name\\\":\\\"c\\\"}\":{\"f:image\":{}}}}}}}",
            "intersection");
    is_text(gw_fieldset_difference(child, parent), "{\"f:a\":{\"f:b\":{}}}",
            "a member does not take the paths through it away");
    is_text(gw_fieldset_difference(parent, child), "{\"f:a\":{}}",
            "... nor do paths through it take the member away");
    identities(a, b, parent, child);
    gw_fieldset_free(a);
    gw_fieldset_free(b);
    gw_fieldset_free(parent);
    gw_fieldset_free(child);
}

int
main(void)
{
    read_write();
    bad_input();
    paths();
    path_texts();
    algebra();
    return tap_done();
}
