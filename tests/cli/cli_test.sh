#!/usr/bin/env bash
# CLI tests, one ctest per case (tests/cli.cmake):  cli_test.sh CASE GPUADMIT SOURCE_DIR
# Each case runs the built binary on tests/cli/data and examples/ and asserts exit codes, stdout and stderr.
set -uo pipefail
case_name="$1"
gpuadmit="$2"
src="$3"
data="$src/tests/cli/data"
check="python3 $src/tests/cli/check_report.py"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
failures=0

fail() {
    echo "FAIL: $*" >&2
    failures=$((failures + 1))
}

# expect_exit CODE CMD...: runs CMD, stdout to $tmp/out, stderr to $tmp/err, and checks the exit code.
expect_exit() {
    local want="$1"
    shift
    "$@" >"$tmp/out" 2>"$tmp/err"
    local got=$?
    if [ "$got" -ne "$want" ]; then
        fail "exit $got, want $want: $*"
        sed 's/^/  stdout: /' "$tmp/out" | head -20 >&2
        sed 's/^/  stderr: /' "$tmp/err" | head -20 >&2
    fi
}

expect_grep() { # FILE PATTERN (extended regex)
    grep -Eq -- "$2" "$1" || fail "$(basename "$1") lacks /$2/: $(head -c 600 "$1")"
}

expect_no_grep() {
    ! grep -Eq -- "$2" "$1" || fail "$(basename "$1") has /$2/"
}

case_exit_codes() {
    expect_exit 0 "$gpuadmit" validate "$data/admitted.yaml"
    expect_grep "$tmp/out" "admitted.yaml Pod/t/admitted: allowed"
    expect_exit 1 "$gpuadmit" validate "$data/denied.yaml"
    expect_grep "$tmp/out" "denied.yaml Pod/t/denied container \"main\": core-without-memory: "
    expect_exit 2 "$gpuadmit" validate "$data/broken.yaml"
    expect_exit 2 "$gpuadmit" validate
    expect_exit 2 "$gpuadmit" validate -o xml "$data/admitted.yaml"
    expect_exit 2 "$gpuadmit" validate --no-such-option "$data/admitted.yaml"
    expect_exit 2 "$gpuadmit" validate --config "$tmp/missing-config.yaml" "$data/admitted.yaml"
    expect_exit 2 "$gpuadmit"
    expect_exit 2 "$gpuadmit" frobnicate
    expect_grep "$tmp/err" "unknown verb"
    expect_exit 0 "$gpuadmit" --help
    expect_grep "$tmp/out" "validate"
    expect_exit 0 "$gpuadmit" version
    expect_grep "$tmp/out" "^gpuadmit [0-9]"
    expect_exit 0 "$gpuadmit" --version
    for verb in validate mutate review; do
        expect_exit 0 "$gpuadmit" "$verb" --help
        expect_grep "$tmp/out" "usage: gpuadmit $verb"
    done
    expect_exit 2 "$gpuadmit" mutate -o toml "$data/admitted.yaml"
    expect_exit 2 "$gpuadmit" review "$data/admitted.yaml"
    expect_exit 2 "$gpuadmit" review --webhook both "$src/examples/good/admissionreview-v1.json"
}

case_unreadable() {
    # A file that does not parse: file:line on stderr, and the files after it are still checked.
    expect_exit 2 "$gpuadmit" validate "$data/broken.yaml" "$data/admitted.yaml" "$data/denied.yaml"
    expect_grep "$tmp/err" "broken.yaml:[0-9]+"
    expect_grep "$tmp/out" "admitted.yaml Pod/t/admitted: allowed"
    expect_grep "$tmp/out" "denied.yaml Pod/t/denied: denied"
    expect_exit 2 "$gpuadmit" validate "$data/admitted.yaml" "$data/broken.json"
    expect_grep "$tmp/err" "broken.json:3"
    expect_grep "$tmp/out" "Pod/t/admitted: allowed"
    expect_exit 2 "$gpuadmit" validate "$tmp/does-not-exist.yaml" "$data/admitted.yaml"
    expect_grep "$tmp/err" "does-not-exist.yaml: "
    expect_grep "$tmp/out" "Pod/t/admitted: allowed"
    expect_grep "$tmp/out" "; 1 file could not be read \\(see stderr\\)$"
    # Documents that cannot be read (a mis-indented Pod, containers not a list): file:line and path on stderr, how
    # many in the summary; the readable document is still judged, a generateName shown as its pattern.
    expect_exit 2 "$gpuadmit" validate "$data/unreadable-documents.yaml" "$data/admitted.yaml"
    expect_grep "$tmp/err" "unreadable-documents.yaml:[0-9]+:[0-9]+: spec.containers: missing"
    expect_grep "$tmp/err" "unreadable-documents.yaml:18:[0-9]+: spec.containers: must be a list"
    expect_grep "$tmp/out" "unreadable-documents.yaml#3 Pod/t/gen-\\*: allowed"
    expect_grep "$tmp/out" "^2 objects: 2 allowed, 0 denied; 2 documents in 1 file could not be read \\(see stderr\\)$"
    expect_exit 2 "$gpuadmit" validate "$data/unreadable-documents.yaml" "$data/broken.yaml"
    expect_grep "$tmp/out" "; 1 file, and 2 documents in 1 other file, could not be read"
    # Bad shapes where gpuadmit does not look: admitted, nothing on stderr.
    expect_exit 0 "$gpuadmit" validate "$data/irrelevant-shapes.yaml"
    [ ! -s "$tmp/err" ] || fail "irrelevant shapes reported: $(head -c 400 "$tmp/err")"
    expect_grep "$tmp/out" "Deployment/t/not-apps: allowed"
    expect_exit 2 "$gpuadmit" validate -o json "$data/broken.yaml" "$data/admitted.yaml"
    $check schema "$tmp/out" >/dev/null || fail "-o json after an unreadable file is not a valid report"
    # Garbage bytes never crash it.
    head -c 4096 /dev/urandom >"$tmp/garbage.json"
    expect_exit 2 "$gpuadmit" validate "$tmp/garbage.json"
    printf '{"kind": "Pod", "spec": {"containers": 7}}' >"$tmp/shape.json"
    expect_exit 2 "$gpuadmit" validate "$tmp/shape.json"
    expect_grep "$tmp/err" "shape.json"
    # An AdmissionReview whose CREATE or UPDATE carries no object is unreadable (the webhook answers 400), not
    # "0 objects, exit 0"; a DELETE review has nothing to judge and passes.
    printf '{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",\n "request": {"uid": "1", "operation": "CREATE"}}' >"$tmp/ar-no-object.json"
    for verb in validate mutate; do
        expect_exit 2 "$gpuadmit" "$verb" "$tmp/ar-no-object.json"
        expect_grep "$tmp/err" "ar-no-object.json:2:[0-9]+: request.object: "
    done
    printf '{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview"}' >"$tmp/ar-no-request.json"
    expect_exit 2 "$gpuadmit" validate "$tmp/ar-no-request.json"
    expect_grep "$tmp/err" "ar-no-request.json:1:[0-9]+: request: "
    printf '{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": {"uid": "1", "operation": "DELETE"}}' >"$tmp/ar-delete.json"
    expect_exit 0 "$gpuadmit" validate "$tmp/ar-delete.json"
}

case_directories() {
    expect_exit 1 "$gpuadmit" validate "$data/tree"
    grep -Eo '^[^ ]+' "$tmp/out" | grep -v '^[0-9]' | sed "s|$data/tree/||" >"$tmp/order"
    printf 'a/b/one.yaml\na/zz.yaml\nc/three.json\nc/two.yml\n' >"$tmp/want"
    # One status line per object; findings come before it, so keep the last line per source.
    uniq "$tmp/order" >"$tmp/got"
    diff -u "$tmp/want" "$tmp/got" >&2 || fail "directory walk order"
    expect_no_grep "$tmp/out" "readme.txt"
    expect_grep "$tmp/out" "^4 objects: 3 allowed, 1 denied"
    # A directory given with a trailing slash, and mixed with files.
    expect_exit 0 "$gpuadmit" validate "$data/tree/c/" "$data/admitted.yaml"
    expect_grep "$tmp/out" "^3 objects: 3 allowed, 0 denied"
    # Hidden manifests are read (kubectl apply -f DIR applies them); a symlink loop is reported once, and
    # nothing under it is read twice.
    mkdir -p "$tmp/dir/sub"
    cp "$data/admitted.yaml" "$tmp/dir/ok.yaml"
    cp "$data/denied.yaml" "$tmp/dir/.hidden.yaml"
    ln -s .. "$tmp/dir/sub/loop"
    expect_exit 2 "$gpuadmit" validate "$tmp/dir"
    expect_grep "$tmp/out" "/\.hidden\.yaml Pod/t/denied: denied"
    expect_grep "$tmp/out" "^2 objects: 1 allowed, 1 denied"
    expect_grep "$tmp/err" "sub/loop: symlink loop"
}

