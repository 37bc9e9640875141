/* OpenAPI v2 and v3 documents of a catalog, built once and kept serialized with their hash. */
#include "gw_openapi.h"

#include <stdlib.h>
#include <string.h>

#include <openssl/sha.h>

#include "gw_alloc.h"
#include "gw_catalog_int.h"
#include "gw_discovery.h"
#include "gw_err.h"
#include "gw_openapi_proto.h"
#include "gw_json.h"

typedef struct {
    char *path; /* "api/v1", "apis/apps/v1" */
    gw_openapi_doc_t doc;
} v3_doc_t;

struct gw_openapi__cache {
    bool v2_built;
    gw_openapi_doc_t v2;
    gw_openapi_doc_t v2_proto;
    bool v3_built;
    gw_openapi_doc_t v3_index;
    v3_doc_t *v3;
    size_t n_v3;
};

/* Serialize doc (consumed) into d, with kube-apiserver's ETag: upper-case hex SHA-512. */
static void
doc_set(const gw_catalog_t *c, gw_openapi_doc_t *d, json_t *doc)
{
    static const char digits[] = "0123456789ABCDEF";
    unsigned char md[SHA512_DIGEST_LENGTH];
    char *text = gw_json_dumps(doc, JSON_COMPACT);
    char *hash = gw_catalog__alloc_in(c, 2 * sizeof(md) + 1);

    if (text == NULL)
        gw_catalog__corrupt("cannot serialize an OpenAPI document", NULL);
    gw_catalog__keep(c, text);
    SHA512((const unsigned char *)text, strlen(text), md);
    for (size_t i = 0; i < sizeof(md); i++) {
        hash[2 * i] = digits[md[i] >> 4];
        hash[2 * i + 1] = digits[md[i] & 15];
    }
    d->data = text;
    d->len = strlen(text);
    d->hash = hash;
    json_decref(doc);
}

/* ---- definitions ------------------------------------------------------------------------- */

static json_t *convert_schema(json_t *in, bool v3);

static json_t *
convert_properties(json_t *props, bool v3)
{
    json_t *out = json_object(), *v;
    const char *name;

    json_object_foreach(props, name, v) json_object_set_new(out, name, convert_schema(v, v3));
    return out;
}

/* OpenAPI 3.0 ignores the siblings of a $ref, so a decorated one becomes allOf, as kube's. */
static void
wrap_decorated_ref(json_t *schema)
{
    json_t *ref = json_object_get(schema, "$ref");

    if (ref == NULL || json_object_size(schema) == 1)
        return;
    json_incref(ref);
    json_object_del(schema, "$ref");
    json_object_set_new(schema, "allOf", json_pack("[{s:o}]", "$ref", ref));
}

/* The catalog's compact schema as an OpenAPI schema: full $ref paths, no x-kgate markers. */
static json_t *
convert_schema(json_t *in, bool v3)
{
    const char *prefix = v3 ? "#/components/schemas/" : "#/definitions/";
    json_t *out = json_object(), *v;
    const char *key;

    json_object_foreach(in, key, v)
    {
        bool nested = strcmp(key, "items") == 0 || strcmp(key, "additionalProperties") == 0;
        if (strcmp(key, "x-kgate-type") == 0)
            continue;
        if (strcmp(key, "$ref") == 0)
            json_object_set_new(out, key, json_sprintf("%s%s", prefix, json_string_value(v)));
        else if (strcmp(key, "properties") == 0)
            json_object_set_new(out, key, convert_properties(v, v3));
        else if (nested && json_is_object(v))
            json_object_set_new(out, key, convert_schema(v, v3));
        else
            json_object_set_new(out, key, json_deep_copy(v));
    }
    if (v3)
        wrap_decorated_ref(out);
    return out;
}

