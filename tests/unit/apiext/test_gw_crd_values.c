/* Unit tests for gateway/apiext/gw_crd_values.c and gw_crd_lists.c: kube's ValidateCustomResource
 * (kube-openapi's validators, in their order, with apiextensions-apiserver's field errors) and
 * the list-type invariants, with the messages of kube's validation_test.go and kube-openapi's
 * tests. */
#include "crd_test_util.h"

static gw_arena_t *arena;

/* The errors of obj against the full schema text: "" when valid. */
static char *
errors_of(const char *schema, const char *obj)
{
    gw_field_errors_t errs = {0};
    json_t *o = parse(obj);
    gw_crd_validate(compile(arena, schema), o, &errs);
    char *text = errors_text(&errs);
    gw_ferr_clear(&errs);
    json_decref(o);
    return text;
}

static void
expect(const char *name, const char *schema, const char *obj, const char *want)
{
    char *got = errors_of(schema, obj);
    tap_is_str(got, want, name);
    free(got);
}

/* One property "field" of the given schema, holding value. */
static void
field(const char *name, const char *schema, const char *value, const char *want)
{
    char *s = gw_sprintf("{\"type\":\"object\",\"properties\":{\"field\":%s}}", schema);
    char *o = gw_sprintf("{\"field\":%s}", value);
    expect(name, s, o, want);
    free(s);
    free(o);
}

static void
test_types(void)
{
    field("type: string for an integer", "{\"type\":\"integer\"}", "\"x\"",
          "field: Invalid value: \"string\": field in body must be of type integer: \"string\"");
    field("type: an object for a string", "{\"type\":\"string\"}", "{}",
          "field: Invalid value: \"object\": field in body must be of type string: \"object\"");
    field("type: an array for an object", "{\"type\":\"object\"}", "[]",
          "field: Invalid value: \"array\": field in body must be of type object: \"array\"");
    field("type: a fraction is no integer", "{\"type\":\"integer\"}", "1.5",
          "field: Invalid value: \"number\": field in body must be of type integer: \"number\"");
    field("type: 1.0 is an integer", "{\"type\":\"integer\"}", "1.0", "");
    field("type: an integer is a number", "{\"type\":\"number\"}", "3", "");
    field("type: booleans", "{\"type\":\"boolean\"}", "\"true\"",
          "field: Invalid value: \"string\": field in body must be of type boolean: \"string\"");
    field("!nullable: null is refused", "{\"type\":\"object\"}", "null",
          "field: Invalid value: \"null\": field in body must be of type object: \"null\"");
    field("nullable: null is fine", "{\"type\":\"object\",\"nullable\":true}", "null", "");
    field("no type: anything goes", "{\"x-kubernetes-preserve-unknown-fields\":true}",
          "[1,{\"a\":null}]", "");
    field("int32 is no format kube keeps: a boolean is an integer field's type error",
          "{\"type\":\"integer\",\"format\":\"int32\"}", "true",
          "field: Invalid value: \"boolean\": field in body must be of type integer: "
          "\"boolean\"");
    field("a kept format on an integer: a boolean fails the format first",
          "{\"type\":\"integer\",\"format\":\"uuid\"}", "true",
          "field: Invalid value: \"\": field in body must be of type uuid: \"\"");
    field("a kept format on an integer: a fraction is named by its Go type",
          "{\"type\":\"integer\",\"format\":\"uuid\"}", "1.5",
          "field: Invalid value: \"float64\": field in body must be of type uuid: \"float64\"");
    field("int-or-string: its types are integer and string",
          "{\"x-kubernetes-int-or-string\":true}", "1.5",
          "field: Invalid value: \"number\": field in body must be of type integer,string: "
          "\"number\"");
    field("int-or-string: null", "{\"x-kubernetes-int-or-string\":true}", "null",
          "field: Invalid value: \"null\": field in body must be of type integer,string: "
          "\"null\"");
}

