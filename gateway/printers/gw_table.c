/* meta.k8s.io Tables: kube-apiserver's printer columns for the kinds it prints, its default
 * Name / Created At columns for the others, and each row's object as includeObject asks. */
#include "gw_table.h"

#include <stdio.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_table_int.h"

static const gw_table__column_t default_columns[] = {
    {"Name", "string", "name", GW_TABLE__NAME_DESCRIPTION, 0},
    {"Created At", "date", "", GW_TABLE__CREATED_DESCRIPTION, 0},
};

/* kube's DefaultTableConvertor: the name, and the creation time in UTC (Go's zero time when
 * the object has none). */
static void
default_cells(const json_t *obj, long long now, json_t *row)
{
    json_t *cells = json_object_get(row, "cells");
    char buf[32] = "0001-01-01T00:00:00Z";
    long long t;
    (void)now;
    if (gw_time_parse(gw_table__str(obj, "metadata.creationTimestamp"), &t))
        gw_time_format(t, buf);
    gw_table__cell(cells, gw_table__str(obj, "metadata.name"));
    gw_table__cell(cells, buf);
}

static const gw_table__printer_t default_printer = {
    "", "", default_columns, sizeof(default_columns) / sizeof(default_columns[0]), default_cells};

static const gw_table__printer_t *
find_printer(const gw_resource_t *r)
{
    static const struct {
        const gw_table__printer_t *list;
        const size_t *n;
    } tables[] = {
        {gw_table__core_printers, &gw_table__n_core_printers},
        {gw_table__apps_printers, &gw_table__n_apps_printers},
    };
    for (size_t t = 0; t < sizeof(tables) / sizeof(tables[0]); t++) {
        for (size_t i = 0; i < *tables[t].n; i++) {
            const gw_table__printer_t *p = &tables[t].list[i];
            if (strcmp(p->group, r->group) == 0 && strcmp(p->resource, r->name) == 0)
                return p;
        }
    }
    return &default_printer;
}

static json_t *
column_definitions(const gw_table__printer_t *p)
{
    json_t *cols = json_array();
    for (size_t i = 0; i < p->n_columns; i++) {
        const gw_table__column_t *c = &p->columns[i];
        json_array_append_new(cols, json_pack("{s:s,s:s,s:s,s:s,s:i}", "name", c->name, "type",
                                              c->type, "format", c->format, "description",
                                              c->description, "priority", c->priority));
    }
    return cols;
}

/* The row's object: PartialObjectMetadata by default, the whole object, or null (None). */
static json_t *
row_object(const json_t *item, const char *table_version, gw_table_include_t include)
{
    char api_version[64];
    json_t *meta = json_object_get(item, "metadata");
    if (include == GW_TABLE_INCLUDE_NONE)
        return json_null();
    if (include == GW_TABLE_INCLUDE_OBJECT)
        return json_incref((json_t *)item);
    snprintf(api_version, sizeof(api_version), "meta.k8s.io/%s", table_version);
    return json_pack("{s:s,s:s,s:o}", "kind", "PartialObjectMetadata", "apiVersion", api_version,
                     "metadata", meta != NULL ? json_incref(meta) : json_object());
}

json_t *
gw_table_build(const gw_resource_t *r, const json_t *items, const json_t *list_meta,
               const char *table_version, gw_table_include_t include, long long now)
{
    /* A custom resource's columns are compiled for each table: a few short paths, parsed in
       microseconds, and nothing to keep in step with the catalog snapshots that own them. */
    gw_table__custom_t *custom = r->custom != NULL ? gw_table__custom_compile(r->custom) : NULL;
    const gw_table__printer_t *p = find_printer(r);
    json_t *rows = json_array(), *meta = json_object();
    char api_version[64];
    snprintf(api_version, sizeof(api_version), "meta.k8s.io/%s", table_version);
    if (json_is_object(list_meta))
        json_object_update(meta, (json_t *)list_meta);
    for (size_t i = 0; i < json_array_size(items); i++) {
        const json_t *item = json_array_get(items, i);
        json_t *row = json_pack("{s:[]}", "cells");
        if (custom != NULL)
            gw_table__custom_cells(custom, item, now, row);
        else
            p->cells(item, now, row);
        json_object_set_new(row, "object", row_object(item, table_version, include));
        json_array_append_new(rows, row);
    }
    json_t *cols = custom != NULL ? gw_table__custom_columns(custom) : column_definitions(p);
    gw_table__custom_free(custom);
    return json_pack("{s:s,s:s,s:o,s:o,s:o}", "kind", "Table", "apiVersion", api_version,
                     "metadata", meta, "columnDefinitions", cols, "rows", rows);
}
