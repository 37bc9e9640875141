/* ABAC: kube's attribute-based policies, one JSON Policy per line of a file. */
#include "authz_abac.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "gw_alloc.h"
#include "gw_err.h"
#include "gw_file.h"
#include "gw_json.h"

#define ABAC_API_VERSION "abac.authorization.kubernetes.io/v1beta1"
#define ALL_AUTHENTICATED "system:authenticated"
#define MAX_POLICY_FILE (16u << 20)

/* One policy's spec; absent strings are "" (as Go's zero value, which matches only ""). */
typedef struct {
    char *user;
    char *group;
    char *api_group;
    char *resource;
    char *namespace_;
    char *path; /* nonResourcePath */
    bool readonly;
} policy_t;

struct authz_abac {
    policy_t *policies;
    size_t n;
};

/* The process's policy list: set on the main thread before the workers start. */
static authz_abac_t *current;

/* ---- reading the policies ---------------------------------------------------------------- */

static void
policy_clear(policy_t *p)
{
    free(p->user);
    free(p->group);
    free(p->api_group);
    free(p->resource);
    free(p->namespace_);
    free(p->path);
}

/* spec[key] as a new string ("" when absent); NULL when it is there but not a string. */
static char *
spec_string(const json_t *spec, const char *key)
{
    const json_t *v = json_object_get(spec, key);
    if (v == NULL || json_is_null(v))
        return gw_strdup("");
    return json_is_string(v) ? gw_strdup(json_string_value(v)) : NULL;
}

/* A policy's string fields; the unversioned format has the first four only. */
static const struct {
    const char *key;
    size_t off;
} fields[] = {
    {"user", offsetof(policy_t, user)},          {"group", offsetof(policy_t, group)},
    {"resource", offsetof(policy_t, resource)},  {"namespace", offsetof(policy_t, namespace_)},
    {"apiGroup", offsetof(policy_t, api_group)}, {"nonResourcePath", offsetof(policy_t, path)},
};
#define N_V0_FIELDS 4

/* The first n fields and readonly of spec into p; NULL or the reason spec is unusable. */
static const char *
spec_read(const json_t *spec, policy_t *p, size_t n)
{
    const char *why = NULL;
    for (size_t i = 0; i < n; i++) {
        char **dst = (char **)((char *)p + fields[i].off);
        if ((*dst = spec_string(spec, fields[i].key)) == NULL && why == NULL)
            why = n == N_V0_FIELDS ? "user, group, resource and namespace must be strings"
                                   : "spec fields user, group, apiGroup, resource, namespace and "
                                     "nonResourcePath must be strings";
    }
    const json_t *ro = json_object_get(spec, "readonly");
    if (ro != NULL && !json_is_null(ro) && !json_is_boolean(ro) && why == NULL)
        why = "readonly must be a boolean";
    p->readonly = json_is_true(ro);
    return why;
}

static void
set(char **field, const char *value)
{
    free(*field);
    *field = gw_strdup(value);
}

/* kube's conversion of an unversioned policy: no user and no group is every authenticated
 * user, no namespace every namespace, no resource every resource, every API group, and with
 * neither namespace nor resource every non-resource path. */
static void
v0_convert(policy_t *p)
{
    bool everything = *p->namespace_ == '\0' && *p->resource == '\0';

    if (*p->user == '\0' && *p->group == '\0')
        set(&p->group, ALL_AUTHENTICATED);
    if (*p->namespace_ == '\0')
        set(&p->namespace_, "*");
    if (*p->resource == '\0')
        set(&p->resource, "*");
    set(&p->api_group, "*");
    set(&p->path, everything ? "*" : "");
}

static bool
member_is(const json_t *doc, const char *key, const char *want)
{
    const char *v = json_string_value(json_object_get(doc, key));
    return v != NULL && strcmp(v, want) == 0;
}

/* No apiVersion: kube decodes the line as an unversioned (v0) policy, whose kind may only be
 * Policy if given. */