case_stdin() {
    expect_exit 0 "$gpuadmit" validate - <"$data/admitted.yaml"
    expect_grep "$tmp/out" "^- Pod/t/admitted: allowed"
    # stdin can be read once: given twice is an error, and the object is still checked once
    expect_exit 2 "$gpuadmit" validate - - <"$data/denied.yaml"
    expect_grep "$tmp/err" "stdin given more than once"
    expect_grep "$tmp/out" "^1 object: 0 allowed, 1 denied"
    expect_exit 1 "$gpuadmit" validate - <"$data/denied.yaml"
    expect_exit 2 "$gpuadmit" validate - <"$data/broken.yaml"
    expect_grep "$tmp/err" "^-:[0-9]+"
    expect_exit 1 "$gpuadmit" validate -o json - <"$data/denied.yaml"
    $check schema "$tmp/out" >/dev/null || fail "stdin -o json"
    expect_exit 0 "$gpuadmit" review --webhook validate - <"$src/examples/good/admissionreview-v1.json"
    expect_grep "$tmp/out" '"uid": ?"3f0e5c1a-6d1e-4a36-9b61-0f2f0c7a9d11"'
}

case_json_schema() {
    expect_exit 0 "$gpuadmit" validate -o json "$src/examples/good"
    $check schema "$tmp/out" || fail "schema of examples/good"
    expect_exit 1 "$gpuadmit" validate -o json "$src/examples/bad"
    $check schema "$tmp/out" || fail "schema of examples/bad"
    expect_exit 1 "$gpuadmit" validate -o json --no-mutate "$src/examples/good/koordinator-pod.yaml"
    $check expect "$tmp/out" shared-required || fail "--no-mutate shows shared-required"
    # --no-mutate is the object as stored: a Ray worker on a share with no count of its own advertises 0 GPUs
    # there (ray-num-gpus), though the mutation would write the count on CREATE
    sed 's/koordinator.sh\/gpu-memory: 12Gi/koordinator.sh\/gpu-memory: 12Gi\n              koordinator.sh\/gpu.shared: "1"/' \
        "$src/examples/good/raycluster.yaml" >"$tmp/ray-stored.yaml"
    expect_exit 0 "$gpuadmit" validate -o json "$tmp/ray-stored.yaml"
    expect_exit 1 "$gpuadmit" validate -o json --no-mutate "$tmp/ray-stored.yaml"
    $check expect "$tmp/out" ray-num-gpus || fail "--no-mutate shows ray-num-gpus as stored"
    expect_grep "$tmp/out" 'advertises 0'
    expect_exit 0 "$gpuadmit" validate -o json "$data/tree/c/two.yml"
    $check schema "$tmp/out" || fail "schema of one object"
}

