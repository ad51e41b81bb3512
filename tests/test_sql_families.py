"""The SQL forms of Bpref, IPrec, the set measures, Hits/F1/HitRate, ERR, RBP and infAP.

Each compiled query runs in DuckDB and must give ``evaluate``'s rows, to 1e-12 relative, on the
sample run and on small frames built to trip the edge cases (ties, unjudged and negative grades,
queries only in the qrels, empty and tiny rankings, cutoffs past the end, depth, levels).
"""

from __future__ import annotations

import math
import random
from pathlib import Path

import polars as pl
import pytest

import rankframe as rf
import rankframe.sql as rf_sql

pytest.importorskip("duckdb")
from tests.test_sql import _duckdb as run_in_duckdb  # noqa: E402 - after the skip

DATA = Path(__file__).resolve().parent.parent / "data"

MEASURES = [
    # Bpref
    "Bpref", "GMBpref", "Bpref(rel=2)", "Bpref(rel=0)",
    # IPrec: the eleven levels, a graded level, levels out of [0, 1], the averages
    "iprec_at_recall", "IPrec(rel=2)@0.5", "IPrec@-0.5", "IPrec@1.5", "IPrec@0.25",
    "IPrecAvg", "IPrecAvg(rel=2)", "IPrecAvg(recall=(0.5,0.9,0.1,0.0))", "IPrecAvg(recall=(0.3,0.7))",
    "IPrecAvg(recall=(1.0,0.8,0.6))", "IPrec(rounding='trec_eval9')@0.7",
    "IPrecAvg(rounding='trec_eval9')", "Bpref(rel=-1)", "infAP(rel=-1)",
    # set measures
    "SetP", "SetP(relative=True)", "SetRelP", "SetR", "SetR(rel=2)", "SetAP", "SetF",
    "SetF(beta=0.5)", "SetF(rel=2,beta=2.0)", "NumNonRelJudgedRet", "NumNonRelJudgedRet(rel=2)",
    # ranx's hit measures
    "Hits", "Hits@3", "Hits(rel=2)@50", "F1", "F1@3", "F1(rel=2)@50", "HitRate", "HitRate@1",
    # ERR, RBP (binary, graded, gain maps), infAP
    "ERR", "ERR@1", "ERR@3", "ERR@50",
    "RBP", "RBP(p=0.5)@3", "RBP(rel=1)", "RBP(rel=2,p=0.9)@50",
    "RBP(p=0.9,gains={0:0.5,1:2,3:7})", "RBP(gains={1:0.5,2:0.7})", "RBP(gains={-1:0.5,2:3})@5",
    "RBP(gains={-2:0.3,0:0.1})", "RBP(gains={1:3})", "RBP(gains={-1:0.25})",
    "infAP", "infAP(rel=2)",
]


def _compare(qrels: pl.DataFrame, run: pl.DataFrame, measures: list[str], **options: object) -> int:
    """Run the compiled query in DuckDB; assert evaluate's rows and values. Returns the rows."""
    got = run_in_duckdb(qrels, run, rf_sql.query(measures, per_query=True, **options))
    want = rf.evaluate(qrels, run, measures, per_query=True, **options)
    key = ["query_id", "measure"]
    assert got.select(key).sort(key).rows() == want.select(key).sort(key).rows()
    rows = want.join(got, on=key, suffix="_sql").rows(named=True)
    bad = [
        (r["query_id"], r["measure"], r["value"], r["value_sql"])
        for r in rows
        if not math.isclose(r["value"], r["value_sql"], rel_tol=1e-12, abs_tol=0.0)
    ]
    assert not bad, bad[:10]
    return len(rows)


@pytest.fixture(scope="module")
def sample() -> tuple[pl.DataFrame, pl.DataFrame]:
    qrels = rf.read_qrels(DATA / "qrels.dl19-passage.txt").collect()
    run = rf.read_run(DATA / "run.dl19.bm25.txt").collect()
    return qrels.select("query_id", "doc_id", "relevance"), run.select("query_id", "doc_id", "score")


def test_sample_run(sample: tuple[pl.DataFrame, pl.DataFrame]) -> None:
    qrels, run = sample
    assert _compare(qrels, run, ["official", *MEASURES]) > 43 * 60


@pytest.mark.parametrize(("depth", "level"), [(None, 1), (100, 2)])
def test_sample_run_aggregated(sample: tuple[pl.DataFrame, pl.DataFrame], depth: int | None,
                               level: int) -> None:
    qrels, run = sample
    measures = ["official", "GMBpref", "IPrecAvg", "SetF", "F1@10", "ERR@20", "RBP", "infAP"]
    got = dict(run_in_duckdb(qrels, run, rf_sql.query(measures, depth=depth, relevance_level=level)).rows())
    want = rf.evaluate(qrels, run, measures, depth=depth, relevance_level=level)
    assert set(got) == set(want["measure"])
    for name, value in want.rows():
        assert math.isclose(got[name], value, rel_tol=1e-12), name


