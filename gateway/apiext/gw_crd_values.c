/* kube's ValidateCustomResource: kube-openapi's schema validator over a custom object (its
 * validators in their order, anyOf/oneOf's choice of the failure to report by match count),
 * and apiextensions-apiserver's conversion of its results into field errors. */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "gw_alloc.h"
#include "gw_crd_schema_int.h"
#include "gw_crd_schema.h"
#include "gw_json.h"

/* A result of kube-openapi: the errors, and how many checks applied (its MatchCount, which
   picks the anyOf/oneOf alternative whose errors are reported). */
typedef struct {
    gw_field_errors_t errs;
    size_t count;
} result_t;

static size_t validate_node(const json_t *v, const gw_schema_t *s, const char *path,
                            gw_field_errors_t *out);

static void emit(gw_field_errors_t *out, const char *reason, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* A field error on path (kube's field path of the validator's name; "<nil>" at the root). */
static void
emit(gw_field_errors_t *out, const char *reason, const char *path, const char *fmt, ...)
{
    va_list ap;
    char *msg;
    va_start(ap, fmt);
    if (vasprintf(&msg, fmt, ap) < 0)
        abort();
    va_end(ap);
    gw_ferr_add(out, reason, path[0] != '\0' ? path : "<nil>", msg);
    free(msg);
}

static void
merge(gw_field_errors_t *into, gw_field_errors_t *from)
{
    if (from->causes == NULL)
        return;
    if (into->causes == NULL)
        into->causes = json_array();
    json_array_extend(into->causes, from->causes);
}

/* ---- values as Go prints them ---------------------------------------------------------- */

/* The JSON encoding of a value (encoding/json: floats in Go's form, object keys sorted). */
static char *
go_json(const json_t *v)
{
    char buf[64];
    if (json_is_real(v)) {
        gw_crd__go_json_float(json_real_value(v), buf, sizeof(buf));
        return gw_strdup(buf);
    }
    return gw_json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
}

/* A bad value as field.Error prints it: strings %q, numbers and booleans %v, null, else JSON. */
char *
gw_crd__show(const json_t *v)
{
    char buf[64];
    if (v == NULL || json_is_null(v))
        return gw_strdup("null");
    if (json_is_string(v))
        return gw_ferr_quote(json_string_value(v));
    if (json_is_real(v)) {
        gw_crd__go_float(json_real_value(v), buf, sizeof(buf));
        return gw_strdup(buf);
    }
    return go_json(v);
}

/* A schema bound as Go's %v prints it: an int64 for integer data, else a float64. */
static void
show_bound(double bound, bool as_int, char *buf, size_t n)
{
    if (as_int)
        snprintf(buf, n, "%" PRId64,
                 bound >= 9.2e18    ? INT64_MAX
                 : bound <= -9.2e18 ? INT64_MIN
                                    : (int64_t)bound);
    else
        gw_crd__go_float(bound, buf, n);
}

/* field.Invalid(path, value, "<path> in body <what>") */
static void
invalid(gw_field_errors_t *out, const char *path, const json_t *value, const char *what)
{
    char *v = gw_crd__show(value);
    emit(out, "FieldValueInvalid", path, "Invalid value: %s: %s in body %s", v, path, what);
    free(v);
}

/* field.TypeInvalid(path, value, "<path> in body must be of type <type>: %q") */
static void
type_invalid(gw_field_errors_t *out, const char *path, const char *type, const char *value)
{
    char *q = gw_ferr_quote(value);
    emit(out, "FieldValueTypeInvalid", path, "Invalid value: %s: %s in body must be of type %s: %s",
         q, path, type, q);
    free(q);
}

/* A composite error (anyOf, oneOf, allOf, not) is no openapi Validation: kube reports it as
   field.Invalid on the validator's own path (none: "<nil>") with the value "". */
static void
composite(gw_field_errors_t *out, const char *path, const char *what, const char *extra)
{
    char *q = gw_ferr_quote(path);
    char *msg = gw_sprintf("Invalid value: \"\": %s must %s%s", q, what, extra);
    gw_ferr_add(out, "FieldValueInvalid", "<nil>", msg);
    free(msg);
    free(q);
}

/* ---- type ---------------------------------------------------------------------------------- */

static const char *
data_type(const json_t *v, const char **format)
{
    *format = json_is_integer(v) ? "int64" : json_is_real(v) ? "float64" : "";
    switch (json_typeof(v)) {
    case JSON_OBJECT:
        return "object";
    case JSON_ARRAY:
        return "array";
    case JSON_STRING:
        return "string";
    case JSON_INTEGER:
        return "integer";
    case JSON_REAL:
        return "number";
    default:
        return "boolean";
    }
}

/* swag.IsFloat64AJSONInteger */
static bool
json_integral(double f)
{
    if (isnan(f) || isinf(f) || fabs(f) > 9007199254740991.0)
        return false;
    double g = trunc(f), diff = fabs(f - g);
    if (f == g)
        return true;
    if (f == 0 || g == 0)
        return diff < 1e-9 * 4.9406564584124654e-324;
    return diff / fmin(fabs(f) + fabs(g), 1.7976931348623157e308) < 1e-9;
}

/* spec.StringOrArray.Contains over the comma-joined types */
static bool
has_type(const char *types, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = types; p != NULL; p = strchr(p, ','), p = p != NULL ? p + 1 : NULL)
        if (strncmp(p, name, n) == 0 && (p[n] == ',' || p[n] == '\0'))
            return true;
    return false;
}

