#!/usr/bin/env python3
"""bench-webhook-attack25: issue 25's attacks against `gpuadmit serve` (2 workers, as the chart runs it) on loopback,
with an inventory of 5,000 GPU nodes each with its own hostname (2,000 HAMi nodes for the HAMi attack). For each
attack, 1 then 4 clients post the attack body at once (each once, no retry) while a prober sends trivial reviews one
after another. Prints one row per run: the answers' status counts (a reset is a request closed without an answer),
peak RSS (VmHWM), RSS after, and the trivial reviews' p50/p99 latency. Then the offline verbs on the HAMi attack:
`validate` and `fit` with the 2,000 nodes as an inventory file, and `explain -A` against the fake API server
holding them and the Pod (when --fakeapi is given): seconds, peak RSS, bytes printed. Figures, not a test:
tests/e2e/run_attack.py and tests/unit/test_bounds.c assert the bounds.

Usage: attack25.py --gpuadmit BIN --work DIR [--fakeapi BIN]
"""
import argparse
import collections
import json
import os
import random
import ssl
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
from common import measured, use_e2e  # noqa: E402  (bench/common.py)
MB = 1 << 20


def inventory(nodes=5000):
    """nodes whole-GPU nodes of one shape, told apart only by their kubernetes.io/hostname label."""
    return {"kind": "GPUInventory",
            "nodes": [{"name": "n%05d" % i, "labels": {"kubernetes.io/hostname": "n%05d" % i},
                       "dialects": ["vendor"], "gpus": {"count": 8, "memory": "80Gi"}} for i in range(nodes)]}


def ray_groups(groups=4000):
    """A RayCluster of `groups` worker groups, each pinned to one hostname and asking one nvidia.com/gpu."""
    def worker(i):
        return {"groupName": "g%d" % i, "replicas": 1, "rayStartParams": {},
                "template": {"spec": {"nodeSelector": {"kubernetes.io/hostname": "x"},
                                      "containers": [{"name": "w", "image": "rayproject/ray:2.52.0",
                                                      "resources": {"limits": {"nvidia.com/gpu": "1"}}}]}}}
    head = {"rayStartParams": {}, "template": {"spec": {"containers": [{"name": "h", "image": "rayproject/ray"}]}}}
    return {"apiVersion": "ray.io/v1", "kind": "RayCluster", "metadata": {"name": "groups", "namespace": "ray"},
            "spec": {"headGroupSpec": head, "workerGroupSpecs": [worker(i) for i in range(groups)]}}


HAMI_REGISTER = "hami.io/node-nvidia-register"


def hami_node(i, cards=8):
    """A HAMi node (v2.8+ register form) of `cards` A100s of 80 GB, 10 vGPUs each."""
    name = "h%05d" % i
    register = [{"id": "GPU-%08x-0000-0000-0000-%012x" % (i, k), "index": k, "count": 10, "devmem": 81920, "devcore": 100,
                 "type": "NVIDIA A100-SXM4-80GB", "mode": "hami-core", "health": True} for k in range(cards)]
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name},
                         "annotations": {HAMI_REGISTER: json.dumps(register, separators=(",", ":")),
                                         "hami.io/node-handshake": "Requesting_2026.11.28 10:00:00"}},
            "status": {"allocatable": {"cpu": "64", "nvidia.com/gpu": str(10 * cards)}}}


def hami_uuid_pod(list_bytes=250 * 1000, seed=25):
    """A Pending HAMi Pod whose nvidia.com/use-gpuuuid lists about `list_bytes` bytes of UUIDs no card has."""
    rnd = random.Random(seed)
    uuids, size = [], 0
    while size < list_bytes:
        uuids.append("GPU-%08x-0000-0000-0000-%012x" % (rnd.getrandbits(32), rnd.getrandbits(48)))
        size += len(uuids[-1]) + 1
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "uuids", "namespace": "ml", "uid": "uid-uuids",
                         "annotations": {"nvidia.com/use-gpuuuid": ",".join(uuids)}},
            "spec": {"schedulerName": "hami-scheduler",
                     "containers": [{"name": "main", "image": "cuda:12",
                                     "resources": {"limits": {"nvidia.com/gpu": "1", "nvidia.com/gpumem": "4096"}}}]},
            "status": {"phase": "Pending"}}


