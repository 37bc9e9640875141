/* Auditing from the flags: policy, log backend and kube's audit metrics (in the process's
 * registry, gw_metric.h). */
#include "gw_audit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gw_alloc.h"
#include "gw_audit_log.h"
#include "gw_err.h"
#include "gw_log.h"
#include "gw_metric.h"

struct gw_audit {
    gw_audit_policy_t *policy;
    gw_audit_log_t *log;
};

/* ---- kube's audit metrics ---------------------------------------------------------------- */

static const char *const no_labels[1];
static const char *const level_labels[] = {"level"};
static const char *const plugin_labels[] = {"plugin"};

static const gw_metric_desc_t events_desc = {
    .name = "apiserver_audit_event_total",
    .help = "Audit events made and handed to the audit backend.",
    .stability = "ALPHA",
    .type = GW_METRIC_COUNTER,
};

static const gw_metric_desc_t levels_desc = {
    .name = "apiserver_audit_level_total",
    .help = "Audit policy levels requests were given (one per request), by level.",
    .stability = "ALPHA",
    .type = GW_METRIC_COUNTER,
    .labels = level_labels,
    .n_labels = 1,
};

static const gw_metric_desc_t errors_desc = {
    .name = "apiserver_audit_error_total",
    .help = "Audit events that could not be audited, by the backend plugin that lost them.",
    .stability = "ALPHA",
    .type = GW_METRIC_COUNTER,
    .labels = plugin_labels,
    .n_labels = 1,
};

static gw_metric_t *_Atomic events_family, *_Atomic levels_family;

/* The backend counts its losses; a scrape reads them: the buffered plugin's events dropped
 * on a full buffer, the log plugin's that could not be written. */
static void
read_errors(void *arg)
{
    const gw_audit_t *a = arg;
    gw_metric_t *m = gw_metric_family(&errors_desc);

    gw_metric_set(m, (const char *const[]){"buffered"}, (double)gw_audit_log_dropped(a->log));
    gw_metric_set(m, (const char *const[]){"log"}, (double)gw_audit_log_failed(a->log));
}

int
gw_audit_new(const gw_audit_opts_t *o, gw_audit_t **out, char *err, size_t err_len)
{
    gw_audit_policy_t *p;
    gw_audit_file_t *f;
    *out = NULL;
    /* kube's event counter is there, at 0, with auditing off too */
    gw_metric_add(gw_metric_cached(&events_family, &events_desc), no_labels, 0);
    if (o->policy_file == NULL || *o->policy_file == '\0' || o->log_path == NULL ||
        *o->log_path == '\0')
        return 0;
    p = gw_audit_policy_load(o->policy_file, err, err_len);
    if (p == NULL)
        return GW_EINVAL;
    f = gw_audit_file_open(o->log_path, (int64_t)o->max_size_mb * 1024 * 1024, o->max_age_days,
                           o->max_backups, err, err_len);
    if (f == NULL) {
        gw_audit_policy_free(p);
        return GW_EINVAL;
    }
    gw_audit_t *a = gw_calloc(1, sizeof(*a));
    a->policy = p;
    a->log =
        gw_audit_log_start(f, o->buffer_size > 0 ? (size_t)o->buffer_size : GW_AUDIT_LOG_BUFFER);
    gw_log_info(NULL, "audit: %zu policy rules from %s, events to %s", gw_audit_policy_rules(p),
                o->policy_file, o->log_path);
    gw_metric_on_scrape(read_errors, a);
    *out = a;
    return 0;
}

void
gw_audit_free(gw_audit_t *a)
{
    if (a == NULL)
        return;
    gw_metric_off_scrape(read_errors, a);
    gw_audit_log_stop(a->log);
    gw_audit_policy_free(a->policy);
    free(a);
}

gw_audit_decision_t
gw_audit_decide(gw_audit_t *a, const gw_audit_attrs_t *attrs)
{
    gw_audit_decision_t d = gw_audit_policy_eval(a->policy, attrs);
    gw_metric_add(gw_metric_cached(&levels_family, &levels_desc),
                  (const char *const[]){gw_audit_level_name(d.level)}, 1);
    return d;
}

int64_t
gw_audit_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

void
gw_audit_emit(gw_audit_t *a, const gw_audit_event_t *ev, gw_audit_stage_t stage)
{
    size_t len;
    char *line = gw_audit_event_encode(ev, stage, gw_audit_now_us(), &len);
    gw_metric_add(gw_metric_cached(&events_family, &events_desc), no_labels, 1);
    gw_audit_log_submit(a->log, line, len);
}
