"""The logs user's day on the command line: impression logs as CSV/Parquet files, globs, mappings.

Each test pins a defect found by a hostile pass over ``rankframe evaluate --judged`` and the
QRELS RUN form on daily log files (see the commit that added it); expected values are worked
by hand in the comments.
"""

from __future__ import annotations

import io
import json

import polars as pl
import pytest

from rankframe._cli.main import main

#: A log's own column names, mapped on the command line (the judged form reads either flag).
COLS = [
    "--run-column", "query_id=session", "--run-column", "doc_id=item",
    "--run-column", "score=model_score", "--run-column", "relevance=click",
]


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


def per_query(out: str) -> dict[str, float]:
    frame = pl.read_csv(io.StringIO(out), schema_overrides={"query_id": pl.String})
    return dict(zip(frame["query_id"], frame["value"], strict=True))


# ----------------------------------------------------------------- ids that look like numbers
def test_csv_ids_that_look_like_numbers_stay_text(capsys, tmp_path):
    # trec_eval compares ids as text: '007' and '7' are two sessions, '01' and '1' two items.
    # Session 007: scores 0.9, 0.8 on items 01 (no click), 1 (click): RR = 1/2.
    # Session 7:   item 01 clicked at rank 1: RR = 1.
    # Read as integers they were one session 7 with item 1 three times (a false duplicate).
    log = tmp_path / "log.csv"
    log.write_text("session,item,model_score,click\n007,01,0.9,0\n007,1,0.8,1\n7,01,0.5,1\n7,2,0.4,0\n")
    rc, out, err = run_cli(capsys, "evaluate", "--judged", str(log), "-m", "RR", "-q", "-f", "csv", *COLS)
    assert rc == 0, err
    assert per_query(out) == {"007": 0.5, "7": 1.0}


def test_csv_ids_of_qrels_and_run_files_match_as_text(capsys, tmp_path):
    # qrels: 007/a and 7/b relevant; run: both sessions rank a then b.
    # RR: 007 -> 1 (a at rank 1), 7 -> 1/2 (b at rank 2); the TREC text files say the same.
    (tmp_path / "q.csv").write_text("query_id,doc_id,relevance\n007,a,1\n7,b,1\n")
    (tmp_path / "r.csv").write_text("query_id,doc_id,score\n007,a,2\n007,b,1\n7,a,2\n7,b,1\n")
    (tmp_path / "q.txt").write_text("007 0 a 1\n7 0 b 1\n")
    (tmp_path / "r.txt").write_text("007 Q0 a 1 2 t\n007 Q0 b 2 1 t\n7 Q0 a 1 2 t\n7 Q0 b 2 1 t\n")
    for q, r in (("q.csv", "r.csv"), ("q.txt", "r.csv"), ("q.csv", "r.txt"), ("q.txt", "r.txt")):
        rc, out, err = run_cli(capsys, "evaluate", str(tmp_path / q), str(tmp_path / r),
                               "-m", "RR", "-q", "-f", "csv")
        assert rc == 0, (q, r, err)
        assert per_query(out) == {"007": 1.0, "7": 0.5}, (q, r)


@pytest.mark.parametrize("suffix", [".csv.gz", ".tsv", ".latin-1.csv", ".latin-1.csv.gz"])
def test_compressed_tab_separated_and_latin1_ids_stay_text(capsys, tmp_path, suffix):
    import gzip

    sep = "\t" if suffix == ".tsv" else ","
    text = "".join(sep.join(row) + "\n" for row in (
        ("session", "item", "model_score", "click", "locale"), ("007", "01", "0.9", "0", "fr"),
        ("007", "1", "0.8", "1", "fr"), ("7", "01", "0.5", "1", "fran\xe7ais"),
    ))
    data = text.encode("latin-1")  # not UTF-8 where it says français
    log = tmp_path / f"log{suffix}"
    log.write_bytes(gzip.compress(data) if suffix.endswith(".gz") else data)
    rc, out, err = run_cli(capsys, "evaluate", "--judged", str(log), "-m", "RR", "-q", "-f", "csv", *COLS)
    assert rc == 0, err
    assert per_query(out) == {"007": 0.5, "7": 1.0}


# ----------------------------------------------------------------- hints in the command's terms
@pytest.fixture
def log(tmp_path):
    path = tmp_path / "day=2026-11-20.parquet"
    pl.DataFrame({
        "session": ["s1", "s1", "s2"], "item": ["a", "b", "a"], "model_score": [0.9, 0.8, 0.5],
        "click": [0, 1, 1], "model": ["bm25", "bm25", "bm25"],
    }).write_parquet(path)
    return path


