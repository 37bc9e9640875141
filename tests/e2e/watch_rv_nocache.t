#!/usr/bin/env bash
# watch_rv.t with the read caches off: initial lists read etcd, with the same answers.
KGATE_FLAGS=--watch-cache=false exec "$(dirname "$0")/watch_rv.t"