/* Queue the definition names schema refers to. */
static void
queue_refs(json_t *schema, json_t *queue)
{
    json_t *v, *field;
    const char *key, *name;

    json_object_foreach(schema, key, v)
    {
        if (strcmp(key, "$ref") == 0 && json_is_string(v))
            json_array_append(queue, v);
        else if (strcmp(key, "properties") == 0) {
            json_object_foreach(v, name, field) queue_refs(field, queue);
        } else if ((strcmp(key, "items") == 0 || strcmp(key, "additionalProperties") == 0) &&
                   json_is_object(v))
            queue_refs(v, queue);
    }
}

/* The compact schema of definition `name`: a custom one of this document, else the catalog's. */
static json_t *
definition_json(const gw_catalog_t *c, json_t *custom, const char *name)
{
    const gw_catalog__def_t *d;

    if (json_object_get(custom, name) != NULL)
        return json_object_get(custom, name);
    d = gw_catalog__def(c, name);
    if (d == NULL)
        gw_catalog__corrupt("reference to a missing definition", name);
    return d->json;
}

static int
name_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The definitions in `seen`, converted, in name order (as Go writes the map). */
static json_t *
converted(const gw_catalog_t *c, json_t *seen, json_t *custom, bool v3)
{
    const char **names = gw_malloc((json_object_size(seen) + 1) * sizeof(*names));
    json_t *out = json_object(), *v;
    const char *name;
    size_t n = 0;

    json_object_foreach(seen, name, v) names[n++] = name;
    qsort(names, n, sizeof(*names), name_cmp);
    for (size_t i = 0; i < n; i++)
        json_object_set_new(out, names[i],
                            convert_schema(definition_json(c, custom, names[i]), v3));
    free(names);
    return out;
}

/* Every definition reachable from `refs` (in the catalog or among `custom`, name -> compact
   schema), converted, in name order. */
static json_t *
definitions(const gw_catalog_t *c, json_t *refs, json_t *custom, bool v3)
{
    json_t *seen = json_object(), *queue = json_array(), *out, *v;
    const char *name;

    json_object_foreach(refs, name, v) json_array_append_new(queue, json_string(name));
    while (json_array_size(queue) > 0) {
        json_t *last = json_incref(json_array_get(queue, json_array_size(queue) - 1));
        name = json_string_value(last);
        json_array_remove(queue, json_array_size(queue) - 1);
        if (json_object_get(seen, name) == NULL) {
            json_object_set_new(seen, name, json_true());
            queue_refs(definition_json(c, custom, name), queue);
        }
        json_decref(last);
    }
    out = converted(c, seen, custom, v3);
    json_decref(seen);
    json_decref(queue);
    return out;
}

/* ---- documents --------------------------------------------------------------------------- */

static json_t *
bearer_token_scheme(void)
{
    return json_pack("{s:{s:s, s:s, s:s}}", "BearerToken", "type", "apiKey", "name",
                     "authorization", "in", "header");
}

static bool
in_gv(const gw_resource_t *r, const char *group, const char *version)
{
    return group == NULL || (strcmp(r->group, group) == 0 && strcmp(r->version, version) == 0);
}

/* Paths of the catalog's resources in group/version (NULL group: all of them), and the
   definitions of the custom ones among them into custom. */
static void
add_paths(const gw_catalog_t *c, gw_openapi__gen_t *g, const char *group, const char *version,
          json_t *custom)
{
    for (size_t i = 0; i < c->n_resources; i++) {
        const gw_resource_t *r = c->resources[i];
        if (!in_gv(r, group, version))
            continue;
        gw_openapi__resource_paths(g, r);
        if (r->custom)
            gw_openapi__custom_definitions(r, g->v3, custom);
    }
}

/* Whether group/version serves custom resources only (true) or any built-in one. */
static bool
custom_only(const gw_catalog_t *c, const char *group, const char *version)
{
    for (size_t i = 0; i < c->n_resources; i++) {
        if (in_gv(c->resources[i], group, version) && c->resources[i]->custom == NULL)
            return false;
    }
    return true;
}

