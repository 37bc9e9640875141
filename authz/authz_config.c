/*
 * --authorization-config: an AuthorizationConfiguration (apiserver.config.k8s.io v1, v1beta1
 * or v1alpha1; YAML or JSON) validated as kube-apiserver's ValidateAuthorizationConfiguration
 * and LoadAndValidateData do, with their field paths and words, then built into a chain.
 *
 * Match conditions are type-checked against `request`, declared as an object type from a
 * structural schema of the v1 SubjectAccessReviewSpec (what cel/ offers for typed
 * declarations; resourceAttributes is a map of dyn, see below); at run time the spec is bound
 * as a JSON document.
 */
#include "authz_int.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "gw_alloc.h"
#include "gw_err.h"
#include "gw_errlist.h"
#include "gw_names.h"
#include "gw_yaml.h"

#define MAX_CONDITIONS 64
#define MAX_TIMEOUT_NS (30LL * 1000000000LL)
#define NS_PER_MS 1000000LL

/* kube's types, sorted as its messages list them. */
static const char *const TYPES[] = {"ABAC", "AlwaysAllow", "AlwaysDeny", "Node", "RBAC", "Webhook"};
#define N_TYPES (sizeof(TYPES) / sizeof(TYPES[0]))

static const char *
str(const json_t *obj, const char *key)
{
    const char *s = json_string_value(json_object_get(obj, key));
    return s != NULL ? s : "";
}

/* One authorizer entry, as validated. Strings are borrowed from the document. */
typedef struct {
    const char *type, *name;
    const char *kubeconfig; /* NULL: InClusterConfig */
    const char *version;
    int64_t timeout_ns, authorized_ns, unauthorized_ns;
    bool deny_on_error;
    cel_program_t **conds;
    const char **src;
    size_t n_conds;
} entry_t;

static void
entries_free(entry_t *en, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        for (size_t k = 0; k < en[i].n_conds; k++)
            cel_program_free(en[i].conds[k]);
        free(en[i].conds);
        free(en[i].src);
    }
    free(en);
}

/* ---- Go durations -------------------------------------------------------------------------- */

static int64_t
unit_ns(const char *u, size_t len)
{
    static const struct {
        const char *name;
        int64_t ns;
    } units[] = {
        {"ns", 1},       {"us", 1000},        {"\u00b5s", 1000},    {"\u03bcs", 1000},
        {"ms", 1000000}, {"s", 1000000000LL}, {"m", 60000000000LL}, {"h", 3600000000000LL}};

    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
        if (strlen(units[i].name) == len && memcmp(u, units[i].name, len) == 0)
            return units[i].ns;
    }
    return 0;
}

/* One "<digits>[.<digits>]<unit>" term of a Go duration added to *total; advances *p. */
static int
duration_term(const char **p, double *total)
{
    const char *s = *p;
    double whole = 0, frac = 0, scale = 1;
    size_t digits = 0;

    for (; isdigit((unsigned char)*s); s++, digits++)
        whole = whole * 10 + (*s - '0');
    if (*s == '.') {
        for (s++; isdigit((unsigned char)*s); s++, digits++) {
            frac = frac * 10 + (*s - '0');
            scale *= 10;
        }
    }
    size_t ulen = strcspn(s, "0123456789.");
    int64_t unit = unit_ns(s, ulen);
    if (digits == 0 || unit == 0)
        return GW_EINVAL;
    *total += (whole + frac / scale) * (double)unit;
    *p = s + ulen;
    return 0;
}

/* time.ParseDuration: 0 with *ns, or GW_EINVAL. */
static int
parse_duration(const char *s, int64_t *ns)
{
    bool neg = *s == '-';
    double total = 0;

    s += *s == '-' || *s == '+';
    if (strcmp(s, "0") == 0) {
        *ns = 0;
        return 0;
    }
    if (*s == '\0')
        return GW_EINVAL;
    while (*s != '\0') {
        if (duration_term(&s, &total) != 0)
            return GW_EINVAL;
    }
    if (total > 9.2e18)
        return GW_EINVAL;
    *ns = neg ? -(int64_t)total : (int64_t)total;
    return 0;
}

