/*
 * The Kubernetes authorizer library: authorizer.path(p).check(verb) and
 * authorizer.group(g).resource(r)[.subresource(s)][.namespace(ns)][.name(n)]
 * [.fieldSelector(f)][.labelSelector(l)].check(verb), as another principal with
 * authorizer.serviceAccount(ns, name), answered by the host's callback (cel_authorizer()); the
 * decision reads back through allowed(), reason(), errored() and error(). The checks, their
 * argument rules and messages are kube-apiserver's; each check costs what kube-apiserver
 * charges for one, so that an expression fits about two.
 */
#include "cel.h"

#include <string.h>

#include "cel_int.h"

const cel_type_t cel__type_authorizer = {"kubernetes.authorization.Authorizer", CEL_OBJECT};
const cel_type_t cel__type_path_check = {"kubernetes.authorization.PathCheck", CEL_OBJECT};
const cel_type_t cel__type_group_check = {"kubernetes.authorization.GroupCheck", CEL_OBJECT};
const cel_type_t cel__type_resource_check = {"kubernetes.authorization.ResourceCheck", CEL_OBJECT};
const cel_type_t cel__type_decision = {"kubernetes.authorization.Decision", CEL_OBJECT};

/* Every value of the library: which one `base.ops` says; unused fields stay NULL. */
typedef struct az_val {
    cel_object_t base;
    cel_authz_fn fn;
    void *ctx;
    cel_authz_attrs_t attrs;   /* what a check will ask, filled in along the chain */
    cel_authz_result_t result; /* decisions */
} az_val_t;

/* These values have no equality of their own in kube-apiserver: only a value equals itself. */
static bool
az_same(const cel_object_t *x, const cel_object_t *y)
{
    return x == y;
}

static const cel__object_ops_t az_authorizer_ops = {&cel__type_authorizer, az_same};
static const cel__object_ops_t az_path_ops = {&cel__type_path_check, az_same};
static const cel__object_ops_t az_group_ops = {&cel__type_group_check, az_same};
static const cel__object_ops_t az_resource_ops = {&cel__type_resource_check, az_same};
static const cel__object_ops_t az_decision_ops = {&cel__type_decision, az_same};

static az_val_t *
az_new(cel_arena_t *a, const cel__object_ops_t *ops, const az_val_t *from)
{
    az_val_t *v = cel_arena_alloc(a, sizeof(*v));
    if (from != NULL)
        *v = *from;
    v->base.ops = ops;
    return v;
}

static const char *
az_copy(cel_arena_t *a, const char *s)
{
    return cel_arena_strndup(a, s ? s : "", s ? strlen(s) : 0);
}

cel_value_t
cel_authorizer(cel_arena_t *a, cel_authz_fn fn, void *ctx)
{
    az_val_t *v = az_new(a, &az_authorizer_ops, NULL);
    v->fn = fn, v->ctx = ctx;
    return cel__object_value(&v->base);
}

cel_value_t
cel_authorizer_request_resource(cel_arena_t *a, cel_authz_fn fn, void *ctx,
                                const cel_authz_attrs_t *req)
{
    az_val_t *v = az_new(a, &az_resource_ops, NULL);
    v->fn = fn, v->ctx = ctx;
    v->attrs.resource_request = true;
    v->attrs.group = az_copy(a, req->group);
    v->attrs.resource = az_copy(a, req->resource);
    v->attrs.subresource = az_copy(a, req->subresource);
    v->attrs.ns = az_copy(a, req->ns);
    v->attrs.name = az_copy(a, req->name);
    v->attrs.field_selector = v->attrs.label_selector = "";
    return cel__object_value(&v->base);
}

/* ---- Functions ---- */

#define FN(name)                                                                                   \
    static cel_value_t name(cel__eval_t *ev, const cel__node_t *call, const cel_value_t *a, int n)

static const az_val_t *
az_of(const cel_value_t *v, const cel__object_ops_t *ops)
{
    return v->kind == CEL_OBJECT && v->v.obj->ops == ops ? (const az_val_t *)v->v.obj : NULL;
}

static const char *
az_str(cel__eval_t *ev, const cel_value_t *v)
{
    return cel_arena_strndup(ev->arena, v->v.str.data, v->v.str.len);
}

/* Go's strings.TrimSpace(s) == "" for the ASCII spaces that matter in names and paths. */
static bool
az_blank(const cel_value_t *s)
{
    for (size_t i = 0; i < s->v.str.len; i++) {
        char c = s->v.str.data[i];
        if (c != ' ' && (c < '\t' || c > '\r'))
            return false;
    }
    return true;
}

/* Receiver `ops` and one string argument, or no such overload. */
static const az_val_t *
az_args(cel__eval_t *ev, const cel__node_t *call, const cel_value_t *a, int n,
        const cel__object_ops_t *ops, cel_value_t *err)
{
    const az_val_t *self = az_of(&a[0], ops);
    if (self == NULL || a[1].kind != CEL_STRING) {
        *err = cel__no_overload(ev, call->u.call.name, a, n);
        return NULL;
    }
    return self;
}

FN(az_path)
{
    cel_value_t err;
    const az_val_t *self = az_args(ev, call, a, n, &az_authorizer_ops, &err);
    if (self == NULL)
        return err;
    if (az_blank(&a[1]))
        return cel__err(ev, "path must not be empty");
    az_val_t *v = az_new(ev->arena, &az_path_ops, self);
    v->attrs.path = az_str(ev, &a[1]);
    return cel__object_value(&v->base);
}

