/* The string formats kube validates in custom resources (apiextensions' supported formats,
 * checked as kube-openapi's strfmt registry checks them), and Go's texts of numbers. */
#include <arpa/inet.h>
#include <ctype.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "gw_crd_schema_int.h"
#include "gw_fieldval.h"

/* formats.go's supported formats, as go-openapi normalizes names (dashes removed); kube keeps
   them whatever the node's type, and strips every other format */
static const char *const supported_formats[] = {
    "bsonobjectid", "uri",    "email",    "hostname",   "ipv4",     "ipv6",
    "cidr",         "mac",    "uuid",     "uuid3",      "uuid4",    "uuid5",
    "isbn",         "isbn10", "isbn13",   "creditcard", "ssn",      "hexcolor",
    "rgbcolor",     "byte",   "password", "date",       "duration", "datetime",
};

static void
normalize(const char *format, char *out, size_t n)
{
    size_t k = 0;
    for (; *format != '\0' && k + 1 < n; format++)
        if (*format != '-')
            out[k++] = *format;
    out[k] = '\0';
}

const char *
gw_crd__supported_format(const char *format)
{
    char norm[64];
    if (format == NULL || format[0] == '\0' || strlen(format) >= sizeof(norm))
        return NULL;
    normalize(format, norm, sizeof(norm));
    for (size_t i = 0; i < sizeof(supported_formats) / sizeof(supported_formats[0]); i++)
        if (strcmp(norm, supported_formats[i]) == 0)
            return format;
    return NULL;
}

/* ---- regular expressions of strfmt and govalidator ------------------------------------- */

enum { RX_HOSTNAME, RX_CREDITCARD, RX_RGBCOLOR, RX_N };

static const char *const rx_src[RX_N] = {
    [RX_HOSTNAME] = "^([a-zA-Z0-9\\p{S}\\p{L}]((-?[a-zA-Z0-9\\p{S}\\p{L}]{0,62})?)|"
                    "([a-zA-Z0-9\\p{S}\\p{L}](([a-zA-Z0-9-\\p{S}\\p{L}]{0,61}"
                    "[a-zA-Z0-9\\p{S}\\p{L}])?)(\\.)){1,}([a-zA-Z0-9\\p{S}\\p{L}])"
                    "(-?[a-zA-Z0-9\\p{S}\\p{L}]){1,62})$",
    [RX_CREDITCARD] = "^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|(222[1-9]|22[3-9][0-9]|"
                      "2[3-6][0-9]{2}|27[01][0-9]|2720)[0-9]{12}|6(?:011|5[0-9][0-9])[0-9]{12}|"
                      "3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\\d{3})"
                      "\\d{11}|6[27][0-9]{14})$",
    [RX_RGBCOLOR] = "^rgb\\(\\s*(0|[1-9]\\d?|1\\d\\d?|2[0-4]\\d|25[0-5])\\s*,\\s*(0|[1-9]\\d?|"
                    "1\\d\\d?|2[0-4]\\d|25[0-5])\\s*,\\s*(0|[1-9]\\d?|1\\d\\d?|2[0-4]\\d|"
                    "25[0-5])\\s*\\)$",
};

static pcre2_code *rx[RX_N];
static pthread_once_t rx_once = PTHREAD_ONCE_INIT;

static void
rx_init(void)
{
    int rc;
    PCRE2_SIZE off;
    for (int i = 0; i < RX_N; i++)
        rx[i] = pcre2_compile((PCRE2_SPTR)rx_src[i], PCRE2_ZERO_TERMINATED,
                              PCRE2_UTF | PCRE2_DOLLAR_ENDONLY, &rc, &off, NULL);
}

static bool
rx_match(int which, const char *s)
{
    pthread_once(&rx_once, rx_init);
    if (rx[which] == NULL)
        return true;
    pcre2_match_data *md = pcre2_match_data_create_from_pattern(rx[which], NULL);
    int rc = pcre2_match(rx[which], (PCRE2_SPTR)s, strlen(s), 0, 0, md, NULL);
    pcre2_match_data_free(md);
    return rc >= 0;
}

