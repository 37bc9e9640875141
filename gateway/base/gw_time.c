/* RFC 3339 timestamps, written and read as metav1.Time does through Go's time package. */
#include "gw_time.h"

#include <string.h>
#include <time.h>

char *
gw_time_format(long long t, char out[GW_TIME_LEN + 1])
{
    time_t tt = (time_t)t;
    struct tm tm;

    gmtime_r(&tt, &tm);
    strftime(out, GW_TIME_LEN + 1, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return out;
}

char *
gw_time_now(char out[GW_TIME_LEN + 1])
{
    return gw_time_format((long long)time(NULL), out);
}

/* The n digits at s as a number, or -1. */
static int
digits(const char *s, int n)
{
    int v = 0;

    for (int i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v;
}

static int
days_in(int month, int year)
{
    static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    bool leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);

    return month == 2 && leap ? 29 : days[month - 1];
}

/* "Z" or "+hh:mm"/"-hh:mm" as seconds east of UTC; false otherwise (Go takes nothing else). */
static bool
zone(const char *s, long long *off)
{
    if (strcmp(s, "Z") == 0) {
        *off = 0;
        return true;
    }
    if ((s[0] != '+' && s[0] != '-') || strlen(s) != 6 || s[3] != ':')
        return false;
    int h = digits(s + 1, 2), m = digits(s + 4, 2);
    if (h < 0 || h > 23 || m < 0 || m > 59)
        return false;
    *off = (s[0] == '-' ? -1 : 1) * (h * 3600LL + m * 60LL);
    return true;
}

bool
gw_time_parse(const char *s, long long *out)
{
    static const int at[] = {0, 5, 8, 11, 14, 17}, width[] = {4, 2, 2, 2, 2, 2};
    static const char sep[] = "--T::";
    int f[6];
    long long off;

    if (s == NULL || strlen(s) < 20)
        return false;
    for (int i = 0; i < 6; i++) {
        f[i] = digits(s + at[i], width[i]);
        if (f[i] < 0 || (i < 5 && s[at[i] + width[i]] != sep[i]))
            return false;
    }
    const char *z = s + 19;
    if (*z == '.' && z[1] >= '0' && z[1] <= '9')
        for (z++; *z >= '0' && *z <= '9'; z++)
            ;
    if (f[1] < 1 || f[1] > 12 || f[2] < 1 || f[2] > days_in(f[1], f[0]) || f[3] > 23 || f[4] > 59 ||
        f[5] > 59 || !zone(z, &off))
        return false;
    struct tm tm = {.tm_year = f[0] - 1900,
                    .tm_mon = f[1] - 1,
                    .tm_mday = f[2],
                    .tm_hour = f[3],
                    .tm_min = f[4],
                    .tm_sec = f[5]};
    *out = (long long)timegm(&tm) - off;
    return true;
}
