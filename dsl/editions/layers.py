"""Layers: an edition that extends another, or a house-rule file, applied to
the Ruleset below it as AST-to-AST changes, before anything is checked.

A layer's new declarations are added (a same-named one of the same kind
replaces the one below, keeping its place); then its patches run in the
order written. Every change is recorded with the layer and line that made
it, so diagnostics and `--explain` can name them.
"""
from __future__ import annotations

from ..records import dataclass, replace

from ..syntax import nodes as n
from ..diagnostics import Diagnostic, Span, did_you_mean

KIND_OF = n.KIND_OF
CLASS_OF = {kind: cls for cls, kind in KIND_OF.items()}
WITH_BODY = ("rule", "action", "reaction")


@dataclass(frozen=True)
class Layer:
    name: str              # the edition's name, or the house file's name without ".rules"
    file: str              # where it is, as diagnostics show it
    house: bool = False    # given with --house (else an edition that extends another)

    def __str__(self) -> str:
        return f'{"house rules" if self.house else "edition"} {self.name} ({self.file})'


@dataclass(frozen=True)
class Change:
    layer: Layer
    span: Span             # the layer's line
    what: str              # 'replaces rule "x"', 'removes step "y" of round "z"', ...
    kind: str
    name: str
    below: Span | None     # the declaration it changed, where it was
    cell: tuple | None = None   # a changed cell: (its column, its row's key, where its new value is written)


class LayerError(Exception):
    def __init__(self, diag: Diagnostic):
        self.diag = diag


def apply_layer(rs, layer: Layer, decls, diags: list[Diagnostic], below: bool = True) -> None:
    """Add a layer's declarations, then run its patches, in order. `below` is false
    for an edition that extends none: its patches change its own declarations."""
    from .files import NAMESPACE
    if below:
        rs.layers.append(layer)
    patches = [d for d in decls if isinstance(d, n.Patch)]
    for d in decls:
        if isinstance(d, n.HouseHead):         # a house file's line (load_house takes it out first)
            diags.append(Diagnostic("E0324", '"extends" at the margin is a house file\'s line', d.span,
                                    f'in an edition, it goes in the edition\'s head, indented: '
                                    f'"edition NAME:" then "  extends {d.edition}"'))
    from ..syntax.constants import set_twice
    diags += set_twice([(p.target.name, p.new) for p in patches if p.op == "set"])
    for d in decls:
        if isinstance(d, n.Decl):
            _declare(rs, layer, d, NAMESPACE[type(d)], diags)
    for p in patches:
        try:
            _patch(rs, layer, p)
        except LayerError as exc:
            diags.append(exc.diag)


# ------------------------------------------------------------------ declarations


