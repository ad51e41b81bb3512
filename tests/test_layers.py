"""The house: layers that stay put, no import cycles, no module past 600 lines.

The layering is the import-linter contract in ``pyproject.toml`` (``[tool.importlinter]``):
each subpackage imports only the layers below it, and no package has an import cycle between
its modules. These tests run that contract, and show that it fails when a lower layer imports
a higher one.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "rankframe"
MAX_LINES = 600


def _lint_imports(cwd: Path) -> subprocess.CompletedProcess[str]:
    code = "import sys; from importlinter.cli import lint_imports_command; lint_imports_command()"
    env = {**os.environ, "PYTHONPATH": str(cwd)}
    return subprocess.run(
        [sys.executable, "-c", code, "--no-cache"], cwd=cwd, env=env, capture_output=True, text=True
    )


def test_the_import_contracts_are_kept() -> None:
    done = _lint_imports(ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 kept, 0 broken" in done.stdout


@pytest.mark.parametrize(
    ("module", "upward"),
    [
        ("_io/columns.py", "import rankframe._engine.plan"),  # inputs reading the planner
        ("_measures/ap.py", "from rankframe._compare import frames"),  # a measure reading reports
        ("_engine/rank.py", "import rankframe._cli"),  # the engine reading the command line
    ],
)
def test_an_upward_import_breaks_the_contract(tmp_path: Path, module: str, upward: str) -> None:
    shutil.copytree(PACKAGE, tmp_path / "rankframe", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    target = tmp_path / "rankframe" / module
    target.write_text(target.read_text() + f"\n{upward}  # an upward import\n")
    done = _lint_imports(tmp_path)
    assert done.returncode != 0
    assert "is not allowed to import" in done.stdout


def test_an_import_cycle_breaks_the_contract(tmp_path: Path) -> None:
    shutil.copytree(PACKAGE, tmp_path / "rankframe", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    target = tmp_path / "rankframe" / "_engine" / "options.py"  # imported by the plan
    target.write_text(target.read_text() + "\nfrom rankframe._engine import plan  # a cycle\n")
    done = _lint_imports(tmp_path)
    assert done.returncode != 0
    assert "No cycles are allowed in rankframe._engine" in done.stdout


def test_no_module_is_longer_than_600_lines() -> None:
    lengths = {
        str(path.relative_to(ROOT)): len(path.read_text().splitlines())
        for path in PACKAGE.rglob("*.py")
    }
    assert len(lengths) > 50
    assert {p: n for p, n in lengths.items() if n > MAX_LINES} == {}
