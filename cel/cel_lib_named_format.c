/*
 * kube-apiserver's format library: named string formats (format.dns1123Label(), ...,
 * format.named(name)) whose validate(s) gives optional.none() for a valid string, or the list
 * of apimachinery's validation messages (RFC 1123 and 1035 names, qualified names, label
 * values) or kube-openapi's (uri, uuid, byte, date, datetime).
 */
#include "cel.h"

#include <string.h>

#include "cel_int.h"

const cel_type_t cel__type_named_format = {"kubernetes.NamedFormat", CEL_OBJECT};

#define LABEL_FMT "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
#define QNAME_FMT "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
#define LABEL_MSG                                                                                  \
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "   \
    "must start and end with an alphanumeric character"
#define SUBDOMAIN_MSG                                                                              \
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "   \
    "'.', and must start and end with an alphanumeric character"
#define DNS1035_MSG                                                                                \
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "   \
    "alphabetic character, and end with an alphanumeric character"
#define QNAME_MSG                                                                                  \
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "    \
    "alphanumeric character"
#define LABEL_VALUE_MSG                                                                            \
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "    \
    "'.', and must start and end with an alphanumeric character"

/* Validation messages being collected. */
typedef struct nf_errs {
    cel_arena_t *a;
    cel_list_t *list;
} nf_errs_t;

static void
nf_add(nf_errs_t *e, const char *prefix, const char *msg)
{
    const char *s = cel__arena_sprintf(e->a, "%s%s", prefix, msg);
    cel__list_push(e->a, e->list, cel__string_own(s, strlen(s)));
}

/* apimachinery's RegexError: the message, its examples and the regular expression. */
static const char *
nf_regex_error(cel_arena_t *a, const char *msg, const char *fmt, const char *const *examples)
{
    cel__buf_t b;
    cel__buf_init(&b, a, 256);
    cel__buf_printf(&b, "%s (e.g. ", msg);
    for (int i = 0; examples[i] != NULL; i++)
        cel__buf_printf(&b, "%s'%s', ", i > 0 ? " or " : "", examples[i]);
    cel__buf_printf(&b, "regex used for validation is '%s')", fmt);
    return b.data;
}

static const char *
nf_max_len(cel_arena_t *a, int n)
{
    return cel__arena_sprintf(a, "must be no more than %d characters", n);
}

/* ---- Name shapes ---- */

static bool
nf_alnum(char c, bool upper)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || (upper && c >= 'A' && c <= 'Z');
}

/* [a-z0-9]([-a-z0-9]*[a-z0-9])? (first character a letter for RFC 1035). */
static bool
nf_label(const char *s, size_t n, bool rfc1035)
{
    if (n == 0 || !nf_alnum(s[0], false) || !nf_alnum(s[n - 1], false))
        return false;
    if (rfc1035 && (s[0] < 'a' || s[0] > 'z'))
        return false;
    for (size_t i = 0; i < n; i++) {
        if (!nf_alnum(s[i], false) && s[i] != '-')
            return false;
    }
    return true;
}

static bool
nf_subdomain(const char *s, size_t n)
{
    size_t start = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i < n && s[i] != '.')
            continue;
        if (!nf_label(s + start, i - start, false))
            return false;
        start = i + 1;
    }
    return true;
}

/* ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9] */
static bool
nf_qname(const char *s, size_t n)
{
    if (n == 0 || !nf_alnum(s[0], true) || !nf_alnum(s[n - 1], true))
        return false;
    for (size_t i = 0; i < n; i++) {
        if (!nf_alnum(s[i], true) && s[i] != '-' && s[i] != '_' && s[i] != '.')
            return false;
    }
    return true;
}

/* ---- apimachinery's validators ---- */

static void
nf_dns1123_label(nf_errs_t *e, const char *s, size_t n)
{
    static const char *const ex[] = {"my-name", "123-abc", NULL};
    if (n > 63)
        nf_add(e, "", nf_max_len(e->a, 63));
    if (!nf_label(s, n, false))
        nf_add(e, "",
               nf_subdomain(s, n) ? "must not contain dots"
                                  : nf_regex_error(e->a, LABEL_MSG, LABEL_FMT, ex));
}

static void
nf_dns1123_subdomain(nf_errs_t *e, const char *prefix, const char *s, size_t n)
{
    static const char *const ex[] = {"example.com", NULL};
    if (n > 253)
        nf_add(e, prefix, nf_max_len(e->a, 253));
    if (!nf_subdomain(s, n))
        nf_add(e, prefix, nf_regex_error(e->a, SUBDOMAIN_MSG, LABEL_FMT "(\\." LABEL_FMT ")*", ex));
}

