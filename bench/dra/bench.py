#!/usr/bin/env python3
"""bench-dra: issue 28's numbers. Inventories shaped like the NVIDIA driver's ResourceSlices (one slice per node; each
device with ten attributes, a uuid of its own among them, and eight capacities), written to --work:

  1. load: 1,000 nodes x 100 devices (10^5, DynamicMIG-like: 8 GPUs and 92 MIG devices per node) -- `validate
     --inventory` of one claim (seconds, peak RSS), and `serve --inventory` holding it (seconds to serving, RSS then);
  2. /validate of a Pod with two claim templates against 1,000 nodes x 8 GPUs, beside a Koordinator Pod's against the
     same 1,000 x 8 cards in the compact form: median and p99 over one keep-alive connection, the server's CPU a
     review, and the ratios (goal <= 2x);
  3. hostile claims on the 10^5 devices (deep nesting, long lists, regexes, a 10 KiB expression, 32 requests, requests
     that compete under a constraint on every node): each
     through /validate (status, seconds) and the server's peak RSS after all of them.

Prints a table per part; figures, not a test (tests/unit/test_dra_*.c and tests/e2e assert the behaviour).
With --fakeapi (tests/fakeapi), part 1 adds `serve --cluster-inventory` listing the same objects from the fake API
server: seconds to ready, RSS then.

Usage: bench.py --gpuadmit BIN --work DIR [--fakeapi BIN]
"""
import argparse
import json
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
from common import measured, use_e2e  # noqa: E402  (bench/common.py)
MB = 1 << 20
DRIVER = "gpu.nvidia.com"


def device(node, i, mig):
    """One device as the NVIDIA driver publishes it (uuid and PCIe root its own)."""
    uuid = "GPU-%08x-%04x-0000-0000-%012x" % (node, i, node * 1000 + i)
    attrs = {"type": {"string": "mig" if mig else "gpu"}, "uuid": {"string": uuid},
             "productName": {"string": "NVIDIA H100 80GB HBM3"}, "brand": {"string": "Nvidia"},
             "architecture": {"string": "Hopper"}, "cudaComputeCapability": {"version": "9.0.0"},
             "driverVersion": {"version": "570.124.6"}, "cudaDriverVersion": {"version": "12.8.0"},
             "resource.kubernetes.io/pcieRoot": {"string": "pci0000:%02x" % (i % 8)},
             ("profile" if mig else "addressingMode"): {"string": "1g.10gb" if mig else "None"}}
    mem = "10Gi" if mig else "80Gi"
    caps = {"memory": {"value": mem}, "multiprocessors": {"value": "16" if mig else "132"},
            "copyEngines": {"value": "1" if mig else "7"}, "decoders": {"value": "1" if mig else "7"},
            "encoders": {"value": "0" if mig else "3"}, "jpegEngines": {"value": "1" if mig else "7"},
            "ofaEngines": {"value": "0" if mig else "1"}, "memorySlice0": {"value": "1"}}
    return {"name": ("gpu-%d-mig-%d" % (i % 8, i) if mig else "gpu-%d" % i), "attributes": attrs, "capacity": caps}


def slice_of(node, per_node, gpus):
    name = "node-%04d" % node
    devices = [device(node, i, i >= gpus) for i in range(per_node)]
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": name + "-" + DRIVER},
            "spec": {"driver": DRIVER, "nodeName": name, "pool": {"name": name, "generation": 1, "resourceSliceCount": 1},
                     "devices": devices}}


def device_class(name, kind):
    return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": name},
            "spec": {"selectors": [{"cel": {"expression": "device.driver == '%s' && device.attributes['%s'].type == '%s'"
                                                          % (DRIVER, DRIVER, kind)}}]}}


def template(name, ns, requests):
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate", "metadata": {"name": name, "namespace": ns},
            "spec": {"spec": {"devices": {"requests": requests}}}}


def exactly(name, cls, count=1, selectors=()):
    e = {"deviceClassName": cls, "count": count}
    if selectors:
        e["selectors"] = [{"cel": {"expression": s}} for s in selectors]
    return {"name": name, "exactly": e}


TEMPLATES = [template("train", "ml", [exactly("gpus", "gpu.nvidia.com", 2, ["device.capacity['%s'].memory.compareTo("
                                                                             "quantity('40Gi')) >= 0" % DRIVER])]),
             template("tools", "ml", [exactly("gpu", "gpu.nvidia.com", 1, ["device.attributes['%s'].productName.startsWith("
                                                                          "'NVIDIA H100')" % DRIVER])])]


def write_inventory(path, nodes, per_node, gpus, extra=()):
    items = [device_class("gpu.nvidia.com", "gpu"), device_class("mig.nvidia.com", "mig"), *extra]
    with open(path, "w") as f:
        f.write('{"apiVersion":"v1","kind":"List","items":[')
        for i, it in enumerate(items):
            f.write((", " if i else "") + json.dumps(it, separators=(",", ":")))
        for n in range(nodes):
            f.write("," + json.dumps(slice_of(n, per_node, gpus), separators=(",", ":")))
        f.write("]}")
    return os.path.getsize(path)


