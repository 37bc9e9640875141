/* The audit policy: reading, validation and evaluation, as kube-apiserver's pkg/audit/policy. */
#include "gw_audit_policy.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "gw_alloc.h"
#include "gw_audit_int.h"
#include "gw_buf.h"
#include "gw_file.h"
#include "gw_gojson.h"
#include "gw_names.h"
#include "gw_objmeta.h"
#include "gw_yaml.h"
#include "gw_json.h"

/* A policy file larger than this is refused unread. */
#define MAX_POLICY_BYTES (8 * 1024 * 1024)

typedef struct {
    char **v;
    size_t n;
} strs_t;

typedef struct {
    char *group;
    strs_t resources;
    strs_t names;
} group_res_t;

typedef struct {
    gw_audit_level_t level;
    strs_t users, groups, verbs, namespaces, urls;
    group_res_t *res;
    size_t n_res;
    unsigned omit_stages;    /* already united with the policy's */
    int omit_managed_fields; /* -1: not set, the policy's applies */
} rule_t;

struct gw_audit_policy {
    rule_t *rules;
    size_t n_rules;
    unsigned omit_stages;
    bool omit_managed_fields;
};

static const char *const level_names[] = {"None", "Metadata", "Request", "RequestResponse", NULL};
static const char *const stage_names[] = {"RequestReceived", "ResponseStarted", "ResponseComplete",
                                          "Panic", NULL};

const char *
gw_audit_level_name(gw_audit_level_t level)
{
    return level_names[level];
}

const char *
gw_audit_stage_name(gw_audit_stage_t stage)
{
    for (int i = 0; stage_names[i] != NULL; i++) {
        if ((unsigned)stage == 1u << i)
            return stage_names[i];
    }
    return "";
}

/* ---- decoding --------------------------------------------------------------------------- */

/* The reading of one document: the first type error wins, as encoding/json reports it. */
typedef struct {
    char *err; /* NULL while none */
} decode_t;

static void
type_error(decode_t *d, const json_t *v, const char *field, const char *go_type)
{
    if (d->err == NULL)
        d->err = gw_sprintf("json: cannot unmarshal %s into Go struct field %s of type %s",
                            gw_gojson_kind(v), field, go_type);
}

/* A string field; "" when absent or null. */
static const char *
get_str(decode_t *d, const json_t *obj, const char *key, const char *field, const char *go_type)
{
    const json_t *v = json_object_get(obj, key);
    if (v == NULL || json_is_null(v))
        return "";
    if (!json_is_string(v)) {
        type_error(d, v, field, go_type);
        return "";
    }
    return json_string_value(v);
}

static void
get_strs(decode_t *d, const json_t *obj, const char *key, const char *field, strs_t *out)
{
    const json_t *v = json_object_get(obj, key), *item;
    size_t i;
    if (v == NULL || json_is_null(v))
        return;
    if (!json_is_array(v)) {
        type_error(d, v, field, "[]string");
        return;
    }
    out->v = gw_calloc(json_array_size(v) + 1, sizeof(char *));
    json_array_foreach(v, i, item)
    {
        if (!json_is_string(item)) {
            type_error(d, item, field, "string");
            continue;
        }
        out->v[out->n++] = gw_strdup(json_string_value(item));
    }
}

/* A tri-state boolean: -1 when absent or null. */
static int
get_bool(decode_t *d, const json_t *obj, const char *key, const char *field)
{
    const json_t *v = json_object_get(obj, key);
    if (v == NULL || json_is_null(v))
        return -1;
    if (!json_is_boolean(v)) {
        type_error(d, v, field, "bool");
        return -1;
    }
    return json_is_true(v) ? 1 : 0;
}

static void
strs_free(strs_t *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->v[i]);
    free(s->v);
}

