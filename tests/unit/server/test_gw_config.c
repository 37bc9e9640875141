/* The flag table: both syntaxes, defaults, each value kind, and every usage error. */
#include "gw_config.c"

#include <stdarg.h>
#include <sys/stat.h>

#include "tap.h"

#define ETCD "--etcd-servers=http://127.0.0.1:2379"

static char err[512];

/* Parse a NULL-terminated argument list (argv[0] is supplied). */
static int
parse(gw_config_t *cfg, ...)
{
    const char *argv[32] = {"kgate"};
    int argc = 1;
    va_list ap;
    va_start(ap, cfg);
    for (const char *a = va_arg(ap, const char *); a != NULL && argc < 31;
         a = va_arg(ap, const char *))
        argv[argc++] = a;
    va_end(ap);
    err[0] = '\0';
    return gw_config_parse(cfg, argc, (char *const *)argv, err, sizeof(err));
}

/* Parse, expect a usage error, and compare its text. */
static void
expect_error(const char *want, const char *name, const char *a1, const char *a2, const char *a3)
{
    gw_config_t cfg;
    int rc = parse(&cfg, a1, a2, a3, (const char *)NULL);
    tap_is_int(rc, GW_EINVAL, name);
    tap_is_str(err, want, name);
    gw_config_free(&cfg);
}

static void
test_table_defaults_are_valid(void)
{
    for (size_t i = 0; i < N_FLAGS; i++) {
        gw_config_t cfg = {0};
        const char *why = flags[i].def ? set_value(&cfg, &flags[i], flags[i].def, false) : NULL;
        tap_ok(why == NULL, "default of --%s parses", flags[i].name);
        gw_config_free(&cfg);
    }
}

static void
test_defaults(void)
{
    gw_config_t cfg;
    tap_is_int(parse(&cfg, ETCD, (const char *)NULL), 0, "only --etcd-servers: accepted");
    tap_is_str(cfg.etcd_servers, "http://127.0.0.1:2379", "etcd-servers stored");
    tap_is_str(cfg.etcd_prefix, "/registry", "etcd-prefix default");
    tap_is_int(cfg.etcd_compaction_interval_ms, 300000, "compaction interval default 5m");
    tap_is_str(cfg.storage_media_type, "application/json", "storage-media-type default JSON");
    tap_is_str(cfg.bind_address, "0.0.0.0", "bind-address default");
    tap_is_int(cfg.secure_port, 6443, "secure-port default");
    tap_is_str(cfg.cert_dir, "/var/run/kubernetes", "cert-dir default");
    tap_is_str(cfg.tls_cert_file, NULL, "no tls-cert-file by default");
    tap_is_int(cfg.workers, sysconf(_SC_NPROCESSORS_ONLN), "workers default: CPUs");
    tap_is_int(cfg.livez_grace_period_ms, 0, "livez grace default 0");
    tap_is_int(cfg.shutdown_delay_ms, 0, "shutdown delay default 0");
    tap_is_int(cfg.verbosity, 0, "v default 0");
    tap_ok(cfg.anonymous_auth && !cfg.help, "anonymous-auth true, help false by default");
    tap_ok(cfg.authorization_mode.n == 1 &&
               strcmp(cfg.authorization_mode.items[0], "AlwaysAllow") == 0,
           "authorization-mode default AlwaysAllow");
    tap_is_int(cfg.runtime_config.n + cfg.feature_gates.n, 0, "empty map-like lists by default");
    tap_is_int(cfg.max_requests_inflight, 400, "max-requests-inflight default");
    tap_is_int(cfg.max_mutating_requests_inflight, 200, "max-mutating-requests-inflight default");
    gw_config_free(&cfg);
}

