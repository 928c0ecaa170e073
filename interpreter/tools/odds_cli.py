"""`grimorio odds` on the command line: the question, the enumeration within its budget,
and the distribution as text or JSON (or, past the budget, a Monte Carlo estimate if asked)."""
from __future__ import annotations

import sys
from fractions import Fraction

from ...dsl.diagnostics import Diagnostic, GrimorioError, Span, escape
from ..run.values import json_text
from . import odds as O


def odds_command(args, sources, cl) -> int:
    prepared = _prepared(args, sources, cl)
    question = _question(args, prepared, sources, cl)
    budget = O.Budget(args.max_runs or O.RUNS, args.max_seconds or O.SECONDS)
    try:
        dist = O.exact(question, budget)
    except O.OverBudget as over:
        if not args.estimate:
            raise GrimorioError(over_budget(over, cl)) from None
        print(over_budget(over, cl).message + f"; instead, an estimate from {args.estimate} runs:", file=sys.stderr)
        dist = O.estimate(question, args.estimate, args.seed or 0)
    sys.stdout.write(render_json(dist, question) if args.format == "json" else escape(render_text(dist, question)))
    return 0


def over_budget(over: O.OverBudget, cl) -> Diagnostic:
    spent = f"{over.runs:,} runs of the rules" + (f" in {over.seconds:.0f} s" if over.why == "seconds" else "")
    return Diagnostic("E0070", f"the exact odds need more than the budget: {spent}, with {over.open:,} branches "
                               "of the dice still open", cl.span("odds"),
                      f"raise --max-runs (now {over.budget.runs:,}) or --max-seconds (now {over.budget.seconds:g}), "
                      "ask a smaller question, or add --estimate N for a Monte Carlo estimate of N runs "
                      "with its 95% intervals (an estimate, not the exact odds)")


def _prepared(args, sources, cl):
    if args.encounter is not None:
        from .preparing import prepare
        return prepare(args, sources, cl, edit=lambda enc: with_fields(enc, args.with_, cl))
    if not args.edition:
        raise GrimorioError(Diagnostic("E0071", "grimorio odds needs an encounter, or an edition for a bare --expr",
                                       cl.whole(), 'grimorio odds ENCOUNTER [--expr "..."], or grimorio odds '
                                                   '--edition E --expr "..."'))
    from ..compile.programs import program_for
    from .preparing import house_files, print_warnings, rules_roots
    program = program_for(args.edition, cl.span(args.edition), sources, rules_roots(args.rules, cl) or None,
                          house_files(args.house, cl))
    print_warnings(program, sources)
    return O.bare_encounter(args.edition, program)


def _question(args, prepared, sources, cl) -> O.Question:
    if args.expr is not None and args.rule is not None:
        raise GrimorioError(Diagnostic("E0071", "odds answers one question: --expr or --rule, not both",
                                       cl.span("--rule"), "ask the other one in a second command"))
    if args.rule is not None:
        return O.question_from_text(prepared, O.rule_call_text(args.rule[0], args.rule[1:]), "<--rule>", sources)
    if args.expr is not None:
        return O.question_from_text(prepared, args.expr, "<--expr>", sources)
    if args.encounter is None:
        raise GrimorioError(Diagnostic("E0071", "a bare edition needs a question", cl.whole(),
                                       'ask it with --expr "...", or --rule NAME ARG...'))
    return O.Question(prepared)