void
gw_audit_policy_free(gw_audit_policy_t *p)
{
    if (p == NULL)
        return;
    for (size_t i = 0; i < p->n_rules; i++) {
        rule_t *r = &p->rules[i];
        strs_free(&r->users);
        strs_free(&r->groups);
        strs_free(&r->verbs);
        strs_free(&r->namespaces);
        strs_free(&r->urls);
        for (size_t k = 0; k < r->n_res; k++) {
            free(r->res[k].group);
            strs_free(&r->res[k].resources);
            strs_free(&r->res[k].names);
        }
        free(r->res);
    }
    free(p->rules);
    free(p);
}

size_t
gw_audit_policy_rules(const gw_audit_policy_t *p)
{
    return p->n_rules;
}

static void
decode_resources(decode_t *d, const json_t *v, rule_t *r)
{
    const json_t *item;
    size_t i;
    if (v == NULL || json_is_null(v))
        return;
    if (!json_is_array(v)) {
        type_error(d, v, "PolicyRule.rules.resources", "[]v1.GroupResources");
        return;
    }
    r->res = gw_calloc(json_array_size(v) + 1, sizeof(*r->res));
    json_array_foreach(v, i, item)
    {
        group_res_t *g = &r->res[r->n_res++];
        if (!json_is_object(item)) {
            g->group = gw_strdup("");
            type_error(d, item, "PolicyRule.rules.resources", "v1.GroupResources");
            continue;
        }
        g->group =
            gw_strdup(get_str(d, item, "group", "GroupResources.rules.resources.group", "string"));
        get_strs(d, item, "resources", "GroupResources.rules.resources.resources", &g->resources);
        get_strs(d, item, "resourceNames", "GroupResources.rules.resources.resourceNames",
                 &g->names);
    }
}

/* The raw stage names of a list, validated later (rules) or taken as they are (policy). */
static void
decode_rule(decode_t *d, const json_t *v, rule_t *r, strs_t *level, strs_t *stages)
{
    if (!json_is_object(v)) {
        type_error(d, v, "Policy.rules", "v1.PolicyRule");
        return;
    }
    level->v = gw_calloc(2, sizeof(char *));
    level->v[level->n++] = gw_strdup(get_str(d, v, "level", "PolicyRule.rules.level", "v1.Level"));
    get_strs(d, v, "users", "PolicyRule.rules.users", &r->users);
    get_strs(d, v, "userGroups", "PolicyRule.rules.userGroups", &r->groups);
    get_strs(d, v, "verbs", "PolicyRule.rules.verbs", &r->verbs);
    get_strs(d, v, "namespaces", "PolicyRule.rules.namespaces", &r->namespaces);
    get_strs(d, v, "nonResourceURLs", "PolicyRule.rules.nonResourceURLs", &r->urls);
    get_strs(d, v, "omitStages", "PolicyRule.rules.omitStages", stages);
    decode_resources(d, json_object_get(v, "resources"), r);
    r->omit_managed_fields =
        get_bool(d, v, "omitManagedFields", "PolicyRule.rules.omitManagedFields");
}

/* ---- validation (kube's ValidatePolicy) ----------------------------------------------------- */

/* Go's %#v of a []string. */
static char *
go_strings(const strs_t *s)
{
    gw_buf_t b = {0};
    gw_buf_str(&b, "[]string{");
    for (size_t i = 0; i < s->n; i++) {
        json_t *j = json_string(s->v[i]);
        char *q = gw_json_dumps(j, JSON_ENCODE_ANY);
        gw_buf_printf(&b, "%s%s", i > 0 ? ", " : "", q);
        free(q);
        json_decref(j);
    }
    gw_buf_char(&b, '}');
    return gw_buf_take(&b);
}

static void
invalid_strings(gw_field_errors_t *e, const char *field, const strs_t *s, const char *detail)
{
    char *v = go_strings(s);
    char *msg = gw_sprintf("Invalid value: %s: %s", v, detail);
    gw_ferr_add(e, "FieldValueInvalid", field, msg);
    free(msg);
    free(v);
}

static int
level_parse(const char *s)
{
    for (int i = 0; level_names[i] != NULL; i++) {
        if (strcmp(s, level_names[i]) == 0)
            return i;
    }
    return -1;
}

