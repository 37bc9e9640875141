# kgate image: build on Debian 12 with the project's own Makefile, run on a slim Debian 12 with
# only the runtime libraries. Any number of replicas can share one etcd.
FROM debian:12 AS build
WORKDIR /src
COPY . .
RUN apt-get update -qq \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      build-essential pkg-config libevent-dev libjansson-dev libyaml-dev libprotobuf-c-dev \
      protobuf-c-compiler libgrpc-dev libssl-dev libjwt-dev libnghttp2-dev zlib1g-dev libpcre2-dev \
      libsodium-dev \
 && make -j"$(nproc)" build/kgate

FROM debian:12-slim
RUN apt-get update -qq \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      libevent-2.1-7 libevent-openssl-2.1-7 libevent-pthreads-2.1-7 libjansson4 libyaml-0-2 \
      libprotobuf-c1 libgrpc29 libssl3 libjwt0 ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 65532 --home-dir /var/run/kubernetes kgate \
 && mkdir -p /var/run/kubernetes && chown kgate /var/run/kubernetes
COPY --from=build /src/build/kgate /usr/local/bin/kgate
USER 65532
EXPOSE 6443
ENTRYPOINT ["/usr/local/bin/kgate"]
