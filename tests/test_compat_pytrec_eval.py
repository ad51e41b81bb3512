"""rankframe.compat.pytrec_eval against the real pytrec_eval (pytrec-eval-terrier, trec_eval 9).

Every measure in ``pytrec_eval.supported_measures`` is compared per query on hypothesis-drawn
dicts: exact and float32-only score ties, doc ids whose byte order differs from their numeric
order, grades -1 to 3, queries in the qrels only, in the run only, with an empty ranking
(``{}``) or with no judgment (``{}``), relevance levels 1 and 2, ``judged_docs_only_flag``. Two
evaluators per example batch the measures: every default (``all_trec``) and small cutoffs and
parameters (``P.1,2,3``...). The query set, the labels and their order must be pytrec_eval's;
values equal to 1e-12.

Values not compared, for a documented reason (the module's docstring): ``iprec_at_recall`` and
``11pt_avg`` on an empty ranking (``{}``, or emptied by ``judged_docs_only_flag``): trec_eval 9
  divides 0 by 0 and pytrec_eval returns NaN or 0 depending on memory left by earlier calls;
  rankframe returns 0 (``test_empty_ranking_scores_zero_in_iprec``).

pytrec_eval's gain measures (``ndcg``, ``ndcg_rel``, ``Rndcg``, ``G``) read freed memory and may
loop for minutes on a topic whose judgments are all negative: pytrec_eval gets one extra
unretrieved grade-0 judgment there (:func:`padded`), which changes no value (R = 0).
"""

from __future__ import annotations

import inspect
import math
import subprocess
import sys
import warnings
from typing import Any

import numpy as np
import pytest
import pytrec_eval
from hypothesis import example, given, settings
from hypothesis import strategies as st

import rankframe as rf
import rankframe.compat.pytrec_eval as compat

# ----------------------------------------------------------------------------- data
DOC_IDS = ("1", "2", "9", "10", "11", "100", "a", "b", "B", "a10", "a9", "zz")
QUERY_IDS = ("q1", "9", "10", "q_2", "Q3")
GRADES = (-1, 0, 0, 1, 1, 2, 3)
#: Exactly representable in float32, few of them: exact ties are frequent.
TIE_SCORES = (0.0, 1.0, 1.0, 2.0, -1.0, 0.5, 3.25)
#: Distinct in float64, equal to 1.0 in float32: trec_eval 9 ties them.
NEAR_TIES = (1.0 + 2**-30, 1.0 - 2**-30)
scores = st.one_of(
    st.sampled_from(TIE_SCORES),
    st.sampled_from(NEAR_TIES),
    st.floats(-1e3, 1e3, width=32, allow_nan=False),
    st.integers(-3, 3),  # pytrec_eval takes integer scores too
)
docs = st.lists(st.sampled_from(DOC_IDS), min_size=1, max_size=8, unique=True)


@st.composite
def cases(draw: st.DrawFn) -> dict[str, Any]:
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    queries = draw(st.lists(st.sampled_from(QUERY_IDS), min_size=1, max_size=4, unique=True))
    for i, qid in enumerate(queries):
        kind = "both" if i == 0 else draw(
            st.sampled_from(["both", "both", "qrels", "run", "empty ranking", "no judgment"])
        )
        if kind in ("both", "qrels", "empty ranking"):
            judged = draw(docs)
            qrels[qid] = {d: draw(st.sampled_from(GRADES)) for d in judged}
        if kind == "no judgment":
            qrels[qid] = {}
        if kind in ("both", "run", "no judgment"):
            run[qid] = {d: draw(scores) for d in draw(docs)}
        if kind == "empty ranking":
            run[qid] = {}
    return {
        "qrels": qrels,
        "run": run,
        "relevance_level": draw(st.sampled_from([1, 2])),
        "judged_only": draw(st.booleans()),
    }


def case(qrels: dict, run: dict, relevance_level: int = 1, judged_only: bool = False) -> dict[str, Any]:
    return {"qrels": qrels, "run": run, "relevance_level": relevance_level, "judged_only": judged_only}


#: Every default parameter list, and small cutoffs/parameters that matter on short rankings
#: (``P`` and ``P.1,2,3`` in one evaluator would merge into ``P.1,2,3``: two evaluators).
DEFAULTS = {"all_trec"}
SMALL = {
    "P.1,2,3", "recall_1,3", "ndcg_cut.1,2,3", "map_cut.1,3", "success.2,3", "relative_P.1,3",
    "Rprec_mult.0.5,1.5", "iprec_at_recall.0.25,0.5", "11pt_avg.0.5,1.0", "set_F.0.5", "map",
    "num_q",
}


