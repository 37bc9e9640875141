/* Choosing a stored value's providers by its key, trying them as kube's prefix transformers
 * do, and the store's value transformer that chains encryption onto the storage encoding. */
#include "gw_enc_int.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_clock.h"
#include "gw_err.h"

#define ENC_MARK "k8s:enc:"
#define ENC_MARK_LEN 8

/* ---- the group-resource of a key ---------------------------------------------------------- */

/* Does rel lie in the collection at path ("secrets" holds "secrets/ns/x")? */
static bool
under(const char *rel, const char *path, size_t path_len)
{
    return strncmp(rel, path, path_len) == 0 && rel[path_len] == '/';
}

static const gw_enc_chain_t *
chain_for(const gw_enc_config_t *c, const char *group, size_t glen, const char *resource,
          size_t rlen)
{
    for (size_t i = 0; i < c->n_chains; i++) {
        const gw_enc_chain_t *ch = &c->chains[i];
        if (strlen(ch->group) == glen && strncmp(ch->group, group, glen) == 0 &&
            strlen(ch->resource) == rlen && strncmp(ch->resource, resource, rlen) == 0)
            return ch;
    }
    return NULL;
}

/* kube's lookup: "resource.group", "*.group", "*.*"; NULL: the encrypt-check identity. */
static const gw_enc_chain_t *
lookup(const gw_enc_config_t *c, const char *group, size_t glen, const char *resource, size_t rlen)
{
    const gw_enc_chain_t *ch = chain_for(c, group, glen, resource, rlen);

    if (ch == NULL)
        ch = chain_for(c, group, glen, "*", 1);
    if (ch == NULL)
        ch = chain_for(c, "*", 1, "*", 1);
    return ch;
}

/* The chain of a relative key: a built-in collection by its path; a custom resource's
 * ("<group>/<resource>/...", its group a domain name) by its two first segments. */
static const gw_enc_chain_t *
chain_of(const gw_enc_config_t *c, const char *rel)
{
    const char *slash = strchr(rel, '/'), *second;

    for (size_t i = 0; i < c->n_paths; i++) {
        const gw_enc_path_t *p = &c->paths[i];
        if (under(rel, p->path, p->path_len))
            return lookup(c, p->group, strlen(p->group), p->resource, strlen(p->resource));
    }
    if (slash != NULL && memchr(rel, '.', (size_t)(slash - rel)) != NULL) {
        second = strchr(slash + 1, '/');
        if (second != NULL)
            return lookup(c, rel, (size_t)(slash - rel), slash + 1, (size_t)(second - slash - 1));
    }
    return lookup(c, "*", 1, "*", 1);
}

/* ---- reading ------------------------------------------------------------------------------ */

/* Errors gathered as kube's aggregate prints them: duplicates once, "[a, b]" for several. */
typedef struct {
    char text[512];
    const char *seen[8];
    size_t n;
} errs_t;

static void
errs_add(errs_t *e, const char *msg)
{
    for (size_t i = 0; i < e->n; i++) {
        if (strcmp(e->seen[i], msg) == 0)
            return;
    }
    if (e->n < sizeof(e->seen) / sizeof(e->seen[0]))
        e->seen[e->n] = gw_strdup(msg);
    else
        return;
    e->n++;
}

/* Write the aggregate into err and free what e holds. */
static void
errs_print(errs_t *e, char *err, size_t err_len)
{
    size_t at = 0;

    if (e->n > 1)
        at += (size_t)snprintf(err, err_len, "[");
    for (size_t i = 0; i < e->n; i++) {
        if (at < err_len)
            at += (size_t)snprintf(err + at, err_len - at, "%s%s", i ? ", " : "", e->seen[i]);
        free((char *)e->seen[i]);
    }
    if (e->n > 1 && at < err_len)
        snprintf(err + at, err_len - at, "]");
}

static const char *
no_key_msg(gw_enc_kind_t kind)
{
    return kind == GW_ENC_SECRETBOX
               ? "no matching key was found for the provided Secretbox transformer"
               : "no matching key was found for the provided AES transformer";
}

/* One provider's keys over data (its prefix stripped): kube's inner prefix transformers. */
static int
open_with_keys(const gw_enc_provider_t *p, const gw_value_key_t *key, const uint8_t *in, size_t len,
               gw_value_t *out, errs_t *errs)
{
    char why[256];
    bool matched = false;

    for (size_t i = 0; i < p->n_keys; i++) {
        const gw_enc_key_t *k = &p->keys[i];
        size_t n = strlen(k->name);
        if (len <= n || memcmp(in, k->name, n) != 0 || in[n] != ':')
            continue;
        matched = true;
        int64_t start = gw_monotonic_ns();
        char *kp = gw_sprintf("%s:", k->name);
        int rc = gw_enc__open(p->kind, k, key, in + n + 1, len - n - 1, out, why, sizeof(why));
        gw_enc__record("from_storage", kp, start, rc == 0 ? NULL : why);
        free(kp);
        if (rc == 0) {
            out->stale = i != 0;
            return 0;
        }
        errs_add(errs, why);
    }
    if (!matched)
        errs_add(errs, no_key_msg(p->kind));
    return GW_EINTERNAL;
}

