/* The token webhook: kubeconfigs good and hostile, the TokenReview it sends, the answers it
 * reads (accepted, refused, broken, hostile), and its cache (both verdicts, for the TTL only,
 * failures never). The webhook's clock is the test's. */
#include "../../../authn/authn_webhook.c"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tap.h"

static int64_t fake_now = 1000000;

static int64_t
fake_clock(void)
{
    return fake_now;
}

static char dir[64];

static void
write_file(const char *name, const char *text)
{
    char *path = gw_sprintf("%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
    free(path);
}

/* authn_new with the webhook's kubeconfig `name`; NULL (and the reason in err) on error. */
static authn_t *
with_config(const char *name, const char *version, long long ttl, char *err, size_t err_len)
{
    char *path = gw_sprintf("%s/%s", dir, name);
    /* the webhook's own cache under test: the union's cache of accepted tokens is off */
    authn_config_t cfg = {.webhook_config_file = path,
                          .webhook_cache_ttl = ttl,
                          .webhook_version = version,
                          .token_cache_ttl_ms = -1};
    authn_t *a = NULL;

    err[0] = '\0';
    authn_new(&cfg, &a, err, err_len);
    free(path);
    return a;
}

/* ---- kubeconfigs ------------------------------------------------------------------------ */

static const char *const GOOD =
    "apiVersion: v1\nkind: Config\n"
    "clusters:\n- name: other\n  cluster:\n    server: https://other.example/\n"
    "- name: hook\n  cluster:\n    server: https://127.0.0.1:8443/review\n"
    "    certificate-authority: ca.pem\n"
    "users:\n- name: someone\n  user:\n    token: wrong\n"
    "- name: kgate\n  user:\n    client-certificate-data: Y2VydA==\n"
    "    client-key: keys/client.key\n    token: abc\n"
    "contexts:\n- name: main\n  context:\n    cluster: hook\n    user: kgate\n"
    "current-context: main\n";

static void
kubeconfigs(void)
{
    char err[512];
    authn_tls_t tls;
    char *server;

    tap_is_int(authn__kubeconfig_parse(GOOD, strlen(GOOD), dir, &server, &tls, err, sizeof(err)), 0,
               "a kubeconfig with a current-context parses");
    tap_is_str(server, "https://127.0.0.1:8443/review", "the current context's cluster");
    tap_is_str(tls.ca_pem, "CA PEM\n", "certificate-authority read relative to the kubeconfig");
    tap_is_str(tls.cert_pem, "cert", "client-certificate-data decoded");
    tap_is_str(tls.key_pem, "KEY PEM\n", "client-key read from a relative path");
    tap_is_str(tls.bearer_token, "abc", "the current context's user's token");
    authn__kubeconfig_clear(&server, &tls);

    static const char *const first = "{\"clusters\":[{\"name\":\"a\",\"cluster\":{\"server\":"
                                     "\"https://h/\",\"certificate-authority-data\":\"Q0E=\"}}],"
                                     "\"users\":[{\"name\":\"u\",\"user\":{}}]}";
    tap_is_int(authn__kubeconfig_parse(first, strlen(first), dir, &server, &tls, err, sizeof(err)),
               0, "JSON without a current-context: the first cluster and user");
    tap_is_str(tls.ca_pem, "CA", "certificate-authority-data decoded");
    tap_ok(tls.cert_pem == NULL && tls.bearer_token == NULL, "no client credentials");
    authn__kubeconfig_clear(&server, &tls);

    static const struct {
        const char *text, *why;
    } bad[] = {
        {"", "an empty file"},
        {"clusters: [", "YAML that does not parse"},
        {"- a\n- b\n", "a list, not a kubeconfig"},
        {"clusters:\n- cluster:\n    server: http://h/\n", "a plain http server"},
        {"clusters:\n- cluster: {}\n", "no server"},
        {"clusters: 7\n", "clusters not a list"},
        {"clusters:\n- cluster:\n    server: https://h/\n    certificate-authority-data: '***'\n",
         "certificate-authority-data not base64"},
        {"clusters:\n- cluster:\n    server: https://h/\n    certificate-authority: nope.pem\n",
         "a certificate-authority file that does not exist"},
        {"clusters:\n- cluster:\n    server: https://h/\nusers:\n- user:\n"
         "    client-certificate-data: Y2VydA==\n",
         "a client certificate without its key"},
        {"clusters:\n- cluster:\n    server: https://h/\nusers:\n- user:\n"
         "    client-key: keys/client.key\n",
         "a client key without its certificate"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        err[0] = '\0';
        int rc = authn__kubeconfig_parse(bad[i].text, strlen(bad[i].text), dir, &server, &tls, err,
                                         sizeof(err));
        tap_ok(rc == GW_EINVAL && server == NULL && err[0] != '\0', "refused: %s (%s)", bad[i].why,
               err);
    }
}

static void
startup(void)
{
    char err[512];
    authn_t *a;

    write_file("good.yaml", GOOD);
    a = with_config("good.yaml", NULL, 120, err, sizeof(err));
    tap_ok(a != NULL, "authn_new reads the webhook's kubeconfig");
    authn_free(a);
    a = with_config("missing.yaml", NULL, 120, err, sizeof(err));
    tap_ok(a == NULL && strstr(err, "missing.yaml") != NULL,
           "a missing kubeconfig is a start-up error naming it (%s)", err);
    write_file("plain.yaml", "clusters:\n- cluster:\n    server: http://h/\n");
    a = with_config("plain.yaml", NULL, 120, err, sizeof(err));
    tap_ok(a == NULL && strstr(err, "https") != NULL, "an http server is a start-up error (%s)",
           err);
}

/* ---- reviews ----------------------------------------------------------------------------- */

/* Authenticate `token`: the result, with the pending review (if any) in *p. */
static authn_result_t
ask(authn_t *a, const char *token, authn_user_t **user, authn_pending_t **p)
{
    char *header = gw_sprintf("Bearer %s", token);
    authn_request_t req = {.authorization = header};
    char why[256];
    authn_result_t r = authn_authenticate(a, &req, user, p, why, sizeof(why));

    free(header);
    return r;
}

/* Answer the pending review with status and body; the result. */
static authn_result_t
answer(authn_t *a, authn_pending_t *p, int err, int status, const char *body, authn_user_t **user)
{
    authn_answer_t ans = {
        .err = err, .status = status, .body = body, .body_len = body != NULL ? strlen(body) : 0};
    authn_pending_t *again = NULL;
    char why[256];
    authn_result_t r = authn_pending_finish(a, p, &ans, user, &again, why, sizeof(why));

    authn_pending_free(again);
    return r;
}

static const char *const ACCEPT =
    "{\"apiVersion\":\"authentication.k8s.io/v1\",\"kind\":\"TokenReview\",\"status\":{"
    "\"authenticated\":true,\"user\":{\"username\":\"jane\",\"uid\":\"42\",\"groups\":[\"dev\","
    "7,\"ops\"],\"extra\":{\"scopes\":[\"a\",\"b\"],\"bad\":\"not a list\"}}}}";

static void
request_sent(authn_t *a)
{
    authn_user_t *user = NULL;
    authn_pending_t *p = NULL;
    const authn_need_t *needs;

    tap_is_int(ask(a, "tok-1", &user, &p), AUTHN_PENDING, "an unknown token asks the webhook");
    tap_is_int(authn_pending_needs(p, &needs), 1, "one exchange");
    tap_ok(needs[0].kind == AUTHN_NEED_HTTPS && strcmp(needs[0].method, "POST") == 0, "a POST");
    tap_is_str(needs[0].url, "https://127.0.0.1:8443/review", "to the kubeconfig's server");
    json_t *body = json_loads(needs[0].body, 0, NULL);
    tap_is_str(json_string_value(json_object_get(body, "apiVersion")), "authentication.k8s.io/v1",
               "the configured TokenReview version");
    tap_is_str(json_string_value(json_object_get(body, "kind")), "TokenReview", "a TokenReview");
    tap_is_str(json_string_value(json_object_get(json_object_get(body, "spec"), "token")), "tok-1",
               "carrying the token");
    json_decref(body);
    tap_is_str(needs[0].tls->bearer_token, "abc", "with the kubeconfig's credentials");
    tap_is_int(answer(a, p, 0, 200, ACCEPT, &user), AUTHN_OK, "an accepting review");
    tap_is_str(user->name, "jane", "username");
    tap_is_str(user->uid, "42", "uid");
    tap_is_int(user->n_groups, 3, "string groups kept, others dropped, system:authenticated added");
    tap_is_str(user->groups[2], "system:authenticated", "system:authenticated");
    tap_ok(user->n_extra == 1 && strcmp(user->extra[0].key, "scopes") == 0 &&
               user->extra[0].n_values == 2,
           "extra lists kept, a non-list dropped");
    authn_user_free(user);
}

static void
cache(authn_t *a)
{
    authn_user_t *user = NULL;
    authn_pending_t *p = NULL;

    tap_is_int(ask(a, "tok-1", &user, &p), AUTHN_OK, "an accepted token is cached");
    tap_ok(p == NULL && user != NULL && strcmp(user->name, "jane") == 0, "the cached user");
    authn_user_free(user);
    user = NULL;
    ask(a, "tok-2", &user, &p);
    tap_is_int(
        answer(a, p, 0, 200, "{\"status\":{\"authenticated\":false,\"error\":\"no\"}}", &user),
        AUTHN_UNAUTHORIZED, "a refusing review is a 401");
    p = NULL;
    tap_is_int(ask(a, "tok-2", &user, &p), AUTHN_UNAUTHORIZED, "the refusal is cached");
    tap_ok(p == NULL, "without asking again");
    fake_now += 119 * 1000;
    tap_is_int(ask(a, "tok-1", &user, &p), AUTHN_OK, "still cached just before the TTL");
    authn_user_free(user);
    user = NULL;
    fake_now += 2000;
    tap_is_int(ask(a, "tok-1", &user, &p), AUTHN_PENDING, "asked again once the TTL has passed");
    authn_pending_free(p);
    p = NULL;
    tap_is_int(ask(a, "tok-2", &user, &p), AUTHN_PENDING, "the refusal expires too");
    authn_pending_free(p);
}

static void
failures(authn_t *a)
{
    static const struct {
        int err, status;
        const char *body, *name;
    } cases[] = {
        {GW_EUNAVAILABLE, 0, NULL, "an unreachable webhook"},
        {GW_ETIMEOUT, 0, NULL, "a webhook that timed out"},
        {0, 500, "{\"status\":{\"authenticated\":true,\"user\":{\"username\":\"x\"}}}",
         "an error status, whatever the body"},
        {0, 200, "not json", "a body that is not JSON"},
        {0, 200, "", "an empty body"},
        {0, 200, "[1,2]", "a list"},
        {0, 200, "{\"status\":\"yes\"}", "a status that is not an object"},
        {0, 200, "{\"status\":{\"authenticated\":\"true\"}}", "authenticated as a string"},
        {0, 200, "{\"status\":{\"authenticated\":true}}", "accepted without a user"},
        {0, 200, "{\"status\":{\"authenticated\":true,\"user\":{\"username\":\"\"}}}",
         "accepted with an empty username"},
        {0, 200, "{\"status\":{\"authenticated\":true,\"user\":{\"username\":7}}}",
         "a username that is not a string"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        authn_user_t *user = NULL;
        authn_pending_t *p = NULL;
        ask(a, "tok-3", &user, &p);
        tap_is_int(answer(a, p, cases[i].err, cases[i].status, cases[i].body, &user),
                   AUTHN_UNAUTHORIZED, cases[i].name);
        p = NULL;
        tap_is_int(ask(a, "tok-3", &user, &p), AUTHN_PENDING, "... and not cached");
        authn_pending_free(p);
    }
}

/* With API audiences: sent in spec.audiences; a review naming none of them refuses. */
static void
audiences(void)
{
    static const char *const auds[] = {"api", "other", NULL};
    char *path = gw_sprintf("%s/good.yaml", dir);
    authn_config_t cfg = {.webhook_config_file = path,
                          .webhook_cache_ttl = 120,
                          .api_audiences = auds,
                          .token_cache_ttl_ms = -1};
    authn_t *a = NULL;
    authn_user_t *user = NULL;
    authn_pending_t *p = NULL;
    const authn_need_t *needs;
    char err[256];

    authn_new(&cfg, &a, err, sizeof(err));
    ask(a, "aud-1", &user, &p);
    authn_pending_needs(p, &needs);
    json_t *body = json_loads(needs[0].body, 0, NULL);
    json_t *want = json_pack("[s,s]", "api", "other");
    tap_ok(json_equal(json_object_get(json_object_get(body, "spec"), "audiences"), want),
           "the API audiences go in spec.audiences");
    json_decref(want);
    json_decref(body);
    tap_is_int(answer(a, p, 0, 200,
                      "{\"status\":{\"authenticated\":true,\"audiences\":[\"x\","
                      "\"other\"],\"user\":{\"username\":\"u\"}}}",
                      &user),
               AUTHN_OK, "a review for one of them authenticates");
    authn_user_free(user);
    user = NULL;
    ask(a, "aud-2", &user, &p);
    tap_is_int(answer(a, p, 0, 200,
                      "{\"status\":{\"authenticated\":true,\"audiences\":[\"x\"],"
                      "\"user\":{\"username\":\"u\"}}}",
                      &user),
               AUTHN_UNAUTHORIZED, "a review for other audiences refuses");
    p = NULL;
    tap_is_int(ask(a, "aud-2", &user, &p), AUTHN_UNAUTHORIZED, "... and that refusal is cached");
    ask(a, "aud-3", &user, &p);
    tap_is_int(answer(a, p, 0, 200,
                      "{\"status\":{\"authenticated\":true,"
                      "\"user\":{\"username\":\"u\"}}}",
                      &user),
               AUTHN_OK, "a review naming no audience authenticates");
    authn_user_free(user);
    authn_free(a);
    free(path);
}

static void
no_cache(void)
{
    char err[512];
    authn_t *a = with_config("good.yaml", NULL, 0, err, sizeof(err));
    authn_user_t *user = NULL;
    authn_pending_t *p = NULL;
    const authn_need_t *needs;

    ask(a, "tok-1", &user, &p);
    authn_pending_needs(p, &needs);
    tap_ok(strstr(needs[0].body, "authentication.k8s.io/v1beta1") != NULL &&
               strstr(needs[0].body, "audiences") == NULL,
           "v1beta1 by default; no audiences without API audiences");
    answer(a, p, 0, 200, ACCEPT, &user);
    authn_user_free(user);
    p = NULL;
    tap_is_int(ask(a, "tok-1", &user, &p), AUTHN_PENDING, "a TTL of 0 caches nothing");
    authn_pending_free(p);
    authn_free(a);
}

int
main(void)
{
    char err[512];

    clock_ms = fake_clock;
    snprintf(dir, sizeof(dir), "%s/webhook-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (mkdtemp(dir) == NULL)
        tap_skip_all("no temporary folder");
    char *keys = gw_sprintf("%s/keys", dir);
    mkdir(keys, 0700);
    free(keys);
    write_file("ca.pem", "CA PEM\n");
    write_file("keys/client.key", "KEY PEM\n");
    kubeconfigs();
    startup();
    authn_t *a = with_config("good.yaml", "v1", 120, err, sizeof(err));
    request_sent(a);
    cache(a);
    failures(a);
    authn_free(a);
    audiences();
    no_cache();
    char *cmd = gw_sprintf("rm -rf '%s'", dir);
    if (system(cmd) != 0)
        tap_diag("could not remove %s", dir);
    free(cmd);
    return tap_done();
}
