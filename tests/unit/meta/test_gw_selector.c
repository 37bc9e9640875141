/* Unit tests for gateway/meta/gw_selector: label selector parsing (kube's grammar and
 * messages), matching, field selectors, and the string form of a metav1.LabelSelector. */
#include <string.h>

#include "gw_err.h"
#include "gw_selector.h"
#include "tap.h"

static json_t *labels;

/* Parse sel and match it against `labels`: 1 match, 0 no match, -1 parse error. */
static int
match(const char *sel)
{
    gw_selector_t s;
    char err[256];
    int m;

    if (gw_label_selector_parse(sel, &s, err, sizeof(err)) != 0)
        return -1;
    m = gw_label_selector_match(&s, labels);
    gw_selector_clear(&s);
    return m;
}

static void
test_matching(void)
{
    static const struct {
        const char *sel;
        int want;
    } cases[] = {
        {"", 1},
        {"app=web", 1},
        {"app==web", 1},
        {"app=db", 0},
        {"app!=db", 1},
        {"app!=web", 0},
        {"missing!=x", 1},
        {"app in (web,db)", 1},
        {"app in (db)", 0},
        {"app notin (db)", 1},
        {"app notin (web)", 0},
        {"missing notin (a)", 1},
        {"missing in (a)", 0},
        {"app", 1},
        {"missing", 0},
        {"!missing", 1},
        {"!app", 0},
        {"app=web,tier=front", 1},
        {"app=web,tier=back", 0},
        {" app = web , tier in ( front ) ", 1},
        {"replicas>2", 1},
        {"replicas>3", 0},
        {"replicas<4", 1},
        {"app>1", 0},
        {"empty=", 1},
        {"empty in ()", 1},
        {"empty in (,x)", 1},
        {"in=in", 0},
        {"x in (in,notin)", 0},
    };

    labels =
        json_pack("{s:s,s:s,s:s,s:s}", "app", "web", "tier", "front", "replicas", "3", "empty", "");
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        tap_is_int(match(cases[i].sel), cases[i].want, cases[i].sel);
    json_decref(labels);
    labels = NULL;
    tap_is_int(match("!a"), 1, "no labels at all: !a matches");
    tap_is_int(match("a!=b"), 1, "no labels at all: a!=b matches");
    tap_is_int(match("a"), 0, "no labels at all: a does not match");
}

static void
test_errors(void)
{
    static const struct {
        const char *sel, *want;
    } cases[] = {
        {"a in b", "unable to parse requirement: found 'b' expected: '('"},
        {"a=b=c", "found '=', expected: ',' or 'end of string'"},
        {"a,", "found '', expected: identifier after ','"},
        {",a", "found ',', expected: !, identifier, or 'end of string'"},
        {"a in (b", "unable to parse requirement: found '', expected: ',' or ')'"},
        {"a in (b c)", "unable to parse requirement: found 'c', expected: ',' or ')'"},
        {"a foo b", "unable to parse requirement: found 'foo', expected: in, notin, =, ==, !=, "
                    "gt, lt"},
        {"a>b", "unable to parse requirement: values[0]: Invalid value: \"b\": for 'Gt', 'Lt' "
                "operators, the value must be an integer"},
        {"!=a", "found '!=', expected: !, identifier, or 'end of string'"},
        {"a=(", "unable to parse requirement: found '(', expected: identifier"},
        {"!a=b", "found '=', expected: ',' or 'end of string'"},
    };
    gw_selector_t s;
    char err[512];

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int rc = gw_label_selector_parse(cases[i].sel, &s, err, sizeof(err));
        tap_is_int(rc, GW_EINVAL, cases[i].sel);
        tap_is_str(err, cases[i].want, "... message");
        tap_ok(s.n == 0 && s.reqs == NULL, "... leaves an empty selector");
    }
    tap_is_int(gw_label_selector_parse("-bad=x", &s, err, sizeof(err)), GW_EINVAL,
               "a key that is not a qualified name");
    tap_ok(strncmp(err, "unable to parse requirement: Invalid value: \"-bad\": ", 52) == 0,
           "... names the key (%s)", err);
    tap_is_int(gw_label_selector_parse("a=-x", &s, err, sizeof(err)), GW_EINVAL,
               "a value that is not a label value");
    tap_ok(strstr(err, "values[0][a]: Invalid value: \"-x\"") != NULL, "... names it (%s)", err);
}

