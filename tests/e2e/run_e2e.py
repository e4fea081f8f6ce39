#!/usr/bin/env python3
"""End-to-end tests of `gpuadmit serve`, called the way kube-apiserver calls admission webhooks.

The real server runs on loopback (port 0: it picks a free port and logs it) with certificates from
`gpuadmit certs`. Reviews are sent by tests/e2e/apiserver (Go net/http, HTTPS verified against the CA,
HTTP/1.1 keep-alive, a fresh uid, ?timeout=10s), which checks each answer as kube-apiserver does and applies the
patch with github.com/evanphx/json-patch; python3-jsonpatch applies the same patch as a second implementation.
Raw bad input goes through Python's ssl sockets.

Environment: GPUADMIT (the binary), E2E_WORK (a scratch directory, e.g. in the build tree).
Usage: run_e2e.py [unittest names, e.g. Webhook.test_bad_input]
"""
import base64
import copy
import http.client
import json
import os
import re
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.request

import jsonpatch

HERE = os.path.dirname(os.path.abspath(__file__))
GPUADMIT = os.environ.get("GPUADMIT", "gpuadmit")
WORK = os.environ.get("E2E_WORK") or tempfile.mkdtemp(prefix="gpuadmit-e2e-")
SERVICE, NAMESPACE = "gpuadmit", "gpuadmit-system"
SERVER_NAME = "%s.%s.svc" % (SERVICE, NAMESPACE)
APISERVER = os.path.join(WORK, "apiserver")
BENCH_REVIEW = os.path.join(HERE, "..", "..", "bench", "data", "review-pod-5k.json")


def build_apiserver():
    if os.path.exists(APISERVER) and os.path.getmtime(APISERVER) >= max(
            os.path.getmtime(os.path.join(HERE, "apiserver", f)) for f in ("main.go", "pod.go", "burst.go")):
        return
    env = dict(os.environ, GOPATH="/usr/share/gocode", GO111MODULE="off", GOFLAGS="",
               GOCACHE=os.path.join(WORK, "gocache"))
    subprocess.run(["go", "build", "-o", APISERVER, "."], cwd=os.path.join(HERE, "apiserver"), env=env, check=True)


def make_certs(out, extra=()):
    os.makedirs(out, exist_ok=True)
    subprocess.run([GPUADMIT, "certs", "--service", SERVICE, "--namespace", NAMESPACE, "--out", out, *extra],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def pod(name, containers, annotations=None, kind="Pod"):
    return {"apiVersion": "v1", "kind": kind,
            "metadata": {"name": name, "namespace": "default", "annotations": annotations or {}},
            "spec": {"containers": [{"name": n, "image": "busybox", "resources": r} for n, r in containers]}}


def review(obj, version="admission.k8s.io/v1", operation="CREATE"):
    return {"apiVersion": version, "kind": "AdmissionReview",
            "request": {"uid": "00000000-0000-0000-0000-000000000000",
                        "kind": {"group": "", "version": "v1", "kind": obj["kind"]},
                        "resource": {"group": "", "version": "v1", "resource": "pods"},
                        "namespace": obj["metadata"].get("namespace", "default"), "name": obj["metadata"]["name"],
                        "operation": operation, "userInfo": {"username": "e2e"}, "object": obj, "dryRun": False}}


KOORD_RATIO = pod("ratio", [("main", {"requests": {"koordinator.sh/gpu-memory-ratio": "50", "koordinator.sh/gpu-core": "50"},
                                      "limits": {"koordinator.sh/gpu-memory-ratio": "50", "koordinator.sh/gpu-core": "50"}})])
KOORD_DEPRECATED = pod("deprecated", [("main", {"limits": {"koordinator.sh/gpu": "50"}})])
VENDOR_REQ_ONLY = pod("vendor", [("main", {"requests": {"nvidia.com/gpu": "2"}})])
MEM_AND_RATIO = pod("both", [("main", {"requests": {"koordinator.sh/gpu-memory": "8Gi", "koordinator.sh/gpu-memory-ratio": "50",
                                                    "koordinator.sh/gpu.shared": "1"},
                                       "limits": {"koordinator.sh/gpu-memory": "8Gi", "koordinator.sh/gpu-memory-ratio": "50",
                                                  "koordinator.sh/gpu.shared": "1"}})])
TINY_MEMORY = pod("tiny", [("main", {"requests": {"koordinator.sh/gpu-memory": "4", "koordinator.sh/gpu.shared": "1"},
                                     "limits": {"koordinator.sh/gpu-memory": "4", "koordinator.sh/gpu.shared": "1"}})])
NO_GPU = pod("plain", [("main", {"requests": {"cpu": "1"}})])


def raycluster(name, params, limits):
    """A KubeRay RayCluster: a head without GPU and one worker group with `params` and the Ray container's `limits`."""
    head = {"rayStartParams": {}, "template": {"spec": {"containers": [{"name": "ray-head", "image": "rayproject/ray:2.52.0"}]}}}
    worker = {"groupName": "gpu", "replicas": 1, "rayStartParams": params,
              "template": {"spec": {"containers": [{"name": "ray-worker", "image": "rayproject/ray:2.52.0",
                                                    "resources": {"limits": limits}}]}}}
    return {"apiVersion": "ray.io/v1", "kind": "RayCluster", "metadata": {"name": name, "namespace": "ray"},
            "spec": {"headGroupSpec": head, "workerGroupSpecs": [worker]}}


RAY_SHARE = raycluster("share", {}, {"koordinator.sh/gpu-memory": "20Gi", "koordinator.sh/gpu-core": "50"})
RAY_VENDOR = raycluster("vendor", {}, {"nvidia.com/gpu": "1"})
RAY_WRONG = raycluster("wrong", {"num-gpus": "4"}, {"koordinator.sh/gpu-memory": "20Gi", "koordinator.sh/gpu-core": "50",
                                                    "koordinator.sh/gpu.shared": "1"})


class Server:
    """One `gpuadmit serve` process; its JSON log lines are read from a file."""

    def __init__(self, name, certdir, *args):
        self.dir = os.path.join(WORK, name)
        os.makedirs(self.dir, exist_ok=True)
        self.certdir = certdir
        self.log_path = os.path.join(self.dir, "server.log")
        self.args = [GPUADMIT, "serve", "--cert", os.path.join(certdir, "tls.crt"), "--key",
                     os.path.join(certdir, "tls.key"), "--listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0",
                     "--threads", "2", "--reload-interval", "200ms", *args]
        env = dict(os.environ, LSAN_OPTIONS="suppressions=%s" % os.path.join(HERE, "lsan.supp"))
        self.log = open(self.log_path, "w")
        self.proc = subprocess.Popen(self.args, stderr=self.log, stdout=subprocess.DEVNULL, env=env)
        start = self.wait_log(lambda l: l.get("msg") == "serving", 60)
        self.port = int(start["listen"].rsplit(":", 1)[1])
        self.metrics_port = int(start["metricsListen"].rsplit(":", 1)[1])
        self.url = "https://127.0.0.1:%d" % self.port

    def lines(self):
        out = []
        with open(self.log_path) as f:
            for raw in f:
                try:
                    out.append(json.loads(raw))
                except ValueError:
                    out.append({"raw": raw})
        return out

    def wait_log(self, pred, timeout):
        deadline = time.time() + timeout
        while time.time() < deadline:
            for l in self.lines():
                if pred(l):
                    return l
            if self.proc.poll() is not None:
                raise AssertionError("server exited %s: %s" % (self.proc.returncode, open(self.log_path).read()))
            time.sleep(0.05)
        raise AssertionError("no such log line in %ss: %s" % (timeout, open(self.log_path).read()[-3000:]))

    def metrics(self):
        with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % self.metrics_port, timeout=30) as r:
            text = r.read().decode()
        values = {}
        for line in text.splitlines():
            if line and not line.startswith("#"):
                k, v = line.rsplit(" ", 1)
                values[k] = int(v) if re.fullmatch(r"-?\d+", v) else float(v)
        return values

    def stop(self, sig=signal.SIGTERM, timeout=60):
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            return self.proc.wait(timeout)
        finally:
            self.log.close()

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.log.close()


