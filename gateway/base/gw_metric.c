/* The metric registry: families of striped series, printed in the Prometheus text format. */
#include "gw_metric.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"

#define STRIPES 8   /* more than the workers a machine usually runs; a power of two */
#define SEP '\x1f'  /* joins label values into a series key */
#define KEY_MAX 512 /* longer label sets are cut: kube's label values are short */

typedef struct series {
    struct series *next;
    char *key;
    uint64_t hash;
    double value;      /* counters and gauges; a histogram's sum */
    uint64_t count;    /* histograms */
    uint64_t *buckets; /* histograms: per bucket, not cumulative; n_buckets + 1 (+Inf) */
} series_t;

typedef struct {
    pthread_mutex_t lock;
    series_t **slots; /* chained */
    size_t cap, n;
} stripe_t;

struct gw_metric {
    gw_metric_desc_t d;
    size_t *label_order; /* label indexes in alphabetical order of their names */
    stripe_t stripes[STRIPES];
    gw_metric_t *next;
};

typedef struct refresh {
    gw_metric_refresh_fn fn;
    void *arg;
    struct refresh *next;
} refresh_t;

static struct {
    pthread_mutex_t lock;        /* families and refreshers */
    pthread_mutex_t scrape_lock; /* held while refreshers run */
    gw_metric_t *families;
    refresh_t *refreshers;
    int major, minor;
    bool show_hidden;
} reg = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, NULL, NULL, 1, 32, false};

static _Thread_local int thread_stripe = -1;
static atomic_uint next_stripe;

static stripe_t *
my_stripe(gw_metric_t *m)
{
    if (m->d.type == GW_METRIC_GAUGE)
        return &m->stripes[0];
    if (thread_stripe < 0)
        thread_stripe = (int)(atomic_fetch_add(&next_stripe, 1) % STRIPES);
    return &m->stripes[thread_stripe];
}