static void
test_both_syntaxes(void)
{
    gw_config_t cfg;
    int rc =
        parse(&cfg, "--etcd-servers", "https://e1:2379,https://e2:2379", "--secure-port", "7443",
              "--bind-address=127.0.0.1", "--etcd-prefix", "/kgate", "--workers=3", "--v", "5",
              "--tls-cert-file", "/c.crt", "--tls-private-key-file=/c.key", (const char *)NULL);
    tap_is_int(rc, 0, "--flag value and --flag=value mixed");
    tap_is_str(cfg.etcd_servers, "https://e1:2379,https://e2:2379", "--etcd-servers value");
    tap_is_int(cfg.secure_port, 7443, "--secure-port value");
    tap_is_str(cfg.bind_address, "127.0.0.1", "--bind-address=value");
    tap_is_str(cfg.etcd_prefix, "/kgate", "--etcd-prefix value");
    tap_is_int(cfg.workers, 3, "--workers=3");
    tap_is_int(cfg.verbosity, 5, "--v 5");
    tap_is_str(cfg.tls_private_key_file, "/c.key", "--tls-private-key-file=");
    gw_config_free(&cfg);

    rc = parse(&cfg, ETCD, "--secure-port=1", "--secure-port=2", (const char *)NULL);
    tap_ok(rc == 0 && cfg.secure_port == 2, "a repeated scalar flag: the last one wins");
    gw_config_free(&cfg);
    rc = parse(&cfg, "--etcd-prefix", "--weird", ETCD, (const char *)NULL);
    tap_ok(rc == 0 && strcmp(cfg.etcd_prefix, "--weird") == 0,
           "--flag value takes the next argument as it is");
    gw_config_free(&cfg);
}

static void
test_durations(void)
{
    static const struct {
        const char *in;
        int64_t ms;
    } good[] = {
        {"5m", 300000},
        {"30s", 30000},
        {"1h30m", 5400000},
        {"500ms", 500},
        {"0", 0},
        {"1.5s", 1500},
        {"2h45m30.5s", 9930500},
        {"1us", 1},
        {"+10s", 10000},
        {"1000000ns", 1},
        {"0s", 0},
        {".5m", 30000},
        {"1\u00b5s", 1},
        {"3h0m0s", 10800000},
    };
    static const char *const bad[] = {"5",      "abc", "-1s", "5x",  "",
                                      "1.2.3s", ".s",  "s",   "1m-", "9999999999999999999h"};
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        gw_config_t cfg;
        char arg[64];
        snprintf(arg, sizeof(arg), "--shutdown-delay-duration=%s", good[i].in);
        int rc = parse(&cfg, ETCD, arg, (const char *)NULL);
        tap_ok(rc == 0 && cfg.shutdown_delay_ms == good[i].ms, "duration \"%s\" is %lld ms",
               good[i].in, (long long)good[i].ms);
        if (rc != 0 || cfg.shutdown_delay_ms != good[i].ms)
            tap_diag("  rc %d, got %lld ms: %s", rc, (long long)cfg.shutdown_delay_ms, err);
        gw_config_free(&cfg);
    }
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        gw_config_t cfg;
        char arg[64];
        snprintf(arg, sizeof(arg), "--etcd-compaction-interval=%s", bad[i]);
        int rc = parse(&cfg, ETCD, arg, (const char *)NULL);
        tap_ok(rc == GW_EINVAL && strstr(err, "for --etcd-compaction-interval: ") != NULL,
               "duration \"%s\" refused (%s)", bad[i], err);
        gw_config_free(&cfg);
    }
    gw_config_t cfg;
    tap_is_int(parse(&cfg, ETCD, "--etcd-compaction-interval=0", (const char *)NULL), 0,
               "compaction interval 0 accepted");
    tap_is_int(cfg.etcd_compaction_interval_ms, 0, "compaction interval 0 disables");
    gw_config_free(&cfg);
    expect_error("invalid value \"-2s\" for --livez-grace-period: must not be negative",
                 "negative duration message", ETCD, "--livez-grace-period=-2s", NULL);
}

/* The HTTP/2 flags: kube-apiserver's default of 1000 streams, and --goaway-chance within
 * [0, 0.02] in kube's words. */
