/* kube's WatchTracker: the watches open per resource, namespace and name, which make a
 * mutating request of that resource costlier (its events go to each of them). */
#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_apf_int.h"

static const char *
or_empty(const char *s)
{
    return s != NULL ? s : "";
}

static unsigned
bucket(const char *group, const char *resource, const char *ns, const char *name)
{
    const char *parts[] = {group, resource, ns, name};
    unsigned h = 2166136261u; /* FNV-1a over the four, each ended by its NUL */

    for (int i = 0; i < 4; i++) {
        for (const char *c = parts[i];; c++) {
            h = (h ^ (unsigned char)*c) * 16777619u;
            if (*c == '\0')
                break;
        }
    }
    return h % WATCH_BUCKETS;
}

static gw_apf_watch_t **
find(gw_apf_t *a, const char *group, const char *resource, const char *ns, const char *name)
{
    gw_apf_watch_t **p = &a->watches[bucket(group, resource, ns, name)];
    for (; *p != NULL; p = &(*p)->next) {
        gw_apf_watch_t *w = *p;
        if (strcmp(w->resource, resource) == 0 && strcmp(w->group, group) == 0 &&
            strcmp(w->ns, ns) == 0 && strcmp(w->name, name) == 0)
            break;
    }
    return p;
}

gw_apf_watch_t *
gw_apf_watch_register(gw_apf_t *a, const gw_apf_digest_t *d)
{
    const char *g = or_empty(d->api_group), *r = or_empty(d->resource);
    const char *ns = or_empty(d->namespace_), *name = or_empty(d->name);

    pthread_mutex_lock(&a->lock);
    gw_apf_watch_t **p = find(a, g, r, ns, name);
    if (*p == NULL) {
        gw_apf_watch_t *w = gw_calloc(1, sizeof(*w));
        w->group = gw_strdup(g);
        w->resource = gw_strdup(r);
        w->ns = gw_strdup(ns);
        w->name = gw_strdup(name);
        *p = w;
    }
    gw_apf_watch_t *w = *p;
    w->count++;
    pthread_mutex_unlock(&a->lock);
    return w;
}

static void
watch_free(gw_apf_watch_t *w)
{
    free(w->group);
    free(w->resource);
    free(w->ns);
    free(w->name);
    free(w);
}

void
gw_apf_watch_forget(gw_apf_t *a, gw_apf_watch_t *w)
{
    if (w == NULL)
        return;
    pthread_mutex_lock(&a->lock);
    if (--w->count == 0) {
        gw_apf_watch_t **p = find(a, w->group, w->resource, w->ns, w->name);
        *p = w->next;
        watch_free(w);
    }
    pthread_mutex_unlock(&a->lock);
}

static int
count_of(gw_apf_t *a, const char *group, const char *resource, const char *ns, const char *name)
{
    const gw_apf_watch_t *w = *find(a, group, resource, ns, name);
    return w != NULL ? w->count : 0;
}

int
gw_apf__watches_interested(gw_apf_t *a, const gw_apf_digest_t *d)
{
    const char *g = or_empty(d->api_group), *r = or_empty(d->resource);
    const char *ns = or_empty(d->namespace_), *name = or_empty(d->name);
    int n = count_of(a, g, r, "", "");

    if (ns[0] != '\0')
        n += count_of(a, g, r, ns, "");
    if (name[0] != '\0')
        n += count_of(a, g, r, ns, name);
    return n;
}

int
gw_apf_watch_count(gw_apf_t *a, const gw_apf_digest_t *d)
{
    const char *v = or_empty(d->verb);
    if (strcmp(v, "get") == 0 || strcmp(v, "list") == 0 || strcmp(v, "watch") == 0)
        return 0;
    pthread_mutex_lock(&a->lock);
    int n = gw_apf__watches_interested(a, d);
    pthread_mutex_unlock(&a->lock);
    return n;
}

void
gw_apf__watches_free(gw_apf_t *a)
{
    for (int b = 0; b < WATCH_BUCKETS; b++) {
        while (a->watches[b] != NULL) {
            gw_apf_watch_t *w = a->watches[b];
            a->watches[b] = w->next;
            watch_free(w);
        }
    }
}
