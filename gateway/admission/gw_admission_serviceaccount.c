/*
 * ServiceAccount (plugin/pkg/admission/serviceaccount), a mutating plugin on pod creation:
 * a pod without a service account gets "default"; the account must exist (the default one is
 * looked up ten times, 100-200 ms apart, because its controller creates it just after the
 * namespace); unless the pod or the account opts out, every container and init container
 * mounts the projected API access volume (token, kube-root-ca.crt, namespace) at kube's path;
 * a pod without imagePullSecrets takes the account's. Mirror pods (static pods a kubelet
 * reports) are left as they are, and may not reference accounts, secrets or tokens.
 *
 * kube converts spec.serviceAccount (deprecated) into serviceAccountName on decoding and back
 * on encoding; the plugin does both here, where the name is decided.
 */
#include "gw_admission.h"

#include <event2/event.h>
#include <stdlib.h>
#include <string.h>

#include "gw_err.h"
#include "gw_objmeta.h"
#include "gw_server.h"
#include "gw_store.h"
#include "gw_json.h"

#define DEFAULT_ACCOUNT "default"
#define TOKEN_MOUNT_PATH "/var/run/secrets/kubernetes.io/serviceaccount"
#define VOLUME_PREFIX "kube-api-access-"
#define MIRROR_ANNOTATION "kubernetes.io/config.mirror"
#define DEFAULT_LOOKUPS 10

static bool
on_create(gw_admission_op_t op)
{
    return op == GW_ADMISSION_CREATE;
}

static bool
applies(const gw_admission_attrs_t *a)
{
    return a->resource->group[0] == '\0' && strcmp(a->resource->name, "pods") == 0 &&
           a->subresource[0] == '\0' && json_is_object(a->object);
}

static json_t *
member(json_t *parent, const char *name, json_t *(*make)(void))
{
    json_t *v = json_object_get(parent, name);

    if (v == NULL || json_is_null(v)) {
        v = make();
        json_object_set_new(parent, name, v);
    }
    return v;
}

/* ---- mirror pods -------------------------------------------------------------------------- */

static bool
uses_secrets(const json_t *spec)
{
    static const char *const lists[] = {"containers", "initContainers", "ephemeralContainers"};
    size_t i, j;
    json_t *c, *e;

    if (json_array_size(json_object_get(spec, "imagePullSecrets")) > 0)
        return true;
    json_array_foreach(json_object_get(spec, "volumes"), i, e)
    {
        if (json_object_get(e, "secret") != NULL)
            return true;
    }
    for (size_t l = 0; l < 3; l++) {
        json_array_foreach(json_object_get(spec, lists[l]), i, c)
        {
            json_array_foreach(json_object_get(c, "env"), j, e)
            {
                if (json_object_get(json_object_get(e, "valueFrom"), "secretKeyRef") != NULL)
                    return true;
            }
            json_array_foreach(json_object_get(c, "envFrom"), j, e)
            {
                if (json_object_get(e, "secretRef") != NULL)
                    return true;
            }
        }
    }
    return false;
}

static bool
projects_token(const json_t *spec)
{
    size_t i, j;
    json_t *v, *src;

    json_array_foreach(json_object_get(spec, "volumes"), i, v)
    {
        json_array_foreach(json_object_get(json_object_get(v, "projected"), "sources"), j, src)
        {
            if (json_object_get(src, "serviceAccountToken") != NULL)
                return true;
        }
    }
    return false;
}

static gw_admission_err_t *
check_mirror(const gw_admission_attrs_t *a, const json_t *spec)
{
    if (json_string_length(json_object_get(spec, "serviceAccountName")) > 0)
        return gw_admission_forbidden(a, "a mirror pod may not reference service accounts");
    if (uses_secrets(spec))
        return gw_admission_forbidden(a, "a mirror pod may not reference secrets");
    if (projects_token(spec))
        return gw_admission_forbidden(
            a, "a mirror pod may not use ServiceAccountToken volume projections");
    return NULL;
}

/* ---- the token volume --------------------------------------------------------------------- */

/* kube's TokenVolumeSource: a bound token, the cluster CA and the namespace. */
static json_t *
token_volume(const char *name)
{
    return json_pack(
        "{s:s,s:{s:[{s:{s:i,s:s}},{s:{s:s,s:[{s:s,s:s}]}},{s:{s:[{s:s,s:{s:s,s:s}}]}}],s:i}}",
        "name", name, "projected", "sources", "serviceAccountToken", "expirationSeconds", 3607,
        "path", "token", "configMap", "name", "kube-root-ca.crt", "items", "key", "ca.crt", "path",
        "ca.crt", "downwardAPI", "items", "path", "namespace", "fieldRef", "apiVersion", "v1",
        "fieldPath", "metadata.namespace", "defaultMode", 420);
}

static bool
mounts_token_path(const json_t *container)
{
    size_t i;
    json_t *m;

    json_array_foreach(json_object_get(container, "volumeMounts"), i, m)
    {
        const char *path = json_string_value(json_object_get(m, "mountPath"));
        if (path != NULL && strcmp(path, TOKEN_MOUNT_PATH) == 0)
            return true;
    }
    return false;
}

/* Mount `volume` in every container of `list` that has nothing at kube's path; whether any
 * did. */
static bool
mount_in(json_t *spec, const char *list, const char *volume)
{
    bool mounted = false;
    size_t i;
    json_t *c;

    json_array_foreach(json_object_get(spec, list), i, c)
    {
        if (mounts_token_path(c))
            continue;
        json_array_append_new(member(c, "volumeMounts", json_array),
                              json_pack("{s:s,s:b,s:s}", "name", volume, "readOnly", 1, "mountPath",
                                        TOKEN_MOUNT_PATH));
        mounted = true;
    }
    return mounted;
}

