/*
 * Go's encoding/json over described Go structs: kube keeps what an older version cannot say in
 * annotations holding json.Marshal of a Go value, and reads them back with json.Unmarshal, so a
 * spoke that writes or reads them must follow both to the byte: field order, omitempty, the
 * zeros Go writes for what is unset, its string escapes, and the decoder's leniency (keys in
 * any case, unknown keys skipped) and strictness (a wrong type fails the whole value).
 */
#include "gw_convert_int.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gw_alloc.h"
#include "gw_buf.h"
#include "gw_fieldval.h"

/* ---- decoding ---------------------------------------------------------------------------- */

static void
gj_put(json_t **slot, json_t *v)
{
    json_decref(*slot);
    *slot = v;
}

/* Go's field lookup: the exact name first, else the first field equal ignoring case. */
static const gw_go_field_t *
gj_field(const gw_go_field_t *fields, const char *key)
{
    for (const gw_go_field_t *f = fields; f->name != NULL; f++)
        if (strcmp(f->name, key) == 0)
            return f;
    for (const gw_go_field_t *f = fields; f->name != NULL; f++)
        if (strcasecmp(f->name, key) == 0)
            return f;
    return NULL;
}

/* A literal null: a value stays as it is, a pointer, list or map becomes nil; Quantity and
 * Time have their own decoders, which take null as their zero. */
static bool
gj_null(const gw_go_field_t *f, json_t **slot)
{
    if (f->kind != GW_GO_STRING && f->kind != GW_GO_INT32 && f->kind != GW_GO_STRUCT)
        gj_put(slot, NULL);
    return true;
}

static bool
gj_struct(const gw_go_field_t *fields, const json_t *in, json_t **slot)
{
    const char *key;
    json_t *val;

    if (!json_is_object(in))
        return false;
    if (!json_is_object(*slot))
        gj_put(slot, json_object());
    json_object_foreach((json_t *)in, key, val)
    {
        const gw_go_field_t *f = gj_field(fields, key);
        json_t *cur;
        bool ok;

        if (f == NULL)
            continue;
        cur = json_incref(json_object_get(*slot, f->name));
        ok = gw_convert__go_decode(f, val, &cur);
        if (cur != NULL)
            json_object_set_new(*slot, f->name, cur);
        else
            json_object_del(*slot, f->name);
        if (!ok)
            return false;
    }
    return true;
}

/* A list is decoded afresh; a null element is its type's zero. */
static bool
gj_list(const gw_go_field_t *f, const json_t *in, json_t **slot)
{
    json_t *out, *e;
    size_t i;

    if (!json_is_array(in))
        return false;
    out = json_array();
    json_array_foreach(in, i, e)
    {
        json_t *d = f->kind == GW_GO_LIST ? json_object() : json_string("");

        if (!json_is_null(e) &&
            (f->kind == GW_GO_LIST ? !gj_struct(f->sub, e, &d) : !json_is_string(e))) {
            json_decref(d);
            json_decref(out);
            return false;
        }
        if (f->kind == GW_GO_STRLIST && json_is_string(e))
            gj_put(&d, json_copy(e));
        json_array_append_new(out, d);
    }
    gj_put(slot, out);
    return true;
}

/* A map is decoded into the one already there; a null value is "". */
static bool
gj_strmap(const json_t *in, json_t **slot)
{
    const char *key;
    json_t *val;

    if (!json_is_object(in))
        return false;
    if (!json_is_object(*slot))
        gj_put(slot, json_object());
    json_object_foreach((json_t *)in, key, val)
    {
        if (!json_is_null(val) && !json_is_string(val))
            return false;
        json_object_set_new(*slot, key, json_is_null(val) ? json_string("") : json_copy(val));
    }
    return true;
}

/* resource.Quantity's UnmarshalJSON: a string (quotes dropped, spaces trimmed) or any other
 * literal's text, through ParseQuantity. The string is kept as given, not made canonical: kgate
 * stores quantities as they were written. A JSON number becomes its decimal text. */
static bool
gj_quantity(const json_t *in, json_t **slot)
{
    char *text;
    bool ok;

    if (json_is_string(in)) {
        const char *s = json_string_value(in);
        size_t n;

        s += strspn(s, " \t\n\r\v\f");
        n = strlen(s);
        while (n > 0 && strchr(" \t\n\r\v\f", s[n - 1]) != NULL)
            n--;
        text = gw_strndup(s, n);
    } else if (json_is_integer(in)) {
        text = gw_sprintf("%" JSON_INTEGER_FORMAT, json_integer_value(in));
    } else if (json_is_real(in)) {
        text = gw_sprintf("%.17g", json_real_value(in));
    } else {
        return false;
    }
    ok = gw_fieldval_quantity_ok(text);
    if (ok)
        gj_put(slot, json_string(text));
    free(text);
    return ok;
}

