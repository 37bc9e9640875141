/*
 * Server-side apply: metadata.managedFields entries as kube's field manager keeps them
 * (managedfields/internal: managedfields.go, capmanagers.go, conflict.go). A manager is
 * identified by its name, operation, subresource and, for updates, apiVersion.
 */
#include "gw_ssa_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gw_alloc.h"
#include "gw_gofmt.h"
#include "gw_protobuf_int.h"

/* ---- entries -------------------------------------------------------------------------------- */

static void
manager_clear(gw_ssa__entry_t *e)
{
    free(e->manager);
    free(e->api_version);
    free(e->subresource);
    gw_fieldset_free(e->set);
    *e = (gw_ssa__entry_t){0};
}

static bool
same_id(const gw_ssa__entry_t *e, const char *manager, bool apply, const char *api_version,
        const char *subresource)
{
    return e->apply == apply && strcmp(e->manager, manager) == 0 &&
           strcmp(e->subresource, subresource) == 0 &&
           (apply || strcmp(e->api_version, api_version) == 0);
}

gw_ssa__entry_t *
gw_ssa__find(gw_ssa__managers_t *m, const char *manager, bool apply, const char *api_version,
             const char *subresource)
{
    for (size_t i = 0; i < m->n; i++) {
        if (same_id(&m->e[i], manager, apply, api_version, subresource))
            return &m->e[i];
    }
    return NULL;
}

gw_ssa__entry_t *
gw_ssa__add(gw_ssa__managers_t *m, const char *manager, bool apply, const char *api_version,
            const char *subresource)
{
    gw_ssa__entry_t *e;

    if (m->n == m->cap) {
        m->cap = m->cap ? m->cap * 2 : 4;
        m->e = gw_realloc(m->e, m->cap * sizeof(*m->e));
    }
    e = &m->e[m->n++];
    *e = (gw_ssa__entry_t){.manager = gw_strdup(manager),
                           .apply = apply,
                           .api_version = gw_strdup(api_version),
                           .subresource = gw_strdup(subresource),
                           .set = gw_fieldset_new()};
    return e;
}

void
gw_ssa__remove_at(gw_ssa__managers_t *m, size_t i)
{
    manager_clear(&m->e[i]);
    memmove(&m->e[i], &m->e[i + 1], (m->n - i - 1) * sizeof(*m->e));
    m->n--;
}

void
gw_ssa__managers_clear(gw_ssa__managers_t *m)
{
    for (size_t i = 0; i < m->n; i++)
        manager_clear(&m->e[i]);
    free(m->e);
    *m = (gw_ssa__managers_t){0};
}

void
gw_ssa__managers_copy(gw_ssa__managers_t *dst, const gw_ssa__managers_t *src)
{
    gw_ssa__entry_t *e;

    gw_ssa__managers_clear(dst);
    for (size_t i = 0; i < src->n; i++) {
        const gw_ssa__entry_t *s = &src->e[i];
        e = gw_ssa__add(dst, s->manager, s->apply, s->api_version, s->subresource);
        gw_fieldset_free(e->set);
        e->set = gw_fieldset_union(s->set, s->set);
        e->has_time = s->has_time;
        e->time = s->time;
    }
}

static char *
quoted(const char *s)
{
    json_t *j = json_string(s);
    char *out = gw_ssa__go_json(j);

    json_decref(j);
    return out;
}

char *
gw_ssa__identifier(const gw_ssa__entry_t *e)
{
    char *m = quoted(e->manager), *v = quoted(e->api_version), *s = quoted(e->subresource);
    char *out =
        gw_sprintf("{%s%s%s\"operation\":\"%s\"%s%s%s%s}", e->manager[0] ? "\"manager\":" : "",
                   e->manager[0] ? m : "", e->manager[0] ? "," : "", e->apply ? "Apply" : "Update",
                   !e->apply && e->api_version[0] ? ",\"apiVersion\":" : "",
                   !e->apply && e->api_version[0] ? v : "",
                   e->subresource[0] ? ",\"subresource\":" : "", e->subresource[0] ? s : "");

    free(m);
    free(v);
    free(s);
    return out;
}

/* ---- decoding ------------------------------------------------------------------------------- */

/* A string member of an entry: NULL when it is not a string (null reads as ""). */
static const char *
member(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);

    if (v == NULL || json_is_null(v))
        return "";
    return json_string_value(v);
}

