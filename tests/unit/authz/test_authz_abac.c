/* ABAC: reading a policy file (comments, blank lines, kube's error naming the line) and kube's
 * matching of user, group, readonly, apiGroup, resource, namespace and nonResourcePath, as
 * tables of requests against policy files, v1beta1 and unversioned (v0) lines as kube converts
 * them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "authz.h"
#include "authz_abac.h"
#include "tap.h"

#define P(spec)                                                                                    \
    "{\"apiVersion\":\"abac.authorization.kubernetes.io/v1beta1\",\"kind\":\"Policy\","            \
    "\"spec\":" spec "}\n"

/* One policy a line, as a policy file holds them (clang-format would run them together). */
/* clang-format off */
static const char policies[] =
    "# admin may do anything\n"
    P("{\"user\":\"admin\",\"namespace\":\"*\",\"resource\":\"*\",\"apiGroup\":\"*\","
      "\"nonResourcePath\":\"*\"}")
    "\n"
    "   # an indented comment\n"
    P("{\"user\":\"scheduler\",\"readonly\":true,\"namespace\":\"*\",\"resource\":\"pods\"}")
    P("{\"user\":\"bob\",\"readonly\":true,\"namespace\":\"projectCaribou\",\"resource\":\"*\","
      "\"apiGroup\":\"*\"}")
    P("{\"group\":\"devs\",\"namespace\":\"dev\",\"resource\":\"deployments\",\"apiGroup\":\"apps\"}")
    P("{\"user\":\"carol\",\"group\":\"ops\",\"namespace\":\"\",\"resource\":\"nodes\"}")
    P("{\"user\":\"*\",\"readonly\":true,\"nonResourcePath\":\"/version\"}")
    P("{\"group\":\"system:unauthenticated\",\"readonly\":true,\"nonResourcePath\":\"/healthz\"}")
    P("{\"group\":\"*\",\"readonly\":true,\"nonResourcePath\":\"/apis/*\"}")
    P("{\"user\":\"dave\",\"nonResourcePath\":\"/logs**\"}")
    P("{\"user\":\"erin\",\"namespace\":\"*\",\"apiGroup\":\"*\"}")
    "\r\n";
/* clang-format on */

typedef struct {
    const char *user;
    const char *group; /* one group besides system:authenticated, or NULL */
    const char *verb;
    const char *group_res; /* "api group/resource" for a resource request, NULL otherwise */
    const char *ns;
    const char *path;
    bool allowed;
    const char *what;
} case_t;

