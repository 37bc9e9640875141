/*
 * ValidatingAdmissionPolicy (k8s.io/apiserver/pkg/admission/plugin/policy/validating), a
 * validating plugin: every policy of the process's snapshot (gw_vap_snapshot.h) whose
 * matchConstraints select the request is evaluated for each of its bindings that selects it
 * too, once per param object, and the results become the refusal, the warnings and the audit
 * annotations kube's dispatcher makes of them (gw_vap_outcome.h).
 *
 * The work is a small state machine on the request's worker, since three things may answer
 * later: the namespace object (read from etcd once, only when a selector or an evaluation
 * needs it), and each authorizer check an expression asks (gw_vap_eval.h's memo: ask, answer,
 * evaluate again).
 *
 * The same walk runs MutatingAdmissionPolicy (gw_admission_map.c) over the mutating snapshot:
 * only the evaluation, what is made of its result and the refusal differ.
 */
#include "gw_admission.h"
#include "gw_admission_int.h"

#include <stdlib.h>
#include <string.h>

#include "gw_admission_match.h"
#include "gw_alloc.h"
#include "gw_err.h"
#include "gw_store.h"
#include "gw_vap_eval.h"
#include "gw_vap_outcome.h"
#include "gw_vap_snapshot.h"
#include "gw_json.h"

typedef enum { STEP_NEXT, STEP_WAIT, STEP_DONE } step_t;
typedef enum { NS_NONE, NS_LOADING, NS_LOADED } ns_state_t;

typedef struct {
    const gw_admission_attrs_t *a;
    gw_admission_done_fn done;
    void *arg;
    gw_vap_snap_t *snap;
    gw_admission_request_t rq;
    size_t pi, bi, ki; /* policy, binding, param */
    bool in_policy;    /* pi's definition matched; its bindings are being run */
    bool in_binding;   /* bi matched; its params are being evaluated */
    json_t *params;    /* bi's params (NULL: no paramKind) */
    gw_admission_matched_t matched;
    json_t *request_doc; /* for pi's matched resource */
    ns_state_t ns_state;
    json_t *ns;     /* the stored namespace, NULL when missing */
    json_t *ns_doc; /* its namespaceObject form */
    int ns_err;     /* a read error other than not found */
    gw_vap_memo_t *memo;
    gw_vap_outcome_t out;
    bool ns_missing; /* an evaluation needed the namespace and it is gone */
    bool running, again;
    bool mutating;                  /* MutatingAdmissionPolicy's walk */
    gw_admission__map_errors_t map; /* its failures */
    /* its reinvocation bookkeeping, kept by the plugin across the chain's rounds */
    gw_admission__map_reinvoke_t *reinvoke;
    bool reinvoking; /* this is the chain's second round */
} vap_t;

static void drive(vap_t *v);

/* The authorizer answered every waiting check: the walk goes on. */
static void
resume(void *arg)
{
    drive(arg);
}

static bool
handles(gw_admission_op_t op)
{
    (void)op;
    return true;
}

static void
vap_free(void *p)
{
    vap_t *v = p;

    gw_vap_snap_unref(v->snap);
    gw_vap_memo_free(v->memo);
    gw_vap_outcome_clear(&v->out);
    json_decref(v->params);
    json_decref(v->request_doc);
    json_decref(v->ns);
    json_decref(v->ns_doc);
    json_decref(v->map.errors);
}

/* ---- the namespace object ----------------------------------------------------------------- */

static void
namespace_read(int err, const gw_obj_t *obj, void *arg)
{
    vap_t *v = arg;

    v->ns_state = NS_LOADED;
    if (err == 0) {
        v->ns = gw_json_loadb((const char *)obj->value, obj->value_len, 0, NULL);
        if (!json_is_object(v->ns)) {
            json_decref(v->ns);
            v->ns = NULL;
        }
        v->ns_doc = gw_vap_namespace_doc(v->ns);
    } else if (err != GW_ENOTFOUND) {
        v->ns_err = err;
    }
    drive(v);
}

