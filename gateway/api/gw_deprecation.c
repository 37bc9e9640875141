/*
 * Requests to a deprecated kind. kube's installer marks every handler of a kind whose lifecycle
 * says it is deprecated at the server's release: the handler adds the Warning of
 * deprecation.WarningMessage before it runs, and its metrics wrapper, when it returns, adds the
 * audit annotations k8s.io/deprecated and k8s.io/removed-release and sets the gauge
 * apiserver_requested_deprecated_apis for the request's group, version, resource and
 * subresource. The kind is the handler's: a
 * subresource's own (autoscaling/v1 Scale for scale), the parent's for status.
 */
#include "gw_api_int.h"
#include "gw_lifecycle.h"

void
gw_api__deprecation_mark(gw_req_t *r)
{
    const gw_lifecycle_t *l =
        r->subresource != NULL ? r->subresource->lifecycle : r->resource->lifecycle;
    char text[512];

    /* A CRD's deprecated version: its warning only, as kube's CR handler adds it. */
    if (r->resource->custom != NULL) {
        if (r->resource->custom->deprecation_warning != NULL)
            gw_req_warning(r, "%s", r->resource->custom->deprecation_warning);
        return;
    }
    if (!gw_lifecycle_deprecated(l, gw_lifecycle_server_release()))
        return;
    GW_API_REQ(r)->deprecated = l;
    gw_req_warning(r, "%s", gw_lifecycle_warning(l, text, sizeof(text)));
}

void
gw_api__deprecation_finish(gw_req_t *r)
{
    const gw_lifecycle_t *l = GW_API_REQ(r)->deprecated;
    char removed[32];

    if (l == NULL)
        return;
    gw_lifecycle_removed_release(l, removed, sizeof(removed));
    gw_req_audit_annotate(r, "k8s.io/deprecated", "true");
    if (removed[0] != '\0')
        gw_req_audit_annotate(r, "k8s.io/removed-release", removed);
    gw_metrics_deprecated_t d = {
        .group = r->info.group,
        .version = r->info.version,
        .resource = r->info.resource,
        .subresource = r->info.subresource,
        .removed_release = removed,
    };
    gw_metrics_deprecated(GW_API_REQ(r)->api->metrics, (size_t)gw_worker_index(r->worker), &d);
}
