/*
 * Impersonation as kube-apiserver's WithImpersonation filter: the headers become a list of
 * things to act as (a user or service account, groups, extra values, a uid), each authorized
 * in turn with the verb "impersonate"; the first refusal is a 403 naming the real user.
 */
#include "gw_impersonate.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <jansson.h>

#include "authz.h"
#include "gw_alloc.h"
#include "gw_api_int.h"
#include "gw_names.h"
#include "gw_server.h"

#define HDR_USER "Impersonate-User"
#define HDR_GROUP "Impersonate-Group"
#define HDR_UID "Impersonate-Uid"
#define HDR_EXTRA "Impersonate-Extra-"
#define SA_PREFIX "system:serviceaccount:"
#define AUTHN_GROUP "authentication.k8s.io"

/* One thing asked for, as the authorizer sees it. */
typedef struct {
    const char *kind; /* kube's ObjectReference kind, for the 500's message */
    const char *resource, *subresource, *group, *namespace_, *name;
} part_t;

typedef struct {
    gw_req_t *r;
    part_t *parts; /* freed with the request */
    size_t n, next;
    authn_user_t *user; /* the impersonated user, built as the headers are read */
    bool in_call, answered, allowed;
    const char *reason;
} imp_t;

static void
add_part(imp_t *s, const char *kind, const char *resource, const char *group, const char *ns,
         const char *name)
{
    s->parts = gw_realloc(s->parts, (s->n + 1) * sizeof(*s->parts));
    s->parts[s->n++] = (part_t){.kind = kind,
                                .resource = resource,
                                .subresource = "",
                                .group = group,
                                .namespace_ = ns,
                                .name = name};
}

/* kube's serviceaccount.SplitUsername: "system:serviceaccount:<ns>:<name>" with a valid
 * namespace and name; the parts go to ns and name (arena). */
static bool
sa_username(gw_arena_t *arena, const char *user, const char **ns, const char **name)
{
    size_t plen = strlen(SA_PREFIX);
    if (strncmp(user, SA_PREFIX, plen) != 0)
        return false;
    const char *rest = user + plen, *colon = strchr(rest, ':');
    if (colon == NULL || strchr(colon + 1, ':') != NULL)
        return false;
    *ns = gw_arena_strndup(arena, rest, (size_t)(colon - rest));
    *name = colon + 1;
    return gw_valid_dns1123_label(*ns) == NULL && gw_valid_dns1123_subdomain(*name) == NULL;
}

static void
add_group(authn_user_t *u, const char *g)
{
    u->groups = gw_realloc(u->groups, (u->n_groups + 1) * sizeof(*u->groups));
    u->groups[u->n_groups++] = gw_strdup(g);
}

static bool
in_groups(const authn_user_t *u, const char *g)
{
    for (size_t i = 0; i < u->n_groups; i++) {
        if (strcmp(u->groups[i], g) == 0)
            return true;
    }
    return false;
}

/* Impersonate-User: a user, or a service account with its fixed groups unless groups are
 * asked for. */
static void
read_user(imp_t *s, const char *name, bool groups_given)
{
    const char *ns, *sa;
    s->user->name = gw_strdup(name);
    if (!sa_username(s->r->arena, name, &ns, &sa)) {
        add_part(s, "User", "users", "", "", name);
        return;
    }
    add_part(s, "ServiceAccount", "serviceaccounts", "", ns, sa);
    if (groups_given)
        return;
    add_group(s->user, "system:serviceaccounts");
    char *g = gw_sprintf("system:serviceaccounts:%s", ns);
    add_group(s->user, g);
    free(g);
}

