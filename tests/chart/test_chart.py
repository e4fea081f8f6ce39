#!/usr/bin/env python3
"""The Helm chart (charts/gpuadmit), rendered and checked with the real Helm (v4) and kubectl (v1.34).

tests/chart.cmake runs it with HELM, KUBECTL, NODE, CEL_JS (the CEL interpreter's directory), CHART and, when
built, GPUADMIT_BIN in the environment. Every test renders the chart with `helm template` (or expects Helm to
refuse the values) and checks the objects as kube-apiserver would read them. Exit 77 (ctest: skipped) when
the tools are not installed (scripts/deps.sh installs them).
"""
import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import yaml

HELM = os.environ.get("HELM", "")
KUBECTL = os.environ.get("KUBECTL", "")
NODE = os.environ.get("NODE", "")
CEL_JS = os.environ.get("CEL_JS", "")
CHART = os.environ.get("CHART", os.path.join(os.path.dirname(__file__), "..", "..", "charts", "gpuadmit"))
GPUADMIT = os.environ.get("GPUADMIT_BIN", "")
HERE = os.path.dirname(os.path.abspath(__file__))

NS = "gpu-system"
WEBHOOK_KINDS = ("ValidatingWebhookConfiguration", "MutatingWebhookConfiguration")
CA_BUNDLE = base64.b64encode(b"-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n").decode()
# Kinds kubectl has no Go type for: checked here instead (apiVersion, and the fields the chart relies on).
CRD_KINDS = {"Issuer": "cert-manager.io/v1", "Certificate": "cert-manager.io/v1", "ServiceMonitor": "monitoring.coreos.com/v1"}


def helm(*args, check=True):
    r = subprocess.run([HELM, *args], capture_output=True, text=True)
    if check and r.returncode != 0:
        raise AssertionError(f"helm {' '.join(args)}: exit {r.returncode}\n{r.stderr}")
    return r


def set_args(values):
    """Values as --set-json flags: exact types, no string guessing."""
    out = []
    for key, val in (values or {}).items():
        out += ["--set-json", f"{key}={json.dumps(val)}"]
    return out


def render(values=None, release="gpuadmit", ns=NS, extra=()):
    r = helm("template", release, CHART, "-n", ns, *set_args(values), *extra)
    docs = [d for d in yaml.safe_load_all(r.stdout) if d]
    for d in docs:
        assert d.get("apiVersion") and d.get("kind") and d.get("metadata", {}).get("name"), d
    return docs


def refused(values):
    """Helm's error when it refuses the values (None when it renders)."""
    r = helm("template", "gpuadmit", CHART, "-n", NS, *set_args(values), check=False)
    return None if r.returncode == 0 else r.stderr


def find(docs, kind, name=None):
    found = [d for d in docs if d["kind"] == kind and (name is None or d["metadata"]["name"] == name)]
    assert len(found) == 1, f"{len(found)} {kind} objects rendered"
    return found[0]


def count(docs, kind):
    return sum(1 for d in docs if d["kind"] == kind)


def container(docs):
    return find(docs, "Deployment")["spec"]["template"]["spec"]["containers"][0]


def pod_spec(docs):
    return find(docs, "Deployment")["spec"]["template"]["spec"]


def webhook(docs, kind):
    hooks = find(docs, kind)["webhooks"]
    assert len(hooks) == 1, hooks
    return hooks[0]


def kubectl_kind(doc):
    """Decodes one document with kubectl's own Go types, offline (`set env --local` decodes it into the typed
    object of its apiVersion and kind, then refuses any object without a Pod template, naming the type).
    Returns the Go type kubectl decoded it into, or raises with kubectl's error."""
    r = subprocess.run([KUBECTL, "set", "env", "--local", "-f", "-", "-o", "name", "GPA_CHECK=1"],
                       input=yaml.safe_dump(doc), capture_output=True, text=True, env={**os.environ, "KUBECONFIG": os.devnull})
    text = r.stdout + r.stderr
    if "unable to decode" in text or "no kind" in text.lower() or "error: error" in text:
        raise AssertionError(f"kubectl cannot decode {doc['kind']} {doc['metadata']['name']}: {text}")
    if "does not have a pod template: *" in text:
        return text.split("does not have a pod template: *")[1].split()[0].split(".")[-1]
    return doc["kind"] if r.returncode == 0 and text.strip() else text


def eval_cel(expression, cases):
    r = subprocess.run([NODE, os.path.join(HERE, "cel_eval.mjs"), CEL_JS], input=json.dumps(
        {"expression": expression, "cases": cases}), capture_output=True, text=True)
    if r.returncode != 0:
        raise AssertionError(f"CEL: {r.stderr}")
    return json.loads(r.stdout)


