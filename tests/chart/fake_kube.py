"""A fake Kubernetes API server for the self-managed certificate and webhook registration tests
(test_certsync.py): HTTPS, a bearer token, Secrets and the two webhook configuration kinds, with the API's
optimistic concurrency (a POST of an existing name and a PUT whose metadata.resourceVersion is stale answer 409
Conflict; resourceVersions are opaque strings); ClusterRoles read by name (with a uid); EndpointSlices listed by
the label kubernetes.io/service-name. Every call is recorded, so a test can count who won a race.
"""
import json
import re
import ssl
import threading
import time
import urllib.parse
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SECRET = re.compile(r"^/api/v1/namespaces/([^/]+)/secrets(?:/([^/?]+))?$")
CLUSTERROLE = re.compile(r"^/apis/rbac\.authorization\.k8s\.io/v1/clusterroles/([^/?]+)$")
SLICES = re.compile(r"^/apis/discovery\.k8s\.io/v1/namespaces/([^/]+)/endpointslices$")
CONFIG = re.compile(r"^/apis/admissionregistration\.k8s\.io/v1/(validatingwebhookconfigurations|mutatingwebhookconfigurations)"
                    r"(?:/([^/?]+))?$")


def status(code, reason, message):
    return code, {"kind": "Status", "apiVersion": "v1", "status": "Failure", "code": code, "reason": reason, "message": message}


class Store:
    def __init__(self):
        self.lock = threading.Lock()
        self.objects = {}  # (collection, name) -> object
        self.rv = 100
        self.calls = []  # (method, path, status)
        self.write_delay = 0.0  # seconds a POST or PUT waits after reading the state: widens races

    def next_rv(self):
        self.rv += 1
        return f"rv-{self.rv}"

    def put_object(self, collection, obj):
        """Stores obj as the server would after a write (used by tests to seed or to edit by hand)."""
        with self.lock:
            obj = json.loads(json.dumps(obj))
            obj.setdefault("metadata", {})["resourceVersion"] = self.next_rv()
            obj["metadata"].setdefault("uid", str(uuid.uuid4()))
            self.objects[(collection, obj["metadata"]["name"])] = obj
            return obj

    def delete_object(self, collection, name):
        """Deletes an object and, as the garbage collector does, every object whose ownerReferences name its uid."""
        with self.lock:
            gone = [self.objects.pop((collection, name))["metadata"].get("uid")]
            while gone:
                uid = gone.pop()
                for key, obj in list(self.objects.items()):
                    if any(ref.get("uid") == uid for ref in obj.get("metadata", {}).get("ownerReferences", [])):
                        gone.append(self.objects.pop(key)["metadata"].get("uid"))

    def get_object(self, collection, name):
        with self.lock:
            obj = self.objects.get((collection, name))
            return json.loads(json.dumps(obj)) if obj is not None else None

    def handle(self, method, path, body, query=""):
        m = CLUSTERROLE.match(path)
        if m and method == "GET":
            obj = self.get_object("clusterroles", m.group(1))
            return (200, obj) if obj is not None else status(404, "NotFound", f"clusterroles \"{m.group(1)}\" not found")
        m = SLICES.match(path)
        if m and method == "GET":
            want = dict(p.split("=", 1) for p in urllib.parse.parse_qs(query).get("labelSelector", [""])[0].split(",") if "=" in p)
            with self.lock:
                items = [json.loads(json.dumps(o)) for (coll, _), o in self.objects.items() if coll == f"endpointslices/{m.group(1)}"
                         and all(o.get("metadata", {}).get("labels", {}).get(k) == v for k, v in want.items())]
            return 200, {"kind": "EndpointSliceList", "apiVersion": "discovery.k8s.io/v1", "metadata": {}, "items": items}
        m = SECRET.match(path)
        collection, name = (f"secrets/{m.group(1)}", m.group(2)) if m else (None, None)
        if m is None:
            m = CONFIG.match(path)
            if m is None:
                return status(404, "NotFound", f"the server could not find the requested resource ({path})")
            collection, name = m.group(1), m.group(2)
        if method == "GET" and name:
            obj = self.get_object(collection, name)
            return (200, obj) if obj is not None else status(404, "NotFound", f"{collection} \"{name}\" not found")
        try:
            new = json.loads(body)
        except ValueError:
            return status(400, "BadRequest", "body is not JSON")
        if method == "POST" and not name:
            time.sleep(self.write_delay)
            with self.lock:
                key = (collection, new["metadata"]["name"])
                if key in self.objects:
                    return status(409, "AlreadyExists", f"{collection} \"{key[1]}\" already exists")
                new["metadata"]["resourceVersion"] = self.next_rv()
                new["metadata"]["uid"] = str(uuid.uuid4())
                self.objects[key] = new
                return 201, new
        if method == "PUT" and name:
            with self.lock:
                old = self.objects.get((collection, name))
            time.sleep(self.write_delay)
            with self.lock:
                cur = self.objects.get((collection, name))
                if cur is None:
                    return status(404, "NotFound", f"{collection} \"{name}\" not found")
                if new.get("metadata", {}).get("resourceVersion") != cur["metadata"]["resourceVersion"] or cur is not old:
                    return status(409, "Conflict", "the object has been modified; please apply your changes to the latest version")
                new["metadata"]["resourceVersion"] = self.next_rv()
                self.objects[(collection, name)] = new
                return 200, new
        return status(405, "MethodNotAllowed", f"{method} {path}")


class FakeKube:
    """Serves a Store on 127.0.0.1 over TLS (cert_file/key_file) until stop()."""

    def __init__(self, cert_file, key_file, token="fake-token"):
        self.store = Store()
        store = self.store

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def answer(self, code, obj):
                data = json.dumps(obj).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def serve(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                if self.headers.get("Authorization") != f"Bearer {token}":
                    code, obj = status(401, "Unauthorized", "Unauthorized")
                else:
                    path, _, query = self.path.partition("?")
                    code, obj = store.handle(self.command, path, body, query)
                with store.lock:
                    store.calls.append((self.command, self.path, code))
                self.answer(code, obj)

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = serve

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(cert_file, key_file)
        self.httpd.socket = ctx.wrap_socket(self.httpd.socket, server_side=True)
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()
