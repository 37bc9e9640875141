#ifndef GATEWAY_CONTROLLERS_GW_AUTHTRUST_H
#define GATEWAY_CONTROLLERS_GW_AUTHTRUST_H

/*
 * kube-apiserver's cluster authentication trust controller (the post-start hook
 * start-cluster-authentication-info-controller), on every instance: the ConfigMap
 * kube-system/extension-apiserver-authentication that extension API servers read to trust
 * kube's client certificates and its authenticating proxy. Its data is what every instance
 * wrote combined with this one's, as kube combines it:
 *  - client-ca-file: the certificates of --client-ca-file and those already there (PEM, each
 *    once, expired ones dropped);
 *  - when a request-header CA is known: requestheader-client-ca-file likewise, and
 *    requestheader-allowed-names, -username-headers, -group-headers and -extra-headers-prefix
 *    as JSON arrays of strings ('["X-Remote-User"]'), the existing entries first, each once.
 * Written at start, again within a second when the ConfigMap is changed or deleted, and every
 * minute (the CA files are read again each time).
 */

#include <stddef.h>

#include "etcd.h"
#include "gw_transformer.h"

struct event_base;

typedef struct gw_authtrust gw_authtrust_t;

/** A string list (borrowed for the start call; copied). */
typedef struct {
    const char *const *items;
    size_t n;
} gw_authtrust_list_t;

typedef struct {
    const char *etcd_prefix;
    const gw_value_transformer_t *values;     /* must outlive the controller */
    const char *client_ca_file;               /* --client-ca-file; may be NULL */
    const char *requestheader_client_ca_file; /* may be NULL */
    gw_authtrust_list_t allowed_names, username_headers, group_headers, extra_headers_prefix;
    void (*synced)(void *arg); /* after the first successful write or check; may be NULL */
    void *synced_arg;
} gw_authtrust_opts_t;

/** Start on `base` (the calling worker's; it must keep running); client must outlive it.
 *  Thread: base's. */
gw_authtrust_t *gw_authtrust_start(etcd_client_t *client, struct event_base *base,
                                   const gw_authtrust_opts_t *opts);

/** Stop and free (outstanding etcd calls are canceled). NULL is fine. Thread: base's. */
void gw_authtrust_stop(gw_authtrust_t *t);

#endif
