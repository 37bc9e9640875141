/*
 * pods/ephemeralcontainers, as kube-apiserver's podEphemeralContainersStrategy
 * (pkg/registry/core/pod/strategy.go) and ValidatePodEphemeralContainersUpdate
 * (pkg/apis/core/validation): GET answers the pod; a PUT or PATCH of the pod through it
 * changes spec.ephemeralContainers only (everything else comes from the stored pod). Existing
 * ephemeral containers may be neither changed nor removed; names are unique across all the
 * pod's containers; a target container must be a regular or init container; the fields an
 * ephemeral container may not have (ports, resources, probes, lifecycle, ...) and volume
 * subpaths are refused; a static (mirror) pod takes none.
 */
#include "gw_registry_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_names.h"

#define SUB "ephemeralcontainers"
#define PATH "spec.ephemeralContainers"

static bool
applies(const gw_upd_t *u)
{
    return u->sub != NULL && strcmp(u->sub, SUB) == 0;
}

static void
take(json_t *to, const json_t *from, const char *member)
{
    const json_t *v = json_object_get(from, member);

    if (v != NULL)
        json_object_set_new(to, member, json_deep_copy(v));
    else
        json_object_del(to, member);
}

json_t *
gw_registry__ephemeral_into(const json_t *cur, const json_t *src)
{
    static const char *const meta[] = {"name", "namespace", "uid", "resourceVersion"};
    json_t *out = json_deep_copy(cur), *spec = json_object_get(out, "spec");
    const json_t *src_meta = json_object_get(src, "metadata");

    for (size_t i = 0; i < sizeof(meta) / sizeof(meta[0]); i++)
        take(gw_objmeta_get(out), src_meta, meta[i]);
    if (!json_is_object(spec)) {
        spec = json_object();
        json_object_set_new(out, "spec", spec);
    }
    take(spec, json_object_get(src, "spec"), "ephemeralContainers");
    return out;
}

/* ---- validation --------------------------------------------------------------------------- */

/* Whether a member holds something (Go's non-zero value, as validateFieldAllowList sees it). */
static bool
non_zero(const json_t *v)
{
    if (v == NULL || json_is_null(v))
        return false;
    if (json_is_object(v))
        return json_object_size(v) > 0;
    if (json_is_array(v))
        return json_array_size(v) > 0;
    if (json_is_string(v))
        return json_string_length(v) > 0;
    return !json_is_false(v) && !(json_is_integer(v) && json_integer_value(v) == 0);
}

static bool
has_name(const json_t *list, const char *name, size_t before)
{
    size_t i;
    json_t *c;

    json_array_foreach(list, i, c)
    {
        if (i >= before)
            break;
        const char *n = json_string_value(json_object_get(c, "name"));
        if (n != NULL && strcmp(n, name) == 0)
            return true;
    }
    return false;
}