/* v / scale with its fraction, trailing zeros dropped: "1.5", "45". */
static char *
decimal(uint64_t v, uint64_t scale)
{
    char frac[24] = ""; /* scale is at most 10^9: '.' and nine digits */
    size_t n = 0;

    if (v % scale != 0) {
        frac[n++] = '.';
        for (uint64_t s = scale / 10; s > 0 && n < sizeof(frac) - 1; s /= 10)
            frac[n++] = (char)('0' + (v % scale) / s % 10);
        for (; frac[n - 1] == '0'; n--)
            frac[n - 1] = '\0';
    }
    return gw_sprintf("%llu%s", (unsigned long long)(v / scale), frac);
}

/* time.Duration.String(): "45s", "1m30s", "300ms", "-5s", "0s". */
static char *
duration_string(int64_t ns)
{
    const char *sign = ns < 0 ? "-" : "";
    uint64_t u = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    char *num, *out;

    if (u == 0)
        return gw_strdup("0s");
    if (u < 1000)
        return gw_sprintf("%s%lluns", sign, (unsigned long long)u);
    if (u < 1000000000ULL) {
        bool micro = u < 1000000;
        num = decimal(u, micro ? 1000 : 1000000);
        out = gw_sprintf("%s%s%s", sign, num, micro ? "\u00b5s" : "ms");
    } else {
        uint64_t h = u / 3600000000000ULL, m = u / 60000000000ULL % 60;
        num = decimal(u % 60000000000ULL, 1000000000ULL);
        if (h > 0)
            out = gw_sprintf("%s%lluh%llum%ss", sign, (unsigned long long)h, (unsigned long long)m,
                             num);
        else if (m > 0)
            out = gw_sprintf("%s%llum%ss", sign, (unsigned long long)m, num);
        else
            out = gw_sprintf("%s%ss", sign, num);
    }
    free(num);
    return out;
}

/* A duration field: 0 with *ns (0 when absent), or GW_EINVAL with a decode error. */
static int
duration_field(const json_t *hook, const char *key, const char *path, int64_t *ns,
               gw_errlist_t *dec)
{
    const json_t *v = json_object_get(hook, key);

    *ns = 0;
    if (v == NULL || json_is_null(v))
        return 0;
    if (!json_is_string(v)) {
        gw_errlist_add(dec, "%s.%s: cannot unmarshal %s into a duration string", path, key,
                       json_is_number(v) ? "number" : "a non-string");
        return GW_EINVAL;
    }
    if (parse_duration(json_string_value(v), ns) != 0) {
        gw_errlist_add(dec, "%s.%s: time: invalid duration \"%s\"", path, key,
                       json_string_value(v));
        return GW_EINVAL;
    }
    return 0;
}

/* ---- match conditions ---------------------------------------------------------------------- */

#define UNBOUNDED                                                                                  \
    .max_length = CEL_SCHEMA_UNBOUNDED, .max_items = CEL_SCHEMA_UNBOUNDED,                         \
    .max_properties = CEL_SCHEMA_UNBOUNDED

static const cel_schema_t s_string = {.type = CEL_SCHEMA_STRING, UNBOUNDED};
static const cel_schema_t s_strings = {.type = CEL_SCHEMA_ARRAY, UNBOUNDED, .items = &s_string};
static const cel_schema_t s_extra = {
    .type = CEL_SCHEMA_OBJECT, UNBOUNDED, .additional_properties = &s_strings};
/* resourceAttributes is map(string, dyn): a schema object would escape its property
 * `namespace` (a CEL reserved word) to `__namespace__`, while kube's expressions select
 * `request.resourceAttributes.namespace`. */
static const cel_schema_t s_dyn = {.type = CEL_SCHEMA_INT_OR_STRING, UNBOUNDED};
static const cel_schema_t s_resource = {
    .type = CEL_SCHEMA_OBJECT, UNBOUNDED, .additional_properties = &s_dyn};
