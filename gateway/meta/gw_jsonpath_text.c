/* The text kube's JSONPath prints for a value: encoding/json's Marshal for objects and arrays,
 * fmt's %v for the rest (the values kube decodes JSON into: map[string]interface{},
 * []interface{}, string, int64, float64, bool, nil). */
#include "gw_jsonpath.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_buf.h"
#include "gw_jsonpath_int.h"

/* ---- floats ------------------------------------------------------------------------------ */

/* The fewest significant digits that read back as f (> 0), as strconv's shortest formatting
   finds them, and the power of ten of the first one. */
static int
shortest(double f, char *digits, int *exp10)
{
    char buf[40], *e, *o = digits;
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, sizeof(buf), "%.*e", prec - 1, f);
        if (prec == 17 || strtod(buf, NULL) == f)
            break;
    }
    e = strchr(buf, 'e');
    for (const char *c = buf; c < e; c++) {
        if (*c != '.')
            *o++ = *c;
    }
    while (o > digits + 1 && o[-1] == '0')
        o--;
    *o = '\0';
    *exp10 = atoi(e + 1);
    return (int)(o - digits);
}

/* d.ddde±XX: strconv's 'e' form; JSON drops a leading zero of a negative exponent. */
static void
put_exponent(gw_buf_t *b, const char *d, int nd, int exp10, bool json)
{
    int x = exp10 < 0 ? -exp10 : exp10;
    gw_buf_char(b, d[0]);
    if (nd > 1) {
        gw_buf_char(b, '.');
        gw_buf_add(b, d + 1, (size_t)nd - 1);
    }
    if (json && exp10 < 0)
        gw_buf_printf(b, "e-%d", x);
    else
        gw_buf_printf(b, "e%c%02d", exp10 < 0 ? '-' : '+', x);
}

/* The digits at their place: strconv's 'f' form with just the digits needed. */
static void
put_fixed(gw_buf_t *b, const char *d, int nd, int exp10)
{
    if (exp10 < 0) {
        gw_buf_str(b, "0.");
        for (int i = 0; i < -exp10 - 1; i++)
            gw_buf_char(b, '0');
        gw_buf_add(b, d, (size_t)nd);
        return;
    }
    for (int i = 0; i <= exp10; i++)
        gw_buf_char(b, i < nd ? d[i] : '0');
    if (nd > exp10 + 1) {
        gw_buf_char(b, '.');
        gw_buf_add(b, d + exp10 + 1, (size_t)(nd - exp10 - 1));
    }
}

/* %v of a float64 (strconv 'g' with the shortest digits: the exponent form from 1e+06 and
   below 1e-04), or encoding/json's form (the exponent form from 1e21 and below 1e-6). */
static void
put_float(gw_buf_t *b, double f, bool json)
{
    char d[24];
    int exp10;
    if (f == 0) {
        gw_buf_str(b, signbit(f) ? "-0" : "0");
        return;
    }
    if (f < 0)
        gw_buf_char(b, '-');
    int nd = shortest(fabs(f), d, &exp10);
    bool exp_form = json ? fabs(f) < 1e-6 || fabs(f) >= 1e21 : exp10 < -4 || exp10 >= 6;
    if (exp_form)
        put_exponent(b, d, nd, exp10, json);
    else
        put_fixed(b, d, nd, exp10);
}

/* ---- %v ---------------------------------------------------------------------------------- */

static int
key_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* An object's keys in byte order (Go sorts a map's keys so for both %v and Marshal). */
static const char **
sorted_keys(const json_t *obj, size_t *n)
{
    const char *k;
    json_t *v;
    size_t i = 0;
    *n = json_object_size(obj);
    const char **keys = gw_malloc((*n ? *n : 1) * sizeof(*keys));
    json_object_foreach((json_t *)obj, k, v) keys[i++] = k;
    qsort(keys, *n, sizeof(*keys), key_cmp);
    return keys;
}

