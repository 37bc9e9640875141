/*
 * Common Expression Language: parse, check and evaluate CEL expressions.
 *
 * The life of an expression: an environment (cel_env_t) says which options and limits apply;
 * cel_compile() turns source text into an immutable program (cel_program_t); cel_eval() runs
 * a program against an activation (the variables) and charges every step to a cost counter
 * that is checked against a budget. Every value an evaluation creates lives in a caller-owned
 * arena (cel_arena_t) and dies with it.
 *
 * Threads: an environment is configured on one thread and is then read-only; programs are
 * immutable and may be evaluated by any number of threads at once, each with its own arena
 * and activation. Arenas and activations belong to one thread at a time.
 *
 * Memory: allocation failure aborts, as in the rest of kgate; no function returns NULL for
 * lack of memory.
 */
#ifndef CEL_CEL_H
#define CEL_CEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

/** Error codes (0 is success). */
enum {
    CEL_EPARSE = -1, /**< the expression does not parse or does not compile */
    CEL_ECOST = -2,  /**< the evaluation went over its cost budget and was stopped */
    CEL_EINVAL = -3, /**< an argument is not acceptable (e.g. a malformed container name) */
};

typedef struct cel_arena cel_arena_t;
typedef struct cel_env cel_env_t;
typedef struct cel_program cel_program_t;
typedef struct cel_activation cel_activation_t;
typedef struct cel_type cel_type_t;
typedef struct cel_list cel_list_t;
typedef struct cel_map cel_map_t;
typedef struct cel_object cel_object_t;
typedef struct cel_decltype cel_decltype_t;

/** The kinds of runtime values. */
typedef enum cel_kind {
    CEL_NULL,
    CEL_BOOL,
    CEL_INT,
    CEL_UINT,
    CEL_DOUBLE,
    CEL_STRING,
    CEL_BYTES,
    CEL_LIST,
    CEL_MAP,
    CEL_TYPE,
    CEL_TIMESTAMP,
    CEL_DURATION,
    CEL_OPTIONAL,
    CEL_OBJECT, /**< a library value: URL, IP address, CIDR, quantity, semver */
    CEL_ERROR,
} cel_kind_t;

/** Flag in cel_value_t.flags: the list or map is a borrowed Jansson array or object. */
#define CEL_VF_JSON 0x1u
/** Flag in cel_value_t.flags, with CEL_VF_JSON: the document's declared type is known
 *  (`v.doc.type`, see cel_json_typed()). */
#define CEL_VF_TYPED 0x2u

/**
 * A CEL value: small, passed and copied by value. Pointers inside refer to memory owned by an
 * arena (or, for CEL_VF_JSON values and borrowed strings, by the caller's documents), so a
 * value is valid as long as what it points into.
 *
 * Strings are valid UTF-8 (`str.data`, `str.len` bytes, not NUL-terminated); `str.cp` caches
 * the number of code points, or is -1 when not yet counted. Bytes use `str` too. Lists and maps
 * are either arena-built (`list`, `map`) or, with CEL_VF_JSON in `flags`, a borrowed json_t
 * array or object (`json`) read lazily, element by element, never copied. An optional holds
 * NULL (none) or a pointer to its value. An object points at an immutable library value whose
 * type says what it is (cel_value_type()). An error holds its message.
 */
typedef struct cel_value {
    cel_kind_t kind;
    uint32_t flags;
    union {
        bool b;
        int64_t i;
        uint64_t u;
        double d;
        struct {
            const char *data;
            size_t len;
            int64_t cp;
        } str;
        const cel_list_t *list;
        const cel_map_t *map;
        const json_t *json;
        struct {
            const json_t *json; /* the same as `json` */
            const cel_decltype_t *type;
        } doc;
        const cel_type_t *type;
        struct {
            int64_t sec;  /**< seconds since the Unix epoch, UTC */
            int32_t nsec; /**< 0..999999999 */
        } ts;
        int64_t dur; /**< nanoseconds, the range of a signed 64-bit count (about 292 years) */
        const struct cel_value *opt;
        const cel_object_t *obj;
        const char *err;
    } v;
} cel_value_t;

