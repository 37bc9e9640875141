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

    char id[64], hash[80];
    gw_apiserver_id("kgate-host", id, sizeof(id));
    tap_is_str(id, "apiserver-46624a5f-035c-5f52-89d9-f5f0c1195334",
               "kube's apiserver ID: the version 5 UUID of the host name in the nil namespace");
    gw_apiserver_id_hash(hash, sizeof(hash));
    regcomp(&re, "^sha256:[0-9a-f]{64}$", REG_EXTENDED | REG_NOSUB);
    tap_ok(regexec(&re, hash, 0, NULL, 0) == 0, "its hash reads sha256:<64 hex digits> (%s)", hash);
    regfree(&re);
    return tap_done();
}
