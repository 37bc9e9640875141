#!/usr/bin/env bash
# Encryption at rest (--encryption-provider-config): Secrets, ConfigMaps and the apps group
# stored with kube's prefixes and byte formats (etcdctl shows the prefix and no plaintext), read
# back; a plain value from before the configuration read through identity; a value moved to
# another key fails AES-GCM's check with kube's 500 and is what the unsafe deletion removes;
# rotation: a new first provider writes, the old one still reads, and kubectl's replace of
# every Secret re-encrypts them; configurations kube refuses stop kgate at start-up.
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
source tests/e2e/api_lib.sh
source tests/e2e/registry_lib.sh
e2e_require encryption

PKI=$KGATE_TEST_TMP/pki
api_pki "$PKI"
set_users
trap stop_all EXIT
CONF=$KGATE_TEST_TMP/enc.yaml
KEY1=$(head -c 32 /dev/urandom | base64)
KEY2=$(head -c 16 /dev/urandom | base64)
BOX=$(head -c 32 /dev/urandom | base64)
NAME=enc-$$
PREFIX=/registry-$NAME-$$
OPT=ignoreStoreReadErrorWithClusterBreakingPotential

# start: kgate on the same etcd prefix each time, with the configuration in $CONF.
start() {
    api_start "$NAME" --encryption-provider-config="$CONF" \
        --feature-gates=AllowUnsafeMalformedObjectDeletion=true "$@"
}
# raw KEY: what etcd holds for KEY under the prefix (printable bytes only).
raw() { stored "$1" | tr -c '[:print:]' '.'; }
# lacks TEXT KEY: etcd's value for KEY does not contain TEXT.
lacks() { ! grep -qF -- "$1" <<<"$(raw "$2")"; }
# opens CIPHER KEY-B64 KEY: python3-cryptography decrypts etcd's value for KEY as kube's byte
# format says (the prefix, a 16-byte IV and PKCS#7, or a 12-byte nonce and the etcd key as
# additional data) into the object's JSON or kube's protobuf envelope.
opens() {
    stored "$3" | head -c -1 >"$KGATE_TEST_TMP/value"
    python3 - "$1" "$2" "$PREFIX/$3" "$KGATE_TEST_TMP/value" <<'PY'
import base64, json, sys
from cryptography.hazmat.primitives import padding
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
kind, key, etcd_key = sys.argv[1], base64.b64decode(sys.argv[2]), sys.argv[3]
data = open(sys.argv[4], "rb").read()
head = data.split(b":", 5)
body = data[len(b":".join(head[:5])) + 1:]
if kind == "aesgcm":
    plain = AESGCM(key).decrypt(body[:12], body[12:], etcd_key.encode())
else:
    d = Cipher(algorithms.AES(key), modes.CBC(body[:16])).decryptor()
    u = padding.PKCS7(128).unpadder()
    plain = u.update(d.update(body[16:]) + d.finalize()) + u.finalize()
sys.exit(0 if plain.startswith(b"k8s\0") or "kind" in json.loads(plain) else 1)
PY
}
secret() {
    echo "{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"metadata\":{\"name\":\"$1\"},\
\"stringData\":{\"password\":\"$2\"}}"
}

cat >"$CONF" <<EOF
apiVersion: apiserver.config.k8s.io/v1
kind: EncryptionConfiguration
resources:
  - resources: [secrets]
    providers:
      - aescbc:
          keys: [{name: key1, secret: "$KEY1"}]
      - identity: {}
  - resources: [configmaps]
    providers:
      - aesgcm:
          keys: [{name: k1, secret: "$KEY2"}]
  - resources: ["*.apps"]
    providers:
      - secretbox:
          keys: [{name: box, secret: "$BOX"}]
EOF
check "kgate starts with an EncryptionConfiguration" start

req POST "$CORE/secrets" "$(secret s1 hunter2-plaintext)"
check "a Secret is created" code_is 201
check "etcd holds it under aescbc's prefix and key name" \
    grep -q '^k8s:enc:aescbc:v1:key1:' <<<"$(raw secrets/default/s1)"
check "... with no plaintext" lacks hunter2 secrets/default/s1
check "... and no base64 of it either" lacks "$(printf hunter2-plaintext | base64)" \
    secrets/default/s1
req GET "$CORE/secrets/s1"
check "it reads back" jpy "d['data']['password'] == '$(printf hunter2-plaintext | base64)'"
check "an independent AES-CBC (python3-cryptography) opens etcd's bytes" \
    opens aescbc "$KEY1" secrets/default/s1

