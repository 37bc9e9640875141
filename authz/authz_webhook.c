/*
 * The Webhook authorizer: kube's webhook authorizer with its decision cache, match conditions
 * and failure policy. The review is built, its match conditions evaluated and its cache key
 * taken on the caller's thread; the exchange ends on the same thread (the HTTPS function's
 * contract), where the answer is read, cached and passed on.
 */
#include "authz_webhook.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>
#include <openssl/sha.h>

#include "authz_int.h"
#include "gw_clock.h"
#include "gw_alloc.h"
#include "gw_err.h"
#include "gw_errlist.h"
#include "gw_json_strings.h"
#include "gw_log.h"
#include "gw_selector.h"
#include "gw_json.h"

#define CEL_BUDGET 1000000 /* the cost limit of one match condition's evaluation */
#define CACHE_SLOTS 4096   /* direct-mapped by the spec's hash: bounded whatever clients ask */

typedef struct {
    unsigned char hash[SHA256_DIGEST_LENGTH];
    int64_t expires_ms; /* 0: empty slot */
    authz_decision_t decision;
    char *reason;
} slot_t;

typedef struct {
    authz_authorizer_t base; /* first: the chain holds and frees it as an authorizer */
    char *label;             /* base.label's storage */
    char *server;
    authn_tls_t tls;
    char *api_version;      /* authorization.k8s.io/v1beta1 or /v1 */
    const char *groups_key; /* "group" in v1beta1, "groups" in v1 */
    int64_t allowed_ttl_ms, other_ttl_ms;
    authz_decision_t on_error; /* the failure policy: NO_OPINION or DENY */
    cel_program_t **conds;     /* match conditions, over the v1 spec */
    char **cond_src;
    size_t n_conds;
    authz_https_fn https;
    pthread_mutex_t mu; /* guards slots */
    slot_t slots[CACHE_SLOTS];
} webhook_t;

/* One review in flight. */
typedef struct {
    webhook_t *w;
    int64_t start_ns;
    unsigned char hash[SHA256_DIGEST_LENGTH];
    authz_done_cb cb;
    void *ctx;
} review_t;

/* ---- the cache ------------------------------------------------------------------------- */

static slot_t *
slot_of(webhook_t *w, const unsigned char *hash)
{
    return &w->slots[((size_t)hash[0] << 8 | hash[1]) % CACHE_SLOTS];
}

/* A live answer for hash: true with *decision and *reason (new), false when none. */
static bool
cache_get(webhook_t *w, const unsigned char *hash, authz_decision_t *decision, char **reason)
{
    bool found = false;

    pthread_mutex_lock(&w->mu);
    slot_t *s = slot_of(w, hash);
    if (s->expires_ms > gw_monotonic_ms() && memcmp(s->hash, hash, sizeof(s->hash)) == 0) {
        *decision = s->decision;
        *reason = gw_strdup(s->reason);
        found = true;
    }
    pthread_mutex_unlock(&w->mu);
    return found;
}

static void
cache_put(webhook_t *w, const unsigned char *hash, authz_decision_t decision, const char *reason)
{
    int64_t ttl = decision == AUTHZ_ALLOW ? w->allowed_ttl_ms : w->other_ttl_ms;
    char *copy = gw_strdup(reason), *old;

    pthread_mutex_lock(&w->mu);
    slot_t *s = slot_of(w, hash);
    old = s->reason;
    memcpy(s->hash, hash, sizeof(s->hash));
    s->decision = decision;
    s->reason = copy;
    s->expires_ms = gw_monotonic_ms() + ttl;
    pthread_mutex_unlock(&w->mu);
    free(old);
}

/* ---- the review ------------------------------------------------------------------------ */

/* Set key to s unless s is NULL or empty (kube's omitempty). */
static void
set_str(json_t *obj, const char *key, const char *s)
{
    if (s != NULL && *s != '\0')
        json_object_set_new(obj, key, json_string(s));
}

/* kube 1.32's operator names for a selector requirement, NULL for those it leaves out. */
static const char *
operator_name(gw_sel_op_t op)
{
    switch (op) {
    case GW_SEL_EQUALS:
    case GW_SEL_IN:
        return "In";
    case GW_SEL_NOT_EQUALS:
    case GW_SEL_NOT_IN:
        return "NotIn";
    case GW_SEL_EXISTS:
        return "Exists";
    case GW_SEL_NOT_EXISTS:
        return "DoesNotExist";
    default:
        return NULL;
    }
}

