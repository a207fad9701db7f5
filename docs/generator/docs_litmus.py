#!/usr/bin/env python3
"""docs_litmus.py IN OUT --tests DIR --site SITE [--explorer EXE] [--agree LIST] [--registry FILE] [--dot DOT] [--strict]

Fills in the litmus markers of a course page (docs/litmus.md) at docs build
time, from the litmus files and the real explore_litmus, never by hand:

  <!-- litmus NAME [--model c11] [| draw STATE]... -->
      the test tests/NAME.litmus: its threads side by side, its condition,
      RC11's final states (the file's `expect` lines, which compare.py
      checks against herd7's rc11.cat) beside the explorer's (explore_litmus
      --check, run now), what the explorer's run says, and an execution
      graph (explore_litmus --graph, drawn by Graphviz into
      SITE/litmus/NAME.N.svg) for each state to draw: the states the
      condition names that RC11 allows, or those given by `| draw`; when
      it names none (a forbidden outcome, a forall that always holds), the
      allowed state nearest to the one it names, so that every test shows
      an execution.
  <!-- litmus-table NAME... -->
      one row per test: what it shows, its condition, RC11's answer and
      the explorer's.

--agree is the tests the build registers as agreeing with RC11 (the
ctests explore_litmus.NAME of tests/explore/litmus, `NAME.c11` for
--model c11): for those a run that does not agree fails the build. For the
others, the page says what the run gave (refused, a difference, too slow)
and what the file waits on: its line of tests/explore/litmus/registry.tsv,
as compare.py reads it. The litmus files themselves are read by
explore_litmus (litmus_file.py asks it: --parse --json), which also
judges the question on each state: without --explorer (the tests are off)
each marker says so instead of its test.
Standard library only.
"""
import argparse
import concurrent.futures
import html
import json
import re
import subprocess
import tempfile
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

# The litmus files' text (their threads, comments and expect lines, to show)
# and CMakeLists.txt's registry, read as compare.py reads them. The
# condition is explore_litmus's alone: it judges each state (its --json,
# --parse for the states a file states), nothing here evaluates it again.
sys.dont_write_bytecode = True  # nothing written into the source tree
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests" / "explore" / "litmus"))
import herd  # noqa: E402  (RACE, the flag's state line)
import litmus_file  # noqa: E402
import registry  # noqa: E402
from lockstep_site import stepper, traces  # noqa: E402  (beside this file)

# The width, in points, the explorer lays a phone's graph out to
# (--graph-width): scaled to a 390 px phone's column, its text stays at
# 11 px or more (stepper.LEAST_TEXT_PX).
PHONE_WIDTH_PT = 340

# Seconds for one run of explore_litmus: a registered test is exact and must
# finish; one that waits (IRIW's four threads wait on the cost) gets a
# budget, then the page says it did not finish, so that the docs build stays short.
TIMEOUT_REGISTERED = 300
TIMEOUT_WAITING = 30


def fail(msg):
    sys.exit(f"docs_litmus.py: {msg}")


def witnesses(t, judged, states):
    """The states the condition is about: those where an exists holds (a forall: where it fails),
    as explore_litmus judged them (JUDGED: {state: (holds, atoms held)})."""
    if not t.condition:
        return []
    want = t.condition[0] != "forall"
    return [s for s in states if s in judged and judged[s][0] == want]


def nearest(t, judged, atoms, states):
    """When the condition names no allowed state (the outcome is forbidden, or a forall always
    holds): the allowed states nearest to the one it names, those where most of its equalities
    (ATOMS, explore_litmus's) hold (between as many, its earlier ones), how many, and of how many.
    ([], 0, 0) without a condition."""
    if not t.condition:
        return [], 0, 0
    # most atoms held; between as many, the earlier ones (a question names its flag first, then the data)
    scored = sorted(((sum(judged[s][1]), judged[s][1], s) for s in states if s in judged), reverse=True)
    if not scored:
        return [], 0, len(atoms)
    best = scored[0][:2]
    return [s for n, h, s in scored if (n, h) == best], best[0], len(atoms)


