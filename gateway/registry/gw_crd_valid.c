/*
 * A CustomResourceDefinition's own validation (apiextensions-apiserver
 * pkg/apis/apiextensions/validation/validation.go) over its v1 JSON, reported at the paths of
 * the internal form kube validates (gw_crd_valid.h): the name, group, scope, names, versions,
 * the per-version and top-level schemas (gw_crd_valid_schema.c), subresources, printer columns,
 * selectable fields, conversion (gw_crd_valid_conversion.c), status,
 * storedVersions, API approval of protected groups, and what an update may change.
 */
#include "gw_crd_valid.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_crd_valid_int.h"
#include "gw_json_strings.h"
#include "gw_names.h"
#include "gw_webhook_client_valid.h"

/* Everything kube's validationOptions carry for one validation. */
typedef struct {
    gw_crd__opts_t schema;
    bool require_openapi_schema;
    bool require_recognized_review;
    bool require_immutable_names;
} opts_t;

/* The internal form's view of a v1 spec: which per-version fields are the same in every
 * version, and so are the spec's own (spec.validation, ...) instead of the versions'. */
typedef struct {
    const json_t *spec, *versions;
    bool same_schema, same_sub, same_cols, same_sel;
    const json_t *validation, *subresources, *columns, *selectable;
} view_t;

#define MEMBER(o, k) gw_crd__get((o), (k))
#define STR(o, k) gw_crd__str((o), (k))

static void
invalid_str(gw_field_errors_t *e, const char *field, const char *value, const char *detail)
{
    gw_ferr_invalid_str(e, field, value, detail);
}

/* ---- the internal form -------------------------------------------------------------------- */

/* A per-version member as Go's semantic equality sees it: null and empty lists are unset. */
static const json_t *
per_version(const json_t *v, const char *key)
{
    const json_t *x = MEMBER(v, key);

    return json_is_array(x) && json_array_size(x) == 0 ? NULL : x;
}

static bool
all_same(const json_t *versions, const char *key)
{
    const json_t *first = per_version(json_array_get(versions, 0), key);
    size_t i;
    json_t *v;

    json_array_foreach(versions, i, v)
    {
        const json_t *x = per_version(v, key);
        if ((x == NULL) != (first == NULL) || (x != NULL && !json_equal(x, first)))
            return false;
    }
    return true;
}

static void
view_init(view_t *w, const json_t *spec)
{
    const json_t *v0;

    memset(w, 0, sizeof(*w));
    w->spec = spec;
    w->versions = MEMBER(spec, "versions");
    if (json_array_size(w->versions) == 0)
        return;
    v0 = json_array_get(w->versions, 0);
    w->same_schema = all_same(w->versions, "schema");
    w->same_sub = all_same(w->versions, "subresources");
    w->same_cols = all_same(w->versions, "additionalPrinterColumns");
    w->same_sel = w->same_schema && all_same(w->versions, "selectableFields");
    w->validation = w->same_schema ? per_version(v0, "schema") : NULL;
    w->subresources = w->same_sub ? per_version(v0, "subresources") : NULL;
    w->columns = w->same_cols ? per_version(v0, "additionalPrinterColumns") : NULL;
    w->selectable = w->same_sel ? per_version(v0, "selectableFields") : NULL;
}

static bool
status_enabled(const json_t *subresources)
{
    return MEMBER(subresources, "status") != NULL;
}

static bool
any_status_enabled(const view_t *w)
{
    size_t i;
    json_t *v;

    if (w->same_sub)
        return status_enabled(w->subresources);
    json_array_foreach(w->versions, i, v)
    {
        if (status_enabled(MEMBER(v, "subresources")))
            return true;
    }
    return false;
}

/* Whether any schema of the spec satisfies pred (HasSchemaWith). */
static bool
any_schema(const json_t *spec, bool (*pred)(const json_t *))
{
    size_t i;
    json_t *v;

    json_array_foreach(MEMBER(spec, "versions"), i, v)
    {
        const json_t *s = MEMBER(MEMBER(v, "schema"), "openAPIV3Schema");
        if (s != NULL && pred(s))
            return true;
    }
    return false;
}

