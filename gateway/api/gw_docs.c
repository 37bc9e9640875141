/* Discovery and /version documents, encoded once per catalog with their ETags. */
#include "gw_api_int.h"

#include <stdlib.h>
#include <string.h>

#include <openssl/sha.h>

#include "gw_alloc.h"
#include "gw_discovery.h"
#include "gw_json.h"

typedef struct {
    gw_api__doc_t *v;
    size_t n, cap;
} doc_list_t;

/* Add doc (consumed; NULL adds nothing) under key (copied). */
static void
add(doc_list_t *l, const char *key, json_t *doc)
{
    if (doc == NULL)
        return;
    char *json = gw_json_dumps(doc, JSON_COMPACT);
    json_decref(doc);
    if (json == NULL)
        abort();
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 64;
        l->v = gw_realloc(l->v, l->cap * sizeof(*l->v));
    }
    unsigned char md[SHA512_DIGEST_LENGTH];
    char hash[2 * SHA512_DIGEST_LENGTH + 1];
    SHA512((const unsigned char *)json, strlen(json), md);
    for (size_t i = 0; i < sizeof(md); i++)
        snprintf(hash + 2 * i, 3, "%02X", md[i]);
    l->v[l->n++] = (gw_api__doc_t){
        .key = gw_strdup(key),
        .json = json,
        .len = strlen(json),
        .etag = gw_sprintf("\"%s\"", hash),
    };
}

static void
add_group(doc_list_t *l, const gw_catalog_t *c, const gw_group_t *g)
{
    char *key;
    for (size_t v = 0; v < g->n_versions; v++) {
        if (g->name[0] == '\0')
            key = gw_sprintf("/api/%s", g->versions[v]);
        else
            key = gw_sprintf("/apis/%s/%s", g->name, g->versions[v]);
        add(l, key, gw_discovery_resource_list(c, g->name, g->versions[v]));
        free(key);
    }
    if (g->name[0] == '\0')
        return;
    key = gw_sprintf("/apis/%s", g->name);
    add(l, key, gw_discovery_group(c, g->name));
    free(key);
}

static int
by_key(const void *a, const void *b)
{
    return strcmp(((const gw_api__doc_t *)a)->key, ((const gw_api__doc_t *)b)->key);
}

void
gw_api__docs_build(gw_api__docs_t *d, const gw_catalog_t *c)
{
    static const char *const agg_versions[] = {"v2", "v2beta1"};
    doc_list_t l = {0};
    add(&l, "/version", gw_discovery_version());
    add(&l, "/api", gw_discovery_api_versions(c, NULL));
    add(&l, "/apis", gw_discovery_group_list(c));
    for (size_t i = 0; i < sizeof(agg_versions) / sizeof(agg_versions[0]); i++) {
        char *key = gw_sprintf("agg:/api:%s", agg_versions[i]);
        add(&l, key, gw_discovery_aggregated(c, true, agg_versions[i]));
        free(key);
        key = gw_sprintf("agg:/apis:%s", agg_versions[i]);
        add(&l, key, gw_discovery_aggregated(c, false, agg_versions[i]));
        free(key);
    }
    for (size_t i = 0; i < gw_catalog_group_count(c); i++)
        add_group(&l, c, gw_catalog_group_at(c, i));
    qsort(l.v, l.n, sizeof(*l.v), by_key);
    d->docs = l.v;
    d->n = l.n;
}

void
gw_api__docs_free(gw_api__docs_t *d)
{
    for (size_t i = 0; i < d->n; i++) {
        free(d->docs[i].key);
        free(d->docs[i].json);
        free(d->docs[i].etag);
    }
    free(d->docs);
    *d = (gw_api__docs_t){0};
}

const gw_api__doc_t *
gw_api__docs_find(const gw_api__docs_t *d, const char *key)
{
    gw_api__doc_t probe = {.key = (char *)key};
    return d->n == 0 ? NULL : bsearch(&probe, d->docs, d->n, sizeof(*d->docs), by_key);
}

struct gw_api__docset {
    const gw_catalog_t *catalog; /* referenced */
    gw_api__docs_t docs;
    _Atomic long refs;
};

static void
docset_unref(void *arg)
{
    gw_api__docset_t *s = arg;

    if (s == NULL || atomic_fetch_sub(&s->refs, 1) != 1)
        return;
    gw_api__docs_free(&s->docs);
    gw_catalog_unref(s->catalog);
    free(s);
}

const gw_api__docs_t *
gw_api__docs_of(gw_req_t *r)
{
    gw_api_t *api = GW_API_REQ(r)->api;
    gw_api__docset_t *s;

    pthread_mutex_lock(&api->docs_lock);
    if (api->docs == NULL || api->docs->catalog != r->catalog) {
        s = gw_calloc(1, sizeof(*s));
        s->catalog = gw_catalog_ref(r->catalog);
        gw_api__docs_build(&s->docs, r->catalog);
        atomic_init(&s->refs, 1);
        docset_unref(api->docs);
        api->docs = s;
    }
    s = api->docs;
    atomic_fetch_add(&s->refs, 1);
    pthread_mutex_unlock(&api->docs_lock);
    gw_arena_defer(r->arena, docset_unref, s);
    return &s->docs;
}

void
gw_api__docs_release(gw_api_t *api)
{
    docset_unref(api->docs);
    api->docs = NULL;
}
