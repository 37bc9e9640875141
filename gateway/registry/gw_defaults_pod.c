/*
 * Pod specs wherever they are (Pods, PodTemplates, the templates of workload kinds): kube's
 * SetDefaults_PodSpec, _Container, _Probe, _HTTPGetAction, _Volume and the volume source
 * defaulters, as the generated SetObjectDefaults_* call them on every nested spec, and
 * SetDefaults_Pod for Pods alone. Claims share PersistentVolumeClaimSpec's default.
 */
#include "gw_defaults_int.h"

#include <ctype.h>
#include <string.h>

/* ---- tables ------------------------------------------------------------------------------- */

/* SetDefaults_PodSpec. kube keeps new defaults out of it (they would change every template
 * and roll every workload), so this list stays short. */
static const gw_def_t pod_spec[] = {
    GW_ZERO_STR("dnsPolicy", "ClusterFirst"),
    GW_ZERO_STR("restartPolicy", "Always"),
    GW_NIL_OBJ("securityContext"),
    GW_NIL_INT("terminationGracePeriodSeconds", 30),
    GW_ZERO_STR("schedulerName", "default-scheduler"),
    GW_DEF_END,
};

static const gw_def_t container[] = {
    GW_ZERO_STR("terminationMessagePath", "/dev/termination-log"),
    GW_ZERO_STR("terminationMessagePolicy", "File"),
    /* Not a defaulter: resources is a plain struct, which Go always writes ({} when empty). */
    GW_NIL_OBJ("resources"),
    GW_DEF_END,
};

static const gw_def_t probe[] = {
    GW_ZERO_INT("timeoutSeconds", 1),
    GW_ZERO_INT("periodSeconds", 10),
    GW_ZERO_INT("successThreshold", 1),
    GW_ZERO_INT("failureThreshold", 3),
    GW_DEF_END,
};

static const gw_def_t http_get[] = {
    GW_ZERO_STR("path", "/"),
    GW_ZERO_STR("scheme", "HTTP"),
    GW_DEF_END,
};

static const gw_def_t grpc[] = {GW_NIL_STR("service", ""), GW_DEF_END};

static const gw_def_t protocol_tcp[] = {GW_ZERO_STR("protocol", "TCP"), GW_DEF_END};

static const gw_def_t field_ref[] = {GW_ZERO_STR("apiVersion", "v1"), GW_DEF_END};

/* 0644, the mode of files from secrets, config maps, the downward API and projections. */
static const gw_def_t file_mode[] = {GW_NIL_INT("defaultMode", 0644), GW_DEF_END};

static const gw_def_t host_path[] = {GW_NIL_STR("type", ""), GW_DEF_END};

static const gw_def_t iscsi[] = {GW_ZERO_STR("iscsiInterface", "default"), GW_DEF_END};

static const gw_def_t rbd[] = {
    GW_ZERO_STR("pool", "rbd"),
    GW_ZERO_STR("user", "admin"),
    GW_ZERO_STR("keyring", "/etc/ceph/keyring"),
    GW_DEF_END,
};

static const gw_def_t azure_disk[] = {
    GW_NIL_STR("cachingMode", "ReadWrite"),
    GW_NIL_STR("fsType", "ext4"),
    GW_NIL_BOOL("readOnly", false),
    GW_NIL_STR("kind", "Shared"),
    GW_DEF_END,
};

static const gw_def_t scale_io[] = {
    GW_ZERO_STR("storageMode", "ThinProvisioned"),
    GW_ZERO_STR("fsType", "xfs"),
    GW_DEF_END,
};

static const gw_def_t token_projection[] = {GW_NIL_INT("expirationSeconds", 3600), GW_DEF_END};

static const gw_def_t claim_spec[] = {GW_NIL_STR("volumeMode", "Filesystem"), GW_DEF_END};

static const gw_def_t claim_status[] = {GW_ZERO_STR("phase", "Pending"), GW_DEF_END};

