/* Unit tests for gateway/convert/gw_convert: the table agrees with the catalog (every kind
 * served in several versions converts, its hub is the version kube-apiserver stores, as the
 * discovery hash says), conversions go spoke -> hub -> spoke, and every spoke and hub round-trips
 * an object with every field of its schema set. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <openssl/evp.h>
#include <openssl/sha.h>

#include "gw_catalog.h"
#include "gw_convert.h"
#include "tap.h"

static const gw_catalog_t *cat;

static json_t *
parse(const char *text)
{
    json_error_t e;
    json_t *j = json_loads(text, 0, &e);

    if (j == NULL)
        tap_diag("bad test JSON: %s: %s", e.text, text);
    return j;
}

static void
diag_doc(const char *what, const json_t *doc)
{
    char *s = json_dumps(doc, JSON_COMPACT | JSON_SORT_KEYS);

    tap_diag("%s: %s", what, s ? s : "(null)");
    free(s);
}

/* ---- the table against the catalog -------------------------------------------------------- */

/* kube's storageVersionHash of apiVersion/kind. */
static void
version_hash(const char *api_version, const char *kind, char out[16])
{
    const char *slash = strchr(api_version, '/');
    char text[256];
    unsigned char digest[SHA256_DIGEST_LENGTH];

    if (slash == NULL)
        snprintf(text, sizeof(text), "/%s/%s", api_version, kind);
    else
        snprintf(text, sizeof(text), "%s/%s", api_version, kind);
    SHA256((const unsigned char *)text, strlen(text), digest);
    EVP_EncodeBlock((unsigned char *)out, digest, 8);
}

static bool
other_version(const gw_resource_t *a)
{
    for (size_t i = 0; i < gw_catalog_count(cat); i++) {
        const gw_resource_t *b = gw_catalog_at(cat, i);
        if (b != a && strcmp(b->storage_path, a->storage_path) == 0 &&
            strcmp(b->kind, a->kind) == 0 && !b->virtual_only)
            return true;
    }
    return false;
}

static void
test_table_matches_catalog(void)
{
    int stored_versions = 0;

    for (size_t i = 0; i < gw_catalog_count(cat); i++) {
        const gw_resource_t *r = gw_catalog_at(cat, i);
        const char *hub_av, *hub_kind;
        char hash[16];
        bool has_hub;

        if (r->virtual_only)
            continue;
        has_hub = gw_convert_hub(r->api_version, r->kind, &hub_av, &hub_kind);
        tap_ok(has_hub == other_version(r), "%s %s: %s", r->api_version, r->name,
               has_hub ? "converts" : "single version");
        if (!has_hub)
            continue;
        stored_versions++;
        version_hash(hub_av, hub_kind, hash);
        tap_ok(strcmp(hash, r->storage_version_hash) == 0,
               "%s %s: stored as %s (hash %s, discovery says %s)", r->api_version, r->name, hub_av,
               hash, r->storage_version_hash);
        tap_ok(gw_convert_is_spoke(r->api_version, strlen(r->api_version), r->kind,
                                   strlen(r->kind)) == (strcmp(hub_av, r->api_version) != 0),
               "%s %s: a spoke exactly when it is not the hub", r->api_version, r->name);
    }
    tap_ok(stored_versions >= 16, "%d resources are versions of a kind served in several",
           stored_versions);
}

/* ---- conversions -------------------------------------------------------------------------- */

static void
converts(const char *in, const char *av, const char *kind, const char *want, const char *name)
{
    json_t *doc = parse(in), *w = parse(want);
    bool ok = doc != NULL && w != NULL && gw_convert(doc, av, kind) && json_equal(doc, w);

    if (!ok && doc != NULL)
        diag_doc("got", doc);
    tap_ok(ok, "%s", name);
    json_decref(doc);
    json_decref(w);
}

