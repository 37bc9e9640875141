/*
 * The EncryptionConfiguration: decoded from YAML or JSON, validated as kube's
 * ValidateEncryptionConfiguration (its field paths and words), then built into provider chains
 * per group-resource as kube's getTransformerOverrides (and its masking rule).
 */
#include "gw_enc_int.h"

#include <errno.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "gw_alloc.h"
#include "gw_err.h"
#include "gw_errlist.h"
#include "gw_file.h"
#include "gw_yaml.h"

#define MAX_CONFIG_BYTES (4u << 20)
#define KMS_DEFAULT_TIMEOUT_NS 3e9 /* kube's default KMS call timeout */
#define KMS_V1_DISABLED                                                                            \
    "KMSv1 is deprecated and will only receive security updates going forward. Use KMSv2 "         \
    "instead.  Set --feature-gates=KMSv1=true to use the deprecated KMSv1 feature."

static const struct {
    const char *field;
    gw_enc_kind_t kind;
    const char *prefix;
} kinds[] = {
    {"aesgcm", GW_ENC_AESGCM, "k8s:enc:aesgcm:v1:"},
    {"aescbc", GW_ENC_AESCBC, "k8s:enc:aescbc:v1:"},
    {"secretbox", GW_ENC_SECRETBOX, "k8s:enc:secretbox:v1:"},
};

/* ---- reading values ----------------------------------------------------------------------- */

static const char *
str(const json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s != NULL ? s : "";
}

static const json_t *
present(const json_t *o, const char *k)
{
    const json_t *v = json_object_get(o, k);
    return v != NULL && !json_is_null(v) ? v : NULL;
}

static size_t
count(const json_t *a)
{
    return json_is_array(a) ? json_array_size(a) : 0;
}

/* Go's standard base64 (padded), as kube decodes a key's secret: the decoded length (its first
 * cap bytes copied to out), or -1 when it is not base64. */
static int
secret_decode(const char *s, uint8_t *out, size_t cap)
{
    size_t n = strlen(s);
    uint8_t *buf;
    int len;

    if (n == 0 || n % 4 != 0)
        return -1;
    buf = gw_malloc(n / 4 * 3 + 1);
    len = EVP_DecodeBlock(buf, (const uint8_t *)s, (int)n);
    if (len >= 0) {
        /* EVP_DecodeBlock keeps the padding's zero bytes; Go drops them */
        len -= (s[n - 1] == '=') + (s[n - 2] == '=');
        memcpy(out, buf, (size_t)len < cap ? (size_t)len : cap);
    }
    free(buf);
    return len;
}

/* Go's time.ParseDuration, enough to say whether a timeout is positive; false: not a
 * duration. */
static bool
duration_ns(const char *s, double *ns)
{
    static const struct {
        const char *unit;
        double ns;
    } units[] = {{"ns", 1},  {"us", 1e3}, {"µs", 1e3},  {"ms", 1e6},
                 {"s", 1e9}, {"m", 60e9}, {"h", 3600e9}};
    double sign = 1, total = 0;

    if (*s == '-' || *s == '+')
        sign = *s++ == '-' ? -1 : 1;
    if (strcmp(s, "0") == 0) {
        *ns = 0;
        return true;
    }
    if (*s == '\0')
        return false;
    while (*s != '\0') {
        char *end;
        double v;
        size_t best = 0, which = 0;
        errno = 0;
        v = strtod(s, &end);
        if (end == s || errno != 0 || *end == '\0')
            return false;
        for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
            size_t n = strlen(units[i].unit);
            if (strncmp(end, units[i].unit, n) == 0 && n > best) {
                best = n;
                which = i;
            }
        }
        if (best == 0)
            return false;
        total += v * units[which].ns;
        s = end + best;
    }
    *ns = sign * total;
    return true;
}

/* ---- validation (kube's apis/config/validation) ------------------------------------------- */

