"""Nothing half-written (issue 26): outputs appear complete at their destination, or not at all.

An evaluation writing Parquet (the API's ``output=`` with partitions, the CLI's ``-o``) is killed
with SIGKILL, or interrupted with SIGINT (Ctrl-C), at several moments; every time the destination
is absent (or still the previous complete file) or complete and equal to the uninterrupted
result. Ctrl-C exits 130 with one line and no traceback. Failures inside a run (a bad partition)
leave no file either. The other writers (comparison reports, figures, CLI tables) go through the
same :mod:`rankframe._io.atomic`.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import rankframe as rf
from rankframe._io.atomic import atomic_path, write_atomic

MEASURES = ["nDCG@10", "AP", "RR", "R@100", "P@10"]
N_QUERIES, DEPTH = 5_000, 200

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> tuple[Path, Path, pl.DataFrame]:
    """1M run rows in Parquet (about a second to evaluate in 16 partitions), the qrels,
    and the complete per-query result to compare with."""
    folder = tmp_path_factory.mktemp("atomic")
    rng = np.random.default_rng(0)
    q = np.repeat(np.arange(N_QUERIES), DEPTH)
    docs = rng.integers(0, 5_000, size=q.size)
    run = pl.DataFrame({"query_id": q, "doc_id": docs, "score": rng.random(q.size).round(3)}).unique(
        ["query_id", "doc_id"]
    )
    qrels = run.sample(fraction=0.1, seed=1).select(
        "query_id", "doc_id", pl.lit(1, pl.Int64).alias("relevance")
    )
    run_path, qrels_path = folder / "run.parquet", folder / "qrels.parquet"
    run.write_parquet(run_path)
    qrels.write_parquet(qrels_path)
    want = rf.evaluate(qrels_path, run_path, MEASURES, per_query=True)
    return qrels_path, run_path, want


def _api(qrels: Path, run: Path, out: Path) -> list[str]:
    code = (
        "import rankframe as rf; "
        f"rf.evaluate({str(qrels)!r}, {str(run)!r}, {MEASURES!r}, per_query=True, "
        f"output={str(out)!r}, partitions=16, progress=True)"
    )
    return [sys.executable, "-c", code]


def _cli(qrels: Path, run: Path, out: Path) -> list[str]:
    return [sys.executable, "-m", "rankframe", "evaluate", str(qrels), str(run), "-m", *MEASURES,
            "--per-query", "--partitions", "16", "--progress", "-o", str(out)]


def _check(out: Path, want: pl.DataFrame, previous: bytes | None) -> str:
    """The destination is as it was, or complete; returns which."""
    if not out.exists():
        assert previous is None
        return "absent"
    if previous is not None and out.read_bytes() == previous:
        return "previous"
    got = pl.read_parquet(out)  # raises on a truncated file ("must end with PAR1")
    if "run" in got.columns:
        got = got.drop("run")
    assert_frame_equal(got, want, check_row_order=False)
    return "complete"


def _temp_files(folder: Path, name: str) -> list[Path]:
    return [p for p in folder.iterdir() if p.name.startswith(f".{name}.") and p.name.endswith(".tmp")]


def _start_and_wait_for_a_partition(cmd: list[str]) -> subprocess.Popen:
    """Start ``cmd`` (with progress on) and return once it reports its first partition done."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stderr is not None
    first = proc.stderr.readline().decode()
    assert "1/16" in first, first
    return proc


@pytest.mark.parametrize("command", [_api, _cli], ids=["api", "cli"])
def test_sigkill_leaves_the_destination_absent_or_complete(data, tmp_path, command):
    qrels, run, want = data
    seen, mid_run = set(), 0
    # killed: during the imports, after the first partition (the API's output is being
    # written then), a bit later with a previous result at the destination; then a run that ends
    for i, moment in enumerate(("start", "partition", "partition+0.1", None)):
        name = f"out{i}.parquet"
        out = tmp_path / name
        previous = None
        if i == 2:  # a previous complete result at the destination is kept, or replaced whole
            pl.DataFrame({"old": [1]}).write_parquet(out)
            previous = out.read_bytes()
        if moment is None:
            done = subprocess.run(command(qrels, run, out), capture_output=True, timeout=120)
            assert done.returncode == 0, done.stderr.decode()
        else:
            if moment == "start":
                proc = subprocess.Popen(
                    command(qrels, run, out), stdout=subprocess.PIPE, stderr=subprocess.PIPE
                )
                time.sleep(0.3)
            else:
                proc = _start_and_wait_for_a_partition(command(qrels, run, out))
                time.sleep(0.1 if moment.endswith("+0.1") else 0)
            mid_run += moment != "start" and proc.poll() is None
            proc.kill()  # SIGKILL: no handler, no cleanup
            proc.communicate(timeout=60)
        seen.add(_check(out, want, previous))
        # beside the destination: at most the hidden temporary file a killed process leaves
        assert {p.name for p in tmp_path.iterdir() if name in p.name} - {name} == {
            p.name for p in _temp_files(tmp_path, name)
        }
    assert "complete" in seen  # the last run is not killed
    assert mid_run >= 1  # at least one kill hit a run between its partitions


