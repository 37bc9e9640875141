/*
 * DELETE, as kube-apiserver's generic store runs it (store.go Delete, rest.BeforeDelete):
 * DeleteOptions from the body or else the query; preconditions; graceful deletion for pods
 * (deletionTimestamp in the future, the kubelet finishes); the garbage collector's finalizers
 * for Orphan and Foreground propagation and the kinds' defaults (gw_registry_gc.c); an object with
 * finalizers is only marked (deletionTimestamp, deletionGracePeriodSeconds 0) and removed when its
 * last finalizer goes; anything else is removed at once, conditional on the revision the decision
 * saw. Namespaces go through their own registry (the strategy's on_delete:
 * gw_strategy_namespace.h). deletecollection lists with the request's selectors and deletes each
 * object the same way. A corrupt object's unsafe deletion is gw_registry_unsafe.c's.
 */
#include "gw_registry_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gw_alloc.h"
#include "gw_err.h"

#define UNSAFE_OPTION "ignoreStoreReadErrorWithClusterBreakingPotential"

/* Deletes that lose a race with another write start over this many times. */
#define DELETE_ATTEMPTS 16

typedef struct {
    json_t *doc; /* the options as a DeleteOptions document */
    bool has_grace;
    int64_t grace;
    const char *propagation; /* NULL, "Orphan", "Background", "Foreground" */
    int orphan;              /* orphanDependents: -1 unset, 0 false, 1 true */
    const char *pre_uid, *pre_rv;
    bool dry_run;
    bool ignore_read_error; /* ignoreStoreReadErrorWithClusterBreakingPotential */
} delopts_t;

typedef struct del del_t;
typedef void (*del_done_fn)(del_t *d);

/* One object's deletion; ends in d->done. */
struct del {
    gw_req_t *r;
    const delopts_t *o;
    const char *name, *key;
    gw_fail_t fail;
    int attempts;
    bool deleted;   /* removed from storage (else only marked) */
    json_t *result; /* a dry run's answer, or the marked/deleted object */
    gw_obj_t obj;   /* a stored answer (bytes owned here) */
    uint8_t *bytes;
    int64_t delete_rev;
    bool delete_now;
    bool admission; /* the validating plugins see the object (not for an eviction's delete) */
    bool single;    /* a DELETE of one object (a kind's first-delete mark applies) */
    gw_admission_attrs_t adm;
    gw_store_update_t *su; /* the attempt waiting on them, with */
    json_t *cur;           /* the object it would delete */
    int64_t cur_rev;
    del_done_fn done;
    void *arg;
};

/* ---- options ------------------------------------------------------------------------------ */

/* The options from the query (a body, when there is one, is taken as it is). */
static json_t *
options_from_query(gw_req_t *r, gw_fail_t *f)
{
    const char *grace = gw_req_query(r, "gracePeriodSeconds");
    const char *prop = gw_req_query(r, "propagationPolicy");
    const char *orphan = gw_req_query(r, "orphanDependents"), *dry = gw_req_query(r, "dryRun");
    const char *unsafe = gw_req_query(r, UNSAFE_OPTION);
    json_t *doc = json_object();
    int64_t g;

    if (grace != NULL && grace[0] != '\0') {
        if (!gw_registry__parse_int(grace, &g)) {
            gw_registry__fail(r, f, 400, "BadRequest", NULL,
                              "strconv.ParseInt: parsing \"%s\": invalid syntax", grace);
            json_decref(doc);
            return NULL;
        }
        json_object_set_new(doc, "gracePeriodSeconds", json_integer(g));
    }
    if (prop != NULL && prop[0] != '\0')
        json_object_set_new(doc, "propagationPolicy", json_string(prop));
    if (orphan != NULL && orphan[0] != '\0')
        json_object_set_new(doc, "orphanDependents", json_boolean(strcmp(orphan, "true") == 0));
    if (dry != NULL && dry[0] != '\0')
        json_object_set_new(doc, "dryRun", json_pack("[s]", dry));
    if (unsafe != NULL && unsafe[0] != '\0')
        json_object_set_new(doc, UNSAFE_OPTION, json_boolean(strcmp(unsafe, "true") == 0));
    return doc;
}

