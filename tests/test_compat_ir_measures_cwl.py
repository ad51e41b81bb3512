"""The drop-in's cwl_eval provider against ir_measures' own (with cwl-eval installed).

ir_measures' cwl_eval provider reports a ``CwlMetric`` per query the run holds: the value
(cwl_eval's expected utility per document) and the C/W/L framework's other expectations
(expected total utility, cost per document, total cost, documents looked at); a judged query
the run lacks is a plain ``Metric`` of 0. The drop-in computes every field through rankframe's
C/W/L family (its ``expect`` parameter; P, RR, AP and RBP in cwl_eval's C/W/L forms) and must
report the same records to 1e-12, on drawn judgments (graded, negative, unjudged documents) and
runs (ties in the run's own order, as ir_measures sorts them; queries missing on either side).
"""

from __future__ import annotations

import logging
import warnings

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import rankframe as rf
import rankframe.compat.ir_measures as dropin

ir_measures = pytest.importorskip("ir_measures", reason="ir_measures is not installed")
pytest.importorskip("cwl", reason="cwl-eval is not installed")
logging.getLogger("cwl").disabled = True
logging.getLogger("ir_measures.cwl_eval").disabled = True  # its warnings on the grade scale

DOCS = ("a", "b", "c", "d", "e", "f")
SCORES = (0.5, 1.0, 1.0, 2.0, 3.0)
#: The measures of ir_measures' cwl_eval test, by their names (parsed by each library).
MEASURES = (
    "P@1", "P@5", "P(rel=2)@3", "RR", "RR(rel=2)", "AP", "RBP(rel=1)", "RBP(p=0.5,rel=2)",
    "BPM(T=2.0,max_rel=1)@10", "INSQ(T=1.0,max_rel=3)", "INST(T=2.0,max_rel=2)",
    "SDCG(max_rel=3)@5", "NERR8(max_rel=1)@3", "NERR9(max_rel=2)@10", "NERR10(p=0.8,max_rel=1)",
    "NERR11(T=2.0,max_rel=3)",
)


@st.composite
def judged_runs(draw: st.DrawFn) -> tuple[list, list]:
    qrels, run = [], []
    for qid in draw(st.lists(st.sampled_from(("q1", "q2", "q3")), min_size=1, max_size=3, unique=True)):
        for d in draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=5, unique=True)):
            qrels.append(ir_measures.Qrel(qid, d, draw(st.sampled_from((-1, 0, 1, 2, 3)))))
    for qid in draw(st.lists(st.sampled_from(("q1", "q2", "q4")), max_size=3, unique=True)):
        for d in draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=6, unique=True)):
            run.append(ir_measures.ScoredDoc(qid, d, draw(st.sampled_from(SCORES))))
    return qrels, run


def _records(provider: object, measure: object, qrels: list, run: list) -> dict:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rf.RankframeWarning)
        records = provider.iter_calc([measure], qrels, run)
        return {(m.query_id, type(m).__name__): tuple(m[2:]) for m in records}


@settings(max_examples=min(settings.default.max_examples, 40), deadline=None)
@given(data=judged_runs(), name=st.sampled_from(MEASURES))
@example(data=([ir_measures.Qrel("q1", "a", 1)], [ir_measures.ScoredDoc("q1", "a", 1.0)]), name="AP")
@example(
    data=(
        [ir_measures.Qrel("q1", d, g) for d, g in zip("abcde", (0, 1, 1, 1, 0), strict=True)],
        [ir_measures.ScoredDoc("q1", d, 1.0) for d in "edcba"],  # all ties: the run's order
    ),
    name="P@5",
)
def test_cwl_eval_records_match_ir_measures(data: tuple[list, list], name: str) -> None:
    qrels, run = data
    want = _records(ir_measures.cwl_eval, ir_measures.parse_measure(name), qrels, run)
    got = _records(dropin.cwl_eval, dropin.parse_measure(name), qrels, run)
    assert got.keys() == want.keys()
    for key, fields in want.items():
        assert got[key] == pytest.approx(fields, rel=1e-12, abs=1e-12), key


def test_the_records_of_ir_measures_test_providers() -> None:
    # ir_measures' test_providers.py: three relevant in the top 5 of query 0, query 1 not run
    qrels = [dropin.Qrel("0", d, g) for d, g in (("D0", 0), ("D1", 1), ("D2", 1), ("D3", 2), ("D4", 0))]
    qrels += [dropin.Qrel("1", "D0", 1)]
    scores = (("D0", 0.8), ("D2", 0.7), ("D1", 0.3), ("D3", 0.4), ("D4", 0.1))
    run = [dropin.ScoredDoc("0", d, s) for d, s in scores]
    p5 = dropin.P @ 5
    assert set(dropin.cwl_eval.iter_calc([p5], qrels, run)) == {
        dropin.CwlMetric("0", p5, 0.6000000000000001, 3.0, 1.0, 5.0, 5.0),
        dropin.Metric("1", p5, 0.0),
    }
    assert dropin.cwl_eval.calc_aggregate([p5], qrels, run) == {p5: 0.30000000000000004}
