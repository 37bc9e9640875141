/*
 * kgate: parse the flags, connect to etcd, serve HTTPS until SIGTERM or SIGINT, then shut
 * down the way kube-apiserver does: /readyz fails at once, the listener stays open for
 * --shutdown-delay-duration, then requests in progress get a bounded time to finish.
 *
 * Exit codes: 0 after a clean shutdown, 2 for a usage error (bad or unknown flag, an
 * authorization mode or --runtime-config key kgate does not take), 1 when startup fails
 * (unusable files, etcd unreachable, address in use).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <malloc.h>
#include <net/if.h>
#include <stdatomic.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <event2/event.h>
#include <event2/thread.h>
#include <openssl/ssl.h>

#include "authn.h"
#include "authn_sa.h"
#include "authz.h"
#include "authz_abac.h"
#include "authz_node.h"
#include "etcd.h"
#include "gw_clock.h"
#include "gw_alloc.h"
#include "gw_store.h"
#include "gw_api.h"
#include "gw_apf.h"
#include "gw_authz_io.h"
#include "gw_catalog.h"
#include "gw_encryption.h"
#include "gw_storage_media.h"
#include "gw_compact.h"
#include "gw_config.h"
#include "gw_controllers.h"
#include "gw_err.h"
#include "gw_etcd_connect.h"
#include "gw_features.h"
#include "gw_fetch.h"
#include "gw_apiserver_identity.h"
#include "gw_authtrust.h"
#include "gw_health.h"
#include "gw_discovery.h"
#include "gw_kubesvc.h"
#include "gw_poststart.h"
#include "gw_log.h"
#include "gw_metric.h"
#include "gw_rbac_bootstrap.h"
#include "gw_admission.h"
#include "gw_audit.h"
#include "gw_registry.h"
#include "gw_sactl.h"
#include "gw_server.h"
#include "gw_tls.h"

#define STARTUP_PROBE_MS 10000 /* how long startup waits for etcd to answer */
#define DRAIN_MS 10000         /* how long requests in progress may take to finish at shutdown */

typedef struct {
    const gw_config_t *cfg;
    SSL_CTX *tls;
    gw_tls_build_t *tls_building;  /* until its wait */
    gw_etcd_connect_t *connecting; /* until connect_etcd */
    etcd_client_t *etcd;
    gw_health_t *health;
    gw_compactor_t *compactor;     /* worker 0's */
    gw_store_counter_t *counter;   /* worker 0's */
    gw_controllers_t *controllers; /* worker 0's: initial namespaces, namespace controller */
    authn_t *authn;
    authz_t *authz;
    gw_admission_t *admission;        /* the admission plugins every write goes through */
    gw_audit_t *audit;                /* the audit policy and log; NULL: no auditing */
    struct event *authz_reload;       /* worker 0's look at --authorization-config, every second */
    const gw_catalog_t *catalog;      /* the built-in one as --runtime-config shapes it */
    gw_value_transformer_t media;     /* --storage-media-type */
    gw_enc_transformer_t *encryption; /* --encryption-provider-config over media, or NULL */
    const gw_value_transformer_t *values; /* every store's: encryption's, else media */
    gw_enc_reloader_t *enc_reloader;      /* --encryption-provider-config-automatic-reload */
    struct event *enc_reload;             /* worker 0's look at the encryption config */
    bool kms_check;                       /* health lists kube's kms-providers check */
    gw_api_t *api;
    gw_apf_t *apf; /* API Priority and Fairness; NULL when turned off */
    gw_server_t *server;
    /* kube-apiserver's post-start hooks kgate has, as /readyz lists them */
    gw_health_hook_t *hook_namespaces, *hook_rbac, *hook_priority, *hook_bootstrap;
    gw_health_hook_t *hook_apf_consumer, *hook_apf_filter, *hook_apf_producer;
    gw_health_hook_t *hook_identity, *hook_identity_gc, *hook_authinfo;
    gw_authtrust_t *authtrust;         /* worker 0's */
    gw_poststart_t *poststart;         /* worker 0's */
    gw_apiserver_identity_t *identity; /* worker 0's */
    gw_kubesvc_t *_Atomic kubesvc;     /* worker 0's; the pre-shutdown hook's from main */
    char advertise[INET6_ADDRSTRLEN];  /* --advertise-address or what it defaults to */
    char service_ip[INET6_ADDRSTRLEN]; /* the kubernetes Service's ClusterIP */
} kgate_t;

/* In kube's order of registration (the hooks kgate has); adding one is one line here and a
 * gw_health_hook_done where its work ends. */
