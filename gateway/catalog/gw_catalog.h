#ifndef GATEWAY_CATALOG_GW_CATALOG_H
#define GATEWAY_CATALOG_GW_CATALOG_H

/*
 * The resource catalog: every resource kgate serves, with its structural schema.
 *
 * Built-in resources come from a compact description derived (by scripts/gen-catalog.py) from
 * the public Kubernetes v1.32 OpenAPI document and committed as gateway/catalog/catalog.json;
 * the build embeds that file and gw_catalog_builtin() parses it once. A catalog is immutable
 * after it is built and shared by all threads. Custom resources come as snapshots (refcounted)
 * that extend the configured catalog (gw_catalog_extend); the process's current one is
 * published (gw_catalog_publish) and each request holds the one it started with.
 */

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

/* ---- schemas ---------------------------------------------------------------------------- */

typedef enum {
    GW_SCHEMA_ANY,    /* anything (RawExtension, preserve-unknown-fields, JSON) */
    GW_SCHEMA_OBJECT, /* fixed fields */
    GW_SCHEMA_MAP,    /* string keys, every value of one schema (additionalProperties) */
    GW_SCHEMA_ARRAY,
    GW_SCHEMA_STRING,
    GW_SCHEMA_INTEGER,
    GW_SCHEMA_NUMBER,
    GW_SCHEMA_BOOLEAN,
    GW_SCHEMA_INT_OR_STRING, /* x-kubernetes-int-or-string (IntOrString) */
    GW_SCHEMA_QUANTITY,      /* resource.Quantity: a string or a number */
    GW_SCHEMA_TIME,          /* metav1.Time / MicroTime: RFC 3339 string or null */
} gw_schema_type_t;

typedef struct gw_schema gw_schema_t;

/* What a CustomResourceDefinition's schema states beyond the structure (formats, enums,
   bounds, patterns, defaults, CEL rules): apiext's (gateway/apiext/gw_crd_schema.h). */
struct gw_schema_rules;

typedef struct {
    const char *name;
    const gw_schema_t *schema;
} gw_schema_field_t;

/*
 * The Kubernetes protobuf wire form of a schema (application/vnd.kubernetes.protobuf). An OBJECT
 * travels as a message of numbered fields; a few apimachinery types have hand-made messages
 * that differ from their JSON shape (gw_proto_type_t). Scalars, lists and maps follow from the
 * JSON type: strings and base64 "byte" strings are length-delimited, integers and booleans
 * varints, doubles 64-bit fixed; a list repeats its field; a map repeats entry messages
 * {key=1, value=2}, a map of lists wrapping each list in a message whose field 1 repeats.
 */
typedef enum {
    GW_PROTO_PLAIN,             /* as the JSON type says (an OBJECT: its gw_proto_message_t) */
    GW_PROTO_TIME,              /* metav1.Time {seconds=1, nanos=2}; JSON RFC 3339, seconds */
    GW_PROTO_MICRO_TIME,        /* metav1.MicroTime: the same message; JSON with microseconds */
    GW_PROTO_DURATION,          /* metav1.Duration {duration=1 ns}; JSON a Go duration string */
    GW_PROTO_INT_OR_STRING,     /* {type=1 (0 int, 1 string), intVal=2, strVal=3} */
    GW_PROTO_QUANTITY,          /* resource.Quantity {string=1} */
    GW_PROTO_RAW_JSON,          /* RawExtension, FieldsV1, apiextensions JSON: {raw=1} of JSON */
    GW_PROTO_SCHEMA_OR_ARRAY,   /* JSONSchemaPropsOrArray {schema=1, jSONSchemas=2} */
    GW_PROTO_SCHEMA_OR_BOOL,    /* JSONSchemaPropsOrBool {allows=1, schema=2} */
    GW_PROTO_SCHEMA_OR_STRINGS, /* JSONSchemaPropsOrStringArray {schema=1, property=2} */
} gw_proto_type_t;

/* The Go shape of a field, which decides what kube's JSON shows for zero and absent values. */
enum {
    GW_PROTO_POINTER = 1u << 0,      /* a Go pointer: a present zero value is kept */
    GW_PROTO_NO_OMITEMPTY = 1u << 1, /* no omitempty: an absent value still appears in JSON */
    GW_PROTO_WRAPPED = 1u << 2,      /* a list wrapped in a message whose field 1 repeats */
};

typedef struct gw_proto_message gw_proto_message_t;

/* One field of a message: a JSON property, or a struct embedded inline (`json:",inline"`) whose
   fields live in the same JSON object but travel as a nested message. */
typedef struct {
    int number;
    unsigned flags;                    /* GW_PROTO_* bits */
    const gw_schema_field_t *field;    /* the property; NULL for an inline struct */
    const gw_proto_message_t *inlined; /* the inline struct's message, when field is NULL */
} gw_proto_field_t;