/* validateEphemeralContainers' rules on one container at index i. */
static void
validate_one(const json_t *spec, const json_t *ec, size_t i, gw_field_errors_t *errs)
{
    static const char *const forbidden[] = {"ports",         "resources",     "resizePolicy",
                                            "restartPolicy", "livenessProbe", "readinessProbe",
                                            "startupProbe",  "lifecycle"};
    const json_t *regular = json_object_get(spec, "containers");
    const json_t *init = json_object_get(spec, "initContainers");
    const char *name = json_string_value(json_object_get(ec, "name"));
    const char *image = json_string_value(json_object_get(ec, "image"));
    const char *target = json_string_value(json_object_get(ec, "targetContainerName"));
    const char *msg;
    char path[96];
    size_t k;
    json_t *vm;

    snprintf(path, sizeof(path), PATH "[%zu].name", i);
    if (name == NULL || name[0] == '\0')
        gw_ferr_required(errs, path, NULL);
    else if ((msg = gw_valid_dns1123_label(name)) != NULL)
        gw_ferr_invalid_str(errs, path, name, msg);
    snprintf(path, sizeof(path), PATH "[%zu].image", i);
    if (image == NULL || image[0] == '\0')
        gw_ferr_required(errs, path, NULL);
    if (name != NULL && name[0] != '\0' &&
        (has_name(regular, name, SIZE_MAX) || has_name(init, name, SIZE_MAX) ||
         has_name(json_object_get(spec, "ephemeralContainers"), name, i))) {
        char *dup = gw_sprintf("Duplicate value: \"%s\"", name);
        snprintf(path, sizeof(path), PATH "[%zu].name", i);
        gw_ferr_add(errs, "FieldValueDuplicate", path, dup);
        free(dup);
    }
    if (target != NULL && target[0] != '\0' && !has_name(regular, target, SIZE_MAX) &&
        !has_name(init, target, SIZE_MAX)) {
        char *nf = gw_sprintf("Not found: \"%s\"", target);
        snprintf(path, sizeof(path), PATH "[%zu].targetContainerName", i);
        gw_ferr_add(errs, "FieldValueNotFound", path, nf);
        free(nf);
    }
    for (size_t f = 0; f < sizeof(forbidden) / sizeof(forbidden[0]); f++) {
        if (!non_zero(json_object_get(ec, forbidden[f])))
            continue;
        snprintf(path, sizeof(path), PATH "[%zu].%s", i, forbidden[f]);
        gw_ferr_forbidden(errs, path, "cannot be set for an Ephemeral Container");
    }
    json_array_foreach(json_object_get(ec, "volumeMounts"), k, vm)
    {
        static const char *const sub[] = {"subPath", "subPathExpr"};
        for (size_t s = 0; s < 2; s++) {
            if (json_string_length(json_object_get(vm, sub[s])) == 0)
                continue;
            snprintf(path, sizeof(path), PATH "[%zu].volumeMounts[%zu].%s", i, k, sub[s]);
            gw_ferr_forbidden(errs, path, "cannot be set for an Ephemeral Container");
        }
    }
}

/* The existing ephemeral containers, each still there and unchanged (matched by name, as a
 * patch does not keep the order). */
static void
validate_existing(const json_t *news, const json_t *olds, gw_field_errors_t *errs)
{
    size_t i, j;
    json_t *o, *n;
    char msg[400];

    json_array_foreach(olds, i, o)
    {
        const char *name = json_string_value(json_object_get(o, "name"));
        const json_t *found = NULL;
        json_array_foreach(news, j, n)
        {
            const char *nn = json_string_value(json_object_get(n, "name"));
            if (name != NULL && nn != NULL && strcmp(name, nn) == 0) {
                found = n;
                break;
            }
        }
        if (found == NULL)
            snprintf(msg, sizeof(msg), "existing ephemeral containers \"%s\" may not be removed\n",
                     name ? name : "");
        else if (!json_equal(o, found))
            snprintf(msg, sizeof(msg), "existing ephemeral containers \"%s\" may not be changed\n",
                     name ? name : "");
        else
            continue;
        gw_ferr_forbidden(errs, PATH, msg);
    }
}

void
gw_registry__ephemeral_validate(gw_upd_t *u, const json_t *obj, const json_t *cur,
                                gw_field_errors_t *errs)
{
    const json_t *spec = json_object_get(obj, "spec");
    const json_t *ann = json_object_get(json_object_get(cur, "metadata"), "annotations");
    size_t i;
    json_t *ec;

    if (!applies(u))
        return;
    if (json_object_get(ann, "kubernetes.io/config.mirror") != NULL) {
        gw_ferr_clear(errs);
        gw_ferr_forbidden(errs, "", "static pods do not support ephemeral containers");
        return;
    }
    json_array_foreach(json_object_get(spec, "ephemeralContainers"), i, ec)
    {
        validate_one(spec, ec, i, errs);
    }
    validate_existing(json_object_get(spec, "ephemeralContainers"),
                      json_object_get(json_object_get(cur, "spec"), "ephemeralContainers"), errs);
}
