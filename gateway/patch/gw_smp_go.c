/*
 * Go semantics of decoded JSON, as kube-apiserver's strategic merge sees its values: the
 * dynamic types encoding/json gives (int64 for integers, kube decodes with PreserveInts) and
 * interface equality. Printing them is gw_gofmt.h's.
 */
#include "gw_smp_int.h"

#include <string.h>

gw_go_type_t
gw_smp__go_type(const json_t *v)
{
    switch (v == NULL ? JSON_NULL : json_typeof(v)) {
    case JSON_OBJECT:
        return GW_GO_MAP;
    case JSON_ARRAY:
        return GW_GO_SLICE;
    case JSON_STRING:
        return GW_GO_STRING;
    case JSON_INTEGER:
        return GW_GO_INT;
    case JSON_REAL:
        return GW_GO_FLOAT;
    case JSON_TRUE:
    case JSON_FALSE:
        return GW_GO_BOOL;
    default:
        return GW_GO_NIL;
    }
}

bool
gw_smp__is_str(const json_t *v, const char *s)
{
    return json_is_string(v) && strcmp(json_string_value(v), s) == 0;
}

bool
gw_smp__go_equal(const json_t *a, const json_t *b)
{
    gw_go_type_t t = gw_smp__go_type(a);

    if (t != gw_smp__go_type(b))
        return false;
    switch (t) {
    case GW_GO_NIL:
        return true;
    case GW_GO_STRING:
        return json_string_length(a) == json_string_length(b) &&
               memcmp(json_string_value(a), json_string_value(b), json_string_length(a)) == 0;
    case GW_GO_INT:
        return json_integer_value(a) == json_integer_value(b);
    case GW_GO_FLOAT:
        return json_real_value(a) == json_real_value(b);
    case GW_GO_BOOL:
        return json_is_true(a) == json_is_true(b);
    default:
        return false;
    }
}

const char *
gw_smp__go_type_name(const json_t *v)
{
    static const char *const names[] = {
        [GW_GO_NIL] = "%!s(<nil>)",
        [GW_GO_MAP] = "map[string]interface {}",
        [GW_GO_SLICE] = "[]interface {}",
        [GW_GO_STRING] = "string",
        [GW_GO_INT] = "int64",
        [GW_GO_FLOAT] = "float64",
        [GW_GO_BOOL] = "bool",
    };
    return names[gw_smp__go_type(v)];
}