/* What the unsafe deletion of a corrupt object cannot be combined with (it reads nothing). */
static void
validate_unsafe(const delopts_t *o, gw_field_errors_t *errs)
{
    static const char *const excluded[] = {"dryRun", "propagationPolicy", "orphanDependents",
                                           "gracePeriodSeconds", "preconditions"};
    const json_t *grace = json_object_get(o->doc, "gracePeriodSeconds");

    if (!o->ignore_read_error)
        return;
    for (size_t i = 0; i < sizeof(excluded) / sizeof(excluded[0]); i++) {
        const json_t *v = json_object_get(o->doc, excluded[i]);
        if (v == NULL || json_is_null(v) || (v == grace && json_integer_value(grace) == 0) ||
            (json_is_array(v) && json_array_size(v) == 0))
            continue;
        gw_ferr_invalid_str(errs, excluded[i], "", "can not be set together with " UNSAFE_OPTION);
    }
}

/* kube's ValidateDeleteOptions. */
static bool
validate_options(gw_req_t *r, const delopts_t *o, gw_fail_t *f)
{
    static const char *const policies[] = {"Foreground", "Background", "Orphan", "nil", NULL};
    const json_t *dry = json_object_get(o->doc, "dryRun"), *v;
    gw_field_errors_t errs = {0};
    size_t i;

    if (o->orphan >= 0 && o->propagation != NULL)
        gw_ferr_invalid_str(&errs, "propagationPolicy", o->propagation,
                            "orphanDependents and deletionPropagation cannot be both set");
    if (o->propagation != NULL && strcmp(o->propagation, "Foreground") != 0 &&
        strcmp(o->propagation, "Background") != 0 && strcmp(o->propagation, "Orphan") != 0)
        gw_ferr_not_supported(&errs, "propagationPolicy", o->propagation, policies);
    json_array_foreach(dry, i, v)
    {
        if (!json_is_string(v) || strcmp(json_string_value(v), "All") != 0) {
            char *msg = gw_sprintf("Unsupported value: []string{\"%s\"}: supported values: "
                                   "\"All\"",
                                   json_string_value(v) ? json_string_value(v) : "");
            gw_ferr_add(&errs, "FieldValueNotSupported", "dryRun", msg);
            free(msg);
            break;
        }
    }
    validate_unsafe(o, &errs);
    if (gw_ferr_count(&errs) == 0)
        return true;
    gw_registry__fail_invalid(r, f, "meta.k8s.io", "DeleteOptions", "", &errs);
    return false;
}

static void
read_fields(delopts_t *o)
{
    const json_t *doc = o->doc, *pre = json_object_get(doc, "preconditions");
    const json_t *grace = json_object_get(doc, "gracePeriodSeconds");
    const json_t *orphan = json_object_get(doc, "orphanDependents");

    o->has_grace = json_is_integer(grace);
    o->grace = json_integer_value(grace);
    o->propagation = json_string_value(json_object_get(doc, "propagationPolicy"));
    o->orphan = json_is_boolean(orphan) ? json_is_true(orphan) : -1;
    o->pre_uid = json_string_value(json_object_get(pre, "uid"));
    o->pre_rv = json_string_value(json_object_get(pre, "resourceVersion"));
    o->dry_run = json_array_size(json_object_get(doc, "dryRun")) > 0;
    o->ignore_read_error = json_is_true(json_object_get(doc, UNSAFE_OPTION));
}

/* The request's DeleteOptions; NULL after replying. */
static delopts_t *
read_options(gw_req_t *r, bool body_allowed)
{
    delopts_t *o = gw_arena_calloc(r->arena, sizeof(*o));
    gw_fail_t f = {0};
    bool empty = true;
    json_t *body = body_allowed ? gw_req_body_object(r, true, &empty) : NULL;

    if (body_allowed && body == NULL && !empty)
        return NULL; /* a bad body was answered */
    o->doc = body != NULL ? json_incref(body) : options_from_query(r, &f);
    if (o->doc == NULL) {
        gw_registry__reply_fail(r, &f);
        return NULL;
    }
    gw_arena_defer(r->arena, (void (*)(void *))json_decref, o->doc);
    read_fields(o);
    if (!json_is_object(o->doc) || !validate_options(r, o, &f)) {
        if (f.code == 0)
            gw_registry__fail(r, &f, 400, "BadRequest", NULL,
                              "decoded object cannot be converted to DeleteOptions");
        gw_registry__reply_fail(r, &f);
        return NULL;
    }
    return o;
}

