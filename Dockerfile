# gpuadmit's image: `gpuadmit serve` for the Helm chart in charts/gpuadmit (docs/deploy.md#the-image).
#
#   docker build -t REGISTRY/gpuadmit:0.1.0 .
#
# Two stages on Debian 12: the first builds with the packages scripts/deps.sh lists for building (the one
# place they are named); the second holds the binary and only the shared libraries it links, found from the
# binary itself (ldd, then the Debian packages that own those files), so a library added to the build is
# carried into the image without editing this file.

FROM debian:12 AS build
WORKDIR /src
COPY scripts/deps.sh scripts/deps.sh
RUN bash scripts/deps.sh --build && rm -rf /var/lib/apt/lists/*
COPY . .
RUN cmake -S . -B /build -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF \
    && cmake --build /build -j"$(nproc)" --target gpuadmit \
    && install -D -m 0755 /build/gpuadmit /out/usr/bin/gpuadmit \
    && /out/usr/bin/gpuadmit --version \
    && for lib in $(ldd /out/usr/bin/gpuadmit | awk '$3 ~ /^\// {print $3} $1 ~ /^\// {print $1}'); do \
           real="$(realpath "$lib")"; \
           dpkg -S "$lib" 2>/dev/null || dpkg -S "$real" 2>/dev/null || dpkg -S "${real#/usr}" \
               || { echo "no Debian package owns $lib" >&2; exit 1; }; \
       done | cut -d: -f1 | sort -u > /out/runtime-packages \
    && cat /out/runtime-packages

FROM debian:12-slim
COPY --from=build /out/runtime-packages /tmp/runtime-packages
# ca-certificates: the live-cluster client verifies the API server with the service account's CA, but a
# kubeconfig may name a server with a public certificate.
RUN apt-get update \
    && apt-get install -y --no-install-recommends $(cat /tmp/runtime-packages) ca-certificates \
    && rm -rf /var/lib/apt/lists/* /tmp/runtime-packages
COPY --from=build /out/usr/bin/gpuadmit /usr/bin/gpuadmit
# The chart's runAsUser; a numeric USER lets Kubernetes check runAsNonRoot without an /etc/passwd lookup.
USER 65532:65532
EXPOSE 9443 8080
ENTRYPOINT ["/usr/bin/gpuadmit"]
CMD ["serve", "--help"]
