/*
 * Updates as kube-apiserver's generic store runs them (registry/generic/registry/store.go
 * Update over GuaranteedUpdate): each attempt reads the current object, derives the request's
 * object from it (a PUT body, a patched copy, a status or scale change), checks the
 * resourceVersion (none: unconditional where the strategy allows; stale: 409), carries the
 * system fields over (BeforeUpdate), prepares and validates it, and then writes it, deletes it
 * when its last finalizer went, or only answers with it for a dry run. A missing object is
 * created where the strategy allows create-on-update. Identical bytes are not written.
 */
#include "gw_registry_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "gw_err.h"

/* A delete-on-update that loses a race to another write starts over this many times. */
#define DELETE_RETRIES 8

static void mutate(gw_store_update_t *su, const gw_obj_t *current, void *ctx);
static void done(int err, const gw_obj_t *obj, void *ctx);

gw_upd_t *
gw_registry__upd_new(gw_req_t *r)
{
    gw_upd_t *u = gw_arena_calloc(r->arena, sizeof(*u));

    u->r = r;
    u->name = r->info.name;
    u->key = gw_registry__object_key(r, r->info.name);
    gw_arena_defer(r->arena, (void (*)(void *))gw_ferr_clear, &u->req_errs);
    return u;
}

static void
keep(gw_upd_t *u, json_t *doc)
{
    gw_arena_defer(u->r->arena, (void (*)(void *))json_decref, doc);
}

bool
gw_registry__check_name(gw_upd_t *u, const json_t *obj)
{
    const char *name = gw_objmeta_str(obj, "name"), *ns = gw_objmeta_str(obj, "namespace");
    const char *want_ns = gw_registry__namespace(u->r);

    if (name == NULL || strcmp(name, u->name) != 0) {
        gw_registry__fail(u->r, &u->fail, 400, "BadRequest", NULL,
                          "the name of the object (%s) does not match the name on the URL (%s)",
                          name ? name : "", u->name);
        return false;
    }
    if (want_ns[0] != '\0' && ns != NULL && ns[0] != '\0' && strcmp(ns, want_ns) != 0) {
        gw_registry__fail(u->r, &u->fail, 400, "BadRequest", NULL,
                          "the namespace of the object (%s) does not match the namespace on the "
                          "request (%s)",
                          ns, want_ns);
        return false;
    }
    return true;
}

/* ---- the resourceVersion ---------------------------------------------------------------- */

static bool
check_rv(gw_upd_t *u, json_t *obj, int64_t current_rev)
{
    json_t *meta = gw_objmeta_get(obj);
    const char *rv = json_string_value(json_object_get(meta, "resourceVersion"));
    gw_field_errors_t errs = {0};
    char *end, buf[32];
    long long v;

    /* kube reads "0" as no resourceVersion at all (ParseUint gives 0 for both). */
    if (rv != NULL && rv[0] != '\0' && rv[strspn(rv, "0")] == '\0')
        rv = NULL;
    if (rv == NULL || rv[0] == '\0') {
        if (gw_registry__strategy(u->r->resource)->conditional_update) {
            gw_ferr_add(&errs, "FieldValueInvalid", "metadata.resourceVersion",
                        "Invalid value: 0x0: must be specified for an update");
            /* kube names the resource here, in the place of the kind. */
            gw_registry__fail_invalid(u->r, &u->fail, u->r->resource->group, u->r->resource->name,
                                      u->name, &errs);
            return false;
        }
        snprintf(buf, sizeof(buf), "%" PRId64, current_rev);
        json_object_set_new(meta, "resourceVersion", json_string(buf));
        return true;
    }
    errno = 0;
    v = strtoll(rv, &end, 10);
    if (errno != 0 || *end != '\0' || v <= 0) {
        gw_registry__fail(u->r, &u->fail, 400, "BadRequest", NULL, "invalid resourceVersion: %s",
                          rv);
        return false;
    }
    if (v != current_rev) {
        gw_registry__fail_err(u->r, &u->fail, GW_ECONFLICT, u->name);
        return false;
    }
    return true;
}

