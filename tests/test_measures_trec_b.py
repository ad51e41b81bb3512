"""trec_eval group B (binG, G, ndcg_rel, Rndcg, dcg, rbp, rbp_resid, unj, relstring) and extras.

* per query and ``all`` against trec_eval 10.0's own expected outputs (``out.test.aq``, ``.aql``,
  ``.aqc``, ``.aqcM``), printed ``%.4f`` as trec_eval does;
* the gain-map measures against a slow pure-Python oracle that walks the ranking and the ideal
  ranking position by position, as trec_eval's loops do, on random data and gain maps;
* ``Judged``, ``ERR`` and ``RBP(rel=...)`` against ir_measures on random frames (skipped when its
  backend, perl's gdeval or cwl-eval, is missing);
* ranx's ``hit_rate``, ``hits``, ``f1``, ``rbp``, ``dcg`` on hand-computed values and the values
  transcribed from the peer libraries' tests.
"""

from __future__ import annotations

import json
import math
import random
import shutil
import warnings
from fractions import Fraction
from pathlib import Path

import polars as pl
import pytest

import rankframe as rf
from rankframe._engine.collect import per_query_wide
from rankframe._engine.prepare import prepare
from rankframe._measures._names import parse_measure, parse_trec
from rankframe._measures.err import ERR
from rankframe._measures.gain_g import G, binG
from rankframe._measures.ndcg_variants import DCG, IDCG, RnDCG, nDCG_rel
from rankframe._measures.ranx_extras import F1, HitRate, Hits
from rankframe._measures.rbp import RBP, RBPResidual
from rankframe._measures.relstring import RelString
from rankframe._measures.unjudged import Judged, Unjudged

#: The test data that travels with the tests (origin and licence: tests/data/README.md).
TEST_DATA = Path(__file__).resolve().parent / "data"
#: trec_eval's test/ folder at tag v10.0 (tests/data/trec_eval_test/README.md).
SUITE = TEST_DATA / "trec_eval_test"
#: Values transcribed from the peer libraries' tests (tests/data/peer_tests/README.md).
PEER = TEST_DATA / "peer_tests" / "extracted_cases.json"

TREC_SPECS = ["relstring", "binG", "G", "ndcg_rel", "Rndcg", "rbp", "rbp_resid", "unj"]

#: expected file -> (qrels, run, evaluate options, relstring spec)
CONFIGS = {
    "out.test.aq": ("qrels.test", "results.test", {}, "relstring"),
    "out.test.aql": ("qrels.rel_level", "results.test", {"relevance_level": 2}, "relstring.20"),
    "out.test.aqc": ("qrels.test", "results.trunc", {"complete": True}, "relstring"),
    "out.test.aqcM": ("qrels.test", "results.trunc", {"complete": True, "depth": 100}, "relstring"),
}


def _expected(name: str) -> dict[tuple[str, str], str]:
    out = {}
    for line in (SUITE / name).read_text().splitlines():
        label, qid, value = (part.strip() for part in line.split("\t"))
        out[label, qid] = value
    return out


@pytest.mark.parametrize("expected_file", list(CONFIGS))
def test_trec_eval_conformance(expected_file):
    qrels_name, run_name, options, relstring = CONFIGS[expected_file]
    want = _expected(expected_file)
    specs = [relstring if s == "relstring" else s for s in TREC_SPECS]
    labelled = [pair for spec in specs for pair in parse_trec(spec)]
    measures = [m for _, m in labelled]
    qrels, run = SUITE / qrels_name, SUITE / run_name
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        prep = prepare(qrels, run, measures, **options)
        wide = per_query_wide(prep, warn=False)
        summary = rf.evaluate(qrels, run, measures, **options)
    means = dict(zip(summary["measure"], summary["value"], strict=True))
    checked = 0
    for label, measure in labelled:
        for row in wide.select("query_id", repr(measure)).iter_rows():
            qid, value = row
            got = f"'{value}'" if measure.DTYPE == pl.String else f"{value:.4f}"
            assert got == want[label, qid], (label, qid)
            checked += 1
        if measure.AGGREGATE != "none":
            assert f"{means[repr(measure)]:.4f}" == want[label, "all"], label
            checked += 1
    assert checked == len([k for k in want if k[0] in {lab for lab, _ in labelled}])


