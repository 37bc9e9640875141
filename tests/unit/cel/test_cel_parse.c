/*
 * Parser tests: the tree built for each construct of the grammar (rendered by
 * cel__node_dump), macro expansion, operator precedence and associativity, balanced logic
 * chains, and error positions and limits.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cel.h"
#include "cel_int.h"
#include "tap.h"

static const cel__parse_opts_t opts = {
    .macros = true, .max_expr_len = 100000, .max_depth = 250, .max_height = 1000};

static const struct {
    const char *src;
    const char *tree;
} trees[] = {
    {"1", "1"},
    {"-1", "-1"},
    {"- 1", "-1"},
    {"--1", "-_(-1)"},
    {"-x", "-_(x)"},
    {"-(1)", "-_(1)"},
    {"1u", "1u"},
    {"1.5", "1.5d"},
    {"-1.5", "-1.5d"},
    {"'a'", "\"a\""},
    {"b'a'", "b\"a\""},
    {"true", "true"},
    {"null", "null"},
    {"x", "x"},
    {".x", ".x"},
    {"a.b.c", "a.b.c"},
    {".a.b", ".a.b"},
    {"1 + 2 * 3", "_+_(1, _*_(2, 3))"},
    {"(1 + 2) * 3", "_*_(_+_(1, 2), 3)"},
    {"1 - 2 - 3", "_-_(_-_(1, 2), 3)"},
    {"1 / 2 % 3", "_%_(_/_(1, 2), 3)"},
    {"a < b == c > d", "_>_(_==_(_<_(a, b), c), d)"},
    {"a in b", "@in(a, b)"},
    {"a <= b != c >= d", "_>=_(_!=_(_<=_(a, b), c), d)"},
    {"!a", "!_(a)"},
    {"!!a", "!_(!_(a))"},
    {"a && b || c", "_||_(_&&_(a, b), c)"},
    {"a || b && c", "_||_(a, _&&_(b, c))"},
    {"a || b || c || d", "_||_(_||_(a, b), _||_(c, d))"},
    {"a && b && c", "_&&_(a, _&&_(b, c))"},
    {"a ? b : c", "_?_:_(a, b, c)"},
    {"a ? b : c ? d : e", "_?_:_(a, b, _?_:_(c, d, e))"},
    {"a || b ? c : d", "_?_:_(_||_(a, b), c, d)"},
    {"a[0]", "_[_](a, 0)"},
    {"a[0][1]", "_[_](_[_](a, 0), 1)"},
    {"a.b[0].c", "_[_](a.b, 0).c"},
    {"a[?0]", "_[?_](a, 0)"},
    {"a.?b", "_?._(a, \"b\")"},
    {"a.?b.c", "_?._(a, \"b\").c"},
    {"a.`b-c`", "a.b-c"},
    {"f()", "f()"},
    {"f(1, 2)", "f(1, 2)"},
    {"a.f(1)", "a.f(1)"},
    {"a.b.f()", "a.b.f()"},
    {".f(1)", "f(1)"},
    {"[]", "[]"},
    {"[1, 2,]", "[1, 2]"},
    {"[?a, b]", "[?a, b]"},
    {"{}", "{}"},
    {"{'a': 1, 2: b,}", "{\"a\": 1, 2: b}"},
    {"{?'a': x}", "{?\"a\": x}"},
    {"T{}", "T{}"},
    {"a.b.T{f: 1, ?g: x}", "a.b.T{f: 1, ?g: x}"},
    {".T{f: 1}", ".T{f: 1}"},
    {"'\\n\\t'", "\"\\x0a\\x09\""},
    {"'''a\nb'''", "\"a\\x0ab\""},
    {"r'\\n'", "\"\\\\n\""},
    {"has(a.b)", "a.b~test-only"},
    {"has(a.b.c)", "a.b.c~test-only"},
    {"l.all(x, x > 0)", "__comprehension__(x, l, @result, true, @not_strictly_false(@result), "
                        "_&&_(@result, _>_(x, 0)), @result)"},
    {"l.exists(x, p)", "__comprehension__(x, l, @result, false, @not_strictly_false(!_(@result)), "
                       "_||_(@result, p), @result)"},
    {"l.exists_one(x, p)",
     "__comprehension__(x, l, @result, 0, true, _?_:_(p, _+_(@result, 1), @result), "
     "_==_(@result, 1))"},
    {"l.map(x, x * 2)",
     "__comprehension__(x, l, @result, [], true, _+_(@result, [_*_(x, 2)]), @result)"},
    {"l.map(x, p, t)",
     "__comprehension__(x, l, @result, [], true, _?_:_(p, _+_(@result, [t]), @result), "
     "@result)"},
    {"l.filter(x, p)",
     "__comprehension__(x, l, @result, [], true, _?_:_(p, _+_(@result, [x]), @result), "
     "@result)"},
    {"cel.bind(v, 1, v + 1)", "__comprehension__(#unused, [], v, 1, false, v, _+_(v, 1))"},
    {"o.optMap(v, v + 1)",
     "_?_:_(o.hasValue(), optional.of(__comprehension__(#unused, [], v, o.value(), false, v, "
     "_+_(v, 1))), optional.none())"},
    {"o.optFlatMap(v, f(v))",
     "_?_:_(o.hasValue(), __comprehension__(#unused, [], v, o.value(), false, v, f(v)), "
     "optional.none())"},
    {"l.map(x, y, z, w)", "l.map(x, y, z, w)"},
    {"has(a.b, c)", "has(a.b, c)"},
    {"a.has(b.c)", "a.has(b.c)"},
    {"x // comment\n + 1", "_+_(x, 1)"},
};

static void
test_trees(void)
{
    for (size_t i = 0; i < sizeof(trees) / sizeof(trees[0]); i++) {
        cel_arena_t *a = cel_arena_new();
        cel__parse_err_t err = {0};
        cel__node_t *n = cel__parse(trees[i].src, &opts, a, &err);
        tap_is_str(n ? cel__node_dump(a, n) : err.msg, trees[i].tree, trees[i].src);
        cel_arena_free(a);
    }
}

static void
test_macros_off(void)
{
    cel__parse_opts_t off = opts;
    off.macros = false;
    cel_arena_t *a = cel_arena_new();
    cel__parse_err_t err = {0};
    cel__node_t *n = cel__parse("has(a.b) && l.all(x, x)", &off, a, &err);
    tap_is_str(n ? cel__node_dump(a, n) : err.msg, "_&&_(has(a.b), l.all(x, x))",
               "macros off: plain calls");
    cel_arena_free(a);
}

/* Compile errors: line and column (from 1, in code points) and message start. */
static const struct {
    const char *src;
    int line, column;
    const char *msg;
} errors[] = {
    {"1 +", 1, 4, "Syntax error: unexpected end of input"},
    {"1 +\n2 +\n)", 3, 1, "Syntax error: unexpected ')'"},
    {"a &&\n  b.", 2, 5, "Syntax error: unexpected end of input"},
    {"'日本語' + @", 1, 9, "Syntax error: unexpected character"},
    {"'abc", 1, 1, "Syntax error: unterminated string literal"},
    {"'a\nb'", 1, 3, "Syntax error: newline in string literal"},
    {"'\\z'", 1, 2, "Syntax error: invalid escape sequence"},
    {"x + if", 1, 5, "reserved identifier: if"},
    {"f(1)", 1, 1, "undeclared reference to 'f'"},
    {"a.b.c(1)", 1, 4, "undeclared reference to 'c'"},
    {"[1].all(1, true)", 1, 9, "argument must be a simple name"},
    {"has(a)", 1, 5, "invalid argument to has() macro"},
    {"'x'.matches('(')", 1, 13, "error parsing regexp: missing closing ): `(`"},
    {"9223372036854775808", 1, 1, "invalid int literal"},
    {"1 + -9223372036854775809", 1, 5, "invalid int literal"},
    {"1 ? 2", 1, 6, "Syntax error: expected ':', got end of input"},
};

