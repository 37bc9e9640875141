/*
 * Request bodies and write options, checked the way kube-apiserver's decoding does before a
 * handler gets to the object: options, apiVersion/kind, field validation (unknown, duplicate
 * and mistyped fields), the namespace in the body.
 */
#include "gw_registry_int.h"

#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_convert.h"
#include "gw_err.h"
#include "gw_fieldval.h"
#include "gw_negotiate.h"
#include "gw_yaml.h"
#include "gw_json.h"

/* kube's limit on a field manager's name (FieldManagerMaxLength). */
#define FIELD_MANAGER_MAX 128

/* The length of the UTF-8 sequence at s (1 for a byte that starts none), and its code point. */
static size_t
utf8_rune(const unsigned char *s, unsigned *cp)
{
    size_t n = (s[0] >> 5) == 6 ? 2 : (s[0] >> 4) == 14 ? 3 : (s[0] >> 3) == 30 ? 4 : 1;

    *cp = n == 1 ? s[0] : s[0] & (0x7f >> n);
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80) {
            *cp = 0xfffd; /* Go reads a broken sequence as one U+FFFD byte */
            return 1;
        }
        *cp = *cp << 6 | (s[i] & 0x3f);
    }
    return n;
}

/* Go's unicode.IsPrint, closely enough for names: no C0/C1 controls, DEL or line separators. */
static bool
rune_printable(unsigned cp)
{
    return cp >= 0x20 && cp != 0x7f && !(cp >= 0x80 && cp < 0xa0) && cp != 0xad && cp != 0x2028 &&
           cp != 0x2029;
}

/* ValidateFieldManager: at most 128 bytes, every character printable. */
static void
check_field_manager(const char *m, gw_field_errors_t *errs)
{
    unsigned cp;
    char detail[64];
    size_t n;

    if (strlen(m) > FIELD_MANAGER_MAX)
        gw_ferr_too_long(errs, "fieldManager", FIELD_MANAGER_MAX);
    for (size_t i = 0; m[i] != '\0'; i += n) {
        n = utf8_rune((const unsigned char *)m + i, &cp);
        if (rune_printable(cp))
            continue;
        snprintf(detail, sizeof(detail), "invalid character U+%04X (at position %zu)", cp, i);
        gw_ferr_invalid_str(errs, "fieldManager", m, detail);
    }
}

/* kube's manager for a write without fieldManager: the User-Agent up to its first '/', its
 * unprintable characters dropped, cut at 128 bytes ("kubectl/v1.32.4 (linux)" -> "kubectl"). */
static const char *
manager_from_user_agent(gw_req_t *r)
{
    const char *ua = gw_req_header(r, "User-Agent");
    char *out = gw_arena_calloc(r->arena, FIELD_MANAGER_MAX + 1);
    size_t len = 0, n;
    unsigned cp;

    for (size_t i = 0; ua != NULL && ua[i] != '\0' && ua[i] != '/'; i += n) {
        n = utf8_rune((const unsigned char *)ua + i, &cp);
        if (!rune_printable(cp))
            continue;
        if (len + n > FIELD_MANAGER_MAX)
            break;
        memcpy(out + len, ua + i, n);
        len += n;
    }
    return out;
}

/* force: Go's strconv.ParseBool words; anything else is a 400 as kube's query decoding says. */
static bool
read_force(gw_req_t *r, gw_write_opts_t *o, gw_fail_t *f)
{
    static const char *const yes[] = {"1", "t", "T", "true", "TRUE", "True", NULL};
    static const char *const no[] = {"0", "f", "F", "false", "FALSE", "False", NULL};
    const char *v = gw_req_query(r, "force");

    if (v == NULL)
        return true;
    o->force_given = true;
    for (size_t i = 0; yes[i] != NULL; i++) {
        if (strcmp(v, yes[i]) == 0 || strcmp(v, no[i]) == 0) {
            o->force = strcmp(v, yes[i]) == 0;
            return true;
        }
    }
    gw_registry__fail(r, f, 400, "BadRequest", NULL,
                      "strconv.ParseBool: parsing \"%s\": invalid syntax", v);
    return false;
}

