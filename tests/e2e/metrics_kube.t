#!/usr/bin/env bash
# /metrics as kube-apiserver's: the families operators' dashboards read, with kube's names,
# labels, buckets and stability levels; authorized as a non-resource get of /metrics; hidden
# metrics shown again only with --show-hidden-metrics-for-version set to the previous release.
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
source tests/e2e/api_lib.sh
e2e_require metrics_kube

PKI=$KGATE_TEST_TMP/pki
api_pki "$PKI"
set_users
KCURL_AUTH=("${ADMIN[@]}")
trap stop_all EXIT

out=$("$KGATE" --etcd-servers="$KGATE_TEST_ETCD" --show-hidden-metrics-for-version=1.30 2>&1)
check "a release other than the previous one is refused at start-up, in kube's words" \
    grep -qF "must be omitted or have the value '1.31'. Only the previous minor version is allowed" \
    <<<"$out"

check "kgate starts" api_start metrics --workers=2 --authorization-mode=RBAC \
    --etcd-count-metric-poll-period=1s

fetch /metrics "${JANE[@]}"
check "a user without a rule for /metrics is refused (403)" test "$CODE" = 403
fetch /metrics
check "system:masters reads /metrics" test "$CODE" = 200

kcurl -o /dev/null "$KGATE_URL/api/v1/namespaces/default"
kcurl -o /dev/null "$KGATE_URL/api/v1/namespaces"
kcurl -o /dev/null -X POST -H 'Content-Type: application/json' \
    --data '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"m1","labels":{"w":"1"}}}' \
    "$KGATE_URL/api/v1/namespaces/default/configmaps"
kcurl -o /dev/null -X POST -H 'Content-Type: application/json' \
    --data '{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d1"},"spec":{"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"i"}]}}}}' \
    "$KGATE_URL/apis/apps/v1/namespaces/default/deployments"
# a watch held open for 3 s while /metrics is read
kcurl -sN -o /dev/null "$KGATE_URL/api/v1/namespaces/default/configmaps?watch=1&timeoutSeconds=3&labelSelector=w%3D1" &
WATCH_PID=$!
for _ in $(seq 50); do
    fetch /metrics
    grep -q '^apiserver_longrunning_requests{.*verb="WATCH"' "$OUT" && break
    sleep 0.1
done

wl='component="apiserver",group="",resource="configmaps",scope="namespace",subresource="",verb="WATCH",version="v1"'
check "apiserver_longrunning_requests counts the open watch" \
    grep -qxF "apiserver_longrunning_requests{$wl} 1" "$OUT"
check "... a STABLE gauge" grep -qxF \
    "# TYPE apiserver_longrunning_requests gauge" "$OUT"
check "apiserver_registered_watchers counts it by group, version and kind" \
    grep -qxF 'apiserver_registered_watchers{group="",kind="ConfigMap",version="v1"} 1' "$OUT"
wait "$WATCH_PID" 2>/dev/null
for _ in $(seq 50); do
    fetch /metrics
    grep -qxF "apiserver_longrunning_requests{$wl} 0" "$OUT" && break
    sleep 0.1
done
check "... and lets it go when it ends" grep -qxF "apiserver_longrunning_requests{$wl} 0" "$OUT"
check "... so does apiserver_registered_watchers" \
    grep -qxF 'apiserver_registered_watchers{group="",kind="ConfigMap",version="v1"} 0' "$OUT"
check "apiserver_watch_events_total counts the watch's ADDED event of m1" grep -qxF \
    'apiserver_watch_events_total{group="",kind="ConfigMap",version="v1"} 1' "$OUT" ||
    diag "$(grep '^apiserver_watch_events' "$OUT")"
check "apiserver_watch_events_sizes: its object's size in kube's first bucket (1024 bytes)" \
    grep -qxF 'apiserver_watch_events_sizes_bucket{group="",kind="ConfigMap",version="v1",le="1024"} 1' "$OUT"
check "... whose last is 131072" grep -qxF \
    'apiserver_watch_events_sizes_bucket{group="",kind="ConfigMap",version="v1",le="131072"} 1' "$OUT"