/* Volume sources and their defaults (a PersistentVolume's spec holds the first five too). */
static const struct {
    const char *path;
    const gw_def_t *defs;
} volume_sources[] = {
    {"hostPath", host_path},
    {"iscsi", iscsi},
    {"rbd", rbd},
    {"azureDisk", azure_disk},
    {"scaleIO", scale_io},
    {"secret", file_mode},
    {"configMap", file_mode},
    {"downwardAPI", file_mode},
    {"downwardAPI.items[].fieldRef", field_ref},
    {"projected", file_mode},
    {"projected.sources[].downwardAPI.items[].fieldRef", field_ref},
    {"projected.sources[].serviceAccountToken", token_projection},
    {"ephemeral.volumeClaimTemplate.spec", claim_spec},
};

/* Where a container has probes and handlers, and their defaults. */
static const struct {
    const char *path;
    const gw_def_t *defs;
} container_parts[] = {
    {"ports[]", protocol_tcp},
    {"env[].valueFrom.fieldRef", field_ref},
    {"livenessProbe", probe},
    {"livenessProbe.httpGet", http_get},
    {"livenessProbe.grpc", grpc},
    {"readinessProbe", probe},
    {"readinessProbe.httpGet", http_get},
    {"readinessProbe.grpc", grpc},
    {"startupProbe", probe},
    {"startupProbe.httpGet", http_get},
    {"startupProbe.grpc", grpc},
    {"lifecycle.postStart.httpGet", http_get},
    {"lifecycle.preStop.httpGet", http_get},
};

/* ---- image pull policy -------------------------------------------------------------------- */

/* The path of a reference (the name after its registry): lowercase components joined by
 * '/', each alphanumeric runs split by '.', '_' or '-'. */
static bool
valid_path(const char *p, size_t n)
{
    bool at_start = true;

    for (size_t i = 0; i < n; i++) {
        bool alnum = islower((unsigned char)p[i]) || isdigit((unsigned char)p[i]);
        if (!alnum && (at_start || strchr("._-/", p[i]) == NULL))
            return false;
        if (!alnum && (i + 1 == n || (p[i] == '/' && p[i - 1] == '/')))
            return false;
        at_start = p[i] == '/';
    }
    return n > 0;
}

static bool
valid_tag(const char *t, size_t n)
{
    if (n == 0 || n > 128 || t[0] == '.' || t[0] == '-')
        return false;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)t[i]) && strchr("_.-", t[i]) == NULL)
            return false;
    return true;
}

/* The length of the registry before the first '/' (with the '/'), or 0 when that part is not
 * one: docker's reference parsing takes it for a registry when it has a '.' or a ':', is
 * "localhost", or has an uppercase letter. */
static size_t
registry_len(const char *name, size_t n)
{
    const char *slash = memchr(name, '/', n);
    size_t len;
    bool registry;

    if (slash == NULL)
        return 0;
    len = (size_t)(slash - name);
    registry = memchr(name, '.', len) != NULL || memchr(name, ':', len) != NULL ||
               (len == 9 && strncmp(name, "localhost", 9) == 0);
    for (size_t i = 0; i < len; i++)
        registry = registry || isupper((unsigned char)name[i]);
    return registry ? len + 1 : 0;
}

/*
 * kube's SetDefaults_Container: Always for an image whose tag is "latest" (as one with neither
 * tag nor digest has), IfNotPresent otherwise, also for what does not parse as an image
 * reference (kube ignores the error; validation reports it).
 */
static const char *
pull_policy(const char *image)
{
    const char *at, *colon, *tag;
    size_t n, reg, path_end, tag_len;

    if (image == NULL)
        return "IfNotPresent";
    at = strchr(image, '@');
    if (at != NULL && strchr(at, ':') == NULL)
        return "IfNotPresent";
    n = at != NULL ? (size_t)(at - image) : strlen(image);
    reg = registry_len(image, n);
    colon = memchr(image + reg, ':', n - reg);
    path_end = colon != NULL ? (size_t)(colon - image) : n;
    if (!valid_path(image + reg, path_end - reg))
        return "IfNotPresent";
    if (colon == NULL)
        return at == NULL ? "Always" : "IfNotPresent";
    tag = colon + 1;
    tag_len = n - path_end - 1;
    if (!valid_tag(tag, tag_len))
        return "IfNotPresent";
    return tag_len == 6 && strncmp(tag, "latest", 6) == 0 ? "Always" : "IfNotPresent";
}

