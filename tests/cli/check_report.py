#!/usr/bin/env python3
"""Checks `gpuadmit validate -o json` output for the CLI tests (tests/cli.cmake).

  check_report.py schema REPORT.json             the README.md#the-cli schema, every element
  check_report.py same A.json B.json             same verdicts, ignoring "source" (YAML vs JSON input)
  check_report.py expect REPORT.json allowed     every element allowed
  check_report.py expect REPORT.json RULE        every element denied, each with a deny finding of RULE
  check_report.py many CMD ARG ARG [CMD ARG ARG]...   several `same`/`expect` checks in one process
"""
import json
import sys


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def load(path):
    try:
        with open(path) as f:
            data = json.load(f)
    except ValueError as e:
        fail("%s is not JSON: %s" % (path, e))
    if not isinstance(data, list):
        fail("%s: top level is not an array" % path)
    return data


def check_type(where, value, types):
    if not isinstance(value, types):
        fail("%s: %r is not %s" % (where, value, types))


def schema(path):
    data = load(path)
    for i, el in enumerate(data):
        w = "%s[%d]" % (path, i)
        check_type(w, el, dict)
        want = {"source", "kind", "namespace", "name", "allowed", "violations", "warnings", "mutations"}
        if el.get("excluded") is True:  # only for an object of an excluded namespace
            want.add("excluded")
        if set(el) != want:
            fail("%s: keys %s, want %s" % (w, sorted(el), sorted(want)))
        for k in ("source", "kind", "namespace", "name"):
            check_type(w + "." + k, el[k], str)
        check_type(w + ".allowed", el["allowed"], bool)
        for k in ("warnings", "mutations"):
            check_type(w + "." + k, el[k], list)
            for s in el[k]:
                check_type(w + "." + k + "[]", s, str)
        check_type(w + ".violations", el["violations"], list)
        denies = 0
        for j, v in enumerate(el["violations"]):
            vw = "%s.violations[%d]" % (w, j)
            check_type(vw, v, dict)
            want = {"rule", "container", "path", "resources", "message", "action"}
            if set(v) != want:
                fail("%s: keys %s, want %s" % (vw, sorted(v), sorted(want)))
            for k in ("rule", "path", "message"):
                check_type(vw + "." + k, v[k], str)
                if not v[k]:
                    fail("%s.%s is empty" % (vw, k))
            check_type(vw + ".container", v["container"], (str, type(None)))
            check_type(vw + ".resources", v["resources"], list)
            if v["action"] not in ("deny", "warn"):
                fail("%s.action is %r" % (vw, v["action"]))
            denies += v["action"] == "deny"
        if el["allowed"] != (denies == 0):
            fail("%s: allowed=%s with %d deny findings" % (w, el["allowed"], denies))
    print("schema ok: %d objects" % len(data))


def strip(data):
    return [{k: v for k, v in el.items() if k != "source"} for el in data]


def same(a, b):
    da, db = strip(load(a)), strip(load(b))
    if da != db:
        fail("%s and %s differ:\n%s\n%s" % (a, b, json.dumps(da, indent=1), json.dumps(db, indent=1)))
    print("same: %d objects" % len(da))


def expect(path, what):
    data = load(path)
    if not data:
        fail("%s: no objects" % path)
    for el in data:
        name = "%s %s/%s" % (el["source"], el["kind"], el["name"])
        rules = [v["rule"] for v in el["violations"] if v["action"] == "deny"]
        if what == "allowed":
            if not el["allowed"]:
                fail("%s: denied (%s), expected allowed" % (name, ", ".join(rules)))
        elif el["allowed"] or what not in rules:
            fail("%s: expected denied by %s, got allowed=%s rules=%s" % (name, what, el["allowed"], rules))
    print("expect %s ok: %d objects" % (what, len(data)))


def many(args):
    """Runs every check, reports each failure, fails at the end if any failed (one process: tests stay fast)."""
    failed = 0
    for i in range(0, len(args), 3):
        cmd, a, b = args[i:i + 3]
        try:
            (same if cmd == "same" else expect)(a, b)
        except SystemExit as e:
            if e.code:
                failed += 1
    if failed:
        fail("%d of %d checks failed" % (failed, len(args) // 3))


if __name__ == "__main__":
    cmd = sys.argv[1] if len(sys.argv) > 1 else ""
    if cmd == "schema" and len(sys.argv) == 3:
        schema(sys.argv[2])
    elif cmd == "same" and len(sys.argv) == 4:
        same(sys.argv[2], sys.argv[3])
    elif cmd == "expect" and len(sys.argv) == 4:
        expect(sys.argv[2], sys.argv[3])
    elif cmd == "many" and len(sys.argv) > 2 and (len(sys.argv) - 2) % 3 == 0:
        many(sys.argv[2:])
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
