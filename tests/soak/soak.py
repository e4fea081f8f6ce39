#!/usr/bin/env python3
"""Soak of `gpuadmit serve`: a set time of mixed traffic on loopback, with reloads in the middle, and checks.

    tests/soak/soak.py --gpuadmit BUILD/gpuadmit [--duration 45] [--concurrency 4] [--work DIR] [--seed N]
                       [--rss-tolerance 0.10 | --no-rss-check] [--warm-up SECONDS]

Traffic: `--concurrency` client threads, each on its own HTTPS keep-alive connection (a new one every 50
requests, so handshakes keep happening across the certificate rotation), POST a random mix to /validate and
/mutate: valid reviews that are admitted, denied and mutated (the AdmissionReviews and objects of examples/, plus
two Pods whose verdict the reloads change), and malformed bodies (not JSON, truncated, not an AdmissionReview, no
uid, ...).

In the middle (at 40% of the run) the serving certificate is rotated (the `..data` symlink swap of a mounted
Secret, to a certificate made by `gpuadmit certs`), then (at 50%) the configuration is rewritten (minDeviceMemory
256Mi to 1Gi) and a file of the inventory directory is replaced (the A100 node goes away); each is waited for in
the server's log ("reloaded").

Checks, any failure is exit 1:
- every valid request is answered 200 (no connection error, no 5xx) with exactly the AdmissionReview that
  `gpuadmit review` prints for the same file, webhook, configuration and inventory (before the reloads: the old
  ones; after the server logged them: the new ones; in between: either);
- every malformed request is answered 400 (docs/webhook.md: a body that is not an AdmissionReview);
- a new handshake after the rotation gets the new certificate;
- the server's RSS (VmRSS of /proc/PID/status, sampled every 0.5 s) stays within --rss-tolerance of its value at
  the end of the warm-up (default: a quarter of the run, at least 5 s) for the rest of the run (not meaningful
  under AddressSanitizer, whose quarantine grows: --no-rss-check);
- the server never restarts: the same process throughout, one "serving" line in its log, and it exits 0 on
  SIGTERM at the end.

Prints a table of what was sent and measured. The long run: docs/testing.md#soak.
"""
import argparse
import http.client
import json
import os
import random
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
SERVICE, NAMESPACE = "gpuadmit", "gpuadmit-system"
SERVER_NAME = "%s.%s.svc" % (SERVICE, NAMESPACE)
HOOKS = ("validate", "mutate")

CONFIG_BEFORE = "minDeviceMemory: 256Mi\n"
CONFIG_AFTER = "minDeviceMemory: 1Gi\n"
INVENTORY_L4 = """kind: GPUInventory
nodes:
- name: l4
  replicas: 2
  gpus: {count: 2, memory: 24Gi, model: NVIDIA-L4}
"""
INVENTORY_A100_BEFORE = """kind: GPUInventory
nodes:
- name: a100
  gpus: {count: 8, memory: 80Gi, model: NVIDIA-A100-SXM4-80GB}
"""
INVENTORY_A100_AFTER = "kind: GPUInventory\nnodes: []\n"


def pod(name, limits):
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "soak"},
            "spec": {"containers": [{"name": "main", "image": "busybox", "resources": {"limits": limits}}]}}


# Verdicts the reloads change: 512Mi per device passes 256Mi, fails 1Gi; 40Gi fits only the A100 node.
CHANGING = [
    pod("half-gig", {"koordinator.sh/gpu-memory": "512Mi", "koordinator.sh/gpu.shared": "1"}),
    pod("forty-gig", {"koordinator.sh/gpu-memory": "40Gi", "koordinator.sh/gpu-core": "50",
                      "koordinator.sh/gpu.shared": "1"}),
]


def review(obj, uid, version="admission.k8s.io/v1"):
    meta = obj.get("metadata") or {}
    return {"apiVersion": version, "kind": "AdmissionReview",
            "request": {"uid": uid, "kind": {"group": "", "version": "v1", "kind": obj.get("kind", "")},
                        "namespace": meta.get("namespace", "default"), "name": meta.get("name", ""),
                        "operation": "CREATE", "userInfo": {"username": "soak"}, "object": obj, "dryRun": False}}