def _declare(rs, layer, d: n.Decl, space_name: str, diags, explicit: bool = False) -> None:
    from .files import PRELUDE_ORIGIN
    space = rs.space(space_name)
    old = space.get(d.name)
    kind = KIND_OF[type(d)]
    if old is None:
        space[d.name] = d
        rs.origin[(space_name, d.name)] = layer.name
        return
    if rs.origin.get((space_name, d.name)) == PRELUDE_ORIGIN:
        space[d.name] = d                      # the prelude is there to be replaced, silently
        rs.origin[(space_name, d.name)] = layer.name
        return
    if rs.origin.get((space_name, d.name)) == layer.name:
        module = rs.module_files.get(old.span.file)
        if explicit and module is not None and d.span.file not in rs.module_files:
            # The edition adapts a declaration of a module it includes (its own layer): say so.
            space[d.name] = d
            _record(rs, layer, d.span, f'replaces {kind} "{d.name}" of module {module}', kind, d.name, old.span)
            return
        if type(old) is not type(d) and space_name == "value":
            # Read by a bare name, these must differ: `x` in an expression is one of them.
            what = "a list of outcomes" if isinstance(old, n.Outcomes) else f"a {KIND_OF[type(old)]}"
            diags.append(Diagnostic("E0202", f'"{d.name}" is already the name of {what}', d.span,
                                    f"that one is at {old.span}; tables, conditions, vars and "
                                    "outcome lists are all read by their bare name, so each needs its own "
                                    "(a rule, only ever called, may share one)"))
            return
        diags.append(Diagnostic("E0202", f'"{d.name}" is declared twice', d.span,
                                f"the first is at {old.span}; rename one of them"))
        return
    below = f'{KIND_OF[type(old)]} "{d.name}" of {_owner(rs, space_name, d.name)}'
    if type(old) is not type(d):
        diags.append(Diagnostic("E0306", f"this {kind} would replace {below}", d.span,
                                f"that {KIND_OF[type(old)]} is at {old.span} and the rules below use it: "
                                f"give this {kind} another name"))
        return
    if not explicit and old != d:              # one the same as the one below changes nothing: no warning
        rs.warnings.append(Diagnostic("W0701", f"this replaces {below}", d.span,
                                      f"write {_replacing(rs, d)} to say so; to change a part of it, "
                                      "patch only that part (docs/house-rules.md)", "warning"))
    space[d.name] = d
    _record(rs, layer, d.span, f'replaces {below}', kind, d.name, old.span)
    rs.origin[(space_name, d.name)] = layer.name


def _replacing(rs, d: n.Decl) -> str:
    """The declaration's first line with "replace" before it, as the layer would write it."""
    line = rs.sources.line(d.span.file, d.span.line)
    head = line[d.span.col - 1:].split("#", 1)[0].strip() if line else ""
    return f'"replace {head}"' if head else '"replace" before it'


def _owner(rs, space_name: str, name: str) -> str:
    owner = rs.origin.get((space_name, name), rs.edition.name)
    for layer in rs.layers:
        if layer.name == owner:
            return str(layer)
    return f"edition {owner}"


def _record(rs, layer, span, what, kind, name, below, part=None, cell=None) -> None:
    key = (kind, name, part)
    earlier = rs.touched.get(key)
    if earlier is not None and earlier.layer != layer:
        rs.warnings.append(Diagnostic(
            "W0702", f"{layer} and {earlier.layer} both change {kind} \"{name}\""
                     + (f" ({part})" if part else ""), span,
            f"the later one wins: this line, over {earlier.span}", "warning"))
    change = Change(layer, span, what, kind, name, below, cell)
    rs.touched[key] = change
    rs.changes.append(change)


# ------------------------------------------------------------------ patches


def _find(rs, target: n.Target, kinds=None):
    """The declaration a patch names, or a LayerError with the closest name."""
    from .files import NAMESPACE
    kinds = kinds or (target.kind,)
    for kind in kinds:
        cls = CLASS_OF[kind]
        d = rs.space(NAMESPACE[cls]).get(target.name)
        if isinstance(d, cls):
            return d, kind, NAMESPACE[cls]
    names = [d.name for kind in kinds for d in rs.all(CLASS_OF[kind])]
    what = " or ".join(kinds)
    others = sorted({KIND_OF[type(d)] for space in rs.spaces.values() for d in space.values()
                     if d.name == target.name and type(d) in KIND_OF})
    help = (f'"{target.name}" is a {" and a ".join(others)}, not a {what}' if others else
            did_you_mean(target.name, names) or (f"the {what}s are: {', '.join(names)}" if names else None))
    raise LayerError(Diagnostic("E0307", f'there is no {what} "{target.name}" to change', target.span, help))


def _missing(target: n.Target, what: str, names, where: str) -> LayerError:
    names = [str(x) for x in names]
    return LayerError(Diagnostic("E0308", f'{where} has no {what} "{target.key}"', target.span,
                                 did_you_mean(str(target.key), names) or
                                 (f"its {what}s are: {', '.join(names)}" if names else None)))


def _misfit(span, message, help=None) -> LayerError:
    return LayerError(Diagnostic("E0309", message, span, help))


