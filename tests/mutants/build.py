"""build.py: one build of the steps' copies, its tests, and running one test.

A Build is one CMake build directory, configured once with every step in
scope pointing at its copy (-DLOCKSTEP_STEP_DIR_NN, student mode), with one
sanitizer or none. A mutant edits a copy and rebuilds only that step's test
executables: one object file and a few links.
"""
import ast
import glob
import hashlib
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
from dataclasses import dataclass


class BuildError(Exception):
    pass


@dataclass
class Test:
    name: str
    command: list
    env: dict
    cwd: str
    skip_code: int  # SKIP_RETURN_CODE, or -1


class Build:
    def __init__(self, repo, work, sanitizer, copies, iterations, log):
        """COPIES: {NN: the step's copy}. SANITIZER: thread, address or none."""
        self.repo, self.sanitizer, self.copies, self.log = repo, sanitizer, copies, log
        self.dir = os.path.join(work, f"build-{sanitizer}")
        self.iterations = iterations
        self._tests, self._targets = {}, None

    def configure(self):
        # CMake's file API: this query makes every configure write the
        # build's targets as JSON (.cmake/api/v1/reply/), which targets() reads.
        query = os.path.join(self.dir, ".cmake", "api", "v1", "query", "codemodel-v2")
        os.makedirs(os.path.dirname(query), exist_ok=True)
        open(query, "a").close()
        if os.path.isfile(os.path.join(self.dir, "CMakeCache.txt")):
            return
        san = "" if self.sanitizer == "none" else self.sanitizer
        cflags = "-O2 -g" if self.sanitizer == "none" else "-O1 -g"
        self.log(f"configuring the {self.sanitizer} build")
        args = ["cmake", "-S", self.repo, "-B", self.dir, "-DCMAKE_BUILD_TYPE=RelWithDebInfo",
                f"-DCMAKE_C_FLAGS_RELWITHDEBINFO={cflags}", f"-DLOCKSTEP_SANITIZE={san}",
                f"-DLOCKSTEP_ITERATIONS={self.iterations}", "-DLOCKSTEP_DOCS=OFF",
                "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON"]
        if shutil.which("ninja"):
            args[1:1] = ["-G", "Ninja"]
        args += [f"-DLOCKSTEP_STEP_DIR_{nn}={d}" for nn, d in sorted(self.copies.items())]
        r = subprocess.run(args, capture_output=True, text=True)
        if r.returncode:
            raise BuildError(f"configure ({self.sanitizer}) failed:\n{r.stdout}{r.stderr}")

    def targets(self, nn, kinds):
        """The step's test executables of these KINDS (unit, stress, explore):
        <kind>_<component>_stepNN, not the errata variants (..._stepNN_<switch>)."""
        if self._targets is None:
            self._targets = target_names(self.dir)
        found = set()
        for name in self._targets:
            parts = name.split("_")
            if (len(parts) == 3 and parts[0] in kinds and parts[1] and set(parts[1]) <= LOWER_ALNUM
                    and parts[2] == f"step{nn}"):
                found.add(name)
        return sorted(found)

    def build(self, targets):
        """Builds TARGETS; the compiler's output if that failed, else None."""
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", "2")
        r = subprocess.run(["cmake", "--build", self.dir, "--parallel", jobs, "--target", *targets],
                           capture_output=True, text=True)
        return r.stdout + r.stderr if r.returncode else None

    def objects_hash(self, library):
        """A hash of LIBRARY's object files: a mutant that leaves it as it was
        changes no code (an #ifdef branch the library does not compile)."""
        h = hashlib.sha256()
        for d, _, files in sorted(os.walk(self.dir)):
            if f"{os.sep}{library}.dir{os.sep}" in d + os.sep:
                for f in sorted(files):
                    if f.endswith(".o"):
                        with open(os.path.join(d, f), "rb") as fh:
                            h.update(fh.read())
        return h.hexdigest()

    def tests(self, nn, labels):
        """The ctests of step NN with every label in LABELS, without those that
        do not exercise the step's code (errata, README and docs checks) and
        the placeholders of a component the step lacks. ctest's order."""
        key = (nn, tuple(labels))
        if key not in self._tests:
            args = ["ctest", "--test-dir", self.dir, "--show-only=json-v1", "-LE", "errata|readme|docs"]
            for label in [f"^step{nn}$"] + [f"^{x}$" for x in labels]:
                args += ["-L", label]
            r = subprocess.run(args, capture_output=True, text=True)
            if r.returncode:
                raise BuildError(f"ctest could not list step {nn}'s tests:\n{r.stderr}")
            listing = json.loads(r.stdout)
            found = []
            for t in listing["tests"]:
                props = {p["name"]: p["value"] for p in t.get("properties", [])}
                if "command" not in t or {"SKIP_REGULAR_EXPRESSION", "PASS_REGULAR_EXPRESSION",
                                          "WILL_FAIL"} & props.keys():
                    continue
                env = dict(e.split("=", 1) for e in props.get("ENVIRONMENT", []))
                env["LOCKSTEP_MUTANT"] = "1"
                found.append(Test(t["name"], t["command"], env, props.get("WORKING_DIRECTORY", self.dir),
                                  int(props.get("SKIP_RETURN_CODE", -1))))
            if not found:
                raise BuildError(f"no tests for step {nn} in the {self.sanitizer} build "
                                 "(is the step in CMakeLists.txt?)")
            self._tests[key] = found
        return self._tests[key]

    # ---- what the compiler sees, without building ----------------------------

    def compiled_lines(self, library, source):
        """The lines of SOURCE that LIBRARY's compile command keeps after the
        preprocessor (a line inside an #if the build leaves out is not one)."""
        with open(os.path.join(self.dir, "compile_commands.json"), encoding="utf-8") as f:
            entries = json.load(f)
        for e in entries:
            if os.path.realpath(e["file"]) == os.path.realpath(source) and f"/{library}.dir/" in e.get("output", e["command"]):
                argv = preprocess_only(shlex.split(e["command"]) if "command" in e else e["arguments"])
                out = subprocess.run(argv, cwd=e["directory"], capture_output=True, text=True, check=True).stdout
                return lines_with_code(out, source)
        raise BuildError(f"no compile command for {source} in {library}")

    def line_of_multiline_call(self):
        """Where the compiler puts __LINE__ in a macro call that spans lines:
        "name" (gcc: the line of the macro's name) or "close" (clang: the
        line of its closing parenthesis). The explorer names an atomic
        operation by that __LINE__."""
        with open(os.path.join(self.dir, "compile_commands.json"), encoding="utf-8") as f:
            e = json.load(f)[0]
        compiler = (shlex.split(e["command"]) if "command" in e else e["arguments"])[0]
        # The compiler answers by its exit status: the probe compiles only if
        # the static assertion about its own __LINE__ holds.
        for line, rule in ((2, "name"), (3, "close")):
            probe = f"#define F(a, b) __LINE__\n_Static_assert(F(1,\n                 2) == {line}, \"\");\n"
            r = subprocess.run([compiler, "-fsyntax-only", "-x", "c", "-"], input=probe, capture_output=True, text=True)
            if r.returncode == 0:
                return rule
        raise BuildError(f"{compiler} puts __LINE__ of a macro call over lines 2-3 on neither line:\n{r.stderr}")