/* ---- checks ------------------------------------------------------------------------------ */

static bool
all_hex(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isxdigit((unsigned char)s[i]))
            return false;
    return true;
}

/* (?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?V[0-9a-f]{3}-?[89ab]?[0-9a-f]{3}-?[0-9a-f]{12}$ */
static bool
uuid_ok(const char *s, char version)
{
    static const size_t groups[] = {8, 4, 4, 4, 12};
    for (int g = 0; g < 5; g++) {
        if (g > 0 && *s == '-')
            s++;
        if (strlen(s) < groups[g] || !all_hex(s, groups[g]))
            return false;
        if (g == 2 && version != 0 && s[0] != version)
            return false;
        if (g == 3 && version >= '4' && strchr("89abAB", s[0]) == NULL)
            return false;
        s += groups[g];
    }
    return *s == '\0';
}

static bool
hostname_ok(const char *s)
{
    if (!rx_match(RX_HOSTNAME, s) || strlen(s) > 255)
        return false;
    for (const char *p = s, *dot; p != NULL; p = dot != NULL ? dot + 1 : NULL) {
        dot = strchr(p, '.');
        if ((dot != NULL ? (size_t)(dot - p) : strlen(p)) > 63)
            return false;
    }
    return true;
}

static bool
ip_ok(const char *s, int family)
{
    unsigned char buf[16];
    if (family == AF_INET) /* Go's ParseIP also reads IPv4 in IPv6 form (::ffff:1.2.3.4) */
        return inet_pton(AF_INET, s, buf) == 1 ||
               (inet_pton(AF_INET6, s, buf) == 1 && strchr(s, '.') != NULL);
    return inet_pton(AF_INET6, s, buf) == 1 || inet_pton(AF_INET, s, buf) == 1
               ? strchr(s, ':') != NULL
               : false;
}

static bool
cidr_ok(const char *s)
{
    const char *slash = strchr(s, '/');
    char addr[64];
    unsigned char buf[16];
    if (slash == NULL || (size_t)(slash - s) >= sizeof(addr) || slash[1] == '\0' ||
        strlen(slash + 1) > 3)
        return false;
    memcpy(addr, s, (size_t)(slash - s));
    addr[slash - s] = '\0';
    int bits = inet_pton(AF_INET, addr, buf) == 1    ? 32
               : inet_pton(AF_INET6, addr, buf) == 1 ? 128
                                                     : 0;
    int n = 0;
    for (const char *p = slash + 1; *p != '\0'; p++) {
        if (!isdigit((unsigned char)*p))
            return false;
        n = n * 10 + (*p - '0');
    }
    return bits > 0 && n <= bits;
}

/* net.ParseMAC: 6, 8 or 20 octets as xx:xx.. or xx-xx.., or xxxx.xxxx.. */
static bool
mac_ok(const char *s)
{
    size_t len = strlen(s), n, step;
    char sep;
    if (len < 14)
        return false;
    sep = s[2] == ':' || s[2] == '-' ? s[2] : s[4] == '.' ? '.' : 0;
    step = sep == '.' ? 5 : 3;
    if (sep == 0 || (len + 1) % step != 0)
        return false;
    n = sep == '.' ? 2 * (len + 1) / 5 : (len + 1) / 3;
    if (n != 6 && n != 8 && n != 20)
        return false;
    for (size_t i = 0; i < len; i += step) {
        if (!all_hex(s + i, step - 1) || (i + step - 1 < len && s[i + step - 1] != sep))
            return false;
    }
    return true;
}

/* govalidator.IsBase64: ^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|
   [A-Za-z0-9+/]{4})$ */
static bool
base64_ok(const char *s)
{
    size_t len = strlen(s), pad = 0;
    if (len == 0 || len % 4 != 0)
        return false;
    if (s[len - 1] == '=')
        pad = s[len - 2] == '=' ? 2 : 1;
    for (size_t i = 0; i < len - pad; i++)
        if (!isalnum((unsigned char)s[i]) && s[i] != '+' && s[i] != '/')
            return false;
    return true;
}