/* kube-openapi's typeValidator: 1 when it passes, 0 on an error. */
static size_t
check_type(const json_t *v, const gw_schema_t *s, const char *path, gw_field_errors_t *out)
{
    const struct gw_schema_rules *r = s->rules;
    const char *type = r->type != NULL ? r->type : "", *tf = r->format != NULL ? r->format : "";
    const char *format, *st = data_type(v, &format);
    bool str_or_slice = json_is_string(v) || json_is_array(v);
    bool number = has_type(type, "number") || has_type(type, "integer");
    bool float_int =
        json_is_real(v) && json_integral(json_real_value(v)) && has_type(type, "integer");
    bool int_float = json_is_integer(v) && has_type(type, "number");
    bool same = has_type(type, st);
    if (!str_or_slice && tf[0] != '\0' &&
        !(same || strcmp(format, tf) == 0 || float_int || int_float)) {
        type_invalid(out, path, tf, format);
        return 0;
    }
    if (!number && tf[0] != '\0' && str_or_slice)
        return 1;
    if (!(same || float_int || int_float)) {
        type_invalid(out, path, type, st);
        return 0;
    }
    return 1;
}

/* ---- strings and numbers --------------------------------------------------------------- */

static size_t
utf8_runes(const char *s)
{
    size_t n = 0;
    for (; *s != '\0'; s++)
        n += ((unsigned char)*s & 0xc0) != 0x80;
    return n;
}

static bool
pattern_matches(const struct gw_schema_rules *r, const char *s, size_t len)
{
    const pcre2_code *re = (const pcre2_code *)r->pattern_re;
    pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
    int rc = pcre2_match(re, (PCRE2_SPTR)s, len, 0, 0, md, NULL);
    pcre2_match_data_free(md);
    return rc >= 0;
}

/* stringValidator: the first of maxLength, minLength, pattern that fails. */
static void
string_checks(const json_t *v, const struct gw_schema_rules *r, const char *path,
              gw_field_errors_t *out)
{
    const char *s = json_string_value(v);
    size_t runes = utf8_runes(s);
    char what[256];
    if (r->max_length >= 0 && runes > (size_t)r->max_length) {
        emit(out, "FieldValueTooLong", path, "Too long: may not be more than %" PRId64 " byte%s",
             r->max_length, r->max_length == 1 ? "" : "s");
    } else if (r->min_length >= 0 && runes < (size_t)r->min_length) {
        snprintf(what, sizeof(what), "should be at least %" PRId64 " chars long", r->min_length);
        invalid(out, path, v, what);
    } else if (r->pattern != NULL && r->pattern_re == NULL) {
        char *msg = gw_sprintf("should match '%s, but pattern is invalid: %s'", r->pattern,
                               r->pattern_error);
        invalid(out, path, v, msg);
        free(msg);
    } else if (r->pattern != NULL && !pattern_matches(r, s, json_string_length(v))) {
        char *msg = gw_sprintf("should match '%s'", r->pattern);
        invalid(out, path, v, msg);
        free(msg);
    }
}