def test_a_mapped_column_that_is_absent_hints_the_canonical_name(capsys, log):
    # --qrels-column relevance=clikc: the fix is relevance=click, not 'clikc=click' (which is
    # refused as an unknown canonical name)
    rc, _, err = run_cli(capsys, "evaluate", str(log), str(log), "-m", "RR", *COLS[:6],
                         "--qrels-column", "query_id=session", "--qrels-column", "doc_id=item",
                         "--qrels-column", "relevance=clikc")
    assert rc == 1
    assert "has no qrels column 'clikc'" in err
    assert "e.g. --qrels-column relevance=click" in err
    rc, _, err = run_cli(capsys, "evaluate", "--judged", str(log), "-m", "RR", *COLS[:6],
                         "--run-column", "relevance=clikc")
    assert rc == 1
    assert "e.g. --run-column relevance=click" in err


def test_judged_errors_name_the_flags_not_python(capsys, log, tmp_path):
    rc, _, err = run_cli(capsys, "evaluate", "--judged", str(log), "-m", "RR")
    assert rc == 1
    assert "has no judged column 'query_id', 'score', 'relevance'" in err
    assert "e.g. --run-column query_id=" in err
    assert "_columns=" not in err
    text = tmp_path / "text.parquet"
    pl.read_parquet(log).with_columns(pl.col("model_score").cast(pl.String)).write_parquet(text)
    rc, _, err = run_cli(capsys, "evaluate", "--judged", str(text), "-m", "RR", *COLS)
    assert rc == 1
    assert "The judged column 'score' in" in err
    assert "--run-column score=" in err
    assert "judged_columns" not in err


def test_judged_dtype_errors_name_a_real_parameter(log, tmp_path):
    import rankframe as rf

    text = tmp_path / "text.parquet"
    pl.read_parquet(log).with_columns(pl.col("model_score").cast(pl.String)).write_parquet(text)
    cols = {"query_id": "session", "doc_id": "item", "score": "model_score", "relevance": "click"}
    with pytest.raises(rf.InputError, match=r"run_columns=\{'score': \.\.\.\}") as info:
        rf.evaluate(judged=str(text), measures=["RR"], run_columns=cols)
    assert "judged_columns" not in str(info.value)


# ----------------------------------------------------------------- globs of CSV/TSV files
def daily_logs() -> dict[str, pl.DataFrame]:
    """Two days of impressions; per (day, model), session RR by hand in the comments."""
    return {
        # bm25: s1 click at rank 2 (0.8 < 0.9) -> 1/2; s2 click at rank 1 -> 1; mean 3/4
        "2026-11-20": pl.DataFrame({
            "session": ["s1", "s1", "s2", "s2"], "item": ["a", "b", "a", "c"],
            "model_score": [0.9, 0.8, 0.7, 0.1], "click": [0, 1, 1, 0],
        }),
        # bm25: s1 click at rank 3 -> 1/3; s3 no click -> 0; mean 1/6
        "2026-11-21": pl.DataFrame({
            "session": ["s1", "s1", "s1", "s3"], "item": ["a", "b", "c", "d"],
            "model_score": [3.0, 2.0, 1.0, 1.0], "click": [0, 0, 1, 0],
        }),
    }


@pytest.mark.parametrize("suffix", [".csv", ".tsv", ".csv.gz"])
def test_a_glob_of_csv_files_is_read_as_csv(capsys, tmp_path, suffix):
    import gzip

    folder = tmp_path / "logs"
    folder.mkdir()
    for day, frame in daily_logs().items():
        frame = frame.with_columns(day=pl.lit(day), model=pl.lit("bm25"))
        buf = io.BytesIO()
        frame.write_csv(buf, separator="\t" if suffix == ".tsv" else ",")
        data = buf.getvalue()
        (folder / f"day={day}{suffix}").write_bytes(gzip.compress(data) if suffix.endswith(".gz") else data)
    rc, out, err = run_cli(capsys, "evaluate", "--judged", str(folder / f"day=*{suffix}"), "-m", "RR",
                           "--by", "day", "model", "-f", "csv", *COLS)
    assert rc == 0, err
    got = pl.read_csv(io.StringIO(out)).filter(measure="RR")
    assert dict(zip(got["day"], got["value"], strict=True)) == {"2026-11-20": 0.75, "2026-11-21": 1 / 6}


def test_a_day_without_impressions_in_a_csv_glob_changes_nothing(capsys, tmp_path):
    # day=2026-11-22.csv holds its header only: no rows, and no column typed as text by it
    folder = tmp_path / "logs"
    folder.mkdir()
    for day, frame in daily_logs().items():
        frame.with_columns(day=pl.lit(day)).write_csv(folder / f"day={day}.csv")
    (folder / "day=2026-11-22.csv").write_text("session,item,model_score,click,day\n")
    rc, out, err = run_cli(capsys, "evaluate", "--judged", str(folder / "*.csv"), "-m", "RR",
                           "--by", "day", "-f", "csv", *COLS)
    assert rc == 0, err
    got = pl.read_csv(io.StringIO(out)).filter(measure="RR")
    assert dict(zip(got["day"], got["value"], strict=True)) == {"2026-11-20": 0.75, "2026-11-21": 1 / 6}


