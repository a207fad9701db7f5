#!/usr/bin/env python3
"""docs_litmus.py IN OUT --tests DIR --site SITE [--explorer EXE] [--agree LIST] [--dot DOT] [--strict]

Fills in the litmus markers of a course page (docs/litmus.md) at docs build
time, from the litmus files and the real explore_litmus, never by hand:

  <!-- litmus NAME [--model c11] [| draw STATE]... -->
      the test tests/NAME.litmus: its threads side by side, its condition,
      RC11's final states (the file's `expect` lines, which compare.py
      checks against herd7's rc11.cat) beside the explorer's (explore_litmus
      --check, run now), what the explorer's run says, and an execution
      graph (explore_litmus --graph, drawn by Graphviz into
      SITE/litmus/NAME.N.svg) for each state to draw: the states the
      condition names that RC11 allows, or those given by `| draw`.
  <!-- litmus-table NAME... -->
      one row per test: what it shows, its condition, RC11's answer and
      the explorer's.

--agree is the tests the build registers as agreeing with RC11 (the
ctests explore_litmus.NAME of tests/explore/litmus, `NAME.c11` for
--model c11): for those a run that does not agree fails the build. For the
others, the page says what the run gave (refused, a difference, too slow)
and what the file waits on: the `# waiting: NAME REASON` line of
tests/explore/litmus/CMakeLists.txt, as compare.py reads it. Without
--explorer (the tests are off) the page says the runs are missing.
Standard library only.
"""
import concurrent.futures
import html
import os
import re
import subprocess
import sys

# Seconds for one run of explore_litmus: a registered test is exact and must
# finish; one that waits (IRIW's four threads wait on the cost) gets a
# budget, then the page says it did not finish, so that the docs build stays short.
TIMEOUT_REGISTERED = 300
TIMEOUT_WAITING = 30


def fail(msg):
    sys.exit(f"docs_litmus.py: {msg}")


# ---- the litmus file ------------------------------------------------------------------------

def read_test(path):
    """The parts of a litmus file the page shows."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    t = {"path": path, "name": re.search(r"^C\s+(\S+)", text, re.M).group(1)}
    m = re.search(r'^"(.*)"\s*$', text, re.M)
    t["about"] = m.group(1) if m else ""
    t["expect"] = re.findall(r"^expect (.*\S)\s*$", text, re.M)
    t["expect_c11"] = re.findall(r"^expect-c11 (.*\S)\s*$", text, re.M)
    m = re.search(r"^herd-differs (.*\S)\s*$", text, re.M)
    t["herd_differs"] = m.group(1) if m else None
    body = re.sub(r"\(\*.*?\*\)", "", text, flags=re.S)
    m = re.search(r"^\s*(\{[^}]*\})", body, re.M)
    t["init"] = " ".join(m.group(1).split()) if m else ""
    t["threads"] = []
    for m in re.finditer(r"^(P\d+)\s*\(([^)]*)\)\s*\{\n(.*?)^\}", body, re.M | re.S):
        lines = [l for l in m.group(3).split("\n") if l.strip()]
        indent = min((len(l) - len(l.lstrip()) for l in lines), default=0)
        t["threads"].append((m.group(1), "\n".join(l[indent:] for l in lines)))
    m = re.search(r"^\s*((?:~\s*)?exists|forall)\s*(.*\S)\s*$", body, re.M)
    t["condition"] = (m.group(1), m.group(2)) if m else None
    return t


def parse_state(s):
    """`1:r0=1; [x]=2;` -> {'1:r0': 1, 'x': 2}."""
    out = {}
    for part in s.split(";"):
        part = part.strip()
        if part:
            k, v = part.split("=")
            out[k.strip().strip("[]")] = int(v)
    return out


def holds(cond, state):
    """Whether herd's condition expression (=, !=, /\\, \\/, ~, parentheses) holds in a state."""
    toks = re.findall(r"/\\|\\/|~|\(|\)|!=|=|\d+:\w+|\[\w+\]|-?\d+|\w+", cond)
    pos = 0

    def peek():
        return toks[pos] if pos < len(toks) else None

    def take():
        nonlocal pos
        pos += 1
        return toks[pos - 1]

    def disj():
        v = conj()
        while peek() == "\\/":
            take()
            v = conj() or v
        return v

    def conj():
        v = unary()
        while peek() == "/\\":
            take()
            v = unary() and v
        return v

    def unary():
        if peek() == "~":
            take()
            return not unary()
        if peek() == "(":
            take()
            v = disj()
            take()
            return v
        if peek() == "true":
            take()
            return True
        key, op, val = take().strip("[]"), take(), int(take())
        return (state.get(key) == val) == (op == "=")

    return disj()


