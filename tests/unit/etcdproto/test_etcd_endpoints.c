/* The --etcd-servers parser: what it accepts, the gRPC targets it builds, what it rejects and
 * how it says so. */
#include <stdio.h>
#include <string.h>

#include "etcd.h"
#include "gw_err.h"
#include "tap.h"

typedef struct {
    const char *in;
    const char *targets; /* comma-joined gRPC targets, "T" prefix when TLS */
} accept_case_t;

static const accept_case_t accepts[] = {
    {"http://127.0.0.1:2379", "ipv4:127.0.0.1:2379"},
    {"http://127.0.0.1", "ipv4:127.0.0.1:2379"},
    {"http://127.0.0.1/", "ipv4:127.0.0.1:2379"},
    {"https://10.0.0.1:4001", "Tipv4:10.0.0.1:4001"},
    {"HTTP://10.0.0.1:1", "ipv4:10.0.0.1:1"},
    {"HtTpS://etcd.example.com:65535", "Tdns:///etcd.example.com:65535"},
    {"http://localhost:2379", "dns:///localhost:2379"},
    {"http://etcd-0.etcd.kube-system.svc", "dns:///etcd-0.etcd.kube-system.svc:2379"},
    {"http://[::1]:2379", "ipv6:[::1]:2379"},
    {"http://[::1]", "ipv6:[::1]:2379"},
    {"https://[2001:db8::5]:12/", "Tipv6:[2001:db8::5]:12"},
    {"http://[::ffff:10.1.2.3]:2379", "ipv6:[::ffff:10.1.2.3]:2379"},
    {"http://a:1,http://b:2,https://c:3", "dns:///a:1,dns:///b:2,Tdns:///c:3"},
    {" http://a:1 , http://b:2\t", "dns:///a:1,dns:///b:2"},
    {"http://127.0.0.1:2379,http://127.0.0.1:2379", "ipv4:127.0.0.1:2379,ipv4:127.0.0.1:2379"},
    {"http://x1.y-2.z3", "dns:///x1.y-2.z3:2379"},
    {"http://0.0.0.0:00080", "ipv4:0.0.0.0:80"},
};

typedef struct {
    const char *in;
    const char *why;   /* expected substring of the error */
    const char *names; /* expected substring naming the entry, or NULL */
} reject_case_t;

static const reject_case_t rejects[] = {
    {"", "no etcd servers", NULL},
    {"127.0.0.1:2379", "scheme", "127.0.0.1:2379"},
    {"etcd:2379", "scheme", "etcd:2379"},
    {"unix:///run/etcd.sock", "scheme", "unix:///run/etcd.sock"},
    {"grpc://h:1", "scheme", "grpc://h:1"},
    {"ftp://h", "scheme", "ftp://h"},
    {"http:/h:1", "scheme", "http:/h:1"},
    {"http://", "missing host", "http://"},
    {"http://:2379", "missing host", "http://:2379"},
    {"http://h:", "port", "http://h:"},
    {"http://h:0", "port", "http://h:0"},
    {"http://h:65536", "port", "http://h:65536"},
    {"http://h:123456", "port", "http://h:123456"},
    {"http://h:-1", "port", "http://h:-1"},
    {"http://h:+80", "port", "http://h:+80"},
    {"http://h:80x", "port", "http://h:80x"},
    {"http://h:8 0", "port", NULL},
    {"http://h/v3", "path", "http://h/v3"},
    {"http://h:1/a/b", "path", "http://h:1/a/b"},
    {"http://h?x=1", "query", "http://h?x=1"},
    {"http://h/?x=1", "query", "http://h/?x=1"},
    {"http://h#frag", "fragment", "http://h#frag"},
    {"http://user@h:1", "user info", "http://user@h:1"},
    {"http://u:p@h", "user info", "http://u:p@h"},
    {"http://::1:2379", "brackets", "http://::1:2379"},
    {"http://[::1", "']'", "http://[::1"},
    {"http://[::1]x", "after ']'", "http://[::1]x"},
    {"http://[::1]:", "port", "http://[::1]:"},
    {"http://[127.0.0.1]:1", "IPv6", "http://[127.0.0.1]:1"},
    {"http://[fe80::1%eth0]:1", "IPv6", NULL},
    {"http://[]:1", "missing host", NULL},
    {"http://1.2.3.256", "IPv4", "http://1.2.3.256"},
    {"http://1.2.3", "IPv4", "http://1.2.3"},
    {"http://h_x", "host name", "http://h_x"},
    {"http://-h", "host name", "http://-h"},
    {"http://h-", "host name", "http://h-"},
    {"http://a..b", "host name", "http://a..b"},
    {"http://a.", "host name", "http://a."},
    {"http://.a", "host name", "http://.a"},
    {"http://h%41", "host name", NULL},
    {"http://h\x01", "host name", "http://h?"},
    {"http://a:1,", "entry 2 is empty", NULL},
    {",http://a:1", "entry 1 is empty", NULL},
    {"http://a:1,,http://b:2", "entry 2 is empty", NULL},
    {"http://a:1, ,http://b:2", "entry 2 is empty", NULL},
    {"http://a:1,https://b:99999", "port", "https://b:99999"},
    {"http://a:1,mailto:x", "scheme", "mailto:x"},
};

