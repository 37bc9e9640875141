/*
 * apiserver's util/webhook validation (ValidateWebhookURL, ValidateWebhookService) over the v1
 * JSON of a webhook's client config, for the admission webhook configurations and the CRD
 * conversion webhook, with the part of Go's url.Parse those checks look at.
 */
#include "gw_webhook_client_valid.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_names.h"

/* Member `key` of `o`, NULL when absent or null (a nil pointer). */
static const json_t *
member(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    return json_is_null(v) ? NULL : v;
}

static const char *
str(const json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s != NULL ? s : "";
}

/* Go's url.Parse, as far as ValidateWebhookURL looks at it. */
typedef struct {
    char *scheme, *user, *host, *query, *fragment;
    const char *error;
} url_t;

static void
url_free(url_t *u)
{
    free(u->scheme);
    free(u->user);
    free(u->host);
    free(u->query);
    free(u->fragment);
}

static char *
cut(const char *s, const char *at)
{
    return gw_strndup(s, (size_t)(at - s));
}

static void
url_scheme(url_t *u, const char **rest)
{
    const char *s = *rest, *c = s;

    if (!isalpha((unsigned char)*s))
        return;
    while (isalnum((unsigned char)*c) || *c == '+' || *c == '-' || *c == '.')
        c++;
    if (*c != ':')
        return;
    u->scheme = cut(s, c);
    for (char *x = u->scheme; *x != '\0'; x++)
        *x = (char)tolower((unsigned char)*x);
    *rest = c + 1;
}

static void
url_parse(const char *s, url_t *u)
{
    const char *hash = strchr(s, '#'), *q, *rest = s, *end, *at;
    char *body;

    memset(u, 0, sizeof(*u));
    for (const char *c = s; *c != '\0'; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            u->error = "net/url: invalid control character in URL";
    if (s[0] == ':')
        u->error = "missing protocol scheme";
    if (u->error != NULL)
        return;
    u->fragment = gw_strdup(hash != NULL ? hash + 1 : "");
    body = hash != NULL ? cut(s, hash) : gw_strdup(s);
    q = strchr(body, '?');
    u->query = gw_strdup(q != NULL ? q + 1 : "");
    rest = body;
    url_scheme(u, &rest);
    u->host = gw_strdup("");
    if (u->scheme != NULL && strncmp(rest, "//", 2) == 0) {
        rest += 2;
        end = rest + strcspn(rest, "/?");
        at = memchr(rest, '@', (size_t)(end - rest));
        while (at != NULL && memchr(at + 1, '@', (size_t)(end - at - 1)) != NULL)
            at = memchr(at + 1, '@', (size_t)(end - at - 1));
        free(u->host);
        u->user = at != NULL ? cut(rest, at) : NULL;
        u->host = cut(at != NULL ? at + 1 : rest, end);
    }
    free(body);
}

/* ValidateWebhookURL with forceHttps. */
void
gw_webhook_url_validate(const char *url, const char *path, gw_field_errors_t *e)
{
    static const char *form = "; desired format: https://host[/path]";
    url_t u;
    char *d, *q;

    url_parse(url, &u);
    if (u.error != NULL) {
        q = gw_ferr_quote(url);
        d = gw_sprintf("url must be a valid URL: parse %s: %s%s", q, u.error, form);
        gw_ferr_required(e, path, d);
        free(q);
        free(d);
        return;
    }
    d = gw_sprintf("'https' is the only allowed URL scheme%s", form);
    if (u.scheme == NULL || strcmp(u.scheme, "https") != 0)
        gw_ferr_invalid_str(e, path, u.scheme != NULL ? u.scheme : "", d);
    free(d);
    d = gw_sprintf("host must be specified%s", form);
    if (u.host[0] == '\0')
        gw_ferr_invalid_str(e, path, u.host, d);
    free(d);
    if (u.user != NULL)
        gw_ferr_invalid_str(e, path, u.user, "user information is not permitted in the URL");
    if (u.fragment[0] != '\0')
        gw_ferr_invalid_str(e, path, u.fragment, "fragments are not permitted in the URL");
    if (u.query[0] != '\0')
        gw_ferr_invalid_str(e, path, u.query, "query parameters are not permitted in the URL");
    url_free(&u);
}

static void
segment(const char *seg, size_t len, size_t i, const char *url_path, const char *p,
        gw_field_errors_t *e)
{
    char *one = gw_strndup(seg, len), *d = NULL;
    const char *msg = len > 0 ? gw_valid_dns1123_subdomain(one) : NULL;

    if (len == 0)
        d = gw_sprintf("segment[%zu] may not be empty", i);
    else if (msg != NULL)
        d = gw_sprintf("segment[%zu]: %s", i, msg);
    if (d != NULL)
        gw_ferr_invalid_str(e, p, url_path, d);
    free(d);
    free(one);
}

/* A service's path: '/'-separated DNS subdomains. */
static void
service_path(const char *url_path, const char *p, gw_field_errors_t *e)
{
    const char *s;
    size_t n, i = 0;

    if (strcmp(url_path, "/") == 0 || url_path[0] == '\0')
        return;
    if (strcmp(url_path, "//") == 0) {
        gw_ferr_invalid_str(e, p, url_path, "segment[0] may not be empty");
        return;
    }
    if (url_path[0] != '/')
        gw_ferr_invalid_str(e, p, url_path, "must start with a '/'");
    s = url_path + 1;
    n = strlen(s);
    if (n > 0 && s[n - 1] == '/')
        n--;
    for (;;) {
        const char *slash = memchr(s, '/', n);
        size_t len = slash != NULL ? (size_t)(slash - s) : n;
        segment(s, len, i++, url_path, p, e);
        if (slash == NULL)
            break;
        n -= len + 1;
        s = slash + 1;
    }
}

/* ValidateWebhookService as kube's callers call it: with the service's name and namespace in
 * each other's place, so a missing namespace is reported as `name` and the reverse. */
void
gw_webhook_service_validate(const json_t *svc, const char *path, gw_field_errors_t *e)
{
    const json_t *port = member(svc, "port"), *sp = member(svc, "path");
    json_int_t n = port != NULL ? json_integer_value(port) : 0;
    char *p;

    p = gw_sprintf("%s.name", path);
    if (str(svc, "namespace")[0] == '\0')
        gw_ferr_required(e, p, NULL);
    free(p);
    p = gw_sprintf("%s.namespace", path);
    if (str(svc, "name")[0] == '\0')
        gw_ferr_required(e, p, NULL);
    free(p);
    if (n < 1 || n > 65535) {
        p = gw_sprintf("%s.port", path);
        char *m = gw_sprintf("Invalid value: %lld: port is not valid: must be between 1 and 65535, "
                             "inclusive",
                             (long long)n);
        gw_ferr_add(e, "FieldValueInvalid", p, m);
        free(m);
        free(p);
    }
    if (sp == NULL)
        return;
    p = gw_sprintf("%s.path", path);
    service_path(json_is_string(sp) ? json_string_value(sp) : "", p, e);
    free(p);
}

/* url.ParseRequestURI with a scheme and a host. */
bool
gw_webhook_request_uri_with_host(const char *s)
{
    url_t u;
    bool ok;

    if (s[0] != '/' && strchr(s, ':') == NULL)
        return false;
    url_parse(s, &u);
    ok = u.error == NULL && u.scheme != NULL && u.host[0] != '\0' && u.fragment[0] == '\0';
    url_free(&u);
    return ok;
}
