/*
 * NamespaceLifecycle (k8s.io/apiserver/pkg/admission/plugin/namespace/lifecycle), a mutating
 * plugin: nothing is created in a namespace that does not exist or is being terminated, and
 * the namespaces default, kube-system and kube-public may not be deleted. kube asks its
 * informer and falls back to a live read; kgate reads the namespace live (the latest state,
 * etcd's current revision), except for a create whose write can be guarded (a->ns_revision):
 * there the namespaces' read cache answers as kube's informer would, and the write's own etcd
 * transaction requires the namespace to be still at the revision the cache showed, so the
 * check holds when the object is written. A create then costs no etcd read of its namespace
 * (the latest read is a revision request and, when anything else was written since the
 * namespace last changed, a read of it). As kube's forceLiveLookupCache, a namespace whose
 * deletion this instance admitted is read live for 30 s.
 */
#include "gw_admission.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "gw_admission_int.h"
#include "gw_clock.h"
#include "gw_err.h"
#include "gw_store.h"
#include "gw_json.h"

/* kube's immortal namespaces (the plugin's default set): kube-node-lease is not one. */
static const char *const immortal[] = {"default", "kube-system", "kube-public"};

static bool
is_namespaces(const gw_resource_t *res)
{
    return res->group[0] == '\0' && strcmp(res->name, "namespaces") == 0;
}

static bool
is_immortal(const char *name)
{
    for (size_t i = 0; i < sizeof(immortal) / sizeof(immortal[0]); i++)
        if (strcmp(immortal[i], name) == 0)
            return true;
    return false;
}

/* Asking about access in a namespace must not tell whether it exists. */
static bool
is_access_review(const gw_resource_t *res)
{
    return strcmp(res->group, "authorization.k8s.io") == 0 &&
           strcmp(res->name, "localsubjectaccessreviews") == 0;
}

static bool
handles(gw_admission_op_t op)
{
    /* kube's plugin also handles updates, which it only checks against a cache; kgate's
     * reads are live, so it checks the writes that put new content into a namespace. */
    return op == GW_ADMISSION_CREATE || op == GW_ADMISSION_DELETE;
}

/* ---- kube's forceLiveLookupCache ------------------------------------------------------------- */

#define FORCE_LIVE_MS (30 * 1000) /* kube's forceLiveLookupTTL */
#define FORCE_LIVE_SLOTS 64
#define NS_NAME_MAX 64 /* a namespace's name is a DNS label: 63 bytes */

static struct {
    char name[NS_NAME_MAX];
    int64_t until;
} force_live[FORCE_LIVE_SLOTS];
static size_t force_live_next;
static pthread_mutex_t force_live_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic int64_t force_live_last; /* when the last entry expires: none live after it */

/* This instance admitted the deletion of namespace `name`: its creates read it live for a
 * while, whatever the read cache still shows. A name too long for a namespace is not kept (no
 * such namespace can exist). */
static void
force_live_add(const char *name)
{
    int64_t until = gw_monotonic_ms() + FORCE_LIVE_MS;

    if (strlen(name) >= NS_NAME_MAX)
        return;
    pthread_mutex_lock(&force_live_lock);
    strcpy(force_live[force_live_next].name, name);
    force_live[force_live_next].until = until;
    force_live_next = (force_live_next + 1) % FORCE_LIVE_SLOTS;
    atomic_store(&force_live_last, until);
    pthread_mutex_unlock(&force_live_lock);
}

static bool
force_live_has(const char *name)
{
    int64_t now = gw_monotonic_ms();
    bool found = false;

    if (atomic_load(&force_live_last) <= now)
        return false; /* the common case: no namespace deleted here lately */
    pthread_mutex_lock(&force_live_lock);
    for (size_t i = 0; i < FORCE_LIVE_SLOTS && !found; i++)
        found = force_live[i].until > now && strcmp(force_live[i].name, name) == 0;
    pthread_mutex_unlock(&force_live_lock);
    return found;
}

/* ---- the namespace's state ------------------------------------------------------------------- */

typedef struct {
    const gw_admission_attrs_t *a;
    gw_admission_done_fn done;
    void *arg;
    char *key; /* "namespaces/<name>", in the arena's care */
} read_t;

/* kube looks at the phase; kgate also at the deletionTimestamp, set in the same write. */
static bool
terminating(const json_t *ns)
{
    const json_t *meta = json_object_get(ns, "metadata");
    const json_t *ts = json_object_get(meta, "deletionTimestamp");
    const char *phase = json_string_value(json_object_get(json_object_get(ns, "status"), "phase"));

    return (ts != NULL && !json_is_null(ts)) ||
           (phase != NULL && strcmp(phase, "Terminating") == 0);
}

static gw_admission_err_t *
terminating_error(const gw_admission_attrs_t *a)
{
    gw_admission_err_t *e = gw_admission_forbidden(
        a, "unable to create new content in namespace %s because it is being terminated",
        a->namespace_);
    json_t *cause = json_pack(
        "{s:s,s:s,s:s}", "reason", "NamespaceTerminating", "message",
        gw_arena_sprintf(a->req->arena, "namespace %s is being terminated", a->namespace_), "field",
        "metadata.namespace");

    json_object_set_new(e->details, "causes", json_pack("[o]", cause));
    return e;
}

static gw_admission_err_t *
not_found(const gw_admission_attrs_t *a)
{
    return gw_admission_error(a, 404, "NotFound",
                              json_pack("{s:s,s:s}", "name", a->namespace_, "kind", "namespaces"),
                              "namespaces \"%s\" not found", a->namespace_);
}

