/* Tables of custom resources: kube's apiextensions table convertor
 * (pkg/registry/customresource/tableconvertor). The columns are Name and the version's
 * additionalPrinterColumns (kube's CRD handler serves an Age column of the creation time when
 * a version has none); a cell is the first result of the column's JSONPath, printed as
 * JSONPath prints it for string columns and typed by cellForJSONValue for the others, null
 * when the path finds nothing or fails. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_jsonpath.h"
#include "gw_table_int.h"

typedef struct {
    const char *name, *type, *format, *path_text;
    char *description;
    json_int_t priority;
    gw_jsonpath_t *path;
} column_t;

struct gw_table__custom {
    column_t *cols;
    size_t n;
    json_t *defaults; /* the default columns when the version has none (cols point into them) */
};

static const char *
str_of(const json_t *obj, const char *key)
{
    const char *s = json_string_value(json_object_get(obj, key));
    return s != NULL ? s : "";
}

/* What getColumnsForVersion serves when a version declares no columns. */
static json_t *
default_columns(void)
{
    return json_pack("[{s:s,s:s,s:s,s:s}]", "name", "Age", "type", "date", "description",
                     GW_TABLE__CREATED_DESCRIPTION, "jsonPath", ".metadata.creationTimestamp");
}

/* One column, as tableconvertor.New takes it; false when its path does not parse. */
static bool
compile_column(const json_t *def, column_t *col)
{
    char err[256];
    col->path_text = str_of(def, "jsonPath");
    char *wrapped = gw_sprintf("{%s}", col->path_text);
    col->path = gw_jsonpath_parse(wrapped, err, sizeof(err));
    free(wrapped);
    if (col->path == NULL)
        return false;
    col->name = str_of(def, "name");
    col->type = str_of(def, "type");
    col->format = str_of(def, "format");
    col->priority = json_integer_value(json_object_get(def, "priority"));
    col->description =
        str_of(def, "description")[0] != '\0'
            ? gw_strdup(str_of(def, "description"))
            : gw_sprintf("Custom resource definition column (in JSONPath format): %s",
                         col->path_text);
    return true;
}

gw_table__custom_t *
gw_table__custom_compile(const gw_custom_t *custom)
{
    const json_t *defs = json_object_get(custom->version, "additionalPrinterColumns");
    gw_table__custom_t *c = gw_calloc(1, sizeof(*c));
    if (json_array_size(defs) == 0)
        defs = c->defaults = default_columns();
    c->cols = gw_calloc(json_array_size(defs) + 1, sizeof(*c->cols));
    /* kube stops at the first column it cannot parse and serves the ones before it */
    while (c->n < json_array_size(defs) &&
           compile_column(json_array_get(defs, c->n), &c->cols[c->n]))
        c->n++;
    return c;
}

void
gw_table__custom_free(gw_table__custom_t *c)
{
    if (c == NULL)
        return;
    for (size_t i = 0; i < c->n; i++) {
        gw_jsonpath_free(c->cols[i].path);
        free(c->cols[i].description);
    }
    free(c->cols);
    json_decref(c->defaults);
    free(c);
}

json_t *
gw_table__custom_columns(const gw_table__custom_t *c)
{
    json_t *cols = json_array();
    json_array_append_new(cols, json_pack("{s:s,s:s,s:s,s:s,s:i}", "name", "Name", "type", "string",
                                          "format", "name", "description",
                                          GW_TABLE__NAME_DESCRIPTION, "priority", 0));
    for (size_t i = 0; i < c->n; i++) {
        const column_t *col = &c->cols[i];
        json_array_append_new(cols, json_pack("{s:s,s:s,s:s,s:s,s:I}", "name", col->name, "type",
                                              col->type, "format", col->format, "description",
                                              col->description, "priority", col->priority));
    }
    return cols;
}

/* Go's int64(f) on amd64: truncation, and the minimum for what does not fit. */
static json_int_t
go_int64(double f)
{
    if (!(f > -9223372036854775808.0 && f < 9223372036854775808.0))
        return INT64_MIN;
    return (json_int_t)f;
}

/* A float64 cell: encoding/json writes an integral value without a fraction, as Jansson
   writes an integer. */
static json_t *
float_cell(double f)
{
    if (f == trunc(f) && fabs(f) < 1e15 && !(f == 0 && signbit(f)))
        return json_integer((json_int_t)f);
    return json_real(f);
}

/* A date column: the age of an RFC 3339 time (metav1.Time's query parameter form), "<unknown>"
   for the zero time or an empty one, "<invalid>" for anything else. */
static json_t *
date_cell(const char *s, long long now)
{
    const long long go_zero_time = -62135596800LL; /* 0001-01-01T00:00:00Z */
    long long t;
    char buf[32];
    if (s[0] == '\0' || strcmp(s, "null") == 0)
        return json_string("<unknown>");
    if (!gw_time_parse(s, &t))
        return json_string("<invalid>");
    if (t == go_zero_time)
        return json_string("<unknown>");
    gw_table__human_duration(now - t, buf, sizeof(buf));
    return json_string(buf);
}

/* cellForJSONValue: the value as the column's type holds it, else null. */
static json_t *
typed_cell(const char *type, const json_t *v, long long now)
{
    if (strcmp(type, "integer") == 0) {
        if (json_is_integer(v))
            return json_integer(json_integer_value(v));
        if (json_is_real(v))
            return json_integer(go_int64(json_real_value(v)));
    } else if (strcmp(type, "number") == 0) {
        if (json_is_number(v))
            return float_cell(json_number_value(v));
    } else if (strcmp(type, "boolean") == 0) {
        if (json_is_boolean(v))
            return json_boolean(json_is_true(v));
    } else if (strcmp(type, "date") == 0) {
        if (json_is_string(v))
            return date_cell(json_string_value(v), now);
    }
    return json_null();
}

/* One column's cell: null when the path fails or finds nothing; a string column prints its
   first result (a null as "<no value>", as kube prints a nil it took out of its interface). */
static json_t *
column_cell(const column_t *col, const json_t *obj, long long now)
{
    gw_jsonpath_results_t res = {0};
    json_t *cell = NULL;
    if (gw_jsonpath_find(col->path, obj, true, &res, NULL, 0) != 0 || res.n_parts == 0 ||
        res.end[0] == 0) {
        gw_jsonpath_results_free(&res);
        return json_null();
    }
    const json_t *v = res.values[0];
    if (strcmp(col->type, "string") == 0) {
        char *text = gw_jsonpath_text(json_is_null(v) ? NULL : v);
        cell = json_string(text);
        free(text);
    } else if (!json_is_null(v)) {
        cell = typed_cell(col->type, v, now);
    }
    gw_jsonpath_results_free(&res);
    return cell != NULL ? cell : json_null();
}

void
gw_table__custom_cells(const gw_table__custom_t *c, const json_t *obj, long long now, json_t *row)
{
    json_t *cells = json_object_get(row, "cells");
    gw_table__cell(cells, gw_table__str(obj, "metadata.name"));
    for (size_t i = 0; i < c->n; i++)
        json_array_append_new(cells, column_cell(&c->cols[i], obj, now));
}