class Defaults(unittest.TestCase):
    """`helm install gpuadmit charts/gpuadmit -n gpu-system` with no values."""

    @classmethod
    def setUpClass(cls):
        cls.docs = render()

    def test_lint(self):
        for values in [{}, {"certs.mode": "certManager"}, {"certs.mode": "secret", "certs.secret.caBundle": CA_BUNDLE},
                       {"webhook.matchConditions": False, "inventory.cluster": True, "serviceMonitor.enabled": True}]:
            r = helm("lint", "--strict", CHART, "-n", NS, *set_args(values), check=False)
            self.assertEqual(r.returncode, 0, f"helm lint {values}:\n{r.stdout}{r.stderr}")

    def test_every_object(self):
        kinds = sorted(d["kind"] for d in self.docs)
        self.assertEqual(kinds, sorted([
            "ClusterRole", "ClusterRoleBinding", "ConfigMap", "Deployment", "MutatingWebhookConfiguration",
            "PodDisruptionBudget", "Role", "RoleBinding", "Service", "ServiceAccount", "ValidatingWebhookConfiguration"]))
        for d in self.docs:
            cluster_scoped = d["kind"] in WEBHOOK_KINDS + ("ClusterRole", "ClusterRoleBinding")
            self.assertEqual(d["metadata"].get("namespace"), None if cluster_scoped else NS, d["kind"])

    def test_every_document_parses_as_its_kind(self):
        for values in [{}, {"certs.mode": "certManager", "serviceMonitor.enabled": True},
                       {"certs.mode": "secret", "certs.secret.caBundle": CA_BUNDLE, "certs.secret.create": True,
                        "certs.secret.cert": "C", "certs.secret.key": "K", "inventory.enabled": True, "inventory.content": "x: 1"}]:
            for doc in render(values):
                if doc["kind"] in CRD_KINDS:
                    self.assertEqual(doc["apiVersion"], CRD_KINDS[doc["kind"]])
                    self.assertIsInstance(doc["spec"], dict)
                    continue
                self.assertEqual(kubectl_kind(doc), doc["kind"], f"{doc['kind']} {doc['metadata']['name']}")

    def test_deployment_round_trips_through_kubectl(self):
        """No misspelt field: kubectl re-encodes the Deployment from its Go type, dropping unknown fields."""
        dep = find(self.docs, "Deployment")
        r = subprocess.run([KUBECTL, "set", "env", "--local", "-f", "-", "-o", "json", "GPA_CHECK=1"], input=yaml.safe_dump(dep),
                           capture_output=True, text=True, env={**os.environ, "KUBECONFIG": os.devnull})
        self.assertEqual(r.returncode, 0, r.stderr)
        back = json.loads(r.stdout)
        back.pop("status", None)
        back["spec"]["template"]["spec"]["containers"][0]["env"].pop()  # the variable set to make kubectl print
        self.assertEqual(back, dep)

    def test_client_configs_point_at_the_service(self):
        svc = find(self.docs, "Service")
        https = [p for p in svc["spec"]["ports"] if p["name"] == "https"][0]
        c = container(self.docs)
        ports = {p["name"]: p["containerPort"] for p in c["ports"]}
        self.assertEqual(https["targetPort"], "webhook")
        self.assertEqual(ports["webhook"], 9443)
        self.assertEqual(svc["spec"]["selector"], find(self.docs, "Deployment")["spec"]["selector"]["matchLabels"])
        for kind, path in (("ValidatingWebhookConfiguration", "/validate"), ("MutatingWebhookConfiguration", "/mutate")):
            wh = webhook(self.docs, kind)
            self.assertEqual(wh["clientConfig"]["service"], {"name": svc["metadata"]["name"], "namespace": NS, "path": path,
                                                             "port": https["port"]})
            self.assertEqual(wh["admissionReviewVersions"], ["v1", "v1beta1"])
            self.assertEqual((wh["sideEffects"], wh["failurePolicy"], wh["timeoutSeconds"], wh["matchPolicy"]),
                             ("None", "Fail", 10, "Equivalent"))

    def test_operations(self):
        """Mutation on CREATE only; validation on CREATE and UPDATE."""
        for kind, ops in (("ValidatingWebhookConfiguration", ["CREATE", "UPDATE"]), ("MutatingWebhookConfiguration", ["CREATE"])):
            for rule in webhook(self.docs, kind)["rules"]:
                self.assertEqual(rule["operations"], ops, kind)
        self.assertEqual(webhook(self.docs, "MutatingWebhookConfiguration")["reinvocationPolicy"], "IfNeeded")

    def test_rules_cover_every_kind(self):
        got = {}
        for rule in webhook(self.docs, "ValidatingWebhookConfiguration")["rules"]:
            got[rule["apiGroups"][0]] = sorted(rule["resources"])
        self.assertEqual(got, {
            "": ["pods", "podtemplates"],
            "apps": ["daemonsets", "deployments", "replicasets", "statefulsets"],
            "batch": ["cronjobs", "jobs"],
            "batch.volcano.sh": ["cronjobs", "jobs"],
            "ray.io": ["rayclusters", "rayjobs", "rayservices"],
            "leaderworkerset.x-k8s.io": ["leaderworkersets"],
            "jobset.x-k8s.io": ["jobsets"],
            "kubeflow.org": ["mpijobs", "paddlejobs", "pytorchjobs", "tfjobs", "xgboostjobs"],
            "trainer.kubeflow.org": ["clustertrainingruntimes", "trainingruntimes", "trainjobs"],
        })
        # The mutating webhook sees the same kinds on CREATE: KubeRay groups get ray-num-gpus there.
        mutating = {r["apiGroups"][0]: (sorted(r["resources"]), r["operations"])
                    for r in webhook(self.docs, "MutatingWebhookConfiguration")["rules"]}
        self.assertEqual({g: res for g, (res, _) in mutating.items()}, got)
        self.assertEqual(mutating["ray.io"][1], ["CREATE"])

    def test_both_webhooks_share_selectors_and_conditions(self):
        v = webhook(self.docs, "ValidatingWebhookConfiguration")
        m = webhook(self.docs, "MutatingWebhookConfiguration")
        for key in ("namespaceSelector", "objectSelector", "matchConditions"):
            self.assertEqual(v.get(key), m.get(key), key)
        expr = v["namespaceSelector"]["matchExpressions"][0]
        self.assertEqual((expr["key"], expr["operator"], expr["values"]), ("kubernetes.io/metadata.name", "NotIn", ["kube-system", NS]))
        self.assertEqual([c["name"] for c in v["matchConditions"]], ["declares-gpu-resource"])
        # CEL's parser refuses expressions over 100,000 code points (cel-go's default): keep a wide margin.
        self.assertLess(len(v["matchConditions"][0]["expression"]), 50000)

    def test_self_managed_certificates(self):
        args = container(self.docs)["args"]
        for want in ("--cert-secret=gpuadmit-tls", f"--cert-namespace={NS}", "--cert-service=gpuadmit",
                     "--webhook-config-name=gpuadmit", "--cert-dir=/run/gpuadmit/tls"):
            self.assertIn(want, args)
        self.assertFalse([a for a in args if a.startswith(("--cert=", "--key="))])
        for kind in WEBHOOK_KINDS:
            self.assertNotIn("caBundle", webhook(self.docs, kind)["clientConfig"])
            self.assertNotIn("annotations", find(self.docs, kind)["metadata"])
        spec = pod_spec(self.docs)
        self.assertTrue(spec["automountServiceAccountToken"])
        self.assertEqual(spec["volumes"][0], {"name": "runtime", "emptyDir": {"medium": "Memory", "sizeLimit": "1Mi"}})

    def test_rbac_is_exactly_what_the_server_does(self):
        role = find(self.docs, "Role")
        self.assertEqual(role["rules"], [
            {"apiGroups": [""], "resources": ["secrets"], "verbs": ["create"]},
            {"apiGroups": [""], "resources": ["secrets"], "resourceNames": ["gpuadmit-tls"], "verbs": ["get", "update"]}])
        cr = find(self.docs, "ClusterRole")
        self.assertEqual(cr["rules"], [
            {"apiGroups": ["admissionregistration.k8s.io"], "resources": ["validatingwebhookconfigurations", "mutatingwebhookconfigurations"],
             "resourceNames": ["gpuadmit"], "verbs": ["get", "update"]}])
        sa = find(self.docs, "ServiceAccount")["metadata"]["name"]
        self.assertEqual(pod_spec(self.docs)["serviceAccountName"], sa)
        for kind, role_kind in (("RoleBinding", "Role"), ("ClusterRoleBinding", "ClusterRole")):
            b = find(self.docs, kind)
            self.assertEqual(b["roleRef"], {"apiGroup": "rbac.authorization.k8s.io", "kind": role_kind, "name": "gpuadmit"})
            self.assertEqual(b["subjects"], [{"kind": "ServiceAccount", "name": sa, "namespace": NS}])

    def test_locked_down_pod(self):
        spec = pod_spec(self.docs)
        psc = spec["securityContext"]
        self.assertEqual((psc["runAsNonRoot"], psc["runAsUser"], psc["seccompProfile"]), (True, 65532, {"type": "RuntimeDefault"}))
        sc = container(self.docs)["securityContext"]
        self.assertEqual((sc["allowPrivilegeEscalation"], sc["readOnlyRootFilesystem"], sc["capabilities"]),
                         (False, True, {"drop": ["ALL"]}))
        dep = find(self.docs, "Deployment")
        self.assertEqual(dep["spec"]["replicas"], 2)
        self.assertEqual(dep["spec"]["strategy"]["rollingUpdate"]["maxUnavailable"], 0)
        spread = spec["topologySpreadConstraints"][0]
        self.assertEqual((spread["topologyKey"], spread["maxSkew"]), ("kubernetes.io/hostname", 1))
        self.assertEqual(spread["labelSelector"]["matchLabels"], dep["spec"]["selector"]["matchLabels"])
        self.assertEqual(spec["affinity"]["podAntiAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"][0]
                         ["podAffinityTerm"]["topologyKey"], "kubernetes.io/hostname")
        pdb = find(self.docs, "PodDisruptionBudget")
        self.assertEqual((pdb["spec"]["minAvailable"], pdb["spec"]["selector"]["matchLabels"]), (1, dep["spec"]["selector"]["matchLabels"]))
        self.assertNotIn("priorityClassName", spec)

    def test_probes_resources_and_metrics_on_the_pod_ip(self):
        c = container(self.docs)
        for probe, path in (("readinessProbe", "/readyz"), ("livenessProbe", "/healthz")):
            self.assertEqual(c[probe]["httpGet"], {"path": path, "port": "metrics"})
        self.assertEqual(c["resources"]["requests"], {"cpu": "100m", "memory": "32Mi"})
        self.assertIn("--metrics-listen=[$(POD_IP)]:8080", c["args"])
        self.assertEqual(c["env"], [{"name": "POD_IP", "valueFrom": {"fieldRef": {"fieldPath": "status.podIP"}}}])
        self.assertEqual(c["args"][0], "serve")
        self.assertIn("--config=/etc/gpuadmit/config/config.yaml", c["args"])
        self.assertNotIn("--cluster-inventory", c["args"])
        mounts = {m["name"]: m for m in c["volumeMounts"]}
        self.assertFalse([m for m in mounts.values() if "subPath" in m])
        self.assertEqual(mounts["config"]["mountPath"], "/etc/gpuadmit/config")

    def test_notes(self):
        r = helm("install", "gpuadmit", CHART, "-n", NS, "--dry-run=client")
        notes = r.stdout.split("NOTES:", 1)[1]
        for want in ("rollout status deployment/gpuadmit", "selfManaged", "kube-system, gpu-system", "/proxy/readyz",
                     "only objects that declare a GPU resource"):
            self.assertIn(want, notes)


