#!/usr/bin/env bash
# The one list of Debian 12 packages gpuadmit needs to build, test and benchmark, and the one function that
# installs them. Sourced by run-examples.sh and test.sh; run it directly to install only.
#
# Add a package here (with the reason) rather than in any other script.
GPA_PACKAGES=(
    cmake pkg-config gcc make          # build
    libjansson-dev libyaml-dev         # JSON output, YAML input
    check                              # unit tests (libcheck)
    libssl-dev libh2o-evloop-dev       # webhook: TLS server, certificates
    libjsmn-dev                        # JSON tokenizer
    golang-go golang-github-evanphx-json-patch-dev  # test suites: the Go reference JSON Patch
    golang-github-masterminds-sprig-dev golang-gopkg-yaml.v3-dev  # chart test: renders templates as Helm does
    python3 python3-jsonpatch python3-yaml  # CLI tests: JSON schema checks, patch cross-check, YAML to JSON
    nghttp2-client wrk curl ca-certificates openssl  # webhook end-to-end tests and benchmarks
    clang clang-format libclang-rt-14-dev  # format check; fuzz drivers (libFuzzer runtime)
)

gpa_install_deps() {
    local sudo=""
    if [ "$(id -u)" -ne 0 ]; then
        sudo="sudo"
    fi
    # Skip apt entirely when everything is already there (a second run, or a prepared machine).
    if dpkg -s "${GPA_PACKAGES[@]}" >/dev/null 2>&1; then
        return 0
    fi
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update
    $sudo apt-get install -y --no-install-recommends "${GPA_PACKAGES[@]}"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    set -euo pipefail
    gpa_install_deps
fi