static void
mount_token(json_t *spec)
{
    const char *volume = NULL;
    char *generated = NULL;
    size_t i;
    json_t *v;

    json_array_foreach(json_object_get(spec, "volumes"), i, v)
    {
        const char *name = json_string_value(json_object_get(v, "name"));
        if (name != NULL && strncmp(name, VOLUME_PREFIX, strlen(VOLUME_PREFIX)) == 0) {
            volume = name;
            break;
        }
    }
    bool has_volume = volume != NULL;
    if (!has_volume)
        volume = generated = gw_objmeta_generate_name(VOLUME_PREFIX);
    /* init containers first, as kube appends to them first */
    bool needed = mount_in(spec, "initContainers", volume);
    needed = mount_in(spec, "containers", volume) || needed;
    if (needed && !has_volume)
        json_array_append_new(member(spec, "volumes", json_array), token_volume(volume));
    free(generated);
}

/* The pod's own choice wins, then the account's; mounting is the default. */
static bool
should_mount(const json_t *account, const json_t *spec)
{
    const json_t *p = json_object_get(spec, "automountServiceAccountToken");
    const json_t *s = json_object_get(account, "automountServiceAccountToken");

    if (json_is_boolean(p))
        return json_is_true(p);
    if (json_is_boolean(s))
        return json_is_true(s);
    return true;
}

static void
mutate(json_t *spec, const json_t *account)
{
    const json_t *pull = json_object_get(account, "imagePullSecrets");
    size_t i;
    json_t *ref;

    if (should_mount(account, spec))
        mount_token(spec);
    if (json_array_size(json_object_get(spec, "imagePullSecrets")) > 0 ||
        json_array_size(pull) == 0)
        return;
    json_t *copy = json_array();
    json_array_foreach(pull, i, ref)
    {
        json_array_append_new(copy, json_pack("{s:O?}", "name", json_object_get(ref, "name")));
    }
    json_object_set_new(spec, "imagePullSecrets", copy);
}

/* ---- looking the account up -------------------------------------------------------------- */

typedef struct {
    gw_admission_attrs_t *a;
    const char *account, *key;
    int lookups_left;
    gw_admission_done_fn done;
    void *arg;
} lookup_t;

static void look(lookup_t *l);

static void
retry(evutil_socket_t fd, short what, void *arg)
{
    (void)fd, (void)what;
    look(arg);
}

static void
looked(int err, const gw_obj_t *obj, void *arg)
{
    lookup_t *l = arg;
    json_t *account;

    if (err == GW_ENOTFOUND && l->lookups_left > 0) {
        /* kube waits 100-200 ms between lookups of the default account. */
        struct timeval tv = {0, (100 + (long)(random() % 100)) * 1000};
        event_base_once(gw_worker_base(l->a->req->worker), -1, EV_TIMEOUT, retry, l, &tv);
        return;
    }
    if (err != 0) {
        l->done(gw_admission_forbidden(l->a, "error looking up service account %s/%s: %s",
                                       l->a->namespace_, l->account,
                                       err == GW_ENOTFOUND
                                           ? gw_arena_sprintf(l->a->req->arena,
                                                              "serviceaccount \"%s\" not found",
                                                              l->account)
                                           : gw_strerror(err)),
                l->arg);
        return;
    }
    account = gw_json_loadb((const char *)obj->value, obj->value_len, 0, NULL);
    mutate(json_object_get(l->a->object, "spec"), account);
    json_decref(account);
    l->done(NULL, l->arg);
}

static void
look(lookup_t *l)
{
    int rc;

    l->lookups_left--;
    rc = gw_store_get(l->a->req->store, l->key, 0, looked, l);
    if (rc != 0)
        looked(rc, NULL, l);
}

/* ---- the plugin --------------------------------------------------------------------------- */

static void
admit(gw_admission_attrs_t *a, gw_admission_done_fn done, void *arg)
{
    json_t *spec, *meta;
    const char *account;
    lookup_t *l;
    char *key;

    if (!applies(a)) {
        done(NULL, arg);
        return;
    }
    spec = member(a->object, "spec", json_object);
    meta = json_object_get(a->object, "metadata");
    if (json_object_get(json_object_get(meta, "annotations"), MIRROR_ANNOTATION) != NULL) {
        done(check_mirror(a, spec), arg);
        return;
    }
    account = json_string_value(json_object_get(spec, "serviceAccountName"));
    if (account == NULL || account[0] == '\0')
        account = json_string_value(json_object_get(spec, "serviceAccount"));
    if (account == NULL || account[0] == '\0')
        account = DEFAULT_ACCOUNT;
    account = gw_arena_strdup(a->req->arena, account);
    json_object_set_new(spec, "serviceAccountName", json_string(account));
    json_object_set_new(spec, "serviceAccount", json_string(account));
    key = gw_store_object_key("serviceaccounts", a->namespace_, account);
    if (key == NULL) {
        done(gw_admission_forbidden(a,
                                    "error looking up service account %s/%s: serviceaccount "
                                    "\"%s\" not found",
                                    a->namespace_, account, account),
             arg);
        return;
    }
    l = gw_arena_calloc(a->req->arena, sizeof(*l));
    *l = (lookup_t){.a = a,
                    .account = account,
                    .key = gw_arena_strdup(a->req->arena, key),
                    .lookups_left = strcmp(account, DEFAULT_ACCOUNT) == 0 ? DEFAULT_LOOKUPS : 1,
                    .done = done,
                    .arg = arg};
    free(key);
    look(l);
}

const gw_admission_plugin_t gw_admission_service_account = {
    .name = "ServiceAccount", .handles = on_create, .admit = admit};
