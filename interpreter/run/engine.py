"""The runtime: one Engine per encounter run. It owns the RNG, the
combatants, the pinned dice and the transcript, and answers the generated
code's calls (roll, emit, act, cards)."""
from __future__ import annotations

import itertools

import sys
from fractions import Fraction
from types import SimpleNamespace

from ...dsl.diagnostics import Diagnostic, GrimorioError, Span, did_you_mean

from . import runtime_helpers as H
from .refusals import FILENAME
from . import answers as A
from . import expectations as X
from .dice import Dice, ValueBound, make_roll, roll_faces, stream_at, total
from .outcome import standing as _standing
from .semantics import bound_help
from .transcript import JsonEvents
from .values import LIVE_WALKS, SIDE_CHANGES, Combatant, ReadOnly, Refusal, Struct, described, hash_key, unmangle

STEP_BUDGET = H.STEP_BUDGET
MAX_EVENTS = 200_000          # transcript lines and rolls one run may record
EMIT_DEPTH = H.EMIT_DEPTH
Budget = H.Budget


def _form(x, name):
    """The form a value gives in its field `name`: a table row's column, a sheet field, a record's field."""
    if not isinstance(x, (Combatant, Struct)):
        return None
    try:
        return x.get(name)
    except AttributeError:
        return None


class Streams(dict):
    """(who rolls, purpose) -> the draw function of its dice stream (dice.stream), made on its first
    use and kept for the run: `streams[by, purpose]()` is the next draw."""
    __slots__ = ("seed_text",)          # the run's seed in ASCII (dice.stream_at)

    def __missing__(self, key):
        by, purpose = key
        rnd = self[key] = stream_at(self.seed_text, getattr(by, "a_name", None), purpose)
        return rnd