/* Go's %#v of a []string. */
static char *
go_strings(const json_t *a)
{
    char *s = gw_strdup("[]string{"), *next;
    const json_t *v;
    size_t i;

    json_array_foreach(a, i, v)
    {
        next = gw_sprintf("%s%s\"%s\"", s, i ? ", " : "",
                          json_string_value(v) ? json_string_value(v) : "");
        free(s);
        s = next;
    }
    next = gw_sprintf("%s}", s);
    free(s);
    return next;
}

/* schema.ParseGroupResource: "a.b.c" is resource "a" of group "b.c". */
static void
parse_gr(const char *s, char **group, char **resource)
{
    const char *dot = strchr(s, '.');

    *resource = dot != NULL ? gw_strndup(s, (size_t)(dot - s)) : gw_strdup(s);
    *group = gw_strdup(dot != NULL ? dot + 1 : "");
}

static bool
gr_eq(const char *g1, const char *r1, const char *g2, const char *r2)
{
    return strcmp(g1, g2) == 0 && strcmp(r1, r2) == 0;
}

static void
check_overlap(gw_errlist_t *e, const json_t *list, const char *path)
{
    size_t n = count(list);
    bool dup = false, overlap = false;
    char **g = gw_calloc(n + 1, sizeof(char *)), **r = gw_calloc(n + 1, sizeof(char *));

    for (size_t i = 0; i < n; i++)
        parse_gr(json_string_value(json_array_get(list, i)) ?: "", &g[i], &r[i]);
    for (size_t i = 0; n >= 2 && i < n; i++) {
        for (size_t j = 0; j < n; j++) {
            if (i == j)
                continue;
            if (gr_eq(g[i], r[i], g[j], r[j]) && !dup) {
                dup = true;
                continue;
            }
            if (overlap)
                continue;
            if (gr_eq(g[i], r[i], "*", "*") ||
                (strcmp(g[i], g[j]) == 0 && (!strcmp(r[i], "*") || !strcmp(r[j], "*"))))
                overlap = true;
        }
    }
    char *v = go_strings(list);
    if (dup)
        gw_errlist_add(e,
                       "%s: Invalid value: %s: the same resource cannot be specified multiple "
                       "times",
                       path, v);
    if (overlap)
        gw_errlist_add(e,
                       "%s: Invalid value: %s: using overlapping resources such as 'secrets' "
                       "and '*.' in the same resource list is not allowed as they will be "
                       "masked",
                       path, v);
    free(v);
    for (size_t i = 0; i < n; i++) {
        free(g[i]);
        free(r[i]);
    }
    free(g);
    free(r);
}

static bool
has_capital(const char *s)
{
    for (; *s; s++) {
        if (*s >= 'A' && *s <= 'Z')
            return true;
    }
    return false;
}

/* The first of kube's name rules a resource breaks, or NULL. */
static const char *
name_rule(const char *res)
{
    char *g, *r;
    const char *why = NULL;

    if (has_capital(res))
        return "resource name should not contain capital letters";
    if (strcmp(res, "*") == 0)
        return "use '*.' to encrypt all the resources from core API group or *.* to encrypt all "
               "resources";
    if (!strcmp(res, "apiserveripinfo") || !strcmp(res, "serviceipallocations") ||
        !strcmp(res, "servicenodeportallocations"))
        return "resources which do not have REST API/s cannot be encrypted";
    parse_gr(res, &g, &r);
    if (strcmp(g, "events.k8s.io") == 0)
        why = "'*.events.k8s.io' objects are stored using the 'events' API group in etcd. Use "
              "'events' instead in the config file";
    else if (strcmp(g, "extensions") == 0)
        why = "'extensions' group has been removed and cannot be used for encryption";
    else if (strcmp(g, "*") == 0 && strcmp(r, "*") != 0)
        why = "encrypting the same resource across groups is not supported";
    free(g);
    free(r);
    return why;
}

static void
check_names(gw_errlist_t *e, const json_t *list, const char *path)
{
    const json_t *v;
    size_t i;

    json_array_foreach(list, i, v)
    {
        const char *res = json_string_value(v) ?: "";
        const char *why = name_rule(res);
        if (why != NULL)
            gw_errlist_add(e, "%s[%zu]: Invalid value: \"%s\": %s", path, i, res, why);
    }
}

