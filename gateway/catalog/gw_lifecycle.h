#ifndef GATEWAY_CATALOG_GW_LIFECYCLE_H
#define GATEWAY_CATALOG_GW_LIFECYCLE_H

/*
 * A kind's prerelease lifecycle (gw_lifecycle_t, on the catalog's resources) read against a
 * release, as kube-apiserver's endpoints/deprecation package reads the generated APILifecycle*
 * methods: whether a kind is deprecated, its removal release, and the warning text its handlers
 * send. Pure functions. Thread: any.
 */

#include <stdbool.h>
#include <stddef.h>

#include "gw_catalog.h"

/** The release kgate serves as (its /version major and minor: 1.32). */
gw_release_t gw_lifecycle_server_release(void);

/**
 * Whether l is deprecated at release `current`, as kube's deprecation.IsDeprecated: l states a
 * deprecation release (not {0, 0}) and it is not later than current (a {0, 0} current counts
 * every stated deprecation). False for NULL.
 */
bool gw_lifecycle_deprecated(const gw_lifecycle_t *l, gw_release_t current);

/**
 * kube's deprecation.RemovedRelease: "<major>.<minor>" of l's removal into buf (len bytes, at
 * least 24), or "" when l is NULL or states none. Returns buf.
 */
char *gw_lifecycle_removed_release(const gw_lifecycle_t *l, char *buf, size_t len);

/**
 * kube's deprecation.WarningMessage into buf (len bytes, cut to fit, NUL-terminated):
 * "<group/version> <Kind> is deprecated in v<X.Y>+", then ", unavailable in v<X.Y>+" when a
 * removal release is known, then "; use <group/version> <Kind>" when a replacement is; core
 * kinds write their version alone. "" when l is NULL or states no deprecation. Returns buf.
 */
char *gw_lifecycle_warning(const gw_lifecycle_t *l, char *buf, size_t len);

#endif
