/* The ValidatingAdmissionPolicy status controller: type checking written to each policy's
 * status, one policy at a time. */
#include "gw_vap_status.h"

#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_ctl_int.h"
#include "gw_err.h"
#include "gw_informer.h"
#include "gw_log.h"
#include "gw_vap_typecheck.h"
#include "gw_workqueue.h"

#define RESOURCE "validatingadmissionpolicies"
#define PREFIX RESOURCE "/"
#define MANAGER "validatingadmissionpolicy-status-controller"

struct gw_vap_status {
    etcd_conn_t *conn; /* ours: freeing it cancels the writes in flight */
    gw_store_t *store;
    const gw_catalog_t *catalog;
    gw_informer_t *policies;
    gw_workqueue_t *queue;
    bool stopping;
};

/* One status write in flight. */
typedef struct {
    gw_vap_status_t *c;
    char *name;
    json_int_t generation;
    json_t *warnings;
} write_t;

static json_int_t
int_at(const json_t *o, const char *a, const char *b)
{
    return json_integer_value(json_object_get(json_object_get(o, a), b));
}

/* The managedFields entry kube's Apply of {observedGeneration, typeChecking} leaves. */
static json_t *
manager_entry(bool has_warnings)
{
    char now[GW_TIME_LEN + 1];
    json_t *tc = has_warnings ? json_pack("{s:{}}", "f:expressionWarnings") : json_object();
    return json_pack("{s:s,s:s,s:{s:{s:{},s:o}},s:s,s:s,s:s,s:s}", "apiVersion",
                     "admissionregistration.k8s.io/v1", "fieldsType", "FieldsV1", "fieldsV1",
                     "f:status", "f:observedGeneration", "f:typeChecking", tc, "manager", MANAGER,
                     "operation", "Apply", "subresource", "status", "time", gw_time_now(now));
}

static bool
is_ours(const json_t *e)
{
    const char *m = json_string_value(json_object_get(e, "manager"));
    const char *op = json_string_value(json_object_get(e, "operation"));
    const char *sub = json_string_value(json_object_get(e, "subresource"));
    return m != NULL && strcmp(m, MANAGER) == 0 && op != NULL && strcmp(op, "Apply") == 0 &&
           sub != NULL && strcmp(sub, "status") == 0;
}

/* Replace our entry; a new one goes after the other Apply entries, as kube sorts them. */
static void
set_managed_fields(json_t *meta, json_t *entry)
{
    json_t *list = json_object_get(meta, "managedFields");
    if (!json_is_array(list)) {
        list = json_array();
        json_object_set_new(meta, "managedFields", list);
    }
    size_t i = 0, at = 0;
    while (i < json_array_size(list)) {
        const json_t *e = json_array_get(list, i);
        const char *op = json_string_value(json_object_get(e, "operation"));
        if (is_ours(e)) {
            json_array_remove(list, i);
            continue;
        }
        if (op != NULL && strcmp(op, "Apply") == 0)
            at = i + 1;
        i++;
    }
    json_array_insert_new(list, at, entry);
}

static void
mutate(gw_store_update_t *u, const gw_obj_t *cur, void *arg)
{
    write_t *w = arg;
    json_t *p = cur != NULL ? gw_ctl__parse(cur) : NULL;
    if (p == NULL || int_at(p, "metadata", "generation") != w->generation) {
        json_decref(p); /* gone, or changed since: its own event queues it again */
        gw_store_update_abort(u, p == NULL ? GW_ENOTFOUND : GW_ECONFLICT);
        return;
    }
    json_t *status = json_object_get(p, "status");
    if (!json_is_object(status)) {
        status = json_object();
        json_object_set_new(p, "status", status);
    }
    bool has_warnings = json_array_size(w->warnings) > 0;
    json_object_set_new(status, "observedGeneration", json_integer(w->generation));
    json_object_set_new(status, "typeChecking",
                        has_warnings ? json_pack("{s:O}", "expressionWarnings", w->warnings)
                                     : json_object());
    set_managed_fields(json_object_get(p, "metadata"), manager_entry(has_warnings));
    size_t len;
    uint8_t *value = gw_ctl__dump(p, &len);
    gw_store_update_commit(u, value, len);
    json_decref(p);
}

