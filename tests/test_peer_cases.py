"""Literal expected values from the test suites of pytrec_eval, ir_measures, ranx and trectools.

The values live in ``tests/data/peer_tests/extracted_cases.json`` (25 cases, each with its
source repository, commit, file and test; origin and licences in the README next to it). Each
expected value becomes up to two tests:

* ``name``: the peer library's own measure name, parsed by rankframe (``SetF(rel=1,beta=0.5)``,
  ``precision@5``, ``ndcg_cut_3``...), or the rankframe name listed in ``NAMES`` where the peer
  name is a description (``dcg@10 (Jarvelin, linear gain)``);
* ``trec``: the trec_eval measure it maps to (``trec_eval_measure``), evaluated with the
  entry's ``relevance_level`` and ``judged_docs_only`` (``-l``, ``-J``).

A peer measure that rankframe does not have fails, except the few listed in ``OUT_OF_SCOPE``
(expected to fail, with the reason).
"""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import rankframe as rf
from rankframe._measures._names import parse_trec

#: The test data that travels with the tests (origin and licence: tests/data/README.md); the
#: file paths in the cases are relative to it.
TEST_DATA = Path(__file__).resolve().parent / "data"
CASES_FILE = TEST_DATA / "peer_tests" / "extracted_cases.json"

#: Peer names that describe a measure rather than name it -> the rankframe name.
NAMES: dict[str, str] = {
    # pytrec_eval's trec_eval labels parse as they are (ndcg_cut_3, ndcg); ranx / trectools:
    "dcg@10 (Jarvelin, linear gain)": "DCG@10",
    "dcg@10 (Jarvelin)": "DCG@10",
    "ndcg@10 (Jarvelin)": "nDCG@10",
    "dcg_burges@10": "DCG(dcg='exp-log2')@10",
    "map (full)": "AP",
    "precision (whole list)": "SetP",
    "recall (whole list)": "SetR",
    "f1 (whole list)": "SetF",
    "reciprocal_rank": "RR",
    "rbp(p=0.5)": "RBP(p=0.5)",
    "rbp(p=0.8)": "RBP(p=0.8)",
    "rbp(p=0.95)": "RBP(p=0.95)",
    # ir_measures: gdeval prints 5 decimals; its nDCG has gain 2^rel - 1
    "nDCG@20 (gdeval)": "nDCG(dcg='exp-log2')@20",
    "nDCG@2 (gdeval)": "nDCG(dcg='exp-log2')@2",
    "RR@5 (msmarco)": "RR@5",
    "Judged@all": "Judged",
    # ir_measures writes the dcg variant without quotes
    "nDCG(dcg=exp-log2)": "nDCG(dcg='exp-log2')",
    "nDCG(dcg=exp-log2)@5": "nDCG(dcg='exp-log2')@5",
    "nDCG(dcg=exp-log2)@2": "nDCG(dcg='exp-log2')@2",
}

#: Peer measures rankframe deliberately lacks: expected to fail (strict=False, so adding one
#: shows up as XPASS).
OUT_OF_SCOPE: dict[str, str] = {}  # none now: Compat and SDCG, once listed, are computed

#: Values printed with 5 decimals by the peer (gdeval): tolerance at least half a unit.
PRINTED_TOLERANCE = {"gdeval": 5e-6}

AGGREGATE_QUERIES = {"all", "all(sum)", "mean"}


# ----------------------------------------------------------------------------- inputs
def load_cases() -> list[dict[str, Any]]:
    return json.loads(CASES_FILE.read_text())["cases"]


def qrels_source(case: dict[str, Any]) -> Any:
    qrels = case["qrels"]
    if isinstance(qrels, str):
        return str(TEST_DATA / qrels)
    rows = [(q, d, r) for q, docs in qrels.items() for d, r in docs.items()]
    return pl.DataFrame(
        rows, schema={"query_id": pl.String, "doc_id": pl.String, "relevance": pl.Int64}, orient="row"
    )


