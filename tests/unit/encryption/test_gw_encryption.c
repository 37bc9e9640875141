/* Unit tests for gateway/encryption: each provider's round trip and stored prefix, tampered
 * values and values moved to another key refused with kube's words, the NaCl secretbox
 * known-answer vector, key rotation (the first key writes, any reads, stale when not the
 * first), identity's fallback and its refusal of encrypted data, the resource precedence
 * (resource.group, *.group, *.*), and the configuration's validation with kube's messages.
 * KMS v2's envelope: the HKDF derivation against a vector Python's cryptography computed
 * (HKDFExpand(SHA256, 32, info).derive(seed)), the seed's seal and open, kube's validation of
 * an EncryptedObject, the cache key's independence of annotation order, and a provider that
 * was never started refusing to write. */
#include <stdlib.h>
#include <string.h>

#include "gw_catalog.h"
#include "gw_enc_int.h"
#include "gw_err.h"
#include "tap.h"

#define K32 "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=" /* "0123456789abcdef" x2 */
#define K16 "MDEyMzQ1Njc4OWFiY2RlZg=="                     /* "0123456789abcdef" */
#define OTHER32 "YWJjZGVmZ2hpamtsbW5vcHFyc3R1dnd4eXowMTIzNDU="

static const char HEAD[] = "apiVersion: apiserver.config.k8s.io/v1\n"
                           "kind: EncryptionConfiguration\n";

static gw_enc_config_t *
parse(const char *body, char *err, size_t err_len)
{
    char *text = malloc(strlen(HEAD) + strlen(body) + 1);
    gw_enc_config_t *c;

    strcpy(text, HEAD);
    strcat(text, body);
    c = gw_enc_config_parse(text, strlen(text), "enc.yaml", gw_catalog_builtin(), err, err_len);
    free(text);
    return c;
}

static gw_enc_config_t *
must(const char *body)
{
    char err[1024];
    gw_enc_config_t *c = parse(body, err, sizeof(err));
    if (c == NULL) {
        tap_diag("%s", err);
        abort();
    }
    return c;
}

static gw_value_key_t
key_of(const char *rel)
{
    return (gw_value_key_t){.prefix = "/registry/", .prefix_len = 10, .rel = rel};
}

/* Encrypt doc under rel with c, check the stored prefix, decrypt it back. */
static void
round_trip(const gw_enc_config_t *c, const char *rel, const char *prefix, const char *name)
{
    static const char doc[] = "{\"kind\":\"Secret\",\"data\":{\"p\":\"aHVudGVyMg==\"}}";
    gw_value_key_t k = key_of(rel);
    gw_value_t enc, back;
    char err[256];

    tap_ok(gw_enc_encrypt(c, &k, (const uint8_t *)doc, strlen(doc), &enc, err, sizeof(err)) == 0,
           "%s: encrypted", name);
    tap_ok(enc.len > strlen(prefix) && memcmp(enc.data, prefix, strlen(prefix)) == 0,
           "%s: stored under %s", name, prefix);
    tap_ok(prefix[0] == '{' || (memmem(enc.data, enc.len, "hunter", 6) == NULL &&
                                memmem(enc.data, enc.len, "Secret", 6) == NULL),
           "%s: no plaintext", name);
    tap_ok(gw_enc_decrypt(c, &k, enc.data, enc.len, &back, err, sizeof(err)) == 0, "%s: decrypted",
           name);
    tap_ok(back.len == strlen(doc) && memcmp(back.data, doc, back.len) == 0 && !back.stale,
           "%s: the same bytes back, not stale", name);
    gw_value_clear(&back);
    gw_value_clear(&enc);
}

/* Decrypting `in` under rel fails with exactly `want`. */
static void
refused(const gw_enc_config_t *c, const char *rel, const uint8_t *in, size_t len, const char *want,
        const char *name)
{
    gw_value_key_t k = key_of(rel);
    gw_value_t v;
    char err[512] = "";

    tap_is_int(gw_enc_decrypt(c, &k, in, len, &v, err, sizeof(err)), GW_EINTERNAL, name);
    tap_is_str(err, want, name);
}

