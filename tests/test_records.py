"""dsl/records.py makes grimorio's records without the dataclasses module (a third of a warm start
was that module and its work): every record class must behave as `dataclasses.dataclass` would
make it from the same fields and options. Each is held here to a twin the standard decorator makes:
construction (positional, by keyword, defaults and factories), repr, ==, hash, frozenness,
replace, pickling and __match_args__."""
from __future__ import annotations

import dataclasses
import importlib
import inspect
import pickle

import pytest

from grimorio.dsl import records

MODULES = ["grimorio.dsl.syntax.nodes", "grimorio.dsl.diagnostics", "grimorio.dsl.editions.files", "grimorio.dsl.check.names",
           "grimorio.dsl.editions.layers", "grimorio.dsl.editions.modules", "grimorio.interpreter.tools.formatter",
           "grimorio.interpreter.run.encounter", "grimorio.interpreter.run.expectations", "grimorio.interpreter.tools.paired",
           "grimorio.interpreter.tools.simulate", "grimorio.interpreter.tools.analysis"]


def record_classes():
    found = {}
    for name in MODULES:
        for value in vars(importlib.import_module(name)).values():
            if isinstance(value, type) and "__record_fields__" in value.__dict__:
                found[f"{value.__module__}.{value.__qualname__}"] = value
    return found


CLASSES = record_classes()


def frozen(cls) -> bool:
    return "__setattr__" in cls.__dict__


def twin(cls):
    """What dataclasses.dataclass makes of the same fields, in the same order, with the same options."""
    specs = []
    for f in records.fields(cls):
        kw = {"compare": f.compare, "repr": f.repr}
        if f.default_factory is not records.MISSING:
            kw["default_factory"] = f.default_factory
        elif f.default is not records.MISSING:
            kw["default"] = f.default
        specs.append((f.name, object, dataclasses.field(**kw)))
    made = dataclasses.make_dataclass(cls.__name__, specs, frozen=frozen(cls))
    made.__qualname__ = cls.__qualname__
    return made


class Value:
    """A field value that equals only itself, hashable, with a repr of its own."""

    def __init__(self, tag):
        self.tag = tag

    def __repr__(self):
        return f"<{self.tag}>"


def values(cls, tag: str) -> dict:
    return {f.name: Value(f"{tag}{i}") for i, f in enumerate(records.fields(cls))}


def test_every_module_has_records():
    assert len(CLASSES) > 60 and all(records.fields(c) or c.__name__ in ("Node",) for c in CLASSES.values())


@pytest.mark.parametrize("name", sorted(CLASSES))
def test_a_record_class_behaves_as_the_standard_dataclass(name):
    cls = CLASSES[name]
    std = twin(cls)
    ours_sig, std_sig = inspect.signature(cls.__init__), inspect.signature(std.__init__)
    assert [(p.name, p.default is inspect.Parameter.empty) for p in ours_sig.parameters.values()] == \
        [(p.name, p.default is inspect.Parameter.empty) for p in std_sig.parameters.values()]
    given = values(cls, "v")
    a, b = cls(*given.values()), std(*given.values())
    assert repr(a) == repr(b) and cls.__match_args__ == std.__match_args__
    assert all(getattr(a, k) is getattr(b, k) for k in given)
    # Defaults and factories, by keyword: only the fields without one given.
    needed = {f.name: given[f.name] for f in records.fields(cls)
              if f.default is records.MISSING and f.default_factory is records.MISSING}
    a0, b0 = cls(**needed), std(**needed)
    assert repr(a0) == repr(b0)
    for f in records.fields(cls):
        if f.default_factory is not records.MISSING:    # a fresh value for each record
            assert getattr(a0, f.name) == getattr(b0, f.name) and getattr(a0, f.name) is not getattr(cls(**needed), f.name)
    # ==, and hash where frozen: a field == does not compare changes nothing; one it compares does.
    for f in records.fields(cls):
        other = dict(given, **{f.name: Value("other")})
        assert (a == cls(**other)) == (b == std(**other)) == (not f.compare)
        if frozen(cls):
            assert (hash(a) == hash(cls(**other))) == (not f.compare)
    assert (a == b) is False and a == cls(*given.values())          # another class is never equal
    if frozen(cls):
        for victim in (a, b):
            with pytest.raises(dataclasses.FrozenInstanceError if victim is b else records.FrozenInstanceError):
                setattr(victim, next(iter(given)), 1)
            with pytest.raises(AttributeError):
                delattr(victim, next(iter(given)))
    else:
        assert cls.__hash__ is None and std.__hash__ is None
    if given:
        first = next(iter(given))
        changed = records.replace(a, **{first: Value("new")})
        assert repr(changed) == repr(dataclasses.replace(b, **{first: changed.__getattribute__(first)}))
        with pytest.raises(TypeError):
            records.replace(a, no_such_field=1)


