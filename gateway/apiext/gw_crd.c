/* A CustomResourceDefinition compiled into the resources it serves. */
#include "gw_crd.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>
#include <openssl/sha.h>

#include "gw_alloc.h"
#include "gw_arena.h"
#include "gw_crd_conversion.h"
#include "gw_crd_rules.h"
#include "gw_crd_schema.h"
#include "gw_err.h"

#define OBJECT_META "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
#define SCALE "io.k8s.api.autoscaling.v1.Scale"

struct gw_crd {
    gw_arena_t *arena; /* everything below */
    _Atomic long refs;
    json_t *obj; /* the stored CRD */
    const char *uid;
    int64_t revision;
    bool terminating;
    const gw_resource_t **resources;
    size_t n_resources;
    const gw_crd_webhook_t *webhook; /* NULL: the None strategy */
};

static const char *
str_at(const json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : "";
}

static bool
condition_true(const json_t *crd, const char *type)
{
    const json_t *conds = json_object_get(json_object_get(crd, "status"), "conditions");
    size_t i;
    json_t *c;

    json_array_foreach(conds, i, c)
    {
        if (strcmp(str_at(c, "type"), type) == 0)
            return strcmp(str_at(c, "status"), "True") == 0;
    }
    return false;
}

/* A string array of o[key] in the arena. */
static const char *const *
names_at(gw_arena_t *a, const json_t *o, const char *key, size_t *n)
{
    const json_t *arr = json_object_get(o, key);
    const char **out = gw_arena_calloc(a, (json_array_size(arr) + 1) * sizeof(*out));
    size_t i;
    json_t *v;

    *n = 0;
    json_array_foreach(arr, i, v)
    {
        if (json_is_string(v))
            out[(*n)++] = json_string_value(v);
    }
    return out;
}

/* discovery.StorageVersionHash: the first 8 bytes of SHA-256 of "group/version/kind", base64. */
static const char *
storage_version_hash(gw_arena_t *a, const char *group, const char *version, const char *kind)
{
    unsigned char md[SHA256_DIGEST_LENGTH];
    char *gvk = gw_arena_sprintf(a, "%s/%s/%s", group, version, kind);
    char *out = gw_arena_calloc(a, 16);

    SHA256((const unsigned char *)gvk, strlen(gvk), md);
    EVP_EncodeBlock((unsigned char *)out, md, 8);
    return out;
}

/* kube's defaultDeprecationWarning: the version is deprecated; use the highest-priority
 * served, non-deprecated version above it, if any. */
static const char *
default_warning(gw_arena_t *a, const json_t *spec, const char *deprecated)
{
    const char *group = str_at(spec, "group");
    const char *kind = str_at(json_object_get(spec, "names"), "kind");
    const char *best = NULL;
    size_t i;
    json_t *v;

    json_array_foreach(json_object_get(spec, "versions"), i, v)
    {
        const char *name = str_at(v, "name");
        if (!json_is_true(json_object_get(v, "served")) ||
            json_is_true(json_object_get(v, "deprecated")) ||
            gw_catalog_version_cmp(name, deprecated) >= 0)
            continue;
        if (best == NULL || gw_catalog_version_cmp(name, best) < 0)
            best = name;
    }
    if (best == NULL)
        return gw_arena_sprintf(a, "%s/%s %s is deprecated", group, deprecated, kind);
    return gw_arena_sprintf(a, "%s/%s %s is deprecated; use %s/%s %s", group, deprecated, kind,
                            group, best, kind);
}

/* The field selector's labels: kube's metadata fields (metadata.namespace only for a namespaced
 * kind, as kube's crConverter), then the selectable fields' paths without their leading dot. */
static void
field_labels(gw_arena_t *a, gw_crd_version_t *cv, const json_t *version, bool namespaced)
{
    const json_t *arr = json_object_get(version, "selectableFields");
    const char **out = gw_arena_calloc(a, (json_array_size(arr) + 3) * sizeof(*out));
    size_t i, n = 0;
    json_t *f;

    out[n++] = "metadata.name";
    if (namespaced)
        out[n++] = "metadata.namespace";
    json_array_foreach(arr, i, f)
    {
        const char *p = str_at(f, "jsonPath");
        if (*p == '.' && p[1] != '\0')
            out[n++] = p + 1;
    }
    cv->field_labels = out;
}

