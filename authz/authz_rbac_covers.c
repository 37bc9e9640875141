/* kube's ConfirmNoEscalation (pkg/registry/rbac/validation): a user may grant only what they
 * hold. The rules asked for are broken down into single permissions, each of which must be
 * covered by one of the user's own rules. */
#include "authz_rbac.h"

#include <stdlib.h>
#include <string.h>

#include "authz_rbac_int.h"
#include "gw_alloc.h"

typedef struct {
    const json_t **owned;
    size_t n, cap;
    json_t *missing; /* what is not covered (note_missing) */
} covers_t;

static void
collect(const json_t *rule, void *ctx)
{
    covers_t *c = ctx;

    if (c->n == c->cap) {
        c->cap = c->cap != 0 ? c->cap * 2 : 16;
        c->owned = gw_realloc(c->owned, c->cap * sizeof(*c->owned));
    }
    c->owned[c->n++] = rule;
}

/* What is missing, compacted as kube's CompactRules does: the verbs of a plain resource (no
 * names) gathered under "{APIGroups:[..], Resources:[..]"; other permissions whole. */
static void
note_missing(json_t *missing, const authz__perm_t *p)
{
    char *key;

    if (p->url != NULL || p->name != NULL) {
        key = p->url != NULL
                  ? gw_sprintf("{NonResourceURLs:[\"%s\"], Verbs:[\"%s\"]}", p->url, p->verb)
                  : gw_sprintf("{APIGroups:[\"%s\"], Resources:[\"%s\"], ResourceNames:[\"%s\"], "
                               "Verbs:[\"%s\"]}",
                               p->group, p->resource, p->name, p->verb);
        json_object_set_new(missing, key, json_null());
        free(key);
        return;
    }
    key = gw_sprintf("{APIGroups:[\"%s\"], Resources:[\"%s\"]", p->group, p->resource);
    json_t *verbs = json_object_get(missing, key);
    if (verbs == NULL) {
        verbs = json_array();
        json_object_set_new(missing, key, verbs);
    }
    json_array_append_new(verbs, json_string(p->verb));
    free(key);
}

/* kube's CompactString of one entry of note_missing: verbs as Go's %q prints a slice. */
static char *
describe(const char *key, const json_t *verbs)
{
    char *out;
    size_t i;
    json_t *v;

    if (!json_is_array(verbs))
        return gw_strdup(key);
    out = gw_sprintf("%s, Verbs:[", key);
    json_array_foreach(verbs, i, v)
    {
        char *next = gw_sprintf("%s%s\"%s\"", out, i > 0 ? " " : "", json_string_value(v));
        free(out);
        out = next;
    }
    char *done = gw_sprintf("%s]}", out);
    free(out);
    return done;
}

static bool
check_perm(const authz__perm_t *p, void *ctx)
{
    covers_t *c = ctx;

    for (size_t i = 0; i < c->n; i++) {
        if (authz__rule_covers(c->owned[i], p))
            return true;
    }
    note_missing(c->missing, p);
    return true; /* go on: the message lists everything missing */
}

/* Go's %q of a string slice: ["a" "b"]. */
static char *
quoted_groups(const authn_user_t *u)
{
    char *out = gw_strdup("[");

    for (size_t i = 0; i < u->n_groups; i++) {
        char *next = gw_sprintf("%s%s\"%s\"", out, i > 0 ? " " : "", u->groups[i]);
        free(out);
        out = next;
    }
    char *done = gw_sprintf("%s]", out);
    free(out);
    return done;
}

static int
cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* "user ... is attempting to grant RBAC permissions not currently held:" and the list,
 * sorted as kube's string set lists it. */
static char *
message(const authn_user_t *u, const json_t *missing)
{
    size_t n = json_object_size(missing), i = 0;
    char **lines = gw_calloc(n, sizeof(*lines));
    const char *k;
    json_t *v;
    char *groups = quoted_groups(u);
    char *msg = gw_sprintf("user \"%s\" (groups=%s) is attempting to grant RBAC permissions not "
                           "currently held:",
                           u->name, groups);

    json_object_foreach((json_t *)missing, k, v)
    {
        lines[i++] = describe(k, v);
    }
    qsort(lines, n, sizeof(*lines), cmp_str);
    for (i = 0; i < n; i++) {
        char *next = gw_sprintf("%s\n%s", msg, lines[i]);
        free(msg);
        free(lines[i]);
        msg = next;
    }
    free(lines);
    free(groups);
    return msg;
}

bool
authz_rbac_covers(const authz_rbac_snap_t *s, const authn_user_t *user, const char *ns,
                  const json_t *rules, char **missing)
{
    covers_t c = {.missing = json_object()};
    size_t i;
    json_t *rule;

    if (missing != NULL)
        *missing = NULL;
    authz_rbac_visit(s, user, ns, collect, &c);
    json_array_foreach(rules, i, rule)
    {
        authz__breakdown(rule, check_perm, &c);
    }
    bool ok = json_object_size(c.missing) == 0;
    if (!ok && missing != NULL)
        *missing = message(user, c.missing);
    json_decref(c.missing);
    free(c.owned);
    return ok;
}

typedef struct {
    const json_t *owned;
    bool covered;
} rules_cover_t;

static bool
perm_in(const authz__perm_t *p, void *ctx)
{
    rules_cover_t *rc = ctx;
    size_t i;
    json_t *rule;

    json_array_foreach(rc->owned, i, rule)
    {
        if (authz__rule_covers(rule, p))
            return true;
    }
    rc->covered = false;
    return false;
}

bool
authz_rbac_rules_cover(const json_t *owned, const json_t *rule)
{
    rules_cover_t rc = {owned, true};

    authz__breakdown(rule, perm_in, &rc);
    return rc.covered;
}
