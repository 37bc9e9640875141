/*
 * POST on a collection, in kube-apiserver's order: options, decoding (apiVersion/kind, field
 * validation), the namespace in the body, the mutating admission plugins, then the generic
 * store's create: system fields, generateName, the kind's PrepareForCreate, validation, the
 * validating admission plugins, and one etcd transaction that only succeeds if the key does
 * not exist yet.
 */
#include "gw_registry_int.h"

#include <stdlib.h>
#include <string.h>

#include "gw_crd.h"
#include "gw_err.h"

/* kube retries a create whose generated name collides, each time with a new name. */
#define GENERATE_NAME_ATTEMPTS 8

typedef struct {
    gw_req_t *r;
    gw_write_opts_t opts;
    json_t *body;               /* the checked request object (a named create's c->obj too) */
    json_t *obj;                /* this attempt's object */
    gw_field_errors_t req_errs; /* required fields the body lacks, for the 422 */
    const char *key, *name;
    bool generated;
    int attempts;
    gw_admission_attrs_t adm;
    gw_fail_t fail;
    json_t *converting;  /* [c->obj in the storage version], through the conversion webhook */
    int64_t ns_revision; /* the namespace's revision NamespaceLifecycle checked (0: live) */
    json_t *stored;      /* the object the write took, for a write after a live recheck */
} create_t;

static void attempt(create_t *c);
static void store(create_t *c, json_t *obj);

static const char *
or_empty(const char *s)
{
    return s != NULL ? s : "";
}

static void
keep(gw_req_t *r, json_t *doc)
{
    gw_arena_defer(r->arena, (void (*)(void *))json_decref, doc);
}

/* An existing key: AlreadyExists, saying so when that object is on its way out. */
static void
existing(int err, const gw_obj_t *obj, void *arg)
{
    create_t *c = arg;
    json_t *doc = err == 0
                      ? gw_registry__parse_stored((const char *)obj->value, obj->value_len, 0, NULL)
                      : NULL;
    bool deleting = gw_objmeta_str(doc, "deletionTimestamp") != NULL;

    json_decref(doc);
    if (c->generated && c->attempts >= GENERATE_NAME_ATTEMPTS) {
        json_t *d = gw_registry__details(c->r, c->name);
        json_object_set_new(d, "retryAfterSeconds", json_integer(1));
        gw_reply_status(c->r, 409, "AlreadyExists", d,
                        "%s \"%s\" already exists, the server was not able to generate a unique "
                        "name for the object",
                        gw_registry__qualified_resource(c->r), c->name);
        return;
    }
    gw_registry__fail_err(c->r, &c->fail, GW_EEXIST, c->name);
    if (deleting)
        c->fail.message =
            gw_arena_sprintf(c->r->arena, "object is being deleted: %s", c->fail.message);
    gw_registry__reply_fail(c->r, &c->fail);
}

/* The namespace checked live after the guarded write found it changed: the write again,
 * after that check as any write after a live check. */
static void
namespace_rechecked(gw_admission_err_t *e, void *arg)
{
    create_t *c = arg;

    if (e != NULL) {
        gw_registry__fail_admission(c->r, &c->fail, e, c->name);
        gw_registry__reply_fail(c->r, &c->fail);
        return;
    }
    store(c, c->stored);
}

static void
created(int err, const gw_obj_t *obj, void *arg)
{
    create_t *c = arg;
    int rc;

    if (err == GW_ECONFLICT && c->ns_revision > 0) {
        /* the namespace changed since the read cache's copy NamespaceLifecycle admitted */
        c->ns_revision = 0;
        gw_admission_namespace_check(&c->adm, namespace_rechecked, c);
        return;
    }
    if (err == 0) {
        gw_registry__reply_obj(c->r, 201, obj);
        return;
    }
    if (err == GW_EEXIST && c->generated && c->attempts < GENERATE_NAME_ATTEMPTS) {
        attempt(c);
        return;
    }
    if (err != GW_EEXIST) {
        gw_reply_error(c->r, err, c->name);
        return;
    }
    rc = gw_store_get(c->r->store, c->key, 0, existing, c);
    if (rc != 0)
        gw_reply_error(c->r, GW_EEXIST, c->name);
}