/* {requirements: [{key, operator, values}]} of a parsed selector, or NULL when none is left. */
static json_t *
requirements(const gw_selector_t *sel)
{
    json_t *list = json_array();

    for (size_t i = 0; i < sel->n; i++) {
        const char *op = operator_name(sel->reqs[i].op);
        if (op == NULL)
            continue;
        json_t *r = json_pack("{s:s, s:s}", "key", sel->reqs[i].key, "operator", op);
        json_t *values = gw_json_strings(sel->reqs[i].values, sel->reqs[i].n_values);
        json_object_set_new(r, "values", values);
        if (json_array_size(values) == 0)
            json_object_del(r, "values"); /* omitempty */
        json_array_append_new(list, r);
    }
    if (json_array_size(list) > 0)
        return json_pack("{s:o}", "requirements", list);
    json_decref(list);
    return NULL;
}

/* The request's selectors as kube 1.32 sends them; an unparsable one is left out. */
static void
selectors(json_t *o, const authz_attrs_t *a)
{
    gw_selector_t sel = {0};
    char why[256];
    json_t *r;

    if (a->field_selector != NULL && *a->field_selector != '\0' &&
        gw_field_selector_parse(a->field_selector, &sel, why, sizeof(why)) == 0 &&
        (r = requirements(&sel)) != NULL)
        json_object_set_new(o, "fieldSelector", r);
    gw_selector_clear(&sel);
    if (a->label_selector != NULL && *a->label_selector != '\0' &&
        gw_label_selector_parse(a->label_selector, &sel, why, sizeof(why)) == 0 &&
        (r = requirements(&sel)) != NULL)
        json_object_set_new(o, "labelSelector", r);
    gw_selector_clear(&sel);
}

static json_t *
attributes(const authz_attrs_t *a)
{
    json_t *o = json_object();

    if (!a->resource_request) {
        set_str(o, "path", a->path);
        set_str(o, "verb", a->verb);
        return o;
    }
    set_str(o, "namespace", a->namespace_);
    set_str(o, "verb", a->verb);
    set_str(o, "group", a->api_group);
    set_str(o, "version", a->api_version);
    set_str(o, "resource", a->resource);
    set_str(o, "subresource", a->subresource);
    set_str(o, "name", a->name);
    selectors(o, a);
    return o;
}

static void
set_user(json_t *spec, const authn_user_t *u)
{
    json_t *groups = gw_json_strings(u->groups, u->n_groups), *extra = json_object();

    set_str(spec, "user", u->name);
    set_str(spec, "uid", u->uid);
    for (size_t i = 0; i < u->n_extra; i++)
        json_object_set_new(extra, u->extra[i].key,
                            gw_json_strings(u->extra[i].values, u->extra[i].n_values));
    if (json_array_size(groups) > 0)
        json_object_set(spec, "groups", groups);
    if (json_object_size(extra) > 0)
        json_object_set(spec, "extra", extra);
    json_decref(groups);
    json_decref(extra);
}

/* The v1 SubjectAccessReviewSpec of the attributes (what match conditions see). */
static json_t *
review_spec(const authz_attrs_t *a)
{
    json_t *spec = json_object();

    if (a->user != NULL)
        set_user(spec, a->user);
    json_object_set_new(spec, a->resource_request ? "resourceAttributes" : "nonResourceAttributes",
                        attributes(a));
    return spec;
}

/* The review's body (new) of the v1 spec in w's version, and the cache key: the hash of its
 * spec with sorted keys. */
static char *
review_body(const webhook_t *w, json_t *spec, unsigned char *hash)
{
    json_t *groups = json_object_get(spec, "groups");

    if (groups != NULL && strcmp(w->groups_key, "groups") != 0) {
        json_object_set(spec, w->groups_key, groups);
        json_object_del(spec, "groups");
    }
    char *key = gw_json_dumps(spec, JSON_COMPACT | JSON_SORT_KEYS);
    SHA256((const unsigned char *)key, strlen(key), hash);
    free(key);
    json_t *doc = json_pack("{s:s, s:s, s:{s:n}, s:O, s:{s:b}}", "apiVersion", w->api_version,
                            "kind", "SubjectAccessReview", "metadata", "creationTimestamp", "spec",
                            spec, "status", "allowed", 0);
    char *body = gw_json_dumps(doc, JSON_COMPACT);
    json_decref(doc);
    return body;
}

/* ---- match conditions ------------------------------------------------------------------- */

/* One condition's outcome on spec: 1 true, 0 false, -1 an error (added to errs). */
static int
condition(const webhook_t *w, size_t i, const json_t *spec, gw_errlist_t *errs)
{
    cel_arena_t *arena = cel_arena_new();
    cel_activation_t *act = cel_activation_new(arena);
    cel_value_t v;
    int rc = -1;

    cel_activation_bind_json(act, "request", spec);
    cel_eval(w->conds[i], act, arena, CEL_BUDGET, &v, NULL);
    if (v.kind == CEL_BOOL)
        rc = v.v.b ? 1 : 0;
    else if (v.kind == CEL_ERROR)
        gw_errlist_add(errs, "cel evaluation error: expression '%s' resulted in error: %s",
                       w->cond_src[i], v.v.err);
    else
        gw_errlist_add(errs,
                       "cel evaluation error: expression '%s' eval result type should be bool "
                       "but got %s",
                       w->cond_src[i], cel_type_name(cel_value_type(&v)));
    cel_arena_free(arena);
    return rc;
}

