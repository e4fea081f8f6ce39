#!/usr/bin/env python3
"""`gpuadmit serve` under attack (docs/webhook.md#threat-model): each test drives one attack, bounded, on loopback
against the real server, and checks that the server refuses the work instead of growing, says so in a metric and
a log line, keeps serving valid requests, and gives memory back afterwards.

Memory is judged by the kernel's own figures for the server process (VmHWM, the peak resident set, and VmRSS), never
by how long anything took. Servers are started as tests/e2e/run_e2e.py starts them (certificates from `gpuadmit
certs`, port 0, JSON log in a file).

Environment: GPUADMIT (the binary), E2E_WORK (a scratch directory). Usage: run_attack.py [Attack.test_name ...]
"""
import json
import os
import resource
import select
import shutil
import socket
import ssl
import struct
import subprocess
import sys
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_e2e  # noqa: E402
from run_e2e import (KOORD_RATIO, MEM_AND_RATIO, SERVER_NAME, WORK, Server, http_request, make_certs, pod,  # noqa: E402
                     post, raw_connect, read_response, review, tls_context)

MB = 1 << 20
BUILD_APISERVER = run_e2e.build_apiserver  # kept: __main__ stubs run_e2e's out for the tests that need no Go client
RSS_BOUND = 64 * MB  # the chart's limit is 128 MiB; the issue asks for half of it under every attack


def sanitized():
    """A sanitizer build (CI runs the suite under ASan too) keeps freed memory in quarantine and adds shadow
    memory: its RSS says nothing about the product's, so memory bounds are printed, not asserted, there."""
    with open(run_e2e.GPUADMIT, "rb") as f:
        return b"__asan_init" in f.read()
H2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
H2_SETTINGS = struct.pack(">I", 0)[1:] + b"\x04\x00" + struct.pack(">I", 0)  # an empty SETTINGS frame


def compact(obj):
    return json.dumps(obj, separators=(",", ":")).encode()  # as kube-apiserver sends it


def breaking_review(size):
    """A Pod review of about `size` bytes whose every container breaks a rule (a fractional nvidia.com/gpu)."""
    n = size // 84
    return compact(review(pod("breaking", [("c%06d" % i, {"limits": {"nvidia.com/gpu": "0.5"}}) for i in range(n)])))