/* time.Parse("2006-01-02", s) */
static bool
date_ok(const char *s, size_t len)
{
    static const int mdays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (len != 10 || s[4] != '-' || s[7] != '-')
        return false;
    for (size_t i = 0; i < len; i++)
        if (i != 4 && i != 7 && !isdigit((unsigned char)s[i]))
            return false;
    int y = atoi(s), m = (s[5] - '0') * 10 + (s[6] - '0'), d = (s[8] - '0') * 10 + (s[9] - '0');
    bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    if (m < 1 || m > 12 || d < 1 || d > mdays[m - 1])
        return false;
    return m != 2 || d < 29 || leap;
}

/* strfmt.IsDateTime: a date, 't', then ^hh:mm:ss(.f+)?(z|[+-]hh:mm)$ (lower-cased) */
static bool
datetime_ok(const char *s)
{
    char low[128], *t, *end;
    size_t n = strlen(s);
    if (n < 4 || n >= sizeof(low))
        return false;
    for (size_t i = 0; i <= n; i++)
        low[i] = (char)tolower((unsigned char)s[i]);
    if ((t = strchr(low, 't')) == NULL || !date_ok(low, (size_t)(t - low)))
        return false;
    if ((end = strchr(t + 1, 't')) != NULL)
        *end = '\0';
    const char *p = t + 1;
    for (int i = 0; i < 8; i++)
        if (i % 3 == 2 ? p[i] != ':' : !isdigit((unsigned char)p[i]))
            return false;
    if (strncmp(p, "23", 2) > 0 || strncmp(p + 3, "59", 2) > 0 || strncmp(p + 6, "59", 2) > 0)
        return false;
    p += 8;
    if (*p != '\0' && *p != 'z' && *p != '+' && *p != '-' && isdigit((unsigned char)p[1])) {
        for (p += 1; isdigit((unsigned char)*p);)
            p++;
    }
    if (strcmp(p, "z") == 0)
        return true;
    return (*p == '+' || *p == '-') && strlen(p) == 6 && isdigit((unsigned char)p[1]) &&
           isdigit((unsigned char)p[2]) && p[3] == ':' && isdigit((unsigned char)p[4]) &&
           isdigit((unsigned char)p[5]);
}

/* time.ParseDuration's syntax: [-+]?([0-9]*(\.[0-9]*)?unit)+ or "0" */
static bool
go_duration_ok(const char *s)
{
    static const char *const units[] = {"ns", "us", "\xc2\xb5s", "\xce\xbcs", "ms", "s", "m", "h"};
    if (*s == '-' || *s == '+')
        s++;
    if (strcmp(s, "0") == 0)
        return true;
    if (*s == '\0')
        return false;
    while (*s != '\0') {
        const char *start = s;
        while (isdigit((unsigned char)*s))
            s++;
        bool digits = s > start;
        if (*s == '.')
            for (s++; isdigit((unsigned char)*s); s++)
                digits = true;
        if (!digits)
            return false;
        size_t best = 0;
        for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
            if (strncmp(s, units[i], strlen(units[i])) == 0 && strlen(units[i]) > best)
                best = strlen(units[i]);
        if (best == 0)
            return false;
        s += best;
    }
    return true;
}

/* Go's regexp \s: ASCII space, \t \n \f \r */
static bool
go_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r';
}

/* One of strfmt's unit words: a variant, or a word starting with a list's last variant. */
static bool
duration_unit(const char *u, size_t n)
{
    static const char *const units[][4] = {
        {"ns", "nano"}, {"us", "\xc2\xb5s", "micro"}, {"ms", "milli"}, {"s", "sec"},
        {"m", "min"},   {"h", "hr", "hour"},          {"d", "day"},    {"w", "wk", "week"},
    };
    char low[32];
    if (n >= sizeof(low))
        return false;
    for (size_t i = 0; i < n; i++)
        low[i] = (char)tolower((unsigned char)u[i]);
    low[n] = '\0';
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
        size_t last = 0;
        while (last + 1 < 4 && units[i][last + 1] != NULL)
            last++;
        for (size_t k = 0; k <= last; k++)
            if (strcmp(low, units[i][k]) == 0 ||
                (k == last && strncmp(low, units[i][k], strlen(units[i][k])) == 0))
                return true;
    }
    return false;
}

