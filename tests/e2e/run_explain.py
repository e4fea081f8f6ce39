#!/usr/bin/env python3
"""`gpuadmit explain` (docs/cluster.md#explain) against the fake API server (tests/fakeapi) holding a real-shaped
cluster: Koordinator Nodes and Device objects, an mGPU node, scheduled Pods whose annotations say what they hold, and
Pending Pods that never fit, fit elsewhere, or fit nowhere now.

Environment: GPUADMIT (the binary), GPA_FAKEAPI (the fake's binary), E2E_WORK (a scratch directory).
Usage: run_explain.py [unittest names, e.g. Explain.test_json]
"""
import json
import os
import shutil
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run_cluster import FAKEAPI, WORK, Fake, run  # noqa: E402

GI = 1 << 30


def koord_node(name, zone, gpus, memory):
    """A Koordinator GPU node and its Device object (as koordlet reports them)."""
    node = {"metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, "topology.kubernetes.io/zone": zone,
                                                  "node.koordinator.sh/gpu-model": "A100-SXM4-80GB"}},
            "status": {"allocatable": {"cpu": "96", "koordinator.sh/gpu-core": str(100 * gpus),
                                       "koordinator.sh/gpu-memory-ratio": str(100 * gpus), "nvidia.com/gpu": str(gpus)}}}
    device = {"apiVersion": "scheduling.koordinator.sh/v1alpha1", "kind": "Device", "metadata": {"name": name},
              "spec": {"devices": [{"type": "gpu", "minor": m, "id": "GPU-%s-%d" % (name, m), "health": True,
                                    "resources": {"koordinator.sh/gpu-core": "100", "koordinator.sh/gpu-memory": memory,
                                                  "koordinator.sh/gpu-memory-ratio": "100"}} for m in range(gpus)]}}
    return node, device


def koord_pod(name, limits, ns="ml", node=None, allocated=None, selector=None):
    p = {"metadata": {"name": name, "namespace": ns, "uid": "uid-" + name, "annotations": {}},
         "spec": {"schedulerName": "koord-scheduler",
                  "containers": [{"name": "main", "image": "trainer:1", "resources": {"limits": limits}}]},
         "status": {"phase": "Pending"}}
    if selector:
        p["spec"]["nodeSelector"] = selector
    if node:
        p["spec"]["nodeName"] = node
        p["status"]["phase"] = "Running"
    if allocated:
        p["metadata"]["annotations"]["scheduling.koordinator.sh/device-allocated"] = json.dumps({"gpu": allocated})
    return p


def share(core, ratio, shared="1"):
    return {"koordinator.sh/gpu-core": str(core), "koordinator.sh/gpu-memory-ratio": str(ratio),
            "koordinator.sh/gpu.shared": shared}


MGPU_NODE = {"metadata": {"name": "mgpu-1", "labels": {"vke.node.gpu.schedule": "mgpu",
                                                       "nvidia.com/gpu.product": "Tesla-V100-SXM2-32GB"}},
             "status": {"allocatable": {"vke.volcengine.com/mgpu-core": "400", "vke.volcengine.com/mgpu-memory": "130048"}}}


def mgpu_pod(name, core, memory=None, ns="ml", node=None, cards=None):
    res = {"vke.volcengine.com/mgpu-core": str(core)}
    if memory:
        res["vke.volcengine.com/mgpu-memory"] = str(memory)
    p = {"metadata": {"name": name, "namespace": ns, "annotations": {}},
         "spec": {"containers": [{"name": "c0", "image": "app:1", "resources": {"limits": res}}]},
         "status": {"phase": "Pending"}}
    if node:
        p["spec"]["nodeName"] = node
        p["status"]["phase"] = "Running"
        p["metadata"]["annotations"].update({"vke.volcengine.com/assumed": "true",
                                             "vke.volcengine.com/gpu-index-container-c0": cards})
    return p


