"""What the resolve stage learned of each name, for the stages after it (the compiler).

The resolver (dsl/check/resolver.py) walks every body once in the scopes the language
gives it; as it goes it writes down here, for each node that names something, its
binding, and for each place that binds a local, the local's slot. The compiler only
reads them (starlark-go's resolve/eval split): it never looks a name up again and knows
no scope rule.

- `of(name_node)`: a bare name's `Resolved` (kind, target). A local's target is its slot:
  the Python name the generated code gives that local, one per binding (never the DSL
  spelling), shared by every read of it and by every branch of an `if` that binds it.
- `of(call_node)`: what a call calls (a rule, else a builtin: names.Resolver.callee).
- `slot(node, part)`: the slot a binding place gives its local: a `let`, a `for`'s
  variable (`part` "it": its ordering key's item), a decision table's output, a
  comprehension's clause (`part`: its index), a search, a parameter, a sheet's field, a
  check's roll (`part` "roll"), a tally's parameter (`part` "param"), the combatant a
  tactic's choose asks (`part` "asked") and the item it orders (`part` "it"), a card
  statement's grade held in a local (`part` "grade", absent otherwise).
- `kind_of(name_node)`: the kind the text shows a local holds where that node reads it
  (dsl/check/kinds.py, as the checker learned it), or None. The kinds of everything
  else follow from the bindings (`K.kind` with the compiler's `resolve`).
- `around(for_node)`: the names of the locals visible where a `for` stands.
- `held(card_op)`: the name node standing for a card statement's condition held in a
  local or a var (`remove c cond g`), whose binding `of` gives.

Keys are node identities: the nodes walked are held here (the ruleset's, or an
encounter script's), so their ids stay theirs while the bindings live. Bindings are
never stored with a compiled program (interpreter/compile/stored.py): a program read back
asks `bindings_of` for its ruleset's when it first compiles code of its own.
"""
from __future__ import annotations

from .names import Resolved, Resolver


class Bindings:
    def __init__(self, resolver: Resolver, roots=(), base=None):
        self.resolver = resolver            # the ruleset's names (its fields, its declarations)
        self.names: dict[int, Resolved | None] = {}
        self.slots: dict = {}
        self.held_names: dict[int, object] = {}
        self.arounds: dict[int, set] = {}
        self.kinds: dict[int, object] = {}
        self.roots = roots                  # what was walked: keeps the keys' nodes alive
        self._base = base                   # a script's: the ruleset's bindings (or how to get them)

    @property
    def base(self) -> "Bindings | None":
        if callable(self._base):
            self._base = self._base()
        return self._base

    def of(self, node) -> Resolved | None:
        found = self.names.get(id(node), _MISSING)
        if found is _MISSING:
            if self.base is None:
                raise KeyError(f"the resolver bound no {type(node).__name__} at {node.span}")
            return self.base.of(node)
        return found

    def slot(self, node, part=None) -> str:
        key = id(node) if part is None else (id(node), part)
        found = self.slots.get(key)
        if found is None:
            if self.base is None:
                raise KeyError(f"the resolver gave no slot to {type(node).__name__} {part or ''} at {node.span}")
            return self.base.slot(node, part)
        return found

    def has_slot(self, node, part=None) -> bool:
        key = id(node) if part is None else (id(node), part)
        return key in self.slots or (self.base is not None and self.base.has_slot(node, part))

    def kind_of(self, node):
        if id(node) in self.kinds or id(node) in self.names or self.base is None:
            return self.kinds.get(id(node))
        return self.base.kind_of(node)

    def around(self, for_node) -> set:
        found = self.arounds.get(id(for_node))
        return found if found is not None or self.base is None else self.base.around(for_node)

    def held(self, card_op):
        found = self.held_names.get(id(card_op))
        return found if found is not None or self.base is None else self.base.held(card_op)

    @property
    def fields(self) -> frozenset:
        return self.resolver.fields


_MISSING = object()
