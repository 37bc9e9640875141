/*
 * Internals shared by the files of cel/: allocation, strings, the lexer, the syntax tree, the
 * evaluator and the function table. Nothing here is part of the public contract.
 */
#ifndef CEL_CEL_INT_H
#define CEL_CEL_INT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cel.h"

/* ---- Allocation (aborts on failure, like gw_alloc) ------------------------------------- */

void *cel__xmalloc(size_t n);
void *cel__xcalloc(size_t n, size_t size);
void *cel__xrealloc(void *p, size_t n);
char *cel__xstrdup(const char *s);
char *cel__arena_vsprintf(cel_arena_t *a, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));
char *cel__arena_sprintf(cel_arena_t *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* ---- Aggregates and types ------------------------------------------------------------------ */

struct cel_list {
    size_t len;
    size_t cap;
    cel_value_t *items;
    const cel_decltype_t *type; /* a set or map list built from typed ones, else NULL */
};

struct cel_type {
    const char *name;
    cel_kind_t kind;
};

/* Entries in insertion order; `index` (open addressing, slot = entry index + 1) once the map
 * is large enough that linear search would cost more than hashing. */
struct cel_map {
    cel_type_t objtype; /* built by object construction (`Object.spec{...}`): its type, whose
                           name is NULL for a plain map */
    size_t len;
    size_t cap;
    cel_value_t *keys;
    cel_value_t *vals;
    uint32_t *index;
    size_t index_cap;
};

extern const cel_type_t cel__type_null, cel__type_bool, cel__type_int, cel__type_uint,
    cel__type_double, cel__type_string, cel__type_bytes, cel__type_list, cel__type_map,
    cel__type_type, cel__type_timestamp, cel__type_duration, cel__type_optional, cel__type_error;

/* Library values (CEL_OBJECT): each library embeds `cel_object_t` first in its own struct and
 * points it at a static ops table. */
typedef struct cel__object_ops {
    const cel_type_t *type;
    bool (*equal)(const cel_object_t *a, const cel_object_t *b); /* same ops on both sides */
} cel__object_ops_t;

struct cel_object {
    const cel__object_ops_t *ops;
};

extern const cel_type_t cel__type_url, cel__type_ip, cel__type_cidr, cel__type_quantity,
    cel__type_semver, cel__type_authorizer, cel__type_path_check, cel__type_group_check,
    cel__type_resource_check, cel__type_decision, cel__type_named_format;

/** An object value. */
cel_value_t cel__object_value(const cel_object_t *o);
/** Whether `v` is an object of type `t`. */
bool cel__is_object(const cel_value_t *v, const cel_type_t *t);

/* ---- Text building ------------------------------------------------------------------------ */

/** A growable byte buffer in an arena. */
typedef struct cel__buf {
    cel_arena_t *a;
    char *data;
    size_t len;
    size_t cap;
} cel__buf_t;

void cel__buf_init(cel__buf_t *b, cel_arena_t *a, size_t cap);
void cel__buf_put(cel__buf_t *b, const char *s, size_t n);
void cel__buf_putc(cel__buf_t *b, char c);
void cel__buf_puts(cel__buf_t *b, const char *s);
void cel__buf_printf(cel__buf_t *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/** Append Go's %q rendering of `s` (strconv.Quote): how kube-apiserver's messages quote input. */
void cel__go_quote(cel__buf_t *b, const char *s, size_t len);
/** Bytes from outside (decoded URL parts) as a string value: invalid UTF-8 sequences become
 *  U+FFFD, since CEL strings hold only valid UTF-8. */
cel_value_t cel__string_lossy(cel_arena_t *a, const char *s, size_t len);
/** The buffer as a string value (the bytes must be valid UTF-8); the buffer stays usable. */
cel_value_t cel__buf_string(const cel__buf_t *b);

/* ---- UTF-8 --------------------------------------------------------------------------------- */

/** Decode one code point at s[0..len); returns the bytes used, or 0 if malformed (overlong,
 *  surrogate, beyond U+10FFFF or truncated). */
size_t cel__utf8_decode(const char *s, size_t len, uint32_t *cp);
/** Encode `cp` into `out` (4 bytes room); returns the bytes written. */
size_t cel__utf8_encode(uint32_t cp, char *out);
bool cel__utf8_valid(const char *s, size_t len);
size_t cel__utf8_count(const char *s, size_t len);
/** Byte offset of code point `n` (clamped to len). */
size_t cel__utf8_offset(const char *s, size_t len, size_t n);

/* ---- Values (cel_value.c) ------------------------------------------------------------------- */

/** Number of code points of a string value, counting (and not caching) when unknown. */
int64_t cel__str_cplen(const cel_value_t *s);
/** A string value from arena-owned, valid UTF-8 bytes: no copy. */
cel_value_t cel__string_own(const char *s, size_t len);
/** Three-way comparison for `<` and friends: -1/0/1, or 2 when the kinds are not ordered
 *  against each other. NaN compares as 2 against everything. */
int cel__value_compare(const cel_value_t *a, const cel_value_t *b);
/** A growable list owned by `a`. */
cel_list_t *cel__list_new(cel_arena_t *a, size_t cap);
void cel__list_push(cel_arena_t *a, cel_list_t *l, cel_value_t v);
cel_value_t cel__list_value(const cel_list_t *l);
/** A growable map owned by `a`. */
cel_map_t *cel__map_new(cel_arena_t *a, size_t cap);
/** Insert an entry; false if the key is already there. */
bool cel__map_put(cel_arena_t *a, cel_map_t *m, cel_value_t k, cel_value_t v);
cel_value_t cel__map_value(const cel_map_t *m);
/** Whether `k` can be a map key. */
bool cel__map_key_ok(const cel_value_t *k);
/** The declared type of a list that is a set or map list (x-kubernetes-list-type), else NULL. */
const cel_decltype_t *cel__list_kind(const cel_value_t *list);
/** `l + r` where `l` is a set or map list of type `t`: kube-apiserver's union or merge. */
cel_value_t cel__list_merge(cel_arena_t *a, const cel_value_t *l, const cel_value_t *r,
                            const cel_decltype_t *t);
/** Index a list with an int, uint or integral double; error value when out of range. */
bool cel__list_index(const cel_value_t *list, const cel_value_t *idx, cel_value_t *out,
                     const char **why);

/* Internal value flag: a list being built in place by a macro's accumulator (see
 * cel_eval.c); never set on a value a caller sees. */
#define CEL__VF_ACCU 0x100u

/* Work that cel-go does not count (building large results, sorting) is bounded apart from
 * the cost: an evaluation also stops when that work, in units of about ten bytes or
 * comparisons, exceeds this many times its budget. */
#define CEL__WORK_FACTOR 10

/* ---- Numbers and text (cel_strconv.c) --------------------------------------------------- */

/** Format a double the way CEL's string() does (shortest digits that read back exactly;
 *  exponent form when the decimal exponent is below -4 or at least 6; "NaN", "+Inf"), into
 *  `a`. */
char *cel__format_double(cel_arena_t *a, double d);
/** Parse a whole string as a double (decimal, exponent, inf, nan); false if malformed. */
bool cel__parse_double(const char *s, size_t len, double *out);
/** Parse a whole string as a base-10 int64 / uint64; false if malformed or out of range. */
bool cel__parse_int(const char *s, size_t len, int64_t *out);
bool cel__parse_uint(const char *s, size_t len, uint64_t *out);
/** Base64 (standard alphabet, padded) encode into `a`; decode accepting missing padding. */
char *cel__base64_encode(cel_arena_t *a, const unsigned char *s, size_t len, size_t *outlen);
bool cel__base64_decode(cel_arena_t *a, const char *s, size_t len, unsigned char **out,
                        size_t *outlen);

/* ---- Time (cel_time.c) ---------------------------------------------------------------------- */

#define CEL__TS_MIN (-62135596800LL) /* 0001-01-01T00:00:00Z */
#define CEL__TS_MAX (253402300799LL) /* 9999-12-31T23:59:59Z */

bool cel__ts_parse(const char *s, size_t len, int64_t *sec, int32_t *nsec);
char *cel__ts_format(cel_arena_t *a, int64_t sec, int32_t nsec);
bool cel__dur_parse(const char *s, size_t len, int64_t *ns);
char *cel__dur_format(cel_arena_t *a, int64_t ns);
bool cel__time_literal_ok(bool timestamp, const cel_value_t *v);
/** Broken-down civil time of a timestamp in time zone `tz` (NULL: UTC). */
typedef struct cel__civil {
    int64_t year;
    int month; /* 1..12 */
    int day;   /* 1..31 */
    int hour, min, sec;
    int wday; /* 0 = Sunday */
    int yday; /* 0..365 */
} cel__civil_t;
typedef struct cel__eval cel__eval_t;
#define CEL__TZ_NAME_MAX 100
/** Fill `*c` for `sec` seen from zone `tz` ("UTC", "America/New_York", "+05:30", "-02:00");
 *  false with `*why` set when the zone is unknown. Zone files are cached in `ev`. */
bool cel__civil_time(cel__eval_t *ev, int64_t sec, const char *tz, size_t tzlen, cel__civil_t *c,
                     const char **why);

/* ---- Lexer (cel_lex.c) ---------------------------------------------------------------------- */

typedef enum cel__tok_kind {
    CEL__T_EOF,
    CEL__T_ERROR,
    CEL__T_INT, /* text: the digits, base in `base` */
    CEL__T_UINT,
    CEL__T_DOUBLE, /* d */
    CEL__T_STRING, /* str/len: unescaped, valid UTF-8 */
    CEL__T_BYTES,
    CEL__T_IDENT,
    CEL__T_QIDENT, /* `backquoted` identifier, str/len */
    CEL__T_TRUE,
    CEL__T_FALSE,
    CEL__T_NULL,
    CEL__T_IN,
    CEL__T_LPAREN,
    CEL__T_RPAREN,
    CEL__T_LBRACKET,
    CEL__T_RBRACKET,
    CEL__T_LBRACE,
    CEL__T_RBRACE,
    CEL__T_DOT,
    CEL__T_COMMA,
    CEL__T_COLON,
    CEL__T_QUESTION,
    CEL__T_NOT,
    CEL__T_MINUS,
    CEL__T_PLUS,
    CEL__T_STAR,
    CEL__T_SLASH,
    CEL__T_PERCENT,
    CEL__T_EQ,
    CEL__T_NE,
    CEL__T_LT,
    CEL__T_LE,
    CEL__T_GT,
    CEL__T_GE,
    CEL__T_AND,
    CEL__T_OR,
} cel__tok_kind_t;

typedef struct cel__token {
    cel__tok_kind_t kind;
    size_t pos; /* byte offset of the first character */
    size_t end; /* byte offset after the last character */
    const char *str;
    size_t len;
    int base; /* 10 or 16 for integer tokens */
    double d;
    const char *msg; /* CEL__T_ERROR: why; pos says where */
} cel__token_t;

typedef struct cel__lexer {
    const char *src;
    size_t len;
    size_t pos;
    cel_arena_t *arena; /* unescaped string bodies go here */
} cel__lexer_t;

/** Scan the next token from `lx` into `*t`. */
void cel__lex_next(cel__lexer_t *lx, cel__token_t *t);
/** Whether `s` (NUL-terminated) is a reserved word that cannot be an identifier. */
bool cel__lex_reserved(const char *s, size_t len);
/** Human text of a token kind for messages, e.g. "')'". */
const char *cel__tok_name(cel__tok_kind_t k);

/* ---- Syntax tree (cel_parse.c) -------------------------------------------------------------- */

typedef enum cel__node_kind {
    CEL__N_CONST,
    CEL__N_IDENT,
    CEL__N_SELECT,
    CEL__N_CALL,
    CEL__N_LIST,
    CEL__N_MAP,
    CEL__N_STRUCT,
    CEL__N_COMP,
} cel__node_kind_t;

/* Passes over a tree mark the nodes they have done (cel__node_t.seen), so that a node shared by
 * a macro expansion (optMap's target) is done once, not once per path to it. */
#define CEL__SEEN_RESOLVE 0x1u
#define CEL__SEEN_COST 0x2u
#define CEL__SEEN_CONST 0x4u /* with CEL__SEEN_COST: the optimizer makes it a constant */
#define CEL__SEEN_COUNT 0x8u

/* Operators get codes so the evaluator dispatches without comparing names. */
typedef enum cel__op {
    CEL__OP_NONE,
    CEL__OP_AND,
    CEL__OP_OR,
    CEL__OP_COND,
    CEL__OP_NOT_STRICTLY_FALSE,
    CEL__OP_OPT_INDEX,
    CEL__OP_OPT_SELECT,
    CEL__OP_OR_OPT,   /* opt.or(x): x only when needed */
    CEL__OP_OR_VALUE, /* opt.orValue(x): likewise */
    CEL__OP_FUNCTION, /* an ordinary, strict function call */
} cel__op_t;

typedef struct cel__node cel__node_t;
typedef struct cel__fn cel__fn_t;

struct cel__node {
    cel__node_kind_t kind;
    uint32_t id;
    size_t pos; /* byte offset in the source, for messages */
    int height;
    uint8_t unit; /* cost charged for evaluating this node itself (cel_cost.c) */
    bool folded;  /* cel-go's optimizer makes it a constant or a set lookup: it costs nothing */
    uint8_t seen; /* CEL__SEEN_*: passes done; a macro may share a node between two parents */
    union {
        cel_value_t constant;
        struct {
            const char *name;
            bool root;          /* written with a leading dot */
            int slot;           /* comprehension variable slot, or -1 */
            const char **cands; /* qualified names to try, longest scope first */
            int ncands;
        } ident;
        struct {
            cel__node_t *operand;
            const char *field;
            size_t flen;
            bool test_only;     /* has() */
            const char **cands; /* when operand is a pure dotted name: names to try */
            int ncands;
        } select;
        struct {
            cel__node_t *target; /* receiver, or NULL */
            const char *name;
            cel__node_t **args;
            int nargs;
            cel__op_t op;
            const cel__fn_t *fn;
            void *regex;  /* compiled constant pattern of matches(), owned by the program */
            uint8_t rule; /* how its runtime cost is reckoned (cel_cost.c) */
        } call;
        struct {
            cel__node_t **elems;
            bool *optional;
            int n;
        } list;
        struct {
            cel__node_t **keys; /* for CEL__N_STRUCT: field names as CEL__N_CONST strings */
            cel__node_t **vals;
            bool *optional;
            int n;
            const char *type_name; /* CEL__N_STRUCT only */
            uint8_t mtype;         /* CEL__N_STRUCT: CEL__M_*, set when names resolve */
        } map;
        struct {
            const char *iter_var;
            const char *iter_var2; /* two-variable comprehensions: the value (else NULL) */
            cel__node_t *range;
            const char *accu_var;
            cel__node_t *init;
            cel__node_t *cond;
            cel__node_t *step;
            cel__node_t *result;
            int iter_slot;
            int iter_slot2;
            int accu_slot;
        } comp;
    } u;
};

/** The name comprehensions generated by macros use for their accumulator; not a valid
 *  identifier, so user code cannot refer to it. */
#define CEL__ACCU "@result"

typedef struct cel__parse_opts {
    bool macros;
    size_t max_expr_len;
    int max_depth;
    int max_height;
} cel__parse_opts_t;

typedef struct cel__parse_err {
    size_t pos;
    char msg[160];
} cel__parse_err_t;

/** Parse `src` into a tree allocated in `a`; NULL with `*err` filled on failure. */
cel__node_t *cel__parse(const char *src, const cel__parse_opts_t *opts, cel_arena_t *a,
                        cel__parse_err_t *err);

/** Write a readable, fully parenthesised rendering of a tree (for tests and messages). */
char *cel__node_dump(cel_arena_t *a, const cel__node_t *n);

/* ---- Static types (cel_types.c) --------------------------------------------------------- */

typedef enum cel__tk {
    CEL__TK_DYN,
    CEL__TK_ERROR,
    CEL__TK_NULL,
    CEL__TK_BOOL,
    CEL__TK_INT,
    CEL__TK_UINT,
    CEL__TK_DOUBLE,
    CEL__TK_STRING,
    CEL__TK_BYTES,
    CEL__TK_TIMESTAMP,
    CEL__TK_DURATION,
    CEL__TK_LIST,     /* p[0]: element */
    CEL__TK_MAP,      /* p[0]: key, p[1]: value */
    CEL__TK_TYPE,     /* p[0]: the type denoted, or NULL for `type` itself */
    CEL__TK_OPTIONAL, /* p[0]: the value's type */
    CEL__TK_PARAM,    /* a type parameter: `name`; `var` >= 0 for the checker's fresh ones */
    CEL__TK_OPAQUE,   /* a library type: `name` */
    CEL__TK_OBJECT,   /* a schema object: `name`, `fields` */
} cel__tk_t;

typedef struct cel__field {
    const char *name;      /* as expressions select it (escaped) */
    const char *json_name; /* the property's name */
    const cel_decltype_t *type;
    bool required;
} cel__field_t;

struct cel_decltype {
    cel__tk_t kind;
    const char *name;
    int var;
    const cel_decltype_t *p[2];
    const cel__field_t *fields;
    int nfields;
    /* kube-apiserver's DeclType bounds: set on types made from schemas, read by the cost
     * estimator (MaxElements: size of strings, bytes, lists and maps; MinSerializedSize). */
    bool bounded;
    uint64_t max_elements;
    int64_t min_size;
    /* Lists from schemas: x-kubernetes-list-type and, for map lists, the key properties. */
    cel_list_type_t list_type;
    const char *const *map_keys;
    int nkeys;
    bool open; /* objects: any field may be selected or set, as dyn (the mutation library's
                  dynamic `Object` types) */
};

extern const cel_decltype_t cel__t_dyn, cel__t_error, cel__t_null, cel__t_bool, cel__t_int,
    cel__t_uint, cel__t_double, cel__t_string, cel__t_bytes, cel__t_timestamp, cel__t_duration,
    cel__t_type;

/** A new type of `kind` with parameters `p0`, `p1` (NULL when unused), in `a`. */
cel_decltype_t *cel__ty_new(cel_arena_t *a, cel__tk_t kind, const cel_decltype_t *p0,
                            const cel_decltype_t *p1);
/** A type parameter named `name` (not copied). */
cel_decltype_t *cel__ty_param(cel_arena_t *a, const char *name, int var);
/** Parse a type written in CEL's notation at `*s`, advancing `*s` past it; NULL if malformed.
 *  Type parameters are single capital letters. */
const cel_decltype_t *cel__ty_parse(cel_arena_t *a, const char **s);
/** Append the type as cel-go's FormatCelType prints it. */
void cel__ty_format(cel__buf_t *b, const cel_decltype_t *t);
/** The type as text, in `a`. */
const char *cel__ty_text(cel_arena_t *a, const cel_decltype_t *t);
/** Exact equality (type parameters by name). */
bool cel__ty_equal(const cel_decltype_t *x, const cel_decltype_t *y);
/** The type an identifier naming a type denotes, type(T) ("int", "list",
 *  "google.protobuf.Timestamp", "net.IP", ...), or NULL. */
const cel_decltype_t *cel__ty_of_type_name(cel_arena_t *a, const char *name);
/** The field `name` of an object type, or NULL. */
const cel__field_t *cel__ty_field(const cel_decltype_t *t, const char *name, size_t len);
/** kube-apiserver's SchemaDeclType (see cel_env_schema_type()). */
const cel_decltype_t *cel__ty_from_schema(cel_arena_t *a, const cel_schema_t *s, const char *name,
                                          bool resource_root);

/* ---- Declarations and checking (cel_decls.c, cel_check.c) ------------------------------- */

typedef struct cel__decl {
    const char *name;
    const cel_decltype_t *type;
    struct cel__decl *next;
} cel__decl_t;

/** One overload of a declared function, its types parsed into the checker's arena. */
typedef struct cel__overload {
    const char *id;
    bool member;
    int nargs; /* counting the target of a member overload */
    const cel_decltype_t *args[4];
    const cel_decltype_t *result;
} cel__overload_t;

/** Whether any function named `name` is declared. */
bool cel__decl_known(const char *name);
/** The overloads of function `name`, parsed into `a`; their number in `*n`. */
const cel__overload_t *cel__decl_overloads(cel_arena_t *a, const char *name, int *n);

/** What the checker learnt about a tree, indexed by node id: each node's type (type
 *  parameters bound or dyn), each call's matching overload ids. */
typedef struct cel__checked {
    uint32_t nnodes;
    const cel_decltype_t **types;
    const char ***overloads; /* NULL-terminated lists */
    const char **names;      /* identifiers and selections naming a declared variable: its name */
} cel__checked_t;

typedef struct cel__check_issue {
    size_t pos;
    const char *msg;
} cel__check_issue_t;

/** Type-check the resolved tree `root` of `src` in `a`: fills `*out` and the issues (in `a`);
 *  returns the number of issues. */
int cel__check_tree(const cel_env_t *env, const char *src, cel__node_t *root, cel_arena_t *a,
                    cel__checked_t *out, cel__check_issue_t **issues);
/** The variable declarations of an environment, newest first. */
const cel__decl_t *cel__env_decls(const cel_env_t *env);
const char *cel__env_container(const cel_env_t *env);
/** Whether overload `id` is left out of env's type checking (cel_env_hide_overloads()); for a
 *  NULL `id`, whether anything is. */
bool cel__env_hidden(const cel_env_t *env, const char *id);

/* ---- Costs (cel_cost.c) ------------------------------------------------------------------- */

/** Set each node's evaluation cost units (cel-go's runtime cost model; `optimize` as
 *  cel_env_set_optimize()). */
void cel__cost_annotate(cel__node_t *root, bool optimize);
/** The cost of a call of `call` (annotated) on `args` that gave `result`. */
uint64_t cel__call_cost(const cel__node_t *call, const cel_value_t *args, int nargs,
                        const cel_value_t *result);
/** The static cost estimate of a checked tree (cel-go's checker.Cost with kube-apiserver's
 *  library estimator and schema size estimator). */
cel_cost_estimate_t cel__estimate(const cel__node_t *root, const cel__checked_t *chk,
                                  const cel_env_t *env, cel_arena_t *a);

/* ---- Programs and evaluation ---------------------------------------------------------------- */

struct cel_program {
    cel_arena_t *arena; /* the tree, names, constants, compiled constant regexes */
    cel__node_t *root;
    int nslots;
    char *src;
    bool checked; /* compiled with type checking: `estimate` is set */
    cel_cost_estimate_t estimate;
};

typedef struct cel__binding {
    const char *name;
    size_t len;
    cel_value_t v;
    struct cel__binding *next;
} cel__binding_t;

struct cel_activation {
    cel__binding_t *head;
    cel_resolve_fn resolve;
    void *resolve_ctx;
    cel_arena_t *arena;
};

struct cel__eval {
    const cel_program_t *prog;
    const cel_activation_t *act;
    cel_arena_t *arena;
    uint64_t cost;
    uint64_t budget;
    uint64_t work; /* see CEL__WORK_FACTOR */
    bool halted;
    cel_value_t *slots; /* comprehension variables */
    /* Per slot: the comprehension whose accumulator has not been read yet (its initializer
     * then runs), or NULL. */
    const cel__node_t **pending;
    char tz_name[CEL__TZ_NAME_MAX + 1]; /* the last time zone file read, and its bytes */
    unsigned char *tz_data;
    size_t tz_len;
};

/** Add `n` to the evaluation's cost; halts the evaluation (and returns false) past the
 *  budget. */
bool cel__charge(cel__eval_t *ev, uint64_t n);
/** Count `n` units of work that the cost model does not charge; halts the evaluation (and
 *  returns false) past CEL__WORK_FACTOR times the budget. */
bool cel__work(cel__eval_t *ev, uint64_t n);
/** The error value that stops an evaluation over budget. */
cel_value_t cel__halt_error(cel__eval_t *ev);
/** Evaluate one node. */
cel_value_t cel__eval_node(cel__eval_t *ev, const cel__node_t *n);
/** Field selection `v.field` with CEL's rules for maps (no such key) and optionals. */
cel_value_t cel__select(cel__eval_t *ev, cel_value_t v, const char *f, size_t flen, bool test_only);
/** Index `v[k]`. */
cel_value_t cel__index(cel__eval_t *ev, cel_value_t v, cel_value_t k);

/* ---- Functions (cel_builtins.c, cel_time.c, cel_regex.c) ----------------------------------- */

typedef cel_value_t (*cel__fn_impl_t)(cel__eval_t *ev, const cel__node_t *call,
                                      const cel_value_t *args, int nargs);

struct cel__fn {
    const char *name;
    bool receiver; /* called as target.name(args): args[0] is the target */
    int min_args;  /* counting the target */
    int max_args;
    cel__fn_impl_t impl;
};

/** The function called `name` in the given style accepting `nargs` arguments, or NULL;
 *  `*name_known` tells whether any function has that name. */
const cel__fn_t *cel__fn_find(const char *name, bool receiver, int nargs, bool *name_known);
/** "no such overload: name(int, string)" for arguments that fit no overload. */
cel_value_t cel__no_overload(cel__eval_t *ev, const char *name, const cel_value_t *args, int nargs);
cel_value_t cel__err(cel__eval_t *ev, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/** cel__work() for an operation over `n` bytes or elements: one unit per ten. */
bool cel__work_size(cel__eval_t *ev, uint64_t n);

/** Hand a call on to the next function of the same name, call style and arity after the one
 *  whose implementation is `self`, in table order: how functions of different libraries share
 *  a name (indexOf on strings and lists, string() of library values). "no such overload" when
 *  none is left. */
cel_value_t cel__fn_next(cel__eval_t *ev, const cel__node_t *call, cel__fn_impl_t self,
                         const cel_value_t *args, int nargs);

/** Go's url.ParseRequestURI(s) error text ("parse \"s\": ..."), or NULL when it accepts `s`
 *  (cel_lib_url.c). */
const char *cel__url_request_error(cel_arena_t *a, const char *s, size_t n);

/** string.format(list) (cel_lib_format.c). */
cel_value_t cel__fn_format(cel__eval_t *ev, const cel__node_t *call, const cel_value_t *args,
                           int nargs);
/** A short readable rendering of a value for error messages (format's %s where it applies,
 *  else the type name). */
const char *cel__value_text(cel_arena_t *a, const cel_value_t *v);

/* ---- The mutation library (cel_lib_mutation.c) ----------------------------------------- */

/* What a struct construction builds: nothing known (an evaluation error), an object of the
 * `Object` family or a JSONPatch operation. */
enum { CEL__M_NONE, CEL__M_OBJECT, CEL__M_JSONPATCH };

/** Whether `env` has the mutation library; `*root` (when not NULL) receives the object's
 *  declared type it was given (NULL: dynamic). */
bool cel__env_mutation(const cel_env_t *env, const cel_decltype_t **root);
/** CEL__M_* for the struct type named `name` (a leading dot ignored) in `env`. */
int cel__mutation_kind(const cel_env_t *env, const char *name);
/** The checker's type of the struct type named `name`, or NULL when `env` declares no such
 *  type; in `a`. */
const cel_decltype_t *cel__mutation_type(const cel_env_t *env, cel_arena_t *a, const char *name);
/** The type of field `f` of `t` (made by cel__mutation_type()), or NULL when it has none. */
const cel_decltype_t *cel__mutation_field(const cel_env_t *env, cel_arena_t *a,
                                          const cel_decltype_t *t, const char *f);
/** Evaluate a struct construction node. */
cel_value_t cel__mutation_construct(cel__eval_t *ev, const cel__node_t *n);

/* Function tables, each NULL-name terminated, searched by cel__fn_find() in this order. */
extern const cel__fn_t cel__builtin_fns[];
extern const cel__fn_t cel__time_fns[];
extern const cel__fn_t cel__strings_fns[];
extern const cel__fn_t cel__lists_fns[];
extern const cel__fn_t cel__math_fns[];
extern const cel__fn_t cel__encoders_fns[];
extern const cel__fn_t cel__regex_fns[];
extern const cel__fn_t cel__url_fns[];
extern const cel__fn_t cel__net_fns[];
extern const cel__fn_t cel__quantity_fns[];
extern const cel__fn_t cel__semver_fns[];
extern const cel__fn_t cel__authz_fns[];
extern const cel__fn_t cel__sets_fns[];
extern const cel__fn_t cel__comprehension_fns[];
extern const cel__fn_t cel__named_format_fns[];
extern const cel__fn_t cel__jsonpatch_fns[];

/** The regular expression length kube-apiserver charges a named format's validate() for, or
 *  0 when `v` is not a named format (cel_lib_named_format.c). */
int cel__named_format_regex_size(const cel_value_t *v);
/** The size kube-apiserver gives an IP (address bytes) or CIDR (prefix bytes), or -1 when `v`
 *  is neither (cel_lib_net.c). */
int64_t cel__net_size(const cel_value_t *v);

/* Regular expressions (cel_regex.c). */
/** Compile `pat` for matching; NULL with `*why` (Go's regexp/syntax message, in `a`) on a bad
 *  pattern. */
void *cel__regex_compile(cel_arena_t *a, const char *pat, size_t len, const char **why);
void cel__regex_free(void *re);
/** Search `s` from byte `start` for `re`: 1 with the match at [*mstart, *mend), 0 when there
 *  is none, -1 with `*why` on a match-limit or engine error. */
int cel__regex_find(cel__eval_t *ev, void *re, const char *s, size_t len, size_t start,
                    size_t *mstart, size_t *mend, const char **why);
/** Search `s` for `re`: 1 found, 0 not, -1 with `*why` on a match-limit or engine error. */
int cel__regex_search(cel__eval_t *ev, void *re, const char *s, size_t len, const char **why);
cel_value_t cel__fn_matches(cel__eval_t *ev, const cel__node_t *call, const cel_value_t *args,
                            int nargs);

#endif
