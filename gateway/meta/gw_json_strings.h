#ifndef GATEWAY_META_GW_JSON_STRINGS_H
#define GATEWAY_META_GW_JSON_STRINGS_H

/* JSON arrays of strings, as the API carries groups, audiences, finalizers and extra values:
 * built from C string lists, searched, and read back into C. Thread: any. */

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

/** A new JSON array of the n strings of v (v may be NULL when n is 0). Caller decrefs. */
json_t *gw_json_strings_(const char *const *v, size_t n);

/** A new JSON array of the strings of the NULL-terminated list v ([] when v is NULL). Caller
 *  decrefs. */
json_t *gw_json_strings_nt_(const char *const *v);

/* C does not convert char ** to const char *const * on its own: these take either, and
 * nothing else. */
#define GW_STRV_(v)                                                                                \
    _Generic((v),                                                                                  \
        char **: (const char *const *)(v),                                                         \
        char *const *: (const char *const *)(v),                                                   \
        const char **: (const char *const *)(v),                                                   \
        const char *const *: (v))
#define gw_json_strings(v, n) gw_json_strings_(GW_STRV_(v), (n))
#define gw_json_strings_nt(v) gw_json_strings_nt_(GW_STRV_(v))

/** Whether the array arr (any JSON value; non-arrays hold nothing) holds the string s. */
bool gw_json_strings_has(const json_t *arr, const char *s);

/**
 * Copies of the string members of arr, in order, skipping members of other types: a new
 * NULL-terminated array of new strings (caller frees each and the array), with the count in
 * *n. An empty list (not NULL) when arr is not an array.
 */
char **gw_json_strings_dup(const json_t *arr, size_t *n);

/** The object member `name` of `o`, created (as {}, replacing what is there) when missing or
 *  not an object. Borrowed from o. */
json_t *gw_json_child(json_t *o, const char *name);

/** The array at o.<a>.<b> (e.g. "metadata", "finalizers"), or NULL. Borrowed from o. */
json_t *gw_json_strings_at(const json_t *o, const char *a, const char *b);

/** The number of entries of the array at o.<a>.<b> (0 when it is missing). */
size_t gw_json_strings_count_at(const json_t *o, const char *a, const char *b);

/** Remove every `s` from the string array at o.<a>.<b>; returns whether any was removed. */
bool gw_json_strings_remove_at(json_t *o, const char *a, const char *b, const char *s);

/** Append `s` to the string array at o.<a>.<b> (created when missing) unless it is there;
 *  returns whether it was added. */
bool gw_json_strings_add_at(json_t *o, const char *a, const char *b, const char *s);

#endif
