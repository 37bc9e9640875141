#include "gw_config.h"

#include <arpa/inet.h>
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "etcd.h"
#include "gw_alloc.h"
#include "gw_err.h"
#include "gw_features.h"
#include "gw_log.h"

typedef enum {
    FLAG_STR,
    FLAG_BOOL,
    FLAG_INT,
    FLAG_DURATION, /* stored as int64_t milliseconds */
    FLAG_FLOAT,    /* stored as double */
    FLAG_LIST,
} flag_kind_t;

/* Returns NULL when `value` (one list item, for lists) is acceptable, else the reason. */
typedef const char *(*flag_check_fn)(const char *value);

typedef struct {
    const char *name;
    flag_kind_t kind;
    size_t off;      /* of the destination in gw_config_t */
    const char *def; /* parsed like a command-line value; NULL: no default */
    int min, max;    /* FLAG_INT range */
    flag_check_fn check;
    const char *help;
} flag_t;

static const char *check_ip(const char *v);
static const char *check_authz_mode(const char *v);
static const char *check_key_value(const char *v);
static const char *check_feature_gate(const char *v);
static const char *check_webhook_version(const char *v);
static const char *check_audit_format(const char *v);
static const char *check_cache_size(const char *v);
static const char *check_cidr(const char *v);
static const char *check_reconciler(const char *v);

#define OFF(field) offsetof(gw_config_t, field)