static bool
unversioned(const json_t *doc)
{
    const json_t *v = json_object_get(doc, "apiVersion");
    const json_t *k = json_object_get(doc, "kind");
    return (v == NULL || json_is_null(v) || member_is(doc, "apiVersion", "")) &&
           (k == NULL || json_is_null(k) || member_is(doc, "kind", "") ||
            member_is(doc, "kind", "Policy"));
}

/* A line's document into p; NULL or the reason it is neither a v1beta1 nor a v0 Policy. */
static const char *
doc_read(const json_t *doc, policy_t *p)
{
    const json_t *spec = json_object_get(doc, "spec");
    const char *why;

    if (!json_is_object(doc))
        return "not a JSON object";
    if (unversioned(doc)) {
        if ((why = spec_read(doc, p, N_V0_FIELDS)) == NULL)
            v0_convert(p);
        return why;
    }
    if (!member_is(doc, "apiVersion", ABAC_API_VERSION))
        return "apiVersion must be \"" ABAC_API_VERSION "\"";
    if (!member_is(doc, "kind", "Policy"))
        return "kind must be \"Policy\"";
    if (spec != NULL && !json_is_null(spec) && !json_is_object(spec))
        return "spec must be an object";
    return spec_read(spec, p, sizeof(fields) / sizeof(fields[0]));
}

/* One line as a policy; NULL or the reason it is not one. */
static const char *
line_parse(const char *line, size_t len, policy_t *p, char *buf, size_t buf_len)
{
    json_error_t jerr;
    json_t *doc = gw_json_loadb(line, len, 0, &jerr);
    if (doc == NULL) {
        snprintf(buf, buf_len, "%s", jerr.text);
        return buf;
    }
    const char *why = doc_read(doc, p);
    json_decref(doc);
    return why;
}

/* kube's conversions (v1beta1 and v0): a "*" user or group means every authenticated
 * subject. */
static void
policy_convert(policy_t *p)
{
    if (strcmp(p->user, "*") == 0 || strcmp(p->group, "*") == 0) {
        set(&p->user, "");
        set(&p->group, ALL_AUTHENTICATED);
    }
}

static bool
skipped(const char *line, size_t len)
{
    while (len > 0 && strchr(" \t\r\f\v", *line) != NULL)
        line++, len--;
    return len == 0 || *line == '#';
}

/* Add the policy on line `no` (len bytes at line) to pl; 0 or GW_EINVAL with kube's wording. */
static int
add_line(authz_abac_t *pl, const char *path, int no, const char *line, size_t len, char *err,
         size_t err_len)
{
    char buf[256];
    policy_t p = {0};
    const char *why = line_parse(line, len, &p, buf, sizeof(buf));
    if (why != NULL) {
        snprintf(err, err_len, "error reading policy file %s, line %d: %.*s: %s", path, no,
                 (int)len, line, why);
        policy_clear(&p);
        return GW_EINVAL;
    }
    policy_convert(&p);
    pl->policies = gw_realloc(pl->policies, (pl->n + 1) * sizeof(*pl->policies));
    pl->policies[pl->n++] = p;
    return 0;
}

int
authz_abac_parse(const char *path, const char *text, authz_abac_t **out, char *err, size_t err_len)
{
    authz_abac_t *pl = gw_calloc(1, sizeof(*pl));
    int no = 0;
    *out = NULL;
    for (const char *line = text; *line != '\0';) {
        size_t len = strcspn(line, "\n");
        const char *next = line[len] == '\n' ? line + len + 1 : line + len;
        no++;
        if (len > 0 && line[len - 1] == '\r')
            len--; /* as Go's line scanner drops it */
        if (!skipped(line, len) && add_line(pl, path, no, line, len, err, err_len) != 0) {
            authz_abac_free(pl);
            return GW_EINVAL;
        }
        line = next;
    }
    *out = pl;
    return 0;
}

