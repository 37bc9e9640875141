/*
 * Stored object bytes. Values in etcd carry no metadata.resourceVersion (kube-apiserver's etcd3
 * store strips it before writing and sets it from the key's mod_revision on read), so every
 * object served needs it added. Parsing and re-encoding a 2 KiB object costs far more than a
 * scan for the place to insert it, so the common shape is spliced and anything unusual goes
 * through Jansson.
 */
#include "gw_registry_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_catalog.h"
#include "gw_convert.h"
#include "gw_crd.h"
#include "gw_crd_schema.h"
#include "gw_gozero.h"
#include "gw_json.h"

/* The scanner trusts nothing: every helper returns NULL when the text runs out or is not JSON
 * of the expected shape, and the caller falls back to Jansson, which reports real errors. */

static const char *
skip_ws(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
        p++;
    return p;
}

/* p at the opening quote; returns just past the closing one. *escaped says whether a
 * backslash occurred (such a key cannot be compared byte for byte). Strings are most of a
 * stored object's bytes, so the quote is found with memchr, not byte by byte. */
static const char *
skip_string(const char *p, const char *end, bool *escaped)
{
    const char *q = p + 1;

    *escaped = false;
    for (;;) {
        const char *quote = memchr(q, '"', (size_t)(end - q)), *bs;

        if (quote == NULL)
            return NULL;
        bs = memchr(q, '\\', (size_t)(quote - q));
        if (bs == NULL)
            return quote + 1;
        *escaped = true;
        if (end - bs < 2)
            return NULL;
        q = bs + 2; /* past the escaped character, which may be a quote */
    }
}

/* Any value: strings, nested containers (by depth, strings skipped whole) and literals. */
static const char *
skip_value(const char *p, const char *end)
{
    bool esc;
    int depth = 0;

    if (p >= end)
        return NULL;
    if (*p == '"')
        return skip_string(p, end, &esc);
    if (*p != '{' && *p != '[') {
        while (p < end && *p != ',' && *p != '}' && *p != ']' && *p != ' ' && *p != '\n' &&
               *p != '\t' && *p != '\r')
            p++;
        return p;
    }
    for (; p < end; p++) {
        if (*p == '"') {
            p = skip_string(p, end, &esc);
            if (p == NULL)
                return NULL;
            p--;
        } else if (*p == '{' || *p == '[') {
            depth++;
        } else if ((*p == '}' || *p == ']') && --depth == 0) {
            return p + 1;
        }
    }
    return NULL;
}

/* p just inside an object's '{'. Calls visit for each member's key with the value's start;
 * a visit returning non-NULL stops the walk with that answer. Returns NULL on bad shape. */
typedef const char *(*member_fn)(const char *key, size_t klen, const char *value, const char *end,
                                 void *arg);

static const char *
walk_members(const char *p, const char *end, member_fn visit, void *arg, bool *stopped)
{
    bool esc;

    *stopped = false;
    p = skip_ws(p, end);
    if (p < end && *p == '}')
        return p + 1;
    for (;;) {
        const char *k = p, *kend, *v, *got;

        if (p >= end || *p != '"' || (kend = skip_string(p, end, &esc)) == NULL || esc)
            return NULL;
        p = skip_ws(kend, end);
        if (p >= end || *p != ':')
            return NULL;
        v = skip_ws(p + 1, end);
        got = visit(k + 1, (size_t)(kend - k) - 2, v, end, arg);
        if (got != NULL) {
            *stopped = true;
            return got;
        }
        p = skip_value(v, end);
        if (p == NULL)
            return NULL;
        p = skip_ws(p, end);
        if (p >= end)
            return NULL;
        if (*p == '}')
            return p + 1;
        if (*p != ',')
            return NULL;
        p = skip_ws(p + 1, end);
    }
}

static bool
key_is(const char *key, size_t klen, const char *word)
{
    return klen == strlen(word) && memcmp(key, word, klen) == 0;
}

static const char *
find_rv(const char *key, size_t klen, const char *value, const char *end, void *arg)
{
    (void)value;
    (void)end;
    (void)arg;
    return key_is(key, klen, "resourceVersion") ? key : NULL;
}

