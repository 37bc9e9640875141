/*
 * The token cleaner, as kube's pkg/controller/bootstrap tokencleaner: an informer on
 * kube-system's Secrets queues each one seen (and every one once a minute); a queued Secret
 * that is an expired bootstrap token is deleted (a mod_revision precondition stands in for
 * kube's UID one: a Secret changed since it was seen is queued again by its change), one that
 * expires later is queued again for when it expires.
 */
#include "gw_tokencleaner.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "authn_bootstrap.h"
#include "gw_alloc.h"
#include "gw_err.h"
#include "gw_informer.h"
#include "gw_log.h"
#include "gw_store.h"
#include "gw_workqueue.h"

#define SECRETS "secrets/kube-system/"
#define TOKEN_TYPE "bootstrap.kubernetes.io/token"
#define RESYNC_MS 60000
#define RETRY_MS 1000

struct gw_tokencleaner {
    etcd_conn_t *conn; /* ours: freeing it cancels every deletion */
    gw_store_t *store;
    gw_informer_t *secrets;
    gw_workqueue_t *queue; /* Secret keys */
    bool stopping;
    uint64_t deleted;
};

typedef struct {
    gw_tokencleaner_t *c;
    char *key;
} deletion_t;

static void
deleted(int err, const gw_obj_t *obj, void *arg)
{
    deletion_t *d = arg;
    gw_tokencleaner_t *c = d->c;
    (void)obj;

    if (!c->stopping) {
        if (err == 0) {
            c->deleted++;
        } else if (err != GW_ENOTFOUND && err != GW_ECONFLICT) {
            gw_log_warn(NULL, "tokencleaner: deleting a Secret failed: %s", gw_strerror(err));
            gw_workqueue_add_after(c->queue, d->key, RETRY_MS);
        }
        gw_workqueue_done(c->queue, d->key);
    }
    free(d->key);
    free(d);
}

/* Delete the Secret when it is an expired bootstrap token; else look again when it expires. */
static void
process(gw_workqueue_t *q, const char *key, void *ctx)
{
    gw_tokencleaner_t *c = ctx;
    int64_t rev;
    const json_t *secret = gw_informer_get(c->secrets, key, &rev);
    const char *type = json_string_value(json_object_get(secret, "type"));
    time_t now = time(NULL), when;

    if (type == NULL || strcmp(type, TOKEN_TYPE) != 0) {
        gw_workqueue_done(q, key);
    } else if (authn_bootstrap_expired(secret, now)) {
        gw_log_info(NULL, "tokencleaner: deleting expired bootstrap token Secret %s",
                    key + strlen(SECRETS));
        deletion_t *d = gw_calloc(1, sizeof(*d));
        *d = (deletion_t){c, gw_strdup(key)};
        if (gw_store_delete(c->store, key, rev, deleted, d) != 0)
            abort(); /* well-formed by construction */
    } else {
        if (authn_bootstrap_expiration(secret, &when))
            gw_workqueue_add_after(q, key, (when - now) * 1000 + 1000); /* past its second */
        gw_workqueue_done(q, key);
    }
}

static void
on_secret(gw_informer_t *inf, const gw_informer_event_t *ev, void *ctx)
{
    gw_tokencleaner_t *c = ctx;
    (void)inf;

    if (ev->type == GW_INFORMER_ADDED || ev->type == GW_INFORMER_UPDATED)
        gw_workqueue_add(c->queue, ev->key);
}

gw_tokencleaner_t *
gw_tokencleaner_start(etcd_client_t *client, struct event_base *base, const char *etcd_prefix,
                      const gw_value_transformer_t *values)
{
    gw_tokencleaner_t *c = gw_calloc(1, sizeof(*c));

    c->conn = etcd_conn_new(client, base);
    c->store = gw_store_new(c->conn, etcd_prefix, values);
    c->queue = gw_workqueue_new(base, &(gw_workqueue_opts_t){.process = process, .ctx = c});
    c->secrets = gw_informer_start(client, base,
                                   &(gw_informer_opts_t){.name = "tokencleaner",
                                                         .etcd_prefix = etcd_prefix,
                                                         .values = values,
                                                         .prefix = SECRETS,
                                                         .cache = GW_INFORMER_JSON,
                                                         .resync_ms = RESYNC_MS,
                                                         .handler = on_secret,
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
    c->stopping = true;
    gw_workqueue_shutdown(c->queue);
    gw_informer_stop(c->secrets);
    etcd_conn_free(c->conn); /* every deletion's callback fires now, and sees `stopping` */
    gw_store_free(c->store);
    gw_workqueue_free(c->queue);
    free(c);
}
