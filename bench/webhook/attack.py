#!/usr/bin/env python3
"""bench-webhook-attack: the attacks of issues 13 and 17 at their full size against `gpuadmit serve` (defaults, 2
workers as the chart runs it), on loopback. Prints one row per attack: what the server refused, its peak RSS (VmHWM) and its RSS once the attack is
over. Figures, not a test: tests/e2e/run_attack.py holds the bounded regression tests.

Usage: attack.py --gpuadmit BIN --work DIR
"""
import argparse
import json
import os
import resource
import socket
import ssl
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
MB = 1 << 20


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpuadmit", required=True)
    ap.add_argument("--work", required=True)
    args = ap.parse_args()
    os.environ["GPUADMIT"] = args.gpuadmit
    os.environ["E2E_WORK"] = args.work
    sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "e2e"))
    import run_attack as ra  # noqa: E402  (reads the environment at import)

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    certs = os.path.join(args.work, "certs")
    ra.make_certs(certs)
    rows = []

    def server(name, *flags, wrap=()):
        if not wrap:
            return ra.Server(name, certs, *flags)
        orig = subprocess.Popen
        subprocess.Popen = lambda cmd, *a, **kw: orig([*wrap, *cmd], *a, **kw)
        try:
            return ra.Server(name, certs, *flags)
        finally:
            subprocess.Popen = orig

    def finish(name, s, conns, note):
        for c in conns:
            try:
                c.close()
            except OSError:
                pass
        deadline = time.time() + 60
        while s.metrics()["gpuadmit_connections"] != 0 and time.time() < deadline:
            time.sleep(0.2)
        time.sleep(1)
        m = s.metrics()
        ok = ra.post(s, "/validate", json.dumps(ra.review(ra.KOORD_RATIO)).encode())[0]
        rows.append((name, m['gpuadmit_connections_refused_total{limit="max-connections"}'],
                     m["gpuadmit_connections_shed_total"], ra.proc_status(s.proc.pid, "VmHWM") / MB,
                     ra.proc_status(s.proc.pid, "VmRSS") / MB, ok, note))
        s.stop()

    # 10,000 connections that send a 5-byte TLS record header and wait.
    s = server("tls-headers")
    conns = []
    for _ in range(10000):
        try:
            c = socket.create_connection(("127.0.0.1", s.port), timeout=5)
            c.sendall(b"\x16\x03\x01\x02\x00")
            conns.append(c)
        except OSError:
            pass
    finish("10,000 TLS record headers", s, conns, "")

    # 256 connections, each a body one byte short of the 4 MiB cap.
    s = server("bodies", "--request-timeout", "60s")
    cap, conns = 4 * MB, []
    head = b"POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % cap
    for _ in range(256):
        try:
            c = ra.raw_connect(s)
            c.sendall(head)
            conns.append(c)
        except (OSError, ssl.SSLError):
            pass
    sent, live, chunk = [0] * len(conns), list(range(len(conns))), b" " * (256 * 1024)
    while live:
        for i in list(live):
            want = min(len(chunk), cap - 1 - sent[i])
            try:
                conns[i].sendall(chunk[:want])
                sent[i] += want
            except (OSError, ssl.SSLError):
                live.remove(i)
                continue
            if sent[i] >= cap - 1:
                live.remove(i)
    finish("256 bodies of 4 MiB - 1", s, conns, "%d MB sent" % (sum(sent) // MB))

    # 400 silent connections at a 256-descriptor limit.
    s = server("emfile", "--handshake-timeout", "60s", wrap=("prlimit", "--nofile=256:256", "--"))
    keep = ra.raw_connect(s)
    conns = [socket.create_connection(("127.0.0.1", s.port), timeout=5) for _ in range(400)]
    time.sleep(0.5)
    before = ra.cpu_seconds(s.proc.pid)
    time.sleep(2)
    cpu = ra.cpu_seconds(s.proc.pid) - before
    keep.sendall(ra.http_request(None, "/validate", json.dumps(ra.review(ra.KOORD_RATIO)).encode()))
    served = ra.read_response(keep)[0]
    finish("400 silent at 256 descriptors", s, conns + [keep],
           "%.2f s CPU in 2 s paused; open connection answered %d" % (cpu, served))

    # Issue 17: judging large objects (one server each, so each peak is its own).
    def judge(name, body, clients):
        s = server(name, "--threads", "2")
        results = []

        def client():
            results.append(ra.post_until_judged(s, body))

        threads = [threading.Thread(target=client) for _ in range(clients)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        allowed = sum(1 for a, _ in results if a["allowed"])
        finish("%d x %s (%.1f MB)" % (clients, name, len(body) / 1e6), s, [],
               "%d allowed, %d denied, %d tries shed" % (allowed, len(results) - allowed, sum(n for _, n in results)))

    judge("rule-breaking review", ra.breaking_review(2900 * 1000), 1)
    judge("rule-breaking review", ra.breaking_review(4100 * 1000), 1)
    judge("rule-clean review", ra.clean_review(3800 * 1000), 4)
    judge("review of GPU containers", ra.gpu_containers_review(3700 * 1000), 1)

    print("| attack | refused (cap) | reset (budget) | peak RSS | RSS after | valid request after | note |")
    print("|---|---|---|---|---|---|---|")
    for name, refused, shed, peak, after, ok, note in rows:
        print("| %s | %d | %d | %.1f MB | %.1f MB | %d | %s |" % (name, refused, shed, peak, after, ok, note))


if __name__ == "__main__":
    main()
