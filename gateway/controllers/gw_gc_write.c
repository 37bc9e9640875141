/*
 * The garbage collector's writes, straight to etcd as the generic store would make them:
 * metadata edits (finalizers, ownerReferences) under the mod revision as precondition, the
 * delete with uid / revision preconditions and a propagation policy, and its one Event.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gw_alloc.h"
#include "gw_ctl_int.h"
#include "gw_err.h"
#include "gw_gc_int.h"
#include "gw_log.h"
#include "gw_uuid.h"

#define MAX_ATTEMPTS 10

typedef struct write write_t;
typedef void (*step_fn)(write_t *w, json_t *obj, int64_t rev);

struct write {
    gw_gc_t *c;
    char *key, *uid;
    int attempts;
    bool removed; /* the last write removed the object */
    step_fn step; /* what to do with the object as read */
    gw_gc__done_fn done;
    void *arg;
    /* edit */
    gw_gc__edit_fn edit;
    void *edit_arg;
    /* delete */
    int64_t rev;
    json_t *owners;
    gw_gc_policy_t policy;
    /* remove_finalizer */
    char *finalizer;
};

/* done always fires, GW_ECANCELED once the collector stops: its caller frees what it holds. */
static void
finish(write_t *w, int err)
{
    w->done(err, w->arg);
    free(w->key);
    free(w->uid);
    free(w->finalizer);
    json_decref(w->owners);
    free(w);
}

static void read_again(write_t *w);

static void
written(int err, const gw_obj_t *obj, void *arg)
{
    write_t *w = arg;
    (void)obj;

    if (w->c->stopping)
        finish(w, GW_ECANCELED);
    else if (err == GW_ECONFLICT && ++w->attempts < MAX_ATTEMPTS)
        read_again(w);
    else
        finish(w, err);
}

static bool
uid_is(const json_t *o, const char *uid)
{
    const char *u = json_string_value(json_object_get(json_object_get(o, "metadata"), "uid"));
    return u != NULL && strcmp(u, uid) == 0;
}

static void
got(int err, const gw_obj_t *obj, void *arg)
{
    write_t *w = arg;
    json_t *o = err == 0 ? gw_ctl__parse(obj) : NULL;

    if (w->c->stopping)
        finish(w, GW_ECANCELED);
    else if (err != 0)
        finish(w, err);
    else if (o == NULL || !uid_is(o, w->uid))
        finish(w, GW_ENOTFOUND); /* another object under the key now */
    else
        w->step(w, o, obj->mod_revision);
    json_decref(o);
}

static void
read_again(write_t *w)
{
    int rc = gw_store_get(w->c->store, w->key, 0, got, w);
    if (rc != 0)
        finish(w, rc);
}

static write_t *
write_new(gw_gc_t *c, const char *key, const char *uid, step_fn step, gw_gc__done_fn done,
          void *arg)
{
    write_t *w = gw_calloc(1, sizeof(*w));

    *w = (write_t){.c = c,
                   .key = gw_strdup(key),
                   .uid = gw_strdup(uid),
                   .step = step,
                   .done = done,
                   .arg = arg};
    return w;
}

/* Store o under the precondition rev: removed instead when it is being deleted without grace
 * left and no finalizer holds it (the generic store's update, ShouldDeleteDuringUpdate). */
static void
store(write_t *w, json_t *o, int64_t rev)
{
    size_t n_fins = gw_json_strings_count_at(o, "metadata", "finalizers");
    const json_t *grace =
        json_object_get(json_object_get(o, "metadata"), "deletionGracePeriodSeconds");
    int rc;

    if (gw_objmeta_deleting(o) && n_fins == 0 && json_integer_value(grace) == 0) {
        rc = gw_store_delete(w->c->store, w->key, rev, written, w);
    } else {
        size_t len;
        uint8_t *value = gw_ctl__dump(o, &len);
        rc = gw_store_update(w->c->store, w->key, value, len, rev, written, w);
        free(value);
    }
    if (rc != 0)
        finish(w, rc);
}

/* ---- edits ----------------------------------------------------------------------------------- */

