/* The resource catalog: the embedded built-in catalog, its lookups, and catalog assembly. */
#include "gw_catalog.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_arena.h"
#include "gw_catalog_int.h"
#include "gw_log.h"
#include "gw_json.h"

/* gw_catalog_blob.S: catalog.json's bytes, then a NUL at gw_catalog_blob_end. */
extern const char gw_catalog_blob_start[];
extern const char gw_catalog_blob_end[];

/* Catalog storage lives as long as the process; the static root keeps it reachable. */
static gw_arena_t *storage;
static pthread_mutex_t storage_lock = PTHREAD_MUTEX_INITIALIZER;

static pthread_once_t builtin_once = PTHREAD_ONCE_INIT;
static gw_catalog_t *builtin;

/* Index order of the GW_VERB_* bits. */
static const char *const verb_names[] = {"get",    "list",  "watch",  "create",
                                         "update", "patch", "delete", "deletecollection"};

void *
gw_catalog__alloc(size_t n)
{
    void *p;

    pthread_mutex_lock(&storage_lock);
    if (storage == NULL)
        storage = gw_arena_new();
    p = gw_arena_calloc(storage, n ? n : 1);
    pthread_mutex_unlock(&storage_lock);
    return p;
}

void *
gw_catalog__alloc_in(const gw_catalog_t *c, size_t n)
{
    return c->arena ? gw_arena_calloc(c->arena, n ? n : 1) : gw_catalog__alloc(n);
}

void
gw_catalog__keep(const gw_catalog_t *c, char *text)
{
    if (c->arena)
        gw_arena_defer(c->arena, free, text);
}

char *
gw_catalog__strdup(const char *s)
{
    size_t n = strlen(s) + 1;

    return memcpy(gw_catalog__alloc(n), s, n);
}

_Noreturn void
gw_catalog__corrupt(const char *what, const char *name)
{
    gw_log_write(GW_LOG_ERROR, NULL, "embedded catalog: %s: %s", what, name ? name : "?");
    abort();
}

unsigned
gw_verb_bit(const char *verb)
{
    for (size_t i = 0; i < sizeof(verb_names) / sizeof(verb_names[0]); i++) {
        if (strcmp(verb_names[i], verb) == 0)
            return 1u << i;
    }
    return 0;
}

/* ---- parsing the embedded catalog (strings are borrowed from the parsed document) ------- */

static const char *
req_str(json_t *o, const char *key, const char *where)
{
    const char *s = json_string_value(json_object_get(o, key));

    if (s == NULL)
        gw_catalog__corrupt(key, where);
    return s;
}

static unsigned
parse_verbs(json_t *a, const char *where)
{
    unsigned bits = 0;
    size_t i;
    json_t *v;

    json_array_foreach(a, i, v)
    {
        unsigned bit = gw_verb_bit(json_string_value(v) ? json_string_value(v) : "");
        if (bit == 0)
            gw_catalog__corrupt("unknown verb", where);
        bits |= bit;
    }
    return bits;
}

static const char *const *
parse_names(json_t *a, size_t *n)
{
    const char **out;
    size_t i;
    json_t *v;

    *n = json_array_size(a);
    out = gw_catalog__alloc(*n * sizeof(*out));
    json_array_foreach(a, i, v) out[i] = json_string_value(v);
    return out;
}

/* The schema named by key (null allowed), which must exist. */
static const gw_schema_t *
named_schema(const gw_catalog_t *u, json_t *o, const char *key, const char *where)
{
    json_t *name = json_object_get(o, key);
    const gw_schema_t *s;

    if (json_is_null(name))
        return NULL;
    s = gw_catalog_definition(u, json_string_value(name) ? json_string_value(name) : "");
    if (s == NULL)
        gw_catalog__corrupt("missing definition", where);
    return s;
}

/* A [major, minor] release, or {0, 0} for null. */
static gw_release_t
parse_release(json_t *a, const char *where)
{
    gw_release_t rel = {0, 0};

    if (json_is_null(a))
        return rel;
    if (json_array_size(a) != 2 || !json_is_integer(json_array_get(a, 0)) ||
        !json_is_integer(json_array_get(a, 1)))
        gw_catalog__corrupt("bad release", where);
    rel.major = (int)json_integer_value(json_array_get(a, 0));
    rel.minor = (int)json_integer_value(json_array_get(a, 1));
    return rel;
}