static void
register_hooks(kgate_t *k)
{
    bool apf = k->cfg->enable_priority_and_fairness; /* kube's come with its flow control */
    if (apf) {
        k->hook_apf_consumer =
            gw_health_hook_add(k->health, "priority-and-fairness-config-consumer");
        k->hook_apf_filter = gw_health_hook_add(k->health, "priority-and-fairness-filter");
    }
    k->hook_namespaces = gw_health_hook_add(k->health, "start-system-namespaces-controller");
    k->hook_authinfo =
        gw_health_hook_add(k->health, "start-cluster-authentication-info-controller");
    k->hook_identity =
        gw_health_hook_add(k->health, "start-kube-apiserver-identity-lease-controller");
    k->hook_identity_gc =
        gw_health_hook_add(k->health, "start-kube-apiserver-identity-lease-garbage-collector");
    k->hook_rbac = gw_health_hook_add(k->health, "rbac/bootstrap-roles");
    k->hook_priority =
        gw_health_hook_add(k->health, "scheduling/bootstrap-system-priority-classes");
    if (apf)
        k->hook_apf_producer =
            gw_health_hook_add(k->health, "priority-and-fairness-config-producer");
    k->hook_bootstrap = gw_health_hook_add(k->health, "bootstrap-controller");
}

static void
hook_done(void *hook)
{
    gw_health_hook_done(hook);
}

/* The APF configuration is in force: kube's consumer hook, and its filter's (which waits for
 * the same caches). */
static void
apf_configured(void *arg)
{
    kgate_t *k = arg;

    gw_health_hook_done(k->hook_apf_consumer);
    gw_health_hook_done(k->hook_apf_filter);
}

/* The controllers confirmed the start-up state (the system namespaces among it): readiness
 * may pass. */
static void
mark_synced(void *arg)
{
    kgate_t *k = arg;

    gw_health_set_synced(k->health);
    gw_health_hook_done(k->hook_namespaces);
}

static bool
instance_ready(void *health)
{
    return gw_health_ready(health);
}

#define LIST(l) ((gw_authtrust_list_t){(const char *const *)(l).items, (l).n})

/* What extension API servers are told to trust (kube-system/extension-apiserver-authentication). */
static gw_authtrust_t *
start_authtrust(kgate_t *k, gw_worker_t *w)
{
    const gw_config_t *cfg = k->cfg;
    gw_authtrust_opts_t o = {.etcd_prefix = cfg->etcd_prefix,
                             .values = k->values,
                             .client_ca_file = cfg->client_ca_file,
                             .requestheader_client_ca_file = cfg->requestheader_client_ca_file,
                             .allowed_names = LIST(cfg->requestheader_allowed_names),
                             .username_headers = LIST(cfg->requestheader_username_headers),
                             .group_headers = LIST(cfg->requestheader_group_headers),
                             .extra_headers_prefix = LIST(cfg->requestheader_extra_headers_prefix)};
    gw_authtrust_t *t = gw_authtrust_start(k->etcd, gw_worker_base(w), &o);
    /* kube's hook is done once the controller runs, not once it wrote: a ConfigMap it cannot
     * read or write (another instance's encryption key, say) must not hold readiness. */
    gw_health_hook_done(k->hook_authinfo);
    return t;
}

/* kube's post-start hooks run on every instance: the RBAC policy and the system priority
 * classes, then the bootstrap controller (the kubernetes Service and its endpoints). */
static void
start_poststart(kgate_t *k, gw_worker_t *w)
{
    gw_poststart_opts_t po = {.etcd_prefix = k->cfg->etcd_prefix,
                              .values = k->values,
                              .rbac_done = hook_done,
                              .rbac_arg = k->hook_rbac,
                              .priority_done = hook_done,
                              .priority_arg = k->hook_priority};
    gw_kubesvc_opts_t ko = {.etcd_prefix = k->cfg->etcd_prefix,
                            .values = k->values,
                            .service_ip = k->service_ip,
                            .public_ip = k->advertise,
                            .public_port = k->cfg->secure_port,
                            .no_endpoints = strcmp(k->cfg->endpoint_reconciler_type, "none") == 0,
                            .ready = instance_ready,
                            .ready_arg = k->health};

    k->poststart = gw_poststart_start(k->etcd, gw_worker_base(w), &po);
    k->authtrust = start_authtrust(k, w);
    k->identity = gw_apiserver_identity_start(k->etcd, gw_worker_base(w), k->cfg->etcd_prefix,
                                              k->values, hook_done, k->hook_identity);
    gw_health_hook_done(k->hook_identity_gc); /* started with it, as kube's hook */
    atomic_store(&k->kubesvc, gw_kubesvc_start(k->etcd, gw_worker_base(w), &ko));
    gw_health_hook_done(k->hook_bootstrap); /* kube's hook: the controller is started */
}

/* kube's default --advertise-address: the bind address, or with 0.0.0.0 (or ::) the host's
 * first non-loopback IPv4 address (kube picks the default route's interface's). */
