"""Suite-wide settings.

In CI (the `CI` variable set) nothing may skip quietly: every dependency, the shipped
model and the browser are installed by `scripts/test.sh`, so a skip there means a
broken setup and is turned into a failure that says why. That holds for a test module
skipped whole at collection too, with one exception: where `scripts/test.sh` found too
little disk for the train extra, it deselects the tests marked `train`, says so and sets
`MUS_TRAIN_DESELECTED`, and the train-only modules may then skip for want of OpenCV,
PyTorch or ultralytics.
"""

from __future__ import annotations

import os

import pytest

# The test browser measures with a phone's font metrics (tests/fonts.conf says why); a
# FONTCONFIG_FILE already set is kept. Chromium inherits it from this process.
os.environ.setdefault("FONTCONFIG_FILE", os.path.join(os.path.dirname(__file__), "fonts.conf"))

TRAIN_ONLY = ("'cv2'", "'torch'", "'ultralytics'")
"""What a module skipped at collection may lack when the train extra is deselected."""


def _ci_failure(report, what: str) -> None:
    reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
    report.outcome = "failed"
    report.longrepr = f"{what} in CI, which must run every test: {reason}"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if os.environ.get("CI") and report.skipped and not hasattr(report, "wasxfail"):
        _ci_failure(report, "skipped")


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    outcome = yield
    report = outcome.get_result()
    if not (os.environ.get("CI") and report.skipped):
        return
    reason = str(report.longrepr)
    if os.environ.get("MUS_TRAIN_DESELECTED") and any(name in reason for name in TRAIN_ONLY):
        return
    _ci_failure(report, "a module skipped whole")


def pytest_report_header(config) -> str | None:
    """Where the train tests were left out, say why at the top of the run (CI logs often
    keep only their end)."""
    why = os.environ.get("MUS_TRAIN_DESELECTED")
    return f"train extra not installed, tests marked 'train' deselected: {why}" if why else None
