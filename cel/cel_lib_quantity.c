/*
 * The Kubernetes quantity library on a re-implementation of apimachinery's resource.Quantity:
 * the same scanner, suffixes and errors, the same two representations (a scaled int64, or an
 * exact decimal once a value no longer fits one: isInteger() and asInteger() tell them apart as
 * kube-apiserver does), rounding of parsed values up to nanounits, the cap of binary-SI values
 * at 2^63-1, and Go's canonical text for string(). Decimals are exact: magnitudes are
 * arbitrary-precision integers in 32-bit limbs.
 */
#include "cel.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cel_int.h"

/* ---- Arbitrary-precision integers ---- */

typedef struct qty_big {
    uint32_t *d; /* little-endian limbs, no high zero limb */
    size_t n;
    bool neg;
} qty_big_t;

static qty_big_t
qb_new(cel_arena_t *a, size_t cap)
{
    return (qty_big_t){cel_arena_alloc(a, (cap ? cap : 1) * sizeof(uint32_t)), 0, false};
}

static void
qb_trim(qty_big_t *x)
{
    while (x->n > 0 && x->d[x->n - 1] == 0)
        x->n--;
    if (x->n == 0)
        x->neg = false;
}

static qty_big_t
qb_from_u64(cel_arena_t *a, uint64_t u, bool neg)
{
    qty_big_t x = qb_new(a, 2);
    x.d[0] = (uint32_t)u, x.d[1] = (uint32_t)(u >> 32), x.n = 2, x.neg = neg;
    qb_trim(&x);
    return x;
}

static qty_big_t
qb_from_i64(cel_arena_t *a, int64_t v)
{
    return qb_from_u64(a, v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v, v < 0);
}

/* x * m + add. */
static qty_big_t
qb_mul_small(cel_arena_t *a, qty_big_t x, uint32_t m, uint32_t add)
{
    qty_big_t r = qb_new(a, x.n + 1);
    uint64_t carry = add;
    for (size_t i = 0; i < x.n; i++) {
        carry += (uint64_t)x.d[i] * m;
        r.d[i] = (uint32_t)carry;
        carry >>= 32;
    }
    r.d[x.n] = (uint32_t)carry;
    r.n = x.n + 1;
    r.neg = x.neg;
    qb_trim(&r);
    return r;
}

/* x / d, the remainder in *rem. */
static qty_big_t
qb_div_small(cel_arena_t *a, qty_big_t x, uint32_t d, uint32_t *rem)
{
    qty_big_t q = qb_new(a, x.n);
    uint64_t r = 0;
    for (size_t i = x.n; i-- > 0;) {
        r = (r << 32) | x.d[i];
        q.d[i] = (uint32_t)(r / d);
        r %= d;
    }
    q.n = x.n;
    q.neg = x.neg;
    qb_trim(&q);
    *rem = (uint32_t)r;
    return q;
}

static int
qb_cmp_mag(qty_big_t x, qty_big_t y)
{
    if (x.n != y.n)
        return x.n < y.n ? -1 : 1;
    for (size_t i = x.n; i-- > 0;) {
        if (x.d[i] != y.d[i])
            return x.d[i] < y.d[i] ? -1 : 1;
    }
    return 0;
}

/* |x| + |y| or |x| - |y| (then |x| >= |y|), with the sign `neg`. */
static qty_big_t
qb_add_mag(cel_arena_t *a, qty_big_t x, qty_big_t y, bool sub, bool neg)
{
    qty_big_t r = qb_new(a, x.n + 1);
    int64_t carry = 0;
    for (size_t i = 0; i < x.n; i++) {
        carry +=
            (int64_t)x.d[i] + (sub ? -(int64_t)(i < y.n ? y.d[i] : 0) : (i < y.n ? y.d[i] : 0));
        r.d[i] = (uint32_t)carry;
        carry = carry < 0 ? -1 : carry >> 32;
    }
    r.d[x.n] = (uint32_t)carry;
    r.n = x.n + 1;
    r.neg = neg;
    qb_trim(&r);
    return r;
}