static const cel_schema_prop_t p_non_resource[] = {{"path", &s_string, false},
                                                   {"verb", &s_string, false}};
static const cel_schema_t s_non_resource = {
    .type = CEL_SCHEMA_OBJECT, UNBOUNDED, .props = p_non_resource, .nprops = 2};
static const cel_schema_prop_t p_spec[] = {{"resourceAttributes", &s_resource, false},
                                           {"nonResourceAttributes", &s_non_resource, false},
                                           {"user", &s_string, false},
                                           {"groups", &s_strings, false},
                                           {"extra", &s_extra, false},
                                           {"uid", &s_string, false}};
static const cel_schema_t s_spec = {
    .type = CEL_SCHEMA_OBJECT, UNBOUNDED, .props = p_spec, .nprops = 6};

/* kube's environment for match conditions: one variable, `request`. */
static cel_env_t *
condition_env(void)
{
    cel_env_t *env = cel_env_new();

    cel_env_declare(env, "request",
                    cel_env_schema_type(env, &s_spec, "SubjectAccessReviewSpec", false));
    return env;
}

/* kube's CompileCELExpression: it must compile and type to bool. NULL with the error. */
static cel_program_t *
compile(const cel_env_t *env, const char *src, const char *path, gw_errlist_t *e)
{
    cel_check_t c;
    cel_program_t *p = NULL;
    cel_issue_t issue = {0};

    if (cel_check(env, src, &c) != 0) {
        char *all = gw_strdup("");
        for (size_t i = 0; i < c.nissues; i++) {
            char *next = gw_sprintf("%s%s%s", all, i > 0 ? "\n" : "", c.issues[i].message);
            free(all);
            all = next;
        }
        gw_errlist_add(e, "%s: Invalid value: \"%s\": compilation failed: %s", path, src, all);
        free(all);
    } else if (c.type == NULL || strcmp(c.type, "bool") != 0) {
        gw_errlist_add(e, "%s: Invalid value: \"%s\": must evaluate to bool but got %s", path, src,
                       c.type != NULL ? c.type : "dyn");
    } else if (cel_compile(env, src, &p, &issue) != 0) {
        gw_errlist_add(e, "%s: Invalid value: \"%s\": compilation failed: %s", path, src,
                       issue.message ? issue.message : "");
        cel_issue_clear(&issue);
    }
    cel_check_clear(&c);
    return p;
}

static bool
blank(const char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    return *s == '\0';
}

static void
conditions(const json_t *list, const char *path, const cel_env_t *env, entry_t *en, gw_errlist_t *e)
{
    const json_t *c;
    size_t i;

    if (json_array_size(list) > MAX_CONDITIONS) {
        gw_errlist_add(e, "%s.matchConditions: Too many: %zu: must have at most %d items", path,
                       json_array_size(list), MAX_CONDITIONS);
        return;
    }
    en->conds = gw_calloc(json_array_size(list) + 1, sizeof(*en->conds));
    en->src = gw_calloc(json_array_size(list) + 1, sizeof(*en->src));
    json_array_foreach(list, i, c)
    {
        const char *src = str(c, "expression");
        char *p = gw_sprintf("%s.matchConditions[%zu].expression", path, i);
        bool seen = false;
        for (size_t k = 0; k < i; k++)
            seen = seen || strcmp(str(json_array_get(list, k), "expression"), src) == 0;
        if (blank(src))
            gw_errlist_add(e, "%s: Required value", p);
        else if (seen)
            gw_errlist_add(e, "%s: Duplicate value: \"%s\"", p, src);
        else if ((en->conds[en->n_conds] = compile(env, src, p, e)) != NULL)
            en->src[en->n_conds++] = src;
        free(p);
    }
}

/* ---- the webhook ------------------------------------------------------------------------ */

/* `key: Invalid value: "<ns as Go prints it>": detail`. */
static void
invalid_duration(gw_errlist_t *e, const char *p, const char *key, int64_t ns, const char *detail)
{
    char *v = duration_string(ns);

    gw_errlist_add(e, "%s.%s: Invalid value: \"%s\": %s", p, key, v, detail);
    free(v);
}

