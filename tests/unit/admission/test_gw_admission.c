/* Unit tests for gateway/admission/gw_admission: the chain built from the two flags (kube's
 * order, defaults and messages), and the two phases run over plugins that answer at once or
 * later, refuse, or only handle some operations. */
#include <string.h>

#include "gw_admission.h"
#include "gw_arena.h"
#include "tap.h"

/* ---- building from the flags -------------------------------------------------------------- */

static void
test_flags(void)
{
    const char *enable[] = {"AlwaysDeny", "AlwaysAdmit"}, *disable[] = {"ServiceAccount"};
    const char *unknown[] = {"NoSuchPlugin"}, *not_here[] = {"NodeRestriction"};
    const char *both[] = {"ServiceAccount", "AlwaysDeny"};
    char err[256] = "", names[256];
    gw_admission_t *c;

    c = gw_admission_new(NULL, 0, NULL, 0, err, sizeof(err));
    gw_admission_describe(c, names, sizeof(names));
    tap_is_str(names,
               "NamespaceLifecycle,ServiceAccount,CertificateApproval,CertificateSigning,"
               "MutatingAdmissionPolicy,MutatingAdmissionWebhook,ValidatingAdmissionPolicy,"
               "ValidatingAdmissionWebhook",
               "kube's default-on plugins that kgate implements, in kube's order");
    gw_admission_free(c);

    c = gw_admission_new(enable, 2, disable, 1, err, sizeof(err));
    gw_admission_describe(c, names, sizeof(names));
    tap_is_str(names,
               "AlwaysAdmit,NamespaceLifecycle,CertificateApproval,CertificateSigning,"
               "MutatingAdmissionPolicy,MutatingAdmissionWebhook,ValidatingAdmissionPolicy,"
               "ValidatingAdmissionWebhook,AlwaysDeny",
               "enabled plugins join the defaults in kube's order, disabled ones leave");
    gw_admission_free(c);

    c = gw_admission_new(unknown, 1, NULL, 0, err, sizeof(err));
    tap_ok(c == NULL, "an unknown plugin is refused");
    tap_is_str(err, "enable-admission-plugins plugin \"NoSuchPlugin\" is unknown", "kube's words");
    c = gw_admission_new(NULL, 0, unknown, 1, err, sizeof(err));
    tap_is_str(err, "disable-admission-plugins plugin \"NoSuchPlugin\" is unknown",
               "... in either flag");
    c = gw_admission_new(not_here, 1, NULL, 0, err, sizeof(err));
    tap_ok(c == NULL, "a plugin kgate does not implement cannot be enabled");
    tap_is_str(err,
               "enable-admission-plugins plugin \"NodeRestriction\" is not implemented by kgate",
               "... and says so");
    c = gw_admission_new(NULL, 0, not_here, 1, err, sizeof(err));
    tap_ok(c != NULL, "... but may be disabled");
    gw_admission_free(c);
    c = gw_admission_new(both, 2, both, 2, err, sizeof(err));
    tap_ok(c == NULL, "a plugin in both flags is refused");
    tap_is_str(err,
               "[ServiceAccount AlwaysDeny] in enable-admission-plugins and "
               "disable-admission-plugins overlapped",
               "... with kube's message");
}

/* ---- running ------------------------------------------------------------------------------ */

static char trace[256];                /* which plugin ran in which phase, in order */
static gw_admission_done_fn held_done; /* a plugin's answer kept for later */
static void *held_arg;

static void
note(const char *what)
{
    strncat(trace, what, sizeof(trace) - strlen(trace) - 1);
}

static bool
all_ops(gw_admission_op_t op)
{
    (void)op;
    return true;
}

static bool
deletes_only(gw_admission_op_t op)
{
    return op == GW_ADMISSION_DELETE;
}

static void
a_admit(gw_admission_attrs_t *a, gw_admission_done_fn done, void *arg)
{
    note("a+");
    json_object_set_new(a->object, "a", json_true());
    done(NULL, arg);
}

static void
a_validate(const gw_admission_attrs_t *a, gw_admission_done_fn done, void *arg)
{
    (void)a;
    note("a?");
    done(NULL, arg);
}