static qty_big_t
qb_add(cel_arena_t *a, qty_big_t x, qty_big_t y)
{
    if (x.neg == y.neg)
        return x.n >= y.n ? qb_add_mag(a, x, y, false, x.neg) : qb_add_mag(a, y, x, false, x.neg);
    return qb_cmp_mag(x, y) >= 0 ? qb_add_mag(a, x, y, true, x.neg)
                                 : qb_add_mag(a, y, x, true, y.neg);
}

static int
qb_cmp(qty_big_t x, qty_big_t y)
{
    if (x.neg != y.neg)
        return x.neg ? -1 : 1;
    int c = qb_cmp_mag(x, y);
    return x.neg ? -c : c;
}

static qty_big_t
qb_mul_pow10(cel_arena_t *a, qty_big_t x, int64_t k)
{
    for (; k >= 9; k -= 9)
        x = qb_mul_small(a, x, 1000000000u, 0);
    static const uint32_t p10[] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000};
    return k > 0 ? qb_mul_small(a, x, p10[k], 0) : x;
}

static char *
qb_text(cel_arena_t *a, qty_big_t x)
{
    char *buf = cel_arena_alloc(a, x.n * 10 + 12), *p = buf + x.n * 10 + 11;
    *p = '\0';
    qty_big_t q = x;
    do {
        uint32_t r;
        q = qb_div_small(a, q, 1000000000u, &r);
        for (int i = 0; i < 9 && (q.n > 0 || r > 0 || i == 0); i++, r /= 10)
            *--p = (char)('0' + r % 10);
    } while (q.n > 0);
    if (x.neg)
        *--p = '-';
    return p;
}

/* Decimal digits of |x|, within one (from the bit length). */
static int64_t
qb_digits_approx(qty_big_t x)
{
    if (x.n == 0)
        return 0;
    int64_t bits = (int64_t)(x.n - 1) * 32 + (32 - __builtin_clz(x.d[x.n - 1]));
    return (int64_t)((double)(bits - 1) * 0.30102999566398120) + 1;
}

/* ---- Decimals (inf.Dec: unscaled × 10^-scale) ---- */

/* Go would multiply out any difference of scales; past this many digits we refuse instead of
 * exhausting memory ("1e2000000000" plus 1). */
#define QTY_MAX_SHIFT 20000

typedef struct qty_dec {
    qty_big_t u;
    int64_t scale;
} qty_dec_t;

/* Both at the larger scale; false when that needs more than QTY_MAX_SHIFT digits. */
static bool
qd_align(cel_arena_t *a, qty_dec_t *x, qty_dec_t *y)
{
    qty_dec_t *lo = x->scale < y->scale ? x : y, *hi = lo == x ? y : x;
    int64_t shift = hi->scale - lo->scale;
    if (lo->u.n > 0 && shift > QTY_MAX_SHIFT)
        return false;
    lo->u = lo->u.n > 0 ? qb_mul_pow10(a, lo->u, shift) : lo->u;
    lo->scale = hi->scale;
    return true;
}

/* x + y (or x - y); false when out of range (see QTY_MAX_SHIFT). */
static bool
qd_add(cel_arena_t *a, qty_dec_t x, qty_dec_t y, bool sub, qty_dec_t *out)
{
    if (!qd_align(a, &x, &y))
        return false;
    y.u.neg = y.u.n > 0 && (sub ? !y.u.neg : y.u.neg);
    *out = (qty_dec_t){qb_add(a, x.u, y.u), x.scale};
    return true;
}

