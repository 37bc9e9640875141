/* libFuzzer driver for encryption at rest: the stored-value decode path (prefix parse, then each
 * provider's decryption) and the EncryptionConfiguration reader. The first byte chooses: odd,
 * the rest is a configuration file; even, the rest is a value etcd holds, read under a
 * configuration with every provider (aesgcm, aescbc with two keys, secretbox, identity).
 * Besides not crashing, it checks what the library promises: a refusal is one line of kube's
 * words; a value that decrypts encrypts again and decrypts to the same bytes.
 * Builds on its own: clang -fsanitize=fuzzer,address,undefined ... tests/fuzz/fuzz_encryption.c */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gw_alloc.c"
#include "gw_buf.c"
#include "gw_clock.c"
#include "gw_enc_cipher.c"
#include "gw_enc_config.c"
#include "gw_enc_transform.c"
#include "gw_errlist.c"
#include "gw_field_issues.c"
#include "gw_file.c"
#include "gw_transformer.c"
#include "gw_yaml.c"
#include "gw_yaml_emit.c"
#include "gw_yaml_scalar.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* KMS providers are built but never started here (no plugin, no thread): a KMS value reads as
 * an unstarted provider's does. gw_enc_kms.c and its envelope have a driver of their own
 * (fuzz_kms.c). */
gw_enc_kms_t *
gw_enc__kms_new(const char *name, const char *endpoint, int64_t timeout_ms)
{
    (void)endpoint, (void)timeout_ms;
    return (gw_enc_kms_t *)gw_strdup(name);
}

void
gw_enc__kms_start(gw_enc_kms_t *k)
{
    (void)k;
    abort(); /* never started */
}

void
gw_enc__kms_free(gw_enc_kms_t *k)
{
    free(k);
}

bool
gw_enc__kms_check(gw_enc_kms_t *k, char *why, size_t why_len)
{
    (void)k;
    snprintf(why, why_len, "not started");
    return false;
}

int
gw_enc__kms_open(gw_enc_kms_t *k, const gw_value_key_t *aad, const uint8_t *in, size_t len,
                 gw_value_t *out, char *err, size_t err_len)
{
    (void)k, (void)aad, (void)in, (void)len, (void)out;
    snprintf(err, err_len, "got unexpected nil transformer");
    return GW_EINTERNAL;
}

int
gw_enc__kms_seal(gw_enc_kms_t *k, const gw_value_key_t *aad, const char *head, size_t hlen,
                 const uint8_t *in, size_t len, gw_value_t *out, char *err, size_t err_len)
{
    (void)k, (void)aad, (void)head, (void)hlen, (void)in, (void)len, (void)out;
    snprintf(err, err_len, "got unexpected nil transformer");
    return GW_EINTERNAL;
}

/* The metric registry is not linked: transformations are not counted here. */
void
gw_enc__record(const char *type, const char *prefix, int64_t start_ns, const char *err)
{
    (void)type, (void)prefix, (void)start_ns, (void)err;
}

/* The catalog is not linked: the configuration reads every key as "*.*"'s. */
size_t
gw_catalog_count(const gw_catalog_t *c)
{
    (void)c;
    return 0;
}

const gw_resource_t *
gw_catalog_at(const gw_catalog_t *c, size_t i)
{
    (void)c;
    (void)i;
    return NULL;
}

static const char CONFIG[] =
    "apiVersion: apiserver.config.k8s.io/v1\n"
    "kind: EncryptionConfiguration\n"
    "resources:\n"
    "  - resources: ['*.*']\n"
    "    providers:\n"
    "      - aesgcm: {keys: [{name: g, secret: MDEyMzQ1Njc4OWFiY2RlZg==}]}\n"
    "      - aescbc: {keys: [{name: c1, secret: "
    "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=}, {name: c2, secret: "
    "MDEyMzQ1Njc4OWFiY2RlZg==}]}\n"
    "      - secretbox: {keys: [{name: b, secret: "
    "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=}]}\n"
    "      - identity: {}\n";

static void
one_line(const char *err)
{
    if (err[0] == '\0' || strchr(err, '\n') != NULL)
        abort();
}

static void
read_config(const uint8_t *data, size_t size)
{
    char err[2048] = "";
    gw_enc_config_t *c = gw_enc_config_parse((const char *)data, size, "f", NULL, err, sizeof(err));

    if (c == NULL && strncmp(err, "error while ", 12) != 0 && strncmp(err, "libsodium", 9) != 0)
        abort();
    gw_enc_config_free(c);
}

static void
read_value(const gw_enc_config_t *c, const uint8_t *data, size_t size)
{
    gw_value_key_t key = {.prefix = "/registry/", .prefix_len = 10, .rel = "secrets/ns/x"};
    gw_value_t plain, sealed, back;
    char err[512] = "";

    if (gw_enc_decrypt(c, &key, data, size, &plain, err, sizeof(err)) != 0) {
        one_line(err);
        return;
    }
    if (gw_enc_encrypt(c, &key, plain.data, plain.len, &sealed, err, sizeof(err)) != 0)
        abort();
    if (gw_enc_decrypt(c, &key, sealed.data, sealed.len, &back, err, sizeof(err)) != 0 ||
        back.len != plain.len || (back.len > 0 && memcmp(back.data, plain.data, back.len) != 0) ||
        back.stale)
        abort();
    gw_value_clear(&back);
    gw_value_clear(&sealed);
    gw_value_clear(&plain);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static gw_enc_config_t *c;
    char err[512];

    if (c == NULL)
        c = gw_enc_config_parse(CONFIG, sizeof(CONFIG) - 1, "f", NULL, err, sizeof(err));
    if (c == NULL)
        abort();
    if (size == 0)
        return 0;
    if (data[0] & 1)
        read_config(data + 1, size - 1);
    else
        read_value(c, data + 1, size - 1);
    return 0;
}
