#ifndef GATEWAY_CATALOG_GW_OPENAPI_H
#define GATEWAY_CATALOG_GW_OPENAPI_H

/*
 * The OpenAPI documents of a catalog: /openapi/v2 (Swagger 2.0), the /openapi/v3 index and one
 * OpenAPI 3.0 document per served group/version. They list every served resource's paths and
 * operations with kube-apiserver's query parameters (fieldValidation, dryRun, fieldManager,
 * force, the list and watch parameters, ...), x-kubernetes-action and
 * x-kubernetes-group-version-kind, and the definitions those paths reach, without prose.
 *
 * The documents are large, so each is built once per catalog, on first use, and kept as
 * serialized bytes with their hash: the HTTP side sends the bytes as they are, uses the hash
 * as the ETag (quoted) and in the v3 index's "?hash=" links.
 *
 * A snapshot with custom resources (gw_catalog_extend) publishes them as kube-apiserver's
 * apiextensions-apiserver does: definitions named "<reversed group>.<version>.<Kind>" and
 * "...<ListKind>" built from each CRD version's openAPIV3Schema, its collection, object, status
 * and scale paths with the openapi builder's operations, in /openapi/v2 and in its group/version's
 * v3 document. The snapshot builds its own v2 document and the v3 documents of the
 * group/versions it serves custom resources in; those of the others are the base catalog's
 * (the same bytes and hash), so a CRD change moves only the ETags it concerns. A snapshot's
 * documents live as long as it does.
 */

#include <stddef.h>

#include "gw_catalog.h"

typedef struct {
    const char *data; /* compact JSON, NUL-terminated; or the protobuf's bytes */
    size_t len;       /* bytes in data, without the NUL */
    const char *hash; /* hex SHA-512 of data in upper case, as kube-apiserver's ETags */
} gw_openapi_doc_t;

/**
 * /openapi/v2. Fills *out with bytes that live as long as the catalog (the process, or the
 * snapshot: the caller holds a reference while it uses them). The
 * first call for a catalog builds the document under the catalog's lock (tens of
 * milliseconds); later calls return at once. Returns 0. Thread: any.
 */
int gw_openapi_v2(const gw_catalog_t *c, gw_openapi_doc_t *out);

/**
 * /openapi/v2 as protobuf: the same document as gw_openapi_v2 encoded as gnostic's
 * openapi.v2.Document (gw_openapi_proto.h), built with the JSON on first use of either.
 * hash is the JSON's, as kube-openapi's handler serves one ETag for both encodings (its
 * responses vary on Accept). Returns 0. Thread: any.
 */
int gw_openapi_v2_proto(const gw_catalog_t *c, gw_openapi_doc_t *out);

/**
 * /openapi/v3: {"paths": {"api/v1": {"serverRelativeURL": "/openapi/v3/api/v1?hash=<H>"},
 * "apis/apps/v1": ..., ...}} over every served group/version. Built with all the v3
 * documents on first use, as gw_openapi_v2. Returns 0. Thread: any.
 */
int gw_openapi_v3_index(const gw_catalog_t *c, gw_openapi_doc_t *out);

/**
 * /openapi/v3/<path>, path being "api/v1" or "apis/<group>/<version>" (no leading slash, no
 * query): an OpenAPI 3.0.0 document with that group/version's paths and, under
 * components.schemas, every definition they reach ("#/components/schemas/<name>" refs).
 * Returns 0, or GW_ENOTFOUND when the catalog does not serve that group/version.
 * Thread: any.
 */
int gw_openapi_v3(const gw_catalog_t *c, const char *path, gw_openapi_doc_t *out);

#endif
