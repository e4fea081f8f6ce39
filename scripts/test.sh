#!/usr/bin/env bash
# On a fresh Debian 12 machine: install, build, and run the whole ctest suite; then the same again in a second
# build directory under AddressSanitizer + UndefinedBehaviorSanitizer (-DGPA_SANITIZE=ON); then a Release (-O3)
# build and a clang build, each running the unit tests. Every build treats warnings as errors (-DGPA_WERROR=ON).
#   scripts/test.sh                     (run as root, or with sudo available)
# Environment: GPA_BUILD_DIR (default build-test), GPA_ASAN_BUILD_DIR (default build-test-asan),
# GPA_RELEASE_BUILD_DIR (default build-test-release), GPA_CLANG_BUILD_DIR (default build-test-clang),
# GPA_SKIP_ASAN=1 to run only the plain build, GPA_SKIP_FUZZ=1 to skip the fuzz drivers' seed replay,
# GPA_SKIP_OTHER_BUILDS=1 to skip the Release and clang builds, GPA_SKIP_VALGRIND=1 to skip the memcheck run
# (GPA_VALGRIND_BUILD_DIR, default build-test-valgrind), GPA_SKIP_IMAGE=1 to skip the image test (tests/image.cmake).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
. "$root/scripts/deps.sh"
gpa_install_build_deps
gpa_install_test_deps
if [ "${GPA_SKIP_IMAGE:-0}" != 1 ]; then
    gpa_install_image_deps
fi

jobs="$(nproc)"
build() { # build-dir, extra cmake args...
    local dir="$1"
    shift
    cmake -S "$root" -B "$dir" -DGPA_WERROR=ON "$@"
    cmake --build "$dir" -j"$jobs"
}
run_suite() { # build-dir, extra cmake args...
    build "$@"
    ctest --test-dir "$1" --output-on-failure -j"$jobs"
}

echo "== build and test: $root"
# The image test (label image: scripts/image.sh builds the Dockerfile, the test runs it as the chart does) runs
# in this first suite only: once per run.
image_test=ON
[ "${GPA_SKIP_IMAGE:-0}" != 1 ] || image_test=OFF
run_suite "${GPA_BUILD_DIR:-$root/build-test}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPA_IMAGE_TEST="$image_test"
if [ "${GPA_SKIP_ASAN:-0}" != 1 ]; then
    echo "== build and test under ASan+UBSan"
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
        run_suite "${GPA_ASAN_BUILD_DIR:-$root/build-test-asan}" -DCMAKE_BUILD_TYPE=Debug -DGPA_SANITIZE=ON
fi
if [ "${GPA_SKIP_OTHER_BUILDS:-0}" != 1 ]; then
    # What users build (Release, -O3: other warnings than -O2) and the other compiler: no warning anywhere.
    echo "== Release build (-O3), unit tests"
    release="${GPA_RELEASE_BUILD_DIR:-$root/build-test-release}"
    build "$release" -DCMAKE_BUILD_TYPE=Release
    ctest --test-dir "$release" --output-on-failure -j"$jobs" -L unit
    echo "== clang build, unit tests"
    clang_dir="${GPA_CLANG_BUILD_DIR:-$root/build-test-clang}"
    CC=clang build "$clang_dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo
    ctest --test-dir "$clang_dir" --output-on-failure -j"$jobs" -L unit
fi
if [ "${GPA_SKIP_FUZZ:-0}" != 1 ]; then
    # The libFuzzer drivers, built with clang, replay their seeds (tests/fuzz.cmake): a crash once found and
    # added as a seed stays fixed. Fuzzing itself is run by hand (commands in tests/fuzz.cmake).
    echo "== fuzz drivers: replay the seeds"
    fuzz="${GPA_FUZZ_BUILD_DIR:-$root/build-test-fuzz}"
    CC=clang cmake -S "$root" -B "$fuzz" -DCMAKE_BUILD_TYPE=Debug -DGPA_FUZZ=ON -DGPA_SANITIZE=ON -DGPA_WERROR=ON
    cmake --build "$fuzz" -j"$jobs" --target fuzz
    ctest --test-dir "$fuzz" --output-on-failure -L fuzz
fi
if [ "${GPA_SKIP_VALGRIND:-0}" != 1 ]; then
    # The unit tests, the CLI tests, the example suites and the case directories under Valgrind memcheck, in a build
    # of their own without sanitizers: zero errors, zero definite or indirect leaks (tests/valgrind/memcheck.py;
    # docs/testing.md#valgrind says what is left out and why).
    echo "== unit and CLI tests under valgrind memcheck"
    valgrind_dir="${GPA_VALGRIND_BUILD_DIR:-$root/build-test-valgrind}"
    build "$valgrind_dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo
    started=$SECONDS
    python3 "$root/tests/valgrind/memcheck.py" "$valgrind_dir" -j"$jobs"
    echo "== valgrind memcheck took $((SECONDS - started)) s"
fi
echo "== all tests passed"