/* Read namespace `name` once; true when it is there to use (or known to be missing). */
static bool
namespace_ready(vap_t *v, const char *name)
{
    char *key;
    int rc;

    if (v->ns_state == NS_LOADED)
        return true;
    if (v->ns_state == NS_LOADING)
        return false;
    v->ns_state = NS_LOADING;
    key = gw_store_object_key("namespaces", NULL, name);
    if (key == NULL) {
        namespace_read(GW_ENOTFOUND, NULL, v);
        return v->ns_state == NS_LOADED;
    }
    gw_arena_defer(v->a->req->arena, free, key);
    rc = gw_admission__read_namespace(v->a->req->store, key, namespace_read, v);
    if (rc != 0)
        namespace_read(rc, NULL, v);
    return v->ns_state == NS_LOADED;
}

/* Whether matching policy p may read the namespace. */
static bool
policy_wants_namespace(const gw_vap_policy_t *p)
{
    if (p->constraints != NULL && gw_admission_match_wants_namespace(p->constraints))
        return true;
    for (size_t i = 0; i < p->nbindings; i++)
        if (p->bindings[i].match != NULL &&
            gw_admission_match_wants_namespace(p->bindings[i].match))
            return true;
    return false;
}

/* The namespace whose object the evaluation binds as namespaceObject, or NULL. */
static const char *
namespace_object_name(const vap_t *v)
{
    const gw_resource_t *res = v->a->resource;

    if (res->group[0] == '\0' && strcmp(res->name, "namespaces") == 0)
        return NULL;
    return v->a->namespace_[0] != '\0' ? v->a->namespace_ : NULL;
}

/* ---- the steps ---------------------------------------------------------------------------- */

static void
next_policy(vap_t *v)
{
    const gw_vap_policy_t *p = gw_vap_snap_policy(v->snap, v->pi);

    if (v->in_policy && !v->mutating)
        gw_vap_outcome_end_policy(&v->out, p->name);
    v->in_policy = false;
    v->pi++;
}

static void
next_binding(vap_t *v)
{
    v->in_binding = false;
    json_decref(v->params);
    v->params = NULL;
    v->bi++;
}

/* A configuration error of policy `p` (of its binding `binding`, NULL for its own). */
static void
config_error(vap_t *v, const gw_vap_policy_t *p, const char *binding, const char *msg)
{
    bool ignore = gw_vap_compiled_ignores_failures(p->compiled);

    if (v->mutating)
        gw_admission__map_config_error(&v->map, p->name, binding, ignore, msg);
    else
        gw_vap_outcome_config_error(&v->out, p->name, binding, ignore, msg);
}

/* The definition of policy pi against the request. An error matching it leaves the policy
 * out, as kube's dispatcher (which overwrites that error) does. */
static step_t
enter_policy(vap_t *v, const gw_vap_policy_t *p)
{
    const char *ns_name = gw_admission_match_namespace_of(&v->rq);
    char msg[512];
    int rc;

    if (ns_name != NULL && policy_wants_namespace(p) && !namespace_ready(v, ns_name))
        return STEP_WAIT;
    rc = gw_admission_match_definition(p->constraints, &v->rq, v->ns, v->a->req->catalog,
                                       &v->matched, msg, sizeof(msg));
    if (rc <= 0) {
        v->pi++;
        return STEP_NEXT;
    }
    if (p->config_error != NULL) {
        config_error(v, p, NULL, p->config_error);
        v->pi++;
        return STEP_NEXT;
    }
    json_decref(v->request_doc);
    v->request_doc = gw_admission__request_doc(v->a, &v->rq, &v->matched);
    v->in_policy = true;
    v->bi = 0;
    return STEP_NEXT;
}

static step_t
enter_binding(vap_t *v, const gw_vap_policy_t *p, const gw_vap_binding_t *b)
{
    char msg[512];
    char *err = NULL;
    int rc =
        gw_admission_match_binding(b->match, &v->rq, v->ns, v->a->req->catalog, msg, sizeof(msg));
    if (rc < 0) /* kube: a configuration error of the binding */
        config_error(v, p, b->name, msg);
    if (rc <= 0) {
        v->bi++;
        return STEP_NEXT;
    }
    if (gw_vap_snap_params(p, b, v->rq.namespace_, v->a->req->catalog, &v->params, &err) != 0) {
        config_error(v, p, b->name, err);
        free(err);
        v->bi++;
        return STEP_NEXT;
    }
    v->in_binding = true;
    v->ki = 0;
    return STEP_NEXT;
}

