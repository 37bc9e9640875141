/*
 * CertificateSigningRequests' own rules (pkg/registry/certificates/certificates/strategy.go,
 * pkg/apis/certificates/validation, and the certificates/approval and certificates/signing
 * admission plugins):
 * - create: the requesting user (already the impersonated one, when impersonating) becomes
 *   spec.username, uid, groups and extra, whatever the client sent; status starts empty;
 * - main update: spec and status stay as they are (only metadata changes);
 * - status: spec stays; Approved and Denied conditions are kept as they were; the certificate
 *   may be set once;
 * - approval: spec stays, only status.conditions change;
 * - conditions get lastUpdateTime and lastTransitionTime when missing; Approved and Denied are
 *   exclusive and only "True"; no condition type is removed.
 * The approval and signing plugins' checks are admission plugins
 * (gateway/admission/gw_admission_certificates.c).
 */
#include "gw_registry_int.h"

#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_server.h"

#define CSR_GROUP "certificates.k8s.io"

static bool
is_csr(const gw_resource_t *res)
{
    return strcmp(res->group, CSR_GROUP) == 0 &&
           strcmp(res->name, "certificatesigningrequests") == 0;
}

static bool
sub_is(const char *sub, const char *want)
{
    return sub != NULL && strcmp(sub, want) == 0;
}

static json_t *
spec_of(json_t *obj)
{
    json_t *spec = json_object_get(obj, "spec");

    if (!json_is_object(spec)) {
        spec = json_object();
        json_object_set_new(obj, "spec", spec);
    }
    return spec;
}

/* ---- create ------------------------------------------------------------------------------- */

void
gw_registry__csr_prepare_create(const gw_resource_t *res, const authn_user_t *u, json_t *obj)
{
    json_t *spec, *extra;

    if (!is_csr(res))
        return;
    spec = spec_of(obj);
    json_object_del(spec, "username");
    json_object_del(spec, "uid");
    json_object_del(spec, "groups");
    json_object_del(spec, "extra");
    if (u != NULL) {
        if (u->name != NULL && u->name[0] != '\0')
            json_object_set_new(spec, "username", json_string(u->name));
        if (u->uid != NULL && u->uid[0] != '\0')
            json_object_set_new(spec, "uid", json_string(u->uid));
        if (u->n_groups > 0)
            json_object_set_new(spec, "groups", gw_json_strings(u->groups, u->n_groups));
        if (u->n_extra > 0) {
            extra = json_object();
            for (size_t i = 0; i < u->n_extra; i++)
                json_object_set_new(extra, u->extra[i].key,
                                    gw_json_strings(u->extra[i].values, u->extra[i].n_values));
            json_object_set_new(spec, "extra", extra);
        }
    }
    /* Be explicit that users cannot create pre-approved requests. */
    json_object_set_new(obj, "status", json_object());
}

/* ---- conditions --------------------------------------------------------------------------- */

static const char *
cond_str(const json_t *c, const char *member)
{
    const char *s = json_string_value(json_object_get(c, member));
    return s ? s : "";
}

static json_t *
conditions(const json_t *obj)
{
    return json_object_get(json_object_get(obj, "status"), "conditions");
}

/* The conditions of `type`, in order (a new array of borrowed references). */
static json_t *
find_conditions(const json_t *obj, const char *type)
{
    json_t *out = json_array(), *c;
    size_t i;

    json_array_foreach(conditions(obj), i, c)
    {
        if (strcmp(cond_str(c, "type"), type) == 0)
            json_array_append(out, c);
    }
    return out;
}

/* preserveConditionInstances: the old instances of `type` back in the new positions, when the
 * update neither added nor removed one (validation reports those). */
static void
preserve_instances(json_t *obj, const json_t *old, const char *type)
{
    json_t *olds = find_conditions(old, type), *conds = conditions(obj), *c;
    size_t i, k = 0, n = 0;

    json_array_foreach(conds, i, c)
    {
        n += strcmp(cond_str(c, "type"), type) == 0;
    }
    if (n == json_array_size(olds)) {
        json_array_foreach(conds, i, c)
        {
            if (strcmp(cond_str(c, "type"), type) == 0)
                json_array_set_new(conds, i, json_deep_copy(json_array_get(olds, k++)));
        }
    }
    json_decref(olds);
}

/* populateConditionTimestamps: lastUpdateTime now when missing; lastTransitionTime that of an
 * old condition of the same type and status, else now. */
