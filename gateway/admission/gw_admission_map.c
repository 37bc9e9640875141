/*
 * MutatingAdmissionPolicy (k8s.io/apiserver/pkg/admission/plugin/policy/mutating), a mutating
 * plugin: every policy of the process's mutating snapshot, in name order, whose
 * matchConstraints select the request is evaluated for each of its bindings that selects it
 * too, once per param object (gw_admission_vap.c's walk), each evaluation's mutations applied
 * in order to the request's object (gw_map_eval.h). Failures are kube's PolicyErrors: ignored
 * under failurePolicy Ignore, else the request is refused with the first one (403, reason
 * Invalid for an evaluation's, Forbidden for a configuration error; every one a cause). The
 * object the mutations leave is validated afterwards by the registry, as kube's is.
 *
 * Reinvocation: kube's dispatcher keeps, per request, the policies invoked with
 * reinvocationPolicy IfNeeded and whether the object changed since (policyReinvokeContext):
 * a policy that changes the object asks the chain for a second round, in which only the
 * IfNeeded invocations made before the last change run again (all of them when another
 * plugin changed the object in between). The bookkeeping is the plugin's value in the chain's
 * reinvocation context (gw_admission_reinvoke_value), so it outlives the first round.
 */
#include "gw_admission_int.h"

#include <string.h>

#include "gw_alloc.h"

void
gw_admission__map_config_error(gw_admission__map_errors_t *e, const char *policy,
                               const char *binding, bool ignore, const char *msg)
{
    if (ignore)
        return;
    char *m = binding != NULL ? gw_sprintf("policy '%s' with binding '%s' denied request: %s",
                                           policy, binding, msg)
                              : gw_sprintf("policy \"%s\" denied request: %s", policy, msg);
    if (e->errors == NULL)
        e->errors = json_array();
    json_array_append_new(e->errors, json_pack("{s:s,s:n}", "message", m, "reason"));
    free(m);
}

/* The object's contents replaced by `with`'s, so that the chain's holders of the pointer see
 * the mutated object. */
static void
replace_object(json_t *obj, const json_t *with)
{
    json_object_clear(obj);
    json_object_update(obj, (json_t *)with);
}

void
gw_admission__map_result(gw_admission__map_errors_t *e, const gw_admission_attrs_t *a,
                         const char *policy, const char *binding, bool ignore, gw_map_result_t *res)
{
    if (res->internal && e->internal == NULL)
        e->internal = gw_arena_strdup(a->req->arena, res->errors[0]);
    if (res->internal)
        return;
    if (res->object != NULL && a->object != NULL) {
        replace_object(a->object, res->object);
        /* kube's dispatcher defaults the patched object (dispatchOne) */
        gw_admission_default(a->resource, a->object);
    }
    for (size_t i = 0; i < res->nerrors && !ignore; i++) {
        char *m = gw_sprintf("policy '%s' with binding '%s' denied request: %s", policy, binding,
                             res->errors[i]);
        if (e->errors == NULL)
            e->errors = json_array();
        json_array_append_new(e->errors, json_pack("{s:s,s:s}", "message", m, "reason", "Invalid"));
        free(m);
    }
}

gw_admission_err_t *
gw_admission__map_refusal(const gw_admission__map_errors_t *e, const gw_admission_attrs_t *a)
{
    const json_t *first = json_array_get(e->errors, 0), *err;
    size_t i;

    if (e->internal != NULL) /* k8serrors.NewInternalError */
        return gw_admission_error(a, 500, "InternalError",
                                  json_pack("{s:[{s:s}]}", "causes", "message", e->internal),
                                  "Internal error occurred: %s", e->internal);
    if (first == NULL)
        return NULL;
    const char *msg = json_string_value(json_object_get(first, "message"));
    gw_admission_err_t *r = gw_admission_forbidden(a, "admission request denied by policy");
    /* kube's dispatcher replaces the Forbidden message by the first failure's, whole */
    r->message = gw_arena_strdup(a->req->arena, msg);
    const char *reason = json_string_value(json_object_get(first, "reason"));
    if (reason != NULL)
        r->reason = gw_arena_strdup(a->req->arena, reason);
    json_t *causes = json_array();
    json_array_foreach(e->errors, i, err) json_array_append_new(
        causes, json_pack("{s:O}", "message", json_object_get(err, "message")));
    json_object_set_new(r->details, "causes", causes);
    return r;
}