static void
check_key(gw_errlist_t *e, const json_t *k, const char *path, const int *sizes, size_t n_sizes)
{
    uint8_t secret[64];
    int len;
    bool fits = false;

    if (str(k, "name")[0] == '\0')
        gw_errlist_add(e, "%s.name: Required value: name is a mandatory field for a key", path);
    if (str(k, "secret")[0] == '\0') {
        gw_errlist_add(e, "%s.secret: Required value: secret is a mandatory field for a key", path);
        return;
    }
    len = secret_decode(str(k, "secret"), secret, sizeof(secret));
    if (len < 0) {
        gw_errlist_add(e, "%s.secret: Invalid value: \"REDACTED\": secrets must be base64 encoded",
                       path);
        return;
    }
    for (size_t i = 0; i < n_sizes; i++)
        fits = fits || len == sizes[i];
    if (!fits)
        gw_errlist_add(e,
                       "%s.secret: Invalid value: \"REDACTED\": secret is not of the expected "
                       "length, got %d, expected one of %s",
                       path, len, n_sizes == 1 ? "[32]" : "[16 24 32]");
}

static void
check_keys(gw_errlist_t *e, const json_t *conf, const char *path, bool box)
{
    static const int aes[] = {16, 24, 32}, secretbox[] = {32};
    const json_t *keys = json_object_get(conf, "keys"), *k;
    size_t i;

    if (count(keys) == 0) {
        gw_errlist_add(e, "%s: Required value: at least one keys is required", path);
        return;
    }
    json_array_foreach(keys, i, k)
    {
        char *p = gw_sprintf("%s[%zu]", path, i);
        check_key(e, k, p, box ? secretbox : aes, box ? 1 : 3);
        free(p);
    }
}

/* kube's defaults: apiVersion v1, timeout 3s, and a cache size for v1 only. */
static void
check_kms(gw_errlist_t *e, const json_t *kms, const char *path, json_t *names)
{
    const char *name = str(kms, "name"), *av = str(kms, "apiVersion"), *ep = str(kms, "endpoint");
    const json_t *timeout = present(kms, "timeout"), *cache = present(kms, "cachesize");
    double ns = 3e9;

    if (av[0] == '\0')
        av = "v1";
    if (name[0] == '\0')
        gw_errlist_add(e, "%s.name: Required value: name is a mandatory field for a provider",
                       path);
    if (strcmp(av, "v1") != 0 && strchr(name, ':') != NULL)
        gw_errlist_add(e,
                       "%s.name: Invalid value: \"%s\": invalid KMS provider name %s, must not "
                       "contain ':'",
                       path, name, name);
    if (strcmp(av, "v1") != 0 && json_object_get(names, name) != NULL)
        gw_errlist_add(e,
                       "%s.name: Invalid value: \"%s\": duplicate KMS provider name %s, names "
                       "must be unique",
                       path, name, name);
    json_object_set_new(names, name, json_true());
    if (timeout != NULL &&
        (!json_is_string(timeout) || !duration_ns(json_string_value(timeout), &ns)))
        ns = 0;
    if (ns <= 0)
        gw_errlist_add(e, "%s.timeout: Invalid value: \"%s\": timeout should be a positive value",
                       path, json_string_value(timeout) ?: "");
    if (ep[0] == '\0')
        gw_errlist_add(e,
                       "%s.endpoint: Invalid value: \"\": endpoint is a mandatory field for a "
                       "kms",
                       path);
    else if (strncmp(ep, "unix://", 7) != 0) {
        const char *colon = strstr(ep, "://");
        gw_errlist_add(e,
                       "%s.endpoint: Invalid value: \"%s\": unsupported scheme \"%.*s\" for "
                       "KMS provider, only unix is supported",
                       path, ep, colon ? (int)(colon - ep) : 0, ep);
    }
    if (strcmp(av, "v1") != 0 && cache != NULL)
        gw_errlist_add(e, "%s.cachesize: Invalid value: %lld: cachesize is not supported in v2",
                       path, (long long)json_integer_value(cache));
    if (strcmp(av, "v1") == 0 && cache != NULL && json_integer_value(cache) == 0)
        gw_errlist_add(e,
                       "%s.cachesize: Invalid value: 0: cachesize should be a positive value, "
                       "or negative to disable",
                       path);
    if (strcmp(av, "v1") != 0 && strcmp(av, "v2") != 0)
        gw_errlist_add(e,
                       "%s.apiVersion: Invalid value: \"%s\": unsupported apiVersion apiVersion "
                       "for KMS provider, only v1 and v2 are supported",
                       path, av);
}

