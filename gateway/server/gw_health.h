#ifndef GATEWAY_SERVER_GW_HEALTH_H
#define GATEWAY_SERVER_GW_HEALTH_H

/*
 * /livez, /readyz and /healthz as kube-apiserver serves them:
 *  - all checks pass: 200 "ok"; `?verbose` lists "[+]<check> ok" lines and ends with
 *    "<endpoint> check passed";
 *  - a check fails: 500 with the list ("[-]<check> failed: reason withheld") ending with
 *    "<endpoint> check failed";
 *  - `?exclude=<check>` (repeatable) skips a check, listed as "[+]<check> excluded: ok";
 *  - `/<endpoint>/<check>` runs one check (404 for a check the endpoint does not have).
 * Checks: livez and healthz = ping, log, etcd, the named checks, then the post-start hooks;
 * readyz = ping, log, etcd, the named checks, informer-sync (the start-up state is confirmed in
 * etcd: gw_health_set_synced), the post-start hooks, shutdown. A named check (e.g. encryption's
 * "kms-providers") is a function of its owner's (gw_health_check_add). A post-start hook
 * ("poststarthook/<name>", as kube's AddPostStartHook registers it) fails until the work it stands
 * for is done (gw_health_hook_done); /livez lets it pass during --livez-grace-period.
 *
 * The etcd check reads the outcome of a Maintenance Status probe that one worker sends about
 * every second; it passes when the last probe succeeded within the last few seconds. During
 * --livez-grace-period after start, /livez does not fail on etcd.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "etcd.h"
#include "gw_server.h"

struct evbuffer;

typedef struct gw_health gw_health_t;
typedef struct gw_health_hook gw_health_hook_t;

/** The most post-start hooks one process registers. */
#define GW_HEALTH_MAX_HOOKS 24

/** Create the shared state; the grace period starts now. Thread: main. */
gw_health_t *gw_health_new(int64_t livez_grace_ms);

/** Free it, after the server and the probe are stopped. NULL is fine. Thread: main. */
void gw_health_free(gw_health_t *h);

/**
 * Record the outcome of an etcd Status call (0 or a GW_E* code), e.g. the startup probe's.
 * Thread: any.
 */
void gw_health_etcd_result(gw_health_t *h, int err);

/** The start-up state is in place: /readyz's informer-sync check passes from now on.
 *  Thread: any. */
void gw_health_set_synced(gw_health_t *h);

/**
 * Register post-start hook `name` (kube's name without "poststarthook/", e.g.
 * "rbac/bootstrap-roles"; copied): from now on every endpoint lists
 * "poststarthook/<name>", failing until gw_health_hook_done. Hooks are listed in registration
 * order. The hook lives as long as h. Aborts past GW_HEALTH_MAX_HOOKS. Thread: any.
 */
gw_health_hook_t *gw_health_hook_add(gw_health_t *h, const char *name);

/** The hook's work is done: its check passes from now on (logged once). Thread: any. */
void gw_health_hook_done(gw_health_hook_t *hook);

/** The most named checks one process registers. */
#define GW_HEALTH_MAX_CHECKS 4

/** A named check: true when it passes, else false with kube's reason in why. It must not block
 *  (it runs on a worker for each health request). Thread: any. */
typedef bool (*gw_health_check_fn)(void *arg, char *why, size_t why_len);

/**
 * Register check `name` (copied) on every endpoint, after etcd: fn(arg) answers it (arg lives
 * as long as h). Aborts past GW_HEALTH_MAX_CHECKS. Thread: main, before serving.
 */
void gw_health_check_add(gw_health_t *h, const char *name, gw_health_check_fn fn, void *arg);

/** Whether every /readyz check passes now. Thread: any. */
bool gw_health_ready(const gw_health_t *h);

/** From now on /readyz fails its shutdown check. Thread: any (signal handling). */
void gw_health_set_shutting_down(gw_health_t *h);

/**
 * Start probing etcd through `w`'s conn about once a second; each answer also sets the
 * database size metrics (apiserver_storage_size_bytes, and the deprecated
 * apiserver_storage_db_total_size_in_bytes labelled with `endpoint`, copied). Thread: w's,
 * from its on_start hook. At most one worker probes.
 */
void gw_health_probe_start(gw_health_t *h, gw_worker_t *w, const char *endpoint);

/** Stop probing; an outstanding probe ends when w's conn is freed. Thread: the prober's. */
void gw_health_probe_stop(gw_health_t *h);

/**
 * Answer a health path ("/livez", "/readyz/etcd", ...) with its raw query (may be NULL):
 * returns the HTTP status code and appends the text/plain body to out; 404 with "404 page not
 * found" for a check the endpoint does not have. Thread: any worker.
 */
int gw_health_render(const gw_health_t *h, const char *path, const char *query,
                     const char *audit_id, struct evbuffer *out);

#endif