/* ---- Go's %#v of spec.versions, as kube shows it in its versions errors ------------------- */

/* Pointers print as addresses in Go; a fixed one stands for any set pointer here. Column and
 * selectable field lists that are set print as `{...}` instead of their members. */

static char *
go_version(const json_t *v)
{
    const json_t *dw = MEMBER(v, "deprecationWarning");
    char *name = gw_ferr_quote(STR(v, "name")), *out;

    out =
        gw_sprintf("apiextensions.CustomResourceDefinitionVersion{Name:%s, Served:%s, Storage:%s, "
                   "Deprecated:%s, DeprecationWarning:(*string)(%s), "
                   "Schema:(*apiextensions.CustomResourceValidation)(%s), "
                   "Subresources:(*apiextensions.CustomResourceSubresources)(%s), "
                   "AdditionalPrinterColumns:[]apiextensions.CustomResourceColumnDefinition%s, "
                   "SelectableFields:[]apiextensions.SelectableField%s}",
                   name, json_is_true(json_object_get(v, "served")) ? "true" : "false",
                   json_is_true(json_object_get(v, "storage")) ? "true" : "false",
                   json_is_true(json_object_get(v, "deprecated")) ? "true" : "false",
                   dw ? "0xc000000000" : "nil", MEMBER(v, "schema") ? "0xc000000000" : "nil",
                   MEMBER(v, "subresources") ? "0xc000000000" : "nil",
                   per_version(v, "additionalPrinterColumns") ? "{...}" : "(nil)",
                   per_version(v, "selectableFields") ? "{...}" : "(nil)");
    free(name);
    return out;
}

static void
invalid_versions(gw_field_errors_t *e, const json_t *versions, const char *detail)
{
    char *out = gw_strdup("[]apiextensions.CustomResourceDefinitionVersion{"), *next, *m;
    size_t i;
    json_t *v;

    json_array_foreach(versions, i, v)
    {
        char *one = go_version(v);
        next = gw_sprintf("%s%s%s", out, i > 0 ? ", " : "", one);
        free(one);
        free(out);
        out = next;
    }
    if (versions == NULL) /* absent: a nil slice */
        m = gw_sprintf("Invalid value: []apiextensions.CustomResourceDefinitionVersion(nil): %s",
                       detail);
    else
        m = gw_sprintf("Invalid value: %s}: %s", out, detail);
    gw_ferr_add(e, "FieldValueInvalid", "spec.versions", m);
    free(out);
    free(m);
}

/* ---- names -------------------------------------------------------------------------------- */

static void
name_1035(gw_field_errors_t *e, const char *path, const char *value, const char *prefix)
{
    char *lower = gw_strdup(value), *d;
    const char *msg;

    for (char *c = lower; *c != '\0'; c++)
        *c = (char)tolower((unsigned char)*c);
    msg = gw_valid_dns1035_label(prefix != NULL ? lower : value);
    if (value[0] != '\0' && msg != NULL) {
        d = prefix != NULL ? gw_sprintf("%s%s", prefix, msg) : gw_strdup(msg);
        invalid_str(e, path, value, d);
        free(d);
    }
    free(lower);
}

static void
each_1035(gw_field_errors_t *e, const json_t *arr, const char *path)
{
    size_t i;
    json_t *x;

    json_array_foreach(arr, i, x)
    {
        const char *s = json_is_string(x) ? json_string_value(x) : "";
        const char *msg = gw_valid_dns1035_label(s);
        if (msg != NULL) {
            char *p = gw_sprintf("%s[%zu]", path, i);
            invalid_str(e, p, s, msg);
            free(p);
        }
    }
}

