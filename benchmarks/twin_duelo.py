"""A hand-written Python twin of the Aquelarre duel rules frozen in
benchmarks/duelo_referencia (a copy of rulesets/aquelarre as it stood when the
twin was written), for its encounter benchmarks/duelo_referencia/duelo.enc. It
draws its dice from the same streams as the interpreter, one per (who rolls,
purpose) (grimorio's dice.stream_at), in the same order within each, so both give
the same fight for a seed: tests hold the interpreter to this twin's results
and to 1.5x its time."""
from __future__ import annotations

from grimorio.interpreter.run.dice import stream_at

ARMAS = {  # competencia, dados [(n, caras)], constante, para
    "Espada corta": ("Espadas", [(1, 6)], 1, True),
    "Garrote": ("Mazas", [(1, 6)], 0, True),
}
ARMADURAS = {"Gambesón": (2, 50), "Ropas gruesas": (1, 30)}
FACTOR = {1: (2, 1), 2: (1, 2), 3: (1, 2), 4: (1, 1), 5: (1, 1), 6: (1, 1), 7: (1, 1), 8: (1, 1), 9: (1, 2), 10: (1, 2)}
PIFIA, FALLO, EXITO, CRITICO = range(4)


class Luchador:
    __slots__ = ("nombre", "bando", "AGI", "RES", "skills", "arma", "prot", "res_arm", "pv", "ini", "acc",
                 "inconsciente", "muerto")

    def __init__(self, nombre, bando, agi, res, skills, arma, armadura):
        self.nombre, self.bando, self.AGI, self.RES, self.skills = nombre, bando, agi, res, skills
        self.arma = ARMAS[arma]
        self.prot, self.res_arm = ARMADURAS[armadura]
        self.pv, self.ini, self.acc = res, 0, 0
        self.inconsciente = self.muerto = False


def duelo(seed: int, max_rounds: int = 100):
    streams = {}
    seed_text = str(seed).encode("ascii")       # written once, as the interpreter's run does

    def rnd(who, purpose):
        r = streams.get((who, purpose))
        if r is None:
            r = streams[(who, purpose)] = stream_at(seed_text, who.nombre, purpose)
        return r()
    a = Luchador("Rodrigo", "cristianos", 12, 14, {"Espadas": 60, "Esquivar": 35, "Pelea": 40}, "Espada corta", "Gambesón")
    b = Luchador("Bandido", "bandidos", 10, 13, {"Mazas": 45, "Esquivar": 30, "Pelea": 45}, "Garrote", "Ropas gruesas")
    todos = [a, b]

    def en_pie(c):
        return not c.inconsciente and not c.muerto

    def porcentaje(objetivo, who, purpose):
        t = rnd(who, purpose) % 100 + 1
        c = -(-objetivo // 10)
        if t <= c:
            return t, CRITICO
        if t >= 90 + c:
            return t, PIFIA
        if t >= 96:
            return t, FALLO
        if t <= 5 or t <= objetivo:
            return t, EXITO
        return t, FALLO

    def defender(d, resultado):
        if d.acc < 1 or not en_pie(d):
            return False
        skill = d.skills[d.arma[0]]
        if d.arma[3] and skill >= d.skills["Esquivar"]:
            d.acc -= 1
            return porcentaje(skill, d, "parada")[1] >= EXITO
        d.acc -= 1
        objetivo = d.skills["Esquivar"]
        if resultado == CRITICO:
            objetivo //= 2
        return porcentaje(objetivo, d, "esquiva")[1] >= EXITO

    def aplicar(atacante, d, tirada, resultado):
        mul, div = FACTOR[(tirada - 1) % 10 + 1]
        _, dados, const, _ = atacante.arma
        if resultado == CRITICO:
            final = (sum(n * f for n, f in dados) + const) * mul // div
        else:
            dado = const
            for n, f in dados:
                for _ in range(n):
                    dado += rnd(atacante, "daño") % f + 1
            prot = d.prot if d.res_arm > 0 else 0
            absorbe = min(dado, prot)
            d.res_arm = max(0, d.res_arm - dado)
            final = (dado - absorbe) * mul // div
        d.pv -= final
        if d.pv <= -d.RES and not d.muerto:
            d.inconsciente, d.muerto = False, True
        elif d.pv <= 0 and not d.inconsciente and not d.muerto:
            d.inconsciente = True

    ronda = 0
    while ronda < max_rounds:
        ronda += 1
        for c in todos:
            if en_pie(c):
                c.ini = rnd(c, "iniciativa") % 10 + 1 + c.AGI
                c.acc = 2
        impactos = []
        orden = sorted(todos, key=lambda c: c.ini, reverse=True)
        grupos = []
        for c in orden:
            if grupos and grupos[-1][0].ini == c.ini:
                grupos[-1].append(c)
            else:
                grupos.append([c])
        for g in grupos:
            for c in [c for c in g if en_pie(c)]:
                while c.acc > 0:
                    objetivo = next((o for o in todos if o.bando != c.bando and en_pie(c) and en_pie(o)), None)
                    if objetivo is None:
                        break
                    c.acc -= 1
                    tirada, resultado = porcentaje(c.skills[c.arma[0]], c, "ataque")
                    if resultado >= EXITO and not defender(objetivo, resultado):
                        impactos.append((c, objetivo, tirada, resultado))
        for atacante, d, tirada, resultado in impactos:
            aplicar(atacante, d, tirada, resultado)
        if len({c.bando for c in todos if en_pie(c)}) <= 1:
            break
    return ronda, a.pv, b.pv, a.res_arm, b.res_arm