static void
written(int err, const gw_obj_t *obj, void *arg)
{
    write_t *w = arg;
    gw_vap_status_t *c = w->c;
    (void)obj;

    if (!c->stopping) {
        if (err == 0 || err == GW_ENOTFOUND || err == GW_ECONFLICT) {
            gw_workqueue_forget(c->queue, w->name);
        } else {
            gw_log_warn(NULL, MANAGER ": status of %s: %s; retrying", w->name, gw_strerror(err));
            gw_workqueue_add_rate_limited(c->queue, w->name);
        }
        gw_workqueue_done(c->queue, w->name);
    }
    free(w->name);
    json_decref(w->warnings);
    free(w);
}

static void
process(gw_workqueue_t *q, const char *name, void *ctx)
{
    gw_vap_status_t *c = ctx;
    char *rel = gw_sprintf(PREFIX "%s", name);
    const json_t *p = gw_informer_get(c->policies, rel, NULL);
    free(rel);
    json_int_t gen = int_at(p, "metadata", "generation");
    if (p == NULL || gen <= int_at(p, "status", "observedGeneration")) {
        gw_workqueue_done(q, name);
        return;
    }
    write_t *w = gw_calloc(1, sizeof(*w));
    const gw_catalog_t *cat = gw_catalog_current(); /* custom kinds are checked too */

    *w = (write_t){c, gw_strdup(name), gen, gw_vap_typecheck(p, cat ? cat : c->catalog)};
    gw_catalog_unref(cat);
    char *key = gw_store_object_key(RESOURCE, NULL, name);
    int rc =
        key != NULL ? gw_store_guaranteed_update(c->store, key, 0, mutate, written, w) : GW_EINVAL;
    free(key);
    if (rc != 0)
        written(rc, NULL, w);
}

static void
changed(gw_informer_t *inf, const gw_informer_event_t *ev, void *ctx)
{
    gw_vap_status_t *c = ctx;
    (void)inf;

    if ((ev->type == GW_INFORMER_ADDED || ev->type == GW_INFORMER_UPDATED) &&
        strncmp(ev->key, PREFIX, strlen(PREFIX)) == 0)
        gw_workqueue_add(c->queue, ev->key + strlen(PREFIX));
}

gw_vap_status_t *
gw_vap_status_start(etcd_client_t *client, struct event_base *base, const char *etcd_prefix,
                    const gw_value_transformer_t *values, const gw_catalog_t *catalog)
{
    gw_vap_status_t *c = gw_calloc(1, sizeof(*c));

    c->conn = etcd_conn_new(client, base);
    c->store = gw_store_new(c->conn, etcd_prefix, values);
    c->catalog = catalog;
    c->queue = gw_workqueue_new(base, &(gw_workqueue_opts_t){.process = process, .ctx = c});
    c->policies = gw_informer_start(client, base,
                                    &(gw_informer_opts_t){.name = MANAGER,
                                                          .etcd_prefix = etcd_prefix,
                                                          .values = values,
                                                          .prefix = PREFIX,
                                                          .cache = GW_INFORMER_JSON,
                                                          .handler = changed,
                                                          .ctx = c});
    return c;
}

void
gw_vap_status_stop(gw_vap_status_t *c)
{
    if (c == NULL)
        return;
    c->stopping = true;
    gw_workqueue_shutdown(c->queue);
    gw_informer_stop(c->policies);
    etcd_conn_free(c->conn); /* every write's callback fires now, and sees `stopping` */
    gw_store_free(c->store);
    gw_workqueue_free(c->queue);
    free(c);
}
