/* Unit tests for OwnerReferencesPermissionEnforcement's pure part (gateway/admission/
 * gw_admission_owner_refs.c): whether a write changes ownerReferences (isChangingOwnerReference,
 * a null member counting as absent) and which references newly block their owner's deletion
 * (newBlockingOwnerDeletionRefs, matched to the old ones by uid). */
#include <stdlib.h>
#include <string.h>

#include "gw_admission_owner_refs.c"
#include "tap.h"

static json_t *
meta(const char *refs)
{
    char *text = NULL;
    json_t *d;

    if (asprintf(&text, "{\"metadata\":{\"ownerReferences\":%s}}", refs) < 0)
        abort();
    d = json_loads(text, 0, NULL);
    free(text);
    if (d == NULL)
        abort();
    return d;
}

#define A "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"name\":\"a\",\"uid\":\"1\""
#define B "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"name\":\"b\",\"uid\":\"2\""

static void
is_changing(const char *new_refs, const char *old_refs, bool want, const char *name)
{
    json_t *n = meta(new_refs), *o = old_refs != NULL ? meta(old_refs) : NULL;

    tap_ok(changing(n, o) == want, "%s", name);
    json_decref(n);
    json_decref(o);
}

static void
blocking(const char *new_refs, const char *old_refs, const char *want, const char *name)
{
    json_t *n = meta(new_refs), *o = old_refs != NULL ? meta(old_refs) : NULL;
    json_t *got = new_blocking(n, o);
    json_t *names = json_array();
    size_t i;
    json_t *r;
    char *text;

    json_array_foreach(got, i, r) json_array_append(names, json_object_get(r, "name"));
    text = json_dumps(names, JSON_COMPACT);
    tap_is_str(text, want, name);
    free(text);
    json_decref(names);
    json_decref(got);
    json_decref(n);
    json_decref(o);
}

int
main(void)
{
    is_changing("[" A "}]", NULL, true, "a create with references changes them");
    is_changing("[]", NULL, false, "a create without references does not");
    is_changing("[" A "}]", "[" A "}]", false, "the same references do not change");
    is_changing("[" A ",\"controller\":null}]", "[" A "}]", false, "a null member is absent");
    is_changing("[" A ",\"controller\":false}]", "[" A "}]", true,
                "false is not unset (kube compares pointers)");
    is_changing("[" B "}," A "}]", "[" A "}," B "}]", true, "the order counts");
    is_changing("[" A "}]", "[" A "}," B "}]", true, "one fewer changes them");

    blocking("[" A ",\"blockOwnerDeletion\":true}," B "}]", NULL, "[\"a\"]",
             "a create: every blocking reference");
    blocking("[" A ",\"blockOwnerDeletion\":true}]", "[" A ",\"blockOwnerDeletion\":true}]", "[]",
             "already blocking: nothing new");
    blocking("[" A ",\"blockOwnerDeletion\":true}," B ",\"blockOwnerDeletion\":true}]",
             "[" A ",\"blockOwnerDeletion\":false}]", "[\"a\",\"b\"]",
             "turned blocking, and a new blocking reference");
    return tap_done();
}
