/* Unit tests for gateway/meta/gw_jsonpath: client-go's jsonpath_test.go and parser_test.go
 * cases that apply to JSON documents (kube's struct inputs rewritten as the objects they
 * encode to), with kube's outputs and error messages; the node trees the parser builds; and
 * the text of values as PrintResults writes them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "gw_buf.h"
#include "gw_jsonpath.h"
#include "gw_jsonpath_int.h"
#include "tap.h"

typedef struct {
    const char *name;
    const char *template;
    const char *input; /* JSON */
    const char *want;  /* the output, or the error message when `error` */
    bool error;
} jp_case_t;

/* Execute: every part's results, printed and joined with spaces within a part. */
static char *
execute(const char *template, const json_t *data, bool allow_missing, bool *failed)
{
    char err[256];
    gw_jsonpath_results_t r = {0};
    gw_buf_t out = {0};
    gw_jsonpath_t *p = gw_jsonpath_parse(template, err, sizeof(err));
    *failed = p == NULL || gw_jsonpath_find(p, data, allow_missing, &r, err, sizeof(err)) != 0;
    if (*failed) {
        gw_buf_str(&out, err);
    } else {
        for (size_t part = 0, i = 0; part < r.n_parts; part++) {
            for (size_t first = i; i < r.end[part]; i++) {
                char *text = gw_jsonpath_text(r.values[i]);
                gw_buf_str(&out, i > first ? " " : "");
                gw_buf_str(&out, text);
                free(text);
            }
        }
    }
    gw_buf_str(&out, "");
    gw_jsonpath_results_free(&r);
    gw_jsonpath_free(p);
    return gw_buf_take(&out);
}

static void
run_cases(const jp_case_t *cases, size_t n, bool allow_missing)
{
    for (size_t i = 0; i < n; i++) {
        json_error_t e;
        json_t *data = json_loads(cases[i].input, JSON_DECODE_ANY, &e);
        bool failed;
        if (data == NULL)
            tap_diag("bad test input in %s: %s", cases[i].name, e.text);
        char *got = execute(cases[i].template, data, allow_missing, &failed);
        if (cases[i].error && cases[i].want == NULL)
            tap_ok(failed, "%s: fails (%s)", cases[i].name, got);
        else if (!tap_ok(failed == cases[i].error && strcmp(got, cases[i].want) == 0, "%s",
                         cases[i].name))
            tap_diag("got %s \"%s\", want \"%s\"", failed ? "error" : "output", got, cases[i].want);
        free(got);
        json_decref(data);
    }
}

#define RUN(cases, allow) run_cases(cases, sizeof(cases) / sizeof(cases[0]), allow)

static const char *types_json =
    "{\"bools\":[true,false,true,false],\"integers\":[1,2,3,4],\"floats\":[1.0,2.2,3.3,4.0],"
    "\"strings\":[\"one\",\"two\",\"three\",\"four\"],\"interfaces\":[true,\"one\",1,1.1],"
    "\"maps\":[{\"name\":\"one\",\"value\":1},{\"name\":\"two\",\"value\":2.02},"
    "{\"name\":\"three\",\"value\":3.03},{\"name\":\"four\",\"value\":4.04}]}";