def run_source(case: dict[str, Any], run: str) -> Any:
    ranking = case["runs"][run]
    if isinstance(ranking, str):
        return str(TEST_DATA / ranking)
    rows = [(q, d, s) for q, docs in ranking.items() for d, s in docs.items()]
    return pl.DataFrame(
        rows, schema={"query_id": pl.String, "doc_id": pl.String, "score": pl.Float64}, orient="row"
    )


def has_empty_ranking(case: dict[str, Any], run: str) -> bool:
    """An inline run lists a judged topic with an empty ranking: it is evaluated (scores 0)."""
    ranking = case["runs"][run]
    qrels = case["qrels"] if isinstance(case["qrels"], dict) else {}
    return isinstance(ranking, dict) and any(not docs and qrels.get(q) for q, docs in ranking.items())


# ----------------------------------------------------------------------------- expectations
def query_of(entry: dict[str, Any]) -> str | None:
    """The query id, or None for an aggregate ("all", "all(sum)", "mean")."""
    query = entry["query"]
    if query in AGGREGATE_QUERIES:
        return None
    return query.split("(", 1)[0]  # "1(missing in run)" -> "1"


def counts_missing(entry: dict[str, Any]) -> bool:
    text = f"{entry['query']} {entry.get('native_name', '')}"
    return "missing" in text


def tolerance(entry: dict[str, Any]) -> float:
    tol = entry["tolerance"]
    for peer, printed in PRINTED_TOLERANCE.items():
        if peer in entry.get("native_name", "") or peer in entry["measure"]:
            tol = max(tol, printed)
    return tol


def variants(case: dict[str, Any], entry: dict[str, Any]) -> list[tuple[str, Any, dict[str, Any]]]:
    """(variant, measure spec, evaluate options) for one expected value."""
    complete = has_empty_ranking(case, entry["run"]) or counts_missing(entry)
    out = []
    name = NAMES.get(entry["measure"], entry["measure"])
    options: dict[str, Any] = {"complete": complete}
    if entry.get("judged_docs_only") and "judged_only" not in name:
        options["judged_only"] = True
    if entry.get("relevance_level") and "rel=" not in name:
        options["relevance_level"] = entry["relevance_level"]
    out.append(("name", name, options))
    if "trec_eval_measure" in entry:
        trec_options = {
            "complete": complete,
            "relevance_level": entry.get("relevance_level", 1),
            "judged_only": bool(entry.get("judged_docs_only", False)),
        }
        out.append(("trec", entry["trec_eval_measure"], trec_options))
    return out


def params() -> list[Any]:
    out = []
    for case in load_cases():
        for i, entry in enumerate(case["expected"]):
            for variant, spec, options in variants(case, entry):
                test_id = f"{case['id']}:{entry['run']}:{entry['query']}:{entry['measure']}:{variant}"
                marks = [
                    pytest.mark.xfail(reason=why, strict=False)
                    for family, why in OUT_OF_SCOPE.items()
                    if spec.startswith(family)
                ]
                out.append(pytest.param(case, i, variant, spec, options, id=test_id, marks=marks))
    return out


def resolve(variant: str, spec: str, entry: dict[str, Any]) -> rf.Measure:
    """The rankframe measure: the peer's name parsed, or the trec_eval label's measure."""
    if variant == "name":
        measures = rf.parse_measure(spec)
        assert len(measures) == 1, f"{spec!r} parses to {measures}, expected one measure"
        return measures[0]
    pairs = parse_trec(spec)
    if len(pairs) == 1:
        return pairs[0][1]
    by_label = dict(pairs)
    assert entry["measure"] in by_label, f"{spec!r} has no label {entry['measure']!r}: {sorted(by_label)}"
    return by_label[entry["measure"]]


# ----------------------------------------------------------------------------- the tests
def evaluate(
    case: dict, run: str, measures: rf.Measure | list[rf.Measure], *, per_query: bool, **options: Any
) -> pl.DataFrame:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rf.RankframeWarning)
        return rf.evaluate(
            qrels_source(case), run_source(case, run), measures, per_query=per_query, **options
        )


