"""The `PROGRAM ARGS...` samples of check_samples.py: a program of the build
tree, found by name, run from its own directory. Also what every kind
shares: the repository's root, the time a command may take, and the
normalization of an output."""
import os
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 600  # seconds per command: a lab builds a step


def normalize(text, replacements):
    """The output as a reader may see it on any machine."""
    # Paths of this machine (the build tree, a lab's copy and build
    # directory) become the ones the text uses: (absolute path, shown as).
    for path, shown in replacements:
        text = text.replace(path, shown)
    # Addresses differ from run to run (ASLR): a crash report's
    # "Segmentation fault at 0x7f35b34f4008". Pointer-sized numbers only.
    text = re.sub(r"0x[0-9a-f]{6,}", "0x...", text)
    # Trailing blanks are a trace's column padding: invisible on a page,
    # and editors strip them.
    text = re.sub(r"[ \t]+\n", "\n", text)
    return text.strip("\n") + "\n"


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
