#ifndef GATEWAY_FLOWCONTROL_GW_APF_H
#define GATEWAY_FLOWCONTROL_GW_APF_H

/*
 * API Priority and Fairness, as kube-apiserver's flowcontrol filter and controller: every
 * request is classified by the FlowSchemas in force (matchingPrecedence, then name), lands in
 * the FlowSchema's priority level, and there it executes at once, waits in one of the level's
 * queues (shuffle sharding picks the queue among a hand of them; fair queuing by virtual finish
 * time picks which queue dispatches next), or is rejected (429).
 *
 * One gw_apf_t is shared by every worker thread of the process: all of its state sits behind
 * one mutex, taken for a few microseconds per request. A queued request is handed back to its
 * own worker through the wake function its caller gave: called under that mutex, it must only
 * post (event_active), never run the request.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

typedef struct gw_apf gw_apf_t;
typedef struct gw_apf_ticket gw_apf_ticket_t;

/** What classification reads of a request (kube's RequestDigest). Borrowed for the call. */
typedef struct {
    const char *user;
    const char *const *groups;
    size_t n_groups;
    bool is_resource;
    const char *verb;
    const char *path; /* non-resource requests */
    const char *api_group;
    const char *resource;
    const char *subresource; /* "" when none */
    const char *namespace_;  /* "" when cluster-scoped */
    const char *name;        /* the object's name, "" or NULL when none */
} gw_apf_digest_t;

/** The outcome of gw_apf_admit. */
typedef enum {
    GW_APF_EXECUTE, /* go on now */
    GW_APF_QUEUED,  /* wait: wake(ctx) is called once a seat is granted */
    GW_APF_REJECT,  /* answer 429 */
} gw_apf_verdict_t;

/** kube's rejection reasons (apiserver_flowcontrol_rejected_requests_total{reason}). */
#define GW_APF_REASON_QUEUE_FULL "queue-full"
#define GW_APF_REASON_CONCURRENCY "concurrency-limit"
#define GW_APF_REASON_TIMEOUT "time-out"
#define GW_APF_REASON_CANCELLED "cancelled"

/** kube's wait in a queue before a request is rejected with reason time-out (its default
 *  request wait limit). */
#define GW_APF_WAIT_LIMIT_MS 15000

/** A server with concurrency limit `server_cl` (kube's --max-requests-inflight +
 *  --max-mutating-requests-inflight), configured with the mandatory objects alone until
 *  gw_apf_configure. Thread: any. */
gw_apf_t *gw_apf_new(int server_cl);

/** Free it; no request may hold a ticket any more. NULL is fine. Thread: any. */
void gw_apf_free(gw_apf_t *a);

/**
 * Put the stored FlowSchemas and PriorityLevelConfigurations in force (JSON arrays of objects;
 * borrowed; NULL is an empty array). Missing mandatory objects are supplied as kube's
 * controller does; a FlowSchema naming no known priority level is dangling and never matches.
 * Queued requests of a level that stays keep their place; limits are recomputed.
 * Thread: any.
 */
void gw_apf_configure(gw_apf_t *a, const json_t *flowschemas, const json_t *levels);

/**
 * Classify d and ask for `seats` seats (at least 1): the list work estimate the caller made,
 * held to the level's most (kube's max seats: max(1, min(ceil(15% of NominalCL), NominalCL /
 * handSize)) for a queuing level, else 10). A create, update, patch or delete is estimated here
 * as kube's mutating work estimator: one seat, or with W watches interested in its object
 * (gw_apf_watch_register) and W >= 10, ceil(W/10) seats (held to the level's most) kept 5 ms
 * per uncapped seat past the request's end, spread over those seats. Always returns a ticket in
 * *out (the caller ends it with gw_apf_done), naming the FlowSchema and priority level (their uids
 * for kube's X-Kubernetes-PF-* headers). On GW_APF_QUEUED, wake(ctx) is called exactly once from
 * whichever thread frees a seat, under the apf mutex, unless gw_apf_cancel takes the ticket out
 * of its queue first. now_ns: monotonic. Thread: any.
 */
gw_apf_verdict_t gw_apf_admit(gw_apf_t *a, const gw_apf_digest_t *d, int seats, int64_t now_ns,
                              void (*wake)(void *ctx), void *ctx, gw_apf_ticket_t **out);

/** kube's borrowingAdjustmentPeriod: how often gw_apf_adjust should run. */
#define GW_APF_BORROWING_PERIOD_MS 10000

/**
 * Seat borrowing between priority levels, as kube's periodic adjustment: each level's seat
 * demand since the last call (high watermark, time-weighted average and standard deviation, a
 * smoothed envelope decaying with a 5 minute half-life) becomes a target, and the sum of the
 * NominalCLs is shared out in proportion to the targets, each level held between NominalCL less
 * its lendablePercent and NominalCL plus its borrowingLimitPercent (no limit when unset).
 * Waiting requests a level's new limit lets in are dispatched at once. Call it every
 * GW_APF_BORROWING_PERIOD_MS; gw_apf_configure also does. now_ns: monotonic. Thread: any.
 */
void gw_apf_adjust(gw_apf_t *a, int64_t now_ns);

/** Take a queued ticket out of its queue (its wait timed out): true when it was still
 *  waiting (the caller answers 429, reason time-out), false when a seat was granted in the
 *  meantime (wake was or is being called: the request goes on). Thread: any. */
bool gw_apf_cancel(gw_apf_t *a, gw_apf_ticket_t *t, int64_t now_ns);

/** Give the ticket's seats back now (a watch, once initialised), dispatching waiting requests;
 *  a no-op when they were given back already or never held. Thread: any. */
