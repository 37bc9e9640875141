/* Custom resources from etcd: an informer on CRDs feeding catalog snapshots. */
#include "gw_crd_feed.h"

#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_crd.h"
#include "gw_informer.h"
#include "gw_log.h"
#include "gw_workqueue.h"

#define SNAPSHOT_KEY "snapshot"

/* The compiled CRDs of one snapshot: released when the snapshot dies. */
typedef struct {
    gw_crd_t **crds;
    size_t n;
} crd_set_t;

struct gw_crd_feed {
    const gw_catalog_t *catalog;
    gw_informer_t *crds;
    gw_workqueue_t *queue;
    crd_set_t *last; /* the set published last, referenced: the next rebuild reuses it */
    void (*on_published)(void *arg);
    void *arg;
};

static void
set_free(void *arg)
{
    crd_set_t *s = arg;

    if (s == NULL)
        return;
    for (size_t i = 0; i < s->n; i++)
        gw_crd_unref(s->crds[i]);
    free(s->crds);
    free(s);
}

static crd_set_t *
set_copy(const crd_set_t *s)
{
    crd_set_t *c = gw_calloc(1, sizeof(*c));

    c->crds = gw_calloc(s->n + 1, sizeof(*c->crds));
    for (size_t i = 0; i < s->n; i++)
        c->crds[c->n++] = gw_crd_ref(s->crds[i]);
    return c;
}

static void
changed(gw_informer_t *inf, const gw_informer_event_t *ev, void *ctx)
{
    gw_crd_feed_t *f = ctx;
    (void)inf, (void)ev;

    gw_workqueue_add(f->queue, SNAPSHOT_KEY);
}

/* The compiled form of crd: the last set's when its revision is the same, else a new one. */
static gw_crd_t *
compile(gw_crd_feed_t *f, const json_t *crd, int64_t revision)
{
    const json_t *meta = json_object_get(crd, "metadata");
    const char *uid = json_string_value(json_object_get(meta, "uid"));
    char err[256];
    gw_crd_t *c;

    for (size_t i = 0; f->last != NULL && i < f->last->n && uid; i++) {
        gw_crd_t *old = f->last->crds[i];
        if (strcmp(gw_crd_uid(old), uid) == 0 && gw_crd_revision(old) == revision)
            return gw_crd_ref(old);
    }
    c = gw_crd_compile(crd, revision, gw_catalog_base(f->catalog), err, sizeof(err));
    if (c == NULL)
        gw_log_debug(NULL, "custom resources: %s is not served: %s",
                     json_string_value(json_object_get(meta, "name")), err);
    return c;
}

typedef struct {
    gw_crd_feed_t *f;
    crd_set_t *set;
} collect_t;

static void
collect(const char *key, const json_t *obj, int64_t mod_revision, void *ctx)
{
    collect_t *c = ctx;
    gw_crd_t *crd;
    (void)key;

    if (obj == NULL || (crd = compile(c->f, obj, mod_revision)) == NULL)
        return;
    c->set->crds = gw_realloc(c->set->crds, (c->set->n + 1) * sizeof(*c->set->crds));
    c->set->crds[c->set->n++] = crd;
}

/* Whether r clashes with what base serves or with a resource already taken (a conflict the
 * naming controller is still to settle): the first comer keeps it. */
static bool
clashes(const gw_catalog_t *base, const gw_resource_t *const *taken, size_t n,
        const gw_resource_t *r)
{
    if (gw_catalog_find(base, r->group, r->version, r->name) != NULL ||
        gw_catalog_find_kind(base, r->group, r->version, r->kind) != NULL)
        return true;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(taken[i]->group, r->group) == 0 && strcmp(taken[i]->version, r->version) == 0 &&
            (strcmp(taken[i]->name, r->name) == 0 || strcmp(taken[i]->kind, r->kind) == 0))
            return true;
    }
    return false;
}

static void
publish(gw_crd_feed_t *f, crd_set_t *set)
{
    size_t cap = 0, n = 0;
    const gw_resource_t **all = NULL;
    const gw_catalog_t *snap;

    for (size_t i = 0; i < set->n; i++) {
        const gw_resource_t *const *rs;
        size_t k = gw_crd_resources(set->crds[i], &rs);
        all = gw_realloc(all, (cap += k) * sizeof(*all));
        for (size_t j = 0; j < k; j++) {
            if (!clashes(f->catalog, all, n, rs[j]))
                all[n++] = rs[j];
        }
    }
    snap = gw_catalog_extend(f->catalog, all, n,
                             (gw_catalog_owner_t){.release = set_free, .ctx = set_copy(set)});
    free(all);
    gw_catalog_publish(snap);
    gw_catalog_unref(snap);
    gw_log_debug(NULL, "custom resources: %zu CRDs, %zu resources published", set->n, n);
}

static void
rebuild(gw_workqueue_t *q, const char *key, void *ctx)
{
    gw_crd_feed_t *f = ctx;
    crd_set_t *set;

    if (!gw_informer_synced(f->crds)) {
        gw_workqueue_done(q, key);
        return;
    }
    set = gw_calloc(1, sizeof(*set));
    gw_informer_each(f->crds, collect, &(collect_t){f, set});
    publish(f, set);
    set_free(f->last);
    f->last = set;
    gw_workqueue_done(q, key);
    if (f->on_published != NULL)
        f->on_published(f->arg);
}

gw_crd_feed_t *
gw_crd_feed_start(etcd_client_t *client, struct event_base *base, const char *etcd_prefix,
                  const gw_value_transformer_t *values, const gw_catalog_t *catalog,
                  void (*published)(void *arg), void *arg)
{
    gw_crd_feed_t *f = gw_calloc(1, sizeof(*f));

    f->catalog = catalog;
    f->on_published = published;
    f->arg = arg;
    f->queue = gw_workqueue_new(base, &(gw_workqueue_opts_t){.process = rebuild, .ctx = f});
    f->crds = gw_informer_start(
        client, base,
        &(gw_informer_opts_t){.name = "custom resource definitions",
                              .etcd_prefix = etcd_prefix,
                              .values = values,
                              .prefix = "apiextensions.k8s.io/customresourcedefinitions/",
                              .cache = GW_INFORMER_JSON,
                              .handler = changed,
                              .ctx = f});
    return f;
}

void
gw_crd_feed_stop(gw_crd_feed_t *f)
{
    if (f == NULL)
        return;
    gw_workqueue_shutdown(f->queue);
    gw_informer_stop(f->crds);
    gw_workqueue_free(f->queue);
    set_free(f->last);
    free(f);
}
