#ifndef GATEWAY_PATCH_GW_SSA_INT_H
#define GATEWAY_PATCH_GW_SSA_INT_H

/*
 * Internals of the server-side apply engine (gw_ssa*.c), modelled on structured-merge-diff v4
 * as kube-apiserver v1.32 vendors it:
 *   gw_ssa_schema.c   schema nodes, list element keys, value equality, paths and errors
 *   gw_ssa_typed.c    typed.Validate, ToFieldSet and Compare
 *   gw_ssa_merge.c    typed.Merge and RemoveItems; field-set walks over a schema
 *   gw_ssa_managed.c  managedFields entries: decoding, encoding, the cap, conflict messages
 *   gw_ssa_zero.c     Go's zero values and nulls
 *   gw_ssa.c          the field manager: Update, Apply, pruning, kubectl's upgrade rules
 * Values are Jansson documents; an absent value is NULL, a JSON null is json_null(). Every
 * function is pure over its inputs and allocates its results. Thread: any.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "gw_catalog.h"
#include "gw_fieldset.h"
#include "gw_ssa.h"

/* ---- schema nodes (gw_ssa_schema.c) ------------------------------------------------------ */

typedef enum {
    GW_SSA__SCALAR,
    GW_SSA__LIST,
    GW_SSA__MAP, /* a struct or a map */
} gw_ssa__kind_t;

/** A schema as it applies to one value (structured-merge-diff's deduceAtom): without a schema
 *  (deduced) and for untyped schemas (any, int-or-string, quantity) the value picks the kind;
 *  absent and null values pick MAP there, as handleAtom prefers maps. */
typedef struct {
    gw_ssa__kind_t kind;
    const gw_schema_t *schema; /* NULL: deduced (schema-less: granular maps, atomic lists) */
    bool atomic;               /* a list or map owned and merged as a whole */
    const char *const *keys;   /* lists: the keys of a map list ... */
    size_t n_keys;
    bool set; /* ... or a set of scalars */
} gw_ssa__atom_t;

/** The atom of schema s for value v (NULL: absent). */
void gw_ssa__resolve(const gw_schema_t *s, const json_t *v, gw_ssa__atom_t *a);

/** Schema of entry `key` of a MAP atom into *s (NULL: deduced). False when a closed struct
 *  does not declare it; *declared tells a struct field from a map entry. */
bool gw_ssa__entry(const gw_ssa__atom_t *a, const char *key, const gw_schema_t **s, bool *declared);

/** The element schema of a LIST atom (NULL: deduced). */
const gw_schema_t *gw_ssa__items(const gw_ssa__atom_t *a);

/** listItemToPathElement: the element of item i of a LIST atom into *pe (`k:` with a new key
 *  object in *key, which the caller decrefs; `v:` borrowing item; `i:` for atomic lists).
 *  -1 with kube's reason in why when the item cannot have one. */
int gw_ssa__item_pe(const gw_ssa__atom_t *a, const json_t *item, size_t i, gw_pe_t *pe,
                    json_t **key, char *why, size_t why_len);

/** The path elements of a list's items, sorted for lookups (structured-merge-diff's
 *  PathElementMap over a list). */
typedef struct {
    size_t n;       /* items */
    gw_pe_t *pe;    /* pe[i]: item i's element ... */
    json_t **key;   /* ... with its key object (owned) */
    bool *ok;       /* false: item i has none */
    size_t *first;  /* the first item with an equal element */
    size_t *count;  /* how many items have it */
    size_t *sorted; /* the items with one, by element then position */
    size_t n_sorted;
    size_t bad;    /* the first item without one (n when none) ... */
    char why[256]; /* ... and why */
} gw_ssa__index_t;

/** Index the items of list (NULL: none) of a LIST atom. Free with gw_ssa__index_free. */
void gw_ssa__index(gw_ssa__index_t *x, const gw_ssa__atom_t *a, const json_t *list);

/** The first item whose element equals pe, or SIZE_MAX. */
size_t gw_ssa__index_find(const gw_ssa__index_t *x, const gw_pe_t *pe);

void gw_ssa__index_free(gw_ssa__index_t *x);

/** value.Equals: deep equality with integers and doubles compared as numbers. */
bool gw_ssa__equal(const json_t *a, const json_t *b);

/** A new deep copy of v, or NULL for NULL. */
json_t *gw_ssa__copy(const json_t *v);

/* ---- paths and errors (gw_ssa_schema.c) -------------------------------------------------- */

/** The path a walk is at: path elements borrowed from the values and schemas walked. */
typedef struct {
    gw_pe_t *pe;
    size_t n, cap;
} gw_ssa__path_t;

void gw_ssa__push(gw_ssa__path_t *p, const gw_pe_t *pe);
void gw_ssa__push_field(gw_ssa__path_t *p, const char *name);
void gw_ssa__pop(gw_ssa__path_t *p);
void gw_ssa__path_free(gw_ssa__path_t *p);

/** Add the path as a member of s (the empty path, the whole object, is never owned). */
void gw_ssa__insert(gw_fieldset_t *s, const gw_ssa__path_t *p);

/** ValidationErrors: "<path>: <message>" lines. */
typedef struct {
    char **msg;
    size_t n, cap;
} gw_ssa__errs_t;

