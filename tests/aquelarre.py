"""Two Aquelarre combatants for scenario tests, and a way to script them."""
from __future__ import annotations

import textwrap

RODRIGO = """\
combatant Rodrigo:
  side cristianos
  FUE 14, AGI 12, HAB 13, RES 14, PER 11
  Espadas 60%, Esquiva 40%, Cuchillos 50%
  arma {arma_r}
  armadura "Gambesón"
"""

BANDIDO = """\
combatant Bandido:
  side bandidos
  FUE 13, AGI 10, HAB 11, RES 13, PER 10
  Palo 45%, Esquiva 30%, Cuchillos 50%
  arma {arma_b}
  armadura "Ropas gruesas"
"""


def duel(dice: str, script: str = "", rounds: int = 1, extra: str = "", arma_r='"Espada corta"',
         arma_b='"Garrote"', strict: bool = True) -> str:
    """An encounter text: Rodrigo (Espada corta 60%, Gambesón) against Bandido
    (Garrote 45%, Ropas gruesas), with the given pinned dice and scripted rounds."""
    head = f'encounter "escena"\nedition aquelarre\nrounds {rounds}\n'
    body = RODRIGO.format(arma_r=arma_r) + BANDIDO.format(arma_b=arma_b)
    dice_block = f"dice{' strict' if strict else ''}:\n" + textwrap.indent(textwrap.dedent(dice).strip(), "  ") + "\n"
    return head + body + dice_block + textwrap.dedent(script) + textwrap.dedent(extra)


COMPINCHE = """\
combatant Compinche:
  side bandidos
  FUE 12, AGI 9, HAB 10, RES 12, PER 10
  Cuchillos 40%, Esquiva 25%, Pelea 35%
  arma {arma_c}
"""


def trio(dice: str, script: str = "", rounds: int = 1, extra: str = "", arma_r='"Espada corta"',
         arma_b='"Garrote"', arma_c='"Daga"', strict: bool = True) -> str:
    """duel() with a third combatant: Compinche (Daga 40%, AGI 9), on Bandido's side."""
    text = duel(dice, script, rounds, extra, arma_r, arma_b, strict)
    head, _, rest = text.partition("dice")
    return head + COMPINCHE.format(arma_c=arma_c) + "dice" + rest


def scene(combatants: str, dice: str, script: str = "", rounds: int = 1, extra: str = "",
          strict: bool = True) -> str:
    """An encounter text with the given combatant blocks."""
    head = f'encounter "escena"\nedition aquelarre\nrounds {rounds}\n'
    dice_block = f"dice{' strict' if strict else ''}:\n" + textwrap.indent(textwrap.dedent(dice).strip(), "  ") + "\n"
    return head + textwrap.dedent(combatants) + dice_block + textwrap.dedent(script) + textwrap.dedent(extra)


def one_action(first: str, second: str, dice: str, defence: str = "none", action: str = "", **kw) -> str:
    """duel() where `first` (initiative 1D10=9) does one action and `second`
    (1D10=1) answers with `defence`, then both pass."""
    action = action or f"atacar {second}"
    head = f"{first} iniciativa 9\n{second} iniciativa 1\n"
    script = f"round 1:\n  {first}: {action}, pass\n  {second}: {defence}, pass\n"
    return duel(head + textwrap.dedent(dice), script, **kw)
