#!/usr/bin/env python3
"""`gpuadmit explain` and `gpuadmit audit` on a HAMi cluster (docs/cluster.md#hami), against the fake API server
(tests/fakeapi): Nodes that register their cards in `hami.io/node-nvidia-register` (the JSON array of HAMi v2.8+ and
the colon-terminated list before it), running Pods whose `hami.io/vgpu-devices-allocated` says what they hold on the
node `hami.io/vgpu-node` names, Pending HAMi Pods (more vGPUs than any node has cards, a count HAMi defaults, names a
configuration renames), and Deployments audited with the HAMi rules.

The assertions hold whatever wording the allocator gives its reasons: verdicts, node names and exit codes only.

Environment: GPUADMIT (the binary), GPA_FAKEAPI (the fake's binary), E2E_WORK (a scratch directory).
Usage: run_hami.py [unittest names, e.g. Hami.test_explain]
"""
import json
import os
import shutil
import sys
import tempfile
import unittest

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run_cluster import FAKEAPI, WORK, Fake, run  # noqa: E402

REGISTER = "hami.io/node-nvidia-register"
ALLOCATED = "hami.io/vgpu-devices-allocated"

# h1: HAMi v2.8+ (JSON), two A10s; h2: HAMi v2.5-v2.7 (nine fields, colon-terminated), two T4s.
H1 = [{"id": "GPU-a001", "count": 10, "devmem": 23028, "devcore": 100, "type": "NVIDIA A10", "mode": "hami-core", "health": True},
      {"id": "GPU-a002", "index": 1, "count": 10, "devmem": 23028, "devcore": 100, "type": "NVIDIA A10", "numa": 1,
       "mode": "hami-core", "health": True}]
H2 = "GPU-t001,10,15360,100,NVIDIA-Tesla T4,0,true,0,hami-core:GPU-t002,10,15360,100,NVIDIA-Tesla T4,0,true,1,hami-core:"

RENAMED = {"resourceCountName": "example.com/vgpu", "resourceMemoryName": "example.com/vgpu-memory",
           "resourceMemoryPercentageName": "example.com/vgpu-memory-percentage", "resourceCoreName": "example.com/vgpu-cores",
           # keys of HAMi's nvidia section gpuadmit does not use: accepted, with one warning
           "deviceMemoryScaling": 1}


def hami_node(name, register):
    return {"metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, "gpu": "on"},
                         "annotations": {REGISTER: register if isinstance(register, str) else json.dumps(register),
                                         "hami.io/node-handshake": "Requesting_2026.11.26 10:00:00"}},
            "status": {"allocatable": {"cpu": "32", "nvidia.com/gpu": "20"}}}


def hami_pod(name, limits, ns="ml", node=None, allocated=None, phase=None):
    """A Pod as HAMi's webhook leaves it (schedulerName hami-scheduler); on a node: as its scheduler annotates it."""
    p = {"metadata": {"name": name, "namespace": ns, "uid": "uid-" + name, "annotations": {}},
         "spec": {"schedulerName": "hami-scheduler",
                  "containers": [{"name": "main", "image": "cuda:12", "resources": {"limits": limits}}]},
         "status": {"phase": phase or ("Running" if node else "Pending")}}
    if allocated:
        p["metadata"]["annotations"].update({ALLOCATED: allocated, "hami.io/vgpu-node": node, "hami.io/bind-phase": "success",
                                             "hami.io/vgpu-time": "1764151200"})
        if p["status"]["phase"] == "Running":
            p["spec"]["nodeName"] = node
    return p


def vgpu(count=None, mem=None, cores=None, names=None):
    n = names or {"resourceCountName": "nvidia.com/gpu", "resourceMemoryName": "nvidia.com/gpumem",
                  "resourceCoreName": "nvidia.com/gpucores"}
    limits = {}
    for key, v in (("resourceCountName", count), ("resourceMemoryName", mem), ("resourceCoreName", cores)):
        if v is not None:
            limits[n[key]] = str(v)
    return limits


def deployment(name, limits, ns="ml"):
    return {"metadata": {"name": name, "namespace": ns, "uid": "uid-" + name},
            "spec": {"replicas": 2, "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}},
                                  "spec": {"containers": [{"name": "train", "image": "cuda:12",
                                                           "resources": {"limits": limits}}]}}}}


