"""rankframe.compat.ir_measures against the real ir_measures (0.4, its default providers).

The measures compared are those both registries define (:data:`COMPARED`, built and checked
against ``ir_measures.measures.registry`` and rankframe's parser); :data:`NOT_COMPARED` says
why each other ir_measures name is left out. Genuine ir_measures measure objects go to both
sides; ``calc_aggregate``, ``iter_calc`` and ``evaluator(...).calc`` must give the same keys,
queries and values, on hypothesis-drawn data in each input form ir_measures accepts (dicts,
``Qrel``/``ScoredDoc`` generators, pandas frames): score ties (exact and float32-only), grades
-1 to 3, queries in the qrels only, in the run only, with an empty ranking (dicts), ``rel=2``,
``judged_only=True``. Values equal to 1e-12, except:

* gdeval's (``ERR@k``, ``nDCG(dcg='exp-log2')@k``): it prints 5 decimals, so to 5e-6;
* ranx's (``nDCG(dcg='exp-log2')``, no cutoff) on untied scores only (ranx breaks ties its own
  way), and with the same queries on both sides (ranx asserts it): ``test_ranx_provider``;
* ``IPrec@x`` (pytrec_eval, trec_eval 9) on empty rankings (trec_eval 9 reads memory garbage
  there): as in tests/test_compat_pytrec_eval.py.

ir_measures computes ``NumRet``, ``NumQ`` and ``nDCG`` in whichever pytrec_eval call it sets
up first, which depends on a set's order (so on ``PYTHONHASHSEED``): next to a
``judged_only=True`` measure ``NumRet`` counts judged documents only, next to
``nDCG(gains=...)`` a plain ``nDCG`` takes those gains (its bug: a value that depends on the
other measures requested and on the hash seed). The ``judged_only`` and ``gains`` variants are
compared in calls of their own.

``RR@k`` (msmarco provider) and ``Judged@k`` (judged provider) sort by ``(-score, doc_id)``: ties
go to the doc id earlier in byte order, and the module reproduces that, so they are compared on
tied scores too. ``Judged`` divides by 0 in ir_measures on an empty ranking (``{}``): it is left
out of the examples that have one.

pytrec_eval's gain measures may loop on a topic judged only negatively (freed memory; see
tests/test_compat_pytrec_eval.py): ir_measures gets one unretrieved grade-0 judgment there.
"""

from __future__ import annotations

import gzip
import math
from collections.abc import Callable
from typing import Any

import ir_measures
import pandas as pd
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import rankframe as rf
import rankframe.compat.ir_measures as compat

im = ir_measures

# ----------------------------------------------------------------------------- measures
#: Measures both registries define, by ir_measures name, with the instances compared (genuine
#: ir_measures objects). Parameter variants: cutoffs that matter on short rankings, rel=2,
#: judged_only=True where rankframe has it.
COMPARED: dict[str, list[Any]] = {
    "P": [im.P @ 1, im.P @ 3, im.P(rel=2) @ 2, im.P(judged_only=True) @ 3],
    "RR": [im.RR, im.RR(rel=2), im.RR @ 1, im.RR @ 3, im.RR(rel=2) @ 5, im.RR(judged_only=True)],
    "Rprec": [im.Rprec, im.Rprec(rel=2), im.Rprec(judged_only=True)],
    "AP": [im.AP, im.AP @ 3, im.AP(rel=2), im.AP(judged_only=True), im.AP(judged_only=True) @ 3],
    "nDCG": [
        im.nDCG,
        im.nDCG @ 3,
        im.nDCG(judged_only=True) @ 5,
        im.nDCG(gains={0: 0, 1: 1, 2: 5, 3: 2}),
        im.nDCG(dcg="exp-log2") @ 2,
        im.nDCG(dcg="exp-log2") @ 10,
    ],
    "R": [im.R @ 1, im.R @ 3, im.R(judged_only=True) @ 3],
    "Bpref": [im.Bpref, im.Bpref(rel=2)],
    "infAP": [im.infAP, im.infAP(rel=2)],
    "NumRet": [im.NumRet, im.NumRet(rel=2), im.NumRelRet],
    "NumQ": [im.NumQ],
    "NumRel": [im.NumRel],
    "SetAP": [im.SetAP, im.SetAP(rel=2), im.SetAP(judged_only=True)],
    "SetF": [im.SetF, im.SetF(beta=0.5), im.SetF(judged_only=True)],
    "SetP": [im.SetP, im.SetRelP, im.SetP(rel=2), im.SetP(judged_only=True)],
    "SetR": [im.SetR, im.SetR(rel=2)],
    "Success": [im.Success @ 1, im.Success @ 3, im.Success(rel=2) @ 2, im.Success(judged_only=True) @ 2],
    "IPrec": [im.IPrec @ 0.0, im.IPrec @ 0.5, im.IPrec @ 1.0, im.IPrec(judged_only=True) @ 0.5],
    "ERR": [im.ERR @ 1, im.ERR @ 5],
    "Judged": [im.Judged @ 1, im.Judged @ 3, im.Judged @ 10],
}
#: ir_measures' aliases of compared measures (the same classes).
ALIASES = {
    "MAP": "AP",
    "MRR": "RR",
    "NDCG": "nDCG",
    "Precision": "P",
    "Recall": "R",
    "RPrec": "Rprec",
    "BPref": "Bpref",
    "NumRelRet": "NumRet",
    "SetRelP": "SetP",
}
CWL = ["BPM", "INSQ", "INST", "NERR8", "NERR9", "NERR10", "NERR11", "SDCG"]
NDEVAL = ["AP_IA", "ERR_IA", "MAP_IA", "P_IA", "StRecall", "alpha_DCG", "alpha_nDCG", "nERR_IA",
          "NRBP", "nNRBP", "α_DCG", "α_nDCG"]
