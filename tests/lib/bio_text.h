#ifndef TESTS_LIB_BIO_TEXT_H
#define TESTS_LIB_BIO_TEXT_H

/* What tests wrote into an OpenSSL memory BIO (PEM text), as a C string. Header-only. */

#include <stdlib.h>
#include <string.h>

#include <openssl/bio.h>

/** The bytes of memory BIO b as a new NUL-terminated string (caller frees); b is freed. */
static inline char *
bio_text(BIO *b)
{
    char *data = NULL;
    long n = BIO_get_mem_data(b, &data);
    char *s = malloc((size_t)n + 1); /* the BIO's bytes end without a NUL */

    memcpy(s, data, (size_t)n);
    s[n] = '\0';
    BIO_free(b);
    return s;
}

#endif