def test_csv_files_of_one_glob_with_other_columns_are_named(capsys, tmp_path):
    logs = daily_logs()
    logs["2026-11-20"].write_csv(tmp_path / "a.csv")
    logs["2026-11-21"].drop("click").with_columns(day=pl.lit("x")).write_csv(tmp_path / "b.csv")
    rc, _, err = run_cli(capsys, "evaluate", "--judged", str(tmp_path / "*.csv"), "-m", "RR", *COLS)
    assert rc == 1
    assert "do not hold the same columns" in err
    assert "b.csv' lacks 'click' and has 'day' too" in err
    # the same columns in another order are fine (s1 of the second day renamed s4: one key)
    second = logs["2026-11-21"].with_columns(pl.col("session").replace("s1", "s4"))
    second.select("click", "model_score", "item", "session").write_csv(tmp_path / "b.csv")
    rc, out, err = run_cli(capsys, "evaluate", "--judged", str(tmp_path / "*.csv"), "-m", "RR",
                           "-q", "-f", "csv", *COLS)
    assert rc == 0, err
    assert per_query(out) == {"s1": 0.5, "s2": 1.0, "s3": 0.0, "s4": 1 / 3}


# ----------------------------------------------------------------- Parquet files of other dtypes
@pytest.mark.parametrize("layout", ["glob", "folder"])
def test_daily_parquet_files_whose_integer_widths_differ_are_read(capsys, tmp_path, layout):
    # a day without clicks written as click=0 (Int32 by pl.lit) beside a day of Int64 clicks,
    # and scores as Float32 one day: one frame, the widest dtype of each column.
    # RR by hand: 2026-11-20 3/4 (daily_logs); 2026-11-21 no click: 0 for both sessions.
    folder = tmp_path / "logs"
    folder.mkdir()
    first, second = daily_logs().values()
    first.with_columns(day=pl.lit("2026-11-20")).write_parquet(folder / "day=2026-11-20.parquet")
    second.with_columns(day=pl.lit("2026-11-21"), click=pl.lit(0), model_score=pl.col("model_score").cast(
        pl.Float32)).write_parquet(folder / "day=2026-11-21.parquet")  # pl.lit(0): Int32
    assert pl.read_parquet_schema(folder / "day=2026-11-21.parquet")["click"] == pl.Int32
    path = str(folder / "day=*.parquet") if layout == "glob" else str(folder)
    rc, out, err = run_cli(capsys, "evaluate", "--judged", path, "-m", "RR", "--by", "day",
                           "-f", "csv", *COLS)
    assert rc == 0, err
    got = pl.read_csv(io.StringIO(out)).filter(measure="RR")
    assert dict(zip(got["day"], got["value"], strict=True)) == {"2026-11-20": 0.75, "2026-11-21": 0.0}
    # the same as QRELS and RUN files (the qrels of the first day Int64, of the second Int32)
    rc, out, err = run_cli(capsys, "evaluate", path, path, "-m", "RR", "--by", "day", "-f", "csv",
                           *COLS[:6], "--qrels-column", "query_id=session", "--qrels-column",
                           "doc_id=item", "--qrels-column", "relevance=click")
    assert rc == 0, err
    got = pl.read_csv(io.StringIO(out)).filter(measure="RR")
    assert dict(zip(got["day"], got["value"], strict=True)) == {"2026-11-20": 0.75, "2026-11-21": 0.0}


# ----------------------------------------------------------------- --partitions files, a file a day
def test_the_documented_daily_logs_partitions_files_command_runs(capsys, tmp_path):
    # docs/guides/larger-than-memory.md: rankframe evaluate qrels.parquet 'logs/day=*.parquet'
    # -m nDCG@10 RR --by day --partitions files. Session s1 is in both days' files; the command
    # names its run, which made 'run' a group key and refused the layout ("Query 's1' is in two
    # run files ... pass --by day") although --by day was given.
    folder = tmp_path / "logs"
    folder.mkdir()
    for day, frame in daily_logs().items():
        frame.with_columns(day=pl.lit(day)).write_parquet(folder / f"day={day}.parquet")
    # judgments: the clicks, and s9 judged but in no file (0 under -c, else left out)
    qrels = tmp_path / "qrels.parquet"
    pl.DataFrame({"query_id": ["s1", "s1", "s2", "s9"], "doc_id": ["b", "c", "a", "z"],
                  "relevance": [1, 1, 1, 1]}).write_parquet(qrels)
    cols = COLS[:6]
    # RR by hand: 2026-11-20: s1 b at rank 2 -> 1/2, s2 a at rank 1 -> 1: 3/4.
    # 2026-11-21: s1 ranks a, b, c: b at rank 2 -> 1/2 (s3 is not judged: not evaluated).
    want = {"2026-11-20": 0.75, "2026-11-21": 0.5}
    for extra in ([], ["-c"]):
        got = {}
        for parts in ("files", "1"):
            rc, out, err = run_cli(capsys, "evaluate", str(qrels), str(folder / "day=*.parquet"),
                                   "-m", "RR", "--by", "day", "--partitions", parts, "-q",
                                   "-f", "csv", *cols, *extra)
            assert rc == 0, (parts, extra, err)
            got[parts] = pl.read_csv(io.StringIO(out)).sort(pl.all(), nulls_last=True)
        assert got["files"].equals(got["1"]), extra
        frame = got["files"].filter(pl.col("day").is_not_null())
        means = frame.group_by("day").agg(pl.col("value").mean())
        assert dict(zip(means["day"], means["value"], strict=True)) == pytest.approx(want)