/* Names, syntax and defaults follow kube-apiserver's flags of the same name. */
static const flag_t flags[] = {
    {"etcd-servers", FLAG_STR, OFF(etcd_servers), NULL, 0, 0, NULL,
     "Comma-separated etcd URLs (http:// or https://). Required."},
    {"etcd-prefix", FLAG_STR, OFF(etcd_prefix), "/registry", 0, 0, NULL,
     "Prefix of every key kgate stores in etcd."},
    {"etcd-cafile", FLAG_STR, OFF(etcd_cafile), NULL, 0, 0, NULL,
     "CA bundle (PEM) that signed the etcd servers' certificates."},
    {"etcd-certfile", FLAG_STR, OFF(etcd_certfile), NULL, 0, 0, NULL,
     "Client certificate (PEM) presented to etcd."},
    {"etcd-keyfile", FLAG_STR, OFF(etcd_keyfile), NULL, 0, 0, NULL,
     "Private key (PEM) of --etcd-certfile."},
    {"etcd-compaction-interval", FLAG_DURATION, OFF(etcd_compaction_interval_ms), "5m", 0, 0, NULL,
     "Interval between etcd compactions; 0 disables compaction."},
    {"etcd-count-metric-poll-period", FLAG_DURATION, OFF(etcd_count_metric_poll_period_ms), "1m", 0,
     0, NULL, "How often the objects of each resource are counted in etcd; 0 disables it."},
    {"storage-media-type", FLAG_STR, OFF(storage_media_type), "application/json", 0, 0, NULL,
     "Encoding of the objects written to etcd: application/json, application/yaml or "
     "application/vnd.kubernetes.protobuf (kube-apiserver's). Values in any of them are read."},
    {"encryption-provider-config", FLAG_STR, OFF(encryption_provider_config), NULL, 0, 0, NULL,
     "EncryptionConfiguration (apiserver.config.k8s.io/v1, YAML or JSON): the providers that "
     "encrypt each resource in etcd; without it values are stored as encoded."},
    {"encryption-provider-config-automatic-reload", FLAG_BOOL,
     OFF(encryption_provider_config_automatic_reload), "false", 0, 0, NULL,
     "Reload --encryption-provider-config when the file changes; otherwise it is read once."},
    {"bind-address", FLAG_STR, OFF(bind_address), "0.0.0.0", 0, 0, check_ip,
     "IP address to listen on for HTTPS."},
    {"secure-port", FLAG_INT, OFF(secure_port), "6443", 1, 65535, NULL, "Port to serve HTTPS on."},
    {"advertise-address", FLAG_STR, OFF(advertise_address), NULL, 0, 0, check_ip,
     "IP address this instance advertises in the kubernetes Service's endpoints. Default: "
     "--bind-address, or the host's first non-loopback address when that is 0.0.0.0."},
    {"service-cluster-ip-range", FLAG_STR, OFF(service_cluster_ip_range), "10.0.0.0/24", 0, 0,
     check_cidr,
     "CIDR of the Services' cluster IPs; its first address is the kubernetes Service's."},
    {"endpoint-reconciler-type", FLAG_STR, OFF(endpoint_reconciler_type), "lease", 0, 0,
     check_reconciler,
     "How the kubernetes Service's endpoints are kept: lease (each instance's TTL record in "
     "etcd) or none."},
    {"tls-cert-file", FLAG_STR, OFF(tls_cert_file), NULL, 0, 0, NULL,
     "Serving certificate (PEM, chain after the leaf)."},
    {"tls-private-key-file", FLAG_STR, OFF(tls_private_key_file), NULL, 0, 0, NULL,
     "Private key (PEM) of --tls-cert-file."},
    {"cert-dir", FLAG_STR, OFF(cert_dir), "/var/run/kubernetes", 0, 0, NULL,
     "Where a self-signed apiserver.crt/apiserver.key pair is kept when no serving certificate "
     "is given."},
    {"client-ca-file", FLAG_STR, OFF(client_ca_file), NULL, 0, 0, NULL,
     "CA bundle (PEM) for client certificates; clients are asked for one when set."},
    {"workers", FLAG_INT, OFF(workers), NULL, 1, 1024, NULL,
     "Number of worker threads (default: number of CPUs)."},
    {"livez-grace-period", FLAG_DURATION, OFF(livez_grace_period_ms), "0", 0, 0, NULL,
     "Time after start during which /livez does not fail on etcd."},
    {"shutdown-delay-duration", FLAG_DURATION, OFF(shutdown_delay_ms), "0", 0, 0, NULL,
     "Time between SIGTERM (after which /readyz fails) and closing the listener."},
    {"v", FLAG_INT, OFF(verbosity), "0", 0, 10, NULL, "Log verbosity; 4 and above logs debug."},
    {"show-hidden-metrics-for-version", FLAG_STR, OFF(show_hidden_metrics_for_version), "", 0, 0,
     NULL,
     "The previous minor release (e.g. 1.31), to show again the metrics it hid: those "
     "deprecated before this release."},
    {"help", FLAG_BOOL, OFF(help), "false", 0, 0, NULL, "Print this list and exit."},
    {"token-auth-file", FLAG_STR, OFF(token_auth_file), NULL, 0, 0, NULL,
     "Static bearer tokens (CSV: token,user,uid[,groups...])."},
    {"anonymous-auth", FLAG_BOOL, OFF(anonymous_auth), "true", 0, 0, NULL,
     "Let unauthenticated requests through as system:anonymous."},
    {"service-account-key-file", FLAG_LIST, OFF(service_account_key_file), "", 0, 0, NULL,
     "PEM files of public (or private) keys that verify service account tokens; repeatable. "
     "Default: --tls-private-key-file."},
    {"service-account-signing-key-file", FLAG_STR, OFF(service_account_signing_key_file), NULL, 0,
     0, NULL, "PEM private key (RSA or EC P-256) that signs service account tokens."},
    {"service-account-issuer", FLAG_LIST, OFF(service_account_issuer), "", 0, 0, NULL,
     "Issuer of service account tokens; repeatable: the first signs, all are accepted."},
    {"api-audiences", FLAG_LIST, OFF(api_audiences), "", 0, 0, NULL,
     "Audiences a token must name; default: the first --service-account-issuer."},
    {"service-account-lookup", FLAG_BOOL, OFF(service_account_lookup), "true", 0, 0, NULL,
     "Refuse service account tokens whose account or bound object no longer exists."},
    {"service-account-max-token-expiration", FLAG_DURATION,
     OFF(service_account_max_token_expiration_ms), "0", 0, 0, NULL,
     "Longest validity a TokenRequest may ask for; 0: no limit."},
    {"service-account-extend-token-expiration", FLAG_BOOL,
     OFF(service_account_extend_token_expiration), "true", 0, 0, NULL,
     "Issue pod-bound tokens for a year while warning after their requested expiry."},
    {"enable-bootstrap-token-auth", FLAG_BOOL, OFF(enable_bootstrap_token_auth), "false", 0, 0,
     NULL, "Accept bootstrap tokens (Secrets of type bootstrap.kubernetes.io/token)."},
    {"controllers", FLAG_LIST, OFF(controllers), "*", 0, 0, NULL,
     "Controllers to run: * (the default set: serviceaccount, root-ca-cert-publisher, "
     "garbage-collector-controller), name or -name; tokencleaner and bootstrapsigner are off "
     "by default."},
    {"oidc-issuer-url", FLAG_STR, OFF(oidc_issuer_url), NULL, 0, 0, NULL,
     "HTTPS URL of the OpenID Connect issuer whose ID tokens are accepted."},
    {"oidc-client-id", FLAG_STR, OFF(oidc_client_id), NULL, 0, 0, NULL,
     "Audience the ID tokens must carry."},
    {"oidc-username-claim", FLAG_STR, OFF(oidc_username_claim), "sub", 0, 0, NULL,
     "Claim that names the user."},
    {"oidc-username-prefix", FLAG_STR, OFF(oidc_username_prefix), NULL, 0, 0, NULL,
     "Prefix of user names ('-' for none; default: the issuer URL and '#' unless the claim is "
     "email)."},
    {"oidc-groups-claim", FLAG_STR, OFF(oidc_groups_claim), NULL, 0, 0, NULL,
     "Claim that lists the user's groups."},
    {"oidc-groups-prefix", FLAG_STR, OFF(oidc_groups_prefix), NULL, 0, 0, NULL,
     "Prefix of group names."},
    {"oidc-ca-file", FLAG_STR, OFF(oidc_ca_file), NULL, 0, 0, NULL,
     "CA bundle (PEM) for the issuer's HTTPS; default: the system's."},
    {"oidc-required-claim", FLAG_LIST, OFF(oidc_required_claim), "", 0, 0, check_key_value,
     "claim=value pairs every ID token must carry."},
    {"oidc-signing-algs", FLAG_LIST, OFF(oidc_signing_algs), "RS256", 0, 0, NULL,
     "Signing algorithms accepted."},
    {"authentication-config", FLAG_STR, OFF(authentication_config), NULL, 0, 0, NULL,
     "AuthenticationConfiguration file (JWT authenticators); exclusive with --oidc-*."},
    {"authentication-token-webhook-config-file", FLAG_STR,
     OFF(authentication_token_webhook_config_file), NULL, 0, 0, NULL,
     "Kubeconfig of the TokenReview webhook."},
    {"authentication-token-webhook-cache-ttl", FLAG_DURATION,
     OFF(authentication_token_webhook_cache_ttl_ms), "2m", 0, 0, NULL,
     "How long the webhook's answers are cached."},
    {"authentication-token-webhook-version", FLAG_STR, OFF(authentication_token_webhook_version),
     "v1beta1", 0, 0, check_webhook_version,
     "TokenReview version the webhook speaks: v1beta1 or v1."},
    {"requestheader-client-ca-file", FLAG_STR, OFF(requestheader_client_ca_file), NULL, 0, 0, NULL,
     "CA bundle (PEM) of the authenticating proxy's client certificates."},
    {"requestheader-allowed-names", FLAG_LIST, OFF(requestheader_allowed_names), "", 0, 0, NULL,
     "Common names the proxy's certificate may have; empty: any."},
    {"requestheader-username-headers", FLAG_LIST, OFF(requestheader_username_headers), "", 0, 0,
     NULL, "Headers that carry the user name (e.g. X-Remote-User)."},
    {"requestheader-group-headers", FLAG_LIST, OFF(requestheader_group_headers), "", 0, 0, NULL,
     "Headers that carry the groups (e.g. X-Remote-Group)."},
    {"requestheader-extra-headers-prefix", FLAG_LIST, OFF(requestheader_extra_headers_prefix), "",
     0, 0, NULL, "Header prefixes of extra user attributes (e.g. X-Remote-Extra-)."},
    {"authorization-mode", FLAG_LIST, OFF(authorization_mode), "AlwaysAllow", 0, 0,
     check_authz_mode, "Authorizers in order: AlwaysAllow, AlwaysDeny, ABAC, Webhook, RBAC, Node."},
    {"authorization-config", FLAG_STR, OFF(authorization_config), NULL, 0, 0, NULL,
     "AuthorizationConfiguration file (authorizers in order, reloaded when it changes); "
     "exclusive with --authorization-mode and --authorization-webhook-*."},
    {"authorization-policy-file", FLAG_STR, OFF(authorization_policy_file), NULL, 0, 0, NULL,
     "ABAC policies, one JSON Policy per line; required by, and only with, the ABAC mode."},
    {"authorization-webhook-config-file", FLAG_STR, OFF(authorization_webhook_config_file), NULL, 0,
     0, NULL, "Kubeconfig of the SubjectAccessReview webhook (the Webhook mode)."},
    {"authorization-webhook-version", FLAG_STR, OFF(authorization_webhook_version), "v1beta1", 0, 0,
     check_webhook_version, "SubjectAccessReview version the webhook speaks: v1beta1 or v1."},
    {"authorization-webhook-cache-authorized-ttl", FLAG_DURATION,
     OFF(authorization_webhook_cache_authorized_ttl_ms), "5m", 0, 0, NULL,
     "How long the webhook's allows are cached."},
    {"authorization-webhook-cache-unauthorized-ttl", FLAG_DURATION,
     OFF(authorization_webhook_cache_unauthorized_ttl_ms), "30s", 0, 0, NULL,
     "How long the webhook's denials and no opinions are cached."},
    {"runtime-config", FLAG_LIST, OFF(runtime_config), "", 0, 0, check_key_value,
     "API groups and versions to enable or disable: key[=value] pairs."},
    {"feature-gates", FLAG_LIST, OFF(feature_gates), "", 0, 0, check_feature_gate,
     "A set of key=value pairs that describe feature gates for alpha/experimental features."},
    {"enable-admission-plugins", FLAG_LIST, OFF(enable_admission_plugins), "", 0, 0, NULL,
     "Admission plugins to run beside the default ones (kube's names; they run in kube's "
     "order)."},
    {"disable-admission-plugins", FLAG_LIST, OFF(disable_admission_plugins), "", 0, 0, NULL,
     "Admission plugins not to run, even if on by default."},
    {"http2-max-streams-per-connection", FLAG_INT, OFF(http2_max_streams), "1000", 0, INT_MAX, NULL,
     "The limit that the server gives to clients for the maximum number of streams in an HTTP/2 "
     "connection; 0 means Go's default (250)."},
    {"goaway-chance", FLAG_FLOAT, OFF(goaway_chance), "0", 0, 0, NULL,
     "The chance (0 to 0.02) that an HTTP/2 client's connection gets a GOAWAY after a request "
     "that is not long-running, so that clients spread over instances behind a load balancer; "
     "0 never."},
    {"enable-priority-and-fairness", FLAG_BOOL, OFF(enable_priority_and_fairness), "true", 0, 0,
     NULL,
     "If true, replace the max-in-flight handler with an enhanced one that queues and "
     "dispatches with priority and fairness."},
    {"max-requests-inflight", FLAG_INT, OFF(max_requests_inflight), "400", 0, INT_MAX, NULL,
     "Limit of read-only requests in flight; 0 means no limit."},
    {"max-mutating-requests-inflight", FLAG_INT, OFF(max_mutating_requests_inflight), "200", 0,
     INT_MAX, NULL, "Limit of mutating requests in flight; 0 means no limit."},
    {"watch-cache", FLAG_BOOL, OFF(watch_cache), "true", 0, 0, NULL,
     "Serve reads from a watch-fed cache of each collection (consistent reads when it has "
     "reached etcd's current revision)."},
    {"watch-cache-sizes", FLAG_LIST, OFF(watch_cache_sizes), "", 0, 0, check_cache_size,
     "Per resource, resource[.group]#size: the most objects its cache may hold (a collection "
     "that outgrows it is read from etcd); 0 keeps no cache for it."},
    {"audit-policy-file", FLAG_STR, OFF(audit_policy_file), NULL, 0, 0, NULL,
     "Audit policy (audit.k8s.io/v1 Policy, YAML or JSON); without it nothing is audited."},
    {"audit-log-path", FLAG_STR, OFF(audit_log_path), NULL, 0, 0, NULL,
     "File audit events are written to, one JSON Event a line; '-' is standard output; "
     "without it nothing is audited."},
    {"audit-log-format", FLAG_STR, OFF(audit_log_format), "json", 0, 0, check_audit_format,
     "Format of the audit log: json (kube's legacy format is not written)."},
    {"audit-log-maxage", FLAG_INT, OFF(audit_log_maxage), "0", INT_MIN, INT_MAX, NULL,
     "Days an old audit log file is kept (0: no limit)."},
    {"audit-log-maxbackup", FLAG_INT, OFF(audit_log_maxbackup), "0", INT_MIN, INT_MAX, NULL,
     "Old audit log files kept (0: no limit)."},
    {"audit-log-maxsize", FLAG_INT, OFF(audit_log_maxsize), "0", INT_MIN, INT_MAX, NULL,
     "Megabytes an audit log file grows to before it is rotated (0: 100)."},
    {"audit-log-batch-buffer-size", FLAG_INT, OFF(audit_log_batch_buffer_size), "10000", 1, INT_MAX,
     NULL,
     "Audit events buffered for the log writer; beyond it events are dropped and counted, "
     "the request never waits."},
};

