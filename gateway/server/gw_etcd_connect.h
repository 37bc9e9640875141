#ifndef GW_ETCD_CONNECT_H
#define GW_ETCD_CONNECT_H

/*
 * Start-up's connection to etcd, made on a thread of its own: the client is created and etcd's
 * status asked until it answers (retried for at most a deadline), while the main thread builds
 * what needs no etcd (the catalog, authentication and authorization). gRPC's set-up and the
 * round trips then cost start-up nothing they did not overlap.
 */

#include <stddef.h>
#include <stdint.h>

#include "etcd.h"

typedef struct gw_etcd_connect gw_etcd_connect_t;

/**
 * Start connecting to the etcd cfg describes (cfg is copied; its strings must live until
 * gw_etcd_connect_wait or gw_etcd_connect_cancel returns), giving etcd timeout_ms to answer a
 * status call. evthread_use_pthreads() must have been called. Never NULL: any
 * failure is reported by gw_etcd_connect_wait. Thread: any, one caller owns the result.
 */
gw_etcd_connect_t *gw_etcd_connect_start(const etcd_config_t *cfg, int64_t timeout_ms);

/**
 * Wait for the connection started by c and free c. 0 with the client in *client (the
 * caller's, freed on its own thread: the client keeps no tie to the thread that made it), or
 * a GW_E* code with the reason in err: the client's own message when it could not be
 * created, "cannot reach etcd at <servers>: <error>" when etcd did not answer.
 * Thread: c's owner.
 */
int gw_etcd_connect_wait(gw_etcd_connect_t *c, etcd_client_t **client, char *err, size_t err_len);

/**
 * Give up on c (start-up failed elsewhere): the status call in progress is cancelled, the
 * thread joined, the client freed, c freed. NULL is a no-op. Thread: c's owner.
 */
void gw_etcd_connect_cancel(gw_etcd_connect_t *c);

#endif
