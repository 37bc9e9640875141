/*
 * cel-eval: evaluate CEL expressions given as JSON lines on stdin.
 *
 * Request:  {"expr": "...", "bindings": {"name": Value}, "container": "...",
 *            "disable_macros": false, "declarations": {"name": "type"}, "check": false,
 *            "track_cost": false, "optimize": true, "cost_limit": n}
 * Reply:    {"value": Value} or {"error": "message"}, one line per request.
 *
 * With "declarations" (types in CEL's notation, e.g. "list(string)") the expression is type
 * checked before it runs, and type errors are compile errors with their positions. With
 * "check": true it is only checked: the reply is {"type": "...", "cost": {"min": "n", "max":
 * "n"}} (the static estimate) or {"error": "..."} with every issue. With "track_cost": true
 * the reply of an evaluation also has its cost, {"cost": "n"}, whether it gave a value or an
 * error (costs are unsigned 64-bit numbers, written as strings like proto3 JSON's uint64);
 * "cost_limit" (a positive integer, or such a string) stops an evaluation that costs more,
 * with kube-apiserver's "operation cancelled: actual cost limit exceeded"; "optimize": false
 * charges constant literals as cel-go does without its optimizer.
 *
 * Value is the proto3 JSON form of cel.expr.Value ({"int64Value": "1"}, {"listValue":
 * {"values": [...]}}, {"objectValue": {"@type": ".../google.protobuf.Timestamp", "value":
 * "..."}}, ...). A malformed request gets an error reply and the tool reads on.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cel.h"
#include "cel_int.h"

#define TYPE_URL "type.googleapis.com/google.protobuf."

static json_t *encode(cel_arena_t *a, const cel_value_t *v, const char **why);

static json_t *
one(const char *key, json_t *val)
{
    json_t *o = json_object();
    json_object_set_new(o, key, val);
    return o;
}

static json_t *
encode_double(double d)
{
    if (isnan(d))
        return one("doubleValue", json_string("NaN"));
    if (isinf(d))
        return one("doubleValue", json_string(d > 0 ? "Infinity" : "-Infinity"));
    return one("doubleValue", json_real(d));
}

static json_t *
encode_object(const char *type, const char *text)
{
    json_t *o = json_object();
    json_object_set_new(o, "@type", json_sprintf(TYPE_URL "%s", type));
    json_object_set_new(o, "value", json_string(text));
    return one("objectValue", o);
}

static json_t *
encode_list(cel_arena_t *a, const cel_value_t *v, const char **why)
{
    json_t *arr = json_array();
    for (size_t i = 0; i < cel_list_size(v); i++) {
        cel_value_t x = cel_list_at(v, i);
        json_t *e = encode(a, &x, why);
        if (e == NULL) {
            json_decref(arr);
            return NULL;
        }
        json_array_append_new(arr, e);
    }
    return one("listValue", one("values", arr));
}

static json_t *
encode_map(cel_arena_t *a, const cel_value_t *v, const char **why)
{
    json_t *arr = json_array();
    cel_map_iter_t it = CEL_MAP_ITER_INIT;
    cel_value_t k, x;
    while (cel_map_next(v, &it, &k, &x)) {
        json_t *ek = encode(a, &k, why), *ex = ek ? encode(a, &x, why) : NULL;
        if (ex == NULL) {
            json_decref(ek);
            json_decref(arr);
            return NULL;
        }
        json_t *entry = one("key", ek);
        json_object_set_new(entry, "value", ex);
        json_array_append_new(arr, entry);
    }
    return one("mapValue", one("entries", arr));
}

static json_t *
encode(cel_arena_t *a, const cel_value_t *v, const char **why)
{
    size_t n;
    switch (v->kind) {
    case CEL_NULL:
        return one("nullValue", json_null());
    case CEL_BOOL:
        return one("boolValue", json_boolean(v->v.b));
    case CEL_INT:
        return one("int64Value", json_sprintf("%lld", (long long)v->v.i));
    case CEL_UINT:
        return one("uint64Value", json_sprintf("%llu", (unsigned long long)v->v.u));
    case CEL_DOUBLE:
        return encode_double(v->v.d);
    case CEL_STRING:
        return one("stringValue", json_stringn(v->v.str.data, v->v.str.len));
    case CEL_BYTES:
        return one("bytesValue", json_string(cel__base64_encode(
                                     a, (const unsigned char *)v->v.str.data, v->v.str.len, &n)));
    case CEL_LIST:
        return encode_list(a, v, why);
    case CEL_MAP:
        return encode_map(a, v, why);
    case CEL_TYPE:
        return one("typeValue", json_string(cel_type_name(v->v.type)));
    case CEL_TIMESTAMP:
        return encode_object("Timestamp", cel__ts_format(a, v->v.ts.sec, v->v.ts.nsec));
    case CEL_DURATION:
        return encode_object("Duration", cel__dur_format(a, v->v.dur));
    default:
        *why = cel__arena_sprintf(a, "a value of type %s has no cel.expr.Value form",
                                  cel_type_name(cel_value_type(v)));
        return NULL;
    }
}

/* ---- Decoding bindings ---- */

