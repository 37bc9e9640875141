/* Request info: one table of method, path and query against what kube-apiserver's
 * RequestInfoFactory reports for them. */
#include <string.h>

#include "gw_arena.h"
#include "gw_err.h"
#include "gw_reqinfo.h"
#include "tap.h"

typedef struct {
    const char *method, *path, *query;
    int rc;       /* 0 or GW_EINVAL */
    int resource; /* is_resource */
    const char *verb, *prefix, *group, *version, *ns, *res, *sub, *name;
} row_t;

#define NR(m, p, q, verb)                                                                          \
    {                                                                                              \
        m, p, q, 0, 0, verb, "", "", "", "", "", "", ""                                            \
    }
#define BAD(m, p)                                                                                  \
    {                                                                                              \
        m, p, NULL, GW_EINVAL, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL                   \
    }

static const row_t rows[] = {
    /* core group, namespaced */
    {"GET", "/api/v1/namespaces/default/pods", NULL, 0, 1, "list", "api", "", "v1", "default",
     "pods", "", ""},
    {"GET", "/api/v1/namespaces/default/pods/p1", NULL, 0, 1, "get", "api", "", "v1", "default",
     "pods", "", "p1"},
    {"HEAD", "/api/v1/namespaces/default/pods/p1", NULL, 0, 1, "get", "api", "", "v1", "default",
     "pods", "", "p1"},
    {"POST", "/api/v1/namespaces/default/pods", NULL, 0, 1, "create", "api", "", "v1", "default",
     "pods", "", ""},
    {"PUT", "/api/v1/namespaces/default/pods/p1", NULL, 0, 1, "update", "api", "", "v1", "default",
     "pods", "", "p1"},
    {"PATCH", "/api/v1/namespaces/default/pods/p1", NULL, 0, 1, "patch", "api", "", "v1", "default",
     "pods", "", "p1"},
    {"DELETE", "/api/v1/namespaces/default/pods/p1", NULL, 0, 1, "delete", "api", "", "v1",
     "default", "pods", "", "p1"},
    {"DELETE", "/api/v1/namespaces/default/pods", NULL, 0, 1, "deletecollection", "api", "", "v1",
     "default", "pods", "", ""},
    {"GET", "/api/v1/namespaces/default/pods/p1/status", NULL, 0, 1, "get", "api", "", "v1",
     "default", "pods", "status", "p1"},
    {"PUT", "/api/v1/namespaces/default/pods/p1/status", NULL, 0, 1, "update", "api", "", "v1",
     "default", "pods", "status", "p1"},
    {"GET", "/api/v1/namespaces/default/pods/p1/log", "follow=true", 0, 1, "get", "api", "", "v1",
     "default", "pods", "log", "p1"},
    {"POST", "/api/v1/namespaces/default/pods/p1/exec", NULL, 0, 1, "create", "api", "", "v1",
     "default", "pods", "exec", "p1"},
    {"GET", "/api/v1/namespaces/default/pods/p1/extra/parts", NULL, 0, 1, "get", "api", "", "v1",
     "default", "pods", "extra", "p1"},
    /* all namespaces and cluster-scoped */
    {"GET", "/api/v1/pods", NULL, 0, 1, "list", "api", "", "v1", "", "pods", "", ""},
    {"GET", "/api/v1/nodes", NULL, 0, 1, "list", "api", "", "v1", "", "nodes", "", ""},
    {"GET", "/api/v1/nodes/n1", NULL, 0, 1, "get", "api", "", "v1", "", "nodes", "", "n1"},
    {"PATCH", "/api/v1/nodes/n1/status", NULL, 0, 1, "patch", "api", "", "v1", "", "nodes",
     "status", "n1"},
    {"DELETE", "/api/v1/nodes", NULL, 0, 1, "deletecollection", "api", "", "v1", "", "nodes", "",
     ""},
    /* namespaces themselves */
    {"GET", "/api/v1/namespaces", NULL, 0, 1, "list", "api", "", "v1", "", "namespaces", "", ""},
    {"POST", "/api/v1/namespaces", NULL, 0, 1, "create", "api", "", "v1", "", "namespaces", "", ""},
    {"GET", "/api/v1/namespaces/other", NULL, 0, 1, "get", "api", "", "v1", "other", "namespaces",
     "", "other"},
    {"DELETE", "/api/v1/namespaces/other", NULL, 0, 1, "delete", "api", "", "v1", "other",
     "namespaces", "", "other"},
    {"PUT", "/api/v1/namespaces/other/status", NULL, 0, 1, "update", "api", "", "v1", "other",
     "namespaces", "status", "other"},
    {"PUT", "/api/v1/namespaces/other/finalize", NULL, 0, 1, "update", "api", "", "v1", "other",
     "namespaces", "finalize", "other"},
    {"DELETE", "/api/v1/namespaces", NULL, 0, 1, "deletecollection", "api", "", "v1", "",
     "namespaces", "", ""},
    {"GET", "/api/v1/namespaces/ns/namespaces", NULL, 0, 1, "list", "api", "", "v1", "ns",
     "namespaces", "", ""},
    /* named groups */
    {"GET", "/apis/apps/v1/deployments", NULL, 0, 1, "list", "apis", "apps", "v1", "",
     "deployments", "", ""},
    {"GET", "/apis/apps/v1/namespaces/default/deployments/d", NULL, 0, 1, "get", "apis", "apps",
     "v1", "default", "deployments", "", "d"},
    {"PUT", "/apis/apps/v1/namespaces/default/deployments/d/scale", NULL, 0, 1, "update", "apis",
     "apps", "v1", "default", "deployments", "scale", "d"},
    {"POST", "/apis/rbac.authorization.k8s.io/v1/clusterroles", NULL, 0, 1, "create", "apis",
     "rbac.authorization.k8s.io", "v1", "", "clusterroles", "", ""},
    {"GET", "/apis/example.com/v1alpha1/namespaces/x/widgets", NULL, 0, 1, "list", "apis",
     "example.com", "v1alpha1", "x", "widgets", "", ""},
    {"DELETE", "/apis/batch/v1/namespaces/j/jobs", "propagationPolicy=Background", 0, 1,
     "deletecollection", "apis", "batch", "v1", "j", "jobs", "", ""},
    /* watch by query */
    {"GET", "/api/v1/pods", "watch=true", 0, 1, "watch", "api", "", "v1", "", "pods", "", ""},
    {"GET", "/api/v1/pods", "watch=1", 0, 1, "watch", "api", "", "v1", "", "pods", "", ""},
    {"GET", "/api/v1/pods", "watch", 0, 1, "watch", "api", "", "v1", "", "pods", "", ""},
    {"GET", "/api/v1/pods", "watch=TRUE&limit=5", 0, 1, "watch", "api", "", "v1", "", "pods", "",
     ""},
    {"GET", "/api/v1/pods", "watch=false", 0, 1, "list", "api", "", "v1", "", "pods", "", ""},
    {"GET", "/api/v1/pods", "watch=FALSE", 0, 1, "list", "api", "", "v1", "", "pods", "", ""},
    {"GET", "/api/v1/pods", "watch=0", 0, 1, "list", "api", "", "v1", "", "pods", "", ""},
    {"GET", "/api/v1/pods", "watch=0&watch=1", 0, 1, "list", "api", "", "v1", "", "pods", "", ""},
    {"GET", "/api/v1/pods", "xwatch=1&watchx=1", 0, 1, "list", "api", "", "v1", "", "pods", "", ""},
    {"GET", "/api/v1/pods", "w%61tch=1", 0, 1, "watch", "api", "", "v1", "", "pods", "", ""},
    {"GET", "/api/v1/namespaces/default/pods/p1", "watch=true", 0, 1, "get", "api", "", "v1",
     "default", "pods", "", "p1"},
    /* legacy watch paths */
    {"GET", "/api/v1/watch/pods", NULL, 0, 1, "watch", "api", "", "v1", "", "pods", "", ""},
    {"GET", "/api/v1/watch/namespaces/default/pods", NULL, 0, 1, "watch", "api", "", "v1",
     "default", "pods", "", ""},
    {"GET", "/api/v1/watch/namespaces/default/pods/p1", NULL, 0, 1, "watch", "api", "", "v1",
     "default", "pods", "", "p1"},
    {"GET", "/api/v1/watch/namespaces", NULL, 0, 1, "watch", "api", "", "v1", "", "namespaces", "",
     ""},
    {"GET", "/api/v1/watch/namespaces/other", NULL, 0, 1, "watch", "api", "", "v1", "other",
     "namespaces", "", "other"},
    {"GET", "/apis/apps/v1/watch/namespaces/a/deployments", NULL, 0, 1, "watch", "apis", "apps",
     "v1", "a", "deployments", "", ""},
    /* proxy: no subresource */
    {"GET", "/api/v1/proxy/namespaces/d/pods/p1/some/path", NULL, 0, 1, "proxy", "api", "", "v1",
     "d", "pods", "", "p1"},
    /* field selector on metadata.name names the object for authorization */
    {"GET", "/api/v1/namespaces/d/pods", "fieldSelector=metadata.name%3Dp1", 0, 1, "list", "api",
     "", "v1", "d", "pods", "", "p1"},
    {"GET", "/api/v1/namespaces/d/pods", "fieldSelector=metadata.name%3D%3Dp1", 0, 1, "list", "api",
     "", "v1", "d", "pods", "", "p1"},
    {"GET", "/api/v1/namespaces/d/pods",
     "watch=1&fieldSelector=spec.nodeName%3Dn,metadata.name%3Dp", 0, 1, "watch", "api", "", "v1",
     "d", "pods", "", "p"},
    {"GET", "/api/v1/namespaces/d/pods", "fieldSelector=metadata.name!%3Dp1", 0, 1, "list", "api",
     "", "v1", "d", "pods", "", ""},
    {"GET", "/api/v1/namespaces/d/pods", "fieldSelector=metadata.name%3D..", 0, 1, "list", "api",
     "", "v1", "d", "pods", "", ""},
    {"GET", "/api/v1/namespaces/d/pods", "fieldSelector=metadata.name%3Da%25b", 0, 1, "list", "api",
     "", "v1", "d", "pods", "", ""},
    {"GET", "/api/v1/namespaces/d/pods", "fieldSelector=bogus", 0, 1, "list", "api", "", "v1", "d",
     "pods", "", ""},
    {"GET", "/api/v1/namespaces/d/pods", "fieldSelector=metadata.name%3Da%5C%2Cb", 0, 1, "list",
     "api", "", "v1", "d", "pods", "", "a,b"},
    {"GET", "/api/v1/namespaces/d/pods", "fieldSelector=metadata.name%3Da%5Cx", 0, 1, "list", "api",
     "", "v1", "d", "pods", "", ""},
    {"DELETE", "/api/v1/namespaces/d/pods", "fieldSelector=metadata.name%3Dp1", 0, 1,
     "deletecollection", "api", "", "v1", "d", "pods", "", ""},
    /* percent-decoding and slashes */
    {"GET", "/api/v1/namespaces/d/configmaps/a%3Ab", NULL, 0, 1, "get", "api", "", "v1", "d",
     "configmaps", "", "a:b"},
    {"GET", "/api/v1/namespaces/d/configmaps/a+b", NULL, 0, 1, "get", "api", "", "v1", "d",
     "configmaps", "", "a+b"},
    {"GET", "/api/v1/namespaces/d/configmaps/", NULL, 0, 1, "list", "api", "", "v1", "d",
     "configmaps", "", ""},
    {"GET", "/api/v1/namespaces/d%2Fx/pods", NULL, 0, 1, "get", "api", "", "v1", "d", "x", "",
     "pods"},
    {"GET", "//api/v1/pods", NULL, 0, 1, "list", "api", "", "v1", "", "pods", "", ""},
    /* unknown methods have no verb on resource paths */
    {"OPTIONS", "/api/v1/pods", NULL, 0, 1, "", "api", "", "v1", "", "pods", "", ""},
    /* non-resource */
    NR("GET", "/", NULL, "get"),
    NR("GET", "/healthz", NULL, "get"),
    NR("POST", "/livez/ping", NULL, "post"),
    NR("GET", "/version", NULL, "get"),
    NR("GET", "/api", NULL, "get"),
    NR("GET", "/api/v1", NULL, "get"),
    NR("GET", "/api/v1/", NULL, "get"),
    NR("GET", "/apis", NULL, "get"),
    NR("GET", "/apis/apps", NULL, "get"),
    NR("GET", "/apis/apps/v1", NULL, "get"),
    NR("GET", "/openapi/v3/apis/apps/v1", "hash=abc", "get"),
    NR("DELETE", "/metrics", NULL, "delete"),
    NR("OPTIONS", "/foo", NULL, "options"),
    NR("GET", "/apiz/v1/pods", NULL, "get"),
    NR("GET", "/x/api/v1/pods", NULL, "get"),
    /* refused */
    BAD("GET", "/api/v1/watch"),
    BAD("GET", "/apis/apps/v1/watch/"),
    BAD("GET", "/apis/apps/v1/proxy"),
    BAD("GET", "/api/v1/namespaces//pods"),
    BAD("GET", "/api/v1/namespaces/./pods"),
    BAD("GET", "/api/v1/namespaces/%2E%2E/pods"),
    BAD("GET", "/healthz/../x"),
    BAD("GET", "/api/v1/pods/%zz"),
    BAD("GET", "/api/v1/pods/%4"),
    BAD("GET", "/api/v1/pods/a%00b"),
    BAD("GET", "/a/b//c"),
};

