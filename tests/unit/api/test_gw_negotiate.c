/* Negotiation tables: Accept against each kind of endpoint, request Content-Types,
 * Accept-Encoding and pretty printing, as kube-apiserver decides them. */
#include "gw_negotiate.h"

#include <string.h>

#include "tap.h"

#define KUBECTL_GET                                                                                \
    "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta."     \
    "k8s.io,application/json"
#define KUBECTL_DISCOVERY                                                                          \
    "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/"            \
    "json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json"

typedef struct {
    const char *accept;
    gw_neg_endpoint_t ep;
    const char *want; /* "json", "yaml", "protobuf", "table/<v>", "agg/<v>", "406"; "+pretty"
                         or "+partial/<v>" or "+partiallist/<v>" appended */
} accept_row_t;

static const accept_row_t accept_rows[] = {
    {NULL, GW_NEG_RESOURCE, "json"},
    {"", GW_NEG_PLAIN, "json"},
    {"*/*", GW_NEG_RESOURCE, "json"},
    {"*", GW_NEG_RESOURCE, "json"},
    {"application/*", GW_NEG_RESOURCE, "json"},
    {"application/json", GW_NEG_RESOURCE, "json"},
    {"application/yaml", GW_NEG_RESOURCE, "yaml"},
    {"Application/YAML", GW_NEG_RESOURCE, "yaml"},
    {"application/json, application/yaml", GW_NEG_RESOURCE, "json"},
    {"application/yaml, application/json", GW_NEG_RESOURCE, "yaml"},
    {"application/yaml;q=0.5, application/json", GW_NEG_RESOURCE, "json"},
    {"application/json;q=0.1, application/yaml;q=0.9", GW_NEG_RESOURCE, "yaml"},
    {"*/*, application/yaml", GW_NEG_RESOURCE, "yaml"},
    {"application/*, application/yaml", GW_NEG_RESOURCE, "yaml"},
    {"application/yaml;q=0", GW_NEG_RESOURCE, "yaml"},
    /* protobuf: resource endpoints of kinds with a protobuf form only */
    {"application/vnd.kubernetes.protobuf", GW_NEG_RESOURCE, "protobuf"},
    {"application/vnd.kubernetes.protobuf, application/json", GW_NEG_RESOURCE, "protobuf"},
    {"application/vnd.kubernetes.protobuf", GW_NEG_RESOURCE_NO_PROTOBUF, "406"},
    {"application/vnd.kubernetes.protobuf, application/json", GW_NEG_RESOURCE_NO_PROTOBUF, "json"},
    {"application/vnd.kubernetes.protobuf", GW_NEG_PLAIN, "406"},
    {"application/vnd.kubernetes.protobuf;stream=watch", GW_NEG_RESOURCE, "protobuf"},
    {"application/vnd.kubernetes.protobuf;pretty=1", GW_NEG_RESOURCE, "protobuf+pretty"},
    {"application/json;q=0.5, application/vnd.kubernetes.protobuf", GW_NEG_RESOURCE, "protobuf"},
    {"application/*, application/vnd.kubernetes.protobuf", GW_NEG_RESOURCE, "protobuf"},
    {"application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io, application/yaml",
     GW_NEG_RESOURCE, "yaml"},
    {"text/html", GW_NEG_RESOURCE, "406"},
    {"text/*", GW_NEG_PLAIN, "406"},
    {"text/html, */*;q=0.8", GW_NEG_PLAIN, "json"},
    {"garbage", GW_NEG_RESOURCE, "406"},
    {"a/b/c, application/yaml", GW_NEG_RESOURCE, "yaml"},
    {",,, application/json", GW_NEG_RESOURCE, "json"},
    {"application/json;pretty=1", GW_NEG_RESOURCE, "json+pretty"},
    {"application/json; charset=utf-8", GW_NEG_RESOURCE, "json"},
    /* Tables */
    {KUBECTL_GET, GW_NEG_RESOURCE, "table/v1"},
    {"application/json;as=Table;v=v1beta1;g=meta.k8s.io", GW_NEG_RESOURCE, "table/v1beta1"},
    {"application/json;as=Table;v=v1;g=meta.k8s.io", GW_NEG_PLAIN, "406"},
    {KUBECTL_GET, GW_NEG_PLAIN, "json"},
    {"application/json;as=Table;v=v2;g=meta.k8s.io, application/yaml", GW_NEG_RESOURCE, "yaml"},
    {"application/json;as=table;v=v1;g=meta.k8s.io", GW_NEG_RESOURCE, "406"},
    {"application/json;as=Table;v=v1", GW_NEG_RESOURCE, "406"},
    {"application/json;v=v1", GW_NEG_RESOURCE, "406"},
    {"application/yaml;as=Table;v=v1;g=meta.k8s.io", GW_NEG_RESOURCE, "406"},
    {"*/*;as=Table;v=v1;g=meta.k8s.io", GW_NEG_RESOURCE, "table/v1"},
    /* PartialObjectMetadata, in any type (kube's AllowsMediaTypeTransform) */
    {"application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io, application/json",
     GW_NEG_RESOURCE, "json+partiallist/v1"},
    {"application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,"
     "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json",
     GW_NEG_RESOURCE, "protobuf+partial/v1"},
    {"application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,"
     "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json",
     GW_NEG_RESOURCE_NO_PROTOBUF, "json+partial/v1"},
    {"application/yaml;as=PartialObjectMetadata;g=meta.k8s.io;v=v1beta1", GW_NEG_RESOURCE,
     "yaml+partial/v1beta1"},
    {"application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v2", GW_NEG_RESOURCE, "406"},
    {"application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1", GW_NEG_PLAIN, "406"},
    {"application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io", GW_NEG_RESOURCE, "406"},
    {"application/json ; as=Table ; v=v1 ; g=meta.k8s.io", GW_NEG_RESOURCE, "table/v1"},
    /* discovery */
    {KUBECTL_DISCOVERY, GW_NEG_DISCOVERY, "agg/v2"},
    {"application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList", GW_NEG_DISCOVERY,
     "agg/v2beta1"},
    {"application/json, application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList",
     GW_NEG_DISCOVERY, "agg/v2"},
    {"application/json;g=apidiscovery.k8s.io;v=v3;as=APIGroupDiscoveryList, application/yaml",
     GW_NEG_DISCOVERY, "yaml"},
    {"application/json", GW_NEG_DISCOVERY, "json"},
    {NULL, GW_NEG_DISCOVERY, "json"},
    {KUBECTL_DISCOVERY, GW_NEG_RESOURCE, "json"},
    {"application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList", GW_NEG_PLAIN, "406"},
};