#define NIL_PROVIDER                                                                               \
    "config.ProviderConfiguration{AESGCM:(*config.AESConfiguration)(nil), "                        \
    "AESCBC:(*config.AESConfiguration)(nil), Secretbox:(*config.SecretboxConfiguration)(nil), "    \
    "Identity:(*config.IdentityConfiguration)(nil), KMS:(*config.KMSConfiguration)(nil)}"

static void
check_provider(gw_errlist_t *e, const json_t *p, const char *path, json_t *kms_names)
{
    static const char *const fields[] = {"kms", "aesgcm", "aescbc", "secretbox", "identity"};
    size_t found = 0;

    for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
        found += present(p, fields[i]) != NULL;
    if (found == 0) {
        gw_errlist_add(e,
                       "%s: Invalid value: " NIL_PROVIDER ": provider does not contain any of "
                       "the expected providers: KMS, AESGCM, AESCBC, Secretbox, Identity",
                       path);
        return;
    }
    if (found > 1) {
        gw_errlist_add(e,
                       "%s: Invalid value: config.ProviderConfiguration{...}: more than one "
                       "provider specified in a single element, should split into different "
                       "list elements",
                       path);
        return;
    }
    if (present(p, "kms") != NULL) {
        char *k = gw_sprintf("%s.kms", path);
        check_kms(e, present(p, "kms"), k, kms_names);
        free(k);
    }
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
        if (present(p, kinds[i].field) == NULL)
            continue;
        char *k = gw_sprintf("%s.%s.keys", path, kinds[i].field);
        check_keys(e, present(p, kinds[i].field), k, kinds[i].kind == GW_ENC_SECRETBOX);
        free(k);
    }
}

static void
check_entry(gw_errlist_t *e, const json_t *entry, size_t i, json_t *kms_names)
{
    const json_t *res = json_object_get(entry, "resources"), *provs, *p;
    char *r = gw_sprintf("resources[%zu].resources", i), *pp;
    size_t j;

    if (count(res) == 0)
        gw_errlist_add(e, "%s: Required value: at least one %s is required", r, r);
    else {
        check_overlap(e, res, r);
        check_names(e, res, r);
    }
    pp = gw_sprintf("resources[%zu].providers", i);
    provs = json_object_get(entry, "providers");
    if (count(provs) == 0)
        gw_errlist_add(e, "%s: Required value: at least one %s is required", pp, pp);
    json_array_foreach(json_is_array(provs) ? provs : NULL, j, p)
    {
        char *path = gw_sprintf("%s[%zu]", pp, j);
        check_provider(e, p, path, kms_names);
        free(path);
    }
    free(r);
    free(pp);
}

static bool
validate(const json_t *doc, char *err, size_t err_len)
{
    const json_t *entries = json_object_get(doc, "resources"), *entry;
    json_t *kms_names = json_object();
    gw_errlist_t e = {0};
    size_t i;

    if (count(entries) == 0)
        gw_errlist_add(&e, "resources: Required value: at least one resources is required");
    json_array_foreach(count(entries) ? entries : NULL, i, entry)
        check_entry(&e, entry, i, kms_names);
    json_decref(kms_names);
    if (e.n == 0)
        return true;
    gw_errlist_print(&e, "error while parsing file: ", err, err_len);
    return false;
}

