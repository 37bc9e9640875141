/* Unit tests for gateway/apiext/gw_crd_ratchet.c: schema errors about values an update leaves
 * unchanged are dropped (kube's validation ratcheting), the others kept. */
#include "crd_test_util.h"

static size_t
ratcheted(gw_arena_t *a, const char *schema, const char *obj, const char *old)
{
    const gw_schema_t *s = compile(a, schema);
    json_t *o = parse(obj), *w = old ? parse(old) : NULL;
    gw_field_errors_t errs = {0};
    size_t n;

    gw_crd_validate(s, o, &errs);
    gw_crd_ratchet(o, w, &errs);
    n = json_array_size(errs.causes);
    gw_ferr_clear(&errs);
    json_decref(o);
    json_decref(w);
    return n;
}

int
main(void)
{
    gw_arena_t *a = gw_arena_new();
    const char *schema =
        "{\"type\":\"object\",\"properties\":{\"spec\":{\"type\":\"object\",\"required\":[\"x\"],"
        "\"properties\":{\"x\":{\"type\":\"string\"},\"n\":{\"type\":\"integer\",\"maximum\":5},"
        "\"l\":{\"type\":\"array\",\"items\":{\"type\":\"string\",\"maxLength\":2}},"
        "\"img\":{\"type\":\"string\"}}}}}";

    tap_ok(ratcheted(a, schema, "{\"spec\":{\"x\":\"a\",\"n\":9}}", NULL) == 1,
           "a create keeps its error");
    tap_ok(ratcheted(a, schema, "{\"spec\":{\"x\":\"a\",\"n\":9,\"img\":\"b\"}}",
                     "{\"spec\":{\"x\":\"a\",\"n\":9}}") == 0,
           "an unchanged invalid value is tolerated on update");
    tap_ok(ratcheted(a, schema, "{\"spec\":{\"x\":\"a\",\"n\":8}}",
                     "{\"spec\":{\"x\":\"a\",\"n\":9}}") == 1,
           "a changed invalid value is refused");
    tap_ok(ratcheted(a, schema, "{\"spec\":{\"x\":\"a\",\"l\":[\"long\",\"ok\"]}}",
                     "{\"spec\":{\"x\":\"a\",\"l\":[\"long\"]}}") == 0,
           "an unchanged list item is tolerated");
    tap_ok(ratcheted(a, schema, "{\"spec\":{\"l\":[]}}", "{\"spec\":{\"l\":[]}}") == 0,
           "a required field missing from an unchanged parent is tolerated");
    tap_ok(ratcheted(a, schema, "{\"spec\":{\"l\":[\"a\"]}}", "{\"spec\":{\"l\":[]}}") == 1,
           "... and refused once the parent changes");
    gw_arena_free(a);
    return tap_done();
}
