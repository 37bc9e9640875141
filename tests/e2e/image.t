#!/usr/bin/env bash
# The image as a user builds and runs it: `make image` from a Debian 12 base made here (no
# container registry is reachable: scripts/image-base.sh), at most 100 MB, running as a user
# other than root; a container of it on the host's network against the test's etcd becomes
# ready, creates and serves a namespace that lands in that etcd, and exits 0 on SIGTERM; one
# without a serving pair serves the self-signed one it writes as that user. Each phase's time
# is printed.
#
# Podman runs the container with runc and rlimits no higher than the caller's: crun 1.8 refuses
# a host whose cgroup v2 hierarchy has controllers beside v1 ones, and podman asks for
# 1048576 open files and processes, which needs CAP_SYS_RESOURCE where root lacks it (a CI
# container). A stock Debian 12 host needs neither, and neither hurts there.
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
e2e_require image

for tool in podman runc mmdebstrap; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        check "$tool is installed (scripts/install-deps.sh)" false
        tap_end
        exit 1
    fi
done

# since START: seconds from START (an $EPOCHREALTIME) to now, to a tenth.
since() {
    local us=$((${EPOCHREALTIME/./} - ${1/./}))
    printf '%d.%d' $((us / 1000000)) $((us % 1000000 / 100000))
}

# phase NAME CMD...: run CMD with its output in $KGATE_TEST_TMP/NAME.log (its end shown when it
# fails) and print how long it took.
phase() {
    local name=$1 start=$EPOCHREALTIME rc; shift
    "$@" >"$KGATE_TEST_TMP/$name.log" 2>&1
    rc=$?
    diag "$name: $(since "$start") s"
    [[ $rc -eq 0 ]] || diag "$(tail -30 "$KGATE_TEST_TMP/$name.log")"
    return $rc
}

check "a Debian 12 base is made and imported (scripts/image-base.sh)" \
    phase base scripts/image-base.sh
BASE=$(tail -1 "$KGATE_TEST_TMP/base.log")
VERSION=$(sed -n 's/^appVersion: *"\{0,1\}\([^"]*\)"\{0,1\} *$/\1/p' charts/kgate/Chart.yaml)
IMAGE=kgate:$VERSION
# podman holds the base and runs the container, whatever else this machine has. The last
# build's tag goes first (its layers stay cached): a build that fails leaves nothing to test.
podman untag "$IMAGE" >/dev/null 2>&1
if ! check "make image builds $IMAGE from it" phase build env IMAGE_TOOL=podman \
    make image IMAGE_ARGS="--build-arg BUILD_BASE=$BASE --build-arg RUN_BASE=$BASE"; then
    tap_end
    exit 1
fi
check "$IMAGE is tagged with the chart's appVersion" podman image exists "$IMAGE"

size=$(podman image inspect --format '{{.Size}}' "$IMAGE")
diag "image size: $size bytes"
check "the image is at most 100 MB" test "${size:-999999999}" -le 100000000
user=$(podman image inspect --format '{{.Config.User}}' "$IMAGE")
check "the image names a user other than root ($user)" \
    test -n "$user" -a "${user%%:*}" != 0 -a "${user%%:*}" != root
cid=$(podman create "$IMAGE")
podman cp "$cid:/usr/local/bin/kgate" "$KGATE_TEST_TMP/kgate"
podman cp "$cid:/etc/ssl/certs/ca-certificates.crt" "$KGATE_TEST_TMP/ca-bundle.crt"
podman rm "$cid" >/dev/null
n=$(grep -c 'BEGIN CERTIFICATE' "$KGATE_TEST_TMP/ca-bundle.crt")
check "it has the CA bundle OpenSSL is pointed at ($n certificates)" test "${n:-0}" -gt 100
check "SSL_CERT_FILE names it" grep -qx SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt \
    <(podman image inspect --format '{{range .Config.Env}}{{println .}}{{end}}' "$IMAGE")
check "its kgate is stripped (no symbol table)" \
    bash -c "! readelf -S '$KGATE_TEST_TMP/kgate' | grep -q '\.symtab'"
diag "kgate in the image: $(stat -c %s "$KGATE_TEST_TMP/kgate") bytes, needs" \
    "$(readelf -d "$KGATE_TEST_TMP/kgate" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p' | xargs)"