static void
nf_dns1035_label(nf_errs_t *e, const char *s, size_t n)
{
    static const char *const ex[] = {"my-name", "abc-123", NULL};
    if (n > 63)
        nf_add(e, "", nf_max_len(e->a, 63));
    if (!nf_label(s, n, true))
        nf_add(e, "", nf_regex_error(e->a, DNS1035_MSG, "[a-z]([-a-z0-9]*[a-z0-9])?", ex));
}

static void
nf_qualified_name(nf_errs_t *e, const char *s, size_t n)
{
    static const char *const ex[] = {"MyName", "my.name", "123-abc", NULL};
    const char *slash = memchr(s, '/', n);
    if (slash != NULL && memchr(slash + 1, '/', n - (size_t)(slash + 1 - s)) != NULL) {
        nf_add(e, "a qualified name ",
               cel__arena_sprintf(e->a,
                                  "%s with an optional DNS subdomain prefix and '/' (e.g. "
                                  "'example.com/MyName')",
                                  nf_regex_error(e->a, QNAME_MSG, QNAME_FMT, ex)));
        return;
    }
    if (slash != NULL) {
        size_t plen = (size_t)(slash - s);
        if (plen == 0)
            nf_add(e, "prefix part ", "must be non-empty");
        else
            nf_dns1123_subdomain(e, "prefix part ", s, plen);
        n -= plen + 1, s = slash + 1;
    }
    if (n == 0)
        nf_add(e, "name part ", "must be non-empty");
    else if (n > 63)
        nf_add(e, "name part ", nf_max_len(e->a, 63));
    if (!nf_qname(s, n))
        nf_add(e, "name part ", nf_regex_error(e->a, QNAME_MSG, QNAME_FMT, ex));
}

static void
nf_label_value(nf_errs_t *e, const char *s, size_t n)
{
    static const char *const ex[] = {"MyValue", "my_value", "12345", NULL};
    if (n > 63)
        nf_add(e, "", nf_max_len(e->a, 63));
    if (n > 0 && !nf_qname(s, n))
        nf_add(e, "", nf_regex_error(e->a, LABEL_VALUE_MSG, "(" QNAME_FMT ")?", ex));
}

/* apimachinery's maskTrailingDash, for names that get a suffix appended (generateName):
 * a final '-' replaces the last two characters with 'a'. */
static size_t
nf_mask(cel_arena_t *a, const char **s, size_t n)
{
    if (n <= 1 || (*s)[n - 1] != '-')
        return n;
    *s = cel__arena_sprintf(a, "%.*sa", (int)(n - 2), *s);
    return n - 1;
}

/* ---- kube-openapi's formats ---- */

static bool
nf_digits(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
    }
    return true;
}

static int
nf_num(const char *s, size_t n)
{
    int v = 0;
    for (size_t i = 0; i < n; i++)
        v = v * 10 + (s[i] - '0');
    return v;
}

/* Go's time.Parse("2006-01-02", s). */
static bool
nf_date(const char *s, size_t n)
{
    static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (n != 10 || s[4] != '-' || s[7] != '-' || !nf_digits(s, 4) || !nf_digits(s + 5, 2) ||
        !nf_digits(s + 8, 2))
        return false;
    int y = nf_num(s, 4), m = nf_num(s + 5, 2), d = nf_num(s + 8, 2);
    if (m < 1 || m > 12 || d < 1)
        return false;
    bool leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
    return d <= days[m - 1] + (m == 2 && leap);
}

/* z or [+-]hh:mm */
static bool
nf_zone(const char *s, size_t n)
{
    if (n == 1)
        return s[0] == 'z';
    return n == 6 && (s[0] == '+' || s[0] == '-') && nf_digits(s + 1, 2) && s[3] == ':' &&
           nf_digits(s + 4, 2);
}

/* kube-openapi's IsDateTime: a date, 't', then hh:mm:ss, optional fraction, zone (the whole
 * text lowercased; only the part between the first and second 't' is looked at). */
