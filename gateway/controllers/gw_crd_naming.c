/* The CRD naming controller: names, establishing and NonStructuralSchema written to each CRD's
 * status, one CRD at a time (names are reserved against each other: one worker only). */
#include "gw_crd_naming.h"

#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_crd_int.h"
#include "gw_ctl_int.h"
#include "gw_err.h"
#include "gw_informer.h"
#include "gw_log.h"
#include "gw_workqueue.h"

#define NAME "crd-naming-controller"

struct gw_crd_naming {
    etcd_conn_t *conn; /* ours: freeing it cancels the writes in flight */
    gw_store_t *store;
    const gw_catalog_t *catalog;
    gw_informer_t *crds;
    gw_workqueue_t *queue;
    bool synced; /* the first list is in: names are judged against every CRD */
    bool stopping;
    json_t *written;   /* name -> {"rev", "names"}: our writes the informer has not shown yet
                          (kube's mutation cache), so that the next CRD sees the names taken */
    json_t *generated; /* name -> the generation whose NonStructuralSchema we wrote */
};

/* One CRD's status write. */
typedef struct {
    gw_crd_naming_t *c;
    char *name;
    bool names_changed;        /* accepted names were written: some may have been released */
    json_int_t structural_gen; /* the generation whose NonStructuralSchema changed, or -1 */
} job_t;

static const char *
group_of(const json_t *crd)
{
    return json_string_value(json_object_get(json_object_get(crd, "spec"), "group"));
}

/* ---- names taken in a group ------------------------------------------------------------- */

typedef struct {
    const gw_crd_naming_t *c;
    const char *group, *self;
    json_t *resources, *kinds;
} taken_t;

static void
hold_one(const char *key, const json_t *crd, int64_t rev, void *arg)
{
    taken_t *t = arg;
    const char *name = key + strlen(GW_CRD__PREFIX);
    const json_t *mine = json_object_get(t->c->written, name);
    const char *g = group_of(crd);

    if (g == NULL || strcmp(g, t->group) != 0 || strcmp(name, t->self) == 0)
        return;
    if (mine != NULL && json_integer_value(json_object_get(mine, "rev")) > rev)
        gw_crd_naming_hold(json_object_get(mine, "names"), t->resources, t->kinds);
    else
        gw_crd_naming_hold(json_object_get(json_object_get(crd, "status"), "acceptedNames"),
                           t->resources, t->kinds);
}

/* kube's getAcceptedNamesForGroup, with `crd` as it is now standing for its cached self, and
 * the group's built-in resources. */
static void
taken(const gw_crd_naming_t *c, const char *name, const json_t *crd, json_t *resources,
      json_t *kinds)
{
    taken_t t = {c, group_of(crd), name, resources, kinds};

    gw_informer_each(c->crds, hold_one, &t);
    gw_crd_naming_hold(json_object_get(json_object_get(crd, "status"), "acceptedNames"), resources,
                       kinds);
    gw_crd_naming_builtin(c->catalog, t.group, resources, kinds);
}

/* ---- the edit: names, established, NonStructuralSchema ----------------------------------- */

static bool
same_condition(const json_t *a, const json_t *b)
{
    static const char *const members[] = {"type", "status", "reason", "message"};

    if (a == NULL || b == NULL)
        return a == b;
    for (size_t i = 0; i < 4; i++)
        if (!json_equal(json_object_get(a, members[i]), json_object_get(b, members[i])))
            return false;
    return true;
}

static void
set_cond(json_t *crd, const json_t *cond, const char *now)
{
    const char *s[4];
    static const char *const members[] = {"type", "status", "reason", "message"};

    for (size_t i = 0; i < 4; i++) {
        s[i] = json_string_value(json_object_get(cond, members[i]));
        s[i] = s[i] != NULL ? s[i] : "";
    }
    gw_crd__set_condition(crd, s[0], s[1], s[2], s[3], now);
}

static void
names_step(job_t *j, json_t *crd, const char *now)
{
    if (gw_crd_naming_settled(crd) || group_of(crd) == NULL)
        return;
    json_t *resources = json_object(), *kinds = json_object();
    gw_crd_names_t n;
    taken(j->c, j->name, crd, resources, kinds);
    gw_crd_naming_compute(crd, resources, kinds, &n);
    json_t *status = gw_json_child(crd, "status");
    if (!json_equal(json_object_get(status, "acceptedNames"), n.names) ||
        !same_condition(n.accepted, gw_crd__condition(crd, "NamesAccepted"))) {
        json_object_set(status, "acceptedNames", n.names);
        set_cond(crd, n.accepted, now);
        set_cond(crd, n.established, now);
        j->names_changed = true;
    }
    gw_crd_names_clear(&n);
    json_decref(resources);
    json_decref(kinds);
}