def clean_review(size):
    """A rule-clean Pod review of about `size` bytes: whole GPUs, and the env, args and volumes real Pods carry."""
    one = {"name": "c", "image": "registry.example.com/train:1", "args": ["--epochs=%d" % k for k in range(20)],
           "env": [{"name": "VAR_%03d" % k, "value": "x" * 40} for k in range(30)],
           "resources": {"limits": {"nvidia.com/gpu": "1"}}}
    obj = pod("clean", [])
    obj["spec"]["containers"] = [dict(one, name="c%05d" % i) for i in range(size // len(compact(one)))]
    return compact(review(obj))


def koord_containers_review(size):
    """A Pod review of about `size` bytes of Koordinator containers: one Pod-level request, its containers named together."""
    n = size // 128
    return compact(review(pod("koord", [("c%06d" % i, {"limits": {"koordinator.sh/gpu-memory": "1Gi",
                                                                     "koordinator.sh/gpu.shared": "1"}}) for i in range(n)])))


def gpu_containers_review(size):
    """A rule-clean Pod review of about `size` bytes of the smallest GPU containers: the most the engine reads per byte."""
    obj = pod("gpus", [])
    obj["spec"]["containers"] = [{"name": "c%06d" % i, "resources": {"limits": {"nvidia.com/gpu": "1"}}}
                                 for i in range(size // 64)]
    return compact(review(obj))


def post_until_judged(s, body, attempts=50, resets=True):
    """Posts a review, again after a 503 with Retry-After (the server sheds concurrent large reviews), as
    kube-apiserver would; with resets, also after a connection closed without an answer (kube-apiserver would not
    retry that: the Pod is refused). Returns the answer and how many tries were shed."""
    shed = 0
    for _ in range(attempts):
        try:
            status, text, r = post(s, "/validate", body)
        except (ConnectionError, ssl.SSLError, OSError) as e:
            assert resets, "a request closed without an answer: %r" % e
            shed += 1
            time.sleep(0.2)
            continue
        if status == 503:
            assert r.getheader("Retry-After") == "1", "503 without Retry-After"
            shed += 1
            time.sleep(0.2)
            continue
        assert status == 200, (status, text[:300])
        return json.loads(text)["response"], shed
    raise AssertionError("never judged in %d attempts" % attempts)


def proc_status(pid, field):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    raise KeyError(field)


def cpu_seconds(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def recv_all(sock, limit=1 << 16):
    """What the peer sends until it closes (or until limit bytes / 5 s of silence)."""
    data = b""
    sock.settimeout(5)
    try:
        while len(data) < limit:
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
    except (ConnectionError, socket.timeout, ssl.SSLError, OSError):
        pass
    return data


def closed_by_server(sock, timeout=60):
    """Whether the server closes the connection (within a deadline that only stops a hang, not a timing assertion)."""
    sock.settimeout(timeout)
    try:
        return sock.recv(1) == b""
    except socket.timeout:
        return False
    except (ConnectionError, ssl.SSLError):
        return True


def wait_for(pred, what, timeout=30):
    """Polls for a state the server reaches on its own (not a timing assertion: the deadline only stops a hang)."""
    deadline = time.time() + timeout
    while True:
        try:
            if pred():
                return
        except OSError:
            pass  # e.g. a scrape while the server is still out of descriptors: not yet
        if time.time() > deadline:
            raise AssertionError("never happened: " + what)
        time.sleep(0.1)


class Attack(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.certs = os.path.join(WORK, "certs")
        shutil.rmtree(cls.certs, ignore_errors=True)
        make_certs(cls.certs)
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # the client side of the floods

    def start(self, name, *args, wrap=()):
        s = Server(name, self.certs, *args) if not wrap else self.start_wrapped(name, wrap, *args)
        self.addCleanup(s.kill)
        return s

    def start_wrapped(self, name, wrap, *args):
        """A Server whose command line is prefixed (prlimit)."""
        orig = subprocess.Popen

        def popen(cmd, *a, **kw):
            return orig([*wrap, *cmd], *a, **kw)

        subprocess.Popen = popen
        try:
            return Server(name, self.certs, *args)
        finally:
            subprocess.Popen = orig

    def good(self, s, path="/validate"):
        return post(s, path, json.dumps(review(KOORD_RATIO)).encode())[0]

    def assert_rss_below(self, value, bound, what):
        if not sanitized():
            self.assertLess(value, bound, what)

    def log_has(self, s, msg):
        return any(l.get("msg", "").startswith(msg) for l in s.lines())

    # ---- HTTP/2 only when asked, only on the webhook port ------------------------------------------------------

    def assert_no_http2(self, sock, what):
        sock.sendall(H2_PREFACE + H2_SETTINGS)
        data = recv_all(sock)
        # An HTTP/2 server answers the preface with a SETTINGS frame (type 4 at offset 3); h2o's HTTP/1.1 side
        # answers 400 and closes.
        self.assertFalse(len(data) >= 9 and data[3] == 4, "%s: spoke HTTP/2: %r" % (what, data[:40]))
        self.assertTrue(data == b"" or data.startswith(b"HTTP/1.1 400"), "%s: %r" % (what, data[:80]))

    def h2c_upgrade(self, port):
        sock = socket.create_connection(("127.0.0.1", port), timeout=5)
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\n"
                     b"HTTP2-Settings: AAMAAABkAAQAAP__\r\n\r\n")
        status = read_response(sock)[0]
        sock.close()
        return status

    def test_http2_only_when_asked(self):
        s = self.start("h2")
        # Prior knowledge over TLS where ALPN agreed on http/1.1.
        self.assert_no_http2(raw_connect(s), "webhook port")
        # Plain text on the metrics port: prior knowledge and Upgrade: h2c.
        self.assert_no_http2(socket.create_connection(("127.0.0.1", s.metrics_port), timeout=5), "metrics port")
        self.assertEqual(self.h2c_upgrade(s.metrics_port), 200, "h2c upgrade ignored, the request answered as HTTP/1.1")
        self.assertEqual(self.good(s), 200)
        ctx = tls_context(os.path.join(self.certs, "ca.crt"))
        ctx.set_alpn_protocols(["h2", "http/1.1"])
        sock = ctx.wrap_socket(socket.create_connection(("127.0.0.1", s.port)), server_hostname=SERVER_NAME)
        self.assertEqual(sock.selected_alpn_protocol(), "http/1.1")
        sock.close()
        self.assertEqual(s.stop(), 0)

    def test_http2_refused(self):
        """h2o 2.2.5 buffers HTTP/2 stream bodies where the byte budget cannot count them (100 never-ending streams
        on one connection reached 109 MB): `--http2` is refused at start, exit 2 with the reason logged."""
        log = os.path.join(WORK, "h2refused.log")
        with open(log, "w") as f:
            rc = subprocess.run([run_e2e.GPUADMIT, "serve", "--cert", os.path.join(self.certs, "tls.crt"), "--key",
                                 os.path.join(self.certs, "tls.key"), "--listen", "127.0.0.1:0", "--metrics-listen", "",
                                 "--http2"], stderr=f, stdout=subprocess.DEVNULL, timeout=60).returncode
        self.assertEqual(rc, 2)
        lines = [json.loads(l) for l in open(log) if l.startswith("{")]
        self.assertTrue(any(l.get("msg") == "--http2 is refused" for l in lines), lines)
        self.assertFalse(any(l.get("msg") == "serving" for l in lines), "never listened")

    # ---- connection cap: half-open handshakes, slow clients ----------------------------------------------------

    def test_connection_cap_counts_handshakes_and_slow_clients(self):
        # Timeouts long enough that nothing times out before the ninth connection is tried, even on a loaded
        # machine (the request timeout is also keep's idle timeout between its two requests).
        s = self.start("conncap", "--max-connections", "8", "--handshake-timeout", "10s", "--request-timeout", "10s")
        keep = raw_connect(s)  # a kube-apiserver keep-alive connection, opened before the attack
        keep.sendall(http_request(None, "/validate", json.dumps(review(KOORD_RATIO)).encode()))
        self.assertEqual(read_response(keep)[0], 200)
        # Six half-open handshakes (a 5-byte TLS record header) and one slow client (headers, no body) fill the cap.
        half = []
        for _ in range(6):
            c = socket.create_connection(("127.0.0.1", s.port), timeout=5)
            c.sendall(b"\x16\x03\x01\x02\x00")
            half.append(c)
        slow = raw_connect(s)
        slow.sendall(http_request(None, "/validate", b"x" * 1000)[:-500])
        wait_for(lambda: s.metrics()["gpuadmit_connections"] == 8, "8 connections counted")
        # The ninth is closed at once, before its handshake.
        ctx = tls_context(os.path.join(self.certs, "ca.crt"))
        with self.assertRaises((ssl.SSLError, ConnectionError, OSError)):
            ctx.wrap_socket(socket.create_connection(("127.0.0.1", s.port), timeout=5), server_hostname=SERVER_NAME)
        # The connection already open keeps being served.
        keep.sendall(http_request(None, "/validate", json.dumps(review(KOORD_RATIO)).encode()))
        self.assertEqual(read_response(keep)[0], 200)
        m = s.metrics()
        self.assertGreaterEqual(m['gpuadmit_connections_refused_total{limit="max-connections"}'], 1)
        wait_for(lambda: self.log_has(s, "connection refused: limit reached"), "the refusal logged")  # after the close
        # Handshake and request timeouts free the slots as before; new connections are served again.
        for c in half + [slow]:
            self.assertTrue(closed_by_server(c))
        keep.close()
        wait_for(lambda: s.metrics()["gpuadmit_connections"] == 0, "connections closed by the timeouts")
        self.assertEqual(self.good(s), 200)
        self.assertEqual(s.stop(), 0)

    def test_many_tls_record_headers_bounded(self):
        """2,000 connections that send a TLS record header and wait (the issue's 10,000 took 481 MB): the cap
        closes all but --max-connections at once, and RSS stays under the bound."""
        s = self.start("tlsheaders", "--handshake-timeout", "60s")  # none times out: all 2000 outlast the loop
        conns, refused = [], 0
        for _ in range(2000):
            try:
                c = socket.create_connection(("127.0.0.1", s.port), timeout=5)
                c.sendall(b"\x16\x03\x01\x02\x00")
                conns.append(c)
            except OSError:
                refused += 1
        # Connections still in the listen backlog are accepted (and refused) after the loop.
        wait_for(lambda: s.metrics()['gpuadmit_connections_refused_total{limit="max-connections"}'] > 0, "refusals")
        self.assertLessEqual(s.metrics()["gpuadmit_connections"], 128)
        for c in conns:
            c.close()
        wait_for(lambda: s.metrics()["gpuadmit_connections"] == 0, "connections closed")
        peak = proc_status(s.proc.pid, "VmHWM")
        print("tls-record-headers: 2000 connections, peak RSS %.1f MB" % (peak / MB), file=sys.stderr)
        self.assert_rss_below(peak, RSS_BOUND, "peak RSS")
        self.assertEqual(self.good(s), 200)
        self.assertEqual(s.stop(), 0)

    # ---- byte budget --------------------------------------------------------------------------------------------

    def test_bodies_one_byte_short_bounded(self):
        """The issue's attack: 256 connections each sending a body one byte short of the 4 MiB cap (1.16 GB of RSS
        before). The connection cap refuses half of them, the byte budget closes the others as they grow."""
        s = self.start("bodies", "--request-timeout", "60s")
        cap = 4 * MB
        head = (b"POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n"
                % cap)
        chunk = b" " * (256 * 1024)
        conns = []
        for _ in range(256):
            try:
                c = raw_connect(s)
                c.sendall(head)
                conns.append(c)
            except (ConnectionError, ssl.SSLError, OSError):
                pass  # refused at the cap
        sent = [0] * len(conns)
        live = list(range(len(conns)))
        while live:  # round-robin, as a pool of clients would send
            for i in list(live):
                want = min(len(chunk), cap - 1 - sent[i])
                try:
                    conns[i].sendall(chunk[:want])
                    sent[i] += want
                except (ConnectionError, ssl.SSLError, OSError):
                    live.remove(i)
                    continue
                if sent[i] >= cap - 1:
                    live.remove(i)
        # What the kernel's send buffers took may still be on its way to the server: the shedding follows.
        wait_for(lambda: s.metrics()["gpuadmit_connections_shed_total"] > 0, "connections shed")
        m = s.metrics()
        self.assertGreater(m['gpuadmit_connections_refused_total{limit="max-connections"}'], 0)
        wait_for(lambda: self.log_has(s, "connections closed: max-inflight-bytes reached"), "the shedding logged")
        for c in conns:
            c.close()
        wait_for(lambda: s.metrics()["gpuadmit_connections"] == 0, "connections closed")
        peak = proc_status(s.proc.pid, "VmHWM")  # the high-water mark: whatever happened in between is in it
        print("bodies: %d connections accepted of 256, %d shed, peak RSS %.1f MB"
              % (len(conns), m["gpuadmit_connections_shed_total"], peak / MB), file=sys.stderr)
        self.assert_rss_below(peak, RSS_BOUND, "peak RSS")
        # Memory goes back once the attack is over (big buffers are unmapped when freed, the rest trimmed).
        self.assertEqual(self.good(s), 200)
        if not sanitized():
            wait_for(lambda: proc_status(s.proc.pid, "VmRSS") < 24 * MB, "RSS back under 24 MB")
        self.assertEqual(s.stop(), 0)

    def test_inflight_budget_closes_the_hog(self):
        """A body growing past the whole budget is shed while it arrives: answered 503 with Retry-After, then
        closed; the server serves the next request."""
        s = self.start("budget", "--max-inflight-bytes", "1Mi", "--request-timeout", "60s")
        keep = raw_connect(s)  # opened before: a small request on it is served throughout
        hog = raw_connect(s)
        try:
            hog.sendall(http_request(None, "/validate", b" " * (2 * MB))[:-(MB // 2)])
        except (ConnectionError, ssl.SSLError, OSError):
            pass  # closed by the server while sending
        answer = read_response(hog)
        self.assertIsNotNone(answer, "the connection over the budget is answered, not just closed")
        self.assertEqual(answer[0], 503)
        self.assertEqual(answer[1].get("retry-after"), "1")
        self.assertTrue(closed_by_server(hog), "and then closed")
        wait_for(lambda: s.metrics()["gpuadmit_connections_shed_total"] >= 1, "the shedding counted")
        # The connection opened before stays usable once the budget is free again.
        wait_for(lambda: s.metrics()["gpuadmit_inflight_bytes"] < MB, "budget free again")
        keep.sendall(http_request(None, "/validate", json.dumps(review(KOORD_RATIO)).encode()))
        self.assertEqual(read_response(keep)[0], 200)
        self.assertEqual(self.good(s), 200)
        self.assertEqual(s.stop(), 0)

    # ---- judging large objects ------------------------------------------------------------------------------------

    def judged_within_bound(self, s, what):
        peak = proc_status(s.proc.pid, "VmHWM")
        print("%s: peak RSS %.1f MB" % (what, peak / MB), file=sys.stderr)
        self.assert_rss_below(peak, RSS_BOUND, what + ": peak RSS")
        self.assertEqual(self.good(s), 200)
        if not sanitized():  # the judging's memory goes back (its arena is freed and trimmed)
            wait_for(lambda: proc_status(s.proc.pid, "VmRSS") < 24 * MB, "RSS back under 24 MB")
        self.assertEqual(s.stop(), 0)

    def test_large_rule_breaking_review_bounded(self):
        """The issue's first attack: a 2.9 MB Pod review (under kube-apiserver's 3 MiB) whose 34k containers each
        break a rule peaked at 146 MiB and answered 8.8 MB. It is judged (denied) within the bound, its answer names
        20 findings and the number of the others."""
        s = self.start("bigdeny")  # the chart's worker count: 2 threads (Server's default)
        body = breaking_review(2900 * 1000)
        answer, _ = post_until_judged(s, body)
        self.assertFalse(answer["allowed"])
        message = answer["status"]["message"]
        self.assertEqual(message.count("malformed-quantity"), 20, message[:500])
        self.assertRegex(message, r"; and \d+ more$")
        self.assertLess(len(json.dumps(answer)), 16 * 1024, "the answer stays small")
        self.judged_within_bound(s, "rule-breaking review of %.1f MB" % (len(body) / 1e6))

    def test_large_rule_clean_reviews_bounded(self):
        """The issue's other attack: four (then eight) rule-clean 3.8 MB reviews at once (222 MiB). Each is judged
        correctly (allowed) whatever its size; the ones that arrive while another is judged, or while the byte
        budget is spent, are shed with an answer (503 + Retry-After), never a connection closed without one, and
        are retried. Then the densest object: 3.7 MB of GPU containers, allowed."""
        s = self.start("bigclean")
        body = clean_review(3800 * 1000)
        results = []

        def client():
            results.append(post_until_judged(s, body, resets=False))

        threads = [threading.Thread(target=client) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual([a["allowed"] for a, _ in results], [True] * 8, results)
        print("8 rule-clean reviews of %.1f MB: %d tries shed" % (len(body) / 1e6, sum(n for _, n in results)),
              file=sys.stderr)
        answer, _ = post_until_judged(s, gpu_containers_review(3700 * 1000))
        self.assertTrue(answer["allowed"], answer)
        self.judged_within_bound(s, "rule-clean reviews")

    def test_burst_of_large_reviews_all_answered_go_client(self):
        """Issue 25: four, then eight rule-clean 3.8 MB reviews (and four 4.1 MB rule-breaking ones) posted at once by
        Go's HTTP client, as kube-apiserver's webhook client sends them, each on its own connection: every one is
        answered, 200 or 503 with Retry-After; none is closed without an answer (a reset is a refused Pod)."""
        BUILD_APISERVER()  # the Go client, built once per work directory
        s = self.start("burst")
        for name, body, n in (("clean", clean_review(3800 * 1000), 4), ("clean", clean_review(3800 * 1000), 8),
                              ("breaking", breaking_review(4100 * 1000), 4)):
            path = os.path.join(s.dir, "%s.json" % name)
            with open(path, "wb") as f:
                f.write(body)
            p = run_e2e.apiserver(s, "validate", [path], "-mode", "burst", "-conns", str(n), check=False)
            out = json.loads(p.stdout)
            print("burst of %d %s reviews: %s" % (n, name, p.stdout.strip()), file=sys.stderr)
            self.assertEqual(out["failed"], 0, out["errors"])
            self.assertEqual(out["ok"] + out["shed"], n, out)
            self.assertGreaterEqual(out["ok"], 1, out)
            self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(self.good(s), 200)
        self.assertEqual(s.stop(), 0)

    def test_large_koordinator_pod_with_inventory_bounded(self):
        """A 2.9 MB Pod of ~23k Koordinator containers, judged against an inventory: it is one Pod-level request
        (total gpu.shared ~29k devices, no node has them: denied infeasible), and naming its containers together costs
        memory linear in their names (joined one by one, it took 3.5 GB)."""
        inv = os.path.join(WORK, "koord-inventory.yaml")
        with open(inv, "w") as f:
            f.write("kind: GPUInventory\nnodes:\n- {name: a, gpus: {count: 8, memory: 80Gi}}\n")
        s = self.start("bigkoord", "--inventory", inv)
        answer, _ = post_until_judged(s, koord_containers_review(2900 * 1000))
        self.assertFalse(answer["allowed"])
        self.assertIn("infeasible", answer["status"]["message"])
        self.judged_within_bound(s, "a Koordinator Pod of many containers")

    # ---- answers never read ------------------------------------------------------------------------------------

    def flood_healthz(self, sock):
        """Pipelines GET /healthz on sock, never reading, until the server stops taking requests (its answers fill
        every buffer between the two ends, so h2o stops reading)."""
        sock.settimeout(2)
        chunk = b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n" * 512
        sent = 0
        try:
            for _ in range(4096):  # bounded: ~70 MB of requests at most
                sock.sendall(chunk)
                sent += len(chunk)
        except (socket.timeout, ConnectionError, ssl.SSLError, OSError) as e:
            print("pipelined %d KiB of /healthz before %s" % (sent >> 10, type(e).__name__), file=sys.stderr)

    def hung_up(self, sock):
        """Whether the peer closed or reset the connection, looked at without reading (data is still queued)."""
        p = select.poll()
        p.register(sock.fileno(), select.POLLRDHUP | select.POLLHUP | select.POLLERR)
        return any(ev & (select.POLLRDHUP | select.POLLHUP | select.POLLERR) for _, ev in p.poll(0))

    def small_rcvbuf_socket(self):
        c = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        c.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # answers back up sooner
        return c

    def test_pipelined_answers_never_read_meet_the_stall_deadline(self):
        """Clients that pipeline /healthz on keep-alive connections and never read the answers are closed by the
        stall deadline like a review client, on both ports (they would otherwise keep their slots)."""
        s = self.start("noreadhealth", "--max-connections", "8", "--request-timeout", "1s")
        ctx = tls_context(os.path.join(self.certs, "ca.crt"))
        hooks, probes = [], []

        def attack(port, conns, wrap):
            c = self.small_rcvbuf_socket()
            c.connect(("127.0.0.1", port))
            c = wrap(c)
            conns.append(c)
            self.flood_healthz(c)  # at once: a connection left without a request would be closed as idle

        threads = [threading.Thread(target=attack, args=(s.port, hooks, lambda c: ctx.wrap_socket(c, server_hostname=SERVER_NAME)))
                   for _ in range(4)]
        threads += [threading.Thread(target=attack, args=(s.metrics_port, probes, lambda c: c)) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        # Closed by the server while the clients keep them open and unread: the slots are free again.
        wait_for(lambda: s.metrics()["gpuadmit_connections"] == 0, "webhook connections closed by the stall deadline")
        for c in hooks + probes:
            wait_for(lambda: self.hung_up(c), "connection closed by the server")
        m = s.metrics()
        self.assertEqual(m["gpuadmit_connections_shed_total"], 0, "closed by the deadline, not the byte budget")
        self.assertEqual(self.good(s), 200)
        for c in hooks + probes:
            c.close()
        self.assertEqual(s.stop(), 0)

    # ---- descriptors ----------------------------------------------------------------------------------------------

    def test_emfile_pauses_accepting(self):
        s = self.start("emfile", "--handshake-timeout", "60s", "--threads", "1",
                       wrap=("prlimit", "--nofile=20:48", "--"))
        with open("/proc/%d/limits" % s.proc.pid) as f:
            files = [l for l in f if l.startswith("Max open files")][0].split()
        self.assertEqual(files[3:5], ["48", "48"], "the soft limit is raised to the hard limit")
        keep = raw_connect(s)
        body = json.dumps(review(KOORD_RATIO)).encode()
        keep.sendall(http_request(None, "/validate", body))
        self.assertEqual(read_response(keep)[0], 200)
        flood = [socket.create_connection(("127.0.0.1", s.port), timeout=5) for _ in range(80)]
        s.wait_log(lambda l: l.get("msg", "").startswith("accepting paused") and l.get("error") == "EMFILE", 60)
        # Paused, not spinning: over a second of pause the server uses a small part of one core.
        before, t0 = cpu_seconds(s.proc.pid), time.time()
        time.sleep(1.0)
        used = cpu_seconds(s.proc.pid) - before
        print("emfile: %.2f s of CPU in %.2f s paused" % (used, time.time() - t0), file=sys.stderr)
        self.assertLess(used, 0.3)
        # The connection already open is served while accepting is paused.
        keep.sendall(http_request(None, "/validate", body))
        self.assertEqual(read_response(keep)[0], 200)
        for c in flood:
            c.close()
        keep.close()
        # Descriptors free: accepting resumes by itself.
        wait_for(lambda: s.metrics()["gpuadmit_connections"] == 0, "flood connections closed")
        wait_for(lambda: self.good(s) == 200, "a new connection served")
        self.assertGreaterEqual(s.metrics()['gpuadmit_accept_pauses_total{reason="EMFILE"}'], 1)
        self.assertEqual(s.stop(), 0)

    # ---- framing (RFC 9112) ----------------------------------------------------------------------------------------

    def exchange_then_closed(self, s, raw):
        sock = raw_connect(s)
        sock.sendall(raw)
        out = read_response(sock)
        rest = recv_all(sock)
        sock.close()
        return out[0], rest

    def test_framing(self):
        cap = 64 * 1024
        s = self.start("framing", "--max-body-bytes", "64Ki")
        good = json.dumps(review(KOORD_RATIO)).encode()
        smuggled = http_request(None, "/validate", good)
        # Content-Length with Transfer-Encoding: 400, and the bytes after the chunked body never become a request.
        chunked = b"%x\r\n%s\r\n0\r\n\r\n" % (len(good), good)
        raw = (b"POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n"
               b"Transfer-Encoding: chunked\r\n\r\n" % len(chunked)) + chunked + smuggled
        status, rest = self.exchange_then_closed(s, raw)
        self.assertEqual(status, 400)
        self.assertEqual(rest, b"", "closed after the 400: no second answer")
        # Two different Content-Lengths: 400 and close.
        raw = (b"POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n"
               b"Content-Length: %d\r\n\r\n" % (len(good), len(good) + 10)) + good + b" " * 10
        status, rest = self.exchange_then_closed(s, raw)
        self.assertEqual((status, rest), (400, b""))
        # The same on the metrics port.
        plain = socket.create_connection(("127.0.0.1", s.metrics_port), timeout=5)
        plain.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nabc")
        self.assertEqual(read_response(plain)[0], 400)
        self.assertTrue(closed_by_server(plain))
        # Content-Length one above the cap: 413 from the header alone, no byte of the body sent.
        sock = raw_connect(s)
        sock.sendall(b"POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n"
                     % (cap + 1))
        self.assertEqual(read_response(sock)[0], 413)
        sock.close()
        # Identical repeated Content-Lengths are one length (RFC 9112 allows them): answered.
        raw = (b"POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n"
               b"Content-Length: %d\r\nConnection: close\r\n\r\n" % (len(good), len(good))) + good
        self.assertEqual(self.exchange_then_closed(s, raw)[0], 200)
        self.assertGreaterEqual(s.metrics()['gpuadmit_http_rejections_total{code="400"}'], 3)
        self.assertEqual(s.stop(), 0)

    # ---- NUL inside strings ------------------------------------------------------------------------------------------

    def test_nul_in_strings(self):
        s = self.start("nul")
        rv = review(MEM_AND_RATIO)
        rv["request"]["namespace"] = "kube-system\u0000x"
        status, text, _ = post(s, "/validate", json.dumps(rv).encode())
        self.assertEqual(status, 400, text)  # never read as kube-system (excluded, admitted untouched)
        self.assertIn("request.namespace", text)
        rv = review(MEM_AND_RATIO)
        del rv["request"]["namespace"]
        rv["request"]["object"]["metadata"]["namespace"] = "kube-system\u0000x"
        status, text, _ = post(s, "/validate", json.dumps(rv).encode())
        self.assertEqual(status, 200, text)  # an object it cannot read: denied with code 400, not admitted
        answer = json.loads(text)["response"]
        self.assertFalse(answer["allowed"], text)
        self.assertEqual(answer["status"]["code"], 400, text)
        self.assertIn("metadata.namespace", text)
        rv = review(KOORD_RATIO)
        rv["request"]["uid"] = "abc\u0000def"
        status, text, _ = post(s, "/mutate", json.dumps(rv).encode())
        self.assertEqual(status, 200, text)
        self.assertEqual(json.loads(text)["response"]["uid"], "abc\u0000def", "echoed whole")
        rv["kind"] = "AdmissionReview\u0000x"
        self.assertEqual(post(s, "/mutate", json.dumps(rv).encode())[0], 400)
        self.assertEqual(s.stop(), 0)


if __name__ == "__main__":
    run_e2e.build_apiserver = lambda: None
    unittest.main(argv=[sys.argv[0], "-v", *sys.argv[1:]])
