#ifndef GATEWAY_BASE_GW_ERRLIST_H
#define GATEWAY_BASE_GW_ERRLIST_H

#include <stddef.h>

/*
 * Errors gathered while validating an administrator's file, printed as kube prints an
 * aggregate of field errors: "e1" alone, "[e1, e2]" for several. Thread: the owner's.
 */
typedef struct {
    char *text; /* the errors so far, joined by ", "; NULL for none */
    int n;
} gw_errlist_t;

/** Add one error, printf-style. */
void gw_errlist_add(gw_errlist_t *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/** Write prefix and the errors into err as kube prints them; e is emptied. */
void gw_errlist_print(gw_errlist_t *e, const char *prefix, char *err, size_t err_len);

/** Drop the errors. */
void gw_errlist_clear(gw_errlist_t *e);

#endif