/* ---- containers --------------------------------------------------------------------------- */

static void
container_node(json_t *c, const void *arg)
{
    (void)arg;
    gw_defaults__fill(c, container);
    if (gw_defaults__zero(c, "imagePullPolicy"))
        json_object_set_new(
            c, "imagePullPolicy",
            json_string(pull_policy(json_string_value(json_object_get(c, "image")))));
    for (size_t i = 0; i < sizeof(container_parts) / sizeof(container_parts[0]); i++)
        gw_defaults__fill_at(c, container_parts[i].path, container_parts[i].defs);
}

/* ---- volumes ------------------------------------------------------------------------------ */

/* Whether a volume names a source (anything but its name): kube gives it an emptyDir if not. */
static bool
has_source(json_t *v)
{
    const char *k;
    json_t *m;

    json_object_foreach(v, k, m)
    {
        if (strcmp(k, "name") != 0 && !json_is_null(m))
            return true;
    }
    return false;
}

static void
volume_node(json_t *v, const void *arg)
{
    (void)arg;
    if (!has_source(v))
        json_object_set_new(v, "emptyDir", json_object());
    gw_defaults__volume_sources(v);
}

void
gw_defaults__volume_sources(json_t *src)
{
    for (size_t i = 0; i < sizeof(volume_sources) / sizeof(volume_sources[0]); i++)
        gw_defaults__fill_at(src, volume_sources[i].path, volume_sources[i].defs);
}

/* ---- pod specs ---------------------------------------------------------------------------- */

void
gw_defaults__pod_spec(json_t *spec)
{
    static const char *const lists[] = {"initContainers[]", "containers[]",
                                        "ephemeralContainers[]"};

    if (!json_is_object(spec))
        return;
    gw_defaults__fill(spec, pod_spec);
    gw_defaults__each(spec, "volumes[]", volume_node, NULL);
    for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++)
        gw_defaults__each(spec, lists[i], container_node, NULL);
}

void
gw_defaults__pod_template(json_t *tmpl)
{
    gw_defaults__pod_spec(gw_defaults__member(tmpl, "spec"));
}

/* A container's requests default to its limits (on Pods only, not on templates). */
static void
requests_from_limits(json_t *c, const void *arg)
{
    json_t *res = json_object_get(c, "resources"), *lim = json_object_get(res, "limits");
    json_t *req, *v;
    const char *k;

    (void)arg;
    if (json_object_size(lim) == 0)
        return;
    req = gw_defaults__member(res, "requests");
    json_object_foreach(lim, k, v)
    {
        if (req != NULL && json_object_get(req, k) == NULL)
            json_object_set_new(req, k, json_deep_copy(v));
    }
}

/* Under hostNetwork a container port is the host's port too. */
static void
host_port(json_t *port, const void *arg)
{
    json_t *cp = json_object_get(port, "containerPort");

    (void)arg;
    if (gw_defaults__zero(port, "hostPort") && json_is_integer(cp))
        json_object_set_new(port, "hostPort", json_integer(json_integer_value(cp)));
}

void
gw_defaults__pod_only(json_t *spec)
{
    if (!json_is_object(spec))
        return;
    gw_defaults__each(spec, "containers[]", requests_from_limits, NULL);
    gw_defaults__each(spec, "initContainers[]", requests_from_limits, NULL);
    gw_defaults__set_nil(spec, "enableServiceLinks", json_true());
    if (json_is_true(json_object_get(spec, "hostNetwork"))) {
        gw_defaults__each(spec, "containers[].ports[]", host_port, NULL);
        gw_defaults__each(spec, "initContainers[].ports[]", host_port, NULL);
    }
}

/* ---- claims ------------------------------------------------------------------------------- */

void
gw_defaults__pvc(json_t *pvc)
{
    gw_defaults__fill(gw_defaults__member(pvc, "spec"), claim_spec);
    gw_defaults__fill(gw_defaults__member(pvc, "status"), claim_status);
}