/* strfmt.ParseDuration: Go's syntax, else ^\s*(\d+\s*[A-Za-zµ]+\s*)+$ with every number an
   int and some unit one it knows */
static bool
duration_ok(const char *s)
{
    bool known = false, any = false;
    if (go_duration_ok(s))
        return true;
    while (go_space(*s))
        s++;
    while (*s != '\0') {
        const char *start = s, *digits, *unit;
        while (*s == '0')
            s++;
        for (digits = s; isdigit((unsigned char)*s);)
            s++;
        if (s == start || s - digits > 19 ||
            (s - digits == 19 && strncmp(digits, "9223372036854775807", 19) > 0))
            return false; /* strconv.Atoi fails beyond an int64 */
        while (go_space(*s))
            s++;
        for (unit = s; isalpha((unsigned char)*s) || strncmp(s, "\xc2\xb5", 2) == 0;)
            s += isalpha((unsigned char)*s) ? 1 : 2;
        if (s == unit)
            return false;
        known |= duration_unit(unit, (size_t)(s - unit));
        any = true;
        while (go_space(*s))
            s++;
    }
    return any && known;
}

/* RFC 5322 atext */
static bool
atext(char c)
{
    return isalnum((unsigned char)c) || (c != '\0' && strchr("!#$%&'*+-/=?^_`{|}~", c) != NULL) ||
           (unsigned char)c >= 0x80;
}

/* dot-atom: atext runs separated by single dots */
static bool
dot_atom(const char *s, size_t n)
{
    bool prev_dot = true;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '.' ? prev_dot : !atext(s[i]))
            return false;
        prev_dot = s[i] == '.';
    }
    return n > 0 && !prev_dot;
}

/* net/mail.ParseAddress for the common forms: addr-spec, or a display name then <addr-spec>
   (quoted local parts and domain literals are taken as written) */
static bool
email_ok(const char *s)
{
    const char *lt = strchr(s, '<'), *at;
    size_t n = strlen(s);
    if (lt != NULL) {
        if (n < 2 || s[n - 1] != '>')
            return false;
        s = lt + 1;
        n = strlen(s) - 1;
    }
    while (n > 0 && isspace((unsigned char)*s))
        s++, n--;
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        n--;
    at = memrchr(s, '@', n);
    if (at == NULL)
        return false;
    size_t local = (size_t)(at - s), domain = n - local - 1;
    bool quoted = local >= 2 && s[0] == '"' && s[local - 1] == '"';
    bool literal = domain >= 2 && at[1] == '[' && s[n - 1] == ']';
    return (quoted || dot_atom(s, local)) && (literal || dot_atom(at + 1, domain));
}

static bool
valid_escapes(const char *s)
{
    for (; *s != '\0'; s++)
        if (*s == '%' && !(isxdigit((unsigned char)s[1]) && isxdigit((unsigned char)s[2])))
            return false;
    return true;
}

