"""scan.py: the mutants of a step, read from its sources and from logic.tsv.

A memory-order mutant is one explicit order stronger than relaxed, passed to
an atomic_*_explicit call in the step's src/*.c, weakened one notch (the
choice a step README's order table argues about) and all the way to relaxed
(the mistake of leaving orders out). The sources are read by a small C
parser: a tokenizer that skips comments, strings and preprocessor lines, then
one pass that tracks braces (to name the enclosing function) and parentheses
(to give each order to the innermost atomic call it is an argument of).

A logic mutant is a row of logic.tsv: an exact text of a step's file and
its replacement, the mistake a step README teaches.
"""
import os
import re
from dataclasses import dataclass, field

TOKEN = re.compile(r"""
    (?P<pp>(?m:^)[ \t]*\#(?:\\\n|[^\n])*)   # a preprocessor line, with its continuations
  | (?P<comment>/\*.*?\*/|//[^\n]*)
  | (?P<string>"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*')
  | (?P<ident>[A-Za-z_]\w*)
  | (?P<space>[ \t\n\r\f\v]+)
  | (?P<other>[0-9][\w.]*|.)
""", re.VERBOSE | re.DOTALL)

ATOMIC_CALL = re.compile(r"atomic_\w+_explicit")
ORDER = re.compile(r"memory_order_(\w+)")

# relaxed < acquire, release < acq_rel < seq_cst: what --weaken compares.
STRENGTH = {"relaxed": 0, "consume": 1, "acquire": 1, "release": 1, "acq_rel": 2, "seq_cst": 3}


def weaker(order, op):
    """The mutants of ORDER on an operation of kind load, store or rmw."""
    if order == "seq_cst":
        return [{"load": "acquire", "store": "release"}.get(op, "acq_rel"), "relaxed"]
    if order == "acq_rel":
        return ["acquire", "release", "relaxed"]
    if order in ("acquire", "release"):
        return ["relaxed"]
    return []


@dataclass
class Token:
    kind: str
    text: str
    line: int
    offset: int  # into the file's text


@dataclass
class Order:
    order: str
    line: int
    offset: int
    op: str  # load, store or rmw: what the order is for (a failure order is a load's)


@dataclass
class Call:
    name: str
    line: int  # of its name
    close_line: int  # of its closing parenthesis
    function: str
    orders: list = field(default_factory=list)


def tokenize(text):
    tokens, line = [], 1
    for m in TOKEN.finditer(text):
        kind = m.lastgroup
        if kind not in ("space", "comment"):
            tokens.append(Token(kind, m.group(), line, m.start()))
        line += m.group().count("\n")
    return tokens


class Source:
    """One C file: its atomic calls and where each function starts."""

    def __init__(self, text):
        self.calls = []
        self.functions = []  # (line of the name, name), in file order
        self._parse(tokenize(text))

    def function_at(self, line):
        """The function whose definition starts last at or before LINE."""
        name = ""
        for start, fn in self.functions:
            if start <= line:
                name = fn
        return name

    def _parse(self, tokens):
        braces = parens = 0
        candidate = None  # the first name( at file level since the last ';'
        conditionals = []  # per open #if: [braces at #if, braces after its first branch]
        open_calls = []  # (call, parens inside it)
        for i, t in enumerate(tokens):
            nxt = tokens[i + 1].text if i + 1 < len(tokens) else ""
            if t.kind == "pp":
                braces = self._directive(t.text, conditionals, braces)
                continue
            if t.kind == "ident":
                if braces == 0 and parens == 0 and nxt == "(" and candidate is None:
                    candidate = t
                if ATOMIC_CALL.fullmatch(t.text) and nxt == "(":
                    fn = self.functions[-1][1] if self.functions and braces else ""
                    open_calls.append([Call(t.text, t.line, t.line, fn), parens + 1])
                m = ORDER.fullmatch(t.text)
                if m and open_calls:
                    call = open_calls[-1][0]
                    op = self._op(call.name, len(call.orders))
                    call.orders.append(Order(m.group(1), t.line, t.offset, op))
            elif t.text == "(":
                parens += 1
            elif t.text == ")":
                if open_calls and open_calls[-1][1] == parens:
                    call = open_calls.pop()[0]
                    call.close_line = t.line
                    self.calls.append(call)
                parens -= 1
            elif t.text == "{":
                if braces == 0 and candidate is not None:
                    self.functions.append((candidate.line, candidate.text))
                braces += 1
            elif t.text == "}":
                braces -= 1
                if braces == 0:
                    candidate = None
            elif t.text == ";" and braces == 0:
                candidate = None

    @staticmethod
    def _directive(text, conditionals, braces):
        """The braces after a preprocessor line. #if ... #else ... #endif:
        each branch starts from the braces the #if had, and after #endif
        they are those the first branch left."""
        words = text.strip().lstrip("#").split()
        word = words[0] if words else ""
        if word.startswith("if"):
            conditionals.append([braces, None])
        elif word in ("else", "elif") and conditionals:
            if conditionals[-1][1] is None:
                conditionals[-1][1] = braces
            return conditionals[-1][0]
        elif word == "endif" and conditionals:
            start, first = conditionals.pop()
            return braces if first is None else first
        return braces

    @staticmethod
    def _op(call, index):
        if call.startswith("atomic_load"):
            return "load"
        if call.startswith("atomic_store"):
            return "store"
        if "compare_exchange" in call and index == 1:
            return "load"  # the failure order
        return "rmw"


