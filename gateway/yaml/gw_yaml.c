/* YAML request bodies to JSON, the way kube-apiserver reads them: sigs.k8s.io/yaml decodes
 * with Go's yaml.v2 into Go maps and re-encodes with encoding/json. Hence: only the first
 * document counts, keys come out sorted (Go sorts map keys), non-string keys become strings,
 * merge keys apply in order (a later key wins), and integral floats become integers. */
#include "gw_yaml.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "gw_alloc.h"
#include "gw_yaml_int.h"

/* Bounds on hostile input: nesting depth, and values copied by aliases in all. yaml.v2 refuses
 * "excessive aliasing" by a ratio; a fixed budget bounds memory the same way. */
#define YAML_MAX_DEPTH 1000
#define YAML_MAX_ALIAS_NODES 1000000

#define TAG(t) "tag:yaml.org,2002:" t

typedef struct {
    char *name;
    json_t *value; /* NULL while the anchored node is being read */
    size_t nodes;  /* values it holds, aliases expanded */
} anchor_t;

typedef struct {
    yaml_parser_t parser;
    anchor_t *anchors;
    size_t n_anchors;
    json_t *anchor_index; /* name -> index of its latest definition in anchors */
    size_t alias_nodes;
    gw_field_issues_t dups;
    char *err;
    size_t err_len;
} reader_t;

static json_t *read_node(reader_t *rd, yaml_event_t *ev, int depth, bool key, size_t *nodes);

static json_t *fail_at(reader_t *rd, yaml_mark_t m, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Record the error as "yaml: line L, column C: problem", on one line. Returns NULL. */
static json_t *
fail_at(reader_t *rd, yaml_mark_t m, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    snprintf(rd->err, rd->err_len, "yaml: line %zu, column %zu: %s", m.line + 1, m.column + 1, msg);
    for (char *c = rd->err; *c; c++)
        if ((unsigned char)*c < 0x20)
            *c = ' ';
    return NULL;
}

static bool
next_event(reader_t *rd, yaml_event_t *ev)
{
    yaml_parser_t *p = &rd->parser;
    if (yaml_parser_parse(p, ev))
        return true;
    fail_at(rd, p->error == YAML_READER_ERROR ? p->mark : p->problem_mark, "%s",
            p->problem != NULL ? p->problem : "unknown problem parsing YAML content");
    return false;
}

/* ---- scalars ----------------------------------------------------------------------------- */

/* A value as encoding/json re-encodes it: integral floats lose their fraction and so decode as
 * integers (kube accepts `replicas: 1.0` in YAML, not in JSON). */
static json_t *
as_value(json_t *v)
{
    double d = json_real_value(v);
    if (json_is_real(v) && d == floor(d) && fabs(d) < 9007199254740992.0) {
        json_decref(v);
        return json_integer((json_int_t)d);
    }
    return v;
}

static int
b64_value(unsigned char c)
{
    const char *alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const char *p = c != '\0' ? strchr(alphabet, c) : NULL;
    return p != NULL ? (int)(p - alphabet) : -1;
}

/* Standard base64 with padding, line breaks ignored (Go's StdEncoding.DecodeString). */
static bool
b64_decode(const char *s, size_t n, char *out, size_t *out_len)
{
    unsigned acc = 0, bits = 0, pad = 0, seen = 0;
    *out_len = 0;
    for (size_t i = 0; i < n; i++) {
        int v = b64_value((unsigned char)s[i]);
        if (s[i] == '\r' || s[i] == '\n')
            continue;
        seen++;
        if (s[i] == '=') {
            pad++;
            continue;
        }
        if (v < 0 || pad > 0)
            return false;
        acc = (acc << 6) | (unsigned)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[(*out_len)++] = (char)((acc >> bits) & 0xff);
        }
    }
    return seen % 4 == 0 && pad <= 2 && (pad == 0 || bits == (pad == 1 ? 2u : 4u));
}

static json_t *
read_binary(reader_t *rd, const yaml_event_t *ev)
{
    char *buf = gw_malloc(ev->data.scalar.length + 1);
    size_t n;
    json_t *v = NULL;
    if (!b64_decode((const char *)ev->data.scalar.value, ev->data.scalar.length, buf, &n))
        fail_at(rd, ev->start_mark, "!!binary value contains invalid base64 data");
    else if ((v = json_stringn(buf, n)) == NULL)
        fail_at(rd, ev->start_mark, "!!binary value is not UTF-8 text");
    free(buf);
    return v;
}