fetch /api "${JANE[@]}"
fetch /metrics
check "apiserver_authorization_decisions_total: RBAC's allow of jane's discovery" grep -qE \
    '^apiserver_authorization_decisions_total\{decision="allowed",name="rbac",type="RBAC"\} [1-9]' "$OUT"
check "... not its no opinion on /metrics (a denial nobody gave)" bash -c \
    "! grep -q 'apiserver_authorization_decisions_total{decision=\"denied\"' '$OUT'"

gl='component="apiserver",group="",resource="namespaces",scope="resource",subresource="",verb="GET",version="v1"'
check "apiserver_response_sizes: kube's buckets (1000 to 1e+09) for a GET" \
    grep -qF "apiserver_response_sizes_bucket{$gl,le=\"1e+09\"} " "$OUT"
check "... its first bucket" grep -qF "apiserver_response_sizes_bucket{$gl,le=\"1000\"} " "$OUT"
sum=$(grep -F "apiserver_response_sizes_sum{$gl}" "$OUT" | awk '{print $2}')
check "... the sum is the bytes answered (got ${sum:-none})" \
    python3 -c "import sys; sys.exit(not 100 < float('${sum:-0}') < 10000)"
check "... LISTs too" grep -qF 'apiserver_response_sizes_count{component="apiserver",group="",resource="namespaces",scope="cluster",subresource="",verb="LIST",version="v1"}' "$OUT"
check "... not writes" bash -c "! grep -q 'apiserver_response_sizes_count{.*verb=\"POST\"' '$OUT'"
check "help lines carry kube's stability level" grep -q \
    '^# HELP apiserver_response_sizes \[STABLE\] ' "$OUT"
for f in apiserver_request_total apiserver_request_duration_seconds \
    apiserver_current_inflight_requests; do
    check "... $f's too" grep -q "^# HELP $f \\[STABLE\\] " "$OUT"
done

check "etcd_request_duration_seconds: a create of a configmap, type is its resource" grep -qF \
    'etcd_request_duration_seconds_count{operation="create",type="configmaps"}' "$OUT"
check "... of a deployment: resource.group" grep -qF \
    'etcd_request_duration_seconds_count{operation="create",type="deployments.apps"}' "$OUT"
check "... reads by get, with kube's buckets" grep -qF \
    'etcd_request_duration_seconds_bucket{operation="get",type="namespaces",le="60"}' "$OUT"
check "etcd_requests_total counts them" grep -qE \
    '^etcd_requests_total\{operation="create",type="configmaps"\} [1-9]' "$OUT"

check "apiserver_admission_step_admission_duration_seconds: the creates' mutating phase" \
    grep -qE '^apiserver_admission_step_admission_duration_seconds_count\{operation="CREATE",rejected="false",type="admit"\} [1-9]' "$OUT"
check "... and validating phase, with kube's buckets" grep -qF \
    'apiserver_admission_step_admission_duration_seconds_bucket{operation="CREATE",rejected="false",type="validate",le="2.5"}' "$OUT"
check "apiserver_admission_controller_admission_duration_seconds: each plugin by kube's name" \
    grep -qE '^apiserver_admission_controller_admission_duration_seconds_count\{name="NamespaceLifecycle",operation="CREATE",rejected="false",type="(admit|validate)"\} [1-9]' "$OUT"
kcurl -o /dev/null -X POST -H 'Content-Type: application/json' \
    --data '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"m2"}}' \
    "$KGATE_URL/api/v1/namespaces/no-such-namespace/configmaps"
fetch /metrics
check "... a refusal is counted as rejected" grep -qE \
    '^apiserver_admission_controller_admission_duration_seconds_count\{name="NamespaceLifecycle",operation="CREATE",rejected="true",type="(admit|validate)"\} 1' "$OUT"
KCURL_AUTH=()
kcurl -o /dev/null -H "Authorization: Bearer no-such-token" "$KGATE_URL/api/v1/namespaces"
KCURL_AUTH=("${ADMIN[@]}")
fetch /metrics
check "authentication_attempts counts successes" grep -qE \
    '^authentication_attempts\{result="success"\} [1-9]' "$OUT"