static const char *
find_metadata(const char *key, size_t klen, const char *value, const char *end, void *arg)
{
    (void)arg;
    if (!key_is(key, klen, "metadata"))
        return NULL;
    /* A metadata that is not an object stops the walk with an answer the caller rejects. */
    return value < end && *value == '{' ? value : end;
}

/* What one walk over a stored object's top-level members finds: apiVersion and kind (plain
 * strings; `odd` when one is not) and the metadata object. */
typedef struct {
    const char *av, *kind, *meta;
    size_t av_len, kind_len;
    bool odd;
} top_t;

static const char *
plain_string(const char *value, const char *end, size_t *len, bool *odd)
{
    bool esc;
    const char *after = value < end && *value == '"' ? skip_string(value, end, &esc) : NULL;

    if (after == NULL || esc) {
        *odd = true;
        return NULL;
    }
    *len = (size_t)(after - value) - 2;
    return value + 1;
}

static const char *
find_top(const char *key, size_t klen, const char *value, const char *end, void *arg)
{
    top_t *t = arg;

    if (key_is(key, klen, "apiVersion")) {
        t->av = plain_string(value, end, &t->av_len, &t->odd);
    } else if (key_is(key, klen, "kind")) {
        t->kind = plain_string(value, end, &t->kind_len, &t->odd);
    } else if (key_is(key, klen, "metadata")) {
        /* A metadata that is not an object stops the walk with an answer the caller rejects. */
        if (value >= end || *value != '{') {
            t->odd = true;
            return end;
        }
        t->meta = value;
    }
    /* Stored keys are sorted: apiVersion and kind come before metadata, and the walk stops
     * there; unsorted bytes are walked further. */
    return t->meta != NULL && t->av != NULL && t->kind != NULL ? key : NULL;
}

/* One walk: *t filled, and where the resourceVersion goes (as gw_registry__rv_splice_point). */
static bool
splice_scan(const char *json, size_t len, top_t *t, size_t *at, bool *empty)
{
    const char *end = json + len, *p = skip_ws(json, end), *got, *after;
    bool stopped;

    memset(t, 0, sizeof(*t));
    if (p >= end || *p != '{')
        return false;
    got = walk_members(p + 1, end, find_top, t, &stopped);
    if (got == NULL || t->meta == NULL)
        return false;
    after = walk_members(t->meta + 1, end, find_rv, NULL, &stopped);
    if (after == NULL || stopped)
        return false;
    *at = (size_t)(t->meta + 1 - json);
    *empty = *skip_ws(t->meta + 1, end) == '}';
    return true;
}

bool
gw_registry__rv_splice_point(const char *json, size_t len, size_t *at, bool *empty)
{
    top_t t;

    return splice_scan(json, len, &t, at, empty);
}

/* The members asked for, parsed one by one into a new object. */
typedef struct {
    const char *const *names;
    size_t n;
    json_t *out;
    bool bad;
} pick_t;

static const char *
pick_member(const char *key, size_t klen, const char *value, const char *end, void *arg)
{
    pick_t *pk = arg;
    const char *vend;
    json_t *v;

    for (size_t i = 0; i < pk->n; i++) {
        if (!key_is(key, klen, pk->names[i]))
            continue;
        vend = skip_value(value, end);
        v = vend != NULL ? gw_json_loadb(value, (size_t)(vend - value), JSON_DECODE_ANY, NULL)
                         : NULL;
        if (v == NULL) {
            pk->bad = true;
            return end; /* stop: the caller falls back to a full parse */
        }
        json_object_set_new(pk->out, pk->names[i], v);
        break;
    }
    return NULL;
}

/* The members `names` of the object whose '{' is at p, parsed; NULL on a shape to refuse. */
static json_t *
pick_members(const char *p, const char *end, const char *const *names, size_t n)
{
    pick_t pk = {.names = names, .n = n, .out = json_object()};
    bool stopped;

    if (p >= end || *p != '{' || walk_members(p + 1, end, pick_member, &pk, &stopped) == NULL ||
        pk.bad) {
        json_decref(pk.out);
        return NULL;
    }
    return pk.out;
}

json_t *
gw_registry__parse_members(const char *json, size_t len, const char *const *names, size_t n)
{
    const char *end = json + len;

    return pick_members(skip_ws(json, end), end, names, n);
}