# ----------------------------------------------------------------------------- both sides
PAD_DOC = "~pad~"


def padded(qrels: dict[str, dict[str, int]]) -> dict[str, dict[str, int]]:
    """One unretrieved grade-0 judgment for topics judged only negatively (see the docstring)."""
    return {q: d if not d or any(r >= 0 for r in d.values()) else {**d, PAD_DOC: 0} for q, d in qrels.items()}


def both(c: dict[str, Any], measures: set[str]) -> tuple[dict, dict]:
    options = {"relevance_level": c["relevance_level"], "judged_docs_only_flag": c["judged_only"]}
    theirs = pytrec_eval.RelevanceEvaluator(padded(c["qrels"]), measures, **options).evaluate(c["run"])
    ours = compat.RelevanceEvaluator(c["qrels"], measures, **options).evaluate(c["run"])
    return theirs, ours


def comparable(c: dict[str, Any], qid: str, label: str) -> bool:
    """False for iprec_at_recall and 11pt_avg on an empty ranking (trec_eval 9: 0/0)."""
    if not label.startswith(("iprec_at_recall_", "11pt_avg")):
        return True
    judged = c["qrels"][qid]
    ranked = [d for d in c["run"][qid] if not c["judged_only"] or judged.get(d, -1) >= 0]
    return bool(ranked)  # NaN or memory garbage in pytrec_eval


def assert_same(c: dict[str, Any], theirs: dict, ours: dict) -> None:
    assert list(ours) == list(theirs), "queries (and their order)"
    for qid, values in theirs.items():
        assert list(ours[qid]) == list(values), f"labels of {qid!r}"
        for label, expected in values.items():
            if not comparable(c, qid, label):
                continue
            got = ours[qid][label]
            assert type(got) is float, (label, type(got))
            assert math.isclose(got, expected, rel_tol=1e-12, abs_tol=1e-12), (
                f"{label} on {qid!r}: rankframe {got!r}, pytrec_eval {expected!r}"
            )


# ----------------------------------------------------------------------------- the tests
def test_supported_measures_are_pytrec_evals() -> None:
    assert compat.supported_measures == pytrec_eval.supported_measures
    for nick, names in compat.supported_nicknames.items():
        assert names == pytrec_eval.supported_nicknames[nick], nick
    assert set(compat.supported_nicknames) == {"official", "set", "all_trec"}
    # the others list preference measures that pytrec_eval cannot compute
    for nick in set(pytrec_eval.supported_nicknames) - set(compat.supported_nicknames):
        with pytest.raises(ValueError, match="unsupported measure"):
            pytrec_eval.RelevanceEvaluator({"q": {"d": 1}}, {nick})
        with pytest.raises(ValueError, match="unsupported measure"):
            compat.RelevanceEvaluator({"q": {"d": 1}}, {nick})


def test_every_measure_is_compared() -> None:
    # all_trec (trec_eval 9's) holds every supported measure: test_matches_pytrec_eval compares each
    assert pytrec_eval.supported_nicknames["all_trec"] == pytrec_eval.supported_measures


EXAMPLES = {
    # all ties: doc id descending in byte order: "a9" "a10" "9" "2" "10" "1"
    "all ties": case({"q1": {"1": 1, "10": 0, "9": 2, "a10": 1, "zz": 1}},
                     {"q1": {"1": 1.0, "10": 1.0, "9": 1.0, "2": 1.0, "a10": 1.0, "a9": 1.0}}),
    "near ties merged by float32": case({"q1": {"a": 1, "b": 0}},
                                        {"q1": {"a": 1.0 + 2**-30, "b": 1.0, "c": 1.0 - 2**-30}}),
    "queries on one side, an empty ranking, no judgment": case(
        {"q1": {"a": 1}, "q2": {"b": 1, "c": 0}, "q3": {}, "q4": {"a": 2}},
        {"q4": {"a": 0.5}, "q1": {"a": 1.0}, "q3": {"a": 1.0}, "q2": {}, "q5": {"a": 1.0}},
    ),
    "judged only": case({"q1": {"a": -1, "b": 0, "9": 1}, "q2": {"a": 2}},
                        {"q1": {"a": 3.0, "b": 2.0, "c": 2.0, "9": 1.0}, "q2": {"a": 1.0, "zz": 5.0}},
                        judged_only=True),
    "five relevant at level 2": case({"q1": {"a": 2, "b": 3, "c": 2, "d": 1, "e": 2, "f": 2}},
                                     {"q1": {"b": 4.0, "x": 3.0, "a": 2.0, "d": 2.0, "e": 1.0}},
                                     relevance_level=2),
    "judgments all negative": case({"q1": {"a": -1}, "q2": {"b": 1}}, {"q1": {"a": 1.0}, "q2": {"b": 1.0}}),
}