def _patch(rs, layer: Layer, p: n.Patch) -> None:
    t = p.target
    if p.op == "replace" and t.part is None:
        return _replace_decl(rs, layer, p)
    d, kind, space_name = _find(rs, t, CELL_KINDS if t.part == "cell" else None)
    new, what = _handler(p, d)(rs, layer, p, d)
    if new is None:
        del rs.space(space_name)[d.name]
    else:
        rs.space(space_name)[d.name] = new
    where = f'{kind} "{d.name}"'
    _record(rs, layer, p.span, f"removes {where}" if new is None else f"{what} of {where}", kind, d.name, d.span,
            _part_key(p), (p.column, t.key, p.new[1]) if t.part == "cell" else None)


def _handler(p: n.Patch, d):
    if p.op == "insert" and p.where in ("start", "end"):
        return _edge
    if p.target.part == "row":
        return _check_row if isinstance(d, n.Check) else _rows_remove
    return PATCHES[(p.op, p.target.part)]


def _part_key(p: n.Patch):
    """What a patch changes inside its declaration, so two layers' changes can be compared."""
    t = p.target
    if t.part == "cell":
        return f"{p.column} of {t.key}"
    if t.part in ("step", "block", "grade", "react", "row"):
        return f"{t.part} {t.key}"
    if t.part == "pref":
        return f"{_line_name(t.key[0])} {t.key[1] or 'end'}"
    return t.part


def _replace_decl(rs, layer, p: n.Patch) -> None:
    from .files import NAMESPACE
    decl = p.new
    _find(rs, p.target)
    diags: list[Diagnostic] = []
    _declare(rs, layer, decl, NAMESPACE[type(decl)], diags, explicit=True)
    if diags:
        raise LayerError(diags[0])


# ------------------------------------------------------------------ bodies and labeled blocks


def _edit_block(body: tuple, name: str, fn) -> tuple[tuple, bool]:
    """The body with labeled block `name` (anywhere inside) replaced by fn(block) -> statements."""
    out, found = [], False
    for s in body:
        if isinstance(s, n.Block) and s.name == name and not found:
            out.extend(fn(s))
            found = True
            continue
        s, inner = _edit_inside(s, name, fn, found)
        found = found or inner
        out.append(s)
    return tuple(out), found


def _edit_inside(s, name, fn, done):
    if done:
        return s, False
    if isinstance(s, n.If):
        branches, found = [], False
        for cond, body in s.branches:
            if not found:
                body, found = _edit_block(body, name, fn)
            branches.append((cond, body))
        orelse = s.orelse
        if not found and orelse is not None:
            orelse, found = _edit_block(orelse, name, fn)
        return replace(s, branches=tuple(branches), orelse=orelse), found
    if isinstance(s, (n.For, n.While, n.Block)):
        body, found = _edit_block(s.body, name, fn)
        return replace(s, body=body), found
    return s, False


def _blocks(body) -> list[str]:
    return [x.name for x in n.walk(body) if isinstance(x, n.Block)]


def _bodies(d) -> list[tuple[str, tuple]]:
    """The statement bodies of a declaration, by field."""
    if isinstance(d, (n.Rule, n.Action, n.Reaction)):
        return [("body", d.body)]
    if isinstance(d, n.Round):
        return ([("start", d.start)] if d.start else []) + [("steps", s.body) for s in d.steps] + \
            ([("final", d.final)] if d.final else [])
    if isinstance(d, n.Condition) and d.on_receive:
        return [("on_receive", d.on_receive[1])]
    return []