class Engine:
    __slots__ = ("p", "cb", "seed", "streams", "rec", "json", "events", "pins", "strict", "script", "opt",
                 "max_rounds", "round", "steps", "depth", "v", "plain", "verdicts", "round_checks", "budget",
                 "memos", "text_sides", "sides_at", "per_event", "walks")

    def __init__(self, program, combatants, seed=0, record=True, json=False, pins=(), strict=False,
                 script=None, options=None, max_rounds=100, budget=None):
        self.p = program
        self.cb = combatants
        self.seed = seed
        self.streams = Streams()          # (who, purpose) -> its dice stream's draw, made on first use
        self.streams.seed_text = str(seed).encode("ascii")
        self.rec = record
        self.json = json
        self.events: list = JsonEvents(self) if json else []     # JSON lines: with rounds and sheet changes
        self.pins = list(pins)            # dicts: who, purpose, faces, span, used
        self.strict = strict
        self.script = script or {}        # (round, name) -> {"action": [...], "reaction": [...]}
        self.opt = {**program.options, **options} if options else program.options     # (read only)
        # How many reactions a reactor may take to one event (the prelude's option), as the loop walks it.
        self.per_event = range(self.opt.get("reactions_per_event", 1))
        self.max_rounds = max_rounds
        self.round = 0
        self.steps = 0
        self.budget = budget or STEP_BUDGET
        self.depth = 0
        self.v = SimpleNamespace()
        self.plain = not record and not self.pins and not strict   # the fast path: nothing to pin or show
        self.verdicts: list[X.Verdict] = []     # expectations checked so far, in order
        self.round_checks: dict = {}            # round -> [(Expect, function or None)], checked as it ends
        self.memos: dict = {}                   # (rule, args) -> (side changes then, its list): see memo
        self.text_sides: dict = {}              # (rule, a side that is a text) -> its list: see side_walked
        self.sides_at = SIDE_CHANGES[0]         # SIDE_CHANGES when text_sides' lists were made
        # (rule, combatant) -> text_sides' list of its side, as generated code looks first (a miss,
        # or an empty list, asks side_walked); kept only while this is the newest engine (LIVE_WALKS)
        LIVE_WALKS[0].clear()
        self.walks = LIVE_WALKS[0] = {}

    # ------------------------------------------------------------ budget
    def tick(self):
        self.steps += 1
        if self.steps > self.budget:
            raise Budget(self.budget)

    # ------------------------------------------------------------ dice
    def roll(self, dice, by, purpose):
        if not isinstance(dice, Dice):
            raise H.RuleFailure("only dice can be rolled, not {0} (" + H.kind(dice) + ")",
                                "roll DICE: 2D6, dice(n, 6), a dice field; a number is already rolled", "E0204", (dice,))
        rnd = self.streams[by, purpose]
        if self.plain:
            one = dice.single
            if one:
                return rnd() % one + 1 + dice.const
            self._pay_dice(dice)
            return total(dice, roll_faces(dice, rnd))
        self._pay_dice(dice)
        faces = self._pinned(dice, by, purpose) if self.pins or self.strict else None
        if faces is None:
            r = dice.roll(rnd)
        else:
            for _ in dice.sides:          # a pinned roll still counts: later rolls of its stream stay put
                rnd()
            r = make_roll(total(dice, faces), dice, faces)
        if self.rec:
            self._record(("roll", by, purpose, r))
            return r
        return int(r)

    def _pay_dice(self, dice):
        """Every die rolled past the first is a step: a loop rolling huge dice stops at the budget."""
        self.steps += len(dice.sides) - 1
        if self.steps > self.budget:
            raise Budget(self.budget)

    def _record(self, event):
        if len(self.events) >= MAX_EVENTS:
            raise ValueBound(f"the transcript grew past {MAX_EVENTS} lines and rolls", "MAX_EVENTS")
        self.events.append(event)

    def _pinned(self, dice, by, purpose):
        who = getattr(by, "a_name", None)
        for pin in self.pins:
            if pin["used"]:
                continue
            if pin["who"] not in (None, who) or pin["purpose"] not in (None, purpose):
                continue
            pin["used"] = True
            faces = list(pin["faces"])
            want = dice.face_count()
            if len(faces) != want:
                shown = self.p.format.dice(dice)         # the edition's way of writing dice
                if len(faces) == 1 and want > 1 and dice.min <= faces[0] <= dice.max:
                    raise H.RuleFailure(f"pinned roll {faces[0]} gives a total, but {shown} needs one face per die",
                                        f"pin {want} faces, such as " + " ".join("1" for _ in range(want)), "E0503")
                raise _PinError(pin["span"], f"{shown} needs {want} face{'s' if want > 1 else ''}; this pin gives {len(faces)}")
            i = 0
            for _s, count, sides in dice.terms:
                for _ in range(count):
                    if not 1 <= faces[i] <= sides:
                        raise _PinError(pin["span"], f"{faces[i]} is not a face of a d{sides}",
                                        f"a d{sides} shows 1 to {sides}")
                    i += 1
            return faces
        if self.strict:
            what = " ".join(w for w in (who, purpose) if w)
            shown = self.p.format.dice(dice)
            raise H.RuleFailure(f"the script has no pinned dice left for {what or 'this roll'} ({shown})",
                                f'add a line "{what + " " if what else ""}N" to the dice block', "E0503")
        return None

    # ------------------------------------------------------------ transcript
    def say(self, name, message, args, line_id):
        text = message(self, *args)
        payload = {"line": line_id}
        if self.json:
            payload["args"] = [self.p.format.json(a) for a in args]
        self._record(("say", name, text, payload))

    def record_check(self, name, by, purpose, result):
        if self.json:
            self.events.append(("check", {"check": name, "by": getattr(by, "a_name", None), "purpose": purpose,
                                          "result": self.p.format.json(result)}))

    # ------------------------------------------------------------ lists the run keeps
    def memo(self, rule, kinds, *args):
        """A run-invariant rule's list (see invariant.py): worked out once per key and run,
        and again after a rule sets a side; each caller gets its own copy."""
        return self.memo_walked(rule, kinds, *args)[:]

    def memo_side(self, rule, c):
        """memo of a rule of one parameter keyed by its side (kinds "s", the usual case)."""
        return self.side_walked(rule, c)[:]

    def side_walked(self, rule, c):
        """memo_walked of a rule of one parameter keyed by its side: the same, with less to ask. A side
        that is a text is looked up first in `text_sides` (only such sides are kept there, so true
        never meets 1), which holds lists made since the sides last changed (`sides_at`: SIDE_CHANGES
        then); anything else, or a list made before a side changed, takes the long way."""
        try:
            if self.sides_at == SIDE_CHANGES[0]:
                return self.text_sides[rule, c.side_]
        except (KeyError, AttributeError, TypeError):        # (TypeError: a side that is no key, a list)
            pass
        return self._side_walked(rule, c)

    def walk_side(self, rule, c):
        """side_walked for generated code that looks in `walks` first (the actor's list, when its side
        is a text): what it gives is kept there too while this is the newest engine (LIVE_WALKS),
        until a side changes (a side set empties LIVE_WALKS' dict)."""
        kept = self.side_walked(rule, c)
        if self.walks is LIVE_WALKS[0] and c.side_.__class__ is str:
            self.walks[rule, c] = kept
        return kept

    def _side_walked(self, rule, c):
        if not isinstance(c, Combatant):
            return self.memo_walked(rule, "s", c)
        side = c.side_
        if side.__class__ is str:
            # A text side's list lives in text_sides alone: made now, under the stamp of now (a list
            # missing there, or made before a side changed, is made again either way).
            now = SIDE_CHANGES[0]
            if self.sides_at != now:           # lists made before a side changed: none of them holds
                self.text_sides.clear()
                self.sides_at = now
            kept = self.text_sides[rule, side] = rule(self, c)
            return kept
        key = (rule, side) if side.__class__ is not bool else (rule, bool, side)     # a side true is not 1
        try:
            kept = self.memos.get(key)
        except TypeError:                      # a side that is no key (a list)
            return rule(self, c)
        if kept is None or kept[0] != SIDE_CHANGES[0]:
            kept = self.memos[key] = (SIDE_CHANGES[0], rule(self, c))
        return kept[1]

    def memo_walked(self, rule, kinds, *args):
        """The list of memo itself, for code that only walks it (a for's or a comprehension's
        list: nobody keeps it or changes it). `kinds` says how each argument makes the key;
        an argument that cannot calls the rule as it is."""
        if kinds == "s" and isinstance(args[0], Combatant):   # the usual case: keyed by its side
            key = (rule, hash_key(args[0].side_))
        else:
            key = _memo_key(rule, kinds, args)
            if key is None:
                return rule(self, *args)
        try:
            changes, value = self.memos[key]
            if changes == SIDE_CHANGES[0]:
                return value
        except KeyError:
            pass
        except TypeError:                      # a side or a value that is no key (a list)
            return rule(self, *args)
        changes = SIDE_CHANGES[0]
        value = rule(self, *args)
        self.memos[key] = (changes, value)
        return value

    # ------------------------------------------------------------ combatants and conditions
    def round_number(self):
        return self.round

    def combatants(self):
        return list(self.cb)

    def standing(self):
        """The combatants the rules' `stands` declaration says are still standing (run/outcome.py)."""
        return _standing(self)

    def all_conditions(self):
        return list(self.p.conditions.values())

    def condition_named(self, name):
        """condition_named(TEXT): the condition declared with that name; any other text is refused here."""
        cond = self.p.conditions.get(name) if isinstance(name, str) else None
        if cond is not None:
            return cond
        if not isinstance(name, str):
            raise H.RuleFailure("condition_named() takes a text, not {0} (" + H.kind(name) + ")",
                                "condition_named(TEXT): the name a condition is declared with", "E0204", (name,))
        raise H.RuleFailure("no condition is named {0}", did_you_mean(name, list(self.p.conditions))
                            or "the conditions are: " + ", ".join(self.p.conditions), "E0280", (name,))

    def grades(self, cond):
        return list(self._cond(cond).grades)

    def _cond(self, cond):
        if not isinstance(cond, H.ConditionType):
            raise H.not_a_condition(cond)
        return cond

    @staticmethod
    def _who(c):
        """The combatant a card builtin or statement is given; none or any other value is refused here."""
        if not isinstance(c, H.Combatant):
            raise H.not_a_combatant(c)
        return c

    def has(self, c, cond, grade=None):
        cards = self._who(c).cards.get(self._cond(cond).name)
        if grade is not None:
            grade = H.asked_grade(cond, grade, "has()")      # a grade, or its name as a text, as add takes it
        if not cards:
            return False
        return grade is None or grade in cards

    def cards(self, c, cond):
        if not isinstance(cond, H.ConditionType):
            raise H.not_a_condition(cond)
        return [g for g in self._who(c).cards.get(cond.name, ()) if g is not None]

    def add(self, c, cond, grade, data=None):
        self._who(c).cards.setdefault(cond.name, []).append(grade if cond.grades else None)
        if data is not None or cond.name in c.held:       # data kept beside the cards, in step
            c.held.setdefault(cond.name, [None] * (len(c.cards[cond.name]) - 1)).append(data)
        if self.rec:
            event = {"who": c.a_name, "op": "add", "condition": cond.name,
                     "grade": grade.name if grade is not None else None}
            if data is not None:
                event["data"] = self.p.format.json(data)
            self.events.append(("card", event))

    def held(self, c, cond):
        """The data given with the cards of a condition c holds, in the order received (none where none was)."""
        cards = self._who(c).cards.get(self._cond(cond).name, ())
        return list(c.held.get(cond.name, [None] * len(cards)))

    def agree(self, x, word, plural=None):
        """{x:WORD}: the word as it agrees with x. A count (a number, a list's length): the word for
        1 and -1, else its plural (as written, or by the format "plural"). Anything else: the
        word's form in the table the option "agreement" names, the one x gives in the field its
        first column names (the first form when x gives none)."""
        count = len(x) if type(x) is list else x
        if type(count) is not bool and isinstance(count, (int, Fraction)):
            if count in (1, -1):
                return word
            return plural if plural is not None else self.p.format.t["plural"].replace("{word}", word)
        table = self.p.tables.get(self.opt.get("agreement") or "")
        row = table.index.get(word) if table is not None else None
        if row is None:
            raise H.RuleFailure("there is no word {0} to agree with {1}", (
                table is not None and did_you_mean(word, list(table.index))) or "the words that agree are the rows "
                "of the table the option \"agreement\" names (see docs/language.md)", "E0265", (word, x))
        names = row._names
        form = _form(x, names[0])
        if form is None:
            return row.get(names[1])
        if form not in names[1:]:
            raise H.RuleFailure("{0} gives the form {1}, which the agreement table does not have",
                                f"its forms: {', '.join(names[1:])}", "E0266", (x, form))
        return row.get(form)

    def remove(self, c, cond, grade):
        held = self._who(c).cards.get(cond.name)
        if not held:
            return
        data = c.held.get(cond.name)
        if grade is None:
            held.clear()
            if data is not None:
                data.clear()
        elif grade in held:
            i = held.index(grade)
            del held[i]
            if data is not None:
                del data[i]
        if not held:
            del c.cards[cond.name]          # a condition held is a key; none held, no key
            c.held.pop(cond.name, None)
        if self.rec:
            self.events.append(("card", {"who": c.a_name, "op": "remove", "condition": cond.name,
                                         "grade": grade.name if grade is not None else None}))

    def receive(self, c, cond, grade, data=None):
        if cond.on_receive is not None:
            self.tick()
            cond.on_receive(self, c, grade)
        else:
            self.add(c, cond, grade, data)

    # ------------------------------------------------------------ events and reactions
    def choose_reaction(self, who, event, options, ev):
        entry = self._scripted(who, "reaction") if self.script else None
        while entry is not None:
            words, span, refused = entry
            if words[0] == "none":
                return None
            chosen = next((r for r in options if r.name == words[0]), None)
            reason = None if chosen is not None else self._reaction_refused(who, event, words[0], ev)
            if refused is None:
                if reason is not None:
                    raise _ScriptError(span, f'the rules do not allow {who} to "{words[0]}" now: {reason.message}',
                                       reason.help([r.name for r in options]))
                return chosen
            self.verdicts.append(X.refusal_verdict(span, who, words, refused, reason))
            entry = self._scripted(who, "reaction")
        if not options:
            return None
        tactic = self.p.tactics.get(who.tactic)
        if tactic is not None and event in tactic.choose:
            return tactic.choose[event](self, who, options, ev)
        return H.first_reaction(self, who, options, ev)

    def _reaction_refused(self, who, event, name, ev) -> X.Reason:
        r = self.p.reaction_by_name[name]
        if r.event != event:
            return X.Reason(f'"{name}" answers {r.event}, and this is {event}', r.decl.span, clause=False)
        if r.by(self, ev) is not who:
            return X.Reason(X.clause_text(self.p.ruleset.sources, "by", r.decl.by.span), r.decl.by.span)
        return X.failing_clause(self.p, r.decl, (who, ev), self)

    # ------------------------------------------------------------ actions
    def act(self, c):
        while self.script:
            entry = self._scripted(c, "action")
            if entry is None:
                break
            done = self._scripted_action(c, entry)
            if done is not None:
                return done
        tactic = self.p.tactics.get(c.tactic)
        return tactic.act(self, c) if tactic is not None else False

    def _scripted_action(self, c, entry):
        """Take a scripted action choice: True or False as act() answers, or None for a
        choice the script expects to be refused (the next choice, or the tactic, decides)."""
        words, span, refused = entry
        if words[0] == "pass":
            return False
        action = self.p.actions.get(words[0])
        if action is None:
            raise _ScriptError(span, f'there is no action "{words[0]}"',
                               did_you_mean(words[0], self.p.actions))
        if len(words) - 1 != len(action.domains):
            raise _ScriptError(span, f'"{words[0]}" takes {len(action.domains)} choice'
                                     f'{"s" if len(action.domains) != 1 else ""} after it, not {len(words) - 1}',
                               f"its parameters: {', '.join(action.params[1:]) or 'none'}")
        args, reason = self._action_args(c, action, words, span)
        if reason is None and not action.req(self, c, *args):
            reason = X.failing_clause(self.p, action.decl, (c, *args), self)
        if refused is not None:
            self.verdicts.append(X.refusal_verdict(span, c, words, refused, reason))
            return None
        if reason is not None:
            raise _ScriptError(span, f"the rules forbid {c} to {' '.join(words)} now: {reason.message}", reason.help())
        self.tick()
        action.run(self, c, *args)
        return True

    def _action_args(self, c, action, words, span):
        """The values the words of a scripted action name, or why one of them is no choice now."""
        args = []
        for word, domain, param in zip(words[1:], action.domains, action.decl.params[1:]):
            options = domain(self, c, *args)
            found = self._answer(span, word, options)
            if not found:
                return args, X.Reason(f'"{word}" is not a choice for {action.name} here '
                                      f'(choices: {A.shown(options, self.p.format)})',
                                      param.domain.span if param.domain is not None else None, clause=False)
            args.append(found[0])
        return args, None

    def _answer(self, span, word, options) -> list:
        """The option a scripted word names ([] for none; see answers.py): a word that
        names two options tells nothing apart, and is the script's mistake."""
        found = A.matching(word, options, self.p.format)
        if len(found) > 1:
            raise _ScriptError(span, f'"{word}" names more than one choice here: {A.shown(found, self.p.format)}',
                               "these choices are shown alike: the rules must tell them apart for a script to")
        return found

    def choose(self, c, items):
        """A question a rule asks c's controller in the middle of the rule: one item of
        the list. The script answers it (`choose VALUE`); else its tactic, else the first item."""
        if not isinstance(c, H.Combatant) or not isinstance(items, list):
            raise H.not_a_question(c, items)
        entry = self._scripted(c, "choose") if self.script else None
        while entry is not None:
            taken, item = self._scripted_answer(c, items, entry)
            if taken:
                return item
            entry = self._scripted(c, "choose")
        return self._unscripted_choice(c, items)

    def _unscripted_choice(self, c, items):
        """c's answer nobody scripted: its tactic's `choose` line (compiler._tactic_choose), else
        the first item; none for an empty list."""
        if not items:
            return None
        tactic = self.p.tactics.get(c.tactic)
        answer = tactic.answer if tactic is not None else None
        return answer(self, c, items) if answer is not None else items[0]

    def _scripted_answer(self, c, items, entry):
        """A scripted answer to choose(): (True, the item) to take it, or (False, None) for
        an answer the script expects to be refused (the next answer, or the default, decides)."""
        words, span, refused = entry
        word = words[1]                      # one value: the encounter check sees to it (dsl/check/encounter_check.py)
        found = self._answer(span, word, items)
        reason = None if found else X.Reason(f'"{word}" is not one of the choices now', clause=False)
        if refused is not None:
            self.verdicts.append(X.refusal_verdict(span, c, words, refused, reason))
            return False, None
        if reason is not None:
            raise _ScriptError(span, reason.message, f"choices: {A.shown(items, self.p.format)}")
        return True, found[0]

    def unscripted_reaction(self, c) -> bool:
        """Whether the script gives c no reaction this round (its tactic then chooses, testing
        each reaction as its preferences come to it). A value that is no combatant is left to
        choose_reaction, which refuses it."""
        if not isinstance(c, Combatant):
            return False
        queue = self.script.get((self.round, c.a_name))
        return not (queue and queue["reaction"])

    def _scripted(self, c, kind):
        if not self.script:
            return None
        if not isinstance(c, Combatant):
            # Only a combatant decides: a value with a name is no combatant to run a scripted action
            # or reaction for (compile/combatants.py holds an actor a combatant in the rules' code).
            raise H.not_a_combatant(c)
        queue = self.script.get((self.round, c.a_name))
        if queue:
            q = queue[kind]
            if q:
                return q.pop(0)
        return None

    # ------------------------------------------------------------ running
    def run_rounds(self):
        if not self.p.rounds:
            return
        _name, rounds, final = self.p.rounds[0]
        try:
            rounds(self)                          # the compiled loop of rounds (compiler.round)
        except H.StopRun:
            if self.round_checks:
                self.check_round(self.round)
        try:
            final(self)
        except H.StopRun:
            pass

    def script_left_over(self):
        """Scripted decisions never asked for, once the encounter is over: round 0's (the do:
        block's questions) and those of rounds it never reached (or of any round, when none ran)."""
        for rnd in sorted({r for r, _who in self.script}):
            if rnd == 0 or rnd > self.round:
                self.script_left(rnd, ended=rnd > 0)

    # ------------------------------------------------------------ expectations
    def expected(self, node, ok, left, right):
        self.verdicts.append(X.Verdict(node.span, bool(ok), left, right, show_value=self.p.format.show))

    def expect_said(self, node):
        self.verdicts.append(X.said(self, node))

    def check_round(self, rnd):
        for node, fn in self.round_checks.pop(rnd, ()):
            if fn is None:
                self.expect_said(node)
            else:
                self.expected(node, *fn(self))

    def rounds_never_run(self):
        """Expectations of rounds the encounter never reached fail, saying so."""
        for rnd in sorted(self.round_checks):
            for node, _fn in self.round_checks[rnd]:
                self.verdicts.append(X.Verdict(node.span, False, help=f"the encounter ended before round {rnd}"
                                               f" (it lasted {self.round} round{'s' if self.round != 1 else ''})"))
        self.round_checks = {}

    def script_left(self, rnd, ended=False):
        """A scripted decision the rules never asked for means the scenario went otherwise."""
        for (r, who), queues in self.script.items():
            if r != rnd:
                continue
            for words, span, _refused in queues["action"] + queues["reaction"] + queues["choose"]:
                if words[0] in ("pass", "none"):
                    continue
                if ended:
                    raise _ScriptError(span, f"the encounter ended before round {rnd}",
                                       f"it lasted {self.round} round{'s' if self.round != 1 else ''}")
                raise _ScriptError(span, f'{who} never got to "{" ".join(words)}" in round {rnd}',
                                   "the rules asked for no more such decisions that round "
                                   "(no actions left, no event to answer, or the encounter ended)")


