/* Bootstrap tokens: the token form, the Secret's rules (type, id, secret, expiration, usage,
 * deletion, extra groups) and hostile Secrets, through authn's public calls as the gateway
 * makes them (authenticate, answer the Secret need, finish). */
#include "authn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <openssl/evp.h>

#include "authn_bootstrap.h"
#include "gw_err.h"
#include "tap.h"

#define TOKEN "abcdef.0123456789abcdef"

static authn_t *
bootstrap_authn(bool enabled)
{
    /* without the union's cache of accepted tokens: one token meets many Secrets in turn */
    authn_config_t cfg = {.bootstrap_tokens = enabled, .token_cache_ttl_ms = -1};
    authn_t *a = NULL;
    char err[256];
    if (authn_new(&cfg, &a, err, sizeof(err)) != 0)
        abort();
    return a;
}

static char *
b64(const char *s)
{
    char *out = malloc(strlen(s) * 2 + 8);
    EVP_EncodeBlock((unsigned char *)out, (const unsigned char *)s, (int)strlen(s));
    return out;
}

/* A Secret as stored: data values given as text are base64-encoded here; keys with a NULL
 * value are left out. pairs: key, value, ..., NULL. */
static char *
secret_json(const char *type, const char *const *pairs)
{
    json_t *data = json_object();
    for (size_t i = 0; pairs[i] != NULL; i += 2) {
        if (pairs[i + 1] == NULL)
            continue;
        char *v = b64(pairs[i + 1]);
        json_object_set_new(data, pairs[i], json_string(v));
        free(v);
    }
    json_t *o =
        json_pack("{s:s,s:s,s:{s:s,s:s},s:o}", "kind", "Secret", "apiVersion", "v1", "metadata",
                  "name", "bootstrap-token-abcdef", "namespace", "kube-system", "data", data);
    if (type != NULL)
        json_object_set_new(o, "type", json_string(type));
    char *s = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    return s;
}

/* Authenticate `token`, answer the Secret need with `object` (NULL: not found) or err, and
 * describe the outcome: "user|g1,g2", "401", or "no-need" when nothing was asked. */
static const char *
run(const authn_t *a, const char *token, const char *object, int err)
{
    static char out[1024];
    char header[256], why[256];
    authn_request_t req = {.authorization = header};
    authn_user_t *u = NULL;
    authn_pending_t *p = NULL;
    const authn_need_t *needs;

    snprintf(header, sizeof(header), "Bearer %s", token);
    authn_result_t res = authn_authenticate(a, &req, &u, &p, why, sizeof(why));
    if (res != AUTHN_PENDING) {
        authn_user_free(u);
        snprintf(out, sizeof(out), "%s", res == AUTHN_OK ? "ok-at-once" : "no-need");
        return out;
    }
    size_t n = authn_pending_needs(p, &needs);
    if (n != 1 || needs[0].kind != AUTHN_NEED_OBJECT || strcmp(needs[0].resource, "secrets") ||
        strcmp(needs[0].namespace, "kube-system") ||
        strncmp(needs[0].name, "bootstrap-token-", 16) != 0) {
        authn_pending_free(p);
        return "bad-need";
    }
    authn_answer_t ans = {.err = err, .object = object, .object_len = object ? strlen(object) : 0};
    authn_pending_t *again = NULL;
    res = authn_pending_finish(a, p, &ans, &u, &again, why, sizeof(why));
    authn_pending_free(again);
    if (res != AUTHN_OK)
        return "401";
    int len = snprintf(out, sizeof(out), "%s|", u->name);
    for (size_t i = 0; i < u->n_groups; i++)
        len += snprintf(out + len, sizeof(out) - (size_t)len, "%s%s", i ? "," : "", u->groups[i]);
    authn_user_free(u);
    return out;
}

static const char *
with_secret(const authn_t *a, const char *type, const char *const *pairs)
{
    char *s = secret_json(type, pairs);
    const char *r = run(a, TOKEN, s, 0);
    free(s);
    return r;
}

