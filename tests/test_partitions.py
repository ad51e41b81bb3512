"""Query-partitioned evaluation gives exactly the numbers of one plan, on every engine.

Exact equality (not a tolerance): per-query sums are taken in a fixed order (``fsum``), so the
streaming engine, the in-memory engine, hash buckets and file partitions must agree bit for bit.
"""

from __future__ import annotations

import tempfile
import warnings
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankframe as rf
from rankframe import InputError
from rankframe._measures import REGISTRY, Measure, load_all

load_all()


def _default(cls: type[Measure]) -> Measure | None:
    try:
        m = cls()
    except rf.MeasureError:
        cutoff = next((p for p in cls.PARAMS if p.name == "cutoff"), None)
        if cutoff is None:
            return None
        m = cls(cutoff=10 if cutoff.kind == "int" else 0.5)
    return m if m.DTYPE == pl.Float64 else None


#: One default instance of every numeric family, and a few cutoffs.
#: (the recommender families, which read side inputs, are partitioned in test_recsys.py)
MEASURES = [
    m for cls in REGISTRY.values() if cls.NEEDS_JUDGMENTS and (m := _default(cls)) is not None
] + [
    rf.measures.nDCG @ 10, rf.measures.P @ 5, rf.measures.AP @ 100,
]


def _data(seed: int = 0, queries: int = 60) -> tuple[pl.DataFrame, pl.DataFrame]:
    """A run with score ties, unjudged and negative judgments, judged unretrieved documents,
    judged queries without results and run queries without judgments."""
    rng = np.random.default_rng(seed)
    rows = []
    for q in range(queries):
        n = int(rng.integers(1, 40))
        docs = rng.choice(200, size=n, replace=False)
        scores = rng.integers(0, 8, size=n) / 4  # many exact ties
        rows += [(f"q{q}", f"d{d}", float(s)) for d, s in zip(docs, scores, strict=True)]
    run = pl.DataFrame(rows, schema=["query_id", "doc_id", "score"], orient="row")
    judged = []
    for q in range(5, queries + 5):  # q0-q4 unjudged, q60-q64 judged but not retrieved
        docs = rng.choice(200, size=int(rng.integers(1, 30)), replace=False)
        judged += [(f"q{q}", f"d{d}", int(rng.integers(-1, 4))) for d in docs]
    qrels = pl.DataFrame(judged, schema=["query_id", "doc_id", "relevance"], orient="row")
    return qrels, run


def _eval(qrels: pl.DataFrame, run: object, **kw: object) -> pl.DataFrame:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return rf.evaluate(qrels, run, MEASURES, per_query=True, **kw)


@pytest.fixture(scope="module")
def data() -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    qrels, run = _data()
    return qrels, run, _eval(qrels, run)


@pytest.mark.parametrize("partitions", [1, 3, 7])
@pytest.mark.parametrize("complete", [False, True])
def test_hash_buckets_equal_one_plan(data: tuple, partitions: int, complete: bool) -> None:
    qrels, run, _ = data
    whole = _eval(qrels, run, complete=complete)
    parts = _eval(qrels, run, complete=complete, partitions=partitions)
    assert parts.equals(whole)


def test_engines_and_repeats_agree_bit_for_bit(data: tuple) -> None:
    qrels, run, whole = data
    assert _eval(qrels, run).equals(whole)  # the same plan twice
    with pl.Config() as cfg:
        cfg.set_engine_affinity("in-memory")
        assert _eval(qrels, run).equals(whole)
        assert _eval(qrels, run, partitions=4).equals(whole)


#: A mix of hits-only and general-plan families (the property test below runs many examples).
MIXED = ["AP", "nDCG@3", "ERR@3", "Bpref", "RR", "P@2", "infAP", "KendallTau", "AUC", "RBP",
         "Judged@2", "IPrecAvg", "R@1000"]