/* kube's establishing controller, without its wait (see gw_crd_naming.h). */
static void
establish_step(json_t *crd, const char *now)
{
    if (!gw_crd__condition_true(crd, "NamesAccepted") || gw_crd__condition_true(crd, "Established"))
        return;
    if (!gw_crd__ca_bundle_ok(crd))
        gw_crd__set_condition(crd, "Established", "False", "InvalidCABundle",
                              "The conversion webhook CABundle is invalid", now);
    else
        gw_crd__set_condition(crd, "Established", "True", "InitialNamesAccepted",
                              "the initial names have been accepted", now);
}

static void
structural_step(job_t *j, json_t *crd, const char *now)
{
    const json_t *meta = json_object_get(crd, "metadata");
    json_int_t gen = json_integer_value(json_object_get(meta, "generation"));
    const json_t *seen = json_object_get(j->c->generated, j->name);
    if (seen != NULL && gen <= json_integer_value(seen))
        return; /* kube looks at a generation again only after it wrote the condition */
    char *msg = gw_crd__nonstructural(crd);
    const json_t *old = gw_crd__condition(crd, "NonStructuralSchema");
    json_t *want = msg != NULL ? json_pack("{s:s,s:s,s:s,s:s}", "type", "NonStructuralSchema",
                                           "status", "True", "reason", "Violations", "message", msg)
                               : NULL;
    bool change = want == NULL ? old != NULL : !same_condition(want, old);
    if (change && want == NULL)
        gw_crd__remove_condition(crd, "NonStructuralSchema");
    else if (change)
        gw_crd__set_condition(crd, "NonStructuralSchema", "True", "Violations", msg, now);
    if (change)
        j->structural_gen = gen;
    json_decref(want);
    free(msg);
}

static int
edit(json_t *crd, void *arg)
{
    job_t *j = arg;
    char now[GW_TIME_LEN + 1];

    gw_time_now(now);
    j->names_changed = false;
    j->structural_gen = -1;
    names_step(j, crd, now);
    establish_step(crd, now);
    structural_step(j, crd, now);
    return 0;
}

/* ---- the queue ---------------------------------------------------------------------------- */

typedef struct {
    gw_crd_naming_t *c;
    const char *group, *self;
} requeue_t;

static void
requeue_one(const char *key, const json_t *crd, int64_t rev, void *arg)
{
    requeue_t *r = arg;
    const char *name = key + strlen(GW_CRD__PREFIX);
    const char *g = group_of(crd);
    (void)rev;

    if (g != NULL && strcmp(g, r->group) == 0 && strcmp(name, r->self) != 0)
        gw_workqueue_add(r->c->queue, name);
}

/* Names of `group` may have been released: look at its other CRDs again. */
static void
requeue_group(gw_crd_naming_t *c, const char *group, const char *self)
{
    requeue_t r = {c, group, self};

    if (group != NULL)
        gw_informer_each(c->crds, requeue_one, &r);
}

static void
remember(gw_crd_naming_t *c, const job_t *j, const json_t *crd, int64_t rev)
{
    json_t *names = json_object_get(json_object_get(crd, "status"), "acceptedNames");

    if (j->names_changed && names != NULL)
        json_object_set_new(c->written, j->name,
                            json_pack("{s:I,s:O}", "rev", (json_int_t)rev, "names", names));
    if (j->structural_gen >= 0)
        json_object_set_new(c->generated, j->name, json_integer(j->structural_gen));
}

static void
written(int err, const json_t *crd, int64_t rev, void *arg)
{
    job_t *j = arg;
    gw_crd_naming_t *c = j->c;

    if (!c->stopping) {
        if (err == 0 && crd != NULL) {
            remember(c, j, crd, rev);
            if (j->names_changed)
                requeue_group(c, group_of(crd), j->name);
        }
        if (err == 0 || err == GW_ENOTFOUND || err == GW_ECONFLICT) {
            gw_workqueue_forget(c->queue, j->name);
        } else {
            gw_log_warn(NULL, NAME ": status of %s: %s; retrying", j->name, gw_strerror(err));
            gw_workqueue_add_rate_limited(c->queue, j->name);
        }
        gw_workqueue_done(c->queue, j->name);
    }
    free(j->name);
    free(j);
}

