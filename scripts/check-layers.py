#!/usr/bin/env python3
"""Check the folder dependency graph: every quoted #include against layers.json.

Usage: scripts/check-layers.py [--root DIR] [--data FILE] [--graph]
  --root DIR   the tree to check (default: the repository holding this script)
  --data FILE  the layers file (default: DIR/layers.json)
  --graph      print the folder graph the includes make (edges with counts) and its cycles,
               instead of checking it against the data

Every source file (the tracked .c and .h files; without git, every .c and .h under DIR except
build/ and dot folders) belongs to the folder of layers.json with the longest path that holds
it. The build puts every header folder on one flat include path, so "x.h" names the one file
called x.h wherever it lives (a name beside the including file wins, as with the compiler); a
header protoc-c generates from FOLDER/x.proto (x.pb-c.h in build/gen) belongs to FOLDER. An
include from folder A of a header in folder B is allowed when A == B, when A "may include
anything" (tests, benchmarks, tools), or when layers.json lists the edge A -> B. Every include
must name a header that exists.

The allowed edges must not form a cycle, except through edges marked "debt": those are today's
code that a refactor is to remove; they pass, and the summary lists them as warnings.

layers.json:
  {"folders": {
     "FOLDER": {"about": "what it holds",
                "may_include": {"OTHER": "why, one line",
                                "OTHER2": {"reason": "why", "debt": true}}},
     "tests":  {"about": "...", "any": "why it may include anything"}}}

Exit status: 0 when the tree follows the data, 1 on any violation, 2 on a usage error.
"""

import argparse
import json
import os
import re
import subprocess
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s*(?:"([^"]+)"|<([^>]+)>)')
SOURCE_EXT = (".c", ".h")


class Layers:
    """The data file, validated: folders, allowed edges, debt marks."""

    def __init__(self, path):
        self.path = path
        self.errors = []
        self.folders = {}  # name -> about
        self.any = {}  # name -> reason, for folders that may include anything
        self.edges = {}  # (from, to) -> (reason, debt)
        try:
            with open(path, encoding="utf-8") as f:
                data = json.load(f)
        except (OSError, ValueError) as e:
            self.errors.append(f"{path}: cannot read: {e}")
            return
        if isinstance(data, dict) and set(data) - {"about", "folders"}:
            self.errors.append(f"{path}: unknown keys {sorted(set(data) - {'about', 'folders'})}")
        folders = data.get("folders") if isinstance(data, dict) else None
        if not isinstance(folders, dict) or not folders:
            self.errors.append(f'{path}: no "folders" object')
            return
        for name, spec in folders.items():
            self._folder(name, spec)
        for (a, b) in self.edges:
            if b not in self.folders:
                self.errors.append(f"{path}: {a} may include {b}, which is no folder")

    def _folder(self, name, spec):
        where = f"{self.path}: {name}"
        if not isinstance(spec, dict):
            self.errors.append(f"{where}: not an object")
            return
        unknown = set(spec) - {"about", "any", "may_include"}
        if unknown:
            self.errors.append(f"{where}: unknown keys {sorted(unknown)}")
        self.folders[name] = spec.get("about", "")
        if "any" in spec:
            if not isinstance(spec["any"], str) or not spec["any"].strip():
                self.errors.append(f'{where}: "any" needs a reason')
            self.any[name] = spec["any"]
        for to, edge in spec.get("may_include", {}).items():
            reason, debt = edge, False
            if isinstance(edge, dict):
                reason, debt = edge.get("reason"), edge.get("debt", False)
                unknown = set(edge) - {"reason", "debt"}
                if unknown:
                    self.errors.append(f"{where} -> {to}: unknown keys {sorted(unknown)}")
                if not isinstance(debt, bool):
                    self.errors.append(f'{where} -> {to}: "debt" is true or false')
            if not isinstance(reason, str) or not reason.strip():
                self.errors.append(f"{where} -> {to}: the edge needs a one-line reason")
            if to == name:
                self.errors.append(f"{where}: a folder always includes its own headers")
            self.edges[(name, to)] = (reason, debt is True)

    def folder_of(self, path):
        """The longest folder holding path, or None."""
        best = None
        for name in self.folders:
            if path.startswith(name + "/") and (best is None or len(name) > len(best)):
                best = name
        return best

    def allowed(self, debt):
        """The allowed edges, with or without the debt ones."""
        return {e for e, (_, d) in self.edges.items() if debt or not d}