/* ---- preparing and validating ----------------------------------------------------------- */

/* The main resource's PrepareForUpdate, or the subresource's (a scale change is one of the
 * main resource's spec). */
static void
prepare_update(gw_upd_t *u, json_t *obj, const json_t *cur)
{
    const gw_resource_t *res = u->r->resource;

    gw_objmeta_prepare_update(obj, cur);
    if (u->subres == NULL || u->subres->main_prepare)
        gw_registry__prepare_update(res, obj, cur);
    if (u->subres != NULL && u->subres->prepare_update != NULL)
        u->subres->prepare_update(u, obj, cur);
    gw_registry__complete(res, obj);
}

/* Validation of the prepared object (cur NULL: a create); the valid object is canonicalized. */
static bool
validate(gw_upd_t *u, json_t *obj, const json_t *cur)
{
    const gw_resource_t *res = u->r->resource;
    const gw_strategy_t *st = gw_registry__strategy(res);
    gw_field_errors_t errs = {0};

    gw_objmeta_validate(obj, res->namespaced, st->name_rule, &errs);
    if (cur != NULL)
        gw_objmeta_validate_update(obj, cur, &errs);
    gw_registry__validate_kind(res, obj, cur, &errs);
    if (cur != NULL && u->subres == NULL && st->validate_update != NULL)
        st->validate_update(res, obj, cur, &errs);
    if (cur != NULL && u->subres != NULL && u->subres->validate_update != NULL)
        u->subres->validate_update(u, obj, cur, &errs);
    if (gw_ferr_count(&u->req_errs) > 0) {
        size_t i;
        json_t *c;
        if (errs.causes == NULL)
            errs.causes = json_array();
        json_array_foreach(u->req_errs.causes, i, c)
        {
            json_array_append(errs.causes, c);
        }
    }
    if (gw_ferr_count(&errs) == 0) {
        gw_registry__canonicalize(res, obj);
        return true;
    }
    gw_registry__fail_invalid(u->r, &u->fail, res->group, res->kind, u->name, &errs);
    return false;
}

/* ---- deciding ----------------------------------------------------------------------------- */

static void decide(gw_upd_t *u, json_t *obj, const json_t *cur, int64_t current_rev);

static void
escalation_checked(bool ok, void *arg)
{
    gw_upd_t *u = arg;
    json_t *obj = u->checked_obj;
    const json_t *cur = u->checked_cur;

    if (!ok) {
        gw_store_update_abort(u->su, GW_ECANCELED);
        return;
    }
    if (!u->applied)
        gw_registry__track(u->r, u->subres, &u->opts, cur, obj);
    u->created = cur == NULL;
    decide(u, obj, cur, u->checked_rev);
}

/* The validating admission plugins passed: the kind's own check of a main-resource write
 * (RBAC's escalation check). */
static void
validated(gw_admission_err_t *e, void *arg)
{
    gw_upd_t *u = arg;
    gw_strategy_check_fn check =
        u->subres == NULL ? gw_registry__strategy(u->r->resource)->check_write : NULL;

    if (e != NULL) {
        gw_registry__fail_admission(u->r, &u->fail, e, u->name);
        gw_store_update_abort(u->su, GW_ECANCELED);
    } else if (check == NULL) {
        escalation_checked(true, u);
    } else {
        check(u->r, u->checked_obj, u->checked_cur, &u->fail, escalation_checked, u);
    }
}

/* The validated object (cur NULL: a create) past the validating admission plugins and the
 * kind's check, any of which may wait (on etcd, an authorizer), to decide(). */
static void
check_escalation(gw_upd_t *u, json_t *obj, const json_t *cur, int64_t current_rev)
{
    u->checked_obj = obj;
    u->checked_cur = cur;
    u->checked_rev = current_rev;
    u->adm.object = obj;
    u->adm.old_object = cur;
    gw_admission_validate(gw_registry__admission(), &u->adm, validated, u);
}

static void
commit(gw_upd_t *u, json_t *obj)
{
    size_t len;
    char *bytes = gw_registry__encode_for(u->r->resource, obj, &len);

    gw_store_update_commit(u->su, (uint8_t *)bytes, len);
}