LOWER_ALNUM = set("abcdefghijklmnopqrstuvwxyz0123456789")


def target_names(build_dir):
    """The names of BUILD_DIR's targets, from CMake's file API reply (the
    codemodel-v2 object its configure wrote for the query configure() made)."""
    reply = os.path.join(build_dir, ".cmake", "api", "v1", "reply")
    indexes = sorted(glob.glob(os.path.join(reply, "index-*.json")))
    if not indexes:  # configured before the query existed: configure again
        subprocess.run(["cmake", build_dir], capture_output=True, text=True, check=True)
        indexes = sorted(glob.glob(os.path.join(reply, "index-*.json")))
    if not indexes:
        raise BuildError(f"CMake wrote no file API reply in {reply}")
    with open(indexes[-1], encoding="utf-8") as f:
        model = json.load(f).get("reply", {}).get("codemodel-v2")
    if not model or "jsonFile" not in model:
        raise BuildError(f"CMake's file API reply {indexes[-1]} has no codemodel-v2")
    with open(os.path.join(reply, model["jsonFile"]), encoding="utf-8") as f:
        return {t["name"] for c in json.load(f)["configurations"] for t in c["targets"]}


def preprocess_only(argv):
    """A compile command turned into one that prints the preprocessed source."""
    out, skip = [], False
    for a in argv:
        if skip:
            skip = False
        elif a in ("-o", "-MT", "-MF", "-MQ"):
            skip = True
        elif a not in ("-c", "-MD", "-MMD"):
            out.append(a)
    return out + ["-E"]