def state_values(state):
    """A state as a page's marker writes it (`1:r0=1;`, `[x]=2;`): {name: value}, names as the
    explorer's JSON keys them ("1:r0", "[x]")."""
    out = {}
    for part in state.split(";"):
        if part.strip():
            name, _, value = part.partition("=")
            out[name.strip()] = value.strip()
    return out


# ---- the explorer's run ---------------------------------------------------------------------

def run(explorer, t, model, graph_base, timeout):
    """explore_litmus --check --candidates --graph on the test: its exit code, output, errors, and
    from its --json the states (with their values and the condition's judgment), graphs and forbidden
    candidate; then the same graphs laid out for a phone (GRAPH_BASE.phone.N.dot)."""
    model_args = ["--model", model] if model else []
    result = graph_base + ".json"
    argv = [explorer] + model_args + ["--check", "--candidates", "--graph", graph_base + ".dot", "--json", result,
                                      str(t.path)]
    phone = [explorer] + model_args + ["--candidates", "--graph", graph_base + ".phone.dot",
                                       "--graph-width", str(PHONE_WIDTH_PT), str(t.path)]
    try:
        p = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
        if p.returncode == 0:
            subprocess.run(phone, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"rc": None, "out": "", "err": f"did not finish in {timeout} s", "states": [], "graphs": {},
                "values": {}, "judged": {}, "forbidden": None, "traces": {}, "differences": []}
    # Paths as the repository names them, not as this machine does.
    err = p.stderr.strip().replace(str(t.path.parent) + "/", "tests/explore/litmus/tests/")
    tests = json.loads(Path(result).read_text())["tests"] if Path(result).is_file() else []
    Path(result).unlink(missing_ok=True)
    got = tests[0] if tests else {"states": [], "race": False, "forbidden": None}
    f = got["forbidden"]
    return {"rc": p.returncode, "out": p.stdout, "err": err,
            "states": [s["state"] for s in got["states"]] + ([herd.RACE] if got["race"] else []),
            "graphs": {s["state"]: s["graph"] for s in got["states"]},
            "values": {s["state"]: s["values"] for s in got["states"]},
            "judged": {s["state"]: (s["holds"], s["atoms_held"]) for s in got["states"]},
            "forbidden": (f["graph"], f["state"], f["why"]) if f else None,
            # each graph's trace, as data: {graph: its execution's trace (the --json's)}
            "traces": {x["graph"]: x["execution"]["trace"] for x in got["states"] + ([f] if f else [])
                       if x.get("graph") and x.get("execution")},
            "differences": differences(got, model == "c11")}


def herd_output(out):
    """explore_litmus's output as herd7 prints it: from `Test` to `Time`, without the graph lines."""
    keep = [l for l in out.split("\n") if not l.startswith(("Graph ", "Forbidden ", "explore_litmus: ")) and l.strip()]
    return "\n".join(keep)


def differences(got, c11):
    """How the states explore_litmus found (its --json: GOT, one test's) differ
    from those its file states, in the model's (C11's with C11)."""
    stated = [e["state"] for e in got.get("expected", []) if c11 or not e["c11"]]
    found = [s["state"] for s in got["states"]]
    return ([f"{got.get('test')}: found {s}, which the file does not state" for s in found if s not in stated] +
            [f"{got.get('test')}: the file states {s}, never found" for s in stated
             if s != "Flag *undef*" and s not in found])


# ---- the blocks -----------------------------------------------------------------------------

def natural_size(svg):
    """An SVG's size in CSS pixels (Graphviz writes points: 1 pt = 4/3 px), or None."""
    root = ET.parse(svg).getroot()
    width, height = root.get("width", ""), root.get("height", "")
    if not (width.endswith("pt") and height.endswith("pt")):
        return None
    return round(float(width[:-2]) * 4 / 3), round(float(height[:-2]) * 4 / 3)