static void
check_row(const row_t *w)
{
    gw_arena_t *a = gw_arena_new();
    gw_reqinfo_t got;
    char name[300];
    snprintf(name, sizeof(name), "%s %s%s%s", w->method, w->path, w->query ? "?" : "",
             w->query ? w->query : "");
    int rc = gw_reqinfo_parse(a, w->method, w->path, w->query, &got);
    if (w->rc != 0) {
        tap_is_int(rc, w->rc, name);
        gw_arena_free(a);
        return;
    }
    const char *g[] = {got.verb,       got.api_prefix, got.group,       got.version,
                       got.namespace_, got.resource,   got.subresource, got.name};
    const char *e[] = {w->verb, w->prefix, w->group, w->version, w->ns, w->res, w->sub, w->name};
    int ok = rc == 0 && got.is_resource == (w->resource != 0);
    for (size_t i = 0; ok && i < sizeof(g) / sizeof(g[0]); i++)
        ok = strcmp(g[i], e[i]) == 0;
    if (!tap_ok(ok, "%s", name))
        tap_diag("  rc %d res %d: verb=%s prefix=%s group=%s version=%s ns=%s resource=%s sub=%s "
                 "name=%s",
                 rc, got.is_resource, g[0], g[1], g[2], g[3], g[4], g[5], g[6], g[7]);
    gw_arena_free(a);
}

static void
check_path_field(void)
{
    gw_arena_t *a = gw_arena_new();
    gw_reqinfo_t got;
    int rc = gw_reqinfo_parse(a, "GET", "/api/v1/namespaces/d/configmaps/a%20b", NULL, &got);
    tap_is_int(rc, 0, "a percent-encoded path parses");
    tap_is_str(got.path, "/api/v1/namespaces/d/configmaps/a b", "path is the decoded path");
    rc = gw_reqinfo_parse(a, "GET", "/readyz", "verbose&exclude=etcd", &got);
    tap_is_str(got.path, "/readyz", "a non-resource path is kept as is");
    gw_arena_free(a);
}

int
main(void)
{
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
        check_row(&rows[i]);
    check_path_field();
    return tap_done();
}
