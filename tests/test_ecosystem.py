"""The IR ecosystem's objects in rankframe's own API (issue 25): each gives the numbers of the
equivalent Polars frame.

pytrec_eval dicts, ir_measures ``Qrel``/``ScoredDoc`` records (lists and generators) and
measure objects, ranx ``Qrels``/``Run`` (real ranx objects; rankframe never imports ranx),
PyTerrier frames (``qid, docno, score``/``rank``; ``qid, docno, label``), pandas frames with
ir_measures' column names, and Arrow C streams (a DuckDB relation, a pyarrow
``RecordBatchReader``), on hypothesis-drawn data: score ties, graded, 0 and -1 labels, queries
on one side only, relevance levels 1 and 2.
"""

from __future__ import annotations

import warnings
from typing import Any

import duckdb
import ir_measures
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import rankframe as rf
from rankframe._io.ecosystem import is_nested_dict, resolve_runs

ranx = pytest.importorskip("ranx")  # in the test extra: never skipped in CI

MEASURES = ["nDCG@10", "P@5", "AP", "RR", "R@5", "Bpref", "infAP", "Rprec", "NumRelRet", "SetF"]

Q = st.sampled_from(["q1", "q2", "q3", "q10"])
D = st.sampled_from(["d1", "d2", "d3", "d9", "d10", "d11"])


@st.composite
def dicts(draw: Any) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    """pytrec_eval dicts: ties, -1/0/graded labels, queries in one dict only."""
    qrels = draw(st.dictionaries(Q, st.dictionaries(D, st.integers(-1, 3), min_size=1), min_size=1))
    run = draw(st.dictionaries(Q, st.dictionaries(D, st.sampled_from([0.5, 1.0, 2.0, -3.25]), min_size=1),
                               min_size=1))
    return qrels, run


def _frames(qrels: dict, run: dict) -> tuple[pl.DataFrame, pl.DataFrame]:
    q = pl.DataFrame(
        [(qid, doc, rel) for qid, docs in qrels.items() for doc, rel in docs.items()],
        schema={"query_id": pl.String, "doc_id": pl.String, "relevance": pl.Int64}, orient="row",
    )
    r = pl.DataFrame(
        [(qid, doc, s) for qid, docs in run.items() for doc, s in docs.items()],
        schema={"query_id": pl.String, "doc_id": pl.String, "score": pl.Float64}, orient="row",
    )
    return q, r


def _evaluate(qrels: Any, run: Any, measures: Any = MEASURES, **kw: Any) -> pl.DataFrame:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rf.RankframeWarning)
        return rf.evaluate(qrels, run, measures, per_query=True, **kw)


def _records(qrels: dict, run: dict) -> tuple[list, list]:
    q = [ir_measures.Qrel(qid, doc, rel) for qid, docs in qrels.items() for doc, rel in docs.items()]
    r = [ir_measures.ScoredDoc(qid, doc, s) for qid, docs in run.items() for doc, s in docs.items()]
    return q, r


def _pyterrier(qrels: dict, run: dict, *, ranks_only: bool) -> tuple[pd.DataFrame, pd.DataFrame]:
    q, r = _frames(qrels, run)
    labels = q.rename({"query_id": "qid", "doc_id": "docno", "relevance": "label"}).to_pandas()
    res = r.rename({"query_id": "qid", "doc_id": "docno"}).with_columns(
        # PyTerrier's rank: 0-based, by score then doc id descending (rankframe's tie order)
        pl.struct(pl.col("score"), pl.col("docno")).rank("ordinal", descending=True).over("qid")
        .sub(1).alias("rank"),
        pl.lit("query text").alias("query"),
        pl.int_range(pl.len()).alias("docid"),  # PyTerrier's internal integer id rides along
    )
    if ranks_only:
        res = res.drop("score")
    return labels, res.to_pandas()


