#!/usr/bin/env python3
"""The layers of gpuadmit, enforced: every #include points down (or within its own folder), and no two source
files depend on each other, directly or through others (a module is a .c and its .h).

  base -> document -> kube -> alloc -> policy -> admission   (rules/, the engine: no I/O)
  certs (uses base) ; cluster (the API client: uses the engine) ; webhook (uses the engine, certs, cluster) ;
  cli (uses everything)

Sources also cite the repository's own reference (docs/rules.md ...), never the specification outside it.

usage: check_layers.py SOURCE_DIR     (exit 1 with every offending edge and cycle listed)
"""
import os
import re
import sys

ENGINE = ["base", "document", "kube", "alloc", "policy", "admission"]
# What each front-end folder may include from the engine and from the other front ends.
FRONT = {
    "certs": {"engine": "base", "front": set()},
    "cluster": {"engine": "admission", "front": {"certs"}},
    "webhook": {"engine": "admission", "front": {"certs", "cluster"}},
    "cli": {"engine": "admission", "front": {"certs", "cluster", "webhook"}},
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def folder_of(rel):
    parts = rel.split("/")
    if parts[0] == "rules" and len(parts) > 2:
        return parts[1]
    return parts[0]


def resolve(rel, inc, headers):
    """The repository path an #include "inc" in file rel names, or None (a system header)."""
    for cand in (os.path.join("rules", inc), os.path.join(os.path.dirname(rel), inc)):
        cand = os.path.normpath(cand)
        if cand in headers:
            return cand
    return None


def allowed(src, dst):
    if src == dst:
        return True
    if src in ENGINE:
        return dst in ENGINE and ENGINE.index(dst) < ENGINE.index(src)
    rule = FRONT.get(src)
    if rule is None:
        return True
    if dst in ENGINE:
        return ENGINE.index(dst) <= ENGINE.index(rule["engine"])
    return dst in rule["front"]


def module(path):
    return os.path.splitext(path)[0]


def find_cycles(graph):
    """Strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


# The product documents itself: no text of the repository (docs, README, comments, suites, the chart) cites the
# specification it was built from ("SPEC §3", "SPEC.md"); each points at the repository's own page instead.
TEXT_SUFFIXES = (".c", ".h", ".md", ".yaml", ".yml", ".py", ".sh", ".cmake", ".txt", ".tpl", ".json", ".go", ".mjs")
SKIP_DIRS = {".git", "node_modules"}


def spec_citations():
    me = os.path.relpath(os.path.abspath(__file__))
    out = []
    for d, dirs, names in os.walk("."):
        dirs[:] = sorted(x for x in dirs if x not in SKIP_DIRS and not x.startswith("build"))
        for name in sorted(names):
            rel = os.path.relpath(os.path.join(d, name))
            if rel == me or not (name.endswith(TEXT_SUFFIXES) or name == "CMakeLists.txt"):
                continue
            try:
                lines = open(rel, encoding="utf-8").read().splitlines()
            except (UnicodeDecodeError, OSError):
                continue
            for n, line in enumerate(lines, 1):
                if "SPEC §" in line or "SPEC.md" in line:
                    out.append(f"{rel}:{n}: cites SPEC; cite the repository's own page (docs/rules.md, docs/*.md, README.md)")
    return out


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    os.chdir(root)
    files = []
    for top in ["rules"] + list(FRONT):
        for d, _, names in os.walk(top):
            files += [os.path.join(d, n) for n in names if n.endswith((".c", ".h"))]
    headers = {f for f in files if f.endswith(".h")}
    bad, graph = [], {}
    for rel in sorted(files):
        text = open(rel, encoding="utf-8").read()
        for inc in INCLUDE.findall(text):
            dst = resolve(rel, inc, headers)
            if dst is None:
                continue
            if not allowed(folder_of(rel), folder_of(dst)):
                bad.append(f"{rel}: includes {inc} ({folder_of(rel)} may not use {folder_of(dst)})")
            if module(dst) != module(rel):
                graph.setdefault(module(rel), set()).add(module(dst))
    bad += spec_citations()
    for comp in find_cycles(graph):
        bad.append("files depend on each other in a circle: " + " <-> ".join(comp))
    for line in bad:
        print(line)
    if bad:
        print(f"{len(bad)} layering fault(s): see docs/DEVELOPERS.md for the map")
        return 1
    print(f"layers ok: {len(files)} files, no upward edge, no circle")
    return 0


if __name__ == "__main__":
    sys.exit(main())