static void
test_strings(void)
{
    field("maxLength", "{\"type\":\"string\",\"maxLength\":5}", "\"abcdef\"",
          "field: Too long: may not be more than 5 bytes");
    field("maxLength counts characters, not bytes", "{\"type\":\"string\",\"maxLength\":3}",
          "\"\xc3\xa4\xc3\xb6\xc3\xbc\"", "");
    field("minLength", "{\"type\":\"string\",\"minLength\":3}", "\"ab\"",
          "field: Invalid value: \"ab\": field in body should be at least 3 chars long");
    field("pattern", "{\"type\":\"string\",\"pattern\":\"^[a-z]+$\"}", "\"A1\"",
          "field: Invalid value: \"A1\": field in body should match '^[a-z]+$'");
    field("pattern: $ is the end of the text, as in Go",
          "{\"type\":\"string\",\"pattern\":"
          "\"^a$\"}",
          "\"a\\n\"", "field: Invalid value: \"a\\n\": field in body should match '^a$'");
    field("pattern is a search, not a full match", "{\"type\":\"string\",\"pattern\":\"b\"}",
          "\"abc\"", "");
    field("the first string failure only",
          "{\"type\":\"string\",\"maxLength\":1,"
          "\"pattern\":\"^x$\"}",
          "\"ab\"", "field: Too long: may not be more than 1 byte");
    field("enum", "{\"type\":\"string\",\"enum\":[\"a\",\"b\"]}", "\"c\"",
          "field: Unsupported value: \"c\": supported values: \"a\", \"b\"");
    field("enum with numbers", "{\"type\":\"integer\",\"enum\":[1,2.5]}", "3",
          "field: Unsupported value: 3: supported values: \"1\", \"2.5\"");
    field("enum: 1.0 converts to the enum's 1", "{\"type\":\"number\",\"enum\":[1]}", "1.0", "");
    field("enum: a nullable null must be in the enum",
          "{\"type\":\"string\",\"nullable\":true,"
          "\"enum\":[\"a\"]}",
          "null", "field: Unsupported value: null: supported values: \"a\"");
    field("string checks, then enum", "{\"type\":\"string\",\"maxLength\":1,\"enum\":[\"a\"]}",
          "\"bc\"",
          "field: Too long: may not be more than 1 byte\n"
          "field: Unsupported value: \"bc\": supported values: \"a\"");
}

static void
test_formats(void)
{
    static const struct {
        const char *format, *good, *bad;
    } cases[] = {
        {"uuid", "\"8ba1d2f2-6c5e-4b0b-8d1c-2c6b3f1d9a10\"", "\"abc\""},
        {"uuid4", "\"8ba1d2f26c5e4b0b8d1c2c6b3f1d9a10\"",
         "\"8ba1d2f2-6c5e-3b0b-8d1c-2c6b3f1d9a10\""},
        {"date-time", "\"2020-01-01T10:00:00Z\"", "\"2020-13-01T10:00:00Z\""},
        {"date", "\"2024-02-29\"", "\"2023-02-29\""},
        {"ipv4", "\"10.1.2.3\"", "\"10.1.2\""},
        {"ipv6", "\"fe80::1\"", "\"10.1.2.3\""},
        {"cidr", "\"10.0.0.0/8\"", "\"10.0.0.0/33\""},
        {"mac", "\"01:23:45:67:89:ab\"", "\"01:23:45:67:89\""},
        {"hostname", "\"a-b.example.com\"", "\"-a.example.com\""},
        {"email", "\"a.b@example.com\"", "\"ab.example.com\""},
        {"byte", "\"YWJj\"", "\"abc\""},
        {"duration", "\"1h2m3.5s\"", "\"soon\""},
        {"uri", "\"https://example.com/x?y=1\"", "\"example\""},
        {"bsonobjectid", "\"507f1f77bcf86cd799439011\"", "\"507f1f77\""},
        {"hexcolor", "\"#ffaa00\"", "\"#ffaa0\""},
        {"rgbcolor", "\"rgb(255, 0, 10)\"", "\"rgb(256,0,0)\""},
        {"isbn10", "\"0321751043\"", "\"0321751044\""},
        {"isbn13", "\"978-0321751041\"", "\"978-0321751042\""},
        {"ssn", "\"111-22-3333\"", "\"111223333\""},
        {"creditcard", "\"4111 1111 1111 1111\"", "\"4111 1111 1111 1112\""},
        {"creditcard", "\"4111-1111-1111-1111\"", "\"4111.1111.1111.1111\""},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *schema = gw_sprintf("{\"type\":\"string\",\"format\":\"%s\"}", cases[i].format);
        char *name = gw_sprintf("format %s: a valid value", cases[i].format);
        field(name, schema, cases[i].good, "");
        free(name);
        name = gw_sprintf("format %s: an invalid one", cases[i].format);
        char *want = gw_sprintf("field: Invalid value: %s: field in body must be of type %s: %s",
                                cases[i].bad, cases[i].format, cases[i].bad);
        field(name, schema, cases[i].bad, want);
        free(name);
        free(want);
        free(schema);
    }
    static const char *const durations[][2] = {
        {"\"3 days\"", ""},
        {"\" 10 Minutes 3s \"", ""},
        {"\"5 fortnights\"", "\"5 fortnights\""},
        {"\"99999999999999999999 s\"", "\"99999999999999999999 s\""},
        {"\"-1.5h\"", ""},
    };
    for (size_t i = 0; i < sizeof(durations) / sizeof(durations[0]); i++) {
        char *want = durations[i][1][0] == '\0'
                         ? gw_strdup("")
                         : gw_sprintf("field: Invalid value: %s: field in body must be of type "
                                      "duration: %s",
                                      durations[i][1], durations[i][1]);
        char *name = gw_sprintf("duration: %s, as strfmt reads it", durations[i][0]);
        field(name, "{\"type\":\"string\",\"format\":\"duration\"}", durations[i][0], want);
        free(name);
        free(want);
    }
    field("an unknown format is ignored", "{\"type\":\"string\",\"format\":\"colour\"}",
          "\"anything\"", "");
    field("a format on an array value: kube's type check lets it through",
          "{\"type\":\"string\",\"format\":\"uuid\"}", "[1]", "");
}