bool
gw_registry__write_opts(gw_req_t *r, const char *options_kind, gw_write_opts_t *o, gw_fail_t *f)
{
    static const char *const fv_values[] = {"", "Ignore", "Strict", "Warn", NULL};
    const char *dry = gw_req_query(r, "dryRun"), *fv = gw_req_query(r, "fieldValidation");
    const char *manager = gw_req_query(r, "fieldManager");
    gw_field_errors_t errs = {0};

    *o = (gw_write_opts_t){.field_validation = GW_FV_WARN};
    /* A bare ?dryRun (no value) is taken as no dry run, as the API documents it. */
    if (dry != NULL && strcmp(dry, "All") == 0) {
        o->dry_run = true;
    } else if (dry != NULL && dry[0] != '\0') {
        /* kube shows the []string value with Go's %#v. */
        char *msg =
            gw_sprintf("Unsupported value: []string{\"%s\"}: supported values: \"All\"", dry);
        gw_ferr_add(&errs, "FieldValueNotSupported", "dryRun", msg);
        free(msg);
    }
    if (fv != NULL && strcmp(fv, "Ignore") == 0)
        o->field_validation = GW_FV_IGNORE;
    else if (fv != NULL && strcmp(fv, "Strict") == 0)
        o->field_validation = GW_FV_STRICT;
    else if (fv != NULL && fv[0] != '\0' && strcmp(fv, "Warn") != 0)
        gw_ferr_not_supported(&errs, "fieldValidation", fv, fv_values);
    o->manager_given = manager != NULL && manager[0] != '\0';
    if (o->manager_given)
        check_field_manager(manager, &errs);
    o->field_manager = o->manager_given ? manager : manager_from_user_agent(r);
    if (strcmp(options_kind, "PatchOptions") == 0 && !read_force(r, o, f)) {
        gw_ferr_clear(&errs);
        return false;
    }
    if (gw_ferr_count(&errs) == 0)
        return true;
    gw_registry__fail_invalid(r, f, "meta.k8s.io", options_kind, "", &errs);
    return false;
}

/* The Go package of kube's internal type for a group: its first label ("core" for the core
 * group and events.k8s.io, whose Event is core's). */
static const char *
internal_package(gw_req_t *r, const char *group)
{
    if (group[0] == '\0' || strcmp(group, "events.k8s.io") == 0)
        return "core";
    if (strcmp(group, "internal.apiserver.k8s.io") == 0)
        return "apiserverinternal";
    return gw_arena_strndup(r->arena, group, strcspn(group, "."));
}

/* A body of another kind than the URL's: a kind kube knows decodes, and then cannot be
 * converted to the request's internal type; an unknown one does not decode at all. */
static void
fail_other_kind(gw_req_t *r, const char *av, const char *kind, const char *want_av,
                const char *want_kind, gw_fail_t *f)
{
    const char *slash = strchr(av, '/');
    const char *ver = slash ? slash + 1 : av;
    const char *group = slash ? gw_arena_strndup(r->arena, av, (size_t)(slash - av)) : "";
    const char *want_slash = strchr(want_av, '/');
    const char *want_group =
        want_slash ? gw_arena_strndup(r->arena, want_av, (size_t)(want_slash - want_av)) : "";

    if (gw_catalog_kind_schema(gw_catalog_builtin(), group, ver, kind) != NULL)
        gw_registry__fail(r, f, 400, "BadRequest", NULL,
                          "%s in version \"%s\" cannot be handled as a %s: converting (%s.%s) to "
                          "(%s.%s): unknown conversion",
                          kind, ver, want_kind, ver, kind, internal_package(r, want_group),
                          want_kind);
    else
        gw_registry__fail(r, f, 400, "BadRequest", NULL,
                          "%s in version \"%s\" cannot be handled as a %s: no kind \"%s\" is "
                          "registered for version \"%s\"",
                          kind, ver, want_kind, kind, av);
}

/* apiVersion and kind: kube decodes into the request's kind and fills in what is absent. */
static bool
check_type(gw_req_t *r, json_t *obj, const char *want_av, const char *want_kind, gw_fail_t *f)
{
    const char *av = json_string_value(json_object_get(obj, "apiVersion"));
    const char *kind = json_string_value(json_object_get(obj, "kind"));
    const char *body_av = av != NULL && av[0] != '\0' ? av : want_av;

    /* a kind that does not decode into the request's fails before its apiVersion is looked at */
    if (kind != NULL && kind[0] != '\0' && strcmp(kind, want_kind) != 0) {
        fail_other_kind(r, body_av, kind, want_av, want_kind, f);
        return false;
    }
    if (av != NULL && av[0] != '\0' && strcmp(av, want_av) != 0) {
        gw_registry__fail(r, f, 400, "BadRequest", NULL,
                          "the API version in the data (%s) does not match the expected API "
                          "version (%s)",
                          av, want_av);
        return false;
    }
    json_object_set_new(obj, "apiVersion", json_string(want_av));
    json_object_set_new(obj, "kind", json_string(want_kind));
    return true;
}

