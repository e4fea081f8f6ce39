# gpuadmit's image: `gpuadmit serve` for the Helm chart in charts/gpuadmit (docs/deploy.md#the-image).
#
#   scripts/image.sh                                  (podman/buildah; makes its own base without a registry)
#   docker build -t REGISTRY/gpuadmit:0.1.0 .
#
# Two stages. The first, on Debian 12, builds with the packages scripts/deps.sh lists for building (the one
# place they are named) and assembles the runtime root filesystem in /rootfs: the binary, the shared libraries
# it links (read from ldd, each with the symlinks that lead to it, so a library added to the build is carried
# without editing this file), the dynamic loader, the CA bundle, the copyright files of the packages those
# files come from, /etc/passwd and /etc/group entries for 65532, Debian's name lookup order in nsswitch.conf
# (/etc/hosts, then DNS: without the file glibc asks DNS first and skips /etc/hosts on a negative answer), and
# an empty /tmp. The second stage is that tree and nothing else: no shell, no package manager.
#
# BASE is any Debian 12 image with apt: debian:12-slim from a registry, or the local debootstrap base that
# scripts/image.sh imports on a machine without one.
ARG BASE=debian:12-slim

FROM ${BASE} AS build
WORKDIR /src
COPY scripts/deps.sh scripts/deps.sh
# ca-certificates: the live-cluster client verifies the API server with the service account's CA, but a
# kubeconfig may name a server with a public certificate; its bundle is copied into the image below.
RUN bash scripts/deps.sh --build \
    && apt-get install -y --no-install-recommends ca-certificates \
    && rm -rf /var/lib/apt/lists/*
COPY . .
RUN cmake -S . -B /build -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF \
    && cmake --build /build -j"$(nproc)" --target gpuadmit \
    && install -D -m 0755 /build/gpuadmit /rootfs/usr/bin/gpuadmit \
    && /rootfs/usr/bin/gpuadmit --version
# Copies a file into /rootfs under its real directory, then each symlink on the way to the file it names (so
# /lib64/ld-linux-x86-64.so.2 and libssl.so.3 keep working names), and records the Debian package owning each.
RUN set -eu; \
    carry() { \
        p="$1"; \
        while :; do \
            d="$(realpath "$(dirname "$p")")"; f="$d/$(basename "$p")"; \
            mkdir -p "/rootfs$d"; cp -a "$f" "/rootfs$d/"; \
            owner="$(dpkg -S "$f" 2>/dev/null || dpkg -S "${f#/usr}" 2>/dev/null)" \
                || { echo "no Debian package owns $f" >&2; exit 1; }; \
            echo "${owner%%:*}" >> /tmp/packages; \
            [ -L "$f" ] || break; \
            t="$(readlink "$f")"; case "$t" in /*) p="$t" ;; *) p="$d/$t" ;; esac; \
        done; \
    }; \
    mkdir -p /rootfs/etc/ssl/certs /rootfs/tmp; chmod 1777 /rootfs/tmp; \
    for top in bin lib lib32 lib64 libx32 sbin; do \
        if [ -L "/$top" ]; then cp -a "/$top" /rootfs/; fi; \
    done; \
    for lib in $(ldd /rootfs/usr/bin/gpuadmit | awk '$3 ~ /^\// {print $3} $1 ~ /^\// {print $1}'); do \
        carry "$lib"; \
    done; \
    cp /etc/ssl/certs/ca-certificates.crt /rootfs/etc/ssl/certs/; \
    echo ca-certificates >> /tmp/packages; \
    for pkg in $(sort -u /tmp/packages); do \
        install -D -m 0644 "/usr/share/doc/$pkg/copyright" "/rootfs/usr/share/doc/$pkg/copyright"; \
    done; \
    printf 'root:x:0:0:root:/root:/usr/sbin/nologin\ngpuadmit:x:65532:65532:gpuadmit:/nonexistent:/usr/sbin/nologin\n' \
        > /rootfs/etc/passwd; \
    printf 'root:x:0:\ngpuadmit:x:65532:\n' > /rootfs/etc/group; \
    printf 'passwd: files\ngroup: files\nhosts: files dns\n' > /rootfs/etc/nsswitch.conf; \
    echo "runtime packages:" $(sort -u /tmp/packages); \
    chroot /rootfs /usr/bin/gpuadmit --version

FROM scratch
COPY --from=build /rootfs/ /
# The chart's runAsUser; a numeric USER lets Kubernetes check runAsNonRoot without an /etc/passwd lookup.
USER 65532:65532
EXPOSE 9443 8080
ENTRYPOINT ["/usr/bin/gpuadmit"]
CMD ["serve", "--help"]
