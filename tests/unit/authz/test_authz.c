/* Authorization: the mode list, the chain's first-decision-wins rule with kube's joined
 * reasons, the system:masters bypass, and authorizers that answer later. */
#include "authz.c"

#include "authz_result.h"
#include "gw_buf.h"
#include "gw_metric.h"
#include "tap.h"

static char err[256];

static authn_user_t *
user(const char *name, const char *group)
{
    static char *groups[1];
    static authn_user_t u;
    groups[0] = (char *)group;
    u = (authn_user_t){
        .name = (char *)name, .uid = (char *)"", .groups = groups, .n_groups = group != NULL};
    return &u;
}

static result_t
decide(const authz_t *z, const authn_user_t *u)
{
    result_t r = {0};
    authz_attrs_t attrs = {.user = u,
                           .verb = "get",
                           .resource_request = true,
                           .api_group = "",
                           .api_version = "v1",
                           .resource = "pods",
                           .namespace_ = "default",
                           .name = "x",
                           .subresource = "",
                           .path = "/api/v1/namespaces/default/pods/x"};
    authz_authorize(z, &attrs, on_done, &r);
    return r;
}

static void
test_modes(void)
{
    authz_t *z = NULL;
    tap_is_int(authz_new("AlwaysAllow", &z, err, sizeof(err)), 0, "AlwaysAllow builds");
    result_t r = decide(z, user("alice", NULL));
    tap_ok(r.calls == 1 && r.decision == AUTHZ_ALLOW, "AlwaysAllow allows, once");
    authz_free(z);

    tap_is_int(authz_new("AlwaysDeny", &z, err, sizeof(err)), 0, "AlwaysDeny builds");
    r = decide(z, user("alice", "dev"));
    tap_ok(r.calls == 1 && r.decision == AUTHZ_NO_OPINION, "AlwaysDeny denies (no opinion), once");
    tap_is_str(r.reason, "Everything is forbidden.", "with kube's reason");
    r = decide(z, user("admin", "system:masters"));
    tap_ok(r.calls == 1 && r.decision == AUTHZ_ALLOW, "system:masters is allowed before any mode");
    tap_is_str(r.reason, "", "... with no reason");
    r = decide(z, NULL);
    tap_ok(r.calls == 1 && r.decision == AUTHZ_NO_OPINION, "no user at all is denied");
    authz_free(z);

    tap_is_int(authz_new("AlwaysDeny,AlwaysAllow", &z, err, sizeof(err)), 0, "two modes build");
    r = decide(z, user("alice", NULL));
    tap_ok(r.decision == AUTHZ_ALLOW, "AlwaysDeny has no opinion, so a later AlwaysAllow allows");
    authz_free(z);

    tap_is_int(authz_new("RBAC,AlwaysDeny", &z, err, sizeof(err)), 0, "RBAC builds");
    tap_ok(authz_has_mode(z, "RBAC") && !authz_has_mode(z, "AlwaysAllow"),
           "... and is in the chain");
    r = decide(z, user("alice", "dev"));
    tap_ok(r.decision == AUTHZ_NO_OPINION, "RBAC without a snapshot has no opinion: denied");
    tap_is_str(r.reason, "Everything is forbidden.", "... with the reasons of those without one");
    authz_free(z);

    struct {
        const char *modes, *want;
    } bad[] = {
        {"Foo", "authorization-mode \"Foo\" is not a valid mode"},
        {"AlwaysAllow,alwaysdeny", "authorization-mode \"alwaysdeny\" is not a valid mode"},
        {"AlwaysAllow,AlwaysAllow",
         "authorization-mode \"AlwaysAllow\" is specified more than once"},
        {"", "authorization-mode: empty mode in \"\""},
        {"AlwaysAllow,", "authorization-mode: empty mode in \"AlwaysAllow,\""},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        z = (authz_t *)1;
        tap_is_int(authz_new(bad[i].modes, &z, err, sizeof(err)), GW_EINVAL, bad[i].modes);
        tap_is_str(err, bad[i].want, "... the reason");
        tap_ok(z == NULL, "... and no chain");
    }
}

/* Test authorizers: fixed answers, and one that answers when told to. */
static void
no_opinion(const authz_authorizer_t *self, const authz_attrs_t *attrs, authz_done_cb cb, void *ctx)
{
    (void)attrs;
    cb(AUTHZ_NO_OPINION, self->name, NULL, ctx);
}

static void
deny(const authz_authorizer_t *self, const authz_attrs_t *attrs, authz_done_cb cb, void *ctx)
{
    (void)self, (void)attrs;
    cb(AUTHZ_DENY, "denied here", NULL, ctx);
}

static authz_done_cb pending_cb;
static void *pending_ctx;
static char seen_verb[32];

static void
later(const authz_authorizer_t *self, const authz_attrs_t *attrs, authz_done_cb cb, void *ctx)
{
    (void)self;
    snprintf(seen_verb, sizeof(seen_verb), "%s", attrs->verb);
    pending_cb = cb;
    pending_ctx = ctx;
}

static authz_authorizer_t a_none1 = {
    .name = "first", .label = "first", .authorize = no_opinion, .free = free_static};
