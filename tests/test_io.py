"""Readers: every input kind, column mapping and id dtype gives the same numbers.

The reference is ``evaluate`` on the TREC text files of ``data/`` (TREC DL 2019 passage qrels and
a BM25 run); every other source is the same data converted in ``tmp_path``.
"""

from __future__ import annotations

import gzip
import warnings
from pathlib import Path

import pandas as pd
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import rankframe as rf
from rankframe._io.trec_text import read_trec_qrels, read_trec_run

DATA = Path(__file__).resolve().parent.parent / "data"
QRELS, RUN = DATA / "qrels.dl19-passage.txt", DATA / "run.dl19.bm25.txt"
MEASURES = ["AP", "nDCG@10", "P@10", "RR", "R@100", "Rprec"]

#: The test data that travels with the tests (origin and licence: tests/data/README.md).
TEST_DATA = Path(__file__).resolve().parent / "data"
#: trec_eval's test/ folder at tag v10.0 (tests/data/trec_eval_test/README.md).
SUITE = TEST_DATA / "trec_eval_test"


def _values(result: pl.DataFrame) -> dict[str, float]:
    return dict(zip(result["measure"], result["value"], strict=True))


def _evaluate(qrels: object, run: object, **kw: object) -> dict[str, float]:
    return _values(rf.evaluate(qrels, run, MEASURES, **kw))


@pytest.fixture(scope="module")
def reference() -> dict[str, float]:
    return _evaluate(str(QRELS), str(RUN))


@pytest.fixture(scope="module")
def frames() -> tuple[pl.DataFrame, pl.DataFrame]:
    """The sample as canonical frames with string ids (as TREC text gives them)."""
    qrels = rf.read_qrels(QRELS).select("query_id", "doc_id", "relevance").collect()
    run = rf.read_run(RUN).select("query_id", "doc_id", "score").collect()
    return qrels, run


def _write(df: pl.DataFrame, kind: str, folder: Path, role: str) -> object:
    """``df`` converted to the input kind ``kind`` (a path or an in-memory object)."""
    folder.mkdir(parents=True, exist_ok=True)
    base = folder / role
    value = "relevance" if role == "qrels" else "score"
    if kind == "trec":
        return QRELS if role == "qrels" else RUN
    if kind == "trec.gz":
        src = QRELS if role == "qrels" else RUN
        path = base.with_suffix(".txt.gz")
        path.write_bytes(gzip.compress(src.read_bytes()))
        return path
    if kind == "parquet":
        df.write_parquet(base.with_suffix(".parquet"))
        return str(base.with_suffix(".parquet"))
    if kind == "parquet glob":
        (folder / role).mkdir(exist_ok=True)
        half = df.height // 2
        df[:half].write_parquet(folder / role / "part-0.parquet")
        df[half:].write_parquet(folder / role / "part-1.parquet")
        return str(folder / role / "*.parquet")
    if kind == "parquet hive":
        df.write_parquet(folder / f"{role}_hive", partition_by="query_id")
        return folder / f"{role}_hive"
    if kind == "csv":
        df.write_csv(base.with_suffix(".csv"))
        return str(base.with_suffix(".csv"))
    if kind == "csv.gz":
        path = base.with_suffix(".csv.gz")
        path.write_bytes(gzip.compress(df.write_csv().encode()))
        return path
    if kind == "tsv":
        df.write_csv(base.with_suffix(".tsv"), separator="\t")
        return base.with_suffix(".tsv")
    if kind == "ipc":
        df.write_ipc(base.with_suffix(".arrow"))
        return base.with_suffix(".arrow")
    if kind == "arrow table":
        return df.to_arrow()
    if kind == "arrow dataset":
        import pyarrow.dataset as ds

        return ds.dataset(df.to_arrow())
    if kind == "pandas":
        return df.to_pandas()
    if kind == "polars":
        return df
    if kind == "lazy":
        return df.lazy()
    if kind == "renamed":  # well-known names instead of the canonical ones
        names = {"query_id": "qid", "doc_id": "docno", value: "rel" if role == "qrels" else "sim"}
        return df.rename(names)
    raise AssertionError(kind)