class Switches(unittest.TestCase):
    def test_cert_manager(self):
        docs = render({"certs.mode": "certManager"})
        cert = find(docs, "Certificate")
        issuer = find(docs, "Issuer")
        self.assertEqual(issuer["spec"], {"selfSigned": {}})
        self.assertEqual(cert["spec"]["issuerRef"]["name"], issuer["metadata"]["name"])
        self.assertIn(f"gpuadmit.{NS}.svc", cert["spec"]["dnsNames"])
        for kind in WEBHOOK_KINDS:
            self.assertEqual(find(docs, kind)["metadata"]["annotations"], {"cert-manager.io/inject-ca-from": f"{NS}/{cert['metadata']['name']}"})
            self.assertNotIn("caBundle", webhook(docs, kind)["clientConfig"])
        vols = {v["name"]: v for v in pod_spec(docs)["volumes"]}
        self.assertEqual(vols["tls"]["secret"]["secretName"], cert["spec"]["secretName"])
        args = container(docs)["args"]
        self.assertIn("--cert=/etc/gpuadmit/tls/tls.crt", args)
        self.assertFalse([a for a in args if a.startswith("--cert-secret")])
        self.assertEqual(count(docs, "Role") + count(docs, "ClusterRole"), 0)
        self.assertFalse(pod_spec(docs)["automountServiceAccountToken"])
        docs = render({"certs.mode": "certManager", "certs.certManager.issuerRef": {"name": "corp-ca", "kind": "ClusterIssuer"}})
        self.assertEqual(count(docs, "Issuer"), 0)
        self.assertEqual(find(docs, "Certificate")["spec"]["issuerRef"], {"name": "corp-ca", "kind": "ClusterIssuer", "group": "cert-manager.io"})

    def test_bring_your_own_secret(self):
        docs = render({"certs.mode": "secret", "certs.secret.caBundle": CA_BUNDLE, "certs.secretName": "mine"})
        for kind in WEBHOOK_KINDS:
            self.assertEqual(webhook(docs, kind)["clientConfig"]["caBundle"], CA_BUNDLE)
        self.assertEqual(count(docs, "Secret"), 0)
        self.assertEqual({v["name"]: v for v in pod_spec(docs)["volumes"]}["tls"]["secret"]["secretName"], "mine")
        docs = render({"certs.mode": "secret", "certs.secret.caBundle": CA_BUNDLE, "certs.secret.create": True,
                       "certs.secret.cert": "CERT PEM", "certs.secret.key": "KEY PEM"})
        s = find(docs, "Secret")
        self.assertEqual((s["type"], s["data"]["tls.crt"]), ("kubernetes.io/tls", base64.b64encode(b"CERT PEM").decode()))
        self.assertIn("certs.secret.caBundle is required", refused({"certs.mode": "secret"}))
        self.assertIn("certs.secret.cert is required",
                      refused({"certs.mode": "secret", "certs.secret.caBundle": CA_BUNDLE, "certs.secret.create": True}))

    def test_failure_policy_and_timeout(self):
        docs = render({"webhook.failurePolicy": "Ignore", "webhook.timeoutSeconds": 5})
        for kind in WEBHOOK_KINDS:
            wh = webhook(docs, kind)
            self.assertEqual((wh["failurePolicy"], wh["timeoutSeconds"]), ("Ignore", 5))

    def test_without_match_conditions(self):
        sel = {"matchExpressions": [{"key": "gpuadmit.io/skip", "operator": "DoesNotExist"}]}
        docs = render({"webhook.matchConditions": False, "webhook.objectSelector": sel,
                       "webhook.namespaceSelectorExpressions": [{"key": "gpu", "operator": "In", "values": ["true"]}]})
        for kind in WEBHOOK_KINDS:
            wh = webhook(docs, kind)
            self.assertNotIn("matchConditions", wh)
            self.assertEqual(wh["objectSelector"], sel)
            self.assertEqual([e["key"] for e in wh["namespaceSelector"]["matchExpressions"]], ["kubernetes.io/metadata.name", "gpu"])

    def test_crd_kinds_switch_off(self):
        docs = render({"webhook.kinds": {"volcano": False, "ray": False, "leaderWorkerSet": False, "jobSet": False,
                                         "kubeflow": False, "trainer": False}})
        for kind in WEBHOOK_KINDS:
            wh = webhook(docs, kind)
            self.assertEqual([r["apiGroups"][0] for r in wh["rules"]], ["", "apps", "batch"])
            expr = wh["matchConditions"][0]["expression"]
            self.assertNotIn("ray.io", expr)
            self.assertNotIn("kubeflow.org", expr)
        docs = render({"webhook.kinds.ray": False})
        self.assertNotIn("ray.io", [r["apiGroups"][0] for r in webhook(docs, "ValidatingWebhookConfiguration")["rules"]])
        self.assertIn("kubeflow.org", [r["apiGroups"][0] for r in webhook(docs, "ValidatingWebhookConfiguration")["rules"]])

    def test_one_webhook_disabled(self):
        docs = render({"webhook.mutating.enabled": False})
        self.assertEqual((count(docs, "MutatingWebhookConfiguration"), count(docs, "ValidatingWebhookConfiguration")), (0, 1))
        docs = render({"webhook.validating.enabled": False})
        self.assertEqual((count(docs, "MutatingWebhookConfiguration"), count(docs, "ValidatingWebhookConfiguration")), (1, 0))
        self.assertIn("nothing would be checked", refused({"webhook.validating.enabled": False, "webhook.mutating.enabled": False}))

    def test_cluster_inventory(self):
        docs = render({"inventory.cluster": True})
        self.assertIn("--cluster-inventory", container(docs)["args"])
        rules = find(docs, "ClusterRole")["rules"]
        self.assertIn({"apiGroups": [""], "resources": ["nodes", "pods"], "verbs": ["get", "list", "watch"]}, rules)
        self.assertIn({"apiGroups": ["scheduling.koordinator.sh"], "resources": ["devices"], "verbs": ["get", "list", "watch"]}, rules)
        docs = render({"inventory.cluster": True, "certs.mode": "certManager"})
        self.assertEqual(len(find(docs, "ClusterRole")["rules"]), 2)
        self.assertEqual(count(docs, "Role"), 0)
        self.assertTrue(pod_spec(docs)["automountServiceAccountToken"])
        self.assertEqual(count(render({"rbac.create": False}), "ClusterRole"), 0)
        self.assertIn("exclude each other", refused({"inventory.cluster": True, "inventory.enabled": True, "inventory.content": "x: 1"}))

    def test_file_inventory(self):
        docs = render({"inventory.enabled": True, "inventory.content": "nodes: []\n"})
        self.assertEqual(count(docs, "ConfigMap"), 2)
        self.assertIn("--inventory=/etc/gpuadmit/inventory/inventory.yaml", container(docs)["args"])
        self.assertIn("inventory.content", refused({"inventory.enabled": True}))

    def test_service_monitor_priority_and_replicas(self):
        docs = render({"serviceMonitor.enabled": True, "serviceMonitor.labels": {"release": "prom"},
                       "priorityClassName": "system-cluster-critical", "replicaCount": 1})
        sm = find(docs, "ServiceMonitor")
        self.assertEqual((sm["spec"]["endpoints"][0]["port"], sm["metadata"]["labels"]["release"]), ("metrics", "prom"))
        self.assertEqual(sm["spec"]["selector"]["matchLabels"], find(docs, "Service")["spec"]["selector"])
        self.assertEqual(pod_spec(docs)["priorityClassName"], "system-cluster-critical")
        self.assertEqual(count(docs, "PodDisruptionBudget"), 0)

    def test_security_context_from_values(self):
        docs = render({"securityContext": {"readOnlyRootFilesystem": True, "capabilities": {"drop": ["ALL"], "add": ["NET_BIND_SERVICE"]}}})
        self.assertEqual(container(docs)["securityContext"]["capabilities"]["add"], ["NET_BIND_SERVICE"])

    def test_names_follow_the_release(self):
        docs = render(release="prod", ns="admission")
        self.assertEqual(find(docs, "Service")["metadata"]["name"], "prod-gpuadmit")
        wh = webhook(docs, "ValidatingWebhookConfiguration")
        self.assertEqual(wh["clientConfig"]["service"]["namespace"], "admission")
        self.assertIn("admission", wh["namespaceSelector"]["matchExpressions"][0]["values"])
        self.assertIn("--webhook-config-name=prod-gpuadmit", container(docs)["args"])
        self.assertEqual(find(docs, "ClusterRole")["rules"][0]["resourceNames"], ["prod-gpuadmit"])


