/* Scalar resolution as Go's yaml.v2 does it (kube-apiserver reads YAML bodies through
 * sigs.k8s.io/yaml, which uses it), so "yes", "0x1F" and "1_000" mean there what they mean
 * here. */
#include "gw_yaml_int.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"

static const char *const true_words[] = {"y",    "Y",    "yes", "Yes", "YES", "true",
                                         "True", "TRUE", "on",  "On",  "ON"};
static const char *const false_words[] = {"n",     "N",     "no",  "No",  "NO", "false",
                                          "False", "FALSE", "off", "Off", "OFF"};
static const char *const null_words[] = {"", "~", "null", "Null", "NULL"};
static const char *const special_words[][2] = {
    {".nan", "NaN"},   {".NaN", "NaN"},   {".NAN", "NaN"},   {".inf", "+Inf"},
    {".Inf", "+Inf"},  {".INF", "+Inf"},  {"+.inf", "+Inf"}, {"+.Inf", "+Inf"},
    {"+.INF", "+Inf"}, {"-.inf", "-Inf"}, {"-.Inf", "-Inf"}, {"-.INF", "-Inf"},
};

static bool
in_words(const char *s, size_t n, const char *const *words, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (strlen(words[i]) == n && memcmp(words[i], s, n) == 0)
            return true;
    return false;
}

#define IN_WORDS(s, n, w) in_words(s, n, w, sizeof(w) / sizeof(w[0]))

static int
digit_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'Z')
        return c - 'A' + 10;
    return 99;
}

/* Go's strconv.ParseUint(s, 0, 64): 0b/0o/0x prefixes, a leading 0 means octal. */
static bool
parse_uint(const char *s, uint64_t *out)
{
    unsigned base = 10;
    uint64_t v = 0;
    if (*s == '\0')
        return false;
    if (s[0] == '0') {
        char p = (char)(s[1] | 0x20);
        bool prefixed = strlen(s) >= 3 && (p == 'b' || p == 'o' || p == 'x');
        base = !prefixed ? 8 : p == 'b' ? 2 : p == 'o' ? 8 : 16;
        s += prefixed ? 2 : 1;
    }
    for (; *s; s++) {
        unsigned d = (unsigned)digit_value(*s);
        if (d >= base || v > (UINT64_MAX - d) / base)
            return false;
        v = v * base + d;
    }
    *out = v;
    return true;
}

/* Go's strconv.ParseInt(s, 0, 64). */
static bool
parse_int(const char *s, int64_t *out)
{
    bool neg = s[0] == '-';
    uint64_t u;
    if (!parse_uint(s + (s[0] == '-' || s[0] == '+'), &u))
        return false;
    if (u > (uint64_t)INT64_MAX + (neg ? 1 : 0))
        return false;
    *out = neg ? (int64_t)(0 - u) : (int64_t)u;
    return true;
}

static const char *
digits(const char *s)
{
    while (*s >= '0' && *s <= '9')
        s++;
    return s;
}

/* yaml.v2's float syntax: [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)? */
static bool
float_syntax(const char *s)
{
    const char *p;
    s += *s == '-' || *s == '+';
    if (*s == '.') {
        p = digits(s + 1);
        if (p == s + 1)
            return false;
    } else {
        p = digits(s);
        if (p == s)
            return false;
        if (*p == '.')
            p = digits(p + 1);
    }
    if (*p == 'e' || *p == 'E') {
        const char *e = p + 1 + (p[1] == '-' || p[1] == '+');
        p = digits(e);
        if (p == e)
            return false;
    }
    return *p == '\0';
}

/* strtod for syntax float_syntax() accepted; false when out of range (Go's ErrRange). */
static bool
to_double(const char *s, double *out)
{
    *out = strtod(s, NULL);
    return !isinf(*out);
}

static json_t *
resolve_number(const char *s, size_t n)
{
    char *plain = gw_malloc(n + 1), *o = plain;
    json_t *v = NULL;
    int64_t i;
    uint64_t u;
    double d;
    for (size_t k = 0; k < n; k++)
        if (s[k] != '_')
            *o++ = s[k];
    *o = '\0';
    if (parse_int(plain, &i))
        v = json_integer(i);
    else if (plain[0] != '-' && plain[0] != '+' && parse_uint(plain, &u))
        v = json_real((double)u); /* beyond int64: JSON numbers here are int64 or double */
    else if (float_syntax(plain) && to_double(plain, &d))
        v = json_real(d);
    free(plain);
    return v;
}

json_t *
gw_yaml__resolve(const char *s, size_t n, const char **special)
{
    double d;
    *special = NULL;
    if (IN_WORDS(s, n, null_words))
        return json_null();
    if (IN_WORDS(s, n, true_words))
        return json_true();
    if (IN_WORDS(s, n, false_words))
        return json_false();
    for (size_t i = 0; i < sizeof(special_words) / sizeof(special_words[0]); i++) {
        if (strlen(special_words[i][0]) == n && memcmp(special_words[i][0], s, n) == 0) {
            *special = special_words[i][1];
            return NULL;
        }
    }
    json_t *v = NULL;
    if (memchr(s, '\0', n) != NULL)
        return json_stringn(s, n);
    if (s[0] == '.' && float_syntax(s) && to_double(s, &d))
        v = json_real(d);
    else if ((s[0] >= '0' && s[0] <= '9') || s[0] == '-' || s[0] == '+')
        v = resolve_number(s, n);
    return v != NULL ? v : json_stringn(s, n);
}

bool
gw_yaml__timestamp_like(const char *s, size_t n)
{
    return n >= 5 && digits(s) == s + 4 && s[4] == '-';
}

/* YAML 1.1 base-60 numbers, e.g. 1:20 (yaml.v2 quotes strings like that too). */
static bool
base60_like(const char *s, size_t n)
{
    const char *p = s + (n > 0 && (s[0] == '-' || s[0] == '+'));
    return p < s + n && *p >= '0' && *p <= '9' && memchr(s, ':', n) != NULL &&
           strspn(p, "0123456789_:.") == (size_t)(s + n - p);
}

bool
gw_yaml__plain_is_string(const char *s, size_t n)
{
    const char *special;
    if (n == 2 && memcmp(s, "<<", 2) == 0)
        return false;
    /* a float too large for a double stays a string here, but not in every reader */
    if (gw_yaml__timestamp_like(s, n) || base60_like(s, n) || float_syntax(s))
        return false;
    json_t *v = gw_yaml__resolve(s, n, &special);
    bool str = json_is_string(v);
    json_decref(v);
    return str;
}