static void
namespace_read(int err, const gw_obj_t *obj, void *arg)
{
    read_t *rd = arg;
    gw_admission_err_t *e = NULL;
    json_t *ns;

    if (err == GW_ENOTFOUND) {
        e = not_found(rd->a);
    } else if (err != 0) {
        e = gw_admission_error(rd->a, 0, NULL, NULL, "%s", rd->a->name);
        e->err = err;
    } else {
        ns = gw_json_loadb((const char *)obj->value, obj->value_len, 0, NULL);
        if (!json_is_object(ns))
            e = gw_admission_error(rd->a, 500, "InternalError", NULL,
                                   "the namespace %s cannot "
                                   "be decoded",
                                   rd->a->namespace_);
        else if (terminating(ns))
            e = terminating_error(rd->a);
        json_decref(ns);
    }
    rd->done(e, rd->arg);
}

/* The check against the namespace's latest state. */
static void
read_live(read_t *rd)
{
    int rc = gw_admission__read_namespace(rd->a->req->store, rd->key, namespace_read, rd);

    if (rc != 0)
        namespace_read(rc, NULL, rd);
}

/* ---- the check from the read cache ----------------------------------------------------------- */

/* The namespaces this thread last found active, by name and mod_revision (a revision names
 * one state of one key for good): creates in a namespace seen before do not parse it again. */
#define ACTIVE_SLOTS 8

static _Thread_local struct {
    char name[NS_NAME_MAX];
    int64_t rev;
} active_seen[ACTIVE_SLOTS];
static _Thread_local size_t active_next;

static bool
active_known(const char *name, int64_t rev)
{
    for (size_t i = 0; i < ACTIVE_SLOTS; i++)
        if (active_seen[i].rev == rev && strcmp(active_seen[i].name, name) == 0)
            return true;
    return false;
}

/* Whether obj, namespace `name` as stored, exists and is not being terminated. */
static bool
active(const char *name, const gw_obj_t *obj)
{
    json_t *ns;
    bool ok;

    if (obj->mod_revision <= 0 || strlen(name) >= NS_NAME_MAX)
        return false;
    if (active_known(name, obj->mod_revision))
        return true;
    ns = gw_json_loadb((const char *)obj->value, obj->value_len, 0, NULL);
    ok = json_is_object(ns) && !terminating(ns);
    json_decref(ns);
    if (ok) {
        strcpy(active_seen[active_next].name, name);
        active_seen[active_next].rev = obj->mod_revision;
        active_next = (active_next + 1) % ACTIVE_SLOTS;
    }
    return ok;
}

/* The cache's (or, without one, etcd's) namespace: an active one is admitted with its
 * revision left for the write's guard; anything else is decided live, as kube's plugin does
 * when its informer lacks the namespace. */
static void
cached_read(int err, const gw_obj_t *obj, void *arg)
{
    read_t *rd = arg;

    if (err == 0 && active(rd->a->namespace_, obj)) {
        *rd->a->ns_revision = obj->mod_revision;
        rd->done(NULL, rd->arg);
        return;
    }
    read_live(rd);
}

static void
read_cached(read_t *rd)
{
    static const gw_read_opts_t cached = {
        .collection = "namespaces/", .relaxed = true, .confirm_missing = true};
    int rc = gw_store_read(rd->a->req->store, rd->key, &cached, cached_read, rd);

    if (rc != 0)
        read_live(rd);
}

/* ---- the plugin ------------------------------------------------------------------------------ */

/* A create's check: rd, or NULL when it was decided at once (done called). */
static read_t *
create_read(const gw_admission_attrs_t *a, gw_admission_done_fn done, void *arg)
{
    read_t *rd;
    char *key;

    if (!a->resource->namespaced || is_access_review(a->resource)) {
        done(NULL, arg);
        return NULL;
    }
    key = a->namespace_[0] ? gw_store_object_key("namespaces", NULL, a->namespace_) : NULL;
    if (key == NULL) {
        done(not_found(a), arg);
        return NULL;
    }
    rd = gw_arena_calloc(a->req->arena, sizeof(*rd));
    *rd = (read_t){.a = a, .done = done, .arg = arg, .key = key};
    gw_arena_defer(a->req->arena, free, key);
    return rd;
}

static void
admit(gw_admission_attrs_t *a, gw_admission_done_fn done, void *arg)
{
    read_t *rd;

    if (a->op == GW_ADMISSION_DELETE) {
        if (is_namespaces(a->resource) && a->subresource[0] == '\0' && is_immortal(a->name)) {
            done(gw_admission_forbidden(a, "this namespace may not be deleted"), arg);
            return;
        }
        if (is_namespaces(a->resource) && a->subresource[0] == '\0' && a->name[0])
            force_live_add(a->name);
        done(NULL, arg);
        return;
    }
    if (a->ns_revision != NULL)
        *a->ns_revision = 0; /* a reinvocation decides again */
    rd = create_read(a, done, arg);
    if (rd == NULL)
        return;
    if (a->ns_revision != NULL && !force_live_has(a->namespace_))
        read_cached(rd);
    else
        read_live(rd);
}

const gw_admission_plugin_t gw_admission_namespace_lifecycle = {
    .name = "NamespaceLifecycle", .handles = handles, .admit = admit};

void
gw_admission_namespace_check(const gw_admission_attrs_t *a, gw_admission_done_fn done, void *arg)
{
    read_t *rd = create_read(a, done, arg);

    if (rd != NULL)
        read_live(rd);
}

int
gw_admission__read_namespace(gw_store_t *s, const char *key, gw_store_get_cb cb, void *ctx)
{
    static const gw_read_opts_t latest = {.collection = "namespaces/"};

    return gw_store_read(s, key, &latest, cb, ctx);
}
