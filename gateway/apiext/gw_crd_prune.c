/* kube's structural pruning of a custom object: field validation's walk (gw_fieldval.h), which
 * removes what the schema does not know, keeps preserve-unknown subtrees and the type and
 * object metadata of resources, and walks metadata against ObjectMeta. */
#include <stdlib.h>
#include <string.h>

#include "gw_crd_schema.h"
#include "gw_fieldval.h"

static int
path_cmp(const void *x, const void *y)
{
    return strcmp(((const gw_field_issue_t *)x)->path, ((const gw_field_issue_t *)y)->path);
}

static bool
in_metadata(const char *path)
{
    return strncmp(path, "metadata.", 9) == 0;
}

/* kube reports the pruned paths sorted, then those ObjectMeta's decoding dropped from the
   root's metadata. */
static void
report(gw_field_issues_t *found, gw_field_issues_t *issues)
{
    size_t n = 0;
    for (size_t i = 0; i < found->n; i++)
        if (found->items[i].kind == GW_FIELD_UNKNOWN && !in_metadata(found->items[i].path))
            found->items[n++] = found->items[i];
        else if (found->items[i].kind != GW_FIELD_UNKNOWN) /* type errors: validation's */
            free(found->items[i].path), free(found->items[i].message);
    size_t sorted = n;
    for (size_t i = 0; i < found->n; i++)
        if (found->items[i].kind == GW_FIELD_UNKNOWN && in_metadata(found->items[i].path))
            found->items[n++] = found->items[i];
    qsort(found->items, sorted, sizeof(*found->items), path_cmp);
    for (size_t i = 0; i < n; i++) {
        if (issues != NULL)
            gw_field_issues_add(issues, GW_FIELD_UNKNOWN, found->items[i].path,
                                found->items[i].message);
        free(found->items[i].path);
        free(found->items[i].message);
    }
    free(found->items);
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
