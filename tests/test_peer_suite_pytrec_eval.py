"""pytrec_eval's own test suite, unmodified, run against ``rankframe.compat.pytrec_eval``.

The suite is ``tests/data/peer_suites/pytrec_eval/tests/pytrec_eval_tests.py`` (terrierteam's
pytrec_eval at the commit of pytrec-eval-terrier 0.5.11, MIT; see that folder's README). Its
``import pytrec_eval`` resolves to the drop-in (:mod:`tests.peer_suites`). pytest collects its five
unit tests; its two trec_eval-file cases (``results.test`` against ``out.test``, and with
``relevance_level=2`` against ``out.test.aql``, every measure of trec_eval's output to three
places) exist only when the file runs as a script, so it also runs that way.
"""

from __future__ import annotations

import pytest

from tests.peer_suites import changed_files, run_pytest, run_unittest_script

MODULE = "tests/pytrec_eval_tests.py"
UNIT_TESTS = ["test_empty", "test_measure_params", "test_ndcg", "test_ndcg_cut", "test_nicknames"]
SCRIPT_TESTS = [
    *UNIT_TESTS,
    "test_results.test-qrels.test-out.test",
    "test_results.test-qrels.rel_level-out.test.aql-relevance_level=2",
]


@pytest.fixture(scope="module")
def under_pytest(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return run_pytest("pytrec_eval", tmp_path_factory.mktemp("pytest"), MODULE)


@pytest.fixture(scope="module")
def as_script(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return run_unittest_script("pytrec_eval", tmp_path_factory.mktemp("script"), MODULE)


def test_pytest_collects_the_five_unit_tests(under_pytest: dict[str, str]) -> None:
    assert sorted(name.rsplit("::", 1)[1] for name in under_pytest) == UNIT_TESTS


@pytest.mark.parametrize("name", UNIT_TESTS)
def test_unit_test_passes_under_pytest(under_pytest: dict[str, str], name: str) -> None:
    node = f"tests.pytrec_eval_tests.PyTrecEvalUnitTest::{name}"
    assert under_pytest.get(node) == "passed", under_pytest


def test_the_script_runs_every_case(as_script: dict[str, str]) -> None:
    assert sorted(as_script) == sorted(SCRIPT_TESTS)


@pytest.mark.parametrize("name", SCRIPT_TESTS)
def test_case_passes_as_a_script(as_script: dict[str, str], name: str) -> None:
    assert as_script.get(name) == "passed", as_script.get(name)


def test_the_suite_is_the_unmodified_upstream_copy() -> None:
    assert changed_files("pytrec_eval") == []
