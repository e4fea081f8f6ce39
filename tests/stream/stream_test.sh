#!/usr/bin/env bash
# The CLI reading inputs a piece at a time (cli/input/input.c, document/stream.h), one ctest per case
# (tests/stream.cmake):  stream_test.sh CASE GPUADMIT
# Asserts what a piecewise reading must keep (the verdicts and their order, stdin from a pipe, a List whose
# kind comes after its items) and what it changes on purpose (docs/decisions.md, "Reading inputs a piece at a
# time"): an item or document that cannot be read no longer hides the others.
set -uo pipefail
case_name="$1"
gpuadmit="$2"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
failures=0

fail() {
    echo "FAIL: $*" >&2
    failures=$((failures + 1))
}

# run CODE CMD...: stdout to $tmp/out, stderr to $tmp/err, checks the exit code.
run() {
    local want="$1"
    shift
    "$@" >"$tmp/out" 2>"$tmp/err"
    local got=$?
    [ "$got" -eq "$want" ] || fail "exit $got, want $want: $* ($(head -c 300 "$tmp/err"))"
}

has() { grep -Eq -- "$2" "$1" || fail "$(basename "$1") lacks /$2/: $(head -c 400 "$1")"; }

pod() { # NAME GPU-CORE: a koordinator Pod as JSON (core without memory is denied)
    printf '{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "%s", "namespace": "t"}, "spec": {"containers": [{"name": "c", "resources": {"limits": {"koordinator.sh/gpu-core": "%s", "koordinator.sh/gpu-memory-ratio": "%s"}}}]}}' "$1" "$2" "$2"
}

# A List of N Pods, kubectl's key order (kind after items).
list() {
    printf '{"apiVersion": "v1", "items": [\n'
    for i in $(seq 1 "$1"); do
        [ "$i" -gt 1 ] && printf ',\n'
        pod "p$i" 50
    done
    printf '\n], "kind": "List", "metadata": {"resourceVersion": ""}}\n'
}

case_list() {
    list 300 >"$tmp/list.json"
    run 0 "$gpuadmit" validate "$tmp/list.json"
    has "$tmp/out" "^300 objects: 300 allowed, 0 denied"
    [ "$(head -1 "$tmp/out")" = "$tmp/list.json Pod/t/p1: allowed (mutated: inject-gpu-shared)" ] || fail "first line: $(head -1 "$tmp/out")"
    [ "$(sed -n 300p "$tmp/out")" = "$tmp/list.json Pod/t/p300: allowed (mutated: inject-gpu-shared)" ] || fail "order"
    # the same from a pipe (read twice: stdin is copied first), and -o json is one array in order
    list 300 | run 0 "$gpuadmit" validate -o json -
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert [e["name"] for e in d]==["p%d"%i for i in range(1,301)], d[:2]' "$tmp/out" ||
        fail "-o json of a piped List"
    # an object with items that is not a List is one object, as before
    printf '{"items": [%s], "kind": "Foo", "metadata": {"name": "f"}}' "$(pod a 50)" >"$tmp/foo.json"
    run 0 "$gpuadmit" validate "$tmp/foo.json"
    has "$tmp/out" "Foo/f: allowed"
    has "$tmp/out" "^1 object: "
    # mutate -o json prints each object as it comes; the output is still one List
    list 3 | run 0 "$gpuadmit" mutate -o json -
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["kind"]=="List" and len(d["items"])==3' "$tmp/out" ||
        fail "mutate -o json of 3 objects"
}

case_faults() {
    # An item that cannot be decoded is reported by its index; the other items are judged.
    printf '{"kind": "List", "items": [%s, {"kind": "Pod", "spec": {"containers": 7}}, %s]}' "$(pod a 50)" "$(pod b 50)" >"$tmp/bad-item.json"
    run 2 "$gpuadmit" validate "$tmp/bad-item.json"
    has "$tmp/err" "bad-item.json:1:[0-9]+: items\[1\]\.spec\.containers: must be a list"
    has "$tmp/out" "^2 objects: 2 allowed, 0 denied; 1 document in 1 file could not be read"
    # JSON that does not parse: the first fault, nothing judged (it is read whole, as before)
    printf '{"kind": "List", "items": [%s,\n {"kind": "Pod", "a": [}]}' "$(pod a 50)" >"$tmp/syntax.json"
    run 2 "$gpuadmit" validate "$tmp/syntax.json"
    has "$tmp/err" "syntax.json:2:[0-9]+: "
    has "$tmp/out" "^0 objects"
    # A YAML stream: the documents before a broken one are judged, the fault is reported with its line.
    printf 'kind: Pod\nmetadata: {name: a}\nspec: {containers: []}\n---\nkind: Pod\nmetadata: {name: b}\nspec: {containers: []}\n---\nkind: [\n' >"$tmp/broken.yaml"
    run 2 "$gpuadmit" validate "$tmp/broken.yaml"
    has "$tmp/out" "broken.yaml#2 Pod/b: allowed"
    has "$tmp/err" "broken.yaml:(9|10):"
}

case_yaml() {
    for i in 1 2 3; do printf -- '---\n# pod %s\n%s\n' "$i" "$(pod "y$i" 50)"; done >"$tmp/three.yaml"
    printf -- '---\n---\nkind: Pod\nmetadata: {name: only}\nspec: {containers: []}\n' >"$tmp/one.yaml"
    run 0 "$gpuadmit" validate "$tmp/three.yaml" "$tmp/one.yaml"
    has "$tmp/out" "three.yaml#3 Pod/t/y3: allowed"
    has "$tmp/out" "one.yaml Pod/only: allowed" # one document: named by the file alone
    cat "$tmp/three.yaml" | run 0 "$gpuadmit" validate -
    has "$tmp/out" "^-#2 Pod/t/y2: allowed"
}

"case_$case_name"
if [ "$failures" -ne 0 ]; then
    echo "$case_name: $failures failure(s)" >&2
    exit 1
fi
echo "$case_name: ok"
