#!/usr/bin/env python3
"""The layers guard on small trees of its own (check_layers.py): it must see a circle that only symbols close (a
header declaring what another file defines, as rule_checks.h does), an upward use by symbol, and pass a tree whose
uses all point one way.

usage: test_check_layers.py CC     (exit 1 when the guard misjudges a tree)
"""
import os
import subprocess
import sys
import tempfile

GUARD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "check_layers.py")

# A table (table.c) of checks declared in checks.h and defined in family.c; the family reads a setting of config.c;
# config.c sizes itself by the table. No include closes the circle: table.c includes checks.h, family.c config.h.
CIRCLE = {
    "rules/policy/checks.h": "void gpa_check_one(void);\n",
    "rules/policy/config.h": "int gpa_config_known(int x);\n",
    "rules/policy/config.c": '#include "policy/config.h"\nextern const int gpa_ntable;\n'
    "int gpa_config_known(int x) { return x < gpa_ntable; }\n",
    "rules/policy/table.c": '#include "policy/checks.h"\nvoid (*const gpa_table[])(void) = {gpa_check_one};\n'
    "const int gpa_ntable = 1;\n",
    "rules/policy/family.c": '#include "policy/checks.h"\n#include "policy/config.h"\n'
    "void gpa_check_one(void) { (void)gpa_config_known(1); }\n",
}
# The same with the config no longer reading the table: every use points one way.
ONE_WAY = dict(CIRCLE)
ONE_WAY["rules/policy/config.c"] = '#include "policy/config.h"\nint gpa_config_known(int x) { return x < 4; }\n'
# base calling a policy function it declares itself: no include points up, the symbol does.
UPWARD = dict(ONE_WAY)
UPWARD["rules/base/low.c"] = "int gpa_config_known(int x);\nint gpa_low(void) { return gpa_config_known(0); }\n"


def judge(cc, tree, with_objects=True):
    """(exit status, output) of the guard on tree, its objects built with cc."""
    with tempfile.TemporaryDirectory() as root:
        objects = []
        for rel, text in tree.items():
            path = os.path.join(root, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
        for rel in tree:
            if rel.endswith(".c"):
                obj = os.path.join(root, "build", "CMakeFiles", "lib.dir", rel + ".o")
                os.makedirs(os.path.dirname(obj), exist_ok=True)
                subprocess.run([cc, "-c", "-I", os.path.join(root, "rules"), "-o", obj, os.path.join(root, rel)], check=True)
                objects.append(obj)
        args = [";".join(objects)] if with_objects else []
        run = subprocess.run([sys.executable, GUARD, root, *args], capture_output=True, text=True)
        return run.returncode, run.stdout


def main():
    cc = sys.argv[1] if len(sys.argv) > 1 else "cc"
    failures = []

    def expect(name, got, status, text):
        if got[0] != status or text not in got[1]:
            failures.append(f"{name}: expected exit {status} and {text!r}, got exit {got[0]}:\n{got[1]}")

    expect("circle by symbols", judge(cc, CIRCLE), 1, "rules/policy/config -> rules/policy/table (gpa_ntable)")
    expect("circle by symbols", judge(cc, CIRCLE), 1, "rules/policy/family (gpa_check_one)")
    expect("includes only", judge(cc, CIRCLE, with_objects=False), 0, "includes only")
    expect("one way", judge(cc, ONE_WAY), 0, "no upward use, no circle")
    expect("upward use", judge(cc, UPWARD), 1, "rules/base/low.c: uses gpa_config_known of rules/policy/config.c")
    for f in failures:
        print(f)
    if not failures:
        print("guard ok: a circle closed by symbols, an upward use by symbol, a tree that points one way")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
