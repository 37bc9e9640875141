/*
 * Apply configurations merged without ownership (MutatingAdmissionPolicy's ApplyConfiguration):
 * the merge rules per list and map type, the atomic check and the typed conversion errors.
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "gw_apply_config.h"
#include "gw_catalog.h"
#include "tap.h"

static const gw_catalog_t *cat;

static const char deployment[] =
    "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"d\","
    "\"labels\":{\"a\":\"1\"}},\"spec\":{\"replicas\":1,\"selector\":{\"matchLabels\":"
    "{\"app\":\"x\"}},\"template\":{\"metadata\":{\"labels\":{\"app\":\"x\"}},\"spec\":"
    "{\"containers\":[{\"name\":\"c\",\"image\":\"i\"}],\"tolerations\":[{\"key\":\"k\"}]}}}}";

/* Merge `config` into the Deployment; `want` is the merged object's JSON subset at `path`
 * (a dotted key path) or, with a leading '!', a substring of the error. */
static void
check(const char *name, const char *config, const char *path, const char *want)
{
    const gw_schema_t *s = gw_catalog_kind_schema(cat, "apps", "v1", "Deployment");
    json_t *obj = json_loads(deployment, 0, NULL), *cfg = json_loads(config, 0, NULL);
    char *err = NULL;
    json_t *out = gw_apply_config_merge(s, obj, cfg, &err);
    bool ok;
    if (want[0] == '!') {
        ok = out == NULL && err != NULL && strstr(err, want + 1) != NULL;
    } else {
        json_t *at = out;
        char buf[256];
        snprintf(buf, sizeof(buf), "%s", path);
        for (char *k = strtok(buf, "."); k != NULL && at != NULL; k = strtok(NULL, "."))
            at = json_is_array(at) ? json_array_get(at, (size_t)atoi(k)) : json_object_get(at, k);
        json_t *w = json_loads(want, JSON_DECODE_ANY, NULL);
        ok = at != NULL && json_equal(at, w);
        json_decref(w);
    }
    if (!tap_ok(ok, "%s", name)) {
        char *got = out ? json_dumps(out, JSON_COMPACT) : NULL;
        tap_diag("  got %s", got ? got : err ? err : "(nothing)");
        free(got);
    }
    free(err);
    json_decref(out);
    json_decref(obj);
    json_decref(cfg);
}

int
main(void)
{
    cat = gw_catalog_builtin();
    check("labels merge into the granular map", "{\"metadata\":{\"labels\":{\"b\":\"2\"}}}",
          "metadata.labels", "{\"a\":\"1\",\"b\":\"2\"}");
    check("a scalar is replaced", "{\"spec\":{\"replicas\":3}}", "spec.replicas", "3");
    check("other fields stay", "{\"spec\":{\"replicas\":3}}", "spec.template.spec.containers.0",
          "{\"name\":\"c\",\"image\":\"i\"}");
    check("a map list merges by key",
          "{\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":\"c\","
          "\"imagePullPolicy\":\"Always\"}]}}}}",
          "spec.template.spec.containers.0",
          "{\"name\":\"c\",\"image\":\"i\",\"imagePullPolicy\":\"Always\"}");
    check(
        "a new key is appended",
        "{\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":\"d\",\"image\":\"j\"}]}}}}",
        "spec.template.spec.containers.1", "{\"name\":\"d\",\"image\":\"j\"}");
    check("an atomic struct is refused",
          "{\"spec\":{\"selector\":{\"matchLabels\":{\"app\":\"y\"}}}}", "",
          "!invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: "
          ".spec.selector");
    check("an atomic list is refused with its path",
          "{\"spec\":{\"template\":{\"spec\":{\"tolerations\":[{\"key\":\"z\"}]}}}}", "",
          "!may not mutate atomic arrays, maps or structs: .spec.template.spec.tolerations");
    check("an undeclared field is refused", "{\"spec\":{\"nope\":1}}", "",
          "!failed to convert patch object to typed object: .spec.nope: field not declared in "
          "schema");
    check("a wrong type is refused", "{\"spec\":{\"replicas\":\"x\"}}", "",
          "!failed to convert patch object to typed object: .spec.replicas:");
    json_t *o = json_pack("{s:{s:s}}", "metadata", "name", "x"), *c = json_object();
    char *err = NULL;
    json_t *m = gw_apply_config_merge(NULL, o, c, &err);
    tap_ok(m != NULL && json_equal(m, o), "schema-less: an empty configuration changes nothing");
    json_decref(m);
    json_decref(c);
    c = json_pack("{s:{s:{s:s}}}", "metadata", "labels", "k", "v");
    m = gw_apply_config_merge(NULL, o, c, &err);
    tap_ok(m != NULL && json_equal(json_object_get(json_object_get(m, "metadata"), "labels"),
                                   json_object_get(json_object_get(c, "metadata"), "labels")),
           "schema-less: objects merge");
    json_decref(m);
    json_decref(c);
    json_decref(o);
    return tap_done();
}
