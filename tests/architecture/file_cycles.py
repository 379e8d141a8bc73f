#!/usr/bin/env python3
"""No two files of a crate import each other, directly or around a longer loop.

For each crate target of the workspace, `cargo modules dependencies` (the cargo-modules tool,
`cargo install cargo-modules --version 0.27.0 --locked`) prints the crate's items and the "uses"
edges between them; each item belongs to the module (the file) that declares it. This script
folds the edges onto modules and reports every strongly connected group of two or more modules,
that is every import cycle between files. Exit status 1 when there is one.

    python3 tests/architecture/file_cycles.py            # every crate target
    python3 tests/architecture/file_cycles.py api-actix  # one package
"""

from __future__ import annotations

import json
import re
import subprocess
import sys

NODE = re.compile(r'^\s*"([^"]+)" \[label="([^"|]*)\|')
EDGE = re.compile(r'^\s*"([^"]+)" -> "([^"]+)" \[label="uses"')


def targets(only: set[str]) -> list[tuple[str, list[str]]]:
    meta = json.loads(subprocess.run(["cargo", "metadata", "--no-deps", "--format-version", "1"],
                                     check=True, capture_output=True, text=True).stdout)
    out = []
    for package in meta["packages"]:
        if only and package["name"] not in only:
            continue
        for target in package["targets"]:
            if "lib" in target["kind"]:
                out.append((f'{package["name"]} (lib)', ["-p", package["name"], "--lib"]))
            elif "bin" in target["kind"]:
                out.append((f'{package["name"]} (bin {target["name"]})',
                            ["-p", package["name"], "--bin", target["name"]]))
    return out


def module_edges(args: list[str]) -> dict[str, set[str]]:
    # With the "owns" edges every module is in the graph, also one that uses nothing itself.
    dot = subprocess.run(["cargo", "modules", "dependencies", *args, "--no-externs", "--no-sysroot"],
                         check=True, capture_output=True, text=True).stdout
    modules: set[str] = set()
    edges: list[tuple[str, str]] = []
    for line in dot.splitlines():
        if m := EDGE.match(line):
            edges.append((m.group(1), m.group(2)))
        elif (m := NODE.match(line)) and m.group(2).split()[-1] in ("mod", "crate"):
            modules.add(m.group(1))

    def module_of(item: str) -> str:
        path = item
        while path not in modules and "::" in path:
            path = path.rsplit("::", 1)[0]
        return path

    graph: dict[str, set[str]] = {m: set() for m in modules}
    for source, target in edges:
        a, b = module_of(source), module_of(target)
        if a != b:
            graph.setdefault(a, set()).add(b)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components of two or more nodes."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0

    def visit(node: str) -> None:
        nonlocal counter
        index[node] = low[node] = counter
        counter += 1
        stack.append(node)
        on_stack.add(node)
        for next_node in sorted(graph.get(node, ())):
            if next_node not in index:
                visit(next_node)
                low[node] = min(low[node], low[next_node])
            elif next_node in on_stack:
                low[node] = min(low[node], index[next_node])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    sys.setrecursionlimit(10_000)
    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def main() -> int:
    status = 0
    for name, args in targets(set(sys.argv[1:])):
        graph = module_edges(args)
        groups = cycles(graph)
        if groups:
            status = 1
            print(f"{name}: {len(groups)} import cycle(s) between files")
            for group in groups:
                members = set(group)
                print("  " + ", ".join(group))
                for a in group:
                    for b in sorted(graph[a] & members):
                        print(f"    {a} -> {b}")
        else:
            print(f"{name}: {len(graph)} modules, no import cycle")
    return status


if __name__ == "__main__":
    sys.exit(main())
