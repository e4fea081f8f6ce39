#!/usr/bin/env python3
"""bench-live: `gpuadmit serve --cluster-inventory` on a large fake cluster (docs/cluster.md).

The fake API server (tests/fakeapi) is filled with 5,000 Koordinator GPU nodes of 8 GPUs each (their Node and
Device objects) and 100,000 scheduled Pods, half of them holding a GPU share (device-allocated), half CPU only.
Measured: the first sync (process start to /readyz 200), the RSS of the serving process after it, the time one
watch event takes to apply (gpuadmit_cluster_apply_seconds over a burst of Pod updates), the time a new inventory
takes to build, and /validate throughput (wrk, 16 keep-alive TLS connections, the 5 KB GPU-share Pod review of
bench/data) with the live inventory against the same server without any inventory. Prints a table; no pass/fail.

Usage: bench.py --gpuadmit PATH --fakeapi PATH --work DIR [--nodes 5000] [--pods 100000] [--duration 5] [--rounds 3]
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "webhook"))
sys.path.insert(1, os.path.join(HERE, "..", "..", "tests", "e2e"))
import bench as webhook_bench  # noqa: E402
from bench import free_port, rss_kb, wait_port  # noqa: E402
from run_cluster import Fake  # noqa: E402

ZONES = ["zone-a", "zone-b", "zone-c"]
MODELS = ["A100-SXM4-80GB", "H100-SXM5-80GB"]


def node(i):
    name = "gpu-%04d" % i
    labels = {"kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64",
              "topology.kubernetes.io/zone": ZONES[i % 3], "node.kubernetes.io/instance-type": "gpu-8x",
              "node.koordinator.sh/gpu-model": MODELS[i % 2], "node.koordinator.sh/gpu-vendor": "nvidia",
              "node-role.kubernetes.io/worker": ""}
    return {"metadata": {"name": name, "labels": labels},
            "status": {"allocatable": {"cpu": "96", "memory": "1000Gi", "pods": "110", "nvidia.com/gpu": "8",
                                       "koordinator.sh/gpu-core": "800", "koordinator.sh/gpu-memory": "640Gi",
                                       "koordinator.sh/gpu-memory-ratio": "800"}}}


def device(i):
    devs = [{"type": "gpu", "minor": m, "health": True, "id": "GPU-%04d-%d" % (i, m),
             "resources": {"koordinator.sh/gpu-core": "100", "koordinator.sh/gpu-memory": "80Gi",
                           "koordinator.sh/gpu-memory-ratio": "100"}} for m in range(8)]
    return {"metadata": {"name": "gpu-%04d" % i}, "spec": {"devices": devs}}


def pod(j, nodes, gpu, generation=0):
    meta = {"name": "job-%06d" % j, "namespace": "team-%d" % (j % 20), "uid": "uid-%d" % j,
            "labels": {"app": "job-%d" % (j % 500), "generation": str(generation)}}
    res = {"requests": {"cpu": "2", "memory": "8Gi"}, "limits": {"cpu": "4", "memory": "16Gi"}}
    if gpu:
        share = {"koordinator.sh/gpu-core": "25", "koordinator.sh/gpu-memory-ratio": "25"}
        res["requests"].update(share)
        res["limits"].update(share)
        minor = (j // 2 // nodes) % 8
        meta["annotations"] = {"scheduling.koordinator.sh/device-allocated": json.dumps(
            {"gpu": [{"minor": minor, "resources": {"koordinator.sh/gpu-core": "25", "koordinator.sh/gpu-memory": "20Gi",
                                                     "koordinator.sh/gpu-memory-ratio": "25"}}]})}
    return {"metadata": meta,
            "spec": {"nodeName": "gpu-%04d" % ((j // 2) % nodes), "schedulerName": "koord-scheduler",
                     "containers": [{"name": "main", "image": "registry.example.com/train:1.0", "resources": res}]},
            "status": {"phase": "Running"}}


def list_seconds(fake, path):
    """How long the fake takes to serve one full paged list (500 a page, as the reflector asks), bytes unread."""
    t, cont = time.time(), ""
    while True:
        req = urllib.request.Request(fake.url + path + "?limit=500" + ("&continue=" + cont if cont else ""),
                                     headers={"Authorization": "Bearer test-token"})
        body = urllib.request.urlopen(req, context=fake.ctx, timeout=300).read()
        m = re.search(rb'"continue":"([^"]*)"', body)
        cont = m.group(1).decode() if m else ""
        if not cont:
            return time.time() - t


def cpu_seconds(pid):
    """utime + stime of a process, seconds."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wrk(port, path, duration, work):
    """bench/webhook's wrk run, with the number of requests answered."""
    r = webhook_bench.wrk(port, path, duration, work)
    r["requests"] = r["rps"] * duration
    return r


