/* Times and durations as apimachinery writes them in JSON (metav1.Time, MicroTime, Duration). */
#include "gw_protobuf_int.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define NS_PER_SEC INT64_C(1000000000)
#define SECS_PER_DAY INT64_C(86400)

/* Days since 1970-01-01 to a proleptic Gregorian date (H. Hinnant's civil_from_days). */
static void
pbt_civil(int64_t days, int64_t *y, int *m, int *d)
{
    int64_t z = days + 719468, era = (z >= 0 ? z : z - 146096) / 146097;
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;

    *d = (int)(doy - (153 * mp + 2) / 5 + 1);
    *m = (int)(mp < 10 ? mp + 3 : mp - 9);
    *y = yoe + era * 400 + (*m <= 2);
}

/* The inverse: days since 1970-01-01 of y-m-d. */
static int64_t
pbt_days(int64_t y, int m, int d)
{
    int64_t era, yoe, doy, doe;

    y -= m <= 2;
    era = (y >= 0 ? y : y - 399) / 400;
    yoe = y - era * 400;
    doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

void
gw_protobuf__format_time(int64_t sec, int64_t nanos, bool micro, char *out)
{
    int64_t days, rem, y;
    int m, d;

    /* time.Unix normalizes nanoseconds outside [0, 1e9) into the seconds. */
    sec += nanos / NS_PER_SEC;
    nanos %= NS_PER_SEC;
    if (nanos < 0) {
        nanos += NS_PER_SEC;
        sec--;
    }
    days = sec / SECS_PER_DAY - (sec % SECS_PER_DAY < 0);
    rem = sec - days * SECS_PER_DAY;
    pbt_civil(days, &y, &m, &d);
    out += sprintf(out, "%s%04" PRId64 "-%02d-%02dT%02d:%02d:%02d", y < 0 ? "-" : "",
                   y < 0 ? -y : y, m, d, (int)(rem / 3600), (int)(rem / 60 % 60), (int)(rem % 60));
    if (micro)
        out += sprintf(out, ".%06d", (int)(nanos / 1000));
    strcpy(out, "Z");
}

/* n digits at *s as a number; advances *s. */
static bool
pbt_digits(const char **s, int n, int *v)
{
    *v = 0;
    for (int i = 0; i < n; i++) {
        if (!isdigit((unsigned char)(*s)[i]))
            return false;
        *v = *v * 10 + ((*s)[i] - '0');
    }
    *s += n;
    return true;
}

static bool
pbt_expect(const char **s, char c)
{
    if (**s != c)
        return false;
    (*s)++;
    return true;
}

/* ".123" up to nine digits, as nanoseconds. */
static bool
pbt_fraction(const char **s, int32_t *nanos)
{
    int digits = 0;

    *nanos = 0;
    if (**s != '.')
        return true;
    for ((*s)++; isdigit((unsigned char)**s); (*s)++) {
        if (++digits > 9)
            return false;
        *nanos = *nanos * 10 + (**s - '0');
    }
    for (int i = digits; i < 9; i++)
        *nanos *= 10;
    return digits > 0;
}

/* "Z" or "+hh:mm" / "-hh:mm", as seconds east of UTC. */
static bool
pbt_zone(const char **s, int *offset)
{
    int hh, mm, sign = **s == '-' ? -1 : 1;

    *offset = 0;
    if (pbt_expect(s, 'Z'))
        return true;
    if (**s != '+' && **s != '-')
        return false;
    (*s)++;
    if (!pbt_digits(s, 2, &hh) || !pbt_expect(s, ':') || !pbt_digits(s, 2, &mm) || hh > 23 ||
        mm > 59)
        return false;
    *offset = sign * (hh * 3600 + mm * 60);
    return true;
}

bool
gw_protobuf__parse_time(const char *s, int64_t *sec, int32_t *nanos)
{
    int y, mo, d, h, mi, se, offset;

    if (!pbt_digits(&s, 4, &y) || !pbt_expect(&s, '-') || !pbt_digits(&s, 2, &mo) ||
        !pbt_expect(&s, '-') || !pbt_digits(&s, 2, &d) || !pbt_expect(&s, 'T') ||
        !pbt_digits(&s, 2, &h) || !pbt_expect(&s, ':') || !pbt_digits(&s, 2, &mi) ||
        !pbt_expect(&s, ':') || !pbt_digits(&s, 2, &se) || !pbt_fraction(&s, nanos) ||
        !pbt_zone(&s, &offset) || *s != '\0')
        return false;
    if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 59)
        return false;
    *sec = pbt_days(y, mo, d) * SECS_PER_DAY + h * 3600 + mi * 60 + se - offset;
    return true;
}

