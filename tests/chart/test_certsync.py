#!/usr/bin/env python3
"""Self-managed certificates (`gpuadmit serve --cert-secret`, cluster/certsync.h) against a fake API server
(fake_kube.py): first start, two replicas racing, rotation of the serving certificate and of the CA with
requests in flight and no failure, a Secret edited by hand. And the webhook registration (`--register-webhooks`,
cluster/register.h) with the configurations the chart renders: none exists before a ready server can answer it.

Each replica is a real `gpuadmit serve`; requests are made as kube-apiserver makes them: a new TLS connection
verified with the caBundle the webhook configuration holds at that moment, for the Service's DNS name.
usage: GPUADMIT_BIN=... test_certsync.py   (tests/chart.cmake)
"""
import base64
import http.client
import json
import os
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fake_kube import FakeKube  # noqa: E402

GPUADMIT = os.environ.get("GPUADMIT_BIN", "")
HELM = os.environ.get("HELM", "")
CHART = os.environ.get("CHART", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "charts", "gpuadmit"))
NS, SERVICE, SECRET, CONFIG = "gpu-system", "gpuadmit", "gpuadmit-tls", "gpuadmit"
HOST = f"{SERVICE}.{NS}.svc"
REVIEW = json.dumps({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": {
    "uid": "u1", "kind": {"group": "", "version": "v1", "kind": "Pod"}, "resource": {"group": "", "version": "v1", "resource": "pods"},
    "operation": "CREATE", "namespace": "default", "object": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
                                                              "spec": {"containers": [{"name": "c", "image": "x"}]}}}}).encode()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def webhook_config(kind, path):
    return {"apiVersion": "admissionregistration.k8s.io/v1", "kind": kind, "metadata": {"name": CONFIG},
            "webhooks": [{"name": f"{path.strip('/')}.gpuadmit.io", "clientConfig": {"service": {
                "name": SERVICE, "namespace": NS, "path": path, "port": 443}}, "sideEffects": "None",
                "admissionReviewVersions": ["v1"]}]}


def helm_docs(*values):
    """What the chart renders in certs.mode selfManaged, by kind (None without helm)."""
    if not HELM or not os.path.exists(HELM):
        return None
    import yaml  # python3-yaml, as the chart test
    r = subprocess.run([HELM, "template", "gpuadmit", CHART, "-n", NS, *values], capture_output=True, text=True, check=True)
    docs = {}
    for d in yaml.safe_load_all(r.stdout):
        if d:
            docs[(d["kind"], d["metadata"]["name"])] = d
    return docs


def chart_configs():
    """The webhook configurations as Helm creates them (webhook.registration=chart): what the replicas fill in."""
    docs = helm_docs("--set", "webhook.registration=chart")
    if docs is None:
        return None
    return docs[("ValidatingWebhookConfiguration", CONFIG)], docs[("MutatingWebhookConfiguration", CONFIG)]


def wait_for(cond, timeout=20.0, what="condition"):
    deadline = time.time() + timeout
    while time.time() < deadline:
        v = cond()
        if v:
            return v
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


class FakeCluster(unittest.TestCase):
    """A fake API server holding the chart's webhook configurations, and replicas of `gpuadmit serve` against it."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        d = self.tmp.name
        # The fake API server's own certificate, and a kubeconfig pointing at it.
        r = subprocess.run([GPUADMIT, "certs", "--service", "kube", "--namespace", "fake", "--extra-san", "127.0.0.1",
                            "--out", os.path.join(d, "api")], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.kube = FakeKube(os.path.join(d, "api", "tls.crt"), os.path.join(d, "api", "tls.key"))
        self.kubeconfig = os.path.join(d, "kubeconfig")
        with open(self.kubeconfig, "w") as f:
            f.write(f"""apiVersion: v1