/* ---- building ----------------------------------------------------------------------------- */

static void
build_keys(gw_enc_provider_t *p, const json_t *conf)
{
    const json_t *keys = json_object_get(conf, "keys"), *k;
    size_t i;

    p->keys = gw_calloc(count(keys) + 1, sizeof(*p->keys));
    json_array_foreach(keys, i, k)
    {
        gw_enc_key_t *key = &p->keys[p->n_keys++];
        key->name = gw_strdup(str(k, "name"));
        key->secret_len = (size_t)secret_decode(str(k, "secret"), key->secret, GW_ENC_MAX_KEY);
    }
}

/* A KMS v2 provider (validated: a name, a unix endpoint, a positive timeout or none). */
static void
build_kms(gw_enc_provider_t *p, const json_t *kms)
{
    const json_t *timeout = present(kms, "timeout");
    double ns = KMS_DEFAULT_TIMEOUT_NS;

    if (timeout != NULL)
        duration_ns(json_string_value(timeout), &ns);
    p->kind = GW_ENC_KMS;
    p->kms_prefix = gw_sprintf("k8s:enc:kms:v2:%s:", str(kms, "name"));
    p->prefix = p->kms_prefix;
    p->kms = gw_enc__kms_new(str(kms, "name"), str(kms, "endpoint"), (int64_t)(ns / 1e6));
}

/* One provider entry into p; false with kube's building error in err. */
static bool
build_provider(gw_enc_provider_t *p, const json_t *conf, char *err, size_t err_len)
{
    const json_t *kms = present(conf, "kms");

    if (kms != NULL) {
        const char *av = str(kms, "apiVersion");
        if (av[0] == '\0' || strcmp(av, "v1") == 0) {
            snprintf(err, err_len, "error while building transformers: " KMS_V1_DISABLED);
            return false;
        }
        build_kms(p, kms);
        return true;
    }
    p->kind = GW_ENC_IDENTITY;
    p->prefix = "";
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
        if (present(conf, kinds[i].field) == NULL)
            continue;
        p->kind = kinds[i].kind;
        p->prefix = kinds[i].prefix;
        build_keys(p, present(conf, kinds[i].field));
    }
    return true;
}

/* "*." for the core group's wildcard, else kube's GroupResource.String(). */
static char *
gr_text(const char *group, const char *resource)
{
    if (group[0] == '\0')
        return gw_strdup(strcmp(resource, "*") == 0 ? "*." : resource);
    return gw_sprintf("%s.%s", resource, group);
}

static gw_enc_chain_t *
find_chain(gw_enc_config_t *c, const char *group, const char *resource)
{
    for (size_t i = 0; i < c->n_chains; i++) {
        if (gr_eq(c->chains[i].group, c->chains[i].resource, group, resource))
            return &c->chains[i];
    }
    return NULL;
}

/* kube refuses a rule an earlier "*.group" or "*.*" rule masks. */
static bool
masked(gw_enc_config_t *c, const char *group, const char *resource, char *err, size_t err_len)
{
    const char *by_group[2] = {group, "*"};

    for (size_t i = 0; i < 2; i++) {
        if (find_chain(c, by_group[i], "*") == NULL)
            continue;
        char *a = gr_text(group, resource), *b = gr_text(by_group[i], "*");
        snprintf(err, err_len,
                 "error while building transformers: resource \"%s\" is masked by earlier rule "
                 "\"%s\"",
                 a, b);
        free(a);
        free(b);
        return true;
    }
    return false;
}

static void
append_chain(gw_enc_config_t *c, char *group, char *resource, const gw_enc_provider_t *first,
             size_t n)
{
    gw_enc_chain_t *ch = find_chain(c, group, resource);

    if (ch == NULL) {
        c->chains = gw_realloc(c->chains, (c->n_chains + 1) * sizeof(*c->chains));
        ch = &c->chains[c->n_chains++];
        *ch = (gw_enc_chain_t){.group = group, .resource = resource};
    } else {
        free(group);
        free(resource);
    }
    ch->providers = gw_realloc(ch->providers, (ch->n + n) * sizeof(*ch->providers));
    for (size_t i = 0; i < n; i++)
        ch->providers[ch->n++] = first + i;
}

