/*
 * The token cleaner, as kube's pkg/controller/bootstrap tokencleaner: every round lists
 * kube-system's Secrets and deletes the expired bootstrap tokens (a mod_revision
 * precondition stands in for kube's UID one: a Secret changed since it was read is looked at
 * again in the next round); the next round comes when the next token expires.
 */
#include "gw_tokencleaner.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "authn_bootstrap.h"
#include "gw_alloc.h"
#include "gw_ctl_int.h"
#include "gw_ctl_rounds.h"
#include "gw_err.h"
#include "gw_log.h"

#define SECRETS "secrets/kube-system/"
#define TOKEN_TYPE "bootstrap.kubernetes.io/token"
#define RESYNC_MS 60000
#define LIST_PAGE 500

struct gw_tokencleaner {
    gw_ctl_rounds_t *rr;
    gw_store_t *store;  /* the rounds', during a round */
    size_t outstanding; /* list pages and deletions of this round in flight */
    int64_t next_ms;    /* when this round wants the next */
    uint64_t deleted;
};

static void list_page(gw_tokencleaner_t *c, const char *start, int64_t rev);

static void
finish_one(gw_tokencleaner_t *c)
{
    if (--c->outstanding == 0)
        gw_ctl_rounds_done(c->rr, c->next_ms);
}

static void
deleted(int err, const gw_obj_t *obj, void *arg)
{
    gw_tokencleaner_t *c = arg;
    (void)obj;

    if (err == 0) {
        c->deleted++;
    } else if (err != GW_ENOTFOUND && err != GW_ECONFLICT && !gw_ctl_rounds_stopping(c->rr)) {
        gw_log_warn(NULL, "tokencleaner: deleting a Secret failed: %s", gw_strerror(err));
        c->next_ms = 1000;
    }
    finish_one(c);
}

/* Delete the Secret when it is an expired bootstrap token; else note when it expires. */
static void
consider(gw_tokencleaner_t *c, const gw_obj_t *obj, time_t now)
{
    json_t *secret = gw_ctl__parse(obj);
    const char *type = json_string_value(json_object_get(secret, "type"));
    time_t when;

    if (type != NULL && strcmp(type, TOKEN_TYPE) == 0) {
        if (authn_bootstrap_expired(secret, now)) {
            gw_log_info(NULL, "tokencleaner: deleting expired bootstrap token Secret %s",
                        obj->key + strlen(SECRETS));
            c->outstanding++;
            if (gw_store_delete(c->store, obj->key, obj->mod_revision, deleted, c) != 0)
                abort(); /* well-formed by construction */
        } else if (authn_bootstrap_expiration(secret, &when) && (when - now) * 1000 < c->next_ms) {
            c->next_ms = (when - now) * 1000 + 1000; /* past the second it expires in */
        }
    }
    json_decref(secret);
}

static void
listed(int err, const gw_list_page_t *page, void *arg)
{
    gw_tokencleaner_t *c = arg;
    time_t now = time(NULL);

    if (err != 0 && !gw_ctl_rounds_stopping(c->rr)) {
        gw_log_warn(NULL, "tokencleaner: listing Secrets failed: %s", gw_strerror(err));
        c->next_ms = 1000;
    }
    for (size_t i = 0; err == 0 && i < page->n_items; i++)
        consider(c, &page->items[i], now);
    if (err == 0 && page->more && !gw_ctl_rounds_stopping(c->rr))
        list_page(c, page->next_key, page->revision);
    finish_one(c);
}

static void
list_page(gw_tokencleaner_t *c, const char *start, int64_t rev)
{
    gw_list_req_t req = {
        .prefix = SECRETS, .start_key = start, .revision = rev, .limit = LIST_PAGE};

    c->outstanding++;
    if (gw_store_list(c->store, &req, listed, c) != 0)
        abort(); /* well-formed by construction */
}

static void
round_start(gw_ctl_rounds_t *rr, gw_store_t *store, void *ctx)
{
    gw_tokencleaner_t *c = ctx;

    c->rr = rr;
    c->store = store;
    c->next_ms = RESYNC_MS;
    list_page(c, NULL, 0);
}

gw_tokencleaner_t *
gw_tokencleaner_start(etcd_client_t *client, struct event_base *base, const char *etcd_prefix,
                      const gw_value_transformer_t *values)
{
    gw_tokencleaner_t *c = gw_calloc(1, sizeof(*c));
    static const char *const watch[] = {SECRETS, NULL};

    c->rr = gw_ctl_rounds_start(client, base,
                                &(gw_ctl_rounds_opts_t){.name = "tokencleaner",
                                                        .etcd_prefix = etcd_prefix,
                                                        .values = values,
                                                        .watch = watch,
                                                        .round = round_start,
                                                        .ctx = c});
    return c;
}

uint64_t
gw_tokencleaner_deleted(const gw_tokencleaner_t *c)
{
    return c->deleted;
}

void
gw_tokencleaner_stop(gw_tokencleaner_t *c)
{
    if (c == NULL)
        return;
    gw_ctl_rounds_stop(c->rr);
    free(c);
}