static void
edit_step(write_t *w, json_t *o, int64_t rev)
{
    json_t *before = json_deep_copy(o);
    int rc = w->edit(o, w->edit_arg);

    if (rc != 0)
        finish(w, rc);
    else if (json_equal(before, o))
        finish(w, 0);
    else
        store(w, o, rev);
    json_decref(before);
}

void
gw_gc__edit(gw_gc_t *c, const char *key, const char *uid, gw_gc__edit_fn edit, gw_gc__done_fn done,
            void *arg)
{
    write_t *w = write_new(c, key, uid, edit_step, done, arg);

    w->edit = edit;
    w->edit_arg = arg;
    read_again(w);
}

static int
drop_finalizer(json_t *o, void *arg)
{
    write_t *w = arg;

    gw_json_strings_remove_at(o, "metadata", "finalizers", w->finalizer);
    return 0;
}

void
gw_gc__remove_finalizer(gw_gc_t *c, const char *key, const char *uid, const char *finalizer,
                        gw_gc__done_fn done, void *arg)
{
    write_t *w = write_new(c, key, uid, edit_step, done, arg);

    w->finalizer = gw_strdup(finalizer);
    w->edit = drop_finalizer;
    w->edit_arg = w;
    read_again(w);
}

/* ---- delete ---------------------------------------------------------------------------------- */

/* markAsDeleting: the next generation and a deletionTimestamp once, no grace. */
static void
mark(json_t *o)
{
    json_t *meta = gw_json_child(o, "metadata");
    char now[GW_TIME_LEN + 1];

    if (!gw_objmeta_deleting(o)) {
        json_int_t gen = json_integer_value(json_object_get(meta, "generation"));
        if (gen > 0)
            json_object_set_new(meta, "generation", json_integer(gen + 1));
        json_object_set_new(meta, "deletionTimestamp", json_string(gw_time_now(now)));
    }
    json_object_set_new(meta, "deletionGracePeriodSeconds", json_integer(0));
}

/* A pod on a node is deleted gracefully, as the pod strategy does it: deletionTimestamp at now +
 * grace and the grace period (its kubelet removes it). Returns whether o was so marked. */
static bool
mark_graceful(write_t *w, json_t *o)
{
    int64_t grace = strncmp(w->key, "pods/", 5) == 0 ? gw_gc_pod_grace(o) : 0;
    json_t *meta = gw_json_child(o, "metadata");
    char when[GW_TIME_LEN + 1];

    if (grace == 0)
        return false;
    if (gw_objmeta_deleting(o)) /* a graceful deletion pending: a delete without options
                                   leaves it as it is */
        return json_integer_value(json_object_get(meta, "deletionGracePeriodSeconds")) > 0;
    json_int_t gen = json_integer_value(json_object_get(meta, "generation"));
    if (gen > 0)
        json_object_set_new(meta, "generation", json_integer(gen + 1));
    json_object_set_new(meta, "deletionTimestamp",
                        json_string(gw_time_format((long long)time(NULL) + grace, when)));
    json_object_set_new(meta, "deletionGracePeriodSeconds", json_integer(grace));
    return true;
}

static void
delete_step(write_t *w, json_t *o, int64_t rev)
{
    const json_t *owners = json_object_get(json_object_get(o, "metadata"), "ownerReferences");

    if (w->rev > 0 && rev != w->rev) {
        /* changed since it was judged: go on only if its owners did not */
        if (!json_equal(owners != NULL ? owners : json_null(),
                        w->owners != NULL ? w->owners : json_null())) {
            finish(w, GW_ECONFLICT);
            return;
        }
        w->rev = 0;
    }
    json_t *before = json_deep_copy(o);
    gw_gc_policy_finalizers(o, w->policy);
    bool held = gw_json_strings_count_at(o, "metadata", "finalizers") > 0;
    bool graceful = mark_graceful(w, o);
    if (graceful || held) {
        if (!graceful)
            mark(o); /* no grace: the finalizers' owners finish it */
        if (json_equal(before, o))
            finish(w, 0); /* deleted already, the same finalizers: nothing to change */
        else
            store(w, o, rev);
    } else {
        int rc = gw_store_delete(w->c->store, w->key, rev, written, w);
        if (rc != 0)
            finish(w, rc);
    }
    json_decref(before);
}

