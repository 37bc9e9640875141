/* libFuzzer driver for FlowSchema and PriorityLevelConfiguration documents, which API clients
 * send and every instance's dispatcher then reads. The input is one JSON object; it is
 * defaulted and validated as either kind (every field error must have a reason, a field under
 * `spec` and a message; defaulting twice changes nothing more), then put in force as both a
 * FlowSchema and a priority level next to kube's bootstrap objects, and a request of each kind
 * is classified, admitted and ended (the dispatcher must not crash, leak or refuse to give a
 * ticket). Builds on its own:
 *   clang -fsanitize=fuzzer,address,undefined ... tests/fuzz/fuzz_flowcontrol.c */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gw_alloc.c"
#include "gw_apf.c"
#include "gw_apf_bootstrap.c"
#include "gw_apf_borrow.c"
#include "gw_apf_match.c"
#include "gw_apf_metrics.c"
#include "gw_apf_observe.c"
#include "gw_apf_watches.c"
#include "gw_clock.c"
#define series gw_metric__series
#define series_t gw_metric__series_t
#include "gw_metric.c"
#undef series
#undef series_t
#include "gw_flowcontrol_valid.c"
#include "gw_buf.c"
#include "gw_json.c"
#include "gw_names.c"
#include "gw_objmeta.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
check_errors(const gw_field_errors_t *e)
{
    size_t i;
    json_t *c;
    json_array_foreach(e->causes, i, c)
    {
        const char *reason = json_string_value(json_object_get(c, "reason"));
        const char *field = json_string_value(json_object_get(c, "field"));
        const char *message = json_string_value(json_object_get(c, "message"));
        if (reason == NULL || field == NULL || message == NULL || strncmp(field, "spec", 4) != 0)
            abort();
    }
}

static void
defaults_settle(json_t *doc, void (*fn)(json_t *))
{
    fn(doc);
    json_t *once = json_deep_copy(doc);
    fn(doc);
    if (!json_equal(once, doc))
        abort();
    json_decref(once);
}

static void
run(gw_apf_t *a, const gw_apf_digest_t *d)
{
    gw_apf_ticket_t *t = NULL;
    gw_apf_admit(a, d, 1, 1, NULL, NULL, &t);
    if (t == NULL || gw_apf_ticket_fs(t) == NULL || gw_apf_ticket_pl_uid(t) == NULL)
        abort();
    gw_apf_done(a, t, 2);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_t *doc = json_loadb((const char *)data, size, 0, NULL);
    if (!json_is_object(doc)) {
        json_decref(doc);
        return 0;
    }
    json_t *fs = json_deep_copy(doc), *pl = json_deep_copy(doc);
    gw_field_errors_t e = {0};

    defaults_settle(fs, gw_flowschema_defaults);
    gw_flowschema_validate(fs, &e);
    check_errors(&e);
    gw_ferr_clear(&e);
    defaults_settle(pl, gw_prioritylevel_defaults);
    gw_prioritylevel_validate(pl, &e);
    check_errors(&e);
    gw_ferr_clear(&e);

    gw_apf_t *a = gw_apf_new(3);
    json_t *fss = gw_apf_bootstrap_flowschemas(false), *pls = gw_apf_bootstrap_levels(false);
    json_array_append(fss, doc);
    json_array_append(pls, doc);
    gw_apf_configure(a, fss, pls);
    static const char *const groups[] = {"system:authenticated", "system:serviceaccounts"};
    gw_apf_digest_t d = {.user = "system:serviceaccount:ns:sa",
                         .groups = groups,
                         .n_groups = 2,
                         .is_resource = true,
                         .verb = "list",
                         .path = "/api/v1/namespaces/ns/pods",
                         .api_group = "",
                         .resource = "pods",
                         .subresource = "status",
                         .namespace_ = "ns"};
    run(a, &d);
    d.is_resource = false;
    d.path = "/healthz/etcd";
    d.verb = "get";
    run(a, &d);
    gw_apf_free(a);
    json_decref(fss);
    json_decref(pls);
    json_decref(fs);
    json_decref(pl);
    json_decref(doc);
    return 0;
}
