"""Breakdowns (``by=``) keep the means right: one rule for the query set of each group.

With the breakdown columns in the run only, a group's queries are the judged queries it holds;
``complete=True`` adds the judged queries that no group holds, once, in a group of their own
with null breakdown values, and never scores a query 0 in a group it does not belong to. With
the breakdown columns in the qrels too, each group's judgments and query set come from them and
``complete=True`` scores a group's judged queries missing from that group's run as 0.
"""

from __future__ import annotations

import warnings

import numpy as np
import polars as pl
import pytest

import rankframe as rf

ROOT = __import__("pathlib").Path(__file__).resolve().parents[1]
MEASURES = ["nDCG@10", "AP", "R@100", "P@10", "RR"]  # the hits plan
GENERAL = ["ERR@10", "Bpref"]  # ERR reads every row: the general plan


def _quiet(*args, **kwargs) -> pl.DataFrame:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return rf.evaluate(*args, **kwargs)


@pytest.fixture(scope="module")
def sample() -> tuple[pl.DataFrame, pl.DataFrame]:
    """The DL19 sample, each query in one locale (by its id), a few judged queries dropped."""
    qrels = rf.read_qrels(ROOT / "data" / "qrels.dl19-passage.txt").collect()
    run = rf.read_run(ROOT / "data" / "run.dl19.bm25.txt").collect()
    locale = pl.when(pl.col("query_id").str.slice(-1).is_in(["0", "1", "2", "3"])).then(
        pl.lit("de")).otherwise(pl.lit("en"))
    dropped = run["query_id"].unique().sort()[:3]  # judged queries the run misses
    run = run.filter(~pl.col("query_id").is_in(dropped.implode())).with_columns(locale.alias("locale"))
    return qrels.with_columns(locale.alias("locale")), run


@pytest.mark.parametrize("measures", [MEASURES, MEASURES + GENERAL])
@pytest.mark.parametrize("complete", [False, True])
def test_breakdown_of_the_run_equals_each_group_alone(sample, measures, complete) -> None:
    qrels, run = sample[0].drop("locale"), sample[1]
    got = _quiet(qrels, run, measures, by=["locale"], per_query=True, complete=complete)
    means = _quiet(qrels, run, measures, by=["locale"], complete=complete)
    for locale in ("de", "en"):
        alone = run.filter(pl.col("locale") == locale).drop("locale")
        want = _quiet(qrels, alone, measures, per_query=True)  # its own queries: no zeros
        mine = got.filter(pl.col("locale") == locale).drop("locale")
        assert mine.equals(want)
        want_mean = _quiet(qrels, alone, measures)
        np.testing.assert_allclose(
            means.filter(pl.col("locale") == locale)["value"], want_mean["value"], rtol=1e-12
        )
    # the judged queries no locale holds: a group of their own (null locale) under complete
    orphans = got.filter(pl.col("locale").is_null())
    if complete:
        assert orphans["query_id"].n_unique() == 3
        assert (orphans["value"] == 0).all()
    else:
        assert orphans.height == 0


@pytest.mark.parametrize("measures", [MEASURES, MEASURES + GENERAL])
def test_breakdown_in_the_qrels_too_scores_each_groups_missing_queries(sample, measures) -> None:
    qrels, run = sample
    got = _quiet(qrels, run, measures, by=["locale"], per_query=True, complete=True)
    for locale in ("de", "en"):
        q = qrels.filter(pl.col("locale") == locale).drop("locale")
        r = run.filter(pl.col("locale") == locale).drop("locale")
        want = _quiet(q, r, measures, per_query=True, complete=True)
        assert got.filter(pl.col("locale") == locale).drop("locale").equals(want)


def test_the_warning_counts_the_queries_no_group_holds(sample) -> None:
    qrels, run = sample[0].drop("locale"), sample[1]
    with pytest.warns(rf.RankframeWarning) as caught:
        rf.evaluate(qrels, run, ["AP"], by=["locale"])
    text = " ".join(str(w.message) for w in caught)
    # 3 queries the run misses, not every query once per other locale
    assert "3 judged queries are in no (locale) group of the run" in text
    assert "in a group of their own, with a null locale" in text


def test_the_warning_with_the_breakdown_in_the_qrels(sample) -> None:
    qrels, run = sample
    with pytest.warns(rf.RankframeWarning, match="3 judged queries are missing from some "
                      r"\(locale\) groups: 3 \(group, query\) pairs"):
        rf.evaluate(qrels, run, ["AP"], by=["locale"])


def test_partitions_follow_the_same_rule(sample) -> None:
    qrels, run = sample[0].drop("locale"), sample[1]
    whole = _quiet(qrels, run, MEASURES + GENERAL, by=["locale"], per_query=True, complete=True)
    parts = _quiet(qrels, run, MEASURES + GENERAL, by=["locale"], per_query=True, complete=True,
                   partitions=4)
    assert parts.equals(whole)


@pytest.mark.parametrize("complete", [False, True])
def test_a_ranking_judged_only_empties_keeps_its_query_in_its_group(complete: bool) -> None:
    # trec_eval -J: a query whose retrieved documents are all unjudged is still evaluated
    # (num_ret 0); with a breakdown it stays in its group, as without (it was dropped, or
    # moved to the null group with complete=True, before the (group, query) pairs were taken
    # from the run ahead of the -J filter)
    qrels = pl.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["a", "b"], "relevance": [-1, 1]})
    run = pl.DataFrame({
        "query_id": ["q1", "q2"], "doc_id": ["x", "b"], "score": [1.0, 1.0], "locale": ["en", "de"],
    })
    alone = _quiet(qrels, run.drop("locale"), ["AP", "NumRet", "NumQ"], per_query=True, judged_only=True,
                   complete=complete)
    got = _quiet(qrels, run, ["AP", "NumRet", "NumQ"], per_query=True, judged_only=True, by=["locale"],
                 complete=complete)
    assert got.drop("locale").sort("query_id", maintain_order=True).equals(alone)
    assert got.filter(pl.col("query_id") == "q1")["locale"].unique().to_list() == ["en"]