/* ---- Arenas ----------------------------------------------------------------------------- */

/** Create an empty arena. Owned by the caller: free with cel_arena_free(). Any thread. */
cel_arena_t *cel_arena_new(void);

/** Run the registered cleanups (last registered first) and release every block. NULL is a
 *  no-op. The thread that owns the arena. */
void cel_arena_free(cel_arena_t *a);

/** Allocate `n` zeroed bytes aligned for any value, owned by `a`. */
void *cel_arena_alloc(cel_arena_t *a, size_t n);

/** Copy `len` bytes of `s` into `a` and NUL-terminate the copy. */
char *cel_arena_strndup(cel_arena_t *a, const char *s, size_t len);

/** Have cel_arena_free() call `fn(ptr)`: how foreign objects (regex code, Jansson documents)
 *  are tied to an arena's lifetime. */
void cel_arena_on_free(cel_arena_t *a, void (*fn)(void *), void *ptr);

/* ---- Types ------------------------------------------------------------------------------- */

/** The type value named `name` ("int", "list", "google.protobuf.Timestamp", ...), or NULL.
 *  Type values are static and never freed. Any thread. */
const cel_type_t *cel_type_find(const char *name);

/** The name of a type value, e.g. "map". Static storage. Any thread. */
const char *cel_type_name(const cel_type_t *t);

/** The type value of `v` (what CEL's type() returns). Any thread. */
const cel_type_t *cel_value_type(const cel_value_t *v);

/* ---- Values -------------------------------------------------------------------------------- */

/** Scalar constructors; nothing is allocated. */
cel_value_t cel_null(void);
cel_value_t cel_bool(bool b);
cel_value_t cel_int(int64_t i);
cel_value_t cel_uint(uint64_t u);
cel_value_t cel_double(double d);
/** A timestamp; an error value if outside 0001-01-01T00:00:00Z..9999-12-31T23:59:59.999999999Z
 *  or if `nsec` is outside 0..999999999. */
cel_value_t cel_timestamp(int64_t sec, int32_t nsec);
/** A duration of `ns` nanoseconds. */
cel_value_t cel_duration(int64_t ns);
/** The type value `t` (not NULL). */
cel_value_t cel_type_value(const cel_type_t *t);

/** A string holding a copy of `len` bytes at `s` in `a`; an error value if they are not valid
 *  UTF-8. */
cel_value_t cel_string(cel_arena_t *a, const char *s, size_t len);

/** A string that points at `s` without copying: the caller guarantees valid UTF-8 and that
 *  the bytes outlive every use of the value. */
cel_value_t cel_string_borrowed(const char *s, size_t len);

/** Bytes: a copy of `len` bytes at `s` in `a`. */
cel_value_t cel_bytes(cel_arena_t *a, const void *s, size_t len);