/* yaml.v2's short name for what a scalar resolved to, for its "cannot decode" message */
static const char *
kind_of(const json_t *v, const char *s, size_t n)
{
    switch (json_typeof(v)) {
    case JSON_INTEGER:
        return "int";
    case JSON_REAL:
        return "float";
    case JSON_TRUE:
    case JSON_FALSE:
        return "bool";
    case JSON_NULL:
        return "null";
    default:
        return gw_yaml__timestamp_like(s, n) ? "timestamp" : "str";
    }
}

/* A scalar with a resolvable tag (!!int, !!float, !!bool, !!timestamp): it must resolve to
 * that kind (an int may stand for a float). */
static json_t *
read_tagged(reader_t *rd, const yaml_event_t *ev, const char *want)
{
    const char *s = (const char *)ev->data.scalar.value, *special;
    size_t n = ev->data.scalar.length;
    json_t *v = gw_yaml__resolve(s, n, &special);
    const char *got = special != NULL ? "float" : kind_of(v, s, n);
    if (strcmp(got, want) != 0 && !(strcmp(want, "float") == 0 && strcmp(got, "int") == 0)) {
        json_decref(v);
        return fail_at(rd, ev->start_mark, "cannot decode !!%s `%.60s` as a !!%s", got, s, want);
    }
    return v != NULL ? v : fail_at(rd, ev->start_mark, "json: unsupported value: %s", special);
}

/* The kind a tag asks for when yaml.v2 resolves scalars under it, or NULL (!!str, local tags
 * and the rest leave the text a string). */
static const char *
resolvable_kind(const char *tag)
{
    static const char *const kinds[] = {"int", "float", "bool", "timestamp"};
    size_t plen = strlen(TAG(""));
    if (strncmp(tag, TAG(""), plen) != 0)
        return NULL;
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
        if (strcmp(tag + plen, kinds[i]) == 0)
            return kinds[i];
    return NULL;
}

static json_t *
text(reader_t *rd, const yaml_event_t *ev)
{
    json_t *v = json_stringn((const char *)ev->data.scalar.value, ev->data.scalar.length);
    return v != NULL ? v : fail_at(rd, ev->start_mark, "invalid UTF-8 in a string");
}

static json_t *
read_scalar(reader_t *rd, const yaml_event_t *ev, bool key)
{
    const char *tag = (const char *)ev->data.scalar.tag, *special = NULL, *kind = NULL;
    json_t *v;
    if (tag == NULL && !ev->data.scalar.plain_implicit)
        return text(rd, ev); /* quoted and block scalars are strings */
    if (tag != NULL && strcmp(tag, TAG("binary")) == 0)
        return read_binary(rd, ev);
    if (tag != NULL && (kind = resolvable_kind(tag)) == NULL)
        return text(rd, ev);
    if (kind != NULL)
        v = read_tagged(rd, ev, kind);
    else
        v = gw_yaml__resolve((const char *)ev->data.scalar.value, ev->data.scalar.length, &special);
    /* yaml.v2 names such keys as Go prints those floats; as values JSON cannot carry them */
    if (special != NULL && key)
        return json_string(strcmp(special, "NaN") == 0    ? ".nan"
                           : strcmp(special, "+Inf") == 0 ? ".inf"
                                                          : "-.inf");
    if (special != NULL)
        return fail_at(rd, ev->start_mark, "json: unsupported value: %s", special);
    return key || v == NULL ? v : as_value(v);
}

/* ---- anchors and aliases ---------------------------------------------------------------- */

static size_t
open_anchor(reader_t *rd, const char *name)
{
    if ((rd->n_anchors & (rd->n_anchors - 1)) == 0)
        rd->anchors =
            gw_realloc(rd->anchors, (rd->n_anchors ? rd->n_anchors * 2 : 1) * sizeof(*rd->anchors));
    rd->anchors[rd->n_anchors] = (anchor_t){gw_strdup(name), NULL, 0};
    json_object_set_new_nocheck(rd->anchor_index, name, json_integer((json_int_t)rd->n_anchors));
    return rd->n_anchors++;
}

