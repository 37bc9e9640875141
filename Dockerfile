# kgate's image: built on Debian 12 with the project's own Makefile, run on a slim Debian 12 as
# a non-root user. Any number of replicas can share one etcd. `make image` builds it with
# docker, podman or buildah, tagged kgate:<the chart's appVersion>.
#
# The bases are arguments so that a machine without a registry can build from a Debian 12 it
# made itself (tests/e2e/image.t imports one from mmdebstrap); they must be Debian 12 (bookworm).
ARG BUILD_BASE=debian:12
ARG RUN_BASE=debian:12-slim

FROM ${BUILD_BASE} AS build
# Marks the build's layers too, for whoever prunes old ones (tests/e2e/image.t does).
LABEL org.opencontainers.image.title=kgate
WORKDIR /src
# The packages first, from the list the host build uses: this layer stays cached while only
# the sources change.
COPY scripts/install-deps.sh scripts/
RUN scripts/install-deps.sh --build \
 && apt-get install -y -qq --no-install-recommends ca-certificates >/dev/null \
 && rm -rf /var/lib/apt/lists/*
# .dockerignore lets in only what `make build/kgate` reads: never a host's build/.
COPY . .
# No -g: the binary is stripped, so debug information would only cost compile time.
RUN make -j"$(nproc)" OPT=-O2 build/kgate && strip build/kgate

FROM ${RUN_BASE}
LABEL org.opencontainers.image.title=kgate
# kgate links its libraries statically, glibc aside: the runtime needs no package. An HTTPS
# call without a CA of its own (an OIDC issuer, say) verifies against the CA bundle, which is
# all it takes from ca-certificates (whose openssl and libssl would be a tenth of the image).
RUN groupadd --system --gid 65532 kgate \
 && useradd --system --uid 65532 --gid kgate --no-create-home --home-dir /var/run/kubernetes \
      --shell /usr/sbin/nologin kgate \
 && install -d -o kgate -g kgate -m 0700 /var/run/kubernetes
COPY --from=build /etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/
ENV SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt
COPY --from=build /src/build/kgate /usr/local/bin/kgate
USER 65532:65532
EXPOSE 6443
ENTRYPOINT ["/usr/local/bin/kgate"]
