#ifndef GATEWAY_BASE_GW_METRIC_H
#define GATEWAY_BASE_GW_METRIC_H

/*
 * The process's metric families, as kube's component-base registers them and /metrics prints
 * them in the Prometheus text format (version 0.0.4): counters, gauges and histograms with
 * labels, a stability level shown in the help text, and kube's deprecation rule: a family
 * deprecated in release X is marked "(Deprecated since X)" in X and hidden from X+1 on,
 * unless --show-hidden-metrics-for-version names the previous release.
 *
 * One registry per process, as kube's legacyregistry: every layer records into families it
 * declares where it works (storage, admission, authentication...), and the API layer prints
 * them all. Counters and histograms are striped: a thread records into its own stripe under
 * that stripe's lock, so workers do not share a lock per request; a scrape sums the stripes.
 * Gauges have one lock (a gauge is set, and a set cannot be split).
 */

#include <stdbool.h>
#include <stddef.h>

#include "gw_buf.h"

typedef enum { GW_METRIC_COUNTER, GW_METRIC_GAUGE, GW_METRIC_HISTOGRAM } gw_metric_type_t;

/** What a family is: static data, borrowed for the process's life. */
typedef struct {
    const char *name;
    const char *help;
    const char *stability; /* "ALPHA", "BETA" or "STABLE"; NULL: none (the process_* family) */
    gw_metric_type_t type;
    const char *const *labels; /* label names in the order values are given */
    size_t n_labels;
    const double *buckets; /* histograms: ascending upper bounds, without +Inf */
    size_t n_buckets;
    const char *deprecated; /* "<major>.<minor>" it was deprecated in, or NULL */
} gw_metric_desc_t;

typedef struct gw_metric gw_metric_t;

/**
 * The family `d` describes, registered on first use (a second call with the same name returns
 * the same family). Thread: any; families live until gw_metric_reset.
 */
gw_metric_t *gw_metric_family(const gw_metric_desc_t *d);

/** A call site's family: *cache (zero at first) keeps what gw_metric_family gave, so a hot
 *  path looks its family up once. Thread: any. */
gw_metric_t *gw_metric_cached(gw_metric_t *_Atomic *cache, const gw_metric_desc_t *d);

/** Add v to a counter or gauge series (values: one per label, borrowed). Thread: any. */
void gw_metric_add(gw_metric_t *m, const char *const *values, double v);

/** Set a gauge series to v (or a counter read whole from elsewhere, such as CPU time: then
 *  only set, never add). Thread: any. */
void gw_metric_set(gw_metric_t *m, const char *const *values, double v);

/** Remove a gauge series (a resource that is gone). Thread: any. */
void gw_metric_delete(gw_metric_t *m, const char *const *values);

/** Record one observation v into a histogram series. Thread: any. */
void gw_metric_observe(gw_metric_t *m, const char *const *values, double v);

/** A function a scrape calls before printing, to set gauges read on demand (process figures,
 *  object counts). Thread: the scraping thread. */
typedef void (*gw_metric_refresh_fn)(void *arg);

/** Call fn(arg) at every scrape until gw_metric_off_scrape(fn, arg). Thread: any. */
void gw_metric_on_scrape(gw_metric_refresh_fn fn, void *arg);

/** Stop calling fn(arg); returns once no scrape is calling it. Thread: any. */
void gw_metric_off_scrape(gw_metric_refresh_fn fn, void *arg);

/**
 * Which release this binary is (for the deprecation rule) and whether hidden families are
 * shown (--show-hidden-metrics-for-version was given its one valid value). Thread: main,
 * before serving.
 */
void gw_metric_configure(int major, int minor, bool show_hidden);

/**
 * Check a --show-hidden-metrics-for-version value against release major.minor: "" or the
 * previous minor release is valid. Returns true, or false with kube's message in err.
 * Thread: any.
 */
bool gw_metric_check_show_hidden(const char *v, int major, int minor, char *err, size_t len);

/** Append every family with at least one series, sorted by name, to b. Thread: any. */
void gw_metric_render(gw_buf_t *b);

/** Register the process_* families (CPU time, memory, file descriptors, start time) as the
 *  Prometheus client's process collector reports them, read from /proc at each scrape.
 *  Thread: main, once. */
void gw_metric_process_register(void);

/** The configuration files kube-apiserver reloads on its own, whose reloads it counts in
 *  apiserver_<config>_config_controller_automatic_reload* families. */
typedef enum {
    GW_RELOAD_AUTHENTICATION,
    GW_RELOAD_AUTHORIZATION,
    GW_RELOAD_ENCRYPTION,
} gw_reload_config_t;

/** Count one automatic reload of that configuration, accepted (ok) or refused, as of now.
 *  Thread: any. */
void gw_metric_reload(gw_reload_config_t config, bool ok);

/** Drop every family and series (tests, and exit under a leak checker). Thread: main, with no
 *  other thread recording. */
void gw_metric_reset(void);

#endif