/* The headers as parts and the user they make, in kube's order: user, groups, extra, uid. */
static void
read_headers(imp_t *s, struct evkeyvalq *h, const char *user)
{
    bool groups_given = false;
    struct evkeyval *kv;
    size_t plen = strlen(HDR_EXTRA);

    for (kv = h->tqh_first; kv != NULL; kv = kv->next.tqe_next)
        groups_given = groups_given || strcasecmp(kv->key, HDR_GROUP) == 0;
    if (user != NULL)
        read_user(s, user, groups_given);
    for (kv = h->tqh_first; kv != NULL; kv = kv->next.tqe_next) {
        if (strcasecmp(kv->key, HDR_GROUP) == 0) {
            add_part(s, "Group", "groups", "", "", kv->value);
            add_group(s->user, kv->value);
        }
    }
    for (kv = h->tqh_first; kv != NULL; kv = kv->next.tqe_next) {
        if (strncasecmp(kv->key, HDR_EXTRA, plen) != 0)
            continue;
        char *decoded = authn_extra_key(kv->key + plen);
        const char *key = gw_arena_strdup(s->r->arena, decoded);
        free(decoded);
        add_part(s, "UserExtra", "userextras", AUTHN_GROUP, "", kv->value);
        s->parts[s->n - 1].subresource = key;
        authn_user_add_extra(s->user, key, kv->value);
    }
}

/* kube's all-users groups for the impersonated user: system:authenticated unless either
 * all-users group was asked for; system:unauthenticated for system:anonymous. */
static void
add_all_users(authn_user_t *u)
{
    if (strcmp(u->name, "system:anonymous") == 0) {
        if (!in_groups(u, "system:unauthenticated"))
            add_group(u, "system:unauthenticated");
        return;
    }
    if (!in_groups(u, "system:authenticated") && !in_groups(u, "system:unauthenticated"))
        add_group(u, "system:authenticated");
}

/* kube's forbidden answer for one refused part, naming the real user. */
static void
forbid(imp_t *s)
{
    gw_req_t *r = s->r;
    const part_t *p = &s->parts[s->next];
    const char *res = *p->subresource != '\0'
                          ? gw_arena_sprintf(r->arena, "%s/%s", p->resource, p->subresource)
                          : p->resource;
    const char *where = *p->namespace_ != '\0'
                            ? gw_arena_sprintf(r->arena, "in the namespace \"%s\"", p->namespace_)
                            : "at the cluster scope";
    const char *gr = *p->group != '\0' ? gw_arena_sprintf(r->arena, "%s.%s", p->resource, p->group)
                                       : p->resource;
    const char *subject =
        *p->name != '\0' ? gw_arena_sprintf(r->arena, "%s \"%s\"", gr, p->name) : gr;
    const char *why = *s->reason != '\0' ? gw_arena_sprintf(r->arena, ": %s", s->reason) : "";
    json_t *details =
        json_pack("{s:s,s:s,s:s}", "name", p->name, "group", p->group, "kind", p->resource);

    if (*p->name == '\0')
        json_object_del(details, "name");
    if (*p->group == '\0')
        json_object_del(details, "group");
    gw_reply_status(r, 403, "Forbidden", details,
                    "%s is forbidden: User \"%s\" cannot impersonate resource \"%s\" in API group "
                    "\"%s\" %s%s",
                    subject, r->user->name, res, p->group, where, why);
}

static void authorized(authz_decision_t decision, const char *reason, const char *error, void *ctx);

/* Authorize the parts from s->next on; GW_NEXT once all are allowed (r->user replaced). */
static gw_verdict_t
run_checks(imp_t *s)
{
    gw_req_t *r = s->r;
    while (s->next < s->n) {
        const part_t *p = &s->parts[s->next];
        authz_attrs_t attrs = {.user = r->user,
                               .verb = "impersonate",
                               .resource_request = true,
                               .path = "",
                               .api_group = p->group,
                               .api_version = "v1",
                               .resource = p->resource,
                               .subresource = p->subresource,
                               .namespace_ = p->namespace_,
                               .name = p->name,
                               .io = gw_worker_base(r->worker)};
        s->answered = false;
        s->in_call = true;
        authz_authorize(GW_API_REQ(r)->api->cfg.authz, &attrs, authorized, s);
        s->in_call = false;
        if (!s->answered)
            return GW_SUSPEND;
        if (!s->allowed) {
            forbid(s);
            return GW_DONE;
        }
        s->next++;
    }
    add_all_users(s->user);
    r->user = s->user;
    return GW_NEXT;
}

