#!/usr/bin/env python3
"""Tenants' Pods against the live inventory (docs/allocator.md, "Usage"; docs/cluster.md): `gpuadmit serve
--cluster-inventory` and `fit --cluster` against the fake API server (tests/fakeapi), with Pods whose annotations
are as large as the API server allows (256 KiB) and claim thousands of devices, and Pods whose annotations cannot be
read. The server's memory is judged by the kernel's own figure (VmHWM, the peak resident set): it is bounded by the
cluster's devices, not by the annotations; a bound far above the normal figure, never a fine measurement.

Environment: GPUADMIT, GPA_FAKEAPI, E2E_WORK (as run_cluster.py); GPA_TENANT_PODS (default 200) annotated Pods.
Usage: run_tenant_pods.py [unittest names]
"""
import json
import os
import shutil
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_cluster  # noqa: E402 (its test classes stay out of this module's namespace)
from run_cluster import FAKEAPI, Fake, eventually, readyz, run, validate  # noqa: E402
from run_e2e import pod  # noqa: E402

MB = 1 << 20
PODS = int(os.environ.get("GPA_TENANT_PODS", "200"))
ANNOTATION_LIMIT = 256 * 1024  # kube-apiserver's limit on a Pod's annotations, all together
PEAK_BOUND = 64 * MB  # the chart limits the server to 128 MiB; keeping the annotations took 208 MiB for 200 Pods


def proc_status(pid, field):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    raise KeyError(field)


def sanitized():
    """An ASan build (CI runs the suite under it too) keeps freed memory in quarantine: its RSS says nothing of the
    product's, so the bound is printed, not asserted, there (as run_attack.py does)."""
    with open(run_cluster.GPUADMIT, "rb") as f:
        return b"__asan_init" in f.read()


def koord_node(name):
    return {"metadata": {"name": name},
            "status": {"allocatable": {"koordinator.sh/gpu-core": "200", "koordinator.sh/gpu-memory": "32Gi",
                                       "koordinator.sh/gpu-memory-ratio": "200"}}}


SHARE = {"koordinator.sh/gpu-core": "50", "koordinator.sh/gpu-memory-ratio": "50", "koordinator.sh/gpu.shared": "1"}
WHOLE = {"koordinator.sh/gpu-core": "100", "koordinator.sh/gpu-memory-ratio": "100", "koordinator.sh/gpu.shared": "1"}


def huge_allocation():
    """A device-allocated annotation just under the limit: device 0 whole, then thousands of devices."""
    entries = ['{"minor":0,"resources":{"koordinator.sh/gpu-core":"100","koordinator.sh/gpu-memory-ratio":"100"}}']
    size, minor = len(entries[0]) + 10, 1
    while True:
        e = '{"minor":%d,"resources":{"koordinator.sh/gpu-core":"100"}}' % minor
        if size + len(e) + 1 > ANNOTATION_LIMIT - 64:
            break
        entries.append(e)
        size += len(e) + 1
        minor += 1
    return '{"gpu":[%s]}' % ",".join(entries)


def whole_pod():
    """A Pod to judge: one whole device."""
    p = pod("whole", [("main", {"limits": WHOLE})])
    p["metadata"]["namespace"] = "ml"
    return p


def tenant_pod(name, ann, limits=SHARE, node="k1"):
    p = pod(name, [("main", {"limits": limits})])
    p["metadata"]["namespace"] = "tenant"
    p["metadata"]["annotations"] = {"scheduling.koordinator.sh/device-allocated": ann}
    p["spec"]["nodeName"] = node
    p["status"] = {"phase": "Running"}
    return p


class FakeCluster(unittest.TestCase):
    """A fake API server with node k1 per test, and serve --cluster-inventory against it (run_cluster.Live's)."""

    @classmethod
    def setUpClass(cls):
        run_cluster.Live.setUpClass.__func__(cls)

    serve = run_cluster.Live.serve

    def setUp(self):
        self.fake = Fake(self.id())
        self.server = None
        self.fake.apply("nodes", koord_node("k1"))

    def tearDown(self):
        if self.server is not None:
            self.server.stop(timeout=120)
        self.fake.stop()
        shutil.rmtree(self.fake.dir, ignore_errors=True)


