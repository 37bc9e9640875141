/* Rule and subject matching, as kube's rbac authorizer (rbac.go) and its escalation check
 * (pkg/registry/rbac/validation) do. */
#include "authz_rbac_int.h"

#include <stdio.h>
#include <string.h>

#define SA_PREFIX "system:serviceaccount:"

bool
authz__has(const json_t *arr, const char *s)
{
    size_t i;
    json_t *v;

    json_array_foreach(arr, i, v)
    {
        if (json_is_string(v) && strcmp(json_string_value(v), s) == 0)
            return true;
    }
    return false;
}

static bool
has_or_all(const json_t *arr, const char *s)
{
    return authz__has(arr, "*") || authz__has(arr, s);
}

/* "pods", "pods/log": also "*", and a star before "/log" for that subresource of any resource. */
static bool
resource_matches(const json_t *rule, const authz_attrs_t *a)
{
    const char *sub = a->subresource != NULL ? a->subresource : "";
    char combined[512];
    size_t i;
    json_t *v;

    snprintf(combined, sizeof(combined), "%s%s%s", a->resource != NULL ? a->resource : "",
             *sub != '\0' ? "/" : "", sub);
    json_array_foreach(json_object_get(rule, "resources"), i, v)
    {
        const char *res = json_string_value(v);
        if (res == NULL)
            continue;
        if (strcmp(res, "*") == 0 || strcmp(res, combined) == 0)
            return true;
        if (*sub != '\0' && strncmp(res, "*/", 2) == 0 && strcmp(res + 2, sub) == 0)
            return true;
    }
    return false;
}

static bool
name_matches(const json_t *rule, const char *name)
{
    const json_t *names = json_object_get(rule, "resourceNames");

    if (json_array_size(names) == 0)
        return true;
    return name != NULL && *name != '\0' && authz__has(names, name);
}

/* An exact URL, "*", or a prefix ending in "*". */
static bool
url_matches(const json_t *urls, const char *path)
{
    size_t i;
    json_t *v;

    json_array_foreach(urls, i, v)
    {
        const char *u = json_string_value(v);
        size_t len = u != NULL ? strlen(u) : 0;
        if (u == NULL)
            continue;
        if (strcmp(u, "*") == 0 || strcmp(u, path) == 0)
            return true;
        if (len > 0 && u[len - 1] == '*' && strncmp(u, path, len - 1) == 0)
            return true;
    }
    return false;
}

bool
authz__rule_allows(const json_t *rule, const authz_attrs_t *a)
{
    if (!has_or_all(json_object_get(rule, "verbs"), a->verb))
        return false;
    if (!a->resource_request)
        return url_matches(json_object_get(rule, "nonResourceURLs"), a->path);
    return has_or_all(json_object_get(rule, "apiGroups"),
                      a->api_group != NULL ? a->api_group : "") &&
           resource_matches(rule, a) && name_matches(rule, a->name);
}

static bool
in_groups(const authn_user_t *u, const char *group)
{
    for (size_t i = 0; i < u->n_groups; i++) {
        if (strcmp(u->groups[i], group) == 0)
            return true;
    }
    return false;
}

bool
authz__subject_applies(const json_t *subject, const authn_user_t *u, const char *ns)
{
    const char *kind = json_string_value(json_object_get(subject, "kind"));
    const char *name = json_string_value(json_object_get(subject, "name"));
    const char *sa_ns = json_string_value(json_object_get(subject, "namespace"));

    if (kind == NULL || name == NULL || u == NULL)
        return false;
    if (strcmp(kind, "User") == 0)
        return strcmp(name, u->name) == 0;
    if (strcmp(kind, "Group") == 0)
        return in_groups(u, name);
    if (strcmp(kind, "ServiceAccount") != 0)
        return false;
    /* kube defaults the namespace to the binding's, so local bindings need not name it */
    if (sa_ns == NULL || *sa_ns == '\0')
        sa_ns = ns;
    if (sa_ns == NULL || *sa_ns == '\0')
        return false;
    size_t pl = strlen(SA_PREFIX), nl = strlen(sa_ns);
    return strncmp(u->name, SA_PREFIX, pl) == 0 && strncmp(u->name + pl, sa_ns, nl) == 0 &&
           u->name[pl + nl] == ':' && strcmp(u->name + pl + nl + 1, name) == 0;
}

/* ---- escalation: kube's Covers over broken-down rules --------------------------------------- */

/* kube's resourceCoversAll for one resource: exact, "*", or a star before its "/<subresource>". */
static bool
resource_covered(const json_t *owned, const char *res)
{
    const char *slash = strchr(res, '/');

    if (authz__has(owned, "*") || authz__has(owned, res))
        return true;
    if (slash == NULL)
        return false;
    char any[256];
    snprintf(any, sizeof(any), "*%s", slash);
    return authz__has(owned, any);
}

bool
authz__rule_covers(const json_t *owner, const authz__perm_t *p)
{
    const json_t *names = json_object_get(owner, "resourceNames");

    if (!has_or_all(json_object_get(owner, "verbs"), p->verb))
        return false;
    if (p->url != NULL)
        return url_matches(json_object_get(owner, "nonResourceURLs"), p->url) &&
               json_array_size(json_object_get(owner, "resources")) == 0;
    if (!has_or_all(json_object_get(owner, "apiGroups"), p->group) ||
        !resource_covered(json_object_get(owner, "resources"), p->resource))
        return false;
    if (json_array_size(names) == 0)
        return true;
    return p->name != NULL && authz__has(names, p->name);
}

static bool
breakdown_resources(const json_t *rule, const char *verb,
                    bool (*fn)(const authz__perm_t *p, void *ctx), void *ctx)
{
    const json_t *names = json_object_get(rule, "resourceNames");
    size_t i, j, k;
    json_t *g, *res, *n;

    json_array_foreach(json_object_get(rule, "apiGroups"), i, g)
    {
        json_array_foreach(json_object_get(rule, "resources"), j, res)
        {
            authz__perm_t p = {
                .verb = verb, .group = json_string_value(g), .resource = json_string_value(res)};
            if (p.group == NULL || p.resource == NULL)
                continue;
            if (json_array_size(names) == 0 && !fn(&p, ctx))
                return false;
            json_array_foreach(names, k, n)
            {
                p.name = json_string_value(n);
                if (p.name != NULL && !fn(&p, ctx))
                    return false;
            }
        }
    }
    return true;
}

bool
authz__breakdown(const json_t *rule, bool (*fn)(const authz__perm_t *p, void *ctx), void *ctx)
{
    size_t i, j;
    json_t *v, *u;

    json_array_foreach(json_object_get(rule, "verbs"), i, v)
    {
        const char *verb = json_string_value(v);
        if (verb == NULL)
            continue;
        if (!breakdown_resources(rule, verb, fn, ctx))
            return false;
        json_array_foreach(json_object_get(rule, "nonResourceURLs"), j, u)
        {
            authz__perm_t p = {.verb = verb, .url = json_string_value(u)};
            if (p.url != NULL && !fn(&p, ctx))
                return false;
        }
    }
    return true;
}