static json_t *
read_alias(reader_t *rd, const yaml_event_t *ev, size_t *nodes)
{
    const char *name = (const char *)ev->data.alias.anchor;
    const json_t *i = json_object_get(rd->anchor_index, name);
    const anchor_t *a = i != NULL ? &rd->anchors[json_integer_value(i)] : NULL;
    if (a == NULL)
        return fail_at(rd, ev->start_mark, "unknown anchor '%.60s' referenced", name);
    if (a->value == NULL)
        return fail_at(rd, ev->start_mark, "anchor '%.60s' value contains itself", name);
    rd->alias_nodes += a->nodes;
    if (rd->alias_nodes > YAML_MAX_ALIAS_NODES)
        return fail_at(rd, ev->start_mark, "document contains excessive aliasing");
    *nodes = a->nodes;
    return json_deep_copy(a->value);
}

/* ---- mappings ---------------------------------------------------------------------------- */

/* A Go-syntax quoted string (%#v), as yaml.v2 names a duplicate key. */
static char *
go_quote(const char *s, size_t n)
{
    char *out = gw_malloc(n * 4 + 3), *o = out;
    *o++ = '"';
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        const char *esc = c == '"'    ? "\\\""
                          : c == '\\' ? "\\\\"
                          : c == '\n' ? "\\n"
                          : c == '\t' ? "\\t"
                          : c == '\r' ? "\\r"
                                      : NULL;
        if (esc != NULL)
            o += sprintf(o, "%s", esc);
        else if (c < 0x20 || c == 0x7f)
            o += sprintf(o, "\\x%02x", c);
        else
            *o++ = (char)c;
    }
    *o++ = '"';
    *o = '\0';
    return out;
}

/* A float key as sigs.k8s.io/yaml names it: strconv.FormatFloat(k, 'g', -1, 32). */
static char *
float_key(double v)
{
    float f = (float)v;
    char buf[64];
    int p = 1, exp;
    if (isinf(f)) /* beyond float32: Go prints +Inf, which yaml.v2 spells .inf */
        return gw_strdup(f > 0 ? ".inf" : "-.inf");
    for (; p < 9; p++) {
        snprintf(buf, sizeof(buf), "%.*e", p - 1, (double)f);
        if (strtof(buf, NULL) == f)
            break;
    }
    exp = atoi(strchr(buf, 'e') + 1);
    if (exp >= -4 && exp < 6)
        snprintf(buf, sizeof(buf), "%.*f", p - 1 - exp > 0 ? p - 1 - exp : 0, (double)f);
    return gw_strdup(buf);
}

/* The string a key becomes (sigs.k8s.io/yaml converts numbers and booleans), or NULL after
 * recording the error for a null or a collection. */
static char *
key_string(reader_t *rd, const json_t *key, yaml_mark_t m, size_t *len)
{
    char *s = NULL;
    switch (json_typeof(key)) {
    case JSON_STRING:
        *len = json_string_length(key);
        return gw_memdup(json_string_value(key), *len + 1);
    case JSON_INTEGER:
        s = gw_sprintf("%" JSON_INTEGER_FORMAT, json_integer_value(key));
        break;
    case JSON_REAL:
        s = float_key(json_real_value(key));
        break;
    case JSON_TRUE:
    case JSON_FALSE:
        s = gw_strdup(json_is_true(key) ? "true" : "false");
        break;
    case JSON_NULL:
        fail_at(rd, m, "unsupported map key: null");
        return NULL;
    default:
        fail_at(rd, m, "invalid map key: a %s", json_is_object(key) ? "mapping" : "sequence");
        return NULL;
    }
    *len = strlen(s);
    return s;
}

/* Set key to val (stolen); a key set twice keeps the later value and is reported as
 * kube-apiserver's strict YAML decoding reports it. */
static int
set_member(reader_t *rd, json_t *obj, const json_t *key, json_t *val, yaml_mark_t km,
           yaml_mark_t vm)
{
    size_t len;
    char *k = key_string(rd, key, km, &len);
    if (k == NULL) {
        json_decref(val);
        return -1;
    }
    if (json_object_getn(obj, k, len) != NULL) {
        char *name = json_is_string(key) ? go_quote(k, len) : gw_strdup(k);
        char *msg = gw_sprintf("line %zu: key %s already set in map", vm.line + 1, name);
        gw_field_issues_add(&rd->dups, GW_FIELD_DUPLICATE, "", msg);
        free(name);
        free(msg);
    }
    json_object_setn_new_nocheck(obj, k, len, val);
    free(k);
    return 0;
}

