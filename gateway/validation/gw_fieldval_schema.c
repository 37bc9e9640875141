/* The walk of a document against its structural schema. For built-in kinds the messages are
 * those of kube-apiserver's strict JSON decoding into Go structs (a type error there is a 400
 * naming the Go struct field); for schemas without Go types (custom resources) they are those
 * of its structural schema validation (a 422). */
#include "gw_fieldval.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_buf.h"
#include "gw_fieldval_int.h"

/* Where each member of the document was met, to merge issues found earlier (duplicates) into
 * document order. */
typedef struct {
    char *path;
    size_t member;
    bool unknown;
} mark_t;

typedef struct {
    gw_field_issues_t *out;
    size_t first_new;   /* issues before this one were in out on entry */
    gw_buf_t path;      /* kube's field path: spec.containers[0].image */
    gw_buf_t gopath;    /* Go's decoder path: spec.containers.image (no indices, no map keys) */
    const char *gotype; /* the innermost Go struct ("Container"), NULL without Go types */
    size_t member;      /* pre-order index of the member being walked */
    size_t n_members;
    size_t *issue_member; /* per new issue: the member it was found at */
    mark_t *marks;        /* kept only when out held issues on entry */
    size_t n_marks;
    bool track;
} walk_t;

static void walk_value(walk_t *w, json_t *v, const gw_schema_t *s);

static size_t
path_push(gw_buf_t *p, const char *seg, bool index)
{
    size_t saved = p->len;
    if (!index && p->len > 0)
        gw_buf_char(p, '.');
    gw_buf_str(p, seg);
    return saved;
}

static void
path_pop(gw_buf_t *p, size_t saved)
{
    gw_buf_truncate(p, saved);
}

