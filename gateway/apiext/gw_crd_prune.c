/* kube's structural pruning of a custom object: field validation's walk (gw_fieldval.h), which
 * removes what the schema does not know, keeps preserve-unknown subtrees and the type and
 * object metadata of resources, and walks metadata against ObjectMeta. */
#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_crd_schema.h"
#include "gw_fieldval.h"

static int
path_cmp(const void *x, const void *y)
{
    return strcmp(((const gw_field_issue_t *)x)->path, ((const gw_field_issue_t *)y)->path);
}

/* Whether path lies in a resource's metadata (the root's, an embedded one's): those members
   kube's ObjectMeta coercion drops, after pruning. */
static bool
in_metadata(const char *path)
{
    for (const char *p = strstr(path, "metadata."); p != NULL; p = strstr(p + 1, "metadata."))
        if (p == path || p[-1] == '.' || p[-1] == ']')
            return true;
    return false;
}

/* The unknown-field issues in or out of metadata, sorted by path. */
static size_t
collect(const gw_field_issues_t *found, bool metadata, gw_field_issue_t *into)
{
    size_t n = 0;
    for (size_t i = 0; i < found->n; i++)
        if (found->items[i].kind == GW_FIELD_UNKNOWN &&
            in_metadata(found->items[i].path) == metadata)
            into[n++] = found->items[i];
    if (n > 1)
        qsort(into, n, sizeof(*into), path_cmp);
    return n;
}

/* kube reports the pruned paths sorted, then (sorted too) those its ObjectMeta coercion
   dropped from the root's and embedded resources' metadata; type errors are validation's. */
static void
report(gw_field_issues_t *found, gw_field_issues_t *issues)
{
    gw_field_issue_t *order = gw_calloc(found->n + 1, sizeof(*order));
    size_t n = collect(found, false, order);
    n += collect(found, true, order + n);
    for (size_t i = 0; issues != NULL && i < n; i++)
        gw_field_issues_add(issues, GW_FIELD_UNKNOWN, order[i].path, order[i].message);
    free(order);
    gw_field_issues_clear(found);
}

void
gw_crd_prune(const gw_schema_t *root, json_t *obj, gw_field_issues_t *issues)
{
    gw_field_issues_t found = {0};
    if (root == NULL || !json_is_object(obj))
        return;
    gw_fieldval_check(obj, root, &found);
    report(&found, issues);
}
