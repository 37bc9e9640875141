/*
 * The KMS v2 provider, as kube-apiserver 1.32 runs it with KMSv2KDF on
 * (k8s.io/apiserver .../envelope/kmsv2/envelope.go and .../encryptionconfig/config.go):
 *
 *   - a probe calls Status; when it is healthy and its key ID differs from the current
 *     state's, a fresh 32-byte seed is encrypted by the plugin (Encrypt) and becomes the state
 *     writes use; a healthy Status with the same key ID extends the state's write expiry to
 *     3 minutes from the probe (kube's kmsv2PluginWriteDEKSourceMaxTTL), so that a plugin that
 *     stays unhealthy stops writes 3 minutes later while reads go on;
 *   - writes never call the plugin: each derives a key from the seed (gw_enc_kms_envelope.c);
 *   - reads look the encrypted DEK source up in a cache (24 h per entry, kube's cacheTTL) and
 *     call Decrypt only on a miss: that call blocks the reading worker up to the provider's
 *     timeout, as kube's read blocks its request;
 *   - the probe runs on a thread of its own: once inline at start-up (kube's prime), then every
 *     minute when healthy and every 10 s when not, and whenever the health check finds the last
 *     answer older than kube's probe TTL (20 s healthy, 3 s not).
 */
#include "gw_enc_int.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include "gw_alloc.h"
#include "gw_clock.h"
#include "gw_err.h"
#include "gw_log.h"
#include "gw_metric.h"
#include "gw_uuid.h"
#include "kms.h"

#define WRITE_TTL_MS (3 * 60 * 1000)         /* kmsv2PluginWriteDEKSourceMaxTTL */
#define POLL_HEALTHY_MS (60 * 1000)          /* kmsv2PluginHealthzPositiveInterval */
#define POLL_UNHEALTHY_MS (10 * 1000)        /* kmsv2PluginHealthzNegativeInterval */
#define PROBE_TTL_HEALTHY_MS (20 * 1000)     /* kmsPluginHealthzPositiveTTL */
#define PROBE_TTL_UNHEALTHY_MS (3 * 1000)    /* kmsPluginHealthzNegativeTTL */
#define CACHE_TTL_MS (24LL * 60 * 60 * 1000) /* the DEK-source cache's cacheTTL */
#define WHY_LEN 1024

/* What writes use: the seed, and the EncryptedObject fields every value written with it
 * carries. Immutable once published but for the expiry; shared by reference count. */
typedef struct {
    _Atomic int refs;
    uint8_t seed[GW_KMS_SEED];
    V2__EncryptResponse *resp; /* the plugin's answer the fields point into */
    V2__EncryptedObject__AnnotationsEntry *entries, **entry_ptrs;
    V2__EncryptedObject tmpl; /* without encryptedData */
    uint8_t cache_key[GW_KMS_HASH];
    _Atomic int64_t expires_ms; /* wall clock: writes stop after it */
    char uid[GW_UUID_LEN + 1];
} state_t;

/* One decrypted DEK source: a seed, or a plain AES-GCM key from a KDF-less writer. */
typedef struct {
    uint8_t hash[GW_KMS_HASH];
    uint8_t key[GW_KMS_SEED];
    size_t key_len;
    bool seed;
    int64_t expires_ms; /* monotonic */
} cached_t;

struct gw_enc_kms {
    char *name, *endpoint;
    int64_t timeout_ms;
    kms_client_t *client; /* NULL until started */
    char id_hash[96];     /* kube's apiserver_id_hash label */
    pthread_mutex_t lock;
    state_t *state; /* NULL until a probe succeeded once */
    cached_t *cache;
    size_t n_cache;
    /* the probe's last answer, and its thread */
    bool healthy;
    char why[WHY_LEN];
    int64_t probed_ms; /* monotonic */
    bool probe_now, stop;
    pthread_cond_t wake;
    pthread_t thread;
};

/* ---- kube's envelope metrics ---------------------------------------------------------------- */

static const char *const use_labels[] = {"transformation_type", "provider_name", "key_id_hash",
                                         "apiserver_id_hash"};
