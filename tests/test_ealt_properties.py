"""Properties of the Estados Alterados that hold after any sequence of events,
activities and waits: no failure, and the cards stay as the text allows."""
from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import run_text

pytestmark = pytest.mark.slow      # each example runs an encounter (tests/conftest.py)

EXAMPLES = int(os.environ.get("GRIMORIO_FUZZ_EXAMPLES", "25"))
PROPS = settings(max_examples=EXAMPLES, deadline=None, derandomize="GRIMORIO_FUZZ_EXAMPLES" not in os.environ,
                 suppress_health_check=[HealthCheck.too_slow])

HEAD = """\
encounter "propiedades"
edition yokai
seed {seed}
combatant Akira:
  FUE 3, AGI 2, DES 2, PER 2, INT 2, VOL 2
combatant Hana:
  FUE 2, AGI 2, DES 3, PER 2, INT 3, VOL 3
do:
"""

TIPOS = ["Heridas", "Fatiga", "Shock", "Emoción", "Afección"]
GRADOS = ["Leve", "Persistente", "Grave"]
STEP = st.one_of(
    st.builds("receive Akira {} {}".format, st.sampled_from(TIPOS), st.sampled_from(GRADOS)),
    st.builds('sentir(Akira, "{}", "el oni")'.format, st.sampled_from(["miedo", "euforia", "terror", "ira"])),
    st.builds('enfermar(Akira, Afección.{}, "{}")'.format, st.sampled_from(GRADOS),
              st.sampled_from(["enfermedad", "veneno"])),
    st.builds('pasar({}, "{}")'.format, st.integers(1, 3), st.sampled_from(["rondas", "minutos", "horas", "días"])),
    st.builds('reposar(Akira, {}, "{}")'.format, st.integers(1, 2), st.sampled_from(["minutos", "horas"])),
    st.sampled_from(["descansar_todos(8)", "descansar(Akira, 7)", "curar(Hana, Akira)", "alejarse(Akira)",
                     "despertar(Akira)", "avanzar_afección(Akira)", "calma()", "acción_en_escena()",
                     'medicina(Hana, Akira, "cirugía", 9)', "esforzarse(Akira, 2)", "estímulo_positivo(Akira)",
                     'inconsciente_durante(Akira, 1D6, "minutos")', 'actuar_para(Akira, "FUE", "huir", "el oni", 9)']),
)


@PROPS
@given(seed=st.integers(0, 10_000), steps=st.lists(STEP, min_size=1, max_size=10),
       respiro=st.booleans(), específicos=st.booleans())
def test_fuzz_any_sequence_keeps_the_cards_as_the_text_allows(seed, steps, respiro, específicos):
    text = HEAD.format(seed=seed).replace("do:\n", f"set dame_un_respiro = {str(respiro).lower()}\n"
                                          f"set esp_específicos = {str(específicos).lower()}\ndo:\n")
    # The action's modifier is never worse than -3 (EALT-07), whatever is held.
    r = run_text(text + "".join(f"  {s}\n" for s in steps)
                 + 'expect modificador(Akira, "FUE", "otra", none, 0).total >= -3\n'
                 + 'expect modificador(Akira, "VOL", "huir", "el oni", 0).total >= -3\n')
    for tipo in TIPOS:
        held = r.grades("Akira", tipo)
        # No two cards of one grade: a second one always becomes something else (EALT-04, -05).
        assert len(held) == len(set(held)), (tipo, held, steps)
    assert len(r.grades("Akira", "Afección")) <= 1                      # one counter (EALT-34)
    assert "Leve" not in r.grades("Akira", "Emoción") or "Grave" not in r.grades("Akira", "Emoción")
    names = [n for n in ("miedo", "euforia", "terror", "ira") if r.has("Akira", n)]
    assert len(names) <= 1 and (not names or r.has("Akira", "Emoción"))
    # desprevenido comes and goes with Shock (EALT-23).
    assert r.has("Akira", "desprevenido") == r.has("Akira", "Shock"), steps