def test_trec_names_map_to_measures():
    cases = {
        "binG": [("binG", binG())],
        "G": [("G", G())],
        "G.1=3,2=9": [("G_1=3,2=9", G(gains={1: 3, 2: 9}))],
        "ndcg_rel": [("ndcg_rel", nDCG_rel())],
        "Rndcg.1=2": [("Rndcg_1=2", RnDCG(gains={1: 2}))],
        "dcg": [("dcg", DCG())],
        "ideal_dcg.2=5": [("ideal_dcg_2=5", IDCG(gains={2: 5}))],
        "rbp": [("rbp", RBP(p=0.9))],
        "rbp.p=0.8,2=1": [("rbp_p=0.8,2=1", RBP(p=0.8, gains={2: 1}))],
        "rbp_resid": [("rbp_resid", RBPResidual(p=0.9))],
        "unj": [(f"unj_{k}", Unjudged(cutoff=k)) for k in (5, 10, 20)],
        "relstring": [("relstring", RelString(cutoff=10))],
        "relstring.20": [("relstring_20", RelString(cutoff=20))],
    }
    for spec, expected in cases.items():
        assert parse_trec(spec) == expected, spec


def test_names_round_trip():
    cases = {
        "Judged@10": Judged(cutoff=10),
        "Unjudged@5": Unjudged(cutoff=5),
        "ERR@20": ERR(cutoff=20),
        "RBP(p=0.9,rel=2)@10": RBP(p=0.9, rel=2, cutoff=10),
        "RBPResidual(p=0.5)": RBPResidual(p=0.5),
        "nDCG_rel(gains={1: 3.0})": nDCG_rel(gains={1: 3}),
        "RnDCG": RnDCG(),
        "DCG(dcg='exp-log2')@10": DCG(dcg="exp-log2", cutoff=10),
        "IDCG@3": IDCG(cutoff=3),
        "RelString@20": RelString(cutoff=20),
        "HitRate@5": HitRate(cutoff=5),
        "Hits(rel=2)@3": Hits(rel=2, cutoff=3),
        "F1@5": F1(cutoff=5),
        # ranx dialect
        "rbp.95": RBP(p=0.95, rel=1),
        "rbp.8-l2": RBP(p=0.8, rel=2),
        "hit_rate@5": HitRate(cutoff=5),
        "hits@3-l2": Hits(rel=2, cutoff=3),
        "f1@5": F1(cutoff=5),
        "f1": F1(),
        "dcg@10": DCG(cutoff=10),
        "dcg_burges@10": DCG(dcg="exp-log2", cutoff=10),
        "err@10": ERR(cutoff=10),
    }
    for spec, expected in cases.items():
        assert parse_measure(spec) == [expected], spec
        assert parse_measure(repr(expected)) == [expected], repr(expected)


def test_rbp_rejects_rel_with_gains():
    with pytest.raises(rf.RankframeError, match="either rel= .* or gains="):
        RBP(rel=1, gains={1: 2})


# --------------------------------------------------------------------------- pure-Python oracle
NONPOOL, UNJUDGED = -1, -2  # trec_eval's codes for a document without a judgment


def _levels(pairs: dict[int, float], grades: list[int]) -> list[tuple[float, int]]:
    """(gain, count) of each gain level, by increasing gain (trec_eval's setup_gains)."""
    levels = {k: [v, 0] for k, v in pairs.items()}
    judged = [g for g in grades if g >= 0]
    for level in range(max(judged) + 1 if judged else 0):
        levels.setdefault(level, [float(level), 0])
    for g in judged:
        levels[g][1] += 1
    return sorted(((gain, count) for gain, count in levels.values()), key=lambda x: x[0])


def _gain_of(code: int, pairs: dict[int, float], grades: list[int]) -> float:
    if code >= 0:
        return pairs.get(code, float(code))
    return pairs.get(code, 0.0)


