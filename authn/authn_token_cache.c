/*
 * The verified-token cache (k8s.io/apiserver's cached token authenticator): HMAC-SHA256 keys,
 * 32 stripes each with its own lock, a ring of entries in the order they were stored (so the
 * oldest is the next to go) and a chained index over the ring.
 */
#include "authn_token_cache.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include "authn_int.h"
#include "gw_alloc.h"
#include "gw_clock.h"

#define STRIPES 32 /* as kube's newStripedCache(32, ...) */
#define NONE UINT32_MAX

typedef struct {
    authn__token_key_t key;
    int64_t expires_ms;
    authn_user_t *user; /* shared with the requests it was handed to; NULL: a hole (replaced or
                           dropped), skipped when the ring moves on */
    uint32_t next;      /* the next slot in the same bucket, or NONE */
} entry_t;

typedef struct {
    pthread_mutex_t mu;
    entry_t *ring;     /* `per` slots; in use: `used` of them from `head` on, in storing order */
    uint32_t *buckets; /* `per` chains of slots by key */
    uint32_t head, used;
} stripe_t;

struct authn__token_cache {
    int64_t ttl_ms;
    int64_t (*clock_ms)(void);
    uint32_t per;     /* slots per stripe */
    EVP_MAC_CTX *mac; /* HMAC-SHA256 under the random key; duplicated for each key made */
    stripe_t stripes[STRIPES];
};

/* ---- keys -------------------------------------------------------------------------------- */

/* A random key per process, as kube draws one per cache: keys cannot be computed ahead by a
 * client, and colliding entries cannot be forced. */
static EVP_MAC_CTX *
mac_new(void)
{
    unsigned char secret[32];
    char digest[] = "SHA256"; /* OSSL_PARAM wants it writable */
    EVP_MAC *mac = EVP_MAC_fetch(NULL, "HMAC", NULL);
    EVP_MAC_CTX *ctx = mac != NULL ? EVP_MAC_CTX_new(mac) : NULL;
    OSSL_PARAM params[] = {
        OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0),
        OSSL_PARAM_construct_end(),
    };

    if (ctx == NULL || RAND_bytes(secret, sizeof(secret)) != 1 ||
        EVP_MAC_init(ctx, secret, sizeof(secret), params) != 1)
        abort(); /* no HMAC or no randomness: nothing sensible to run without */
    OPENSSL_cleanse(secret, sizeof(secret));
    EVP_MAC_free(mac); /* the context keeps its own reference */
    return ctx;
}

/* Go's binary.BigEndian.PutUint32(uint32(len)), then the bytes: no two inputs write alike. */
static void
mac_string(EVP_MAC_CTX *ctx, const char *s, size_t len)
{
    unsigned char n[4] = {(unsigned char)(len >> 24), (unsigned char)(len >> 16),
                          (unsigned char)(len >> 8), (unsigned char)len};

    EVP_MAC_update(ctx, n, sizeof(n));
    if (len > 0)
        EVP_MAC_update(ctx, (const unsigned char *)s, len);
}

void
authn__token_cache_key(const authn__token_cache_t *c, const char *token,
                       const char *const *audiences, size_t n, authn__token_key_t *key)
{
    EVP_MAC_CTX *ctx = EVP_MAC_CTX_dup(c->mac);
    unsigned char count[4] = {(unsigned char)(n >> 24), (unsigned char)(n >> 16),
                              (unsigned char)(n >> 8), (unsigned char)n};
    size_t out_len = 0;

    if (ctx == NULL)
        abort();
    mac_string(ctx, token, strlen(token));
    EVP_MAC_update(ctx, count, sizeof(count)); /* the number of audiences, then each */
    for (size_t i = 0; i < n; i++)
        mac_string(ctx, audiences[i], strlen(audiences[i]));
    if (EVP_MAC_final(ctx, key->b, &out_len, sizeof(key->b)) != 1 || out_len != sizeof(key->b))
        abort();
    EVP_MAC_CTX_free(ctx);
}

/* The key's bytes are uniform: its first picks the stripe, the next four the bucket. */
static stripe_t *
stripe_of(authn__token_cache_t *c, const authn__token_key_t *key)
{
    return &c->stripes[key->b[0] % STRIPES];
}

static uint32_t
bucket_of(const authn__token_cache_t *c, const authn__token_key_t *key)
{
    uint32_t h = (uint32_t)key->b[1] << 24 | (uint32_t)key->b[2] << 16 | (uint32_t)key->b[3] << 8 |
                 key->b[4];
    return h % c->per;
}

/* ---- a stripe (its lock held) -------------------------------------------------------------- */