/* Whether the edit would change the cached object: most events need no etcd call at all. */
static bool
needs_write(gw_crd_naming_t *c, const char *name, const json_t *cached)
{
    job_t dry = {.c = c, .name = (char *)name};
    json_t *copy = json_deep_copy(cached);
    edit(copy, &dry);
    bool changed = !json_equal(copy, cached);
    json_decref(copy);
    return changed;
}

static void
process(gw_workqueue_t *q, const char *name, void *ctx)
{
    gw_crd_naming_t *c = ctx;
    char *rel = gw_sprintf(GW_CRD__PREFIX "%s", name);
    const json_t *crd = gw_informer_get(c->crds, rel, NULL);
    free(rel);

    if (crd == NULL) { /* deleted: its names are free; the group is "<plural>.<group>"'s rest */
        const char *dot = strchr(name, '.');
        requeue_group(c, dot != NULL ? dot + 1 : NULL, name);
    }
    if (crd == NULL || !needs_write(c, name, crd)) {
        gw_workqueue_done(q, name);
        return;
    }
    job_t *j = gw_calloc(1, sizeof(*j));
    *j = (job_t){.c = c, .name = gw_strdup(name), .structural_gen = -1};
    int rc = gw_crd__write(c->store, name, edit, written, j);
    if (rc != 0)
        written(rc, NULL, 0, j);
}

static void
enqueue_one(const char *key, const json_t *crd, int64_t rev, void *arg)
{
    gw_crd_naming_t *c = arg;
    (void)crd, (void)rev;

    gw_workqueue_add(c->queue, key + strlen(GW_CRD__PREFIX));
}

static void
changed(gw_informer_t *inf, const gw_informer_event_t *ev, void *ctx)
{
    gw_crd_naming_t *c = ctx;
    (void)inf;

    if (ev->type == GW_INFORMER_SYNCED) {
        if (!c->synced) /* names are judged against every CRD: none before all are listed */
            gw_informer_each(c->crds, enqueue_one, c);
        c->synced = true;
        return;
    }
    if (strncmp(ev->key, GW_CRD__PREFIX, strlen(GW_CRD__PREFIX)) != 0)
        return;
    const char *name = ev->key + strlen(GW_CRD__PREFIX);
    const json_t *mine = json_object_get(c->written, name);
    if (ev->type == GW_INFORMER_DELETED ||
        (mine != NULL && ev->mod_revision >= json_integer_value(json_object_get(mine, "rev"))))
        json_object_del(c->written, name);
    if (ev->type == GW_INFORMER_DELETED)
        json_object_del(c->generated, name);
    if (c->synced)
        gw_workqueue_add(c->queue, name);
}

gw_crd_naming_t *
gw_crd_naming_start(etcd_client_t *client, struct event_base *base, const char *etcd_prefix,
                    const gw_value_transformer_t *values, const gw_catalog_t *catalog)
{
    gw_crd_naming_t *c = gw_calloc(1, sizeof(*c));

    c->conn = etcd_conn_new(client, base);
    c->store = gw_store_new(c->conn, etcd_prefix, values);
    c->catalog = catalog;
    c->written = json_object();
    c->generated = json_object();
    c->queue = gw_workqueue_new(base, &(gw_workqueue_opts_t){.process = process, .ctx = c});
    c->crds = gw_informer_start(client, base,
                                &(gw_informer_opts_t){.name = NAME,
                                                      .etcd_prefix = etcd_prefix,
                                                      .values = values,
                                                      .prefix = GW_CRD__PREFIX,
                                                      .cache = GW_INFORMER_JSON,
                                                      .handler = changed,
                                                      .ctx = c});
    return c;
}

void
gw_crd_naming_stop(gw_crd_naming_t *c)
{
    if (c == NULL)
        return;
    c->stopping = true;
    gw_workqueue_shutdown(c->queue);
    gw_informer_stop(c->crds);
    etcd_conn_free(c->conn); /* every write's callback fires now, and sees `stopping` */
    gw_store_free(c->store);
    gw_workqueue_free(c->queue);
    json_decref(c->written);
    json_decref(c->generated);
    free(c);
}
