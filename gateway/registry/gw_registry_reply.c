/* Answers shared by the handlers. */
#include "gw_registry_int.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gw_err.h"
#include "gw_table.h"

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
    return gw_table_build(r->resource, items, list_meta, r->table_version, include,
                          (long long)time(NULL));
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

void
gw_registry__reply_obj(gw_req_t *r, int code, const gw_obj_t *obj)
{
    gw_buf_t b = {0};
    json_t *doc;

    if (r->accept == GW_MEDIA_TABLE) {
        doc = gw_registry__parse_stored((const char *)obj->value, obj->value_len,
                                        obj->mod_revision, r->resource);
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