def _memo_key(rule, kinds, args):
    """The key of a memo call (see Engine.memo), or None when an argument cannot make one:
    read as a side or by its fields, only a combatant keeps what the rule read of it."""
    key = [rule]
    for kind, a in zip(kinds, args):
        if kind == "v":
            key.append(hash_key(a))            # memo(true) is not memo(1)
        elif not isinstance(a, Combatant):
            return None
        else:
            key.append(hash_key(a.side_) if kind == "s" else a)
    return tuple(key)


class _ScriptError(Exception):
    def __init__(self, span, message, help=None):
        super().__init__(message)
        self.span, self.message, self.help = span, message, help


class _PinError(_ScriptError):
    pass


def locate(program, exc) -> Diagnostic:
    """A failure of a run, as a diagnostic at the rule text. The language's own refusals carry
    their code and message; a field the rule text asks of a value without it is told by the
    exception's own fields (its name and object, never its message); any other Python
    exception is a bug of grimorio's (E0003), never shown to the designer as their mistake."""
    if isinstance(exc, _ScriptError):
        return Diagnostic("E0504" if not isinstance(exc, _PinError) else "E0503", exc.message, exc.span, exc.help)
    span, innermost, rule_frames = _rule_frame(exc)
    span = span or Span("<rules>", 0, 0)
    if isinstance(exc, RecursionError) and rule_frames < 100:       # deep in a value, not in the rules' calls
        return Diagnostic("E0502", "a value nests lists (or records) too deep to compare or show", span,
                          "a list appended into a list again and again, thousands of levels deep; keep lists flat")
    told = _LANGUAGE.get(type(exc))
    if told is None:
        told = next((fn for cls, fn in _LANGUAGE.items() if isinstance(exc, cls)), None)
    if told is not None:
        return told(program, exc, span)
    if isinstance(exc, AttributeError) and innermost and isinstance(exc.name, str):
        return _missing_field(program, exc, span)
    return Diagnostic("E0003", f"grimorio failed while running these rules ({type(exc).__name__}): "
                               "this is a bug in grimorio, not in the rules", span,
                      "please report it with the rules and the encounter that made it")


