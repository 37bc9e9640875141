/*
 * kube's generic admission webhook (k8s.io/apiserver/pkg/admission/plugin/webhook/generic and
 * request): which webhooks a request calls, and one call, shared by the mutating and the
 * validating plugin. Everything runs on the request's worker: the namespace read, the
 * authorizer checks of matchConditions and the webhook's POST answer later, and the plugins
 * continue from their resume callback.
 */
#include "gw_webhook_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gw_admission_int.h"
#include "gw_alloc.h"
#include "gw_clock.h"
#include "gw_convert.h"
#include "gw_err.h"
#include "gw_log.h"
#include "gw_server.h"
#include "gw_store.h"
#include "gw_uuid.h"
#include "gw_webhook.h"
#include "gw_json.h"

/* ---- the run ----------------------------------------------------------------------------- */

void
gw_webhook__run_free(void *p)
{
    gw_webhook__run_t *run = p;

    gw_webhook_snap_unref(run->snap);
    gw_vap_memo_free(run->memo);
    json_decref(run->ns);
    json_decref(run->request_doc);
}

static bool
wants_namespace(const gw_webhook_snap_t *s, bool mutating)
{
    for (size_t i = 0; i < gw_webhook_snap_count(s, mutating); i++)
        if (gw_admission_match_wants_namespace(gw_webhook_snap_at(s, mutating, i)->match))
            return true;
    return false;
}

gw_webhook__run_t *
gw_webhook__run_new(gw_admission_attrs_t *a, bool mutating, void (*resume)(void *arg), void *arg)
{
    gw_webhook_snap_t *snap = gw_webhook_snap_current();
    gw_webhook__run_t *run;

    if (gw_webhook_snap_count(snap, mutating) == 0) {
        gw_webhook_snap_unref(snap);
        return NULL;
    }
    run = gw_arena_calloc(a->req->arena, sizeof(*run));
    run->a = a;
    run->snap = snap;
    run->mutating = mutating;
    run->resume = resume;
    run->resume_arg = arg;
    gw_admission_request_from_attrs(&run->rq, a);
    gw_arena_defer(a->req->arena, gw_webhook__run_free, run);
    if (gw_admission_match_exempt(&run->rq))
        return NULL;
    run->ns_wanted =
        gw_admission_match_namespace_of(&run->rq) != NULL && wants_namespace(snap, mutating);
    run->memo = gw_vap_memo_new();
    return run;
}

/* ---- the namespace ----------------------------------------------------------------------- */

static void
namespace_read(int err, const gw_obj_t *obj, void *arg)
{
    gw_webhook__run_t *run = arg;

    run->ns_loaded = true;
    run->ns_loading = false;
    if (err == 0) {
        run->ns = gw_json_loadb((const char *)obj->value, obj->value_len, 0, NULL);
        if (!json_is_object(run->ns)) {
            json_decref(run->ns);
            run->ns = NULL;
        }
    } else if (err != GW_ENOTFOUND) {
        run->ns_err = err;
    }
    run->resume(run->resume_arg);
}

/* Start the namespace's read (once); false while it is on its way. */
static bool
namespace_ready(gw_webhook__run_t *run)
{
    char *key;
    int rc;

    if (!run->ns_wanted || run->ns_loaded)
        return true;
    if (run->ns_loading)
        return false;
    key = gw_store_object_key("namespaces", NULL, gw_admission_match_namespace_of(&run->rq));
    if (key == NULL) {
        run->ns_loaded = true;
        return true;
    }
    gw_arena_defer(run->a->req->arena, free, key);
    run->ns_loading = true;
    rc = gw_admission__read_namespace(run->a->req->store, key, namespace_read, run);
    if (rc != 0) {
        run->ns_loaded = true;
        run->ns_err = rc;
    }
    return run->ns_loaded;
}

/* ---- matchConditions ---------------------------------------------------------------------- */