/* ---- reinvocation (kube's policyReinvokeContext) ------------------------------------------- */

/* RequireReinvokingPreviouslyInvokedPlugins: what ran so far runs again on reinvocation. */
static void
require_reinvoking(gw_admission__map_reinvoke_t *r)
{
    if (json_object_size(r->previously_invoked) == 0)
        return;
    if (r->reinvoke == NULL)
        r->reinvoke = json_object();
    json_object_update(r->reinvoke, r->previously_invoked);
    json_object_clear(r->previously_invoked);
}

void
gw_admission__map_round_begin(gw_admission__map_reinvoke_t *r, const json_t *object,
                              bool reinvoking)
{
    if (reinvoking && r->last_output != NULL && !json_equal(r->last_output, object))
        require_reinvoking(r);
}

bool
gw_admission__map_should_run(const gw_admission__map_reinvoke_t *r, const char *key,
                             bool reinvoking)
{
    return !reinvoking || json_object_get(r->reinvoke, key) != NULL;
}

void
gw_admission__map_invoked(gw_admission__map_reinvoke_t *r, const char *key, bool changed,
                          bool if_needed)
{
    if (changed) {
        require_reinvoking(r);
        r->should_reinvoke = true;
    }
    if (if_needed) {
        if (r->previously_invoked == NULL)
            r->previously_invoked = json_object();
        json_object_set_new(r->previously_invoked, key, json_true());
    }
}

void
gw_admission__map_round_end(gw_admission__map_reinvoke_t *r, const json_t *object)
{
    json_decref(r->last_output);
    r->last_output = object != NULL ? json_deep_copy(object) : NULL;
}

char *
gw_admission__map_key(const char *policy, const char *binding, const json_t *param)
{
    const json_t *meta = json_object_get(param, "metadata");
    const char *ns = json_string_value(json_object_get(meta, "namespace"));
    const char *name = json_string_value(json_object_get(meta, "name"));

    /* "/" never appears in these names: the parts stay apart */
    return gw_sprintf("%s/%s/%s/%s", policy, binding, ns != NULL ? ns : "",
                      name != NULL ? name : "");
}

void
gw_admission__map_reinvoke_clear(gw_admission__map_reinvoke_t *r)
{
    json_decref(r->previously_invoked);
    json_decref(r->reinvoke);
    json_decref(r->last_output);
    memset(r, 0, sizeof(*r));
}

static bool
handles(gw_admission_op_t op)
{
    (void)op;
    return true;
}

#define PLUGIN "MutatingAdmissionPolicy"

typedef struct {
    gw_admission_attrs_t *a;
    gw_admission__map_reinvoke_t *r;
    gw_admission_done_fn done;
    void *arg;
} round_t;

static void
reinvoke_free(void *p)
{
    gw_admission__map_reinvoke_clear(p);
}

/* The bookkeeping of this request's admission, made on its first round. */
static gw_admission__map_reinvoke_t *
reinvoke_context(gw_admission_attrs_t *a)
{
    gw_admission__map_reinvoke_t *r = gw_admission_reinvoke_value(a, PLUGIN);

    if (r == NULL) {
        r = gw_arena_calloc(a->req->arena, sizeof(*r));
        gw_arena_defer(a->req->arena, reinvoke_free, r);
        gw_admission_reinvoke_set_value(a, PLUGIN, r);
    }
    return r;
}

/* kube's SetShouldReinvoke when a policy changed the object in this round. */
static void
round_done(gw_admission_err_t *err, void *arg)
{
    round_t *rd = arg;

    if (err == NULL && rd->r->should_reinvoke)
        gw_admission_want_reinvoke(rd->a);
    rd->done(err, rd->arg);
}

static void
admit(gw_admission_attrs_t *a, gw_admission_done_fn done, void *arg)
{
    round_t *rd = gw_arena_calloc(a->req->arena, sizeof(*rd));

    rd->a = a;
    rd->r = reinvoke_context(a);
    rd->done = done;
    rd->arg = arg;
    gw_admission__policies(a, round_done, rd, rd->r, gw_admission_is_reinvoke(a));
}

const gw_admission_plugin_t gw_admission_mutating_policy = {
    .name = PLUGIN, .handles = handles, .admit = admit};
