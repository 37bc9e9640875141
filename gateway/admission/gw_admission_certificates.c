/*
 * CertificateApproval and CertificateSigning (plugin/pkg/admission/certificates/approval and
 * .../signing), validating plugins on CertificateSigningRequests: approving a request (the
 * approval subresource) needs `approve` on its signer, and setting or changing the issued
 * certificate (the status subresource) needs `sign` on the signer of the stored request. The
 * signer is asked about by its name, then by its "<domain>/" wildcard, as kube's
 * IsAuthorizedForSignerName does.
 */
#include "gw_admission.h"

#include <string.h>

#include "authz.h"
#include "gw_server.h"

#define CSR_GROUP "certificates.k8s.io"

static bool
is_csr(const gw_resource_t *res)
{
    return strcmp(res->group, CSR_GROUP) == 0 &&
           strcmp(res->name, "certificatesigningrequests") == 0;
}

static bool
on_update(gw_admission_op_t op)
{
    return op == GW_ADMISSION_UPDATE;
}

typedef struct {
    const gw_admission_attrs_t *a;
    const char *verb, *signer;
    const char *wildcard; /* asked after the exact name was refused; then NULL */
    gw_admission_done_fn done;
    void *arg;
} ask_t;

static void ask(ask_t *q, const char *name);

static void
answered(authz_decision_t decision, const char *reason, const char *error, void *ctx)
{
    ask_t *q = ctx;
    const char *next = q->wildcard;

    (void)reason, (void)error;
    if (decision == AUTHZ_ALLOW) {
        q->done(NULL, q->arg);
    } else if (next == NULL) {
        q->done(gw_admission_forbidden(q->a,
                                       "user not permitted to %s requests with signerName \"%s\"",
                                       q->verb, q->signer),
                q->arg);
    } else {
        q->wildcard = NULL;
        ask(q, next);
    }
}

/* `answered` follows, perhaps before this returns. */
static void
ask(ask_t *q, const char *name)
{
    gw_req_t *r = q->a->req;
    authz_attrs_t attrs = {.user = r->user,
                           .verb = q->verb,
                           .resource_request = true,
                           .api_group = CSR_GROUP,
                           .api_version = "*",
                           .resource = "signers",
                           .subresource = "",
                           .namespace_ = "",
                           .name = name,
                           .io = gw_worker_base(r->worker)};

    authz_authorize(r->authz, &attrs, answered, q);
}

/* Ask whether the user may `verb` requests of the signer named in `of`'s spec. */
static void
ask_signer(const gw_admission_attrs_t *a, const char *verb, const json_t *of,
           gw_admission_done_fn done, void *arg)
{
    gw_arena_t *arena = a->req->arena;
    const char *signer =
        json_string_value(json_object_get(json_object_get(of, "spec"), "signerName"));
    ask_t *q = gw_arena_calloc(arena, sizeof(*q));

    q->a = a;
    q->verb = verb;
    q->signer = gw_arena_strdup(arena, signer ? signer : "");
    q->wildcard = gw_arena_sprintf(arena, "%.*s/*", (int)strcspn(q->signer, "/"), q->signer);
    q->done = done;
    q->arg = arg;
    ask(q, q->signer);
}

static void
validate_approval(const gw_admission_attrs_t *a, gw_admission_done_fn done, void *arg)
{
    if (!is_csr(a->resource) || strcmp(a->subresource, "approval") != 0 || a->req->authz == NULL)
        done(NULL, arg);
    else
        ask_signer(a, "approve", a->object, done, arg);
}

static const char *
certificate(const json_t *obj)
{
    const char *c =
        json_string_value(json_object_get(json_object_get(obj, "status"), "certificate"));
    return c ? c : "";
}

static void
validate_signing(const gw_admission_attrs_t *a, gw_admission_done_fn done, void *arg)
{
    if (!is_csr(a->resource) || strcmp(a->subresource, "status") != 0 || a->old_object == NULL ||
        strcmp(certificate(a->object), certificate(a->old_object)) == 0 || a->req->authz == NULL)
        done(NULL, arg);
    else
        ask_signer(a, "sign", a->old_object, done, arg);
}

const gw_admission_plugin_t gw_admission_certificate_approval = {
    .name = "CertificateApproval", .handles = on_update, .validate = validate_approval};

const gw_admission_plugin_t gw_admission_certificate_signing = {
    .name = "CertificateSigning", .handles = on_update, .validate = validate_signing};
