#!/usr/bin/env bash
# Sets up everything the tests need, then runs them:
#   a virtual environment in .venv with the package and its `test` and `train` extras,
#   Debian's Chromium for the real-browser tests, then ruff and pytest.
# Extra arguments go to pytest (e.g. `bash scripts/test.sh -k engine`).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e '.[test,train]'
if [ ! -x /usr/bin/chromium ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -q
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium chromium-driver
fi
.venv/bin/ruff check .
exec .venv/bin/python -m pytest "$@"