ETCDCTL_API=3 etcdctl --endpoints="$KGATE_TEST_ETCD" put "$PREFIX/secrets/default/old" \
    '{"apiVersion":"v1","kind":"Secret","metadata":{"name":"old","namespace":"default","uid":"u1","creationTimestamp":"2024-01-01T00:00:00Z"},"type":"Opaque","data":{"a":"YQ=="}}' >/dev/null
req GET "$CORE/secrets/old"
check "a plain value from before encryption is read through identity" jpy "d['data']['a'] == 'YQ=='"

req POST "$CORE/configmaps" "$(cm c1)"
check "a ConfigMap is created" code_is 201
check "etcd holds it under aesgcm's prefix" grep -q '^k8s:enc:aesgcm:v1:k1:' \
    <<<"$(raw configmaps/default/c1)"
req GET "$CORE/configmaps/c1"
check "it reads back" jpy "d['data'] == {'k': 'v'}"
check "an independent AES-GCM opens etcd's bytes with the etcd key as additional data" \
    opens aesgcm "$KEY2" configmaps/default/c1
req POST "$APPS/deployments" "$(deploy d1)"
check "a Deployment is created" code_is 201
check "etcd holds it under secretbox's prefix (*.apps)" grep -q '^k8s:enc:secretbox:v1:box:' \
    <<<"$(raw deployments/default/d1)"
req GET "$APPS/deployments/d1"
check "it reads back" jpy "d['spec']['replicas'] == 1"
req POST "/api/v1/namespaces" '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"plain"}}'
check "a resource no entry names is stored as it is" grep -q '^{' <<<"$(raw namespaces/plain)"

# An AES-GCM value authenticates its key: copied under another name it no longer opens.
stored configmaps/default/c1 | head -c -1 >"$KGATE_TEST_TMP/c1.bin"
ETCDCTL_API=3 etcdctl --endpoints="$KGATE_TEST_ETCD" put "$PREFIX/configmaps/default/moved" \
    <"$KGATE_TEST_TMP/c1.bin" >/dev/null
req GET "$CORE/configmaps/moved"
check "a value moved to another key: 500" code_is 500
check "... kube's InternalError with the transformer's words" is_status 500 InternalError \
    "Internal error occurred: cipher: message authentication failed"
req GET "$CORE/configmaps"
check "a list that meets it fails too: 500" code_is 500
check "... naming the etcd key" is_status 500 InternalError \
    "Internal error occurred: unable to transform key \"$PREFIX/configmaps/default/moved\": cipher: message authentication failed"
req DELETE "$CORE/configmaps/moved"
check "a plain DELETE of it: kube's 500 with the same words" is_status 500 InternalError \
    "Internal error occurred: cipher: message authentication failed"
req PUT "$CORE/configmaps/moved" "$(cm moved)"
check "... an update too" is_status 500 InternalError \
    "Internal error occurred: cipher: message authentication failed"
req DELETE "$CORE/configmaps/c1?$OPT=true"
check "the unsafe deletion refuses a readable object: 422" code_is 422
req DELETE "$CORE/configmaps/moved?$OPT=true"
check "... and removes the one that does not decrypt: 200" code_is 200
check "... gone from etcd" test -z "$(stored configmaps/default/moved)"
req GET "$CORE/configmaps"
check "the list reads again" jpy "'c1' in [i['metadata']['name'] for i in d['items']] and \
'moved' not in [i['metadata']['name'] for i in d['items']]"
check "kgate exits cleanly" clean_exit

# Rotation: a new key writes; the old provider, kept second, still reads.
KEY3=$(head -c 24 /dev/urandom | base64)
cat >"$CONF" <<EOF
apiVersion: apiserver.config.k8s.io/v1
kind: EncryptionConfiguration
resources:
  - resources: [secrets]
    providers:
      - aesgcm:
          keys: [{name: key3, secret: "$KEY3"}]
      - aescbc:
          keys: [{name: key1, secret: "$KEY1"}]
      - identity: {}
EOF
check "kgate starts with the rotated configuration" start
req GET "$CORE/secrets/s1"
check "the old Secret is read with the old key" \
    jpy "d['data']['password'] == '$(printf hunter2-plaintext | base64)'"
req GET "$CORE/configmaps/c1"
check "a ConfigMap encrypted by a provider no longer configured: kube's 500" is_status 500 \
    InternalError "Internal error occurred: identity transformer tried to read encrypted data"
