#ifndef GATEWAY_AUDIT_GW_AUDIT_H
#define GATEWAY_AUDIT_GW_AUDIT_H

/*
 * The audit log as kube-apiserver's --audit-policy-file and --audit-log-* flags make it: the
 * policy that gives each request its level, the log backend events go to, and kube's audit
 * metrics. Without a policy file, or without a log path, there is no auditing at all (no
 * gw_audit_t): the request path then pays one pointer test. The request side (what an event
 * holds, when each stage is written) is gateway/api's; see README.md.
 */

#include <stdbool.h>
#include <stddef.h>

#include "gw_audit_event.h"
#include "gw_audit_policy.h"

/** The flags. Borrowed during gw_audit_new. */
typedef struct {
    const char *policy_file; /* --audit-policy-file; NULL: no auditing */
    const char *log_path;    /* --audit-log-path; "-": standard output; NULL: no auditing */
    const char *log_format;  /* --audit-log-format: "json" (checked by the flags) */
    int max_age_days;        /* --audit-log-maxage */
    int max_backups;         /* --audit-log-maxbackup */
    int max_size_mb;         /* --audit-log-maxsize; 0: lumberjack's 100 MB */
    int buffer_size;         /* --audit-log-batch-buffer-size */
} gw_audit_opts_t;

typedef struct gw_audit gw_audit_t;

/**
 * Load the policy and open the log as the flags say; *out is NULL when auditing is off. 0, or
 * GW_EINVAL with kube's message in err (a policy with errors, an unwritable log path): a
 * start-up error. Thread: main.
 */
int gw_audit_new(const gw_audit_opts_t *o, gw_audit_t **out, char *err, size_t err_len);

/** Write what is queued and free. NULL is fine. Thread: main, after the workers stopped. */
void gw_audit_free(gw_audit_t *a);

/** The policy's verdict on a request, counted in apiserver_audit_level_total. Thread: any. */
gw_audit_decision_t gw_audit_decide(gw_audit_t *a, const gw_audit_attrs_t *attrs);

/** Encode ev at `stage` (its stageTimestamp now) and hand it to the log without waiting;
 *  counted in apiserver_audit_event_total. The caller has left omitted stages out. Thread:
 *  any. */
void gw_audit_emit(gw_audit_t *a, const gw_audit_event_t *ev, gw_audit_stage_t stage);

/** Wall-clock microseconds since the epoch, the events' time base. Thread: any. */
int64_t gw_audit_now_us(void);

#endif
