/* API Priority and Fairness' configuration: the dispatcher fed from etcd on every instance;
 * kube's ensurer and the FlowSchemas' Dangling condition on the leader. */
#include "gw_apf_ctl.h"

#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "gw_alloc.h"
#include "gw_apf.h"
#include "gw_clock.h"
#include "gw_ctl_int.h"
#include "gw_err.h"
#include "gw_informer.h"
#include "gw_log.h"
#include "gw_uuid.h"
#include "gw_workqueue.h"

#define CONFIG_KEY "config"
#define ENSURE_KEY "ensure"
#define AUTOUPDATE "apf.kubernetes.io/autoupdate-spec"
#define MAX_ATTEMPTS 5
#define UNCHANGED GW_EEXIST
#define EVERY_MS 60000
#define RETRY_MS 2000

typedef enum { W_MANDATORY, W_SUGGESTED, W_STATUS } write_kind_t;

struct gw_apf_ctl {
    etcd_conn_t *conn; /* ours: freeing it cancels the writes in flight */
    gw_store_t *store;
    struct gw_apf *apf;
    gw_informer_t *fs, *pl;
    gw_workqueue_t *queue;
    struct event *borrowing;  /* kube's periodic seat re-allocation between levels */
    gw_apf_ctl_hooks_t hooks; /* each called once, then cleared */
    bool leading;
    bool stopping;
    /* the leader's pass: writes one after another */
    json_t *writes; /* [{kind, key, want}] */
    size_t at;
    int err;
};

static const char *
name_of(const json_t *o)
{
    return json_string_value(json_object_get(json_object_get(o, "metadata"), "name"));
}

/* ---- every instance: the configuration in force ------------------------------------------ */

static void
configure(gw_apf_ctl_t *c)
{
    json_t *fss = gw_informer_list(c->fs), *pls = gw_informer_list(c->pl);

    gw_apf_configure(c->apf, fss, pls);
    json_decref(fss);
    json_decref(pls);
}

static void
note_configured(gw_apf_ctl_t *c)
{
    if (c->hooks.configured != NULL)
        c->hooks.configured(c->hooks.configured_arg);
    c->hooks.configured = NULL;
}

static void
note_ensured(gw_apf_ctl_t *c)
{
    if (c->hooks.ensured != NULL)
        c->hooks.ensured(c->hooks.ensured_arg);
    c->hooks.ensured = NULL;
}

/* Whether every object of `want` (consumed) is in `have` (consumed), by name. */
static bool
all_present(json_t *want, json_t *have)
{
    size_t i, j;
    json_t *w, *h;
    bool all = true;

    json_array_foreach(want, i, w)
    {
        bool found = false;
        json_array_foreach(have, j, h) found = found || strcmp(name_of(h), name_of(w)) == 0;
        all = all && found;
    }
    json_decref(want);
    json_decref(have);
    return all;
}

/* kube's producer ensures the bootstrap objects on every instance: where another instance
 * leads, they are in place once the caches hold them all. */
static bool
bootstrap_present(gw_apf_ctl_t *c)
{
    return all_present(gw_apf_bootstrap_levels(true), gw_informer_list(c->pl)) &&
           all_present(gw_apf_bootstrap_levels(false), gw_informer_list(c->pl)) &&
           all_present(gw_apf_bootstrap_flowschemas(true), gw_informer_list(c->fs)) &&
           all_present(gw_apf_bootstrap_flowschemas(false), gw_informer_list(c->fs));
}

/* ---- the leader: kube's ensurer ---------------------------------------------------------- */

static const char *
annotation(const json_t *o)
{
    return json_string_value(json_object_get(
        json_object_get(json_object_get(o, "metadata"), "annotations"), AUTOUPDATE));
}

/* kube's shouldUpdateSpec for a suggested object */
static bool
suggested_updates(const json_t *o)
{
    const char *v = annotation(o);
    if (v != NULL)
        return strcmp(v, "true") == 0;
    return json_integer_value(json_object_get(json_object_get(o, "metadata"), "generation")) == 1;
}

/* What the exempt level's users may change stays theirs. */
static void
keep_exempt_tunables(json_t *spec, const json_t *cur_spec)
{
    const json_t *have = json_object_get(cur_spec, "exempt");
    json_t *want = json_object_get(spec, "exempt");
    const char *keys[] = {"nominalConcurrencyShares", "lendablePercent"};

    for (size_t i = 0; i < 2 && want != NULL; i++) {
        json_t *v = json_object_get(have, keys[i]);
        if (v != NULL)
            json_object_set(want, keys[i], v);
    }
}