if kubectl_ok; then
    kubeconfig "$KGATE_TEST_TMP/kubeconfig"
    export KUBECONFIG=$KGATE_TEST_TMP/kubeconfig
    kubectl get secrets -A -o json >"$KGATE_TEST_TMP/all.json" 2>"$KGATE_TEST_TMP/kerr"
    check "kubectl get secrets -A -o json | kubectl replace -f -" \
        kubectl replace -f "$KGATE_TEST_TMP/all.json"
else
    req GET "$CORE/secrets/s1"
    req PUT "$CORE/secrets/s1" "$(cat "$OUT")"
    check "the Secret is replaced unchanged (kubectl 1.32 is not here)" code_is 200
    req GET "$CORE/secrets/old"
    req PUT "$CORE/secrets/old" "$(cat "$OUT")"
fi
check "... re-encrypts it with the new first provider" \
    grep -q '^k8s:enc:aesgcm:v1:key3:' <<<"$(raw secrets/default/s1)"
check "... and the plain one too" grep -q '^k8s:enc:aesgcm:v1:key3:' <<<"$(raw secrets/default/old)"
req GET "$CORE/secrets/s1"
check "it reads back" jpy "d['data']['password'] == '$(printf hunter2-plaintext | base64)'"
kcurl "${ADMIN[@]}" -o "$KGATE_TEST_TMP/watch" \
    "$KGATE_URL$CORE/secrets?watch=1&timeoutSeconds=1&fieldSelector=metadata.name=s1"
check "a watch gets the Secret decrypted" python3 -c "
import json, sys
ev = [json.loads(l) for l in open('$KGATE_TEST_TMP/watch') if l.strip()]
sys.exit(0 if ev and ev[0]['object']['data']['password'] == '$(printf hunter2-plaintext | base64)' else 1)"
cp "$CONF" "$KGATE_TEST_TMP/kept.yaml"
sed -i 's/name: key3/name: other/' "$CONF"
sleep 2
req POST "$CORE/secrets" "$(secret once x)"
check "without the automatic reload the file is read once: a change is not taken" \
    grep -q '^k8s:enc:aesgcm:v1:key3:' <<<"$(raw secrets/default/once)"
cp "$KGATE_TEST_TMP/kept.yaml" "$CONF"
check "kgate exits cleanly" clean_exit

# kube-apiserver's own layout: protobuf encrypted, which kgate writes and reads the same way.
check "kgate starts writing protobuf" start --storage-media-type=application/vnd.kubernetes.protobuf
req POST "$CORE/secrets" "$(secret pb hunter3)"
check "a Secret is stored encrypted" grep -q '^k8s:enc:aesgcm:v1:key3:' <<<"$(raw secrets/default/pb)"
check "... with no plaintext" lacks hunter3 secrets/default/pb
check "... and kube's protobuf inside (opened by python3-cryptography)" \
    opens aesgcm "$KEY3" secrets/default/pb
req GET "$CORE/secrets/pb"
check "... and reads back" jpy "d['data']['password'] == '$(printf hunter3 | base64)'"
check "kgate exits cleanly" clean_exit

# The automatic reload: a changed file is taken without a restart, a broken one is refused and
# the configuration in force stays; both are counted in kube's metrics.
metric() {
    kcurl "${ADMIN[@]}" "$KGATE_URL/metrics" | grep "^apiserver_encryption_config_controller_$1" |
        grep "status=\"$2\"" | awk '{print $2}'
}
# lacks_metric NAME: /metrics answers, with the reload counter and without NAME
lacks_metric() {
    local m
    m=$(kcurl "${ADMIN[@]}" "$KGATE_URL/metrics") && grep -q automatic_reloads_total <<<"$m" &&
        ! grep -q "$1" <<<"$m"
}
wait_metric() {
    for _ in $(seq 50); do
        [[ $(metric "$1" "$2") == "$3" ]] && return 0
        sleep 0.2
    done
    diag "$1{status=$2} is '$(metric "$1" "$2")', not $3"
    return 1
}
check "kgate starts with the automatic reload" start --encryption-provider-config-automatic-reload
req POST "$CORE/secrets" "$(secret r1 x)"
check "a Secret is written with the configuration in force" \
    grep -q '^k8s:enc:aesgcm:v1:key3:' <<<"$(raw secrets/default/r1)"
sed -i "s|keys: \[{name: key3|keys: [{name: key4, secret: \"$KEY1\"}, {name: key3|" "$CONF"
check "a changed file is reloaded: counted as a success" wait_metric automatic_reloads_total \
    success 1