static void
test_http2(void)
{
    gw_config_t cfg;

    tap_is_int(parse(&cfg, ETCD, (const char *)NULL), 0, "defaults");
    tap_ok(cfg.http2_max_streams == 1000 && cfg.goaway_chance == 0,
           "1000 streams per connection and no GOAWAY chance by default");
    gw_config_free(&cfg);
    tap_is_int(parse(&cfg, ETCD, "--goaway-chance=0.02", "--http2-max-streams-per-connection=5",
                     (const char *)NULL),
               0, "--goaway-chance=0.02 is accepted");
    tap_ok(cfg.goaway_chance == 0.02 && cfg.http2_max_streams == 5, "... and both are kept");
    gw_config_free(&cfg);
    expect_error("--goaway-chance can not be less than 0 or greater than 0.02", "goaway over 0.02",
                 ETCD, "--goaway-chance=0.5", NULL);
    expect_error("--goaway-chance can not be less than 0 or greater than 0.02", "goaway below 0",
                 ETCD, "--goaway-chance=-0.01", NULL);
    expect_error("invalid value \"x\" for --goaway-chance: not a number", "goaway not a number",
                 ETCD, "--goaway-chance=x", NULL);
}

/* --storage-media-type takes kube's three encodings, and refuses others in kube's words. */
static void
test_storage_media_type(void)
{
    static const char *const ok[] = {
        "--storage-media-type=application/json",
        "--storage-media-type=application/yaml",
        "--storage-media-type=application/vnd.kubernetes.protobuf",
        "--storage-media-type=",
    };
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
        gw_config_t cfg;
        tap_is_int(parse(&cfg, ETCD, ok[i], (const char *)NULL), 0, ok[i]);
        tap_is_str(cfg.storage_media_type, strchr(ok[i], '=') + 1, ok[i]);
        gw_config_free(&cfg);
    }
    expect_error("--storage-media-type \"application/protobuf\" invalid, allowed values: "
                 "application/json, application/vnd.kubernetes.protobuf, application/yaml",
                 "storage-media-type: kube's message", ETCD,
                 "--storage-media-type=application/protobuf", NULL);
}

static void
test_booleans(void)
{
    static const struct {
        const char *arg;
        bool want;
    } cases[] = {
        {"--anonymous-auth", true},      {"--anonymous-auth=false", false},
        {"--anonymous-auth=true", true}, {"--anonymous-auth=0", false},
        {"--anonymous-auth=F", false},   {"--anonymous-auth=TRUE", true},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        gw_config_t cfg;
        int rc = parse(&cfg, ETCD, "--anonymous-auth=false", cases[i].arg, (const char *)NULL);
        tap_ok(rc == 0 && cfg.anonymous_auth == cases[i].want, "%s", cases[i].arg);
        gw_config_free(&cfg);
    }
    expect_error("invalid value \"yes\" for --anonymous-auth: want true or false", "bool: yes",
                 ETCD, "--anonymous-auth=yes", NULL);
    expect_error("unexpected argument \"false\": kgate takes flags only",
                 "a bool flag does not take the next argument", ETCD, "--anonymous-auth", "false");
    gw_config_t cfg;
    tap_ok(parse(&cfg, "--help", (const char *)NULL) == 0 && cfg.help,
           "--help alone: no error, help set");
    gw_config_free(&cfg);
    tap_ok(parse(&cfg, "-h", (const char *)NULL) == 0 && cfg.help, "-h sets help");
    gw_config_free(&cfg);
}