static void
parse_lifecycles(gw_catalog_t *u, json_t *list)
{
    size_t i;
    json_t *j;

    u->lifecycles = gw_catalog__alloc(json_array_size(list) * sizeof(*u->lifecycles));
    json_array_foreach(list, i, j)
    {
        gw_lifecycle_t *l = &u->lifecycles[u->n_lifecycles++];
        json_t *repl = json_object_get(j, "replacement");
        l->kind = req_str(j, "kind", "lifecycle");
        l->group = req_str(j, "group", l->kind);
        l->version = req_str(j, "version", l->kind);
        l->introduced = parse_release(json_object_get(j, "introduced"), l->kind);
        l->deprecated = parse_release(json_object_get(j, "deprecated"), l->kind);
        l->removed = parse_release(json_object_get(j, "removed"), l->kind);
        if (!json_is_null(repl)) {
            l->replacement_group = req_str(repl, "group", l->kind);
            l->replacement_version = req_str(repl, "version", l->kind);
            l->replacement_kind = req_str(repl, "kind", l->kind);
        }
    }
}

/* The lifecycle of group/version/kind in the universe, or NULL (a short table: a scan). */
static const gw_lifecycle_t *
find_lifecycle(const gw_catalog_t *u, const char *group, const char *version, const char *kind)
{
    for (size_t i = 0; i < u->n_lifecycles; i++) {
        const gw_lifecycle_t *l = &u->lifecycles[i];
        if (strcmp(l->group, group) == 0 && strcmp(l->version, version) == 0 &&
            strcmp(l->kind, kind) == 0)
            return l;
    }
    return NULL;
}

static void
parse_subresource(const gw_catalog_t *u, gw_subresource_t *s, json_t *j, const char *where)
{
    s->name = req_str(j, "name", where);
    s->group = req_str(j, "group", where);
    s->version = req_str(j, "version", where);
    s->kind = req_str(j, "kind", where);
    s->verbs = parse_verbs(json_object_get(j, "verbs"), where);
    s->schema = named_schema(u, j, "definition", where);
    s->connect = json_is_true(json_object_get(j, "connect"));
    s->lifecycle = find_lifecycle(u, s->group, s->version, s->kind);
}

/* "group/version" for the process's lifetime. */
static const char *
api_version(const char *group, const char *version)
{
    char *s = gw_catalog__alloc(strlen(group) + strlen(version) + 2);

    sprintf(s, "%s/%s", group, version);
    return s;
}

static void
parse_resource(const gw_catalog_t *u, gw_resource_t *r, json_t *j)
{
    const char *where = req_str(j, "name", "resource");
    json_t *subs = json_object_get(j, "subresources");
    gw_subresource_t *sub = gw_catalog__alloc(json_array_size(subs) * sizeof(*sub));
    size_t i;
    json_t *v;

    r->group = req_str(j, "group", where);
    r->version = req_str(j, "version", where);
    r->api_version = r->group[0] == '\0' ? r->version : api_version(r->group, r->version);
    r->name = where;
    r->singular = req_str(j, "singular", where);
    r->kind = req_str(j, "kind", where);
    r->list_kind = json_string_value(json_object_get(j, "listKind"));
    r->namespaced = json_is_true(json_object_get(j, "namespaced"));
    r->verbs = parse_verbs(json_object_get(j, "verbs"), where);
    r->short_names = parse_names(json_object_get(j, "shortNames"), &r->n_short_names);
    r->categories = parse_names(json_object_get(j, "categories"), &r->n_categories);
    json_array_foreach(subs, i, v) parse_subresource(u, &sub[i], v, where);
    r->subresources = sub;
    r->n_subresources = json_array_size(subs);
    r->schema = named_schema(u, j, "definition", where);
    r->list_schema = named_schema(u, j, "listDefinition", where);
    r->storage_path = req_str(j, "storagePath", where);
    r->storage_version_hash = json_string_value(json_object_get(j, "storageVersionHash"));
    r->keeps_generation = json_is_true(json_object_get(j, "keepsGeneration"));
    r->virtual_only = json_is_true(json_object_get(j, "virtual"));
    r->delete_returns_object = json_is_true(json_object_get(j, "deleteReturnsObject"));
    r->lifecycle = find_lifecycle(u, r->group, r->version, r->kind);
    if (r->schema == NULL)
        gw_catalog__corrupt("resource without a definition", where);
}