def test_daily_files_of_several_runs_partitioned_by_file(capsys, tmp_path):
    # each day's file holds two runs (a 'run' column): without -c the files may share a
    # session by (run, day); the values are those of one plan. Under -c each run is owed the
    # judged sessions it lacks, which each file would score again: refused, saying why.
    folder = tmp_path / "logs"
    folder.mkdir()
    for day, frame in daily_logs().items():
        both = pl.concat([frame.with_columns(run=pl.lit("bm25")),
                          frame.with_columns(run=pl.lit("dense"), model_score=-pl.col("model_score"))])
        both.with_columns(day=pl.lit(day)).write_parquet(folder / f"day={day}.parquet")
    qrels = tmp_path / "qrels.parquet"
    pl.DataFrame({"query_id": ["s1", "s2", "s9"], "doc_id": ["b", "a", "z"], "relevance": [1, 1, 1]}
                 ).write_parquet(qrels)
    argv = ["evaluate", str(qrels), str(folder / "*.parquet"), "-m", "RR", "--by", "day", "-q",
            "-f", "csv", *COLS[:6]]
    got = {}
    for parts in ("files", "1"):
        rc, out, err = run_cli(capsys, *argv, "--partitions", parts)
        assert rc == 0, (parts, err)
        got[parts] = pl.read_csv(io.StringIO(out)).sort(pl.all())
    assert got["files"].equals(got["1"])
    # dense reverses bm25: 2026-11-20 s1 ranks b first (RR 1), s2 ranks a last of 2 (1/2)
    dense = got["files"].filter(run="logs/dense", day="2026-11-20")
    assert dict(zip(dense["query_id"], dense["value"], strict=True)) == {"s1": 1.0, "s2": 0.5}
    rc, _, err = run_cli(capsys, *argv, "--partitions", "files", "-c")
    assert rc == 1
    assert "Several runs under complete=True (-c)" in err


# ----------------------------------------------------------------- runs named by their globs
def test_a_glob_run_is_named_by_its_folder_as_a_judged_glob_is(capsys, tmp_path):
    # --judged 'logs/day=*.parquet' names its run 'logs'; the same glob as a RUN was named
    # '*.parquet' (and two globs of two folders by their whole paths)
    for name in ("bm25", "dense"):
        (tmp_path / name).mkdir()
        for day, frame in daily_logs().items():
            frame.with_columns(day=pl.lit(day)).write_parquet(tmp_path / name / f"day={day}.parquet")
    qrels = tmp_path / "qrels.parquet"
    pl.DataFrame({"query_id": ["s1", "s2"], "doc_id": ["b", "a"], "relevance": [1, 1]}).write_parquet(qrels)
    runs = [str(tmp_path / name / "day=*.parquet") for name in ("bm25", "dense")]
    rc, out, err = run_cli(capsys, "evaluate", str(qrels), *runs, "-m", "RR", "--by", "day", "-f", "csv",
                           *COLS[:6])
    assert rc == 0, err
    assert pl.read_csv(io.StringIO(out))["run"].unique().sort().to_list() == ["bm25", "dense"]
    rc, out, err = run_cli(capsys, "evaluate", "--judged", runs[0], "-m", "RR", "--by", "day", "-f", "csv",
                           *COLS)
    assert rc == 0, err
    assert pl.read_csv(io.StringIO(out))["run"].unique().to_list() == ["bm25"]


# ----------------------------------------------------------------- duplicates across days
def test_duplicates_of_two_runs_are_not_counted_to_the_first(capsys, tmp_path):
    # s1 is in both days' files of both models: without --by day, (s1, a) and (s1, b) repeat
    # in each run: 2 pairs a run, 4 in all. The error named the first run and counted 4 there.
    for name in ("bm25", "dense"):
        (tmp_path / name).mkdir()
        for day, frame in daily_logs().items():
            frame.with_columns(day=pl.lit(day)).write_parquet(tmp_path / name / f"day={day}.parquet")
    qrels = tmp_path / "qrels.parquet"
    pl.DataFrame({"query_id": ["s1"], "doc_id": ["b"], "relevance": [1]}).write_parquet(qrels)
    runs = [str(tmp_path / name / "day=*.parquet") for name in ("bm25", "dense")]
    rc, _, err = run_cli(capsys, "evaluate", str(qrels), *runs, "-m", "RR", *COLS[:6])
    assert rc == 1
    said = "(run 'bm25') and 1 other run: duplicate (query, doc) rows in the runs: 4 (query, doc) pairs"
    assert said in err
    # the run is a glob: a session that comes back another day wants the day as a breakdown
    assert "--by day" in err
    rc, _, err = run_cli(capsys, "evaluate", str(qrels), runs[0], "-m", "RR", *COLS[:6])
    assert rc == 1
    assert "(run 'bm25'): duplicate (query, doc) rows in the run: ('s1', 'a') x2" in err
    assert "--by day" in err