struct gw_proto_message {
    const gw_proto_field_t *fields; /* ascending field numbers */
    size_t n_fields;
};

struct gw_schema {
    gw_schema_type_t type;
    const char *ref;    /* the OpenAPI definition it came from ("io.k8s.api.core.v1.PodSpec"), or
                           NULL for an inline schema */
    const char *format; /* "int32", "int64", "double", "byte", "date-time", ... or NULL */
    /* OBJECT: fields sorted by name (bsearch), and the names that are required */
    const gw_schema_field_t *fields;
    size_t n_fields;
    const char *const *required;
    size_t n_required;
    const gw_schema_t *items;  /* ARRAY: the element schema */
    const gw_schema_t *values; /* MAP: the value schema */
    /* merge markers (server-side apply, strategic merge patch) */
    const char *list_type; /* "atomic", "set", "map" or NULL */
    const char *const *list_map_keys;
    size_t n_list_map_keys;
    const char *map_type;        /* "atomic", "granular" or NULL */
    const char *patch_strategy;  /* "merge", "retainKeys", "merge,retainKeys", "replace" or NULL */
    const char *patch_merge_key; /* or NULL */
    bool embedded_resource;      /* x-kubernetes-embedded-resource */
    bool preserve_unknown;       /* x-kubernetes-preserve-unknown-fields */
    bool nullable;
    gw_proto_type_t proto_type;      /* the protobuf wire form */
    const gw_proto_message_t *proto; /* OBJECT with GW_PROTO_PLAIN: its message; NULL when the
                                        catalog has no protobuf facts for it */
    bool go_zero; /* a value of this schema can lack something Go's JSON would show: a field of
                     its message (or of a value nested in it) for which gw_proto_field_shown
                     holds (gateway/encoding/gw_gozero.h fills them in) */
    const struct gw_schema_rules *rules; /* a CRD schema's value rules; NULL for built-ins */
};

/** The field `name` of an OBJECT schema, or NULL. Thread: any. */
const gw_schema_field_t *gw_schema_field(const gw_schema_t *s, const char *name);

/** Whether `name` is a required field of s. Thread: any. */
bool gw_schema_required(const gw_schema_t *s, const char *name);

/** The wire form of s: its catalog fact, else the special JSON types recognised by schema type
 *  (int-or-string, quantity, time), else GW_PROTO_PLAIN. Thread: any. */
gw_proto_type_t gw_schema_proto_type(const gw_schema_t *s);

/**
 * Whether Go's JSON encoder writes property pf (not an inline struct) of a struct whose value
 * leaves it at its zero: a pointer only without omitempty (as null); a value struct or one of
 * apimachinery's special types always (omitempty never omits a struct: {}, null for a Time);
 * any other value (string, number, bool, list, map) only without omitempty. Thread: any.
 */
bool gw_proto_field_shown(const gw_proto_field_t *pf);

/* ---- resources -------------------------------------------------------------------------- */

enum {
    GW_VERB_GET = 1u << 0,
    GW_VERB_LIST = 1u << 1,
    GW_VERB_WATCH = 1u << 2,
    GW_VERB_CREATE = 1u << 3,
    GW_VERB_UPDATE = 1u << 4,
    GW_VERB_PATCH = 1u << 5,
    GW_VERB_DELETE = 1u << 6,
    GW_VERB_DELETECOLLECTION = 1u << 7,
};

/** Parse a lowercase verb name ("get", "deletecollection"); 0 when unknown. */
unsigned gw_verb_bit(const char *verb);

/** A Kubernetes release, major.minor; {0, 0} stands for none. */
typedef struct {
    int major;
    int minor;
} gw_release_t;

/**
 * The prerelease lifecycle of a served kind, as kube's generated APILifecycle* methods give it
 * (k8s.io/api's prerelease-lifecycle-gen tags at v1.32, the generator's defaults filled in by
 * scripts/gen-catalog.py from scripts/api-lifecycle.txt). gw_lifecycle.h reads it against the
 * server's release. Storage: the catalog's (process lifetime). Thread: any.
 */
typedef struct {
    const char *group; /* the kind's group ("" for core), version and kind */
    const char *version;
    const char *kind;
    gw_release_t introduced;
    gw_release_t deprecated;       /* {0, 0}: kube states no deprecation */
    gw_release_t removed;          /* {0, 0}: no removal release known */
    const char *replacement_group; /* the kind to use instead; all three NULL when none */
    const char *replacement_version;
    const char *replacement_kind;
} gw_lifecycle_t;

