#!/usr/bin/env python3
"""callgraph.py [--sources DIR] OBJECT...: the explorer's files call, and
include, one another one way.

Reads the objects' symbols with nm (one run): the functions and data it defines,
and the ones it uses but does not define. File A calls file B when A uses
a symbol B defines. Prints that graph, one file a line, and exits 1 if it
has a cycle (a file that calls, directly or through others, a file that
calls it back), naming the files of each cycle; if a file calls a file
in a later layer than its own (LAYERS, REFERENCE.md's "The calls go one
way"), naming both; or if one of the explorer's own files lies in a folder
that is no layer (a new folder must take its place in LAYERS), naming it.
With --sources (the explorer's folder), it reads every source and header
there too, and exits 1 if one includes a header of a later layer than its
own, naming both (a header at the top, such as model.h, is shared by every
layer and includes none of theirs): a call up the layering can hide in a
header that only declares, and a layer that sees another's types is tied
to it. Else prints the files from the bottom up, each after every file it
calls. Standard library only.
"""
import argparse
import re
import subprocess
import sys
from pathlib import Path


# The explorer's folders as layers, earliest first: a file calls files of
# its own folder and of earlier ones, never of a later one. An object of a
# source outside tests/explore (common's coro.c, executor.c) is checked for
# cycles only; one of the explorer's own in no folder of these fails.
LAYERS = ("core", "search", "model", "scheduler", "memory", "hooks", "report", "run")


def symbols(objects):
    """{object: (defined, used) symbol names}, from one nm run over them all
    (nm heads each object's lines with "PATH:" when given several)."""
    out = subprocess.run(["nm", *map(str, objects)], capture_output=True, text=True, check=True).stdout
    table = {obj: (set(), set()) for obj in objects}
    by_name = {str(obj): obj for obj in objects}
    defined, used = table[objects[0]]
    for line in out.splitlines():
        if line.endswith(":") and line[:-1] in by_name:
            defined, used = table[by_name[line[:-1]]]
            continue
        parts = line.split()
        if len(parts) == 2 and parts[0] == "U":
            used.add(parts[1])
        elif len(parts) == 3 and parts[1] in "TDBRS":
            defined.add(parts[2])
    return table


def is_explorers(obj):
    """Whether obj is of one of the explorer's own sources: CMake puts the
    object of a source outside the target's folder under "__" (".../
    lockstep_explore.dir/__/__/common/src/coro.c.o"), its own beside it
    (".../lockstep_explore.dir/scheduler/thread.c.o")."""
    parts = obj.parts
    at = max((i for i, part in enumerate(parts) if part.endswith(".dir")), default=None)
    return at is not None and "__" not in parts[at + 1:]


def file_of(obj):
    """"build/.../scheduler/thread.c.o" -> "scheduler/thread.c" (its folder
    and name, as in the source tree); "coro.c" for a source outside the
    explorer's folders."""
    name = obj.stem if obj.suffix == ".o" else obj.name
    in_folder = is_explorers(obj) and not obj.parent.name.endswith(".dir")
    return f"{obj.parent.name}/{name}" if in_folder else name


def outside_layers(objects):
    """The explorer's own files whose folder is no layer ("util/x.c"), or
    which lie in no folder at all."""
    return sorted(file_of(obj) for obj in objects if is_explorers(obj) and layer_of(file_of(obj)) is None)


def layer_of(f):
    """"scheduler/thread.c" -> its place in LAYERS; None outside them."""
    folder = f.split("/")[0] if "/" in f else None
    return LAYERS.index(folder) if folder in LAYERS else None


def later_calls(graph):
    """(caller, callee) for each call into a later layer than the caller's."""
    return [(f, g) for f in sorted(graph) for g in graph[f]
            if layer_of(f) is not None and layer_of(g) is not None and layer_of(g) > layer_of(f)]


def cycles(graph):
    """The strongly connected components of more than one file (Tarjan)."""
    index, low, stack, on, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def bottom_up(graph):
    order, seen = [], set()

    def visit(v):
        if v not in seen:
            seen.add(v)
            for w in graph[v]:
                visit(w)
            order.append(v)

    for v in sorted(graph):
        visit(v)
    return order


def call_graph(objects):
    """Each object's file -> the other files whose symbols it uses, sorted."""
    owner, uses = {}, {}
    for obj, (defined, used) in symbols(objects).items():
        uses[file_of(obj)] = used
        for name in defined:
            owner[name] = file_of(obj)
    return {f: sorted({owner[s] for s in used if s in owner and owner[s] != f}) for f, used in uses.items()}


INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def later_includes(root):
    """(file, header) for each #include "header" in root's sources and
    headers that names a header of a later layer than the file's; a header
    at the top of root (layer -1: shared) may include none of the layers'."""
    found = []
    for path in sorted(root.rglob("*.[ch]")):
        f = path.relative_to(root).as_posix()
        own = layer_of(f)
        if own is None and "/" in f:
            continue  # scenarios, litmus: programs on top of the explorer, not layers of it
        for name in INCLUDE.findall(path.read_text()):
            target = name if (root / name).exists() else (path.parent / name).relative_to(root).as_posix()
            theirs = layer_of(target)
            if theirs is not None and (own is None or theirs > own):
                found.append((f, target))
    return found


def print_graph(graph):
    for f in sorted(graph, key=lambda f: (layer_of(f) if layer_of(f) is not None else -1, f)):
        print(f"{f:22} calls {' '.join(graph[f]) or '(none of the others)'}")


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split(": ", 1)[1],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sources", type=Path, metavar="DIR",
                   help="the explorer's folder (tests/explore): check its #includes too")
    p.add_argument("objects", nargs="+", type=Path, metavar="OBJECT",
                   help="the explorer library's object files ($<TARGET_OBJECTS:lockstep_explore>)")
    return p.parse_args()


def main():
    args = parse_args()
    objects = args.objects
    graph = call_graph(objects)
    print_graph(graph)
    found = cycles(graph)
    for component in found:
        print(f"callgraph: FAILED: a call cycle among {', '.join(component)}")
    later = later_calls(graph)
    for f, g in later:
        print(f"callgraph: FAILED: {f} calls {g}, in a later layer ({' < '.join(LAYERS)}): "
              "a file calls only its own folder and earlier ones")
    strays = outside_layers(objects)
    for f in strays:
        print(f"callgraph: FAILED: {f} is in no layer ({' < '.join(LAYERS)}): its folder must take its place "
              "in callgraph.py's LAYERS")
    includes = later_includes(args.sources) if args.sources else []
    for f, header in includes:
        print(f"callgraph: FAILED: {f} includes {header}, of a later layer ({' < '.join(LAYERS)}): "
              "a file includes headers of its own folder, earlier ones and the shared ones at the top only")
    if found or later or strays or includes:
        return 1
    print("callgraph: no call cycle, no call into a later layer" + (", no include of one" if args.sources else "") +
          "; from the bottom up: " + " ".join(bottom_up(graph)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
