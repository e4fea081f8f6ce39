#!/usr/bin/env python3
"""Runs ctest's tests under Valgrind memcheck: zero errors and zero definite or indirect leaks, or it fails.

    tests/valgrind/memcheck.py BUILD_DIR [-L REGEX] [-j N] [-E REGEX]

BUILD_DIR must be a build without sanitizers (ASan and Valgrind do not mix). The tests are those ctest lists
for the label regex (default: unit, cli, suites and cases: the unit tests, the CLI tests, the example suites and
the case directories; and memcheck: other tests that ask for it, such as the cluster paths against the fake API
server), each run as ctest would (command, environment, working directory), with:

- a test whose command is a program of the build (the unit tests, `gpuadmit test ...`) run under valgrind;
- every other mention of the built gpuadmit (the CLI tests' bash script gets its path as an argument; the unit
  tests that run the binary find it through GPA_BINARY_DIR; the e2e scripts through an environment variable such
  as GPUADMIT) replaced by a wrapper that runs it under valgrind, so each gpuadmit a script starts is checked too,
  not the shell, python or Go around it.

Each valgrind process writes its own log (BUILD_DIR/memcheck/<test>/vg.<pid>.log, forked Check children
included); a test fails when it fails on its own or when any of its logs reports an error (a leak of kind
definite or indirect counts as one). The e2e, chart and guard tests are not run unless labelled memcheck: they
start servers, Go and linters, which Valgrind would only slow down (the server is covered by the soak, tests/soak/);
those labelled memcheck are the cluster paths (audit, fit --cluster, serve --cluster-inventory) against the fake
API server, with waits long enough for Valgrind (tests/live.cmake).
"""
import argparse
import concurrent.futures
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import time

VALGRIND = [
    "valgrind", "--tool=memcheck", "--error-exitcode=99", "--leak-check=full",
    "--errors-for-leak-kinds=definite,indirect", "--show-leak-kinds=definite,indirect", "--track-origins=yes",
    "--num-callers=30",
    "--suppressions=" + os.path.join(os.path.dirname(os.path.abspath(__file__)), "h2o.supp"),
]
ERRORS = re.compile(r"ERROR SUMMARY: ([1-9][0-9]*) errors")


def listed_tests(build, labels, exclude):
    cmd = ["ctest", "--test-dir", build, "--show-only=json-v1", "-L", labels]
    if exclude:
        cmd += ["-E", exclude]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out)["tests"]


def safe_name(name):
    return re.sub(r"[^A-Za-z0-9_.-]", "_", name)


def wrapper(bindir, program, logs_var):
    """A script named like `program` that runs it under valgrind, logging where $logs_var says."""
    os.makedirs(bindir, exist_ok=True)
    path = os.path.join(bindir, os.path.basename(program))
    opts = " ".join(VALGRIND)
    with open(path, "w") as f:
        f.write(f'#!/bin/sh\nexec {opts} --log-file="${{{logs_var}}}/vg.%p.log" "{program}" "$@"\n')
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


def run_one(test, build, out):
    name = test["name"]
    props = {p["name"]: p["value"] for p in test.get("properties", [])}
    logs = os.path.join(out, "logs", safe_name(name))
    shutil.rmtree(logs, ignore_errors=True)
    os.makedirs(logs)
    env = dict(os.environ)
    for item in props.get("ENVIRONMENT", []):
        key, _, value = item.partition("=")
        env[key] = value
    env["GPA_MEMCHECK_LOGS"] = logs
    # Valgrind runs code 20-50x slower, more on a loaded machine: Check's per-test timeouts (4 s by default) are
    # for catching hangs, not for timing, so they stretch by as much (a property test timed out in CI otherwise).
    env.setdefault("CK_TIMEOUT_MULTIPLIER", "20")
    # The same for the API client's connect timeout (10 s, TLS handshake included): on a loaded machine a handshake
    # under Valgrind took longer, and audit against the fake API server failed with "SSL connection timeout".
    env.setdefault("GPA_KUBE_CONNECT_TIMEOUT_MS", "300000")
    built = os.path.join(build, "gpuadmit")
    bindir = os.path.join(out, "bin")
    if env.get("GPA_BINARY_DIR") == build:
        env["GPA_BINARY_DIR"] = bindir
    for key, value in list(env.items()):  # GPUADMIT=... of the e2e scripts
        if value == built:
            env[key] = os.path.join(bindir, "gpuadmit")
    cmd = list(test["command"])
    if os.path.dirname(os.path.abspath(cmd[0])) == os.path.abspath(build):
        cmd = VALGRIND + [f"--log-file={logs}/vg.%p.log"] + cmd
    else:
        cmd = [os.path.join(bindir, "gpuadmit") if arg == built else arg for arg in cmd]
    start = time.monotonic()
    proc = subprocess.run(cmd, cwd=props.get("WORKING_DIRECTORY", build), env=env, capture_output=True, text=True,
                          timeout=float(props.get("TIMEOUT", 1500)))
    seconds = time.monotonic() - start
    reports = []
    for log in sorted(os.listdir(logs)):
        text = open(os.path.join(logs, log), errors="replace").read()
        if ERRORS.search(text):
            reports.append((log, text))
    return name, proc, reports, seconds


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("build")
    ap.add_argument("-L", dest="labels", default="^(unit|cli|suites|cases|memcheck)$")
    ap.add_argument("-E", dest="exclude", default="")
    ap.add_argument("-j", dest="jobs", type=int, default=os.cpu_count() or 1)
    args = ap.parse_args()
    build = os.path.abspath(args.build)
    out = os.path.join(build, "memcheck")
    wrapper(os.path.join(out, "bin"), os.path.join(build, "gpuadmit"), "GPA_MEMCHECK_LOGS")
    tests = listed_tests(build, args.labels, args.exclude)
    if not tests:
        sys.exit(f"memcheck: no test matches -L {args.labels} in {build}")
    start = time.monotonic()
    failed = []
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for name, proc, reports, seconds in pool.map(lambda t: run_one(t, build, out), tests):
            ok = proc.returncode == 0 and not reports
            print(f"{'ok  ' if ok else 'FAIL'} {name} ({seconds:.1f} s)", flush=True)
            if ok:
                continue
            failed.append(name)
            if proc.returncode != 0:
                print(f"  exit {proc.returncode}\n{proc.stdout[-4000:]}{proc.stderr[-4000:]}")
            for log, text in reports:
                print(f"  --- {log}\n{text[-8000:]}")
    total = time.monotonic() - start
    print(f"memcheck: {len(tests) - len(failed)}/{len(tests)} tests clean under valgrind in {total:.0f} s")
    if failed:
        print("memcheck: errors or leaks in: " + ", ".join(failed))
        sys.exit(1)


if __name__ == "__main__":
    main()
