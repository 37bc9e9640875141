/*
 * The process-wide client: one gRPC channel per endpoint, the completion-queue thread, and
 * which endpoint calls go to. gRPC's own log lines are routed into gw_log here, since this is
 * where gRPC is initialised.
 */
#include "etcd.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include <grpc/grpc.h>
#include <grpc/grpc_security.h>
#include <grpc/support/log.h>
#include <grpc/support/time.h>

#include "etcd_int.h"
#include "gw_alloc.h"
#include "gw_err.h"
#include "gw_log.h"

#define DEFAULT_CALL_TIMEOUT_MS 15000

/* etcd enforces a 5 s minimum ping interval and rejects pings with no call open, so keep the
 * interval above it and never ping an idle connection. */
#define KEEPALIVE_TIME_MS 10000
#define KEEPALIVE_TIMEOUT_MS 5000
/* gRPC's default backoff made the first call after an etcd restart wait seconds. gRPC also
 * takes the "min reconnect backoff" as the minimum time a connection attempt (TCP, TLS and
 * HTTP/2 handshakes) may take, so that one is longer: a slow handshake must still succeed. */
#define RECONNECT_INITIAL_MS 200
#define CONNECT_TIMEOUT_MS 1000
#define RECONNECT_MAX_MS 2000

static void
route_grpc_log(gpr_log_func_args *args)
{
    /* gRPC reports call failures through statuses too; its own lines are detail. */
    gw_log_level_t level = args->severity == GPR_LOG_SEVERITY_ERROR  ? GW_LOG_WARN
                           : args->severity == GPR_LOG_SEVERITY_INFO ? GW_LOG_INFO
                                                                     : GW_LOG_DEBUG;
    const char *file = strrchr(args->file, '/');
    GW_LOG_AT(level, NULL, "grpc: %s (%s:%d)", args->message, file ? file + 1 : args->file,
              args->line);
}

static void *
cq_main(void *arg)
{
    etcd_client_t *c = arg;
    for (;;) {
        grpc_event ev =
            grpc_completion_queue_next(c->cq, gpr_inf_future(GPR_CLOCK_MONOTONIC), NULL);
        if (ev.type == GRPC_QUEUE_SHUTDOWN)
            return NULL;
        if (ev.type != GRPC_OP_COMPLETE)
            continue;
        etcd__op_t *op = ev.tag;
        op->ok = ev.success != 0;
        etcd__conn_post(op);
    }
}

/* grpc_arg's key is a plain char *, though gRPC only reads it. */
static grpc_arg
int_arg(const char *key, int value)
{
    return (grpc_arg){.type = GRPC_ARG_INTEGER, .key = (char *)key, .value.integer = value};
}

static grpc_channel *
make_channel(const etcd_endpoint_t *ep, grpc_channel_credentials *creds)
{
    grpc_arg args[] = {
        int_arg(GRPC_ARG_MAX_RECEIVE_MESSAGE_LENGTH, -1),
        int_arg(GRPC_ARG_KEEPALIVE_TIME_MS, KEEPALIVE_TIME_MS),
        int_arg(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, KEEPALIVE_TIMEOUT_MS),
        int_arg(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 0),
        /* Long idle watches still need their pings to notice a vanished member. */
        int_arg(GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA, 0),
        int_arg(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, RECONNECT_INITIAL_MS),
        int_arg(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, CONNECT_TIMEOUT_MS),
        int_arg(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, RECONNECT_MAX_MS),
    };
    grpc_channel_args ca = {sizeof(args) / sizeof(args[0]), args};
    return grpc_channel_create(ep->target, creds, &ca);
}

/*
 * abseil's mutexes, under gRPC, check every acquisition for lock-order cycles when abseil is
 * built without NDEBUG, as Debian builds it: a graph of every mutex behind one global lock
 * that all threads take, some 15K instructions per create. gRPC's own builds and Go's runtime
 * (kube's) check nothing of the kind. The switch is C++
 * (absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore), kIgnore being 0),
 * reached by its mangled name in Debian's inline namespace; weak, so that an abseil without it
 * keeps its default.
 */
extern void etcd__absl_deadlock_mode(int mode) __asm__(
    "_ZN4absl7debian329SetMutexDeadlockDetectionModeENS0_15OnDeadlockCycleE") __attribute__((weak));

