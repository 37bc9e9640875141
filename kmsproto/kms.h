#ifndef KMSPROTO_KMS_H
#define KMSPROTO_KMS_H

/*
 * A KMS v2 plugin's client: kube-apiserver's v2.KeyManagementService calls (Status, Encrypt,
 * Decrypt) over the plugin's unix socket (`unix:///path.sock`), as its gRPC service does
 * (k8s.io/apiserver .../envelope/kmsv2/grpc_service.go): each call waits for the connection
 * (gRPC's wait-for-ready) up to the provider's timeout, so a plugin that is down or hangs costs
 * at most that timeout. Calls are synchronous: they block the calling thread. Every call is
 * timed into kube's apiserver_envelope_encryption_kms_operations_latency_seconds.
 *
 * Errors read as Go's gRPC client prints them: "rpc error: code = <Code> desc = <details>".
 */

#include <stddef.h>
#include <stdint.h>

#include "kms_service.pb-c.h"

typedef struct kms_client kms_client_t;

/**
 * A client of the plugin at endpoint ("unix:///path"; copied) with a per-call deadline of
 * timeout_ms; `provider` (copied) labels the latency metric. The connection is made on the
 * first call. Thread: any; the client may be shared by threads.
 */
kms_client_t *kms_client_new(const char *endpoint, int64_t timeout_ms, const char *provider);

/** Close the connection and free c (NULL is fine); no call may be running. */
void kms_client_free(kms_client_t *c);

/** Status: *out is the answer (caller frees with v2__status_response__free_unpacked).
 *  Returns 0, or -1 with Go's gRPC error text in err. Thread: any. */
int kms_status(kms_client_t *c, V2__StatusResponse **out, char *err, size_t err_len);

/** Encrypt plaintext under request id uid: *out as kms_status's. Thread: any. */
int kms_encrypt(kms_client_t *c, const uint8_t *plain, size_t len, const char *uid,
                V2__EncryptResponse **out, char *err, size_t err_len);

/** Decrypt req (borrowed): *out as kms_status's. Thread: any. */
int kms_decrypt(kms_client_t *c, const V2__DecryptRequest *req, V2__DecryptResponse **out,
                char *err, size_t err_len);

#endif
