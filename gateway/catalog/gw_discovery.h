#ifndef GATEWAY_CATALOG_GW_DISCOVERY_H
#define GATEWAY_CATALOG_GW_DISCOVERY_H

/*
 * Discovery documents in kube-apiserver v1.32's shapes, built from a catalog. Each builder
 * returns a new JSON value the caller owns (json_decref), and touches no shared state, so any
 * thread may call it. Negotiation, caching headers and errors are the HTTP side's.
 */

#include <stdbool.h>

#include <jansson.h>

#include "gw_catalog.h"

/* The Kubernetes release kgate implements, as /version and the OpenAPI documents give it. */
#define GW_KUBE_MAJOR "1"
#define GW_KUBE_MINOR "32"
#define GW_KUBE_GIT_VERSION "v1.32.0-kgate"

/**
 * /api: APIVersions ({"kind":"APIVersions","versions":["v1"],...}). server_address is the
 * "host:port" clients should use, advertised for 0.0.0.0/0 in serverAddressByClientCIDRs;
 * NULL leaves that list out. "versions" is empty when the core group is switched off.
 */
json_t *gw_discovery_api_versions(const gw_catalog_t *c, const char *server_address);

/** /apis: APIGroupList of every served named group, in kube-apiserver's order. */
json_t *gw_discovery_group_list(const gw_catalog_t *c);

/** /apis/<group>: APIGroup, or NULL when the group is not served (or is ""). */
json_t *gw_discovery_group(const gw_catalog_t *c, const char *group);

/**
 * /api/v1 (group "") and /apis/<group>/<version>: APIResourceList with each resource and
 * each subresource ("pods/status"), sorted by name; a subresource whose kind lives in another
 * group/version names it ("deployments/scale": autoscaling/v1 Scale). NULL when the
 * group/version is not served.
 */
json_t *gw_discovery_resource_list(const gw_catalog_t *c, const char *group, const char *version);

/**
 * Aggregated discovery: APIGroupDiscoveryList of apidiscovery.k8s.io/<version> ("v2" or
 * "v2beta1"; NULL for anything else) for /api (core true: the core group only) or /apis
 * (the named groups). Every version is "Current".
 */
json_t *gw_discovery_aggregated(const gw_catalog_t *c, bool core, const char *version);

/**
 * /version: the version.Info object (major, minor, gitVersion, gitCommit, gitTreeState,
 * buildDate, goVersion, compiler, platform). The build may define KGATE_GIT_COMMIT,
 * KGATE_GIT_TREE_STATE and KGATE_BUILD_DATE; otherwise they are "", "" and the Unix epoch, as
 * an unstamped kube build reports.
 */
json_t *gw_discovery_version(void);

#endif