static void
check_multiple_of(const json_t *v, const struct gw_schema_rules *r, const char *path,
                  gw_field_errors_t *out)
{
    char what[96], b[40];
    double f = r->multiple_of;
    bool as_int = json_is_integer(v) && f >= 1 && f < 9.2e18;
    if (f < 0) {
        show_bound(f, json_is_integer(v), b, sizeof(b));
        emit(out, "FieldValueInvalid", path,
             "Invalid value: %s: factor MultipleOf declared for %s must be positive: %s", b, path,
             b);
        return;
    }
    bool ok;
    if (as_int) {
        int64_t factor = (int64_t)f;
        ok = json_integer_value(v) % factor == 0;
    } else {
        double d = json_number_value(v);
        ok = json_integral(f < 1 ? 1 / f * d : d / f);
    }
    if (ok)
        return;
    show_bound(f, as_int, b, sizeof(b));
    snprintf(what, sizeof(what), "should be a multiple of %s", b);
    invalid(out, path, v, what);
}

/* Whether value passes a bound: integers against the bound cut to an int64, as kube's. */
static bool
within(const json_t *v, double bound, bool upper, bool exclusive)
{
    if (json_is_integer(v)) {
        int64_t d = json_integer_value(v);
        int64_t b = bound >= 9.2e18 ? INT64_MAX : bound <= -9.2e18 ? INT64_MIN : (int64_t)bound;
        return upper ? (exclusive ? d < b : d <= b) : (exclusive ? d > b : d >= b);
    }
    double d = json_real_value(v);
    return upper ? (exclusive ? d < bound : d <= bound) : (exclusive ? d > bound : d >= bound);
}

static void
check_bound(const json_t *v, double bound, bool upper, bool exclusive, const char *path,
            gw_field_errors_t *out)
{
    char what[96], b[40];
    if (within(v, bound, upper, exclusive))
        return;
    show_bound(bound, json_is_integer(v), b, sizeof(b));
    snprintf(what, sizeof(what), "should be %s%s %s", upper ? "less than" : "greater than",
             exclusive ? "" : " or equal to", b);
    invalid(out, path, v, what);
}

/* numberValidator: multipleOf, minimum, maximum. */
static void
check_number(const json_t *v, const struct gw_schema_rules *r, const char *path,
             gw_field_errors_t *out)
{
    if (r->has_multiple_of)
        check_multiple_of(v, r, path, out);
    if (r->has_minimum)
        check_bound(v, r->minimum, false, r->exclusive_minimum, path, out);
    if (r->has_maximum)
        check_bound(v, r->maximum, true, r->exclusive_maximum, path, out);
}

/* ---- enum ----------------------------------------------------------------------------------- */

/* reflect's Convert then DeepEqual, for the JSON types: numbers convert to the enum value's
   number type, and an integer converts to a string as its code point. */