static void
timeouts(const json_t *hook, const char *p, entry_t *en, gw_errlist_t *e, gw_errlist_t *dec)
{
    duration_field(hook, "timeout", p, &en->timeout_ns, dec);
    duration_field(hook, "authorizedTTL", p, &en->authorized_ns, dec);
    duration_field(hook, "unauthorizedTTL", p, &en->unauthorized_ns, dec);
    if (en->timeout_ns == 0)
        gw_errlist_add(e, "%s.timeout: Required value", p);
    else if (en->timeout_ns < 0 || en->timeout_ns > MAX_TIMEOUT_NS)
        invalid_duration(e, p, "timeout", en->timeout_ns, "must be > 0s and <= 30s");
    /* kube defaults zero TTLs (5m, 30s) before validating */
    if (en->authorized_ns == 0)
        en->authorized_ns = 300LL * 1000000000LL;
    if (en->unauthorized_ns == 0)
        en->unauthorized_ns = 30LL * 1000000000LL;
    if (en->authorized_ns < 0)
        invalid_duration(e, p, "authorizedTTL", en->authorized_ns, "must be > 0s");
    if (en->unauthorized_ns < 0)
        invalid_duration(e, p, "unauthorizedTTL", en->unauthorized_ns, "must be > 0s");
}

static void
versions(const json_t *hook, const char *p, entry_t *en, gw_errlist_t *e)
{
    const char *v = str(hook, "subjectAccessReviewVersion");
    const char *mv = str(hook, "matchConditionSubjectAccessReviewVersion");
    const char *fp = str(hook, "failurePolicy");

    if (*v == '\0')
        gw_errlist_add(e, "%s.subjectAccessReviewVersion: Required value", p);
    else if (strcmp(v, "v1") != 0 && strcmp(v, "v1beta1") != 0)
        gw_errlist_add(
            e,
            "%s.subjectAccessReviewVersion: Unsupported value: \"%s\": supported values: "
            "\"v1\", \"v1beta1\"",
            p, v);
    en->version = v;
    if (*mv == '\0' && json_array_size(json_object_get(hook, "matchConditions")) > 0)
        gw_errlist_add(
            e,
            "%s.matchConditionSubjectAccessReviewVersion: Required value: required if match "
            "conditions are specified",
            p);
    else if (*mv != '\0' && strcmp(mv, "v1") != 0)
        gw_errlist_add(e,
                       "%s.matchConditionSubjectAccessReviewVersion: Unsupported value: \"%s\": "
                       "supported values: \"v1\"",
                       p, mv);
    if (*fp == '\0')
        gw_errlist_add(e, "%s.failurePolicy: Required value", p);
    else if (strcmp(fp, "NoOpinion") != 0 && strcmp(fp, "Deny") != 0)
        gw_errlist_add(e,
                       "%s.failurePolicy: Unsupported value: \"%s\": supported values: \"Deny\", "
                       "\"NoOpinion\"",
                       p, fp);
    en->deny_on_error = strcmp(fp, "Deny") == 0;
}

/* The kubeconfig file must be an absolute path to a regular file. */
static void
kubeconfig_file(const char *file, const char *p, gw_errlist_t *e)
{
    struct stat st;

    if (file[0] != '/')
        gw_errlist_add(
            e,
            "%s.connectionInfo.kubeConfigFile: Invalid value: \"%s\": must be an absolute "
            "path",
            p, file);
    else if (stat(file, &st) != 0)
        gw_errlist_add(
            e,
            "%s.connectionInfo.kubeConfigFile: Invalid value: \"%s\": error loading file: "
            "stat %s: %s",
            p, file, file, strerror(errno));
    else if (!S_ISREG(st.st_mode))
        gw_errlist_add(e,
                       "%s.connectionInfo.kubeConfigFile: Invalid value: \"%s\": must be a regular "
                       "file",
                       p, file);
}

