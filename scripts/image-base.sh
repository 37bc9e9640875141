#!/usr/bin/env bash
# Make a Debian 12 base image on a machine that reaches Debian's mirrors but no container
# registry, and print its name, for the Dockerfile's BUILD_BASE and RUN_BASE:
#
#   base=$(scripts/image-base.sh)
#   make image IMAGE_ARGS="--build-arg BUILD_BASE=$base --build-arg RUN_BASE=$base"
#
# mmdebstrap's minbase of bookworm (the essential packages and apt, as debian:12-slim), without
# the documentation, man pages and translations slim leaves out, imported into podman. The
# imported image is the cache: it is made again only when this recipe changes or after a week
# (the build stage runs apt-get update, so an older base costs a longer install, never a wrong
# image). Keeping it keeps the image ids builds from it cached their layers on, also for a
# fresh clone of the project.
set -euo pipefail

name=localhost/kgate-base:bookworm
max_age=$((7 * 24 * 3600))
# The merged-usr hook lays /usr out as bookworm's installer does, without the usrmerge package
# (and the perl it pulls in).
recipe=(--variant=minbase --hook-dir=/usr/share/mmdebstrap/hooks/merged-usr
    --aptopt='APT::Install-Recommends "false"'
    --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright'
    --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/info/*'
    --dpkgopt='path-exclude=/usr/share/locale/*' bookworm)
key=$(printf '%s\n' "${recipe[@]}" | sha256sum | cut -c1-16)

label() {
    podman image inspect --format "{{index .Config.Labels \"$1\"}}" "$name" 2>/dev/null || true
}
made=$(label kgate.base.made)
if [[ $(label kgate.base.recipe) == "$key" && ${made:-0} -gt $(($(date +%s) - max_age)) ]]; then
    echo "$name"
    exit 0
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/kgate-base.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mmdebstrap --quiet "${recipe[@]}" "$tmp/base.tar" >&2
podman import --quiet --change 'CMD ["/bin/bash"]' --change "LABEL kgate.base.recipe=$key" \
    --change "LABEL kgate.base.made=$(date +%s)" "$tmp/base.tar" "$name" >/dev/null
echo "$name"