#define N_FLAGS (sizeof(flags) / sizeof(flags[0]))

/* kube's log formats are json and legacy; kgate writes json only. */
static const char *
check_audit_format(const char *v)
{
    return strcmp(v, "json") == 0 ? NULL : "invalid audit log format, allowed formats are \"json\"";
}

static const char *
check_webhook_version(const char *v)
{
    return strcmp(v, "v1") == 0 || strcmp(v, "v1beta1") == 0 ? NULL : "must be v1 or v1beta1";
}

static const char *const authz_modes[] = {"AlwaysAllow", "AlwaysDeny", "ABAC",
                                          "Webhook",     "RBAC",       "Node"};

static const char *
check_ip(const char *v)
{
    unsigned char buf[sizeof(struct in6_addr)];
    if (inet_pton(AF_INET, v, buf) == 1 || inet_pton(AF_INET6, v, buf) == 1)
        return NULL;
    return "not an IP address";
}

static const char *
check_cidr(const char *v)
{
    unsigned char buf[sizeof(struct in6_addr)];
    const char *slash = strchr(v, '/');
    char host[INET6_ADDRSTRLEN];
    char *end;
    long bits;
    bool v6;

    if (slash == NULL || (size_t)(slash - v) >= sizeof(host))
        return "not a CIDR";
    memcpy(host, v, (size_t)(slash - v));
    host[slash - v] = '\0';
    v6 = strchr(host, ':') != NULL;
    bits = strtol(slash + 1, &end, 10);
    if (slash[1] == '\0' || *end != '\0' || bits < 0 || bits > (v6 ? 128 : 32) ||
        inet_pton(v6 ? AF_INET6 : AF_INET, host, buf) != 1)
        return "not a CIDR";
    if (bits >= (v6 ? 127 : 31))
        return "too small: no room for the kubernetes Service's address";
    return NULL;
}

