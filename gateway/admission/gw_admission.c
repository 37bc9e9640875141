/*
 * The chain: kube-apiserver 1.32's plugin order and default set, the two flags, and the two
 * phases run plugin after plugin, each perhaps finishing on a later turn of the worker.
 */
#include "gw_admission.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gw_admission_int.h"
#include "gw_alloc.h"
#include "gw_arena.h"
#include "gw_clock.h"

/* kube's AllOrderedPlugins (1.32) and whether each is on by default. The plugins kgate
 * implements point at their vtable; the others are known names only. */
typedef struct {
    const char *name;
    bool default_on;
    const gw_admission_plugin_t *plugin;
} known_t;

static const known_t known[] = {
    {"AlwaysAdmit", false, &gw_admission_always_admit},
    {"NamespaceAutoProvision", false, NULL},
    {"NamespaceLifecycle", true, &gw_admission_namespace_lifecycle},
    {"NamespaceExists", false, NULL},
    {"LimitPodHardAntiAffinityTopology", false, NULL},
    {"LimitRanger", true, NULL},
    {"ServiceAccount", true, &gw_admission_service_account},
    {"NodeRestriction", false, NULL},
    {"TaintNodesByCondition", true, NULL},
    {"AlwaysPullImages", false, NULL},
    {"ImagePolicyWebhook", false, NULL},
    {"PodSecurity", true, NULL},
    {"PodNodeSelector", false, NULL},
    {"Priority", true, NULL},
    {"DefaultTolerationSeconds", true, NULL},
    {"PodTolerationRestriction", false, NULL},
    {"EventRateLimit", false, NULL},
    {"ExtendedResourceToleration", false, NULL},
    {"DefaultStorageClass", true, NULL},
    {"StorageObjectInUseProtection", true, NULL},
    {"OwnerReferencesPermissionEnforcement", false, &gw_admission_owner_references},
    {"PersistentVolumeClaimResize", true, NULL},
    {"RuntimeClass", true, NULL},
    {"CertificateApproval", true, &gw_admission_certificate_approval},
    {"CertificateSigning", true, &gw_admission_certificate_signing},
    {"ClusterTrustBundleAttest", true, NULL},
    {"CertificateSubjectRestriction", true, NULL},
    {"DefaultIngressClass", true, NULL},
    {"DenyServiceExternalIPs", false, NULL},
    {"MutatingAdmissionPolicy", true, &gw_admission_mutating_policy},
    {"MutatingAdmissionWebhook", true, &gw_admission_mutating_webhook},
    {"ValidatingAdmissionPolicy", true, &gw_admission_validating_policy},
    {"ValidatingAdmissionWebhook", true, &gw_admission_validating_webhook},
    {"ResourceQuota", true, NULL},
    {"AlwaysDeny", false, &gw_admission_always_deny},
};

#define N_KNOWN (sizeof(known) / sizeof(known[0]))

#define MAX_PLUGINS 64
_Static_assert(N_KNOWN <= MAX_PLUGINS, "every known plugin fits in a chain");

struct gw_admission {
    const gw_admission_plugin_t *plugins[MAX_PLUGINS];
    size_t n;
};

/* ---- configuration ------------------------------------------------------------------------ */

static const known_t *
find(const char *name)
{
    for (size_t i = 0; i < N_KNOWN; i++)
        if (strcmp(known[i].name, name) == 0)
            return &known[i];
    return NULL;
}

static bool
listed(const char *const *list, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(list[i], name) == 0)
            return true;
    return false;
}

/* kube's AdmissionOptions.Validate for one flag's names, plus kgate's own refusal of a plugin
 * it cannot enforce; false with the message in err. */
static bool
check_names(const char *flag, const char *const *list, size_t n, bool enabling, char *err,
            size_t err_len)
{
    for (size_t i = 0; i < n; i++) {
        const known_t *k = find(list[i]);
        if (k == NULL) {
            snprintf(err, err_len, "%s plugin \"%s\" is unknown", flag, list[i]);
            return false;
        }
        if (enabling && k->plugin == NULL) {
            snprintf(err, err_len, "%s plugin \"%s\" is not implemented by kgate", flag, list[i]);
            return false;
        }
    }
    return true;
}