/* Compared by magnitude order first, so that far-apart scales are never multiplied out. */
static int
qd_cmp(cel_arena_t *a, qty_dec_t x, qty_dec_t y)
{
    int sx = x.u.n == 0 ? 0 : x.u.neg ? -1 : 1, sy = y.u.n == 0 ? 0 : y.u.neg ? -1 : 1;
    if (sx != sy || sx == 0)
        return sx < sy ? -1 : sx > sy;
    int64_t ox = qb_digits_approx(x.u) - x.scale, oy = qb_digits_approx(y.u) - y.scale;
    if (ox > oy + 2 || oy > ox + 2)
        return (ox > oy) == (sx > 0) ? 1 : -1;
    /* Close orders: the scales differ by about the digit counts, so this stays small. */
    if (x.scale < y.scale)
        x.u = qb_mul_pow10(a, x.u, y.scale - x.scale);
    else
        y.u = qb_mul_pow10(a, y.u, x.scale - y.scale);
    return qb_cmp(x.u, y.u);
}

/* inf.Dec.Round(x, s, RoundUp): to scale s, away from zero; *exact when nothing was lost.
 * Scaling up is bounded by QTY_MAX_SHIFT (*exact false and x unchanged past it). */
static qty_dec_t
qd_round_up(cel_arena_t *a, qty_dec_t x, int64_t s, bool *exact)
{
    *exact = true;
    if (x.scale <= s && s - x.scale > QTY_MAX_SHIFT) {
        *exact = false;
        return x;
    }
    if (x.scale <= s)
        return (qty_dec_t){qb_mul_pow10(a, x.u, s - x.scale), s};
    qty_big_t q = x.u;
    for (int64_t k = x.scale - s; k > 0; k--) {
        uint32_t r;
        q = qb_div_small(a, q, 10, &r);
        *exact = *exact && r == 0;
        if (q.n == 0 && !*exact)
            break;
    }
    if (!*exact) {
        q.neg = false;
        q = qb_add(a, q, qb_from_u64(a, 1, false));
        q.neg = x.u.neg;
    }
    return (qty_dec_t){q, s};
}

/* ---- Quantities ---- */

enum { FMT_DECIMAL_EXPONENT, FMT_BINARY_SI, FMT_DECIMAL_SI };

typedef struct qty {
    cel_object_t base;
    bool is_dec; /* the decimal form; otherwise int64Amount: value × 10^scale */
    int64_t value;
    int32_t scale;
    qty_dec_t dec;
    int format;
    const char *s; /* the text parsed, when Go kept it as the canonical form */
    size_t slen;
} qty_t;

static qty_dec_t
qty_as_dec(cel_arena_t *a, const qty_t *q)
{
    if (q->is_dec)
        return q->dec;
    return (qty_dec_t){qb_from_i64(a, q->value), -(int64_t)q->scale};
}

static int
qty_sign(const qty_t *q)
{
    if (q->is_dec)
        return q->dec.u.n == 0 ? 0 : q->dec.u.neg ? -1 : 1;
    return q->value > 0 ? 1 : q->value < 0 ? -1 : 0;
}

static bool qty_equal(const cel_object_t *x, const cel_object_t *y);
static const cel__object_ops_t qty_ops = {.type = &cel__type_quantity, .equal = qty_equal};

static qty_t *
qty_new(cel_arena_t *a, int format)
{
    qty_t *q = cel_arena_alloc(a, sizeof(*q));
    q->base.ops = &qty_ops;
    q->format = format;
    return q;
}

/* Go's positiveScaleInt64: v × 10^scale, false on overflow. */
static bool
qty_scale_up(int64_t v, int64_t scale, int64_t *out)
{
    for (; scale > 0; scale--) {
        if (__builtin_mul_overflow(v, (int64_t)10, &v))
            return false;
        if (v == 0)
            break;
    }
    *out = v;
    return true;
}

