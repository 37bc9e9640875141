#ifndef GATEWAY_BASE_GW_CLOCK_H
#define GATEWAY_BASE_GW_CLOCK_H

#include <stdint.h>

/* The monotonic clock, for timeouts, TTLs and durations (never for timestamps shown to
 * users). Thread: any. */

/** Milliseconds since an arbitrary start. */
int64_t gw_monotonic_ms(void);

/** Nanoseconds since the same start. */
int64_t gw_monotonic_ns(void);

#endif
