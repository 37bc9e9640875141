/* The dispatcher: priority levels with their queues, shared by every worker under one mutex.
 * Fair queuing follows kube's fqueuing queueset: a virtual clock R that advances at the rate
 * each active queue is served, every queue's next dispatch R, the queue with the least next R
 * dispatching first, and each request's estimated work corrected by its real duration. */
#include "gw_apf_int.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_clock.h"

/* kube's work estimator: the most seats of a request (MaximumSeatsLimit), the share of a
 * level's NominalCL one request may take (priorityLevelMaxSeatsPercent), and the mutating
 * estimator's watches per seat and time per event (watchesPerSeat, eventAdditionalDuration) */
#define MAX_SEATS_LIMIT 10
#define MAX_SEATS_SHARE 0.15
#define WATCHES_PER_SEAT 10
#define EVENT_SECONDS 0.005

const char *const gw_apf__reasons[4] = {GW_APF_REASON_QUEUE_FULL, GW_APF_REASON_CONCURRENCY,
                                        GW_APF_REASON_TIMEOUT, GW_APF_REASON_CANCELLED};

const double gw_apf__wait_buckets[WAIT_BUCKETS] = {0,   0.005, 0.02, 0.05, 0.1, 0.2, 0.5,
                                                   1.0, 2.0,   5.0,  10,   15,  30};

int
gw_apf__reason_index(const char *reason)
{
    for (int i = 0; i < 4; i++) {
        if (strcmp(gw_apf__reasons[i], reason) == 0)
            return i;
    }
    return 3;
}

static void
observe_wait(series_t *s, bool executed, int64_t waited_ns)
{
    double v = (double)waited_ns / 1e9;
    int b = 0;

    while (b < WAIT_BUCKETS && v > gw_apf__wait_buckets[b])
        b++;
    if (b < WAIT_BUCKETS)
        s->wait_counts[executed][b]++;
    s->wait_n[executed]++;
    s->wait_sum[executed] += v;
}

static series_t *
series_get(gw_apf_t *a, const char *fs, const char *pl)
{
    series_t *s;

    for (s = a->series; s != NULL; s = s->next) {
        if (strcmp(s->fs, fs) == 0 && strcmp(s->pl, pl) == 0)
            return s;
    }
    s = gw_calloc(1, sizeof(*s));
    s->fs = gw_strdup(fs);
    s->pl = gw_strdup(pl);
    s->next = a->series;
    a->series = s;
    return s;
}

/* ---- configuration ------------------------------------------------------------------------ */

static level_t *
level_find(gw_apf_t *a, const char *name)
{
    for (level_t *l = a->levels; l != NULL; l = l->next) {
        if (strcmp(l->name, name) == 0)
            return l;
    }
    return NULL;
}

static int
int_at(const json_t *o, const char *key, int dflt)
{
    const json_t *v = json_object_get(o, key);
    return json_is_integer(v) ? (int)json_integer_value(v) : dflt;
}