/* kube's message for names in both flags: the sorted overlap, as Go prints a []string. */
static bool
check_overlap(const char *const *enable, size_t n_enable, const char *const *disable,
              size_t n_disable, char *err, size_t err_len)
{
    size_t used = 0;

    for (size_t i = 0; i < N_KNOWN; i++) {
        const char *name = known[i].name;
        if (!listed(enable, n_enable, name) || !listed(disable, n_disable, name))
            continue;
        used += (size_t)snprintf(err + used, used < err_len ? err_len - used : 0, "%s%s",
                                 used == 0 ? "[" : " ", name);
    }
    if (used == 0)
        return true;
    snprintf(err + (used < err_len ? used : err_len - 1), used < err_len ? err_len - used : 1,
             "] in enable-admission-plugins and disable-admission-plugins overlapped");
    return false;
}

gw_admission_t *
gw_admission_new(const char *const *enable, size_t n_enable, const char *const *disable,
                 size_t n_disable, char *err, size_t err_len)
{
    gw_admission_t *chain;

    if (!check_names("enable-admission-plugins", enable, n_enable, true, err, err_len) ||
        !check_names("disable-admission-plugins", disable, n_disable, false, err, err_len) ||
        !check_overlap(enable, n_enable, disable, n_disable, err, err_len))
        return NULL;
    chain = gw_calloc(1, sizeof(*chain));
    for (size_t i = 0; i < N_KNOWN; i++) {
        const known_t *k = &known[i];
        bool on = (k->default_on || listed(enable, n_enable, k->name)) &&
                  !listed(disable, n_disable, k->name);
        if (on && k->plugin != NULL)
            chain->plugins[chain->n++] = k->plugin;
    }
    return chain;
}

gw_admission_t *
gw_admission_of(const gw_admission_plugin_t *const *plugins, size_t n)
{
    gw_admission_t *chain = gw_calloc(1, sizeof(*chain));

    for (size_t i = 0; i < n && i < MAX_PLUGINS; i++)
        chain->plugins[chain->n++] = plugins[i];
    return chain;
}

void
gw_admission_free(gw_admission_t *chain)
{
    free(chain);
}

void
gw_admission_describe(const gw_admission_t *chain, char *out, size_t len)
{
    size_t used = 0;

    if (len > 0)
        out[0] = '\0';
    for (size_t i = 0; chain != NULL && i < chain->n && used < len; i++)
        used +=
            (size_t)snprintf(out + used, len - used, "%s%s", i ? "," : "", chain->plugins[i]->name);
}

/* ---- running ------------------------------------------------------------------------------ */

typedef struct {
    const gw_admission_t *chain;
    gw_admission_attrs_t *a;
    bool validating;
    size_t next;             /* the next plugin to ask */
    bool in_call;            /* a plugin is being called: its answer continues the loop */
    bool answered;           /* the plugin called answered() while in_call */
    gw_admission_err_t *err; /* ... with this refusal */
    gw_admission_done_fn done;
    void *arg;
    const char *plugin;      /* the plugin asked last (its metrics) */
    int64_t plugin_start_ns; /* ... and since when */
    int64_t start_ns;        /* the phase's start */
} run_t;

static void
plugin_done(run_t *rn, gw_admission_err_t *err)
{
    gw_admission__observe_plugin(rn->plugin, rn->a->op, rn->validating, err != NULL,
                                 rn->plugin_start_ns);
}

/* The phase's end: its metrics, then the caller. */
static void
phase_done(run_t *rn, gw_admission_err_t *err)
{
    gw_admission__observe_step(rn->a->op, rn->validating, err != NULL, rn->start_ns);
    rn->done(err, rn->arg);
}

static void run(run_t *rn);

static void
answered(gw_admission_err_t *err, void *arg)
{
    run_t *rn = arg;

    plugin_done(rn, err);
    if (rn->in_call) {
        /* run() goes on when the plugin returns: the refusal may end the request, so it is
         * delivered only once nothing touches rn any more. */
        rn->answered = true;
        rn->err = err;
        return;
    }
    if (err != NULL)
        phase_done(rn, err);
    else
        run(rn);
}

/* Ask the plugins from rn->next on; the ones that answer at once are taken in a loop, so a
 * long chain of synchronous plugins does not grow the stack. */
