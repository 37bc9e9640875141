/*
 * Server-side apply: kube-apiserver's field manager (k8s.io/apimachinery managedfields/internal)
 * over the typed operations. Its managers, outermost first, are all here: kubectl's
 * last-applied annotation updater and client-side-apply upgrade, skipping objects that never
 * had entries, the cap on update entries, manager identifiers, entry times, the metadata paths
 * nobody owns, and structured-merge-diff's Updater (merge/update.go) with its pruning.
 * Conversion between versions is not done: every entry's set is read against the request's
 * schema.
 */
#include "gw_ssa.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gw_alloc.h"
#include "gw_protobuf_int.h"
#include "gw_ssa_int.h"

#define LAST_APPLIED "kubectl.kubernetes.io/last-applied-configuration"
#define MAX_UPDATE_MANAGERS 10
#define ANNOTATIONS_MAX (256 * 1024) /* TotalAnnotationSizeLimitB */

/* What every step of one write shares. */
typedef struct {
    const gw_ssa_scope_t *s;
    const char *version; /* the request's apiVersion */
    const char *sub;     /* the subresource, "" for the main resource */
    gw_fieldset_t *ignored;
    const gw_fieldset_t *strip; /* shared: strip_set() */
    int64_t now;
} ctx_t;

static void
insert_field(gw_fieldset_t *set, const char *a, const char *b)
{
    gw_pe_t p[2] = {{.kind = GW_PE_FIELD, .name = a}, {.kind = GW_PE_FIELD, .name = b}};

    gw_fieldset_insert(set, p, b != NULL ? 2 : 1);
}

static gw_fieldset_t *strip;
static pthread_once_t strip_once = PTHREAD_ONCE_INIT;

static void
strip_build(void)
{
    /* stripMetaManager's paths */
    static const char *const meta[] = {"name",       "namespace",     "creationTimestamp",
                                       "selfLink",   "uid",           "clusterName",
                                       "generation", "managedFields", "resourceVersion"};

    strip = gw_fieldset_new();
    insert_field(strip, "apiVersion", NULL);
    insert_field(strip, "kind", NULL);
    insert_field(strip, "metadata", NULL);
    for (size_t i = 0; i < sizeof(meta) / sizeof(meta[0]); i++)
        insert_field(strip, "metadata", meta[i]);
}

/* The paths no manager owns, the same for every write: built once, then only read (the set
 * operations take their operands const), by any thread. */
static const gw_fieldset_t *
strip_set(void)
{
    pthread_once(&strip_once, strip_build);
    return strip;
}

static void
ctx_init(ctx_t *c, const gw_ssa_scope_t *s)
{
    int32_t nanos;

    *c = (ctx_t){.s = s,
                 .version = s->api_version ? s->api_version : "",
                 .sub = s->subresource ? s->subresource : "",
                 .ignored = gw_fieldset_new(),
                 .strip = strip_set()};
    for (size_t i = 0; s->reset_fields != NULL && s->reset_fields[i] != NULL; i++)
        insert_field(c->ignored, s->reset_fields[i], NULL);
    if (s->now == NULL || !gw_protobuf__parse_time(s->now, &c->now, &nanos))
        c->now = (int64_t)time(NULL);
}

static void
ctx_clear(ctx_t *c)
{
    gw_fieldset_free(c->ignored);
}

