/* Content negotiation, after kube-apiserver's negotiation package and goautoneg. */
#include "gw_negotiate.h"

#include <stdlib.h>
#include <string.h>

#include "gw_api_int.h"

#define MAX_CLAUSES 32 /* more is not a real client; the rest are ignored */
#define MAX_PARAMS 8

typedef struct {
    const char *s;
    size_t len;
} span_t;

typedef struct {
    span_t type, subtype;
    span_t keys[MAX_PARAMS], values[MAX_PARAMS];
    size_t n_params;
    double q;
} clause_t;

static span_t
trim(const char *s, size_t len)
{
    while (len > 0 && (*s == ' ' || *s == '\t'))
        s++, len--;
    while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\t'))
        len--;
    return (span_t){s, len};
}

static bool
span_is(span_t sp, const char *word)
{
    return gw_api__ieq(sp.s, sp.len, word);
}

/* "key=value" parameters after the media range; q is kept apart. */
static void
parse_params(clause_t *c, const char *p, const char *end)
{
    while (p < end) {
        const char *semi = memchr(p, ';', (size_t)(end - p));
        const char *stop = semi != NULL ? semi : end;
        const char *eq = memchr(p, '=', (size_t)(stop - p));
        if (eq != NULL) {
            span_t k = trim(p, (size_t)(eq - p)), v = trim(eq + 1, (size_t)(stop - eq - 1));
            if (span_is(k, "q"))
                c->q = strtod(eq + 1, NULL);
            else if (c->n_params < MAX_PARAMS) {
                c->keys[c->n_params] = k;
                c->values[c->n_params++] = v;
            }
        }
        p = stop + (stop < end);
    }
}

/* One comma-separated clause; false for one without type and subtype (a lone "*" is both). */
static bool
parse_clause(clause_t *c, const char *s, size_t len)
{
    const char *end = s + len, *semi = memchr(s, ';', len);
    span_t range = trim(s, (size_t)((semi != NULL ? semi : end) - s));
    const char *slash = memchr(range.s, '/', range.len);
    *c = (clause_t){.q = 1.0};
    if (slash == NULL) {
        if (!span_is(range, "*"))
            return false;
        c->type = c->subtype = range;
    } else {
        c->type = trim(range.s, (size_t)(slash - range.s));
        c->subtype = trim(slash + 1, (size_t)(range.s + range.len - slash - 1));
        if (memchr(c->subtype.s, '/', c->subtype.len) != NULL)
            return false;
    }
    if (semi != NULL)
        parse_params(c, semi + 1, end);
    return true;
}

/* goautoneg's order: higher q first, then concrete before wildcard; stable otherwise. */
static bool
before(const clause_t *a, const clause_t *b)
{
    if (a->q != b->q)
        return a->q > b->q;
    if (!span_is(a->type, "*") && span_is(b->type, "*"))
        return true;
    return !span_is(a->subtype, "*") && span_is(b->subtype, "*");
}

static size_t
parse_accept(const char *accept, clause_t *out)
{
    size_t n = 0;
    for (const char *p = accept; n < MAX_CLAUSES;) {
        size_t len = strcspn(p, ",");
        if (parse_clause(&out[n], p, len)) {
            /* insertion keeps equal clauses in the client's order */
            clause_t c = out[n];
            size_t i = n++;
            for (; i > 0 && before(&c, &out[i - 1]); i--)
                out[i] = out[i - 1];
            out[i] = c;
        }
        if (p[len] == '\0')
            break;
        p += len + 1;
    }
    return n;
}

/* Media parameters compare exactly, as kube's map lookups and GroupVersionKind do. */
static bool
span_eq(span_t sp, const char *word)
{
    return sp.s != NULL && strlen(word) == sp.len && strncmp(sp.s, word, sp.len) == 0;
}

static span_t
param(const clause_t *c, const char *key)
{
    for (size_t i = 0; i < c->n_params; i++) {
        if (span_eq(c->keys[i], key))
            return c->values[i];
    }
    return (span_t){NULL, 0};
}

typedef struct {
    gw_neg_endpoint_t ep;
    const char *kind, *group, *versions[2];
    gw_as_t as;
    bool json_only; /* kube's Tables: JSON (kgate does not write Tables as YAML) */
} conversion_t;

