#ifndef GATEWAY_REGISTRY_GW_SELECTOR_H
#define GATEWAY_REGISTRY_GW_SELECTOR_H

/*
 * Label and field selectors, as kube-apiserver reads the labelSelector and fieldSelector query
 * parameters (k8s.io/apimachinery/pkg/labels and pkg/fields), and the string form of a
 * metav1.LabelSelector (what a Scale's status.selector holds). Pure; thread: any.
 */

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

typedef enum {
    GW_SEL_EQUALS,     /* k=v, k==v; field selectors too */
    GW_SEL_NOT_EQUALS, /* k!=v: true when k is absent; field selectors too */
    GW_SEL_IN,         /* k in (a,b) */
    GW_SEL_NOT_IN,     /* k notin (a,b): true when k is absent */
    GW_SEL_EXISTS,     /* k */
    GW_SEL_NOT_EXISTS, /* !k */
    GW_SEL_GT,         /* k>5: k present with an integer value above 5 */
    GW_SEL_LT,         /* k<5 */
} gw_sel_op_t;

typedef struct {
    char *key;
    gw_sel_op_t op;
    char **values; /* sorted, no duplicates */
    size_t n_values;
} gw_sel_req_t;

/** A parsed selector: every requirement must hold (an empty selector matches everything). */
typedef struct {
    gw_sel_req_t *reqs; /* sorted by key, as kube's parser leaves them */
    size_t n;
} gw_selector_t;

/** Free what a parse filled in (the struct itself is the caller's); zeroes it. */
void gw_selector_clear(gw_selector_t *sel);

/**
 * Parse a label selector ("a=b,c in (d,e),!f"). Keys must be qualified names and values label
 * values. Returns 0 with *out filled, or GW_EINVAL with kube-apiserver's message in err
 * (*out is then empty).
 */
int gw_label_selector_parse(const char *s, gw_selector_t *out, char *err, size_t err_len);

/** Whether an object with `labels` (a JSON object of strings, or NULL for none) matches. */
bool gw_label_selector_match(const gw_selector_t *sel, const json_t *labels);

/**
 * Parse a field selector ("metadata.name=x,metadata.namespace!=y"; '\' escapes '\', ',' and
 * '='). Only EQUALS and NOT_EQUALS terms result. Returns 0, or GW_EINVAL with kube's message.
 */
int gw_field_selector_parse(const char *s, gw_selector_t *out, char *err, size_t err_len);

/** Value of a field for gw_field_selector_match: NULL when the object has no such field. */
typedef const char *(*gw_field_get_fn)(const char *field, void *arg);

/** Whether an object matches a field selector; absent fields compare as "". */
bool gw_field_selector_match(const gw_selector_t *sel, gw_field_get_fn get, void *arg);

/**
 * The string form of a metav1.LabelSelector document ({matchLabels, matchExpressions}) or of a
 * plain label map (a replication controller's selector), as kube prints it:
 * "app=x,tier in (a,b),!old" with requirements sorted by key. NULL for an invalid selector;
 * "" for an empty one. Caller frees.
 */
char *gw_label_selector_string(const json_t *selector);

#endif