static void
test_providers(void)
{
    gw_enc_config_t *c =
        must("resources:\n"
             "  - resources: [secrets]\n"
             "    providers: [{aescbc: {keys: [{name: k1, secret: " K32 "}]}}]\n"
             "  - resources: [configmaps]\n"
             "    providers: [{aesgcm: {keys: [{name: g, secret: " K16 "}]}}]\n"
             "  - resources: ['*.apps']\n"
             "    providers: [{secretbox: {keys: [{name: b, secret: " K32 "}]}}]\n");
    gw_value_key_t k = key_of("configmaps/default/a");
    static const char doc[] = "{\"a\":1}";
    gw_value_t enc, v;
    char err[256];

    round_trip(c, "secrets/default/s", "k8s:enc:aescbc:v1:k1:", "aescbc");
    round_trip(c, "configmaps/default/a", "k8s:enc:aesgcm:v1:g:", "aesgcm");
    round_trip(c, "deployments/default/d", "k8s:enc:secretbox:v1:b:", "secretbox (*.apps)");
    round_trip(c, "replicasets/default/r", "k8s:enc:secretbox:v1:b:", "secretbox (*.apps)");
    round_trip(c, "pods/default/p", "{", "a resource no entry names: as it is");

    gw_enc_encrypt(c, &k, (const uint8_t *)doc, strlen(doc), &enc, err, sizeof(err));
    refused(c, "configmaps/default/b", enc.data, enc.len, "cipher: message authentication failed",
            "aesgcm: a value moved to another key");
    ((uint8_t *)enc.data)[enc.len - 1] ^= 1;
    refused(c, "configmaps/default/a", enc.data, enc.len, "cipher: message authentication failed",
            "aesgcm: a flipped bit");
    gw_value_clear(&enc);
    refused(c, "configmaps/default/a", (const uint8_t *)"k8s:enc:aesgcm:v1:g:abc", 23,
            "the stored data was shorter than the required size", "aesgcm: too short");
    refused(c, "configmaps/default/a", (const uint8_t *)"k8s:enc:aesgcm:v1:zz:abc", 24,
            "no matching key was found for the provided AES transformer", "aesgcm: unknown key");
    refused(c, "configmaps/default/a", (const uint8_t *)"{\"a\":1}", 7, "no matching prefix found",
            "no identity: a plain value is refused");
    refused(c, "secrets/default/s", (const uint8_t *)"k8s:enc:aescbc:v1:k1:0123456789abcdef0", 38,
            "the stored data is not a multiple of the block size", "aescbc: not whole blocks");
    refused(c, "deployments/default/d", (const uint8_t *)"k8s:enc:secretbox:v1:b:0123", 27,
            "the stored data was shorter than the required size", "secretbox: too short");

    k = key_of("secrets/default/s");
    gw_enc_encrypt(c, &k, (const uint8_t *)doc, strlen(doc), &enc, err, sizeof(err));
    ((uint8_t *)enc.data)[enc.len - 1] ^= 0x5a;
    tap_is_int(gw_enc_decrypt(c, &k, enc.data, enc.len, &v, err, sizeof(err)), GW_EINTERNAL,
               "aescbc: a tampered last block is refused");
    gw_value_clear(&enc);
    k = key_of("deployments/default/d");
    gw_enc_encrypt(c, &k, (const uint8_t *)doc, strlen(doc), &enc, err, sizeof(err));
    ((uint8_t *)enc.data)[30] ^= 1;
    refused(c, "deployments/default/d", enc.data, enc.len,
            "output array was not large enough for encryption", "secretbox: tampered");
    gw_value_clear(&enc);
    gw_enc_config_free(c);
}

/* NaCl's secretbox vector (also Go's x/crypto/nacl/secretbox test): key 1s, nonce 2s,
 * message 64 bytes of 3s. */
static void
test_secretbox_vector(void)
{
    static const char want[] =
        "8442bc313f4626f1359e3b50122b6ce6fe66ddfe7d39d14e637eb4fd5b45beadab55198d"
        "f6ab5368439792a23c87db70acb6156dc5ef957ac04f6276cf6093b84be77ff0849cc3"
        "3e34b7254d5a8f65ad";
    gw_enc_key_t k = {.name = (char *)"k", .secret_len = 32};
    uint8_t in[24 + 16 + 64];
    gw_value_t out;
    char err[128];

    gw_enc__init();
    memset(k.secret, 1, 32);
    memset(in, 2, 24);
    /* the expected sealed bytes open (their tag checks) to the message */
    for (size_t i = 0; i < 80; i++)
        sscanf(want + 2 * i, "%2hhx", &in[24 + i]);
    tap_ok(gw_enc__open(GW_ENC_SECRETBOX, &k, NULL, in, sizeof(in), &out, err, sizeof(err)) == 0,
           "the NaCl secretbox vector opens");
    tap_ok(out.len == 64 && out.data[0] == 3 && out.data[63] == 3, "... to 64 bytes of 3s");
    gw_value_clear(&out);
}