def _arrow_reader(frame: pl.DataFrame) -> pa.RecordBatchReader:
    table = frame.to_arrow()
    return pa.RecordBatchReader.from_batches(table.schema, table.to_batches(max_chunksize=3))


FORMS = ["pytrec_eval dicts", "records", "record generators", "ir_measures pandas", "pyterrier",
         "pyterrier ranks", "duckdb relation", "arrow reader"]


def _as(form: str, qrels: dict, run: dict, con: duckdb.DuckDBPyConnection) -> tuple[Any, Any]:
    qf, rf_ = _frames(qrels, run)
    if form == "pytrec_eval dicts":
        return qrels, run
    if form == "records":
        return _records(qrels, run)
    if form == "record generators":
        q, r = _records(qrels, run)
        return iter(q), (x for x in r)
    if form == "ir_measures pandas":
        return qf.to_pandas(), rf_.to_pandas()
    if form in ("pyterrier", "pyterrier ranks"):
        return _pyterrier(qrels, run, ranks_only=form == "pyterrier ranks")
    if form == "duckdb relation":
        con.register("qrels_df", qf.to_arrow())
        con.register("run_df", rf_.to_arrow())
        return con.sql("SELECT * FROM qrels_df"), con.sql("SELECT * FROM run_df")
    return _arrow_reader(qf), _arrow_reader(rf_)


