#ifndef GATEWAY_PATCH_GW_FIELDSET_H
#define GATEWAY_PATCH_GW_FIELDSET_H

/*
 * Field sets: the sets of field paths server-side apply records per manager in
 * metadata.managedFields, in their FieldsV1 form, with kube's set algebra (sigs.k8s.io
 * structured-merge-diff fieldpath.Set).
 *
 * A path is a sequence of path elements: a field of a struct or map (`f:<name>`), an element of
 * a map list by its keys (`k:{"name":"c"}`, the key fields sorted by name), an element of a set
 * list by its value (`v:"a"`), or a position in a list (`i:0`). FieldsV1 nests them as JSON
 * object keys; `{}` marks a member, and `"."` marks a node that is a member and also has
 * children (`{"f:metadata":{"f:labels":{".":{},"f:app":{}}}}`). Elements are ordered as
 * structured-merge-diff orders them (fields, then keys, then values, then indexes; values by
 * kind, numbers numerically), which is the order FieldsV1 text is written in.
 */

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

typedef enum {
    GW_PE_FIELD, /* f:<name> */
    GW_PE_KEY,   /* k:{...}: value is a JSON object of the key fields */
    GW_PE_VALUE, /* v:<json>: value is any JSON value */
    GW_PE_INDEX, /* i:<n> */
} gw_pe_kind_t;

/** One path element. Borrowed in arguments; the set keeps copies. */
typedef struct {
    gw_pe_kind_t kind;
    const char *name;    /* GW_PE_FIELD */
    const json_t *value; /* GW_PE_KEY, GW_PE_VALUE */
    long long index;     /* GW_PE_INDEX */
} gw_pe_t;

/** structured-merge-diff's order of path elements (<0, 0, >0). Thread: any. */
int gw_pe_compare(const gw_pe_t *a, const gw_pe_t *b);

/** The FieldsV1 key of a path element ("f:spec", `k:{"port":80,"protocol":"TCP"}`). Caller
 *  frees. Thread: any. */
char *gw_pe_text(const gw_pe_t *pe);

typedef struct gw_fieldset gw_fieldset_t;

/** A new empty set; free with gw_fieldset_free. A set belongs to one thread at a time. */
gw_fieldset_t *gw_fieldset_new(void);

void gw_fieldset_free(gw_fieldset_t *s);

/** Add the path (n elements, n > 0) as a member. */
void gw_fieldset_insert(gw_fieldset_t *s, const gw_pe_t *path, size_t n);

/** Whether the path is a member. */
bool gw_fieldset_has(const gw_fieldset_t *s, const gw_pe_t *path, size_t n);

/** Whether the set has no member. */
bool gw_fieldset_empty(const gw_fieldset_t *s);

/** The number of members. */
size_t gw_fieldset_count(const gw_fieldset_t *s);

/** Whether a and b have the same members. */
bool gw_fieldset_equal(const gw_fieldset_t *a, const gw_fieldset_t *b);

/** New sets (caller frees): members of a or b; of a and not b; of both. */
gw_fieldset_t *gw_fieldset_union(const gw_fieldset_t *a, const gw_fieldset_t *b);
gw_fieldset_t *gw_fieldset_difference(const gw_fieldset_t *a, const gw_fieldset_t *b);
gw_fieldset_t *gw_fieldset_intersection(const gw_fieldset_t *a, const gw_fieldset_t *b);

/** New set (caller frees): members of a that are neither members of b nor below one
 *  (structured-merge-diff's RecursiveDifference: a member of b takes its whole subtree). */
gw_fieldset_t *gw_fieldset_recursive_difference(const gw_fieldset_t *a, const gw_fieldset_t *b);

/** PathElement.String of one element, as paths print (`.name`, `[name="c"]`, `[="a"]`,
 *  `[0]`). Caller frees. Thread: any. */
char *gw_pe_path_text(const gw_pe_t *pe);

/*
 * Walking a set's trie: a node holds the entries one path element below a path, sorted by
 * gw_pe_compare; an entry is a member, has children, or both. Nodes are borrowed from the set
 * and stay valid while it is not changed; NULL is an empty node.
 */
typedef struct gw_fieldset_node gw_fieldset_node_t;

/** The node of the empty path (the top-level entries). */
const gw_fieldset_node_t *gw_fieldset_root(const gw_fieldset_t *s);

/** The number of entries of n (0 for NULL). */
size_t gw_fieldset_node_size(const gw_fieldset_node_t *n);

/** Entry i of n (i < size): its path element, whether it is a member, its children (NULL when
 *  none). */
const gw_pe_t *gw_fieldset_node_pe(const gw_fieldset_node_t *n, size_t i);
bool gw_fieldset_node_member(const gw_fieldset_node_t *n, size_t i);
const gw_fieldset_node_t *gw_fieldset_node_child(const gw_fieldset_node_t *n, size_t i);

/** The entry of n for pe: true and its index in *at, or false. */
bool gw_fieldset_node_find(const gw_fieldset_node_t *n, const gw_pe_t *pe, size_t *at);

/**
 * Read a FieldsV1 document (a JSON object) into *out (caller frees). Keys of a type this
 * version does not know (`x:...`) are dropped, as kube does; a malformed key (shorter than two
 * bytes, no colon, bad JSON after `k:` or `v:`, a non-integer after `i:`) or a value that is not
 * an object fails: GW_EINVAL with the reason in err, in kube's words (which quote the key as it
 * is). Thread: any.
 */
int gw_fieldset_from_json(const json_t *fields, gw_fieldset_t **out, char *err, size_t err_len);

/** The set as a FieldsV1 document, keys in kube's order (serialize it without sorting keys).
 *  Caller decrefs. */
json_t *gw_fieldset_to_json(const gw_fieldset_t *s);

/** The set as compact FieldsV1 text, as kube writes it. Caller frees; *len gets its length. */
char *gw_fieldset_to_text(const gw_fieldset_t *s, size_t *len);

/** Called for each member path, in order, with its text as kube prints paths in conflicts
 *  (`.spec.containers[name="c"].image`, `.metadata.finalizers[="a"]`, `.args[0]`). */
typedef void (*gw_fieldset_path_fn)(const char *path, void *ctx);

void gw_fieldset_foreach(const gw_fieldset_t *s, gw_fieldset_path_fn fn, void *ctx);

#endif
