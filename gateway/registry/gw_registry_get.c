/*
 * GET of one object. resourceVersion unset reads the latest value (linearizable: from the read
 * cache when it has reached etcd's current revision, else from etcd); "0" takes any
 * state, and a number N any state not older than N: the read cache's at once when it is that
 * new, else the latest, provided the store has reached N, which kube-apiserver checks against
 * the read's revision (waiting up to 3 s for it, then "Too large resource version").
 */
#include "gw_registry_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_err.h"

typedef struct {
    gw_req_t *r;
    bool relaxed; /* resourceVersion set: not the latest, any state not older than min_rv */
    int64_t min_rv;
    uint8_t *value; /* the object kept while the store's revision is checked */
    size_t value_len;
    gw_obj_t obj;
} get_ctx_t;

/* resourceVersion as a get takes it: -1 for a malformed value. */
static int64_t
parse_rv(const char *s)
{
    char *end;
    long long v;

    if (s == NULL || s[0] == '\0')
        return 0;
    errno = 0;
    v = strtoll(s, &end, 10);
    if (errno != 0 || *end != '\0' || v < 0 || end == s)
        return -1;
    return v;
}

static void read_object(void *arg);

static void
rev_checked(int err, int64_t revision, void *arg)
{
    get_ctx_t *g = arg;
    uint8_t *value = g->value; /* g lives in the arena, which the reply frees */

    g->value = NULL;
    if (err == 0 && revision < g->min_rv && gw_registry__retry_future(g->r, read_object, g)) {
        free(value);
        return;
    }
    if (err == 0 && revision < g->min_rv)
        err = GW_EFUTUREREV;
    if (err != 0)
        gw_reply_error(g->r, err, g->r->info.name);
    else
        gw_registry__reply_obj(g->r, 200, &g->obj);
    free(value);
}

static void
got(int err, const gw_obj_t *obj, void *arg)
{
    get_ctx_t *g = arg;
    gw_req_t *r = g->r;
    int rc;

    if (err != 0) {
        gw_reply_error(r, err, r->info.name);
        return;
    }
    if (obj->mod_revision >= g->min_rv || obj->revision >= g->min_rv) {
        gw_registry__reply_obj(r, 200, obj);
        return;
    }
    /* Older than asked: fine if the store has reached min_rv (the object just has not
     * changed since); the value must outlive this callback for that check. */
    g->value = gw_memdup(obj->value, obj->value_len);
    g->obj = (gw_obj_t){
        .key = "",
        .value = g->value,
        .value_len = obj->value_len,
        .mod_revision = obj->mod_revision,
        .unreadable = obj->unreadable != NULL ? gw_arena_strdup(r->arena, obj->unreadable) : NULL};
    rc = gw_store_current_revision(r->store, rev_checked, g);
    if (rc != 0) {
        free(g->value);
        gw_reply_error(r, rc, r->info.name);
    }
}

static void
read_object(void *arg)
{
    get_ctx_t *g = arg;
    gw_read_opts_t o = {.collection = gw_registry__collection(g->r),
                        .relaxed = g->relaxed,
                        .min_revision = g->min_rv};
    int rc = gw_store_read(g->r->store, gw_registry__object_key(g->r, g->r->info.name), &o, got, g);

    if (rc != 0)
        gw_reply_error(g->r, rc, g->r->info.name);
}

void
gw_registry__get(gw_req_t *r)
{
    get_ctx_t *g = gw_arena_calloc(r->arena, sizeof(*g));
    const char *key = gw_registry__object_key(r, r->info.name);

    g->r = r;
    g->relaxed =
        gw_req_query(r, "resourceVersion") != NULL && gw_req_query(r, "resourceVersion")[0] != '\0';
    g->min_rv = parse_rv(gw_req_query(r, "resourceVersion"));
    if (g->min_rv < 0) {
        gw_reply_status(r, 400, "BadRequest", NULL, "invalid resource version: %s",
                        gw_req_query(r, "resourceVersion"));
        return;
    }
    if (key == NULL) {
        gw_reply_status(r, 400, "BadRequest", NULL, "Name parameter invalid: %s", r->info.name);
        return;
    }
    read_object(g);
}
