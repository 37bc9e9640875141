#!/usr/bin/env bash
# prove's --exec for tests/run.sh: run one test (a .t script or a test binary) against an etcd
# member no other running test uses. run.sh starts as many members as prove runs tests at once
# ($KGATE_TEST_ETCDS, space-separated), so a free one is found at once; a lock file per member
# says it is taken, and the test holds it until it ends (its processes inherit the descriptor).
# A test whose first lines say "# test: alone" measures time: it waits for every member, so
# nothing runs beside it.
set -uo pipefail
read -r -a members <<<"${KGATE_TEST_ETCDS:?tests/run.sh sets KGATE_TEST_ETCDS}"
test=$1

take() { # take I [flock args]: lock member I on a new descriptor
    local fd
    exec {fd}>"$KGATE_TEST_TMP/etcd-slot-$1.lock"
    flock "${@:2}" "$fd" && return 0
    exec {fd}>&-
    return 1
}

if [[ -f $test ]] && head -5 "$test" | grep -q '^# test: alone'; then
    for i in "${!members[@]}"; do take "$i"; done # in order: two such tests cannot deadlock
    export KGATE_TEST_ETCD=${members[0]}
    exec "$@"
fi
# A test's stray child may still hold a member for a moment after prove saw the test end.
for _ in $(seq 600); do
    for i in "${!members[@]}"; do
        if take "$i" -n; then
            export KGATE_TEST_ETCD=${members[i]}
            exec "$@"
        fi
    done
    sleep 0.1
done
echo "Bail out! no etcd member became free in 60 s"
exit 1
