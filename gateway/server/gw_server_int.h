#ifndef GATEWAY_SERVER_GW_SERVER_INT_H
#define GATEWAY_SERVER_GW_SERVER_INT_H

/* Internals shared by gw_server.c (process side) and gw_worker.c (thread side). */

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "gw_server.h"

struct event;
struct evhttp;
struct evhttp_bound_socket;

struct gw_worker {
    gw_server_t *srv;
    int index;
    int listen_fd; /* this worker's dup of the listening socket, owned by its evhttp */
    pthread_t thread;
    struct event_base *base;
    struct evhttp *http;
    struct evhttp_bound_socket *bound;
    etcd_conn_t *etcd;
    struct event *stop_ev;  /* activated by gw_server_stop from another thread */
    struct event *drain_ev; /* polls until the requests in progress are done */
    int64_t drain_deadline_ms;
    int64_t drain_ms; /* written before stop_ev is activated */
    bool draining;
    int active; /* requests dispatched and not yet finished; worker thread only */
};

struct gw_server {
    gw_server_opts_t opts;
    int listen_fd;
    gw_worker_t *workers;
    int n_workers;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int ready; /* workers serving so far, under lock */
};

/** Thread body of one worker: set up, serve until stopped, tear down. */
void *gw_server__worker_main(void *arg);

#endif
