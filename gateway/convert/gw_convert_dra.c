/*
 * resource.k8s.io v1alpha3 <-> v1beta1 (kube's pkg/apis/resource/v1alpha3/conversion.go). The
 * kinds are the same in both versions except a ResourceSlice's device capacities: v1alpha3 maps
 * each name to a quantity, v1beta1 to a DeviceCapacity {value: quantity}.
 */
#include "gw_convert_int.h"

#include <stdbool.h>

/* Each spec.devices[].basic.capacity entry wrapped in {value} (wrap) or unwrapped. */
static void
each_capacity(json_t *slice, bool wrap)
{
    json_t *devices = json_object_get(json_object_get(slice, "spec"), "devices");
    size_t i;
    json_t *device;

    json_array_foreach(devices, i, device)
    {
        json_t *capacity = json_object_get(json_object_get(device, "basic"), "capacity");
        const char *name;
        json_t *q;

        json_object_foreach(capacity, name, q)
        {
            if (wrap)
                json_object_set_new(capacity, name, json_pack("{s:O}", "value", q));
            else if (json_object_get(q, "value") != NULL)
                json_object_set(capacity, name, json_object_get(q, "value"));
            else
                json_object_set_new(capacity, name, json_string("0"));
        }
    }
}

void
gw_convert__slice_v1alpha3_to_v1beta1(json_t *obj)
{
    each_capacity(obj, true);
}

void
gw_convert__slice_v1beta1_to_v1alpha3(json_t *obj)
{
    each_capacity(obj, false);
}