def with_fields(enc, given, cl):
    """The encounter with the fields --with gives (WHO.FIELD=VALUE), as if its combatant lines said so."""
    if not given:
        return enc
    from ...dsl.editions.cache import build_encounter
    from ...dsl.records import replace
    combatants = list(enc.combatants)
    for item in given:
        who, dot, rest = item.partition(".")
        fname, eq, value = rest.partition("=")
        at = cl.span(item)
        index = next((i for i, c in enumerate(combatants) if c.name == who), None)
        if not dot or not eq or index is None:
            raise GrimorioError(Diagnostic("E0071", f'--with {item} names no combatant\'s field', at,
                                           "write --with WHO.FIELD=VALUE, WHO a combatant of the encounter: "
                                           + ", ".join(c.name for c in combatants)))
        built, diags = build_encounter(f"combatant {who}:\n  {fname.strip()} {value.strip()}\n", "<--with>")
        if diags or not built.combatants or not built.combatants[0].fields:
            raise GrimorioError(Diagnostic("E0071", f"--with {item}: the value is not one a combatant line takes",
                                           at, 'as in the encounter: a number, 60%, a word or a "quoted text"'))
        k, v, _span = built.combatants[0].fields[0]
        c = combatants[index]
        fields = [f for f in c.fields if f[0] != k] + [(k, v, at)]
        combatants[index] = replace(c, fields=tuple(fields))
    return replace(enc, combatants=tuple(combatants))


# ---------------------------------------------------------------- output
def _pct(p) -> str:
    return f"{100 * float(p):.2f}%"


def rows(dist: O.Distribution) -> list[dict]:
    ordered = dist.ordered()
    at_least = dist.at_least() if dist.numeric else [None] * len(ordered)
    out = []
    for (value, shown, p), ge in zip(ordered, at_least):
        # An estimate's share is a count of its runs, not reduced: 283 of 400 is not 566 of 800.
        share = f"{round(p * dist.estimated)}/{dist.estimated}" if dist.estimated else str(p)
        row = {"outcome": shown, "probability": share, "percent": round(100 * float(p), 6)}
        if ge is not None:
            row["value"] = int(value) if Fraction(value).denominator == 1 else str(value)
            row["at_least"], row["at_least_percent"] = str(ge), round(100 * float(ge), 6)
        out.append(row)
    return out


def summary(dist: O.Distribution, question: O.Question) -> dict:
    out = {"question": question.text or "the checks of the encounter", "exact": not dist.estimated,
           "runs": dist.runs, "outcomes": rows(dist)}
    if dist.estimated:
        from .tally import wilson
        for row, (_v, _s, p) in zip(out["outcomes"], dist.ordered()):
            low, high = wilson(round(p * dist.estimated), dist.estimated)
            row["interval95"] = [round(100 * low, 4), round(100 * high, 4)]
    if dist.numeric:
        mean = dist.mean()
        ordered = dist.ordered()
        out.update(mean=str(mean), mean_value=float(mean), lowest=str(ordered[0][0]), highest=str(ordered[-1][0]))
    if question.expectations:
        out["expectations"] = [{"line": span.line, "probability": str(p), "percent": round(100 * float(p), 6)}
                               for span, p in zip(question.expectations, dist.expectations)]
    return out


def render_json(dist, question) -> str:
    return json_text(summary(dist, question), ensure_ascii=False, indent=2) + "\n"


def render_text(dist, question) -> str:
    s = summary(dist, question)
    how = f"exact, {s['runs']:,} runs of the rules" if s["exact"] else \
        f"ESTIMATE from {dist.estimated:,} seeded runs, not exact: 95% intervals"
    lines = [f"odds of {s['question']} ({how})"]
    width = max([7] + [len(r["outcome"]) for r in s["outcomes"]])
    head = f"  {'outcome':<{width}}  {'probability':>13}  {'%':>8}"
    if dist.numeric:
        head += f"  {'at least':>9}"
    if dist.estimated:
        head += "  interval"
    lines.append(head)
    for r in s["outcomes"]:
        line = f"  {r['outcome']:<{width}}  {r['probability']:>13}  {r['percent']:>7.2f}%"
        if dist.numeric:
            line += f"  {r['at_least_percent']:>8.2f}%"
        if dist.estimated:
            line += f"  {r['interval95'][0]:.2f}%-{r['interval95'][1]:.2f}%"
        lines.append(line)
    if dist.numeric:
        lines.append(f"mean {s['mean_value']:.4g} (= {s['mean']}); lowest {s['lowest']}, highest {s['highest']}")
    for x in s.get("expectations", ()):
        lines.append(f"expect at line {x['line']}: holds with {x['probability']} ({x['percent']:.2f}%)")
    return "\n".join(lines) + "\n"
