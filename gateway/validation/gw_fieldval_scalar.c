/* Strings that kube-apiserver's decoders parse further: quantities, times and base64 bytes.
 * The messages are those of the Go code that parses them (resource.ParseQuantity, time.Parse,
 * encoding/base64), since they end up in the 400 a client sees. */
#include "gw_fieldval.h"
#include "gw_fieldval_int.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define QUANTITY_FORMAT                                                                            \
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
#define RFC3339 "2006-01-02T15:04:05Z07:00"

static bool
is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static size_t
skip_digits(const char *s, size_t pos, size_t end)
{
    while (pos < end && is_digit(s[pos]))
        pos++;
    return pos;
}

/* The suffixes resource.Quantity knows: binary, decimal SI, or an e/E exponent. */
static bool
quantity_suffix(const char *suf)
{
    static const char *const known[] = {"",  "Ki", "Mi", "Gi", "Ti", "Pi", "Ei", "n",
                                        "u", "m",  "k",  "M",  "G",  "T",  "P",  "E"};
    for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
        if (strcmp(suf, known[i]) == 0)
            return true;
    if ((suf[0] != 'e' && suf[0] != 'E') || suf[1] == '\0')
        return false;
    const char *d = suf + 1 + (suf[1] == '-' || suf[1] == '+');
    size_t n = strlen(d);
    return n > 0 && n <= 18 && skip_digits(d, 0, n) == n;
}

bool
gw_fieldval__quantity(const char *s, char *msg, size_t msg_len)
{
    size_t pos = 0, end = strlen(s), suffix;
    bool ok = true;
    if (end == 0) {
        snprintf(msg, msg_len, "%s", QUANTITY_FORMAT);
        return false;
    }
    pos += s[0] == '-' || s[0] == '+';
    while (pos < end && s[pos] == '0')
        pos++;
    pos = skip_digits(s, pos, end);
    if (pos < end && s[pos] == '.')
        pos = skip_digits(s, pos + 1, end);
    suffix = pos;
    while (pos < end && strchr("eEinumkKMGTP", s[pos]) != NULL)
        pos++;
    if (pos < end) {
        pos += s[pos] == '-' || s[pos] == '+';
        ok = skip_digits(s, pos, end) == end;
    }
    if (!ok)
        snprintf(msg, msg_len, "%s", QUANTITY_FORMAT);
    else if (!quantity_suffix(s + suffix))
        snprintf(msg, msg_len, "unable to parse quantity's suffix");
    return ok && quantity_suffix(s + suffix);
}

/* ---- RFC 3339 ---------------------------------------------------------------------------- */

typedef struct {
    const char *value, *p;
    char *msg;
    size_t msg_len;
} tparse_t;

static bool
cannot_parse(tparse_t *t, const char *elem)
{
    snprintf(t->msg, t->msg_len,
             "parsing time \"%s\" as \"" RFC3339 "\": cannot parse \"%s\" as \"%s\"", t->value,
             t->p, elem);
    return false;
}

static bool
out_of_range(tparse_t *t, const char *what)
{
    snprintf(t->msg, t->msg_len, "parsing time \"%s\": %s out of range", t->value, what);
    return false;
}

static bool
literal(tparse_t *t, char c)
{
    char elem[2] = {c, '\0'};
    if (*t->p != c)
        return cannot_parse(t, elem);
    t->p++;
    return true;
}

/* A number of `fixed` digits (or 1-2 when fixed is 0, as Go reads the hour). */
static bool
number(tparse_t *t, int fixed, const char *elem, int *out)
{
    int n = 0, v = 0;
    while (is_digit(t->p[n]) && n < (fixed ? fixed : 2))
        v = v * 10 + (t->p[n++] - '0');
    if (n == 0 || (fixed && n < fixed))
        return cannot_parse(t, elem);
    t->p += n;
    *out = v;
    return true;
}

static int
days_in(int month, int year)
{
    static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    bool leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    return month == 2 && leap ? 29 : days[month - 1];
}