static void
test_events(void)
{
    converts(
        "{\"apiVersion\":\"v1\",\"kind\":\"Event\",\"metadata\":{\"name\":\"e\"},"
        "\"involvedObject\":{\"kind\":\"Pod\",\"name\":\"p\"},\"message\":\"m\","
        "\"source\":{\"component\":\"c\",\"host\":\"h\"},\"firstTimestamp\":\"2026-01-01T00:00:"
        "00Z\",\"lastTimestamp\":null,\"count\":3,\"reportingComponent\":\"rc\","
        "\"reportingInstance\":\"ri\",\"reason\":\"R\",\"type\":\"Normal\"}",
        "events.k8s.io/v1", "Event",
        "{\"apiVersion\":\"events.k8s.io/v1\",\"kind\":\"Event\",\"metadata\":{\"name\":\"e\"},"
        "\"regarding\":{\"kind\":\"Pod\",\"name\":\"p\"},\"note\":\"m\","
        "\"deprecatedSource\":{\"component\":\"c\",\"host\":\"h\"},"
        "\"deprecatedFirstTimestamp\":\"2026-01-01T00:00:00Z\",\"deprecatedLastTimestamp\":"
        "null,\"deprecatedCount\":3,\"reportingController\":\"rc\",\"reportingInstance\":\"ri\","
        "\"reason\":\"R\",\"type\":\"Normal\"}",
        "a core Event as events.k8s.io/v1: involvedObject, message, source, timestamps, count "
        "and reportingComponent renamed");
    converts("{\"apiVersion\":\"events.k8s.io/v1\",\"kind\":\"Event\",\"note\":\"n\","
             "\"series\":{\"count\":2,\"lastObservedTime\":\"2026-01-01T00:00:00.000000Z\"}}",
             "v1", "Event",
             "{\"apiVersion\":\"v1\",\"kind\":\"Event\",\"message\":\"n\","
             "\"series\":{\"count\":2,\"lastObservedTime\":\"2026-01-01T00:00:00.000000Z\"}}",
             "an events.k8s.io/v1 Event as core: series kept, note is the message");
}

static void
test_resource_slices(void)
{
    converts(
        "{\"apiVersion\":\"resource.k8s.io/v1alpha3\",\"kind\":\"ResourceSlice\",\"spec\":{"
        "\"devices\":[{\"name\":\"d\",\"basic\":{\"capacity\":{\"memory\":\"1Gi\"}}},"
        "{\"name\":\"e\"}]}}",
        "resource.k8s.io/v1beta1", "ResourceSlice",
        "{\"apiVersion\":\"resource.k8s.io/v1beta1\",\"kind\":\"ResourceSlice\",\"spec\":{"
        "\"devices\":[{\"name\":\"d\",\"basic\":{\"capacity\":{\"memory\":{\"value\":\"1Gi\"}}}},"
        "{\"name\":\"e\"}]}}",
        "a v1alpha3 capacity becomes a v1beta1 DeviceCapacity");
    converts("{\"apiVersion\":\"resource.k8s.io/v1beta1\",\"kind\":\"ResourceSlice\",\"spec\":{"
             "\"devices\":[{\"basic\":{\"capacity\":{\"a\":{\"value\":\"2\"},\"b\":{}}}}]}}",
             "resource.k8s.io/v1alpha3", "ResourceSlice",
             "{\"apiVersion\":\"resource.k8s.io/v1alpha3\",\"kind\":\"ResourceSlice\",\"spec\":{"
             "\"devices\":[{\"basic\":{\"capacity\":{\"a\":\"2\",\"b\":\"0\"}}}]}}",
             "a v1beta1 DeviceCapacity becomes its value (the zero quantity when unset)");
    converts("{\"apiVersion\":\"storage.k8s.io/v1alpha1\",\"kind\":\"VolumeAttributesClass\","
             "\"driverName\":\"d\",\"parameters\":{\"a\":\"b\"}}",
             "storage.k8s.io/v1beta1", "VolumeAttributesClass",
             "{\"apiVersion\":\"storage.k8s.io/v1beta1\",\"kind\":\"VolumeAttributesClass\","
             "\"driverName\":\"d\",\"parameters\":{\"a\":\"b\"}}",
             "an equal shape converts by its apiVersion");
}

static void
test_refusals(void)
{
    json_t *doc = parse("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"data\":{}}");
    json_t *copy = json_deep_copy(doc);

    tap_ok(!gw_convert(doc, "apps/v1", "ConfigMap") && json_equal(doc, copy),
           "a single-version kind does not convert, and is left as it was");
    tap_ok(gw_convert(doc, "v1", "ConfigMap") && json_equal(doc, copy),
           "converting to the version an object has changes nothing");
    json_decref(doc);
    json_decref(copy);
    doc = parse("{\"apiVersion\":\"v1\",\"kind\":\"Event\"}");
    tap_ok(!gw_convert(doc, "autoscaling/v1", "HorizontalPodAutoscaler"),
           "an Event does not become an HPA");
    json_object_del(doc, "apiVersion");
    tap_ok(!gw_convert(doc, "events.k8s.io/v1", "Event"), "an object without apiVersion does not");
    json_decref(doc);
    tap_ok(!gw_convert_is_spoke("v1", 2, "Event", 5) &&
               gw_convert_is_spoke("events.k8s.io/v1", 16, "Event", 5) &&
               !gw_convert_is_spoke("events.k8s.io/v1x", 17, "Event", 5),
           "spokes are known by their exact apiVersion and kind");
}