static void
check_accept(const accept_row_t *w)
{
    gw_negotiated_t n;
    char got[64];
    if (!gw_negotiate_accept(w->accept, w->ep, &n)) {
        snprintf(got, sizeof(got), "406");
    } else if (n.media == GW_MEDIA_TABLE) {
        snprintf(got, sizeof(got), "table/%s", n.version);
    } else if (n.aggregated) {
        snprintf(got, sizeof(got), "agg/%s", n.version);
    } else {
        snprintf(got, sizeof(got), "%s%s%s%s",
                 n.media == GW_MEDIA_YAML       ? "yaml"
                 : n.media == GW_MEDIA_PROTOBUF ? "protobuf"
                                                : "json",
                 n.pretty ? "+pretty" : "",
                 n.as == GW_AS_PARTIAL        ? "+partial/"
                 : n.as == GW_AS_PARTIAL_LIST ? "+partiallist/"
                                              : "",
                 n.as != GW_AS_OBJECT ? n.version : "");
    }
    char name[400];
    snprintf(name, sizeof(name), "Accept %s (endpoint %d)", w->accept ? w->accept : "(none)",
             (int)w->ep);
    tap_is_str(got, w->want, name);
}

static void
check_bodies(void)
{
    static const struct {
        const char *ct;
        bool patch;
        gw_body_type_t want;
    } rows[] = {
        {NULL, false, GW_BODY_JSON},
        {"", false, GW_BODY_JSON},
        {"application/json", false, GW_BODY_JSON},
        {"application/json; charset=utf-8", false, GW_BODY_JSON},
        {"Application/JSON", false, GW_BODY_JSON},
        {"application/yaml", false, GW_BODY_YAML},
        {"application/vnd.kubernetes.protobuf", false, GW_BODY_PROTOBUF},
        {"application/vnd.kubernetes.protobuf", true, GW_BODY_UNSUPPORTED},
        {"text/plain", false, GW_BODY_UNSUPPORTED},
        {"application/merge-patch+json", false, GW_BODY_UNSUPPORTED},
        {"application/x-www-form-urlencoded", false, GW_BODY_UNSUPPORTED},
        {"application/merge-patch+json", true, GW_BODY_MERGE_PATCH},
        {"application/merge-patch+json; charset=utf-8", true, GW_BODY_MERGE_PATCH},
        {"application/json-patch+json", true, GW_BODY_JSON_PATCH},
        {"application/strategic-merge-patch+json", true, GW_BODY_STRATEGIC_PATCH},
        {"application/apply-patch+yaml", true, GW_BODY_APPLY_PATCH},
        {"application/json", true, GW_BODY_UNSUPPORTED},
        {NULL, true, GW_BODY_UNSUPPORTED},
        {"Application/Merge-Patch+JSON", true, GW_BODY_UNSUPPORTED},
    };
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        char name[200];
        snprintf(name, sizeof(name), "Content-Type %s (%s)", rows[i].ct ? rows[i].ct : "(none)",
                 rows[i].patch ? "patch" : "body");
        tap_is_int(gw_negotiate_body(rows[i].ct, rows[i].patch), rows[i].want, name);
    }
}