@unittest.skipUnless(FAKEAPI and os.access(FAKEAPI, os.X_OK), "no fake API server (needs go)")
class Hami(unittest.TestCase):
    def setUp(self):
        os.makedirs(WORK, exist_ok=True)
        self.fake = Fake(self.id())
        self.dir = tempfile.mkdtemp(dir=WORK)
        self.fake.apply("nodes", hami_node("h1", H1), hami_node("h2", H2))
        self.fake.apply("pods",
                        # running: one vGPU on each of h1's cards, one on h2's first
                        hami_pod("busy-a", vgpu(2, 8000, 30), node="h1",
                                 allocated="GPU-a001,NVIDIA,8000,30:GPU-a002,NVIDIA,8000,30:;"),
                        hami_pod("busy-t", vgpu(1, 4000), node="h2", allocated="GPU-t001,NVIDIA,4000,0:;"),
                        # HAMi's scheduler chose h2, the device plugin has not bound it yet: it holds GPU-t002
                        hami_pod("binding", vgpu(1, 2000), node="h2", allocated="GPU-t002,NVIDIA,2000,0:;", phase="Pending"),
                        # Pending: 3 vGPUs need 3 cards, every node has 2: never
                        hami_pod("three", vgpu(3, 4000, 20)),
                        # Pending: one vGPU of 4000 MiB, its count written, or left for HAMi's defaultGPUNum (1)
                        hami_pod("one", vgpu(1, 4000, 20)),
                        hami_pod("defaulted", vgpu(None, 4000)),
                        # Pending, names of the renamed configuration: no GPU unless the configuration says so
                        hami_pod("renamed", vgpu(1, 1000, names=RENAMED)),
                        hami_pod("cpu-only", {"cpu": "1"}))
        self.k = ["--kubeconfig", self.fake.kubeconfig]
        self.renamed = os.path.join(self.dir, "renamed.yaml")
        with open(self.renamed, "w") as f:
            yaml.safe_dump({"hami": RENAMED}, f)

    def tearDown(self):
        self.fake.stop()
        shutil.rmtree(self.fake.dir, ignore_errors=True)
        shutil.rmtree(self.dir, ignore_errors=True)

    def explain(self, *args):
        return run("explain", *self.k, *args)

    def test_explain(self):
        r = self.explain("-n", "ml", "-o", "json")
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)  # "three" can never be placed
        self.assertNotIn("left out of the cluster inventory", r.stderr)  # both register forms read
        got = {e["name"]: e for e in json.loads(r.stdout)}
        # Pending HAMi Pods, the defaulted count included; the renamed names are no GPU without the configuration
        self.assertEqual(sorted(got), ["binding", "defaulted", "one", "three"], r.stdout)
        for e in got.values():
            self.assertEqual((e["dialect"], e["asksForGPU"]), ("hami", True), e)
        three = got["three"]
        self.assertEqual((three["everFits"], three["fitsNow"], three["node"]), (False, False, None), three)
        self.assertEqual(sorted(x["node"] for x in three["reasons"]), ["h1", "h2"], three)  # each node says why not
        self.assertEqual((got["one"]["everFits"], got["one"]["scheduled"]), (True, False), got["one"])
        self.assertEqual(got["defaulted"]["everFits"], True, got["defaulted"])
        binding = got["binding"]  # hami-scheduler's choice: scheduled there, not explained again
        self.assertEqual((binding["scheduled"], binding["node"], binding["everFits"]), (True, "h2", True), binding)

        r = self.explain("-n", "ml")
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        lines = r.stdout.splitlines()
        self.assertIn("Pod ml/three (hami): can never be placed: no node could hold it even empty", lines)
        self.assertIn("Pod ml/binding (hami): already scheduled on node h2", lines)
        # "defaulted" is placed: normalization gives HAMi's defaultGPUNum its vGPU
        self.assertEqual(lines[-1], "4 Pods explained: 3 could be placed, 1 can never be")

        # Named: a Pod that could be placed exits 0; the running ones are scheduled where HAMi put them.
        r = self.explain("-n", "ml", "one", "busy-a", "-o", "json")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        got = {e["name"]: e for e in json.loads(r.stdout)}
        self.assertEqual((got["one"]["dialect"], got["one"]["everFits"]), ("hami", True), got["one"])
        self.assertEqual((got["busy-a"]["dialect"], got["busy-a"]["scheduled"], got["busy-a"]["node"]), ("hami", True, "h1"))

    def test_explain_renamed_names(self):
        """The configuration's hami block renames HAMi's resources: a Pod that asks by those names is a HAMi Pod."""
        r = self.explain("-n", "ml", "--config", self.renamed, "-o", "json")
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)  # "three" asks for 3 of nvidia.com/gpu: never
        self.assertIn("ignored", r.stderr)  # deviceMemoryScaling: a key of HAMi's section gpuadmit does not use
        got = {e["name"]: e for e in json.loads(r.stdout)}
        e = got["renamed"]
        self.assertEqual((e["dialect"], e["asksForGPU"], e["everFits"]), ("hami", True, True), e)
        # nvidia.com/gpumem is no HAMi name in this cluster: what is left is the vendor's count
        self.assertEqual((got["one"]["dialect"], got["three"]["dialect"], got["three"]["everFits"]), ("vendor", "vendor", False))
        self.assertNotIn("defaulted", got)
        r = self.explain("-n", "ml", "--config", self.renamed)
        # every Pod counted once
        self.assertEqual(r.stdout.splitlines()[-1], "4 Pods explained: 3 could be placed, 1 can never be")
        r = self.explain("-n", "ml", "renamed")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)  # without the configuration: no GPU asked
        self.assertIn("Pod ml/renamed: asks for no GPU", r.stdout)

    def test_audit(self):
        """audit judges HAMi workloads with the HAMi rules: gpumem written as bytes is ambiguous-unit."""
        self.fake.apply("deployments", deployment("bytes", vgpu(1, "16Gi")), deployment("mib", vgpu(1, 16384, 50)),
                        deployment("renamed-bytes", vgpu(1, "4Gi", names=RENAMED)))
        r = run("audit", *self.k, "-n", "ml", "-o", "json")
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        got = {(e["kind"], e["name"]): e for e in json.loads(r.stdout)}
        bytes_ = got[("Deployment", "bytes")]
        self.assertFalse(bytes_["allowed"], bytes_)
        v = [x for x in bytes_["violations"] if x["rule"] == "ambiguous-unit"]
        self.assertEqual(len(v), 1, bytes_)
        self.assertEqual((v[0]["container"], v[0]["resources"], v[0]["action"]), ("train", ["nvidia.com/gpumem"], "deny"))
        self.assertTrue(v[0]["path"].startswith("spec.template.spec.containers[0].resources"), v[0])
        self.assertTrue(got[("Deployment", "mib")]["allowed"], got[("Deployment", "mib")])
        self.assertTrue(got[("Deployment", "renamed-bytes")]["allowed"])  # not HAMi's names here
        for name in ("one", "three", "busy-a", "busy-t", "binding"):  # valid HAMi Pods are admitted
            self.assertTrue(got[("Pod", name)]["allowed"], got[("Pod", name)])

        # The renamed names: the same rule, on the configured memory name.
        r = run("audit", *self.k, "-n", "ml", "--config", self.renamed, "-o", "json")
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        got = {(e["kind"], e["name"]): e for e in json.loads(r.stdout)}
        rules = {x["rule"]: x for x in got[("Deployment", "renamed-bytes")]["violations"]}
        self.assertEqual(rules["ambiguous-unit"]["resources"], ["example.com/vgpu-memory"], rules)

        # -o policyreport: one report per object with a finding, the finding a fail of rule ambiguous-unit.
        r = run("audit", *self.k, "-n", "ml", "-o", "policyreport")
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        reports = {d["scope"]["name"]: d for d in yaml.safe_load_all(r.stdout) if d is not None}
        self.assertIn("bytes", reports, r.stdout)
        self.assertNotIn("mib", reports)
        d = reports["bytes"]
        self.assertEqual((d["kind"], d["metadata"]["name"], d["scope"]["kind"]), ("PolicyReport", "uid-bytes", "Deployment"))
        x = {x["rule"]: x for x in d["results"]}["ambiguous-unit"]
        self.assertEqual((x["policy"], x["result"], x["properties"]["container"], x["properties"]["resources"]),
                         ("gpuadmit", "fail", "train", "nvidia.com/gpumem"))
        self.assertIn("16Gi", x["message"])


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], *sys.argv[1:]], verbosity=2)