static void
run(run_t *rn)
{
    while (rn->next < rn->chain->n) {
        const gw_admission_plugin_t *p = rn->chain->plugins[rn->next++];
        if (!p->handles(rn->a->op) || (rn->validating ? p->validate == NULL : p->admit == NULL))
            continue;
        rn->in_call = true;
        rn->answered = false;
        rn->plugin = p->name;
        rn->plugin_start_ns = gw_monotonic_ns();
        if (rn->validating)
            p->validate(rn->a, answered, rn);
        else
            p->admit(rn->a, answered, rn);
        rn->in_call = false;
        if (!rn->answered)
            return; /* the answer is on its way */
        if (rn->err != NULL) {
            phase_done(rn, rn->err);
            return;
        }
    }
    phase_done(rn, NULL);
}

static run_t *
new_run(const gw_admission_t *chain, gw_admission_attrs_t *a, bool validating,
        gw_admission_done_fn done, void *arg)
{
    run_t *rn = gw_arena_calloc(a->req->arena, sizeof(*rn));

    rn->chain = chain;
    rn->a = a;
    rn->validating = validating;
    rn->done = done;
    rn->arg = arg;
    rn->start_ns = gw_monotonic_ns();
    return rn;
}

static void
start(const gw_admission_t *chain, gw_admission_attrs_t *a, bool validating,
      gw_admission_done_fn done, void *arg)
{
    if (chain == NULL || chain->n == 0) {
        done(NULL, arg);
        return;
    }
    run(new_run(chain, a, validating, done, arg));
}

/* ---- reinvocation (kube's reinvoker and ReinvocationContext) ------------------------------ */

#define MAX_REINVOKE_VALUES 8

struct gw_admission_reinvoke {
    bool is_reinvoke, should_reinvoke;
    const char *keys[MAX_REINVOKE_VALUES];
    void *values[MAX_REINVOKE_VALUES];
    size_t n;
    const gw_admission_t *chain;
    gw_admission_done_fn done; /* the caller's */
    void *arg;
};

/* The first round's end: a second round when a plugin asked for it, else the caller's end. */
static void
first_round_done(gw_admission_err_t *err, void *arg)
{
    gw_admission_attrs_t *a = arg;
    gw_admission_reinvoke_t *rc = a->reinvoke;

    if (err != NULL || !rc->should_reinvoke) {
        rc->done(err, rc->arg);
        return;
    }
    rc->is_reinvoke = true;
    run(new_run(rc->chain, a, false, rc->done, rc->arg));
}

void
gw_admission_admit(const gw_admission_t *chain, gw_admission_attrs_t *a, gw_admission_done_fn done,
                   void *arg)
{
    gw_admission_reinvoke_t *rc;

    if (chain == NULL || chain->n == 0) {
        done(NULL, arg);
        return;
    }
    rc = gw_arena_calloc(a->req->arena, sizeof(*rc));
    rc->chain = chain;
    rc->done = done;
    rc->arg = arg;
    a->reinvoke = rc;
    run(new_run(chain, a, false, first_round_done, a));
}

bool
gw_admission_is_reinvoke(const gw_admission_attrs_t *a)
{
    return a->reinvoke != NULL && a->reinvoke->is_reinvoke;
}

void
gw_admission_want_reinvoke(gw_admission_attrs_t *a)
{
    if (a->reinvoke != NULL)
        a->reinvoke->should_reinvoke = true;
}

void *
gw_admission_reinvoke_value(const gw_admission_attrs_t *a, const char *plugin)
{
    for (size_t i = 0; a->reinvoke != NULL && i < a->reinvoke->n; i++)
        if (strcmp(a->reinvoke->keys[i], plugin) == 0)
            return a->reinvoke->values[i];
    return NULL;
}

void
gw_admission_reinvoke_set_value(gw_admission_attrs_t *a, const char *plugin, void *value)
{
    gw_admission_reinvoke_t *rc = a->reinvoke;

    if (rc == NULL)
        return;
    for (size_t i = 0; i < rc->n; i++) {
        if (strcmp(rc->keys[i], plugin) == 0) {
            rc->values[i] = value;
            return;
        }
    }
    if (rc->n < MAX_REINVOKE_VALUES) {
        rc->keys[rc->n] = plugin;
        rc->values[rc->n++] = value;
    }
}

