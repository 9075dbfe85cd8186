#!/usr/bin/env bash
# Sets up the product in .venv and starts the table web app (SQLite in your data folder,
# the shipped card model). Extra arguments go to `mus-scorer serve` (e.g. --port 8080).
# The setup (pip, which needs the package index) runs once, and again only when
# pyproject.toml changes: a later start needs no network (a bar's table without internet).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
stamp=".venv/.mus-setup-$(cksum < pyproject.toml | cut -d' ' -f1)"
if [ ! -e "$stamp" ] || [ ! -x .venv/bin/mus-scorer ]; then
  .venv/bin/python -m pip install -q --upgrade pip
  .venv/bin/python -m pip install -q -e ".[enroll]"  # enroll: teaching the reader a deck from the web app
  rm -f .venv/.mus-setup-* && touch "$stamp"
fi
exec .venv/bin/mus-scorer serve "$@"