/* int64Amount.Add: false (and `*q` untouched) when the sum needs more than an int64. */
static bool
qty_int_add(qty_t *q, int64_t bv, int32_t bs)
{
    int64_t c;
    if (bv == 0)
        return true;
    if (q->value == 0) {
        q->value = bv, q->scale = bs;
        return true;
    }
    if (q->scale == bs) {
        if (__builtin_add_overflow(q->value, bv, &c))
            return false;
    } else if (q->scale > bs) {
        if (!qty_scale_up(q->value, q->scale - bs, &c) || __builtin_add_overflow(c, bv, &c))
            return false;
        q->scale = bs;
    } else {
        if (!qty_scale_up(bv, bs - q->scale, &c) || __builtin_add_overflow(q->value, c, &c))
            return false;
    }
    q->value = c;
    return true;
}

static int
qty_cmp(cel_arena_t *a, const qty_t *x, const qty_t *y)
{
    return qd_cmp(a, qty_as_dec(a, x), qty_as_dec(a, y));
}

static bool
qty_equal(const cel_object_t *x, const cel_object_t *y)
{
    const qty_t *p = (const qty_t *)x, *q = (const qty_t *)y;
    if (!p->is_dec && !q->is_dec && p->scale == q->scale)
        return p->value == q->value;
    cel_arena_t *a = cel_arena_new();
    bool eq = qty_cmp(a, (const qty_t *)x, (const qty_t *)y) == 0;
    cel_arena_free(a);
    return eq;
}

/* Quantity.Add / Quantity.Sub on a copy of `x`. */
static qty_t *
qty_add(cel_arena_t *a, const qty_t *x, const qty_t *y, bool sub)
{
    qty_t *q = qty_new(a, x->format);
    *q = *x;
    q->s = NULL;
    if (qty_sign(q) == 0)
        q->format = y->format;
    if (!q->is_dec && !y->is_dec) {
        /* Go negates the subtrahend in two's complement: MinInt64 stays itself. */
        int64_t v = sub ? (int64_t)((uint64_t)0 - (uint64_t)y->value) : y->value;
        if (qty_int_add(q, v, y->scale))
            return q;
    }
    if (!qd_add(a, qty_as_dec(a, q), qty_as_dec(a, y), sub, &q->dec))
        return NULL;
    q->is_dec = true;
    return q;
}

/* ---- Parsing (resource.ParseQuantity) ---- */

#define QTY_ERR_FORMAT                                                                             \
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
#define QTY_ERR_NUMERIC "unable to parse numeric part of quantity"
#define QTY_ERR_SUFFIX "unable to parse quantity's suffix"
#define QTY_ERR_RANGE "quantity too large to represent"

/* What Go's parseQuantityString finds in a quantity's text. */
typedef struct qty_scan {
    bool positive;
    const char *num, *denom, *suffix;
    size_t num_n, denom_n, suffix_n;
} qty_scan_t;

static size_t
qty_digits(const char *s, size_t i, size_t end)
{
    while (i < end && s[i] >= '0' && s[i] <= '9')
        i++;
    return i;
}

/* Go's parseQuantityString; false for ErrFormatWrong. */
static bool
qty_scan(const char *s, size_t end, qty_scan_t *sc)
{
    size_t pos = 0;
    sc->positive = true;
    sc->denom = sc->suffix = s + end, sc->denom_n = sc->suffix_n = 0;
    if (end > 0 && (s[0] == '-' || s[0] == '+'))
        sc->positive = s[pos++] == '+';
    while (pos < end && s[pos] == '0')
        pos++;
    size_t e = qty_digits(s, pos, end);
    sc->num = s + pos, sc->num_n = e - pos;
    if (sc->num_n == 0)
        sc->num = "0", sc->num_n = 1;
    pos = e;
    if (pos < end && s[pos] == '.') {
        e = qty_digits(s, pos + 1, end);
        sc->denom = s + pos + 1, sc->denom_n = e - pos - 1;
        pos = e;
    }
    size_t start = pos;
    while (pos < end && strchr("eEinumkKMGTP", s[pos]) != NULL && s[pos] != '\0')
        pos++;
    if (pos < end && (s[pos] == '-' || s[pos] == '+'))
        pos++;
    if (qty_digits(s, pos, end) != end)
        return false;
    sc->suffix = s + start, sc->suffix_n = end - start;
    return true;
}

