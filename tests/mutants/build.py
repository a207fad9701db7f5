"""build.py: one build of the steps' copies, its tests, and running one test.

A Build is one CMake build directory, configured once with every step in
scope pointing at its copy (-DLOCKSTEP_STEP_DIR_NN, student mode), with one
sanitizer or none. A mutant edits a copy and rebuilds only that step's test
executables: one object file and a few links.

What it reads of a program, it reads in the form the program writes for
programs: CMake's targets from its file API (codemodel-v2), ctest's tests
from --show-only=json-v1, a Check test's results from the XML log Check
writes (CK_XML_LOG_FILE_NAME), an explorer's verdict from its --json, the
sanitizer that stopped a test from its exit status (each has its own,
SANITIZER_EXIT). Two things exist as text only, and are read as such, each
in one function that says why: the kind of a sanitizer's report
(report_kind) and the message of a failed assert() (assert_message). The
preprocessor's line markers (lines_with_code) are cpp's documented output
format, read by that format's rules.
"""
import ast
import glob
import hashlib
import json
import os
import shlex
import shutil
import signal
import subprocess
import tempfile
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field

# The exit status of a test stopped by each sanitizer (TSAN_OPTIONS,
# ASAN_OPTIONS, UBSAN_OPTIONS exitcode=N; run.py's SANITIZER_ENV sets them):
# each its own, and none a test's own status (0, 1 a Check failure, 2, 77).
# LeakSanitizer, part of ASan's runtime, shares ASan's.
SANITIZER_EXIT = {"TSan": 66, "ASan": 67, "UBSan": 68}


class BuildError(Exception):
    pass


@dataclass
class Test:
    name: str
    command: list
    env: dict
    cwd: str
    skip_code: int  # SKIP_RETURN_CODE, or -1
    labels: list = field(default_factory=list)  # ctest's LABELS

    def explorer(self):
        """An explorer scenario (label explore): it writes its verdict with --json."""
        return "explore" in self.labels


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
                                  int(props.get("SKIP_RETURN_CODE", -1)), props.get("LABELS", [])))
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

@dataclass
class Outcome:
    """One run of a test: its exit status ("timeout" if it was stopped), its
    output (for the log and the two text-only readers below), the results
    Check wrote to its XML log (CheckResult each, [] if it wrote none) and an
    explorer's --json (None if it wrote none)."""
    status: object
    output: str
    checks: list
    explored: dict


@dataclass
class CheckResult:
    result: str  # Check's: success, failure, error
    file: str  # the check's source file, a full path
    line: int
    message: str


def run(test, timeout, extra_args=(), env=None, prefix=()):
    """Runs TEST, with Check's XML log and, for an explorer, --json in a
    scratch directory; an Outcome."""
    with tempfile.TemporaryDirectory(prefix="lockstep-test.") as tmp:
        xml_log, result = os.path.join(tmp, "check.xml"), os.path.join(tmp, "result.json")
        # Every test program runs its cases with srunner_run_all (tests/support/check_main.c),
        # which writes this log when the variable names one.
        e = {**os.environ, **(env or {}), "CK_XML_LOG_FILE_NAME": xml_log, **test.env}  # the test's own settings win
        args = [*prefix, *test.command, *extra_args] + (["--json", result] if test.explorer() else [])
        p = subprocess.Popen(args, cwd=test.cwd, env=e, stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            out, _ = p.communicate(timeout=timeout)
            status = p.returncode
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            out, _ = p.communicate()
            status = "timeout"
        explored = None
        if os.path.isfile(result):
            with open(result, encoding="utf-8") as f:
                explored = json.load(f)
        return Outcome(status, out.decode(errors="replace"), check_results(xml_log), explored)


CHECK_NS = "{http://check.sourceforge.net/ns}"


def check_results(path):
    """The cases' results in Check's XML log at PATH, in the order they ran;
    [] if there is none, or only the start of one (a program stopped by a
    sanitizer or a signal before Check closed it: its exit status says so)."""
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError):
        return []
    found = []
    for t in root.iter(f"{CHECK_NS}test"):
        file, _, line = (t.findtext(f"{CHECK_NS}fn") or "").rpartition(":")
        found.append(CheckResult(t.get("result", ""), os.path.join(t.findtext(f"{CHECK_NS}path") or "", file),
                                 int(line) if line.isdigit() else 0, t.findtext(f"{CHECK_NS}message") or ""))
    return found