static bool
nf_datetime(cel_arena_t *a, const char *s, size_t n)
{
    if (n < 4)
        return false;
    char *low = cel_arena_strndup(a, s, n);
    for (size_t i = 0; i < n; i++)
        low[i] = (char)(low[i] >= 'A' && low[i] <= 'Z' ? low[i] + 32 : low[i]);
    char *t = memchr(low, 't', n);
    if (t == NULL || !nf_date(low, (size_t)(t - low)))
        return false;
    char *tp = t + 1, *end = memchr(tp, 't', n - (size_t)(tp - low));
    size_t len = end ? (size_t)(end - tp) : n - (size_t)(tp - low);
    if (len < 9 || tp[2] != ':' || tp[5] != ':' || !nf_digits(tp, 2) || !nf_digits(tp + 3, 2) ||
        !nf_digits(tp + 6, 2))
        return false;
    bool ok = nf_zone(tp + 8, len - 8);
    /* (.[0-9]+)? before the zone: any character, then digits. */
    for (size_t d = len - 8; !ok && d >= 3; d--)
        ok = nf_digits(tp + 9, d - 2) && nf_zone(tp + 8 + d, len - 8 - d) && len - 8 - d > 0;
    return ok && memcmp(tp, "23", 2) <= 0 && memcmp(tp + 3, "59", 2) <= 0 &&
           memcmp(tp + 6, "59", 2) <= 0;
}

/* (?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$ */
static bool
nf_uuid(const char *s, size_t n)
{
    static const int groups[] = {8, 4, 4, 4, 12};
    size_t i = 0;
    for (int g = 0; g < 5; g++) {
        if (g > 0 && i < n && s[i] == '-')
            i++;
        for (int k = 0; k < groups[g]; k++, i++) {
            char c = i < n ? (char)(s[i] | 0x20) : 0;
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
                return false;
        }
    }
    return i == n;
}

/* govalidator's IsBase64: padded standard base64 of at least one group. */
static bool
nf_base64(const char *s, size_t n)
{
    if (n == 0 || n % 4 != 0)
        return false;
    size_t pad = s[n - 1] == '=' ? (s[n - 2] == '=' ? 2 : 1) : 0;
    for (size_t i = 0; i < n - pad; i++) {
        char c = s[i];
        if (!nf_alnum(c, true) && c != '+' && c != '/')
            return false;
    }
    return true;
}

/* ---- The library ---- */

typedef struct nf_format {
    const char *key;  /* format.<key>() and format.named(key) */
    const char *name; /* what kube-apiserver calls it; formats are equal by name */
    int kind;
    int max_regex; /* the length of the pattern kube-apiserver charges validate() for */
} nf_format_t;

enum {
    NF_LABEL,
    NF_SUBDOMAIN,
    NF_1035,
    NF_QNAME,
    NF_LABEL_P,
    NF_SUBDOMAIN_P,
    NF_1035_P,
    NF_LABEL_VALUE,
    NF_URI,
    NF_UUID,
    NF_BYTE,
    NF_DATE,
    NF_DATETIME
};

/* The pattern lengths are kube-apiserver's MaxRegexSize: its estimates for the apimachinery
 * names, and the lengths of govalidator's URL and Base64 and strfmt's UUID and date-time
 * patterns for the CRD formats. */
static const nf_format_t nf_formats[] = {
    {"dns1123Label", "DNS1123Label", NF_LABEL, 30},
    {"dns1123Subdomain", "DNS1123Subdomain", NF_SUBDOMAIN, 60},
    {"dns1035Label", "DNS1035Label", NF_1035, 30},
    {"qualifiedName", "QualifiedName", NF_QNAME, 60},
    {"dns1123LabelPrefix", "DNS1123LabelPrefix", NF_LABEL_P, 30},
    {"dns1123SubdomainPrefix", "DNS1123SubdomainPrefix", NF_SUBDOMAIN_P, 60},
    {"dns1035LabelPrefix", "DNS1035LabelPrefix", NF_1035_P, 30},
    {"labelValue", "LabelValue", NF_LABEL_VALUE, 40},
    {"uri", "URI", NF_URI, 1120},
    {"uuid", "uuid", NF_UUID, 85},
    {"byte", "byte", NF_BYTE, 84},
    {"date", "date", NF_DATE, 71},
    {"datetime", "datetime", NF_DATETIME, 71},
};

typedef struct nf_obj {
    cel_object_t base;
    const nf_format_t *format;
} nf_obj_t;

static bool
nf_equal(const cel_object_t *x, const cel_object_t *y)
{
    return strcmp(((const nf_obj_t *)x)->format->name, ((const nf_obj_t *)y)->format->name) == 0;
}

static const cel__object_ops_t nf_ops = {&cel__type_named_format, nf_equal};

int
cel__named_format_regex_size(const cel_value_t *v)
{
    if (!cel__is_object(v, &cel__type_named_format))
        return 0;
    return ((const nf_obj_t *)v->v.obj)->format->max_regex;
}