static bool decode(cel_arena_t *a, json_t *j, cel_value_t *out);

static bool
decode_number(json_t *x, bool is_uint, cel_value_t *out)
{
    if (json_is_integer(x)) {
        *out = is_uint ? cel_uint((uint64_t)json_integer_value(x)) : cel_int(json_integer_value(x));
        return !is_uint || json_integer_value(x) >= 0;
    }
    if (!json_is_string(x))
        return false;
    const char *s = json_string_value(x);
    int64_t i;
    uint64_t u;
    if (is_uint && cel__parse_uint(s, strlen(s), &u)) {
        *out = cel_uint(u);
        return true;
    }
    if (!is_uint && cel__parse_int(s, strlen(s), &i)) {
        *out = cel_int(i);
        return true;
    }
    return false;
}

static bool
decode_double(json_t *x, cel_value_t *out)
{
    if (json_is_number(x)) {
        *out = cel_double(json_number_value(x));
        return true;
    }
    const char *s = json_string_value(x);
    if (s == NULL)
        return false;
    double d = strcmp(s, "NaN") == 0         ? NAN
               : strcmp(s, "Infinity") == 0  ? INFINITY
               : strcmp(s, "-Infinity") == 0 ? -INFINITY
                                             : 0;
    if (d == 0 && !cel__parse_double(s, strlen(s), &d))
        return false;
    *out = cel_double(d);
    return true;
}

static bool
decode_list(cel_arena_t *a, json_t *x, cel_value_t *out)
{
    json_t *vals = json_object_get(x, "values");
    if (!json_is_object(x) || (vals != NULL && !json_is_array(vals)))
        return false;
    cel_list_t *l = cel__list_new(a, json_array_size(vals));
    size_t i;
    json_t *e;
    json_array_foreach(vals, i, e)
    {
        cel_value_t v;
        if (!decode(a, e, &v))
            return false;
        cel__list_push(a, l, v);
    }
    *out = cel__list_value(l);
    return true;
}

static bool
decode_map(cel_arena_t *a, json_t *x, cel_value_t *out)
{
    json_t *entries = json_object_get(x, "entries");
    if (!json_is_object(x) || (entries != NULL && !json_is_array(entries)))
        return false;
    cel_map_t *m = cel__map_new(a, json_array_size(entries));
    size_t i;
    json_t *e;
    json_array_foreach(entries, i, e)
    {
        cel_value_t k, v;
        if (!decode(a, json_object_get(e, "key"), &k) || !cel__map_key_ok(&k) ||
            !decode(a, json_object_get(e, "value"), &v) || !cel__map_put(a, m, k, v))
            return false;
    }
    *out = cel__map_value(m);
    return true;
}

static bool
decode_object(json_t *x, cel_value_t *out)
{
    const char *type = json_string_value(json_object_get(x, "@type"));
    const char *text = json_string_value(json_object_get(x, "value"));
    if (type == NULL || text == NULL)
        return false;
    if (strcmp(type, TYPE_URL "Timestamp") == 0) {
        int64_t sec;
        int32_t nsec;
        if (!cel__ts_parse(text, strlen(text), &sec, &nsec))
            return false;
        *out = cel_timestamp(sec, nsec);
        return out->kind == CEL_TIMESTAMP;
    }
    int64_t ns;
    if (strcmp(type, TYPE_URL "Duration") != 0 || !cel__dur_parse(text, strlen(text), &ns))
        return false;
    *out = cel_duration(ns);
    return true;
}