static void
parse_group_versions(gw_catalog_t *u, json_t *groups)
{
    size_t i, k, n = 0;
    json_t *g, *v;

    json_array_foreach(groups, i, g) n += json_array_size(json_object_get(g, "versions"));
    u->gvs = gw_catalog__alloc(n * sizeof(*u->gvs));
    json_array_foreach(groups, i, g)
    {
        json_array_foreach(json_object_get(g, "versions"), k, v)
        {
            gw_catalog__gv_t *gv = &u->gvs[u->n_gvs++];
            gv->group = req_str(g, "name", "group");
            gv->version = req_str(v, "version", gv->group);
            gv->default_on = json_is_true(json_object_get(v, "enabled"));
        }
    }
}

static void assemble_into(gw_catalog_t *c, const gw_catalog_t *universe,
                          const gw_resource_t **served, size_t n);

static void
load_builtin(void)
{
    size_t len = (size_t)(gw_catalog_blob_end - gw_catalog_blob_start);
    gw_catalog_t *u = gw_catalog__alloc(sizeof(*u));
    json_error_t e;
    json_t *resources, *v;
    const gw_resource_t **all;
    gw_resource_t *res;
    size_t i;

    u->doc = gw_json_loadb(gw_catalog_blob_start, len, 0, &e);
    if (u->doc == NULL)
        gw_catalog__corrupt(e.text, "catalog.json");
    u->universe = u;
    gw_catalog__load_definitions(u, json_object_get(u->doc, "definitions"),
                                 json_object_get(u->doc, "protobuf"));
    parse_group_versions(u, json_object_get(u->doc, "groups"));
    parse_lifecycles(u, json_object_get(u->doc, "lifecycle"));
    resources = json_object_get(u->doc, "resources");
    res = gw_catalog__alloc(json_array_size(resources) * sizeof(*res));
    all = gw_calloc(json_array_size(resources) + 1, sizeof(*all));
    json_array_foreach(resources, i, v)
    {
        parse_resource(u, &res[i], v);
        all[i] = &res[i];
    }
    assemble_into(u, u, all, json_array_size(resources));
    free(all);
    builtin = u;
}

const gw_catalog_t *
gw_catalog_builtin(void)
{
    pthread_once(&builtin_once, load_builtin);
    return builtin;
}

/* ---- assembly and lookups ---------------------------------------------------------------- */

static int
gvx_cmp(const gw_resource_t *a, const gw_resource_t *b, const char *ax, const char *bx)
{
    int d = strcmp(a->group, b->group);

    if (d == 0)
        d = strcmp(a->version, b->version);
    return d ? d : strcmp(ax, bx);
}

static int
by_name_cmp(const void *a, const void *b)
{
    const gw_resource_t *x = *(const gw_resource_t *const *)a;
    const gw_resource_t *y = *(const gw_resource_t *const *)b;

    return gvx_cmp(x, y, x->name, y->name);
}

static int
by_kind_cmp(const void *a, const void *b)
{
    const gw_resource_t *x = *(const gw_resource_t *const *)a;
    const gw_resource_t *y = *(const gw_resource_t *const *)b;

    return gvx_cmp(x, y, x->kind, y->kind);
}

static bool
gv_served(const gw_resource_t **served, size_t n, const char *group, const char *version)
{
    for (size_t i = 0; i < n; i++) {
        if (strcmp(served[i]->group, group) == 0 && strcmp(served[i]->version, version) == 0)
            return true;
    }
    return false;
}

/* Groups with at least one served version, in the universe's order. */
static void
build_groups(gw_catalog_t *c, const gw_catalog_t *u)
{
    gw_group_t *g = NULL;
    const char **versions = NULL;

    c->groups = gw_catalog__alloc(u->n_gvs * sizeof(*c->groups));
    for (size_t i = 0; i < u->n_gvs; i++) {
        const gw_catalog__gv_t *gv = &u->gvs[i];
        if (!gv_served(c->resources, c->n_resources, gv->group, gv->version))
            continue;
        if (g == NULL || strcmp(g->name, gv->group) != 0) {
            g = &c->groups[c->n_groups++];
            g->name = gv->group;
            versions = gw_catalog__alloc(u->n_gvs * sizeof(*versions));
            g->versions = versions;
        }
        versions[g->n_versions++] = gv->version;
    }
}

