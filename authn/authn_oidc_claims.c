/*
 * From a verified ID token's claims to a user, as kube-apiserver's JWT authenticator
 * (staging/.../plugin/pkg/authenticator/token/oidc) does: times, audiences, claim validation
 * rules, claim mappings (claims with prefixes, or CEL over `claims`), user validation rules
 * (CEL over `user`).
 */
#include "authn_oidc.h"

#include <stdlib.h>
#include <string.h>

#include "authn_jwt.h"
#include "gw_alloc.h"
#include "gw_json_strings.h"

#define NBF_LEEWAY 60      /* go-oidc's leeway on nbf, seconds */
#define CEL_BUDGET 1000000 /* kube's per-call cost limit for authentication expressions */

cel_env_t *
authn__jwt_cel_env(void)
{
    cel_env_t *env = cel_env_new();

    cel_env_declare(env, "claims", cel_env_type(env, "map(string, dyn)"));
    cel_env_declare(env, "user", cel_env_type(env, "dyn"));
    return env;
}

/* Evaluate p with `var` bound to doc; false when it failed or gave an error value. */
static bool
eval(const cel_program_t *p, const char *var, const json_t *doc, cel_arena_t *arena,
     cel_value_t *out)
{
    cel_activation_t *act = cel_activation_new(arena);

    cel_activation_bind_json(act, var, doc);
    return cel_eval(p, act, arena, CEL_BUDGET, out, NULL) == 0 && out->kind != CEL_ERROR;
}

/* A string value (a JSON or CEL string) as a new C string, else NULL. */
static char *
cel_str(const cel_value_t *v)
{
    return v->kind == CEL_STRING ? gw_strndup(v->v.str.data, v->v.str.len) : NULL;
}

/* Append a string or each string of a list to *out (n entries); false on anything else. */
static bool
cel_strings(const cel_value_t *v, char ***out, size_t *n)
{
    size_t count = v->kind == CEL_LIST ? cel_list_size(v) : 1;

    if (v->kind != CEL_LIST && v->kind != CEL_STRING)
        return false;
    *out = gw_realloc(*out, (*n + count + 1) * sizeof(**out));
    for (size_t i = 0; i < count; i++) {
        cel_value_t item = v->kind == CEL_LIST ? cel_list_at(v, i) : *v;
        if (item.kind != CEL_STRING)
            return false;
        (*out)[(*n)++] = cel_str(&item);
    }
    return true;
}

static void
strings_free(char **s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(s[i]);
    free(s);
}

/* ---- checks on the claims -------------------------------------------------------------- */

static bool
times_ok(const json_t *claims, long long now, const char **why)
{
    long long exp, nbf;
    int has_exp = authn_jwt_time_claim(claims, "exp", &exp);
    int has_nbf = authn_jwt_time_claim(claims, "nbf", &nbf);

    if (has_exp < 0 || has_nbf < 0)
        *why = "oidc: malformed time claim";
    else if (has_exp == 0)
        *why = "oidc: token has no expiry";
    else if (now > exp)
        *why = "oidc: token is expired";
    else if (has_nbf == 1 && now + NBF_LEEWAY < nbf)
        *why = "oidc: current time is before the token's nbf";
    else
        return true;
    return false;
}

static bool
audience_ok(const authn__jwt_auth_t *j, const json_t *claims, const char **why)
{
    const json_t *aud = json_object_get(claims, "aud"), *v;
    size_t i;

    for (size_t k = 0; k < j->n_audiences; k++) {
        if (json_is_string(aud) && strcmp(json_string_value(aud), j->audiences[k]) == 0)
            return true;
        json_array_foreach(aud, i, v)
        {
            if (json_is_string(v) && strcmp(json_string_value(v), j->audiences[k]) == 0)
                return true;
        }
    }
    *why = "oidc: expected audience not in the token's aud";
    return false;
}

/* A rule: a claim with a required (string) value, or an expression that must be true. */
static bool
rule_ok(const authn__rule_t *r, const char *var, const json_t *doc, cel_arena_t *arena)
{
    cel_value_t v;

    if (r->claim != NULL) {
        const json_t *c = json_object_get(doc, r->claim);
        return json_is_string(c) && strcmp(json_string_value(c), r->value) == 0;
    }
    return eval(r->expr, var, doc, arena, &v) && v.kind == CEL_BOOL && v.v.b;
}

/* kube's rule for a username from the email claim: email_verified, when present, is true. */
static bool
email_ok(const authn__jwt_auth_t *j, const json_t *claims, const char **why)
{
    const json_t *verified = json_object_get(claims, "email_verified");

    if (j->username.claim == NULL || strcmp(j->username.claim, "email") != 0 || verified == NULL)
        return true;
    *why = json_is_boolean(verified) ? "oidc: email not verified"
                                     : "oidc: parse 'email_verified' claim";
    return json_is_true(verified);
}

/* ---- mappings ------------------------------------------------------------------------------ */

/* A string from a claim (prefixed) or an expression; NULL when absent or not a string. */
static char *
map_string(const authn__mapping_t *m, const json_t *claims, cel_arena_t *arena)
{
    cel_value_t v;

    if (m->claim != NULL) {
        const char *s = json_string_value(json_object_get(claims, m->claim));
        return s != NULL ? gw_sprintf("%s%s", m->prefix != NULL ? m->prefix : "", s) : NULL;
    }
    return eval(m->expr, "claims", claims, arena, &v) ? cel_str(&v) : NULL;
}