static void
test_rotation(void)
{
    gw_enc_config_t *old =
        must("resources:\n"
             "  - resources: [secrets]\n"
             "    providers: [{aescbc: {keys: [{name: a, secret: " K32 "}]}}]\n");
    gw_enc_config_t *c = must("resources:\n"
                              "  - resources: [secrets]\n"
                              "    providers:\n"
                              "      - aesgcm: {keys: [{name: new, secret: " OTHER32 "}, "
                              "{name: g2, secret: " K16 "}]}\n"
                              "      - aescbc: {keys: [{name: a, secret: " K32 "}]}\n"
                              "      - identity: {}\n");
    gw_value_key_t k = key_of("secrets/ns/x");
    static const char doc[] = "{\"b\":2}";
    gw_value_t enc, v;
    char err[256];

    gw_enc_encrypt(old, &k, (const uint8_t *)doc, strlen(doc), &enc, err, sizeof(err));
    tap_ok(gw_enc_decrypt(c, &k, enc.data, enc.len, &v, err, sizeof(err)) == 0 && v.stale,
           "a value of the old provider is read, and stale");
    gw_value_clear(&v);
    gw_value_clear(&enc);
    tap_ok(gw_enc_decrypt(c, &k, (const uint8_t *)doc, 7, &v, err, sizeof(err)) == 0 && v.stale &&
               v.data == (const uint8_t *)doc,
           "a plain value: identity reads it (stale, uncopied)");
    round_trip(c, "secrets/ns/x", "k8s:enc:aesgcm:v1:new:", "the first key of the first provider");
    refused(c, "secrets/ns/x", (const uint8_t *)"k8s:enc:secretbox:v1:z:0000", 27,
            "no matching prefix found", "identity does not read another provider's value");
    refused(old, "configmaps/ns/x", (const uint8_t *)"k8s:enc:aescbc:v1:a:0000", 24,
            "identity transformer tried to read encrypted data",
            "an unconfigured resource refuses encrypted data");
    gw_enc_config_free(old);
    gw_enc_config_free(c);
}

static void
test_precedence(void)
{
    gw_enc_config_t *c =
        must("resources:\n"
             "  - resources: [deployments.apps]\n"
             "    providers: [{aesgcm: {keys: [{name: d, secret: " K16 "}]}}]\n"
             "  - resources: ['*.apps', services]\n"
             "    providers: [{aescbc: {keys: [{name: g, secret: " K32 "}]}}]\n"
             "  - resources: ['*.*']\n"
             "    providers: [{secretbox: {keys: [{name: all, secret: " K32 "}]}}]\n");

    round_trip(c, "deployments/ns/x", "k8s:enc:aesgcm:v1:d:", "resource.group first");
    round_trip(c, "statefulsets/ns/x", "k8s:enc:aescbc:v1:g:", "then *.group");
    round_trip(c, "services/specs/ns/x", "k8s:enc:aescbc:v1:g:", "a special path (services)");
    round_trip(c, "configmaps/ns/x", "k8s:enc:secretbox:v1:all:", "then *.*");
    round_trip(c, "example.com/widgets/ns/x",
               "k8s:enc:secretbox:v1:all:", "a custom resource under *.*");
    gw_enc_config_free(c);
}

static void
is_refused(const char *body, const char *want, const char *name)
{
    char err[2048] = "";
    gw_enc_config_t *c = parse(body, err, sizeof(err));

    tap_ok(c == NULL, "%s: refused", name);
    tap_is_str(err, want, name);
    gw_enc_config_free(c);
}