def test_records_pickle_as_they_are():
    from grimorio.dsl.syntax import nodes as n
    from grimorio.dsl.diagnostics import Diagnostic, Span
    from grimorio.dsl.editions.files import Ruleset
    made = [n.Attr(Span("f", 1, 2, 1, 5), n.Name(Span("f", 1, 2), "x"), "y", name_span=Span("f", 1, 4)),
            Diagnostic("E0001", "m", Span("f", 3, 1), "h"), Ruleset(n.Edition(Span("f", 1, 1), "e", None, None, None, (), ()), "raíz")]
    for x in made:
        back = pickle.loads(pickle.dumps(x))
        assert back == x and repr(back) == repr(x) and type(back) is type(x)
    span = pickle.loads(pickle.dumps(Span("f", 1, 2, 3, 4)))
    assert (span.file, span.line, span.col, span.end_line, span.end_col) == ("f", 1, 2, 3, 4)
    assert not hasattr(span, "__dict__")                      # a slotted record stays slotted


def test_a_slotted_frozen_record_pickles_through_its_fields():
    @records.dataclass(frozen=True, slots=True)
    class Punto:
        x: int
        y: int = 0
    global Punto_
    Punto_ = Punto
    Punto.__qualname__ = "Punto_"
    p = pickle.loads(pickle.dumps(Punto(1, 2)))
    assert (p.x, p.y) == (1, 2) and Punto.__slots__ == ("x", "y")
    with pytest.raises(records.FrozenInstanceError):
        p.x = 3


SAMPLE = '''
@deco(frozen=True)
class Base:
    span: object = field(compare=False, repr=False)

@deco(frozen=True)
class Kid(Base):
    a: int
    b: str = "x"
    c: object = field(default=None, compare=False)
    d: tuple = field(default_factory=tuple, repr=False)

@deco
class Mutable:
    x: int
    y: dict = field(default_factory=dict)

@deco(frozen=True, slots=True)
class Slotted:
    f: str
    n: int = 0
'''


def test_the_same_class_text_makes_the_same_records_with_either_decorator():
    # The grounding of the twins above: one class text, decorated by each, gives the same fields
    # (names, order, defaults, factories, compare, repr) and the same behaviour.
    made = {}
    for who, deco, field in (("std", dataclasses.dataclass, dataclasses.field),
                             ("ours", records.dataclass, records.field)):
        ns = {"deco": deco, "field": field}
        exec(SAMPLE, ns)                                  # noqa: S102 - the text above
        made[who] = ns
    for name in ("Base", "Kid", "Mutable", "Slotted"):
        std, ours = made["std"][name], made["ours"][name]
        spec = [(f.name, f.default, f.default_factory, f.compare, f.repr) for f in dataclasses.fields(std)]
        mine = [(f.name, f.default, f.default_factory, f.compare, f.repr) for f in records.fields(ours)]
        assert [s[0] for s in spec] == [m[0] for m in mine]
        for s, m in zip(spec, mine):
            assert (s[1] is dataclasses.MISSING) == (m[1] is records.MISSING) and s[3:] == m[3:]
            assert s[1] is dataclasses.MISSING or s[1] == m[1]
            assert (s[2] is dataclasses.MISSING) == (m[2] is records.MISSING) and (s[2] is dataclasses.MISSING or s[2] is m[2])
        assert ("__slots__" in vars(std)) == ("__slots__" in vars(ours)) and std.__match_args__ == ours.__match_args__
    k_std, k_ours = made["std"]["Kid"](1, 2), made["ours"]["Kid"](1, 2)
    assert repr(k_std) == repr(k_ours) == "Kid(a=2, b='x', c=None)"
    assert hash(k_ours) == hash(made["ours"]["Kid"](9, 2)) and k_ours == made["ours"]["Kid"](9, 2, c=5)
    m = made["ours"]["Mutable"](1)
    m.x = 2
    assert repr(m) == repr(made["std"]["Mutable"](2)) and m.y == {} and m.y is not made["ours"]["Mutable"](1).y
