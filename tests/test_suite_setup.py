"""The suite's own setup: a test module marked `train` that skips whole for want of a
package the train extra brings must be one that `conftest` lets skip when `scripts/test.sh`
deselects the train tests (a disk too small for PyTorch); otherwise CI fails at collection."""

from __future__ import annotations

import ast
import importlib.util
import re
import tomllib
from pathlib import Path

TESTS = Path(__file__).parent
ROOT = TESTS.parent
IMPORT_NAMES = {"opencv-python-headless": "cv2"}


def _train_only() -> tuple[str, ...]:
    spec = importlib.util.spec_from_file_location("suite_conftest", TESTS / "conftest.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.TRAIN_ONLY


def _train_marked_skips() -> dict[str, set[str]]:
    """Module-level importorskip names of every test module marked `train`, by file name."""
    found: dict[str, set[str]] = {}
    for path in sorted(TESTS.glob("test_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        marked = any(
            isinstance(node, ast.Assign) and ast.unparse(node.value) == "pytest.mark.train"
            for node in tree.body
        )
        if not marked:
            continue
        names = set()
        for node in tree.body:
            for call in ast.walk(node):
                if (
                    isinstance(call, ast.Call)
                    and ast.unparse(call.func) == "pytest.importorskip"
                    and isinstance(call.args[0], ast.Constant)
                ):
                    names.add(call.args[0].value)
        found[path.name] = names
    return found


def _installed_without_train() -> set[str]:
    """Import names of what `scripts/test.sh` installs when it leaves the train extra out."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    reqs = project["dependencies"] + project["optional-dependencies"]["test"]
    reqs += project["optional-dependencies"]["enroll"]
    names = {re.match(r"[A-Za-z0-9_.-]+", r).group(0).lower() for r in reqs}
    return {IMPORT_NAMES.get(n, n.replace("-", "_")) for n in names}


def test_train_modules_scan_finds_the_known_ones() -> None:
    skips = _train_marked_skips()
    assert "torch" in skips["test_datasets_fasttrain.py"]
    assert "ultralytics" in skips["test_train_smoke.py"]


def test_train_only_packages_may_skip_when_the_train_extra_is_deselected() -> None:
    without_train = _installed_without_train()
    assert "onnxruntime" in without_train and "torch" not in without_train
    for module, names in _train_marked_skips().items():
        for name in names - without_train:
            assert f"'{name}'" in _train_only(), (
                f"{module} skips whole without {name!r}, which only the train extra brings; "
                f"add it to conftest.TRAIN_ONLY or CI fails where the disk is too small for it"
            )