static const char *const status_labels[] = {"provider_name", "key_id_hash", "apiserver_id_hash"};
static const char *const invalid_labels[] = {"provider_name", "error"};
static const char *const provider_label[] = {"provider_name"};
static const gw_metric_desc_t use_total_desc = {
    .name = "apiserver_envelope_encryption_key_id_hash_total",
    .help = "Uses of each KMS key ID, by transformation type, provider and apiserver identity.",
    .stability = "ALPHA",
    .type = GW_METRIC_COUNTER,
    .labels = use_labels,
    .n_labels = 4,
};
static const gw_metric_desc_t use_time_desc = {
    .name = "apiserver_envelope_encryption_key_id_hash_last_timestamp_seconds",
    .help = "When each KMS key ID was last used, in seconds since the epoch.",
    .stability = "ALPHA",
    .type = GW_METRIC_GAUGE,
    .labels = use_labels,
    .n_labels = 4,
};
static const gw_metric_desc_t status_time_desc = {
    .name = "apiserver_envelope_encryption_key_id_hash_status_last_timestamp_seconds",
    .help = "When the plugin's Status last reported each key ID, in seconds since the epoch.",
    .stability = "ALPHA",
    .type = GW_METRIC_GAUGE,
    .labels = status_labels,
    .n_labels = 3,
};
static const gw_metric_desc_t invalid_desc = {
    .name = "apiserver_envelope_encryption_invalid_key_id_from_status_total",
    .help = "Key IDs the plugin's Status reported that were not valid, by error.",
    .stability = "ALPHA",
    .type = GW_METRIC_COUNTER,
    .labels = invalid_labels,
    .n_labels = 2,
};
static const gw_metric_desc_t cache_size_desc = {
    .name = "apiserver_envelope_encryption_dek_source_cache_size",
    .help = "Decrypted DEK sources held in the cache: about the Decrypt calls a restarted "
            "instance would make to the plugin.",
    .stability = "ALPHA",
    .type = GW_METRIC_GAUGE,
    .labels = provider_label,
    .n_labels = 1,
};

static int64_t
wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* kube's GetHashIfNotEmpty: "sha256:<hex>" of s, "" for "". */
static void
key_id_hash(const char *s, char out[80])
{
    uint8_t d[32];
    unsigned int n = 0;

    out[0] = '\0';
    if (s[0] == '\0')
        return;
    EVP_Digest(s, strlen(s), d, &n, EVP_sha256(), NULL);
    memcpy(out, "sha256:", 7);
    for (unsigned int i = 0; i < n; i++)
        snprintf(out + 7 + 2 * i, 3, "%02x", d[i]);
}

static void
record_use(const gw_enc_kms_t *k, const char *type, const char *key_id)
{
    static gw_metric_t *_Atomic total, *_Atomic last;
    char hash[80];

    key_id_hash(key_id, hash);
    const char *values[] = {type, k->name, hash, k->id_hash};
    gw_metric_add(gw_metric_cached(&total, &use_total_desc), values, 1);
    gw_metric_set(gw_metric_cached(&last, &use_time_desc), values, (double)wall_ms() / 1000);
}

static void
record_status_key(const gw_enc_kms_t *k, const char *key_id)
{
    static gw_metric_t *_Atomic family;
    char hash[80];

    key_id_hash(key_id, hash);
    const char *values[] = {k->name, hash, k->id_hash};
    gw_metric_set(gw_metric_cached(&family, &status_time_desc), values, (double)wall_ms() / 1000);
}

static void
record_invalid_key(const gw_enc_kms_t *k, const char *code)
{
    static gw_metric_t *_Atomic family;
    const char *values[] = {k->name, code};

    gw_metric_add(gw_metric_cached(&family, &invalid_desc), values, 1);
}

/* ---- the state -------------------------------------------------------------------------- */

static void
state_unref(state_t *s)
{
    if (s == NULL || atomic_fetch_sub(&s->refs, 1) != 1)
        return;
    OPENSSL_cleanse(s->seed, sizeof(s->seed));
    v2__encrypt_response__free_unpacked(s->resp, NULL);
    free(s->entries);
    free(s->entry_ptrs);
    free(s);
}

