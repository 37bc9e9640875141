/* The storage encodings as value transformers: read any, write the configured one. */
#include "gw_storage_media.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "gw_alloc.h"
#include "gw_err.h"
#include "gw_protobuf.h"
#include "gw_yaml.h"
#include "gw_json.h"

/* kube's protobuf serializer recognizes its values by this prefix. */
#define K8S_MAGIC "k8s\0"
#define K8S_MAGIC_LEN 4
/* the prefix kube reserves for values encrypted at rest */
#define ENC_MARK "k8s:enc:"
#define ENC_MARK_LEN 8

int
gw_storage_media_parse(const char *name, gw_storage_media_t *out)
{
    if (name == NULL || name[0] == '\0' || strcmp(name, "application/json") == 0)
        *out = GW_STORAGE_JSON;
    else if (strcmp(name, "application/yaml") == 0)
        *out = GW_STORAGE_YAML;
    else if (strcmp(name, GW_PROTOBUF_MEDIA_TYPE) == 0)
        *out = GW_STORAGE_PROTOBUF;
    else
        return GW_EINVAL;
    return 0;
}

/* kube's JSON recognizer: the first byte after white space opens an object. */
static bool
looks_json(const uint8_t *in, size_t len)
{
    size_t i = 0;

    while (i < len && (in[i] == ' ' || in[i] == '\t' || in[i] == '\r' || in[i] == '\n'))
        i++;
    return i < len && in[i] == '{';
}

/* The document as kgate stores JSON (gw_registry__encode's form), in a new buffer. */
static void
own_json(gw_value_t *out, json_t *doc)
{
    char *text = gw_json_dumps(doc, JSON_COMPACT | JSON_SORT_KEYS);

    if (text == NULL)
        abort(); /* only allocation fails here, and allocation failure aborts */
    *out = (gw_value_t){.data = (uint8_t *)text, .len = strlen(text), .owned = (uint8_t *)text};
}

static json_t *
decode_yaml(const uint8_t *in, size_t len, char *err, size_t err_len)
{
    json_t *doc = gw_yaml_to_json((const char *)in, len, err, err_len);

    if (doc != NULL && !json_is_object(doc)) {
        snprintf(err, err_len, "a YAML value that is not an object");
        json_decref(doc);
        return NULL;
    }
    return doc;
}

static int
from_storage(const gw_value_transformer_t *t, const gw_value_key_t *key, const uint8_t *in,
             size_t len, gw_value_t *out, char *err, size_t err_len)
{
    bool proto = len >= K8S_MAGIC_LEN && memcmp(in, K8S_MAGIC, K8S_MAGIC_LEN) == 0;
    json_t *doc;

    (void)key; /* the encodings are the same for every key */
    /* The common case first and without a copy: JSON, or nothing at all. */
    if (!proto && (len == 0 || looks_json(in, len))) {
        gw_value_view(out, in, len);
        return 0;
    }
    /* kube's storage without an encryption configuration is its encrypt-check identity */
    if (!proto && len >= ENC_MARK_LEN && memcmp(in, ENC_MARK, ENC_MARK_LEN) == 0) {
        snprintf(err, err_len, "identity transformer tried to read encrypted data");
        return GW_EINTERNAL;
    }
    doc = proto ? gw_protobuf_decode(t->ctx, in, len, err, err_len)
                : decode_yaml(in, len, err, err_len);
    if (doc == NULL)
        return GW_EINTERNAL;
    own_json(out, doc);
    json_decref(doc);
    return 0;
}

static json_t *
load_json(const uint8_t *json, size_t len, char *err, size_t err_len)
{
    json_error_t jerr;
    json_t *doc = gw_json_loadb((const char *)json, len, 0, &jerr);

    if (doc == NULL)
        snprintf(err, err_len, "not JSON: %s", jerr.text);
    return doc;
}

static int
to_json(const gw_value_transformer_t *t, const gw_value_key_t *key, const uint8_t *json, size_t len,
        gw_value_t *out, char *err, size_t err_len)
{
    (void)t;
    (void)key;
    (void)err;
    (void)err_len;
    gw_value_view(out, json, len);
    return 0;
}

/* A kind the catalog has protobuf facts for; kube stores any other (custom resources) as
 * JSON whatever the setting. */
static bool
has_protobuf(const gw_catalog_t *c, const json_t *doc)
{
    const char *av = json_string_value(json_object_get(doc, "apiVersion"));
    const char *kind = json_string_value(json_object_get(doc, "kind"));
    const char *slash;
    const gw_schema_t *s;
    char *group;

    if (av == NULL || kind == NULL)
        return false;
    slash = strchr(av, '/');
    group = gw_strndup(av, slash ? (size_t)(slash - av) : 0);
    s = gw_catalog_kind_schema(c, group, slash ? slash + 1 : av, kind);
    free(group);
    return s != NULL && s->proto != NULL;
}

static int
to_protobuf(const gw_value_transformer_t *t, const gw_value_key_t *key, const uint8_t *json,
            size_t len, gw_value_t *out, char *err, size_t err_len)
{
    json_t *doc = load_json(json, len, err, err_len);
    uint8_t *bytes;

    (void)key;
    size_t n;
    int rc;

    if (doc == NULL)
        return GW_EINTERNAL;
    if (!has_protobuf(t->ctx, doc)) {
        json_decref(doc);
        gw_value_view(out, json, len);
        return 0;
    }
    rc = gw_protobuf_encode(t->ctx, doc, &bytes, &n, err, err_len);
    json_decref(doc);
    if (rc != 0)
        return GW_EINTERNAL;
    *out = (gw_value_t){.data = bytes, .len = n, .owned = bytes};
    return 0;
}

static int
to_yaml(const gw_value_transformer_t *t, const gw_value_key_t *key, const uint8_t *json, size_t len,
        gw_value_t *out, char *err, size_t err_len)
{
    json_t *doc = load_json(json, len, err, err_len);
    char *yaml;
    size_t n;

    (void)t;
    (void)key;
    if (doc == NULL)
        return GW_EINTERNAL;
    yaml = gw_json_to_yaml(doc, &n);
    json_decref(doc);
    *out = (gw_value_t){.data = (uint8_t *)yaml, .len = n, .owned = (uint8_t *)yaml};
    return 0;
}

void
gw_storage_media_transformer(gw_value_transformer_t *t, gw_storage_media_t media,
                             const gw_catalog_t *c)
{
    static const gw_value_transform_fn writers[] = {
        [GW_STORAGE_JSON] = to_json,
        [GW_STORAGE_YAML] = to_yaml,
        [GW_STORAGE_PROTOBUF] = to_protobuf,
    };

    *t = (gw_value_transformer_t){
        .from_storage = from_storage, .to_storage = writers[media], .ctx = c};
}
