"""ranx's own unit tests, unmodified, run against ``rankframe.compat.ranx``.

The suite is ``tests/data/peer_suites/ranx/`` (AmenRa/ranx at 0.3.21, MIT; see that folder's
README): 124 tests of its metrics, ``evaluate``, ``Qrels``/``Run``/``Report``, fusion and
normalisation. Its ``import ranx`` resolves to the drop-in (:mod:`tests.peer_suites`); one pytest
subprocess runs them all. Every test passes except the two in :data:`FAILING`, whose fixtures
need ranx's numba typed dicts: they are expected to fail (strictly, so that a change that makes
them pass has to drop the mark). The suite itself imports ``numba.typed.List`` and pandas
(ranx's dependencies, in the ``test`` extra); without them it is skipped.
"""

from __future__ import annotations

import ast

import pytest

from tests.peer_suites import SUITES, changed_files, run_pytest

pytest.importorskip("numba", reason="ranx's suite builds numba typed Lists (pip install ranx)")
pytest.importorskip("pandas", reason="ranx's suite builds pandas DataFrames (pip install pandas)")

ROOT = SUITES / "ranx"
#: Upstream tests the drop-in does not pass, and why (strict: a fix has to drop the entry).
_TYPED_DICTS = (
    "the test builds numba.typed.List([run.run, ...]) itself: ranx's Run.run is a numba typed "
    "Dict, the drop-in's a plain dict, which numba cannot type (ValueError before the drop-in runs)"
)
FAILING: dict[str, str] = {
    "tests.unit.ranx.fusion.condorcet_test::test_get_candidates": _TYPED_DICTS,
    "tests.unit.ranx.fusion.condorcet_test::test_get_results": _TYPED_DICTS,
}


def _defined() -> list[str]:
    """Every test function of the suite's files, as JUnit node ids (``module::name``)."""
    nodes = []
    for path in sorted((ROOT / "tests").rglob("*_test.py")):
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        tree = ast.parse(path.read_text())
        nodes += [f"{module}::{f.name}" for f in tree.body
                  if isinstance(f, ast.FunctionDef) and f.name.startswith("test")]
    return sorted(nodes)


NODES = _defined()


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return run_pytest("ranx", tmp_path_factory.mktemp("ranx"), "tests")


def _cases(outcomes: dict[str, str], node: str) -> dict[str, str]:
    """The outcomes of ``node``'s cases (one, or one per parameter set)."""
    return {k: v for k, v in outcomes.items() if k.split("[")[0] == node}


def test_pytest_collects_every_test_of_the_suite(outcomes: dict[str, str]) -> None:
    assert len(outcomes) == 124  # 123 functions, one of them run with two parameter sets
    assert sorted({k.split("[")[0] for k in outcomes}) == NODES


@pytest.mark.parametrize(
    "node",
    [
        pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=FAILING[n])) if n in FAILING else n
        for n in NODES
    ],
)
def test_upstream_test_passes(outcomes: dict[str, str], node: str) -> None:
    cases = _cases(outcomes, node)
    assert cases, f"{node} did not run"
    assert set(cases.values()) == {"passed"}, cases


def test_the_suite_is_the_unmodified_upstream_copy() -> None:
    assert changed_files("ranx") == []
