#!/usr/bin/env bash
# KMS v2 encryption at rest with a plugin of our own (tests/e2e/kms_plugin.py: real AES-GCM on a
# unix socket): Secrets stored as kube stores them ("k8s:enc:kms:v2:<name>:" and its protobuf
# EncryptedObject, which an independent decoder opens: the plugin decrypts the seed, HKDF-SHA256
# derives the key, AES-GCM opens the value with the etcd key as additional data); one Encrypt
# for many writes; Decrypt only for a DEK source not cached; rotation of the plugin's key ID and
# a replace that re-encrypts; the kms-providers health check and kube's metrics; a plugin killed
# (the check fails, cached reads and other resources go on), a plugin that hangs (a read that
# needs it fails after the timeout, with kube's 500), a plugin down at start (writes refused,
# nothing plain in etcd), and recovery.
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
source tests/e2e/api_lib.sh
source tests/e2e/registry_lib.sh
e2e_require encryption_kms

PKI=$KGATE_TEST_TMP/pki
api_pki "$PKI"
set_users
trap stop_all EXIT
CONF=$KGATE_TEST_TMP/enc.yaml
STATE=$KGATE_TEST_TMP/kms
SOCK=$KGATE_TEST_TMP/kms.sock
NAME=kms-$$
PREFIX=/registry-$NAME-$$
# Debian's python3-grpcio is for Debian's Python (a python3 earlier in PATH may lack it).
PY=/usr/bin/python3
mkdir -p "$STATE"
head -c 32 /dev/urandom >"$STATE/key"
echo key-1 >"$STATE/key_id"

# plugin_start: the plugin on $SOCK (PLUGIN_PID), answering once its socket is there.
plugin_start() {
    rm -f "$SOCK"
    "$PY" tests/e2e/kms_plugin.py "$SOCK" "$STATE" 2>>"$KGATE_TEST_TMP/plugin.log" &
    PLUGIN_PID=$!
    echo "$PLUGIN_PID" >>"$KGATE_TEST_TMP/pids"
    for _ in $(seq 100); do
        [[ -S $SOCK ]] && return 0
        sleep 0.1
    done
    return 1
}
plugin_stop() { kill -9 "$PLUGIN_PID" 2>/dev/null; wait "$PLUGIN_PID" 2>/dev/null; true; }
# calls WHAT: how many calls of WHAT ("Encrypt", "Decrypt key-1", ...) the plugin answered.
calls() { grep -c "^$1" "$STATE/calls" 2>/dev/null || true; }
start() {
    api_start "$NAME" --encryption-provider-config="$CONF" "$@"
}
raw() { stored "$1" | tr -c '[:print:]' '.'; }
lacks() { ! grep -qF -- "$1" <<<"$(raw "$2")"; }
secret() {
    echo "{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"metadata\":{\"name\":\"$1\"},\
\"stringData\":{\"password\":\"$2\"}}"
}
# opens KEY WANT: decode etcd's value for KEY independently of kgate (the EncryptedObject field
# by field, the seed through the plugin's Decrypt, HKDF-Expand, AES-GCM with the etcd key as
# additional data) and find WANT in the plaintext; prints the keyID.
opens() {
    stored "$1" | head -c -1 >"$KGATE_TEST_TMP/value"
    "$PY" - "$PREFIX/$1" "$KGATE_TEST_TMP/value" "$SOCK" "$2" "$PY" <<'PY'
import subprocess, sys
sys.path.insert(0, "tests/lib")
import pbwire
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDFExpand
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
etcd_key, path, sock, want, py = sys.argv[1:6]
data = open(path, "rb").read()
head = b"k8s:enc:kms:v2:p1:"
assert data.startswith(head), data[:40]
m = pbwire.msg(data[len(head):])
assert set(m) <= {1, 2, 3, 4, 5}, sorted(m)
assert pbwire.one(m, 5) == 1, "encryptedDEKSourceType is HKDF_SHA256_XNONCE_AES_GCM_SEED"
key_id = pbwire.text(m, 2)
ann = [pbwire.msg(e) for e in m.get(4, [])]
assert [pbwire.text(a, 1) for a in ann] == ["kek.kms.kgate.test"], ann
open(path + ".dek", "wb").write(pbwire.one(m, 3))
args = ["%s=%s" % (pbwire.text(a, 1), pbwire.one(a, 2).hex()) for a in ann]
seed = bytes.fromhex(subprocess.check_output(
    [py, "tests/e2e/kms_plugin.py", "--decrypt", sock, key_id, path + ".dek"] + args).decode())
assert len(seed) == 32
sealed = pbwire.one(m, 1)
info, nonce, body = sealed[:32], sealed[32:44], sealed[44:]
key = HKDFExpand(hashes.SHA256(), 32, info).derive(seed)
plain = AESGCM(key).decrypt(nonce, body, etcd_key.encode())
assert want.encode() in plain, plain[:80]
print(key_id)
PY
}
# key_id_of KEY: the keyID etcd's value for KEY carries.
key_id_of() {
    stored "$1" | head -c -1 >"$KGATE_TEST_TMP/kid"
    python3 -c '
import sys; sys.path.insert(0, "tests/lib"); import pbwire
d = open(sys.argv[1], "rb").read(); d = d[d.index(b"p1:") + 3:]
print(pbwire.text(pbwire.msg(d), 2))' "$KGATE_TEST_TMP/kid"
}
# dek_of KEY: the encrypted DEK source etcd's value for KEY carries, in hex.
dek_of() {
    stored "$1" | head -c -1 >"$KGATE_TEST_TMP/dek"
    python3 -c '
import sys; sys.path.insert(0, "tests/lib"); import pbwire
d = open(sys.argv[1], "rb").read(); d = d[d.index(b"p1:") + 3:]
print(pbwire.one(pbwire.msg(d), 3).hex())' "$KGATE_TEST_TMP/dek"
}
# start_on_prefix NAME: another kgate (log kgate-NAME.log) on the same etcd prefix, waited for
# until /livez passes but for kms-providers (a plugin down fails it, and Secrets' readers).
start_on_prefix() {
    kgate_start "$1" --etcd-servers="$KGATE_TEST_ETCD" --etcd-prefix="$PREFIX" \
        --tls-cert-file="$PKI/server.crt" --tls-private-key-file="$PKI/server.key" \
        --client-ca-file="$PKI/ca.crt" --token-auth-file="$PKI/tokens.csv" \
        --encryption-provider-config="$CONF"
    for _ in $(seq 300); do
        [[ $(http_code "/livez?exclude=kms-providers" "${ADMIN[@]}") == 200 ]] && return 0
        alive "$KGATE_PID" || break
        sleep 0.1
    done
    return 1
}
# health PATH: GET PATH with the admin's credentials into $OUT, CODE set.
health() { req GET "$1"; }
# metric NAME FRAGMENT...: /metrics has a line of series NAME holding every FRAGMENT (labels
# print sorted by name, as Prometheus's client prints them).
metric() {
    local name=$1 line; shift
    req GET /metrics
    while read -r line; do
        local all=1
        for f in "$@"; do [[ $line == *"$f"* ]] || all=0; done
        [[ $all == 1 ]] && return 0
    done < <(grep "^$name[{ ]" "$OUT")
    diag "$(grep "^$name" "$OUT")"
    return 1
}

