#ifndef GATEWAY_META_GW_JSONPATH_INT_H
#define GATEWAY_META_GW_JSONPATH_INT_H

/* Internals of the JSONPath templates: the node tree the parser (gw_jsonpath.c) builds and the
 * evaluator (gw_jsonpath_eval.c) walks, and Go's text of values (gw_jsonpath_text.c). */

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "gw_buf.h"
#include "gw_jsonpath.h"

/* client-go's node types, one for one. */
typedef enum {
    GW_JP_LIST,   /* an action, a union member, a filter side: nodes applied in turn */
    GW_JP_TEXT,   /* literal text: a template's text or a quoted string */
    GW_JP_FIELD,  /* .name: an object's member */
    GW_JP_ARRAY,  /* [i], [a:b:c]: an index or slice */
    GW_JP_FILTER, /* [?(left op right)]: nodes[0] left, nodes[1] right, name the operator */
    GW_JP_INT,    /* literals */
    GW_JP_FLOAT,
    GW_JP_BOOL,
    GW_JP_WILDCARD,   /* .* */
    GW_JP_RECURSIVE,  /* .. */
    GW_JP_UNION,      /* [a,b]: nodes are lists */
    GW_JP_IDENTIFIER, /* a bare word (range, end) */
} gw_jp__kind_t;

/* One bound of a slice, as client-go's ParamsEntry: known (given or implied) and, for the end
   of a single index, derived from the start. */
typedef struct {
    long long value;
    bool known;
    bool derived;
} gw_jp__param_t;

typedef struct gw_jp__node gw_jp__node_t;

struct gw_jp__node {
    gw_jp__kind_t kind;
    char *name;               /* FIELD key, IDENTIFIER word, FILTER operator ("exists" too) */
    json_t *literal;          /* TEXT, INT, FLOAT, BOOL: the value evaluation yields */
    gw_jp__param_t params[3]; /* ARRAY: start, end, step */
    gw_jp__node_t **nodes;    /* LIST, UNION, FILTER: children */
    size_t n_nodes, cap_nodes;
};

struct gw_jsonpath {
    gw_jp__node_t *root; /* a LIST of the template's parts (TEXT and LIST nodes) */
};

/* Free a node and its children. */
void gw_jp__node_free(gw_jp__node_t *n);

/* Go's %v of a decoded JSON value: map[a:1 b:[x y]], <nil>, floats as the shortest %g. */
void gw_jp__go_value(gw_buf_t *b, const json_t *v);

#endif