static int
open_chain(const gw_enc_chain_t *ch, const gw_value_key_t *key, const uint8_t *in, size_t len,
           gw_value_t *out, char *err, size_t err_len)
{
    bool sealed = len >= ENC_MARK_LEN && memcmp(in, ENC_MARK, ENC_MARK_LEN) == 0;
    errs_t errs = {.n = 0};

    for (size_t i = 0; i < ch->n; i++) {
        const gw_enc_provider_t *p = ch->providers[i];
        size_t plen = strlen(p->prefix);
        int64_t start = gw_monotonic_ns();
        if (p->kind == GW_ENC_IDENTITY) {
            /* kube tries the next provider when identity meets an encrypted value */
            if (sealed)
                continue;
            gw_value_view(out, in, len);
            out->stale = i != 0;
            gw_enc__record("from_storage", "identity", start, NULL);
            return 0;
        }
        if (len < plen || memcmp(in, p->prefix, plen) != 0)
            continue;
        if (p->kind == GW_ENC_KMS) {
            char why[1024];
            int rc = gw_enc__kms_open(p->kms, key, in + plen, len - plen, out, why, sizeof(why));
            gw_enc__record("from_storage", p->prefix, start, rc == 0 ? NULL : why);
            if (rc == 0) {
                out->stale = out->stale || i != 0;
                return 0;
            }
            errs_add(&errs, why);
            continue;
        }
        size_t before = errs.n;
        if (open_with_keys(p, key, in + plen, len - plen, out, &errs) == 0) {
            gw_enc__record("from_storage", p->prefix, start, NULL);
            out->stale = out->stale || i != 0;
            return 0;
        }
        gw_enc__record("from_storage", p->prefix, start,
                       errs.n > before ? errs.seen[errs.n - 1] : "failed");
    }
    if (errs.n == 0) {
        snprintf(err, err_len, "no matching prefix found");
        return GW_EINTERNAL;
    }
    errs_print(&errs, err, err_len);
    return GW_EINTERNAL;
}

int
gw_enc_decrypt(const gw_enc_config_t *c, const gw_value_key_t *key, const uint8_t *in, size_t len,
               gw_value_t *out, char *err, size_t err_len)
{
    const gw_enc_chain_t *ch = chain_of(c, key->rel);

    if (ch != NULL)
        return open_chain(ch, key, in, len, out, err, err_len);
    if (len >= ENC_MARK_LEN && memcmp(in, ENC_MARK, ENC_MARK_LEN) == 0) {
        snprintf(err, err_len, "identity transformer tried to read encrypted data");
        return GW_EINTERNAL;
    }
    gw_value_view(out, in, len);
    return 0;
}

/* ---- writing ------------------------------------------------------------------------------ */

int
gw_enc_encrypt(const gw_enc_config_t *c, const gw_value_key_t *key, const uint8_t *in, size_t len,
               gw_value_t *out, char *err, size_t err_len)
{
    const gw_enc_chain_t *ch = chain_of(c, key->rel);
    const gw_enc_provider_t *p = ch != NULL ? ch->providers[0] : NULL;
    char head[300];
    int hlen;

    int64_t start = gw_monotonic_ns();
    int rc;
    if (p == NULL || p->kind == GW_ENC_IDENTITY) {
        gw_value_view(out, in, len);
        if (p != NULL) /* a configured identity: kube's prefix transformer counts it */
            gw_enc__record("to_storage", "", start, NULL);
        return 0;
    }
    if (p->kind == GW_ENC_KMS) { /* the first provider writes: never a later one instead */
        rc =
            gw_enc__kms_seal(p->kms, key, p->prefix, strlen(p->prefix), in, len, out, err, err_len);
        gw_enc__record("to_storage", p->prefix, start, rc == 0 ? NULL : err);
        return rc;
    }
    hlen = snprintf(head, sizeof(head), "%s%s:", p->prefix, p->keys[0].name);
    if (hlen < 0 || (size_t)hlen >= sizeof(head)) {
        snprintf(err, err_len, "key name too long");
        return GW_EINTERNAL;
    }
    rc = gw_enc__seal(p->kind, &p->keys[0], key, head, (size_t)hlen, in, len, out, err, err_len);
    /* the key's prefix transformer inside the provider's counts it too, as kube's nesting */
    gw_enc__record("to_storage", head + strlen(p->prefix), start, rc == 0 ? NULL : err);
    gw_enc__record("to_storage", p->prefix, start, rc == 0 ? NULL : err);
    return rc;
}