/* ValidateCustomResourceDefinitionNames. */
static void
validate_names(const json_t *names, const char *path, gw_field_errors_t *e)
{
    static const char *mixed = "may have mixed case, but should otherwise match: ";
    char *p;

#define AT(child) (free(p), p = gw_sprintf("%s.%s", path, child))
    p = NULL;
    name_1035(e, AT("plural"), STR(names, "plural"), NULL);
    name_1035(e, AT("singular"), STR(names, "singular"), NULL);
    name_1035(e, AT("kind"), STR(names, "kind"), mixed);
    name_1035(e, AT("listKind"), STR(names, "listKind"), mixed);
    each_1035(e, MEMBER(names, "shortNames"), AT("shortNames"));
    if (STR(names, "kind")[0] != '\0' && strcmp(STR(names, "kind"), STR(names, "listKind")) == 0)
        invalid_str(e, AT("listKind"), STR(names, "listKind"),
                    "kind and listKind may not be the same");
    each_1035(e, MEMBER(names, "categories"), AT("categories"));
#undef AT
    free(p);
}

static void
names_required(const json_t *names, gw_field_errors_t *e)
{
    static const char *const required[] = {"plural", "singular", "kind", "listKind"};

    for (size_t i = 0; i < 4; i++) {
        if (STR(names, required[i])[0] == '\0') {
            char *p = gw_sprintf("spec.names.%s", required[i]);
            gw_ferr_required(e, p, NULL);
            free(p);
        }
    }
}

/* ---- printer columns and subresources ----------------------------------------------------- */

/* validateSimpleJSONPath: true when s is one. */
static bool
simple_json_path(const char *s, const char *path, gw_field_errors_t *e)
{
    if (s[0] == '\0') {
        invalid_str(e, path, s, "must not be empty");
        return false;
    }
    if (s[0] != '.') {
        invalid_str(e, path, s, "must be a simple json path starting with .");
        return false;
    }
    return true;
}

static void
column(const json_t *col, const char *path, gw_field_errors_t *e)
{
    static const char *const types[] = {"boolean", "date", "integer", "number", "string", NULL};
    static const char *const formats[] = {"byte",  "date",  "date-time", "double", "float",
                                          "int32", "int64", "password",  NULL};
    const char *t = STR(col, "type"), *f = STR(col, "format"), *jp = STR(col, "jsonPath");
    bool ok = false;
    char *p = gw_sprintf("%s.name", path);

    if (STR(col, "name")[0] == '\0')
        gw_ferr_required(e, p, NULL);
    free(p);
    p = gw_sprintf("%s.type", path);
    for (size_t i = 0; types[i] != NULL; i++)
        ok |= strcmp(t, types[i]) == 0;
    if (t[0] == '\0')
        gw_ferr_required(e, p, "must be one of boolean,date,integer,number,string");
    else if (!ok)
        invalid_str(e, p, t, "must be one of boolean,date,integer,number,string");
    free(p);
    ok = false;
    for (size_t i = 0; formats[i] != NULL; i++)
        ok |= strcmp(f, formats[i]) == 0;
    p = gw_sprintf("%s.format", path);
    if (f[0] != '\0' && !ok)
        invalid_str(e, p, f,
                    "must be one of byte,date,date-time,double,float,int32,int64,password");
    free(p);
    p = gw_sprintf("%s.JSONPath", path);
    if (jp[0] == '\0')
        gw_ferr_required(e, p, NULL);
    else
        simple_json_path(jp, p, e);
    free(p);
}

static void
columns(const json_t *cols, const char *path, gw_field_errors_t *e)
{
    size_t i;
    json_t *c;

    json_array_foreach(cols, i, c)
    {
        char *p = gw_sprintf("%s[%zu]", path, i);
        column(c, p, e);
        free(p);
    }
}

