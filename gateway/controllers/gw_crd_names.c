/* The naming decision for one CRD, as kube's NamingConditionController computes it: which of the
 * requested names it may hold, and what NamesAccepted and Established say then. No I/O. */
#include "gw_crd_naming.h"

#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_crd_int.h"
#include "gw_json_strings.h"

static const char *
str_at(const json_t *o, const char *name)
{
    const char *s = json_string_value(json_object_get(o, name));

    return s != NULL ? s : "";
}

static void
take(json_t *set, const char *name)
{
    json_object_set_new(set, name, json_true());
}

void
gw_crd_naming_hold(const json_t *names, json_t *resources, json_t *kinds)
{
    const json_t *shorts = json_object_get(names, "shortNames");

    take(resources, str_at(names, "plural"));
    take(resources, str_at(names, "singular"));
    for (size_t i = 0; i < json_array_size(shorts); i++)
        if (json_is_string(json_array_get(shorts, i)))
            take(resources, json_string_value(json_array_get(shorts, i)));
    take(kinds, str_at(names, "kind"));
    take(kinds, str_at(names, "listKind"));
}

void
gw_crd_naming_builtin(const gw_catalog_t *catalog, const char *group, json_t *resources,
                      json_t *kinds)
{
    size_t n = catalog != NULL ? gw_catalog_count(catalog) : 0;

    for (size_t i = 0; i < n; i++) {
        const gw_resource_t *r = gw_catalog_at(catalog, i);
        if (r->custom != NULL || strcmp(r->group, group) != 0)
            continue;
        take(resources, r->name);
        if (r->singular != NULL)
            take(resources, r->singular);
        for (size_t j = 0; j < r->n_short_names; j++)
            take(resources, r->short_names[j]);
        take(kinds, r->kind);
        if (r->list_kind != NULL)
            take(kinds, r->list_kind);
    }
}

/* kube's equalToAcceptedOrFresh: NULL when the name may be held, else the conflict's text. */
static char *
conflict(const char *requested, const char *accepted, const json_t *used)
{
    if (strcmp(requested, accepted) == 0 || json_object_get(used, requested) == NULL)
        return NULL;
    return gw_sprintf("\"%s\" is already in use", requested);
}

static void
set_false(json_t *cond, const char *reason, char *message)
{
    json_object_set_new(cond, "status", json_string("False"));
    json_object_set_new(cond, "reason", json_string(reason));
    json_object_set_new(cond, "message", json_string(message));
    free(message);
}

/* One string name: the new value is the requested one, or the accepted one on a conflict. */
static void
one_name(const json_t *req, const json_t *acc, const char *member, const json_t *used,
         const char *reason, json_t *names, json_t *cond)
{
    char *err = conflict(str_at(req, member), str_at(acc, member), used);

    if (err != NULL)
        set_false(cond, reason, err);
    else
        json_object_set_new(names, member, json_string(str_at(req, member)));
}

static bool
strings_equal(const json_t *a, const json_t *b)
{
    if (json_array_size(a) != json_array_size(b))
        return false;
    for (size_t i = 0; i < json_array_size(a); i++)
        if (!json_equal(json_array_get(a, i), json_array_get(b, i)))
            return false;
    return true;
}

/* utilerrors.NewAggregate(...).Error(): one message alone, several within brackets, each
 * distinct message once. */
static char *
aggregate(const json_t *msgs)
{
    size_t n = json_array_size(msgs);
    char *out = gw_strdup(n > 1 ? "[" : "");
    json_t *seen = json_object();

    for (size_t i = 0; i < n; i++) {
        const char *m = json_string_value(json_array_get(msgs, i));
        if (json_object_get(seen, m) != NULL)
            continue;
        char *next = gw_sprintf("%s%s%s", out, json_object_size(seen) > 0 ? ", " : "", m);
        free(out);
        out = next;
        take(seen, m);
    }
    json_decref(seen);
    char *done = gw_sprintf("%s%s", out, n > 1 ? "]" : "");
    free(out);
    return done;
}

static void
short_names(const json_t *req, const json_t *acc, const json_t *used, json_t *names, json_t *cond)
{
    const json_t *want = json_object_get(req, "shortNames");
    const json_t *held = json_object_get(acc, "shortNames");
    json_t *errs = json_array();

    if (strings_equal(want, held)) {
        json_decref(errs);
        return;
    }
    for (size_t i = 0; i < json_array_size(want); i++) {
        const char *s = json_string_value(json_array_get(want, i));
        char *err = s != NULL && !gw_json_strings_has(held, s) ? conflict(s, "", used) : NULL;
        if (err != NULL)
            json_array_append_new(errs, json_string(err));
        free(err);
    }
    if (json_array_size(errs) > 0)
        set_false(cond, "ShortNamesConflict", aggregate(errs));
    else if (json_array_size(want) > 0)
        json_object_set(names, "shortNames", (json_t *)want);
    else
        json_object_del(names, "shortNames");
    json_decref(errs);
}