kind: Config
clusters: [{{name: fake, cluster: {{server: "https://127.0.0.1:{self.kube.port}", certificate-authority: "{d}/api/ca.crt"}}}}]
users: [{{name: u, user: {{token: fake-token}}}}]
contexts: [{{name: c, context: {{cluster: fake, user: u}}}}]
current-context: c
""")
        self.store = self.kube.store
        rendered = chart_configs() or (webhook_config("ValidatingWebhookConfiguration", "/validate"),
                                       webhook_config("MutatingWebhookConfiguration", "/mutate"))
        self.store.put_object("validatingwebhookconfigurations", rendered[0])
        self.store.put_object("mutatingwebhookconfigurations", rendered[1])
        self.replicas = []

    def tearDown(self):
        for p, _, _ in self.replicas:
            if p.poll() is None:
                p.terminate()
                try:
                    p.wait(10)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
        self.kube.stop()
        self.check_rbac()
        # Under ASan (scripts/test.sh) a replica's memory errors and leaks end up in its log.
        logs = [self.log(n) for n in range(len(self.replicas))]
        self.tmp.cleanup()
        for n, text in enumerate(logs):
            self.assertNotIn("Sanitizer", text, f"replica {n}:\n{text[-4000:]}")

    # What the chart's Role and ClusterRole grant in certs.mode selfManaged (charts/gpuadmit/templates/rbac.yaml).
    GRANTED = {
        ("POST", f"/api/v1/namespaces/{NS}/secrets"),
        ("GET", f"/api/v1/namespaces/{NS}/secrets/{SECRET}"),
        ("PUT", f"/api/v1/namespaces/{NS}/secrets/{SECRET}"),
        ("GET", f"/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/{CONFIG}"),
        ("PUT", f"/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/{CONFIG}"),
        ("GET", f"/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/{CONFIG}"),
        ("PUT", f"/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/{CONFIG}"),
    }

    def check_rbac(self):
        """Every call the replicas made is one the chart's RBAC allows (create, get and update by name)."""
        made = {(method, path.split("?")[0]) for method, path, _ in self.store.calls}
        self.assertEqual(made - self.GRANTED, set())

    def start(self, *extra):
        """One replica; returns (process, port, cert dir)."""
        n = len(self.replicas)
        cert_dir = os.path.join(self.tmp.name, f"run{n}", "tls")  # as the chart: a directory to make in the emptyDir
        os.mkdir(os.path.dirname(cert_dir))
        port = free_port()
        log = open(os.path.join(self.tmp.name, f"replica{n}.log"), "w")
        # libh2o's per-thread buffers, freed by the exit (as the webhook's end-to-end tests say)
        supp = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e", "lsan.supp")
        env = dict(os.environ, KUBECONFIG=self.kubeconfig, LSAN_OPTIONS=f"suppressions={supp}")
        env.pop("KUBERNETES_SERVICE_HOST", None)
        p = subprocess.Popen([GPUADMIT, "serve", f"--listen=127.0.0.1:{port}", "--metrics-listen=", "--threads=1",
                              "--reload-interval=100ms", f"--cert-secret={SECRET}", f"--cert-namespace={NS}",
                              f"--cert-service={SERVICE}", f"--webhook-config-name={CONFIG}", f"--cert-dir={cert_dir}", *extra],
                             stdout=log, stderr=subprocess.STDOUT, env=env)
        log.close()  # the child keeps its own descriptor
        self.replicas.append((p, port, cert_dir))
        return p, port, cert_dir

    def log(self, n):
        with open(os.path.join(self.tmp.name, f"replica{n}.log")) as f:
            return f.read()

    def secret(self):
        return self.store.get_object(f"secrets/{NS}", SECRET)

    def bundle(self, kind="validatingwebhookconfigurations"):
        obj = self.store.get_object(kind, CONFIG)
        return obj["webhooks"][0]["clientConfig"].get("caBundle")

    def call(self, port, bundle=None):
        """One admission request as kube-apiserver makes it; returns the serving certificate (DER) or raises."""
        ctx = ssl.create_default_context(cadata=base64.b64decode(bundle or self.bundle()).decode())
        conn = http.client.HTTPSConnection("127.0.0.1", port, context=ctx, timeout=10)
        conn.sock = ctx.wrap_socket(socket.create_connection(("127.0.0.1", port), timeout=10), server_hostname=HOST)
        served = conn.sock.getpeercert(binary_form=True)  # before the answer: a closing answer drops conn.sock
        try:
            conn.request("POST", "/validate", body=REVIEW, headers={"Content-Type": "application/json"})
            r = conn.getresponse()
            body = json.loads(r.read())
            if r.status != 200 or body["response"]["uid"] != "u1":
                raise AssertionError(f"HTTP {r.status}: {body}")
            return served
        finally:
            conn.close()

    def ready(self, port):
        try:
            return self.call(port)
        except (OSError, ssl.SSLError, AssertionError, TypeError):
            return None