@pytest.mark.parametrize("suffix", [".tsv", ".tsv.gz"])
def test_float_query_ids_are_refused_plain_or_compressed(capsys, tmp_path, suffix):
    # as tests/fuzz_corpus.py's run-tsv-float-query-ids: ids read as numbers with a fraction
    import gzip

    data = b"qid\tdocno\tscore\n1.5\ta\t1.0\n"
    path = tmp_path / f"run{suffix}"
    path.write_bytes(gzip.compress(data) if suffix.endswith(".gz") else data)
    (tmp_path / "q.txt").write_text("1.5 0 a 1\n")
    rc, _, err = run_cli(capsys, "evaluate", str(tmp_path / "q.txt"), str(path), "-m", "RR")
    assert rc == 1
    assert "The run column 'query_id' in" in err
    assert "has dtype Float64" in err


# ----------------------------------------------------------------- a day without clicks
def test_a_day_without_clicks_under_skip_is_said_not_dropped_silently(capsys, tmp_path):
    # --empty-queries skip leaves out sessions without a click: a day with none had no row at
    # all, and nothing said so. RR by hand on 2026-11-20 (daily_logs): 3/4 over s1, s2.
    folder = tmp_path / "logs"
    folder.mkdir()
    first, second = daily_logs().values()
    first.with_columns(day=pl.lit("2026-11-20")).write_parquet(folder / "a.parquet")
    second.with_columns(day=pl.lit("2026-11-21"), click=0).write_parquet(folder / "b.parquet")
    rc, out, err = run_cli(capsys, "evaluate", "--judged", str(folder), "-m", "RR", "--by", "day",
                           "--empty-queries", "skip", "-f", "csv", *COLS)
    assert rc == 0, err
    got = pl.read_csv(io.StringIO(out)).filter(measure="RR")
    assert dict(zip(got["day"], got["value"], strict=True)) == {"2026-11-20": 0.75}
    assert "1 (day) group has no query with a relevant judgment" in err
    assert "day '2026-11-21'" in err
    # without skip the day is there, its sessions scored 0, and nothing is said
    rc, out, err = run_cli(capsys, "evaluate", "--judged", str(folder), "-m", "RR", "--by", "day",
                           "-f", "csv", *COLS)
    assert rc == 0, err
    got = pl.read_csv(io.StringIO(out)).filter(measure="RR")
    assert dict(zip(got["day"], got["value"], strict=True)) == {"2026-11-20": 0.75, "2026-11-21": 0.0}
    assert "group" not in err


@pytest.mark.parametrize("command", ["evaluate", "compare"])
def test_a_run_that_scores_zero_with_mapped_columns_is_not_an_error(capsys, tmp_path, command):
    # a day without clicks: RR 0 everywhere. The command then re-reads the inputs to check that
    # they share queries, without the --qrels-column/--run-column mapping: "has no qrels column
    # 'query_id'", exit 1.
    day = tmp_path / "day.parquet"
    daily_logs()["2026-11-21"].with_columns(click=0).write_parquet(day)
    cols = [*COLS[:6], "--qrels-column", "query_id=session", "--qrels-column", "doc_id=item",
            "--qrels-column", "relevance=click"]
    runs = [str(day)] if command == "evaluate" else [f"a={day}", f"b={day}"]
    rc, out, err = run_cli(capsys, command, str(day), *runs, "-m", "RR", "-f", "csv", *cols)
    assert rc == 0, err
    got = pl.read_csv(io.StringIO(out))
    assert set(got["mean" if command == "compare" else "value"]) == {0.0}
    # ids that do not match are still said, naming the ids (the mapping read too)
    other = tmp_path / "other.parquet"
    daily_logs()["2026-11-21"].with_columns(session=pl.lit("x") + pl.col("session")).write_parquet(other)
    runs = [str(other)] if command == "evaluate" else [f"a={other}", f"b={other}"]
    rc, _, err = run_cli(capsys, command, str(day), *runs, "-m", "RR", "-f", "csv", *cols)
    assert rc == 1
    assert "have no query in common" in err
    assert "'xs1'" in err


# ----------------------------------------------------------------- empty logs
@pytest.mark.parametrize("by", [[], ["--by", "day"]])
def test_an_empty_judged_log_is_an_error_not_nan(capsys, tmp_path, by):
    # a day's job wrote its file without rows: RR printed as nan (or an empty table with
    # --by), exit 0, nothing said; an empty RUN is refused ("no query in common")
    empty = tmp_path / "day=2026-11-22.parquet"
    daily_logs()["2026-11-20"].with_columns(day=pl.lit("x")).head(0).write_parquet(empty)
    rc, out, err = run_cli(capsys, "evaluate", "--judged", str(empty), "-m", "RR", *by, *COLS)
    assert rc == 1, out
    assert f"The judged input {empty} holds no rows" in err


