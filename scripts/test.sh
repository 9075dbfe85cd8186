#!/usr/bin/env bash
# Sets up everything the tests need, then runs them:
#   a virtual environment in .venv with the package and its `test` and `train` extras,
#   Debian's Chromium for the real-browser tests, then ruff and pytest.
# Extra arguments go to pytest (e.g. `bash scripts/test.sh -k engine`).
#
# The `train` extra brings PyTorch with its CUDA libraries: about 6 GB once installed.
# To keep the disk's high-water mark low, pip keeps no cache and the biggest wheels are
# installed one at a time. Where the disk still lacks room, the train extra is left out
# and the tests marked `train` are deselected, and the run says so in its first lines.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
NEED_GB=${MUS_TRAIN_NEED_GB:-8}
export PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
[ -x .venv/bin/python ] || "$PY" -m venv .venv
PIP=(.venv/bin/python -m pip install -q)
"${PIP[@]}" --upgrade pip

PYTEST_EXTRA=()
free_gb=$(df -Pk . | awk 'NR==2 {print int($4 / 1048576)}')
if .venv/bin/python -c "import ultralytics" 2>/dev/null; then
  "${PIP[@]}" -e '.[test,train]'
elif [ "$free_gb" -ge "$NEED_GB" ]; then
  report=$(mktemp)
  "${PIP[@]}" --dry-run --ignore-installed --report "$report" -e '.[test,train]'
  # torch, triton and the CUDA wheels first, one at a time, without their dependencies
  mapfile -t big < <(.venv/bin/python - "$report" <<'PYEOF'
import json, re, sys
for item in json.load(open(sys.argv[1]))["install"]:
    meta = item["metadata"]
    if re.match(r"(torch|triton|nvidia-|cuda-)", meta["name"], re.I):
        print(f"{meta['name']}=={meta['version']}")
PYEOF
)
  rm -f "$report"
  for req in "${big[@]}"; do "${PIP[@]}" --no-deps "$req"; done
  "${PIP[@]}" -e '.[test,train]'
else
  echo "scripts/test.sh: WARNING: only ${free_gb} GB of disk free, under the ${NEED_GB} GB that the"
  echo "  train extra (PyTorch and CUDA) needs: it is not installed, and the tests marked 'train'"
  echo "  (the training smoke test and the dataset renderer) are DESELECTED in this run."
  "${PIP[@]}" -e '.[test,enroll]'  # OpenCV (headless), so that enrolling and teaching a deck are still tested
  PYTEST_EXTRA=(-m "not train")
  export MUS_TRAIN_DESELECTED="only ${free_gb} GB of disk free, under the ${NEED_GB} GB needed"
fi

if [ ! -x /usr/bin/chromium ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -q
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium chromium-driver
fi
.venv/bin/ruff check .
exec .venv/bin/python -m pytest "${PYTEST_EXTRA[@]}" "$@"
