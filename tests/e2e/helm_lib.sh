# Helm for the end-to-end scripts (sourced after tests/e2e/kgate.sh, once e2e_require has run).

# helm_e2e: Helm 3.10.1 in $HELM (scripts/install-helm.sh), its cache, configuration and data
# under the script's directory; a failed install is a failed check and the end of the script.
helm_e2e() {
    if ! HELM=$(scripts/install-helm.sh 2>"$KGATE_TEST_TMP/install-helm.log"); then
        check "Helm 3.10.1 installs (scripts/install-helm.sh)" false
        diag "$(cat "$KGATE_TEST_TMP/install-helm.log")"
        tap_end
        exit 1
    fi
    export HELM_CACHE_HOME=$KGATE_TEST_TMP/helm/cache HELM_CONFIG_HOME=$KGATE_TEST_TMP/helm/config
    export HELM_DATA_HOME=$KGATE_TEST_TMP/helm/data
}

# h ARGS...: helm with its output in $HOUT (true when it succeeded).
h() {
    HOUT=$(timeout 120 "$HELM" "$@" 2>&1)
    local rc=$?
    [[ $rc -eq 0 ]] || diag "helm $*: $HOUT"
    return $rc
}