/* ---- deciding ----------------------------------------------------------------------------- */

typedef enum {
    PLAN_KEEP,   /* a graceful deletion is pending: nothing changes */
    PLAN_MARK,   /* write the object marked for deletion */
    PLAN_DELETE, /* remove it now */
} plan_t;

static bool
preconditions_hold(del_t *d, const json_t *cur)
{
    const char *uid = gw_objmeta_str(cur, "uid"), *rv = gw_objmeta_str(cur, "resourceVersion");
    gw_req_t *r = d->r;
    const char *what = NULL, *want = NULL, *have = NULL;

    if (d->o->pre_uid != NULL && (uid == NULL || strcmp(d->o->pre_uid, uid) != 0)) {
        what = "UID";
        want = d->o->pre_uid;
        have = uid;
    } else if (d->o->pre_rv != NULL && (rv == NULL || strcmp(d->o->pre_rv, rv) != 0)) {
        what = "ResourceVersion";
        want = d->o->pre_rv;
        have = rv;
    }
    if (what == NULL)
        return true;
    if (d->single && gw_registry__strategy(r->resource)->mark_on_first_delete != NULL) {
        /* The kind's own REST Delete checks them first, in its words (CRDs' etcd.go). */
        gw_registry__fail(r, &d->fail, 409, "Conflict", gw_registry__details(r, d->name),
                          "Operation cannot be fulfilled on %s \"%s\": Precondition failed: %s in "
                          "precondition: %s, %s in object meta: %s",
                          gw_registry__qualified_resource(r), d->name, what, want, what,
                          have ? have : "");
        return false;
    }
    /* kube names the kind here (a GroupResource built from the kind). */
    json_t *details = gw_registry__details(r, d->name);
    json_object_set_new(details, "kind", json_string(r->resource->kind));
    gw_registry__fail(r, &d->fail, 409, "Conflict", details,
                      "Operation cannot be fulfilled on %s \"%s\": the %s in the precondition "
                      "(%s) does not match the %s in record (%s). The object might have been %s",
                      gw_registry__qualified_kind(r), d->name, what, want, what, have ? have : "",
                      what[0] == 'U' ? "deleted and then recreated" : "modified");
    return false;
}

static long long
parse_time(const char *s)
{
    long long t;

    return gw_time_parse(s, &t) ? t : (long long)time(NULL);
}

static void
bump_generation(json_t *meta)
{
    json_int_t gen = json_integer_value(json_object_get(meta, "generation"));

    if (gen > 0)
        json_object_set_new(meta, "generation", json_integer(gen + 1));
}

/* A pod's grace period (pod strategy CheckGracefulDelete). */
static int64_t
pod_grace(const del_t *d, const json_t *pod)
{
    const json_t *spec = json_object_get(pod, "spec");
    const json_t *tgps = json_object_get(spec, "terminationGracePeriodSeconds");
    const char *phase = json_string_value(json_object_get(json_object_get(pod, "status"), "phase"));
    int64_t period = d->o->has_grace ? d->o->grace : tgps ? json_integer_value(tgps) : 30;

    if (json_string_length(json_object_get(spec, "nodeName")) == 0)
        period = 0; /* never scheduled: nothing to wait for */
    if (phase != NULL && (strcmp(phase, "Failed") == 0 || strcmp(phase, "Succeeded") == 0))
        period = 0;
    return period < 0 ? 1 : period;
}

/*
 * Graceful kinds (rest.BeforeDelete): a first delete sets deletionTimestamp = now + grace; a
 * later one may only shorten a pending grace period. *grace gets the period in force; returns
 * false when a graceful deletion is already pending and nothing changes.
 */