@settings(max_examples=settings.default.max_examples * 30 // 20)
@given(c=cases())
@example(c=EXAMPLES["all ties"])
@example(c=EXAMPLES["near ties merged by float32"])
@example(c=EXAMPLES["queries on one side, an empty ranking, no judgment"])
@example(c=EXAMPLES["judged only"])
@example(c=EXAMPLES["five relevant at level 2"])
@example(c=EXAMPLES["judgments all negative"])
def test_matches_pytrec_eval(c: dict[str, Any]) -> None:
    for measures in (DEFAULTS, SMALL):
        theirs, ours = both(c, measures)
        assert_same(c, theirs, ours)
        # and so do the aggregates, with the same function on the same values
        for label in next(iter(theirs.values()), {}):
            if all(comparable(c, q, label) for q in theirs):
                values = [v[label] for v in theirs.values()]
                expected = pytrec_eval.compute_aggregated_measure(label, values)
                got = compat.compute_aggregated_measure(label, [v[label] for v in ours.values()])
                assert math.isclose(got, expected, rel_tol=1e-12, abs_tol=1e-12), label


@pytest.mark.parametrize(
    "measures",
    [
        {"map", "ndcg"},
        {"ndcg_cut.10", "P.5,10"},
        {"ndcg_cut"},
        {"P", "P.5"},  # merged: P_5 only, no default cutoffs
        {"P_5", "P.3", "P.10,3"},
        {"set_F.2", "map.5", "11pt_avg.0.5,1", "utility"},  # one value: the bare label
        {"iprec_at_recall.0.1,0.25", "Rprec_mult.0.5"},  # labels %3.2f
        {"recall.5abc", "success.3.7"},  # pytrec_eval reads what its pattern matches
        {"official"},
        {"set"},
    ],
    ids=lambda measures: ",".join(sorted(measures)),  # a set's order changes between processes
)
def test_labels_and_specs(measures: set[str]) -> None:
    c = case({"q1": {"a": 1, "b": 0, "c": 2}, "q2": {"x": 1}}, {"q1": {"a": 1.0, "b": 2.0}, "q2": {"x": 0.5}})
    theirs, ours = both(c, measures)
    assert_same(c, theirs, ours)


@pytest.mark.parametrize(
    ("qrels", "measures", "options", "run"),
    [
        ({"q1": {"a": 1}}, {"bogus"}, {}, None),  # unsupported measure
        ({"q1": {"a": 1}}, {"unj"}, {}, None),  # trec_eval 10 only
        ({"q1": {"a": 1}}, "map", {}, None),  # a string is iterated: 'm' is no measure
        ({"q1": {"a": 1}}, {None}, {}, None),
        ({"q1": {"a": 1}}, {"map"}, {"relevance_level": 0}, None),
        ({"q1": {"a": 1}}, {"map"}, {"relevance_level": "2"}, None),
        ([("q1", "a", 1)], {"map"}, {}, None),
        ({"q1": {"a": 1.5}}, {"map"}, {}, None),  # a grade is an integer
        ({1: {"a": 1}}, {"map"}, {}, None),  # ids are strings
        ({"q1": {"a": 1}}, {"map"}, {}, [("q1", "a", 1.0)]),  # a run is a dict
        ({"q1": {"a": 1}}, {"map"}, {}, {"q1": {"a": "1"}}),  # of numbers
    ],
)
def test_errors_are_pytrec_evals(qrels: Any, measures: Any, options: dict, run: Any) -> None:
    def error(module: Any) -> type[BaseException] | None:
        try:
            evaluator = module.RelevanceEvaluator(qrels, measures, **options)
            if run is not None:
                evaluator.evaluate(run)
        except Exception as exc:  # noqa: BLE001 - the exception type is what is compared
            return type(exc)
        return None

    theirs = error(pytrec_eval)
    assert theirs is not None
    ours = error(compat)
    assert ours is not None
    assert issubclass(ours, theirs) or (theirs is AttributeError and issubclass(ours, TypeError))


def test_empty_inputs() -> None:
    for qrels, run in [({"q1": {"a": 1}}, {}), ({}, {"q1": {"a": 1.0}}), ({"q1": {}}, {"q1": {"a": 1.0}})]:
        assert compat.RelevanceEvaluator(qrels, {"map"}).evaluate(run) == {}
        assert pytrec_eval.RelevanceEvaluator(qrels, {"map"}).evaluate(run) == {}


def test_an_evaluator_evaluates_several_runs() -> None:
    qrels = {"q1": {"a": 1, "b": 0}, "q2": {"c": 1}}
    ours = compat.RelevanceEvaluator(qrels, {"P.1", "map"})
    theirs = pytrec_eval.RelevanceEvaluator(qrels, {"P.1", "map"})
    for run in ({"q1": {"a": 1.0, "b": 2.0}}, {"q2": {"c": 1.0}, "q1": {"b": 0.0}}):
        assert ours.evaluate(run) == theirs.evaluate(run)


def test_readers_and_aggregation_are_pytrec_evals() -> None:
    run_lines = ["q1 Q0 d1 1 2.5 bm25\n", "q1 Q0 d2 2 1.5 bm25\n", "q2 Q0 d1 1 0.5 bm25\n"]
    qrel_lines = ["q1 0 d1 2\n", "q1 0 d2 0\n", "q2 0 d9 -1\n"]
    assert compat.parse_run(run_lines) == pytrec_eval.parse_run(run_lines)
    assert compat.parse_qrel(qrel_lines) == pytrec_eval.parse_qrel(qrel_lines)
    with pytest.raises(AssertionError):
        compat.parse_run([*run_lines, run_lines[0]])
    with pytest.raises(AssertionError):
        compat.parse_qrel([*qrel_lines, qrel_lines[0]])
    values = [0.1, 0.25, 1e-3, 0.7]
    for label in ("map", "num_ret", "gm_map"):
        got = compat.compute_aggregated_measure(label, values)
        assert got == pytrec_eval.compute_aggregated_measure(label, values)


# ----------------------------------------------------------------------------- documented deviations
# ----------------------------------------------------------------------------- trec_eval 9's rounding
@pytest.mark.parametrize("spec", ["iprec_at_recall.0.7", "11pt_avg.0.7"])
def test_recall_cutoff_rounding_is_trec_eval_9s(spec: str) -> None:
    # rel = 1, 0, 0, 1 and R = 2; precision 1/1 at the first relevant document, 2/4 at the second.
    # x = 0.7: trec_eval 9 needs (long)(1.4 + 0.9) = 2 relevant documents (IPrec 2/4 = 0.5),
    # trec_eval 10 lround(1.4) = 1 (IPrec max(1/1, 2/4) = 1.0), which rf.evaluate keeps
    c = case({"q1": {"a": 1, "d": 1}}, {"q1": {"a": 4.0, "b": 3.0, "c": 2.0, "d": 1.0}})
    theirs, ours = both(c, {spec})
    assert ours == theirs
    assert next(iter(ours["q1"].values())) == 0.5
    import polars as pl

    import rankframe as rf

    qrels = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "d"], "relevance": [1, 1]})
    run = pl.DataFrame({"query_id": ["q1"] * 4, "doc_id": list("abcd"), "score": [4.0, 3.0, 2.0, 1.0]})
    assert rf.evaluate(qrels, run, ["IPrec@0.7"])["value"].to_list() == [1.0]


