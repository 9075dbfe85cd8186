"""Suite-wide settings.

In CI (the `CI` variable set) nothing may skip quietly: every dependency, the shipped
model and the browser are installed by `scripts/test.sh`, so a skip there means a
broken setup and is turned into a failure that says why.
"""

from __future__ import annotations

import os

import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if os.environ.get("CI") and report.skipped and not hasattr(report, "wasxfail"):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        report.outcome = "failed"
        report.longrepr = f"skipped in CI, which must run every test: {reason}"