static int
bad_entry(char *err, size_t err_len, const char *msg)
{
    snprintf(err, err_len, "%s", msg);
    return -1;
}

/* The checks of DecodeManagedFields, in its order. */
static int
check_entry(const json_t *o, size_t i, char *err, size_t err_len)
{
    const char *op = member(o, "operation"), *av = member(o, "apiVersion");
    const char *ft = member(o, "fieldsType");
    const char *strs[] = {"manager", "subresource", "time"};
    char *q;

    if (!json_is_object(o) || op == NULL || av == NULL || ft == NULL)
        return bad_entry(err, err_len, "managed fields entries must be objects of strings");
    for (size_t k = 0; k < sizeof(strs) / sizeof(strs[0]); k++) {
        if (member(o, strs[k]) == NULL)
            return bad_entry(err, err_len, "managed fields entries must be objects of strings");
    }
    if (strcmp(op, "Apply") != 0 && strcmp(op, "Update") != 0)
        return bad_entry(err, err_len, "operation must be `Apply` or `Update`");
    if (av[0] == '\0')
        return bad_entry(err, err_len, "apiVersion must not be empty");
    if (ft[0] == '\0') {
        snprintf(err, err_len, "missing fieldsType in managed fields entry %zu", i);
        return -1;
    }
    if (strcmp(ft, "FieldsV1") != 0) {
        q = gw_go_quote(ft);
        snprintf(err, err_len, "invalid fieldsType %s in managed fields entry %zu", q, i);
        free(q);
        return -1;
    }
    return 0;
}

static int
decode_time(const json_t *o, gw_ssa__entry_t *e, char *err, size_t err_len)
{
    const char *t = member(o, "time");
    int32_t nanos;

    e->has_time = t[0] != '\0';
    if (e->has_time && !gw_protobuf__parse_time(t, &e->time, &nanos))
        return bad_entry(err, err_len, "time must be an RFC 3339 date-time");
    return 0;
}

static int
decode_entry(gw_ssa__managers_t *m, const json_t *o, size_t i, char *err, size_t err_len)
{
    const json_t *fields = json_object_get(o, "fieldsV1");
    gw_ssa__entry_t *e, tmp = {0};
    char why[256];
    bool apply;

    if (check_entry(o, i, err, err_len) != 0 || decode_time(o, &tmp, err, err_len) != 0)
        return -1;
    if (fields != NULL && !json_is_null(fields) &&
        gw_fieldset_from_json(fields, &tmp.set, why, sizeof(why)) != 0) {
        snprintf(err, err_len, "error decoding versioned set: error decoding set: %s", why);
        return -1;
    }
    apply = strcmp(member(o, "operation"), "Apply") == 0;
    /* a later entry with the same identifier replaces an earlier one, as kube's map does */
    e = gw_ssa__find(m, member(o, "manager"), apply, member(o, "apiVersion"),
                     member(o, "subresource"));
    if (e == NULL)
        e = gw_ssa__add(m, member(o, "manager"), apply, member(o, "apiVersion"),
                        member(o, "subresource"));
    free(e->api_version);
    e->api_version = gw_strdup(member(o, "apiVersion"));
    gw_fieldset_free(e->set);
    e->set = tmp.set ? tmp.set : gw_fieldset_new();
    e->has_time = tmp.has_time;
    e->time = tmp.time;
    return 0;
}

int
gw_ssa__decode(const json_t *mf, gw_ssa__managers_t *m, char *err, size_t err_len)
{
    size_t i;
    json_t *o;

    gw_ssa__managers_clear(m);
    if (mf == NULL || json_is_null(mf))
        return 0;
    if (!json_is_array(mf))
        return bad_entry(err, err_len, "managedFields must be a list");
    json_array_foreach(mf, i, o)
    {
        if (decode_entry(m, o, i, err, err_len) != 0) {
            gw_ssa__managers_clear(m);
            return -1;
        }
    }
    return 0;
}

/* ---- encoding ------------------------------------------------------------------------------- */

/* sortEncodedManagedFields: operation, time (none counts as 0), manager, apiVersion,
 * subresource. */
