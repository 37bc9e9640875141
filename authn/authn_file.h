#ifndef AUTHN_AUTHN_FILE_H
#define AUTHN_AUTHN_FILE_H

/* Reading the files and encodings the authenticators' configurations point at. */

#include <stddef.h>

/**
 * The whole file at `path` as a new NUL-terminated string (caller frees) of *len bytes, or NULL
 * with errno set. Files over 16 MiB are refused (EFBIG). Thread: any.
 */
char *authn__file_read(const char *path, size_t *len);

/**
 * `name` relative to the folder `dir` (NULL or "": as it is); an absolute name stays as it is.
 * Returns a new string (caller frees). Thread: any.
 */
char *authn__file_resolve(const char *dir, const char *name);

/**
 * Standard base64 (with padding; as Go's StdEncoding, newlines are skipped) decoded into a new
 * NUL-terminated string (caller frees) of *len bytes, or NULL when the text is not base64.
 * Thread: any.
 */
char *authn__base64_decode(const char *text, size_t *len);

#endif
