#!/usr/bin/env python3
"""Check the folder dependency graph: every quoted #include against layers.json.

Usage: scripts/check-layers.py [--root DIR] [--data FILE] [--graph | --make]
  --root DIR   the tree to check (default: the repository holding this script)
  --data FILE  the layers file (default: DIR/layers.json)
  --graph      print the folder graph the includes make (edges with counts) and its cycles,
               instead of checking it against the data
  --make       print the include path of each folder's objects as make rules, instead of
               checking (the Makefile includes them: see "Include paths" below)

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

Include paths: the compiler holds each folder to the data too. A folder's objects see the
header directories of the folder itself, of the folders it may include, and of the folders the
headers it may include include in turn (a header of catalog's that names a base type needs
base to compile, whoever includes it); -I$(GEN) when that reaches the folder owning the .proto
files. --make prints, for every folder that may not include anything, a pattern-specific make
variable over its objects, the most specific folder winning as layers.json's longest path does:
  $(BUILD)/obj/FOLDER/%.o: private FOLDER_INCS := -IDIR ...
Here the tree is every file under DIR (not only git's), so a header just added counts.

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


def list_files(root, use_git=True):
    """Source files and .proto files, relative to root: git's when root is a work tree (and
    use_git), else every one under root but build/ and dot folders."""
    try:
        if not use_git:
            raise OSError("walk the tree")
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

    def __init__(self, root, layers, use_git=True):
        self.errors = []
        self.includes = []  # (file, line, header, from_folder, to_folder)
        self.header_includes = {}  # header path -> the paths of the headers it includes
        files = list_files(root, use_git)
        self.files = set(files)
        by_name = {}
        for p in files:
            if p.endswith(SOURCE_EXT):
                by_name.setdefault(os.path.basename(p), []).append(p)
        self.owner = {}  # generated header name -> folder
        self.proto = {}  # generated header name -> its .proto
        for p in files:
            if p.endswith(".proto"):
                gen = os.path.basename(p)[:-len(".proto")] + ".pb-c.h"
                self.owner[gen] = layers.folder_of(p)
                self.proto[gen] = p
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
                target = self._path_of(path, header, by_name, system)
                if path.endswith(".h") and target is not None:
                    self.header_includes.setdefault(path, set()).add(target)

    def _path_of(self, path, header, by_name, system):
        """The path of the tree's header an include names (a generated one: its .proto), or
        None."""
        if not system:
            beside = os.path.normpath(os.path.join(os.path.dirname(path), header))
            if beside in self.files:
                return beside
        if "/" in header:
            return None
        if header in self.owner:
            return self.proto[header]
        paths = by_name.get(header, [])
        return paths[0] if paths else None

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


def include_paths(layers, tree):
    """For each folder that may not include anything: the -I options of its objects."""
    dirs = {}  # folder -> the directories holding its headers
    protos = set()  # folders owning .proto files (their headers are generated into $(GEN))
    for p in tree.files:
        folder = layers.folder_of(p)
        if p.endswith(".h"):
            dirs.setdefault(folder, set()).add(os.path.dirname(p))
        elif p.endswith(".proto"):
            protos.add(folder)
    out = {}
    for name in layers.folders:
        if name in layers.any:
            continue
        seen = {name} | {b for (a, b) in layers.allowed(debt=True) if a == name}
        todo = [p for p in tree.files
                if p.endswith((".h", ".proto")) and layers.folder_of(p) in seen]
        done = set()
        while todo:
            h = todo.pop()
            if h in done:
                continue
            done.add(h)
            for inc in tree.header_includes.get(h, ()):
                seen.add(layers.folder_of(inc))
                todo.append(inc)
        opts = [f"-I{d}" for f in sorted(seen, key=lambda f: (f != name, f))
                for d in sorted(dirs.get(f, ()))]
        if seen & protos:
            opts.append("-I$(GEN)")
        out[name] = opts
    return out


def print_make(layers, tree):
    print("# Made by scripts/check-layers.py --make from layers.json and the tree's headers: "
          "each folder's objects see only the headers layers.json lets them include.")
    paths = include_paths(layers, tree)
    for name in sorted(paths):
        print(f"$(BUILD)/obj/{name}/%.o: private FOLDER_INCS := {' '.join(paths[name])}")
    owners = sorted({f for f in tree.owner.values() if f in paths})
    if len(owners) == 1:
        print(f"$(BUILD)/obj/gen/%.o: private FOLDER_INCS := {' '.join(paths[owners[0]])}")


def main():
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=here)
    ap.add_argument("--data")
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--graph", action="store_true")
    mode.add_argument("--make", action="store_true")
    args = ap.parse_args()
    data = args.data or os.path.join(args.root, "layers.json")
    layers = Layers(data)
    if layers.errors:
        for e in layers.errors:
            print(e)
        return 1
    tree = Tree(args.root, layers, use_git=not args.make)
    if args.make:
        print_make(layers, tree)
        return 0
    if args.graph:
        print_graph(layers, tree)
        return 0
    return check(layers, tree, data)


if __name__ == "__main__":
    sys.exit(main())