def witnesses(t, states):
    """The states the condition is about: those where an exists holds (a forall: where it fails)."""
    if not t["condition"]:
        return []
    kind, cond = t["condition"]
    want = kind != "forall"
    return [s for s in states if s != "Flag *undef*" and holds(cond, parse_state(s)) == want]


# ---- the explorer's run ---------------------------------------------------------------------

def run(explorer, t, model, graph_base, timeout):
    argv = [explorer] + (["--model", model] if model else []) + ["--check", "--graph", graph_base + ".dot", t["path"]]
    try:
        p = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"rc": None, "out": "", "err": f"did not finish in {timeout} s", "states": [], "graphs": {}}
    # Paths as the repository names them, not as this machine does.
    err = p.stderr.strip().replace(os.path.dirname(t["path"]) + "/", "tests/explore/litmus/tests/")
    r = {"rc": p.returncode, "out": p.stdout, "err": err, "states": [], "graphs": {}}
    lines = p.stdout.split("\n")
    for i, line in enumerate(lines):
        if line.startswith("States "):
            r["states"] = [l.strip() for l in lines[i + 1:i + 1 + int(line.split()[1])]]
        m = re.match(r"^Graph \S+ (\d+) (\S+)$", line)
        if m and r["states"]:
            r["graphs"][r["states"][int(m.group(1)) - 1]] = m.group(2)
    if "Flag *undef*" in lines:
        r["states"].append("Flag *undef*")
    return r


def herd_output(out):
    """explore_litmus's output as herd7 prints it: from `Test` to `Time`, without the graph lines."""
    keep = [l for l in out.split("\n") if not l.startswith(("Graph ", "explore_litmus: ")) and l.strip()]
    return "\n".join(keep)


# ---- the blocks -----------------------------------------------------------------------------

def natural_size(svg):
    """An SVG's size in CSS pixels (Graphviz writes points: 1 pt = 4/3 px), or None."""
    with open(svg, encoding="utf-8") as f:
        m = re.search(r'<svg[^>]*?width="([\d.]+)pt"[^>]*?height="([\d.]+)pt"', f.read(), re.S)
    return (round(float(m.group(1)) * 4 / 3), round(float(m.group(2)) * 4 / 3)) if m else None


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


def slug(name):
    return "litmus-" + re.sub(r"[^A-Za-z0-9]+", "-", name).strip("-").lower()