/* Take one PriorityLevelConfiguration into its level (created on first sight). */
static void
level_apply(gw_apf_t *a, const json_t *plc)
{
    const json_t *md = json_object_get(plc, "metadata"), *spec = json_object_get(plc, "spec");
    const char *name = json_string_value(json_object_get(md, "name"));
    const char *uid = json_string_value(json_object_get(md, "uid"));
    const char *type = json_string_value(json_object_get(spec, "type"));
    const json_t *lim = json_object_get(spec, "limited");
    const json_t *resp = json_object_get(lim, "limitResponse");
    const json_t *q = json_object_get(resp, "queuing");
    level_t *l;

    if (name == NULL || type == NULL)
        return;
    l = level_find(a, name);
    if (l != NULL && l->active)
        return; /* the same name twice: the first stays */
    if (l == NULL) {
        l = gw_calloc(1, sizeof(*l));
        l->name = gw_strdup(name);
        l->next = a->levels;
        a->levels = l;
    }
    free(l->uid);
    l->uid = gw_strdup(uid != NULL ? uid : "");
    l->active = true;
    l->exempt = strcmp(type, "Exempt") == 0;
    const json_t *limits = l->exempt ? json_object_get(spec, "exempt") : lim;
    l->shares = int_at(limits, "nominalConcurrencyShares", l->exempt ? 0 : 30);
    if (l->shares < 0)
        l->shares = 0;
    /* an exempt level lends what it is told, and borrows without limit */
    l->lendable = int_at(limits, "lendablePercent", 0);
    l->borrowing = l->exempt ? -1 : int_at(lim, "borrowingLimitPercent", -1);
    const char *response = json_string_value(json_object_get(resp, "type"));
    l->reject = !l->exempt && (response == NULL || strcmp(response, "Queue") != 0);
    int n = l->reject || l->exempt ? 0 : int_at(q, "queues", 64);
    l->hand = int_at(q, "handSize", 8);
    l->qlen = int_at(q, "queueLengthLimit", 50);
    /* what validation lets through; a stored object written past it is held to the same */
    if (n < 0 || n > 10000)
        n = n < 0 ? 0 : 10000;
    if (l->hand > n || l->hand > 60)
        l->hand = n < 60 ? n : 60;
    if (l->hand < 1)
        l->hand = 1;
    /* a level's queues change only while none waits (the waiting keep their places) */
    if (n != l->n_queues && l->waiting == 0) {
        free(l->queues);
        l->queues = n > 0 ? gw_calloc((size_t)n, sizeof(queue_t)) : NULL;
        l->n_queues = n;
    }
}

static int
fs_order(const void *x, const void *y)
{
    const fs_t *a = x, *b = y;
    const json_t *sa = json_object_get(a->obj, "spec"), *sb = json_object_get(b->obj, "spec");
    int pa = int_at(sa, "matchingPrecedence", 1000), pb = int_at(sb, "matchingPrecedence", 1000);
    if (pa != pb)
        return pa < pb ? -1 : 1;
    return strcmp(json_string_value(json_object_get(json_object_get(a->obj, "metadata"), "name")),
                  json_string_value(json_object_get(json_object_get(b->obj, "metadata"), "name")));
}

static bool
has_name(const json_t *arr, const char *name)
{
    size_t i;
    json_t *v;
    json_array_foreach(arr, i, v)
    {
        const char *n = json_string_value(json_object_get(json_object_get(v, "metadata"), "name"));
        if (n != NULL && strcmp(n, name) == 0)
            return true;
    }
    return false;
}

/* objs plus the mandatory objects it lacks, as kube's controller supplies them */
static json_t *
with_mandatory(const json_t *objs, json_t *mandatory)
{
    json_t *all = json_array();
    size_t i;
    json_t *v;

    if (json_is_array(objs))
        json_array_extend(all, (json_t *)objs);
    json_array_foreach(mandatory, i, v)
    {
        const char *n = json_string_value(json_object_get(json_object_get(v, "metadata"), "name"));
        if (!has_name(all, n))
            json_array_append(all, v);
    }
    json_decref(mandatory);
    return all;
}

/* kube's finishQueueSetReconfigsLocked: each level's NominalCL, the least it keeps when lending
 * and the most it may reach borrowing; a new level starts halfway into what it lends. */
static void
limits_compute(gw_apf_t *a)
{
    double sum = 0;
    for (level_t *l = a->levels; l != NULL; l = l->next) {
        if (l->active)
            sum += l->shares;
    }
    a->nominal_sum = 0;
    for (level_t *l = a->levels; l != NULL; l = l->next) {
        if (!l->active || sum <= 0)
            continue;
        int nominal = (int)ceil((double)a->server_cl * l->shares / sum);
        int lend = (int)round((double)nominal * l->lendable / 100);
        int borrow =
            l->borrowing >= 0 ? (int)round((double)nominal * l->borrowing / 100) : a->server_cl;
        l->nominal = nominal;
        l->min_cl = nominal - lend;
        l->max_cl = nominal + borrow;
        l->spare_denom = (int)fmax(1, round(a->server_cl / 10.0));
        /* kube's max seats: 15% of NominalCL, at most a hand's share of it; none without queues */
        l->max_seats = l->n_queues > 0 ? (int)fmax(1, fmin(ceil(nominal * MAX_SEATS_SHARE),
                                                           nominal / (l->hand > 0 ? l->hand : 1)))
                                       : 0;
        if (!l->placed) {
            l->cl = nominal - lend / 2;
            l->stats = (demand_stats_t){0};
            l->placed = true;
        }
        a->nominal_sum += nominal;
    }
}

