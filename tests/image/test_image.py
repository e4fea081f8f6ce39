#!/usr/bin/env python3
"""The image, built and started as the chart starts it (tests/image.cmake, label `image`).

Builds the Dockerfile with scripts/image.sh into a container storage of its own (vfs, runc, cgroupfs, given
to podman and buildah through CONTAINERS_CONF and CONTAINERS_STORAGE_CONF, as scripts/image.sh expects), then
runs it as uid 65532 with a read-only root filesystem, no capabilities and the host's network: `gpuadmit
version` inside, and `gpuadmit serve` with certificates made by `gpuadmit certs` mounted read-only, sent one
AdmissionReview it allows and one it denies over loopback HTTPS (verified against the CA). Prints the image's
size and fails above the bound docs/deploy.md#the-image states. Everything is removed at the end.

Exit 77 (skipped) when podman, buildah or debootstrap is missing, or when not root outside CI (debootstrap and
the root-owned storage need root; in CI, CI=true, not being root fails). Anything else that goes wrong fails:
a mirror or registry that does not answer, a build that breaks, a container that does not start.
Environment: GPUADMIT_BIN (the host's gpuadmit, for `gpuadmit certs`), GPA_IMAGE_KEEP=1 to keep the storage
directory for a look afterwards.
"""
import copy
import json
import os
import shutil
import socket
import ssl
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GPUADMIT = os.environ.get("GPUADMIT_BIN", "gpuadmit")
MAX_SIZE = 60 * 1000 * 1000  # bytes, uncompressed (docs/deploy.md#the-image)
SERVICE, NAMESPACE = "gpuadmit", "gpu-system"
# How the chart runs the container (charts/gpuadmit/templates/deployment.yaml's securityContext).
AS_CHART = ["--user", "65532:65532", "--read-only", "--cap-drop=ALL", "--network", "host"]


def skip_or_fail(reason):
    if os.environ.get("CI") == "true":
        sys.exit("image: FAILED: " + reason + " (CI must run this test)")
    print("image: skipped: " + reason)
    sys.exit(77)


