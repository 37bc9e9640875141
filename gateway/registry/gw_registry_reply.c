/* Answers shared by the handlers. */
#include "gw_registry_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gw_catalog.h"
#include "gw_convert.h"
#include "gw_err.h"
#include "gw_table.h"

/* The hub (storage version) resource of a spoke resource, or NULL. */
static const gw_resource_t *
hub_of(const gw_resource_t *res)
{
    const char *av, *kind, *slash;
    char group[128];

    if (!gw_convert_is_spoke(res->api_version, strlen(res->api_version), res->kind,
                             strlen(res->kind)) ||
        !gw_convert_hub(res->api_version, res->kind, &av, &kind))
        return NULL;
    slash = strchr(av, '/');
    if (slash == NULL)
        return gw_catalog_find_kind(gw_catalog_builtin(), "", av, kind);
    snprintf(group, sizeof(group), "%.*s", (int)(slash - av), av);
    return gw_catalog_find_kind(gw_catalog_builtin(), group, slash + 1, kind);
}

/* kube prints every version of a kind with the one printer of its internal type: a Table of a
 * version other than the stored one has the storage version's columns, its cells read from the
 * items converted there, and the items themselves as the rows' objects. */
json_t *
gw_registry__table_of(gw_req_t *r, const json_t *items, const json_t *list_meta,
                      gw_table_include_t include)
{
    const gw_resource_t *hub = hub_of(r->resource);
    json_t *hub_items, *table, *rows;
    size_t i;
    json_t *item;

    if (hub == NULL)
        return gw_table_build(r->resource, items, list_meta, r->table_version, include,
                              (long long)time(NULL));
    hub_items = json_array();
    json_array_foreach(items, i, item)
    {
        json_t *copy = json_deep_copy(item);
        gw_convert(copy, hub->api_version, hub->kind);
        json_array_append_new(hub_items, copy);
    }
    table =
        gw_table_build(hub, hub_items, list_meta, r->table_version, include, (long long)time(NULL));
    rows = json_object_get(table, "rows");
    if (include == GW_TABLE_INCLUDE_OBJECT)
        json_array_foreach(rows, i, item) json_object_set(item, "object", json_array_get(items, i));
    json_decref(hub_items);
    return table;
}

json_t *
gw_registry__table(gw_req_t *r, const json_t *items, const json_t *list_meta)
{
    const char *inc = gw_req_query(r, "includeObject");
    gw_table_include_t include = GW_TABLE_INCLUDE_METADATA;

    if (inc != NULL && strcmp(inc, "None") == 0) {
        include = GW_TABLE_INCLUDE_NONE;
    } else if (inc != NULL && strcmp(inc, "Object") == 0) {
        include = GW_TABLE_INCLUDE_OBJECT;
    } else if (inc != NULL && inc[0] != '\0' && strcmp(inc, "Metadata") != 0) {
        gw_reply_status(r, 400, "BadRequest", NULL, "unrecognized includeObject value: \"%s\"",
                        inc);
        return NULL;
    }
    return gw_registry__table_of(r, items, list_meta, include);
}

void
gw_registry__reply_doc(gw_req_t *r, int code, json_t *doc)
{
    json_t *items, *table, *meta, *rv;

    if (r->accept != GW_MEDIA_TABLE) {
        gw_reply_json(r, code, json_incref(doc));
        return;
    }
    /* kube puts a single object's resourceVersion in the Table's metadata. */
    rv = json_object_get(json_object_get(doc, "metadata"), "resourceVersion");
    meta = rv != NULL ? json_pack("{s:O}", "resourceVersion", rv) : NULL;
    items = json_pack("[O]", doc);
    table = gw_registry__table(r, items, meta);
    json_decref(items);
    json_decref(meta);
    if (table != NULL)
        gw_reply_json(r, code, table);
}

/* A stored object on its way through the conversion webhook to the request's version. */
typedef struct {
    int code;
    json_t *objs; /* [the object] */
} converting_t;

static void
converted(gw_req_t *r, const char *err, void *arg)
{
    converting_t *cv = arg;
    json_t *objs = cv->objs; /* cv is in the arena, which the answer frees */

    if (err != NULL)
        gw_registry__reply_conversion_error(r, err);
    else
        gw_registry__reply_doc(r, cv->code, json_array_get(objs, 0));
    json_decref(objs);
}

void
gw_registry__reply_doc_as(gw_req_t *r, int code, json_t *doc)
{
    converting_t *cv;

    if (!gw_registry__webhook_needed(r->resource, doc, r->resource->api_version)) {
        gw_registry__reply_doc(r, code, doc);
        return;
    }
    cv = gw_arena_calloc(r->arena, sizeof(*cv));
    cv->code = code;
    cv->objs = json_pack("[O]", doc);
    gw_registry__webhook_convert(r, cv->objs, r->resource->api_version, false, converted, cv);
}

/* Whether the stored object needs the webhook to be served as r's version; then the answer
 * follows its conversion. */
static bool
reply_converted(gw_req_t *r, int code, const gw_obj_t *obj)
{
    converting_t *cv;
    json_t *doc;

    if (!gw_registry__converts_by_webhook(r->resource))
        return false;
    doc = gw_registry__parse_stored((const char *)obj->value, obj->value_len, obj->mod_revision,
                                    r->resource);
    if (doc == NULL || !gw_registry__webhook_needed(r->resource, doc, r->resource->api_version)) {
        json_decref(doc);
        return false;
    }
    cv = gw_arena_calloc(r->arena, sizeof(*cv));
    cv->code = code;
    cv->objs = json_pack("[o]", doc);
    gw_registry__webhook_convert(r, cv->objs, r->resource->api_version, false, converted, cv);
    return true;
}

void
gw_registry__reply_obj(gw_req_t *r, int code, const gw_obj_t *obj)
{
    gw_buf_t b = {0};
    json_t *doc;

    if (obj->unreadable != NULL) {
        gw_fail_t f = {0};
        gw_registry__fail_unreadable(r, &f, obj->unreadable);
        gw_registry__reply_fail(r, &f);
        return;
    }
    if (reply_converted(r, code, obj))
        return;
    if (r->accept == GW_MEDIA_TABLE) {
        doc = gw_registry__parse_stored((const char *)obj->value, obj->value_len, obj->mod_revision,
                                        r->resource);
        if (doc == NULL) {
            gw_reply_error(r, GW_EINTERNAL, r->info.name);
            return;
        }
        gw_registry__reply_doc(r, code, doc);
        json_decref(doc);
        return;
    }
    if (!gw_registry__buf_obj(&b, obj, r->resource))
        gw_reply_error(r, GW_EINTERNAL, r->info.name);
    else
        gw_reply_json_bytes(r, code, b.data, b.len);
    free(b.data);
}

void
gw_registry__reply_success(gw_req_t *r, int code, const char *name, const char *uid)
{
    json_t *details = gw_registry__details(r, name);
    json_t *status = json_pack("{s:s,s:s,s:{},s:s,s:o}", "kind", "Status", "apiVersion", "v1",
                               "metadata", "status", "Success", "details", details);

    if (uid != NULL)
        json_object_set_new(details, "uid", json_string(uid));
    gw_reply_json(r, code, status);
}

void
gw_registry__reply_no_route(gw_req_t *r)
{
    gw_reply_status(r, 404, "NotFound", json_object(),
                    "the server could not find the requested resource");
}

void
gw_registry__reply_not_allowed(gw_req_t *r)
{
    gw_reply_status(r, 405, "MethodNotAllowed", json_object(),
                    "the server does not allow this method on the requested resource");
}