def verbs_on_hami(args, work, pod, nodes):
    """validate, fit (the nodes as an inventory file) and explain -A (the fake API server holding them and the Pod)."""
    inv, pod_file = os.path.join(work, "hami-nodes.json"), os.path.join(work, "hami-pod.json")
    with open(inv, "w") as f:
        json.dump({"apiVersion": "v1", "kind": "List", "items": nodes}, f, separators=(",", ":"))
    with open(pod_file, "w") as f:
        json.dump(pod, f, separators=(",", ":"))
    rows = [("validate", measured([args.gpuadmit, "validate", "--inventory", inv, pod_file])),
            ("fit", measured([args.gpuadmit, "fit", "--inventory", inv, pod_file]))]
    if args.fakeapi and os.access(args.fakeapi, os.X_OK):
        from run_cluster import Fake  # noqa: E402  (tests/e2e, on the path)
        fake = Fake("attack25", binary=args.fakeapi, work=work)
        try:
            fake.apply("nodes", *nodes)
            fake.apply("pods", pod)
            rows.append(("explain -A", measured([args.gpuadmit, "explain", "--kubeconfig", fake.kubeconfig, "-A"])))
        finally:
            fake.stop()
    print()
    print("| HAMi %d KB use-gpuuuid list, %d nodes | seconds | peak RSS | printed | exit |" % (len(pod["metadata"]["annotations"]["nvidia.com/use-gpuuuid"]) // 1000, len(nodes)))
    print("|---|---|---|---|---|")
    for verb, (sec, rss, printed, code) in rows:
        print("| `%s` | %.2f s | %.1f MiB | %d bytes | %d |" % (verb, sec, rss, printed, code))


def pct(values, p):
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, (len(values) * p) // 100)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpuadmit", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--fakeapi", help="the fake API server (tests/fakeapi), for explain")
    args = ap.parse_args()
    use_e2e(args.gpuadmit, args.work)
    import run_attack as ra  # noqa: E402  (reads the environment at import)

    certs = os.path.join(args.work, "certs")
    ra.make_certs(certs)
    inv = os.path.join(args.work, "inventory.json")
    with open(inv, "w") as f:
        json.dump(inventory(), f, separators=(",", ":"))
    hami_nodes, hami_pod = [hami_node(i) for i in range(2000)], hami_uuid_pod()
    hami_inv = os.path.join(args.work, "hami-inventory.json")
    with open(hami_inv, "w") as f:
        json.dump({"apiVersion": "v1", "kind": "List", "items": hami_nodes}, f, separators=(",", ":"))
    trivial = json.dumps(ra.review(ra.KOORD_RATIO)).encode()
    attacks = [("RayCluster, 4,000 pinned groups", ra.compact(ra.review(ray_groups())), inv),
               ("rule-breaking review", ra.breaking_review(4100 * 1000), inv),
               ("rule-clean review", ra.clean_review(3800 * 1000), inv),
               ("HAMi 250 KB use-gpuuuid list, 2,000 HAMi nodes", ra.compact(ra.review(hami_pod)), hami_inv)]
    rows = []
    for name, body, inventory_file in attacks:
        for clients in (1, 4):
            s = ra.Server("a25", certs, "--inventory", inventory_file, "--threads", "2")
            time.sleep(0.5)
            idle = ra.proc_status(s.proc.pid, "VmRSS")
            statuses, lat, done = collections.Counter(), [], threading.Event()
            longest = [0.0]

            def attacker():
                t0 = time.monotonic()
                try:
                    status, _, r = ra.post(s, "/validate", body)
                    key = "503+RA" if status == 503 and r.getheader("Retry-After") else str(status)
                except (ConnectionError, ssl.SSLError, OSError):
                    key = "reset"
                longest[0] = max(longest[0], time.monotonic() - t0)
                statuses[key] += 1

            def prober():
                while not done.is_set():
                    t0 = time.monotonic()
                    try:
                        ra.post(s, "/validate", trivial)
                        lat.append(time.monotonic() - t0)
                    except (ConnectionError, ssl.SSLError, OSError):
                        statuses["trivial reset"] += 1

            p = threading.Thread(target=prober)
            p.start()
            threads = [threading.Thread(target=attacker) for _ in range(clients)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            done.set()
            p.join()
            time.sleep(2)
            rows.append((name, len(body) / 1e6, clients, dict(statuses), idle / MB,
                         ra.proc_status(s.proc.pid, "VmHWM") / MB, ra.proc_status(s.proc.pid, "VmRSS") / MB,
                         pct(lat, 50), pct(lat, 99), longest[0], len(lat)))
            s.stop()
    print("| attack | MB | clients | answers | idle RSS | peak RSS | RSS after | trivial p50 | trivial p99 | slowest attack "
          "| trivial sent |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print("| %s | %.1f | %d | %s | %.1f MiB | %.1f MiB | %.1f MiB | %.3f s | %.3f s | %.2f s | %d |"
              % (r[0], r[1], r[2], ", ".join("%s: %d" % kv for kv in sorted(r[3].items())), *r[4:]))
    verbs_on_hami(args, args.work, hami_pod, hami_nodes)


if __name__ == "__main__":
    main()