def _with_block(d, p: n.Patch, fn):
    t = p.target
    if isinstance(d, n.Round):
        start, found = _edit_block(d.start, t.key, fn) if d.start else (d.start, False)
        steps = []
        for s in d.steps:
            if not found:
                body, found = _edit_block(s.body, t.key, fn)
                s = replace(s, body=body)
            steps.append(s)
        final = d.final
        if not found and final:
            final, found = _edit_block(final, t.key, fn)
        new = replace(d, start=start, steps=tuple(steps), final=final)
    elif isinstance(d, n.Condition) and d.on_receive:
        body, found = _edit_block(d.on_receive[1], t.key, fn)
        new = replace(d, on_receive=(d.on_receive[0], body))
    elif isinstance(d, (n.Rule, n.Action, n.Reaction)):
        body, found = _edit_block(d.body, t.key, fn)
        new = replace(d, body=body)
    else:
        raise _misfit(t.span, f'{t.kind} "{t.name}" has no statements', "blocks are inside rules, actions, "
                      "reactions, rounds and the \"on receive\" of a condition")
    if not found:
        names = [b for _, body in _bodies(d) for b in _blocks(body)]
        raise _missing(t, "block", names, f'{t.kind} "{t.name}"')
    return new


def _block_remove(rs, layer, p, d):
    return _with_block(d, p, lambda b: ()), f'removes block "{p.target.key}"'


def _block_replace(rs, layer, p, d):
    return _with_block(d, p, lambda b: (p.new,)), f'replaces block "{p.target.key}"'


def _block_insert(rs, layer, p, d):
    new = n.Block(p.span, f"{p.where} {p.target.key}", p.new)

    def place(b):
        if p.where == "before":
            return new, b
        if ends(b.body):
            raise _never_runs(p, f'block "{b.name}" of {p.target.kind} "{p.target.name}"', b.body, "block")
        return b, new
    return _with_block(d, p, place), f'inserts statements {p.where} block "{p.target.key}"'


def _edge(rs, layer, p, d):
    """Statements at the start or end of a body: a rule's, an action's, a step's or a labeled block's."""
    t = p.target

    def add(body):
        if p.where == "start":
            return p.new + body
        if ends(body):
            raise _never_runs(p, _edge_name(t), body, f"block or {t.kind}")
        return body + p.new
    if t.part == "block":
        return _with_block(d, p, lambda b: (replace(b, body=add(b.body)),)), \
            f'adds statements at the {p.where} of block "{t.key}"'
    if t.part == "start":
        return replace(d, start=add(_start(d, t))), f"adds statements at the {p.where} of its start"
    if t.part == "step":
        steps = _steps(d, t)
        return replace(d, steps=tuple(replace(s, body=add(s.body)) if s.name == t.key else s
                                                  for s in steps)), \
            f'adds statements at the {p.where} of step "{t.key}"'
    if not isinstance(d, (n.Rule, n.Action, n.Reaction)):
        raise _misfit(t.span, f'{t.kind} "{t.name}" has no statements of its own',
                      'name a step ("of step NAME in round ...") or a rule, action or reaction')
    return replace(d, body=add(d.body)), f"adds statements at the {p.where}"


def ends(body) -> bool:
    """Whether a body never runs past its end: its last statement returns or stops, or is an
    `if ... else` each of whose branches does."""
    if not body:
        return False
    last = body[-1]
    if isinstance(last, (n.Return, n.Stop)):
        return True
    if isinstance(last, n.Block):
        return ends(last.body)
    if isinstance(last, n.If):
        return last.orelse is not None and all(ends(b) for _, b in last.branches) and ends(last.orelse)
    return False


def _never_runs(p: n.Patch, what: str, body, ender: str) -> LayerError:
    """E0309: statements a patch puts after the end of a body that always returns (or stops) first."""
    return _misfit(p.span, f"these statements would never run: {what} ends at line {body[-1].span.line}, "
                           "before them",
                   f"put them before that line (insert before block NAME, or at start of ...), or replace the "
                   f"{ender} that ends it")


def _edge_name(t: n.Target) -> str:
    if t.part in ("block", "step"):
        return f'{t.part} "{t.key}" of {t.kind} "{t.name}"'
    return f'{t.kind} "{t.name}"'


# ------------------------------------------------------------------ steps


