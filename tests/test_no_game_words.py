"""The interpreter knows no game: no word of the seeds in the Python of dsl/ or
interpreter/ (code, comments, and the messages and help texts a designer reads),
nor in the grammar."""
from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# Terms of the two seed texts and their English twins (DESIGN.md).
WORDS = re.compile(
    r"esquiv|parad[ao]|\bparar\b|herida|fatiga|shock|emoci[oó]n|afecci[oó]n|\bleves?\b|\bgraves?\b|persistente"
    r"|asalto|iniciativa|armadura|localizaci[oó]n|\bmel[eé]\b|aquelarre|y[oô]kai|cr[ií]tico|pifia|obst[aá]culo"
    r"|facilidad|descanso|reposo|curaci[oó]n|escudo|espada|cabalgar|inmoviliz|\bweapons?\b|\barmou?rs?\b|\bparry"
    r"|\bdodge|\binitiative|\bwounds?\b|\bfatigue|\bmelee|\bshields?\b|\bswords?\b|\bhorses?\b|\bcritical\b"
    r"|\bfumble|\bdamage\b|hit.?location|\bincapacitad|\binconsciente|\bdesprevenido|\bderribado"
    r"|ataque|atacante|defensor|\barmas?\b|\bpv\b|\battack|\bfight"
    # The other combat words of the seeds (and the tutorial edition's), with their English twins. Not
    # "enemies"/"allies" (the prelude's side rules, a name of the language), "kill" (a process is
    # killed) nor "dead" (dead data): generic words the interpreter itself uses.
    r"|\bdaño|\bgolpe|\bmuert[eo]|\bmuere|\bdeath|\benemig|\brival(es)?\b|\boponente|\badversari|contrincante"
    r"|\btirada|\bmontad[oa]|\bmontura|\bmount(ed)?\b|\bcarga|\bcaballo|\bjinete|\bgalope|\bpelea\b"
    r"|\bcombate\b|\bcombatir|\bcombatiente|impact[oa]|desmay|\bfaint|\bunconscious|proyectil|\blanzas?\b"
    r"|secuela|\ben_pie\b|\bpj\b|veneno|\bpoison|enfermedad|\bdisease|infecci[oó]n|cirug[ií]a|\bmiedo\b"
    r"|euforia|abatimiento",
    re.IGNORECASE)
HOOK = Path("/work/shared/hooks/before-stop")     # the project's own check, where it exists


def python_files():
    for folder in ("dsl", "interpreter"):
        yield from sorted((ROOT / folder).rglob("*.py"))


def texts_of(path: Path):
    """Every string literal of a Python file (f-strings whole): its messages and help texts."""
    source = path.read_text(encoding="utf-8")
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.STRING or tok.type == getattr(tokenize, "FSTRING_MIDDLE", None):
            yield tok.start[0], tok.string


@pytest.mark.slow
def test_engine_python_has_no_game_words():
    hits = []
    for path in python_files():
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for m in WORDS.finditer(line):
                hits.append(f"{path.relative_to(ROOT)}:{number}: {m.group(0)!r} in {line.strip()}")
    assert not hits, "game words belong in rulesets/:\n" + "\n".join(hits)


@pytest.mark.slow
def test_messages_and_help_texts_have_no_game_words():
    hits = [f"{path.relative_to(ROOT)}:{number}: {m.group(0)!r} in {text}"
            for path in python_files() for number, text in texts_of(path) for m in WORDS.finditer(text)]
    assert not hits, "a message shows a game word (give an example from the rules' own names instead):\n" + \
        "\n".join(hits)


def test_the_grammar_has_no_game_words():
    grammar = ROOT / "dsl" / "syntax" / "grammar.lark"
    hits = [f"{number}: {line.strip()}" for number, line in enumerate(grammar.read_text(encoding="utf-8").split("\n"), 1)
            if WORDS.search(line)]
    assert not hits, hits


def test_the_word_list_catches_a_game_word():
    assert WORDS.search('if name == "Esquiva":')
    assert WORDS.search("total damage = 3")
    assert WORDS.search('help="for example: by e.defensor"')
    assert WORDS.search("such as {c.pv}")
    assert not WORDS.search("def apply_modifier(x):")
    assert not WORDS.search("a pinned roll was never made; spv = 1")
    for word in ("golpe(a, b)", "daño 1D8", "tirada: valor", "requires montado(yo)", "a mount", "cargar when",
                 "en_pie(objetivo)", "on receive(pj, grado)", "el enemigo", "muerte", "Combate a Caballo"):
        assert WORDS.search(word), word
    # The language's own generic words are no game words.
    for text in ("enemies(c) and allies(c)", "combatant Ana:", "combatants()", "a run that is killed",
                 "dead data", "amount", "rivalry", "the last one"):
        assert not WORDS.search(text), text


def test_the_literals_of_a_message_are_read():
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        probe = Path(tmp) / "probe.py"
        probe.write_text('x = 1  # fine\nfail(f"name the {what}, as atacante: yo")\n', encoding="utf-8")
        assert [n for n, t in texts_of(probe) if WORDS.search(t)] == [2]


@pytest.mark.skipif(not HOOK.exists(), reason="the shared hooks are not on this machine")
def test_every_word_of_the_projects_hook_is_in_the_list():
    m = re.search(r"words='([^']*)'", HOOK.read_text(encoding="utf-8"))
    assert m, "the hook's word list moved"
    ours = set(WORDS.pattern.split("|"))
    missing = [w for w in m.group(1).split("|") if w not in ours]
    assert not missing, f"add these to WORDS: {missing}"