static unsigned
stages_bits(const strs_t *s)
{
    unsigned bits = 0;
    for (size_t i = 0; i < s->n; i++) {
        for (int k = 0; stage_names[k] != NULL; k++) {
            if (strcmp(s->v[i], stage_names[k]) == 0)
                bits |= 1u << k;
        }
    }
    return bits;
}

static void
validate_urls(gw_field_errors_t *e, const char *path, const strs_t *urls)
{
    for (size_t i = 0; i < urls->n; i++) {
        const char *u = urls->v[i];
        size_t len = strlen(u);
        char *f = gw_sprintf("%s.nonResourceURLs[%zu]", path, i);
        if (strcmp(u, "*") != 0) {
            if (u[0] != '/')
                gw_ferr_invalid_str(e, f, u,
                                    "non-resource URL rules must begin with a '/' "
                                    "character");
            if (len > 0 && memchr(u, '*', len - 1) != NULL)
                gw_ferr_invalid_str(e, f, u,
                                    "non-resource URL wildcards '*' must be the final "
                                    "character of the rule");
        }
        free(f);
    }
}

static void
validate_resources(gw_field_errors_t *e, const char *path, const rule_t *r)
{
    for (size_t i = 0; i < r->n_res; i++) {
        const group_res_t *g = &r->res[i];
        const char *why = *g->group != '\0' ? gw_valid_dns1123_subdomain(g->group) : NULL;
        if (why != NULL) {
            char *f = gw_sprintf("%s.resources.group", path);
            gw_ferr_invalid_str(e, f, g->group, why);
            free(f);
        }
        if (g->names.n > 0 && g->resources.n == 0) {
            char *f = gw_sprintf("%s.resources.resourceNames", path);
            invalid_strings(e, f, &g->names, "using resourceNames requires at least one resource");
            free(f);
        }
    }
}

static void
validate_rule(gw_field_errors_t *e, size_t i, rule_t *r, const char *level, const strs_t *stages)
{
    char *path = gw_sprintf("rules[%zu]", i);
    char *f = gw_sprintf("%s.level", path);
    int lv = level_parse(level);
    if (*level == '\0')
        gw_ferr_required(e, f, NULL);
    else if (lv < 0)
        gw_ferr_not_supported(e, f, level, level_names);
    r->level = lv < 0 ? GW_AUDIT_NONE : (gw_audit_level_t)lv;
    free(f);
    validate_urls(e, path, &r->urls);
    validate_resources(e, path, r);
    for (size_t k = 0; k < stages->n; k++) {
        if (stages_bits(&(strs_t){&stages->v[k], 1}) == 0) {
            f = gw_sprintf("%s.omitStages[%zu]", path, k);
            gw_ferr_invalid_str(e, f, stages->v[k],
                                "allowed stages are RequestReceived,ResponseStarted,"
                                "ResponseComplete,Panic");
            free(f);
        }
    }
    if (r->urls.n > 0 && (r->n_res > 0 || r->namespaces.n > 0)) {
        f = gw_sprintf("%s.nonResourceURLs", path);
        invalid_strings(e, f, &r->urls,
                        "rules cannot apply to both regular resources and non-resource URLs");
        free(f);
    }
    free(path);
}

/* ---- reading -------------------------------------------------------------------------------- */

/* kube's decoder's checks of apiVersion and kind; false with the message in err. */
static bool
check_type(const json_t *doc, const char *text, size_t len, char *err, size_t err_len)
{
    const char *kind = json_string_value(json_object_get(doc, "kind"));
    const char *av = json_string_value(json_object_get(doc, "apiVersion"));
    if (kind == NULL || *kind == '\0') {
        snprintf(err, err_len, "failed decoding: Object 'Kind' is missing in '%.*s'", (int)len,
                 text);
        return false;
    }
    if (av == NULL || *av == '\0') {
        snprintf(err, err_len, "failed decoding: Object 'apiVersion' is missing in '%.*s'",
                 (int)len, text);
        return false;
    }
    if (strcmp(av, "audit.k8s.io/v1") != 0 || strcmp(kind, "Policy") != 0) {
        snprintf(err, err_len,
                 "failed decoding: no kind \"%s\" is registered for version \"%s\" in scheme "
                 "\"k8s.io/apiserver/pkg/audit/scheme.go:30\"",
                 kind, av);
        return false;
    }
    return true;
}

