/* Unit tests for gateway/encoding/gw_storage_media: --storage-media-type's names, and the value
 * transformers: JSON passes untouched and uncopied, kube's protobuf envelope (bodies kubectl
 * really sent, which are the envelope kube-apiserver stores) reads as the JSON kube shows, JSON
 * is written as the envelope or YAML when configured, and what does not decode is an error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "gw_catalog.h"
#include "gw_err.h"
#include "gw_storage_media.h"
#include "tap.h"

/* The key every value here is stored under (the encodings do not look at it). */
static const gw_value_key_t KEY = {
    .prefix = "/registry/", .prefix_len = 10, .rel = "configmaps/ns/x"};

static const gw_catalog_t *cat;
static gw_value_transformer_t as_json, as_yaml, as_proto;

static uint8_t *
read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf = malloc(1 << 16);

    *len = f ? fread(buf, 1, 1 << 16, f) : 0;
    if (f)
        fclose(f);
    return buf;
}

static int
is_bytes(const gw_value_t *v, const void *want, size_t len, const char *name)
{
    int ok = v->len == len && memcmp(v->data, want, len) == 0;

    if (!ok)
        tap_diag("got %zu bytes: %.*s", v->len, (int)v->len, (const char *)v->data);
    return tap_ok(ok, "%s", name);
}

static void
test_names(void)
{
    gw_storage_media_t m = GW_STORAGE_PROTOBUF;

    tap_ok(gw_storage_media_parse("application/json", &m) == 0 && m == GW_STORAGE_JSON,
           "application/json names JSON");
    tap_ok(gw_storage_media_parse("", &m) == 0 && m == GW_STORAGE_JSON, "empty is the default");
    tap_ok(gw_storage_media_parse("application/yaml", &m) == 0 && m == GW_STORAGE_YAML,
           "application/yaml names YAML");
    tap_ok(gw_storage_media_parse("application/vnd.kubernetes.protobuf", &m) == 0 &&
               m == GW_STORAGE_PROTOBUF,
           "application/vnd.kubernetes.protobuf names protobuf");
    tap_ok(gw_storage_media_parse("application/protobuf", &m) == GW_EINVAL, "others are refused");
}

static void
test_json_untouched(void)
{
    static const char doc[] = " \n{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\"}";
    static const uint8_t broken[] = {'{', 'b', 'r', 'o', 'k', 'e', 'n'};
    const gw_value_transformer_t *all[] = {&as_json, &as_yaml, &as_proto};
    const char *names[] = {"json", "yaml", "protobuf"};
    char err[256];
    gw_value_t v;

    for (size_t i = 0; i < 3; i++) {
        int rc = all[i]->from_storage(all[i], &KEY, (const uint8_t *)doc, sizeof(doc) - 1, &v, err,
                                      sizeof(err));
        tap_ok(rc == 0 && v.data == (const uint8_t *)doc && v.len == sizeof(doc) - 1 &&
                   v.owned == NULL,
               "%s: a JSON value reads as itself, not copied", names[i]);
        rc = all[i]->from_storage(all[i], &KEY, broken, sizeof(broken), &v, err, sizeof(err));
        tap_ok(rc == 0 && v.data == broken && v.owned == NULL,
               "%s: broken JSON is left for the reader to refuse", names[i]);
        rc = all[i]->from_storage(all[i], &KEY, (const uint8_t *)"", 0, &v, err, sizeof(err));
        tap_ok(rc == 0 && v.len == 0 && v.owned == NULL, "%s: an empty value passes", names[i]);
        err[0] = '\0';
        rc = all[i]->from_storage(all[i], &KEY, (const uint8_t *)"k8s:enc:aescbc:v1:k:xx", 22, &v,
                                  err, sizeof(err));
        tap_ok(rc == GW_EINTERNAL &&
                   strcmp(err, "identity transformer tried to read encrypted data") == 0,
               "%s: an encrypted value without a configuration: kube's identity refusal", names[i]);
    }
    tap_ok(as_json.to_storage(&as_json, &KEY, (const uint8_t *)doc, sizeof(doc) - 1, &v, err,
                              sizeof(err)) == 0 &&
               v.data == (const uint8_t *)doc && v.owned == NULL,
           "json: written as itself, not copied");
}

