#!/usr/bin/env bash
# On a fresh Debian 12 machine: install, build, and run the whole ctest suite; then the same again in a second
# build directory under AddressSanitizer + UndefinedBehaviorSanitizer (-DGPA_SANITIZE=ON).
#   scripts/test.sh                     (run as root, or with sudo available)
# Environment: GPA_BUILD_DIR (default build-test), GPA_ASAN_BUILD_DIR (default build-test-asan),
# GPA_SKIP_ASAN=1 to run only the plain build.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
. "$root/scripts/deps.sh"
gpa_install_deps

jobs="$(nproc)"
run_suite() { # build-dir, extra cmake args...
    local dir="$1"
    shift
    cmake -S "$root" -B "$dir" "$@"
    cmake --build "$dir" -j"$jobs"
    ctest --test-dir "$dir" --output-on-failure -j"$jobs"
}

echo "== build and test: $root"
run_suite "${GPA_BUILD_DIR:-$root/build-test}" -DCMAKE_BUILD_TYPE=RelWithDebInfo
if [ "${GPA_SKIP_ASAN:-0}" != 1 ]; then
    echo "== build and test under ASan+UBSan"
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
        run_suite "${GPA_ASAN_BUILD_DIR:-$root/build-test-asan}" -DCMAKE_BUILD_TYPE=Debug -DGPA_SANITIZE=ON
fi
echo "== all tests passed"
