#!/usr/bin/env python3
"""`gpuadmit audit -o policyreport` (docs/cluster.md#policy-reports) against the fake API server (tests/fakeapi): every
report checked against the CRDs' own OpenAPI schemas (tests/data/policyreport/, their sources named there) with a small
structural-schema checker (what the API server's strict field validation would refuse), and against the convention
Kyverno follows (named after the object's UID, in its namespace, owned by it, the summary counted).

Environment: GPUADMIT (the binary), GPA_FAKEAPI (the fake's binary), E2E_WORK (a scratch directory).
Usage: run_policyreport.py [unittest names, e.g. PolicyReport.test_wgpolicyk8s]
"""
import copy
import json
import os
import shutil
import sys
import tempfile
import unittest

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run_cluster import FAKEAPI, MIXED, WORK, Fake, run  # noqa: E402

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "policyreport")


def load_schema(name):
    with open(os.path.join(DATA, name)) as f:
        s = yaml.safe_load(f)
    if "base" in s:
        base = load_schema(s["base"])
        base["kinds"] = s["kinds"]
        base["openAPIV3Schema"]["properties"].update(s["addProperties"])
        return base
    return s


def check(value, schema, defs, path="$"):
    """The faults of value against an OpenAPI v3 structural schema: types, enums, required and unknown fields."""
    if "$ref" in schema:
        return check(value, defs[schema["$ref"]], defs, path)
    t = schema.get("type")
    types = {"object": dict, "array": list, "string": str, "boolean": bool}
    if t == "integer":
        if not isinstance(value, int) or isinstance(value, bool):
            return ["%s: must be an integer, not %r" % (path, value)]
        if schema.get("format") == "int32" and not -2**31 <= value < 2**31:
            return ["%s: out of int32 range" % path]
    elif t in types and not isinstance(value, types[t]):
        return ["%s: must be %s, not %r" % (path, t, value)]
    faults = []
    if "enum" in schema and value not in schema["enum"]:
        faults.append("%s: %r not one of %s" % (path, value, schema["enum"]))
    if t == "object":
        props = schema.get("properties")
        for k in schema.get("required", []):
            if k not in value:
                faults.append("%s: %s is required" % (path, k))
        for k, v in value.items():
            if props is not None and k in props:
                faults += check(v, props[k], defs, "%s.%s" % (path, k))
            elif "additionalProperties" in schema:
                faults += check(v, schema["additionalProperties"], defs, "%s.%s" % (path, k))
            elif props is not None:
                faults.append("%s: unknown field %s" % (path, k))
    if t == "array":
        for i, v in enumerate(value):
            faults += check(v, schema["items"], defs, "%s[%d]" % (path, i))
    return faults


def conforms(test, doc, schema):
    test.assertIn(doc["kind"], schema["kinds"])
    test.assertEqual(check(doc, schema["openAPIV3Schema"], schema["definitions"]), [], doc)