def _adversarial() -> tuple[pl.DataFrame, pl.DataFrame]:
    """Hand-built queries for the edge cases, and seeded random ones with ties and every grade."""
    qrels = [
        # tied scores: doc "9" ranks above "10" (byte order, descending)
        ("tie", "9", 1), ("tie", "10", 2), ("tie", "100", 0), ("tie", "11", -1), ("tie", "z", 1),
        ("only_qrels", "a", 1), ("only_qrels", "b", 0),                    # never retrieved
        ("single", "a", 2), ("single", "b", 1),                            # one document retrieved
        ("no_rel", "a", 0), ("no_rel", "b", -1), ("no_rel", "c", 0),       # nothing relevant
        ("unjudged_only", "a", -1), ("unjudged_only", "b", -2),           # no grade >= 0
        ("grade5", "a", 5), ("grade5", "b", 4), ("grade5", "c", 3),        # above ERR's scale
        # R = 5: recall levels 0.1, 0.3, 0.5, 0.7, 0.9 fall on halves
        *(("halves", d, 1) for d in "abcde"), ("halves", "f", 0),
    ]
    run = [
        ("tie", "10", 1.0), ("tie", "9", 1.0), ("tie", "100", 1.0), ("tie", "11", 0.5),
        ("tie", "x", 2.0), ("tie", "y", 0.5),
        ("single", "a", 3.0),
        ("no_rel", "a", 1.0), ("no_rel", "b", 2.0), ("no_rel", "q", 0.0),
        ("unjudged_only", "a", 1.0), ("unjudged_only", "x", 2.0),
        ("grade5", "c", 3.0), ("grade5", "a", 2.0), ("grade5", "b", 1.0),
        ("halves", "x", 9.0), ("halves", "a", 8.0), ("halves", "f", 7.0), ("halves", "b", 6.0),
        ("halves", "y", 5.0), ("halves", "c", 4.0), ("halves", "e", 1.0),
        ("run_only", "a", 1.0),                                            # not judged: dropped
    ]
    rng = random.Random(20240601)
    for i in range(25):
        q = f"r{i}"
        docs = [str(d) for d in rng.sample(range(40), rng.randint(1, 25))]
        for d in docs:
            if rng.random() < 0.7:
                run.append((q, d, float(rng.randint(0, 4))))  # few distinct scores: ties
            if rng.random() < 0.6:
                qrels.append((q, d, rng.choice([-1, 0, 0, 1, 1, 2, 3, 4])))
        qrels.append((q, f"unret{i}", rng.choice([0, 1, 2])))
    qrels_df = pl.DataFrame(qrels, schema=["query_id", "doc_id", "relevance"], orient="row")
    run_df = pl.DataFrame(run, schema=["query_id", "doc_id", "score"], orient="row")
    return qrels_df, run_df


@pytest.mark.parametrize(
    ("complete", "depth", "level", "judged_only"),
    [(False, None, 1, False), (True, None, 1, False), (True, 3, 1, False), (False, 2, 2, False),
     (False, None, 2, False), (True, None, 1, True)],
)
def test_adversarial(complete: bool, depth: int | None, level: int, judged_only: bool) -> None:
    qrels, run = _adversarial()
    n = _compare(qrels, run, MEASURES, complete=complete, depth=depth, relevance_level=level,
                 judged_only=judged_only)
    queries = set(qrels["query_id"]) if complete else set(qrels["query_id"]) & set(run["query_id"])
    assert "only_qrels" in queries if complete else "only_qrels" not in queries
    assert n == len(queries) * len(rf_sql_measures())


def rf_sql_measures() -> list[object]:
    """The measures MEASURES expands to (iprec_at_recall is eleven)."""
    from rankframe._measures._names import parse_measures

    return parse_measures(MEASURES)


def test_families_compile() -> None:
    for m in rf_sql_measures():
        assert rf_sql.compiles(m), m


def test_a_wrong_formula_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    """The comparison can fail: Bpref off by its N = 0 guard is caught on the frames above."""
    from rankframe._measures import bpref

    def broken(q: object, rel: int | None) -> str:
        text = bpref.bpref_sql(q, rel)
        assert text.count("GREATEST(") == 1
        return text.replace("GREATEST(", "(0 + ").replace(", 1)", ")")  # min(N, R), maybe 0

    monkeypatch.setattr(bpref.Bpref, "sql", lambda self, q: broken(q, self.rel))
    qrels, run = _adversarial()
    with pytest.raises(AssertionError):
        _compare(qrels, run, ["Bpref"])