# Every YAML example converted to JSON (several documents become one List) gives the same verdicts.
case_yaml_json_same() {
    local files=("$src"/examples/good/*.yaml "$src"/examples/bad/*.yaml "$data"/admitted.yaml "$data"/denied.yaml)
    mkdir -p "$tmp/conv"
    python3 -c '
import json, sys, yaml
out_dir = sys.argv[1]
for i, path in enumerate(sys.argv[2:]):
    docs = [d for d in yaml.safe_load_all(open(path)) if d is not None]
    out = docs[0] if len(docs) == 1 else {"apiVersion": "v1", "kind": "List", "items": docs}
    json.dump(out, open("%s/%d.json" % (out_dir, i), "w"), indent=1)' "$tmp/conv" "${files[@]}" || fail "cannot convert"
    local checks=() i=0
    for f in "${files[@]}"; do
        "$gpuadmit" validate -o json "$f" >"$tmp/conv/$i.yaml.out" 2>"$tmp/err"
        local a=$?
        "$gpuadmit" validate -o json "$tmp/conv/$i.json" >"$tmp/conv/$i.json.out" 2>>"$tmp/err"
        local b=$?
        [ "$a" -eq "$b" ] || fail "$f: exit $a as YAML, $b as JSON"
        checks+=(same "$tmp/conv/$i.yaml.out" "$tmp/conv/$i.json.out")
        i=$((i + 1))
    done
    $check many "${checks[@]}" >/dev/null || fail "YAML and JSON verdicts differ (above)"
    [ "$i" -ge 10 ] || fail "only $i files compared"
}

# examples/good is admitted; examples/bad/<rule>[.variant].(yaml|json) is denied by <rule>.
case_examples() {
    expect_exit 0 "$gpuadmit" validate "$src/examples/good"
    expect_no_grep "$tmp/out" ": denied"
    local checks=() i=0
    for f in "$src"/examples/good/*; do
        "$gpuadmit" validate -o json "$f" >"$tmp/good$i.out" 2>"$tmp/err" || fail "$f: exit $?, want 0"
        checks+=(expect "$tmp/good$i.out" allowed)
        i=$((i + 1))
    done
    local n=0
    for f in "$src"/examples/bad/*.yaml "$src"/examples/bad/*.json; do
        local rule rc
        rule="$(basename "$f")"
        rule="${rule%%.*}"
        "$gpuadmit" validate -o json "$f" >"$tmp/bad$n.out" 2>"$tmp/err"
        rc=$?
        [ "$rc" -eq 1 ] || fail "$f: exit $rc, want 1"
        checks+=(expect "$tmp/bad$n.out" "$rule")
        n=$((n + 1))
    done
    $check many "${checks[@]}" >/dev/null || fail "an example's verdict is not the expected one (above)"
    [ "$n" -ge 15 ] || fail "only $n bad examples"
    expect_exit 1 "$gpuadmit" validate "$src/examples"
}

case_mutate() {
    local pod="$src/examples/good/koordinator-pod.yaml"
    expect_exit 0 "$gpuadmit" mutate -o patch "$pod"
    expect_grep "$tmp/out" 'koordinator.sh~1gpu.shared'
    expect_exit 0 "$gpuadmit" mutate -o yaml "$pod"
    cp "$tmp/out" "$tmp/mutated.yaml"
    expect_grep "$tmp/mutated.yaml" "gpu.shared"
    # The mutated object is admitted as written, and mutating it again changes nothing (reinvocation-safe).
    expect_exit 0 "$gpuadmit" validate --no-mutate "$tmp/mutated.yaml"
    expect_exit 0 "$gpuadmit" mutate -o patch "$tmp/mutated.yaml"
    [ "$(tr -d ' \n' <"$tmp/out")" = "[]" ] || fail "second mutation is not empty: $(cat "$tmp/out")"
    # The patch applied to the input (python3-jsonpatch) gives what -o json prints.
    python3 -c 'import json,sys,yaml; json.dump(yaml.safe_load(open(sys.argv[1])), open(sys.argv[2],"w"))' "$pod" "$tmp/in.json"
    expect_exit 0 "$gpuadmit" mutate -o patch "$tmp/in.json"
    cp "$tmp/out" "$tmp/patch.json"
    expect_exit 0 "$gpuadmit" mutate -o json "$tmp/in.json"
    python3 -c '
import json, sys, jsonpatch
doc = json.load(open(sys.argv[1])); patch = json.load(open(sys.argv[2])); want = json.load(open(sys.argv[3]))
got = jsonpatch.apply_patch(doc, patch)
sys.exit(0 if got == want else "patched input differs from mutate -o json")' "$tmp/in.json" "$tmp/patch.json" "$tmp/out" ||
        fail "patch and mutated object disagree"
    # Several objects with -o json make one List; an object of another kind comes back untouched.
    expect_exit 0 "$gpuadmit" mutate -o json "$src/examples/good/multi-document.yaml"
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["kind"]=="List" and len(d["items"])==3' "$tmp/out" ||
        fail "mutate -o json of several objects is not a List of 3"
    expect_exit 2 "$gpuadmit" mutate "$data/broken.yaml"
    # ray-gpu-memory with --inventory: a share by ratio advertises bytes where every card it can land on has one
    # memory (mutate, validate and review alike), and nothing where the cards differ or without an inventory.
    local ray="$src/examples/tests/ray/gpu-memory-ratio" bytes='gpu_memory\\?":42949672960'
    expect_exit 0 "$gpuadmit" mutate -o patch --config "$ray/config.yaml" --inventory "$ray/all-80gi/inventory.yaml" "$ray/clusters.yaml"
    [ "$(grep -Ec "$bytes" "$tmp/out")" = 2 ] || fail "mutate --inventory: both clusters get gpu_memory: $(cat "$tmp/out")"
    expect_exit 0 "$gpuadmit" mutate -o patch --config "$ray/config.yaml" --inventory "$ray/mixed/inventory.yaml" "$ray/clusters.yaml"
    [ "$(grep -Ec "$bytes" "$tmp/out")" = 1 ] || fail "mutate --inventory: only the nodeSelector cluster gets gpu_memory: $(cat "$tmp/out")"
    expect_exit 0 "$gpuadmit" mutate -o patch --config "$ray/config.yaml" "$ray/clusters.yaml"
    expect_no_grep "$tmp/out" gpu_memory
    expect_exit 0 "$gpuadmit" validate --config "$ray/config.yaml" --inventory "$ray/all-80gi/inventory.yaml" "$ray/clusters.yaml"
    expect_grep "$tmp/out" "RayCluster/ray/raycluster-kuberay: allowed \(mutated: ray-num-gpus, ray-gpu-memory\)"
    python3 -c 'import json,sys,yaml; json.dump(yaml.safe_load(open(sys.argv[1])), open(sys.argv[2],"w"))' "$ray/review.yaml" "$tmp/review.json"
    expect_exit 0 "$gpuadmit" review --webhook mutate --config "$ray/config.yaml" --inventory "$ray/all-80gi/inventory.yaml" "$tmp/review.json"
    python3 -c '
import base64, json, sys
patch = json.loads(base64.b64decode(json.load(open(sys.argv[1]))["response"]["patch"]))
assert {"op": "add", "path": "/spec/workerGroupSpecs/0/rayStartParams/resources", "value": "\x27{\"gpu_memory\":42949672960}\x27"} in patch, patch' \
        "$tmp/out" || fail "review --webhook mutate --inventory: gpu_memory in the patch"
}

case_review() {
    local ar="$src/examples/good/admissionreview-v1.json"
    expect_exit 0 "$gpuadmit" review --webhook validate "$ar"
    python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
assert r["apiVersion"] == "admission.k8s.io/v1" and r["kind"] == "AdmissionReview", r
assert r["response"]["uid"] == "3f0e5c1a-6d1e-4a36-9b61-0f2f0c7a9d11", r
assert "patch" not in r["response"], r' "$tmp/out" || fail "validating review response"
    expect_exit 0 "$gpuadmit" review --webhook mutate "$ar"
    python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))["response"]
assert r["allowed"] is True, r
assert ("patch" in r) == ("patchType" in r), r' "$tmp/out" || fail "mutating review response"
    expect_exit 0 "$gpuadmit" review --webhook validate "$src/examples/good/admissionreview-v1beta1.json"
    expect_grep "$tmp/out" '"admission.k8s.io/v1beta1"'
    expect_exit 2 "$gpuadmit" review --webhook validate "$data/broken.json"
    [ -s "$tmp/err" ] || fail "no reason on stderr for an unreadable review"
    expect_exit 2 "$gpuadmit" review --webhook validate "$data/admitted.yaml"
    # The request's namespace is where the object is stored: an object claiming kube-system (excluded) is
    # still judged, by validate as by review.
    expect_exit 1 "$gpuadmit" validate "$data/review-namespace-claim.json"
    expect_grep "$tmp/out" "Pod/team-a/p container \"c\": core-without-memory"
    expect_exit 0 "$gpuadmit" review --webhook validate "$data/review-namespace-claim.json"
    expect_grep "$tmp/out" '"allowed":false'
    # An object with a bad shape where gpuadmit reads: the webhook denies with code 400 and the path (HTTP 200,
    # so review exits 0); validate reports it as unreadable input with the same path.
    for hook in validate mutate; do
        expect_exit 0 "$gpuadmit" review --webhook "$hook" "$data/review-unreadable.json"
        expect_grep "$tmp/out" '"allowed":false,"status":\{"code":400,"reason":"BadRequest","message":"cannot read request.object.spec.containers: must be a list'
    done
    expect_exit 2 "$gpuadmit" validate "$data/review-unreadable.json"
    expect_grep "$tmp/err" "review-unreadable.json:13:[0-9]+: request.object.spec.containers: must be a list"
    # kubectl replace of an admitted Deployment: the stored object carries the gpu.shared the mutating webhook
    # added on CREATE, the one sent again does not. An UPDATE is judged as the mutations would leave it.
    local replace="$src/examples/tests/update/review-update-replace.json"
    expect_exit 0 "$gpuadmit" review --webhook validate "$replace"
    expect_grep "$tmp/out" '"allowed":true'
    expect_no_grep "$tmp/out" 'shared-required'
    expect_exit 0 "$gpuadmit" review --webhook mutate "$replace"
    expect_no_grep "$tmp/out" '"patch"'
}

# --config: a rule set to warn admits with a finding marked [warn]; a bad config is exit 2 with file:line.
# --inventory: enables the infeasible rule.
case_config_inventory() {
    local bad="$src/examples/bad/min-memory.yaml"
    printf 'rules:\n  min-memory: warn\n' >"$tmp/warn.yaml"
    expect_exit 0 "$gpuadmit" validate --config "$tmp/warn.yaml" "$bad"
    expect_grep "$tmp/out" "min-memory: .*\\[warn\\]$"
    expect_grep "$tmp/out" "Pod/ml/min-memory: allowed"
    expect_exit 0 "$gpuadmit" validate -o json --config "$tmp/warn.yaml" "$bad"
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); v=d[0]["violations"][0]; assert d[0]["allowed"] and v["action"]=="warn" and v["rule"]=="min-memory", d' "$tmp/out" ||
        fail "warn action in -o json"
    printf 'rules:\n  min-memory: off\n' >"$tmp/off.yaml"
    expect_exit 0 "$gpuadmit" validate --config "$tmp/off.yaml" "$bad"
    expect_no_grep "$tmp/out" "\"server\": min-memory:"
    printf 'minDeviceMemory: 256Mi\nrules:\n  no-such-rule: warn\n' >"$tmp/bad.yaml"
    expect_exit 2 "$gpuadmit" validate --config "$tmp/bad.yaml" "$bad"
    expect_grep "$tmp/err" "bad.yaml:3"
    printf 'namespaces:\n  exclude: [ml]\n' >"$tmp/exclude.yaml"
    expect_exit 0 "$gpuadmit" validate --config "$tmp/exclude.yaml" "$bad"
    # hami: HAMi's other keys are accepted, named once in a warning on stderr; its renamed names are read
    printf 'hami:\n  resourceMemoryName: nvidia.com/vgpu-memory\n  gpuCorePolicy: default\n  deviceMemoryScaling: 1\n' >"$tmp/hami.yaml"
    printf 'apiVersion: v1\nkind: Pod\nmetadata: {name: h, namespace: ml}\nspec:\n  containers:\n  - name: c\n    resources:\n      limits: {nvidia.com/gpu: "1", nvidia.com/vgpu-memory: "4"}\n' >"$tmp/hami-pod.yaml"
    expect_exit 1 "$gpuadmit" validate --config "$tmp/hami.yaml" "$tmp/hami-pod.yaml"
    expect_grep "$tmp/err" "^warning: .*hami.yaml:3:[0-9]+: hami: ignored \\(gpuadmit does not read them\\): gpuCorePolicy, deviceMemoryScaling$"
    [ "$(grep -c hami: "$tmp/err")" = 1 ] || fail "the ignored hami keys are named once"
    expect_grep "$tmp/out" "min-memory: nvidia.com/vgpu-memory: 4 is 4MiB per vGPU"
    local inv="$src/examples/inventory/compact.yaml" big="$src/examples/with-inventory/infeasible.yaml"
    if [ -f "$inv" ]; then
        expect_exit 0 "$gpuadmit" validate "$big"
        expect_exit 1 "$gpuadmit" validate --inventory "$inv" "$big"
        expect_grep "$tmp/out" "Pod/ml/big-model pod: infeasible: "
        expect_exit 0 "$gpuadmit" validate --inventory "$inv" "$src/examples/good/koordinator-deployment.yaml"
    fi
    expect_exit 2 "$gpuadmit" validate --inventory "$data/broken.yaml" "$big"
    expect_grep "$tmp/err" "broken.yaml:[0-9]+"
}

# Messages that name the fix (issue 22), each checked on the CLI's own output.
case_messages() {
    local m="$data/messages"
    # warnings are printed whole: the 120-byte cut is the API server's, for the webhook's answers only
    expect_exit 0 "$gpuadmit" validate "$m/long-warning.yaml"
    expect_grep "$tmp/out" "warning: a-container-whose-name-is-long.*deprecated, now gpu-core: 2, gpu-memory-ratio: 2$"
    expect_no_grep "$tmp/out" "\\.\\.\\.$"
    expect_exit 0 "$gpuadmit" validate -o json "$m/long-warning.yaml"
    expect_grep "$tmp/out" "gpu-memory-ratio: 2\""
    # two worker groups whose containers share a name: the text says which template (path and group name)
    expect_exit 1 "$gpuadmit" validate "$m/raycluster-two-groups.yaml"
    expect_grep "$tmp/out" "RayCluster/ml/rc container \"ray-worker\" in spec.workerGroupSpecs\\[1\\].template \"big\": core-without-memory: "
    expect_no_grep "$tmp/out" "workerGroupSpecs\\[0\\]"
    # an excluded namespace: validate and fit both say so (configuration namespaces.exclude)
    local ex="$m/excluded-core-without-memory.yaml" inv="$src/examples/inventory/compact.yaml"
    expect_exit 0 "$gpuadmit" validate "$ex"
    expect_grep "$tmp/out" "Pod/kube-system/legacy: allowed \\(namespace kube-system is excluded by the configuration's namespaces.exclude"
    expect_exit 0 "$gpuadmit" validate -o json "$ex"
    expect_grep "$tmp/out" '"excluded": true'
    $check schema "$tmp/out" >/dev/null || fail "validate -o json of an excluded namespace: schema"
    expect_exit 1 "$gpuadmit" fit --inventory "$inv" "$ex"
    expect_grep "$tmp/out" "namespace kube-system is excluded by the configuration's namespaces.exclude"
    expect_no_grep "$tmp/out" "see gpuadmit validate"
    # a template with no GPU request needs no placement (a CPU-only Ray head)
    expect_exit 1 "$gpuadmit" fit --inventory "$inv" "$m/raycluster-two-groups.yaml"
    expect_grep "$tmp/out" "rc\\[spec.headGroupSpec.template.spec\\]: asks for no GPU"
    expect_no_grep "$tmp/out" "headGroupSpec.template.spec\\]: fits on"
    expect_grep "$tmp/out" "3 Pod specs: 1 fits, 1 does not, 1 asks for no GPU"
    expect_exit 1 "$gpuadmit" fit -o json --inventory "$inv" "$m/raycluster-two-groups.yaml"
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert [e["asksForGPU"] for e in d]==[False,True,True] and d[0]["feasible"] and d[0]["node"] is None, d' "$tmp/out" ||
        fail "fit -o json: asksForGPU"
    # an unknown verb gets the nearest one
    expect_exit 2 "$gpuadmit" valdiate "$data/admitted.yaml"
    expect_grep "$tmp/err" "unknown verb 'valdiate'; did you mean 'validate'\\?"
    expect_exit 2 "$gpuadmit" frobnicate
    expect_no_grep "$tmp/err" "did you mean"
    # every verb's --help is laid out alike: usage, a blank line, the description, the options, exit codes
    for verb in validate mutate review fit test audit explain; do
        expect_exit 0 "$gpuadmit" "$verb" --help
        awk '/^(usage:|       gpuadmit )/ { n = NR } END { exit !(n > 0) }' "$tmp/out" || fail "$verb --help: no usage line"
        [ "$(awk '!/^(usage:|       gpuadmit |        +)/ { print; exit }' "$tmp/out")" = "" ] ||
            fail "$verb --help: no blank line after the usage lines"
        expect_grep "$tmp/out" "^exit: 0 "
        [ "$verb" = review ] || expect_grep "$tmp/out" "^  -o, --output FMT  "
    done
    # serve: one DURATION syntax for every flag (ms, s, m, h, d); self-managed-certificate flags need --cert-secret
    expect_exit 2 "$gpuadmit" serve --cert "$tmp/none.crt" --key "$tmp/none.key" --request-timeout 1h --listen 127.0.0.1:0 --metrics-listen ""
    expect_no_grep "$tmp/err" "request-timeout"
    expect_grep "$tmp/err" "serving certificate"
    expect_exit 2 "$gpuadmit" serve --cert a --key b --request-timeout 2d
    expect_grep "$tmp/err" "--request-timeout 2d: expected a DURATION from 1ms to 1d"
    expect_exit 2 "$gpuadmit" serve --cert a --key b --shutdown-grace 1x
    expect_grep "$tmp/err" "--shutdown-grace 1x: expected a DURATION"
    for flag in --cert-renew-before=10d --cert-switch-delay=5m --cert-sync-interval=1m --cert-days=30 --cert-ca-days=90 \
        --cert-dir=/tmp --cert-namespace=n --cert-service=s --webhook-config-name=w; do
        expect_exit 2 "$gpuadmit" serve --cert a --key b "$flag"
        expect_grep "$tmp/err" "^gpuadmit serve: ${flag%%=*} is a self-managed-certificate flag: it needs --cert-secret"
    done
    expect_exit 0 "$gpuadmit" serve --help
    expect_grep "$tmp/out" "^DURATION \\(every duration flag\\): an integer with ms, s, m, h or d"
    expect_no_grep "$tmp/out" "default 30d; s, m, h, d"
    # an object of one Pod spec keeps the short form
    expect_exit 1 "$gpuadmit" validate "$data/denied.yaml"
    expect_grep "$tmp/out" "Pod/t/denied container \"main\": core-without-memory: "
}

# A tenant's Pod with an unreadable or inflated annotation never makes an inventory unreadable (docs/allocator.md,
# "Usage"): it holds nothing, and is named in a warning on stderr.
case_poisoned_inventory() {
    local inv="$data/poisoned-pods.json"
    printf 'apiVersion: v1\nkind: Pod\nmetadata: {name: whole, namespace: ml}\nspec:\n  containers:\n  - name: main\n    image: a\n    resources: {limits: {koordinator.sh/gpu-core: "100", koordinator.sh/gpu-memory-ratio: "100"}}\n' >"$tmp/whole.yaml"
    expect_exit 0 "$gpuadmit" fit --now --inventory "$inv" "$tmp/whole.yaml"
    expect_grep "$tmp/out" "fits on k1"
    expect_grep "$tmp/out" "device 1: core 100%"
    expect_grep "$tmp/err" "^warning: .*poisoned-pods.json:[0-9]+:[0-9]+: items\\[2\\]\\.metadata\\.annotations.*Pod tenant/not-json holds no GPU: not JSON"
    expect_grep "$tmp/err" "Pod tenant/wrong-shape holds no GPU"
    expect_grep "$tmp/err" "Pod tenant/mgpu-spread holds no GPU"
    expect_no_grep "$tmp/err" "inflated|unscheduled|finished|elsewhere|ml/good"
    # the good Pod's share and the inflated Pod's 10% stay on device 0: two whole devices do not fit
    sed 's/"100"/"200"/g' "$tmp/whole.yaml" >"$tmp/two.yaml"
    expect_exit 1 "$gpuadmit" fit --now --inventory "$inv" "$tmp/two.yaml"
    expect_grep "$tmp/err" "Pod tenant/not-json holds no GPU"
    expect_exit 0 "$gpuadmit" validate --inventory "$inv" "$tmp/whole.yaml"
    expect_grep "$tmp/err" "Pod tenant/not-json holds no GPU"
}

# Node templates (docs/allocator.md#autoscaled-gpu-pools): `fit` says "fits a new node of template T", never with --now.
case_fit_templates() {
    local nodes="$src/examples/tests/inventory/cluster.yaml" templates="$src/examples/inventory/templates.yaml"
    cat >"$tmp/pod.yaml" <<'EOF'
apiVersion: v1
kind: Pod
metadata: {name: finetune, namespace: ml}
spec:
  nodeSelector: {karpenter.sh/nodepool: a100}
  containers:
  - name: train
    image: nvcr.io/nvidia/pytorch:24.01-py3
    resources:
      limits: {nvidia.com/gpu: "2"}
EOF
    expect_exit 1 "$gpuadmit" fit --inventory "$nodes" "$tmp/pod.yaml"
    expect_exit 0 "$gpuadmit" fit --inventory "$nodes" --inventory "$templates" "$tmp/pod.yaml"
    expect_grep "$tmp/out" "^.*Pod/ml/finetune: fits a new node of template karpenter-a100 \(score [0-9]+, binpack, coreWeight 20\)$"
    expect_grep "$tmp/out" "^  not on a100: nodeSelector karpenter.sh/nodepool=a100: the node's label is absent$"
    expect_exit 0 "$gpuadmit" fit --inventory "$nodes" --inventory "$templates" -o json "$tmp/pod.yaml"
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))[0]; assert d["feasible"] and d["node"] is None and d["template"]=="karpenter-a100" and [x["minor"] for x in d["devices"]]==[0,1], d' "$tmp/out" ||
        fail "fit -o json on a template"
    expect_exit 1 "$gpuadmit" fit --now --inventory "$nodes" --inventory "$templates" "$tmp/pod.yaml"
    expect_no_grep "$tmp/out" "template"
    sed 's/"2"/"16"/' "$tmp/pod.yaml" >"$tmp/huge.yaml"
    expect_exit 1 "$gpuadmit" fit --inventory "$templates" "$tmp/huge.yaml"
    expect_grep "$tmp/out" "^  template karpenter-a100: needs 16 distinct devices, the node has 8 healthy of 8$"
    expect_exit 1 "$gpuadmit" validate --inventory "$templates" "$tmp/huge.yaml"
    expect_grep "$tmp/out" "infeasible: no node could ever hold this Pod \(2 node templates\): template "
    expect_exit 0 "$gpuadmit" validate --inventory "$templates" "$tmp/pod.yaml"
    expect_grep "$tmp/out" "no node has room for this Pod now: fits a new node of template karpenter-a100 \(2 node templates\)"
    # The webhook's warnings are cut at 120 bytes: the template comes before the closest node's reason and the counts.
    printf '%s' '{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"1","operation":"CREATE",
"namespace":"ml","kind":{"group":"","version":"v1","kind":"Pod"},"resource":{"group":"","version":"v1","resource":"pods"},
"object":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"finetune","namespace":"ml"},"spec":{"nodeSelector":
{"karpenter.sh/nodepool":"a100"},"containers":[{"name":"train","image":"x","resources":{"limits":{"nvidia.com/gpu":"2"}}}]}}}}' >"$tmp/review.json"
    expect_exit 0 "$gpuadmit" review --webhook validate --inventory "$nodes" --inventory "$templates" "$tmp/review.json"
    expect_grep "$tmp/out" '"warnings":\["infeasible: no node has room for this Pod now: fits a new node of template karpenter-a100; a100: '
    printf 'kind: GPUInventory\ntemplates:\n- name: t\n  gpus: {count: 1}\n  used: []\n' >"$tmp/bad.yaml"
    expect_exit 2 "$gpuadmit" fit --inventory "$tmp/bad.yaml" "$tmp/pod.yaml"
    expect_grep "$tmp/err" 'bad.yaml:5:[0-9]+: templates\[0\]: unknown field "used"; known: name, labels, dialects, gpus, devices'
}

# fit places a Koordinator Pod as koord-scheduler reserves it: the containers' totals over distinct devices; each share
# lists the containers it is for. A whole-device share needs a device with all its compute; no GPU node is a reason.
case_fit_pod_level() {
    local obj="$src/tests/cases/infeasible/koordinator-two-containers-one-gpu/object.yaml"
    local one="$src/tests/cases/infeasible/koordinator-two-containers-one-gpu/inventory.yaml"
    local two="$src/tests/cases/infeasible/koordinator-two-containers-two-gpus/inventory.yaml"
    expect_exit 1 "$gpuadmit" fit --inventory "$one" "$obj"
    expect_grep "$tmp/out" "^  a10: the Pod's 2 containers ask for 2 devices of 50% each, each on a different device, the node has 1 healthy of 1$"
    expect_exit 1 "$gpuadmit" validate --inventory "$one" "$obj"
    expect_grep "$tmp/out" "infeasible: no node could ever hold this Pod \(1 GPU node\): a10: the Pod's 2 containers ask for 2 devices"
    expect_exit 0 "$gpuadmit" fit --inventory "$two" "$obj"
    expect_grep "$tmp/out" "^  model,sidecar: device 0: core 50%, memory 12Gi "
    expect_grep "$tmp/out" "^  model,sidecar: device 1: core 50%, memory 12Gi "
    expect_exit 0 "$gpuadmit" fit --inventory "$two" -o json "$obj"
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))[0]; assert d["feasible"] and [(x["container"], x["minor"], x["core"]) for x in d["devices"]]==[("model,sidecar",0,50),("model,sidecar",1,50)], d' "$tmp/out" ||
        fail "fit -o json: one device share per gpu.shared, for the Pod's containers"
    # No GPU node at all: the Pod's own reason, "node": null.
    printf 'kind: GPUInventory\nnodes: []\n' >"$tmp/empty.yaml"
    expect_exit 1 "$gpuadmit" fit --inventory "$tmp/empty.yaml" -o json "$obj"
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))[0]; assert not d["feasible"] and d["reasons"]==[{"node":None,"template":None,"reason":"the inventory has no GPU nodes"}], d' "$tmp/out" ||
        fail "fit -o json with no GPU node"
    expect_exit 1 "$gpuadmit" fit --inventory "$tmp/empty.yaml" "$obj"
    expect_grep "$tmp/out" "^  the inventory has no GPU nodes$"
    # 100/100 on a device whose compute total is 50 fits no better than 99/99.
    printf 'kind: GPUInventory\nnodes:\n- {name: half, gpus: {count: 1, memory: 16Gi, core: 50}}\n' >"$tmp/half.yaml"
    sed -e '/name: sidecar/,$d' -e 's/"50"/"100"/' "$obj" >"$tmp/whole.yaml"
    expect_exit 1 "$gpuadmit" fit --inventory "$tmp/half.yaml" "$tmp/whole.yaml"
    expect_grep "$tmp/out" "^  half: device 0 has 50% compute in all, a whole-device share needs 100%$"
}

# Each dialect's scheduler default (docs/allocator.md#strategies) unless the configuration names one; fit says which
# it used, and prints the annotations koord-scheduler and Volcano's mGPU plugin would write, byte for byte.
case_fit_strategy() {
    cat >"$tmp/inv.yaml" <<'EOF'
kind: GPUInventory
nodes:
- name: k
  dialects: [vendor, koordinator]
  gpus: {count: 4, memory: 80Gi}
  used:
  - {minor: 0, core: 10, ratio: 30}
  - {minor: 1, core: 10, ratio: 50}
  - {minor: 2, core: 10, ratio: 20}
- name: m
  dialects: [mgpu]
  gpus: {count: 2, memory: 16Gi}
  used:
  - {minor: 1, core: 40, ratio: 40}
EOF
    cat >"$tmp/koord.yaml" <<'EOF'
apiVersion: v1
kind: Pod
metadata: {name: share, namespace: t}
spec:
  containers:
  - name: main
    image: x
    resources:
      limits: {koordinator.sh/gpu-core: "10", koordinator.sh/gpu-memory: "40G", koordinator.sh/gpu.shared: "1"}
EOF
    cat >"$tmp/mgpu.yaml" <<'EOF'
apiVersion: v1
kind: Pod
metadata: {name: card, namespace: t}
spec:
  containers:
  - name: main
    image: x
    resources:
      limits: {vke.volcengine.com/mgpu-core: "10", vke.volcengine.com/mgpu-memory: "1024"}
EOF
    # Koordinator: koord-scheduler's LeastAllocated on memory, the emptiest device (3), not the fullest (1)
    expect_exit 0 "$gpuadmit" fit --now --inventory "$tmp/inv.yaml" "$tmp/koord.yaml"
    expect_grep "$tmp/out" "Pod/t/share: fits on k \(score [0-9]+, spread, coreWeight 0\)$"
    expect_grep "$tmp/out" "^  main: device 3: "
    # 40e9 bytes of an 80Gi card: koord-scheduler writes ratio 46 (float64, truncated) and the bytes as asked
    expect_grep "$tmp/out" '^  annotation scheduling.koordinator.sh/device-allocated: \{"gpu":\[\{"minor":3,"resources":\{"koordinator.sh/gpu-core":"10","koordinator.sh/gpu-memory":"39062500Ki","koordinator.sh/gpu-memory-ratio":"46"\}\}\]\}$'
    expect_exit 0 "$gpuadmit" fit --now --inventory "$tmp/inv.yaml" -o json "$tmp/koord.yaml"
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))[0]; assert d["strategy"]=="spread" and d["coreWeight"]==0 and d["devices"][0]["minor"]==3, d
a=json.loads(d["annotations"]["scheduling.koordinator.sh/device-allocated"])
assert a=={"gpu":[{"minor":3,"resources":{"koordinator.sh/gpu-core":"10","koordinator.sh/gpu-memory":"39062500Ki","koordinator.sh/gpu-memory-ratio":"46"}}]}, a' "$tmp/out" ||
        fail "fit -o json: strategy and device-allocated"
    # mGPU: Volcano's binpack with coreWeight 20, the fuller card
    expect_exit 0 "$gpuadmit" fit --now --inventory "$tmp/inv.yaml" "$tmp/mgpu.yaml"
    expect_grep "$tmp/out" "Pod/t/card: fits on m \(score [0-9]+, binpack, coreWeight 20\)$"
    expect_grep "$tmp/out" "^  annotation vke.volcengine.com/gpu-index-container-main: 1$"
    expect_grep "$tmp/out" "^  annotation vke.volcengine.com/assumed: true$"
    # The configuration's strategy overrides every dialect's default; coreWeight too, each one alone
    printf 'placement: {strategy: binpack}\n' >"$tmp/binpack.yaml"
    expect_exit 0 "$gpuadmit" fit --now --config "$tmp/binpack.yaml" --inventory "$tmp/inv.yaml" "$tmp/koord.yaml"
    expect_grep "$tmp/out" "Pod/t/share: fits on k \(score [0-9]+, binpack, coreWeight 0\)$"
    expect_grep "$tmp/out" "^  main: device 1: "
    printf 'placement: {strategy: spread, coreWeight: 50}\n' >"$tmp/spread.yaml"
    expect_exit 0 "$gpuadmit" fit --now --config "$tmp/spread.yaml" --inventory "$tmp/inv.yaml" -o json "$tmp/mgpu.yaml"
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))[0]; assert d["strategy"]=="spread" and d["coreWeight"]==50 and d["devices"][0]["minor"]==0, d' "$tmp/out" ||
        fail "fit -o json: a configured strategy"
    # Nothing searched (no GPU asked): strategy and coreWeight are null
    sed 's/vke.volcengine.com\/mgpu-[a-z]*/cpu/g' "$tmp/mgpu.yaml" >"$tmp/cpu.yaml"
    expect_exit 0 "$gpuadmit" fit -o json --inventory "$tmp/inv.yaml" "$tmp/cpu.yaml"
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))[0]; assert d["strategy"] is None and d["coreWeight"] is None and not d["asksForGPU"], d' "$tmp/out" ||
        fail "fit -o json: no strategy without a search"
}