@pytest.mark.parametrize(("case", "index", "variant", "spec", "options"), params())
def test_peer_expected_value(
    case: dict[str, Any], index: int, variant: str, spec: str, options: dict[str, Any]
) -> None:
    entry = case["expected"][index]
    measure = resolve(variant, spec, entry)
    query = query_of(entry)
    out = evaluate(case, entry["run"], measure, per_query=query is not None, **options)
    if query is not None:
        out = out.filter(pl.col("query_id") == query)
        assert out.height == 1, f"query {query!r} is not in the output"
    got = out["value"][0]
    expected = float(entry["value"])
    assert not math.isnan(got), f"{measure!r}: NaN"
    assert abs(got - expected) <= tolerance(entry), (
        f"{measure!r} ({variant} {spec!r}, {options}) on {entry['query']!r}: {got!r}, "
        f"expected {expected!r} +- {tolerance(entry)}"
    )


def case_by_id(case_id: str) -> dict[str, Any]:
    return next(c for c in load_cases() if c["id"] == case_id)


def test_the_file_has_25_cases_with_values() -> None:
    cases = load_cases()
    assert len(cases) == 25
    assert sum(len(c["expected"]) for c in cases) > 150


def test_every_file_a_case_names_is_in_tests_data() -> None:
    # also those of cases with no value rankframe checks (Compat, the Robust 2003 pair)
    paths = [c["qrels"] for c in load_cases() if isinstance(c["qrels"], str)]
    paths += [r for c in load_cases() for r in (c.get("runs") or {}).values() if isinstance(r, str)]
    assert len(paths) == 8
    assert [p for p in paths if not (TEST_DATA / p).is_file()] == []


def test_qrels_topic_without_judgments_is_not_reported() -> None:
    # pytrec_eval test_ndcg: q10 has an empty judgment dict; run "e" retrieves for it.
    case = case_by_id("pytrec_eval/test_ndcg")
    for absent in case["absent_queries"]:
        for measure in absent["measures"]:
            out = evaluate(
                case,
                absent["run"],
                rf.parse_measure(measure)[0],
                per_query=True,
                judged_only=absent["judged_docs_only"],
            )
            assert absent["query"] not in out["query_id"].to_list()


def test_empty_ranking_is_reported_with_complete() -> None:
    # pytrec_eval test_ndcg: run "a" has q2 -> {} (empty); it is still reported, with 0.
    case = case_by_id("pytrec_eval/test_ndcg")
    out = evaluate(case, "a", rf.parse_measure("ndcg")[0], per_query=True, complete=True)
    assert dict(out.select("query_id", "value").iter_rows()) == {"q1": 0.5, "q2": 0.0}


def test_measure_params_spellings() -> None:
    # pytrec_eval test_measure_params: these spellings give exactly these trec_eval labels
    # (pytrec_eval's own note: a bare "ndcg_cut" beside explicit ndcg_cut params adds no
    # default cutoffs there; trec_eval 10 takes each -m separately, as here).
    labels = {
        label
        for spec in ["ndcg_cut.1,4", "ndcg_cut_20,4", "ndcg_cut_15", "recall.1000", "P"]
        for label, _ in parse_trec(spec)
    }
    assert labels == {
        "ndcg_cut_1",
        "ndcg_cut_4",
        "ndcg_cut_15",
        "ndcg_cut_20",
        "recall_1000",
        "P_5",
        "P_10",
        "P_15",
        "P_20",
        "P_30",
        "P_100",
        "P_200",
        "P_500",
        "P_1000",
    }


def test_evaluating_twice_gives_the_same_numbers() -> None:
    # cvangysel/pytrec_eval issue 38: a second evaluation must not see the first one's state
    case = case_by_id("pytrec_eval/test_ndcg_cut")
    measures = [m for _, m in parse_trec("ndcg_cut.1,2,3,1000")]
    first = evaluate(case, "a", measures, per_query=True)
    second = evaluate(case, "a", measures, per_query=True)
    assert first.equals(second)
