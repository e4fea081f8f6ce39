#!/usr/bin/env bash
# Every symbol a gpuadmit library defines for others starts with gpa_ (jansson's check-exports): a helper that
# forgot `static` would otherwise collide with a library's symbol or another module's at link time.
# Symbols the sanitizers add (__odr_asan.*, __asan_*) are theirs, not ours.
# usage: check_exports.sh LIB.a...
set -euo pipefail
bad=0
for lib in "$@"; do
    leaked=$(nm -g --defined-only "$lib" | awk 'NF == 3 && $3 !~ /^(gpa_|__odr_asan|__asan_|__ubsan_|__sancov_)/ { print $3 }' | sort -u)
    if [ -n "$leaked" ]; then
        echo "$lib exports symbols without the gpa_ prefix (make them static or rename them):"
        echo "$leaked" | sed 's/^/  /'
        bad=1
    fi
done
exit $bad
