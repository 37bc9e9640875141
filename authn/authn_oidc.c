/*
 * The JWT authenticators in the token union: the token's issuer picks the authenticator; its
 * keys come from the discovery document and JWKS through pending HTTPS needs and stay cached;
 * a token no cached key verifies fetches the keys again (as go-oidc's remote key set does),
 * at most once per REFETCH_MS. The configuration file, when there is one, is checked for
 * changes every RELOAD_MS on use; a new file that does not validate keeps the old set.
 */
#include "authn_oidc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "authn_file.h"
#include "authn_jwt.h"
#include "gw_clock.h"
#include "gw_alloc.h"
#include "gw_err.h"
#include "gw_log.h"
#include "gw_metric.h"
#include "gw_json.h"

#define REFETCH_MS 5000 /* the fewest milliseconds between two fetches of an issuer's keys */
#define RELOAD_MS 10000 /* how often the configuration file is looked at */
#define FETCH_TIMEOUT_MS 10000
#define WELL_KNOWN "/.well-known/openid-configuration"

struct authn__oidc {
    pthread_mutex_t mu; /* guards set, the sets' refs and the file's stamp */
    authn__jwt_set_t *set;
    char *path; /* --authentication-config, or NULL */
    struct stat stamp;
    int64_t checked_ms;
};

static long long
wall_s(void)
{
    return (long long)time(NULL);
}

/* The clocks; tests may replace them. */
static int64_t (*clock_ms)(void) = gw_monotonic_ms;
static long long (*clock_s)(void) = wall_s;

/* ---- authenticators and sets ----------------------------------------------------------- */

authn__jwt_auth_t *
authn__jwt_auth_new(void)
{
    authn__jwt_auth_t *j = gw_calloc(1, sizeof(*j));

    pthread_mutex_init(&j->mu, NULL);
    j->tls.timeout_ms = FETCH_TIMEOUT_MS;
    return j;
}

static void
mapping_clear(authn__mapping_t *m)
{
    free(m->claim);
    free(m->prefix);
    cel_program_free(m->expr);
}

static void
rules_free(authn__rule_t *r, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(r[i].claim);
        free(r[i].value);
        free(r[i].message);
        cel_program_free(r[i].expr);
    }
    free(r);
}

static void
keys_free(authn__jwk_t *keys, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(keys[i].kid);
        EVP_PKEY_free(keys[i].key);
    }
    free(keys);
}

void
authn__jwt_auth_free(authn__jwt_auth_t *j)
{
    if (j == NULL)
        return;
    free(j->issuer);
    free(j->discovery_url);
    free((char *)j->tls.ca_pem);
    for (size_t i = 0; i < j->n_audiences; i++)
        free(j->audiences[i]);
    free(j->audiences);
    for (size_t i = 0; i < j->n_algs; i++)
        free(j->algs[i]);
    free(j->algs);
    mapping_clear(&j->username);
    mapping_clear(&j->groups);
    mapping_clear(&j->uid);
    for (size_t i = 0; i < j->n_extra; i++) {
        free(j->extra[i].key);
        cel_program_free(j->extra[i].expr);
    }
    free(j->extra);
    rules_free(j->claim_rules, j->n_claim_rules);
    rules_free(j->user_rules, j->n_user_rules);
    free(j->jwks_uri);
    keys_free(j->keys, j->n_keys);
    pthread_mutex_destroy(&j->mu);
    free(j);
}

void
authn__jwt_set_free(authn__jwt_set_t *s)
{
    if (s == NULL)
        return;
    for (size_t i = 0; i < s->n; i++)
        authn__jwt_auth_free(s->auths[i]);
    free(s->auths);
    free(s);
}

static authn__jwt_set_t *
set_acquire(authn__oidc_t *o)
{
    pthread_mutex_lock(&o->mu);
    authn__jwt_set_t *s = o->set;
    s->refs++;
    pthread_mutex_unlock(&o->mu);
    return s;
}

