#!/usr/bin/env bash
# scaleout_rolling.t with haproxy in TCP mode: TLS end to end and each keep-alive connection
# bound to one instance, as kubeadm's HA guide balances kube-apiservers. A draining instance
# closes each connection after the answer in progress (Connection: close) and its idle ones at
# the end of the delay; the client reconnects through haproxy to another instance.
LB_MODE=tcp exec "$(dirname "$0")/scaleout_rolling.t"