static void
check_gzip_and_pretty(void)
{
    tap_ok(gw_negotiate_gzip("gzip"), "gzip");
    tap_ok(gw_negotiate_gzip("deflate, gzip"), "gzip in a list");
    tap_ok(gw_negotiate_gzip("gzip , br"), "gzip with spaces");
    tap_ok(!gw_negotiate_gzip("gzip;q=1.0"), "gzip with parameters is not matched (as kube)");
    tap_ok(!gw_negotiate_gzip("br, deflate"), "no gzip");
    tap_ok(!gw_negotiate_gzip("xgzip"), "a longer token is not gzip");
    tap_ok(!gw_negotiate_gzip(NULL), "no header");

    tap_ok(gw_negotiate_pretty(NULL, "curl/7.88.1"), "curl gets pretty output");
    tap_ok(gw_negotiate_pretty(NULL, "Mozilla/5.0 (X11)"), "a browser gets pretty output");
    tap_ok(gw_negotiate_pretty(NULL, "Wget/1.21"), "wget gets pretty output");
    tap_ok(!gw_negotiate_pretty(NULL, "kubectl/v1.32.4 (linux/amd64)"), "kubectl does not");
    tap_ok(!gw_negotiate_pretty(NULL, NULL), "no user agent does not");
    tap_ok(!gw_negotiate_pretty("false", "curl/7.88.1"), "?pretty=false wins over curl");
    tap_ok(gw_negotiate_pretty("true", "kubectl"), "?pretty=true");
    tap_ok(gw_negotiate_pretty("1", NULL), "?pretty=1");
    tap_ok(!gw_negotiate_pretty("yes", "curl"), "?pretty=yes is not a bool: not pretty");
    tap_ok(gw_negotiate_pretty("", "curl/8"), "an empty ?pretty= falls back to the agent");
}

#define PB "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"
#define PB_OLD "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"

/* /openapi/v2 as kube-openapi's handler negotiates it. */
static void
check_openapi_v2(void)
{
    static const struct {
        const char *accept;
        gw_neg_openapi_t want;
    } rows[] = {
        {NULL, GW_NEG_OPENAPI_JSON},
        {"", GW_NEG_OPENAPI_JSON},
        {"*/*", GW_NEG_OPENAPI_JSON},
        {"*", GW_NEG_OPENAPI_JSON},
        {"application/*", GW_NEG_OPENAPI_JSON},
        {"application/json", GW_NEG_OPENAPI_JSON},
        {PB, GW_NEG_OPENAPI_PROTOBUF},
        {PB_OLD, GW_NEG_OPENAPI_PROTOBUF},
        {PB ";charset=x", GW_NEG_OPENAPI_PROTOBUF},
        {"application/json, " PB, GW_NEG_OPENAPI_JSON},
        {PB ", application/json", GW_NEG_OPENAPI_PROTOBUF},
        {PB ";q=0.5, application/json", GW_NEG_OPENAPI_JSON},
        {"application/json;q=0.5, " PB_OLD, GW_NEG_OPENAPI_PROTOBUF},
        {"*/*, " PB, GW_NEG_OPENAPI_PROTOBUF},
        {"text/html, */*;q=0.1", GW_NEG_OPENAPI_JSON},
        {"application/yaml", GW_NEG_OPENAPI_NONE},
        {"application/vnd.kubernetes.protobuf", GW_NEG_OPENAPI_NONE},
        {"text/*", GW_NEG_OPENAPI_NONE},
        {"Application/JSON", GW_NEG_OPENAPI_NONE},
        {"application/yaml, " PB, GW_NEG_OPENAPI_PROTOBUF},
    };
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        char name[300];
        snprintf(name, sizeof(name), "/openapi/v2 Accept %s",
                 rows[i].accept ? rows[i].accept : "(none)");
        tap_is_int(gw_negotiate_openapi_v2(rows[i].accept), rows[i].want, name);
    }
}

int
main(void)
{
    for (size_t i = 0; i < sizeof(accept_rows) / sizeof(accept_rows[0]); i++)
        check_accept(&accept_rows[i]);
    check_bodies();
    check_gzip_and_pretty();
    check_openapi_v2();
    return tap_done();
}