def check_failures(outcome):
    return [c for c in outcome.checks if c.result == "failure"]


def failure_kind(outcome):
    """Why a test failed, most specific first: the explorer's verdict, a
    sanitizer's report, an assert() in the library, a Check assertion in the
    test (with its message), a leak, a timeout."""
    rc, explored = outcome.status, outcome.explored or {}
    if explored.get("result") == "failed" and explored.get("kind"):
        return f"explorer: {explored['kind']}"
    tool = next((t for t, code in SANITIZER_EXIT.items() if rc == code), None)
    if tool == "UBSan":
        return "UBSan"
    if tool:
        kind = report_kind("ThreadSanitizer" if tool == "TSan" else "AddressSanitizer", outcome.output)
        if kind or tool == "TSan":
            return f"{tool} {kind}" if kind else tool
        # ASan's status with no ASan report: LeakSanitizer's, at exit (a leak
        # counts after the test's own failure, below).
    if rc == -signal.SIGABRT:
        message = assert_message(outcome.output)
        if message:
            return "assert: " + shorten(message)
    failures = check_failures(outcome)
    if failures:
        return "Check: " + shorten(failures[0].message)
    if tool == "ASan":
        return "leak"
    if rc == "timeout":
        return "timeout"
    return f"exit {rc}"


LOWER_WORD = set("abcdefghijklmnopqrstuvwxyz-")


def report_kind(tool, out):
    """The kind of TOOL's first report in OUT ("data race" for
    "WARNING: ThreadSanitizer: data race (pid=...)", "heap-use-after-free"
    for "ERROR: AddressSanitizer: heap-use-after-free on address ..."): its
    first lower-case word after "TOOL: ", and the next one if it is one too,
    but for "on", where ASan's address begins; "" if none.

    Text, because a sanitizer reports only as text: its exit status says
    which one stopped the program, nothing says what it found. The kind as
    data would need the test programs to ask for it (ASan's
    __asan_get_report_description() from __asan_set_error_report_callback,
    TSan's __tsan_get_report_data()), a change to their C, not done here."""
    head = f"{tool}: "
    at = out.find(head)
    while at >= 0:
        words = out[at + len(head):].split("\n", 1)[0].split(" ", 2)
        first = lower_prefix(words[0])
        if first:
            second = lower_prefix(words[1]) if first == words[0] and len(words) > 1 else ""
            return f"{first} {second}" if second and second != "on" else first
        at = out.find(head, at + 1)
    return ""


def lower_prefix(word):
    """WORD's longest start of lower-case letters and hyphens."""
    n = 0
    while n < len(word) and word[n] in LOWER_WORD:
        n += 1
    return word[:n]


def assert_message(out):
    """A failed assert()'s condition, from the line the C library prints on
    stderr before it aborts ("prog: file:line: function: Assertion `cond'
    failed."): the string literal in it if it has one (assert(x && "why")),
    else the whole "Assertion `...' failed"; "" if there is none.

    Text, because assert() has no other output: its abort (SIGABRT, the
    exit status) says that it failed, not which one."""
    for line in out.split("\n"):
        start, end = line.find("Assertion `"), line.rfind("' failed")
        if 0 <= start < end:
            k = line[start:end + len("' failed")]
            return k.split('"')[1] if '"' in k else k
    return ""


def shorten(text, width=60):
    return text if len(text) <= width else text[:width] + "…"