#define BT "bootstrap.kubernetes.io/token"
#define GOOD "token-id", "abcdef", "token-secret", "0123456789abcdef"
#define AUTH "usage-bootstrap-authentication", "true"
#define BOOTSTRAPPERS "system:bootstrappers,system:authenticated"

static void
test_token_form(void)
{
    authn_t *a = bootstrap_authn(true), *off = bootstrap_authn(false);
    tap_is_str(run(off, TOKEN, NULL, 0), "no-need", "disabled: the token is not read");
    tap_is_str(run(a, "abcdef.0123456789abcdeX", NULL, 0), "no-need", "upper case secret");
    tap_is_str(run(a, "abcde.0123456789abcdef", NULL, 0), "no-need", "short id");
    tap_is_str(run(a, "abcdef0123456789abcdef", NULL, 0), "no-need", "no dot");
    tap_is_str(run(a, "abcdef.0123456789abcdef0", NULL, 0), "no-need", "long secret");
    tap_is_str(run(a, "abcdef:0123456789abcdef", NULL, 0), "no-need", "wrong separator");
    tap_is_str(run(a, "../../x.0123456789abcdef", NULL, 0), "no-need", "path in the id");
    tap_is_str(run(a, TOKEN, NULL, 0), "401", "no Secret: refused");
    tap_is_str(run(a, TOKEN, NULL, GW_EUNAVAILABLE), "401", "storage failing: refused");
    tap_is_str(run(a, TOKEN, "not json", 0), "401", "garbage stored: refused");
    tap_is_str(run(a, TOKEN, "[1,2]", 0), "401", "not an object: refused");
    authn_free(a);
    authn_free(off);
}

static void
test_secret_rules(void)
{
    authn_t *a = bootstrap_authn(true);
    tap_is_str(with_secret(a, BT, (const char *[]){GOOD, AUTH, NULL}),
               "system:bootstrap:abcdef|" BOOTSTRAPPERS, "a valid token");
    tap_is_str(with_secret(a, "Opaque", (const char *[]){GOOD, AUTH, NULL}), "401", "wrong type");
    tap_is_str(with_secret(a, NULL, (const char *[]){GOOD, AUTH, NULL}), "401", "no type");
    tap_is_str(with_secret(a, BT,
                           (const char *[]){"token-id", "abcdef", "token-secret",
                                            "0123456789abcdee", AUTH, NULL}),
               "401", "another secret");
    tap_is_str(with_secret(a, BT,
                           (const char *[]){"token-id", "abcdeg", "token-secret",
                                            "0123456789abcdef", AUTH, NULL}),
               "401", "another id");
    tap_is_str(with_secret(a, BT,
                           (const char *[]){"token-id", "abcdef", "token-secret",
                                            "0123456789abcdef0", AUTH, NULL}),
               "401", "a longer secret stored");
    tap_is_str(with_secret(a, BT, (const char *[]){GOOD, NULL}), "401", "no authentication usage");
    tap_is_str(
        with_secret(a, BT, (const char *[]){GOOD, "usage-bootstrap-authentication", "True", NULL}),
        "401", "usage must be exactly true");
    tap_is_str(with_secret(
                   a, BT, (const char *[]){GOOD, AUTH, "expiration", "2000-01-01T00:00:00Z", NULL}),
               "401", "expired");
    tap_is_str(with_secret(
                   a, BT, (const char *[]){GOOD, AUTH, "expiration", "2999-01-01T00:00:00Z", NULL}),
               "system:bootstrap:abcdef|" BOOTSTRAPPERS, "expiring later");
    tap_is_str(with_secret(a, BT, (const char *[]){GOOD, AUTH, "expiration", "tomorrow", NULL}),
               "401", "an unreadable expiration counts as expired");
    authn_free(a);
}