check "... and failures (a bad token)" grep -qE '^authentication_attempts\{result="failure"\} [1-9]' "$OUT"
check "authentication_duration_seconds has kube's buckets" grep -qF \
    'authentication_duration_seconds_bucket{result="success",le="16.384"}' "$OUT"
check "authenticated_user_requests folds names kube does not keep (kubernetes-admin, jane)" \
    grep -qE '^authenticated_user_requests\{username="other"\} [1-9]' "$OUT"
check "... into its few labels only" bash -c \
    "! grep -qE '^authenticated_user_requests\{username=\"(kubernetes-admin|jane)\"' '$OUT'"

for _ in $(seq 50); do
    fetch /metrics
    grep -qxF 'apiserver_storage_objects{resource="deployments.apps"} 1' "$OUT" && break
    sleep 0.1
done
check "apiserver_storage_objects counts each resource, named as kube names it" \
    grep -qxF 'apiserver_storage_objects{resource="deployments.apps"} 1' "$OUT"
n=$(kcurl "$KGATE_URL/api/v1/configmaps" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["items"]))')
check "... the configmaps of every namespace ($n)" \
    grep -qxF "apiserver_storage_objects{resource=\"configmaps\"} $n" "$OUT"
check "... resources with no object are 0" \
    grep -qxF 'apiserver_storage_objects{resource="cronjobs.batch"} 0' "$OUT"
check "... a STABLE gauge" grep -q '^# HELP apiserver_storage_objects \[STABLE\]' "$OUT"

for f in process_cpu_seconds_total process_resident_memory_bytes process_open_fds \
    process_max_fds process_start_time_seconds process_virtual_memory_bytes; do
    check "$f is there" grep -qE "^$f [0-9.e+]+$" "$OUT"
done
rss=$(awk '/^process_resident_memory_bytes /{print $2}' "$OUT")
check "process_resident_memory_bytes is kgate's own (got $rss)" python3 -c \
    "import sys; sys.exit(not 1e6 < float('$rss') < 4e9)"
start=$(awk '/^process_start_time_seconds /{print $2}' "$OUT")
check "process_start_time_seconds is recent (got $start)" python3 -c \
    "import sys, time; sys.exit(not time.time() - 600 < float('$start') <= time.time() + 1)"
check "values in Go's format: large numbers in exponent form" grep -qE \
    '^process_resident_memory_bytes [0-9](\.[0-9]+)?e\+[0-9]{2}$' "$OUT"

check "apiserver_storage_size_bytes: etcd's database size" grep -qE \
    '^apiserver_storage_size_bytes\{storage_cluster_id="etcd-0"\} [0-9]' "$OUT"
check "apiserver_storage_db_total_size_in_bytes, deprecated in 1.28, is hidden" bash -c \
    "! grep -q '^apiserver_storage_db_total_size_in_bytes' '$OUT'"

kill -TERM "$KGATE_PID"
wait_exit "$KGATE_PID"
check "SIGTERM: exit 0" test "$EXIT_CODE" = 0
check "no sanitizer report" no_sanitizer_report "$KGATE_LOG"

check "kgate starts with --show-hidden-metrics-for-version=1.31" api_start metrics-hidden \
    --show-hidden-metrics-for-version=1.31
for _ in $(seq 30); do
    fetch /metrics
    grep -q '^apiserver_storage_db_total_size_in_bytes{' "$OUT" && break
    sleep 0.1
done
check "... which shows the hidden family again" grep -qE \
    '^apiserver_storage_db_total_size_in_bytes\{endpoint="[^"]+"\} [0-9]' "$OUT"
check "... marked as kube marks it" grep -qF \
    '# HELP apiserver_storage_db_total_size_in_bytes [ALPHA] (Deprecated since 1.28.0) ' "$OUT"
kill -TERM "$KGATE_PID"
wait_exit "$KGATE_PID"
check "no sanitizer report" no_sanitizer_report "$KGATE_LOG"
tap_end
