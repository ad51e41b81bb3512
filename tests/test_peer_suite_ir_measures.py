"""ir_measures' own test suite, unmodified, run against ``rankframe.compat.ir_measures``.

The suite is ``tests/data/peer_suites/ir_measures/tests/`` (terrierteam's ir_measures at
dc04a88f, 0.4.x, Apache-2.0; see that folder's README). Its ``import ir_measures`` resolves to
the drop-in (:mod:`tests.peer_suites`): one pytest run, then one assertion per upstream test.

Every test passes except those of ir_measures' private input converters
(``ir_measures.util.QrelsConverter`` and ``RunConverter``: its internals, not its API), which
the drop-in does not imitate: marked ``xfail(strict=True)``, so that a change that makes one
pass is noticed. A test of a measure family rankframe lacked was marked the same way, naming
the family, until the family landed (Compat, Accuracy, ndeval's, cwl_eval's CwlMetric).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.peer_suites import run_pytest

CONVERTER = "ir_measures.util's private input converters are not part of the drop-in's API"

#: Every test of the suite (node id) -> why it is expected to fail, or None (it passes).
TESTS: dict[str, str | None] = {
    "tests.test_accuracy.TestMeasures::test_accuracy": None,
    "tests.test_aggregate.TestMeasures::test_P": None,
    "tests.test_compat.TestCompat::test_measures": None,
    "tests.test_cwl_eval.TestCwlEval::test_measures": None,
    "tests.test_gdeval.TestPytrecEval::test_ERR": None,
    "tests.test_gdeval.TestPytrecEval::test_nDCG": None,
    "tests.test_judged.TestMeasures::test_judged": None,
    "tests.test_measures.TestMeasures::test_P": None,
    "tests.test_measures.TestMeasures::test_measures": None,
    # it expects cwl_eval's P@5 as a CwlMetric with its C/W/L expectations (and its arithmetic:
    # 0.6000000000000001)
    "tests.test_providers.TestPytrecEval::test_empty": None,
    "tests.test_pyndeval.TestPynedvalEval::test_ERR_IA": None,
    "tests.test_pyndeval.TestPynedvalEval::test_measures": None,
    **{
        f"tests.test_pytrec_eval.TestPytrecEval::test_{name}": None
        for name in (
            "IPrec",
            "NumQ",
            "NumRel",
            "NumRet",
            "P",
            "SetAP",
            "SetF",
            "SetP",
            "SetR",
            "Success",
            "infAP",
            "judged_only",
            "nDCG",
        )
    },
    "tests.test_ranx.TestRanx::test_P": None,
    **{
        f"tests.test_runtime.TestRuntime::test_{name}": None
        for name in ("define", "define_byquery", "non_doc_qrels", "run_qrel_inputs")
    },
    "tests.test_util.TestUtil::test_parse_measure": None,
    "tests.test_util.TestUtil::test_parse_trec_measure": None,
    "tests.test_util.TestUtil::test_qrels_converter": CONVERTER,
    "tests.test_util.TestUtil::test_run_converter": CONVERTER,
}


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return run_pytest("ir_measures", tmp_path_factory.mktemp("ir_measures"), "tests")


def test_the_suite_runs_every_expected_test(outcomes: dict[str, str]) -> None:
    assert sorted(outcomes) == sorted(TESTS)
    assert len(outcomes) == 34


@pytest.mark.parametrize(
    "node",
    [
        pytest.param(node, marks=[pytest.mark.xfail(strict=True, reason=why)] if why else [])
        for node, why in TESTS.items()
    ],
)
def test_upstream_test_passes(outcomes: dict[str, str], node: str) -> None:
    assert outcomes.get(node) == "passed", outcomes.get(node)


def test_the_suite_is_the_unmodified_upstream_copy() -> None:
    suite = Path(__file__).resolve().parent / "data" / "peer_suites" / "ir_measures"
    assert (suite / "LICENSE.txt").read_text().lstrip().startswith("Apache License")
    text = (suite / "tests" / "test_util.py").read_text()
    assert "import ir_measures\n" in text
    assert "ir_measures.util.QrelsConverter" in text
