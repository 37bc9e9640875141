/* Unit tests for gateway/base/gw_time: RFC 3339 as metav1.Time writes it and Go reads it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gw_time.h"
#include "tap.h"

static void
test_format(void)
{
    char out[GW_TIME_LEN + 1];

    tap_is_str(gw_time_format(0, out), "1970-01-01T00:00:00Z", "the epoch");
    tap_is_str(gw_time_format(1704164645, out), "2024-01-02T03:04:05Z", "a known time, in UTC");
    tap_is_str(gw_time_format(951782400, out), "2000-02-29T00:00:00Z", "a leap day");
    long long before = (long long)time(NULL), t = 0;
    gw_time_now(out);
    tap_ok(strlen(out) == GW_TIME_LEN && gw_time_parse(out, &t) && t >= before &&
               t <= (long long)time(NULL),
           "now reads back as now (%s)", out);
}

static void
test_parse(void)
{
    long long t = -1;

    tap_ok(gw_time_parse("1970-01-01T00:00:10Z", &t) && t == 10, "epoch + 10 s");
    tap_ok(gw_time_parse("2024-01-02T03:04:05Z", &t) && t == 1704164645, "a known time");
    tap_ok(gw_time_parse("1970-01-01T01:00:10+01:00", &t) && t == 10, "a zone east");
    tap_ok(gw_time_parse("1969-12-31T23:30:10-00:30", &t) && t == 10, "a zone west");
    tap_ok(gw_time_parse("1970-01-01T00:00:10.123456789Z", &t) && t == 10, "a fraction is dropped");
    tap_ok(gw_time_parse("2024-02-29T00:00:00Z", &t), "Feb 29 of a leap year");
    const char *bad[] = {"",
                         "1970-01-01",
                         "1970-01-01T00:00:10",
                         "1970-13-01T00:00:10Z",
                         "1970-00-01T00:00:10Z",
                         "1970-01-32T00:00:10Z",
                         "2023-02-29T00:00:00Z",
                         "2100-02-29T00:00:00Z",
                         "1970-04-31T00:00:00Z",
                         "1970-01-01T24:00:00Z",
                         "1970-01-01T00:60:00Z",
                         "1970-01-01T00:00:60Z",
                         "1970-01-01T00:00:10+0100",
                         "1970-01-01T00:00:10+24:00",
                         "1970-01-01T00:00:10.Z",
                         "1970-01-01 00:00:10Z",
                         "1970-01-01t00:00:10Z",
                         "1970-01-01T00:00:10z",
                         "197a-01-01T00:00:10Z",
                         "1970-01-01T00:00:10Zx"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        tap_ok(!gw_time_parse(bad[i], &t), "malformed or out of range: \"%s\"", bad[i]);
    tap_ok(!gw_time_parse(NULL, &t), "NULL is no time");
}

int
main(void)
{
    test_format();
    test_parse();
    return tap_done();
}
