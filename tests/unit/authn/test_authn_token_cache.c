/* The verified-token cache: keys as kube's keyFunc makes them (an HMAC under a per-cache
 * random key of the length-prefixed token and audiences), the TTL never overstepped (also while
 * requests hold the shared user), the bound that forgets the oldest entry, many threads at once;
 * and the union in front of it: accepted bearer tokens are served from it until the TTL, refusals,
 * certificates and proxy users are not cached. */
#include "authn_token_cache.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "authn_int.h"
#include "tap.h"

static int64_t now_ms = 1000;

static int64_t
fake_clock(void)
{
    return now_ms;
}

static authn_user_t *
user(const char *name)
{
    authn_user_t *u = authn__user_new(name, "uid-1");
    authn__user_add_group(u, "dev");
    authn__user_add_group(u, "ops");
    authn_user_add_extra(u, "example.com/scope", "a");
    authn_user_add_extra(u, "example.com/scope", "b");
    return u;
}

/* "name|uid|groups|key=v1,v2" of a user. */
static const char *
describe(const authn_user_t *u)
{
    static char s[512];
    int n = snprintf(s, sizeof(s), "%s|%s|", u->name, u->uid);
    for (size_t i = 0; i < u->n_groups; i++)
        n += snprintf(s + n, sizeof(s) - (size_t)n, "%s%s", i ? "," : "", u->groups[i]);
    for (size_t i = 0; i < u->n_extra; i++) {
        n += snprintf(s + n, sizeof(s) - (size_t)n, "|%s=", u->extra[i].key);
        for (size_t j = 0; j < u->extra[i].n_values; j++)
            n +=
                snprintf(s + n, sizeof(s) - (size_t)n, "%s%s", j ? "," : "", u->extra[i].values[j]);
    }
    return s;
}

static bool
same_key(const authn__token_key_t *a, const authn__token_key_t *b)
{
    return memcmp(a->b, b->b, sizeof(a->b)) == 0;
}

static void
test_keys(void)
{
    authn__token_cache_t *c = authn__token_cache_new(64, 10000, fake_clock);
    authn__token_cache_t *other = authn__token_cache_new(64, 10000, fake_clock);
    const char *const ab[] = {"a", "b"}, *const ba[] = {"b", "a"}, *const bc[] = {"bc"};
    const char *const c1[] = {"c"}, *const empty[] = {""};
    authn__token_key_t k1, k2;

    authn__token_cache_key(c, "tok", ab, 2, &k1);
    authn__token_cache_key(c, "tok", ab, 2, &k2);
    tap_ok(same_key(&k1, &k2), "the same token and audiences make the same key");
    authn__token_cache_key(c, "tok2", ab, 2, &k2);
    tap_ok(!same_key(&k1, &k2), "another token, another key");
    authn__token_cache_key(c, "tok", ba, 2, &k2);
    tap_ok(!same_key(&k1, &k2), "the audiences' order counts, as in kube's key");
    authn__token_cache_key(c, "tok", ab, 1, &k2);
    tap_ok(!same_key(&k1, &k2), "fewer audiences, another key");
    authn__token_cache_key(c, "ab", c1, 1, &k1);
    authn__token_cache_key(c, "a", bc, 1, &k2);
    tap_ok(!same_key(&k1, &k2), "lengths are written: \"ab\"+\"c\" is not \"a\"+\"bc\"");
    authn__token_cache_key(c, "tok", NULL, 0, &k1);
    authn__token_cache_key(c, "tok", empty, 1, &k2);
    tap_ok(!same_key(&k1, &k2), "no audience is not one empty audience");
    authn__token_cache_key(other, "tok", NULL, 0, &k2);
    tap_ok(!same_key(&k1, &k2), "each cache keys under its own random secret");
    authn__token_cache_free(c);
    authn__token_cache_free(other);
}