/* ---- the store's transformer -------------------------------------------------------------- */

struct gw_enc_transformer {
    gw_value_transformer_t values; /* first: the vtable's ctx is t itself */
    const gw_value_transformer_t *inner;
    _Atomic(gw_enc_config_t *) current;
    _Atomic long active;   /* values being transformed now */
    gw_enc_config_t **old; /* replaced by reloads, not yet collected */
    size_t n_old;
};

/* A value's transformation holds t's configuration from here to release: a collect that finds
 * none active frees what was replaced, since any later one loads the current configuration
 * (both sides sequentially consistent: the increment precedes the load). */
static gw_enc_config_t *
acquire(gw_enc_transformer_t *t)
{
    atomic_fetch_add(&t->active, 1);
    return atomic_load(&t->current);
}

static void
release(gw_enc_transformer_t *t)
{
    atomic_fetch_sub(&t->active, 1);
}

static gw_enc_transformer_t *
self(const gw_value_transformer_t *v)
{
    return (gw_enc_transformer_t *)v->ctx; /* the transformer is its own mutable state */
}

/* When the outer step passed the inner one's new buffer through as a view, the answer takes it
 * over; what is left of mid is freed. */
static void
hand_over(gw_value_t *out, gw_value_t *mid)
{
    if (out->owned == NULL && mid->owned != NULL) {
        out->owned = mid->owned;
        mid->owned = NULL;
    }
    gw_value_clear(mid);
}

static int
from_storage(const gw_value_transformer_t *v, const gw_value_key_t *key, const uint8_t *in,
             size_t len, gw_value_t *out, char *err, size_t err_len)
{
    gw_enc_transformer_t *t = self(v);
    gw_enc_config_t *c = acquire(t);
    gw_value_t plain;
    int rc = gw_enc_decrypt(c, key, in, len, &plain, err, err_len);

    release(t);
    if (rc != 0)
        return rc;
    rc = t->inner->from_storage(t->inner, key, plain.data, plain.len, out, err, err_len);
    if (rc != 0) {
        gw_value_clear(&plain);
        return rc;
    }
    out->stale = plain.stale;
    hand_over(out, &plain); /* JSON passes the decrypted bytes through */
    return 0;
}

static int
to_storage(const gw_value_transformer_t *v, const gw_value_key_t *key, const uint8_t *json,
           size_t len, gw_value_t *out, char *err, size_t err_len)
{
    gw_enc_transformer_t *t = self(v);
    gw_value_t encoded;
    int rc = t->inner->to_storage(t->inner, key, json, len, &encoded, err, err_len);

    if (rc != 0)
        return rc;
    rc = gw_enc_encrypt(acquire(t), key, encoded.data, encoded.len, out, err, err_len);
    release(t);
    if (rc != 0) {
        gw_value_clear(&encoded);
        return rc;
    }
    hand_over(out, &encoded); /* identity over a transcoded value */
    return 0;
}

gw_enc_transformer_t *
gw_enc_transformer_new(gw_enc_config_t *c, const gw_value_transformer_t *inner)
{
    gw_enc_transformer_t *t = gw_calloc(1, sizeof(*t));

    t->values =
        (gw_value_transformer_t){.from_storage = from_storage, .to_storage = to_storage, .ctx = t};
    t->inner = inner;
    atomic_init(&t->current, c);
    atomic_init(&t->active, 0);
    return t;
}

const gw_value_transformer_t *
gw_enc_transformer_values(const gw_enc_transformer_t *t)
{
    return &t->values;
}

void
gw_enc_transformer_swap(gw_enc_transformer_t *t, gw_enc_config_t *c)
{
    gw_enc_config_t *was = atomic_exchange(&t->current, c);

    t->old = gw_realloc(t->old, (t->n_old + 1) * sizeof(*t->old));
    t->old[t->n_old++] = was;
}

void
gw_enc_transformer_collect(gw_enc_transformer_t *t)
{
    if (t->n_old == 0 || atomic_load(&t->active) != 0)
        return;
    for (size_t i = 0; i < t->n_old; i++)
        gw_enc_config_free(t->old[i]);
    free(t->old);
    t->old = NULL;
    t->n_old = 0;
}

bool
gw_enc_transformer_kms_healthy(void *arg, char *why, size_t why_len)
{
    gw_enc_transformer_t *t = arg;
    bool ok = gw_enc_config_kms_healthy(acquire(t), why, why_len);

    release(t);
    return ok;
}

void
gw_enc_transformer_free(gw_enc_transformer_t *t)
{
    if (t == NULL)
        return;
    gw_enc_config_free(atomic_load(&t->current));
    for (size_t i = 0; i < t->n_old; i++)
        gw_enc_config_free(t->old[i]);
    free(t->old);
    free(t);
}
