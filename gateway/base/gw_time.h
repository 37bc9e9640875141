#ifndef GATEWAY_BASE_GW_TIME_H
#define GATEWAY_BASE_GW_TIME_H

/* Wall-clock timestamps as the API shows them: RFC 3339 in UTC with whole seconds, the text of
 * metav1.Time. (Durations and timeouts use gw_clock.h.) Thread: any. */

#include <stdbool.h>

/** Length of "2006-01-02T15:04:05Z", without the NUL. */
#define GW_TIME_LEN 20

/**
 * Write t (seconds since the epoch) into out as "2006-01-02T15:04:05Z" (UTC), as metav1.Time
 * marshals. Returns out, for use in an argument list.
 */
char *gw_time_format(long long t, char out[GW_TIME_LEN + 1]);

/** The current time, written as gw_time_format does. Returns out. */
char *gw_time_now(char out[GW_TIME_LEN + 1]);

/**
 * Parse s as Go's time.Parse(time.RFC3339, s) does: "2006-01-02T15:04:05", an optional
 * fraction of a second (dropped), then "Z" or "+hh:mm"/"-hh:mm". Writes the seconds since the
 * epoch into *out; false when s is NULL, malformed, or a field is out of range (month, the
 * month's days, hour, minute, second, zone).
 */
bool gw_time_parse(const char *s, long long *out);

#endif
