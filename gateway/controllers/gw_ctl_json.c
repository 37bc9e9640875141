/* Stored objects as JSON, for the controllers: parse, dump, and the metadata they look at. */
#include "gw_ctl_int.h"

#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_json.h"

json_t *
gw_ctl__parse(const gw_obj_t *obj)
{
    json_t *o = gw_json_loadb((const char *)obj->value, obj->value_len, 0, NULL);

    if (o != NULL && !json_is_object(o)) {
        json_decref(o);
        o = NULL;
    }
    return o;
}

json_t *
gw_ctl__parse_meta(const gw_obj_t *obj)
{
    /* what the garbage collector reads (gw_gc_meta_parse): not the labels, annotations or
     * managedFields, which are most of the metadata */
    static const char *const keys[] = {"apiVersion",
                                       "kind",
                                       "metadata.uid",
                                       "metadata.namespace",
                                       "metadata.name",
                                       "metadata.ownerReferences",
                                       "metadata.deletionTimestamp",
                                       "metadata.finalizers"};

    return gw_json_load_members((const char *)obj->value, obj->value_len, keys,
                                sizeof(keys) / sizeof(keys[0]));
}

uint8_t *
gw_ctl__dump(json_t *o, size_t *len)
{
    json_t *meta = json_object_get(o, "metadata");
    char *text;

    if (json_is_object(meta))
        json_object_del(meta, "resourceVersion");
    text = gw_json_dumps(o, JSON_COMPACT);
    if (text == NULL)
        abort(); /* only out of memory: the objects we dump are valid JSON */
    *len = strlen(text);
    return (uint8_t *)text;
}

bool
gw_ctl__str_is(const json_t *v, const char *s)
{
    return json_is_string(v) && strcmp(json_string_value(v), s) == 0;
}
