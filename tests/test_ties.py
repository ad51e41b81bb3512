"""Tie policies: trec_eval's doc-id order, the input order, and the McSherry-Najork average."""

from __future__ import annotations

import itertools
import math

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankframe as rf

AVERAGE_MEASURES = [
    "P@1", "P@3", "R@2", "nDCG", "nDCG@3", "nDCG(dcg='exp-log2')@2", "P", "R",
    "Hits@2", "F1@3", "SetP", "SetR", "SetF", "SetAP", "NumRet", "NumRelRet", "Utility",
]


def test_trec_eval_breaks_ties_by_doc_id_descending_in_byte_order() -> None:
    # "9" > "10" as bytes, so "9" is ranked first although 9 < 10 as numbers
    run = pl.DataFrame({"query_id": ["q", "q"], "doc_id": ["10", "9"], "score": [1.0, 1.0]})
    qrels = pl.DataFrame({"query_id": ["q"], "doc_id": ["9"], "relevance": [1]})
    assert rf.evaluate(qrels, run, ["RR"])["value"].item() == 1.0
    # integer ids tie-break the same way as their text
    run_int = run.with_columns(pl.col("doc_id").cast(pl.Int64))
    qrels_int = qrels.with_columns(pl.col("doc_id").cast(pl.Int64))
    assert rf.evaluate(qrels_int, run_int, ["RR"])["value"].item() == 1.0


def test_input_policy_keeps_the_given_order() -> None:
    run = pl.DataFrame({"query_id": ["q", "q"], "doc_id": ["10", "9"], "score": [1.0, 1.0]})
    qrels = pl.DataFrame({"query_id": ["q"], "doc_id": ["9"], "relevance": [1]})
    assert rf.evaluate(qrels, run, ["RR"], ties="input")["value"].item() == 0.5


def test_average_by_hand() -> None:
    # three documents tied at the top, one of them relevant, then a non-relevant one:
    # the relevant one is at rank 1, 2 or 3 with probability 1/3 each
    run = pl.DataFrame({"query_id": ["q"] * 4, "doc_id": ["a", "b", "c", "d"], "score": [1.0, 1.0, 1.0, 0.5]})
    qrels = pl.DataFrame({"query_id": ["q"], "doc_id": ["a"], "relevance": [1]})
    got = rf.evaluate(qrels, run, ["P@1", "nDCG@2", "nDCG"], ties="average")["value"].to_list()
    expected = [1 / 3, (1 + 1 / math.log2(3)) / 3, (1 + 1 / math.log2(3) + 1 / 2) / 3]
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)


def test_average_refuses_measures_that_are_not_rank_weighted_sums() -> None:
    run = pl.DataFrame({"query_id": ["q"], "doc_id": ["a"], "score": [1.0]})
    qrels = pl.DataFrame({"query_id": ["q"], "doc_id": ["a"], "relevance": [1]})
    with pytest.raises(rf.MeasureError, match="rank-weighted sums"):
        rf.evaluate(qrels, run, ["AP"], ties="average")


@st.composite
def tied_query(draw: st.DrawFn) -> tuple[pl.DataFrame, pl.DataFrame]:
    n = draw(st.integers(1, 6))
    scores = draw(st.lists(st.sampled_from([0.0, 1.0, 2.0]), min_size=n, max_size=n))
    grades = draw(st.lists(st.integers(-1, 3), min_size=n, max_size=n))
    docs = [f"d{i}" for i in range(n)]
    run = pl.DataFrame({"query_id": ["q"] * n, "doc_id": docs, "score": scores})
    judged = [(d, g) for d, g in zip(docs, grades, strict=True)]
    judged.append(("unretrieved", draw(st.integers(0, 3))))
    qrels = pl.DataFrame(
        {
            "query_id": ["q"] * len(judged),
            "doc_id": [d for d, _ in judged],
            "relevance": [g for _, g in judged],
        }
    )
    return run, qrels


def _brute_force_average(run: pl.DataFrame, qrels: pl.DataFrame, measures: list[str]) -> np.ndarray:
    """Mean over every order of the tied documents, each order evaluated with ties='input'."""
    run = run.sort("score", descending=True, maintain_order=True)
    groups = [g["doc_id"].to_list() for g in run.partition_by("score", maintain_order=True)]
    scores = {d: s for d, s in zip(run["doc_id"], run["score"], strict=True)}
    values = []
    for orders in itertools.product(*[itertools.permutations(g) for g in groups]):
        docs = [d for order in orders for d in order]
        permuted = pl.DataFrame(
            {"query_id": ["q"] * len(docs), "doc_id": docs, "score": [scores[d] for d in docs]}
        )
        values.append(rf.evaluate(qrels, permuted, measures, ties="input")["value"].to_numpy())
    return np.mean(values, axis=0)


@settings(max_examples=25, deadline=None)
@given(tied_query())
def test_average_equals_brute_force_over_all_tie_orders(case: tuple[pl.DataFrame, pl.DataFrame]) -> None:
    run, qrels = case
    got = rf.evaluate(qrels, run, AVERAGE_MEASURES, ties="average")["value"].to_numpy()
    np.testing.assert_allclose(got, _brute_force_average(run, qrels, AVERAGE_MEASURES), atol=1e-12)


def test_average_ndcg_equals_sklearn() -> None:
    sklearn_metrics = pytest.importorskip("sklearn.metrics", reason="scikit-learn is in the test extra")
    rng = np.random.default_rng(7)
    for _ in range(20):
        n = int(rng.integers(2, 12))
        y_true = rng.integers(0, 4, n)
        y_score = rng.integers(0, 3, n).astype(float)
        if y_true.sum() == 0:
            continue
        df = pl.DataFrame(
            {
                "query_id": ["q"] * n,
                "doc_id": [str(i) for i in range(n)],
                "score": y_score,
                "relevance": y_true,
            }
        )
        for k in (None, 3):
            ours = rf.evaluate(judged=df, measures=["nDCG" if k is None else f"nDCG@{k}"], ties="average")[
                "value"
            ].item()
            theirs = sklearn_metrics.ndcg_score([y_true], [y_score], k=k, ignore_ties=False)
            assert ours == pytest.approx(theirs, abs=1e-12)