/* The current state with a reference (NULL: none yet). */
static state_t *
state_get(gw_enc_kms_t *k)
{
    pthread_mutex_lock(&k->lock);
    state_t *s = k->state;
    if (s != NULL)
        atomic_fetch_add(&s->refs, 1);
    pthread_mutex_unlock(&k->lock);
    return s;
}

/* A state over the plugin's answer to Encrypt(seed) (taken). */
static state_t *
state_new(const uint8_t seed[GW_KMS_SEED], V2__EncryptResponse *resp, const char *uid)
{
    state_t *s = gw_calloc(1, sizeof(*s));
    size_t n = resp->n_annotations;

    atomic_init(&s->refs, 1);
    memcpy(s->seed, seed, GW_KMS_SEED);
    s->resp = resp;
    s->entries = gw_calloc(n + 1, sizeof(*s->entries));
    s->entry_ptrs = gw_calloc(n + 1, sizeof(*s->entry_ptrs));
    for (size_t i = 0; i < n; i++) {
        s->entries[i] =
            (V2__EncryptedObject__AnnotationsEntry)V2__ENCRYPTED_OBJECT__ANNOTATIONS_ENTRY__INIT;
        s->entries[i].key = resp->annotations[i]->key;
        s->entries[i].value = resp->annotations[i]->value;
        s->entry_ptrs[i] = &s->entries[i];
    }
    s->tmpl = (V2__EncryptedObject)V2__ENCRYPTED_OBJECT__INIT;
    s->tmpl.keyid = resp->key_id;
    s->tmpl.encrypteddeksource = resp->ciphertext;
    s->tmpl.n_annotations = n;
    s->tmpl.annotations = s->entry_ptrs;
    s->tmpl.encrypteddeksourcetype = V2__ENCRYPTED_DEKSOURCE_TYPE__HKDF_SHA256_XNONCE_AES_GCM_SEED;
    gw_kms__cache_key(&s->tmpl, s->cache_key);
    snprintf(s->uid, sizeof(s->uid), "%s", uid);
    return s;
}

