"""`grimorio simulate` of two rule sets on common dice: which side ends alone
standing under each, and the difference, with its interval.

Run i of both rule sets uses the same seed, `run_seed(S, i)`, and every die
is drawn from a stream keyed by (seed, who, purpose, count): a rule change
leaves the unrelated rolls of run i alone, so the two outcomes of a run are
strongly correlated. The difference of the win rates is then estimated from
the per-run differences d_i = b_i - a_i (a paired estimate), whose variance
is var(a) + var(b) - 2 cov(a, b): far smaller than the var(a) + var(b) of
two independent simulations. Both intervals are reported.

Everything counted is a joint table, (sides standing under the first rule
set, sides standing under the second) -> runs: tables of disjoint runs add
up, so the result does not depend on how the runs were split among workers.
`independent` draws the second rule set's runs from other seeds, to measure
what common dice save with the same code.
"""
from __future__ import annotations

import hashlib
import math
import sys
from collections import Counter
from ...dsl.records import dataclass

from ...dsl.diagnostics import escape
from .simulate import RunError, Spec, merged, run_seed, runner_for, shares
from .tally import Z95, Tally, wilson


def other_seed(seed: int, index: int) -> int:
    """A seed for run `index` unrelated to run_seed(seed, index): dice not in common."""
    digest = hashlib.blake2b(f"{seed}:{index}:other".encode(), digest_size=6).digest()
    return int.from_bytes(digest, "big")


@dataclass(frozen=True)
class Pair:
    """The two rule sets' specs (their argv tell them apart) and whether their dice are in common."""
    a: Spec
    b: Spec
    common: bool = True


class Joint:
    """(sides standing under a, sides standing under b) -> runs."""

    def __init__(self):
        self.runs = 0
        self.counts: Counter = Counter()

    def merge(self, other: "Joint") -> "Joint":
        self.runs += other.runs
        self.counts.update(other.counts)
        return self


def _standing(runner, index: int, seed: int) -> tuple:
    one = Tally()
    runner.run_all(one, ((index, seed),))
    return next(iter(one.standing), ())


def run_pair_share(pair: Pair, start: int, stop: int):
    """Runs start..stop-1 under both rule sets: (Joint, None), or (None, RunError) for the first that failed."""
    joint = Joint()
    ra, rb = runner_for(pair.a), runner_for(pair.b)
    try:
        for i in range(start, stop):
            seed = run_seed(pair.a.seed, i)
            a = _standing(ra, i, seed)
            b = _standing(rb, i, seed if pair.common else other_seed(pair.a.seed, i))
            joint.counts[(a, b)] += 1
            joint.runs += 1
    except RunError as exc:
        return None, exc
    return joint, None


def simulate_pair(pair: Pair, n: int, workers: int = 1, progress=None) -> Joint:
    """The joint table of runs 0..n-1, on this process or on a pool of `workers` processes
    (forked on Linux, where they find the runners this process kept)."""
    if workers <= 1:
        results = ((run_pair_share(pair, a, b), b - a) for a, b in shares(n))
    else:
        results = _pool(pair, n, workers)
    return merged(results, Joint(), progress)