static void
test_lists(void)
{
    gw_config_t cfg;
    int rc = parse(&cfg, ETCD, "--authorization-mode=Node,RBAC", (const char *)NULL);
    tap_ok(rc == 0 && cfg.authorization_mode.n == 2 &&
               strcmp(cfg.authorization_mode.items[0], "Node") == 0 &&
               strcmp(cfg.authorization_mode.items[1], "RBAC") == 0,
           "a list replaces the default, in order");
    gw_config_free(&cfg);
    rc = parse(&cfg, ETCD, "--authorization-mode=Node", "--authorization-mode", "RBAC,Webhook",
               (const char *)NULL);
    tap_ok(rc == 0 && cfg.authorization_mode.n == 3 &&
               strcmp(cfg.authorization_mode.items[2], "Webhook") == 0,
           "a repeated list flag appends");
    gw_config_free(&cfg);
    rc = parse(&cfg, ETCD, "--feature-gates=WatchList=true,KMSv1=false",
               "--runtime-config=api/all=true,v1", (const char *)NULL);
    tap_ok(rc == 0 && cfg.feature_gates.n == 2 && cfg.runtime_config.n == 2 &&
               strcmp(cfg.runtime_config.items[1], "v1") == 0,
           "feature gates and runtime config");
    gw_config_free(&cfg);
    rc = parse(&cfg, ETCD, "--authorization-mode=", (const char *)NULL);
    tap_ok(rc == 0 && cfg.authorization_mode.n == 0, "an empty value is an empty list");
    gw_config_free(&cfg);
    expect_error("invalid value \"RBAC,,Node\" for --authorization-mode: empty list item",
                 "empty list item", ETCD, "--authorization-mode=RBAC,,Node", NULL);
    expect_error("invalid value \"RBAC,\" for --authorization-mode: empty list item",
                 "trailing comma", ETCD, "--authorization-mode=RBAC,", NULL);
    expect_error("invalid value \"RBAC,Magic\" for --authorization-mode: unknown authorization "
                 "mode (want AlwaysAllow, AlwaysDeny, ABAC, Webhook, RBAC or Node)",
                 "unknown authorization mode", ETCD, "--authorization-mode=RBAC,Magic", NULL);
    expect_error("invalid value \"A\" for --feature-gates: missing bool value for A",
                 "feature gate without value", ETCD, "--feature-gates=A", NULL);
    expect_error("invalid value \"WatchList=true,Nope=true\" for --feature-gates: unrecognized "
                 "feature gate: Nope",
                 "unknown feature gate", ETCD, "--feature-gates=WatchList=true,Nope=true", NULL);
    expect_error("invalid value \"=x\" for --runtime-config: want key[=value] pairs",
                 "runtime config without key", ETCD, "--runtime-config==x", NULL);
}

static void
test_usage_errors(void)
{
    expect_error("unknown flag: --foo", "unknown flag", ETCD, "--foo", NULL);
    expect_error("unknown flag: --foo", "unknown flag with value", ETCD, "--foo=bar", NULL);
    expect_error("unknown flag: -x", "single-dash flag", ETCD, "-x", NULL);
    expect_error("unexpected argument \"serve\": kgate takes flags only", "positional", ETCD,
                 "serve", NULL);
    expect_error("unexpected argument \"-\": kgate takes flags only", "lone dash", ETCD, "-", NULL);
    expect_error("flag needs an argument: --secure-port", "missing value", ETCD, "--secure-port",
                 NULL);
    expect_error("invalid value \"abc\" for --secure-port: not an integer", "port abc", ETCD,
                 "--secure-port=abc", NULL);
    expect_error("invalid value \"0\" for --secure-port: out of range", "port 0", ETCD,
                 "--secure-port=0", NULL);
    expect_error("invalid value \"70000\" for --secure-port: out of range", "port 70000", ETCD,
                 "--secure-port=70000", NULL);
    expect_error("invalid value \"12abc\" for --secure-port: not an integer", "port 12abc", ETCD,
                 "--secure-port=12abc", NULL);
    expect_error("invalid value \"0\" for --workers: out of range", "workers 0", ETCD,
                 "--workers=0", NULL);
    expect_error("invalid value \"11\" for --v: out of range", "v 11", ETCD, "--v=11", NULL);
    expect_error("invalid value \"localhost\" for --bind-address: not an IP address",
                 "bind-address must be an IP", ETCD, "--bind-address=localhost", NULL);
    expect_error("invalid value \"-1\" for --max-requests-inflight: out of range",
                 "negative inflight limit", ETCD, "--max-requests-inflight=-1", NULL);
    expect_error("--etcd-servers must be specified", "missing --etcd-servers", "--v=1", NULL, NULL);
    expect_error("--tls-cert-file and --tls-private-key-file must be given together",
                 "cert without key", ETCD, "--tls-cert-file=/a", NULL);
    expect_error("--etcd-certfile and --etcd-keyfile must be given together", "etcd key only", ETCD,
                 "--etcd-keyfile=/a", NULL);

    gw_config_t cfg;
    tap_is_int(parse(&cfg, "--etcd-servers=ftp://x", (const char *)NULL), GW_EINVAL,
               "ftp:// refused");
    tap_ok(strstr(err, "ftp://x") != NULL, "the error names the bad entry: %s", err);
    gw_config_free(&cfg);
    tap_is_int(parse(&cfg, "--bind-address=::1", ETCD, (const char *)NULL), 0, "IPv6 bind address");
    gw_config_free(&cfg);
}

