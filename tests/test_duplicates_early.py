"""Duplicate (query, doc) rows of inputs read from storage are refused before the evaluation.

The error counts every duplicated pair over the whole input (not one partition's) and names the
first ones with their row indexes; the plan is never built (a structural check, no timing).
The oracle of the counts is Polars' own ``group_by`` on the input; ``dedupe`` is checked
against the input deduplicated by hand.
"""

from __future__ import annotations

import re

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import rankframe as rf
import rankframe._engine.collect as collect
from rankframe._cli.main import main
from rankframe._engine.checks import _repeated_hashes

MEASURES = ["AP", "nDCG@10", "P@5"]


def _data(queries: int = 12, docs: int = 8) -> tuple[pl.DataFrame, pl.DataFrame]:
    run = pl.DataFrame({
        "query_id": [f"q{q:02d}" for q in range(queries) for _ in range(docs)],
        "doc_id": [f"d{(q * 7 + d) % 23}" for q in range(queries) for d in range(docs)],
        "score": [float((q * 13 + d * 5) % 11) for q in range(queries) for d in range(docs)],
    })
    qrels = run.filter(pl.col("score") > 4).select(
        "query_id", "doc_id", (pl.col("score") % 3).cast(pl.Int64).alias("relevance")
    )
    return run, qrels


def _with_duplicates(run: pl.DataFrame) -> pl.DataFrame:
    """Copies of late rows, one of them twice (4 pairs, 5 extra rows), each after its row."""
    picks = [run.height - 30, run.height - 20, run.height - 20, run.height - 9, run.height - 1]
    indexed = run.with_row_index("_i")
    copies = pl.concat([indexed.filter(pl.col("_i") == i) for i in picks])
    return pl.concat([indexed, copies]).sort("_i", maintain_order=True).drop("_i")


def _oracle(run: pl.DataFrame) -> tuple[int, int, list[tuple[str, str, int, list[int]]]]:
    """Polars' count of duplicated pairs and extra rows, and the first three with their rows."""
    groups = (
        run.with_row_index("_row").group_by("query_id", "doc_id")
        .agg(pl.len().alias("n"), pl.col("_row").sort().head(3))
        .filter(pl.col("n") > 1).sort(pl.col("_row").list.first())
    )
    first = [(r["query_id"], r["doc_id"], r["n"], r["_row"]) for r in groups.head(3).iter_rows(named=True)]
    return groups.height, int((groups["n"] - 1).sum()), first


def _named(first: list[tuple[str, str, int, list[int]]]) -> str:
    return "; ".join(f"('{q}', '{d}') x{n} (row index {', '.join(map(str, r))})" for q, d, n, r in first)


def _expected_message(run: pl.DataFrame) -> str:
    pairs, extra, first = _oracle(run)
    named = _named(first)
    return f"{pairs:,} (query, doc) pairs listed more than once ({extra:,} extra rows), e.g. {named}."


@pytest.fixture
def no_plan(monkeypatch):
    """Fail if the evaluation plan is built: the error must come before it."""
    def refuse(*args, **kwargs):
        raise AssertionError("the evaluation plan was built before the duplicates were said")

    monkeypatch.setattr(collect, "per_query_plan", refuse)


@pytest.fixture
def files(tmp_path):
    run, qrels = _data()
    dup = _with_duplicates(run)
    qrels.write_parquet(tmp_path / "qrels.parquet")
    dup.write_parquet(tmp_path / "run.parquet")
    folder = tmp_path / "parts"
    folder.mkdir()
    queries = dup["query_id"].unique(maintain_order=True).to_list()
    for i in range(3):  # no query spans two files; the duplicates are in the last one
        dup.filter(pl.col("query_id").is_in(queries[i * 4:(i + 1) * 4])).write_parquet(
            folder / f"part-{i}.parquet"
        )
    return tmp_path, run, dup


@pytest.mark.parametrize(("path", "partitions"), [
    ("run.parquet", None), ("run.parquet", 3), ("run.parquet", "auto"), ("parts/*.parquet", None),
    ("parts/*.parquet", 2),
])
def test_parquet_duplicates_counted_before_the_plan(files, no_plan, path, partitions) -> None:
    tmp, _, dup = files
    with pytest.raises(rf.InputError) as e:
        rf.evaluate(tmp / "qrels.parquet", str(tmp / path), MEASURES, partitions=partitions)
    msg = str(e.value)
    assert msg.startswith(f"{tmp / path}: duplicate (query, doc) rows in the run: ")
    assert _expected_message(dup) in msg
    assert "dedupe='best'" in msg


def test_files_mode_names_the_file_and_its_rows(files, no_plan) -> None:
    tmp, _, dup = files
    last = pl.read_parquet(tmp / "parts" / "part-2.parquet")
    with pytest.raises(rf.InputError) as e:
        rf.evaluate(tmp / "qrels.parquet", str(tmp / "parts"), MEASURES, partitions="files")
    msg = str(e.value)
    assert msg.startswith(f"{tmp / 'parts' / 'part-2.parquet'}: duplicate (query, doc) rows in the run")
    assert _expected_message(last) in msg  # the rows of that file
    assert _oracle(last)[:2] == _oracle(dup)[:2]  # every duplicate is in it


