/*
 * bench_gc: how long the garbage collector takes to collect the dependents of one owner.
 *
 * 1,000 ConfigMaps owned by one ConfigMap (blockOwnerDeletion) are written straight into etcd
 * under the kgate's prefix; after a pause for the collector's watch to see them the owner
 * goes as a DELETE would take it:
 *  - background: the owner's key is removed (an object without finalizers deleted with
 *    propagationPolicy=Background); timed until no dependent is left;
 *  - foreground: the owner is marked (deletionTimestamp and the foregroundDeletion finalizer,
 *    as a DELETE with propagationPolicy=Foreground writes it); timed until neither the
 *    dependents nor the owner are left.
 * Each over ROUNDS rounds after one unmeasured round (the collector's graph being built); the
 * median and the worst round. The keys are polled (count only) every POLL_US.
 *
 * Usage: bench_gc ETCD_URL PREFIX
 *   The etcd (--etcd-servers syntax) and --etcd-prefix of running kgate instances, one of which
 *   leads the garbage collector. The objects live in namespace bench-gc (its keys are deleted
 *   at the end). Any failure, or a round over LIMIT_S, ends the run with exit status 1.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "gw_uuid.h"

#define DEPENDENTS 1000
#define ROUNDS 5
#define LIMIT_S 120
#define POLL_US 5000
#define SETTLE_US 500000 /* for the collector's watch to see what was written */

typedef enum { BACKGROUND, FOREGROUND } mode_t_;

static char *
cm(const char *name, const char *uid, const char *owner_uid, bool foreground)
{
    char *refs = owner_uid == NULL
                     ? gw_strdup("")
                     : gw_sprintf(",\"ownerReferences\":[{\"apiVersion\":\"v1\",\"kind\":"
                                  "\"ConfigMap\",\"name\":\"owner\",\"uid\":\"%s\","
                                  "\"controller\":true,\"blockOwnerDeletion\":true}]",
                                  owner_uid);
    char *doc = gw_sprintf(
        "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"%s\","
        "\"namespace\":\"bench-gc\",\"uid\":\"%s\",\"creationTimestamp\":"
        "\"2024-01-01T00:00:00Z\"%s%s},\"data\":{\"k\":\"v\"}}",
        name, uid, refs,
        foreground ? ",\"deletionTimestamp\":\"2024-01-01T00:00:01Z\","
                     "\"deletionGracePeriodSeconds\":0,\"finalizers\":[\"foregroundDeletion\"]"
                   : "");
    free(refs);
    return doc;
}

/* One round: the owner and its dependents written, the owner deleted; ms until collected. */
static double
round_ms(econn_t *e, const char *prefix, mode_t_ mode)
{
    char owner_uid[GW_UUID_LEN + 1], uid[GW_UUID_LEN + 1];
    char *ns = gw_sprintf("%s/configmaps/bench-gc/", prefix);
    char *owner_key = gw_sprintf("%sowner", ns), *deps = gw_sprintf("%sdep-", ns);

    gw_uuid_v4(owner_uid);
    char *doc = cm("owner", owner_uid, NULL, false);
    econn_put(e, owner_key, doc, strlen(doc));
    free(doc);
    for (int i = 0; i < DEPENDENTS; i++) {
        char name[32], *key;
        snprintf(name, sizeof name, "dep-%04d", i);
        gw_uuid_v4(uid);
        doc = cm(name, uid, owner_uid, false);
        key = gw_sprintf("%s%s", ns, name);
        econn_put(e, key, doc, strlen(doc));
        free(doc);
        free(key);
    }
    usleep(SETTLE_US);
    int64_t start = now_ns();
    if (mode == BACKGROUND) {
        econn_delete_prefix(e, owner_key);
    } else {
        doc = cm("owner", owner_uid, NULL, true);
        econn_put(e, owner_key, doc, strlen(doc));
        free(doc);
    }
    while (econn_count_prefix(e, deps) > 0 ||
           (mode == FOREGROUND && econn_count_prefix(e, owner_key) > 0)) {
        if (now_ns() - start > (int64_t)LIMIT_S * 1000000000)
            die("%s: not collected within %d s", mode == BACKGROUND ? "background" : "foreground",
                LIMIT_S);
        usleep(POLL_US);
    }
    double ms = (double)(now_ns() - start) / 1e6;
    econn_delete_prefix(e, ns);
    free(ns);
    free(owner_key);
    free(deps);
    return ms;
}

static int
cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void
report(econn_t *e, const char *prefix, mode_t_ mode, const char *name)
{
    double ms[ROUNDS];

    round_ms(e, prefix, mode); /* unmeasured */
    for (int i = 0; i < ROUNDS; i++)
        ms[i] = round_ms(e, prefix, mode);
    qsort(ms, ROUNDS, sizeof(ms[0]), cmp_double);
    printf("%-12s %8d %10.0f %10.0f\n", name, DEPENDENTS, ms[ROUNDS / 2], ms[ROUNDS - 1]);
}

int
main(int argc, char **argv)
{
    econn_t e;

    if (argc != 3)
        die("usage: bench_gc ETCD_URL PREFIX");
    econn_open(&e, argv[1]);
    printf("garbage collector: time to collect the dependents of one deleted owner, %d rounds\n",
           ROUNDS);
    printf("%-12s %8s %10s %10s\n", "propagation", "objects", "p50 ms", "max ms");
    report(&e, argv[2], BACKGROUND, "background");
    report(&e, argv[2], FOREGROUND, "foreground");
    econn_close(&e);
    return 0;
}