static void
scale_path(const json_t *scale, const char *key, const char *prefix, const char *path,
           gw_field_errors_t *e)
{
    const char *s = STR(scale, key);
    char *p = gw_sprintf("%s.scale.%s", path, key), *d;

    if (s[0] == '\0') {
        gw_ferr_required(e, p, NULL);
    } else if (simple_json_path(s, p, e) && strncmp(s, prefix, strlen(prefix)) != 0) {
        d = gw_sprintf("should be a json path under %.*s", (int)strlen(prefix) - 1, prefix);
        invalid_str(e, p, s, d);
        free(d);
    }
    free(p);
}

/* ValidateCustomResourceDefinitionSubresources. */
static void
subresources(const json_t *sub, const char *path, gw_field_errors_t *e)
{
    const json_t *scale = MEMBER(sub, "scale");
    const char *ls = STR(scale, "labelSelectorPath");
    char *p;

    if (scale == NULL)
        return;
    scale_path(scale, "specReplicasPath", ".spec.", path, e);
    scale_path(scale, "statusReplicasPath", ".status.", path, e);
    if (ls[0] == '\0')
        return;
    p = gw_sprintf("%s.scale.labelSelectorPath", path);
    if (simple_json_path(ls, p, e) && strncmp(ls, ".spec.", 6) != 0 &&
        strncmp(ls, ".status.", 8) != 0)
        invalid_str(e, p, ls, "should be a json path under either .spec or .status");
    free(p);
}

/* ---- versions ----------------------------------------------------------------------------- */

/* validateDeprecationWarning. */
static void
deprecation_warning(const json_t *v, const char *path, gw_field_errors_t *e)
{
    const json_t *dw = MEMBER(v, "deprecationWarning");
    const char *s = json_is_string(dw) ? json_string_value(dw) : "";
    char *p, *d;

    if (dw == NULL)
        return;
    p = gw_sprintf("%s.deprecationWarning", path);
    if (!json_is_true(json_object_get(v, "deprecated"))) {
        invalid_str(e, p, s, "can only be set for deprecated versions");
        free(p);
        return;
    }
    if (strlen(s) > 256)
        invalid_str(e, p, s, "must be <= 256 characters long");
    if (s[0] == '\0')
        invalid_str(e, p, s, "must not be an empty string");
    for (size_t i = 0; s[i] != '\0'; i++) {
        if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f) {
            d = gw_sprintf("must only contain printable UTF-8 characters; non-printable character "
                           "found at index %zu",
                           i);
            invalid_str(e, p, s, d);
            free(d);
            break;
        }
    }
    free(p);
}

static void
version_selectable(const json_t *sel, const json_t *schema, const char *path, gw_field_errors_t *e)
{
    const json_t *root = MEMBER(schema, "openAPIV3Schema");
    char *p = gw_sprintf("%s.selectableFields", path);

    if (root == NULL)
        gw_ferr_add(e, "FieldValueInvalid", p,
                    "Invalid value: \"\": selectableFields may only be set when "
                    "version.schema.openAPIV3Schema is not included");
    else
        gw_crd__validate_selectable(sel, root, p, e);
    free(p);
}

/* validateCustomResourceDefinitionVersion, on what the internal form leaves in the version. */
static void
version(const view_t *w, const json_t *v, size_t i, const opts_t *o, gw_field_errors_t *e)
{
    const json_t *schema = w->same_schema ? NULL : MEMBER(v, "schema");
    const json_t *sub = w->same_sub ? NULL : MEMBER(v, "subresources");
    const json_t *sel = w->same_sel ? NULL : per_version(v, "selectableFields");
    char *path = gw_sprintf("spec.versions[%zu]", i), *p;
    bool status = w->same_sub ? status_enabled(w->subresources) : status_enabled(sub);

    deprecation_warning(v, path, e);
    p = gw_sprintf("%s.schema", path);
    gw_crd__validate_validation(schema, status, &o->schema, p, e);
    free(p);
    p = gw_sprintf("%s.subresources", path);
    subresources(sub, p, e);
    free(p);
    if (!w->same_cols) {
        p = gw_sprintf("%s.additionalPrinterColumns", path);
        columns(MEMBER(v, "additionalPrinterColumns"), p, e);
        free(p);
    }
    if (sel != NULL)
        version_selectable(sel, schema, path, e);
    free(path);
}