#: Every other name in ir_measures' registry, and why it is not compared.
NOT_COMPARED = {
    "RBP": "rankframe has it; ir_measures computes it with cwl_eval only, which is not installed",
    "Accuracy": "compared with ir_measures' accuracy provider in tests/test_compat_accuracy.py",
    "Compat": "compared with ir_measures' compat provider in tests/test_compat_accuracy.py",
    **dict.fromkeys(
        NDEVAL,
        "ndeval's diversity measures: compared with pyndeval itself (tests/test_subtopics.py) and "
        "with the values of ir_measures' own pyndeval tests (tests/test_peer_suite_ir_measures.py)",
    ),
    **dict.fromkeys(
        CWL,
        "rankframe's C/W/L family: compared with cwl_eval itself (tests/test_cwl.py) and with the "
        "values of ir_measures' own cwl_eval test (tests/test_peer_suite_ir_measures.py)",
    ),
}
#: Tolerances: gdeval prints %.5f.
GDEVAL = {str(m) for m in [*COMPARED["ERR"], *COMPARED["nDCG"]] if "ERR" in str(m) or "exp-log2" in str(m)}
MEASURES = [m for ms in COMPARED.values() for m in ms]
#: ir_measures computes NumRet, NumQ and nDCG in whichever pytrec_eval call it set up first, and
#: that depends on a set's order (PYTHONHASHSEED): next to a judged_only=True measure NumRet
#: counts judged documents only, next to nDCG(gains=...) nDCG takes those gains. Those variants
#: are compared in calls of their own.
JUDGED_ONLY = [m for m in MEASURES if m.params.get("judged_only")]
GAINS = [m for m in MEASURES if "gains" in m.params]
OTHERS = [m for m in MEASURES if m not in JUDGED_ONLY and m not in GAINS]


def test_every_ir_measures_name_is_compared_or_explained() -> None:
    registry = set(im.measures.registry)
    assert registry == set(COMPARED) | set(ALIASES) | set(NOT_COMPARED)
    for name in COMPARED:
        assert hasattr(compat, name), f"rankframe.compat.ir_measures lacks {name}"
    for alias, name in ALIASES.items():
        assert type(getattr(im, alias)) is type(getattr(im, name))
        assert str(getattr(compat, alias)) == str(getattr(im, alias)), alias
    computed = {"RBP", "Accuracy", "Compat", *CWL, *NDEVAL}
    missing = [name for name in NOT_COMPARED if name not in computed]
    for name in missing:
        with pytest.raises(rf.MeasureError):
            rf.parse_measure(name)
    for name in missing:  # a name, but no value: MeasureError naming the family
        with pytest.raises(rf.MeasureError, match="measure family yet"):
            compat.calc_aggregate([getattr(compat, name)], {"1": {"a": 1}}, {"1": {"a": 1.0}})
    for name in CWL:  # computed; ir_measures' name parses to it (max_rel=1 is rankframe's default)
        cutoff = {"cutoff": 10} if name in ("BPM", "SDCG", "NERR8", "NERR9") else {}
        theirs = str(getattr(im, name)(max_rel=2, **cutoff))
        assert rf.parse_measure(theirs) == [getattr(compat, name)(max_rel=2, **cutoff)]


