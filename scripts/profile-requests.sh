#!/usr/bin/env bash
# profile-requests.sh OUT [N]: instruction counts per request of the release build under
# callgrind (counts do not depend on a busy machine): N creates (POST, JSON, client certificate)
# of a 2 KiB ConfigMap, then N GETs of one, over one keep-alive connection, one worker. Writes
# OUT.cg.<pid>.1 (creates) and OUT.cg.<pid>.2 (GETs); scripts/callgrind-summary.py OUT.cg.*.1 N
# prints where they go. The client is not curl as curl presents itself: kube (and kgate)
# pretty-print answers for a curl User-Agent.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=$1
N=${2:-200}
export KGATE_TEST_TMP
KGATE_TEST_TMP=$(mktemp -d /tmp/kgate-profile.XXXXXX)
source tests/lib/etcd.sh
source scripts/pki.sh
PKI=$KGATE_TEST_TMP/pki
pki_ca "$PKI" ca
pki_cert "$PKI" ca server server "/CN=kgate" "IP:127.0.0.1"
pki_cert "$PKI" ca admin client "/O=system:masters/CN=kubernetes-admin"
etcd_start profile
etcd_wait "$ETCD_URL"
PORT=$(free_port)
valgrind --tool=callgrind --compress-strings=no --compress-pos=no \
    --callgrind-out-file="$OUT.cg.%p" build/kgate --bind-address=127.0.0.1 \
    --secure-port="$PORT" --etcd-servers="$ETCD_URL" --tls-cert-file="$PKI/server.crt" \
    --tls-private-key-file="$PKI/server.key" --client-ca-file="$PKI/ca.crt" --workers=1 \
    >"$KGATE_TEST_TMP/kgate.log" 2>&1 &
KPID=$!
trap 'kill $KPID 2>/dev/null; wait $KPID 2>/dev/null; stop_all; rm -rf "$KGATE_TEST_TMP"' EXIT
C=(curl -s -A profile/1.0 --cacert "$PKI/ca.crt" --cert "$PKI/admin.crt" --key "$PKI/admin.key")
for _ in $(seq 600); do
    "${C[@]}" -f "https://127.0.0.1:$PORT/readyz" >/dev/null && break
    sleep 0.5
done
U=https://127.0.0.1:$PORT/api/v1/namespaces/default/configmaps
PAD=$(head -c 1804 /dev/zero | tr '\0' 'q')
body() { echo "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{$1,\"labels\":{\"app\":\"bench\"}},\"data\":{\"config\":\"$PAD\"}}"; }
body '"generateName":"cm-"' >"$KGATE_TEST_TMP/create.json"
body '"name":"cm-get"' >"$KGATE_TEST_TMP/get.json"
JSON=(-H 'Content-Type: application/json')
"${C[@]}" -o /dev/null "${JSON[@]}" --data-binary @"$KGATE_TEST_TMP/get.json" "$U"
# urls COUNT URL: a curl config of COUNT requests to URL (fragments keep them apart)
urls() { for i in $(seq "$1"); do echo "url = \"$2#$i\""; echo 'output = "/dev/null"'; done; }
urls 20 "$U" >"$KGATE_TEST_TMP/warm-c"
urls 20 "$U/cm-get" >"$KGATE_TEST_TMP/warm-g"
urls "$N" "$U" >"$KGATE_TEST_TMP/creates"
urls "$N" "$U/cm-get" >"$KGATE_TEST_TMP/gets"
"${C[@]}" "${JSON[@]}" --data-binary @"$KGATE_TEST_TMP/create.json" -K "$KGATE_TEST_TMP/warm-c"
"${C[@]}" -K "$KGATE_TEST_TMP/warm-g"
callgrind_control -z $KPID >/dev/null
"${C[@]}" "${JSON[@]}" --data-binary @"$KGATE_TEST_TMP/create.json" -K "$KGATE_TEST_TMP/creates"
callgrind_control -d creates $KPID >/dev/null
callgrind_control -z $KPID >/dev/null
"${C[@]}" -K "$KGATE_TEST_TMP/gets"
callgrind_control -d gets $KPID >/dev/null
ls "$OUT".cg.*
