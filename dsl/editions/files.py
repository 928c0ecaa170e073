"""An edition's files, found and read: the namespaces declarations live in, the Ruleset they are merged
into, the heads of the entry files under the rules folders, the prelude, and one file read and built
(its text kept for diagnostics, its size bounded). Below the loader (dsl/editions/loader.py), the layers
and the modules, which all read files this way.
"""
from __future__ import annotations

import functools
import re
from pathlib import Path

from . import cache
from ..syntax import nodes as n
from .cache import build_rules
from ..diagnostics import Diagnostic, GrimorioError, Sources, Span
from ..records import dataclass, field
from ..source import read_text


# Which kinds share a namespace (a name must be unique within one). Tables, conditions, vars and
# outcome lists are all read by a bare name: one name, one of them. A rule is only ever called (a
# bare name never means it), so it has a namespace of its own (docs/language.md, "Names").
NAMESPACE = {
    n.Rule: "rule", n.Table: "value", n.Condition: "value", n.Var: "value", n.Outcomes: "value",
    n.Option: "option", n.Sheet: "sheet", n.Check: "check", n.Message: "message", n.Event: "event",
    n.Action: "action", n.Reaction: "reaction", n.Tactic: "tactic", n.Round: "round", n.Edition: "edition",
    n.Tally: "tally", n.Stands: "tally", n.Draw: "tally", n.Format: "format",
}


@dataclass
class Ruleset:
    edition: n.Edition
    root: Path
    spaces: dict[str, dict[str, n.Decl]] = field(default_factory=dict)
    origin: dict[tuple[str, str], str] = field(default_factory=dict)
    sources: Sources = field(default_factory=Sources)
    # Layering: the layers applied (lowest first), which file belongs to which,
    # every change they made, the last change to each thing, and warnings.
    layers: list = field(default_factory=list)
    layer_files: dict = field(default_factory=dict)
    changes: list = field(default_factory=list)
    touched: dict = field(default_factory=dict)
    warnings: list[Diagnostic] = field(default_factory=list)
    # Modules included so far (dsl/editions/modules.py): name -> where, and by which edition or module.
    modules: dict = field(default_factory=dict)
    module_files: dict = field(default_factory=dict)     # a module's file (as spans name it) -> the module

    def space(self, kind: str) -> dict[str, n.Decl]:
        return self.spaces.setdefault(kind, {})

    def all(self, cls):
        return [d for d in self.space(NAMESPACE[cls]).values() if isinstance(d, cls)]


def bundled_root() -> Path:
    from ... import rulesets  # the bundled rulesets' package: a plain folder (importlib.resources costs more)
    return Path(rulesets.__file__).parent


@dataclass(frozen=True)
class EditionHead:
    """An edition (or a module: `kind`) as its entry file's head declares it, read without building anything."""
    name: str
    entry: Path
    line: int
    title: str | None = None
    extends: str | None = None
    kind: str = "edition"

    @property
    def span(self) -> Span:
        return Span(_display(self.entry), self.line, 1, self.line, len(self.kind) + len(self.name) + 2)


HEAD_BYTES = 64 * 1024       # how much of a .rules file is read to learn whether it is an entry file
_TITLE = re.compile(r'[ \t]+title[ \t]+"((?:\\.|[^"\\\n])*)"')
_EXTENDS = re.compile(r'[ \t]+extends[ \t]+([^\W\d]\w*)')


def entry_heads(folder: Path, kind: str = "edition") -> list[EditionHead]:
    """The editions (or modules) declared by the entry files of one folder. An entry file is a .rules file
    with a line that starts with `edition` (or `module`) in its head (its first HEAD_BYTES): of every other
    file only the head is read. Only regular files are opened, and nothing is read past the size cap, so a
    FIFO or a device never blocks this."""
    out = []
    start = kind.encode() + b" "
    try:
        files = [folder / name for name in cache.consult("names", folder, "*.rules")]
    except OSError:
        return out
    for f in files:
        try:
            head = cache.consult("head", f, HEAD_BYTES)
            if not any(ln.startswith(start) for ln in head.split(b"\n")):
                continue
            data = head if len(head) < HEAD_BYTES else cache.consult("bytes", f)
        except (OSError, ValueError):
            continue
        lines = data.decode("utf-8", "replace").replace("\r\n", "\n").split("\n")
        for i, line in enumerate(lines):
            if line.startswith(kind + " "):
                name = line[len(kind) + 1:].split(":")[0].split("#")[0].strip()
                title = _head_line(lines, i + 1, _TITLE)
                out.append(EditionHead(name, f, i + 1, title and re.sub(r"\\(.)", r"\1", title),
                                       _head_line(lines, i + 1, _EXTENDS), kind))
    return out