static void
set_release(authn__oidc_t *o, authn__jwt_set_t *s)
{
    pthread_mutex_lock(&o->mu);
    int left = --s->refs;
    pthread_mutex_unlock(&o->mu);
    if (left == 0)
        authn__jwt_set_free(s);
}

/* ---- one authentication ---------------------------------------------------------------- */

typedef enum { STEP_DISCOVERY, STEP_KEYS } step_t;

/* A token on its way: the state of its pending needs. */
typedef struct {
    authn__oidc_t *o;
    authn__jwt_set_t *set; /* a reference: keeps j alive */
    authn__jwt_auth_t *j;
    authn_jwt_t *jwt;
    bool refetched; /* the keys were fetched for this token already */
    step_t step;
} job_t;

static void
job_free(void *state)
{
    job_t *job = state;

    if (job->set != NULL)
        set_release(job->o, job->set);
    authn_jwt_free(job->jwt);
    free(job);
}

/* The job in a new state (the old one, freed with its pending authentication, keeps nothing). */
static job_t *
job_move(job_t *job)
{
    job_t *moved = gw_malloc(sizeof(*moved));

    *moved = *job;
    job->set = NULL;
    job->jwt = NULL;
    return moved;
}

static authn__verdict_t fetched(const authn_t *a, void *state, const authn_answer_t *answers,
                                authn_user_t **user, authn_pending_t **pending, const char **why);

static authn__verdict_t
ask(job_t *job, step_t step, const char *url, authn_pending_t **pending)
{
    job->step = step;
    *pending = authn__pending_new(fetched, job, job_free);
    authn__need_https(*pending, "GET", url, NULL, &job->j->tls);
    return AUTHN__PENDING;
}

static bool
alg_ok(const authn__jwt_auth_t *j, const char *alg)
{
    for (size_t i = 0; i < j->n_algs; i++) {
        if (strcmp(j->algs[i], alg) == 0)
            return true;
    }
    return false;
}

/* Whether a cached key verifies the token: 1 yes, 0 no, -1 nothing known yet. */
static int
verified(authn__jwt_auth_t *j, const authn_jwt_t *jwt, char **jwks_uri)
{
    int result = -1;

    pthread_mutex_lock(&j->mu);
    *jwks_uri = j->jwks_uri != NULL ? gw_strdup(j->jwks_uri) : NULL;
    for (size_t i = 0; i < j->n_keys; i++) {
        if (jwt->kid != NULL && j->keys[i].kid != NULL && strcmp(jwt->kid, j->keys[i].kid) != 0)
            continue;
        result = authn_jwt_verify(jwt, j->keys[i].key) == 0;
        if (result == 1)
            break;
    }
    pthread_mutex_unlock(&j->mu);
    return result;
}

static bool
may_refetch(authn__jwt_auth_t *j)
{
    pthread_mutex_lock(&j->mu);
    bool ok = j->fetched_ms == 0 || clock_ms() - j->fetched_ms >= REFETCH_MS;
    pthread_mutex_unlock(&j->mu);
    return ok;
}

/* Decide the job (consumed), or ask for what it lacks. */
static authn__verdict_t
decide(job_t *job, authn_user_t **user, authn_pending_t **pending, const char **why)
{
    char *jwks_uri = NULL;
    authn__verdict_t v = AUTHN__REFUSED;
    int ok = verified(job->j, job->jwt, &jwks_uri);

    if (ok == 1) {
        v = authn__jwt_claims_user(job->j, job->jwt->claims, clock_s(), user, why);
    } else if (jwks_uri == NULL) {
        v = ask(job, STEP_DISCOVERY, job->j->discovery_url, pending);
        job = NULL;
    } else if (!job->refetched && may_refetch(job->j)) {
        v = ask(job, STEP_KEYS, jwks_uri, pending);
        job = NULL;
    } else {
        *why =
            ok == 0 ? "oidc: failed to verify signature" : "oidc: no key with the token's key id";
    }
    free(jwks_uri);
    if (job != NULL)
        job_free(job);
    return v;
}