static void
connection(const json_t *hook, const char *p, entry_t *en, gw_errlist_t *e)
{
    const json_t *ci = json_object_get(hook, "connectionInfo");
    const json_t *kc = json_object_get(ci, "kubeConfigFile");
    const char *type = str(ci, "type"), *file = str(ci, "kubeConfigFile");

    if (*type == '\0') {
        gw_errlist_add(e, "%s.connectionInfo.type: Required value", p);
    } else if (strcmp(type, "InClusterConfig") == 0) {
        if (kc != NULL && !json_is_null(kc))
            gw_errlist_add(
                e,
                "%s.connectionInfo.kubeConfigFile: Invalid value: \"%s\": can only be set "
                "when type=KubeConfigFile",
                p, file);
    } else if (strcmp(type, "KubeConfigFile") == 0) {
        if (*file == '\0')
            gw_errlist_add(e, "%s.connectionInfo.kubeConfigFile: Required value", p);
        else
            kubeconfig_file(file, p, e);
        en->kubeconfig = file;
    } else {
        /* kube prints the whole connectionInfo struct here; its type is what matters */
        gw_errlist_add(e,
                       "%s.connectionInfo.type: Unsupported value: \"%s\": supported values: "
                       "\"InClusterConfig\", \"KubeConfigFile\"",
                       p, type);
    }
}

static void
webhook(const json_t *hook, const char *path, const cel_env_t *env, entry_t *en, gw_errlist_t *e,
        gw_errlist_t *dec)
{
    char *p = gw_sprintf("%s.webhook", path);

    timeouts(hook, p, en, e, dec);
    versions(hook, p, en, e);
    connection(hook, p, en, e);
    conditions(json_object_get(hook, "matchConditions"), p, env, en, e);
    free(p);
}

/* ---- the entries ----------------------------------------------------------------------- */

static bool
known_type(const char *t)
{
    for (size_t i = 0; i < N_TYPES; i++) {
        if (strcmp(TYPES[i], t) == 0)
            return true;
    }
    return false;
}

/* The type checks; false when kube goes on to the next entry. */
static bool
entry_type(const json_t *list, size_t i, const char *p, entry_t *en, gw_errlist_t *e)
{
    en->type = str(json_array_get(list, i), "type");
    if (*en->type == '\0') {
        gw_errlist_add(e, "%s.type: Required value", p);
        return false;
    }
    if (!known_type(en->type)) {
        gw_errlist_add(e,
                       "%s.type: Unsupported value: \"%s\": supported values: \"ABAC\", "
                       "\"AlwaysAllow\", \"AlwaysDeny\", \"Node\", \"RBAC\", \"Webhook\"",
                       p, en->type);
        return false;
    }
    for (size_t k = 0; k < i && strcmp(en->type, "Webhook") != 0; k++) {
        if (strcmp(str(json_array_get(list, k), "type"), en->type) == 0) {
            gw_errlist_add(e, "%s.type: Duplicate value: \"%s\"", p, en->type);
            return false;
        }
    }
    return true;
}

static void
entry_name(const json_t *list, size_t i, const char *p, entry_t *en, gw_errlist_t *e)
{
    const char *why;

    en->name = str(json_array_get(list, i), "name");
    bool seen = false;
    for (size_t k = 0; k < i; k++)
        seen = seen || strcmp(str(json_array_get(list, k), "name"), en->name) == 0;
    if (*en->name == '\0')
        gw_errlist_add(e, "%s.name: Required value", p);
    else if (seen)
        gw_errlist_add(e, "%s.name: Duplicate value: \"%s\"", p, en->name);
    else if ((why = gw_valid_dns1123_subdomain(en->name)) != NULL)
        gw_errlist_add(e, "%s.name: Invalid value: \"%s\": authorizer name is invalid: %s", p,
                       en->name, why);
}

