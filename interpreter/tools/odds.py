"""`grimorio odds`: the exact distribution of a value the rules compute.

The rules run as they always do, on the very program `run` and `simulate` use;
only their dice change. An enumerated run draws from a forced sequence: while
the sequence lasts, each draw gives the value it holds; the first draw past it
stops the run (`_Branch`) and says what it could have given, with what
probability. The enumeration then runs the rules again once per option, with
the sequence one longer: a depth-first walk of the tree of every roll, whose
leaves are whole runs, each with its exact probability (a product of
fractions). Leaves that give the same value add up.

Two things keep the tree small. A roll of several dice (`2D6`, `4D6kh3`)
branches over its totals, each with its own probability, not over its faces
(`roll_totals`): 11 branches for 2D6, not 36. And a budget of runs and seconds
stops a tree that would not end (`Budget`): never a silent approximation; the
caller may then ask for a Monte Carlo estimate (`estimate`), which says it is one.

Where the rules roll: a lone die is drawn from the engine's streams
(`_E.streams[who, purpose]()` % faces + 1: the draw's `% faces` tells the faces),
anything else through `Engine.roll`. An enumerated run replaces the engine's
streams with a `Draws` (every stream is one forced sequence) and, through its
class, `roll` and what the run records (`_Enumerating`).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from math import comb

from ...dsl.diagnostics import Diagnostic, GrimorioError, Span
from ..run.dice import Dice
from ..run.engine import Engine, guarded
from ..run.values import Ranked, Struct, mangle

RUNS = 200_000          # default budget: runs of the rules (each a node or a leaf of the tree)
SECONDS = 60.0          # default budget: seconds of enumeration


# ---------------------------------------------------------------- the forced dice
class _Branch(BaseException):
    """A draw past the forced sequence: the run stops here (no rule can catch it: it is no
    Exception), and the enumeration runs the rules again once per option."""

    def __init__(self, pos: int, options: tuple):
        super().__init__(pos)
        self.pos, self.options = pos, options      # options: ((value, probability), ...)


class _Unforced(BaseException):
    """A draw used in a way the enumeration cannot branch on (not `% faces`)."""


@lru_cache(maxsize=256)
def _uniform(faces: int) -> tuple:
    """The options of one raw draw of a die of `faces` faces: the draw v shows v % faces + 1."""
    p = Fraction(1, faces)
    return tuple((v, p) for v in range(faces))


class _Probe:
    """What a draw past the forced sequence gives: its `% faces` tells the faces and stops the run."""

    __slots__ = ("pos",)

    def __init__(self, pos):
        self.pos = pos

    def __mod__(self, faces):
        if type(faces) is not int or faces < 1:
            raise _Unforced(self.pos)
        raise _Branch(self.pos, _uniform(faces))

    def __getattr__(self, name):
        raise _Unforced(self.pos)


def _unforced_operator(self, *_args):
    raise _Unforced(self.pos)


for _op in ("add", "radd", "sub", "rsub", "mul", "rmul", "floordiv", "rfloordiv", "truediv", "rtruediv", "rmod",
            "lt", "le", "gt", "ge", "eq", "ne", "index", "int", "bool", "hash", "and", "rand", "rshift", "lshift"):
    setattr(_Probe, f"__{_op}__", _unforced_operator)


class _Skipped(_Probe):
    """A draw the run took and never used (a pinned roll still draws), held in the sequence's
    place so that a later draw keeps its position: using it after all cannot be enumerated."""

    __slots__ = ()

    def __mod__(self, faces):
        raise _Unforced(self.pos)


class Draws(dict):
    """The engine's streams during an enumerated run: every (who, purpose) draws from the one
    forced sequence `prefix`, in the order the run draws."""

    def __init__(self, prefix: tuple):
        super().__init__()
        self.prefix, self.pos = prefix, 0

    def get(self, key, default=None):
        return self.draw

    def __missing__(self, key):          # streams[by, purpose]: the one sequence, whoever rolls
        return self.draw

    def draw(self):
        i = self.pos
        self.pos = i + 1
        if i < len(self.prefix):
            return self.prefix[i]
        return _Probe(i)

    def choose(self, options: tuple):
        """A value of `options` ((value, probability), ...): the forced one, or a branch."""
        i = self.pos
        self.pos = i + 1
        if i < len(self.prefix):
            return self.prefix[i]
        raise _Branch(i, options)


# ---------------------------------------------------------------- rolls by their totals
@lru_cache(maxsize=1024)
def roll_totals(dice: Dice) -> tuple:
    """The totals `dice` can roll, each with its exact probability, lowest first."""
    if dice.keep is not None:
        k, which = dice.keep
        _sign, count, faces = dice.terms[0]
        dist = _kept(count, faces, k, which == "highest")
    else:
        dist = {0: Fraction(1)}
        for sign, count, faces in dice.terms:
            for _ in range(count):
                dist = _plus_die(dist, sign, faces)
    return tuple((t + dice.const, p) for t, p in sorted(dist.items()))


def _plus_die(dist: dict, sign: int, faces: int) -> dict:
    out: dict = {}
    p = Fraction(1, faces)
    for t, q in dist.items():
        for f in range(1, faces + 1):
            out[t + sign * f] = out.get(t + sign * f, 0) + q * p
    return out


def _kept(n: int, faces: int, k: int, highest: bool) -> dict:
    """The sum of the k highest (lowest) of n dice of `faces` faces. Faces are taken from the
    best down; a state is (dice placed, sum kept), weighted by the ways to place them."""
    states = {(0, 0): 1}
    order = range(faces, 0, -1) if highest else range(1, faces + 1)
    for v in order:
        nxt: dict = {}
        for (placed, kept), ways in states.items():
            for c in range(n - placed + 1):
                taken = min(c, max(0, k - placed))
                key = (placed + c, kept + taken * v)
                nxt[key] = nxt.get(key, 0) + ways * comb(n - placed, c)
        states = nxt
    total = faces ** n
    return {kept: Fraction(ways, total) for (placed, kept), ways in states.items() if placed == n}


class _Recording(Engine):
    """An engine that records only what a question reads: the checks made, and the lines when
    an expectation reads the transcript (`lines`). Made from an Engine by setting its class,
    so every other behaviour is the engine's."""

    __slots__ = ()
    lines = False

    def say(self, name, message, args, line_id):
        if self.lines:
            Engine.say(self, name, message, args, line_id)

    def record_check(self, name, by, purpose, result):
        self.events.append(("check", name, getattr(by, "a_name", None), purpose, result))