static void
put_scalar(gw_buf_t *b, const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_STRING:
        gw_buf_add(b, json_string_value(v), json_string_length(v));
        break;
    case JSON_INTEGER:
        gw_buf_printf(b, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        break;
    case JSON_REAL:
        put_float(b, json_real_value(v), false);
        break;
    case JSON_TRUE:
        gw_buf_str(b, "true");
        break;
    case JSON_FALSE:
        gw_buf_str(b, "false");
        break;
    default:
        gw_buf_str(b, "<nil>");
    }
}

void
gw_jp__go_value(gw_buf_t *b, const json_t *v)
{
    size_t n;
    if (json_is_object(v)) {
        const char **keys = sorted_keys(v, &n);
        gw_buf_str(b, "map[");
        for (size_t i = 0; i < n; i++) {
            gw_buf_printf(b, "%s%s:", i > 0 ? " " : "", keys[i]);
            gw_jp__go_value(b, json_object_get(v, keys[i]));
        }
        gw_buf_char(b, ']');
        free(keys);
    } else if (json_is_array(v)) {
        gw_buf_char(b, '[');
        for (size_t i = 0; i < json_array_size(v); i++) {
            gw_buf_str(b, i > 0 ? " " : "");
            gw_jp__go_value(b, json_array_get(v, i));
        }
        gw_buf_char(b, ']');
    } else {
        put_scalar(b, v);
    }
}

/* ---- encoding/json's Marshal ------------------------------------------------------------- */

/* A JSON string as Go writes it: HTML characters and the line and paragraph separators
   escaped, \b \f \n \r \t short, other controls as \u00xx. */
static void
put_json_string(gw_buf_t *b, const char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    gw_buf_char(b, '"');
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        const char *esc = c == '"'    ? "\\\""
                          : c == '\\' ? "\\\\"
                          : c == '\b' ? "\\b"
                          : c == '\f' ? "\\f"
                          : c == '\n' ? "\\n"
                          : c == '\r' ? "\\r"
                          : c == '\t' ? "\\t"
                                      : NULL;
        if (esc != NULL) {
            gw_buf_str(b, esc);
        } else if (c < 0x20 || c == '<' || c == '>' || c == '&') {
            gw_buf_printf(b, "\\u00%c%c", hex[c >> 4], hex[c & 15]);
        } else if (c == 0xE2 && i + 2 < n && (unsigned char)s[i + 1] == 0x80 &&
                   ((unsigned char)s[i + 2] == 0xA8 || (unsigned char)s[i + 2] == 0xA9)) {
            gw_buf_str(b, (unsigned char)s[i + 2] == 0xA8 ? "\\u2028" : "\\u2029");
            i += 2;
        } else {
            gw_buf_char(b, (char)c);
        }
    }
    gw_buf_char(b, '"');
}

static void
put_json(gw_buf_t *b, const json_t *v)
{
    size_t n;
    if (json_is_object(v)) {
        const char **keys = sorted_keys(v, &n);
        gw_buf_char(b, '{');
        for (size_t i = 0; i < n; i++) {
            gw_buf_str(b, i > 0 ? "," : "");
            put_json_string(b, keys[i], strlen(keys[i]));
            gw_buf_char(b, ':');
            put_json(b, json_object_get(v, keys[i]));
        }
        gw_buf_char(b, '}');
        free(keys);
    } else if (json_is_array(v)) {
        gw_buf_char(b, '[');
        for (size_t i = 0; i < json_array_size(v); i++) {
            gw_buf_str(b, i > 0 ? "," : "");
            put_json(b, json_array_get(v, i));
        }
        gw_buf_char(b, ']');
    } else if (json_is_string(v)) {
        put_json_string(b, json_string_value(v), json_string_length(v));
    } else if (json_is_real(v)) {
        put_float(b, json_real_value(v), true);
    } else if (json_is_null(v)) {
        gw_buf_str(b, "null");
    } else {
        put_scalar(b, v);
    }
}

char *
gw_jsonpath_text(const json_t *v)
{
    gw_buf_t b = {0};
    if (v == NULL)
        gw_buf_str(&b, "<no value>");
    else if (json_is_object(v) || json_is_array(v))
        put_json(&b, v);
    else
        put_scalar(&b, v);
    if (b.data == NULL)
        gw_buf_str(&b, "");
    return gw_buf_take(&b);
}