static void
test_numbers(void)
{
    field("maximum", "{\"type\":\"integer\",\"maximum\":10}", "11",
          "field: Invalid value: 11: field in body should be less than or equal to 10");
    field("exclusiveMaximum", "{\"type\":\"integer\",\"maximum\":10,\"exclusiveMaximum\":true}",
          "10", "field: Invalid value: 10: field in body should be less than 10");
    field("minimum", "{\"type\":\"number\",\"minimum\":1.5}", "0.5",
          "field: Invalid value: 0.5: field in body should be greater than or equal to 1.5");
    field("an integer meets a fractional bound cut to an integer, as kube's",
          "{\"type\":\"integer\",\"minimum\":1.5}", "1", "");
    field("exclusiveMinimum", "{\"type\":\"number\",\"minimum\":0,\"exclusiveMinimum\":true}",
          "0.0", "field: Invalid value: 0: field in body should be greater than 0");
    field("multipleOf", "{\"type\":\"integer\",\"multipleOf\":3}", "7",
          "field: Invalid value: 7: field in body should be a multiple of 3");
    field("multipleOf a fraction", "{\"type\":\"number\",\"multipleOf\":0.5}", "0.75",
          "field: Invalid value: 0.75: field in body should be a multiple of 0.5");
    field("multipleOf a fraction holds", "{\"type\":\"number\",\"multipleOf\":0.1}", "0.3", "");
    field("Go's %v of big floats", "{\"type\":\"number\",\"maximum\":1000000}", "2e6",
          "field: Invalid value: 2e+06: field in body should be less than or equal to 1e+06");
    field("multipleOf, minimum, maximum: all reported, in that order",
          "{\"type\":\"integer\",\"multipleOf\":2,\"minimum\":10,\"maximum\":0}", "5",
          "field: Invalid value: 5: field in body should be a multiple of 2\n"
          "field: Invalid value: 5: field in body should be greater than or equal to 10\n"
          "field: Invalid value: 5: field in body should be less than or equal to 0");
}