def _steps(d: n.Round, t: n.Target) -> tuple:
    if t.key not in [s.name for s in d.steps]:
        if t.key == "start" and d.start is not None:
            raise LayerError(Diagnostic(
                "E0308", f'round "{d.name}" has no step "start": its start: is not a step', t.span,
                f"name it as the round's start: replace start in round {d.name}, remove start from round "
                f"{d.name}, insert at start of start in round {d.name}"))
        raise _missing(t, "step", [s.name for s in d.steps], f'round "{d.name}"')
    return d.steps


def _start(d: n.Round, t: n.Target) -> tuple:
    """The statements of a round's start:, or the layer's error: it has none."""
    if d.start is None:
        raise LayerError(Diagnostic("E0308", f'round "{d.name}" has no start:', t.span,
                                    f"to give it one, replace round {d.name} with its start: before its steps"))
    return d.start


def _start_remove(rs, layer, p, d):
    _start(d, p.target)
    return replace(d, start=None), "removes its start"


def _start_replace(rs, layer, p, d):
    _start(d, p.target)
    return replace(d, start=p.new), "replaces its start"


def _step_remove(rs, layer, p, d):
    steps = _steps(d, p.target)
    return replace(d, steps=tuple(s for s in steps if s.name != p.target.key)), \
        f'removes step "{p.target.key}"'


def _step_replace(rs, layer, p, d):
    steps = _steps(d, p.target)
    return replace(d, steps=tuple(p.new if s.name == p.target.key else s for s in steps)), \
        f'replaces step "{p.target.key}"'


def _step_insert(rs, layer, p, d):
    steps = _steps(d, p.target)
    if p.new.name in [s.name for s in steps]:
        raise LayerError(Diagnostic("E0202", f'round "{d.name}" already has a step "{p.new.name}"', p.span,
                                    f'to change it: replace step {p.new.name} in round {d.name}'))
    out = []
    for s in steps:
        out += [p.new, s] if s.name == p.target.key and p.where == "before" else \
            [s, p.new] if s.name == p.target.key else [s]
    return replace(d, steps=tuple(out)), f'inserts step "{p.new.name}" {p.where} "{p.target.key}"'


# ------------------------------------------------------------------ tables and checks


def _rows_add(rs, layer, p, d: n.Table):
    from ..syntax.builder import Builder
    b = Builder(p.span.file)
    rows, spans = list(d.rows), list(d.row_spans)
    for cells, cell_spans in p.new:
        if tuple(c.strip() for c in cells) == d.columns:
            continue                                       # a header row, written to help the eye
        _width(cells, cell_spans, len(d.columns), f'table "{d.name}"', d.columns)
        rows.append(b.table_row(list(cells), list(cell_spans), d.dice is not None))
        spans.append(cell_spans[0])
    return replace(d, rows=tuple(rows), row_spans=tuple(spans)), "adds rows"


def _width(cells, spans, want, where, columns=()):
    if len(cells) != want:
        raise LayerError(Diagnostic("E0207", f"this row has {len(cells)} cells but {where} has {want} columns",
                                    spans[0], f"its columns are: {' | '.join(columns)}" if columns else None))


def row_index(d: n.Table, key) -> int | None:
    """The place of the row of table `d` that `key` names (a roll in a range of a rolled table), or None."""
    for i, row in enumerate(d.rows):
        k = row[0]
        if d.dice is not None and isinstance(key, int) and k[0] <= key <= k[1]:
            return i
        if d.dice is None and isinstance(k, n.Const) and k.value == key:
            return i
    return None


def _row_of(d: n.Table, key, t: n.Target) -> int:
    """The place of the row `key` names, or the layer's error: no such row."""
    i = row_index(d, key)
    if i is None:
        keys = [f"{r[0][0]}-{r[0][1]}" if d.dice is not None else getattr(r[0], "value", "?") for r in d.rows]
        raise _missing(replace(t, key=key), "row", keys, f'table "{d.name}"')
    return i