/* A failed conversion ends the update with kube's 500. */
static void
conversion_failed(gw_upd_t *u, const char *err)
{
    gw_registry__fail(u->r, &u->fail, 500, "", NULL, "%s", err);
    gw_store_update_abort(u->su, GW_ECANCELED);
}

static void
stored_converted(gw_req_t *r, const char *err, void *arg)
{
    gw_upd_t *u = arg;

    (void)r;
    if (err != NULL)
        conversion_failed(u, err);
    else
        commit(u, json_array_get(u->converting, 0));
}

/* The object is ready: delete it, answer it (dry run), or write it. */
static void
decide(gw_upd_t *u, json_t *obj, const json_t *cur, int64_t current_rev)
{
    if (!u->warned) {
        gw_registry__warnings(u->r, obj, cur);
        u->warned = true;
    }
    if (cur != NULL && gw_registry__delete_on_update(u->r->resource, obj, cur)) {
        u->delete_now = true;
        u->delete_rev = current_rev;
        u->result = obj;
        gw_store_update_abort(u->su, GW_ECANCELED);
        return;
    }
    if (u->opts.dry_run) {
        u->result = obj;
        gw_store_update_abort(u->su, GW_ECANCELED);
        return;
    }
    if (gw_registry__webhook_needed(u->r->resource, obj, gw_registry__storage_api_version(u->r))) {
        /* stored in the storage version, which only the CRD's webhook reaches */
        u->converting = json_pack("[O]", obj);
        keep(u, u->converting);
        gw_registry__webhook_convert(u->r, u->converting, gw_registry__storage_api_version(u->r),
                                     false, stored_converted, u);
        return;
    }
    commit(u, obj);
}

static void
create_admitted(gw_admission_err_t *e, void *ctx)
{
    gw_upd_t *u = ctx;
    json_t *obj = u->result;
    char uid[37], now[21];

    u->result = NULL;
    if (e != NULL) {
        gw_registry__fail_admission(u->r, &u->fail, e, u->name);
        gw_store_update_abort(u->su, GW_ECANCELED);
        return;
    }
    gw_uuid_v4(uid);
    gw_time_now(now);
    gw_objmeta_prepare_create(obj, uid, now);
    gw_registry__prepare_create(u->r->resource, u->r->user, obj);
    if (!validate(u, obj, NULL)) {
        gw_store_update_abort(u->su, GW_ECANCELED);
        return;
    }
    check_escalation(u, obj, NULL, 0);
}

/* A PUT of a missing object, where the kind allows it: kube's create path inside Update. */
static void
create_on_update(gw_upd_t *u, json_t *obj)
{
    gw_req_t *r = u->r;

    if (!gw_registry__check_namespace(r, obj, &u->fail)) {
        gw_store_update_abort(u->su, GW_ECANCELED);
        return;
    }
    json_object_del(gw_objmeta_get(obj), "resourceVersion");
    u->result = obj;
    gw_registry__admission_attrs(r, &u->adm, GW_ADMISSION_CREATE, u->sub, u->name, obj, NULL,
                                 "CreateOptions", &u->opts);
    gw_admission_admit(gw_registry__admission(), &u->adm, create_admitted, u);
}

/* The mutating admission plugins passed: prepare and validate what they left. */
static void
update_admitted(gw_admission_err_t *e, void *ctx)
{
    gw_upd_t *u = ctx;
    json_t *obj = u->checked_obj;
    const json_t *cur = u->checked_cur;

    if (e != NULL) {
        gw_registry__fail_admission(u->r, &u->fail, e, u->name);
        gw_store_update_abort(u->su, GW_ECANCELED);
        return;
    }
    prepare_update(u, obj, cur);
    if (!validate(u, obj, cur)) {
        gw_store_update_abort(u->su, GW_ECANCELED);
        return;
    }
    check_escalation(u, obj, cur, u->checked_rev);
}

/* The current object as a document (NULL when missing and a create may follow); false with
 * the failure recorded. */