FN(az_group)
{
    cel_value_t err;
    const az_val_t *self = az_args(ev, call, a, n, &az_authorizer_ops, &err);
    if (self == NULL)
        return err;
    az_val_t *v = az_new(ev->arena, &az_group_ops, self);
    v->attrs.group = az_str(ev, &a[1]);
    return cel__object_value(&v->base);
}

/* A DNS-1123 label: letters, digits and inner dashes. */
static bool
az_label(const char *s, size_t n)
{
    if (n == 0 || s[0] == '-' || s[n - 1] == '-')
        return false;
    for (size_t i = 0; i < n; i++) {
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '-'))
            return false;
    }
    return true;
}

/* A DNS-1123 label (63 bytes at most) or subdomain (dot-separated labels, 253 at most), as
 * kube-apiserver validates namespace and service-account names. */
static bool
az_dns(const cel_value_t *v, bool subdomain)
{
    const char *s = v->v.str.data;
    size_t len = v->v.str.len, start = 0;
    if (len > (subdomain ? 253 : 63))
        return false;
    if (!subdomain)
        return az_label(s, len);
    for (size_t i = 0; i <= len; i++) {
        if (i < len && s[i] != '.')
            continue;
        if (!az_label(s + start, i - start))
            return false;
        start = i + 1;
    }
    return true;
}

FN(az_service_account)
{
    const az_val_t *self = az_of(&a[0], &az_authorizer_ops);
    if (self == NULL || a[1].kind != CEL_STRING || a[2].kind != CEL_STRING)
        return cel__no_overload(ev, "serviceAccount", a, n);
    if (!az_dns(&a[2], true))
        return cel__err(ev, "Invalid service account name");
    if (!az_dns(&a[1], false))
        return cel__err(ev, "Invalid service account namespace");
    az_val_t *v = az_new(ev->arena, &az_authorizer_ops, self);
    v->attrs.sa_namespace = az_str(ev, &a[1]);
    v->attrs.sa_name = az_str(ev, &a[2]);
    (void)call;
    return cel__object_value(&v->base);
}

FN(az_resource)
{
    cel_value_t err;
    const az_val_t *self = az_args(ev, call, a, n, &az_group_ops, &err);
    if (self == NULL)
        return err;
    if (az_blank(&a[1]))
        return cel__err(ev, "resource must not be empty");
    az_val_t *v = az_new(ev->arena, &az_resource_ops, self);
    v->attrs.resource_request = true;
    v->attrs.resource = az_str(ev, &a[1]);
    v->attrs.subresource = v->attrs.ns = v->attrs.name = "";
    v->attrs.field_selector = v->attrs.label_selector = "";
    return cel__object_value(&v->base);
}

/* subresource, namespace, name, fieldSelector, labelSelector: a copy with one field set. */
FN(az_resource_field)
{
    cel_value_t err;
    const az_val_t *self = az_args(ev, call, a, n, &az_resource_ops, &err);
    if (self == NULL)
        return err;
    az_val_t *v = az_new(ev->arena, &az_resource_ops, self);
    const char *name = call->u.call.name, *s = az_str(ev, &a[1]);
    if (strcmp(name, "subresource") == 0)
        v->attrs.subresource = s;
    else if (strcmp(name, "namespace") == 0)
        v->attrs.ns = s;
    else if (strcmp(name, "name") == 0)
        v->attrs.name = s;
    else if (strcmp(name, "fieldSelector") == 0)
        v->attrs.field_selector = s;
    else
        v->attrs.label_selector = s;
    return cel__object_value(&v->base);
}

FN(az_check)
{
    const az_val_t *self = az_of(&a[0], &az_path_ops);
    self = self ? self : az_of(&a[0], &az_resource_ops);
    if (self == NULL || a[1].kind != CEL_STRING)
        return cel__no_overload(ev, "check", a, n);
    az_val_t *d = az_new(ev->arena, &az_decision_ops, self);
    d->attrs.verb = az_str(ev, &a[1]);
    d->result = (cel_authz_result_t){CEL_AUTHZ_NO_OPINION, NULL, NULL};
    self->fn(self->ctx, &d->attrs, ev->arena, &d->result);
    (void)call;
    return cel__object_value(&d->base);
}

/* allowed, reason, errored, error. */
FN(az_decision)
{
    const az_val_t *d = az_of(&a[0], &az_decision_ops);
    const char *name = call->u.call.name;
    if (d == NULL)
        return cel__no_overload(ev, name, a, n);
    const char *err = d->result.error, *reason = d->result.reason ? d->result.reason : "";
    if (strcmp(name, "allowed") == 0)
        return cel_bool(d->result.decision == CEL_AUTHZ_ALLOW);
    if (strcmp(name, "errored") == 0)
        return cel_bool(err != NULL);
    const char *s = strcmp(name, "reason") == 0 ? reason : err ? err : "";
    return cel__string_lossy(ev->arena, s, strlen(s));
}

const cel__fn_t cel__authz_fns[] = {
    {"path", true, 2, 2, az_path},
    {"group", true, 2, 2, az_group},
    {"serviceAccount", true, 3, 3, az_service_account},
    {"resource", true, 2, 2, az_resource},
    {"subresource", true, 2, 2, az_resource_field},
    {"namespace", true, 2, 2, az_resource_field},
    {"name", true, 2, 2, az_resource_field},
    {"fieldSelector", true, 2, 2, az_resource_field},
    {"labelSelector", true, 2, 2, az_resource_field},
    {"check", true, 2, 2, az_check},
    {"allowed", true, 1, 1, az_decision},
    {"reason", true, 1, 1, az_decision},
    {"errored", true, 1, 1, az_decision},
    {"error", true, 1, 1, az_decision},
    {NULL, false, 0, 0, NULL},
};

#undef FN