/* "<a>, <b>" of the issues of one kind. */
static char *
join_issues(const gw_field_issues_t *is, gw_field_issue_kind_t k1, gw_field_issue_kind_t k2)
{
    char *out = NULL;

    for (size_t i = 0; i < is->n; i++) {
        char *next;
        if (is->items[i].kind != k1 && is->items[i].kind != k2)
            continue;
        next = gw_sprintf("%s%s%s", out ? out : "", out ? ", " : "", is->items[i].message);
        free(out);
        out = next;
    }
    return out;
}

/* Keys set twice in the body: JSON text is scanned; YAML is read again for its duplicates
 * (the decoded document keeps only the later values). */
static void
find_duplicates(gw_req_t *r, const char *raw, size_t len, gw_field_issues_t *is)
{
    char err[256];
    json_t *again;

    if (gw_json_find_duplicates(raw, len, is) == 0)
        return;
    gw_field_issues_clear(is);
    if (gw_negotiate_body(gw_req_header(r, "Content-Type"), false) != GW_BODY_YAML)
        return;
    again = gw_yaml_to_json_dups(raw, len, is, err, sizeof(err));
    json_decref(again);
}

/* Whether a required field a write leaves out is kube's finding: not under status (kube
 * decodes a status into Go's zeros and checks its ranges, never its presence, so what a write
 * leaves out of it is completed, not refused), nor an events.k8s.io Event's eventTime outside
 * a create (ValidateEventUpdate only keeps it unchanged: events written through core v1 have
 * none), nor in a kind whose validation reports what it requires itself (CRDs). */
static bool
required_here(gw_req_t *r, const char *path)
{
    if (strncmp(path, "status.", 7) == 0 || gw_registry__strategy(r->resource)->own_required)
        return false;
    return strcmp(path, "eventTime") != 0 || strcmp(r->info.verb, "create") == 0 ||
           strcmp(r->resource->group, "events.k8s.io") != 0;
}

/* kube decodes first (a value its Go type cannot hold is a 400 naming the first), then
 * refuses unknown and duplicate fields under Strict (all of them, in one 400), and validates
 * (missing and, for custom kinds, mistyped fields join the 422 of the other findings). */
static bool
report_issues(gw_req_t *r, const gw_field_issues_t *is, const char *av, const char *kind,
              gw_fieldval_mode_t mode, bool warn, gw_field_errors_t *errs, gw_fail_t *f)
{
    const char *ver = strchr(av, '/') ? strchr(av, '/') + 1 : av;
    char *strict =
        mode == GW_FV_STRICT ? join_issues(is, GW_FIELD_UNKNOWN, GW_FIELD_DUPLICATE) : NULL;

    for (size_t i = 0; i < is->n; i++) {
        if (is->items[i].kind != GW_FIELD_DECODE)
            continue;
        gw_registry__fail(r, f, 400, "BadRequest", NULL,
                          "%s in version \"%s\" cannot be handled as a %s: %s", kind, ver, kind,
                          is->items[i].message);
        free(strict);
        return false;
    }
    if (strict != NULL) {
        gw_registry__fail(r, f, 400, "BadRequest", NULL,
                          "%s in version \"%s\" cannot be handled as a %s: strict decoding "
                          "error: %s",
                          kind, ver, kind, strict);
        free(strict);
        return false;
    }
    for (size_t i = 0; i < is->n; i++) {
        const gw_field_issue_t *it = &is->items[i];
        if (it->kind == GW_FIELD_REQUIRED && !required_here(r, it->path))
            continue;
        if ((it->kind == GW_FIELD_REQUIRED || it->kind == GW_FIELD_INVALID) &&
            r->resource != NULL && r->resource->custom != NULL)
            continue; /* a custom resource's schema validation reports these */
        if (it->kind == GW_FIELD_REQUIRED)
            gw_ferr_required(errs, it->path, NULL);
        else if (it->kind == GW_FIELD_INVALID)
            gw_ferr_add(errs, "FieldValueInvalid", it->path, it->message);
        else if (warn && mode == GW_FV_WARN)
            gw_req_warning(r, "%s", it->message);
    }
    return true;
}

