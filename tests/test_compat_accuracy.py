"""Compat and Accuracy against ir_measures' own compat and accuracy providers.

ir_measures 0.4 (installed as the oracle) computes Clarke et al.'s compatibility in its
``compat`` provider and the accuracy of the retrieved documents in its ``accuracy`` provider;
rankframe's families (``rankframe/_measures/compat.py``, ``accuracy.py``), through the drop-in's
providers of the same names, must report the same queries with the same values on drawn
judgments and runs: ties, graded and negative grades, unjudged documents, one document,
queries missing from the run or from the judgments.

Where the two differ by design (documented in the families) the draws stay clear: Compat's
scores are positive and the judgments reach ir_measures in doc-id order (its ideal ranking
breaks ties in grade by score, an unretrieved document scoring 0, then by the judgments'
order); Accuracy's ``rel`` is >= 1 (ir_measures reads an unjudged document as grade 0), and a
query whose retrieved documents are all relevant, where ir_measures divides by zero, scores 1.
"""

from __future__ import annotations

import math
import warnings

import polars as pl
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import rankframe as rf
import rankframe.compat.ir_measures as dropin

ir_measures = pytest.importorskip("ir_measures", reason="ir_measures is not installed")

DOCS = ("a", "b", "c", "d", "e", "f", "g")
QUERIES = ("q1", "q2", "q3")
#: Dyadic, positive: ties are exact and none is <= 0 (see the module's docstring).
SCORES = (0.5, 1.0, 1.0, 1.5, 2.0, 3.25)


@st.composite
def judged_runs(draw: st.DrawFn) -> tuple[dict, list[tuple[str, str, float]]]:
    """Judgments ``{query: {doc: grade}}`` in doc-id order and a run as (query, doc, score) rows."""
    qrels: dict[str, dict[str, int]] = {}
    for qid in draw(st.lists(st.sampled_from(QUERIES), min_size=1, max_size=3, unique=True)):
        docs = sorted(draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=6, unique=True)))
        qrels[qid] = {d: draw(st.sampled_from((-1, 0, 1, 2, 3))) for d in docs}
    run = []
    for qid in draw(st.lists(st.sampled_from(QUERIES), min_size=0, max_size=3, unique=True)):
        docs = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=7, unique=True))
        run += [(qid, d, draw(st.sampled_from(SCORES))) for d in docs]
    return qrels, run


def as_records(qrels: dict, run: list) -> tuple[list, list]:
    """The same data as ir_measures' records (the run's rows in the order drawn)."""
    q = [ir_measures.Qrel(qid, d, g) for qid, docs in qrels.items() for d, g in docs.items()]
    r = [ir_measures.ScoredDoc(qid, d, s) for qid, d, s in run]
    return q, r


def ours(provider: object, measure: object, qrels: list, run: list) -> dict[str, float]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rf.RankframeWarning)
        return {m.query_id: m.value for m in provider.iter_calc([measure], qrels, run)}


ALL_TIES = (
    {"q1": {"a": 1, "b": 2, "c": 0, "d": 2}},
    [("q1", d, 1.0) for d in "dcbae"],
)
ONE_DOCUMENT = ({"q1": {"a": 1}}, [("q1", "a", 1.0)])
MISSING = ({"q1": {"a": 1}, "q2": {"b": 2, "c": -1}}, [("q2", "c", 2.0), ("q2", "b", 1.0), ("q3", "a", 1.0)])


@settings(max_examples=min(settings.default.max_examples, 60), deadline=None)
@given(data=judged_runs(), p=st.sampled_from((0.5, 0.8, 0.95)), normalize=st.booleans())
@example(data=ALL_TIES, p=0.8, normalize=True)
@example(data=ONE_DOCUMENT, p=0.95, normalize=True)
@example(data=MISSING, p=0.95, normalize=False)
def test_compat_matches_ir_measures(data: tuple[dict, list], p: float, normalize: bool) -> None:
    qrels, run = data
    q, r = as_records(qrels, run)
    want = {
        m.query_id: m.value
        for m in ir_measures.compat.iter_calc([ir_measures.Compat(p=p, normalize=normalize)], q, r)
    }
    got = ours(dropin.compat, dropin.Compat(p=p, normalize=normalize), q, r)
    assert got.keys() == want.keys()
    for qid, value in want.items():
        assert got[qid] == pytest.approx(value, rel=1e-12, abs=1e-15), qid


def accuracy_oracle(measure: object, q: list, r: list) -> dict[str, float]:
    """ir_measures' values query by query; 1.0 where it divides by zero (all relevant)."""
    out = {}
    for qid in dict.fromkeys(x.query_id for x in r):
        rows = [x for x in r if x.query_id == qid]
        try:
            out.update({m.query_id: m.value for m in ir_measures.accuracy.iter_calc([measure], q, rows)})
        except ZeroDivisionError:
            out[qid] = 1.0
    return out