static void
compile_version_facts(gw_arena_t *a, gw_crd_version_t *cv, const json_t *version, bool namespaced)
{
    const json_t *subs = json_object_get(version, "subresources");
    const json_t *scale = json_object_get(subs, "scale");

    cv->name = str_at(version, "name");
    cv->has_status = json_is_object(json_object_get(subs, "status"));
    cv->has_scale = json_is_object(scale);
    if (cv->has_scale) {
        cv->spec_replicas = str_at(scale, "specReplicasPath");
        cv->status_replicas = str_at(scale, "statusReplicasPath");
        cv->label_selector = json_string_value(json_object_get(scale, "labelSelectorPath"));
    }
    field_labels(a, cv, version, namespaced);
}

/* The CRD's warning for a deprecated version, or kube's default text. */
static const char *
deprecation_warning(gw_arena_t *a, const json_t *spec, const json_t *version)
{
    const json_t *warning = json_object_get(version, "deprecationWarning");

    if (!json_is_true(json_object_get(version, "deprecated")))
        return NULL;
    if (json_is_string(warning))
        return json_string_value(warning);
    return default_warning(a, spec, str_at(version, "name"));
}

static gw_subresource_t *
subresources(gw_arena_t *a, const gw_resource_t *r, const gw_crd_version_t *cv,
             const gw_catalog_t *builtin, size_t *n)
{
    gw_subresource_t *subs = gw_arena_calloc(a, 2 * sizeof(*subs));
    unsigned verbs = GW_VERB_GET | GW_VERB_PATCH | GW_VERB_UPDATE;

    *n = 0;
    if (cv->has_status)
        subs[(*n)++] = (gw_subresource_t){.name = "status",
                                          .group = r->group,
                                          .version = r->version,
                                          .kind = r->kind,
                                          .verbs = verbs,
                                          .schema = r->schema};
    if (cv->has_scale)
        subs[(*n)++] = (gw_subresource_t){.name = "scale",
                                          .group = "autoscaling",
                                          .version = "v1",
                                          .kind = "Scale",
                                          .verbs = verbs,
                                          .schema = gw_catalog_definition(builtin, SCALE)};
    return subs;
}

/* An accepted name, or the spec's while the status lacks it. */
static const char *
name_at(const json_t *accepted, const json_t *names, const char *key)
{
    const char *s = str_at(accepted, key);

    return *s ? s : str_at(names, key);
}

/* The names a served version answers to: the URL's plural from spec, the rest as accepted. */
static void
fill_names(gw_arena_t *a, gw_resource_t *r, const json_t *crd)
{
    const json_t *spec = json_object_get(crd, "spec");
    const json_t *names = json_object_get(spec, "names");
    const json_t *acc = json_object_get(json_object_get(crd, "status"), "acceptedNames");

    r->group = str_at(spec, "group");
    r->name = str_at(names, "plural");
    r->singular = name_at(acc, names, "singular");
    r->kind = name_at(acc, names, "kind");
    r->list_kind = name_at(acc, names, "listKind");
    r->namespaced = strcmp(str_at(spec, "scope"), "Namespaced") == 0;
    r->short_names = names_at(a, acc, "shortNames", &r->n_short_names);
    r->categories = names_at(a, acc, "categories", &r->n_categories);
    r->storage_path = gw_arena_sprintf(a, "%s/%s", r->group, r->name);
}

static const char *
storage_version(const json_t *spec)
{
    size_t i;
    json_t *v;

    json_array_foreach(json_object_get(spec, "versions"), i, v)
    {
        if (json_is_true(json_object_get(v, "storage")))
            return str_at(v, "name");
    }
    return "";
}

/* Whether a default is stated anywhere in s (depth-bounded: compiled schemas are trees, but
 * metadata's built-in ObjectMeta schema, which has no rules, is where recursion would be). */
