#include "gw_server.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <event2/event.h>

#include "gw_alloc.h"
#include "gw_err.h"
#include "gw_log.h"
#include "gw_server_int.h"

/* The kernel caps it at net.core.somaxconn, the backlog Go's listener asks for (a burst of
 * watchers reconnecting after a restart is what fills it). */
#define LISTEN_BACKLOG 65535

/* "1.2.3.4:443" or "[::1]:443". */
static void
format_hostport(char *buf, size_t len, const char *addr, int port)
{
    if (strchr(addr, ':') != NULL)
        snprintf(buf, len, "[%s]:%d", addr, port);
    else
        snprintf(buf, len, "%s:%d", addr, port);
}

static int
open_listener(const struct addrinfo *ai)
{
    int one = 1;
    int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    /* TCP_NODELAY on the listener is inherited by every accepted socket: without it, Nagle
     * and delayed ACKs stall each TLS response by tens of milliseconds. */
    if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) != 0 ||
        bind(fd, ai->ai_addr, ai->ai_addrlen) != 0 || listen(fd, LISTEN_BACKLOG) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

static int
listen_on(const char *addr, int port, int *out_fd, char *err, size_t err_len)
{
    struct addrinfo hints = {.ai_family = AF_UNSPEC,
                             .ai_socktype = SOCK_STREAM,
                             .ai_flags = AI_PASSIVE | AI_NUMERICHOST | AI_NUMERICSERV};
    struct addrinfo *ai = NULL;
    char service[16], where[80];
    snprintf(service, sizeof(service), "%d", port);
    format_hostport(where, sizeof(where), addr, port);
    int gai = getaddrinfo(addr, service, &hints, &ai);
    if (gai != 0) {
        snprintf(err, err_len, "cannot listen on %s: %s", where, gai_strerror(gai));
        return GW_EINVAL;
    }
    *out_fd = open_listener(ai);
    freeaddrinfo(ai);
    if (*out_fd < 0) {
        snprintf(err, err_len, "cannot listen on %s: %s", where, strerror(errno));
        return GW_EINVAL;
    }
    return 0;
}

/* Every watch holds a connection for minutes: raise the soft limit on descriptors to the hard
 * one, as Go's runtime does at start-up for kube-apiserver. */
static void
raise_nofile(void)
{
    struct rlimit rl;

    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur >= rl.rlim_max)
        return;
    rl.rlim_cur = rl.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
        gw_log_warn(NULL, "cannot raise the descriptor limit to %llu: %s",
                    (unsigned long long)rl.rlim_max, strerror(errno));
}

static void
start_workers(gw_server_t *s)
{
    for (int i = 0; i < s->n_workers; i++) {
        gw_worker_t *w = &s->workers[i];
        w->srv = s;
        w->index = i;
        /* Each worker's evhttp closes the fd it was given: give each its own. */
        w->listen_fd = fcntl(s->listen_fd, F_DUPFD_CLOEXEC, 0);
        if (w->listen_fd < 0 || pthread_create(&w->thread, NULL, gw_server__worker_main, w) != 0) {
            gw_log_error(NULL, "cannot start worker %d: %s", i, strerror(errno));
            abort(); /* out of threads or descriptors at startup: nothing sane to fall back to */
        }
    }
    pthread_mutex_lock(&s->lock);
    while (s->ready < s->n_workers)
        pthread_cond_wait(&s->cond, &s->lock);
    pthread_mutex_unlock(&s->lock);
}

int
gw_server_start(const gw_server_opts_t *opts, gw_server_t **out, char *err, size_t err_len)
{
    int fd;
    int rc;

    raise_nofile();
    rc = listen_on(opts->bind_address, opts->port, &fd, err, err_len);
    if (rc != 0)
        return rc;
    gw_server_t *s = gw_calloc(1, sizeof(*s));
    s->opts = *opts;
    gw_server__alpn_setup(opts->tls);
    s->listen_fd = fd;
    s->n_workers = opts->workers;
    s->workers = gw_calloc((size_t)s->n_workers, sizeof(*s->workers));
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->cond, NULL);
    start_workers(s);
    close(s->listen_fd); /* the workers hold their own descriptors of the socket */
    char where[80];
    format_hostport(where, sizeof(where), opts->bind_address, opts->port);
    gw_log_info(NULL, "kgate listening on https://%s with %d workers", where, s->n_workers);
    *out = s;
    return 0;
}

void
gw_server_stop(gw_server_t *s, int64_t drain_ms)
{
    for (int i = 0; i < s->n_workers; i++) {
        s->workers[i].drain_ms = drain_ms;
        event_active(s->workers[i].stop_ev, EV_READ, 0);
    }
    for (int i = 0; i < s->n_workers; i++)
        pthread_join(s->workers[i].thread, NULL);
    pthread_cond_destroy(&s->cond);
    pthread_mutex_destroy(&s->lock);
    free(s->workers);
    free(s);
}

int
gw_worker_index(const gw_worker_t *w)
{
    return w->index;
}

struct event_base *
gw_worker_base(const gw_worker_t *w)
{
    return w->base;
}

gw_timers_t *
gw_worker_timers(const gw_worker_t *w)
{
    return w->timers;
}

etcd_conn_t *
gw_worker_etcd(const gw_worker_t *w)
{
    return w->etcd;
}