static void
test_extra_groups(void)
{
    authn_t *a = bootstrap_authn(true);
    tap_is_str(
        with_secret(a, BT,
                    (const char *[]){GOOD, AUTH, "auth-extra-groups",
                                     " system:bootstrappers:z , system:bootstrappers:a-1:b", NULL}),
        "system:bootstrap:abcdef|system:bootstrappers,system:bootstrappers:a-1:b,"
        "system:bootstrappers:z,system:authenticated",
        "extra groups trimmed and sorted after system:bootstrappers");
    tap_is_str(with_secret(a, BT,
                           (const char *[]){GOOD, AUTH, "auth-extra-groups",
                                            "system:bootstrappers:x,system:bootstrappers:x", NULL}),
               "system:bootstrap:abcdef|system:bootstrappers,system:bootstrappers:x,"
               "system:authenticated",
               "a repeated group once");
    const char *bad[] = {"system:masters",          "system:bootstrappers",
                         "system:bootstrappers:",   "system:bootstrappers:A",
                         "system:bootstrappers:x-", "system:bootstrappers:x,system:masters"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        tap_is_str(
            with_secret(a, BT, (const char *[]){GOOD, AUTH, "auth-extra-groups", bad[i], NULL}),
            "401", bad[i]);
    }
    authn_free(a);
}

static void
test_hostile_secrets(void)
{
    authn_t *a = bootstrap_authn(true);
    const char *objects[] = {
        "{\"type\":\"" BT "\",\"data\":{\"token-id\":\"YWJjZGVm\",\"token-secret\":"
        "\"MDEyMzQ1Njc4OWFiY2RlZg\",\"usage-bootstrap-authentication\":\"dHJ1ZQ==\"}}",
        "{\"type\":\"" BT "\",\"data\":{\"token-id\":\"YWJjZGVm\",\"token-secret\":"
        "\"MDEyMzQ1Njc4OWFiY2RlZg==\",\"usage-bootstrap-authentication\":1}}",
        "{\"type\":\"" BT "\",\"data\":{\"token-id\":\"YWJjZGVm\",\"token-secret\":"
        "\"MDEyMzQ1Njc4OWFi\\u0000Y2RlZg==\",\"usage-bootstrap-authentication\":\"dHJ1ZQ==\"}}",
        "{\"type\":\"" BT "\",\"data\":{\"token-id\":\"YWJjZGVmAA==\",\"token-secret\":"
        "\"MDEyMzQ1Njc4OWFiY2RlZg==\",\"usage-bootstrap-authentication\":\"dHJ1ZQ==\"}}",
        "{\"type\":\"" BT "\",\"data\":\"x\"}",
        "{\"type\":7,\"data\":{}}",
    };
    const char *names[] = {"unpadded base64",    "a usage that is no string",
                           "NUL in base64 text", "NUL inside the decoded id",
                           "data not an object", "type a number"};
    for (size_t i = 0; i < sizeof(objects) / sizeof(objects[0]); i++)
        tap_is_str(run(a, TOKEN, objects[i], 0), "401", names[i]);
    char *s = secret_json(BT, (const char *[]){GOOD, AUTH, NULL});
    json_t *o = json_loads(s, 0, NULL);
    json_object_set_new(json_object_get(o, "metadata"), "deletionTimestamp",
                        json_string("2024-01-01T00:00:00Z"));
    char *deleting = json_dumps(o, JSON_COMPACT);
    tap_is_str(run(a, TOKEN, deleting, 0), "401", "a Secret being deleted");
    free(deleting);
    json_decref(o);
    free(s);
    authn_free(a);
}

static void
test_helpers(void)
{
    char id[7], sec[17];
    tap_ok(authn_bootstrap_token_split(TOKEN, id, sec) && strcmp(id, "abcdef") == 0 &&
               strcmp(sec, "0123456789abcdef") == 0,
           "split");
    char long_group[300] = "system:bootstrappers:";
    memset(long_group + 21, 'a', 256);
    long_group[277] = '\0';
    tap_ok(authn_bootstrap_group_valid(long_group), "a 256-character group tail");
    long_group[277] = 'a';
    long_group[278] = '\0';
    tap_ok(!authn_bootstrap_group_valid(long_group), "a 257-character group tail");
}

int
main(void)
{
    test_token_form();
    test_secret_rules();
    test_extra_groups();
    test_hostile_secrets();
    test_helpers();
    return tap_done();
}
