"""The `PROGRAM ARGS...` samples of check_samples.py: a program of the build
tree, found by name, run from its own directory. Also what every kind
shares: the repository's root, the time a command may take, and the
normalization of an output."""
import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 600  # seconds per command: a lab builds a step


def normalize(text, replacements):
    """The output as a reader may see it on any machine: the text the page
    shows, with what differs from machine to machine or run to run made
    the same (string methods: nothing here reads what the program says)."""
    # Paths of this machine (the build tree, a lab's copy and build
    # directory) become the ones the text uses: (absolute path, shown as).
    for path, shown in replacements:
        text = text.replace(path, shown)
    text = without_addresses(text)
    # Trailing blanks are a trace's column padding: invisible on a page,
    # and editors strip them (every line's that a newline ends).
    lines = text.split("\n")
    text = "\n".join([line.rstrip(" \t") for line in lines[:-1]] + lines[-1:])
    return text.strip("\n") + "\n"


HEX_DIGITS = "0123456789abcdef"
ADDRESS_DIGITS = 6  # "0x" and at least this many: pointer-sized, not a flag's 0x1


def without_addresses(text):
    """TEXT with every address as 0x...: they differ from run to run
    (ASLR), a crash report's "Segmentation fault at 0x7f35b34f4008".
    An address is "0x" and ADDRESS_DIGITS or more lowercase hex digits,
    all of them replaced."""
    out, at = [], 0
    while (start := text.find("0x", at)) >= 0:
        end = start + 2
        while end < len(text) and text[end] in HEX_DIGITS:
            end += 1
        if end - start - 2 >= ADDRESS_DIGITS:
            out.append(text[at:start] + "0x...")
            at = end
        else:  # too short: kept, and looked for again from its "x"
            out.append(text[at:start + 1])
            at = start + 1
    return "".join(out) + text[at:]


CACHE = {}


def find_program(build, name, cache):
    """The program NAME of the build tree BUILD (a Path), None unless there
    is exactly one; CACHE holds every program of the tree once filled."""
    if not cache:
        for d, dirs, files in os.walk(build):  # os.walk: the walk prunes CMakeFiles and samples
            dirs[:] = [x for x in dirs if x != "CMakeFiles" and x != "samples"]
            for f in files:
                p = Path(d, f)
                if os.access(p, os.X_OK) and not f.endswith((".sh", ".py")):
                    cache.setdefault(f, []).append(p)
    found = cache.get(name, [])
    return found[0] if len(found) == 1 else None


def run_program(build, argv, fresh=False):
    exe = find_program(build, argv[0], {} if fresh else CACHE)
    if not exe:
        return None, f"no program {argv[0]} in {build} (build it: cmake --build --preset test --target {argv[0]})"
    r = subprocess.run([exe] + argv[1:], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, timeout=TIMEOUT, cwd=exe.parent)
    # A trace's replay hint names the program by the path it was run with:
    # the program's own directory, shown as "./" (run it from there).
    return normalize(r.stdout, [(f"{exe.parent}/", "./")]), None