/* kube's master-count reconciler needs --apiserver-count, which kgate does not take. */
static const char *
check_reconciler(const char *v)
{
    if (strcmp(v, "lease") == 0 || strcmp(v, "none") == 0)
        return NULL;
    return "unsupported endpoint reconciler type (want lease or none)";
}

static const char *
check_authz_mode(const char *v)
{
    for (size_t i = 0; i < sizeof(authz_modes) / sizeof(authz_modes[0]); i++) {
        if (strcmp(v, authz_modes[i]) == 0)
            return NULL;
    }
    return "unknown authorization mode (want AlwaysAllow, AlwaysDeny, ABAC, Webhook, RBAC or "
           "Node)";
}

/* kube's --runtime-config: key[=value], a missing value meaning true. */
/* kube's ParseWatchCacheSizes, in its words. */
static const char *
check_cache_size(const char *v)
{
    const char *hash = strchr(v, '#');
    char *end;
    long n;

    if (hash == NULL || strchr(hash + 1, '#') != NULL)
        return "invalid value of watch cache size";
    errno = 0;
    n = strtol(hash + 1, &end, 10);
    if (hash[1] == '\0' || *end != '\0' || errno != 0)
        return "invalid size of watch cache size";
    if (n < 0)
        return "watch cache size cannot be negative";
    return NULL;
}