@dataclass
class Mutant:
    id: str
    step: str  # NN
    file: str  # in the step: src/task.c
    line: int
    function: str
    kind: str  # order or logic
    sanitizer: str  # thread for orders; the logic.tsv row's
    original: str  # the order, or the logic mutant's name
    mutant: str  # the weaker order, or the logic mutant's description
    section: str = ""  # the README section that names a logic mutant
    call: str = ""  # the atomic call of an order mutant
    call_line: int = 0  # where the call's name is, and its closing parenthesis
    close_line: int = 0
    offset: int = 0  # of the order in the file
    others: list = field(default_factory=list)  # (call_line, close_line, order): the file's other orders
    old_text: str = ""  # a logic mutant's edit
    new_text: str = ""

    def edit(self, text):
        """TEXT of the mutant's file, as the mutant has it."""
        if self.kind == "order":
            old = "memory_order_" + self.original
            assert text.startswith(old, self.offset)
            return text[:self.offset] + "memory_order_" + self.mutant + text[self.offset + len(old):]
        return text.replace(self.old_text, self.new_text, 1)


def slug(name):
    return os.path.basename(name).replace(".", "-")


def order_mutants(nn, step_dir):
    """The memory-order mutants of one step, in file and line order."""
    mutants = []
    src = os.path.join(step_dir, "src")
    for name in sorted(os.listdir(src)) if os.path.isdir(src) else []:
        if not name.endswith(".c"):
            continue
        with open(os.path.join(src, name), encoding="utf-8") as f:
            source = Source(f.read())
        orders = sorted(((c, o) for c in source.calls for o in c.orders), key=lambda co: co[1].offset)
        used = {}
        for call, o in orders:
            others = [(c.line, c.close_line, x.order) for c, x in orders if x is not o]
            for weak in weaker(o.order, o.op):
                # -2, -3: a second and third such order in the same function
                base = f"m-{nn}-{slug(name)}-{call.function}-{o.order}-{weak}"
                used[base] = used.get(base, 0) + 1
                mid = base if used[base] == 1 else f"{base}-{used[base]}"
                mutants.append(Mutant(mid, nn, f"src/{name}", o.line, call.function, "order", "thread",
                                      o.order, weak, call=call.name, call_line=call.line,
                                      close_line=call.close_line, offset=o.offset, others=others))
    return mutants


def unescape(s):
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), s)


class ScanError(Exception):
    pass


def logic_mutants(path, steps):
    """The rows of logic.tsv for STEPS ({NN: step directory}), checked: each
    original text must occur exactly once in its file."""
    mutants = []
    with open(path, encoding="utf-8") as f:
        rows = f.read().split("\n")
    for number, row in enumerate(rows, 1):
        if not row or row.startswith("#"):
            continue
        nn, file, name, sanitizer, section, old, new, about = row.split("\t")
        if nn not in steps:
            continue
        where = os.path.join(steps[nn], file)
        if not os.path.isfile(where):
            raise ScanError(f"logic.tsv row {number}: no file {where}")
        with open(where, encoding="utf-8") as f:
            text = f.read()
        old, new = unescape(old), unescape(new)
        n = text.count(old)
        if n != 1:
            raise ScanError(f"logic.tsv row {number} ({name}): the original text occurs {n} times in "
                            f"{os.path.relpath(where, os.path.dirname(os.path.dirname(steps[nn])))}, not once")
        line = text.count("\n", 0, text.index(old)) + 1
        mutants.append(Mutant(f"m-{nn}-{slug(file)}-{name}", nn, file, line, Source(text).function_at(line),
                              "logic", sanitizer, name, about, section=section, old_text=old, new_text=new))
    return mutants


def discover(steps, logic_tsv):
    """Every mutant of STEPS ({NN: directory}): each step's memory orders,
    then its logic mutants."""
    logic = logic_mutants(logic_tsv, steps)
    out = []
    for nn in sorted(steps):
        out += order_mutants(nn, steps[nn])
        out += [m for m in logic if m.step == nn]
    return out
