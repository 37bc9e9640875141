/* kube's apiserver_flowcontrol_* families kept in the process's metric registry: histograms a
 * request observes once the apf mutex is released, and the gauges a scrape reads from the
 * dispatcher (the levels' limits and seat demand as the last adjustment left them). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_apf_int.h"
#include "gw_metric.h"

static const char *const pl_fs[] = {"priority_level", "flow_schema"};
static const char *const pl_fs_type[] = {"priority_level", "flow_schema", "type"};
static const char *const pl_only[] = {"priority_level"};

static const double seat_buckets[] = {1, 2, 4, 10};
static const double length_buckets[] = {0, 10, 25, 50, 100, 250, 500, 1000};
static const double watch_buckets[] = {0, 1, 10, 100, 1000, 10000};

static const gw_metric_desc_t watch_count_desc = {
    .name = "apiserver_flowcontrol_watch_count_samples",
    .help = "Watches interested in each mutating request",
    .stability = "ALPHA",
    .type = GW_METRIC_HISTOGRAM,
    .labels = pl_fs,
    .n_labels = 2,
    .buckets = watch_buckets,
    .n_buckets = 6,
};

static const gw_metric_desc_t estimated_desc = {
    .name = "apiserver_flowcontrol_work_estimated_seats",
    .help = "Seats each request was estimated to take (the most of its initial and final seats)",
    .stability = "ALPHA",
    .type = GW_METRIC_HISTOGRAM,
    .labels = pl_fs,
    .n_labels = 2,
    .buckets = seat_buckets,
    .n_buckets = 4,
};

static const gw_metric_desc_t length_desc = {
    .name = "apiserver_flowcontrol_request_queue_length_after_enqueue",
    .help = "How long its queue was once a request joined it",
    .stability = "ALPHA",
    .type = GW_METRIC_HISTOGRAM,
    .labels = pl_fs,
    .n_labels = 2,
    .buckets = length_buckets,
    .n_buckets = 8,
};

static const gw_metric_desc_t execution_desc = {
    .name = "apiserver_flowcontrol_request_execution_seconds",
    .help = "Seconds requests held their seats (a watch only while it starts)",
    .stability = "ALPHA",
    .type = GW_METRIC_HISTOGRAM,
    .labels = pl_fs_type,
    .n_labels = 3,
    .buckets = gw_apf__wait_buckets,
    .n_buckets = WAIT_BUCKETS,
};

static const gw_metric_desc_t inqueue_seats_desc = {
    .name = "apiserver_flowcontrol_current_inqueue_seats",
    .help = "Seats the requests waiting in queues now would take",
    .stability = "ALPHA",
    .type = GW_METRIC_GAUGE,
    .labels = pl_fs,
    .n_labels = 2,
};

static const gw_metric_desc_t in_use_desc = {
    .name = "apiserver_flowcontrol_request_concurrency_in_use",
    .help = "Seats held now by running requests (a watch only while it starts)",
    .stability = "ALPHA",
    .type = GW_METRIC_GAUGE,
    .labels = pl_fs,
    .n_labels = 2,
    .deprecated = "1.31",
};

static const gw_metric_desc_t fair_frac_desc = {
    .name = "apiserver_flowcontrol_seat_fair_frac",
    .help = "The share of its target each level that can use more was given at the last "
            "adjustment",
    .stability = "ALPHA",
    .type = GW_METRIC_GAUGE,
};

/* the per-level gauges, in the order level_values fills them */
#define N_LEVEL 9
static const gw_metric_desc_t level_descs[N_LEVEL] = {
    {"apiserver_flowcontrol_current_limit_seats",
     "Seats each priority level may use now, as borrowing last set it", "ALPHA", GW_METRIC_GAUGE,
     pl_only, 1, NULL, 0, NULL},
    {"apiserver_flowcontrol_lower_limit_seats",
     "The fewest seats each priority level keeps: its nominal seats less what it lends", "ALPHA",
     GW_METRIC_GAUGE, pl_only, 1, NULL, 0, NULL},
    {"apiserver_flowcontrol_upper_limit_seats",
     "The most seats each priority level may reach: its nominal seats plus what it borrows",
     "ALPHA", GW_METRIC_GAUGE, pl_only, 1, NULL, 0, NULL},
    {"apiserver_flowcontrol_demand_seats_high_watermark",
     "The most seats each priority level used or waited for in the last adjustment period", "ALPHA",
     GW_METRIC_GAUGE, pl_only, 1, NULL, 0, NULL},
    {"apiserver_flowcontrol_demand_seats_average",
     "Seats each priority level used or waited for, averaged over time in the last adjustment "
     "period",
     "ALPHA", GW_METRIC_GAUGE, pl_only, 1, NULL, 0, NULL},
    {"apiserver_flowcontrol_demand_seats_stdev",
     "The standard deviation over time of those seats in the last adjustment period", "ALPHA",
     GW_METRIC_GAUGE, pl_only, 1, NULL, 0, NULL},
    {"apiserver_flowcontrol_demand_seats_smoothed",
     "Each priority level's seat demand, smoothed over the adjustments", "ALPHA", GW_METRIC_GAUGE,
     pl_only, 1, NULL, 0, NULL},
    {"apiserver_flowcontrol_target_seats", "The seats each priority level was aimed at", "ALPHA",
     GW_METRIC_GAUGE, pl_only, 1, NULL, 0, NULL},
    {"apiserver_flowcontrol_current_r",
     "Each priority level's virtual clock (seat-seconds served per active queue)", "ALPHA",
     GW_METRIC_GAUGE, pl_only, 1, NULL, 0, NULL},
};