static bool
graceful(del_t *d, json_t *cur, int64_t *grace)
{
    json_t *meta = gw_objmeta_get(cur);
    const json_t *dt = json_object_get(meta, "deletionTimestamp");
    int64_t old = json_integer_value(json_object_get(meta, "deletionGracePeriodSeconds"));
    int64_t want = d->o->has_grace ? (d->o->grace < 0 ? 1 : d->o->grace) : 0;
    char when[21];

    if (dt != NULL) {
        if (old == 0) {
            *grace = 0;
            return true;
        }
        if (!d->o->has_grace || want >= old)
            return false;
        gw_time_format(parse_time(json_string_value(dt)) - old + want, when);
        *grace = want;
    } else {
        *grace = pod_grace(d, cur);
        gw_time_format((long long)time(NULL) + *grace, when);
        bump_generation(meta);
    }
    json_object_set_new(meta, "deletionTimestamp", json_string(when));
    json_object_set_new(meta, "deletionGracePeriodSeconds", json_integer(*grace));
    return true;
}

/* The garbage collector's finalizers as the options, the object and the kind's default ask
 * (deletionFinalizersForGarbageCollection). */
static void
gc_finalizers(del_t *d, json_t *meta)
{
    gw_registry__gc_finalizers(gw_registry__gc_policy(d->r->resource), d->o->propagation,
                               d->o->orphan, meta);
}

/* markAsDeleting: deletionTimestamp now (once), grace period 0, generation moved once. */
static void
mark(json_t *meta)
{
    char now[21];

    if (json_object_get(meta, "deletionTimestamp") == NULL) {
        bump_generation(meta);
        gw_time_now(now);
        json_object_set_new(meta, "deletionTimestamp", json_string(now));
    }
    json_object_set_new(meta, "deletionGracePeriodSeconds", json_integer(0));
}

static plan_t
plan(del_t *d, json_t *cur)
{
    json_t *meta = gw_objmeta_get(cur);
    int64_t grace = 0;
    const gw_strategy_t *st = gw_registry__strategy(d->r->resource);
    bool is_graceful = st->graceful, pending;

    /* A kind that marks its objects on the first DELETE (CRDs) does only that. */
    if (d->single && st->mark_on_first_delete != NULL && !gw_objmeta_deleting(cur)) {
        st->mark_on_first_delete(cur);
        return PLAN_MARK;
    }

    if (is_graceful && !graceful(d, cur, &grace))
        return PLAN_KEEP;
    gc_finalizers(d, meta);
    pending = json_array_size(json_object_get(meta, "finalizers")) > 0;
    if (pending && !is_graceful)
        mark(meta);
    if (pending || grace > 0)
        return PLAN_MARK;
    return PLAN_DELETE;
}

/* ---- running ------------------------------------------------------------------------------ */

static void del_start(del_t *d);

static void
set_rv(json_t *doc, int64_t rev)
{
    char buf[32];

    snprintf(buf, sizeof(buf), "%" PRId64, rev);
    json_object_set_new(gw_objmeta_get(doc), "resourceVersion", json_string(buf));
}

static void
removed(int err, const gw_obj_t *obj, void *ctx)
{
    del_t *d = ctx;

    if (err == GW_ECONFLICT && ++d->attempts < DELETE_ATTEMPTS) {
        del_start(d);
        return;
    }
    if (err != 0) {
        gw_registry__fail_err(d->r, &d->fail, err, d->name);
    } else {
        d->deleted = true;
        set_rv(d->result, obj->mod_revision);
    }
    d->done(d);
}

