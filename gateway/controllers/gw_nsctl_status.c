/*
 * The namespace's deletion conditions, as kube's namespace controller words them
 * (pkg/controller/namespace/deletion/status_condition_utils.go): five condition types, each
 * either its "ok" variant (status False) or what went wrong or is left (status True). A
 * condition keeps its lastTransitionTime while its status stays the same.
 */
#include "gw_nsctl_int.h"

#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_ctl_int.h"

/* The types this controller maintains, in kube's order, with their "ok" reason and message. */
static const struct {
    const char *type, *reason, *message;
} ok_conditions[] = {
    {"NamespaceDeletionDiscoveryFailure", "ResourcesDiscovered",
     "All resources successfully discovered"},
    {"NamespaceDeletionGroupVersionParsingFailure", "ParsedGroupVersions",
     "All legacy kube types successfully parsed"},
    {"NamespaceDeletionContentFailure", "ContentDeleted",
     "All content successfully deleted, may be waiting on finalization"},
    {"NamespaceContentRemaining", "ContentRemoved", "All content successfully removed"},
    {"NamespaceFinalizersRemaining", "ContentHasNoFinalizers",
     "All content-preserving finalizers finished"},
};

#define N_CONDITIONS (sizeof(ok_conditions) / sizeof(ok_conditions[0]))

static int
by_text(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* "<prefix><items sorted, joined by ", ">"; frees the items. */
static char *
joined(const char *prefix, char **items, size_t n)
{
    char *out = gw_strdup(prefix);

    qsort(items, n, sizeof(*items), by_text);
    for (size_t i = 0; i < n; i++) {
        char *next = gw_sprintf("%s%s%s", out, i > 0 ? ", " : "", items[i]);
        free(out);
        free(items[i]);
        out = next;
    }
    return out;
}

/* "Some resources are remaining: configmaps. has 2 resource instances, ..." (kube prints
 * resource "." group, so core resources end in a dot). NULL when nothing is left. */
static char *
resources_message(const gw_nsctl_t *c, const size_t *remaining)
{
    char **items = gw_calloc(c->n_res > 0 ? c->n_res : 1, sizeof(*items));
    size_t n = 0;
    char *msg;

    for (size_t i = 0; i < c->n_res; i++) {
        if (remaining[i] > 0)
            items[n++] = gw_sprintf("%s.%s has %zu resource instances", c->res[i].resource,
                                    c->res[i].group, remaining[i]);
    }
    msg = n > 0 ? joined("Some resources are remaining: ", items, n) : NULL;
    free(items);
    return msg;
}

/* "Some content in the namespace has finalizers remaining: x.io/y in 1 resource instances". */
static char *
finalizers_message(const json_t *finalizers)
{
    size_t n = json_object_size(finalizers), i = 0;
    char **items = gw_calloc(n > 0 ? n : 1, sizeof(*items));
    const char *name;
    json_t *count;
    char *msg;

    json_object_foreach((json_t *)finalizers, name, count)
    {
        items[i++] =
            gw_sprintf("%s in %lld resource instances", name, (long long)json_integer_value(count));
    }
    msg =
        n > 0 ? joined("Some content in the namespace has finalizers remaining: ", items, n) : NULL;
    free(items);
    return msg;
}

/* "Failed to delete all resource types, 1 remaining: configmaps.: etcd unavailable". */
static char *
failures_message(const json_t *failures)
{
    size_t n = json_array_size(failures);
    char **items = gw_calloc(n > 0 ? n : 1, sizeof(*items));
    char *prefix = gw_sprintf("Failed to delete all resource types, %zu remaining: ", n);
    char *msg;

    for (size_t i = 0; i < n; i++)
        items[i] = gw_strdup(json_string_value(json_array_get(failures, i)));
    msg = n > 0 ? joined(prefix, items, n) : NULL;
    free(items);
    free(prefix);
    return msg;
}

static json_t *
condition(const char *type, bool problem, const char *reason, const char *message)
{
    char now[32];

    gw_time_now(now);
    return json_pack("{s:s, s:s, s:s, s:s, s:s}", "type", type, "status",
                     problem ? "True" : "False", "lastTransitionTime", now, "reason", reason,
                     "message", message);
}

json_t *
gw_nsctl__conditions(const gw_nsctl_t *c, const size_t *remaining, const json_t *finalizers,
                     const json_t *failures)
{
    char *bad[N_CONDITIONS] = {NULL, NULL, failures_message(failures),
                               resources_message(c, remaining), finalizers_message(finalizers)};
    static const char *const bad_reasons[N_CONDITIONS] = {
        NULL, NULL, "ContentDeletionFailed", "SomeResourcesRemain", "SomeFinalizersRemain"};
    json_t *out = json_array();

    for (size_t i = 0; i < N_CONDITIONS; i++) {
        if (bad[i] != NULL)
            json_array_append_new(out,
                                  condition(ok_conditions[i].type, true, bad_reasons[i], bad[i]));
        else
            json_array_append_new(out,
                                  condition(ok_conditions[i].type, false, ok_conditions[i].reason,
                                            ok_conditions[i].message));
        free(bad[i]);
    }
    return out;
}

static json_t *
find_condition(const json_t *list, const char *type)
{
    for (size_t i = 0; i < json_array_size(list); i++) {
        json_t *c = json_array_get(list, i);
        const char *t = json_string_value(json_object_get(c, "type"));
        if (t != NULL && strcmp(t, type) == 0)
            return c;
    }
    return NULL;
}

static bool
same(const json_t *a, const json_t *b, const char *field)
{
    return json_equal(json_object_get(a, field), json_object_get(b, field));
}

/* Bring one condition of the list up to `want`; whether anything changed. */
static bool
merge_one(json_t *list, const json_t *want)
{
    json_t *old = find_condition(list, json_string_value(json_object_get(want, "type")));
    static const char *const fields[] = {"status", "reason", "message"};
    bool changed = false;

    if (old == NULL) {
        json_array_append_new(list, json_deep_copy(want));
        return true;
    }
    if (!same(old, want, "status"))
        json_object_set(old, "lastTransitionTime", json_object_get(want, "lastTransitionTime"));
    for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
        if (!same(old, want, fields[i])) {
            json_object_set(old, fields[i], json_object_get(want, fields[i]));
            changed = true;
        }
    }
    return changed;
}

bool
gw_nsctl__merge_conditions(json_t *ns, const json_t *want)
{
    json_t *status = gw_json_child(ns, "status");
    json_t *list = json_object_get(status, "conditions");
    bool changed = false;

    if (!json_is_array(list)) {
        list = json_array();
        json_object_set_new(status, "conditions", list);
    }
    for (size_t i = 0; i < json_array_size(want); i++)
        changed |= merge_one(list, json_array_get(want, i));
    return changed;
}
