"""trec_eval group A (bpref, gm_bpref, infAP, Rprec, Rprec_mult, iprec_at_recall, 11pt_avg,
utility, success, relative_P, set_*, num_nonrel_judged_ret).

* per query and ``all`` against trec_eval 10.0's own expected outputs (``out.test.aq``, ``.aql``
  with ``-l2``, ``.aqc`` with ``-c``, ``.aqcM`` with ``-c -M100``, ``.meas_params``), printed as
  trec_eval prints them (``%.4f``, counts as integers);
* against a slow pure-Python oracle that walks each ranking as trec_eval's loops do, on random
  rankings with unjudged (absent) and pool-unjudged (negative) documents and graded qrels,
  including 11pt_avg levels given out of order;
* names: ir_measures-style reprs round-trip, trec_eval labels, ranx aliases and errors.
"""

from __future__ import annotations

import math
import random
import warnings
from functools import cache
from pathlib import Path

import polars as pl
import pytest

import rankframe as rf
from rankframe._errors import MeasureError
from rankframe._measures._names import parse_measure, parse_trec
from rankframe._measures.bpref import Bpref, GMBpref
from rankframe._measures.infap import infAP
from rankframe._measures.iprec import IPrec, IPrecAvg
from rankframe._measures.relative_p import RelP
from rankframe._measures.rprec import Rprec, RprecMult
from rankframe._measures.set_measures import (
    NumNonRelJudgedRet,
    SetAP,
    SetF,
    SetP,
    SetR,
    SetRelP,
)
from rankframe._measures.success import Success
from rankframe._measures.utility import Utility

#: The test data that travels with the tests (origin and licence: tests/data/README.md).
TEST_DATA = Path(__file__).resolve().parent / "data"
#: trec_eval's test/ folder at tag v10.0 (tests/data/trec_eval_test/README.md).
SUITE = TEST_DATA / "trec_eval_test"

#: the trec_eval measures of this group that ``-m all_trec`` prints
ALL_TREC = [
    "bpref",
    "gm_bpref",
    "infAP",
    "Rprec",
    "Rprec_mult",
    "iprec_at_recall",
    "11pt_avg",
    "utility",
    "success",
    "relative_P",
    "set_P",
    "set_relative_P",
    "set_recall",
    "set_map",
    "set_F",
    "num_nonrel_judged_ret",
]
#: the parameterised ones of ``out.test.meas_params`` (trec_eval's own spellings)
MEAS_PARAMS = [
    "iprec_at_recall..10,.20,.25,.75,.50",
    "Rprec_mult.5.0,0.2,0.35",
    "utility.2,-1,0,0",
    "11pt_avg..25,.5,.75",
    "success.2,5,20",
]
COUNTS = {"num_nonrel_judged_ret"}

#: expected file -> (qrels, run, evaluate options, trec_eval measure specs)
CASES = {
    "aq": ("out.test.aq", "qrels.test", "results.test", {}, ALL_TREC),
    "aql": ("out.test.aql", "qrels.rel_level", "results.test", {"relevance_level": 2}, ALL_TREC),
    "aqc": ("out.test.aqc", "qrels.test", "results.trunc", {"complete": True}, ALL_TREC),
    "aqcM": ("out.test.aqcM", "qrels.test", "results.trunc", {"complete": True, "depth": 100}, ALL_TREC),
    "meas_params": ("out.test.meas_params", "qrels.test", "results.test", {}, MEAS_PARAMS),
}


def _expected(name: str) -> dict[tuple[str, str], str]:
    out = {}
    for line in (SUITE / name).read_text().splitlines():
        label, qid, value = (part.strip() for part in line.split("\t"))
        out[label, qid] = value
    return out


def _fmt(label: str, value: float) -> str:
    return f"{int(value)}" if label in COUNTS else f"{value:.4f}"


