#ifndef GATEWAY_API_GW_METRICS_H
#define GATEWAY_API_GW_METRICS_H

/*
 * Request metrics in kube-apiserver's names and labels, served by /metrics in the Prometheus
 * text format: apiserver_request_total (a counter per verb, dry_run, group, version, resource,
 * subresource, scope, component and code), apiserver_request_duration_seconds (a histogram
 * with kube's buckets, same labels without code), apiserver_current_inflight_requests and
 * apiserver_requested_deprecated_apis (a gauge at 1 for each deprecated API requested: group,
 * version, resource, subresource, removed_release); apiserver_longrunning_requests and
 * apiserver_response_sizes go to the process's registry (gw_metric.h), which /metrics prints
 * after these.
 *
 * Each worker records into its own shard, under that shard's own lock (uncontended but for
 * a scrape), so requests on different workers never share a lock; a scrape merges the shards.
 */

#include <stddef.h>
#include <stdint.h>

typedef struct gw_metrics gw_metrics_t;

/** The labels of one request (all non-NULL; "" for none). Borrowed during the call. */
typedef struct {
    const char *verb; /* as kube reports it: GET, LIST, WATCH, POST, PUT, PATCH, APPLY, DELETE,
                         CONNECT, ... */
    const char *dry_run;
    const char *group;
    const char *version;
    const char *resource;
    const char *subresource; /* for non-resource requests: the route's path */
    const char *scope;       /* resource, namespace, cluster or "" */
    const char *component;   /* "apiserver", or "" for the health endpoints as kube has it */
} gw_metrics_labels_t;

/** Metrics with `shards` shards (one per worker). Thread: main. */
gw_metrics_t *gw_metrics_new(size_t shards);

/** Free them; no worker may record any more. NULL is fine. Thread: main. */
void gw_metrics_free(gw_metrics_t *m);

/** Record one finished request into `shard`. Thread: the shard's worker. */
void gw_metrics_observe(gw_metrics_t *m, size_t shard, const gw_metrics_labels_t *l, int code,
                        double seconds);

/** The labels of a request to a deprecated API (all non-NULL; "" for none). Borrowed. */
typedef struct {
    const char *group;
    const char *version;
    const char *resource;
    const char *subresource;
    const char *removed_release; /* "<major>.<minor>", or "" when no removal is known */
} gw_metrics_deprecated_t;

/** Record that a deprecated API was requested, into `shard` (kube's gauge is set to 1 for its
 *  labels). Thread: the shard's worker. */
void gw_metrics_deprecated(gw_metrics_t *m, size_t shard, const gw_metrics_deprecated_t *d);

/** A long-running request (a watch) of labels l began (delta 1) or ended (-1):
 *  apiserver_longrunning_requests. Thread: any. */
void gw_metrics_longrunning(const gw_metrics_labels_t *l, int delta);

/** The answer to a request of labels l was `bytes` long: apiserver_response_sizes, which
 *  kube keeps for GET and LIST only. Thread: any. */
void gw_metrics_response_size(const gw_metrics_labels_t *l, size_t bytes);

/**
 * Render every metric as Prometheus text (series sorted, labels in alphabetical order) into a
 * new buffer of *len bytes, which the caller frees. `inflight_readonly` and
 * `inflight_mutating` are the current in-flight counts. Thread: any.
 */
char *gw_metrics_render(gw_metrics_t *m, int64_t inflight_readonly, int64_t inflight_mutating,
                        size_t *len);

#endif