KINDS = [
    "trec",
    "trec.gz",
    "parquet",
    "parquet glob",
    "parquet hive",
    "csv",
    "csv.gz",
    "tsv",
    "ipc",
    "arrow table",
    "arrow dataset",
    "pandas",
    "polars",
    "lazy",
    "renamed",
]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("side", ["qrels", "run", "both"])
def test_every_input_kind_gives_the_reference_numbers(kind, side, frames, reference, tmp_path):
    qrels_df, run_df = frames
    qrels = _write(qrels_df, kind, tmp_path, "qrels") if side != "run" else str(QRELS)
    run = _write(run_df, kind, tmp_path, "run") if side != "qrels" else str(RUN)
    assert _evaluate(qrels, run) == pytest.approx(reference, rel=1e-12)


@pytest.mark.parametrize("kind", ["polars", "parquet", "csv", "parquet hive"])
def test_integer_ids_give_the_same_numbers_as_strings(kind, frames, reference, tmp_path):
    qrels_df, run_df = (df.with_columns(pl.col("query_id", "doc_id").cast(pl.Int64)) for df in frames)
    qrels = _write(qrels_df, kind, tmp_path, "qrels")
    run = _write(run_df, kind, tmp_path, "run")
    lf = rf.read_run(run)
    assert lf.collect_schema()["doc_id"].is_integer()  # integers are kept as integers
    assert _evaluate(qrels, run) == pytest.approx(reference, rel=1e-12)


def test_integer_run_against_string_qrels_aligns_ids(frames, reference):
    qrels_df, run_df = frames
    run_int = run_df.with_columns(pl.col("query_id", "doc_id").cast(pl.Int64))
    assert _evaluate(qrels_df, run_int) == pytest.approx(reference, rel=1e-12)
    qrels_int = qrels_df.with_columns(pl.col("query_id", "doc_id").cast(pl.Int32))
    assert _evaluate(qrels_int, run_df) == pytest.approx(reference, rel=1e-12)
    assert _evaluate(qrels_int, run_int) == pytest.approx(reference, rel=1e-12)


@pytest.mark.parametrize("dtype", [pl.String, pl.Int64, pl.UInt32, pl.Categorical])
def test_integer_doc_ids_break_ties_in_byte_order_of_their_text(dtype):
    # All scores tie: trec_eval orders by doc id descending in *byte* order of the text,
    # so "9" > "80" > "700" > "10" > "100": the ranking is 9, 80, 700, 100, 10.
    docs = [10, 100, 9, 700, 80]
    run = pl.DataFrame({"query_id": [1] * 5, "doc_id": docs, "score": [1.0] * 5})
    qrels = pl.DataFrame({"query_id": [1] * 2, "doc_id": [9, 100], "relevance": [1, 1]})
    run = run.with_columns(pl.col("query_id", "doc_id").cast(pl.String).cast(dtype))
    qrels = qrels.with_columns(pl.col("query_id", "doc_id").cast(pl.String).cast(dtype))
    got = _values(rf.evaluate(qrels, run, ["P@1", "P@2", "P@4", "RR", "AP"]))
    # rel by rank = 1, 0, 0, 1, 0
    assert got == pytest.approx({"P@1": 1.0, "P@2": 0.5, "P@4": 0.5, "RR": 1.0, "AP": (1 + 2 / 4) / 2})


def test_column_mapping_with_custom_names(frames, reference):
    qrels_df, run_df = frames
    qrels = qrels_df.rename({"query_id": "Q", "doc_id": "D", "relevance": "GRADE"})
    run = run_df.rename({"query_id": "Q", "doc_id": "D", "score": "bm25"}).with_columns(
        pl.lit(0.0).alias("score")  # an unrelated column that is also named 'score' is replaced
    )
    cols_q = {"query_id": "Q", "doc_id": "D", "relevance": "GRADE"}
    cols_r = {"query_id": "Q", "doc_id": "D", "score": "bm25"}
    got = _evaluate(qrels, run, qrels_columns=cols_q, run_columns=cols_r)
    assert got == pytest.approx(reference, rel=1e-12)
    assert rf.read_run(run, columns=cols_r).collect_schema().names()[:3] == ["query_id", "doc_id", "score"]


