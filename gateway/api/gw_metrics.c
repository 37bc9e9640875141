/* Request metrics: per-worker shards of series, merged and printed on a scrape. */
#include "gw_metrics.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_metric.h"

#define N_LABELS 8
#define SEP '\x1f' /* joins label values into a series key; never in a label we record */

/* kube-apiserver's apiserver_request_duration_seconds buckets */
static const double buckets[] = {0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2,
                                 3,     4,     5,    6,   8,   10,  15,  20,  30,  45,   60};
#define N_BUCKETS (sizeof(buckets) / sizeof(buckets[0]))

/* apiserver_requested_deprecated_apis' labels, alphabetical: the order its keys hold them. */
#define N_DEPRECATED_LABELS 5
static const char *const deprecated_labels[N_DEPRECATED_LABELS] = {
    "group", "removed_release", "resource", "subresource", "version",
};

/* Label names in the order the key holds their values. */
static const char *const label_names[N_LABELS] = {
    "verb", "dry_run", "group", "version", "resource", "subresource", "scope", "component",
};

typedef struct {
    int code;
    uint64_t n;
} code_count_t;

typedef struct {
    char *key;
    uint64_t hash;
    uint64_t in_bucket[N_BUCKETS + 1]; /* per bucket, not cumulative; the last is +Inf */
    double sum;
    uint64_t count;
    code_count_t *codes;
    size_t n_codes;
} series_t;

/* An open-addressing table of series. */
typedef struct {
    series_t **slots;
    size_t cap, n;
} table_t;

typedef struct {
    pthread_mutex_t lock;
    table_t t;
    table_t deprecated; /* apiserver_requested_deprecated_apis: the keys (DEPRECATED_LABELS) */
} shard_t;

struct gw_metrics {
    shard_t *shards;
    size_t n_shards;
};

