#ifndef GATEWAY_YAML_GW_YAML_INT_H
#define GATEWAY_YAML_GW_YAML_INT_H

/* Internals shared by the YAML reader (gw_yaml.c) and writer (gw_yaml_emit.c). */

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

/*
 * The value of a plain (unquoted, untagged) scalar as Go's yaml.v2 resolves it for
 * sigs.k8s.io/yaml: null, booleans (YAML 1.1 words: y, yes, on, ...), integers (0x, 0o, 0b,
 * leading-zero octal, underscores), floats (as reals, even integral ones), else a string. Sets
 * *special to "+Inf", "-Inf" or "NaN" (and returns NULL) for the values JSON cannot carry. s[n]
 * must be '\0'. Returns a new reference.
 */
json_t *gw_yaml__resolve(const char *s, size_t n, const char **special);

/* Whether s looks like a YAML timestamp (YYYY-...), which yaml.v2 reads as a string but writes
 * quoted. */
bool gw_yaml__timestamp_like(const char *s, size_t n);

/* Whether s (with s[n] == '\0'), written as a plain scalar, reads back as the same string in YAML
 * readers of the 1.1 school (ours, yaml.v2): not a null, boolean, number, timestamp, base-60 number
 * or "<<". */
bool gw_yaml__plain_is_string(const char *s, size_t n);

#endif
