/* --runtime-config: which group/versions and resources a catalog serves. */
#include "gw_catalog.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_catalog_int.h"
#include "gw_err.h"

/* The api/ keys, applied in this order before any other (kube-apiserver's matcher order). */
enum { MATCH_ALL, MATCH_GA, MATCH_BETA, MATCH_ALPHA, N_MATCHERS };
static const char *const matcher_keys[N_MATCHERS] = {"api/all", "api/ga", "api/beta", "api/alpha"};

typedef struct {
    const gw_catalog_t *u;
    signed char matcher[N_MATCHERS]; /* -1 unset, else the last value given */
    bool *gv_on;                     /* per u->gvs entry */
    signed char *res_pref;           /* per u->resources entry: -1 unset, 0 off, 1 on */
    char *err;
    size_t err_len;
} config_t;

/* A parsed key: a group/version (resource NULL) or one resource of it. */
typedef struct {
    size_t gv; /* index into u->gvs */
    const char *resource;
} target_t;

static int fail(config_t *cf, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int
fail(config_t *cf, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(cf->err, cf->err_len, fmt, ap);
    va_end(ap);
    return GW_EINVAL;
}

/* Go's strconv.ParseBool spellings; an absent value means true. */
static int
parse_bool(const char *v, bool *out)
{
    static const char *const yes[] = {"", "1", "t", "T", "TRUE", "true", "True"};
    static const char *const no[] = {"0", "f", "F", "FALSE", "false", "False"};

    for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
        if (strcmp(v, yes[i]) == 0) {
            *out = true;
            return 0;
        }
    }
    for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
        if (strcmp(v, no[i]) == 0) {
            *out = false;
            return 0;
        }
    }
    return GW_EINVAL;
}

/* 0 GA (v1), 1 beta (v1beta2), 2 alpha (v1alpha1), -1 anything else. */
static bool
all_digits(const char *s)
{
    return *s != '\0' && strspn(s, "0123456789") == strlen(s);
}

static int
version_level(const char *v)
{
    size_t digits = v[0] == 'v' ? strspn(v + 1, "0123456789") : 0;
    const char *rest = v + 1 + digits;

    if (digits == 0)
        return -1;
    if (*rest == '\0')
        return 0;
    if (strncmp(rest, "beta", 4) == 0 && all_digits(rest + 4))
        return 1;
    if (strncmp(rest, "alpha", 5) == 0 && all_digits(rest + 5))
        return 2;
    return -1;
}

static bool
matches(int matcher, const char *version)
{
    return matcher == MATCH_ALL || version_level(version) == matcher - MATCH_GA;
}

static bool
group_known(const gw_catalog_t *u, const char *group)
{
    for (size_t i = 0; i < u->n_gvs; i++) {
        if (strcmp(u->gvs[i].group, group) == 0)
            return true;
    }
    return false;
}

static int
find_gv(config_t *cf, const char *group, const char *version, const char *key, size_t *gv)
{
    const gw_catalog_t *u = cf->u;

    for (size_t i = 0; i < u->n_gvs; i++) {
        if (strcmp(u->gvs[i].group, group) == 0 && strcmp(u->gvs[i].version, version) == 0) {
            *gv = i;
            return 0;
        }
    }
    if (!group_known(u, group))
        return fail(cf, "unknown API group \"%s\" in --runtime-config key %s", group, key);
    return fail(cf, "group version %s/%s that has not been registered", group, version);
}

static int
find_resource(config_t *cf, const target_t *t, const char *key, size_t *index)
{
    const gw_catalog__gv_t *gv = &cf->u->gvs[t->gv];

    for (size_t i = 0; i < cf->u->n_resources; i++) {
        const gw_resource_t *r = cf->u->resources[i];
        if (strcmp(r->group, gv->group) == 0 && strcmp(r->version, gv->version) == 0 &&
            strcmp(r->name, t->resource) == 0) {
            *index = i;
            return 0;
        }
    }
    return fail(cf, "unknown resource in --runtime-config key %s", key);
}

/* "v1", "/v1", "<group>/<version>", "/v1/<resource>", "<group>/<version>/<resource>". */
static int
parse_target(config_t *cf, const char *key, target_t *t)
{
    char *copy = gw_strdup(key), *parts[4] = {NULL};
    size_t n = 0;
    int rc;

    for (char *p = copy; p != NULL && n < 4; n++) {
        char *slash = strchr(p, '/');
        parts[n] = p;
        if (slash != NULL)
            *slash = '\0';
        p = slash ? slash + 1 : NULL;
    }
    t->resource = NULL;
    if (n == 1)
        rc = find_gv(cf, "", parts[0], key, &t->gv);
    else if (n == 2 || n == 3)
        rc = find_gv(cf, parts[0], parts[1], key, &t->gv);
    else
        rc = fail(cf, "invalid --runtime-config key %s", key);
    if (rc == 0 && n == 3)
        t->resource = key + (parts[2] - copy);
    free(copy);
    return rc;
}

