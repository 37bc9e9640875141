/*
 * pods/binding and the bindings collection, as kube-apiserver's BindingREST and
 * LegacyBindingREST (pkg/registry/core/pod/storage/storage.go): a POST of a v1 Binding assigns
 * the pod to target.name in one guaranteed update of the pod (spec.nodeName, the Binding's
 * annotations, the PodScheduled condition), with the Binding's uid and resourceVersion as
 * preconditions, refused with kube's 409 for a pod being deleted, already assigned or still
 * gated. The pod's managedFields are not touched (kube writes to storage directly). Success is
 * kube's 201 Status.
 */
#include "gw_registry_int.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "gw_err.h"

typedef struct {
    gw_req_t *r;
    const char *name, *node, *uid, *rv;
    const json_t *annotations;
    bool dry_run;
    gw_fail_t fail;
} bind_t;

/* ValidatePodBinding; kube returns its aggregate as a plain error: 500 with its text. */
static bool
validate(gw_req_t *r, const json_t *binding)
{
    const json_t *target = json_object_get(binding, "target");
    const char *kind = json_string_value(json_object_get(target, "kind"));
    const char *name = json_string_value(json_object_get(target, "name"));
    const char *errs[2];
    size_t n = 0;

    if (kind != NULL && kind[0] != '\0' && strcmp(kind, "Node") != 0)
        errs[n++] = gw_arena_sprintf(r->arena,
                                     "target.kind: Unsupported value: \"%s\": supported values: "
                                     "\"Node\", \"<empty>\"",
                                     kind);
    if (name == NULL || name[0] == '\0')
        errs[n++] = "target.name: Required value";
    if (n == 0)
        return true;
    gw_registry__reply_plain_error(
        r, 500, n == 1 ? errs[0] : gw_arena_sprintf(r->arena, "[%s, %s]", errs[0], errs[1]));
    return false;
}

/* kube's NewConflict on pods/binding for what the update function refused (`why`). */
static void
conflict(bind_t *b, const char *why)
{
    gw_registry__fail(b->r, &b->fail, 409, "Conflict",
                      json_pack("{s:s,s:s}", "name", b->name, "kind", "pods/binding"),
                      "Operation cannot be fulfilled on pods/binding \"%s\": %s", b->name, why);
}

static bool
precondition_holds(bind_t *b, const json_t *pod)
{
    const char *uid = gw_objmeta_str(pod, "uid"), *rv = gw_objmeta_str(pod, "resourceVersion");
    bool by_uid = b->uid != NULL && b->uid[0] != '\0' && (uid == NULL || strcmp(uid, b->uid));
    bool by_rv = b->rv != NULL && b->rv[0] != '\0' && (rv == NULL || strcmp(rv, b->rv));

    if (!by_uid && !by_rv)
        return true;
    gw_registry__fail(
        b->r, &b->fail, 409, "Conflict", json_pack("{s:s,s:s}", "name", b->name, "kind", "pods"),
        "Operation cannot be fulfilled on pods \"%s\": Precondition failed: %s in "
        "precondition: %s, %s in object meta: %s",
        b->name, by_uid ? "UID" : "ResourceVersion", by_uid ? b->uid : b->rv,
        by_uid ? "UID" : "ResourceVersion", (by_uid ? uid : rv) ? (by_uid ? uid : rv) : "");
    return false;
}

void
gw_registry__pod_condition(json_t *pod, json_t *cond)
{
    json_t *status = json_object_get(pod, "status"), *conds, *c;
    size_t i;

    if (!json_is_object(status)) {
        status = json_object();
        json_object_set_new(pod, "status", status);
    }
    conds = json_object_get(status, "conditions");
    if (!json_is_array(conds)) {
        conds = json_array();
        json_object_set_new(status, "conditions", conds);
    }
    json_array_foreach(conds, i, c)
    {
        if (!json_equal(json_object_get(c, "type"), json_object_get(cond, "type")))
            continue;
        if (json_equal(json_object_get(c, "status"), json_object_get(cond, "status")) &&
            json_object_get(c, "lastTransitionTime") != NULL)
            json_object_set(cond, "lastTransitionTime", json_object_get(c, "lastTransitionTime"));
        json_array_set_new(conds, i, cond);
        return;
    }
    json_array_append_new(conds, cond);
}