@pytest.mark.parametrize(
    ("qrels_names", "run_names"),
    [
        (("qid", "docno", "rel"), ("qid", "docno", "sim")),
        (("topic", "docid", "label"), ("topic", "docid", "prediction")),
        (("query", "pid", "grade"), ("query", "pid", "score")),
        (("QID", "DocNo", "Relevance"), ("QueryId", "DOC_ID", "Score")),  # case-insensitive
        (("query-id", "corpus-id", "target"), ("query-id", "corpus-id", "pred")),  # BEIR
    ],
)
def test_well_known_column_names(qrels_names, run_names, frames, reference):
    qrels_df, run_df = frames
    qrels = qrels_df.rename(dict(zip(qrels_df.columns, qrels_names, strict=True)))
    run = run_df.rename(dict(zip(run_df.columns, run_names, strict=True)))
    assert _evaluate(qrels, run) == pytest.approx(reference, rel=1e-12)


def test_judged_frame_is_first_class(frames, reference, tmp_path):
    qrels_df, run_df = frames
    # One table: retrieved rows carry a score (null relevance = unjudged), judged rows that were
    # not retrieved carry a null score.
    judged = run_df.join(qrels_df, on=["query_id", "doc_id"], how="full", coalesce=True)
    judged = judged.filter(pl.col("query_id").is_in(run_df["query_id"].implode()))
    assert judged["score"].null_count() > 0
    assert judged["relevance"].null_count() > 0
    for source in (judged, judged.lazy(), judged.to_pandas(), judged.to_arrow()):
        got = _values(rf.evaluate(judged=source, measures=MEASURES))
        assert got == pytest.approx(reference, rel=1e-12)
    path = tmp_path / "judged.parquet"
    judged.rename({"score": "sim", "relevance": "label"}).write_parquet(path)
    assert _values(rf.evaluate(judged=path, measures=MEASURES)) == pytest.approx(reference, rel=1e-12)
    assert rf.read_judged(path).collect_schema().names()[:4] == ["query_id", "doc_id", "score", "relevance"]


def test_trec_run_tag_is_not_a_run_column():
    lf = rf.read_run(RUN)
    assert lf.collect_schema().names() == ["query_id", "doc_id", "score", "run_tag", "line_no"]
    assert lf.select(pl.col("run_tag").unique()).collect().item() == "rank"
    assert "run" not in rf.evaluate(QRELS, RUN, ["AP"]).columns  # one system, not several


def test_several_runs_as_list_and_dict(reference, tmp_path):
    splade = _evaluate(str(QRELS), str(DATA / "run.dl19.splade.txt"))
    res = rf.evaluate(QRELS, {"bm25": RUN, "splade": DATA / "run.dl19.splade.txt"}, MEASURES)
    for name, expected in (("bm25", reference), ("splade", splade)):
        assert _values(res.filter(pl.col("run") == name).drop("run")) == pytest.approx(expected)
    run_int = rf.read_run(RUN).with_columns(pl.col("doc_id").cast(pl.Int64)).collect()
    res = rf.evaluate(QRELS, [RUN, run_int], MEASURES)  # string and integer doc ids, aligned
    assert sorted(res["run"].unique()) == ["run.dl19.bm25.txt", "run_1"]
    for part in res.partition_by("run", include_key=False):
        assert _values(part) == pytest.approx(reference)


# ---------------------------------------------------------------------------------------------
# TREC text details
# ---------------------------------------------------------------------------------------------

RUN_LINES = [
    ("q1", "d1", 3.5),
    ("q1", "d2", 2.0),
    ("q2", "d#1", 1.0),
]


