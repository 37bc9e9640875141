#ifndef AUTHN_AUTHN_TOKEN_CACHE_H
#define AUTHN_AUTHN_TOKEN_CACHE_H

/*
 * The verified-token cache in front of the bearer-token union, as kube-apiserver wraps its
 * union in k8s.io/apiserver's cached token authenticator: a user the union accepted is
 * remembered for the success TTL (kube-apiserver's TokenSuccessCacheTTL, 10 s) and handed out
 * again, shared rather than copied, without verifying the token or reading anything from
 * storage; refusals are not remembered (TokenFailureCacheTTL is 0). An entry lives its TTL from
 * when it was stored, whatever the token's own expiry, and is never served past it; a request
 * that still holds the entry's user extends nothing.
 *
 * Entries are keyed by an HMAC-SHA256, under a random key drawn at start-up, of the token and
 * the request's audiences (each length-prefixed, as kube's keyFunc writes them), so the cache
 * never holds a token. It is bounded: a full cache forgets its oldest entry. 32 stripes, each
 * behind its own lock, let every worker use one cache.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "authn.h"

#define AUTHN__TOKEN_CACHE_TTL_MS 10000 /* kube-apiserver's TokenSuccessCacheTTL */
#define AUTHN__TOKEN_CACHE_SIZE 32768   /* kube sizes its cache for 32k tokens in use */
#define AUTHN__TOKEN_KEY_LEN 32

typedef struct authn__token_cache authn__token_cache_t;

/** A cache key: the HMAC of a token and audiences. */
typedef struct {
    unsigned char b[AUTHN__TOKEN_KEY_LEN];
} authn__token_key_t;

/**
 * A new empty cache holding up to `capacity` entries (rounded up to a multiple of the stripe
 * count) for `ttl_ms` each; `clock_ms` reads the monotonic clock in milliseconds (NULL:
 * gw_monotonic_ms; tests pass their own). Caller frees with authn__token_cache_free.
 * Thread: main, at start-up.
 */
authn__token_cache_t *authn__token_cache_new(size_t capacity, int64_t ttl_ms,
                                             int64_t (*clock_ms)(void));

/** Free the cache and the users it holds (NULL is fine). Thread: main, once unused. */
void authn__token_cache_free(authn__token_cache_t *c);

/**
 * The key of `token` presented for `audiences` (n of them; the order counts, as in kube).
 * Thread: any.
 */
void authn__token_cache_key(const authn__token_cache_t *c, const char *token,
                            const char *const *audiences, size_t n, authn__token_key_t *key);

/**
 * The user stored under key while its entry lives: true with *user that user, shared (the
 * caller lets go of it with authn_user_free; it outlives the entry if need be), false when
 * there is none or it expired. The stripe's lock is held only to find the entry and take the
 * reference. Thread: any.
 */
bool authn__token_cache_get(authn__token_cache_t *c, const authn__token_key_t *key,
                            authn_user_t **user);

/**
 * Remember `user` under key for the TTL, replacing what the key held and forgetting the oldest
 * entry of a full stripe. The cache shares user (the caller keeps its own reference), so it
 * must not change from now on. Thread: any.
 */
void authn__token_cache_put(authn__token_cache_t *c, const authn__token_key_t *key,
                            authn_user_t *user);

/** The number of live entries (expired ones not counted). Thread: any; for tests. */
size_t authn__token_cache_count(authn__token_cache_t *c);

#endif
