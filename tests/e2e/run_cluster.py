#!/usr/bin/env python3
"""The live cluster end to end (docs/cluster.md): `gpuadmit serve --cluster-inventory`, `fit --cluster` and `audit`
against the fake API server (tests/fakeapi), objects and faults injected through its /_fake/ endpoints.

Environment: GPUADMIT (the binary), GPA_FAKEAPI (the fake's binary), E2E_WORK (a scratch directory).
Usage: run_cluster.py [unittest names, e.g. Live.test_staleness_stops_denying]
"""
import http.client
import json
import os
import shutil
import ssl
import subprocess
import sys
import tempfile
import time
import unittest

import yaml
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run_e2e import GPUADMIT, WORK, Server, make_certs, pod, review  # noqa: E402

FAKEAPI = os.environ.get("GPA_FAKEAPI", "")


class Fake:
    """One fake API server; stopped by closing its stdin."""

    def __init__(self, name, *flags, binary=None, work=None):
        self.dir = tempfile.mkdtemp(prefix="fakeapi-", dir=work or WORK)
        self.proc = subprocess.Popen([binary or FAKEAPI, "-dir", self.dir, "-exit-on-stdin-eof", *flags], stdin=subprocess.PIPE,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 10
        while not os.path.exists(os.path.join(self.dir, "url")):
            if time.time() > deadline:
                raise AssertionError("the fake API server did not start")
            time.sleep(0.02)
        with open(os.path.join(self.dir, "url")) as f:
            self.url = f.read().strip()
        self.ctx = ssl.create_default_context(cafile=os.path.join(self.dir, "ca.crt"))
        self.kubeconfig = os.path.join(self.dir, "kubeconfig")
        with open(self.kubeconfig, "w") as f:
            f.write("apiVersion: v1\nkind: Config\ncurrent-context: fake\n"
                    "clusters: [{name: fake, cluster: {server: %s, certificate-authority: %s}}]\n"
                    "users: [{name: u, user: {token: test-token}}]\n"
                    "contexts: [{name: fake, context: {cluster: fake, user: u, namespace: default}}]\n"
                    % (self.url, os.path.join(self.dir, "ca.crt")))

    def control(self, what, body):
        req = urllib.request.Request(self.url + "/_fake/" + what, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, context=self.ctx, timeout=120) as r:
            return json.loads(r.read())

    def apply(self, resource, *objects, type_="ADDED", batch=5000):
        for k in range(0, max(len(objects), 1), batch):
            self.control("apply", [{"resource": resource, "type": type_, "object": o} for o in objects[k:k + batch]])

    def stop(self):
        if self.proc.poll() is None:
            self.proc.stdin.close()
            self.proc.terminate()
            self.proc.wait(10)


def node(name, gpus, memory_mib=16384):
    return {"metadata": {"name": name, "labels": {"nvidia.com/gpu.memory": str(memory_mib)}},
            "status": {"allocatable": {"nvidia.com/gpu": str(gpus)}}}


def vendor_pod(name, gpus, ns="default", node_name=None):
    p = pod(name, [("main", {"limits": {"nvidia.com/gpu": str(gpus)}})])
    p["metadata"]["namespace"] = ns
    if node_name:
        p["spec"]["nodeName"] = node_name
        p["status"] = {"phase": "Running"}
    return p


def dra_class(name):
    return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": name},
            "spec": {"selectors": [{"cel": {"expression": "device.driver == '%s'" % name}}]}}


def dra_spec(cls):
    return {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": cls}}]}}


def dra_template(name, cls, ns="default"):
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate", "metadata": {"name": name, "namespace": ns},
            "spec": {"spec": dra_spec(cls)}}


def dra_claim(name, cls, ns="default"):
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": name, "namespace": ns},
            "spec": dra_spec(cls)}


def dra_findings(answer):
    """The dra-unknown-* rule ids an answer's warnings and denial name, in order."""
    text = answer.get("warnings", []) + [answer.get("status", {}).get("message", "")]
    return [r for w in text for r in ("dra-unknown-claim", "dra-unknown-class", "dra-unknown-request") if r + ":" in w]


def dra_pod(name, template=None, claim=None):
    """A Pod with one claim, from a template or a ResourceClaim by name, used by its container."""
    p = pod(name, [("main", {"claims": [{"name": "gpu"}]})])
    source = {"resourceClaimTemplateName": template} if template else {"resourceClaimName": claim}
    p["spec"]["resourceClaims"] = [dict({"name": "gpu"}, **source)]
    return p


MIXED = pod("both", [("main", {"limits": {"koordinator.sh/gpu-memory": "8Gi", "koordinator.sh/gpu-memory-ratio": "50",
                                          "koordinator.sh/gpu.shared": "1"}})])