static bool
current_doc(gw_upd_t *u, const gw_obj_t *current, json_t **cur)
{
    *cur = NULL;
    if (current == NULL) {
        if (!u->allow_create)
            gw_registry__fail_err(u->r, &u->fail, GW_ENOTFOUND, u->name);
        return u->allow_create;
    }
    if (current->unreadable != NULL) {
        gw_registry__fail_unreadable(u->r, &u->fail, current->unreadable);
        return false;
    }
    *cur = gw_registry__parse_stored((const char *)current->value, current->value_len,
                                     current->mod_revision, u->r->resource);
    if (*cur == NULL) {
        gw_registry__fail_err(u->r, &u->fail, GW_EINTERNAL, u->name);
        return false;
    }
    keep(u, *cur);
    return true;
}

static void mutate_with(gw_upd_t *u, const gw_obj_t *current, json_t *cur);

static void
current_converted(gw_req_t *r, const char *err, void *arg)
{
    gw_upd_t *u = arg;

    (void)r;
    if (err != NULL)
        conversion_failed(u, err);
    else
        mutate_with(u, u->conv_current, json_array_get(u->converting, 0));
}

static void
mutate(gw_store_update_t *su, const gw_obj_t *current, void *ctx)
{
    gw_upd_t *u = ctx;
    json_t *cur;

    u->su = su;
    gw_ferr_clear(&u->req_errs);
    if (!current_doc(u, current, &cur)) {
        gw_store_update_abort(su, GW_ECANCELED);
        return;
    }
    if (cur != NULL &&
        gw_registry__webhook_needed(u->r->resource, cur, u->r->resource->api_version)) {
        /* the request's version of the current object comes from the CRD's webhook */
        u->conv_current = current;
        u->converting = json_pack("[O]", cur);
        keep(u, u->converting);
        gw_registry__webhook_convert(u->r, u->converting, u->r->resource->api_version, false,
                                     current_converted, u);
        return;
    }
    mutate_with(u, current, cur);
}

/* An attempt with the current object in the request's version. */
static void
mutate_with(gw_upd_t *u, const gw_obj_t *current, json_t *cur)
{
    gw_store_update_t *su = u->su;
    json_t *obj = NULL;
    bool ok;

    ok = u->derive(u, cur, &obj);
    if (obj != NULL)
        keep(u, obj); /* also what a failed check left behind */
    if (!ok) {
        gw_store_update_abort(su, GW_ECANCELED);
        return;
    }
    gw_registry__default(u->r->resource, obj);
    if (cur == NULL) {
        create_on_update(u, obj);
        return;
    }
    if (!check_rv(u, obj, current->mod_revision) ||
        !gw_registry__check_namespace(u->r, obj, &u->fail)) {
        gw_store_update_abort(su, GW_ECANCELED);
        return;
    }
    u->checked_obj = obj;
    u->checked_cur = cur;
    u->checked_rev = current->mod_revision;
    gw_registry__admission_attrs(u->r, &u->adm, GW_ADMISSION_UPDATE, u->sub, u->name, obj, cur,
                                 "UpdateOptions", &u->opts);
    gw_admission_admit(gw_registry__admission(), &u->adm, update_admitted, u);
}

/* ---- answering ---------------------------------------------------------------------------- */

/* A subresource's own view (a Scale) is answered as plain JSON; the object may be a Table. */
static void
reply_doc(gw_upd_t *u, int code, json_t *doc)
{
    json_t *out;

    if (u->present == NULL) {
        gw_registry__reply_doc(u->r, code, doc);
        return;
    }
    out = u->present(u, doc);
    gw_reply_json(u->r, code, out);
}

static void
reply_obj(gw_upd_t *u, int code, const gw_obj_t *obj)
{
    json_t *doc;

    if (u->present == NULL) {
        gw_registry__reply_obj(u->r, code, obj);
        return;
    }
    doc = gw_registry__parse_stored((const char *)obj->value, obj->value_len, obj->mod_revision,
                                    u->r->resource);
    if (doc == NULL) {
        gw_reply_error(u->r, GW_EINTERNAL, u->name);
        return;
    }
    reply_doc(u, code, doc);
    json_decref(doc);
}