def list_files(root):
    """Source files and .proto files, relative to root: git's when root is a work tree."""
    try:
        top = subprocess.run(["git", "-C", root, "rev-parse", "--show-toplevel"],
                             capture_output=True, text=True, check=True).stdout.strip()
        if os.path.realpath(top) == os.path.realpath(root):
            out = subprocess.run(["git", "-C", root, "ls-files", "-z", "*.c", "*.h", "*.proto"],
                                 capture_output=True, text=True, check=True).stdout
            return sorted(p for p in out.split("\0")
                          if p and os.path.isfile(os.path.join(root, p)))
    except (OSError, subprocess.CalledProcessError):
        pass
    found = []
    for d, dirs, files in os.walk(root):
        rel = os.path.relpath(d, root)
        dirs[:] = [x for x in dirs if not x.startswith(".") and not (rel == "." and x == "build")]
        found += [os.path.normpath(os.path.join(rel, f)) for f in files
                  if f.endswith(SOURCE_EXT + (".proto",))]
    return sorted(found)


class Tree:
    """Every include of every source file, resolved to the file (and folder) it names."""

    def __init__(self, root, layers):
        self.errors = []
        self.includes = []  # (file, line, header, from_folder, to_folder)
        files = list_files(root)
        self.files = set(files)
        by_name = {}
        for p in files:
            if p.endswith(SOURCE_EXT):
                by_name.setdefault(os.path.basename(p), []).append(p)
        self.owner = {}  # generated header name -> folder
        for p in files:
            if p.endswith(".proto"):
                self.owner[os.path.basename(p)[:-len(".proto")] + ".pb-c.h"] = layers.folder_of(p)
        for name, paths in sorted(by_name.items()):
            if name.endswith(".h") and len(paths) > 1:
                self.errors.append(f"{', '.join(paths)}: one header name in several folders "
                                   "(the flat include path needs each name once)")
        self.sources = [p for p in files if p.endswith(SOURCE_EXT)]
        for p in self.sources:
            src = layers.folder_of(p)
            if src is None:
                self.errors.append(f"{p}: in no folder of layers.json (add the folder)")
                continue
            self._scan(root, p, src, by_name, layers)

    def _scan(self, root, path, src, by_name, layers):
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
            for n, text in enumerate(f, 1):
                m = INCLUDE.match(text)
                if not m:
                    continue
                header, system = m.group(1) or m.group(2), m.group(2) is not None
                dst = self._resolve(path, header, by_name, layers, system)
                if dst is None:
                    if not system:
                        self.errors.append(f"{path}:{n}: includes {header}, which is no header "
                                           "of the tree (nor one the build generates)")
                    continue
                self.includes.append((path, n, header, src, dst))

    def _resolve(self, path, header, by_name, layers, system):
        """The folder of the file an include names, or None when it names none of ours."""
        if not system:
            beside = os.path.normpath(os.path.join(os.path.dirname(path), header))
            if beside in self.files:
                return layers.folder_of(beside)
        if "/" in header:
            return None
        if header in self.owner:
            return self.owner[header]
        paths = by_name.get(header, [])
        if len(paths) > 1 and not system:
            self.errors.append(f"{path}: includes {header}, which names several files: "
                               f"{', '.join(paths)}")
        return layers.folder_of(paths[0]) if paths else None


