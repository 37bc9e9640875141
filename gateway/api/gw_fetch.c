/*
 * HTTPS exchanges for the authenticators: evhttp's client over an OpenSSL bufferevent. Each
 * exchange builds its own TLS context (they are rare: identity provider keys and webhook
 * verdicts are cached by authn) and its own connection, which evhttp frees once the request
 * is over.
 */
#include "gw_clock.h"
#include "gw_fetch.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/bufferevent_ssl.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include "gw_alloc.h"
#include "gw_err.h"

#define DEFAULT_TIMEOUT_MS 10000
#define DEFAULT_MAX_BODY (4u << 20)
#define MAX_HEADERS (64u << 10)
#define IDLE_MAX 128 /* kept-alive connections waiting for their next exchange, all loops */

typedef struct {
    gw_fetch_cb cb;
    void *ctx;
    int err; /* a refusal before the exchange, or what evhttp's error callback said */
    struct event_base *base;
    struct evhttp_connection *conn;
    int64_t deadline_ms;  /* monotonic: a failure past it is a timeout */
    char *reuse_key;      /* a kept-alive exchange: where its connection goes back */
    bool reused;          /* the connection served an exchange before */
    gw_fetch_req_t again; /* a reused connection's exchange, copied to retry it on a new one */
} fetch_t;

/* ---- kept-alive connections ---------------------------------------------------------------- */

/* Idle connections, each owned by the loop it was made on. A global table (not per thread)
 * so that what is idle at exit stays reachable. */
typedef struct {
    char *key;
    struct event_base *base;
    struct evhttp_connection *conn;
} idle_t;

static pthread_mutex_t idle_lock = PTHREAD_MUTEX_INITIALIZER;
static idle_t idle[IDLE_MAX];

static void
free_conn(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    evhttp_connection_free(arg);
}

static void
free_conn_later(struct event_base *base, struct evhttp_connection *conn)
{
    static const struct timeval now = {0, 0};

    if (event_base_once(base, -1, EV_TIMEOUT, free_conn, conn, &now) != 0)
        abort(); /* only fails for lack of memory */
}

/* Remove conn from the table; whether it was there. */
static bool
idle_remove(struct evhttp_connection *conn)
{
    bool found = false;

    pthread_mutex_lock(&idle_lock);
    for (size_t i = 0; i < IDLE_MAX && !found; i++) {
        if (idle[i].conn == conn) {
            free(idle[i].key);
            idle[i] = (idle_t){0};
            found = true;
        }
    }
    pthread_mutex_unlock(&idle_lock);
    return found;
}

/* An idle connection closed by its server: gone from the table, freed outside evhttp. */
static void
idle_closed(struct evhttp_connection *conn, void *arg)
{
    (void)arg;
    if (idle_remove(conn)) {
        evhttp_connection_set_closecb(conn, NULL, NULL);
        free_conn_later(evhttp_connection_get_base(conn), conn);
    }
}

static struct evhttp_connection *
idle_take(struct event_base *base, const char *key)
{
    struct evhttp_connection *conn = NULL;

    pthread_mutex_lock(&idle_lock);
    for (size_t i = 0; i < IDLE_MAX && conn == NULL; i++) {
        if (idle[i].conn != NULL && idle[i].base == base && strcmp(idle[i].key, key) == 0) {
            conn = idle[i].conn;
            free(idle[i].key);
            idle[i] = (idle_t){0};
        }
    }
    pthread_mutex_unlock(&idle_lock);
    if (conn != NULL)
        evhttp_connection_set_closecb(conn, NULL, NULL);
    return conn;
}

/* A connection done with its exchange: kept for the next one, or freed when the table is
 * full. */
static void
idle_put(struct event_base *base, const char *key, struct evhttp_connection *conn)
{
    size_t i;

    pthread_mutex_lock(&idle_lock);
    for (i = 0; i < IDLE_MAX && idle[i].conn != NULL; i++)
        ;
    if (i < IDLE_MAX)
        idle[i] = (idle_t){.key = gw_strdup(key), .base = base, .conn = conn};
    pthread_mutex_unlock(&idle_lock);
    if (i == IDLE_MAX)
        free_conn_later(base, conn);
    else
        evhttp_connection_set_closecb(conn, idle_closed, NULL);
}