static void
test_validation(void)
{
    is_refused("resources:\n  - resources: [secrets]\n    providers: [{aesgcm: {keys: [{name: "
               "k, secret: YWJj}]}}]\n",
               "error while parsing file: resources[0].providers[0].aesgcm.keys[0].secret: "
               "Invalid value: \"REDACTED\": secret is not of the expected length, got 3, "
               "expected one of [16 24 32]",
               "an AES key of 3 bytes");
    is_refused("resources:\n  - resources: [secrets]\n    providers: [{secretbox: {keys: "
               "[{name: k, secret: " K16 "}]}}]\n",
               "error while parsing file: resources[0].providers[0].secretbox.keys[0].secret: "
               "Invalid value: \"REDACTED\": secret is not of the expected length, got 16, "
               "expected one of [32]",
               "a secretbox key of 16 bytes");
    is_refused("resources:\n  - resources: [Secrets, '*', secrets.*]\n    providers: "
               "[{identity: {}}, {aescbc: {keys: [{secret: ''}]}}]\n",
               "error while parsing file: [resources[0].resources: Invalid value: "
               "[]string{\"Secrets\", \"*\", \"secrets.*\"}: using overlapping resources such as "
               "'secrets' and '*.' in the same resource list is not allowed as they will be "
               "masked, resources[0].resources[0]: Invalid value: "
               "\"Secrets\": resource name should not contain capital letters, "
               "resources[0].resources[1]: Invalid value: \"*\": use '*.' to encrypt all the "
               "resources from core API group or *.* to encrypt all resources, "
               "resources[0].resources[2]: Invalid value: \"secrets.*\": encrypting the same "
               "resource across groups is not supported, "
               "resources[0].providers[1].aescbc.keys[0].name: Required value: name is a "
               "mandatory field for a key, resources[0].providers[1].aescbc.keys[0].secret: "
               "Required value: secret is a mandatory field for a key]",
               "several errors, aggregated as kube prints them");
    is_refused("resources:\n  - resources: [secrets, secrets]\n    providers: [{identity: {}}]\n",
               "error while parsing file: resources[0].resources: Invalid value: "
               "[]string{\"secrets\", \"secrets\"}: the same resource cannot be specified "
               "multiple times",
               "a duplicate resource");
    is_refused("resources:\n  - resources: ['*.apps']\n    providers: [{identity: {}}]\n"
               "  - resources: [deployments.apps]\n    providers: [{identity: {}}]\n",
               "error while building transformers: resource \"deployments.apps\" is masked by "
               "earlier rule \"*.apps\"",
               "a rule masked by an earlier *.group");
    is_refused("resources:\n  - resources: [secrets]\n    providers: [{kms: {apiVersion: v2, "
               "name: 'a:b', endpoint: 'tcp://x', timeout: 0s}}]\n",
               "error while parsing file: [resources[0].providers[0].kms.name: Invalid value: "
               "\"a:b\": invalid KMS provider name a:b, must not contain ':', "
               "resources[0].providers[0].kms.timeout: Invalid value: \"0s\": timeout should be "
               "a positive value, resources[0].providers[0].kms.endpoint: Invalid value: "
               "\"tcp://x\": unsupported scheme \"tcp\" for KMS provider, only unix is "
               "supported]",
               "KMS v2 fields");
}