/* The names of kube-apiserver's validators, run over s[0..n). */
static void
nf_run(nf_errs_t *e, int kind, const char *s, size_t n)
{
    const char *err;
    if (kind == NF_LABEL_P || kind == NF_SUBDOMAIN_P || kind == NF_1035_P) {
        n = nf_mask(e->a, &s, n);
        kind -= NF_LABEL_P;
    }
    switch (kind) {
    case NF_LABEL:
        nf_dns1123_label(e, s, n);
        return;
    case NF_SUBDOMAIN:
        nf_dns1123_subdomain(e, "", s, n);
        return;
    case NF_1035:
        nf_dns1035_label(e, s, n);
        return;
    case NF_QNAME:
        nf_qualified_name(e, s, n);
        return;
    case NF_LABEL_VALUE:
        nf_label_value(e, s, n);
        return;
    case NF_URI:
        err = cel__url_request_error(e->a, s, n);
        break;
    case NF_UUID:
        err = nf_uuid(s, n) ? NULL : "does not match the UUID format";
        break;
    case NF_BYTE:
        err = nf_base64(s, n) ? NULL : "invalid base64";
        break;
    case NF_DATE:
        err = nf_date(s, n) ? NULL : "invalid date";
        break;
    default:
        err = nf_datetime(e->a, s, n) ? NULL : "invalid datetime";
        break;
    }
    if (err != NULL)
        nf_add(e, "", err);
}

static cel_value_t
nf_value(cel_arena_t *a, const nf_format_t *f)
{
    nf_obj_t *o = cel_arena_alloc(a, sizeof(*o));
    o->base.ops = &nf_ops;
    o->format = f;
    return cel__object_value(&o->base);
}

/* format.dns1123Label() and the other constant formats. */
static cel_value_t
nf_constant(cel__eval_t *ev, const cel__node_t *call, const cel_value_t *a, int n)
{
    (void)a, (void)n;
    const char *key = call->u.call.name + strlen("format.");
    for (size_t i = 0; i < sizeof(nf_formats) / sizeof(nf_formats[0]); i++) {
        if (strcmp(nf_formats[i].key, key) == 0)
            return nf_value(ev->arena, &nf_formats[i]);
    }
    return cel__err(ev, "unknown format %s", key);
}

static cel_value_t
nf_named(cel__eval_t *ev, const cel__node_t *call, const cel_value_t *a, int n)
{
    (void)call;
    if (a[0].kind != CEL_STRING)
        return cel__no_overload(ev, "format.named", a, n);
    for (size_t i = 0; i < sizeof(nf_formats) / sizeof(nf_formats[0]); i++) {
        const char *key = nf_formats[i].key;
        if (strlen(key) == a[0].v.str.len && memcmp(key, a[0].v.str.data, a[0].v.str.len) == 0) {
            cel_value_t f = nf_value(ev->arena, &nf_formats[i]);
            return cel_optional(ev->arena, &f);
        }
    }
    return cel_optional(ev->arena, NULL);
}

static cel_value_t
nf_validate(cel__eval_t *ev, const cel__node_t *call, const cel_value_t *a, int n)
{
    (void)call;
    if (!cel__is_object(&a[0], &cel__type_named_format) || a[1].kind != CEL_STRING)
        return cel__no_overload(ev, "validate", a, n);
    if (!cel__work_size(ev, a[1].v.str.len))
        return cel__halt_error(ev);
    nf_errs_t e = {ev->arena, cel__list_new(ev->arena, 2)};
    nf_run(&e, ((const nf_obj_t *)a[0].v.obj)->format->kind, a[1].v.str.data, a[1].v.str.len);
    if (e.list->len == 0)
        return cel_optional(ev->arena, NULL);
    cel_value_t list = cel__list_value(e.list);
    return cel_optional(ev->arena, &list);
}

const cel__fn_t cel__named_format_fns[] = {
    {"format.dns1123Label", false, 0, 0, nf_constant},
    {"format.dns1123Subdomain", false, 0, 0, nf_constant},
    {"format.dns1035Label", false, 0, 0, nf_constant},
    {"format.qualifiedName", false, 0, 0, nf_constant},
    {"format.dns1123LabelPrefix", false, 0, 0, nf_constant},
    {"format.dns1123SubdomainPrefix", false, 0, 0, nf_constant},
    {"format.dns1035LabelPrefix", false, 0, 0, nf_constant},
    {"format.labelValue", false, 0, 0, nf_constant},
    {"format.uri", false, 0, 0, nf_constant},
    {"format.uuid", false, 0, 0, nf_constant},
    {"format.byte", false, 0, 0, nf_constant},
    {"format.date", false, 0, 0, nf_constant},
    {"format.datetime", false, 0, 0, nf_constant},
    {"format.named", false, 1, 1, nf_named},
    {"validate", true, 2, 2, nf_validate},
    {NULL, false, 0, 0, NULL},
};
