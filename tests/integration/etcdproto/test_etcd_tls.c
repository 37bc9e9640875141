/* TLS to an etcd that requires client certificates (started by test_etcd_tls.t with the PKI
 * in $KGATE_TEST_PKI): what works, what is refused at the handshake, and what
 * etcd_client_new rejects up front with a clear message. */
#include <stdio.h>

#include "etcd_test.h"

static char ca[256], client_crt[256], client_key[256], other_key[256], other_ca[256];

static void
pki_paths(const char *dir)
{
    snprintf(ca, sizeof(ca), "%s/ca.crt", dir);
    snprintf(client_crt, sizeof(client_crt), "%s/client.crt", dir);
    snprintf(client_key, sizeof(client_key), "%s/client.key", dir);
    snprintf(other_key, sizeof(other_key), "%s/other.key", dir);
    snprintf(other_ca, sizeof(other_ca), "%s/otherca.crt", dir);
}

/* Open a client and run one status call; returns its error. */
static int
status_with(const etcd_config_t *cfg)
{
    et_env_t env;
    char err[256];
    if (et_open(&env, cfg, err, sizeof(err)) != 0) {
        tap_diag("client: %s", err);
        return 99;
    }
    et_result_t r = {0};
    et_result_clear(&r);
    etcd_status(env.conn, et_status_cb, &r);
    int rc = et_wait(&env, &r) ? r.err : 98;
    et_result_clear(&r);
    et_close(&env);
    return rc;
}

static void
test_mutual_tls(const char *url)
{
    etcd_config_t cfg = {
        .servers = url, .ca_file = ca, .cert_file = client_crt, .key_file = client_key};
    et_env_t env;
    char err[256];
    if (!tap_ok(et_open(&env, &cfg, err, sizeof(err)) == 0, "client with CA, cert and key"))
        return;
    et_result_t r = {0};
    et_result_clear(&r);
    etcd_status(env.conn, et_status_cb, &r);
    tap_ok(et_wait(&env, &r) && r.err == 0, "status over TLS (%s)", gw_errname(r.err));
    char key[128];
    snprintf(key, sizeof(key), "%s", et_prefix("tls"));
    tap_ok(et_put_sync(&env, key, "v") > 0, "put over TLS");
    et_result_clear(&r);
    et_close(&env);
}

static void
test_refused(const char *url)
{
    etcd_config_t no_cert = {.servers = url, .ca_file = ca, .call_timeout_ms = 5000};
    int rc = status_with(&no_cert);
    tap_ok(rc == GW_EUNAVAILABLE, "without a client certificate: GW_EUNAVAILABLE (%s)",
           gw_errname(rc));
    etcd_config_t wrong_ca = {.servers = url,
                              .ca_file = other_ca,
                              .cert_file = client_crt,
                              .key_file = client_key,
                              .call_timeout_ms = 5000};
    rc = status_with(&wrong_ca);
    tap_ok(rc == GW_EUNAVAILABLE,
           "with a CA that did not sign etcd's certificate: "
           "GW_EUNAVAILABLE (%s)",
           gw_errname(rc));
}

static void
expect_invalid(const etcd_config_t *cfg, const char *needle, const char *name)
{
    etcd_client_t *c = NULL;
    char err[256] = "";
    int rc = etcd_client_new(cfg, &c, err, sizeof(err));
    if (!tap_ok(rc == GW_EINVAL && c == NULL && strstr(err, needle) != NULL &&
                    strchr(err, '\n') == NULL,
                "%s", name))
        tap_diag("  rc %s, message: %s", gw_errname(rc), err);
    else
        tap_diag("  %s", err);
    if (c != NULL)
        etcd_client_free(c);
}

static void
test_rejected_config(const char *url, const char *dir)
{
    etcd_config_t cfg = {
        .servers = url, .ca_file = ca, .cert_file = client_crt, .key_file = other_key};
    expect_invalid(&cfg, "does not match", "certificate and an unrelated key: GW_EINVAL");
    cfg.key_file = "/nonexistent/client.key";
    expect_invalid(&cfg, "/nonexistent/client.key: cannot read", "unreadable key file");
    cfg.key_file = client_key;
    cfg.ca_file = dir; /* a directory: opens, does not read */
    expect_invalid(&cfg, "cannot read", "CA path that is a directory");
    cfg.ca_file = client_key;
    expect_invalid(&cfg, "no PEM certificate", "CA file holding a key");
    cfg.ca_file = ca;
    cfg.cert_file = client_key;
    expect_invalid(&cfg, "no PEM certificate", "certificate file holding a key");
    cfg.cert_file = client_crt;
    cfg.key_file = client_crt;
    expect_invalid(&cfg, "private key", "key file holding a certificate");
    cfg.key_file = NULL;
    expect_invalid(&cfg, "together", "certificate without key");
    etcd_config_t no_ca = {.servers = url, .cert_file = client_crt, .key_file = client_key};
    expect_invalid(&no_ca, "--etcd-cafile", "https without a CA: GW_EINVAL");
}

static void
test_dns_name(const char *url)
{
    /* The certificate also names localhost: a dns:/// target over TLS. */
    const char *port = strrchr(url, ':');
    char servers[128];
    snprintf(servers, sizeof(servers), "https://localhost%s", port);
    etcd_config_t cfg = {
        .servers = servers, .ca_file = ca, .cert_file = client_crt, .key_file = client_key};
    int rc = status_with(&cfg);
    tap_ok(rc == 0, "https://localhost (name checked against the certificate): %s", gw_errname(rc));
}

int
main(void)
{
    const char *url = getenv("KGATE_TEST_ETCD");
    const char *dir = getenv("KGATE_TEST_PKI");
    if (url == NULL || dir == NULL || strncmp(url, "https://", 8) != 0)
        tap_skip_all("needs the TLS etcd of test_etcd_tls.t");
    evthread_use_pthreads();
    pki_paths(dir);
    test_mutual_tls(url);
    test_refused(url);
    test_rejected_config(url, dir);
    test_dns_name(url);
    return tap_done();
}