static json_t *
fresh(const json_t *want)
{
    json_t *o = json_deep_copy(want), *md = gw_json_child(o, "metadata");
    char uid[GW_UUID_LEN + 1], now[32];

    gw_uuid_v4(uid);
    gw_time_now(now);
    json_object_set_new(md, "uid", json_string(uid));
    json_object_set_new(md, "creationTimestamp", json_string(now));
    json_object_set_new(md, "generation", json_integer(1));
    json_object_set_new(gw_json_child(md, "annotations"), AUTOUPDATE, json_string("true"));
    json_object_set_new(o, "status", json_object());
    return o;
}

/* The object restored to kube's spec; false when it needs nothing. */
static bool
ensure(json_t *o, const json_t *want, write_kind_t kind)
{
    json_t *spec = json_deep_copy(json_object_get(want, "spec"));
    json_t *md = gw_json_child(o, "metadata");
    const char *v = annotation(o);
    bool spec_changed;

    if (kind == W_SUGGESTED && !suggested_updates(o)) {
        json_decref(spec);
        return false;
    }
    if (strcmp(name_of(want), "exempt") == 0)
        keep_exempt_tunables(spec, json_object_get(o, "spec"));
    spec_changed = !json_equal(spec, json_object_get(o, "spec"));
    if (!spec_changed && v != NULL && strcmp(v, "true") == 0) {
        json_decref(spec);
        return false;
    }
    json_object_set_new(o, "spec", spec);
    json_object_set_new(gw_json_child(md, "annotations"), AUTOUPDATE, json_string("true"));
    if (spec_changed)
        json_object_set_new(
            md, "generation",
            json_integer(json_integer_value(json_object_get(md, "generation")) + 1));
    return true;
}

/* ---- the leader: FlowSchema status ------------------------------------------------------- */

static json_t *
dangling_condition(const json_t *fs, const json_t *pls)
{
    const char *pl = json_string_value(json_object_get(
        json_object_get(json_object_get(fs, "spec"), "priorityLevelConfiguration"), "name"));
    size_t i;
    json_t *v;

    json_array_foreach(pls, i, v)
    {
        if (pl != NULL && strcmp(name_of(v), pl) == 0)
            return json_pack("{s:s,s:s,s:s,s:s}", "type", "Dangling", "status", "False", "reason",
                             "Found", "message",
                             "This FlowSchema references an existing PriorityLevelConfiguration "
                             "object");
    }
    char *msg = gw_sprintf("This FlowSchema references the PriorityLevelConfiguration object "
                           "named \"%s\" but there is no such object",
                           pl != NULL ? pl : "");
    json_t *c = json_pack("{s:s,s:s,s:s,s:s}", "type", "Dangling", "status", "True", "reason",
                          "NotFound", "message", msg);
    free(msg);
    return c;
}

static json_t *
find_condition(const json_t *o, const char *type)
{
    size_t i;
    json_t *v;

    json_array_foreach(json_object_get(json_object_get(o, "status"), "conditions"), i, v)
    {
        if (json_is_string(json_object_get(v, "type")) &&
            strcmp(json_string_value(json_object_get(v, "type")), type) == 0)
            return v;
    }
    return NULL;
}

static bool
condition_current(const json_t *have, const json_t *want)
{
    const char *keys[] = {"status", "reason", "message"};
    for (size_t i = 0; i < 3; i++) {
        if (have == NULL ||
            !json_equal(json_object_get(have, keys[i]), json_object_get(want, keys[i])))
            return false;
    }
    return true;
}

/* The Dangling condition set; false when it holds already. */
static bool
set_dangling(json_t *o, const json_t *want)
{
    json_t *have = find_condition(o, "Dangling"), *c = json_deep_copy(want);
    char now[32];

    if (condition_current(have, want)) {
        json_decref(c);
        return false;
    }
    gw_time_now(now);
    json_object_set_new(c, "lastTransitionTime", json_string(now));
    if (have != NULL) {
        json_object_update(have, c);
        json_decref(c);
        return true;
    }
    json_t *status = gw_json_child(o, "status");
    json_t *conds = json_object_get(status, "conditions");
    if (!json_is_array(conds)) {
        conds = json_array();
        json_object_set_new(status, "conditions", conds);
    }
    json_array_append_new(conds, c);
    return true;
}