static void
test_get_put(void)
{
    authn__token_cache_t *c = authn__token_cache_new(64, 10000, fake_clock);
    authn__token_key_t k, k2;
    authn_user_t *u = user("alice"), *got = NULL;

    now_ms = 1000;
    authn__token_cache_key(c, "tok", NULL, 0, &k);
    authn__token_cache_key(c, "tok2", NULL, 0, &k2);
    tap_ok(!authn__token_cache_get(c, &k, &got) && got == NULL, "an empty cache has nothing");
    authn__token_cache_put(c, &k, u);
    tap_ok(authn__token_cache_get(c, &k, &got), "a stored user is found");
    tap_is_str(describe(got), "alice|uid-1|dev,ops|example.com/scope=a,b",
               "... as it was stored: name, uid, groups, extra with every value");
    tap_ok(got == u, "... shared, not copied");
    authn_user_free(got);
    tap_ok(!authn__token_cache_get(c, &k2, &got), "another token finds nothing");
    tap_is_int((int)authn__token_cache_count(c), 1, "one entry");

    now_ms = 1000 + 9999;
    tap_ok(authn__token_cache_get(c, &k, &got), "served until the TTL is over");
    authn_user_free(got);
    now_ms = 1000 + 10000;
    tap_ok(!authn__token_cache_get(c, &k, &got) && got == NULL,
           "not served once the TTL is over, to the millisecond");
    tap_is_int((int)authn__token_cache_count(c), 0, "an expired entry does not count");

    authn__token_cache_put(c, &k, u);
    now_ms += 5000;
    authn_user_t *bob = user("bob");
    authn__token_cache_put(c, &k, bob);
    authn_user_free(bob);
    tap_ok(authn__token_cache_get(c, &k, &got), "a key stored again");
    tap_is_str(got->name, "bob", "... holds the later user");
    authn_user_free(got);
    tap_is_int((int)authn__token_cache_count(c), 1, "... in one entry");
    now_ms += 9999;
    tap_ok(authn__token_cache_get(c, &k, &got), "... living its TTL from the later store");
    authn_user_free(got);
    authn_user_free(u);
    authn__token_cache_free(c);
}

/* A shared user outlives its entry for whoever holds it, and holding it keeps the entry from
 * nothing: it is not served past its TTL, nor once replaced or forgotten. */
static void
test_shared(void)
{
    authn__token_cache_t *c = authn__token_cache_new(32, 10000, fake_clock); /* one per stripe */
    authn__token_key_t k, k2;
    authn_user_t *u = user("alice"), *held = NULL, *got = NULL;

    now_ms = 1000;
    authn__token_cache_key(c, "tok", NULL, 0, &k);
    authn__token_cache_put(c, &k, u);
    authn_user_free(u); /* the cache's reference is the only one left */
    tap_ok(authn__token_cache_get(c, &k, &held), "a request takes the stored user");
    now_ms = 1000 + 10000;
    tap_ok(!authn__token_cache_get(c, &k, &got) && got == NULL,
           "held by a request, the entry still ends at its TTL");
    authn_user_t *bob = user("bob");
    authn__token_cache_put(c, &k, bob);
    authn_user_free(bob);
    tap_is_str(describe(held), "alice|uid-1|dev,ops|example.com/scope=a,b",
               "the request's user stays whole once its entry is replaced");
    tap_ok(authn__token_cache_get(c, &k, &got) && strcmp(got->name, "bob") == 0,
           "... while the key serves the later user");
    authn_user_free(got);
    authn_user_free(held);

    /* a key of the same stripe: storing it forgets the other in a cache of one per stripe */
    tap_ok(authn__token_cache_get(c, &k, &held), "a request takes bob");
    char tok[32];
    for (int i = 0; i < 10000; i++) {
        snprintf(tok, sizeof(tok), "tok-%d", i);
        authn__token_cache_key(c, tok, NULL, 0, &k2);
        if (k2.b[0] % 32 == k.b[0] % 32)
            break;
    }
    authn_user_t *carol = user("carol");
    authn__token_cache_put(c, &k2, carol);
    authn_user_free(carol);
    tap_ok(!authn__token_cache_get(c, &k, &got) && got == NULL,
           "held by a request, a forgotten entry is not served");
    tap_is_str(held->name, "bob", "... and the request's user stays whole");
    authn_user_free(held);
    authn__token_cache_free(c);
}

