/* Request info, as kube-apiserver's RequestInfoFactory reads it (see the header). */
#include "gw_reqinfo.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "gw_api_int.h"
#include "gw_err.h"
#include "gw_query.h"

#define MAX_PARTS 64 /* deeper paths are refused: no API path comes close */

typedef struct {
    char *v[MAX_PARTS];
    size_t n;
} parts_t;

/* Split the decoded path on '/', ignoring leading and trailing slashes as kube's splitPath
 * does; an empty, "." or ".." segment inside is refused. */
static int
split(gw_arena_t *a, const char *path, parts_t *p)
{
    p->n = 0;
    while (*path == '/')
        path++;
    size_t len = strlen(path);
    while (len > 0 && path[len - 1] == '/')
        len--;
    char *s = gw_arena_strndup(a, path, len);
    while (len > 0) {
        char *slash = strchr(s, '/');
        if (slash != NULL)
            *slash = '\0';
        if (*s == '\0' || strcmp(s, ".") == 0 || strcmp(s, "..") == 0 || p->n == MAX_PARTS)
            return GW_EINVAL;
        p->v[p->n++] = s;
        if (slash == NULL)
            break;
        s = slash + 1;
    }
    return 0;
}

static const char *
method_verb(const char *method)
{
    static const struct {
        const char *method, *verb;
    } map[] = {
        {"POST", "create"}, {"GET", "get"},     {"HEAD", "get"},
        {"PUT", "update"},  {"PATCH", "patch"}, {"DELETE", "delete"},
    };
    for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
        if (strcmp(method, map[i].method) == 0)
            return map[i].verb;
    }
    return "";
}

static const char *
lowercase(gw_arena_t *a, const char *s)
{
    char *out = gw_arena_strdup(a, s);
    for (char *p = out; *p != '\0'; p++)
        *p = (char)tolower((unsigned char)*p);
    return out;
}

bool
gw_api__ieq(const char *s, size_t len, const char *word)
{
    return strlen(word) == len && strncasecmp(s, word, len) == 0;
}

/* kube's query conversion for booleans: present and neither "0" nor "false" (any case). */
static bool
watch_param(gw_arena_t *a, const char *query)
{
    const char *v = gw_query_get(a, query, "watch");
    return v != NULL && strcmp(v, "0") != 0 && !gw_api__ieq(v, strlen(v), "false");
}

/* kube's fields.UnescapeValue: "\\" "\," "\=" are escapes; any other escape, a trailing
 * backslash or a bare ',' or '=' is an error (NULL). */
static const char *
unescape_value(gw_arena_t *a, const char *s, size_t len)
{
    char *v = gw_arena_alloc(a, len + 1);
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (c == ',' || c == '=')
            return NULL;
        if (c == '\\') {
            if (++i == len || strchr("\\,=", s[i]) == NULL)
                return NULL;
            c = s[i];
        }
        v[n++] = c;
    }
    v[n] = '\0';
    return v;
}

/*
 * One term of a field selector split as kube's splitTerm does (at the first "!=", "==" or
 * "="). *value is set when the term is `<field>=<v>` or `<field>==<v>`. Returns false for a
 * malformed term.
 */
static bool
selector_term(gw_arena_t *a, const char *t, size_t len, const char *field, const char **value)
{
    size_t op = 0, oplen = 0;
    for (; op < len && oplen == 0; op++) {
        if (t[op] == '!' || t[op] == '=')
            oplen = op + 1 < len && t[op + 1] == '=' ? 2 : t[op] == '=';
    }
    if (oplen == 0)
        return false;
    op--;
    const char *v = unescape_value(a, t + op + oplen, len - op - oplen);
    if (v == NULL)
        return false;
    if (t[op] == '=' && op == strlen(field) && strncmp(t, field, op) == 0 && *value == NULL)
        *value = v;
    return true;
}

/* The name a list or watch is restricted to by `fieldSelector=metadata.name=<x>`, as kube
 * records it for authorization; "" when none or when the selector does not parse. */