# expect_terminal_safe FILE PREFIX: every line of FILE starts with PREFIX, two spaces (fit's detail lines) or a
# digit (the summary), and FILE holds no control character but the line ends: no name forged a line or reached
# the terminal.
expect_terminal_safe() {
    python3 - "$1" "$2" <<'PY' || fail "$(basename "$1") is not terminal-safe: $(head -c 600 "$1" | cat -v)"
import re, sys
text = open(sys.argv[1], "rb").read().decode("utf-8", "replace")
bad = re.search(r"[\x00-\x09\x0b-\x1f\x7f-\x9f\ufffd]", text)
lines = text.splitlines()
stray = [l for l in lines if not (l.startswith(sys.argv[2]) or l.startswith("  ") or l[:1].isdigit())]
sys.exit(1 if bad or stray or not lines else 0)
PY
}

case_escaped() {
    local forged="$data/forged-names.yaml" inv="$src/examples/inventory/compact.yaml"
    expect_exit 1 "$gpuadmit" validate "$forged"
    expect_terminal_safe "$tmp/out" "$forged#"
    expect_grep "$tmp/out" '#1 Pod/t/forged\\nforged-names.yaml Pod/t/forged: allowed container "main\\nforged-names.yaml Pod/t/forged: allowed": core-without-memory: '
    expect_grep "$tmp/out" '#1 Pod/t/forged\\nforged-names.yaml Pod/t/forged: allowed: denied$'
    expect_grep "$tmp/out" '#2 Pod/t/clear\\x1b\[2J: allowed \(mutated: inject-gpu-shared\)$'
    expect_no_grep "$tmp/out" '^forged-names.yaml'
    expect_exit 1 "$gpuadmit" validate --no-mutate "$forged"
    expect_terminal_safe "$tmp/out" "$forged#"
    expect_grep "$tmp/out" 'container "main\\x1b\[2J\\x1b\]0;owned\\x07\\u009b31m\\tend": shared-required: '
    expect_exit 1 "$gpuadmit" fit --inventory "$inv" "$forged"
    expect_terminal_safe "$tmp/out" "$forged#"
    expect_grep "$tmp/out" '^  main\\nforged-names.yaml Pod/t/forged: allowed: core-without-memory: '
    expect_grep "$tmp/out" '^  main\\x1b\[2J\\x1b\]0;owned\\x07\\u009b31m\\tend: device 0: core 50%'
    # JSON carries the names exactly, escaped by the JSON writer.
    expect_exit 1 "$gpuadmit" validate -o json "$forged"
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); c=[v["container"] for e in d for v in e["violations"]]
assert d[0]["name"]=="forged\nforged-names.yaml Pod/t/forged: allowed" and d[1]["name"]=="clear\x1b[2J", d
assert c==["main\nforged-names.yaml Pod/t/forged: allowed"], c' "$tmp/out" || fail "validate -o json names"
    expect_exit 1 "$gpuadmit" fit -o json --inventory "$inv" "$forged"
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
assert d[1]["devices"][0]["container"]=="main\x1b[2J\x1b]0;owned\x07\x9b31m\tend", d' "$tmp/out" || fail "fit -o json names"
    # A document that cannot be decoded: its error names a tenant-written key on stderr, escaped too.
    printf 'apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata: {name: x, namespace: t}\nspec:\n  pytorchReplicaSpecs:\n    "W\\x1b[2J\\nforged: allowed":\n      template: {spec: {containers: "x"}}\n' >"$tmp/undecodable.yaml"
    expect_exit 2 "$gpuadmit" validate "$tmp/undecodable.yaml"
    expect_terminal_safe "$tmp/err" "$tmp/undecodable.yaml:7:"
    expect_grep "$tmp/err" 'pytorchReplicaSpecs\["W\\x1b\[2J\\nforged: allowed"\]\.template\.spec\.containers: must be a list'
    # gpuadmit test: suite and case names, and the findings, escaped in the table and the failure details.
    mkdir -p "$tmp/suite"
    printf '%s\n' 'apiVersion: gpuadmit.io/v1alpha1' 'kind: Test' 'name: "s\x1b[2J"' 'cases:' '- name: "c\nforged  PASS"' \
        '  inline:' '    apiVersion: v1' '    kind: Pod' '    metadata: {name: p, namespace: t}' '    spec:' '      containers:' \
        '      - name: "m\x1b[2J"' '        resources: {limits: {koordinator.sh/gpu-core: "50"}}' '  expect: {allowed: true}' \
        >"$tmp/suite/gpuadmit-test.yaml"
    expect_exit 1 "$gpuadmit" test "$tmp/suite"
    expect_terminal_safe "$tmp/out" ""
    expect_grep "$tmp/out" '^s\\x1b\[2J  c\\nforged  PASS  allow     deny \[core-without-memory\]  FAIL$'
    expect_grep "$tmp/out" '^--- FAIL: s\\x1b\[2J/c\\nforged  PASS '
    expect_grep "$tmp/out" '^    finding: m\\x1b\[2J: core-without-memory: '
    # An inventory dump names a tenant's Pod whose annotation is not JSON (refused, or warned about: either way
    # the name is escaped, wherever it is printed).
    "$gpuadmit" fit --inventory "$data/inventory-forged-pod.json" "$data/admitted.yaml" >"$tmp/out" 2>"$tmp/err"
    cat "$tmp/out" "$tmp/err" >"$tmp/all"
    expect_grep "$tmp/all" 'Pod t/p\\x1b\[2J\\nforged'
    python3 -c 'import re,sys; t=open(sys.argv[1],"rb").read().decode(); sys.exit(re.search(r"[\x00-\x09\x0b-\x1f\x7f-\x9f]", t) is not None)' "$tmp/all" ||
        fail "the inventory's Pod name reached the terminal raw: $(cat -v "$tmp/all")"
}

