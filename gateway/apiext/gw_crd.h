#ifndef GATEWAY_APIEXT_GW_CRD_H
#define GATEWAY_APIEXT_GW_CRD_H

/*
 * A CustomResourceDefinition compiled for serving: one gw_resource_t per served version, with
 * its compiled schema and the facts the registry needs (scale paths, selectable fields), as
 * kube's crdHandler builds its per-CRD storage. Compiled once per stored revision of the CRD,
 * immutable, refcounted: a catalog snapshot holds the CRDs it serves, and a request holds its
 * snapshot, so a CRD's compiled form lives as long as anything still uses it.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "gw_catalog.h"

typedef struct gw_crd gw_crd_t;
struct gw_crd_rules;

/* What one served version adds beyond its gw_resource_t (gw_custom_t.compiled). */
typedef struct gw_crd_version {
    const gw_crd_t *crd;
    const char *name;                 /* the version */
    bool has_status;                  /* subresources.status */
    bool has_scale;                   /* subresources.scale, with its paths (".spec.replicas") */
    const char *spec_replicas;        /* specReplicasPath */
    const char *status_replicas;      /* statusReplicasPath */
    const char *label_selector;       /* labelSelectorPath, or NULL */
    const char *const *field_labels;  /* what a field selector may name: metadata.name,
                                         metadata.namespace (a namespaced kind's only) and the
                                         selectableFields' paths without their leading dot;
                                         NULL-terminated */
    bool has_defaults;                /* the schema has a default somewhere: objects read from
                                         etcd are defaulted */
    bool several_versions;            /* the CRD lists more than one version: a stored object
                                         may be in any of them (an older storage version) */
    const gw_schema_t *schema;        /* the compiled schema (the resource's) */
    const struct gw_crd_rules *rules; /* its x-kubernetes-validations (gw_crd_rules.h), or NULL */
} gw_crd_version_t;

/* A CRD's `Webhook` conversion (spec.conversion.webhook), as its webhook is called. */
typedef struct {
    const char *crd_name;      /* metadata.name: the webhook's name is kube's
                                  "conversion_webhook_for_<crd_name>" */
    const char *url;           /* clientConfig.url, or NULL for a service */
    const char *svc_namespace; /* clientConfig.service: namespace, name, path ("" for none), */
    const char *svc_name;      /*   port (443 unless set) */
    const char *svc_path;
    int svc_port;
    const char *ca_pem;         /* caBundle decoded (PEM), or NULL: the system's CAs */
    const char *review_version; /* the ConversionReview version spoken, or NULL: none kgate
                                   knows (every conversion fails) */
} gw_crd_webhook_t;

/**
 * Compile a stored CRD object (any JSON: what etcd holds) for serving, or NULL with a reason
 * in err when it serves nothing: no accepted names yet (neither NamesAccepted nor Established
 * is True, as kube's handler requires), no served version, or a schema that does not compile.
 * revision is its etcd mod_revision (stored objects carry no resourceVersion). builtin is the
 * built-in catalog (ObjectMeta's and Scale's schemas). Thread: any.
 */
gw_crd_t *gw_crd_compile(const json_t *crd, int64_t revision, const gw_catalog_t *builtin,
                         char *err, size_t err_len);

/** Take a reference. Returns c. Thread: any. */
gw_crd_t *gw_crd_ref(gw_crd_t *c);

/** Drop a reference; the last frees it. NULL is fine. Thread: any. */
void gw_crd_unref(gw_crd_t *c);

/** The CRD's served versions as resources (valid while c is). Thread: any. */
size_t gw_crd_resources(const gw_crd_t *c, const gw_resource_t *const **out);

/** The stored CRD's metadata.uid and the revision it was compiled from. Thread: any. */
const char *gw_crd_uid(const gw_crd_t *c);
int64_t gw_crd_revision(const gw_crd_t *c);

/** Whether the CRD is being deleted (kube refuses creates of its objects then). */
bool gw_crd_terminating(const gw_crd_t *c);

/** The CRD's conversion webhook, or NULL when its strategy is None (valid while c is). Thread:
 *  any. */
const gw_crd_webhook_t *gw_crd_webhook(const gw_crd_t *c);

/** The compiled version behind a custom resource, or NULL for a built-in one. Thread: any. */
const gw_crd_version_t *gw_crd_version_of(const gw_resource_t *r);

#endif