cat >"$CONF" <<EOF
apiVersion: apiserver.config.k8s.io/v1
kind: EncryptionConfiguration
resources:
  - resources: [secrets]
    providers:
      - kms:
          apiVersion: v2
          name: p1
          endpoint: unix://$SOCK
          timeout: 2s
      - identity: {}
EOF
check "the plugin starts" plugin_start
check "kgate starts with a KMS v2 provider" start
health /readyz/kms-providers
check "/readyz/kms-providers: ok" test "$CODE $(cat "$OUT")" = "200 ok"
health "/healthz?verbose"
check "/healthz lists kms-providers after etcd" grep -qz '\[+\]etcd ok.\[+\]kms-providers ok' "$OUT"
health "/livez/kms-providers"
check "/livez has it too" code_is 200

req POST "$CORE/secrets" "$(secret s1 hunter2-plaintext)"
check "a Secret is created" code_is 201
check "etcd holds kube's prefix with the provider's name" \
    grep -q '^k8s:enc:kms:v2:p1:' <<<"$(raw secrets/default/s1)"
check "... and no plaintext" lacks hunter2 secrets/default/s1
req GET "$CORE/secrets/s1"
check "it reads back" jpy "d['data']['password'] == '$(printf hunter2-plaintext | base64)'"
req POST "$CORE/secrets" "$(secret s2 second-secret)"
check "a second Secret" code_is 201
check "one Encrypt (the seed) for both writes" test "$(calls Encrypt)" = 1
check "both values carry the same encrypted seed" test "$(dek_of secrets/default/s1)" = \
    "$(dek_of secrets/default/s2)"
check "no Decrypt: the writer's seed is cached" test "$(calls Decrypt)" = 0
PLAIN64=$(printf hunter2-plaintext | base64)
check "an independent decoder opens etcd's bytes (kube's EncryptedObject, HKDF, AES-GCM)" \
    opens secrets/default/s1 "$PLAIN64"
