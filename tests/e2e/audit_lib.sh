# Reading an audit log in e2e tests (needs $LOG, the log's path, and $D, a scratch folder).
# events ID: the log's events of audit ID into $D/events, once its ResponseComplete is there.
events() {
    for _ in $(seq 50); do
        grep -F "\"auditID\":\"$1\"" "$LOG" >"$D/events" 2>/dev/null
        grep -q '"stage":"ResponseComplete"' "$D/events" && return 0
        sleep 0.1
    done
    diag "no ResponseComplete event of $1"
    return 1
}
