/* Unit tests for gateway/apiext/gw_crd_prune.c: kube's structural pruning (the cases of
 * pruning/algorithm_test.go): unknown fields removed at every depth and reported, sorted, as
 * `unknown field` issues; preserve-unknown subtrees, the type and object metadata of
 * resources kept; metadata itself keeps only ObjectMeta's fields. */
#include "crd_test_util.h"

static gw_arena_t *arena;

static void
expect(const char *name, const char *schema, const char *obj, const char *want,
       const char *want_paths)
{
    gw_field_issues_t is = {0};
    gw_buf_t paths = {0};
    json_t *o = parse(obj);
    gw_crd_prune(compile(arena, schema), o, &is);
    char *got = dump(o);
    tap_is_str(got, want, name);
    gw_buf_add(&paths, "", 0);
    int messages = 1;
    for (size_t i = 0; i < is.n; i++) {
        char msg[512];
        snprintf(msg, sizeof(msg), "unknown field \"%s\"", is.items[i].path);
        messages &= is.items[i].kind == GW_FIELD_UNKNOWN && strcmp(is.items[i].message, msg) == 0;
        gw_buf_printf(&paths, "%s%s", i ? " " : "", is.items[i].path);
    }
    tap_is_str(paths.data, want_paths, "  the removed paths");
    tap_ok(messages, "  as unknown field issues");
    free(got);
    free(paths.data);
    gw_field_issues_clear(&is);
    json_decref(o);
}

static void
test_prune(void)
{
    expect("empty", "{\"type\":\"object\"}", "{}", "{}", "");
    expect("scalars of an object without properties", "{\"type\":\"object\"}",
           "{\"b\":42,\"a\":\"a\",\"d\":null,\"c\":true}", "{}", "a b c d");
    expect("type and object metadata at the root are kept; metadata keeps ObjectMeta's fields",
           "{\"type\":\"object\"}",
           "{\"apiVersion\":\"x/v1\",\"kind\":\"K\",\"metadata\":{\"name\":\"n\",\"odd\":1,"
           "\"labels\":{\"a\":\"b\"}},\"z\":1}",
           "{\"apiVersion\":\"x/v1\",\"kind\":\"K\",\"metadata\":{\"labels\":{\"a\":\"b\"},"
           "\"name\":\"n\"}}",
           "z metadata.odd");
    expect("nested objects",
           "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"object\",\"properties\":{\"b\":"
           "{\"type\":\"object\",\"properties\":{\"c\":{\"type\":\"integer\"}}}}}}}",
           "{\"a\":{\"b\":{\"c\":1,\"d\":2},\"x\":{\"y\":1}}}", "{\"a\":{\"b\":{\"c\":1}}}",
           "a.b.d a.x");
    expect("arrays: every item",
           "{\"type\":\"object\",\"properties\":{\"l\":{\"type\":\"array\",\"items\":{\"type\":"
           "\"object\",\"properties\":{\"k\":{\"type\":\"string\"}}}}}}",
           "{\"l\":[{\"k\":\"a\",\"x\":1},{\"y\":2},\"s\",null]}",
           "{\"l\":[{\"k\":\"a\"},{},\"s\",null]}", "l[0].x l[1].y");
    expect("additionalProperties: every value",
           "{\"type\":\"object\",\"properties\":{\"m\":{\"type\":\"object\","
           "\"additionalProperties\":{\"type\":\"object\",\"properties\":{\"v\":{\"type\":"
           "\"integer\"}}}}}}",
           "{\"m\":{\"a\":{\"v\":1,\"w\":2},\"b\":{}}}", "{\"m\":{\"a\":{\"v\":1},\"b\":{}}}",
           "m.a.w");
    expect("preserve-unknown-fields keeps unknown fields, still pruning below known ones",
           "{\"type\":\"object\",\"properties\":{\"p\":{\"type\":\"object\","
           "\"x-kubernetes-preserve-unknown-fields\":true,\"properties\":{\"k\":{\"type\":"
           "\"object\",\"properties\":{\"a\":{\"type\":\"string\"}}}}}}}",
           "{\"p\":{\"free\":{\"any\":[1]},\"k\":{\"a\":\"x\",\"b\":\"y\"}}}",
           "{\"p\":{\"free\":{\"any\":[1]},\"k\":{\"a\":\"x\"}}}", "p.k.b");
    expect("untyped preserve-unknown-fields keeps everything",
           "{\"type\":\"object\",\"properties\":{\"raw\":{\"x-kubernetes-preserve-unknown-fields\":"
           "true}}}",
           "{\"raw\":{\"a\":{\"b\":[{\"c\":1}]}}}", "{\"raw\":{\"a\":{\"b\":[{\"c\":1}]}}}", "");
    expect("an embedded resource keeps its type and object metadata, pruning the rest",
           "{\"type\":\"object\",\"properties\":{\"t\":{\"type\":\"object\","
           "\"x-kubernetes-embedded-resource\":true,\"properties\":{\"spec\":{\"type\":"
           "\"object\"}}}}}",
           "{\"t\":{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\",\"foo\":1},"
           "\"spec\":{\"x\":1},\"bar\":1}}",
           "{\"t\":{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"},"
           "\"spec\":{}}}",
           "t.bar t.spec.x t.metadata.foo");
    expect("metadata's dropped members come after the pruned paths, each group sorted",
           "{\"type\":\"object\",\"properties\":{\"l\":{\"type\":\"array\",\"items\":{"
           "\"type\":\"object\",\"x-kubernetes-embedded-resource\":true}}}}",
           "{\"metadata\":{\"z\":1,\"name\":\"n\"},\"zz\":1,\"l\":[{\"metadata\":{\"b\":1},"
           "\"a\":1}]}",
           "{\"l\":[{\"metadata\":{}}],\"metadata\":{\"name\":\"n\"}}",
           "l[0].a zz l[0].metadata.b metadata.z");
    expect("paths come sorted, as kube sorts them",
           "{\"type\":\"object\",\"properties\":{\"b\":{\"type\":\"object\"}}}",
           "{\"z\":1,\"b\":{\"y\":1,\"a\":2},\"a\":3}", "{\"b\":{}}", "a b.a b.y z");
    expect("type errors are validation's, not pruning's",
           "{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\"}}}", "{\"n\":\"x\"}",
           "{\"n\":\"x\"}", "");

    json_t *o = parse("{\"a\":1,\"spec\":{}}");
    gw_crd_prune(compile(arena, "{\"type\":\"object\",\"properties\":{\"spec\":{\"type\":"
                                "\"object\"}}}"),
                 o, NULL);
    char *got = dump(o);
    tap_is_str(got, "{\"spec\":{}}", "without an issue list, pruning still happens");
    free(got);
    json_decref(o);
}

int
main(void)
{
    arena = gw_arena_new();
    test_prune();
    gw_arena_free(arena);
    return tap_done();
}