/* Decode and validate the rules of doc into p; false with the message in err. */
static bool
read_rules(gw_audit_policy_t *p, const json_t *doc, char *err, size_t err_len)
{
    decode_t d = {0};
    const json_t *rules = json_object_get(doc, "rules"), *item;
    strs_t pstages = {0};
    size_t n = json_is_array(rules) ? json_array_size(rules) : 0, i;
    strs_t *levels = gw_calloc(n + 1, sizeof(strs_t)), *stages = gw_calloc(n + 1, sizeof(strs_t));
    gw_field_errors_t e = {0};
    bool ok = false;

    if (rules != NULL && !json_is_null(rules) && !json_is_array(rules))
        type_error(&d, rules, "Policy.rules", "[]v1.PolicyRule");
    get_strs(&d, doc, "omitStages", "Policy.omitStages", &pstages);
    p->omit_managed_fields =
        get_bool(&d, doc, "omitManagedFields", "Policy.omitManagedFields") == 1;
    p->omit_stages = stages_bits(&pstages);
    p->rules = gw_calloc(n + 1, sizeof(rule_t));
    json_array_foreach(json_is_array(rules) ? rules : NULL, i, item)
        decode_rule(&d, item, &p->rules[p->n_rules++], &levels[i], &stages[i]);
    if (d.err != NULL) {
        snprintf(err, err_len, "failed decoding: %s", d.err);
        goto out;
    }
    for (i = 0; i < p->n_rules; i++) {
        validate_rule(&e, i, &p->rules[i], levels[i].n > 0 ? levels[i].v[0] : "", &stages[i]);
        p->rules[i].omit_stages = stages_bits(&stages[i]) | p->omit_stages;
    }
    if (gw_ferr_count(&e) > 0) {
        char *s = gw_ferr_summary(&e);
        snprintf(err, err_len, "%s", s);
        free(s);
        goto out;
    }
    if (p->n_rules == 0) {
        snprintf(err, err_len, "loaded illegal policy with 0 rules");
        goto out;
    }
    ok = true;
out:
    for (i = 0; i < n; i++) {
        strs_free(&levels[i]);
        strs_free(&stages[i]);
    }
    free(levels);
    free(stages);
    strs_free(&pstages);
    gw_ferr_clear(&e);
    free(d.err);
    return ok;
}

gw_audit_policy_t *
gw_audit_policy_parse(const char *text, size_t len, char *err, size_t err_len)
{
    char yerr[256];
    json_t *doc = gw_yaml_to_json(text, len, yerr, sizeof(yerr));
    gw_audit_policy_t *p;

    if (doc == NULL) {
        snprintf(err, err_len, "failed decoding: %s", yerr);
        return NULL;
    }
    if (!json_is_object(doc)) {
        snprintf(err, err_len, "failed decoding: Object 'Kind' is missing in '%.*s'", (int)len,
                 text);
        json_decref(doc);
        return NULL;
    }
    if (!check_type(doc, text, len, err, err_len)) {
        json_decref(doc);
        return NULL;
    }
    p = gw_calloc(1, sizeof(*p));
    if (!read_rules(p, doc, err, err_len)) {
        gw_audit_policy_free(p);
        p = NULL;
    }
    json_decref(doc);
    return p;
}

gw_audit_policy_t *
gw_audit_policy_load(const char *path, char *err, size_t err_len)
{
    size_t len;
    char *text = gw_file_read(path, MAX_POLICY_BYTES, &len);
    char why[1024];
    gw_audit_policy_t *p;

    if (text == NULL) {
        char ebuf[128];
        snprintf(err, err_len, "failed to read file path \"%s\": open %s: %s", path, path,
                 gw_audit__errtext(errno, ebuf, sizeof(ebuf)));
        return NULL;
    }
    p = gw_audit_policy_parse(text, len, why, sizeof(why));
    free(text);
    if (p == NULL)
        snprintf(err, err_len, "%s: from file %s", why, path);
    return p;
}

