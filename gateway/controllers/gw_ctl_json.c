/* Stored objects as JSON, for the controllers: parse, dump, and the metadata they look at. */
#include "gw_ctl_int.h"

#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"

json_t *
gw_ctl__parse(const gw_obj_t *obj)
{
    json_t *o = json_loadb((const char *)obj->value, obj->value_len, 0, NULL);

    if (o != NULL && !json_is_object(o)) {
        json_decref(o);
        o = NULL;
    }
    return o;
}

uint8_t *
gw_ctl__dump(json_t *o, size_t *len)
{
    json_t *meta = json_object_get(o, "metadata");
    char *text;

    if (json_is_object(meta))
        json_object_del(meta, "resourceVersion");
    text = json_dumps(o, JSON_COMPACT);
    if (text == NULL)
        abort(); /* only out of memory: the objects we dump are valid JSON */
    *len = strlen(text);
    return (uint8_t *)text;
}

json_t *
gw_ctl__child(json_t *o, const char *name)
{
    json_t *c = json_object_get(o, name);

    if (!json_is_object(c)) {
        c = json_object();
        json_object_set_new(o, name, c);
    }
    return c;
}

bool
gw_ctl__deleting(const json_t *o)
{
    const json_t *ts = json_object_get(json_object_get(o, "metadata"), "deletionTimestamp");

    return ts != NULL && !json_is_null(ts);
}

json_t *
gw_ctl__array(const json_t *o, const char *a, const char *b)
{
    json_t *arr = json_object_get(json_object_get(o, a), b);

    return json_is_array(arr) ? arr : NULL;
}

size_t
gw_ctl__count(const json_t *o, const char *a, const char *b)
{
    return json_array_size(gw_ctl__array(o, a, b));
}

bool
gw_ctl__remove(json_t *o, const char *a, const char *b, const char *s)
{
    json_t *arr = gw_ctl__array(o, a, b);
    bool removed = false;

    for (size_t i = json_array_size(arr); i-- > 0;) {
        json_t *v = json_array_get(arr, i);
        if (json_is_string(v) && strcmp(json_string_value(v), s) == 0) {
            json_array_remove(arr, i);
            removed = true;
        }
    }
    return removed;
}

bool
gw_ctl__add(json_t *o, const char *a, const char *b, const char *s)
{
    json_t *parent = gw_ctl__child(o, a);
    json_t *arr = json_object_get(parent, b);

    if (!json_is_array(arr)) {
        arr = json_array();
        json_object_set_new(parent, b, arr);
    }
    if (gw_json_strings_has(arr, s))
        return false;
    json_array_append_new(arr, json_string(s));
    return true;
}