/* A dry run writes nothing but still refuses a name that is taken. */
static void
dry_checked(int err, const gw_obj_t *obj, void *arg)
{
    create_t *c = arg;

    if (err == 0) {
        existing(0, obj, c);
    } else if (err == GW_ENOTFOUND) {
        gw_registry__reply_doc(c->r, 201, c->obj);
    } else {
        gw_reply_error(c->r, err, c->name);
    }
}

/* The generic store's create up to validation (before RBAC's escalation check); false with
 * the failure recorded. */
static bool
prepare(create_t *c)
{
    gw_req_t *r = c->r;
    json_t *meta = gw_objmeta_get(c->obj);
    const char *gen = json_string_value(json_object_get(meta, "generateName"));
    char uid[37], now[21];

    gw_uuid_v4(uid);
    gw_time_now(now);
    gw_objmeta_prepare_create(c->obj, uid, now);
    if (json_string_length(json_object_get(meta, "name")) == 0 && gen != NULL && gen[0]) {
        char *name = gw_objmeta_generate_name(gen);
        json_object_set_new(meta, "name", json_string(name));
        free(name);
        c->generated = true;
    }
    c->name = gw_arena_strdup(r->arena, or_empty(gw_objmeta_str(c->obj, "name")));
    gw_registry__prepare_create(r->resource, r->user, c->obj);
    gw_objmeta_validate(c->obj, r->resource->namespaced,
                        gw_registry__strategy(r->resource)->name_rule, &c->req_errs);
    gw_registry__validate_kind(r->resource, c->obj, NULL, &c->req_errs);
    if (gw_ferr_count(&c->req_errs) > 0) {
        gw_registry__fail_invalid(r, &c->fail, r->resource->group, r->resource->kind, c->name,
                                  &c->req_errs);
        return false;
    }
    gw_registry__canonicalize(r->resource, c->obj);
    return true;
}

/* The write, guarded by the namespace's revision when NamespaceLifecycle left one. */
static void
store(create_t *c, json_t *obj)
{
    size_t len;
    char *bytes = gw_registry__encode_for(c->r->resource, obj, &len), *ns_key;
    int rc;

    c->stored = obj;
    if (c->ns_revision > 0) {
        ns_key = gw_store_object_key("namespaces", NULL, c->adm.namespace_);
        rc = gw_store_create_guarded(c->r->store, c->key, (const uint8_t *)bytes, len, ns_key,
                                     c->ns_revision, created, c);
        free(ns_key);
    } else {
        rc = gw_store_create(c->r->store, c->key, (const uint8_t *)bytes, len, 0, created, c);
    }
    free(bytes);
    if (rc != 0)
        gw_registry__reply_write_error(c->r, rc, c->name);
}

static void
store_converted(gw_req_t *r, const char *err, void *arg)
{
    create_t *c = arg;

    if (err != NULL)
        gw_registry__reply_conversion_error(r, err);
    else
        store(c, json_array_get(c->converting, 0));
}

/* The validated object is written (or, for a dry run, checked against what is stored). */
static void
write_checked(bool ok, void *arg)
{
    create_t *c = arg;
    gw_req_t *r = c->r;
    int rc;

    if (!ok) {
        gw_registry__reply_fail(r, &c->fail);
        return;
    }
    if (c->attempts == 1)
        gw_registry__warnings(r, c->obj, NULL);
    gw_registry__track(r, NULL, &c->opts, NULL, c->obj);
    c->key = gw_registry__object_key(r, c->name);
    if (c->opts.dry_run) {
        rc = gw_store_get(r->store, c->key, 0, dry_checked, c);
        if (rc != 0)
            gw_reply_error(r, rc, c->name);
        return;
    }
    if (gw_registry__webhook_needed(r->resource, c->obj, gw_registry__storage_api_version(r))) {
        /* stored in the storage version, which only the CRD's webhook reaches */
        c->converting = json_pack("[O]", c->obj);
        keep(r, c->converting);
        gw_registry__webhook_convert(r, c->converting, gw_registry__storage_api_version(r), false,
                                     store_converted, c);
        return;
    }
    store(c, c->obj);
}

/* The validating plugins passed: the kind's own check of the write (RBAC's escalation check),
 * then the write. */
