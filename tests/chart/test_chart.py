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
import re
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
SOURCE = os.path.join(HERE, "..", "..")

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


def registered(docs):
    """The webhook configurations the server registers (webhook.registration=server: the ConfigMap <fullname>-webhooks),
    or the ones Helm creates (webhook.registration=chart)."""
    out = [d for d in docs if d["kind"] in WEBHOOK_KINDS]
    for d in docs:
        if d["kind"] == "ConfigMap" and d["metadata"]["name"].endswith("-webhooks"):
            # a webhook turned off is registered with no webhooks (an upgrade takes it out of force): not counted
            out += [c for c in (json.loads(text) for _, text in sorted(d["data"].items())) if c["webhooks"]]
    return out


def find(docs, kind, name=None):
    found = [d for d in (registered(docs) if kind in WEBHOOK_KINDS else docs)
             if d["kind"] == kind and (name is None or d["metadata"]["name"] == name)]
    assert len(found) == 1, f"{len(found)} {kind} objects rendered"
    return found[0]


def count(docs, kind):
    return sum(1 for d in (registered(docs) if kind in WEBHOOK_KINDS else docs) if d["kind"] == kind)


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
        # No webhook configuration: the server registers them once it is ready (the second ConfigMap holds them).
        self.assertEqual(kinds, sorted([
            "ClusterRole", "ClusterRoleBinding", "ConfigMap", "ConfigMap", "Deployment",
            "PodDisruptionBudget", "Role", "RoleBinding", "Service", "ServiceAccount"]))
        for d in self.docs:
            cluster_scoped = d["kind"] in WEBHOOK_KINDS + ("ClusterRole", "ClusterRoleBinding")
            self.assertEqual(d["metadata"].get("namespace"), None if cluster_scoped else NS, d["kind"])

    def test_every_document_parses_as_its_kind(self):
        for values in [{}, {"certs.mode": "certManager", "serviceMonitor.enabled": True, "webhook.registration": "chart"},
                       {"certs.mode": "secret", "certs.secret.caBundle": CA_BUNDLE, "certs.secret.create": True,
                        "certs.secret.cert": "C", "certs.secret.key": "K", "inventory.enabled": True, "inventory.content": "x: 1"}]:
            docs = render(values)
            for doc in docs + [d for d in registered(docs) if d not in docs]:
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
        """Mutation on CREATE only; validation on CREATE and UPDATE, except DRA claims and templates (CREATE: their
        spec is immutable)."""
        for kind, ops in (("ValidatingWebhookConfiguration", ["CREATE", "UPDATE"]), ("MutatingWebhookConfiguration", ["CREATE"])):
            for rule in webhook(self.docs, kind)["rules"]:
                if rule["apiGroups"] == ["resource.k8s.io"] and "deviceclasses" not in rule["resources"]:
                    self.assertEqual(rule["operations"], ["CREATE"], kind)
                else:
                    self.assertEqual(rule["operations"], ops, kind)
        self.assertEqual(webhook(self.docs, "MutatingWebhookConfiguration")["reinvocationPolicy"], "IfNeeded")

    def test_rules_cover_every_kind(self):
        got = {}
        for rule in webhook(self.docs, "ValidatingWebhookConfiguration")["rules"]:
            got[rule["apiGroups"][0]] = sorted(got.get(rule["apiGroups"][0], []) + rule["resources"])
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
            "resource.k8s.io": ["deviceclasses", "resourceclaims", "resourceclaimtemplates"],
        })
        # The mutating webhook sees the same kinds on CREATE: KubeRay groups get ray-num-gpus there.
        mutating = {}
        for r in webhook(self.docs, "MutatingWebhookConfiguration")["rules"]:
            res, _ = mutating.get(r["apiGroups"][0], ([], None))
            mutating[r["apiGroups"][0]] = (sorted(res + r["resources"]), r["operations"])
        self.assertEqual({g: res for g, (res, _) in mutating.items()}, got)
        self.assertEqual(mutating["ray.io"][1], ["CREATE"])

    def test_dra_kinds(self):
        """resource.k8s.io in the versions a cluster may serve: claims and templates on CREATE, DeviceClasses on CREATE
        and UPDATE (validating); one rule per set of operations; none with the dra dialect off."""
        rules = [r for r in webhook(self.docs, "ValidatingWebhookConfiguration")["rules"] if r["apiGroups"] == ["resource.k8s.io"]]
        self.assertEqual([(r["operations"], r["resources"], r["apiVersions"], r["scope"]) for r in rules], [
            (["CREATE"], ["resourceclaims", "resourceclaimtemplates"], ["v1", "v1beta2", "v1beta1"], "*"),
            (["CREATE", "UPDATE"], ["deviceclasses"], ["v1", "v1beta2", "v1beta1"], "*")])
        mutating = [r for r in webhook(self.docs, "MutatingWebhookConfiguration")["rules"] if r["apiGroups"] == ["resource.k8s.io"]]
        self.assertEqual([(r["operations"], r["resources"]) for r in mutating],
                         [(["CREATE"], ["resourceclaims", "resourceclaimtemplates", "deviceclasses"])])
        off = render({"config.dialects": ["vendor", "hami"]})
        for kind in WEBHOOK_KINDS:
            self.assertFalse([r for r in webhook(off, kind)["rules"] if r["apiGroups"] == ["resource.k8s.io"]], kind)
        self.assertNotIn("resource.k8s.io", webhook(off, "ValidatingWebhookConfiguration")["matchConditions"][0]["expression"])

    def test_dra_configuration(self):
        """dra.kubernetesVersion (else the version Helm installs on) and dra.nvidia.featureGates fill the rendered
        configuration's dra block; config.dra's other keys are kept; nothing of DRA with the dialect off."""
        cfg = lambda values, *extra: yaml.safe_load(find(render(values, extra=extra), "ConfigMap", "gpuadmit-config")["data"]["config.yaml"])
        self.assertEqual(cfg({}, "--kube-version", "1.34.2")["dra"], {"kubernetesVersion": "1.34"})
        self.assertEqual(cfg({"dra.kubernetesVersion": "1.36", "dra.nvidia.featureGates": {"TimeSlicingSettings": True}},
                             "--kube-version", "1.34.2")["dra"],
                         {"kubernetesVersion": "1.36", "nvidia": {"featureGates": {"TimeSlicingSettings": True}}})
        got = cfg({"config.dra": {"kubernetesVersion": "1.33", "roundingWarnPercent": 5, "nvidia": {"featureGates": {"MPSSupport": True}}},
                   "dra.nvidia.featureGates": {"MPSSupport": False, "DynamicMIG": True}})["dra"]
        self.assertEqual(got, {"kubernetesVersion": "1.33", "roundingWarnPercent": 5,
                               "nvidia": {"featureGates": {"MPSSupport": False, "DynamicMIG": True}}})
        self.assertNotIn("dra", cfg({"config.dialects": ["vendor"]}))
        self.assertIsNotNone(refused({"dra.kubernetesVersion": "136"}))
        self.assertIsNotNone(refused({"dra.nvidia.featureGates": {"MPSSupport": "yes"}}))
        self.assertIsNotNone(refused({"config.dra": {"kubernetesVersion": "1.36", "typo": 1}}))

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
            {"apiGroups": [""], "resources": ["secrets"], "resourceNames": ["gpuadmit-tls"], "verbs": ["get", "update"]},
            {"apiGroups": ["discovery.k8s.io"], "resources": ["endpointslices"], "verbs": ["list"]}])
        cr = find(self.docs, "ClusterRole")
        configs = ["validatingwebhookconfigurations", "mutatingwebhookconfigurations"]
        self.assertEqual(cr["rules"], [
            {"apiGroups": ["admissionregistration.k8s.io"], "resources": configs, "verbs": ["create"]},
            {"apiGroups": ["admissionregistration.k8s.io"], "resources": configs, "resourceNames": ["gpuadmit"], "verbs": ["get", "update", "delete"]},
            {"apiGroups": ["rbac.authorization.k8s.io"], "resources": ["clusterroles"], "resourceNames": ["gpuadmit"], "verbs": ["get"]}])
        # Helm creating the configurations: the server only keeps their caBundle.
        cr = find(render({"webhook.registration": "chart"}), "ClusterRole")
        self.assertEqual(cr["rules"], [
            {"apiGroups": ["admissionregistration.k8s.io"], "resources": configs, "resourceNames": ["gpuadmit"], "verbs": ["get", "update"]}])
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

    def test_kube_version(self):
        """matchConditions need Kubernetes 1.28: the chart says so, and Helm refuses an older cluster."""
        self.assertIn("1.28", helm("show", "chart", CHART).stdout.split("kubeVersion:")[1].splitlines()[0])
        r = helm("template", "gpuadmit", CHART, "--kube-version", "1.27.9", check=False)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("kubeVersion", r.stderr)
        helm("template", "gpuadmit", CHART, "--kube-version", "1.28.0")

    def test_no_webhook_configuration_before_a_ready_server(self):
        """Whatever the certificate mode, Helm creates no webhook configuration: the server registers them once ready,
        owned by the release's ClusterRole (docs/deploy.md#registration)."""
        for values in [{}, {"certs.mode": "certManager"}, {"certs.mode": "secret", "certs.secret.caBundle": CA_BUNDLE},
                       {"inventory.cluster": True}]:
            docs = render(values)
            self.assertEqual([d["kind"] for d in docs if d["kind"] in WEBHOOK_KINDS], [], values)
            self.assertEqual(len(registered(docs)), 2, values)
            args = container(docs)["args"]
            cm = [d for d in docs if d["kind"] == "ConfigMap" and d["metadata"]["name"] == "gpuadmit-webhooks"][0]
            mount = [m for m in container(docs)["volumeMounts"] if m["name"] == "webhooks"][0]
            self.assertIn(f"--register-webhooks={mount['mountPath']}", args)
            self.assertEqual([v for v in pod_spec(docs)["volumes"] if v["name"] == "webhooks"][0]["configMap"]["name"], cm["metadata"]["name"])
            self.assertIn("--register-owner=" + find(docs, "ClusterRole")["metadata"]["name"], args)
            self.assertIn(f"--register-service={NS}/" + find(docs, "Service")["metadata"]["name"], args)
            self.assertTrue(pod_spec(docs)["automountServiceAccountToken"])
        # The opt-out: Helm creates them, as before.
        self.assertEqual(sorted(d["kind"] for d in render({"webhook.registration": "chart"}) if d["kind"] in WEBHOOK_KINDS),
                         sorted(WEBHOOK_KINDS))

    def test_notes(self):
        r = helm("install", "gpuadmit", CHART, "-n", NS, "--dry-run=client")
        notes = r.stdout.split("NOTES:", 1)[1]
        for want in ("rollout status deployment/gpuadmit", "selfManaged", "kube-system, gpu-system", "/proxy/readyz",
                     "only objects that declare a GPU resource"):
            self.assertIn(want, notes)

    def test_notes_smoke_test_can_be_pasted(self):
        """The smoke test pastes into a shell: its here-document ends (terminator alone on its line, unindented), and
        what it feeds kubectl is a Pod."""
        notes = helm("install", "gpuadmit", CHART, "-n", NS, "--dry-run=client").stdout.split("NOTES:", 1)[1]
        start = notes.index("kubectl apply --dry-run=server")
        block = notes[start:notes.index("\nPOD\n", start) + 5]
        with tempfile.TemporaryDirectory() as d:
            fake = os.path.join(d, "kubectl")
            with open(fake, "w") as f:
                f.write("#!/bin/sh\ncat\n")
            os.chmod(fake, 0o755)
            r = subprocess.run(["bash", "-c", block], capture_output=True, text=True, timeout=10,
                               env={**os.environ, "PATH": d + os.pathsep + os.environ["PATH"]})
        self.assertEqual((r.returncode, r.stderr), (0, ""))
        pod = yaml.safe_load(r.stdout)
        self.assertEqual((pod["kind"], pod["spec"]["containers"][0]["resources"]["limits"]["koordinator.sh/gpu-core"]), ("Pod", "150"))
        self.assertEqual(kubectl_kind(pod), "Pod")


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
        self.assertIn("--register-ca-file=/etc/gpuadmit/tls/ca.crt", args)  # cert-manager's Secret holds its CA
        self.assertTrue(pod_spec(docs)["automountServiceAccountToken"])  # to register the webhooks
        docs = render({"certs.mode": "certManager", "webhook.registration": "chart"})
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
            # resource.k8s.io is Kubernetes' own (the dra dialect turns it off, test_dra_kinds)
            self.assertEqual(sorted({r["apiGroups"][0] for r in wh["rules"]}), ["", "apps", "batch", "resource.k8s.io"])
            expr = wh["matchConditions"][0]["expression"]
            self.assertNotIn("ray.io", expr)
            self.assertNotIn("kubeflow.org", expr)
        docs = render({"webhook.kinds.ray": False})
        self.assertNotIn("ray.io", [r["apiGroups"][0] for r in webhook(docs, "ValidatingWebhookConfiguration")["rules"]])
        self.assertIn("kubeflow.org", [r["apiGroups"][0] for r in webhook(docs, "ValidatingWebhookConfiguration")["rules"]])

    def test_one_webhook_disabled(self):
        docs = render({"webhook.mutating.enabled": False})
        self.assertEqual((count(docs, "MutatingWebhookConfiguration"), count(docs, "ValidatingWebhookConfiguration")), (0, 1))
        off = json.loads(find(docs, "ConfigMap", "gpuadmit-webhooks")["data"]["mutating.json"])
        self.assertEqual((off["kind"], off["metadata"]["name"], off["webhooks"]), ("MutatingWebhookConfiguration", "gpuadmit", []))
        self.assertEqual(kubectl_kind(off), "MutatingWebhookConfiguration")
        docs = render({"webhook.mutating.enabled": False, "webhook.registration": "chart"})
        self.assertEqual([d["kind"] for d in docs if d["kind"] in WEBHOOK_KINDS], ["ValidatingWebhookConfiguration"])
        docs = render({"webhook.validating.enabled": False})
        self.assertEqual((count(docs, "MutatingWebhookConfiguration"), count(docs, "ValidatingWebhookConfiguration")), (1, 0))
        self.assertIn("nothing would be checked", refused({"webhook.validating.enabled": False, "webhook.mutating.enabled": False}))

    def test_cluster_inventory(self):
        docs = render({"inventory.cluster": True})
        self.assertIn("--cluster-inventory", container(docs)["args"])
        rules = find(docs, "ClusterRole")["rules"]
        self.assertIn({"apiGroups": [""], "resources": ["nodes", "pods"], "verbs": ["get", "list", "watch"]}, rules)
        self.assertIn({"apiGroups": ["scheduling.koordinator.sh"], "resources": ["devices"], "verbs": ["get", "list", "watch"]}, rules)
        dra = {"apiGroups": ["resource.k8s.io"], "resources": ["deviceclasses", "resourceclaimtemplates", "resourceclaims", "resourceslices"],
               "verbs": ["list", "watch"]}
        self.assertIn(dra, rules)
        self.assertNotIn(dra, find(render({"inventory.cluster": True, "config.dialects": ["vendor"]}), "ClusterRole")["rules"])
        self.assertNotIn(dra, find(render(), "ClusterRole")["rules"])
        docs = render({"inventory.cluster": True, "certs.mode": "certManager", "webhook.registration": "chart"})
        self.assertEqual(len(find(docs, "ClusterRole")["rules"]), 3)
        self.assertEqual(count(docs, "Role"), 0)
        self.assertTrue(pod_spec(docs)["automountServiceAccountToken"])
        self.assertEqual(count(render({"rbac.create": False, "webhook.registration": "chart"}), "ClusterRole"), 0)
        self.assertIn("needs rbac.create=true", refused({"rbac.create": False}))
        self.assertIn("exclude each other", refused({"inventory.cluster": True, "inventory.enabled": True, "inventory.content": "x: 1"}))

    def test_file_inventory(self):
        docs = render({"inventory.enabled": True, "inventory.content": "nodes: []\n"})
        self.assertEqual(count(docs, "ConfigMap"), 3)  # the configuration, the inventory, the webhook configurations
        self.assertIn("--inventory=/etc/gpuadmit/inventory/inventory.yaml", container(docs)["args"])
        self.assertIn("inventory.content", refused({"inventory.enabled": True}))

    def test_node_templates(self):
        templates = [{"name": "karpenter-a100", "labels": {"karpenter.sh/nodepool": "a100"},
                      "gpus": {"count": 8, "memory": "80Gi", "model": "NVIDIA-A100-SXM4-80GB"}}]
        self.assertNotIn("--inventory=/etc/gpuadmit/templates/templates.yaml", container(render())["args"])
        docs = render({"inventory.cluster": True, "inventory.templates": templates})
        args = container(docs)["args"]
        self.assertIn("--cluster-inventory", args)
        self.assertIn("--inventory=/etc/gpuadmit/templates/templates.yaml", args)
        cm = find(docs, "ConfigMap", "gpuadmit-templates")
        mounts = {m["name"]: m["mountPath"] for m in container(docs)["volumeMounts"]}
        self.assertEqual(mounts["templates"], "/etc/gpuadmit/templates")
        volumes = {v["name"]: v for v in pod_spec(docs)["volumes"]}
        self.assertEqual(volumes["templates"]["configMap"]["name"], "gpuadmit-templates")
        # A mistyped field is refused by Helm, not by a crash-looping server.
        err = refused({"inventory.templates": [{"name": "t", "gpu": {"count": 1}}]})
        self.assertIsNotNone(err)
        self.assertIn("/inventory/templates/0", err)
        self.assertIsNotNone(refused({"inventory.templates": [{"labels": {"a": "b"}}]}))
        self.assertIsNone(refused({"inventory.templates": [{"name": "t", "dialects": ["hami"], "gpus": {"count": 1}}]}))
        if GPUADMIT:  # what the ConfigMap holds is what gpuadmit reads
            with tempfile.TemporaryDirectory() as d:
                inv, pod = os.path.join(d, "templates.yaml"), os.path.join(d, "pod.yaml")
                with open(inv, "w") as f:
                    f.write(cm["data"]["templates.yaml"])
                with open(pod, "w") as f:
                    f.write("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  nodeSelector: {karpenter.sh/nodepool: a100}\n"
                            "  containers: [{name: c, image: x, resources: {limits: {nvidia.com/gpu: '8'}}}]\n")
                r = subprocess.run([GPUADMIT, "fit", "--inventory", inv, pod], capture_output=True, text=True)
                self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
                self.assertIn("fits a new node of template karpenter-a100", r.stdout)

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
        self.assertEqual(find(docs, "ClusterRole")["rules"][1]["resourceNames"], ["prod-gpuadmit"])
        self.assertIn("--register-service=admission/prod-gpuadmit", container(docs)["args"])
        self.assertIn("--register-owner=prod-gpuadmit", container(docs)["args"])


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

    # A configuration gpuadmit would refuse at start (exit 2, a crash loop) is refused by Helm before anything rolls.
    BAD_CONFIGS = [
        ({"config.rules.min-memroy": "warn"}, "/config/rules", "min-memroy"),
        ({"config.minDeviceMemory": "1Gx"}, "/config/minDeviceMemory", "1Gx"),
        ({"config.minDeviceMemory": "-1Gi"}, "/config/minDeviceMemory", "-1Gi"),
        ({"config.maxPodsPerDevice": 0}, "/config/maxPodsPerDevice", "minimum"),
        ({"config.rules.infeasible": "block"}, "/config/rules/infeasible", "deny"),
        ({"config.placement.strategy": "pack"}, "/config/placement/strategy", "binpack"),
        ({"config.placement.coreWeight": 101}, "/config/placement/coreWeight", "maximum"),
        ({"config.placement.weight": 1}, "/config/placement", "weight"),
        ({"config.namespaces.exclude": "kube-system"}, "/config/namespaces/exclude", "array"),
        ({"config.knownResources": ["gpu-a100"]}, "/config/knownResources/0", "gpu-a100"),
        ({"config.workloads": [{"group": "example.com/v1", "kind": "T", "podTemplates": ["spec.template"]}]}, "/config/workloads/0/group", "example.com/v1"),
        ({"config.workloads": [{"group": "example.com", "kind": "T"}]}, "/config/workloads/0", "podTemplates"),
        ({"config.dialect": ["vendor"]}, "/config", "dialect"),
    ]

    def test_mistyped_config_is_refused_by_install_and_lint(self):
        for values, where, what in self.BAD_CONFIGS:
            err = refused(values)
            self.assertIsNotNone(err, f"{values} rendered")
            self.assertIn(where, err, values)
            self.assertIn(what, err, values)
        for values, where, _ in self.BAD_CONFIGS[:2]:  # the issue's two, through every door
            # (helm upgrade validates the same schema, but even --dry-run needs a cluster to read the release from)
            for verb in (["install", "gpuadmit", CHART, "--dry-run=client"], ["lint", "--strict", CHART]):
                r = helm(*verb, "-n", NS, *set_args(values), check=False)
                self.assertNotEqual(r.returncode, 0, f"helm {verb[0]} {values}")
                self.assertIn(where, r.stdout + r.stderr, f"helm {verb[0]} {values}")

    def test_a_full_correct_config_is_accepted(self):
        render({"config": FULL_CONFIG})
        r = helm("lint", "--strict", CHART, "-n", NS, *set_args({"config": FULL_CONFIG}), check=False)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)

    def test_rule_ids_are_the_rule_table(self):
        """The schema's rule ids and the engine's table (rules/policy/rules.c) cannot drift apart."""
        with open(os.path.join(CHART, "values.schema.json")) as f:
            schema = json.load(f)
        ids = sorted(schema["properties"]["config"]["properties"]["rules"]["properties"])
        with open(os.path.join(SOURCE, "rules", "policy", "rules.c")) as f:
            table = sorted(re.findall(r'^\s*\{"([a-z0-9-]+)", ', f.read(), re.M))
        self.assertGreater(len(table), 15)
        self.assertEqual(ids, table)

    def test_mutation_ids_are_the_mutation_table(self):
        """The schema's mutation switches and the engine's ids (rules/policy/mutations.c) cannot drift apart."""
        with open(os.path.join(CHART, "values.schema.json")) as f:
            ids = sorted(json.load(f)["properties"]["config"]["properties"]["mutations"]["properties"])
        with open(os.path.join(SOURCE, "rules", "policy", "mutations.c")) as f:
            table = sorted(re.findall(r'\] = \{"([a-z0-9-]+)", [01],', f.read()))
        self.assertGreater(len(table), 4)
        self.assertEqual(ids, table)

    def test_config_keys_are_the_readers(self):
        """The schema's config keys are the ones gpuadmit's reader knows (rules/policy/config_load.c): a key added
        there without a schema row would be refused by helm install; one dropped there would be refused by the
        server."""
        with open(os.path.join(CHART, "values.schema.json")) as f:
            keys = sorted(json.load(f)["properties"]["config"]["properties"])
        with open(os.path.join(SOURCE, "rules", "policy", "config_load.c")) as f:
            top = re.search(r"static const char \*const top\[\] = \{(.*?)NULL\}", f.read(), re.S)
        self.assertIsNotNone(top)
        self.assertEqual(keys, sorted(re.findall(r'"([A-Za-z]+)"', top.group(1))))