req POST "$CORE/configmaps" "$(cm c1)"
check "a ConfigMap (no provider for it) is stored plain" grep -q '^{' <<<"$(raw configmaps/default/c1)"
KEY1_HASH=sha256:$(printf key-1 | sha256sum | cut -d' ' -f1)
check "apiserver_envelope_encryption_key_id_hash_total counts the writes" \
    metric apiserver_envelope_encryption_key_id_hash_total 'transformation_type="to_storage"' \
    'provider_name="p1"' "key_id_hash=\"$KEY1_HASH\"" 'apiserver_id_hash="sha256:'
check "... _key_id_hash_status_last_timestamp_seconds the Status key ID" \
    metric apiserver_envelope_encryption_key_id_hash_status_last_timestamp_seconds \
    'provider_name="p1"' "key_id_hash=\"$KEY1_HASH\""
check "... kms_operations_latency_seconds each call" \
    metric apiserver_envelope_encryption_kms_operations_latency_seconds_count \
    'method_name="/v2.KeyManagementService/Encrypt"' 'grpc_status_code="OK"' \
    'provider_name="p1"} 1'
check "... dek_source_cache_size the cache" \
    metric apiserver_envelope_encryption_dek_source_cache_size '{provider_name="p1"} 1'
check "apiserver_storage_transformation_operations_total counts the provider's writes" \
    metric apiserver_storage_transformation_operations_total 'status="OK"' \
    'transformation_type="to_storage"' 'transformer_prefix="k8s:enc:kms:v2:p1:"'
check "... and _duration_seconds times them" \
    metric apiserver_storage_transformation_duration_seconds_count \
    'transformation_type="to_storage"' 'transformer_prefix="k8s:enc:kms:v2:p1:"'
check "kgate exits cleanly" clean_exit

# A new instance has a seed of its own: the old values' seed takes one Decrypt, then is cached.
before=$(calls "Decrypt key-1")
check "kgate restarts" start
req GET "$CORE/secrets/s1"
check "a value of the earlier seed reads" jpy "d['data']['password'] == '$(printf hunter2-plaintext | base64)'"
req GET "$CORE/secrets/s2"
check "... and another" code_is 200
check "one Decrypt for both (the DEK source cache)" test "$(calls "Decrypt key-1")" = $((before + 1))

# Rotation: the plugin's key ID changes; a probe (the health check wakes one once the last is
# 20 s old) encrypts a new seed; a replace of an old value re-encrypts it with the new key ID.
echo key-2 >"$STATE/key_id"
rotated() { health /healthz/kms-providers; [[ $(calls "Encrypt key-2") -ge 1 ]]; }
for _ in $(seq 60); do rotated && break; sleep 1; done
check "a Status with a new key ID brings a new seed (Encrypt with key-2)" rotated
req POST "$CORE/secrets" "$(secret s3 third)"
check "a new write carries key-2" test "$(key_id_of secrets/default/s3)" = key-2
req GET "$CORE/secrets/s1"
req PUT "$CORE/secrets/s1" "$(cat "$OUT")"
check "a replace of an unchanged old Secret" code_is 200
check "... re-encrypts it with key-2" test "$(key_id_of secrets/default/s1)" = key-2
check "... which the independent decoder opens" opens secrets/default/s1 "$PLAIN64"

# The plugin dies: the health check fails with kube's words; reads of cached seeds and other
# resources go on; writes go on with the current seed (kube lets it write for 3 minutes after
# the last healthy Status), encrypted.
plugin_stop
failing() { health /healthz/kms-providers; [[ $CODE == 500 ]]; }
for _ in $(seq 40); do failing && break; sleep 1; done
check "the plugin killed: /healthz/kms-providers fails" failing
check "... with kube's reason" grep -qF "internal server error: health check for kms-provider-0 failed: failed to perform status section of the healthz check for KMS Provider p1, error: rpc error: code = DeadlineExceeded desc = context deadline exceeded" "$OUT"
health /readyz
check "/readyz fails, listing it" grep -qF '[-]kms-providers failed: reason withheld' "$OUT"
req GET "$CORE/secrets/s1"
check "a Secret whose seed is cached still reads" code_is 200
req POST "$CORE/configmaps" "$(cm c2)"
check "ConfigMaps are still written" code_is 201
req GET "$CORE/configmaps/c2"
check "... and read" code_is 200
req POST "$CORE/secrets" "$(secret s4 while-down)"
check "a Secret written with the current seed (kube's 3 minutes)" code_is 201
check "... encrypted" lacks while-down secrets/default/s4