/* A string, or metav1.Time's: a string time.Parse(time.RFC3339) takes. */
static bool
gj_string_value(const json_t *in, bool is_time, json_t **slot)
{
    if (!json_is_string(in) || (is_time && !gw_fieldval_time_ok(json_string_value(in))))
        return false;
    gj_put(slot, json_copy((json_t *)in));
    return true;
}

static bool
gj_int32(const json_t *in, json_t **slot)
{
    json_int_t n = json_integer_value(in);

    if (!json_is_integer(in) || n < INT32_MIN || n > INT32_MAX)
        return false;
    gj_put(slot, json_integer(n));
    return true;
}

bool
gw_convert__go_decode(const gw_go_field_t *f, const json_t *in, json_t **slot)
{
    if (json_is_null(in))
        return gj_null(f, slot);
    switch (f->kind) {
    case GW_GO_STRING:
    case GW_GO_STRINGP:
        return gj_string_value(in, false, slot);
    case GW_GO_INT32:
    case GW_GO_INT32P:
        return gj_int32(in, slot);
    case GW_GO_QTY:
    case GW_GO_QTYP:
        return gj_quantity(in, slot);
    case GW_GO_TIME:
        return gj_string_value(in, true, slot);
    case GW_GO_STRUCT:
    case GW_GO_STRUCTP:
        return gj_struct(f->sub, in, slot);
    case GW_GO_LIST:
    case GW_GO_STRLIST:
        return gj_list(f, in, slot);
    case GW_GO_STRMAP:
        return gj_strmap(in, slot);
    }
    return false;
}

/* ---- the value Go writes ----------------------------------------------------------------- */

/* omitempty: false, 0, "", a nil pointer, an empty list or map; never a struct. */
static bool
gj_empty(const gw_go_field_t *f, const json_t *v)
{
    switch (f->kind) {
    case GW_GO_STRING:
        return !json_is_string(v) || json_string_length(v) == 0;
    case GW_GO_INT32:
        return json_integer_value(v) == 0;
    case GW_GO_LIST:
    case GW_GO_STRLIST:
        return json_array_size(v) == 0;
    case GW_GO_STRMAP:
        return json_object_size(v) == 0;
    case GW_GO_QTY:
    case GW_GO_TIME:
    case GW_GO_STRUCT:
        return false;
    default: /* the pointers */
        return v == NULL;
    }
}

static int
gj_strcmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A map's keys sorted, as Go writes them. */
static json_t *
gj_sorted_map(const json_t *m)
{
    size_t n = json_object_size(m), i = 0;
    const char **keys = gw_calloc(n ? n : 1, sizeof(*keys));
    const char *key;
    json_t *val, *out = json_object();

    json_object_foreach((json_t *)m, key, val) keys[i++] = key;
    qsort(keys, n, sizeof(*keys), gj_strcmp);
    for (i = 0; i < n; i++) {
        val = json_object_get(m, keys[i]);
        json_object_set_new(out, keys[i], json_is_string(val) ? json_copy(val) : json_string(""));
    }
    free(keys);
    return out;
}

static json_t *
gj_struct_value(const gw_go_field_t *fields, const json_t *v, bool untagged)
{
    json_t *out = json_object();

    for (const gw_go_field_t *f = fields; f->name != NULL; f++) {
        json_t *m = json_object_get(v, f->name);
        char go_name[64];

        if (json_is_null(m))
            m = NULL;
        if (untagged) {
            snprintf(go_name, sizeof(go_name), "%s", f->name);
            if (go_name[0] >= 'a' && go_name[0] <= 'z')
                go_name[0] = (char)(go_name[0] - 'a' + 'A');
            json_object_set_new(out, go_name, gw_convert__go_value(f, m, true));
        } else if (!f->omitempty || !gj_empty(f, m)) {
            json_object_set_new(out, f->name, gw_convert__go_value(f, m, false));
        }
    }
    return out;
}

static json_t *
gj_list_value(const gw_go_field_t *f, const json_t *v, bool untagged)
{
    json_t *out = json_array(), *e;
    size_t i;

    json_array_foreach(v, i, e)
    {
        if (f->kind == GW_GO_LIST)
            json_array_append_new(out, gj_struct_value(f->sub, e, untagged));
        else
            json_array_append_new(out, json_is_string(e) ? json_copy(e) : json_string(""));
    }
    return out;
}

