/* Unit tests for gateway/apiext/gw_crd_default.c: kube's structural defaulting (the cases of
 * defaulting/algorithm_test.go and prunenulls_test.go). */
#include "crd_test_util.h"

static gw_arena_t *arena;

static void
expect(const char *name, const char *schema, const char *obj, const char *want)
{
    json_t *o = parse(obj);
    gw_crd_default(compile(arena, schema), o);
    char *got = dump(o);
    tap_is_str(got, want, name);
    free(got);
    json_decref(o);
}

static const char *const scalars =
    "{\"type\":\"object\",\"properties\":{"
    "\"a\":{\"type\":\"string\",\"default\":\"A\"},"
    "\"b\":{\"type\":\"integer\",\"default\":42},"
    "\"c\":{\"type\":\"boolean\",\"default\":true},"
    "\"d\":{\"type\":\"string\"},"
    "\"n\":{\"type\":\"string\",\"nullable\":true,\"default\":\"N\"}}}";

static void
test_defaults(void)
{
    expect("missing scalars get their defaults", scalars, "{\"a\":\"x\"}",
           "{\"a\":\"x\",\"b\":42,\"c\":true,\"n\":\"N\"}");
    expect("a non-nullable null with a default becomes the default; a nullable null stays", scalars,
           "{\"a\":null,\"n\":null}", "{\"a\":\"A\",\"b\":42,\"c\":true,\"n\":null}");
    expect("a non-nullable null without default is removed", scalars, "{\"a\":\"x\",\"d\":null}",
           "{\"a\":\"x\",\"b\":42,\"c\":true,\"n\":\"N\"}");
    const char *items = "{\"type\":\"object\",\"properties\":{\"l\":{\"type\":\"array\",\"items\":"
                        "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\","
                        "\"default\":\"x\"},\"b\":{\"type\":\"string\"}}}}}}";
    expect("array items are defaulted", items, "{\"l\":[{\"a\":\"A\"},{},{\"b\":null}]}",
           "{\"l\":[{\"a\":\"A\"},{\"a\":\"x\"},{\"a\":\"x\"}]}");
    expect("a null item without default stays (nulls are pruned from objects only)", items,
           "{\"l\":[null]}", "{\"l\":[null]}");
    expect("a null item with a default becomes it",
           "{\"type\":\"object\",\"properties\":{\"l\":{\"type\":\"array\",\"items\":{\"type\":"
           "\"string\",\"default\":\"d\"}}}}",
           "{\"l\":[\"a\",null]}", "{\"l\":[\"a\",\"d\"]}");
    expect("map values are defaulted, and null values with a default replaced",
           "{\"type\":\"object\",\"properties\":{\"m\":{\"type\":\"object\","
           "\"additionalProperties\":{\"type\":\"object\",\"default\":{\"z\":0},\"properties\":"
           "{\"v\":{\"type\":\"integer\",\"default\":1}}}}}}",
           "{\"m\":{\"a\":{},\"b\":null}}", "{\"m\":{\"a\":{\"v\":1},\"b\":{\"v\":1,\"z\":0}}}");
    expect("an object's default is defaulted further",
           "{\"type\":\"object\",\"properties\":{\"foo\":{\"type\":\"object\",\"default\":{},"
           "\"properties\":{\"bar\":{\"type\":\"string\",\"default\":\"B\"},\"baz\":{\"type\":"
           "\"object\",\"default\":{\"q\":1},\"properties\":{\"q\":{\"type\":\"integer\"},"
           "\"r\":{\"type\":\"integer\",\"default\":2}}}}}}}",
           "{}", "{\"foo\":{\"bar\":\"B\",\"baz\":{\"q\":1,\"r\":2}}}");
    expect("present values are left alone", scalars, "{\"a\":\"\",\"b\":0,\"c\":false,\"n\":\"x\"}",
           "{\"a\":\"\",\"b\":0,\"c\":false,\"n\":\"x\"}");
    expect("metadata is not the schema's to default or prune",
           "{\"type\":\"object\",\"properties\":{\"spec\":{\"type\":\"object\",\"default\":{}}}}",
           "{\"metadata\":{\"labels\":null,\"name\":\"x\"}}",
           "{\"metadata\":{\"labels\":null,\"name\":\"x\"},\"spec\":{}}");
    expect("nulls below a preserve-unknown field without schema stay",
           "{\"type\":\"object\",\"properties\":{\"p\":{\"type\":\"object\","
           "\"x-kubernetes-preserve-unknown-fields\":true}}}",
           "{\"p\":{\"a\":null}}", "{\"p\":{\"a\":null}}");

    /* each default is a copy: changing a defaulted object leaves the schema's default alone */
    const gw_schema_t *s = compile(arena, "{\"type\":\"object\",\"properties\":{\"o\":{\"type\":"
                                          "\"object\",\"default\":{\"k\":\"v\"}}}}");
    json_t *x = parse("{}"), *y = parse("{}");
    gw_crd_default(s, x);
    json_object_set_new(json_object_get(x, "o"), "k", json_string("changed"));
    gw_crd_default(s, y);
    char *got = dump(y);
    tap_is_str(got, "{\"o\":{\"k\":\"v\"}}", "defaults are deep copies");
    free(got);
    json_decref(x);
    json_decref(y);
}

int
main(void)
{
    arena = gw_arena_new();
    test_defaults();
    gw_arena_free(arena);
    return tap_done();
}
