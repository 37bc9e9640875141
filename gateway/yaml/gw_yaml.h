#ifndef GATEWAY_YAML_GW_YAML_H
#define GATEWAY_YAML_GW_YAML_H

/*
 * YAML <-> JSON, with libyaml, the way kube-apiserver's sigs.k8s.io/yaml treats them: a YAML
 * request body becomes the JSON document it denotes (YAML 1.1-ish scalars as Go's yaml.v2
 * reads them: true/false, null/~, ints, floats, quoted strings stay strings); a response is
 * written as block YAML with keys in document order.
 */

#include <stddef.h>

#include <jansson.h>

#include "gw_field_issues.h"

/**
 * Parse the first YAML document of a stream into a new JSON document (caller decrefs), or NULL
 * with a one-line reason, "yaml: line L, column C: problem", in err. As kube-apiserver's
 * decoder (yaml.v2's Unmarshal), later documents are ignored, object keys come out sorted,
 * non-string keys become strings, merge keys (`<<`) apply and a key set twice keeps the later
 * value. Bounded: nesting depth (1000) and values copied by aliases (1e6) are limited, so
 * hostile input cannot blow up memory. An empty stream is null. Thread: any. Fuzzed.
 */
json_t *gw_yaml_to_json(const char *yaml, size_t len, char *err, size_t err_len);

/**
 * gw_yaml_to_json that also appends to dups, when the conversion succeeds, one
 * GW_FIELD_DUPLICATE issue per key set twice in a mapping, worded as kube-apiserver's strict
 * YAML decoding words it: path "" and message `line 12: key "paused" already set in map`
 * (the line of the second value). Thread: any.
 */
json_t *gw_yaml_to_json_dups(const char *yaml, size_t len, gw_field_issues_t *dups, char *err,
                             size_t err_len);

/** Encode a JSON document as YAML into a new malloc'd buffer (caller frees) of *len bytes.
 *  Thread: any. */
char *gw_json_to_yaml(const json_t *doc, size_t *len);

#endif
