#ifndef GATEWAY_CATALOG_GW_CATALOG_INT_H
#define GATEWAY_CATALOG_GW_CATALOG_INT_H

/* Internals shared by the catalog's files (catalog, schemas, runtime-config, documents). */

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "gw_arena.h"
#include "gw_catalog.h"

/* A named definition: the parsed schema and its compact JSON (for the OpenAPI documents). */
typedef struct {
    const char *name;
    const gw_schema_t *schema;
    json_t *json; /* borrowed from the universe's parsed catalog.json */
} gw_catalog__def_t;

/* A definition named by an x-kubernetes-group-version-kind marker. */
typedef struct {
    const char *group;
    const char *version;
    const char *kind;
    const gw_schema_t *schema;
} gw_catalog__gvk_t;

/* One group/version of the universe and whether kube-apiserver v1.32 serves it by default. */
typedef struct {
    const char *group;
    const char *version;
    bool default_on;
} gw_catalog__gv_t;

typedef struct gw_openapi__cache gw_openapi__cache_t;

struct gw_catalog {
    const gw_catalog_t *universe;    /* the built-in catalog (itself for the built-in one) */
    const gw_resource_t **resources; /* served, in catalog order */
    size_t n_resources;
    const gw_resource_t **by_name; /* sorted by (group, version, name) */
    const gw_resource_t **by_kind; /* sorted by (group, version, kind) */
    gw_group_t *groups;
    size_t n_groups;
    /* universe only */
    json_t *doc;             /* the parsed catalog.json, kept for its definitions */
    gw_catalog__def_t *defs; /* sorted by name */
    size_t n_defs;
    gw_catalog__gvk_t *gvks; /* sorted by (group, version, kind) */
    size_t n_gvks;
    gw_catalog__gv_t *gvs; /* in group order, versions preferred first */
    size_t n_gvs;
    gw_lifecycle_t *lifecycles; /* catalog.json's "lifecycle", sorted by (group, version, kind) */
    size_t n_lifecycles;
    /* documents built on first use (gw_openapi.c), under docs_lock */
    pthread_mutex_t docs_lock;
    gw_openapi__cache_t *openapi;
    /* a snapshot with custom resources (gw_catalog_custom.c); the others live forever */
    const gw_catalog_t *base; /* the catalog it extends; NULL for the others */
    gw_arena_t *arena;        /* its own storage, freed with it */
    _Atomic long refs;
    gw_catalog_owner_t owner; /* what its custom resources belong to */
};

/*
 * Process-lifetime storage for catalogs, schemas and their strings: zeroed, never freed, and
 * reachable from a static root so that leak checkers see it as live. Thread: any.
 */
void *gw_catalog__alloc(size_t n);
char *gw_catalog__strdup(const char *s);

/**
 * Storage that lives as long as catalog c: a snapshot's arena (the caller is the thread
 * building it, or holds its docs_lock), else process-lifetime storage. Zeroed. Thread: as said.
 */
void *gw_catalog__alloc_in(const gw_catalog_t *c, size_t n);

/** Register text (malloc'd) to be freed with catalog c (never, for the lifetime ones). */
void gw_catalog__keep(const gw_catalog_t *c, char *text);

/** Report a malformed embedded catalog (a build defect) and abort. */
_Noreturn void gw_catalog__corrupt(const char *what, const char *name);

/**
 * Parse the definitions object of catalog.json into c->defs (sorted by name), resolving every
 * "$ref" to the shared schema of its definition; recursive definitions share pointers. The
 * protobuf object (catalog.json's "protobuf", or NULL) gives each definition its wire form.
 * Also indexes the group-version-kind markers into c->gvks. Aborts on a malformed definition.
 * Thread: the one building c.
 */
void gw_catalog__load_definitions(gw_catalog_t *c, json_t *definitions, json_t *protobuf);

/** The wire type named `name` in catalog.json ("time", "raw-json", ...); aborts if unknown. */
gw_proto_type_t gw_catalog__proto_type(const char *name, const char *where);

/**
 * The protobuf message of OBJECT schema s from its facts ([[property, number path..., flags]]);
 * properties s lacks, clashing numbers or bad flags abort. Storage: catalog lifetime.
 */
const gw_proto_message_t *gw_catalog__proto_message(const gw_schema_t *s, json_t *facts,
                                                    const char *where);

/** The definition entry `name` of the universe, or NULL. */
const gw_catalog__def_t *gw_catalog__def(const gw_catalog_t *c, const char *name);

/**
 * A catalog serving `served` (pointers into the universe's resources, in universe order),
 * with its indexes and groups built. Takes ownership of nothing; copies the array.
 */
gw_catalog_t *gw_catalog__assemble(const gw_catalog_t *universe, const gw_resource_t **served,
                                   size_t n);

/** Sort c->resources into c->by_name and c->by_kind, in c's storage, and make its docs lock.
 *  Thread: the one building c. */
void gw_catalog__index(gw_catalog_t *c);

/* OpenAPI generation state (gw_openapi.c, gw_openapi_paths.c). */
typedef struct {
    bool v3;       /* OpenAPI 3.0 (components/schemas) rather than Swagger 2.0 (definitions) */
    json_t *paths; /* path -> path item, being filled */
    json_t *refs;  /* the set of definition names the paths name (name -> true) */
} gw_openapi__gen_t;

/** Add r's paths and operations to g->paths, recording the definitions they name. A custom
 *  resource gets apiextensions-apiserver's set (no watch paths; status and scale as its CRD
 *  version states them). */
void gw_openapi__resource_paths(gw_openapi__gen_t *g, const gw_resource_t *r);

/** The definition name kube gives a custom kind: the group reversed, version, kind
 *  ("com.example.stable.v1.CronTab"). Caller frees. Thread: any. */
char *gw_openapi__custom_name(const char *group, const char *version, const char *kind);

/**
 * Add the kind and list definitions of custom resource r (r->custom set) to defs, name ->
 * schema in the catalog's compact form ($ref by bare definition name), as kube publishes them
 * in OpenAPI v3 or, v3 false, in v2. Thread: any.
 */
void gw_openapi__custom_definitions(const gw_resource_t *r, bool v3, json_t *defs);

/** Whether kube-apiserver v1.32 serves group/version by default; false when unknown. */
bool gw_catalog__gv_default_on(const gw_catalog_t *universe, const char *group,
                               const char *version);

#endif
