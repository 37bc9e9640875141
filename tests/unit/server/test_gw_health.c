/* Post-start hooks in the health checks: listed in registration order before shutdown on
 * /readyz and after etcd on /livez and /healthz, failing ("reason withheld") until done, one
 * by one through /readyz/<name>, excludable, and counted by gw_health_ready. */
#include "gw_health.h"

#include <stdlib.h>
#include <string.h>

#include <event2/buffer.h>

#include "tap.h"

static int code;

/* The body of path?query, NUL-terminated (caller frees); the status into `code`. */
static char *
render(const gw_health_t *h, const char *path, const char *query)
{
    struct evbuffer *out = evbuffer_new();
    size_t len;
    char *body;

    code = gw_health_render(h, path, query, NULL, out);
    len = evbuffer_get_length(out);
    body = calloc(1, len + 1);
    evbuffer_remove(out, body, len);
    evbuffer_free(out);
    return body;
}

static void
is_body(const gw_health_t *h, const char *path, const char *query, int want_code, const char *want,
        const char *name)
{
    char *body = render(h, path, query);

    tap_is_int(code, want_code, name);
    tap_is_str(body, want, name);
    free(body);
}

int
main(void)
{
    gw_health_t *h = gw_health_new(0);
    gw_health_hook_t *rbac, *boot;

    gw_health_etcd_result(h, 0);
    gw_health_set_synced(h);
    tap_ok(gw_health_ready(h), "ready without hooks");
    rbac = gw_health_hook_add(h, "rbac/bootstrap-roles");
    boot = gw_health_hook_add(h, "bootstrap-controller");
    tap_ok(!gw_health_ready(h), "not ready while a hook is not done");
    is_body(h, "/readyz", "verbose", 500,
            "[+]ping ok\n[+]log ok\n[+]etcd ok\n[+]informer-sync ok\n"
            "[-]poststarthook/rbac/bootstrap-roles failed: reason withheld\n"
            "[-]poststarthook/bootstrap-controller failed: reason withheld\n"
            "[+]shutdown ok\nreadyz check failed\n",
            "readyz lists the hooks, in order, before shutdown");
    gw_health_hook_done(boot);
    is_body(h, "/livez", NULL, 500,
            "[+]ping ok\n[+]log ok\n[+]etcd ok\n"
            "[-]poststarthook/rbac/bootstrap-roles failed: reason withheld\n"
            "[+]poststarthook/bootstrap-controller ok\nlivez check failed\n",
            "livez lists them too, without a grace period");
    is_body(h, "/readyz/poststarthook/rbac/bootstrap-roles", NULL, 500,
            "internal server error: not finished\n", "one hook alone, not finished");
    is_body(h, "/readyz", "exclude=poststarthook/rbac/bootstrap-roles", 200, "ok",
            "a hook can be excluded");
    gw_health_hook_done(rbac);
    gw_health_hook_done(rbac);
    tap_ok(gw_health_ready(h), "ready once every hook is done");
    is_body(h, "/healthz/poststarthook/rbac/bootstrap-roles", NULL, 200, "ok",
            "the hook passes on healthz");
    is_body(h, "/readyz/poststarthook/nosuch", NULL, 404, "404 page not found\n",
            "an unknown hook is 404");
    gw_health_free(h);

    h = gw_health_new(60000);
    gw_health_hook_add(h, "rbac/bootstrap-roles");
    is_body(h, "/livez/poststarthook/rbac/bootstrap-roles", NULL, 200, "ok",
            "livez lets a hook pass during --livez-grace-period");
    is_body(h, "/readyz/poststarthook/rbac/bootstrap-roles", NULL, 500,
            "internal server error: not finished\n", "readyz does not");
    gw_health_free(h);
    return tap_done();
}