static const case_t cases[] = {
    {"admin", NULL, "delete", "/secrets", "kube-system", NULL, true, "wildcards match anything"},
    {"admin", NULL, "post", NULL, NULL, "/anything", true, "nonResourcePath * matches any path"},
    {"scheduler", NULL, "list", "/pods", "a", NULL, true, "readonly allows list"},
    {"scheduler", NULL, "watch", "/pods", "", NULL, true, "namespace * matches cluster-wide"},
    {"scheduler", NULL, "create", "/pods", "a", NULL, false, "readonly refuses create"},
    {"scheduler", NULL, "get", "/pods/log", "a", NULL, true, "subresources are not looked at"},
    {"scheduler", NULL, "get", "/nodes", "", NULL, false, "not another resource"},
    {"scheduler", NULL, "get", "apps/pods", "a", NULL, false, "apiGroup \"\" is the core group"},
    {"bob", NULL, "get", "apps/deployments", "projectCaribou", NULL, true, "bob reads his ns"},
    {"bob", NULL, "get", "/pods", "other", NULL, false, "bob, not another namespace"},
    {"bob", NULL, "patch", "/pods", "projectCaribou", NULL, false, "bob is read-only"},
    {"zed", "devs", "create", "apps/deployments", "dev", NULL, true, "a group member writes"},
    {"zed", "qa", "create", "apps/deployments", "dev", NULL, false, "others do not"},
    {"zed", "devs", "create", "extensions/deployments", "dev", NULL, false, "other api group"},
    {"carol", "ops", "update", "/nodes", "", NULL, true, "user and group both match"},
    {"carol", "dev", "update", "/nodes", "", NULL, false, "user matches, group does not"},
    {"frank", "ops", "update", "/nodes", "", NULL, false, "group matches, user does not"},
    {"carol", "ops", "update", "/nodes", "x", NULL, false, "namespace \"\": cluster-wide only"},
    {"anyone", NULL, "get", NULL, NULL, "/version", true, "user *: every authenticated user"},
    {"system:anonymous", "system:unauthenticated", "get", NULL, NULL, "/version", false,
     "user * does not include anonymous"},
    {"system:anonymous", "system:unauthenticated", "get", NULL, NULL, "/healthz", true,
     "the unauthenticated group by name"},
    {"anyone", NULL, "get", "/version", "", NULL, false, "a path policy matches no resource"},
    {"anyone", NULL, "get", NULL, NULL, "/apis/apps/v1", true, "a path prefix with *"},
    {"anyone", NULL, "get", NULL, NULL, "/apis", false, "the prefix keeps its slash"},
    {"system:anonymous", "system:unauthenticated", "get", NULL, NULL, "/apis/x", false,
     "group * does not include anonymous"},
    {"dave", NULL, "put", NULL, NULL, "/logs/kubelet", true, "every trailing * dropped"},
    {"dave", NULL, "put", NULL, NULL, "/log", false, "a shorter path does not match"},
    {"erin", NULL, "get", NULL, NULL, "/version", true, "erin is authenticated"},
    {"erin", NULL, "get", "/pods", "a", NULL, false, "resource unset matches resource \"\" only"},
};

/* Unversioned lines: no user and no group is every authenticated user, no namespace every
 * namespace, no resource every resource, any API group, and neither namespace nor resource
 * every non-resource path. */
static const char v0_policies[] =
    "{\"user\":\"v0admin\"}\n"
    "{\"user\":\"v0reader\",\"readonly\":true,\"resource\":\"pods\"}\n"
    "{\"group\":\"v0ops\",\"namespace\":\"ops\",\"nonResourcePath\":7}\n"
    "{\"user\":\"*\",\"namespace\":\"kube-public\",\"resource\":\"configmaps\"}\n"
    "{\"kind\":\"Policy\",\"user\":\"v0kind\",\"resource\":\"*\"}\n"
    "{\"apiVersion\":\"\",\"group\":\"v0null\",\"resource\":null,\"namespace\":\"n\"}\n";

static const case_t v0_cases[] = {
    {"v0admin", NULL, "delete", "/secrets", "kube-system", NULL, true, "v0: every resource"},
    {"v0admin", NULL, "delete", "apps/deployments", "", NULL, true, "v0: every API group"},
    {"v0admin", NULL, "post", NULL, NULL, "/anything", true, "v0: every non-resource path"},
    {"v0reader", NULL, "list", "/pods", "a", NULL, true, "v0: no namespace is every one"},
    {"v0reader", NULL, "get", "apps/pods", "", NULL, true, "v0: pods of any API group"},
    {"v0reader", NULL, "create", "/pods", "a", NULL, false, "v0: readonly"},
    {"v0reader", NULL, "get", "/secrets", "a", NULL, false, "v0: only its resource"},
    {"v0reader", NULL, "get", NULL, NULL, "/version", false, "v0: a resource, no paths"},
    {"zed", "v0ops", "create", "/configmaps", "ops", NULL, true, "v0: a group's namespace"},
    {"zed", "v0ops", "create", "/configmaps", "dev", NULL, false, "v0: only that namespace"},
    {"zed", "v0ops", "get", NULL, NULL, "/healthz", false, "v0: a namespace, no paths"},
    {"zed", "dev", "get", "/configmaps", "ops", NULL, false, "v0: not another group"},
    {"anyone", NULL, "update", "/configmaps", "kube-public", NULL, true,
     "v0: user * authenticated"},
    {"system:anonymous", "system:unauthenticated", "get", "/configmaps", "kube-public", NULL, false,
     "v0: user * is not anonymous"},
    {"v0kind", NULL, "get", "/pods", "x", NULL, true, "v0: kind Policy without apiVersion"},
    {"v0kind", NULL, "get", NULL, NULL, "/version", false, "v0: resource * is not empty"},
    {"zed", "v0null", "get", "/pods", "n", NULL, true, "v0: null and \"\" are absent"},
};