def run(env, *args, check=True, **kw):
    p = subprocess.run(list(args), env=env, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw)
    if check and p.returncode != 0:
        sys.exit(f"image: FAILED: {' '.join(args)}: exit {p.returncode}\n{p.stdout}{p.stderr}")
    return p


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def post(port, cafile, path, body):
    """POSTs body over HTTPS to 127.0.0.1:port, verifying the server against cafile; returns (status, json)."""
    ctx = ssl.create_default_context(cafile=cafile)
    with socket.create_connection(("127.0.0.1", port), timeout=10) as raw:
        with ctx.wrap_socket(raw, server_hostname="127.0.0.1") as tls:
            data = json.dumps(body).encode()
            tls.sendall(
                f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(data)}\r\nConnection: close\r\n\r\n".encode() + data)
            answer = b""
            while chunk := tls.recv(65536):
                answer += chunk
    head, _, payload = answer.partition(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    return status, json.loads(payload) if status == 200 else payload


def wait_ready(port, cafile, container, env):
    deadline = time.monotonic() + 60
    while True:
        try:
            ctx = ssl.create_default_context(cafile=cafile)
            with socket.create_connection(("127.0.0.1", port), timeout=2) as raw:
                with ctx.wrap_socket(raw, server_hostname="127.0.0.1"):
                    return
        except OSError:
            state = run(env, "podman", "inspect", "--format", "{{.State.Running}}", container, check=False)
            if state.stdout.strip() != "true" or time.monotonic() > deadline:
                logs = run(env, "podman", "logs", container, check=False)
                sys.exit(f"image: FAILED: gpuadmit serve in the image never answered on {port}\n"
                         f"{logs.stdout}{logs.stderr}")
            time.sleep(0.2)


def reviews():
    """One AdmissionReview the default configuration allows and one it denies, from the shipped example."""
    with open(os.path.join(ROOT, "examples/good/admissionreview-v1.json")) as f:
        review = json.load(f)
    allowed = copy.deepcopy(review)
    for side in ("requests", "limits"):
        allowed["request"]["object"]["spec"]["containers"][0]["resources"][side]["koordinator.sh/gpu.shared"] = "1"
    denied = copy.deepcopy(allowed)
    denied["request"]["uid"] = "5a1c7e2b-0000-4000-8000-00000000d3a1"
    for side in ("requests", "limits"):
        denied["request"]["object"]["spec"]["containers"][0]["resources"][side]["koordinator.sh/gpu-core"] = "150"
    return allowed, denied


def main():
    missing = [tool for tool in ("podman", "buildah", "debootstrap") if shutil.which(tool) is None]
    if missing:  # a machine without them skips, even in CI (where scripts/test.sh installs them first)
        print("image: skipped: " + ", ".join(missing) + " not installed (scripts/deps.sh installs them)")
        sys.exit(77)
    if os.geteuid() != 0:
        skip_or_fail("not root (debootstrap and this test's container storage need root)")

    work = tempfile.mkdtemp(prefix="gpuadmit-image.")
    env = dict(os.environ)
    with open(os.path.join(work, "containers.conf"), "w") as f:
        # default_ulimits = []: no RLIMIT the machine's hard limits may refuse to raise.
        f.write('[containers]\ndefault_ulimits = []\n\n'
                '[engine]\nruntime = "runc"\ncgroup_manager = "cgroupfs"\nevents_logger = "file"\n')
    with open(os.path.join(work, "storage.conf"), "w") as f:
        f.write(f'[storage]\ndriver = "vfs"\nrunroot = "{work}/run"\ngraphroot = "{work}/graph"\n')
    env["CONTAINERS_CONF"] = os.path.join(work, "containers.conf")
    env["CONTAINERS_STORAGE_CONF"] = os.path.join(work, "storage.conf")
    env.pop("GPA_IMAGE_REVISION", None)
    container = f"gpuadmit-image-test-{os.getpid()}"
    try:
        # The commit the build is labelled with: read before it starts (a commit may land while it runs).
        head = subprocess.run(["git", "-C", ROOT, "rev-parse", "--verify", "-q", "HEAD"], text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        started = time.monotonic()
        built = subprocess.run([os.path.join(ROOT, "scripts/image.sh")], env=env, text=True,
                               stdout=subprocess.PIPE)
        if built.returncode != 0:
            sys.exit(f"image: FAILED: scripts/image.sh exit {built.returncode}")
        image = built.stdout.strip().splitlines()[-1]
        print(f"image: built {image} in {time.monotonic() - started:.0f} s")

        version = run(env, GPUADMIT, "version").stdout.strip()  # "gpuadmit 0.1.0"
        assert image == "localhost/gpuadmit:" + version.split()[-1], (image, version)
        inspect = json.loads(run(env, "podman", "image", "inspect", image).stdout)[0]
        size = int(inspect["Size"])
        print(f"image: size {size} bytes ({size / 1e6:.1f} MB uncompressed), bound {MAX_SIZE / 1e6:.0f} MB")
        labels = inspect.get("Labels") or inspect["Config"].get("Labels") or {}
        if os.path.exists(os.path.join(ROOT, ".git")) and head.returncode == 0:
            assert labels.get("org.opencontainers.image.revision") == head.stdout.strip(), labels
        else:  # a tree without its own .git (a tarball) is not labelled with a commit
            assert "org.opencontainers.image.revision" not in labels, labels
        assert labels.get("org.opencontainers.image.version") == version.split()[-1], labels
        assert inspect["Config"].get("User") == "65532:65532", inspect["Config"]
        assert size <= MAX_SIZE, f"image is {size} bytes, over {MAX_SIZE}"

        inside = run(env, "podman", "run", "--rm", *AS_CHART, image, "version").stdout.strip()
        assert inside == version, (inside, version)
        # No shell, no package manager in the image: what runs there is gpuadmit alone.
        sh = run(env, "podman", "run", "--rm", *AS_CHART, "--entrypoint", "/bin/sh", image, "-c", "true",
                 check=False)
        assert sh.returncode != 0, "the image has a shell"

        certs = os.path.join(work, "certs")
        run(env, GPUADMIT, "certs", "--service", SERVICE, "--namespace", NAMESPACE, "--out", certs,
            "--extra-san", "127.0.0.1")
        for name in ("tls.crt", "tls.key", "ca.crt"):  # as a Secret volume's files are for the Pod's user
            os.chown(os.path.join(certs, name), 65532, 65532)
        port = free_port()
        run(env, "podman", "run", "-d", "--name", container, *AS_CHART, "-v", f"{certs}:/etc/gpuadmit/tls:ro",
            image, "serve", f"--listen=127.0.0.1:{port}", "--metrics-listen=", "--cert=/etc/gpuadmit/tls/tls.crt",
            "--key=/etc/gpuadmit/tls/tls.key")
        wait_ready(port, os.path.join(certs, "ca.crt"), container, env)

        allowed, denied = reviews()
        status, answer = post(port, os.path.join(certs, "ca.crt"), "/validate", allowed)
        assert status == 200, (status, answer)
        assert answer["response"]["uid"] == allowed["request"]["uid"], answer
        assert answer["response"]["allowed"] is True, answer
        status, answer = post(port, os.path.join(certs, "ca.crt"), "/validate", denied)
        assert status == 200, (status, answer)
        assert answer["response"]["uid"] == denied["request"]["uid"], answer
        assert answer["response"]["allowed"] is False, answer
        assert "per-device-over-100" in answer["response"]["status"]["message"], answer
        print("image: serve in the image allowed and denied as expected")
        print(f"image: passed in {time.monotonic() - started:.0f} s")
    finally:
        run(env, "podman", "rm", "-f", container, check=False)
        if os.environ.get("GPA_IMAGE_KEEP") == "1":
            print(f"image: storage kept in {work}")
        else:
            run(env, "podman", "rmi", "-a", "-f", check=False)
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