case_kubeconfig() {
    # Every verb that reads the cluster describes --kubeconfig alike, the in-Pod service account included (one help
    # text: cli/opts.h GPA_HELP_KUBECONFIG; fit's once omitted it).
    for verb in audit explain fit; do
        expect_exit 0 "$gpuadmit" "$verb" --help
        expect_grep "$tmp/out" "--kubeconfig F +\(default: the service account in a Pod, else \\\$KUBECONFIG, ~/.kube/config\)"
        expect_grep "$tmp/out" "--context C +kubeconfig context \(default: current-context\)"
    done
    # A kubeconfig gpuadmit cannot honour (an exec credential plugin) is named with file:line:col and the field,
    # whatever the verb that reads it: the caller's error value was once read uninitialised, and printed garbage.
    local kc="$data/kubeconfig-exec.yaml"
    expect_exit 2 "$gpuadmit" audit --kubeconfig "$kc"
    expect_grep "$tmp/err" "^audit: .*kubeconfig-exec.yaml:15:7: user.exec: not supported by gpuadmit \\(credential plugins are not run"
    expect_exit 2 "$gpuadmit" audit --kubeconfig "$kc" -A -o json
    expect_grep "$tmp/err" "^audit: .*kubeconfig-exec.yaml:15:7: user.exec: not supported by gpuadmit"
    expect_exit 2 "$gpuadmit" fit --cluster --kubeconfig "$kc" "$data/admitted.yaml"
    expect_grep "$tmp/err" "^fit: cannot read the cluster's inventory: .*kubeconfig-exec.yaml:15:7: user.exec: not supported"
    expect_exit 2 "$gpuadmit" audit --kubeconfig "$tmp/no-such-kubeconfig"
    expect_grep "$tmp/err" "^audit: .*no-such-kubeconfig: "
}

