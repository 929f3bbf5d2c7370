"""Every benchmark's ``--help`` opens with the whole first paragraph of its docstring."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"
SCRIPTS = sorted(path for path in BENCH.glob("*.py") if "argparse" in path.read_text())


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda path: path.name)
def test_help_describes_the_benchmark_with_its_docstring_s_first_paragraph(script: Path):
    doc = ast.get_docstring(ast.parse(script.read_text()))
    assert doc, f"{script.name} has no docstring"
    first = " ".join(doc.split("\n\n")[0].split())
    shown = subprocess.run(
        [sys.executable, str(script), "--help"], capture_output=True, text=True, check=True, cwd=BENCH.parent
    ).stdout
    assert first in " ".join(shown.split())