def _rule_frame(exc):
    """The span of the innermost line of rule text the traceback passes through (generated
    code keeps its line spans in its own globals: the program's, or an encounter's), and
    whether the exception was raised by that line itself (no runtime frame below it), and how
    many frames of rule text it passes through."""
    span, innermost = None, False
    tb = exc.__traceback__
    rule_frames = 0
    while tb is not None:
        innermost = tb.tb_frame.f_code.co_filename.startswith(FILENAME)
        if innermost:
            rule_frames += 1
            spans = tb.tb_frame.f_globals.get("__spans__", ())
            line = tb.tb_lineno - 1
            if 0 <= line < len(spans) and spans[line] is not None:
                span = spans[line]
                if getattr(span, "inner", None):         # rules compiled in place (compile/code.py)
                    span = _in_place(tb, span)
        tb = tb.tb_next
    return span, innermost, rule_frames


def _in_place(tb, span):
    """The span of the innermost rule compiled in place in the line that holds the failing
    instruction (by its column), else the line's own: where a call of that rule would have failed."""
    positions = tb.tb_frame.f_code.co_positions()
    col = next(itertools.islice(positions, tb.tb_lasti // 2, None), (None, None, None, None))[2]
    found = [(end - start, inner) for start, end, inner in span.inner if col is not None and start <= col < end]
    return min(found, key=lambda f: f[0])[1] if found else span.plain()


def _stopped(_program, _exc, span):
    return Diagnostic("E0501", '"stop" ends an encounter, and nothing runs one here', span,
                      "use stop in a round's steps, its finally, or an encounter's do: block")


def _ran_too_long(_program, exc, span):
    return Diagnostic("E0502", "the rules ran too long (a loop or a cascade of events that does not end)", span,
                      f"the budget is {exc.args[0] if exc.args else STEP_BUDGET} steps (each rule call, loop turn, "
                      f"list element, round, event and die counts one) and {EMIT_DEPTH} nested events; if the rules "
                      "are right, raise it with grimorio run --budget N")


def _endless(_program, _exc, span):
    return Diagnostic("E0502", "the rules call themselves without end", span,
                      "a rule that calls itself needs a case that returns without the call")


def _read_only(_program, exc, span):
    return Diagnostic("E0204", str(exc), span, "keep what changes on the combatant: set a field of its sheet")


def _past_bound(_program, exc, span):
    return Diagnostic("E0506", exc.message, span, bound_help(exc.bound))


def _refused(program, exc, span):
    message, help = exc.text(program.format.show)       # values in the edition's formats
    return Diagnostic(exc.code, message, span, help)


# The language's own ways to stop a rule, each with its diagnostic.
_LANGUAGE = {H.StopRun: _stopped, Budget: _ran_too_long, RecursionError: _endless, ReadOnly: _read_only,
             ValueBound: _past_bound, Refusal: _refused}


def _missing_field(program, exc: AttributeError, span) -> Diagnostic:
    """A field the rule text reads of a value that has none such (`x.f` compiles to Python's
    attribute access; the checker proves most, the rest are told here)."""
    name = exc.name
    obj = exc.obj
    if obj is None:
        return _of_none(name, span)
    what = described(obj, program.format.show) if obj is not None and not isinstance(obj, type) else "this value"
    if name in COMBATANT_ONLY:
        return Diagnostic("E0204", f"{what} is not a combatant", span,
                          "conditions, sides and tactics belong to combatants")
    if name in ("rank", "kind"):
        return Diagnostic("E0204", f"{what} is not an outcome or a grade", span, H.ORDER_HELP)
    others = _sheets_with(program, obj, unmangle(name))
    if others:                                 # a field of other sheets than the combatant's
        return Diagnostic("E0203", f'{what} has no field "{unmangle(name)}": its sheet is "{obj.a_sheet}"', span,
                          f'{"the sheet" if len(others) == 1 else "the sheets"} {", ".join(_quoted(others))} '
                          f'{"has" if len(others) == 1 else "have"} it: test the sheet first, as in '
                          f'if c.sheet == "{others[0]}":')
    return Diagnostic("E0203", f'{what} has no field "{unmangle(name)}"', span,
                      "check the spelling against the sheet, the table columns or the event")


def _of_none(name: str, span) -> Diagnostic:
    """A field read of none: say it is none, and where such a none comes from."""
    if name in COMBATANT_ONLY:
        return Diagnostic("E0204", "this value is none, not a combatant", span, H.NONE_HELP)
    if name in ("rank", "kind"):
        return Diagnostic("E0204", "this value is none, not an outcome or a grade", span, H.NONE_HELP)
    return Diagnostic("E0203", f'this value is none: it has no field "{unmangle(name)}"', span, H.NONE_HELP)


def _quoted(names) -> list[str]:
    return [f'"{name}"' for name in names]


def _sheets_with(program, obj, field: str) -> list[str]:
    """The sheets that have `field`, when `obj` is a combatant of another sheet (else none)."""
    if not isinstance(obj, Combatant) or getattr(obj, "a_sheet", None) is None:
        return []
    return [s for s, fields in program.sheet_fields_by.items() if any(f.name == field for f in fields)]


# Attributes the runtime itself reads on combatants (a value without them is no combatant).
COMBATANT_ONLY = ("cards", "a_side", "acts", "tactic")


def guarded(program, fn, *args, stops=False):
    """Run fn; turn anything a rule can raise into a GrimorioError. `stops`: the
    caller ends the encounter on a `stop`; elsewhere a `stop` is a mistake."""
    try:
        return fn(*args)
    except GrimorioError:
        raise
    except H.StopRun as exc:
        if stops:
            raise
        raise GrimorioError(locate(program, exc)) from None
    except (Exception, RecursionError) as exc:  # noqa: BLE001 - every failure becomes a diagnostic
        raise GrimorioError(locate(program, exc)) from None


sys.setrecursionlimit(max(sys.getrecursionlimit(), 4000))