static bool
enum_equal(const json_t *data, const json_t *e)
{
    if (json_is_integer(data) && json_is_integer(e))
        return json_integer_value(data) == json_integer_value(e);
    if (json_is_real(data) && json_is_integer(e)) /* Go's conversion truncates */
        return fabs(json_real_value(data)) < 9.2e18 &&
               (int64_t)json_real_value(data) == json_integer_value(e);
    if (json_is_number(data) && json_is_real(e))
        return json_number_value(data) == json_real_value(e);
    if (json_is_integer(data) && json_is_string(e)) {
        int64_t c = json_integer_value(data);
        char u[8] = {0};
        if (c < 0 || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
            memcpy(u, "\xef\xbf\xbd", 3);
        else if (c < 0x80)
            u[0] = (char)c;
        else if (c < 0x800)
            u[0] = (char)(0xc0 | (c >> 6)), u[1] = (char)(0x80 | (c & 0x3f));
        else if (c < 0x10000)
            u[0] = (char)(0xe0 | (c >> 12)), u[1] = (char)(0x80 | ((c >> 6) & 0x3f)),
            u[2] = (char)(0x80 | (c & 0x3f));
        else
            u[0] = (char)(0xf0 | (c >> 18)), u[1] = (char)(0x80 | ((c >> 12) & 0x3f)),
            u[2] = (char)(0x80 | ((c >> 6) & 0x3f)), u[3] = (char)(0x80 | (c & 0x3f));
        return strcmp(u, json_string_value(e)) == 0 && json_string_length(e) == strlen(u);
    }
    return json_equal(data, e);
}

/* basicCommonValidator: NotSupported with every enum value, strings bare, others as JSON. */
static void
check_enum(const json_t *v, const struct gw_schema_rules *r, const char *path,
           gw_field_errors_t *out)
{
    size_t i;
    const json_t *e;
    if (json_array_size(r->enum_values) == 0)
        return;
    json_array_foreach(r->enum_values, i,
                       e) if (v != NULL && !json_is_null(v) && enum_equal(v, e)) return;
    char *val = gw_crd__show(v), *list = gw_strdup("");
    json_array_foreach(r->enum_values, i, e)
    {
        char *text = json_is_string(e) ? gw_strdup(json_string_value(e)) : go_json(e);
        char *q = gw_ferr_quote(text), *next = gw_sprintf("%s%s%s", list, i ? ", " : "", q);
        free(text);
        free(q);
        free(list);
        list = next;
    }
    emit(out, "FieldValueNotSupported", path, "Unsupported value: %s: supported values: %s", val,
         list);
    free(val);
    free(list);
}

/* ---- arrays and objects ---------------------------------------------------------------------- */

static char *
child_path(const char *path, const char *key)
{
    return path[0] != '\0' ? gw_sprintf("%s.%s", path, key) : gw_strdup(key);
}

static size_t
check_array(const json_t *v, const gw_schema_t *s, const char *path, gw_field_errors_t *out)
{
    const struct gw_schema_rules *r = s->rules;
    size_t n = json_array_size(v), count = 0;
    char what[96];
    for (size_t i = 0; s->items != NULL && i < n; i++) {
        char *p = gw_sprintf("%s[%zu]", path, i);
        count += validate_node(json_array_get(v, i), s->items, p, out);
        free(p);
    }
    if (r->min_items >= 0 && n < (size_t)r->min_items) {
        json_t *size = json_integer((json_int_t)n);
        snprintf(what, sizeof(what), "should have at least %" PRId64 " items", r->min_items);
        invalid(out, path, size, what);
        json_decref(size);
    }
    if (r->max_items >= 0 && n > (size_t)r->max_items)
        emit(out, "FieldValueTooMany", path, "Too many: %zu: must have at most %" PRId64 " item%s",
             n, r->max_items, r->max_items == 1 ? "" : "s");
    for (size_t i = 0; r->unique_items && i < n; i++)
        for (size_t j = 0; j < i; j++)
            if (json_equal(json_array_get(v, i), json_array_get(v, j))) {
                emit(out, "FieldValueInvalid", path,
                     "Invalid value: \"\": %s in body shouldn't contain duplicates", path);
                return count + 1;
            }
    return count + 1;
}

/* objectValidator's property counts: false when one fails (which ends the object's checks). */
static bool
property_counts(const json_t *v, const struct gw_schema_rules *r, const char *path,
                gw_field_errors_t *out)
{
    size_t n = json_object_size(v);
    char what[96];
    if (r->min_properties >= 0 && n < (size_t)r->min_properties) {
        json_t *size = json_integer((json_int_t)n);
        snprintf(what, sizeof(what), "should have at least %" PRId64 " properties",
                 r->min_properties);
        invalid(out, path, size, what);
        json_decref(size);
        return false;
    }
    if (r->max_properties >= 0 && n > (size_t)r->max_properties) {
        emit(out, "FieldValueTooMany", path, "Too many: %zu: must have at most %" PRId64 " item%s",
             n, r->max_properties, r->max_properties == 1 ? "" : "s");
        return false;
    }
    return true;
}

/* objectValidator: property counts (which end it), additional properties, properties in name
   order, then required. Its result is its children's count. */
static size_t
check_object(const json_t *v, const gw_schema_t *s, const char *path, gw_field_errors_t *out)
{
    const struct gw_schema_rules *r = s->rules;
    size_t count = 0;
    const char *key;
    const json_t *val;
    if (!property_counts(v, r, path, out))
        return 0;
    json_object_foreach((json_t *)v, key, val)
    {
        if (s->values == NULL || gw_schema_field(s, key) != NULL)
            continue;
        char *p = child_path(path, key);
        count += validate_node(val, s->values, p, out);
        free(p);
    }
    for (size_t i = 0; i < s->n_fields; i++) {
        const gw_schema_t *fs = s->fields[i].schema;
        if ((val = json_object_get(v, s->fields[i].name)) == NULL)
            continue;
        if (r->metadata != NULL && strcmp(s->fields[i].name, "metadata") == 0)
            fs = r->metadata; /* the CRD's own rules for name and generateName */
        char *p = child_path(path, s->fields[i].name);
        count += validate_node(val, fs, p, out);
        free(p);
    }
    for (size_t i = 0; i < s->n_required; i++) {
        if (json_object_get(v, s->required[i]) != NULL)
            continue;
        char *p = child_path(path, s->required[i]);
        emit(out, "FieldValueRequired", p, "Required value");
        free(p);
    }
    return count;
}

/* ---- allOf, anyOf, oneOf, not ------------------------------------------------------------------
 */

static void
run(const json_t *v, const gw_schema_t *s, const char *path, result_t *r)
{
    *r = (result_t){{NULL}, 0};
    r->count = validate_node(v, s, path, &r->errs);
}

static bool
valid(const result_t *r)
{
    return gw_ferr_count(&r->errs) == 0;
}

/* Report the chosen result (its errors and count) and drop it. */
static size_t
take(result_t *r, gw_field_errors_t *out)
{
    merge(out, &r->errs);
    gw_ferr_clear(&r->errs);
    return r->count;
}

/* anyOf: the first success ends it; else the failure with the most checks applied. */
static size_t
check_any_of(const json_t *v, const struct gw_schema_rules *rl, const char *path,
             gw_field_errors_t *out)
{
    result_t best = {{NULL}, 0}, r;
    bool have_best = false, succeeded = false;
    for (size_t i = 0; i < rl->n_any_of && !succeeded; i++) {
        run(v, rl->any_of[i], path, &r);
        if (valid(&r)) {
            gw_ferr_clear(&best.errs);
            best = r;
            have_best = succeeded = true;
        } else if (!have_best || r.count > best.count) {
            gw_ferr_clear(&best.errs);
            best = r;
            have_best = true;
        } else {
            gw_ferr_clear(&r.errs);
        }
    }
    if (rl->n_any_of > 0 && !succeeded)
        composite(out, path, "validate at least one schema (anyOf)", "");
    return have_best ? take(&best, out) : 0;
}

/* oneOf: exactly one success; else the best failure met before any success. */
static size_t
check_one_of(const json_t *v, const struct gw_schema_rules *rl, const char *path,
             gw_field_errors_t *out)
{
    result_t best = {{NULL}, 0}, first = {{NULL}, 0}, r;
    bool have_best = false, have_first = false;
    size_t validated = 0, count = 0;
    for (size_t i = 0; i < rl->n_one_of; i++) {
        run(v, rl->one_of[i], path, &r);
        if (valid(&r)) {
            validated++;
            gw_ferr_clear(&best.errs);
            have_best = false;
            if (!have_first)
                first = r, have_first = true;
        } else if (validated == 0 && (!have_best || r.count > best.count)) {
            gw_ferr_clear(&best.errs);
            best = r;
            have_best = true;
        } else {
            gw_ferr_clear(&r.errs);
        }
    }
    if (rl->n_one_of > 0 && validated != 1) {
        char *extra = validated == 0 ? gw_strdup(". Found none valid")
                                     : gw_sprintf(". Found %zu valid alternatives", validated);
        composite(out, path, "validate one and only one schema (oneOf)", extra);
        free(extra);
        count += have_best ? take(&best, out) : 0;
    } else if (have_first) {
        count += first.count;
    }
    gw_ferr_clear(&best.errs);
    gw_ferr_clear(&first.errs);
    return count;
}

static size_t
check_all_of(const json_t *v, const struct gw_schema_rules *rl, const char *path,
             gw_field_errors_t *out)
{
    size_t validated = 0, count = 0;
    result_t r;
    for (size_t i = 0; i < rl->n_all_of; i++) {
        run(v, rl->all_of[i], path, &r);
        validated += valid(&r);
        count += take(&r, out);
    }
    if (validated != rl->n_all_of)
        composite(out, path, "validate all the schemas (allOf)",
                  validated == 0 ? ". None validated" : "");
    return count;
}

/* schemaPropsValidator: anyOf, oneOf, allOf, not; 1 plus what it reports. */
static size_t
check_props(const json_t *v, const struct gw_schema_rules *rl, const char *path,
            gw_field_errors_t *out)
{
    size_t count = 1;
    count += check_any_of(v, rl, path, out);
    count += check_one_of(v, rl, path, out);
    count += check_all_of(v, rl, path, out);
    if (rl->not_schema != NULL) {
        result_t r;
        run(v, rl->not_schema, path, &r);
        if (valid(&r))
            composite(out, path, "not validate the schema (not)", "");
        gw_ferr_clear(&r.errs);
    }
    return count;
}

/* ---- one node ------------------------------------------------------------------------------- */

/* the strfmt registry knows every format kube keeps */
static bool
format_applies(const struct gw_schema_rules *r)
{
    return r->format != NULL;
}

/* SchemaValidator.Validate for a null: the type (unless nullable) and the enum only. */
static size_t
validate_null(const gw_schema_t *s, const char *path, gw_field_errors_t *out)
{
    const struct gw_schema_rules *r = s->rules;
    size_t count = 1;
    if (r->type != NULL && !s->nullable && !has_type(r->type, "null")) {
        type_invalid(out, path, r->type, "null");
        count = 0;
    }
    check_enum(NULL, r, path, out);
    return count;
}

static size_t
validate_node(const json_t *v, const gw_schema_t *s, const char *path, gw_field_errors_t *out)
{
    const struct gw_schema_rules *r = s != NULL ? s->rules : NULL;
    size_t count = 0;
    if (r == NULL)
        return 0; /* a built-in schema (metadata): ObjectMeta's validation is its own */
    if (json_is_null(v))
        return validate_null(s, path, out);
    if (r->type != NULL || r->format != NULL)
        count += check_type(v, s, path, out) + 1;
    count += check_props(v, r, path, out) + 1;
    if (json_is_string(v)) {
        string_checks(v, r, path, out);
        count++;
        if (format_applies(r) && !gw_crd__format_ok(r->format, json_string_value(v)))
            type_invalid(out, path, r->format, json_string_value(v));
        count += format_applies(r);
    }
    if (json_is_number(v)) {
        check_number(v, r, path, out);
        count += 2;
    }
    if (json_is_array(v))
        count += check_array(v, s, path, out) + 1;
    check_enum(v, r, path, out);
    count++;
    if (json_is_object(v))
        count += check_object(v, s, path, out) + 1;
    return count + 1;
}

void
gw_crd_validate(const gw_schema_t *root, const json_t *obj, gw_field_errors_t *errs)
{
    if (root == NULL || obj == NULL)
        return;
    validate_node(obj, root, "", errs);
    gw_crd__validate_embedded(root, obj, errs);
    gw_crd__validate_lists(root, obj, errs);
}
