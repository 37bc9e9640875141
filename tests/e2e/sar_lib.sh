# Helpers for the webhook authorizer scenarios: tests/e2e/sar.py on loopback, and kubeconfigs
# naming it. Needs $PKI (api_pki) and $KGATE_TEST_TMP.

# sar_start DIR: sar.py serving with DIR as its state; sets SAR_DIR and SAR_URL.
sar_start() {
    SAR_DIR=$1
    mkdir -p "$SAR_DIR"
    pki_cert "$PKI" ca sar server "/CN=sar" "IP:127.0.0.1"
    python3 tests/e2e/sar.py "$SAR_DIR" "$PKI/sar.crt" "$PKI/sar.key" 2>"$SAR_DIR/sar.log" &
    echo $! >>"$KGATE_TEST_TMP/pids"
    for _ in $(seq 100); do
        [[ -s $SAR_DIR/port ]] && break
        sleep 0.1
    done
    SAR_URL=https://127.0.0.1:$(cat "$SAR_DIR/port")
}

# hook_kubeconfig FILE PATH: a kubeconfig naming sar.py's PATH, with the CA and its token.
hook_kubeconfig() {
    cat >"$1" <<YAML
apiVersion: v1
kind: Config
clusters:
- name: sar
  cluster: {certificate-authority: $PKI/ca.crt, server: "$SAR_URL$2"}
users:
- name: kgate
  user: {token: sar-secret}
contexts:
- name: sar
  context: {cluster: sar, user: kgate}
current-context: sar
YAML
}