/* ---- durations ---------------------------------------------------------------------------- */

/* The fraction v / 10^prec without trailing zeros, written backwards ending at *w; returns
   v / 10^prec (Go's fmtFrac). */
static uint64_t
pbt_frac(char *buf, size_t *w, uint64_t v, int prec)
{
    bool print = false;

    for (int i = 0; i < prec; i++) {
        int digit = (int)(v % 10);
        print = print || digit != 0;
        if (print)
            buf[--*w] = (char)('0' + digit);
        v /= 10;
    }
    if (print)
        buf[--*w] = '.';
    return v;
}

static void
pbt_int(char *buf, size_t *w, uint64_t v)
{
    do {
        buf[--*w] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
}

/* Below a second: 1.2ms, 3µs, 5ns. */
static void
pbt_small(char *buf, size_t *w, uint64_t u)
{
    int prec = 6;

    buf[--*w] = 's';
    if (u < 1000) {
        prec = 0;
        buf[--*w] = 'n';
    } else if (u < 1000000) {
        prec = 3;
        *w -= 2;
        memcpy(buf + *w, "\xc2\xb5", 2);
    } else
        buf[--*w] = 'm';
    pbt_int(buf, w, pbt_frac(buf, w, u, prec));
}

void
gw_protobuf__format_duration(int64_t ns, char *out)
{
    char buf[40];
    size_t w = sizeof(buf);
    uint64_t u = ns < 0 ? -(uint64_t)ns : (uint64_t)ns;

    buf[--w] = '\0';
    if (u == 0) {
        strcpy(out, "0s");
        return;
    }
    if (u < (uint64_t)NS_PER_SEC)
        pbt_small(buf, &w, u);
    else {
        buf[--w] = 's';
        u = pbt_frac(buf, &w, u, 9);
        pbt_int(buf, &w, u % 60);
        if ((u /= 60) > 0) {
            buf[--w] = 'm';
            pbt_int(buf, &w, u % 60);
            if ((u /= 60) > 0) {
                buf[--w] = 'h';
                pbt_int(buf, &w, u);
            }
        }
    }
    if (ns < 0)
        buf[--w] = '-';
    strcpy(out, buf + w);
}

/* The nanoseconds in one unit at *s ("ns", "us", "µs", "μs", "ms", "s", "m", "h"); advances. */
static uint64_t
pbt_unit(const char **s)
{
    static const struct {
        const char *name;
        uint64_t ns;
    } units[] = {
        {"ns", 1},       {"us", 1000},      {"\xc2\xb5s", 1000}, {"\xce\xbcs", 1000},
        {"ms", 1000000}, {"s", 1000000000}, {"m", 60000000000},  {"h", 3600000000000},
    };

    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
        size_t n = strlen(units[i].name);
        if (strncmp(*s, units[i].name, n) == 0) {
            *s += n;
            return units[i].ns;
        }
    }
    return 0;
}

/* One "12.5ms" term, added to *total; false when malformed or past the int64 range. */
static bool
pbt_term(const char **s, uint64_t *total)
{
    uint64_t whole = 0, frac = 0, scale = 1, unit;
    bool digits = false;

    for (; isdigit((unsigned char)**s); (*s)++, digits = true) {
        if (whole > (UINT64_C(1) << 63) / 10)
            return false;
        whole = whole * 10 + (uint64_t)(**s - '0');
    }
    if (**s == '.') {
        for ((*s)++; isdigit((unsigned char)**s); (*s)++, digits = true) {
            if (scale <= UINT64_C(1) << 59) {
                frac = frac * 10 + (uint64_t)(**s - '0');
                scale *= 10;
            }
        }
    }
    unit = pbt_unit(s);
    if (!digits || unit == 0 || (whole > 0 && whole > (UINT64_C(1) << 63) / unit))
        return false;
    whole = whole * unit + (uint64_t)((double)frac * ((double)unit / (double)scale));
    *total += whole;
    return *total <= UINT64_C(1) << 63;
}

bool
gw_protobuf__parse_duration(const char *s, int64_t *ns)
{
    uint64_t total = 0;
    bool neg = *s == '-';

    if (*s == '-' || *s == '+')
        s++;
    if (strcmp(s, "0") == 0) {
        *ns = 0;
        return true;
    }
    if (*s == '\0')
        return false;
    while (*s) {
        if (!pbt_term(&s, &total))
            return false;
    }
    if (!neg && total > (uint64_t)INT64_MAX)
        return false;
    *ns = neg ? (int64_t)(0 - total) : (int64_t)total;
    return true;
}