req POST "$CORE/secrets" "$(secret r2 x)"
check "... and the new configuration writes" \
    grep -q '^k8s:enc:aesgcm:v1:key4:' <<<"$(raw secrets/default/r2)"
check "... with the time of the reload" test -n "$(metric \
    automatic_reload_last_timestamp_seconds success)"
check "... not in the counter 1.30 deprecated, hidden from 1.31 on as kube hides it" \
    lacks_metric automatic_reload_success_total
printf 'apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources: []\n' \
    >"$CONF"
check "a broken file is refused: counted as a failure" wait_metric automatic_reloads_total \
    failure 1
req POST "$CORE/secrets" "$(secret r3 x)"
check "... and the configuration in force stays" \
    grep -q '^k8s:enc:aesgcm:v1:key4:' <<<"$(raw secrets/default/r3)"
req GET "$CORE/secrets/r1"
check "... which still reads what the one before wrote (the old key stays second)" code_is 200
check "kgate exits cleanly" clean_exit

check "kgate starts without an encryption configuration" api_start "$NAME"
req GET "$CORE/secrets/s1"
check "an encrypted value is then refused as kube's identity refuses it" is_status 500 \
    InternalError "Internal error occurred: identity transformer tried to read encrypted data"
check "kgate exits cleanly" clean_exit

# refused CONFIG-TEXT MESSAGE: kgate with that configuration exits 1 saying MESSAGE.
refused() {
    if [[ -n $1 ]]; then printf '%s\n' "$1" >"$CONF"; else : >"$CONF"; fi
    kgate_start bad --etcd-servers="$KGATE_TEST_ETCD" --etcd-prefix="$PREFIX" \
        --tls-cert-file="$PKI/server.crt" --tls-private-key-file="$PKI/server.key" \
        --encryption-provider-config="$CONF"
    wait "$KGATE_PID"
    local rc=$?
    [[ $rc == 1 ]] && grep -qF -- "$2" "$KGATE_LOG" && return 0
    diag "exit $rc: $(tail -3 "$KGATE_LOG")"
    return 1
}
HEAD='apiVersion: apiserver.config.k8s.io/v1
kind: EncryptionConfiguration'
check "a key of the wrong length is refused" refused "$HEAD
resources:
  - resources: [secrets]
    providers: [{aescbc: {keys: [{name: k, secret: c2hvcnQ=}]}}]" \
    'error while parsing file: resources[0].providers[0].aescbc.keys[0].secret: Invalid value: "REDACTED": secret is not of the expected length, got 5, expected one of [16 24 32]'
check "a secret that is not base64 is refused" refused "$HEAD
resources:
  - resources: [secrets]
    providers: [{secretbox: {keys: [{name: k, secret: '!!!'}]}}]" \
    'resources[0].providers[0].secretbox.keys[0].secret: Invalid value: "REDACTED": secrets must be base64 encoded'
check "no resources at all is refused" refused "$HEAD
resources: []" 'error while parsing file: resources: Required value: at least one resources is required'
check "an entry without providers is refused" refused "$HEAD
resources:
  - resources: [secrets]" \
    'resources[0].providers: Required value: at least one resources[0].providers is required'
check "overlapping resources in one entry are refused" refused "$HEAD
resources:
  - resources: [secrets, '*.']
    providers: [{identity: {}}]" \
    "resources[0].resources: Invalid value: []string{\"secrets\", \"*.\"}: using overlapping resources such as 'secrets' and '*.' in the same resource list is not allowed as they will be masked"
check "a resource masked by an earlier *.* is refused" refused "$HEAD
resources:
  - resources: ['*.*']
    providers: [{identity: {}}]
  - resources: [secrets]
    providers: [{identity: {}}]" \
    'error while building transformers: resource "secrets" is masked by earlier rule "*.*"'
check "an unknown provider is refused" refused "$HEAD
resources:
  - resources: [secrets]
    providers: [{aesctr: {}}]" \
    'provider does not contain any of the expected providers: KMS, AESGCM, AESCBC, Secretbox, Identity'
check "KMS v1 is refused as kube 1.32 refuses it" refused "$HEAD
resources:
  - resources: [secrets]
    providers: [{kms: {name: p, endpoint: 'unix:///tmp/kms.sock'}}]" \
    'KMSv1 is deprecated and will only receive security updates going forward.'
check "an empty file is refused" refused "" "encryption provider configuration file \"$CONF\" is empty"
tap_end