/* The discovery document: the issuer it names must be ours; keep its jwks_uri. */
static bool
take_discovery(authn__jwt_auth_t *j, const json_t *doc, const char **why)
{
    const char *issuer = json_string_value(json_object_get(doc, "issuer"));
    const char *uri = json_string_value(json_object_get(doc, "jwks_uri"));

    if (issuer == NULL || strcmp(issuer, j->issuer) != 0) {
        *why = "oidc: issuer did not match the issuer returned by provider";
        return false;
    }
    if (uri == NULL || strncmp(uri, "https://", 8) != 0) {
        *why = "oidc: the discovery document has no https jwks_uri";
        return false;
    }
    pthread_mutex_lock(&j->mu);
    free(j->jwks_uri);
    j->jwks_uri = gw_strdup(uri);
    pthread_mutex_unlock(&j->mu);
    return true;
}

/* A JWKS: every key that reads replaces the cached ones. */
static bool
take_keys(authn__jwt_auth_t *j, const json_t *doc, const char **why)
{
    const json_t *keys = json_object_get(doc, "keys"), *k;
    authn__jwk_t *got = gw_calloc(json_array_size(keys) + 1, sizeof(*got));
    size_t n = 0, i;

    json_array_foreach(keys, i, k)
    {
        EVP_PKEY *key = authn_jwk_to_key(k);
        const char *kid = json_string_value(json_object_get(k, "kid"));
        if (key != NULL)
            got[n++] = (authn__jwk_t){kid != NULL ? gw_strdup(kid) : NULL, key};
    }
    if (n == 0) {
        free(got);
        *why = "oidc: the issuer's key set holds no usable key";
        return false;
    }
    pthread_mutex_lock(&j->mu);
    keys_free(j->keys, j->n_keys);
    j->keys = got;
    j->n_keys = n;
    j->fetched_ms = clock_ms();
    pthread_mutex_unlock(&j->mu);
    return true;
}

static authn__verdict_t
fetched(const authn_t *a, void *state, const authn_answer_t *answers, authn_user_t **user,
        authn_pending_t **pending, const char **why)
{
    job_t *job = state;
    const authn_answer_t *ans = &answers[0];
    json_t *doc = NULL;
    bool ok = false;

    (void)a;
    if (ans->err != 0 || ans->status != 200)
        *why = "oidc: cannot fetch the issuer's discovery document or keys";
    else if ((doc = gw_json_loadb(ans->body, ans->body_len, 0, NULL)) == NULL)
        *why = "oidc: the issuer's answer is not JSON";
    else if (job->step == STEP_DISCOVERY)
        ok = take_discovery(job->j, doc, why);
    else
        ok = job->refetched = take_keys(job->j, doc, why);
    json_decref(doc);
    return ok ? decide(job_move(job), user, pending, why) : AUTHN__REFUSED;
}

/* ---- the configuration file ------------------------------------------------------------- */