static void
entry(const json_t *list, size_t i, const cel_env_t *env, entry_t *en, gw_errlist_t *e,
      gw_errlist_t *dec)
{
    const json_t *a = json_array_get(list, i), *hook = json_object_get(a, "webhook");
    char *p = gw_sprintf("authorizers[%zu]", i);

    if (!entry_type(list, i, p, en, e))
        goto out;
    entry_name(list, i, p, en, e);
    bool has_hook = hook != NULL && !json_is_null(hook);
    if (strcmp(en->type, "Webhook") == 0 && !has_hook)
        gw_errlist_add(e, "%s.webhook: Required value: required when type=Webhook", p);
    else if (strcmp(en->type, "Webhook") == 0)
        webhook(hook, p, env, en, e, dec);
    else if (has_hook)
        gw_errlist_add(e,
                       "%s.webhook: Invalid value: \"non-null\": may only be specified when "
                       "type=Webhook",
                       p);
out:
    free(p);
}

/* ---- LoadAndValidateData's own checks -------------------------------------------------------- */

static void
type_list(unsigned bits, const char *what, gw_errlist_t *e)
{
    char *names = gw_strdup("");

    for (size_t i = 0; i < N_TYPES; i++) {
        if ((bits & authz__type_bit(TYPES[i])) == 0 || authz__type_bit(TYPES[i]) == 0)
            continue;
        char *next = gw_sprintf("%s%s%s", names, *names ? " " : "", TYPES[i]);
        free(names);
        names = next;
    }
    gw_errlist_add(e, "%s: [%s]", what, names);
    free(names);
}

/* Non-Webhook names must be their lowercased type; a reload keeps start-up's types. */
static void
names_and_types(const entry_t *en, size_t n, const unsigned *require, gw_errlist_t *e)
{
    unsigned seen = 0;

    for (size_t i = 0; i < n; i++) {
        if (strcmp(en[i].type, "Webhook") == 0)
            continue;
        seen |= authz__type_bit(en[i].type);
        char *want = gw_strdup(en[i].type);
        for (char *c = want; *c; c++)
            *c = (char)tolower((unsigned char)*c);
        if (strcmp(want, en[i].name) != 0)
            gw_errlist_add(e, "expected name %s for authorizer %s instead of %s", want, en[i].type,
                           en[i].name);
        free(want);
    }
    if (require != NULL && (*require & ~seen) != 0)
        type_list(*require & ~seen, "missing required types", e);
    if (require != NULL && (seen & ~*require) != 0)
        type_list(seen & ~*require, "types not present at start-up cannot be added", e);
}

/* ---- building --------------------------------------------------------------------------- */

static int
build_webhook(entry_t *en, size_t i, authz_https_fn https, authz_authorizer_t **out, char *err,
              size_t err_len)
{
    char *flag = gw_sprintf("authorizers[%zu].webhook.connectionInfo.kubeConfigFile", i);
    authz__webhook_opts_t o = {
        .name = en->name,
        .kubeconfig = en->kubeconfig,
        .kubeconfig_flag = flag,
        .version = en->version,
        .authorized_ttl_ms = en->authorized_ns / NS_PER_MS,
        .unauthorized_ttl_ms = en->unauthorized_ns / NS_PER_MS,
        .timeout_ms = (int)((en->timeout_ns + NS_PER_MS - 1) / NS_PER_MS),
        .deny_on_error = en->deny_on_error,
        .conditions = en->conds,
        .condition_src = en->src,
        .n_conditions = en->n_conds,
        .https = https,
    };
    int rc = authz__webhook_new(&o, out, err, err_len);
    en->n_conds = 0; /* taken over */
    free(flag);
    return rc;
}

static int
build(entry_t *en, size_t n, authz_https_fn https, authz__chain_t **out, char *err, size_t err_len)
{
    authz__chain_t *c = authz__chain_new();
    authz_authorizer_t *a;

    for (size_t i = 0; i < n; i++) {
        if (strcmp(en[i].type, "Webhook") != 0) {
            authz__chain_add(c, authz__builtin(en[i].type));
            continue;
        }
        if (en[i].kubeconfig == NULL) {
            snprintf(err, err_len,
                     "authorizers[%zu] \"%s\": connectionInfo type InClusterConfig "
                     "is not available: kgate does not run in a cluster",
                     i, en[i].name);
            goto bad;
        }
        if (https == NULL) {
            snprintf(err, err_len, "the Webhook authorizer has no HTTPS client");
            goto bad;
        }
        if (build_webhook(&en[i], i, https, &a, err, err_len) != 0)
            goto bad;
        authz__chain_add(c, a);
    }
    *out = c;
    return 0;
bad:
    authz__chain_free(c);
    return GW_EINVAL;
}

