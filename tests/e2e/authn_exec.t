#!/usr/bin/env bash
# A kubeconfig whose user is an exec credential plugin (client.authentication.k8s.io/v1
# ExecCredential): kubectl runs the plugin, sends the token it prints, and kgate
# authenticates it like any static token; a plugin printing a refused token gets 401.
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
source tests/e2e/api_lib.sh
source tests/e2e/registry_lib.sh
e2e_require authn_exec

if ! kubectl_ok; then
    echo "1..0 # SKIP needs kubectl 1.32"
    exit 0
fi
PKI=$KGATE_TEST_TMP/pki
api_pki "$PKI"
set_users
trap stop_all EXIT

# plugin FILE TOKEN: an exec plugin printing an ExecCredential with TOKEN, and counting its
# runs in FILE.runs.
plugin() {
    cat >"$1" <<SH
#!/bin/sh
echo run >>"$1.runs"
[ "\$KUBERNETES_EXEC_INFO" != "" ] || exit 3
cat <<JSON
{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential",
 "status":{"token":"$2"}}
JSON
SH
    chmod +x "$1"
}

# exec_kubeconfig FILE PLUGIN: a kubeconfig whose user runs PLUGIN.
exec_kubeconfig() {
    cat >"$1" <<KC
apiVersion: v1
kind: Config
clusters:
- cluster: {certificate-authority: $PKI/ca.crt, server: "$KGATE_URL"}
  name: kgate
users:
- name: plugin
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: $2
      interactiveMode: Never
contexts:
- context: {cluster: kgate, user: plugin}
  name: kgate
current-context: kgate
KC
}

check "kgate starts" api_start exec --anonymous-auth=false
plugin "$KGATE_TEST_TMP/good-plugin" alice-token
exec_kubeconfig "$KGATE_TEST_TMP/good.kubeconfig" "$KGATE_TEST_TMP/good-plugin"
KC=(kubectl --kubeconfig "$KGATE_TEST_TMP/good.kubeconfig")
check "kubectl auth whoami through the plugin names alice" bash -c \
    "$(printf '%q ' "${KC[@]}") auth whoami -o jsonpath='{.status.userInfo.username}' | grep -qx alice"
check "kubectl get works through the plugin" bash -c \
    "$(printf '%q ' "${KC[@]}") get namespace default -o name | grep -qx namespace/default"
check "the plugin ran (kubectl asked it for a credential)" test -s "$KGATE_TEST_TMP/good-plugin.runs"
plugin "$KGATE_TEST_TMP/bad-plugin" not-a-known-token
exec_kubeconfig "$KGATE_TEST_TMP/bad.kubeconfig" "$KGATE_TEST_TMP/bad-plugin"
check "a plugin's refused token: kubectl reports Unauthorized" bash -c \
    "! kubectl --kubeconfig '$KGATE_TEST_TMP/bad.kubeconfig' get namespace default 2>'$KGATE_TEST_TMP/bad.err' && grep -q 'Unauthorized' '$KGATE_TEST_TMP/bad.err'"
check "kgate exits cleanly" clean_exit
tap_end