static void
test_arrays_objects(void)
{
    field("items, then maxItems",
          "{\"type\":\"array\",\"maxItems\":2,\"items\":{\"type\":"
          "\"integer\"}}",
          "[1,\"a\",3]",
          "field[1]: Invalid value: \"string\": field[1] in body must be of type integer: "
          "\"string\"\nfield: Too many: 3: must have at most 2 items");
    field("minItems", "{\"type\":\"array\",\"minItems\":2,\"items\":{\"type\":\"integer\"}}", "[1]",
          "field: Invalid value: 1: field in body should have at least 2 items");
    field("uniqueItems",
          "{\"type\":\"array\",\"uniqueItems\":true,\"items\":{\"type\":"
          "\"integer\"}}",
          "[1,2,1]", "field: Invalid value: \"\": field in body shouldn't contain duplicates");
    field("maxProperties",
          "{\"type\":\"object\",\"maxProperties\":1,"
          "\"additionalProperties\":{\"type\":\"integer\"}}",
          "{\"a\":1,\"b\":\"x\"}", "field: Too many: 2: must have at most 1 item");
    field("minProperties",
          "{\"type\":\"object\",\"minProperties\":2,"
          "\"additionalProperties\":{\"type\":\"integer\"}}",
          "{\"a\":1}", "field: Invalid value: 1: field in body should have at least 2 properties");
    field("additionalProperties: each value",
          "{\"type\":\"object\",\"additionalProperties\":"
          "{\"type\":\"integer\"}}",
          "{\"a\":1,\"b\":\"x\"}",
          "field.b: Invalid value: \"string\": field.b in body must be of type integer: "
          "\"string\"");
    field("deep paths",
          "{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":"
          "{\"a\":{\"type\":\"object\",\"additionalProperties\":{\"type\":\"string\","
          "\"maxLength\":1}}}}}",
          "[{},{\"a\":{\"k\":\"xy\"}}]", "field[1].a.k: Too long: may not be more than 1 byte");
    expect("required: missing fields at the root and below, null counts as given",
           "{\"type\":\"object\",\"required\":[\"spec\",\"status\"],\"properties\":{\"spec\":"
           "{\"type\":\"object\",\"required\":[\"a\",\"b\"],\"properties\":{\"a\":{\"type\":"
           "\"string\",\"nullable\":true},\"b\":{\"type\":\"string\",\"nullable\":true}}},"
           "\"status\":{\"type\":\"object\"}}}",
           "{\"apiVersion\":\"x/v1\",\"kind\":\"K\",\"spec\":{\"b\":null}}",
           "spec.a: Required value\nstatus: Required value");
    expect("properties are reported in name order",
           "{\"type\":\"object\",\"properties\":{\"b\":{\"type\":\"string\"},\"a\":{\"type\":"
           "\"string\"}}}",
           "{\"b\":1,\"a\":2}",
           "a: Invalid value: \"integer\": a in body must be of type string: \"integer\"\n"
           "b: Invalid value: \"integer\": b in body must be of type string: \"integer\"");
    expect("metadata: the CRD's rules for name apply, the rest is ObjectMeta's to validate",
           "{\"type\":\"object\",\"properties\":{\"metadata\":{\"type\":\"object\",\"properties\":"
           "{\"name\":{\"type\":\"string\",\"maxLength\":2}}}}}",
           "{\"metadata\":{\"name\":\"long-name\",\"labels\":5}}",
           "metadata.name: Too long: may not be more than 2 bytes");
    expect("metadata without CRD rules: ObjectMeta's only", "{\"type\":\"object\"}",
           "{\"metadata\":{\"name\":5,\"labels\":5}}", "");
    expect("an embedded resource's metadata rules",
           "{\"type\":\"object\",\"properties\":{\"t\":{\"type\":\"object\","
           "\"x-kubernetes-embedded-resource\":true,\"properties\":{\"metadata\":{\"type\":"
           "\"object\",\"properties\":{\"name\":{\"type\":\"string\",\"pattern\":\"^a\"}}}}}}}",
           "{\"t\":{\"apiVersion\":\"v1\",\"kind\":\"K\",\"metadata\":{\"name\":\"b\"}}}",
           "t.metadata.name: Invalid value: \"b\": t.metadata.name in body should match '^a'");
}