def test_judged_logs_and_partitions_files_is_a_usage_error(capsys, tmp_path):
    # --partitions files splits a RUN's files; with --judged it said "needs the run as a path:
    # a glob" although a glob was given
    folder = tmp_path / "logs"
    folder.mkdir()
    for day, frame in daily_logs().items():
        frame.with_columns(day=pl.lit(day)).write_parquet(folder / f"day={day}.parquet")
    rc, _, err = run_cli(capsys, "evaluate", "--judged", str(folder / "*.parquet"), "-m", "RR",
                         "--by", "day", "--partitions", "files", *COLS)
    assert rc == 2
    assert "--partitions files" in err
    assert "--judged" in err
    assert "needs the run as a path" not in err


def test_judged_frames_and_partitions_files_in_python(tmp_path):
    import rankframe as rf

    frame = daily_logs()["2026-11-20"]
    cols = {"query_id": "session", "doc_id": "item", "score": "model_score", "relevance": "click"}
    with pytest.raises(rf.InputError, match="partitions='files' splits the run's files"):
        rf.evaluate(judged=frame, measures=["RR"], run_columns=cols, partitions="files")


# ----------------------------------------------------------------- impressions logged twice
def test_dedupe_keeps_one_impression_of_a_judged_log_with_its_click(capsys, tmp_path):
    # --dedupe deduplicated the run side only: the same log's judgments still held the twice-
    # logged impression, refused as 'duplicate (query, doc) rows in the qrels', with no flag
    # for it. The row kept carries its own click.
    log = tmp_path / "log.csv"
    log.write_text(
        "session,item,model_score,click\n"
        "s1,a,0.9,0\ns1,a,0.9,1\ns1,b,0.5,1\n"  # tie: the first line (click 0); b at rank 2: 1/2
        "s3,e,0.2,1\ns3,e,0.8,0\ns3,f,0.5,0\n"  # best: e 0.8 (click 0): RR 0; first: e 0.2 (click 1)
    )                                            # after f: RR 1/2
    want = {"best": {"s1": 0.5, "s3": 0.0}, "first": {"s1": 0.5, "s3": 0.5}}
    for how, expected in want.items():
        rc, out, err = run_cli(capsys, "evaluate", "--judged", str(log), "-m", "RR", "-q", "-f", "csv",
                               "--dedupe", how, *COLS)
        assert rc == 0, (how, err)
        assert per_query(out) == expected, how
    rc, _, err = run_cli(capsys, "evaluate", "--judged", str(log), "-m", "RR", *COLS)
    assert rc == 1
    assert "duplicate (query, doc) rows" in err


# ----------------------------------------------------------------- --by names a mapped column
def test_by_a_column_mapped_to_an_id_says_so(capsys, tmp_path):
    # --by session where --run-column query_id=session: 'session' was said not to be in the
    # run, whose columns were listed under their canonical names only
    log = tmp_path / "log.parquet"
    daily_logs()["2026-11-20"].with_columns(locale=pl.lit("de")).write_parquet(log)
    rc, _, err = run_cli(capsys, "evaluate", "--judged", str(log), "-m", "RR", "--by", "session", *COLS)
    assert rc == 1
    assert "'session' (by=...) is the run's query_id column (mapped: query_id=session)" in err
    rc, _, err = run_cli(capsys, "evaluate", "--judged", str(log), "-m", "RR", "--by", "Locale", *COLS)
    assert rc == 1
    assert "Did you mean 'locale'?" in err


# ----------------------------------------------------------------- the wrong separator
@pytest.mark.parametrize(("sep", "said"), [(";", "';'"), ("\t", "a tab")])
def test_a_csv_of_another_separator_is_said(capsys, tmp_path, sep, said):
    # a European export (;) or a tab-separated file named .csv: one column of the whole header,
    # and a hint to map a column, which cannot help
    log = tmp_path / "log.csv"
    rows = (["session", "item", "model_score", "click"], ["s1", "a", "1", "0"])
    log.write_text("".join(sep.join(row) + "\n" for row in rows))
    rc, _, err = run_cli(capsys, "evaluate", "--judged", str(log), "-m", "RR", *COLS)
    assert rc == 1
    assert f"its fields look separated by {said}" in err
    assert "--run-column" not in err