/* The matchConditions of w: SKIP, CALL, WAIT (the authorizer is asked) or REFUSE. */
static gw_webhook__verdict_t
conditions(gw_webhook__run_t *run, const gw_webhook_t *w, const gw_admission_matched_t *m,
           gw_admission_err_t **err)
{
    const gw_admission_attrs_t *a = run->a;
    cel_arena_t *arena = cel_arena_new();
    json_t *req = gw_admission__request_doc(run->a, &run->rq, m);
    const char *msg = NULL;
    int matched = 0, rc;
    gw_vap_input_t in = {
        .object = a->object,
        .old_object = a->old_object,
        .request = req,
        .request_resource = {.resource_request = true,
                             .group = run->rq.resource.group,
                             .resource = run->rq.resource.resource,
                             .subresource = a->subresource,
                             .ns = a->namespace_,
                             .name = a->name},
    };
    gw_webhook__verdict_t v = GW_WEBHOOK__SKIP;
    gw_vap_match_stats_t stats;

    rc = gw_vap_eval_matches(w->conditions, &in, run->memo, arena, &matched, &msg, &stats);
    if (rc == 0)
        gw_admission__observe_matches(w->name, "webhook", run->mutating ? "admit" : "validating",
                                      a->op, &stats);
    if (rc == GW_VAP_NEEDS_ANSWERS) {
        v = GW_WEBHOOK__WAIT;
    } else if (matched < 0) {
        *err = gw_admission_forbidden(a, "%s", msg != NULL ? msg : "");
        v = GW_WEBHOOK__REFUSE;
    } else if (matched > 0) {
        v = GW_WEBHOOK__CALL;
    }
    cel_arena_free(arena);
    json_decref(req);
    if (v == GW_WEBHOOK__WAIT)
        gw_admission__answer_checks(run->a->req, run->memo, run->resume, run->resume_arg);
    return v;
}

/* ---- which webhooks ---------------------------------------------------------------------- */

gw_admission_err_t *
gw_webhook__internal_error(const gw_admission_attrs_t *a, const char *msg)
{
    return gw_admission_error(a, 500, "InternalError",
                              json_pack("{s:[{s:s}]}", "causes", "message", msg),
                              "Internal error occurred: %s", msg);
}

gw_webhook__verdict_t
gw_webhook__select(gw_webhook__run_t *run, const gw_webhook_t *w, gw_admission_matched_t *matched,
                   gw_admission_err_t **err)
{
    const gw_admission_attrs_t *a = run->a;
    char msg[512];
    int rc;

    if (!namespace_ready(run))
        return GW_WEBHOOK__WAIT;
    if (run->ns_err != 0 && gw_admission_match_wants_namespace(w->match)) {
        *err = gw_admission_error(a, 0, NULL, NULL, "%s", a->namespace_);
        (*err)->err = run->ns_err;
        return GW_WEBHOOK__REFUSE;
    }
    rc =
        gw_admission_match(w->match, &run->rq, run->ns, a->req->catalog, matched, msg, sizeof(msg));
    if (rc == 0)
        return GW_WEBHOOK__SKIP;
    if (rc == GW_ENOTFOUND) {
        *err = gw_admission_error(a, 404, "NotFound",
                                  json_pack("{s:s,s:s}", "name",
                                            gw_admission_match_namespace_of(&run->rq), "kind",
                                            "namespaces"),
                                  "%s", msg);
        return GW_WEBHOOK__REFUSE;
    }
    if (rc < 0) {
        *err = gw_webhook__internal_error(a, msg);
        return GW_WEBHOOK__REFUSE;
    }
    if (w->conditions == NULL)
        return GW_WEBHOOK__CALL;
    return conditions(run, w, matched, err);
}

/* ---- the object's version ---------------------------------------------------------------- */

/* "<group>/<version>", or the version alone for the core group, in the request's arena. */
static const char *
api_version(gw_arena_t *arena, const char *group, const char *version)
{
    return group[0] != '\0' ? gw_arena_sprintf(arena, "%s/%s", group, version) : version;
}