/* TestTypesInput */
static void
test_types(void)
{
    const char *t = types_json;
    const jp_case_t cases[] = {
        {"boolSlice", "{ .bools }", t, "[true,false,true,false]", false},
        {"boolSliceIndex", "{ .bools[0] }", t, "true", false},
        {"boolSliceIndex -1", "{ .bools[-1] }", t, "false", false},
        {"boolSubSlice", "{ .bools[0:2] }", t, "true false", false},
        {"boolSubSliceFirst2", "{ .bools[:2] }", t, "true false", false},
        {"boolSubSliceStep2", "{ .bools[:4:2] }", t, "true true", false},
        {"integerSlice", "{ .integers }", t, "[1,2,3,4]", false},
        {"integerSliceIndex", "{ .integers[0] }", t, "1", false},
        {"integerSliceIndexReverse", "{ .integers[-2] }", t, "3", false},
        {"integerSubSliceFirst2", "{ .integers[0:2] }", t, "1 2", false},
        {"integerSubSliceFirst2Alt", "{ .integers[:2] }", t, "1 2", false},
        {"integerSubSliceStep2", "{ .integers[:4:2] }", t, "1 3", false},
        {"floatSlice", "{ .floats }", t, "[1,2.2,3.3,4]", false},
        {"floatSliceIndex", "{ .floats[0] }", t, "1", false},
        {"floatSliceIndexReverse", "{ .floats[-2] }", t, "3.3", false},
        {"floatSubSliceFirst2", "{ .floats[0:2] }", t, "1 2.2", false},
        {"floatSubSliceStep2", "{ .floats[:4:2] }", t, "1 3.3", false},
        {"stringSlice", "{ .strings }", t, "[\"one\",\"two\",\"three\",\"four\"]", false},
        {"stringSliceIndex", "{ .strings[0] }", t, "one", false},
        {"stringSliceIndexReverse", "{ .strings[-2] }", t, "three", false},
        {"stringSubSliceFirst2", "{ .strings[0:2] }", t, "one two", false},
        {"stringSubSliceStep2", "{ .strings[:4:2] }", t, "one three", false},
        {"interfaceSlice", "{ .interfaces }", t, "[true,\"one\",1,1.1]", false},
        {"interfaceSliceIndex", "{ .interfaces[0] }", t, "true", false},
        {"interfaceSliceIndexReverse", "{ .interfaces[-2] }", t, "1", false},
        {"interfaceSubSliceFirst2", "{ .interfaces[0:2] }", t, "true one", false},
        {"interfaceSubSliceStep2", "{ .interfaces[:4:2] }", t, "true 1", false},
        {"mapSliceIndex", "{ .maps[0] }", t, "{\"name\":\"one\",\"value\":1}", false},
        {"mapSliceIndexReverse", "{ .maps[-2] }", t, "{\"name\":\"three\",\"value\":3.03}", false},
        {"mapSubSliceFirst2", "{ .maps[0:2] }", t,
         "{\"name\":\"one\",\"value\":1} {\"name\":\"two\",\"value\":2.02}", false},
        {"mapSubSliceStepOdd", "{ .maps[::2] }", t,
         "{\"name\":\"one\",\"value\":1} {\"name\":\"three\",\"value\":3.03}", false},
        {"mapSubSliceStepEven", "{ .maps[1::2] }", t,
         "{\"name\":\"two\",\"value\":2.02} {\"name\":\"four\",\"value\":4.04}", false},
    };
    RUN(cases, false);
}

static const char *store_json =
    "{\"Book\":[{\"Category\":\"reference\",\"Author\":\"Nigel Rees\",\"Title\":\"Sayings of the "
    "Centurey\",\"Price\":8.95},{\"Category\":\"fiction\",\"Author\":\"Evelyn "
    "Waugh\",\"Title\":\"Sword of Honour\",\"Price\":12.99},{\"Category\":\"fiction\","
    "\"Author\":\"Herman Melville\",\"Title\":\"Moby Dick\",\"Price\":8.99}],"
    "\"Bicycle\":[{\"Color\":\"red\",\"Price\":19.95,\"IsNew\":true},"
    "{\"Color\":\"green\",\"Price\":20.01,\"IsNew\":false}],\"Name\":\"jsonpath\","
    "\"Labels\":{\"engieer\":10,\"web/html\":15,\"k8s-app\":20},"
    "\"Employees\":{\"jason\":\"manager\",\"dan\":\"clerk\"}}";