static const char *
check_key_value(const char *v)
{
    if (v[0] == '\0' || v[0] == '=')
        return "want key[=value] pairs";
    return NULL;
}

/* kube's feature gates: a known name, a Go boolean, a locked gate left at its default. */
static const char *
check_feature_gate(const char *v)
{
    return gw_features_check(v);
}

static const char *
parse_int(const char *s, int min, int max, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (s[0] == '\0' || *end != '\0' || errno == ERANGE)
        return "not an integer";
    if (v < min || v > max)
        return "out of range";
    *out = (int)v;
    return NULL;
}

static const char *
parse_float(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (s[0] == '\0' || *end != '\0' || errno == ERANGE || v != v)
        return "not a number";
    *out = v;
    return NULL;
}

typedef struct {
    const char *name;
    int64_t ns;
} duration_unit_t;

static const duration_unit_t duration_units[] = {
    {"ns", 1LL},         {"us", 1000LL},      {"\u00b5s", 1000LL}, /* micro sign */
    {"\u03bcs", 1000LL},                                           /* Greek mu */
    {"ms", 1000000LL},   {"s", 1000000000LL}, {"m", 60000000000LL}, {"h", 3600000000000LL},
};

static int64_t
unit_ns(const char *s, size_t len)
{
    for (size_t i = 0; i < sizeof(duration_units) / sizeof(duration_units[0]); i++) {
        const char *name = duration_units[i].name;
        if (strlen(name) == len && memcmp(s, name, len) == 0)
            return duration_units[i].ns;
    }
    return 0;
}

/* One "<number><unit>" term of a Go duration, added to *total_ns; advances *p. */
static int
parse_duration_term(const char **p, int64_t *total_ns)
{
    const char *s = *p;
    uint64_t whole = 0, frac = 0, scale = 1;
    size_t digits = 0;
    for (; *s >= '0' && *s <= '9'; s++, digits++) {
        if (whole > (uint64_t)INT64_MAX / 10)
            return GW_EINVAL;
        whole = whole * 10 + (uint64_t)(*s - '0');
    }
    if (*s == '.') {
        for (s++; *s >= '0' && *s <= '9'; s++, digits++) {
            if (scale <= (uint64_t)INT64_MAX / 10) { /* like Go, ignore digits beyond that */
                frac = frac * 10 + (uint64_t)(*s - '0');
                scale *= 10;
            }
        }
    }
    size_t ulen = strcspn(s, "0123456789.");
    int64_t unit = unit_ns(s, ulen);
    if (digits == 0 || unit == 0 || whole > (uint64_t)(INT64_MAX / unit))
        return GW_EINVAL;
    int64_t v = (int64_t)whole * unit + (int64_t)((double)frac * (double)unit / (double)scale);
    if (v < 0 || *total_ns > INT64_MAX - v)
        return GW_EINVAL;
    *total_ns += v;
    *p = s + ulen;
    return 0;
}

/* A Go duration ("1h30m", "500ms", "0"), negative ones refused; rounded up to milliseconds. */
static const char *
parse_duration(const char *s, int64_t *out_ms)
{
    if (s[0] == '-')
        return "must not be negative";
    if (s[0] == '+')
        s++;
    if (strcmp(s, "0") == 0) {
        *out_ms = 0;
        return NULL;
    }
    int64_t ns = 0;
    const char *p = s;
    do {
        if (parse_duration_term(&p, &ns) != 0)
            return "not a duration (like 30s, 5m or 1h30m)";
    } while (*p != '\0');
    *out_ms = ns / 1000000 + (ns % 1000000 != 0);
    return NULL;
}

static void
strlist_clear(gw_strlist_t *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->items[i]);
    free(l->items);
    l->items = NULL;
    l->n = 0;
}

/* Append the comma-separated items of s; an empty s adds nothing. */
static const char *
strlist_append(gw_strlist_t *l, const char *s, flag_check_fn check)
{
    while (*s != '\0') {
        size_t len = strcspn(s, ",");
        char *item = gw_strndup(s, len);
        const char *why = item[0] == '\0' ? "empty list item" : check ? check(item) : NULL;
        if (why != NULL) {
            free(item);
            return why;
        }
        l->items = gw_realloc(l->items, (l->n + 1) * sizeof(*l->items));
        l->items[l->n++] = item;
        s += len;
        if (*s == ',' && *++s == '\0')
            return "empty list item";
    }
    return NULL;
}