static json_t *
build_v2(const gw_catalog_t *c)
{
    gw_openapi__gen_t g = {.v3 = false, .paths = json_object(), .refs = json_object()};
    json_t *defs, *custom = json_object();

    add_paths(c, &g, NULL, NULL, custom);
    defs = definitions(c, g.refs, custom, false);
    json_decref(g.refs);
    json_decref(custom);
    return json_pack("{s:s, s:{s:s, s:s}, s:o, s:o, s:o, s:[{s:[]}]}", "swagger", "2.0", "info",
                     "title", "Kubernetes", "version", GW_KUBE_GIT_VERSION, "paths", g.paths,
                     "definitions", defs, "securityDefinitions", bearer_token_scheme(), "security",
                     "BearerToken");
}

/* A group/version of custom resources only is kube's merge of its CRDs' documents: the
   openapi builder's info, and no security. */
static json_t *
build_v3_custom(json_t *paths, json_t *defs)
{
    return json_pack("{s:s, s:{s:s, s:s}, s:o, s:{s:o}}", "openapi", "3.0.0", "info", "title",
                     "Kubernetes CRD Swagger", "version", "v0.1.0", "paths", paths, "components",
                     "schemas", defs);
}

static json_t *
build_v3(const gw_catalog_t *c, const char *group, const char *version)
{
    gw_openapi__gen_t g = {.v3 = true, .paths = json_object(), .refs = json_object()};
    json_t *defs, *custom = json_object();

    add_paths(c, &g, group, version, custom);
    defs = definitions(c, g.refs, custom, true);
    json_decref(g.refs);
    json_decref(custom);
    if (c->base != NULL && custom_only(c, group, version))
        return build_v3_custom(g.paths, defs);
    return json_pack("{s:s, s:{s:s, s:s}, s:o, s:{s:o, s:o}, s:[{s:[]}]}", "openapi", "3.0.0",
                     "info", "title", "Kubernetes", "version", GW_KUBE_GIT_VERSION, "paths",
                     g.paths, "components", "schemas", defs, "securitySchemes",
                     bearer_token_scheme(), "security", "BearerToken");
}

static size_t
served_versions(const gw_catalog_t *c)
{
    size_t n = 0;

    for (size_t i = 0; i < c->n_groups; i++)
        n += c->groups[i].n_versions;
    return n;
}

static gw_openapi__cache_t *lock_v3(const gw_catalog_t *c);
static void unlock_cache(const gw_catalog_t *c);

static bool
serves_custom(const gw_catalog_t *c, const char *group, const char *version)
{
    for (size_t i = 0; i < c->n_resources; i++) {
        if (c->resources[i]->custom != NULL && in_gv(c->resources[i], group, version))
            return true;
    }
    return false;
}

/* The base's document at path, which a snapshot shares when the group/version has no custom
   resource: the same bytes and hash, kept by a catalog that outlives the snapshot. */
static const v3_doc_t *
base_doc(const gw_openapi__cache_t *base, const char *path)
{
    for (size_t i = 0; base != NULL && i < base->n_v3; i++) {
        if (strcmp(base->v3[i].path, path) == 0)
            return &base->v3[i];
    }
    return NULL;
}

/* group/version's document into d: the base's when a snapshot adds nothing to it. */
static void
v3_doc(const gw_catalog_t *c, const gw_openapi__cache_t *base, const gw_group_t *g,
       const char *version, v3_doc_t *d)
{
    char *path =
        g->name[0] ? gw_sprintf("apis/%s/%s", g->name, version) : gw_sprintf("api/%s", version);
    const v3_doc_t *shared = serves_custom(c, g->name, version) ? NULL : base_doc(base, path);

    if (shared != NULL) {
        *d = *shared;
    } else {
        d->path = strcpy(gw_catalog__alloc_in(c, strlen(path) + 1), path);
        doc_set(c, &d->doc, build_v3(c, g->name, version));
    }
    free(path);
}