class Schema(unittest.TestCase):
    def test_mistyped_values_are_refused(self):
        cases = [
            ({"replicaCount": "two"}, "/replicaCount"),
            ({"webhook.failurePolicy": "Sometimes"}, "/webhook/failurePolicy"),
            ({"webhook.timeoutSeconds": 31}, "/webhook/timeoutSeconds"),
            ({"webhook.timeoutSeconds": 0}, "/webhook/timeoutSeconds"),
            ({"webhook.failurPolicy": "Fail"}, "failurPolicy"),
            ({"certs.mode": "certmanager"}, "/certs/mode"),
            ({"serve.port": 70000}, "/serve/port"),
            ({"serve.logLevel": "verbose"}, "/serve/logLevel"),
            ({"config.rules": {"min-memory": "block"}}, "/config/rules/min-memory"),
            ({"config.dialects": ["nvidia"]}, "/config/dialects/0"),
            ({"webhook.kinds.slurm": True}, "slurm"),
            ({"webhook.matchConditions": "yes"}, "/webhook/matchConditions"),
        ]
        for values, where in cases:
            err = refused(values)
            self.assertIsNotNone(err, f"{values} rendered")
            self.assertIn("schema", err, values)
            self.assertIn(where, err, values)


# Objects of each kind, with a GPU resource where "gpu" says; what the matchCondition must say of each.
def gpu_resources(on):
    return {"limits": {"koordinator.sh/gpu-core": "50", "koordinator.sh/gpu-memory-ratio": "50"}} if on else {"limits": {"cpu": "1"}}


