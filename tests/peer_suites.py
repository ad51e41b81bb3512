"""Run a peer library's own, unmodified test suite against rankframe's drop-in.

The suites live in ``tests/data/peer_suites/<library>/`` (origin, commit and licence in the
README there). :func:`run_pytest` copies one to a scratch folder (so the real library, installed
in the test environment as an oracle, is nowhere beside it), writes a one-file shim package
``<library>/__init__.py`` whose module replaces itself with ``rankframe.compat.<library>``, puts
the shim first on ``PYTHONPATH`` (before site-packages, so the import resolves to the shim) and
runs pytest there in a subprocess. Submodules (``ranx.fusion``, ``ir_measures.measures``) resolve
through the drop-in package's ``__path__``.

The outcome of each test comes back by its node id, so a test module can assert each expected
test by name, and that no test of the suite went missing.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

#: The vendored suites.
SUITES = Path(__file__).resolve().parent / "data" / "peer_suites"
ROOT = Path(__file__).resolve().parents[1]

_SHIM = """\
# The import of {library!r} resolves to rankframe's drop-in (tests/peer_suites.py)
import sys

import rankframe.compat.{library} as _dropin

sys.modules[__name__] = _dropin
"""


def prepare(library: str, scratch: Path) -> tuple[Path, dict[str, str]]:
    """Copy the suite of ``library`` into ``scratch`` beside a shim; return its folder and env."""
    suite = scratch / "suite"
    shutil.copytree(SUITES / library, suite)
    shim = scratch / "shim" / library
    shim.mkdir(parents=True)
    (shim / "__init__.py").write_text(_SHIM.format(library=library))
    path = os.pathsep.join([str(shim.parent), str(ROOT)])
    env = {**os.environ, "PYTHONPATH": path, "PYTHONDONTWRITEBYTECODE": "1"}
    return suite, env


def run_pytest(library: str, scratch: Path, *args: str) -> dict[str, str]:
    """Run the suite of ``library`` under pytest; return each test's outcome by node id.

    Outcomes are ``"passed"``, ``"failed"``, ``"error"`` or ``"skipped"``; a failure's message
    follows it after a colon (``"failed: AssertionError: ..."``).
    """
    suite, env = prepare(library, scratch)
    report = scratch / "report.xml"
    command = [
        sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist",
        "-o", "addopts=", "-q", f"--junitxml={report}", *args,
    ]
    done = subprocess.run(command, cwd=suite, env=env, capture_output=True, text=True, timeout=600)
    if not report.exists():
        msg = f"the {library} suite did not run:\n{done.stdout}\n{done.stderr}"
        raise RuntimeError(msg)
    return _junit_outcomes(report)


def run_unittest_script(library: str, scratch: Path, script: str) -> dict[str, str]:
    """Run one of the suite's files as a script (``python FILE -v``); outcomes by test name.

    pytrec_eval's file adds its trec_eval-file cases only under ``__main__``, so pytest alone
    never runs them.
    """
    suite, env = prepare(library, scratch)
    target = suite / script
    done = subprocess.run(
        [sys.executable, target.name, "-v"], cwd=target.parent, env=env,
        capture_output=True, text=True, timeout=600,
    )
    outcomes: dict[str, str] = {}
    for name, result in re.findall(r"^(test\S*) \(.*?\) \.\.\. (\w+)", done.stderr, re.MULTILINE):
        outcomes[name] = {"ok": "passed", "FAIL": "failed", "ERROR": "error"}.get(result, result)
    for _kind, name, detail in re.findall(
        r"^(FAIL|ERROR): (test\S*) .*?\n-+\n(.*?)(?=\n=+\n|\n-+\nRan )", done.stderr,
        re.MULTILINE | re.DOTALL,
    ):
        outcomes[name] += ": " + detail.strip().splitlines()[-1]
    if not outcomes:
        msg = f"{script} ran no test:\n{done.stdout}\n{done.stderr}"
        raise RuntimeError(msg)
    return outcomes


def changed_files(library: str) -> list[str]:
    """The suite's files whose SHA-256 differs from ``tests/data/SHA256SUMS`` (or are not listed).

    The sums were taken from the upstream files: an empty list means the copy is unmodified.
    """
    data = SUITES.parent
    listed = dict(
        reversed(line.split(maxsplit=1)) for line in (data / "SHA256SUMS").read_text().splitlines()
    )
    changed = []
    for path in sorted((SUITES / library).rglob("*")):
        name = path.relative_to(data).as_posix()
        if path.is_file() and listed.get(name) != hashlib.sha256(path.read_bytes()).hexdigest():
            changed.append(name)
    return changed


def _junit_outcomes(report: Path) -> dict[str, str]:
    outcomes: dict[str, str] = {}
    for case in ET.parse(report).getroot().iter("testcase"):
        module = case.get("classname", "")
        node = f"{module}::{case.get('name')}"
        outcome = "passed"
        for kind in ("failure", "error", "skipped"):
            found = case.find(kind)
            if found is not None:
                label = {"failure": "failed"}.get(kind, kind)
                text = (found.get("message") or found.text or "").strip().splitlines()
                outcome = f"{label}: {text[0][:300] if text else ''}"
                break
        outcomes[node] = outcome
    return outcomes