/* Go's time.Format(time.RFC3339) of a wall-clock time in UTC. */
static void
rfc3339(int64_t ms, char out[32])
{
    time_t t = (time_t)(ms / 1000);
    struct tm tm;

    if (ms == 0) {
        snprintf(out, 32, "0001-01-01T00:00:00Z");
        return;
    }
    gmtime_r(&t, &tm);
    strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* ---- the DEK-source cache ------------------------------------------------------------------ */

static void
cache_size_metric(const gw_enc_kms_t *k)
{
    static gw_metric_t *_Atomic family;
    const char *values[] = {k->name};

    gw_metric_set(gw_metric_cached(&family, &cache_size_desc), values, (double)k->n_cache);
}

/* Look hash up into *out; false on a miss. */
static bool
cache_get(gw_enc_kms_t *k, const uint8_t hash[GW_KMS_HASH], cached_t *out)
{
    int64_t now = gw_monotonic_ms();
    bool hit = false;

    pthread_mutex_lock(&k->lock);
    for (size_t i = 0; i < k->n_cache && !hit; i++) {
        if (memcmp(k->cache[i].hash, hash, GW_KMS_HASH) == 0 && k->cache[i].expires_ms > now) {
            *out = k->cache[i];
            hit = true;
        }
    }
    pthread_mutex_unlock(&k->lock);
    return hit;
}

/* Set (or refresh) an entry; expired ones go, as kube's expiring cache collects them. */
static void
cache_set(gw_enc_kms_t *k, const uint8_t hash[GW_KMS_HASH], const uint8_t *key, size_t key_len,
          bool seed)
{
    int64_t now = gw_monotonic_ms();
    size_t kept = 0;

    pthread_mutex_lock(&k->lock);
    for (size_t i = 0; i < k->n_cache; i++) {
        if (k->cache[i].expires_ms <= now || memcmp(k->cache[i].hash, hash, GW_KMS_HASH) == 0)
            continue;
        k->cache[kept++] = k->cache[i];
    }
    k->cache = gw_realloc(k->cache, (kept + 1) * sizeof(*k->cache));
    cached_t *c = &k->cache[kept];
    memset(c, 0, sizeof(*c));
    memcpy(c->hash, hash, GW_KMS_HASH);
    memcpy(c->key, key, key_len);
    c->key_len = key_len;
    c->seed = seed;
    c->expires_ms = now + CACHE_TTL_MS;
    k->n_cache = kept + 1;
    cache_size_metric(k);
    pthread_mutex_unlock(&k->lock);
}

/* ---- the probe (kube's kmsv2PluginProbe.check and rotateDEKOnKeyIDChange) ------------------ */

/* A new seed encrypted by the plugin, installed when its key ID is the Status's. NULL, or why
 * not (kube's words after "failed to rotate DEK"). */
static char *
rotate(gw_enc_kms_t *k, const char *status_key_id)
{
    state_t *cur = state_get(k);
    int64_t expires = wall_ms() + WRITE_TTL_MS; /* from before the call, as kube */
    char uid[GW_UUID_LEN + 1], gen[WHY_LEN] = "", rpc[WHY_LEN / 2], h1[80], h2[80] = "", h3[80];
    char when[32];
    uint8_t seed[GW_KMS_SEED];
    V2__EncryptResponse *resp = NULL;
    char *out;

    if (cur != NULL && strcmp(cur->tmpl.keyid, status_key_id) == 0) {
        atomic_store(&cur->expires_ms, expires);
        state_unref(cur);
        return NULL;
    }
    gw_uuid_v4(uid);
    if (RAND_bytes(seed, sizeof(seed)) != 1) {
        snprintf(gen, sizeof(gen), "crypto/rand: read failed");
    } else if (kms_encrypt(k->client, seed, sizeof(seed), uid, &resp, rpc, sizeof(rpc)) != 0) {
        snprintf(gen, sizeof(gen), "failed to encrypt DEK, error: %s", rpc);
    } else {
        state_t *s = state_new(seed, resp, uid);
        V2__EncryptedObject probe = s->tmpl;
        uint8_t one = 0;
        probe.encrypteddata = (ProtobufCBinaryData){1, &one}; /* any value passes, as kube's */
        if (gw_kms__validate(&probe, gen, sizeof(gen)) &&
            strcmp(resp->key_id, status_key_id) == 0) {
            atomic_init(&s->expires_ms, expires);
            pthread_mutex_lock(&k->lock);
            state_t *was = k->state;
            k->state = s;
            pthread_mutex_unlock(&k->lock);
            state_unref(was);
            state_unref(cur);
            OPENSSL_cleanse(seed, sizeof(seed));
            gw_log_info(NULL, "kms provider %s: new DEK seed, uid %s", k->name, uid);
            return NULL;
        }
        key_id_hash(resp->key_id, h2);
        state_unref(s); /* frees resp */
    }
    OPENSSL_cleanse(seed, sizeof(seed));
    key_id_hash(status_key_id, h1);
    key_id_hash(cur != NULL ? cur->tmpl.keyid : "", h3);
    rfc3339(cur != NULL ? atomic_load(&cur->expires_ms) : 0, when);
    out = gw_sprintf("failed to rotate DEK uid=\"%s\", errState=%s, errGen=%s, "
                     "statusKeyIDHash=\"%s\", encryptKeyIDHash=\"%s\", stateKeyIDHash=\"%s\", "
                     "expirationTimestamp=%s",
                     uid, cur != NULL ? "<nil>" : "got unexpected nil transformer",
                     gen[0] != '\0' ? gen : "<nil>", h1, h2, h3, when);
    state_unref(cur);
    return out;
}

/* kube's isKMSv2ProviderHealthyAndMaybeRotateDEK over a Status answer: NULL or why not. */
static char *
judge(gw_enc_kms_t *k, const V2__StatusResponse *st)
{
    char *errs[3], key_why[256];
    size_t n = 0;
    const char *code;

    if (strcmp(st->healthz, "ok") != 0)
        errs[n++] = gw_sprintf("got unexpected healthz status: %s", st->healthz);
    if (strcmp(st->version, "v2") != 0 && strcmp(st->version, "v2beta1") != 0)
        errs[n++] = gw_sprintf("expected KMSv2 API version v2, got %s", st->version);
    if ((code = gw_kms__validate_key_id(st->key_id, key_why, sizeof(key_why))) != NULL) {
        char hash[80];
        record_invalid_key(k, code);
        key_id_hash(st->key_id, hash);
        errs[n++] = gw_sprintf("got invalid KMSv2 KeyID hash \"%s\": %s", hash, key_why);
    } else {
        record_status_key(k, st->key_id);
        char *why = rotate(k, st->key_id);
        if (why != NULL)
            errs[n++] = why;
    }
    if (n == 0)
        return NULL;
    /* kube's aggregate: one error as itself, several as "[a, b]" */
    char *list =
        gw_sprintf("%s%s%s%s%s%s%s", n > 1 ? "[" : "", errs[0], n > 1 ? ", " : "",
                   n > 1 ? errs[1] : "", n > 2 ? ", " : "", n > 2 ? errs[2] : "", n > 1 ? "]" : "");
    char *out = gw_sprintf("kmsv2 Provider %s is not healthy, error: %s", k->name, list);
    for (size_t i = 0; i < n; i++)
        free(errs[i]);
    free(list);
    return out;
}

/* One probe: Status, then the judgement; the answer is what the health check reports. */
static void
probe(gw_enc_kms_t *k)
{
    V2__StatusResponse *st = NULL;
    char rpc[WHY_LEN / 2], *why;

    if (kms_status(k->client, &st, rpc, sizeof(rpc)) != 0) {
        why = gw_sprintf("failed to perform status section of the healthz check for KMS Provider "
                         "%s, error: %s",
                         k->name, rpc);
    } else {
        why = judge(k, st);
        v2__status_response__free_unpacked(st, NULL);
    }
    pthread_mutex_lock(&k->lock);
    if (why != NULL && k->healthy)
        gw_log_warn(NULL, "kms plugin failed health check probe: %s", why);
    else if (why == NULL && !k->healthy && k->probed_ms != 0)
        gw_log_info(NULL, "kms provider %s: healthy again", k->name);
    k->healthy = why == NULL;
    snprintf(k->why, sizeof(k->why), "%s", why != NULL ? why : "");
    k->probed_ms = gw_monotonic_ms();
    pthread_mutex_unlock(&k->lock);
    free(why);
}

static void
deadline_in(struct timespec *ts, int64_t ms)
{
    clock_gettime(CLOCK_MONOTONIC, ts);
    ts->tv_sec += ms / 1000;
    ts->tv_nsec += (ms % 1000) * 1000000;
    if (ts->tv_nsec >= 1000000000) {
        ts->tv_sec++;
        ts->tv_nsec -= 1000000000;
    }
}

static void *
probe_main(void *arg)
{
    gw_enc_kms_t *k = arg;

    pthread_mutex_lock(&k->lock);
    while (!k->stop) {
        int64_t every = k->healthy ? POLL_HEALTHY_MS : POLL_UNHEALTHY_MS;
        int64_t wait = k->probed_ms + every - gw_monotonic_ms();
        if (!k->probe_now && wait > 0) {
            struct timespec until;
            deadline_in(&until, wait);
            pthread_cond_timedwait(&k->wake, &k->lock, &until);
            continue;
        }
        k->probe_now = false;
        pthread_mutex_unlock(&k->lock);
        probe(k);
        pthread_mutex_lock(&k->lock);
    }
    pthread_mutex_unlock(&k->lock);
    return NULL;
}

gw_enc_kms_t *
gw_enc__kms_new(const char *name, const char *endpoint, int64_t timeout_ms)
{
    gw_enc_kms_t *k = gw_calloc(1, sizeof(*k));
    pthread_condattr_t attr;

    k->name = gw_strdup(name);
    k->endpoint = gw_strdup(endpoint);
    k->timeout_ms = timeout_ms;
    snprintf(k->why, sizeof(k->why), "kms provider %s is not started", name);
    gw_apiserver_id_hash(k->id_hash, sizeof(k->id_hash));
    pthread_mutex_init(&k->lock, NULL);
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&k->wake, &attr);
    pthread_condattr_destroy(&attr);
    return k;
}

