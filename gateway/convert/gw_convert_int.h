#ifndef GATEWAY_CONVERT_GW_CONVERT_INT_H
#define GATEWAY_CONVERT_GW_CONVERT_INT_H

/* Internals of gateway/convert/: one pair of functions per spoke version, each converting a
 * whole object in place between the spoke's shape and its hub's (apiVersion and kind are set
 * by gw_convert, not by them). They never fail: what kube's conversions ignore (an annotation
 * that does not parse) they ignore too. Thread: any. */

#include <stdbool.h>

#include <jansson.h>

typedef void gw_convert_fn(json_t *obj);

/* autoscaling/v1 <-> autoscaling/v2 HorizontalPodAutoscaler (gw_convert_hpa.c). */
gw_convert_fn gw_convert__hpa_v1_to_v2;
gw_convert_fn gw_convert__hpa_v2_to_v1;
/* What decoding a v2 HPA into kube's internal type drops: the round-trip annotations only v1
 * may carry. */
gw_convert_fn gw_convert__hpa_v2_internal;

/* events.k8s.io/v1 <-> core v1 Event (gw_convert_event.c). */
gw_convert_fn gw_convert__event_to_core;
gw_convert_fn gw_convert__core_to_event;

/* resource.k8s.io/v1alpha3 <-> v1beta1 ResourceSlice (gw_convert_dra.c): device capacities. */
gw_convert_fn gw_convert__slice_v1alpha3_to_v1beta1;
gw_convert_fn gw_convert__slice_v1beta1_to_v1alpha3;

/*
 * Go's encoding/json over a described Go struct (gw_convert_gojson.c), for the spokes whose
 * annotations carry Go's JSON of a type the hub does not have. A value is held "normalized":
 * a JSON object keyed by each field's name, a Go zero or nil pointer being an absent member.
 */
typedef enum {
    GW_GO_STRING,  /* string */
    GW_GO_STRINGP, /* *string */
    GW_GO_INT32,   /* int32 */
    GW_GO_INT32P,  /* *int32 */
    GW_GO_QTY,     /* resource.Quantity: a struct, never omitted, zero "0" */
    GW_GO_QTYP,    /* *resource.Quantity */
    GW_GO_TIME,    /* metav1.Time: a struct, never omitted, zero null */
    GW_GO_STRUCT,  /* a struct (sub): never omitted */
    GW_GO_STRUCTP, /* *struct (sub) */
    GW_GO_LIST,    /* []struct (sub) */
    GW_GO_STRLIST, /* []string */
    GW_GO_STRMAP,  /* map[string]string */
} gw_go_kind_t;

/* One field of a Go struct; a struct is an array of them ended by a NULL name. */
typedef struct gw_go_field {
    const char
        *name; /* its json tag's name; an untagged field: the Go name, first letter lowered */
    gw_go_kind_t kind;
    bool omitempty;
    const struct gw_go_field *sub; /* the struct of GW_GO_STRUCT, _STRUCTP and _LIST */
} gw_go_field_t;

/* json.Unmarshal of `in` into a value of f's type held normalized in *slot (NULL: the zero
 * value), with Go's rules: keys match field names exactly or else ignoring ASCII case, unknown
 * keys are skipped, null leaves a value as it is and sets a pointer, list or map to nil, a
 * struct or map already there is decoded into, a list is replaced. False on a value Go cannot
 * decode (a type error, a bad quantity or time): the caller drops the whole result, as kube
 * drops the annotation whose Unmarshal failed. */
bool gw_convert__go_decode(const gw_go_field_t *f, const json_t *in, json_t **slot);

/* What json.Marshal shows for v (normalized, NULL: the zero value) of f's type: members in
 * the struct's field order, omitempty applied, zeros written out. `untagged`: the struct types
 * have no json tags (kube's internal types), so every name is the Go name and nothing is
 * omitted. A new value. */
json_t *gw_convert__go_value(const gw_go_field_t *f, const json_t *v, bool untagged);

/* The compact text json.Marshal writes for v (as gw_convert__go_value made it): members in
 * their order, Go's string escapes (<, >, &, U+2028, U+2029 as \u escapes). Caller frees. */
char *gw_convert__go_json(const json_t *v);

#endif
