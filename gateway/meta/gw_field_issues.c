#include "gw_field_issues.h"

#include <stdlib.h>

#include "gw_alloc.h"

void
gw_field_issues_clear(gw_field_issues_t *is)
{
    for (size_t i = 0; i < is->n; i++) {
        free(is->items[i].path);
        free(is->items[i].message);
    }
    free(is->items);
    is->items = NULL;
    is->n = 0;
}

void
gw_field_issues_add(gw_field_issues_t *is, gw_field_issue_kind_t kind, const char *path,
                    const char *message)
{
    /* grow by doubling: n is a power of two exactly when the array is full */
    if ((is->n & (is->n - 1)) == 0)
        is->items = gw_realloc(is->items, (is->n ? is->n * 2 : 1) * sizeof(*is->items));
    is->items[is->n++] = (gw_field_issue_t){kind, gw_strdup(path), gw_strdup(message)};
}