@unittest.skipUnless(FAKEAPI and os.access(FAKEAPI, os.X_OK), "no fake API server (needs go)")
class PolicyReport(unittest.TestCase):
    def setUp(self):
        os.makedirs(WORK, exist_ok=True)
        self.fake = Fake(self.id())
        self.dir = tempfile.mkdtemp(dir=WORK)
        bad = copy.deepcopy(MIXED)
        bad["metadata"].update({"namespace": "ml", "uid": "3c1e9d2a-7b44-4f0e-9a61-5d2f8e0b7c13"})
        good = {"metadata": {"name": "fine", "namespace": "ml", "uid": "uid-fine"},
                "spec": {"containers": [{"name": "main", "image": "x", "resources": {"limits": {"nvidia.com/gpu": "1"}}}]}}
        deploy = {"metadata": {"name": "trainer", "namespace": "ml", "uid": "0b8f7a6e-1111-4c2d-9e3f-aabbccddeeff"},
                  "spec": {"template": {"metadata": {}, "spec": copy.deepcopy(MIXED["spec"])}}}
        self.fake.apply("pods", bad, good)
        self.fake.apply("deployments", deploy)
        self.k = ["--kubeconfig", self.fake.kubeconfig, "-n", "ml"]

    def tearDown(self):
        self.fake.stop()
        shutil.rmtree(self.fake.dir, ignore_errors=True)
        shutil.rmtree(self.dir, ignore_errors=True)

    def reports(self, *args):
        r = run("audit", *self.k, "-o", "policyreport", *args)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)  # findings that deny: audit's exit code stands
        self.assertTrue(r.stdout.startswith("---\n"), r.stdout)
        return {d["scope"]["name"]: d for d in yaml.safe_load_all(r.stdout) if d is not None}

    def test_wgpolicyk8s(self):
        schema = load_schema("wgpolicyk8s.io_v1alpha2.schema.yaml")
        got = self.reports()
        self.assertEqual(sorted(got), ["both", "trainer"])  # the clean Pod has no report
        for d in got.values():
            conforms(self, d, schema)
            self.assertEqual((d["apiVersion"], d["kind"]), ("wgpolicyk8s.io/v1alpha2", "PolicyReport"))
            self.assertNotIn("source", d)  # report-level source is openreports' only
        pod = got["both"]
        uid = "3c1e9d2a-7b44-4f0e-9a61-5d2f8e0b7c13"
        self.assertEqual(pod["metadata"]["name"], uid)
        self.assertEqual(pod["metadata"]["namespace"], "ml")
        self.assertEqual(pod["metadata"]["ownerReferences"], [{"apiVersion": "v1", "kind": "Pod", "name": "both", "uid": uid}])
        self.assertEqual(pod["scope"], {"apiVersion": "v1", "kind": "Pod", "namespace": "ml", "name": "both", "uid": uid})
        self.assertEqual(got["trainer"]["scope"]["apiVersion"], "apps/v1")
        self.assertEqual(got["trainer"]["scope"]["kind"], "Deployment")
        res = pod["results"]
        self.assertEqual(pod["summary"], {"pass": 0, "fail": len(res), "warn": 0, "error": 0, "skip": 0})
        rules = {x["rule"]: x for x in res}
        x = rules["memory-ratio-exclusive"]
        self.assertEqual((x["policy"], x["source"], x["result"], x["scored"]), ("gpuadmit", "gpuadmit", "fail", True))
        self.assertEqual(x["properties"]["container"], "main")
        self.assertTrue(x["properties"]["path"].startswith("spec.containers[0].resources"), x)
        self.assertIn("koordinator.sh/gpu-memory,koordinator.sh/gpu-memory-ratio", x["properties"]["resources"])
        self.assertEqual(sorted(x["timestamp"]), ["nanos", "seconds"])

    def test_openreports_and_warn(self):
        schema = load_schema("openreports.io_v1alpha1.schema.yaml")
        config = os.path.join(self.dir, "config.yaml")
        with open(config, "w") as f:
            f.write("rules:\n  memory-ratio-exclusive: warn\n")
        r = run("audit", *self.k, "--config", config, "-o", "policyreport", "--report-api", "openreports")
        docs = {d["scope"]["name"]: d for d in yaml.safe_load_all(r.stdout) if d is not None}
        self.assertIn("both", docs, r.stdout + r.stderr)
        for d in docs.values():
            conforms(self, d, schema)
            self.assertEqual((d["apiVersion"], d["kind"], d["source"]), ("openreports.io/v1alpha1", "Report", "gpuadmit"))
        x = {x["rule"]: x for x in docs["both"]["results"]}["memory-ratio-exclusive"]
        self.assertEqual(x["result"], "warn")
        self.assertNotIn("scored", x)  # warn: not met, not scored
        s = docs["both"]["summary"]
        self.assertEqual(s["warn"] + s["fail"], len(docs["both"]["results"]))
        self.assertGreaterEqual(s["warn"], 1)

    def test_checker_refuses_what_the_crd_refuses(self):
        schema = load_schema("wgpolicyk8s.io_v1alpha2.schema.yaml")
        d = next(iter(self.reports().values()))
        for bad in ({"timestamp": "2026-11-26T12:00:00Z"}, {"result": "deny"}, {"properties": {"resources": ["a", "b"]}},
                    {"description": "x"}):
            broken = copy.deepcopy(d)
            broken["results"][0].update(bad)
            self.assertNotEqual(check(broken, schema["openAPIV3Schema"], schema["definitions"]), [], bad)

    def test_flags(self):
        for args in (["--report-api", "openreports"], ["-o", "policyreport", "--report-api", "v2"], ["-o", "yaml"]):
            r = run("audit", *self.k, *args)
            self.assertEqual(r.returncode, 2, r.stdout + r.stderr)


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], *sys.argv[1:]], verbosity=2)
