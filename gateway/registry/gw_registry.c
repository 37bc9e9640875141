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
#include "gw_watch.h"

typedef struct {
    const char *verb;
    void (*run)(gw_req_t *r);
} verb_route_t;

static const verb_route_t routes[] = {
    {"get", gw_registry__get},       {"list", gw_registry__list},
    {"watch", gw_registry__watch},   {"create", gw_registry__create},
    {"update", gw_registry__update}, {"patch", gw_registry__patch},
    {"delete", gw_registry__delete}, {"deletecollection", gw_registry__deletecollection},
};

/* Where kube-apiserver registers no route for the request's scope: 404 for object paths, 405
 * for collection paths that only list. Returns true when it replied. */
static bool
reject_scope(gw_req_t *r)
{
    const char *ns = r->info.namespace_, *verb = r->info.verb;
    /* A list or watch may carry a name (from a metadata.name field selector). */
    bool collection = strcmp(verb, "list") == 0 || strcmp(verb, "watch") == 0;

    if (!r->resource->namespaced) {
        /* /namespaces/{name} names the namespace itself; other cluster-scoped resources
         * have no route under a namespace. */
        if (ns[0] != '\0' && strcmp(r->resource->name, "namespaces") != 0) {
            gw_registry__reply_no_route(r);
            return true;
        }
        return false;
    }
    if (ns[0] != '\0' || collection)
        return false;
    if (r->info.name[0] != '\0')
        gw_registry__reply_no_route(r);
    else
        gw_registry__reply_not_allowed(r);
    return true;
}

#define ITEM_VERBS (GW_VERB_GET | GW_VERB_UPDATE | GW_VERB_PATCH | GW_VERB_DELETE)
#define COLLECTION_VERBS (GW_VERB_LIST | GW_VERB_WATCH | GW_VERB_CREATE | GW_VERB_DELETECOLLECTION)

/* kube's routes: an object path takes GET, PUT, PATCH and DELETE, a collection path GET, POST
 * and DELETE, each where the resource serves the verb. A method the path does not take is 405
 * when the path has a route at all, else 404 (as go-restful answers). Returns true when it
 * replied. */
static bool
reject_method(gw_req_t *r)
{
    const char *verb = r->info.verb;
    bool named = r->info.name[0] != '\0';
    unsigned bit = gw_verb_bit(verb), verbs = r->resource->verbs;
    bool item = strcmp(verb, "list") != 0 && strcmp(verb, "watch") != 0 &&
                strcmp(verb, "deletecollection") != 0 && named;
    unsigned path_verbs = verbs & (item ? ITEM_VERBS : COLLECTION_VERBS);

    if ((path_verbs & bit) != 0)
        return false;
    if (path_verbs == 0)
        gw_registry__reply_no_route(r);
    else
        gw_registry__reply_not_allowed(r);
    return true;
}

void
gw_registry_handle(gw_req_t *r)
{
    unsigned bit = gw_verb_bit(r->info.verb);

    if (reject_scope(r))
        return;
    if (r->subresource != NULL) {
        gw_registry__subresource(r);
        return;
    }
    if (bit == 0 || (r->resource->verbs & bit) == 0) {
        gw_registry__reply_not_allowed(r);
        return;
    }
    if (reject_method(r))
        return;
    if (r->resource->group[0] == '\0' && strcmp(r->resource->name, "bindings") == 0) {
        gw_registry__binding(r);
        return;
    }
    if (r->resource->virtual_only) {
        gw_registry__review(r);
        return;
    }
    for (size_t i = 0; i < sizeof(routes) / sizeof(routes[0]); i++) {
        if (strcmp(routes[i].verb, r->info.verb) == 0) {
            routes[i].run(r);
            return;
        }
    }
    gw_registry__reply_not_allowed(r);
}

int
gw_registry_init(etcd_client_t *etcd, const char *etcd_prefix)
{
    /* Every piece of registry state is per request or in etcd; the shared watches read field
     * selector values as the kinds define them; each resource gets its strategy once, here
     * (every served catalog holds the built-in catalog's resources). */
    (void)etcd;
    (void)etcd_prefix;
    gw_wev_set_field_fn(gw_registry__field_text);
    gw_strategy_resolve(gw_catalog_builtin());
    return 0;
}

const char *
gw_registry__namespace(gw_req_t *r)
{
    return r->resource->namespaced ? r->info.namespace_ : "";
}

const char *
gw_registry__api_version(gw_req_t *r)
{
    return r->resource->api_version;
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

const char *
gw_registry__collection(gw_req_t *r)
{
    char *p = gw_store_collection_prefix(r->resource->storage_path, NULL);
    const char *out = p != NULL ? gw_arena_strdup(r->arena, p) : NULL;

    free(p);
    return out;
}