void
gw_enc__kms_start(gw_enc_kms_t *k)
{
    if (k->client != NULL)
        return;
    k->client = kms_client_new(k->endpoint, k->timeout_ms, k->name);
    probe(k); /* kube primes the state inline; a plugin not up yet is not fatal */
    if (!k->healthy)
        gw_log_warn(NULL, "kms plugin failed health check probe: %s", k->why);
    if (pthread_create(&k->thread, NULL, probe_main, k) != 0)
        abort();
}

void
gw_enc__kms_free(gw_enc_kms_t *k)
{
    if (k == NULL)
        return;
    if (k->client != NULL) {
        pthread_mutex_lock(&k->lock);
        k->stop = true;
        pthread_cond_signal(&k->wake);
        pthread_mutex_unlock(&k->lock);
        pthread_join(k->thread, NULL);
        kms_client_free(k->client);
    }
    state_unref(k->state);
    OPENSSL_cleanse(k->cache, k->n_cache * sizeof(*k->cache));
    free(k->cache);
    pthread_cond_destroy(&k->wake);
    pthread_mutex_destroy(&k->lock);
    free(k->name);
    free(k->endpoint);
    free(k);
}

bool
gw_enc__kms_check(gw_enc_kms_t *k, char *why, size_t why_len)
{
    bool ok;

    pthread_mutex_lock(&k->lock);
    int64_t ttl = k->healthy ? PROBE_TTL_HEALTHY_MS : PROBE_TTL_UNHEALTHY_MS;
    if (gw_monotonic_ms() - k->probed_ms >= ttl) {
        k->probe_now = true;
        pthread_cond_signal(&k->wake);
    }
    ok = k->healthy;
    snprintf(why, why_len, "%s", k->why);
    pthread_mutex_unlock(&k->lock);
    return ok;
}

