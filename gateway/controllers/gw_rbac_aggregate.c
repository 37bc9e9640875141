/* ClusterRole aggregation: one pass over the ClusterRoles rewrites the stale ones. */
#include "gw_rbac_aggregate.h"

#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_ctl_int.h"
#include "gw_err.h"
#include "gw_log.h"
#include "gw_selector.h"

#define MAX_ATTEMPTS 5
/* A mutate that finds nothing to change gives up with this code, read as success. */
#define UNCHANGED GW_EEXIST

static const char *
name_of(const json_t *o)
{
    const char *n = json_string_value(json_object_get(json_object_get(o, "metadata"), "name"));
    return n != NULL ? n : "";
}

static bool
has_equal(const json_t *arr, const json_t *v)
{
    size_t i;
    json_t *e;

    json_array_foreach(arr, i, e)
    {
        if (json_equal(e, v))
            return true;
    }
    return false;
}

/* Append the rules of every role in `all` (but `self`) that `selector` matches. */
static void
add_selected(json_t *rules, const json_t *selector, const json_t *all, const char *self)
{
    char *text = gw_label_selector_string(selector), err[128];
    gw_selector_t sel = {0};
    size_t i, j;
    json_t *o, *rule;

    if (text == NULL || gw_label_selector_parse(text, &sel, err, sizeof(err)) != 0) {
        free(text);
        return; /* kube skips a selector it cannot read */
    }
    json_array_foreach(all, i, o)
    {
        if (strcmp(name_of(o), self) == 0 ||
            !gw_label_selector_match(&sel,
                                     json_object_get(json_object_get(o, "metadata"), "labels")))
            continue;
        json_array_foreach(json_object_get(o, "rules"), j, rule)
        {
            if (!has_equal(rules, rule))
                json_array_append(rules, rule);
        }
    }
    gw_selector_clear(&sel);
    free(text);
}

json_t *
gw_rbac_aggregate_rules(const json_t *role, const json_t *all)
{
    const json_t *agg = json_object_get(role, "aggregationRule");
    size_t i;
    json_t *selector;

    if (!json_is_object(agg))
        return NULL;
    json_t *rules = json_array();
    json_array_foreach(json_object_get(agg, "clusterRoleSelectors"), i, selector)
    {
        add_selected(rules, selector, all, name_of(role));
    }
    return rules;
}

/* ---- one pass ------------------------------------------------------------------------------- */

typedef struct {
    gw_store_t *store;
    json_t *updates; /* name -> the rules to write */
    void *iter;
    int err;
    gw_rbac_aggregate_done_fn done;
    void *arg;
} pass_t;

static void step(pass_t *p);

static void
finish(pass_t *p, int err)
{
    p->done(err, p->arg);
    json_decref(p->updates);
    free(p);
}

/* The ClusterRoles whose stored rules differ from what aggregation gives them. */
static void
find_stale(pass_t *p, const json_t *all)
{
    size_t i;
    json_t *o;

    json_array_foreach(all, i, o)
    {
        json_t *want = gw_rbac_aggregate_rules(o, all);
        json_t *have = json_object_get(o, "rules");
        json_t *empty = json_array();
        if (want != NULL && !json_equal(want, json_is_array(have) ? have : empty))
            json_object_set(p->updates, name_of(o), want);
        json_decref(want);
        json_decref(empty);
    }
}

static void
mutate(gw_store_update_t *u, const gw_obj_t *cur, void *ctx)
{
    pass_t *p = ctx;
    json_t *o = cur != NULL ? gw_ctl__parse(cur) : NULL;
    size_t len;

    /* gone, or no longer aggregated: the next pass sees it as it is now */
    if (o == NULL || json_object_get(o, "aggregationRule") == NULL) {
        json_decref(o);
        gw_store_update_abort(u, UNCHANGED);
        return;
    }
    json_object_set(o, "rules", json_object_iter_value(p->iter));
    uint8_t *bytes = gw_ctl__dump(o, &len);
    json_decref(o);
    gw_store_update_commit(u, bytes, len);
}

static void
written(int err, const gw_obj_t *obj, void *ctx)
{
    pass_t *p = ctx;
    (void)obj;

    if (err == GW_ECANCELED) {
        finish(p, err);
        return;
    }
    if (err == 0)
        gw_log_info(NULL, "clusterrole aggregation: updated %s", json_object_iter_key(p->iter));
    else if (err != UNCHANGED && p->err == 0)
        p->err = err;
    p->iter = json_object_iter_next(p->updates, p->iter);
    step(p);
}

static void
step(pass_t *p)
{
    if (p->iter == NULL) {
        finish(p, p->err);
        return;
    }
    char *key = gw_sprintf("clusterroles/%s", json_object_iter_key(p->iter));
    int rc = gw_store_guaranteed_update(p->store, key, MAX_ATTEMPTS, mutate, written, p);
    free(key);
    if (rc != 0)
        written(rc, NULL, p);
}

void
gw_rbac_aggregate(gw_store_t *store, const json_t *all, gw_rbac_aggregate_done_fn done, void *arg)
{
    pass_t *p = gw_calloc(1, sizeof(*p));

    *p = (pass_t){.store = store, .updates = json_object(), .done = done, .arg = arg};
    find_stale(p, all);
    p->iter = json_object_iter(p->updates);
    step(p);
}