/* TestStructInput, over the JSON the store encodes to (a map's keys print sorted). */
static void
test_store(void)
{
    const char *s = store_json;
    const jp_case_t cases[] = {
        {"plain", "hello jsonpath", "null", "hello jsonpath", false},
        {"recursive", "{..}", "[1,2,3]", "[1,2,3]", false},
        {"filter", "{[?(@<5)]}", "[2,6,3,7]", "2 3", false},
        {"quote", "{\"{\"}", "null", "{", false},
        {"union", "{[1,3,4]}", "[0,1,2,3,4]", "1 3 4", false},
        {"array", "{[0:2]}", "[\"Monday\",\"Tudesday\"]", "Monday Tudesday", false},
        {"variable", "hello {.Name}", s, "hello jsonpath", false},
        {"dict/", "{$.Labels.web/html}", s, "15", false},
        {"dict/ jason", "{$.Employees.jason}", s, "manager", false},
        {"dict/ dan", "{$.Employees.dan}", s, "clerk", false},
        {"dict-", "{.Labels.k8s-app}", s, "20", false},
        {"nest", "{.Bicycle[*].Color}", s, "red green", false},
        {"allarray", "{.Book[*].Author}", s, "Nigel Rees Evelyn Waugh Herman Melville", false},
        {"recurfields", "{..Price}", s, "8.95 12.99 8.99 19.95 20.01", false},
        {"recurdotfields", "{...Price}", s, "8.95 12.99 8.99 19.95 20.01", false},
        {"superrecurfields", "{............................................................Price}",
         s, "invalid multiple recursive descent", true},
        {"allstructsSlice", "{.Bicycle}", s,
         "[{\"Color\":\"red\",\"IsNew\":true,\"Price\":19.95},"
         "{\"Color\":\"green\",\"IsNew\":false,\"Price\":20.01}]",
         false},
        {"lastarray", "{.Book[-1:]}", s,
         "{\"Author\":\"Herman Melville\",\"Category\":\"fiction\",\"Price\":8.99,"
         "\"Title\":\"Moby Dick\"}",
         false},
        {"recurarray", "{..Book[2]}", s,
         "{\"Author\":\"Herman Melville\",\"Category\":\"fiction\",\"Price\":8.99,"
         "\"Title\":\"Moby Dick\"}",
         false},
        {"bool", "{.Bicycle[?(@.IsNew==true)]}", s,
         "{\"Color\":\"red\",\"IsNew\":true,\"Price\":19.95}", false},
        {"invalid identifier", "{hello}", s, "unrecognized identifier hello", true},
        {"nonexistent field", "{.hello}", s, "hello is not found", true},
        {"invalid array", "{.Labels[0]}", s, "map[string]interface {} is not array or slice", true},
        {"invalid filter operator", "{.Book[?(@.Price<>10)]}", s, "unrecognized filter operator <>",
         true},
        {"float against int", "{.Book[?(@.Price<10)].Title}", s,
         "incompatible types for comparison", true},
        {"float against float", "{.Book[?(@.Price<10.0)].Title}", s,
         "Sayings of the Centurey Moby Dick", false},
        {"allfields", "{range .Bicycle[*]}{ \"{\" }{ @.* }{ \"} \" }{end}", s,
         "{red 19.95 true} {green 20.01 false} ", false},
        {"allstructs", "{range .Bicycle[*]}{ @ }{ \" \" }{end}", s,
         "{\"Color\":\"red\",\"IsNew\":true,\"Price\":19.95} "
         "{\"Color\":\"green\",\"IsNew\":false,\"Price\":20.01} ",
         false},
        {"redundant end", "{range .Labels.*}{@}{end}{end}", s, "not in range, nothing to end",
         true},
    };
    RUN(cases, false);
    const jp_case_t missing[] = {{"nonexistent field allowed", "{.hello}", s, "", false}};
    RUN(missing, true);
}

static const char *nodes_json =
    "{\"kind\":\"List\",\"items\":[{\"kind\":\"None\",\"metadata\":{\"name\":\"127.0.0.1\","
    "\"labels\":{\"kubernetes.io/hostname\":\"127.0.0.1\"}},\"status\":{\"capacity\":{\"cpu\":"
    "\"4\"},\"ready\":true,\"addresses\":[{\"type\":\"LegacyHostIP\",\"address\":\"127.0.0.1\"}]"
    "}},{\"kind\":\"None\",\"metadata\":{\"name\":\"127.0.0.2\",\"labels\":{\"kubernetes.io/"
    "hostname\":\"127.0.0.2\"}},\"status\":{\"capacity\":{\"cpu\":\"8\"},\"ready\":false,"
    "\"addresses\":[{\"type\":\"LegacyHostIP\",\"address\":\"127.0.0.2\"},{\"type\":\"another\","
    "\"address\":\"127.0.0.3\"}]}}],\"users\":[{\"name\":\"myself\",\"user\":{}},{\"name\":"
    "\"e2e\",\"user\":{\"username\":\"admin\",\"password\":\"secret\"}}]}";