/* A cache of 64 (two per stripe) with 2000 tokens stored in turn: every stripe sees dozens. */
static void
test_bound(void)
{
    authn__token_cache_t *c = authn__token_cache_new(64, 10000, fake_clock);
    authn_user_t *u = user("alice"), *got = NULL;
    static authn__token_key_t keys[2000];
    char tok[32];
    int old_kept = 0;

    now_ms = 50000;
    for (int i = 0; i < 2000; i++) {
        snprintf(tok, sizeof(tok), "token-%d", i);
        authn__token_cache_key(c, tok, NULL, 0, &keys[i]);
        authn__token_cache_put(c, &keys[i], u);
        now_ms++;
    }
    tap_is_int((int)authn__token_cache_count(c), 64, "2000 tokens in a cache of 64: 64 kept");
    tap_ok(authn__token_cache_get(c, &keys[1999], &got), "the newest is kept");
    authn_user_free(got);
    for (int i = 0; i < 1000; i++) {
        if (authn__token_cache_get(c, &keys[i], &got)) {
            old_kept++;
            authn_user_free(got);
        }
    }
    tap_is_int(old_kept, 0, "the oldest are forgotten");

    now_ms += 10000;
    tap_is_int((int)authn__token_cache_count(c), 0, "all expired after the TTL");
    authn__token_cache_put(c, &keys[0], u);
    tap_ok(authn__token_cache_get(c, &keys[0], &got), "a full cache of expired entries takes more");
    authn_user_free(got);
    tap_is_int((int)authn__token_cache_count(c), 1, "... as its only live entry");
    authn_user_free(u);
    authn__token_cache_free(c);
}

/* ---- threads ----------------------------------------------------------------------------- */

#define THREADS 4
#define ROUNDS 4000
#define TOKENS 300 /* more than the cache of 128 holds: evictions race with reads */

typedef struct {
    authn__token_cache_t *c;
    unsigned seed;
    int wrong;
} worker_t;

static void *
work(void *arg)
{
    worker_t *w = arg;
    char tok[32];
    authn__token_key_t k;
    authn_user_t *got = NULL;

    for (int i = 0; i < ROUNDS; i++) {
        int t = (int)(rand_r(&w->seed) % TOKENS);
        snprintf(tok, sizeof(tok), "user-%d", t);
        authn__token_cache_key(w->c, tok, NULL, 0, &k);
        if (authn__token_cache_get(w->c, &k, &got)) {
            w->wrong += strcmp(got->name, tok) != 0;
            authn_user_free(got);
        } else {
            authn_user_t *u = authn__user_new(tok, "");
            authn__token_cache_put(w->c, &k, u);
            authn_user_free(u);
        }
    }
    return NULL;
}

static void
test_threads(void)
{
    authn__token_cache_t *c = authn__token_cache_new(128, 60000, NULL);
    pthread_t th[THREADS];
    worker_t w[THREADS];
    int wrong = 0;

    for (int i = 0; i < THREADS; i++) {
        w[i] = (worker_t){.c = c, .seed = (unsigned)i + 1};
        pthread_create(&th[i], NULL, work, &w[i]);
    }
    for (int i = 0; i < THREADS; i++) {
        pthread_join(th[i], NULL);
        wrong += w[i].wrong;
    }
    tap_is_int(wrong, 0, "4 threads storing and reading at once: each token finds its user");
    tap_ok(authn__token_cache_count(c) <= 128, "... and the bound holds");
    authn__token_cache_free(c);
}

/* ---- the union in front of the cache -------------------------------------------------------- */

static authn_t *
with_tokens(const char *text, long long ttl_ms)
{
    char path[] = "/tmp/authn-cache-test.XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
        abort();
    close(fd);
    const char *auds[] = {"https://kgate.test", NULL};
    authn_config_t cfg = {
        .token_auth_file = path, .api_audiences = auds, .token_cache_ttl_ms = ttl_ms};
    authn_t *a = NULL;
    char err[256];
    if (authn_new(&cfg, &a, err, sizeof(err)) != 0)
        tap_diag("authn_new: %s", err);
    unlink(path);
    return a;
}