@cache
def _ours(case: str) -> dict[tuple[str, str], str]:
    """Our values for every (trec_eval label, query or 'all') of a case, printed like trec_eval."""
    _, qrels, run, opts, specs = CASES[case]
    labelled = [pair for spec in specs for pair in parse_trec(spec)]
    measures = [m for _, m in labelled]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rf.RankframeWarning)
        per_q = rf.evaluate(SUITE / qrels, SUITE / run, measures, per_query=True, **opts)
        summary = rf.evaluate(SUITE / qrels, SUITE / run, measures, **opts)
    values = {(r["measure"], r["query_id"]): r["value"] for r in per_q.iter_rows(named=True)}
    values |= {(r["measure"], "all"): r["value"] for r in summary.iter_rows(named=True)}
    qids = sorted(set(per_q["query_id"])) + ["all"]
    return {
        (label, qid): _fmt(label, values[repr(m), qid])
        for label, m in labelled
        for qid in qids
        if (repr(m), qid) in values
    }


@pytest.mark.parametrize("case", list(CASES))
def test_matches_trec_eval_expected_output(case: str) -> None:
    expected = _expected(CASES[case][0])
    ours = _ours(case)
    labels = {label for label, _ in ours}
    wanted = {key: v for key, v in expected.items() if key[0] in labels}
    assert wanted, f"no expected rows for {case}"
    mismatches = {key: (ours.get(key), v) for key, v in wanted.items() if ours.get(key) != v}
    assert not mismatches, f"(ours, trec_eval) differ in {case}: {mismatches}"
    # gm_bpref is a summary-only measure in trec_eval; every other row must be there
    assert {key for key in ours if key[0] != "gm_bpref"} <= set(wanted)


# ------------------------------------------------------------------ pure-Python oracle
# A ranking is a list of grades in rank order: None = absent from the qrels, < 0 = in the pool
# but unjudged; `pool` holds every grade of the query's qrels (retrieved or not).


def _lround(x: float) -> int:
    return int(math.copysign(math.floor(abs(x) + 0.5), x))


def oracle(name: str, ranking: list[int | None], pool: list[int], level: int, param=None) -> float:
    rel = [g is not None and g >= level for g in ranking]
    num_rel = sum(g >= level for g in pool)
    num_nonrel = sum(0 <= g < level for g in pool)
    ret, rel_ret = len(ranking), sum(rel)
    if name in ("bpref", "infAP"):
        total, nonrel_seen, rel_seen, unjudged_seen = 0.0, 0, 0, 0
        for i, g in enumerate(ranking):
            if g is None:
                continue
            if g < 0:
                unjudged_seen += 1
            elif g < level:
                nonrel_seen += 1
            else:
                if name == "bpref":
                    total += (
                        1.0
                        if nonrel_seen == 0
                        else (1.0 - min(nonrel_seen, num_rel) / min(num_nonrel, num_rel))
                    )
                elif i == 0:
                    total += 1.0
                else:
                    pooled = rel_seen + nonrel_seen + unjudged_seen
                    total += 1.0 / (i + 1) + (i / (i + 1)) * (pooled / i) * (
                        (rel_seen + 1e-5) / (rel_seen + nonrel_seen + 2e-5)
                    )
                rel_seen += 1
        return total / num_rel if num_rel else 0.0
    if name == "Rprec":
        return sum(rel[:num_rel]) / num_rel if num_rel else 0.0
    if name == "Rprec_mult":
        k = int(param * num_rel + 0.9)
        return sum(rel[:k]) / k if k >= 1 else 0.0
    if name in ("iprec", "11pt"):
        # trec_eval's walk: levels as numbers of relevant documents, visited from the last one
        # while the ranking is read bottom-up, tracking the best precision seen so far
        levels = [param] if name == "iprec" else list(param)
        cut = [_lround(x * num_rel) for x in levels]
        out = [0.0] * len(cut)
        idx = len(cut) - 1
        while idx >= 0 and cut[idx] > rel_ret:
            idx -= 1
        best = rel_ret / ret if ret else 0.0
        seen = rel_ret
        i = ret
        while i > 0 and seen > 0:
            best = max(best, seen / i)
            if rel[i - 1]:
                while idx >= 0 and seen == cut[idx]:
                    out[idx] = best
                    idx -= 1
                seen -= 1
            i -= 1
        while idx >= 0:
            out[idx] = best
            idx -= 1
        return out[0] if name == "iprec" else sum(out) / len(out)
    if name == "success":
        return float(any(rel[:param]))
    if name == "relative_P":
        return sum(rel[:param]) / min(param, num_rel) if num_rel else 0.0
    if name == "utility":
        a, b, c, d = param
        return a * rel_ret + b * (ret - rel_ret) + c * (num_rel - rel_ret) + d * (0 + rel_ret - ret - num_rel)
    if name == "set_P":
        return rel_ret / ret if ret else 0.0
    if name == "set_relative_P":
        return rel_ret / min(ret, num_rel) if ret and num_rel else 0.0
    if name == "set_recall":
        return rel_ret / num_rel if num_rel else 0.0
    if name == "set_map":
        return rel_ret * rel_ret / (ret * num_rel) if ret and num_rel else 0.0
    if name == "set_F":
        if not rel_ret:
            return 0.0
        p, r = rel_ret / ret, rel_ret / num_rel
        return (param + 1) * p * r / (param * p + r)
    if name == "num_nonrel_judged_ret":
        return float(sum(g is not None and 0 <= g < level for g in ranking))
    raise AssertionError(name)


