/* Unit tests for gateway/base/gw_metric: families, stripes, histograms, the deprecation rule,
 * the text format. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "gw_buf.h"
#include "gw_metric.h"
#include "tap.h"

static const char *const verb_code[] = {"verb", "code"};

static const gw_metric_desc_t requests = {
    .name = "test_requests_total",
    .help = "Requests.",
    .stability = "STABLE",
    .type = GW_METRIC_COUNTER,
    .labels = verb_code,
    .n_labels = 2,
};

static const double buckets[] = {0.1, 1, 1e+06};
static const char *const one_label[] = {"resource"};

static const gw_metric_desc_t latency = {
    .name = "test_latency_seconds",
    .help = "Latency.",
    .stability = "ALPHA",
    .type = GW_METRIC_HISTOGRAM,
    .labels = one_label,
    .n_labels = 1,
    .buckets = buckets,
    .n_buckets = 3,
};

static char *
render(void)
{
    gw_buf_t b = {0};
    gw_metric_render(&b);
    return gw_buf_take(&b);
}

static void *
count_many(void *arg)
{
    gw_metric_t *m = arg;
    const char *v[] = {"GET", "200"};
    for (int i = 0; i < 10000; i++)
        gw_metric_add(m, v, 1);
    return NULL;
}

static void
test_counter(void)
{
    gw_metric_t *m = gw_metric_family(&requests);
    tap_ok(gw_metric_family(&requests) == m, "a family registered twice is the same family");
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, count_many, m);
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    const char *v[] = {"LIST", "a\"b\\c\nd"};
    gw_metric_add(m, v, 2.5);
    char *text = render();
    tap_ok(strstr(text, "# HELP test_requests_total [STABLE] Requests.\n"
                        "# TYPE test_requests_total counter\n") != NULL,
           "help carries the stability level, then the type");
    tap_ok(strstr(text, "test_requests_total{code=\"200\",verb=\"GET\"} 40000\n") != NULL,
           "four threads' stripes are summed; labels print in alphabetical order");
    tap_ok(strstr(text, "test_requests_total{code=\"a\\\"b\\\\c\\nd\",verb=\"LIST\"} 2.5\n") !=
               NULL,
           "quotes, backslashes and newlines in values are escaped; fractions print short");
    const char *big[] = {"WATCH", "200"};
    gw_metric_add(m, big, 1234567);
    gw_metric_add(m, (const char *[]){"WATCH", "500"}, 0.0001);
    gw_metric_add(m, (const char *[]){"WATCH", "504"}, 0.00001234);
    free(text);
    text = render();
    tap_ok(strstr(text, "{code=\"200\",verb=\"WATCH\"} 1.234567e+06\n") != NULL &&
               strstr(text, "{code=\"500\",verb=\"WATCH\"} 0.0001\n") != NULL &&
               strstr(text, "{code=\"504\",verb=\"WATCH\"} 1.234e-05\n") != NULL,
           "values print as Go's shortest 'g' form: exponents from 1e+06 and below 1e-04");
    tap_ok(strstr(text, "{code=\"200\"") < strstr(text, "{code=\"a"), "series are sorted");
    free(text);
}

static void
test_histogram(void)
{
    gw_metric_t *m = gw_metric_family(&latency);
    const char *v[] = {"pods"};
    gw_metric_observe(m, v, 0.05);
    gw_metric_observe(m, v, 0.1);
    gw_metric_observe(m, v, 3);
    gw_metric_observe(m, v, 5e6);
    char *text = render();
    tap_ok(strstr(text, "test_latency_seconds_bucket{resource=\"pods\",le=\"0.1\"} 2\n"
                        "test_latency_seconds_bucket{resource=\"pods\",le=\"1\"} 2\n"
                        "test_latency_seconds_bucket{resource=\"pods\",le=\"1e+06\"} 3\n"
                        "test_latency_seconds_bucket{resource=\"pods\",le=\"+Inf\"} 4\n"
                        "test_latency_seconds_sum{resource=\"pods\"} 5.00000315e+06\n"
                        "test_latency_seconds_count{resource=\"pods\"} 4\n") != NULL,
           "buckets are cumulative, an upper bound is inclusive, le comes last");
    tap_ok(strstr(text, "test_latency_seconds") < strstr(text, "test_requests_total"),
           "families are sorted by name");
    free(text);
}

static int refreshes;

static void
refresh(void *arg)
{
    static const char *const no_labels[1];
    refreshes++;
    gw_metric_set(arg, no_labels, 42);
}

static void
test_gauge_and_refresh(void)
{
    static const gw_metric_desc_t d = {
        .name = "test_open_fds", .help = "Open.", .stability = "ALPHA", .type = GW_METRIC_GAUGE};
    gw_metric_t *m = gw_metric_family(&d);
    char *text = render();
    tap_ok(strstr(text, "test_open_fds") == NULL, "a family without series prints nothing");
    free(text);
    gw_metric_on_scrape(refresh, m);
    text = render();
    tap_ok(refreshes == 1 && strstr(text, "# TYPE test_open_fds gauge\ntest_open_fds 42\n"),
           "a refresher sets its gauge at the scrape");
    free(text);
    gw_metric_off_scrape(refresh, m);
    free(render());
    tap_is_int(refreshes, 1, "a refresher taken off is not called again");

    gw_metric_t *g = gw_metric_family(&(gw_metric_desc_t){.name = "test_objects",
                                                          .help = "Objects.",
                                                          .stability = "STABLE",
                                                          .type = GW_METRIC_GAUGE,
                                                          .labels = one_label,
                                                          .n_labels = 1});
    const char *a[] = {"pods"}, *b[] = {"secrets"};
    gw_metric_set(g, a, 3);
    gw_metric_set(g, a, 5);
    gw_metric_add(g, b, 1);
    gw_metric_add(g, b, -1);
    gw_metric_delete(g, a);
    text = render();
    tap_ok(strstr(text, "test_objects{resource=\"pods\"}") == NULL &&
               strstr(text, "test_objects{resource=\"secrets\"} 0\n") != NULL,
           "a deleted gauge series is gone; add goes up and down");
    free(text);
}

static void
test_deprecation(void)
{
    static const char *const none[1];
    gw_metric_t *old = gw_metric_family(&(gw_metric_desc_t){.name = "test_old_bytes",
                                                            .help = "Old.",
                                                            .stability = "ALPHA",
                                                            .type = GW_METRIC_GAUGE,
                                                            .deprecated = "1.28"});
    gw_metric_t *now = gw_metric_family(&(gw_metric_desc_t){.name = "test_new_bytes",
                                                            .help = "New.",
                                                            .stability = "ALPHA",
                                                            .type = GW_METRIC_GAUGE,
                                                            .deprecated = "1.32"});
    gw_metric_set(old, none, 1);
    gw_metric_set(now, none, 2);
    gw_metric_configure(1, 32, false);
    char *text = render();
    tap_ok(strstr(text, "test_old_bytes") == NULL, "deprecated in 1.28: hidden in 1.32");
    tap_ok(strstr(text, "# HELP test_new_bytes [ALPHA] (Deprecated since 1.32.0) New.\n") != NULL,
           "deprecated in this release: shown, and marked");
    free(text);
    gw_metric_configure(1, 32, true);
    text = render();
    tap_ok(strstr(text, "# HELP test_old_bytes [ALPHA] (Deprecated since 1.28.0) Old.\n") != NULL,
           "shown again when hidden metrics are asked for");
    free(text);
    gw_metric_configure(1, 32, false);

    char err[200];
    tap_ok(gw_metric_check_show_hidden("", 1, 32, err, sizeof(err)) &&
               gw_metric_check_show_hidden("1.31", 1, 32, err, sizeof(err)),
           "omitted or the previous minor release is accepted");
    tap_ok(!gw_metric_check_show_hidden("1.30", 1, 32, err, sizeof(err)), "1.30 is refused");
    tap_is_str(err,
               "--show-hidden-metrics-for-version must be omitted or have the value '1.31'. "
               "Only the previous minor version is allowed",
               "in kube's words");
    tap_ok(!gw_metric_check_show_hidden("1.31x", 1, 32, err, sizeof(err)), "so is garbage");
}

int
main(void)
{
    test_counter();
    test_histogram();
    test_gauge_and_refresh();
    test_deprecation();
    gw_metric_reset();
    return tap_done();
}
