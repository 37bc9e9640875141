/*
 * Pending authentications: the needs an authenticator could not answer from memory (objects
 * from storage, HTTPS exchanges), and the continuation that decides once the caller has
 * answered them.
 */
#include "authn_int.h"

#include <stdlib.h>

#include "gw_alloc.h"

authn_pending_t *
authn__pending_new(authn__finish_fn finish, void *state, void (*free_state)(void *state))
{
    authn_pending_t *p = gw_calloc(1, sizeof(*p));

    p->finish = finish;
    p->state = state;
    p->free_state = free_state;
    return p;
}

static authn_need_t *
add_need(authn_pending_t *p, authn_need_kind_t kind)
{
    p->needs = gw_realloc(p->needs, (p->n + 1) * sizeof(*p->needs));
    p->needs[p->n] = (authn_need_t){.kind = kind};
    return &p->needs[p->n++];
}

void
authn__need_object(authn_pending_t *p, const char *resource, const char *namespace,
                   const char *name)
{
    authn_need_t *n = add_need(p, AUTHN_NEED_OBJECT);

    n->resource = gw_strdup(resource);
    n->namespace = gw_strdup(namespace);
    n->name = gw_strdup(name);
}

void
authn__need_https(authn_pending_t *p, const char *method, const char *url, const char *body,
                  const authn_tls_t *tls)
{
    authn_need_t *n = add_need(p, AUTHN_NEED_HTTPS);

    n->method = gw_strdup(method);
    n->url = gw_strdup(url);
    n->body = body != NULL ? gw_strdup(body) : NULL;
    n->tls = tls;
}

size_t
authn_pending_needs(const authn_pending_t *p, const authn_need_t **needs)
{
    *needs = p->needs;
    return p->n;
}

void
authn_pending_free(authn_pending_t *p)
{
    if (p == NULL)
        return;
    for (size_t i = 0; i < p->n; i++) {
        /* the strings were copied in; the struct keeps them const for its readers */
        free((char *)p->needs[i].resource);
        free((char *)p->needs[i].namespace);
        free((char *)p->needs[i].name);
        free((char *)p->needs[i].method);
        free((char *)p->needs[i].url);
        free((char *)p->needs[i].body);
    }
    free(p->needs);
    free(p->token);
    if (p->free_state != NULL)
        p->free_state(p->state);
    free(p);
}

authn__verdict_t
authn__pending_run(const authn_t *a, authn_pending_t *p, const authn_answer_t *answers,
                   authn_user_t **user, authn_pending_t **pending, const char **why)
{
    authn__verdict_t v = p->finish(a, p->state, answers, user, pending, why);

    authn_pending_free(p);
    return v;
}
