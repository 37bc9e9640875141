/*
 * The authorizer chain in --authorization-mode (or --authorization-config) order, behind
 * kube's system:masters check. The chain in use is refcounted: a decision holds the chain it
 * started with, so a reload of the configuration file swaps it without waiting.
 */
#include "authz.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "authz_abac.h"
#include "authz_int.h"
#include "authz_node.h"
#include "authz_rbac.h"
#include "authz_webhook.h"
#include "gw_clock.h"
#include "gw_alloc.h"
#include "gw_err.h"
#include "gw_file.h"
#include "gw_log.h"
#include "gw_metric.h"

#define PRIVILEGED_GROUP "system:masters"
#define COMPARE_MS 60000 /* the file's content is compared at least this often */
#define MAX_FILE (1u << 20)

struct authz {
    pthread_mutex_t mu; /* guards chain and the chains' refs */
    authz__chain_t *chain;
    /* --authorization-config only; touched by authz_reload_check's thread */
    char *path;
    struct stat stamp;
    char *text; /* the content last tried */
    size_t len;
    int64_t compared_ms;
    unsigned types; /* the non-Webhook types of start-up */
    authz_https_fn https;
};

/* ---- the built-in authorizers --------------------------------------------------------- */

static void
always_allow(const authz_authorizer_t *self, const authz_attrs_t *attrs, authz_done_cb cb,
             void *ctx)
{
    (void)self, (void)attrs;
    cb(AUTHZ_ALLOW, "", NULL, ctx);
}

/* kube's AlwaysDeny has no opinion (so a later mode may still allow) and says why. */
static void
always_deny(const authz_authorizer_t *self, const authz_attrs_t *attrs, authz_done_cb cb, void *ctx)
{
    (void)self, (void)attrs;
    cb(AUTHZ_NO_OPINION, "Everything is forbidden.", NULL, ctx);
}

static void
free_static(authz_authorizer_t *self)
{
    (void)self;
}

static authz_authorizer_t mode_always_allow = {
    .name = "AlwaysAllow", .label = "alwaysallow", .authorize = always_allow, .free = free_static};
static authz_authorizer_t mode_always_deny = {
    .name = "AlwaysDeny", .label = "alwaysdeny", .authorize = always_deny, .free = free_static};

static authz_authorizer_t *const modes_known[] = {&mode_always_allow, &mode_always_deny,
                                                  &authz_rbac_authorizer, &authz_abac_authorizer,
                                                  &authz_node_authorizer};
#define N_KNOWN (sizeof(modes_known) / sizeof(modes_known[0]))

/* ---- chains ------------------------------------------------------------------------------ */

authz__chain_t *
authz__chain_new(void)
{
    return gw_calloc(1, sizeof(authz__chain_t));
}

void
authz__chain_add(authz__chain_t *c, authz_authorizer_t *a)
{
    c->items = gw_realloc(c->items, (c->n + 1) * sizeof(*c->items));
    c->items[c->n++] = a;
}

void
authz__chain_free(authz__chain_t *c)
{
    if (c == NULL)
        return;
    for (size_t i = 0; i < c->n; i++)
        c->items[i]->free(c->items[i]);
    free(c->items);
    free(c);
}

unsigned
authz__type_bit(const char *name)
{
    for (size_t k = 0; k < N_KNOWN; k++) {
        if (strcmp(modes_known[k]->name, name) == 0)
            return 1u << k;
    }
    return 0;
}

unsigned
authz__chain_types(const authz__chain_t *c)
{
    unsigned bits = 0;

    for (size_t i = 0; i < c->n; i++) {
        for (size_t k = 0; k < N_KNOWN; k++)
            bits |= c->items[i] == modes_known[k] ? 1u << k : 0;
    }
    return bits;
}

authz_authorizer_t *
authz__builtin(const char *name)
{
    for (size_t i = 0; i < N_KNOWN; i++) {
        if (strcmp(modes_known[i]->name, name) == 0)
            return modes_known[i];
    }
    return NULL;
}

static authz__chain_t *
chain_acquire(const authz_t *z)
{
    authz_t *w = (authz_t *)z; /* the mutex and refs change; the chain does not */

    pthread_mutex_lock(&w->mu);
    authz__chain_t *c = w->chain;
    c->refs++;
    pthread_mutex_unlock(&w->mu);
    return c;
}

static void
chain_release(const authz_t *z, authz__chain_t *c)
{
    authz_t *w = (authz_t *)z;

    pthread_mutex_lock(&w->mu);
    int left = --c->refs;
    pthread_mutex_unlock(&w->mu);
    if (left == 0)
        authz__chain_free(c);
}

static authz_t *
authz_with(authz__chain_t *c)
{
    authz_t *z = gw_calloc(1, sizeof(*z));

    pthread_mutex_init(&z->mu, NULL);
    c->refs = 1;
    z->chain = c;
    return z;
}

/* ---- building from modes ------------------------------------------------------------------ */

static authz_authorizer_t *
find_mode(const char *name, size_t len)
{
    for (size_t i = 0; i < N_KNOWN; i++) {
        if (strlen(modes_known[i]->name) == len && strncmp(modes_known[i]->name, name, len) == 0)
            return modes_known[i];
    }
    return NULL;
}