/* TestJSONInput and TestKubernetes */
static void
test_kubernetes(void)
{
    const char *pts = "[{\"id\":\"i1\",\"x\":4,\"y\":-5},{\"id\":\"i2\",\"x\":-2,\"y\":-5,\"z\":1},"
                      "{\"id\":\"i3\",\"x\":8,\"y\":3},{\"id\":\"i4\",\"x\":-6,\"y\":-1},"
                      "{\"id\":\"i5\",\"x\":0,\"y\":2,\"z\":1},{\"id\":\"i6\",\"x\":1,\"y\":4}]";
    const char *n = nodes_json;
    const jp_case_t cases[] = {
        {"exists filter", "{[?(@.z)].id}", pts, "i2 i5", false},
        {"range item", "{range .items[*]}{.metadata.name}, {end}{.kind}", n,
         "127.0.0.1, 127.0.0.2, List", false},
        {"range item with quote", "{range .items[*]}{.metadata.name}{\"\\t\"}{end}", n,
         "127.0.0.1\t127.0.0.2\t", false},
        {"double range", "{range .items[*]}{range .status.addresses[*]}{.address}, {end}{end}", n,
         "127.0.0.1, 127.0.0.2, 127.0.0.3, ", false},
        {"range nodes capacity", "{range .items[*]}[{.metadata.name}, {.status.capacity}] {end}", n,
         "[127.0.0.1, {\"cpu\":\"4\"}] [127.0.0.2, {\"cpu\":\"8\"}] ", false},
        {"bracket key", "{[0]['id']}", pts, "i1", false},
        {"range addresss", "{.items[*].status.addresses[*].address}", n,
         "127.0.0.1 127.0.0.2 127.0.0.3", false},
        {"item name", "{.items[*].metadata.name}", n, "127.0.0.1 127.0.0.2", false},
        {"union nodes capacity", "{.items[*]['metadata.name', 'status.capacity']}", n,
         "127.0.0.1 127.0.0.2 {\"cpu\":\"4\"} {\"cpu\":\"8\"}", false},
        {"user password", "{.users[?(@.name==\"e2e\")].user.password}", n, "secret", false},
        {"hostname", "{.items[0].metadata.labels.kubernetes\\.io/hostname}", n, "127.0.0.1", false},
        {"hostname filter",
         "{.items[?(@.metadata.labels.kubernetes\\.io/hostname==\"127.0.0.1\")].kind}", n, "None",
         false},
        {"bool item", "{.items[?(@..ready==true)].metadata.name}", n, "127.0.0.1", false},
        {"recursive name", "{..name}", n, "127.0.0.1 127.0.0.2 myself e2e", false},
        {"text between actions", "{.kind}: {.items[1].metadata.name}", n, "List: 127.0.0.2", false},
    };
    RUN(cases, false);
}

/* TestEmptyRange and TestNestedRanges */
static void
test_ranges(void)
{
    const char *nested =
        "{\"items\":[{\"metadata\":{\"name\":\"pod1\"},\"spec\":{\"containers\":["
        "{\"name\":\"foo\",\"another\":[{\"name\":\"value1\"},{\"name\":\"value2\"}]},"
        "{\"name\":\"bar\",\"another\":[{\"name\":\"value1\"},{\"name\":\"value2\"}]}]}},"
        "{\"metadata\":{\"name\":\"pod2\"},\"spec\":{\"containers\":[{\"name\":\"baz\","
        "\"another\":[{\"name\":\"value1\"},{\"name\":\"value2\"}]}]}}]}";
    const jp_case_t empty[] = {
        {"empty range", "{range .items[*]}{.metadata.name}{end}", "{\"items\":[]}", "", false},
        {"empty nested range",
         "{range .items[*]}{.metadata.name}{\":\"}{range @.spec.containers[*]}{.name}{\",\"}"
         "{end}{\"+\"}{end}",
         "{\"items\":[]}", "", false},
    };
    const jp_case_t cases[] = {
        {"nested range with a trailing newline",
         "{range .items[*]}{.metadata.name}{\":\"}{range @.spec.containers[*]}{.name}{\",\"}"
         "{end}{\"+\"}{end}",
         nested, "pod1:foo,bar,+pod2:baz,+", false},
        {"nested range within another nested range",
         "{range .items[*]}{.metadata.name}{\"~\"}{range @.spec.containers[*]}{.name}{\":\"}"
         "{range @.another[*]}{.name}{\",\"}{end}{\"+\"}{end}{\"#\"}{end}",
         nested, "pod1~foo:value1,value2,+bar:value1,value2,+#pod2~baz:value1,value2,+#", false},
        {"two nested ranges at the same level",
         "{range .items[*]}{.metadata.name}{\"\\t\"}{range @.spec.containers[*]}{.name}{\" \"}"
         "{end}{\"\\t\"}{range @.spec.containers[*]}{.name}{\" \"}{end}{\"\\n\"}{end}",
         nested, "pod1\tfoo bar \tfoo bar \npod2\tbaz \tbaz \n", false},
    };
    RUN(empty, true);
    RUN(cases, false);
}

