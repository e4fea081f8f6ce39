#!/usr/bin/env python3
"""bench-webhook-attack25: issue 25's attacks against `gpuadmit serve` (2 workers, as the chart runs it) on loopback,
with an inventory of 5,000 GPU nodes each with its own hostname. For each attack, 1 then 4 clients post the attack
body at once (each once, no retry) while a prober sends trivial reviews one after another. Prints one row per run:
the answers' status counts (a reset is a request closed without an answer), peak RSS (VmHWM), RSS after, and the
trivial reviews' p50/p99 latency. Figures, not a test: tests/e2e/run_attack.py asserts the bounds.

Usage: attack25.py --gpuadmit BIN --work DIR
"""
import argparse
import collections
import json
import os
import ssl
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
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


def pct(values, p):
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, (len(values) * p) // 100)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpuadmit", required=True)
    ap.add_argument("--work", required=True)
    args = ap.parse_args()
    os.environ["GPUADMIT"] = args.gpuadmit
    os.environ["E2E_WORK"] = args.work
    sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "e2e"))
    import run_attack as ra  # noqa: E402  (reads the environment at import)

    certs = os.path.join(args.work, "certs")
    ra.make_certs(certs)
    inv = os.path.join(args.work, "inventory.json")
    with open(inv, "w") as f:
        json.dump(inventory(), f, separators=(",", ":"))
    trivial = json.dumps(ra.review(ra.KOORD_RATIO)).encode()
    attacks = [("RayCluster, 4,000 pinned groups", ra.compact(ra.review(ray_groups()))),
               ("rule-breaking review", ra.breaking_review(4100 * 1000)),
               ("rule-clean review", ra.clean_review(3800 * 1000))]
    rows = []
    for name, body in attacks:
        for clients in (1, 4):
            s = ra.Server("a25", certs, "--inventory", inv, "--threads", "2")
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
        print("| %s | %.1f | %d | %s | %.1f MB | %.1f MB | %.1f MB | %.3f s | %.3f s | %.2f s | %d |"
              % (r[0], r[1], r[2], ", ".join("%s: %d" % kv for kv in sorted(r[3].items())), *r[4:]))


if __name__ == "__main__":
    main()