/* A line with no user and no group. */
static const char v0_everyone[] = "{\"readonly\":true}\n";

static const case_t v0_everyone_cases[] = {
    {"anyone", NULL, "get", "/secrets", "x", NULL, true, "v0 {}: every authenticated user"},
    {"anyone", NULL, "get", NULL, NULL, "/healthz", true, "v0 {}: every path"},
    {"anyone", NULL, "delete", "/secrets", "x", NULL, false, "v0 {}: readonly kept"},
    {"system:anonymous", "system:unauthenticated", "get", NULL, NULL, "/healthz", false,
     "v0 {}: not the unauthenticated"},
};

static bool
decide(const authz_abac_t *pl, const case_t *c)
{
    char *groups[2] = {(char *)"system:authenticated", (char *)c->group};
    if (c->group != NULL && strcmp(c->group, "system:unauthenticated") == 0)
        groups[0] = (char *)c->group;
    authn_user_t u = {.name = (char *)c->user,
                      .uid = (char *)"",
                      .groups = groups,
                      .n_groups = c->group != NULL && groups[0] != c->group ? 2 : 1};
    char api_group[64] = "";
    const char *resource = "";
    if (c->group_res != NULL) {
        resource = strchr(c->group_res, '/') + 1;
        snprintf(api_group, sizeof(api_group), "%.*s", (int)(resource - 1 - c->group_res),
                 c->group_res);
    }
    char sub[64] = "";
    char res[64];
    snprintf(res, sizeof(res), "%s", resource);
    char *slash = strchr(res, '/');
    if (slash != NULL) {
        snprintf(sub, sizeof(sub), "%s", slash + 1);
        *slash = '\0';
    }
    authz_attrs_t a = {.user = &u,
                       .verb = c->verb,
                       .resource_request = c->group_res != NULL,
                       .path = c->path != NULL ? c->path : "/api",
                       .api_group = api_group,
                       .resource = res,
                       .subresource = sub,
                       .namespace_ = c->ns};
    return authz_abac_allows(pl, &a);
}

static void
run_cases(const char *text, const case_t *c, size_t n, const char *what)
{
    char err[512] = "";
    authz_abac_t *pl = NULL;
    int rc = authz_abac_parse("policy.jsonl", text, &pl, err, sizeof(err));
    tap_ok(rc == 0, "%s: %s", what, err);
    for (size_t i = 0; pl != NULL && i < n; i++)
        tap_ok(decide(pl, &c[i]) == c[i].allowed, "%s %s: %s", c[i].user, c[i].verb, c[i].what);
    authz_abac_free(pl);
}

static void
test_matching(void)
{
    run_cases(policies, cases, sizeof(cases) / sizeof(cases[0]),
              "the policy file parses, comments and blank lines skipped");
    run_cases(v0_policies, v0_cases, sizeof(v0_cases) / sizeof(v0_cases[0]),
              "unversioned lines parse");
    run_cases(v0_everyone, v0_everyone_cases,
              sizeof(v0_everyone_cases) / sizeof(v0_everyone_cases[0]), "an empty v0 line parses");
}