static int
resolve_advertise(kgate_t *k, char *err, size_t err_len)
{
    const gw_config_t *cfg = k->cfg;
    const char *bind = cfg->bind_address;
    struct ifaddrs *ifs = NULL;

    if (!gw_kubesvc_first_ip(cfg->service_cluster_ip_range, k->service_ip, sizeof(k->service_ip))) {
        snprintf(err, err_len, "--service-cluster-ip-range %s has no first address",
                 cfg->service_cluster_ip_range);
        return 2;
    }
    if (cfg->advertise_address != NULL ||
        (strcmp(bind, "0.0.0.0") != 0 && strcmp(bind, "::") != 0)) {
        snprintf(k->advertise, sizeof(k->advertise), "%s",
                 cfg->advertise_address != NULL ? cfg->advertise_address : bind);
        return 0;
    }
    if (getifaddrs(&ifs) == 0) {
        for (struct ifaddrs *i = ifs; i != NULL && k->advertise[0] == '\0'; i = i->ifa_next) {
            if (i->ifa_addr == NULL || i->ifa_addr->sa_family != AF_INET ||
                (i->ifa_flags & IFF_LOOPBACK) || !(i->ifa_flags & IFF_UP))
                continue;
            inet_ntop(AF_INET, &((struct sockaddr_in *)(void *)i->ifa_addr)->sin_addr, k->advertise,
                      sizeof(k->advertise));
        }
        freeifaddrs(ifs);
    }
    if (k->advertise[0] == '\0') {
        gw_log_warn(NULL, "no non-loopback address found; advertising 127.0.0.1 (set "
                          "--advertise-address)");
        snprintf(k->advertise, sizeof(k->advertise), "127.0.0.1");
    }
    return 0;
}

/* The serviceaccount and root-ca-cert-publisher controllers, unless --controllers turns both
 * off (they share one election; without the publisher no kube-root-ca.crt is written). */
static void
start_service_accounts(kgate_t *k)
{
    const char *const *names = (const char *const *)k->cfg->controllers.items;
    size_t n = k->cfg->controllers.n;
    bool publish = gw_controllers_wanted(names, n, "root-ca-cert-publisher", true);
    char *root_ca = publish ? gw_sactl_root_ca(k->cfg->client_ca_file, k->tls) : NULL;

    if (publish || gw_controllers_wanted(names, n, "serviceaccount", true))
        gw_controllers_start_service_accounts(k->controllers, root_ca);
    free(root_ca);
}

static void
authz_reload_tick(evutil_socket_t fd, short what, void *arg)
{
    (void)fd, (void)what;
    authz_reload_check(arg);
}

/* --authorization-config is looked at every second on worker 0 (a stat; the file is read
 * when it changed or once a minute). */
static void
start_authz_reload(kgate_t *k, struct event_base *base)
{
    struct timeval second = {1, 0};

    if (k->cfg->authorization_config == NULL)
        return;
    k->authz_reload = event_new(base, -1, EV_PERSIST, authz_reload_tick, k->authz);
    event_add(k->authz_reload, &second);
}

static void
enc_reload_tick(evutil_socket_t fd, short what, void *arg)
{
    (void)fd, (void)what;
    gw_enc_reload_check(arg);
}

/* With --encryption-provider-config-automatic-reload the file is looked at every second on
 * worker 0 (a stat; read when it changed), as kube's controller watches it. */
static void
start_enc_reload(kgate_t *k, struct event_base *base)
{
    struct timeval second = {1, 0};

    if (k->enc_reloader == NULL)
        return;
    k->enc_reload = event_new(base, -1, EV_PERSIST, enc_reload_tick, k->enc_reloader);
    event_add(k->enc_reload, &second);
}

static void
on_worker_start(gw_worker_t *w, void *arg)
{
    kgate_t *k = arg;
    gw_api_worker_start(k->api, w);
    if (gw_worker_index(w) != 0)
        return;
    k->compactor = gw_compactor_start(gw_worker_etcd(w), gw_worker_base(w),
                                      k->cfg->etcd_compaction_interval_ms);
    k->counter = gw_store_counter_start(gw_worker_etcd(w), gw_worker_base(w), k->cfg->etcd_prefix,
                                        k->cfg->etcd_count_metric_poll_period_ms);
    k->controllers = gw_controllers_start(k->etcd, gw_worker_base(w), k->cfg->etcd_prefix,
                                          k->values, k->catalog);
    start_service_accounts(k);
    if (k->apf != NULL) {
        gw_apf_ctl_hooks_t hooks = {.configured = apf_configured,
                                    .configured_arg = k,
                                    .ensured = hook_done,
                                    .ensured_arg = k->hook_apf_producer};
        gw_controllers_start_apf(k->controllers, k->apf, &hooks);
    }
    if (authz_has_mode(k->authz, "Node"))
        gw_controllers_start_node_graph(k->controllers);
    gw_controllers_enable(k->controllers, (const char *const *)k->cfg->controllers.items,
                          k->cfg->controllers.n);
    gw_controllers_on_synced(k->controllers, mark_synced, k);
    start_poststart(k, w);
    char *first = gw_strndup(k->cfg->etcd_servers, strcspn(k->cfg->etcd_servers, ","));
    gw_health_probe_start(k->health, w, first);
    free(first);
    start_authz_reload(k, gw_worker_base(w));
    start_enc_reload(k, gw_worker_base(w));
}