def program(threads):
    """The threads side by side while they fit the column, wrapping under
    one another when they do not (P2 and P3, the observers, stay in view)."""
    blocks = "".join(
        '<div style="padding: 0 .8em .4em .6em; border-left: 2px solid #d5dcea; max-width: 100%; overflow-x: auto">'
        f'<div style="font-family: monospace; font-weight: bold">{esc(p)}</div>'
        f'<pre class="litmus-src">{esc(code)}</pre></div>' for p, code in threads)
    return f'<div class="litmus-program" style="display: flex; flex-wrap: wrap; row-gap: .5em">{blocks}</div>'


def esc(s):
    return html.escape(s, quote=True)


def codes(states):
    return ", ".join(f"<code>{esc(s)}</code>" for s in states)


def slug(name):
    return "litmus-" + re.sub(r"[^A-Za-z0-9]+", "-", name).strip("-").lower()


def model_name(model):
    return "C11 (herd7, c11_orig.cat)" if model == "c11" else "RC11 (herd7, rc11.cat)"


def states_table(model, stated, found, named):
    """Each final state: whether the model allows it, whether the explorer found it (when it ran)."""
    body = ""
    for s in list(stated) + [s for s in (found or []) if s not in stated]:
        mark = ' class="named"' if s in named else ""
        ours = "" if found is None else ("<td>found</td>" if s in found else '<td class="missing">never found</td>')
        theirs = "<td>allowed</td>" if s in stated else '<td class="extra">forbidden</td>'
        body += f"<tr{mark}><td><code>{esc(s)}</code></td>{theirs}{ours}</tr>"
    explorer_th = "" if found is None else "<th>the explorer</th>"
    return (f'<table class="litmus-states"><tr><th>final state</th><th>{model_name(model)}</th>{explorer_th}</tr>'
            f"{body}</table>")


def answer(t, model, allowed):
    """The model's answer to the question: the named states it allows (an exists), fails in (a forall)."""
    kind, _ = t.condition or ("", "")
    ref = model_name(model).split(" ")[0]
    if t.condition and kind.endswith("exists"):
        said = f"allowed: {codes(allowed)}" if allowed else "forbidden"
        text = f"<p>{ref}: the state the question names is <b>{said}</b>" + (" (shaded).</p>" if allowed else ".</p>")
    elif kind == "forall":
        text = (f"<p>{ref}: the condition holds in <b>every</b> final state.</p>" if not allowed else
                f"<p>{ref}: the condition <b>fails</b> in {codes(allowed)} (shaded).</p>")
    else:
        text = ""
    if t.herd_differs:
        text += f'<p class="litmus-note">herd7 itself differs here: {esc(t.herd_differs)}.</p>'
    return text


def output_details(name, model, r):
    """explore_litmus's output, folded, when it ran."""
    if not (r and r["out"]):
        return ""
    cmd = f"explore_litmus{' --model ' + model if model else ''} --check {name}.litmus"
    return (f'<details class="litmus-output"><summary>explore_litmus\'s output, in herd7\'s shape</summary>'
            f'<pre class="trace-text">$ {esc(cmd)}\n{esc(herd_output(r["out"]))}</pre></details>')


def draw(dot, dot_file):
    """The SVG of a .dot, drawn now; None without the .dot (a phone layout not written)."""
    if not Path(dot_file).is_file():
        return None
    svg = str(dot_file)[:-len(".dot")] + ".svg"
    subprocess.run([dot, "-Tsvg", str(dot_file), "-o", svg], check=True)
    return svg


def phone_twin(dot_file):
    """g.3.dot -> g.phone.3.dot; g.forbidden.dot -> g.phone.forbidden.dot (g may hold dots: RS+po.c11)."""
    base, which, ext = Path(dot_file).name.rsplit(".", 2)
    return Path(dot_file).with_name(f"{base}.phone.{which}.{ext}")


