#ifndef GATEWAY_BASE_GW_ERR_H
#define GATEWAY_BASE_GW_ERR_H

/*
 * The one error type shared by kgate's layers. Functions return 0 on success or one of
 * these negative codes; a single table (later: the REST layer's) maps them to HTTP Status.
 */
enum {
    GW_OK = 0,
    GW_EINVAL = -1,       /* a caller passed something malformed */
    GW_ENOTFOUND = -2,    /* key, lease or object does not exist */
    GW_EEXIST = -3,       /* create of a key that already exists */
    GW_ECONFLICT = -4,    /* precondition on mod revision / uid failed */
    GW_ECOMPACTED = -5,   /* requested revision was compacted away (HTTP 410) */
    GW_EFUTUREREV = -6,   /* requested revision is newer than the store's (HTTP 504) */
    GW_ETOOLARGE = -7,    /* request exceeds etcd's max-request-bytes (HTTP 413) */
    GW_EUNAVAILABLE = -8, /* no etcd endpoint reachable (HTTP 503) */
    GW_ETIMEOUT = -9,     /* deadline passed (HTTP 504) */
    GW_ECANCELED = -10,   /* the caller cancelled, or shutdown */
    GW_EINTERNAL = -11,   /* anything else; details go to the log */
    GW_ERR_MIN_ = -11
};

/** Short, stable text for an error code (never NULL; unknown codes give "unknown error").
 *  Thread: any. The string is static. */
const char *gw_strerror(int err);

/** Stable identifier of an error code, e.g. "GW_ECONFLICT", for logs and tests.
 *  Thread: any. The string is static. */
const char *gw_errname(int err);

#endif