# A plugin that hangs: a read that needs a Decrypt fails after the timeout with kube's 500.
check "the plugin is back" plugin_start
for _ in $(seq 40); do failing || break; sleep 1; done
check "... the check passes again" test "$CODE" = 200
check "kgate exits cleanly" clean_exit
check "kgate restarts (its own seed)" start
A_URL=$KGATE_URL A_PID=$KGATE_PID A_LOG=$KGATE_LOG
check "a second instance on the same etcd (a seed of its own)" start_on_prefix "$NAME-b"
B_URL=$KGATE_URL B_PID=$KGATE_PID
kill -STOP "$PLUGIN_PID"
req POST "$CORE/secrets" "$(secret s6 from-b)"
check "the plugin hangs: the second instance still writes with its seed" code_is 201
KGATE_URL=$A_URL KGATE_PID=$A_PID KGATE_LOG=$A_LOG
t0=$(date +%s)
req GET "$CORE/secrets/s6"
t1=$(date +%s)
check "the first reads it: a Decrypt the hung plugin never answers, kube's 500" is_status 500 \
    InternalError "Internal error occurred: failed to decrypt DEK, error: rpc error: code = DeadlineExceeded desc = context deadline exceeded"
check "... after the 2 s timeout, not forever" test $((t1 - t0)) -le 6
check "a failed read counts with the gRPC code" \
    metric apiserver_storage_transformation_operations_total 'status="DeadlineExceeded"' \
    'transformation_type="from_storage"' 'transformer_prefix="k8s:enc:kms:v2:p1:"'
req GET "$CORE/configmaps/c1"
check "ConfigMaps read meanwhile" code_is 200
kill -CONT "$PLUGIN_PID"
for _ in $(seq 20); do req GET "$CORE/secrets/s6"; [[ $CODE == 200 ]] && break; sleep 0.5; done
check "the plugin answers again: the read succeeds" jpy "d['data']['password'] == '$(printf from-b | base64)'"
check "kgate exits cleanly" clean_exit
KGATE_PID=$B_PID KGATE_LOG=$KGATE_TEST_TMP/kgate-$NAME-b.log
check "the second instance exits cleanly" clean_exit

# A plugin down at start: kgate serves, its kms-providers check fails, Secrets are neither
# written nor read (never plain), ConfigMaps are; the plugin up: all works.
plugin_stop
check "kgate with its plugin down serves (livez without kms-providers)" start_on_prefix "$NAME"
req POST "$CORE/secrets" "$(secret s5 never-plain)"
check "a Secret write: kube's 500" is_status 500 InternalError \
    "Internal error occurred: got unexpected nil transformer"
check "... nothing in etcd" test -z "$(stored secrets/default/s5)"
req POST "$CORE/configmaps" "$(cm c3)"
check "a ConfigMap write succeeds" code_is 201
check "the plugin starts" plugin_start
ready() { req POST "$CORE/secrets" "$(secret s5 never-plain)"; [[ $CODE == 201 ]]; }
for _ in $(seq 30); do ready && break; sleep 1; done
check "within kube's 10 s unhealthy poll, Secrets are written again" code_is 201
check "... encrypted" lacks never-plain secrets/default/s5
check "kgate exits cleanly" clean_exit

# The automatic reload: a configuration without KMS, then one with it; the new configuration's
# provider is primed and writes, and kms-providers is listed from the start (kube lists it
# whenever the reload is on).
cat >"$CONF" <<EOF
apiVersion: apiserver.config.k8s.io/v1
kind: EncryptionConfiguration
resources:
  - resources: [secrets]
    providers: [{identity: {}}, {kms: {apiVersion: v2, name: p1, endpoint: "unix://$SOCK"}}]
EOF
check "kgate starts with the reload on, identity first" start \
    --encryption-provider-config-automatic-reload
health /healthz/kms-providers
check "kms-providers is listed with the reload on" code_is 200
req POST "$CORE/secrets" "$(secret s7 plain-first)"
check "identity writes first" grep -q '^{' <<<"$(raw secrets/default/s7)"
req GET "$CORE/secrets/s1"
check "... and the KMS provider still reads" code_is 200
sed -i 's/providers: \[{identity: {}}, {kms: \(.*\)}\]$/providers: [{kms: \1}, {identity: {}}]/' "$CONF"
reloaded() { req POST "$CORE/secrets" "$(secret "s8-$1" after-reload)"; grep -q '^k8s:enc:kms:v2:p1:' <<<"$(raw "secrets/default/s8-$1")"; }
for i in $(seq 30); do reloaded "$i" && break; sleep 0.5; done
check "the reloaded configuration writes with KMS" reloaded x
check "kgate exits cleanly" clean_exit
tap_end
