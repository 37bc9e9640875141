#ifndef GATEWAY_PRINTERS_GW_TABLE_INT_H
#define GATEWAY_PRINTERS_GW_TABLE_INT_H

/* Internals of the Table builder: the printer table (gw_table.c), the printers of the core
 * kinds (gw_table_core.c) and of the workload and RBAC kinds (gw_table_apps.c), and the cell
 * helpers they share (gw_table_util.c). */

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "gw_catalog.h"
#include "gw_time.h"

typedef struct {
    const char *name;
    const char *type; /* "string", "integer", "boolean", "date" */
    const char *format;
    const char *description;
    int priority; /* 1: shown by `kubectl get -o wide` only */
} gw_table__column_t;

/* Appends the row's cells (and, for pods, its conditions) to `row`. */
typedef void (*gw_table__cells_fn)(const json_t *obj, long long now, json_t *row);

typedef struct {
    const char *group;
    const char *resource;
    const gw_table__column_t *columns;
    size_t n_columns;
    gw_table__cells_fn cells;
} gw_table__printer_t;

extern const gw_table__printer_t gw_table__core_printers[];
extern const size_t gw_table__n_core_printers;
extern const gw_table__printer_t gw_table__apps_printers[];
extern const size_t gw_table__n_apps_printers;

/* The descriptions of the Name and creation time columns every table shares. */
#define GW_TABLE__NAME_DESCRIPTION "Name of the object, unique in its namespace."
#define GW_TABLE__CREATED_DESCRIPTION "When the object was created."

/* A custom resource's compiled printer columns (gw_table_custom.c). */
typedef struct gw_table__custom gw_table__custom_t;

/* Compile the columns of a custom resource's version: Name, then its additionalPrinterColumns
   (or kube's default Age column), up to the first whose path does not parse. Caller frees. */
gw_table__custom_t *gw_table__custom_compile(const gw_custom_t *custom);
void gw_table__custom_free(gw_table__custom_t *c);
/* The columnDefinitions (a new array). */
json_t *gw_table__custom_columns(const gw_table__custom_t *c);
/* Appends one object's cells to row.cells. */
void gw_table__custom_cells(const gw_table__custom_t *c, const json_t *obj, long long now,
                            json_t *row);

/* The value at a dotted path ("spec.template.spec.containers"), or NULL. */
const json_t *gw_table__get(const json_t *obj, const char *path);
/* The string at path, or "" */
const char *gw_table__str(const json_t *obj, const char *path);
/* The integer at path, or 0 */
json_int_t gw_table__int(const json_t *obj, const char *path);

/* k8s.io/apimachinery's duration.HumanDuration ("5m", "2d3h", "<invalid>"). */
void gw_table__human_duration(long long seconds, char *buf, size_t n);
/* kube's translateTimestampSince: the age of the time at path, or "<unknown>". */
json_t *gw_table__age(const json_t *obj, const char *path, long long now);

/* labels.FormatLabels: "a=b,c=d" sorted by key, or "<none>". Caller frees. */
char *gw_table__labels(const json_t *map);
/* A LabelSelector as kube's selector String(): "" for none; with `none`, "<none>" instead
 * (metav1.FormatLabelSelector). Caller frees. */
char *gw_table__selector(const json_t *selector, bool none);
/* Appends the template's container names and images cells ("a,b", "img-a,img-b"). */
void gw_table__containers(const json_t *pod_spec, json_t *cells);
/* Appends a string cell. */
void gw_table__cell(json_t *cells, const char *s);

#endif
