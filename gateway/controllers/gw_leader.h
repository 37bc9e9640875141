#ifndef GATEWAY_CONTROLLERS_GW_LEADER_H
#define GATEWAY_CONTROLLERS_GW_LEADER_H

/*
 * Leader election on etcd, for work that must run once cluster-wide (the namespace deletion
 * controller, later RBAC bootstrap and token cleanup). kgate instances share nothing but etcd,
 * so the election is held on an etcd key, the way Kubernetes components elect through Lease
 * objects but without the API in between:
 *
 *  - each candidate grants itself a lease (TTL 15 s by default) and keeps it alive;
 *  - it campaigns with txn(create_revision(key) == 0) put(key = identity, lease): the one whose
 *    put succeeds leads; the others watch the key and campaign again when it is deleted;
 *  - the key goes away with the leader's lease: when the leader releases it (gw_leader_stop
 *    revokes the lease: another instance takes over at once) or dies (the lease expires: a
 *    successor within the TTL);
 *  - a leader that cannot renew its lease for two thirds of the TTL (etcd unreachable) steps
 *    down on its own (like kube's renew deadline), so that two instances never believe they
 *    lead at once while the clocks of the machines run at about the same rate.
 *
 * Keys live outside every --etcd-prefix's object space: "/kgate/leader<etcd-prefix>/<name>",
 * e.g. "/kgate/leader/registry/namespace-controller" (see gw_leader_key). Including the prefix
 * keeps separate kgate clusters that share one etcd (with different prefixes) apart.
 *
 * A gw_leader_t belongs to one event_base thread (a worker's); it opens an etcd conn of its
 * own on that base, so stopping it never waits for anybody else's calls.
 */

#include <stdbool.h>
#include <stdint.h>

#include "etcd.h"

struct event_base;

/** Default lease TTL, as kube's controllers' lease duration. */
#define GW_LEADER_TTL_S 15

typedef struct gw_leader gw_leader_t;

/** A change of leadership, reported on the leader's thread from its own event (never from
 *  inside gw_leader_start or gw_leader_stop), so the callee may call gw_leader_stop. */
typedef void (*gw_leader_fn)(gw_leader_t *l, void *ctx);

typedef struct {
    const char *key;         /* the election key (gw_leader_key); copied */
    const char *identity;    /* the value written while leading (instance id); copied */
    int64_t ttl_s;           /* lease TTL in seconds; 0 = GW_LEADER_TTL_S */
    gw_leader_fn on_elected; /* this candidate leads from now on; may be NULL */
    gw_leader_fn on_lost;    /* it does not any more (only after on_elected); may be NULL */
    void *ctx;
} gw_leader_opts_t;

/**
 * The election key for `name` under --etcd-prefix `etcd_prefix` ("/registry" or "/registry/"
 * give "/kgate/leader/registry/<name>"). Returns a new string; the caller frees it.
 * Thread: any.
 */
char *gw_leader_key(const char *etcd_prefix, const char *name);

/**
 * Start campaigning: from now on this candidate leads whenever it holds the key, and
 * on_elected / on_lost follow every change. Transport failures are retried forever (every
 * second) and logged once per failure streak. `client` must outlive the leader; `base` is the
 * calling thread's event_base, which must keep running. Returns NULL for malformed options
 * (no key or identity, negative TTL). Thread: base's.
 */
gw_leader_t *gw_leader_start(etcd_client_t *client, struct event_base *base,
                             const gw_leader_opts_t *opts);

/** Whether this candidate leads now (as last reported through on_elected / on_lost). */
bool gw_leader_is_leader(const gw_leader_t *l);

/**
 * Stop campaigning and free l. on_lost is not called. If the candidate holds a lease, it is
 * revoked so that the key (if it led) is deleted at once and a successor takes over without
 * waiting for the TTL; this one call blocks for that revoke, at most 3 s, through a private
 * event_base (meant for shutdown, where the worker's loop is already ending). NULL is fine.
 * Thread: l's, but not from inside a callback of l's etcd calls (its callbacks are events).
 */
void gw_leader_stop(gw_leader_t *l);

#endif
