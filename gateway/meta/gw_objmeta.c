/* Object metadata: system fields, kube's ObjectMeta validation, and field errors. */
#include "gw_objmeta.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "gw_alloc.h"
#include "gw_names.h"
#include "gw_json.h"

/* ---- field errors ----------------------------------------------------------------------- */

static void add(gw_field_errors_t *e, const char *reason, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void
add(gw_field_errors_t *e, const char *reason, const char *field, const char *fmt, ...)
{
    va_list ap;
    char *msg;
    int n;

    va_start(ap, fmt);
    n = vasprintf(&msg, fmt, ap);
    va_end(ap);
    if (n < 0)
        abort();
    if (e->causes == NULL)
        e->causes = json_array();
    json_array_append_new(
        e->causes, json_pack("{s:s,s:s,s:s}", "reason", reason, "message", msg, "field", field));
    free(msg);
}

void
gw_ferr_add(gw_field_errors_t *e, const char *reason, const char *field, const char *message)
{
    add(e, reason, field, "%s", message);
}

void
gw_ferr_clear(gw_field_errors_t *e)
{
    json_decref(e->causes);
    e->causes = NULL;
}

size_t
gw_ferr_count(const gw_field_errors_t *e)
{
    return json_array_size(e->causes);
}

/* Go's %q for a string: quoted, with \" \\ and control characters escaped. */
static char *
quote(const char *s)
{
    size_t n = strlen(s);
    char *out = gw_malloc(n * 6 + 3), *w = out;

    *w++ = '"';
    for (; *s != '\0'; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            *w++ = '\\';
            *w++ = (char)c;
        } else if (c == '\n') {
            w += sprintf(w, "\\n");
        } else if (c == '\t') {
            w += sprintf(w, "\\t");
        } else if (c < 0x20 || c == 0x7f) {
            w += sprintf(w, "\\x%02x", c);
        } else {
            *w++ = (char)c;
        }
    }
    *w++ = '"';
    *w = '\0';
    return out;
}

/* A bad value as kube's field errors print it. */
static char *
show(const json_t *v)
{
    if (v == NULL || json_is_null(v))
        return gw_strdup("null");
    if (json_is_string(v))
        return quote(json_string_value(v));
    return gw_json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
}

void
gw_ferr_invalid(gw_field_errors_t *e, const char *field, const json_t *value, const char *detail)
{
    char *v = show(value);

    add(e, "FieldValueInvalid", field, "Invalid value: %s: %s", v, detail);
    free(v);
}

void
gw_ferr_invalid_str(gw_field_errors_t *e, const char *field, const char *value, const char *detail)
{
    char *v = quote(value);

    add(e, "FieldValueInvalid", field, "Invalid value: %s: %s", v, detail);
    free(v);
}

void
gw_ferr_required(gw_field_errors_t *e, const char *field, const char *detail)
{
    if (detail != NULL)
        add(e, "FieldValueRequired", field, "Required value: %s", detail);
    else
        add(e, "FieldValueRequired", field, "Required value");
}

void
gw_ferr_forbidden(gw_field_errors_t *e, const char *field, const char *detail)
{
    add(e, "FieldValueForbidden", field, "Forbidden: %s", detail);
}

void
gw_ferr_not_supported(gw_field_errors_t *e, const char *field, const char *value,
                      const char *const *supported)
{
    char *v = quote(value), *list = gw_strdup(""), *q;

    for (size_t i = 0; supported[i] != NULL; i++) {
        char *next;
        q = quote(supported[i]);
        next = gw_sprintf("%s%s%s", list, i ? ", " : "", q);
        free(q);
        free(list);
        list = next;
    }
    add(e, "FieldValueNotSupported", field, "Unsupported value: %s: supported values: %s", v, list);
    free(v);
    free(list);
}

void
gw_ferr_duplicate(gw_field_errors_t *e, const char *field, const char *value)
{
    char *v = quote(value);

    add(e, "FieldValueDuplicate", field, "Duplicate value: %s", v);
    free(v);
}

void
gw_ferr_too_many(gw_field_errors_t *e, const char *field, size_t actual, size_t max)
{
    add(e, "FieldValueTooMany", field, "Too many: %zu: must have at most %zu item%s", actual, max,
        max == 1 ? "" : "s");
}

char *
gw_ferr_quote(const char *s)
{
    return quote(s);
}

void
gw_ferr_too_long(gw_field_errors_t *e, const char *field, size_t max)
{
    add(e, "FieldValueTooLong", field, "Too long: may not be more than %zu bytes", max);
}

