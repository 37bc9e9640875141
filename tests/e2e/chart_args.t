#!/usr/bin/env bash
# The chart's Deployment run as a kubelet would run it: the flags helm renders (default values,
# then every optional part on) with the files the pod would mount placed under a scratch root
# (the Secrets' keys from the test PKI, the ConfigMap's authorization config and audit policy
# as rendered), and / read-only but for the pod's emptyDir volumes where a private mount
# namespace is allowed (readOnlyRootFilesystem). kgate must start with them, answer the probes
# as the kubelet sends them (anonymous HTTPS, certificate not checked) on /livez and /readyz,
# serve the static token user, write the audit log, and after SIGTERM fail /readyz at once and
# exit 0 well within the pod's terminationGracePeriodSeconds.
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
source tests/e2e/helm_lib.sh
source tests/e2e/api_lib.sh
e2e_require chart_args

helm_e2e
PKI=$KGATE_TEST_TMP/pki
e2e_pki "$PKI"
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$PKI/sa.key" 2>/dev/null
openssl pkey -in "$PKI/sa.key" -pubout -out "$PKI/sa.pub" 2>/dev/null
trap stop_all EXIT
HAS_ENCRYPTION=$("$KGATE" --help | grep -c -- '^  --encryption-provider-config ')

# place VARIANT MANIFESTS: the pod's files under $KGATE_TEST_TMP/VARIANT (the Secrets' keys
# from the test PKI, the rendered ConfigMap's files) and its args, paths moved under that root,
# into $KGATE_TEST_TMP/VARIANT/args (one a line) and its grace period into .../grace.
place() {
    local root=$KGATE_TEST_TMP/$1
    mkdir -p "$root"
    python3 - "$2" "$root" "$PKI" "$(free_port)" "$HAS_ENCRYPTION" <<'EOF'
import os, shutil, sys, yaml
manifests, root, pki, port, has_encryption = sys.argv[1:6]
docs = [d for d in yaml.safe_load_all(open(manifests)) if d]
dep = next(d for d in docs if d["kind"] == "Deployment")
pod = dep["spec"]["template"]["spec"]
c = pod["containers"][0]
config = next((d["data"] for d in docs if d["kind"] == "ConfigMap"), {})
encryption = """apiVersion: apiserver.config.k8s.io/v1
kind: EncryptionConfiguration
resources:
- resources: [secrets]
  providers:
  - identity: {}
"""
# What each Secret the chart mounts holds (its keys as the chart documents them).
secrets = {
    "etcd-tls": {},
    "serving-tls": {"tls.crt": open(f"{pki}/server.crt").read(),
                    "tls.key": open(f"{pki}/server.key").read()},
    "client-ca": {"ca.crt": open(f"{pki}/ca.crt").read()},
    "tokens": {"tokens.csv": "scrape-token,prometheus,2000,system:monitoring\n"},
    "sa-keys": {"sa.key": open(f"{pki}/sa.key").read(), "sa.pub": open(f"{pki}/sa.pub").read()},
    "encryption": {"config.yaml": encryption},
    "config": config,
}
for m in c["volumeMounts"]:
    d = root + m["mountPath"]
    os.makedirs(d, exist_ok=True)
    for name, text in secrets.get(m["name"], {}).items():
        open(f"{d}/{name}", "w").write(text)
args = []
for a in c["args"]:
    a = a.replace("=/etc/", f"={root}/etc/").replace("=/var/", f"={root}/var/")
    if a.startswith("--secure-port="):
        a = f"--secure-port={port}"
    if a.startswith("--encryption-provider-config") and has_encryption == "0":
        continue  # comes with encryption at rest; chart.t counts it as a TODO
    args.append(a)
args.append("--bind-address=127.0.0.1")
# The pod's writable places: its emptyDir volumes (readOnlyRootFilesystem leaves no other).
empty = {v["name"] for v in pod["volumes"] if "emptyDir" in v}
open(f"{root}/rw", "w").write("".join(root + m["mountPath"] + "\n" for m in c["volumeMounts"]
                                      if m["name"] in empty))
open(f"{root}/args", "w").write("\n".join(args) + "\n")
open(f"{root}/port", "w").write(port)
open(f"{root}/grace", "w").write(str(pod["terminationGracePeriodSeconds"]))
EOF
}