def write_compact(path, nodes):
    inv = {"kind": "GPUInventory", "nodes": [{"name": "node-%04d" % i, "dialects": ["koordinator"],
                                              "gpus": {"count": 8, "memory": "80Gi"}} for i in range(nodes)]}
    with open(path, "w") as f:
        json.dump(inv, f)


def cpu_seconds(pid):
    """The process's user and system CPU so far (/proc/PID/stat)."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def latencies(ra, s, review, n):
    """Median and p99 seconds of n reviews on one connection, the answer's allowed, and the server's CPU seconds a
    review (steadier than the latency on a machine whose latencies change mode over minutes)."""
    sock = ra.raw_connect(s)
    body = json.dumps(review).encode()
    out = []
    cpu = cpu_seconds(s.proc.pid)
    for _ in range(n):
        t = time.monotonic()
        sock.sendall(ra.http_request(None, "/validate", body))
        status, _, answer = ra.read_response(sock)
        out.append(time.monotonic() - t)
        assert status == 200, answer
    cpu = (cpu_seconds(s.proc.pid) - cpu) / n
    sock.close()
    out.sort()
    return statistics.median(out), out[int(len(out) * 0.99) - 1], json.loads(answer)["response"]["allowed"], cpu


def pod_with_templates():
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "trainer", "namespace": "ml"},
            "spec": {"resourceClaims": [{"name": "gpus", "resourceClaimTemplateName": "train"},
                                        {"name": "tools", "resourceClaimTemplateName": "tools"}],
                     "containers": [{"name": "main", "image": "nvcr.io/nvidia/pytorch:24.08-py3",
                                     "resources": {"claims": [{"name": "gpus"}, {"name": "tools"}]}}]}}


def koordinator_pod():
    """A valid Koordinator Pod: half of one card's memory and cores (what the Koordinator rules and placement read)."""
    res = {"koordinator.sh/gpu.shared": "1", "koordinator.sh/gpu-memory-ratio": "50", "koordinator.sh/gpu-core": "50"}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "ratio", "namespace": "ml"},
            "spec": {"containers": [{"name": "main", "image": "pytorch/pytorch",
                                     "resources": {"requests": res, "limits": res}}]}}


