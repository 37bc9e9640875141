#ifndef AUTHN_AUTHN_INT_H
#define AUTHN_AUTHN_INT_H

/* Internals shared by the files of authn/. */

#include <stddef.h>

#include "authn.h"

/** One line of the static token file. */
typedef struct {
    char *token;
    char *name;
    char *uid;
    char **groups;
    size_t n_groups;
} authn__token_t;

/** The static token file, parsed. */
typedef struct {
    authn__token_t *tokens;
    size_t n;
} authn__tokens_t;

/**
 * Parse the contents of a token file (CSV as Go's encoding/csv reads it: quoted fields with
 * "" escapes, CRLF or LF) into *out. Returns 0, or GW_EINVAL with a one-line reason (naming
 * `path` and the line) in err. Thread: any.
 */
int authn__tokens_parse(const char *path, const char *text, size_t len, authn__tokens_t *out,
                        char *err, size_t err_len);

/** The entry for `token`, or NULL. Thread: any. */
const authn__token_t *authn__tokens_find(const authn__tokens_t *t, const char *token);

void authn__tokens_free(authn__tokens_t *t);

/**
 * The user a verified client certificate names (kube's CommonNameUserConversion: the subject's
 * CN is the name, each O a group), or NULL when the subject has no CN (the certificate then
 * does not authenticate anyone). Caller frees. Thread: any.
 */
authn_user_t *authn__x509_user(X509 *cert);

/** A new user with a copy of name and uid and no groups. */
authn_user_t *authn__user_new(const char *name, const char *uid);

/** Append a copy of group to u's groups. */
void authn__user_add_group(authn_user_t *u, const char *group);

#endif