static void
versions(const view_t *w, const opts_t *o, gw_field_errors_t *e)
{
    json_t *seen = json_object(), *v;
    bool unique = true;
    size_t i, storage = 0;

    json_array_foreach(w->versions, i, v)
    {
        const char *name = STR(v, "name"), *msg = gw_valid_dns1035_label(name);
        storage += json_is_true(json_object_get(v, "storage"));
        unique &= json_object_get(seen, name) == NULL;
        json_object_set_new(seen, name, json_true());
        if (msg != NULL) {
            char *p = gw_sprintf("spec.versions[%zu].name", i);
            invalid_str(e, p, name, msg);
            free(p);
        }
        version(w, v, i, o, e);
    }
    json_decref(seen);
    if (!unique)
        invalid_versions(e, w->versions, "must contain unique version names");
    if (storage != 1)
        invalid_versions(e, w->versions, "must have exactly one version marked as storage version");
}

/* ---- spec --------------------------------------------------------------------------------- */

static void
group_and_scope(const json_t *spec, gw_field_errors_t *e)
{
    static const char *const scopes[] = {"Cluster", "Namespaced", NULL};
    const char *group = STR(spec, "group"), *scope = STR(spec, "scope"), *msg;

    if (group[0] == '\0')
        gw_ferr_required(e, "spec.group", NULL);
    else if ((msg = gw_valid_dns1123_subdomain(group)) != NULL)
        invalid_str(e, "spec.group", group, msg);
    else if (strchr(group, '.') == NULL)
        invalid_str(e, "spec.group", group, "should be a domain with at least one dot");
    if (scope[0] == '\0')
        gw_ferr_required(e, "spec.scope", NULL);
    else if (strcmp(scope, "Cluster") != 0 && strcmp(scope, "Namespaced") != 0)
        gw_ferr_not_supported(e, "spec.scope", scope, scopes);
}

static void
schemas_required(const view_t *w, const opts_t *o, bool preserve, gw_field_errors_t *e)
{
    size_t i;
    json_t *v;

    if (MEMBER(w->validation, "openAPIV3Schema") != NULL)
        return;
    json_array_foreach(w->versions, i, v)
    {
        char *p = gw_sprintf("spec.versions[%zu].schema.openAPIV3Schema", i);
        bool has = MEMBER(MEMBER(v, "schema"), "openAPIV3Schema") != NULL;
        if (o->require_openapi_schema && !has)
            gw_ferr_required(e, p, "schemas are required");
        else if (!o->require_openapi_schema && !preserve && !has &&
                 json_is_true(json_object_get(v, "served")))
            gw_ferr_required(e, p, "because otherwise all fields are pruned");
        free(p);
    }
}

/* The spec's own (top-level) fields of the internal form. */
static void
top_level(const view_t *w, const opts_t *o, gw_field_errors_t *e)
{
    gw_crd__validate_validation(w->validation, any_status_enabled(w), &o->schema, "spec.validation",
                                e);
    subresources(w->subresources, "spec.subresources", e);
    columns(w->columns, "spec.additionalPrinterColumns", e);
    if (w->selectable == NULL)
        return;
    if (w->validation == NULL)
        gw_ferr_add(e, "FieldValueInvalid", "spec.selectableFields",
                    "Invalid value: \"\": selectableFields may only be set when "
                    "validations.schema is included");
    else
        gw_crd__validate_selectable(w->selectable, MEMBER(w->validation, "openAPIV3Schema"),
                                    "spec.selectableFields", e);
}