def _rows_remove(rs, layer, p, d: n.Table):
    if not isinstance(d, n.Table):
        raise _misfit(p.target.span, f'"{d.name}" is no table')
    drop = {_row_of(d, key, p.target) for key in p.target.key}
    keep = [i for i in range(len(d.rows)) if i not in drop]
    return replace(d, rows=tuple(d.rows[i] for i in keep),
                               row_spans=tuple(d.row_spans[i] for i in keep)), \
        "removes " + ", ".join(f'row "{k}"' for k in p.target.key)


def _change(rs, layer, p, d):
    """One cell of a table row (by key) or of a condition's grade row."""
    from ..syntax.builder import Builder
    from ..diagnostics import GrimorioError
    t, (text, span) = p.target, p.new
    b = Builder(span.file)
    if isinstance(d, n.Condition):
        grades = [g for g, _ in d.rows]
        if t.key not in grades:
            raise _missing(t, "grade row", grades, f'condition "{d.name}"')
        if p.column not in d.columns:
            raise _missing(replace(t, key=p.column), "column", d.columns, f'condition "{d.name}"')
        col = d.columns.index(p.column)
        try:
            value = b.value_cell(text, span)
        except GrimorioError as exc:
            raise LayerError(exc.diagnostics[0]) from None
        rows = tuple((g, cells[:col] + (value,) + cells[col + 1:]) if g == t.key else (g, cells)
                     for g, cells in d.rows)
        return replace(d, rows=rows), f'changes "{p.column}" of grade "{t.key}"'
    i = _row_of(d, t.key, t)
    if p.column not in d.columns:
        raise _missing(replace(t, key=p.column), "column", d.columns, f'table "{d.name}"')
    col = d.columns.index(p.column)
    try:
        value = b.table_row([text] + [""] * (len(d.columns) - 1), [span] * len(d.columns),
                            d.dice is not None)[0] if col == 0 else b.value_cell(text, span)
    except GrimorioError as exc:
        raise LayerError(exc.diagnostics[0]) from None
    row = d.rows[i][:col] + (value,) + d.rows[i][col + 1:]
    rows = d.rows[:i] + (row,) + d.rows[i + 1:]
    return replace(d, rows=rows), f'changes "{p.column}" of row "{t.key}"'


CELL_KINDS = ("table", "condition")


def _check_rows(d: n.Check, p: n.Patch) -> tuple:
    from ..syntax.builder import Builder
    from ..diagnostics import GrimorioError
    b = Builder(p.span.file)
    width = len(d.decide.inputs) + 1
    out = []
    for cells, spans in p.new:
        _width(cells, spans, width, f'check "{d.name}"')
        try:
            out.append(b.decision_row(list(cells), list(spans), d.decide.output))
        except GrimorioError as exc:
            raise LayerError(exc.diagnostics[0]) from None
    return tuple(out)


def _check_row_index(d: n.Check, t: n.Target) -> int:
    rows = d.decide.rows
    if not 1 <= t.key <= len(rows):
        raise _misfit(t.span, f'check "{d.name}" has no row {t.key}',
                      f"its rows are numbered 1 to {len(rows)}, from the first under the header")
    return t.key - 1


def _check_row(rs, layer, p, d: n.Check):
    i = _check_row_index(d, p.target)
    rows = d.decide.rows
    if p.op == "remove":
        rows, what = rows[:i] + rows[i + 1:], f"removes row {p.target.key}"
    elif p.op == "replace":
        rows, what = rows[:i] + _check_rows(d, p) + rows[i + 1:], f"replaces row {p.target.key}"
    else:
        at = i if p.where == "before" else i + 1
        rows, what = rows[:at] + _check_rows(d, p) + rows[at:], f"inserts rows {p.where} row {p.target.key}"
    return replace(d, decide=replace(d.decide, rows=rows)), what


# ------------------------------------------------------------------ conditions, tactics, requirements, options


