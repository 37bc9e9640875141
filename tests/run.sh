#!/usr/bin/env bash
# Run the tests: start etcd members on free loopback ports, run the C test binaries and the
# .t scripts under prove (those named as arguments, else all), stop what was started.
# KGATE_BUILD names the build to test; KGATE_TEST_JOBS how many tests run at once (2), each
# with an etcd member of its own for its time (tests/lib/slot.sh): most tests wait on
# processes rather than compute, and tests that share a member one after the other already
# keep to their own etcd prefixes.
set -euo pipefail
cd "$(dirname "$0")/.."
export KGATE_BUILD=${KGATE_BUILD:-build/san}
export KGATE_TEST_TMP
KGATE_TEST_TMP=$(mktemp -d /tmp/kgate-test.XXXXXX)
source tests/lib/etcd.sh
trap 'stop_all; rm -rf "$KGATE_TEST_TMP"' EXIT

# Sanitizers: any report fails the test that triggered it.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:strict_string_checks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/tests/lsan.supp:print_suppressions=0}

jobs=${KGATE_TEST_JOBS:-2}
KGATE_TEST_ETCDS=
for ((i = 0; i < jobs; i++)); do
    etcd_start "shared-$i"
    etcd_wait "$ETCD_URL"
    KGATE_TEST_ETCDS+="${KGATE_TEST_ETCDS:+ }$ETCD_URL"
done
export KGATE_TEST_ETCDS

# Arguments name the tests to run (binaries or .t scripts); without any, every test runs.
# A binary with a .t script of the same name beside its source is driven by that script; a
# binary whose source is gone (a test that moved) is left out.
tests=("$@")
[[ $# -gt 0 ]] || while read -r bin; do
    src=${bin#"$KGATE_BUILD"/}
    [[ -f $src.c && ! -f $src.t ]] && tests+=("$bin")
done < <(find "$KGATE_BUILD/tests" -type f -name 'test_*' -perm -u+x | sort)
[[ $# -gt 0 ]] || while read -r t; do tests+=("$t"); done < <(find tests -name '*.t' | sort)

prove -j"$jobs" ${PROVE_FLAGS:-} --exec tests/lib/slot.sh --timer "${tests[@]}"