static void
on_worker_drain(gw_worker_t *w, void *arg)
{
    kgate_t *k = arg;
    gw_api_worker_drain(k->api, w);
}

static void
on_worker_stop(gw_worker_t *w, void *arg)
{
    kgate_t *k = arg;
    if (gw_worker_index(w) != 0)
        return;
    gw_compactor_stop(k->compactor);
    k->compactor = NULL;
    gw_store_counter_stop(k->counter);
    k->counter = NULL;
    gw_controllers_stop(k->controllers); /* hands the namespace controller over at once */
    k->controllers = NULL;
    gw_poststart_stop(k->poststart);
    k->poststart = NULL;
    gw_apiserver_identity_stop(k->identity);
    k->identity = NULL;
    gw_authtrust_stop(k->authtrust);
    k->authtrust = NULL;
    gw_kubesvc_stop(atomic_exchange(&k->kubesvc, NULL));
    gw_health_probe_stop(k->health);
    if (k->authz_reload != NULL)
        event_free(k->authz_reload);
    k->authz_reload = NULL;
    if (k->enc_reload != NULL)
        event_free(k->enc_reload);
    k->enc_reload = NULL;
}

static void
on_worker_exit(gw_worker_t *w, void *arg)
{
    kgate_t *k = arg;
    gw_api_worker_exit(k->api, w);
}

/* A list flag's items joined by commas again, for the libraries that take kube's syntax. */
static char *
join(const gw_strlist_t *l)
{
    char *s = gw_strdup("");
    for (size_t i = 0; i < l->n; i++) {
        char *next = gw_sprintf("%s%s%s", s, i > 0 ? "," : "", l->items[i]);
        free(s);
        s = next;
    }
    return s;
}

/* --feature-gates, applied to kube's gate table (gw_features.h) and on /metrics. */
static int
configure_features(const gw_config_t *cfg, char *err, size_t err_len)
{
    const char *const *items = (const char *const *)cfg->feature_gates.items;
    if (gw_features_set(items, cfg->feature_gates.n, err, err_len) != 0)
        return 1;
    gw_features_publish();
    return 0;
}

/* A list flag as the NULL-ended array authn takes (the strings stay the config's). */
static const char *const *
null_ended(const gw_strlist_t *l)
{
    const char **out = gw_calloc(l->n + 1, sizeof(*out));

    for (size_t i = 0; i < l->n; i++)
        out[i] = l->items[i];
    return out;
}

/* The authenticators from the flags (authn copies what it keeps). */
static int
build_authn(kgate_t *k, char *err, size_t err_len)
{
    const gw_config_t *c = k->cfg;
    authn_config_t ac = {
        .token_auth_file = c->token_auth_file,
        .anonymous = c->anonymous_auth,
        .sa_key_files = null_ended(&c->service_account_key_file),
        .sa_signing_key_file = c->service_account_signing_key_file,
        .sa_issuers = null_ended(&c->service_account_issuer),
        .api_audiences = null_ended(&c->api_audiences),
        .sa_lookup = c->service_account_lookup,
        .sa_max_expiration = c->service_account_max_token_expiration_ms / 1000,
        .sa_extend_expiration = c->service_account_extend_token_expiration,
        .tls_key_file = c->tls_private_key_file,
        .bootstrap_tokens = c->enable_bootstrap_token_auth,
        .oidc_issuer_url = c->oidc_issuer_url,
        .oidc_client_id = c->oidc_client_id,
        .oidc_username_claim = c->oidc_username_claim,
        .oidc_username_prefix = c->oidc_username_prefix,
        .oidc_groups_claim = c->oidc_groups_claim,
        .oidc_groups_prefix = c->oidc_groups_prefix,
        .oidc_ca_file = c->oidc_ca_file,
        .oidc_required_claims = null_ended(&c->oidc_required_claim),
        .oidc_signing_algs = null_ended(&c->oidc_signing_algs),
        .authentication_config = c->authentication_config,
        .webhook_config_file = c->authentication_token_webhook_config_file,
        .webhook_cache_ttl = c->authentication_token_webhook_cache_ttl_ms / 1000,
        .webhook_version = c->authentication_token_webhook_version,
        .requestheader_client_ca_file = c->requestheader_client_ca_file,
        .requestheader_allowed_names = null_ended(&c->requestheader_allowed_names),
        .requestheader_username_headers = null_ended(&c->requestheader_username_headers),
        .requestheader_group_headers = null_ended(&c->requestheader_group_headers),
        .requestheader_extra_headers_prefix = null_ended(&c->requestheader_extra_headers_prefix),
    };
    int rc = authn_new(&ac, &k->authn, err, err_len);
    const char *const *lists[] = {ac.sa_key_files,
                                  ac.sa_issuers,
                                  ac.api_audiences,
                                  ac.oidc_required_claims,
                                  ac.oidc_signing_algs,
                                  ac.requestheader_allowed_names,
                                  ac.requestheader_username_headers,
                                  ac.requestheader_group_headers,
                                  ac.requestheader_extra_headers_prefix};
    for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++)
        free((void *)lists[i]);
    return rc;
}