/* The suffix tables: base (10 or 2), exponent and format; false for ErrSuffix. */
static bool
qty_suffix(const char *s, size_t n, int *base, int32_t *exp, int *format)
{
    static const struct {
        const char *text;
        int base;
        int32_t exp;
    } table[] = {
        {"n", 10, -9}, {"u", 10, -6}, {"m", 10, -3}, {"", 10, 0},   {"k", 10, 3},  {"M", 10, 6},
        {"G", 10, 9},  {"T", 10, 12}, {"P", 10, 15}, {"E", 10, 18}, {"Ki", 2, 10}, {"Mi", 2, 20},
        {"Gi", 2, 30}, {"Ti", 2, 40}, {"Pi", 2, 50}, {"Ei", 2, 60},
    };
    for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
        if (strlen(table[i].text) == n && memcmp(table[i].text, s, n) == 0) {
            *base = table[i].base, *exp = table[i].exp;
            *format = table[i].base == 2 ? FMT_BINARY_SI : FMT_DECIMAL_SI;
            return true;
        }
    }
    int64_t e;
    if (n < 2 || (s[0] != 'e' && s[0] != 'E') || !cel__parse_int(s + 1, n - 1, &e))
        return false;
    /* Go keeps the low 32 bits of the exponent. */
    *base = 10, *exp = (int32_t)(uint32_t)(uint64_t)e, *format = FMT_DECIMAL_EXPONENT;
    return true;
}

enum { QTY_FAST_OK, QTY_FAST_KEEP, QTY_FAST_SLOW, QTY_FAST_ERR };

/* The int64 fast path of ParseQuantity: QTY_FAST_OK (or _KEEP: the text is canonical) with
 * the value in `*q`, QTY_FAST_SLOW when the value needs the decimal path, or QTY_FAST_ERR. */
static int
qty_parse_fast(cel_arena_t *a, const qty_scan_t *sc, int format, int32_t exp, qty_t *q)
{
    int64_t precision, scale = 0, mantissa = 1;
    if (format != FMT_BINARY_SI) {
        scale = exp;
        precision = 18 - (int64_t)(sc->num_n + sc->denom_n);
    } else if (exp >= 0 && sc->denom_n == 0) {
        mantissa = (int64_t)1 << exp;
        precision = 15 - (int64_t)sc->num_n - (int32_t)((float)exp * 3 / 10) - 1;
    } else {
        precision = -1;
    }
    scale -= (int64_t)sc->denom_n;
    if (precision < 0 || scale < -9)
        return QTY_FAST_SLOW;
    char *digits =
        cel__arena_sprintf(a, "%.*s%.*s", (int)sc->num_n, sc->num, (int)sc->denom_n, sc->denom);
    size_t n = strlen(digits);
    int64_t shifted, result;
    if (!cel__parse_int(digits, n, &shifted))
        return QTY_FAST_ERR;
    if (__builtin_mul_overflow(shifted, mantissa, &result))
        return QTY_FAST_SLOW;
    q->value = sc->positive ? result : -result;
    q->scale = (int32_t)scale;
    bool keep = format == FMT_BINARY_SI
                    ? exp % 10 == 0 && (shifted & 7) != 0
                    : scale % 3 == 0 && !(n >= 3 && memcmp(digits + n - 3, "000", 3) == 0) &&
                          digits[0] != '0';
    return keep ? QTY_FAST_KEEP : QTY_FAST_OK;
}

/* The decimal path: exact value, rounded up to nanounits, binary-SI capped at 2^63-1; false
 * when the value is too large to represent (see QTY_MAX_SHIFT). */