def hostile_claims():
    """Claims an attacker may write: each within the API's limits (32 requests, 32 selectors, 10 KiB each)."""
    deep = "(" * 100 + "device.attributes['%s'].type == 'gpu'" % DRIVER + ")" * 100
    long_list = "device.attributes['%s'].uuid in [%s]" % (DRIVER, ",".join("'GPU-%05d'" % i for i in range(700)))
    regex = "device.attributes['%s'].productName.matches('^(a+)+$') || device.attributes['%s'].uuid.matches('(x|y|z)*q')" % (
        DRIVER, DRIVER)
    big = " || ".join("device.attributes['%s'].uuid == 'GPU-%08d'" % (DRIVER, i) for i in range(190))[:10 * 1024 - 2]
    big = big[:big.rfind(" ||")]
    cases = [("100-deep parentheses", [exactly("a", "gpu.nvidia.com", 1, [deep])]),
             ("700-item list", [exactly("a", "gpu.nvidia.com", 1, [long_list])]),
             ("regexes", [exactly("a", "gpu.nvidia.com", 1, [regex])]),
             ("10 KiB expression", [exactly("a", "gpu.nvidia.com", 1, [big])]),
             ("32 requests x 8 selectors", [exactly("r%d" % i, "mig.nvidia.com", 1, [deep] * 8) for i in range(32)])]
    claims = [(name, {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                      "metadata": {"name": "h", "namespace": "ml"}, "spec": {"devices": {"requests": reqs}}})
              for name, reqs in cases]
    # Requests that pass every count and the constraint's necessary condition on each node, yet cannot all be served
    # (a and b want four distinct PCIe roots among three): the search runs until its budget or deadline.
    roots = lambda vals: ["device.attributes['resource.kubernetes.io'].pcieRoot in [%s]" % ",".join("'pci0000:%02x'" % v for v in vals)]
    compete = [exactly("a", "mig.nvidia.com", 2, roots([0, 1, 2])), exactly("b", "mig.nvidia.com", 2, roots([0, 1, 2])),
               exactly("c", "mig.nvidia.com", 1, roots(range(8)))]
    claims.append(("search: 3 requests under distinctAttribute", {
        "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": "h", "namespace": "ml"},
        "spec": {"devices": {"requests": compete, "constraints": [{"distinctAttribute": "resource.kubernetes.io/pcieRoot"}]}}}))
    return claims


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpuadmit", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--fakeapi", help="the fake API server (tests/fakeapi), for the live view's row")
    args = ap.parse_args()
    use_e2e(args.gpuadmit, args.work)
    import run_e2e as ra  # noqa: E402  (reads the environment at import)

    certs = os.path.join(args.work, "certs")
    ra.make_certs(certs)
    big, eight, koord = (os.path.join(args.work, n) for n in ("dra-100k.json", "dra-8k.json", "koord-8k.json"))
    size = write_inventory(big, 1000, 100, 8, TEMPLATES)
    write_inventory(eight, 1000, 8, 8, TEMPLATES)
    write_compact(koord, 1000)
    claim = os.path.join(args.work, "claim.json")
    with open(claim, "w") as f:
        json.dump(hostile_claims()[0][1], f)

    print("1. the inventory of 10^5 devices (%.0f MB of JSON; goal: loaded <= 1 s, RSS <= 64 MiB holding it)" % (size / 1e6))
    print("| run | seconds | peak RSS MiB | RSS holding it MiB |\n|---|---|---|---|")
    secs, peak, _, _ = measured([args.gpuadmit, "validate", "--inventory", big, claim])
    print("| validate --inventory (one claim) | %.2f | %.1f | |" % (secs, peak))
    t = time.monotonic()
    s = ra.Server("dra-100k", certs, "--inventory", big)
    up = time.monotonic() - t
    print("| serve --inventory: to serving | %.2f | %.1f | %.1f |" % (up, hwm(s.proc.pid), rss(s.proc.pid)))
    if args.fakeapi and os.access(args.fakeapi, os.X_OK):
        live_row(args, ra, certs)
    print("\n3. hostile claims on the 10^5 devices, through /validate")
    print("| claim | status | allowed | seconds |\n|---|---|---|---|")
    for name, obj in hostile_claims():
        t = time.monotonic()
        status, body, _ = ra.post(s, "/validate", json.dumps(ra.review(obj)).encode())
        allowed = json.loads(body)["response"]["allowed"] if status == 200 else "-"
        print("| %s | %d | %s | %.3f |" % (name, status, allowed, time.monotonic() - t))
    print("| server after all: peak RSS %.1f MiB, RSS %.1f MiB | | | |" % (hwm(s.proc.pid), rss(s.proc.pid)))
    s.stop()

    print("\n2. /validate: a Pod with two claim templates on 1,000 nodes x 8 GPUs vs a Koordinator Pod on 1,000 x 8 cards")
    print("| review | median ms | p99 ms | server CPU us a review | allowed |\n|---|---|---|---|---|")
    n = 2000
    s = ra.Server("dra-8k", certs, "--inventory", eight)
    dra = latencies(ra, s, ra.review(pod_with_templates()), n)
    s.stop()
    s = ra.Server("koord-8k", certs, "--inventory", koord)
    koo = latencies(ra, s, ra.review(koordinator_pod()), n)
    s.stop()
    print("| Pod, two claim templates (DRA) | %.3f | %.3f | %.1f | %s |" % (dra[0] * 1e3, dra[1] * 1e3, dra[3] * 1e6, dra[2]))
    print("| Koordinator Pod | %.3f | %.3f | %.1f | %s |" % (koo[0] * 1e3, koo[1] * 1e3, koo[3] * 1e6, koo[2]))
    print("| ratio DRA / Koordinator (goal <= 2) | %.2f | %.2f | %.2f | |" % (dra[0] / koo[0], dra[1] / koo[1],
                                                                           dra[3] / koo[3] if koo[3] else float("nan")))


def live_row(args, ra, certs):
    """serve --cluster-inventory with the 10^5 devices listed from the fake API server."""
    import urllib.request
    from run_cluster import Fake  # noqa: E402  (tests/e2e, on the path)
    fake = Fake("bench-dra", binary=args.fakeapi, work=args.work)
    try:
        fake.apply("deviceclasses", device_class("gpu.nvidia.com", "gpu"), device_class("mig.nvidia.com", "mig"))
        fake.apply("resourceslices", *(slice_of(n, 100, 8) for n in range(1000)), batch=50)
        t = time.monotonic()
        s = ra.Server("dra-live", certs, "--cluster-inventory", "--kubeconfig", fake.kubeconfig)
        key = 'gpuadmit_cluster_objects{kind="resourceslices"}'
        while s.metrics().get(key, 0) < 1000:
            time.sleep(0.05)
        while True:  # ready once the first snapshot holding them all is published
            try:
                with urllib.request.urlopen("http://127.0.0.1:%d/readyz" % s.metrics_port, timeout=5) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            time.sleep(0.05)
        ready = time.monotonic() - t
        time.sleep(2)
        print("| serve --cluster-inventory: to ready, 1,000 slices listed | %.2f | %.1f | %.1f |"
              % (ready, hwm(s.proc.pid), rss(s.proc.pid)))
        s.stop()
    finally:
        fake.stop()


def status_kb(pid, field):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def rss(pid):
    return status_kb(pid, "VmRSS") / 1024


def hwm(pid):
    return status_kb(pid, "VmHWM") / 1024


if __name__ == "__main__":
    main()