static const conversion_t conversions[] = {
    {GW_NEG_RESOURCE, "Table", "meta.k8s.io", {"v1", "v1beta1"}, GW_AS_OBJECT, true},
    {GW_NEG_RESOURCE,
     "PartialObjectMetadata",
     "meta.k8s.io",
     {"v1", "v1beta1"},
     GW_AS_PARTIAL,
     false},
    {GW_NEG_RESOURCE,
     "PartialObjectMetadataList",
     "meta.k8s.io",
     {"v1", "v1beta1"},
     GW_AS_PARTIAL_LIST,
     false},
    {GW_NEG_DISCOVERY,
     "APIGroupDiscoveryList",
     "apidiscovery.k8s.io",
     {"v2", "v2beta1"},
     GW_AS_OBJECT,
     true},
};

/*
 * Whether the endpoint may serve the clause, filling the conversion into out (whose media is
 * the clause's). A clause that names no conversion is fine anywhere but in the discovery pass;
 * one that names a conversion the endpoint does not offer in that media is not (kube's
 * AllowsMediaTypeTransform).
 */
static bool
conversion(const clause_t *c, gw_neg_endpoint_t ep, gw_negotiated_t *out)
{
    span_t as = param(c, "as"), g = param(c, "g"), v = param(c, "v");
    if (as.s == NULL && g.s == NULL && v.s == NULL)
        return ep != GW_NEG_DISCOVERY;
    if (ep == GW_NEG_RESOURCE_NO_PROTOBUF)
        ep = GW_NEG_RESOURCE;
    for (size_t i = 0; i < sizeof(conversions) / sizeof(conversions[0]); i++) {
        const conversion_t *cv = &conversions[i];
        if (cv->ep != ep || !span_eq(as, cv->kind) || !span_eq(g, cv->group) ||
            (cv->json_only && out->media != GW_MEDIA_JSON))
            continue;
        for (size_t j = 0; j < 2; j++) {
            if (!span_eq(v, cv->versions[j]))
                continue;
            out->version = cv->versions[j];
            out->as = cv->as;
            if (ep == GW_NEG_RESOURCE && cv->as == GW_AS_OBJECT)
                out->media = GW_MEDIA_TABLE;
            out->aggregated = ep == GW_NEG_DISCOVERY;
            return true;
        }
    }
    return false;
}

/* The first producible type for one clause, in the server's order: JSON, YAML, protobuf, CBOR
 * (kube appends it when its gate is on). */
static bool
match(const clause_t *c, gw_neg_endpoint_t ep, bool cbor, gw_negotiated_t *out)
{
    static const struct {
        const char *subtype;
        gw_media_t media;
    } produced[] = {{"json", GW_MEDIA_JSON},
                    {"yaml", GW_MEDIA_YAML},
                    {"vnd.kubernetes.protobuf", GW_MEDIA_PROTOBUF},
                    {"cbor", GW_MEDIA_CBOR}};
    if (!span_is(c->type, "*") && !span_is(c->type, "application"))
        return false;
    for (size_t i = 0; i < sizeof(produced) / sizeof(produced[0]); i++) {
        if (!span_is(c->subtype, "*") && !span_is(c->subtype, produced[i].subtype))
            continue;
        if (produced[i].media == GW_MEDIA_PROTOBUF && ep != GW_NEG_RESOURCE)
            continue;
        if (produced[i].media == GW_MEDIA_CBOR && !cbor)
            continue;
        *out = (gw_negotiated_t){.media = produced[i].media};
        out->pretty = span_eq(param(c, "pretty"), "1");
        if (conversion(c, ep, out))
            return true;
    }
    return false;
}

static bool
first_match(const clause_t *clauses, size_t n, gw_neg_endpoint_t ep, bool cbor,
            gw_negotiated_t *out)
{
    for (size_t i = 0; i < n; i++) {
        if (match(&clauses[i], ep, cbor, out))
            return true;
    }
    return false;
}

bool
gw_negotiate_accept(const char *accept, gw_neg_endpoint_t ep, gw_negotiated_t *out)
{
    clause_t clauses[MAX_CLAUSES];
    bool cbor = (ep & GW_NEG_CBOR) != 0;
    *out = (gw_negotiated_t){.media = GW_MEDIA_JSON};
    ep &= ~GW_NEG_CBOR;
    if (accept == NULL || *accept == '\0')
        return true;
    size_t n = parse_accept(accept, clauses);
    /* Like kube's discovery wrapper: an aggregated list if any clause asks for one, else the
     * plain documents. */
    if (ep == GW_NEG_DISCOVERY && first_match(clauses, n, ep, false, out))
        return true;
    if (first_match(clauses, n, ep == GW_NEG_DISCOVERY ? GW_NEG_PLAIN : ep,
                    cbor && ep != GW_NEG_PLAIN && ep != GW_NEG_DISCOVERY, out))
        return true;
    *out = (gw_negotiated_t){.media = GW_MEDIA_JSON};
    return false;
}