/* TestFilterPartialMatchesSometimesMissingAnnotations */
static void
test_partial_filter(void)
{
    const char *pods = "{\"kind\":\"List\",\"items\":[{\"kind\":\"Pod\",\"metadata\":{\"name\":"
                       "\"pod1\",\"annotations\":{\"color\":\"blue\"}}},{\"kind\":\"Pod\","
                       "\"metadata\":{\"name\":\"pod2\"}},{\"kind\":\"Pod\",\"metadata\":{"
                       "\"name\":\"pod3\",\"annotations\":{\"color\":\"green\"}}},{\"kind\":"
                       "\"Pod\",\"metadata\":{\"name\":\"pod4\",\"annotations\":{\"color\":"
                       "\"blue\"}}}]}";
    const char *t = "{.items[?(@.metadata.annotations.color==\"blue\")].metadata.name}";
    const jp_case_t tolerate[] = {{"filter tolerating missing items", t, pods, "pod1 pod4", false}};
    const jp_case_t strict[] = {
        {"filter failing on missing items", t, pods, "annotations is not found", true}};
    RUN(tolerate, true);
    RUN(strict, false);
}

/* TestNegativeIndex and TestStep */
static void
test_indexes(void)
{
    const char *c = "{\"spec\":{\"containers\":[{\"name\":\"fake0\"},{\"name\":\"fake1\"},"
                    "{\"name\":\"fake2\"},{\"name\":\"fake3\"}]}}";
    const char *six = "{\"spec\":{\"containers\":[{\"name\":\"fake0\"},{\"name\":\"fake1\"},"
                      "{\"name\":\"fake2\"},{\"name\":\"fake3\"},{\"name\":\"fake4\"},"
                      "{\"name\":\"fake5\"}]}}";
    const jp_case_t cases[] = {
        {"containers[0]", "{.spec.containers[0].name}", c, "fake0", false},
        {"containers[0:0]", "{.spec.containers[0:0].name}", c, "", false},
        {"containers[0:-1]", "{.spec.containers[0:-1].name}", c, "fake0 fake1 fake2", false},
        {"containers[-1:0]", "{.spec.containers[-1:0].name}", c,
         "starting index 3 is greater than ending index 0", true},
        {"containers[-1]", "{.spec.containers[-1].name}", c, "fake3", false},
        {"containers[-1:]", "{.spec.containers[-1:].name}", c, "fake3", false},
        {"containers[-2]", "{.spec.containers[-2].name}", c, "fake2", false},
        {"containers[-2:]", "{.spec.containers[-2:].name}", c, "fake2 fake3", false},
        {"containers[-3]", "{.spec.containers[-3].name}", c, "fake1", false},
        {"containers[-4]", "{.spec.containers[-4].name}", c, "fake0", false},
        {"containers[-4:]", "{.spec.containers[-4:].name}", c, "fake0 fake1 fake2 fake3", false},
        {"containers[-5]", "{.spec.containers[-5].name}", c,
         "array index out of bounds: index -1, length 4", true},
        {"containers[5:5]", "{.spec.containers[5:5].name}", c, "", false},
        {"containers[-5:-5]", "{.spec.containers[-5:-5].name}", c, "", false},
        {"containers[3:1]", "{.spec.containers[3:1].name}", c,
         "starting index 3 is greater than ending index 1", true},
        {"containers[-1:-2]", "{.spec.containers[-1:-2].name}", c,
         "starting index 3 is greater than ending index 2", true},
        {"containers[4]", "{.spec.containers[4].name}", c,
         "array index out of bounds: index 4, length 4", true},
        {"containers[0:]", "{.spec.containers[0:].name}", six,
         "fake0 fake1 fake2 fake3 fake4 fake5", false},
        {"containers[0:6:]", "{.spec.containers[0:6:].name}", six,
         "fake0 fake1 fake2 fake3 fake4 fake5", false},
        {"containers[0:6:1]", "{.spec.containers[0:6:1].name}", six,
         "fake0 fake1 fake2 fake3 fake4 fake5", false},
        {"containers[0:6:0]", "{.spec.containers[0:6:0].name}", six, "step must be > 0", true},
        {"containers[0:6:-1]", "{.spec.containers[0:6:-1].name}", six, "step must be > 0", true},
        {"containers[1:4:2]", "{.spec.containers[1:4:2].name}", six, "fake1 fake3", false},
        {"containers[1:4:3]", "{.spec.containers[1:4:3].name}", six, "fake1", false},
        {"containers[1:4:4]", "{.spec.containers[1:4:4].name}", six, "fake1", false},
        {"containers[0:6:2]", "{.spec.containers[0:6:2].name}", six, "fake0 fake2 fake4", false},
        {"containers[0:6:3]", "{.spec.containers[0:6:3].name}", six, "fake0 fake3", false},
        {"containers[0:6:5]", "{.spec.containers[0:6:5].name}", six, "fake0 fake5", false},
        {"containers[0:6:6]", "{.spec.containers[0:6:6].name}", six, "fake0", false},
        {"containers[0:7]", "{.spec.containers[0:7].name}", six,
         "array index out of bounds: index 6, length 6", true},
    };
    RUN(cases, false);
}