static void dispatch(level_t *pl, int64_t now_ns, const gw_apf_ticket_t *admitting);

void
gw_apf_configure(gw_apf_t *a, const json_t *flowschemas, const json_t *levels)
{
    json_t *pls = with_mandatory(levels, gw_apf_bootstrap_levels(true));
    json_t *fss = with_mandatory(flowschemas, gw_apf_bootstrap_flowschemas(true));
    size_t i, n = 0;
    json_t *v;
    fs_t *order = gw_calloc(json_array_size(fss) + 1, sizeof(*order));
    int64_t now = gw_monotonic_ns();

    pthread_mutex_lock(&a->lock);
    for (level_t *l = a->levels; l != NULL; l = l->next)
        l->active = false;
    json_array_foreach(pls, i, v) level_apply(a, v);
    json_array_foreach(fss, i, v)
    {
        const char *pl = json_string_value(json_object_get(
            json_object_get(json_object_get(v, "spec"), "priorityLevelConfiguration"), "name"));
        level_t *l = pl != NULL ? level_find(a, pl) : NULL;
        if (l == NULL || !l->active ||
            !json_is_string(json_object_get(json_object_get(v, "metadata"), "name")))
            continue; /* dangling: never matches */
        order[n++] = (fs_t){v, l};
    }
    qsort(order, n, sizeof(*order), fs_order);
    limits_compute(a);
    gw_apf__adjust_locked(a, now);
    free(a->fss);
    json_decref(a->fs_objs);
    a->fss = order;
    a->n_fss = n;
    a->fs_objs = fss;
    for (level_t *l = a->levels; l != NULL; l = l->next)
        dispatch(l, now, NULL); /* a level whose limit grew takes more now */
    pthread_mutex_unlock(&a->lock);
    json_decref(pls);
}

void
gw_apf_adjust(gw_apf_t *a, int64_t now_ns)
{
    pthread_mutex_lock(&a->lock);
    gw_apf__adjust_locked(a, now_ns);
    for (level_t *l = a->levels; l != NULL; l = l->next)
        dispatch(l, now_ns, NULL);
    pthread_mutex_unlock(&a->lock);
}

static void
ticket_free(gw_apf_ticket_t *t)
{
    free(t->fs);
    free(t->fs_uid);
    free(t->pl_name);
    free(t->pl_uid);
    free(t);
}

gw_apf_t *
gw_apf_new(int server_cl)
{
    gw_apf_t *a = gw_calloc(1, sizeof(*a));
    pthread_mutex_init(&a->lock, NULL);
    a->server_cl = server_cl;
    gw_apf_configure(a, NULL, NULL);
    gw_apf__scrape_register(a);
    return a;
}

void
gw_apf_free(gw_apf_t *a)
{
    if (a == NULL)
        return;
    gw_apf__scrape_unregister(a);
    while (a->lingering != NULL) {
        gw_apf_ticket_t *t = a->lingering;
        a->lingering = t->next;
        ticket_free(t);
    }
    gw_apf__watches_free(a);
    while (a->levels != NULL) {
        level_t *l = a->levels;
        a->levels = l->next;
        free(l->name);
        free(l->uid);
        free(l->queues);
        free(l);
    }
    while (a->series != NULL) {
        series_t *s = a->series;
        a->series = s->next;
        free(s->fs);
        free(s->pl);
        free(s);
    }
    free(a->fss);
    json_decref(a->fs_objs);
    pthread_mutex_destroy(&a->lock);
    free(a);
}

/* ---- fair queuing ------------------------------------------------------------------------- */

