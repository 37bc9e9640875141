/* Client certificates: kube's CommonNameUserConversion. */
#include "authn_int.h"

#include <stdlib.h>

#include <openssl/asn1.h>
#include <openssl/obj_mac.h>
#include <openssl/x509.h>

#include "gw_alloc.h"

/* The UTF-8 text of one subject entry, or NULL when it does not convert. Caller frees. */
static char *
entry_text(X509_NAME *subject, int index)
{
    X509_NAME_ENTRY *e = X509_NAME_get_entry(subject, index);
    unsigned char *utf8 = NULL;
    int len = ASN1_STRING_to_UTF8(&utf8, X509_NAME_ENTRY_get_data(e));
    if (len < 0)
        return NULL;
    char *s = gw_strndup((const char *)utf8, (size_t)len);
    OPENSSL_free(utf8);
    return s;
}

authn_user_t *
authn__x509_user(X509 *cert)
{
    X509_NAME *subject = X509_get_subject_name(cert);
    char *cn = NULL;
    /* Like Go's pkix.Name, the last CN counts. */
    for (int i = -1; (i = X509_NAME_get_index_by_NID(subject, NID_commonName, i)) >= 0;) {
        free(cn);
        cn = entry_text(subject, i);
    }
    if (cn == NULL || cn[0] == '\0') {
        free(cn);
        return NULL;
    }
    authn_user_t *u = authn__user_new(cn, "");
    free(cn);
    for (int i = -1; (i = X509_NAME_get_index_by_NID(subject, NID_organizationName, i)) >= 0;) {
        char *o = entry_text(subject, i);
        if (o != NULL)
            authn__user_add_group(u, o);
        free(o);
    }
    return u;
}