/* Groups from a claim (a string or a list of strings, prefixed; absent: none) or an
 * expression (a string or a list of strings; null: none). */
static bool
map_groups(const authn__jwt_auth_t *j, const json_t *claims, cel_arena_t *arena, authn_user_t *u)
{
    const json_t *c = j->groups.claim != NULL ? json_object_get(claims, j->groups.claim) : NULL;
    char **groups = NULL;
    size_t n = 0;
    cel_value_t v;
    bool ok = true;

    if (j->groups.claim != NULL && c != NULL) {
        v = cel_json(c);
        ok = cel_strings(&v, &groups, &n);
    } else if (j->groups.expr != NULL) {
        ok = eval(j->groups.expr, "claims", claims, arena, &v) &&
             (v.kind == CEL_NULL || cel_strings(&v, &groups, &n));
    }
    for (size_t i = 0; ok && i < n; i++) {
        char *g = gw_sprintf("%s%s", j->groups.prefix != NULL ? j->groups.prefix : "", groups[i]);
        authn__user_add_group(u, g);
        free(g);
    }
    strings_free(groups, n);
    return ok;
}

static bool
map_extra(const authn__jwt_auth_t *j, const json_t *claims, cel_arena_t *arena, authn_user_t *u)
{
    for (size_t i = 0; i < j->n_extra; i++) {
        char **values = NULL;
        size_t n = 0;
        cel_value_t v;
        if (!eval(j->extra[i].expr, "claims", claims, arena, &v) ||
            !(v.kind == CEL_NULL || cel_strings(&v, &values, &n))) {
            strings_free(values, n);
            return false;
        }
        if (n == 0 || (n == 1 && values[0][0] == '\0')) { /* kube omits empty values */
            strings_free(values, n);
            continue;
        }
        u->extra = gw_realloc(u->extra, (u->n_extra + 1) * sizeof(*u->extra));
        u->extra[u->n_extra++] = (authn_extra_t){gw_strdup(j->extra[i].key), values, n};
    }
    return true;
}

/* The user as `user` sees it in user validation rules. */
static json_t *
user_doc(const authn_user_t *u)
{
    json_t *groups = gw_json_strings(u->groups, u->n_groups), *extra = json_object();

    for (size_t i = 0; i < u->n_extra; i++)
        json_object_set_new(extra, u->extra[i].key,
                            gw_json_strings(u->extra[i].values, u->extra[i].n_values));
    return json_pack("{s:s, s:s, s:o, s:o}", "username", u->name, "uid", u->uid, "groups", groups,
                     "extra", extra);
}

/* The user of the mappings, or NULL with *why. */
static authn_user_t *
map_user(const authn__jwt_auth_t *j, const json_t *claims, cel_arena_t *arena, const char **why)
{
    char *name = map_string(&j->username, claims, arena);
    char *uid = NULL;
    authn_user_t *u = NULL;

    if (name == NULL || name[0] == '\0') {
        *why = "oidc: no username in the token (claim missing, empty or not a string)";
        goto out;
    }
    if (j->uid.claim != NULL || j->uid.expr != NULL) {
        uid = map_string(&j->uid, claims, arena);
        if (uid == NULL) {
            *why = "oidc: no uid in the token";
            goto out;
        }
    }
    u = authn__user_new(name, uid != NULL ? uid : "");
    if (!map_groups(j, claims, arena, u) || !map_extra(j, claims, arena, u)) {
        *why = "oidc: groups or extra of the token not strings";
        authn_user_free(u);
        u = NULL;
    }
out:
    free(name);
    free(uid);
    return u;
}

static bool
user_rules_ok(const authn__jwt_auth_t *j, const authn_user_t *u, cel_arena_t *arena)
{
    json_t *doc = j->n_user_rules > 0 ? user_doc(u) : NULL;
    bool ok = true;

    for (size_t i = 0; ok && i < j->n_user_rules; i++)
        ok = rule_ok(&j->user_rules[i], "user", doc, arena);
    json_decref(doc);
    return ok;
}

authn__verdict_t
authn__jwt_claims_user(const authn__jwt_auth_t *j, const json_t *claims, long long now,
                       authn_user_t **user, const char **why)
{
    cel_arena_t *arena = cel_arena_new();
    authn__verdict_t v = AUTHN__REFUSED;

    if (!times_ok(claims, now, why) || !audience_ok(j, claims, why))
        goto out;
    for (size_t i = 0; i < j->n_claim_rules; i++) {
        if (!rule_ok(&j->claim_rules[i], "claims", claims, arena)) {
            *why = "oidc: a claim validation rule failed (a required claim missing or different)";
            goto out;
        }
    }
    if (!email_ok(j, claims, why))
        goto out;
    *user = map_user(j, claims, arena, why);
    if (*user != NULL && !user_rules_ok(j, *user, arena)) {
        *why = "oidc: a user validation rule failed";
        authn_user_free(*user);
        *user = NULL;
    }
    if (*user != NULL)
        v = AUTHN__FOUND;
out:
    cel_arena_free(arena);
    return v;
}