void gw_ssa__err(gw_ssa__errs_t *e, const gw_ssa__path_t *p, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/** ValidationErrors.Error(): the one error, or "errors:\n  a\n  b". Caller frees. */
char *gw_ssa__errs_text(const gw_ssa__errs_t *e);

void gw_ssa__errs_clear(gw_ssa__errs_t *e);

/* ---- typed operations (gw_ssa_typed.c, gw_ssa_merge.c) ---------------------------------- */

/** typed.Validate: whether v fits s; errors appended in kube's words. allow_dups: duplicate
 *  keys of map and set lists pass (live objects). */
bool gw_ssa__validate(const gw_schema_t *s, const json_t *v, bool allow_dups, gw_ssa__errs_t *e);

/** ToFieldSet of v (validated); a duplicated list element is owned whole. Caller frees. */
gw_fieldset_t *gw_ssa__to_set(const gw_schema_t *s, const json_t *v);

/** Compare's three sets; free with gw_ssa__cmp_clear. */
typedef struct {
    gw_fieldset_t *added, *modified, *removed;
} gw_ssa__cmp_t;

/** typed.Compare(lhs, rhs) (NULL: absent) into *c. */
void gw_ssa__compare(const gw_schema_t *s, const json_t *lhs, const json_t *rhs, gw_ssa__cmp_t *c);

void gw_ssa__cmp_clear(gw_ssa__cmp_t *c);

/** typed.Merge: rhs merged into lhs, rhs winning. NULL with errors appended when a list's
 *  elements cannot be indexed. Caller decrefs. */
json_t *gw_ssa__merge(const gw_schema_t *s, const json_t *lhs, const json_t *rhs,
                      gw_ssa__errs_t *e);

/** typed.RemoveItems: v without the members of set (lists lose elements, maps keys; a map or
 *  list left empty becomes null, as structured-merge-diff leaves it). Caller decrefs. */
json_t *gw_ssa__remove(const gw_schema_t *s, const json_t *v, const gw_fieldset_t *set);

/** Set.EnsureNamedFieldsAreMembers: set plus every struct field that has members below it.
 *  Caller frees. */
gw_fieldset_t *gw_ssa__named(const gw_schema_t *s, const gw_fieldset_t *set);

/** The set cut at the first atomic node of the current schema (a schema that turned a granular
 *  list or map atomic gives its owners the whole of it). Caller frees. */
gw_fieldset_t *gw_ssa__reconcile(const gw_schema_t *s, const gw_fieldset_t *set);

/** What kube's round trip through Go types makes of the nulls in obj (a kind with Go facts):
 *  dropped, or the field's zero value where Go's JSON shows one. */
void gw_ssa__go_nulls(const gw_schema_t *s, json_t *obj);

/* ---- managedFields entries (gw_ssa_managed.c) ------------------------------------------- */

/** One manager: kube's identifier fields, its time and its set. */
typedef struct {
    char *manager;     /* may be "" (decoded as such) */
    bool apply;        /* operation Apply, else Update */
    char *api_version; /* the version of the set; part of an Update identifier */
    char *subresource; /* "" for the main resource */
    bool has_time;
    int64_t time; /* Unix seconds */
    gw_fieldset_t *set;
} gw_ssa__entry_t;

typedef struct {
    gw_ssa__entry_t *e;
    size_t n, cap;
} gw_ssa__managers_t;

/** DecodeManagedFields of a metadata.managedFields value into *m (emptied first). -1 with
 *  kube's reason in err when an entry does not decode (m is then empty). */
int gw_ssa__decode(const json_t *mf, gw_ssa__managers_t *m, char *err, size_t err_len);

/** The entries as metadata.managedFields: kube's key order and entry order. NULL for none.
 *  Caller decrefs. */
json_t *gw_ssa__encode(const gw_ssa__managers_t *m);

/** The entry with this identifier, or NULL. api_version matters for Update entries only. */
gw_ssa__entry_t *gw_ssa__find(gw_ssa__managers_t *m, const char *manager, bool apply,
                              const char *api_version, const char *subresource);

/** A new entry (the identifier must be absent) with an empty set and no time. */
gw_ssa__entry_t *gw_ssa__add(gw_ssa__managers_t *m, const char *manager, bool apply,
                             const char *api_version, const char *subresource);

/** Remove entry i (freed); later entries move down. */
void gw_ssa__remove_at(gw_ssa__managers_t *m, size_t i);

/** A deep copy of src into dst (emptied first). */
void gw_ssa__managers_copy(gw_ssa__managers_t *dst, const gw_ssa__managers_t *src);

void gw_ssa__managers_clear(gw_ssa__managers_t *m);

/** BuildManagerIdentifier's JSON of e (what kube sorts managers by). Caller frees. */
char *gw_ssa__identifier(const gw_ssa__entry_t *e);

/** CapManagersManager: at most `max` Update entries; the oldest merge into "ancient-changes"
 *  entries per apiVersion. */
void gw_ssa__cap(gw_ssa__managers_t *m, size_t max);

/** NewConflictError's message and causes for per-manager conflict sets (conflicts[i] belongs to
 *  m->e[i]; NULL or empty for none) into res. */
void gw_ssa__conflicts(const gw_ssa__managers_t *m, gw_fieldset_t *const *conflicts,
                       gw_ssa_result_t *res);

/** Go's encoding/json text of v: compact, keys sorted, <, > and & escaped. Caller frees. */
char *gw_ssa__go_json(const json_t *v);

#endif
