/*
 * The --etcd-servers parser. kube-apiserver takes a comma-separated list of URLs; gRPC wants
 * target strings, so each URL becomes "ipv4:a.b.c.d:port", "ipv6:[addr]:port" or
 * "dns:///name:port", and its scheme decides TLS. The input is operator-supplied but still
 * untrusted text (it is fuzzed): every rejection names the entry it is about.
 */
#include "etcd.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gw_alloc.h"
#include "gw_err.h"

#define DEFAULT_PORT 2379
#define MAX_LIST_LEN 4096 /* far beyond any real cluster; bounds the work and the messages */
#define MAX_ENDPOINTS 64
#define MAX_HOST_LEN 253 /* longest DNS name */
#define MAX_SHOWN 64     /* longest entry quoted back in an error */

/* One entry being parsed: [p, end) of the list. */
typedef struct {
    const char *p;
    const char *end;
} span_t;

static size_t
span_len(span_t s)
{
    return (size_t)(s.end - s.p);
}

/* Quote an entry for an error message: printable ASCII only, cut to MAX_SHOWN bytes. */
static void
show(span_t s, char *buf, size_t cap)
{
    size_t n = 0, len = span_len(s);
    for (size_t i = 0; i < len && n + 4 < cap && i < MAX_SHOWN; i++)
        buf[n++] = isprint((unsigned char)s.p[i]) ? s.p[i] : '?';
    if (len > MAX_SHOWN && n + 4 < cap) {
        memcpy(buf + n, "...", 3);
        n += 3;
    }
    buf[n] = '\0';
}

