#ifndef GATEWAY_API_GW_NEGOTIATE_H
#define GATEWAY_API_GW_NEGOTIATE_H

/*
 * Content negotiation as kube-apiserver does it: the response media type from Accept, the
 * request body's type from Content-Type, and the response encoding from Accept-Encoding.
 * Pure functions (the request-level wrappers are in gw_req.h's implementation).
 *
 * Accept: clauses are ordered by q (highest first), then concrete types before wildcards,
 * keeping the client's order otherwise; q=0 does not exclude a clause (kube ignores it for
 * matching). For each clause the first producible type wins, in the server's order JSON, YAML,
 * protobuf (resource endpoints of kinds with a protobuf form only). Conversions
 * (`as=...;g=...;v=...`) are honoured only where the endpoint offers them, as kube's
 * AllowsMediaTypeTransform: Tables in JSON, PartialObjectMetadata(List) in any type; a clause
 * asking for one the endpoint does not offer is skipped, so the client's fallback clause
 * decides.
 */

#include <stdbool.h>

#include "gw_req.h"

/** What an endpoint can convert its answer to. */
typedef enum {
    GW_NEG_PLAIN,    /* no conversions (/version, /openapi, ...) */
    GW_NEG_RESOURCE, /* resource endpoints: protobuf, Table and PartialObjectMetadata(List)
                        (meta.k8s.io v1, v1beta1) */
    GW_NEG_RESOURCE_NO_PROTOBUF, /* the same for a kind without a protobuf form */
    GW_NEG_DISCOVERY,            /* /api and /apis: APIGroupDiscoveryList (apidiscovery.k8s.io v2,
                                    v2beta1) */
    GW_NEG_CBOR = 0x100, /* or'ed into a resource endpoint: application/cbor too (feature gate
                            CBORServingAndStorage) */
} gw_neg_endpoint_t;

typedef struct {
    gw_media_t media;    /* GW_MEDIA_JSON, _YAML, _PROTOBUF or _TABLE */
    gw_as_t as;          /* a PartialObjectMetadata conversion (media JSON, YAML or PROTOBUF) */
    const char *version; /* the conversion's version ("v1", "v2beta1", ...), or NULL */
    bool aggregated;     /* an APIGroupDiscoveryList was asked for (media JSON) */
    bool pretty;         /* the clause carried pretty=1 */
} gw_negotiated_t;

/**
 * Negotiate the response type for an Accept header (NULL or "" means JSON). Returns true and
 * fills *out, or false when nothing acceptable can be produced (406). Thread: any.
 */
bool gw_negotiate_accept(const char *accept, gw_neg_endpoint_t ep, gw_negotiated_t *out);

/** The media types kgate produces, as kube lists them in a 406 message: for resources, and for
 *  the other paths. */
#define GW_NEG_PRODUCED "application/json, application/yaml, application/vnd.kubernetes.protobuf"
#define GW_NEG_PRODUCED_PLAIN "application/json, application/yaml"
#define GW_NEG_PRODUCED_CBOR GW_NEG_PRODUCED ", application/cbor"

/** The media types kgate streams watch events in, as kube lists them in a watch's 406. */
#define GW_NEG_STREAMED "application/json, application/vnd.kubernetes.protobuf"
#define GW_NEG_STREAMED_CBOR GW_NEG_STREAMED ", application/cbor"

/** What /openapi/v2 answers in. */
typedef enum {
    GW_NEG_OPENAPI_NONE, /* 406 */
    GW_NEG_OPENAPI_JSON,
    GW_NEG_OPENAPI_PROTOBUF, /* gnostic's openapi.v2.Document */
} gw_neg_openapi_t;

/** The Content-Type of /openapi/v2's protobuf, whichever of its two subtypes was asked for. */
#define GW_NEG_OPENAPI_V2_PROTOBUF "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"

/**
 * /openapi/v2's negotiation, as kube-openapi's handler (not kube's generic one): the Accept
 * clauses in goautoneg's order; the first whose type is `application` or `*` and whose subtype
 * is `json`, `com.github.proto-openapi.spec.v2.v1.0+protobuf`, the older
 * `com.github.proto-openapi.spec.v2@v1.0+protobuf` or `*` decides, JSON first for a wildcard.
 * Parameters other than q are ignored; type and subtype compare exactly. NULL or "" counts as
 * a wildcard. Returns GW_NEG_OPENAPI_NONE when no clause matches. Thread: any.
 */
gw_neg_openapi_t gw_negotiate_openapi_v2(const char *accept);

/** Request body types. */
typedef enum {
    GW_BODY_JSON,
    GW_BODY_YAML,
    GW_BODY_JSON_PATCH,       /* application/json-patch+json */
    GW_BODY_MERGE_PATCH,      /* application/merge-patch+json */
    GW_BODY_STRATEGIC_PATCH,  /* application/strategic-merge-patch+json */
    GW_BODY_APPLY_PATCH,      /* application/apply-patch+yaml */
    GW_BODY_PROTOBUF,         /* application/vnd.kubernetes.protobuf (built-in kinds) */
    GW_BODY_CBOR,             /* application/cbor (feature gate CBORServingAndStorage) */
    GW_BODY_APPLY_PATCH_CBOR, /* application/apply-patch+cbor (the same gate) */
    GW_BODY_UNSUPPORTED,
} gw_body_type_t;

/**
 * The type of a request body from its Content-Type (NULL or "" means JSON, as kube assumes).
 * With `patch` the patch types are recognised (parameters after ';' ignored, as kube's patch
 * handler strips them) and anything else is unsupported; without it JSON and YAML are
 * (type/subtype case-insensitive, parameters allowed). Thread: any.
 */
gw_body_type_t gw_negotiate_body(const char *content_type, bool patch);

/** The media types gw_negotiate_body accepts, as kube lists them in a 415 message. */
#define GW_NEG_CONSUMED "application/json, application/yaml, application/vnd.kubernetes.protobuf"
#define GW_NEG_CONSUMED_CBOR GW_NEG_CONSUMED ", application/cbor"
#define GW_NEG_PATCHES                                                                             \
    "application/json-patch+json, application/merge-patch+json, "                                  \
    "application/strategic-merge-patch+json, application/apply-patch+yaml"
#define GW_NEG_PATCHES_CUSTOM                                                                      \
    "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml"
#define GW_NEG_PATCHES_CBOR ", application/apply-patch+cbor"

/**
 * Whether an Accept-Encoding header offers gzip: kube's test, a comma-separated token that is
 * exactly "gzip" once trimmed (no parameters). Thread: any.
 */
bool gw_negotiate_gzip(const char *accept_encoding);

/**
 * Whether the response should be pretty-printed without being asked in the media type:
 * `?pretty=` parsed as a Go bool when given and non-empty, else a browser or command-line user
 * agent (curl, Wget, Mozilla/5.0), as kube-apiserver decides. pretty_param is the first
 * `pretty` query value or NULL. Thread: any.
 */
bool gw_negotiate_pretty(const char *pretty_param, const char *user_agent);

/**
 * The patch type of a PATCH request's body; on an unsupported Content-Type replies 415
 * UnsupportedMediaType listing the patch types the resource takes (strategic merge only for
 * built-in kinds: strategic false leaves it out and refuses it) and returns
 * GW_BODY_UNSUPPORTED, finishing r. Thread: r's worker.
 */
gw_body_type_t gw_req_patch_type(gw_req_t *r, bool strategic);

#endif