static bool
same_file(const struct stat *a, const struct stat *b)
{
    return a->st_ino == b->st_ino && a->st_dev == b->st_dev && a->st_size == b->st_size &&
           a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

/* Read and validate the file into *out; GW_EINVAL with a reason. */
static int
load(const char *path, authn__jwt_set_t **out, char *err, size_t err_len)
{
    size_t len;
    char why[1024] = "";
    char *text = authn__file_read(path, &len);

    if (text == NULL) {
        snprintf(err, err_len, "cannot read --authentication-config \"%s\": %s", path,
                 strerror(errno));
        return GW_EINVAL;
    }
    int rc = len == 0 ? GW_EINVAL : authn__config_parse(text, len, out, why, sizeof(why));
    free(text);
    if (rc != 0)
        snprintf(err, err_len, "--authentication-config \"%s\": %s", path,
                 len == 0 ? "empty config data" : why);
    return rc;
}

/* A changed file replaces the set; one that does not validate is logged and ignored. */
static void
maybe_reload(authn__oidc_t *o)
{
    struct stat st;
    authn__jwt_set_t *fresh = NULL, *old = NULL;
    char err[1024];
    int64_t now = clock_ms();

    pthread_mutex_lock(&o->mu);
    bool due = o->path != NULL && now - o->checked_ms >= RELOAD_MS;
    if (due)
        o->checked_ms = now;
    pthread_mutex_unlock(&o->mu);
    if (!due || stat(o->path, &st) != 0 || same_file(&st, &o->stamp))
        return;
    if (load(o->path, &fresh, err, sizeof(err)) != 0)
        gw_log_warn(NULL, "%s; keeping the authenticators in use", err);
    else
        gw_log_info(NULL, "--authentication-config \"%s\" reloaded", o->path);
    gw_metric_reload(GW_RELOAD_AUTHENTICATION, fresh != NULL);
    pthread_mutex_lock(&o->mu);
    o->stamp = st;
    if (fresh != NULL) {
        old = o->set;
        fresh->refs = 1;
        o->set = fresh;
    }
    int left = old != NULL ? --old->refs : 1;
    pthread_mutex_unlock(&o->mu);
    if (left == 0)
        authn__jwt_set_free(old);
}

/* ---- the authenticator in the chain ------------------------------------------------------ */

authn__verdict_t
authn__oidc_token(const authn_t *a, const char *token, authn_user_t **user,
                  authn_pending_t **pending, const char **why)
{
    authn__oidc_t *o = a->oidc;
    authn_jwt_t *jwt = NULL;

    if (o == NULL || authn_jwt_parse(token, &jwt, NULL) != 0)
        return AUTHN__NOT_MINE;
    maybe_reload(o);
    const char *iss = json_string_value(json_object_get(jwt->claims, "iss"));
    authn__jwt_set_t *set = set_acquire(o);
    for (size_t i = 0; iss != NULL && i < set->n; i++) {
        authn__jwt_auth_t *j = set->auths[i];
        if (strcmp(j->issuer, iss) != 0)
            continue;
        if (!alg_ok(j, jwt->alg)) {
            *why = "oidc: the token is signed with an algorithm that is not accepted";
            break;
        }
        job_t *job = gw_calloc(1, sizeof(*job));
        *job = (job_t){.o = o, .set = set, .j = j, .jwt = jwt};
        return decide(job, user, pending, why);
    }
    set_release(o, set);
    authn_jwt_free(jwt);
    return *why != NULL ? AUTHN__REFUSED : AUTHN__NOT_MINE;
}

int
authn__oidc_new(const authn_config_t *cfg, authn__oidc_t **out, char *err, size_t err_len)
{
    authn__jwt_set_t *set = NULL;
    int rc;

    *out = NULL;
    if (cfg->authentication_config != NULL)
        rc = load(cfg->authentication_config, &set, err, err_len);
    else
        rc = authn__oidc_flags(cfg, &set, err, err_len);
    if (rc != 0 || set == NULL)
        return rc;
    authn__oidc_t *o = gw_calloc(1, sizeof(*o));
    pthread_mutex_init(&o->mu, NULL);
    set->refs = 1;
    o->set = set;
    if (cfg->authentication_config != NULL) {
        o->path = gw_strdup(cfg->authentication_config);
        stat(o->path, &o->stamp);
        o->checked_ms = clock_ms();
    }
    *out = o;
    return 0;
}

void
authn__oidc_free(authn__oidc_t *o)
{
    if (o == NULL)
        return;
    authn__jwt_set_free(o->set);
    pthread_mutex_destroy(&o->mu);
    free(o->path);
    free(o);
}
