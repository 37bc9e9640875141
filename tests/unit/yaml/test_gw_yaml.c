/* Unit tests for gateway/yaml/gw_yaml: YAML bodies read as kube-apiserver reads them (yaml.v2
 * scalars, merge keys, first document only, sorted keys, duplicates), the bounds on hostile
 * input, error positions, and JSON written as YAML that reads back to the same document. */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "gw_yaml.h"
#include "tap.h"

typedef struct {
    const char *name;
    const char *yaml;
    const char *json; /* the document it denotes (numbers typed as JSON types them) */
} read_case_t;

static const read_case_t reads[] = {
    {"a block mapping", "a: 1\nb: x\n", "{\"a\":1,\"b\":\"x\"}"},
    {"YAML 1.1 booleans", "[true, True, TRUE, yes, Yes, on, ON, y, Y, false, no, off, n, N]",
     "[true,true,true,true,true,true,true,true,true,false,false,false,false,false]"},
    {"nulls", "[~, null, Null, NULL, ]", "[null,null,null,null]"},
    {"an empty value is null", "a:\nb: 1", "{\"a\":null,\"b\":1}"},
    {"quoted scalars stay strings", "[\"true\", 'yes', \"123\", '', \"~\"]",
     "[\"true\",\"yes\",\"123\",\"\",\"~\"]"},
    {"words that are not YAML 1.1 booleans", "[tRUE, yES, nil, none, Off2]",
     "[\"tRUE\",\"yES\",\"nil\",\"none\",\"Off2\"]"},
    {"integers as Go reads them", "[0, -7, +12, 0x1F, 0o17, 0777, -0b11, 1_000, 0x_ff]",
     "[0,-7,12,31,15,511,-3,1000,255]"},
    {"int64 limits", "[9223372036854775807, -9223372036854775808]",
     "[9223372036854775807,-9223372036854775808]"},
    {"integral floats become integers", "[1.0, 1e3, 08, -2.]", "[1,1000,8,-2]"},
    {"floats", "[1.5, .5, -.25, 1.5e-3, 6.02e+23]", "[1.5,0.5,-0.25,0.0015,6.02e+23]"},
    {"not numbers", "[0x, 1e400, 1.2.3, 12abc, -, +, ., 1:20, 0b102, inf, nan]",
     "[\"0x\",\"1e400\",\"1.2.3\",\"12abc\",\"-\",\"+\",\".\",\"1:20\",\"0b102\",\"inf\","
     "\"nan\"]"},
    {"timestamps stay strings", "t: 2024-01-02T03:04:05Z\nd: 2001-12-14",
     "{\"d\":\"2001-12-14\",\"t\":\"2024-01-02T03:04:05Z\"}"},
    {"keys are sorted as Go sorts map keys", "b: 1\na: 2\nB: 3\n_: 4\n",
     "{\"B\":3,\"_\":4,\"a\":2,\"b\":1}"},
    {"non-string keys become strings", "1: a\n1.5: b\ntrue: c\n0x10: d\ny: e\n1e10: f\n",
     "{\"1\":\"a\",\"1.5\":\"b\",\"16\":\"d\",\"1e+10\":\"f\",\"true\":\"e\"}"},
    {"a key set twice keeps the later value", "a: 1\na: 2\n", "{\"a\":2}"},
    {"literal and folded blocks", "l: |\n  one\n  two\nf: >-\n  one\n  two\nk: |+\n  x\n\n",
     "{\"f\":\"one two\",\"k\":\"x\\n\\n\",\"l\":\"one\\ntwo\\n\"}"},
    {"flow collections", "{a: [1, {b: c}], d: []}", "{\"a\":[1,{\"b\":\"c\"}],\"d\":[]}"},
    {"anchors and aliases", "a: &x {k: [1, 2]}\nb: *x\nc: &s str\nd: *s\n",
     "{\"a\":{\"k\":[1,2]},\"b\":{\"k\":[1,2]},\"c\":\"str\",\"d\":\"str\"}"},
    {"merge keys: later keys win, merged keys override earlier ones",
     "base: &b {x: 1, z: 1}\nd:\n  x: 0\n  <<: *b\n  z: 9\n",
     "{\"base\":{\"x\":1,\"z\":1},\"d\":{\"x\":1,\"z\":9}}"},
    {"merge of a sequence: earlier maps win", "m:\n  <<: [{a: 1}, {a: 2, b: 2}]\n",
     "{\"m\":{\"a\":1,\"b\":2}}"},
    {"a quoted << is a plain key", "{\"<<\": {a: 1}}", "{\"<<\":{\"a\":1}}"},
    {"tags", "[!!str 5, !!int \"5\", !!float 3, !!bool \"yes\", !!binary aGVsbG8=, !x 12, ! 1]",
     "[\"5\",5,3,true,\"hello\",\"12\",\"1\"]"},
    {"only the first document counts", "a: 1\n---\nb: 2\n", "{\"a\":1}"},
    {"later documents are not even parsed", "a: 1\n---\n: : ][\n", "{\"a\":1}"},
    {"an explicit document", "--- \nkind: Pod\n...\n", "{\"kind\":\"Pod\"}"},
    {"an empty stream is null", "", "null"},
    {"a comment-only stream is null", "# nothing\n", "null"},
    {"a root scalar", "hello", "\"hello\""},
    {"escapes in double quotes", "\"a\\tb\\u00e9\\x01\"", "\"a\\tb\\u00e9\\u0001\""},
    {"unicode text", "name: héllo wörld ✓", "{\"name\":\"héllo wörld ✓\"}"},
};