static bool
build_entry(gw_enc_config_t *c, const json_t *entry, char *err, size_t err_len)
{
    const json_t *provs = json_object_get(entry, "providers"), *p, *r;
    size_t first = c->n_providers, i;

    json_array_foreach(provs, i, p)
    {
        if (!build_provider(&c->providers[c->n_providers], p, err, err_len))
            return false;
        c->n_providers++;
    }
    json_array_foreach(json_object_get(entry, "resources"), i, r)
    {
        char *g, *res;
        parse_gr(json_string_value(r), &g, &res);
        if (masked(c, g, res, err, err_len)) {
            free(g);
            free(res);
            return false;
        }
        append_chain(c, g, res, &c->providers[first], c->n_providers - first);
    }
    return true;
}

static int
longest_first(const void *a, const void *b)
{
    const gw_enc_path_t *x = a, *y = b;
    return x->path_len < y->path_len ? 1 : x->path_len > y->path_len ? -1 : 0;
}

/* The built-in resources' etcd paths: the first resource named for a path owns it (core's
 * events before events.k8s.io's), extensions' old ingresses aside. */
static void
build_paths(gw_enc_config_t *c, const gw_catalog_t *builtin)
{
    size_t n = gw_catalog_count(builtin);

    c->paths = gw_calloc(n + 1, sizeof(*c->paths));
    for (size_t i = 0; i < n; i++) {
        const gw_resource_t *r = gw_catalog_at(builtin, i);
        bool seen = false;
        if (r->virtual_only || r->storage_path == NULL || strcmp(r->group, "extensions") == 0)
            continue;
        for (size_t j = 0; j < c->n_paths && !seen; j++)
            seen = strcmp(c->paths[j].path, r->storage_path) == 0;
        if (!seen)
            c->paths[c->n_paths++] = (gw_enc_path_t){.path = r->storage_path,
                                                     .path_len = strlen(r->storage_path),
                                                     .group = r->group,
                                                     .resource = r->name};
    }
    qsort(c->paths, c->n_paths, sizeof(*c->paths), longest_first);
}

static gw_enc_config_t *
build(const json_t *doc, const gw_catalog_t *builtin, char *err, size_t err_len)
{
    const json_t *entries = json_object_get(doc, "resources"), *entry;
    gw_enc_config_t *c = gw_calloc(1, sizeof(*c));
    size_t total = 0, i;

    json_array_foreach(entries, i, entry) total += count(json_object_get(entry, "providers"));
    c->providers = gw_calloc(total + 1, sizeof(*c->providers));
    json_array_foreach(entries, i, entry)
    {
        if (!build_entry(c, entry, err, err_len)) {
            gw_enc_config_free(c);
            return NULL;
        }
    }
    if (builtin != NULL)
        build_paths(c, builtin);
    return c;
}

/* ---- decoding ----------------------------------------------------------------------------- */

static json_t *
decode(const char *text, size_t len, const char *name, char *err, size_t err_len)
{
    char why[256];
    json_t *doc = gw_yaml_to_json(text, len, why, sizeof(why));
    const char *av, *kind;

    if (doc == NULL || !json_is_object(doc)) {
        snprintf(err, err_len,
                 "error while parsing file: error decoding encryption provider configuration "
                 "file \"%s\": %s",
                 name, doc == NULL ? why : "Object 'Kind' is missing");
        json_decref(doc);
        return NULL;
    }
    av = str(doc, "apiVersion");
    kind = str(doc, "kind");
    if (kind[0] == '\0' || av[0] == '\0' || strcmp(av, "apiserver.config.k8s.io/v1") != 0 ||
        strcmp(kind, "EncryptionConfiguration") != 0) {
        snprintf(err, err_len,
                 "error while parsing file: error decoding encryption provider configuration "
                 "file \"%s\": %s",
                 name,
                 kind[0] == '\0' ? "Object 'Kind' is missing"
                 : av[0] == '\0' ? "Object 'apiVersion' is missing"
                                 : "no kind is registered for the type");
        json_decref(doc);
        return NULL;
    }
    return doc;
}

