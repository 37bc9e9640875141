/* The monotonic clock in the units the gateway counts in. */
#include "gw_clock.h"

#include <time.h>

int64_t
gw_monotonic_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t
gw_monotonic_ms(void)
{
    return gw_monotonic_ns() / 1000000;
}