class _RecordingLines(_Recording):
    __slots__ = ()
    lines = True


class _Enumerating(_Recording):
    """The engine of an enumerated run: a roll draws its total from the forced sequence."""

    __slots__ = ()

    def roll(self, dice, by, purpose):
        if self.pins or self.strict or self.lines or not isinstance(dice, Dice):
            return Engine.roll(self, dice, by, purpose)   # faces drawn one by one (pinned, or shown)
        self._pay_dice(dice)
        return self.streams.choose(roll_totals(dice))


class _EnumeratingLines(_Enumerating):
    __slots__ = ()
    lines = True


# ---------------------------------------------------------------- the walk
@dataclass
class Budget:
    runs: int = RUNS
    seconds: float = SECONDS


class OverBudget(Exception):
    """The enumeration passed its budget: how far it got."""

    def __init__(self, budget: Budget, runs: int, open_branches: int, seconds: float, why: str):
        super().__init__(why)
        self.budget, self.runs, self.open, self.seconds, self.why = budget, runs, open_branches, seconds, why


@dataclass
class Distribution:
    """Each outcome (by its key) with its value, how it shows, and its exact probability."""
    outcomes: dict = field(default_factory=dict)       # key -> [value, shown, probability]
    runs: int = 0                                      # runs of the rules it took
    expectations: list = field(default_factory=list)   # [probability each expectation of the encounter holds]
    estimated: int = 0                                 # Monte Carlo runs, when it is an estimate (then not exact)

    def add(self, value, shown: str, p):
        key = outcome_key(value, shown)
        entry = self.outcomes.get(key)
        if entry is None:
            self.outcomes[key] = [value, shown, p]
        else:
            entry[2] += p

    def ordered(self) -> list:
        """[(value, shown, probability)], numbers ascending, ranked names by rank, the rest by how they show."""
        return [tuple(e) for _k, e in sorted(self.outcomes.items(), key=lambda kv: kv[0])]

    @property
    def numeric(self) -> bool:
        return bool(self.outcomes) and all(is_number(v) for v, _s, _p in self.outcomes.values())

    def mean(self):
        return sum((Fraction(v) * p for v, _s, p in self.outcomes.values()), Fraction(0)) if self.numeric else None

    def at_least(self) -> list:
        """For numbers: P(value >= v), for each v ascending."""
        out, left = [], sum(p for _v, _s, p in self.outcomes.values())
        for v, _s, p in self.ordered():
            out.append(left)
            left -= p
        return out

    def probability(self, shown: str):
        return sum((p for _v, s, p in self.outcomes.values() if s == shown), Fraction(0))


def is_number(v) -> bool:
    return isinstance(v, (int, Fraction)) and not isinstance(v, bool)


def outcome_key(value, shown: str) -> tuple:
    if is_number(value):
        return (0, Fraction(value), "")
    if isinstance(value, bool):
        return (1, int(value), shown)
    if isinstance(value, Ranked):
        return (2, value.rank, shown)
    if isinstance(value, tuple):             # the checks made: by who and purpose, then by rank
        return (3, tuple((w or "", p or "", -r.rank if isinstance(r, Ranked) else 0) for w, p, r in value), shown)
    return (4, 0, shown)