def test_no_measure_gives_each_judged_topic_an_empty_dict() -> None:
    qrels = {"q1": {"a": 0, "b": 1}, "q2": {"b": 1}, "q3": {}}
    run = {"q2": {}, "q9": {"a": 1.0}, "q1": {"a": 1.0}, "q3": {"a": 1.0}}
    for measures in (set(), {}, []):
        for q, r in ((qrels, run), (qrels, {}), ({}, run)):
            expected = pytrec_eval.RelevanceEvaluator(q, measures).evaluate(r)
            assert compat.RelevanceEvaluator(q, measures).evaluate(r) == expected
    assert compat.RelevanceEvaluator(qrels, set()).evaluate(run) == {"q2": {}, "q1": {}}


def test_a_dict_of_measures_is_its_keys() -> None:
    qrels, run = {"q1": {"a": 1}}, {"q1": {"a": 1.0, "b": 2.0}}
    expected = pytrec_eval.RelevanceEvaluator(qrels, {"map": 1, "P.1": 0}).evaluate(run)
    assert compat.RelevanceEvaluator(qrels, {"map": 1, "P.1": 0}).evaluate(run) == expected


def test_empty_ranking_scores_zero_in_iprec() -> None:
    # pytrec_eval: NaN or 0, depending on memory left by earlier calls (trec_eval 9's 0/0)
    ours = compat.RelevanceEvaluator({"q1": {"a": 1}}, {"iprec_at_recall", "11pt_avg"}).evaluate({"q1": {}})
    assert set(ours["q1"].values()) == {0.0}