static bool
decode(cel_arena_t *a, json_t *j, cel_value_t *out)
{
    const char *key;
    json_t *x;
    if (!json_is_object(j) || json_object_size(j) != 1)
        return false;
    json_object_foreach(j, key, x)
    {
        if (strcmp(key, "nullValue") == 0)
            *out = cel_null();
        else if (strcmp(key, "boolValue") == 0 && json_is_boolean(x))
            *out = cel_bool(json_is_true(x));
        else if (strcmp(key, "int64Value") == 0 || strcmp(key, "uint64Value") == 0)
            return decode_number(x, key[0] == 'u', out);
        else if (strcmp(key, "doubleValue") == 0)
            return decode_double(x, out);
        else if (strcmp(key, "stringValue") == 0 && json_is_string(x))
            *out = cel_string(a, json_string_value(x), json_string_length(x));
        else if (strcmp(key, "bytesValue") == 0 && json_is_string(x)) {
            unsigned char *b;
            size_t n;
            if (!cel__base64_decode(a, json_string_value(x), json_string_length(x), &b, &n))
                return false;
            *out = cel_bytes(a, b, n);
        } else if (strcmp(key, "listValue") == 0)
            return decode_list(a, x, out);
        else if (strcmp(key, "mapValue") == 0)
            return decode_map(a, x, out);
        else if (strcmp(key, "typeValue") == 0 && json_is_string(x)) {
            const cel_type_t *t = cel_type_find(json_string_value(x));
            if (t == NULL)
                return false;
            *out = cel_type_value(t);
        } else if (strcmp(key, "objectValue") == 0)
            return decode_object(x, out);
        else
            return false;
    }
    return true;
}

/* ---- Requests ---- */

#define MALFORMED "malformed request: "

/* What a request asks for besides its environment's settings. */
typedef struct request {
    const char *expr;
    json_t *bindings;
    bool check;
    bool track_cost;
    uint64_t cost_limit; /* 0: none */
} request_t;

/* {"error": prefix + what}. */
static json_t *
error_reply(const char *prefix, const char *what)
{
    json_t *r = json_object();
    json_object_set_new(r, "error", json_sprintf("%s%s", prefix, what));
    return r;
}

static json_t *
bind_all(cel_arena_t *a, cel_activation_t *act, json_t *bindings)
{
    const char *name;
    json_t *x;
    if (bindings != NULL && !json_is_object(bindings))
        return error_reply(MALFORMED, "bindings must be an object");
    json_object_foreach(bindings, name, x)
    {
        cel_value_t v;
        if (!decode(a, x, &v))
            return error_reply("malformed binding: ", name);
        cel_activation_bind(act, name, v);
    }
    return NULL;
}

/* {"value": v}, or {"error": why} for an error value or a value with no JSON form. */
static json_t *
value_reply(cel_arena_t *a, const cel_value_t *v)
{
    const char *why = NULL;
    json_t *val = v->kind == CEL_ERROR ? NULL : encode(a, v, &why);
    if (val == NULL)
        return error_reply("", v->kind == CEL_ERROR ? v->v.err : why);
    return one("value", val);
}

/* Every evaluation that ran reports its cost with track_cost, also when it failed or was
 * stopped at the limit. */
static json_t *
evaluate(const cel_env_t *env, const request_t *r)
{
    cel_program_t *prog = NULL;
    cel_issue_t issue;
    cel_arena_t *a = cel_arena_new();
    cel_activation_t *act = cel_activation_new(a);
    json_t *reply = bind_all(a, act, r->bindings);
    if (reply != NULL)
        goto out;
    if (cel_compile(env, r->expr, &prog, &issue) != 0) {
        reply = error_reply("", issue.message);
        cel_issue_clear(&issue);
        goto out;
    }
    cel_value_t v;
    uint64_t cost;
    cel_eval(prog, act, a, r->cost_limit, &v, &cost);
    reply = value_reply(a, &v);
    if (r->track_cost)
        json_object_set_new(reply, "cost", json_sprintf("%" PRIu64, cost));
out:
    cel_program_free(prog);
    cel_arena_free(a);
    return reply;
}