def _grade_remove(rs, layer, p, d: n.Condition):
    if p.target.key not in d.grades:
        raise _missing(p.target, "grade", d.grades, f'condition "{d.name}"')
    keep = [i for i, (g, _) in enumerate(d.rows) if g != p.target.key]
    return replace(d, grades=tuple(g for g in d.grades if g != p.target.key),
                               rows=tuple(d.rows[i] for i in keep),
                               row_spans=tuple(d.row_spans[i] for i in keep) if d.row_spans else ()), \
        f'removes grade "{p.target.key}"'


def _on_receive(rs, layer, p, d: n.Condition):
    return replace(d, on_receive=p.new), '"on receive"'


def _act(rs, layer, p, d: n.Tactic):
    return replace(d, act=p.new), 'replaces "act"'


def _react(rs, layer, p, d: n.Tactic):
    events = [e for e, _ in d.react]
    if p.target.key not in events:
        raise _missing(p.target, "react line for", events, f'tactic "{d.name}"')
    return replace(d, react=tuple((e, p.new if e == p.target.key else prefs) for e, prefs in d.react)), \
        f'replaces "react {p.target.key}"'


def _line_name(event) -> str:
    return f"react {event}" if event is not None else "act"


def _pref_line(d: n.Tactic, p: n.Patch) -> tuple:
    """The preferences of the line a patch names (its act line, or its react line for an event)."""
    event = p.target.key[0]
    if event is None:
        return d.act
    for e, prefs in d.react:
        if e == event:
            return prefs
    if p.op == "add":
        return ()                                    # a react line the tactic lacks: the patch starts it
    events = [e for e, _ in d.react]
    raise _missing(replace(p.target, key=event), "react line for", events, f'tactic "{d.name}"')


def _pref_index(d: n.Tactic, p: n.Patch, prefs: tuple) -> int:
    event, name = p.target.key
    at = [i for i, pref in enumerate(prefs) if pref.name == name]
    line = _line_name(event)
    if not at:
        names = list(dict.fromkeys(pref.name for pref in prefs))
        raise LayerError(Diagnostic("E0308", f'the {line} line of tactic "{d.name}" has no preference "{name}"',
                                    p.target.span, did_you_mean(name, names) or f"its preferences are: "
                                    f"{', '.join(names)}"))
    if len(at) > 1:
        raise _misfit(p.target.span, f'tactic "{d.name}" has {len(at)} preferences "{name}" in its {line} line',
                      f"a patch names one preference; to change one of these, replace the whole line: "
                      f"replace {line} of tactic {d.name}: ...")
    return at[0]


def _with_line(d: n.Tactic, event, prefs: tuple) -> n.Tactic:
    if event is None:
        return replace(d, act=prefs)
    if event not in [e for e, _ in d.react]:
        return replace(d, react=d.react + ((event, prefs),))
    return replace(d, react=tuple((e, prefs if e == event else old) for e, old in d.react))


def _pref(rs, layer, p, d: n.Tactic):
    """One preference of a tactic's act or react line: added at the end, inserted before or after
    another, removed or replaced; the others keep their order."""
    event, name = p.target.key
    prefs = _pref_line(d, p)
    line = _line_name(event)
    if p.op == "add":
        return _with_line(d, event, prefs + p.new), f'adds {_pref_names(p.new)} to its "{line}" line'
    i = _pref_index(d, p, prefs)
    if p.op == "remove":
        if len(prefs) == 1:
            raise _misfit(p.target.span, f'"{name}" is the only preference of the {line} line of tactic "{d.name}"',
                          f"a line needs one; to drop the line, replace the tactic, or replace the line with "
                          f"another preference")
        new, what = prefs[:i] + prefs[i + 1:], f'removes "{name}" from'
    elif p.op == "replace":
        new, what = prefs[:i] + p.new + prefs[i + 1:], f'replaces "{name}" in'
    else:
        at = i if p.where == "before" else i + 1
        new, what = prefs[:at] + p.new + prefs[at:], f'inserts {_pref_names(p.new)} {p.where} "{name}" in'
    return _with_line(d, event, new), f'{what} its "{line}" line'