class CertSync(FakeCluster):
    def test_first_start(self):
        metrics = free_port()
        # The metrics address as the chart writes it: the Pod IP in brackets (IPv4 or IPv6 alike).
        p, port, cert_dir = self.start(f"--metrics-listen=[127.0.0.1]:{metrics}")
        wait_for(lambda: self.ready(port), what="the first replica to serve")
        conn = http.client.HTTPConnection("127.0.0.1", metrics, timeout=10)
        conn.request("GET", "/metrics")
        text = conn.getresponse().read().decode()
        conn.close()
        self.assertIn("gpuadmit_certificate_expiry_seconds", text)
        s = self.secret()
        self.assertEqual(s["type"], "kubernetes.io/tls")
        self.assertEqual(sorted(s["data"]), ["ca-bundle.crt", "ca.crt", "ca.key", "tls.crt", "tls.key"])
        want = s["data"]["ca-bundle.crt"]
        for kind in ("validatingwebhookconfigurations", "mutatingwebhookconfigurations"):
            self.assertEqual(self.bundle(kind), want, kind)
        with open(os.path.join(cert_dir, "tls.crt")) as f:
            self.assertEqual(f.read(), base64.b64decode(s["data"]["tls.crt"]).decode())
        self.assertEqual([c[2] for c in self.store.calls if c[0] == "POST"], [201])
        # A second start finds everything in place: nothing is written.
        writes = len([c for c in self.store.calls if c[0] != "GET"])
        p2, port2, _ = self.start()
        wait_for(lambda: self.ready(port2), what="the second replica")
        self.assertEqual(len([c for c in self.store.calls if c[0] != "GET"]), writes)
        self.assertEqual(self.secret()["metadata"]["resourceVersion"], s["metadata"]["resourceVersion"])

    def test_sigterm_drains_and_exits_0(self):
        """SIGTERM with the certificate-sync thread running (the chart's default): the server drains and exits 0,
        whichever thread the signal lands on (every background thread is started with SIGTERM and SIGINT blocked)."""
        for _ in range(3):
            p, port, _ = self.start()
            wait_for(lambda: self.ready(port), what="the replica to serve")
            p.send_signal(signal.SIGTERM)
            self.assertEqual(p.wait(timeout=30), 0, self.log(len(self.replicas) - 1))

    def test_configuration_created_after_the_server(self):
        """Helm may create a webhook configuration after the Pods start: it gets the caBundle at a later sync."""
        with self.store.lock:
            del self.store.objects[("mutatingwebhookconfigurations", CONFIG)]
        _, port, _ = self.start("--cert-sync-interval=1s")
        wait_for(lambda: self.ready(port), what="the replica without a mutating configuration")
        self.store.put_object("mutatingwebhookconfigurations", webhook_config("MutatingWebhookConfiguration", "/mutate"))
        wait_for(lambda: self.bundle("mutatingwebhookconfigurations") == self.secret()["data"]["ca-bundle.crt"],
                 what="the caBundle in the late configuration")

    def test_flags_are_checked(self):
        for args, want in ((["--cert-secret=s"], "--cert-secret needs"),
                           (["--cert-secret=s", "--cert-namespace=n", "--cert-service=v", "--webhook-config-name=w", "--cert-dir=/tmp",
                             "--cert=a", "--key=b"], "replaces --cert/--key"),
                           (["--cert-secret=s", "--cert-renew-before=soon"], "--cert-renew-before soon"),
                           (["--cert-secret=s", "--cert-days=0"], "--cert-days 0")):
            r = subprocess.run([GPUADMIT, "serve", *args], capture_output=True, text=True)
            self.assertEqual(r.returncode, 2, args)
            self.assertIn(want, r.stderr, args)

    def test_two_replicas_race(self):
        self.store.write_delay = 0.5  # both read "no Secret" before either writes
        _, port_a, dir_a = self.start()
        _, port_b, dir_b = self.start()
        wait_for(lambda: self.ready(port_a) and self.ready(port_b), what="both replicas to serve")
        posts = [c[2] for c in self.store.calls if c[0] == "POST"]
        self.assertEqual(sorted(posts), [201, 409], "one create wins, the other replica reads the winner's")
        with open(os.path.join(dir_a, "tls.crt")) as a, open(os.path.join(dir_b, "tls.crt")) as b:
            self.assertEqual(a.read(), b.read())
        self.assertEqual(self.call(port_a), self.call(port_b))

    def rotate_under_load(self, *extra, seconds=8.0, want_cas=1, want_leaves=3):
        _, port_a, _ = self.start("--cert-sync-interval=1s", *extra)
        wait_for(lambda: self.ready(port_a), what="replica a")
        _, port_b, _ = self.start("--cert-sync-interval=1s", *extra)
        wait_for(lambda: self.ready(port_b), what="replica b")
        failures, leaves, cas, done = [], set(), set(), time.time() + seconds
        count = [0]

        def load(port):
            while time.time() < done:
                try:
                    leaves.add(self.call(port))
                    cas.add(self.secret()["data"]["ca.crt"])
                    count[0] += 1
                except Exception as e:  # noqa: BLE001 (every failure is reported)
                    failures.append(f"{port}: {e!r}")

        threads = [threading.Thread(target=load, args=(port,)) for port in (port_a, port_b, port_a, port_b)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        print(f"\n  {count[0]} requests, {len(failures)} failed, {len(leaves)} serving certificates, {len(cas)} CAs", file=sys.stderr)
        self.assertEqual(failures, [], self.log(0)[-3000:])
        self.assertGreaterEqual(len(leaves), want_leaves, "the serving certificate was renewed while requests ran\n" + self.log(0)[-3000:])
        self.assertGreaterEqual(len(cas), want_cas)

    def test_serving_certificate_rotation_under_load(self):
        # A serving certificate of 1 day renewed when less than 2 days remain: renewed at every sync.
        self.rotate_under_load("--cert-days=1", "--cert-renew-before=2d")

    def test_ca_rotation_under_load(self):
        # A Secret whose CA (1 day) would not outlive a new serving certificate (365 days): the CA is renewed;
        # the new CA is trusted (in the bundle) 2 s before any replica serves a certificate it signed.
        short = os.path.join(self.tmp.name, "short")
        r = subprocess.run([GPUADMIT, "certs", "--service", SERVICE, "--namespace", NS, "--days", "1", "--ca-days", "1",
                            "--out", short], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        data = {}
        for key in ("ca.crt", "ca.key", "tls.crt", "tls.key"):
            with open(os.path.join(short, key), "rb") as f:
                data[key] = base64.b64encode(f.read()).decode()
        data["ca-bundle.crt"] = data["ca.crt"]
        self.store.put_object(f"secrets/{NS}", {"apiVersion": "v1", "kind": "Secret", "type": "kubernetes.io/tls",
                                                "metadata": {"name": SECRET, "namespace": NS}, "data": data})
        self.rotate_under_load("--cert-switch-delay=2s", seconds=6.0, want_leaves=2)
        s = self.secret()
        self.assertNotEqual(s["data"]["ca.crt"], data["ca.crt"])
        self.assertNotIn("ca-switch-after", s["data"], "the switch to the new CA is complete")
        bundle = base64.b64decode(s["data"]["ca-bundle.crt"])
        self.assertIn(base64.b64decode(data["ca.crt"]), bundle, "the old CA stays trusted while it is valid")

    def test_hand_edited_secret_is_remade(self):
        _, port, _ = self.start("--cert-sync-interval=1s")
        wait_for(lambda: self.ready(port), what="the replica")
        s = self.secret()
        old_ca = s["data"]["ca.crt"]
        s["data"]["tls.crt"] = base64.b64encode(b"-----BEGIN CERTIFICATE-----\nbroken\n-----END CERTIFICATE-----\n").decode()
        self.store.put_object(f"secrets/{NS}", s)
        fixed = wait_for(lambda: (lambda x: x if x["data"]["ca.crt"] != old_ca else None)(self.secret()), what="the Secret remade")
        self.assertIn("regenerated", self.log(0))
        wait_for(lambda: self.bundle() == fixed["data"]["ca-bundle.crt"], what="the new caBundle")
        wait_for(lambda: self.ready(port) == ssl.PEM_cert_to_DER_cert(base64.b64decode(fixed["data"]["tls.crt"]).decode()),
                 what="the remade certificate to be served")
        # The old CA (still valid) stays trusted alongside the new one.
        self.assertIn(base64.b64decode(old_ca), base64.b64decode(fixed["data"]["ca-bundle.crt"]))
        # A Secret with a certificate for another Service is remade too.
        before = self.secret()["data"]["ca.crt"]
        other = os.path.join(self.tmp.name, "other")
        subprocess.run([GPUADMIT, "certs", "--service", "other", "--namespace", NS, "--out", other], capture_output=True, check=True)
        s = self.secret()
        for key in ("ca.crt", "ca.key", "tls.crt", "tls.key"):
            with open(os.path.join(other, key), "rb") as f:
                s["data"][key] = base64.b64encode(f.read()).decode()
        s["data"]["ca-bundle.crt"] = s["data"]["ca.crt"]
        self.store.put_object(f"secrets/{NS}", s)
        wait_for(lambda: self.secret()["data"]["ca.crt"] not in (before, s["data"]["ca.crt"]), what="the wrong-name Secret remade")



@unittest.skipUnless(HELM and os.path.exists(HELM), "helm not installed")
class Registration(FakeCluster):
    """`serve --register-webhooks` (the chart's default) with the files the chart renders into <fullname>-webhooks."""

    COLLECTIONS = ("validatingwebhookconfigurations", "mutatingwebhookconfigurations")
    GRANTED = FakeCluster.GRANTED | {
        ("POST", "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations"),
        ("POST", "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations"),
        ("GET", f"/apis/rbac.authorization.k8s.io/v1/clusterroles/{CONFIG}"),
        ("GET", f"/apis/discovery.k8s.io/v1/namespaces/{NS}/endpointslices"),
    }

    def setUp(self):
        super().setUp()
        for coll in self.COLLECTIONS:  # the chart no longer creates them
            self.store.delete_object(coll, CONFIG)
        docs = helm_docs()
        self.assertNotIn(("ValidatingWebhookConfiguration", CONFIG), docs)
        self.rendered = {}
        self.files = os.path.join(self.tmp.name, "webhooks")
        os.mkdir(self.files)
        for key, text in docs[("ConfigMap", f"{CONFIG}-webhooks")]["data"].items():
            with open(os.path.join(self.files, key), "w") as f:
                f.write(text)
            obj = json.loads(text)
            self.rendered[obj["kind"]] = obj
        self.assertEqual(sorted(self.rendered), ["MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"])
        self.owner = self.store.put_object("clusterroles", {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
                                                            "metadata": {"name": CONFIG}, "rules": []})

    def endpoints(self, ready):
        """The Service's EndpointSlice, one endpoint: what the kubelet's readiness probe has made of the Pod."""
        self.store.put_object(f"endpointslices/{NS}", {
            "apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice", "addressType": "IPv4",
            "metadata": {"name": f"{SERVICE}-x1", "namespace": NS, "labels": {"kubernetes.io/service-name": SERVICE}},
            "endpoints": [{"addresses": ["10.0.0.7"], "conditions": {"ready": ready}}]})

    def start_registering(self, *extra):
        n = len(self.replicas)
        ca = os.path.join(self.tmp.name, f"run{n}", "tls", "ca-bundle.crt")  # start() makes run<n>/tls
        return self.start("--register-interval=1s", f"--register-webhooks={self.files}", f"--register-owner={CONFIG}",
                          f"--register-service={NS}/{SERVICE}", f"--register-ca-file={ca}", *extra)

    def configs(self):
        return [self.store.get_object(coll, CONFIG) for coll in self.COLLECTIONS]

    def calls(self, method, fragment):
        return len([c for c in self.store.calls if c[0] == method and fragment in c[1]])

    def serving(self, port):
        """The replica answers, verified with the Secret's bundle (there may be no configuration yet)."""
        s = self.secret()
        return s is not None and self.ready_with(port, s["data"]["ca-bundle.crt"])

    def ready_with(self, port, bundle):
        try:
            return self.call(port, bundle)
        except (OSError, ssl.SSLError, AssertionError, TypeError):
            return None

    def test_registered_once_a_ready_server_can_answer(self):
        self.endpoints(ready=False)
        _, port, _ = self.start_registering()
        wait_for(lambda: self.serving(port), what="the replica to serve")
        # The replica is ready, but the Service has no ready endpoint yet: looked at, nothing written.
        seen = self.calls("GET", "/endpointslices")
        wait_for(lambda: self.calls("GET", "/endpointslices") >= seen + 2, what="two more looks at the Service")
        self.assertEqual(self.configs(), [None, None])
        self.assertEqual(self.calls("POST", "webhookconfigurations"), 0)
        self.endpoints(ready=True)
        wait_for(lambda: all(self.configs()), what="both configurations")
        bundle = self.secret()["data"]["ca-bundle.crt"]
        for live in self.configs():
            want = self.rendered[live["kind"]]
            self.assertEqual(live["metadata"]["ownerReferences"], [{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
                                                                   "name": CONFIG, "uid": self.owner["metadata"]["uid"]}])
            self.assertEqual(live["metadata"]["labels"]["app.kubernetes.io/managed-by"], "gpuadmit")
            for got, hook in zip(live["webhooks"], want["webhooks"]):
                self.assertEqual(got["clientConfig"].pop("caBundle"), bundle)
                self.assertEqual(got, hook)
                self.assertEqual(got["failurePolicy"], "Fail")
        self.assertIsNotNone(self.call(port))  # as kube-apiserver calls it, with the registered caBundle
        # Nothing to do at the next syncs: no write.
        writes = self.calls("PUT", "webhookconfigurations") + self.calls("POST", "webhookconfigurations")
        seen = self.calls("GET", "/endpointslices")
        wait_for(lambda: self.calls("GET", "/endpointslices") >= seen + 2, what="two more syncs")
        self.assertEqual(self.calls("PUT", "webhookconfigurations") + self.calls("POST", "webhookconfigurations"), writes)
        # A new chart version (a file changed): the configuration is replaced.
        path = os.path.join(self.files, "validating.json")
        with open(path) as f:
            obj = json.load(f)
        obj["webhooks"][0]["timeoutSeconds"] = 5
        with open(path, "w") as f:
            json.dump(obj, f)
        wait_for(lambda: self.configs()[0]["webhooks"][0]["timeoutSeconds"] == 5, what="the changed configuration")
        self.assertEqual(self.configs()[0]["webhooks"][0]["clientConfig"]["caBundle"], bundle)
        # Uninstalling deletes the ClusterRole: its dependents go, and no replica registers them again without it.
        self.store.delete_object("clusterroles", CONFIG)
        self.assertEqual(self.configs(), [None, None])
        seen = self.calls("GET", "/clusterroles/")
        wait_for(lambda: self.calls("GET", "/clusterroles/") >= seen + 2, what="two more syncs")
        self.assertEqual(self.configs(), [None, None])
        self.assertIn("not registering", self.log(0))

    def test_nothing_registered_by_a_server_that_cannot_start(self):
        """A configuration error (what the values schema now refuses) keeps the server from starting: it registers nothing."""
        self.endpoints(ready=True)
        bad = os.path.join(self.tmp.name, "config.yaml")
        with open(bad, "w") as f:
            f.write("rules:\n  min-memroy: warn\n")
        p, _, _ = self.start_registering(f"--config={bad}")
        self.assertEqual(p.wait(30), 2)
        self.assertIn("min-memroy", self.log(0))
        self.assertEqual(self.configs(), [None, None])
        self.assertEqual(self.calls("POST", "webhookconfigurations"), 0)

    def test_flags_are_checked(self):
        for args, want in ((["--cert=a", "--key=b", "--register-webhooks=d"], "--register-webhooks needs"),
                           (["--cert=a", "--key=b", "--register-owner=o"], "need it"),
                           (["--cert=a", "--key=b", "--register-webhooks=d", "--register-owner=o", "--register-service=svc"],
                            "--register-service svc")):
            r = subprocess.run([GPUADMIT, "serve", *args], capture_output=True, text=True)
            self.assertEqual(r.returncode, 2, args)
            self.assertIn(want, r.stderr, args)


if __name__ == "__main__":
    if not GPUADMIT or not os.path.exists(GPUADMIT):
        print("certsync: skipped: gpuadmit not built")
        sys.exit(77)
    unittest.main(verbosity=2)