def tmpl(gpu, init=False):
    c = {"name": "c", "image": "x", "resources": gpu_resources(gpu)}
    spec = {"containers": [{"name": "main", "image": "x"}]}
    spec.setdefault("initContainers" if init else "containers", []).append(c)
    return {"metadata": {"labels": {"a": "b"}}, "spec": spec}


def kind_objects(gpu):
    t = lambda: tmpl(gpu)
    ray = {"headGroupSpec": {"template": tmpl(False)}, "workerGroupSpecs": [{"template": tmpl(False)}, {"template": t()}]}
    return [
        ("", "pods", dict(t(), kind="Pod")),
        ("", "pods", dict(tmpl(gpu, init=True), kind="Pod")),
        ("", "podtemplates", {"template": t()}),
        ("apps", "deployments", {"spec": {"template": t()}}),
        ("apps", "daemonsets", {"spec": {"template": t()}}),
        ("batch", "jobs", {"spec": {"template": t()}}),
        ("batch", "cronjobs", {"spec": {"jobTemplate": {"spec": {"template": t()}}}}),
        ("batch.volcano.sh", "jobs", {"spec": {"tasks": [{"name": "a", "template": tmpl(False)}, {"name": "b", "template": t()}]}}),
        ("batch.volcano.sh", "cronjobs", {"spec": {"jobTemplate": {"spec": {"tasks": [{"template": t()}]}}}}),
        ("ray.io", "rayclusters", {"spec": ray}),
        ("ray.io", "rayjobs", {"spec": {"rayClusterSpec": ray}}),
        ("ray.io", "rayservices", {"spec": {"rayClusterConfig": {"headGroupSpec": {"template": t()}}}}),
        ("leaderworkerset.x-k8s.io", "leaderworkersets", {"spec": {"leaderWorkerTemplate": {"workerTemplate": t()}}}),
        ("jobset.x-k8s.io", "jobsets", {"spec": {"replicatedJobs": [{"template": {"spec": {"template": t()}}}]}}),
        ("kubeflow.org", "pytorchjobs", {"spec": {"pytorchReplicaSpecs": {"Master": {"template": tmpl(False)}, "Worker": {"template": t()}}}}),
        ("kubeflow.org", "tfjobs", {"spec": {"tfReplicaSpecs": {"Worker": {"template": t()}}}}),
        ("kubeflow.org", "xgboostjobs", {"spec": {"xgbReplicaSpecs": {"Worker": {"template": t()}}}}),
        ("kubeflow.org", "paddlejobs", {"spec": {"paddleReplicaSpecs": {"Worker": {"template": t()}}}}),
        ("kubeflow.org", "mpijobs", {"spec": {"mpiReplicaSpecs": {"Worker": {"template": t()}}}}),
        ("trainer.kubeflow.org", "trainingruntimes",
         {"spec": {"template": {"spec": {"replicatedJobs": [{"template": {"spec": {"template": t()}}}]}}}}),
        ("trainer.kubeflow.org", "clustertrainingruntimes",
         {"spec": {"template": {"spec": {"replicatedJobs": [{"template": {"spec": {"template": t()}}}]}}}}),
        ("trainer.kubeflow.org", "trainjobs", {"spec": {"trainer": {"resourcesPerNode": gpu_resources(gpu)}}}),
    ]