static bool
has_defaults(const gw_schema_t *s, int depth)
{
    if (s == NULL || s->rules == NULL || depth > 64)
        return false;
    if (s->rules->default_value != NULL)
        return true;
    for (size_t i = 0; i < s->n_fields; i++) {
        if (has_defaults(s->fields[i].schema, depth + 1))
            return true;
    }
    return has_defaults(s->items, depth + 1) || has_defaults(s->values, depth + 1);
}

static int
compile_version(gw_crd_t *c, const json_t *version, const gw_catalog_t *builtin, gw_resource_t *r,
                char *err, size_t err_len)
{
    gw_arena_t *a = c->arena;
    const json_t *spec = json_object_get(c->obj, "spec");
    const json_t *schema = json_object_get(json_object_get(version, "schema"), "openAPIV3Schema");
    gw_crd_version_t *cv = gw_arena_calloc(a, sizeof(*cv));
    gw_custom_t *cu = gw_arena_calloc(a, sizeof(*cu));
    const gw_schema_t *objmeta = gw_catalog_definition(builtin, OBJECT_META);

    if (gw_crd_schema_compile(a, json_is_object(schema) ? schema : NULL, objmeta, &r->schema, err,
                              err_len) != 0)
        return GW_EINVAL;
    fill_names(a, r, c->obj);
    cv->crd = c;
    compile_version_facts(a, cv, version, r->namespaced);
    cv->has_defaults = has_defaults(r->schema, 0);
    cv->several_versions = json_array_size(json_object_get(spec, "versions")) > 1;
    cv->schema = r->schema;
    cv->rules = gw_crd_rules_compile(a, r->schema);
    cu->crd_name = str_at(json_object_get(c->obj, "metadata"), "name");
    cu->crd_uid = c->uid;
    cu->crd = c->obj;
    cu->version = version;
    cu->schema_json = json_is_object(schema) ? schema : NULL;
    cu->storage_version = storage_version(spec);
    cu->deprecation_warning = deprecation_warning(a, spec, version);
    cu->compiled = cv;
    r->version = cv->name;
    r->api_version = gw_arena_sprintf(a, "%s/%s", r->group, r->version);
    r->verbs = GW_VERB_GET | GW_VERB_LIST | GW_VERB_WATCH | GW_VERB_CREATE | GW_VERB_UPDATE |
               GW_VERB_PATCH | GW_VERB_DELETE | GW_VERB_DELETECOLLECTION;
    r->keeps_generation = true;
    r->storage_version_hash = storage_version_hash(a, r->group, cu->storage_version,
                                                   str_at(json_object_get(spec, "names"), "kind"));
    r->subresources = subresources(a, r, cv, builtin, &r->n_subresources);
    r->custom = cu;
    return 0;
}

static int
compile_versions(gw_crd_t *c, const gw_catalog_t *builtin, char *err, size_t err_len)
{
    const json_t *versions = json_object_get(json_object_get(c->obj, "spec"), "versions");
    size_t i;
    json_t *v;

    c->resources = gw_arena_calloc(c->arena, (json_array_size(versions) + 1) * sizeof(void *));
    json_array_foreach(versions, i, v)
    {
        gw_resource_t *r;
        if (!json_is_true(json_object_get(v, "served")) ||
            !json_is_string(json_object_get(v, "name")))
            continue;
        r = gw_arena_calloc(c->arena, sizeof(*r));
        if (compile_version(c, v, builtin, r, err, err_len) != 0)
            return GW_EINVAL;
        c->resources[c->n_resources++] = r;
    }
    if (c->n_resources == 0) {
        snprintf(err, err_len, "no served version");
        return GW_EINVAL;
    }
    return 0;
}

/* caBundle's base64 decoded into PEM text (NUL-terminated), or NULL when absent or unreadable. */
static const char *
ca_bundle(gw_arena_t *a, const json_t *cc)
{
    const char *b64 = json_string_value(json_object_get(cc, "caBundle"));
    size_t n = b64 != NULL ? strlen(b64) : 0;
    unsigned char *pem;
    int got;

    if (n == 0)
        return NULL;
    pem = gw_arena_calloc(a, n / 4 * 3 + 4);
    got = EVP_DecodeBlock(pem, (const unsigned char *)b64, (int)n);
    return got > 0 ? (const char *)pem : NULL;
}