json_t *
gw_registry__parse_labels(const char *json, size_t len)
{
    static const char *const labels[] = {"labels"};
    const char *end = json + len, *p = skip_ws(json, end), *meta;
    json_t *picked;
    bool stopped;

    if (p >= end || *p != '{')
        return NULL;
    meta = walk_members(p + 1, end, find_metadata, NULL, &stopped);
    if (meta == NULL)
        return NULL;
    if (!stopped) /* no metadata at all: no labels */
        return json_pack("{s:{}}", "metadata");
    if (meta == end) /* a metadata that is not an object */
        return NULL;
    picked = pick_members(meta, end, labels, 1);
    return picked != NULL ? json_pack("{s:o}", "metadata", picked) : NULL;
}

/* ---- custom resources -------------------------------------------------------------------- */

bool
gw_registry__custom_rewrites(const gw_resource_t *res)
{
    const gw_crd_version_t *cv = gw_crd_version_of(res);

    /* an object may be stored in another version than the current storage version */
    return cv != NULL && (cv->has_defaults || cv->several_versions);
}

/* A stored custom object as `as` serves it: in as's version (the None conversion rewrites
 * apiVersion alone) and defaulted, as kube's storage decoding defaults custom objects. */
static void
custom_view(json_t *doc, const gw_resource_t *as)
{
    const char *av = json_string_value(json_object_get(doc, "apiVersion"));

    /* a webhook converts what is in another version: the caller asks it, then defaults */
    if (gw_registry__converts_by_webhook(as) && (av == NULL || strcmp(av, as->api_version)))
        return;
    json_object_set_new(doc, "apiVersion", json_string(as->api_version));
    if (gw_crd_version_of(as)->has_defaults)
        gw_crd_default(as->schema, doc);
}

const json_t *
gw_registry__custom_path(const json_t *obj, const char *path)
{
    return path[0] == '.' ? gw_registry__field_at(obj, path + 1) : NULL;
}

/* ---- versions (gw_convert.h) ------------------------------------------------------------- */

/* Whether an object of t's apiVersion and kind is served as `as` only after a conversion (as
 * NULL: stored only after one, being another version than its kind's storage version). */
static bool
needs_conversion(const top_t *t, const gw_resource_t *as)
{
    if (t->av == NULL || t->kind == NULL)
        return false;
    if (as != NULL && as->custom != NULL)
        return gw_registry__custom_rewrites(as);
    if (as == NULL)
        return gw_convert_is_spoke(t->av, t->av_len, t->kind, t->kind_len);
    return !key_is(t->av, t->av_len, as->api_version) || !key_is(t->kind, t->kind_len, as->kind);
}

/* A parsed object in the version `as` serves (NULL: its kind's storage version). An object
 * kgate cannot convert (another kind, a version it does not know) is left as it is. */
static void
convert_doc(json_t *doc, const gw_resource_t *as)
{
    const char *av = json_string_value(json_object_get(doc, "apiVersion"));
    const char *kind = json_string_value(json_object_get(doc, "kind"));

    if (av == NULL || kind == NULL)
        return;
    if (as != NULL && as->custom != NULL)
        custom_view(doc, as);
    else if (as != NULL)
        gw_convert(doc, as->api_version, as->kind);
    else if (gw_convert_hub(av, kind, &av, &kind))
        gw_convert(doc, av, kind);
}

/* ---- the zero values Go's JSON shows (gw_gozero.h) ---------------------------------------- */

/* The kind schema named by apiVersion and kind when objects of it can lack something Go's JSON
 * shows; NULL for kinds served as stored (ConfigMap, Secret, custom resources, unknown). */
static const gw_schema_t *
completion_schema(const char *av, size_t av_len, const char *kind, size_t kind_len)
{
    const char *slash = memchr(av, '/', av_len);
    char group[128], version[64], k[128];
    size_t glen = slash ? (size_t)(slash - av) : 0, vlen = slash ? av_len - glen - 1 : av_len;
    const gw_schema_t *s;

    if (glen >= sizeof(group) || vlen >= sizeof(version) || kind_len >= sizeof(k))
        return NULL;
    memcpy(group, av, glen);
    group[glen] = '\0';
    memcpy(version, slash ? slash + 1 : av, vlen);
    version[vlen] = '\0';
    memcpy(k, kind, kind_len);
    k[kind_len] = '\0';
    s = gw_catalog_kind_schema(gw_catalog_builtin(), group, version, k);
    return gw_gozero_kind_needed(s) ? s : NULL;
}