/* status.acceptedNames in the order of kube's type, without the members it omits when empty. */
static json_t *
ordered(const json_t *work)
{
    static const char *const members[] = {"plural", "singular", "shortNames",
                                          "kind",   "listKind", "categories"};
    json_t *names = json_object();

    for (size_t i = 0; i < sizeof(members) / sizeof(members[0]); i++) {
        const json_t *v = json_object_get(work, members[i]);
        bool always = strcmp(members[i], "plural") == 0 || strcmp(members[i], "kind") == 0;
        if (json_is_array(v) ? json_array_size(v) > 0 : str_at(work, members[i])[0] != '\0')
            json_object_set(names, members[i], (json_t *)v);
        else if (always)
            json_object_set_new(names, members[i], json_string(""));
    }
    return names;
}

/* What the naming step leaves in Established: the condition as it is, or, while it is not
 * true, Installing once the names are accepted (the establishing step follows). */
static json_t *
established(const json_t *crd, const json_t *accepted)
{
    const json_t *old = gw_crd__condition(crd, "Established");
    json_t *e = old != NULL
                    ? json_deep_copy(old)
                    : json_pack("{s:s,s:s,s:s,s:s}", "type", "Established", "status", "False",
                                "reason", "NotAccepted", "message", "not all names are accepted");
    bool names_ok = strcmp(str_at(accepted, "status"), "True") == 0;

    if (strcmp(str_at(e, "status"), "True") != 0 && names_ok) {
        json_decref(e);
        e = json_pack("{s:s,s:s,s:s,s:s}", "type", "Established", "status", "False", "reason",
                      "Installing", "message", "the initial names have been accepted");
    }
    return e;
}

void
gw_crd_naming_compute(const json_t *crd, const json_t *resources, const json_t *kinds,
                      gw_crd_names_t *out)
{
    const json_t *req = json_object_get(json_object_get(crd, "spec"), "names");
    const json_t *acc = json_object_get(json_object_get(crd, "status"), "acceptedNames");
    json_t *work = json_is_object(acc) ? json_deep_copy(acc) : json_object();
    json_t *cond = json_pack("{s:s,s:s}", "type", "NamesAccepted", "status", "Unknown");

    /* each name on its own, so that the status holds the best match possible */
    one_name(req, acc, "plural", resources, "PluralConflict", work, cond);
    one_name(req, acc, "singular", resources, "SingularConflict", work, cond);
    short_names(req, acc, resources, work, cond);
    one_name(req, acc, "kind", kinds, "KindConflict", work, cond);
    one_name(req, acc, "listKind", kinds, "ListKindConflict", work, cond);
    if (json_object_get(req, "categories") != NULL)
        json_object_set(work, "categories", json_object_get(req, "categories"));
    else
        json_object_del(work, "categories");
    if (strcmp(str_at(cond, "status"), "Unknown") == 0) {
        json_object_set_new(cond, "status", json_string("True"));
        json_object_set_new(cond, "reason", json_string("NoConflicts"));
        json_object_set_new(cond, "message", json_string("no conflicts found"));
    }
    out->names = ordered(work);
    out->accepted = cond;
    out->established = established(crd, cond);
    json_decref(work);
}

void
gw_crd_names_clear(gw_crd_names_t *n)
{
    json_decref(n->names);
    json_decref(n->accepted);
    json_decref(n->established);
    *n = (gw_crd_names_t){0};
}

bool
gw_crd_naming_settled(const json_t *crd)
{
    static const char *const strings[] = {"plural", "singular", "kind", "listKind"};
    static const char *const lists[] = {"shortNames", "categories"};
    const json_t *req = json_object_get(json_object_get(crd, "spec"), "names");
    const json_t *acc = json_object_get(json_object_get(crd, "status"), "acceptedNames");

    for (size_t i = 0; i < 4; i++)
        if (strcmp(str_at(req, strings[i]), str_at(acc, strings[i])) != 0)
            return false;
    for (size_t i = 0; i < 2; i++)
        if (!strings_equal(json_object_get(req, lists[i]), json_object_get(acc, lists[i])))
            return false;
    return true;
}