char *
gw_ferr_summary(const gw_field_errors_t *e)
{
    size_t n = json_array_size(e->causes), i;
    char *out = gw_strdup(n > 1 ? "[" : "");
    json_t *c;

    json_array_foreach(e->causes, i, c)
    {
        const char *field = json_string_value(json_object_get(c, "field"));
        char *next = gw_sprintf("%s%s%s%s%s", out, i ? ", " : "", field ? field : "",
                                field && field[0] ? ": " : "",
                                json_string_value(json_object_get(c, "message")));
        free(out);
        out = next;
    }
    if (n > 1) {
        char *next = gw_sprintf("%s]", out);
        free(out);
        out = next;
    }
    return out;
}

/* ---- names ------------------------------------------------------------------------------ */

/* A generateName may end in '-': kube checks it with that dash masked (maskTrailingDash). */
static const char *
check_prefixed(const char *(*check)(const char *), const char *name)
{
    size_t n = strlen(name);
    const char *msg;
    char *masked;

    if (n < 2 || name[n - 1] != '-')
        return check(name);
    masked = gw_strdup(name);
    masked[n - 1] = 'a';
    msg = check(masked);
    free(masked);
    return msg;
}

const char *
gw_objmeta_check_name(gw_name_rule_t rule, const char *name, bool prefix)
{
    switch (rule) {
    case GW_NAME_SUBDOMAIN:
        return prefix ? check_prefixed(gw_valid_dns1123_subdomain, name)
                      : gw_valid_dns1123_subdomain(name);
    case GW_NAME_LABEL:
        return prefix ? check_prefixed(gw_valid_dns1123_label, name) : gw_valid_dns1123_label(name);
    case GW_NAME_DNS1035:
        return prefix ? check_prefixed(gw_valid_dns1035_label, name) : gw_valid_dns1035_label(name);
    case GW_NAME_PATH_SEGMENT:
        if (!prefix)
            return gw_valid_path_segment_name(name);
        if (strchr(name, '/') != NULL)
            return "may not contain '/'";
        return strchr(name, '%') != NULL ? "may not contain '%'" : NULL;
    }
    return NULL;
}

static void
random_bytes(unsigned char *buf, size_t n)
{
    size_t got = 0;

    while (got < n) {
        ssize_t r = getrandom(buf + got, n - got, 0);
        if (r < 0)
            abort(); /* the kernel's generator cannot fail once seeded */
        got += (size_t)r;
    }
}

char *
gw_objmeta_generate_name(const char *base)
{
    static const char alphabet[] = "bcdfghjklmnpqrstvwxz2456789";
    size_t n = strlen(base) > 58 ? 58 : strlen(base);
    char *out = gw_malloc(n + 6);
    unsigned char rnd[5];

    memcpy(out, base, n);
    random_bytes(rnd, sizeof(rnd));
    /* 27 letters into 256 values: the bias (256 % 27 = 13) is immaterial for names. */
    for (size_t i = 0; i < 5; i++)
        out[n + i] = alphabet[rnd[i] % (sizeof(alphabet) - 1)];
    out[n + 5] = '\0';
    return out;
}

/* ---- preparation ------------------------------------------------------------------------ */

json_t *
gw_objmeta_get(json_t *obj)
{
    json_t *meta = json_object_get(obj, "metadata");

    if (!json_is_object(meta)) {
        meta = json_object();
        json_object_set_new(obj, "metadata", meta);
    }
    return meta;
}

const char *
gw_objmeta_str(const json_t *obj, const char *member)
{
    return json_string_value(json_object_get(json_object_get(obj, "metadata"), member));
}

void
gw_objmeta_prepare_create(json_t *obj, const char *uid, const char *now)
{
    json_t *meta = gw_objmeta_get(obj);

    json_object_set_new(meta, "uid", json_string(uid));
    json_object_set_new(meta, "creationTimestamp", json_string(now));
    json_object_del(meta, "deletionTimestamp");
    json_object_del(meta, "deletionGracePeriodSeconds");
}

/* Copy metadata member `m` from old to new (removing it from new when old has none). */
static void
carry(json_t *meta, const json_t *old, const char *m)
{
    json_t *v = json_object_get(old, m);

    if (v != NULL)
        json_object_set_new(meta, m, json_deep_copy(v));
    else
        json_object_del(meta, m);
}

void
gw_objmeta_prepare_update(json_t *obj, const json_t *old)
{
    json_t *meta = gw_objmeta_get(obj);
    const json_t *om = json_object_get(old, "metadata");

    carry(meta, om, "generation");
    if (json_string_length(json_object_get(meta, "uid")) == 0)
        carry(meta, om, "uid");
    if (json_object_get(om, "creationTimestamp") != NULL)
        carry(meta, om, "creationTimestamp");
    if (json_object_get(om, "deletionTimestamp") != NULL)
        carry(meta, om, "deletionTimestamp");
    if (json_object_get(om, "deletionGracePeriodSeconds") != NULL &&
        json_object_get(meta, "deletionGracePeriodSeconds") == NULL)
        carry(meta, om, "deletionGracePeriodSeconds");
}

