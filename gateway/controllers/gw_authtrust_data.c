/* The data of extension-apiserver-authentication as kube's cluster authentication trust
 * controller combines it (gw_authtrust_int.h): no I/O. */
#include "gw_authtrust_int.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include "gw_json.h"

/* the request-header lists, in kube's data keys */
static const char *const list_keys[GW_AUTHTRUST_N_LISTS] = {
    "requestheader-allowed-names", "requestheader-username-headers", "requestheader-group-headers",
    "requestheader-extra-headers-prefix"};

/* Add the certificates of PEM text to certs: each once (by DER), none expired (kube's
 * combineCertLists and filterExpiredCerts). */
static void
add_certs(STACK_OF(X509) * certs, const char *pem, size_t len)
{
    BIO *bio = BIO_new_mem_buf(pem, (int)len);
    X509 *x;

    if (bio == NULL)
        abort();
    while ((x = PEM_read_bio_X509(bio, NULL, NULL, NULL)) != NULL) {
        bool keep = X509_cmp_current_time(X509_get0_notAfter(x)) > 0;
        for (int i = 0; keep && i < sk_X509_num(certs); i++)
            keep = X509_cmp(sk_X509_value(certs, i), x) != 0;
        if (keep)
            sk_X509_push(certs, x);
        else
            X509_free(x);
    }
    ERR_clear_error(); /* the end of the bundle reads as an error */
    BIO_free(bio);
}

/* The bundle as PEM (Go's pem.Encode writes the same 64-column blocks), or NULL when empty. */
static json_t *
encode_certs(STACK_OF(X509) * certs)
{
    BIO *bio = BIO_new(BIO_s_mem());
    char *data;
    long len;
    json_t *out = NULL;

    if (bio == NULL)
        abort();
    for (int i = 0; i < sk_X509_num(certs); i++)
        PEM_write_bio_X509(bio, sk_X509_value(certs, i));
    len = BIO_get_mem_data(bio, &data);
    if (len > 0)
        out = json_stringn(data, (size_t)len);
    BIO_free(bio);
    return out;
}

/* A bundle of the existing data's `key` combined with ours (PEM text, may be NULL). */
static json_t *
bundle(const json_t *data, const char *key, const gw_authtrust_pem_t *ours)
{
    STACK_OF(X509) *certs = sk_X509_new_null();
    const json_t *old = json_object_get(data, key);
    json_t *out;

    if (certs == NULL)
        abort();
    if (json_is_string(old))
        add_certs(certs, json_string_value(old), json_string_length(old));
    if (ours->text != NULL)
        add_certs(certs, ours->text, ours->len);
    out = encode_certs(certs);
    sk_X509_pop_free(certs, X509_free);
    return out;
}

/* kube's combineUniqueStringSlices over the existing JSON text and ours, written back as
 * JSON text. */
static char *
combined_list(const json_t *data, const char *key, json_t *ours)
{
    const json_t *text_old = json_object_get(data, key);
    json_t *old = json_is_string(text_old) ? gw_json_loadb(json_string_value(text_old),
                                                           json_string_length(text_old), 0, NULL)
                                           : NULL;
    json_t *all = json_array(), *v;
    size_t i, j;
    char *text;

    json_array_extend(all, json_is_array(old) ? old : NULL);
    json_array_extend(all, ours);
    json_t *out = json_array();
    json_array_foreach(all, i, v)
    {
        bool seen = !json_is_string(v);
        for (j = 0; !seen && j < json_array_size(out); j++)
            seen = json_equal(json_array_get(out, j), v);
        if (!seen)
            json_array_append(out, v);
    }
    text = gw_json_dumps(out, JSON_COMPACT);
    json_decref(old);
    json_decref(all);
    json_decref(out);
    return text;
}

json_t *
gw_authtrust__data(const json_t *old, const gw_authtrust_pem_t *client_ca,
                   const gw_authtrust_pem_t *rh_ca, json_t *const lists[GW_AUTHTRUST_N_LISTS])
{
    json_t *data = json_object(), *client = bundle(old, "client-ca-file", client_ca);
    json_t *rh = bundle(old, "requestheader-client-ca-file", rh_ca);

    if (client != NULL)
        json_object_set_new(data, "client-ca-file", client);
    if (rh == NULL)
        return data;
    for (int i = 0; i < GW_AUTHTRUST_N_LISTS; i++) {
        char *text = combined_list(old, list_keys[i], lists[i]);
        json_object_set_new(data, list_keys[i], json_string(text));
        free(text);
    }
    json_object_set_new(data, "requestheader-client-ca-file", rh);
    return data;
}