static bool
qty_parse_slow(cel_arena_t *a, const qty_scan_t *sc, int base, int32_t exp, qty_t *q)
{
    qty_big_t u = qb_new(a, 1);
    const char *parts[2] = {sc->num, sc->denom};
    size_t lens[2] = {sc->num_n, sc->denom_n};
    for (int p = 0; p < 2; p++) {
        for (size_t i = 0; i < lens[p]; i++)
            u = qb_mul_small(a, u, 10, (uint32_t)(parts[p][i] - '0'));
    }
    qty_dec_t d = {u, (int64_t)sc->denom_n};
    if (base == 10)
        d.scale -= exp;
    else
        for (int32_t k = 0; k < exp; k++)
            d.u = qb_mul_small(a, d.u, 2, 0);
    bool exact;
    if (d.u.n > 0 && 9 - d.scale > QTY_MAX_SHIFT)
        return false;
    if (d.u.n > 0)
        d = qd_round_up(a, d, 9, &exact);
    qty_dec_t max = {qb_from_u64(a, INT64_MAX, false), 0}, one = {qb_from_u64(a, 1, false), 0};
    if (q->format == FMT_BINARY_SI && qd_cmp(a, d, max) > 0)
        d = max;
    if (q->format == FMT_BINARY_SI && d.u.n > 0 && qd_cmp(a, d, one) < 0)
        q->format = FMT_DECIMAL_SI;
    d.u.neg = d.u.n > 0 && !sc->positive;
    q->is_dec = true;
    q->dec = d;
    return true;
}

/* resource.ParseQuantity: the quantity, or NULL with Go's error text in `*err`. */
static qty_t *
qty_parse(cel_arena_t *a, const char *s, size_t n, const char **err)
{
    qty_scan_t sc;
    int base, format;
    int32_t exp;
    if (n == 0 || !qty_scan(s, n, &sc)) {
        *err = QTY_ERR_FORMAT;
        return NULL;
    }
    if (!qty_suffix(sc.suffix, sc.suffix_n, &base, &exp, &format)) {
        *err = QTY_ERR_SUFFIX;
        return NULL;
    }
    qty_t *q = qty_new(a, format);
    if (n == 1 && s[0] == '0') {
        q->s = s, q->slen = 1;
        return q;
    }
    switch (qty_parse_fast(a, &sc, format, exp, q)) {
    case QTY_FAST_KEEP:
        q->s = s, q->slen = n;
        return q;
    case QTY_FAST_OK:
        return q;
    case QTY_FAST_ERR:
        *err = QTY_ERR_NUMERIC;
        return NULL;
    default:
        if (qty_parse_slow(a, &sc, base, exp, q))
            return q;
        *err = QTY_ERR_RANGE;
        return NULL;
    }
}

/* ---- Conversions ---- */

/* Quantity.AsInt64: only the int64 form converts, and only at a scale of zero or more. */
static bool
qty_as_int64(const qty_t *q, int64_t *out)
{
    if (q->is_dec || q->scale < 0)
        return false;
    return qty_scale_up(q->value, q->scale, out);
}

/* Go's math.Pow10, from the same tables, so that products round the same way. */
static double
qty_pow10(int64_t n)
{
    static const double tab[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10,
                                 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21,
                                 1e22, 1e23, 1e24, 1e25, 1e26, 1e27, 1e28, 1e29, 1e30, 1e31};
    static const double pos32[] = {1e0, 1e32, 1e64, 1e96, 1e128, 1e160, 1e192, 1e224, 1e256, 1e288};
    static const double neg32[] = {1e-0,   1e-32,  1e-64,  1e-96,  1e-128, 1e-160,
                                   1e-192, 1e-224, 1e-256, 1e-288, 1e-320};
    if (n >= 0 && n <= 308)
        return pos32[n / 32] * tab[n % 32];
    if (n < 0 && n >= -323)
        return neg32[-n / 32] / tab[-n % 32];
    return n > 0 ? INFINITY : 0.0;
}