def valid_bodies():
    """(name, bytes): every object of examples/good and examples/bad as a review, the example reviews, CHANGING."""
    out = []
    for sub in ("good", "bad"):
        folder = os.path.join(ROOT, "examples", sub)
        for name in sorted(os.listdir(folder)):
            with open(os.path.join(folder, name)) as f:
                docs = [d for d in yaml.safe_load_all(f) if isinstance(d, dict)]
            for i, doc in enumerate(docs):
                if doc.get("kind") == "AdmissionReview":
                    out.append(("%s/%s" % (sub, name), json.dumps(doc).encode()))
                elif doc.get("kind") != "List":
                    out.append(("%s/%s#%d" % (sub, name, i), json.dumps(review(doc, "soak-%s-%s-%d" % (sub, name, i))).encode()))
    for obj in CHANGING:
        out.append(("changing/" + obj["metadata"]["name"], json.dumps(review(obj, "soak-" + obj["metadata"]["name"])).encode()))
    return out


def malformed_bodies(sample):
    return [("not json", b"hello"), ("truncated", sample[: len(sample) // 2]), ("array", b"[1,2,3]"), ("empty", b""),
            ("no request", b'{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}'),
            ("no uid", json.dumps({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
                                   "request": {"operation": "CREATE", "object": CHANGING[0]}}).encode()),
            ("wrong kind", json.dumps({"apiVersion": "v1", "kind": "Pod"}).encode()),
            ("bad operation", json.dumps({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
                                          "request": {"uid": "x", "operation": "PATCH", "object": CHANGING[0]}}).encode()),
            ("deep nesting", b"[" * 5000)]


class Connection(http.client.HTTPSConnection):
    """HTTPS to 127.0.0.1, the certificate verified for the Service's name (as kube-apiserver verifies it)."""

    def __init__(self, port, ctx):
        super().__init__("127.0.0.1", port, context=ctx, timeout=10)

    def connect(self):
        raw = socket.create_connection((self.host, self.port), self.timeout)
        raw.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # no 40 ms delayed-ACK stall per request
        self.sock = self._context.wrap_socket(raw, server_hostname=SERVER_NAME)


class Soak:
    def __init__(self, args):
        self.args = args
        self.work = args.work or tempfile.mkdtemp(prefix="gpuadmit-soak-")
        shutil.rmtree(self.work, ignore_errors=True)
        os.makedirs(self.work)
        self.rng = random.Random(args.seed)
        self.lock = threading.Lock()
        self.failures = []
        self.counts = {}
        self.latencies = []
        self.rss = []  # (seconds since start, kB)
        self.stop = threading.Event()
        self.change_started = self.change_done = None  # monotonic times around the config + inventory reload

    # ---- files ----

    def make_certs(self, version):
        out = os.path.join(self.certs, version)
        os.makedirs(out)
        if version != "..v0":  # the same CA signs every serving certificate, as a rotation by cert-manager does
            for f in ("ca.crt", "ca.key"):
                if os.path.exists(os.path.join(self.certs, "..v0", f)):
                    shutil.copy(os.path.join(self.certs, "..v0", f), out)
        subprocess.run([self.args.gpuadmit, "certs", "--service", SERVICE, "--namespace", NAMESPACE, "--out", out],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return out

    def swap_data(self, version):
        tmp = os.path.join(self.certs, "..data_tmp")
        os.symlink(version, tmp)
        os.rename(tmp, os.path.join(self.certs, "..data"))

    def write(self, path, text):
        with open(path + ".tmp", "w") as f:
            f.write(text)
        os.rename(path + ".tmp", path)

    def setup(self):
        self.certs = os.path.join(self.work, "certs")
        os.makedirs(self.certs)
        self.cert_dirs = [self.make_certs("..v0"), self.make_certs("..v1")]
        self.swap_data("..v0")
        for f in ("tls.crt", "tls.key"):
            os.symlink(os.path.join("..data", f), os.path.join(self.certs, f))
        self.config = os.path.join(self.work, "config.yaml")
        self.inventory = os.path.join(self.work, "inventory")
        os.makedirs(self.inventory)
        self.write(self.config, CONFIG_BEFORE)
        self.write(os.path.join(self.inventory, "l4.yaml"), INVENTORY_L4)
        self.write(os.path.join(self.inventory, "a100.yaml"), INVENTORY_A100_BEFORE)
        self.valid = valid_bodies()
        self.malformed = malformed_bodies(self.valid[0][1])
        self.expected = {"before": self.expect(CONFIG_BEFORE, INVENTORY_A100_BEFORE),
                         "after": self.expect(CONFIG_AFTER, INVENTORY_A100_AFTER)}
        changed = sum(self.expected["before"][k] != self.expected["after"][k] for k in self.expected["before"])
        if changed == 0:
            sys.exit("soak: the reloads change no verdict: the test would prove nothing")

    def expect(self, config, a100):
        """`gpuadmit review` of every valid body, for both webhooks, with this configuration and inventory."""
        d = tempfile.mkdtemp(dir=self.work)
        with open(os.path.join(d, "config.yaml"), "w") as f:
            f.write(config)
        os.makedirs(os.path.join(d, "inv"))
        with open(os.path.join(d, "inv", "l4.yaml"), "w") as f:
            f.write(INVENTORY_L4)
        with open(os.path.join(d, "inv", "a100.yaml"), "w") as f:
            f.write(a100)
        out = {}
        for i, (name, body) in enumerate(self.valid):
            path = os.path.join(d, "%d.json" % i)
            with open(path, "wb") as f:
                f.write(body)
            for hook in HOOKS:
                p = subprocess.run([self.args.gpuadmit, "review", "--webhook", hook, "--config", os.path.join(d, "config.yaml"),
                                    "--inventory", os.path.join(d, "inv"), path], capture_output=True)
                if p.returncode != 0:
                    sys.exit("soak: gpuadmit review %s %s: exit %d: %s" % (hook, name, p.returncode, p.stderr.decode()))
                out[(i, hook)] = json.loads(p.stdout)
        return out

    # ---- the server ----

    def start_server(self):
        self.log_path = os.path.join(self.work, "server.log")
        self.log = open(self.log_path, "w")
        self.proc = subprocess.Popen(
            [self.args.gpuadmit, "serve", "--cert", os.path.join(self.certs, "tls.crt"), "--key",
             os.path.join(self.certs, "tls.key"), "--listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0",
             "--config", self.config, "--inventory", self.inventory, "--threads", "2", "--reload-interval", "200ms"],
            stdout=subprocess.DEVNULL, stderr=self.log,
            # under AddressSanitizer: libh2o's per-thread buffers, freed by the exit (tests/e2e/lsan.supp)
            env=dict(os.environ, LSAN_OPTIONS="suppressions=" + os.path.join(ROOT, "tests", "e2e", "lsan.supp")))
        self.log_offset = 0
        self.log_lines = []
        line = self.wait_log(lambda l: l.get("msg") == "serving", 15)
        self.port = int(line["listen"].rsplit(":", 1)[1])

    def read_log(self):
        with open(self.log_path, "rb") as f:
            f.seek(self.log_offset)
            data = f.read()
        end = data.rfind(b"\n") + 1
        self.log_offset += end
        for raw in data[:end].splitlines():
            try:
                line = json.loads(raw)
            except ValueError:
                line = {"raw": raw.decode(errors="replace")}
            if line.get("msg") not in ("denied",):  # the per-request lines are many; keep the others
                self.log_lines.append(line)

    def wait_log(self, pred, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.read_log()
            for line in self.log_lines:
                if pred(line):
                    return line
            if self.proc.poll() is not None:
                sys.exit("soak: the server exited %s: %s" % (self.proc.returncode, open(self.log_path).read()[-2000:]))
            time.sleep(0.05)
        raise TimeoutError("soak: no such log line within %ss" % timeout)

    def vmrss_kb(self):
        with open("/proc/%d/status" % self.proc.pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        return 0

    def tls_context(self):
        ctx = ssl.create_default_context()
        for d in self.cert_dirs:
            ctx.load_verify_locations(os.path.join(d, "ca.crt"))
        return ctx

    def served_cert(self):
        with socket.create_connection(("127.0.0.1", self.port), timeout=5) as raw:
            with self.tls_context().wrap_socket(raw, server_hostname=SERVER_NAME) as s:
                return s.getpeercert(binary_form=True)

    # ---- traffic ----

    def fail(self, what):
        with self.lock:
            self.failures.append(what)

    def count(self, key):
        with self.lock:
            self.counts[key] = self.counts.get(key, 0) + 1

    def phases(self, sent):
        """Which expectations hold for a request sent at `sent`: the old files', the new ones', or either."""
        if self.change_started is None or sent < self.change_started:
            return ("before",)
        if self.change_done is not None and sent > self.change_done:
            return ("after",)
        return ("before", "after")

    def check(self, kind, index, hook, sent, status, body):
        if kind == "malformed":
            name = self.malformed[index][0]
            if status != 400 or b'"allowed":true' in body:
                self.fail("malformed %r to /%s: HTTP %s %r" % (name, hook, status, body[:200]))
            return
        name = self.valid[index][0]
        if status != 200:
            self.fail("%s to /%s: HTTP %s %r" % (name, hook, status, body[:200]))
            return
        got = json.loads(body)
        if not any(got == self.expected[p][(index, hook)] for p in self.phases(sent)):
            self.fail("%s to /%s (%s): got %s, gpuadmit review says %s" % (
                name, hook, "/".join(self.phases(sent)), json.dumps(got)[:400],
                json.dumps(self.expected[self.phases(sent)[-1]][(index, hook)])[:400]))
            return
        resp = got["response"]
        self.count("mutated" if "patch" in resp else "allowed" if resp["allowed"] else "denied")

    def client(self, seed):
        rng = random.Random(seed)
        ctx = self.tls_context()
        conn, used = None, 0
        while not self.stop.is_set():
            if conn is None or used >= 50:
                if conn is not None:
                    conn.close()
                conn = Connection(self.port, ctx)
                used = 0
            kind = "malformed" if rng.random() < 0.15 else "valid"
            pool = self.malformed if kind == "malformed" else self.valid
            index = rng.randrange(len(pool))
            hook = rng.choice(HOOKS)
            sent = time.monotonic()
            try:
                conn.request("POST", "/%s?timeout=10s" % hook, body=pool[index][1],
                             headers={"Content-Type": "application/json", "Host": SERVER_NAME})
                r = conn.getresponse()
                body = r.read()
                status = r.status
                if r.getheader("Connection", "").lower() == "close":
                    conn.close()
                    conn = None
            except (OSError, http.client.HTTPException) as e:
                self.fail("%s %r to /%s: %s: %s" % (kind, pool[index][0], hook, type(e).__name__, e))
                conn = None
                continue
            used += 1
            with self.lock:
                self.latencies.append(time.monotonic() - sent)
            self.count(kind)
            self.check(kind, index, hook, sent, status, body)

    def sample_rss(self, t0):
        while not self.stop.wait(0.5):
            if self.proc.poll() is None:
                self.rss.append((time.monotonic() - t0, self.vmrss_kb()))

    # ---- the run ----

    def run(self):
        a = self.args
        self.setup()
        self.start_server()
        pid = self.proc.pid
        t0 = time.monotonic()
        threads = [threading.Thread(target=self.client, args=(a.seed * 1000 + i,)) for i in range(a.concurrency)]
        threads.append(threading.Thread(target=self.sample_rss, args=(t0,)))
        for t in threads:
            t.start()
        try:
            self.middle(t0)
            time.sleep(max(0.0, a.duration - (time.monotonic() - t0)))
        finally:
            self.stop.set()
            for t in threads:
                t.join()
        elapsed = time.monotonic() - t0
        self.read_log()
        if self.proc.poll() is not None or self.proc.pid != pid:
            self.fail("the server is gone (exit %s)" % self.proc.returncode)
        if sum(1 for l in self.log_lines if l.get("msg") == "serving") != 1:
            self.fail("the server logged 'serving' more than once: it restarted")
        self.proc.send_signal(signal.SIGTERM)
        try:
            rc = self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            rc = "killed after 30 s"
        if rc != 0:
            self.fail("the server exited %s on SIGTERM" % rc)
        self.check_rss()
        self.report(elapsed)
        return 1 if self.failures else 0

    def middle(self, t0):
        a = self.args
        time.sleep(max(0.0, a.duration * 0.4 - (time.monotonic() - t0)))
        self.swap_data("..v1")
        self.wait_log(lambda l: l.get("msg") == "reloaded" and l.get("what") == "certificate", 10)
        with open(os.path.join(self.cert_dirs[1], "tls.crt")) as f:
            want = ssl.PEM_cert_to_DER_cert(f.read())
        if self.served_cert() != want:
            self.fail("a handshake after the rotation did not get the new certificate")
        time.sleep(max(0.0, a.duration * 0.5 - (time.monotonic() - t0)))
        self.change_started = time.monotonic()
        self.write(self.config, CONFIG_AFTER)
        self.write(os.path.join(self.inventory, "a100.yaml"), INVENTORY_A100_AFTER)
        for what in ("config", "inventory"):
            self.wait_log(lambda l: l.get("msg") == "reloaded" and l.get("what") == what, 10)
        self.change_done = time.monotonic()
        failed = [l for l in self.log_lines if str(l.get("msg", "")).startswith("reload failed")]
        if failed:
            self.fail("a reload failed: %s" % failed[0])

    def check_rss(self):
        a = self.args
        warm = a.warm_up if a.warm_up is not None else max(5.0, a.duration / 4)
        base = [kb for t, kb in self.rss if warm - 2 <= t <= warm]
        later = [kb for t, kb in self.rss if t > warm]
        self.rss_base = max(base) if base else None
        self.rss_max = max(later) if later else None
        if a.no_rss_check or not base or not later:
            return
        if self.rss_max > self.rss_base * (1 + a.rss_tolerance):
            self.fail("RSS grew from %d kB at the end of the warm-up (%.0f s) to %d kB (more than %.0f%%)" % (
                self.rss_base, warm, self.rss_max, a.rss_tolerance * 100))

    def report(self, elapsed):
        n = len(self.latencies)
        lat = sorted(self.latencies)
        q = lambda p: lat[min(n - 1, int(p * n))] * 1000 if n else 0.0
        rows = [("duration", "%.1f s" % elapsed), ("concurrency", str(self.args.concurrency)),
                ("requests", "%d (%.0f/s)" % (n, n / elapsed if elapsed else 0)),
                ("valid: allowed / denied / mutated", "%d / %d / %d" % (
                    self.counts.get("allowed", 0), self.counts.get("denied", 0), self.counts.get("mutated", 0))),
                ("malformed (400)", str(self.counts.get("malformed", 0))),
                ("latency p50 / p99 / max", "%.2f / %.2f / %.2f ms" % (q(0.5), q(0.99), q(1.0))),
                ("reloads (certificate, config, inventory)", str(sum(1 for l in self.log_lines if l.get("msg") == "reloaded"))),
                ("RSS at warm-up end / max after / last", "%s / %s / %s kB" % (
                    self.rss_base, self.rss_max, self.rss[-1][1] if self.rss else None)),
                ("failures", str(len(self.failures)))]
        width = max(len(k) for k, _ in rows)
        for k, v in rows:
            print("%-*s  %s" % (width, k, v))
        for f in self.failures[:20]:
            print("FAIL: " + f)
        print("soak: %s" % ("FAILED" if self.failures else "passed"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gpuadmit", required=True)
    ap.add_argument("--duration", type=float, default=45.0, help="seconds (default 45)")
    ap.add_argument("--concurrency", type=int, default=4)
    ap.add_argument("--work", help="scratch directory (emptied first; default: a new temporary one)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--rss-tolerance", type=float, default=0.10)
    ap.add_argument("--no-rss-check", action="store_true")
    ap.add_argument("--warm-up", type=float, default=None, help="seconds (default: a quarter of the run, >= 5)")
    args = ap.parse_args()
    args.gpuadmit = os.path.abspath(args.gpuadmit)
    sys.exit(Soak(args).run())


if __name__ == "__main__":
    main()