/* The ABAC mode's policies, which it needs and nothing else may have (kube's checks). Returns
 * the exit code for a failure or 0. */
static int
use_abac(const kgate_t *k, char *err, size_t err_len)
{
    const char *file = k->cfg->authorization_policy_file;
    if (authz_has_mode(k->authz, "ABAC") != (file != NULL)) {
        snprintf(err, err_len,
                 file == NULL ? "authorization-mode ABAC's authorization policy file "
                                "not passed"
                              : "cannot specify --authorization-policy-file "
                                "without mode ABAC");
        return 2;
    }
    return file != NULL && authz_abac_use_file(file, err, err_len) != 0 ? 1 : 0;
}

/* The authorizer chain from the flags, or from --authorization-config; 0 or GW_EINVAL with
 * the reason in err. */
static int
build_authz(kgate_t *k, char *err, size_t err_len)
{
    const gw_config_t *cfg = k->cfg;
    authz_config_t ac = {
        .webhook_config_file = cfg->authorization_webhook_config_file,
        .webhook_version = cfg->authorization_webhook_version,
        .webhook_authorized_ttl_ms = cfg->authorization_webhook_cache_authorized_ttl_ms,
        .webhook_unauthorized_ttl_ms = cfg->authorization_webhook_cache_unauthorized_ttl_ms,
        .https = gw_authz_https,
    };
    if (cfg->authorization_config != NULL)
        return authz_new_file(cfg->authorization_config, &ac, &k->authz, err, err_len);
    char *modes = join(&cfg->authorization_mode);
    int rc = authz_new_config(modes, &ac, &k->authz, err, err_len);
    free(modes);
    if (rc == 0 && ac.webhook_config_file != NULL && !authz_has_mode(k->authz, "Webhook")) {
        snprintf(err, err_len,
                 "cannot specify --authorization-webhook-config-file without mode "
                 "Webhook");
        rc = GW_EINVAL;
    }
    return rc;
}

/* The Node authorizer's static rules: kube's NodeRules, which its bootstrap policy also gives
 * the system:node ClusterRole. */
static void
use_node_rules(void)
{
    json_t *objects = gw_rbac_bootstrap_objects(), *o;
    size_t i;

    json_array_foreach(objects, i, o)
    {
        const char *kind = json_string_value(json_object_get(o, "kind"));
        const char *name =
            json_string_value(json_object_get(json_object_get(o, "metadata"), "name"));
        if (strcmp(kind, "ClusterRole") == 0 && strcmp(name, "system:node") == 0)
            authz_node_use_rules(json_object_get(o, "rules"));
    }
    json_decref(objects);
}

/* Authentication, authorization and the served catalog from the flags. Returns the exit
 * code for a failure (1: an unusable file, 2: a bad flag value) or 0. */
static int
build_policy(kgate_t *k, char *err, size_t err_len)
{
    const gw_config_t *cfg = k->cfg;
    if (build_authn(k, err, err_len) != 0)
        return 1;
    int rc = build_authz(k, err, err_len);
    if (rc != 0)
        return 2;
    if ((rc = use_abac(k, err, err_len)) != 0)
        return rc;
    if (authz_has_mode(k->authz, "Node"))
        use_node_rules();
    char *runtime = join(&cfg->runtime_config);
    /* kube serves MutatingAdmissionPolicy's resources only with its feature gate (alpha, off
     * by default), even when --runtime-config enables their group version: resource keys come
     * last and the last mention wins. */
    if (!gw_feature_enabled("MutatingAdmissionPolicy")) {
        char *gated = gw_sprintf("%s%sadmissionregistration.k8s.io/v1alpha1/"
                                 "mutatingadmissionpolicies=false,admissionregistration.k8s.io/"
                                 "v1alpha1/mutatingadmissionpolicybindings=false",
                                 runtime, runtime[0] ? "," : "");
        free(runtime);
        runtime = gated;
    }
    rc = gw_catalog_configure(gw_catalog_builtin(), runtime, &k->catalog, err, err_len);
    free(runtime);
    if (rc != 0)
        return 2;
    gw_catalog_publish(k->catalog);
    return 0;
}