/* Every kubectl body reads as the compact, key-sorted JSON kube shows for it. */
static void
test_envelope_reads(const char *dir)
{
    static const struct {
        const char *file, *json;
    } bodies[] = {
        {"kubectl-create-configmap.pb",
         "{\"apiVersion\":\"v1\",\"data\":{\"a\":\"b\",\"bin\":\"34493\\n\"},\"kind\":"
         "\"ConfigMap\","
         "\"metadata\":{\"creationTimestamp\":null,\"name\":\"x\"}}"},
        {"kubectl-create-namespace.pb",
         "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"creationTimestamp\":null,"
         "\"name\":\"ns1\"},\"spec\":{},\"status\":{}}"},
    };
    char path[512], err[256];
    gw_value_t v;

    for (size_t i = 0; i < sizeof(bodies) / sizeof(bodies[0]); i++) {
        size_t len;
        uint8_t *data;

        snprintf(path, sizeof(path), "%s/%s", dir, bodies[i].file);
        data = read_file(path, &len);
        tap_ok(len > 4 && memcmp(data, "k8s\0", 4) == 0, "%s is an envelope", bodies[i].file);
        if (as_json.from_storage(&as_json, &KEY, data, len, &v, err, sizeof(err)) != 0) {
            tap_diag("%s", err);
            v = (gw_value_t){.data = (const uint8_t *)"", .len = 0};
        }
        tap_ok(v.owned != NULL && v.data == v.owned, "%s: transcoded into a buffer of its own",
               bodies[i].file);
        is_bytes(&v, bodies[i].json, strlen(bodies[i].json), bodies[i].file);
        gw_value_clear(&v);
        free(data);
    }
}

/* The envelope as kube's protobuf serializer lays it out, written byte by byte. */
static const uint8_t small_cm_pb[] = {
    'k',  '8',  's',  0,    0x0a, 0x0f, /* typeMeta */
    0x0a, 0x02, 'v',  '1',  0x12, 0x09, 'C',  'o',  'n',
    'f',  'i',  'g',  'M',  'a',  'p',  0x12, 0x0d, /* raw: the ConfigMap */
    0x0a, 0x03, 0x0a, 0x01, 'a',                    /* metadata {name} */
    0x12, 0x06, 0x0a, 0x01, 'k',  0x12, 0x01, 'v',  /* data {k: v} */
    0x1a, 0x00, 0x22, 0x00,                         /* contentEncoding, contentType */
};
static const char small_cm_json[] =
    "{\"apiVersion\":\"v1\",\"data\":{\"k\":\"v\"},\"kind\":\"ConfigMap\",\"metadata\":{\"name\":"
    "\"a\"}}";

static const char small_cm_kube[] =
    "{\"apiVersion\":\"v1\",\"data\":{\"k\":\"v\"},\"kind\":\"ConfigMap\",\"metadata\":{"
    "\"creationTimestamp\":null,\"name\":\"a\"}}";

