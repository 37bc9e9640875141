# Several kgate instances on one etcd prefix, each under RBAC with the api_pki users (source
# after kgate.sh and api_lib.sh; needs $PKI and $PREFIX).
# start NAME [FLAG...]: start instance NAME and wait until it is ready; on NAME: aim the
# request helpers ($KGATE_URL, $KGATE_PID, $KGATE_LOG) at it. ${LOG[NAME]} is its log.
declare -A PID URL LOG

start() {
    local name=$1
    shift
    kgate_start "$name" --etcd-servers="$KGATE_TEST_ETCD" --etcd-prefix="$PREFIX" \
        --tls-cert-file="$PKI/server.crt" --tls-private-key-file="$PKI/server.key" \
        --client-ca-file="$PKI/ca.crt" --token-auth-file="$PKI/tokens.csv" \
        --authorization-mode=RBAC --shutdown-delay-duration=0s --workers=2 "$@"
    PID[$name]=$KGATE_PID URL[$name]=$KGATE_URL LOG[$name]=$KGATE_LOG
    for _ in $(seq 300); do
        [[ $(http_code /readyz "${ADMIN[@]}") == 200 ]] && return 0
        sleep 0.1
    done
    diag "$(tail -20 "$KGATE_LOG")"
    return 1
}
on() { KGATE_URL=${URL[$1]} KGATE_PID=${PID[$1]} KGATE_LOG=${LOG[$1]}; }