def enumerate_runs(run_once, show, budget: Budget | None = None, expectations: int = 0) -> Distribution:
    """Every outcome of `run_once(prefix)` (a question's value, and the expectations that held),
    by a depth-first walk over the tree of its draws."""
    budget = budget or Budget()
    dist = Distribution(expectations=[Fraction(0)] * expectations)
    stack = [((), Fraction(1))]
    start = time.monotonic()
    while stack:
        prefix, p = stack.pop()
        dist.runs += 1
        if dist.runs > budget.runs or (dist.runs % 64 == 0 and time.monotonic() - start > budget.seconds):
            why = "runs" if dist.runs > budget.runs else "seconds"
            raise OverBudget(budget, dist.runs - 1, len(stack) + 1, time.monotonic() - start, why)
        try:
            value, held = run_once(prefix)
        except _Branch as b:
            base = prefix + tuple(_Skipped(i) for i in range(len(prefix), b.pos))
            for v, q in reversed(b.options):
                stack.append((base + (v,), p * q))
            continue
        dist.add(value, show(value), p)
        for k in held:
            dist.expectations[k] += p
    return dist


# ---------------------------------------------------------------- a question on a prepared encounter
class Question:
    """What to count over the runs of a prepared encounter: the value of `fn(engine)` once the
    encounter has run (a compiled expression), or, without one, the checks the run made."""

    def __init__(self, prepared, fn=None, text: str | None = None):
        self.prepared, self.fn, self.text = prepared, fn, text
        self.expectations = [span for span, _lead in prepared.expectation_spans]

    def value(self, eng):
        if self.fn is None:
            return tuple((who, purpose or name, _result(r)) for _c, name, who, purpose, r in
                         (e for e in eng.events if e[0] == "check"))
        eng.pins, eng.strict = [], False          # pins set the scene; the question's own dice are enumerated
        return guarded(self.prepared.p, self._asked, eng)     # a refusal as `run` tells it, located

    def _asked(self, eng):
        value = self.fn(eng)
        if isinstance(value, Dice):                # a bare dice value: its roll
            value = eng.roll(value, None, None)
        if isinstance(value, int) and type(value) not in (int, bool):
            value = int(value)                     # a roll, by its total
        return value

    def show(self, value) -> str:
        fmt = self.prepared.p.format
        if self.fn is None:
            return "; ".join(f"{who + ' ' if who else ''}{purpose}: {fmt.show(r)}" for who, purpose, r in value) \
                or "(no check)"
        return fmt.show(value)


def _result(record):
    """A check's result: the last field of its record (the output column of its table)."""
    if isinstance(record, Struct) and record._names:
        return getattr(record, mangle(record._names[-1]))
    return record


def exact(question: Question, budget: Budget | None = None) -> Distribution:
    """The exact distribution of the question over every roll of the encounter's run."""
    prepared = question.prepared
    kind = _EnumeratingLines if prepared.needs_lines else _Enumerating
    spans = question.expectations

    def run_once(prefix):
        draws = Draws(prefix)

        def setup(eng):
            if eng.streams:
                raise GrimorioError(_rolled_before(prepared))
            eng.streams = draws
            eng.rec = eng.rec or question.fn is None      # the checks, for a question of checks
            eng.__class__ = kind

        try:
            outcome = prepared.run(seed=0, record=False, setup=setup)
            value = question.value(outcome.engine)
        except _Unforced:
            raise GrimorioError(_unforced(prepared)) from None
        failed = {v.span for v in outcome.expectations if not v.ok}
        return value, [k for k, span in enumerate(spans) if span not in failed]

    return enumerate_runs(run_once, question.show, budget, len(spans))


def estimate(question: Question, runs: int, seed: int = 0) -> Distribution:
    """A Monte Carlo estimate of the question: `runs` runs on seeded dice (simulate's seeds).
    Its probabilities are the shares seen; `estimated` says how many runs it counts."""
    from .simulate import run_seed
    prepared = question.prepared
    dist = Distribution(expectations=[Fraction(0)] * len(question.expectations), estimated=runs)
    share = Fraction(1, runs)

    def setup(eng):
        eng.rec = eng.rec or question.fn is None
        eng.__class__ = _RecordingLines if prepared.needs_lines else _Recording

    for i in range(runs):
        outcome = prepared.run(seed=run_seed(seed, i), record=False, setup=setup)
        value = question.value(outcome.engine)
        dist.add(value, question.show(value), share)
        failed = {v.span for v in outcome.expectations if not v.ok}
        for k, span in enumerate(question.expectations):
            if span not in failed:
                dist.expectations[k] += share
    dist.runs = runs
    return dist