/* Every store reads any encoding kube may have written and writes --storage-media-type
 * (already checked by gw_config.c), encrypted as --encryption-provider-config says. The
 * built-in catalog: stored objects may be of versions --runtime-config does not serve.
 * Returns the exit code for a failure (1: an unusable configuration, as kube's) or 0. */
static int
build_values(kgate_t *k, char *err, size_t err_len)
{
    gw_storage_media_t media = GW_STORAGE_JSON;
    gw_enc_config_t *enc;

    if (gw_storage_media_parse(k->cfg->storage_media_type, &media) != 0)
        abort(); /* gw_config.c refused every other value */
    gw_storage_media_transformer(&k->media, media, gw_catalog_builtin());
    k->values = &k->media;
    if (k->cfg->encryption_provider_config == NULL)
        return 0;
    enc =
        gw_enc_config_load(k->cfg->encryption_provider_config, gw_catalog_builtin(), err, err_len);
    if (enc == NULL)
        return 1;
    gw_enc_config_start(enc); /* KMS plugins primed before serving, as kube's */
    k->kms_check =
        gw_enc_config_uses_kms(enc) || k->cfg->encryption_provider_config_automatic_reload;
    k->encryption = gw_enc_transformer_new(enc, &k->media);
    k->values = gw_enc_transformer_values(k->encryption);
    if (k->cfg->encryption_provider_config_automatic_reload)
        k->enc_reloader = gw_enc_reloader_new(k->encryption, k->cfg->encryption_provider_config,
                                              gw_catalog_builtin());
    return 0;
}

/* The etcd client and its first status answer, made while the catalog and the policy are
 * built; connect_etcd takes them (or the reason they failed). */
static void
start_etcd(kgate_t *k)
{
    const gw_config_t *cfg = k->cfg;
    etcd_config_t ec = {
        .servers = cfg->etcd_servers,
        .ca_file = cfg->etcd_cafile,
        .cert_file = cfg->etcd_certfile,
        .key_file = cfg->etcd_keyfile,
    };
    k->connecting = gw_etcd_connect_start(&ec, STARTUP_PROBE_MS);
}

static int
connect_etcd(kgate_t *k, char *err, size_t err_len)
{
    gw_etcd_connect_t *c = k->connecting;

    k->connecting = NULL;
    return gw_etcd_connect_wait(c, &k->etcd, err, err_len);
}

/* The serving context gw_tls_ctx_start was building, into k->tls. */
static int
wait_tls(kgate_t *k, char *err, size_t err_len)
{
    gw_tls_build_t *b = k->tls_building;

    k->tls_building = NULL;
    return gw_tls_ctx_wait(b, &k->tls, err, err_len);
}

/* The admission chain of --enable/--disable-admission-plugins; 2 (a usage error) when a name
 * is wrong. */
static int
build_admission(kgate_t *k, char *err, size_t err_len)
{
    const gw_config_t *cfg = k->cfg;
    char names[512];

    k->admission = gw_admission_new((const char *const *)cfg->enable_admission_plugins.items,
                                    cfg->enable_admission_plugins.n,
                                    (const char *const *)cfg->disable_admission_plugins.items,
                                    cfg->disable_admission_plugins.n, err, err_len);
    if (k->admission == NULL)
        return 2;
    gw_admission_describe(k->admission, names, sizeof(names));
    gw_log_info(NULL, "admission plugins in order: %s", names[0] ? names : "(none)");
    return 0;
}

/* The audit policy and log of the --audit-* flags; 1 (kube's start-up error) when the policy
 * has errors or the log cannot be written. */
static int
build_audit(kgate_t *k, char *err, size_t err_len)
{
    const gw_config_t *cfg = k->cfg;
    gw_audit_opts_t o = {
        .policy_file = cfg->audit_policy_file,
        .log_path = cfg->audit_log_path,
        .log_format = cfg->audit_log_format,
        .max_age_days = cfg->audit_log_maxage,
        .max_backups = cfg->audit_log_maxbackup,
        .max_size_mb = cfg->audit_log_maxsize,
        .buffer_size = cfg->audit_log_batch_buffer_size,
    };
    return gw_audit_new(&o, &k->audit, err, err_len) == 0 ? 0 : 1;
}

/* --watch-cache-sizes as collections: resource[.group]#size names a built-in resource. */
static gw_cache_limit_t *
cache_limits(const gw_config_t *cfg)
{
    const gw_strlist_t *l = &cfg->watch_cache_sizes;
    gw_cache_limit_t *out = gw_calloc(l->n + 1, sizeof(*out));

    for (size_t i = 0; i < l->n; i++) {
        char *res = gw_strdup(l->items[i]), *dot, *path;
        *strchr(res, '#') = '\0'; /* the flag's check saw one */
        dot = strchr(res, '.');
        if (dot != NULL)
            *dot = '\0';
        path = gw_store_resource_path(dot != NULL ? dot + 1 : "", res, false);
        out[i].collection = gw_sprintf("%s/", path);
        out[i].limit = strtol(strchr(l->items[i], '#') + 1, NULL, 10);
        free(path);
        free(res);
    }
    return out;
}