gw_neg_openapi_t
gw_negotiate_openapi_v2(const char *accept)
{
    static const struct {
        const char *subtype;
        gw_neg_openapi_t media;
    } offered[] = {
        {"json", GW_NEG_OPENAPI_JSON},
        {"com.github.proto-openapi.spec.v2@v1.0+protobuf", GW_NEG_OPENAPI_PROTOBUF},
        {"com.github.proto-openapi.spec.v2.v1.0+protobuf", GW_NEG_OPENAPI_PROTOBUF},
    };
    clause_t clauses[MAX_CLAUSES];
    size_t n = parse_accept(accept != NULL && *accept != '\0' ? accept : "*/*", clauses);

    /* kube-openapi compares the type and subtype as they are written */
    for (size_t i = 0; i < n; i++) {
        const clause_t *c = &clauses[i];
        if (!span_eq(c->type, "*") && !span_eq(c->type, "application"))
            continue;
        for (size_t k = 0; k < sizeof(offered) / sizeof(offered[0]); k++) {
            if (span_eq(c->subtype, "*") || span_eq(c->subtype, offered[k].subtype))
                return offered[k].media;
        }
    }
    return GW_NEG_OPENAPI_NONE;
}

gw_body_type_t
gw_negotiate_body(const char *content_type, bool patch)
{
    static const struct {
        const char *type;
        gw_body_type_t body;
        bool patch;
    } types[] = {
        {"application/json", GW_BODY_JSON, false},
        {"application/yaml", GW_BODY_YAML, false},
        {"application/vnd.kubernetes.protobuf", GW_BODY_PROTOBUF, false},
        {"application/cbor", GW_BODY_CBOR, false},
        {"application/json-patch+json", GW_BODY_JSON_PATCH, true},
        {"application/merge-patch+json", GW_BODY_MERGE_PATCH, true},
        {"application/strategic-merge-patch+json", GW_BODY_STRATEGIC_PATCH, true},
        {"application/apply-patch+yaml", GW_BODY_APPLY_PATCH, true},
        {"application/apply-patch+cbor", GW_BODY_APPLY_PATCH_CBOR, true},
    };
    if (content_type == NULL || *content_type == '\0')
        return patch ? GW_BODY_UNSUPPORTED : GW_BODY_JSON;
    size_t len = strcspn(content_type, ";");
    /* kube's patch handler compares the bare type exactly; mime.ParseMediaType (others)
     * lowercases it and trims spaces. */
    span_t t = patch ? (span_t){content_type, len} : trim(content_type, len);
    for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
        if (types[i].patch != patch || strlen(types[i].type) != t.len)
            continue;
        if (patch ? strncmp(t.s, types[i].type, t.len) == 0 : span_is(t, types[i].type))
            return types[i].body;
    }
    return GW_BODY_UNSUPPORTED;
}

bool
gw_negotiate_gzip(const char *accept_encoding)
{
    if (accept_encoding == NULL)
        return false;
    for (const char *p = accept_encoding;;) {
        size_t len = strcspn(p, ",");
        span_t tok = trim(p, len);
        if (tok.len == 4 && strncmp(tok.s, "gzip", 4) == 0)
            return true;
        if (p[len] == '\0')
            return false;
        p += len + 1;
    }
}

bool
gw_negotiate_pretty(const char *pretty_param, const char *user_agent)
{
    static const char *const yes[] = {"1", "t", "T", "true", "TRUE", "True"};
    static const char *const agents[] = {"curl", "Wget", "Mozilla/5.0"};
    if (pretty_param != NULL && *pretty_param != '\0') {
        for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
            if (strcmp(pretty_param, yes[i]) == 0)
                return true;
        }
        return false; /* false, or not a bool (kube ignores the parse error) */
    }
    for (size_t i = 0; user_agent != NULL && i < sizeof(agents) / sizeof(agents[0]); i++) {
        if (strncmp(user_agent, agents[i], strlen(agents[i])) == 0)
            return true;
    }
    return false;
}