json_t *
gw_webhook__versioned(const gw_webhook__run_t *run, const gw_admission_matched_t *m,
                      const json_t *obj)
{
    const gw_admission_request_t *rq = &run->rq;
    json_t *copy;

    if (obj == NULL)
        return NULL;
    if (run->a->subresource[0] != '\0' || (strcmp(m->kind.group, rq->kind.group) == 0 &&
                                           strcmp(m->kind.version, rq->kind.version) == 0 &&
                                           strcmp(m->kind.kind, rq->kind.kind) == 0))
        return json_incref((json_t *)obj);
    copy = json_deep_copy(obj);
    if (!gw_convert(copy, api_version(run->a->req->arena, m->kind.group, m->kind.version),
                    m->kind.kind)) {
        json_decref(copy);
        return json_incref((json_t *)obj);
    }
    return copy;
}

void
gw_webhook__unversioned(const gw_webhook__run_t *run, json_t *obj)
{
    const gw_admission_request_t *rq = &run->rq;
    const char *av = json_string_value(json_object_get(obj, "apiVersion"));
    const char *want = api_version(run->a->req->arena, rq->kind.group, rq->kind.version);

    if (run->a->subresource[0] == '\0' && av != NULL && strcmp(av, want) != 0)
        gw_convert(obj, want, rq->kind.kind);
}

/* ---- one call ---------------------------------------------------------------------------- */

void
gw_webhook__failed_open(const gw_admission_attrs_t *a, const char *name, const char *reason)
{
    gw_log_warn(a->req->audit_id,
                "Failed calling webhook, failing open %s: failed calling "
                "webhook \"%s\": %s",
                name, name, reason);
}

gw_admission_err_t *
gw_webhook__calling_error(const gw_admission_attrs_t *a, const char *name, const char *reason)
{
    gw_log_warn(a->req->audit_id,
                "Failed calling webhook, failing closed %s: failed calling "
                "webhook \"%s\": %s",
                name, name, reason);
    char *full = gw_arena_sprintf(a->req->arena, "failed calling webhook \"%s\": %s", name, reason);

    return gw_webhook__internal_error(a, full);
}

typedef struct {
    gw_webhook__run_t *run;
    const gw_webhook_t *w;
    char uid[GW_UUID_LEN + 1];
    int64_t start_ns;
    gw_webhook__called_fn done;
    void *arg;
} call_t;

/* The metrics of a call of w that ended as `end` with kube's `code` for it, then done. */
static void
ended(const gw_webhook__run_t *run, const gw_webhook_t *w, int64_t start_ns,
      gw_admission__webhook_end_t end, int code, gw_webhook__outcome_t *out,
      gw_webhook__called_fn done, void *arg)
{
    gw_admission__observe_webhook(w->name, run->mutating, run->a->op, end, code, w->ignore,
                                  start_ns);
    done(out, arg);
}

/* kube's ToStatusErr: the webhook's own Status, its message prefixed. */
static gw_admission_err_t *
rejection(const gw_admission_attrs_t *a, const char *name, const json_t *result)
{
    const char *msg = json_string_value(json_object_get(result, "message"));
    const char *reason = json_string_value(json_object_get(result, "reason"));
    json_int_t code = json_integer_value(json_object_get(result, "code"));
    const json_t *details = json_object_get(result, "details");
    gw_arena_t *arena = a->req->arena;
    gw_admission_err_t *e = gw_arena_calloc(arena, sizeof(*e));

    e->code = code < 400 || code > 599 ? 400 : (int)code;
    e->reason = gw_arena_strdup(arena, reason != NULL ? reason : "");
    e->details = json_is_object(details) ? json_deep_copy(details) : NULL;
    if (msg != NULL && msg[0] != '\0')
        e->message =
            gw_arena_sprintf(arena, "admission webhook \"%s\" denied the request: %s", name, msg);
    else if (reason != NULL && reason[0] != '\0')
        e->message = gw_arena_sprintf(arena, "admission webhook \"%s\" denied the request: %s",
                                      name, reason);
    else
        e->message = gw_arena_sprintf(
            arena, "admission webhook \"%s\" denied the request without explanation", name);
    return e;
}

