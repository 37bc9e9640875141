/*
 * MutatingAdmissionWebhook (k8s.io/apiserver/pkg/admission/plugin/webhook/mutating): the
 * webhooks of the snapshot, one after the other in kube's order, each seeing the object as the
 * ones before left it; a JSONPatch answer is applied to the request's object. Reinvocation as
 * kube's webhookReinvokeContext keeps it: a webhook that changed the object asks the chain for
 * a second round (gw_admission_want_reinvoke), in which only the IfNeeded webhooks that ran
 * before a later change are called again.
 */
#include "gw_admission.h"

#include <stdlib.h>
#include <string.h>

#include "gw_fieldval.h"
#include "gw_webhook_int.h"
#include "gw_json.h"

#define PLUGIN "MutatingAdmissionWebhook"

/* kube's webhookReinvokeContext, kept between the two rounds (in the request's arena). */
typedef struct {
    json_t *last_output; /* the object after this plugin's last round, or NULL */
    json_t *previously;  /* UIDs of IfNeeded webhooks called since the last change (members) */
    json_t *reinvoke;    /* UIDs to call in the second round (members) */
} reinvoke_t;

typedef struct {
    gw_webhook__run_t *run;
    reinvoke_t *rc;
    gw_admission_done_fn done;
    void *arg;
    size_t next;
    const gw_webhook_t *w; /* being called */
    gw_admission_matched_t matched;
    bool running, again, calling, finished;
} mwh_t;

static bool
handles(gw_admission_op_t op)
{
    (void)op;
    return true;
}

static void
reinvoke_free(void *p)
{
    reinvoke_t *rc = p;

    json_decref(rc->last_output);
    json_decref(rc->previously);
    json_decref(rc->reinvoke);
}

static reinvoke_t *
reinvoke_context(gw_admission_attrs_t *a)
{
    reinvoke_t *rc = gw_admission_reinvoke_value(a, PLUGIN);

    if (rc != NULL)
        return rc;
    rc = gw_arena_calloc(a->req->arena, sizeof(*rc));
    rc->previously = json_object();
    rc->reinvoke = json_object();
    gw_arena_defer(a->req->arena, reinvoke_free, rc);
    gw_admission_reinvoke_set_value(a, PLUGIN, rc);
    return rc;
}

/* RequireReinvokingPreviouslyInvokedPlugins */
static void
require_reinvoking(reinvoke_t *rc)
{
    json_object_update(rc->reinvoke, rc->previously);
    json_object_clear(rc->previously);
}

/* The round's end: the object it leaves is what the next round compares with. */
static void
finish(mwh_t *m, gw_admission_err_t *err)
{
    const json_t *obj = m->run->a->object;

    m->finished = true;
    json_decref(m->rc->last_output);
    m->rc->last_output = obj != NULL ? json_deep_copy(obj) : NULL;
    m->done(err, m->arg);
}

/* ---- kube's audit annotations of a mutation -------------------------------------------- */

/* An annotation `<prefix>round_<R>_index_<I>` of the text given. */
static void
annotate(mwh_t *m, const char *prefix, size_t index, const char *text, bool at_request)
{
    gw_admission_attrs_t *a = m->run->a;
    char *key = gw_arena_sprintf(a->req->arena, "%sround_%d_index_%zu", prefix,
                                 gw_admission_is_reinvoke(a) ? 1 : 0, index);

    if (at_request)
        gw_req_audit_annotate_at_request(a->req, key, text);
    else
        gw_req_audit_annotate(a->req, key, text);
}

/* ... of a document's compact JSON (the reference is taken). */
static void
annotate_json(mwh_t *m, const char *prefix, size_t index, json_t *value, bool at_request)
{
    char *text = gw_json_dumps(value, JSON_COMPACT | JSON_ENCODE_ANY);

    annotate(m, prefix, index, text, at_request);
    free(text);
    json_decref(value);
}

static void
annotate_mutation(mwh_t *m, size_t index, bool mutated)
{
    annotate_json(m, "mutation.webhook.admission.k8s.io/", index,
                  json_pack("{s:s,s:s,s:b}", "configuration", m->w->config_name, "webhook",
                            m->w->name, "mutated", mutated),
                  false);
}

/* Go marshals the patch's operations as maps: their keys sorted. */
static void
annotate_patch(mwh_t *m, size_t index, const json_t *patch)
{
    char *ops = gw_json_dumps(patch, JSON_COMPACT | JSON_SORT_KEYS);
    json_t *sorted = json_loads(ops, 0, NULL);

    free(ops);
    annotate_json(m, "patch.webhook.admission.k8s.io/", index,
                  json_pack("{s:s,s:s,s:o,s:s}", "configuration", m->w->config_name, "webhook",
                            m->w->name, "patch", sorted != NULL ? sorted : json_array(),
                            "patchType", "JSONPatch"),
                  true);
}

/* ---- one webhook's answer ---------------------------------------------------------------- */

static void drive(void *arg);

/* kube decodes a patched built-in object into its Go type: unknown fields are dropped, a value
 * the type cannot hold is an internal error. A custom object (unstructured there) and a
 * subresource's own kind (Scale) are taken as they are. */