def request(group, resource, op="CREATE"):
    return {"resource": {"group": group, "version": "v1", "resource": resource}, "operation": op}


def cel_ready():
    return bool(NODE and shutil.which(NODE) and CEL_JS and os.path.isfile(os.path.join(CEL_JS, "lib", "index.js")))


@unittest.skipUnless(cel_ready(), "node or the CEL interpreter (scripts/deps.sh) not installed")
class MatchConditions(unittest.TestCase):
    """The CEL expression, evaluated on objects of every kind: only GPU objects of an enabled dialect reach gpuadmit."""

    def expression(self, values=None):
        return webhook(render(values), "ValidatingWebhookConfiguration")["matchConditions"][0]["expression"]

    def check(self, expr, cases, want):
        got = eval_cel(expr, [{"request": request(g, r), "object": o} for g, r, o in cases])
        for (g, r, _), result in zip(cases, got):
            self.assertEqual(result, want, f"{g}/{r}")

    def test_gpu_objects_of_every_kind_match(self):
        self.check(self.expression(), kind_objects(True), True)

    def test_objects_without_gpu_do_not_match(self):
        self.check(self.expression(), kind_objects(False), False)

    def test_empty_and_partial_objects_do_not_match_nor_fail(self):
        cases = [(g, r, {}) for g, r, _ in kind_objects(True)]
        cases += [("apps", "deployments", {"spec": {}}), ("ray.io", "rayclusters", {"spec": {"workerGroupSpecs": [{}]}}),
                  ("kubeflow.org", "tfjobs", {"spec": {"tfReplicaSpecs": {"Worker": {}}}}),
                  ("", "pods", {"spec": {"containers": [{"name": "c", "resources": {}}]}})]
        self.check(self.expression(), cases, False)

    def test_other_kinds_and_a_kind_in_another_group_do_not_match(self):
        gpu_pod = dict(tmpl(True))
        self.check(self.expression(), [("", "configmaps", {"data": {}}), ("example.com", "deployments", {"spec": {"template": gpu_pod}}),
                                       ("", "services", gpu_pod)], False)

    def test_every_dialect_and_near_misses(self):
        expr = self.expression()
        for name in ("nvidia.com/gpu", "amd.com/gpu", "dcu.com/gpu", "koordinator.sh/gpu", "vke.volcengine.com/mgpu-core",
                     "koordinator.sh/gpu-mem", "koordinator.sh/gpu-shared"):
            pod = {"spec": {"containers": [{"name": "c", "resources": {"requests": {name: "1"}}}]}}
            self.check(expr, [("", "pods", pod)], True)
        pod = {"metadata": {"annotations": {"vke.volcengine.com/container-multiple-gpu": "2"}}, "spec": {"containers": [{"name": "c"}]}}
        self.check(expr, [("", "pods", pod)], True)
        self.check(expr, [("", "pods", {"spec": {"containers": [{"name": "c", "resources": {"limits": {"example.com/gpu": "1"}}}]}})], False)

    def test_dialects_follow_the_config(self):
        expr = self.expression({"config.dialects": ["vendor"]})
        koord = {"spec": {"containers": [{"name": "c", "resources": {"limits": {"koordinator.sh/gpu-core": "50"}}}]}}
        vendor = {"spec": {"containers": [{"name": "c", "resources": {"limits": {"nvidia.com/gpu": "1"}}}]}}
        mgpu = {"metadata": {"annotations": {"vke.volcengine.com/container-multiple-gpu": "1"}}, "spec": {"containers": []}}
        self.check(expr, [("", "pods", koord), ("", "pods", mgpu)], False)
        self.check(expr, [("", "pods", vendor)], True)

    def test_update_sees_the_new_object(self):
        expr = self.expression()
        got = eval_cel(expr, [{"request": request("", "pods", "UPDATE"), "object": tmpl(True), "oldObject": tmpl(False)}])
        self.assertEqual(got, [True])