static int fail(char *err, size_t err_len, span_t entry, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int
fail(char *err, size_t err_len, span_t entry, const char *fmt, ...)
{
    if (err == NULL || err_len == 0)
        return GW_EINVAL;
    char shown[MAX_SHOWN * 2];
    char reason[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof(reason), fmt, ap);
    va_end(ap);
    if (span_len(entry) == 0) {
        snprintf(err, err_len, "--etcd-servers: %s", reason);
        return GW_EINVAL;
    }
    show(entry, shown, sizeof(shown));
    snprintf(err, err_len, "--etcd-servers entry \"%s\": %s", shown, reason);
    return GW_EINVAL;
}

static void
trim(span_t *s)
{
    while (s->p < s->end && (*s->p == ' ' || *s->p == '\t'))
        s->p++;
    while (s->end > s->p && (s->end[-1] == ' ' || s->end[-1] == '\t'))
        s->end--;
}

/* Consume "http://" or "https://" (any case); -1 for anything else. */
static int
parse_scheme(span_t *s, bool *tls)
{
    size_t len = span_len(*s);
    if (len >= 7 && strncasecmp(s->p, "http://", 7) == 0) {
        *tls = false;
        s->p += 7;
        return 0;
    }
    if (len >= 8 && strncasecmp(s->p, "https://", 8) == 0) {
        *tls = true;
        s->p += 8;
        return 0;
    }
    return -1;
}

/* Port: 1..5 decimal digits, value 1..65535. */
static int
parse_port(const char *p, const char *end, int *port)
{
    size_t len = (size_t)(end - p);
    if (len == 0 || len > 5)
        return -1;
    int v = 0;
    for (; p < end; p++) {
        if (*p < '0' || *p > '9')
            return -1;
        v = v * 10 + (*p - '0');
    }
    if (v < 1 || v > 65535)
        return -1;
    *port = v;
    return 0;
}

/* A DNS host name: dot-separated labels of letters, digits and inner hyphens, 1..63 long. */
static bool
valid_dns_name(const char *name)
{
    size_t label = 0;
    for (const char *p = name; *p != '\0'; p++) {
        if (*p == '.') {
            if (label == 0 || p[-1] == '-')
                return false;
            label = 0;
            continue;
        }
        if (!isalnum((unsigned char)*p) && *p != '-')
            return false;
        if (label == 0 && *p == '-')
            return false;
        if (++label > 63)
            return false;
    }
    return label > 0 && name[strlen(name) - 1] != '-';
}

/* "1.2.3.999" looks like an address, not a name: a top-level label is never all digits. */
static bool
looks_numeric(const char *name)
{
    const char *last = strrchr(name, '.');
    last = last != NULL ? last + 1 : name;
    if (*last == '\0')
        return false;
    for (; *last != '\0'; last++) {
        if (!isdigit((unsigned char)*last))
            return false;
    }
    return true;
}

typedef enum { HOST_V4, HOST_V6, HOST_DNS } host_kind_t;

/* Split the authority into host and port text; the host is copied into `host`. */
static int
split_authority(span_t entry, span_t auth, char *host, const char **port_p, bool *bracketed,
                char *err, size_t err_len)
{
    const char *host_end;
    *bracketed = auth.p < auth.end && *auth.p == '[';
    if (*bracketed) {
        const char *close = memchr(auth.p, ']', span_len(auth));
        if (close == NULL)
            return fail(err, err_len, entry, "missing ']' after IPv6 address");
        auth.p++;
        host_end = close;
        *port_p = close + 1;
        if (*port_p < auth.end && **port_p != ':')
            return fail(err, err_len, entry, "unexpected text after ']'");
    } else {
        host_end = memchr(auth.p, ':', span_len(auth));
        if (host_end == NULL)
            host_end = auth.end;
        *port_p = host_end;
        if (*port_p < auth.end && memchr(*port_p + 1, ':', (size_t)(auth.end - *port_p - 1)))
            return fail(err, err_len, entry, "IPv6 addresses must be in brackets");
    }
    size_t hlen = (size_t)(host_end - auth.p);
    if (hlen == 0)
        return fail(err, err_len, entry, "missing host");
    if (hlen > MAX_HOST_LEN)
        return fail(err, err_len, entry, "host name too long");
    memcpy(host, auth.p, hlen);
    host[hlen] = '\0';
    return 0;
}

static int
classify_host(span_t entry, const char *host, bool bracketed, host_kind_t *kind, char *err,
              size_t err_len)
{
    unsigned char addr[16];
    if (bracketed) {
        if (inet_pton(AF_INET6, host, addr) != 1)
            return fail(err, err_len, entry, "invalid IPv6 address");
        *kind = HOST_V6;
        return 0;
    }
    if (inet_pton(AF_INET, host, addr) == 1) {
        *kind = HOST_V4;
        return 0;
    }
    if (looks_numeric(host))
        return fail(err, err_len, entry, "invalid IPv4 address");
    if (!valid_dns_name(host))
        return fail(err, err_len, entry, "invalid host name");
    *kind = HOST_DNS;
    return 0;
}

static char *
make_target(host_kind_t kind, const char *host, int port)
{
    switch (kind) {
    case HOST_V4:
        return gw_sprintf("ipv4:%s:%d", host, port);
    case HOST_V6:
        return gw_sprintf("ipv6:[%s]:%d", host, port);
    case HOST_DNS:
        break;
    }
    return gw_sprintf("dns:///%s:%d", host, port);
}

/* The authority ends at the first '/', '?' or '#'; only a bare "/" may follow it. */
static int
split_rest(span_t entry, span_t *auth, char *err, size_t err_len)
{
    const char *p = auth->p;
    while (p < auth->end && *p != '/' && *p != '?' && *p != '#')
        p++;
    span_t rest = {p, auth->end};
    auth->end = p;
    if (memchr(auth->p, '@', span_len(*auth)) != NULL)
        return fail(err, err_len, entry, "user info is not allowed");
    if (span_len(rest) == 0 || (span_len(rest) == 1 && *rest.p == '/'))
        return 0;
    if (*rest.p == '/' && rest.p[1] != '?' && rest.p[1] != '#')
        return fail(err, err_len, entry, "a path is not allowed");
    return fail(err, err_len, entry, "a query or fragment is not allowed");
}

static int
parse_entry(span_t entry, etcd_endpoint_t *ep, char *err, size_t err_len)
{
    span_t auth = entry;
    char host[MAX_HOST_LEN + 1];
    const char *port_p = NULL;
    bool bracketed = false;
    host_kind_t kind = HOST_DNS;
    int port = DEFAULT_PORT, rc;

    if (parse_scheme(&auth, &ep->tls) != 0)
        return fail(err, err_len, entry, "scheme must be http:// or https://");
    rc = split_rest(entry, &auth, err, err_len);
    if (rc == 0)
        rc = split_authority(entry, auth, host, &port_p, &bracketed, err, err_len);
    if (rc == 0)
        rc = classify_host(entry, host, bracketed, &kind, err, err_len);
    if (rc != 0)
        return rc;
    if (port_p < auth.end && parse_port(port_p + 1, auth.end, &port) != 0)
        return fail(err, err_len, entry, "port must be a number from 1 to 65535");
    ep->host = gw_strdup(host);
    ep->port = port;
    ep->target = make_target(kind, host, port);
    return 0;
}

static int
check_list(const char *list, char *err, size_t err_len)
{
    span_t whole = {"", ""};
    if (list == NULL || list[0] == '\0')
        return fail(err, err_len, whole, "no etcd servers given");
    size_t len = strnlen(list, MAX_LIST_LEN + 1);
    if (len > MAX_LIST_LEN) {
        span_t head = {list, list + MAX_SHOWN + 1};
        return fail(err, err_len, head, "list longer than %d bytes", MAX_LIST_LEN);
    }
    return 0;
}

int
etcd_endpoints_parse(const char *list, etcd_endpoint_t **out, size_t *n_out, char *err,
                     size_t err_len)
{
    int rc = check_list(list, err, err_len);
    if (rc != 0)
        return rc;
    etcd_endpoint_t *eps = gw_calloc(MAX_ENDPOINTS, sizeof(*eps));
    size_t n = 0;
    const char *p = list, *stop = list + strlen(list);
    for (;;) {
        const char *comma = memchr(p, ',', (size_t)(stop - p));
        span_t entry = {p, comma != NULL ? comma : stop};
        trim(&entry);
        if (span_len(entry) == 0)
            rc = fail(err, err_len, entry, "entry %zu is empty", n + 1);
        else if (n == MAX_ENDPOINTS)
            rc = fail(err, err_len, entry, "more than %d endpoints", MAX_ENDPOINTS);
        else
            rc = parse_entry(entry, &eps[n], err, err_len);
        if (rc != 0) {
            etcd_endpoints_free(eps, n);
            return rc;
        }
        n++;
        if (comma == NULL)
            break;
        p = comma + 1;
    }
    *out = eps;
    *n_out = n;
    return 0;
}

void
etcd_endpoints_free(etcd_endpoint_t *eps, size_t n)
{
    if (eps == NULL)
        return;
    for (size_t i = 0; i < n; i++) {
        free(eps[i].host);
        free(eps[i].target);
    }
    free(eps);
}
