#!/usr/bin/env python3
"""The heaviest reviews a tenant can build for the allocator (docs/allocator.md#bounds), generated, never committed.

- `volcano_job()`: a Volcano Job of many tasks whose templates hold mGPU containers asking for shares of distinct
  sizes (no two alike, so the search cannot merge them), more than fit together on a node: each template's search
  has to rule out every packing. About 71 KB as an AdmissionReview.
- `notin_pod()`: a never-placeable Pod whose required node affinity is `kubernetes.io/hostname NotIn` 100k names.
- `noop_affinity_pod()`: a never-placeable Pod with a required node affinity on `kubernetes.io/hostname` that every
  node passes (Exists): every node is a candidate, yet all of them share one shape.
- `inventory()`: a compact GPUInventory of 5,000 mGPU nodes, 8 cards each, each with its own hostname label.

Usage (writes the files into DIR): heavy.py DIR
"""
import json
import os
import sys

CARDS, CARD_MIB = 8, 32768


def inventory(nodes=5000):
    """5,000 mGPU nodes of one shape, told apart only by their kubernetes.io/hostname label."""
    return {"kind": "GPUInventory",
            "nodes": [{"name": "gpu-%05d" % i, "labels": {"kubernetes.io/hostname": "gpu-%05d" % i, "pool": "a"},
                       "dialects": ["mgpu"], "gpus": {"count": CARDS, "memory": "%dMi" % CARD_MIB}}
                      for i in range(nodes)]}


def heavy_containers(n=17, seed=0):
    """n mGPU containers of one card each, compute 34..50 percent (distinct): at most two share a card, so 17 need
    9 cards and a node has 8; the compute sums (714 of 800) and memory sums fit. One more container of 1 percent
    defeats the count bound (a card could hold 100 of the smallest), so only a search can tell."""
    tiny = {"vke.volcengine.com/mgpu-core": "1", "vke.volcengine.com/mgpu-memory": "256"}
    out = [{"name": "tiny", "image": "busybox", "resources": {"requests": tiny, "limits": tiny}}]
    for i in range(n):
        core = 34 + (i * 7 + seed) % n  # a permutation of 34..50
        mem = 1024 + 37 * i + seed  # distinct, small
        r = {"vke.volcengine.com/mgpu-core": str(core), "vke.volcengine.com/mgpu-memory": str(mem)}
        out.append({"name": "c%d" % i, "image": "busybox", "resources": {"requests": r, "limits": r}})
    return out


def volcano_job(tasks=20, containers=17):
    return {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
            "metadata": {"name": "heavy", "namespace": "default"},
            "spec": {"minAvailable": 1, "schedulerName": "volcano",
                     "tasks": [{"name": "t%d" % t, "replicas": 1,
                                "template": {"spec": {"containers": heavy_containers(containers, t)}}}
                               for t in range(tasks)]}}


def pod_with_affinity(name, expressions, containers):
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
            "spec": {"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchExpressions": expressions}]}}},
                "containers": containers}}


def one_card(core=50, mem=4096):
    r = {"vke.volcengine.com/mgpu-core": str(core), "vke.volcengine.com/mgpu-memory": str(mem)}
    return [{"name": "main", "image": "busybox", "resources": {"requests": r, "limits": r}}]


def notin_pod(names=100000):
    """NotIn 100k hostnames (none of the inventory's), asking for more memory than a card has: every node passes
    the list and has to be ruled out (denied, never placeable)."""
    values = ["host-%06d" % i for i in range(names)]
    return pod_with_affinity("notin", [{"key": "kubernetes.io/hostname", "operator": "NotIn", "values": values}],
                             one_card(50, CARD_MIB + 1024))


def noop_affinity_pod():
    """Never placeable (17 distinct shares on 8 cards), with an affinity every node passes."""
    return pod_with_affinity("noop", [{"key": "kubernetes.io/hostname", "operator": "Exists"}], heavy_containers())


def trivial_pod():
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "trivial", "namespace": "default"},
            "spec": {"containers": one_card(20, 1024)}}


def review(obj, uid="00000000-0000-0000-0000-000000000000"):
    group, _, version = obj["apiVersion"].rpartition("/")
    return {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
            "request": {"uid": uid, "kind": {"group": group, "version": version, "kind": obj["kind"]},
                        "resource": {"group": group, "version": version, "resource": obj["kind"].lower() + "s"},
                        "namespace": "default", "name": obj["metadata"]["name"], "operation": "CREATE",
                        "userInfo": {"username": "tenant"}, "object": obj, "dryRun": False}}


def write(directory):
    """Writes inventory.json and one review per attack; returns {name: path}."""
    os.makedirs(directory, exist_ok=True)
    files = {"inventory": inventory(), "volcano": review(volcano_job()), "notin": review(notin_pod()),
             "noop": review(noop_affinity_pod()), "trivial": review(trivial_pod())}
    paths = {}
    for name, doc in files.items():
        paths[name] = os.path.join(directory, name + ".json")
        with open(paths[name], "w") as f:
            json.dump(doc, f, separators=(",", ":"))
    return paths


if __name__ == "__main__":
    for k, v in write(sys.argv[1]).items():
        print("%s %s %d bytes" % (k, v, os.path.getsize(v)))
