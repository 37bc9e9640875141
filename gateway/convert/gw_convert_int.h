#ifndef GATEWAY_CONVERT_GW_CONVERT_INT_H
#define GATEWAY_CONVERT_GW_CONVERT_INT_H

/* Internals of gateway/convert/: one pair of functions per spoke version, each converting a
 * whole object in place between the spoke's shape and its hub's (apiVersion and kind are set
 * by gw_convert, not by them). They never fail: what kube's conversions ignore (an annotation
 * that does not parse) they ignore too. Thread: any. */

#include <jansson.h>

typedef void gw_convert_fn(json_t *obj);

/* autoscaling/v1 <-> autoscaling/v2 HorizontalPodAutoscaler (gw_convert_hpa.c). */
gw_convert_fn gw_convert__hpa_v1_to_v2;
gw_convert_fn gw_convert__hpa_v2_to_v1;

/* events.k8s.io/v1 <-> core v1 Event (gw_convert_event.c). */
gw_convert_fn gw_convert__event_to_core;
gw_convert_fn gw_convert__core_to_event;

/* resource.k8s.io/v1alpha3 <-> v1beta1 ResourceSlice (gw_convert_dra.c): device capacities. */
gw_convert_fn gw_convert__slice_v1alpha3_to_v1beta1;
gw_convert_fn gw_convert__slice_v1beta1_to_v1alpha3;

#endif
