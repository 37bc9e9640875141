/*
 * Function declarations for the type checker: every overload of the standard library, the
 * cel-go extensions and the Kubernetes libraries that cel/ implements, with cel-go's and
 * kube-apiserver's overload ids (the cost estimator keys on them). Signatures are written as
 * cel-go prints them: "(int, int) -> int" for a global overload, "string.(string) -> bool" for
 * a member one; capital letters are type parameters. They are parsed on demand into the
 * checker's arena, so nothing here is built or shared at run time.
 */
#include "cel.h"

#include <stdlib.h>
#include <string.h>

#include "cel_int.h"

typedef struct decl {
    const char *fn;
    const char *id;
    const char *sig;
} decl_t;

#define CMP(fn, p)                                                                                 \
    {fn, p "_bool", "(bool, bool) -> bool"}, {fn, p "_int64", "(int, int) -> bool"},               \
        {fn, p "_int64_double", "(int, double) -> bool"},                                          \
        {fn, p "_int64_uint64", "(int, uint) -> bool"}, {fn, p "_uint64", "(uint, uint) -> bool"}, \
        {fn, p "_uint64_double", "(uint, double) -> bool"},                                        \
        {fn, p "_uint64_int64", "(uint, int) -> bool"},                                            \
        {fn, p "_double", "(double, double) -> bool"},                                             \
        {fn, p "_double_int64", "(double, int) -> bool"},                                          \
        {fn, p "_double_uint64", "(double, uint) -> bool"},                                        \
        {fn, p "_string", "(string, string) -> bool"}, {fn, p "_bytes", "(bytes, bytes) -> bool"}, \
        {fn, p "_timestamp", "(google.protobuf.Timestamp, google.protobuf.Timestamp) -> bool"},    \
    {                                                                                              \
        fn, p "_duration", "(google.protobuf.Duration, google.protobuf.Duration) -> bool"          \
    }

#define ARITH(fn, p)                                                                               \
    {fn, p "_int64", "(int, int) -> int"}, {fn, p "_uint64", "(uint, uint) -> uint"},              \
    {                                                                                              \
        fn, p "_double", "(double, double) -> double"                                              \
    }

#define TS "google.protobuf.Timestamp"
#define DUR "google.protobuf.Duration"

/* getFullYear() and friends on timestamps, with and without a time zone. */
#define TS_GET(fn, p)                                                                              \
    {fn, p, TS ".() -> int"},                                                                      \
    {                                                                                              \
        fn, p "_with_tz", TS ".(string) -> int"                                                    \
    }
#define DUR_GET(fn, p)                                                                             \
    {                                                                                              \
        fn, p, DUR ".() -> int"                                                                    \
    }

#define MATH_MINMAX(fn, p)                                                                         \
    {fn, p "_double", "(double) -> double"}, {fn, p "_int", "(int) -> int"},                       \
        {fn, p "_uint", "(uint) -> uint"}, {fn, p "_double_double", "(double, double) -> double"}, \
        {fn, p "_int_int", "(int, int) -> int"}, {fn, p "_uint_uint", "(uint, uint) -> uint"},     \
        {fn, p "_int_uint", "(int, uint) -> dyn"}, {fn, p "_int_double", "(int, double) -> dyn"},  \
        {fn, p "_double_int", "(double, int) -> dyn"},                                             \
        {fn, p "_double_uint", "(double, uint) -> dyn"},                                           \
        {fn, p "_uint_int", "(uint, int) -> dyn"},                                                 \
        {fn, p "_uint_double", "(uint, double) -> dyn"},                                           \
        {fn, p "_list_double", "(list(double)) -> double"},                                        \
        {fn, p "_list_int", "(list(int)) -> int"},                                                 \
    {                                                                                              \
        fn, p "_list_uint", "(list(uint)) -> uint"                                                 \
    }

#define BITS(fn, p)                                                                                \
    {fn, p "_int_int", "(int, int) -> int"},                                                       \
    {                                                                                              \
        fn, p "_uint_uint", "(uint, uint) -> uint"                                                 \
    }
#define SHIFT(fn, p)                                                                               \
    {fn, p "_int_int", "(int, int) -> int"},                                                       \
    {                                                                                              \
        fn, p "_uint_int", "(uint, int) -> uint"                                                   \
    }

#define AUTHZ "kubernetes.authorization."
#define QTY "kubernetes.Quantity"
#define SEMVER "kubernetes.Semver"
#define FORMAT(name)                                                                               \
    {                                                                                              \
        "format." name, "format-" name, "() -> kubernetes.NamedFormat"                             \
    }