static void
test_accepts(void)
{
    for (size_t i = 0; i < sizeof(accepts) / sizeof(accepts[0]); i++) {
        etcd_endpoint_t *eps = NULL;
        size_t n = 0;
        char err[256] = "", got[512] = "";
        int rc = etcd_endpoints_parse(accepts[i].in, &eps, &n, err, sizeof(err));
        for (size_t j = 0; rc == 0 && j < n; j++) {
            size_t len = strlen(got);
            snprintf(got + len, sizeof(got) - len, "%s%s%s", j ? "," : "", eps[j].tls ? "T" : "",
                     eps[j].target);
        }
        if (!tap_ok(rc == 0, "accepts \"%s\"", accepts[i].in))
            tap_diag("  error: %s", err);
        tap_is_str(got, accepts[i].targets, "  targets");
        etcd_endpoints_free(eps, n);
    }
}

static void
test_rejects(void)
{
    for (size_t i = 0; i < sizeof(rejects) / sizeof(rejects[0]); i++) {
        etcd_endpoint_t *eps = NULL;
        size_t n = 99;
        char err[256] = "";
        int rc = etcd_endpoints_parse(rejects[i].in, &eps, &n, err, sizeof(err));
        int good = rc == GW_EINVAL && eps == NULL && n == 99 && strchr(err, '\n') == NULL &&
                   strstr(err, rejects[i].why) != NULL &&
                   (rejects[i].names == NULL || strstr(err, rejects[i].names) != NULL);
        if (!tap_ok(good, "rejects \"%s\"", rejects[i].in))
            tap_diag("  rc %d, error: %s", rc, err);
    }
}

static void
test_fields(void)
{
    etcd_endpoint_t *eps = NULL;
    size_t n = 0;
    char err[256];
    int rc =
        etcd_endpoints_parse("https://[::1]:4001,http://Etcd.local", &eps, &n, err, sizeof(err));
    tap_is_int(rc, 0, "two endpoints parse");
    tap_is_int(n, 2, "two endpoints");
    if (rc != 0 || n != 2)
        return;
    tap_is_str(eps[0].host, "::1", "IPv6 host has no brackets");
    tap_is_int(eps[0].port, 4001, "explicit port");
    tap_ok(eps[0].tls, "https means TLS");
    tap_is_str(eps[1].host, "Etcd.local", "host name kept as written");
    tap_is_int(eps[1].port, 2379, "default port");
    tap_ok(!eps[1].tls, "http means no TLS");
    etcd_endpoints_free(eps, n);
    etcd_endpoints_free(NULL, 0);
}

static void
test_limits(void)
{
    char big[6000], err[256];
    etcd_endpoint_t *eps = NULL;
    size_t n = 0;
    memset(big, 'a', sizeof(big) - 1);
    memcpy(big, "http://", 7);
    big[sizeof(big) - 1] = '\0';
    int rc = etcd_endpoints_parse(big, &eps, &n, err, sizeof(err));
    tap_ok(rc == GW_EINVAL && strstr(err, "longer than") != NULL, "overlong list rejected");
    tap_ok(strlen(err) < 200, "error text stays short (%zu bytes)", strlen(err));

    char host[300] = "http://";
    memset(host + 7, 'a', 260);
    host[267] = '\0';
    rc = etcd_endpoints_parse(host, &eps, &n, err, sizeof(err));
    tap_ok(rc == GW_EINVAL && strstr(err, "too long") != NULL, "overlong host rejected");

    rc = etcd_endpoints_parse("http://aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
                              "aaa.b",
                              &eps, &n, err, sizeof(err));
    tap_ok(rc == GW_EINVAL && strstr(err, "host name") != NULL, "64-byte label rejected");

    char many[2048] = "";
    for (int i = 0; i < 65; i++)
        strcat(many, i ? ",http://h" : "http://h");
    rc = etcd_endpoints_parse(many, &eps, &n, err, sizeof(err));
    tap_ok(rc == GW_EINVAL && strstr(err, "more than 64") != NULL, "too many endpoints rejected");

    char small[16];
    rc = etcd_endpoints_parse("ftp://x", &eps, &n, small, sizeof(small));
    tap_ok(rc == GW_EINVAL && strlen(small) == sizeof(small) - 1, "error truncated to buffer");
    tap_is_int(etcd_endpoints_parse(NULL, &eps, &n, NULL, 0), GW_EINVAL, "NULL list, no buffer");
}

int
main(void)
{
    test_accepts();
    test_rejects();
    test_fields();
    test_limits();
    return tap_done();
}
