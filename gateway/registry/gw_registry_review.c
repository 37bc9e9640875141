/*
 * Virtual kinds: reviews that are created, answered and never stored. SelfSubjectReview tells
 * the caller who it is (kubectl auth whoami), from the request's authenticated user, as
 * kube-apiserver's selfsubjectreview REST does; TokenReview tells who a bearer token belongs
 * to, through the same authenticators, as its tokenreview REST does. The access reviews are
 * gw_registry_access.c's.
 */
#include "gw_registry_int.h"

#include <string.h>

#include "authn_sa.h"
#include "gw_authn_io.h"
#include "gw_log.h"

static json_t *
user_info(const authn_user_t *u)
{
    json_t *info = json_pack("{s:s}", "username", u->name);

    if (u->uid != NULL && u->uid[0] != '\0')
        json_object_set_new(info, "uid", json_string(u->uid));
    json_object_set_new(info, "groups", gw_json_strings(u->groups, u->n_groups));
    if (u->n_extra > 0) {
        json_t *extra = json_object();
        for (size_t i = 0; i < u->n_extra; i++)
            json_object_set_new(extra, u->extra[i].key,
                                gw_json_strings(u->extra[i].values, u->extra[i].n_values));
        json_object_set_new(info, "extra", extra);
    }
    return info;
}

/* The request's review object, checked against the kind's schema; NULL when answered. */
static json_t *
review_body(gw_req_t *r)
{
    json_t *body = gw_req_body_object(r, false, NULL);
    gw_fail_t f = {0};
    gw_field_errors_t errs = {0};

    if (body == NULL)
        return NULL; /* answered */
    bool ok = gw_registry__check_object(r, body, NULL, NULL, r->resource->schema, NULL, 0,
                                        GW_FV_IGNORE, false, &errs, &f);
    gw_ferr_clear(&errs);
    if (!ok) {
        gw_registry__reply_fail(r, &f);
        return NULL;
    }
    return body;
}

static void
self_subject_review(gw_req_t *r)
{
    json_t *body = review_body(r), *review;
    char now[21];

    if (body == NULL)
        return; /* answered */
    gw_time_now(now);
    review = json_pack("{s:s,s:s,s:{s:s},s:{s:o}}", "kind", r->resource->kind, "apiVersion",
                       gw_registry__api_version(r), "metadata", "creationTimestamp", now, "status",
                       "userInfo", user_info(r->user));
    gw_reply_json(r, 201, review);
}

/* ---- TokenReview -------------------------------------------------------------------------- */

typedef struct {
    json_t *review;    /* the answer: the request's object with a status */
    json_t *audiences; /* what the token is reviewed for */
} token_review_t;

/* The review's answer: status.authenticated and user as kube fills them (user always present,
 * empty when no one), audiences those the token was checked for, error the refusal. */
static void
token_reviewed(gw_req_t *r, authn_result_t result, const authn_user_t *user, void *arg)
{
    token_review_t *t = arg;
    json_t *status = json_object();

    json_object_set_new(t->review, "status", status);
    if (result == AUTHN_OK) {
        json_object_set_new(status, "authenticated", json_true());
        json_object_set_new(status, "user", user_info(user));
        if (json_array_size(t->audiences) > 0)
            json_object_set(status, "audiences", t->audiences);
    } else {
        json_object_set_new(status, "user", json_object());
        json_object_set_new(status, "error", json_string("invalid bearer token"));
    }
    json_decref(t->audiences);
    gw_reply_json(r, 201, t->review); /* takes the review */
}

/* The audiences a token is reviewed for: the API audiences, or those of spec.audiences that
 * are API audiences. kube checks a service account token against the spec's own audiences;
 * the authenticators here check it against the API audiences, so a review for other
 * audiences can only be refused (never accepting a token meant for the API elsewhere). */
static json_t *
review_audiences(gw_req_t *r, const json_t *review)
{
    json_t *spec = json_object_get(json_object_get(review, "spec"), "audiences");
    const char *const *api;
    size_t n = authn_sa_api_audiences(r->authn, &api);
    json_t *auds = json_array();

    for (size_t i = 0; i < n; i++) {
        if (json_array_size(spec) == 0 || gw_json_strings_has(spec, api[i]))
            json_array_append_new(auds, json_string(api[i]));
    }
    return auds;
}

/* The answer starts as the request's object; kube leaves its creationTimestamp null. */
static json_t *
review_answer(const json_t *body)
{
    json_t *review = json_deep_copy(body), *meta = json_object_get(review, "metadata");

    if (!json_is_object(meta)) {
        meta = json_object();
        json_object_set_new(review, "metadata", meta);
    }
    if (json_object_get(meta, "creationTimestamp") == NULL)
        json_object_set_new(meta, "creationTimestamp", json_null());
    return review;
}

static void
token_review(gw_req_t *r)
{
    json_t *body = review_body(r);
    token_review_t *t = gw_arena_calloc(r->arena, sizeof(*t));
    authn_user_t *user = NULL;
    authn_pending_t *pending = NULL;
    char why[256] = "";

    if (body == NULL)
        return; /* answered */
    const char *token = json_string_value(json_object_get(json_object_get(body, "spec"), "token"));
    if (token == NULL || *token == '\0') {
        gw_reply_status(r, 400, "BadRequest", NULL,
                        "token is required for TokenReview in authentication");
        return;
    }
    t->review = review_answer(body);
    t->audiences = review_audiences(r, body);
    if (json_array_size(json_object_get(json_object_get(body, "spec"), "audiences")) > 0 &&
        json_array_size(t->audiences) == 0) {
        gw_log_debug(r->audit_id, "token review: no API audience among spec.audiences");
        token_reviewed(r, AUTHN_UNAUTHORIZED, NULL, t);
        return;
    }
    /* as kube: a request that carries nothing but the token */
    authn_request_t req = {.authorization = gw_arena_sprintf(r->arena, "Bearer %s", token)};
    authn_result_t res = authn_authenticate(r->authn, &req, &user, &pending, why, sizeof(why));
    if (res == AUTHN_PENDING) {
        gw_authn_resolve(r, r->authn, pending, token_reviewed, t);
        return;
    }
    if (res != AUTHN_OK)
        gw_log_debug(r->audit_id, "token review: %s", why);
    gw_arena_defer(r->arena, (void (*)(void *))authn_user_free, user);
    token_reviewed(r, res, user, t);
}

void
gw_registry__review(gw_req_t *r)
{
    bool authn_group = strcmp(r->resource->group, "authentication.k8s.io") == 0;

    if (strcmp(r->info.verb, "create") == 0 && r->user != NULL &&
        strcmp(r->resource->group, "authorization.k8s.io") == 0)
        gw_registry__access_review(r);
    else if (strcmp(r->info.verb, "create") != 0 || r->user == NULL || !authn_group)
        gw_registry__reply_not_allowed(r);
    else if (strcmp(r->resource->name, "selfsubjectreviews") == 0)
        self_subject_review(r);
    else if (strcmp(r->resource->name, "tokenreviews") == 0)
        token_review(r);
    else
        gw_registry__reply_not_allowed(r);
}