/* kube's matcher: true when every condition holds; otherwise the decision is given here (no
 * opinion for the first false one; with errors and none false, the failure policy's decision
 * and the errors joined as kube's aggregate). */
static bool
conditions_hold(const webhook_t *w, const json_t *spec, authz_done_cb cb, void *ctx)
{
    gw_errlist_t errs = {0};
    char error[4096];
    int64_t start = gw_monotonic_ns();
    authz__conditions_t outcome = AUTHZ__CONDITIONS_HOLD;

    for (size_t i = 0; i < w->n_conds && outcome == AUTHZ__CONDITIONS_HOLD; i++) {
        if (condition(w, i, spec, &errs) == 0)
            outcome = AUTHZ__CONDITIONS_EXCLUDED;
    }
    if (outcome == AUTHZ__CONDITIONS_HOLD && errs.n > 0)
        outcome = AUTHZ__CONDITIONS_ERROR;
    authz__count_conditions(&w->base, outcome, (double)(gw_monotonic_ns() - start) / 1e9);
    if (outcome == AUTHZ__CONDITIONS_HOLD)
        return true;
    if (outcome == AUTHZ__CONDITIONS_EXCLUDED) {
        gw_errlist_clear(&errs);
        cb(AUTHZ_NO_OPINION, "", NULL, ctx);
        return false;
    }
    gw_errlist_print(&errs, "", error, sizeof(error));
    cb(w->on_error, "", error, ctx);
    return false;
}

/* ---- the exchange ------------------------------------------------------------------------ */

/* The decision of a 2xx answer's body: 0 with *reason (new), or GW_EINVAL when it is not a
 * SubjectAccessReview with a status. */
static int
read_answer(const char *body, size_t len, authz_decision_t *decision, char **reason)
{
    json_t *doc = gw_json_loadb(body, len, 0, NULL);
    const json_t *status = json_object_get(doc, "status");
    const char *why = json_string_value(json_object_get(status, "reason"));
    int rc = GW_EINVAL;

    if (json_is_object(status)) {
        if (json_is_true(json_object_get(status, "allowed")))
            *decision = AUTHZ_ALLOW;
        else if (json_is_true(json_object_get(status, "denied")))
            *decision = AUTHZ_DENY;
        else
            *decision = AUTHZ_NO_OPINION;
        *reason = gw_strdup(why != NULL ? why : "");
        rc = 0;
    }
    json_decref(doc);
    return rc;
}

static void
reviewed(int err, int status, const char *body, size_t len, void *ctx)
{
    review_t *rv = ctx;
    authz_decision_t decision = AUTHZ_NO_OPINION;
    char *reason = NULL, *error = NULL;

    if (err != 0)
        error = gw_sprintf("authorization webhook %s: %s", rv->w->server,
                           err == GW_ETIMEOUT ? "no answer in time" : "cannot be reached");
    else if (status < 200 || status > 299)
        error = gw_sprintf("authorization webhook %s: HTTP status %d", rv->w->server, status);
    else if (read_answer(body, len, &decision, &reason) != 0)
        error = gw_sprintf("authorization webhook %s: not a SubjectAccessReview", rv->w->server);
    if (error != NULL) {
        gw_log_warn(NULL, "%s", error);
        decision = rv->w->on_error; /* kube's failurePolicy; not cached */
    } else {
        cache_put(rv->w, rv->hash, decision, reason);
    }
    authz__count_webhook(rv->w->label,
                         error == NULL        ? "success"
                         : err == GW_ETIMEOUT ? "timeout"
                                              : "error",
                         (double)(gw_monotonic_ns() - rv->start_ns) / 1e9,
                         error != NULL && decision == AUTHZ_NO_OPINION);
    rv->cb(decision, reason != NULL ? reason : "", error, rv->ctx);
    free(reason);
    free(error);
    free(rv);
}

