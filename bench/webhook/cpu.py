#!/usr/bin/env python3
"""bench-webhook-cpu: the heaviest reviews for the allocator (tests/e2e/heavy.py) against `gpuadmit serve` on an
inventory of 5,000 nodes, on loopback. Prints, per binary: each heavy review alone (seconds, verdict), then 4
clients sending heavy reviews back to back while a fifth sends a trivial review every 50 ms: the trivial
review's p50 / p99 / max, and the slowest heavy review. Figures, not a test (tests/e2e/run_cpu.py holds the
bounded regression tests). --baseline BIN runs the same against another build (e.g. main's) in the same run:
`python3 bench/webhook/cpu.py --gpuadmit build/gpuadmit --work /tmp/w --baseline OTHER/gpuadmit`.

Usage: cpu.py --gpuadmit BIN --work DIR [--baseline BIN] [--seconds N]
"""
import argparse
import json
import os
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def verdict(status, data):
    if status != 200:
        return "HTTP %d" % status
    r = json.loads(data)["response"]
    if not r["allowed"]:
        return "denied"
    return "allowed, could not prove" if any("could not prove" in w for w in r.get("warnings") or []) else "allowed"


def run(rc, e2e, binary, name, bodies, inventory, seconds):
    e2e.GPUADMIT = binary
    s = rc.Server(name, rc.CERTS, "--inventory", inventory)
    rows = []
    try:
        c = rc.Client(s)
        for attack in ("volcano", "notin", "noop", "trivial"):
            status, data, took = c.post(bodies[attack])
            rows.append("| %s | %s alone | %.2f s | %s |" % (name, attack, took, verdict(status, data)))
        stop, heavy, trivial = threading.Event(), [], []

        def attacker(i):
            cl, names, n = rc.Client(s), ("volcano", "noop", "notin"), i
            while not stop.is_set():
                try:
                    status, _, took = cl.post(bodies[names[n % 3]])
                except OSError:  # no answer within the client's 60 s: the request is lost
                    status, took, cl = 0, 60.0, rc.Client(s)
                heavy.append((status, took))
                n += 1

        threads = [threading.Thread(target=attacker, args=(i,), daemon=True) for i in range(4)]
        for t in threads:
            t.start()
        time.sleep(1)
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            trivial.append(c.post(bodies["trivial"])[2])
            time.sleep(0.05)
        stop.set()
        for t in threads:
            t.join(120)
        p = sorted(trivial)
        rows.append("| %s | trivial while 4 clients attack | p50 %.3f s, p99 %.3f s, max %.3f s (%d) | |"
                    % (name, p[len(p) // 2], p[min(len(p) - 1, int(len(p) * 0.99))], p[-1], len(p)))
        rows.append("| %s | heavy reviews meanwhile | max %.2f s (%d, %d not 200) | |"
                    % (name, max(t for _, t in heavy), len(heavy), sum(1 for st, _ in heavy if st != 200)))
    finally:
        s.kill()
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpuadmit", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--baseline")
    ap.add_argument("--seconds", type=float, default=10)
    args = ap.parse_args()
    os.environ["GPUADMIT"] = args.gpuadmit
    os.environ["E2E_WORK"] = args.work
    sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "e2e"))
    import heavy  # noqa: E402
    import run_cpu as rc  # noqa: E402  (reads the environment at import)
    import run_e2e  # noqa: E402

    rc.CERTS = os.path.join(args.work, "certs")
    rc.make_certs(rc.CERTS)
    files = heavy.write(os.path.join(args.work, "heavy"))
    bodies = {}
    for k, path in files.items():
        with open(path, "rb") as f:
            bodies[k] = f.read()
    rows = run(rc, run_e2e, args.gpuadmit, "gpuadmit", bodies, files["inventory"], args.seconds)
    if args.baseline:
        rows += run(rc, run_e2e, args.baseline, "baseline", bodies, files["inventory"], args.seconds)
    print("| server | what | time | verdict |\n|---|---|---|---|")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
