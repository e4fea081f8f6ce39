#!/usr/bin/env python3
"""The layers of gpuadmit, enforced: every use points down (or within its own folder), and no two source files
depend on each other, directly or through others (a module is a .c and its .h).

A use is an #include, or a symbol one object file references and another defines (read with nm from the object
files given after SOURCE_DIR): a header may declare what another .c defines (rule_checks.h, the families'
checks), so includes alone miss a circle that runs through a table of function pointers or a callback's owner.

  base -> document -> kube -> alloc -> policy -> admission   (rules/, the engine: no I/O)
  certs (uses base) ; cluster (the API client: uses the engine) ; webhook (uses the engine, certs, cluster) ;
  cli (uses everything)

Sources also cite the repository's own reference (docs/rules.md ...), never the specification outside it.

usage: check_layers.py SOURCE_DIR [OBJECT...]   (exit 1 with every offending edge and circle listed)
  OBJECT: object files of the build (an argument may hold several, ;-separated: CMake's $<TARGET_OBJECTS>);
  without them only includes are checked.
"""
import os
import re
import subprocess
import sys
from collections import deque

ENGINE = ["base", "document", "kube", "cel", "inventory", "alloc", "policy", "admission"]
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
        for w in sorted(graph.get(v, ())):
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


def witness(graph, comp):
    """One shortest circle through the first module of comp, each step with why: "a -> b (gpa_x) -> a (#include ...)"."""
    start, members = comp[0], set(comp)
    prev, queue = {start: None}, deque([start])
    while queue:
        v = queue.popleft()
        for w in sorted(graph.get(v, ())):
            if w == start:
                steps, node = [(v, start)], v
                while prev[node] is not None:
                    steps.append((prev[node], node))
                    node = prev[node]
                steps.reverse()
                return start + "".join(f" -> {b} ({graph[a][b]})" for a, b in steps)
            if w in members and w not in prev:
                prev[w] = v
                queue.append(w)
    return " <-> ".join(comp)


def source_of(obj, sources):
    """The source file an object was compiled from: the longest tail of its path, less ".o", naming a source
    (CMake writes build/CMakeFiles/gpa_policy.dir/rules/policy/config.c.o)."""
    parts = os.path.splitext(obj)[0].split(os.sep)
    for i in range(len(parts)):
        cand = "/".join(parts[i:])
        if cand in sources:
            return cand
    return None


def symbol_uses(objects, sources):
    """What the objects define and use, read with nm: (symbol -> sources defining it, source -> symbols it uses)."""
    defined, used, where = {}, {}, {}
    for i in range(0, len(objects), 200):
        try:
            run = subprocess.run(["nm", "-A", "-P", *objects[i : i + 200]], capture_output=True, text=True)
        except OSError as e:
            sys.exit(f"check_layers: cannot run nm: {e}")
        if run.returncode != 0:
            sys.exit(f"check_layers: nm failed: {run.stderr.strip()}")
        for line in run.stdout.splitlines():
            obj, _, rest = line.partition(": ")
            fields = rest.split()
            if len(fields) < 2:
                continue
            if obj not in where:
                where[obj] = source_of(obj, sources)
            src, name, kind = where[obj], fields[0], fields[1]
            if src is None:
                continue
            if kind == "U":
                used.setdefault(src, set()).add(name)
            elif kind.isupper():
                defined.setdefault(name, set()).add(src)
    unknown = sorted(o for o, s in where.items() if s is None)
    if unknown:
        sys.exit(f"check_layers: no source in the tree for {unknown[0]} (and {len(unknown) - 1} more)")
    return defined, used


def objects_of(args):
    """Object paths from the command line, absolute (an argument may hold a ;-separated list)."""
    return sorted({os.path.abspath(o) for arg in args for o in arg.split(";") if o})


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
    objects = objects_of(sys.argv[2:])
    os.chdir(root)
    root = os.getcwd()
    objects = [os.path.relpath(o, root) if o.startswith(root + os.sep) else o for o in objects]
    files = []
    for top in ["rules"] + list(FRONT):
        for d, _, names in os.walk(top):
            files += [os.path.join(d, n) for n in names if n.endswith((".c", ".h"))]
    headers = {f for f in files if f.endswith(".h")}
    bad, graph = [], {}

    def edge(src, dst, why, what):
        if not allowed(folder_of(src), folder_of(dst)):
            bad.append(f"{src}: {what} ({folder_of(src)} may not use {folder_of(dst)})")
        if module(dst) != module(src):
            graph.setdefault(module(src), {}).setdefault(module(dst), why)

    if objects:
        defined, used = symbol_uses(objects, set(files))
        for src in sorted(used):
            for name in sorted(used[src]):
                for dst in sorted(defined.get(name, ())):
                    if dst != src:
                        edge(src, dst, name, f"uses {name} of {dst}")
    for rel in sorted(files):
        text = open(rel, encoding="utf-8").read()
        for inc in INCLUDE.findall(text):
            dst = resolve(rel, inc, headers)
            if dst is not None:
                edge(rel, dst, f"#include \"{inc}\"", f"includes {inc}")
    bad += spec_citations()
    for comp in find_cycles(graph):
        bad.append("files depend on each other in a circle: " + witness(graph, comp))
        if len(comp) > 2:
            bad.append("  one knot of: " + ", ".join(comp))
    for line in bad:
        print(line)
    if bad:
        print(f"{len(bad)} layering fault(s): see docs/DEVELOPERS.md for the map")
        return 1
    uses = f"includes and the symbols of {len(objects)} objects" if objects else "includes only (no objects given)"
    print(f"layers ok: {len(files)} files ({uses}), no upward use, no circle")
    return 0


if __name__ == "__main__":
    sys.exit(main())