static gw_admission_err_t *
typed_decode(const gw_admission_attrs_t *a, json_t *obj)
{
    gw_field_issues_t issues = {0};
    gw_admission_err_t *err = NULL;

    if (a->resource->custom != NULL ||
        (a->subresource[0] != '\0' && strcmp(a->subresource, "status") != 0))
        return NULL;
    gw_fieldval_check(obj, a->resource->schema, &issues);
    for (size_t i = 0; i < issues.n && err == NULL; i++)
        if (issues.items[i].kind == GW_FIELD_DECODE)
            err = gw_webhook__internal_error(
                a, gw_arena_strdup(a->req->arena, issues.items[i].message));
    gw_field_issues_clear(&issues);
    return err;
}

/* The patch applied to the request's object, in place; *changed tells whether it changed. */
static gw_admission_err_t *
apply_patch(mwh_t *m, const json_t *patch, bool *changed)
{
    gw_admission_attrs_t *a = m->run->a;
    char err[512];
    json_t *patched, *sent;

    if (a->object == NULL) {
        char *msg = gw_arena_sprintf(a->req->arena,
                                     "admission webhook \"%s\" attempted to modify the object, "
                                     "which is not supported for this operation",
                                     m->w->name);
        return gw_webhook__internal_error(a, msg);
    }
    sent = gw_webhook__versioned(m->run, &m->matched, a->object);
    patched = gw_webhook_review_apply(sent, patch, err, sizeof(err));
    json_decref(sent);
    if (patched == NULL)
        return gw_webhook__internal_error(a, gw_arena_strdup(a->req->arena, err));
    gw_webhook__unversioned(m->run, patched);
    gw_admission_err_t *err_decode = typed_decode(a, patched);
    if (err_decode != NULL) {
        json_decref(patched);
        return err_decode;
    }
    *changed = !json_equal(patched, a->object);
    json_object_clear(a->object);
    json_object_update(a->object, patched);
    json_decref(patched);
    /* kube's dispatcher defaults the object a webhook patched */
    gw_admission_default(a->resource, a->object);
    return NULL;
}

/* After the call: kube's bookkeeping, then the error, if any, as failurePolicy says. */
static void
called(gw_webhook__outcome_t *out, void *arg)
{
    mwh_t *m = arg;
    size_t index = m->next;
    gw_admission_err_t *err = out->err;
    bool changed = false;

    if (err == NULL && out->call_error == NULL && out->rsp.patch != NULL) {
        err = apply_patch(m, out->rsp.patch, &changed);
        if (err == NULL)
            annotate_patch(m, index, out->rsp.patch);
    }
    annotate_mutation(m, index, changed);
    if (changed) {
        require_reinvoking(m->rc);
        gw_admission_want_reinvoke(m->run->a);
    }
    if (m->w->reinvoke_if_needed)
        json_object_set_new(m->rc->previously, m->w->uid, json_true());
    if (err == NULL && out->call_error != NULL && !m->w->ignore)
        err = gw_webhook__calling_error(m->run->a, m->w->name, out->call_error);
    else if (err == NULL && out->call_error != NULL) {
        gw_webhook__failed_open(m->run->a, m->w->name, out->call_error);
        annotate(m, "failed-open.mutation.webhook.admission.k8s.io/", index, m->w->name, false);
    }
    m->calling = false;
    if (err != NULL) {
        finish(m, err);
        return;
    }
    m->next++;
    drive(m);
}

/* ---- the loop ---------------------------------------------------------------------------- */

/* One webhook: skipped, refused, called (true while its answer is out), or waited for (true
 * while the namespace or an authorizer answer is out). */
static bool
step(mwh_t *m)
{
    const gw_webhook_t *w = gw_webhook_snap_at(m->run->snap, true, m->next);
    gw_admission_err_t *err = NULL;
    gw_webhook__verdict_t v;

    m->again = false;
    v = gw_webhook__select(m->run, w, &m->matched, &err);
    if (v == GW_WEBHOOK__WAIT)
        return !m->again;
    if (v == GW_WEBHOOK__REFUSE) {
        finish(m, err);
        return true;
    }
    /* in the second round, only the webhooks that asked for it, and never one for the first
     * time */
    if (v == GW_WEBHOOK__SKIP ||
        (gw_admission_is_reinvoke(m->run->a) && !json_object_get(m->rc->reinvoke, w->uid))) {
        m->next++;
        return false;
    }
    m->w = w;
    m->calling = true;
    gw_webhook__call(m->run, w, &m->matched, m->run->a->object, called, m);
    return m->calling;
}

static void
drive(void *arg)
{
    mwh_t *m = arg;
    size_t n = gw_webhook_snap_count(m->run->snap, true);

    if (m->running) {
        m->again = true; /* the loop below goes on */
        return;
    }
    m->running = true;
    while (!m->finished && !m->calling && m->next < n) {
        if (step(m))
            break;
    }
    m->running = false;
    if (!m->finished && !m->calling && m->next >= n)
        finish(m, NULL);
}

static void
admit(gw_admission_attrs_t *a, gw_admission_done_fn done, void *arg)
{
    mwh_t *m = gw_arena_calloc(a->req->arena, sizeof(*m));

    m->run = gw_webhook__run_new(a, true, drive, m);
    if (m->run == NULL) {
        done(NULL, arg);
        return;
    }
    m->done = done;
    m->arg = arg;
    m->rc = reinvoke_context(a);
    if (gw_admission_is_reinvoke(a) &&
        !(m->rc->last_output == NULL
              ? a->object == NULL
              : a->object != NULL && json_equal(m->rc->last_output, a->object)))
        require_reinvoking(m->rc); /* the built-in plugins changed it since */
    drive(m);
}

const gw_admission_plugin_t gw_admission_mutating_webhook = {
    .name = "MutatingAdmissionWebhook", .handles = handles, .admit = admit};
