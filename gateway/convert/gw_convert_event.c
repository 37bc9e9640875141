/*
 * core/v1 Event <-> events.k8s.io/v1 Event (kube's pkg/apis/events/v1/conversion.go). The two
 * are one object under two sets of names: the events API renamed what it keeps for old
 * recorders (deprecated...) and gave the involved object, the message and the reporting
 * component their new names. Every other field has the same name and shape in both.
 */
#include "gw_convert_int.h"

#include <stddef.h>

/* {core name, events.k8s.io name} */
static const char *const renames[][2] = {
    {"involvedObject", "regarding"},
    {"message", "note"},
    {"source", "deprecatedSource"},
    {"firstTimestamp", "deprecatedFirstTimestamp"},
    {"lastTimestamp", "deprecatedLastTimestamp"},
    {"count", "deprecatedCount"},
    {"reportingComponent", "reportingController"},
};

#define N_RENAMES (sizeof(renames) / sizeof(renames[0]))

/* Move every member named [from] to [to]; a member already at a target name is replaced, as a
 * Go struct holds one value per field. */
static void
rename_all(json_t *obj, int from, int to)
{
    json_t *moved = json_object();

    for (size_t i = 0; i < N_RENAMES; i++) {
        json_t *v = json_object_get(obj, renames[i][from]);

        if (v != NULL) {
            json_object_set(moved, renames[i][to], v);
            json_object_del(obj, renames[i][from]);
        }
        json_object_del(obj, renames[i][to]);
    }
    json_object_update(obj, moved);
    json_decref(moved);
}

void
gw_convert__event_to_core(json_t *obj)
{
    rename_all(obj, 1, 0);
}

void
gw_convert__core_to_event(json_t *obj)
{
    rename_all(obj, 0, 1);
}