@pytest.mark.parametrize(
    "text",
    [
        "q1 Q0 d1 1 3.5 tag\nq1 Q0 d2 2 2.0 tag\nq2 Q0 d#1 1 1.0 tag\n",  # spaces (fast path)
        "q1\tQ0\td1\t1\t3.5\ttag\t\nq1\tQ0\td2\t2\t2.0\ttag\t\nq2\tQ0\td#1\t1\t1.0\ttag\t\n",  # tabs
        "q1 \tQ0  d1\t1   3.5 tag\nq1\tQ0\td2 2 \t 2.0 tag\n  q2 Q0 d#1 1 1.0 tag\n",  # mixed
        "q1 Q0 d1 1 3.5 tag junk\nq1 Q0 d2 2 2.0 tag more junk\nq2 Q0 d#1 1 1.0 tag\n",  # extra
        "q1 Q0 d1 1 3.5 tag\r\nq1 Q0 d2 2 2.0 tag\r\nq2 Q0 d#1 1 1.0 tag",  # CRLF, no final EOL
        "q1 Q0 d1 1 3.5 tag\n\nq1 Q0 d2 2 2.0 tag\n# comment\nq2 Q0 d#1 1 1.0 tag\n",  # blank+comment
    ],
    ids=["spaces", "tabs", "mixed", "extra-fields", "crlf", "blank-and-comment"],
)
def test_trec_run_whitespace_variants(text, tmp_path):
    path = tmp_path / "run.txt"
    path.write_text(text)
    got = read_trec_run(path).select("query_id", "doc_id", "score").collect()
    expected = pl.DataFrame(RUN_LINES, schema=["query_id", "doc_id", "score"], orient="row")
    assert_frame_equal(got, expected)


@pytest.mark.parametrize("fast", [True, False])
def test_trec_line_numbers_are_the_file_line_numbers(fast, tmp_path, monkeypatch):
    if not fast:
        monkeypatch.setattr("rankframe._io.trec_text._fast_fields", lambda *a: None)
    lines = ["", "# header comment", "q1 Q0 d1 1 3.5 t", "", "   ", "q1 Q0 d2 2 2.0 t", "#", "q2 Q0 d3 1 1 t"]
    path = tmp_path / "run.txt"
    path.write_text("\n".join(lines) + "\n")
    got = read_trec_run(path).select("doc_id", "line_no").collect()
    assert got.rows() == [("d1", 3), ("d2", 6), ("d3", 8)]
    regular = tmp_path / "regular.txt"
    regular.write_text("q1 Q0 d1 1 3.5 t\nq1 Q0 d2 2 2.0 t\n")
    assert read_trec_run(regular).select("line_no").collect().to_series().to_list() == [1, 2]


def test_hash_inside_a_field_is_data_and_hash_lines_are_comments(tmp_path):
    path = tmp_path / "qrels.txt"
    path.write_text("# a comment\n301 0 CR#93E-1860 1\n#301 0 skipped 1\n301 0 x#y 0\n")
    got = read_trec_qrels(path).collect()
    assert got["doc_id"].to_list() == ["CR#93E-1860", "x#y"]
    assert got["line_no"].to_list() == [2, 4]


def test_integral_decimal_grades_are_read_as_integers(tmp_path):
    path = tmp_path / "qrels.txt"
    path.write_text("1 0 a 1.0\n1 0 b -1\n1 0 c 2\n")
    assert read_trec_qrels(path).collect()["relevance"].to_list() == [1, -1, 2]


def test_comment_files_match_trec_eval_official_measures():
    """trec_eval's own test: MS MARCO v2.1 ids contain '#', which is not a comment there."""
    expected = {}
    for line in (SUITE / "out.comment.test").read_text().splitlines():
        name, _, value = line.split()
        expected[name] = value
    assert expected["runid"] == "comment.test"
    run = rf.read_run(SUITE / "results.comment.test")
    assert run.select(pl.col("run_tag").last()).collect().item() == expected.pop("runid")
    qrels = rf.read_qrels(SUITE / "qrels.comment.test")
    assert qrels.filter(pl.col("doc_id").str.contains("#")).select(pl.len()).collect().item() > 0
    names = list(expected)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = rf.evaluate(qrels, run, names)
    assert got.height == len(names)
    for name, value in zip(names, got["value"], strict=True):
        exp = expected[name]
        if "." in exp:
            assert f"{value:.4f}" == exp, name
        else:
            assert int(value) == int(exp), name
    assert float(expected["map"]) == 0.2689
    assert float(expected["P_10"]) == 0.7710
    # Only 31 of the run's 301 topics are judged: the others are ignored, with a warning.
    assert any("270 run queries have no judgments" in str(w.message) for w in caught)


def test_qrels_with_comment_lines_give_the_same_numbers():
    plain = rf.evaluate(SUITE / "qrels.test", SUITE / "results.test", ["official"])
    commented = rf.evaluate(SUITE / "qrels.test.with-comments", SUITE / "results.test", ["official"])
    assert_frame_equal(plain, commented)
    assert _values(plain)["AP"] == pytest.approx(0.1785, abs=5e-5)