static void
del_done(int err, const gw_obj_t *obj, void *ctx)
{
    del_t *d = ctx;
    int rc;

    if (d->fail.code != 0) {
        d->done(d);
    } else if (d->delete_now && d->o->dry_run) {
        d->deleted = true;
        d->done(d);
    } else if (d->delete_now) {
        rc = gw_store_delete(d->r->store, d->key, d->delete_rev, removed, d);
        if (rc != 0)
            removed(rc, NULL, d);
    } else if (d->result != NULL) {
        d->done(d); /* nothing written: pending, or a dry run */
    } else if (err != 0) {
        gw_registry__fail_err(d->r, &d->fail, err, d->name);
        d->done(d);
    } else {
        d->result = gw_registry__parse_stored((const char *)obj->value, obj->value_len,
                                              obj->mod_revision, d->r->resource);
        gw_arena_defer(d->r->arena, (void (*)(void *))json_decref, d->result);
        d->done(d);
    }
}

/* The object may go (or be marked): plan and write, or leave the answer for del_done. */
static void
del_plan(del_t *d, gw_store_update_t *su, json_t *cur, int64_t rev)
{
    plan_t p = plan(d, cur);
    size_t len;
    char *bytes;

    if (p == PLAN_MARK && !d->o->dry_run) {
        bytes = gw_registry__encode_for(d->r->resource, cur, &len);
        gw_store_update_commit(su, (uint8_t *)bytes, len);
        return;
    }
    d->result = cur;
    d->delete_now = p == PLAN_DELETE;
    d->delete_rev = rev;
    gw_store_update_abort(su, GW_ECANCELED);
}

static void
del_validated(gw_admission_err_t *e, void *arg)
{
    del_t *d = arg;

    if (e != NULL) {
        gw_registry__fail_admission(d->r, &d->fail, e, d->name);
        gw_store_update_abort(d->su, GW_ECANCELED);
        return;
    }
    del_plan(d, d->su, d->cur, d->cur_rev);
}

static void
del_mutate(gw_store_update_t *su, const gw_obj_t *current, void *ctx)
{
    del_t *d = ctx;
    json_t *cur;

    if (current == NULL) {
        gw_registry__fail_err(d->r, &d->fail, GW_ENOTFOUND, d->name);
        gw_store_update_abort(su, GW_ECANCELED);
        return;
    }
    if (current->unreadable != NULL) {
        gw_registry__fail_unreadable(d->r, &d->fail, current->unreadable);
        gw_store_update_abort(su, GW_ECANCELED);
        return;
    }
    cur = gw_registry__parse_stored((const char *)current->value, current->value_len,
                                    current->mod_revision, d->r->resource);
    if (cur == NULL || !preconditions_hold(d, cur)) {
        if (cur == NULL)
            gw_registry__fail_err(d->r, &d->fail, GW_EINTERNAL, d->name);
        json_decref(cur);
        gw_store_update_abort(su, GW_ECANCELED);
        return;
    }
    gw_arena_defer(d->r->arena, (void (*)(void *))json_decref, cur);
    if (!d->admission) {
        del_plan(d, su, cur, current->mod_revision);
        return;
    }
    d->su = su;
    d->cur = cur;
    d->cur_rev = current->mod_revision;
    gw_registry__admission_attrs(d->r, &d->adm, GW_ADMISSION_DELETE, NULL, d->name, NULL, cur,
                                 "DeleteOptions", NULL);
    d->adm.options = d->o->doc;
    d->adm.dry_run = d->o->dry_run;
    gw_admission_validate(gw_registry__admission(), &d->adm, del_validated, d);
}

static void
del_start(del_t *d)
{
    int rc;

    d->result = NULL;
    d->delete_now = false;
    rc = gw_store_guaranteed_update(d->r->store, d->key, 0, del_mutate, del_done, d);
    if (rc != 0) {
        gw_registry__fail_err(d->r, &d->fail, rc, d->name);
        d->done(d);
    }
}

/* ---- kinds with their own delete (namespaces) --------------------------------------------- */