@given(dicts(), st.sampled_from([1, 2]), st.booleans())
@settings(max_examples=settings.default.max_examples * 15 // 20)
def test_every_form_equals_the_polars_frame(data, level, complete):
    qrels, run = data
    expected = _evaluate(*_frames(qrels, run), relevance_level=level, complete=complete)
    con = duckdb.connect()
    for form in FORMS:
        got = _evaluate(*_as(form, qrels, run, con), relevance_level=level, complete=complete)
        try:
            assert_frame_equal(got, expected, check_row_order=False)
        except AssertionError as exc:
            raise AssertionError(f"{form}: {exc}") from None


@given(dicts())
@settings(max_examples=settings.default.max_examples * 5 // 20)
def test_ranx_objects_equal_the_polars_frame(data):
    qrels, run = data
    expected = _evaluate(*_frames(qrels, run))
    got = _evaluate(ranx.Qrels(qrels), ranx.Run(run, name="bm25"))
    assert_frame_equal(got, expected, check_row_order=False)


def test_a_list_of_ranx_runs_is_named_by_their_names():
    qrels = ranx.Qrels({"q1": {"d1": 1, "d2": 0}})
    runs = [ranx.Run({"q1": {"d1": 1.0, "d2": 2.0}}, name="bm25"),
            ranx.Run({"q1": {"d1": 2.0, "d2": 1.0}}, name="dense")]
    got = rf.evaluate(qrels, runs, ["RR"])
    assert got.rows() == [("bm25", "RR", 0.5), ("dense", "RR", 1.0)]


def test_ir_measures_measure_objects_are_measures():
    qrels, run = {"q1": {"d1": 2, "d2": 1}}, {"q1": {"d2": 2.0, "d1": 1.0, "d3": 0.5}}
    theirs = [ir_measures.nDCG @ 10, ir_measures.P(rel=2) @ 2, ir_measures.AP, ir_measures.R @ 1000,
              ir_measures.Judged @ 10, ir_measures.nDCG(dcg="exp-log2") @ 10, ir_measures.Success @ 1]
    ours = ["nDCG@10", "P(rel=2)@2", "AP", "R@1000", "Judged@10", "nDCG(dcg='exp-log2')@10", "Success@1"]
    assert_frame_equal(rf.evaluate(qrels, run, theirs), rf.evaluate(qrels, run, ours))
    one = rf.evaluate(qrels, run, ir_measures.nDCG @ 10)  # a single object, not in a list
    assert one["measure"].to_list() == ["nDCG@10"]


def test_ir_measures_measure_without_equivalent_is_named():
    # every ir_measures 0.4 family has an equivalent now: a measure of a later ir_measures
    unknown = type("_Later", (), {"__module__": "ir_measures.measures.later", "NAME": "Later",
                                  "__str__": lambda self: "Later@10"})()
    with pytest.raises(rf.MeasureError, match=r"Later@10 has no rankframe equivalent"):
        rf.evaluate({"q": {"d": 1}}, {"q": {"d": 1.0}}, [unknown])


def test_ir_measures_diversity_objects_are_measures():
    # ndeval's families (ir_measures' pyndeval provider) are rankframe's; MAP_IA is AP_IA
    got = rf.evaluate({"q": {"d": 1}}, {"q": {"d": 1.0}}, [ir_measures.alpha_nDCG @ 10, ir_measures.MAP_IA])
    assert got["measure"].to_list() == ["alpha_nDCG@10", "AP_IA"]


def test_dict_of_pytrec_eval_dicts_is_several_runs():
    qrels = {"q1": {"d1": 1}}
    runs = {"bm25": {"q1": {"d1": 1.0, "d2": 2.0}}, "dense": {"q1": {"d1": 3.0, "d2": 2.0}}}
    assert not is_nested_dict(runs)
    assert is_nested_dict(runs["bm25"])
    got = rf.evaluate(qrels, runs, ["RR"])
    assert got.rows() == [("bm25", "RR", 0.5), ("dense", "RR", 1.0)]
    table = rf.compare(qrels, runs, "RR")
    assert table.summary["run"].to_list() == ["bm25", "dense"]


def test_integer_ids_of_a_dict_stay_integers():
    run = resolve_runs({1: {10: 1.0, 9: 2.0}})
    assert run.collect_schema()["query_id"] == pl.Int64
    got = rf.evaluate({1: {10: 1}}, {1: {10: 1.0, 9: 1.0}}, ["RR"])  # a tie: "9" above "10"
    assert got["value"].to_list() == [0.5]


def test_bad_dict_values_name_the_query_and_document():
    with pytest.raises(rf.InputError, match=r"document 'd2' of query 'q2' is 'high'"):
        rf.evaluate({"q1": {"d1": 1}, "q2": {"d1": 0, "d2": "high"}}, {"q1": {"d1": 1.0}}, ["AP"])


def test_records_without_ids_are_refused_clearly():
    from collections import namedtuple

    Row = namedtuple("Row", "qid doc score")
    with pytest.raises(rf.InputError, match=r"need(s)? query_id and doc_id fields"):
        rf.read_run(iter([Row("q", "d", 1.0)]))


def test_an_unknown_object_lists_what_is_accepted():
    with pytest.raises(rf.InputError, match=r"Cannot read run from a object object.*ranx Qrels/Run"):
        rf.read_run(object())


def test_decimal_scores_of_a_duckdb_relation_are_read():
    con = duckdb.connect()
    run = con.sql("SELECT 'q' AS qid, 'd' || i AS docno, i * 1.5 AS score FROM range(3) t(i)")
    assert run.types[2] != "DOUBLE"  # DuckDB's DECIMAL
    got = rf.evaluate({"q": {"d1": 1}}, run, ["RR"])
    assert got["value"].to_list() == [0.5]


def test_empty_rankings_and_empty_dicts_are_typed():
    assert rf.read_qrels({"q1": {}}).collect_schema()["doc_id"] == pl.String
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rf.RankframeWarning)
        got = rf.evaluate({"q1": {"d1": 1}}, {"q1": {}}, ["AP", "NumRet"], complete=True)
    assert got["value"].to_list() == [0.0, 0.0]


def test_fractional_grades_of_a_dict_are_refused_not_truncated():
    with pytest.raises(rf.InputError, match=r"grade 1.5 of \('q1', 'd1'\) is not an integer"):
        rf.evaluate({"q1": {"d1": 1.5}}, {"q1": {"d1": 1.0}}, ["AP"])