/* Quantity.AsApproximateFloat64: the unscaled value (correctly rounded) times 10^exponent. */
static double
qty_approx(cel_arena_t *a, const qty_t *q)
{
    double base = (double)q->value;
    int64_t exponent = q->scale;
    if (q->is_dec) {
        base = strtod(qb_text(a, q->dec.u), NULL);
        exponent = -q->dec.scale;
    }
    return exponent == 0 ? base : base * qty_pow10(exponent);
}

/* ---- Canonical text (Quantity.String) ---- */

/* Divide out factors of `base` (10 or 1024); the count. */
static int64_t
qty_remove_factors(cel_arena_t *a, qty_big_t *x, uint32_t base)
{
    int64_t times = 0;
    for (;;) {
        uint32_t r;
        qty_big_t q = qb_div_small(a, *x, base, &r);
        if (x->n == 0 || r != 0)
            return times;
        *x = q, times++;
    }
}

/* AsCanonicalBytes: digits and a decimal exponent that is a multiple of 3. */
static char *
qty_canonical_digits(cel_arena_t *a, const qty_t *q, int64_t *exponent)
{
    qty_dec_t d = qty_as_dec(a, q);
    qty_big_t u = d.u;
    *exponent = -d.scale + qty_remove_factors(a, &u, 10);
    while (*exponent % 3 != 0)
        u = qb_mul_small(a, u, 10, 0), (*exponent)--;
    return qb_text(a, u);
}