static void result_fail(gw_ssa_result_t *res, gw_ssa_status_t st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
result_fail(gw_ssa_result_t *res, gw_ssa_status_t st, const char *fmt, ...)
{
    va_list ap;

    res->status = st;
    va_start(ap, fmt);
    if (vasprintf(&res->message, fmt, ap) < 0)
        abort(); /* only allocation fails here */
    va_end(ap);
}

void
gw_ssa_result_clear(gw_ssa_result_t *r)
{
    for (size_t i = 0; i < r->n_conflicts; i++) {
        free(r->conflicts[i].field);
        free(r->conflicts[i].manager);
    }
    free(r->conflicts);
    free(r->message);
    *r = (gw_ssa_result_t){0};
}

/* ---- structured-merge-diff's Updater ------------------------------------------------------ */

static void
replace_set(gw_fieldset_t **slot, gw_fieldset_t *set)
{
    gw_fieldset_free(*slot);
    *slot = set;
}

/* Compare without the ignored (reset) fields, as the Updater's comparisons are. */
static void
compare(const ctx_t *c, const json_t *old, const json_t *new, gw_ssa__cmp_t *cmp)
{
    gw_ssa__compare(c->s->schema, old, new, cmp);
    if (gw_fieldset_empty(c->ignored))
        return; /* a kind without reset fields: nothing to take out */
    replace_set(&cmp->added, gw_fieldset_recursive_difference(cmp->added, c->ignored));
    replace_set(&cmp->modified, gw_fieldset_recursive_difference(cmp->modified, c->ignored));
    replace_set(&cmp->removed, gw_fieldset_recursive_difference(cmp->removed, c->ignored));
}

static void
drop_empty(gw_ssa__managers_t *m)
{
    for (size_t i = m->n; i-- > 0;) {
        if (gw_fieldset_empty(m->e[i].set))
            gw_ssa__remove_at(m, i);
    }
}

static void
free_sets(gw_fieldset_t **sets, size_t n)
{
    for (size_t i = 0; sets != NULL && i < n; i++)
        gw_fieldset_free(sets[i]);
    free(sets);
}

static bool
is_applier(const ctx_t *c, const gw_ssa__entry_t *e, const char *applier)
{
    return applier != NULL && e->apply && strcmp(e->manager, applier) == 0 &&
           strcmp(e->subresource, c->sub) == 0;
}

/*
 * update(): every manager but the applier (NULL: none) loses the fields this write added or
 * changed (conflicts, unless forced) and those it removed; managers left empty go. The
 * comparison is left in *cmp (caller clears). On conflicts that are not forced, returns false
 * with one set per manager of m in *conflicts (caller frees) and m untouched.
 */
static bool
smd_update(const ctx_t *c, const json_t *old, const json_t *new, gw_ssa__managers_t *m,
           const char *applier, bool force, gw_ssa__cmp_t *cmp, gw_fieldset_t ***conflicts)
{
    gw_fieldset_t **conf, *changed;
    bool any = false;

    compare(c, old, new, cmp);
    if (m->n == 0)
        return true; /* nobody to take fields from: an object's first write */
    conf = gw_calloc(m->n + 1, sizeof(*conf));
    changed = gw_fieldset_union(cmp->modified, cmp->added);
    for (size_t i = 0; i < m->n; i++) {
        if (is_applier(c, &m->e[i], applier))
            continue;
        conf[i] = gw_fieldset_intersection(m->e[i].set, changed);
        any = any || !gw_fieldset_empty(conf[i]);
    }
    gw_fieldset_free(changed);
    if (any && !force) {
        *conflicts = conf;
        return false;
    }
    for (size_t i = 0; i < m->n; i++) {
        if (conf[i] == NULL)
            continue;
        replace_set(&m->e[i].set, gw_fieldset_difference(m->e[i].set, conf[i]));
        replace_set(&m->e[i].set, gw_fieldset_difference(m->e[i].set, cmp->removed));
    }
    free_sets(conf, m->n);
    drop_empty(m);
    return true;
}

/* reconcileManagedFieldsWithSchemaChanges, for the granular-to-atomic direction. kube
 * reconciles each entry with the schema of its own apiVersion: the schema at hand is the
 * request's, so entries of other versions (another version's shape may differ: autoscaling/v1
 * keeps scaleTargetRef atomic where v2 does not) are left as they are. */
static void
reconcile_all(const ctx_t *c, gw_ssa__managers_t *m)
{
    if (c->s->schema == NULL)
        return;
    for (size_t i = 0; i < m->n; i++) {
        if (c->version != NULL && strcmp(m->e[i].api_version, c->version) != 0)
            continue;
        replace_set(&m->e[i].set, gw_ssa__reconcile(c->s->schema, m->e[i].set));
    }
}

/*
 * An Update by `manager` as kube runs it: structured-merge-diff's Update for a stand-in
 * manager ("current-operation"), whose fields, without the stripped metadata paths, join the
 * manager's entry; the entry's time is now only when the write took fields.
 */
static void
run_update(const ctx_t *c, const json_t *old, const json_t *new, gw_ssa__managers_t *m,
           const char *manager)
{
    const char *name = manager != NULL && manager[0] ? manager : "unknown";
    gw_fieldset_t *taken, *mine;
    gw_ssa__entry_t *e;
    gw_ssa__cmp_t cmp;

    reconcile_all(c, m);
    smd_update(c, old, new, m, NULL, true, &cmp, NULL);
    taken = gw_fieldset_union(cmp.modified, cmp.added);
    mine = gw_fieldset_difference(taken, c->strip);
    if (!gw_fieldset_empty(mine)) {
        e = gw_ssa__find(m, name, false, c->version, c->sub);
        if (e == NULL)
            e = gw_ssa__add(m, name, false, c->version, c->sub);
        if (gw_fieldset_empty(e->set)) { /* a new entry: mine, without a copy */
            replace_set(&e->set, mine);
            mine = NULL;
        } else {
            replace_set(&e->set, gw_fieldset_union(mine, e->set));
        }
        e->has_time = true;
        e->time = c->now;
    }
    gw_fieldset_free(taken);
    gw_fieldset_free(mine);
    gw_ssa__cmp_clear(&cmp);
}

/* ---- pruning -------------------------------------------------------------------------------- */

static gw_fieldset_t *
named_set_of(const ctx_t *c, const json_t *v)
{
    gw_fieldset_t *set = gw_ssa__to_set(c->s->schema, v), *named;

    named = gw_ssa__named(c->s->schema, set);
    gw_fieldset_free(set);
    return named;
}

/* addBackOwnedItems: what pruning took that some manager (the applier's new set included)
 * owns comes back. ms: merged's named set. */
static json_t *
add_back_owned(const ctx_t *c, const json_t *merged, const gw_fieldset_t *ms, const json_t *pruned,
               const gw_ssa__managers_t *m)
{
    gw_fieldset_t *owned = gw_fieldset_new(), *named, *ps, *keep, *drop;
    json_t *out;

    for (size_t i = 0; i < m->n; i++)
        replace_set(&owned, gw_fieldset_union(owned, m->e[i].set));
    named = gw_ssa__named(c->s->schema, owned);
    ps = named_set_of(c, pruned);
    keep = gw_fieldset_union(ps, named);
    drop = gw_fieldset_difference(ms, keep);
    out = gw_ssa__remove(c->s->schema, merged, drop);
    gw_fieldset_free(owned);
    gw_fieldset_free(named);
    gw_fieldset_free(ps);
    gw_fieldset_free(keep);
    gw_fieldset_free(drop);
    return out;
}

/* addBackDanglingItems: pruning only takes what the applier owned last time. */
static json_t *
add_back_dangling(const ctx_t *c, const json_t *merged, const gw_fieldset_t *ms,
                  const json_t *pruned, const gw_fieldset_t *last)
{
    gw_fieldset_t *ps = named_set_of(c, pruned), *gone, *drop;
    json_t *out;

    gone = gw_fieldset_difference(ms, ps);
    drop = gw_fieldset_intersection(gone, last);
    out = gw_ssa__remove(c->s->schema, merged, drop);
    gw_fieldset_free(ps);
    gw_fieldset_free(gone);
    gw_fieldset_free(drop);
    return out;
}

/* prune: remove what the applier applied last time and no longer applies, unless another
 * manager owns it. Takes merged. */
static json_t *
prune(const ctx_t *c, json_t *merged, const gw_ssa__managers_t *m, const gw_fieldset_t *last)
{
    gw_fieldset_t *named_last, *ms;
    json_t *pruned, *owned, *out;

    if (last == NULL || gw_fieldset_empty(last))
        return merged;
    named_last = gw_ssa__named(c->s->schema, last);
    ms = named_set_of(c, merged);
    pruned = gw_ssa__remove(c->s->schema, merged, named_last);
    owned = add_back_owned(c, merged, ms, pruned, m);
    out = add_back_dangling(c, merged, ms, owned, named_last);
    gw_fieldset_free(named_last);
    gw_fieldset_free(ms);
    json_decref(pruned);
    json_decref(owned);
    json_decref(merged);
    return out;
}

/* ---- Apply ---------------------------------------------------------------------------------- */

/* One pass of the apply below kubectl's upgrade manager. */
typedef struct {
    gw_ssa__managers_t m;
    gw_fieldset_t **conflicts; /* per manager of m, after a conflict */
    json_t *obj;
} run_t;

static void
run_clear(run_t *r)
{
    free_sets(r->conflicts, r->m.n);
    gw_ssa__managers_clear(&r->m);
    json_decref(r->obj);
    *r = (run_t){0};
}

/* skipNonAppliedManager: an object without entries first gets one for what it holds. */
static void
before_first_apply(const ctx_t *c, const json_t *live, gw_ssa__managers_t *m)
{
    json_t *zero = gw_ssa_zero_object(c->s->schema);

    run_update(c, zero, live, m, "before-first-apply");
    gw_ssa__cap(m, MAX_UPDATE_MANAGERS);
    json_decref(zero);
}

/* The applier's set becomes the configuration's fields; what it leaves is pruned. Takes
 * merged. */
static json_t *
own_and_prune(const ctx_t *c, json_t *merged, const json_t *config, gw_ssa__managers_t *m,
              const char *manager)
{
    gw_ssa__entry_t *e = gw_ssa__find(m, manager, true, "", c->sub);
    gw_fieldset_t *last = NULL, *set = gw_ssa__to_set(c->s->schema, config);
    json_t *out;

    if (e == NULL)
        e = gw_ssa__add(m, manager, true, c->version, c->sub);
    last = e->set;
    e->set = gw_fieldset_recursive_difference(set, c->ignored);
    free(e->api_version);
    e->api_version = gw_strdup(c->version);
    out = prune(c, merged, m, last);
    gw_fieldset_free(last);
    gw_fieldset_free(set);
    return out;
}

/* stripMetaManager and managedFieldsUpdater for the applier: the metadata paths go, and the
 * entry's time is now when the object changed. */
static void
finish_entry(const ctx_t *c, gw_ssa__managers_t *m, const char *manager, bool changed)
{
    for (size_t i = 0; i < m->n; i++) {
        gw_ssa__entry_t *e = &m->e[i];
        if (!is_applier(c, e, manager))
            continue;
        replace_set(&e->set, gw_fieldset_difference(e->set, c->strip));
        if (gw_fieldset_empty(e->set)) {
            gw_ssa__remove_at(m, i);
        } else if (changed) {
            e->has_time = true;
            e->time = c->now;
        }
        return;
    }
}

/* Apply below kubectl's manager: 0 with r->obj, 1 with r->conflicts, -1 with res failed. */
static int
apply_once(const ctx_t *c, const json_t *live, const json_t *config, const gw_ssa__managers_t *in,
           const char *manager, bool force, run_t *r, gw_ssa_result_t *res)
{
    gw_ssa__errs_t e = {0};
    gw_ssa__cmp_t cmp;
    json_t *merged;
    bool changed, ok;
    char *why;

    *r = (run_t){0};
    gw_ssa__managers_copy(&r->m, in);
    if (r->m.n == 0)
        before_first_apply(c, live, &r->m);
    reconcile_all(c, &r->m);
    merged = gw_ssa__merge(c->s->schema, live, config, &e);
    if (merged == NULL) {
        why = gw_ssa__errs_text(&e);
        result_fail(res, GW_SSA_FAILED, "failed to merge config: %s", why);
        free(why);
        gw_ssa__errs_clear(&e);
        return -1;
    }
    merged = own_and_prune(c, merged, config, &r->m, manager);
    ok = smd_update(c, live, merged, &r->m, manager, force, &cmp, &r->conflicts);
    gw_ssa__cmp_clear(&cmp);
    if (!ok) {
        json_decref(merged);
        return 1;
    }
    changed = !gw_ssa__equal(live, merged);
    finish_entry(c, &r->m, manager, changed);
    if (changed)
        gw_ssa__go_nulls(c->s->schema, merged);
    r->obj = changed ? merged : json_deep_copy(live);
    if (!changed)
        json_decref(merged);
    return 0;
}

/* ---- kubectl's client-side apply upgrade ---------------------------------------------------- */

static const char *
last_applied_of(const json_t *obj)
{
    const json_t *ann = json_object_get(json_object_get(obj, "metadata"), "annotations");

    return json_string_value(json_object_get(ann, LAST_APPLIED));
}

/* allowedConflictsFromLastApplied: fields of the annotation's configuration whose values live
 * still holds. NULL when there is no usable annotation. */
static gw_fieldset_t *
last_applied_set(const ctx_t *c, const json_t *live)
{
    const char *text = last_applied_of(live), *kind, *av;
    gw_fieldset_t *set = NULL, *a, *b;
    gw_ssa__errs_t e = {0};
    gw_ssa__cmp_t cmp;
    json_t *la = text != NULL && text[0] ? json_loads(text, 0, NULL) : NULL;

    kind = json_string_value(json_object_get(la, "kind"));
    av = json_string_value(json_object_get(la, "apiVersion"));
    if (!json_is_object(la) || kind == NULL || !kind[0] || av == NULL ||
        strcmp(av, c->version) != 0 || !gw_ssa__validate(c->s->schema, la, false, &e) ||
        !gw_ssa__validate(c->s->schema, live, false, &e))
        goto out;
    set = gw_ssa__to_set(c->s->schema, la);
    gw_ssa__compare(c->s->schema, la, live, &cmp);
    a = gw_fieldset_difference(set, cmp.modified);
    b = gw_fieldset_difference(a, cmp.added);
    replace_set(&set, gw_fieldset_difference(b, cmp.removed));
    gw_fieldset_free(a);
    gw_fieldset_free(b);
    gw_ssa__cmp_clear(&cmp);
out:
    gw_ssa__errs_clear(&e);
    json_decref(la);
    return set;
}

/* conflictsDifference: the conflicts the annotation does not allow; whether any is left. */
static bool
narrow(run_t *r, const gw_fieldset_t *allowed)
{
    bool left = false;

    for (size_t i = 0; i < r->m.n; i++) {
        if (r->conflicts[i] == NULL)
            continue;
        replace_set(&r->conflicts[i], gw_fieldset_difference(r->conflicts[i], allowed));
        left = left || !gw_fieldset_empty(r->conflicts[i]);
    }
    return left;
}

/* lastAppliedManager: kubectl's conflicts over fields it applied client-side, with the values
 * live still has, are forced. On success m becomes the new entries. */
static json_t *
apply_upgrading(const ctx_t *c, const json_t *live, const json_t *config, gw_ssa__managers_t *m,
                const char *manager, bool force, gw_ssa_result_t *res)
{
    gw_fieldset_t *allowed = NULL;
    json_t *out = NULL;
    run_t r;
    int rc = apply_once(c, live, config, m, manager, force, &r, res);

    if (rc == 1 && strcmp(manager, "kubectl") == 0)
        allowed = last_applied_set(c, live);
    if (allowed != NULL && !narrow(&r, allowed)) {
        run_clear(&r);
        rc = apply_once(c, live, config, m, manager, true, &r, res);
    }
    gw_fieldset_free(allowed);
    if (rc == 1)
        gw_ssa__conflicts(&r.m, r.conflicts, res);
    if (rc == 0) {
        out = r.obj;
        r.obj = NULL;
        gw_ssa__managers_copy(m, &r.m);
    }
    run_clear(&r);
    return out;
}

static size_t
annotations_size(const json_t *ann)
{
    const char *key;
    json_t *v;
    size_t n = 0;

    json_object_foreach((json_t *)ann, key, v) n += strlen(key) + json_string_length(v);
    return n;
}

/* lastAppliedUpdater: an annotation the result carries becomes the configuration (without the
 * annotation), as Go's JSON encoder writes it; dropped when annotations grow too large. */
static void
update_last_applied(json_t *out, const json_t *config)
{
    json_t *ann = json_object_get(json_object_get(out, "metadata"), "annotations"), *copy;
    const char *cur = last_applied_of(out);
    char *text, *line;

    if (cur == NULL || cur[0] == '\0')
        return;
    copy = json_deep_copy(config);
    json_object_del(json_object_get(json_object_get(copy, "metadata"), "annotations"),
                    LAST_APPLIED);
    text = gw_ssa__go_json(copy);
    line = gw_sprintf("%s\n", text);
    json_object_set_new(ann, LAST_APPLIED, json_string(line));
    if (annotations_size(ann) > ANNOTATIONS_MAX)
        json_object_del(ann, LAST_APPLIED);
    free(text);
    free(line);
    json_decref(copy);
}

/* ---- entry points --------------------------------------------------------------------------- */

static void
store_entries(json_t *obj, const gw_ssa__managers_t *m)
{
    json_t *meta = json_object_get(obj, "metadata"), *mf = gw_ssa__encode(m);

    if (!json_is_object(meta) && mf != NULL) {
        meta = json_object();
        json_object_set_new(obj, "metadata", meta);
    }
    if (mf != NULL)
        json_object_set_new(meta, "managedFields", mf);
    else if (json_is_object(meta))
        json_object_del(meta, "managedFields");
}

static json_t *
without_entries(const json_t *live)
{
    json_t *copy = json_deep_copy(live);

    json_object_del(json_object_get(copy, "metadata"), "managedFields");
    return copy;
}

/* objectGVKNN: "<namespace>/<name>; <group>/<version>, Kind=<Kind>". */
static char *
object_gvknn(const ctx_t *c, const json_t *obj)
{
    const json_t *meta = json_object_get(obj, "metadata");
    const char *ns = json_string_value(json_object_get(meta, "namespace"));
    const char *name = json_string_value(json_object_get(meta, "name"));
    const char *av = json_string_value(json_object_get(obj, "apiVersion"));
    const char *kind = json_string_value(json_object_get(obj, "kind"));

    av = av ? av : c->version;
    kind = kind ? kind : c->s->kind ? c->s->kind : "";
    return gw_sprintf("%s/%s; %s%s, Kind=%s", ns ? ns : "", name ? name : "",
                      strchr(av, '/') ? "" : "/", av, kind);
}

/* The configuration must be an object of the kind (a typed patch object). */
static bool
config_ok(const ctx_t *c, const json_t *config, gw_ssa_result_t *res)
{
    gw_ssa__errs_t e = {0};
    char *why, *gvk;

    if (gw_ssa__validate(c->s->schema, config, false, &e))
        return true;
    why = gw_ssa__errs_text(&e);
    gvk = object_gvknn(c, config);
    result_fail(res, GW_SSA_BAD_REQUEST, "failed to create typed patch object (%s): %s", gvk, why);
    free(why);
    free(gvk);
    gw_ssa__errs_clear(&e);
    return false;
}

json_t *
gw_ssa_apply(const gw_ssa_scope_t *s, const json_t *live, const json_t *config, const char *manager,
             bool force, gw_ssa_result_t *res)
{
    gw_ssa__managers_t m = {0};
    json_t *base = NULL, *out = NULL;
    char err[512];
    ctx_t c;

    *res = (gw_ssa_result_t){0};
    manager = manager != NULL ? manager : "";
    ctx_init(&c, s);
    if (!config_ok(&c, config, res))
        goto out;
    if (gw_ssa__decode(json_object_get(json_object_get(live, "metadata"), "managedFields"), &m, err,
                       sizeof(err)) != 0) {
        result_fail(res, GW_SSA_FAILED, "failed to decode managed fields: %s", err);
        goto out;
    }
    base = live != NULL ? without_entries(live) : gw_ssa_zero_object(s->schema);
    out = apply_upgrading(&c, base, config, &m, manager, force, res);
    if (out != NULL && strcmp(manager, "kubectl") == 0)
        update_last_applied(out, config);
    if (out != NULL)
        store_entries(out, &m);
out:
    json_decref(base);
    gw_ssa__managers_clear(&m);
    ctx_clear(&c);
    return out;
}

/* [{}]: a client asking for the entries to be reset. */
static bool
is_reset(const json_t *mf)
{
    const char *key;
    json_t *v, *e = json_array_get(mf, 0);

    if (json_array_size(mf) != 1 || !json_is_object(e))
        return false;
    json_object_foreach(e, key, v)
    {
        if (!json_is_null(v) && !(json_is_string(v) && json_string_length(v) == 0))
            return false;
    }
    return true;
}

/* decodeLiveOrNew: the object's entries when they decode and it is not a subresource write,
 * else live's; none when they do not decode. */
static void
entries_for_update(const ctx_t *c, const json_t *live, const json_t *meta, gw_ssa__managers_t *m)
{
    const json_t *mine = json_object_get(meta, "managedFields");
    char err[256];

    if (c->sub[0] == '\0') {
        if (is_reset(mine))
            return;
        if (gw_ssa__decode(mine, m, err, sizeof(err)) == 0 && m->n > 0)
            return;
    }
    gw_ssa__decode(json_object_get(json_object_get(live, "metadata"), "managedFields"), m, err,
                   sizeof(err));
}

/* ProbabilisticSkipNonAppliedManager tells a create by the missing uid. */
static bool
is_create(const json_t *live)
{
    const char *uid = json_string_value(json_object_get(json_object_get(live, "metadata"), "uid"));

    return live == NULL || uid == NULL || uid[0] == '\0';
}

/* Objects that do not type-check keep live's entries (UpdateNoErrors). */
static bool
typed(const ctx_t *c, const json_t *old, const json_t *obj)
{
    gw_ssa__errs_t e = {0};
    bool ok = gw_ssa__validate(c->s->schema, old, true, &e) &&
              gw_ssa__validate(c->s->schema, obj, true, &e);

    gw_ssa__errs_clear(&e);
    return ok;
}

void
gw_ssa_update(const gw_ssa_scope_t *s, const json_t *live, json_t *obj, const char *manager)
{
    json_t *meta = json_object_get(obj, "metadata"), *old, *kept;
    gw_ssa__managers_t m = {0};
    ctx_t c;

    if (!json_is_object(meta))
        return;
    ctx_init(&c, s);
    entries_for_update(&c, live, meta, &m);
    json_object_del(meta, "managedFields");
    if (m.n > 0 || is_create(live)) {
        old = live != NULL ? without_entries(live) : gw_ssa_zero_object(s->schema);
        if (typed(&c, old, obj)) {
            run_update(&c, old, obj, &m, manager);
            gw_ssa__cap(&m, MAX_UPDATE_MANAGERS);
            store_entries(obj, &m);
        } else {
            kept = json_object_get(json_object_get(live, "metadata"), "managedFields");
            if (kept != NULL)
                json_object_set_new(meta, "managedFields", json_deep_copy(kept));
        }
        json_decref(old);
    }
    gw_ssa__managers_clear(&m);
    ctx_clear(&c);
}

gw_fieldset_t *
gw_ssa_fieldset(const gw_schema_t *schema, const json_t *obj, char *err, size_t err_len)
{
    gw_ssa__errs_t e = {0};
    char *why;

    if (!gw_ssa__validate(schema, obj, false, &e)) {
        why = gw_ssa__errs_text(&e);
        snprintf(err, err_len, "%s", why);
        free(why);
        gw_ssa__errs_clear(&e);
        return NULL;
    }
    return gw_ssa__to_set(schema, obj);
}