def test_measure_objects_print_as_ir_measures() -> None:
    pairs = [
        (compat.nDCG @ 10, im.nDCG @ 10),
        (compat.P(rel=2) @ 5, im.P(rel=2) @ 5),
        (compat.AP, im.AP),
        (compat.IPrec @ 0.5, im.IPrec @ 0.5),
        (compat.Success @ 1, im.Success @ 1),
        (compat.RR @ 10, im.RR @ 10),
        (compat.SetF(beta=2.0), im.SetF(beta=2.0)),
        (compat.Judged @ 5, im.Judged @ 5),
        (compat.ERR @ 5, im.ERR @ 5),
        (compat.NumRelRet, im.NumRelRet),
        (compat.SetRelP, im.SetRelP),
        (compat.MAP, im.MAP),
    ]
    for ours, theirs in pairs:
        assert str(ours) == str(theirs)
        assert compat.parse_measure(str(theirs)) == ours
    assert compat.parse_trec_measure("ndcg_cut.5,10") == [compat.nDCG @ 5, compat.nDCG @ 10]
    for name in (
        "ndcg_cut.5,10",
        "P_5",
        "map",
        "recip_rank",
        "iprec_at_recall",
        "success",
        "official",
        "set_F.1.0,0.5,2.4",
        "set_relative_P",
        "num_rel_ret",
        "P.5,10",
        "ndcg_cut_5,10",
    ):
        assert [str(m) for m in compat.parse_trec_measure(name)] == [
            str(m) for m in im.parse_trec_measure(name)
        ], name


# ----------------------------------------------------------------------------- data
#: gdeval reads numeric query ids only.
QUERY_IDS = ("1", "9", "10", "23", "4")
DOC_IDS = ("1", "2", "9", "10", "11", "a", "b", "B", "a10", "a9", "zz")
GRADES = (-1, 0, 0, 1, 1, 2, 3)
TIE_SCORES = (0.0, 1.0, 1.0, 2.0, -1.0, 0.5, 3.25)
NEAR_TIES = (1.0 + 2**-30, 1.0 - 2**-30)  # float32 (pytrec_eval) ties them, float64 does not
tied = st.one_of(
    st.sampled_from(TIE_SCORES), st.sampled_from(NEAR_TIES), st.floats(-1e3, 1e3, width=32, allow_nan=False)
)
docs = st.lists(st.sampled_from(DOC_IDS), min_size=1, max_size=7, unique=True)


@st.composite
def cases(draw: st.DrawFn, *, empty_rankings: bool = True) -> dict[str, Any]:
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    queries = draw(st.lists(st.sampled_from(QUERY_IDS), min_size=1, max_size=4, unique=True))
    kinds = ["both", "both", "qrels", "run", *(["empty ranking"] if empty_rankings else [])]
    for i, qid in enumerate(queries):
        kind = "both" if i == 0 else draw(st.sampled_from(kinds))
        if kind in ("both", "qrels", "empty ranking"):
            qrels[qid] = {d: draw(st.sampled_from(GRADES)) for d in draw(docs)}
        if kind in ("both", "run"):
            run[qid] = {d: draw(tied) for d in draw(docs)}
        if kind == "empty ranking":
            run[qid] = {}
    return {"qrels": qrels, "run": run, "form": draw(st.sampled_from(["dict", "records", "pandas"]))}


PAD_DOC = "~pad~"


def padded(qrels: dict[str, dict[str, int]]) -> dict[str, dict[str, int]]:
    return {q: d if any(r >= 0 for r in d.values()) else {**d, PAD_DOC: 0} for q, d in qrels.items()}


def as_form(form: str, qrels: dict, run: dict) -> tuple[Callable[[], Any], Callable[[], Any]]:
    """Factories of the qrels and the run in one input form (a generator is read once)."""
    qrows = [(q, d, r) for q, ds in qrels.items() for d, r in ds.items()]
    rrows = [(q, d, s) for q, ds in run.items() for d, s in ds.items()]
    if form == "dict":
        return lambda: qrels, lambda: run
    if form == "records":
        return (lambda: (im.Qrel(*row) for row in qrows)), (lambda: (im.ScoredDoc(*row) for row in rrows))
    q_frame = pd.DataFrame(qrows, columns=["query_id", "doc_id", "relevance"])
    r_frame = pd.DataFrame(rrows, columns=["query_id", "doc_id", "score"])
    return lambda: q_frame, lambda: r_frame