ORACLE_CASES = [
    ("bpref", None, Bpref()),
    ("infAP", None, infAP()),
    ("Rprec", None, Rprec()),
    ("Rprec_mult", 0.2, RprecMult(cutoff=0.2)),
    ("Rprec_mult", 1.4, RprecMult(cutoff=1.4)),
    ("Rprec_mult", 3.0, RprecMult(cutoff=3.0)),
    ("iprec", 0.0, IPrec(cutoff=0.0)),
    ("iprec", 0.1, IPrec(cutoff=0.1)),
    ("iprec", 0.5, IPrec(cutoff=0.5)),
    ("iprec", 1.0, IPrec(cutoff=1.0)),
    ("11pt", IPrecAvg().recall, IPrecAvg()),
    ("11pt", (0.5, 0.2, 0.8), IPrecAvg(recall=(0.5, 0.2, 0.8))),  # out of order
    ("11pt", (0.9, 0.0, 0.3, 0.3, 1.5), IPrecAvg(recall=(0.9, 0.0, 0.3, 0.3, 1.5))),
    # walked 0.9, 0.4, 0.6, 0.2: 0.6 is out of order, and 0.2, in order after it, still scores
    # the maximum precision (trec_eval's flag stays down)
    ("11pt", (0.2, 0.6, 0.4, 0.9), IPrecAvg(recall=(0.2, 0.6, 0.4, 0.9))),
    ("success", 1, Success(cutoff=1)),
    ("success", 3, Success(cutoff=3)),
    ("relative_P", 2, RelP(cutoff=2)),
    ("relative_P", 10, RelP(cutoff=10)),
    ("utility", (1.0, -1.0, 0.0, 0.0), Utility()),
    ("utility", (2.0, -0.5, -1.0, 0.25), Utility(a=2, b=-0.5, c=-1, d=0.25)),
    ("set_P", None, SetP()),
    ("set_relative_P", None, SetRelP()),
    ("set_relative_P", None, SetP(relative=True)),
    ("set_recall", None, SetR()),
    ("set_map", None, SetAP()),
    ("set_F", 1.0, SetF()),
    ("set_F", 0.25, SetF(beta=0.25)),
    ("num_nonrel_judged_ret", None, NumNonRelJudgedRet()),
]


@cache
def _random_frames(seed: int) -> tuple[pl.DataFrame, pl.DataFrame, dict]:
    rng = random.Random(seed)
    run_rows, qrels_rows, truth = [], [], {}
    for q in range(40):
        qid = f"q{q}"
        n = rng.randint(1, 15)
        ranking: list[int | None] = []
        pool: list[int] = []
        for i in range(n):
            doc = f"d{i}"
            run_rows.append((qid, doc, float(n - i)))
            kind = rng.random()
            if kind < 0.25:
                ranking.append(None)  # not in the qrels
                continue
            grade = rng.choice([-1, 0, 0, 0, 1, 1, 2, 3])
            ranking.append(grade)
            pool.append(grade)
            qrels_rows.append((qid, doc, grade))
        for e in range(rng.randint(0 if pool else 1, 4)):  # judged but not retrieved
            grade = rng.choice([-1, 0, 1, 2])
            pool.append(grade)
            qrels_rows.append((qid, f"x{e}", grade))
        truth[qid] = (ranking, pool)
    run = pl.DataFrame(run_rows, schema=["query_id", "doc_id", "score"], orient="row")
    qrels = pl.DataFrame(qrels_rows, schema=["query_id", "doc_id", "relevance"], orient="row")
    return run, qrels, truth