static void add(walk_t *w, gw_field_issue_kind_t kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
add(walk_t *w, gw_field_issue_kind_t kind, const char *fmt, ...)
{
    va_list ap;
    char msg[512];
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    gw_field_issues_add(w->out, kind, w->path.data, msg);
    size_t i = w->out->n - 1 - w->first_new;
    if ((i & (i + 1)) == 0) /* i + 1 is a power of two: grow */
        w->issue_member = gw_realloc(w->issue_member, (i + 1) * 2 * sizeof(*w->issue_member));
    w->issue_member[i] = w->member;
}

static void
mark(walk_t *w, bool unknown)
{
    if (!w->track)
        return;
    if ((w->n_marks & (w->n_marks - 1)) == 0)
        w->marks = gw_realloc(w->marks, (w->n_marks ? w->n_marks * 2 : 1) * sizeof(*w->marks));
    w->marks[w->n_marks++] = (mark_t){gw_strdup(w->path.data), w->member, unknown};
}

/* ---- names of types, as the two messages spell them -------------------------------------- */

/* "io.k8s.api.core.v1.Container": the Go type "v1.Container", or with short "Container" */
static const char *
ref_name(const char *ref, bool short_name)
{
    const char *last = strrchr(ref, '.'), *p = last;
    if (last == NULL || short_name)
        return last != NULL ? last + 1 : ref;
    while (p > ref && p[-1] != '.')
        p--;
    return p;
}

static void
go_type(const gw_schema_t *s, char *buf, size_t n)
{
    char inner[160];
    const char *f = s->format != NULL ? s->format : "";
    switch (s->type) {
    case GW_SCHEMA_ARRAY:
        go_type(s->items, inner, sizeof(inner));
        snprintf(buf, n, "[]%s", inner);
        break;
    case GW_SCHEMA_MAP:
        go_type(s->values, inner, sizeof(inner));
        snprintf(buf, n, "map[string]%s", inner);
        break;
    case GW_SCHEMA_STRING:
        snprintf(buf, n, "%s", strcmp(f, "byte") == 0 ? "[]uint8" : "string");
        break;
    case GW_SCHEMA_INTEGER:
        snprintf(buf, n, "%s", strcmp(f, "int32") == 0 ? "int32" : "int64");
        break;
    case GW_SCHEMA_NUMBER:
        snprintf(buf, n, "float64");
        break;
    case GW_SCHEMA_BOOLEAN:
        snprintf(buf, n, "bool");
        break;
    default:
        snprintf(buf, n, "%s", s->ref != NULL ? ref_name(s->ref, false) : "interface {}");
    }
}

/* encoding/json's name for the JSON value it could not store; numbers it could not convert
 * (fractions into integers, overflows) come with their text. */
static void
go_value(const json_t *v, bool with_number, char *buf, size_t n)
{
    static const char *const names[] = {
        [JSON_OBJECT] = "object",  [JSON_ARRAY] = "array", [JSON_STRING] = "string",
        [JSON_INTEGER] = "number", [JSON_REAL] = "number", [JSON_TRUE] = "bool",
        [JSON_FALSE] = "bool",     [JSON_NULL] = "null",
    };
    if (with_number && json_is_integer(v)) {
        snprintf(buf, n, "number %" JSON_INTEGER_FORMAT, json_integer_value(v));
    } else if (with_number && json_is_real(v)) {
        int k = 0;
        for (int p = 1; p <= 17; p++) { /* the shortest text that is the same double */
            k = snprintf(buf, n, "number %.*g", p, json_real_value(v));
            if (strtod(buf + 7, NULL) == json_real_value(v))
                break;
        }
        if (strpbrk(buf + 7, ".e") == NULL && (size_t)k + 2 < n)
            strcat(buf, ".0");
    } else {
        snprintf(buf, n, "%s", names[json_typeof(v)]);
    }
}

/* The OpenAPI type name structural validation uses. */
static const char *
oa_type(const json_t *v)
{
    static const char *const names[] = {
        [JSON_OBJECT] = "object",   [JSON_ARRAY] = "array", [JSON_STRING] = "string",
        [JSON_INTEGER] = "integer", [JSON_REAL] = "number", [JSON_TRUE] = "boolean",
        [JSON_FALSE] = "boolean",   [JSON_NULL] = "null",
    };
    return names[json_typeof(v)];
}

static const char *
oa_want(const gw_schema_t *s)
{
    switch (s->type) {
    case GW_SCHEMA_ARRAY:
        return "array";
    case GW_SCHEMA_STRING:
    case GW_SCHEMA_TIME:
        return "string";
    case GW_SCHEMA_INTEGER:
        return "integer";
    case GW_SCHEMA_NUMBER:
    case GW_SCHEMA_QUANTITY:
        return "number";
    case GW_SCHEMA_BOOLEAN:
        return "boolean";
    case GW_SCHEMA_INT_OR_STRING:
        return "integer,string";
    default:
        return "object";
    }
}

/* ---- type errors ------------------------------------------------------------------------- */

static void
type_error(walk_t *w, const json_t *v, const gw_schema_t *s, bool with_number)
{
    char t[200], val[64];
    if (w->gotype == NULL) {
        add(w, GW_FIELD_INVALID, "Invalid value: \"%s\": %s in body must be of type %s: \"%s\"",
            oa_type(v), w->path.data, oa_want(s), oa_type(v));
        return;
    }
    go_type(s, t, sizeof(t));
    go_value(v, with_number, val, sizeof(val));
    add(w, GW_FIELD_DECODE, "json: cannot unmarshal %s into Go struct field %s.%s of type %s", val,
        w->gotype, w->gopath.data, t);
}

/* A custom decoder's own message (Quantity, Time, IntOrString), or structural validation's. */
static void
value_error(walk_t *w, const json_t *v, const gw_schema_t *s, const char *msg)
{
    if (w->gotype == NULL)
        type_error(w, v, s, false);
    else
        add(w, GW_FIELD_DECODE, "%s", msg);
}

static bool
fits_int32(const json_t *v)
{
    json_int_t i = json_integer_value(v);
    return json_is_integer(v) && i >= INT32_MIN && i <= INT32_MAX;
}

static void
check_string(walk_t *w, const json_t *v, const gw_schema_t *s)
{
    char msg[256];
    const char *f = s->format != NULL ? s->format : "";
    if (!json_is_string(v))
        type_error(w, v, s, false);
    else if (strcmp(f, "byte") == 0 &&
             !gw_fieldval__base64(json_string_value(v), json_string_length(v), msg, sizeof(msg)))
        value_error(w, v, s, msg);
}

static void
check_special(walk_t *w, const json_t *v, const gw_schema_t *s)
{
    char msg[512], val[64];
    const char *str = json_string_value(v);
    go_value(v, true, val, sizeof(val));
    if (s->type == GW_SCHEMA_INT_OR_STRING && !json_is_string(v) && !fits_int32(v)) {
        snprintf(msg, sizeof(msg), "json: cannot unmarshal %s into Go value of type int32", val);
        value_error(w, v, s, msg);
    } else if (s->type == GW_SCHEMA_QUANTITY && str != NULL &&
               !gw_fieldval__quantity(str, msg, sizeof(msg))) {
        value_error(w, v, s, msg);
    } else if (s->type == GW_SCHEMA_QUANTITY && str == NULL && !json_is_number(v)) {
        gw_fieldval__quantity("", msg, sizeof(msg)); /* its "must match" message */
        value_error(w, v, s, msg);
    } else if (s->type == GW_SCHEMA_TIME && str == NULL) {
        go_value(v, false, val, sizeof(val));
        snprintf(msg, sizeof(msg), "json: cannot unmarshal %s into Go value of type string", val);
        value_error(w, v, s, msg);
    } else if (s->type == GW_SCHEMA_TIME && !gw_fieldval__rfc3339(str, msg, sizeof(msg))) {
        value_error(w, v, s, msg);
    }
}

static void
check_scalar(walk_t *w, const json_t *v, const gw_schema_t *s)
{
    switch (s->type) {
    case GW_SCHEMA_STRING:
        check_string(w, v, s);
        break;
    case GW_SCHEMA_INTEGER:
        if (!json_is_integer(v) || (s->format && strcmp(s->format, "int32") == 0 && !fits_int32(v)))
            type_error(w, v, s, json_is_number(v));
        break;
    case GW_SCHEMA_NUMBER:
        if (!json_is_number(v))
            type_error(w, v, s, false);
        break;
    case GW_SCHEMA_BOOLEAN:
        if (!json_is_boolean(v))
            type_error(w, v, s, false);
        break;
    default:
        check_special(w, v, s);
    }
}

/* ---- the walk ---------------------------------------------------------------------------- */

/* Members a schema lets through unpruned: those of preserved objects, and the type and object
 * metadata of a resource (the root, an embedded resource) whose schema does not list them, as
 * kube's structural pruning skips them. */
static bool
keeps_unknown(const gw_schema_t *s, bool root, const char *key)
{
    return s->preserve_unknown || ((root || s->embedded_resource) &&
                                   (strcmp(key, "apiVersion") == 0 || strcmp(key, "kind") == 0 ||
                                    strcmp(key, "metadata") == 0));
}

/* One member of an object (or entry of a map: `map` keeps the key out of Go's path). */
static bool
walk_member(walk_t *w, const char *key, json_t *val, const gw_schema_t *fs, bool map)
{
    size_t p = path_push(&w->path, key, false);
    size_t g = map ? w->gopath.len : path_push(&w->gopath, key, false);
    w->member = w->n_members++;
    mark(w, fs == NULL);
    if (fs == NULL)
        add(w, GW_FIELD_UNKNOWN, "unknown field \"%s\"", w->path.data);
    else
        walk_value(w, val, fs);
    path_pop(&w->path, p);
    path_pop(&w->gopath, g);
    return fs != NULL;
}

static void
walk_object(walk_t *w, json_t *obj, const gw_schema_t *s, bool root)
{
    const char *key, *saved = w->gotype;
    json_t *val;
    void *tmp;
    if (s->ref != NULL)
        w->gotype = ref_name(s->ref, true);
    json_object_foreach_safe(obj, tmp, key, val)
    {
        const gw_schema_field_t *f = gw_schema_field(s, key);
        const gw_schema_t *fs = f != NULL ? f->schema : s->values;
        if (fs == NULL && keeps_unknown(s, root, key))
            continue;
        if (!walk_member(w, key, val, fs, f == NULL))
            json_object_del(obj, key); /* pruned, as kube-apiserver drops unknown fields */
    }
    for (size_t i = 0; i < s->n_required; i++) {
        if (!json_is_null(json_object_get(obj, s->required[i])) &&
            json_object_get(obj, s->required[i]) != NULL)
            continue;
        size_t p = path_push(&w->path, s->required[i], false);
        add(w, GW_FIELD_REQUIRED, "Required value");
        path_pop(&w->path, p);
    }
    w->gotype = saved;
}

static void
walk_map(walk_t *w, json_t *obj, const gw_schema_t *s)
{
    const char *key;
    json_t *val;
    json_object_foreach(obj, key, val) walk_member(w, key, val, s->values, true);
}

static void
walk_array(walk_t *w, json_t *arr, const gw_schema_t *s)
{
    char seg[32];
    for (size_t i = 0; i < json_array_size(arr); i++) {
        snprintf(seg, sizeof(seg), "[%zu]", i);
        size_t p = path_push(&w->path, seg, true);
        walk_value(w, json_array_get(arr, i), s->items);
        path_pop(&w->path, p);
    }
}

static void
walk_value(walk_t *w, json_t *v, const gw_schema_t *s)
{
    /* null leaves a field unset in kube's typed decoding, whatever its type */
    if (json_is_null(v) || s->type == GW_SCHEMA_ANY)
        return;
    if (s->type == GW_SCHEMA_OBJECT && json_is_object(v))
        walk_object(w, v, s, false);
    else if (s->type == GW_SCHEMA_MAP && json_is_object(v))
        walk_map(w, v, s);
    else if (s->type == GW_SCHEMA_ARRAY && json_is_array(v))
        walk_array(w, v, s);
    else if (s->type == GW_SCHEMA_OBJECT || s->type == GW_SCHEMA_MAP || s->type == GW_SCHEMA_ARRAY)
        type_error(w, v, s, false);
    else
        check_scalar(w, v, s);
}

/* ---- merging earlier issues into document order ------------------------------------------ */

typedef struct {
    size_t member;
    int after; /* a duplicate sorts after what its member itself produced */
    size_t seq;
    gw_field_issue_t issue;
} ordered_t;

static int
ordered_cmp(const void *a, const void *b)
{
    const ordered_t *x = a, *y = b;
    if (x->member != y->member)
        return x->member < y->member ? -1 : 1;
    if (x->after != y->after)
        return x->after - y->after;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The member a path lies in (the longest marked prefix), or NULL. */
static const mark_t *
member_of(const walk_t *w, const char *path)
{
    const mark_t *best = NULL;
    for (size_t i = 0; i < w->n_marks; i++) {
        size_t n = strlen(w->marks[i].path);
        if (strncmp(path, w->marks[i].path, n) == 0 &&
            (path[n] == '\0' || path[n] == '.' || path[n] == '[') &&
            (best == NULL || n > strlen(best->path)))
            best = &w->marks[i];
    }
    return best;
}

/* kube-apiserver reports duplicates and unknown fields as its decoder meets them; a field both
 * unknown and duplicated (or inside an unknown field) only as unknown. Issues without a path
 * (a YAML body's duplicate lines) come first, as its strict YAML pass runs first. */
static void
merge_earlier(walk_t *w)
{
    gw_field_issues_t *out = w->out;
    ordered_t *o = gw_malloc(out->n * sizeof(*o));
    size_t n = 0, kept = 0;
    for (size_t i = 0; i < out->n; i++) {
        gw_field_issue_t is = out->items[i];
        const mark_t *m = i < w->first_new ? member_of(w, is.path) : NULL;
        if (i < w->first_new && is.path[0] == '\0') {
            out->items[kept++] = is;
        } else if (i < w->first_new && m != NULL && m->unknown) {
            free(is.path);
            free(is.message);
        } else {
            size_t member = i >= w->first_new ? w->issue_member[i - w->first_new]
                            : m != NULL       ? m->member
                                              : SIZE_MAX;
            o[n] = (ordered_t){member, i < w->first_new, i, is};
            n++;
        }
    }
    qsort(o, n, sizeof(*o), ordered_cmp);
    for (size_t i = 0; i < n; i++)
        out->items[kept++] = o[i].issue;
    out->n = kept;
    free(o);
}

void
gw_fieldval_check(json_t *doc, const gw_schema_t *schema, gw_field_issues_t *out)
{
    walk_t w = {.out = out, .first_new = out->n, .track = out->n > 0};
    gw_buf_add(&w.path, "", 0); /* "" at the root */
    gw_buf_add(&w.gopath, "", 0);
    if (json_is_object(doc) && schema != NULL && schema->type == GW_SCHEMA_OBJECT)
        walk_object(&w, doc, schema, true);
    if (w.track)
        merge_earlier(&w);
    for (size_t i = 0; i < w.n_marks; i++)
        free(w.marks[i].path);
    free(w.marks);
    free(w.issue_member);
    gw_buf_free(&w.path);
    gw_buf_free(&w.gopath);
}
