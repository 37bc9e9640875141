/* Validation errors joined as kube's aggregate of field errors prints them. */
#include "gw_errlist.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "gw_alloc.h"

void
gw_errlist_add(gw_errlist_t *e, const char *fmt, ...)
{
    va_list ap;
    char *msg;

    va_start(ap, fmt);
    if (vasprintf(&msg, fmt, ap) < 0)
        abort();
    va_end(ap);
    char *joined = e->text != NULL ? gw_sprintf("%s, %s", e->text, msg) : gw_strdup(msg);
    free(msg);
    free(e->text);
    e->text = joined;
    e->n++;
}

void
gw_errlist_print(gw_errlist_t *e, const char *prefix, char *err, size_t err_len)
{
    snprintf(err, err_len, e->n > 1 ? "%s[%s]" : "%s%s", prefix, e->text != NULL ? e->text : "");
    gw_errlist_clear(e);
}

void
gw_errlist_clear(gw_errlist_t *e)
{
    free(e->text);
    *e = (gw_errlist_t){0};
}
