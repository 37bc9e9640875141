#!/usr/bin/env bash
# Build kgate's image (the Dockerfile) as TAG with whichever tool this machine has: docker when
# its daemon answers, else podman, else buildah; IMAGE_TOOL names one. Further arguments go to
# the build (--build-arg BUILD_BASE=... and RUN_BASE=... choose other Debian 12 bases).
#
#   scripts/image.sh TAG [BUILD ARGS...]
#
# Podman and buildah build with chroot isolation and the host's network: a RUN step then needs
# no OCI runtime, cgroup setup, rlimits above the caller's or CNI bridge, which a machine
# without systemd's cgroup layout or with fewer capabilities than a full root (a CI container)
# lacks; the steps only install packages and compile. --layers (buildah's default is off)
# keeps each step's result, so that a build whose sources did not change reuses the compile.
set -euo pipefail
cd "$(dirname "$0")/.."

[[ $# -ge 1 ]] || { echo "usage: $0 TAG [BUILD ARGS...]" >&2; exit 2; }
tag=$1; shift

tool=${IMAGE_TOOL:-}
if [[ -z $tool ]]; then
    if command -v docker >/dev/null 2>&1 && docker info >/dev/null 2>&1; then
        tool=docker
    elif command -v podman >/dev/null 2>&1; then
        tool=podman
    elif command -v buildah >/dev/null 2>&1; then
        tool=buildah
    else
        echo "image: needs docker (with its daemon running), podman or buildah" >&2
        exit 1
    fi
fi

case $tool in
docker) cmd=(docker build) ;;
podman | buildah) cmd=("$tool" build --layers --isolation=chroot --network=host) ;;
*) echo "image: unknown IMAGE_TOOL $tool (docker, podman or buildah)" >&2; exit 2 ;;
esac
cmd+=("$@" -t "$tag" .)
echo "image: ${cmd[*]}"
"${cmd[@]}"