/* The last finalizer went: delete at the revision the update saw, and answer with the object
 * as the update left it (kube answers a PUT with an object even then). */
static void
deleted(int err, const gw_obj_t *obj, void *ctx)
{
    gw_upd_t *u = ctx;
    char rv[32];

    if (err == GW_ECONFLICT && ++u->deletes < DELETE_RETRIES) {
        gw_registry__upd_run(u);
        return;
    }
    if (err != 0 && err != GW_ENOTFOUND) {
        gw_reply_error(u->r, err, u->name);
        return;
    }
    if (obj != NULL) {
        snprintf(rv, sizeof(rv), "%" PRId64, obj->mod_revision);
        json_object_set_new(gw_objmeta_get(u->result), "resourceVersion", json_string(rv));
    }
    reply_doc(u, 200, u->result);
}

static void
done(int err, const gw_obj_t *obj, void *ctx)
{
    gw_upd_t *u = ctx;
    int rc;

    if (u->fail.code != 0) {
        gw_registry__reply_fail(u->r, &u->fail);
    } else if (u->delete_now && !u->opts.dry_run) {
        u->delete_now = false;
        rc = gw_store_delete(u->r->store, u->key, u->delete_rev, deleted, u);
        if (rc != 0)
            gw_reply_error(u->r, rc, u->name);
    } else if (u->result != NULL) {
        reply_doc(u, u->created ? 201 : 200, u->result);
    } else if (err == GW_ENOTFOUND || err == GW_ECONFLICT) {
        gw_registry__fail_err(u->r, &u->fail, err, u->name);
        gw_registry__reply_fail(u->r, &u->fail);
    } else if (err != 0) {
        gw_registry__reply_write_error(u->r, err, u->name);
    } else {
        reply_obj(u, u->created ? 201 : 200, obj);
    }
}

void
gw_registry__upd_run(gw_upd_t *u)
{
    int rc;

    u->result = NULL;
    u->created = false;
    u->delete_now = false;
    if (u->key == NULL) {
        gw_reply_status(u->r, 400, "BadRequest", NULL, "Name parameter invalid: %s", u->name);
        return;
    }
    rc = gw_store_guaranteed_update(u->r->store, u->key, 0, mutate, done, u);
    if (rc != 0)
        gw_reply_error(u->r, rc, u->name);
}

/* ---- PUT ---------------------------------------------------------------------------------- */

/* The PUT body and what decoding it found missing (reported on every attempt). */
typedef struct {
    json_t *body;
    gw_field_errors_t missing;
} put_t;

static bool
derive_put(gw_upd_t *u, const json_t *cur, json_t **out)
{
    put_t *p = u->arg;

    (void)cur;
    if (p->missing.causes != NULL)
        u->req_errs.causes = json_deep_copy(p->missing.causes);
    *out = json_deep_copy(p->body);
    return true;
}

void
gw_registry__update(gw_req_t *r)
{
    gw_upd_t *u = gw_registry__upd_new(r);
    put_t *p = gw_arena_calloc(r->arena, sizeof(*p));
    json_t *body;
    const char *raw;
    size_t len;

    gw_arena_defer(r->arena, (void (*)(void *))gw_ferr_clear, &p->missing);
    if (!gw_registry__write_opts(r, "UpdateOptions", &u->opts, &u->fail)) {
        gw_registry__reply_fail(r, &u->fail);
        return;
    }
    body = gw_req_body_object(r, false, NULL);
    if (body == NULL)
        return; /* answered: the arena, p included, is gone */
    p->body = body;
    raw = gw_req_body(r, &len);
    if (!gw_registry__check_object(r, p->body, NULL, NULL, r->resource->schema, raw, len,
                                   u->opts.field_validation, true, &p->missing, &u->fail) ||
        !gw_registry__check_name(u, p->body)) {
        gw_registry__reply_fail(r, &u->fail);
        return;
    }
    u->arg = p;
    u->derive = derive_put;
    u->allow_create = gw_registry__strategy(r->resource)->create_on_update;
    u->warned = false;
    gw_registry__upd_run(u);
}