# ----------------------------------------------------------------- positions, not scores
def test_a_logged_position_maps_as_a_rank(capsys, tmp_path):
    # impressions logged with their position (1 = top) and no score: --run-column score=pos
    # ranks them upside down (silently); rank=pos was refused as an unknown canonical column.
    # Positions 1, 2, 3 with the click at 2: RR 1/2 (score=pos would give 1/2 too, so a
    # click at 1 of 3 tells them apart: RR 1 by rank, 1/3 by score=pos).
    log = tmp_path / "log.csv"
    log.write_text("session,item,pos,click\ns1,a,1,0\ns1,b,2,1\ns1,c,3,0\ns2,a,1,1\ns2,b,2,0\ns2,c,3,0\n")
    cols = ["--run-column", "query_id=session", "--run-column", "doc_id=item",
            "--run-column", "relevance=click"]
    rc, out, err = run_cli(capsys, "evaluate", "--judged", str(log), "-m", "RR", "-q", "-f", "csv",
                           "--run-column", "rank=pos", *cols)
    assert rc == 0, err
    assert per_query(out) == {"s1": 0.5, "s2": 1.0}
    rc, _, err = run_cli(capsys, "evaluate", "--judged", str(log), "-m", "RR", *cols,
                         "--run-column", "rank=pos", "--run-column", "score=pos")
    assert rc == 1
    assert "score or rank, not both" in err
    rc, _, err = run_cli(capsys, "evaluate", "--judged", str(log), "-m", "RR", *cols,
                         "--run-column", "rank=position")
    assert rc == 1
    assert "has no judged column 'position'" in err
    assert "e.g. --run-column rank=pos" in err


def test_a_rank_mapping_in_python(tmp_path):
    import rankframe as rf

    run = pl.DataFrame({"qid": ["1", "1"], "docno": ["a", "b"], "position": [2, 1]})
    got = rf.read_run(run, columns={"query_id": "qid", "doc_id": "docno", "rank": "position"}).collect()
    assert got.sort("doc_id")["score"].to_list() == [-2.0, -1.0]


# ----------------------------------------------------------------- compare's JSON is JSON
def test_compare_json_has_no_nan_literal(capsys, tmp_path):
    # a day with one session: its interval is undefined; compare -f json wrote NaN, which
    # JSON does not have (jq, JSON.parse refuse it), where evaluate -f json writes null
    (tmp_path / "q.csv").write_text("query_id,doc_id,relevance,day\ns1,a,1,d1\ns2,a,1,d2\ns3,b,1,d2\n")
    for name, (hi, lo) in {"a": (1, 2), "b": (2, 1)}.items():
        (tmp_path / f"{name}.csv").write_text(
            "query_id,doc_id,score,day\n"
            f"s1,a,{hi},d1\ns1,b,{lo},d1\ns2,a,{hi},d2\ns2,b,{lo},d2\ns3,b,{hi},d2\ns3,a,{lo},d2\n"
        )
    rc, out, err = run_cli(capsys, "compare", str(tmp_path / "q.csv"), str(tmp_path / "a.csv"),
                           str(tmp_path / "b.csv"), "-m", "RR", "--by", "day", "-f", "json")
    assert rc == 0, err

    def refuse(constant: str) -> None:
        raise ValueError(constant)

    doc = json.loads(out, parse_constant=refuse)
    d1 = [row for row in doc["summary"] if row["day"] == "d1"]
    # RR on d1 by hand: a ranks b (2) over a (1): a at rank 2 -> 1/2; b ranks a first -> 1
    got = [(row["run"], row["mean"], row["ci_low"]) for row in d1]
    assert got == [("a.csv", 0.5, None), ("b.csv", 1.0, None)]


def test_a_folder_of_csv_files_points_to_a_glob(capsys, tmp_path):
    folder = tmp_path / "logs"
    folder.mkdir()
    for day, frame in daily_logs().items():
        frame.write_csv(folder / f"day={day}.csv")
    rc, _, err = run_cli(capsys, "evaluate", "--judged", str(folder), "-m", "RR", *COLS)
    assert rc == 1
    assert "holds no '*.parquet' file" in err
    assert f"'{folder}/*.csv'" in err


# ------------------------------------------------------ one judged log, its two column mappings
def test_a_judged_column_mapped_two_ways_is_refused(capsys, tmp_path):
    # both flags map the one log's columns: query_id to 'session' by --qrels-column and to 'user'
    # by --run-column took the run's ('user') silently; the same name by both is fine
    log = tmp_path / "log.csv"
    log.write_text("session,user,item,model_score,click\ns1,u1,a,0.9,0\ns1,u1,b,0.8,1\ns2,u1,c,0.5,1\n")
    rest = ["--run-column", "doc_id=item", "--run-column", "score=model_score",
            "--qrels-column", "relevance=click"]
    rc, out, err = run_cli(capsys, "evaluate", "--judged", str(log), "-m", "RR", "-q", "-f", "csv",
                           "--qrels-column", "query_id=session", "--run-column", "query_id=user", *rest)
    assert rc == 1
    assert "query_id is mapped twice: to 'session' by the qrels mapping" in err
    assert "'user' by the run mapping" in err
    rc, out, err = run_cli(capsys, "evaluate", "--judged", str(log), "-m", "RR", "-q", "-f", "csv",
                           "--qrels-column", "query_id=session", "--run-column", "query_id=session", *rest)
    assert rc == 0, err
    assert per_query(out) == {"s1": 0.5, "s2": 1.0}  # s1: b clicked at rank 2; s2: c at rank 1