static uint64_t
hash_key(const char *s)
{
    uint64_t h = 1469598103934665603ULL; /* FNV-1a */
    for (; *s != '\0'; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

static void
table_grow(table_t *t)
{
    size_t cap = t->cap ? t->cap * 2 : 64;
    series_t **slots = gw_calloc(cap, sizeof(*slots));
    for (size_t i = 0; i < t->cap; i++) {
        series_t *s = t->slots[i];
        size_t j = s != NULL ? s->hash & (cap - 1) : 0;
        while (s != NULL && slots[j] != NULL)
            j = (j + 1) & (cap - 1);
        if (s != NULL)
            slots[j] = s;
    }
    free(t->slots);
    t->slots = slots;
    t->cap = cap;
}

/* The series for key, created empty when new. */
static series_t *
table_get(table_t *t, const char *key)
{
    if ((t->n + 1) * 2 > t->cap)
        table_grow(t);
    uint64_t h = hash_key(key);
    size_t i = h & (t->cap - 1);
    for (; t->slots[i] != NULL; i = (i + 1) & (t->cap - 1)) {
        if (t->slots[i]->hash == h && strcmp(t->slots[i]->key, key) == 0)
            return t->slots[i];
    }
    series_t *s = gw_calloc(1, sizeof(*s));
    s->key = gw_strdup(key);
    s->hash = h;
    t->slots[i] = s;
    t->n++;
    return s;
}

static void
table_free(table_t *t)
{
    for (size_t i = 0; i < t->cap; i++) {
        if (t->slots[i] == NULL)
            continue;
        free(t->slots[i]->codes);
        free(t->slots[i]->key);
        free(t->slots[i]);
    }
    free(t->slots);
    *t = (table_t){0};
}

static void
add_code(series_t *s, int code, uint64_t n)
{
    for (size_t i = 0; i < s->n_codes; i++) {
        if (s->codes[i].code == code) {
            s->codes[i].n += n;
            return;
        }
    }
    s->codes = gw_realloc(s->codes, (s->n_codes + 1) * sizeof(*s->codes));
    s->codes[s->n_codes++] = (code_count_t){code, n};
}

gw_metrics_t *
gw_metrics_new(size_t shards)
{
    gw_metrics_t *m = gw_calloc(1, sizeof(*m));
    m->shards = gw_calloc(shards, sizeof(*m->shards));
    m->n_shards = shards;
    for (size_t i = 0; i < shards; i++)
        pthread_mutex_init(&m->shards[i].lock, NULL);
    return m;
}

void
gw_metrics_free(gw_metrics_t *m)
{
    if (m == NULL)
        return;
    for (size_t i = 0; i < m->n_shards; i++) {
        table_free(&m->shards[i].t);
        table_free(&m->shards[i].deprecated);
        pthread_mutex_destroy(&m->shards[i].lock);
    }
    free(m->shards);
    free(m);
}

/* A series key: n label values joined by SEP (a SEP inside a value becomes '_'). */
static char *
join_key(const char *const *v, size_t n)
{
    size_t len = 0;
    for (size_t i = 0; i < n; i++)
        len += strlen(v[i]) + 1;
    char *key = gw_malloc(len), *p = key;
    for (size_t i = 0; i < n; i++) {
        for (const char *s = v[i]; *s != '\0'; s++)
            *p++ = *s == SEP ? '_' : *s;
        *p++ = i + 1 < n ? SEP : '\0';
    }
    return key;
}

static char *
make_key(const gw_metrics_labels_t *l)
{
    const char *v[N_LABELS] = {l->verb,     l->dry_run,     l->group, l->version,
                               l->resource, l->subresource, l->scope, l->component};
    return join_key(v, N_LABELS);
}

void
gw_metrics_observe(gw_metrics_t *m, size_t shard, const gw_metrics_labels_t *l, int code,
                   double seconds)
{
    char *key = make_key(l);
    size_t b = 0;
    while (b < N_BUCKETS && seconds > buckets[b])
        b++;
    shard_t *sh = &m->shards[shard];
    pthread_mutex_lock(&sh->lock);
    series_t *s = table_get(&sh->t, key);
    s->in_bucket[b]++;
    s->sum += seconds;
    s->count++;
    add_code(s, code, 1);
    pthread_mutex_unlock(&sh->lock);
    free(key);
}

void
gw_metrics_deprecated(gw_metrics_t *m, size_t shard, const gw_metrics_deprecated_t *d)
{
    const char *v[N_DEPRECATED_LABELS] = {d->group, d->removed_release, d->resource, d->subresource,
                                          d->version};
    char *key = join_key(v, N_DEPRECATED_LABELS);
    shard_t *sh = &m->shards[shard];
    pthread_mutex_lock(&sh->lock);
    table_get(&sh->deprecated, key);
    pthread_mutex_unlock(&sh->lock);
    free(key);
}

/* ---- rendering ---------------------------------------------------------------------------- */

static void
merge_into(table_t *all, const table_t *t)
{
    for (size_t i = 0; i < t->cap; i++) {
        const series_t *s = t->slots[i];
        if (s == NULL)
            continue;
        series_t *d = table_get(all, s->key);
        for (size_t b = 0; b <= N_BUCKETS; b++)
            d->in_bucket[b] += s->in_bucket[b];
        d->sum += s->sum;
        d->count += s->count;
        for (size_t c = 0; c < s->n_codes; c++)
            add_code(d, s->codes[c].code, s->codes[c].n);
    }
}

static int
by_key(const void *a, const void *b)
{
    return strcmp((*(series_t *const *)a)->key, (*(series_t *const *)b)->key);
}

static int
by_code(const void *a, const void *b)
{
    return ((const code_count_t *)a)->code - ((const code_count_t *)b)->code;
}

/* A label value as the text format wants it: backslash, quote and newline escaped. */
static void
print_escaped(FILE *out, const char *v)
{
    for (; *v != '\0'; v++) {
        if (*v == '\\' || *v == '"')
            fputc('\\', out);
        if (*v == '\n')
            fputs("\\n", out);
        else
            fputc(*v, out);
    }
}

/* The labels of a series as `name="value",...` in alphabetical order of the names, with the
 * extra label (code="200" sorts in; le="0.5" comes last, as Prometheus' Go client writes it). */
static void
print_labels(FILE *out, const series_t *s, const char *extra_name, const char *extra_value)
{
    static const char *const sorted[] = {"code",  "component",   "dry_run", "group",  "resource",
                                         "scope", "subresource", "verb",    "version"};
    const char *values[N_LABELS];
    char *copy = gw_strdup(s->key), *p = copy;
    for (size_t i = 0; i < N_LABELS; i++) {
        values[i] = p;
        p += strcspn(p, "\x1f");
        if (*p != '\0')
            *p++ = '\0';
    }
    bool extra_done = extra_name == NULL, first = true;
    for (size_t n = 0; n < sizeof(sorted) / sizeof(sorted[0]); n++) {
        const char *v = NULL;
        for (size_t i = 0; i < N_LABELS && v == NULL; i++)
            v = strcmp(label_names[i], sorted[n]) == 0 ? values[i] : NULL;
        if (v == NULL && !extra_done && strcmp(extra_name, sorted[n]) == 0) {
            v = extra_value;
            extra_done = true;
        }
        if (v == NULL)
            continue;
        fprintf(out, "%s%s=\"", first ? "" : ",", sorted[n]);
        print_escaped(out, v);
        fputc('"', out);
        first = false;
    }
    if (!extra_done) {
        fprintf(out, ",%s=\"", extra_name);
        print_escaped(out, extra_value);
        fputc('"', out);
    }
    free(copy);
}

static void
print_counter(FILE *out, series_t **all, size_t n)
{
    fputs("# HELP apiserver_request_total [STABLE] Requests served, by verb, dry run, group, "
          "version, "
          "resource, subresource, scope, component and HTTP status code.\n"
          "# TYPE apiserver_request_total counter\n",
          out);
    for (size_t i = 0; i < n; i++) {
        qsort(all[i]->codes, all[i]->n_codes, sizeof(code_count_t), by_code);
        for (size_t c = 0; c < all[i]->n_codes; c++) {
            char code[16];
            snprintf(code, sizeof(code), "%d", all[i]->codes[c].code);
            fputs("apiserver_request_total{", out);
            print_labels(out, all[i], "code", code);
            fprintf(out, "} %llu\n", (unsigned long long)all[i]->codes[c].n);
        }
    }
}

static void
print_histogram(FILE *out, series_t **all, size_t n)
{
    fputs(
        "# HELP apiserver_request_duration_seconds [STABLE] Time to answer requests in seconds, by "
        "verb, dry run, group, version, resource, subresource, scope and component.\n"
        "# TYPE apiserver_request_duration_seconds histogram\n",
        out);
    for (size_t i = 0; i < n; i++) {
        uint64_t cumulative = 0;
        for (size_t b = 0; b <= N_BUCKETS; b++) {
            char le[32];
            if (b < N_BUCKETS)
                snprintf(le, sizeof(le), "%g", buckets[b]);
            else
                snprintf(le, sizeof(le), "+Inf");
            cumulative += all[i]->in_bucket[b];
            fputs("apiserver_request_duration_seconds_bucket{", out);
            print_labels(out, all[i], "le", le);
            fprintf(out, "} %llu\n", (unsigned long long)cumulative);
        }
        fputs("apiserver_request_duration_seconds_sum{", out);
        print_labels(out, all[i], NULL, NULL);
        fprintf(out, "} %.9g\n", all[i]->sum);
        fputs("apiserver_request_duration_seconds_count{", out);
        print_labels(out, all[i], NULL, NULL);
        fprintf(out, "} %llu\n", (unsigned long long)all[i]->count);
    }
}

/* The gauge of deprecated APIs requested: 1 for each label set any worker recorded. Like
 * Prometheus' Go client, no HELP or TYPE lines while it has no series. */
static void
print_deprecated(FILE *out, gw_metrics_t *m)
{
    table_t merged = {0};
    for (size_t i = 0; i < m->n_shards; i++) {
        pthread_mutex_lock(&m->shards[i].lock);
        for (size_t k = 0; k < m->shards[i].deprecated.cap; k++) {
            if (m->shards[i].deprecated.slots[k] != NULL)
                table_get(&merged, m->shards[i].deprecated.slots[k]->key);
        }
        pthread_mutex_unlock(&m->shards[i].lock);
    }
    series_t **all = gw_calloc(merged.n + 1, sizeof(*all));
    size_t n = 0;
    for (size_t i = 0; i < merged.cap; i++) {
        if (merged.slots[i] != NULL)
            all[n++] = merged.slots[i];
    }
    qsort(all, n, sizeof(*all), by_key);
    if (n > 0)
        fputs("# HELP apiserver_requested_deprecated_apis [STABLE] Deprecated APIs requested since "
              "the "
              "start, by group, version, resource, subresource and removal release.\n"
              "# TYPE apiserver_requested_deprecated_apis gauge\n",
              out);
    for (size_t i = 0; i < n; i++) {
        const char *v = all[i]->key;
        fputs("apiserver_requested_deprecated_apis{", out);
        for (size_t l = 0; l < N_DEPRECATED_LABELS; l++) {
            size_t len = strcspn(v, "\x1f");
            char *value = gw_strndup(v, len);
            fprintf(out, "%s%s=\"", l > 0 ? "," : "", deprecated_labels[l]);
            print_escaped(out, value);
            fputc('"', out);
            free(value);
            v += len + (v[len] != '\0');
        }
        fputs("} 1\n", out);
    }
    free(all);
    table_free(&merged);
}

char *
gw_metrics_render(gw_metrics_t *m, int64_t inflight_readonly, int64_t inflight_mutating,
                  size_t *len)
{
    table_t merged = {0};
    for (size_t i = 0; i < m->n_shards; i++) {
        pthread_mutex_lock(&m->shards[i].lock);
        merge_into(&merged, &m->shards[i].t);
        pthread_mutex_unlock(&m->shards[i].lock);
    }
    series_t **all = gw_calloc(merged.n + 1, sizeof(*all));
    size_t n = 0;
    for (size_t i = 0; i < merged.cap; i++) {
        if (merged.slots[i] != NULL)
            all[n++] = merged.slots[i];
    }
    qsort(all, n, sizeof(*all), by_key);
    char *text = NULL;
    FILE *out = open_memstream(&text, len);
    if (out == NULL)
        abort();
    fprintf(out,
            "# HELP apiserver_current_inflight_requests [STABLE] Requests being served now, "
            "read-only and "
            "mutating.\n# TYPE apiserver_current_inflight_requests gauge\n"
            "apiserver_current_inflight_requests{request_kind=\"mutating\"} %lld\n"
            "apiserver_current_inflight_requests{request_kind=\"readOnly\"} %lld\n",
            (long long)inflight_mutating, (long long)inflight_readonly);
    print_histogram(out, all, n);
    print_counter(out, all, n);
    print_deprecated(out, m);
    if (fclose(out) != 0)
        abort();
    free(all);
    table_free(&merged);
    return text;
}

/* ---- the families kept in the process's registry ----------------------------------------- */

static const char *const route_labels[] = {"verb",        "group", "version",  "resource",
                                           "subresource", "scope", "component"};

static const gw_metric_desc_t longrunning_desc = {
    .name = "apiserver_longrunning_requests",
    .help = "Long-running requests (watches) open now, by verb, group, version, resource, "
            "subresource, scope and component.",
    .stability = "STABLE",
    .type = GW_METRIC_GAUGE,
    .labels = route_labels,
    .n_labels = 7,
};

/* kube's ExponentialBuckets(1000, 10, 7) */
static const double size_buckets[] = {1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9};

static const gw_metric_desc_t sizes_desc = {
    .name = "apiserver_response_sizes",
    .help = "Sizes of answers in bytes, by verb, group, version, resource, subresource, scope "
            "and component.",
    .stability = "STABLE",
    .type = GW_METRIC_HISTOGRAM,
    .labels = route_labels,
    .n_labels = 7,
    .buckets = size_buckets,
    .n_buckets = sizeof(size_buckets) / sizeof(size_buckets[0]),
};

static void
route_values(const gw_metrics_labels_t *l, const char *v[7])
{
    v[0] = l->verb;
    v[1] = l->group;
    v[2] = l->version;
    v[3] = l->resource;
    v[4] = l->subresource;
    v[5] = l->scope;
    v[6] = l->component;
}

void
gw_metrics_longrunning(const gw_metrics_labels_t *l, int delta)
{
    static gw_metric_t *_Atomic family;
    const char *v[7];
    route_values(l, v);
    gw_metric_add(gw_metric_cached(&family, &longrunning_desc), v, delta);
}

void
gw_metrics_response_size(const gw_metrics_labels_t *l, size_t bytes)
{
    static gw_metric_t *_Atomic family;
    const char *v[7];
    if (strcmp(l->verb, "GET") != 0 && strcmp(l->verb, "LIST") != 0)
        return;
    route_values(l, v);
    gw_metric_observe(gw_metric_cached(&family, &sizes_desc), v, (double)bytes);
}