/* What a kept-alive connection is for: the name, the place and the CAs. */
static char *
reuse_key(const gw_fetch_req_t *q, const struct evhttp_uri *uri)
{
    uint64_t h = 1469598103934665603u; /* FNV-1a of the CAs */

    for (const char *p = q->ca_pem ? q->ca_pem : ""; *p != '\0'; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211u;
    return gw_sprintf("%s|%s:%d|%s:%d|%016llx", q->reuse, evhttp_uri_get_host(uri),
                      evhttp_uri_get_port(uri), q->connect_host ? q->connect_host : "",
                      q->connect_port, (unsigned long long)h);
}

static char *
dup_or_null(const char *s)
{
    return s != NULL ? gw_strdup(s) : NULL;
}

/* The exchange kept to retry it (strings copied). */
static void
keep_request(fetch_t *f, const gw_fetch_req_t *q)
{
    f->again = *q;
    f->again.method = gw_strdup(q->method);
    f->again.url = gw_strdup(q->url);
    f->again.body = q->body != NULL ? gw_memdup(q->body, q->body_len) : NULL;
    f->again.ca_pem = dup_or_null(q->ca_pem);
    f->again.cert_pem = dup_or_null(q->cert_pem);
    f->again.key_pem = dup_or_null(q->key_pem);
    f->again.bearer_token = dup_or_null(q->bearer_token);
    f->again.connect_host = dup_or_null(q->connect_host);
    f->again.reuse = NULL; /* the retry takes a new connection */
}

static void
fetch_free(fetch_t *f)
{
    free(f->reuse_key);
    free((char *)f->again.method);
    free((char *)f->again.url);
    free((char *)f->again.body);
    free((char *)f->again.ca_pem);
    free((char *)f->again.cert_pem);
    free((char *)f->again.key_pem);
    free((char *)f->again.bearer_token);
    free((char *)f->again.connect_host);
    free(f);
}

static void
refused(evutil_socket_t fd, short what, void *arg)
{
    fetch_t *f = arg;

    (void)fd;
    (void)what;
    f->cb(f->err, 0, NULL, 0, f->ctx);
    fetch_free(f);
}

/* The callback of a request that never started, from the loop as promised. */
static void
refuse(struct event_base *base, fetch_t *f, int err)
{
    static const struct timeval now = {0, 0};

    f->err = err;
    ERR_clear_error(); /* libevent's OpenSSL bufferevents read this thread's queue */
    if (event_base_once(base, -1, EV_TIMEOUT, refused, f, &now) != 0)
        abort(); /* only fails for lack of memory */
}

static int
load_cas(SSL_CTX *tls, const char *pem)
{
    BIO *bio = BIO_new_mem_buf(pem, -1);
    STACK_OF(X509_INFO) *infos = PEM_X509_INFO_read_bio(bio, NULL, NULL, NULL);
    int n = 0;

    for (int i = 0; infos != NULL && i < sk_X509_INFO_num(infos); i++) {
        X509_INFO *info = sk_X509_INFO_value(infos, i);
        if (info->x509 != NULL && X509_STORE_add_cert(SSL_CTX_get_cert_store(tls), info->x509))
            n++;
    }
    sk_X509_INFO_pop_free(infos, X509_INFO_free);
    BIO_free(bio);
    return n > 0 ? 0 : GW_EINVAL;
}

/* The client certificate (the leaf first, then its chain) and its key. */
static int
load_client(SSL_CTX *tls, const char *cert_pem, const char *key_pem)
{
    BIO *bio = BIO_new_mem_buf(cert_pem, -1);
    X509 *cert = PEM_read_bio_X509(bio, NULL, NULL, NULL);
    int ok = cert != NULL && SSL_CTX_use_certificate(tls, cert) == 1;
    X509 *more;

    X509_free(cert);
    while (ok && (more = PEM_read_bio_X509(bio, NULL, NULL, NULL)) != NULL) {
        if (SSL_CTX_add0_chain_cert(tls, more) != 1) {
            X509_free(more);
            ok = 0;
        }
    }
    BIO_free(bio);
    bio = BIO_new_mem_buf(key_pem, -1);
    EVP_PKEY *key = ok ? PEM_read_bio_PrivateKey(bio, NULL, NULL, NULL) : NULL;
    ok = key != NULL && SSL_CTX_use_PrivateKey(tls, key) == 1 && SSL_CTX_check_private_key(tls);
    EVP_PKEY_free(key);
    BIO_free(bio);
    return ok ? 0 : GW_EINVAL;
}

static SSL_CTX *
tls_new(const gw_fetch_req_t *q)
{
    SSL_CTX *tls = SSL_CTX_new(TLS_client_method());
    int rc = 0;

    SSL_CTX_set_min_proto_version(tls, TLS1_2_VERSION);
    SSL_CTX_set_verify(tls, SSL_VERIFY_PEER, NULL);
    if (q->ca_pem != NULL)
        rc = load_cas(tls, q->ca_pem);
    else if (SSL_CTX_set_default_verify_paths(tls) != 1)
        rc = GW_EINVAL;
    if (rc == 0 && (q->cert_pem != NULL) != (q->key_pem != NULL))
        rc = GW_EINVAL;
    if (rc == 0 && q->cert_pem != NULL)
        rc = load_client(tls, q->cert_pem, q->key_pem);
    if (rc != 0) {
        SSL_CTX_free(tls);
        return NULL;
    }
    return tls;
}

/* A TLS session that checks the certificate names `host` (an IP literal or a DNS name, the
 * latter also sent as SNI). */
static SSL *
ssl_new(SSL_CTX *tls, const char *host)
{
    SSL *ssl = SSL_new(tls);
    X509_VERIFY_PARAM *param = SSL_get0_param(ssl);

    if (X509_VERIFY_PARAM_set1_ip_asc(param, host) == 1)
        return ssl;
    SSL_set_tlsext_host_name(ssl, host);
    X509_VERIFY_PARAM_set_hostflags(param, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
    if (X509_VERIFY_PARAM_set1_host(param, host, 0) != 1) {
        SSL_free(ssl);
        return NULL;
    }
    return ssl;
}

static void
request_error(enum evhttp_request_error e, void *arg)
{
    fetch_t *f = arg;

    f->err = e == EVREQ_HTTP_TIMEOUT         ? GW_ETIMEOUT
             : e == EVREQ_HTTP_DATA_TOO_LONG ? GW_ETOOLARGE
                                             : GW_EUNAVAILABLE;
}

/* evhttp's request callback: once per request, req NULL when it failed. The connection goes
 * once evhttp is done with it (its own auto-free misses failed connects). */
static void
request_done(struct evhttp_request *req, void *arg)
{
    fetch_t *f = arg;
    int status = req != NULL ? evhttp_request_get_response_code(req) : 0;
    const char *conn_hdr =
        req != NULL ? evhttp_find_header(evhttp_request_get_input_headers(req), "Connection")
                    : NULL;

    if (status != 0 && f->reuse_key != NULL &&
        (conn_hdr == NULL || evutil_ascii_strcasecmp(conn_hdr, "close") != 0))
        idle_put(f->base, f->reuse_key, f->conn);
    else
        free_conn_later(f->base, f->conn);
    if (status == 0 && f->reused && gw_monotonic_ms() < f->deadline_ms) {
        /* the server may have closed the kept-alive connection as it was reused */
        gw_fetch(f->base, &f->again, f->cb, f->ctx);
        fetch_free(f);
        return;
    }

    if (status == 0) {
        /* evhttp reports a connect or handshake that timed out as a bare failure */
        if (f->err == 0)
            f->err = gw_monotonic_ms() >= f->deadline_ms ? GW_ETIMEOUT : GW_EUNAVAILABLE;
        f->cb(f->err, 0, NULL, 0, f->ctx);
    } else {
        struct evbuffer *in = evhttp_request_get_input_buffer(req);
        size_t len = evbuffer_get_length(in);
        char *body = gw_malloc(len + 1);
        evbuffer_remove(in, body, len);
        body[len] = '\0';
        f->cb(0, status, body, len, f->ctx);
        free(body);
    }
    fetch_free(f);
}

static void
add_headers(struct evhttp_request *req, const struct evhttp_uri *uri, const gw_fetch_req_t *q)
{
    struct evkeyvalq *h = evhttp_request_get_output_headers(req);
    int port = evhttp_uri_get_port(uri);
    char *host = port > 0 ? gw_sprintf("%s:%d", evhttp_uri_get_host(uri), port)
                          : gw_strdup(evhttp_uri_get_host(uri));

    evhttp_add_header(h, "Host", host);
    free(host);
    evhttp_add_header(h, "Accept", "application/json");
    evhttp_add_header(h, "User-Agent", "kgate");
    if (q->reuse == NULL)
        evhttp_add_header(h, "Connection", "close");
    if (q->bearer_token != NULL) {
        char *auth = gw_sprintf("Bearer %s", q->bearer_token);
        evhttp_add_header(h, "Authorization", auth);
        free(auth);
    }
    if (q->body != NULL) {
        evhttp_add_header(h, "Content-Type", "application/json");
        evbuffer_add(evhttp_request_get_output_buffer(req), q->body, q->body_len);
    }
}

/* The connection to the URL's host over TLS, or NULL. */
static struct evhttp_connection *
connect_tls(struct event_base *base, const struct evhttp_uri *uri, const gw_fetch_req_t *q)
{
    const char *host = evhttp_uri_get_host(uri);
    char *bare = host[0] == '[' ? gw_strndup(host + 1, strcspn(host + 1, "]")) : gw_strdup(host);
    int port = evhttp_uri_get_port(uri);
    SSL_CTX *tls = tls_new(q);
    SSL *ssl = tls != NULL ? ssl_new(tls, bare) : NULL;
    struct evhttp_connection *conn = NULL;

    SSL_CTX_free(tls); /* the session holds its own reference */
    if (ssl != NULL) {
        struct bufferevent *bev =
            bufferevent_openssl_socket_new(base, -1, ssl, BUFFEREVENT_SSL_CONNECTING,
                                           BEV_OPT_CLOSE_ON_FREE | BEV_OPT_DEFER_CALLBACKS);
        /* An answer that ends with the connection is complete even without close_notify. */
        bufferevent_openssl_set_allow_dirty_shutdown(bev, 1);
        if (q->connect_host != NULL)
            conn = evhttp_connection_base_bufferevent_new(base, NULL, bev, q->connect_host,
                                                          q->connect_port);
        else
            conn = evhttp_connection_base_bufferevent_new(base, NULL, bev, bare,
                                                          port > 0 ? port : 443);
    }
    free(bare);
    return conn;
}

static void
configure(fetch_t *f, struct evhttp_connection *conn, const gw_fetch_req_t *q)
{
    int ms = q->timeout_ms > 0 ? q->timeout_ms : DEFAULT_TIMEOUT_MS;
    struct timeval tv = {ms / 1000, (ms % 1000) * 1000};

    f->conn = conn;
    f->deadline_ms = gw_monotonic_ms() + ms;
    evhttp_connection_set_timeout_tv(conn, &tv);
    evhttp_connection_set_max_body_size(conn, q->max_body > 0 ? q->max_body : DEFAULT_MAX_BODY);
    evhttp_connection_set_max_headers_size(conn, MAX_HEADERS);
    evhttp_connection_set_retries(conn, 0);
}

/* Nagle off once the socket exists (evhttp makes it as the request starts): a request's head
 * and body, and TLS records, go out as separate writes, and each would otherwise wait for the
 * server's delayed ACK of the one before. */
static void
no_delay(struct evhttp_connection *conn)
{
    struct bufferevent *bev = evhttp_connection_get_bufferevent(conn);
    evutil_socket_t fd = bev != NULL ? bufferevent_getfd(bev) : -1;
    int one = 1;

    if (fd >= 0)
        (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

static char *
path_of(const struct evhttp_uri *uri)
{
    const char *path = evhttp_uri_get_path(uri);
    const char *query = evhttp_uri_get_query(uri);

    if (path == NULL || path[0] == '\0')
        path = "/";
    return query != NULL ? gw_sprintf("%s?%s", path, query) : gw_strdup(path);
}

void
gw_fetch(struct event_base *base, const gw_fetch_req_t *q, gw_fetch_cb cb, void *ctx)
{
    fetch_t *f = gw_calloc(1, sizeof(*f));
    struct evhttp_uri *uri = evhttp_uri_parse(q->url);
    const char *scheme = uri != NULL ? evhttp_uri_get_scheme(uri) : NULL;
    int post = strcmp(q->method, "POST") == 0;
    struct evhttp_connection *conn = NULL;

    f->cb = cb;
    f->ctx = ctx;
    f->base = base;
    if (scheme != NULL && strcmp(scheme, "https") == 0 && evhttp_uri_get_host(uri) != NULL &&
        evhttp_uri_get_host(uri)[0] != '\0' && (post || strcmp(q->method, "GET") == 0)) {
        if (q->reuse != NULL) {
            f->reuse_key = reuse_key(q, uri);
            conn = idle_take(base, f->reuse_key);
            f->reused = conn != NULL;
            if (f->reused)
                keep_request(f, q);
        }
        if (conn == NULL)
            conn = connect_tls(base, uri, q);
    }
    if (conn == NULL) {
        refuse(base, f, GW_EINVAL);
        goto out;
    }
    configure(f, conn, q);
    struct evhttp_request *req = evhttp_request_new(request_done, f);
    evhttp_request_set_error_cb(req, request_error);
    add_headers(req, uri, q);
    char *path = path_of(uri);
    int rc = evhttp_make_request(conn, req, post ? EVHTTP_REQ_POST : EVHTTP_REQ_GET, path);
    free(path);
    no_delay(conn);
    if (rc != 0) { /* only for lack of memory; the request was not queued */
        evhttp_request_free(req);
        evhttp_connection_free(conn);
        refuse(base, f, GW_EUNAVAILABLE);
        goto out;
    }
out:
    if (uri != NULL)
        evhttp_uri_free(uri);
}