static void
test_internal(void)
{
    json_t *hpa = parse("{\"apiVersion\":\"autoscaling/v2\",\"kind\":\"HorizontalPodAutoscaler\","
                        "\"metadata\":{\"annotations\":{\"a\":\"b\","
                        "\"autoscaling.alpha.kubernetes.io/behavior\":\"{}\"}}}");
    json_t *cm = parse("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{"
                       "\"annotations\":{\"autoscaling.alpha.kubernetes.io/behavior\":\"{}\"}}}");
    json_t *cm_copy = json_deep_copy(cm), *want = json_pack("{s:s}", "a", "b");

    gw_convert_internal(hpa);
    gw_convert_internal(cm);
    tap_ok(json_equal(json_object_get(json_object_get(hpa, "metadata"), "annotations"), want),
           "a v2 HPA loses the round-trip annotations as kube's decoding drops them");
    tap_ok(json_equal(cm, cm_copy), "other kinds keep theirs");
    json_decref(hpa);
    json_decref(cm);
    json_decref(cm_copy);
    json_decref(want);
}

/* ---- round trips over every pair ---------------------------------------------------------- */

/* A value for schema s with every field set, distinct scalars (n counts them). */
static json_t *
sample(const gw_schema_t *s, int depth, int *n)
{
    json_t *o;

    if (depth > 8)
        return json_object();
    switch (s->type) {
    case GW_SCHEMA_OBJECT:
        o = json_object();
        for (size_t i = 0; i < s->n_fields; i++)
            json_object_set_new(o, s->fields[i].name, sample(s->fields[i].schema, depth + 1, n));
        return o;
    case GW_SCHEMA_MAP:
        return json_pack("{s:o}", "key", sample(s->values, depth + 1, n));
    case GW_SCHEMA_ARRAY:
        return json_pack("[o,o]", sample(s->items, depth + 1, n), sample(s->items, depth + 1, n));
    case GW_SCHEMA_STRING:
        return json_sprintf("s%d", ++*n);
    case GW_SCHEMA_INTEGER:
        return json_integer(++*n);
    case GW_SCHEMA_NUMBER:
        return json_real(++*n + 0.5);
    case GW_SCHEMA_BOOLEAN:
        return json_boolean(++*n % 2);
    case GW_SCHEMA_INT_OR_STRING:
        return json_sprintf("%d%%", ++*n);
    case GW_SCHEMA_QUANTITY:
        return json_sprintf("%dMi", ++*n);
    case GW_SCHEMA_TIME:
        return json_sprintf("2026-01-%02dT00:00:00Z", ++*n % 28 + 1);
    case GW_SCHEMA_ANY:
    default:
        return json_pack("{s:i}", "any", ++*n);
    }
}

static void
round_trip(const gw_resource_t *from, const char *to_av, const char *to_kind)
{
    int n = 0;
    json_t *doc = sample(from->schema, 0, &n), *orig;

    json_object_set_new(doc, "apiVersion", json_string(from->api_version));
    json_object_set_new(doc, "kind", json_string(from->kind));
    orig = json_deep_copy(doc);
    bool there = gw_convert(doc, to_av, to_kind);
    bool back = there && gw_convert(doc, from->api_version, from->kind);

    if (!json_equal(doc, orig)) {
        diag_doc("sent", orig);
        diag_doc("back", doc);
    }
    tap_ok(there && back && json_equal(doc, orig), "%s %s -> %s -> back, every field kept",
           from->api_version, from->kind, to_av);
    json_decref(doc);
    json_decref(orig);
}

static void
test_round_trips(void)
{
    for (size_t i = 0; i < gw_catalog_count(cat); i++) {
        const gw_resource_t *r = gw_catalog_at(cat, i);
        const char *hub_av, *hub_kind;

        /* HPAs round-trip through kube's annotations only for the metrics a type names: their
         * own tests (test_gw_convert_hpa.c) build such objects. */
        if (r->virtual_only || strcmp(r->kind, "HorizontalPodAutoscaler") == 0 ||
            !gw_convert_hub(r->api_version, r->kind, &hub_av, &hub_kind))
            continue;
        for (size_t k = 0; k < gw_catalog_count(cat); k++) {
            const gw_resource_t *o = gw_catalog_at(cat, k);
            const char *o_hub, *o_kind;
            if (o != r && !o->virtual_only &&
                gw_convert_hub(o->api_version, o->kind, &o_hub, &o_kind) &&
                strcmp(o_hub, hub_av) == 0 && strcmp(o_kind, hub_kind) == 0)
                round_trip(r, o->api_version, o->kind);
        }
    }
}

int
main(void)
{
    cat = gw_catalog_builtin();
    test_table_matches_catalog();
    test_events();
    test_resource_slices();
    test_refusals();
    test_internal();
    test_round_trips();
    return tap_done();
}
