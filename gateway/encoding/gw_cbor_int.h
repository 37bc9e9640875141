#ifndef GATEWAY_ENCODING_GW_CBOR_INT_H
#define GATEWAY_ENCODING_GW_CBOR_INT_H

/* Internals shared by the CBOR codec's files: RFC 8949's major types and the tag numbers kube's
   encoder and decoder give a meaning to. */

enum {
    GW_CBOR__UINT = 0,
    GW_CBOR__NEGINT = 1,
    GW_CBOR__BYTES = 2,
    GW_CBOR__TEXT = 3,
    GW_CBOR__ARRAY = 4,
    GW_CBOR__MAP = 5,
    GW_CBOR__TAG = 6,
    GW_CBOR__SIMPLE = 7, /* floats and simple values */
};

enum {
    GW_CBOR__TAG_RFC3339 = 0,
    GW_CBOR__TAG_EPOCH = 1,
    GW_CBOR__TAG_BIGNUM = 2,
    GW_CBOR__TAG_NEG_BIGNUM = 3,
    GW_CBOR__TAG_BASE64URL_LATER = 21, /* RFC 8949 3.4.5.2: expected later encodings */
    GW_CBOR__TAG_BASE64_LATER = 22,
    GW_CBOR__TAG_BASE16_LATER = 23,
};

#endif