static bool
chain_has(const authz__chain_t *c, const char *name)
{
    for (size_t i = 0; i < c->n; i++) {
        if (strcmp(c->items[i]->name, name) == 0)
            return true;
    }
    return false;
}

/* Add one mode to c; 0 or GW_EINVAL with the reason in err. */
static int
add_mode(authz__chain_t *c, const char *name, size_t len, char *err, size_t err_len)
{
    authz_authorizer_t *m = find_mode(name, len);
    if (m == NULL) {
        snprintf(err, err_len, "authorization-mode \"%.*s\" is not a valid mode", (int)len, name);
        return GW_EINVAL;
    }
    if (chain_has(c, m->name)) {
        snprintf(err, err_len, "authorization-mode \"%.*s\" is specified more than once", (int)len,
                 name);
        return GW_EINVAL;
    }
    authz__chain_add(c, m);
    return 0;
}

/* The Webhook mode, built from cfg. */
static int
add_webhook(authz__chain_t *c, const authz_config_t *cfg, char *err, size_t err_len)
{
    authz_authorizer_t *w = NULL;

    if (chain_has(c, "Webhook")) {
        snprintf(err, err_len, "authorization-mode \"Webhook\" is specified more than once");
        return GW_EINVAL;
    }
    if (cfg == NULL || cfg->webhook_config_file == NULL) {
        snprintf(err, err_len, "authorization-mode Webhook's authorization config file not passed");
        return GW_EINVAL;
    }
    if (authz_webhook_new(cfg, &w, err, err_len) != 0)
        return GW_EINVAL;
    authz__chain_add(c, w);
    return 0;
}

int
authz_new(const char *modes, authz_t **out, char *err, size_t err_len)
{
    return authz_new_config(modes, NULL, out, err, err_len);
}

int
authz_new_config(const char *modes, const authz_config_t *cfg, authz_t **out, char *err,
                 size_t err_len)
{
    authz__chain_t *c = authz__chain_new();
    *out = NULL;
    for (const char *p = modes;;) {
        size_t len = strcspn(p, ",");
        if (len == 0) {
            snprintf(err, err_len, "authorization-mode: empty mode in \"%s\"", modes);
            goto bad;
        }
        bool webhook = len == strlen("Webhook") && strncmp(p, "Webhook", len) == 0;
        if ((webhook ? add_webhook(c, cfg, err, err_len) : add_mode(c, p, len, err, err_len)) != 0)
            goto bad;
        if (p[len] == '\0')
            break;
        p += len + 1;
    }
    *out = authz_with(c);
    return 0;
bad:
    authz__chain_free(c);
    return GW_EINVAL;
}

/* ---- building from a file, and reloading it ---------------------------------------------- */

/* The clock; tests may replace it. */
static int64_t (*clock_ms)(void) = gw_monotonic_ms;

/* Read and build path into *out, its text into *text (new, also on failure when read).
 * GW_EINVAL with kube's message. */
static int
load(const char *path, const unsigned *require, authz_https_fn https, char **text, size_t *len,
     authz__chain_t **out, char *err, size_t err_len)
{
    *text = gw_file_read(path, MAX_FILE, len);
    if (*text == NULL) {
        snprintf(err, err_len, "failed to read file path \"%s\": %s", path, strerror(errno));
        return GW_EINVAL;
    }
    return authz__config_build(*text, *len, require, https, out, err, err_len);
}

int
authz_new_file(const char *path, const authz_config_t *cfg, authz_t **out, char *err,
               size_t err_len)
{
    authz__chain_t *c = NULL;
    char *text = NULL;
    size_t len = 0;

    *out = NULL;
    if (load(path, NULL, cfg->https, &text, &len, &c, err, err_len) != 0) {
        free(text);
        return GW_EINVAL;
    }
    authz_t *z = authz_with(c);
    z->path = gw_strdup(path);
    stat(path, &z->stamp);
    z->text = text;
    z->len = len;
    z->compared_ms = clock_ms();
    z->types = authz__chain_types(c);
    z->https = cfg->https;
    *out = z;
    return 0;
}