@pytest.mark.parametrize("level", [1, 2])
@pytest.mark.parametrize("seed", [0, 1])
def test_matches_trec_eval_loops_on_random_rankings(seed: int, level: int) -> None:
    run, qrels, truth = _random_frames(seed)
    measures = list(dict.fromkeys(m for _, _, m in ORACLE_CASES))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rf.RankframeWarning)
        out = rf.evaluate(qrels, run, measures, per_query=True, relevance_level=level)
    got = {(r["measure"], r["query_id"]): r["value"] for r in out.iter_rows(named=True)}
    assert {q for _, q in got} == set(truth)
    for name, param, m in ORACLE_CASES:
        for qid, (ranking, pool) in truth.items():
            want = oracle(name, ranking, pool, level, param)
            assert got[repr(m), qid] == pytest.approx(want, abs=1e-12), (name, param, qid)


def test_missing_query_scores_zero_with_complete() -> None:
    # a judged query absent from the run (trec_eval -c) scores 0 on every measure of the group
    run = pl.DataFrame({"query_id": ["q1"], "doc_id": ["a"], "score": [1.0]})
    qrels = pl.DataFrame({"query_id": ["q1", "q2", "q2"], "doc_id": ["a", "b", "c"], "relevance": [1, 1, 0]})
    measures = [m for _, _, m in ORACLE_CASES if m != Utility(a=2, b=-0.5, c=-1, d=0.25)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rf.RankframeWarning)
        out = rf.evaluate(qrels, run, measures, per_query=True, complete=True)
    q2 = out.filter(pl.col("query_id") == "q2")
    assert q2.height == len(set(measures))
    assert q2["value"].to_list() == [0.0] * q2.height


def test_gm_bpref_is_the_geometric_mean_of_bpref() -> None:
    run = pl.DataFrame(
        {"query_id": ["q1", "q1", "q2", "q2"], "doc_id": ["a", "b", "c", "d"], "score": [2.0, 1.0, 2.0, 1.0]}
    )
    qrels = pl.DataFrame(
        {"query_id": ["q1", "q1", "q2", "q2"], "doc_id": ["a", "b", "c", "d"], "relevance": [1, 0, 0, 1]}
    )
    out = rf.evaluate(qrels, run, ["bpref", "gm_bpref"])
    # bpref: q1 = 1, q2 = 1 - 1/1 = 0 (floored at 1e-5 by the geometric mean)
    assert out["value"].to_list() == pytest.approx([0.5, math.sqrt(1e-5)])


# ------------------------------------------------------------------ names
REPRS = {
    "Bpref": Bpref(),
    "GMBpref": GMBpref(),
    "infAP": infAP(),
    "Rprec": Rprec(),
    "Rprec(rel=2)": Rprec(rel=2),
    "RprecMult@0.2": RprecMult(cutoff=0.2),
    "IPrec@0.1": IPrec(cutoff=0.1),
    "IPrec(judged_only=True)@0.5": IPrec(cutoff=0.5, judged_only=True),
    "IPrecAvg": IPrecAvg(),
    "IPrecAvg(recall=(0.25, 0.5, 0.75))": IPrecAvg(recall=(0.25, 0.5, 0.75)),
    "Utility": Utility(),
    "Utility(a=2.0,num_docs=1000)": Utility(a=2, num_docs=1000),
    "Success@10": Success(cutoff=10),
    "RelP@5": RelP(cutoff=5),
    "SetP": SetP(),
    "SetP(relative=True)": SetP(relative=True),
    "SetRelP": SetRelP(),
    "SetR": SetR(),
    "SetAP": SetAP(),
    "SetF": SetF(),
    "SetF(beta=0.5)": SetF(beta=0.5),
    "NumNonRelJudgedRet": NumNonRelJudgedRet(),
}


@pytest.mark.parametrize(("text", "measure"), list(REPRS.items()))
def test_repr_round_trips(text: str, measure: object) -> None:
    assert repr(measure) == text
    assert parse_measure(text) == [measure]


