/* Feature gates: kube 1.32's known gates, its Set errors word for word, locked and GA gates,
 * Go's booleans, AllAlpha/AllBeta, and kubernetes_feature_enabled on /metrics. */
#include "gw_features.h"

#include <stdlib.h>
#include <string.h>

#include "gw_buf.h"
#include "gw_metric.h"
#include "tap.h"

static int
set1(const char *item, char *err, size_t len)
{
    const char *items[] = {item};
    return gw_features_set(items, 1, err, len);
}

static void
test_check(void)
{
    tap_ok(gw_features_check("AllowUnsafeMalformedObjectDeletion=true") == NULL, "known gate");
    tap_ok(gw_features_check(" WatchList = false ") == NULL, "spaces around name and value");
    tap_is_str(gw_features_check("NoSuchGate=true"), "unrecognized feature gate: NoSuchGate",
               "unknown gate");
    tap_is_str(gw_features_check("WatchList=yes"),
               "invalid value of WatchList=yes, err: strconv.ParseBool: parsing \"yes\": invalid "
               "syntax",
               "bad value");
    tap_is_str(gw_features_check("WatchList"), "missing bool value for WatchList", "no value");
    tap_is_str(gw_features_check("ComponentSLIs=false"),
               "cannot set feature gate ComponentSLIs to false, feature is locked to true",
               "locked GA gate to the other value");
    tap_is_str(gw_features_check("AllowServiceLBStatusOnNonLB=true"),
               "cannot set feature gate AllowServiceLBStatusOnNonLB to true, feature is locked "
               "to false",
               "locked deprecated gate");
    tap_ok(gw_features_check("ComponentSLIs=true") == NULL, "locked gate to its default");
    const char *go[] = {"1", "t", "T", "TRUE", "True", "0", "f", "F", "FALSE", "False"};
    int ok = 1;
    char item[64];
    for (size_t i = 0; i < sizeof(go) / sizeof(go[0]); i++) {
        snprintf(item, sizeof(item), "WatchList=%s", go[i]);
        ok &= gw_features_check(item) == NULL;
    }
    tap_ok(ok, "every strconv.ParseBool spelling");
    tap_ok(gw_features_check("WatchList=tRuE") != NULL, "mixed case is not Go's");
}

static void
test_defaults_and_set(void)
{
    char err[256];
    gw_features_reset();
    tap_ok(!gw_feature_enabled("AllowUnsafeMalformedObjectDeletion"), "alpha off by default");
    tap_ok(gw_feature_enabled("APIResponseCompression"), "beta on by default");
    tap_ok(!gw_feature_enabled("MutatingAdmissionPolicy"), "MutatingAdmissionPolicy alpha off");
    tap_ok(!gw_feature_enabled("Nope"), "unknown name is off");
    const char *items[] = {"APIResponseCompression=false", "CBORServingAndStorage=true",
                           "APIResponseCompression=true", "KMSv1=true"};
    tap_is_int(gw_features_set(items, 4, err, sizeof(err)), 0, "set");
    tap_ok(gw_feature_enabled("APIResponseCompression") &&
               gw_feature_enabled("CBORServingAndStorage") && gw_feature_enabled("KMSv1"),
           "the last mention wins; deprecated gate set");
    tap_is_int(set1("Bogus=true", err, sizeof(err)), -1, "unknown refused");
    tap_is_str(err, "unrecognized feature gate: Bogus", "with kube's words");
}

static void
test_all_alpha_beta(void)
{
    char err[256];
    gw_features_reset();
    const char *items[] = {"AllAlpha=true", "CBORServingAndStorage=false"};
    tap_is_int(gw_features_set(items, 2, err, sizeof(err)), 0, "AllAlpha accepted");
    tap_ok(gw_feature_enabled("AllowUnsafeMalformedObjectDeletion"), "AllAlpha turns alpha on");
    tap_ok(!gw_feature_enabled("CBORServingAndStorage"), "a gate named itself keeps its value");
    tap_ok(!gw_feature_enabled("OrderedNamespaceDeletion"), "beta off-by-default untouched");
    gw_features_reset();
    tap_is_int(set1("AllBeta=true", err, sizeof(err)), 0, "AllBeta accepted");
    tap_ok(gw_feature_enabled("OrderedNamespaceDeletion"), "AllBeta turns beta on");
    tap_ok(!gw_feature_enabled("MutatingAdmissionPolicy"), "alpha untouched by AllBeta");
    gw_features_reset();
}

static void
test_metric(void)
{
    char err[256];
    gw_features_reset();
    tap_is_int(set1("AllowUnsafeMalformedObjectDeletion=true", err, sizeof(err)), 0, "set");
    gw_features_publish();
    gw_buf_t b = {0};
    gw_metric_render(&b);
    const char *text = gw_buf_cstr(&b);
    tap_ok(strstr(text, "# TYPE kubernetes_feature_enabled gauge") != NULL, "family present");
    tap_ok(strstr(text, "kubernetes_feature_enabled{name=\"AllowUnsafeMalformedObjectDeletion\","
                        "stage=\"ALPHA\"} 1\n") != NULL,
           "alpha gate set on");
    tap_ok(strstr(text, "kubernetes_feature_enabled{name=\"ComponentSLIs\",stage=\"\"} 1\n") !=
               NULL,
           "GA stage printed empty");
    tap_ok(strstr(text, "kubernetes_feature_enabled{name=\"KMSv1\",stage=\"DEPRECATED\"} 0\n") !=
               NULL,
           "deprecated gate off");
    gw_buf_free(&b);
    gw_metric_reset();
    gw_features_reset();
}

int
main(void)
{
    test_check();
    test_defaults_and_set();
    test_all_alpha_beta();
    test_metric();
    return tap_done();
}