@st.composite
def _small_inputs(draw: st.DrawFn) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Tiny frames with the edge cases: ties, single documents, empty and one-sided queries,
    negative and zero grades, ids that sort differently as text and as numbers."""
    docs, queries = ("1", "2", "10", "9", "a", "B"), ("q1", "q2", "10", "9", "x")
    run, qrels = [], []
    for q in draw(st.lists(st.sampled_from(queries), min_size=1, max_size=5, unique=True)):
        ranked = draw(st.lists(st.sampled_from(docs), max_size=6, unique=True))
        run += [(q, d, draw(st.sampled_from((0.0, 1.0, 1.0, 2.5)))) for d in ranked]
        judged = draw(st.lists(st.sampled_from(docs), max_size=6, unique=True))
        qrels += [(q, d, draw(st.sampled_from((-1, 0, 1, 2)))) for d in judged]
    run_df = pl.DataFrame(run, schema={"query_id": pl.String, "doc_id": pl.String,
                                       "score": pl.Float64}, orient="row")
    qrels_df = pl.DataFrame(qrels, schema={"query_id": pl.String, "doc_id": pl.String,
                                           "relevance": pl.Int64}, orient="row")
    return qrels_df, run_df


@settings(max_examples=settings.default.max_examples * 20 // 20, deadline=None)
@given(data=_small_inputs(), partitions=st.sampled_from([1, 2, 7]), complete=st.booleans())
def test_partitions_and_engines_equal_one_plan_on_edge_cases(
    data: tuple, partitions: int, complete: bool
) -> None:
    qrels, run = data

    def evaluate(**kw: object) -> tuple[pl.DataFrame, list[str]]:
        source = kw.pop("run", run)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = rf.evaluate(qrels, source, MIXED, per_query=True, complete=complete, **kw)
        return out, sorted(str(w.message) for w in caught)

    whole, said = evaluate()
    parts, parts_said = evaluate(partitions=partitions)  # most buckets empty with 7
    assert parts.equals(whole)  # bit for bit, and the same rows in the same order
    assert parts_said == said
    if run.height:  # the run written by query into files (some files hold no judged query)
        with tempfile.TemporaryDirectory() as tmp:
            owner = run["query_id"].hash(seed=3) % partitions
            for i in range(partitions):
                if (owner == i).any():
                    run.filter(owner == i).write_parquet(Path(tmp) / f"part-{i}.parquet")
            files, files_said = evaluate(run=tmp, partitions="files")
        assert files.equals(whole)
        assert files_said == said
    with pl.Config() as cfg:
        cfg.set_engine_affinity("in-memory")
        assert evaluate()[0].equals(whole)


def _write_by_query(run: pl.DataFrame, folder: Path, files: int) -> None:
    folder.mkdir()
    bucket = run["query_id"].str.slice(1).cast(pl.Int64) % files
    for i in range(files):
        run.filter(bucket == i).write_parquet(folder / f"part-{i}.parquet")


@pytest.mark.parametrize("complete", [False, True])
def test_files_equal_one_plan(data: tuple, tmp_path: Path, complete: bool) -> None:
    qrels, run, _ = data
    _write_by_query(run, tmp_path / "run", 4)
    whole = _eval(qrels, run, complete=complete)
    for source in (tmp_path / "run", str(tmp_path / "run" / "part-*.parquet")):
        assert _eval(qrels, source, complete=complete, partitions="files").equals(whole)


def test_several_runs_and_breakdowns(tmp_path: Path) -> None:
    qrels, run = _data(1)
    other = run.with_columns(pl.col("score").reverse().over("query_id"))
    both = pl.concat([
        run.with_columns(run=pl.lit("a"), locale=pl.lit("en")),
        other.with_columns(run=pl.lit("b"), locale=pl.col("query_id").str.len_chars().cast(pl.String)),
    ])
    for complete in (False, True):
        whole = _eval(qrels, both, by=["locale"], complete=complete)
        assert _eval(qrels, both, by=["locale"], complete=complete, partitions=5).equals(whole)
        folder = tmp_path / f"runs-{complete}"
        _write_by_query(both, folder, 3)
        files = _eval(qrels, folder, by=["locale"], complete=complete, partitions="files")
        assert files.equals(whole)
        means = rf.evaluate(qrels, both, ["AP"], by=["locale"], complete=complete)
        assert rf.evaluate(
            qrels, both, ["AP"], by=["locale"], complete=complete, partitions=3
        ).equals(means)


@pytest.mark.parametrize("complete", [False, True])
def test_one_file_per_day_with_the_day_a_breakdown(tmp_path: Path, complete: bool) -> None:
    # the logs' layout: a query repeats across the daily files; keyed by (day, query) the files
    # are evaluated one by one, with one plan's numbers
    qrels, run = _data(2)
    days = run.with_columns(day=pl.lit("mon"))
    tue = run.filter(pl.col("query_id").str.slice(1).cast(pl.Int64) % 3 != 0).with_columns(
        pl.col("score").reverse().over("query_id"), day=pl.lit("tue"))
    folder = tmp_path / "days"
    folder.mkdir()
    days.write_parquet(folder / "day=mon.parquet")
    tue.write_parquet(folder / "day=tue.parquet")
    both = pl.concat([days, tue])
    whole = _eval(qrels, both, by=["day"], complete=complete)
    assert _eval(qrels, folder, by=["day"], complete=complete, partitions="files").equals(whole)
    # without the day as a breakdown the query is in two files: the error says what to pass
    with pytest.raises(InputError, match=r"is in two run files.*pass that breakdown \(by=\['day'\]"):
        rf.evaluate(qrels, folder, ["AP"], partitions="files")
    # with the day in the qrels too, each (day) group is owed its judged queries: one file each
    day_qrels = pl.concat([qrels.with_columns(day=pl.lit(d)) for d in ("mon", "tue")])
    with pytest.raises(InputError, match="is in two run files"):
        rf.evaluate(day_qrels, folder, ["AP"], by=["day"], partitions="files")


def test_warnings_are_those_of_one_plan(data: tuple) -> None:
    qrels, run, _ = data
    with pytest.warns(rf.RankframeWarning) as whole:
        rf.evaluate(qrels, run, ["AP"])
    with pytest.warns(rf.RankframeWarning) as parts:
        rf.evaluate(qrels, run, ["AP"], partitions=3)
    assert [str(w.message) for w in parts] == [str(w.message) for w in whole]
    assert "5 judged queries are missing" in str(whole[0].message)


def test_warnings_point_at_the_caller(data: tuple, tmp_path: Path) -> None:
    qrels, run, _ = data
    _write_by_query(run, tmp_path / "run", 2)
    for kw in ({}, {"partitions": 3}, {"partitions": "files"}):
        source = tmp_path / "run" if kw.get("partitions") == "files" else run
        with pytest.warns(rf.RankframeWarning) as caught:
            rf.evaluate(qrels, source, ["AP"], **kw)
        assert {w.filename for w in caught} == {__file__}, kw
    with pytest.warns(rf.RankframeWarning) as caught:  # runs evaluated apart
        rf.evaluate(qrels, {"a": run, "b": run}, ["AP"])
    assert {w.filename for w in caught} == {__file__}
    other = run.filter(pl.col("query_id") != "q7")  # compare: evaluate's warnings and its own
    with pytest.warns(rf.RankframeWarning) as caught:
        rf.compare(qrels, {"a": run, "b": other}, ["AP"], complete=False)
    assert any("not scored for every run" in str(w.message) for w in caught)
    assert any("missing from" in str(w.message) for w in caught)
    assert {w.filename for w in caught} == {__file__}


@pytest.mark.filterwarnings("ignore::rankframe.RankframeWarning")
def test_output_and_progress(data: tuple, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    qrels, run, whole = data
    out = tmp_path / "per_query.parquet"
    means = rf.evaluate(qrels, run, ["AP", "nDCG@10"], partitions=3, progress=True, output=out)
    err = capsys.readouterr().err
    assert err.count("rankframe: bucket") == 3
    assert "ranked rows" in err
    written = pl.read_parquet(out).sort("query_id", "measure")
    expected = whole.filter(pl.col("measure").is_in(["AP", "nDCG@10"])).sort("query_id", "measure")
    assert written.equals(expected)
    assert means.equals(rf.evaluate(qrels, run, ["AP", "nDCG@10"]))
    rf.evaluate(qrels, run, ["AP"], output=tmp_path / "plain.parquet")
    assert capsys.readouterr().err == ""  # quiet without progress=True
    # one plan (no partitions): one line when it is done, with what it ranked
    rf.evaluate(qrels, run, ["AP"], progress=True)
    line = capsys.readouterr().err
    counts = f"{run.height:,} ranked rows, {run['query_id'].n_unique():,} queries, "
    assert line.startswith(f"rankframe: one plan: {counts}")
    assert line.count("\n") == 1
    assert pl.read_parquet(tmp_path / "plain.parquet").equals(whole.filter(pl.col("measure") == "AP"))


def test_progress_moves_while_a_plan_runs(capsys: pytest.CaptureFixture) -> None:
    import time

    from rankframe._engine.collect import heartbeat

    with heartbeat("one plan", every=0.05):
        time.sleep(0.3)  # a plan that says nothing while it runs
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) >= 3  # not a terminal: a line per beat
    assert all(line.startswith("rankframe: one plan: running, ") and line.endswith(" s") for line in lines)
    with heartbeat(None, every=0.05):
        time.sleep(0.1)
    assert capsys.readouterr().err == ""


def test_bad_partitioning(data: tuple, tmp_path: Path) -> None:
    qrels, run, _ = data
    with pytest.raises(InputError, match="int >= 1, 'auto' or 'files'"):
        rf.evaluate(qrels, run, ["AP"], partitions=0)
    with pytest.raises(InputError, match="needs the run as a path"):
        rf.evaluate(qrels, run, ["AP"], partitions="files")
    folder = tmp_path / "split"
    folder.mkdir()
    run.head(10).write_parquet(folder / "a.parquet")
    run.head(12).tail(3).write_parquet(folder / "b.parquet")  # shares a query with a.parquet
    with pytest.raises(InputError, match="is in two run files"):
        rf.evaluate(qrels, folder, ["AP"], partitions="files")
    fractional = qrels.with_columns(pl.col("relevance").cast(pl.Float64) + 0.5)
    with pytest.raises(InputError, match="not an integer"):
        rf.evaluate(fractional, run, ["AP"], partitions=2)
    dup = pl.concat([run, run.head(1)])
    with pytest.raises(InputError, match="twice|duplicate"):
        rf.evaluate(qrels, dup, ["AP"], partitions=2)


def test_cli_partitions(data: tuple, tmp_path: Path) -> None:
    from rankframe._cli.main import main

    qrels, run, _ = data
    _write_by_query(run, tmp_path / "run", 3)
    qrels.write_parquet(tmp_path / "qrels.parquet")
    outs = []
    for extra in ([], ["--partitions", "files"], ["--partitions", "4"]):
        out = tmp_path / f"out{len(outs)}.csv"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            code = main(["evaluate", str(tmp_path / "qrels.parquet"), str(tmp_path / "run"),
                         "-m", "AP", "nDCG@10", "-q", "-f", "csv", "-o", str(out), *extra])
        assert code == 0
        outs.append(pl.read_csv(out))
    assert outs[1].equals(outs[0])
    assert outs[2].equals(outs[0])


@pytest.mark.parametrize("complete", [False, True])
def test_runs_given_apart_equal_one_stacked_plan(complete: bool) -> None:
    # a dict of runs is evaluated one plan per run; a frame with a run column in one plan
    qrels, run = _data(2)
    other = _data(3)[1]
    apart = {"a": run, "b": other.filter(pl.col("query_id") != "q7")}
    stacked = pl.concat([df.with_columns(run=pl.lit(name)) for name, df in apart.items()])
    with pytest.warns(rf.RankframeWarning) as w_apart:
        got = rf.evaluate(qrels, apart, MEASURES, per_query=True, complete=complete)
    with pytest.warns(rf.RankframeWarning) as w_stacked:
        want = rf.evaluate(qrels, stacked, MEASURES, per_query=True, complete=complete)
    assert got.equals(want)
    assert [str(w.message) for w in w_apart] == [str(w.message) for w in w_stacked]


def test_runs_given_apart_are_validated(data: tuple) -> None:
    qrels, run, _ = data
    dup = pl.concat([run, run.head(1)])
    with pytest.raises(InputError, match="run 'second'"):
        rf.evaluate(qrels, {"first": run, "second": dup}, ["AP"])
    fractional = qrels.with_columns(pl.col("relevance").cast(pl.Float64) + 0.5)
    with pytest.raises(InputError, match="not an integer"):
        rf.evaluate(fractional, {"first": run, "second": run}, ["AP"])


@pytest.mark.parametrize("partitions", [None, 3])
def test_division_by_a_cutoff_is_correctly_rounded(partitions: int | None) -> None:
    # Polars multiplies by 1/k when it divides a column by a scalar (3/10 -> 0.30000000000000004,
    # depending on chunking); P@k and Unjudged@k divide for real, as trec_eval does.
    qrels, run = _data(seed=5)
    got = rf.evaluate(qrels, run, ["P@10", "P@3", "Unjudged@10"], per_query=True, partitions=partitions)
    wide = got.pivot(on="measure", index="query_id", values="value")
    for name, k in (("P@10", 10), ("P@3", 3), ("Unjudged@10", 10)):
        values = wide[name].to_list()
        assert all(v == round(v * k) / k for v in values), name  # h / k, correctly rounded
    # the data holds counts whose reciprocal product is off by one bit (3 * 0.1 != 3 / 10)
    tenths = wide["P@10"].to_list() + wide["Unjudged@10"].to_list()
    assert any(round(v * 10) * 0.1 != round(v * 10) / 10 for v in tenths)



def test_rbp_weights_do_not_depend_on_the_partition() -> None:
    # Polars' pow of a literal base takes another path on a single value (0.8 ** 4 is a last bit
    # off there): RBP's weights, list arithmetic over the values of many queries at once, would
    # then depend on how the values of the other queries of the partition are chunked
    # (measured with a plain pow: one query of this data a last bit off in about one run in
    # three, so each comparison runs several times).
    qrels, run = _data(seed=3)
    measures = [*MEASURES, "RBP(rel=1)", "RBP(gains={1: 2.0})", "RBPResidual(p=0.8)"]
    whole = rf.evaluate(qrels, run, measures, per_query=True)
    for partitions in (2, 7, 2, 7, 2, 7, 2, 7):
        assert rf.evaluate(qrels, run, measures, per_query=True, partitions=partitions).equals(whole)