def test_frames_partitioned_count_the_whole_input(no_plan) -> None:
    # hash buckets validated one by one used to name one bucket's duplicates, without a total
    run, qrels = _data()
    dup = _with_duplicates(run)
    with pytest.raises(rf.InputError, match=re.escape(_expected_message(dup))):
        rf.evaluate(qrels, dup, MEASURES, partitions=4)


def _qrels_with_duplicates(tmp_path) -> tuple[pl.DataFrame, str, str]:
    run, qrels = _data()
    pl.concat([qrels, qrels.tail(4)]).write_parquet(tmp_path / "qrels.parquet")
    said = r"in the qrels: 4 \(query, doc\) pairs listed more than once \(4 extra rows\)"
    return run, str(tmp_path / "qrels.parquet"), said


def test_qrels_duplicates_before_partitions(tmp_path, no_plan) -> None:
    run, qrels, said = _qrels_with_duplicates(tmp_path)
    with pytest.raises(rf.InputError, match=said):
        rf.evaluate(qrels, run, MEASURES, partitions=2)


def test_qrels_duplicates_of_one_plan_counted_whole(tmp_path) -> None:
    # one plan leaves the judgments to its own screen (no second read of them): the same count
    run, qrels, said = _qrels_with_duplicates(tmp_path)
    with pytest.raises(rf.InputError, match=said):
        rf.evaluate(qrels, run, MEASURES, partitions=None)


def test_cli_says_the_total_before_evaluating(files, no_plan, capsys) -> None:
    tmp, _, dup = files
    code = main(["evaluate", str(tmp / "qrels.parquet"), str(tmp / "run.parquet"), "-m", *MEASURES,
                 "--partitions", "2"])
    err = capsys.readouterr().err
    assert code != 0
    assert "Traceback" not in err
    assert _expected_message(dup) in err
    assert "--dedupe best" in err


@pytest.mark.parametrize("partitions", [None, 3, "files"])
@pytest.mark.parametrize("how", ["best", "first"])
def test_dedupe_gives_the_numbers_of_the_input_deduplicated_by_hand(files, partitions, how) -> None:
    tmp, _, dup = files
    pair = ["query_id", "doc_id"]
    if how == "best":
        hand = dup.group_by(pair, maintain_order=True).agg(pl.col("score").max())
    else:
        hand = dup.group_by(pair, maintain_order=True).agg(pl.col("score").first())
    qrels = pl.read_parquet(tmp / "qrels.parquet")
    want = rf.evaluate(qrels, hand, MEASURES, per_query=True)
    run = str(tmp / ("parts" if partitions == "files" else "run.parquet"))
    got = rf.evaluate(tmp / "qrels.parquet", run, MEASURES, per_query=True, partitions=partitions, dedupe=how)
    assert_frame_equal(got, want)


def test_the_screen_in_hash_parts_finds_the_same() -> None:
    # under a tight memory budget the screen runs hash % parts by hash % parts
    run, _ = _data()
    lf = _with_duplicates(run).lazy()
    one = _repeated_hashes(lf, []).sort()
    assert one.len() == 4
    assert_frame_equal(_repeated_hashes(lf, [], parts=4).sort().to_frame(), one.to_frame())


@pytest.mark.filterwarnings("ignore::rankframe.RankframeWarning")
@settings(deadline=None)
@given(rows=st.lists(st.tuples(st.sampled_from("abc"), st.sampled_from("wxyz"), st.integers(0, 3)),
                     min_size=1, max_size=30))
def test_counts_and_rows_match_polars(rows) -> None:
    run = pl.DataFrame(rows, schema=["query_id", "doc_id", "score"], orient="row").with_columns(
        pl.col("score").cast(pl.Float64)
    )
    qrels = pl.DataFrame({"query_id": ["a"], "doc_id": ["w"], "relevance": [1]})
    pairs = _oracle(run)[0]
    if not pairs:
        rf.evaluate(qrels, run.lazy(), ["P@1"], partitions=None)
        return
    with pytest.raises(rf.InputError) as e:  # in memory: the plan's screen, then the lookup
        rf.evaluate(qrels, run.lazy(), ["P@1"], partitions=None)
    msg = str(e.value)
    if pairs > 3:
        assert _expected_message(run) in msg
    else:  # up to three pairs: all of them named, no count
        assert f"rows in the run: {_named(_oracle(run)[2])}." in msg


def test_the_screen_splits_to_fit_the_memory(monkeypatch) -> None:
    from rankframe._engine import checks, memory

    run = pl.LazyFrame({"query_id": ["q"] * 3, "doc_id": ["a", "b", "c"], "score": [1.0] * 3})
    prep = type("Prep", (), {"run": run})()
    assert checks.screen_parts(prep) == 1
    # 10M rows (240 MiB of screen) under 200 MiB: parts of at most ~60 MiB
    monkeypatch.setattr(prep, "run", pl.LazyFrame({"i": range(10)}).select(pl.int_range(10_000_000)))
    monkeypatch.setattr(memory, "available", lambda: memory.Budget(200 << 20, "test", None, ""))
    assert checks.screen_parts(prep) == 4
    # a budget below the fixed cost of a scan: no more parts than gain anything
    monkeypatch.setattr(memory, "available", lambda: memory.Budget(1 << 20, "test", None, ""))
    assert checks.screen_parts(prep) == 16