/* validateCustomResourceDefinitionSpec. */
static void
validate_spec(const json_t *spec, opts_t o, gw_field_errors_t *e)
{
    bool preserve = json_is_true(json_object_get(spec, "preserveUnknownFields"));
    const char *v0, *msg;
    view_t w;

    view_init(&w, spec);
    group_and_scope(spec, e);
    if (!preserve)
        o.schema.require_structural = true; /* pruning needs structural schemas */
    schemas_required(&w, &o, preserve, e);
    if (any_schema(spec, gw_crd__has_defaults)) {
        o.schema.require_structural = true;
        if (preserve)
            gw_ferr_invalid(e, "spec.preserveUnknownFields", json_true(),
                            "must be false in order to use defaults in the schema");
    }
    if (any_schema(spec, gw_crd__has_extensions))
        o.schema.require_structural = true;
    versions(&w, &o, e);
    v0 = STR(json_array_get(w.versions, 0), "name");
    if (json_array_size(w.versions) > 0 && v0[0] != '\0' &&
        (msg = gw_valid_dns1035_label(v0)) != NULL)
        invalid_str(e, "spec.version", v0, msg);
    names_required(MEMBER(spec, "names"), e);
    validate_names(MEMBER(spec, "names"), "spec.names", e);
    top_level(&w, &o, e);
    gw_crd__validate_conversion(spec, o.require_recognized_review, e);
}

/* ---- status, approval, preserveUnknownFields ---------------------------------------------- */

void
gw_crd_definition_validate_status(const json_t *crd, gw_field_errors_t *errs)
{
    validate_names(MEMBER(MEMBER(crd, "status"), "acceptedNames"), "status.acceptedNames", errs);
}

/* ValidateCustomResourceDefinitionStoredVersions. */
static void
stored_versions(const json_t *crd, gw_field_errors_t *e)
{
    const json_t *stored = MEMBER(MEMBER(crd, "status"), "storedVersions");
    const json_t *vers = MEMBER(MEMBER(crd, "spec"), "versions");
    const char *path = "status.storedVersions";
    size_t i, j;
    json_t *v;

    if (json_array_size(stored) == 0) {
        gw_crd__invalid_strings(e, path, stored, "must have at least one stored version");
        return;
    }
    json_array_foreach(vers, i, v)
    {
        if (json_is_true(json_object_get(v, "storage")) &&
            !gw_json_strings_has(stored, STR(v, "name"))) {
            char *d = gw_sprintf("must have the storage version %s", STR(v, "name"));
            gw_crd__invalid_strings(e, path, stored, d);
            free(d);
        }
    }
    json_array_foreach(stored, i, v)
    {
        const char *s = json_is_string(v) ? json_string_value(v) : "";
        bool listed = false, last = true;
        for (j = 0; j < json_array_size(vers); j++)
            listed |= strcmp(STR(json_array_get(vers, j), "name"), s) == 0;
        for (j = i + 1; j < json_array_size(stored); j++)
            last &= !json_equal(json_array_get(stored, j), v);
        if (listed || !last)
            continue;
        char *p = gw_sprintf("%s[%zu]", path, i);
        char *d = gw_sprintf("missing from spec.versions; %s was previously a storage version, and "
                             "must remain in spec.versions until a storage migration ensures no "
                             "data remains persisted in %s and removes %s from "
                             "status.storedVersions",
                             s, s, s);
        invalid_str(e, p, s, d);
        free(p);
        free(d);
    }
}

typedef enum { APPROVAL_INVALID, APPROVED, APPROVAL_BYPASSED, APPROVAL_MISSING } approval_t;

static approval_t
approval(const json_t *crd)
{
    const char *a = json_string_value(
        json_object_get(json_object_get(json_object_get(crd, "metadata"), "annotations"),
                        GW_CRD_APPROVAL_ANNOTATION));

    if (a == NULL || a[0] == '\0')
        return APPROVAL_MISSING;
    if (strncmp(a, "unapproved", 10) == 0)
        return APPROVAL_BYPASSED;
    return gw_webhook_request_uri_with_host(a) ? APPROVED : APPROVAL_INVALID;
}