def apiserver(server, hook, files, *extra, check=True):
    args = [APISERVER, "-url", server.url, "-ca", os.path.join(server.certdir, "ca.crt"), "-server-name", SERVER_NAME,
            "-hook", hook, *extra, *files]
    p = subprocess.run(args, capture_output=True, text=True, timeout=120)
    if check and p.returncode != 0:
        raise AssertionError("apiserver failed (%d): %s %s" % (p.returncode, p.stdout, p.stderr))
    return p


def write_reviews(dirname, reviews):
    os.makedirs(dirname, exist_ok=True)
    files = []
    for name, rv in reviews:
        path = os.path.join(dirname, name + ".json")
        with open(path, "w") as f:
            json.dump(rv, f)
        files.append(path)
    return files


def tls_context(cafile):
    ctx = ssl.create_default_context(cafile=cafile)
    ctx.set_alpn_protocols(["http/1.1"])
    return ctx


def raw_connect(server):
    ctx = tls_context(os.path.join(server.certdir, "ca.crt"))
    s = socket.create_connection(("127.0.0.1", server.port), timeout=10)
    return ctx.wrap_socket(s, server_hostname=SERVER_NAME)


def post(server, path, body, ctype="application/json", method="POST"):
    conn = http.client.HTTPSConnection("127.0.0.1", server.port, timeout=10,
                                       context=tls_context(os.path.join(server.certdir, "ca.crt")))
    conn.sock = None
    conn._context.check_hostname = False  # SNI below; the name is verified by the Go client tests
    headers = {"Content-Type": ctype} if ctype else {}
    conn.request(method, path, body=body, headers=headers)
    r = conn.getresponse()
    data = r.read()
    conn.close()
    return r.status, data.decode(errors="replace"), r


def http_request(sock, path, body, extra=""):
    head = ("POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n%s\r\n"
            % (path, SERVER_NAME, len(body), extra))
    return head.encode() + body


def read_response(sock):
    """Reads one HTTP/1.1 response with Content-Length; returns (status, headers, body) or None on EOF."""
    buf = b""
    while b"\r\n\r\n" not in buf:
        chunk = sock.recv(65536)
        if not chunk:
            return None
        buf += chunk
    head, rest = buf.split(b"\r\n\r\n", 1)
    lines = head.decode().split("\r\n")
    headers = {k.lower(): v.strip() for k, v in (l.split(":", 1) for l in lines[1:])}
    n = int(headers.get("content-length", "0"))
    while len(rest) < n:
        chunk = sock.recv(65536)
        if not chunk:
            break
        rest += chunk
    return int(lines[0].split()[1]), headers, rest[:n]