static const decl_t decls[] = {
    /* Operators. */
    {"_?_:_", "conditional", "(bool, A, A) -> A"},
    {"_&&_", "logical_and", "(bool, bool) -> bool"},
    {"_||_", "logical_or", "(bool, bool) -> bool"},
    {"!_", "logical_not", "(bool) -> bool"},
    {"@not_strictly_false", "not_strictly_false", "(bool) -> bool"},
    {"_==_", "equals", "(A, A) -> bool"},
    {"_!=_", "not_equals", "(A, A) -> bool"},
    {"-_", "negate_int64", "(int) -> int"},
    {"-_", "negate_double", "(double) -> double"},
    ARITH("_+_", "add"),
    {"_+_", "add_string", "(string, string) -> string"},
    {"_+_", "add_bytes", "(bytes, bytes) -> bytes"},
    {"_+_", "add_list", "(list(A), list(A)) -> list(A)"},
    {"_+_", "add_timestamp_duration", "(" TS ", " DUR ") -> " TS},
    {"_+_", "add_duration_timestamp", "(" DUR ", " TS ") -> " TS},
    {"_+_", "add_duration_duration", "(" DUR ", " DUR ") -> " DUR},
    ARITH("_-_", "subtract"),
    {"_-_", "subtract_timestamp_timestamp", "(" TS ", " TS ") -> " DUR},
    {"_-_", "subtract_timestamp_duration", "(" TS ", " DUR ") -> " TS},
    {"_-_", "subtract_duration_duration", "(" DUR ", " DUR ") -> " DUR},
    ARITH("_*_", "multiply"),
    ARITH("_/_", "divide"),
    {"_%_", "modulo_int64", "(int, int) -> int"},
    {"_%_", "modulo_uint64", "(uint, uint) -> uint"},
    CMP("_<_", "less"),
    CMP("_<=_", "less_equals"),
    CMP("_>_", "greater"),
    CMP("_>=_", "greater_equals"),
    {"_[_]", "index_list", "(list(A), int) -> A"},
    {"_[_]", "index_map", "(map(A, B), A) -> B"},
    {"_[_]", "optional_list_index_int", "(optional_type(list(A)), int) -> optional_type(A)"},
    {"_[_]", "optional_map_index_value", "(optional_type(map(A, B)), A) -> optional_type(B)"},
    {"_[?_]", "list_optindex_optional_int", "(list(A), int) -> optional_type(A)"},
    {"_[?_]", "optional_list_optindex_optional_int",
     "(optional_type(list(A)), int) -> optional_type(A)"},
    {"_[?_]", "map_optindex_optional_value", "(map(A, B), A) -> optional_type(B)"},
    {"_[?_]", "optional_map_optindex_optional_value",
     "(optional_type(map(A, B)), A) -> optional_type(B)"},
    {"@in", "in_list", "(A, list(A)) -> bool"},
    {"@in", "in_map", "(A, map(A, B)) -> bool"},

    /* size, strings, regular expressions. */
    {"size", "size_string", "(string) -> int"},
    {"size", "size_bytes", "(bytes) -> int"},
    {"size", "size_list", "(list(A)) -> int"},
    {"size", "size_map", "(map(A, B)) -> int"},
    {"size", "string_size", "string.() -> int"},
    {"size", "bytes_size", "bytes.() -> int"},
    {"size", "list_size", "list(A).() -> int"},
    {"size", "map_size", "map(A, B).() -> int"},
    {"contains", "contains_string", "string.(string) -> bool"},
    {"startsWith", "starts_with_string", "string.(string) -> bool"},
    {"endsWith", "ends_with_string", "string.(string) -> bool"},
    {"matches", "matches", "(string, string) -> bool"},
    {"matches", "matches_string", "string.(string) -> bool"},

    /* Conversions. */
    {"int", "int64_to_int64", "(int) -> int"},
    {"int", "uint64_to_int64", "(uint) -> int"},
    {"int", "double_to_int64", "(double) -> int"},
    {"int", "string_to_int64", "(string) -> int"},
    {"int", "timestamp_to_int64", "(" TS ") -> int"},
    {"int", "duration_to_int64", "(" DUR ") -> int"},
    {"uint", "uint64_to_uint64", "(uint) -> uint"},
    {"uint", "int64_to_uint64", "(int) -> uint"},
    {"uint", "double_to_uint64", "(double) -> uint"},
    {"uint", "string_to_uint64", "(string) -> uint"},
    {"double", "double_to_double", "(double) -> double"},
    {"double", "int64_to_double", "(int) -> double"},
    {"double", "uint64_to_double", "(uint) -> double"},
    {"double", "string_to_double", "(string) -> double"},
    {"bool", "bool_to_bool", "(bool) -> bool"},
    {"bool", "string_to_bool", "(string) -> bool"},
    {"string", "string_to_string", "(string) -> string"},
    {"string", "int64_to_string", "(int) -> string"},
    {"string", "uint64_to_string", "(uint) -> string"},
    {"string", "double_to_string", "(double) -> string"},
    {"string", "bool_to_string", "(bool) -> string"},
    {"string", "bytes_to_string", "(bytes) -> string"},
    {"string", "timestamp_to_string", "(" TS ") -> string"},
    {"string", "duration_to_string", "(" DUR ") -> string"},
    {"string", "ip_to_string", "(net.IP) -> string"},
    {"string", "cidr_to_string", "(net.CIDR) -> string"},
    {"string", "quantity_to_string", "(" QTY ") -> string"},
    {"bytes", "bytes_to_bytes", "(bytes) -> bytes"},
    {"bytes", "string_to_bytes", "(string) -> bytes"},
    {"dyn", "to_dyn", "(A) -> dyn"},
    {"type", "type", "(A) -> type(A)"},
    {"timestamp", "timestamp_to_timestamp", "(" TS ") -> " TS},
    {"timestamp", "string_to_timestamp", "(string) -> " TS},
    {"timestamp", "int64_to_timestamp", "(int) -> " TS},
    {"duration", "duration_to_duration", "(" DUR ") -> " DUR},
    {"duration", "string_to_duration", "(string) -> " DUR},
    {"duration", "int64_to_duration", "(int) -> " DUR},

    /* Timestamps and durations. */
    TS_GET("getFullYear", "timestamp_to_year"),
    TS_GET("getMonth", "timestamp_to_month"),
    TS_GET("getDayOfYear", "timestamp_to_day_of_year"),
    TS_GET("getDayOfMonth", "timestamp_to_day_of_month"),
    TS_GET("getDate", "timestamp_to_day_of_month_1_based"),
    TS_GET("getDayOfWeek", "timestamp_to_day_of_week"),
    TS_GET("getHours", "timestamp_to_hours"),
    TS_GET("getMinutes", "timestamp_to_minutes"),
    TS_GET("getSeconds", "timestamp_to_seconds"),
    TS_GET("getMilliseconds", "timestamp_to_milliseconds"),
    DUR_GET("getHours", "duration_to_hours"),
    DUR_GET("getMinutes", "duration_to_minutes"),
    DUR_GET("getSeconds", "duration_to_seconds"),
    DUR_GET("getMilliseconds", "duration_to_milliseconds"),

    /* Optional values. */
    {"optional.of", "optional_of", "(A) -> optional_type(A)"},
    {"optional.ofNonZeroValue", "optional_ofNonZeroValue", "(A) -> optional_type(A)"},
    {"optional.none", "optional_none", "() -> optional_type(A)"},
    {"hasValue", "optional_hasValue", "optional_type(A).() -> bool"},
    {"value", "optional_value", "optional_type(A).() -> A"},
    {"or", "optional_or_optional", "optional_type(A).(optional_type(A)) -> optional_type(A)"},
    {"orValue", "optional_orValue_value", "optional_type(A).(A) -> A"},

    /* cel-go extended strings, version 2 (and reverse). */
    {"charAt", "string_char_at_int", "string.(int) -> string"},
    {"indexOf", "string_index_of_string", "string.(string) -> int"},
    {"indexOf", "string_index_of_string_int", "string.(string, int) -> int"},
    {"lastIndexOf", "string_last_index_of_string", "string.(string) -> int"},
    {"lastIndexOf", "string_last_index_of_string_int", "string.(string, int) -> int"},
    {"lowerAscii", "string_lower_ascii", "string.() -> string"},
    {"upperAscii", "string_upper_ascii", "string.() -> string"},
    {"replace", "string_replace_string_string", "string.(string, string) -> string"},
    {"replace", "string_replace_string_string_int", "string.(string, string, int) -> string"},
    {"split", "string_split_string", "string.(string) -> list(string)"},
    {"split", "string_split_string_int", "string.(string, int) -> list(string)"},
    {"substring", "string_substring_int", "string.(int) -> string"},
    {"substring", "string_substring_int_int", "string.(int, int) -> string"},
    {"trim", "string_trim", "string.() -> string"},
    {"join", "list_join", "list(string).() -> string"},
    {"join", "list_join_string", "list(string).(string) -> string"},
    {"reverse", "string_reverse", "string.() -> string"},
    {"strings.quote", "strings_quote", "(string) -> string"},
    {"format", "string_format", "string.(list(dyn)) -> string"},

    /* cel-go extended lists and sets, Kubernetes lists. */
    {"slice", "list_slice", "list(A).(int, int) -> list(A)"},
    {"flatten", "list_flatten", "list(list(A)).() -> list(A)"},
    {"flatten", "list_flatten_int", "list(dyn).(int) -> list(dyn)"},
    {"distinct", "list_distinct", "list(A).() -> list(A)"},
    {"lists.range", "lists_range", "(int) -> list(int)"},
    {"reverse", "list_reverse", "list(A).() -> list(A)"},
    {"sort", "list_sort", "list(A).() -> list(A)"},
    {"@sortByAssociatedKeys", "list_sortByAssociatedKeys", "list(A).(list(B)) -> list(A)"},
    {"sets.contains", "list_sets_contains_list", "(list(A), list(A)) -> bool"},
    {"sets.equivalent", "list_sets_equivalent_list", "(list(A), list(A)) -> bool"},
    {"sets.intersects", "list_sets_intersects_list", "(list(A), list(A)) -> bool"},
    {"isSorted", "list_is_sorted", "list(A).() -> bool"},
    {"sum", "list_int_sum", "list(int).() -> int"},
    {"sum", "list_uint_sum", "list(uint).() -> uint"},
    {"sum", "list_double_sum", "list(double).() -> double"},
    {"sum", "list_duration_sum", "list(" DUR ").() -> " DUR},
    {"min", "list_min", "list(A).() -> A"},
    {"max", "list_max", "list(A).() -> A"},
    {"indexOf", "list_a_index_of_a", "list(A).(A) -> int"},
    {"lastIndexOf", "list_a_last_index_of_a", "list(A).(A) -> int"},
    {"cel.@mapInsert", "@mapInsert_map_key_value", "(map(A, B), A, B) -> map(A, B)"},
    {"cel.@mapInsert", "@mapInsert_map_map", "(map(A, B), map(A, B)) -> map(A, B)"},

    /* cel-go extended math and encoders. */
    MATH_MINMAX("math.@max", "math_@max"),
    MATH_MINMAX("math.@min", "math_@min"),
    {"math.ceil", "math_ceil_double", "(double) -> double"},
    {"math.floor", "math_floor_double", "(double) -> double"},
    {"math.round", "math_round_double", "(double) -> double"},
    {"math.trunc", "math_trunc_double", "(double) -> double"},
    {"math.isInf", "math_isInf_double", "(double) -> bool"},
    {"math.isNaN", "math_isNaN_double", "(double) -> bool"},
    {"math.isFinite", "math_isFinite_double", "(double) -> bool"},
    {"math.abs", "math_abs_int", "(int) -> int"},
    {"math.abs", "math_abs_uint", "(uint) -> uint"},
    {"math.abs", "math_abs_double", "(double) -> double"},
    {"math.sign", "math_sign_int", "(int) -> int"},
    {"math.sign", "math_sign_uint", "(uint) -> uint"},
    {"math.sign", "math_sign_double", "(double) -> double"},
    BITS("math.bitAnd", "math_bitAnd"),
    BITS("math.bitOr", "math_bitOr"),
    BITS("math.bitXor", "math_bitXor"),
    {"math.bitNot", "math_bitNot_int_int", "(int) -> int"},
    {"math.bitNot", "math_bitNot_uint_uint", "(uint) -> uint"},
    SHIFT("math.bitShiftLeft", "math_bitShiftLeft"),
    SHIFT("math.bitShiftRight", "math_bitShiftRight"),
    {"base64.decode", "base64_decode_string", "(string) -> bytes"},
    {"base64.encode", "base64_encode_bytes", "(bytes) -> string"},
    {"jsonpatch.escapeKey", "string_jsonpatch_escapeKey_string", "(string) -> string"},

    /* Kubernetes regex, URL, IP and CIDR libraries. */
    {"find", "string_find_string", "string.(string) -> string"},
    {"findAll", "string_find_all_string", "string.(string) -> list(string)"},
    {"findAll", "string_find_all_string_int", "string.(string, int) -> list(string)"},
    {"url", "string_to_url", "(string) -> kubernetes.URL"},
    {"isURL", "is_url_string", "(string) -> bool"},
    {"getScheme", "url_get_scheme", "kubernetes.URL.() -> string"},
    {"getHost", "url_get_host", "kubernetes.URL.() -> string"},
    {"getHostname", "url_get_hostname", "kubernetes.URL.() -> string"},
    {"getPort", "url_get_port", "kubernetes.URL.() -> string"},
    {"getEscapedPath", "url_get_escaped_path", "kubernetes.URL.() -> string"},
    {"getQuery", "url_get_query", "kubernetes.URL.() -> map(string, list(string))"},
    {"ip", "string_to_ip", "(string) -> net.IP"},
    {"isIP", "is_ip", "(string) -> bool"},
    {"ip.isCanonical", "ip_is_canonical", "(string) -> bool"},
    {"family", "ip_family", "net.IP.() -> int"},
    {"isUnspecified", "ip_is_unspecified", "net.IP.() -> bool"},
    {"isLoopback", "ip_is_loopback", "net.IP.() -> bool"},
    {"isLinkLocalMulticast", "ip_is_link_local_multicast", "net.IP.() -> bool"},
    {"isLinkLocalUnicast", "ip_is_link_local_unicast", "net.IP.() -> bool"},
    {"isGlobalUnicast", "ip_is_global_unicast", "net.IP.() -> bool"},
    {"cidr", "string_to_cidr", "(string) -> net.CIDR"},
    {"isCIDR", "is_cidr", "(string) -> bool"},
    {"containsIP", "cidr_contains_ip_string", "net.CIDR.(string) -> bool"},
    {"containsIP", "cidr_contains_ip_ip", "net.CIDR.(net.IP) -> bool"},
    {"containsCIDR", "cidr_contains_cidr_string", "net.CIDR.(string) -> bool"},
    {"containsCIDR", "cidr_contains_cidr", "net.CIDR.(net.CIDR) -> bool"},
    {"ip", "cidr_ip", "net.CIDR.() -> net.IP"},
    {"masked", "cidr_masked", "net.CIDR.() -> net.CIDR"},
    {"prefixLength", "cidr_prefix_length", "net.CIDR.() -> int"},

    /* Kubernetes quantity and semver libraries. */
    {"quantity", "string_to_quantity", "(string) -> " QTY},
    {"isQuantity", "is_quantity_string", "(string) -> bool"},
    {"sign", "quantity_sign", "(" QTY ") -> int"},
    {"isGreaterThan", "quantity_is_greater_than", QTY ".(" QTY ") -> bool"},
    {"isLessThan", "quantity_is_less_than", QTY ".(" QTY ") -> bool"},
    {"compareTo", "quantity_compare_to", QTY ".(" QTY ") -> int"},
    {"asApproximateFloat", "quantity_get_float", QTY ".() -> double"},
    {"asInteger", "quantity_get_int", QTY ".() -> int"},
    {"isInteger", "quantity_is_integer", QTY ".() -> bool"},
    {"add", "quantity_add", QTY ".(" QTY ") -> " QTY},
    {"add", "quantity_add_int", QTY ".(int) -> " QTY},
    {"sub", "quantity_sub", QTY ".(" QTY ") -> " QTY},
    {"sub", "quantity_sub_int", QTY ".(int) -> " QTY},
    {"semver", "string_to_semver", "(string) -> " SEMVER},
    {"semver", "string_bool_to_semver", "(string, bool) -> " SEMVER},
    {"isSemver", "is_semver_string", "(string) -> bool"},
    {"isSemver", "is_semver_string_bool", "(string, bool) -> bool"},
    {"major", "semver_major", SEMVER ".() -> int"},
    {"minor", "semver_minor", SEMVER ".() -> int"},
    {"patch", "semver_patch", SEMVER ".() -> int"},
    {"isGreaterThan", "semver_is_greater_than", SEMVER ".(" SEMVER ") -> bool"},
    {"isLessThan", "semver_is_less_than", SEMVER ".(" SEMVER ") -> bool"},
    {"compareTo", "semver_compare_to", SEMVER ".(" SEMVER ") -> int"},

    /* Kubernetes authorizer and named format libraries. */
    {"path", "authorizer_path", AUTHZ "Authorizer.(string) -> " AUTHZ "PathCheck"},
    {"group", "authorizer_group", AUTHZ "Authorizer.(string) -> " AUTHZ "GroupCheck"},
    {"serviceAccount", "authorizer_serviceaccount",
     AUTHZ "Authorizer.(string, string) -> " AUTHZ "Authorizer"},
    {"resource", "groupcheck_resource", AUTHZ "GroupCheck.(string) -> " AUTHZ "ResourceCheck"},
    {"subresource", "resourcecheck_subresource",
     AUTHZ "ResourceCheck.(string) -> " AUTHZ "ResourceCheck"},
    {"namespace", "resourcecheck_namespace",
     AUTHZ "ResourceCheck.(string) -> " AUTHZ "ResourceCheck"},
    {"name", "resourcecheck_name", AUTHZ "ResourceCheck.(string) -> " AUTHZ "ResourceCheck"},
    {"fieldSelector", "resourcecheck_field_selector",
     AUTHZ "ResourceCheck.(string) -> " AUTHZ "ResourceCheck"},
    {"labelSelector", "resourcecheck_label_selector",
     AUTHZ "ResourceCheck.(string) -> " AUTHZ "ResourceCheck"},
    {"check", "pathcheck_check", AUTHZ "PathCheck.(string) -> " AUTHZ "Decision"},
    {"check", "resourcecheck_check", AUTHZ "ResourceCheck.(string) -> " AUTHZ "Decision"},
    {"allowed", "decision_allowed", AUTHZ "Decision.() -> bool"},
    {"reason", "decision_reason", AUTHZ "Decision.() -> string"},
    {"errored", "decision_errored", AUTHZ "Decision.() -> bool"},
    {"error", "decision_error", AUTHZ "Decision.() -> string"},
    FORMAT("dns1123Label"),
    FORMAT("dns1123Subdomain"),
    FORMAT("dns1035Label"),
    FORMAT("qualifiedName"),
    FORMAT("dns1123LabelPrefix"),
    FORMAT("dns1123SubdomainPrefix"),
    FORMAT("dns1035LabelPrefix"),
    FORMAT("labelValue"),
    FORMAT("uri"),
    FORMAT("uuid"),
    FORMAT("byte"),
    FORMAT("date"),
    FORMAT("datetime"),
    {"format.named", "format-named", "(string) -> optional_type(kubernetes.NamedFormat)"},
    {"validate", "format-validate",
     "kubernetes.NamedFormat.(string) -> optional_type(list(string))"},
};