/* Answers on a "later turn": the test calls the kept callback. */
static void
later_admit(gw_admission_attrs_t *a, gw_admission_done_fn done, void *arg)
{
    (void)a;
    note("later+");
    held_done = done;
    held_arg = arg;
}

static void
refuse_validate(const gw_admission_attrs_t *a, gw_admission_done_fn done, void *arg)
{
    note("no?");
    done(gw_admission_forbidden(a, "not today"), arg);
}

static void
delete_admit(gw_admission_attrs_t *a, gw_admission_done_fn done, void *arg)
{
    (void)a;
    note("del+");
    done(NULL, arg);
}

static const gw_admission_plugin_t plugin_a = {"A", all_ops, a_admit, a_validate};
static const gw_admission_plugin_t plugin_later = {"Later", all_ops, later_admit, NULL};
static const gw_admission_plugin_t plugin_refuse = {"Refuse", all_ops, NULL, refuse_validate};
static const gw_admission_plugin_t plugin_delete = {"Delete", deletes_only, delete_admit, NULL};

typedef struct {
    int calls;
    gw_admission_err_t *err;
} outcome_t;

static void
finished(gw_admission_err_t *err, void *arg)
{
    outcome_t *o = arg;

    o->calls++;
    o->err = err;
}

static const gw_resource_t pods = {.group = "", .name = "pods", .kind = "Pod", .namespaced = true};
static const gw_resource_t csrs = {.group = "certificates.k8s.io",
                                   .name = "certificatesigningrequests"};

static gw_admission_attrs_t
attrs(gw_req_t *r, gw_admission_op_t op, json_t *obj, const gw_resource_t *res, const char *name)
{
    return (gw_admission_attrs_t){.op = op,
                                  .req = r,
                                  .resource = res,
                                  .subresource = "",
                                  .namespace_ = "ns",
                                  .name = name,
                                  .object = obj};
}

static void
test_phases(gw_req_t *r)
{
    const gw_admission_plugin_t *list[] = {&plugin_a, &plugin_delete, &plugin_later,
                                           &plugin_refuse};
    gw_admission_t *c = gw_admission_of(list, 4);
    json_t *obj = json_object();
    gw_admission_attrs_t a = attrs(r, GW_ADMISSION_CREATE, obj, &pods, "p");
    outcome_t o = {0};

    trace[0] = '\0';
    gw_admission_admit(c, &a, finished, &o);
    tap_is_str(trace, "a+later+",
               "mutating plugins run in order, skipping those not handling "
               "the operation or without a mutating step");
    tap_is_int(o.calls, 0, "... and the chain waits for the one answering later");
    tap_ok(json_is_true(json_object_get(obj, "a")), "a mutating plugin changed the object");
    held_done(NULL, held_arg);
    tap_is_int(o.calls, 1, "its answer resumes the chain, which then ends once");
    tap_ok(o.err == NULL, "... admitted");

    trace[0] = '\0';
    o = (outcome_t){0};
    gw_admission_validate(c, &a, finished, &o);
    tap_is_str(trace, "a?no?", "validating plugins run in the same order");
    tap_ok(o.calls == 1 && o.err != NULL, "a refusal ends the chain once");
    tap_is_int(o.err ? o.err->code : 0, 403, "... with the plugin's status code");
    tap_is_str(o.err ? o.err->message : "", "pods \"p\" is forbidden: not today",
               "... and kube's admission.NewForbidden message");
    tap_is_str(json_string_value(json_object_get(o.err ? o.err->details : NULL, "kind")), "pods",
               "... whose details name the resource");
    json_decref(o.err ? o.err->details : NULL);

    trace[0] = '\0';
    o = (outcome_t){0};
    a = attrs(r, GW_ADMISSION_DELETE, NULL, &csrs, "");
    held_done = NULL;
    gw_admission_admit(c, &a, finished, &o);
    tap_is_str(trace, "a+del+later+", "a delete reaches the plugins handling deletes");
    held_done(gw_admission_forbidden(&a, "no name yet"), held_arg);
    tap_ok(o.calls == 1 && o.err != NULL, "a refusal given later ends the chain");
    tap_is_str(o.err ? o.err->message : "",
               "certificatesigningrequests.certificates.k8s.io is forbidden: no name yet",
               "... a group's resource is qualified; no name, no quotes");
    json_decref(o.err ? o.err->details : NULL);

    o = (outcome_t){0};
    gw_admission_validate(NULL, &a, finished, &o);
    tap_ok(o.calls == 1 && o.err == NULL, "no chain admits everything");
    json_decref(obj);
    gw_admission_free(c);
}