def _rolled_before(prepared) -> Diagnostic:
    return Diagnostic("E0072", "the combatants' sheets or the vars roll dice as the encounter starts: odds cannot "
                               "enumerate those rolls", prepared.enc.span if hasattr(prepared.enc, "span") else None,
                      "give those fields and vars their values in the encounter (or in its do: block, whose rolls "
                      "odds enumerates)")


def _unforced(prepared) -> Diagnostic:
    return Diagnostic("E0073", "these rules use their dice in a way odds cannot enumerate",
                      getattr(prepared.enc, "span", None) or Span("<odds>", 0, 0),
                      "this is a limit of grimorio odds: use grimorio simulate for this question")


# ---------------------------------------------------------------- for simulate and the report
def tally_odds(prepared, name: str, who: str | None = None, budget: Budget | None = None) -> Distribution:
    """The exact distribution of a `tally` of the ruleset (of combatant `who`, for a tally of one)
    at the end of the encounter: what `simulate` counts, to show beside its frequencies."""
    for d, fn in prepared.p.tallies:
        if d.name == name:
            break
    else:
        raise KeyError(name)
    if d.param is None:
        return exact(Question(prepared, fn, name), budget)
    index = [b[1] for b in prepared.blueprints].index(who)
    return exact(Question(prepared, lambda eng: fn(eng, eng.cb[index]), f"{name}({who})"), budget)


# ---------------------------------------------------------------- questions written as text
_DICE_CALLS = ("keep_highest", "keep_lowest", "dice", "dice_times", "repeated")
_COMPARISONS = ("==", "!=", "<", "<=", ">", ">=")


def question_from_text(prepared, text: str, file: str, sources) -> Question:
    """A question written as an expression (`--expr`, or a rule call `--rule`), over the names of the
    encounter's rules and combatants, evaluated once the encounter has run."""
    from ...dsl.syntax.builder import Builder
    from ...dsl.check.resolver import resolve_script
    from ...dsl.syntax.parser import parse_cell
    sources.texts[file] = text
    node = Builder(file).expr(parse_cell(text, "cell_value", file, 1, 1).children[0])
    node = rolled(node)
    names = [b[1] for b in prepared.blueprints]
    diags = resolve_script(prepared.p.ruleset, (), [node], names, prepared.p.resolver)    # the front end checks it
    if diags:
        raise GrimorioError(diags)
    fn = prepared.p.compile_snippet(f"odds{next(_names)}", (), [node], names)["expects"][0]
    return Question(prepared, lambda eng: fn(eng)[0], text)


def rolled(node):
    """Dice where a question compares them, or as its whole value, are rolled, as a dice calculator
    reads them: `keep_highest(2D20, 1) + 5 >= 15` is `roll (keep_highest(2D20, 1) + 5) >= 15`."""
    from ...dsl.records import replace
    from ...dsl.syntax import nodes as n
    if isinstance(node, n.Binary) and node.op in _COMPARISONS:
        return replace(node, left=_roll_if_dice(node.left), right=_roll_if_dice(node.right))
    if isinstance(node, n.Binary) and node.op in ("and", "or"):
        return replace(node, left=rolled(node.left), right=rolled(node.right))
    if isinstance(node, n.Unary) and node.op == "not":
        return replace(node, operand=rolled(node.operand))
    return _roll_if_dice(node)


def _roll_if_dice(node):
    from ...dsl.syntax import nodes as n
    return n.Roll(node.span, node, None, None) if _dice_shaped(node) else node


def _dice_shaped(node) -> bool:
    """Whether an expression is dice as written: a dice literal, a builtin that makes dice (_DICE_CALLS),
    and sums and differences of them with numbers."""
    from ...dsl.syntax import nodes as n
    if isinstance(node, n.DiceLit):
        return True
    if isinstance(node, n.Call):
        return isinstance(node.func, n.Name) and node.func.id in _DICE_CALLS
    if isinstance(node, n.Binary) and node.op in ("+", "-"):
        return _dice_shaped(node.left) or _dice_shaped(node.right)
    if isinstance(node, n.Unary) and node.op == "-":
        return _dice_shaped(node.operand)
    return False


def rule_call_text(rule: str, args) -> str:
    """`--rule NAME ARG...` as the expression it asks: NAME(ARG, ...)."""
    return f"{rule}({', '.join(args)})"


def bare_encounter(edition: str, program):
    """A prepared encounter of no combatants on an edition: where a bare --expr runs."""
    from ...dsl.editions.cache import build_encounter
    from ..run.encounter import Prepared
    enc, diags = build_encounter(f"edition {edition}\n", "<odds>")
    if diags:
        raise GrimorioError(diags)
    return Prepared(enc, program)


_names = iter(range(1 << 62))