static const gw_resource_t **
sorted_copy(const gw_catalog_t *c, int (*cmp)(const void *, const void *))
{
    size_t n = c->n_resources;
    const gw_resource_t **out = gw_catalog__alloc_in(c, n * sizeof(*out));

    memcpy(out, c->resources, n * sizeof(*out));
    qsort(out, n, sizeof(*out), cmp);
    return out;
}

void
gw_catalog__index(gw_catalog_t *c)
{
    c->by_name = sorted_copy(c, by_name_cmp);
    c->by_kind = sorted_copy(c, by_kind_cmp);
    pthread_mutex_init(&c->docs_lock, NULL);
}

static void
assemble_into(gw_catalog_t *c, const gw_catalog_t *universe, const gw_resource_t **served, size_t n)
{
    c->universe = universe;
    c->resources = gw_catalog__alloc(n * sizeof(*c->resources));
    memcpy(c->resources, served, n * sizeof(*c->resources));
    c->n_resources = n;
    gw_catalog__index(c);
    build_groups(c, universe);
}

gw_catalog_t *
gw_catalog__assemble(const gw_catalog_t *universe, const gw_resource_t **served, size_t n)
{
    gw_catalog_t *c = gw_catalog__alloc(sizeof(*c));

    assemble_into(c, universe, served, n);
    return c;
}

bool
gw_catalog__gv_default_on(const gw_catalog_t *universe, const char *group, const char *version)
{
    for (size_t i = 0; i < universe->n_gvs; i++) {
        const gw_catalog__gv_t *gv = &universe->gvs[i];
        if (strcmp(gv->group, group) == 0 && strcmp(gv->version, version) == 0)
            return gv->default_on;
    }
    return false;
}

static const gw_resource_t *
lookup(const gw_resource_t **index, size_t n, const gw_resource_t *key,
       int (*cmp)(const void *, const void *))
{
    const gw_resource_t **hit = bsearch(&key, index, n, sizeof(*index), cmp);

    return hit ? *hit : NULL;
}

const gw_resource_t *
gw_catalog_find(const gw_catalog_t *c, const char *group, const char *version, const char *name)
{
    gw_resource_t key = {.group = group, .version = version, .name = name};

    return lookup(c->by_name, c->n_resources, &key, by_name_cmp);
}

const gw_resource_t *
gw_catalog_find_kind(const gw_catalog_t *c, const char *group, const char *version,
                     const char *kind)
{
    gw_resource_t key = {.group = group, .version = version, .kind = kind};

    return lookup(c->by_kind, c->n_resources, &key, by_kind_cmp);
}

size_t
gw_catalog_count(const gw_catalog_t *c)
{
    return c->n_resources;
}

const gw_resource_t *
gw_catalog_at(const gw_catalog_t *c, size_t i)
{
    return i < c->n_resources ? c->resources[i] : NULL;
}

size_t
gw_catalog_group_count(const gw_catalog_t *c)
{
    return c->n_groups;
}

const gw_group_t *
gw_catalog_group_at(const gw_catalog_t *c, size_t i)
{
    return i < c->n_groups ? &c->groups[i] : NULL;
}

const gw_group_t *
gw_catalog_group(const gw_catalog_t *c, const char *name)
{
    for (size_t i = 0; i < c->n_groups; i++) {
        if (strcmp(c->groups[i].name, name) == 0)
            return &c->groups[i];
    }
    return NULL;
}

void
gw_catalog_bind_strategies(const gw_catalog_t *c, gw_strategy_resolve_fn resolve)
{
    const gw_catalog_t *u = c->universe;

    /* The universe's resources are its own process-lifetime allocations, written here once
     * before the catalog is shared. */
    for (size_t i = 0; i < u->n_resources; i++) {
        gw_resource_t *r = (gw_resource_t *)u->resources[i];
        r->strategy = resolve(r);
    }
}

const gw_subresource_t *
gw_resource_subresource(const gw_resource_t *r, const char *name)
{
    for (size_t i = 0; i < r->n_subresources; i++) {
        if (strcmp(r->subresources[i].name, name) == 0)
            return &r->subresources[i];
    }
    return NULL;
}

char *
gw_resource_api_version(const gw_resource_t *r)
{
    if (r->group[0] == '\0')
        return gw_strdup(r->version);
    return gw_sprintf("%s/%s", r->group, r->version);
}