void
gw_objmeta_strip_for_storage(json_t *obj)
{
    json_t *meta = json_object_get(obj, "metadata");

    json_object_del(meta, "resourceVersion");
    json_object_del(meta, "selfLink");
}

/* ---- validation ------------------------------------------------------------------------- */

#define TOTAL_ANNOTATION_SIZE_LIMIT (256 * 1024)

static void
validate_names(const json_t *meta, gw_name_rule_t rule, gw_field_errors_t *errs)
{
    const char *gen = json_string_value(json_object_get(meta, "generateName"));
    const char *name = json_string_value(json_object_get(meta, "name"));
    const char *msg;

    if (gen != NULL && gen[0] != '\0' && (msg = gw_objmeta_check_name(rule, gen, true)) != NULL)
        gw_ferr_invalid_str(errs, "metadata.generateName", gen, msg);
    if (name == NULL || name[0] == '\0')
        gw_ferr_required(errs, "metadata.name", "name or generateName is required");
    else if ((msg = gw_objmeta_check_name(rule, name, false)) != NULL)
        gw_ferr_invalid_str(errs, "metadata.name", name, msg);
}

static void
validate_namespace(const json_t *meta, bool namespaced, gw_field_errors_t *errs)
{
    const char *ns = json_string_value(json_object_get(meta, "namespace"));
    const char *msg;

    if (!namespaced) {
        if (ns != NULL && ns[0] != '\0')
            gw_ferr_forbidden(errs, "metadata.namespace", "not allowed on this type");
        return;
    }
    if (ns == NULL || ns[0] == '\0')
        gw_ferr_required(errs, "metadata.namespace", NULL);
    else if ((msg = gw_valid_dns1123_label(ns)) != NULL)
        gw_ferr_invalid_str(errs, "metadata.namespace", ns, msg);
}

static void
validate_labels(const json_t *labels, gw_field_errors_t *errs)
{
    const char *k, *msg;
    json_t *v;

    json_object_foreach((json_t *)labels, k, v)
    {
        if ((msg = gw_valid_qualified_name(k)) != NULL)
            gw_ferr_invalid_str(errs, "metadata.labels", k, msg);
        if (json_is_string(v) && (msg = gw_valid_label_value(json_string_value(v))) != NULL)
            gw_ferr_invalid(errs, "metadata.labels", v, msg);
    }
}

static void
validate_annotations(const json_t *annotations, gw_field_errors_t *errs)
{
    size_t total = 0;
    const char *k, *msg;
    json_t *v;

    json_object_foreach((json_t *)annotations, k, v)
    {
        /* Annotation keys are qualified names in any case. */
        char *lower = gw_strdup(k);
        for (char *p = lower; *p != '\0'; p++)
            if (*p >= 'A' && *p <= 'Z')
                *p = (char)(*p - 'A' + 'a');
        if ((msg = gw_valid_qualified_name(lower)) != NULL)
            gw_ferr_invalid_str(errs, "metadata.annotations", k, msg);
        free(lower);
        total += strlen(k) + json_string_length(v);
    }
    if (total > TOTAL_ANNOTATION_SIZE_LIMIT)
        gw_ferr_too_long(errs, "metadata.annotations", TOTAL_ANNOTATION_SIZE_LIMIT);
}

static void
validate_finalizers(const json_t *finalizers, gw_field_errors_t *errs)
{
    bool orphan = false, foreground = false;
    const char *msg;
    size_t i;
    json_t *f;

    json_array_foreach(finalizers, i, f)
    {
        const char *s = json_string_value(f);
        if (s == NULL)
            continue;
        if ((msg = gw_valid_qualified_name(s)) != NULL)
            gw_ferr_invalid_str(errs, "metadata.finalizers", s, msg);
        orphan = orphan || strcmp(s, "orphan") == 0;
        foreground = foreground || strcmp(s, "foregroundDeletion") == 0;
    }
    if (orphan && foreground)
        gw_ferr_invalid(errs, "metadata.finalizers", finalizers,
                        "finalizer orphan and foregroundDeletion cannot be both set");
}

