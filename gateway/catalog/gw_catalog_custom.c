/* Catalog snapshots: a configured catalog extended with custom resources, refcounted. */
#include "gw_catalog.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "gw_catalog_int.h"
#include "gw_openapi.h"

/* ---- kube's version order ---------------------------------------------------------------- */

typedef struct {
    bool kube_like;
    int major;
    int level; /* 2 GA, 1 beta, 0 alpha */
    int minor;
} version_key_t;

/* "v<major>[(alpha|beta)<minor>]" with numbers not starting with 0, as kube's parser reads it. */
static version_key_t
version_key(const char *v)
{
    version_key_t k = {false, 0, 2, 0};
    const char *p = v + 1;
    char *end;

    if (v[0] != 'v' || !isdigit((unsigned char)*p) || *p == '0')
        return k;
    k.major = (int)strtol(p, &end, 10);
    if (*end == '\0') {
        k.kube_like = true;
        return k;
    }
    if (strncmp(end, "alpha", 5) == 0 || strncmp(end, "beta", 4) == 0) {
        k.level = end[0] == 'a' ? 0 : 1;
        p = end + (end[0] == 'a' ? 5 : 4);
        if (!isdigit((unsigned char)*p) || *p == '0')
            return k;
        k.minor = (int)strtol(p, &end, 10);
        k.kube_like = *end == '\0';
    }
    return k;
}

int
gw_catalog_version_cmp(const char *a, const char *b)
{
    version_key_t x = version_key(a), y = version_key(b);

    if (x.kube_like != y.kube_like)
        return x.kube_like ? -1 : 1;
    if (!x.kube_like)
        return strcmp(a, b);
    if (x.level != y.level)
        return y.level - x.level;
    if (x.major != y.major)
        return y.major - x.major;
    return y.minor - x.minor;
}

/* ---- snapshots --------------------------------------------------------------------------- */

static int
custom_order(const void *a, const void *b)
{
    const gw_resource_t *x = *(const gw_resource_t *const *)a;
    const gw_resource_t *y = *(const gw_resource_t *const *)b;
    int d = strcmp(x->group, y->group);

    if (d == 0)
        d = gw_catalog_version_cmp(x->version, y->version);
    return d ? d : strcmp(x->name, y->name);
}

static bool
has_version(const gw_group_t *g, const char *version)
{
    for (size_t i = 0; i < g->n_versions; i++) {
        if (strcmp(g->versions[i], version) == 0)
            return true;
    }
    return false;
}

/* Append version to g, whose versions array has room (built for the worst case). */
static void
add_version(gw_group_t *g, const char *version)
{
    if (!has_version(g, version))
        ((const char **)g->versions)[g->n_versions++] = version;
}

/* base's groups, each with room for every custom version, then the custom groups. */
static void
extend_groups(gw_catalog_t *c, const gw_catalog_t *base, const gw_resource_t **custom, size_t n)
{
    c->groups = gw_catalog__alloc_in(c, (base->n_groups + n) * sizeof(*c->groups));
    for (size_t i = 0; i < base->n_groups; i++) {
        gw_group_t *g = &c->groups[c->n_groups++];
        const char **versions =
            gw_catalog__alloc_in(c, (base->groups[i].n_versions + n) * sizeof(*versions));
        memcpy(versions, base->groups[i].versions, base->groups[i].n_versions * sizeof(*versions));
        *g = base->groups[i];
        g->versions = versions;
    }
    for (size_t i = 0; i < n; i++) {
        gw_group_t *g = (gw_group_t *)gw_catalog_group(c, custom[i]->group);
        if (g == NULL) {
            g = &c->groups[c->n_groups++];
            g->name = custom[i]->group;
            g->versions = gw_catalog__alloc_in(c, n * sizeof(*g->versions));
        }
        add_version(g, custom[i]->version);
    }
}

const gw_catalog_t *
gw_catalog_extend(const gw_catalog_t *base, const gw_resource_t *const *custom, size_t n,
                  gw_catalog_owner_t owner)
{
    gw_catalog_t *c = calloc(1, sizeof(*c));
    const gw_resource_t **sorted = calloc(n + 1, sizeof(*sorted));

    if (c == NULL || sorted == NULL)
        abort();
    base = gw_catalog_base(base);
    c->arena = gw_arena_new();
    c->base = base;
    c->universe = base->universe;
    c->owner = owner;
    atomic_init(&c->refs, 1);
    if (n > 0) {
        memcpy(sorted, custom, n * sizeof(*sorted));
        qsort(sorted, n, sizeof(*sorted), custom_order);
    }
    c->n_resources = base->n_resources + n;
    c->resources = gw_catalog__alloc_in(c, c->n_resources * sizeof(*c->resources));
    memcpy(c->resources, base->resources, base->n_resources * sizeof(*c->resources));
    if (n > 0)
        memcpy(c->resources + base->n_resources, sorted, n * sizeof(*c->resources));
    gw_catalog__index(c);
    extend_groups(c, base, sorted, n);
    free(sorted);
    return c;
}

const gw_catalog_t *
gw_catalog_ref(const gw_catalog_t *c)
{
    if (c != NULL && c->arena != NULL)
        atomic_fetch_add(&((gw_catalog_t *)c)->refs, 1);
    return c;
}

void
gw_catalog_unref(const gw_catalog_t *c)
{
    gw_catalog_t *mc = (gw_catalog_t *)c;

    if (c == NULL || c->arena == NULL || atomic_fetch_sub(&mc->refs, 1) != 1)
        return;
    if (mc->owner.release)
        mc->owner.release(mc->owner.ctx);
    pthread_mutex_destroy(&mc->docs_lock);
    gw_arena_free(mc->arena);
    free(mc);
}

const gw_catalog_t *
gw_catalog_base(const gw_catalog_t *c)
{
    return c->base ? c->base : c;
}

/* ---- the process's published catalog -------------------------------------------------------- */

static pthread_mutex_t published_lock = PTHREAD_MUTEX_INITIALIZER;
static const gw_catalog_t *published;

void
gw_catalog_publish(const gw_catalog_t *c)
{
    const gw_catalog_t *old;

    gw_catalog_ref(c);
    pthread_mutex_lock(&published_lock);
    old = published;
    published = c;
    pthread_mutex_unlock(&published_lock);
    gw_catalog_unref(old);
}

const gw_catalog_t *
gw_catalog_current(void)
{
    const gw_catalog_t *c;

    pthread_mutex_lock(&published_lock);
    c = gw_catalog_ref(published);
    pthread_mutex_unlock(&published_lock);
    return c;
}