static void
build_all_v3(const gw_catalog_t *c, gw_openapi__cache_t *cache)
{
    json_t *index = json_object();
    /* the base's lock is taken inside the snapshot's, never the other way round */
    const gw_openapi__cache_t *base = c->base ? lock_v3(c->base) : NULL;

    cache->v3 = gw_catalog__alloc_in(c, served_versions(c) * sizeof(*cache->v3));
    for (size_t i = 0; i < c->n_groups; i++) {
        const gw_group_t *g = &c->groups[i];
        for (size_t k = 0; k < g->n_versions; k++) {
            v3_doc_t *d = &cache->v3[cache->n_v3++];
            const char *path;
            v3_doc(c, base, g, g->versions[k], d);
            path = d->path;
            json_object_set_new(
                index, path,
                json_pack("{s:o}", "serverRelativeURL",
                          json_sprintf("/openapi/v3/%s?hash=%s", path, d->doc.hash)));
        }
    }
    if (c->base != NULL)
        unlock_cache(c->base);
    doc_set(c, &cache->v3_index, json_pack("{s:o}", "paths", index));
}

/* The catalog's document cache, created on first use; the caller holds docs_lock. */
static gw_openapi__cache_t *
lock_cache(const gw_catalog_t *c)
{
    /* The documents are the one mutable part of a catalog, always behind its lock. */
    gw_catalog_t *mc = (gw_catalog_t *)c;

    pthread_mutex_lock(&mc->docs_lock);
    if (mc->openapi == NULL)
        mc->openapi = gw_catalog__alloc_in(c, sizeof(*mc->openapi));
    return mc->openapi;
}

static void
unlock_cache(const gw_catalog_t *c)
{
    pthread_mutex_unlock(&((gw_catalog_t *)c)->docs_lock);
}

/* The v2 document in both encodings, once. The protobuf shares the JSON's ETag, as
 * kube-openapi's handler does (responses vary on Accept). */
static gw_openapi__cache_t *
lock_v2(const gw_catalog_t *c)
{
    gw_openapi__cache_t *cache = lock_cache(c);

    if (!cache->v2_built) {
        json_t *doc = build_v2(c);
        size_t len;
        uint8_t *pb = gw_openapi_proto_encode(doc, &len, NULL);
        doc_set(c, &cache->v2, doc);
        gw_catalog__keep(c, (char *)pb);
        cache->v2_proto.data = (const char *)pb;
        cache->v2_proto.len = len;
        cache->v2_proto.hash = cache->v2.hash;
        cache->v2_built = true;
    }
    return cache;
}

int
gw_openapi_v2(const gw_catalog_t *c, gw_openapi_doc_t *out)
{
    *out = lock_v2(c)->v2;
    unlock_cache(c);
    return 0;
}

int
gw_openapi_v2_proto(const gw_catalog_t *c, gw_openapi_doc_t *out)
{
    *out = lock_v2(c)->v2_proto;
    unlock_cache(c);
    return 0;
}

static gw_openapi__cache_t *
lock_v3(const gw_catalog_t *c)
{
    gw_openapi__cache_t *cache = lock_cache(c);

    if (!cache->v3_built) {
        build_all_v3(c, cache);
        cache->v3_built = true;
    }
    return cache;
}

int
gw_openapi_v3_index(const gw_catalog_t *c, gw_openapi_doc_t *out)
{
    *out = lock_v3(c)->v3_index;
    unlock_cache(c);
    return 0;
}

int
gw_openapi_v3(const gw_catalog_t *c, const char *path, gw_openapi_doc_t *out)
{
    gw_openapi__cache_t *cache = lock_v3(c);
    int rc = GW_ENOTFOUND;

    for (size_t i = 0; i < cache->n_v3; i++) {
        if (strcmp(cache->v3[i].path, path) == 0) {
            *out = cache->v3[i].doc;
            rc = 0;
            break;
        }
    }
    unlock_cache(c);
    return rc;
}
