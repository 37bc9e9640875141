#ifndef GATEWAY_META_GW_JSONPATH_H
#define GATEWAY_META_GW_JSONPATH_H

/*
 * kube's JSONPath templates (k8s.io/client-go/util/jsonpath): what kube-apiserver evaluates for
 * a CustomResourceDefinition's additionalPrinterColumns (each column's jsonPath wrapped as
 * "{<path>}") and what `kubectl -o jsonpath` takes. A template is text with {actions}; an
 * action is a chain of fields (.a, .a\.b, ['a.b']), array indexes and slices ([0], [-1],
 * [1:3], [::2], [*]), unions ([0,2], ['a','b']), wildcards (.*), recursive descent (..name),
 * filters ([?(@.type=="Ready")], with ==, !=, <, >, <=, >= and existence [?(@.x)]) and
 * literals ("text", 1, 1.5, true); {range <path>}...{end} loops over what a path finds.
 * A template is parsed once into a gw_jsonpath_t, immutable after, and evaluated any number
 * of times from any thread.
 *
 * Not kube: a wildcard or recursive descent over a string yields no bytes (kube yields them
 * as uint8 values), an object's members come in the document's order (kube's map iteration is
 * random), a range that finds nothing runs the parts after it over a JSON null (kube: over
 * no value), and every evaluation starts afresh (kube's evaluator keeps its loop state, and
 * the parts after the last range, for its next run).
 */

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

typedef struct gw_jsonpath gw_jsonpath_t;

/**
 * Parse `text` as jsonpath.Parse does (the CRD table wraps a column's path: "{.spec.x}").
 * Returns the compiled template, or NULL with kube's message in `err` (NUL-terminated, cut to
 * err_len): "unclosed action", "unrecognized character in action: U+002A '*'",
 * "invalid array index x", "unterminated filter", "invalid multiple recursive descent", ...
 * kube's CRD validation does not parse column paths (it checks only that they start with
 * "."); its table convertor does, and drops the columns from the first it cannot parse.
 * Owner: caller (gw_jsonpath_free). Thread: any.
 */
gw_jsonpath_t *gw_jsonpath_parse(const char *text, char *err, size_t err_len);

/** Free a template (NULL is fine). */
void gw_jsonpath_free(gw_jsonpath_t *p);

/** How many parts (texts and actions, in order) the template has. Thread: any. */
size_t gw_jsonpath_parts(const gw_jsonpath_t *p);

/*
 * The results of one evaluation, FindResults' lists in order: one per part of the template,
 * and for a part that opens a range, the lists of the parts after it once per value it found.
 * List i's values are values[start(i) .. end[i]), start(0) = 0 and start(i) = end[i - 1]. A
 * value is borrowed from the data evaluated or, for a literal (a text part, "x", 1, true),
 * from the template: valid while both live. Zero-initialize; gw_jsonpath_results_free
 * releases the arrays (a results struct can be reused).
 */
typedef struct {
    const json_t **values;
    size_t n_values, cap_values;
    size_t *end;
    size_t n_parts, cap_parts;
} gw_jsonpath_results_t;

/**
 * FindResults of `data`: every part's results, or an error (GW_EINVAL) with kube's message in
 * err ("array index out of bounds: index 3, length 1", "x is not found" unless
 * `allow_missing`, which makes a missing field an empty result as AllowMissingKeys(true) does,
 * "map[string]interface {} is not array or slice", "incompatible types for comparison", ...).
 * `out` is reset first; on error it holds nothing. Returns 0. Thread: any.
 */
int gw_jsonpath_find(const gw_jsonpath_t *p, const json_t *data, bool allow_missing,
                     gw_jsonpath_results_t *out, char *err, size_t err_len);

/** Free the arrays of a results struct and zero it. */
void gw_jsonpath_results_free(gw_jsonpath_results_t *r);

/**
 * The text PrintResults writes for one value: objects and arrays as encoding/json's Marshal
 * (keys sorted, HTML characters escaped), strings bare, numbers and booleans as Go's fmt
 * prints int64, float64 and bool ("1e+06", "0.5"), null as "<nil>", and NULL (no value) as
 * "<no value>". Caller frees. Thread: any.
 */
char *gw_jsonpath_text(const json_t *v);

#endif