static void
test_check_files(void)
{
    const char *dir = getenv("KGATE_TEST_TMP") ? getenv("KGATE_TEST_TMP") : "/tmp";
    char path[512];
    snprintf(path, sizeof(path), "%s/gw-config-%d.pem", dir, (int)getpid());
    FILE *f = fopen(path, "w");
    fputs("x\n", f);
    fclose(f);

    gw_config_t cfg;
    parse(&cfg, ETCD, "--client-ca-file", path, (const char *)NULL);
    tap_is_int(gw_config_check_files(&cfg, err, sizeof(err)), 0, "readable file accepted");
    gw_config_free(&cfg);

    parse(&cfg, ETCD, "--etcd-cafile=/nonexistent/ca.pem", (const char *)NULL);
    tap_is_int(gw_config_check_files(&cfg, err, sizeof(err)), GW_EINVAL, "missing file refused");
    tap_is_str(err, "cannot read --etcd-cafile \"/nonexistent/ca.pem\": No such file or directory",
               "missing file message");
    gw_config_free(&cfg);

    parse(&cfg, ETCD, "--token-auth-file", dir, (const char *)NULL);
    tap_is_int(gw_config_check_files(&cfg, err, sizeof(err)), GW_EINVAL, "directory refused");
    tap_ok(strstr(err, "--token-auth-file") != NULL, "directory message names the flag: %s", err);
    gw_config_free(&cfg);
    unlink(path);
}

static void
test_usage_text(void)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    gw_config_usage(out);
    fclose(out);
    tap_ok(strstr(text, "--etcd-compaction-interval duration") != NULL &&
               strstr(text, "(default 5m)") != NULL && strstr(text, "--anonymous-auth\n") != NULL,
           "usage lists flags with kinds and defaults");
    free(text);
}

/* kube's ApplyAuthorization: anonymous is turned off by AlwaysAllow among the modes only. */
static void
test_apply_authorization(void)
{
    gw_config_t c;

    parse(&c, "--etcd-servers=http://e:2379", NULL);
    tap_ok(gw_config_apply_authorization(&c) && !c.anonymous_auth,
           "the default AlwaysAllow turns anonymous off");
    tap_ok(!gw_config_apply_authorization(&c), "... once");
    gw_config_free(&c);
    parse(&c, "--etcd-servers=http://e:2379", "--authorization-mode=RBAC,AlwaysAllow", NULL);
    tap_ok(gw_config_apply_authorization(&c) && !c.anonymous_auth,
           "AlwaysAllow after RBAC turns it off too");
    gw_config_free(&c);
    parse(&c, "--etcd-servers=http://e:2379", "--authorization-mode=RBAC,Node", NULL);
    tap_ok(!gw_config_apply_authorization(&c) && c.anonymous_auth,
           "without AlwaysAllow anonymous stays");
    gw_config_free(&c);
    parse(&c, "--etcd-servers=http://e:2379", "--anonymous-auth=false", NULL);
    tap_ok(!gw_config_apply_authorization(&c) && !c.anonymous_auth, "already off: nothing to say");
    gw_config_free(&c);
    parse(&c, "--etcd-servers=http://e:2379", "--authorization-config=/x.yaml", NULL);
    tap_ok(!gw_config_apply_authorization(&c) && c.anonymous_auth,
           "an --authorization-config leaves it on (kube looks at the mode flag only)");
    gw_config_free(&c);
}

int
main(void)
{
    test_apply_authorization();
    test_table_defaults_are_valid();
    test_defaults();
    test_both_syntaxes();
    test_durations();
    test_http2();
    test_storage_media_type();
    test_booleans();
    test_lists();
    test_usage_errors();
    test_check_files();
    test_usage_text();
    return tap_done();
}
