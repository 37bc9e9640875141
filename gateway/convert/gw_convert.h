#ifndef GATEWAY_CONVERT_GW_CONVERT_H
#define GATEWAY_CONVERT_GW_CONVERT_H

/*
 * Conversion between the served versions of one kind (kube's conversion functions, e.g.
 * pkg/apis/autoscaling/v1/conversion.go). A kind served in several versions is stored once, in
 * kube-apiserver 1.32's storage version for it (the hub), and every other version (a spoke)
 * converts to and from that hub without loss: what a spoke cannot say travels in kube's
 * round-trip annotations. Objects are Jansson documents as the registry handles them.
 */

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

/**
 * Convert obj in place from the version its apiVersion and kind name to `to_api_version`
 * ("autoscaling/v1", "v1") and `to_kind`, another version of the same kind. True when obj now
 * has that apiVersion and kind (also when it already had them); false when the two are not
 * versions of one kind kgate converts between (obj untouched). Thread: any.
 */
bool gw_convert(json_t *obj, const char *to_api_version, const char *to_kind);

/**
 * Whether apiVersion and kind (not NUL-terminated: lengths given) name a version other than
 * the storage version of a kind served in several versions: an object of it is converted before
 * it is stored. Cheap: it is asked of every object the registry serves. Thread: any.
 */
bool gw_convert_is_spoke(const char *api_version, size_t av_len, const char *kind, size_t kind_len);

/**
 * The hub (the storage version) of the kind apiVersion/kind belongs to: its apiVersion and
 * kind, static strings. False when the kind has a single version. Thread: any.
 */
bool gw_convert_hub(const char *api_version, const char *kind, const char **hub_api_version,
                    const char **hub_kind);

/**
 * Drop from obj, in place, what kube-apiserver's decoding of its version into the kind's
 * internal type drops (an autoscaling/v2 HPA's autoscaling.alpha.kubernetes.io round-trip
 * annotations, which only a v1 view may carry); nothing for other kinds. Thread: any.
 */
void gw_convert_internal(json_t *obj);

#endif