/* Filters over the condition lists printer columns read, and comparisons of each kind. */
static void
test_filters(void)
{
    const char *conds =
        "{\"status\":{\"conditions\":[{\"type\":\"Issuing\",\"status\":\"False\"},"
        "{\"type\":\"Ready\",\"status\":\"True\",\"observedGeneration\":3}]},\"n\":[1,5,9],"
        "\"f\":[0.5,1.5],\"s\":[\"a\",\"b\",\"c\"],\"b\":[true,false],\"mix\":[1,\"1\",null]}";
    const jp_case_t cases[] = {
        {"ready status", "{.status.conditions[?(@.type==\"Ready\")].status}", conds, "True", false},
        {"single quotes", "{.status.conditions[?(@.type=='Issuing')].status}", conds, "False",
         false},
        {"not equal", "{.status.conditions[?(@.type!=\"Ready\")].type}", conds, "Issuing", false},
        {"spaces around the operator", "{.status.conditions[?(@.type == \"Ready\")].status}", conds,
         "True", false},
        {"existence", "{.status.conditions[?(@.observedGeneration)].type}", conds, "Ready", false},
        {"ints <", "{.n[?(@<5)]}", conds, "1", false},
        {"ints <=", "{.n[?(@<=5)]}", conds, "1 5", false},
        {"ints >", "{.n[?(@>5)]}", conds, "9", false},
        {"ints >=", "{.n[?(@>=5)]}", conds, "5 9", false},
        {"ints ==", "{.n[?(@==9)]}", conds, "9", false},
        {"floats", "{.f[?(@>1.0)]}", conds, "1.5", false},
        {"strings <", "{.s[?(@<\"b\")]}", conds, "a", false},
        {"strings >=", "{.s[?(@>=\"b\")]}", conds, "b c", false},
        {"bools ==", "{.b[?(@==false)]}", conds, "false", false},
        {"bools <", "{.b[?(@<true)]}", conds, "invalid type for comparison", true},
        {"int against string", "{.mix[?(@==1)]}", conds, "incompatible types for comparison", true},
        {"null", "{.mix[?(@==\"x\")]}", "{\"mix\":[null]}", "invalid type for comparison", true},
        {"not a list", "{.status[?(@.x)]}", conds,
         "map[conditions:[map[status:False type:Issuing] map[observedGeneration:3 status:True "
         "type:Ready]]] is not array or slice and cannot be filtered",
         true},
        {"two values", "{.status.conditions[?(@.*==\"x\")]}", conds,
         "can only compare one element at a time", true},
    };
    RUN(cases, false);
    const jp_case_t missing[] = {
        {"no status condition", "{.status.conditions[?(@.type==\"Ready\")].status}",
         "{\"status\":{}}", "", false},
        {"wildcard", "{.status.*}", "{\"status\":{\"a\":1,\"b\":\"x\"}}", "1 x", false},
        {"null skipped", "{.a.b}", "{\"a\":null}", "", false},
    };
    RUN(missing, true);
}

/* Keys in brackets: kube parses 'a.b' as the path .a.b and takes no double quotes. */
static void
test_bracket_keys(void)
{
    const char *d = "{\"a\":{\"b\":1},\"a.b\":2,\"x y\":3}";
    const jp_case_t cases[] = {
        {"quoted key is a path", "{['a.b']}", d, "1", false},
        {"escaped dot", "{.a\\.b}", d, "2", false},
        {"double quotes are no key", "{[\"a\"]}", d, "invalid array index \"a\"", true},
        {"index of an object", "{.a[0]}", d, "map[string]interface {} is not array or slice", true},
        {"index of a string", "{.a.b[0]}", "{\"a\":{\"b\":\"s\"}}", "string is not array or slice",
         true},
    };
    RUN(cases, false);
}