static void
test_errors(void)
{
    cel_env_t *env = cel_env_new();
    for (size_t i = 0; i < sizeof(errors) / sizeof(errors[0]); i++) {
        cel_program_t *prog = NULL;
        cel_issue_t issue;
        int rc = cel_compile(env, errors[i].src, &prog, &issue);
        char want[256];
        snprintf(want, sizeof(want), "ERROR: <input>:%d:%d: %s", errors[i].line, errors[i].column,
                 errors[i].msg);
        bool ok = rc == CEL_EPARSE && issue.line == errors[i].line &&
                  issue.column == errors[i].column && issue.message != NULL &&
                  strncmp(issue.message, want, strlen(want)) == 0;
        if (!tap_ok(ok, "error position: %s", errors[i].src))
            tap_diag("  got %d:%d %s", issue.line, issue.column,
                     issue.message ? issue.message : "(none)");
        cel_issue_clear(&issue);
        cel_program_free(prog);
    }
    cel_env_free(env);
}

static void
test_snippet(void)
{
    cel_env_t *env = cel_env_new();
    cel_program_t *prog;
    cel_issue_t issue;
    cel_compile(env, "a +\n  (b", &prog, &issue);
    tap_is_str(issue.message,
               "ERROR: <input>:2:5: Syntax error: expected ')', got end of input\n |   (b\n "
               "| ....^",
               "error report shows the line and a caret");
    cel_issue_clear(&issue);
    cel_env_free(env);
}