typedef struct {
    const char *name;          /* "status", "scale", "log", "exec", "binding", "eviction", ... */
    const char *group;         /* the subresource's own kind's group ("" for core), e.g. Scale is
                                  "autoscaling" */
    const char *version;       /* e.g. "v1" */
    const char *kind;          /* e.g. "Scale"; for status: the parent's kind */
    unsigned verbs;            /* GW_VERB_* bits (connect verbs map to GET/CREATE as kube's do) */
    const gw_schema_t *schema; /* the request/response body schema, or NULL */
    bool connect; /* a connect subresource (exec, attach, portforward, proxy): no body schema */
    const gw_lifecycle_t *lifecycle; /* the lifecycle of group/version/kind, or NULL when kube's
                                        type has none (every GA kind but a few) */
} gw_subresource_t;

/*
 * What a custom resource (one served version of a CustomResourceDefinition) adds to its
 * gw_resource_t: the CRD as stored, from which the documents, Tables and field selectors read
 * what they need. Storage: the catalog snapshot's (gateway/apiext/gw_crd.h builds it).
 */
typedef struct {
    const char *crd_name;            /* the CRD's metadata.name, "<plural>.<group>" */
    const char *crd_uid;             /* its metadata.uid */
    const json_t *crd;               /* the CRD object */
    const json_t *version;           /* its spec.versions[] entry of this resource's version */
    const json_t *schema_json;       /* that version's schema.openAPIV3Schema, or NULL */
    const char *storage_version;     /* the version objects are stored in */
    const char *deprecation_warning; /* a deprecated version's Warning text, else NULL */
    const struct gw_crd_version *compiled; /* apiext's compiled form, opaque here */
} gw_custom_t;

typedef struct {
    const char *group; /* "" for the core group */
    const char *version;
    const char *api_version; /* "group/version", or the version alone for the core group */
    const char *name;        /* plural resource name, "deployments" */
    const char *singular;    /* "deployment" */
    const char *kind;        /* "Deployment" */
    const char *list_kind;   /* "DeploymentList" */
    bool namespaced;
    unsigned verbs; /* GW_VERB_* bits */
    const char *const *short_names;
    size_t n_short_names;
    const char *const *categories;
    size_t n_categories;
    const gw_subresource_t *subresources;
    size_t n_subresources;
    const gw_schema_t *schema; /* the kind's schema (an OBJECT with apiVersion/kind/metadata) */
    const char *storage_path;  /* relative etcd path (gw_store_resource_path's answer) */
    bool keeps_generation;     /* metadata.generation is maintained (kube's strategies that do) */
    bool virtual_only;         /* not stored: reviews, TokenReview, SelfSubjectReview, ... */
    const gw_schema_t *list_schema;     /* the list kind's schema, or NULL when there is no list */
    const char *storage_version_hash;   /* discovery's storageVersionHash; NULL when virtual */
    bool delete_returns_object;         /* a finished delete answers with the object (kube's
                                           ReturnDeletedObject: pods, services, ...), not a Status */
    const struct gw_strategy *strategy; /* the registry's rules for the kind, opaque here: set
                                           once at start-up (gw_catalog_bind_strategies) */
    const gw_lifecycle_t *lifecycle;    /* the kind's prerelease lifecycle, or NULL when kube's
                                           type has none (every GA kind but ComponentStatus) */
    const gw_custom_t *custom;          /* a custom resource's facts; NULL for built-ins */
} gw_resource_t;

/* What a snapshot's custom resources belong to: release(ctx) runs once when the last reference
   to the snapshot goes, on the thread that drops it. */
typedef struct {
    void (*release)(void *ctx);
    void *ctx;
} gw_catalog_owner_t;

/** The function that gives a resource its strategy (the registry's gw_strategy_lookup). */
typedef const struct gw_strategy *(*gw_strategy_resolve_fn)(const gw_resource_t *r);

/** The subresource `name` of r, or NULL. Thread: any. */
const gw_subresource_t *gw_resource_subresource(const gw_resource_t *r, const char *name);

/** "group/version", or "version" for the core group, into a new string. Caller frees. */
char *gw_resource_api_version(const gw_resource_t *r);

typedef struct {
    const char *name;            /* "" for core */
    const char *const *versions; /* served versions, preferred first */
    size_t n_versions;
} gw_group_t;

typedef struct gw_catalog gw_catalog_t;

/**
 * The built-in catalog, parsed from the embedded catalog.json on the first call (call it once
 * from the main thread at start-up; it aborts on a corrupt embedded catalog, which would be a
 * build defect). Never freed (process lifetime). Thread: any after the first call.
 *
 * It holds every group/version kgate knows, including those kube-apiserver v1.32 leaves off
 * by default (alpha, and the betas): it is the universe --runtime-config chooses from. Serve
 * gw_catalog_configure(builtin, runtime_config) (NULL or "" gives kube's default set).
 */
const gw_catalog_t *gw_catalog_builtin(void);