/* Store value into the flag's field; `again` means the flag was given before. */
static const char *
set_value(gw_config_t *cfg, const flag_t *f, const char *value, bool again)
{
    void *dst = (char *)cfg + f->off;
    const char *why;
    switch (f->kind) {
    case FLAG_STR:
        why = f->check != NULL ? f->check(value) : NULL;
        if (why != NULL)
            return why;
        free(*(char **)dst);
        *(char **)dst = gw_strdup(value);
        return NULL;
    case FLAG_BOOL:
        return gw_parse_bool(value, dst) == 0 ? NULL : "want true or false";
    case FLAG_INT:
        return parse_int(value, f->min, f->max, dst);
    case FLAG_DURATION:
        return parse_duration(value, dst);
    case FLAG_FLOAT:
        return parse_float(value, dst);
    case FLAG_LIST:
        /* Like kube's string slices: the first use replaces the default, later ones append. */
        if (!again)
            strlist_clear(dst);
        return strlist_append(dst, value, f->check);
    }
    return "unsupported flag kind";
}

static const flag_t *
find_flag(const char *name, size_t len)
{
    for (size_t i = 0; i < N_FLAGS; i++) {
        if (strlen(flags[i].name) == len && memcmp(flags[i].name, name, len) == 0)
            return &flags[i];
    }
    return NULL;
}

static int
online_cpus(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 1024 ? 1024 : (int)n;
}

static void
apply_defaults(gw_config_t *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    for (size_t i = 0; i < N_FLAGS; i++) {
        if (flags[i].def != NULL) {
            const char *why = set_value(cfg, &flags[i], flags[i].def, false);
            assert(why == NULL); /* the table's own defaults must parse */
            (void)why;
        }
    }
    cfg->workers = online_cpus();
}

/* Split "--name[=value]" and find the value (maybe argv's next entry); advances *i. */
static int
parse_one(gw_config_t *cfg, int argc, char *const argv[], int *i, bool *seen, char *err,
          size_t err_len)
{
    const char *arg = argv[*i], *name = arg + 2;
    size_t len = strcspn(name, "=");
    const flag_t *f = arg[1] == '-' ? find_flag(name, len) : NULL;
    if (f == NULL) {
        snprintf(err, err_len, "unknown flag: %.*s", (int)(len + 2), arg);
        return GW_EINVAL;
    }
    const char *value = name[len] == '=' ? name + len + 1 : NULL;
    if (value == NULL && f->kind == FLAG_BOOL)
        value = "true";
    if (value == NULL && *i + 1 < argc)
        value = argv[++*i];
    if (value == NULL) {
        snprintf(err, err_len, "flag needs an argument: --%s", f->name);
        return GW_EINVAL;
    }
    const char *why = set_value(cfg, f, value, seen[f - flags]);
    seen[f - flags] = true;
    if (why != NULL) {
        snprintf(err, err_len, "invalid value \"%s\" for --%s: %s", value, f->name, why);
        return GW_EINVAL;
    }
    return 0;
}

static int
check_pair(const char *a, const char *a_name, const char *b, const char *b_name, char *err,
           size_t err_len)
{
    if ((a == NULL) == (b == NULL))
        return 0;
    snprintf(err, err_len, "--%s and --%s must be given together", a_name, b_name);
    return GW_EINVAL;
}

/* kube's RequestHeaderAuthenticationOptions.Validate: no blank entry in the lists (an error),
 * and a warning when the standard header aggregation relies on is left out. */
static int
check_requestheader(const gw_config_t *cfg, char *err, size_t err_len)
{
    const struct {
        const gw_strlist_t *list;
        const char *flag, *standard;
    } lists[] = {
        {&cfg->requestheader_username_headers, "requestheader-username-headers", "X-Remote-User"},
        {&cfg->requestheader_group_headers, "requestheader-group-headers", "X-Remote-Group"},
        {&cfg->requestheader_extra_headers_prefix, "requestheader-extra-headers-prefix",
         "X-Remote-Extra-"},
        {&cfg->requestheader_allowed_names, "requestheader-allowed-names", NULL},
    };
    for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
        bool standard = false;
        for (size_t k = 0; k < lists[i].list->n; k++) {
            const char *item = lists[i].list->items[k];
            if (item[strspn(item, " \t\n\r\v\f")] == '\0') {
                snprintf(err, err_len, "empty value in \"%s\"", lists[i].flag);
                return GW_EINVAL;
            }
            standard = standard || (lists[i].standard && !strcasecmp(item, lists[i].standard));
        }
        if (lists[i].standard != NULL && lists[i].list->n > 0 && !standard)
            gw_log_warn(NULL,
                        "--%s is set without specifying the standard %s header%s - API "
                        "aggregation will not work",
                        lists[i].flag, lists[i].standard, i == 2 ? " prefix" : "");
    }
    return 0;
}

/* kube-apiserver's checks of the service account flags: issuers neither empty nor repeated,
 * an issuer for a signing key, and the maximum token expiration between 1 hour and 2^32 s. */