static void
cache_limits_free(gw_cache_limit_t *limits, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free((char *)limits[i].collection);
    free(limits);
}

static int
start_serving(kgate_t *k, char *err, size_t err_len)
{
    const gw_config_t *cfg = k->cfg;
    int rc = gw_registry_init(k->etcd, cfg->etcd_prefix);
    if (rc != 0) {
        snprintf(err, err_len, "cannot prepare the registry: %s", gw_strerror(rc));
        return rc;
    }
    gw_registry_set_admission(k->admission);
    /* kube's server concurrency limit under APF: the two in-flight limits together */
    if (cfg->enable_priority_and_fairness) {
        int server_cl = cfg->max_requests_inflight + cfg->max_mutating_requests_inflight;
        /* both at 0 ("no limit"): a limit no level reaches */
        k->apf = gw_apf_new(server_cl > 0 ? server_cl : 1 << 24);
    }
    gw_api_config_t ac = {
        .handle_resource = gw_registry_handle,
        .authn = k->authn,
        .authz = k->authz,
        .catalog = k->catalog,
        .health = k->health,
        .etcd = k->etcd,
        .etcd_prefix = cfg->etcd_prefix,
        .values = k->values,
        .workers = cfg->workers,
        .audit = k->audit,
        .max_requests_inflight = cfg->max_requests_inflight,
        .max_mutating_requests_inflight = cfg->max_mutating_requests_inflight,
        .apf = k->apf,
        .goaway_chance = cfg->goaway_chance,
        .compression = gw_feature_enabled("APIResponseCompression"),
        .unsafe_delete = gw_feature_enabled("AllowUnsafeMalformedObjectDeletion"),
        .cbor = gw_feature_enabled("CBORServingAndStorage"),
        .watch_cache = cfg->watch_cache,
        .cache_limits = cache_limits(cfg),
        .n_cache_limits = cfg->watch_cache_sizes.n,
    };
    k->api = gw_api_new(&ac);
    cache_limits_free((gw_cache_limit_t *)ac.cache_limits, ac.n_cache_limits);
    gw_server_opts_t opts = {
        .bind_address = cfg->bind_address,
        .port = cfg->secure_port,
        .workers = cfg->workers,
        .tls = k->tls,
        .http2_max_streams = (uint32_t)cfg->http2_max_streams,
        .etcd = k->etcd,
        .handler = gw_api_handle,
        .handler_data = k->api,
        .on_start = on_worker_start,
        .on_drain = on_worker_drain,
        .on_stop = on_worker_stop,
        .on_exit = on_worker_exit,
        .hook_arg = k,
    };
    return gw_server_start(&opts, &k->server, err, err_len);
}

/* Block the shutdown signals in every thread (gRPC's included) so that sigwait gets them. */
static void
block_signals(sigset_t *set)
{
    sigemptyset(set);
    sigaddset(set, SIGTERM);
    sigaddset(set, SIGINT);
    pthread_sigmask(SIG_BLOCK, set, NULL);
    signal(SIGPIPE, SIG_IGN); /* a peer that went away is an error return, not a signal */
}

static void
serve_until_signal(kgate_t *k, const sigset_t *set)
{
    int sig = 0;
    while (sigwait(set, &sig) != 0)
        ;
    gw_log_info(NULL, "received %s: not ready from now on, closing the listener in %lld ms",
                strsignal(sig), (long long)k->cfg->shutdown_delay_ms);
    gw_health_set_shutting_down(k->health);
    gw_kubesvc_pre_shutdown(atomic_load(&k->kubesvc)); /* kube's pre-shutdown hook */
    int64_t delay = k->cfg->shutdown_delay_ms;
    struct timespec ts = {delay / 1000, (delay % 1000) * 1000000L};
    siginfo_t info;
    /* A second signal cuts the delay short. */
    if (delay > 0 && sigtimedwait(set, &info, &ts) > 0)
        gw_log_info(NULL, "received %s again: shutting down now", strsignal(info.si_signo));
    gw_server_stop(k->server, DRAIN_MS);
    k->server = NULL;
    gw_log_info(NULL, "kgate stopped");
}

/* The etcd metrics' names of the built-in resources' paths ("deployments.apps"); where two
 * groups share a path (events), the first in the catalog, the core group, is the one kube
 * stores it as. */
static void
name_resources(void)
{
    const gw_catalog_t *c = gw_catalog_builtin();
    for (size_t i = 0; i < gw_catalog_count(c); i++) {
        const gw_resource_t *r = gw_catalog_at(c, i);
        if (r->virtual_only || r->storage_path == NULL)
            continue;
        char *gr = *r->group != '\0' ? gw_sprintf("%s.%s", r->name, r->group) : gw_strdup(r->name);
        gw_store_name_resource(r->storage_path, gr);
        free(gr);
    }
}

