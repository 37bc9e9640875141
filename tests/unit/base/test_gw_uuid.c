/* Unit tests for gateway/base/gw_uuid: version 4 UUIDs. */
#include <regex.h>
#include <stdio.h>
#include <string.h>

#include "gw_uuid.h"
#include "tap.h"

int
main(void)
{
    enum { N = 256 };
    static char ids[N][GW_UUID_LEN + 1];
    regex_t re;
    int shaped = 1, distinct = 1;

    /* version 4 in the 13th hex digit, variant 10xx in the 17th */
    regcomp(&re, "^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$",
            REG_EXTENDED | REG_NOSUB);
    for (int i = 0; i < N; i++) {
        gw_uuid_v4(ids[i]);
        shaped &= strlen(ids[i]) == GW_UUID_LEN && regexec(&re, ids[i], 0, NULL, 0) == 0;
        for (int j = 0; j < i; j++)
            distinct &= strcmp(ids[i], ids[j]) != 0;
    }
    regfree(&re);
    tap_ok(shaped, "%d UUIDs have the version 4 and RFC 4122 variant bits (e.g. %s)", N, ids[0]);
    tap_ok(distinct, "%d UUIDs are distinct", N);
    return tap_done();
}
