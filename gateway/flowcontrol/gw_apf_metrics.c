/* kube's apiserver_flowcontrol_* metrics in the Prometheus text format. */
#include <stdio.h>
#include <stdlib.h>

#include "gw_apf_int.h"
#include "gw_clock.h"

/* kube's bucket bounds of its timing ratio histograms */
static const double seat_util_bounds[] = {0,   0.1, 0.2, 0.3,  0.4,  0.5, 0.6,
                                          0.7, 0.8, 0.9, 0.95, 0.99, 1};
static const double request_util_bounds[] = {0, 0.001, 0.003, 0.01, 0.03, 0.1, 0.25, 0.5, 0.75, 1};
static const double demand_bounds[] = {0.2, 0.4, 0.6, 0.8, 1, 1.2, 1.4, 1.7, 2, 2.8, 4, 6};
#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

static void
timing_add(timing_t *h, const double *bounds, size_t n, double ratio, double secs)
{
    size_t b = 0;
    while (b < n && ratio > bounds[b])
        b++;
    h->secs[b] += secs;
    h->sum += ratio * secs;
    h->total += secs;
}

/* kube's denominators: the current limit, or while that is 0 a tenth of the server's */
void
gw_apf__timing_note(level_t *pl, int64_t now_ns)
{
    level_timing_t *t = &pl->timing;

    if (t->since_ns != 0 && now_ns > t->since_ns) {
        double secs = (double)(now_ns - t->since_ns) / 1e9;
        double seats = pl->cl > 0 ? pl->cl : pl->spare_denom > 0 ? pl->spare_denom : 1;
        double room = (double)(pl->qlen > 1 ? pl->qlen : 1) * (pl->n_queues > 1 ? pl->n_queues : 1);
        timing_add(&t->seat_util, seat_util_bounds, N_OF(seat_util_bounds), t->seats / seats, secs);
        timing_add(&t->exec_util, request_util_bounds, N_OF(request_util_bounds),
                   t->executing / seats, secs);
        timing_add(&t->wait_util, request_util_bounds, N_OF(request_util_bounds), t->waiting / room,
                   secs);
        timing_add(&t->demand_util, demand_bounds, N_OF(demand_bounds), t->demand / seats, secs);
    }
    if (now_ns > t->since_ns)
        t->since_ns = now_ns;
    t->seats = pl->seats_in_use;
    t->executing = pl->executing;
    t->waiting = pl->waiting;
    t->demand = pl->seats_in_use + pl->waiting_seats;
}

/* One series of a timing histogram: `labels` without braces. */
static void
timing_series(FILE *out, const char *name, const char *labels, const timing_t *h,
              const double *bounds, size_t n)
{
    double cum = 0;
    for (size_t b = 0; b < n; b++) {
        cum += h->secs[b];
        fprintf(out, "%s_bucket{%s,le=\"%g\"} %.9g\n", name, labels, bounds[b], cum);
    }
    fprintf(out, "%s_bucket{%s,le=\"+Inf\"} %.9g\n", name, labels, h->total);
    fprintf(out, "%s_sum{%s} %.9g\n%s_count{%s} %.9g\n", name, labels, h->sum, name, labels,
            h->total);
}

static void
timings(FILE *out, level_t *all, int64_t now_ns)
{
    const char *seat = "apiserver_flowcontrol_priority_level_seat_utilization";
    const char *req = "apiserver_flowcontrol_priority_level_request_utilization";
    const char *dem = "apiserver_flowcontrol_demand_seats";
    char labels[512];

    for (level_t *l = all; l != NULL; l = l->next)
        gw_apf__timing_note(l, now_ns);
    fprintf(out, "# HELP %s [ALPHA] %s\n# TYPE %s histogram\n", dem,
            "Seats each priority level used or waited for, over its current limit, in every "
            "nanosecond",
            dem);
    for (const level_t *l = all; l != NULL; l = l->next) {
        snprintf(labels, sizeof(labels), "priority_level=\"%s\"", l->name);
        timing_series(out, dem, labels, &l->timing.demand_util, demand_bounds, N_OF(demand_bounds));
    }
    fprintf(out, "# HELP %s [ALPHA] %s\n# TYPE %s histogram\n", req,
            "Requests executing (over the current limit) or waiting (over the queues' room) in "
            "each priority level, in every nanosecond",
            req);
    for (const level_t *l = all; l != NULL; l = l->next) {
        snprintf(labels, sizeof(labels), "phase=\"executing\",priority_level=\"%s\"", l->name);
        timing_series(out, req, labels, &l->timing.exec_util, request_util_bounds,
                      N_OF(request_util_bounds));
        snprintf(labels, sizeof(labels), "phase=\"waiting\",priority_level=\"%s\"", l->name);
        timing_series(out, req, labels, &l->timing.wait_util, request_util_bounds,
                      N_OF(request_util_bounds));
    }
    fprintf(out, "# HELP %s [ALPHA] %s\n# TYPE %s histogram\n", seat,
            "Seats in use in each priority level over its current limit, in every nanosecond",
            seat);
    for (const level_t *l = all; l != NULL; l = l->next) {
        snprintf(labels, sizeof(labels), "phase=\"executing\",priority_level=\"%s\"", l->name);
        timing_series(out, seat, labels, &l->timing.seat_util, seat_util_bounds,
                      N_OF(seat_util_bounds));
    }
}