static void
test_composition(void)
{
    const char *ios = "{\"x-kubernetes-int-or-string\":true,\"anyOf\":[{\"type\":\"integer\"},"
                      "{\"type\":\"string\"}]}";
    field("int-or-string: an integer", ios, "5", "");
    field("int-or-string: a string", ios, "\"5%\"", "");
    field("int-or-string: a boolean fails its types, then anyOf, with the first alternative's "
          "error",
          ios, "true",
          "field: Invalid value: \"boolean\": field in body must be of type integer,string: "
          "\"boolean\"\n"
          "<nil>: Invalid value: \"\": \"field\" must validate at least one schema (anyOf)\n"
          "field: Invalid value: \"boolean\": field in body must be of type integer: \"boolean\"");
    field(
        "anyOf reports the failure that matched most",
        "{\"type\":\"string\",\"anyOf\":[{\"maxLength\":1},{\"maxLength\":2,\"pattern\":\"^x\"}]}",
        "\"abc\"",
        "<nil>: Invalid value: \"\": \"field\" must validate at least one schema (anyOf)\n"
        "field: Too long: may not be more than 1 byte");
    field("oneOf: two alternatives hold",
          "{\"type\":\"integer\",\"oneOf\":[{\"minimum\":1},{\"maximum\":10}]}", "5",
          "<nil>: Invalid value: \"\": \"field\" must validate one and only one schema (oneOf). "
          "Found 2 valid alternatives");
    field("oneOf: exactly one holds",
          "{\"type\":\"integer\",\"oneOf\":[{\"minimum\":1},{\"maximum\":10}]}", "0", "");
    field("oneOf: none holds",
          "{\"type\":\"integer\",\"oneOf\":[{\"minimum\":10},{\"maximum\":0}]}", "5",
          "<nil>: Invalid value: \"\": \"field\" must validate one and only one schema (oneOf). "
          "Found none valid\n"
          "field: Invalid value: 5: field in body should be greater than or equal to 10");
    field("allOf: the failures, then allOf's own error",
          "{\"type\":\"string\",\"allOf\":[{\"minLength\":2},{\"maxLength\":3}]}", "\"abcd\"",
          "field: Too long: may not be more than 3 bytes\n"
          "<nil>: Invalid value: \"\": \"field\" must validate all the schemas (allOf)");
    field("allOf: none holds",
          "{\"type\":\"string\",\"allOf\":[{\"minLength\":5},{\"maxLength\":1}]}", "\"abc\"",
          "field: Invalid value: \"abc\": field in body should be at least 5 chars long\n"
          "field: Too long: may not be more than 1 byte\n"
          "<nil>: Invalid value: \"\": \"field\" must validate all the schemas (allOf). None "
          "validated");
    field("not", "{\"type\":\"string\",\"not\":{\"enum\":[\"x\"]}}", "\"x\"",
          "<nil>: Invalid value: \"\": \"field\" must not validate the schema (not)");
    field("not: the value fails it", "{\"type\":\"string\",\"not\":{\"enum\":[\"x\"]}}", "\"y\"",
          "");
    field("value validations recurse into properties",
          "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"}},\"anyOf\":["
          "{\"properties\":{\"a\":{\"minimum\":5}}},{\"required\":[\"b\"]}]}",
          "{\"a\":1}",
          "<nil>: Invalid value: \"\": \"field\" must validate at least one schema (anyOf)\n"
          "field.a: Invalid value: 1: field.a in body should be greater than or equal to 5");
}

static void
test_lists(void)
{
    field("listType set: the second appearance of each value",
          "{\"type\":\"array\",\"x-kubernetes-list-type\":\"set\",\"items\":{\"type\":\"string\"}}",
          "[\"a\",\"b\",\"a\",\"a\",\"b\"]",
          "field[2]: Duplicate value: \"a\"\nfield[4]: Duplicate value: \"b\"");
    field("listType set: 1 and 1.0 differ, as in kube's map of values",
          "{\"type\":\"array\",\"x-kubernetes-list-type\":\"set\",\"items\":{\"type\":\"number\"}}",
          "[1,1.0]", "");
    field(
        "listType map: each later item with the same keys",
        "{\"type\":\"array\",\"x-kubernetes-list-type\":\"map\",\"x-kubernetes-list-map-keys\":"
        "[\"name\"],\"items\":{\"type\":\"object\",\"properties\":{\"name\":{\"type\":"
        "\"string\"},\"v\":{\"type\":\"integer\"}}}}",
        "[{\"name\":\"a\",\"v\":1},{\"name\":\"b\"},{\"name\":\"a\",\"v\":2},{\"name\":\"a\"}]",
        "field[2]: Duplicate value: {\"name\":\"a\"}\nfield[3]: Duplicate value: {\"name\":\"a\"}");
    field("listType map: two keys, one defaulted",
          "{\"type\":\"array\",\"x-kubernetes-list-type\":\"map\",\"x-kubernetes-list-map-keys\":"
          "[\"port\",\"protocol\"],\"items\":{\"type\":\"object\",\"required\":[\"port\"],"
          "\"properties\":{\"port\":{\"type\":\"integer\"},\"protocol\":{\"type\":\"string\","
          "\"default\":\"TCP\"}}}}",
          "[{\"port\":80},{\"port\":80,\"protocol\":\"UDP\"},{\"port\":80,\"protocol\":\"TCP\"}]",
          "field[2]: Duplicate value: {\"port\":80,\"protocol\":\"TCP\"}");
    field("listType map: items must be objects",
          "{\"type\":\"array\",\"x-kubernetes-list-type\":\"map\",\"x-kubernetes-list-map-keys\":"
          "[\"name\"],\"items\":{\"type\":\"object\",\"properties\":{\"name\":{\"type\":"
          "\"string\"}}}}",
          "[{\"name\":\"a\"},5]",
          "field[1]: Invalid value: \"integer\": field[1] in body must be of type object: "
          "\"integer\"\nfield[1]: Invalid value: 5: must be an object for an array of list-type "
          "map");
}

