"""trec_eval 10.0's preference measures against the outputs of its own test suite.

The expected files are ``out.test.prefs`` (``-m all_prefs -q -R prefs``, also with the
commented prefs file) and ``out.test.qrels_prefs`` (``-m all_prefs -q -R qrels_prefs``).
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from rankframe._errors import InputError
from rankframe._io.prefs import read_prefs, read_qrels_prefs
from rankframe._io.trec_text import read_trec_run
from rankframe._trec_eval.prefs import PREFS_COUNTS, PREFS_LABELS, prefs_per_query, prefs_summary

#: The test data that travels with the tests (origin and licence: tests/data/README.md).
TEST_DATA = Path(__file__).resolve().parent / "data"
#: trec_eval's test/ folder at tag v10.0 (tests/data/trec_eval_test/README.md).
SUITE = TEST_DATA / "trec_eval_test"


def _value(label: str, value: float) -> str:
    return str(int(value)) if label in PREFS_COUNTS else f"{value:6.4f}"


def _trec_eval_text(prefs: pl.LazyFrame, run_path: Path) -> str:
    """What ``trec_eval -m all_prefs -q`` prints, formatted from prefs_per_query."""
    run = read_trec_run(run_path)
    wide = prefs_per_query(prefs, run)
    lines = []
    for row in wide.iter_rows(named=True):
        lines += [f"{lbl:<22}\t{row['query_id']}\t{_value(lbl, row[lbl])}" for lbl in PREFS_LABELS]
    runid = run.select(pl.col("run_tag").sort_by("line_no").last()).collect().item()
    lines.append(f"{'runid':<22}\tall\t{runid}")
    lines.append(f"{'num_q':<22}\tall\t{wide.height}")
    totals = prefs_summary(wide).row(0, named=True)
    lines += [f"{lbl:<22}\tall\t{_value(lbl, totals[lbl])}" for lbl in PREFS_LABELS]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("prefs_file", ["prefs.test", "prefs.comment.test"])
def test_prefs_matches_trec_eval(prefs_file: str) -> None:
    got = _trec_eval_text(read_prefs(SUITE / prefs_file), SUITE / "prefs.results.test")
    expected = (SUITE / "out.test.prefs").read_text()
    assert got.splitlines() == expected.splitlines()


def test_qrels_prefs_matches_trec_eval() -> None:
    got = _trec_eval_text(read_qrels_prefs(SUITE / "qrels.test"), SUITE / "results.test")
    expected = (SUITE / "out.test.qrels_prefs").read_text()
    assert got.splitlines() == expected.splitlines()


def _frames(rows: list[tuple[str, str, str, float]], ranking: list[str]):
    prefs = pl.LazyFrame(
        {
            "query_id": ["q"] * len(rows), "jg": [r[0] for r in rows], "jsg": [r[1] for r in rows],
            "doc_id": [r[2] for r in rows], "rel_level": [r[3] for r in rows],
        }
    )
    run = pl.LazyFrame(
        {"query_id": ["q"] * len(ranking), "doc_id": ranking,
         "score": [float(len(ranking) - i) for i in range(len(ranking))]}
    )
    return prefs, run


def test_transitive_preferences_are_added() -> None:
    # sub1: a > b > c; sub2: b > d  => a>b, a>c, b>c, b>d, a>d (5 preferences)
    rows = [("g", "1", "a", 3.0), ("g", "1", "b", 2.0), ("g", "1", "c", 1.0),
            ("g", "2", "b", 5.0), ("g", "2", "d", 4.0)]
    prefs, run = _frames(rows, ["d", "c", "b", "a"])
    out = prefs_per_query(prefs, run).row(0, named=True)
    assert out["prefs_num_prefs_poss"] == 5
    assert out["prefs_num_prefs_ful"] == 0


def test_inconsistent_group_is_an_error() -> None:
    rows = [("g", "1", "a", 2.0), ("g", "1", "b", 1.0), ("g", "2", "b", 2.0), ("g", "2", "a", 1.0)]
    prefs, run = _frames(rows, ["a", "b"])
    with pytest.raises(InputError, match="inconsistent"):
        prefs_per_query(prefs, run)


def test_depth_and_complete() -> None:
    rows = [("g", "1", "a", 1.0), ("g", "1", "b", 0.0)]
    prefs, run = _frames(rows, ["a", "b"])
    assert prefs_per_query(prefs, run)["prefs_num_prefs_ful_ret"].to_list() == [1.0]
    cut = prefs_per_query(prefs, run, depth=1).row(0, named=True)
    assert (cut["prefs_num_prefs_ful_ret"], cut["prefs_num_prefs_ful"]) == (0.0, 1.0)
    empty = run.filter(pl.lit(False))
    assert prefs_per_query(prefs, empty).height == 0
    assert prefs_per_query(prefs, empty, complete=True)["prefs_simp"].to_list() == [0.0]


def test_rnonrel_recalculation_in_preference_arrays() -> None:
    # sub1: a > n1, n2, n3 (nonrelevant); sub2: b > a; closure adds b > n1, n2, n3.
    rows = [("g", "1", "a", 1.0), ("g", "1", "n1", 0.0), ("g", "1", "n2", 0.0),
            ("g", "1", "n3", 0.0), ("g", "2", "b", 2.0), ("g", "2", "a", 1.0)]
    prefs, run = _frames(rows, ["n1", "a", "n2", "b", "n3"])
    out = prefs_per_query(prefs, run).row(0, named=True)
    assert out["prefs_simp"] == pytest.approx(3 / 7)
    # R = 2 < N = 3: only the first 2 nonrelevant docs (n1, n2) are kept: a>n2 of 5 prefs holds
    assert out["prefs_avgjg_Rnonrel"] == pytest.approx(1 / 5)
    assert out["prefs_avgjg_Rnonrel_ret"] == pytest.approx(1 / 5)
    # c > b > a, c unretrieved: R = 3 = N, no recalculation: 3 of 12 prefs hold. Retrieved:
    # 2 relevant < 3 nonrelevant, but trec_eval keeps as many retrieved nonrelevant docs as
    # there are relevant ones in all (3), so n3 stays: 3 of the 7 retrieved prefs hold.
    prefs, run = _frames([*rows, ("g", "2", "c", 3.0)], ["n1", "a", "n2", "b", "n3"])
    out = prefs_per_query(prefs, run).row(0, named=True)
    assert out["prefs_avgjg_Rnonrel"] == pytest.approx(3 / 12)
    assert out["prefs_avgjg_Rnonrel_ret"] == pytest.approx(3 / 7)
