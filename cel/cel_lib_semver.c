/*
 * The Kubernetes semver library: semantic versions as github.com/blang/semver/v4 parses and
 * orders them (its error messages included), with kube-apiserver's optional normalization
 * (a "v" prefix, missing minor or patch numbers, leading zeros). Build metadata is checked but
 * plays no part in ordering or equality.
 */
#include "cel.h"

#include <string.h>

#include "cel_int.h"

typedef struct sv_pre {
    bool is_num;
    uint64_t num;
    const char *s;
    size_t n;
} sv_pre_t;

typedef struct sv {
    cel_object_t base;
    uint64_t major, minor, patch;
    sv_pre_t *pre;
    size_t npre;
} sv_t;

static bool
sv_only(const char *s, size_t n, bool alnum)
{
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        bool ok = (c >= '0' && c <= '9') ||
                  (alnum && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-'));
        if (!ok)
            return false;
    }
    return true;
}

/* strconv.ParseUint(s, 10, 64) of digits; its error text, or NULL. */
static const char *
sv_uint(cel_arena_t *a, const char *s, size_t n, uint64_t *out)
{
    if (n == 0 || !cel__parse_uint(s, n, out))
        return cel__arena_sprintf(a, "strconv.ParseUint: parsing \"%.*s\": %s", (int)n, s,
                                  n == 0 ? "invalid syntax" : "value out of range");
    return NULL;
}

/* A major, minor or patch number: digits, no leading zero. */
static const char *
sv_number(cel_arena_t *a, const char *what, const char *s, size_t n, uint64_t *out)
{
    cel__buf_t b;
    cel__buf_init(&b, a, n + 64);
    if (!sv_only(s, n, false))
        cel__buf_printf(&b, "Invalid character(s) found in %s number ", what);
    else if (n > 1 && s[0] == '0')
        cel__buf_printf(&b, "%c%s number must not contain leading zeroes ", what[0] - 32, what + 1);
    else
        return sv_uint(a, s, n, out);
    cel__go_quote(&b, s, n);
    return b.data;
}

static const char *
sv_quoted(cel_arena_t *a, const char *msg, const char *s, size_t n)
{
    cel__buf_t b;
    cel__buf_init(&b, a, n + 64);
    cel__buf_puts(&b, msg);
    cel__go_quote(&b, s, n);
    return b.data;
}

/* NewPRVersion: a numeric identifier (no leading zero) or an alphanumeric one. */
static const char *
sv_pre_part(cel_arena_t *a, const char *s, size_t n, sv_pre_t *out)
{
    *out = (sv_pre_t){.s = s, .n = n};
    if (n == 0)
        return "Prerelease is empty";
    if (sv_only(s, n, false)) {
        if (n > 1 && s[0] == '0')
            return sv_quoted(a, "Numeric PreRelease version must not contain leading zeroes ", s,
                             n);
        out->is_num = true;
        return sv_uint(a, s, n, &out->num);
    }
    if (!sv_only(s, n, true))
        return sv_quoted(a, "Invalid character(s) found in prerelease ", s, n);
    return NULL;
}

/* The dot-separated identifiers of s[0..n) (prerelease when `pre`, else build metadata). */
static const char *
sv_idents(cel_arena_t *a, sv_t *v, const char *s, size_t n, bool pre)
{
    size_t count = 1;
    for (size_t i = 0; i < n; i++)
        count += s[i] == '.';
    if (pre)
        v->pre = cel_arena_alloc(a, count * sizeof(sv_pre_t));
    for (size_t start = 0, i = 0; i <= n; i++) {
        if (i < n && s[i] != '.')
            continue;
        const char *p = s + start, *err = NULL;
        size_t len = i - start;
        if (pre)
            err = sv_pre_part(a, p, len, &v->pre[v->npre++]);
        else if (len == 0)
            err = "Buildversion is empty";
        else if (!sv_only(p, len, true))
            err = sv_quoted(a, "Invalid character(s) found in build meta data ", p, len);
        if (err != NULL)
            return err;
        start = i + 1;
    }
    return NULL;
}

