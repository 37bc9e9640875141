/* PartialObjectMetadata: documents and the schemas their protobuf form needs. */
#include "gw_partial.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define META_OBJECT "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
#define META_LIST "io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta"

const char *
gw_partial_go_package(const char *group, char *buf)
{
    size_t n = strcspn(group, ".");

    if (n == 0 || strcmp(group, "events.k8s.io") == 0)
        return "core";
    if (strcmp(group, "internal.apiserver.k8s.io") == 0)
        return "apiserverinternal";
    snprintf(buf, 64, "%.*s", n < 63 ? (int)n : 63, group);
    return buf;
}

const char *
gw_partial_api_version(const char *version)
{
    return version != NULL && strcmp(version, "v1beta1") == 0 ? "meta.k8s.io/v1beta1"
                                                              : "meta.k8s.io/v1";
}

json_t *
gw_partial_object(const json_t *obj, const char *version)
{
    json_t *meta = json_object_get(obj, "metadata");

    return json_pack("{s:s,s:s,s:O}", "kind", "PartialObjectMetadata", "apiVersion",
                     gw_partial_api_version(version), "metadata",
                     json_is_object(meta) ? meta : json_object());
}

/* Built once: the schemas reference the built-in catalog's definitions, which every catalog
 * shares. Fields are sorted by
 * name (gw_schema_field's bsearch). */
static const gw_schema_t string_schema = {.type = GW_SCHEMA_STRING};
static gw_schema_field_t object_fields[3];
static gw_proto_field_t object_proto_fields[1];
static gw_proto_message_t object_proto = {object_proto_fields, 1};
static gw_schema_t object_schema;
static gw_schema_t items_schema;
static gw_schema_field_t list_fields[4];
static gw_proto_field_t list_proto_fields[2];
static gw_proto_message_t list_proto = {list_proto_fields, 2};
static gw_schema_t list_schema;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void
build(void)
{
    const gw_schema_t *meta = gw_catalog_definition(gw_catalog_builtin(), META_OBJECT);
    const gw_schema_t *list_meta = gw_catalog_definition(gw_catalog_builtin(), META_LIST);

    if (meta == NULL || list_meta == NULL)
        abort(); /* the embedded catalog always has them */
    object_fields[0] = (gw_schema_field_t){"apiVersion", &string_schema};
    object_fields[1] = (gw_schema_field_t){"kind", &string_schema};
    object_fields[2] = (gw_schema_field_t){"metadata", meta};
    object_proto_fields[0] = (gw_proto_field_t){.number = 1, .field = &object_fields[2]};
    object_schema =
        (gw_schema_t){.type = GW_SCHEMA_OBJECT,
                      .ref = "io.k8s.apimachinery.pkg.apis.meta.v1.PartialObjectMetadata",
                      .fields = object_fields,
                      .n_fields = 3,
                      .proto = &object_proto};
    items_schema = (gw_schema_t){.type = GW_SCHEMA_ARRAY, .items = &object_schema};
    list_fields[0] = (gw_schema_field_t){"apiVersion", &string_schema};
    list_fields[1] = (gw_schema_field_t){"items", &items_schema};
    list_fields[2] = (gw_schema_field_t){"kind", &string_schema};
    list_fields[3] = (gw_schema_field_t){"metadata", list_meta};
    list_proto_fields[0] = (gw_proto_field_t){.number = 1, .field = &list_fields[3]};
    list_proto_fields[1] = (gw_proto_field_t){.number = 2, .field = &list_fields[1]};
    list_schema =
        (gw_schema_t){.type = GW_SCHEMA_OBJECT,
                      .ref = "io.k8s.apimachinery.pkg.apis.meta.v1.PartialObjectMetadataList",
                      .fields = list_fields,
                      .n_fields = 4,
                      .proto = &list_proto};
}

const gw_schema_t *
gw_partial_schema(bool list)
{
    pthread_once(&once, build);
    return list ? &list_schema : &object_schema;
}
