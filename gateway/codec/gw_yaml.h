#ifndef GATEWAY_CODEC_GW_YAML_H
#define GATEWAY_CODEC_GW_YAML_H

/*
 * YAML <-> JSON, with libyaml, the way kube-apiserver's sigs.k8s.io/yaml treats them: a YAML
 * request body becomes the JSON document it denotes (YAML 1.1-ish scalars as Go's yaml.v2
 * reads them: true/false, null/~, ints, floats, quoted strings stay strings); a response is
 * written as block YAML with keys in document order.
 */

#include <stddef.h>

#include <jansson.h>

/**
 * Parse one YAML document (a stream with more than one is an error) into a new JSON document
 * (caller decrefs), or NULL with a one-line reason including line:column in err. Bounded:
 * nesting depth and alias expansion are limited, so hostile input cannot blow up memory.
 * Thread: any. Fuzzed.
 */
json_t *gw_yaml_to_json(const char *yaml, size_t len, char *err, size_t err_len);

/** Encode a JSON document as YAML into a new malloc'd buffer (caller frees) of *len bytes.
 *  Thread: any. */
char *gw_json_to_yaml(const json_t *doc, size_t *len);

#endif
