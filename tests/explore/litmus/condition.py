"""A litmus test's final condition on a final state, as outcome.c judges it:
herd7's propositions `T:reg=V`, `[x]=V` or `x=V`, `!=`, `/\\`, `\\/`, `~`,
`true` and parentheses, on a state as herd7 prints it (`1:r0=1; [x]=2;`).
condition_check.py checks that this evaluator and outcome.c agree on every
litmus file. Standard library only.
"""
import re

from herd import RACE

TOKEN = re.compile(r"/\\|\\/|~|\(|\)|!=|=|\d+:\w+|\[\w+\]|-?\d+|\w+")


def parse_state(state):
    """`1:r0=1; [x]=2;` -> {'1:r0': 1, 'x': 2}."""
    values = {}
    for part in state.split(";"):
        if part.strip():
            key, value = part.split("=")
            values[key.strip().strip("[]")] = int(value)
    return values


def holds(proposition, state):
    """Whether the proposition (without its quantifier) holds in `state`, a dict of parse_state's."""
    return Proposition(proposition, state).disjunction()


def named(quantifier, proposition, states):
    """The states the condition is about: those where an exists holds, where a forall fails
    (never RACE, which is no state)."""
    want = quantifier != "forall"
    return [s for s in states if s != RACE and holds(proposition, parse_state(s)) == want]


class Proposition:
    """A recursive descent over the tokens: \\/ binds loosest, then /\\, then ~."""

    def __init__(self, text, state):
        self.tokens, self.pos, self.state = TOKEN.findall(text), 0, state

    def peek(self):
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self):
        self.pos += 1
        return self.tokens[self.pos - 1]

    def disjunction(self):
        value = self.conjunction()
        while self.peek() == "\\/":
            self.take()
            value = self.conjunction() or value
        return value

    def conjunction(self):
        value = self.unary()
        while self.peek() == "/\\":
            self.take()
            value = self.unary() and value
        return value

    def unary(self):
        token = self.take()
        if token == "~":
            return not self.unary()
        if token == "(":
            value = self.disjunction()
            self.take()
            return value
        if token == "true":
            return True
        key, op, value = token.strip("[]"), self.take(), int(self.take())
        return (self.state.get(key) == value) == (op == "=")
