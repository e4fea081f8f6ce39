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
)

# What the tests and benchmarks add (scripts/test.sh, CI).
GPA_TEST_PACKAGES=(
    check                                # unit tests (libcheck)
    golang-go golang-github-evanphx-json-patch-dev  # test suites: the Go reference JSON Patch
    golang-github-masterminds-sprig-dev golang-gopkg-yaml.v3-dev  # chart test: renders templates as Helm does
    python3 python3-jsonpatch python3-yaml  # CLI tests: JSON schema checks, patch cross-check, YAML to JSON
    nghttp2-client wrk ca-certificates openssl  # webhook end-to-end tests and benchmarks (h2load, wrk)
    clang clang-format libclang-rt-14-dev  # format check; the clang build; fuzz drivers (libFuzzer runtime)
    valgrind                             # memcheck of the unit and CLI tests (tests/valgrind/memcheck.py)
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

gpa_install_test_deps() {
    gpa_apt_install "${GPA_TEST_PACKAGES[@]}"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    set -euo pipefail
    gpa_install_build_deps
    if [ "${1:-}" != "--build" ]; then
        gpa_install_test_deps
    fi
fi