@unittest.skipUnless(FAKEAPI and os.access(FAKEAPI, os.X_OK), "no fake API server (needs go)")
class TenantPods(FakeCluster):
    def setUp(self):
        super().setUp()
        ann = huge_allocation()
        self.assertGreater(len(ann), ANNOTATION_LIMIT - 4096)
        for k in range(0, PODS, 50):  # the same annotation text for every Pod: the fake keeps one copy per Pod anyway
            self.fake.apply("pods", *[tenant_pod("big-%05d" % i, ann) for i in range(k, min(k + 50, PODS))], batch=50)
        self.fake.apply("pods", tenant_pod("unreadable", '{"gpu":[{"minor":1,'))

    def test_annotations_neither_inflate_nor_poison(self):
        start = time.time()
        s = self.serve()
        eventually("ready", lambda: readyz(s) == 200, timeout=600)
        synced_after = time.time() - start
        peak = proc_status(s.proc.pid, "VmHWM")
        m = s.metrics()
        print("\n%d Pods with %d KiB annotations: synced in %.1f s, VmHWM %.1f MiB, VmRSS %.1f MiB" %
              (PODS, ANNOTATION_LIMIT // 1024, synced_after, peak / MB, proc_status(s.proc.pid, "VmRSS") / MB),
              file=sys.stderr)
        if not sanitized():
            self.assertLess(peak, PEAK_BOUND, "VmHWM %.1f MiB" % (peak / MB))
        # The unreadable Pod is counted and named; it did not stop the inventory.
        self.assertEqual(m['gpuadmit_cluster_objects_unreadable_total{kind="pods"}'], 1)
        s.wait_log(lambda l: "tenant/unreadable" in l.get("error", ""), 5)
        self.assertGreaterEqual(m['gpuadmit_cluster_objects{kind="pods"}'], PODS)
        # Each big Pod holds at most its own request (50% of one device), and only on device 0: device 1 is free,
        # so a whole device has room now (no "no room now" warning).
        answer = validate(s, whole_pod())
        self.assertTrue(answer["allowed"], answer)
        self.assertFalse(any("room" in w for w in answer.get("warnings", [])), answer)

    def test_fit_cluster_reads_them_the_same(self):
        path = os.path.join(self.fake.dir, "whole.json")
        with open(path, "w") as f:
            json.dump(whole_pod(), f)
        r = run("fit", "--cluster", "--kubeconfig", self.fake.kubeconfig, "--now", path)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr[-2000:])
        self.assertIn("device 1: core 100%", r.stdout)
        self.assertRegex(r.stderr, r"Pod tenant/unreadable holds no GPU: not JSON")
        self.assertNotIn("big-", r.stderr)


@unittest.skipUnless(FAKEAPI and os.access(FAKEAPI, os.X_OK), "no fake API server (needs go)")
class ClusterPaths(FakeCluster):
    """audit, fit --cluster and serve --cluster-inventory on a few tenant Pods, with waits long enough to run under
    Valgrind (tests/valgrind/memcheck.py runs this class: label "valgrind")."""

    def setUp(self):
        super().setUp()
        inflated = '{"gpu":[%s]}' % ",".join('{"minor":%d,"resources":{"koordinator.sh/gpu-core":"100"}}' % m for m in range(64))
        self.fake.apply("pods", tenant_pod("inflated", inflated), tenant_pod("unreadable", '{"gpu":[{"minor":1,'),
                        tenant_pod("odd", '{"gpu":{"minor":1}}'))

    def test_serve_fit_audit(self):
        path = os.path.join(self.fake.dir, "whole.json")
        with open(path, "w") as f:
            json.dump(whole_pod(), f)
        k = ["--kubeconfig", self.fake.kubeconfig]
        r = subprocess.run([run_cluster.GPUADMIT, "fit", "--cluster", *k, "--now", path], capture_output=True, text=True,
                           timeout=300)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("Pod tenant/unreadable holds no GPU", r.stderr)
        r = subprocess.run([run_cluster.GPUADMIT, "audit", *k, "-A"], capture_output=True, text=True, timeout=300)
        self.assertIn(r.returncode, (0, 1), r.stdout + r.stderr)
        self.assertIn("Pod/tenant/unreadable", r.stdout)
        s = self.serve()
        eventually("ready", lambda: readyz(s) == 200, timeout=300)
        eventually("the unreadable Pods counted",
                   lambda: s.metrics().get('gpuadmit_cluster_objects_unreadable_total{kind="pods"}') == 2, timeout=120)
        self.assertTrue(validate(s, whole_pod())["allowed"])