static void
test_embedded(void)
{
    const char *schema = "{\"type\":\"object\",\"properties\":{\"t\":{\"type\":\"object\","
                         "\"x-kubernetes-embedded-resource\":true,"
                         "\"x-kubernetes-preserve-unknown-fields\":true},\"l\":{\"type\":"
                         "\"array\",\"items\":{\"type\":\"object\","
                         "\"x-kubernetes-embedded-resource\":true,"
                         "\"x-kubernetes-preserve-unknown-fields\":true}}}}";
    expect("an embedded resource: a complete one", schema,
           "{\"t\":{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{}}}", "");
    expect("an embedded resource needs apiVersion and kind", schema, "{\"t\":{\"metadata\":{}}}",
           "t.apiVersion: Required value: must not be empty\n"
           "t.kind: Required value: must not be empty");
    expect("an embedded resource's apiVersion and kind: strings, not empty, a group/version",
           schema,
           "{\"l\":[{\"apiVersion\":5,\"kind\":\"\"},{\"apiVersion\":\"a/b/c\",\"kind\":\"K\"}]}",
           "l[0].apiVersion: Invalid value: 5: must be a string\n"
           "l[0].kind: Invalid value: \"\": must not be empty\n"
           "l[1].apiVersion: Invalid value: \"a/b/c\": unexpected GroupVersion string: a/b/c");
    expect("an embedded resource's metadata must decode as ObjectMeta", schema,
           "{\"t\":{\"apiVersion\":\"v1\",\"kind\":\"K\",\"metadata\":{\"labels\":5}}}",
           "t.metadata: Invalid value: {\"labels\":5}: json: cannot unmarshal number into Go "
           "struct field ObjectMeta.labels of type map[string]string");
    expect("an embedded resource's metadata passes ObjectMeta's validation", schema,
           "{\"t\":{\"apiVersion\":\"v1\",\"kind\":\"K\",\"metadata\":{\"name\":\"a/b\","
           "\"labels\":{\"-x\":\"y\"}}}}",
           "t.metadata.name: Invalid value: \"a/b\": may not contain '/'\n"
           "t.metadata.labels: Invalid value: \"-x\": name part must consist of alphanumeric "
           "characters, '-', '_' or '.', and must start and end with an alphanumeric character "
           "(e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
           "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')");
}

/* kube's TestValidateCustomResource cases (validation_test.go), whose error lists are sets; ours
   come in the validators' order. */
