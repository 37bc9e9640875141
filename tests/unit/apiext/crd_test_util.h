/* What the apiext unit tests share: schemas compiled from JSON text against the built-in
 * ObjectMeta, and field errors as kube prints them ("<field>: <message>" lines). */
#ifndef TESTS_UNIT_APIEXT_CRD_TEST_UTIL_H
#define TESTS_UNIT_APIEXT_CRD_TEST_UTIL_H

#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "gw_alloc.h"
#include "gw_arena.h"
#include "gw_buf.h"
#include "gw_catalog.h"
#include "gw_crd_schema.h"
#include "tap.h"

static inline const gw_schema_t *
objmeta(void)
{
    return gw_catalog_definition(gw_catalog_builtin(),
                                 "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta");
}

static inline json_t *
parse(const char *text)
{
    json_error_t e;
    json_t *j = json_loads(text, JSON_DECODE_ANY, &e);
    if (j == NULL) {
        tap_diag("bad test JSON: %s: %s", e.text, text);
        abort();
    }
    return j;
}

/* The schema text compiled into a (failing the test run on an error). */
static inline const gw_schema_t *
compile(gw_arena_t *a, const char *text)
{
    char err[256] = "";
    const gw_schema_t *s = NULL;
    json_t *j = parse(text);
    if (gw_crd_schema_compile(a, j, objmeta(), &s, err, sizeof(err)) != 0) {
        tap_diag("compile failed: %s: %s", err, text);
        abort();
    }
    json_decref(j);
    return s;
}

/* "<field>: <message>" of each error, one a line. Caller frees. */
static inline char *
errors_text(const gw_field_errors_t *e)
{
    gw_buf_t b = {0};
    size_t i;
    const json_t *c;
    gw_buf_add(&b, "", 0);
    json_array_foreach(e->causes, i, c)
    {
        if (i > 0)
            gw_buf_char(&b, '\n');
        gw_buf_str(&b, json_string_value(json_object_get(c, "field")));
        gw_buf_str(&b, ": ");
        gw_buf_str(&b, json_string_value(json_object_get(c, "message")));
    }
    return b.data;
}

/* The document's JSON with sorted keys (caller frees). */
static inline char *
dump(const json_t *j)
{
    return json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
}

#endif
