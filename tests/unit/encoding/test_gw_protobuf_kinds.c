/* Every kind of the catalog through protobuf and back: a document that sets every field its
 * protobuf facts name (one value of each field's type, nested a few levels deep) is encoded as
 * kube's envelope and decoded again, and must read back as the same JSON, give or take the zero
 * values Go's encoder writes for fields left out. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "gw_catalog.h"
#include "gw_protobuf.h"
#include "gw_protobuf_int.h"
#include "tap.h"

#define DEPTH_MAX 6 /* deeper objects are left empty (JSONSchemaProps nests without end) */

static json_t *sample(const gw_schema_t *s, int depth);

static json_t *
sample_object(const gw_schema_t *s, const gw_proto_message_t *m, int depth, json_t *into)
{
    for (size_t i = 0; m != NULL && i < m->n_fields; i++) {
        const gw_proto_field_t *f = &m->fields[i];
        json_t *v;

        if (f->field == NULL) {
            sample_object(s, f->inlined, depth, into);
            continue;
        }
        v = depth < DEPTH_MAX ? sample(f->field->schema, depth + 1) : NULL;
        if (v != NULL)
            json_object_set_new(into, f->field->name, v);
    }
    return into;
}

/* One value of s, or NULL for a type left out (the JSONSchemaProps unions). */
static json_t *
sample(const gw_schema_t *s, int depth)
{
    json_t *v;

    switch (gw_protobuf__wire_type(s)) {
    case GW_PROTO_TIME:
        return json_string("2024-05-06T07:08:09Z");
    case GW_PROTO_MICRO_TIME:
        return json_string("2024-05-06T07:08:09.123456Z");
    case GW_PROTO_DURATION:
        return json_string("5s");
    case GW_PROTO_INT_OR_STRING:
        return json_string("http");
    case GW_PROTO_QUANTITY:
        return json_string("1Gi");
    case GW_PROTO_RAW_JSON:
        return json_pack("{s:s}", "a", "b");
    case GW_PROTO_PLAIN:
        break;
    default:
        return NULL;
    }
    switch (s->type) {
    case GW_SCHEMA_STRING:
        return json_string(s->format && strcmp(s->format, "byte") == 0 ? "aGk=" : "s");
    case GW_SCHEMA_INTEGER:
        return json_integer(7);
    case GW_SCHEMA_NUMBER:
        return json_real(1.5);
    case GW_SCHEMA_BOOLEAN:
        return json_true();
    case GW_SCHEMA_ARRAY:
        v = sample(s->items, depth);
        return v ? json_pack("[o]", v) : NULL;
    case GW_SCHEMA_MAP:
        v = sample(s->values, depth);
        return v ? json_pack("{s:o}", "k", v) : NULL;
    case GW_SCHEMA_OBJECT:
        return s->proto ? sample_object(s, s->proto, depth, json_object()) : NULL;
    default:
        return NULL;
    }
}

/* A value Go's encoder writes for a field nobody set. */
static bool
zero(const json_t *v)
{
    const char *k;
    json_t *x;

    switch (json_typeof(v)) {
    case JSON_NULL:
    case JSON_FALSE:
        return true;
    case JSON_STRING:
        return json_string_length(v) == 0 || strcmp(json_string_value(v), "0") == 0;
    case JSON_INTEGER:
        return json_integer_value(v) == 0;
    case JSON_ARRAY:
        return json_array_size(v) == 0;
    case JSON_OBJECT:
        json_object_foreach((json_t *)v, k, x)
        {
            if (!zero(x))
                return false;
        }
        return true;
    default:
        return false;
    }
}

/* Whether got is want plus zero values only; the first difference's path into where. */
static bool
same(const json_t *want, const json_t *got, char *where, size_t n)
{
    const char *k;
    json_t *x;
    size_t i;

    if (json_is_object(want) && json_is_object(got)) {
        json_object_foreach((json_t *)got, k, x)
        {
            json_t *w = json_object_get(want, k);
            if (w == NULL ? !zero(x) : !same(w, x, where, n)) {
                size_t at = strlen(where);
                snprintf(where + at, n - at, " <- %s", k);
                return false;
            }
        }
        json_object_foreach((json_t *)want, k, x)
        {
            if (json_object_get(got, k) == NULL) {
                snprintf(where, n, "missing %s", k);
                return false;
            }
        }
        return true;
    }
    if (json_is_array(want) && json_is_array(got) &&
        json_array_size(want) == json_array_size(got)) {
        json_array_foreach(want, i, x)
        {
            if (!same(x, json_array_get(got, i), where, n))
                return false;
        }
        return true;
    }
    if (!json_equal(want, got)) {
        char *a = json_dumps(want, JSON_ENCODE_ANY), *b = json_dumps(got, JSON_ENCODE_ANY);
        snprintf(where, n, "%s became %s", a ? a : "?", b ? b : "?");
        free(a);
        free(b);
        return false;
    }
    return true;
}

static void
round_trip(const gw_catalog_t *c, const gw_resource_t *r, const gw_schema_t *s, const char *kind)
{
    char *api_version = gw_resource_api_version(r), err[256] = "", where[512] = "";
    json_t *doc = sample(s, 0), *back = NULL;
    uint8_t *bytes = NULL;
    size_t len;
    bool ok;

    json_object_set_new(doc, "apiVersion", json_string(api_version));
    json_object_set_new(doc, "kind", json_string(kind));
    ok = gw_protobuf_encode(c, doc, &bytes, &len, err, sizeof(err)) == 0;
    if (ok)
        back = gw_protobuf_decode(c, bytes, len, err, sizeof(err));
    ok = back != NULL && same(doc, back, where, sizeof(where));
    if (!tap_ok(ok, "%s %s: JSON -> protobuf -> the same JSON", api_version, kind))
        tap_diag("%s%s", err, where);
    free(api_version);
    free(bytes);
    json_decref(doc);
    json_decref(back);
}

int
main(void)
{
    const gw_catalog_t *c = NULL;
    char err[256];
    size_t without = 0;

    /* Every version kgate can serve, the alphas and betas included. */
    if (gw_catalog_configure(gw_catalog_builtin(), "api/all=true", &c, err, sizeof(err)) != 0)
        tap_diag("%s", err);
    for (size_t i = 0; c != NULL && i < gw_catalog_count(c); i++) {
        const gw_resource_t *r = gw_catalog_at(c, i);
        if (r->schema == NULL || r->schema->proto == NULL) {
            tap_diag("%s/%s %s has no protobuf facts", r->group, r->version, r->name);
            without++;
            continue;
        }
        round_trip(c, r, r->schema, r->kind);
        if (r->list_schema != NULL && r->list_schema->proto != NULL)
            round_trip(c, r, r->list_schema, r->list_kind);
    }
    tap_diag("%zu resources", c ? gw_catalog_count(c) : 0);
    tap_ok(c != NULL && without == 0, "every resource of every version has a protobuf form");
    return tap_done();
}