# The serving pair and client CA, readable by the container's user (a bind mount keeps modes).
PKI=$KGATE_TEST_TMP/pki
e2e_pki "$PKI"
chmod 0755 "$PKI"
chmod 0644 "$PKI"/*
KCURL_AUTH=(--cert "$PKI/admin.crt" --key "$PKI/admin.key")
KGATE_PORT=$(free_port)
KGATE_URL=https://127.0.0.1:$KGATE_PORT
PREFIX=/image-$$
NAME=kgate-image-test-$$
trap 'podman rm -f -i -t 0 "$NAME" "$NAME-certdir" >/dev/null 2>&1; stop_all' EXIT

# ready_code URL [CURL ARGS...]: poll URL's /readyz for up to 30 s; true once it answers 200.
ready_code() {
    local url=$1; shift
    for _ in $(seq 300); do
        [[ $(curl -s --max-time 2 "$@" -o /dev/null -w '%{http_code}' "$url/readyz") == 200 ]] &&
            return 0
        sleep 0.1
    done
    return 1
}

# The chart's way: RBAC lets the anonymous probes read /readyz.
check "a container of the image starts" phase run podman run -d --name "$NAME" --runtime=runc \
    --network=host --ulimit nofile=4096:4096 --ulimit nproc=4096:4096 \
    -v "$PKI:/etc/kgate/pki:ro" "$IMAGE" \
    --etcd-servers="$KGATE_TEST_ETCD" --etcd-prefix="$PREFIX" --bind-address=127.0.0.1 \
    --secure-port="$KGATE_PORT" --authorization-mode=Node,RBAC \
    --tls-cert-file=/etc/kgate/pki/server.crt --tls-private-key-file=/etc/kgate/pki/server.key \
    --client-ca-file=/etc/kgate/pki/ca.crt
start=$EPOCHREALTIME
check "its /readyz answers 200, anonymously as the kubelet's probe" \
    ready_code "$KGATE_URL" --cacert "$PKI/ca.crt" || diag "$(podman logs "$NAME" 2>&1 | tail -20)"
diag "ready: $(since "$start") s after the start"

pid=$(podman inspect --format '{{.State.Pid}}' "$NAME")
uid=$(awk '/^Uid:/ {print $2}' "/proc/$pid/status" 2>/dev/null)
check "kgate runs as uid 65532, not root (uid $uid)" test "$uid" = 65532

code=$(kcurl -o "$KGATE_TEST_TMP/create.json" -w '%{http_code}' -X POST \
    -H 'Content-Type: application/json' --data '{"metadata":{"name":"from-image"}}' \
    "$KGATE_URL/api/v1/namespaces")
check "the admin creates a namespace (201, got $code)" test "$code" = 201
code=$(kcurl -o "$KGATE_TEST_TMP/get.json" -w '%{http_code}' \
    "$KGATE_URL/api/v1/namespaces/from-image")
check "a GET of the namespace answers 200 (got $code)" test "$code" = 200
check "it is the Namespace from-image, Active" python3 -c '
import json, sys
o = json.load(open(sys.argv[1]))
sys.exit(not (o["kind"] == "Namespace" and o["metadata"]["name"] == "from-image"
              and o["status"]["phase"] == "Active" and o["metadata"]["uid"]))' \
    "$KGATE_TEST_TMP/get.json"
check "the namespace is in the test's etcd under the prefix" bash -c "ETCDCTL_API=3 etcdctl \
    --endpoints='$KGATE_TEST_ETCD' get --keys-only '$PREFIX/namespaces/from-image' |
    grep -qx '$PREFIX/namespaces/from-image'"
check "the default namespace is served too" test "$(http_code /api/v1/namespaces/default)" = 200

podman stop -t 10 "$NAME" >/dev/null 2>&1
check "kgate exits 0 on the stop's SIGTERM" \
    test "$(podman inspect --format '{{.State.ExitCode}}' "$NAME")" = 0

# Without a serving pair kgate makes a self-signed one in --cert-dir, /var/run/kubernetes by
# default, which the image's user must be able to write (the chart mounts an emptyDir there).
port=$(free_port)
podman run -d --name "$NAME-certdir" --runtime=runc --network=host \
    --ulimit nofile=4096:4096 --ulimit nproc=4096:4096 "$IMAGE" \
    --etcd-servers="$KGATE_TEST_ETCD" --etcd-prefix="$PREFIX" --bind-address=127.0.0.1 \
    --secure-port="$port" --authorization-mode=Node,RBAC >/dev/null
ready_code "https://127.0.0.1:$port" -k || diag "$(podman logs "$NAME-certdir" 2>&1 | tail -20)"
podman cp "$NAME-certdir:/var/run/kubernetes/apiserver.crt" "$KGATE_TEST_TMP/self.crt" 2>/dev/null
check "without a serving pair it serves the one it wrote into /var/run/kubernetes" \
    test "$(curl -s --max-time 5 --cacert "$KGATE_TEST_TMP/self.crt" \
        "https://localhost:$port/readyz")" = ok
podman rm -f -t 0 "$NAME-certdir" >/dev/null 2>&1

ETCDCTL_API=3 etcdctl --endpoints="$KGATE_TEST_ETCD" del --prefix "$PREFIX/" >/dev/null
# Each source change leaves the previous build's layers behind, unnamed: drop those over a day
# old, keeping what today's builds may take from the cache.
podman image prune -f --filter label=org.opencontainers.image.title=kgate \
    --filter until=24h >/dev/null 2>&1
tap_end