/** Resource by group ("" = core), version and plural name; NULL when not served. */
const gw_resource_t *gw_catalog_find(const gw_catalog_t *c, const char *group, const char *version,
                                     const char *name);

/** Resource by group, version and kind; NULL when not served. */
const gw_resource_t *gw_catalog_find_kind(const gw_catalog_t *c, const char *group,
                                          const char *version, const char *kind);

/** Every resource, ordered by group (core first), then version, then name. */
size_t gw_catalog_count(const gw_catalog_t *c);
const gw_resource_t *gw_catalog_at(const gw_catalog_t *c, size_t i);

/** Every group, core first (name ""), then as kube-apiserver orders /apis. */
size_t gw_catalog_group_count(const gw_catalog_t *c);
const gw_group_t *gw_catalog_group_at(const gw_catalog_t *c, size_t i);

/** The served group `name` ("" = core), or NULL. Thread: any. */
const gw_group_t *gw_catalog_group(const gw_catalog_t *c, const char *name);

/**
 * Apply --runtime-config: a new catalog serving only the enabled group/versions and resources.
 * The starting point is kube-apiserver v1.32's default set over base's universe (the built-in
 * catalog: GA versions on; alpha and the betas off). Keys: "api/all", "api/ga", "api/beta",
 * "api/alpha", "<group>/<version>", "<group>/<version>/<resource>" ("v1" or "/v1" for core),
 * each "=true|false" (Go's boolean spellings; no value means true), applied in kube-apiserver's
 * order: the api/ keys, then group/version keys, then resource keys (later duplicates win); a
 * version is served when any of its resources is. NULL or "" gives the defaults. Returns 0 and
 * *out (process lifetime), or GW_EINVAL with a one-line reason in err for a malformed or
 * unknown key (unlike kube-apiserver, an unknown group too) or value. Thread: main, at
 * start-up.
 */
int gw_catalog_configure(const gw_catalog_t *base, const char *runtime_config,
                         const gw_catalog_t **out, char *err, size_t err_len);

/**
 * A snapshot serving what base serves plus the custom resources `custom` (n of them, each with
 * ->custom set; they and everything they point to must stay valid until owner.release runs),
 * with one reference held by the caller. Custom groups come after base's, by name (kube gives
 * every CRD group the same low priority); a group's versions in kube's version order (GA before
 * beta before alpha, higher numbers first, then other names alphabetically). A custom resource
 * in a group/version base serves joins it. Thread: any; the result is immutable but for its
 * lazily built documents.
 */
const gw_catalog_t *gw_catalog_extend(const gw_catalog_t *base, const gw_resource_t *const *custom,
                                      size_t n, gw_catalog_owner_t owner);

/** Take a reference to c (a no-op for the catalogs that live forever). Returns c. Thread: any. */
const gw_catalog_t *gw_catalog_ref(const gw_catalog_t *c);

/** Drop a reference; the last frees a snapshot and releases its owner. NULL is fine. */
void gw_catalog_unref(const gw_catalog_t *c);

/**
 * Make c the process's current catalog (taking a reference; the previous one is released).
 * The server publishes its configured catalog at start-up, and the CRD feed each snapshot.
 * Thread: any.
 */
void gw_catalog_publish(const gw_catalog_t *c);

/** A new reference to the current catalog, or NULL before any was published. Thread: any. */
const gw_catalog_t *gw_catalog_current(void);

/** The catalog a snapshot extends, or c itself for one that extends nothing. Thread: any. */
const gw_catalog_t *gw_catalog_base(const gw_catalog_t *c);

/**
 * kube's ordering of API versions (CompareKubeAwareVersionStrings): negative when a sorts
 * before b, i.e. has the higher priority. Thread: any. Pure.
 */
int gw_catalog_version_cmp(const char *a, const char *b);

/** A named OpenAPI definition ("io.k8s.api.apps.v1.Deployment"), or NULL. */
const gw_schema_t *gw_catalog_definition(const gw_catalog_t *c, const char *name);

/**
 * The schema of the kind group ("" = core) / version / kind, by the definitions'
 * x-kubernetes-group-version-kind markers: resource kinds, list kinds, subresource kinds (Scale,
 * Eviction, TokenRequest) and the kinds every group shares (Status is "v1" only; DeleteOptions,
 * WatchEvent). Searches the catalog's universe, whatever it serves. NULL when unknown.
 * Thread: any.
 */
const gw_schema_t *gw_catalog_kind_schema(const gw_catalog_t *c, const char *group,
                                          const char *version, const char *kind);

/**
 * Set the strategy of every resource of c's universe (the built-in catalog, whose resources
 * every configured catalog serves) to resolve(resource), so that requests read it without a
 * lookup. Thread: main, at start-up, before any thread reads a strategy.
 */
void gw_catalog_bind_strategies(const gw_catalog_t *c, gw_strategy_resolve_fn resolve);

#endif
