#ifndef GATEWAY_FLOWCONTROL_GW_APF_INT_H
#define GATEWAY_FLOWCONTROL_GW_APF_INT_H

/* The dispatcher's state, shared by the files of gateway/flowcontrol/. Everything here is
 * guarded by gw_apf_t's mutex. */

#include <pthread.h>

#include "gw_apf.h"

/* kube's estimated service duration of a request before its real duration is known */
#define EST_SECONDS 0.003

/* T_LINGERING: the request ended, its seats wait out its additional latency */
typedef enum { T_NEW, T_WAITING, T_EXECUTING, T_LINGERING, T_RELEASED, T_REJECTED } state_t;

typedef struct {
    gw_apf_ticket_t *head, *tail;
    int n_waiting;
    int waiting_seats;
    int seats_in_use;
    double next_r; /* virtual time at which this queue's next request would start */
} queue_t;

/* kube's seat demand integrator: the seats a level uses or waits for, integrated over time
 * between two borrowing adjustments. */
typedef struct {
    double x, max;        /* the demand now, and its most since the last reset */
    double ix, ixx, secs; /* the integrals of x and x² over secs seconds */
    int64_t last_ns;
} demand_t;

/* What an adjustment derived from a level's demand (kube's seatDemandStats, and its target). */
typedef struct {
    double avg, stdev, hwm, smoothed, target;
} demand_stats_t;

/* kube's timing ratio histograms: the seconds a ratio spent in each bucket (not cumulative),
 * the integral of the ratio and the seconds observed. */
#define UTIL_BUCKETS 15
typedef struct {
    double secs[UTIL_BUCKETS + 1]; /* the last one: above every bound */
    double sum, total;
} timing_t;

/* What a level's timing histograms observe, and since when. */
typedef struct {
    int seats, executing, waiting;
    double demand;
    int64_t since_ns;
    timing_t seat_util, exec_util, wait_util, demand_util;
} level_timing_t;

typedef struct level {
    struct level *next;
    char *name, *uid;
    bool active; /* in the configuration in force */
    bool exempt, reject;
    int shares, lendable;
    int borrowing; /* borrowingLimitPercent, -1 when unset (no limit) */
    int n_queues, hand, qlen;
    int nominal;        /* NominalCL */
    int min_cl, max_cl; /* NominalCL less what it lends, plus what it may borrow */
    int cl;             /* CurrentCL: what dispatch holds to, moved by borrowing */
    bool placed;        /* cl was set once (a new level starts at nominal - lendable/2) */
    int spare_denom;    /* utilization's denominator while cl is 0: max(1, round(ServerCL/10)) */
    int max_seats;      /* the most seats one request gets here (kube's MaxSeatsTracker) */
    queue_t *queues;
    int seats_in_use, executing, waiting, waiting_seats;
    demand_t demand;
    demand_stats_t stats;
    level_timing_t timing;
    double current_r;
    int64_t last_ns;
    uint64_t dispatched, rejected[4];
} level_t;

typedef struct {
    json_t *obj;
    level_t *pl;
} fs_t;

/* kube's request_wait_duration_seconds buckets */
#define WAIT_BUCKETS 13
extern const double gw_apf__wait_buckets[WAIT_BUCKETS];

/* One flow_schema and priority_level pair's figures (kept until the dispatcher is freed). */
typedef struct series {
    struct series *next;
    char *fs, *pl;
    uint64_t dispatched, rejected[4];
    int inqueue, executing, seats, inqueue_seats;
    uint64_t wait_counts[2][WAIT_BUCKETS]; /* [executed][bucket], not cumulative */
    uint64_t wait_n[2];
    double wait_sum[2];
} series_t;

struct gw_apf_ticket {
    level_t *pl;
    series_t *s;
    char *fs, *fs_uid, *pl_name, *pl_uid;
    state_t state;
    int seats;
    bool watch;
    int queue;          /* its queue's index, -1 when it never waited in one */
    int queue_len;      /* its queue's length once it joined, -1 when it joined none */
    int watch_count;    /* watches interested in a mutating request, -1 for other requests */
    int64_t extra_ns;   /* kube's additional latency: its seats stay held that long past its end */
    int64_t expires_ns; /* once ended, when that latency is over */
    double executed;    /* seconds it executed, -1 until its seats went back */
    gw_apf_ticket_t *prev, *next;
    int64_t enqueued_ns, started_ns, waited_ns;
    void (*wake)(void *ctx);
    void *ctx;
    const char *reason;
};

/* One watch identity's count (kube's watchIdentifier: group, resource, namespace, name). */
struct gw_apf_watch {
    struct gw_apf_watch *next;
    char *group, *resource, *ns, *name;
    int count;
};
#define WATCH_BUCKETS 256

struct gw_apf {
    pthread_mutex_t lock;
    int server_cl;
    level_t *levels; /* every level ever configured (a removed one drains) */
    fs_t *fss;       /* in matching order */
    size_t n_fss;
    json_t *fs_objs; /* holds the objects fss point into */
    series_t *series;
    int nominal_sum; /* what borrowing shares out: the NominalCLs summed */
    double fair_frac;
    bool scraped; /* its refresher is registered with the metric registry */
    struct gw_apf_watch *watches[WATCH_BUCKETS];
    gw_apf_ticket_t *lingering; /* ended tickets whose seats wait out their latency */
};

/** The GW_APF_REASON_* in the order of the rejected[] counters. */
extern const char *const gw_apf__reasons[4];

/** Note a change of pl's seat demand (seats in use plus seats waiting) at now_ns. */
void gw_apf__demand_note(level_t *pl, int64_t now_ns);

/** kube's periodic borrowing adjustment (updateBorrowingLocked): every active level's demand
 *  statistics are renewed and its CurrentCL reallocated out of nominal_sum. */
void gw_apf__adjust_locked(gw_apf_t *a, int64_t now_ns);

/** Bring pl's timing ratio histograms up to now_ns, from what they last observed to the
 *  level's figures now. */
void gw_apf__timing_note(level_t *pl, int64_t now_ns);

/** The registry's families: observations a request leaves once the apf mutex is released
 *  (its estimated seats, its queue's length, its execution), and the refresher that sets the
 *  levels' and series' gauges at each scrape. */
void gw_apf__observe_admitted(const gw_apf_ticket_t *t);
void gw_apf__observe_released(const gw_apf_ticket_t *t);
void gw_apf__scrape_register(gw_apf_t *a);
void gw_apf__scrape_unregister(gw_apf_t *a);

/** Free every watch identity (the dispatcher is being freed). */
void gw_apf__watches_free(gw_apf_t *a);

/** Watches interested in d's object; called under the apf mutex. */
int gw_apf__watches_interested(gw_apf_t *a, const gw_apf_digest_t *d);

/** Observe a mutating request's interested watches (watch_count_samples). */
void gw_apf__observe_watch_count(const gw_apf_ticket_t *t);

/** Index of a GW_APF_REASON_* in series_t's rejected[] and level_t's. */
int gw_apf__reason_index(const char *reason);

#endif
