#!/usr/bin/env bash
# d20 needs lark-parser 0.x, which clashes with lark 1.x: give it a venv of its own.
set -euo pipefail
cd "$(dirname "$0")/.."
venv="${TMPDIR:-/tmp}/grimorio-d20-venv"
[ -x "$venv/bin/python" ] || { python3 -m venv "$venv" && "$venv/bin/pip" install -q d20; }
"$venv/bin/python" benchmarks/dice_vs_d20.py
