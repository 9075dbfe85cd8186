"""The Python examples of the docs run as written: each ```python block of README.md,
docs/CONTRACTS.md and scorer/engine/README.md, and each `print(...)  # text` in it prints
that text."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]
DOCS = ("README.md", "docs/CONTRACTS.md", "scorer/engine/README.md")


def _blocks() -> list[tuple[str, int, str]]:
    out = []
    for doc in DOCS:
        text = (ROOT / doc).read_text(encoding="utf-8")
        for i, m in enumerate(re.finditer(r"```python\n(.*?)```", text, re.S)):
            out.append((doc, i, m.group(1)))
    return out


def test_the_readme_has_a_python_example():
    assert any(doc == "README.md" for doc, _, _ in _blocks())


@pytest.mark.parametrize("doc,index,code", _blocks(), ids=lambda v: v if isinstance(v, str) and len(v) < 40 else "")
def test_a_docs_python_example_runs_and_prints_what_it_says(doc, index, code):
    expected = [m.group(1).strip() for m in re.finditer(r"^\s*print\(.*\)\s*#\s*(.+)$", code, re.M)]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, f"{doc} example {index}", "exec"), {"__name__": "__doc_example__"})
    assert out.getvalue().splitlines() == expected
