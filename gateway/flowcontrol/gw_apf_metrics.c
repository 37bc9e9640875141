/* kube's apiserver_flowcontrol_* metrics in the Prometheus text format. */
#include <stdio.h>
#include <stdlib.h>

#include "gw_apf_int.h"

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
    pthread_mutex_unlock(&a->lock);
    if (fclose(out) != 0)
        abort();
    return text;
}