void
gw_apf__observe_admitted(const gw_apf_ticket_t *t)
{
    const char *v[] = {t->pl_name, t->fs};
    static gw_metric_t *_Atomic estimated, *_Atomic length;

    gw_metric_observe(gw_metric_cached(&estimated, &estimated_desc), v, t->seats);
    if (t->queue_len >= 0)
        gw_metric_observe(gw_metric_cached(&length, &length_desc), v, t->queue_len);
}

void
gw_apf__observe_watch_count(const gw_apf_ticket_t *t)
{
    const char *v[] = {t->pl_name, t->fs};
    static gw_metric_t *_Atomic family;

    gw_metric_observe(gw_metric_cached(&family, &watch_count_desc), v, t->watch_count);
}

void
gw_apf__observe_released(const gw_apf_ticket_t *t)
{
    const char *v[] = {t->pl_name, t->fs, t->watch ? "watch" : "regular"};
    static gw_metric_t *_Atomic execution;

    if (t->executed >= 0)
        gw_metric_observe(gw_metric_cached(&execution, &execution_desc), v, t->executed);
}

typedef struct {
    char *name;
    double v[N_LEVEL];
} level_values_t;

/* Copy what the gauges show under the apf mutex; set them once it is released. */
static void
refresh(void *arg)
{
    gw_apf_t *a = arg;
    size_t n = 0, n_series = 0, i = 0;
    double fair;

    pthread_mutex_lock(&a->lock);
    for (level_t *l = a->levels; l != NULL; l = l->next)
        n += l->active;
    for (series_t *s = a->series; s != NULL; s = s->next)
        n_series++;
    level_values_t *lv = gw_calloc(n + 1, sizeof(*lv));
    for (level_t *l = a->levels; l != NULL && i < n; l = l->next) {
        if (!l->active)
            continue;
        lv[i].name = gw_strdup(l->name);
        double v[N_LEVEL] = {l->cl,        l->min_cl,      l->max_cl,         l->stats.hwm,
                             l->stats.avg, l->stats.stdev, l->stats.smoothed, l->stats.target,
                             l->current_r};
        memcpy(lv[i].v, v, sizeof(v));
        i++;
    }
    char **names = gw_calloc(2 * n_series + 1, sizeof(*names));
    int *figures = gw_calloc(2 * n_series + 1, sizeof(*figures));
    i = 0;
    for (series_t *s = a->series; s != NULL; s = s->next, i++) {
        names[2 * i] = gw_strdup(s->pl);
        names[2 * i + 1] = gw_strdup(s->fs);
        figures[2 * i] = s->inqueue_seats;
        figures[2 * i + 1] = s->seats;
    }
    fair = a->fair_frac;
    pthread_mutex_unlock(&a->lock);

    for (i = 0; i < n; i++) {
        const char *v[] = {lv[i].name};
        for (int k = 0; k < N_LEVEL; k++)
            gw_metric_set(gw_metric_family(&level_descs[k]), v, lv[i].v[k]);
        free(lv[i].name);
    }
    for (i = 0; i < n_series; i++) {
        const char *v[] = {names[2 * i], names[2 * i + 1]};
        gw_metric_set(gw_metric_family(&inqueue_seats_desc), v, figures[2 * i]);
        gw_metric_set(gw_metric_family(&in_use_desc), v, figures[2 * i + 1]);
        free(names[2 * i]);
        free(names[2 * i + 1]);
    }
    gw_metric_set(gw_metric_family(&fair_frac_desc), NULL, fair);
    free(lv);
    free(names);
    free(figures);
}

void
gw_apf__scrape_register(gw_apf_t *a)
{
    gw_metric_on_scrape(refresh, a);
    a->scraped = true;
}

void
gw_apf__scrape_unregister(gw_apf_t *a)
{
    if (a->scraped)
        gw_metric_off_scrape(refresh, a);
    a->scraped = false;
}