/** An error value whose message is printf-formatted into `a`. */
cel_value_t cel_error(cel_arena_t *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/** A list of copies of `n` values, owned by `a`. */
cel_value_t cel_list(cel_arena_t *a, const cel_value_t *items, size_t n);

/** A map of `n` entries from parallel arrays, owned by `a`. Keys must be int, uint, bool or
 *  string; a repeated key (numeric keys compare across int and uint) or another key kind
 *  gives an error value. */
cel_value_t cel_map(cel_arena_t *a, const cel_value_t *keys, const cel_value_t *vals, size_t n);

/** An optional: of a copy of `*v` in `a`, or none when `v` is NULL. */
cel_value_t cel_optional(cel_arena_t *a, const cel_value_t *v);

/**
 * A value read from a Jansson document without copying it. Objects become maps with string
 * keys and arrays become lists (both lazily: each element is converted when read), strings
 * borrow Jansson's bytes, integers become int, reals double, true/false bool, null null.
 * `j` is borrowed: it must stay alive and unmodified while the value (or anything taken from
 * it) is in use. NULL gives null.
 */
cel_value_t cel_json(const json_t *j);

/**
 * cel_json() for a document of declared type `t` (from cel_env_schema_type(); NULL: none): lists
 * and maps read from it know the types of their elements; numbers of a number schema are
 * doubles, strings of a date-time, date or duration format timestamps and durations (left
 * strings when malformed); and lists whose schema says
 * x-kubernetes-list-type "set" or "map" compare as kube-apiserver compares them, without
 * regard to order (map lists by their key properties), and concatenate as it does (sets: the
 * union; map lists: elements with the same keys replaced, others appended). `t` must outlive
 * the value. Any thread.
 */
cel_value_t cel_json_typed(const json_t *j, const cel_decltype_t *t);

/**
 * Kubernetes' escaping of a JSON property name into the CEL identifier that selects it:
 * "__" -> "__underscores__", "." -> "__dot__", "-" -> "__dash__", "/" -> "__slash__", and a CEL
 * reserved word w -> "__w__". Returns the identifier (NUL-terminated, in `a`), or NULL when the
 * name has no identifier (empty, starting with a digit, or holding any other character); such
 * properties cannot be selected. Any thread.
 */
const char *cel_escape_property(cel_arena_t *a, const char *name, size_t len);

/**
 * The property name that identifier `ident` (`len` bytes) selects: escape sequences decoded,
 * "__w__" of a reserved word w read as w, anything else as written. Returns it with its
 * length in `*outlen` (in `a`, or pointing into `ident` when nothing changed), or NULL when
 * `ident` holds "__" that starts no escape sequence. Field selection on JSON objects
 * (cel_json()) applies it, so `object.metadata.x__dash__y` reads property "x-y". Any thread.
 */
const char *cel_unescape_property(cel_arena_t *a, const char *ident, size_t len, size_t *outlen);

/** Number of elements of a list value. */
size_t cel_list_size(const cel_value_t *list);

/** Element `i` (< cel_list_size()) of a list value. */
cel_value_t cel_list_at(const cel_value_t *list, size_t i);

/** Number of entries of a map value. */
size_t cel_map_size(const cel_value_t *map);

/** Look `key` up in a map value (numeric keys match across int, uint and double as CEL's
 *  equality says); true and `*out` set when present. */
bool cel_map_find(const cel_value_t *map, const cel_value_t *key, cel_value_t *out);

/** Iterator over a map's entries in its order (insertion order, or the document's order for
 *  Jansson objects). Start with `it.pos = 0, it.json_iter = NULL` (or CEL_MAP_ITER_INIT). */
typedef struct cel_map_iter {
    size_t pos;
    void *json_iter;
} cel_map_iter_t;
#define CEL_MAP_ITER_INIT                                                                          \
    {                                                                                              \
        0, NULL                                                                                    \
    }

/** Next entry of a map into `*key` and `*val`; false at the end. */
bool cel_map_next(const cel_value_t *map, cel_map_iter_t *it, cel_value_t *key, cel_value_t *val);

/** CEL equality (`==`): heterogeneous across int, uint and double, element-wise for lists
 *  and maps, false across other kinds. Neither argument may be an error. Any thread. */
bool cel_value_equal(const cel_value_t *a, const cel_value_t *b);

/* ---- Environments ---------------------------------------------------------------------- */

/** Bounds applied when compiling; zero fields keep the defaults. */
typedef struct cel_limits {
    size_t max_expr_len; /**< code points of source text (default 100000) */
    int max_depth;       /**< nesting of parentheses, brackets, calls and unary operators
                              (default 250) */
    int max_height;      /**< nodes on the longest path of the parsed tree (default 1000) */
} cel_limits_t;

/** A new environment with macros on, an empty container and default limits. Owned by the
 *  caller: cel_env_free(). Any thread. */
cel_env_t *cel_env_new(void);

/** Free an environment; programs compiled from it stay valid. NULL is a no-op. */
void cel_env_free(cel_env_t *env);

/** Set the container (a dotted namespace such as "k8s.io.api") against which unqualified
 *  names resolve. CEL_EINVAL if `name` is not a dotted identifier. Copies `name`. */
int cel_env_set_container(cel_env_t *env, const char *name);

/** Turn macro expansion (has, all, exists, exists_one, map, filter, cel.bind, optMap,
 *  optFlatMap, sortBy, math.greatest, math.least; the two-variable all, exists, existsOne,
 *  transformList, transformMap, transformMapEntry) on or off. Off, these parse as ordinary
 *  calls. */
void cel_env_set_macros(cel_env_t *env, bool on);

/** Replace the compile limits (zero fields keep the defaults). */
void cel_env_set_limits(cel_env_t *env, const cel_limits_t *limits);

/* ---- Declarations and structural schemas ------------------------------------------------ */

/* cel_decltype_t: a static type known to the type checker: a primitive, list(T), map(K, V),
 * type(T), optional_type(T), dyn, a type parameter, a library type (net.IP,
 * kubernetes.Quantity, ...) or an object type described by a structural schema. Types are made
 * by an environment and live as long as it does. */

/** What a structural schema node is (OpenAPI v3 `type`, or x-kubernetes-int-or-string). */
typedef enum cel_schema_kind {
    CEL_SCHEMA_NONE,   /**< no type: not visible to expressions */
    CEL_SCHEMA_OBJECT, /**< with `props` (an object) or `additional_properties` (a map) */
    CEL_SCHEMA_ARRAY,  /**< with `items` */
    CEL_SCHEMA_STRING, /**< `format` "byte", "date", "date-time" and "duration" change the type */
    CEL_SCHEMA_INTEGER,
    CEL_SCHEMA_NUMBER,
    CEL_SCHEMA_BOOLEAN,
    CEL_SCHEMA_INT_OR_STRING, /**< x-kubernetes-int-or-string: dyn */
} cel_schema_kind_t;

/** x-kubernetes-list-type of an array. */
typedef enum cel_list_type {
    CEL_LIST_ATOMIC,
    CEL_LIST_SET,
    CEL_LIST_MAP,
} cel_list_type_t;

typedef struct cel_schema cel_schema_t;

/** A named property of an object schema. */
typedef struct cel_schema_prop {
    const char *name;
    const cel_schema_t *schema;
    bool required;
} cel_schema_prop_t;

/** "No bound" in cel_schema_t's max_length, max_items and max_properties (zero is a bound). */
#define CEL_SCHEMA_UNBOUNDED (-1)

/**
 * A structural schema as kube-apiserver reads a CRD's or a built-in kind's OpenAPI schema, as
 * much of it as type checking and cost estimation need. The host fills these (statically or
 * from its catalog); cel_env_schema_type() copies what it needs, so they may be freed after.
 * Start from CEL_SCHEMA(kind) so unset bounds are CEL_SCHEMA_UNBOUNDED.
 */
struct cel_schema {
    cel_schema_kind_t type;
    const char *format;                        /**< NULL or the OpenAPI format */
    int64_t max_length;                        /**< strings: code points */
    int64_t max_items;                         /**< arrays */
    int64_t max_properties;                    /**< maps */
    const cel_schema_t *items;                 /**< arrays: the element schema */
    const cel_schema_t *additional_properties; /**< maps: the value schema */
    const cel_schema_prop_t *props;            /**< objects: the properties */
    size_t nprops;
    const char *const *enum_values; /**< strings: the allowed values (bounds their length) */
    size_t nenum;
    bool has_default;          /**< a default is set: a required property may still be absent */
    bool embedded_resource;    /**< x-kubernetes-embedded-resource */
    cel_list_type_t list_type; /**< arrays: x-kubernetes-list-type */
    const char *const *list_map_keys; /**< arrays with CEL_LIST_MAP: the key properties */
    size_t nkeys;
    bool verbatim_names; /**< objects: properties are declared as named, not escaped (kube's
                              hand-built object types, e.g. the admission request's
                              `namespace`); schemas of resources leave it false */
};

/** A schema node of `kind` with no bounds set. */
#define CEL_SCHEMA(kind)                                                                           \
    ((cel_schema_t){.type = (kind),                                                                \
                    .max_length = CEL_SCHEMA_UNBOUNDED,                                            \
                    .max_items = CEL_SCHEMA_UNBOUNDED,                                             \
                    .max_properties = CEL_SCHEMA_UNBOUNDED})

/**
 * The type written `spec` in CEL's notation: "int", "string", "list(int)", "map(string, dyn)",
 * "optional_type(bool)", "type(int)", "dyn", "null_type", "google.protobuf.Timestamp" (or
 * "timestamp"), "google.protobuf.Duration" (or "duration"), the library types ("net.IP",
 * "net.CIDR", "kubernetes.URL", "kubernetes.Quantity", "kubernetes.Semver",
 * "kubernetes.authorization.Authorizer", ...) and type parameters (one capital letter). Owned
 * by `env`. NULL when `spec` is malformed. The thread configuring `env`.
 */
const cel_decltype_t *cel_env_type(cel_env_t *env, const char *spec);

/**
 * The type kube-apiserver gives a value of schema `s` (its DeclType): objects with properties
 * become object types named `name` (nested ones "<name>.<property>"), maps map(string, V),
 * arrays list(T), strings with a format timestamp, duration or bytes, int-or-string dyn.
 * `resource_root` adds apiVersion, kind and metadata.name/generateName as the root of a custom
 * resource has them. Types carry kube's size bounds for cost estimation: maxLength (code
 * points times four), maxItems, maxProperties, the longest enum value, or what fits in a 3 MiB
 * request. NULL when the schema is not visible to expressions. Owned by `env`; `s` is copied.
 */
const cel_decltype_t *cel_env_schema_type(cel_env_t *env, const cel_schema_t *s, const char *name,
                                          bool resource_root);

/** Leave out of type checking every overload whose id starts with one of `prefixes` (a
 *  NULL-terminated array in static storage, borrowed), as an environment without the library
 *  that declares it: kube-apiserver's environments enable fewer libraries than this one has.
 *  A call with no overload left is an undeclared reference. Needs type checking to matter. */
void cel_env_hide_overloads(cel_env_t *env, const char *const *prefixes);

/** optional_type(`t`), owned by `env` (how a schema type becomes kube's optional oldSelf).
 *  NULL for a NULL `t`. The thread configuring `env`. */
const cel_decltype_t *cel_env_optional_type(cel_env_t *env, const cel_decltype_t *t);

/** The smallest JSON size of a value of `t` (kube's DeclType MinSerializedSize) for a type
 *  made by cel_env_schema_type(); 0 for other types. Any thread. */
int64_t cel_decltype_min_size(const cel_decltype_t *t);

/** Declare variable `name` (a dotted name, e.g. "authorizer.requestResource") of type `t` for
 *  type checking and cost estimation. A later declaration of the same name replaces it.
 *  CEL_EINVAL for a malformed name. */
int cel_env_declare(cel_env_t *env, const char *name, const cel_decltype_t *t);

/** Type-check in cel_compile(): type errors fail the compilation as parse errors do, and the
 *  program carries its type and estimated cost. Off by default (every expression is dynamic). */
void cel_env_set_type_check(cel_env_t *env, bool on);

/** Charge evaluations as cel-go does with its OptOptimize option, as kube-apiserver runs
 *  programs (on by default): list and map literals of constants, conversions of constants and
 *  `in` over a constant list of scalars cost nothing. Off, they cost as written. */
void cel_env_set_optimize(cel_env_t *env, bool on);

/** The text of type `t` as cel-go prints it ("list(int)", "map(string, dyn)"), malloc'd; the
 *  caller frees it. */
char *cel_decltype_format(const cel_decltype_t *t);

/**
 * Give expressions compiled in `env` kube-apiserver's mutation library (what admission
 * mutations compile with): struct construction of `JSONPatch` (fields op, path and from,
 * strings, and value, dyn) and of `Object` and its nested types `Object.<field>...` (one per
 * field path), and the function `jsonpatch.escapeKey(string)`. Without `object` (NULL) the
 * object types are dynamic, as kube-apiserver 1.32 declares them: any field name, every field
 * dyn. With `object` (a type from cel_env_schema_type() for the object the expression
 * mutates) each `Object.<path>` is the schema's type at that path (list and map values
 * stepped through), and fields are checked against it. Without this, construction is an
 * unknown message type. The thread configuring `env`.
 */
void cel_env_enable_mutation(cel_env_t *env, const cel_decltype_t *object);

/**
 * The type name of a value built by struct construction under the mutation library
 * ("Object", "Object.spec", "JSONPatch"), or NULL for any other value. Such a value is a
 * CEL_MAP whose keys are its fields' names as written (a JSONPatch's: op, path, from, value),
 * so hosts read it with the map functions. Any thread.
 */
const char *cel_value_object_name(const cel_value_t *v);

/**
 * The JSON text cel-go's ConvertToNative gives a timestamp, duration or bytes value when it
 * becomes a JSON document's value (google.protobuf.Value): RFC 3339 with the fraction's zeros
 * trimmed, the seconds with an "s" ("1.5s"), standard base64. NUL-terminated, in `a`; NULL for
 * a value of another kind. Any thread.
 */
const char *cel_value_json_text(cel_arena_t *a, const cel_value_t *v);

/* ---- Compiling -------------------------------------------------------------------------- */

/** Where and why compiling failed. `message` is malloc'd and owned by the issue: the full
 *  report, "ERROR: <input>:L:C: what\n | source line\n | ....^", lines and columns from 1
 *  (columns in code points). Release with cel_issue_clear(). */
typedef struct cel_issue {
    int line;
    int column;
    char *message;
} cel_issue_t;

/** Free an issue's message and zero it. */
void cel_issue_clear(cel_issue_t *issue);

/**
 * Parse `src` (NUL-terminated, UTF-8) under `env`, expand macros, resolve names and
 * functions. On success returns 0 and a program owned by the caller (cel_program_free());
 * on failure CEL_EPARSE with `*issue` filled (the caller clears it). Any thread; `env` is
 * only read and not retained.
 */
int cel_compile(const cel_env_t *env, const char *src, cel_program_t **out, cel_issue_t *issue);

/** A cost range in the units of the CEL spec (cel-go's CostEstimate). */
typedef struct cel_cost_estimate {
    uint64_t min;
    uint64_t max;
} cel_cost_estimate_t;

/** What type checking found. Owned by the caller: cel_check_clear(). */
typedef struct cel_check {
    char *type;          /**< the expression's type, e.g. "bool"; NULL when it did not parse */
    cel_issue_t *issues; /**< every parse or type error, in source order of discovery */
    size_t nissues;
    cel_cost_estimate_t cost; /**< the static cost estimate (set when there are no issues) */
} cel_check_t;

/**
 * Parse and type-check `src` against the declarations of `env` (container, macros and limits
 * apply), and estimate its cost from the declared types and their schema bounds, as cel-go's
 * checker and kube-apiserver's cost estimator do. Returns 0 when there is no issue, CEL_EPARSE
 * otherwise; `*out` is filled either way (clear it with cel_check_clear()). Messages read as
 * cel-go's: "ERROR: <input>:1:3: found no matching overload for '_+_' applied to
 * '(int, string)'". Any thread; `env` is only read.
 */
int cel_check(const cel_env_t *env, const char *src, cel_check_t *out);

/** Free what cel_check() filled and zero it. */
void cel_check_clear(cel_check_t *c);

/** The static cost estimate of a program compiled with type checking on (0 and *out set), or
 *  CEL_EINVAL when it was compiled without. */
int cel_program_estimate(const cel_program_t *prog, cel_cost_estimate_t *out);

/** Free a program. NULL is a no-op. No evaluation may be running on it. */
void cel_program_free(cel_program_t *prog);

/* ---- Activations and evaluation --------------------------------------------------------- */

/** A host lookup for variables the activation does not bind itself: set `*out` (values may
 *  be allocated in `a`) and return true, or return false when `name` is unknown. Called on
 *  the evaluating thread. `name` is `len` bytes, not NUL-terminated. */
typedef bool (*cel_resolve_fn)(void *ctx, const char *name, size_t len, cel_arena_t *a,
                               cel_value_t *out);

/** A new, empty activation allocated in `a` (it dies with the arena). */
cel_activation_t *cel_activation_new(cel_arena_t *a);

/** Bind variable `name` (copied) to `v`. A later binding of the same name wins. */
void cel_activation_bind(cel_activation_t *act, const char *name, cel_value_t v);

/** Bind variable `name` to a Jansson document read lazily (see cel_json()); `doc` is
 *  borrowed and must outlive the arena's use. */
void cel_activation_bind_json(cel_activation_t *act, const char *name, const json_t *doc);

/** Bind variable `name` to a Jansson document of declared type `t` (see cel_json_typed());
 *  `doc` and `t` are borrowed. */
void cel_activation_bind_json_typed(cel_activation_t *act, const char *name, const json_t *doc,
                                    const cel_decltype_t *t);

/** Consult `fn(ctx, ...)` for names not bound directly. */
void cel_activation_set_resolver(cel_activation_t *act, cel_resolve_fn fn, void *ctx);

/**
 * Evaluate `prog` with the variables of `act` (NULL: none). Each step charges the cost
 * counter as cel-go's runtime cost tracker does in kube-apiserver (identifiers and field
 * selections 1, list literals 10, calls by their function's rule); `budget` is the most it
 * may reach (0: no limit). Returns 0 with the result in `*out` (possibly an error value: CEL
 * errors are values), or CEL_ECOST when the budget was exceeded (`*out` is then an error value
 * saying "operation cancelled: actual cost limit exceeded"). `*cost`, when not NULL, receives the
 * cost charged. Every value created lives in `a`; results may also point at constants of
 * `prog`, so use them only while both `a` and `prog` are alive. Any thread, concurrently
 * with others on the same program.
 */
int cel_eval(const cel_program_t *prog, const cel_activation_t *act, cel_arena_t *a,
             uint64_t budget, cel_value_t *out, uint64_t *cost);

/* ---- Authorization checks ------------------------------------------------------------------ */

/** An authorizer's decision. */
typedef enum cel_authz_decision {
    CEL_AUTHZ_NO_OPINION,
    CEL_AUTHZ_ALLOW,
    CEL_AUTHZ_DENY,
} cel_authz_decision_t;

/** What an authorization check asks, as kube-apiserver's authorizer attributes. Strings are
 *  NUL-terminated, never NULL except as noted, and live as long as the evaluation's arena. */
typedef struct cel_authz_attrs {
    const char *sa_namespace; /**< with sa_name: the check is for this service account
                                   (authorizer.serviceAccount()); both NULL: for the request's
                                   own user */
    const char *sa_name;
    bool resource_request; /**< a resource check; otherwise a non-resource path check */
    const char *verb;      /**< the API verb, or the HTTP verb of a path check */
    const char *path;      /**< path checks only (NULL otherwise) */
    const char *group;     /**< resource checks: "" is the core group */
    const char *resource;
    const char *subresource;    /**< "" when unset */
    const char *ns;             /**< "" for the cluster scope */
    const char *name;           /**< "" when unset */
    const char *field_selector; /**< as written in the expression; "" when unset */
    const char *label_selector;
} cel_authz_attrs_t;

/** The answer to one check. `reason` and `error` (NULL: none) must live as long as the arena
 *  handed to the callback (allocate them there, or use static strings). */
typedef struct cel_authz_result {
    cel_authz_decision_t decision;
    const char *reason;
    const char *error; /**< the check failed: errored() is true */
} cel_authz_result_t;

/** The host's authorizer: decide `attrs` into `*out` (which starts as "no opinion"). Called
 *  synchronously on the evaluating thread, once per check() in the expression. */
typedef void (*cel_authz_fn)(void *ctx, const cel_authz_attrs_t *attrs, cel_arena_t *a,
                             cel_authz_result_t *out);

/** The value to bind as `authorizer`: checks it builds are answered by `fn(ctx, ...)`. Lives
 *  in `a`; `ctx` is borrowed. Any thread. */
cel_value_t cel_authorizer(cel_arena_t *a, cel_authz_fn fn, void *ctx);

/** The value to bind as `authorizer.requestResource`: a resource check pre-set from the
 *  group, resource, subresource, ns and name of `req` (copied into `a`; other fields are
 *  ignored). Any thread. */
cel_value_t cel_authorizer_request_resource(cel_arena_t *a, cel_authz_fn fn, void *ctx,
                                            const cel_authz_attrs_t *req);

#endif
