#!/usr/bin/env bash
# Builds the Dockerfile's image as localhost/gpuadmit:<version> with buildah (or podman build), on a Debian 12
# machine with or without a registry (docs/deploy.md#the-image):
#   scripts/image.sh                    (as root, or where buildah can build)
# The base: GPA_IMAGE_BASE when set; else debian:12-slim when it is in local storage or can be pulled; else a
# Debian 12 minbase made here with debootstrap from the mirror apt already uses (/etc/apt/sources.list*, or
# GPA_DEBIAN_MIRROR) and imported as localhost/gpuadmit-base:bookworm (made once, reused while it is there).
# Storage, runtime and cgroup settings come from podman's and buildah's own environment (CONTAINERS_CONF,
# CONTAINERS_STORAGE_CONF, /etc/containers): nothing here fixes them. Prints the image's name last.
# Environment: GPA_IMAGE_NAME (default localhost/gpuadmit), GPA_IMAGE_REVISION (the commit to label the image
# with, default the work tree's HEAD when it is a git checkout; none from a tarball).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

version="$(sed -n 's/^project(gpuadmit VERSION \([0-9][0-9.]*\).*/\1/p' "$root/CMakeLists.txt")"
if [ -z "$version" ]; then
    echo "image.sh: no project(gpuadmit VERSION ...) in $root/CMakeLists.txt" >&2
    exit 1
fi
image="${GPA_IMAGE_NAME:-localhost/gpuadmit}:$version"
# Only the tree's own .git: a tarball unpacked inside another checkout must not take that checkout's commit.
revision="${GPA_IMAGE_REVISION-}"
if [ -z "${GPA_IMAGE_REVISION+set}" ] && [ -e "$root/.git" ]; then
    revision="$(git -C "$root" rev-parse --verify -q HEAD 2>/dev/null || true)"
fi

# The first bookworm (not -security) mirror in apt's sources, one-line or deb822 format.
debian_mirror() {
    local f
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
        [ -f "$f" ] || continue
        case "$f" in
        *.sources)
            awk '/^URIs:/ {uri = $2} /^Suites:/ {for (i = 2; i <= NF; i++) if ($i == "bookworm") ok = 1}
                 /^$/ {if (ok && uri) {print uri; exit} ok = 0; uri = ""}
                 END {if (ok && uri) print uri}' "$f"
            ;;
        *)
            awk '$1 == "deb" {for (i = 2; i <= NF; i++) if ($i !~ /^\[/ && $i ~ /:\/\//) {
                     if ($(i + 1) == "bookworm") {print $i; exit} break}}' "$f"
            ;;
        esac
    done | head -n 1
}

# Makes the minbase base in local storage unless it is there already; prints its name.
local_base() {
    local base=localhost/gpuadmit-base:bookworm mirror dir
    if podman image exists "$base"; then
        echo "$base"
        return 0
    fi
    mirror="${GPA_DEBIAN_MIRROR:-$(debian_mirror)}"
    if [ -z "$mirror" ]; then
        echo "image.sh: no bookworm mirror in /etc/apt/sources.list*; set GPA_DEBIAN_MIRROR" >&2
        return 1
    fi
    command -v debootstrap >/dev/null || { echo "image.sh: debootstrap not installed (scripts/deps.sh)" >&2; return 1; }
    dir="$(mktemp -d "${TMPDIR:-/tmp}/gpuadmit-base.XXXXXX")"
    echo "image.sh: debootstrap --variant=minbase bookworm from $mirror" >&2
    if ! debootstrap --variant=minbase bookworm "$dir" "$mirror" >&2; then
        rm -rf "$dir"
        return 1
    fi
    # apt in the build stage reads the host's Debian sources (with bookworm-updates and -security) rather than
    # the one line debootstrap wrote.
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
        if [ -f "$f" ] && grep -qF "$mirror" "$f"; then
            cp "$f" "$dir/etc/apt/sources.list.d/$(basename "$f" | sed 's/^sources\.list$/debian.list/')"
            rm -f "$dir/etc/apt/sources.list"
        fi
    done
    rm -rf "$dir"/var/cache/apt/archives/*.deb "$dir"/var/lib/apt/lists/*
    tar -C "$dir" --numeric-owner -c . | podman import - "$base" >&2 || { rm -rf "$dir"; return 1; }
    rm -rf "$dir"
    echo "$base"
}

base="${GPA_IMAGE_BASE:-}"
if [ -z "$base" ]; then
    if podman image exists debian:12-slim 2>/dev/null ||
        timeout 120 podman pull -q docker.io/library/debian:12-slim >/dev/null 2>&1; then
        base=docker.io/library/debian:12-slim
    else
        echo "image.sh: debian:12-slim cannot be pulled: making a local base" >&2
        base="$(local_base)"
    fi
fi

args=(--pull=never --network host -f "$root/Dockerfile" -t "$image" --build-arg "BASE=$base"
    --label "org.opencontainers.image.version=$version" --label "org.opencontainers.image.title=gpuadmit")
if [ -n "$revision" ]; then
    args+=(--label "org.opencontainers.image.revision=$revision")
fi
echo "image.sh: building $image from $base${revision:+ at $revision}" >&2
if command -v buildah >/dev/null; then
    buildah bud "${args[@]}" "$root" >&2
else
    podman build "${args[@]}" "$root" >&2
fi
echo "$image"