static bool
protected_group(const char *g)
{
    size_t n = strlen(g);

    return strcmp(g, "k8s.io") == 0 || (n > 7 && strcmp(g + n - 7, ".k8s.io") == 0) ||
           strcmp(g, "kubernetes.io") == 0 || (n > 14 && strcmp(g + n - 14, ".kubernetes.io") == 0);
}

/* validateAPIApproval. */
static void
api_approval(const json_t *crd, const json_t *old, gw_field_errors_t *e)
{
    const char *field = "metadata.annotations[" GW_CRD_APPROVAL_ANNOTATION "]";
    const char *value = json_string_value(
        json_object_get(json_object_get(json_object_get(crd, "metadata"), "annotations"),
                        GW_CRD_APPROVAL_ANNOTATION));
    approval_t st = approval(crd);

    if (!protected_group(STR(MEMBER(crd, "spec"), "group")))
        return;
    if (old != NULL && approval(old) == st)
        return;
    if (st == APPROVAL_MISSING)
        gw_ferr_required(e, field,
                         "protected groups must have approval annotation "
                         "\"" GW_CRD_APPROVAL_ANNOTATION "\", see "
                         "https://github.com/kubernetes/enhancements/pull/1111");
    else if (st == APPROVAL_INVALID)
        invalid_str(
            e, field, value != NULL ? value : "",
            "protected groups must have approval annotation "
            "\"" GW_CRD_APPROVAL_ANNOTATION "\" with either a URL or a reason starting "
            "with \"unapproved\", see https://github.com/kubernetes/enhancements/pull/1111");
}

/* validatePreserveUnknownFields: v1 cannot turn it on (a CRD that had it may keep it). */
static void
preserve_unknown_fields(const json_t *crd, const json_t *old, gw_field_errors_t *e)
{
    if (old != NULL && json_is_true(json_object_get(MEMBER(old, "spec"), "preserveUnknownFields")))
        return;
    if (json_is_true(json_object_get(MEMBER(crd, "spec"), "preserveUnknownFields")))
        gw_ferr_invalid(e, "spec.preserveUnknownFields", json_true(),
                        "cannot set to true, set x-kubernetes-preserve-unknown-fields to true in "
                        "spec.versions[*].schema instead");
}

/* ---- entry points ------------------------------------------------------------------------- */

static const opts_t create_opts = {
    .schema = {.require_valid_type = true,
               .require_structural = true,
               .require_atomic_set = true,
               .require_map_list_checks = true},
    .require_openapi_schema = true,
    .require_recognized_review = true,
};

/* Where a name error of `field` goes among the metadata errors already in errs: after the
 * last one of that field, else after `floor` (kube's nameFn messages follow its own checks of
 * the same field; generateName's come before name's). */
static size_t
after_field(const gw_field_errors_t *errs, const char *field, size_t floor)
{
    size_t i, at = floor;
    json_t *c;

    json_array_foreach(errs->causes, i, c)
    {
        if (strcmp(STR(c, "field"), field) == 0)
            at = i + 1;
    }
    return at;
}

/* The name check of the CRD's nameFn (the generic one is ObjectMeta's): <plural>.<group>. */
static void
name_rule(const json_t *crd, gw_field_errors_t *errs)
{
    const json_t *meta = json_object_get(crd, "metadata"), *spec = MEMBER(crd, "spec");
    const char *name = STR(meta, "name"), *gen = STR(meta, "generateName");
    char *want = gw_sprintf("%s.%s", STR(MEMBER(spec, "names"), "plural"), STR(spec, "group"));
    const char *msg = "must be spec.names.plural+\".\"+spec.group";
    gw_field_errors_t one = {0};
    size_t at = after_field(errs, "metadata.generateName", 0);

    if (errs->causes == NULL)
        errs->causes = json_array();
    if (gen[0] != '\0' && strcmp(gen, want) != 0) {
        invalid_str(&one, "metadata.generateName", gen, msg);
        json_array_insert(errs->causes, at++, json_array_get(one.causes, 0));
        gw_ferr_clear(&one);
    }
    if (name[0] != '\0' && strcmp(name, want) != 0) {
        invalid_str(&one, "metadata.name", name, msg);
        json_array_insert(errs->causes, after_field(errs, "metadata.name", at),
                          json_array_get(one.causes, 0));
        gw_ferr_clear(&one);
    }
    if (json_array_size(errs->causes) == 0)
        gw_ferr_clear(errs);
    free(want);
}