TREC = {
    "bpref": [("bpref", Bpref())],
    "gm_bpref": [("gm_bpref", GMBpref())],
    "infAP": [("infAP", infAP())],
    "Rprec": [("Rprec", Rprec())],
    "Rprec_mult.5.0,0.2": [
        ("Rprec_mult_0.20", RprecMult(cutoff=0.2)),
        ("Rprec_mult_5.00", RprecMult(cutoff=5.0)),
    ],
    "iprec_at_recall..10,.20": [
        ("iprec_at_recall_0.10", IPrec(cutoff=0.1)),
        ("iprec_at_recall_0.20", IPrec(cutoff=0.2)),
    ],
    "iprec_at_recall_0.10": [("iprec_at_recall_0.10", IPrec(cutoff=0.1))],
    "11pt_avg": [("11pt_avg", IPrecAvg())],
    "11pt_avg..25,.5,.75": [("11pt_avg_.25,.5,.75", IPrecAvg(recall=(0.25, 0.5, 0.75)))],
    "utility": [("utility", Utility())],
    "utility.2,-1,0,0": [("utility_2,-1,0,0", Utility(a=2))],
    "success.5,1": [("success_1", Success(cutoff=1)), ("success_5", Success(cutoff=5))],
    "relative_P.5": [("relative_P_5", RelP(cutoff=5))],
    "set_P": [("set_P", SetP())],
    "set_relative_P": [("set_relative_P", SetRelP())],
    "set_recall": [("set_recall", SetR())],
    "set_map": [("set_map", SetAP())],
    "set_F": [("set_F", SetF())],
    "set_F.0.5": [("set_F_0.5", SetF(beta=0.5))],
    "num_nonrel_judged_ret": [("num_nonrel_judged_ret", NumNonRelJudgedRet())],
}


@pytest.mark.parametrize(("spec", "pairs"), list(TREC.items()))
def test_trec_eval_names(spec: str, pairs: list) -> None:
    assert parse_trec(spec) == pairs


def test_defaults_of_trec_eval_names() -> None:
    assert [label for label, _ in parse_trec("iprec_at_recall")][::5] == [
        "iprec_at_recall_0.00",
        "iprec_at_recall_0.50",
        "iprec_at_recall_1.00",
    ]
    assert len(parse_trec("Rprec_mult")) == 10
    assert [m for _, m in parse_trec("success")] == [Success(cutoff=k) for k in (1, 5, 10)]
    assert len(parse_trec("relative_P")) == 9


@pytest.mark.parametrize(("spec", "measure"), [("bpref", Bpref()), ("r-precision", Rprec())])
def test_ranx_aliases(spec: str, measure: object) -> None:
    assert parse_measure(spec) == [measure]


@pytest.mark.parametrize(
    ("spec", "match"),
    [
        ("IPrec", "recall level"),
        ("RprecMult", "multiple of R"),
        ("Success", "cutoff"),
        ("RelP", "cutoff"),
        ("utility.1,2", "exactly 4 coefficients"),
        ("Success@0", "'cutoff' parameter of Success"),
        ("IPrecAvg(recall=())", "non-empty"),
        ("Utility(num_docs=-1)", "'num_docs' parameter of Utility"),
    ],
)
def test_errors(spec: str, match: str) -> None:
    with pytest.raises(MeasureError, match=match):
        parse_measure(spec)


def test_judged_only_param_equals_the_judged_only_option() -> None:
    # the per-measure switch (ir_measures' judged_only) and evaluate(judged_only=True) (-J) agree
    # on the queries both evaluate (the option drops queries with only unjudged documents)
    run, qrels, _ = _random_frames(0)
    pairs = {
        Rprec(judged_only=True): Rprec(),
        IPrec(cutoff=0.3, judged_only=True): IPrec(cutoff=0.3),
        Success(cutoff=2, judged_only=True): Success(cutoff=2),
        SetP(judged_only=True): SetP(),
        SetF(judged_only=True): SetF(),
        SetAP(judged_only=True): SetAP(),
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rf.RankframeWarning)
        a = rf.evaluate(qrels, run, list(pairs), per_query=True)
        b = rf.evaluate(qrels, run, list(pairs.values()), per_query=True, judged_only=True)
    names = {repr(k): repr(v) for k, v in pairs.items()}
    a = a.with_columns(pl.col("measure").replace_strict(names))
    joined = a.join(b, on=["query_id", "measure"], how="inner")
    assert joined.height >= 30 * len(pairs)
    assert (joined["value"] - joined["value_right"]).abs().max() == 0.0