/* `<<: map` or `<<: [map, ...]` (earlier maps win among themselves); as in yaml.v2 the merged
 * keys override the keys set before the merge key. Steals val. */
static int
merge_into(reader_t *rd, json_t *obj, json_t *val, yaml_mark_t vm)
{
    bool ok = json_is_object(val) || json_is_array(val);
    for (size_t i = 0; json_is_array(val) && i < json_array_size(val); i++)
        ok &= json_is_object(json_array_get(val, i));
    if (!ok) {
        json_decref(val);
        fail_at(rd, vm, "map merge requires map or sequence of maps as the value");
        return -1;
    }
    if (json_is_object(val))
        json_object_update(obj, val);
    for (size_t i = json_array_size(val); i > 0; i--)
        json_object_update(obj, json_array_get(val, i - 1));
    json_decref(val);
    return 0;
}

static bool
is_merge_key(const yaml_event_t *ev)
{
    const char *tag = (const char *)ev->data.scalar.tag;
    return ev->type == YAML_SCALAR_EVENT && ev->data.scalar.length == 2 &&
           memcmp(ev->data.scalar.value, "<<", 2) == 0 &&
           (tag != NULL ? strcmp(tag, TAG("merge")) == 0 : ev->data.scalar.plain_implicit);
}

typedef struct {
    const char *key;
    size_t len;
    json_t *value;
} member_t;

static int
member_cmp(const void *a, const void *b)
{
    const member_t *x = a, *y = b;
    int c = memcmp(x->key, y->key, x->len < y->len ? x->len : y->len);
    return c != 0 ? c : (x->len > y->len) - (x->len < y->len);
}

/* Keys in Go's order for map keys (bytewise), as encoding/json writes a Go map. */
static json_t *
sorted(json_t *obj)
{
    size_t n = json_object_size(obj), i = 0, klen;
    const char *k;
    json_t *v;
    if (n < 2)
        return obj;
    member_t *m = gw_malloc(n * sizeof(*m));
    json_object_keylen_foreach(obj, k, klen, v) m[i++] = (member_t){k, klen, v};
    qsort(m, n, sizeof(*m), member_cmp);
    json_t *out = json_object();
    for (i = 0; i < n; i++)
        json_object_setn_nocheck(out, m[i].key, m[i].len, m[i].value);
    free(m);
    json_decref(obj);
    return out;
}

/* One key and its value; returns 0, 1 at the end of the mapping, -1 on error. */
static int
read_member(reader_t *rd, json_t *obj, int depth, size_t *nodes)
{
    yaml_event_t kev, vev;
    size_t kn, vn;
    if (!next_event(rd, &kev))
        return -1;
    if (kev.type == YAML_MAPPING_END_EVENT) {
        yaml_event_delete(&kev);
        return 1;
    }
    bool merge = is_merge_key(&kev);
    yaml_mark_t km = kev.start_mark;
    json_t *key = read_node(rd, &kev, depth + 1, true, &kn);
    if (key == NULL)
        return -1;
    if (!next_event(rd, &vev)) {
        json_decref(key);
        return -1;
    }
    yaml_mark_t vm = vev.start_mark;
    json_t *val = read_node(rd, &vev, depth + 1, false, &vn);
    int rc = -1;
    if (val != NULL) {
        *nodes += kn + vn;
        rc = merge ? merge_into(rd, obj, val, vm) : set_member(rd, obj, key, val, km, vm);
    }
    json_decref(key);
    return rc;
}

static json_t *
read_mapping(reader_t *rd, int depth, size_t *nodes)
{
    json_t *obj = json_object();
    int rc;
    while ((rc = read_member(rd, obj, depth, nodes)) == 0)
        ;
    if (rc > 0)
        return sorted(obj);
    json_decref(obj);
    return NULL;
}