/* What encoding/json calls a JSON value's type in its UnmarshalTypeError. */
static const char *
json_go_type(const json_t *v)
{
    if (json_is_array(v))
        return "array";
    if (json_is_string(v))
        return "string";
    if (json_is_boolean(v))
        return "bool";
    return json_is_number(v) ? "number" : "null";
}

bool
gw_registry__check_object(gw_req_t *r, json_t *obj, const char *api_version, const char *kind,
                          const gw_schema_t *schema, const char *raw, size_t raw_len,
                          gw_fieldval_mode_t mode, bool warn, gw_field_errors_t *errs, gw_fail_t *f)
{
    const char *av = api_version ? api_version : gw_registry__api_version(r);
    const char *k = kind ? kind : r->resource->kind;
    gw_field_issues_t is = {0};
    bool ok;

    if (!json_is_object(obj)) {
        /* kube reads apiVersion and kind with encoding/json into an anonymous struct first */
        gw_registry__fail(
            r, f, 400, "BadRequest", NULL,
            "the object provided is unrecognized (must be of type %s): couldn't get "
            "version/kind; json parse error: json: cannot unmarshal %s into Go value of type "
            "struct { APIVersion string \"json:\\\"apiVersion,omitempty\\\"\"; Kind string "
            "\"json:\\\"kind,omitempty\\\"\" } (%s)",
            k, json_go_type(obj), raw ? gw_req_body_summary(r, raw, raw_len) : "<empty>");
        return false;
    }
    if (!check_type(r, obj, av, k, f))
        return false;
    gw_convert_internal(obj); /* what kube's decoding into the internal type drops */
    if (raw != NULL && mode != GW_FV_IGNORE)
        find_duplicates(r, raw, raw_len, &is);
    if (schema != NULL)
        gw_fieldval_check(obj, schema, &is);
    ok = report_issues(r, &is, av, k, mode, warn, errs, f);
    gw_field_issues_clear(&is);
    return ok;
}

bool
gw_registry__check_namespace(gw_req_t *r, json_t *obj, gw_fail_t *f)
{
    json_t *meta = gw_objmeta_get(obj);
    const char *ns = json_string_value(json_object_get(meta, "namespace"));
    const char *want = gw_registry__namespace(r);

    if (!r->resource->namespaced) {
        json_object_del(meta, "namespace");
        return true;
    }
    if (ns != NULL && ns[0] != '\0' && strcmp(ns, want) != 0) {
        gw_registry__fail(r, f, 400, "BadRequest", NULL,
                          "the namespace of the provided object does not match the namespace "
                          "sent on the request");
        return false;
    }
    json_object_set_new(meta, "namespace", json_string(want));
    return true;
}

static void
add_warning(const char *text, void *arg)
{
    gw_req_warning(arg, "%s", text);
}

void
gw_registry__meta_warnings(gw_req_t *r, const json_t *obj)
{
    gw_objmeta_warnings(obj, add_warning, r);
}

char *
gw_registry__encode(json_t *obj, size_t *len)
{
    return gw_registry__encode_for(NULL, obj, len);
}

/* A custom object in another version than its CRD's storage version: apiVersion rewritten
 * (the None conversion). NULL when it is in the storage version. */
static json_t *
custom_storage_form(const gw_resource_t *res, const json_t *obj)
{
    json_t *stored;

    if (strcmp(res->version, res->custom->storage_version) == 0)
        return NULL;
    stored = json_deep_copy(obj);
    json_object_set_new(stored, "apiVersion",
                        json_sprintf("%s/%s", res->group, res->custom->storage_version));
    return stored;
}

char *
gw_registry__encode_for(const gw_resource_t *res, json_t *obj, size_t *len)
{
    json_t *stored;
    char *out;

    gw_objmeta_strip_for_storage(obj);
    /* Another version than the kind's storage version: stored converted, obj left as the
     * request's version for the answer. */
    stored = res != NULL && res->custom != NULL ? custom_storage_form(res, obj)
                                                : gw_registry__storage_form(obj);
    out = gw_json_dumps(stored != NULL ? stored : obj, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(stored);
    if (out == NULL)
        abort(); /* only allocation fails here, and allocation failure aborts */
    *len = strlen(out);
    return out;
}
