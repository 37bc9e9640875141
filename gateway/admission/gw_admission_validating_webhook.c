/*
 * ValidatingAdmissionWebhook (k8s.io/apiserver/pkg/admission/plugin/webhook/validating): the
 * webhooks of the snapshot that should be called are chosen in kube's order, then called all
 * at once on the request's loop; when every one has answered, the first refusal in that order
 * is the plugin's (a failure to call counts only under failurePolicy Fail).
 */
#include "gw_admission.h"

#include <stdlib.h>

#include "gw_webhook_int.h"

typedef struct vwh vwh_t;

typedef struct {
    vwh_t *v;
    const gw_webhook_t *w;
    gw_admission_matched_t matched;
    gw_admission_err_t *err; /* its refusal, once answered */
} slot_t;

struct vwh {
    gw_webhook__run_t *run;
    gw_admission_done_fn done;
    void *arg;
    size_t next; /* the next webhook to select */
    slot_t *slots;
    size_t nslots, waiting;
    bool starting; /* the calls are being started: answers do not finish yet */
    bool running, again;
};

static bool
handles(gw_admission_op_t op)
{
    (void)op;
    return true;
}

/* Every call answered: the first refusal in kube's order. */
static void
all_answered(vwh_t *v)
{
    for (size_t i = 0; i < v->nslots; i++) {
        if (v->slots[i].err != NULL) {
            v->done(v->slots[i].err, v->arg);
            return;
        }
    }
    v->done(NULL, v->arg);
}

static void
called(gw_webhook__outcome_t *out, void *arg)
{
    slot_t *s = arg;
    vwh_t *v = s->v;

    if (out->err != NULL)
        s->err = out->err;
    else if (out->call_error != NULL && !s->w->ignore)
        s->err = gw_webhook__calling_error(v->run->a, s->w->name, out->call_error);
    else if (out->call_error != NULL)
        gw_webhook__failed_open(v->run->a, s->w->name, out->call_error);
    if (--v->waiting == 0 && !v->starting)
        all_answered(v);
}

static void
start_calls(vwh_t *v)
{
    if (v->nslots == 0) {
        v->done(NULL, v->arg);
        return;
    }
    v->starting = true;
    v->waiting = v->nslots;
    for (size_t i = 0; i < v->nslots; i++)
        gw_webhook__call(v->run, v->slots[i].w, &v->slots[i].matched, v->run->a->object, called,
                         &v->slots[i]);
    v->starting = false;
    if (v->waiting == 0)
        all_answered(v);
}

/* Choose the webhooks (kube's ShouldCallHook for each, in order), then call them. */
static void
drive(void *arg)
{
    vwh_t *v = arg;
    const gw_webhook_snap_t *snap = v->run->snap;
    size_t n = gw_webhook_snap_count(snap, false);

    if (v->running) {
        v->again = true; /* an answer came inside the loop: it goes on */
        return;
    }
    v->running = true;
    while (v->next < n) {
        const gw_webhook_t *w = gw_webhook_snap_at(snap, false, v->next);
        slot_t *s = &v->slots[v->nslots];
        gw_admission_err_t *err = NULL;
        v->again = false;
        gw_webhook__verdict_t verdict = gw_webhook__select(v->run, w, &s->matched, &err);
        if (verdict == GW_WEBHOOK__WAIT && v->again)
            continue;
        if (verdict == GW_WEBHOOK__WAIT) {
            v->running = false;
            return;
        }
        if (verdict == GW_WEBHOOK__REFUSE) {
            v->running = false;
            v->done(err, v->arg);
            return;
        }
        v->next++;
        if (verdict == GW_WEBHOOK__CALL) {
            s->v = v;
            s->w = w;
            v->nslots++;
        }
    }
    v->running = false;
    start_calls(v);
}

static void
validate(const gw_admission_attrs_t *a, gw_admission_done_fn done, void *arg)
{
    vwh_t *v = gw_arena_calloc(a->req->arena, sizeof(*v));

    /* the run only reads the attributes; it is shared with the mutating plugin */
    v->run = gw_webhook__run_new((gw_admission_attrs_t *)a, false, drive, v);
    if (v->run == NULL) {
        done(NULL, arg);
        return;
    }
    v->done = done;
    v->arg = arg;
    v->slots = gw_arena_calloc(a->req->arena,
                               (gw_webhook_snap_count(v->run->snap, false) + 1) * sizeof(slot_t));
    drive(v);
}

const gw_admission_plugin_t gw_admission_validating_webhook = {
    .name = "ValidatingAdmissionWebhook", .handles = handles, .validate = validate};
