"""Bad input gets a clear ``InputError`` naming the file and the line (or the column), never a
traceback from deep inside polars.

One test per case; each asserts the exception type and what the message names.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import os
import re
import threading
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import rankframe as rf

QRELS_TEXT = "q1 0 a 1\nq1 0 b 0\nq2 0 c 2\n"
RUN_TEXT = "q1 Q0 a 1 2.0 t\nq1 Q0 b 2 1.0 t\nq2 Q0 c 1 3.0 t\n"


def _file(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


@pytest.fixture
def qrels(tmp_path: Path) -> Path:
    return _file(tmp_path, "qrels.txt", QRELS_TEXT)


@pytest.fixture
def run(tmp_path: Path) -> Path:
    return _file(tmp_path, "run.txt", RUN_TEXT)


def _error(qrels: object = None, run: object = None, **kw: object) -> str:
    """Evaluate, expect an InputError, return its message."""
    with pytest.raises(rf.InputError) as info:
        rf.evaluate(qrels, run, ["AP"], **kw)
    assert isinstance(info.value, rf.RankframeError)
    assert isinstance(info.value, ValueError)
    return str(info.value)


def _names(msg: str, *parts: str) -> None:
    for part in parts:
        assert part in msg, f"{part!r} not in: {msg}"


# --------------------------------------------------------------------------------------------
# Malformed TREC text
# --------------------------------------------------------------------------------------------


def test_run_line_with_too_few_fields(qrels, tmp_path):
    run = _file(tmp_path, "run.txt", "# comment\n\nq1 Q0 a 1 2.0 t\nq1 Q0 b 2\n")
    _names(_error(qrels, run), "run.txt, line 4", "expected at least 6", "found 4", "'q1 Q0 b 2'")


def test_qrels_line_with_too_few_fields(run, tmp_path):
    qrels = _file(tmp_path, "qrels.txt", "q1 0 a 1\n\n\nq1 0 b\n")
    _names(_error(qrels, run), "qrels.txt, line 4", "expected at least 4", "found 3")


def test_swapped_qrels_and_run_get_a_hint(qrels, run):
    msg = _error(run=qrels, qrels=run)  # the qrels read as a run: 4 fields
    _names(msg, "qrels.txt, line 1", "swapped")


def test_non_numeric_score(qrels, tmp_path):
    run = _file(tmp_path, "run.txt", "q1 Q0 a 1 2.0 t\n\n# x\nq1 Q0 b 2 high t\n")
    _names(_error(qrels, run), "run.txt, line 4", "score 'high' is not a number")


def test_non_numeric_score_in_mixed_whitespace_file(qrels, tmp_path):
    # Tabs and spaces mixed: the general (regex) reader, same error.
    run = _file(tmp_path, "run.txt", "q1\tQ0 a\t1 2.0 t\n\nq1 Q0\tb 2 1,5 t\n")
    _names(_error(qrels, run), "run.txt, line 3", "score '1,5' is not a number")


def test_non_integer_grade(run, tmp_path):
    qrels = _file(tmp_path, "qrels.txt", "q1 0 a 1\nq1 0 b rel\n")
    _names(_error(qrels, run), "qrels.txt, line 2", "grade 'rel' is not an integer")


def test_fractional_grade_in_text(run, tmp_path):
    qrels = _file(tmp_path, "qrels.txt", "q1 0 a 1\nq1 0 b 0.5\n")
    _names(_error(qrels, run), "qrels.txt, line 2", "grade '0.5' is not an integer")


@pytest.mark.parametrize("value", ["nan", "inf", "-Infinity", "NaN"])
def test_non_finite_score_in_text(value, qrels, tmp_path):
    run = _file(tmp_path, "run.txt", f"q1 Q0 a 1 2.0 t\n\nq1 Q0 b 2 {value} t\n")
    _names(_error(qrels, run), "run.txt, line 3", "query 'q1', doc 'b'", "not a finite number")


@pytest.mark.parametrize(
    ("lines", "line"),
    [
        (["", "# c", "q1 Q0 a 1 2.0 t", "", "", "q1 Q0 b 2 nan t"], 6),
        (["q1 Q0 a 1 2.0 t", "", "q1 Q0 c 3 1.0 t", "", "q1 Q0 b 2 nan t"], 5),  # no comment
        (["q1\tQ0\ta\t1\t2.0\tt", "\t", "q1\tQ0\tb\t2\tinf\tt"], 3),  # tabs
    ],
)
def test_line_numbers_count_blank_and_comment_lines(lines, line, qrels, tmp_path):
    # polars' CSV reader must not skip blank lines silently: the line is the file's line.
    run = _file(tmp_path, "run.txt", "\n".join(lines) + "\n")
    _names(_error(qrels, run), f"run.txt, line {line}")


def test_duplicate_run_rows_name_the_pairs_and_lines(qrels, tmp_path):
    run = _file(tmp_path, "run.txt", "q1 Q0 a 1 2.0 t\nq1 Q0 b 2 1.0 t\n# c\nq1 Q0 a 3 0.5 t\n")
    msg = _error(qrels, run)
    _names(msg, "run.txt", "duplicate (query, doc) rows in the run", "('q1', 'a') x2 (lines 1, 4)")


def test_duplicate_qrels_rows(run, tmp_path):
    qrels = _file(tmp_path, "qrels.txt", "q1 0 a 1\nq1 0 b 0\nq1 0 a 2\n")
    _names(_error(qrels, run), "qrels.txt", "in the qrels", "('q1', 'a') x2 (lines 1, 3)")


def test_duplicates_in_a_frame_name_the_pairs(qrels):
    run = pl.DataFrame({"query_id": ["q1", "q1", "q1"], "doc_id": ["a", "a", "b"], "score": [1.0, 2, 3]})
    _names(_error(qrels, run), "the run DataFrame", "('q1', 'a') x2")


def test_empty_run_file(qrels, tmp_path):
    run = _file(tmp_path, "run.txt", "")
    _names(_error(qrels, run), "run.txt", "is empty")


def test_empty_qrels_file(run, tmp_path):
    qrels = _file(tmp_path, "qrels.txt", "\n  \n")
    _names(_error(qrels, run), "qrels.txt", "is empty")


def test_file_with_only_comments(qrels, tmp_path):
    run = _file(tmp_path, "run.txt", "# nothing\n\n# here\n")
    _names(_error(qrels, run), "run.txt", "holds no data lines")


def test_empty_gzip_file(qrels, tmp_path):
    run = tmp_path / "run.txt.gz"
    run.write_bytes(gzip.compress(b""))
    _names(_error(qrels, run), "run.txt.gz", "is empty")


def test_corrupt_gzip_file(qrels, tmp_path):
    run = tmp_path / "run.txt.gz"
    run.write_bytes(gzip.compress(RUN_TEXT.encode())[:20])
    _names(_error(qrels, run), "Cannot read the run input", "run.txt.gz")


# --------------------------------------------------------------------------------------------
# Missing files and unreadable sources
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["nope.txt", "nope.parquet", "nope.csv", "nope.tsv", "nope.arrow"])
def test_missing_run_file(name, qrels, tmp_path):
    msg = _error(qrels, tmp_path / name)
    _names(msg, name, "does not exist")


def test_missing_qrels_file(run, tmp_path):
    _names(_error(tmp_path / "missing-qrels.txt", run), "missing-qrels.txt", "does not exist")


def test_glob_matching_nothing(qrels, tmp_path):
    _names(_error(qrels, str(tmp_path / "parts" / "*.parquet")), "No file matches", "parts")


def test_folder_without_parquet_files(qrels, tmp_path):
    (tmp_path / "empty_dir").mkdir()
    _names(_error(qrels, tmp_path / "empty_dir"), "empty_dir", "holds no '*.parquet' file")


def test_corrupt_parquet_file(qrels, tmp_path):
    bad = tmp_path / "run.parquet"
    bad.write_bytes(b"not a parquet file")
    _names(_error(qrels, bad), "Cannot read the run input", "run.parquet")


def test_empty_csv_file(qrels, tmp_path):
    _names(_error(qrels, _file(tmp_path, "run.csv", "")), "Cannot read the run input", "run.csv")


def test_unsupported_source_type(qrels):
    _names(_error(qrels, 42), "Cannot read run from a int object", "Pass a path")


def test_judged_frame_from_trec_text_is_refused(run):
    with pytest.raises(rf.InputError, match="needs a tabular format"):
        rf.evaluate(judged=run, measures=["AP"])


def test_judged_and_qrels_together_are_refused(qrels):
    judged = pl.DataFrame({"query_id": ["q1"], "doc_id": ["a"], "score": [1.0], "relevance": [1]})
    with pytest.raises(rf.InputError, match="not both"):
        rf.evaluate(qrels, judged=judged, measures=["AP"])


# --------------------------------------------------------------------------------------------
# Columns and dtypes
# --------------------------------------------------------------------------------------------


def test_missing_column_lists_the_available_ones(qrels):
    run = pl.DataFrame({"query_id": ["q1"], "doc_id": ["a"], "bm25": [1.0]})
    msg = _error(qrels, run)
    _names(
        msg,
        "The run DataFrame has no run column 'score'",
        "Available columns: 'query_id', 'doc_id', 'bm25'",
        "tried the well-known names 'score', 'sim'",
        "run_columns={'score':",
    )


def test_missing_column_in_a_csv_names_the_file(qrels, tmp_path):
    run = _file(tmp_path, "run.csv", "topic,document,score\nq1,a,1.0\n")
    _names(_error(qrels, run), "run.csv has no run column 'doc_id'", "'document'")


def test_mapping_to_a_column_that_does_not_exist(qrels):
    run = pl.DataFrame({"query_id": ["q1"], "doc_id": ["a"], "bm25": [1.0]})
    msg = _error(qrels, run, run_columns={"score": "bm_25"})
    _names(msg, "no run column 'bm_25'", "'bm25'")


def test_unknown_canonical_name_in_mapping(qrels):
    run = pl.DataFrame({"query_id": ["q1"], "doc_id": ["a"], "bm25": [1.0]})
    _names(_error(qrels, run, run_columns={"sc0re": "bm25"}), "Unknown canonical column 'sc0re'")


def test_missing_breakdown_column(qrels, run):
    _names(_error(qrels, run, by=["date"]), "breakdown column 'date'", "Available columns")


def test_string_score_column_in_a_csv_names_the_line(qrels, tmp_path):
    # The bad value comes after polars' usual schema-inference window (100 rows).
    rows = "".join(f"q1,d{i},{i}.5\n" for i in range(300))
    run = _file(tmp_path, "run.csv", f"qid,docno,score\n{rows}q1,z,n/a\n")
    msg = _error(qrels, run)
    _names(msg, "run.csv", "column 'score'", "dtype String", "'n/a'", "line 302")


def test_numbers_stored_as_text_in_a_frame(qrels):
    run = pl.DataFrame({"query_id": ["q1"], "doc_id": ["a"], "score": ["1.5"]})
    _names(_error(qrels, run), "column 'score'", "dtype String", "cast(pl.Float64)")


def test_string_grades_in_a_frame(run):
    qrels = pl.DataFrame({"query_id": ["q1"], "doc_id": ["a"], "relevance": ["high"]})
    _names(_error(qrels, run), "qrels column 'relevance'", "'high'", "integers")


def test_float_ids_are_refused_with_a_cast_hint(run):
    qrels = pl.DataFrame({"query_id": [1.0], "doc_id": ["a"], "relevance": [1]})
    _names(_error(qrels, run), "column 'query_id'", "dtype Float64", "strings, bytes or integers")


def test_boolean_score_is_refused(qrels):
    run = pl.DataFrame({"query_id": ["q1"], "doc_id": ["a"], "score": [True]})
    _names(_error(qrels, run), "column 'score'", "dtype Boolean")


# --------------------------------------------------------------------------------------------
# Bad values in frames: the message names the column and the row's ids
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("col", ["query_id", "doc_id"])
def test_null_id_in_a_run_frame(col, qrels):
    run = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "score": [1.0, 2.0]})
    run = run.with_columns(pl.when(pl.col("doc_id") == "b").then(None).otherwise(pl.col(col)).alias(col))
    _names(_error(qrels, run), f"the run DataFrame, column {col!r}", "is null")


def test_null_id_in_a_pandas_qrels(run):
    qrels = pl.DataFrame({"query_id": ["q1", None], "doc_id": ["a", "b"], "relevance": [1, 0]})
    _names(_error(qrels.to_pandas(), run), "the qrels pandas DataFrame, column 'query_id'", "null")


@pytest.mark.parametrize("value", [float("nan"), float("inf"), None])
def test_bad_score_in_a_frame(value, qrels):
    run = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "score": [1.0, value]})
    _names(_error(qrels, run), "the run DataFrame, column 'score'", "query 'q1', doc 'b'")


def test_null_score_in_a_csv_names_the_line(qrels, tmp_path):
    run = _file(tmp_path, "run.csv", "qid,docno,score\nq1,a,1.0\nq1,b,\n")
    _names(_error(qrels, run), "run.csv, line 3", "score of query 'q1', doc 'b' is null")


def test_null_grade_in_a_frame(run):
    qrels = pl.DataFrame(
        {"query_id": ["q1"], "doc_id": ["a"], "relevance": [None]}, schema_overrides={"relevance": pl.Int64}
    )
    _names(_error(qrels, run), "column 'relevance'", "grade of query 'q1', doc 'a' is null")


def test_fractional_grade_in_a_frame(run):
    qrels = pl.DataFrame({"query_id": ["q1"], "doc_id": ["a"], "relevance": [1.5]})
    _names(_error(qrels, run), "column 'relevance'", "grade 1.5", "not an integer")


def test_bad_row_in_one_of_several_runs_names_that_run(qrels, run, tmp_path):
    bad = _file(tmp_path, "bad.txt", "q1 Q0 a 1 2.0 t\nq1 Q0 b 2 inf t\n")
    msg = _error(qrels, [run, bad])
    _names(msg, "bad.txt (run 'bad.txt'), line 2")


def test_messages_come_from_rankframe_not_polars(qrels, tmp_path):
    run = _file(tmp_path, "run.txt", "q1 Q0 a 1 2.0 t\nq1 Q0 b 2 x t\n")
    with pytest.raises(rf.InputError) as info:
        rf.evaluate(qrels, run, ["AP"])
    assert not isinstance(info.value, pl.exceptions.PolarsError)
    assert re.match(r"^\S*run\.txt, line 2: ", str(info.value))


# --------------------------------------------------------------------------------------------
# The checks ride in the plan (a flag per row, a duplicate screen per query): the inputs are
# scanned for the exact error only when a flag is up.
# --------------------------------------------------------------------------------------------

def test_clean_input_is_not_scanned_a_second_time(qrels, run, monkeypatch):
    import rankframe._engine.collect as ev

    def boom(prep):
        raise AssertionError("clean input was validated by a separate scan")

    monkeypatch.setattr(ev, "_validate", boom)
    assert rf.evaluate(qrels, run, ["AP"])["value"].item() == pytest.approx(1.0)


@pytest.mark.parametrize("depth", [None, 1])
def test_duplicate_in_the_run_is_found_with_or_without_depth(qrels, tmp_path, depth):
    bad = _file(tmp_path, "dup.txt", RUN_TEXT + "q2 Q0 c 9 0.5 t\n")
    _names(_error(qrels, bad, depth=depth), "dup.txt", "'q2'", "'c'", "line")


def test_nan_grade_in_a_float_frame_is_an_input_error_not_a_cast_failure(run):
    qrels = pl.DataFrame(
        {"query_id": ["q1", "q2"], "doc_id": ["a", "c"], "relevance": [1.0, float("nan")]}
    )
    _names(_error(qrels, run), "'q2'", "'c'")


def test_a_hash_collision_only_costs_a_rescan(qrels, run, monkeypatch):
    import rankframe._engine.hits as hits
    import rankframe._engine.plan as plan

    expected = rf.evaluate(qrels, run, ["AP", "nDCG@10"], per_query=True)
    # every doc id hashes alike: the duplicate flag is up in every query with two docs; the
    # exact check finds no duplicate and the numbers are those of a clean plan
    for module in (plan, hits):
        monkeypatch.setattr(module, "doc_hash", lambda doc: pl.lit(7, pl.UInt64).repeat_by(1).explode())
    calls = []
    import rankframe._engine.collect as ev

    real = ev._validate
    monkeypatch.setattr(ev, "_validate", lambda prep, **kw: calls.append(1) or real(prep, **kw))
    got = rf.evaluate(qrels, run, ["AP", "nDCG@10"], per_query=True)
    assert calls == [1]
    assert got.equals(expected)


# --------------------------------------------------------------------------------------------
# Bounded inputs: devices, pipes, endless streams and absurd lines (issue 38)
# --------------------------------------------------------------------------------------------


def _short(msg: str) -> str:
    """A one-line message of a few hundred characters: no input quoted whole."""
    assert "\n" not in msg, msg[:300]
    assert len(msg) < 800, (len(msg), msg[:300])
    return msg


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
def test_a_device_of_endless_binary_data_is_refused_at_once(qrels, device):
    if not Path(device).exists():
        pytest.skip(f"no {device} here")
    _names(_short(_error(qrels, device)), f"run file {device} holds a NUL byte", "binary data")
    run = _file(qrels.parent, "run.txt", RUN_TEXT)
    _names(_short(_error(device, run)), f"qrels file {device} holds a NUL byte")


def _fifo(tmp_path: Path, name: str, chunks: Any) -> tuple[Path, threading.Thread]:
    """A named pipe fed by a thread with ``chunks`` (until they end or the reader goes)."""
    if not hasattr(os, "mkfifo"):
        pytest.skip("no named pipes here")
    path = tmp_path / name
    os.mkfifo(path)

    def feed() -> None:
        with contextlib.suppress(BrokenPipeError, OSError), open(path, "wb") as f:
            for chunk in chunks:
                f.write(chunk)

    thread = threading.Thread(target=feed, daemon=True)
    thread.start()
    return path, thread


def test_a_pipe_that_ends_is_read_like_a_file(qrels, run, tmp_path):
    expected = rf.evaluate(qrels, run, ["AP", "P@1"])
    pipe, thread = _fifo(tmp_path, "run-pipe", [RUN_TEXT.encode()])
    assert rf.evaluate(qrels, str(pipe), ["AP", "P@1"]).equals(expected)
    thread.join(5)
    pipe_gz, thread = _fifo(tmp_path, "run-pipe-gz", [gzip.compress(RUN_TEXT.encode())])
    assert rf.evaluate(qrels, str(pipe_gz), ["AP", "P@1"]).equals(expected)
    thread.join(5)


def test_a_pipe_that_never_ends_is_refused_at_the_stream_limit(qrels, tmp_path, monkeypatch):
    import rankframe._io.trec_text as trec_text

    monkeypatch.setattr(trec_text, "stream_limit", lambda: 4 << 20)
    line = b"q1 Q0 a 1 2.0 t\n" * 4096

    def endless() -> Any:
        while True:
            yield line

    pipe, thread = _fifo(tmp_path, "endless", endless())
    msg = _short(_error(qrels, str(pipe)))
    _names(msg, "endless gave more than 4 MiB without ending", "Save it to a file")
    thread.join(5)
    assert not thread.is_alive()  # the writer saw the pipe close


def test_a_tabular_file_that_is_a_pipe_is_refused_naming_it(qrels, tmp_path):
    pipe, thread = _fifo(tmp_path, "run.csv", [b"qid,docno,score\nq1,a,1.0\n"])
    _names(_short(_error(qrels, str(pipe))), "run.csv' is not a regular file", "Save it to a file")
    with contextlib.suppress(OSError), open(pipe, "rb") as f:  # let the writer go
        f.read()
    thread.join(5)


@pytest.mark.parametrize("compress", [False, True])
def test_a_file_of_one_huge_line_is_refused_after_reading_its_first_mib(qrels, tmp_path, compress):
    data = b"x" * (3 << 20)  # 3 MiB, no line feed
    path = tmp_path / ("long.txt.gz" if compress else "long.txt")
    path.write_bytes(gzip.compress(data) if compress else data)
    _names(_short(_error(qrels, path)), "has a line longer than 1 MiB", "not text of one result")


def test_a_long_line_is_quoted_in_200_characters(qrels, tmp_path):
    bad = _file(tmp_path, "run.txt", RUN_TEXT + "q1 Q0 " + "d" * 50_000 + " 3\n")
    msg = _short(_error(qrels, bad))
    # the line: 'q1 Q0 ' + 50,000 characters + ' 3'
    _names(msg, "run.txt, line 4", "expected at least 6", "found 4", "(50008 characters in all)")


def test_a_long_id_is_quoted_in_200_characters(qrels, tmp_path):
    bad = _file(tmp_path, "run.txt", RUN_TEXT + "q1 Q0 " + "d" * 50_000 + " 3 x t\n")
    _names(_short(_error(qrels, bad)), "run.txt, line 4", "the score 'x'")
    dup = "q1 Q0 " + "d" * 50_000 + " 3 1.0 t\n"
    msg = _short(_error(qrels, _file(tmp_path, "dup.txt", dup * 2)))
    _names(msg, "duplicate", "(50000 characters in all)")


def test_a_nul_byte_in_a_regular_file_is_refused(qrels, tmp_path):
    path = tmp_path / "run.txt"
    path.write_bytes(RUN_TEXT.encode() + b"q2 Q0 d\x00 1 1.0 t\n")
    _names(_short(_error(qrels, path)), "holds a NUL byte (byte 55)", "binary data")


def test_the_command_line_refuses_dev_zero_on_one_line(qrels, capsys):
    from rankframe._cli.main import main

    if not Path("/dev/zero").exists():
        pytest.skip("no /dev/zero here")
    assert main(["evaluate", str(qrels), "/dev/zero", "-m", "AP"]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert "Traceback" not in err
    _names(_short(err.strip()), "/dev/zero holds a NUL byte")


def test_trec_eval_reads_standard_input_bounded(qrels, monkeypatch, capsys):
    from rankframe._cli.main import main

    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"\x00" * (1 << 16))))
    assert main(["trec_eval", str(qrels), "-"]) == 1
    _names(_short(capsys.readouterr().err.strip()), "standard input (-) holds a NUL byte")
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(gzip.compress(RUN_TEXT.encode()))))
    assert main(["trec_eval", "-m", "num_ret", str(qrels), "-"]) == 0
    assert capsys.readouterr().out.split() == ["num_ret", "all", "3"]