/* Complete a parsed stored object as kube-apiserver's decode and encode would show it. */
static void
complete_doc(json_t *doc)
{
    const json_t *av = json_object_get(doc, "apiVersion"), *kind = json_object_get(doc, "kind");
    const gw_schema_t *s;

    if (!json_is_string(av) || !json_is_string(kind))
        return;
    s = completion_schema(json_string_value(av), json_string_length(av), json_string_value(kind),
                          json_string_length(kind));
    if (s != NULL)
        gw_gozero_complete(s, doc);
}

json_t *
gw_registry__storage_form(const json_t *obj)
{
    const char *av = json_string_value(json_object_get(obj, "apiVersion"));
    const char *kind = json_string_value(json_object_get(obj, "kind"));
    json_t *stored;

    if (av == NULL || kind == NULL || !gw_convert_is_spoke(av, strlen(av), kind, strlen(kind)))
        return NULL;
    stored = json_deep_copy(obj);
    convert_doc(stored, NULL);
    /* as a write through the storage version completes it, so equal objects are equal bytes */
    complete_doc(stored);
    return stored;
}

void
gw_registry__serve_as(json_t *doc, const gw_resource_t *as)
{
    const char *av = json_string_value(json_object_get(doc, "apiVersion"));

    if (as->custom != NULL) {
        if (gw_registry__custom_rewrites(as))
            custom_view(doc, as);
    } else if (av != NULL && strcmp(av, as->api_version) != 0) {
        convert_doc(doc, as);
        complete_doc(doc);
    }
}

json_t *
gw_registry__parse_stored(const char *json, size_t len, int64_t rev, const gw_resource_t *as)
{
    json_t *doc = gw_json_loadb(json, len, 0, NULL), *meta;
    char buf[32];

    if (doc == NULL || !json_is_object(doc)) {
        json_decref(doc);
        return NULL;
    }
    convert_doc(doc, as);
    complete_doc(doc);
    if (rev <= 0)
        return doc;
    meta = json_object_get(doc, "metadata");
    if (!json_is_object(meta)) {
        meta = json_object();
        json_object_set_new(doc, "metadata", meta);
    }
    snprintf(buf, sizeof(buf), "%" PRId64, rev);
    json_object_set_new(meta, "resourceVersion", json_string(buf));
    return doc;
}

/* ---- output buffers --------------------------------------------------------------------- */

bool
gw_registry__buf_obj(gw_buf_t *b, const gw_obj_t *obj, const gw_resource_t *as)
{
    const char *json = (const char *)obj->value;
    char rv[64], *whole;
    size_t at, n;
    bool empty;
    json_t *doc;
    top_t t;

    if (splice_scan(json, obj->value_len, &t, &at, &empty) && !t.odd && !needs_conversion(&t, as) &&
        (t.av == NULL || t.kind == NULL ||
         completion_schema(t.av, t.av_len, t.kind, t.kind_len) == NULL)) {
        n = (size_t)snprintf(rv, sizeof(rv), "\"resourceVersion\":\"%" PRId64 "\"%s",
                             obj->mod_revision, empty ? "" : ",");
        gw_buf_add(b, json, at);
        gw_buf_add(b, rv, n);
        gw_buf_add(b, json + at, obj->value_len - at);
        return true;
    }
    doc = gw_registry__parse_stored(json, obj->value_len, obj->mod_revision, as);
    if (doc == NULL)
        return false;
    whole = gw_json_dumps(doc, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(doc);
    gw_buf_str(b, whole);
    free(whole);
    return true;
}

char *
gw_registry__with_rv(const char *json, size_t len, int64_t rev, size_t *out_len)
{
    gw_obj_t obj = {
        .key = "", .value = (const uint8_t *)json, .value_len = len, .mod_revision = rev};
    gw_buf_t b = {0};

    if (!gw_registry__buf_obj(&b, &obj, NULL)) {
        free(b.data);
        return NULL;
    }
    *out_len = b.len;
    return b.data;
}

bool
gw_registry__parse_int(const char *s, int64_t *out)
{
    char *end;
    long long v;

    errno = 0;
    v = strtoll(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0')
        return false;
    *out = v;
    return true;
}