typedef struct {
    const char *name;
    const char *yaml;
    const char *err;
} error_case_t;

static const error_case_t errors[] = {
    {"an unclosed flow sequence", "a: [1, 2\n",
     "yaml: line 2, column 1: did not find expected ',' or ']'"},
    {"a mapping value where none may be", "a: b: c",
     "yaml: line 1, column 5: mapping values are not allowed in this context"},
    {"a tab for indentation", "a:\n\tb",
     "yaml: line 2, column 1: found character that cannot start any token"},
    {"an unknown anchor", "a: *nope", "yaml: line 1, column 4: unknown anchor 'nope' referenced"},
    {"an anchor that contains itself", "a: &a [*a]",
     "yaml: line 1, column 8: anchor 'a' value contains itself"},
    {"a tag that does not fit", "x: !!int abc",
     "yaml: line 1, column 4: cannot decode !!str `abc` as a !!int"},
    {"infinity", "x: .inf", "yaml: line 1, column 4: json: unsupported value: +Inf"},
    {"not a number", "[1, .NaN]", "yaml: line 1, column 5: json: unsupported value: NaN"},
    {"a null key", "null: 1", "yaml: line 1, column 1: unsupported map key: null"},
    {"a sequence key", "[1]: 2", "yaml: line 1, column 1: invalid map key: a sequence"},
    {"a merge of a scalar", "a:\n  <<: 1\n",
     "yaml: line 2, column 7: map merge requires map or sequence of maps as the value"},
    {"bad base64", "x: !!binary '%%%'",
     "yaml: line 1, column 4: !!binary value contains invalid base64 data"},
    {"trailing garbage in the first document", "a: 1\n]\n", NULL},
    {"a control character", "a: \x01", NULL},
    {"invalid UTF-8", "a: \xff\xfe\xfd", NULL},
};

static json_t *
parse_json(const char *text)
{
    json_error_t e;
    json_t *v = json_loads(text, JSON_DECODE_ANY, &e);
    if (v == NULL)
        tap_diag("unparsable expectation %s: %s", text, e.text);
    return v;
}