bool
cel__decl_known(const char *name)
{
    for (size_t i = 0; i < sizeof(decls) / sizeof(decls[0]); i++) {
        if (strcmp(decls[i].fn, name) == 0)
            return true;
    }
    return false;
}

static bool
sig_expect(const char **s, const char *tok)
{
    while (**s == ' ')
        (*s)++;
    size_t n = strlen(tok);
    if (strncmp(*s, tok, n) != 0)
        return false;
    *s += n;
    return true;
}

/* "(A, B) -> C" or "T.(A) -> C" into `ov`; the table is ours, so a malformed entry is a bug. */
static void
parse_sig(cel_arena_t *a, const char *sig, cel__overload_t *ov)
{
    const char *s = sig;
    ov->nargs = 0;
    ov->member = *s != '(';
    if (ov->member) {
        ov->args[ov->nargs++] = cel__ty_parse(a, &s);
        if (!sig_expect(&s, "."))
            abort();
    }
    if (!sig_expect(&s, "("))
        abort();
    for (int params = 0; !sig_expect(&s, ")"); params++) {
        if (params > 0 && !sig_expect(&s, ","))
            abort();
        ov->args[ov->nargs++] = cel__ty_parse(a, &s);
    }
    if (!sig_expect(&s, "->") || (ov->result = cel__ty_parse(a, &s)) == NULL)
        abort();
}

const cel__overload_t *
cel__decl_overloads(cel_arena_t *a, const char *name, int *n)
{
    int count = 0;
    for (size_t i = 0; i < sizeof(decls) / sizeof(decls[0]); i++)
        count += strcmp(decls[i].fn, name) == 0;
    cel__overload_t *ovs = cel_arena_alloc(a, sizeof(*ovs) * (size_t)(count ? count : 1));
    *n = 0;
    for (size_t i = 0; i < sizeof(decls) / sizeof(decls[0]); i++) {
        if (strcmp(decls[i].fn, name) != 0)
            continue;
        ovs[*n].id = decls[i].id;
        parse_sig(a, decls[i].sig, &ovs[(*n)++]);
    }
    return ovs;
}