/* ---- the leader's pass, one write after another ------------------------------------------- */

static void step(gw_apf_ctl_t *c);

static void
mutate(gw_store_update_t *u, const gw_obj_t *cur, void *ctx)
{
    gw_apf_ctl_t *c = ctx;
    const json_t *w = json_array_get(c->writes, c->at);
    write_kind_t kind = (write_kind_t)json_integer_value(json_object_get(w, "kind"));
    const json_t *want = json_object_get(w, "want");
    json_t *o = cur != NULL ? gw_ctl__parse(cur) : NULL;
    bool write;
    size_t len;

    if (cur != NULL && o == NULL) {
        gw_store_update_abort(u, GW_EINTERNAL);
        return;
    }
    if (kind == W_STATUS) /* a FlowSchema deleted meanwhile has no status to keep */
        write = o != NULL && set_dangling(o, want);
    else if (o == NULL)
        write = (o = fresh(want)) != NULL;
    else
        write = ensure(o, want, kind);
    if (!write) {
        json_decref(o);
        gw_store_update_abort(u, UNCHANGED);
        return;
    }
    uint8_t *bytes = gw_ctl__dump(o, &len);
    json_decref(o);
    gw_store_update_commit(u, bytes, len);
}

static void
written(int err, const gw_obj_t *obj, void *ctx)
{
    gw_apf_ctl_t *c = ctx;

    if (c->stopping)
        return;
    if (err == 0)
        gw_log_info(NULL, "priority and fairness: wrote %s", obj != NULL ? obj->key : "?");
    else if (err != UNCHANGED && c->err == 0)
        c->err = err;
    c->at++;
    step(c);
}

static void
pass_done(gw_apf_ctl_t *c)
{
    if (c->err == 0 && c->leading && c->at >= json_array_size(c->writes))
        note_ensured(c);
    if (c->err != 0)
        gw_log_warn(NULL, "priority and fairness configuration: %s; retrying", gw_strerror(c->err));
    json_decref(c->writes);
    c->writes = NULL;
    gw_workqueue_add_after(c->queue, ENSURE_KEY, c->err != 0 ? RETRY_MS : EVERY_MS);
    gw_workqueue_done(c->queue, ENSURE_KEY);
}

static void
step(gw_apf_ctl_t *c)
{
    if (c->at >= json_array_size(c->writes) || !c->leading) {
        pass_done(c);
        return;
    }
    const json_t *w = json_array_get(c->writes, c->at);
    int rc = gw_store_guaranteed_update(c->store, json_string_value(json_object_get(w, "key")),
                                        MAX_ATTEMPTS, mutate, written, c);
    if (rc != 0)
        written(rc, NULL, c);
}

static void
add_writes(json_t *writes, json_t *objs, const char *resource, write_kind_t kind)
{
    size_t i;
    json_t *v;

    json_array_foreach(objs, i, v)
    {
        char *key = gw_store_object_key(resource, NULL, name_of(v));
        json_array_append_new(writes,
                              json_pack("{s:i,s:s,s:O}", "kind", kind, "key", key, "want", v));
        free(key);
    }
    json_decref(objs);
}

/* The writes of one pass: the bootstrap objects, then the FlowSchemas' conditions as the
 * caches see them now (a FlowSchema the ensurer creates gets its condition next pass). */
static json_t *
plan(gw_apf_ctl_t *c)
{
    json_t *writes = json_array(), *pls = gw_informer_list(c->pl), *fss = gw_informer_list(c->fs);
    json_t *conds = json_array();
    size_t i;
    json_t *v;

    add_writes(writes, gw_apf_bootstrap_levels(true), "prioritylevelconfigurations", W_MANDATORY);
    add_writes(writes, gw_apf_bootstrap_flowschemas(true), "flowschemas", W_MANDATORY);
    add_writes(writes, gw_apf_bootstrap_levels(false), "prioritylevelconfigurations", W_SUGGESTED);
    add_writes(writes, gw_apf_bootstrap_flowschemas(false), "flowschemas", W_SUGGESTED);
    json_array_foreach(fss, i, v)
    {
        json_t *want = dangling_condition(v, pls);
        if (!condition_current(find_condition(v, "Dangling"), want))
            json_array_append_new(conds, json_pack("{s:{s:s},s:o}", "metadata", "name", name_of(v),
                                                   "dangling", want));
        else
            json_decref(want);
    }
    json_array_foreach(conds, i, v)
    {
        char *key = gw_store_object_key("flowschemas", NULL, name_of(v));
        json_array_append_new(writes, json_pack("{s:i,s:s,s:O}", "kind", W_STATUS, "key", key,
                                                "want", json_object_get(v, "dangling")));
        free(key);
    }
    json_decref(conds);
    json_decref(pls);
    json_decref(fss);
    return writes;
}