def validate(server, obj):
    """The webhook's answer (the AdmissionReview response) to a CREATE of obj."""
    ctx = ssl.create_default_context(cafile=os.path.join(server.certdir, "ca.crt"))
    ctx.check_hostname = False
    conn = http.client.HTTPSConnection("127.0.0.1", server.port, context=ctx, timeout=10)
    conn.request("POST", "/validate", body=json.dumps(review(obj)), headers={"Content-Type": "application/json"})
    r = conn.getresponse()
    body = json.loads(r.read())
    conn.close()
    return body["response"]


def readyz(server):
    try:
        with urllib.request.urlopen("http://127.0.0.1:%d/readyz" % server.metrics_port, timeout=5) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code


def eventually(what, pred, timeout=20):
    deadline = time.time() + timeout
    while time.time() < deadline:
        v = pred()
        if v:
            return v
        time.sleep(0.05)
    raise AssertionError("not within %ss: %s" % (timeout, what))


@unittest.skipUnless(FAKEAPI and os.access(FAKEAPI, os.X_OK), "no fake API server (needs go)")
class Live(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        os.makedirs(WORK, exist_ok=True)
        cls.certdir = os.path.join(WORK, "certs")
        make_certs(cls.certdir)

    def setUp(self):
        self.fake = Fake(self.id())
        self.server = None

    def tearDown(self):
        if self.server is not None:
            self.server.stop()
        self.fake.stop()
        shutil.rmtree(self.fake.dir, ignore_errors=True)

    def serve(self, *args):
        self.server = Server(self.id().rsplit(".", 1)[1], self.certdir, "--cluster-inventory", "--kubeconfig",
                             self.fake.kubeconfig, *args)
        return self.server

    def test_readyz_waits_for_sync_and_events_change_the_verdict(self):
        self.fake.apply("nodes", node("a", 2))
        self.fake.control("fault", {"slowMs": 1500})
        s = self.serve()
        self.assertEqual(readyz(s), 503)
        self.fake.control("fault", {"slowMs": 0})
        eventually("ready", lambda: readyz(s) == 200)
        denied = validate(s, vendor_pod("big", 4))
        self.assertFalse(denied["allowed"])
        self.assertIn("infeasible", denied["status"]["message"])
        self.assertTrue(validate(s, vendor_pod("small", 1))["allowed"])
        # A bigger node arrives: the same Pod now fits.
        self.fake.apply("nodes", node("b", 8))
        eventually("the new node counts", lambda: validate(s, vendor_pod("big", 4))["allowed"])
        # Node b goes: denied again.
        self.fake.apply("nodes", node("b", 8), type_="DELETED")
        eventually("the node is gone", lambda: not validate(s, vendor_pod("big", 4))["allowed"])
        m = s.metrics()
        self.assertEqual(m['gpuadmit_cluster_objects{kind="nodes"}'], 1)
        self.assertEqual(m["gpuadmit_cluster_synced"], 1)
        self.assertGreater(m["gpuadmit_cluster_apply_seconds_count"], 0)
        # Usage by a scheduled Pod counts with --now semantics only: a whole node held still "could ever fit".
        self.fake.apply("pods", vendor_pod("holder", 2, node_name="a"))
        eventually("the Pod is held", lambda: s.metrics()['gpuadmit_cluster_objects{kind="pods"}'] == 1)

    def test_serve_before_sync_is_silent(self):
        self.fake.apply("nodes", node("a", 2))
        self.fake.control("fault", {"slowMs": 3000})
        s = self.serve("--serve-before-sync")
        self.assertEqual(readyz(s), 200)
        answer = validate(s, vendor_pod("big", 4))
        self.assertTrue(answer["allowed"])
        self.assertNotIn("warnings", answer)
        self.fake.control("fault", {"slowMs": 0})
        eventually("synced: infeasible denies", lambda: not validate(s, vendor_pod("big", 4))["allowed"])

    def test_staleness_stops_denying(self):
        self.fake.apply("nodes", node("a", 2))
        s = self.serve("--inventory-stale-after", "1s")
        eventually("ready", lambda: readyz(s) == 200)
        self.assertFalse(validate(s, vendor_pod("big", 4))["allowed"])
        self.fake.stop()  # every watch breaks, and reconnecting fails
        answer = eventually("stale", lambda: (lambda a: a if a["allowed"] else None)(validate(s, vendor_pod("big", 4))))
        self.assertTrue(any("not enforced: cluster inventory stale" in w for w in answer.get("warnings", [])), answer)
        self.assertEqual(s.metrics()["gpuadmit_cluster_stale"], 1)
        self.assertGreater(s.metrics()['gpuadmit_cluster_watch_restarts_total{kind="nodes"}'], 0)
        s.wait_log(lambda l: l.get("msg", "").startswith("cluster inventory stale"), 5)

    def test_stale_then_current_again(self):
        self.fake.apply("nodes", node("a", 2))
        s = self.serve("--inventory-stale-after", "1s")
        eventually("ready", lambda: readyz(s) == 200)
        self.fake.control("fault", {"token": "rotated-elsewhere", "cut": True})  # every watch now gets 401
        eventually("stale", lambda: validate(s, vendor_pod("big", 4))["allowed"])
        self.fake.control("fault", {"token": "test-token"})
        self.fake.apply("nodes", node("c", 2))  # an event through the restored watch: current again
        eventually("enforced again", lambda: not validate(s, vendor_pod("big", 4))["allowed"], timeout=60)
        s.wait_log(lambda l: l.get("msg", "").startswith("cluster inventory current again"), 5)
        self.assertEqual(s.metrics()["gpuadmit_cluster_stale"], 0)

    def test_relist_after_410(self):
        self.fake.stop()
        self.fake = Fake(self.id(), "-bookmark-ms", "600000")  # no bookmark moves the Nodes watch on
        self.fake.apply("nodes", node("a", 2))
        s = self.serve()
        eventually("ready", lambda: readyz(s) == 200)
        self.fake.apply("pods", vendor_pod("elsewhere", 1))  # a change the Nodes watch does not see
        self.fake.control("fault", {"compact": True})  # history forgotten, watches dropped: the Nodes watch is 410 Gone
        self.fake.apply("nodes", node("b", 8))
        eventually("relisted", lambda: s.metrics()['gpuadmit_cluster_relists_total{kind="nodes"}'] >= 1)
        eventually("the relist has b", lambda: validate(s, vendor_pod("big", 4))["allowed"])

    def test_watched_pods_are_audited(self):
        self.fake.apply("nodes", node("a", 2))
        bad = json.loads(json.dumps(MIXED))
        bad["metadata"]["namespace"] = "ml"
        # A legacy Koordinator Pod (core and ratio, no gpu.shared): judged as created now, as `gpuadmit audit` judges
        # it, the mutation adds gpu.shared, so it breaks no rule (as stored it would break shared-required).
        legacy = pod("legacy", [("main", {"limits": {"koordinator.sh/gpu-core": "50", "koordinator.sh/gpu-memory-ratio": "50"}})])
        legacy["metadata"]["namespace"] = "ml"
        self.fake.apply("pods", bad, legacy, vendor_pod("fine", 1, ns="ml"))
        s = self.serve()
        eventually("ready", lambda: readyz(s) == 200)  # every Pod listed and judged
        key = 'gpuadmit_audit_violations{rule="memory-ratio-exclusive",namespace="ml"}'
        eventually("counted", lambda: s.metrics().get(key) == 1)
        counted = {k: v for k, v in s.metrics().items() if k.startswith("gpuadmit_audit_violations{")}
        self.assertEqual(counted, {key: 1}, counted)
        self.fake.apply("pods", bad, type_="DELETED")
        eventually("uncounted", lambda: key not in s.metrics())

    def test_devices_not_served(self):
        self.fake.stop()
        self.fake = Fake(self.id(), "-no-crd")
        self.fake.apply("nodes", node("a", 2))
        s = self.serve("--inventory-stale-after", "1s")
        eventually("ready without the Device CRD", lambda: readyz(s) == 200)
        time.sleep(1.5)
        self.assertFalse(validate(s, vendor_pod("big", 4))["allowed"])  # an absent CRD is not staleness
        self.assertEqual(s.metrics()["gpuadmit_cluster_stale"], 0)

    def test_dra_objects_known_from_the_cluster(self):
        """DeviceClasses, ResourceClaimTemplates and ResourceClaims listed and watched: a Pod naming a template or claim
        the namespace does not hold, or a claim naming a class the cluster does not have, is answered as the rules say
        (both warn by default); what the cluster holds passes clean; an object created later counts once watched."""
        self.fake.apply("deviceclasses", dra_class("gpu.nvidia.com"))
        self.fake.apply("resourceclaimtemplates", dra_template("one-gpu", "gpu.nvidia.com"))
        self.fake.apply("resourceclaims", dra_claim("shared", "gpu.nvidia.com"))
        s = self.serve()
        eventually("ready", lambda: readyz(s) == 200)
        m = s.metrics()
        for kind in ("deviceclasses", "resourceclaimtemplates", "resourceclaims"):
            self.assertEqual(m['gpuadmit_cluster_objects{kind="%s"}' % kind], 1, kind)
        for clean in (dra_pod("ok", template="one-gpu"), dra_pod("ok-claim", claim="shared"), dra_claim("mine", "gpu.nvidia.com")):
            answer = validate(s, clean)
            self.assertTrue(answer["allowed"])
            self.assertEqual(dra_findings(answer), [], clean["metadata"]["name"])
        for missing in (dra_pod("no-template", template="two-gpus"), dra_pod("no-claim", claim="nope")):
            answer = validate(s, missing)
            self.assertTrue(answer["allowed"])
            self.assertEqual(dra_findings(answer), ["dra-unknown-claim"], missing["metadata"]["name"])
        self.assertEqual(dra_findings(validate(s, dra_claim("mine", "gpu.nvidia.co"))), ["dra-unknown-class"])
        # The template and the class are created: both pass clean once the watch has them.
        self.fake.apply("resourceclaimtemplates", dra_template("two-gpus", "gpu.nvidia.com"))
        self.fake.apply("deviceclasses", dra_class("gpu.nvidia.co"))
        eventually("the new template counts", lambda: dra_findings(validate(s, dra_pod("no-template", template="two-gpus"))) == [])
        eventually("the new class counts", lambda: dra_findings(validate(s, dra_claim("mine", "gpu.nvidia.co"))) == [])
        # Deleted: unknown again.
        self.fake.apply("resourceclaimtemplates", dra_template("two-gpus", "gpu.nvidia.com"), type_="DELETED")
        eventually("the template is gone",
                   lambda: dra_findings(validate(s, dra_pod("no-template", template="two-gpus"))) == ["dra-unknown-claim"])

    def test_dra_slices_from_the_cluster(self):
        """ResourceSlices listed and watched feed the devices DRA rules read: a selector on an attribute the driver does
        not publish is denied (dra-cel), a claim for more devices than a node publishes is infeasible, and a slice
        published later counts once watched."""
        def gpus(node, n):
            return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": node + "-gpus"},
                    "spec": {"driver": "gpu.nvidia.com", "pool": {"name": node, "generation": 1, "resourceSliceCount": 1},
                             "nodeName": node,
                             "devices": [{"name": "gpu-%d" % i, "attributes": {"type": {"string": "gpu"}},
                                          "capacity": {"memory": {"value": "80Gi"}}} for i in range(n)]}}

        def claim(name, count=1, selector=None):
            c = dra_claim(name, "gpu.nvidia.com")
            exact = c["spec"]["devices"]["requests"][0]["exactly"]
            exact["count"] = count
            if selector:
                exact["selectors"] = [{"cel": {"expression": selector}}]
            return c

        def denial(answer):
            return answer.get("status", {}).get("message", "")

        self.fake.apply("deviceclasses", dra_class("gpu.nvidia.com"))
        self.fake.apply("resourceslices", gpus("node-1", 2))
        s = self.serve()
        eventually("ready", lambda: readyz(s) == 200)
        self.assertEqual(s.metrics()['gpuadmit_cluster_objects{kind="resourceslices"}'], 1)
        eventually("the slice is published", lambda: not validate(s, claim("four", 4))["allowed"])
        self.assertTrue(validate(s, claim("two", 2))["allowed"])
        answer = validate(s, claim("index", selector="device.attributes['gpu.nvidia.com'].index == 0"))
        self.assertFalse(answer["allowed"])
        self.assertIn("dra-cel:", denial(answer))
        self.assertIn("no such key: index", denial(answer))
        answer = validate(s, claim("four", 4))
        self.assertFalse(answer["allowed"])
        self.assertIn("infeasible:", denial(answer))
        # A node of four GPUs is published: four fit once the watch has it.
        self.fake.apply("resourceslices", gpus("node-2", 4))
        eventually("the new slice counts", lambda: validate(s, claim("four", 4))["allowed"])

    def test_dra_not_served_is_not_known(self):
        """A cluster that does not serve resource.k8s.io/v1 (404): nothing is known absent, so the rules that need
        absence stay silent."""
        self.fake.control("fault", {"noDra": True})
        s = self.serve()
        eventually("ready", lambda: readyz(s) == 200)
        self.assertEqual(dra_findings(validate(s, dra_pod("no-template", template="two-gpus"))), [])
        self.assertEqual(dra_findings(validate(s, dra_claim("mine", "gpu.nvidia.co"))), [])
        self.assertEqual(s.metrics()["gpuadmit_cluster_stale"], 0)  # not served is not stale

    def test_dra_v1beta1_cluster(self):
        """A cluster that serves resource.k8s.io at v1beta1 only (discovery prefers it): the view reads it there."""
        self.fake.control("fault", {"draVersion": "v1beta1"})
        beta = {"apiVersion": "resource.k8s.io/v1beta1", "kind": "ResourceClaimTemplate",
                "metadata": {"name": "one-gpu", "namespace": "default"},
                "spec": {"spec": {"devices": {"requests": [{"name": "gpu", "deviceClassName": "gpu.nvidia.com"}]}}}}
        cls = dict(dra_class("gpu.nvidia.com"), apiVersion="resource.k8s.io/v1beta1")
        self.fake.apply("deviceclasses", cls)
        self.fake.apply("resourceclaimtemplates", beta)
        s = self.serve()
        eventually("ready", lambda: readyz(s) == 200)
        self.assertEqual(s.metrics()['gpuadmit_cluster_objects{kind="resourceclaimtemplates"}'], 1)
        self.assertEqual(dra_findings(validate(s, dra_pod("ok", template="one-gpu"))), [])
        self.assertEqual(dra_findings(validate(s, dra_pod("no-template", template="two-gpus"))), ["dra-unknown-claim"])
        self.assertEqual(dra_findings(validate(s, dra_claim("mine", "gpu.nvidia.co"))), ["dra-unknown-class"])

    def test_dra_forbidden_is_optional(self):
        """A ServiceAccount that may not list resource.k8s.io (403): the server is ready, its inventory current (not
        stale), infeasible still denies, and the DRA rules that need the cluster's objects stay silent."""
        self.fake.apply("nodes", node("a", 2))
        self.fake.control("fault", {"forbidDra": True})
        s = self.serve("--inventory-stale-after", "1s")
        eventually("ready without the DRA kinds", lambda: readyz(s) == 200)
        time.sleep(1.5)
        self.assertFalse(validate(s, vendor_pod("big", 4))["allowed"])
        self.assertEqual(s.metrics()["gpuadmit_cluster_stale"], 0)
        self.assertEqual(dra_findings(validate(s, dra_pod("no-template", template="two-gpus"))), [])
        # Granted later: the kinds are listed and known from then on.
        self.fake.control("fault", {"forbidDra": False})
        eventually("listed once allowed", lambda: dra_findings(validate(s, dra_pod("no-template", template="two-gpus")))
                   == ["dra-unknown-claim"], timeout=60)

    def test_templates_admit_autoscaled_pools(self):
        # A cluster whose GPU pool scales from zero: no GPU node at all, only a CPU node.
        self.fake.apply("nodes", {"metadata": {"name": "cpu-0", "labels": {"kubernetes.io/os": "linux"}},
                                  "status": {"allocatable": {"cpu": "8"}}})
        a100 = vendor_pod("train", 4)
        a100["spec"]["nodeSelector"] = {"karpenter.sh/nodepool": "a100"}
        # Without the template every Pod for the pool is denied: the autoscaler never sees it.
        s = self.serve()
        eventually("ready", lambda: readyz(s) == 200)
        denied = validate(s, a100)
        self.assertFalse(denied["allowed"], denied)
        self.assertIn("infeasible", denied["status"]["message"])
        s.stop()
        # With the pool's template beside the cluster: admitted, with a warning that names the template.
        self.server = Server("templates", self.certdir, "--cluster-inventory", "--kubeconfig", self.fake.kubeconfig,
                             "--inventory", TEMPLATES)
        s = self.server
        eventually("ready", lambda: readyz(s) == 200)
        answer = validate(s, a100)
        self.assertTrue(answer["allowed"], answer)
        self.assertTrue(any("fits a new node of template karpenter-a100" in w for w in answer.get("warnings", [])), answer)
        # Templates count for "ever" only: a Pod no template could hold is still denied.
        huge = vendor_pod("huge", 16)
        denied = validate(s, huge)
        self.assertFalse(denied["allowed"], denied)
        self.assertIn("template karpenter-a100: needs 16 distinct devices", denied["status"]["message"])
        # A GPU node joins: the Pod it takes has room now, no warning.
        self.fake.apply("nodes", {"metadata": {"name": "gpu-0", "labels": {"karpenter.sh/nodepool": "a100"}},
                                  "status": {"allocatable": {"nvidia.com/gpu": "8"}}})
        eventually("the new node counts", lambda: not validate(s, a100).get("warnings"))

    def test_templates_reload_when_their_file_changes(self):
        path = os.path.join(self.fake.dir, "templates.yaml")
        write = lambda text: (open(path + ".new", "w").write(text), os.replace(path + ".new", path))
        write("kind: GPUInventory\ntemplates:\n- {name: pool, gpus: {count: 8, memory: 80Gi}}\n")
        s = self.serve("--inventory", path)
        eventually("ready", lambda: readyz(s) == 200)
        self.assertFalse(validate(s, vendor_pod("sixteen", 16))["allowed"])
        write("kind: GPUInventory\ntemplates:\n- {name: pool, gpus: {count: 16, memory: 80Gi}}\n")
        eventually("the bigger template counts", lambda: validate(s, vendor_pod("sixteen", 16))["allowed"])
        s.wait_log(lambda l: l.get("msg") == "node templates reloaded", 5)
        # A bad change (a node beside the cluster) is logged and the templates in force stay.
        write("kind: GPUInventory\nnodes:\n- {name: gpu-0, gpus: {count: 1}}\n")
        line = s.wait_log(lambda l: l.get("msg") == "node templates not reloaded; keeping the previous ones", 10)
        self.assertIn("only node templates", json.dumps(line))
        self.assertTrue(validate(s, vendor_pod("sixteen", 16))["allowed"])

