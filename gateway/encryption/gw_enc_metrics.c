/* kube's value transformation metrics (k8s.io/apiserver pkg/storage/value/metrics.go), counted
 * where its prefix transformers count them: each provider (and each key of an AES or secretbox
 * provider) that a read tries, and the provider that writes. */
#include "gw_enc_int.h"

#include <stdio.h>
#include <string.h>

#include "gw_clock.h"
#include "gw_metric.h"

/* 5 µs up to about 84 s: kube's ExponentialBuckets(5e-6, 2, 25). */
static const double buckets[] = {
    5e-06,   1e-05,   2e-05,   4e-05,    8e-05,    0.00016,  0.00032,  0.00064, 0.00128,
    0.00256, 0.00512, 0.01024, 0.02048,  0.04096,  0.08192,  0.16384,  0.32768, 0.65536,
    1.31072, 2.62144, 5.24288, 10.48576, 20.97152, 41.94304, 83.88608,
};
static const char *const total_labels[] = {"transformation_type", "transformer_prefix", "status"};
static const char *const latency_labels[] = {"transformation_type", "transformer_prefix"};
static const gw_metric_desc_t total_desc = {
    .name = "apiserver_storage_transformation_operations_total",
    .help = "Values transformed, by transformation type (from_storage: decryption, to_storage: "
            "encryption), the provider prefix and status (OK, or the failure).",
    .stability = "ALPHA",
    .type = GW_METRIC_COUNTER,
    .labels = total_labels,
    .n_labels = 3,
};
static const gw_metric_desc_t latency_desc = {
    .name = "apiserver_storage_transformation_duration_seconds",
    .help = "Time to transform a value in seconds, by transformation type and provider prefix.",
    .stability = "ALPHA",
    .type = GW_METRIC_HISTOGRAM,
    .labels = latency_labels,
    .n_labels = 2,
    .buckets = buckets,
    .n_buckets = sizeof(buckets) / sizeof(buckets[0]),
};

/* kube's status label: "OK", the gRPC code a KMS error carries, else "Unknown". */
static void
status_of(const char *err, char *out, size_t len)
{
    const char *code = err != NULL ? strstr(err, "rpc error: code = ") : NULL;

    if (err == NULL) {
        snprintf(out, len, "OK");
    } else if (code != NULL) {
        code += strlen("rpc error: code = ");
        snprintf(out, len, "%.*s", (int)strcspn(code, " "), code);
    } else {
        snprintf(out, len, "Unknown");
    }
}

void
gw_enc__record(const char *type, const char *prefix, int64_t start_ns, const char *err)
{
    static gw_metric_t *_Atomic total, *_Atomic latency;
    char status[32];

    status_of(err, status, sizeof(status));
    const char *values[] = {type, prefix, status};
    gw_metric_add(gw_metric_cached(&total, &total_desc), values, 1);
    if (err == NULL)
        gw_metric_observe(gw_metric_cached(&latency, &latency_desc), values,
                          (double)(gw_monotonic_ns() - start_ns) / 1e9);
}