def lines_with_code(preprocessed, source):
    """The lines of SOURCE that carry tokens in PREPROCESSED (cc -E output).

    Read by its line markers, `# LINE "FILE" FLAGS...`: the format the GCC
    manual documents (The C Preprocessor, "Preprocessor Output") for the
    compiler proper to read back, and clang writes the same. No other form
    says which lines survive: -P drops the markers, and with them the lines."""
    lines, line, current, named = set(), 0, False, False
    for text in preprocessed.split("\n"):
        marker = line_marker(text)
        if marker:
            line, name = marker
            current = os.path.realpath(name) == os.path.realpath(source)
            named = named or current
            continue
        if current and text.strip():
            lines.add(line)
        line += 1
    if not named:
        raise BuildError(f"the preprocessor's output has no line marker for {source}")
    return lines


def line_marker(text):
    """(LINE, FILE) of a line marker `# LINE "FILE" FLAGS...`, else None.
    FILE is a C string literal (backslash escapes, octal for other bytes)."""
    if not text.startswith("# "):
        return None
    number, _, rest = text[2:].partition(" ")
    if not number.isdigit() or not rest.startswith('"'):
        return None
    end = 1
    while end < len(rest) and rest[end] != '"':
        end += 2 if rest[end] == "\\" else 1
    if end >= len(rest):
        return None
    return int(number), ast.literal_eval(rest[:end + 1])


# ---- running one test ---------------------------------------------------------

def run(test, timeout, extra_args=(), env=None, prefix=()):
    """Runs TEST; (exit status, output). A timeout is status "timeout"."""
    e = {**os.environ, **(env or {}), **test.env}  # the test's own settings win
    p = subprocess.Popen([*prefix, *test.command, *extra_args], cwd=test.cwd, env=e, stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        out, _ = p.communicate(timeout=timeout)
        return p.returncode, out.decode(errors="replace")
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, _ = p.communicate()
        return "timeout", out.decode(errors="replace")


def failure_kind(rc, out):
    """Why a test failed, most specific first: the explorer's verdict, a
    sanitizer's report, an assert() in the library, a Check assertion in the
    test (with its message), a leak, a timeout."""
    m = re.search(r"^explore: FAILED \(([^)]*)\)", out, re.M)
    if m:
        return f"explorer: {m.group(1)}"
    m = re.search(r"(Thread|Address|UndefinedBehavior)Sanitizer: [a-z-]+( [a-z-]+)?", out)
    if m:
        k = m.group()
        if k.startswith("ThreadSanitizer: data race"):
            return "TSan data race"
        if k.startswith("ThreadSanitizer"):
            return "TSan " + k.split(": ", 1)[1]
        if k.startswith("AddressSanitizer"):
            return "ASan " + k.split(": ", 1)[1]
        return "UBSan"
    if "runtime error" in out:
        return "UBSan"
    m = re.search(r"Assertion `.*' failed", out)
    if m:
        k = m.group()
        k = k.split('"')[1] if '"' in k else k
        return "assert: " + shorten(k)
    m = re.search(r"^.*:F:.*$", out, re.M)
    if m:
        return "Check: " + shorten(re.sub(r"^([^:]*:){6} *", "", m.group()))
    if "LeakSanitizer" in out:
        return "leak"
    if rc == "timeout":
        return "timeout"
    return f"exit {rc}"


def shorten(text, width=60):
    return text if len(text) <= width else text[:width] + "…"