static json_t *
check_only(const cel_env_t *env, const char *expr)
{
    cel_check_t c;
    json_t *reply;
    if (cel_check(env, expr, &c) != 0) {
        size_t len = 1;
        for (size_t i = 0; i < c.nissues; i++)
            len += strlen(c.issues[i].message) + 1;
        char *all = calloc(1, len), *p = all;
        for (size_t i = 0; i < c.nissues; i++)
            p = stpcpy(stpcpy(p, i ? "\n" : ""), c.issues[i].message);
        reply = error_reply("", all);
        free(all);
    } else {
        reply = json_pack("{s:s,s:{s:o,s:o}}", "type", c.type, "cost", "min",
                          json_sprintf("%" PRIu64, c.cost.min), "max",
                          json_sprintf("%" PRIu64, c.cost.max));
    }
    cel_check_clear(&c);
    return reply;
}

/* Declare each {"name": "type"}; NULL or an error reply. */
static json_t *
declare_all(cel_env_t *env, json_t *decls)
{
    const char *name;
    json_t *x;
    if (!json_is_object(decls))
        return error_reply(MALFORMED, "declarations must be an object");
    json_object_foreach(decls, name, x)
    {
        const cel_decltype_t *t =
            json_is_string(x) ? cel_env_type(env, json_string_value(x)) : NULL;
        if (t == NULL || cel_env_declare(env, name, t) != 0)
            return error_reply("malformed declaration: ", name);
    }
    cel_env_set_type_check(env, true);
    return NULL;
}

/* Boolean field `name` into *out (left as is when absent); false when it is not a boolean. */
static bool
get_bool(json_t *req, const char *name, bool *out)
{
    json_t *x = json_object_get(req, name);
    if (x != NULL && !json_is_boolean(x))
        return false;
    if (x != NULL)
        *out = json_is_true(x);
    return true;
}

/* cost_limit: a positive integer, as a JSON number or a string (proto3's uint64 form). */
static bool
get_limit(json_t *req, uint64_t *out)
{
    json_t *x = json_object_get(req, "cost_limit");
    const char *s = json_string_value(x);
    if (x == NULL)
        return true;
    if (json_is_integer(x) && json_integer_value(x) > 0) {
        *out = (uint64_t)json_integer_value(x);
        return true;
    }
    return s != NULL && cel__parse_uint(s, strlen(s), out) && *out > 0;
}

/* Read `req` into `*r` and `env`'s settings: NULL, or the error reply. */
static json_t *
read_request(json_t *req, cel_env_t *env, request_t *r)
{
    static const char *const flags[] = {"disable_macros", "check", "track_cost", "optimize"};
    bool nomacros = false, optimize = true;
    bool *dest[] = {&nomacros, &r->check, &r->track_cost, &optimize};
    json_t *container = json_object_get(req, "container");
    json_t *decls = json_object_get(req, "declarations");
    r->expr = json_string_value(json_object_get(req, "expr"));
    r->bindings = json_object_get(req, "bindings");
    if (r->expr == NULL)
        return error_reply(MALFORMED, "expr must be a string");
    if (container != NULL && (!json_is_string(container) ||
                              cel_env_set_container(env, json_string_value(container)) != 0))
        return error_reply(MALFORMED, "invalid container");
    for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
        char what[48];
        snprintf(what, sizeof(what), "%s must be a boolean", flags[i]);
        if (!get_bool(req, flags[i], dest[i]))
            return error_reply(MALFORMED, what);
    }
    if (!get_limit(req, &r->cost_limit))
        return error_reply(MALFORMED, "cost_limit must be a positive integer");
    cel_env_set_macros(env, !nomacros);
    cel_env_set_optimize(env, optimize);
    return decls != NULL ? declare_all(env, decls) : NULL;
}

static json_t *
handle(const char *line)
{
    json_error_t jerr;
    json_t *req = json_loads(line, 0, &jerr);
    if (!json_is_object(req)) {
        json_t *reply = error_reply(MALFORMED, req ? "not an object" : jerr.text);
        json_decref(req);
        return reply;
    }
    request_t r = {0};
    cel_env_t *env = cel_env_new();
    json_t *reply = read_request(req, env, &r);
    if (reply == NULL)
        reply = r.check ? check_only(env, r.expr) : evaluate(env, &r);
    cel_env_free(env);
    json_decref(req);
    return reply;
}

int
main(void)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    while ((n = getline(&line, &cap, stdin)) >= 0) {
        if (n == 0 || (n == 1 && line[0] == '\n'))
            continue;
        json_t *reply = handle(line);
        json_dumpf(reply, stdout, 0);
        fputc('\n', stdout);
        fflush(stdout);
        json_decref(reply);
    }
    free(line);
    return 0;
}
