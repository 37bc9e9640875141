#ifndef GATEWAY_CODEC_GW_NAMES_H
#define GATEWAY_CODEC_GW_NAMES_H

/*
 * kube-apiserver's name and label validators (k8s.io/apimachinery/pkg/util/validation).
 * Each returns NULL when the value is valid, or a static message in kube-apiserver's words
 * (e.g. "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters,
 * '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com',
 * regex used for validation is '...')"). Thread: any.
 */

#include <stdbool.h>
#include <stddef.h>

/** DNS-1123 subdomain: at most 253 characters. Most kinds' names. */
const char *gw_valid_dns1123_subdomain(const char *s);
/** DNS-1123 label: at most 63 characters (namespaces, services, ...). */
const char *gw_valid_dns1123_label(const char *s);
/** DNS-1035 label (services' names must also start with a letter). */
const char *gw_valid_dns1035_label(const char *s);
/** A path segment name: not "." or "..", no '/' or '%' (RBAC kinds and others). */
const char *gw_valid_path_segment_name(const char *s);
/** A qualified name ([prefix/]name): label keys, annotation keys, finalizers. */
const char *gw_valid_qualified_name(const char *s);
/** IsQualifiedName's every message, in kube's order (at most 4), into msgs; their number (0:
 *  valid). */
size_t gw_valid_qualified_name_all(const char *s, const char *msgs[4]);
/** A label value: at most 63 characters, [A-Za-z0-9] at both ends, -_. inside, or empty. */
const char *gw_valid_label_value(const char *s);

/** IsConfigMapKey (ConfigMap and Secret data keys): every message kube gives, in its order
 *  (too long, not [-._a-zA-Z0-9]+, '.', '..' or a '..' prefix), into msgs[0..2]; returns how
 *  many (0: valid). */
size_t gw_valid_config_map_key(const char *s, const char *msgs[3]);

#endif