static bool
zone(tparse_t *t)
{
    if (*t->p == 'Z') {
        t->p++;
        return true;
    }
    const char *z = t->p;
    if (strlen(z) < 6 || (z[0] != '+' && z[0] != '-') || !is_digit(z[1]) || !is_digit(z[2]) ||
        z[3] != ':' || !is_digit(z[4]) || !is_digit(z[5]))
        return cannot_parse(t, "Z07:00");
    t->p += 6;
    return true;
}

bool
gw_fieldval__rfc3339(const char *s, char *msg, size_t msg_len)
{
    tparse_t t = {s, s, msg, msg_len};
    int year, month, day, hour, min, sec;
    if (!number(&t, 4, "2006", &year) || !literal(&t, '-') || !number(&t, 2, "01", &month) ||
        !literal(&t, '-') || !number(&t, 2, "02", &day) || !literal(&t, 'T') ||
        !number(&t, 0, "15", &hour) || !literal(&t, ':') || !number(&t, 2, "04", &min) ||
        !literal(&t, ':') || !number(&t, 2, "05", &sec))
        return false;
    if ((*t.p == '.' || *t.p == ',') && is_digit(t.p[1])) /* Go takes fractions unasked */
        t.p = t.p + 1 + strspn(t.p + 1, "0123456789");
    if (!zone(&t))
        return false;
    if (*t.p != '\0') {
        snprintf(msg, msg_len, "parsing time \"%s\": extra text: \"%s\"", s, t.p);
        return false;
    }
    if (month < 1 || month > 12)
        return out_of_range(&t, "month");
    if (day < 1 || day > days_in(month, year))
        return out_of_range(&t, "day");
    if (hour > 23)
        return out_of_range(&t, "hour");
    if (min > 59)
        return out_of_range(&t, "minute");
    return sec > 59 ? out_of_range(&t, "second") : true;
}

/* ---- base64 ------------------------------------------------------------------------------ */

static bool
b64_char(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || is_digit((char)c) || c == '+' ||
           c == '/';
}

static size_t
skip_newlines(const unsigned char *s, size_t i, size_t n)
{
    while (i < n && (s[i] == '\r' || s[i] == '\n'))
        i++;
    return i;
}

/* One quantum of Go's decoder (decodeQuantum): the index of a corrupt byte, or -1; *done at
 * the end of the input or after padding. */
static long
quantum(const unsigned char *s, size_t n, size_t *si, bool *done)
{
    for (int j = 0; j < 4; j++) {
        if (*si == n) {
            *done = true;
            return j == 0 ? -1 : (long)(*si - (size_t)j);
        }
        unsigned char c = s[(*si)++];
        if (b64_char(c))
            continue;
        if (c == '\n' || c == '\r') {
            j--;
            continue;
        }
        if (c != '=' || j < 2)
            return (long)*si - 1;
        if (j == 2) { /* a second '=' must follow */
            *si = skip_newlines(s, *si, n);
            if (*si == n)
                return (long)n;
            if (s[(*si)++] != '=')
                return (long)*si - 2;
        }
        *si = skip_newlines(s, *si, n);
        *done = true;
        return *si < n ? (long)*si : -1;
    }
    return -1;
}

bool
gw_fieldval__base64(const char *s, size_t n, char *msg, size_t msg_len)
{
    size_t si = 0;
    bool done = false;
    while (!done) {
        long bad = quantum((const unsigned char *)s, n, &si, &done);
        if (bad >= 0) {
            snprintf(msg, msg_len, "illegal base64 data at input byte %ld", bad);
            return false;
        }
    }
    return true;
}

/* ---- the public checks ------------------------------------------------------------------- */

bool
gw_fieldval_quantity_ok(const char *s)
{
    char msg[160];
    return gw_fieldval__quantity(s, msg, sizeof(msg));
}

bool
gw_fieldval_time_ok(const char *s)
{
    char msg[256];
    return gw_fieldval__rfc3339(s, msg, sizeof(msg));
}
