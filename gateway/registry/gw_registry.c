/*
 * The registry's entry point: route a resolved resource request to the handler of its verb,
 * after the scope checks kube-apiserver's route table makes implicitly (a namespaced resource
 * has object routes only under /namespaces/{ns}/, a collection only lists across namespaces).
 */
#include "gw_registry.h"

#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_err.h"
#include "gw_registry_int.h"

typedef struct {
    const char *verb;
    void (*run)(gw_req_t *r);
} verb_route_t;

static const verb_route_t routes[] = {
    {"get", gw_registry__get},
};

/* Where kube-apiserver registers no route for the request's scope: 404 for object paths, 405
 * for collection paths that only list. Returns true when it replied. */
static bool
reject_scope(gw_req_t *r)
{
    const char *ns = r->info.namespace_;
    bool has_name = r->info.name[0] != '\0';

    if (!r->resource->namespaced) {
        /* /namespaces/{name} names the namespace itself; other cluster-scoped resources
         * have no route under a namespace. */
        if (ns[0] != '\0' && strcmp(r->resource->name, "namespaces") != 0) {
            gw_registry__reply_no_route(r);
            return true;
        }
        return false;
    }
    if (ns[0] != '\0')
        return false;
    if (has_name) {
        gw_registry__reply_no_route(r);
        return true;
    }
    if (strcmp(r->info.verb, "list") != 0 && strcmp(r->info.verb, "watch") != 0) {
        gw_registry__reply_not_allowed(r);
        return true;
    }
    return false;
}

void
gw_registry_handle(gw_req_t *r)
{
    unsigned bit = gw_verb_bit(r->info.verb);

    if (reject_scope(r))
        return;
    if (r->subresource == NULL && (bit == 0 || (r->resource->verbs & bit) == 0)) {
        gw_registry__reply_not_allowed(r);
        return;
    }
    for (size_t i = 0; i < sizeof(routes) / sizeof(routes[0]); i++) {
        if (r->subresource == NULL && strcmp(routes[i].verb, r->info.verb) == 0) {
            routes[i].run(r);
            return;
        }
    }
    gw_registry__reply_not_allowed(r);
}

int
gw_registry_init(etcd_client_t *etcd, const char *etcd_prefix)
{
    /* Every piece of registry state is per request or in etcd: nothing to prepare yet. */
    (void)etcd;
    (void)etcd_prefix;
    return 0;
}

const char *
gw_registry__object_key(gw_req_t *r, const char *name)
{
    const char *ns = r->resource->namespaced ? r->info.namespace_ : NULL;
    char *key = gw_store_object_key(r->resource->storage_path, ns, name);
    const char *out;

    if (key == NULL)
        return NULL;
    out = gw_arena_strdup(r->arena, key);
    free(key);
    return out;
}
