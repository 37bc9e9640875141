/*
 * bench_start: how long kgate takes from its process start to serving, on an empty etcd
 * prefix. Each run forks and executes kgate on a free loopback port with a prefix of its own
 * (nothing under it yet), then polls tightly: a TCP connect every POLL_US until the listener
 * takes it, then GET /readyz over TLS on that keep-alive connection every POLL_US until it is
 * answered 200. Two times per run, from the fork: the first answered request (any status: the
 * listener is up and a worker answers) and the first 200 from /readyz. RUNS runs (after one
 * unmeasured run that brings the binary and etcd's pages in), p50 and p99; the run's keys
 * (the prefix and its leader elections) are deleted after it.
 *
 * Usage: bench_start KGATE PKI_DIR ETCD_URL PREFIX [KGATE_FLAGS...]
 *   KGATE is the binary; PKI_DIR holds server.crt/server.key (kgate's serving pair), ca.crt
 *   (which signed it and the client certificates) and admin.crt/admin.key; PREFIX is where the
 *   runs' prefixes go (PREFIX/start-N). KGATE_LOG (default /dev/null) takes kgate's output.
 *   BENCH_START_RUNS (default 20) sets the number of measured runs.
 * A kgate that exits, or is not ready within LIMIT_S, ends the run with exit status 1.
 */

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <netinet/in.h>
#include <netinet/tcp.h>

#include "bench.h"

#define POLL_US 200
#define LIMIT_S 10
#define DEFAULT_RUNS 20

typedef struct {
    const char *kgate, *pki, *log;
    char **flags; /* the extra flags, NULL-ended */
    econn_t etcd;
    const char *prefix;
} setup_t;

/* A loopback port nobody listens on right now. */
static int
free_port(void)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    int fd = socket(AF_INET, SOCK_STREAM, 0);

    if (fd < 0 || bind(fd, (struct sockaddr *)&a, len) != 0 ||
        getsockname(fd, (struct sockaddr *)&a, &len) != 0)
        die("cannot find a free port: %s", strerror(errno));
    close(fd);
    return ntohs(a.sin_port);
}

/* Start kgate on port with etcd prefix `prefix`; its output goes to s->log. */
static pid_t
spawn(const setup_t *s, int port, const char *prefix, const char *etcd_url)
{
    char *fixed[] = {
        gw_sprintf("--secure-port=%d", port),
        gw_sprintf("--etcd-servers=%s", etcd_url),
        gw_sprintf("--etcd-prefix=%s", prefix),
        gw_sprintf("--tls-cert-file=%s/server.crt", s->pki),
        gw_sprintf("--tls-private-key-file=%s/server.key", s->pki),
        gw_sprintf("--client-ca-file=%s/ca.crt", s->pki),
    };
    size_t n_fixed = sizeof fixed / sizeof fixed[0], n_flags = 0;
    pid_t pid;

    while (s->flags[n_flags] != NULL)
        n_flags++;
    char **argv = gw_calloc(n_fixed + n_flags + 3, sizeof *argv);
    static char bind[] = "--bind-address=127.0.0.1";
    argv[0] = (char *)s->kgate;
    argv[1] = bind;
    memcpy(argv + 2, fixed, sizeof fixed);
    memcpy(argv + 2 + n_fixed, s->flags, n_flags * sizeof *argv);
    pid = fork();
    if (pid == 0) {
        int fd = open(s->log, O_WRONLY | O_CREAT | O_APPEND, 0644);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
        }
        execv(s->kgate, argv);
        _exit(127);
    }
    if (pid < 0)
        die("fork: %s", strerror(errno));
    for (size_t i = 0; i < n_fixed; i++)
        free(fixed[i]);
    free(argv);
    return pid;
}