/* ---- the file ------------------------------------------------------------------------------ */

static bool
supported_version(const char *v)
{
    return strcmp(v, "apiserver.config.k8s.io/v1") == 0 ||
           strcmp(v, "apiserver.config.k8s.io/v1beta1") == 0 ||
           strcmp(v, "apiserver.config.k8s.io/v1alpha1") == 0;
}

/* What the decoder refuses: kube's "failed to decode: ...". */
static void
header(const json_t *doc, gw_errlist_t *dec)
{
    const char *version = str(doc, "apiVersion"), *kind = str(doc, "kind");
    const json_t *list = json_object_get(doc, "authorizers");

    if (!json_is_object(doc))
        gw_errlist_add(dec, "the configuration is not an object");
    else if (*version == '\0' || *kind == '\0')
        gw_errlist_add(dec, "Object 'Kind' or 'apiVersion' is missing");
    else if (!supported_version(version) || strcmp(kind, "AuthorizationConfiguration") != 0)
        gw_errlist_add(dec, "no kind \"%s\" is registered for version \"%s\"", kind, version);
    else if (list != NULL && !json_is_null(list) && !json_is_array(list))
        gw_errlist_add(dec, "authorizers: cannot unmarshal into a list");
}

static int
fail(gw_errlist_t *e, const char *prefix, char *err, size_t err_len)
{
    gw_errlist_print(e, prefix, err, err_len);
    return GW_EINVAL;
}

/* Validate the entries of doc into *en (n of them); GW_EINVAL with the aggregate in err. */
static int
validate(const json_t *doc, const unsigned *require, entry_t **en, size_t *n, char *err,
         size_t err_len)
{
    const json_t *list = json_object_get(doc, "authorizers");
    gw_errlist_t e = {0}, dec = {0};
    cel_env_t *env = condition_env();

    *n = json_array_size(list);
    *en = gw_calloc(*n + 1, sizeof(**en));
    if (*n == 0)
        gw_errlist_add(
            &e, "authorizers: Required value: at least one authorization mode must be defined");
    for (size_t i = 0; i < *n; i++)
        entry(list, i, env, &(*en)[i], &e, &dec);
    cel_env_free(env);
    if (dec.n > 0) {
        gw_errlist_clear(&e);
        return fail(&dec, "failed to decode: ", err, err_len);
    }
    if (e.n > 0)
        return fail(&e, "", err, err_len);
    names_and_types(*en, *n, require, &e);
    return e.n > 0 ? fail(&e, "", err, err_len) : 0;
}

int
authz__config_build(const char *text, size_t len, const unsigned *require, authz_https_fn https,
                    authz__chain_t **out, char *err, size_t err_len)
{
    char why[512] = "";
    json_t *doc = len == 0 ? json_object() : gw_yaml_to_json(text, len, why, sizeof(why));
    gw_errlist_t dec = {0};
    entry_t *en = NULL;
    size_t n = 0;
    int rc;

    *out = NULL;
    if (len == 0) /* kube reads an empty file as a configuration with no authorizers */
        json_object_set_new(doc, "authorizers", json_array());
    else if (doc == NULL)
        gw_errlist_add(&dec, "%s", why);
    else
        header(doc, &dec);
    if (dec.n > 0)
        rc = fail(&dec, "failed to decode: ", err, err_len);
    else if ((rc = validate(doc, require, &en, &n, err, err_len)) == 0)
        rc = build(en, n, https, out, err, err_len);
    entries_free(en, n);
    json_decref(doc);
    return rc;
}