class Page:
    def __init__(self, opts):
        self.o = opts
        self.tests, self.runs, self.graph_n = {}, {}, 0

    def key(self, name, model):
        return name + (".c11" if model == "c11" else "")

    def test(self, name):
        if name not in self.tests:
            path = os.path.join(self.o["tests"], name + ".litmus")
            if not os.path.isfile(path):
                fail(f"{self.o['in']}: no litmus file {path}")
            self.tests[name] = read_test(path)
        return self.tests[name]

    def stated(self, t, model):
        return t["expect"] + (t["expect_c11"] if model == "c11" else [])

    def run_all(self, wanted):
        """Every run the page needs, two at a time (the machine's cores are shared)."""
        if not self.o.get("explorer"):
            return
        graphs = os.path.join(self.o["site"], "litmus")
        os.makedirs(graphs, exist_ok=True)
        for old in os.listdir(graphs):  # no graph of an earlier build may outlive it
            os.remove(os.path.join(graphs, old))
        # A file that waits on its cost alone ("exact in one exhaustive round,
        # but ... s") would only spend the docs build's time to time out:
        # it is not run, and its block says why.
        costly = {k for k, (name, model) in wanted.items()
                  if k not in self.o["agree"] and self.o["waiting"].get(name, "").startswith("exact")}
        for k in costly:
            self.runs[k] = {"rc": "skipped", "out": "", "err": ""}
        with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
            jobs = {k: pool.submit(run, self.o["explorer"], self.test(name), model,
                                   os.path.join(self.o["site"], "litmus", k),
                                   TIMEOUT_REGISTERED if k in self.o["agree"] else TIMEOUT_WAITING)
                    for k, (name, model) in wanted.items() if k not in costly}
            for k, job in jobs.items():
                self.runs[k] = job.result()

    def verdict(self, name, model):
        """(kind, HTML): what the explorer's run says, kind one of agrees, waits, none."""
        k = self.key(name, model)
        t = self.test(name)
        reason = self.o["waiting"].get(name)
        if model == "c11" and k in self.o["agree"]:
            reason = None
        wait = (f" It waits on: {esc(reason)} (<code>tests/explore/litmus/CMakeLists.txt</code>)." if reason else
                " It is not yet registered as a ctest.")
        ref = "C11" if model == "c11" else "RC11"
        r = self.runs.get(k)
        if r is None:
            return "none", "Not run: this build has no <code>explore_litmus</code> (configure with <code>-DLOCKSTEP_TESTS=ON</code>)."
        registered = k in self.o["agree"]
        if r["rc"] == "skipped":
            return "waits", "The docs build does not run it: too long for a build." + wait
        if r["rc"] == 0:
            if registered:
                return "agrees", f"The explorer agrees with {ref}: exactly these states (ctest <code>explore_litmus.{esc(k)}</code>)."
            return "agrees", f"The explorer agrees with {ref} at this build." + wait
        if registered and self.o["strict"]:
            fail(f"{t['path']}: explore_litmus{' --model ' + model if model else ''} --check no longer agrees with the "
                 f"states the file states (ctest explore_litmus.{k} is registered as agreeing); exit {r['rc']}:\n"
                 f"{r['out']}{r['err']}")
        if r["rc"] == 2:
            return "waits", f"The explorer refuses it: <code>{esc(r['err'].splitlines()[-1] if r['err'] else 'exit 2')}</code>." + wait
        if r["rc"] is None:
            return "waits", f"The explorer's run {esc(r['err'])} at this build." + wait
        diff = [l[len("explore_litmus: "):] for l in r["out"].split("\n")
                if l.startswith("explore_litmus: ") and ("never found" in l or "does not state" in l)]
        return "waits", (f"The explorer differs from {ref}: " + esc("; ".join(diff) or f"exit {r['rc']}") + "." + wait)

    def graph(self, name, model, state):
        """The graph of one state, as an <img> of an SVG drawn now, or a note saying why there is none."""
        r = self.runs.get(self.key(name, model))
        if r is None or r["rc"] == "skipped":
            return ""
        found = r.get("graphs", {})
        # `draw 1:r0=1;` names the found states with that assignment: the
        # page may ask for the part of a state its question is about.
        want = parse_state(state)
        matches = [s for s in found if all(parse_state(s).get(k) == v for k, v in want.items())]
        if len(matches) > 1:
            return "".join(self.graph(name, model, s) for s in matches)
        state = matches[0] if matches else state
        dot_file = found.get(state)
        cap = f"<figcaption><code>{esc(state)}</code>: the execution the explorer found</figcaption>"
        if not dot_file:
            return (f'<p class="litmus-nograph"><code>{esc(state)}</code>: no graph, the explorer does not reach '
                    "this state at this build.</p>")
        if not self.o.get("dot"):
            return f'<p class="litmus-nograph"><code>{esc(state)}</code>: install Graphviz to see its execution graph.</p>'
        svg = dot_file[:-len(".dot")] + ".svg"
        subprocess.run([self.o["dot"], "-Tsvg", dot_file, "-o", svg], check=True)
        rel = "litmus/" + os.path.basename(svg)
        # At its own size, never shrunk: graph.c lays it out to fit the
        # column with its text at body size; on a narrower screen it scrolls.
        size = natural_size(svg)
        dims = f' width="{size[0]}" height="{size[1]}"' if size else ""
        return (f'<figure class="litmus-graph" style="overflow-x: auto"><a href="{esc(rel)}"><img src="{esc(rel)}"{dims} '
                f'style="max-width: none; max-height: none" '
                f'alt="execution graph of {esc(name)}, {esc(state)}"></a>{cap}</figure>')

    def block(self, name, model, draw):
        t = self.test(name)
        k = self.key(name, model)
        rc11 = self.stated(t, model)
        model_name = "C11 (herd7, c11_orig.cat)" if model == "c11" else "RC11 (herd7, rc11.cat)"
        r = self.runs.get(k)
        found = r["states"] if r and r["rc"] in (0, 1) else None
        rows = list(rc11) + [s for s in (found or []) if s not in rc11]
        named = set(witnesses(t, rows))
        head = f'<h3 id="{slug(k)}">{esc(name)}{" under --model c11" if model == "c11" else ""}</h3>'
        kind, cond = t["condition"] or ("", "")
        prog = (program(t["threads"]) +
                f'<p class="litmus-frame">Initially <code>{esc(t["init"])}</code>; the question: '
                f'<code>{esc(kind + " " + cond)}</code></p>')
        body = ""
        for s in rows:
            mark = ' class="named"' if s in named else ""
            ours = "" if found is None else ("<td>found</td>" if s in found else '<td class="missing">never found</td>')
            theirs = "<td>allowed</td>" if s in rc11 else '<td class="extra">forbidden</td>'
            body += f"<tr{mark}><td><code>{esc(s)}</code></td>{theirs}{ours}</tr>"
        explorer_th = "" if found is None else "<th>the explorer</th>"
        states = (f'<table class="litmus-states"><tr><th>final state</th><th>{model_name}</th>{explorer_th}</tr>'
                  f"{body}</table>")
        allowed = [s for s in rc11 if s in named]
        if t["condition"] and kind.endswith("exists"):
            answer = ("allowed: " + ", ".join(f"<code>{esc(s)}</code>" for s in allowed)) if allowed else "forbidden"
            answer = f"<p>{model_name.split(' ')[0]}: the state the question names is <b>{answer}</b>"
            answer += " (shaded).</p>" if allowed else ".</p>"
        elif kind == "forall":
            fails = [s for s in rc11 if s in named]
            answer = (f"<p>{model_name.split(' ')[0]}: the condition holds in <b>every</b> final state.</p>" if not fails else
                      f"<p>{model_name.split(' ')[0]}: the condition <b>fails</b> in " +
                      ", ".join(f"<code>{esc(s)}</code>" for s in fails) + " (shaded).</p>")
        else:
            answer = ""
        if t["herd_differs"]:
            answer += f'<p class="litmus-note">herd7 itself differs here: {esc(t["herd_differs"])}.</p>'
        vkind, vtext = self.verdict(name, model)
        verdict = f'<p class="litmus-verdict {vkind}">{vtext}</p>'
        out = ""
        if r and r["out"]:
            cmd = f"explore_litmus{' --model ' + model if model else ''} --check {name}.litmus"
            out = (f'<details class="litmus-output"><summary>explore_litmus\'s output, in herd7\'s shape</summary>'
                   f'<pre class="trace-text">$ {esc(cmd)}\n{esc(herd_output(r["out"]))}</pre></details>')
        graphs = "".join(self.graph(name, model, s) for s in (draw or allowed))
        src = f"src/tests/explore/litmus/tests/{name}.litmus.html"
        about = (f'<p class="litmus-about">{esc(t["about"])} '
                 f'(<a href="{esc(src)}"><code>{esc(name)}.litmus</code></a>)</p>')
        return (f'<div class="litmus">{head}{about}{prog}{states}{answer}{verdict}{out}'
                f'{graphs}</div>')

    def table(self, names):
        rows = ""
        for name in names:
            t = self.test(name)
            named = [s for s in witnesses(t, t["expect"])]
            kind, cond = t["condition"] or ("", "")
            if kind == "forall":  # the states where it fails
                rc11 = "not always" if named else "always"
            else:
                rc11 = "allowed" if named else "forbidden"
            cond = f"{kind} {cond}"
            vkind, _ = self.verdict(name, None)
            ours = {"agrees": "agrees", "waits": "waits", "none": "not run"}[vkind]
            rows += (f'<tr><td><a href="#{slug(name)}">{esc(name)}</a></td><td>{esc(t["about"])}</td>'
                     f'<td><code>{esc(cond)}</code></td><td>{rc11}</td><td class="{vkind}">{ours}</td></tr>')
        return ('<table class="litmus-summary"><tr><th>test</th><th>what it shows</th><th>the question</th>'
                f"<th>RC11 says</th><th>the explorer</th></tr>{rows}</table>")


