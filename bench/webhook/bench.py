#!/usr/bin/env python3
"""bench-webhook: gpuadmit serve against the two reference servers of /work/shared/bench, in the same run.

Load: wrk (HTTP/1.1 keep-alive over TLS, 16 connections, one load thread, --latency) POSTing the realistic 5 KB
Pod AdmissionReview (bench/data/review-pod-5k.json) to /validate and /mutate. The reference servers are built
here from /work/shared/bench at bench time (never committed): h2o-ceiling (the least a webhook on this stack
must do) and go-baseline (net/http + encoding/json). Prints req/s, p50/p99, the ratios against the goals, and
gpuadmit's RSS after 100k and 200k requests (flat = no growth per request).

Usage: bench.py --gpuadmit PATH --work DIR [--duration 5] [--shared /work/shared/bench]
"""
import argparse
import json
import os
import re
import socket
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REVIEW = os.path.join(HERE, "..", "data", "review-pod-5k.json")


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def build_refs(shared, work):
    ceiling = os.path.join(work, "h2o-ceiling")
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "libh2o-evloop", "openssl"], capture_output=True,
                           text=True, check=True).stdout.split()
    subprocess.run(["cc", "-O2", "-DH2O_USE_LIBUV=0", "-o", ceiling, os.path.join(shared, "h2o-ceiling.c"), *flags,
                    "-lpthread"], check=True)
    gobase = os.path.join(work, "go-baseline")
    env = dict(os.environ, GO111MODULE="off", GOCACHE=os.path.join(work, "gocache"))
    subprocess.run(["go", "build", "-o", gobase, "."], cwd=os.path.join(shared, "go-baseline"), env=env, check=True)
    return ceiling, gobase


def wait_port(port, timeout=10):
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("nothing listening on %d" % port)


def wrk(port, path, duration, work):
    script = os.path.join(work, "post.lua")
    with open(REVIEW) as f:
        body = f.read()
    with open(script, "w") as f:
        f.write('wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\nwrk.body = %s\n'
                % json.dumps(body))
    out = subprocess.run(["wrk", "-t1", "-c16", "-d%ds" % duration, "--latency", "-s", script,
                          "https://127.0.0.1:%d%s" % (port, path)], capture_output=True, text=True, check=True).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    lat = {}
    for pct, val, unit in re.findall(r"^\s+(50|99)%\s+([\d.]+)(us|ms|s)\s*$", out, re.M):
        lat[pct] = float(val) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    errors = re.search(r"Socket errors: (.*)", out)
    return {"rps": rps, "p50_ms": lat.get("50"), "p99_ms": lat.get("99"),
            "non2xx": int(non2xx.group(1)) if non2xx else 0, "errors": errors.group(1) if errors else ""}


def rss_kb(pid):
    with open("/proc/%d/status" % pid) as f:
        return int(re.search(r"VmRSS:\s+(\d+)", f.read()).group(1))


def h2load(port, path, n):
    out = subprocess.run(["h2load", "--h1", "-n", str(n), "-c", "16", "-t", "1", "-H", "Content-Type: application/json",
                          "-d", REVIEW, "https://127.0.0.1:%d%s" % (port, path)], capture_output=True, text=True).stdout
    m = re.search(r"(\d+) succeeded, (\d+) failed", out)
    return int(m.group(1)), int(m.group(2))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpuadmit", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--duration", type=int, default=5)
    ap.add_argument("--shared", default="/work/shared/bench")
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    ceiling, gobase = build_refs(a.shared, a.work)
    certs = os.path.join(a.work, "certs")
    subprocess.run([a.gpuadmit, "certs", "--service", "gpuadmit", "--namespace", "bench", "--out", certs], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    crt, key = os.path.join(certs, "tls.crt"), os.path.join(certs, "tls.key")
    threads = str(os.cpu_count() or 1)
    ports = {n: free_port() for n in ("gpuadmit", "h2o-ceiling", "go-baseline")}
    log = open(os.path.join(a.work, "gpuadmit.log"), "w")
    procs = {
        "gpuadmit": subprocess.Popen([a.gpuadmit, "serve", "--cert", crt, "--key", key, "--listen",
                                      "127.0.0.1:%d" % ports["gpuadmit"], "--metrics-listen", "", "--log-level", "warn"],
                                     stderr=log),
        "h2o-ceiling": subprocess.Popen([ceiling, crt, key, str(ports["h2o-ceiling"]), threads]),
        "go-baseline": subprocess.Popen([gobase, "-listen", "127.0.0.1:%d" % ports["go-baseline"], "-cert", crt,
                                         "-key", key], stderr=subprocess.DEVNULL),
    }
    try:
        for p in ports.values():
            wait_port(p)
        results = {}
        for path in ("/validate", "/mutate"):
            for name in ("gpuadmit", "h2o-ceiling", "go-baseline"):
                wrk(ports[name], path, 1, a.work)  # warm-up: handshakes, page faults, Go's heap
                results[(name, path)] = wrk(ports[name], path, a.duration, a.work)
        pid = procs["gpuadmit"].pid
        rss0 = rss_kb(pid)
        ok1, bad1 = h2load(ports["gpuadmit"], "/mutate", 100000)
        rss1 = rss_kb(pid)
        ok2, bad2 = h2load(ports["gpuadmit"], "/validate", 100000)
        rss2 = rss_kb(pid)
    finally:
        for p in procs.values():
            p.terminate()
        for p in procs.values():
            p.wait(15)
    print("%-12s %-9s %10s %9s %9s %8s" % ("server", "path", "req/s", "p50 ms", "p99 ms", "non-2xx"))
    for (name, path), r in results.items():
        print("%-12s %-9s %10.0f %9.2f %9.2f %8d %s" % (name, path, r["rps"], r["p50_ms"], r["p99_ms"], r["non2xx"],
                                                      r["errors"]))
    print()
    verdicts = []
    for path in ("/validate", "/mutate"):
        g, c, b = (results[(n, path)] for n in ("gpuadmit", "h2o-ceiling", "go-baseline"))
        vs_go, vs_ceiling, p99 = g["rps"] / b["rps"], g["rps"] / c["rps"], g["p99_ms"] / c["p99_ms"]
        verdicts += [vs_go >= 1.7, vs_ceiling >= 0.85, p99 <= 1.5]
        print("%-9s gpuadmit/go-baseline %.2fx (goal >= 1.7)  gpuadmit/h2o-ceiling %.2fx (goal >= 0.85)  "
              "p99 vs ceiling %.2fx (goal <= 1.5)" % (path, vs_go, vs_ceiling, p99))
    print("RSS gpuadmit: %.1f MB after warm-up runs, %.1f MB after +100k requests (%d ok, %d failed), "
          "%.1f MB after +200k (%d ok, %d failed) (goal <= 16 MB, flat)"
          % (rss0 / 1024, rss1 / 1024, ok1, bad1, rss2 / 1024, ok2, bad2))
    verdicts += [rss2 <= 16 * 1024, rss2 - rss1 <= 512]
    print("goals met: %d of %d" % (sum(verdicts), len(verdicts)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
