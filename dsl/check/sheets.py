"""Several sheets per edition: the first is the base, every other extends one (`sheet monster
extends creature:`) and has its fields, then its own. A combatant names its sheet with a
`sheet NAME` line (the base sheet without one).

`fields_by_sheet` gives each sheet's whole list of fields, in order; `check_sheets` the
diagnostics of how the sheets extend each other (E0243, E0244);
`sheet_texts` those of a text compared with `c.sheet` that names no sheet (E0247)."""
from __future__ import annotations

from ..syntax import nodes as n
from ..diagnostics import Diagnostic, did_you_mean
from .names import walk

# The line of a combatant that names its sheet, and what `c.sheet` reads.
SHEET_LINE = "sheet"


def base_sheet(sheets) -> str | None:
    return sheets[0].name if sheets else None


def fields_by_sheet(sheets) -> dict[str, tuple]:
    """Each sheet's fields: those of the sheets it extends (base first), then its own. A chain that
    names an unknown sheet or comes back on itself stops there (check_sheets reports it)."""
    by_name = {s.name: s for s in sheets}
    out = {}
    for s in sheets:
        chain, seen = [], set()
        at = s
        while at is not None and at.name not in seen:
            seen.add(at.name)
            chain.append(at)
            at = by_name.get(at.extends) if at.extends else None
        out.setdefault(s.name, tuple(f for sheet in reversed(chain) for f in sheet.fields))
    return out


def all_fields(sheets) -> dict:
    """Every field some sheet has, by name (the first sheet's declaration of it)."""
    out = {}
    for fields in fields_by_sheet(sheets).values():
        for f in fields:
            out.setdefault(f.name, f)
    return out


def check_sheets(sheets) -> list[Diagnostic]:
    """E0243: a sheet after the first that extends none (or the first that extends one); E0244: a
    sheet that extends an unknown sheet, or itself through others (two
    sheets of one name are two declarations of one name, as anywhere)."""
    out = []
    by_name = {}
    for i, s in enumerate(sheets):
        by_name[s.name] = s
        if i > 0 and s.extends is None:
            out.append(Diagnostic("E0243", f'sheet "{s.name}" is a second sheet that extends none', s.span,
                                  f'the first sheet is the base: write `sheet {s.name} extends {sheets[0].name}:` '
                                  f'to give it the fields of "{sheets[0].name}" and its own, or add its fields '
                                  f'to "{sheets[0].name}"'))
        elif i == 0 and s.extends is not None:
            out.append(Diagnostic("E0243", f'sheet "{s.name}" is the first sheet: the base extends none',
                                  s.extends_span or s.span,
                                  f'declare "{s.extends}" first, or drop "extends {s.extends}"'))
    for s in sheets[1:]:
        if s.extends is None:
            continue
        if s.extends not in by_name:
            out.append(Diagnostic("E0244", f'sheet "{s.name}" extends "{s.extends}", which is not a sheet',
                                  s.extends_span or s.span,
                                  did_you_mean(s.extends, by_name) or f"the sheets are: {', '.join(by_name)}"))
        elif _loops(s, by_name):
            out.append(Diagnostic("E0244", f'sheet "{s.name}" extends itself (through "{s.extends}")',
                                  s.extends_span or s.span, "one sheet is the base; every other extends one above it"))
    out += _fields_twice(sheets, by_name)
    return out


def _loops(s, by_name) -> bool:
    seen, at = {s.name}, by_name.get(s.extends)
    while at is not None:
        if at.name in seen:
            return True
        seen.add(at.name)
        at = by_name.get(at.extends) if at.extends else None
    return False


def _fields_twice(sheets, by_name) -> list[Diagnostic]:
    """A field a sheet declares that a sheet it extends already has (E0202, as two fields of one sheet)."""
    out = []
    for s in sheets:
        if s.extends is None or _loops(s, by_name):
            continue
        inherited = {f.name: f for f in fields_by_sheet(sheets).get(s.extends, ())}
        for f in s.fields:
            if f.name in inherited:
                out.append(Diagnostic("E0202", f'sheet "{s.name}" already has a field "{f.name}" from "{s.extends}"',
                                      f.span, f"the field is at line {inherited[f.name].span.line}; "
                                              "rename this one or drop it"))
    return out


def sheet_of(given: dict, sheets: dict, base: str | None) -> str | None:
    """The sheet a combatant's lines name (`sheet NAME`), or the base sheet."""
    return str(given.get(SHEET_LINE, base)) if base is not None else None


def unknown_sheet(name, span, sheets) -> Diagnostic:
    return Diagnostic("E0246", f'there is no sheet "{name}"', span,
                      did_you_mean(str(name), sheets) or f"the sheets are: {', '.join(sheets) or 'none'}")


def sheet_texts(rs, nodes=None) -> list[Diagnostic]:
    """E0247: `c.sheet == "heroe"` (or !=) compares a combatant's sheet with a text that names no sheet:
    always false (true), a typo the run would never tell. `nodes`: where to look (an encounter's
    statements and expectations); by default, every declaration of the rules."""
    names = [s.name for s in rs.all(n.Sheet)]
    out = []
    if any(SHEET_LINE in t.columns for t in rs.all(n.Table) + rs.all(n.Condition)):
        return out                          # `.sheet` may be a column too: not only a combatant's sheet
    if nodes is None:
        nodes = tuple(d for space in rs.spaces.values() for d in space.values())
    for x in walk(nodes):
        if type(x) is n.Binary and x.op in ("==", "!="):
            out += [_no_such_sheet(text, names) for text in _compared_with_sheet(x) if text.value not in names]
    return out


def _compared_with_sheet(x) -> list:
    pairs = ((x.left, x.right), (x.right, x.left))
    return [text for attr, text in pairs if type(attr) is n.Attr and attr.name == SHEET_LINE
            and type(text) is n.Const and isinstance(text.value, str)]


def _no_such_sheet(text, names) -> Diagnostic:
    return Diagnostic("E0247", f'there is no sheet "{text.value}": this comparison is never true', text.span,
                      did_you_mean(text.value, names) or f"the sheets are: {', '.join(names) or 'none'}")
