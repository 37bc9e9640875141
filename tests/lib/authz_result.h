#ifndef TESTS_LIB_AUTHZ_RESULT_H
#define TESTS_LIB_AUTHZ_RESULT_H

/* What an authorization decision answered, as the authz unit tests record it. Header-only. */

#include <stdio.h>

#include "authz.h"

typedef struct {
    int calls; /* how many times the callback fired (0: still waiting) */
    authz_decision_t decision;
    char reason[256];
    char error[1024]; /* "" for none */
} result_t;

/** An authz_done_cb recording into the result_t at ctx. */
static inline void
on_done(authz_decision_t decision, const char *reason, const char *error, void *ctx)
{
    result_t *r = ctx;
    r->calls++;
    r->decision = decision;
    snprintf(r->reason, sizeof(r->reason), "%s", reason);
    snprintf(r->error, sizeof(r->error), "%s", error != NULL ? error : "");
}

#endif