def test_near_ties_are_float32_ties() -> None:
    # rel = 1 for "a" only. In float32 "a" (1 + 2**-30) ties "b" (1.0) and "b" wins (doc id
    # descending): P_1 = 0, as pytrec_eval says. In float64 "a" would be first: P_1 = 1.
    qrels, run = {"q": {"a": 1}}, {"q": {"a": 1.0 + 2**-30, "b": 1.0}}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # and no rankframe warning leaks out
        assert compat.RelevanceEvaluator(qrels, {"P.1"}).evaluate(run) == {"q": {"P_1": 0.0}}
    assert pytrec_eval.RelevanceEvaluator(qrels, {"P.1"}).evaluate(run) == {"q": {"P_1": 0.0}}


def test_infinite_scores_rank_as_in_pytrec_eval() -> None:
    # regression: an infinite score raised InputError ("not a finite number"); pytrec_eval ranks
    # it as C's float does (inf first, -inf last; inf ties a float64 beyond float32's range)
    qrels = {"q": {"a": 1, "b": 0, "c": 2, "d": 1}}
    inf = float("inf")
    measures = {"map", "P.1,2", "ndcg_cut.3", "recip_rank", "bpref", "num_ret"}
    for run in (
        {"q": {"a": inf, "b": 1.0, "c": -inf}},
        {"q": {"b": inf, "a": 1e300, "c": -inf, "d": -1e300}},  # ties: doc id descending
        {"q": {"a": -inf, "b": -inf, "c": inf, "d": inf}},
    ):
        want = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
        assert compat.RelevanceEvaluator(qrels, measures).evaluate(run) == want


def test_utility_coefficients_pytrec_eval_cannot_pass_say_so() -> None:
    # pytrec_eval reads a spec's parameters up to the first character that is no digit, comma
    # or point, and merges them as a sorted set: "utility.1,-1,0,0" reaches trec_eval as
    # "utility.1" and pytrec_eval returns 0 for every query. The drop-in said "takes exactly 4
    # coefficients ... Got 1" of a spec holding 4; it now says what pytrec_eval read
    qrels = {"q1": {"d1": 1, "d2": 0, "d3": 2, "d4": 1}}
    run = {"q1": {"d1": 0.9, "d2": 0.8, "d5": 0.1}}
    for spec, read in (("utility.1,-1,0,0", "utility.1"), ("utility.1,1,0,0", "utility.0,1")):
        assert pytrec_eval.RelevanceEvaluator(qrels, {spec}).evaluate(run) == {"q1": {"utility": 0.0}}
        with pytest.raises(rf.MeasureError, match=f"{spec!r} as {read!r}.*pytrec_eval returns 0"):
            compat.RelevanceEvaluator(qrels, {spec})
    for spec in ("utility", "utility.3,2,1,0"):  # (4 distinct non-negative values: in ascending order)
        want = pytrec_eval.RelevanceEvaluator(qrels, {spec}).evaluate(run)
        assert compat.RelevanceEvaluator(qrels, {spec}).evaluate(run) == want