class _Ideal:
    """Walks the ideal ranking: ``next()`` gives the ideal gain at the next position."""

    def __init__(self, levels):
        self.levels = levels
        self.cur = len(levels) - 1
        self.gain = levels[-1][0] if levels else 0.0
        self.seen = 0

    def next(self) -> float:
        self.seen += 1
        while self.cur >= 0 and self.seen > self.levels[self.cur][1]:
            self.seen = 1
            self.cur -= 1
            self.gain = self.levels[self.cur][0] if self.cur >= 0 else 0.0
        return self.gain


def oracle(codes, grades, pairs, level):
    """trec_eval's binG, G, ndcg_rel, Rndcg and rbp for one query, loop by loop."""
    gains = [_gain_of(c, pairs, grades) for c in codes]
    levels = _levels(pairs, grades)
    num_rel = sum(g >= level for g in grades)
    n = len(codes)
    out = {}
    # binG
    total, hits = 0.0, 0
    for i, c in enumerate(codes):
        if c >= level:
            hits += 1
            total += 1 / math.log2(2 + i + 1 - hits)
    out["binG"] = total / num_rel if hits else 0.0
    # G
    ideal, got, sum_got, sum_ideal, cost, i = _Ideal(levels), 0.0, 0.0, 0.0, 0.0, 0
    while i < n and ideal.gain > 0:
        sum_got += gains[i]
        gi = ideal.next()
        sum_ideal += gi if gi > 0 else 0.0
        cost += max(gi, 1.0)
        if gains[i] != 0:
            got += gains[i] / math.log2(2 + cost - sum_got)
        i += 1
    while i < n:
        sum_got += gains[i]
        cost += 1.0
        if gains[i] != 0:
            got += gains[i] / math.log2(2 + cost - sum_got)
        i += 1
    while ideal.gain > 0:
        gi = ideal.next()
        sum_ideal += gi if gi > 0 else 0.0
    out["G"] = got / sum_ideal if sum_ideal > 0 else 0.0
    # ndcg_rel
    ideal, dcg, idcg, total, nrel, nret, i = _Ideal(levels), 0.0, 0.0, 0.0, 0, 0, 0
    while i < n and ideal.gain > 0:
        dcg += gains[i] / math.log2(i + 2)
        gi = ideal.next()
        if gi > 0:
            nrel += 1
            idcg += gi / math.log2(i + 2)
        if gains[i] > 0:
            total += dcg / idcg if idcg > 0 else 0.0  # trec_eval: x / 0 (gain map naming -1)
            nret += 1
        i += 1
    while i < n:
        dcg += gains[i] / math.log2(i + 2)
        if gains[i] > 0:
            total += dcg / idcg if idcg > 0 else 0.0
            nret += 1
        i += 1
    while ideal.gain > 0:
        gi = ideal.next()
        if gi > 0:
            nrel += 1
            idcg += gi / math.log2(i + 2)
        i += 1
    if nrel:
        total += (nrel - nret) * dcg / idcg
    out["ndcg_rel"] = total / nrel if total > 0 and nrel else 0.0  # trec_eval: x / 0 if nrel == 0
    # Rndcg
    if num_rel == 0:
        out["Rndcg"] = 0.0
    else:
        ideal, dcg, idcg, total, count, i = _Ideal(levels), 0.0, 0.0, 0.0, 0, 0
        old = ideal.gain
        while i < n and ideal.gain > 0:
            gi = ideal.next()
            if gi != old:
                if idcg > 0:
                    total, count = total + dcg / idcg, count + 1
                old = gi
            dcg += gains[i] / math.log2(i + 2)
            idcg += gi / math.log2(i + 2) if gi > 0 else 0.0
            i += 1
        if i < n:
            while i < n:
                dcg += gains[i] / math.log2(i + 2)
                i += 1
            if idcg > 0:
                total, count = total + dcg / idcg, count + 1
        while ideal.gain > 0:
            gi = ideal.next()
            if gi != old:
                if idcg > 0:
                    total, count = total + dcg / idcg, count + 1
                old = gi
            idcg += gi / math.log2(i + 2) if gi > 0 else 0.0
            i += 1
        out["Rndcg"] = total / count if count else 0.0  # trec_eval: 0/0 when count == 0
    # rbp (p = 0.9), gains rescaled into [0, 1] over the declared levels
    all_gains = [gain for gain, _ in levels] + [pairs[k] for k in pairs if k < 0]
    low, high = (min(all_gains), max(all_gains)) if all_gains else (0.0, 0.0)
    declared = {k for k in pairs} | set(range(max([g for g in grades if g >= 0], default=-1) + 1))
    total = 0.0
    for i, c in enumerate(codes):
        g = gains[i] if c in declared else 0.0
        if c in declared and (low < 0 or high > 1):
            g = (g - low) / (high - low)
        total += g * 0.9**i
    out["rbp"] = 0.1 * total
    return out