/* ---- values ------------------------------------------------------------------------------ */

int
gw_enc__kms_seal(gw_enc_kms_t *k, const gw_value_key_t *aad, const char *head, size_t hlen,
                 const uint8_t *in, size_t len, gw_value_t *out, char *err, size_t err_len)
{
    state_t *s = state_get(k);
    gw_value_t sealed;
    int64_t now = wall_ms(), expires;
    char h[80], t1[32], t2[32];

    if (s == NULL) {
        snprintf(err, err_len, "got unexpected nil transformer");
        return GW_EINTERNAL;
    }
    if (now > (expires = atomic_load(&s->expires_ms))) {
        key_id_hash(s->tmpl.keyid, h);
        rfc3339(expires, t1);
        rfc3339(now, t2);
        snprintf(err, err_len,
                 "encryptedDEKSource with keyID hash \"%s\" expired at %s (current time is %s)", h,
                 t1, t2);
        state_unref(s);
        return GW_EINTERNAL;
    }
    /* a read of what this writes finds its seed without asking the plugin */
    cache_set(k, s->cache_key, s->seed, GW_KMS_SEED, true);
    if (gw_kms__seed_seal(s->seed, GW_KMS_SEED, aad, in, len, &sealed, err, err_len) != 0) {
        state_unref(s);
        return GW_EINTERNAL;
    }
    record_use(k, "to_storage", s->tmpl.keyid);
    V2__EncryptedObject o = s->tmpl;
    o.encrypteddata = (ProtobufCBinaryData){sealed.len, (uint8_t *)sealed.data};
    size_t n = v2__encrypted_object__get_packed_size(&o);
    uint8_t *buf = gw_malloc(hlen + n + 1);
    memcpy(buf, head, hlen);
    v2__encrypted_object__pack(&o, buf + hlen);
    *out = (gw_value_t){.data = buf, .len = hlen + n, .owned = buf};
    gw_value_clear(&sealed);
    state_unref(s);
    return 0;
}