# ----------------------------------------------------------------------------- comparison
def comparable(c: dict[str, Any], qid: str, measure: Any) -> bool:
    """IPrec: on a ranking (trec_eval 9 divides 0 by 0 on an empty one)."""
    if measure.NAME != "IPrec":
        return True
    judged = c["qrels"].get(qid, {})
    ranked = [d for d in c["run"].get(qid, {}) if not measure["judged_only"] or judged.get(d, -1) >= 0]
    return bool(ranked) or qid not in c["run"]  # judged, not in the run: both say 0


def close(measure: Any, got: float, expected: float) -> bool:
    tol = 5e-6 + 1e-12 if str(measure) in GDEVAL else 1e-12
    return math.isclose(got, expected, rel_tol=1e-12, abs_tol=tol)


def check(c: dict[str, Any], measures: list[Any]) -> None:
    qrels, run = c["qrels"], c["run"]
    if c["form"] != "dict":
        run = {q: ds for q, ds in run.items() if ds}  # records and frames hold no empty ranking
    c = {**c, "run": run}
    if any(not ds for ds in run.values()):
        measures = [m for m in measures if m.NAME != "Judged"]  # ZeroDivisionError in ir_measures
    their_qrels, their_run = as_form(c["form"], padded(qrels), run)
    our_qrels, our_run = as_form(c["form"], qrels, run)

    theirs = {(m.query_id, m.measure): m.value for m in im.iter_calc(measures, their_qrels(), their_run())}
    ours_list = list(compat.iter_calc(measures, our_qrels(), our_run()))
    ours = {(m.query_id, m.measure): m.value for m in ours_list}
    assert len(ours) == len(ours_list), "one value per query and measure"
    assert set(ours) == set(theirs), "the same (query, measure) pairs"
    for (qid, measure), expected in theirs.items():
        if comparable(c, qid, measure):
            got = ours[(qid, measure)]
            assert close(measure, got, expected), (
                f"{measure} on {qid!r}: rankframe {got!r}, ir_measures {expected!r}"
            )

    # aggregates: calc_aggregate, and the evaluator's calc on the same judgments
    agg_theirs = im.calc_aggregate(measures, their_qrels(), their_run())
    agg_ours = compat.calc_aggregate(measures, our_qrels(), our_run())
    assert set(agg_ours) == set(agg_theirs)
    evaluator = compat.evaluator(measures, our_qrels())
    aggregated, per_query = evaluator.calc(our_run())
    assert aggregated == agg_ours
    assert sorted(map(repr, per_query)) == sorted(map(repr, ours_list))
    for measure, expected in agg_theirs.items():
        if all(comparable(c, qid, measure) for qid, m in theirs if m == measure):
            got = agg_ours[measure]
            assert close(measure, got, expected), f"{measure}: rankframe {got!r}, ir_measures {expected!r}"


EXAMPLES = {
    # all ties: trec_eval's order "a9" "a10" "9" "2" "10" "1"; msmarco/judged's "1" "10" "2" "9" "a10" "a9"
    "all ties": {
        "qrels": {"1": {"1": 1, "10": 0, "9": 2, "a10": 1, "zz": 1}},
        "run": {"1": {"1": 1.0, "10": 1.0, "9": 1.0, "2": 1.0, "a10": 1.0, "a9": 1.0}},
        "form": "dict",
    },
    "near ties merged by float32": {
        "qrels": {"1": {"a": 1, "b": 0}},
        "run": {"1": {"a": 1.0 + 2**-30, "b": 1.0, "c": 1.0 - 2**-30}},
        "form": "records",
    },
    "queries on one side, an empty ranking": {
        "qrels": {"1": {"a": 1}, "9": {"b": 1, "c": 0}, "4": {"a": 2}},
        "run": {"4": {"a": 0.5}, "1": {"a": 1.0}, "9": {}, "23": {"a": 1.0}},
        "form": "dict",
    },
    "judgments all negative": {
        "qrels": {"1": {"a": -1}, "9": {"b": 3}},
        "run": {"1": {"a": 1.0}, "9": {"b": 1.0, "a": 2.0}},
        "form": "pandas",
    },
}