def markers(text):
    return re.findall(r"<!-- (litmus(?:-table)?) ([^\n]*?) -->", text)


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    o = {"in": argv[1], "out": argv[2], "agree": set(), "strict": False, "waiting": {}}
    i = 3
    while i < len(argv):
        a = argv[i]
        if a == "--strict":
            o["strict"] = True
        elif a in ("--tests", "--site", "--explorer", "--dot", "--agree", "--cmakelists") and i + 1 < len(argv):
            o[a[2:]] = argv[i + 1]
            i += 1
        else:
            sys.exit(__doc__)
        i += 1
    o["agree"] = set(x for x in re.split("[,;]", o.get("agree", "") or "") if x)
    if o.get("cmakelists") and os.path.isfile(o["cmakelists"]):
        with open(o["cmakelists"], encoding="utf-8") as f:
            o["waiting"] = dict(re.findall(r"^# waiting: (\S+)\s+(.*)$", f.read(), re.M))
    with open(o["in"], encoding="utf-8") as f:
        text = f.read()
    page = Page(o)
    wanted, parsed = {}, []
    for kind, args in markers(text):
        names_part, *draws = args.split("|")
        words = names_part.split()
        model = None
        if "--model" in words:
            at = words.index("--model")
            model = words[at + 1]
            del words[at:at + 2]
        draw = [d.strip()[len("draw "):].strip() for d in draws if d.strip().startswith("draw ")]
        if len(draw) != len(draws):
            fail(f"{o['in']}: a litmus marker is `<!-- litmus NAME [--model c11] [| draw STATE]... -->`, not: {args}")
        parsed.append((kind, args, words, model, draw))
        for name in words:
            wanted[page.key(name, model)] = (name, model)
    page.run_all(wanted)
    for kind, args, words, model, draw in parsed:
        if kind == "litmus-table":
            block = page.table(words)
        else:
            block = page.block(words[0], model, draw)
        text = text.replace(f"<!-- {kind} {args} -->", "\\htmlonly[block]" + block.replace("\n", "&#10;") + "\\endhtmlonly", 1)
    with open(o["out"], "w", encoding="utf-8") as f:
        f.write(text)


if __name__ == "__main__":
    main(sys.argv)