/* The patch number, then prerelease identifiers after '-' and build metadata after '+'. */
static const char *
sv_parse_patch(cel_arena_t *a, const char *p, const char *end, sv_t *v)
{
    const char *plus = memchr(p, '+', (size_t)(end - p));
    const char *pre_end = plus ? plus : end;
    const char *dash = memchr(p, '-', (size_t)(pre_end - p));
    const char *err = sv_number(a, "patch", p, (size_t)((dash ? dash : pre_end) - p), &v->patch);
    if (err == NULL && dash != NULL)
        err = sv_idents(a, v, dash + 1, (size_t)(pre_end - dash - 1), true);
    if (err == NULL && plus != NULL)
        err = sv_idents(a, v, plus + 1, (size_t)(end - plus - 1), false);
    return err;
}

/* semver.Parse: the version in `*v`, or the error text. */
static const char *
sv_parse(cel_arena_t *a, const char *s, size_t n, sv_t *v)
{
    if (n == 0)
        return "Version string empty";
    const char *d1 = memchr(s, '.', n);
    const char *d2 = d1 ? memchr(d1 + 1, '.', n - (size_t)(d1 + 1 - s)) : NULL;
    if (d2 == NULL)
        return "No Major.Minor.Patch elements found";
    const char *err = sv_number(a, "major", s, (size_t)(d1 - s), &v->major);
    if (err == NULL)
        err = sv_number(a, "minor", d1 + 1, (size_t)(d2 - d1 - 1), &v->minor);
    return err ? err : sv_parse_patch(a, d2 + 1, s + n, v);
}

/* kube-apiserver's normalizeAndParse: no "v" prefix, no leading zeros, .0 for a missing minor
 * or patch number. */
static const char *
sv_normalize(cel_arena_t *a, const char *s, size_t n, sv_t *v)
{
    if (n > 0 && s[0] == 'v')
        s++, n--;
    const char *parts[3];
    size_t lens[3], count = 0;
    for (size_t start = 0, i = 0; count < 3; i++) {
        if (i < n && (s[i] != '.' || count == 2))
            continue;
        parts[count] = s + start, lens[count++] = i - start;
        start = i + 1;
        if (i >= n)
            break;
    }
    cel__buf_t b;
    cel__buf_init(&b, a, n + 8);
    for (size_t k = 0; k < 3; k++) {
        const char *p = k < count ? parts[k] : "0";
        size_t len = k < count ? lens[k] : 1, z = 0;
        while (len > 1 && z < len && p[z] == '0')
            z++;
        if (len > 1 && (z == len || p[z] < '0' || p[z] > '9'))
            z = z > 0 ? z - 1 : 0; /* keep (or put back) one zero */
        cel__buf_printf(&b, "%s%.*s", k > 0 ? "." : "", (int)(len - z), p + z);
    }
    if (count < 3 && (memchr(parts[count - 1], '+', lens[count - 1]) ||
                      memchr(parts[count - 1], '-', lens[count - 1])))
        return "short version cannot contain PreRelease/Build meta data";
    return sv_parse(a, b.data, b.len, v);
}

static int
sv_cmp_u(uint64_t x, uint64_t y)
{
    return x < y ? -1 : x > y;
}

/* Version.Compare: numbers, then a release above its prereleases, then identifier by
 * identifier (numeric below alphanumeric), then the longer list above. */