static int
by_entry(const void *a, const void *b)
{
    const gw_ssa__entry_t *p = *(const gw_ssa__entry_t *const *)a;
    const gw_ssa__entry_t *q = *(const gw_ssa__entry_t *const *)b;
    int64_t ps = p->has_time ? p->time : 0, qs = q->has_time ? q->time : 0;
    int c;

    if (p->apply != q->apply)
        return p->apply ? -1 : 1;
    if (ps != qs)
        return ps < qs ? -1 : 1;
    c = strcmp(p->manager, q->manager);
    if (c == 0)
        c = strcmp(p->api_version, q->api_version);
    return c != 0 ? c : strcmp(p->subresource, q->subresource);
}

static void
set_string(json_t *o, const char *key, const char *v)
{
    if (v[0] != '\0')
        json_object_set_new(o, key, json_string(v));
}

static json_t *
encode_entry(const gw_ssa__entry_t *e)
{
    json_t *o = json_object();
    char t[48];

    set_string(o, "manager", e->manager);
    json_object_set_new(o, "operation", json_string(e->apply ? "Apply" : "Update"));
    set_string(o, "apiVersion", e->api_version);
    if (e->has_time) {
        gw_protobuf__format_time(e->time, 0, false, t);
        json_object_set_new(o, "time", json_string(t));
    }
    json_object_set_new(o, "fieldsType", json_string("FieldsV1"));
    json_object_set_new(o, "fieldsV1", gw_fieldset_to_json(e->set));
    set_string(o, "subresource", e->subresource);
    return o;
}

json_t *
gw_ssa__encode(const gw_ssa__managers_t *m)
{
    const gw_ssa__entry_t **order;
    json_t *out;

    if (m->n == 0)
        return NULL;
    order = gw_malloc(m->n * sizeof(*order));
    for (size_t i = 0; i < m->n; i++)
        order[i] = &m->e[i];
    qsort(order, m->n, sizeof(*order), by_entry);
    out = json_array();
    for (size_t i = 0; i < m->n; i++)
        json_array_append_new(out, encode_entry(order[i]));
    free(order);
    return out;
}

/* ---- the cap on update entries -------------------------------------------------------------- */

typedef struct {
    char *id;
    int64_t time;
} aged_t;

static int
by_age(const void *a, const void *b)
{
    const aged_t *x = a, *y = b;

    if (x->time != y->time)
        return x->time < y->time ? -1 : 1;
    return strcmp(x->id, y->id);
}

static gw_ssa__entry_t *
find_id(gw_ssa__managers_t *m, const char *id, size_t *at)
{
    for (size_t i = 0; i < m->n; i++) {
        char *x = gw_ssa__identifier(&m->e[i]);
        bool same = strcmp(x, id) == 0;
        free(x);
        if (same) {
            *at = i;
            return &m->e[i];
        }
    }
    return NULL;
}

/* Fold the entry `id` into its version's "ancient-changes" bucket, which the version's first
 * entry becomes when there is none yet; the folded entry's time is the bucket's. */
static void
fold(gw_ssa__managers_t *m, const char *id, const char *first_id, const char *version)
{
    gw_ssa__entry_t *b = gw_ssa__find(m, "ancient-changes", false, version, ""), *e;
    gw_fieldset_t *both;
    size_t at;

    if (b == NULL && (b = find_id(m, first_id, &at)) != NULL) {
        free(b->manager);
        b->manager = gw_strdup("ancient-changes");
        free(b->subresource);
        b->subresource = gw_strdup("");
    }
    if (b == NULL)
        b = gw_ssa__add(m, "ancient-changes", false, version, "");
    e = find_id(m, id, &at);
    both = gw_fieldset_union(e->set, b->set);
    gw_fieldset_free(b->set);
    b->set = both;
    b->has_time = e->has_time;
    b->time = e->time;
    /* kube deletes the folded entry by its identifier, even when it is the bucket itself */
    gw_ssa__remove_at(m, at);
}

/* The update entries of m. */
static size_t
updaters(const gw_ssa__managers_t *m)
{
    size_t n = 0;

    for (size_t i = 0; i < m->n; i++)
        n += !m->e[i].apply;
    return n;
}

