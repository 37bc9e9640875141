/*
 * The conversion table: every version kgate serves beside its kind's storage version, with the
 * functions that take an object to the hub and back. Versions whose shape equals the hub's
 * convert by their apiVersion alone, as kube's generated conversions do for identical types.
 * The hubs are kube-apiserver 1.32's storage versions (a unit test checks them against the
 * catalog's), so every object is stored in the version kube would store it in.
 */
#include "gw_convert.h"

#include <string.h>

#include "gw_convert_int.h"

typedef struct {
    const char *api_version, *kind;         /* the spoke */
    const char *hub_api_version, *hub_kind; /* its kind's storage version */
    gw_convert_fn *to_hub, *from_hub;       /* NULL: the shapes are equal */
} spoke_t;

static const spoke_t spokes[] = {
    {"autoscaling/v1", "HorizontalPodAutoscaler", "autoscaling/v2", "HorizontalPodAutoscaler",
     gw_convert__hpa_v1_to_v2, gw_convert__hpa_v2_to_v1},
    {"events.k8s.io/v1", "Event", "v1", "Event", gw_convert__event_to_core,
     gw_convert__core_to_event},
    {"admissionregistration.k8s.io/v1beta1", "ValidatingAdmissionPolicy",
     "admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicy", NULL, NULL},
    {"admissionregistration.k8s.io/v1beta1", "ValidatingAdmissionPolicyBinding",
     "admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicyBinding", NULL, NULL},
    {"resource.k8s.io/v1alpha3", "DeviceClass", "resource.k8s.io/v1beta1", "DeviceClass", NULL,
     NULL},
    {"resource.k8s.io/v1alpha3", "ResourceClaim", "resource.k8s.io/v1beta1", "ResourceClaim", NULL,
     NULL},
    {"resource.k8s.io/v1alpha3", "ResourceClaimTemplate", "resource.k8s.io/v1beta1",
     "ResourceClaimTemplate", NULL, NULL},
    {"resource.k8s.io/v1alpha3", "ResourceSlice", "resource.k8s.io/v1beta1", "ResourceSlice",
     gw_convert__slice_v1alpha3_to_v1beta1, gw_convert__slice_v1beta1_to_v1alpha3},
    {"storage.k8s.io/v1alpha1", "VolumeAttributesClass", "storage.k8s.io/v1beta1",
     "VolumeAttributesClass", NULL, NULL},
};

#define N_SPOKES (sizeof(spokes) / sizeof(spokes[0]))

static bool
same(const char *s, size_t len, const char *word)
{
    return strlen(word) == len && memcmp(s, word, len) == 0;
}

static const spoke_t *
find_spoke(const char *av, size_t av_len, const char *kind, size_t kind_len)
{
    for (size_t i = 0; i < N_SPOKES; i++)
        if (same(av, av_len, spokes[i].api_version) && same(kind, kind_len, spokes[i].kind))
            return &spokes[i];
    return NULL;
}

static const spoke_t *
find_hub(const char *av, size_t av_len, const char *kind, size_t kind_len)
{
    for (size_t i = 0; i < N_SPOKES; i++)
        if (same(av, av_len, spokes[i].hub_api_version) && same(kind, kind_len, spokes[i].hub_kind))
            return &spokes[i];
    return NULL;
}

bool
gw_convert_is_spoke(const char *api_version, size_t av_len, const char *kind, size_t kind_len)
{
    return find_spoke(api_version, av_len, kind, kind_len) != NULL;
}

bool
gw_convert_hub(const char *api_version, const char *kind, const char **hub_api_version,
               const char **hub_kind)
{
    size_t av_len = strlen(api_version), kind_len = strlen(kind);
    const spoke_t *s = find_spoke(api_version, av_len, kind, kind_len);

    if (s == NULL)
        s = find_hub(api_version, av_len, kind, kind_len);
    if (s == NULL)
        return false;
    *hub_api_version = s->hub_api_version;
    *hub_kind = s->hub_kind;
    return true;
}

static void
set_type(json_t *obj, const char *api_version, const char *kind)
{
    json_object_set_new(obj, "apiVersion", json_string(api_version));
    json_object_set_new(obj, "kind", json_string(kind));
}

bool
gw_convert(json_t *obj, const char *to_api_version, const char *to_kind)
{
    const char *av = json_string_value(json_object_get(obj, "apiVersion"));
    const char *kind = json_string_value(json_object_get(obj, "kind"));
    const spoke_t *from, *to;
    const char *hub_av, *hub_kind;

    if (av == NULL || kind == NULL)
        return false;
    if (strcmp(av, to_api_version) == 0 && strcmp(kind, to_kind) == 0)
        return true;
    if (!gw_convert_hub(av, kind, &hub_av, &hub_kind))
        return false;
    from = find_spoke(av, strlen(av), kind, strlen(kind));
    to = find_spoke(to_api_version, strlen(to_api_version), to_kind, strlen(to_kind));
    if (to == NULL && (strcmp(to_api_version, hub_av) != 0 || strcmp(to_kind, hub_kind) != 0))
        return false;
    if (to != NULL && (strcmp(to->hub_api_version, hub_av) != 0 || strcmp(to->hub_kind, hub_kind)))
        return false;
    if (from != NULL && from->to_hub != NULL)
        from->to_hub(obj);
    if (to != NULL && to->from_hub != NULL)
        to->from_hub(obj);
    set_type(obj, to_api_version, to_kind);
    return true;
}

void
gw_convert_internal(json_t *obj)
{
    const char *av = json_string_value(json_object_get(obj, "apiVersion"));
    const char *kind = json_string_value(json_object_get(obj, "kind"));

    if (av != NULL && kind != NULL && strcmp(av, "autoscaling/v2") == 0 &&
        strcmp(kind, "HorizontalPodAutoscaler") == 0)
        gw_convert__hpa_v2_internal(obj);
}