# Every key of the configuration, each with a value gpuadmit accepts (README.md#configuration).
FULL_CONFIG = {
    "minDeviceMemory": "1.5Gi", "maxPodsPerDevice": 8, "dialects": ["vendor", "koordinator"],
    "rules": {"min-memory": "warn", "infeasible": "off", "unit-hint": False, "unknown-resource": "deny"},
    "namespaces": {"exclude": ["kube-system", "batch"]}, "placement": {"strategy": "spread", "coreWeight": 0},
    "knownResources": ["nvidia.com/gpu-a100"], "mutations": {"mirror-limits": "off", "expand-gpu": True},
    "workloads": [{"group": "example.com", "kind": "Trainer", "podTemplates": ["spec.workers[*].template"],
                   "podSpecs": ["spec.launcher"], "resources": ["spec.resources"]}],
    "hami": {"resourceMemoryName": "example.com/vgpu-memory", "memoryFactor": 2, "defaultGPUNum": 1, "deviceMemoryScaling": 1},
}


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


def tmpl_named(name):
    return {"spec": {"containers": [{"name": "c", "resources": {"requests": {name: "1"}}}]}}


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

    def test_domains_match_whatever_their_case(self):
        """The API server does not validate a CRD's Pod templates: NVIDIA.com/gpu there must reach unknown-resource."""
        expr = self.expression()
        ray = lambda name: {"spec": {"workerGroupSpecs": [{"template": {"spec": {"containers": [
            {"name": "c", "resources": {"limits": {name: "1"}}}]}}}]}}
        for name in ("NVIDIA.com/gpu", "Koordinator.SH/gpu.shared", "AMD.COM/gpu", "koordinator.sh/GPU-core", "VKE.VolcEngine.com/mgpu-core"):
            self.check(expr, [("ray.io", "rayclusters", ray(name)), ("", "pods", tmpl_named(name))], True)
        for name in ("example.com/NVIDIA.com", "nvidia.comx/gpu", "nvidiaXcom/gpu", "xnvidia.com/gpu"):
            self.check(expr, [("ray.io", "rayclusters", ray(name)), ("", "pods", tmpl_named(name))], False)
        self.check(self.expression({"config.dialects": ["vendor"]}), [("", "pods", tmpl_named("Koordinator.SH/gpu-core"))], False)

    def test_extra_kinds_reach_the_webhooks(self):
        """A kind the configuration adds (config.workloads) gets a webhook rule and its paths in the matchCondition."""
        values = {"config.workloads": FULL_CONFIG["workloads"],
                  "webhook.extraKinds": [{"group": "example.com", "kind": "Trainer", "resource": "trainers", "scope": "Namespaced"}]}
        docs = render(values)
        for kind in WEBHOOK_KINDS:
            rules = [r for r in webhook(docs, kind)["rules"] if r["apiGroups"] == ["example.com"]]
            self.assertEqual([(r["resources"], r["apiVersions"], r["scope"]) for r in rules], [(["trainers"], ["*"], "Namespaced")])
        expr = webhook(docs, "ValidatingWebhookConfiguration")["matchConditions"][0]["expression"]
        gpu = gpu_resources(True)
        spec = {"containers": [{"name": "c", "resources": gpu}]}
        self.check(expr, [("example.com", "trainers", {"spec": {"workers": [{"template": tmpl(False)}, {"template": tmpl(True)}]}}),
                          ("example.com", "trainers", {"spec": {"launcher": spec}}),
                          ("example.com", "trainers", {"spec": {"resources": gpu}})], True)
        self.check(expr, [("example.com", "trainers", {"spec": {"workers": [{"template": tmpl(False)}], "launcher": {"containers": []}}}),
                          ("example.com", "trainers", {}), ("example.org", "trainers", {"spec": {"resources": gpu}})], False)
        self.assertIn("no config.workloads entry for kind Trainer",
                      refused({"webhook.extraKinds": [{"group": "example.com", "kind": "Trainer", "resource": "trainers"}]}))
        self.assertIsNotNone(refused({"webhook.extraKinds": [{"group": "example.com", "kind": "Trainer", "resource": "Trainers"}]}))

    def test_dialects_follow_the_config(self):
        expr = self.expression({"config.dialects": ["vendor"]})
        koord = {"spec": {"containers": [{"name": "c", "resources": {"limits": {"koordinator.sh/gpu-core": "50"}}}]}}
        vendor = {"spec": {"containers": [{"name": "c", "resources": {"limits": {"nvidia.com/gpu": "1"}}}]}}
        mgpu = {"metadata": {"annotations": {"vke.volcengine.com/container-multiple-gpu": "1"}}, "spec": {"containers": []}}
        self.check(expr, [("", "pods", koord), ("", "pods", mgpu)], False)
        self.check(expr, [("", "pods", vendor)], True)

    def test_hami_names_as_configured(self):
        """config.hami renames HAMi's resources, in any domain: the condition names them, and Pods and templates that
        ask by them reach gpuadmit; nvidia.com's names still do (HAMi's count is nvidia.com/gpu unless renamed)."""
        hami = {"resourceCountName": "example.com/vgpu", "resourceMemoryName": "example.com/vgpu-memory",
                "resourceMemoryPercentageName": "nvidia.com/vgpu-percent", "resourceCoreName": "cores.example.org/vgpu-cores",
                "memoryFactor": 1, "deviceMemoryScaling": 1}
        expr = self.expression({"config.hami": hami})
        self.assertLess(len(expr), 50000)
        for name in ("example.com/vgpu", "example.com/vgpu-memory", "cores.example.org/vgpu-cores"):
            self.assertIn("'%s'" % name, expr)
        self.assertNotIn("'nvidia.com/vgpu-percent'", expr)  # its domain reaches gpuadmit whole
        deploy = lambda name: {"spec": {"template": tmpl_named(name)}}
        for name in ("example.com/vgpu-memory", "cores.example.org/vgpu-cores", "example.com/vgpu", "nvidia.com/vgpu-percent",
                     "nvidia.com/gpumem"):
            self.check(expr, [("", "pods", tmpl_named(name)), ("apps", "deployments", deploy(name))], True)
        for name in ("example.com/other", "example.com/VGPU", "cores.example.org/vgpu-core"):
            self.check(expr, [("", "pods", tmpl_named(name)), ("apps", "deployments", deploy(name))], False)
        # A name is the user's text: a quote or backslash in it is escaped, never the end of the literal.
        odd = "ex'a\\b/m"
        self.check(self.expression({"config.hami": {"resourceMemoryName": odd}}), [("", "pods", tmpl_named(odd))], True)
        # Not without the configuration, nor with HAMi off.
        self.check(self.expression(), [("", "pods", tmpl_named("example.com/vgpu-memory"))], False)
        off = self.expression({"config.hami": hami, "config.dialects": ["vendor", "koordinator", "mgpu"]})
        self.assertNotIn("example.com", off)
        self.check(off, [("", "pods", tmpl_named("example.com/vgpu-memory"))], False)

    def test_resources_written_as_annotations(self):
        """A Pod or template whose only GPU name is an annotation key reaches gpuadmit (resource-in-annotation)."""
        expr = self.expression({"config.hami": {"resourceMemoryName": "example.com/vgpu-memory"}})
        annotated = lambda key: {"metadata": {"annotations": {"team": "ml", key: "4000"}}, "spec": {"containers": [{"name": "c"}]}}
        for key in ("nvidia.com/gpumem", "nvidia.com/gpucores", "koordinator.sh/gpu-memory-ratio", "example.com/vgpu-memory",
                    "vke.volcengine.com/container-multiple-gpu"):
            self.check(expr, [("", "pods", annotated(key)), ("apps", "deployments", {"spec": {"template": annotated(key)}}),
                              ("batch", "cronjobs", {"spec": {"jobTemplate": {"spec": {"template": annotated(key)}}}})], True)
        for key in ("scheduling.koordinator.sh/device-allocated", "example.com/other", "team"):
            self.check(expr, [("", "pods", annotated(key)), ("apps", "deployments", {"spec": {"template": annotated(key)}})], False)
        self.check(expr, [("", "pods", {"metadata": {"annotations": {}}, "spec": {}}), ("", "pods", {"metadata": {}})], False)
        vendor = self.expression({"config.dialects": ["vendor"]})
        self.check(vendor, [("", "pods", annotated("koordinator.sh/gpu-core"))], False)
        self.check(vendor, [("", "pods", annotated("nvidia.com/gpu"))], True)

    def test_dra_objects_and_claims(self):
        """DRA: claims, templates and classes reach gpuadmit whole, a claim a controller made never does; Pods and
        workloads that name claims, or ask for a class's implicit resource, do."""
        expr = self.expression()
        claim = lambda ann=None: {"metadata": dict({"name": "c"}, **({"annotations": ann} if ann is not None else {})),
                                  "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu.nvidia.com"}}]}}}
        self.check(expr, [("resource.k8s.io", "resourceclaims", claim()), ("resource.k8s.io", "resourceclaims", claim({"team": "ml"})),
                          ("resource.k8s.io", "resourceclaims", {}),
                          ("resource.k8s.io", "resourceclaimtemplates", {"spec": {"spec": {}}}),
                          ("resource.k8s.io", "deviceclasses", {"spec": {"selectors": []}})], True)
        self.check(expr, [("resource.k8s.io", "resourceclaims", claim({"resource.kubernetes.io/pod-claim-name": "gpu"})),
                          ("resource.k8s.io", "resourceclaims", claim({"resource.kubernetes.io/extended-resource-claim": "true"})),
                          ("resource.k8s.io", "resourceslices", {"spec": {}}), ("example.com", "resourceclaims", claim())], False)
        claims = {"resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "t"}],
                  "containers": [{"name": "c", "resources": {"claims": [{"name": "gpu"}]}}]}
        only_pod = {"resourceClaims": [{"name": "gpu", "resourceClaimName": "shared"}], "containers": [{"name": "c"}]}
        only_container = {"containers": [{"name": "c", "resources": {"claims": [{"name": "gpu"}]}}]}
        implicit = {"containers": [{"name": "c", "resources": {"limits": {"deviceclass.resource.kubernetes.io/gpu.nvidia.com": "1"}}}]}
        for spec in (claims, only_pod, only_container, implicit):
            self.check(expr, [("", "pods", {"spec": spec}), ("apps", "deployments", {"spec": {"template": {"spec": spec}}}),
                              ("batch", "cronjobs", {"spec": {"jobTemplate": {"spec": {"template": {"spec": spec}}}}}),
                              ("ray.io", "rayclusters", {"spec": {"workerGroupSpecs": [{"template": {"spec": spec}}]}})], True)
        empty = {"resourceClaims": [], "containers": [{"name": "c", "resources": {"claims": []}}]}
        self.check(expr, [("", "pods", {"spec": empty}), ("apps", "deployments", {"spec": {"template": {"spec": empty}}})], False)
        self.check(expr, [("trainer.kubeflow.org", "trainjobs", {"spec": {"trainer": {"resourcesPerNode": {"claims": [{"name": "g"}]}}}})], True)
        # The dra dialect off: none of it reaches gpuadmit.
        off = self.expression({"config.dialects": ["vendor"]})
        self.check(off, [("", "pods", {"spec": claims}), ("", "pods", {"spec": implicit})], False)
        self.assertLess(len(expr), 50000)

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
        for values in [{}, {"certs.mode": "certManager", "serve.clientCASecret": "ca",
                            "inventory.enabled": True, "inventory.content": "x: 1"}]:
            for arg in container(render(values))["args"][1:]:
                flag = arg.split("=", 1)[0]
                self.assertIn(flag + " ", help_text.replace(",", " "), f"{flag} (values {values})")

    def test_the_schema_refuses_only_what_gpuadmit_refuses(self):
        """Every rule id of the schema is one gpuadmit takes; every configuration the schema refuses, gpuadmit refuses."""
        with open(os.path.join(CHART, "values.schema.json")) as f:
            ids = json.load(f)["properties"]["config"]["properties"]["rules"]["properties"]
        with tempfile.TemporaryDirectory() as d:
            cfg, pod = os.path.join(d, "config.json"), os.path.join(d, "pod.yaml")
            with open(pod, "w") as f:
                f.write("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: c, image: x}]\n")

            def run(config):
                with open(cfg, "w") as f:
                    json.dump(config, f)
                return subprocess.run([GPUADMIT, "validate", "--config", cfg, pod], capture_output=True, text=True)

            r = run({"rules": {i: "warn" for i in ids}})
            self.assertEqual(r.returncode, 0, r.stderr)
            for values, _, what in Schema.BAD_CONFIGS:
                config = {}
                for key, val in values.items():
                    at = config
                    parts = key.split(".")[1:]
                    for part in parts[:-1]:
                        at = at.setdefault(part, {})
                    at[parts[-1]] = val
                r = run(config)
                self.assertEqual(r.returncode, 2, f"gpuadmit took {config}")

    def test_deploy_md_certificate_commands_run_on_a_fresh_machine(self):
        """docs/deploy.md's `gpuadmit certs` lines, run as written in an empty directory."""
        with open(os.path.join(SOURCE, "docs", "deploy.md")) as f:
            blocks = re.findall(r"```sh\n(.*?)```", f.read(), re.S)
        lines = [ln for b in blocks if "gpuadmit certs" in b for ln in b.splitlines() if ln.startswith(("gpuadmit certs", "mkdir"))]
        self.assertTrue([ln for ln in lines if "> ./gpuadmit-certs/caBundle" in ln], lines)
        with tempfile.TemporaryDirectory() as d:
            shim = os.path.join(d, "bin")
            os.mkdir(shim)
            os.symlink(os.path.abspath(GPUADMIT), os.path.join(shim, "gpuadmit"))
            work = os.path.join(d, "work")
            os.mkdir(work)
            for block in [b for b in blocks if "gpuadmit certs" in b]:
                script = "set -e\n" + "\n".join(ln for ln in block.splitlines() if ln.startswith(("gpuadmit certs", "mkdir")))
                r = subprocess.run(["sh", "-c", script], cwd=work, capture_output=True, text=True,
                                   env={**os.environ, "PATH": shim + os.pathsep + os.environ["PATH"]})
                self.assertEqual(r.returncode, 0, script + "\n" + r.stderr)
                with open(os.path.join(work, "gpuadmit-certs", "caBundle")) as f:
                    self.assertTrue(base64.b64decode(f.read().strip()).startswith(b"-----BEGIN CERTIFICATE-----"))

    def test_rendered_config_loads_in_gpuadmit(self):
        with tempfile.TemporaryDirectory() as d:
            pod = os.path.join(d, "pod.yaml")
            with open(pod, "w") as f:
                f.write("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: c, image: x}]\n")
            for i, values in enumerate([{}, {"config.rules": {"min-memory": "warn", "infeasible": "off"}, "config.minDeviceMemory": "1Gi"},
                                        {"config": FULL_CONFIG}]):
                cfg = os.path.join(d, f"config{i}.yaml")
                with open(cfg, "w") as f:
                    f.write(find(render(values), "ConfigMap", "gpuadmit-config")["data"]["config.yaml"])
                r = subprocess.run([GPUADMIT, "validate", "--config", cfg, pod], capture_output=True, text=True)
                self.assertEqual(r.returncode, 0, r.stdout + r.stderr)

    def test_hami_names_the_condition_sends_are_the_engines(self):
        """config.hami reaches gpuadmit as it reaches the matchCondition: a Pod asking by a renamed name is HAMi's."""
        values = {"config.hami": {"resourceMemoryName": "example.com/vgpu-memory"}}
        docs = render(values)
        self.assertIn("'example.com/vgpu-memory'", webhook(docs, "ValidatingWebhookConfiguration")["matchConditions"][0]["expression"])
        with tempfile.TemporaryDirectory() as d:
            cfg, pod = os.path.join(d, "config.yaml"), os.path.join(d, "pod.yaml")
            with open(cfg, "w") as f:
                f.write(find(docs, "ConfigMap", "gpuadmit-config")["data"]["config.yaml"])
            with open(pod, "w") as f:
                f.write("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: c, image: x, resources: "
                        "{limits: {example.com/vgpu-memory: 16Gi}}}]\n")
            r = subprocess.run([GPUADMIT, "validate", "--config", cfg, pod], capture_output=True, text=True)
            self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
            self.assertIn("ambiguous-unit", r.stdout)  # bytes where HAMi counts MiB, under the renamed name

    def test_default_placement_is_each_schedulers(self):
        """The chart sets no strategy or coreWeight: each dialect is placed as its scheduler scores it (a value here
        would override every dialect's default); null, as `--set config.placement.strategy=null` leaves it, is taken."""
        config = yaml.safe_load(find(render({}), "ConfigMap", "gpuadmit-config")["data"]["config.yaml"])
        self.assertEqual(config["placement"], {})
        with tempfile.TemporaryDirectory() as d:
            cfg, pod = os.path.join(d, "config.yaml"), os.path.join(d, "pod.yaml")
            with open(cfg, "w") as f:
                f.write("placement: {strategy: null, coreWeight: null}\n")
            with open(pod, "w") as f:
                f.write("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: c, image: x}]\n")
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