gw_enc_config_t *
gw_enc_config_parse(const char *text, size_t len, const char *name, const gw_catalog_t *builtin,
                    char *err, size_t err_len)
{
    json_t *doc;
    gw_enc_config_t *c = NULL;

    if (!gw_enc__init()) {
        snprintf(err, err_len, "libsodium cannot be initialized");
        return NULL;
    }
    doc = decode(text, len, name, err, err_len);
    if (doc != NULL && validate(doc, err, err_len))
        c = build(doc, builtin, err, err_len);
    json_decref(doc);
    return c;
}

gw_enc_config_t *
gw_enc_config_load(const char *path, const gw_catalog_t *builtin, char *err, size_t err_len)
{
    size_t len;
    char *text = gw_file_read(path, MAX_CONFIG_BYTES, &len);
    gw_enc_config_t *c;

    if (text == NULL) {
        snprintf(err, err_len,
                 "error while parsing file: error while loading file: error opening encryption "
                 "provider configuration file \"%s\": open %s: %s",
                 path, path, strerror(errno));
        return NULL;
    }
    if (len == 0) {
        free(text);
        snprintf(err, err_len,
                 "error while parsing file: error while loading file: encryption provider "
                 "configuration file \"%s\" is empty",
                 path);
        return NULL;
    }
    c = gw_enc_config_parse(text, len, path, builtin, err, err_len);
    free(text);
    return c;
}

void
gw_enc_config_free(gw_enc_config_t *c)
{
    if (c == NULL)
        return;
    for (size_t i = 0; i < c->n_providers; i++) {
        for (size_t j = 0; j < c->providers[i].n_keys; j++) {
            free(c->providers[i].keys[j].name);
            OPENSSL_cleanse(c->providers[i].keys[j].secret, GW_ENC_MAX_KEY);
        }
        free(c->providers[i].keys);
        gw_enc__kms_free(c->providers[i].kms);
        free(c->providers[i].kms_prefix);
    }
    for (size_t i = 0; i < c->n_chains; i++) {
        free(c->chains[i].group);
        free(c->chains[i].resource);
        free(c->chains[i].providers);
    }
    free(c->providers);
    free(c->chains);
    free(c->paths);
    free(c);
}

void
gw_enc_config_start(gw_enc_config_t *c)
{
    for (size_t i = 0; i < c->n_providers; i++) {
        if (c->providers[i].kms != NULL)
            gw_enc__kms_start(c->providers[i].kms);
    }
}

bool
gw_enc_config_uses_kms(const gw_enc_config_t *c)
{
    for (size_t i = 0; i < c->n_providers; i++) {
        if (c->providers[i].kms != NULL)
            return true;
    }
    return false;
}

bool
gw_enc_config_kms_healthy(const gw_enc_config_t *c, char *why, size_t why_len)
{
    size_t n = 0, failed = 0, at = 0;
    char one[1024];

    why[0] = '\0';
    for (size_t i = 0; i < c->n_providers; i++) {
        if (c->providers[i].kms == NULL)
            continue;
        if (!gw_enc__kms_check(c->providers[i].kms, one, sizeof(one))) {
            /* kube's aggregate: "[a, b]" for several; the closing bracket added below */
            if (at < why_len)
                at += (size_t)snprintf(why + at, why_len - at,
                                       "%shealth check for kms-provider-%zu failed: %s",
                                       failed ? ", " : "", n, one);
            failed++;
        }
        n++;
    }
    if (failed > 1) {
        char *list = gw_sprintf("[%s]", why);
        snprintf(why, why_len, "%s", list);
        free(list);
    }
    return failed == 0;
}