static void
expect_bad(const char *text, const char *want, const char *what)
{
    char err[512] = "";
    authz_abac_t *pl = NULL;
    int rc = authz_abac_parse("/etc/p.jsonl", text, &pl, err, sizeof(err));
    tap_ok(rc != 0 && pl == NULL && strstr(err, want) != NULL, "%s: %s", what, err);
}

static void
test_bad_lines(void)
{
    expect_bad("# ok\n\n{\"apiVersion\":\n",
               "error reading policy file /etc/p.jsonl, line 3: "
               "{\"apiVersion\":: ",
               "broken JSON names its line");
    expect_bad(P("{}") "{\"kind\":\"Role\",\"user\":\"a\"}\n",
               "line 2: ", "no apiVersion with another kind");
    expect_bad("{\"apiVersion\":\"abac.authorization.kubernetes.io/v1beta1\",\"user\":\"a\"}\n",
               "line 1: ", "an apiVersion without kind is not unversioned");
    expect_bad("{\"user\":7}\n", "user, group, resource and namespace must be strings",
               "a v0 user that is not a string");
    expect_bad("{\"user\":\"a\",\"readonly\":1}\n", "readonly must be a boolean",
               "a v0 readonly that is not a boolean");
    expect_bad("{\"apiVersion\":\"abac.authorization.kubernetes.io/v1beta1\",\"kind\":\"Role\"}",
               "line 1: ", "another kind");
    expect_bad(P("{\"user\":7}"), "must be strings", "a user that is not a string");
    expect_bad(P("{\"readonly\":\"yes\"}"), "readonly must be a boolean",
               "readonly that is not a boolean");
    expect_bad("[]\n", "not a JSON object", "an array");
}

static void
write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
}

typedef struct {
    authz_decision_t decision;
    char reason[64];
} result_t;

static void
on_done(authz_decision_t decision, const char *reason, const char *error, void *ctx)
{
    (void)error;
    result_t *r = ctx;
    r->decision = decision;
    snprintf(r->reason, sizeof(r->reason), "%s", reason);
}

/* The mode in a chain: no match is no opinion with kube's reason, so AlwaysDeny's and ABAC's
 * reasons are joined in the final denial. */
static void
test_mode(void)
{
    char path[] = "/tmp/abac-XXXXXX";
    char err[512] = "";
    close(mkstemp(path));
    tap_ok(authz_abac_use_file("/nonexistent/p", err, sizeof(err)) != 0 &&
               strstr(err, "error reading policy file /nonexistent/p") != NULL,
           "a missing file is an error: %s", err);
    write_file(path, P("{\"user\":\"alice\",\"namespace\":\"*\",\"resource\":\"pods\"}"));
    tap_is_int(authz_abac_use_file(path, err, sizeof(err)), 0, "the file is read");
    authz_t *z = NULL;
    tap_is_int(authz_new("AlwaysDeny,ABAC", &z, err, sizeof(err)), 0, "ABAC is a mode");
    char *groups[] = {(char *)"system:authenticated"};
    authn_user_t u = {.name = (char *)"alice", .uid = (char *)"", .groups = groups, .n_groups = 1};
    authz_attrs_t a = {.user = &u,
                       .verb = "delete",
                       .resource_request = true,
                       .api_group = "",
                       .resource = "pods",
                       .namespace_ = "x",
                       .path = "/api/v1/namespaces/x/pods"};
    result_t r = {0};
    authz_authorize(z, &a, on_done, &r);
    tap_ok(r.decision == AUTHZ_ALLOW, "alice may delete pods");
    u.name = (char *)"mallory";
    authz_authorize(z, &a, on_done, &r);
    tap_ok(r.decision == AUTHZ_NO_OPINION, "mallory may not");
    tap_is_str(r.reason, "Everything is forbidden.\nNo policy matched.", "with the reasons joined");
    authz_free(z);
    unlink(path);
}

int
main(void)
{
    test_matching();
    test_bad_lines();
    test_mode();
    return tap_done();
}
