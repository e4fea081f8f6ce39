"""What the benchmark scripts share: the end-to-end helpers' environment, and one way to measure a command."""
import os
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def use_e2e(gpuadmit, work):
    """Points tests/e2e's helpers (which read the environment at import) at this binary and scratch directory, and puts
    them on the path: import run_e2e, run_attack or run_cluster afterwards."""
    os.makedirs(work, exist_ok=True)
    os.environ["GPUADMIT"] = gpuadmit
    os.environ["E2E_WORK"] = work
    sys.path.insert(0, os.path.join(HERE, "..", "tests", "e2e"))


def measured(argv):
    """Runs argv: (seconds, peak RSS in MiB, bytes printed on stdout, exit code). The peak is the child's VmHWM read
    until it exits (rusage's maxrss would count this process's memory, which the child held between fork and exec)."""
    t0 = time.monotonic()
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    out = []
    reader = threading.Thread(target=lambda: out.append(p.stdout.read()))
    reader.start()
    peak = 0
    while p.poll() is None:
        try:
            with open("/proc/%d/status" % p.pid) as f:
                for line in f:
                    if line.startswith("VmHWM:"):
                        peak = max(peak, int(line.split()[1]))
        except (OSError, ValueError):
            pass
        time.sleep(0.002)
    reader.join()
    return time.monotonic() - t0, peak / 1024, len(out[0]), p.returncode