/* TestFailParser, and the other messages of the parser. */
static void
test_parse_errors(void)
{
    static const struct {
        const char *text, *want;
    } cases[] = {
        {"{.hello", "unclosed action"},
        {"{*}", "unrecognized character in action: U+002A '*'"},
        {"{+12.3.0}", "cannot parse number +12.3.0"},
        {"{[1}", "unterminated array"},
        {"{[?(.price]}", "unterminated filter"},
        {"{........}", "invalid multiple recursive descent"},
        {"{\\\\\\}", "unrecognized character in action: U+005C '\\'"},
        {"{.a\n}", "unclosed action"},
        {"{\t.a}", "unrecognized character in action: U+0009"},
        {"{[x]}", "invalid array index x"},
        {"{[1:2:3:4]}", "invalid array index 1:2:3:4"},
        {"{[-]}", "array index - is not a number"},
        {"{[99999999999999999999]}", "array index 99999999999999999999 is not a number"},
        {"{[?(@.a==1)x]}", "unclosed array expect ]"},
        {"{\"abc}", "unterminated quoted string"},
        {"{\"a\\q\"}", "unquote string \"a\\q\" error invalid syntax"},
        {"{[?(@.a==\"x)]}", "unterminated filter"},
        {"{[1, x]}", "invalid array index x"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char err[256] = "";
        gw_jsonpath_t *p = gw_jsonpath_parse(cases[i].text, err, sizeof(err));
        char name[64];
        snprintf(name, sizeof(name), "parse error %zu: kube's message", i);
        tap_ok(p == NULL, "parse error %zu does not parse", i);
        tap_is_str(err, cases[i].want, name);
        gw_jsonpath_free(p);
    }
}

/* A node tree in the spirit of client-go's node String(). */
static void
dump(const gw_jp__node_t *n, gw_buf_t *b)
{
    static const char *names[] = {"List",  "Text", "Field",    "Array",     "Filter", "Int",
                                  "Float", "Bool", "Wildcard", "Recursive", "Union",  "Identifier"};
    gw_buf_str(b, b->len > 0 ? " " : "");
    gw_buf_str(b, names[n->kind]);
    if (n->kind == GW_JP_FIELD || n->kind == GW_JP_IDENTIFIER || n->kind == GW_JP_FILTER)
        gw_buf_printf(b, "(%s)", n->name);
    if (n->kind == GW_JP_TEXT)
        gw_buf_printf(b, "(%s)", json_string_value(n->literal));
    if (n->kind == GW_JP_INT)
        gw_buf_printf(b, "(%lld)", (long long)json_integer_value(n->literal));
    if (n->kind == GW_JP_ARRAY) {
        for (int i = 0; i < 3; i++)
            gw_buf_printf(b, "%s%lld%s%s", i ? "," : "[", n->params[i].value,
                          n->params[i].known ? "k" : "", n->params[i].derived ? "d" : "");
        gw_buf_char(b, ']');
    }
    for (size_t i = 0; i < n->n_nodes; i++)
        dump(n->nodes[i], b);
}

/* TestParser */
static void
test_parse_trees(void)
{
    static const struct {
        const char *text, *want;
    } cases[] = {
        {"hello jsonpath", "Text(hello jsonpath)"},
        {"hello {.jsonpath}", "Text(hello ) List Field(jsonpath)"},
        {"hello {['jsonpath']}", "Text(hello ) List Field(jsonpath)"},
        {"{\"{\"}", "List Text({)"},
        {"{[1:3]}", "List Array[1k,3k,0]"},
        {"{.book[*].author}", "List Field(book) Array[0,0,0] Field(author)"},
        {"{.bicycle.*}", "List Field(bicycle) Wildcard"},
        {"{[?(@.price<3)]}", "List Filter(<) List Field(price) List Int(3)"},
        {"{..}", "List Recursive"},
        {"{..price}", "List Recursive Field(price)"},
        {"{['book.price']}", "List Field(book) Field(price)"},
        {"{['bicycle.price', 3, 'book.price']}",
         "List Union List Field(bicycle) Field(price) List Array[3k,4kd,0] List Field(book) "
         "Field(price)"},
        {"{range .items}{.name},{end}",
         "List Identifier(range) Field(items) List Field(name) Text(,) List Identifier(end)"},
        {"{[?(@.status.nodeInfo.osImage == \"()\")]}",
         "List Filter(==) List Field(status) Field(nodeInfo) Field(osImage) List Text(())"},
        {"{[?(@.status.nodeInfo.osImage == \"(\\\"\\\")\")]}",
         "List Filter(==) List Field(status) Field(nodeInfo) Field(osImage) List Text((\"\"))"},
        {"{[?(@.test == \"())(\")]}", "List Filter(==) List Field(test) List Text(())()"},
        {"{[?(@.status.nodeInfo.osImage == 'Linux')]}",
         "List Filter(==) List Field(status) Field(nodeInfo) Field(osImage) List Text(Linux)"},
        {"{[?(@.status.nodeInfo.osImage == \"{[()]}\")]}",
         "List Filter(==) List Field(status) Field(nodeInfo) Field(osImage) List Text({[()]})"},
        {"{[?(@.status.nodeInfo.osImage == \"''\")]}",
         "List Filter(==) List Field(status) Field(nodeInfo) Field(osImage) List Text('')"},
        {"{[?(@.status.nodeInfo.osImage == '\"\"')]}",
         "List Filter(==) List Field(status) Field(nodeInfo) Field(osImage) List Text(\"\")"},
        {"{[?(@.status.nodeInfo.osImage == '\\\\\\'')]}",
         "List Filter(==) List Field(status) Field(nodeInfo) Field(osImage) List Text(\\')"},
        {"{[-5:]}", "List Array[-5k,0,0]"},
        {"{[-1]}", "List Array[-1k,0kd,0]"},
        {"{[1:-1]}", "List Array[1k,-1k,0]"},
        {"{.status.conditions[?(@.type==\"Ready\")].status}",
         "List Field(status) Field(conditions) Filter(==) List Field(type) List Text(Ready) "
         "Field(status)"},
        {"{[?(@.x)]}", "List Filter(exists) List Field(x) List"},
        {"{.a\\.b}", "List Field(a.b)"},
        {"{true}", "List Bool"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char err[256] = "";
        gw_buf_t b = {0};
        gw_jsonpath_t *p = gw_jsonpath_parse(cases[i].text, err, sizeof(err));
        if (!tap_ok(p != NULL, "%s parses", cases[i].text)) {
            tap_diag("error: %s", err);
            continue;
        }
        for (size_t k = 0; k < p->root->n_nodes; k++)
            dump(p->root->nodes[k], &b);
        tap_is_str(gw_buf_cstr(&b), cases[i].want, cases[i].text);
        gw_buf_free(&b);
        gw_jsonpath_free(p);
    }
}

/* PrintResults' text of one value. */
static void
test_text(void)
{
    static const struct {
        const char *json, *want;
    } cases[] = {
        {"\"plain\"", "plain"},
        {"42", "42"},
        {"-7", "-7"},
        {"0.5", "0.5"},
        {"1e6", "1e+06"},
        {"123456.0", "123456"},
        {"0.0001", "0.0001"},
        {"0.00001", "1e-05"},
        {"true", "true"},
        {"null", "<nil>"},
        {"[1,\"a\",null,2.5]", "[1,\"a\",null,2.5]"},
        {"{\"b\":1,\"a\":{\"c\":[]}}", "{\"a\":{\"c\":[]},\"b\":1}"},
        {"{\"h\":\"<a&b>\\n\\t\\u0001\\u2028\"}",
         "{\"h\":\"\\u003ca\\u0026b\\u003e\\n\\t\\u0001\\u2028\"}"},
        {"[1e21,1e-7,1e20,0.000001]", "[1e+21,1e-7,100000000000000000000,0.000001]"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        json_t *v = json_loads(cases[i].json, JSON_DECODE_ANY, NULL);
        char *got = gw_jsonpath_text(v);
        tap_is_str(got, cases[i].want, cases[i].json);
        free(got);
        json_decref(v);
    }
    char *none = gw_jsonpath_text(NULL);
    tap_is_str(none, "<no value>", "no value");
    free(none);
}

/* A template is evaluated many times; results borrow from the data and the template. */
static void
test_reuse(void)
{
    gw_jsonpath_t *p = gw_jsonpath_parse("{.a} and {\"lit\"}", NULL, 0);
    gw_jsonpath_results_t r = {0};
    char err[128];
    tap_ok(p != NULL && gw_jsonpath_parts(p) == 3, "three parts");
    for (int i = 0; i < 3; i++) {
        json_t *d = json_pack("{s:i}", "a", i);
        int rc = gw_jsonpath_find(p, d, false, &r, err, sizeof(err));
        tap_ok(rc == 0 && r.n_parts == 3 && r.end[0] == 1 && r.end[1] == 2 && r.end[2] == 3 &&
                   json_integer_value(r.values[0]) == i &&
                   strcmp(json_string_value(r.values[2]), "lit") == 0,
               "evaluation %d", i);
        json_decref(d);
    }
    json_t *bad = json_pack("{}");
    tap_ok(gw_jsonpath_find(p, bad, false, &r, err, sizeof(err)) != 0 && r.n_values == 0 &&
               r.n_parts == 0,
           "a failed evaluation holds nothing");
    tap_is_str(err, "a is not found", "its message");
    json_decref(bad);
    gw_jsonpath_results_free(&r);
    gw_jsonpath_free(p);
}

int
main(void)
{
    test_types();
    test_store();
    test_kubernetes();
    test_ranges();
    test_partial_filter();
    test_indexes();
    test_filters();
    test_bracket_keys();
    test_parse_errors();
    test_parse_trees();
    test_text();
    test_reuse();
    return tap_done();
}
