"""The C/W/L measures (INST, INSQ, BPM, SDCG, NERR8-11) against cwl_eval itself.

cwl_eval (``cwl-eval``, the C/W/L framework's reference implementation, as ir_measures runs it:
gains in [0, 1], rankings padded and cut at 1000 ranks) scores each drawn ranking through its own
``Ranking`` and metric classes; rankframe must give the same expected rate of gain to 1e-12.
ir_measures' expected values for its cwl_eval provider (``tests/test_cwl_eval.py`` of
terrierteam/ir_measures @ dc04a88f, on its ``cwl.qrels`` / ``cwl.run``, copied in
``tests/data/peer_tests/ir_measures/tests/``) are checked literally.
"""

from __future__ import annotations

import logging
import math
import warnings
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import rankframe as rf

cwl_ranking = pytest.importorskip("cwl.ruler.ranking", reason="cwl-eval is not installed")
from cwl.ruler.measures import (  # noqa: E402
    cwl_ap,
    cwl_bpm,
    cwl_dcg,
    cwl_insq,
    cwl_inst,
    cwl_nerr,
    cwl_precision,
    cwl_rbp,
    cwl_rr,
)

from rankframe._measures.cwl import CWL_FORMS, EXPECTATIONS  # noqa: E402

logging.getLogger("cwl").disabled = True  # cwl_eval logs every vector at debug level

PEER = Path(__file__).resolve().parent / "data" / "peer_tests" / "ir_measures" / "tests"

METRICS = {
    "INST": lambda p: cwl_inst.INSTCWLMetric(p["T"]),
    "INSQ": lambda p: cwl_insq.INSQCWLMetric(p["T"]),
    "BPM": lambda p: cwl_bpm.BPMCWLMetric(p["T"], p["cutoff"]),
    "SDCG": lambda p: cwl_dcg.NDCGCWLMetric(p["cutoff"]),
    "NERR8": lambda p: cwl_nerr.NERReq8CWLMetric(p["cutoff"]),
    "NERR9": lambda p: cwl_nerr.NERReq9CWLMetric(p["cutoff"]),
    "NERR10": lambda p: cwl_nerr.NERReq10CWLMetric(p["p"]),
    "NERR11": lambda p: cwl_nerr.NERReq11CWLMetric(p["T"]),
}


#: cwl_eval's classes of the forms of trec_eval's measures that its provider computes.
FORMS = {
    "P": lambda p: cwl_precision.PrecisionCWLMetric(p["cutoff"]),
    "RR": lambda p: cwl_rr.RRCWLMetric(),
    "AP": lambda p: cwl_ap.APCWLMetric(),
    "RBP": lambda p: cwl_rbp.RBPCWLMetric(p["p"]),
}


def cwl_value(name: str, params: dict, gains: list[float], expect: str = "EU") -> float:
    """cwl_eval's expectation ``expect`` on one ranking (gains in rank order, unjudged = NaN)."""
    ranking = cwl_ranking.Ranking("q", np.array(gains, dtype=float), np.full(len(gains), np.nan))
    metric = {**METRICS, **FORMS}[name](params)
    metric.measure(ranking)
    return metric.get_scores()[EXPECTATIONS.index(expect)]


