/* Go's %T of decoded JSON values (unstructured numbers are int64 or float64). */
#include "gw_gotype.h"

const char *
gw_json_go_type(const json_t *v)
{
    switch (v ? json_typeof(v) : JSON_NULL) {
    case JSON_OBJECT:
        return "map[string]interface {}";
    case JSON_ARRAY:
        return "[]interface {}";
    case JSON_STRING:
        return "string";
    case JSON_INTEGER:
        return "int64";
    case JSON_REAL:
        return "float64";
    case JSON_TRUE:
    case JSON_FALSE:
        return "bool";
    default:
        return "<nil>";
    }
}