def _head_line(lines: list[str], start: int, pattern: re.Pattern) -> str | None:
    """What `pattern` finds on an indented line of the edition block that starts at `start`."""
    for line in lines[start:]:
        if line[:1] not in (" ", "\t", "#", ""):
            return None
        m = pattern.match(line)
        if m:
            return m.group(1)
    return None


def edition_heads(roots: list[Path] | None = None, kind: str = "edition") -> dict[str, list[EditionHead]]:
    """Edition (or module) name -> its entries in the first root that declares it (more than one is an
    error: E0107, E0319)."""
    out: dict[str, list[EditionHead]] = {}
    for root in roots or [bundled_root()]:
        try:
            folders = [root / name for name in cache.consult("names", root, "/")]
        except OSError:
            continue
        here: dict[str, list[EditionHead]] = {}
        for folder in folders:
            for h in entry_heads(folder, kind):
                here.setdefault(h.name, []).append(h)
        for name, heads in here.items():
            out.setdefault(name, heads)
    return out


def find_editions(roots: list[Path] | None = None) -> dict[str, Path]:
    """Edition name -> entry file, for every folder under the roots; the first root that has a name wins."""
    return {name: heads[0].entry for name, heads in edition_heads(roots).items()}


def duplicate_editions(heads: dict[str, list[EditionHead]], only: str | None = None) -> list[Diagnostic]:
    """E0107 for every name declared by two entry files of one rules folder."""
    out = []
    for name, found in heads.items():
        if len(found) > 1 and only in (None, name):
            others = ", ".join(str(h.span) for h in found[1:])
            out.append(Diagnostic("E0107", f'edition "{name}" is declared twice in one rules folder', found[0].span,
                                  f"it is also declared at {others}; rename one of them"))
    return out




PRELUDE = Path(__file__).resolve().parent / "prelude.rules"
PRELUDE_NAME = "prelude.rules"
PRELUDE_ORIGIN = "(prelude)"      # no edition can have this name


@functools.lru_cache(maxsize=1)
def prelude() -> tuple[str, tuple[n.Decl, ...]]:
    """The bundled prelude's text and declarations, read once per process."""
    text = PRELUDE.read_text(encoding="utf-8")
    decls, diags = build_rules(text, PRELUDE_NAME)
    if diags:                                       # grimorio's own file: a bug, shown as it is
        raise GrimorioError(diags)
    return text, tuple(decls)




def _display(path: Path) -> str:
    """How a file is named in diagnostics: a bundled one as rulesets/..., wherever grimorio is installed (so its
    name, and the key its built form is shipped under, do not depend on the working folder); another relative
    to the working folder."""
    for base, prefix in ((lambda: Path(cache.consult("resolve", bundled_root())), "rulesets/"), (Path.cwd, "")):
        try:
            return prefix + str(Path(cache.consult("resolve", path)).relative_to(base()))
        except (ValueError, OSError):       # elsewhere; or the working folder was deleted
            continue
    return str(path)


# How much rules text one ruleset (an edition, what it extends and includes, its house files) may hold
# in all: what checks in a few seconds (over 7 times the largest bundled edition; 512 KiB of the smallest
# rules checks in about 6 s on one core, 1 MiB in 13 s). Past it, E0322 before anything is parsed.
MAX_RULES_BYTES = 512 * 1024


def _too_large(sources: Sources, display: str, text: str, at: Span | None) -> Diagnostic | None:
    total = sum(len(t.encode("utf-8", "surrogatepass")) for name, t in sources.texts.items()
                if name.endswith(".rules") and name != PRELUDE_NAME)
    if total <= MAX_RULES_BYTES:
        return None
    mine = len(text.encode("utf-8", "surrogatepass"))
    return Diagnostic("E0322", f'these rules are too large: {total // 1024} KiB of rules text in all, with '
                               f'"{display}" ({mine // 1024} KiB)', at or Span(display, 1, 1),
                      f"grimorio checks at most {MAX_RULES_BYTES // 1024} KiB of rules for one edition and its "
                      "layers; split the edition, or leave out what it does not use")


def _read(path: Path, sources: Sources, diags: list[Diagnostic], at: Span | None = None) -> list[n.Decl]:
    display = _display(path)
    try:
        text = sources.unsaved.get(str(path.resolve()))
        if text is not None:
            cache.unrepeatable()
        else:
            text = cache.noted("text", path, read_text(path, display, at, sources))
    except GrimorioError as exc:
        diags.extend(exc.diagnostics)
        return []
    sources.texts[display] = text
    over = _too_large(sources, display, text, at)
    if over is not None:
        diags.append(over)
        return []
    decls, errs = build_rules(text, display)
    diags.extend(errs)
    return decls