# The options the verbs share are read in one place (cli/opts.h) and mean one thing in each verb: the same
# spellings accepted, the same refusals in the same words.
case_option_vocabulary() {
    local pod="$data/admitted.yaml" inv="$src/examples/inventory/compact.yaml" big="$src/examples/with-inventory/infeasible.yaml"
    local review="$src/examples/good/admissionreview-v1.json"
    printf 'rules:\n  infeasible: warn\n' >"$tmp/warn.yaml"
    # --config F and --config=F, --inventory repeated: the infeasible finding is a warning in every verb that judges.
    expect_exit 0 "$gpuadmit" validate --config="$tmp/warn.yaml" --inventory "$inv" --inventory="$inv" "$big"
    expect_grep "$tmp/out" "infeasible: .*\[warn\]"
    expect_exit 0 "$gpuadmit" review --webhook validate --config "$tmp/warn.yaml" --inventory="$inv" "$review"
    expect_exit 0 "$gpuadmit" mutate --config="$tmp/warn.yaml" --inventory "$inv" -o patch "$pod"
    expect_exit 0 "$gpuadmit" fit --config="$tmp/warn.yaml" --inventory="$inv" --output=json "$pod"
    python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/out" || fail "fit --output=json is not JSON"
    # A configuration that cannot be read is refused alike, before any input is read.
    for verb in validate mutate fit; do
        expect_exit 2 "$gpuadmit" "$verb" --config "$tmp/missing.yaml" --inventory "$inv" "$pod"
        expect_grep "$tmp/err" "missing.yaml"
    done
    expect_exit 2 "$gpuadmit" review --webhook validate --config "$tmp/missing.yaml" "$review"
    expect_grep "$tmp/err" "missing.yaml"
    # -o: each verb names its formats in one sentence.
    expect_exit 2 "$gpuadmit" validate -o xml "$pod"
    expect_grep "$tmp/err" "^validate: -o must be text or json, not 'xml'$"
    expect_exit 2 "$gpuadmit" fit --inventory "$inv" --output xml "$pod"
    expect_grep "$tmp/err" "^fit: -o must be text or json, not 'xml'$"
    expect_exit 2 "$gpuadmit" mutate -o xml "$pod"
    expect_grep "$tmp/err" "^mutate: -o must be yaml, json or patch, not 'xml'$"
    expect_exit 2 "$gpuadmit" audit -o xml
    expect_grep "$tmp/err" "^audit: -o must be text, json or policyreport, not 'xml'$"
    expect_exit 2 "$gpuadmit" explain -o xml
    expect_grep "$tmp/err" "^explain: -o must be text or json, not 'xml'$"
    expect_exit 2 "$gpuadmit" test -o xml "$src/examples"
    expect_grep "$tmp/err" "^gpuadmit test: -o must be text, json or junit, not 'xml'$"
    # -n and -A, in both verbs that list a namespace.
    for verb in audit explain; do
        expect_exit 2 "$gpuadmit" "$verb" -n ml -A
        expect_grep "$tmp/err" "^$verb: -n and -A exclude each other$"
    done
    # An option a verb does not take is refused, not ignored: review has no -o, validate no --kubeconfig.
    expect_exit 2 "$gpuadmit" review --webhook validate -o json "$review"
    expect_exit 2 "$gpuadmit" validate --kubeconfig "$tmp/kc" "$pod"
    expect_exit 2 "$gpuadmit" test --inventory "$inv" "$src/examples"
}