def test_the_drop_in_modules_import_neither_library() -> None:
    # pytrec_eval, ir_measures and ranx are test oracles, never rankframe's dependencies
    code = (
        "import sys, rankframe.compat.pytrec_eval as p, rankframe.compat.ir_measures as i\n"
        "p.RelevanceEvaluator({'q': {'d': 1}}, {'map'}).evaluate({'q': {'d': 1.0}})\n"
        "i.calc_aggregate([i.nDCG @ 10, i.RR @ 5], {'q': {'d': 1}}, {'q': {'d': 1.0}})\n"
        "print(sorted({'pytrec_eval', 'pytrec_eval_ext', 'ir_measures', 'ranx'} & set(sys.modules)))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_calls_query_by_query_equal_the_whole_run_and_keep_the_statistics() -> None:
    # the evaluator keeps its judgments whole and their per-query statistics (computed by the
    # first call); each call reads those of its own queries, in the run's order
    qrels = {f"q{i}": {f"d{j}": (i * j) % 4 - 1 for j in range(8)} for i in range(6)}
    run = {f"q{i}": {f"d{j}": float((i + j * 7) % 5) for j in range(0, 10, i % 3 + 1)} for i in range(7)}
    run["q2"] = {}  # an empty ranking is still evaluated
    evaluator = compat.RelevanceEvaluator(qrels, {"ndcg_cut.10", "map", "recip_rank", "P.10", "recall.100"})
    whole = evaluator.evaluate(run)
    assert list(whole) == [q for q in run if q in qrels]
    kept = dict(evaluator._kept)
    assert len(kept) == 1
    for q in reversed(list(run)):
        alone = evaluator.evaluate({q: run[q]})
        assert alone == ({q: whole[q]} if q in qrels else {})
    some = {q: run[q] for q in ("q5", "q6", "q1", "q2")}
    assert evaluator.evaluate(some) == {q: whole[q] for q in ("q5", "q1", "q2")}
    assert dict(evaluator._kept) == kept  # read, not computed again
    # the oracle: a new evaluator for each call, and pytrec_eval itself
    for q in ("q0", "q3"):
        fresh = compat.RelevanceEvaluator(qrels, {"ndcg_cut.10", "map", "recip_rank", "P.10", "recall.100"})
        assert fresh.evaluate({q: run[q]}) == {q: whole[q]}
    real = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10", "map", "recip_rank", "P.10", "recall.100"})
    expected = real.evaluate({q: docs for q, docs in run.items() if docs})
    for q, values in expected.items():
        assert whole[q] == pytest.approx(values, abs=1e-12)


def test_a_call_picks_its_engine_by_its_own_queries_judgments(monkeypatch: pytest.MonkeyPatch) -> None:
    # the evaluator passes its judgments whole: a call's engine is chosen by the judgments of
    # its own queries (and its run), not by all of them
    from rankframe.compat import _common

    # (per_query_frame's own module: a doctest run may have imported the file again)
    module = inspect.unwrap(_common.per_query_frame).__globals__
    qrels = {f"q{i}": {f"d{j}": 1 for j in range(20)} for i in range(10)}  # 200 judgments
    evaluator = compat.RelevanceEvaluator(qrels, {"map"})
    engines: list[str] = []
    real = module["_engine"]

    def spy(*args: Any, **kwargs: Any) -> str:
        engines.append(real(*args, **kwargs))
        return engines[-1]

    monkeypatch.setitem(module, "_engine", spy)
    monkeypatch.setitem(module, "SMALL_ROWS", 50)
    ranking = {"d1": 1.0, "d2": 0.5}
    one = evaluator.evaluate({"q1": ranking})  # 2 run rows, 20 judgments
    every = evaluator.evaluate({f"q{i}": ranking for i in range(10)})  # 20 + 200
    assert engines == ["in-memory", "auto"]
    assert one == {"q1": every["q1"]}


@pytest.mark.parametrize(
    "source",
    [
        {}, {"q1": {}}, {"q1": {"d1": 1.5, "d2": 0.5}, "q2": {}, "q3": {"d1": 2.0}},
        {1: {2: 1.0}, 3: {4: 2.0}}, {"q1": {1: 1.0, "d": 2.0}}, {b"q\xe9": {"d": 1.0}, "q": {b"d": 2.0}},
        {"q1": {"d1": np.float32(0.25), "d2": np.int64(3)}}, {"q1": {"d1": True, "d2": 0}},
        {"q1": {"d1": float("nan"), "d2": -float("inf")}}, {"q1": {"d1": "high"}}, {"q1": {"d1": None}},
    ],
)
@pytest.mark.parametrize("kind", ["qrels", "run"])
def test_dicts_read_as_read_qrels_and_read_run_read_them(source: dict, kind: str) -> None:
    # the drop-ins' fast path for {query: {doc: value}} builds the same frame, or the same error
    from rankframe.compat._common import read

    reader = rf.read_qrels if kind == "qrels" else rf.read_run
    try:
        want = reader(source).collect()
    except rf.InputError as err:
        want = err
    if isinstance(want, rf.InputError):
        with pytest.raises(rf.InputError) as refused:
            read(source, kind)
        assert str(refused.value) == str(want)
        return
    got = read(source, kind)
    assert got.schema == want.schema
    assert got.equals(want, null_equal=True)