static const char *
selector_name(gw_arena_t *a, const char *query)
{
    const char *sel = gw_query_get(a, query, "fieldSelector");
    const char *name = NULL;
    if (sel == NULL)
        return "";
    for (const char *p = sel;;) {
        size_t len = 0;
        while (p[len] != '\0' && p[len] != ',')
            len += p[len] == '\\' && p[len + 1] != '\0' ? 2 : 1;
        if (len > 0 && !selector_term(a, p, len, "metadata.name", &name))
            return "";
        if (p[len] == '\0')
            break;
        p += len + 1;
    }
    /* kube's path.IsValidPathSegmentName */
    if (name == NULL || strcmp(name, ".") == 0 || strcmp(name, "..") == 0 ||
        strpbrk(name, "/%") != NULL)
        return "";
    return name;
}

/* parts[i..] after the API version: special verbs, namespaces, resource/name/subresource. */
static int
parse_resource(gw_arena_t *a, const char *method, const char *query, parts_t *p, size_t i,
               gw_reqinfo_t *out)
{
    if (strcmp(p->v[i], "watch") == 0 || strcmp(p->v[i], "proxy") == 0) {
        if (p->n - i < 2)
            return GW_EINVAL;
        out->verb = p->v[i++];
    } else {
        out->verb = method_verb(method);
    }
    if (strcmp(p->v[i], "namespaces") == 0 && p->n - i > 1) {
        out->namespace_ = p->v[i + 1];
        /* A namespace's own subresources stay; anything else is a namespaced collection. */
        if (p->n - i > 2 && strcmp(p->v[i + 2], "status") != 0 &&
            strcmp(p->v[i + 2], "finalize") != 0)
            i += 2;
    }
    size_t n = p->n - i;
    out->resource = p->v[i];
    if (n >= 2)
        out->name = p->v[i + 1];
    if (n >= 3 && strcmp(out->verb, "proxy") != 0)
        out->subresource = p->v[i + 2];
    if (*out->name == '\0' && strcmp(out->verb, "get") == 0) {
        out->verb = watch_param(a, query) ? "watch" : "list";
        out->name = selector_name(a, query);
    }
    if (*out->name == '\0' && strcmp(out->verb, "delete") == 0)
        out->verb = "deletecollection";
    return 0;
}

int
gw_reqinfo_parse(gw_arena_t *a, const char *method, const char *raw_path, const char *query,
                 gw_reqinfo_t *out)
{
    parts_t p;
    char *path = gw_arena_alloc(a, strlen(raw_path) + 1);
    if (!gw_unescape(path, raw_path, strlen(raw_path), false) || split(a, path, &p) != 0)
        return GW_EINVAL;
    *out = (gw_reqinfo_t){
        .verb = lowercase(a, method),
        .path = path,
        .api_prefix = "",
        .group = "",
        .version = "",
        .namespace_ = "",
        .resource = "",
        .subresource = "",
        .name = "",
    };
    bool core = p.n > 0 && strcmp(p.v[0], "api") == 0;
    bool grouped = p.n > 0 && strcmp(p.v[0], "apis") == 0;
    /* Below /api/{version}/{x} and /apis/{group}/{version}/{x} everything is non-resource. */
    if ((!core && !grouped) || p.n < (core ? 3u : 4u))
        return 0;
    out->is_resource = true;
    out->api_prefix = p.v[0];
    if (grouped)
        out->group = p.v[1];
    out->version = p.v[core ? 1 : 2];
    return parse_resource(a, method, query, &p, core ? 2 : 3, out);
}

bool
gw_reqinfo_long_running(const gw_reqinfo_t *i)
{
    static const char *const subresources[] = {"attach", "exec", "proxy", "log", "portforward"};
    if (!i->is_resource)
        return false;
    if (strcmp(i->verb, "watch") == 0 || strcmp(i->verb, "proxy") == 0)
        return true;
    for (size_t k = 0; k < sizeof(subresources) / sizeof(subresources[0]); k++) {
        if (strcmp(i->subresource, subresources[k]) == 0)
            return true;
    }
    return false;
}
