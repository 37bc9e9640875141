#ifndef GATEWAY_CODEC_GW_FIELDVAL_H
#define GATEWAY_CODEC_GW_FIELDVAL_H

/*
 * Field validation against a structural schema (spec 4.8): unknown fields, duplicate fields
 * and type errors. Unknown fields are pruned from the document (as kube-apiserver drops
 * them); the caller turns the findings into warnings (fieldValidation=Warn), a 400
 * (Strict), or ignores them (Ignore). Type errors and missing required fields are always
 * errors (422 Invalid with causes).
 */

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "gw_catalog.h"

typedef enum {
    GW_FIELD_UNKNOWN,   /* `unknown field "spec.foo"` */
    GW_FIELD_DUPLICATE, /* `duplicate field "metadata.name"` */
    GW_FIELD_INVALID,   /* a type error: the value does not fit the schema */
    GW_FIELD_REQUIRED,  /* a required field is missing */
} gw_field_issue_kind_t;

typedef struct {
    gw_field_issue_kind_t kind;
    char *path;    /* kube-style field path: "spec.containers[0].image", "metadata.labels" */
    char *message; /* kube-apiserver's text for it */
} gw_field_issue_t;

typedef struct {
    gw_field_issue_t *items;
    size_t n;
} gw_field_issues_t;

/** Free the issues' strings and array (the struct itself is the caller's). */
void gw_field_issues_clear(gw_field_issues_t *is);

/** Append one issue (path and message are copied). Thread: any. */
void gw_field_issues_add(gw_field_issues_t *is, gw_field_issue_kind_t kind, const char *path,
                         const char *message);

/**
 * Find duplicate keys in raw JSON text (Jansson keeps the last value silently): appends a
 * GW_FIELD_DUPLICATE issue per duplicate, with its path. Returns 0, or GW_EINVAL if the text
 * is not valid JSON. Thread: any. Fuzzed.
 */
int gw_json_find_duplicates(const char *json, size_t len, gw_field_issues_t *out);

/**
 * Walk doc against schema: append unknown fields (and remove them from doc), type errors and
 * missing required fields. Embedded resources and preserve-unknown subtrees are not pruned.
 * Thread: any.
 */
void gw_fieldval_check(json_t *doc, const gw_schema_t *schema, gw_field_issues_t *out);

#endif