static const char *
who(const authn_t *a, const char *authorization, X509 *cert)
{
    static char s[512];
    authn_request_t req = {.authorization = authorization, .client_cert = cert};
    authn_user_t *u = NULL;
    char why[128] = "";

    if (authn_authenticate(a, &req, &u, NULL, why, sizeof(why)) != AUTHN_OK)
        return "401";
    snprintf(s, sizeof(s), "%s", describe(u));
    authn_user_free(u);
    return s;
}

/* Rename the token file's user of `token`: what a fresh check would now answer. */
static void
rename_user(authn_t *a, const char *token, const char *name)
{
    authn__token_t *t = (authn__token_t *)authn__tokens_find(&a->tokens, token);
    free(t->name);
    t->name = strdup(name);
}

static X509 *
cert_for(const char *cn)
{
    X509 *x = X509_new();
    X509_NAME_add_entry_by_txt(X509_get_subject_name(x), "CN", MBSTRING_ASC,
                               (const unsigned char *)cn, -1, -1, 0);
    return x;
}

static void
test_union(void)
{
    authn_t *a = with_tokens("tok1,alice,u1,dev\ntok2,bob,u2\n", 200);
    authn__token_cache_t *c = a->token_cache;

    tap_ok(c != NULL, "the union's answers are cached by default");
    tap_is_str(who(a, "Bearer tok1", NULL), "alice|u1|dev,system:authenticated",
               "a token is checked");
    tap_is_int((int)authn__token_cache_count(c), 1, "... and its user remembered");
    rename_user(a, "tok1", "alice2");
    tap_is_str(who(a, "Bearer tok1", NULL), "alice|u1|dev,system:authenticated",
               "within the TTL the remembered user answers, not the authenticator");
    tap_is_str(who(a, "  bearer tok1  ", NULL), "alice|u1|dev,system:authenticated",
               "... under the token, whatever the header's spelling");
    authn__token_key_t k;
    authn_user_t *got = NULL;
    const char *auds[] = {"https://kgate.test"};
    authn__token_cache_key(c, "tok1", auds, 1, &k);
    tap_ok(authn__token_cache_get(c, &k, &got), "the key is the token's with the API audiences");
    tap_is_str(describe(got), "alice|u1|dev,system:authenticated",
               "... holding the user as handed out, system:authenticated included");
    authn_user_free(got);
    tap_is_str(who(a, "Bearer nope", NULL), "401", "an unknown token is refused");
    tap_is_str(who(a, "Bearer tok3", NULL), "401", "another");
    tap_is_int((int)authn__token_cache_count(c), 1, "refusals are not remembered (kube: no TTL)");

    X509 *x = cert_for("carol");
    tap_is_str(who(a, NULL, x), "carol||system:authenticated", "a certificate authenticates");
    tap_is_int((int)authn__token_cache_count(c), 1, "... and is not cached");
    X509_free(x);

    struct timespec ts = {0, 250 * 1000000L};
    nanosleep(&ts, NULL);
    tap_is_str(who(a, "Bearer tok1", NULL), "alice2|u1|dev,system:authenticated",
               "after the TTL the token is checked again");
    authn_free(a);

    a = with_tokens("tok1,alice,u1\n", -1);
    tap_ok(a->token_cache == NULL, "a negative TTL turns the cache off");
    tap_is_str(who(a, "Bearer tok1", NULL), "alice|u1|system:authenticated", "a token checked");
    rename_user(a, "tok1", "alice2");
    tap_is_str(who(a, "Bearer tok1", NULL), "alice2|u1|system:authenticated",
               "... and checked again at once");
    authn_free(a);

    authn_config_t anon = {.anonymous = true};
    char err[256];
    tap_is_int(authn_new(&anon, &a, err, sizeof(err)), 0, "no bearer-token authenticator");
    tap_ok(a->token_cache == NULL, "... no cache, as kube builds none without a token union");
    authn_free(a);
}

int
main(void)
{
    test_keys();
    test_get_put();
    test_shared();
    test_bound();
    test_threads();
    test_union();
    return tap_done();
}