static json_t *
read_sequence(reader_t *rd, int depth, size_t *nodes)
{
    json_t *arr = json_array();
    for (;;) {
        yaml_event_t ev;
        size_t n;
        if (!next_event(rd, &ev))
            break;
        if (ev.type == YAML_SEQUENCE_END_EVENT) {
            yaml_event_delete(&ev);
            return arr;
        }
        json_t *v = read_node(rd, &ev, depth + 1, false, &n);
        if (v == NULL)
            break;
        *nodes += n;
        json_array_append_new(arr, v);
    }
    json_decref(arr);
    return NULL;
}

/* Read the node that starts with ev (consumed). `key`: the node is a mapping key, so floats
 * stay floats (the key's text depends on it). Counts the values it holds into *nodes. */
static json_t *
read_node(reader_t *rd, yaml_event_t *ev, int depth, bool key, size_t *nodes)
{
    json_t *v = NULL;
    const char *anchor = NULL;
    size_t slot = SIZE_MAX;
    bool seq = ev->type == YAML_SEQUENCE_START_EVENT;
    *nodes = 1;
    if (ev->type == YAML_ALIAS_EVENT) {
        v = read_alias(rd, ev, nodes);
    } else if (ev->type == YAML_SCALAR_EVENT) {
        anchor = (const char *)ev->data.scalar.anchor;
        v = read_scalar(rd, ev, key);
    } else if (depth >= YAML_MAX_DEPTH) {
        fail_at(rd, ev->start_mark, "exceeded max depth of %d", YAML_MAX_DEPTH);
    } else {
        anchor =
            (const char *)(seq ? ev->data.sequence_start.anchor : ev->data.mapping_start.anchor);
        slot = anchor != NULL ? open_anchor(rd, anchor) : SIZE_MAX;
        v = seq ? read_sequence(rd, depth, nodes) : read_mapping(rd, depth, nodes);
    }
    if (v != NULL && anchor != NULL) {
        slot = slot != SIZE_MAX ? slot : open_anchor(rd, anchor);
        rd->anchors[slot].value = json_incref(v);
        rd->anchors[slot].nodes = *nodes;
    }
    yaml_event_delete(ev);
    return v;
}

/* The first document's root (kube-apiserver's yaml.v2 Unmarshal ignores any later ones), up
 * to and including its document end; null for an empty stream. */
static json_t *
read_document(reader_t *rd)
{
    yaml_event_t ev;
    size_t nodes;
    if (!next_event(rd, &ev))
        return NULL;
    yaml_event_delete(&ev); /* stream start */
    if (!next_event(rd, &ev))
        return NULL;
    bool empty = ev.type == YAML_STREAM_END_EVENT;
    yaml_event_delete(&ev); /* document start */
    if (empty)
        return json_null();
    if (!next_event(rd, &ev))
        return NULL;
    json_t *doc = read_node(rd, &ev, 0, false, &nodes);
    if (doc != NULL && !next_event(rd, &ev)) {
        json_decref(doc);
        return NULL;
    }
    if (doc != NULL)
        yaml_event_delete(&ev); /* document end */
    return doc;
}

json_t *
gw_yaml_to_json_dups(const char *yaml, size_t len, gw_field_issues_t *dups, char *err,
                     size_t err_len)
{
    reader_t rd = {.err = err, .err_len = err_len, .anchor_index = json_object()};
    if (!yaml_parser_initialize(&rd.parser))
        abort(); /* only fails to allocate */
    yaml_parser_set_input_string(&rd.parser, (const unsigned char *)yaml, len);
    json_t *doc = read_document(&rd);
    for (size_t i = 0; doc != NULL && dups != NULL && i < rd.dups.n; i++)
        gw_field_issues_add(dups, GW_FIELD_DUPLICATE, "", rd.dups.items[i].message);
    gw_field_issues_clear(&rd.dups);
    for (size_t i = 0; i < rd.n_anchors; i++) {
        free(rd.anchors[i].name);
        json_decref(rd.anchors[i].value);
    }
    free(rd.anchors);
    json_decref(rd.anchor_index);
    yaml_parser_delete(&rd.parser);
    return doc;
}

json_t *
gw_yaml_to_json(const char *yaml, size_t len, char *err, size_t err_len)
{
    return gw_yaml_to_json_dups(yaml, len, NULL, err, err_len);
}