static int
active_queues(const level_t *pl)
{
    int n = 0;
    for (int i = 0; i < pl->n_queues; i++)
        n += pl->queues[i].n_waiting > 0 || pl->queues[i].seats_in_use > 0;
    return n;
}

/* R advances at the rate each active queue is served: the seats in use shared among them. */
static void
advance_r(level_t *pl, int64_t now_ns)
{
    int active = active_queues(pl);
    if (now_ns == 0)
        return;
    if (active > 0 && pl->last_ns != 0) {
        int busy = pl->seats_in_use < pl->cl ? pl->seats_in_use : pl->cl;
        pl->current_r += (double)(now_ns - pl->last_ns) / 1e9 * busy / active;
    }
    pl->last_ns = now_ns;
}

static void
unlink_ticket(level_t *pl, gw_apf_ticket_t *t)
{
    queue_t *q = &pl->queues[t->queue];

    pl->waiting--;
    t->s->inqueue--;
    t->s->inqueue_seats -= t->seats;
    if (t->prev != NULL)
        t->prev->next = t->next;
    else
        q->head = t->next;
    if (t->next != NULL)
        t->next->prev = t->prev;
    else
        q->tail = t->prev;
    t->prev = t->next = NULL;
    q->n_waiting--;
    q->waiting_seats -= t->seats;
    pl->waiting_seats -= t->seats;
}

static void
start(level_t *pl, gw_apf_ticket_t *t, int64_t now_ns)
{
    t->state = T_EXECUTING;
    t->started_ns = now_ns;
    pl->seats_in_use += t->seats;
    pl->executing++;
    pl->dispatched++;
    t->s->executing++;
    t->s->seats += t->seats;
    t->s->dispatched++;
    observe_wait(t->s, true, t->waited_ns);
    if (t->queue >= 0 && t->queue < pl->n_queues) {
        queue_t *q = &pl->queues[t->queue];
        q->seats_in_use += t->seats;
        q->next_r += t->seats * EST_SECONDS;
    }
}

/* The non-empty queue with the least next R (kube's findDispatchQueue). */
static queue_t *
next_queue(level_t *pl)
{
    queue_t *best = NULL;
    for (int i = 0; i < pl->n_queues; i++) {
        queue_t *q = &pl->queues[i];
        if (q->n_waiting > 0 && (best == NULL || q->next_r < best->next_r))
            best = q;
    }
    return best;
}

/* kube's canAccommodateSeatsLocked: a request wider than the whole limit runs alone */
static bool
fits(const level_t *pl, int seats)
{
    if (seats > pl->cl)
        return pl->executing == 0;
    return pl->seats_in_use + seats <= pl->cl;
}

/* Dispatch as many waiting requests as the limit allows; each but `admitting` is woken. */
static void
dispatch(level_t *pl, int64_t now_ns, const gw_apf_ticket_t *admitting)
{
    queue_t *q;

    advance_r(pl, now_ns);
    while (pl->waiting > 0 && (q = next_queue(pl)) != NULL && fits(pl, q->head->seats)) {
        gw_apf_ticket_t *t = q->head;
        unlink_ticket(pl, t);
        t->waited_ns = now_ns - t->enqueued_ns;
        start(pl, t, now_ns);
        if (t != admitting)
            t->wake(t->ctx);
    }
    gw_apf__demand_note(pl, now_ns);
}

/* Shuffle sharding: the least loaded queue of the flow's hand. */
static int
choose_queue(const level_t *pl, uint64_t hash)
{
    int hand[pl->hand > 0 ? pl->hand : 1];
    int best = -1, best_load = 0;

    gw_apf_deal(hash, pl->n_queues, pl->hand, hand);
    for (int i = 0; i < pl->hand; i++) {
        const queue_t *q = &pl->queues[hand[i]];
        int load = q->waiting_seats + q->seats_in_use;
        if (best < 0 || load < best_load) {
            best = hand[i];
            best_load = load;
        }
    }
    return best;
}

/* ---- requests ----------------------------------------------------------------------------- */

