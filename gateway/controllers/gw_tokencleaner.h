#ifndef GATEWAY_CONTROLLERS_GW_TOKENCLEANER_H
#define GATEWAY_CONTROLLERS_GW_TOKENCLEANER_H

/*
 * kube-controller-manager's tokencleaner: bootstrap token Secrets (type
 * bootstrap.kubernetes.io/token in kube-system) whose expiration has passed (or is unreadable)
 * are deleted, each only if unchanged since it was read. It looks again after every change to
 * kube-system's Secrets, when the next token expires, and at least once a minute.
 */

#include <stdint.h>

#include "etcd.h"
#include "gw_transformer.h"

struct event_base;

typedef struct gw_tokencleaner gw_tokencleaner_t;

/** Start on base (whose loop must keep running) with the store under etcd_prefix (copied).
 *  Thread: base's. */
gw_tokencleaner_t *gw_tokencleaner_start(etcd_client_t *client, struct event_base *base,
                                         const char *etcd_prefix,
                                         const gw_value_transformer_t *values);

/** Secrets deleted so far (tests, logs). Thread: base's. */
uint64_t gw_tokencleaner_deleted(const gw_tokencleaner_t *c);

/** Stop and free (NULL is fine); nothing runs afterwards. Thread: base's. */
void gw_tokencleaner_stop(gw_tokencleaner_t *c);

#endif