/* ---- evaluation (kube's policy checker) ------------------------------------------------------ */

static bool
has(const strs_t *s, const char *v)
{
    for (size_t i = 0; i < s->n; i++) {
        if (strcmp(s->v[i], v) == 0)
            return true;
    }
    return false;
}

static bool
path_matches(const char *path, const char *spec)
{
    size_t n = strlen(spec);
    if (strcmp(spec, "*") == 0 || strcmp(spec, path) == 0)
        return true;
    /* a trailing '*' matches any rest (kube trims every trailing '*') */
    if (n > 0 && spec[n - 1] == '*') {
        while (n > 0 && spec[n - 1] == '*')
            n--;
        return strncmp(path, spec, n) == 0;
    }
    return false;
}

static bool
resource_matches(const char *res, const gw_audit_attrs_t *a, const char *combined)
{
    size_t n = strlen(res);
    if (strcmp(res, combined) == 0 || strcmp(res, "*") == 0)
        return true;
    if (*a->subresource != '\0' && strncmp(res, "*/", 2) == 0 &&
        strcmp(res + 2, a->subresource) == 0)
        return true;
    return n >= 2 && strcmp(res + n - 2, "/*") == 0 && strlen(a->resource) == n - 2 &&
           strncmp(res, a->resource, n - 2) == 0;
}

static bool
rule_matches_resource(const rule_t *r, const gw_audit_attrs_t *a)
{
    char combined[512];
    if (!a->resource_request)
        return false;
    if (r->namespaces.n > 0 && !has(&r->namespaces, a->namespace_))
        return false;
    if (r->n_res == 0)
        return true;
    if (*a->subresource != '\0')
        snprintf(combined, sizeof(combined), "%s/%s", a->resource, a->subresource);
    else
        snprintf(combined, sizeof(combined), "%s", a->resource);
    for (size_t i = 0; i < r->n_res; i++) {
        const group_res_t *g = &r->res[i];
        if (strcmp(g->group, a->api_group) != 0)
            continue;
        if (g->resources.n == 0)
            return true;
        if (g->names.n > 0 && !has(&g->names, a->name))
            continue;
        for (size_t k = 0; k < g->resources.n; k++) {
            if (resource_matches(g->resources.v[k], a, combined))
                return true;
        }
    }
    return false;
}

static bool
rule_matches(const rule_t *r, const gw_audit_attrs_t *a)
{
    if (r->users.n > 0 && (a->user == NULL || !has(&r->users, a->user)))
        return false;
    if (r->groups.n > 0) {
        bool found = false;
        for (size_t i = 0; a->user != NULL && i < a->n_groups && !found; i++)
            found = has(&r->groups, a->groups[i]);
        if (!found)
            return false;
    }
    if (r->verbs.n > 0 && !has(&r->verbs, a->verb))
        return false;
    if (r->namespaces.n > 0 || r->n_res > 0)
        return rule_matches_resource(r, a);
    if (r->urls.n > 0) {
        for (size_t i = 0; !a->resource_request && i < r->urls.n; i++) {
            if (path_matches(a->path, r->urls.v[i]))
                return true;
        }
        return false;
    }
    return true;
}

gw_audit_decision_t
gw_audit_policy_eval(const gw_audit_policy_t *p, const gw_audit_attrs_t *a)
{
    for (size_t i = 0; i < p->n_rules; i++) {
        const rule_t *r = &p->rules[i];
        if (rule_matches(r, a))
            return (gw_audit_decision_t){
                .level = r->level,
                .omit_stages = r->omit_stages,
                .omit_managed_fields =
                    r->omit_managed_fields < 0 ? p->omit_managed_fields : r->omit_managed_fields,
            };
    }
    return (gw_audit_decision_t){.level = GW_AUDIT_NONE,
                                 .omit_stages = p->omit_stages,
                                 .omit_managed_fields = p->omit_managed_fields};
}