static gw_apf_ticket_t *
ticket_new(gw_apf_t *a, const fs_t *f)
{
    gw_apf_ticket_t *t = gw_calloc(1, sizeof(*t));
    const json_t *md = json_object_get(f->obj, "metadata");
    const char *uid = json_string_value(json_object_get(md, "uid"));

    t->pl = f->pl;
    t->fs = gw_strdup(json_string_value(json_object_get(md, "name")));
    t->fs_uid = gw_strdup(uid != NULL ? uid : "");
    t->pl_name = gw_strdup(f->pl->name);
    t->pl_uid = gw_strdup(f->pl->uid);
    t->s = series_get(a, t->fs, t->pl_name);
    t->queue = -1;
    t->queue_len = -1;
    t->executed = -1;
    t->watch_count = -1;
    return t;
}

static const fs_t *
classify(const gw_apf_t *a, const gw_apf_digest_t *d)
{
    for (size_t i = 0; i < a->n_fss; i++) {
        if (gw_apf_fs_matches(a->fss[i].obj, d))
            return &a->fss[i];
    }
    /* catch-all matches every authenticated or unauthenticated user; a request of neither
     * group still lands there, as kube's controller does */
    for (size_t i = 0; i < a->n_fss; i++) {
        const char *n =
            json_string_value(json_object_get(json_object_get(a->fss[i].obj, "metadata"), "name"));
        if (strcmp(n, "catch-all") == 0)
            return &a->fss[i];
    }
    return NULL;
}

static gw_apf_verdict_t
reject(gw_apf_ticket_t *t, const char *reason)
{
    t->state = T_REJECTED;
    t->reason = reason;
    t->pl->rejected[gw_apf__reason_index(reason)]++;
    t->s->rejected[gw_apf__reason_index(reason)]++;
    observe_wait(t->s, false, t->waited_ns);
    return GW_APF_REJECT;
}

static bool
is_mutating(const gw_apf_digest_t *d)
{
    const char *v = d->verb != NULL ? d->verb : "";
    return strcmp(v, "create") == 0 || strcmp(v, "update") == 0 || strcmp(v, "patch") == 0 ||
           strcmp(v, "delete") == 0;
}

/* kube's work estimate, once the level is known: the caller's list estimate held to the level's
 * most, or the mutating estimate from the watches that will see the change. */
static void
estimate(gw_apf_t *a, const gw_apf_digest_t *d, int seats, gw_apf_ticket_t *t)
{
    int most = t->pl->max_seats > 0 && t->pl->max_seats < MAX_SEATS_LIMIT ? t->pl->max_seats
                                                                          : MAX_SEATS_LIMIT;
    t->seats = seats < 1 ? 1 : seats > most ? most : seats;
    if (!is_mutating(d))
        return;
    t->seats = 1;
    /* a service account's token request makes no event */
    if (d->resource != NULL && strcmp(d->resource, "serviceaccounts") == 0 &&
        d->subresource != NULL && strcmp(d->subresource, "token") == 0)
        return;
    t->watch_count = gw_apf__watches_interested(a, d);
    if (t->watch_count < WATCHES_PER_SEAT)
        return;
    int final = (t->watch_count + WATCHES_PER_SEAT - 1) / WATCHES_PER_SEAT;
    double work = final * EVENT_SECONDS; /* seat-seconds, kept whatever the cap */
    t->seats = final > most ? most : final;
    t->extra_ns = (int64_t)(work / t->seats * 1e9);
}

