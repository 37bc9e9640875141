/* Metrics: shards merge on a scrape, series and codes count, the histogram is cumulative with
 * kube's buckets, and the text format is what Prometheus parses. */
#include "gw_metrics.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"

static const gw_metrics_labels_t pods_list = {.verb = "LIST",
                                              .dry_run = "",
                                              .group = "",
                                              .version = "v1",
                                              .resource = "pods",
                                              .subresource = "",
                                              .scope = "namespace",
                                              .component = "apiserver"};
static const gw_metrics_labels_t deploy_get = {.verb = "GET",
                                               .dry_run = "",
                                               .group = "apps",
                                               .version = "v1",
                                               .resource = "deployments",
                                               .subresource = "",
                                               .scope = "resource",
                                               .component = "apiserver"};
static const gw_metrics_labels_t odd = {.verb = "GET",
                                        .dry_run = "",
                                        .group = "",
                                        .version = "",
                                        .resource = "",
                                        .subresource = "/a\"b\\c\nd\x1f",
                                        .scope = "",
                                        .component = ""};

static bool
has_line(const char *text, const char *line)
{
    size_t len = strlen(line);
    for (const char *p = text; (p = strstr(p, line)) != NULL; p++) {
        if ((p == text || p[-1] == '\n') && p[len] == '\n')
            return true;
    }
    return false;
}

#define LIST_LABELS                                                                                \
    "component=\"apiserver\",dry_run=\"\",group=\"\",resource=\"pods\",scope=\"namespace\","       \
    "subresource=\"\",verb=\"LIST\",version=\"v1\""

int
main(void)
{
    gw_metrics_t *m = gw_metrics_new(3);
    gw_metrics_observe(m, 0, &pods_list, 200, 0.001);
    gw_metrics_observe(m, 1, &pods_list, 200, 0.3);
    gw_metrics_observe(m, 2, &pods_list, 403, 100);
    gw_metrics_observe(m, 2, &deploy_get, 404, 0.005);
    gw_metrics_observe(m, 1, &odd, 200, 0.01);
    size_t len = 0;
    char *text = gw_metrics_render(m, 7, 2, &len);
    tap_ok(text != NULL && strlen(text) == len, "rendered text has the length given");
    tap_ok(has_line(text, "# TYPE apiserver_request_total counter"), "counter TYPE line");
    tap_ok(has_line(text, "# TYPE apiserver_request_duration_seconds histogram"),
           "histogram TYPE line");
    tap_ok(has_line(text, "apiserver_request_total{code=\"200\"," LIST_LABELS "} 2"),
           "shards merge: two 200s for the pod list");
    tap_ok(has_line(text, "apiserver_request_total{code=\"403\"," LIST_LABELS "} 1"),
           "each code is its own series");
    tap_ok(has_line(text, "apiserver_request_total{code=\"404\",component=\"apiserver\",dry_run="
                          "\"\",group=\"apps\",resource=\"deployments\",scope=\"resource\","
                          "subresource=\"\",verb=\"GET\",version=\"v1\"} 1"),
           "another series");
    tap_ok(
        has_line(text, "apiserver_request_duration_seconds_bucket{" LIST_LABELS ",le=\"0.005\"} 1"),
        "1 ms lands in the first bucket");
    tap_ok(
        has_line(text, "apiserver_request_duration_seconds_bucket{" LIST_LABELS ",le=\"0.4\"} 2"),
        "buckets are cumulative (0.3 s by 0.4)");
    tap_ok(has_line(text, "apiserver_request_duration_seconds_bucket{" LIST_LABELS ",le=\"60\"} 2"),
           "100 s is above the last bucket");
    tap_ok(
        has_line(text, "apiserver_request_duration_seconds_bucket{" LIST_LABELS ",le=\"+Inf\"} 3"),
        "+Inf holds every observation");
    tap_ok(has_line(text, "apiserver_request_duration_seconds_count{" LIST_LABELS "} 3"), "count");
    tap_ok(has_line(text, "apiserver_request_duration_seconds_sum{" LIST_LABELS "} 100.301"),
           "sum");
    tap_ok(has_line(text, "apiserver_request_duration_seconds_bucket{component=\"apiserver\","
                          "dry_run=\"\",group=\"apps\",resource=\"deployments\",scope="
                          "\"resource\",subresource=\"\",verb=\"GET\",version=\"v1\",le="
                          "\"0.005\"} 1"),
           "a value on a bucket's bound counts in that bucket");
    tap_ok(has_line(text, "apiserver_current_inflight_requests{request_kind=\"readOnly\"} 7") &&
               has_line(text, "apiserver_current_inflight_requests{request_kind=\"mutating\"} 2"),
           "in-flight gauges");
    tap_ok(strstr(text, "subresource=\"/a\\\"b\\\\c\\nd_\"") != NULL,
           "label values are escaped (quote, backslash, newline; the key separator replaced)");
    const char *p = strstr(text, "apiserver_request_total{");
    const char *q = p != NULL ? strstr(p, "group=\"apps\"") : NULL;
    const char *s = p != NULL ? strstr(p, "resource=\"pods\"") : NULL;
    tap_ok(q != NULL && s != NULL && q < s, "series are sorted");
    tap_ok(strstr(text, "apiserver_requested_deprecated_apis") == NULL,
           "no deprecated API requested: the gauge is not shown at all");
    free(text);

    static const gw_metrics_deprecated_t vap = {.group = "admissionregistration.k8s.io",
                                                .version = "v1beta1",
                                                .resource = "validatingadmissionpolicies",
                                                .subresource = "",
                                                .removed_release = "1.34"};
    static const gw_metrics_deprecated_t cs = {.group = "",
                                               .version = "v1",
                                               .resource = "componentstatuses",
                                               .subresource = "",
                                               .removed_release = ""};
    gw_metrics_deprecated(m, 0, &vap);
    gw_metrics_deprecated(m, 2, &vap);
    gw_metrics_deprecated(m, 1, &cs);
    text = gw_metrics_render(m, 0, 0, &len);
    tap_ok(has_line(text, "# TYPE apiserver_requested_deprecated_apis gauge"), "gauge TYPE line");
    tap_ok(has_line(text,
                    "apiserver_requested_deprecated_apis{group=\"admissionregistration.k8s.io\","
                    "removed_release=\"1.34\",resource=\"validatingadmissionpolicies\","
                    "subresource=\"\",version=\"v1beta1\"} 1"),
           "a deprecated API requested on two workers: one series at 1, labels sorted");
    tap_ok(has_line(text, "apiserver_requested_deprecated_apis{group=\"\",removed_release=\"\","
                          "resource=\"componentstatuses\",subresource=\"\",version=\"v1\"} 1"),
           "no removal release: an empty label");
    p = strstr(text, "apiserver_requested_deprecated_apis{group=\"\"");
    q = strstr(text, "apiserver_requested_deprecated_apis{group=\"admission");
    tap_ok(p != NULL && q != NULL && p < q, "its series are sorted");
    tap_ok(strstr(text, "apiserver_request_total{") < strstr(text, "# HELP apiserver_requested"),
           "it comes after apiserver_request_total, as families sort");
    free(text);
    gw_metrics_free(m);
    gw_metrics_free(NULL);
    return tap_done();
}