# fit for DRA claims: a claim, a template's claim in a Pod, on which node and which devices; --now counts what allocated
# claims hold; a shared device says what the request consumes of it.
case_fit_dra() {
    local dir="$src/tests/cases/infeasible/dra-no-room-now"
    expect_exit 1 "$gpuadmit" fit --inventory "$dir/inventory.yaml" "$dir/claims.yaml"
    expect_grep "$tmp/out" "/claims.yaml#1 ResourceClaim/ml/two: fits on node-1$"
    expect_grep "$tmp/out" "^  request gpus: gpu.nvidia.com/node-1/gpu-0, gpu.nvidia.com/node-1/gpu-1$"
    expect_grep "$tmp/out" "/claims.yaml#3 ResourceClaim/ml/three: does not fit, even with every device free$"
    expect_grep "$tmp/out" "^  request gpus: 3 devices on one node asked, at most 2 on any node$"
    expect_grep "$tmp/out" "/claims.yaml#4 Pod/ml/trainer claim gpus \(ResourceClaimTemplate two-gpus\): fits on node-1$"
    expect_grep "$tmp/out" "^4 DRA claims: 3 fit or cannot be judged, 1 does not$"
    expect_exit 1 "$gpuadmit" fit --now --inventory "$dir/inventory.yaml" "$dir/claims.yaml"
    expect_grep "$tmp/out" "/claims.yaml#1 ResourceClaim/ml/two: no room now \(it fits once allocated claims free devices\)$"
    expect_grep "$tmp/out" "^  request gpu: gpu.nvidia.com/node-1/gpu-1$" # gpu-0 is the allocated claim's
    expect_exit 1 "$gpuadmit" fit --now -o json --inventory "$dir/inventory.yaml" "$dir/claims.yaml"
    python3 - "$tmp/out" <<'PY' || fail "fit --now -o json for claims"
import json, sys
d = {e["name"]: e for e in json.load(open(sys.argv[1]))}
assert d["two"]["feasible"] is False and d["two"]["noRoomNow"] is True, d["two"]
assert d["one"]["node"] == "node-1" and [x["device"] for x in d["one"]["requests"][0]["devices"]] == ["gpu-1"], d["one"]
assert d["three"]["feasible"] is False and d["three"]["noRoomNow"] is False, d["three"]
assert d["trainer"]["claim"] == "gpus" and d["trainer"]["template"] == "two-gpus", d["trainer"]
PY
    # a shared device (HAMi-DRA's): what the request takes of it
    cat >"$tmp/hami.yaml" <<'YAML'
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: hami}
spec:
  selectors:
  - cel: {expression: "device.driver == 'hami-core-gpu.project-hami.io'"}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: slice, namespace: ml}
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: hami
        capacity: {requests: {memory: 8Gi}}
        tolerations: [{key: maintenance, operator: Exists}]
YAML
    expect_exit 0 "$gpuadmit" fit --inventory "$src/tests/data/dra/slices.json" --inventory "$tmp/hami.yaml" "$tmp/hami.yaml"
    expect_grep "$tmp/out" "^  request gpu: hami-core-gpu.project-hami.io/hami-node/hami-gpu-0 \(memory 8Gi\)$"
    # a selector that errs on every device (gpu-test6's `index`): admitted, and fit says it cannot judge which request
    local t6="$src/tests/cases/dra-examples/nvidia-v1-gpu-test6/objects.yaml"
    expect_exit 0 "$gpuadmit" fit --inventory "$src/tests/cases/dra-placement/clusters/nvidia-gpus.yaml" --inventory "$t6" "$t6"
    expect_grep "$tmp/out" "ResourceClaimTemplate/gpu-test6/a100: cannot say "
    expect_grep "$tmp/out" "^  request gpu cannot be judged: "
    # the search: gpu-test4's four MIG devices under one parent fill one A100's eight memory slices
    local t4="$src/tests/cases/dra-examples/nvidia-v1-gpu-test4/objects.yaml"
    expect_exit 0 "$gpuadmit" fit --inventory "$src/tests/cases/dra-placement/clusters/nvidia-mig.yaml" --inventory "$t4" "$t4"
    expect_grep "$tmp/out" "^  request mig-3g-20gb: gpu.nvidia.com/mig-node-1/gpu-0-mig-3g20gb-4$"
    # a Pod's claims together, as the scheduler allocates them on its node: a GPU each, or never together (said first)
    local both="$src/tests/cases/dra-placement/nvidia-gpus/together.yaml"
    expect_exit 1 "$gpuadmit" fit --inventory "$src/tests/cases/dra-placement/clusters/nvidia-gpus.yaml" --inventory "$both" "$both"
    expect_grep "$tmp/out" "Pod/together/two-on-two claim b \(ResourceClaimTemplate one-gpu\): fits on gpu-node-1$"
    expect_grep "$tmp/out" "^  request gpu: gpu.nvidia.com/gpu-node-1/gpu-1$"
    expect_grep "$tmp/out" "Pod/together/apart its 2 claims from templates together: does not fit, even with every device free$"
    expect_grep "$tmp/out" "^  its requests are met only on different nodes"
}