/* The answer's warnings and audit annotations, which kube takes before looking at allowed. */
static void
take_notes(gw_webhook__run_t *run, const gw_webhook_t *w, const gw_webhook_response_t *rsp)
{
    gw_req_t *r = run->a->req;
    const char *k;
    size_t i;
    json_t *v;

    json_object_foreach(rsp->audit_annotations, k, v)
    {
        char *key = gw_arena_sprintf(r->arena, "%s/%s", w->name, k);
        gw_req_audit_annotate(r, key, json_string_value(v));
    }
    json_array_foreach(rsp->warnings, i, v)
    {
        if (json_string_length(v) > 0)
            gw_req_warning(r, "%s", json_string_value(v));
    }
}

/* Go's error of a call that timed out on its context, not on the client's own timeout. */
static const char *
call_failure(gw_arena_t *arena, int err, const char *why)
{
    static const char client_timeout[] = " (Client.Timeout exceeded while awaiting headers)";
    const char *cut = err == GW_ETIMEOUT && why != NULL ? strstr(why, client_timeout) : NULL;

    if (cut != NULL)
        return gw_arena_sprintf(arena, "failed to call webhook: %.*s", (int)(cut - why), why);
    return gw_arena_sprintf(arena, "failed to call webhook: %s", why != NULL ? why : "");
}

static void
answered(int err, int status, const char *body, size_t len, const char *why, void *ctx)
{
    call_t *c = ctx;
    gw_admission_attrs_t *a = c->run->a;
    gw_webhook__outcome_t out = {0};
    gw_admission__webhook_end_t end = GW_ADMISSION__WEBHOOK_CALL_ERROR;
    /* kube's status of a failed call: the webhook's own HTTP status, else a BadRequest
       (validating) or ServiceUnavailable (mutating) of its own; an unreadable answer is a
       ServiceUnavailable */
    int code = err != 0                        ? (c->run->mutating ? 503 : 400)
               : status >= 300 || status < 200 ? status
                                               : 503;
    char msg[1024];

    if (err != 0) {
        out.call_error = call_failure(a->req->arena, err, why);
    } else if (gw_webhook_review_response(c->w->review_version, c->uid, c->run->mutating, status,
                                          body, len, &out.rsp, msg, sizeof(msg)) != 0) {
        out.call_error = gw_arena_strdup(a->req->arena, msg);
    } else {
        take_notes(c->run, c->w, &out.rsp);
        end = GW_ADMISSION__WEBHOOK_ALLOWED;
        code = 200;
        if (!out.rsp.allowed) {
            out.err = rejection(a, c->w->name, out.rsp.result);
            end = GW_ADMISSION__WEBHOOK_REJECTED;
            code = out.err->code;
        }
    }
    ended(c->run, c->w, c->start_ns, end, code, &out, c->done, c->arg);
    gw_webhook_response_clear(&out.rsp);
    free(c);
}

/* The operation's options as kube's handlers type them (metav1 CreateOptions, UpdateOptions,
 * DeleteOptions; a patch's become UpdateOptions or CreateOptions). */
static json_t *
options_doc(const gw_admission_attrs_t *a)
{
    static const char *const kinds[] = {"CreateOptions", "UpdateOptions", "DeleteOptions"};
    static const char *const kept[] = {"dryRun", "fieldManager", "fieldValidation"};
    json_t *o;
    const char *k;
    json_t *v;

    if (a->op == GW_ADMISSION_CONNECT)
        return a->options != NULL ? json_deep_copy(a->options) : NULL;
    o = json_pack("{s:s,s:s}", "kind", kinds[a->op], "apiVersion", "meta.k8s.io/v1");
    json_object_foreach((json_t *)a->options, k, v)
    {
        bool keep = a->op == GW_ADMISSION_DELETE;
        for (size_t i = 0; i < 3 && !keep; i++)
            keep = strcmp(k, kept[i]) == 0;
        if (keep && strcmp(k, "kind") != 0 && strcmp(k, "apiVersion") != 0)
            json_object_set(o, k, v);
    }
    return o;
}