/* ---- the queue ---------------------------------------------------------------------------- */

static void
process(gw_workqueue_t *q, const char *key, void *ctx)
{
    gw_apf_ctl_t *c = ctx;
    bool synced = gw_informer_synced(c->fs) && gw_informer_synced(c->pl);

    if (strcmp(key, CONFIG_KEY) == 0) {
        if (synced) {
            configure(c);
            note_configured(c);
            if (!c->leading && c->hooks.ensured != NULL && bootstrap_present(c))
                note_ensured(c);
        }
        gw_workqueue_done(q, key);
        return;
    }
    if (!c->leading || !synced) {
        gw_workqueue_done(q, key);
        return;
    }
    c->writes = plan(c);
    c->at = 0;
    c->err = 0;
    step(c);
}

static void
changed(gw_informer_t *inf, const gw_informer_event_t *ev, void *ctx)
{
    gw_apf_ctl_t *c = ctx;
    (void)inf, (void)ev;

    gw_workqueue_add(c->queue, CONFIG_KEY);
    if (c->leading)
        gw_workqueue_add(c->queue, ENSURE_KEY);
}

static gw_informer_t *
start_informer(gw_apf_ctl_t *c, etcd_client_t *client, struct event_base *base,
               const char *etcd_prefix, const gw_value_transformer_t *values, const char *prefix)
{
    return gw_informer_start(client, base,
                             &(gw_informer_opts_t){.name = "priority and fairness",
                                                   .etcd_prefix = etcd_prefix,
                                                   .values = values,
                                                   .prefix = prefix,
                                                   .cache = GW_INFORMER_JSON,
                                                   .handler = changed,
                                                   .ctx = c});
}

static void
adjust(evutil_socket_t fd, short what, void *ctx)
{
    gw_apf_ctl_t *c = ctx;
    (void)fd, (void)what;

    gw_apf_adjust(c->apf, gw_monotonic_ns());
}

gw_apf_ctl_t *
gw_apf_ctl_start(etcd_client_t *client, struct event_base *base, const char *etcd_prefix,
                 const gw_value_transformer_t *values, struct gw_apf *apf,
                 const gw_apf_ctl_hooks_t *hooks)
{
    gw_apf_ctl_t *c = gw_calloc(1, sizeof(*c));

    c->apf = apf;
    if (hooks != NULL)
        c->hooks = *hooks;
    c->conn = etcd_conn_new(client, base);
    c->store = gw_store_new(c->conn, etcd_prefix, values);
    c->queue = gw_workqueue_new(base, &(gw_workqueue_opts_t){.process = process, .ctx = c});
    c->fs = start_informer(c, client, base, etcd_prefix, values, "flowschemas/");
    c->pl = start_informer(c, client, base, etcd_prefix, values, "prioritylevelconfigurations/");
    struct timeval every = {GW_APF_BORROWING_PERIOD_MS / 1000, 0};
    c->borrowing = event_new(base, -1, EV_PERSIST, adjust, c);
    if (c->borrowing == NULL || event_add(c->borrowing, &every) != 0)
        abort();
    return c;
}

void
gw_apf_ctl_lead(gw_apf_ctl_t *c, bool leading)
{
    c->leading = leading;
    if (leading)
        gw_workqueue_add(c->queue, ENSURE_KEY);
}

void
gw_apf_ctl_stop(gw_apf_ctl_t *c)
{
    if (c == NULL)
        return;
    c->stopping = true;
    if (c->borrowing != NULL)
        event_free(c->borrowing);
    gw_workqueue_shutdown(c->queue);
    gw_informer_stop(c->fs);
    gw_informer_stop(c->pl);
    etcd_conn_free(c->conn); /* every write's callback fires now, and sees `stopping` */
    gw_store_free(c->store);
    gw_workqueue_free(c->queue);
    json_decref(c->writes);
    free(c);
}