static void
populate_timestamps(json_t *obj, const json_t *old)
{
    json_t *c, *o;
    size_t i, j;
    char now[21];

    gw_time_now(now);
    json_array_foreach(conditions(obj), i, c)
    {
        if (cond_str(c, "lastUpdateTime")[0] == '\0')
            json_object_set_new(c, "lastUpdateTime", json_string(now));
        if (cond_str(c, "lastTransitionTime")[0] != '\0')
            continue;
        const char *ltt = now;
        json_array_foreach(conditions(old), j, o)
        {
            if (strcmp(cond_str(o, "type"), cond_str(c, "type")) == 0 &&
                strcmp(cond_str(o, "status"), cond_str(c, "status")) == 0 &&
                cond_str(o, "lastTransitionTime")[0] != '\0') {
                ltt = cond_str(o, "lastTransitionTime");
                break;
            }
        }
        json_object_set_new(c, "lastTransitionTime", json_string(ltt));
    }
}

void
gw_registry__csr_prepare_update(const gw_resource_t *res, const char *sub, json_t *obj,
                                const json_t *old)
{
    const json_t *spec = json_object_get(old, "spec");
    json_t *status, *conds;

    if (!is_csr(res) || !(sub == NULL || sub_is(sub, "status") || sub_is(sub, "approval")))
        return;
    json_object_set_new(obj, "spec", spec ? json_deep_copy(spec) : json_object());
    if (sub == NULL) {
        status = json_object_get(old, "status");
        json_object_set_new(obj, "status", status ? json_deep_copy(status) : json_object());
    } else if (sub_is(sub, "status")) {
        preserve_instances(obj, old, "Approved");
        preserve_instances(obj, old, "Denied");
        populate_timestamps(obj, old);
    } else {
        /* kube compares the new conditions with themselves here (it has already moved them
         * into the old object). */
        conds = conditions(obj);
        status = json_object_get(old, "status");
        status = status ? json_deep_copy(status) : json_object();
        if (conds != NULL)
            json_object_set(status, "conditions", conds);
        else
            json_object_del(status, "conditions");
        json_object_set_new(obj, "status", status);
        populate_timestamps(obj, obj);
    }
}

/* ---- validation --------------------------------------------------------------------------- */

typedef struct {
    bool both_ok, dup_ok, empty_ok; /* what the old object already had (getValidationOptions) */
    bool set_approval, set_certificate;
} csr_opts_t;

static bool
has_both(const json_t *obj)
{
    json_t *a = find_conditions(obj, "Approved"), *d = find_conditions(obj, "Denied");
    bool both = json_array_size(a) > 0 && json_array_size(d) > 0;

    json_decref(a);
    json_decref(d);
    return both;
}

static bool
has_duplicate_or_empty(const json_t *obj, bool empty)
{
    json_t *c, *o;
    size_t i, j;

    json_array_foreach(conditions(obj), i, c)
    {
        if (empty && cond_str(c, "type")[0] == '\0')
            return true;
        if (empty)
            continue;
        json_array_foreach(conditions(obj), j, o)
        {
            if (j < i && strcmp(cond_str(c, "type"), cond_str(o, "type")) == 0)
                return true;
        }
    }
    return false;
}

/* validateConditions. */
static void
validate_conditions(const json_t *obj, const csr_opts_t *o, gw_field_errors_t *errs)
{
    static const char *const tfu[] = {"False", "True", "Unknown", NULL};
    static const char *const t[] = {"True", NULL};
    bool approved = false, denied = false;
    json_t *c, *p;
    size_t i, j;
    char path[64];

    json_array_foreach(conditions(obj), i, c)
    {
        const char *type = cond_str(c, "type"), *st = cond_str(c, "status");
        if (!o->empty_ok && type[0] == '\0') {
            snprintf(path, sizeof(path), "status.conditions[%zu].type", i);
            gw_ferr_required(errs, path, NULL);
        }
        snprintf(path, sizeof(path), "status.conditions[%zu].status", i);
        if (strcmp(st, "True") != 0 && strcmp(st, "False") != 0 && strcmp(st, "Unknown") != 0)
            gw_ferr_not_supported(errs, path, st, tfu);
        json_array_foreach(conditions(obj), j, p)
        {
            if (!o->dup_ok && j < i && strcmp(cond_str(p, "type"), type) == 0) {
                char *msg = gw_sprintf("Duplicate value: \"%s\"", type);
                snprintf(path, sizeof(path), "status.conditions[%zu].type", i);
                gw_ferr_add(errs, "FieldValueDuplicate", path, msg);
                free(msg);
                break;
            }
        }
        bool a = strcmp(type, "Approved") == 0, d = strcmp(type, "Denied") == 0;
        approved = approved || a;
        denied = denied || d;
        snprintf(path, sizeof(path), "status.conditions[%zu].status", i);
        if ((a || d) && strcmp(st, "True") != 0)
            gw_ferr_not_supported(errs, path, st, t);
    }
    if (!o->both_ok && approved && denied)
        gw_ferr_invalid(errs, "status.conditions", conditions(obj),
                        "only one of Approved or Denied is allowed");
}