/* Builds a string of `n` copies of `unit` between `pre` and `post`. */
static char *
repeat(const char *pre, const char *unit, int n, const char *post)
{
    size_t len = strlen(pre) + strlen(unit) * (size_t)n + strlen(post) + 1;
    char *s = malloc(len);
    strcpy(s, pre);
    for (int i = 0; i < n; i++)
        strcat(s, unit);
    strcat(s, post);
    return s;
}

static void
expect_limit(const cel_env_t *env, char *src, bool ok, const char *what, const char *msg)
{
    cel_program_t *prog = NULL;
    cel_issue_t issue;
    int rc = cel_compile(env, src, &prog, &issue);
    if (ok)
        tap_ok(rc == 0, "limits: %s compiles", what);
    else
        tap_ok(rc == CEL_EPARSE && strstr(issue.message, msg) != NULL, "limits: %s refused", what);
    cel_issue_clear(&issue);
    cel_program_free(prog);
    free(src);
}

static void
test_limits(void)
{
    cel_env_t *env = cel_env_new();
    expect_limit(env, repeat("", "(", 200, "1"), false, "unbalanced nesting", "Syntax");
    char *deep = repeat("", "(", 240, "1");
    char *closed = repeat(deep, ")", 240, "");
    free(deep);
    expect_limit(env, closed, true, "240 nested parentheses", NULL);
    deep = repeat("", "[", 300, "1");
    closed = repeat(deep, "]", 300, "");
    free(deep);
    expect_limit(env, closed, false, "300 nested lists", "nesting exceeds 250");
    expect_limit(env, repeat("1", " + 1", 900, ""), true, "a sum of 900 terms", NULL);
    expect_limit(env, repeat("1", " + 1", 1200, ""), false, "a sum of 1200 terms",
                 "too deeply nested");
    expect_limit(env, repeat("a", " || a", 5000, ""), true, "5000 alternatives (balanced)", NULL);
    expect_limit(env, repeat("", "!", 2000, "true"), false, "2000 negations", "too deeply nested");
    expect_limit(env, repeat("", "-", 500, "1"), true, "500 minus signs", NULL);
    cel_env_set_limits(env, &(cel_limits_t){.max_expr_len = 10});
    expect_limit(env, repeat("", "1+", 5, "1"), false, "11 code points over a limit of 10",
                 "exceeds the limit");
    expect_limit(env, repeat("'", "é", 8, "'"), true, "10 code points (20 bytes)", NULL);
    cel_env_free(env);
}

static void
test_container(void)
{
    cel_env_t *env = cel_env_new();
    tap_is_int(cel_env_set_container(env, "a.b"), 0, "container: dotted name accepted");
    tap_is_int(cel_env_set_container(env, "a..b"), CEL_EINVAL, "container: empty part refused");
    tap_is_int(cel_env_set_container(env, "1a"), CEL_EINVAL, "container: digit start refused");
    tap_is_int(cel_env_set_container(env, ""), 0, "container: empty accepted");
    cel_env_free(env);
}

int
main(void)
{
    test_trees();
    test_macros_off();
    test_errors();
    test_snippet();
    test_limits();
    test_container();
    return tap_done();
}
