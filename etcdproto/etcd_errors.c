/*
 * gRPC status to gw_err.h code. etcd reuses a few status codes for several errors and tells
 * them apart only by message (as etcd's own Go client does, through rpctypes), so some rows
 * match a piece of the message too.
 */
#include "etcd.h"

#include <stdatomic.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <grpc/slice.h>

#include "etcd_int.h"
#include "gw_err.h"
#include "gw_log.h"

static const struct {
    grpc_status_code code;
    const char *needle; /* NULL: any message */
    int err;
} status_map[] = {
    /* "etcdserver: mvcc: required revision has been compacted" */
    {GRPC_STATUS_OUT_OF_RANGE, "compacted", GW_ECOMPACTED},
    /* "etcdserver: mvcc: required revision is a future revision" */
    {GRPC_STATUS_OUT_OF_RANGE, "future revision", GW_EFUTUREREV},
    /* etcd's --max-request-bytes check */
    {GRPC_STATUS_INVALID_ARGUMENT, "request is too large", GW_ETOOLARGE},
    /* the gRPC server's receive limit, hit before etcd looks at the request */
    {GRPC_STATUS_RESOURCE_EXHAUSTED, "larger than max", GW_ETOOLARGE},
    {GRPC_STATUS_INVALID_ARGUMENT, NULL, GW_EINVAL},
    {GRPC_STATUS_OK, NULL, 0},
    {GRPC_STATUS_CANCELLED, NULL, GW_ECANCELED},
    {GRPC_STATUS_DEADLINE_EXCEEDED, NULL, GW_ETIMEOUT},
    {GRPC_STATUS_UNAVAILABLE, NULL, GW_EUNAVAILABLE},
    /* "etcdserver: requested lease not found" */
    {GRPC_STATUS_NOT_FOUND, NULL, GW_ENOTFOUND},
};

static bool
contains(const char *msg, size_t len, const char *needle)
{
    size_t n = strlen(needle);
    for (size_t i = 0; i + n <= len; i++) {
        if (strncasecmp(msg + i, needle, n) == 0)
            return true;
    }
    return false;
}

int
etcd__err_from_status(grpc_status_code code, const char *msg, size_t msg_len)
{
    for (size_t i = 0; i < sizeof(status_map) / sizeof(status_map[0]); i++) {
        if (status_map[i].code != code)
            continue;
        if (status_map[i].needle == NULL || contains(msg, msg_len, status_map[i].needle))
            return status_map[i].err;
    }
    return GW_EINTERNAL;
}

/* During an outage every call fails the same way: one warning per interval says so, the rest
 * go to debug. */
static bool
transport_warning_due(void)
{
    static _Atomic int64_t last_ms = INT64_MIN / 2;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    int64_t now = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
    int64_t last = atomic_load(&last_ms);
    return now - last >= 5000 && atomic_compare_exchange_strong(&last_ms, &last, now);
}

static gw_log_level_t
log_level(int err, bool quiet)
{
    if (quiet)
        return GW_LOG_DEBUG;
    switch (err) {
    case GW_ECOMPACTED: /* outcomes callers expect and turn into API errors */
    case GW_EFUTUREREV:
    case GW_ENOTFOUND:
    case GW_ETOOLARGE:
        return GW_LOG_DEBUG;
    case GW_EUNAVAILABLE:
    case GW_ETIMEOUT:
        return transport_warning_due() ? GW_LOG_WARN : GW_LOG_DEBUG;
    default:
        return GW_LOG_WARN;
    }
}

int
etcd__status_err(const char *method, grpc_status_code code, grpc_slice details, bool quiet)
{
    const char *msg = (const char *)GRPC_SLICE_START_PTR(details);
    size_t len = GRPC_SLICE_LENGTH(details);
    int err = etcd__err_from_status(code, msg, len);
    if (code != GRPC_STATUS_OK && code != GRPC_STATUS_CANCELLED)
        GW_LOG_AT(log_level(err, quiet), NULL, "etcd %s: %s (grpc status %d: %.*s)", method,
                  gw_errname(err), (int)code, (int)len, msg);
    return err;
}

bool
etcd__status_permanent(grpc_status_code code)
{
    switch (code) {
    case GRPC_STATUS_INVALID_ARGUMENT:
    case GRPC_STATUS_PERMISSION_DENIED:
    case GRPC_STATUS_UNAUTHENTICATED:
    case GRPC_STATUS_UNIMPLEMENTED:
    case GRPC_STATUS_FAILED_PRECONDITION:
        return true;
    default:
        return false;
    }
}
