/*
 * bench_webhook: what admission webhooks cost a create.
 *
 * Creates of a 2 KiB ConfigMap through kgate (a name of its own each, one HTTPS keep-alive
 * connection per caller, 16 callers, closed-loop) under five sets of webhook configurations
 * measured one after the other in the same run: none (the baseline), 1 and 3 validating
 * webhooks that match the creates, 1 and 3 mutating ones. Every webhook is served by this
 * program's own loopback HTTPS server (libevent, on a thread of its own), which answers at
 * once with `allowed: true` and no patch, so a row measures what kgate adds: the selection,
 * the review, the call and the check of the answer.
 *
 * Before each set is measured it must be in force: dry-run creates go until one calls the
 * server as many times as the set has webhooks (sideEffects None: a dry run calls them), and
 * after a set is deleted until one calls it no more. Each row gives creates/s, p50, p99 and
 * creates/s as a ratio of the baseline's.
 *
 * Usage: bench_webhook https://IP:PORT PKI_DIR
 *   PKI_DIR holds ca.crt, server.crt/server.key (a serving certificate for 127.0.0.1, which the
 *   webhook server presents too) and admin.crt/admin.key (a system:masters client
 *   certificate). The objects go into namespace bench-webhook, which must not exist yet; it and
 *   the configurations are deleted at the end. BENCH_SECONDS as for every benchmark (bench.h).
 *   Any failed or unexpected answer ends the run with exit status 1.
 */

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <netinet/tcp.h>

#include <event2/buffer.h>
#include <event2/bufferevent_ssl.h>
#include <event2/event.h>
#include <event2/http.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>

#include "bench.h"
#include "gw_alloc.h"

#define NAMESPACE "bench-webhook"
#define NS_PATH "/api/v1/namespaces/" NAMESPACE
#define CONFIGMAPS NS_PATH "/configmaps"
#define ARV "/apis/admissionregistration.k8s.io/v1"
#define CM_SIZE 2048 /* bytes of the ConfigMap sent */
#define CONC 16
#define MAX_HOOKS 3
#define IN_FORCE_S 30

/* ---- the webhook server ------------------------------------------------------------------ */

static atomic_ulong calls; /* reviews answered */

static void
review(struct evhttp_request *req, void *arg)
{
    struct evbuffer *in = evhttp_request_get_input_buffer(req), *out = evbuffer_new();
    size_t n = evbuffer_get_length(in);
    char *body = gw_malloc(n + 1), *uid;
    (void)arg;

    evbuffer_remove(in, body, n);
    body[n] = '\0';
    uid = strstr(body, "\"uid\":\""); /* the request's own uid comes first */
    if (uid == NULL) {
        evhttp_send_error(req, 400, "no uid");
        free(body);
        evbuffer_free(out);
        return;
    }
    uid += 7;
    *strchr(uid, '"') = '\0';
    evbuffer_add_printf(out,
                        "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\","
                        "\"response\":{\"uid\":\"%s\",\"allowed\":true}}",
                        uid);
    evhttp_add_header(evhttp_request_get_output_headers(req), "Content-Type", "application/json");
    evhttp_send_reply(req, 200, "OK", out);
    atomic_fetch_add(&calls, 1);
    evbuffer_free(out);
    free(body);
}

static struct bufferevent *
tls_accept(struct event_base *base, void *arg)
{
    return bufferevent_openssl_socket_new(base, -1, SSL_new(arg), BUFFEREVENT_SSL_ACCEPTING,
                                          BEV_OPT_CLOSE_ON_FREE);
}

static void *
serve(void *arg)
{
    event_base_dispatch(arg);
    return NULL;
}

/* Start the server on a free loopback port; returns the port. */
static int
hook_start(const char *pki)
{
    struct event_base *base = event_base_new();
    struct evhttp *http = evhttp_new(base);
    SSL_CTX *tls = SSL_CTX_new(TLS_server_method());
    char *crt = gw_sprintf("%s/server.crt", pki), *key = gw_sprintf("%s/server.key", pki);
    struct evhttp_bound_socket *sock;
    struct sockaddr_in sa;
    socklen_t len = sizeof sa;
    pthread_t t;

    if (SSL_CTX_use_certificate_chain_file(tls, crt) != 1 ||
        SSL_CTX_use_PrivateKey_file(tls, key, SSL_FILETYPE_PEM) != 1)
        die("cannot load %s", crt);
    free(crt), free(key);
    evhttp_set_bevcb(http, tls_accept, tls);
    evhttp_set_gencb(http, review, NULL);
    sock = evhttp_bind_socket_with_handle(http, "127.0.0.1", 0);
    if (sock == NULL ||
        getsockname(evhttp_bound_socket_get_fd(sock), (struct sockaddr *)&sa, &len) != 0)
        die("cannot listen");
    /* Nagle off, inherited by the accepted sockets, as kgate's own listener has it */
    setsockopt(evhttp_bound_socket_get_fd(sock), IPPROTO_TCP, TCP_NODELAY, &(int){1}, sizeof(int));
    if (pthread_create(&t, NULL, serve, base) != 0)
        die("cannot start the webhook server");
    pthread_detach(t);
    return ntohs(sa.sin_port);
}