static void
test_structure(void)
{
    gw_selector_t s;
    char err[256];

    tap_is_int(gw_label_selector_parse("z=1,a in (c,b,c),m", &s, err, sizeof(err)), 0,
               "parse a three-part selector");
    tap_is_int(s.n, 3, "three requirements");
    tap_is_str(s.reqs[0].key, "a", "sorted by key: a first");
    tap_is_int(s.reqs[0].op, GW_SEL_IN, "a is a set requirement");
    tap_is_int(s.reqs[0].n_values, 2, "duplicate values collapse");
    tap_is_str(s.reqs[0].values[0], "b", "values sorted");
    tap_is_int(s.reqs[1].op, GW_SEL_EXISTS, "m exists");
    tap_is_int(s.reqs[2].op, GW_SEL_EQUALS, "z equals");
    gw_selector_clear(&s);
    tap_ok(s.n == 0, "clear empties it");
}

static const char *
field_of(const char *field, void *arg)
{
    const char *const *kv = arg;

    for (size_t i = 0; kv[i] != NULL; i += 2)
        if (strcmp(kv[i], field) == 0)
            return kv[i + 1];
    return NULL;
}

static int
fmatch(const char *sel, const char *const *kv)
{
    gw_selector_t s;
    char err[256];
    int m;

    if (gw_field_selector_parse(sel, &s, err, sizeof(err)) != 0)
        return -1;
    m = gw_field_selector_match(&s, field_of, (void *)kv);
    gw_selector_clear(&s);
    return m;
}

static void
test_fields(void)
{
    static const char *const obj[] = {"metadata.name", "a,b=c", "metadata.namespace", "ns", NULL};
    gw_selector_t s;
    char err[256];

    tap_is_int(fmatch("", obj), 1, "empty field selector matches");
    tap_is_int(fmatch("metadata.namespace=ns", obj), 1, "namespace=ns");
    tap_is_int(fmatch("metadata.namespace==ns", obj), 1, "namespace==ns");
    tap_is_int(fmatch("metadata.namespace!=ns", obj), 0, "namespace!=ns");
    tap_is_int(fmatch("metadata.name=a\\,b\\=c", obj), 1, "escaped ',' and '='");
    tap_is_int(fmatch("metadata.name=a\\,b\\=c,metadata.namespace=x", obj), 0,
               "two terms, one false");
    tap_is_int(fmatch("spec.nodeName=", obj), 1, "an absent field compares as empty");
    tap_is_int(fmatch("spec.nodeName!=", obj), 0, "... and so is not != empty");
    tap_is_int(gw_field_selector_parse("metadata.name", &s, err, sizeof(err)), GW_EINVAL,
               "a term without an operator");
    tap_is_str(err, "invalid selector: 'metadata.name'; can't understand 'metadata.name'",
               "... kube's message");
    tap_is_int(gw_field_selector_parse("a=b\\x", &s, err, sizeof(err)), GW_EINVAL,
               "an unknown escape");
    tap_is_str(err, "invalid field selector: invalid escape sequence: \\x", "... kube's message");
    tap_is_int(gw_field_selector_parse("a=b=c", &s, err, sizeof(err)), GW_EINVAL,
               "a bare '=' in the value");
    tap_is_str(err,
               "invalid field selector: unescaped character in value: =", "... kube's message");
}

static void
check_string(const char *json, const char *want, const char *name)
{
    json_t *doc = json_loads(json, 0, NULL);
    char *got = gw_label_selector_string(doc);

    tap_is_str(got, want, name);
    free(got);
    json_decref(doc);
}

static void
test_selector_string(void)
{
    check_string("{\"matchLabels\":{\"b\":\"2\",\"a\":\"1\"}}", "a=1,b=2", "matchLabels, sorted");
    check_string("{}", "", "empty selector");
    check_string("{\"matchExpressions\":[{\"key\":\"t\",\"operator\":\"In\",\"values\":[\"y\","
                 "\"x\"]},{\"key\":\"o\",\"operator\":\"DoesNotExist\"},{\"key\":\"e\","
                 "\"operator\":\"Exists\"},{\"key\":\"n\",\"operator\":\"NotIn\",\"values\":"
                 "[\"q\"]}],\"matchLabels\":{\"app\":\"w\"}}",
                 "app=w,e,n notin (q),!o,t in (x,y)", "expressions and labels");
    check_string("{\"app\":\"rc\"}", "app=rc", "a plain map (replication controller)");
    check_string("{\"matchExpressions\":[{\"key\":\"t\",\"operator\":\"Bad\"}]}", NULL,
                 "unknown operator");
    check_string("{\"matchExpressions\":[{\"key\":\"t\",\"operator\":\"In\"}]}", NULL,
                 "In without values");
}

int
main(void)
{
    test_matching();
    test_errors();
    test_structure();
    test_fields();
    test_selector_string();
    return tap_done();
}
