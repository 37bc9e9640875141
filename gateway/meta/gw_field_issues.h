#ifndef GATEWAY_META_GW_FIELD_ISSUES_H
#define GATEWAY_META_GW_FIELD_ISSUES_H

/*
 * What a body's decoding finds wrong with its fields, before any kind's validation runs:
 * unknown and duplicate fields, values of the wrong type, missing required fields. The YAML
 * reader reports keys set twice and field validation (gateway/validation/gw_fieldval.h) the
 * rest; the registry turns them into warnings or errors as fieldValidation asks. Here, below
 * both, so that each may fill one list.
 */

#include <stddef.h>

typedef enum {
    GW_FIELD_UNKNOWN,   /* `unknown field "spec.foo"` */
    GW_FIELD_DUPLICATE, /* `duplicate field "metadata.name"` */
    GW_FIELD_INVALID,   /* a type error: the value does not fit the schema */
    GW_FIELD_REQUIRED,  /* a required field is missing */
    GW_FIELD_DECODE,    /* a built-in kind's value its Go type cannot hold: kube-apiserver's
                           decoding fails, a 400 BadRequest (it reports the first one) */
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

#endif
