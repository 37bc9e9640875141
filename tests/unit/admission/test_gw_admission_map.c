/* Unit tests for gateway/admission/gw_admission_map.c's reinvocation bookkeeping (kube's
 * policyReinvokeContext): which invocations a reinvocation round runs again, and when the
 * chain is asked to run again. */
#include <stdlib.h>
#include <string.h>

#include "gw_admission_int.h"
#include "tap.h"

static void
test_keys(void)
{
    json_t *param = json_pack("{s:{s:s,s:s}}", "metadata", "namespace", "ns", "name", "cm");
    char *k1 = gw_admission__map_key("p", "b", param), *k2 = gw_admission__map_key("p", "b", NULL);

    tap_ok(strcmp(k1, "p/b/ns/cm") == 0, "a key names policy, binding and param");
    tap_ok(strcmp(k2, "p/b//") == 0, "... no param, no param name");
    free(k1);
    free(k2);
    json_decref(param);
}

static void
test_rounds(void)
{
    gw_admission__map_reinvoke_t r = {0};
    json_t *obj = json_pack("{s:i}", "a", 1), *other = json_pack("{s:i}", "a", 2);

    gw_admission__map_round_begin(&r, obj, false);
    tap_ok(gw_admission__map_should_run(&r, "k1", false), "a first round runs everything");
    gw_admission__map_invoked(&r, "k1", false, true);
    tap_ok(!r.should_reinvoke, "an invocation that changes nothing asks for no reinvocation");
    gw_admission__map_invoked(&r, "k2", true, true);
    gw_admission__map_invoked(&r, "k3", true, false);
    tap_ok(r.should_reinvoke, "one that changes the object does");
    gw_admission__map_round_end(&r, obj);
    gw_admission__map_round_begin(&r, obj, true);
    tap_ok(gw_admission__map_should_run(&r, "k1", true),
           "a reinvocation runs an IfNeeded policy invoked before a change");
    tap_ok(gw_admission__map_should_run(&r, "k2", true),
           "... and one whose change a later policy changed again");
    tap_ok(!gw_admission__map_should_run(&r, "k3", true), "... nor a Never policy");
    gw_admission__map_round_end(&r, obj);
    gw_admission__map_round_begin(&r, other, true);
    tap_ok(gw_admission__map_should_run(&r, "k2", true),
           "another plugin changed the object since: every IfNeeded invocation runs again");
    gw_admission__map_reinvoke_clear(&r);
    tap_ok(r.previously_invoked == NULL && r.reinvoke == NULL && r.last_output == NULL,
           "clear releases everything");
    json_decref(obj);
    json_decref(other);
}

/* The last policy to change the object, nothing changing it after, is not run again. */
static void
test_last_change(void)
{
    gw_admission__map_reinvoke_t r = {0};
    json_t *obj = json_pack("{s:i}", "a", 1);

    gw_admission__map_round_begin(&r, obj, false);
    gw_admission__map_invoked(&r, "k1", false, true);
    gw_admission__map_invoked(&r, "k2", true, true);
    gw_admission__map_round_end(&r, obj);
    gw_admission__map_round_begin(&r, obj, true);
    tap_ok(gw_admission__map_should_run(&r, "k1", true), "the policy before the change runs again");
    tap_ok(!gw_admission__map_should_run(&r, "k2", true),
           "... not the last one to change the object, unchanged since");
    gw_admission__map_reinvoke_clear(&r);
    json_decref(obj);
}

int
main(void)
{
    test_keys();
    test_rounds();
    test_last_change();
    return tap_done();
}
