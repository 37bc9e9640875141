/* The authorizer chain in --authorization-mode order, behind kube's system:masters check. */
#include "authz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "authz_abac.h"
#include "authz_node.h"
#include "authz_rbac.h"
#include "authz_webhook.h"
#include "gw_alloc.h"
#include "gw_err.h"

#define PRIVILEGED_GROUP "system:masters"
#define MAX_MODES 8

struct authz {
    authz_authorizer_t *chain[MAX_MODES];
    size_t n;
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
    .name = "AlwaysAllow", .authorize = always_allow, .free = free_static};
static authz_authorizer_t mode_always_deny = {
    .name = "AlwaysDeny", .authorize = always_deny, .free = free_static};

static authz_authorizer_t *const modes_known[] = {&mode_always_allow, &mode_always_deny,
                                                  &authz_rbac_authorizer, &authz_abac_authorizer,
                                                  &authz_node_authorizer};

/* ---- building the chain ----------------------------------------------------------------- */

static authz_authorizer_t *
find_mode(const char *name, size_t len)
{
    for (size_t i = 0; i < sizeof(modes_known) / sizeof(modes_known[0]); i++) {
        if (strlen(modes_known[i]->name) == len && strncmp(modes_known[i]->name, name, len) == 0)
            return modes_known[i];
    }
    return NULL;
}

/* Add one mode to z; 0 or GW_EINVAL with the reason in err. */
static int
add_mode(authz_t *z, const char *name, size_t len, char *err, size_t err_len)
{
    authz_authorizer_t *m = find_mode(name, len);
    if (m == NULL) {
        snprintf(err, err_len, "authorization-mode \"%.*s\" is not a valid mode", (int)len, name);
        return GW_EINVAL;
    }
    for (size_t i = 0; i < z->n; i++) {
        if (z->chain[i] == m) {
            snprintf(err, err_len, "authorization-mode \"%.*s\" is specified more than once",
                     (int)len, name);
            return GW_EINVAL;
        }
    }
    z->chain[z->n++] = m;
    return 0;
}

/* The Webhook mode, built from cfg. */
static int
add_webhook(authz_t *z, const authz_config_t *cfg, char *err, size_t err_len)
{
    if (authz_has_mode(z, "Webhook")) {
        snprintf(err, err_len, "authorization-mode \"Webhook\" is specified more than once");
        return GW_EINVAL;
    }
    if (cfg == NULL || cfg->webhook_config_file == NULL) {
        snprintf(err, err_len,
                 "authorization-mode Webhook's authorization config file not passed");
        return GW_EINVAL;
    }
    if (authz_webhook_new(cfg, &z->chain[z->n], err, err_len) != 0)
        return GW_EINVAL;
    z->n++;
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
    authz_t *z = gw_calloc(1, sizeof(*z));
    *out = NULL;
    for (const char *p = modes;;) {
        size_t len = strcspn(p, ",");
        if (len == 0) {
            snprintf(err, err_len, "authorization-mode: empty mode in \"%s\"", modes);
            goto bad;
        }
        bool webhook = len == strlen("Webhook") && strncmp(p, "Webhook", len) == 0;
        if ((webhook ? add_webhook(z, cfg, err, err_len) : add_mode(z, p, len, err, err_len)) != 0)
            goto bad;
        if (p[len] == '\0')
            break;
        p += len + 1;
    }
    *out = z;
    return 0;
bad:
    authz_free(z);
    return GW_EINVAL;
}

void
authz_free(authz_t *z)
{
    if (z == NULL)
        return;
    for (size_t i = 0; i < z->n; i++)
        z->chain[i]->free(z->chain[i]);
    free(z);
}

bool
authz_has_mode(const authz_t *z, const char *name)
{
    for (size_t i = 0; z != NULL && i < z->n; i++) {
        if (strcmp(z->chain[i]->name, name) == 0)
            return true;
    }
    return false;
}

/* ---- deciding ------------------------------------------------------------------------------ */

/* One decision in progress: the authorizers are asked in turn. Reasons of those without an
 * opinion are gathered, joined by newlines as kube's union authorizer does, for the final
 * denial. An authorizer may answer inside its authorize() call or later. */
typedef struct {
    const authz_t *z;
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
    while (d->next < d->z->n) {
        const authz_authorizer_t *m = d->z->chain[d->next++];
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
    *d = (decision_t){.z = z, .attrs = *attrs, .cb = cb, .ctx = ctx};
    ask_next(d);
}