static void
head(FILE *out, const char *name, const char *type, const char *help)
{
    fprintf(out, "# HELP %s [BETA] %s\n# TYPE %s %s\n", name, help, name, type);
}

static void
per_series(FILE *out, const series_t *all, const char *name, const char *type, const char *help,
           int which)
{
    head(out, name, type, help);
    for (const series_t *s = all; s != NULL; s = s->next) {
        long long v = which == 0   ? (long long)s->dispatched
                      : which == 1 ? s->inqueue
                      : which == 2 ? s->executing
                                   : s->seats;
        fprintf(out, "%s{flow_schema=\"%s\",priority_level=\"%s\"} %lld\n", name, s->fs, s->pl, v);
    }
}

static void
rejected(FILE *out, const series_t *all)
{
    const char *name = "apiserver_flowcontrol_rejected_requests_total";

    head(out, name, "counter",
         "Requests refused by priority and fairness, by flow schema, level and why");
    for (const series_t *s = all; s != NULL; s = s->next) {
        for (int i = 0; i < 4; i++) {
            if (s->rejected[i] > 0)
                fprintf(out, "%s{flow_schema=\"%s\",priority_level=\"%s\",reason=\"%s\"} %llu\n",
                        name, s->fs, s->pl, gw_apf__reasons[i], (unsigned long long)s->rejected[i]);
        }
    }
}

static void
waits(FILE *out, const series_t *all)
{
    const char *name = "apiserver_flowcontrol_request_wait_duration_seconds";

    head(out, name, "histogram",
         "Seconds requests waited in a queue before running or being refused");
    for (const series_t *s = all; s != NULL; s = s->next) {
        for (int e = 1; e >= 0; e--) {
            const char *ex = e ? "true" : "false";
            uint64_t cum = 0;
            if (s->wait_n[e] == 0)
                continue;
            for (int b = 0; b < WAIT_BUCKETS; b++) {
                cum += s->wait_counts[e][b];
                fprintf(out,
                        "%s_bucket{execute=\"%s\",flow_schema=\"%s\",priority_level=\"%s\","
                        "le=\"%g\"} %llu\n",
                        name, ex, s->fs, s->pl, gw_apf__wait_buckets[b], (unsigned long long)cum);
            }
            fprintf(out,
                    "%s_bucket{execute=\"%s\",flow_schema=\"%s\",priority_level=\"%s\","
                    "le=\"+Inf\"} %llu\n",
                    name, ex, s->fs, s->pl, (unsigned long long)s->wait_n[e]);
            fprintf(out, "%s_sum{execute=\"%s\",flow_schema=\"%s\",priority_level=\"%s\"} %.9g\n",
                    name, ex, s->fs, s->pl, s->wait_sum[e]);
            fprintf(out, "%s_count{execute=\"%s\",flow_schema=\"%s\",priority_level=\"%s\"} %llu\n",
                    name, ex, s->fs, s->pl, (unsigned long long)s->wait_n[e]);
        }
    }
}

static void
levels(FILE *out, const level_t *all)
{
    const char *name = "apiserver_flowcontrol_nominal_limit_seats";

    head(out, name, "gauge", "Seats each priority level is given of this instance's limit");
    for (const level_t *l = all; l != NULL; l = l->next) {
        if (l->active)
            fprintf(out, "%s{priority_level=\"%s\"} %d\n", name, l->name, l->nominal);
    }
}

char *
gw_apf_metrics(gw_apf_t *a)
{
    char *text = NULL;
    size_t len;
    FILE *out = open_memstream(&text, &len);

    if (out == NULL)
        abort();
    pthread_mutex_lock(&a->lock);
    per_series(out, a->series, "apiserver_flowcontrol_dispatched_requests_total", "counter",
               "Requests let through by priority and fairness, by flow schema and level", 0);
    rejected(out, a->series);
    per_series(out, a->series, "apiserver_flowcontrol_current_inqueue_requests", "gauge",
               "Requests waiting in a queue now", 1);
    per_series(out, a->series, "apiserver_flowcontrol_current_executing_requests", "gauge",
               "Requests holding seats now (a watch only while it starts)", 2);
    per_series(out, a->series, "apiserver_flowcontrol_current_executing_seats", "gauge",
               "Seats held now by running requests (a watch only while it starts)", 3);
    levels(out, a->levels);
    waits(out, a->series);
    timings(out, a->levels, gw_monotonic_ns());
    pthread_mutex_unlock(&a->lock);
    if (fclose(out) != 0)
        abort();
    return text;
}
