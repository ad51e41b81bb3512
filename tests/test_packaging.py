"""What a released package carries: one version, its licence, citation and URLs agree."""

from __future__ import annotations

import importlib.metadata as md
import re
import tomllib
from pathlib import Path

import rankframe

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def test_one_version_source():
    # rankframe.__version__ is read from the installed metadata, which pyproject.toml writes;
    # CITATION.cff repeats it for citation tools and must not drift.
    assert rankframe.__version__ == md.version("rankframe") == PYPROJECT["version"]
    cff = (ROOT / "CITATION.cff").read_text()
    assert re.search(rf"^version: {re.escape(PYPROJECT['version'])}$", cff, re.M), "CITATION.cff version"


def test_licence_and_urls_declared():
    assert PYPROJECT["license"] == "MIT"  # a PEP 639 expression, not the deprecated table
    assert PYPROJECT["license-files"] == ["LICENSE"]
    assert (ROOT / "LICENSE").read_text().startswith("MIT License")
    urls = PYPROJECT["urls"]
    assert {"Homepage", "Documentation", "Source", "Issues", "Changelog"} <= set(urls)
    assert all(u.startswith("https://") for u in urls.values())


def test_changelog_has_an_unreleased_section():
    assert "## [Unreleased]" in (ROOT / "CHANGELOG.md").read_text()


def test_every_extra_has_a_smoke_command():
    # .ci/check-install installs each extra alone from the wheel and runs one command using it
    script = (ROOT / ".ci" / "check-install").read_text()
    extras = set(PYPROJECT["optional-dependencies"]) - {"test"}
    missing = {e for e in extras if f'"$wheel[{e}]"' not in script}
    assert not missing, f"extras with no smoke command in .ci/check-install: {sorted(missing)}"