static bool
same_file(const struct stat *a, const struct stat *b)
{
    return a->st_ino == b->st_ino && a->st_dev == b->st_dev && a->st_size == b->st_size &&
           a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

/* Build the new text and publish its chain, or say why not. */
static void
reload(authz_t *z, const char *text, size_t len)
{
    authz__chain_t *fresh = NULL;
    char err[2048];

    if (authz__config_build(text, len, &z->types, z->https, &fresh, err, sizeof(err)) != 0) {
        gw_log_warn(NULL,
                    "--authorization-config \"%s\" not reloaded, keeping the authorizers "
                    "in use: %s",
                    z->path, err);
        gw_metric_reload(GW_RELOAD_AUTHORIZATION, false);
        return;
    }
    fresh->refs = 1;
    pthread_mutex_lock(&z->mu);
    authz__chain_t *old = z->chain;
    z->chain = fresh;
    pthread_mutex_unlock(&z->mu);
    chain_release(z, old);
    gw_log_info(NULL, "--authorization-config \"%s\" reloaded", z->path);
    gw_metric_reload(GW_RELOAD_AUTHORIZATION, true);
}

void
authz_reload_check(authz_t *z)
{
    struct stat st;
    size_t len;
    int64_t now = clock_ms();

    if (z == NULL || z->path == NULL || stat(z->path, &st) != 0)
        return;
    if (same_file(&st, &z->stamp) && now - z->compared_ms < COMPARE_MS)
        return;
    char *text = gw_file_read(z->path, MAX_FILE, &len);
    if (text == NULL)
        return; /* between a removal and a rename: looked at again next time */
    z->stamp = st;
    z->compared_ms = now;
    if (len == z->len && memcmp(text, z->text, len) == 0) {
        free(text);
        return;
    }
    free(z->text);
    z->text = text;
    z->len = len;
    reload(z, text, len);
}

void
authz_free(authz_t *z)
{
    if (z == NULL)
        return;
    chain_release(z, z->chain);
    pthread_mutex_destroy(&z->mu);
    free(z->path);
    free(z->text);
    free(z);
}

bool
authz_has_mode(const authz_t *z, const char *name)
{
    if (z == NULL)
        return false;
    authz__chain_t *c = chain_acquire(z);
    bool has = chain_has(c, name);
    chain_release(z, c);
    return has;
}

/* ---- deciding ------------------------------------------------------------------------------ */

/* One decision in progress: the authorizers are asked in turn. Reasons of those without an
 * opinion are gathered, joined by newlines as kube's union authorizer does, for the final
 * denial. An authorizer may answer inside its authorize() call or later. */
typedef struct {
    const authz_t *z;
    authz__chain_t *chain; /* a reference */
    authz_attrs_t attrs;
    size_t next;
    authz_decision_t decision; /* of the authorizer asked last */
    char *reason;              /* its reason for an ALLOW or DENY */
    char *reasons;             /* gathered NO_OPINION reasons, or NULL */
    char *errors;              /* gathered errors, or NULL */
    authz_done_cb cb;
    void *ctx;
    bool in_call;  /* inside an authorizer's authorize() */
    bool answered; /* the authorizer asked last has answered */
} decision_t;

static void ask_next(decision_t *d);

static void
finish(decision_t *d, authz_decision_t decision, const char *reason)
{
    d->cb(decision, reason, d->errors, d->ctx);
    chain_release(d->z, d->chain);
    free(d->reason);
    free(d->reasons);
    free(d->errors);
    free(d);
}

/* *list with item appended after sep. */
static void
append(char **list, const char *sep, const char *item)
{
    char *joined = *list == NULL ? gw_strdup(item) : gw_sprintf("%s%s%s", *list, sep, item);
    free(*list);
    *list = joined;
}

static void
record(decision_t *d, authz_decision_t decision, const char *reason, const char *error)
{
    if (reason == NULL)
        reason = "";
    d->decision = decision;
    d->answered = true;
    authz__count_decision(d->chain->items[d->next - 1], decision);
    if (error != NULL && *error != '\0')
        append(&d->errors, ", ", error);
    if (decision != AUTHZ_NO_OPINION)
        d->reason = gw_strdup(reason);
    else if (*reason != '\0')
        append(&d->reasons, "\n", reason);
}

/* After an authorizer's answer: done, or on to the next one. */
static void
go_on(decision_t *d)
{
    if (d->decision != AUTHZ_NO_OPINION)
        finish(d, d->decision, d->reason);
    else
        ask_next(d);
}

static void
answered(authz_decision_t decision, const char *reason, const char *error, void *ctx)
{
    decision_t *d = ctx;
    record(d, decision, reason, error);
    /* A synchronous answer goes on in ask_next's loop, keeping the stack flat. */
    if (!d->in_call)
        go_on(d);
}

static void
ask_next(decision_t *d)
{
    while (d->next < d->chain->n) {
        const authz_authorizer_t *m = d->chain->items[d->next++];
        d->answered = false;
        d->in_call = true;
        m->authorize(m, &d->attrs, answered, d);
        d->in_call = false;
        if (!d->answered)
            return; /* it answers later, through answered() */
        if (d->decision != AUTHZ_NO_OPINION) {
            finish(d, d->decision, d->reason);
            return;
        }
    }
    finish(d, AUTHZ_NO_OPINION, d->reasons != NULL ? d->reasons : "");
}

static bool
privileged(const authn_user_t *u)
{
    for (size_t i = 0; u != NULL && i < u->n_groups; i++) {
        if (strcmp(u->groups[i], PRIVILEGED_GROUP) == 0)
            return true;
    }
    return false;
}

void
authz_authorize(const authz_t *z, const authz_attrs_t *attrs, authz_done_cb cb, void *ctx)
{
    if (privileged(attrs->user)) {
        cb(AUTHZ_ALLOW, "", NULL, ctx);
        return;
    }
    decision_t *d = gw_calloc(1, sizeof(*d));
    *d = (decision_t){.z = z, .chain = chain_acquire(z), .attrs = *attrs, .cb = cb, .ctx = ctx};
    ask_next(d);
}