static const char *
qty_suffix_for(int format, int64_t exponent, cel_arena_t *a)
{
    static const char *const dec[] = {"n", "u", "m", "", "k", "M", "G", "T", "P", "E"};
    static const char *const bin[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
    if (format == FMT_DECIMAL_EXPONENT)
        return exponent == 0 ? "" : cel__arena_sprintf(a, "e%lld", (long long)exponent);
    if (format == FMT_BINARY_SI)
        return exponent >= 0 && exponent <= 60 && exponent % 10 == 0 ? bin[exponent / 10] : "";
    /* Go prints no suffix for a decimal-SI exponent outside its table. */
    return exponent >= -9 && exponent <= 18 && exponent % 3 == 0 ? dec[(exponent + 9) / 3] : "";
}

static char *
qty_text(cel_arena_t *a, const qty_t *q)
{
    if (q->s != NULL)
        return cel_arena_strndup(a, q->s, q->slen);
    if (qty_sign(q) == 0)
        return cel_arena_strndup(a, "0", 1);
    int format = q->format;
    qty_dec_t rounded = qty_as_dec(a, q);
    if (format == FMT_BINARY_SI) {
        qty_dec_t lo = {qb_from_i64(a, -1024), 0}, hi = {qb_from_i64(a, 1024), 0};
        bool exact;
        if (qd_cmp(a, rounded, lo) > 0 && qd_cmp(a, rounded, hi) < 0) {
            format = FMT_DECIMAL_SI;
        } else {
            rounded = qd_round_up(a, rounded, 0, &exact);
            format = exact ? format : FMT_DECIMAL_SI;
        }
    }
    int64_t exponent;
    char *digits;
    if (format == FMT_BINARY_SI) {
        qty_big_t u = rounded.u;
        exponent = 10 * qty_remove_factors(a, &u, 1024);
        digits = qb_text(a, u);
    } else {
        digits = qty_canonical_digits(a, q, &exponent);
    }
    return cel__arena_sprintf(a, "%s%s", digits, qty_suffix_for(format, exponent, a));
}

/* ---- Functions ---- */

#define FN(name)                                                                                   \
    static cel_value_t name(cel__eval_t *ev, const cel__node_t *call, const cel_value_t *a, int n)

static const qty_t *
qty_of(const cel_value_t *v)
{
    return cel__is_object(v, &cel__type_quantity) ? (const qty_t *)v->v.obj : NULL;
}

FN(qty_quantity)
{
    (void)call;
    const char *err;
    if (a[0].kind != CEL_STRING)
        return cel__no_overload(ev, "quantity", a, n);
    qty_t *q = qty_parse(ev->arena, a[0].v.str.data, a[0].v.str.len, &err);
    return q ? cel__object_value(&q->base) : cel__err(ev, "%s", err);
}

FN(qty_is_quantity)
{
    (void)call;
    const char *err;
    if (a[0].kind != CEL_STRING)
        return cel__no_overload(ev, "isQuantity", a, n);
    return cel_bool(qty_parse(ev->arena, a[0].v.str.data, a[0].v.str.len, &err) != NULL);
}

/* kube-apiserver declares sign() as a global function, not a method. */
FN(qty_sign_fn)
{
    (void)call;
    const qty_t *q = qty_of(&a[0]);
    return q ? cel_int(qty_sign(q)) : cel__no_overload(ev, "sign", a, n);
}

/* compareTo, isGreaterThan, isLessThan; shared by name with the semver library. */
FN(qty_compare)
{
    const qty_t *x = qty_of(&a[0]), *y = qty_of(&a[1]);
    if (x == NULL)
        return cel__fn_next(ev, call, qty_compare, a, n);
    if (y == NULL)
        return cel__no_overload(ev, call->u.call.name, a, n);
    int c = qty_cmp(ev->arena, x, y);
    const char *name = call->u.call.name;
    if (strcmp(name, "compareTo") == 0)
        return cel_int(c);
    return cel_bool(c == (strcmp(name, "isGreaterThan") == 0 ? 1 : -1));
}

FN(qty_convert)
{
    const qty_t *q = qty_of(&a[0]);
    const char *name = call->u.call.name;
    int64_t v;
    if (q == NULL)
        return cel__no_overload(ev, name, a, n);
    if (strcmp(name, "asApproximateFloat") == 0)
        return cel_double(qty_approx(ev->arena, q));
    bool ok = qty_as_int64(q, &v);
    if (strcmp(name, "isInteger") == 0)
        return cel_bool(ok);
    return ok ? cel_int(v) : cel__err(ev, "cannot convert value to integer");
}

/* add and sub, of a quantity or of an int (as a decimal-exponent quantity). */
FN(qty_arith)
{
    const char *name = call->u.call.name;
    const qty_t *x = qty_of(&a[0]), *y = qty_of(&a[1]);
    if (x == NULL || (y == NULL && a[1].kind != CEL_INT))
        return cel__no_overload(ev, name, a, n);
    if (y == NULL) {
        qty_t *iq = qty_new(ev->arena, FMT_DECIMAL_EXPONENT);
        iq->value = a[1].v.i;
        y = iq;
    }
    qty_t *r = qty_add(ev->arena, x, y, strcmp(name, "sub") == 0);
    return r ? cel__object_value(&r->base) : cel__err(ev, "%s", QTY_ERR_RANGE);
}

/* string() of a quantity: Go's canonical text. */
FN(qty_string)
{
    const qty_t *q = qty_of(&a[0]);
    if (q == NULL)
        return cel__fn_next(ev, call, qty_string, a, n);
    const char *t = qty_text(ev->arena, q);
    return cel__string_own(t, strlen(t));
}

const cel__fn_t cel__quantity_fns[] = {
    {"quantity", false, 1, 1, qty_quantity},
    {"isQuantity", false, 1, 1, qty_is_quantity},
    {"sign", false, 1, 1, qty_sign_fn},
    {"compareTo", true, 2, 2, qty_compare},
    {"isGreaterThan", true, 2, 2, qty_compare},
    {"isLessThan", true, 2, 2, qty_compare},
    {"asApproximateFloat", true, 1, 1, qty_convert},
    {"asInteger", true, 1, 1, qty_convert},
    {"isInteger", true, 1, 1, qty_convert},
    {"add", true, 2, 2, qty_arith},
    {"sub", true, 2, 2, qty_arith},
    {"string", false, 1, 1, qty_string},
    {NULL, false, 0, 0, NULL},
};

#undef FN