static authz_authorizer_t a_none2 = {
    .name = "second", .label = "second", .authorize = no_opinion, .free = free_static};
static authz_authorizer_t a_deny = {
    .name = "Deny", .label = "deny", .authorize = deny, .free = free_static};
static authz_authorizer_t a_later = {
    .name = "later", .label = "later", .authorize = later, .free = free_static};

/* A chain of up to three static authorizers (NULL ends it). */
static authz_t *
chain_of(authz_authorizer_t *a, authz_authorizer_t *b, authz_authorizer_t *c)
{
    authz__chain_t *ch = authz__chain_new();
    authz_authorizer_t *items[] = {a, b, c};

    for (size_t i = 0; i < 3 && items[i] != NULL; i++)
        authz__chain_add(ch, items[i]);
    return authz_with(ch);
}

static void
test_chain(void)
{
    authz_t *z = chain_of(&a_none1, &a_none2, NULL);
    result_t r = decide(z, user("u", NULL));
    tap_ok(r.calls == 1 && r.decision == AUTHZ_NO_OPINION,
           "all without opinion: denied, not explicitly");
    tap_is_str(r.reason, "first\nsecond", "the reasons joined by newlines, in order");

    authz_free(z);
    z = chain_of(&a_none1, &a_deny, &mode_always_allow);
    r = decide(z, user("u", NULL));
    tap_ok(r.decision == AUTHZ_DENY, "the first deny wins over a later allow");
    tap_is_str(r.reason, "denied here", "... with its own reason only");

    authz_free(z);
    z = chain_of(&a_none1, &a_later, &mode_always_allow);
    r = (result_t){0};
    authz_attrs_t attrs = {.user = user("u", NULL), .verb = "list", .path = "/x"};
    authz_authorize(z, &attrs, on_done, &r);
    tap_ok(r.calls == 0 && pending_cb != NULL, "an asynchronous authorizer suspends the decision");
    tap_is_str(seen_verb, "list", "it saw the attributes");
    pending_cb(AUTHZ_NO_OPINION, "thinking done", NULL, pending_ctx);
    tap_ok(r.calls == 1 && r.decision == AUTHZ_ALLOW,
           "its later no-opinion moves on to the next authorizer, which allows");

    authz_free(z);
    z = chain_of(&a_later, &a_none2, NULL);
    r = (result_t){0};
    authz_authorize(z, &attrs, on_done, &r);
    pending_cb(AUTHZ_NO_OPINION, "async says", NULL, pending_ctx);
    tap_ok(r.calls == 1 && r.decision == AUTHZ_NO_OPINION, "async then sync no-opinion: denied");
    tap_is_str(r.reason, "async says\nsecond", "reasons from both");

    r = (result_t){0};
    authz_authorize(z, &attrs, on_done, &r);
    pending_cb(AUTHZ_ALLOW, "yes", NULL, pending_ctx);
    tap_ok(r.calls == 1 && r.decision == AUTHZ_ALLOW, "an asynchronous allow decides");
    tap_is_str(r.reason, "yes", "... with its reason");
    tap_is_str(r.error, "", "... and no error");

    authz_free(z);
    z = chain_of(&a_later, &a_none2, &a_later);
    r = (result_t){0};
    authz_authorize(z, &attrs, on_done, &r);
    pending_cb(AUTHZ_NO_OPINION, "", "hook one failed", pending_ctx);
    pending_cb(AUTHZ_DENY, "no", "hook two failed", pending_ctx);
    tap_ok(r.calls == 1 && r.decision == AUTHZ_DENY, "failed authorizers still decide");
    tap_is_str(r.error, "hook one failed, hook two failed", "their errors joined, in order");
    tap_is_str(r.reason, "no", "... beside the deciding reason");
    authz_free(z);
}

/* apiserver_authorization_decisions_total counts terminal decisions by the deciding
 * authorizer's type and name; no opinion and system:masters are not counted. */
static void
test_metrics(void)
{
    static authz_authorizer_t counted = {
        .name = "Deny", .label = "counted", .authorize = deny, .free = free_static};
    gw_buf_t b = {0};
    authz_t *z = chain_of(&a_none1, &counted, NULL);

    decide(z, user("u", NULL));
    decide(z, user("u", NULL));
    gw_metric_render(&b);
    char *text = gw_buf_take(&b);
    tap_ok(strstr(text,
                  "apiserver_authorization_decisions_total{decision=\"denied\",name=\"counted\","
                  "type=\"Deny\"} 2\n") != NULL,
           "two denials counted under the denying authorizer's type and name");
    tap_ok(strstr(text, "name=\"first\"") == NULL, "an authorizer without opinion is not counted");
    decide(z, user("root", "system:masters"));
    gw_metric_render(&b);
    char *after = gw_buf_take(&b);
    tap_is_str(after, text, "system:masters' allow is not counted");
    authz_free(z);
    free(text);
    free(after);
    gw_metric_reset(); /* last: the call sites' cached families are gone after it */
}

int
main(void)
{
    test_modes();
    test_chain();
    test_metrics();
    return tap_done();
}