def figure(name, what, dot, dot_file, caption, trace=None):
    """An execution graph drawn now from its .dot, with the trace of the run that drew it beside it
    (TRACE, its --json's) and a stepper through the two (lockstep_site/stepper.py);
    its phone layout (--graph-width) shown where the wide one would scale its text too small."""
    svg = draw(dot, dot_file)
    href = "litmus/" + Path(svg).name
    phone_svg = draw(dot, phone_twin(dot_file))
    phone = None
    if phone_svg:
        phone = (phone_svg, "litmus/" + Path(phone_svg).name, stepper.media_query(svg))
    ident = re.sub(r"[^A-Za-z0-9]+", "-", Path(svg).stem).strip("-").lower()
    alt = f"execution graph of {name}, {what}"
    if not trace:
        return stepper.figure(Path(svg), href, alt, ident, caption, phone)
    return stepper.block(Path(svg), href, alt, traces.from_json(trace), ident, caption, phone, script=None)


class Page:
    def __init__(self, args):
        self.args = args
        self.runs = {}
        # every file, read by explore_litmus (its parts, its stated states judged): one run for all
        try:
            files = litmus_file.read_all(args.explorer, sorted(args.tests.glob("*.litmus")), TIMEOUT_REGISTERED)
        except litmus_file.Refused as e:
            fail(f"explore_litmus refused a litmus file:\n{e}")
        self.tests = {t.path.stem: t for t in files.values()}

    def judgments(self, name, r=None):
        """({state: (holds, atoms held)}, the condition's equalities) of a test: its stated states',
        and those its run found (R), as explore_litmus judged them."""
        t = self.test(name)
        return {**t.judged, **(r.get("judged", {}) if r else {})}, t.atoms

    def key(self, name, model):
        return name + (".c11" if model == "c11" else "")

    def test(self, name):
        if name not in self.tests:
            fail(f"{self.args.input}: no litmus file {self.args.tests / (name + '.litmus')}")
        return self.tests[name]

    def stated(self, t, model):
        return t.expect + (t.expect_c11 if model == "c11" else [])

    def costly(self, wanted):
        """A file that waits on its cost alone ("exact in one exhaustive round,
        but ... s") would only spend the docs build's time to time out: it is
        not run, and its block says why."""
        return {k for k, (name, model) in wanted.items()
                if k not in self.args.agree and self.args.waiting.get(name, "").startswith("exact")}

    def run_all(self, wanted):
        """Every run the page needs, two at a time (the machine's cores are shared)."""
        if not self.args.explorer:
            return
        graphs = self.args.site / "litmus"
        graphs.mkdir(parents=True, exist_ok=True)
        for old in graphs.iterdir():  # no graph of an earlier build may outlive it
            old.unlink()
        costly = self.costly(wanted)
        for k in costly:
            self.runs[k] = {"rc": "skipped", "out": "", "err": "", "traces": {}, "differences": []}
        with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
            jobs = {k: pool.submit(run, self.args.explorer, self.test(name), model, str(graphs / k),
                                   TIMEOUT_REGISTERED if k in self.args.agree else TIMEOUT_WAITING)
                    for k, (name, model) in wanted.items() if k not in costly}
            for k, job in jobs.items():
                self.runs[k] = job.result()

    def waits_on(self, name, model):
        """What an unregistered run waits on, as a sentence."""
        reason = self.args.waiting.get(name)
        if model == "c11" and self.key(name, model) in self.args.agree:
            reason = None
        return (f" It waits on: {esc(reason)} (<code>tests/explore/litmus/registry.tsv</code>)." if reason else
                " It is not yet registered as a ctest.")

    def verdict(self, name, model):
        """(kind, HTML): what the explorer's run says, kind one of agrees, waits, none."""
        k = self.key(name, model)
        wait, ref, r = self.waits_on(name, model), "C11" if model == "c11" else "RC11", self.runs.get(k)
        registered = k in self.args.agree
        if r is None:
            return "none", "Not run: this build has no <code>explore_litmus</code> (configure with <code>-DLOCKSTEP_TESTS=ON</code>)."
        if r["rc"] == "skipped":
            return "waits", "The docs build does not run it: too long for a build." + wait
        if r["rc"] == 0:
            if registered:
                return "agrees", f"The explorer agrees with {ref}: exactly these states (ctest <code>explore_litmus.{esc(k)}</code>)."
            return "agrees", f"The explorer agrees with {ref} at this build." + wait
        if registered and self.args.strict:
            fail(f"{self.test(name).path}: explore_litmus{' --model ' + model if model else ''} --check no longer agrees "
                 f"with the states the file states (ctest explore_litmus.{k} is registered as agreeing); exit {r['rc']}:\n"
                 f"{r['out']}{r['err']}")
        if r["rc"] == 2:
            return "waits", f"The explorer refuses it: <code>{esc(r['err'].splitlines()[-1] if r['err'] else 'exit 2')}</code>." + wait
        if r["rc"] is None:
            return "waits", f"The explorer's run {esc(r['err'])} at this build." + wait
        return "waits", (f"The explorer differs from {ref}: " + esc("; ".join(r["differences"]) or f"exit {r['rc']}") + "." + wait)

    def graph(self, name, model, state):
        """The graph of one state, as an <img> of an SVG drawn now, or a note saying why there is none."""
        r = self.runs.get(self.key(name, model))
        if r is None or r["rc"] == "skipped":
            return ""
        found, values = r.get("graphs", {}), r.get("values", {})
        # `draw 1:r0=1;` names the found states with that assignment: the
        # page may ask for the part of a state its question is about.
        want = state_values(state)
        matches = [s for s in found if all(values.get(s, {}).get(k) == v for k, v in want.items())]
        if len(matches) > 1:
            return "".join(self.graph(name, model, s) for s in matches)
        state = matches[0] if matches else state
        if not found.get(state):
            return (f'<p class="litmus-nograph"><code>{esc(state)}</code>: no graph, the explorer does not reach '
                    "this state at this build.</p>")
        if not self.args.dot:
            return f'<p class="litmus-nograph"><code>{esc(state)}</code>: install Graphviz to see its execution graph.</p>'
        cap = f"<code>{esc(state)}</code>: the execution the explorer found"
        return figure(name, state, self.args.dot, found[state], cap, r["traces"].get(found[state]))

    def candidate(self, name, model, allowed):
        """Where the question names outcomes RC11 forbids: the candidate execution that would make one
        (explore_litmus --candidates), the cycle RC11 rejects in red, and the axiom, in one line."""
        r = self.runs.get(self.key(name, model))
        if not self.test(name).condition or allowed or r is None or r["rc"] != 0:
            return ""
        f = r.get("forbidden")
        if not f:
            return ('<p class="litmus-nograph">No candidate drawn. The candidate search (<code>explore_litmus '
                    "--candidates</code>) lets a load read any store of its location, coherent or not, but only "
                    "one that has already run; it never reached the outcome the question names. So every "
                    "execution that would give it has a load read a store that runs after it: a cycle in "
                    "sb ∪ rf, which RC11's <b>no-thin-air</b> axiom forbids (acyclic(sb ∪ rf)).</p>")
        path, state, why = f
        if not self.args.dot:
            return f'<p class="litmus-nograph"><code>{esc(state)}</code> is forbidden: {esc(why)}.</p>'
        axiom, _, rest = why.partition(": ")
        cap = (f'<span class="forbidden"><b>Forbidden</b></span> <code>{esc(state)}</code>: the candidate execution '
               f"that would give it. RC11 rejects it by its <b>{esc(axiom)}</b> axiom: {esc(rest)}, drawn in red.")
        return figure(name, "forbidden " + state, self.args.dot, path, cap, r["traces"].get(path))

    def block(self, name, model, draw):
        """One test: its program, the question, the states, the answers, the explorer's output and graphs."""
        t, k = self.test(name), self.key(name, model)
        stated, r = self.stated(t, model), self.runs.get(k)
        found = r["states"] if r and r["rc"] in (0, 1) else None
        judged, atoms = self.judgments(name, r)
        named = set(witnesses(t, judged, list(stated) + [s for s in (found or []) if s not in stated]))
        allowed = [s for s in stated if s in named]
        head = f'<h3 id="{slug(k)}">{esc(name)}{" under --model c11" if model == "c11" else ""}</h3>'
        kind, cond = t.condition or ("", "")
        prog = (program(t.threads) +
                f'<p class="litmus-frame">Initially <code>{esc(t.init)}</code>; the question: '
                f'<code>{esc(kind + " " + cond)}</code></p>')
        vkind, vtext = self.verdict(name, model)
        verdict = f'<p class="litmus-verdict {vkind}">{vtext}</p>'
        graphs = "".join(self.graph(name, model, s) for s in (draw or allowed))
        if not draw and not allowed and found:
            # No outcome the question names is allowed: the graph of the allowed
            # one nearest to it, so that every test shows an execution.
            near, held, atoms = nearest(t, judged, atoms, [s for s in stated if s in found])
            if near and kind == "forall":
                graphs = (f'<p class="litmus-nearest">The question holds in every outcome: drawn, one of them '
                          f'(<code>{esc(near[0])}</code>).</p>' + self.graph(name, model, near[0]))
            elif near:
                graphs = (f'<p class="litmus-nearest">The outcome the question names is never reached: drawn, '
                          f'the allowed outcome nearest to it (<code>{esc(near[0])}</code>: {held} of the '
                          f'question\'s {atoms} values), whose edges show what RC11 keeps from going further.</p>'
                          + self.graph(name, model, near[0]))
        graphs += self.candidate(name, model, allowed)
        src = f"src/tests/explore/litmus/tests/{name}.litmus.html"
        about = (f'<p class="litmus-about">{esc(t.about)} '
                 f'(<a href="{esc(src)}"><code>{esc(name)}.litmus</code></a>)</p>')
        return (f'<div class="litmus litmus-head">{head}</div>',
                f'<div class="litmus litmus-body">{about}{prog}{states_table(model, stated, found, named)}'
                f'{answer(t, model, allowed)}{verdict}{output_details(name, model, r)}{graphs}</div>')

    def table(self, names):
        """One row per test: what it shows, its question, RC11's answer and the explorer's."""
        rows = ""
        for name in names:
            t = self.test(name)
            named = witnesses(t, self.judgments(name)[0], t.expect)
            kind, cond = t.condition or ("", "")
            if kind == "forall":  # the states where it fails
                rc11 = "not always" if named else "always"
            else:
                rc11 = "allowed" if named else "forbidden"
            vkind, _ = self.verdict(name, None)
            ours = {"agrees": "agrees", "waits": "waits", "none": "not run"}[vkind]
            rows += (f'<tr><td><a href="#{slug(name)}">{esc(name)}</a></td><td>{esc(t.about)}</td>'
                     f'<td><code>{esc(f"{kind} {cond}")}</code></td><td>{rc11}</td><td class="{vkind}">{ours}</td></tr>')
        return ('<table class="litmus-summary"><tr><th>test</th><th>what it shows</th><th>the question</th>'
                f"<th>RC11 says</th><th>the explorer</th></tr>{rows}</table>")