static void
test_kube_cases(void)
{
    static const char *const kinds[][2] = {
        {"true", "boolean"}, {"1.2", "number"}, {"{}", "object"}, {"[]", "array"}};
    const char *ios = "{\"x-kubernetes-int-or-string\":true}";
    const char *nios = "{\"x-kubernetes-int-or-string\":true,\"nullable\":true}";
    const char *any = "{\"x-kubernetes-int-or-string\":true,\"nullable\":true,\"anyOf\":["
                      "{\"type\":\"integer\"},{\"type\":\"string\"}]}";
    const char *all = "{\"x-kubernetes-int-or-string\":true,\"nullable\":true,\"allOf\":[{"
                      "\"anyOf\":[{\"type\":\"integer\"},{\"type\":\"string\"}]}]}";
    field("x-kubernetes-int-or-string: 42", ios, "42", "");
    field("x-kubernetes-int-or-string: \"foo\"", ios, "\"foo\"", "");
    field("x-kubernetes-int-or-string: null", ios, "null",
          "field: Invalid value: \"null\": field in body must be of type integer,string: \"null\"");
    field("nullable and x-kubernetes-int-or-string: null", nios, "null", "");
    field("nullable, int-or-string and anyOf: null", any, "null", "");
    for (size_t i = 0; i < 4; i++) {
        char *want = gw_sprintf("field: Invalid value: \"%s\": field in body must be of type "
                                "integer,string: \"%s\"",
                                kinds[i][1], kinds[i][1]);
        char *name = gw_sprintf("x-kubernetes-int-or-string: %s", kinds[i][0]);
        field(name, ios, kinds[i][0], want);
        free(name);
        name = gw_sprintf("nullable and x-kubernetes-int-or-string: %s", kinds[i][0]);
        field(name, nios, kinds[i][0], want);
        free(name);
        char *with_any = gw_sprintf(
            "%s\n<nil>: Invalid value: \"\": \"field\" must validate at least one schema "
            "(anyOf)\nfield: Invalid value: \"%s\": field in body must be of type integer: \"%s\"",
            want, kinds[i][1], kinds[i][1]);
        name = gw_sprintf("nullable, int-or-string and user-provided anyOf: %s", kinds[i][0]);
        field(name, any, kinds[i][0], with_any);
        free(name);
        char *with_all = gw_sprintf("%s\n<nil>: Invalid value: \"\": \"field\" must validate all "
                                    "the schemas (allOf). None validated",
                                    with_any);
        name = gw_sprintf("nullable, int-or-string and user-provided allOf: %s", kinds[i][0]);
        field(name, all, kinds[i][0], with_all);
        free(name);
        free(with_all);
        free(with_any);
        free(want);
    }
    const char *req = "{\"type\":\"object\",\"required\":[\"field\"],\"properties\":{\"field\":"
                      "{\"type\":\"object\",\"required\":[\"nested\"],\"properties\":{\"nested\":"
                      "{}}}}}";
    expect("required field: missing", req, "{\"test\":\"a\"}", "field: Required value");
    expect("required field: nested", req, "{\"field\":{}}", "field.nested: Required value");
    const char *en = "{\"type\":\"object\",\"properties\":{\"field\":{\"type\":\"object\","
                     "\"required\":[\"nestedint\",\"nestedstring\"],\"properties\":{"
                     "\"nestedint\":{\"type\":\"integer\",\"enum\":[1,2]},"
                     "\"nestedstring\":{\"type\":\"string\",\"enum\":[\"a\",\"b\"]}}}}}";
    expect("enum: required members", en, "{\"field\":{}}",
           "field.nestedint: Required value\nfield.nestedstring: Required value");
    expect("enum: types, then values", en,
           "{\"field\":{\"nestedint\":\"x\",\"nestedstring\":true}}",
           "field.nestedint: Invalid value: \"string\": field.nestedint in body must be of type "
           "integer: \"string\"\n"
           "field.nestedint: Unsupported value: \"x\": supported values: \"1\", \"2\"\n"
           "field.nestedstring: Invalid value: \"boolean\": field.nestedstring in body must be of "
           "type string: \"boolean\"\n"
           "field.nestedstring: Unsupported value: true: supported values: \"a\", \"b\"");
    const char *nt = "{\"type\":\"object\",\"properties\":{\"field\":{\"nullable\":true}}}";
    static const char *const anything[] = {"{}", "null", "\"foo\"", "42", "true", "1.2", "[]"};
    for (size_t i = 0; i < sizeof(anything) / sizeof(anything[0]); i++) {
        char *o = gw_sprintf("{\"field\":%s}", anything[i]);
        char *name = gw_sprintf("nullable and no type: %s", anything[i]);
        expect(name, nt, o, "");
        free(name);
        free(o);
    }
}

int
main(void)
{
    arena = gw_arena_new();
    test_types();
    test_strings();
    test_formats();
    test_numbers();
    test_arrays_objects();
    test_composition();
    test_lists();
    test_embedded();
    test_kube_cases();
    gw_arena_free(arena);
    return tap_done();
}