@settings(max_examples=min(settings.default.max_examples, 60), deadline=None)
@given(data=judged_runs(), rel=st.sampled_from((1, 2, 3)), cutoff=st.sampled_from((None, 1, 3)))
@example(data=ALL_TIES, rel=1, cutoff=None)
@example(data=ONE_DOCUMENT, rel=1, cutoff=None)
@example(data=MISSING, rel=2, cutoff=1)
def test_accuracy_matches_ir_measures(data: tuple[dict, list], rel: int, cutoff: int | None) -> None:
    qrels, run = data
    q, r = as_records(qrels, run)
    theirs = ir_measures.Accuracy(rel=rel) if cutoff is None else ir_measures.Accuracy(rel=rel) @ cutoff
    mine = dropin.Accuracy(rel=rel) if cutoff is None else dropin.Accuracy(rel=rel) @ cutoff
    want = accuracy_oracle(theirs, q, r)
    got = ours(dropin.accuracy, mine, q, r)
    assert got.keys() == want.keys()
    for qid, value in want.items():
        assert got[qid] == pytest.approx(value, rel=1e-12, abs=1e-15), qid
    mean = dropin.accuracy.calc_aggregate([mine], q, r)[mine]
    if want:
        assert mean == pytest.approx(math.fsum(want.values()) / len(want), rel=1e-12)
    else:
        assert math.isnan(mean)


def test_accuracy_is_undefined_without_a_relevant_retrieved_document() -> None:
    # q1: rel = 0, 1, 0, 1 (b has 1 non-relevant above it, d has 2); q2 retrieves nothing relevant
    qrels = pl.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["b", "d", "y"], "relevance": [1, 1, 1]})
    run = pl.DataFrame(
        {"query_id": ["q1"] * 4 + ["q2"], "doc_id": list("abcdx"), "score": [4.0, 3.0, 2.0, 1.0, 1.0]}
    )
    per_query = rf.evaluate(qrels, run, ["Accuracy", "Accuracy@2"], per_query=True)
    values = {(q, m): v for q, m, v in per_query.select("query_id", "measure", "value").iter_rows()}
    assert values == {
        ("q1", "Accuracy"): 1.0 - (1 + 2) / (2 * 2),
        ("q1", "Accuracy@2"): 0.0,  # a, b: the one pair misordered
        ("q2", "Accuracy"): None,
        ("q2", "Accuracy@2"): None,
    }
    assert rf.evaluate(qrels, run, ["Accuracy"])["value"].to_list() == [0.25]  # q2 left out


def test_compat_of_the_ideal_ranking_is_one_and_of_nothing_relevant_zero() -> None:
    qrels = pl.DataFrame(
        {"query_id": ["q1"] * 3 + ["q2"], "doc_id": ["a", "b", "c", "z"], "relevance": [2, 1, 0, 0]}
    )
    run = pl.DataFrame(
        {"query_id": ["q1"] * 2 + ["q2"], "doc_id": ["a", "b", "z"], "score": [2.0, 1.0, 1.0]}
    )
    out = rf.evaluate(qrels, run, ["Compat", "Compat(normalize=False)"], per_query=True)
    values = {(q, m): v for q, m, v in out.select("query_id", "measure", "value").iter_rows()}
    # q1 retrieves its ideal a, b: RBO over 2 ranks (1 + 0.95) / (1 + 0.95) = 1
    assert values == {
        ("q1", "Compat"): 1.0,
        ("q1", "Compat(normalize=False)"): 1.0,
        ("q2", "Compat"): 0.0,
        ("q2", "Compat(normalize=False)"): 0.0,
    }


@pytest.mark.parametrize(
    ("measure", "expected"),
    [
        # the suite's values (tests/test_compat.py of ir_measures), from Clarke's own code
        ("Compat(p=0.95)", {"31_1": 0.51779512165509, "31_2": 0.018400100569017922}),
        ("Compat(p=0.8)", {"31_1": 0.16723008845234535, "31_2": 0.00022806427320561776}),
    ],
)
def test_compat_on_the_suites_data_to_the_bit(measure: str, expected: dict[str, float]) -> None:
    from pathlib import Path

    folder = Path(__file__).parent / "data" / "peer_suites" / "ir_measures" / "tests"
    q = list(dropin.read_trec_qrels(str(folder / "compat.qrels")))
    r = list(dropin.read_trec_run(str(folder / "compat.run")))
    assert ours(dropin.compat, dropin.parse_measure(measure), q, r) == expected