static int
sv_cmp(const sv_t *x, const sv_t *y)
{
    int c = sv_cmp_u(x->major, y->major);
    c = c ? c : sv_cmp_u(x->minor, y->minor);
    c = c ? c : sv_cmp_u(x->patch, y->patch);
    if (c != 0 || (x->npre == 0 && y->npre == 0))
        return c;
    if (x->npre == 0 || y->npre == 0)
        return x->npre == 0 ? 1 : -1;
    for (size_t i = 0; i < x->npre && i < y->npre; i++) {
        const sv_pre_t *p = &x->pre[i], *q = &y->pre[i];
        if (p->is_num != q->is_num)
            return p->is_num ? -1 : 1;
        if (p->is_num) {
            c = sv_cmp_u(p->num, q->num);
        } else {
            size_t m = p->n < q->n ? p->n : q->n;
            c = memcmp(p->s, q->s, m);
            c = c ? (c < 0 ? -1 : 1) : sv_cmp_u(p->n, q->n);
        }
        if (c != 0)
            return c;
    }
    return sv_cmp_u(x->npre, y->npre);
}

static bool
sv_equal(const cel_object_t *x, const cel_object_t *y)
{
    return sv_cmp((const sv_t *)x, (const sv_t *)y) == 0;
}

static const cel__object_ops_t sv_ops = {.type = &cel__type_semver, .equal = sv_equal};

#define FN(name)                                                                                   \
    static cel_value_t name(cel__eval_t *ev, const cel__node_t *call, const cel_value_t *a, int n)

/* semver(s[, normalize]) and isSemver(s[, normalize]): the parsed version or the error. */
static const char *
sv_from_args(cel_arena_t *ar, const cel_value_t *a, int n, sv_t *v)
{
    if (n == 2 && a[1].v.b)
        return sv_normalize(ar, a[0].v.str.data, a[0].v.str.len, v);
    return sv_parse(ar, a[0].v.str.data, a[0].v.str.len, v);
}

FN(sv_semver)
{
    const char *name = call->u.call.name;
    if (a[0].kind != CEL_STRING || (n == 2 && a[1].kind != CEL_BOOL))
        return cel__no_overload(ev, name, a, n);
    sv_t *v = cel_arena_alloc(ev->arena, sizeof(*v));
    v->base.ops = &sv_ops;
    const char *err = sv_from_args(ev->arena, a, n, v);
    if (strcmp(name, "isSemver") == 0)
        return cel_bool(err == NULL);
    return err ? cel__err(ev, "%s", err) : cel__object_value(&v->base);
}

static const sv_t *
sv_of(const cel_value_t *v)
{
    return cel__is_object(v, &cel__type_semver) ? (const sv_t *)v->v.obj : NULL;
}

FN(sv_part)
{
    const sv_t *v = sv_of(&a[0]);
    const char *name = call->u.call.name;
    if (v == NULL)
        return cel__no_overload(ev, name, a, n);
    uint64_t x = strcmp(name, "major") == 0   ? v->major
                 : strcmp(name, "minor") == 0 ? v->minor
                                              : v->patch;
    return cel_int((int64_t)x); /* Go's int64() of the uint64 */
}

/* compareTo, isGreaterThan, isLessThan: reached after the quantity library's. */
FN(sv_compare)
{
    const sv_t *x = sv_of(&a[0]), *y = sv_of(&a[1]);
    const char *name = call->u.call.name;
    if (x == NULL)
        return cel__fn_next(ev, call, sv_compare, a, n);
    if (y == NULL)
        return cel__no_overload(ev, name, a, n);
    int c = sv_cmp(x, y);
    if (strcmp(name, "compareTo") == 0)
        return cel_int(c);
    return cel_bool(c == (strcmp(name, "isGreaterThan") == 0 ? 1 : -1));
}

const cel__fn_t cel__semver_fns[] = {
    {"semver", false, 1, 2, sv_semver},
    {"isSemver", false, 1, 2, sv_semver},
    {"major", true, 1, 1, sv_part},
    {"minor", true, 1, 1, sv_part},
    {"patch", true, 1, 1, sv_part},
    {"compareTo", true, 2, 2, sv_compare},
    {"isGreaterThan", true, 2, 2, sv_compare},
    {"isLessThan", true, 2, 2, sv_compare},
    {NULL, false, 0, 0, NULL},
};

#undef FN