# ---- the page -------------------------------------------------------------------------------

class Marker:
    """`<!-- litmus NAME [--model c11] [| draw STATE]... -->` or `<!-- litmus-table NAME... -->`."""

    def __init__(self, kind, args, where):
        self.kind, self.args = kind, args
        names_part, *draws = args.split("|")
        self.names, self.model = names_part.split(), None
        if "--model" in self.names:
            at = self.names.index("--model")
            self.model = self.names[at + 1]
            del self.names[at:at + 2]
        self.draw = [d.strip()[len("draw "):].strip() for d in draws if d.strip().startswith("draw ")]
        if len(self.draw) != len(draws):
            fail(f"{where}: a litmus marker is `<!-- litmus NAME [--model c11] [| draw STATE]... -->`, not: {args}")

    def text(self):
        return f"<!-- {self.kind} {self.args} -->"

    def render(self, page):
        """The marker's HTML, and for a test the heading apart (its rule and name), which the page puts
        above the test's lead paragraph (place): the lead reads under its own test's rule, never under
        the previous test's graph."""
        if self.kind == "litmus-table":
            return "", html_block(page.table(self.names))
        head, body = page.block(self.names[0], self.model, self.draw)
        return html_block(head), html_block(body)


# A marker's place in a build without explore_litmus, which reads the litmus files.
NO_EXPLORER = ("\\htmlonly[block]<p class=\"litmus-nograph\">This build has no <code>explore_litmus</code>, which reads "
               "the litmus files and runs them: configure with <code>-DLOCKSTEP_TESTS=ON</code> to see this test."
               "</p>\\endhtmlonly")