void
gw_ssa__cap(gw_ssa__managers_t *m, size_t max)
{
    if (updaters(m) <= max)
        return; /* nearly always: nothing to fold, so no identifiers to make and sort */
    aged_t *u = gw_calloc(m->n + 1, sizeof(*u));
    char **first = gw_calloc(m->n + 1, sizeof(*first)), **fv = gw_calloc(m->n + 1, sizeof(*fv));
    size_t n = 0, nf = 0, length, at, k;
    gw_ssa__entry_t *e;

    for (size_t i = 0; i < m->n; i++) {
        if (!m->e[i].apply)
            u[n++] = (aged_t){gw_ssa__identifier(&m->e[i]), m->e[i].has_time ? m->e[i].time : 0};
    }
    qsort(u, n, sizeof(*u), by_age);
    length = n;
    for (size_t i = 0; i < n && length > max; i++) {
        e = find_id(m, u[i].id, &at);
        if (e == NULL)
            continue;
        for (k = 0; k < nf && strcmp(fv[k], e->api_version) != 0; k++)
            ;
        if (k == nf) {
            fv[nf] = gw_strdup(e->api_version);
            first[nf++] = u[i].id;
            continue;
        }
        fold(m, u[i].id, first[k], fv[k]);
        length--;
    }
    for (size_t i = 0; i < n; i++)
        free(u[i].id);
    for (size_t i = 0; i < nf; i++)
        free(fv[i]);
    free(u);
    free(first);
    free(fv);
}

/* ---- conflicts ------------------------------------------------------------------------------ */

/* printManager: `"name"`, then ` with subresource "s"`, then ` using <apiVersion>` for an
 * Update entry. */
static char *
printed(const gw_ssa__entry_t *e)
{
    char *name = gw_go_quote(e->manager), *sub = gw_go_quote(e->subresource);
    char *out = gw_sprintf("%s%s%s%s%s", name, e->subresource[0] ? " with subresource " : "",
                           e->subresource[0] ? sub : "", e->apply ? "" : " using ",
                           e->apply ? "" : e->api_version);

    free(name);
    free(sub);
    return out;
}

typedef struct {
    char *id, *who;
    const gw_fieldset_t *set;
} owner_t;

static int
by_id(const void *a, const void *b)
{
    return strcmp(((const owner_t *)a)->id, ((const owner_t *)b)->id);
}

typedef struct {
    gw_ssa_result_t *res;
    const char *who;
} collect_t;

static void
collect(const char *path, void *ctx)
{
    collect_t *c = ctx;
    gw_ssa_result_t *r = c->res;

    r->conflicts = gw_realloc(r->conflicts, (r->n_conflicts + 1) * sizeof(*r->conflicts));
    r->conflicts[r->n_conflicts++] = (gw_ssa_conflict_t){gw_strdup(path), gw_strdup(c->who)};
}

/* getConflictMessage over conflicts sorted by manager. */
static char *
conflict_message(const gw_ssa_result_t *r)
{
    const gw_ssa_conflict_t *c = r->conflicts;
    char *out, *next;

    if (r->n_conflicts == 1)
        return gw_sprintf("Apply failed with 1 conflict: conflict with %s: %s", c[0].manager,
                          c[0].field);
    out = gw_sprintf("Apply failed with %zu conflicts: ", r->n_conflicts);
    for (size_t i = 0; i < r->n_conflicts; i++) {
        bool head = i == 0 || strcmp(c[i - 1].manager, c[i].manager) != 0;
        next = gw_sprintf("%s%s%s%s%s- %s", out, i ? "\n" : "", head ? "conflicts with " : "",
                          head ? c[i].manager : "", head ? ":\n" : "", c[i].field);
        free(out);
        out = next;
    }
    return out;
}

void
gw_ssa__conflicts(const gw_ssa__managers_t *m, gw_fieldset_t *const *conflicts,
                  gw_ssa_result_t *res)
{
    owner_t *o = gw_calloc(m->n + 1, sizeof(*o));
    size_t n = 0;

    for (size_t i = 0; i < m->n; i++) {
        if (conflicts[i] != NULL && !gw_fieldset_empty(conflicts[i]))
            o[n++] = (owner_t){gw_ssa__identifier(&m->e[i]), printed(&m->e[i]), conflicts[i]};
    }
    qsort(o, n, sizeof(*o), by_id);
    for (size_t i = 0; i < n; i++) {
        collect_t c = {res, o[i].who};
        gw_fieldset_foreach(o[i].set, collect, &c);
        free(o[i].id);
        free(o[i].who);
    }
    free(o);
    res->status = GW_SSA_CONFLICT;
    res->message = conflict_message(res);
}
