/* Auditing from the flags: policy, log backend and kube's audit metrics. */
#include "gw_audit.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gw_alloc.h"
#include "gw_audit_log.h"
#include "gw_buf.h"
#include "gw_err.h"
#include "gw_log.h"

struct gw_audit {
    gw_audit_policy_t *policy;
    gw_audit_log_t *log;
    _Atomic uint64_t events;
    _Atomic uint64_t levels[4]; /* by gw_audit_level_t */
};

int
gw_audit_new(const gw_audit_opts_t *o, gw_audit_t **out, char *err, size_t err_len)
{
    gw_audit_policy_t *p;
    gw_audit_file_t *f;
    *out = NULL;
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
    *out = a;
    return 0;
}

void
gw_audit_free(gw_audit_t *a)
{
    if (a == NULL)
        return;
    gw_audit_log_stop(a->log);
    gw_audit_policy_free(a->policy);
    free(a);
}

gw_audit_decision_t
gw_audit_decide(gw_audit_t *a, const gw_audit_attrs_t *attrs)
{
    gw_audit_decision_t d = gw_audit_policy_eval(a->policy, attrs);
    atomic_fetch_add(&a->levels[d.level], 1);
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
    atomic_fetch_add(&a->events, 1);
    gw_audit_log_submit(a->log, line, len);
}

char *
gw_audit_metrics(const gw_audit_t *a)
{
    gw_audit_t *m = (gw_audit_t *)a;
    gw_buf_t b = {0};
    gw_buf_str(&b, "# HELP apiserver_audit_error_total [ALPHA] Counter of audit events that "
                   "failed to be audited properly. Plugin identifies the plugin affected by the "
                   "error.\n# TYPE apiserver_audit_error_total counter\n");
    if (m != NULL) {
        gw_buf_printf(&b, "apiserver_audit_error_total{plugin=\"buffered\"} %llu\n",
                      (unsigned long long)gw_audit_log_dropped(m->log));
        gw_buf_printf(&b, "apiserver_audit_error_total{plugin=\"log\"} %llu\n",
                      (unsigned long long)gw_audit_log_failed(m->log));
    }
    gw_buf_printf(&b,
                  "# HELP apiserver_audit_event_total [ALPHA] Counter of audit events generated "
                  "and sent to the audit backend.\n# TYPE apiserver_audit_event_total counter\n"
                  "apiserver_audit_event_total %llu\n",
                  m != NULL ? (unsigned long long)atomic_load(&m->events) : 0ULL);
    gw_buf_str(&b, "# HELP apiserver_audit_level_total [ALPHA] Counter of policy levels for "
                   "audit events (1 per request).\n# TYPE apiserver_audit_level_total counter\n");
    for (int l = 0; m != NULL && l < 4; l++) {
        gw_buf_printf(&b, "apiserver_audit_level_total{level=\"%s\"} %llu\n",
                      gw_audit_level_name((gw_audit_level_t)l),
                      (unsigned long long)atomic_load(&m->levels[l]));
    }
    return gw_buf_take(&b);
}