# HAMi nodes in a kubectl dump: each node's cards come from its register annotation (not its allocatable slots), its
# Pods' vgpu-devices-allocated say what is in use; an unreadable annotation is a warning, never an unreadable file.
case_hami_inventory() {
    local inv="$src/examples/inventory/kubectl-hami.json"
    printf 'apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ml}\nspec:\n  containers:\n  - name: main\n    image: a\n    resources: {limits: {nvidia.com/gpu: "4"}}\n' >"$tmp/four.yaml"
    expect_exit 1 "$gpuadmit" fit --inventory "$inv" "$tmp/four.yaml"
    expect_grep "$tmp/out" "hami-a10-1: needs 4 distinct devices, the node has 2 healthy of 2$"
    expect_grep "$tmp/out" "hami-a100-1: needs 4 distinct devices, the node has 3 healthy of 4$"
    expect_grep "$tmp/out" "hami-t4-1: needs 4 distinct devices, the node has 2 healthy of 2$"
    expect_no_grep "$tmp/err" "warning"
    sed 's/"4"/"3"/' "$tmp/four.yaml" >"$tmp/three.yaml"
    expect_exit 0 "$gpuadmit" fit --inventory "$inv" "$tmp/three.yaml"
    expect_grep "$tmp/out" "fits on hami-a100-1"
    expect_grep "$tmp/out" "main: device 2: core 100%, memory 80Gi"
    # with --now, card 2 of hami-a100-1 holds ml/infer-0's vGPU: three whole cards are no longer free anywhere
    expect_exit 1 "$gpuadmit" fit --now --inventory "$inv" "$tmp/three.yaml"
    expect_grep "$tmp/out" "does not fit"
    # a register annotation that cannot be read, a tenant's forged allocation: each named, and the file still loads
    expect_exit 1 "$gpuadmit" fit --inventory "$data/hami-poisoned.json" "$tmp/four.yaml"
    expect_grep "$tmp/err" "^warning: .*hami-poisoned.json:[0-9]+:[0-9]+: items\\[7\\]\\.metadata\\.annotations\\[\"hami.io/node-nvidia-register\"\\]: Node hami-t4-2 has no HAMi cards: card 0: devmem \"lots\" is not a whole number"
    expect_grep "$tmp/err" "^warning: .*hami-poisoned.json:[0-9]+:[0-9]+: items\\[8\\]\\.metadata\\.annotations\\[\"hami.io/vgpu-devices-allocated\"\\]: Pod tenant/forged holds no GPU"
    expect_grep "$tmp/out" "hami-t4-1: needs 4 distinct devices"
    expect_no_grep "$tmp/out" "hami-t4-2"
}

# fit on a HAMi dump: vGPUs on HAMi's cards, with HAMi's card checks; the annotations as hami-scheduler writes them
# (init containers first, a container without a device an empty entry); --now counts the Pods' allocations.
case_hami_fit() {
    local inv="$src/examples/inventory/kubectl-hami.json"
    printf 'apiVersion: v1\nkind: Pod\nmetadata: {name: train-1, namespace: ml, annotations: {nvidia.com/nouse-gputype: A100}}\nspec:\n  initContainers:\n  - {name: setup, image: a}\n  containers:\n  - name: train\n    image: a\n    resources: {limits: {nvidia.com/gpu: "2", nvidia.com/gpumem: "8000", nvidia.com/gpucores: "30"}}\n  - {name: log, image: a}\n' >"$tmp/train.yaml"
    expect_exit 0 "$gpuadmit" fit --now --inventory "$inv" "$tmp/train.yaml"
    expect_grep "$tmp/out" "fits on hami-t4-1 \\(score [0-9]+, spread, coreWeight 50\\)"
    expect_grep "$tmp/out" "^  annotation hami.io/vgpu-node: hami-t4-1$"
    expect_grep "$tmp/out" "^  annotation hami.io/vgpu-devices-allocated: ;GPU-e41a6b72-0d3f-4c58-a9b1-7f2c6d8e3a01,NVIDIA,8000,30:GPU-e41a6b72-0d3f-4c58-a9b1-7f2c6d8e3a02,NVIDIA,8000,30:;;$"
    expect_grep "$tmp/out" "^  annotation hami.io/vgpu-devices-to-allocate: ;GPU-e41a6b72-0d3f-4c58-a9b1-7f2c6d8e3a01,NVIDIA,8000,30:GPU-e41a6b72-0d3f-4c58-a9b1-7f2c6d8e3a02,NVIDIA,8000,30:;;$"
    # 16000 MiB: the A10s' free memory is short now (train-0 holds 8000 MiB of each), the T4s' total always is
    sed 's/"8000"/"16000"/' "$tmp/train.yaml" >"$tmp/train16.yaml"
    expect_exit 1 "$gpuadmit" fit --now --inventory "$inv" "$tmp/train16.yaml"
    expect_grep "$tmp/out" "hami-a10-1: needs 2 cards with room, 0 have room \\(card 0 has 14.6Gi free, a vGPU needs 15.7Gi\\)$"
    expect_grep "$tmp/out" "hami-a100-1: .*card 0's type NVIDIA-NVIDIA A100-SXM4-80GB is excluded by nvidia.com/nouse-gputype \"A100\"\\)$"
    expect_grep "$tmp/out" "hami-t4-1: .*card 0 has 15Gi in all, a vGPU asks for 15.7Gi: ask for at most the card's memory\\)$"
    # more vGPUs than any node has cards: denied, with the fix
    sed 's/"2"/"5"/' "$tmp/train.yaml" >"$tmp/train5.yaml"
    expect_exit 1 "$gpuadmit" validate --inventory "$inv" "$tmp/train5.yaml"
    expect_grep "$tmp/out" "infeasible: no node could ever hold this Pod \\(3 GPU nodes\\): hami-a100-1: asks for 5 vGPUs, each on a different card, the node has 3 healthy of 4: ask for at most 3$"
}

case_bounded_inputs() {
    # Every input is a regular file: a FIFO (no writer) is refused at once, not waited on; a device too.
    mkfifo "$tmp/fifo.yaml"
    expect_exit 2 timeout 20 "$gpuadmit" validate "$tmp/fifo.yaml" "$data/admitted.yaml"
    expect_grep "$tmp/err" "fifo.yaml: a FIFO, not a regular file: refused"
    expect_grep "$tmp/out" "Pod/t/admitted: allowed"
    expect_exit 2 timeout 20 "$gpuadmit" validate --inventory /dev/zero "$data/admitted.yaml"
    expect_grep "$tmp/err" "/dev/zero: a device, not a regular file: refused"
    expect_exit 2 timeout 20 "$gpuadmit" validate --config "$tmp/fifo.yaml" "$data/admitted.yaml"
    expect_grep "$tmp/err" "a FIFO, not a regular file"
    # One byte over the cap (sparse: nothing written), refused by its size.
    truncate -s $((256 * 1024 * 1024 + 1)) "$tmp/big.yaml"
    expect_exit 2 "$gpuadmit" validate "$tmp/big.yaml"
    expect_grep "$tmp/err" "big.yaml: 268435457 bytes, more than the 268435456 bytes an input may have: refused"
    # A directory with empty folders lists nothing from them (and sorts no empty list).
    mkdir -p "$tmp/inv/empty" "$tmp/inv/sub/empty"
    expect_exit 1 "$gpuadmit" validate --inventory "$tmp/inv" "$data/admitted.yaml"
    expect_grep "$tmp/out" "the inventory has no GPU nodes"
    # A suite reads only under its own folder: ../ is refused by path, its content never printed, in every format.
    mkdir -p "$tmp/s" "$tmp/secret"
    printf 'apiVersion: v1\nkind: Pod\nmetadata: {name: TOKEN-s3cr3t, namespace: t}\nspec: {containers: []}\n' \
        >"$tmp/secret/pod.yaml"
    printf 'apiVersion: gpuadmit.io/v1alpha1\nkind: Test\nname: leak\ncases:\n- name: a\n  file: pod.yaml\n  expect:\n    allowed: true\n    patched: ../secret/pod.yaml\n' \
        >"$tmp/s/gpuadmit-test.yaml"
    cp "$data/admitted.yaml" "$tmp/s/pod.yaml"
    for fmt in text json junit; do
        expect_exit 2 "$gpuadmit" test -o "$fmt" "$tmp/s"
        expect_grep "$tmp/err" "secret/pod.yaml is outside the suite's directory"
        expect_no_grep "$tmp/out" "s3cr3t"
        expect_no_grep "$tmp/err" "s3cr3t"
    done
    # --allow-read DIR lets it read there (the patched object differs: a failed case, exit 1, as any other).
    expect_exit 1 "$gpuadmit" test --allow-read "$tmp/secret" "$tmp/s"
}

"case_$case_name"
if [ "$failures" -ne 0 ]; then
    echo "$case_name: $failures failure(s)" >&2
    exit 1
fi
echo "$case_name: ok"
