#!/usr/bin/env bash
# On a fresh Debian 12 machine: install what gpuadmit needs to build and run (not the tests), build it, and
# check the bundled examples.
#   scripts/run-examples.sh            (run as root, or with sudo available)
# The good examples are admitted, the bad ones denied with a message naming the container, rule and fix, so
# `gpuadmit validate` exits 1 over the whole folder: that is the expected outcome, not a failure of the script.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
. "$root/scripts/deps.sh"
gpa_install_build_deps # what building and running need; the tests' packages are scripts/test.sh's

build="${GPA_BUILD_DIR:-$root/build}"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBUILD_TESTING=OFF
cmake --build "$build" -j"$(nproc)"

gpuadmit="$build/gpuadmit"
cd "$root"

# validate_denied PATH: `gpuadmit validate PATH` must deny (exit 1); any other exit code stops the script.
validate_denied() {
    local rc=0
    "$gpuadmit" validate "$1" || rc=$?
    if [ "$rc" -ne 1 ]; then
        echo "unexpected exit code $rc from validate $1" >&2
        exit 1
    fi
}
echo
echo "== gpuadmit validate examples/good (every object admitted; exit 0 expected)"
"$gpuadmit" validate examples/good
echo
echo "== gpuadmit validate examples/bad (every object denied; exit 1 expected)"
validate_denied examples/bad
echo
echo "== gpuadmit mutate -o patch examples/good/koordinator-pod.yaml (what the mutating webhook adds)"
"$gpuadmit" mutate -o patch examples/good/koordinator-pod.yaml
echo
echo "== gpuadmit validate examples/bad/dra-opaque-config.yaml (DRA: an NVIDIA configuration the driver refuses; exit 1 expected)"
validate_denied examples/bad/dra-opaque-config.yaml
echo
echo "Done: the good examples were admitted and the bad ones denied. See README.md for what each one shows."