def _pool(pair: Pair, n: int, workers: int):
    from .simulate import WINDOW, _first_completed, submitted, worker_pool
    size = max(1, -(-n // (workers * 4)))
    with worker_pool(workers) as pool:
        yield from submitted(pool.submit, _first_completed, run_pair_share, (pair,), shares(n, min(size, 500)),
                             workers * WINDOW)


# ---------------------------------------------------------------- the comparison
def difference(n11: int, n10: int, n01: int, n: int) -> dict:
    """The difference b - a of two rates from n paired 0/1 outcomes (n11 both, n10 only a, n01
    only b): the estimate, its paired 95% interval, and the interval two independent runs of n
    would give (the normal approximation, clipped to [-1, 1])."""
    pa, pb = (n11 + n10) / n, (n11 + n01) / n
    d = pb - pa
    # The sample variance of the per-run differences (each -1, 0 or 1).
    # One run tells nothing of the spread: the interval is then the whole range (JSON has no infinity).
    half = Z95 * math.sqrt(((n10 + n01) / n - d * d) / (n - 1)) if n > 1 else 2.0
    half_apart = Z95 * math.sqrt((pa * (1 - pa) + pb * (1 - pb)) / n)
    return {"difference": d, "low": max(-1.0, d - half), "high": min(1.0, d + half), "half_width": half,
            "independent_low": max(-1.0, d - half_apart), "independent_high": min(1.0, d + half_apart),
            "independent_half_width": half_apart,
            "narrower": (half_apart / half) if half > 0 else None}


def _rate(k: int, n: int) -> dict:
    low, high = wilson(k, n)
    return {"runs": k, "rate": k / n if n else 0.0, "low": low, "high": high}


def compare(joint: Joint, sides: list[str], names: tuple[str, str], enc_title: str, seed: int, common: bool) -> dict:
    n = joint.runs
    out = {"encounter": enc_title, "a": names[0], "b": names[1], "runs": n, "seed": seed,
           "common_dice": common, "sides": []}
    groups = [(s, lambda t, s=s: t == (s,)) for s in sides]
    groups.append(("none or several", lambda t: t not in {(s,) for s in sides}))
    for label, wins in groups:
        c = Counter()
        for (a, b), k in joint.counts.items():
            c[(wins(a), wins(b))] += k
        n11, n10, n01 = c[(True, True)], c[(True, False)], c[(False, True)]
        out["sides"].append({"side": label, "a": _rate(n11 + n10, n), "b": _rate(n11 + n01, n),
                             **difference(n11, n10, n01, n)})
    out["parted"] = sum(k for (a, b), k in joint.counts.items() if a != b)
    return out


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _signed(x: float) -> str:
    return f"{100 * x:+.1f}%"


def render_text(s: dict) -> str:
    dice = "on common dice" if s["common_dice"] else "on independent dice"
    lines = [f"{s['encounter'] or 'encounter'}: {s['runs']} runs of each rule set {dice}, seed {s['seed']}",
             f"  A: {s['a']}", f"  B: {s['b']}",
             "side alone standing at the end: A, B (95% intervals), and B - A with its 95% interval "
             f"({'paired run by run' if s['common_dice'] else 'runs apart'}; independent runs would give the last)"]
    width = max([len(x["side"]) for x in s["sides"]] + [14])
    for x in s["sides"]:
        a, b = x["a"], x["b"]
        lines.append(f"  {x['side']:<{width}}  A {_pct(a['rate']):>6} [{_pct(a['low'])}, {_pct(a['high'])}]"
                     f"  B {_pct(b['rate']):>6} [{_pct(b['low'])}, {_pct(b['high'])}]"
                     f"  B - A {_signed(x['difference'])} [{_signed(x['low'])}, {_signed(x['high'])}]"
                     f"  independent runs: ±{100 * x['independent_half_width']:.1f}%")
    parted = s["parted"]
    lines.append(f"runs whose outcome differs between A and B: {parted} of {s['runs']} "
                 f"({_pct(parted / s['runs'] if s['runs'] else 0.0)})")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- the command line
def compare_command(args, sources, cl) -> int:
    """`grimorio simulate ENC --edition A --edition B` or `... --compare --house FILE`:
    the second rule set carries the --house files, as in `grimorio diff`."""
    import argparse
    from ...dsl.diagnostics import Diagnostic, GrimorioError, render_all
    from .cli import prepare
    from .simulate import keep
    from .simulate_cli import _portable_argv, _progress
    editions = args.edition
    for flag, given in (("--report", args.report), ("--backend", args.backend != "local"),
                        ("--scheduler", args.scheduler)):
        if given:
            raise GrimorioError(Diagnostic("E0002", f"a comparison of two rule sets does not take {flag}",
                                           cl.span(flag), "compare on local processes (--workers W), "
                                                          "or simulate each rule set alone"))
    if len(editions) > 2 or (len(editions) < 2 and not args.house):
        raise GrimorioError(Diagnostic("E0002", "grimorio simulate compares two rule sets", cl.whole(),
                                       "give --edition A --edition B, or one edition (or the encounter's) "
                                       "and --house FILE"))
    sets = [argparse.Namespace(**{**vars(args), "edition": editions[:1], "house": []}),
            argparse.Namespace(**{**vars(args), "edition": editions[-1:]})]
    prepared = [prepare(ns, sources, cl) for ns in sets]
    seed = args.seed if args.seed is not None else (prepared[0].enc.seed or 0)
    specs = [Spec(_portable_argv(ns), seed) for ns in sets]
    for spec, p in zip(specs, prepared):
        keep(spec, p)
    pair = Pair(specs[0], specs[1], common=not args.independent_dice)
    try:
        with _progress(args.runs) as tick:
            joint = simulate_pair(pair, args.runs, args.workers, tick)
    except RunError as exc:
        print(render_all(exc.diagnostics, sources), file=sys.stderr)
        print(f"run {exc.index} failed; to see it: grimorio run {args.encounter} --seed {exc.seed}", file=sys.stderr)
        return 2
    names = tuple(" + ".join([p.p.ruleset.edition.name] + list(ns.house)) for p, ns in zip(prepared, sets))
    sides = list(dict.fromkeys(side for _i, _name, side, *_rest in prepared[0].blueprints))
    summary = compare(joint, sides, names, prepared[0].enc.title or "", seed, pair.common)
    if args.format == "json":
        import json
        sys.stdout.write(json.dumps(summary, ensure_ascii=False, indent=2) + "\n")
    else:
        sys.stdout.write(escape(render_text(summary)))
    return 0