static void
own_deleted(int err, const gw_obj_t *obj, bool deleted, void *ctx)
{
    del_t *d = ctx;
    json_t *cur = NULL;

    if (obj != NULL) {
        cur = gw_registry__parse_stored((const char *)obj->value, obj->value_len, obj->mod_revision,
                                        d->r->resource);
        gw_arena_defer(d->r->arena, (void (*)(void *))json_decref, cur);
    }
    if (err == GW_ECONFLICT && cur != NULL) {
        const char *uid = gw_objmeta_str(cur, "uid"), *rv = gw_objmeta_str(cur, "resourceVersion");
        bool by_uid = d->o->pre_uid != NULL && (uid == NULL || strcmp(d->o->pre_uid, uid) != 0);
        gw_registry__fail(d->r, &d->fail, 409, "Conflict", gw_registry__details(d->r, d->name),
                          "Operation cannot be fulfilled on %s \"%s\": Precondition "
                          "failed: %s in precondition: %s, %s in object meta: %s",
                          gw_registry__qualified_resource(d->r), d->name,
                          by_uid ? "UID" : "ResourceVersion", by_uid ? d->o->pre_uid : d->o->pre_rv,
                          by_uid ? "UID" : "ResourceVersion",
                          (by_uid ? uid : rv) ? (by_uid ? uid : rv) : "");
    } else if (err != 0) {
        gw_registry__fail_err(d->r, &d->fail, err, d->name);
    } else {
        d->result = cur;
        d->deleted = deleted;
    }
    d->done(d);
}

/* The strategy's own delete, after NamespaceLifecycle's check (only namespaces have one). */
static void
own_start(del_t *d)
{
    int rc;

    rc = gw_registry__strategy(d->r->resource)
             ->on_delete(d->r->store, d->name, d->o->doc, own_deleted, d);
    if (rc != 0) {
        gw_registry__fail_err(d->r, &d->fail, rc, d->name);
        d->done(d);
    }
}

/* Whether the kind deletes through its own registry (namespaces), which answers with the
 * object. */
static bool
own_delete(const gw_resource_t *res)
{
    return gw_registry__strategy(res)->on_delete != NULL;
}

static del_t *
del_new(gw_req_t *r, const delopts_t *o, const char *name, del_done_fn done, void *arg)
{
    del_t *d = gw_arena_calloc(r->arena, sizeof(*d));

    d->r = r;
    d->o = o;
    d->name = gw_arena_strdup(r->arena, name);
    d->key = gw_registry__object_key(r, name);
    d->done = done;
    d->arg = arg;
    return d;
}

static void
del_run(del_t *d)
{
    if (d->key == NULL) {
        gw_registry__fail(d->r, &d->fail, 400, "BadRequest", NULL, "Name parameter invalid: %s",
                          d->name);
        d->done(d);
    } else if (own_delete(d->r->resource)) {
        own_start(d);
    } else {
        del_start(d);
    }
}

/* ---- DELETE ------------------------------------------------------------------------------- */

static void
reply_deleted(del_t *d)
{
    gw_req_t *r = d->r;
    int code = 200;

    if (d->fail.code != 0) {
        gw_registry__reply_fail(r, &d->fail);
        return;
    }
    /* kube answers 202 only when dependents were explicitly not orphaned and the object
     * is still there. */
    if (!d->deleted && d->o->orphan == 0)
        code = 202;
    if (d->deleted && !r->resource->delete_returns_object && !own_delete(r->resource)) {
        gw_registry__reply_success(r, code, d->name, gw_objmeta_str(d->result, "uid"));
        return;
    }
    gw_registry__reply_doc_as(r, code, d->result);
}

/* The mutating plugins passed the DELETE. */
static void
delete_admitted(gw_admission_err_t *e, void *arg)
{
    del_t *d = arg;

    if (e != NULL) {
        gw_registry__fail_admission(d->r, &d->fail, e, d->name);
        d->done(d);
        return;
    }
    gw_registry__gc_warn(d->r, d->o->propagation, d->o->orphan);
    del_run(d);
}

/* A DELETE or deletecollection as a whole goes through the mutating plugins once, without an
 * object (kube's handlers do it before the store reads anything). */
static void
admit_delete(gw_req_t *r, const delopts_t *o, const char *name, gw_admission_attrs_t *a,
             gw_admission_done_fn done, void *arg)
{
    gw_registry__admission_attrs(r, a, GW_ADMISSION_DELETE, NULL, name, NULL, NULL, "DeleteOptions",
                                 NULL);
    a->options = o->doc;
    a->dry_run = o->dry_run;
    gw_admission_admit(gw_registry__admission(), a, done, arg);
}