/* url.ParseRequestURI: "*", an absolute path, or scheme:/... with a sane authority */
static bool
uri_ok(const char *s)
{
    const char *p = s, *rest;
    for (const char *q = s; *q != '\0'; q++)
        if ((unsigned char)*q < 0x20 || *q == 0x7f)
            return false;
    if (strcmp(s, "*") == 0)
        return true;
    if (isalpha((unsigned char)*p)) {
        while (isalnum((unsigned char)*p) || *p == '+' || *p == '-' || *p == '.')
            p++;
    }
    rest = *p == ':' && p > s ? p + 1 : s;
    if (*s == ':' || rest[0] != '/' || !valid_escapes(rest))
        return false;
    if (rest == s || strncmp(rest, "//", 2) != 0)
        return true;
    const char *auth = rest + 2, *end = auth + strcspn(auth, "/?#");
    const char *host = memrchr(auth, '@', (size_t)(end - auth));
    host = host != NULL ? host + 1 : auth;
    if (*host == '[') {
        const char *close = memchr(host, ']', (size_t)(end - host));
        if (close == NULL)
            return false;
        host = close + 1;
        if (host < end && *host != ':')
            return false;
    }
    const char *colon = memchr(host, ':', (size_t)(end - host));
    for (const char *q = colon != NULL ? colon + 1 : end; q < end; q++)
        if (!isdigit((unsigned char)*q))
            return false;
    for (const char *q = host; q < (colon != NULL ? colon : end); q++)
        if (!isalnum((unsigned char)*q) && strchr("-._~!$&'()*+,;=%", *q) == NULL &&
            (unsigned char)*q < 0x80)
            return false;
    return true;
}

/* govalidator.IsISBN: spaces and dashes dropped, then 10 or 13 digits with their checksum */
static bool
isbn_ok(const char *s, int version)
{
    char d[32];
    size_t n = 0;
    for (; *s != '\0'; s++) {
        if (go_space(*s) || *s == '-')
            continue;
        if (n + 1 >= sizeof(d))
            return false;
        d[n++] = *s;
    }
    d[n] = '\0';
    int sum = 0;
    if (version == 10 && n == 10) {
        for (int i = 0; i < 9; i++) {
            if (!isdigit((unsigned char)d[i]))
                return false;
            sum += (i + 1) * (d[i] - '0');
        }
        sum += d[9] == 'X' ? 100 : isdigit((unsigned char)d[9]) ? 10 * (d[9] - '0') : -1000;
        return sum >= 0 && sum % 11 == 0;
    }
    if (version == 13 && n == 13) {
        for (int i = 0; i < 13; i++)
            if (!isdigit((unsigned char)d[i]))
                return false;
        for (int i = 0; i < 12; i++)
            sum += (i % 2 ? 3 : 1) * (d[i] - '0');
        return d[12] - '0' == (10 - sum % 10) % 10;
    }
    return false;
}

/* govalidator.IsCreditCard: without its spaces and dashes, a card's number with a good Luhn
   sum */
static bool
creditcard_ok(const char *s)
{
    char d[64];
    size_t n = 0;
    for (; *s != '\0'; s++) {
        if (go_space(*s) || *s == '-')
            continue;
        if (n + 1 >= sizeof(d))
            return false;
        d[n++] = *s;
    }
    d[n] = '\0';
    if (!rx_match(RX_CREDITCARD, d))
        return false;
    int sum = 0;
    bool dbl = false;
    for (size_t i = n; i-- > 0; dbl = !dbl) {
        int v = d[i] - '0';
        if (dbl && (v *= 2) > 9)
            v -= 9;
        sum += v;
    }
    return sum % 10 == 0;
}

/* govalidator.IsSSN: 11 characters, ^\d{3}[- ]?\d{2}[- ]?\d{4}$ */
static bool
ssn_ok(const char *s)
{
    if (strlen(s) != 11)
        return false;
    for (int i = 0; i < 11; i++)
        if (i == 3 || i == 6 ? s[i] != '-' && s[i] != ' ' : !isdigit((unsigned char)s[i]))
            return false;
    return true;
}

static bool
hexcolor_ok(const char *s)
{
    if (*s == '#')
        s++;
    return (strlen(s) == 3 || strlen(s) == 6) && all_hex(s, strlen(s));
}