def rankframe_value(spec: object, grades: list[int | None], extra_judged: int) -> float:
    """rankframe's value of ``spec`` on a ranking of documents d0, d1... with these grades."""
    docs = [f"d{i:04d}" for i in range(len(grades))]
    judged = [(d, g) for d, g in zip(docs, grades, strict=True) if g is not None]
    # relevant, never retrieved (at least one judgment: a query without any is no query)
    judged += [(f"x{i}", 1) for i in range(max(extra_judged, not judged))]
    qrels = pl.DataFrame(
        {"query_id": ["q"] * len(judged), "doc_id": [d for d, _ in judged],
         "relevance": [g for _, g in judged]},
        schema={"query_id": pl.String, "doc_id": pl.String, "relevance": pl.Int64},
    )
    run = pl.DataFrame(
        {"query_id": ["q"] * len(docs), "doc_id": docs,
         "score": [float(len(docs) - i) for i in range(len(docs))]},
        schema={"query_id": pl.String, "doc_id": pl.String, "score": pl.Float64},
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # an empty run: the query is scored by complete=True
        return rf.evaluate(qrels, run, [spec], complete=True)["value"][0]


@st.composite
def cases(draw: st.DrawFn) -> dict:
    name = draw(st.sampled_from(sorted(METRICS)))
    params: dict = {
        "T": draw(st.sampled_from([0.5, 1.0, 2.0, 3.5])),
        "p": draw(st.sampled_from([0.5, 0.8, 0.9])),
    }
    params["cutoff"] = draw(st.integers(1, 30))
    max_rel = draw(st.integers(1, 4))
    min_rel = draw(st.integers(0, max_rel - 1))
    length = draw(st.one_of(st.integers(0, 40), st.just(1005)))
    grades = draw(st.lists(st.one_of(st.none(), st.integers(-2, 5)), min_size=length, max_size=length))
    return {"name": name, "params": params, "min_rel": min_rel, "max_rel": max_rel, "grades": grades,
            "extra": draw(st.integers(0, 2)), "expect": draw(st.sampled_from(EXPECTATIONS))}


def spec_of(c: dict) -> str:
    name, p = c["name"], c["params"]
    own = {"INST": ["T"], "INSQ": ["T"], "BPM": ["T"], "NERR10": ["p"], "NERR11": ["T"]}.get(name, [])
    parts = [f"{k}={p[k]}" for k in own] + [f"min_rel={c['min_rel']}", f"max_rel={c['max_rel']}"]
    if c.get("expect", "EU") != "EU":
        parts.append(f"expect='{c['expect']}'")
    cutoff = f"@{p['cutoff']}" if name in ("BPM", "SDCG", "NERR8", "NERR9") else ""
    return f"{name}({','.join(parts)}){cutoff}"


def gains_of(c: dict) -> list[float]:
    low, high = c["min_rel"], c["max_rel"]
    return [
        float("nan") if g is None else (min(max(max(g, 0), low), high) - low) / (high - low)
        for g in c["grades"]
    ]


@settings(max_examples=settings.default.max_examples * 5)
@given(c=cases())
@example(c={"name": "INST", "params": {"T": 1.0, "p": 0.9, "cutoff": 5}, "min_rel": 0, "max_rel": 1,
            "grades": [], "extra": 1})  # nothing retrieved: 0
@example(c={"name": "BPM", "params": {"T": 2.0, "p": 0.9, "cutoff": 3}, "min_rel": 1, "max_rel": 3,
            "grades": [3, 3, 3, 3], "extra": 0})  # all relevant: the gain stops the user
@example(c={"name": "NERR11", "params": {"T": 1.0, "p": 0.9, "cutoff": 3}, "min_rel": 0, "max_rel": 2,
            "grades": [None, -1, 2, 1] * 300, "extra": 0})  # past the depth of 1000
def test_matches_cwl_eval(c: dict) -> None:
    want = cwl_value(c["name"], c["params"], gains_of(c), c.get("expect", "EU"))
    got = rankframe_value(spec_of(c), c["grades"], c["extra"])
    assert math.isclose(got, want, rel_tol=1e-12, abs_tol=1e-12), (spec_of(c), got, want)


@settings(max_examples=settings.default.max_examples * 2)
@given(
    name=st.sampled_from(sorted(FORMS)),
    cutoff=st.integers(1, 30),
    p=st.sampled_from([0.5, 0.8, 0.95]),
    rel=st.integers(1, 3),
    expect=st.sampled_from(EXPECTATIONS),
    grades=st.lists(st.one_of(st.none(), st.integers(-2, 4)), max_size=40),
)
@example(name="AP", cutoff=1, p=0.8, rel=1, expect="EU", grades=[0, 1, None, 1, -1, 0, 1])
@example(name="RR", cutoff=1, p=0.8, rel=2, expect="ETU", grades=[])  # nothing retrieved
def test_cwl_eval_forms_of_trec_measures_match_cwl_eval(
    name: str, cutoff: int, p: float, rel: int, expect: str, grades: list[int | None]
) -> None:
    # ir_measures' cwl_eval provider: binary gains, 1 where the grade (negative as 0) >= rel
    gains = [float("nan") if g is None else float(max(g, 0) >= rel) for g in grades]
    want = cwl_value(name, {"cutoff": cutoff, "p": p}, gains, expect)
    params = {"cutoff": cutoff} if name == "P" else {"p": p} if name == "RBP" else {}
    measure = CWL_FORMS[name](**params, rel=rel, expect=expect)
    got = rankframe_value(measure, grades, 0)
    assert math.isclose(got, want, rel_tol=1e-12, abs_tol=1e-12), (measure, got, want)


def test_precision_as_cwl_eval_adds_it() -> None:
    # three relevant in the top 5: W_i = 1/5 each, 0.2 + 0.2 + 0.2 = 0.6000000000000001 (ir_measures'
    # test_providers.py expects that float); ETU 3 gains, EC 5 * 0.2, ETC and EI 5 documents
    values = [
        rankframe_value(CWL_FORMS["P"](cutoff=5, expect=e), [0, 1, 1, 1, 0], 0) for e in EXPECTATIONS
    ]
    assert values == [0.6000000000000001, 3.0, 1.0, 5.0, 5.0]


# ir_measures' tests/test_cwl_eval.py: "based on a manual execution of cwl-eval"
IR_MEASURES_EXPECTED = {
    "BPM(T=1.0,max_rel=1)@20": (1.0000, 1.0000, 0.1667),
    "BPM(T=2.0,max_rel=1)@10": (0.6667, 1.0000, 0.2857),
    "INSQ(T=1.0,max_rel=1)": (0.5872, 0.6629, 0.0880),
    "INSQ(T=2.0,max_rel=1)": (0.4513, 0.5068, 0.1292),
    "INST(T=1.0,max_rel=1)": (0.7934, 0.9226, 0.0888),
    "INST(T=2.0,max_rel=1)": (0.5994, 0.6924, 0.1397),
    "SDCG(max_rel=1)@10": (0.5645, 0.6531, 0.2848),
    "NERR8(max_rel=1)@10": (1.0000, 1.0000, 0.1667),
    "NERR9(max_rel=1)@10": (1.0000, 1.0000, 0.0680),
    "NERR10(p=0.8,max_rel=1)": (1.0000, 1.0000, 0.0888),
    "NERR11(T=2.0,max_rel=1)": (1.0000, 1.0000, 0.0691),
}


@pytest.mark.parametrize("spec", sorted(IR_MEASURES_EXPECTED))
def test_ir_measures_expected_values(spec: str) -> None:
    got = rf.evaluate(PEER / "cwl.qrels", PEER / "cwl.run", [spec], per_query=True).sort("query_id")
    assert got["query_id"].to_list() == ["T1", "T2", "T3"]
    assert got["value"].to_list() == pytest.approx(IR_MEASURES_EXPECTED[spec], abs=1e-4)


def test_max_rel_defaults_to_binary_gains() -> None:
    assert rf.parse_measure("INST(max_rel=1)") == rf.parse_measure("INST")
    got = rankframe_value("INST", [3, 0, 2], 0)
    assert got == rankframe_value("INST", [1, 0, 1], 0)
    assert got != rankframe_value("INST(max_rel=3)", [3, 0, 2], 0)


def test_names_round_trip() -> None:
    specs = ["INST(T=2.0,max_rel=3)", "BPM@10", "SDCG(min_rel=1,max_rel=4)@5", "NERR10(p=0.5)"]
    for spec in specs:
        [measure] = rf.parse_measure(spec)
        assert repr(measure) == spec
        assert rf.parse_measure(repr(measure)) == [measure]


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("BPM(max_rel=3)", r"BPM needs a cutoff after '@', e.g. 'BPM\(max_rel=3\)@10'"),
        ("NERR8", r"NERR8 needs a cutoff after '@'"),
        ("SDCG(min_rel=2,max_rel=2)@5", r"'max_rel' parameter of SDCG must be greater than min_rel \(2\)"),
        ("INSQ(T=0,max_rel=1)", r"'T' parameter of INSQ must be a float > 0"),
        ("NERR10(p=1.5,max_rel=1)", r"'p' parameter of NERR10 must be a float in \[0, 1\]"),
    ],
)
def test_bad_parameters_are_one_line_errors(spec: str, message: str) -> None:
    with pytest.raises(rf.MeasureError, match=message):
        rf.parse_measure(spec)