void
gw_crd_definition_validate(const json_t *crd, gw_field_errors_t *errs)
{
    name_rule(crd, errs);
    validate_spec(MEMBER(crd, "spec"), create_opts, errs);
    gw_crd_definition_validate_status(crd, errs);
    stored_versions(crd, errs);
    api_approval(crd, NULL, errs);
    preserve_unknown_fields(crd, NULL, errs);
}

/* Whether the stored CRD's Established condition is True. */
static bool
established(const json_t *crd)
{
    size_t i;
    json_t *c;

    json_array_foreach(MEMBER(MEMBER(crd, "status"), "conditions"), i, c)
    {
        if (strcmp(STR(c, "type"), "Established") == 0)
            return strcmp(STR(c, "status"), "True") == 0;
    }
    return false;
}

static bool
all_versions_have_schema(const json_t *spec)
{
    size_t i;
    json_t *v;

    json_array_foreach(MEMBER(spec, "versions"), i, v)
    {
        if (MEMBER(MEMBER(v, "schema"), "openAPIV3Schema") == NULL)
            return false;
    }
    return true;
}

/* What the stored CRD relaxes: rules its schemas already break are not tightened. */
static opts_t
update_opts(const json_t *old)
{
    const json_t *spec = MEMBER(old, "spec"), *conv = MEMBER(spec, "conversion");
    const json_t *crv = MEMBER(MEMBER(conv, "webhook"), "conversionReviewVersions");
    bool recognized = json_array_size(crv) == 0;
    opts_t o = {0};
    size_t i;
    json_t *v;

    json_array_foreach(crv, i, v)
    {
        recognized |=
            gw_crd__accepted_review_version(json_is_string(v) ? json_string_value(v) : "");
    }
    o.require_recognized_review = conv == NULL || recognized;
    o.require_immutable_names = established(old);
    o.require_openapi_schema = all_versions_have_schema(spec);
    o.schema.require_valid_type = !any_schema(spec, gw_crd__has_invalid_types);
    o.schema.require_structural = !any_schema(spec, gw_crd__non_structural);
    o.schema.require_atomic_set = !any_schema(spec, gw_crd__has_non_atomic_set);
    o.schema.require_map_list_checks = !any_schema(spec, gw_crd__has_invalid_map_list);
    return o;
}

static void
immutable(const json_t *a, const json_t *b, const char *key, const char *field,
          gw_field_errors_t *e)
{
    if (strcmp(STR(a, key), STR(b, key)) != 0)
        invalid_str(e, field, STR(a, key), "field is immutable");
}

void
gw_crd_definition_validate_update(const json_t *crd, const json_t *old, gw_field_errors_t *errs)
{
    const json_t *spec = MEMBER(crd, "spec"), *old_spec = MEMBER(old, "spec");
    opts_t o = update_opts(old);

    validate_spec(spec, o, errs);
    if (o.require_immutable_names) {
        immutable(spec, old_spec, "scope", "spec.scope", errs);
        immutable(MEMBER(spec, "names"), MEMBER(old_spec, "names"), "kind", "spec.names.kind",
                  errs);
    }
    immutable(spec, old_spec, "group", "spec.group", errs);
    immutable(MEMBER(spec, "names"), MEMBER(old_spec, "names"), "plural", "spec.names.plural",
              errs);
    gw_crd_definition_validate_status(crd, errs);
    stored_versions(crd, errs);
    api_approval(crd, old, errs);
    preserve_unknown_fields(crd, old, errs);
}
