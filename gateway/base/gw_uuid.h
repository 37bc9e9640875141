#ifndef GATEWAY_BASE_GW_UUID_H
#define GATEWAY_BASE_GW_UUID_H

/* Random UUIDs, for object uids, Audit-IDs, token ids and leader identities; and kube's
 * apiserver ID, a name-based UUID of the host. */

#include <stddef.h>

/** Length of a UUID in text form, without the NUL. */
#define GW_UUID_LEN 36

/**
 * Write a random (version 4, RFC 4122 variant) UUID in lower-case text and a NUL into out, as
 * kube's uuid.NewUUID() gives them. Aborts when the kernel has no randomness to give.
 * Thread: any.
 */
void gw_uuid_v4(char out[GW_UUID_LEN + 1]);

/**
 * The apiserver_id_hash label of kube's reload metrics for this host: "sha256:<hex>" of kube's
 * apiserver ID, "apiserver-" and the SHA-1 (version 5) UUID of the host name in the nil
 * namespace (gw_apiserver_id), into out (at least 72 bytes). Thread: any.
 */
void gw_apiserver_id_hash(char *out, size_t len);

/** kube's apiserver ID of host `host` into out (at least 47 bytes). Thread: any. */
void gw_apiserver_id(const char *host, char *out, size_t len);

#endif