/* ---- the configurations ------------------------------------------------------------------ */

typedef struct {
    const char *name;
    int validating, mutating;
} config_t;

static const config_t configs[] = {
    {"none", 0, 0},       {"1 validating", 1, 0}, {"3 validating", 3, 0},
    {"1 mutating", 0, 1}, {"3 mutating", 0, 3},
};
#define N_CONFIGS (sizeof configs / sizeof configs[0])
static const char *const op_names[] = {"create-none", "create-1-validating", "create-3-validating",
                                       "create-1-mutating", "create-3-mutating"};

typedef struct {
    evdriver_t ev;
    kgate_addr_t k;
    https_conn_t conns[MAX_CONC];
    char *owned[MAX_CONC];
    unsigned seq[MAX_CONC];
    size_t ref_len;
    int hook_port;
    char *ca_b64;
} http_t;

static int
call(http_t *h, const char *method, const char *path, const char *body, int want)
{
    char *req =
        https_request(&(https_req_t){.k = &h->k, .method = method, .path = path, .body = body});
    struct evbuffer *out;
    int status = https_call(&h->conns[0], req, want, &out);

    evbuffer_free(out);
    free(req);
    return status;
}

/* A configuration of n webhooks on configmap creates in the bench namespace. */
static char *
config_json(const http_t *h, bool mutating, int n)
{
    char *hooks = gw_strdup(""), *doc;

    for (int i = 0; i < n; i++) {
        char *next = gw_sprintf(
            "%s%s{\"name\":\"h%d.bench.example.com\",\"clientConfig\":{\"url\":"
            "\"https://127.0.0.1:%d/review\",\"caBundle\":\"%s\"},\"rules\":[{\"operations\":"
            "[\"CREATE\"],\"apiGroups\":[\"\"],\"apiVersions\":[\"v1\"],\"resources\":"
            "[\"configmaps\"]}],\"namespaceSelector\":{\"matchLabels\":{"
            "\"kubernetes.io/metadata.name\":\"" NAMESPACE "\"}},\"sideEffects\":\"None\","
            "\"admissionReviewVersions\":[\"v1\"]}",
            hooks, i ? "," : "", i, h->hook_port, h->ca_b64);
        free(hooks);
        hooks = next;
    }
    doc = gw_sprintf("{\"apiVersion\":\"admissionregistration.k8s.io/v1\",\"kind\":\"%s\","
                     "\"metadata\":{\"name\":\"bench-webhooks\"},\"webhooks\":[%s]}",
                     mutating ? "MutatingWebhookConfiguration" : "ValidatingWebhookConfiguration",
                     hooks);
    free(hooks);
    return doc;
}

static void
set_config(http_t *h, const config_t *cfg, bool create)
{
    for (int m = 0; m < 2; m++) {
        int n = m ? cfg->mutating : cfg->validating;
        const char *plural =
            m ? ARV "/mutatingwebhookconfigurations" : ARV "/validatingwebhookconfigurations";
        if (n == 0)
            continue;
        if (create) {
            char *doc = config_json(h, m, n);
            call(h, "POST", plural, doc, 201);
            free(doc);
        } else {
            char *path = gw_sprintf("%s/bench-webhooks", plural);
            call(h, "DELETE", path, NULL, 200);
            free(path);
        }
    }
}

/* Dry-run creates until one calls the server `want` times. */
static void
await_calls(http_t *h, unsigned long want, const char *what)
{
    char *body = gw_sprintf("{\"metadata\":{\"name\":\"probe\"},\"data\":{\"k\":\"v\"}}");
    int64_t until = now_ns() + (int64_t)IN_FORCE_S * 1000000000;

    while (now_ns() < until) {
        unsigned long before = atomic_load(&calls);
        call(h, "POST", CONFIGMAPS "?dryRun=All", body, 201);
        if (atomic_load(&calls) - before == want) {
            free(body);
            return;
        }
        usleep(20000);
    }
    die("%s: the webhooks were not called %lu times within %d s", what, want, IN_FORCE_S);
}