/* validateCertificateSigningRequestUpdate's rules on conditions and the certificate. */
static void
validate_changes(const json_t *obj, const json_t *old, const csr_opts_t *o, gw_field_errors_t *errs)
{
    static const char *const kept[] = {"Approved", "Denied", "Failed"};
    const char *cert =
        json_string_value(json_object_get(json_object_get(obj, "status"), "certificate"));
    const char *old_cert =
        json_string_value(json_object_get(json_object_get(old, "status"), "certificate"));
    char msg[96];

    for (size_t k = 0; k < 3; k++) {
        json_t *n = find_conditions(obj, kept[k]), *p = find_conditions(old, kept[k]);
        if (json_array_size(n) < json_array_size(p)) {
            snprintf(msg, sizeof(msg), "updates may not remove a condition of type \"%s\"",
                     kept[k]);
            gw_ferr_forbidden(errs, "status.conditions", msg);
        } else if (!o->set_approval && k < 2 && json_array_size(n) > json_array_size(p)) {
            snprintf(msg, sizeof(msg), "updates may not add a condition of type \"%s\"", kept[k]);
            gw_ferr_forbidden(errs, "status.conditions", msg);
        } else if (!o->set_approval && k < 2 && !json_equal(n, p)) {
            snprintf(msg, sizeof(msg), "updates may not modify a condition of type \"%s\"\n",
                     kept[k]);
            gw_ferr_forbidden(errs, "status.conditions", msg);
        }
        json_decref(n);
        json_decref(p);
    }
    if (strcmp(cert ? cert : "", old_cert ? old_cert : "") == 0)
        return;
    if (!o->set_certificate)
        gw_ferr_forbidden(errs, "status.certificate", "updates may not set certificate content");
    else if (old_cert != NULL && old_cert[0] != '\0')
        gw_ferr_forbidden(errs, "status.certificate",
                          "updates may not modify existing certificate content");
}

void
gw_registry__csr_validate_update(const gw_resource_t *res, const char *sub, const json_t *obj,
                                 const json_t *old, gw_field_errors_t *errs)
{
    csr_opts_t o = {0};

    if (!is_csr(res) || !(sub == NULL || sub_is(sub, "status") || sub_is(sub, "approval")))
        return;
    o.both_ok = has_both(old);
    o.dup_ok = has_duplicate_or_empty(old, false);
    o.empty_ok = has_duplicate_or_empty(old, true);
    o.set_approval = sub_is(sub, "approval");
    o.set_certificate = sub_is(sub, "status");
    validate_conditions(obj, &o, errs);
    validate_changes(obj, old, &o, errs);
}

/* ---- the strategy ------------------------------------------------------------------------- */

static void
main_prepare_update(const gw_resource_t *res, json_t *obj, const json_t *old)
{
    gw_registry__csr_prepare_update(res, NULL, obj, old);
}

static void
main_validate_update(const gw_resource_t *res, const json_t *obj, const json_t *old,
                     gw_field_errors_t *errs)
{
    gw_registry__csr_validate_update(res, NULL, obj, old, errs);
}

static void
sub_prepare_update(gw_upd_t *u, json_t *obj, const json_t *old)
{
    gw_registry__csr_prepare_update(u->r->resource, u->sub, obj, old);
}

static void
sub_validate_update(gw_upd_t *u, const json_t *obj, const json_t *old, gw_field_errors_t *errs)
{
    gw_registry__csr_validate_update(u->r->resource, u->sub, obj, old, errs);
}

static const gw_subres_strategy_t csr_subresources[] = {
    {.name = "status",
     .form = GW_SUBRES_STATUS,
     .status_write = true,
     .prepare_update = sub_prepare_update,
     .validate_update = sub_validate_update},
    {.name = "approval",
     .form = GW_SUBRES_STATUS,
     .prepare_update = sub_prepare_update,
     .validate_update = sub_validate_update},
};

const gw_strategy_t gw_strategy_csr = {
    .name = "certificatesigningrequest",
    .prepare_create = gw_registry__csr_prepare_create,
    .prepare_update = main_prepare_update,
    .validate_update = main_validate_update,
    .subresources = csr_subresources,
    .n_subresources = sizeof(csr_subresources) / sizeof(csr_subresources[0]),
};