static void
validate_owner_refs(const json_t *refs, gw_field_errors_t *errs)
{
    static const struct {
        const char *member, *field, *msg;
    } required[] = {
        {"apiVersion", "metadata.ownerReferences.apiVersion", "version must not be empty"},
        {"kind", "metadata.ownerReferences.kind", "kind must not be empty"},
        {"name", "metadata.ownerReferences.name", "name must not be empty"},
        {"uid", "metadata.ownerReferences.uid", "uid must not be empty"},
    };
    size_t i;
    json_t *ref;

    json_array_foreach(refs, i, ref)
    {
        for (size_t k = 0; k < sizeof(required) / sizeof(required[0]); k++) {
            if (json_string_length(json_object_get(ref, required[k].member)) == 0)
                gw_ferr_invalid_str(errs, required[k].field, "", required[k].msg);
        }
    }
}

void
gw_objmeta_validate(const json_t *obj, bool namespaced, gw_name_rule_t rule,
                    gw_field_errors_t *errs)
{
    const json_t *meta = json_object_get(obj, "metadata");
    const json_t *gen = json_object_get(meta, "generation");

    validate_names(meta, rule, errs);
    validate_namespace(meta, namespaced, errs);
    if (json_integer_value(gen) < 0)
        gw_ferr_invalid(errs, "metadata.generation", gen, "must be greater than or equal to 0");
    validate_labels(json_object_get(meta, "labels"), errs);
    validate_annotations(json_object_get(meta, "annotations"), errs);
    validate_owner_refs(json_object_get(meta, "ownerReferences"), errs);
    validate_finalizers(json_object_get(meta, "finalizers"), errs);
}

static void
immutable(const json_t *meta, const json_t *om, const char *member, gw_field_errors_t *errs)
{
    const json_t *v = json_object_get(meta, member), *o = json_object_get(om, member);
    char field[64];

    if ((v == NULL && o == NULL) || (v != NULL && o != NULL && json_equal(v, o)))
        return;
    snprintf(field, sizeof(field), "metadata.%s", member);
    gw_ferr_invalid(errs, field, v, "field is immutable");
}

/* Finalizers may only go away once deletion has started. */
static void
no_new_finalizers(const json_t *meta, const json_t *om, gw_field_errors_t *errs)
{
    const json_t *now = json_object_get(meta, "finalizers"),
                 *before = json_object_get(om, "finalizers");
    char *extra = gw_strdup(""), *next;
    size_t i, j, n = 0;
    json_t *f, *g;

    json_array_foreach(now, i, f)
    {
        bool known = false;
        json_array_foreach(before, j, g)
        {
            known = known || json_equal(f, g);
        }
        if (known || !json_is_string(f))
            continue;
        next = gw_sprintf("%s%s\"%s\"", extra, n++ ? ", " : "", json_string_value(f));
        free(extra);
        extra = next;
    }
    if (n > 0) {
        next = gw_sprintf("no new finalizers can be added if the object is being deleted, found "
                          "new finalizers []string{%s}",
                          extra);
        gw_ferr_forbidden(errs, "metadata.finalizers", next);
        free(next);
    }
    free(extra);
}

void
gw_objmeta_validate_update(const json_t *obj, const json_t *old, gw_field_errors_t *errs)
{
    static const char *const fixed[] = {"name",
                                        "namespace",
                                        "uid",
                                        "creationTimestamp",
                                        "deletionTimestamp",
                                        "deletionGracePeriodSeconds"};
    const json_t *meta = json_object_get(obj, "metadata"), *om = json_object_get(old, "metadata");

    if (json_object_get(om, "deletionTimestamp") != NULL)
        no_new_finalizers(meta, om, errs);
    for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
        immutable(meta, om, fixed[i], errs);
}

void
gw_objmeta_warnings(const json_t *obj, void (*warn)(const char *text, void *arg), void *arg)
{
    static const char *const standard[] = {"kubernetes", "orphan", "foregroundDeletion"};
    const json_t *fins = json_object_get(json_object_get(obj, "metadata"), "finalizers");
    size_t i;
    json_t *f;

    json_array_foreach(fins, i, f)
    {
        const char *s = json_string_value(f);
        bool known = false;
        if (s == NULL || strchr(s, '/') != NULL)
            continue;
        for (size_t k = 0; k < sizeof(standard) / sizeof(standard[0]); k++)
            known = known || strcmp(s, standard[k]) == 0;
        if (known)
            continue;
        char *text = gw_sprintf("metadata.finalizers: \"%s\": prefer a domain-qualified "
                                "finalizer name including a path (/) to avoid accidental "
                                "conflicts with other finalizer writers",
                                s);
        warn(text, arg);
        free(text);
    }
}

bool
gw_objmeta_deleting(const json_t *o)
{
    const json_t *ts = json_object_get(json_object_get(o, "metadata"), "deletionTimestamp");

    return ts != NULL && !json_is_null(ts);
}