json_t *
gw_convert__go_value(const gw_go_field_t *f, const json_t *v, bool untagged)
{
    if (json_is_null(v))
        v = NULL;
    switch (f->kind) {
    case GW_GO_STRING:
        return json_is_string(v) ? json_copy((json_t *)v) : json_string("");
    case GW_GO_INT32:
        return json_integer(json_integer_value(v));
    case GW_GO_QTY:
        return json_is_string(v) ? json_copy((json_t *)v) : json_string("0");
    case GW_GO_STRUCT:
        return gj_struct_value(f->sub, v, untagged);
    default:
        break;
    }
    if (v == NULL) /* a nil pointer, list or map; a zero Time */
        return json_null();
    switch (f->kind) {
    case GW_GO_INT32P:
        return json_integer(json_integer_value(v));
    case GW_GO_STRUCTP:
        return gj_struct_value(f->sub, v, untagged);
    case GW_GO_LIST:
    case GW_GO_STRLIST:
        return gj_list_value(f, v, untagged);
    case GW_GO_STRMAP:
        return gj_sorted_map(v);
    default: /* *string, *Quantity, Time */
        return json_is_string(v) ? json_copy((json_t *)v) : json_null();
    }
}

/* ---- Go's JSON text ---------------------------------------------------------------------- */

/* The length of the UTF-8 sequence at s (n bytes left), or 0 when it is not valid UTF-8. */
static size_t
gj_utf8_len(const unsigned char *s, size_t n)
{
    size_t len = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc0 ? 2 : 0;

    if (len == 0 || len > n || s[0] > 0xf4)
        return 0;
    for (size_t i = 1; i < len; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    return len;
}

/* encoding/json's string escapes with HTML escaping on (json.Marshal's default). */
static void
gj_string(gw_buf_t *b, const char *str, size_t n)
{
    const unsigned char *s = (const unsigned char *)str;
    static const char hex[] = "0123456789abcdef";

    gw_buf_add(b, "\"", 1);
    for (size_t i = 0; i < n;) {
        unsigned char c = s[i];
        size_t len;

        if (c < 0x80) {
            const char *esc = c == '"'    ? "\\\""
                              : c == '\\' ? "\\\\"
                              : c == '\b' ? "\\b"
                              : c == '\f' ? "\\f"
                              : c == '\n' ? "\\n"
                              : c == '\r' ? "\\r"
                              : c == '\t' ? "\\t"
                                          : NULL;
            char u[7] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15], '\0'};

            if (esc != NULL)
                gw_buf_str(b, esc);
            else if (c < 0x20 || c == '<' || c == '>' || c == '&')
                gw_buf_str(b, u);
            else
                gw_buf_add(b, (const char *)&s[i], 1);
            i++;
            continue;
        }
        len = gj_utf8_len(s + i, n - i);
        if (len == 0)
            gw_buf_str(b, "\\ufffd");
        else if (len == 3 && c == 0xe2 && s[i + 1] == 0x80 && (s[i + 2] & 0xfe) == 0xa8)
            gw_buf_str(b, s[i + 2] == 0xa8 ? "\\u2028" : "\\u2029");
        else
            gw_buf_add(b, (const char *)&s[i], len);
        i += len ? len : 1;
    }
    gw_buf_add(b, "\"", 1);
}

static void
gj_dump(gw_buf_t *b, const json_t *v)
{
    char num[40];
    const char *key;
    json_t *val;
    size_t i, k = 0;

    switch (json_typeof(v)) {
    case JSON_OBJECT:
        gw_buf_add(b, "{", 1);
        json_object_foreach((json_t *)v, key, val)
        {
            if (k++ > 0)
                gw_buf_add(b, ",", 1);
            gj_string(b, key, strlen(key));
            gw_buf_add(b, ":", 1);
            gj_dump(b, val);
        }
        gw_buf_add(b, "}", 1);
        return;
    case JSON_ARRAY:
        gw_buf_add(b, "[", 1);
        json_array_foreach(v, i, val)
        {
            if (i > 0)
                gw_buf_add(b, ",", 1);
            gj_dump(b, val);
        }
        gw_buf_add(b, "]", 1);
        return;
    case JSON_STRING:
        gj_string(b, json_string_value(v), json_string_length(v));
        return;
    case JSON_INTEGER:
        snprintf(num, sizeof(num), "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        gw_buf_str(b, num);
        return;
    case JSON_REAL:
        snprintf(num, sizeof(num), "%.17g", json_real_value(v));
        gw_buf_str(b, num);
        return;
    case JSON_TRUE:
        gw_buf_str(b, "true");
        return;
    case JSON_FALSE:
        gw_buf_str(b, "false");
        return;
    default:
        gw_buf_str(b, "null");
        return;
    }
}

char *
gw_convert__go_json(const json_t *v)
{
    gw_buf_t b = {0};

    gj_dump(&b, v);
    return gw_buf_take(&b);
}
