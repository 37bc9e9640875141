/*
 * A CustomResourceDefinition's conversion as kube validates it (validation.go's
 * validateCustomResourceConversion, with apiserver's util/webhook ValidateWebhookURL and
 * ValidateWebhookService): the strategy, the webhook's client config (an https URL without
 * user, query or fragment, or a service with a port and a path of DNS subdomains) and the
 * ConversionReview versions, at the internal form's paths (spec.conversion.webhookClientConfig,
 * spec.conversion.conversionReviewVersions). Not checked: a caBundle's PEM.
 */
#include "gw_crd_valid_int.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_names.h"

#define MEMBER(o, k) gw_crd__get((o), (k))
#define STR(o, k) gw_crd__str((o), (k))

static void
invalid_str(gw_field_errors_t *e, const char *field, const char *value, const char *detail)
{
    gw_ferr_invalid_str(e, field, value, detail);
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
static void
webhook_url(const char *url, const char *path, gw_field_errors_t *e)
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
        invalid_str(e, path, u.scheme != NULL ? u.scheme : "", d);
    free(d);
    d = gw_sprintf("host must be specified%s", form);
    if (u.host[0] == '\0')
        invalid_str(e, path, u.host, d);
    free(d);
    if (u.user != NULL)
        invalid_str(e, path, u.user, "user information is not permitted in the URL");
    if (u.fragment[0] != '\0')
        invalid_str(e, path, u.fragment, "fragments are not permitted in the URL");
    if (u.query[0] != '\0')
        invalid_str(e, path, u.query, "query parameters are not permitted in the URL");
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
        invalid_str(e, p, url_path, d);
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
        invalid_str(e, p, url_path, "segment[0] may not be empty");
        return;
    }
    if (url_path[0] != '/')
        invalid_str(e, p, url_path, "must start with a '/'");
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

/* ValidateWebhookService as the CRD validation calls it: with the service's name and namespace
 * in each other's place, so a missing namespace is reported as `name` and the reverse. */
static void
webhook_service(const json_t *svc, const char *path, gw_field_errors_t *e)
{
    const json_t *port = MEMBER(svc, "port"), *sp = MEMBER(svc, "path");
    json_int_t n = port != NULL ? json_integer_value(port) : 0;
    char *p;

    p = gw_sprintf("%s.name", path);
    if (STR(svc, "namespace")[0] == '\0')
        gw_ferr_required(e, p, NULL);
    free(p);
    p = gw_sprintf("%s.namespace", path);
    if (STR(svc, "name")[0] == '\0')
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

bool
gw_crd__accepted_review_version(const char *v)
{
    return strcmp(v, "v1") == 0 || strcmp(v, "v1beta1") == 0;
}

static void
review_versions(const json_t *crv, bool require_recognized, gw_field_errors_t *e)
{
    const char *path = "spec.conversion.conversionReviewVersions";
    json_t *seen = json_object(), *x;
    bool accepted = false;
    size_t i;

    if (json_array_size(crv) == 0) {
        gw_ferr_required(e, path, NULL);
        json_decref(seen);
        return;
    }
    json_array_foreach(crv, i, x)
    {
        const char *v = json_is_string(x) ? json_string_value(x) : "", *msg;
        char *p = gw_sprintf("%s[%zu]", path, i);
        if (json_object_get(seen, v) != NULL) {
            invalid_str(e, p, v, "duplicate version");
        } else {
            json_object_set_new(seen, v, json_true());
            if ((msg = gw_valid_dns1035_label(v)) != NULL)
                invalid_str(e, p, v, msg);
            accepted |= gw_crd__accepted_review_version(v);
        }
        free(p);
    }
    json_decref(seen);
    if (require_recognized && !accepted)
        gw_crd__invalid_strings(e, path, crv, "must include at least one of v1, v1beta1");
}

static void
webhook_client_config(const json_t *cc, gw_field_errors_t *e)
{
    const json_t *url = MEMBER(cc, "url"), *svc = MEMBER(cc, "service");

    if ((url == NULL) == (svc == NULL))
        gw_ferr_required(e, "spec.conversion.webhookClientConfig",
                         "exactly one of url or service is required");
    else if (url != NULL)
        webhook_url(json_is_string(url) ? json_string_value(url) : "",
                    "spec.conversion.webhookClientConfig.url", e);
    else
        webhook_service(svc, "spec.conversion.webhookClientConfig.service", e);
}

void
gw_crd__validate_conversion(const json_t *spec, bool require_recognized, gw_field_errors_t *e)
{
    static const char *const strategies[] = {"None", "Webhook", NULL};
    const json_t *conv = MEMBER(spec, "conversion"), *wh = MEMBER(conv, "webhook");
    const json_t *cc = MEMBER(wh, "clientConfig"), *crv = MEMBER(wh, "conversionReviewVersions");
    const char *strategy = STR(conv, "strategy");

    if (conv == NULL)
        return;
    if (strcmp(strategy, "None") != 0 &&
        json_is_true(json_object_get(spec, "preserveUnknownFields")))
        invalid_str(e, "spec.conversion.strategy", strategy,
                    "must be None if spec.preserveUnknownFields is true");
    if (strategy[0] == '\0')
        gw_ferr_required(e, "spec.conversion.strategy", NULL);
    else if (strcmp(strategy, "None") != 0 && strcmp(strategy, "Webhook") != 0)
        gw_ferr_not_supported(e, "spec.conversion.strategy", strategy, strategies);
    if (strcmp(strategy, "Webhook") == 0) {
        if (cc == NULL)
            gw_ferr_required(e, "spec.conversion.webhookClientConfig",
                             "required when strategy is set to Webhook");
        else
            webhook_client_config(cc, e);
        review_versions(crv, require_recognized, e);
        return;
    }
    if (cc != NULL)
        gw_ferr_forbidden(e, "spec.conversion.webhookClientConfig",
                          "should not be set when strategy is not set to Webhook");
    if (json_array_size(crv) > 0)
        gw_ferr_forbidden(e, "spec.conversion.conversionReviewVersions",
                          "should not be set when strategy is not set to Webhook");
}

/* url.ParseRequestURI with a scheme and a host. */
bool
gw_crd__request_uri_with_host(const char *s)
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