@unittest.skipUnless(GPUADMIT and os.path.exists(GPUADMIT), "gpuadmit not built")
class WithGpuadmit(unittest.TestCase):
    def test_ca_bundle_from_gpuadmit_certs(self):
        """The documented flow of certs.mode secret: `gpuadmit certs` makes what the chart is installed with."""
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "certs")
            r = subprocess.run([GPUADMIT, "certs", "--service", "gpuadmit", "--namespace", NS, "--out", out], capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stderr)
            bundle = r.stdout.strip()
            self.assertTrue(base64.b64decode(bundle).startswith(b"-----BEGIN CERTIFICATE-----"))
            v = subprocess.run(["openssl", "verify", "-CAfile", os.path.join(out, "ca.crt"), "-verify_hostname", f"gpuadmit.{NS}.svc",
                                "-purpose", "sslserver", os.path.join(out, "tls.crt")], capture_output=True, text=True)
            self.assertEqual(v.returncode, 0, v.stdout + v.stderr)
            crt = open(os.path.join(out, "tls.crt")).read()
            docs = render({"certs.mode": "secret", "certs.secret.caBundle": bundle, "certs.secret.create": True},
                          extra=["--set-file", f"certs.secret.cert={os.path.join(out, 'tls.crt')}",
                                 "--set-file", f"certs.secret.key={os.path.join(out, 'tls.key')}"])
            self.assertEqual(webhook(docs, "MutatingWebhookConfiguration")["clientConfig"]["caBundle"], bundle)
            self.assertEqual(base64.b64decode(find(docs, "Secret")["data"]["tls.crt"]).decode(), crt)

    def test_serve_knows_every_flag_the_chart_passes(self):
        help_text = subprocess.run([GPUADMIT, "serve", "--help"], capture_output=True, text=True).stdout
        for values in [{}, {"certs.mode": "certManager", "serve.clientCASecret": "ca", "serve.http2": True,
                            "inventory.enabled": True, "inventory.content": "x: 1"}]:
            for arg in container(render(values))["args"][1:]:
                flag = arg.split("=", 1)[0]
                self.assertIn(flag + " ", help_text.replace(",", " "), f"{flag} (values {values})")

    def test_rendered_config_loads_in_gpuadmit(self):
        with tempfile.TemporaryDirectory() as d:
            pod = os.path.join(d, "pod.yaml")
            with open(pod, "w") as f:
                f.write("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: c, image: x}]\n")
            for i, values in enumerate([{}, {"config.rules": {"min-memory": "warn", "infeasible": "off"}, "config.minDeviceMemory": "1Gi"}]):
                cfg = os.path.join(d, f"config{i}.yaml")
                with open(cfg, "w") as f:
                    f.write(find(render(values), "ConfigMap")["data"]["config.yaml"])
                r = subprocess.run([GPUADMIT, "validate", "--config", cfg, pod], capture_output=True, text=True)
                self.assertEqual(r.returncode, 0, r.stdout + r.stderr)


def tools_missing():
    return [name for name, path in (("helm", HELM), ("kubectl", KUBECTL)) if not path or not shutil.which(path)]


if __name__ == "__main__":
    missing = tools_missing()
    if missing:
        print(f"chart: skipped: {', '.join(missing)} not installed (scripts/deps.sh installs them)")
        sys.exit(77)
    unittest.main(verbosity=2)