# ---------------------------------------------------------------------------------------------
# Warnings about semantics that change the numbers
# ---------------------------------------------------------------------------------------------


def _messages(caught: list[warnings.WarningMessage]) -> list[str]:
    return [str(w.message) for w in caught if issubclass(w.category, rf.RankframeWarning)]


def test_warning_counts_missing_and_unjudged_queries(frames):
    qrels_df, run_df = frames
    queries = sorted(run_df["query_id"].unique())
    run = run_df.filter(~pl.col("query_id").is_in(queries[:2]))  # 2 judged queries not run
    extra = pl.DataFrame(
        {"query_id": ["x1", "x2", "x3", "x3"], "doc_id": ["a", "a", "a", "b"], "score": [1.0, 1.0, 1.0, 0.5]}
    )
    run = pl.concat([run, extra])  # 3 run queries without judgments
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rf.evaluate(qrels_df, run, ["AP"])
    msgs = _messages(caught)
    assert len(msgs) == 2
    assert msgs[0].startswith("2 judged queries are missing from the run (skipped")
    assert msgs[1] == "3 run queries have no judgments and are ignored."
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = rf.evaluate(qrels_df, run, ["AP"], complete=True, per_query=True)
    # complete=True (trec_eval -c) asked for their zeros: only the unjudged run queries are said
    assert _messages(caught) == ["3 run queries have no judgments and are ignored."]
    assert res.height == len(queries)
    # unless no judged query has results: every query scored 0 is then a mismatch of ids
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rf.evaluate(qrels_df, extra, ["AP"], complete=True)
    expected = f"{len(queries)} judged queries are missing from the run (scored 0"
    assert _messages(caught)[0].startswith(expected)
    assert "No judged query has results" in _messages(caught)[0]


def test_warning_counts_per_run_when_several_runs(frames):
    qrels_df, run_df = frames
    queries = sorted(run_df["query_id"].unique())
    runs = {"full": run_df, "partial": run_df.filter(pl.col("query_id") != queries[0])}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rf.evaluate(qrels_df, runs, ["AP"])
    msgs = _messages(caught)
    assert len(msgs) == 1
    assert msgs[0].startswith("1 judged query is missing from 1 of the 2 runs ('partial': 1) (skipped")
    assert msgs[0].endswith(f"e.g. query {queries[0]!r} in the run 'partial'.")
    # one run: named, no pairs or groups
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rf.evaluate(qrels_df, {"partial": runs["partial"]}, ["AP"])
    assert _messages(caught)[0].startswith("1 judged query is missing from the run 'partial' (skipped")


def test_warning_counts_per_breakdown_group():
    qrels = pl.DataFrame({"query_id": ["q1", "q2", "q3"], "doc_id": ["a", "b", "c"], "relevance": [1] * 3})
    run = pl.DataFrame(
        {
            "query_id": ["q1", "q2", "q1", "q4"],
            "doc_id": ["a", "b", "a", "z"],
            "score": [1.0] * 4,
            "date": ["d1", "d1", "d2", "d2"],
        }
    )
    # q3 is judged but no date group holds it (d1 holds q1 and q2, d2 holds q1; q4 is unjudged):
    # one query missing, not every query once per other date (a group's queries are its own)
    for complete, fate in ((False, "skipped"), (True, "scored 0")):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            rf.evaluate(qrels, run, ["AP"], by=["date"], complete=complete)
        own = "in a group of their own, with a null date"
        assert _messages(caught) == [
            f"1 judged query is in no (date) group of the run ({fate}"
            + (f"; pass complete=True (trec_eval -c) to score them 0 {own}" if not complete
               else f" {own} (complete=True)")
            + "), e.g. query 'q3'.",
            "1 run query has no judgments and is ignored.",
        ]