/* The DEK source of o, from the cache or the plugin (kube's words on failure). */
static int
dek_source(gw_enc_kms_t *k, const V2__EncryptedObject *o, cached_t *out, char *err, size_t err_len)
{
    uint8_t hash[GW_KMS_HASH];
    bool seed =
        o->encrypteddeksourcetype == V2__ENCRYPTED_DEKSOURCE_TYPE__HKDF_SHA256_XNONCE_AES_GCM_SEED;
    V2__DecryptRequest req = V2__DECRYPT_REQUEST__INIT;
    V2__DecryptRequest__AnnotationsEntry *entries, **ptrs;
    V2__DecryptResponse *resp = NULL;
    char uid[GW_UUID_LEN + 1], rpc[WHY_LEN / 2];
    int rc;

    gw_kms__cache_key(o, hash);
    if (cache_get(k, hash, out))
        return 0;
    gw_uuid_v4(uid);
    entries = gw_calloc(o->n_annotations + 1, sizeof(*entries));
    ptrs = gw_calloc(o->n_annotations + 1, sizeof(*ptrs));
    for (size_t i = 0; i < o->n_annotations; i++) {
        entries[i] =
            (V2__DecryptRequest__AnnotationsEntry)V2__DECRYPT_REQUEST__ANNOTATIONS_ENTRY__INIT;
        entries[i].key = o->annotations[i]->key;
        entries[i].value = o->annotations[i]->value;
        ptrs[i] = &entries[i];
    }
    req.ciphertext = o->encrypteddeksource;
    req.uid = uid;
    req.key_id = o->keyid;
    req.n_annotations = o->n_annotations;
    req.annotations = ptrs;
    rc = kms_decrypt(k->client, &req, &resp, rpc, sizeof(rpc));
    free(entries);
    free(ptrs);
    if (rc != 0) {
        snprintf(err, err_len, "failed to decrypt DEK, error: %s", rpc);
        return GW_EINTERNAL;
    }
    size_t n = resp->plaintext.len;
    if (seed ? n < GW_KMS_SEED || n > GW_KMS_SEED : n != 16 && n != 24 && n != 32) {
        /* kube: NewHKDFExtendedNonceGCMTransformer's, or aes.NewCipher's */
        if (seed && n < GW_KMS_SEED)
            snprintf(err, err_len, "invalid seed length %zu used for key generation", n);
        else if (seed)
            snprintf(err, err_len, "kgate takes seeds of %d bytes, got %zu", GW_KMS_SEED, n);
        else
            snprintf(err, err_len, "crypto/aes: invalid key size %zu", n);
        v2__decrypt_response__free_unpacked(resp, NULL);
        return GW_EINTERNAL;
    }
    cache_set(k, hash, resp->plaintext.data, n, seed);
    memset(out, 0, sizeof(*out));
    memcpy(out->key, resp->plaintext.data, n);
    out->key_len = n;
    out->seed = seed;
    OPENSSL_cleanse(resp->plaintext.data, n);
    v2__decrypt_response__free_unpacked(resp, NULL);
    return 0;
}

int
gw_enc__kms_open(gw_enc_kms_t *k, const gw_value_key_t *aad, const uint8_t *in, size_t len,
                 gw_value_t *out, char *err, size_t err_len)
{
    V2__EncryptedObject *o = gw_kms__decode(in, len, err, err_len);
    state_t *s;
    cached_t dek;
    int rc;

    if (o == NULL)
        return GW_EINTERNAL;
    if ((s = state_get(k)) == NULL) { /* kube reads only with a state too */
        snprintf(err, err_len, "got unexpected nil transformer");
        v2__encrypted_object__free_unpacked(o, NULL);
        return GW_EINTERNAL;
    }
    rc = dek_source(k, o, &dek, err, err_len);
    if (rc == 0) {
        record_use(k, "from_storage", o->keyid);
        if (dek.seed) {
            rc = gw_kms__seed_open(dek.key, dek.key_len, aad, o->encrypteddata.data,
                                   o->encrypteddata.len, out, err, err_len);
        } else {
            gw_enc_key_t key = {.secret_len = dek.key_len};
            memcpy(key.secret, dek.key, dek.key_len);
            rc = gw_enc__open(GW_ENC_AESGCM, &key, aad, o->encrypteddata.data, o->encrypteddata.len,
                              out, err, err_len);
            OPENSSL_cleanse(key.secret, sizeof(key.secret));
        }
        OPENSSL_cleanse(&dek, sizeof(dek));
    }
    if (rc == 0) /* another key ID or DEK source type wrote it: a replace rewrites it */
        out->stale = strcmp(o->keyid, s->tmpl.keyid) != 0 ||
                     o->encrypteddeksourcetype != s->tmpl.encrypteddeksourcetype;
    state_unref(s);
    v2__encrypted_object__free_unpacked(o, NULL);
    return rc;
}