static int
check_service_accounts(const gw_config_t *cfg, char *err, size_t err_len)
{
    const gw_strlist_t *iss = &cfg->service_account_issuer;
    int64_t max_ms = cfg->service_account_max_token_expiration_ms;

    for (size_t i = 0; i < iss->n; i++) {
        if (iss->items[i][0] == '\0') {
            snprintf(err, err_len, "service-account-issuer should not be an empty string");
            return GW_EINVAL;
        }
        for (size_t j = 0; j < i; j++) {
            if (strcmp(iss->items[i], iss->items[j]) == 0) {
                snprintf(err, err_len, "service-account-issuer \"%s\" is already specified",
                         iss->items[i]);
                return GW_EINVAL;
            }
        }
    }
    if (cfg->service_account_signing_key_file != NULL && iss->n == 0) {
        snprintf(err, err_len, "service-account-issuer is a required flag");
        return GW_EINVAL;
    }
    if (max_ms != 0 && (max_ms < 3600 * 1000LL || max_ms > (1LL << 32) * 1000)) {
        snprintf(err, err_len,
                 "the service-account-max-token-expiration must be between 1 hour "
                 "and 2^32 seconds");
        return GW_EINVAL;
    }
    return 0;
}

/* kube-apiserver's storage encodings, sorted as its message lists them. */
static const char *const storage_media_types[] = {
    "application/json", "application/vnd.kubernetes.protobuf", "application/yaml"};

static int
check_storage_media_type(const char *v, char *err, size_t err_len)
{
    /* kube lets an empty value through: the default then applies. */
    if (v == NULL || v[0] == '\0')
        return 0;
    for (size_t i = 0; i < sizeof(storage_media_types) / sizeof(storage_media_types[0]); i++) {
        if (strcmp(v, storage_media_types[i]) == 0)
            return 0;
    }
    snprintf(err, err_len, "--storage-media-type \"%s\" invalid, allowed values: %s, %s, %s", v,
             storage_media_types[0], storage_media_types[1], storage_media_types[2]);
    return GW_EINVAL;
}

/* kube's AuditLogOptions.Validate: the rotation numbers are not negative. */
static int
check_audit(const gw_config_t *cfg, char *err, size_t err_len)
{
    const struct {
        const char *flag;
        int v;
    } nums[] = {{"audit-log-maxage", cfg->audit_log_maxage},
                {"audit-log-maxbackup", cfg->audit_log_maxbackup},
                {"audit-log-maxsize", cfg->audit_log_maxsize}};
    for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++) {
        if (nums[i].v < 0) {
            snprintf(err, err_len, "--%s %d can't be a negative number", nums[i].flag, nums[i].v);
            return GW_EINVAL;
        }
    }
    return 0;
}

static int
check_config(const gw_config_t *cfg, char *err, size_t err_len)
{
    if (cfg->etcd_servers == NULL) {
        snprintf(err, err_len, "--etcd-servers must be specified");
        return GW_EINVAL;
    }
    etcd_endpoint_t *eps = NULL;
    size_t n = 0;
    int rc = etcd_endpoints_parse(cfg->etcd_servers, &eps, &n, err, err_len);
    etcd_endpoints_free(eps, n);
    if (rc == 0)
        rc = check_pair(cfg->tls_cert_file, "tls-cert-file", cfg->tls_private_key_file,
                        "tls-private-key-file", err, err_len);
    if (rc == 0)
        rc = check_pair(cfg->etcd_certfile, "etcd-certfile", cfg->etcd_keyfile, "etcd-keyfile", err,
                        err_len);
    if (rc == 0)
        rc = check_audit(cfg, err, err_len);
    if (rc == 0)
        rc = check_requestheader(cfg, err, err_len);
    if (rc == 0)
        rc = check_service_accounts(cfg, err, err_len);
    if (rc == 0)
        rc = check_storage_media_type(cfg->storage_media_type, err, err_len);
    if (rc == 0 && (cfg->goaway_chance < 0 || cfg->goaway_chance > 0.02)) {
        snprintf(err, err_len, "--goaway-chance can not be less than 0 or greater than 0.02");
        rc = GW_EINVAL;
    }
    return rc;
}

/* kube-apiserver's checks of the OIDC flags (any given counts, defaults do not): with
 * --authentication-config none may be given; without it, any given needs the issuer and the
 * client id. */
static int
check_oidc(const gw_config_t *cfg, const bool *seen, char *err, size_t err_len)
{
    bool given = false;

    for (size_t i = 0; i < N_FLAGS; i++)
        given = given || (seen[i] && strncmp(flags[i].name, "oidc-", 5) == 0);
    if (given && cfg->authentication_config != NULL) {
        snprintf(err, err_len,
                 "authentication-config file and oidc-* flags are mutually "
                 "exclusive");
        return GW_EINVAL;
    }
    if (given && (cfg->oidc_issuer_url == NULL || cfg->oidc_issuer_url[0] == '\0' ||
                  cfg->oidc_client_id == NULL || cfg->oidc_client_id[0] == '\0')) {
        snprintf(err, err_len,
                 "oidc-issuer-url and oidc-client-id must be specified together "
                 "when any oidc-* flags are set");
        return GW_EINVAL;
    }
    return 0;
}

/* kube-apiserver's rule: --authorization-config replaces the mode flags, so none of them may
 * be given (given counts, defaults do not). */