def test_warning_counts_in_a_judged_frame_with_several_runs():
    judged = pl.DataFrame(
        {
            "run": ["r1", "r1", "r2"],
            "query_id": ["q1", "q2", "q1"],
            "doc_id": ["a", "b", "a"],
            "score": [1.0, None, 1.0],
            "relevance": [1, 1, 1],
        }
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rf.evaluate(judged=judged, measures=["AP"])
    assert _messages(caught) == [
        "1 judged query is missing from 1 of the 2 runs ('r1': 1) (skipped; pass "
        "complete=True (trec_eval -c) to score them 0), e.g. query 'q2' in the run 'r1'."
    ]


def test_warning_hints_at_mismatched_query_ids(frames):
    qrels_df, run_df = frames
    run = run_df.with_columns(("topic-" + pl.col("query_id")).alias("query_id"))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rf.evaluate(qrels_df, run, ["AP"])
    n = qrels_df["query_id"].n_unique()
    msgs = _messages(caught)
    assert msgs[0].startswith(f"{n} judged queries are missing from the run")
    assert "check that the query ids of the qrels and the run match" in msgs[0]


def test_no_warning_when_run_and_qrels_cover_the_same_queries(frames):
    qrels_df, run_df = frames
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rf.evaluate(qrels_df, run_df, ["AP"])


def test_pandas_with_categorical_and_nullable_ids(frames, reference):
    qrels_df, run_df = frames
    run = run_df.to_pandas()
    run["query_id"] = run["query_id"].astype("category")
    qrels = qrels_df.to_pandas()
    qrels["relevance"] = qrels["relevance"].astype("Int64")
    assert isinstance(run, pd.DataFrame)
    assert _evaluate(qrels, run) == pytest.approx(reference, rel=1e-12)


def test_unsupported_source_type_is_rejected_clearly():
    with pytest.raises(rf.InputError, match="Cannot read run from a dict object"):
        rf.read_run({"query_id": ["q"], "doc_id": ["d"], "score": [1.0]})


# ----------------------------------------------------------------------------- duplicate rows
@settings(max_examples=settings.default.max_examples, deadline=None)
@given(
    rows=st.lists(
        st.tuples(st.sampled_from(["q1", "q2"]), st.sampled_from(["a", "b", "c"]),
                  st.integers(0, 4).map(float), st.sampled_from(["mon", "tue"])),
        min_size=1, max_size=25,
    ),
    by=st.booleans(),
)
def test_dedupe_keeps_the_best_or_the_first_row(rows, by) -> None:
    run = pl.DataFrame(rows, schema=["query_id", "doc_id", "score", "day"], orient="row")
    qrels = pl.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "c", "b"], "relevance": [1, 2, 1]})
    keys = ["day"] if by else []
    measures = ["RR", "nDCG@2", "P@1"]
    kw = {"by": keys or None, "per_query": True}
    # the oracles: the highest-scoring row of each pair, the first row of each pair
    pair = [*keys, "query_id", "doc_id"]
    others = [c for c in run.columns if c not in pair]
    best = run.group_by(pair, maintain_order=True).agg(pl.col("score").max(), *(
        pl.col(c).first() for c in others if c != "score"))
    first = run.group_by(pair, maintain_order=True).agg(pl.col(c).first() for c in others)
    for how, oracle in (("best", best), ("first", first)):
        want = rf.evaluate(qrels, oracle.select(run.columns), measures, **kw)
        got = rf.evaluate(qrels, run, measures, dedupe=how, **kw)
        assert_frame_equal(got, want)


def test_duplicates_are_counted_and_named_before_a_fix() -> None:
    run = pl.DataFrame({"query_id": [f"q{i}" for i in range(6) for _ in range(2)],
                        "doc_id": ["a"] * 12, "score": [1.0, 2.0] * 6})
    with pytest.raises(rf.InputError, match=r"6 \(query, doc\) pairs listed more than once \(6 extra rows\), "
                       r"e\.g\. \('q0', 'a'\) x2 \(row index 0, 1\); .*dedupe='best'"):
        rf.evaluate({"q0": {"a": 1}}, run, ["RR"])
    with pytest.raises(rf.MeasureError, match="'dedupe' option must be None, 'best' or 'first'"):
        rf.evaluate({"q0": {"a": 1}}, run, ["RR"], dedupe="max")
    # a NaN score is not deduplicated away: the checks name it
    bad = run.with_columns(pl.when(pl.int_range(pl.len()) == 1).then(float("nan")).otherwise(pl.col("score"))
                           .alias("score"))
    with pytest.raises(rf.InputError, match="nan"):
        rf.evaluate({"q0": {"a": 1}}, bad, ["RR"], dedupe="best")