def html_block(html_text):
    return "\\htmlonly[block]" + html_text.replace("\n", "&#10;") + "\\endhtmlonly"


def lead_start(text, at):
    """Where the paragraph right before `at` (the marker) starts, if it is a test's lead: prose, not a
    heading, a list, a table, another marker or the end of a block; else at."""
    before = text[:at].rstrip("\n")
    start = before.rfind("\n\n") + 2 if "\n\n" in before else 0
    para = before[start:]
    if not para.strip() or para.lstrip().startswith(("<!--", "#", "|", "- ", "* ", "\\", "<", "```", "**Where")):
        return at
    return start


def place(text, marker, head, body):
    """The page with the marker replaced by body, and head put above the test's lead (or at the marker)."""
    at = text.index(marker)
    start = lead_start(text, at)
    if not head:
        return text[:at] + body + text[at + len(marker):]
    if start == at:
        return text[:at] + head + body + text[at + len(marker):]
    return text[:start] + head + "\n\n" + text[start:at] + body + text[at + len(marker):]


def markers(text, where):
    return [Marker(kind, args, where) for kind, args in re.findall(r"<!-- (litmus(?:-table)?) ([^\n]*?) -->", text)]


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[1], usage=__doc__.split("\n")[0])
    p.add_argument("input", type=Path, help="the page, docs/litmus.md with its markers")
    p.add_argument("output", type=Path, help="the page with its markers filled in (may be IN)")
    p.add_argument("--tests", type=Path, required=True, help="the litmus files' directory")
    p.add_argument("--site", type=Path, required=True, help="the site: graphs go to SITE/litmus")
    p.add_argument("--explorer", help="explore_litmus (without it the page says the runs are missing)")
    p.add_argument("--agree", default="", help="the tests registered as agreeing, separated by , or ;")
    p.add_argument("--registry", type=Path, help="tests/explore/litmus/registry.tsv: why a file waits")
    p.add_argument("--dot", help="Graphviz's dot (without it the page draws no graph)")
    p.add_argument("--strict", action="store_true", help="a registered test that does not agree fails the build")
    args = p.parse_args()
    args.agree = {x for x in re.split("[,;]", args.agree) if x}
    args.waiting = registry.waiting(args.registry) if args.registry and args.registry.is_file() else {}
    return args


def main():
    args = parse_args()
    text = args.input.read_text(encoding="utf-8")
    found = markers(text, args.input)
    if not args.explorer:  # explore_litmus reads the files: without it, no test to show
        for m in found:
            text = place(text, m.text(), "", NO_EXPLORER)
        args.output.write_text(text, encoding="utf-8")
        return
    page = Page(args)
    page.run_all({page.key(name, m.model): (name, m.model) for m in found for name in m.names})
    for m in found:
        text = place(text, m.text(), *m.render(page))
    if found and args.dot:  # the graphs' steppers: the script once, at the page's end
        text += "\n\\htmlonly[block]" + stepper.script_tag() + "\\endhtmlonly\n"
    args.output.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