@settings(max_examples=settings.default.max_examples * 20 // 20)
@given(c=cases())
@example(c=EXAMPLES["all ties"])
@example(c=EXAMPLES["near ties merged by float32"])
@example(c=EXAMPLES["queries on one side, an empty ranking"])
@example(c=EXAMPLES["judgments all negative"])
def test_matches_ir_measures(c: dict[str, Any]) -> None:
    check(c, OTHERS)
    check(c, JUDGED_ONLY)
    check(c, GAINS)


@settings(max_examples=settings.default.max_examples * 10 // 20)
@given(
    qrels=st.dictionaries(
        st.sampled_from(QUERY_IDS),
        st.dictionaries(st.sampled_from(DOC_IDS), st.integers(0, 3), min_size=1),
        min_size=1,
    ),
    data=st.data(),
)
def test_ranx_provider(qrels: dict[str, dict[str, int]], data: st.DataObject) -> None:
    # nDCG(dcg='exp-log2') without a cutoff: ir_measures asks ranx, which breaks ties its own
    # way and asserts that qrels and run hold the same queries; untied scores, same queries
    qrels = {q: {**ds, "r": 1} for q, ds in qrels.items()}  # ranx wants a relevant document
    distinct = st.lists(st.sampled_from(DOC_IDS), min_size=1, max_size=6, unique=True)
    run = {}
    for q in qrels:
        ranked = data.draw(distinct)
        values = data.draw(
            st.lists(st.floats(-100, 100, width=32), min_size=len(ranked), max_size=len(ranked), unique=True)
        )
        run[q] = dict(zip(ranked, values, strict=True))
    measure = im.nDCG(dcg="exp-log2")
    theirs = {(m.query_id, str(m.measure)): float(m.value) for m in im.iter_calc([measure], qrels, run)}
    ours = {(m.query_id, str(m.measure)): m.value for m in compat.iter_calc([measure], qrels, run)}
    assert ours.keys() == theirs.keys()
    for key, expected in theirs.items():
        assert math.isclose(ours[key], expected, rel_tol=1e-12, abs_tol=1e-12), key


def test_keys_are_the_measures_as_given() -> None:
    qrels, run = {"1": {"a": 1, "b": 0}, "9": {"c": 1}}, {"1": {"a": 1.0, "b": 2.0}}
    given_ = [compat.nDCG @ 2, "P@1", compat.RR, im.AP, compat.P @ 1]
    out = compat.calc_aggregate(given_, qrels, run)
    assert list(out) == given_
    assert out["P@1"] == out[compat.P @ 1] == im.calc_aggregate([im.P @ 1], qrels, run)[im.P @ 1]
    assert out[im.AP] == im.calc_aggregate([im.AP], qrels, run)[im.AP]
    assert {m.measure for m in compat.iter_calc(given_, qrels, run)} == set(given_)
    # a trec_eval list names several measures: keyed by each
    assert list(compat.calc_aggregate(["ndcg_cut.1,2"], qrels, run)) == [compat.nDCG @ 1, compat.nDCG @ 2]


def test_no_judged_query() -> None:
    measures = [im.P @ 5, im.NumQ]
    ours = compat.calc_aggregate(measures, {}, {"1": {"a": 1.0}})
    theirs = im.calc_aggregate(measures, {}, {"1": {"a": 1.0}})  # {P@5: nan, NumQ: 0}
    assert ours.keys() == theirs.keys()
    assert math.isnan(ours[im.P @ 5])
    assert math.isnan(theirs[im.P @ 5])
    assert ours[im.NumQ] == theirs[im.NumQ] == 0
    assert list(compat.iter_calc(measures, {}, {"1": {"a": 1.0}})) == []


def test_integer_query_ids_beside_string_ones_read_as_strings() -> None:
    # regression: integer judgment ids beside a run's string ids raised Polars' SchemaError
    # ("datatypes of join keys don't match"); ir_measures' pytrec_eval provider refuses integer
    # ids (TypeError), rankframe.evaluate and the drop-in read them as strings
    run, strings = {"1": {"a": 1.0, "b": 2.0}}, {"1": {"a": 1, "b": 0}, "2": {"c": 1}}
    theirs = im.calc_aggregate([im.AP, im.P @ 1], strings, run)
    for qrels in ({1: {"a": 1, "b": 0}, 2: {"c": 1}}, {1: {"a": 1, "b": 0}, "2": {"c": 1}}):
        assert compat.calc_aggregate([im.AP, im.P @ 1], qrels, run) == theirs
        got = [(m.query_id, m.value) for m in compat.iter_calc([im.AP], qrels, run)]
        assert got == [("1", 0.5), ("2", 0.0)]
    ints = {1: {"a": 1.0, "b": 2.0}}
    assert compat.calc_aggregate([im.AP, im.P @ 1], strings, ints) == theirs


def test_infinite_scores_rank_as_in_ir_measures() -> None:
    # regression: an infinite score raised InputError; each provider ranks it as its sort does
    inf = float("inf")
    qrels = {"1": {"a": 1, "b": 0, "c": 2, "d": 1}}
    measures = [im.AP, im.P @ 1, im.nDCG @ 3, im.RR, im.RR @ 2, im.Judged @ 2, im.Bpref]
    for run in ({"1": {"a": inf, "b": 1.0, "c": -inf}}, {"1": {"b": inf, "a": inf, "c": -inf, "d": -inf}}):
        theirs = {(m.query_id, str(m.measure)): m.value for m in im.iter_calc(measures, qrels, run)}
        ours = {(m.query_id, str(m.measure)): m.value for m in compat.iter_calc(measures, qrels, run)}
        assert ours == pytest.approx(theirs)


def test_an_evaluator_evaluates_several_runs() -> None:
    qrels = {"1": {"a": 1, "b": 0}, "9": {"c": 1}}
    ours, theirs = compat.evaluator([im.P @ 1, im.AP], qrels), im.evaluator([im.P @ 1, im.AP], qrels)
    for run in ({"1": {"a": 1.0, "b": 2.0}}, {"9": {"c": 1.0}, "1": {"b": 0.0}}):
        assert ours.calc_aggregate(run) == theirs.calc_aggregate(run)
        key = lambda m: (m.query_id, str(m.measure))  # noqa: E731
        assert sorted(ours.iter_calc(run), key=key) == sorted(theirs.iter_calc(run), key=key)


def test_trec_readers_are_ir_measures(tmp_path: Any) -> None:
    qrels_text = "1 0 d1 2\n1 0 d2 0\n\n9 Q d9 -1\n"
    run_text = "1 Q0 d1 1 2.5 bm25\n1 Q0 d2 2 1.5 bm25\n"
    path = tmp_path / "run.gz"
    with gzip.open(path, "wt") as f:
        f.write(run_text)
    qrels_path = tmp_path / "qrels"
    qrels_path.write_text(qrels_text)
    assert list(compat.read_trec_qrels(qrels_text)) == list(im.read_trec_qrels(qrels_text))
    assert list(compat.read_trec_qrels(str(qrels_path))) == list(im.read_trec_qrels(str(qrels_path)))
    assert list(compat.read_trec_run(str(path))) == list(im.read_trec_run(str(path)))
    with qrels_path.open() as f:
        assert list(compat.read_trec_qrels(f)) == list(im.read_trec_qrels(qrels_text))
    # the records are ir_measures' own fields: either library reads the other's
    for name in ("Qrel", "ScoredDoc", "Metric", "CalcResults"):
        assert getattr(compat, name)._fields == getattr(im, name)._fields, name
    read = (compat.read_trec_qrels(qrels_text), compat.read_trec_run(run_text))
    assert compat.calc_aggregate([im.P @ 1], *read) == im.calc_aggregate(
        [im.P @ 1], im.read_trec_qrels(qrels_text), im.read_trec_run(run_text)
    )


def test_public_names() -> None:
    assert set(compat.__all__) <= set(dir(compat))
    for name in compat.__all__:
        obj = getattr(compat, name)
        assert obj.__doc__, name


# ----------------------------------------------------------------------------- ir_measures' suite's API
#: Two queries, grades 0-2, no score ties (ir_measures' own suite's example).
SUITE_QRELS = {"0": {"D0": 0, "D1": 1, "D2": 1, "D3": 2, "D4": 0}, "1": {"D0": 1, "D3": 2, "D5": 2}}
SUITE_RUN = {
    "0": {"D0": 0.8, "D2": 0.7, "D1": 0.3, "D3": 0.4, "D4": 0.1},
    "1": {"D1": 0.8, "D3": 0.7, "D4": 0.3},
}


def test_aliases_and_spellings_are_ir_measures() -> None:
    pairs = {
        "MAP": (compat.MAP, im.MAP),
        "MRR@10": (compat.MRR @ 10, im.MRR @ 10),
        "NDCG@10": (compat.NDCG @ 10, im.NDCG @ 10),
        "Precision@5": (compat.Precision @ 5, im.Precision @ 5),
        "BPref": (compat.BPref, im.BPref),
        "RPrec": (compat.RPrec, im.RPrec),
        "Recall@5": (compat.Recall @ 5, im.Recall @ 5),
        "IPrec(recall=0.5)": (
            compat.IPrec(recall=0.5),
            im.IPrec(recall=0.5),
        ),  # 0.4: trec_eval 9 rounds its recall levels (IPrec(rounding='trec_eval9'))
        "SetRelP": (compat.SetRelP, im.SetRelP),
        "NumRelRet": (compat.NumRelRet, im.NumRelRet),
    }
    for name, (ours, theirs) in pairs.items():
        assert str(ours) == str(theirs), name
        assert compat.parse_measure(name) == ours, name
        assert compat.calc_aggregate([ours], SUITE_QRELS, SUITE_RUN)[ours] == pytest.approx(
            im.calc_aggregate([theirs], SUITE_QRELS, SUITE_RUN)[theirs], rel=1e-12
        ), name
    assert list(compat.calc_aggregate(["MAP", "NDCG@10"], SUITE_QRELS, SUITE_RUN)) == ["MAP", "NDCG@10"]
    # regression: parse_measure('SetRelP') was rankframe's SetRelP family, not the object exported
    assert compat.parse_measure("SetRelP") in compat.calc_aggregate([compat.SetRelP], SUITE_QRELS, SUITE_RUN)
    # the objects are rankframe's measures too: equal and hashed alike, either keys a result
    assert compat.P @ 5 == rf.measures.P @ 5
    assert rf.measures.P @ 5 == compat.P @ 5
    assert hash(compat.P @ 5) == hash(rf.measures.P @ 5)


def test_ndcg_custom_gains_take_a_cutoff() -> None:
    # regression: nDCG(gains=...)@5 raised (replace re-read the stored gains as a bad value)
    ours, theirs = compat.nDCG(gains={0: 1, 1: 2}) @ 5, im.nDCG(gains={0: 1, 1: 2}) @ 5
    assert ours == compat.parse_measure("nDCG(gains={1: 2, 0: 1})@5")
    assert compat.calc_aggregate([ours], SUITE_QRELS, SUITE_RUN)[ours] == pytest.approx(
        im.calc_aggregate([theirs], SUITE_QRELS, SUITE_RUN)[theirs], rel=1e-12
    )


def test_trec_names_with_several_parameters_and_nicknames() -> None:
    # regression: set_F.1.0,0.5,2.4 gave one measure; official added GMAP (ir_measures skips gm_map)
    assert compat.parse_trec_measure("set_F.1.0,0.5,2.4") == [
        compat.SetF,
        compat.SetF(beta=0.5),
        compat.SetF(beta=2.4),
    ]
    assert "GMAP" not in map(str, compat.parse_trec_measure("official"))
    with pytest.raises(rf.MeasureError, match="gm_map"):
        compat.parse_trec_measure("gm_map")


def test_trec_names_ir_measures_does_not_read_are_refused() -> None:
    # regression: Rprec_mult and ndcg_rel were read as Rprec/ndcg with a parameter ("_mult"),
    # so parse_trec_measure("all_trec") added RprecMult@0.2... and nDCG_rel, where ir_measures
    # says "known trec name Rprec_mult, but not yet supported" and all_trec skips them
    assert [str(m) for m in compat.parse_trec_measure("all_trec")] == [
        str(m) for m in im.parse_trec_measure("all_trec")
    ]
    for name in ("Rprec_mult", "Rprec_mult.0.2", "ndcg_rel"):
        with pytest.raises(ValueError, match="not yet supported"):
            im.parse_trec_measure(name)
        with pytest.raises(rf.MeasureError, match=f"{name!r}.*not yet supported"):
            compat.parse_trec_measure(name)


def test_measures_compute_themselves() -> None:
    for ours, theirs in [
        (compat.P @ 5, im.P @ 5),
        (compat.nDCG @ 2, im.nDCG @ 2),
        (compat.RR @ 1, im.RR @ 1),
    ]:
        assert ours.calc_aggregate(SUITE_QRELS, SUITE_RUN) == pytest.approx(
            theirs.calc_aggregate(SUITE_QRELS, SUITE_RUN), rel=1e-12
        )
        got = [(m.query_id, m.value) for m in ours.iter_calc(SUITE_QRELS, SUITE_RUN)]
        expected = [(m.query_id, m.value) for m in theirs.iter_calc(SUITE_QRELS, SUITE_RUN)]
        assert [q for q, _ in got] == [q for q, _ in expected]
        assert [v for _, v in got] == pytest.approx([v for _, v in expected], rel=1e-12)
        value, per_query = ours.calc(SUITE_QRELS, SUITE_RUN)
        assert value == ours.calc_aggregate(SUITE_QRELS, SUITE_RUN)
        assert len(per_query) == 2


def test_an_empty_run_scores_every_judged_query_0() -> None:
    # regression: calc_aggregate([P@5], qrels, []) raised
    for run in ([], iter([]), {}):
        assert compat.calc_aggregate([compat.P @ 5], SUITE_QRELS, run) == {compat.P @ 5: 0.0}
    assert math.isnan(compat.calc_aggregate([compat.P @ 5], [], [])[compat.P @ 5])


def test_providers_keep_their_conventions() -> None:
    # all ties: pytrec_eval (float32, trec_eval 9) puts "b" first, judged and msmarco "a"
    qrels, run = {"1": {"a": 1, "b": 0}}, {"1": {"a": 1.0, "b": 1.0, "c": 0.5}}
    assert compat.pytrec_eval.calc_aggregate([compat.P @ 1], qrels, run) == {compat.P @ 1: 0.0}
    assert compat.msmarco.calc_aggregate([compat.RR @ 1], qrels, run) == {compat.RR @ 1: 1.0}
    assert compat.judged.calc_aggregate([compat.Judged @ 3], qrels, run) == {compat.Judged @ 3: 2 / 3}
    for provider in ("pytrec_eval", "judged", "gdeval", "ranx"):
        assert compat.providers.registry[provider] is getattr(compat, provider)
    # gdeval: 5 decimals, and its nDCG@k is the exponential-gain one
    err = compat.gdeval.calc_aggregate([compat.ERR @ 20], SUITE_QRELS, SUITE_RUN)[compat.ERR @ 20]
    assert err == round(err, 5)
    ndcg = compat.gdeval.calc_aggregate([compat.nDCG @ 20], SUITE_QRELS, SUITE_RUN)[compat.nDCG @ 20]
    exp = compat.calc_aggregate([compat.nDCG(dcg="exp-log2") @ 20], SUITE_QRELS, SUITE_RUN)
    assert ndcg == pytest.approx(exp[compat.nDCG(dcg="exp-log2") @ 20], abs=1e-5)
    assert compat.gdeval.supports(compat.ERR @ 5)
    assert not compat.gdeval.supports(compat.P @ 5)
    with pytest.raises(rf.MeasureError, match="gdeval"):
        compat.gdeval.calc_aggregate([compat.P @ 5], SUITE_QRELS, SUITE_RUN)
    assert compat.CwlMetric._fields == im.CwlMetric._fields
    assert compat.measures.Judged == compat.Judged


def test_define_and_define_byquery_run_the_users_function() -> None:
    def hits(qrels: Any, run: Any) -> float:
        return float(run.merge(qrels, on=["query_id", "doc_id"])["relevance"].gt(0).sum())

    def all_hits(qrels: Any, run: Any) -> Any:
        for qid, ranking in run.merge(qrels, on=["query_id", "doc_id"]).groupby("query_id"):
            yield qid, float(ranking["relevance"].gt(0).sum())

    for ours, theirs in [
        (compat.define_byquery(hits), im.define_byquery(hits)),
        (compat.define(all_hits, "Hits"), im.define(all_hits, "Hits")),
    ]:
        for k in (1, 2, 5):
            assert (ours @ k).calc_aggregate(SUITE_QRELS, SUITE_RUN) == (theirs @ k).calc_aggregate(
                SUITE_QRELS, SUITE_RUN
            )
        measure = ours @ 2
        assert {m.measure for m in compat.iter_calc([measure, compat.P @ 2], SUITE_QRELS, SUITE_RUN)} == {
            measure,
            compat.P @ 2,
        }
    only_query = compat.define(all_hits, run_inputs=["query_id"])
    assert compat.run_inputs([only_query]) == ["query_id"]
    assert set(compat.run_inputs([only_query, compat.P @ 5])) == {"query_id", "doc_id", "score"}
