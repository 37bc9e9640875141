#ifndef GATEWAY_SERVER_GW_CONFIG_H
#define GATEWAY_SERVER_GW_CONFIG_H

/*
 * kgate's command line, with kube-apiserver's flag names and syntax: `--flag=value` or
 * `--flag value`; booleans as `--flag` or `--flag=true|false`; durations in Go syntax ("30s",
 * "1h30m", "500ms", "0"); lists comma-separated. The flags are one data table in gw_config.c.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/** A comma-separated flag value, split. Owned by the gw_config_t that holds it. */
typedef struct {
    char **items;
    size_t n;
} gw_strlist_t;

/** Every flag's value after parsing. Strings are owned (NULL when unset and no default). */
typedef struct {
    char *etcd_servers;
    char *etcd_prefix;
    char *etcd_cafile;
    char *etcd_certfile;
    char *etcd_keyfile;
    int64_t etcd_compaction_interval_ms; /* 0 disables compaction */
    char *storage_media_type;            /* the encoding written to etcd (all are read) */
    char *encryption_provider_config;    /* EncryptionConfiguration file, or NULL */
    bool encryption_provider_config_automatic_reload;
    char *bind_address;
    int secure_port;
    char *advertise_address;        /* NULL: derived from --bind-address (main.c) */
    char *service_cluster_ip_range; /* its first address is the kubernetes Service's */
    char *endpoint_reconciler_type; /* "lease" or "none" */
    char *tls_cert_file;
    char *tls_private_key_file;
    char *cert_dir;
    char *client_ca_file;
    int workers;
    int64_t livez_grace_period_ms;
    int64_t shutdown_delay_ms;
    int verbosity;                            /* --v, 0..10 */
    char *show_hidden_metrics_for_version;    /* "": hidden metrics stay hidden */
    int64_t etcd_count_metric_poll_period_ms; /* 0: apiserver_storage_objects not kept */
    bool help;
    /* authentication */
    char *token_auth_file;
    bool anonymous_auth;
    gw_strlist_t service_account_key_file;
    char *service_account_signing_key_file;
    gw_strlist_t service_account_issuer;
    gw_strlist_t api_audiences;
    bool service_account_lookup;
    int64_t service_account_max_token_expiration_ms; /* 0: no maximum */
    bool service_account_extend_token_expiration;
    bool enable_bootstrap_token_auth;
    gw_strlist_t controllers;
    char *oidc_issuer_url;
    char *oidc_client_id;
    char *oidc_username_claim;
    char *oidc_username_prefix;
    char *oidc_groups_claim;
    char *oidc_groups_prefix;
    char *oidc_ca_file;
    gw_strlist_t oidc_required_claim;
    gw_strlist_t oidc_signing_algs;
    char *authentication_config;
    char *authentication_token_webhook_config_file;
    int64_t authentication_token_webhook_cache_ttl_ms;
    char *authentication_token_webhook_version;
    char *requestheader_client_ca_file;
    gw_strlist_t requestheader_allowed_names;
    gw_strlist_t requestheader_username_headers;
    gw_strlist_t requestheader_group_headers;
    gw_strlist_t requestheader_extra_headers_prefix;
    /* Accepted and validated now; used by later layers. */
    gw_strlist_t authorization_mode;
    char *authorization_config; /* an AuthorizationConfiguration file, instead of the mode */
    char *authorization_policy_file;
    char *authorization_webhook_config_file;
    char *authorization_webhook_version;
    int64_t authorization_webhook_cache_authorized_ttl_ms;
    int64_t authorization_webhook_cache_unauthorized_ttl_ms;
    gw_strlist_t runtime_config;
    gw_strlist_t feature_gates;
    gw_strlist_t enable_admission_plugins; /* checked by gw_admission_new */
    gw_strlist_t disable_admission_plugins;
    bool enable_priority_and_fairness;
    int max_requests_inflight;
    int max_mutating_requests_inflight;
    int http2_max_streams;          /* --http2-max-streams-per-connection */
    double goaway_chance;           /* --goaway-chance */
    bool watch_cache;               /* --watch-cache */
    gw_strlist_t watch_cache_sizes; /* resource[.group]#size, checked */
    /* auditing: off unless both the policy file and the log path are given */
    char *audit_policy_file;
    char *audit_log_path; /* "-": standard output */
    char *audit_log_format;
    int audit_log_maxage;
    int audit_log_maxbackup;
    int audit_log_maxsize; /* MB */
    int audit_log_batch_buffer_size;
} gw_config_t;

/**
 * Fill *cfg with the defaults, then apply argv[1..argc-1] and check the flags against each
 * other. Returns 0, or GW_EINVAL with a one-line reason in err (a usage error: the process
 * should exit 2). When `--help` is given, cfg->help is set and the required-flag checks are
 * skipped. *cfg is always left initialised: release it with gw_config_free whatever the
 * result. Does not touch the file system. Thread: any.
 */
int gw_config_parse(gw_config_t *cfg, int argc, char *const argv[], char *err, size_t err_len);

/**
 * Check that every file named by a flag can be opened for reading. Returns 0, or GW_EINVAL
 * with a one-line reason naming the flag and the file in err. Thread: any.
 */
int gw_config_check_files(const gw_config_t *cfg, char *err, size_t err_len);

/**
 * kube-apiserver's BuiltInAuthenticationOptions.ApplyAuthorization: anonymous authentication
 * cannot be combined with AlwaysAllow among --authorization-mode (an --authorization-config
 * file does not count), so it is turned off. Returns whether it was turned off (the caller
 * logs kube's warning). Thread: the main thread, before the configuration is shared.
 */
bool gw_config_apply_authorization(gw_config_t *cfg);

/** Print the flag list with defaults and help texts to `out`. Thread: any. */
void gw_config_usage(FILE *out);

/** Free what *cfg owns and zero it. Thread: any. */
void gw_config_free(gw_config_t *cfg);

#endif
