#ifndef GATEWAY_PATCH_GW_SMP_INT_H
#define GATEWAY_PATCH_GW_SMP_INT_H

/*
 * Internals of the strategic merge patch (gw_smp*.c). The merge works on private copies of
 * the original and the patch and mutates both as kube's Go code does (it shares patch values
 * into the result and consumes directives from the patch), so that the patch it leaves behind
 * is the one kube-apiserver prints in its messages. Thread: any (no shared state).
 */

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "gw_catalog.h"
#include "gw_gofmt.h"
#include "gw_smp.h"

#define GW_SMP_DIRECTIVE "$patch"
#define GW_SMP_RETAIN_KEYS "$retainKeys"
#define GW_SMP_DELETE_PREFIX "$deleteFromPrimitiveList"
#define GW_SMP_ORDER_PREFIX "$setElementOrder"

/** One merge: where its error goes. */
typedef struct {
    gw_smp_status_t status;
    char *err;
    size_t err_len;
} gw_smp__t;

/** Record the error (the first one wins) and return -1. */
int gw_smp__fail(gw_smp__t *s, gw_smp_status_t status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/** ErrBadArgType: "expected a <expected>, but received a <type of got>". Returns -1. */
int gw_smp__bad_type(gw_smp__t *s, const char *expected, const json_t *got);

/** ErrNoMergeKey: "map: <elem> does not contain declared merge key: <key>". Returns -1. */
int gw_smp__no_merge_key(gw_smp__t *s, const json_t *elem, const char *key);

/** The patch metadata of a field, as kube's LookupPatchMeta finds it in the Go struct. */
typedef struct {
    const gw_schema_t *schema; /* the value's schema (for a list: its elements'); NULL: none */
    const char *strategy;      /* "merge", "replace" or "" (retainKeys taken apart) */
    const char *merge_key;     /* "" when none */
    const char *go_kind;       /* the Go kind of the schema's type ("struct", "map", ...) */
} gw_smp__meta_t;

/** The metadata of field `key` of a map of schema parent (LookupPatchMetadataForStruct). */
int gw_smp__lookup_field(gw_smp__t *s, const gw_schema_t *parent, const char *key,
                         gw_smp__meta_t *m);

/** The same for a list field, m->schema being its elements' (LookupPatchMetadataForSlice). */
int gw_smp__lookup_list(gw_smp__t *s, const gw_schema_t *parent, const char *key,
                        gw_smp__meta_t *m);

/** mergeMap: merge patch into orig (either may be changed; orig NULL is an empty map); *out
 *  gets a new reference. */
int gw_smp__merge_map(gw_smp__t *s, json_t *orig, json_t *patch, const gw_schema_t *schema,
                      json_t **out);

/**
 * mergeSliceHandler: the merged list of orig and patch under m (a non-merge list is the
 * patch; a delete list merges whatever its strategy). *out gets a new reference. When
 * server_order is not NULL it receives (new reference) the original list as kube's in-place
 * deletions leave it, the order $setElementOrder then keeps for server-only elements.
 */
int gw_smp__merge_list(gw_smp__t *s, json_t *orig, json_t *patch, const gw_smp__meta_t *m,
                       bool is_delete, json_t **out, json_t **server_order);

/** normalizeElementOrder over the partition of merged by order_by (kube's mergeSlice and
 *  $setElementOrder tail). *out gets a new reference. */
int gw_smp__order(gw_smp__t *s, json_t *merged, json_t *order_by, json_t *server_order,
                  const char *merge_key, bool maps, json_t **out);

/** The element type of the lists a and b (either may be NULL) as sliceElementType decides:
 *  true with *maps for lists of maps, false with the error recorded. */
bool gw_smp__elem_type(gw_smp__t *s, const json_t *a, const json_t *b, bool *maps);

/** removeDirectives: v without its `$patch` maps (v itself changed); false when v is one. */
bool gw_smp__remove_directives(json_t **v);

/** discardNullValuesFromPatch: null members removed from every map in v. */
void gw_smp__discard_nulls(json_t *v);

/**
 * findMapInSliceBasedOnKeyValue over the first n elements of list: the first map whose `key`
 * is present and equal to value (*found, *at). False, with the error recorded, when a map-less
 * element comes first.
 */
bool gw_smp__find_by_key(gw_smp__t *s, const json_t *list, size_t n, const char *key,
                         const json_t *value, size_t *at, bool *found);

/** Whether list holds a value equal (Go's ==) to v. */
bool gw_smp__contains(const json_t *list, const json_t *v);

/* ---- Go semantics of decoded JSON (gw_smp_go.c) --------------------------------------------- */

typedef enum {
    GW_GO_NIL,
    GW_GO_MAP,
    GW_GO_SLICE,
    GW_GO_STRING,
    GW_GO_INT,
    GW_GO_FLOAT,
    GW_GO_BOOL,
} gw_go_type_t;

/** The Go dynamic type of v (NULL and JSON null are nil). */
gw_go_type_t gw_smp__go_type(const json_t *v);

/** Whether v is the string s. */
bool gw_smp__is_str(const json_t *v, const char *s);

/** Go's == on two interface{} values (maps and lists never equal: Go would panic). */
bool gw_smp__go_equal(const json_t *a, const json_t *b);

/** reflect.TypeOf(v) as %s prints it: "map[string]interface {}", "int64", "%!s(<nil>)". */
const char *gw_smp__go_type_name(const json_t *v);

#endif