@unittest.skipUnless(FAKEAPI and os.access(FAKEAPI, os.X_OK), "no fake API server (needs go)")
class HamiDump(FakeCluster):
    """HAMi nodes and Pods served by the API server read as the same kubectl dump read from a file
    (docs/allocator.md, "HAMi nodes"): cards from the register annotation, usage from vgpu-devices-allocated, a Node
    whose annotation cannot be read and a tenant's forged allocation named, never refused."""

    DUMP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli", "data", "hami-poisoned.json")

    def setUp(self):
        self.fake = Fake(self.id())
        self.server = None
        with open(self.DUMP) as f:
            items = json.load(f)["items"]
        self.fake.apply("nodes", *[i for i in items if i["kind"] == "Node"])
        self.fake.apply("pods", *[i for i in items if i["kind"] == "Pod"])

    def test_cluster_reads_as_the_file(self):
        path = os.path.join(self.fake.dir, "three.json")
        with open(path, "w") as f:
            json.dump(pod("three", [("main", {"limits": {"nvidia.com/gpu": "3"}})]), f)
        for now, verdict in (([], "fits on hami-a100-1"), (["--now"], "does not fit")):  # ml/infer-0 holds card 2
            live = run("fit", "--cluster", "--kubeconfig", self.fake.kubeconfig, *now, path)
            file = run("fit", "--inventory", self.DUMP, *now, path)
            self.assertEqual((live.returncode, live.stdout), (file.returncode, file.stdout), live.stderr + file.stderr)
            self.assertIn(verdict, live.stdout)
            self.assertIn("Node hami-t4-2 has no HAMi cards", live.stderr)
            self.assertIn("Pod tenant/forged holds no GPU", live.stderr)
        s = self.serve()
        eventually("ready", lambda: readyz(s) == 200, timeout=300)
        m = s.metrics()
        self.assertEqual(m['gpuadmit_cluster_objects_unreadable_total{kind="nodes"}'], 1)
        self.assertEqual(m['gpuadmit_cluster_objects_unreadable_total{kind="pods"}'], 1)
        four = pod("four", [("main", {"limits": {"nvidia.com/gpu": "4"}})])
        answer = validate(s, four)  # 40 slots on hami-a100-1, but 3 healthy cards: never
        self.assertFalse(answer["allowed"], answer)
        self.assertIn("infeasible", answer["status"]["message"])


class FileInventory(unittest.TestCase):
    """serve --inventory with a kubectl dump holding a tenant's unreadable Pod: it starts, logs the Pod at start and
    at every reload, and the rest of the inventory is in force (the reading before this branch exited 2)."""

    def test_poisoned_dump_serves_and_warns(self):
        os.makedirs(run_cluster.WORK, exist_ok=True)
        certdir = os.path.join(run_cluster.WORK, "certs-file")
        run_cluster.make_certs(certdir)
        inv = os.path.join(run_cluster.WORK, "poisoned-pods.json")
        here = os.path.dirname(os.path.abspath(__file__))
        shutil.copy(os.path.join(here, "..", "cli", "data", "poisoned-pods.json"), inv)
        s = run_cluster.Server("poisoned", certdir, "--inventory", inv)
        try:
            s.wait_log(lambda l: "Pod tenant/not-json holds no GPU" in l.get("error", ""), 30)
            big = pod("big", [("main", {"limits": {"nvidia.com/gpu": "4"}})])
            self.assertFalse(validate(s, big)["allowed"])  # the inventory is in force: no node has 4 GPUs
            with open(inv) as f:
                text = f.read()
            with open(inv, "w") as f:  # a reload: the warning again
                f.write(text.replace('"tenant"', '"tenant2"'))
            s.wait_log(lambda l: "Pod tenant2/not-json holds no GPU" in l.get("error", ""), 30)
        finally:
            s.stop()


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], *sys.argv[1:]], verbosity=2)