# The container's root filesystem is read-only: where a private mount namespace is allowed,
# kgate runs with / read-only but for the pod's emptyDir volumes.
READ_ONLY=()
if unshare -m --propagation private true 2>/dev/null; then
    READ_ONLY=(unshare -m --propagation private sh -c 'while read -r d; do
        mount --bind "$d" "$d" || exit 1; done <"$0"; mount -o bind,remount,ro / || exit 1
        exec "$@"')
fi

# run VARIANT: start kgate with the placed args (with / read-only when it can be); sets
# KGATE_URL, KGATE_PID, KGATE_LOG.
run() {
    local root=$KGATE_TEST_TMP/$1 args=()
    mapfile -t args <"$root/args"
    KGATE_URL=https://127.0.0.1:$(cat "$root/port")
    KGATE_LOG=$KGATE_TEST_TMP/kgate-$1.log
    if [[ ${#READ_ONLY[@]} -gt 0 ]]; then
        args=("$root/rw" "$KGATE" "${args[@]}")
    else
        args=("$KGATE" "${args[@]}")
    fi
    ${READ_ONLY[@]+"${READ_ONLY[@]}"} "${args[@]}" >"$KGATE_LOG" 2>&1 &
    KGATE_PID=$!
    echo "$KGATE_PID" >>"$KGATE_TEST_TMP/pids"
}

# probe PATH: what the kubelet's httpGet probe gets: anonymous, certificate not checked.
probe() { curl -sk --max-time 5 -o /dev/null -w '%{http_code}' "$KGATE_URL$1"; }
# probe_until PATH CODE SECONDS: poll like a startup probe until PATH answers CODE.
probe_until() {
    for _ in $(seq $(($3 * 10))); do
        [[ $(probe "$1") == "$2" ]] && return 0
        alive "$KGATE_PID" || { diag "$(tail -5 "$KGATE_LOG")"; return 1; }
        sleep 0.1
    done
    diag "$(tail -5 "$KGATE_LOG")"
    return 1
}

# stop_in_grace VARIANT: SIGTERM; /readyz fails at once, /livez passes meanwhile, exit 0 within
# the pod's grace period.
stop_in_grace() {
    local grace start
    grace=$(cat "$KGATE_TEST_TMP/$1/grace")
    start=$(date +%s)
    kill -TERM "$KGATE_PID"
    check "$1: after SIGTERM the readiness probe fails" probe_until /readyz 500 2
    check "$1: ... the liveness probe still passes" test "$(probe /livez)" = 200
    wait_exit "$KGATE_PID" "$grace"
    check "$1: exit 0 (got $EXIT_CODE) within terminationGracePeriodSeconds ($grace s)" \
        test "$EXIT_CODE" = 0 -a $(($(date +%s) - start)) -lt "$grace"
    check "$1: no sanitizer report" no_sanitizer_report "$KGATE_LOG"
}

SET=(--set "etcd.servers=$KGATE_TEST_ETCD" --set "etcd.prefix=/registry-chart-args-$$")
"$HELM" template r charts/kgate -n kgate-system "${SET[@]}" >"$KGATE_TEST_TMP/default.yaml"
check "helm template, default values" test $? = 0
"$HELM" template r charts/kgate -n kgate-system -f charts/kgate/ci/full-values.yaml \
    "${SET[@]}" --set etcd.tlsSecret= >"$KGATE_TEST_TMP/full.yaml"
check "helm template, every optional part on (plain-http test etcd)" test $? = 0

# default values: a self-signed certificate in --cert-dir, Node,RBAC, nothing else.
place default "$KGATE_TEST_TMP/default.yaml"
run default
if [[ ${#READ_ONLY[@]} -gt 0 ]]; then
    check "kgate runs with a read-only / but for the pod's emptyDir volumes" true
else
    TAP_N=$((TAP_N + 1))
    echo "ok $TAP_N - kgate runs with a read-only / # SKIP no private mount namespace here"
fi
check "default: the startup probe passes (anonymous /livez)" probe_until /livez 200 60
check "default: the readiness probe passes (anonymous /readyz)" probe_until /readyz 200 30
check "default: the self-signed pair was written to --cert-dir" \
    test -s "$KGATE_TEST_TMP/default/var/run/kubernetes/apiserver.crt"
check "default: anonymous may not list namespaces (RBAC)" \
    test "$(probe /api/v1/namespaces)" = 403
stop_in_grace default

# every optional part on.
place full "$KGATE_TEST_TMP/full.yaml"
run full
check "full: the startup probe passes" probe_until /livez 200 60
check "full: the readiness probe passes" probe_until /readyz 200 30
KCURL_AUTH=(-H "Authorization: Bearer scrape-token")
check "full: the static token's system:monitoring user reads /metrics" \
    test "$(http_code /metrics)" = 200
KCURL_AUTH=(--cert "$PKI/admin.crt" --key "$PKI/admin.key")
check "full: the client CA admits the admin's certificate" \
    test "$(http_code /api/v1/namespaces/default)" = 200
send POST /api/v1/namespaces/default/serviceaccounts/default/token \
    '{"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":{"audiences":["api"]}}'
check "full: a TokenRequest is signed with sa.key" test "$CODE" = 201
check "... for the chart's issuer" python3 -c '
import base64, json, sys
t = json.load(open(sys.argv[1]))["status"]["token"].split(".")[1]
c = json.loads(base64.urlsafe_b64decode(t + "=" * (-len(t) % 4)))
sys.exit(0 if c["iss"] == "https://kgate.example" else 1)' "$KGATE_TEST_TMP/body"
audit_log=$KGATE_TEST_TMP/full/var/log/kgate/audit.log
check "full: the audit policy's Metadata level logs the GET into the mounted log directory" \
    wait_for_line '"requestURI":"/api/v1/namespaces/default"' "$audit_log"
check "... and its None rule leaves the probes out" \
    bash -c "! grep -q '\"requestURI\":\"/readyz\"' $audit_log"
KCURL_AUTH=(-H "Authorization: Bearer scrape-token")
check "full: the authorization config's RBAC refuses that user the namespaces" \
    test "$(http_code /api/v1/namespaces)" = 403
stop_in_grace full
tap_end
