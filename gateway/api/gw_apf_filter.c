/* The in-flight limit step of the chain: kube's WithPriorityAndFairness filter (classification,
 * admission, a queued request parked until its worker is woken, kube's headers and 429), or
 * with --enable-priority-and-fairness=false kube's WithMaxInFlightLimit. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "gw_api_int.h"
#include "gw_apf.h"
#include "gw_clock.h"
#include "gw_req.h"
#include "gw_server.h"
#include "gw_store.h"

#define PRIVILEGED_GROUP "system:masters"
#define FS_UID_HEADER "X-Kubernetes-PF-FlowSchema-UID"
#define PL_UID_HEADER "X-Kubernetes-PF-PriorityLevel-UID"
/* kube's answer to a request it will not serve now (filters.tooManyRequests: http.Error) */
#define TOO_MANY "Too many requests, please try again later.\n"

/* ---- without APF: kube's max-in-flight limits ----------------------------------------------- */

static bool
privileged(const authn_user_t *u)
{
    for (size_t i = 0; u != NULL && i < u->n_groups; i++) {
        if (strcmp(u->groups[i], PRIVILEGED_GROUP) == 0)
            return true;
    }
    return false;
}

static gw_verdict_t
max_inflight(gw_req_t *r)
{
    gw_api__req_t *p = GW_API_REQ(r);
    if (r->long_running)
        return GW_NEXT;
    _Atomic int64_t *count = r->mutating ? &p->api->inflight_mutating : &p->api->inflight_readonly;
    int limit = r->mutating ? p->api->cfg.max_mutating_requests_inflight
                            : p->api->cfg.max_requests_inflight;
    int64_t now = atomic_fetch_add(count, 1) + 1;
    p->inflight = r->mutating ? INFLIGHT_MUTATING : INFLIGHT_READONLY;
    /* As kube does, system:masters is always answered. */
    if (limit == 0 || now <= limit || privileged(r->user))
        return GW_NEXT;
    gw_reply_status(r, 429, "TooManyRequests", json_pack("{s:i}", "retryAfterSeconds", 1),
                    "Too many requests, please try again later.");
    return GW_DONE;
}

/* ---- API Priority and Fairness ----------------------------------------------------------------
 */

static void
reply_rejected(gw_req_t *r)
{
    gw_req_set_header(r, "Retry-After", "1");
    gw_req_set_header(r, "X-Content-Type-Options", "nosniff");
    gw_reply_raw(r, 429, "text/plain; charset=utf-8", TOO_MANY, strlen(TOO_MANY));
}

static bool
sends_initial_events(gw_req_t *r)
{
    const char *initial = gw_req_query(r, "sendInitialEvents");
    return strcmp(r->info.verb, "watch") == 0 && initial != NULL && strcmp(initial, "true") == 0;
}

/* The request executes: a watch holds its seats only while it initialises (kube). One that
 * sends initial events holds them until the watch handler says they are written
 * (gw_req_watch_initialized); another is subscribed by the time its handler returns, so its
 * seats go back now. */
static void
executing(gw_req_t *r)
{
    gw_api__req_t *p = GW_API_REQ(r);
    if (r->long_running) {
        if (!sends_initial_events(r))
            gw_apf_release(p->api->cfg.apf, p->apf_ticket, gw_monotonic_ns());
        return;
    }
    /* apiserver_current_inflight_requests counts what executes, as kube's watermarks */
    atomic_fetch_add(r->mutating ? &p->api->inflight_mutating : &p->api->inflight_readonly, 1);
    p->inflight = r->mutating ? INFLIGHT_MUTATING : INFLIGHT_READONLY;
}

/* A seat was granted: called under the apf mutex from any thread; only posts to r's worker. */
static void
granted(void *ctx)
{
    event_active(GW_API_REQ(ctx)->apf_wake, EV_READ, 0);
}

static void
on_granted(evutil_socket_t fd, short what, void *arg)
{
    gw_req_t *r = arg;
    (void)fd, (void)what;

    evtimer_del(GW_API_REQ(r)->apf_timeout);
    executing(r);
    gw_chain_resume(r);
}

/* The wait limit passed: 429, unless the seat was granted meanwhile (on_granted then runs). */
static void
on_timeout(evutil_socket_t fd, short what, void *arg)
{
    gw_req_t *r = arg;
    (void)fd, (void)what;

    if (gw_apf_cancel(GW_API_REQ(r)->api->cfg.apf, GW_API_REQ(r)->apf_ticket, gw_monotonic_ns()))
        reply_rejected(r);
}

static void
park(gw_req_t *r)
{
    struct timeval limit = {GW_APF_WAIT_LIMIT_MS / 1000, (GW_APF_WAIT_LIMIT_MS % 1000) * 1000};

    evtimer_add(GW_API_REQ(r)->apf_timeout, &limit);
}

