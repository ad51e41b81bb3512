"""Measure names: the three dialects, canonical names that round-trip, and the errors.

Expectations are dicts of string -> expected object (ir_measures' ``test_util.py``), so a
reader checks each line by eye.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

import rankframe as rf
from rankframe._measures import REGISTRY, Measure
from rankframe._measures._names import NICKNAMES, parse_trec

#: The test data that travels with the tests (origin and licence: tests/data/README.md).
TEST_DATA = Path(__file__).resolve().parent / "data"

M = REGISTRY  # M["nDCG"](cutoff=10) reads like the name it stands for

# ----------------------------------------------------------------------------- ir_measures
IR_MEASURES: dict[str, Measure] = {
    "nDCG@10": M["nDCG"](cutoff=10),
    "nDCG": M["nDCG"](),
    "P@5": M["P"](cutoff=5),
    "P(rel=2)@5": M["P"](rel=2, cutoff=5),
    "AP(rel=2)": M["AP"](rel=2),
    "AP@100": M["AP"](cutoff=100),
    "nDCG(dcg='exp-log2')@10": M["nDCG"](dcg="exp-log2", cutoff=10),
    'nDCG(dcg="exp-log2")@10': M["nDCG"](dcg="exp-log2", cutoff=10),
    "nDCG(gains={0:1,1:4})": M["nDCG"](gains={0: 1, 1: 4}),
    "nDCG(judged_only=True)@3": M["nDCG"](judged_only=True, cutoff=3),
    "R@100": M["R"](cutoff=100),
    "R(rel=2)@1000": M["R"](rel=2, cutoff=1000),
    "RR": M["RR"](),
    "RR(rel=2)@10": M["RR"](rel=2, cutoff=10),
    "NumRet(rel=1)": M["NumRet"](rel=1),
    "NumQ": M["NumQ"](),
    "Rprec": M["Rprec"](),
    "IPrec@0.1": M["IPrec"](cutoff=0.1),
    "SetF(beta=0.5)": M["SetF"](beta=0.5),
    "Success@10": M["Success"](cutoff=10),
    "RBP(p=0.9)": M["RBP"](p=0.9),
    "ERR@20": M["ERR"](cutoff=20),
    "Judged@10": M["Judged"](cutoff=10),
    "infAP": M["infAP"](),
    "Bpref": M["Bpref"](),
    # spaces around the parts are tolerated
    "  P(rel=2)@5 ": M["P"](rel=2, cutoff=5),
    "P( rel = 2 )@5": M["P"](rel=2, cutoff=5),
}

# ----------------------------------------------------------------------------- trec_eval
TREC_EVAL: dict[str, list[Measure]] = {
    "ndcg_cut.5,10": [M["nDCG"](cutoff=5), M["nDCG"](cutoff=10)],
    "ndcg_cut_5,10": [M["nDCG"](cutoff=5), M["nDCG"](cutoff=10)],
    "P_5": [M["P"](cutoff=5)],
    "P.5": [M["P"](cutoff=5)],
    "P.10,5": [M["P"](cutoff=5), M["P"](cutoff=10)],  # sorted, as trec_eval prints them
    "map": [M["AP"]()],
    "gm_map": [M["GMAP"]()],
    "map_cut.100": [M["AP"](cutoff=100)],
    "recip_rank": [M["RR"]()],
    "recall.1000": [M["R"](cutoff=1000)],
    "iprec_at_recall_0.10": [M["IPrec"](cutoff=0.1)],
    "iprec_at_recall.0.10": [M["IPrec"](cutoff=0.1)],
    "ndcg_cut.23.4": [M["nDCG"](cutoff=23)],  # atol("23.4") == 23
    "num_q": [M["NumQ"]()],
    "num_rel_ret": [M["NumRelRet"]()],
    "Rprec": [M["Rprec"]()],
    "bpref": [M["Bpref"]()],
    "set_P": [M["SetP"]()],
    "ndcg": [M["nDCG"]()],
}
#: trec_eval 10's default cutoff lists.
DEFAULT_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
RECALL_POINTS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
#: trec_eval 10's ``official`` set: num_q ... P_1000 (its ``runid`` is not a measure).
OFFICIAL = [
    M["NumQ"](),
    M["NumRet"](),
    M["NumRel"](),
    M["NumRelRet"](),
    M["AP"](),
    M["GMAP"](),
    M["Rprec"](),
    M["Bpref"](),
    M["RR"](),
    *[M["IPrec"](cutoff=x) for x in RECALL_POINTS],
    *[M["P"](cutoff=k) for k in DEFAULT_CUTOFFS],
]

# ----------------------------------------------------------------------------- ranx
RANX: dict[str, Measure] = {
    "ndcg@10": M["nDCG"](cutoff=10),
    "ndcg_burges@10": M["nDCG"](dcg="exp-log2", cutoff=10),
    "map@100": M["AP"](cutoff=100),
    "precision@5": M["P"](cutoff=5),
    "precision@5-l2": M["P"](rel=2, cutoff=5),
    "recall@100": M["R"](cutoff=100),
    "mrr@10": M["RR"](cutoff=10),
    "rbp.95": M["RBP"](p=0.95, rel=1),  # ranx's RBP is binary
    "hit_rate@5": M["HitRate"](cutoff=5),
    "hits@5": M["Hits"](cutoff=5),
    "f1@5": M["F1"](cutoff=5),
    "r-precision": M["Rprec"](),
}


@pytest.mark.parametrize(("name", "expected"), list(IR_MEASURES.items()))
def test_ir_measures_names(name: str, expected: Measure) -> None:
    assert rf.parse_measure(name) == [expected]


@pytest.mark.parametrize(("name", "expected"), list(TREC_EVAL.items()))
def test_trec_eval_names(name: str, expected: list[Measure]) -> None:
    assert rf.parse_measure(name) == expected
    assert [m for _, m in parse_trec(name)] == expected


@pytest.mark.parametrize(("name", "expected"), list(RANX.items()))
def test_ranx_names(name: str, expected: Measure) -> None:
    assert rf.parse_measure(name) == [expected]


def test_official_nickname() -> None:
    assert rf.parse_measure("official") == OFFICIAL


def test_trec_eval_defaults() -> None:
    assert [m for _, m in parse_trec("P")] == [M["P"](cutoff=k) for k in DEFAULT_CUTOFFS]
    assert [m for _, m in parse_trec("ndcg_cut")] == [M["nDCG"](cutoff=k) for k in DEFAULT_CUTOFFS]
    assert [m for _, m in parse_trec("iprec_at_recall")] == [M["IPrec"](cutoff=x) for x in RECALL_POINTS]
    assert [m for _, m in parse_trec("success")] == [M["Success"](cutoff=k) for k in (1, 5, 10)]


def test_trec_eval_labels() -> None:
    # the labels trec_eval prints, in its order
    assert parse_trec("ndcg_cut.10,5") == [
        ("ndcg_cut_5", M["nDCG"](cutoff=5)),
        ("ndcg_cut_10", M["nDCG"](cutoff=10)),
    ]
    assert parse_trec("iprec_at_recall.0.1") == [("iprec_at_recall_0.10", M["IPrec"](cutoff=0.1))]
    assert parse_trec("map") == [("map", M["AP"]())]


MEAS_PARAMS_OUT = TEST_DATA / "trec_eval_test" / "out.test.meas_params"
#: The -m arguments of trec_eval's meas_params test (Makefile), one spec each.
MEAS_PARAMS_SPECS = [
    "iprec_at_recall..10,.20,.25,.75,.50",
    "P.5,7,3",
    "recall.20,2000",
    "Rprec_mult.5.0,0.2,0.35",
    "utility.2,-1,0,0",
    "11pt_avg..25,.5,.75",
    "ndcg.1=3,2=9,4=4.5",
    "ndcg_cut.10,20,23.4",
    "success.2,5,20",
]


def test_labels_of_trec_eval_meas_params_test() -> None:
    # trec_eval 10's out.test.meas_params: the labels it prints for these parameter strings
    printed = {line.split()[0] for line in MEAS_PARAMS_OUT.read_text().splitlines() if line.strip()}
    ours = {label for spec in MEAS_PARAMS_SPECS for label, _ in parse_trec(spec)}
    assert ours == printed - {"runid"}


def test_parse_measure_accepts_objects_and_dedupes_in_order() -> None:
    p5 = M["P"](cutoff=5)
    assert rf.parse_measure(p5) == [p5]
    from rankframe._measures._names import parse_measures

    assert parse_measures(["P@5", "P_5", "ndcg_cut.5", "nDCG@5", p5]) == [p5, M["nDCG"](cutoff=5)]


# ----------------------------------------------------------------------------- round trips
SAMPLE_VALUES: dict[str, list[Any]] = {
    # per parameter kind, values tried in turn; those a family rejects are not used
    "int": [5, 2, 1],
    "float": [0.5, 0.25, 2.0],
    "str": ["exp-log2", "log2"],
    "bool": [True],
    "gains": [{0: 1, 1: 4}, {1: 2.5, 2: 9}],
    "floats": [(0.25, 0.5), (0.5,)],
}


def variants(cls: type[Measure]) -> list[Measure]:
    """The family with default parameters (if allowed) and each parameter set on its own."""
    required: dict[str, Any] = {}
    try:
        out = [cls()]
    except rf.MeasureError:
        out = []
        cutoff = next(p for p in cls.PARAMS if p.name == "cutoff")
        required = {"cutoff": 10 if cutoff.kind == "int" else 0.5}
        out.append(cls(**required))
    for p in cls.PARAMS:
        for value in SAMPLE_VALUES.get(p.kind, []):
            try:
                m = cls(**{**required, p.name: value})
            except rf.MeasureError:
                continue
            if m not in out:
                out.append(m)
                break
    everything = dict(required)
    for p in cls.PARAMS:
        for value in SAMPLE_VALUES.get(p.kind, []):
            try:
                cls(**{**everything, p.name: value})
            except rf.MeasureError:
                continue
            everything[p.name] = value
            break
    try:
        out.append(cls(**everything))
    except rf.MeasureError:
        pass  # some parameters exclude each other
    return out


ROUND_TRIP = [m for _, cls in sorted(REGISTRY.items()) for m in variants(cls)]


@pytest.mark.parametrize("measure", ROUND_TRIP, ids=repr)
def test_repr_round_trips(measure: Measure) -> None:
    name = repr(measure)
    assert rf.parse_measure(name) == [measure]
    assert repr(rf.parse_measure(name)[0]) == name
    assert hash(rf.parse_measure(name)[0]) == hash(measure)


def test_every_family_round_trips() -> None:
    assert {type(m) for m in ROUND_TRIP} == set(REGISTRY.values())


def test_repr_leaves_defaults_out() -> None:
    assert repr(M["P"](cutoff=5)) == "P@5"
    assert repr(M["P"](rel=2, cutoff=5)) == "P(rel=2)@5"
    assert repr(M["nDCG"](dcg="log2", cutoff=10)) == "nDCG@10"
    assert repr(M["AP"]()) == "AP"


# ----------------------------------------------------------------------------- errors
UNKNOWN: dict[str, str] = {
    # typo -> a valid name the message must suggest
    "nDGC@10": "nDCG",
    "ndcg_cutt.10": "ndcg_cut",
    "precison@5": "precision",
    "recip_rnak": "recip_rank",
    "mapp": "map",
}


@pytest.mark.parametrize(("name", "suggestion"), list(UNKNOWN.items()))
def test_unknown_names_suggest_close_matches(name: str, suggestion: str) -> None:
    with pytest.raises(rf.MeasureError) as info:
        rf.parse_measure(name)
    message = str(info.value)
    assert repr(name.split("@")[0]) in message or repr(name) in message
    assert "Did you mean" in message
    assert repr(suggestion) in message.split("Valid measure names")[0], message


MALFORMED: list[str] = [
    "",
    "   ",
    "P(rel=2@5",  # unbalanced parenthesis
    "P(2)@5",  # positional parameter
    "P(rel=)@5",
    "P(foo=1)@5",  # no such parameter
    "P@abc",
    "P@5@6",
    "nDCG(dcg=exp-log2)@10",  # an expression, not a value (ir_measures rejects it too)
    "nDCG(dcg='cubic')@10",  # not a dcg variant
    "P(rel=1.5)@5",
    "P.5,,10",
    "P.five",
    "map.5",  # takes no parameters
    "ndcg.1=",
    "ndcg.=3",
]
BAD_VALUES: list[str] = [
    "P@0",  # k = 0
    "P@-1",
    "P@1.5",
    "nDCG@0",
    "ndcg_cut.0",
    "P.5,5",  # duplicate cutoffs
    "RBP(p=0)",  # persistence outside (0, 1)
    "RBP(p=1)",
    "RBP(p=1.5)",
    "RBP(p=-0.2)",
    "IPrec@nan",
    "SetF(beta=inf)",
]


@pytest.mark.parametrize("name", MALFORMED)
def test_malformed_names_raise(name: str) -> None:
    with pytest.raises(rf.MeasureError):
        rf.parse_measure(name)


@pytest.mark.parametrize("name", BAD_VALUES)
def test_bad_values_raise(name: str) -> None:
    with pytest.raises(rf.MeasureError):
        rf.parse_measure(name)


def test_bad_values_raise_from_objects_too() -> None:
    with pytest.raises(rf.MeasureError, match="'cutoff' parameter of P must be an int >= 1. Got 0"):
        M["P"](cutoff=0)
    with pytest.raises(rf.MeasureError):
        M["P"](cutoff=True)
    with pytest.raises(rf.MeasureError):
        M["P"](cutoff=math.inf)
    with pytest.raises(rf.MeasureError):
        M["P"](rel="two")


def test_non_string_specs_raise() -> None:
    for spec in (5, None, ["P@5"], {"P": 5}):
        with pytest.raises(rf.MeasureError):
            rf.parse_measure(spec)  # type: ignore[arg-type]


def test_measure_error_is_a_value_error() -> None:
    assert issubclass(rf.MeasureError, rf.RankframeError)
    assert issubclass(rf.MeasureError, ValueError)


def test_every_trec_nickname_parses() -> None:
    for nickname in NICKNAMES:
        assert rf.parse_measure(nickname)