static uint64_t
hash_key(const char *s)
{
    uint64_t h = 1469598103934665603ULL; /* FNV-1a */
    for (; *s != '\0'; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

/* The label values joined into key (KEY_MAX bytes). */
static void
make_key(const gw_metric_t *m, const char *const *values, char *key)
{
    size_t len = 0;
    for (size_t i = 0; i < m->d.n_labels; i++) {
        const char *v = values[i] != NULL ? values[i] : "";
        for (; *v != '\0' && len < KEY_MAX - 2; v++)
            key[len++] = *v == SEP ? ' ' : *v;
        if (i + 1 < m->d.n_labels && len < KEY_MAX - 1)
            key[len++] = SEP;
    }
    key[len] = '\0';
}

static void
stripe_grow(stripe_t *s)
{
    size_t cap = s->cap ? s->cap * 2 : 16;
    series_t **slots = gw_calloc(cap, sizeof(*slots));
    for (size_t i = 0; i < s->cap; i++) {
        for (series_t *e = s->slots[i], *next; e != NULL; e = next) {
            next = e->next;
            e->next = slots[e->hash & (cap - 1)];
            slots[e->hash & (cap - 1)] = e;
        }
    }
    free(s->slots);
    s->slots = slots;
    s->cap = cap;
}

/* The series for key in s, created when `create`; s's lock held. */
static series_t *
stripe_find(stripe_t *s, const char *key, size_t n_buckets, bool create)
{
    uint64_t h = hash_key(key);
    for (series_t *e = s->cap ? s->slots[h & (s->cap - 1)] : NULL; e != NULL; e = e->next) {
        if (e->hash == h && strcmp(e->key, key) == 0)
            return e;
    }
    if (!create)
        return NULL;
    if (s->n + 1 > s->cap)
        stripe_grow(s);
    series_t *e = gw_calloc(1, sizeof(*e));
    e->key = gw_strdup(key);
    e->hash = h;
    if (n_buckets > 0)
        e->buckets = gw_calloc(n_buckets + 1, sizeof(uint64_t));
    e->next = s->slots[h & (s->cap - 1)];
    s->slots[h & (s->cap - 1)] = e;
    s->n++;
    return e;
}

static void
series_free(series_t *e)
{
    free(e->buckets);
    free(e->key);
    free(e);
}

static void
stripe_clear(stripe_t *s)
{
    for (size_t i = 0; i < s->cap; i++) {
        for (series_t *e = s->slots[i], *next; e != NULL; e = next) {
            next = e->next;
            series_free(e);
        }
    }
    free(s->slots);
    s->slots = NULL;
    s->cap = s->n = 0;
}

/* ---- families ----------------------------------------------------------------------------- */

static const gw_metric_desc_t *sort_desc; /* label_order's comparator's family; reg.lock held */

static int
by_label_name(const void *a, const void *b)
{
    return strcmp(sort_desc->labels[*(const size_t *)a], sort_desc->labels[*(const size_t *)b]);
}

gw_metric_t *
gw_metric_family(const gw_metric_desc_t *d)
{
    pthread_mutex_lock(&reg.lock);
    gw_metric_t *m = reg.families;
    while (m != NULL && strcmp(m->d.name, d->name) != 0)
        m = m->next;
    if (m == NULL) {
        m = gw_calloc(1, sizeof(*m));
        m->d = *d;
        m->label_order = gw_calloc(d->n_labels + 1, sizeof(size_t));
        for (size_t i = 0; i < d->n_labels; i++)
            m->label_order[i] = i;
        sort_desc = d;
        qsort(m->label_order, d->n_labels, sizeof(size_t), by_label_name);
        for (size_t i = 0; i < STRIPES; i++)
            pthread_mutex_init(&m->stripes[i].lock, NULL);
        m->next = reg.families;
        reg.families = m;
    }
    pthread_mutex_unlock(&reg.lock);
    return m;
}

gw_metric_t *
gw_metric_cached(gw_metric_t *_Atomic *cache, const gw_metric_desc_t *d)
{
    gw_metric_t *m = atomic_load_explicit(cache, memory_order_acquire);
    if (m == NULL) {
        m = gw_metric_family(d);
        atomic_store_explicit(cache, m, memory_order_release);
    }
    return m;
}

static void
update(gw_metric_t *m, const char *const *values, double v, bool set)
{
    char key[KEY_MAX];
    make_key(m, values, key);
    stripe_t *s = set ? &m->stripes[0] : my_stripe(m); /* a value set is never split */
    pthread_mutex_lock(&s->lock);
    series_t *e = stripe_find(s, key, 0, true);
    e->value = set ? v : e->value + v;
    pthread_mutex_unlock(&s->lock);
}

void
gw_metric_add(gw_metric_t *m, const char *const *values, double v)
{
    update(m, values, v, false);
}

void
gw_metric_set(gw_metric_t *m, const char *const *values, double v)
{
    update(m, values, v, true);
}

void
gw_metric_delete(gw_metric_t *m, const char *const *values)
{
    char key[KEY_MAX];
    make_key(m, values, key);
    stripe_t *s = &m->stripes[0];
    pthread_mutex_lock(&s->lock);
    uint64_t h = hash_key(key);
    for (series_t **p = s->cap ? &s->slots[h & (s->cap - 1)] : NULL; p != NULL && *p != NULL;
         p = &(*p)->next) {
        if ((*p)->hash == h && strcmp((*p)->key, key) == 0) {
            series_t *gone = *p;
            *p = gone->next;
            series_free(gone);
            s->n--;
            break;
        }
    }
    pthread_mutex_unlock(&s->lock);
}

void
gw_metric_observe(gw_metric_t *m, const char *const *values, double v)
{
    char key[KEY_MAX];
    make_key(m, values, key);
    size_t b = 0;
    while (b < m->d.n_buckets && v > m->d.buckets[b])
        b++;
    stripe_t *s = my_stripe(m);
    pthread_mutex_lock(&s->lock);
    series_t *e = stripe_find(s, key, m->d.n_buckets, true);
    e->buckets[b]++;
    e->count++;
    e->value += v;
    pthread_mutex_unlock(&s->lock);
}

/* ---- scrapes ------------------------------------------------------------------------------ */

void
gw_metric_on_scrape(gw_metric_refresh_fn fn, void *arg)
{
    refresh_t *r = gw_calloc(1, sizeof(*r));
    r->fn = fn;
    r->arg = arg;
    pthread_mutex_lock(&reg.lock);
    r->next = reg.refreshers;
    reg.refreshers = r;
    pthread_mutex_unlock(&reg.lock);
}

void
gw_metric_off_scrape(gw_metric_refresh_fn fn, void *arg)
{
    pthread_mutex_lock(&reg.scrape_lock);
    pthread_mutex_lock(&reg.lock);
    for (refresh_t **p = &reg.refreshers; *p != NULL; p = &(*p)->next) {
        if ((*p)->fn == fn && (*p)->arg == arg) {
            refresh_t *gone = *p;
            *p = gone->next;
            free(gone);
            break;
        }
    }
    pthread_mutex_unlock(&reg.lock);
    pthread_mutex_unlock(&reg.scrape_lock);
}

void
gw_metric_configure(int major, int minor, bool show_hidden)
{
    reg.major = major;
    reg.minor = minor;
    reg.show_hidden = show_hidden;
}

bool
gw_metric_check_show_hidden(const char *v, int major, int minor, char *err, size_t len)
{
    if (v == NULL || *v == '\0')
        return true;
    int ma, mi, used = 0;
    if (sscanf(v, "%d.%d%n", &ma, &mi, &used) == 2 && v[used] == '\0' && ma == major &&
        mi == minor - 1)
        return true;
    snprintf(err, len,
             "--show-hidden-metrics-for-version must be omitted or have the value '%d.%d'. "
             "Only the previous minor version is allowed",
             major, minor - 1);
    return false;
}

/* 0: current; 1: deprecated (marked); 2: hidden. */
static int
deprecation(const gw_metric_desc_t *d)
{
    int ma, mi;
    if (d->deprecated == NULL || sscanf(d->deprecated, "%d.%d", &ma, &mi) != 2)
        return 0;
    if (reg.major > ma || (reg.major == ma && reg.minor >= mi + 1))
        return reg.show_hidden ? 1 : 2;
    return reg.major == ma && reg.minor == mi ? 1 : 0;
}

/* v as Prometheus' Go client prints it: strconv.FormatFloat(v, 'g', -1, 64), the shortest
 * digits that read back the same, in exponent form from 1e+06 up and below 1e-04. */
static void
put_value(gw_buf_t *b, double v)
{
    if (isinf(v) || isnan(v)) {
        gw_buf_str(b, isnan(v) ? "NaN" : v > 0 ? "+Inf" : "-Inf");
        return;
    }
    if (v == 0) {
        gw_buf_char(b, '0');
        return;
    }
    char text[40];
    int digits = 1;
    for (; digits < 17; digits++) {
        snprintf(text, sizeof(text), "%.*e", digits - 1, v);
        if (strtod(text, NULL) == v)
            break;
    }
    int exp = atoi(strchr(text, 'e') + 1);
    if (exp < -4 || exp >= 6)
        snprintf(text, sizeof(text), "%.*e", digits - 1, v);
    else
        snprintf(text, sizeof(text), "%.*f", digits - 1 - exp > 0 ? digits - 1 - exp : 0, v);
    gw_buf_str(b, text);
}

static void
put_escaped(gw_buf_t *b, const char *v, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        if (v[i] == '\\' || v[i] == '"')
            gw_buf_char(b, '\\');
        if (v[i] == '\n')
            gw_buf_str(b, "\\n");
        else
            gw_buf_char(b, v[i]);
    }
}

/* The series' labels in alphabetical order, then `extra` (already formatted) if any. */
static void
put_labels(gw_buf_t *b, const gw_metric_t *m, const char *key, const char *extra)
{
    const char *vals[64];
    size_t lens[64], n = 0;
    for (const char *p = key; n < m->d.n_labels && n < 64; n++) {
        lens[n] = strcspn(p, "\x1f");
        vals[n] = p;
        p += lens[n] + (p[lens[n]] != '\0');
    }
    if (n == 0 && extra == NULL)
        return;
    gw_buf_char(b, '{');
    for (size_t i = 0; i < n; i++) {
        size_t l = m->label_order[i];
        gw_buf_printf(b, "%s%s=\"", i > 0 ? "," : "", m->d.labels[l]);
        put_escaped(b, vals[l], lens[l]);
        gw_buf_char(b, '"');
    }
    if (extra != NULL)
        gw_buf_printf(b, "%s%s", n > 0 ? "," : "", extra);
    gw_buf_char(b, '}');
}

static void
put_series(gw_buf_t *b, const gw_metric_t *m, const series_t *e)
{
    if (m->d.type != GW_METRIC_HISTOGRAM) {
        gw_buf_str(b, m->d.name);
        put_labels(b, m, e->key, NULL);
        gw_buf_char(b, ' ');
        put_value(b, e->value);
        gw_buf_char(b, '\n');
        return;
    }
    uint64_t cumulative = 0;
    for (size_t i = 0; i <= m->d.n_buckets; i++) {
        gw_buf_t le = {0};
        gw_buf_str(&le, "le=\"");
        put_value(&le, i < m->d.n_buckets ? m->d.buckets[i] : INFINITY);
        gw_buf_char(&le, '"');
        cumulative += e->buckets[i];
        gw_buf_printf(b, "%s_bucket", m->d.name);
        put_labels(b, m, e->key, gw_buf_cstr(&le));
        gw_buf_char(b, ' ');
        put_value(b, (double)cumulative);
        gw_buf_char(b, '\n');
        gw_buf_free(&le);
    }
    gw_buf_printf(b, "%s_sum", m->d.name);
    put_labels(b, m, e->key, NULL);
    gw_buf_char(b, ' ');
    put_value(b, e->value);
    gw_buf_printf(b, "\n%s_count", m->d.name);
    put_labels(b, m, e->key, NULL);
    gw_buf_char(b, ' ');
    put_value(b, (double)e->count);
    gw_buf_char(b, '\n');
}

/* Every stripe's series of m summed into one stripe (the caller clears it). */
static void
merge_stripes(gw_metric_t *m, stripe_t *out)
{
    for (size_t i = 0; i < STRIPES; i++) {
        stripe_t *s = &m->stripes[i];
        pthread_mutex_lock(&s->lock);
        for (size_t k = 0; k < s->cap; k++) {
            for (const series_t *e = s->slots[k]; e != NULL; e = e->next) {
                series_t *t = stripe_find(out, e->key, m->d.n_buckets, true);
                t->value += e->value;
                t->count += e->count;
                for (size_t j = 0; e->buckets != NULL && j <= m->d.n_buckets; j++)
                    t->buckets[j] += e->buckets[j];
            }
        }
        pthread_mutex_unlock(&s->lock);
    }
}

static int
by_series_key(const void *a, const void *b)
{
    return strcmp((*(series_t *const *)a)->key, (*(series_t *const *)b)->key);
}

static void
put_family(gw_buf_t *b, gw_metric_t *m)
{
    int dep = deprecation(&m->d);
    if (dep == 2)
        return;
    stripe_t merged = {0};
    merge_stripes(m, &merged);
    if (merged.n > 0) {
        series_t **all = gw_calloc(merged.n, sizeof(*all));
        size_t n = 0;
        for (size_t k = 0; k < merged.cap; k++) {
            for (series_t *e = merged.slots[k]; e != NULL; e = e->next)
                all[n++] = e;
        }
        qsort(all, n, sizeof(*all), by_series_key);
        static const char *const types[] = {"counter", "gauge", "histogram"};
        gw_buf_printf(b, "# HELP %s ", m->d.name);
        if (m->d.stability != NULL)
            gw_buf_printf(b, "[%s] ", m->d.stability);
        if (dep == 1)
            gw_buf_printf(b, "(Deprecated since %s.0) ", m->d.deprecated);
        gw_buf_printf(b, "%s\n# TYPE %s %s\n", m->d.help, m->d.name, types[m->d.type]);
        for (size_t i = 0; i < n; i++)
            put_series(b, m, all[i]);
        free(all);
    }
    stripe_clear(&merged);
}

static int
by_family_name(const void *a, const void *b)
{
    return strcmp((*(gw_metric_t *const *)a)->d.name, (*(gw_metric_t *const *)b)->d.name);
}

void
gw_metric_render(gw_buf_t *b)
{
    pthread_mutex_lock(&reg.scrape_lock);
    pthread_mutex_lock(&reg.lock);
    for (const refresh_t *r = reg.refreshers; r != NULL; r = r->next) {
        pthread_mutex_unlock(&reg.lock); /* a refresher registers families */
        r->fn(r->arg);
        pthread_mutex_lock(&reg.lock);
    }
    size_t n = 0;
    for (const gw_metric_t *m = reg.families; m != NULL; m = m->next)
        n++;
    gw_metric_t **all = gw_calloc(n + 1, sizeof(*all));
    n = 0;
    for (gw_metric_t *m = reg.families; m != NULL; m = m->next)
        all[n++] = m;
    pthread_mutex_unlock(&reg.lock);
    pthread_mutex_unlock(&reg.scrape_lock);
    qsort(all, n, sizeof(*all), by_family_name);
    for (size_t i = 0; i < n; i++)
        put_family(b, all[i]);
    free(all);
}

void
gw_metric_reset(void)
{
    pthread_mutex_lock(&reg.lock);
    for (gw_metric_t *m = reg.families, *next; m != NULL; m = next) {
        next = m->next;
        for (size_t i = 0; i < STRIPES; i++) {
            stripe_clear(&m->stripes[i]);
            pthread_mutex_destroy(&m->stripes[i].lock);
        }
        free(m->label_order);
        free(m);
    }
    reg.families = NULL;
    for (refresh_t *r = reg.refreshers, *next; r != NULL; r = next) {
        next = r->next;
        free(r);
    }
    reg.refreshers = NULL;
    pthread_mutex_unlock(&reg.lock);
}