def test_a_judged_frame_mapped_two_ways_is_refused_by_the_api():
    import rankframe as rf

    log = pl.DataFrame({"session": ["s1"], "user": ["u1"], "doc_id": ["a"], "score": [1.0], "relevance": [1]})
    with pytest.raises(rf.InputError, match="query_id is mapped twice"):
        rf.evaluate(judged=log, measures=["RR"], qrels_columns={"query_id": "session"},
                    run_columns={"query_id": "user"})
    same = rf.evaluate(judged=log, measures=["RR"], qrels_columns={"query_id": "session"},
                       run_columns={"query_id": "session"})
    assert same["value"].to_list() == [1.0]


# ----------------------------------------------- --dedupe first across the files of a CSV glob
def test_dedupe_first_keeps_the_first_row_in_file_order(capsys, tmp_path):
    # day1 lists a at line 5 (score 1: rank 4 of 4); day2 lists a at line 2 (score 10). The
    # first row in the glob's order is day1's: a ranks 4th, RR 1/4. Each file's own line
    # numbers decided before: day2's line 2 was kept (RR 1), and the duplicate error said
    # "lines 2, 5" without the files.
    (tmp_path / "day1.csv").write_text("query_id,doc_id,score\nq1,x,9\nq1,y,8\nq1,z,7\nq1,a,1\n")
    (tmp_path / "day2.csv").write_text("query_id,doc_id,score\nq1,a,10\n")
    (tmp_path / "q.csv").write_text("query_id,doc_id,relevance\nq1,a,1\n")
    glob = str(tmp_path / "day*.csv")
    rc, out, err = run_cli(capsys, "evaluate", str(tmp_path / "q.csv"), glob,
                           "-m", "RR", "-q", "-f", "csv", "--dedupe", "first")
    assert rc == 0, err
    assert per_query(out) == {"q1": 0.25}
    rc, out, err = run_cli(capsys, "evaluate", str(tmp_path / "q.csv"), glob,
                           "-m", "RR", "-q", "-f", "csv", "--dedupe", "best")
    assert rc == 0, err
    assert per_query(out) == {"q1": 1.0}  # day2's score 10 ranks a first
    rc, out, err = run_cli(capsys, "evaluate", str(tmp_path / "q.csv"), glob, "-m", "RR")
    assert rc == 1
    day1, day2 = tmp_path / "day1.csv", tmp_path / "day2.csv"
    assert f"('q1', 'a') x2 ({day1}, line 5; {day2}, line 2)" in err


def test_errors_in_one_file_of_a_csv_glob_name_that_file(capsys, tmp_path):
    (tmp_path / "day1.csv").write_text("query_id,doc_id,score\nq1,x,9\nq1,a,1\n")
    (tmp_path / "day2.csv").write_text("query_id,doc_id,score\nq1,b,3\nq1,c,inf\n")
    (tmp_path / "q.csv").write_text("query_id,doc_id,relevance\nq1,a,1\n")
    glob = str(tmp_path / "day*.csv")
    rc, out, err = run_cli(capsys, "evaluate", str(tmp_path / "q.csv"), glob, "-m", "RR")
    assert rc == 1
    assert f"{tmp_path / 'day2.csv'}, line 3: the score of query 'q1', doc 'c' is inf" in err
    (tmp_path / "day2.csv").write_text("query_id,doc_id,score\nq1,b,3\nq1,c,zz\n")
    rc, out, err = run_cli(capsys, "evaluate", str(tmp_path / "q.csv"), glob, "-m", "RR")
    assert rc == 1
    assert f"First value that is not a number: 'zz' ({tmp_path / 'day2.csv'}, line 3)" in err


def test_a_rank_mapping_on_parquet_with_the_duckdb_engine(capsys, tmp_path):
    # --engine duckdb scans Parquet runs itself, where rank=pos was refused as an unknown
    # canonical column; the run is now read as the default engine reads it (score = -rank).
    # s1: b (relevant) at position 2: RR 1/2; s2: a at 1: RR 1.
    pytest.importorskip("duckdb")
    pl.DataFrame({"session": ["s1"] * 3 + ["s2"] * 3, "item": ["a", "b", "c"] * 2, "pos": [1, 2, 3] * 2}) \
        .write_parquet(tmp_path / "run.parquet")
    pl.DataFrame({"query_id": ["s1", "s2"], "doc_id": ["b", "a"], "relevance": [1, 1]}) \
        .write_parquet(tmp_path / "q.parquet")
    cols = ["--run-column", "query_id=session", "--run-column", "doc_id=item", "--run-column", "rank=pos"]
    for engine in ("polars", "duckdb"):
        rc, out, err = run_cli(capsys, "evaluate", str(tmp_path / "q.parquet"), str(tmp_path / "run.parquet"),
                               "-m", "RR", "-q", "-f", "csv", "--engine", engine, *cols)
        assert rc == 0, (engine, err)
        assert per_query(out) == {"s1": 0.5, "s2": 1.0}, engine