static void
start_grpc(etcd_client_t *c, const etcd__tls_t *tls)
{
    if (etcd__absl_deadlock_mode != NULL)
        etcd__absl_deadlock_mode(0);
    gpr_set_log_function(route_grpc_log);
    grpc_init();
    /* After grpc_init, which reads GRPC_VERBOSITY. */
    gpr_set_log_verbosity(gw_log_threshold == GW_LOG_DEBUG ? GPR_LOG_SEVERITY_DEBUG
                                                           : GPR_LOG_SEVERITY_ERROR);
    grpc_channel_credentials *plain = grpc_insecure_credentials_create();
    grpc_channel_credentials *secure = tls->ca != NULL ? etcd__tls_credentials(tls) : NULL;
    c->channels = gw_calloc(c->n_eps, sizeof(*c->channels));
    for (size_t i = 0; i < c->n_eps; i++)
        c->channels[i] = make_channel(&c->eps[i], c->eps[i].tls ? secure : plain);
    grpc_channel_credentials_release(plain);
    if (secure != NULL)
        grpc_channel_credentials_release(secure);
    c->cq = grpc_completion_queue_create_for_next(NULL);
    int rc = pthread_create(&c->cq_thread, NULL, cq_main, c);
    assert(rc == 0);
    (void)rc;
    pthread_setname_np(c->cq_thread, "etcd-cq");
}

int
etcd_client_new(const etcd_config_t *cfg, etcd_client_t **out, char *err, size_t err_len)
{
    etcd_endpoint_t *eps;
    size_t n;
    etcd__tls_t tls;
    int rc = etcd_endpoints_parse(cfg->servers, &eps, &n, err, err_len);
    if (rc != 0)
        return rc;
    bool any_tls = false;
    for (size_t i = 0; i < n; i++)
        any_tls = any_tls || eps[i].tls;
    rc = etcd__tls_load(cfg->ca_file, cfg->cert_file, cfg->key_file, any_tls, &tls, err, err_len);
    if (rc != 0) {
        etcd_endpoints_free(eps, n);
        return rc;
    }
    etcd_client_t *c = gw_calloc(1, sizeof(*c));
    c->eps = eps;
    c->n_eps = n;
    c->call_timeout_ms = cfg->call_timeout_ms > 0 ? cfg->call_timeout_ms : DEFAULT_CALL_TIMEOUT_MS;
    atomic_init(&c->current, 0);
    atomic_init(&c->n_conns, 0);
    start_grpc(c, &tls);
    etcd__tls_free(&tls);
    *out = c;
    return 0;
}

void
etcd_client_free(etcd_client_t *c)
{
    if (c == NULL)
        return;
    assert(atomic_load(&c->n_conns) == 0);
    for (size_t i = 0; i < c->n_eps; i++)
        grpc_channel_destroy(c->channels[i]);
    grpc_completion_queue_shutdown(c->cq);
    pthread_join(c->cq_thread, NULL);
    grpc_completion_queue_destroy(c->cq);
    grpc_shutdown();
    free(c->channels);
    etcd_endpoints_free(c->eps, c->n_eps);
    free(c);
}

size_t
etcd_client_endpoint_count(const etcd_client_t *c)
{
    return c->n_eps;
}

size_t
etcd_client_current_endpoint(const etcd_client_t *c)
{
    return atomic_load(&((etcd_client_t *)c)->current);
}

size_t
etcd__client_pick(etcd_client_t *c)
{
    return atomic_load(&c->current);
}

bool
etcd__client_ready(etcd_client_t *c, size_t i)
{
    return grpc_channel_check_connectivity_state(c->channels[i], 0) == GRPC_CHANNEL_READY;
}

void
etcd__client_failover(etcd_client_t *c, size_t failed)
{
    if (c->n_eps < 2)
        return;
    /* The next endpoint not known to be down (asking also wakes idle channels). If all the
     * others are down, stay on a member that answers (it may only be between leaders), but
     * leave one that is down too, so that each gets its turn to come back. */
    size_t next = failed;
    for (size_t k = 1; k < c->n_eps && next == failed; k++) {
        size_t i = (failed + k) % c->n_eps;
        if (grpc_channel_check_connectivity_state(c->channels[i], 1) !=
            GRPC_CHANNEL_TRANSIENT_FAILURE)
            next = i;
    }
    if (next == failed && grpc_channel_check_connectivity_state(c->channels[failed], 0) !=
                              GRPC_CHANNEL_TRANSIENT_FAILURE)
        return;
    if (next == failed)
        next = (failed + 1) % c->n_eps;
    size_t expected = failed;
    if (atomic_compare_exchange_strong(&c->current, &expected, next))
        gw_log_warn(NULL, "etcd: endpoint %s unavailable, switching to %s", c->eps[failed].target,
                    c->eps[next].target);
}

gpr_timespec
etcd__deadline(int64_t ms)
{
    if (ms <= 0)
        return gpr_inf_future(GPR_CLOCK_MONOTONIC);
    return gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC), gpr_time_from_millis(ms, GPR_TIMESPAN));
}
