#!/usr/bin/env bash
# Sets up the product in .venv and starts the table web app (SQLite in your data folder,
# the shipped card model). Extra arguments go to `mus-scorer serve` (e.g. --port 8080).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e ".[enroll]"  # enroll: teaching the reader a deck from the web app
exec .venv/bin/mus-scorer serve "$@"