static gw_apf_verdict_t
admit_locked(const fs_t *f, const gw_apf_digest_t *d, int64_t now_ns, gw_apf_ticket_t *t)
{
    level_t *pl = t->pl;
    if (pl->exempt) {
        start(pl, t, now_ns);
        gw_apf__demand_note(pl, now_ns);
        return GW_APF_EXECUTE;
    }
    if (pl->reject || pl->n_queues == 0) {
        /* a level of no nominal seats is a jail, whatever it could borrow */
        if (pl->nominal == 0 || !fits(pl, t->seats))
            return reject(t, GW_APF_REASON_CONCURRENCY);
        start(pl, t, now_ns);
        gw_apf__demand_note(pl, now_ns);
        return GW_APF_EXECUTE;
    }
    advance_r(pl, now_ns);
    t->queue = choose_queue(pl, gw_apf_flow_hash(t->fs, gw_apf_distinguisher(f->obj, d)));
    queue_t *q = &pl->queues[t->queue];
    if (q->n_waiting >= pl->qlen)
        return reject(t, GW_APF_REASON_QUEUE_FULL);
    if (q->n_waiting == 0 && q->seats_in_use == 0)
        q->next_r = pl->current_r;
    t->prev = q->tail;
    if (q->tail != NULL)
        q->tail->next = t;
    else
        q->head = t;
    q->tail = t;
    q->n_waiting++;
    q->waiting_seats += t->seats;
    pl->waiting_seats += t->seats;
    pl->waiting++;
    t->s->inqueue++;
    t->s->inqueue_seats += t->seats;
    t->queue_len = q->n_waiting;
    t->state = T_WAITING;
    t->enqueued_ns = now_ns;
    dispatch(pl, now_ns, t);
    if (t->state == T_EXECUTING) {
        t->waited_ns = 0;
        return GW_APF_EXECUTE;
    }
    return GW_APF_QUEUED;
}

gw_apf_verdict_t
gw_apf_admit(gw_apf_t *a, const gw_apf_digest_t *d, int seats, int64_t now_ns,
             void (*wake)(void *ctx), void *ctx, gw_apf_ticket_t **out)
{
    gw_apf_verdict_t v;
    const fs_t *f;

    pthread_mutex_lock(&a->lock);
    f = classify(a, d);
    *out = ticket_new(a, f);
    (*out)->wake = wake;
    (*out)->ctx = ctx;
    (*out)->watch = strcmp(d->verb, "watch") == 0;
    estimate(a, d, seats, *out);
    v = admit_locked(f, d, now_ns, *out);
    pthread_mutex_unlock(&a->lock);
    gw_apf__observe_admitted(*out);
    if ((*out)->watch_count >= 0)
        gw_apf__observe_watch_count(*out);
    return v;
}

bool
gw_apf_cancel(gw_apf_t *a, gw_apf_ticket_t *t, int64_t now_ns)
{
    bool waiting;

    pthread_mutex_lock(&a->lock);
    waiting = t->state == T_WAITING;
    if (waiting) {
        unlink_ticket(t->pl, t);
        t->waited_ns = now_ns - t->enqueued_ns;
        reject(t, GW_APF_REASON_TIMEOUT);
        gw_apf__demand_note(t->pl, now_ns);
    }
    pthread_mutex_unlock(&a->lock);
    return waiting;
}

/* The request stops executing (its seats may stay a while yet). */
static void
finish_locked(gw_apf_ticket_t *t, int64_t now_ns)
{
    t->executed = (double)(now_ns - t->started_ns) / 1e9;
    t->pl->executing--;
    t->s->executing--;
}

/* Give t's seats back; true when it was executing until now. */
static bool
release_locked(gw_apf_ticket_t *t, int64_t now_ns)
{
    level_t *pl = t->pl;
    bool executing = t->state == T_EXECUTING;

    if (!executing && t->state != T_LINGERING)
        return false;
    t->state = T_RELEASED;
    if (executing)
        finish_locked(t, now_ns);
    advance_r(pl, now_ns);
    pl->seats_in_use -= t->seats;
    t->s->seats -= t->seats;
    if (t->queue >= 0 && t->queue < pl->n_queues) {
        queue_t *q = &pl->queues[t->queue];
        double took = t->executed;
        q->seats_in_use -= t->seats;
        if (q->seats_in_use < 0)
            q->seats_in_use = 0;
        /* the estimate charged at dispatch, replaced by the work really done */
        q->next_r += t->seats * (took - EST_SECONDS);
    }
    dispatch(pl, now_ns, NULL);
    return executing;
}

void
gw_apf_release(gw_apf_t *a, gw_apf_ticket_t *t, int64_t now_ns)
{
    pthread_mutex_lock(&a->lock);
    bool released = release_locked(t, now_ns);
    pthread_mutex_unlock(&a->lock);
    if (released)
        gw_apf__observe_released(t);
}

