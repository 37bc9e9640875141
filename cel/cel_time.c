/*
 * Timestamps and durations: RFC 3339 and Go-style duration text, calendar arithmetic, time
 * zones (fixed offsets and IANA names read from the system's TZif files), and the CEL
 * functions over them.
 */
#include "cel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cel_int.h"

#define NS_PER_S 1000000000LL
#define ZONEINFO "/usr/share/zoneinfo/"
#define TZIF_MAX (1 << 16) /* zone files are a few KiB */

/* ---- Calendar (proleptic Gregorian, days since 1970-01-01) ---- */

static int64_t
days_from_civil(int64_t y, int m, int d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static void
civil_from_days(int64_t z, int64_t *y, int *m, int *d)
{
    z += 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    *d = (int)(doy - (153 * mp + 2) / 5 + 1);
    *m = (int)(mp < 10 ? mp + 3 : mp - 9);
    *y = yoe + era * 400 + (*m <= 2);
}

static bool
is_leap(int64_t y)
{
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static int
days_in_month(int64_t y, int m)
{
    static const int dim[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return m == 2 && is_leap(y) ? 29 : dim[m - 1];
}

static int64_t
floor_div(int64_t a, int64_t b)
{
    return a / b - (a % b != 0 && (a < 0) != (b < 0));
}

static void
civil_of(int64_t t, cel__civil_t *c)
{
    int64_t days = floor_div(t, 86400);
    int64_t secs = t - days * 86400;
    civil_from_days(days, &c->year, &c->month, &c->day);
    c->hour = (int)(secs / 3600);
    c->min = (int)(secs / 60 % 60);
    c->sec = (int)(secs % 60);
    c->wday = (int)((days % 7 + 11) % 7); /* 1970-01-01 was a Thursday */
    c->yday = (int)(days - days_from_civil(c->year, 1, 1));
}

/* ---- Text ---- */

static bool
digits(const char *s, size_t len, size_t at, int n, int *out)
{
    if (at + (size_t)n > len)
        return false;
    int v = 0;
    for (int i = 0; i < n; i++) {
        char c = s[at + (size_t)i];
        if (c < '0' || c > '9')
            return false;
        v = v * 10 + (c - '0');
    }
    *out = v;
    return true;
}

/* "Z" or "+HH:MM"/"-HH:MM" at s[i..len): the offset east of UTC in seconds. */
static bool
parse_zone_suffix(const char *s, size_t len, size_t i, int *off)
{
    if (i + 1 == len && (s[i] == 'Z' || s[i] == 'z')) {
        *off = 0;
        return true;
    }
    int h, m;
    if (i + 6 != len || (s[i] != '+' && s[i] != '-') || s[i + 3] != ':' ||
        !digits(s, len, i + 1, 2, &h) || !digits(s, len, i + 4, 2, &m) || h > 23 || m > 59)
        return false;
    *off = (s[i] == '-' ? -1 : 1) * (h * 3600 + m * 60);
    return true;
}

bool
cel__ts_parse(const char *s, size_t len, int64_t *sec, int32_t *nsec)
{
    int y, mo, d, h, mi, se;
    if (!digits(s, len, 0, 4, &y) || len < 20 || s[4] != '-' || !digits(s, len, 5, 2, &mo) ||
        s[7] != '-' || !digits(s, len, 8, 2, &d) || (s[10] != 'T' && s[10] != 't') ||
        !digits(s, len, 11, 2, &h) || s[13] != ':' || !digits(s, len, 14, 2, &mi) || s[16] != ':' ||
        !digits(s, len, 17, 2, &se))
        return false;
    if (mo < 1 || mo > 12 || d < 1 || d > days_in_month(y, mo) || h > 23 || mi > 59 || se > 59)
        return false;
    size_t i = 19;
    int32_t ns = 0;
    if (i < len && s[i] == '.') {
        int nd = 0;
        for (i++; i < len && s[i] >= '0' && s[i] <= '9'; i++, nd++) {
            if (nd < 9)
                ns = ns * 10 + (s[i] - '0');
        }
        if (nd == 0 || nd > 9)
            return false;
        for (; nd < 9; nd++)
            ns *= 10;
    }
    int off;
    if (!parse_zone_suffix(s, len, i, &off))
        return false;
    *sec = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se - off;
    *nsec = ns;
    return true;
}

char *
cel__ts_format(cel_arena_t *a, int64_t sec, int32_t nsec)
{
    cel__civil_t c;
    civil_of(sec, &c);
    char frac[16] = "";
    if (nsec != 0) {
        snprintf(frac, sizeof(frac), ".%09d", (int)nsec);
        for (size_t n = strlen(frac); frac[n - 1] == '0'; n--)
            frac[n - 1] = '\0';
    }
    return cel__arena_sprintf(a, "%04lld-%02d-%02dT%02d:%02d:%02d%sZ", (long long)c.year, c.month,
                              c.day, c.hour, c.min, c.sec, frac);
}

static int64_t
unit_ns(const char *u, size_t n)
{
    static const struct {
        const char *name;
        int64_t ns;
    } units[] = {
        {"ns", 1},       {"us", 1000},    {"\xc2\xb5s", 1000},  {"\xce\xbcs", 1000},
        {"ms", 1000000}, {"s", NS_PER_S}, {"m", 60 * NS_PER_S}, {"h", 3600 * NS_PER_S},
    };
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
        if (strlen(units[i].name) == n && memcmp(units[i].name, u, n) == 0)
            return units[i].ns;
    }
    return 0;
}

/* One "<number><unit>" component of a duration at s[*i..len), added to *total. */
static bool
dur_component(const char *s, size_t len, size_t *i, uint64_t *total)
{
    uint64_t whole = 0, frac = 0, scale = 1;
    size_t start = *i;
    for (; *i < len && s[*i] >= '0' && s[*i] <= '9'; (*i)++) {
        if (whole > (UINT64_MAX - 9) / 10)
            return false;
        whole = whole * 10 + (uint64_t)(s[*i] - '0');
    }
    bool had_whole = *i > start;
    if (*i < len && s[*i] == '.') {
        size_t fstart = ++*i;
        for (; *i < len && s[*i] >= '0' && s[*i] <= '9'; (*i)++) {
            if (scale < 1000000000000000000ULL) {
                frac = frac * 10 + (uint64_t)(s[*i] - '0');
                scale *= 10;
            }
        }
        if (!had_whole && *i == fstart)
            return false;
    } else if (!had_whole) {
        return false;
    }
    size_t ustart = *i;
    while (*i < len && s[*i] != '.' && (s[*i] < '0' || s[*i] > '9'))
        (*i)++;
    int64_t unit = unit_ns(s + ustart, *i - ustart);
    if (unit == 0 || whole > (1ULL << 63) / (uint64_t)unit)
        return false;
    uint64_t v = whole * (uint64_t)unit + (uint64_t)((double)frac * ((double)unit / (double)scale));
    if (v > (1ULL << 63) - *total)
        return false;
    *total += v;
    return true;
}

bool
cel__dur_parse(const char *s, size_t len, int64_t *ns)
{
    size_t i = 0;
    bool neg = false;
    if (i < len && (s[i] == '-' || s[i] == '+'))
        neg = s[i++] == '-';
    if (len - i == 1 && s[i] == '0') {
        *ns = 0;
        return true;
    }
    if (i == len)
        return false;
    uint64_t total = 0;
    while (i < len) {
        if (!dur_component(s, len, &i, &total))
            return false;
    }
    if (total > (uint64_t)INT64_MAX + (neg ? 1 : 0))
        return false;
    *ns = neg ? (int64_t)(0 - total) : (int64_t)total;
    return true;
}

char *
cel__dur_format(cel_arena_t *a, int64_t ns)
{
    uint64_t mag = ns < 0 ? 0 - (uint64_t)ns : (uint64_t)ns;
    char frac[16] = "";
    if (mag % NS_PER_S != 0) {
        snprintf(frac, sizeof(frac), ".%09llu", (unsigned long long)(mag % NS_PER_S));
        for (size_t n = strlen(frac); frac[n - 1] == '0'; n--)
            frac[n - 1] = '\0';
    }
    return cel__arena_sprintf(a, "%s%llu%ss", ns < 0 ? "-" : "",
                              (unsigned long long)(mag / NS_PER_S), frac);
}

/* ---- Time zones ---- */

typedef struct posix_rule {
    char kind; /* 'M', 'J' or 'D' (zero-based day of year) */
    int month, week, wday, day;
    int32_t time; /* seconds after local midnight */
} posix_rule_t;

typedef struct posix_tz {
    int32_t std_off, dst_off; /* east of UTC */
    bool has_dst;
    posix_rule_t start, end;
} posix_tz_t;

static const char *
posix_name(const char *p)
{
    if (*p == '<') {
        const char *q = strchr(p, '>');
        return q ? q + 1 : NULL;
    }
    const char *q = p;
    while ((*q >= 'A' && *q <= 'Z') || (*q >= 'a' && *q <= 'z'))
        q++;
    return q - p >= 3 ? q : NULL;
}

/* [+-]hh[:mm[:ss]] */
static const char *
posix_time(const char *p, int32_t *out)
{
    int sign = 1;
    if (*p == '+' || *p == '-')
        sign = *p++ == '-' ? -1 : 1;
    int32_t parts[3] = {0, 0, 0};
    for (int k = 0; k < 3; k++) {
        if (*p < '0' || *p > '9')
            return k == 0 ? NULL : p;
        char *end;
        parts[k] = (int32_t)strtol(p, &end, 10);
        p = end;
        if (k < 2 && *p != ':')
            break;
        if (k < 2)
            p++;
    }
    *out = sign * (parts[0] * 3600 + parts[1] * 60 + parts[2]);
    return p;
}

static const char *
posix_rule(const char *p, posix_rule_t *r)
{
    char *end;
    r->time = 7200;
    if (*p == 'M') {
        r->kind = 'M';
        r->month = (int)strtol(p + 1, &end, 10);
        if (*end != '.')
            return NULL;
        r->week = (int)strtol(end + 1, &end, 10);
        if (*end != '.')
            return NULL;
        r->wday = (int)strtol(end + 1, &end, 10);
        if (r->month < 1 || r->month > 12 || r->week < 1 || r->week > 5 || r->wday > 6)
            return NULL;
    } else {
        r->kind = *p == 'J' ? 'J' : 'D';
        r->day = (int)strtol(p + (*p == 'J'), &end, 10);
    }
    p = end;
    if (*p == '/')
        p = posix_time(p + 1, &r->time);
    return p;
}

static bool
posix_parse(const char *p, posix_tz_t *tz)
{
    int32_t off;
    if ((p = posix_name(p)) == NULL || (p = posix_time(p, &off)) == NULL)
        return false;
    tz->std_off = -off;
    tz->has_dst = *p != '\0';
    if (!tz->has_dst)
        return true;
    if ((p = posix_name(p)) == NULL)
        return false;
    tz->dst_off = tz->std_off + 3600;
    if (*p != ',' && *p != '\0') {
        if ((p = posix_time(p, &off)) == NULL)
            return false;
        tz->dst_off = -off;
    }
    if (*p != ',' || (p = posix_rule(p + 1, &tz->start)) == NULL || *p != ',' ||
        (p = posix_rule(p + 1, &tz->end)) == NULL)
        return false;
    return *p == '\0';
}

/* Local seconds since the epoch at which rule `r` fires in year `y`. */
static int64_t
rule_time(const posix_rule_t *r, int64_t y)
{
    int64_t day;
    if (r->kind == 'M') {
        int64_t first = days_from_civil(y, r->month, 1);
        int first_wday = (int)((first % 7 + 11) % 7);
        int64_t d = (r->wday - first_wday + 7) % 7 + 7 * (r->week - 1);
        while (d >= days_in_month(y, r->month))
            d -= 7;
        day = first + d;
    } else if (r->kind == 'J') {
        day = days_from_civil(y, 1, 1) + r->day - 1 + (is_leap(y) && r->day >= 60);
    } else {
        day = days_from_civil(y, 1, 1) + r->day;
    }
    return day * 86400 + r->time;
}

static int32_t
posix_offset(const posix_tz_t *tz, int64_t t)
{
    if (!tz->has_dst)
        return tz->std_off;
    cel__civil_t c;
    civil_of(t + tz->std_off, &c);
    /* Start is given in standard local time, end in daylight local time. */
    int64_t start = rule_time(&tz->start, c.year) - tz->std_off;
    int64_t end = rule_time(&tz->end, c.year) - tz->dst_off;
    bool dst = start < end ? (t >= start && t < end) : !(t >= end && t < start);
    return dst ? tz->dst_off : tz->std_off;
}

static int64_t
be(const unsigned char *p, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v = (v << 8) | p[i];
    return n == 4 ? (int64_t)(int32_t)(uint32_t)v : (int64_t)v;
}

/* Offset at `t` from the 64-bit section of a TZif file, or the footer rule past its end. */
static bool
tzif_offset(const unsigned char *d, size_t n, int64_t t, int32_t *off)
{
    if (n < 44 || memcmp(d, "TZif", 4) != 0 || d[4] < '2')
        return false;
    int64_t c[6];
    for (int i = 0; i < 6; i++)
        c[i] = be(d + 20 + 4 * i, 4);
    size_t skip = 44 + (size_t)(c[3] * 5 + c[4] * 6 + c[5] + c[2] * 8 + c[1] + c[0]);
    if (n < skip + 44 || memcmp(d + skip, "TZif", 4) != 0)
        return false;
    const unsigned char *h = d + skip;
    for (int i = 0; i < 6; i++)
        c[i] = be(h + 20 + 4 * i, 4);
    int64_t timecnt = c[3], typecnt = c[4];
    const unsigned char *times = h + 44, *idx = times + timecnt * 8, *types = idx + timecnt;
    const unsigned char *end = types + typecnt * 6 + c[5] + c[2] * 12 + c[1] + c[0];
    if (typecnt < 1 || end > d + n)
        return false;
    int64_t k = 0;
    while (k < timecnt && be(times + k * 8, 8) <= t)
        k++;
    if (k == timecnt && end + 1 < d + n && *end == '\n') {
        char footer[128];
        size_t fl = 0;
        for (const unsigned char *p = end + 1; p < d + n && *p != '\n' && fl < 127; p++)
            footer[fl++] = (char)*p;
        footer[fl] = '\0';
        posix_tz_t tz;
        if (fl > 0 && posix_parse(footer, &tz)) {
            *off = posix_offset(&tz, t);
            return true;
        }
    }
    int type = k == 0 ? 0 : idx[k - 1];
    if (type >= typecnt)
        return false;
    *off = (int32_t)be(types + type * 6, 4);
    return true;
}

static bool
zone_name_ok(const char *tz, size_t len)
{
    if (len == 0 || len > CEL__TZ_NAME_MAX || tz[0] == '/' || tz[0] == '.')
        return false;
    for (size_t i = 0; i < len; i++) {
        char ch = tz[i];
        bool ok = (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') ||
                  (ch >= '0' && ch <= '9') || ch == '_' || ch == '-' || ch == '+' || ch == '/';
        if (!ok || (ch == '/' && i + 1 < len && tz[i + 1] == '.'))
            return false;
    }
    return true;
}

/* The zone's TZif file, read once per evaluation (the last zone used is kept). */
static bool
named_zone_offset(cel__eval_t *ev, const char *tz, size_t len, int64_t t, int32_t *off)
{
    if (!zone_name_ok(tz, len))
        return false;
    if (strlen(ev->tz_name) != len || memcmp(ev->tz_name, tz, len) != 0) {
        char path[160];
        snprintf(path, sizeof(path), "%s%.*s", ZONEINFO, (int)len, tz);
        FILE *f = fopen(path, "rb");
        if (f == NULL)
            return false;
        if (ev->tz_data == NULL)
            ev->tz_data = cel_arena_alloc(ev->arena, TZIF_MAX);
        ev->tz_len = fread(ev->tz_data, 1, TZIF_MAX, f);
        fclose(f);
        memcpy(ev->tz_name, tz, len);
        ev->tz_name[len] = '\0';
    }
    return tzif_offset(ev->tz_data, ev->tz_len, t, off);
}

/* "+05:30", "-02:00", "02:00": a fixed offset east of UTC. */
static bool
fixed_offset(const char *tz, size_t len, int32_t *off)
{
    size_t i = len > 0 && (tz[0] == '+' || tz[0] == '-') ? 1 : 0;
    int h, m;
    if (len != i + 5 || tz[i + 2] != ':' || !digits(tz, len, i, 2, &h) ||
        !digits(tz, len, i + 3, 2, &m) || m > 59)
        return false;
    *off = (tz[0] == '-' ? -1 : 1) * (h * 3600 + m * 60);
    return true;
}

bool
cel__civil_time(cel__eval_t *ev, int64_t sec, const char *tz, size_t tzlen, cel__civil_t *c,
                const char **why)
{
    int32_t off = 0;
    if (tz != NULL && !(tzlen == 3 && memcmp(tz, "UTC", 3) == 0) &&
        !fixed_offset(tz, tzlen, &off) && !named_zone_offset(ev, tz, tzlen, sec, &off)) {
        *why = "unknown time zone";
        return false;
    }
    civil_of(sec + off, c);
    return true;
}

/* ---- Functions ---- */

/* Leading digits of a timestamp text: more than four is a year past 9999. */
static size_t
year_digits(const char *s, size_t len)
{
    size_t n = 0;
    while (n < len && s[n] >= '0' && s[n] <= '9')
        n++;
    return n;
}

static cel_value_t
fn_timestamp(cel__eval_t *ev, const cel__node_t *call, const cel_value_t *a, int n)
{
    (void)call, (void)n;
    int64_t sec;
    int32_t nsec;
    switch (a[0].kind) {
    case CEL_TIMESTAMP:
        return a[0];
    case CEL_INT:
        return cel_timestamp(a[0].v.i, 0);
    case CEL_STRING:
        if (year_digits(a[0].v.str.data, a[0].v.str.len) > 4)
            return cel__err(ev, "timestamp out of range");
        if (!cel__ts_parse(a[0].v.str.data, a[0].v.str.len, &sec, &nsec))
            return cel__err(ev, "cannot parse timestamp '%.*s'", (int)a[0].v.str.len,
                            a[0].v.str.data);
        return cel_timestamp(sec, nsec);
    default:
        return cel__no_overload(ev, "timestamp", a, 1);
    }
}

static cel_value_t
fn_duration(cel__eval_t *ev, const cel__node_t *call, const cel_value_t *a, int n)
{
    (void)call, (void)n;
    int64_t ns;
    switch (a[0].kind) {
    case CEL_DURATION:
        return a[0];
    case CEL_STRING:
        if (!cel__dur_parse(a[0].v.str.data, a[0].v.str.len, &ns))
            return cel__err(ev, "invalid duration '%.*s' (bad format or out of range)",
                            (int)a[0].v.str.len, a[0].v.str.data);
        return cel_duration(ns);
    default:
        return cel__no_overload(ev, "duration", a, 1);
    }
}

/* Whether timestamp(v) or duration(v) with a literal argument succeeds, as cel-go's duration
 * and timestamp literal validators try it at compile time (duration(int) type-checks there but
 * has no conversion). */
bool
cel__time_literal_ok(bool timestamp, const cel_value_t *v)
{
    int64_t sec, ns;
    int32_t nsec;
    if (!timestamp)
        return v->kind == CEL_STRING && cel__dur_parse(v->v.str.data, v->v.str.len, &ns);
    if (v->kind == CEL_INT)
        return v->v.i >= CEL__TS_MIN && v->v.i <= CEL__TS_MAX;
    if (v->kind != CEL_STRING)
        return false;
    return year_digits(v->v.str.data, v->v.str.len) <= 4 &&
           cel__ts_parse(v->v.str.data, v->v.str.len, &sec, &nsec) && sec >= CEL__TS_MIN &&
           sec <= CEL__TS_MAX;
}

typedef enum {
    F_YEAR,
    F_MONTH,
    F_YDAY,
    F_MDAY0,
    F_MDAY1,
    F_WDAY,
    F_HOUR,
    F_MIN,
    F_SEC,
    F_MS
} field_t;

static cel_value_t
duration_field(cel__eval_t *ev, const cel_value_t *a, int n, field_t f, const char *name)
{
    int64_t ns = a[0].v.dur;
    if (n != 1)
        return cel__no_overload(ev, name, a, n);
    switch (f) {
    case F_HOUR:
        return cel_int(ns / (3600 * NS_PER_S));
    case F_MIN:
        return cel_int(ns / (60 * NS_PER_S));
    case F_SEC:
        return cel_int(ns / NS_PER_S);
    case F_MS:
        return cel_int(ns % NS_PER_S / 1000000);
    default:
        return cel__no_overload(ev, name, a, n);
    }
}

static cel_value_t
time_field(cel__eval_t *ev, const cel_value_t *a, int n, field_t f, const char *name)
{
    if (a[0].kind == CEL_DURATION)
        return duration_field(ev, a, n, f, name);
    if (a[0].kind != CEL_TIMESTAMP || (n == 2 && a[1].kind != CEL_STRING))
        return cel__no_overload(ev, name, a, n);
    cel__civil_t c;
    const char *why;
    if (!cel__civil_time(ev, a[0].v.ts.sec, n == 2 ? a[1].v.str.data : NULL,
                         n == 2 ? a[1].v.str.len : 0, &c, &why))
        return cel__err(ev, "%s: '%.*s'", why, (int)a[1].v.str.len, a[1].v.str.data);
    int64_t vals[] = {
        [F_YEAR] = c.year, [F_MONTH] = c.month - 1,
        [F_YDAY] = c.yday, [F_MDAY0] = c.day - 1,
        [F_MDAY1] = c.day, [F_WDAY] = c.wday,
        [F_HOUR] = c.hour, [F_MIN] = c.min,
        [F_SEC] = c.sec,   [F_MS] = a[0].v.ts.nsec / 1000000,
    };
    return cel_int(vals[f]);
}

#define FIELD_FN(fname, field, text)                                                               \
    static cel_value_t fname(cel__eval_t *ev, const cel__node_t *call, const cel_value_t *a,       \
                             int n)                                                                \
    {                                                                                              \
        (void)call;                                                                                \
        return time_field(ev, a, n, field, text);                                                  \
    }

FIELD_FN(fn_full_year, F_YEAR, "getFullYear")
FIELD_FN(fn_month, F_MONTH, "getMonth")
FIELD_FN(fn_day_of_year, F_YDAY, "getDayOfYear")
FIELD_FN(fn_day_of_month, F_MDAY0, "getDayOfMonth")
FIELD_FN(fn_date, F_MDAY1, "getDate")
FIELD_FN(fn_day_of_week, F_WDAY, "getDayOfWeek")
FIELD_FN(fn_hours, F_HOUR, "getHours")
FIELD_FN(fn_minutes, F_MIN, "getMinutes")
FIELD_FN(fn_seconds, F_SEC, "getSeconds")
FIELD_FN(fn_millis, F_MS, "getMilliseconds")

const cel__fn_t cel__time_fns[] = {
    {"timestamp", false, 1, 1, fn_timestamp},
    {"duration", false, 1, 1, fn_duration},
    {"getFullYear", true, 1, 2, fn_full_year},
    {"getMonth", true, 1, 2, fn_month},
    {"getDayOfYear", true, 1, 2, fn_day_of_year},
    {"getDayOfMonth", true, 1, 2, fn_day_of_month},
    {"getDate", true, 1, 2, fn_date},
    {"getDayOfWeek", true, 1, 2, fn_day_of_week},
    {"getHours", true, 1, 2, fn_hours},
    {"getMinutes", true, 1, 2, fn_minutes},
    {"getSeconds", true, 1, 2, fn_seconds},
    {"getMilliseconds", true, 1, 2, fn_millis},
    {NULL, false, 0, 0, NULL},
};