@unittest.skipUnless(FAKEAPI and os.access(FAKEAPI, os.X_OK), "no fake API server (needs go)")
class Explain(unittest.TestCase):
    def setUp(self):
        os.makedirs(WORK, exist_ok=True)
        self.fake = Fake(self.id())
        k1, d1 = koord_node("k1", "zone-a", 2, "80Gi")
        k2, d2 = koord_node("k2", "zone-b", 1, "16Gi")
        self.fake.apply("nodes", k1, k2, MGPU_NODE)
        self.fake.apply("devices", d1, d2)
        self.fake.apply("pods",
                        # k1: device 0 held whole, device 1 half
                        koord_pod("busy-0", share(100, 100), node="k1", allocated=[
                            {"minor": 0, "resources": {"koordinator.sh/gpu-core": "100", "koordinator.sh/gpu-memory-ratio": "100"}}]),
                        koord_pod("busy-1", share(50, 50), node="k1", allocated=[
                            {"minor": 1, "resources": {"koordinator.sh/gpu-core": "50", "koordinator.sh/gpu-memory-ratio": "50"}}]),
                        # mgpu-1: three of four cards held whole
                        mgpu_pod("mgpu-busy", 300, node="mgpu-1", cards="0,1,2"),
                        # Pending: never (no device has 100Gi), elsewhere (k1 is short: k2 fits), nowhere now (zone-a only)
                        koord_pod("never", {"koordinator.sh/gpu-core": "50", "koordinator.sh/gpu-memory": "100Gi",
                                            "koordinator.sh/gpu.shared": "1"}),
                        koord_pod("elsewhere", {"koordinator.sh/gpu-core": "60", "koordinator.sh/gpu-memory": "12Gi",
                                                "koordinator.sh/gpu.shared": "1"}),
                        koord_pod("waits", share(100, 100), selector={"topology.kubernetes.io/zone": "zone-a"}),
                        mgpu_pod("mgpu-waits", 200),  # two whole cards: one is free now
                        mgpu_pod("cpu-only", 0) | {"spec": {"containers": [{"name": "c0", "image": "app:1"}]}},
                        koord_pod("other-ns", share(100, 100), ns="team-b", selector={"topology.kubernetes.io/zone": "zone-a"}))
        self.k = ["--kubeconfig", self.fake.kubeconfig]

    def tearDown(self):
        self.fake.stop()
        shutil.rmtree(self.fake.dir, ignore_errors=True)

    def explain(self, *args):
        return run("explain", *self.k, *args)

    def test_json(self):
        r = self.explain("-n", "ml", "-o", "json")
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)  # "never" can never be placed
        got = {e["name"]: e for e in json.loads(r.stdout)}
        self.assertEqual(sorted(got), ["elsewhere", "mgpu-waits", "never", "waits"])  # Pending GPU Pods of ml only
        never, elsewhere, waits, mw = got["never"], got["elsewhere"], got["waits"], got["mgpu-waits"]
        for e in got.values():
            self.assertEqual(set(e) >= {"namespace", "name", "dialect", "everFits", "fitsNow", "node", "reasons"}, True, e)
            self.assertEqual(e["namespace"], "ml")
        self.assertEqual((never["dialect"], never["everFits"], never["fitsNow"], never["node"]), ("koordinator", False, False, None))
        reasons = {x["node"]: x["reason"] for x in never["reasons"]}
        self.assertEqual(sorted(reasons), ["k1", "k2", "mgpu-1"], never)
        self.assertEqual(reasons["k1"], "device 0 has 80Gi free, needs 100Gi")  # which device lacks which resource
        self.assertIn("mgpu", reasons["mgpu-1"])
        self.assertEqual((elsewhere["everFits"], elsewhere["fitsNow"], elsewhere["node"]), (True, True, "k2"))
        self.assertEqual((waits["everFits"], waits["fitsNow"], waits["node"]), (True, False, None))
        reasons = {x["node"]: x["reason"] for x in waits["reasons"]}
        self.assertIn("topology.kubernetes.io/zone", reasons["k2"])  # the selector excludes it
        self.assertRegex(reasons["k1"], r"device")  # both of k1's devices are taken
        self.assertEqual((mw["dialect"], mw["everFits"], mw["fitsNow"]), ("mgpu", True, False))
        self.assertIn("mgpu-1", {x["node"] for x in mw["reasons"]})

    def test_text_and_exit_codes(self):
        r = self.explain("-n", "ml")
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        lines = r.stdout.splitlines()
        self.assertIn("Pod ml/never (koordinator): can never be placed: no node could hold it even empty", lines)
        self.assertTrue(any(l.startswith("Pod ml/elsewhere (koordinator): fits now on node k2") for l in lines), r.stdout)
        self.assertIn("Pod ml/waits (koordinator): could be placed on an empty node, but no node has room now", lines)
        self.assertTrue(any(l.startswith("  k2: ") and "zone" in l for l in lines), r.stdout)
        self.assertEqual(lines[-1], "4 Pods explained: 3 could be placed, 1 can never be")
        # named Pods: one that could be placed exits 0; a scheduled one and one without GPU are said so
        r = self.explain("-n", "ml", "waits", "busy-0", "cpu-only")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("Pod ml/busy-0 (koordinator): already scheduled on node k1", r.stdout)
        self.assertIn("Pod ml/cpu-only: asks for no GPU", r.stdout)
        # all namespaces; the context's namespace (default) holds none
        r = self.explain("-A", "-o", "json")
        self.assertEqual(sorted(e["name"] for e in json.loads(r.stdout)), ["elsewhere", "mgpu-waits", "never", "other-ns", "waits"])
        r = self.explain()
        self.assertEqual((r.returncode, json.loads(self.explain("-o", "json").stdout)), (0, []), r.stdout + r.stderr)
        # usage, an unknown Pod, an unreachable cluster
        self.assertEqual(self.explain("-A", "-n", "ml").returncode, 2)
        self.assertEqual(self.explain("-o", "yaml").returncode, 2)
        r = self.explain("-n", "ml", "nosuch")
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn("no Pod nosuch in ml", r.stderr)
        self.fake.control("fault", {"token": "another"})
        r = self.explain("-n", "ml")
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn("cannot read the cluster: <input>: list /api/v1/nodes: HTTP 401", r.stderr)

    def test_node_templates(self):
        """--inventory F: node templates count for "ever" only; a Pod only a template could hold is not "never"."""
        path = os.path.join(self.fake.dir, "templates.yaml")
        with open(path, "w") as f:
            f.write("kind: GPUInventory\ntemplates:\n"
                    "- {name: h200, dialects: [koordinator], gpus: {count: 2, memory: 141Gi}}\n"
                    "- {name: small, dialects: [koordinator], gpus: {count: 1, memory: 16Gi}}\n")
        # Without the file, "never" is never; with it, it fits a new node of template h200.
        r = self.explain("-n", "ml", "never", "-o", "json")
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertEqual([(e["everFits"], e["template"]) for e in json.loads(r.stdout)], [(False, None)])
        r = self.explain("-n", "ml", "--inventory", path, "-o", "json")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)  # nothing is "never" any more
        got = {e["name"]: e for e in json.loads(r.stdout)}
        never = got["never"]
        self.assertEqual((never["everFits"], never["fitsNow"], never["node"], never["template"]), (True, False, None, "h200"))
        self.assertEqual(sorted(x["node"] for x in never["reasons"]), ["k1", "k2", "mgpu-1"])  # why no node would do
        self.assertEqual((got["elsewhere"]["node"], got["elsewhere"]["template"]), ("k2", None))  # nodes first
        r = self.explain("-n", "ml", "--inventory", path)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        lines = r.stdout.splitlines()
        self.assertTrue(any(l.startswith("Pod ml/never (koordinator): fits a new node of template h200") for l in lines), r.stdout)
        self.assertIn("  k1: device 0 has 80Gi free, needs 100Gi", lines)
        self.assertEqual(lines[-1], "4 Pods explained: 4 could be placed, 0 can never be")
        # A Pod no template could hold either: never, with each template's reason after the nodes'.
        self.fake.apply("pods", koord_pod("huge", {"koordinator.sh/gpu-core": "50", "koordinator.sh/gpu-memory": "200Gi",
                                                   "koordinator.sh/gpu.shared": "1"}))
        r = self.explain("-n", "ml", "huge", "--inventory", path, "-o", "json")
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        huge = json.loads(r.stdout)[0]
        self.assertEqual((huge["everFits"], huge["template"]), (False, None))
        self.assertEqual([x["template"] for x in huge["reasons"] if x["node"] is None], ["h200", "small"], huge)
        r = self.explain("-n", "ml", "huge", "--inventory", path)
        self.assertTrue(any(l.startswith("  template h200: ") for l in r.stdout.splitlines()), r.stdout)
        # Files beside the cluster hold templates only, as `fit --cluster --inventory F` takes them.
        nodes = os.path.join(self.fake.dir, "nodes.yaml")
        with open(nodes, "w") as f:
            f.write("kind: GPUInventory\nnodes:\n- {name: gpu-0, gpus: {count: 1}}\n")
        r = self.explain("-n", "ml", "--inventory", nodes)
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn("node gpu-0: only node templates are read from inventory files beside a live cluster", r.stderr)

    def test_pod_level_and_no_gpu_node(self):
        """A Koordinator Pod is placed as a whole (its containers' totals over distinct devices); with no GPU node at
        all the reason is the Pod's own ("node": null)."""
        halves = koord_pod("halves", share(50, 50))
        halves["spec"]["containers"].append({"name": "side", "image": "side:1", "resources": {"limits": share(50, 50)}})
        self.fake.apply("pods", halves)
        r = self.explain("-n", "ml", "halves", "-o", "json")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        e = json.loads(r.stdout)[0]
        self.assertEqual((e["everFits"], e["fitsNow"]), (True, False), e)  # k1 has two devices, both partly taken
        reasons = {x["node"]: x["reason"] for x in e["reasons"]}
        self.assertEqual(reasons["k2"], "the Pod's 2 containers ask for 2 devices of 50% each, each on a different device, "
                                        "the node has 1 healthy of 1")
        self.fake.apply("nodes", *[{"metadata": {"name": n}} for n in ("k1", "k2", "mgpu-1")], type_="DELETED")
        self.fake.apply("devices", *[{"metadata": {"name": n}} for n in ("k1", "k2")], type_="DELETED")
        r = self.explain("-n", "ml", "halves", "-o", "json")
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        e = json.loads(r.stdout)[0]
        self.assertEqual((e["everFits"], e["reasons"]), (False, [{"node": None, "template": None,
                                                                  "reason": "the cluster has no GPU nodes"}]), e)
        r = self.explain("-n", "ml", "halves")
        self.assertIn("  the cluster has no GPU nodes", r.stdout.splitlines(), r.stdout)

    def test_dra_claims(self):
        """Pending Pods whose GPUs come from DRA claims: placed on the cluster's ResourceSlices with what allocated claims
        hold. One fits now, one only once a claim frees its GPU (no room now), one never (three GPUs on a two-GPU node)."""
        gpu = lambda i: {"name": "gpu-%d" % i, "attributes": {"type": {"string": "gpu"}}, "capacity": {"memory": {"value": "80Gi"}}}
        self.fake.apply("resourceslices", {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
                                           "metadata": {"name": "d1-gpus"},
                                           "spec": {"driver": "gpu.nvidia.com", "nodeName": "d1", "devices": [gpu(0), gpu(1)],
                                                    "pool": {"name": "d1", "generation": 1, "resourceSliceCount": 1}}})
        self.fake.apply("deviceclasses", {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
                                          "metadata": {"name": "gpu.nvidia.com"},
                                          "spec": {"selectors": [{"cel": {"expression": "device.driver == 'gpu.nvidia.com'"}}]}})

        def template(name, count):
            return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate", "metadata": {"name": name, "namespace": "dra"},
                    "spec": {"spec": {"devices": {"requests": [{"name": "gpus", "exactly": {"deviceClassName": "gpu.nvidia.com",
                                                                                              "count": count}}]}}}}
        self.fake.apply("resourceclaimtemplates", template("one", 1), template("two", 2), template("three", 3))
        held = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": "running-gpus-x1", "namespace": "dra"},
                "spec": {"devices": {"requests": [{"name": "gpus", "exactly": {"deviceClassName": "gpu.nvidia.com"}}]}},
                "status": {"allocation": {"devices": {"results": [{"request": "gpus", "driver": "gpu.nvidia.com", "pool": "d1",
                                                                   "device": "gpu-0"}]}}}}
        self.fake.apply("resourceclaims", held)

        def pod(name, template):
            return {"metadata": {"name": name, "namespace": "dra"},
                    "spec": {"resourceClaims": [{"name": "gpus", "resourceClaimTemplateName": template}],
                             "containers": [{"name": "main", "image": "app:1", "resources": {"claims": [{"name": "gpus"}]}}]},
                    "status": {"phase": "Pending"}}
        ones = pod("ones", "one")  # two claims of one GPU: each fits now, together they need both GPUs, one is held
        ones["spec"]["resourceClaims"].append({"name": "more", "resourceClaimTemplateName": "one"})
        self.fake.apply("pods", pod("small", "one"), pod("pair", "two"), pod("big", "three"), ones)
        r = self.explain("-n", "dra", "-o", "json")
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        got = {e["name"]: e for e in json.loads(r.stdout)}
        self.assertEqual((got["small"]["dialect"], got["small"]["everFits"], got["small"]["fitsNow"], got["small"]["node"]),
                         ("dra", True, True, "d1"), got["small"])
        self.assertEqual((got["pair"]["everFits"], got["pair"]["fitsNow"]), (True, False), got["pair"])
        self.assertEqual(got["pair"]["reasons"][0]["reason"], "claim gpus (ResourceClaimTemplate two): no room now: request gpus: "
                                                              "2 devices on one node asked, at most 1 on any node")
        by_node = {x["node"]: x["reason"] for x in got["pair"]["reasons"]}
        self.assertEqual(by_node["d1"], "claim gpus (ResourceClaimTemplate two): request gpus: 2 device(s) asked, 1 here; for one "
                                        "left out, device d1/gpu-0 is allocated to claim dra/running-gpus-x1", got["pair"])
        self.assertEqual((got["big"]["everFits"], got["big"]["fitsNow"]), (False, False), got["big"])
        self.assertIn("request gpus: 3 device(s) asked, 2 here", {x["node"]: x["reason"] for x in got["big"]["reasons"]}["d1"])
        self.assertIn("never: request gpus: 3 devices on one node asked, at most 2 on any node", got["big"]["reasons"][0]["reason"])
        self.assertEqual((got["ones"]["everFits"], got["ones"]["fitsNow"]), (True, False), got["ones"])
        self.assertIn("its 2 claims from templates together: no room now: ", got["ones"]["reasons"][-1]["reason"])
        r = self.explain("-n", "dra")
        self.assertIn("Pod dra/pair (dra): could be placed on an empty node, but no node has room now", r.stdout)

    def test_control_characters_escaped(self):
        evil = koord_pod("evil\nPod ml/x: fits now\x1b[2J", {"koordinator.sh/gpu-core": "50", "koordinator.sh/gpu-memory": "100Gi",
                                                           "koordinator.sh/gpu.shared": "1"}, ns="esc")
        self.fake.apply("pods", evil)
        r = self.explain("-n", "esc")
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertNotIn("\x1b", r.stdout)
        self.assertIn("Pod esc/evil\\nPod ml/x: fits now\\x1b[2J (koordinator): can never be placed", r.stdout)
        self.assertFalse(any(l.startswith("Pod ml/x") for l in r.stdout.splitlines()), r.stdout)
        r = self.explain("-n", "esc", "-o", "json")
        self.assertEqual(json.loads(r.stdout)[0]["name"], evil["metadata"]["name"])  # JSON carries it as it is


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], *sys.argv[1:]], verbosity=2)
