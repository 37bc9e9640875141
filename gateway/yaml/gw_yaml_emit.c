/* JSON to YAML for responses, through libyaml's emitter: block style, keys in document order,
 * and strings quoted where a YAML 1.1 reader (yaml.v2, kubectl, ours) would take them for
 * something else, as kube-apiserver's output quotes them ("true", "123", ""). Multi-line
 * strings become literal blocks. */
#include "gw_yaml.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "gw_alloc.h"
#include "gw_buf.h"
#include "gw_yaml_int.h"

static int
write_out(void *data, unsigned char *bytes, size_t size)
{
    gw_buf_add(data, bytes, size);
    return 1;
}

/* The events are well formed by construction and the output never fails, so a refusal is a
 * defect (or an allocation failure): abort as allocation failures do. */
static void
emit(yaml_emitter_t *e, yaml_event_t *ev, int initialized)
{
    if (!initialized || !yaml_emitter_emit(e, ev))
        abort();
}

static void
scalar(yaml_emitter_t *e, const char *s, size_t n, yaml_scalar_style_t style)
{
    yaml_event_t ev;
    emit(
        e, &ev,
        yaml_scalar_event_initialize(&ev, NULL, NULL, (const yaml_char_t *)s, (int)n, 1, 1, style));
}

/* Line breaks other than \n (CR, NEL, LS, PS) would be normalised in a block scalar. */
static bool
has_other_break(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const unsigned char *c = (const unsigned char *)s + i;
        if (*c == '\r' || (*c == 0xc2 && i + 1 < n && c[1] == 0x85) ||
            (*c == 0xe2 && i + 2 < n && c[1] == 0x80 && (c[2] == 0xa8 || c[2] == 0xa9)))
            return true;
    }
    return false;
}

/* Plain when it reads back as this string; libyaml falls back to single quotes when plain
 * cannot carry the text (": ", "#", leading "- ", ...) and to double quotes from there. */
static yaml_scalar_style_t
string_style(const char *s, size_t n)
{
    if (has_other_break(s, n))
        return YAML_DOUBLE_QUOTED_SCALAR_STYLE;
    if (memchr(s, '\n', n) != NULL)
        return YAML_LITERAL_SCALAR_STYLE;
    return gw_yaml__plain_is_string(s, n) ? YAML_PLAIN_SCALAR_STYLE
                                          : YAML_DOUBLE_QUOTED_SCALAR_STYLE;
}

/* The shortest text that reads back as the same double, and as a float. */
static void
real(yaml_emitter_t *e, double v)
{
    char buf[40];
    for (int p = 1; p <= 17; p++) {
        snprintf(buf, sizeof(buf), "%.*g", p, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    if (strpbrk(buf, ".e") == NULL) /* keep it a float: 2^53 and above are not made integers */
        strcat(buf, ".0");
    scalar(e, buf, strlen(buf), YAML_PLAIN_SCALAR_STYLE);
}

static void node(yaml_emitter_t *e, const json_t *v);

static void
mapping(yaml_emitter_t *e, const json_t *v)
{
    yaml_event_t ev;
    const char *k;
    size_t klen;
    json_t *val;
    emit(e, &ev, yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_MAPPING_STYLE));
    json_object_keylen_foreach((json_t *)v, k, klen, val)
    {
        scalar(e, k, klen, string_style(k, klen));
        node(e, val);
    }
    emit(e, &ev, yaml_mapping_end_event_initialize(&ev));
}

static void
sequence(yaml_emitter_t *e, const json_t *v)
{
    yaml_event_t ev;
    emit(e, &ev,
         yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_SEQUENCE_STYLE));
    for (size_t i = 0; i < json_array_size(v); i++)
        node(e, json_array_get(v, i));
    emit(e, &ev, yaml_sequence_end_event_initialize(&ev));
}

static void
node(yaml_emitter_t *e, const json_t *v)
{
    char buf[32];
    switch (json_typeof(v)) {
    case JSON_OBJECT:
        mapping(e, v);
        break;
    case JSON_ARRAY:
        sequence(e, v);
        break;
    case JSON_STRING:
        scalar(e, json_string_value(v), json_string_length(v),
               string_style(json_string_value(v), json_string_length(v)));
        break;
    case JSON_INTEGER:
        snprintf(buf, sizeof(buf), "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        scalar(e, buf, strlen(buf), YAML_PLAIN_SCALAR_STYLE);
        break;
    case JSON_REAL:
        real(e, json_real_value(v));
        break;
    default:
        snprintf(buf, sizeof(buf), "%s",
                 json_is_true(v)    ? "true"
                 : json_is_false(v) ? "false"
                                    : "null");
        scalar(e, buf, strlen(buf), YAML_PLAIN_SCALAR_STYLE);
    }
}

char *
gw_json_to_yaml(const json_t *doc, size_t *len)
{
    gw_buf_t o = {0};
    yaml_emitter_t e;
    yaml_event_t ev;
    if (!yaml_emitter_initialize(&e))
        abort();
    yaml_emitter_set_output(&e, write_out, &o);
    yaml_emitter_set_unicode(&e, 1);
    yaml_emitter_set_width(&e, -1); /* no folding of long lines */
    emit(&e, &ev, yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING));
    emit(&e, &ev, yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1));
    node(&e, doc);
    emit(&e, &ev, yaml_document_end_event_initialize(&ev, 1));
    emit(&e, &ev, yaml_stream_end_event_initialize(&ev));
    yaml_emitter_delete(&e);
    *len = o.len;
    return gw_buf_take(&o);
}