static void
test_kms_envelope(void)
{
    /* seed = 00..1f, info = 20..3f */
    static const char want[] = "ccb4f05e673c90bd153935b11d0dabfc00537bc35cf92953deac178dd081ef8d";
    uint8_t seed[32], info[32], key[32];
    char hex[65], err[512];
    gw_value_key_t k = key_of("secrets/default/s"), other = key_of("secrets/default/t");
    gw_value_t sealed, back;

    for (int i = 0; i < 32; i++) {
        seed[i] = (uint8_t)i;
        info[i] = (uint8_t)(32 + i);
    }
    gw_kms__derive(seed, sizeof(seed), info, key);
    for (int i = 0; i < 32; i++)
        snprintf(hex + 2 * i, 3, "%02x", key[i]);
    tap_is_str(hex, want, "HKDF-Expand(SHA-256, seed, info): Python's known answer");

    tap_is_int(
        gw_kms__seed_seal(seed, 32, &k, (const uint8_t *)"plain", 5, &sealed, err, sizeof(err)), 0,
        "a value sealed under a seed");
    tap_is_int((int)sealed.len, 32 + 12 + 5 + 16, "... info, nonce, ciphertext, tag");
    tap_is_int(gw_kms__seed_open(seed, 32, &k, sealed.data, sealed.len, &back, err, sizeof(err)), 0,
               "... opens");
    tap_ok(back.len == 5 && memcmp(back.data, "plain", 5) == 0, "... to the plain bytes");
    gw_value_clear(&back);
    gw_kms__seed_open(seed, 32, &other, sealed.data, sealed.len, &back, err, sizeof(err));
    tap_is_str(err, "cipher: message authentication failed", "... not under another etcd key");
    gw_kms__seed_open(seed, 32, &k, sealed.data, 31, &back, err, sizeof(err));
    tap_is_str(err, "the stored data was shorter than the required size", "... nor cut short");
    gw_value_clear(&sealed);

    V2__EncryptedObject o = V2__ENCRYPTED_OBJECT__INIT;
    V2__EncryptedObject__AnnotationsEntry a = V2__ENCRYPTED_OBJECT__ANNOTATIONS_ENTRY__INIT,
                                          b = V2__ENCRYPTED_OBJECT__ANNOTATIONS_ENTRY__INIT;
    V2__EncryptedObject__AnnotationsEntry *ab[] = {&a, &b}, *ba[] = {&b, &a};
    uint8_t one = 1, h1[GW_KMS_HASH], h2[GW_KMS_HASH];
    char long_id[1100];

    gw_kms__validate(&o, err, sizeof(err));
    tap_is_str(err, "encrypted data is empty", "an empty EncryptedObject: kube's words");
    o.encrypteddata = (ProtobufCBinaryData){1, &one};
    gw_kms__validate(&o, err, sizeof(err));
    tap_is_str(err, "failed to validate encrypted DEK source: encrypted DEK source is empty",
               "... no DEK source");
    o.encrypteddeksource = (ProtobufCBinaryData){1, &one};
    gw_kms__validate(&o, err, sizeof(err));
    tap_is_str(err, "failed to validate key id: keyID is empty", "... no key ID");
    memset(long_id, 'k', 1025);
    long_id[1025] = '\0';
    o.keyid = long_id;
    gw_kms__validate(&o, err, sizeof(err));
    tap_is_str(err,
               "failed to validate key id: keyID is 1025 bytes, which exceeds the max size of 1024",
               "... a key ID over 1 kB");
    o.keyid = (char *)"k1";
    a.key = (char *)"nodots";
    o.annotations = ab;
    o.n_annotations = 1;
    gw_kms__validate(&o, err, sizeof(err));
    tap_is_str(err,
               "failed to validate annotations: annotations: Invalid value: \"nodots\": should be "
               "a domain with at least two segments separated by dots",
               "... an annotation key that is no domain name");
    a.key = (char *)"a.example.com";
    b.key = (char *)"b.example.com";
    o.n_annotations = 2;
    o.encrypteddeksourcetype = 7;
    gw_kms__validate(&o, err, sizeof(err));
    tap_is_str(err, "unknown encryptedDEKSourceType: 7", "... an unknown DEK source type");
    o.encrypteddeksourcetype = V2__ENCRYPTED_DEKSOURCE_TYPE__HKDF_SHA256_XNONCE_AES_GCM_SEED;
    tap_ok(gw_kms__validate(&o, err, sizeof(err)), "a whole one is valid");
    gw_kms__cache_key(&o, h1);
    o.annotations = ba;
    gw_kms__cache_key(&o, h2);
    tap_ok(memcmp(h1, h2, sizeof(h1)) == 0, "the cache key sorts annotations by key");
    o.keyid = (char *)"k2";
    gw_kms__cache_key(&o, h2);
    tap_ok(memcmp(h1, h2, sizeof(h1)) != 0, "... and names the key ID");
    tap_ok(gw_kms__decode((const uint8_t *)"\xff\xff", 2, err, sizeof(err)) == NULL,
           "garbage is no EncryptedObject");
    tap_is_str(err, "proto: cannot parse invalid wire-format data", "... in Go's words");

    gw_enc_config_t *c =
        must("resources:\n  - resources: [secrets]\n    providers: [{kms: "
             "{apiVersion: v2, name: p1, endpoint: 'unix:///nonexistent.sock'}}]\n");
    gw_value_t out;
    tap_is_int(gw_enc_encrypt(c, &k, (const uint8_t *)"{}", 2, &out, err, sizeof(err)),
               GW_EINTERNAL, "a KMS provider not started does not write");
    tap_is_str(err, "got unexpected nil transformer", "... in kube's words");
    tap_ok(gw_enc_config_uses_kms(c), "the configuration has a KMS provider");
    gw_enc_config_free(c);
}

int
main(void)
{
    test_providers();
    test_secretbox_vector();
    test_rotation();
    test_precedence();
    test_validation();
    test_kms_envelope();
    return tap_done();
}