/* One (policy, binding, param) evaluation; STEP_WAIT while the authorizer is asked. No
 * params (none found under Allow) is no evaluation; no paramKind (params NULL) is one. */
static step_t
evaluate(vap_t *v, const gw_vap_policy_t *p, const gw_vap_binding_t *b)
{
    size_t nparams = v->params != NULL ? json_array_size(v->params) : 0;
    const char *ns_name = namespace_object_name(v);
    cel_arena_t *arena;
    gw_vap_result_t res;
    int rc;
    if (v->ki >= (v->params != NULL ? nparams : 1)) {
        next_binding(v);
        return STEP_NEXT;
    }
    if (ns_name != NULL && !namespace_ready(v, ns_name))
        return STEP_WAIT;
    if (ns_name != NULL && v->ns == NULL && v->ns_err == 0) {
        v->ns_missing = true; /* kube returns the lookup's NotFound at once */
        return STEP_DONE;
    }
    gw_vap_input_t in = {
        .object = v->a->object,
        .old_object = v->a->old_object,
        .request = v->request_doc,
        .params = nparams > 0 ? json_array_get(v->params, v->ki) : NULL,
        .namespace_object = ns_name != NULL ? v->ns_doc : NULL,
        .request_resource = {.resource_request = true,
                             .group = v->rq.resource.group,
                             .resource = v->rq.resource.resource,
                             .subresource = v->a->subresource,
                             .ns = v->a->namespace_,
                             .name = v->a->name},
    };
    arena = cel_arena_new();
    if (v->mutating) {
        gw_map_result_t mres;
        char *key = gw_admission__map_key(p->name, b->name, in.params);
        if (!gw_admission__map_should_run(v->reinvoke, key, v->reinvoking)) {
            free(key);
            cel_arena_free(arena);
            v->ki++;
            return STEP_NEXT;
        }
        /* each evaluation sees the object as the ones before it left it */
        in.object = v->a->object;
        rc = gw_map_eval(p->mutating, &in, v->a->resource->schema, v->memo, arena, &mres);
        if (rc == 0) {
            gw_admission__map_invoked(v->reinvoke, key, mres.object != NULL,
                                      gw_map_compiled_reinvokes(p->mutating));
            gw_admission__map_result(&v->map, v->a, p->name, b->name,
                                     gw_vap_compiled_ignores_failures(p->compiled), &mres);
        }
        free(key);
        gw_map_result_clear(&mres);
    } else {
        rc = gw_vap_eval(p->compiled, &in, v->memo, arena, &res);
        if (rc == 0) {
            gw_vap_outcome_add(&v->out, p->name, b->doc, &res);
            gw_admission__observe_policy(p->name, b->name, b->doc, &res);
            gw_admission__observe_matches(p->name, "policy", "validating", v->a->op, &res.match);
        }
    }
    cel_arena_free(arena);
    if (rc == GW_VAP_NEEDS_ANSWERS) {
        gw_admission__answer_checks(v->a->req, v->memo, resume, v);
        return STEP_WAIT;
    }
    v->ki++;
    return STEP_NEXT;
}

static step_t
step(vap_t *v)
{
    const gw_vap_policy_t *p;

    if (v->pi >= gw_vap_snap_count(v->snap))
        return STEP_DONE;
    p = gw_vap_snap_policy(v->snap, v->pi);
    if (!v->in_policy && !gw_vap_policy_may_match(p, v->rq.resource.resource)) {
        v->pi++; /* its rules name other resources: no matching, no namespace read */
        return STEP_NEXT;
    }
    if (!v->in_policy)
        return enter_policy(v, p);
    if (v->bi >= p->nbindings) {
        next_policy(v);
        return STEP_NEXT;
    }
    if (!v->in_binding)
        return enter_binding(v, p, &p->bindings[v->bi]);
    return evaluate(v, p, &p->bindings[v->bi]);
}