/* The slot holding key, or NONE. */
static uint32_t
find(const authn__token_cache_t *c, const stripe_t *s, const authn__token_key_t *key)
{
    for (uint32_t i = s->buckets[bucket_of(c, key)]; i != NONE; i = s->ring[i].next) {
        if (CRYPTO_memcmp(s->ring[i].key.b, key->b, sizeof(key->b)) == 0)
            return i;
    }
    return NONE;
}

/* Empty slot i: a hole until the ring's head passes it. */
static void
drop(const authn__token_cache_t *c, stripe_t *s, uint32_t i)
{
    entry_t *e = &s->ring[i];

    if (e->user == NULL)
        return;
    for (uint32_t *link = &s->buckets[bucket_of(c, &e->key)]; *link != NONE;
         link = &s->ring[*link].next) {
        if (*link == i) {
            *link = e->next;
            break;
        }
    }
    authn_user_free(e->user);
    e->user = NULL;
    e->next = NONE;
}

/* Move the head past holes and expired entries, and past the oldest entry while the ring is
 * full: afterwards there is room at the tail. */
static void
trim(const authn__token_cache_t *c, stripe_t *s, int64_t now)
{
    while (s->used > 0) {
        const entry_t *e = &s->ring[s->head];
        if (e->user != NULL && e->expires_ms > now && s->used < c->per)
            break;
        drop(c, s, s->head);
        s->head = (s->head + 1) % c->per;
        s->used--;
    }
}

/* ---- the cache ------------------------------------------------------------------------------ */

authn__token_cache_t *
authn__token_cache_new(size_t capacity, int64_t ttl_ms, int64_t (*clock_ms)(void))
{
    authn__token_cache_t *c = gw_calloc(1, sizeof(*c));
    size_t per = (capacity + STRIPES - 1) / STRIPES;

    c->ttl_ms = ttl_ms;
    c->clock_ms = clock_ms != NULL ? clock_ms : gw_monotonic_ms;
    c->per = (uint32_t)(per > 0 ? per : 1);
    c->mac = mac_new();
    for (size_t i = 0; i < STRIPES; i++) {
        stripe_t *s = &c->stripes[i];
        pthread_mutex_init(&s->mu, NULL);
        s->ring = gw_calloc(c->per, sizeof(*s->ring));
        s->buckets = gw_calloc(c->per, sizeof(*s->buckets));
        memset(s->buckets, 0xff, c->per * sizeof(*s->buckets)); /* every chain NONE */
    }
    return c;
}

void
authn__token_cache_free(authn__token_cache_t *c)
{
    if (c == NULL)
        return;
    for (size_t i = 0; i < STRIPES; i++) {
        stripe_t *s = &c->stripes[i];
        for (uint32_t j = 0; j < c->per; j++)
            authn_user_free(s->ring[j].user);
        free(s->ring);
        free(s->buckets);
        pthread_mutex_destroy(&s->mu);
    }
    EVP_MAC_CTX_free(c->mac);
    free(c);
}

bool
authn__token_cache_get(authn__token_cache_t *c, const authn__token_key_t *key, authn_user_t **user)
{
    stripe_t *s = stripe_of(c, key);
    bool found = false;

    *user = NULL;
    pthread_mutex_lock(&s->mu);
    uint32_t i = find(c, s, key);
    /* an entry at its expiry is gone: never served, even for the millisecond it turns */
    if (i != NONE && s->ring[i].expires_ms > c->clock_ms()) {
        *user = authn__user_share(s->ring[i].user);
        found = true;
    }
    pthread_mutex_unlock(&s->mu);
    return found;
}

void
authn__token_cache_put(authn__token_cache_t *c, const authn__token_key_t *key, authn_user_t *user)
{
    stripe_t *s = stripe_of(c, key);
    authn_user_t *shared = authn__user_share(user);

    pthread_mutex_lock(&s->mu);
    int64_t now = c->clock_ms();
    uint32_t old = find(c, s, key);
    if (old != NONE) /* two requests verified the same token at once: the later one stays */
        drop(c, s, old);
    trim(c, s, now);
    uint32_t i = (s->head + s->used) % c->per, b = bucket_of(c, key);
    s->ring[i] = (entry_t){
        .key = *key, .expires_ms = now + c->ttl_ms, .user = shared, .next = s->buckets[b]};
    s->buckets[b] = i;
    s->used++;
    pthread_mutex_unlock(&s->mu);
}

size_t
authn__token_cache_count(authn__token_cache_t *c)
{
    size_t n = 0;

    for (size_t i = 0; i < STRIPES; i++) {
        stripe_t *s = &c->stripes[i];
        pthread_mutex_lock(&s->mu);
        int64_t now = c->clock_ms();
        for (uint32_t k = 0; k < s->used; k++) {
            const entry_t *e = &s->ring[(s->head + k) % c->per];
            n += e->user != NULL && e->expires_ms > now;
        }
        pthread_mutex_unlock(&s->mu);
    }
    return n;
}