def _random_query(rnd: random.Random, qid: str):
    docs = [f"d{i:02d}" for i in range(rnd.randint(1, 25))]
    qrels, run = [], []
    for d in docs:
        if rnd.random() < 0.7:
            qrels.append((qid, d, rnd.choice([-1, 0, 0, 0, 1, 1, 2, 3])))
    if not qrels:
        qrels.append((qid, "zz", rnd.randint(0, 3)))
    retrieved = rnd.sample(docs, rnd.randint(0, len(docs)))
    scores = rnd.sample(range(1000), len(retrieved))
    run = [(qid, d, float(s)) for d, s in zip(retrieved, scores, strict=True)]
    return qrels, run


GAIN_MAPS = [{}, {1: 3.0, 2: 9.0}, {0: 1.0, 3: 0.5}, {2: -1.0, 5: 4.0}, {1: 0.0, 2: 0.0, 3: 0.0}, {-1: 0.5}]


@pytest.mark.parametrize("pairs", GAIN_MAPS, ids=[str(p) for p in GAIN_MAPS])
@pytest.mark.parametrize("level", [1, 2])
def test_gain_measures_match_the_loop_oracle(pairs, level):
    rnd = random.Random(f"{sorted(pairs.items())}{level}")
    qrels, run = [], []
    for q in range(25):
        qq, rr = _random_query(rnd, f"q{q:02d}")
        qrels += qq
        run += rr
    qf = pl.DataFrame(qrels, schema=["query_id", "doc_id", "relevance"], orient="row")
    rf_ = pl.DataFrame(run, schema=["query_id", "doc_id", "score"], orient="row")
    gains = pairs or None
    measures = {
        "binG": binG(),
        "G": G(gains=gains),
        "ndcg_rel": nDCG_rel(gains=gains),
        "Rndcg": RnDCG(gains=gains),
        "rbp": RBP(p=0.9, gains=gains),
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = rf.evaluate(
            qf, rf_, list(measures.values()), per_query=True, relevance_level=level, complete=True
        )
    got_map = {(r["query_id"], r["measure"]): r["value"] for r in got.iter_rows(named=True)}
    judged = {(q, d): g for q, d, g in qrels}
    for q in sorted({q for q, _, _ in qrels}):
        ranking = sorted((r for r in run if r[0] == q), key=lambda r: (-r[2], r[1]))
        codes = []
        for _, d, _ in ranking:
            g = judged.get((q, d))
            codes.append(NONPOOL if g is None else UNJUDGED if g < 0 else g)
        grades = [g for (qq, _), g in judged.items() if qq == q]
        want = oracle(codes, grades, pairs, level)
        for name, m in measures.items():
            assert got_map[q, repr(m)] == pytest.approx(want[name], abs=1e-12), (q, name, codes)


@pytest.mark.parametrize("p", [0.5, 0.8, 0.9, 0.99])
def test_rbp_residual_matches_an_exact_sum_relatively(p):
    # against exact rational arithmetic, relative error: tiny residuals included (only deep
    # documents unjudged), where a difference from 1 would lose every digit
    rnd = random.Random(f"resid{p}")
    qrels, run, want = [], [], {}
    for q in range(40):
        deep = q % 4 == 0  # everything judged but the last two of 60
        qid, n = f"q{q:02d}", 60 if deep else rnd.randint(0, 60)
        unjudged = {i for i in range(n) if (i >= n - 2 if deep else rnd.random() < 0.5)}
        for i in range(n):
            run.append((qid, f"d{i:02d}", float(1000 - i)))
            if i not in unjudged or rnd.random() < 0.3:  # some unjudged ones are grade -1
                qrels.append((qid, f"d{i:02d}", -1 if i in unjudged else rnd.randint(0, 2)))
        qrels.append((qid, "zz", 1))
        exact_p = Fraction(p)
        if unjudged:
            exact = exact_p**n + (1 - exact_p) * sum(exact_p**i for i in unjudged)
            want[qid] = exact
    qf = pl.DataFrame(qrels, schema=["query_id", "doc_id", "relevance"], orient="row")
    rf_ = pl.DataFrame(run, schema=["query_id", "doc_id", "score"], orient="row")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = rf.evaluate(qf, rf_, [RBPResidual(p=p)], per_query=True, complete=True)
    values = dict(zip(got["query_id"].to_list(), got["value"].to_list(), strict=True))
    if p <= 0.8:  # the tiny residuals are there
        assert any(v < 1e-5 for v in values.values() if v)
    for qid, value in values.items():
        if qid not in want:
            assert value == 0.0, qid
        else:
            assert abs(Fraction(value) - want[qid]) <= want[qid] * Fraction(1, 10**13), qid


# --------------------------------------------------------------------------- ir_measures
def _random_frames(seed: int, *, numeric_ids: bool = True):
    rnd = random.Random(seed)
    qrels, run = [], []
    for q in range(8):
        qid = str(100 + q) if numeric_ids else f"q{q}"
        docs = [f"D{i}" for i in range(rnd.randint(1, 30))]
        judged = [(qid, d, rnd.randint(-1, 4)) for d in docs if rnd.random() < 0.6]
        qrels += judged or [(qid, "ZZ", 1)]
        retrieved = rnd.sample(docs, rnd.randint(1, len(docs)))
        scores = rnd.sample(range(10_000), len(retrieved))  # distinct: no tie-break differences
        run += [(qid, d, float(s)) for d, s in zip(retrieved, scores, strict=True)]
    return qrels, run


def _compare_with_ir_measures(specs: list[str], seeds=range(5)):
    ir_measures = pytest.importorskip("ir_measures")
    compared = 0
    for seed in seeds:
        qrels, run = _random_frames(seed)
        qf = pl.DataFrame(qrels, schema=["query_id", "doc_id", "relevance"], orient="row")
        rf_ = pl.DataFrame(run, schema=["query_id", "doc_id", "score"], orient="row")
        ours = rf.evaluate(qf, rf_, specs, per_query=True)
        ours_map = {(r["query_id"], r["measure"]): r["value"] for r in ours.iter_rows(named=True)}
        theirs = ir_measures.iter_calc(
            [ir_measures.parse_measure(s) for s in specs],
            [ir_measures.Qrel(*q) for q in qrels],
            [ir_measures.ScoredDoc(*r) for r in run],
        )
        for metric in theirs:
            name = repr(parse_measure(str(metric.measure))[0])
            assert ours_map[metric.query_id, name] == pytest.approx(metric.value, abs=1e-5)
            compared += 1
    assert compared > 0


def test_judged_matches_ir_measures():
    _compare_with_ir_measures(["Judged@5", "Judged@10", "Judged"])


@pytest.mark.skipif(shutil.which("perl") is None, reason="ir_measures' ERR runs gdeval.pl (perl)")
def test_err_matches_ir_measures_gdeval():
    _compare_with_ir_measures(["ERR@5", "ERR@20"])


def test_binary_rbp_matches_ir_measures_cwl_eval():
    pytest.importorskip("cwl", reason="ir_measures' RBP(rel=...) runs cwl-eval")
    _compare_with_ir_measures(["RBP(rel=1)", "RBP(rel=2,p=0.9)", "RBP(rel=1,p=0.5)"])


# --------------------------------------------------------------------------- hand-computed
def _frames(qrels: dict, run: dict) -> tuple[pl.DataFrame, pl.DataFrame]:
    qf = pl.DataFrame(
        [(q, d, g) for q, docs in qrels.items() for d, g in docs.items()],
        schema=["query_id", "doc_id", "relevance"],
        orient="row",
    )
    rf_ = pl.DataFrame(
        [(q, d, float(s)) for q, docs in run.items() for d, s in docs.items()],
        schema={"query_id": pl.String, "doc_id": pl.String, "score": pl.Float64},
        orient="row",
    )
    return qf, rf_


def _per_query(qrels: dict, run: dict, specs: list[str], **options) -> dict[tuple[str, str], float]:
    qf, rf_ = _frames(qrels, run)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = rf.evaluate(qf, rf_, specs, per_query=True, **options)
    return {(r["query_id"], r["measure"]): r["value"] for r in out.iter_rows(named=True)}


# rel by rank, q1: 1, 0, 1, 0, 0 (3 relevant judged); q2: 0, 0 (1 relevant, never retrieved)
HAND_QRELS = {"q1": {"a": 1, "b": 0, "c": 2, "z": 1}, "q2": {"x": 1, "a": 0}}
HAND_RUN = {"q1": {"a": 5, "b": 4, "c": 3, "d": 2, "e": 1}, "q2": {"a": 2, "b": 1}}
HAND = {
    ("q1", "HitRate@1"): 1.0,
    ("q2", "HitRate@1"): 0.0,
    ("q1", "HitRate(rel=2)@2"): 0.0,
    ("q1", "HitRate(rel=2)@3"): 1.0,
    ("q1", "Hits@2"): 1.0,
    ("q1", "Hits@10"): 2.0,
    ("q2", "Hits@10"): 0.0,
    ("q1", "F1@2"): 2 * 1 / (2 + 3),  # P = 1/2, R = 1/3
    ("q1", "F1@10"): 2 * 2 / (10 + 3),  # ranx: P = 2/10 although 5 are retrieved
    ("q1", "F1"): 2 * 2 / (5 + 3),
    ("q2", "F1"): 0.0,
    ("q1", "Judged@2"): 1.0,
    ("q1", "Judged@10"): 3 / 5,
    ("q1", "Unjudged@10"): 2 / 10,
    ("q1", "RBP(p=0.5,rel=1)@2"): 0.5 * 1,
    ("q1", "RBP(p=0.5,rel=1)"): 0.5 * (1 + 0.25),
    ("q1", "RBP(p=0.5)"): 0.5 * (0.5 + 1 * 0.25),  # grades / 2
    ("q1", "RBPResidual(p=0.5)"): 0.5**5 + 0.5 * (0.5**3 + 0.5**4),
    ("q2", "RBPResidual(p=0.5)"): 0.5**2 + 0.5 * 0.5,
    ("q1", "ERR@3"): 1 / 16 + (15 / 16) * (3 / 16) / 3,
}


def test_hand_computed_values():
    got = _per_query(HAND_QRELS, HAND_RUN, sorted({m for _, m in HAND}))
    for key, value in HAND.items():
        assert got[key] == pytest.approx(value, abs=1e-12), key


def test_relstring_characters():
    qrels = {"q1": {"a": 12, "b": 0, "c": -1, "d": 3}}
    run = {"q1": {"a": 5, "b": 4, "c": 3, "e": 2, "d": 1}}
    qf, rf_ = _frames(qrels, run)
    wide = per_query_wide(prepare(qf, rf_, ["RelString@4", "RelString@0", "RelString"]))
    assert wide.row(0) == ("q1", ">0.-", "", ">0.-3")


def test_unjudged_counts_padding_and_judged_does_not():
    qrels = {"q1": {"a": 1}}
    run = {"q1": {"a": 2, "b": 1}}
    got = _per_query(qrels, run, ["Unjudged@10", "Judged@10", "Unjudged", "Judged"])
    assert got["q1", "Unjudged@10"] == 0.1
    assert got["q1", "Judged@10"] == 0.5
    assert got["q1", "Unjudged"] == 0.5
    assert got["q1", "Judged"] == 0.5


def test_empty_ranking_scores_zero():
    qrels = {"q1": {"a": 1}, "q2": {"a": 2}}
    run = {"q1": {"a": 1.0}}
    specs = [
        "binG",
        "G",
        "nDCG_rel",
        "RnDCG",
        "DCG",
        "RBP(rel=1)",
        "RBPResidual",
        "Unjudged@5",
        "Judged@5",
        "ERR@5",
        "HitRate@5",
        "Hits@5",
        "F1@5",
        "F1",
    ]
    got = _per_query(qrels, run, specs, complete=True)
    for spec in specs:
        name = repr(parse_measure(spec)[0])
        assert got["q2", name] == 0.0, spec


# --------------------------------------------------------------------------- peer libraries
def _peer_case(case_id: str) -> dict:
    cases = {c["id"]: c for c in json.loads(PEER.read_text())["cases"]}
    return cases[case_id]


def test_ranx_rbp_values():
    case = _peer_case("ranx/rbp")
    for expected in case["expected"]:
        p = expected["measure"].removeprefix("rbp(p=").removesuffix(")")
        spec = "rbp." + p.removeprefix("0.")  # ranx syntax, e.g. rbp.95
        got = _per_query(case["qrels"], case["runs"]["run"], [spec])
        (value,) = got.values()
        assert value == pytest.approx(expected["value"], abs=expected["tolerance"])


def test_ranx_f1_values():
    case = _peer_case("ranx/f1")
    got = _per_query(case["qrels"], case["runs"]["run"], ["f1"])
    for expected in case["expected"]:
        assert got[expected["query"], "F1"] == pytest.approx(expected["value"], abs=1e-9)


def test_ranx_zero_division_f1_mean():
    case = _peer_case("ranx/zero_division")
    qf, rf_ = _frames(case["qrels"], case["runs"]["run"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = rf.evaluate(qf, rf_, ["f1"], complete=True)
    assert out["value"].to_list() == [0.75]


def test_ranx_hits_values():
    case = _peer_case("ranx/evaluate_literals")
    got = _per_query(case["qrels"], case["runs"]["run"], ["hits@5", "hit_rate@5"])
    for expected in case["expected"]:
        if expected["measure"] == "hits@5":
            assert got[expected["query"], "Hits@5"] == expected["value"]
    assert got["a", "HitRate@5"] == 1.0
    assert got["c", "HitRate@5"] == 1.0


def test_ranx_dcg_values():
    case = _peer_case("ranx/dcg_ndcg")
    names = {"dcg@10": "DCG@10", "dcg_burges@10": "DCG(dcg='exp-log2')@10"}
    checked = 0
    for expected in case["expected"]:
        spec = expected["measure"].split(" ")[0]
        if spec not in names:
            continue
        run = {"q": case["runs"][expected["run"]]["q"]}
        got = _per_query(case["qrels"], run, [spec])
        assert got["q", names[spec]] == pytest.approx(expected["value"], abs=1e-9)
        checked += 1
    assert checked == 3


def test_ir_measures_gdeval_err_values():
    case = _peer_case("ir_measures/test_gdeval")
    got = _per_query(case["qrels"], case["runs"]["run"], ["ERR@20", "ERR@2"])
    for expected in case["expected"]:
        if not expected["measure"].startswith("ERR") or expected["query"] == "all":
            continue
        assert got[expected["query"], expected["measure"]] == pytest.approx(expected["value"], abs=5e-6)


def test_ir_measures_judged_values():
    case = _peer_case("ir_measures/test_judged")
    got = _per_query(case["qrels"], case["runs"]["run"], ["Judged", "Judged@3", "Judged@1"])
    for expected in case["expected"]:
        name = "Judged" if expected["measure"] == "Judged@all" else expected["measure"]
        assert got[expected["query"], name] == pytest.approx(expected["value"], abs=1e-9)
