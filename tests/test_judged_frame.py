"""``rankframe.judged_frame`` + measures as expressions give ``evaluate``'s per-query values.

The frame an analyst builds first, the run left-joined with its qrels, loses the judged documents
the run did not retrieve: nDCG's ideal DCG, recall and AP's denominator then come out wrong.
``judged_frame`` is the full join on the queries ``evaluate`` evaluates; its columns are what the
builders of ``rankframe.expr`` read by default. Here, on drawn data with score ties (doc ids "9"
and "10" to break them in byte order), graded, -1 and unjudged labels, judged documents not
retrieved, queries on one side only and one-document queries, every measure the builders can
make, grouped by query, equals ``evaluate(..., per_query=True)`` to 1e-12.
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import rankframe as rf
from rankframe import expr as rfx
from rankframe import measures as rfm

ROOT = Path(__file__).resolve().parents[1]


def _every_buildable_measure() -> list[rf.Measure]:
    """One measure per registered family (cutoff 3 where one is needed), Float64-valued."""
    out = []
    for name in rfm.__all__:
        obj = getattr(rfm, name)
        m = obj @ (0.5 if name.startswith("IPrec") and name != "IPrecAvg" else 3) if isinstance(
            obj, rfm.MeasureFamily) else obj
        if m.DTYPE != pl.Float64:
            continue  # RelString: a string, not in evaluate's long output
        if not m.NEEDS_JUDGMENTS:
            continue  # recommender measures read side inputs (tests/test_recsys.py)
        out.append(m)
    # and a few variants that read other parts of a measure
    out += rf.parse_measure("ndcg_cut.10") + rf.parse_measure("P(rel=2)@5")
    out += rf.parse_measure("nDCG(dcg='exp-log2')@10") + rf.parse_measure("AP@5")
    out += rf.parse_measure("R@1000") + rf.parse_measure("RBP(p=0.5)")
    return out


MEASURES = _every_buildable_measure()
#: Families whose value needs something an expression over one group does not have (the
#: distinct target levels of the whole evaluation): evaluated by evaluate() only.
NOT_INLINE = {"MAUC"}
INLINE = [m for m in MEASURES if m.NAME not in NOT_INLINE]


def test_the_measure_list_covers_the_registry() -> None:
    from rankframe._measures import REGISTRY

    names = {m.NAME for m in MEASURES}
    recsys = {n for n, c in REGISTRY.items() if not c.NEEDS_JUDGMENTS}
    assert names >= set(REGISTRY) - {"RelString"} - recsys
    with pytest.raises(Exception, match="level"):  # MAUC: a clear error, not a wrong number
        pl.DataFrame({"query_id": ["q"], "doc_id": ["a"], "score": [1.0], "relevance": [1]}).group_by(
            "query_id").agg(rfx.measure("MAUC"))


@st.composite
def qrels_and_run(draw: st.DrawFn) -> tuple[pl.DataFrame, pl.DataFrame]:
    n_queries = draw(st.integers(1, 6))
    qrels, run = [], []
    for q in range(n_queries):
        qid = f"q{q}"
        side = draw(st.sampled_from(["both", "both", "both", "qrels", "run"]))
        n_docs = draw(st.integers(1, 12))
        docs = draw(st.lists(st.integers(0, 30), min_size=n_docs, max_size=n_docs, unique=True))
        for d in docs:
            doc = str(d)  # "9" sorts above "10" in byte order
            retrieved = side == "run" or (side == "both" and draw(st.booleans()))
            judged = side == "qrels" or (side == "both" and (not retrieved or draw(st.booleans())))
            if retrieved:
                run.append((qid, doc, float(draw(st.integers(0, 3)))))  # many exact ties
            if judged:
                qrels.append((qid, doc, draw(st.sampled_from([-1, 0, 0, 1, 2, 3]))))
    q = pl.DataFrame(qrels, schema={"query_id": pl.String, "doc_id": pl.String, "relevance": pl.Int64},
                     orient="row")
    r = pl.DataFrame(run, schema={"query_id": pl.String, "doc_id": pl.String, "score": pl.Float64},
                     orient="row")
    return q, r


def _compare(qrels: pl.DataFrame, run: pl.DataFrame, complete: bool) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = rf.evaluate(qrels, run, INLINE, per_query=True, complete=complete)
        judged = rf.judged_frame(qrels, run, complete=complete)
    mine = judged.group_by("query_id").agg(rfx.measure(m) for m in INLINE).collect()
    long = mine.unpivot(index="query_id", variable_name="measure", value_name="mine")
    both = ref.join(long, on=["query_id", "measure"], how="full", coalesce=True)
    assert both.height == ref.height == long.height, "the same (query, measure) pairs"
    a, b = both["value"].to_numpy(), both["mine"].cast(pl.Float64).to_numpy()
    bad = ~np.isclose(a, b, rtol=1e-12, atol=1e-12, equal_nan=True)
    assert not bad.any(), both.filter(pl.Series(bad)).head(10)


@settings(max_examples=settings.default.max_examples * 20 // 20, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(data=qrels_and_run(), complete=st.booleans())
@example(  # one query, one document, retrieved and relevant
    data=(pl.DataFrame({"query_id": ["q"], "doc_id": ["a"], "relevance": [1]}),
          pl.DataFrame({"query_id": ["q"], "doc_id": ["a"], "score": [1.0]})),
    complete=False,
)
@example(  # an exact tie broken by doc id in byte order: "9" ranks above "10"
    data=(pl.DataFrame({"query_id": ["q", "q"], "doc_id": ["9", "10"], "relevance": [0, 1]}),
          pl.DataFrame({"query_id": ["q", "q"], "doc_id": ["10", "9"], "score": [1.0, 1.0]})),
    complete=False,
)
def test_judged_frame_and_builders_equal_evaluate(
    data: tuple[pl.DataFrame, pl.DataFrame], complete: bool
) -> None:
    qrels, run = data
    if not qrels.height or not run.height:
        return  # evaluate needs both sides; its errors are tested elsewhere
    _compare(qrels, run, complete)


def test_the_left_join_is_the_wrong_frame() -> None:
    # what an analyst builds first: the run left-joined with its qrels; one relevant document
    # was not retrieved, so recall is 1/2, not 1, and the ideal DCG counts two documents
    qrels = pl.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "b"], "relevance": [1, 1]})
    run = pl.DataFrame({"query_id": ["q"], "doc_id": ["a"], "score": [1.0]})
    left = run.join(qrels, on=["query_id", "doc_id"], how="left")
    wrong = left.group_by("query_id").agg(rfx.recall(10)).item(0, 1)
    right = rf.judged_frame(qrels, run).group_by("query_id").agg(rfx.recall(10)).collect().item(0, 1)
    assert (wrong, right) == (1.0, 0.5)
    assert right == rf.evaluate(qrels, run, ["R@10"])["value"].item()


def test_depth_and_breakdowns_and_several_runs() -> None:
    qrels = "data/qrels.dl19-passage.txt"
    runs = {"bm25": "data/run.dl19.bm25.txt", "splade": "data/run.dl19.splade.txt"}
    specs = ["nDCG@10", "AP", "R@100", "RR"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = rf.evaluate(ROOT / qrels, {k: ROOT / v for k, v in runs.items()}, specs, depth=50,
                          per_query=True)
        judged = rf.judged_frame(ROOT / qrels, {k: ROOT / v for k, v in runs.items()}, depth=50)
    assert judged.collect_schema().names() == ["run", "query_id", "doc_id", "score", "relevance"]
    mine = (
        judged.group_by("run", "query_id").agg(rfx.measure(m) for m in specs).collect()
        .unpivot(index=["run", "query_id"], variable_name="measure", value_name="mine")
    )
    both = ref.join(mine, on=["run", "query_id", "measure"], how="inner")
    assert both.height == ref.height
    np.testing.assert_allclose(both["value"], both["mine"], rtol=1e-12, atol=1e-12)


def _readme_python_blocks() -> list[str]:
    text = (ROOT / "README.md").read_text()
    return re.findall(r"```python\n(.*?)```", text, flags=re.DOTALL)


def test_the_readme_expression_example_equals_evaluate(monkeypatch: pytest.MonkeyPatch) -> None:
    block = next(b for b in _readme_python_blocks() if "judged_frame" in b)
    monkeypatch.chdir(ROOT)
    scope: dict = {}
    exec(block, scope)  # the README's example, as a user runs it from the repository root
    per_query = scope["per_query"].collect() if isinstance(scope["per_query"], pl.LazyFrame) else (
        scope["per_query"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = rf.evaluate("data/qrels.dl19-passage.txt", "data/run.dl19.bm25.txt",
                          [c for c in per_query.columns if c != "query_id"], per_query=True)
    long = per_query.unpivot(index="query_id", variable_name="measure", value_name="mine")
    both = ref.join(long, on=["query_id", "measure"], how="full", coalesce=True)
    assert both.height == ref.height > 0
    np.testing.assert_allclose(both["value"], both["mine"], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("complete", [False, True])
def test_breakdowns_follow_evaluates_rule(complete: bool) -> None:
    # each query in one locale of the run; three judged queries in none (complete=True: a
    # group of their own, with a null locale, as evaluate scores them)
    qrels = rf.read_qrels(ROOT / "data" / "qrels.dl19-passage.txt").collect()
    run = rf.read_run(ROOT / "data" / "run.dl19.bm25.txt").collect()
    locale = pl.when(pl.col("query_id").str.slice(-1).is_in(["0", "1", "2", "3"])).then(
        pl.lit("de")).otherwise(pl.lit("en"))
    dropped = run["query_id"].unique().sort()[:3].implode()
    run = run.filter(~pl.col("query_id").is_in(dropped)).with_columns(locale.alias("locale"))
    specs = ["nDCG@10", "AP", "R@100"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = rf.evaluate(qrels, run, specs, by=["locale"], per_query=True, complete=complete)
        judged = rf.judged_frame(qrels, run, by=["locale"], complete=complete)
    mine = (
        judged.group_by("locale", "query_id").agg(rfx.measure(m) for m in specs).collect()
        .unpivot(index=["locale", "query_id"], variable_name="measure", value_name="mine")
    )
    both = ref.join(mine, on=["locale", "query_id", "measure"], how="full", coalesce=True,
                    nulls_equal=True)
    assert both.height == ref.height == mine.height
    assert both["locale"].null_count() == (9 if complete else 0)  # 3 queries x 3 measures
    np.testing.assert_allclose(both["value"], both["mine"], rtol=1e-12, atol=1e-12)