static void
test_reads(void)
{
    for (size_t i = 0; i < sizeof(reads) / sizeof(reads[0]); i++) {
        char err[256] = "";
        json_t *got = gw_yaml_to_json(reads[i].yaml, strlen(reads[i].yaml), err, sizeof(err));
        json_t *want = parse_json(reads[i].json);
        char *text = got != NULL ? json_dumps(got, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
        int same = got != NULL && json_equal(got, want);
        /* json_equal ignores order; kube-apiserver's keys come out sorted, so check it too */
        if (same && json_is_object(want))
            same = strcmp(text, reads[i].json) == 0;
        if (!tap_ok(same, "%s", reads[i].name))
            tap_diag("  got %s (%s), want %s", text ? text : "NULL", err, reads[i].json);
        free(text);
        json_decref(got);
        json_decref(want);
    }
}

static void
test_errors(void)
{
    for (size_t i = 0; i < sizeof(errors) / sizeof(errors[0]); i++) {
        char err[256];
        memset(err, 'x', sizeof(err));
        json_t *got = gw_yaml_to_json(errors[i].yaml, strlen(errors[i].yaml), err, sizeof(err));
        tap_ok(got == NULL && memchr(err, '\0', sizeof(err)) != NULL &&
                   strncmp(err, "yaml: line ", 11) == 0 && strchr(err, '\n') == NULL,
               "%s fails with a positioned one-line reason", errors[i].name);
        if (errors[i].err != NULL)
            tap_is_str(err, errors[i].err, "  kube's problem text, our line and column");
        json_decref(got);
    }
}

/* kube-apiserver's field validation test body: its strict YAML decoding reports these. */
static void
test_duplicates(void)
{
    const char *body = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\n"
                       "  labels:\n    app: nginx\nspec:\n  unknown1: val1\n"
                       "  unknownDupe: valDupe\n  unknownDupe: valDupe2\n  paused: true\n"
                       "  paused: false\n  selector:\n    matchLabels:\n      app: nginx\n"
                       "  template:\n    metadata:\n      labels:\n        app: nginx\n"
                       "    spec:\n      containers:\n      - name: nginx\n"
                       "        image: nginx:latest\n        unknownNested: val1\n"
                       "        imagePullPolicy: Always\n        imagePullPolicy: Never";
    gw_field_issues_t dups = {0};
    char err[256];
    json_t *doc = gw_yaml_to_json_dups(body, strlen(body), &dups, err, sizeof(err));
    tap_is_int(dups.n, 3, "three keys set twice");
    if (dups.n == 3) {
        tap_is_str(dups.items[0].message, "line 10: key \"unknownDupe\" already set in map",
                   "  reported as kube-apiserver reports them");
        tap_is_str(dups.items[1].message, "line 12: key \"paused\" already set in map",
                   "  in document order");
        tap_is_str(dups.items[2].message, "line 26: key \"imagePullPolicy\" already set in map",
                   "  with the line of the second value");
        tap_ok(dups.items[0].kind == GW_FIELD_DUPLICATE && dups.items[0].path[0] == '\0',
               "  as duplicates without a field path");
    }
    tap_ok(json_is_false(json_object_get(json_object_get(doc, "spec"), "paused")),
           "the later value is kept");
    json_decref(doc);
    gw_field_issues_clear(&dups);
    doc = gw_yaml_to_json_dups("1: a\n1: b\n\"q\\\"\": x\n'q\"': y\n", 26, &dups, err, sizeof(err));
    tap_ok(dups.n == 2 && strcmp(dups.items[0].message, "line 2: key 1 already set in map") == 0 &&
               strcmp(dups.items[1].message, "line 4: key \"q\\\"\" already set in map") == 0,
           "non-string keys are named bare, strings quoted as Go quotes them");
    json_decref(doc);
    gw_field_issues_clear(&dups);
}

static char *
repeat(const char *s, int n, const char *tail)
{
    size_t len = strlen(s);
    char *out = malloc(len * (size_t)n + strlen(tail) + 1);
    for (int i = 0; i < n; i++)
        memcpy(out + len * (size_t)i, s, len);
    strcpy(out + len * (size_t)n, tail);
    return out;
}

static void
test_bounds(void)
{
    char err[256];
    char *deep = repeat("[", 1001, "");
    json_t *got = gw_yaml_to_json(deep, strlen(deep), err, sizeof(err));
    tap_ok(got == NULL && strstr(err, "exceeded max depth of 1000") != NULL,
           "nesting deeper than 1000 is refused");
    json_decref(got);
    free(deep);
    deep = repeat("- ", 1000, "x");
    got = gw_yaml_to_json(deep, strlen(deep), err, sizeof(err));
    tap_ok(got != NULL, "nesting of 1000 is fine");
    json_decref(got);
    free(deep);
    const char *laughs = "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
                         "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
                         "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
                         "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
                         "e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n"
                         "f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\n"
                         "g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f, *f]\n";
    got = gw_yaml_to_json(laughs, strlen(laughs), err, sizeof(err));
    tap_ok(got == NULL && strstr(err, "document contains excessive aliasing") != NULL,
           "a billion laughs is refused");
    json_decref(got);
    got = gw_yaml_to_json(laughs, strstr(laughs, "f:") - laughs, err, sizeof(err));
    tap_ok(got != NULL, "a hundred thousand values by alias are fine");
    json_decref(got);
}

/* Strings that must come back as strings, whatever they look like. */
static const char *const tricky[] = {
    "",
    "true",
    "True",
    "yes",
    "no",
    "on",
    "off",
    "y",
    "n",
    "null",
    "~",
    "Null",
    "123",
    "-1",
    "+1",
    "1.5",
    "1e3",
    ".5",
    "0x1F",
    "0o17",
    "1_000",
    "08",
    ".inf",
    "-.inf",
    ".nan",
    "1e400",
    "2024-01-01",
    "1:20",
    "<<",
    " lead",
    "tr ",
    "a: b",
    "a #b",
    "#x",
    "- x",
    "-",
    "?",
    ":",
    "|",
    ">",
    "@x",
    "`x",
    "%x",
    "!x",
    "&x",
    "*x",
    "[x",
    "{x",
    "]",
    "}",
    ",x",
    "'",
    "\"",
    "a\"b'c",
    "\t",
    "\x01",
    "é ✓",
    "\\",
    "a\nb",
    "a\n",
    "\nlead",
    "a\n\n",
    "  x\ny",
    "x\r\ny",
    "trailing \nspace",
    "a\xc2\x85"
    "b",
    "a\xe2\x80\xa8"
    "b",
    "\xef\xbb\xbf"
    "bom",
    "--- x",
    "...",
    "---",
};

static void
test_tricky_strings(void)
{
    int ok = 1;
    for (size_t i = 0; i < sizeof(tricky) / sizeof(tricky[0]); i++) {
        json_t *doc = json_pack("{s:s,s:[s]}", "k", tricky[i], "l", tricky[i]);
        json_object_set_new(doc, tricky[i], json_true());
        size_t len;
        char *yaml = gw_json_to_yaml(doc, &len);
        char err[256] = "";
        json_t *back = gw_yaml_to_json(yaml, len, err, sizeof(err));
        if (back == NULL || !json_equal(doc, back)) {
            ok = 0;
            tap_diag("  \"%s\" came back wrong (%s) from:\n%s", tricky[i], err, yaml);
        }
        json_decref(back);
        json_decref(doc);
        free(yaml);
    }
    tap_ok(ok, "tricky strings survive a round trip as values, list items and keys");
}

static void
expect_yaml(const char *json, const char *want, const char *name)
{
    json_t *doc = parse_json(json);
    size_t len;
    char *got = gw_json_to_yaml(doc, &len);
    tap_is_str(got, want, name);
    tap_is_int(len, strlen(want), "  with its length");
    free(got);
    json_decref(doc);
}

static void
test_output(void)
{
    expect_yaml("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"c\","
                "\"labels\":{\"a\":\"true\",\"b\":\"1\"},\"annotations\":{}},"
                "\"data\":{\"script\":\"echo hi\\nexit 0\\n\",\"empty\":\"\",\"n\":\"null\"},"
                "\"list\":[{\"name\":\"x\",\"ports\":[80,443]},[]],\"f\":1.5,\"b\":false,"
                "\"z\":null}",
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  labels:\n"
                "    a: \"true\"\n    b: \"1\"\n  annotations: {}\ndata:\n  script: |\n"
                "    echo hi\n    exit 0\n  empty: \"\"\n  \"n\": \"null\"\nlist:\n- name: x\n"
                "  ports:\n  - 80\n  - 443\n- []\nf: 1.5\nb: false\nz: null\n",
                "block style, keys in document order, sequences flush with their key, \"n\" quoted "
                "(yaml.v2 reads n as false)");
    expect_yaml("{\"a\":\"no newline at the end\\nsecond\"}",
                "a: |-\n  no newline at the end\n  second\n",
                "a literal block without a final newline");
    expect_yaml("{\"a\":0.1,\"b\":1e+300,\"c\":-0.0001}", "a: 0.1\nb: 1e+300\nc: -0.0001\n",
                "floats in their shortest form");
    expect_yaml("{\"a\":1.7930007027384318e16}", "a: 17930007027384318.0\n",
                "an integral float beyond 2^53 stays a float");
    expect_yaml("\"x\"", "x\n", "a root scalar");
    char *long_text = repeat("word ", 60, "end");
    json_t *doc = json_pack("{s:s}", "k", long_text);
    size_t len;
    char *yaml = gw_json_to_yaml(doc, &len);
    tap_ok(strchr(yaml, '\n') == yaml + len - 1, "long strings stay on one line");
    free(yaml);
    free(long_text);
    json_decref(doc);
}

static void
test_round_trip(void)
{
    const char *json =
        "{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"p\",\"namespace\":"
        "\"default\",\"uid\":\"0b6f1f0e-2a9b-4d7e-9a53-1c2d3e4f5a6b\",\"resourceVersion\":\"42\","
        "\"creationTimestamp\":\"2024-05-01T10:00:00Z\",\"labels\":{\"app\":\"web\",\"tier\":\"1\"}"
        ","
        "\"annotations\":{\"kubectl.kubernetes.io/last-applied-configuration\":"
        "\"{\\\"a\\\":1}\\n\"}},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"nginx:1.25\","
        "\"command\":[\"sh\",\"-c\",\"echo 'a: b' && exit 0\"],\"ports\":[{\"containerPort\":80,"
        "\"protocol\":\"TCP\"}],\"resources\":{\"limits\":{\"cpu\":\"500m\",\"memory\":\"1Gi\"}},"
        "\"env\":[{\"name\":\"X\",\"value\":\"yes\"},{\"name\":\"Y\",\"value\":\"\"}]}],"
        "\"restartPolicy\":\"Always\",\"terminationGracePeriodSeconds\":30,\"hostNetwork\":false,"
        "\"priority\":0,\"overhead\":null,\"weights\":[0.5,1.25,-3]}}";
    json_t *doc = parse_json(json);
    size_t len;
    char *yaml = gw_json_to_yaml(doc, &len);
    char err[256] = "";
    json_t *back = gw_yaml_to_json(yaml, len, err, sizeof(err));
    if (!tap_ok(back != NULL && json_equal(doc, back), "a Pod survives JSON -> YAML -> JSON"))
        tap_diag("%s\n%s", err, yaml);
    json_decref(back);
    json_decref(doc);
    free(yaml);
}

int
main(void)
{
    test_reads();
    test_errors();
    test_duplicates();
    test_bounds();
    test_tricky_strings();
    test_output();
    test_round_trip();
    return tap_done();
}
