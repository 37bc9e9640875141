/*
 * A list answer in the negotiated form, piece by piece: JSON ({"kind":...,"items":[a,b]}) or
 * protobuf (the envelope around <Kind>List {metadata=1, items=2 each}), of the objects or of
 * their PartialObjectMetadata. Items are encoded as they are read, so a streamed list never
 * holds more than a chunk.
 */
#include "gw_registry_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gw_log.h"
#include "gw_negotiate.h"
#include "gw_partial.h"
#include "gw_protobuf.h"
#include "gw_json.h"

#define LIST_META "io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta"

void
gw_registry__items_init(gw_items_t *it, gw_req_t *r, bool negotiated)
{
    bool partial = negotiated && r->as == GW_AS_PARTIAL_LIST;

    *it = (gw_items_t){.r = r, .partial = partial};
    it->protobuf = negotiated && r->accept == GW_MEDIA_PROTOBUF;
    it->kind = partial ? "PartialObjectMetadataList" : r->resource->list_kind;
    it->api_version = partial ? gw_partial_api_version(r->as_version) : gw_registry__api_version(r);
    if (it->protobuf)
        it->item_schema = partial ? gw_partial_schema(false) : r->resource->schema;
}

/* The item as a document: the stored object with its resourceVersion, or its metadata view. */
static json_t *
item_doc(const gw_items_t *it, const gw_obj_t *obj)
{
    static const char *const meta[] = {"metadata"};
    json_t *doc, *view;

    if (!it->partial)
        return gw_registry__parse_stored((const char *)obj->value, obj->value_len,
                                         obj->mod_revision, it->r->resource);
    doc = gw_registry__parse_members((const char *)obj->value, obj->value_len, meta, 1);
    if (doc == NULL || !json_is_object(json_object_get(doc, "metadata"))) {
        json_decref(doc);
        return NULL;
    }
    json_object_set_new(json_object_get(doc, "metadata"), "resourceVersion",
                        json_sprintf("%" PRId64, obj->mod_revision));
    view = gw_partial_object(doc, it->r->as_version);
    json_decref(doc);
    return view;
}

/* One protobuf message as an items field (2). */
static bool
add_message(const gw_items_t *it, gw_buf_t *b, int number, const gw_schema_t *s, const json_t *doc)
{
    uint8_t *bytes, head[16];
    size_t len;
    char err[256];

    if (gw_protobuf_encode_raw(it->r->catalog, s, doc, &bytes, &len, err, sizeof(err)) != 0) {
        gw_log_error(it->r->audit_id, "cannot encode a list item as protobuf: %s", err);
        return false;
    }
    gw_buf_add(b, head, gw_protobuf_field_head(number, len, head));
    gw_buf_add(b, bytes, len);
    free(bytes);
    return true;
}

bool
gw_registry__items_add(const gw_items_t *it, gw_buf_t *b, const gw_obj_t *obj)
{
    json_t *doc;
    char *text;
    bool ok;

    if (!it->protobuf && b->len > 0)
        gw_buf_add(b, ",", 1);
    if (!it->protobuf && !it->partial)
        return gw_registry__buf_obj(b, obj, it->r->resource);
    doc = item_doc(it, obj);
    if (doc == NULL)
        return false;
    if (it->protobuf) {
        ok = add_message(it, b, 2, it->item_schema, doc);
    } else {
        text = gw_json_dumps(doc, JSON_COMPACT);
        gw_buf_str(b, text);
        free(text);
        ok = true;
    }
    json_decref(doc);
    return ok;
}

bool
gw_registry__items_add_doc(const gw_items_t *it, gw_buf_t *b, const json_t *doc)
{
    char *text;

    if (it->protobuf)
        return add_message(it, b, 2, it->item_schema, doc);
    if (b->len > 0)
        gw_buf_add(b, ",", 1);
    text = gw_json_dumps(doc, JSON_COMPACT | JSON_SORT_KEYS);
    gw_buf_str(b, text);
    free(text);
    return true;
}

/* The ListMeta as protobuf field 1: a message kube always writes, empty or not. */
static void
add_list_meta(const gw_items_t *it, gw_buf_t *b, const json_t *meta)
{
    const gw_schema_t *s = gw_catalog_definition(it->r->catalog, LIST_META);

    if (s == NULL || !add_message(it, b, 1, s, meta))
        abort(); /* a ListMeta of our own making always encodes */
}

void
gw_registry__items_head(const gw_items_t *it, gw_buf_t *b, const json_t *meta, size_t items_len)
{
    gw_buf_t lm = {0};
    uint8_t head[GW_PROTOBUF_HEAD_MAX];
    char *text;

    if (it->protobuf) {
        add_list_meta(it, &lm, meta);
        gw_buf_add(b, head,
                   gw_protobuf_envelope_head(it->api_version, it->kind, lm.len + items_len, head));
        gw_buf_add(b, lm.data, lm.len);
        free(lm.data);
        return;
    }
    text = gw_json_dumps(meta, JSON_COMPACT);
    gw_buf_str(b, "{\"kind\":\"");
    gw_buf_str(b, it->kind);
    gw_buf_str(b, "\",\"apiVersion\":\"");
    gw_buf_str(b, it->api_version);
    gw_buf_str(b, "\",\"metadata\":");
    gw_buf_str(b, text);
    gw_buf_str(b, ",\"items\":[");
    free(text);
}

void
gw_registry__items_tail(const gw_items_t *it, gw_buf_t *b)
{
    if (it->protobuf)
        gw_buf_add(b, GW_PROTOBUF_ENVELOPE_TAIL, GW_PROTOBUF_ENVELOPE_TAIL_LEN);
    else
        gw_buf_str(b, "]}");
}

const char *
gw_registry__items_type(const gw_items_t *it)
{
    return it->protobuf ? GW_PROTOBUF_MEDIA_TYPE : "application/json";
}