#define MIN_SEATS 1
#define MAX_SEATS 10         /* kube's MaximumSeatsLimit */
#define OBJECTS_PER_SEAT 100 /* kube's list work estimator */

/* kube's list work estimator: a LIST (or a watch that sends its initial events) takes a seat
 * per 100 objects it will go through, from the resource's last object count; an unknown count
 * is one seat (kube's ObjectCountNotFound), an unparsable limit the most. */
static int
work_seats(gw_req_t *r)
{
    const char *verb = r->info.verb;
    if (strcmp(verb, "list") != 0 && !sends_initial_events(r))
        return MIN_SEATS;
    /* the handler resolves the resource after this filter: look it up now */
    const gw_resource_t *res =
        r->catalog != NULL
            ? gw_catalog_find(r->catalog, r->info.group, r->info.version, r->info.resource)
            : NULL;
    if (res == NULL || res->storage_path == NULL)
        return MIN_SEATS;
    int64_t stored = gw_store_object_count(res->storage_path);
    if (stored < 0)
        return MIN_SEATS;
    const char *limit_text = gw_req_query(r, "limit");
    char *end = NULL;
    long long limit = limit_text != NULL ? strtoll(limit_text, &end, 10) : 0;
    if (limit_text != NULL && (*limit_text == '\0' || *end != '\0'))
        return MAX_SEATS;
    if (limit <= 0 || limit > stored)
        limit = stored;
    const char *rv = gw_req_query(r, "resourceVersion");
    bool from_cache = strcmp(verb, "watch") == 0 || (rv != NULL && strcmp(rv, "0") == 0);
    bool selective =
        gw_req_query(r, "labelSelector") != NULL || gw_req_query(r, "fieldSelector") != NULL;
    int64_t objects = from_cache ? stored : selective ? stored + limit : 2 * limit;
    int64_t seats = (objects + OBJECTS_PER_SEAT - 1) / OBJECTS_PER_SEAT;
    return seats < MIN_SEATS ? MIN_SEATS : seats > MAX_SEATS ? MAX_SEATS : (int)seats;
}

static gw_verdict_t
apf(gw_req_t *r)
{
    gw_api__req_t *p = GW_API_REQ(r);
    const gw_reqinfo_t *i = &r->info;
    const authn_user_t *u = r->user;
    struct event_base *base = gw_worker_base(r->worker);
    gw_apf_digest_t d = {.user = u != NULL ? u->name : "",
                         .groups = u != NULL ? (const char *const *)u->groups : NULL,
                         .n_groups = u != NULL ? u->n_groups : 0,
                         .is_resource = i->is_resource,
                         .verb = i->verb,
                         .path = i->path,
                         .api_group = i->group,
                         .resource = i->resource,
                         .subresource = i->subresource,
                         .namespace_ = i->namespace_,
                         .name = i->name};

    /* kube tracks no long-running request but watches */
    if (r->long_running && strcmp(i->verb, "watch") != 0)
        return GW_NEXT;
    /* kube counts a watch for the mutating work estimator from before its admission */
    if (strcmp(i->verb, "watch") == 0)
        p->apf_watch = gw_apf_watch_register(p->api->cfg.apf, &d);
    /* both events exist before admission: a grant may come from another thread at once */
    p->apf_wake = event_new(base, -1, 0, on_granted, r);
    p->apf_timeout = evtimer_new(base, on_timeout, r);
    if (p->apf_wake == NULL || p->apf_timeout == NULL)
        abort();
    gw_apf_verdict_t v = gw_apf_admit(p->api->cfg.apf, &d, work_seats(r), gw_monotonic_ns(),
                                      granted, r, &p->apf_ticket);
    /* kube's headers name the matched objects by uid, on every answer */
    gw_req_set_header(r, FS_UID_HEADER, gw_apf_ticket_fs_uid(p->apf_ticket));
    gw_req_set_header(r, PL_UID_HEADER, gw_apf_ticket_pl_uid(p->apf_ticket));
    switch (v) {
    case GW_APF_EXECUTE:
        executing(r);
        return GW_NEXT;
    case GW_APF_QUEUED:
        park(r);
        return GW_SUSPEND;
    default:
        reply_rejected(r);
        return GW_DONE;
    }
}

gw_verdict_t
gw_api__limit_filter(gw_req_t *r)
{
    const char *v = r->info.verb;
    r->long_running = gw_reqinfo_long_running(&r->info);
    r->mutating = strcmp(v, "get") != 0 && strcmp(v, "list") != 0 && strcmp(v, "watch") != 0;
    if (GW_API_REQ(r)->api->cfg.apf == NULL)
        return max_inflight(r);
    return apf(r);
}
