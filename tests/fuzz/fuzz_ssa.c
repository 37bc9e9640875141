/* libFuzzer driver for server-side apply and managedFields updates (live objects, their
 * managedFields and apply bodies all come from clients), against the real built-in catalog.
 * The first byte picks the kind (or none), the second the manager, force and subresource; the
 * rest is a live object (or null) and a configuration separated by the first newline. Besides
 * not crashing or leaking, it checks what the module promises: the inputs are never modified;
 * an apply either returns an object whose managedFields decode, with no message, or fails with
 * a message and a status (and conflicts only when it says so); an update leaves managedFields
 * that decode, or live's as they were.
 * Builds on its own: clang -fsanitize=fuzzer,address,undefined ... tests/fuzz/fuzz_ssa.c */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gw_json.c"
#include "gw_alloc.c"
#include "gw_buf.c"
#include "gw_arena.c"
#include "gw_catalog.c"
#include "gw_catalog_config.c"
#include "gw_err.c"
#include "gw_fieldset.c"
#include "gw_gofmt.c"
#include "gw_gozero.c"
#include "gw_log.c"
#include "gw_protobuf.c"
#include "gw_protobuf_encode.c"
#include "gw_protobuf_time.c"
#include "gw_protobuf_wire.c"
#include "gw_schema.c"
#include "gw_schema_proto.c"
#include "gw_ssa.c"
#include "gw_ssa_managed.c"
#include "gw_ssa_merge.c"
#include "gw_ssa_schema.c"
#include "gw_ssa_typed.c"
#include "gw_ssa_zero.c"

#include "fuzz_catalog_blob.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const fuzz_kinds[][4] = {
    {"apps", "v1", "Deployment", "apps/v1"},
    {"", "v1", "Pod", "v1"},
    {"", "v1", "Service", "v1"},
    {"", "v1", "ConfigMap", "v1"},
    {"", "", "", "example.com/v1"},
};

static const char *const managers[] = {"a", "b", "kubectl", "before-first-apply"};

static void
scope_for(uint8_t kind, uint8_t flags, gw_ssa_scope_t *s)
{
    static const char *const main_reset[] = {"status", NULL}, *const status_reset[] = {"spec",
                                                                                       NULL};
    const char *const *k = fuzz_kinds[kind % (sizeof(fuzz_kinds) / sizeof(fuzz_kinds[0]))];
    bool status = flags & 0x8;

    *s = (gw_ssa_scope_t){
        .schema = k[2][0] ? gw_catalog_kind_schema(gw_catalog_builtin(), k[0], k[1], k[2]) : NULL,
        .api_version = k[3],
        .kind = k[2],
        .subresource = status ? "status" : NULL,
        .reset_fields = status ? status_reset : main_reset,
        .now = "2024-01-01T00:00:00Z",
    };
}

static void
entries_decode(const json_t *obj)
{
    const json_t *mf = json_object_get(json_object_get(obj, "metadata"), "managedFields");
    gw_ssa__managers_t m = {0};
    char err[256];

    if (gw_ssa__decode(mf, &m, err, sizeof(err)) != 0)
        abort();
    for (size_t i = 0; i < m.n; i++) {
        if (gw_fieldset_empty(m.e[i].set))
            abort();
    }
    gw_ssa__managers_clear(&m);
}

static void
check_apply(const gw_ssa_scope_t *s, const json_t *live, const json_t *config, uint8_t flags)
{
    gw_ssa_result_t r;
    json_t *out = gw_ssa_apply(s, live, config, managers[flags & 3], flags & 4, &r);

    if (out != NULL && (r.status != GW_SSA_OK || r.message != NULL || r.n_conflicts != 0))
        abort();
    if (out == NULL && (r.status == GW_SSA_OK || r.message == NULL || r.message[0] == '\0'))
        abort();
    if ((r.n_conflicts != 0) != (r.status == GW_SSA_CONFLICT))
        abort();
    if (out != NULL)
        entries_decode(out);
    json_decref(out);
    gw_ssa_result_clear(&r);
}

static void
check_update(const gw_ssa_scope_t *s, const json_t *live, const json_t *config, uint8_t flags)
{
    json_t *obj = json_deep_copy(config);

    gw_ssa_update(s, live, obj, managers[flags & 3]);
    /* entries that do not decode are only ever live's, kept as they were */
    if (!json_equal(json_object_get(json_object_get(obj, "metadata"), "managedFields"),
                    json_object_get(json_object_get(live, "metadata"), "managedFields")))
        entries_decode(obj);
    json_decref(obj);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nl;
    json_t *live, *config, *live0, *config0;
    gw_ssa_scope_t s;
    size_t n;

    if (size < 3)
        return 0;
    nl = memchr(data + 2, '\n', size - 2);
    if (nl == NULL)
        return 0;
    n = (size_t)(nl - data - 2);
    live = json_loadb((const char *)data + 2, n, JSON_DECODE_ANY, NULL);
    config = json_loadb((const char *)nl + 1, size - n - 3, 0, NULL);
    if ((json_is_object(live) || json_is_null(live)) && json_is_object(config)) {
        live0 = json_deep_copy(live);
        config0 = json_deep_copy(config);
        scope_for(data[0], data[1], &s);
        check_apply(&s, json_is_null(live) ? NULL : live, config, data[1]);
        check_update(&s, json_is_null(live) ? NULL : live, config, data[1]);
        if (!json_equal(live, live0) || !json_equal(config, config0))
            abort();
        json_decref(live0);
        json_decref(config0);
    }
    json_decref(live);
    json_decref(config);
    return 0;
}