/* A TCP connection to k, or -1 while nothing listens there. */
static int
try_connect(const kgate_addr_t *k)
{
    int fd = socket(k->addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;

    if (fd < 0)
        die("socket: %s", strerror(errno));
    if (connect(fd, (const struct sockaddr *)&k->addr, (socklen_t)k->addr_len) == 0) {
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        return fd;
    }
    if (errno != ECONNREFUSED)
        die("connect %s: %s", k->authority, strerror(errno));
    close(fd);
    return -1;
}

/* Read the rest of one answer on ssl (blocking; `have` bytes already in buf); its status, or
 * -1 when the connection broke. */
static int
read_answer(SSL *ssl, char *buf, size_t cap)
{
    size_t have = 0, body_len;
    char *end = NULL, *cl;
    int status, n;

    while (end == NULL) {
        if (have + 1 >= cap || (n = SSL_read(ssl, buf + have, (int)(cap - 1 - have))) <= 0)
            return -1;
        have += (size_t)n;
        buf[have] = '\0';
        end = strstr(buf, "\r\n\r\n");
    }
    if (sscanf(buf, "HTTP/1.1 %d", &status) != 1)
        return -1;
    cl = strcasestr(buf, "\r\nContent-Length:");
    body_len = cl != NULL && cl < end ? strtoul(cl + 17, NULL, 10) : 0;
    for (size_t got = have - (size_t)(end + 4 - buf); got < body_len; got += (size_t)n) {
        if ((n = SSL_read(ssl, buf, (int)(cap - 1))) <= 0)
            return -1;
    }
    return status;
}

/* GET /readyz on ssl; its status, or -1 when the connection broke. */
static int
readyz(SSL *ssl, const kgate_addr_t *k)
{
    char req[256], buf[8192];
    int n = snprintf(req, sizeof req, "GET /readyz HTTP/1.1\r\nHost: %s\r\n\r\n", k->authority);

    if (SSL_write(ssl, req, n) != n)
        return -1;
    return read_answer(ssl, buf, sizeof buf);
}

/* Dies when kgate has exited (showing where its output went). */
static void
check_alive(const setup_t *s, pid_t pid)
{
    int status;

    if (waitpid(pid, &status, WNOHANG) == pid)
        die("kgate exited (status %d) before it was ready; its output is in %s", status, s->log);
}

typedef struct {
    SSL *ssl;
    int fd;
} tls_conn_t;

/* Connected and through the TLS handshake, or {NULL, -1} while nothing listens. */
static tls_conn_t
tls_open(const kgate_addr_t *k)
{
    tls_conn_t c = {NULL, try_connect(k)};

    if (c.fd < 0)
        return c;
    c.ssl = kgate_ssl_new(k);
    SSL_set_fd(c.ssl, c.fd);
    if (SSL_connect(c.ssl) != 1) { /* accepted before the workers took over: try again */
        SSL_free(c.ssl);
        close(c.fd);
        c = (tls_conn_t){NULL, -1};
    }
    return c;
}

static void
tls_close(tls_conn_t *c)
{
    if (c->ssl != NULL)
        SSL_free(c->ssl);
    if (c->fd >= 0)
        close(c->fd);
    *c = (tls_conn_t){NULL, -1};
}

/* One start: ns from the fork to the first answer and to the first /readyz 200. */
static void
one_run(setup_t *s, const char *etcd_url, int run, int64_t *first_ns, int64_t *ready_ns)
{
    int port = free_port();
    char *url = gw_sprintf("https://127.0.0.1:%d", port);
    char *prefix = gw_sprintf("%s/start-%d", s->prefix, run);
    char *leader = gw_sprintf("/kgate/leader%s/", prefix);
    char *keys = gw_sprintf("%s/", prefix);
    kgate_addr_t k;
    tls_conn_t c = {NULL, -1};
    int status = 0;

    kgate_addr_init(&k, url, s->pki);
    if (econn_count_prefix(&s->etcd, keys) != 0)
        die("%s is not empty", keys);
    int64_t start = now_ns(), limit = start + (int64_t)LIMIT_S * 1000000000;
    pid_t pid = spawn(s, port, prefix, etcd_url);
    *first_ns = 0;
    while (status != 200) {
        if (now_ns() > limit)
            die("kgate was not ready within %d s; its output is in %s", LIMIT_S, s->log);
        check_alive(s, pid);
        if (c.ssl == NULL)
            c = tls_open(&k);
        status = c.ssl != NULL ? readyz(c.ssl, &k) : -1;
        if (status > 0 && *first_ns == 0)
            *first_ns = now_ns() - start;
        if (status < 0)
            tls_close(&c);
        if (status != 200)
            usleep(POLL_US);
    }
    *ready_ns = now_ns() - start;
    tls_close(&c);
    kill(pid, SIGTERM);
    waitpid(pid, NULL, 0);
    econn_delete_prefix(&s->etcd, keys);
    econn_delete_prefix(&s->etcd, leader);
    SSL_CTX_free(k.tls);
    free(url);
    free(prefix);
    free(leader);
    free(keys);
}

static int
parse_runs(void)
{
    const char *env = getenv("BENCH_START_RUNS");
    char *end;
    long n = env != NULL ? strtol(env, &end, 10) : DEFAULT_RUNS;

    if (env != NULL && (end == env || *end != '\0' || n < 1 || n > 10000))
        die("BENCH_START_RUNS must be a number of runs, not '%s'", env);
    return (int)n;
}

static int
ns_cmp(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

    return (x > y) - (x < y);
}

/* The q-quantile of n samples (sorted here), in ms: few samples, so exact. */
static double
quantile_ms(int64_t *v, int n, double q)
{
    int rank = (int)ceil(q * n);

    qsort(v, (size_t)n, sizeof *v, ns_cmp);
    return (double)v[rank > 0 ? rank - 1 : 0] / 1e6;
}

int
main(int argc, char **argv)
{
    setup_t s = {.log = getenv("KGATE_LOG") ? getenv("KGATE_LOG") : "/dev/null"};
    int runs = parse_runs();
    int64_t *first = gw_calloc((size_t)runs, sizeof *first);
    int64_t *ready = gw_calloc((size_t)runs, sizeof *ready);

    if (argc < 5)
        die("usage: bench_start KGATE PKI_DIR ETCD_URL PREFIX [KGATE_FLAGS...]");
    signal(SIGPIPE, SIG_IGN);
    s.kgate = argv[1];
    s.pki = argv[2];
    s.prefix = argv[4];
    s.flags = argv + 5;
    econn_open(&s.etcd, argv[3]);
    for (int i = 0; i <= runs; i++) {
        int64_t f, r;
        one_run(&s, argv[3], i, &f, &r);
        if (i > 0) { /* the first brings the binary's pages and etcd's connections in */
            first[i - 1] = f;
            ready[i - 1] = r;
        }
    }
    printf("start-up of %s on an empty etcd prefix, %d runs (after one unmeasured), polled "
           "every %d us; %ld CPUs shared by etcd, kgate and this client\n",
           s.kgate, runs, POLL_US, sysconf(_SC_NPROCESSORS_ONLN));
    printf("from process start to                p50 ms   p99 ms\n");
    printf("first answered request (any status)  %7.1f  %7.1f\n", quantile_ms(first, runs, 0.50),
           quantile_ms(first, runs, 0.99));
    printf("first /readyz 200                    %7.1f  %7.1f\n", quantile_ms(ready, runs, 0.50),
           quantile_ms(ready, runs, 0.99));
    econn_close(&s.etcd);
    free(first);
    free(ready);
    return 0;
}