TEMPLATES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "inventory", "templates.yaml")


def run(*args, **kw):
    # A bound for hangs only: under Valgrind (tests/valgrind/memcheck.py) one audit takes 10-30 s.
    return subprocess.run([GPUADMIT, *args], capture_output=True, text=True, timeout=300, **kw)


@unittest.skipUnless(FAKEAPI and os.access(FAKEAPI, os.X_OK), "no fake API server (needs go)")
class Commands(unittest.TestCase):
    def setUp(self):
        os.makedirs(WORK, exist_ok=True)
        self.fake = Fake(self.id())
        self.fake.apply("nodes", node("a", 2), node("b", 8))
        self.fake.apply("pods", vendor_pod("holder", 8, node_name="b"))
        self.dir = tempfile.mkdtemp(dir=WORK)

    def tearDown(self):
        self.fake.stop()
        shutil.rmtree(self.fake.dir, ignore_errors=True)
        shutil.rmtree(self.dir, ignore_errors=True)

    def write(self, name, obj):
        path = os.path.join(self.dir, name)
        with open(path, "w") as f:
            json.dump(obj, f)
        return path

    def test_fit_cluster(self):
        k = ["--cluster", "--kubeconfig", self.fake.kubeconfig]
        r = run("fit", *k, self.write("p.json", vendor_pod("p", 4)))
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("b", r.stdout)
        r = run("fit", *k, "--now", "-o", "json", self.write("p.json", vendor_pod("p", 4)))
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)  # b is held whole
        self.assertFalse(json.loads(r.stdout)[0]["feasible"])
        r = run("fit", *k, self.write("p.json", vendor_pod("p", 16)))
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        r = run("fit", "--cluster", "--inventory", "x", self.write("p.json", vendor_pod("p", 1)))
        self.assertEqual(r.returncode, 2)

    def test_fit_cluster_templates(self):
        k = ["--cluster", "--kubeconfig", self.fake.kubeconfig]
        big = vendor_pod("p", 4)
        big["spec"]["nodeSelector"] = {"karpenter.sh/nodepool": "a100"}
        p = self.write("p.json", big)
        r = run("fit", *k, p)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        r = run("fit", *k, "--inventory", TEMPLATES, p)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("fits a new node of template karpenter-a100", r.stdout)
        r = run("fit", *k, "--inventory", TEMPLATES, "-o", "json", p)
        got = json.loads(r.stdout)[0]
        self.assertEqual((got["feasible"], got["node"], got["template"]), (True, None, "karpenter-a100"), got)
        r = run("fit", *k, "--inventory", TEMPLATES, "--now", p)  # room now: never on a template
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        # Nodes from a file beside the cluster would count twice: refused, naming the file and the node.
        nodes = self.write("nodes.json", {"kind": "List", "items": [dict(node("a", 2), kind="Node")]})
        r = run("fit", *k, "--inventory", nodes, p)
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn("node a: only node templates are read from inventory files beside a live cluster", r.stderr)
        self.assertIn("nodes.json", r.stderr)

    def test_serve_flags(self):
        for args in (["--cluster-inventory", "--inventory", "x"], ["--kubeconfig", self.fake.kubeconfig],
                     ["--cluster-inventory", "--inventory-stale-after", "soon"]):
            r = run("serve", "--cert", "c", "--key", "k", *args)
            self.assertEqual(r.returncode, 2, r.stderr)
        nodes = self.write("nodes.json", dict(node("a", 2), kind="Node"))
        r = run("serve", "--cert", "c", "--key", "k", "--cluster-inventory", "--kubeconfig", self.fake.kubeconfig,
                "--inventory", nodes)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("only node templates are read from inventory files beside a live cluster", r.stderr)
        r = run("serve", "--cert", "c", "--key", "k", "--cluster-inventory", "--kubeconfig", "/nonexistent")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("cannot watch the cluster", r.stderr)

    def test_audit(self):
        bad = json.loads(json.dumps(MIXED))
        bad["metadata"]["namespace"] = "ml"
        deploy = {"metadata": {"name": "trainer", "namespace": "ml"},
                  "spec": {"template": {"metadata": {}, "spec": json.loads(json.dumps(MIXED["spec"]))}}}
        self.fake.apply("pods", bad)
        self.fake.apply("deployments", deploy)
        k = ["--kubeconfig", self.fake.kubeconfig]
        r = run("audit", *k)  # the context's namespace: default, where all is well
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("Pod/default/holder: allowed", r.stdout)
        self.assertNotIn("ml", r.stdout)
        self.assertRegex(r.stderr, r"audit: note: not served by this cluster .*, skipped: .*RayCluster \(ray\.io/v1\)")
        r = run("audit", *k, "-n", "ml")
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertTrue(any(l.startswith("cluster Pod/ml/both ") and "memory-ratio-exclusive" in l for l in r.stdout.splitlines()),
                        r.stdout)
        self.assertIn("Deployment/ml/trainer", r.stdout)
        self.assertIn("2 objects: 0 allowed, 2 would be denied", r.stdout)
        r = run("audit", *k, "-A", "-o", "json")
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        names = sorted((e["kind"], e["name"]) for e in json.loads(r.stdout))
        self.assertEqual(names, [("Deployment", "trainer"), ("Pod", "both"), ("Pod", "holder")])
        self.assertEqual(run("audit", *k, "-A", "-n", "x").returncode, 2)
        self.fake.control("fault", {"token": "another"})  # a token the fake refuses: the lists fail
        r = run("audit", *k)
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)

    def test_audit_dra(self):
        """audit knows the cluster's DeviceClasses, templates and claims first, then judges claims, templates and
        classes beside the Pods (text, json, policyreport); a cluster that does not serve them: noted, nothing known."""
        self.fake.apply("deviceclasses", dra_class("gpu.nvidia.com"))
        self.fake.apply("resourceclaimtemplates", dra_template("one-gpu", "gpu.nvidia.com", ns="ml"))
        self.fake.apply("resourceclaims", dra_claim("shared", "gpu.nvidia.com", ns="ml"), dra_claim("lost", "gpu.nvidia.co", ns="ml"))
        pods = [dra_pod("fine", template="one-gpu"), dra_pod("waits", template="two-gpus"), dra_pod("uses", claim="shared")]
        for p in pods:
            p["metadata"]["namespace"] = "ml"
        self.fake.apply("pods", *pods)
        k = ["--kubeconfig", self.fake.kubeconfig]
        r = run("audit", *k, "-n", "ml", "-o", "json")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)  # the DRA rules that fire here warn
        found = {(e["kind"], e["name"]): sorted({f["rule"] for f in e["violations"]})
                 for e in json.loads(r.stdout)}
        self.assertEqual(found, {("Pod", "fine"): [], ("Pod", "waits"): ["dra-unknown-claim"], ("Pod", "uses"): [],
                                 ("ResourceClaimTemplate", "one-gpu"): [], ("ResourceClaim", "shared"): [],
                                 ("ResourceClaim", "lost"): ["dra-unknown-class"]})
        r = run("audit", *k, "-A")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("DeviceClass/gpu.nvidia.com: allowed", r.stdout)
        self.assertIn("ResourceClaim/ml/lost", r.stdout)
        r = run("audit", *k, "-n", "ml", "-o", "policyreport")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        reports = [d for d in yaml.safe_load_all(r.stdout) if d]
        results = [(d["scope"]["kind"], d["scope"]["name"], res["rule"], res["result"]) for d in reports for res in d.get("results", [])]
        self.assertIn(("ResourceClaim", "lost", "dra-unknown-class", "warn"), results)
        self.assertIn(("Pod", "waits", "dra-unknown-claim", "warn"), results)
        # Not served: noted, and a template the cluster may well hold is not called missing.
        self.fake.control("fault", {"noDra": True})
        r = run("audit", *k, "-n", "ml")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertRegex(r.stderr, r"not served by this cluster .*ResourceClaimTemplate \(resource\.k8s\.io/v1\)")
        self.assertNotIn("dra-unknown", r.stdout)

    def test_audit_dra_placement(self):
        """audit places DRA claims and templates on the cluster's ResourceSlices: a template for more GPUs than a node
        publishes is denied (infeasible), one whose GPUs an allocated claim holds has no room now (a warning), a
        template whose selector reads an attribute no GPU has is dra-cel's; a scheduled Pod's claims are not placed
        again (its own devices are taken), a pending Pod's are."""
        self.fake.apply("deviceclasses", dra_class("gpu.nvidia.com"))
        self.fake.apply("resourceslices", {
            "apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "node-1-gpus"},
            "spec": {"driver": "gpu.nvidia.com", "pool": {"name": "node-1", "generation": 1, "resourceSliceCount": 1},
                     "nodeName": "node-1", "devices": [{"name": "gpu-%d" % i, "attributes": {"type": {"string": "gpu"}}}
                                                      for i in range(2)]}})

        def template(name, count, selector=None):
            t = dra_template(name, "gpu.nvidia.com", ns="gpus")
            exact = t["spec"]["spec"]["devices"]["requests"][0]["exactly"]
            exact["count"] = count
            if selector:
                exact["selectors"] = [{"cel": {"expression": selector}}]
            return t
        self.fake.apply("resourceclaimtemplates", template("two", 2), template("three", 3),
                        template("index", 1, "device.attributes['gpu.nvidia.com'].index == 0"))
        held = dra_claim("running-gpu", "gpu.nvidia.com", ns="gpus")
        held["status"] = {"allocation": {"devices": {"results": [
            {"request": "gpu", "driver": "gpu.nvidia.com", "pool": "node-1", "device": "gpu-0"}]}}}
        self.fake.apply("resourceclaims", held)
        running, waiting = dra_pod("running", template="two"), dra_pod("waiting", template="two")
        for p in (running, waiting):
            p["metadata"]["namespace"] = "gpus"
        running["spec"]["nodeName"] = "node-1"
        self.fake.apply("pods", running, waiting)
        r = run("audit", "--kubeconfig", self.fake.kubeconfig, "-n", "gpus", "-o", "json")
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        got = {(e["kind"], e["name"]): e for e in json.loads(r.stdout)}
        rules = {k: sorted({f["rule"] for f in e["violations"]}) for k, e in got.items()}
        self.assertEqual(rules, {("ResourceClaimTemplate", "two"): ["infeasible"], ("ResourceClaimTemplate", "three"): ["infeasible"],
                                 ("ResourceClaimTemplate", "index"): ["dra-cel"], ("ResourceClaim", "running-gpu"): [],
                                 ("Pod", "running"): [], ("Pod", "waiting"): ["infeasible"]}, r.stdout)
        self.assertFalse(got[("ResourceClaimTemplate", "three")]["allowed"])
        self.assertIn("3 devices on one node asked, at most 2 on any node", json.dumps(got[("ResourceClaimTemplate", "three")]))
        self.assertTrue(got[("ResourceClaimTemplate", "two")]["allowed"])  # no room now: a warning
        self.assertIn("no node has room for this ResourceClaimTemplate now", json.dumps(got[("ResourceClaimTemplate", "two")]))
        self.assertIn("no node has room now for a claim of ResourceClaimTemplate two", json.dumps(got[("Pod", "waiting")]))
        self.assertFalse(got[("ResourceClaimTemplate", "index")]["allowed"])

    def test_audit_judges_as_created_now(self):
        # Koordinator's standard form, as every Pod that predates gpuadmit holds it: no gpu.shared. Created now, the
        # mutating webhook would add it, so it would be admitted; as stored, shared-required finds it missing.
        std = pod("koord-std", [("main", {"limits": {"koordinator.sh/gpu-core": "50",
                                                      "koordinator.sh/gpu-memory-ratio": "50"}})])
        std["metadata"]["namespace"] = "legacy"
        self.fake.apply("pods", std)
        k = ["--kubeconfig", self.fake.kubeconfig, "-n", "legacy"]
        r = run("audit", *k)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("cluster Pod/legacy/koord-std: allowed (mutated: inject-gpu-shared)\n", r.stdout)
        self.assertIn("1 object: 1 allowed, 0 would be denied", r.stdout)
        r = run("audit", *k, "-o", "json")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        [el] = json.loads(r.stdout)
        self.assertEqual((el["allowed"], el["mutations"]), (True, ["inject-gpu-shared"]))
        r = run("audit", *k, "--no-mutate")
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn('cluster Pod/legacy/koord-std container "main": shared-required: ', r.stdout)
        self.assertIn("cluster Pod/legacy/koord-std: denied\n", r.stdout)
        self.assertIn("1 object: 0 allowed, 1 would be denied", r.stdout)
        r = run("audit", "--help")
        self.assertEqual(r.returncode, 0)
        self.assertIn("--no-mutate", r.stdout)

    def test_audit_escapes_names(self):
        # A tenant's names reach the admin's terminal in audit -A: a newline must not forge a line, an escape sequence
        # must not reach the terminal (stdout, and stderr for an object that cannot be decoded).
        forged = pod("forged\ncluster Pod/t/forged: allowed", [("main\ncluster Pod/t/forged: allowed",
                                                               {"limits": {"koordinator.sh/gpu-core": "50"}})])
        clear = pod("clear\x1b[2J", [("main\x1b[2J\x1b]0;owned\x07\u009b31m", {"limits": {"nvidia.com/gpu": "1"}})])
        broken = pod("broken\x1b[2J", [])
        broken["spec"]["containers"] = "\x1b[2J"
        for p in (forged, clear, broken):
            p["metadata"]["namespace"] = "t"
        self.fake.apply("pods", forged, clear, broken)
        r = subprocess.run([GPUADMIT, "audit", "--kubeconfig", self.fake.kubeconfig, "-A"], capture_output=True, timeout=300)
        self.assertEqual(r.returncode, 2, r)  # the undecodable Pod
        out, err = r.stdout.decode(), r.stderr.decode()
        for text in (out, err):
            self.assertNotRegex(text, "[\x00-\x09\x0b-\x1f\x7f-\x9f]")
        self.assertEqual([l for l in out.splitlines() if not l.startswith("cluster ") and not l[:1].isdigit()], [], out)
        self.assertIn("cluster Pod/t/forged\\ncluster Pod/t/forged: allowed: denied\n", out)
        self.assertIn('cluster Pod/t/clear\\x1b[2J: allowed\n', out)
        self.assertIn("cluster Pod/broken\\x1b[2J: ", err)


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], *sys.argv[1:]], verbosity=2)