/* spec.conversion's Webhook strategy, compiled (kube's webhookClientConfigForCRD). */
static const gw_crd_webhook_t *
compile_webhook(gw_arena_t *a, const json_t *crd)
{
    const json_t *conv = json_object_get(json_object_get(crd, "spec"), "conversion");
    const json_t *wh = json_object_get(conv, "webhook");
    const json_t *cc = json_object_get(wh, "clientConfig");
    const json_t *svc = json_object_get(cc, "service"), *port;
    gw_crd_webhook_t *w;

    if (strcmp(str_at(conv, "strategy"), "Webhook") != 0)
        return NULL;
    w = gw_arena_calloc(a, sizeof(*w));
    w->crd_name = str_at(json_object_get(crd, "metadata"), "name");
    w->url = json_string_value(json_object_get(cc, "url"));
    if (json_is_object(svc)) {
        port = json_object_get(svc, "port");
        w->svc_namespace = str_at(svc, "namespace");
        w->svc_name = str_at(svc, "name");
        w->svc_path = str_at(svc, "path");
        w->svc_port = json_is_integer(port) ? (int)json_integer_value(port) : 443;
    }
    w->ca_pem = ca_bundle(a, cc);
    w->review_version = gw_crd_review_version(json_object_get(wh, "conversionReviewVersions"));
    return w;
}

gw_crd_t *
gw_crd_compile(const json_t *crd, int64_t revision, const gw_catalog_t *builtin, char *err,
               size_t err_len)
{
    const json_t *spec = json_object_get(crd, "spec"), *meta;
    gw_crd_t *c;

    if (!condition_true(crd, "NamesAccepted") && !condition_true(crd, "Established")) {
        snprintf(err, err_len, "its names are not accepted yet");
        return NULL;
    }
    if (!*str_at(spec, "group") || !*str_at(json_object_get(spec, "names"), "plural") ||
        !*str_at(json_object_get(spec, "names"), "kind")) {
        snprintf(err, err_len, "it names no group, plural or kind");
        return NULL;
    }
    c = gw_calloc(1, sizeof(*c));
    c->arena = gw_arena_new();
    atomic_init(&c->refs, 1);
    c->obj = json_deep_copy(crd);
    gw_arena_defer(c->arena, (void (*)(void *))json_decref, c->obj);
    meta = json_object_get(c->obj, "metadata");
    c->uid = str_at(meta, "uid");
    c->revision = revision;
    c->terminating = json_object_get(meta, "deletionTimestamp") != NULL;
    c->webhook = compile_webhook(c->arena, c->obj);
    if (compile_versions(c, builtin, err, err_len) != 0) {
        gw_crd_unref(c);
        return NULL;
    }
    return c;
}

gw_crd_t *
gw_crd_ref(gw_crd_t *c)
{
    if (c != NULL)
        atomic_fetch_add(&c->refs, 1);
    return c;
}

void
gw_crd_unref(gw_crd_t *c)
{
    if (c == NULL || atomic_fetch_sub(&c->refs, 1) != 1)
        return;
    gw_arena_free(c->arena);
    free(c);
}

size_t
gw_crd_resources(const gw_crd_t *c, const gw_resource_t *const **out)
{
    *out = c->resources;
    return c->n_resources;
}

const char *
gw_crd_uid(const gw_crd_t *c)
{
    return c->uid;
}

int64_t
gw_crd_revision(const gw_crd_t *c)
{
    return c->revision;
}

bool
gw_crd_terminating(const gw_crd_t *c)
{
    return c->terminating;
}

const gw_crd_webhook_t *
gw_crd_webhook(const gw_crd_t *c)
{
    return c->webhook;
}

const gw_crd_version_t *
gw_crd_version_of(const gw_resource_t *r)
{
    return r->custom ? r->custom->compiled : NULL;
}