def metrics(port):
    with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port, timeout=10) as r:
        text = r.read().decode()
    out = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            k, v = line.rsplit(" ", 1)
            out[k] = float(v)
    return out


def ready(port):
    try:
        with urllib.request.urlopen("http://127.0.0.1:%d/readyz" % port, timeout=5) as r:
            return r.status == 200
    except (urllib.error.URLError, OSError):
        return False


def serve(gpuadmit, certs, work, name, *extra):
    port, mport = free_port(), free_port()
    log = open(os.path.join(work, name + ".log"), "w")
    proc = subprocess.Popen([gpuadmit, "serve", "--cert", os.path.join(certs, "tls.crt"), "--key",
                             os.path.join(certs, "tls.key"), "--listen", "127.0.0.1:%d" % port, "--metrics-listen",
                             "127.0.0.1:%d" % mport, "--log-level", "warn", *extra], stderr=log)
    return proc, port, mport


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpuadmit", required=True)
    ap.add_argument("--fakeapi", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--nodes", type=int, default=5000)
    ap.add_argument("--pods", type=int, default=100000)
    ap.add_argument("--events", type=int, default=2000)
    ap.add_argument("--duration", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    certs = os.path.join(a.work, "certs")
    subprocess.run([a.gpuadmit, "certs", "--service", "gpuadmit", "--namespace", "bench", "--out", certs], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    fake = Fake("bench", "-bookmark-ms", "10000", binary=a.fakeapi, work=a.work)
    rows = []
    try:
        t = time.time()
        fake.apply("nodes", *[node(i) for i in range(a.nodes)])
        fake.apply("devices", *[device(i) for i in range(a.nodes)])
        fake.apply("pods", *[pod(j, a.nodes, j % 2 == 0) for j in range(a.pods)])
        rows.append(("fake cluster filled", "%.1f s" % (time.time() - t),
                     "%d nodes x 8 GPUs, %d Pods (%d with a GPU share)" % (a.nodes, a.pods, (a.pods + 1) // 2)))

        rows.append(("the fake alone: one paged list of Pods", "%.2f s" % list_seconds(fake, "/api/v1/pods"),
                     "the API server's share of the first sync"))
        proc, port, mport = serve(a.gpuadmit, certs, a.work, "live", "--cluster-inventory", "--kubeconfig", fake.kubeconfig)
        t0 = time.time()
        while not ready(mport):
            if proc.poll() is not None:
                raise RuntimeError("gpuadmit exited: see %s" % os.path.join(a.work, "live.log"))
            time.sleep(0.02)
        rows.append(("first sync (start to /readyz 200)", "%.2f s" % (time.time() - t0), "goal <= 5 s"))
        rows.append(("first sync, gpuadmit's CPU", "%.2f s" % cpu_seconds(proc.pid),
                     "user + system, all threads (load on the machine does not inflate it)"))
        time.sleep(1)
        m = metrics(mport)
        rows.append(("RSS after sync", "%.1f MB" % (rss_kb(proc.pid) / 1024), "goal <= 150 MB"))
        rows.append(("objects held", "%d nodes, %d devices, %d pods" % (
            m['gpuadmit_cluster_objects{kind="nodes"}'], m['gpuadmit_cluster_objects{kind="devices"}'],
            m['gpuadmit_cluster_objects{kind="pods"}']), "CPU-only Pods are not held"))
        sync_avg = m["gpuadmit_cluster_apply_seconds_sum"] / max(m["gpuadmit_cluster_apply_seconds_count"], 1)
        rows.append(("object applied during the sync", "%.1f us" % (sync_avg * 1e6), "mean over %d objects" %
                     m["gpuadmit_cluster_apply_seconds_count"]))
        rows.append(("new inventory built", "%.1f ms" % (m["gpuadmit_cluster_snapshot_build_seconds"] * 1e3),
                     "the last one (wall clock); the next after at least 4x that"))

        before = m
        updates = [pod(j, a.nodes, j % 2 == 0, generation=1) for j in range(a.events)]
        fake.apply("pods", *updates, batch=a.events)
        key = 'gpuadmit_cluster_events_total{kind="pods"}'
        deadline = time.time() + 60
        while metrics(mport)[key] < before[key] + a.events and time.time() < deadline:
            time.sleep(0.05)
        after = metrics(mport)
        n = after["gpuadmit_cluster_apply_seconds_count"] - before["gpuadmit_cluster_apply_seconds_count"]
        s = after["gpuadmit_cluster_apply_seconds_sum"] - before["gpuadmit_cluster_apply_seconds_sum"]
        rows.append(("one watch event applied", "%.1f us" % (s / max(n, 1) * 1e6),
                     "mean over %d Pod updates (judging included); goal <= 20 us" % n))

        # Both servers run side by side and are measured in turns (the machine may be shared): the best req/s of
        # each, and the server's own CPU time per request, which other load on the machine does not inflate.
        servers = {"live": (proc, port)}
        p2, port2, _ = serve(a.gpuadmit, certs, a.work, "plain")
        servers["plain"] = (p2, port2)
        wait_port(port2)
        best = {"live": None, "plain": None}
        cpu = {"live": [], "plain": []}
        for name in ("live", "plain"):
            wrk(servers[name][1], "/validate", 1, a.work)
        for _ in range(a.rounds):
            for name in ("live", "plain"):
                pid, p = servers[name][0].pid, servers[name][1]
                c0 = cpu_seconds(pid)
                r = wrk(p, "/validate", a.duration, a.work)
                cpu[name].append((cpu_seconds(pid) - c0) / max(r["requests"], 1) * 1e6)
                if best[name] is None or r["rps"] > best[name]["rps"]:
                    best[name] = r
        for p, _ in servers.values():
            p.terminate()
            p.wait(30)
        live, plain = best["live"], best["plain"]
        live_cpu, plain_cpu = min(cpu["live"]), min(cpu["plain"])
        rows.append(("/validate, live inventory", "%.0f req/s" % live["rps"],
                     "p99 %.2f ms, %.1f us CPU a request" % (live["p99_ms"], live_cpu)))
        rows.append(("/validate, no inventory", "%.0f req/s" % plain["rps"],
                     "p99 %.2f ms, %.1f us CPU a request" % (plain["p99_ms"], plain_cpu)))
        rows.append(("load average while measuring", "%.1f" % os.getloadavg()[0], "%d CPUs" % os.cpu_count()))
        rows.append(("throughput ratio (best req/s)", "%.2fx" % (live["rps"] / plain["rps"]), "goal >= 0.9x"))
        rows.append(("throughput ratio (CPU a request)", "%.2fx" % (plain_cpu / live_cpu), "goal >= 0.9x"))
    finally:
        fake.stop()
    width = max(len(r[0]) for r in rows)
    for what, value, note in rows:
        print("%-*s  %16s  %s" % (width, what, value, note))
    return 0


if __name__ == "__main__":
    sys.exit(main())