bool
gw_crd__format_ok(const char *format, const char *s)
{
    char f[64];
    normalize(format, f, sizeof(f));
    if (strcmp(f, "bsonobjectid") == 0)
        return strlen(s) == 24 && all_hex(s, 24);
    if (strncmp(f, "uuid", 4) == 0)
        return uuid_ok(s, f[4]);
    return strcmp(f, "uri") == 0          ? uri_ok(s)
           : strcmp(f, "email") == 0      ? email_ok(s)
           : strcmp(f, "hostname") == 0   ? hostname_ok(s)
           : strcmp(f, "ipv4") == 0       ? ip_ok(s, AF_INET)
           : strcmp(f, "ipv6") == 0       ? ip_ok(s, AF_INET6)
           : strcmp(f, "cidr") == 0       ? cidr_ok(s)
           : strcmp(f, "mac") == 0        ? mac_ok(s)
           : strcmp(f, "isbn") == 0       ? isbn_ok(s, 10) || isbn_ok(s, 13)
           : strcmp(f, "isbn10") == 0     ? isbn_ok(s, 10)
           : strcmp(f, "isbn13") == 0     ? isbn_ok(s, 13)
           : strcmp(f, "creditcard") == 0 ? creditcard_ok(s)
           : strcmp(f, "ssn") == 0        ? ssn_ok(s)
           : strcmp(f, "hexcolor") == 0   ? hexcolor_ok(s)
           : strcmp(f, "rgbcolor") == 0   ? rx_match(RX_RGBCOLOR, s)
           : strcmp(f, "byte") == 0       ? base64_ok(s)
           : strcmp(f, "date") == 0       ? date_ok(s, strlen(s))
           : strcmp(f, "datetime") == 0   ? datetime_ok(s)
           : strcmp(f, "duration") == 0   ? duration_ok(s)
                                          : true;
}

/* ---- Go's texts of a float64 -------------------------------------------------------------- */

/* The shortest digits that read back as v, and the decimal exponent of the first. */
static int
shortest_digits(double v, char *digits, size_t n)
{
    char buf[40];
    for (int p = 0; p < 17; p++) {
        snprintf(buf, sizeof(buf), "%.*e", p, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    char *e = strchr(buf, 'e');
    size_t k = 0;
    for (char *q = buf; q < e && k + 1 < n; q++)
        if (isdigit((unsigned char)*q))
            digits[k++] = *q;
    while (k > 1 && digits[k - 1] == '0')
        k--;
    digits[k] = '\0';
    return atoi(e + 1);
}

/* %e-style (d.ddde+XX) or plain decimal text of the digits */
static void
place_digits(bool neg, const char *d, int exp, bool sci, int min_exp_digits, char *buf, size_t n)
{
    size_t nd = strlen(d), k = 0;
    char out[400];
    if (neg)
        out[k++] = '-';
    if (sci) {
        snprintf(out + k, sizeof(out) - k, "%c%s%se%c%0*d", d[0], nd > 1 ? "." : "", d + 1,
                 exp < 0 ? '-' : '+', min_exp_digits, abs(exp));
    } else if (exp < 0) {
        out[k++] = '0';
        out[k++] = '.';
        for (int i = 0; i < -exp - 1; i++)
            out[k++] = '0';
        snprintf(out + k, sizeof(out) - k, "%s", d);
    } else {
        for (int i = 0; i <= exp || (size_t)i < nd; i++) {
            if (i == exp + 1)
                out[k++] = '.';
            out[k++] = (size_t)i < nd ? d[i] : '0';
        }
        out[k] = '\0';
    }
    snprintf(buf, n, "%s", out);
}

void
gw_crd__go_float(double v, char *buf, size_t n)
{
    char d[32];
    if (isnan(v) || isinf(v)) {
        snprintf(buf, n, "%s", isnan(v) ? "NaN" : v > 0 ? "+Inf" : "-Inf");
        return;
    }
    if (v == 0) {
        snprintf(buf, n, "%s", signbit(v) ? "-0" : "0");
        return;
    }
    int exp = shortest_digits(fabs(v), d, sizeof(d));
    place_digits(v < 0, d, exp, exp < -4 || exp >= 6, 2, buf, n);
}

void
gw_crd__go_json_float(double v, char *buf, size_t n)
{
    char d[32];
    if (v == 0 || isnan(v) || isinf(v)) {
        snprintf(buf, n, "0");
        return;
    }
    int exp = shortest_digits(fabs(v), d, sizeof(d));
    place_digits(v < 0, d, exp, exp < -6 || exp >= 21, 1, buf, n);
}