void
gw_gc__delete(gw_gc_t *c, const char *key, const char *uid, const json_t *current, int64_t rev,
              const json_t *owners, gw_gc_policy_t policy, gw_gc__done_fn done, void *arg)
{
    write_t *w = write_new(c, key, uid, delete_step, done, arg);

    w->rev = rev;
    w->owners = owners != NULL ? json_deep_copy(owners) : NULL;
    w->policy = policy;
    if (current == NULL || rev <= 0) {
        read_again(w);
        return;
    }
    json_t *o = json_deep_copy(current); /* as just read: no second read */
    delete_step(w, o, rev);
    json_decref(o);
}

/* ---- the Event ---------------------------------------------------------------------------------
 */

static void
event_written(int err, const gw_obj_t *obj, void *arg)
{
    char *what = arg;
    (void)obj;

    if (err != 0 && err != GW_ECANCELED)
        gw_log_warn(NULL, GW_GC__NAME ": recording event %s: %s", what, gw_strerror(err));
    free(what);
}

/* client-go's makeEvent for a Warning from this controller. */
static json_t *
make_event(const gw_gc_node_t *dep, const char *message)
{
    char now[GW_TIME_LEN + 1], uid[GW_UUID_LEN + 1];
    struct timespec ts;
    const char *ns = dep->ns[0] != '\0' ? dep->ns : "default";

    clock_gettime(CLOCK_REALTIME, &ts);
    gw_time_now(now);
    gw_uuid_v4(uid);
    char *name =
        gw_sprintf("%s.%llx", dep->name,
                   (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec);
    json_t *involved = json_pack("{s:s}", "kind", dep->kind);
    if (dep->ns[0] != '\0')
        json_object_set_new(involved, "namespace", json_string(dep->ns));
    json_object_set_new(involved, "name", json_string(dep->name));
    json_object_set_new(involved, "uid", json_string(dep->uid));
    json_object_set_new(involved, "apiVersion", json_string(dep->api_version));
    json_t *ev = json_pack(
        "{s:s,s:s,s:{s:s,s:s,s:s,s:s},s:o,s:s,s:s,s:{s:s},s:s,s:s,s:i,s:s,s:n,s:s,s:s}", "kind",
        "Event", "apiVersion", "v1", "metadata", "name", name, "namespace", ns, "uid", uid,
        "creationTimestamp", now, "involvedObject", involved, "reason", "OwnerRefInvalidNamespace",
        "message", message, "source", "component", GW_GC__NAME, "firstTimestamp", now,
        "lastTimestamp", now, "count", 1, "type", "Warning", "eventTime", "reportingComponent",
        GW_GC__NAME, "reportingInstance", "");
    free(name);
    return ev;
}

void
gw_gc__report_invalid_namespace(gw_gc_t *c, const gw_gc_node_t *dep, const gw_gc_ref_t *owner)
{
    char *pair = gw_sprintf("%s/%s", dep->uid, owner->uid);

    if (json_object_get(c->reported, pair) != NULL) {
        free(pair);
        return;
    }
    json_object_set_new(c->reported, pair, json_true());
    free(pair);
    /* kube's objectReference String() of the owner as the dependent's namespace names it */
    char *message =
        gw_sprintf("ownerRef [%s/%s, namespace: %s, name: %s, uid: %s] does not "
                   "exist in namespace \"%s\"",
                   owner->api_version, owner->kind, dep->ns, owner->name, owner->uid, dep->ns);
    json_t *ev = make_event(dep, message);
    const json_t *meta = json_object_get(ev, "metadata");
    char *key = gw_sprintf("events/%s/%s", json_string_value(json_object_get(meta, "namespace")),
                           json_string_value(json_object_get(meta, "name")));
    size_t len;
    uint8_t *value = gw_ctl__dump(ev, &len);
    char *what = gw_strdup(key);
    int rc = gw_store_create(c->store, key, value, len, 0, event_written, what);

    gw_log_info(NULL, GW_GC__NAME ": %s/%s: %s", dep->ns, dep->name, message);
    if (rc != 0) {
        gw_log_warn(NULL, GW_GC__NAME ": recording event %s: %s", key, gw_strerror(rc));
        free(what);
    }
    free(value);
    free(key);
    free(message);
    json_decref(ev);
}
