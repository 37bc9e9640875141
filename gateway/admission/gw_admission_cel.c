/*
 * What admission's CEL expressions need from the request, shared by the policy plugins and the
 * webhooks' matchConditions: the `request` variable (kube's CreateAdmissionRequest for the
 * matched resource) and the answers of the `authorizer` checks an evaluation left waiting,
 * asked of the request's authorizer chain one after another.
 */
#include "gw_admission_int.h"

#include "authz.h"
#include "gw_alloc.h"
#include "gw_server.h"

const char *
gw_admission__op_name(gw_admission_op_t op)
{
    static const char *const names[] = {"CREATE", "UPDATE", "DELETE", "CONNECT"};

    return names[op];
}

json_t *
gw_admission__user_extra(const authn_user_t *u)
{
    json_t *extra = json_object();

    for (size_t i = 0; u != NULL && i < u->n_extra; i++) {
        json_t *vals = json_array();
        for (size_t j = 0; j < u->extra[i].n_values; j++)
            json_array_append_new(vals, json_string(u->extra[i].values[j]));
        json_object_set_new(extra, u->extra[i].key, vals);
    }
    return extra;
}

json_t *
gw_admission__request_doc(const gw_admission_attrs_t *a, const gw_admission_request_t *rq,
                          const gw_admission_matched_t *m)
{
    const authn_user_t *u = a->req->user;
    json_t *extra = gw_admission__user_extra(u), *doc;
    gw_vap_request_t r = {
        .kind_group = m->kind.group,
        .kind_version = m->kind.version,
        .kind = m->kind.kind,
        .resource_group = m->resource.group,
        .resource_version = m->resource.version,
        .resource = m->resource.resource,
        .subresource = a->subresource,
        .request_kind_group = rq->kind.group,
        .request_kind_version = rq->kind.version,
        .request_kind = rq->kind.kind,
        .request_resource_group = rq->resource.group,
        .request_resource_version = rq->resource.version,
        .request_resource = rq->resource.resource,
        .request_subresource = a->subresource,
        .name = a->name,
        .namespace_ = rq->namespace_,
        .operation = gw_admission__op_name(a->op),
        .username = u != NULL ? u->name : "",
        .uid = u != NULL ? u->uid : "",
        .groups = u != NULL ? (const char *const *)u->groups : NULL,
        .ngroups = u != NULL ? u->n_groups : 0,
        .extra = json_object_size(extra) > 0 ? extra : NULL,
        .dry_run = a->dry_run,
        .options = a->options,
    };

    doc = gw_vap_request_doc(&r);
    json_decref(extra);
    return doc;
}

/* ---- the authorizer's answers ------------------------------------------------------------- */

typedef struct {
    gw_req_t *req;
    gw_vap_memo_t *memo;
    void (*resume)(void *arg);
    void *arg;
} asking_t;

static void ask_next(asking_t *k);

static cel_authz_decision_t
decision_of(authz_decision_t d)
{
    return d == AUTHZ_ALLOW ? CEL_AUTHZ_ALLOW
                            : (d == AUTHZ_DENY ? CEL_AUTHZ_DENY : CEL_AUTHZ_NO_OPINION);
}

static void
answered(authz_decision_t decision, const char *reason, const char *error, void *ctx)
{
    asking_t *k = ctx;
    cel_authz_result_t r = {
        .decision = decision_of(decision), .reason = reason != NULL ? reason : "", .error = error};

    gw_vap_memo_answer(k->memo, 0, &r);
    if (gw_vap_memo_pending(k->memo) > 0)
        ask_next(k);
    else
        k->resume(k->arg);
}

/* kube's serviceaccount.UserInfo(namespace, name, ""), for authorizer.serviceAccount(). */
static const authn_user_t *
service_account_user(gw_arena_t *arena, const char *ns, const char *name)
{
    authn_user_t *u = gw_arena_calloc(arena, sizeof(*u));

    u->name = gw_arena_sprintf(arena, "system:serviceaccount:%s:%s", ns, name);
    u->uid = gw_arena_strdup(arena, "");
    u->groups = gw_arena_calloc(arena, 2 * sizeof(char *));
    u->groups[0] = gw_arena_strdup(arena, "system:serviceaccounts");
    u->groups[1] = gw_arena_sprintf(arena, "system:serviceaccounts:%s", ns);
    u->n_groups = 2;
    return u;
}

static const char *
or_null(const char *s)
{
    return s != NULL && s[0] != '\0' ? s : NULL;
}

/* Ask the request's authorizers the memo's first waiting check; `answered` follows. */
static void
ask_next(asking_t *k)
{
    gw_req_t *r = k->req;
    const cel_authz_attrs_t *c = gw_vap_memo_pending_attrs(k->memo, 0);
    authz_attrs_t attrs = {
        .user = c->sa_name != NULL ? service_account_user(r->arena, c->sa_namespace, c->sa_name)
                                   : r->user,
        .verb = c->verb,
        .resource_request = c->resource_request,
        .path = c->path != NULL ? c->path : "",
        .api_group = c->resource_request ? c->group : "",
        .api_version = c->resource_request ? "*" : "",
        .resource = c->resource,
        .subresource = c->subresource,
        .namespace_ = c->ns,
        .name = c->name,
        .field_selector = or_null(c->field_selector),
        .label_selector = or_null(c->label_selector),
        .io = gw_worker_base(r->worker),
    };

    authz_authorize(r->authz, &attrs, answered, k);
}

void
gw_admission__answer_checks(gw_req_t *req, gw_vap_memo_t *memo, void (*resume)(void *arg),
                            void *arg)
{
    asking_t *k = gw_arena_calloc(req->arena, sizeof(*k));

    k->req = req;
    k->memo = memo;
    k->resume = resume;
    k->arg = arg;
    ask_next(k);
}