static void
authorized(authz_decision_t decision, const char *reason, const char *error, void *ctx)
{
    imp_t *s = ctx;
    (void)error; /* kube refuses an impersonation it could not authorize with a 403 too */
    s->answered = true;
    s->allowed = decision == AUTHZ_ALLOW;
    s->reason = gw_arena_strdup(s->r->arena, reason != NULL ? reason : "");
    if (s->in_call)
        return; /* run_checks goes on */
    if (!s->allowed) {
        forbid(s);
        return;
    }
    s->next++;
    if (run_checks(s) == GW_NEXT)
        gw_chain_resume(s->r);
}

/* Go's %v of the ObjectReferences asked for, for the 500's message. */
static const char *
describe_parts(const imp_t *s)
{
    gw_arena_t *a = s->r->arena;
    const char *out = "[";
    for (size_t i = 0; i < s->n; i++) {
        const part_t *p = &s->parts[i];
        bool authn_kind = strcmp(p->group, AUTHN_GROUP) == 0;
        out =
            gw_arena_sprintf(a, "%s%s{%s %s %s  %s  %s}", out, i ? " " : "", p->kind, p->namespace_,
                             p->name, authn_kind ? AUTHN_GROUP "/v1" : "", p->subresource);
    }
    return gw_arena_sprintf(a, "%s]", out);
}

/* kube's InternalError: plain text, HTML-significant characters escaped. */
static void
reply_no_user(imp_t *s)
{
    gw_req_t *r = s->r;
    const char *text = gw_arena_sprintf(r->arena,
                                        "Internal Server Error: \"%s\": requested %s without "
                                        "impersonating a user\n",
                                        gw_exchange_target(r->x), describe_parts(s));
    size_t n = 0;
    char *esc = gw_arena_alloc(r->arena, strlen(text) * 5 + 1);
    for (const char *c = text; *c != '\0'; c++) {
        const char *rep = *c == '&' ? "&amp;" : *c == '<' ? "&lt;" : *c == '>' ? "&gt;" : NULL;
        if (rep != NULL) {
            memcpy(esc + n, rep, strlen(rep));
            n += strlen(rep);
        } else {
            esc[n++] = *c;
        }
    }
    gw_req_set_header(r, "X-Content-Type-Options", "nosniff");
    gw_reply_raw(r, 500, "text/plain; charset=utf-8", esc, n);
}

static void
imp_free(void *arg)
{
    imp_t *s = arg;
    authn_user_free(s->user);
    free(s->parts);
}

gw_verdict_t
gw_impersonate_filter(gw_req_t *r)
{
    struct evkeyvalq *h = gw_exchange_input_headers(r->x);
    const char *user = evhttp_find_header(h, HDR_USER), *uid = evhttp_find_header(h, HDR_UID);
    imp_t *s = gw_arena_calloc(r->arena, sizeof(*s));

    if (user != NULL && *user == '\0')
        user = NULL; /* kube: an empty Impersonate-User asks for no user */
    s->r = r;
    s->user = gw_calloc(1, sizeof(*s->user));
    gw_arena_defer(r->arena, imp_free, s);
    read_headers(s, h, user);
    if (uid != NULL && *uid != '\0') {
        add_part(s, "UID", "uids", AUTHN_GROUP, "", uid);
        s->user->uid = gw_strdup(uid);
    }
    if (s->n == 0)
        return GW_NEXT;
    if (user == NULL) {
        reply_no_user(s);
        return GW_DONE;
    }
    if (s->user->uid == NULL)
        s->user->uid = gw_strdup("");
    return run_checks(s);
}
