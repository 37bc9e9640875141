/*
 * Shared events: a storage event encoded once as its JSON watch line, with what selectors need
 * of its new and previous states read once (kube's watch cache keeps an event's labels and
 * fields beside it for the same reason), then shared by reference count.
 */
#include "gw_watch.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"

static const char *const type_names[] = {
    [GW_WATCH_ADDED] = "ADDED",
    [GW_WATCH_MODIFIED] = "MODIFIED",
    [GW_WATCH_DELETED] = "DELETED",
};

/* A dotted field of doc as a field selector reads it: strings as they are, booleans and
 * integers as text; NULL when absent or of another type. */
static char *
field_text(const json_t *doc, const char *field)
{
    const json_t *v = doc;
    char part[128];

    for (const char *p = field; v != NULL && *p != '\0';) {
        size_t n = strcspn(p, ".");
        snprintf(part, sizeof(part), "%.*s", (int)n, p);
        v = json_object_get(v, part);
        p += n + (p[n] == '.');
    }
    if (json_is_string(v))
        return gw_strdup(json_string_value(v));
    if (json_is_boolean(v))
        return gw_strdup(json_is_true(v) ? "true" : "false");
    if (json_is_integer(v))
        return gw_sprintf("%" JSON_INTEGER_FORMAT, json_integer_value(v));
    return NULL;
}

static gw_wev_field_fn field_fn;

void
gw_wev_set_field_fn(gw_wev_field_fn fn)
{
    field_fn = fn;
}

static size_t
count_fields(const char *const *fields)
{
    size_t n = 0;

    while (fields != NULL && fields[n] != NULL)
        n++;
    return n;
}

/* The attributes of one stored state; false when the bytes are not a JSON object. */
static bool
read_attrs(gw_wev_attrs_t *a, const gw_obj_t *obj, const char *const *fields)
{
    json_t *doc = json_loadb((const char *)obj->value, obj->value_len, 0, NULL), *labels;
    size_t n = count_fields(fields);

    if (!json_is_object(doc)) {
        json_decref(doc);
        return false;
    }
    labels = json_object_get(json_object_get(doc, "metadata"), "labels");
    a->labels = json_is_object(labels) ? json_incref(labels) : NULL;
    a->values = gw_calloc(n + 1, sizeof(*a->values));
    a->n_values = n;
    for (size_t i = 0; i < n; i++)
        a->values[i] = field_fn ? field_fn(fields, fields[i], doc) : field_text(doc, fields[i]);
    json_decref(doc);
    return true;
}

static void
clear_attrs(gw_wev_attrs_t *a)
{
    json_decref(a->labels);
    for (size_t i = 0; i < a->n_values; i++)
        free((char *)a->values[i]);
    free(a->values);
}

/* `{"type":"<TYPE>","object":<obj>}\n` with obj at *obj_at. */
static char *
make_line(gw_watch_type_t type, const char *obj, size_t obj_len, size_t *len, size_t *obj_at)
{
    char head[48];
    int h = snprintf(head, sizeof(head), "{\"type\":\"%s\",\"object\":", type_names[type]);
    char *line = gw_malloc((size_t)h + obj_len + 2);

    memcpy(line, head, (size_t)h);
    memcpy(line + h, obj, obj_len);
    memcpy(line + h + obj_len, "}\n", 2);
    *len = (size_t)h + obj_len + 2;
    *obj_at = (size_t)h;
    return line;
}

struct gw_wev_form {
    char *data;
    size_t len;
};

static void
wev_free(gw_wev_t *e)
{
    for (int i = 0; i < GW_WEV_FORMS; i++) {
        struct gw_wev_form *f = atomic_load(&e->forms[i]);
        if (f != NULL)
            free(f->data);
        free(f);
    }
    clear_attrs(&e->cur);
    clear_attrs(&e->old);
    free((char *)e->key);
    free((char *)e->line);
    free((char *)e->prev);
    free(e);
}

static bool
fill(gw_wev_t *e, const gw_watch_event_t *ev, const char *const *fields, gw_wev_encode_fn encode)
{
    size_t len, at;
    char *obj =
        encode((const char *)ev->obj->value, ev->obj->value_len, ev->obj->mod_revision, &len);

    if (obj == NULL)
        return false;
    e->line = make_line(ev->type, obj, len, &e->line_len, &at);
    e->obj = e->line + at;
    e->obj_len = len;
    free(obj);
    if (ev->type != GW_WATCH_DELETED && !read_attrs(&e->cur, ev->obj, fields))
        return false;
    if (ev->prev == NULL)
        return true;
    e->prev = gw_memdup(ev->prev->value, ev->prev->value_len);
    e->prev_len = ev->prev->value_len;
    return read_attrs(&e->old, ev->prev, fields);
}

gw_wev_t *
gw_wev_new(const gw_watch_event_t *ev, const char *const *fields, gw_wev_encode_fn encode)
{
    gw_wev_t *e;

    if (ev->obj == NULL || ev->type == GW_WATCH_PROGRESS)
        return NULL;
    e = gw_calloc(1, sizeof(*e));
    e->type = ev->type;
    e->rev = ev->revision;
    e->key = gw_strdup(ev->obj->key);
    atomic_init(&e->refs, 1);
    if (!fill(e, ev, fields, encode)) {
        wev_free(e);
        return NULL;
    }
    return e;
}

gw_wev_t *
gw_wev_ref(gw_wev_t *e)
{
    atomic_fetch_add_explicit(&e->refs, 1, memory_order_relaxed);
    return e;
}

void
gw_wev_unref(gw_wev_t *e)
{
    if (e != NULL && atomic_fetch_sub_explicit(&e->refs, 1, memory_order_acq_rel) == 1)
        wev_free(e);
}

void
gw_wev_unref_cleanup(const void *data, size_t len, void *arg)
{
    (void)data;
    (void)len;
    gw_wev_unref(arg);
}

const char *
gw_wev_form(gw_wev_t *e, int slot, gw_wev_form_fn make, void *ctx, size_t *len)
{
    struct gw_wev_form *f = atomic_load(&e->forms[slot]), *mine, *none = NULL;
    size_t n;
    char *data;

    if (f == NULL) {
        data = make(e, ctx, &n);
        if (data == NULL)
            return NULL;
        mine = gw_malloc(sizeof(*mine));
        *mine = (struct gw_wev_form){data, n};
        /* Two workers may race to make it: the first one kept wins, the other is dropped. */
        if (atomic_compare_exchange_strong(&e->forms[slot], &none, mine)) {
            f = mine;
        } else {
            free(data);
            free(mine);
            f = none;
        }
    }
    *len = f->len;
    return f->data;
}