void
gw_registry__delete(gw_req_t *r)
{
    const delopts_t *o = read_options(r, true);
    del_t *d;

    if (o != NULL && o->ignore_read_error && r->unsafe_delete) {
        gw_registry__unsafe_delete(r, r->info.name);
    } else if (o != NULL) {
        d = del_new(r, o, r->info.name, reply_deleted, NULL);
        d->admission = true;
        d->single = true;
        admit_delete(r, o, d->name, &d->adm, delete_admitted, d);
    }
}

/* ---- deletes on behalf of another verb (an eviction) ------------------------------------- */

typedef struct {
    gw_registry__deleted_fn fn;
    void *arg;
} inner_t;

static void
inner_done(del_t *d)
{
    inner_t *in = d->arg;

    in->fn(d->r, &d->fail, d->deleted, in->arg);
}

void
gw_registry__delete_object(gw_req_t *r, json_t *options, const char *name,
                           gw_registry__deleted_fn fn, void *arg)
{
    delopts_t *o = gw_arena_calloc(r->arena, sizeof(*o));
    inner_t *in = gw_arena_calloc(r->arena, sizeof(*in));
    gw_fail_t f = {0};

    o->doc = json_incref(options);
    gw_arena_defer(r->arena, (void (*)(void *))json_decref, o->doc);
    read_fields(o);
    if (!validate_options(r, o, &f)) {
        fn(r, &f, false, arg);
        return;
    }
    in->fn = fn;
    in->arg = arg;
    del_run(del_new(r, o, name, inner_done, in));
}

/* ---- deletecollection --------------------------------------------------------------------- */

typedef struct {
    const delopts_t *o;
    gw_req_t *r;
    gw_admission_attrs_t adm;
    json_t *names;
    size_t next;
    char *body; /* the list answer, kept while the deletes run */
    size_t len;
} coll_t;

static void coll_next(gw_req_t *r, coll_t *c);

static void
coll_one_done(del_t *d)
{
    coll_t *c = d->arg;

    /* An object that went away meanwhile is fine, as in kube's DeleteCollection. */
    if (d->fail.code != 0 && d->fail.code != 404) {
        gw_registry__reply_fail(d->r, &d->fail);
        return;
    }
    coll_next(d->r, c);
}

static void
coll_next(gw_req_t *r, coll_t *c)
{
    const char *name;
    del_t *d;

    if (c->next == json_array_size(c->names)) {
        gw_reply_json_bytes(r, 200, c->body, c->len);
        return;
    }
    name = json_string_value(json_array_get(c->names, c->next++));
    d = del_new(r, c->o, name ? name : "", coll_one_done, c);
    d->admission = true;
    del_run(d);
}

static void
coll_listed(gw_req_t *r, const gw_buf_t *body, json_t *docs, json_t *meta, json_t *names, void *arg)
{
    coll_t *c = arg;

    (void)docs;
    (void)meta;
    c->names = json_incref(names);
    gw_arena_defer(r->arena, (void (*)(void *))json_decref, c->names);
    c->body = gw_arena_strndup(r->arena, body->data ? body->data : "", body->len);
    c->len = body->len;
    coll_next(r, c);
}

static void
coll_admitted(gw_admission_err_t *e, void *arg)
{
    coll_t *c = arg;
    gw_fail_t f = {0};

    if (e != NULL) {
        gw_registry__fail_admission(c->r, &f, e, "");
        gw_registry__reply_fail(c->r, &f);
        return;
    }
    gw_registry__gc_warn(c->r, c->o->propagation, c->o->orphan);
    gw_registry__list_run(c->r, false, true, coll_listed, c);
}

void
gw_registry__deletecollection(gw_req_t *r)
{
    const delopts_t *o = read_options(r, true);
    coll_t *c;

    if (o == NULL)
        return; /* answered */
    c = gw_arena_calloc(r->arena, sizeof(*c));
    c->o = o;
    c->r = r;
    admit_delete(r, o, "", &c->adm, coll_admitted, c);
}
