/* libFuzzer driver for KMS v2: what etcd and a plugin hand kgate. The first byte chooses: 0, the
 * rest is a stored EncryptedObject (after its "k8s:enc:kms:v2:<name>:" prefix), decoded and
 * validated as kube does, keyed for the DEK-source cache and opened under a fixed seed; 1, a
 * Status answer whose key ID is validated; 2, an Encrypt answer made into the EncryptedObject a
 * seed would be written with and validated; 3, a Decrypt answer. Besides not crashing, a
 * refusal is one line of kube's words, and a value sealed under the seed opens to its bytes.
 * Builds with the messages' generated code (the Makefile's FUZZ_GEN for it). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gw_alloc.c"
#include "gw_enc_cipher.c"
#include "gw_enc_kms_envelope.c"
#include "gw_buf.c"
#include "gw_json.c"
#include "gw_names.c"
#include "gw_objmeta.c"
#include "gw_transformer.c"
#include "kms_service.pb-c.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const uint8_t SEED[GW_KMS_SEED] = "0123456789abcdef0123456789abcdef";

static void
one_line(const char *err)
{
    if (err[0] == '\0' || strchr(err, '\n') != NULL)
        abort();
}

static void
stored(const uint8_t *data, size_t size)
{
    gw_value_key_t key = {.prefix = "/registry/", .prefix_len = 10, .rel = "secrets/ns/x"};
    char err[2048] = "";
    uint8_t hash[GW_KMS_HASH];
    gw_value_t plain, sealed, back;
    V2__EncryptedObject *o = gw_kms__decode(data, size, err, sizeof(err));

    if (o == NULL) {
        one_line(err);
        return;
    }
    gw_kms__cache_key(o, hash);
    if (gw_kms__seed_open(SEED, sizeof(SEED), &key, o->encrypteddata.data, o->encrypteddata.len,
                          &plain, err, sizeof(err)) != 0) {
        one_line(err);
        v2__encrypted_object__free_unpacked(o, NULL);
        return;
    }
    if (gw_kms__seed_seal(SEED, sizeof(SEED), &key, plain.data, plain.len, &sealed, err,
                          sizeof(err)) != 0 ||
        gw_kms__seed_open(SEED, sizeof(SEED), &key, sealed.data, sealed.len, &back, err,
                          sizeof(err)) != 0 ||
        back.len != plain.len || (back.len > 0 && memcmp(back.data, plain.data, back.len) != 0))
        abort();
    gw_value_clear(&back);
    gw_value_clear(&sealed);
    gw_value_clear(&plain);
    v2__encrypted_object__free_unpacked(o, NULL);
}

static void
status(const uint8_t *data, size_t size)
{
    char err[256] = "";
    V2__StatusResponse *st = v2__status_response__unpack(NULL, size, data);

    if (st == NULL)
        return;
    if (gw_kms__validate_key_id(st->key_id, err, sizeof(err)) != NULL)
        one_line(err);
    v2__status_response__free_unpacked(st, NULL);
}

/* The EncryptedObject a seed encrypted so would be written with, validated as kube does. */
static void
encrypted(const uint8_t *data, size_t size)
{
    char err[2048] = "";
    uint8_t one = 0, hash[GW_KMS_HASH];
    V2__EncryptResponse *r = v2__encrypt_response__unpack(NULL, size, data);
    V2__EncryptedObject o = V2__ENCRYPTED_OBJECT__INIT;
    V2__EncryptedObject__AnnotationsEntry *e, **p;

    if (r == NULL)
        return;
    e = calloc(r->n_annotations + 1, sizeof(*e));
    p = calloc(r->n_annotations + 1, sizeof(*p));
    for (size_t i = 0; i < r->n_annotations; i++) {
        e[i] = (V2__EncryptedObject__AnnotationsEntry)V2__ENCRYPTED_OBJECT__ANNOTATIONS_ENTRY__INIT;
        e[i].key = r->annotations[i]->key;
        e[i].value = r->annotations[i]->value;
        p[i] = &e[i];
    }
    o.encrypteddata = (ProtobufCBinaryData){1, &one};
    o.keyid = r->key_id;
    o.encrypteddeksource = r->ciphertext;
    o.annotations = p;
    o.n_annotations = r->n_annotations;
    o.encrypteddeksourcetype = V2__ENCRYPTED_DEKSOURCE_TYPE__HKDF_SHA256_XNONCE_AES_GCM_SEED;
    if (!gw_kms__validate(&o, err, sizeof(err)))
        one_line(err);
    gw_kms__cache_key(&o, hash);
    free(e);
    free(p);
    v2__encrypt_response__free_unpacked(r, NULL);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    switch (data[0] & 3) {
    case 0:
        stored(data + 1, size - 1);
        break;
    case 1:
        status(data + 1, size - 1);
        break;
    case 2:
        encrypted(data + 1, size - 1);
        break;
    default: {
        V2__DecryptResponse *d = v2__decrypt_response__unpack(NULL, size - 1, data + 1);
        if (d != NULL)
            v2__decrypt_response__free_unpacked(d, NULL);
    }
    }
    return 0;
}