def cycles(edges, limit=200):
    """The elementary cycles of a directed graph, shortest first (at most limit of them)."""
    succ = {}
    for a, b in edges:
        succ.setdefault(a, set()).add(b)
    nodes = sorted(set(a for a, _ in edges) | set(b for _, b in edges))
    found = []
    # Each cycle is found once, from its smallest node, walking only through larger nodes.
    for start in nodes:
        stack = [(start, [start])]
        while stack and len(found) < limit * 4:
            node, path = stack.pop()
            for nxt in sorted(succ.get(node, ()), reverse=True):
                if nxt == start:
                    found.append(path + [start])
                elif nxt > start and nxt not in path:
                    stack.append((nxt, path + [nxt]))
    found.sort(key=lambda c: (len(c), c))
    return found[:limit]


def fmt_cycle(c):
    return " -> ".join(c)


def print_graph(layers, tree):
    counts = {}
    for _, _, _, a, b in tree.includes:
        if a != b:
            counts[(a, b)] = counts.get((a, b), 0) + 1
    lib = {e: n for e, n in counts.items() if e[0] not in layers.any}
    rest = {e: n for e, n in counts.items() if e[0] in layers.any}
    print(f"# folder graph: {len(lib)} edges between library folders "
          f"(plus {len(rest)} from folders that may include anything)")
    for (a, b), n in sorted(lib.items()):
        mark = ""
        if (a, b) in layers.edges:
            mark = "  [debt]" if layers.edges[(a, b)][1] else ""
        else:
            mark = "  [not allowed]"
        print(f"{a} -> {b}  {n}{mark}")
    if rest:
        print("# from folders that may include anything")
        for (a, b), n in sorted(rest.items()):
            print(f"{a} -> {b}  {n}")
    cyc = cycles(set(counts))
    print(f"# cycles: {len(cyc)}")
    for c in cyc:
        print(fmt_cycle(c))
    for e in tree.errors:
        print(f"warning: {e}")


def check(layers, tree, data_path):
    problems = list(tree.errors)
    used = {}
    for path, n, header, a, b in tree.includes:
        if a == b or a in layers.any:
            continue
        if (a, b) in layers.edges:
            used[(a, b)] = used.get((a, b), 0) + 1
            continue
        problems.append(f"{path}:{n}: includes {header} from {b}, which {a} may not include "
                        f"(add the edge to {os.path.basename(data_path)} with a reason, "
                        "or move the code)")
    for c in cycles(layers.allowed(debt=False)):
        problems.append(f"{data_path}: cycle among allowed edges: {fmt_cycle(c)} "
                        '(remove an edge, or mark it "debt": true)')
    warnings = []
    for (a, b), (reason, debt) in sorted(layers.edges.items()):
        if debt:
            n = used.get((a, b), 0)
            warnings.append(f"debt: {a} -> {b} ({n} include{'' if n == 1 else 's'}): {reason}")
        if (a, b) not in used:
            warnings.append(f"unused: {a} -> {b} is allowed but nothing includes across it "
                            f"(delete it from {os.path.basename(data_path)})")
    debt_cycles = cycles(layers.allowed(debt=True))
    for c in debt_cycles:
        warnings.append(f"debt cycle: {fmt_cycle(c)}")
    present = {layers.folder_of(p) for p in tree.sources}
    for name in sorted(set(layers.folders) - present):
        warnings.append(f"folder {name} holds no source file")
    for p in problems:
        print(p)
    for w in warnings:
        print(f"warning: {w}")
    ndebt = sum(1 for _, d in layers.edges.values() if d)
    print(f"{len(layers.folders)} folders, {len(layers.edges)} edges ({ndebt} debt), "
          f"{len(tree.includes)} includes checked: "
          + (f"{len(problems)} violations" if problems else "ok")
          + (f", {len(warnings)} warnings" if warnings else ""))
    return 1 if problems else 0


def main():
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=here)
    ap.add_argument("--data")
    ap.add_argument("--graph", action="store_true")
    args = ap.parse_args()
    data = args.data or os.path.join(args.root, "layers.json")
    layers = Layers(data)
    if layers.errors:
        for e in layers.errors:
            print(e)
        return 1
    tree = Tree(args.root, layers)
    if args.graph:
        print_graph(layers, tree)
        return 0
    return check(layers, tree, data)


if __name__ == "__main__":
    sys.exit(main())