static void
test_writes(void)
{
    char err[256];
    gw_value_t v, back;

    tap_ok(as_proto.to_storage(&as_proto, &KEY, (const uint8_t *)small_cm_json,
                               sizeof(small_cm_json) - 1, &v, err, sizeof(err)) == 0,
           "protobuf: a ConfigMap is written");
    is_bytes(&v, small_cm_pb, sizeof(small_cm_pb), "... as kube's envelope");
    tap_ok(as_json.from_storage(&as_json, &KEY, v.data, v.len, &back, err, sizeof(err)) == 0,
           "... which a JSON store reads");
    is_bytes(&back, small_cm_kube, sizeof(small_cm_kube) - 1,
             "... as kube shows it (Go's unset creationTimestamp is null)");
    gw_value_clear(&back);
    gw_value_clear(&v);

    static const char cr[] = "{\"apiVersion\":\"example.com/v1\",\"kind\":\"Widget\"}";
    tap_ok(as_proto.to_storage(&as_proto, &KEY, (const uint8_t *)cr, sizeof(cr) - 1, &v, err,
                               sizeof(err)) == 0 &&
               v.data == (const uint8_t *)cr && v.owned == NULL,
           "protobuf: a kind without protobuf stays JSON, as kube stores custom resources");
    tap_ok(as_proto.to_storage(&as_proto, &KEY, (const uint8_t *)"{nope", 5, &v, err,
                               sizeof(err)) == GW_EINTERNAL,
           "protobuf: a value that is not JSON is an error");

    tap_ok(as_yaml.to_storage(&as_yaml, &KEY, (const uint8_t *)small_cm_json,
                              sizeof(small_cm_json) - 1, &v, err, sizeof(err)) == 0,
           "yaml: a ConfigMap is written");
    is_bytes(&v, "apiVersion: v1\ndata:\n  k: v\nkind: ConfigMap\nmetadata:\n  name: a\n",
             strlen("apiVersion: v1\ndata:\n  k: v\nkind: ConfigMap\nmetadata:\n  name: a\n"),
             "... as YAML");
    tap_ok(as_json.from_storage(&as_json, &KEY, v.data, v.len, &back, err, sizeof(err)) == 0,
           "... which a JSON store reads");
    is_bytes(&back, small_cm_json, sizeof(small_cm_json) - 1, "... as the same JSON");
    gw_value_clear(&back);
    gw_value_clear(&v);
}

static int
refused(const void *data, size_t len)
{
    char err[256] = "";
    gw_value_t v = {0};
    int rc = as_json.from_storage(&as_json, &KEY, data, len, &v, err, sizeof(err));

    if (rc == 0)
        gw_value_clear(&v);
    else if (err[0] == '\0')
        tap_diag("refused without a reason");
    return rc == GW_EINTERNAL && err[0] != '\0';
}

static void
test_corrupt(void)
{
    uint8_t buf[sizeof(small_cm_pb)];
    static const uint8_t unknown_kind[] = {'k', '8', 's',  0,    0x0a, 0x08, 0x0a, 0x02,
                                           'v', '1', 0x12, 0x02, 'N',  'o',  0x12, 0x00};

    tap_ok(refused("k8s\0", 4), "an envelope with nothing in it is an error");
    tap_ok(refused(small_cm_pb, sizeof(small_cm_pb) - 12), "a truncated envelope is an error");
    memcpy(buf, small_cm_pb, sizeof(buf));
    buf[22] = 0x7f; /* raw's length past the end */
    tap_ok(refused(buf, sizeof(buf)), "a length past the end is an error");
    tap_ok(refused(unknown_kind, sizeof(unknown_kind)), "an unknown kind is an error");
    tap_ok(refused("k8s\0\xff\xff\xff\xff", 8), "garbage after the prefix is an error");
    tap_ok(refused("- just\n- a list\n", 16), "a YAML value that is no object is an error");
    tap_ok(refused("a: [b\n", 6), "broken YAML is an error");
}

int
main(int argc, char **argv)
{
    const char *src = argc > 1 ? argv[1] : "tests/unit/encoding/protobuf";

    cat = gw_catalog_builtin();
    gw_storage_media_transformer(&as_json, GW_STORAGE_JSON, cat);
    gw_storage_media_transformer(&as_yaml, GW_STORAGE_YAML, cat);
    gw_storage_media_transformer(&as_proto, GW_STORAGE_PROTOBUF, cat);
    test_names();
    test_json_untouched();
    test_envelope_reads(src);
    test_writes();
    test_corrupt();
    return tap_done();
}