def test_ctrl_c_exits_130_with_one_line_and_no_partial_file(data, tmp_path):
    qrels, run, want = data
    interrupted = 0
    for i in range(2):
        name = f"int{i}.parquet"
        out = tmp_path / name
        proc = _start_and_wait_for_a_partition(_cli(qrels, run, out))
        time.sleep(0.05 * i)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=120)
        lines = [line for line in err.decode().splitlines() if "ranked rows" not in line]  # progress
        if proc.returncode == 0:  # it finished first: a complete file
            assert _check(out, want, None) == "complete"
            continue
        interrupted += 1
        assert proc.returncode == 130, err
        assert lines == ["rankframe: interrupted"]
        assert not out.exists()
        assert _temp_files(tmp_path, name) == []  # removed on the way out
    assert interrupted >= 1


def test_a_failing_partitioned_run_writes_nothing(tmp_path):
    qrels = pl.DataFrame({"query_id": [1, 2], "doc_id": [1, 1], "relevance": [1, 1]})
    run = pl.DataFrame({"query_id": [1, 2, 2], "doc_id": [1, 1, 1], "score": [1.0, 1.0, 2.0]})
    out = tmp_path / "out.parquet"
    with pytest.raises(rf.InputError, match="uplicate"):  # query 2's duplicates fail its partition
        rf.evaluate(qrels, run, ["AP"], per_query=True, output=out, partitions=2)
    assert list(tmp_path.iterdir()) == []


def test_atomic_path_keeps_the_previous_file_on_failure(tmp_path):
    dest = tmp_path / "report.html"
    write_atomic(dest, "old")
    def fail_half_way() -> None:
        with atomic_path(dest) as tmp:
            tmp.write_text("half")
            raise RuntimeError

    with pytest.raises(RuntimeError):
        fail_half_way()
    assert dest.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["report.html"]
    with pytest.raises(IsADirectoryError, match="is a folder"):
        write_atomic(tmp_path, "x")


def test_writers_leave_no_temporary_files(tmp_path):
    qrels, run = "data/qrels.dl19-passage.txt", "data/run.dl19.bm25.txt"
    root = Path(__file__).parent.parent
    qrels, run = root / qrels, root / run
    rf.evaluate(qrels, run, ["AP"], per_query=True, output=tmp_path / "a.parquet")
    rf.evaluate(qrels, {"x": run, "y": run}, ["AP"], per_query=True, output=tmp_path / "b.parquet")
    cmp = rf.compare(qrels, {"x": run, "y": run}, ["AP"])
    cmp.to_csv(tmp_path / "c.csv")
    cmp.to_json(tmp_path / "c.json")
    assert sorted(os.listdir(tmp_path)) == ["a.parquet", "b.parquet", "c.csv", "c.json"]
    one, two = (pl.read_parquet(tmp_path / f"{x}.parquet").height for x in "ab")
    assert two == 2 * one


def test_a_missing_folder_is_named_not_the_temporary_file(tmp_path, capsys):
    from rankframe._cli.main import main

    root = Path(__file__).parent.parent
    qrels, run = root / "data/qrels.dl19-passage.txt", root / "data/run.dl19.bm25.txt"
    dest = tmp_path / "no" / "such" / "out.parquet"
    with pytest.raises(FileNotFoundError, match=r"out\.parquet'.*folder .*such' does not exist"):
        rf.evaluate(qrels, run, ["AP"], per_query=True, output=dest)
    assert main(["evaluate", str(qrels), str(run), "-m", "AP", "-o", str(dest)]) == 1
    err = capsys.readouterr().err
    assert "does not exist" in err
    assert ".tmp" not in err


def test_a_missing_folder_is_named_before_any_partition_runs(tmp_path):
    root = Path(__file__).parent.parent
    qrels, run = root / "data/qrels.dl19-passage.txt", root / "data/run.dl19.bm25.txt"
    dest = tmp_path / "no" / "such" / "out.parquet"
    for options in ({"partitions": 2}, {"run": {"x": run, "y": run}}):
        kwargs = {"run": run, **options}
        with pytest.raises(FileNotFoundError, match=r"out\.parquet'.*folder .*such' does not exist"):
            rf.evaluate(qrels, measures=["AP"], per_query=True, output=dest, **kwargs)