static int
check_authz_config(const gw_config_t *cfg, const bool *seen, char *err, size_t err_len)
{
    bool given = false;

    for (size_t i = 0; i < N_FLAGS; i++)
        given = given || (seen[i] && (strcmp(flags[i].name, "authorization-mode") == 0 ||
                                      strncmp(flags[i].name, "authorization-webhook-", 22) == 0));
    if (given && cfg->authorization_config != NULL) {
        snprintf(err, err_len,
                 "--authorization-config can not be specified when "
                 "--authorization-mode or --authorization-webhook-* flags are "
                 "defined");
        return GW_EINVAL;
    }
    return 0;
}

int
gw_config_parse(gw_config_t *cfg, int argc, char *const argv[], char *err, size_t err_len)
{
    bool seen[N_FLAGS] = {false};
    apply_defaults(cfg);
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "-h") == 0) {
            cfg->help = true;
            continue;
        }
        if (arg[0] != '-' || strcmp(arg, "-") == 0 || strcmp(arg, "--") == 0) {
            snprintf(err, err_len, "unexpected argument \"%s\": kgate takes flags only", arg);
            return GW_EINVAL;
        }
        int rc = parse_one(cfg, argc, argv, &i, seen, err, err_len);
        if (rc != 0)
            return rc;
    }
    if (cfg->help)
        return 0;
    int rc = check_config(cfg, err, err_len);
    if (rc == 0)
        rc = check_oidc(cfg, seen, err, err_len);
    return rc != 0 ? rc : check_authz_config(cfg, seen, err, err_len);
}

bool
gw_config_apply_authorization(gw_config_t *cfg)
{
    /* --authorization-config leaves the mode list at its default, which is not what kube
     * looks at: its modes come from the flag only. */
    if (!cfg->anonymous_auth || cfg->authorization_config != NULL)
        return false;
    for (size_t i = 0; i < cfg->authorization_mode.n; i++) {
        if (strcmp(cfg->authorization_mode.items[i], "AlwaysAllow") == 0) {
            cfg->anonymous_auth = false;
            return true;
        }
    }
    return false;
}

static int
check_readable(const char *path, const char *flag, char *err, size_t err_len)
{
    if (path == NULL)
        return 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    const char *why = NULL;
    if (fd < 0)
        why = strerror(errno);
    else if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        why = "not a regular file";
    if (fd >= 0)
        close(fd);
    if (why == NULL)
        return 0;
    snprintf(err, err_len, "cannot read --%s \"%s\": %s", flag, path, why);
    return GW_EINVAL;
}

int
gw_config_check_files(const gw_config_t *cfg, char *err, size_t err_len)
{
    const struct {
        const char *path, *flag;
    } files[] = {
        {cfg->tls_cert_file, "tls-cert-file"},
        {cfg->tls_private_key_file, "tls-private-key-file"},
        {cfg->client_ca_file, "client-ca-file"},
        {cfg->etcd_cafile, "etcd-cafile"},
        {cfg->etcd_certfile, "etcd-certfile"},
        {cfg->etcd_keyfile, "etcd-keyfile"},
        {cfg->token_auth_file, "token-auth-file"},
        {cfg->authorization_policy_file, "authorization-policy-file"},
        {cfg->service_account_signing_key_file, "service-account-signing-key-file"},
        {cfg->oidc_ca_file, "oidc-ca-file"},
        {cfg->authentication_config, "authentication-config"},
        {cfg->authentication_token_webhook_config_file, "authentication-token-webhook-config-file"},
        {cfg->requestheader_client_ca_file, "requestheader-client-ca-file"},
        {cfg->authorization_webhook_config_file, "authorization-webhook-config-file"},
    };
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        int rc = check_readable(files[i].path, files[i].flag, err, err_len);
        if (rc != 0)
            return rc;
    }
    return 0;
}

static const char *const kind_arg[] = {
    [FLAG_STR] = " string",        [FLAG_BOOL] = "",         [FLAG_INT] = " int",
    [FLAG_DURATION] = " duration", [FLAG_LIST] = " strings", [FLAG_FLOAT] = " float",
};

void
gw_config_usage(FILE *out)
{
    fprintf(out, "Usage: kgate --etcd-servers=URL[,URL...] [flags]\n\nFlags:\n");
    for (size_t i = 0; i < N_FLAGS; i++) {
        const flag_t *f = &flags[i];
        fprintf(out, "  --%s%s\n        %s", f->name, kind_arg[f->kind], f->help);
        if (f->def != NULL && f->def[0] != '\0' && f->kind != FLAG_BOOL)
            fprintf(out, " (default %s)", f->def);
        if (f->kind == FLAG_BOOL && strcmp(f->def, "true") == 0)
            fprintf(out, " (default true)");
        fputc('\n', out);
    }
}

void
gw_config_free(gw_config_t *cfg)
{
    for (size_t i = 0; i < N_FLAGS; i++) {
        void *field = (char *)cfg + flags[i].off;
        if (flags[i].kind == FLAG_STR)
            free(*(char **)field);
        else if (flags[i].kind == FLAG_LIST)
            strlist_clear(field);
    }
    memset(cfg, 0, sizeof(*cfg));
}