/* A plugin that asks for reinvocation once: it counts its rounds in its reinvocation value. */
static void
again_admit(gw_admission_attrs_t *a, gw_admission_done_fn done, void *arg)
{
    int *rounds = gw_admission_reinvoke_value(a, "Again");

    if (rounds == NULL) {
        rounds = gw_arena_calloc(a->req->arena, sizeof(*rounds));
        gw_admission_reinvoke_set_value(a, "Again", rounds);
    }
    (*rounds)++;
    note(gw_admission_is_reinvoke(a) ? "again2+" : "again1+");
    gw_admission_want_reinvoke(a);
    done(NULL, arg);
}

static const gw_admission_plugin_t plugin_again = {"Again", all_ops, again_admit, NULL};

/* kube's reinvoker: a plugin's request runs the whole mutating phase once more. */
static void
test_reinvocation(gw_req_t *r)
{
    const gw_admission_plugin_t *list[] = {&plugin_a, &plugin_again, &plugin_delete};
    gw_admission_t *c = gw_admission_of(list, 3);
    json_t *obj = json_object();
    gw_admission_attrs_t a = attrs(r, GW_ADMISSION_CREATE, obj, &pods, "p");
    outcome_t o = {0};

    trace[0] = '\0';
    gw_admission_admit(c, &a, finished, &o);
    tap_is_str(trace, "a+again1+a+again2+",
               "a plugin asking for reinvocation: every mutating plugin runs again, once");
    tap_ok(o.calls == 1 && o.err == NULL, "... and the phase ends once");
    tap_is_int(*(int *)gw_admission_reinvoke_value(&a, "Again"), 2,
               "a plugin's reinvocation value lives across the rounds");
    tap_ok(gw_admission_is_reinvoke(&a), "the second round is the reinvocation");

    const gw_admission_plugin_t *plain[] = {&plugin_a};
    gw_admission_t *c2 = gw_admission_of(plain, 1);
    gw_admission_attrs_t b = attrs(r, GW_ADMISSION_CREATE, obj, &pods, "p");
    trace[0] = '\0';
    o = (outcome_t){0};
    gw_admission_admit(c2, &b, finished, &o);
    tap_is_str(trace, "a+", "without a request, one round");
    tap_ok(!gw_admission_is_reinvoke(&b) && gw_admission_reinvoke_value(&b, "Again") == NULL,
           "... no reinvocation, no values");
    json_decref(obj);
    gw_admission_free(c);
    gw_admission_free(c2);
}

/* AlwaysDeny refuses in both phases with kube's message. */
static void
test_always_deny(gw_req_t *r)
{
    const char *enable[] = {"AlwaysDeny"}, *disable[] = {"NamespaceLifecycle", "ServiceAccount"};
    char err[128];
    gw_admission_t *c = gw_admission_new(enable, 1, disable, 2, err, sizeof(err));
    json_t *obj = json_object();
    gw_admission_attrs_t a = attrs(r, GW_ADMISSION_UPDATE, obj, &pods, "p");
    outcome_t o = {0};

    gw_admission_admit(c, &a, finished, &o);
    tap_is_str(o.err ? o.err->message : "",
               "pods \"p\" is forbidden: admission control is denying all modifications",
               "AlwaysDeny refuses every write");
    json_decref(o.err ? o.err->details : NULL);
    json_decref(obj);
    gw_admission_free(c);
}

int
main(void)
{
    gw_req_t r = {.arena = gw_arena_new()};

    test_flags();
    test_phases(&r);
    test_reinvocation(&r);
    test_always_deny(&r);
    gw_arena_free(r.arena);
    return tap_done();
}
