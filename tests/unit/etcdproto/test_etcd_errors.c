/* gRPC status + message -> gw_err.h code, with the messages etcd 3.4 really sends. */
#include <string.h>

#include "etcd_int.h"
#include "gw_err.h"
#include "tap.h"

static const struct {
    grpc_status_code code;
    const char *msg;
    int want;
} cases[] = {
    {GRPC_STATUS_OK, "", 0},
    {GRPC_STATUS_OUT_OF_RANGE, "etcdserver: mvcc: required revision has been compacted",
     GW_ECOMPACTED},
    {GRPC_STATUS_OUT_OF_RANGE, "etcdserver: mvcc: required revision is a future revision",
     GW_EFUTUREREV},
    {GRPC_STATUS_OUT_OF_RANGE, "something else entirely", GW_EINTERNAL},
    {GRPC_STATUS_INVALID_ARGUMENT, "etcdserver: request is too large", GW_ETOOLARGE},
    {GRPC_STATUS_RESOURCE_EXHAUSTED, "grpc: received message larger than max (2097170 vs. 2097152)",
     GW_ETOOLARGE},
    {GRPC_STATUS_RESOURCE_EXHAUSTED, "Received message larger than max (5 vs. 4)", GW_ETOOLARGE},
    {GRPC_STATUS_RESOURCE_EXHAUSTED, "etcdserver: too many requests", GW_EINTERNAL},
    {GRPC_STATUS_INVALID_ARGUMENT, "etcdserver: key is not provided", GW_EINVAL},
    {GRPC_STATUS_INVALID_ARGUMENT, "", GW_EINVAL},
    {GRPC_STATUS_UNAVAILABLE, "failed to connect to all addresses", GW_EUNAVAILABLE},
    {GRPC_STATUS_UNAVAILABLE, "etcdserver: leader changed", GW_EUNAVAILABLE},
    {GRPC_STATUS_DEADLINE_EXCEEDED, "Deadline Exceeded", GW_ETIMEOUT},
    {GRPC_STATUS_CANCELLED, "Cancelled", GW_ECANCELED},
    {GRPC_STATUS_NOT_FOUND, "etcdserver: requested lease not found", GW_ENOTFOUND},
    {GRPC_STATUS_FAILED_PRECONDITION, "etcdserver: something", GW_EINTERNAL},
    {GRPC_STATUS_PERMISSION_DENIED, "etcdserver: permission denied", GW_EINTERNAL},
    {GRPC_STATUS_UNAUTHENTICATED, "", GW_EINTERNAL},
    {GRPC_STATUS_INTERNAL, "", GW_EINTERNAL},
    {GRPC_STATUS_UNKNOWN, "compacted", GW_EINTERNAL},
    {GRPC_STATUS_UNIMPLEMENTED, "", GW_EINTERNAL},
};

int
main(void)
{
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int got = etcd__err_from_status(cases[i].code, cases[i].msg, strlen(cases[i].msg));
        if (!tap_ok(got == cases[i].want, "status %d \"%s\" -> %s", (int)cases[i].code,
                    cases[i].msg, gw_errname(cases[i].want)))
            tap_diag("  got %s", gw_errname(got));
    }
    /* The message is a slice, not a C string: a match must not read past its length. */
    const char *msg = "etcdserver: mvcc: required revision has been compacted";
    tap_is_int(etcd__err_from_status(GRPC_STATUS_OUT_OF_RANGE, msg, 30), GW_EINTERNAL,
               "a needle beyond the slice length does not match");
    tap_is_int(etcd__err_from_status(GRPC_STATUS_OUT_OF_RANGE, NULL, 0), GW_EINTERNAL,
               "empty message");
    return tap_done();
}