class Webhook(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        build_apiserver()
        cls.certs = os.path.join(WORK, "certs")
        shutil.rmtree(cls.certs, ignore_errors=True)
        make_certs(cls.certs)

    def start(self, name, *args, certdir=None):
        s = Server(name, certdir or self.certs, *args)
        self.addCleanup(s.kill)
        return s

    def check_patch_twice(self, results, reviews):
        """Go (evanphx/json-patch) and Python (jsonpatch) must produce the same patched object."""
        for res, (_, rv) in zip(results, reviews):
            if "patch" not in res:
                continue
            mine = jsonpatch.JsonPatch(res["patch"]).apply(copy.deepcopy(rv["request"]["object"]))
            self.assertEqual(mine, res["patched"], res["file"])
            again = jsonpatch.JsonPatch(res["patch"])
            self.assertTrue(all(op["op"] in ("add", "replace", "remove") for op in again.patch))

    def test_reviews_v1_and_v1beta1(self):
        s = self.start("reviews")
        cases = [("ratio", KOORD_RATIO), ("deprecated", KOORD_DEPRECATED), ("vendor", VENDOR_REQ_ONLY),
                 ("both", MEM_AND_RATIO), ("plain", NO_GPU)]
        for version in ("admission.k8s.io/v1", "admission.k8s.io/v1beta1"):
            reviews = [(n, review(o, version)) for n, o in cases]
            with open(BENCH_REVIEW) as f:
                big = json.load(f)
            big["apiVersion"] = version
            reviews.append(("bench5k", big))
            files = write_reviews(os.path.join(s.dir, version.split("/")[1]), reviews)
            mut = [json.loads(l) for l in apiserver(s, "mutate", files).stdout.splitlines()]
            self.assertEqual(len(mut), len(files))
            self.assertTrue(all(r["allowed"] for r in mut), mut)  # the mutating webhook never denies
            by = {os.path.basename(r["file"])[:-5]: r for r in mut}
            self.assertIn("patch", by["ratio"])
            self.assertEqual(by["ratio"]["patched"]["spec"]["containers"][0]["resources"]["limits"]["koordinator.sh/gpu.shared"], "1")
            self.assertIn("patch", by["deprecated"])
            self.assertTrue(by["deprecated"].get("warnings"), "expand-gpu warns that the name is deprecated")
            self.assertEqual(by["vendor"]["patched"]["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"], "2")
            self.assertNotIn("patch", by["both"])
            self.assertNotIn("patch", by["plain"])
            self.check_patch_twice(mut, reviews)

            # The mutated objects pass validation; the broken one is denied with the rule named.
            patched = [(n + "-patched", review(by[n]["patched"], version)) for n in ("ratio", "deprecated", "vendor")]
            files = write_reviews(os.path.join(s.dir, version.split("/")[1] + "-validate"),
                                  patched + [("both", review(MEM_AND_RATIO, version)), ("ratio", review(KOORD_RATIO, version))])
            val = {os.path.basename(r["file"])[:-5]: r for r in
                   (json.loads(l) for l in apiserver(s, "validate", files).stdout.splitlines())}
            for n in ("ratio-patched", "deprecated-patched", "vendor-patched"):
                self.assertTrue(val[n]["allowed"], val[n])
            self.assertFalse(val["both"]["allowed"])
            self.assertIn("memory-ratio-exclusive", val["both"]["message"])
            self.assertFalse(val["ratio"]["allowed"])
            self.assertIn("shared-required", val["ratio"]["message"])
        m = s.metrics()
        self.assertGreaterEqual(m['gpuadmit_requests_total{webhook="validate",verdict="denied"}'], 4)
        self.assertGreaterEqual(m['gpuadmit_rule_findings_total{webhook="validate",rule="memory-ratio-exclusive",action="deny"}'], 2)
        denials = [l for l in s.lines() if l.get("msg") == "denied"]
        self.assertTrue(any("memory-ratio-exclusive" in l["rules"] and l["name"] == "both" and l["uid"] for l in denials))
        self.assertEqual(s.stop(), 0)

    def test_dra_reviews(self):
        """DRA objects as kube-apiserver sends them (v1 and v1beta1 AdmissionReview): claims, templates (v1 and
        v1beta1) and classes admitted as the rules say, a Pod with claims read, a claim a controller made admitted
        untouched whatever it holds, and nothing mutated."""
        s = self.start("dra")
        def claim(name, version="v1", annotations=None, memory="4Gi"):
            request = {"name": "gpu", "exactly": {"deviceClassName": "gpu.nvidia.com", "capacity": {"requests": {"memory": memory}}}}
            if version != "v1":
                request = {"name": "gpu", "deviceClassName": "gpu.nvidia.com"}
            return {"apiVersion": "resource.k8s.io/" + version, "kind": "ResourceClaim",
                    "metadata": {"name": name, "namespace": "default", "annotations": annotations or {}},
                    "spec": {"devices": {"requests": [request]}}}
        template = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate", "metadata": {"name": "one-gpu", "namespace": "default"},
                    "spec": {"spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu.nvidia.com"}}]}}}}
        template_beta = {"apiVersion": "resource.k8s.io/v1beta1", "kind": "ResourceClaimTemplate",
                         "metadata": {"name": "one-gpu-beta", "namespace": "default"},
                         "spec": {"spec": {"devices": {"requests": [{"name": "gpu", "deviceClassName": "gpu.nvidia.com"}]}}}}
        device_class = {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu.example.com"},
                        "spec": {"selectors": [{"cel": {"expression": "device.driver == 'gpu.example.com'"}}]}}
        with_claims = pod("claims", [("main", {"claims": [{"name": "gpu"}]})])
        with_claims["spec"]["resourceClaims"] = [{"name": "gpu", "resourceClaimTemplateName": "one-gpu"}]
        old_source = pod("old-source", [("main", {"claims": [{"name": "gpu"}]})])
        old_source["spec"]["resourceClaims"] = [{"name": "gpu", "source": {"resourceClaimTemplateName": "one-gpu"}}]
        generated = {"resource.kubernetes.io/pod-claim-name": "gpu"}
        cases = [("claim", claim("claim")), ("negative", claim("negative", memory="-4Gi")),
                 ("negative-generated", claim("negative-generated", annotations=generated, memory="-4Gi")),
                 ("alpha", claim("alpha", "v1alpha3")), ("alpha-generated", claim("alpha-generated", "v1alpha3", generated)),
                 ("template", template), ("template-beta", template_beta), ("class", device_class),
                 ("pod-claims", with_claims), ("old-source", old_source)]
        for version in ("admission.k8s.io/v1", "admission.k8s.io/v1beta1"):
            sub = version.split("/")[1]
            files = write_reviews(os.path.join(s.dir, "dra-" + sub), [(n, review(o, version)) for n, o in cases])
            val = {os.path.basename(r["file"])[:-5]: r for r in
                   (json.loads(l) for l in apiserver(s, "validate", files).stdout.splitlines())}
            self.assertEqual(len(val), len(cases))
            clean = ("claim", "negative-generated", "alpha-generated", "template", "template-beta", "class", "pod-claims")
            for n in clean:
                self.assertTrue(val[n]["allowed"], (version, n, val[n]))
                self.assertFalse(val[n].get("warnings"), (version, n, val[n]))
            self.assertFalse(val["negative"]["allowed"])
            self.assertIn("non-positive", val["negative"]["message"])
            self.assertFalse(val["old-source"]["allowed"])
            self.assertIn("dra-claim-source", val["old-source"]["message"])
            self.assertTrue(val["alpha"]["allowed"])
            self.assertTrue(any("dra-api-version" in w for w in val["alpha"]["warnings"]), val["alpha"])
            mut = [json.loads(l) for l in apiserver(s, "mutate", files).stdout.splitlines()]
            self.assertEqual(len(mut), len(cases))
            for r in mut:  # part 1 mutates nothing of DRA, and the mutating webhook never denies
                self.assertTrue(r["allowed"], r)
                self.assertNotIn("patch", r, r["file"])
        self.assertEqual(s.stop(), 0)

    def test_raycluster_gets_the_gpu_count_ray_should_advertise(self):
        """KubeRay (docs/ray.md): the mutating webhook gives a worker group whose Ray container takes a share the
        GPU count Ray should advertise (ray-num-gpus); the validating webhook admits the result and denies a count
        written by hand that exceeds the devices."""
        s = self.start("ray")
        reviews = [("share", review(RAY_SHARE)), ("vendor", review(RAY_VENDOR))]
        files = write_reviews(os.path.join(s.dir, "mutate"), reviews)
        mut = [json.loads(l) for l in apiserver(s, "mutate", files).stdout.splitlines()]
        by = {os.path.basename(r["file"])[:-5]: r for r in mut}
        self.assertEqual(by["share"]["patched"]["spec"]["workerGroupSpecs"][0]["rayStartParams"], {"num-gpus": "1"})
        self.assertNotIn("patch", by["vendor"])
        self.check_patch_twice(mut, reviews)
        files = write_reviews(os.path.join(s.dir, "validate"),
                              [("share-patched", review(by["share"]["patched"])), ("wrong", review(RAY_WRONG))])
        val = {os.path.basename(r["file"])[:-5]: r for r in
               (json.loads(l) for l in apiserver(s, "validate", files).stdout.splitlines())}
        self.assertTrue(val["share-patched"]["allowed"], val["share-patched"])
        self.assertFalse(val["wrong"]["allowed"])
        self.assertIn("ray-num-gpus", val["wrong"]["message"])
        self.assertEqual(s.stop(), 0)

    def test_raycluster_gpu_memory_from_inventory_card_memory(self):
        """ray-gpu-memory turned on, serve --inventory (docs/ray.md): a worker on half of one card by ratio gets
        gpu_memory from /mutate where every card it can land on has 80Gi; once the reloaded inventory adds a 40Gi
        node, the count only, unless its nodeSelector keeps it on the 80Gi pool."""
        cfg = os.path.join(WORK, "ray-gpu-memory.yaml")
        with open(cfg, "w") as f:
            f.write("mutations: {ray-gpu-memory: on}\n")
        inv = os.path.join(WORK, "ray-cards.yaml")

        def cards(nodes):
            with open(inv + ".tmp", "w") as f:
                f.write("kind: GPUInventory\nnodes:\n" + "".join(
                    "- {name: %s, labels: {pool: %s}, gpus: {count: 8, memory: %s}}\n" % n for n in nodes))
            os.rename(inv + ".tmp", inv)

        cards([("a100", "training", "80Gi")])
        s = self.start("ray-gpu-memory", "--config", cfg, "--inventory", inv)
        ratio = raycluster("ratio", {}, {"koordinator.sh/gpu-memory-ratio": "50", "koordinator.sh/gpu-core": "50",
                                         "koordinator.sh/gpu.shared": "1"})
        pinned = copy.deepcopy(ratio)
        pinned["metadata"]["name"] = "pinned"
        pinned["spec"]["workerGroupSpecs"][0]["template"]["spec"]["nodeSelector"] = {"pool": "training"}
        reviews = [("ratio", review(ratio)), ("pinned", review(pinned))]
        files = write_reviews(os.path.join(s.dir, "mutate"), reviews)

        def params():
            res = [json.loads(l) for l in apiserver(s, "mutate", files).stdout.splitlines()]
            self.check_patch_twice(res, reviews)
            return {os.path.basename(r["file"])[:-5]: r["patched"]["spec"]["workerGroupSpecs"][0]["rayStartParams"]
                    for r in res}

        half = {"num-gpus": "1", "resources": "'{\"gpu_memory\":42949672960}'"}
        self.assertEqual(params(), {"ratio": half, "pinned": half})
        cards([("a100", "training", "80Gi"), ("a40", "inference", "40Gi")])
        s.wait_log(lambda l: l.get("msg") == "reloaded" and l.get("what") == "inventory", 5)
        self.assertEqual(params(), {"ratio": {"num-gpus": "1"}, "pinned": half})
        self.assertEqual(s.stop(), 0)

    def test_unreadable_object_denied_with_code_400(self):
        """A well-formed review whose object has a bad shape on a path gpuadmit reads is answered HTTP 200,
        allowed: false, status.code 400 with the path (both webhooks): kube-apiserver shows the user why, whatever
        the failurePolicy. Bad shapes where gpuadmit does not look are admitted."""
        s = self.start("unreadable")
        ray = {"apiVersion": "ray.io/v1", "kind": "RayCluster", "metadata": {"name": "ray", "namespace": "default"},
               "spec": {"headGroupSpec": {"template": {"spec": {"containers": [{"name": "head", "image": "ray"}]}}},
                        "workerGroupSpecs": {"gpu": {"template": {}}}}}
        misindented = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "flat", "namespace": "default"},
                       "spec": None, "containers": [{"name": "main", "image": "busybox"}]}
        fine = copy.deepcopy(ray)
        fine["metadata"]["labels"] = {"replicas": 3}
        fine["spec"]["workerGroupSpecs"] = []
        fine["spec"]["headGroupSpec"]["template"]["spec"]["nodeSelector"] = {"gpu-count": 1}
        quota = {"apiVersion": "quota.koordinator.sh/v1alpha1", "kind": "ElasticQuota",
                 "metadata": {"name": "q", "namespace": "default", "labels": {"is-parent": False}}}
        files = write_reviews(os.path.join(s.dir, "reviews"), [("ray", review(ray)), ("misindented", review(misindented)),
                                                               ("fine", review(fine)), ("quota", review(quota))])
        for hook in ("validate", "mutate"):
            res = {os.path.basename(r["file"])[:-5]: r for r in
                   (json.loads(l) for l in apiserver(s, hook, files).stdout.splitlines())}
            for name, path in (("ray", "request.object.spec.workerGroupSpecs: must be a list"),
                               ("misindented", "request.object.spec.containers: missing")):
                self.assertFalse(res[name]["allowed"], res[name])
                self.assertEqual(res[name]["code"], 400, res[name])
                self.assertIn(path, res[name]["message"])
            self.assertTrue(res["fine"]["allowed"], res["fine"])
            self.assertTrue(res["quota"]["allowed"], res["quota"])
        # The same object sent raw: HTTP 200, not 400 (which kube-apiserver reports as "failed calling webhook").
        status, text, _ = post(s, "/validate", json.dumps(review(ray)).encode())
        self.assertEqual(status, 200, text)
        self.assertIn('"code":400', text)
        self.assertEqual(s.stop(), 0)

    def test_bad_input(self):
        s = self.start("badinput", "--max-body-bytes", "64Ki", "--request-timeout", "1s")
        good = json.dumps(review(KOORD_RATIO)).encode()
        bad_bodies = {
            "not json": b"hello",
            "truncated": good[: len(good) // 2],
            "no request": b'{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}',
            "no uid": json.dumps({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
                                  "request": {"operation": "CREATE", "object": KOORD_RATIO}}).encode(),
            "wrong types": json.dumps({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
                                       "request": {"uid": 7, "operation": ["CREATE"], "object": "pod"}}).encode(),
            "object missing": json.dumps({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
                                          "request": {"uid": "u1", "operation": "CREATE"}}).encode(),
            "array": b"[1,2,3]",
            "empty": b"",
            "deep nesting": b"[" * 60000,
            "nul bytes": b'{"request":\x00}',
        }
        for what, body in bad_bodies.items():
            for hook in ("/validate", "/mutate"):
                status, text, _ = post(s, hook, body)
                self.assertEqual(status, 400, "%s %s: %s" % (what, hook, text))
                self.assertTrue(text.strip(), what)
                self.assertNotIn('"allowed":true', text)
        self.assertEqual(post(s, "/validate", good, ctype="text/plain")[0], 415)
        self.assertEqual(post(s, "/validate", good, ctype=None)[0], 415)
        self.assertEqual(post(s, "/validate", good, ctype="application/json; charset=utf-8")[0], 200)
        self.assertEqual(post(s, "/validate", None, method="GET")[0], 405)
        self.assertEqual(post(s, "/nope", good)[0], 404)
        self.assertEqual(post(s, "/healthz", None, method="GET")[0], 200)
        # Over the cap: refused from the Content-Length alone, before the body is read.
        big = raw_connect(s)
        big.sendall(http_request(big, "/validate", b"x" * (65 * 1024))[:-65 * 1024])
        self.assertEqual(read_response(big)[0], 413)
        big.close()

        # A slow client (headers, then nothing) and an idle keep-alive connection are closed by the timeout.
        slow = raw_connect(s)
        slow.sendall(http_request(slow, "/validate", good)[:-len(good) + 10])
        idle = raw_connect(s)
        idle.sendall(http_request(idle, "/validate", good))
        self.assertEqual(read_response(idle)[0], 200)
        t0 = time.time()
        for sock in (slow, idle):
            sock.settimeout(10)
            try:
                while sock.recv(65536):
                    pass
            except (ConnectionError, ssl.SSLError):
                pass
        self.assertLess(time.time() - t0, 8)
        # Not TLS at all, and a TLS client that hangs up mid-handshake.
        plain = socket.create_connection(("127.0.0.1", s.port), timeout=5)
        plain.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        plain.settimeout(5)
        try:
            plain.recv(100)
        except (ConnectionError, socket.timeout):
            pass
        plain.close()
        half = socket.create_connection(("127.0.0.1", s.port), timeout=5)
        half.sendall(b"\x16\x03\x01\x00\xff\x01")
        half.close()
        # Still serving, nothing counted as allowed.
        self.assertEqual(post(s, "/readyz", None, method="GET")[0], 200)
        m = s.metrics()
        self.assertEqual(m['gpuadmit_requests_total{webhook="validate",verdict="invalid"}'], len(bad_bodies))
        self.assertEqual(m['gpuadmit_http_rejections_total{code="415"}'], 2)
        self.assertEqual(s.stop(), 0)

    def test_big_pod_answered_within_apiserver_timeout(self):
        """A review under the body cap is answered before kube-apiserver's default webhook timeout (10 s): a Pod of
        12,000 containers once took a worker ~25 s per review (per-container Pod facts, a linear copy-on-write set
        in patch application), during which its event loop answered nobody."""
        s = self.start("bigpod", "--threads", "1")
        n = 12000
        big = pod("big", [("c%d" % i, {"requests": {"koordinator.sh/gpu-memory-ratio": "50", "koordinator.sh/gpu-core": "50"}})
                          for i in range(n)])
        body = json.dumps(review(big)).encode()
        self.assertLess(len(body), 4 << 20)
        for hook in ("/validate", "/mutate"):
            sock = raw_connect(s)
            sock.settimeout(10)
            sock.sendall(http_request(sock, hook, body))
            status, _, answer = read_response(sock)
            sock.close()
            self.assertEqual(status, 200)
            res = json.loads(answer)["response"]
            if hook == "/validate":
                self.assertFalse(res["allowed"])
                # every container's finding, 20 of them spelled out (docs/webhook.md#limits)
                self.assertEqual(res["status"]["message"].count("shared-required"), 20)
                self.assertTrue(res["status"]["message"].endswith("; and %d more" % (n - 20)), res["status"]["message"][-200:])
            else:
                self.assertTrue(res["allowed"])
                ops = json.loads(base64.b64decode(res["patch"]))
                self.assertEqual(len(ops), 2 * n)  # per container: gpu.shared into requests, the limits map added
        self.assertEqual(post(s, "/healthz", None, method="GET")[0], 200)
        self.assertEqual(s.stop(), 0)

    def test_client_that_never_reads(self):
        """h2o 2.2.5 has no write timeout: answers a client never reads must not hold memory, descriptors and the
        in-flight count forever (nor the drain until the grace period ends)."""
        s = self.start("noread", "--request-timeout", "1s", "--shutdown-grace", "20s")
        fds = lambda: len(os.listdir("/proc/%d/fd" % s.proc.pid))
        before = fds()
        # An answer (~4 MB of patch) larger than the socket buffers can park, from a body under 1 MiB (a larger one
        # is judged one at a time, the others answered 503: docs/webhook.md#limits).
        big = pod("big", [])
        big["spec"]["containers"] = [{"name": "c%d" % i, "resources": {"requests": {"koordinator.sh/gpu-memory-ratio": "50"}}}
                                     for i in range(12500)]
        body = json.dumps(review(big), separators=(",", ":")).encode()
        self.assertLess(len(body), 1 << 20)
        ctx = tls_context(os.path.join(s.certdir, "ca.crt"))
        stuck = []
        for _ in range(8):
            raw = socket.socket()
            raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # a small window: the answer cannot be parked
            raw.connect(("127.0.0.1", s.port))
            sock = ctx.wrap_socket(raw, server_hostname=SERVER_NAME)
            sock.sendall(http_request(sock, "/mutate", body))
            stuck.append(sock)
        deadline = time.time() + 20
        while True:
            m = s.metrics()
            if m["gpuadmit_requests_in_flight"] == 0 and m["gpuadmit_connections"] == 0:
                break
            self.assertLess(time.time(), deadline, "stalled answers are never abandoned: in flight %s, connections %s"
                            % (m["gpuadmit_requests_in_flight"], m["gpuadmit_connections"]))
            time.sleep(0.2)
        for sock in stuck:
            sock.settimeout(10)
            try:
                while sock.recv(1 << 20):
                    pass
            except (ConnectionError, ssl.SSLError):
                pass
            sock.close()
        # The metrics scrapes above close from the client side: the metrics thread may not have seen it yet.
        deadline = time.time() + 20
        while fds() != before and time.time() < deadline:
            time.sleep(0.1)
        self.assertEqual(fds(), before)
        self.assertEqual(post(s, "/validate", json.dumps(review(KOORD_RATIO)).encode())[0], 200)
        self.assertEqual(s.stop(), 0)
        self.assertFalse(any(l.get("msg", "").startswith("shutdown grace period over") for l in s.lines()))

    def test_body_cap_and_http_edges(self):
        """413 above the cap from the Content-Length alone, written before the close whether or not the client goes on
        sending its body (the rest is read and dropped: never a reset under the client's write); a chunked body of
        exactly the cap is judged as a Content-Length one is (docs/webhook.md#limits); methods, parameters, query
        strings and pipelining."""
        cap = 64 * 1024
        s = self.start("edges", "--max-body-bytes", "64Ki")
        good = json.dumps(review(KOORD_RATIO)).encode()

        def exchange(raw):
            sock = raw_connect(s)
            try:
                sock.sendall(raw)
            except (ConnectionError, ssl.SSLError):
                pass  # refused and closed before the whole body was sent: the answer is already on its way
            out = read_response(sock)
            sock.close()
            return out

        def sized(n):
            return good + b" " * (n - len(good))

        def chunked(body, size=8192):
            parts = [body[i:i + size] for i in range(0, len(body), size)]
            return (b"POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + b"".join(b"%x\r\n%s\r\n" % (len(p), p) for p in parts) + b"0\r\n\r\n")

        for n, want in ((cap - 1, 200), (cap, 200), (cap + 1, 413), (40 * cap, 413)):
            raw = http_request(None, "/validate", sized(n))
            self.assertEqual((exchange(raw) or (None,))[0], want, "Content-Length %d, the body sent" % n)
            if want == 413:
                raw = raw[:raw.index(b"\r\n\r\n") + 4]  # the header alone decides: no byte of the body sent
                self.assertEqual(exchange(raw)[0], want, "Content-Length %d" % n)
            self.assertEqual((exchange(chunked(sized(n))) or (None,))[0], want, "chunked %d" % n)
        ok = exchange(http_request(None, "/validate?timeout=10s", good).replace(
            b"application/json", b"application/json; charset=utf-8"))
        self.assertEqual(ok[0], 200)
        self.assertIn(b'"allowed":false', ok[2])
        for method in ("HEAD", "PUT", "OPTIONS", "GET"):
            status, _, r = post(s, "/mutate?timeout=10s", good, method=method)
            self.assertEqual((status, r.getheader("Allow")), (405, "POST"), method)
        # Pipelined: 20 requests in one write, the last asking to close; every answer comes back, in order.
        sock = raw_connect(s)
        one = http_request(None, "/mutate?timeout=10s", good)
        sock.sendall(one * 19 + http_request(None, "/mutate?timeout=10s", good, "Connection: close\r\n"))
        data = b""
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
        sock.close()
        self.assertEqual(data.count(b"HTTP/1.1 200 OK\r\n"), 20)
        self.assertEqual(data.count(b'"patchType":"JSONPatch"'), 20)
        m = s.metrics()
        self.assertEqual(m["gpuadmit_requests_in_flight"], 0)
        self.assertEqual(s.stop(), 0)

    def rotate(self, base, name, broken=False):
        """Writes a new certificate directory and swaps the ..data symlink, as the kubelet does."""
        target = os.path.join(base, name)
        os.makedirs(target)
        for f in ("ca.crt", "ca.key"):
            shutil.copy(os.path.join(base, "..data", f), target)  # reuse the CA: trust is kept
        if broken:
            for f in ("tls.crt", "tls.key"):
                with open(os.path.join(target, f), "w") as fp:
                    fp.write("-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----\n")
        else:
            make_certs(target)
        tmp = os.path.join(base, "..data_tmp")
        os.symlink(name, tmp)
        os.rename(tmp, os.path.join(base, "..data"))
        return target

    def served_cert(self, s):
        sock = raw_connect(s)
        der = sock.getpeercert(binary_form=True)
        sock.close()
        return der

    def test_cert_rotation_under_load(self):
        base = os.path.join(WORK, "rotating")
        shutil.rmtree(base, ignore_errors=True)
        os.makedirs(base)
        first = os.path.join(base, "..v0")
        make_certs(first)
        os.symlink("..v0", os.path.join(base, "..data"))
        for f in ("tls.crt", "tls.key", "ca.crt"):
            os.symlink(os.path.join("..data", f), os.path.join(base, f))
        s = self.start("rotation", certdir=base)
        stop = os.path.join(s.dir, "stop")
        if os.path.exists(stop):  # left by an earlier run in the same E2E_WORK: the load would stop at once
            os.remove(stop)
        load = subprocess.Popen([APISERVER, "-mode", "load", "-url", s.url, "-ca", os.path.join(base, "ca.crt"),
                                 "-server-name", SERVER_NAME, "-hook", "mutate", "-conns", "8", "-duration", "60s",
                                 "-reconnect-every", "25", "-stop-file", stop, BENCH_REVIEW],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            latest = None
            for i in range(1, 4):
                time.sleep(0.7)
                latest = self.rotate(base, "..v%d" % i)
                s.wait_log(lambda l, i=i: l.get("msg") == "reloaded" and l.get("what") == "certificate"
                           and sum(1 for x in s.lines() if x.get("msg") == "reloaded") >= i, 5)
            time.sleep(0.7)
            with open(os.path.join(latest, "tls.crt")) as f:
                want = ssl.PEM_cert_to_DER_cert(f.read())
            self.assertEqual(self.served_cert(s), want, "a new handshake gets the newest certificate")
            # A broken certificate is refused; the last good one stays in force.
            self.rotate(base, "..broken", broken=True)
            s.wait_log(lambda l: l.get("msg", "").startswith("reload failed") and l.get("what") == "certificate", 5)
            time.sleep(0.5)
            self.assertEqual(self.served_cert(s), want)
        finally:
            open(stop, "w").close()
            out, err = load.communicate(timeout=30)
        summary = json.loads(out)
        self.assertEqual(summary["failed"], 0, summary)
        self.assertGreater(summary["ok"], 100)
        m = s.metrics()
        # Every rotation was taken (the newest certificate is served, above). Under a loaded sanitizer build a poll may
        # land while a rotation is under way and count one more reload of the same files: harmless, so at least 3.
        self.assertGreaterEqual(m['gpuadmit_reloads_total{what="certificate",result="success"}'], 3)
        self.assertGreaterEqual(m['gpuadmit_reloads_total{what="certificate",result="failure"}'], 1)
        self.assertGreater(m["gpuadmit_certificate_expiry_seconds"], 86400 * 300)
        self.assertEqual(s.stop(), 0)

    def test_config_reload(self):
        cfgdir = os.path.join(WORK, "config")
        shutil.rmtree(cfgdir, ignore_errors=True)
        os.makedirs(cfgdir)
        cfg = os.path.join(cfgdir, "config.yaml")
        with open(cfg, "w") as f:
            f.write("minDeviceMemory: 256Mi\n")
        s = self.start("config", "--config", cfg)
        files = write_reviews(os.path.join(s.dir, "reviews"), [("tiny", review(TINY_MEMORY))])

        def verdict():
            return json.loads(apiserver(s, "validate", files).stdout)

        first = verdict()
        self.assertFalse(first["allowed"])
        self.assertIn("min-memory", first["message"])
        with open(cfg + ".tmp", "w") as f:
            f.write("rules:\n  min-memory: warn\n")
        os.rename(cfg + ".tmp", cfg)
        s.wait_log(lambda l: l.get("msg") == "reloaded" and l.get("what") == "config", 5)
        second = verdict()
        self.assertTrue(second["allowed"], second)
        self.assertTrue(any("min-memory" in w or "memory" in w for w in second.get("warnings", [])), second)
        with open(cfg + ".tmp", "w") as f:
            f.write("rules:\n  min-memory: sometimes\n")
        os.rename(cfg + ".tmp", cfg)
        failed = s.wait_log(lambda l: l.get("msg", "").startswith("reload failed") and l.get("what") == "config", 5)
        self.assertIn("config.yaml", failed["error"])
        self.assertTrue(verdict()["allowed"], "the broken file is refused; the warn configuration stays")
        m = s.metrics()
        self.assertEqual(m['gpuadmit_reloads_total{what="config",result="success"}'], 1)
        self.assertEqual(m['gpuadmit_reloads_total{what="config",result="failure"}'], 1)
        self.assertEqual(s.stop(), 0)

    def test_inventory_directory(self):
        """--inventory DIR: every manifest under it forms the inventory; a file added or removed reloads it."""
        invdir = os.path.join(WORK, "inventory")
        shutil.rmtree(invdir, ignore_errors=True)
        os.makedirs(os.path.join(invdir, "zone-a"))

        def node(rel, name, count):
            path = os.path.join(invdir, rel)
            with open(path + ".tmp", "w") as f:  # .tmp is not a manifest: never read
                f.write("kind: GPUInventory\nnodes:\n- name: %s\n  gpus: {count: %d, memory: 16Gi}\n" % (name, count))
            os.rename(path + ".tmp", path)

        node("zone-a/small.yaml", "small", 1)
        s = self.start("inventory", "--inventory", invdir)
        two = pod("two", [("main", {"requests": {"nvidia.com/gpu": "2"}, "limits": {"nvidia.com/gpu": "2"}})])
        files = write_reviews(os.path.join(s.dir, "reviews"), [("two", review(two))])

        def verdict():
            return json.loads(apiserver(s, "validate", files).stdout)

        first = verdict()
        self.assertFalse(first["allowed"], first)
        self.assertIn("infeasible", first["message"])
        node("big.yml", "big", 4)
        s.wait_log(lambda l: l.get("msg") == "reloaded" and l.get("what") == "inventory", 5)
        self.assertTrue(verdict()["allowed"], "the added file's node holds the Pod")
        os.remove(os.path.join(invdir, "big.yml"))
        s.wait_log(lambda l: len([x for x in s.lines() if x.get("msg") == "reloaded"]) >= 2, 5)
        self.assertFalse(verdict()["allowed"], "the removed file's node is gone")
        m = s.metrics()
        # Two changes, two reloads at least (a poll may see a rename half-way and reload the same files again), and
        # never a failed one: a temporary file renamed away mid-listing is not an error.
        self.assertGreaterEqual(m['gpuadmit_reloads_total{what="inventory",result="success"}'], 2)
        self.assertEqual(m.get('gpuadmit_reloads_total{what="inventory",result="failure"}', 0), 0)
        self.assertEqual(s.stop(), 0)

    def test_unreadable_start_up_files(self):
        cfg = os.path.join(WORK, "broken-config.yaml")
        with open(cfg, "w") as f:
            f.write("rules: [\n")
        for args in (["--config", cfg], ["--inventory", "/nonexistent"]):
            p = subprocess.run([GPUADMIT, "serve", "--cert", os.path.join(self.certs, "tls.crt"), "--key",
                                os.path.join(self.certs, "tls.key"), "--listen", "127.0.0.1:0", "--metrics-listen", "",
                                *args], capture_output=True, text=True, timeout=10)
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertIn('"level":"error"', p.stderr)
        p = subprocess.run([GPUADMIT, "serve", "--cert", os.path.join(self.certs, "tls.key"), "--key",
                            os.path.join(self.certs, "tls.key"), "--listen", "127.0.0.1:0"], capture_output=True,
                           text=True, timeout=10)
        self.assertEqual(p.returncode, 2)
        self.assertIn("tls.key", p.stderr)
        p = subprocess.run([GPUADMIT, "serve", "--bogus"], capture_output=True, text=True, timeout=10)
        self.assertEqual(p.returncode, 2)

    def test_sigterm_with_requests_in_flight(self):
        s = self.start("sigterm", "--shutdown-grace", "8s")
        good = json.dumps(review(KOORD_RATIO)).encode()
        # A request whose body is still arriving, and an idle keep-alive connection.
        busy = raw_connect(s)
        req = http_request(busy, "/validate", good)
        busy.sendall(req[:-20])
        idle = raw_connect(s)
        idle.sendall(http_request(idle, "/validate", good))
        self.assertEqual(read_response(idle)[0], 200)
        time.sleep(0.2)
        t0 = time.time()
        s.proc.send_signal(signal.SIGTERM)
        s.wait_log(lambda l: l.get("msg") == "shutting down", 5)
        with urllib.request.urlopen("http://127.0.0.1:%d/healthz" % s.metrics_port, timeout=5) as r:
            self.assertEqual(r.status, 200)
        try:
            urllib.request.urlopen("http://127.0.0.1:%d/readyz" % s.metrics_port, timeout=5)
            self.fail("/readyz must fail once shutdown started")
        except urllib.error.HTTPError as e:
            self.assertEqual(e.code, 503)
        # The idle connection is closed by the server; new connections are refused.
        idle.settimeout(5)
        self.assertIn(idle.recv(100), (b"",))
        time.sleep(0.3)
        with self.assertRaises(OSError):
            socket.create_connection(("127.0.0.1", s.port), timeout=2)
        # The request in flight is answered in full, with Connection: close.
        busy.sendall(req[-20:])
        status, headers, body = read_response(busy)
        self.assertEqual(status, 200)
        self.assertEqual(headers.get("connection", "").lower(), "close")
        self.assertIn(b'"allowed":false', body)
        self.assertEqual(s.proc.wait(10), 0)
        self.assertLess(time.time() - t0, 8)
        s.log.close()
        self.assertTrue(any(l.get("msg") == "stopped" for l in s.lines()))

    def test_sigterm_closes_idle_and_finishes_partial(self):
        """Idleness is judged by what is waiting in the connection, whatever the last request was or how it arrived."""
        s = self.start("drain", "--shutdown-grace", "20s", "--request-timeout", "60s")
        good = json.dumps(review(KOORD_RATIO)).encode()
        # Idle keep-alive connections whose last answer came from no review: a probe and a 415.
        probe = raw_connect(s)
        probe.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        self.assertEqual(read_response(probe)[0], 200)
        refused = raw_connect(s)
        refused.sendall(http_request(refused, "/validate", good).replace(b"application/json", b"text/plain"))
        self.assertEqual(read_response(refused)[0], 415)
        # A request that arrived in two reads, its last one 20 bytes; then 20 bytes of the next request.
        partial = raw_connect(s)
        req = http_request(partial, "/validate", good)
        partial.sendall(req[:-20])
        time.sleep(0.2)
        partial.sendall(req[-20:])
        self.assertEqual(read_response(partial)[0], 200)
        partial.sendall(req[:20])
        time.sleep(0.3)
        s.proc.send_signal(signal.SIGTERM)
        s.wait_log(lambda l: l.get("msg") == "shutting down", 5)
        for sock in (probe, refused):
            sock.settimeout(15)
            self.assertEqual(sock.recv(100), b"", "an idle connection is closed by the drain")
        self.assertIsNone(s.proc.poll(), "closed by the drain, not by the exit")
        partial.sendall(req[20:])
        status, headers, body = read_response(partial)
        self.assertEqual(status, 200)
        self.assertEqual(headers.get("connection", "").lower(), "close")
        self.assertIn(b'"allowed":false', body)
        self.assertEqual(s.proc.wait(15), 0)
        s.log.close()
        self.assertFalse(any(l.get("msg", "").startswith("shutdown grace period over") for l in s.lines()),
                         "the drain ends when the last connection is gone, not at the grace period")

    def test_mtls(self):
        other = os.path.join(WORK, "other-ca")
        clients = os.path.join(WORK, "clients")
        shutil.rmtree(other, ignore_errors=True)
        shutil.rmtree(clients, ignore_errors=True)
        make_certs(other)
        for name, ca in (("good", self.certs), ("stranger", other)):
            d = os.path.join(clients, name)
            os.makedirs(d)
            subprocess.run([APISERVER, "-mode", "mkclient", "-ca", os.path.join(ca, "ca.crt"), "-ca-key",
                            os.path.join(ca, "ca.key"), "-out", d], check=True)
        s = self.start("mtls", "--client-ca", os.path.join(self.certs, "ca.crt"))
        files = write_reviews(os.path.join(s.dir, "reviews"), [("ratio", review(KOORD_RATIO))])
        good = os.path.join(clients, "good")
        ok = apiserver(s, "mutate", files, "-cert", os.path.join(good, "client.crt"), "-key", os.path.join(good, "client.key"))
        self.assertTrue(json.loads(ok.stdout)["allowed"])
        self.assertNotEqual(apiserver(s, "mutate", files, check=False).returncode, 0)
        bad = os.path.join(clients, "stranger")
        p = apiserver(s, "mutate", files, "-cert", os.path.join(bad, "client.crt"), "-key", os.path.join(bad, "client.key"),
                      check=False)
        self.assertNotEqual(p.returncode, 0)
        self.assertGreaterEqual(s.metrics()["gpuadmit_tls_handshake_failures_total"], 2)
        self.assertEqual(s.stop(), 0)

    def test_tls_versions_and_alpn(self):
        s = self.start("tls13", "--tls-min-version", "1.3")
        ctx = tls_context(os.path.join(self.certs, "ca.crt"))
        ctx.maximum_version = ssl.TLSVersion.TLSv1_2
        with self.assertRaises(ssl.SSLError):
            ctx.wrap_socket(socket.create_connection(("127.0.0.1", s.port)), server_hostname=SERVER_NAME)
        ctx = tls_context(os.path.join(self.certs, "ca.crt"))
        ctx.set_alpn_protocols(["h2", "http/1.1"])
        sock = ctx.wrap_socket(socket.create_connection(("127.0.0.1", s.port)), server_hostname=SERVER_NAME)
        self.assertEqual(sock.selected_alpn_protocol(), "http/1.1")  # never HTTP/2 (--http2 is refused)
        self.assertEqual(sock.version(), "TLSv1.3")
        sock.close()
        self.assertEqual(s.stop(), 0)


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], "-v", *sys.argv[1:]])