/* setPodNodeAndMetadata's update function; false with the failure recorded. */
static bool
assign(bind_t *b, json_t *pod)
{
    json_t *spec = json_object_get(pod, "spec"), *meta = gw_objmeta_get(pod), *ann;
    const char *node = json_string_value(json_object_get(spec, "nodeName"));
    const char *k;
    json_t *v;
    char now[21];

    if (!precondition_holds(b, pod))
        return false;
    if (json_object_get(meta, "deletionTimestamp") != NULL) {
        conflict(b, gw_arena_sprintf(b->r->arena,
                                     "pod %s is being deleted, cannot be assigned to a host",
                                     b->name));
        return false;
    }
    if (node != NULL && node[0] != '\0') {
        conflict(b, gw_arena_sprintf(b->r->arena, "pod %s is already assigned to node \"%s\"",
                                     b->name, node));
        return false;
    }
    if (json_array_size(json_object_get(spec, "schedulingGates")) > 0) {
        conflict(b, gw_arena_sprintf(b->r->arena, "pod %s has non-empty .spec.schedulingGates",
                                     b->name));
        return false;
    }
    if (!json_is_object(spec)) {
        spec = json_object();
        json_object_set_new(pod, "spec", spec);
    }
    json_object_set_new(spec, "nodeName", json_string(b->node));
    ann = json_object_get(meta, "annotations");
    if (json_object_size(b->annotations) > 0 && !json_is_object(ann)) {
        ann = json_object();
        json_object_set_new(meta, "annotations", ann);
    }
    json_object_foreach((json_t *)b->annotations, k, v)
    {
        json_object_set(ann, k, v);
    }
    gw_time_now(now);
    gw_registry__pod_condition(pod, json_pack("{s:s,s:s,s:n,s:s}", "type", "PodScheduled", "status",
                                              "True", "lastProbeTime", "lastTransitionTime", now));
    return true;
}

static void
mutate(gw_store_update_t *su, const gw_obj_t *cur, void *ctx)
{
    bind_t *b = ctx;
    json_t *pod;
    size_t len;
    char *bytes;

    if (cur == NULL) {
        gw_registry__fail(b->r, &b->fail, 404, "NotFound",
                          json_pack("{s:s,s:s}", "name", b->name, "kind", "pods"),
                          "pods \"%s\" not found", b->name);
        gw_store_update_abort(su, GW_ECANCELED);
        return;
    }
    pod = gw_registry__parse_stored((const char *)cur->value, cur->value_len, cur->mod_revision,
                                    NULL);
    if (pod == NULL || !assign(b, pod) || b->dry_run) {
        if (pod == NULL)
            gw_registry__fail_err(b->r, &b->fail, GW_EINTERNAL, b->name);
        json_decref(pod);
        gw_store_update_abort(su, GW_ECANCELED);
        return;
    }
    json_object_del(gw_objmeta_get(pod), "resourceVersion");
    bytes = gw_registry__encode(pod, &len);
    json_decref(pod);
    gw_store_update_commit(su, (uint8_t *)bytes, len);
}

static void
done(int err, const gw_obj_t *obj, void *ctx)
{
    bind_t *b = ctx;

    (void)obj;
    if (b->fail.code != 0) {
        gw_registry__reply_fail(b->r, &b->fail);
        return;
    }
    if (err != 0 && !(err == GW_ECANCELED && b->dry_run)) {
        gw_reply_error(b->r, err, b->name);
        return;
    }
    gw_reply_json(b->r, 201,
                  json_pack("{s:s,s:s,s:{},s:s,s:i}", "kind", "Status", "apiVersion", "v1",
                            "metadata", "status", "Success", "code", 201));
}

/* Past admission: bind the pod in one guaranteed update. */
static void
admitted(void *arg)
{
    bind_t *b = arg;
    char *key = gw_store_object_key("pods", b->r->info.namespace_, b->name);
    int rc = key ? gw_store_guaranteed_update(b->r->store, key, 0, mutate, done, b) : GW_ENOTFOUND;

    free(key);
    if (rc != 0)
        gw_reply_error(b->r, rc, b->name);
}

void
gw_registry__binding(gw_req_t *r)
{
    bind_t *b = gw_arena_calloc(r->arena, sizeof(*b));
    bool sub = r->subresource != NULL;
    const gw_schema_t *schema = sub ? r->subresource->schema : r->resource->schema;
    gw_field_errors_t missing = {0};
    gw_write_opts_t opts;
    const char *raw, *name;
    json_t *body;
    size_t len;

    b->r = r;
    if (!gw_registry__write_opts(r, "CreateOptions", &opts, &b->fail)) {
        gw_registry__reply_fail(r, &b->fail);
        return;
    }
    body = gw_req_body_object(r, false, NULL);
    if (body == NULL)
        return;
    raw = gw_req_body(r, &len);
    if (!gw_registry__check_object(r, body, "v1", "Binding", schema, raw, len,
                                   opts.field_validation, true, &missing, &b->fail) ||
        !gw_registry__check_namespace(r, body, &b->fail)) {
        gw_ferr_clear(&missing);
        gw_registry__reply_fail(r, &b->fail);
        return;
    }
    gw_ferr_clear(&missing);
    name = gw_objmeta_str(body, "name");
    if (sub && (name == NULL || strcmp(name, r->info.name) != 0)) {
        gw_reply_status(r, 400, "BadRequest", NULL,
                        "name in URL does not match name in Binding object");
        return;
    }
    if (!validate(r, body))
        return;
    b->name = gw_arena_strdup(r->arena, name ? name : "");
    b->node = gw_arena_strdup(
        r->arena, json_string_value(json_object_get(json_object_get(body, "target"), "name")));
    b->uid = gw_objmeta_str(body, "uid");
    b->rv = gw_objmeta_str(body, "resourceVersion");
    b->annotations = json_object_get(json_object_get(body, "metadata"), "annotations");
    b->dry_run = opts.dry_run;
    gw_registry__admit_create(r, body, &opts, admitted, b);
}