/* The metric registry's release and --show-hidden-metrics-for-version; the process figures. */
static int
configure_metrics(const gw_config_t *cfg, char *err, size_t err_len)
{
    int major = atoi(GW_KUBE_MAJOR), minor = atoi(GW_KUBE_MINOR);
    const char *show = cfg->show_hidden_metrics_for_version;
    if (!gw_metric_check_show_hidden(show, major, minor, err, err_len))
        return 1;
    gw_metric_configure(major, minor, show != NULL && *show != '\0');
    gw_metric_process_register();
    name_resources();
    return 0;
}

/* Serve with cfg until a signal; anonymous_reset: kube's ApplyAuthorization turned anonymous
 * authentication off, which is said once the configuration is known to be usable (so that a
 * refusal stays one line). */
static int
run(const gw_config_t *cfg, bool anonymous_reset)
{
    kgate_t k = {.cfg = cfg};
    char err[512];
    sigset_t set;
    int code = 1;
    block_signals(&set);
    evthread_use_pthreads();
    if (gw_config_check_files(cfg, err, sizeof(err)) != 0 ||
        configure_metrics(cfg, err, sizeof(err)) != 0 ||
        configure_features(cfg, err, sizeof(err)) != 0)
        goto out;
    start_etcd(&k);
    k.tls_building = gw_tls_ctx_start(cfg);
    code = build_policy(&k, err, sizeof(err));
    if (code != 0)
        goto out;
    code = build_admission(&k, err, sizeof(err));
    if (code != 0)
        goto out;
    code = build_audit(&k, err, sizeof(err));
    if (code != 0)
        goto out;
    code = build_values(&k, err, sizeof(err));
    if (code != 0)
        goto out;
    code = 1;
    if (wait_tls(&k, err, sizeof(err)) != 0 || connect_etcd(&k, err, sizeof(err)) != 0)
        goto out;
    if (resolve_advertise(&k, err, sizeof(err)) != 0)
        goto out;
    k.health = gw_health_new(cfg->livez_grace_period_ms);
    /* kube's one "kms-providers" check: KMS v2 in use, or any configuration a reload may bring */
    if (k.kms_check)
        gw_health_check_add(k.health, "kms-providers", gw_enc_transformer_kms_healthy,
                            k.encryption);
    register_hooks(&k);
    gw_health_etcd_result(k.health, 0);
    if (anonymous_reset)
        gw_log_warn(NULL, "AnonymousAuth is not allowed with the AlwaysAllow authorizer. "
                          "Resetting AnonymousAuth to false. You should use a different "
                          "authorizer");
    if (start_serving(&k, err, sizeof(err)) != 0)
        goto out;
    serve_until_signal(&k, &set);
    code = 0;
out:
    if (code != 0)
        fprintf(stderr, "kgate: %s\n", err);
    if (k.tls_building != NULL) /* start-up failed before it was needed */
        wait_tls(&k, err, sizeof(err));
    gw_etcd_connect_cancel(k.connecting); /* likewise */
    gw_api_free(k.api);
    gw_apf_free(k.apf);
    gw_enc_reloader_free(k.enc_reloader);
    gw_enc_transformer_free(k.encryption); /* after the workers: their stores used it */
    gw_audit_free(k.audit);                /* after the workers: what they queued is written */
    etcd_client_free(k.etcd);
    gw_health_free(k.health);
    authz_free(k.authz);
    gw_admission_free(k.admission);
    authz_node_use_rules(NULL);
    authn_free(k.authn);
    SSL_CTX_free(k.tls);
    return code;
}

/* glibc hands a worker arena's free top back to the kernel (madvise) once it passes the trim
 * threshold, and serves blocks over the mmap threshold with fresh mappings: a 1 MB LIST then
 * faults every page of its buffers in again on each request, which cost two thirds of a LIST's
 * CPU. Buffers up to 8 MiB come from the arenas, which keep up to 32 MiB of free top each. */
static void
tune_malloc(void)
{
    mallopt(M_MMAP_THRESHOLD, 8 << 20);
    mallopt(M_TRIM_THRESHOLD, 32 << 20);
}

int
main(int argc, char **argv)
{
    gw_config_t cfg;
    char err[512];
    int code = 0;

    tune_malloc();
    if (gw_config_parse(&cfg, argc, argv, err, sizeof(err)) != 0) {
        fprintf(stderr, "kgate: %s\n", err);
        code = 2;
    } else if (cfg.help) {
        gw_config_usage(stdout);
    } else {
        gw_log_set_level(cfg.verbosity >= 4 ? GW_LOG_DEBUG : GW_LOG_INFO);
        code = run(&cfg, gw_config_apply_authorization(&cfg));
    }
    gw_config_free(&cfg);
    return code;
}
