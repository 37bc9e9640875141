#ifndef GATEWAY_REGISTRY_GW_WEBHOOK_CLIENT_VALID_H
#define GATEWAY_REGISTRY_GW_WEBHOOK_CLIENT_VALID_H

/*
 * A webhook's client config as apiserver's util/webhook validates it (ValidateWebhookURL with
 * forceHttps, ValidateWebhookService), for the admission webhook configurations and a CRD's
 * conversion webhook, in kube's words. Values are the v1 JSON; a member set to null counts as
 * absent. Pure; thread: any.
 */

#include <stdbool.h>

#include <jansson.h>

#include "gw_objmeta.h"

/** ValidateWebhookURL(path, url, true): a URL Go parses, https, with a host, without user
 *  information, query or fragment; errors appended to errs. */
void gw_webhook_url_validate(const char *url, const char *path, gw_field_errors_t *errs);

/** ValidateWebhookService of `svc` (a ServiceReference) at `path`, as kube's callers pass it:
 *  the name and namespace in each other's place (a missing namespace is `<path>.name: Required
 *  value`), the port 1-65535, the path '/'-separated DNS-1123 subdomains. */
void gw_webhook_service_validate(const json_t *svc, const char *path, gw_field_errors_t *errs);

/** Whether s parses as Go's url.ParseRequestURI does, with a scheme and a host. */
bool gw_webhook_request_uri_with_host(const char *s);

#endif