/* The request ended but its seats stay for its additional latency (kube's queueset). The
 * dispatcher owns the ticket from now on; observed here, as it may go any time after. */
static int64_t
linger_locked(gw_apf_t *a, gw_apf_ticket_t *t, int64_t now_ns)
{
    finish_locked(t, now_ns);
    gw_apf__demand_note(t->pl, now_ns);
    gw_apf__observe_released(t);
    t->state = T_LINGERING;
    t->expires_ns = now_ns + t->extra_ns;
    t->next = a->lingering;
    a->lingering = t;
    return t->extra_ns;
}

int64_t
gw_apf_done(gw_apf_t *a, gw_apf_ticket_t *t, int64_t now_ns)
{
    if (t == NULL)
        return 0;
    pthread_mutex_lock(&a->lock);
    if (t->state == T_WAITING) { /* never woken: the request ended otherwise */
        unlink_ticket(t->pl, t);
        t->waited_ns = now_ns - t->enqueued_ns;
        reject(t, GW_APF_REASON_CANCELLED);
        gw_apf__demand_note(t->pl, now_ns);
    }
    if (t->state == T_EXECUTING && t->extra_ns > 0) {
        int64_t linger = linger_locked(a, t, now_ns);
        pthread_mutex_unlock(&a->lock);
        return linger;
    }
    bool released = release_locked(t, now_ns);
    pthread_mutex_unlock(&a->lock);
    if (released)
        gw_apf__observe_released(t);
    ticket_free(t);
    return 0;
}

void
gw_apf_expire(gw_apf_t *a, int64_t now_ns)
{
    gw_apf_ticket_t *gone = NULL;

    pthread_mutex_lock(&a->lock);
    for (gw_apf_ticket_t **p = &a->lingering; *p != NULL;) {
        gw_apf_ticket_t *t = *p;
        if (t->expires_ns > now_ns) {
            p = &t->next;
            continue;
        }
        *p = t->next;
        release_locked(t, now_ns);
        t->next = gone;
        gone = t;
    }
    pthread_mutex_unlock(&a->lock);
    while (gone != NULL) {
        gw_apf_ticket_t *t = gone;
        gone = t->next;
        ticket_free(t);
    }
}

const char *
gw_apf_ticket_fs(const gw_apf_ticket_t *t)
{
    return t->fs;
}

const char *
gw_apf_ticket_fs_uid(const gw_apf_ticket_t *t)
{
    return t->fs_uid;
}

const char *
gw_apf_ticket_pl(const gw_apf_ticket_t *t)
{
    return t->pl_name;
}

const char *
gw_apf_ticket_pl_uid(const gw_apf_ticket_t *t)
{
    return t->pl_uid;
}

const char *
gw_apf_ticket_reason(const gw_apf_ticket_t *t)
{
    return t->reason;
}

int
gw_apf_ticket_seats(const gw_apf_ticket_t *t)
{
    return t->seats;
}

int64_t
gw_apf_ticket_waited_ns(const gw_apf_ticket_t *t)
{
    return t->waited_ns;
}

void
gw_apf_each_level(gw_apf_t *a, void (*fn)(const gw_apf_level_stats_t *s, void *ctx), void *ctx)
{
    pthread_mutex_lock(&a->lock);
    for (level_t *l = a->levels; l != NULL; l = l->next) {
        if (!l->active && l->executing == 0 && l->waiting == 0)
            continue;
        gw_apf_level_stats_t s = {.name = l->name,
                                  .exempt = l->exempt,
                                  .nominal_seats = l->nominal,
                                  .current_seats = l->cl,
                                  .lower_seats = l->min_cl,
                                  .upper_seats = l->max_cl,
                                  .executing = l->executing,
                                  .seats_executing = l->seats_in_use,
                                  .waiting = l->waiting,
                                  .dispatched = l->dispatched};
        memcpy(s.rejected, l->rejected, sizeof(s.rejected));
        fn(&s, ctx);
    }
    pthread_mutex_unlock(&a->lock);
}