void gw_apf_release(gw_apf_t *a, gw_apf_ticket_t *t, int64_t now_ns);

/** End the ticket: it is freed, and its seats released (gw_apf_release), or for a mutating
 *  request that watchers make costly kept for its additional latency: then the return is the
 *  nanoseconds after which the caller must call gw_apf_expire, else 0. NULL is fine.
 *  Thread: any. */
int64_t gw_apf_done(gw_apf_t *a, gw_apf_ticket_t *t, int64_t now_ns);

/** Give back the seats whose additional latency has passed by now_ns, dispatching waiting
 *  requests. Thread: any. */
void gw_apf_expire(gw_apf_t *a, int64_t now_ns);

typedef struct gw_apf_watch gw_apf_watch_t;

/** kube's WatchTracker: count a watch of d's resource (narrowed to d's namespace and name when
 *  given) until gw_apf_watch_forget; mutating requests of that resource see it.
 *  Thread: any. */
gw_apf_watch_t *gw_apf_watch_register(gw_apf_t *a, const gw_apf_digest_t *d);

/** The watch ended. NULL is fine. Thread: any. */
void gw_apf_watch_forget(gw_apf_t *a, gw_apf_watch_t *w);

/** The watches interested in d's object: those of its whole resource, of its namespace and of
 *  its name (kube's GetInterestedWatchCount); 0 for reads. Thread: any. */
int gw_apf_watch_count(gw_apf_t *a, const gw_apf_digest_t *d);

/** The ticket's FlowSchema and priority level: names and uids (valid until gw_apf_done). */
const char *gw_apf_ticket_fs(const gw_apf_ticket_t *t);
const char *gw_apf_ticket_fs_uid(const gw_apf_ticket_t *t);
const char *gw_apf_ticket_pl(const gw_apf_ticket_t *t);
const char *gw_apf_ticket_pl_uid(const gw_apf_ticket_t *t);
/** Why it was rejected (GW_APF_REASON_*), or NULL. */
const char *gw_apf_ticket_reason(const gw_apf_ticket_t *t);
/** The seats it holds (or asked for): the estimate, held to its level's most. */
int gw_apf_ticket_seats(const gw_apf_ticket_t *t);
/** Nanoseconds it waited in a queue (0 when it was not queued). */
int64_t gw_apf_ticket_waited_ns(const gw_apf_ticket_t *t);

/** One priority level's figures, for /metrics and the status the controller writes. */
typedef struct {
    const char *name;
    bool exempt;
    int nominal_seats;    /* NominalCL */
    int current_seats;    /* CurrentCL, as borrowing last set it */
    int lower_seats;      /* NominalCL less what it may lend */
    int upper_seats;      /* NominalCL plus what it may borrow */
    int executing;        /* requests executing */
    int seats_executing;  /* seats in use */
    int waiting;          /* requests in queues */
    uint64_t dispatched;  /* requests dispatched since start */
    uint64_t rejected[4]; /* by reason: queue-full, concurrency-limit, time-out, cancelled */
} gw_apf_level_stats_t;

/** Call fn for every priority level in force, under the apf mutex (fn must not call back).
 *  Thread: any. */
void gw_apf_each_level(gw_apf_t *a, void (*fn)(const gw_apf_level_stats_t *s, void *ctx),
                       void *ctx);

/** kube's apiserver_flowcontrol_* metrics (dispatched_requests_total, rejected_requests_total
 *  by reason, current_inqueue_requests, current_executing_requests, current_executing_seats,
 *  nominal_limit_seats, request_wait_duration_seconds) as Prometheus text: a new string the
 *  caller frees. Thread: any. */
char *gw_apf_metrics(gw_apf_t *a);

/* ---- the pure parts, exported for their unit tests ------------------------------------------ */

/** kube's shuffle sharding dealer: `hand_size` distinct queue indexes out of `deck_size` from
 *  `hash`, into hand[]. Thread: any. */
void gw_apf_deal(uint64_t hash, int deck_size, int hand_size, int *hand);

/** One class of gw_apf_allocate: what it would like, and the least and most it may get. */
typedef struct {
    double target, lower, upper;
} gw_apf_alloc_item_t;

/**
 * kube's computeConcurrencyAllocation: allocs[i] for the n items, summing to `required`, each
 * within its bounds and otherwise the same multiple (*fair, kube's seat_fair_frac) of its
 * target (a target under 0.001 counts as 0.001). Returns false, leaving allocs alone, when the
 * items are inconsistent (target under lower bound, upper under lower, negative lower) or their
 * bounds cannot reach `required`. Thread: any.
 */
bool gw_apf_allocate(int required, const gw_apf_alloc_item_t *items, size_t n, double *allocs,
                     double *fair);

/** kube's hashFlowID: the first 8 bytes (little-endian) of SHA-256(fs "\0" distinguisher). */
uint64_t gw_apf_flow_hash(const char *fs_name, const char *distinguisher);

/** Whether FlowSchema fs (an object) matches d, as kube's matchesFlowSchema. Thread: any. */
bool gw_apf_fs_matches(const json_t *fs, const gw_apf_digest_t *d);

/** The flow distinguisher fs gives d: the user (ByUser), the namespace (ByNamespace) or "". */
const char *gw_apf_distinguisher(const json_t *fs, const gw_apf_digest_t *d);

/** kube 1.32's mandatory and suggested configuration objects (v1), as JSON arrays (new
 *  references). Thread: any. */
json_t *gw_apf_bootstrap_levels(bool mandatory);
json_t *gw_apf_bootstrap_flowschemas(bool mandatory);

#endif