static void
validated(gw_admission_err_t *e, void *arg)
{
    create_t *c = arg;
    gw_strategy_check_fn check = gw_registry__strategy(c->r->resource)->check_write;

    if (e != NULL) {
        gw_registry__fail_admission(c->r, &c->fail, e, c->name);
        gw_registry__reply_fail(c->r, &c->fail);
    } else if (check == NULL) {
        write_checked(true, c);
    } else {
        check(c->r, c->obj, NULL, &c->fail, write_checked, c);
    }
}

/* Whether the name is generated (prepare): only then may a create need another attempt,
 * which starts again from the body. */
static bool
name_generated(const json_t *body)
{
    const json_t *meta = json_object_get(body, "metadata");
    const char *gen = json_string_value(json_object_get(meta, "generateName"));

    return json_string_length(json_object_get(meta, "name")) == 0 && gen != NULL && gen[0];
}

static void
attempt(create_t *c)
{
    gw_req_t *r = c->r;

    c->attempts++;
    /* a named create has one attempt: it prepares the body itself, without a copy */
    c->obj = c->body;
    if (name_generated(c->body)) {
        c->obj = json_deep_copy(c->body);
        keep(r, c->obj);
    }
    if (!prepare(c)) {
        gw_registry__reply_fail(r, &c->fail);
        return;
    }
    c->adm.name = c->name;
    c->adm.object = c->obj;
    gw_admission_validate(gw_registry__admission(), &c->adm, validated, c);
}

/* The mutating plugins passed (they changed c->body as they saw fit). */
static void
admitted(gw_admission_err_t *e, void *arg)
{
    create_t *c = arg;

    if (e == NULL) {
        attempt(c);
        return;
    }
    gw_registry__fail_admission(c->r, &c->fail, e, c->adm.name);
    gw_registry__reply_fail(c->r, &c->fail);
}

/* The body as kube decodes it, with the namespace checked; false after replying. */
static bool
read_body(create_t *c)
{
    gw_req_t *r = c->r;
    json_t *body = gw_req_body_object(r, false, NULL);
    size_t len;
    const char *raw;

    /* Not even to c: a body that cannot be decoded was answered, which freed the arena. */
    if (body == NULL)
        return false;
    c->body = body;
    raw = gw_req_body(r, &len);
    if (!gw_registry__check_object(r, c->body, NULL, NULL, r->resource->schema, raw, len,
                                   c->opts.field_validation, true, &c->req_errs, &c->fail) ||
        !gw_registry__check_namespace(r, c->body, &c->fail)) {
        gw_registry__reply_fail(r, &c->fail);
        return false;
    }
    /* kube's etcd3 store refuses this before anything is written (a 500, not a 4xx). */
    if (json_string_length(
            json_object_get(json_object_get(c->body, "metadata"), "resourceVersion")) > 0) {
        gw_reply_status(r, 500, "", NULL,
                        "resourceVersion should not be set on objects to be created");
        return false;
    }
    return true;
}

/* kube's CR handler refuses creates once the CRD is being deleted (its finalizer is emptying
 * the collection). */
static bool
crd_terminating(gw_req_t *r)
{
    const gw_crd_version_t *cv = gw_crd_version_of(r->resource);

    if (cv == NULL || !gw_crd_terminating(cv->crd))
        return false;
    gw_reply_status(r, 405, "MethodNotAllowed",
                    json_pack("{s:s,s:s}", "group", r->resource->group, "kind", r->resource->name),
                    "create not allowed while custom resource definition is terminating");
    return true;
}

void
gw_registry__create(gw_req_t *r)
{
    create_t *c = gw_arena_calloc(r->arena, sizeof(*c));

    if (crd_terminating(r))
        return;
    c->r = r;
    gw_arena_defer(r->arena, (void (*)(void *))gw_ferr_clear, &c->req_errs);
    if (!gw_registry__write_opts(r, "CreateOptions", &c->opts, &c->fail)) {
        gw_registry__reply_fail(r, &c->fail);
        return;
    }
    if (!read_body(c))
        return;
    gw_registry__default(r->resource, c->body);
    gw_registry__admission_attrs(
        r, &c->adm, GW_ADMISSION_CREATE, NULL,
        gw_arena_strdup(r->arena, or_empty(gw_objmeta_str(c->body, "name"))), c->body, NULL,
        "CreateOptions", &c->opts);
    if (!c->opts.dry_run)
        c->adm.ns_revision = &c->ns_revision; /* the write can be guarded (store) */
    gw_admission_admit(gw_registry__admission(), &c->adm, admitted, c);
}
