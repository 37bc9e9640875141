#!/usr/bin/env bash
# registry_list_rv.t with the read caches off: every read goes to etcd, with the same answers.
KGATE_FLAGS=--watch-cache=false exec "$(dirname "$0")/registry_list_rv.t"