void
gw_admission_validate(const gw_admission_t *chain, gw_admission_attrs_t *a,
                      gw_admission_done_fn done, void *arg)
{
    start(chain, a, true, done, arg);
}

/* ---- errors ------------------------------------------------------------------------------- */

static char *
arena_vsprintf(gw_arena_t *arena, const char *fmt, va_list ap)
{
    va_list again;
    int n;
    char *s;

    va_copy(again, ap);
    n = vsnprintf(NULL, 0, fmt, again);
    va_end(again);
    s = gw_arena_alloc(arena, (size_t)(n > 0 ? n : 0) + 1);
    vsnprintf(s, (size_t)(n > 0 ? n : 0) + 1, fmt, ap);
    return s;
}

static gw_admission_err_t *
verror(const gw_admission_attrs_t *a, int code, const char *reason, json_t *details,
       const char *fmt, va_list ap)
{
    gw_admission_err_t *e = gw_arena_calloc(a->req->arena, sizeof(*e));

    e->code = code;
    e->reason = reason;
    e->details = details;
    e->message = arena_vsprintf(a->req->arena, fmt, ap);
    return e;
}

gw_admission_err_t *
gw_admission_error(const gw_admission_attrs_t *a, int code, const char *reason, json_t *details,
                   const char *fmt, ...)
{
    va_list ap;
    gw_admission_err_t *e;

    va_start(ap, fmt);
    e = verror(a, code, reason, details, fmt, ap);
    va_end(ap);
    return e;
}

gw_admission_err_t *
gw_admission_forbidden(const gw_admission_attrs_t *a, const char *fmt, ...)
{
    const gw_resource_t *res = a->resource;
    gw_arena_t *arena = a->req->arena;
    const char *qr =
        res->group[0] ? gw_arena_sprintf(arena, "%s.%s", res->name, res->group) : res->name;
    json_t *details = json_object(); /* kube's StatusDetails order: name, group, kind */
    const char *why;
    va_list ap;

    va_start(ap, fmt);
    why = arena_vsprintf(arena, fmt, ap);
    va_end(ap);
    if (a->name[0] != '\0')
        json_object_set_new(details, "name", json_string(a->name));
    if (res->group[0] != '\0')
        json_object_set_new(details, "group", json_string(res->group));
    json_object_set_new(details, "kind", json_string(res->name));
    if (a->name[0] == '\0')
        return gw_admission_error(a, 403, "Forbidden", details, "%s is forbidden: %s", qr, why);
    return gw_admission_error(a, 403, "Forbidden", details, "%s \"%s\" is forbidden: %s", qr,
                              a->name, why);
}

/* ---- AlwaysAdmit and AlwaysDeny ----------------------------------------------------------- */

static bool
every_op(gw_admission_op_t op)
{
    (void)op;
    return true;
}

static void
admit_all(gw_admission_attrs_t *a, gw_admission_done_fn done, void *arg)
{
    (void)a;
    done(NULL, arg);
}

static void
deny_all(const gw_admission_attrs_t *a, gw_admission_done_fn done, void *arg)
{
    done(gw_admission_forbidden(a, "admission control is denying all modifications"), arg);
}

static void
deny_all_mutating(gw_admission_attrs_t *a, gw_admission_done_fn done, void *arg)
{
    deny_all(a, done, arg);
}

const gw_admission_plugin_t gw_admission_always_admit = {
    .name = "AlwaysAdmit", .handles = every_op, .admit = admit_all};

const gw_admission_plugin_t gw_admission_always_deny = {
    .name = "AlwaysDeny", .handles = every_op, .admit = deny_all_mutating, .validate = deny_all};

/* ---- the registry's defaulter ------------------------------------------------------------- */

static gw_admission_defaulter_fn defaulter;

void
gw_admission_set_defaulter(gw_admission_defaulter_fn fn)
{
    defaulter = fn;
}

void
gw_admission_default(const gw_resource_t *res, json_t *obj)
{
    if (defaulter != NULL && res != NULL && obj != NULL)
        defaulter(res, obj);
}
