"""The interpreter knows no game: no word of the seeds in the Python of dsl/ or interpreter/."""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Terms of the two seed texts and their English twins (DESIGN.md).
WORDS = re.compile(
    r"esquiv|parad[ao]|\bparar\b|herida|fatiga|shock|emoci[oó]n|afecci[oó]n|\bleves?\b|\bgraves?\b|persistente"
    r"|asalto|iniciativa|armadura|localizaci[oó]n|\bmel[eé]\b|aquelarre|y[oô]kai|cr[ií]tico|pifia|obst[aá]culo"
    r"|facilidad|descanso|reposo|curaci[oó]n|escudo|espada|cabalgar|inmoviliz|\bweapons?\b|\barmou?rs?\b|\bparry"
    r"|\bdodge|\binitiative|\bwounds?\b|\bfatigue|\bmelee|\bshields?\b|\bswords?\b|\bhorses?\b|\bcritical\b"
    r"|\bfumble|\bdamage\b|hit.?location|\bincapacitad|\binconsciente|\bdesprevenido|\bderribado",
    re.IGNORECASE)


def python_files():
    for folder in ("dsl", "interpreter"):
        yield from sorted((ROOT / folder).rglob("*.py"))


def test_engine_python_has_no_game_words():
    hits = []
    for path in python_files():
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for m in WORDS.finditer(line):
                hits.append(f"{path.relative_to(ROOT)}:{number}: {m.group(0)!r} in {line.strip()}")
    assert not hits, "game words belong in rulesets/:\n" + "\n".join(hits)


def test_the_word_list_catches_a_game_word():
    assert WORDS.search('if name == "Esquiva":')
    assert WORDS.search("total damage = 3")
    assert not WORDS.search("def apply_modifier(x):")
