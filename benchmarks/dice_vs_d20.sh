#!/usr/bin/env bash
# Dice against d20, per roll, in CPU time, the two sides alternating (python -m benchmarks --only dice).
# d20 needs lark-parser 0.x, which clashes with lark 1.x: it gets a venv of its own.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.venv-d20          # beside the project's .venv (kept: made once), not in the temporary folder
[ -x "$venv/bin/python" ] && "$venv/bin/python" -c "import d20" 2>/dev/null || {
  python3 -m venv "$venv" && "$venv/bin/pip" install -q d20; }
python=.venv/bin/python
[ -x "$python" ] || python=python3
"$python" -m benchmarks --only dice "$@"