static char *
create_request(const http_t *h, const char *name)
{
    char data[CM_SIZE];
    char *body, *req;

    memset(data, 'x', sizeof data);
    data[CM_SIZE - 100] = '\0';
    body =
        gw_sprintf("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"%s\"},"
                   "\"data\":{\"k\":\"%s\"}}",
                   name, data);
    req = https_request(
        &(https_req_t){.k = &h->k, .method = "POST", .path = CONFIGMAPS, .body = body});
    free(body);
    return req;
}

static void
http_start(driver_t *d, slot_t *s)
{
    http_t *h = (http_t *)d;
    char name[32];

    snprintf(name, sizeof name, "c%d-%02d-%07u", s->phase->op, s->id, h->seq[s->id]++ % 10000000u);
    free(h->owned[s->id]);
    h->owned[s->id] = create_request(h, name);
    https_send(&h->conns[s->id], h->owned[s->id], 201, h->ref_len, s);
}

static void
http_run(driver_t *d, phase_t *p)
{
    http_t *h = (http_t *)d;

    evdriver_run(d, p);
    for (int i = 0; i < p->conc; i++)
        https_close(&h->conns[i]);
}

static char *
read_b64(const char *path)
{
    FILE *f = fopen(path, "rb");
    unsigned char raw[16384];
    size_t n;
    char *out;

    if (f == NULL)
        die("cannot read %s", path);
    n = fread(raw, 1, sizeof raw, f);
    fclose(f);
    out = gw_calloc(1, 4 * ((n + 2) / 3) + 1);
    EVP_EncodeBlock((unsigned char *)out, raw, (int)n);
    return out;
}

int
main(int argc, char **argv)
{
    timing_t t;
    http_t *h;
    result_t r[N_CONFIGS];
    uint64_t errors = 0;
    char *req, *ca;

    if (argc != 3)
        die("usage: bench_webhook https://IP:PORT PKI_DIR");
    signal(SIGPIPE, SIG_IGN);
    parse_timing(&t);
    h = gw_calloc(1, sizeof *h);
    h->ev = (evdriver_t){
        .d = {.name = "kgate", .op_names = op_names, .start = http_start, .run = http_run},
        .base = event_base_new(),
    };
    kgate_addr_init(&h->k, argv[1], argv[2]);
    for (int i = 0; i < MAX_CONC; i++)
        https_conn_init(&h->conns[i], h->ev.base, &h->k);
    h->hook_port = hook_start(argv[2]);
    ca = gw_sprintf("%s/ca.crt", argv[2]);
    h->ca_b64 = read_b64(ca);
    free(ca);
    call(h, "POST", "/api/v1/namespaces", "{\"metadata\":{\"name\":\"" NAMESPACE "\"}}", 201);
    req = create_request(h, "c9-00-0000000");
    https_call(&h->conns[0], req, 201, NULL);
    h->ref_len = h->conns[0].len;
    free(req);
    printf("admission webhooks through kgate: creates of a %d-byte ConfigMap (%zu bytes "
           "answered) by the admin, %d callers over HTTPS keep-alive; each webhook a loopback "
           "HTTPS server answering at once; %.1f s per row after %.1f s warm-up\n",
           CM_SIZE, h->ref_len, CONC, t.seconds, t.warmup);
    printf("%-14s %9s %7s %7s %6s\n", "webhooks", "creates/s", "p50 ms", "p99 ms", "ratio");
    for (size_t i = 0; i < N_CONFIGS; i++) {
        if (i > 0) {
            set_config(h, &configs[i - 1], false);
            await_calls(h, 0, configs[i - 1].name);
        }
        set_config(h, &configs[i], true);
        await_calls(h, (unsigned long)(configs[i].validating + configs[i].mutating),
                    configs[i].name);
        https_close(&h->conns[0]);
        run_phase(&h->ev.d, (int)i, CONC, &t, &r[i]);
        errors += r[i].errors;
        printf("%-14s %9.0f %7.3f %7.3f %6.2f\n", configs[i].name, r[i].ops_s, r[i].p50_ms,
               r[i].p99_ms, r[0].ops_s > 0 ? r[i].ops_s / r[0].ops_s : 0.0);
        fflush(stdout);
    }
    set_config(h, &configs[N_CONFIGS - 1], false);
    call(h, "DELETE", NS_PATH, NULL, 200);
    for (int i = 0; i < MAX_CONC; i++) {
        https_close(&h->conns[i]);
        free(h->owned[i]);
    }
    SSL_CTX_free(h->k.tls);
    event_base_free(h->ev.base);
    free(h->ca_b64);
    free(h);
    return errors == 0 ? 0 : 1;
}