static char *
review_body(const call_t *c, const gw_admission_matched_t *m, const json_t *object, size_t *len)
{
    const gw_admission_attrs_t *a = c->run->a;
    const authn_user_t *u = a->req->user;
    json_t *extra = gw_admission__user_extra(u), *options = options_doc(a);
    json_t *obj = gw_webhook__versioned(c->run, m, object);
    json_t *old = gw_webhook__versioned(c->run, m, a->old_object);
    gw_webhook_review_in_t in = {
        .version = c->w->review_version,
        .uid = c->uid,
        .kind = m->kind,
        .resource = m->resource,
        .subresource = a->subresource,
        .request_kind = c->run->rq.kind,
        .request_resource = c->run->rq.resource,
        .request_subresource = a->subresource,
        .name = a->name,
        .namespace_ = a->namespace_,
        .operation = gw_admission__op_name(a->op),
        .username = u != NULL ? u->name : NULL,
        .user_uid = u != NULL ? u->uid : NULL,
        .groups = u != NULL ? (const char *const *)u->groups : NULL,
        .ngroups = u != NULL ? u->n_groups : 0,
        .extra = extra,
        .object = obj,
        .old_object = old,
        .dry_run = a->dry_run,
        .options = options,
    };
    char *body = gw_webhook_review_request(&in, len);

    json_decref(extra);
    json_decref(options);
    json_decref(obj);
    json_decref(old);
    return body;
}

/* kube's dry-run rule: a webhook with side effects cannot be called for a dry run. */
static bool
dry_run_refused(const gw_webhook__run_t *run, const gw_webhook_t *w, gw_webhook__outcome_t *out)
{
    if (!run->a->dry_run)
        return false;
    if (w->side_effects == GW_WEBHOOK_SIDE_EFFECTS_UNSET) {
        out->call_error = "Webhook SideEffects is nil";
        return true;
    }
    if (w->side_effects == GW_WEBHOOK_SIDE_EFFECTS_NONE ||
        w->side_effects == GW_WEBHOOK_SIDE_EFFECTS_NONE_ON_DRY_RUN)
        return false;
    out->err = gw_admission_error(run->a, 400, "BadRequest", NULL,
                                  "admission webhook \"%s\" does not support dry run", w->name);
    return true;
}

void
gw_webhook__call(gw_webhook__run_t *run, const gw_webhook_t *w,
                 const gw_admission_matched_t *matched, const json_t *object,
                 gw_webhook__called_fn done, void *arg)
{
    gw_req_t *r = run->a->req;
    gw_webhook__outcome_t out = {0};
    int64_t start = gw_monotonic_ns();
    call_t *c;
    char *body, *name;
    size_t len;

    /* Calls refused before any exchange: kube's are BadRequests (400), or a plain error */
    if (dry_run_refused(run, w, &out)) {
        ended(run, w, start,
              out.err != NULL ? GW_ADMISSION__WEBHOOK_INTERNAL : GW_ADMISSION__WEBHOOK_CALL_ERROR,
              out.err != NULL ? 0 : 400, &out, done, arg);
        return;
    }
    if (w->review_version == NULL) {
        out.call_error = "could not create admission objects: webhook does not accept known "
                         "AdmissionReview versions (v1, v1beta1)";
        ended(run, w, start, GW_ADMISSION__WEBHOOK_CALL_ERROR, 400, &out, done, arg);
        return;
    }
    if (w->url == NULL && w->svc_name == NULL) {
        out.call_error = "could not get REST client: webhook configuration must have either "
                         "service or URL";
        ended(run, w, start, GW_ADMISSION__WEBHOOK_CALL_ERROR, 400, &out, done, arg);
        return;
    }
    c = gw_calloc(1, sizeof(*c));
    c->start_ns = start;
    c->run = run;
    c->w = w;
    c->done = done;
    c->arg = arg;
    gw_uuid_v4(c->uid);
    body = review_body(c, matched, object, &len);
    name = gw_sprintf("admission_webhook_%s", w->uid);
    gw_webhook_post(gw_worker_base(r->worker), r->store,
                    &(gw_webhook_target_t){.url = w->url,
                                           .svc_namespace = w->svc_namespace,
                                           .svc_name = w->svc_name,
                                           .svc_path = w->svc_path,
                                           .svc_port = w->svc_port,
                                           .ca_pem = w->ca_pem,
                                           .timeout_ms = w->timeout_s * 1000,
                                           .name = name},
                    body, len, answered, c);
    free(body);
    free(name);
}
