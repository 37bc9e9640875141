/*
 * Virtual kinds: reviews that are created, answered and never stored. SelfSubjectReview tells
 * the caller who it is (kubectl auth whoami), from the request's authenticated user, as
 * kube-apiserver's selfsubjectreview REST does. The others (token and access reviews) need the
 * authenticator and authorizer and are not served yet.
 */
#include "gw_registry_int.h"

#include <string.h>

static json_t *
user_info(const authn_user_t *u)
{
    json_t *info = json_pack("{s:s}", "username", u->name), *groups = json_array();

    if (u->uid != NULL && u->uid[0] != '\0')
        json_object_set_new(info, "uid", json_string(u->uid));
    for (size_t i = 0; i < u->n_groups; i++)
        json_array_append_new(groups, json_string(u->groups[i]));
    json_object_set_new(info, "groups", groups);
    if (u->n_extra > 0) {
        json_t *extra = json_object();
        for (size_t i = 0; i < u->n_extra; i++) {
            json_t *vals = json_array();
            for (size_t j = 0; j < u->extra[i].n_values; j++)
                json_array_append_new(vals, json_string(u->extra[i].values[j]));
            json_object_set_new(extra, u->extra[i].key, vals);
        }
        json_object_set_new(info, "extra", extra);
    }
    return info;
}

static void
self_subject_review(gw_req_t *r)
{
    json_t *body = gw_req_body_object(r, false, NULL), *review;
    gw_fail_t f = {0};
    gw_field_errors_t errs = {0};
    char now[21];

    if (body == NULL)
        return; /* answered */
    if (!gw_registry__check_object(r, body, NULL, NULL, r->resource->schema, NULL, 0, GW_FV_IGNORE,
                                   false, &errs, &f)) {
        gw_ferr_clear(&errs);
        gw_registry__reply_fail(r, &f);
        return;
    }
    gw_ferr_clear(&errs);
    gw_objmeta_now(now);
    review = json_pack("{s:s,s:s,s:{s:s},s:{s:o}}", "kind", r->resource->kind, "apiVersion",
                       gw_registry__api_version(r), "metadata", "creationTimestamp", now, "status",
                       "userInfo", user_info(r->user));
    gw_reply_json(r, 201, review);
}

void
gw_registry__review(gw_req_t *r)
{
    if (strcmp(r->info.verb, "create") == 0 && r->user != NULL &&
        strcmp(r->resource->group, "authentication.k8s.io") == 0 &&
        strcmp(r->resource->name, "selfsubjectreviews") == 0)
        self_subject_review(r);
    else
        gw_registry__reply_not_allowed(r);
}