void
authz_abac_free(authz_abac_t *pl)
{
    if (pl == NULL)
        return;
    for (size_t i = 0; i < pl->n; i++)
        policy_clear(&pl->policies[i]);
    free(pl->policies);
    free(pl);
}

/* ---- matching, as kube's ABAC authorizer ------------------------------------------------ */

static bool
in_groups(const authn_user_t *u, const char *group)
{
    for (size_t i = 0; i < u->n_groups; i++) {
        if (strcmp(u->groups[i], group) == 0)
            return true;
    }
    return false;
}

/* A policy naming neither user nor group matches nobody. */
static bool
subject_matches(const policy_t *p, const authn_user_t *u)
{
    bool matched = false;
    if (u == NULL)
        return false;
    if (*p->user != '\0') {
        matched = strcmp(p->user, "*") == 0 || strcmp(p->user, u->name) == 0;
        if (!matched)
            return false;
    }
    if (*p->group != '\0') {
        matched = strcmp(p->group, "*") == 0 || in_groups(u, p->group);
        if (!matched)
            return false;
    }
    return matched;
}

static bool
read_only(const char *verb)
{
    return strcmp(verb, "get") == 0 || strcmp(verb, "list") == 0 || strcmp(verb, "watch") == 0;
}

static bool
wild_or_equal(const char *pattern, const char *value)
{
    return strcmp(pattern, "*") == 0 || strcmp(pattern, value != NULL ? value : "") == 0;
}

static bool
resource_matches(const policy_t *p, const authz_attrs_t *a)
{
    return wild_or_equal(p->namespace_, a->namespace_) && wild_or_equal(p->resource, a->resource) &&
           wild_or_equal(p->api_group, a->api_group);
}

/* "*", the exact path, or a prefix ending in '*' (every trailing '*' dropped, as kube's). */
static bool
path_matches(const policy_t *p, const char *path)
{
    size_t len = strlen(p->path);
    if (path == NULL)
        path = "";
    if (wild_or_equal(p->path, path))
        return true;
    if (len == 0 || p->path[len - 1] != '*')
        return false;
    while (len > 0 && p->path[len - 1] == '*')
        len--;
    return strncmp(p->path, path, len) == 0;
}

static bool
policy_matches(const policy_t *p, const authz_attrs_t *a)
{
    if (!subject_matches(p, a->user))
        return false;
    if (p->readonly && !read_only(a->verb))
        return false;
    return a->resource_request ? resource_matches(p, a) : path_matches(p, a->path);
}

bool
authz_abac_allows(const authz_abac_t *pl, const authz_attrs_t *attrs)
{
    for (size_t i = 0; pl != NULL && i < pl->n; i++) {
        if (policy_matches(&pl->policies[i], attrs))
            return true;
    }
    return false;
}

/* ---- the mode ------------------------------------------------------------------------------ */

int
authz_abac_use_file(const char *path, char *err, size_t err_len)
{
    size_t len;
    char *text = gw_file_read(path, MAX_POLICY_FILE, &len);
    if (text == NULL) {
        snprintf(err, err_len, "error reading policy file %s: %s", path, strerror(errno));
        return GW_EINVAL;
    }
    authz_abac_t *pl = NULL;
    int rc = authz_abac_parse(path, text, &pl, err, err_len);
    free(text);
    if (rc != 0)
        return rc;
    authz_abac_free(current);
    current = pl;
    return 0;
}

static void
abac_authorize(const authz_authorizer_t *self, const authz_attrs_t *attrs, authz_done_cb cb,
               void *ctx)
{
    (void)self;
    if (authz_abac_allows(current, attrs))
        cb(AUTHZ_ALLOW, "", NULL, ctx);
    else
        cb(AUTHZ_NO_OPINION, "No policy matched.", NULL, ctx);
}

static void
abac_free(authz_authorizer_t *self)
{
    (void)self;
    authz_abac_free(current);
    current = NULL;
}

authz_authorizer_t authz_abac_authorizer = {
    .name = "ABAC", .label = "abac", .authorize = abac_authorize, .free = abac_free};