def _pref_names(prefs) -> str:
    return ", ".join(f'"{pref.name}"' for pref in prefs)


def _choose(rs, layer, p, d: n.Tactic):
    return replace(d, choose=p.new), 'replaces "choose"'


def _requires(rs, layer, p, d):
    if not isinstance(d, (n.Action, n.Reaction)):
        raise _misfit(p.target.span, "only actions and reactions have requirements")
    return replace(d, requires=d.requires + (p.new,)), "adds a requirement"


def _set(rs, layer, p, d: n.Option):
    from ..syntax.constants import NotConstant, kind_of, plain
    from .files import prelude
    policy = {o.name for o in prelude()[1] if isinstance(o, n.Option)}
    try:
        old, new = plain(d.default), plain(p.new)
    except NotConstant:
        raise _misfit(p.new.span, f'option "{d.name}" must be set to a plain value',
                      "a number, a percentage, true or false, or a quoted text") from None
    if type(old) is not type(new) and d.name not in policy:     # the prelude's options: the checker's contract
        raise _misfit(p.new.span, f'option "{d.name}" takes {kind_of(old)}, not {kind_of(new)}')
    return replace(d, default=p.new), f"sets it to {new}"


def _fields_add(rs, layer, p, d: n.Sheet):
    have = {f.name for f in d.fields}
    for f in p.new:
        if f.name in have:
            raise _misfit(f.span, f'sheet "{d.name}" already has a field "{f.name}"',
                          "change what it holds with a rule, or give the new field another name")
    return replace(d, fields=d.fields + p.new), "adds fields"


def _remove_whole(rs, layer, p, d):
    return None, "removes"


PATCHES = {
    ("remove", None): _remove_whole,
    ("remove", "start"): _start_remove, ("replace", "start"): _start_replace,
    ("remove", "step"): _step_remove, ("replace", "step"): _step_replace, ("insert", "step"): _step_insert,
    ("remove", "block"): _block_remove, ("replace", "block"): _block_replace, ("insert", "block"): _block_insert,
    ("add", "rows"): _rows_add, ("change", "cell"): _change,
    ("remove", "grade"): _grade_remove, ("replace", "on receive"): _on_receive,
    ("replace", "act"): _act, ("replace", "react"): _react, ("replace", "choose"): _choose,
    ("add", "pref"): _pref, ("insert", "pref"): _pref, ("remove", "pref"): _pref, ("replace", "pref"): _pref,
    ("add", "requires"): _requires, ("set", None): _set, ("add", "fields"): _fields_add,
}


# ------------------------------------------------------------------ blame


def blame(rs, diags: list[Diagnostic]) -> list[Diagnostic]:
    """Errors in files below the layers that a layer's change caused name that change:
    an error inside a declaration a layer changed, or about a name a layer removed or replaced."""
    if not rs.changes:
        return diags
    mine = {file for file, layer in rs.layer_files.items() if layer in rs.layers}
    out = []
    for d in diags:
        cause = None if d.span.file in mine else _cause(rs, d)
        if cause is not None:
            note = f"this comes from {cause.layer}, whose line {cause.span.line} {cause.what}"
            d = replace(d, help=f"{d.help}; {note}" if d.help else note)
        out.append(d)
    return out


def _cause(rs, d: Diagnostic):
    """The change that names what the error is about, else the one inside whose declaration it is."""
    for c in reversed(rs.changes):
        if f'"{c.name}"' in d.message and ("removes" in c.what or "replaces" in c.what):
            return c
    for c in reversed(rs.changes):
        b = c.below
        if b is not None and b.file == d.span.file and b.line <= d.span.line <= max(b.end_line, b.line):
            return c
    return None