static int
check_resource_name(config_t *cf, const char *key, const char *resource)
{
    for (const char *p = resource; *p; p++) {
        if (isupper((unsigned char)*p))
            return fail(cf,
                        "invalid key %s: group/version/resource and resource is always "
                        "lowercase plural, not \"%s\"",
                        key, resource);
    }
    return 0;
}

/*
 * Check one key=value. The api/ keys are recorded in any phase; group/version keys take effect
 * in phase 1 and resource keys in phase 2, so that each layer overrides the one before.
 */
static int
apply_item(config_t *cf, const char *key, const char *value, int phase)
{
    target_t t = {0};
    size_t index = 0;
    bool on;
    int rc;

    if (parse_bool(value, &on) != 0)
        return fail(cf, "invalid value of %s: %s", key, value);
    for (int m = 0; m < N_MATCHERS; m++) {
        if (strcmp(key, matcher_keys[m]) == 0) {
            cf->matcher[m] = (signed char)on;
            return 0;
        }
    }
    rc = parse_target(cf, key, &t);
    if (rc != 0 || t.resource == NULL) {
        if (rc == 0 && phase == 1)
            cf->gv_on[t.gv] = on;
        return rc;
    }
    rc = check_resource_name(cf, key, t.resource);
    if (rc == 0)
        rc = find_resource(cf, &t, key, &index);
    if (rc == 0 && phase == 2)
        cf->res_pref[index] = (signed char)on;
    return rc;
}

static char *
trim(char *s)
{
    char *end;

    while (isspace((unsigned char)*s))
        s++;
    end = s + strlen(s);
    while (end > s && isspace((unsigned char)end[-1]))
        *--end = '\0';
    return s;
}

/* Phase 0 validates and collects the api/ keys, 1 applies versions, 2 resources. */
static int
walk_items(config_t *cf, const char *runtime_config, int phase)
{
    char *buf = gw_strdup(runtime_config), *save = NULL;
    int rc = 0;

    for (char *item = strtok_r(buf, ",", &save); item && rc == 0;
         item = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(item, '=');
        const char *key, *value = "";
        if (eq) {
            *eq = '\0';
            value = trim(eq + 1);
        }
        key = trim(item);
        if (*key != '\0')
            rc = apply_item(cf, key, value, phase);
    }
    free(buf);
    return rc;
}

static void
apply_matchers(config_t *cf)
{
    for (int m = 0; m < N_MATCHERS; m++) {
        if (cf->matcher[m] < 0)
            continue;
        for (size_t i = 0; i < cf->u->n_gvs; i++) {
            if (matches(m, cf->u->gvs[i].version))
                cf->gv_on[i] = cf->matcher[m];
        }
    }
}

static bool
resource_on(const config_t *cf, size_t i)
{
    const gw_resource_t *r = cf->u->resources[i];

    if (cf->res_pref[i] >= 0)
        return cf->res_pref[i];
    for (size_t k = 0; k < cf->u->n_gvs; k++) {
        if (strcmp(cf->u->gvs[k].group, r->group) == 0 &&
            strcmp(cf->u->gvs[k].version, r->version) == 0)
            return cf->gv_on[k];
    }
    return false;
}

static const gw_catalog_t *
assemble(const config_t *cf)
{
    const gw_resource_t **served = gw_calloc(cf->u->n_resources + 1, sizeof(*served));
    const gw_catalog_t *c;
    size_t n = 0;

    for (size_t i = 0; i < cf->u->n_resources; i++) {
        if (resource_on(cf, i))
            served[n++] = cf->u->resources[i];
    }
    c = gw_catalog__assemble(cf->u, served, n);
    free(served);
    return c;
}

int
gw_catalog_configure(const gw_catalog_t *base, const char *runtime_config, const gw_catalog_t **out,
                     char *err, size_t err_len)
{
    config_t cf = {.u = base->universe, .err = err, .err_len = err_len};
    const char *rc_text = runtime_config ? runtime_config : "";
    int rc;

    memset(cf.matcher, -1, sizeof(cf.matcher));
    cf.gv_on = gw_calloc(cf.u->n_gvs + 1, sizeof(*cf.gv_on));
    cf.res_pref = gw_malloc(cf.u->n_resources + 1);
    memset(cf.res_pref, -1, cf.u->n_resources + 1);
    for (size_t i = 0; i < cf.u->n_gvs; i++)
        cf.gv_on[i] = cf.u->gvs[i].default_on;
    rc = walk_items(&cf, rc_text, 0);
    if (rc == 0) {
        apply_matchers(&cf);
        walk_items(&cf, rc_text, 1);
        walk_items(&cf, rc_text, 2);
        *out = assemble(&cf);
    }
    free(cf.gv_on);
    free(cf.res_pref);
    return rc;
}