/* The policies' audit annotations (`<policy>/<key>` and validation_failure) go to the
 * request's audit event. */
static void
record_audit_annotations(const vap_t *v)
{
    for (size_t i = 0; i < v->out.nannotations; i++)
        gw_req_audit_annotate(v->a->req, v->out.annotations[i].key, v->out.annotations[i].value);
}

static gw_admission_err_t *
refusal(const vap_t *v)
{
    gw_admission_err_t *e;
    if (v->ns_missing)
        return gw_admission_error(
            v->a, 404, "NotFound",
            json_pack("{s:s,s:s}", "name", v->a->namespace_, "kind", "namespaces"),
            "namespaces \"%s\" not found", v->a->namespace_);
    if (v->mutating && (v->map.errors != NULL || v->map.internal != NULL))
        return gw_admission__map_refusal(&v->map, v->a);
    if (v->out.deny_message != NULL) {
        e = gw_admission_forbidden(v->a, "%s", v->out.deny_message);
        e->code = v->out.deny_code;
        e->reason = v->out.deny_reason;
        json_object_set_new(e->details, "causes", json_pack("[{s:s}]", "message", e->message));
        return e;
    }
    if (v->ns_err != 0) {
        e = gw_admission_error(v->a, 0, NULL, NULL, "%s", v->a->namespace_);
        e->err = v->ns_err;
        return e;
    }
    return NULL;
}

static void
finish(vap_t *v)
{
    if (v->mutating)
        gw_admission__map_round_end(v->reinvoke, v->a->object);
    for (size_t i = 0; i < v->out.nwarnings; i++)
        gw_req_warning(v->a->req, "%s", v->out.warnings[i]);
    record_audit_annotations(v);
    v->done(refusal(v), v->arg);
}

/* Run steps until one waits or all are done; an answer that comes back inside a step (a
 * synchronous authorizer or read) makes the loop go on instead of recursing. */
static void
drive(vap_t *v)
{
    if (v->running) {
        v->again = true;
        return;
    }
    v->running = true;
    for (;;) {
        step_t s;
        v->again = false;
        s = step(v);
        if (s == STEP_DONE) {
            v->running = false;
            finish(v);
            return;
        }
        if (s == STEP_WAIT && !v->again)
            break;
    }
    v->running = false;
}

void
gw_admission__policies(const gw_admission_attrs_t *a, gw_admission_done_fn done, void *arg,
                       gw_admission__map_reinvoke_t *reinvoke, bool reinvoking)
{
    bool mutating = reinvoke != NULL;
    gw_vap_snap_t *snap = mutating ? gw_map_snap_current() : gw_vap_snap_current();
    vap_t *v;

    if (gw_vap_snap_count(snap) == 0) {
        gw_vap_snap_unref(snap);
        done(NULL, arg);
        return;
    }
    v = gw_arena_calloc(a->req->arena, sizeof(*v));
    v->a = a;
    v->done = done;
    v->arg = arg;
    v->snap = snap;
    v->mutating = mutating;
    v->reinvoke = reinvoke;
    v->reinvoking = reinvoking;
    gw_admission_request_from_attrs(&v->rq, a);
    if (gw_admission_match_exempt(&v->rq)) {
        gw_vap_snap_unref(snap);
        done(NULL, arg);
        return;
    }
    v->memo = gw_vap_memo_new();
    gw_arena_defer(a->req->arena, vap_free, v);
    if (mutating)
        gw_admission__map_round_begin(reinvoke, a->object, reinvoking);
    drive(v);
}

static void
validate(const gw_admission_attrs_t *a, gw_admission_done_fn done, void *arg)
{
    gw_admission__policies(a, done, arg, NULL, false);
}

const gw_admission_plugin_t gw_admission_validating_policy = {
    .name = "ValidatingAdmissionPolicy", .handles = handles, .validate = validate};