/* After the match conditions: from the cache, or the exchange. */
static void
review(webhook_t *w, json_t *spec, void *io, authz_done_cb cb, void *ctx)
{
    review_t *rv = gw_calloc(1, sizeof(*rv));
    authz_decision_t decision;
    char *reason;

    *rv = (review_t){.w = w, .cb = cb, .ctx = ctx};
    char *body = review_body(w, spec, rv->hash);
    if (cache_get(w, rv->hash, &decision, &reason)) {
        cb(decision, reason, NULL, ctx);
        free(reason);
        free(rv);
    } else if (io == NULL) {
        free(rv);
        cb(AUTHZ_NO_OPINION, "", NULL, ctx); /* a caller that cannot wait */
    } else {
        rv->start_ns = gw_monotonic_ns();
        w->https(io, w->server, body, &w->tls, reviewed, rv);
    }
    free(body);
}

static void
authorize(const authz_authorizer_t *self, const authz_attrs_t *attrs, authz_done_cb cb, void *ctx)
{
    webhook_t *w = (webhook_t *)self;
    json_t *spec = review_spec(attrs);

    /* As kube: the conditions come first, so a skipped request is neither cached nor sent. */
    if (w->n_conds == 0 || conditions_hold(w, spec, cb, ctx))
        review(w, spec, attrs->io, cb, ctx);
    json_decref(spec);
}

/* ---- building ---------------------------------------------------------------------------- */

static void
free_conditions(cel_program_t **conds, size_t n)
{
    for (size_t i = 0; i < n; i++)
        cel_program_free(conds[i]);
}

static void
webhook_free(authz_authorizer_t *self)
{
    webhook_t *w = (webhook_t *)self;

    for (size_t i = 0; i < CACHE_SLOTS; i++)
        free(w->slots[i].reason);
    pthread_mutex_destroy(&w->mu);
    authn_kubeconfig_clear(&w->server, &w->tls);
    free_conditions(w->conds, w->n_conds);
    for (size_t i = 0; i < w->n_conds; i++)
        free(w->cond_src[i]);
    free(w->conds);
    free(w->cond_src);
    free(w->api_version);
    free(w->label);
    free(w);
}

/* Take the condition programs (and copies of their source) over. */
static void
take_conditions(webhook_t *w, const authz__webhook_opts_t *o)
{
    if (o->n_conditions == 0)
        return;
    w->conds = gw_calloc(o->n_conditions, sizeof(*w->conds));
    w->cond_src = gw_calloc(o->n_conditions, sizeof(*w->cond_src));
    for (size_t i = 0; i < o->n_conditions; i++) {
        w->conds[i] = o->conditions[i];
        w->cond_src[i] = gw_strdup(o->condition_src[i]);
    }
    w->n_conds = o->n_conditions;
}

int
authz__webhook_new(const authz__webhook_opts_t *o, authz_authorizer_t **out, char *err,
                   size_t err_len)
{
    const char *version = o->version != NULL ? o->version : "v1beta1";
    char why[256] = "";

    *out = NULL;
    webhook_t *w = gw_calloc(1, sizeof(*w));
    if (authn_kubeconfig_read(o->kubeconfig, &w->server, &w->tls, why, sizeof(why)) != 0) {
        snprintf(err, err_len, "%s \"%s\": %s", o->kubeconfig_flag, o->kubeconfig, why);
        free_conditions(o->conditions, o->n_conditions);
        free(w);
        return GW_EINVAL;
    }
    w->label = gw_strdup(o->name);
    w->base = (authz_authorizer_t){
        .name = "Webhook", .label = w->label, .authorize = authorize, .free = webhook_free};
    w->api_version = gw_sprintf("authorization.k8s.io/%s", version);
    w->groups_key = strcmp(version, "v1") == 0 ? "groups" : "group";
    w->allowed_ttl_ms = o->authorized_ttl_ms;
    w->other_ttl_ms = o->unauthorized_ttl_ms;
    w->on_error = o->deny_on_error ? AUTHZ_DENY : AUTHZ_NO_OPINION;
    if (o->timeout_ms > 0)
        w->tls.timeout_ms = o->timeout_ms;
    w->https = o->https;
    take_conditions(w, o);
    pthread_mutex_init(&w->mu, NULL);
    *out = &w->base;
    return 0;
}

int
authz_webhook_new(const authz_config_t *cfg, authz_authorizer_t **out, char *err, size_t err_len)
{
    authz__webhook_opts_t o = {
        .name = "webhook", /* kube's name for the --authorization-mode Webhook */
        .kubeconfig = cfg->webhook_config_file,
        .kubeconfig_flag = "--authorization-webhook-config-file",
        .version = cfg->webhook_version,
        .authorized_ttl_ms = cfg->webhook_authorized_ttl_ms,
        .unauthorized_ttl_ms = cfg->webhook_unauthorized_ttl_ms,
        .https = cfg->https,
    };

    if (cfg->https == NULL) {
        *out = NULL;
        snprintf(err, err_len, "the Webhook authorizer has no HTTPS client");
        return GW_EINVAL;
    }
    return authz__webhook_new(&o, out, err, err_len);
}
