"""Nothing half-written (issue 26): outputs appear complete at their destination, or not at all.

An evaluation writing Parquet (the API's ``output=`` with partitions, the CLI's ``-o``) is killed
with SIGKILL, or interrupted with SIGINT (Ctrl-C), at several moments; every time the destination
is absent (or still the previous complete file) or complete and equal to the uninterrupted
result. Ctrl-C exits 130 with one line and no traceback. Failures inside a run (a bad partition)
leave no file either. The other writers (comparison reports, figures, CLI tables) go through the
same :mod:`rankframe._io.atomic`.
"""

from __future__ import annotations

import errno
import os
import re
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
    with pytest.raises(rf.OutputError, match="is a folder"):
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
    with pytest.raises(rf.OutputError, match=r"out\.parquet'.*folder .*such' does not exist"):
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
        with pytest.raises(rf.OutputError, match=r"out\.parquet'.*folder .*such' does not exist"):
            rf.evaluate(qrels, measures=["AP"], per_query=True, output=dest, **kwargs)


# ----------------------------------------------------------------------------- issue 38
# Replacing a file keeps its mode and owner; links are followed; devices and FIFOs are written in
# place; SIGTERM/SIGHUP leave no temporary file; a full disk is an OutputError naming the path;
# the destination is checked before the evaluation.
ROOT = Path(__file__).parent.parent
QRELS, BM25 = ROOT / "data/qrels.dl19-passage.txt", ROOT / "data/run.dl19.bm25.txt"
IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


def _leftovers(folder: Path) -> list[str]:
    """The temporary files rankframe left in ``folder``."""
    return sorted(p.name for p in folder.iterdir() if p.name.startswith(".") and p.name.endswith(".tmp"))


def _cli_argv(*args: str) -> list[str]:
    return [sys.executable, "-m", "rankframe", *args]


def test_replacing_a_file_keeps_its_mode_and_a_new_file_gets_the_umask(tmp_path):
    from rankframe._cli.main import main

    secret, report = tmp_path / "secret.csv", tmp_path / "report.csv"
    for path in (secret, report):
        path.write_text("old")
    secret.chmod(0o600)
    report.chmod(0o640)
    assert main(["evaluate", str(QRELS), str(BM25), "-m", "AP", "-o", str(secret)]) == 0
    rf.compare(QRELS, [BM25, BM25], ["AP"]).to_csv(report)
    assert (secret.stat().st_mode & 0o777, report.stat().st_mode & 0o777) == (0o600, 0o640)
    assert secret.read_text().startswith("run,measure,value")
    previous = os.umask(0o027)
    try:
        rf.evaluate(QRELS, BM25, ["AP"], per_query=True, output=tmp_path / "new.parquet")
        write_atomic(tmp_path / "new.txt", "text")
    finally:
        os.umask(previous)
    for name in ("new.parquet", "new.txt"):  # 0o666 less the umask, as open() gives
        assert (tmp_path / name).stat().st_mode & 0o777 == 0o640, name
    assert _leftovers(tmp_path) == []


@pytest.mark.skipif(not IS_ROOT, reason="only root gives a file another owner")
def test_replacing_a_file_keeps_its_owner(tmp_path):
    dest = tmp_path / "theirs.txt"
    dest.write_text("old")
    os.chown(dest, 65534, 65534)
    write_atomic(dest, "new")
    assert (dest.stat().st_uid, dest.stat().st_gid, dest.read_text()) == (65534, 65534, "new")


def test_a_symbolic_link_is_followed_and_kept(tmp_path):
    from rankframe._cli.main import main

    (tmp_path / "results").mkdir()
    target = tmp_path / "results" / "run.csv"
    target.write_text("old")
    link = tmp_path / "latest.csv"
    link.symlink_to("results/run.csv")
    assert main(["evaluate", str(QRELS), str(BM25), "-m", "AP", "-o", str(link)]) == 0
    assert link.is_symlink()
    assert os.readlink(link) == "results/run.csv"
    assert target.read_text().startswith("run,measure,value")
    dangling = tmp_path / "next.parquet"  # a link to a file that does not exist yet: created
    dangling.symlink_to("results/next.parquet")
    rf.evaluate(QRELS, BM25, ["AP"], per_query=True, output=dangling)
    assert dangling.is_symlink()
    assert pl.read_parquet(tmp_path / "results/next.parquet").height == 43
    assert _leftovers(tmp_path) == _leftovers(tmp_path / "results") == []


def test_a_fifo_is_written_in_place(tmp_path):
    import threading

    fifo = tmp_path / "pipe.csv"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    rf.compare(QRELS, [BM25, BM25], ["AP"]).to_csv(fifo)
    reader.join(timeout=30)
    assert fifo.is_fifo()  # not replaced by a regular file
    assert got
    assert got[0].startswith(b"measure,run,n,mean")


def _full_device(tmp_path: Path) -> Path:
    """A device that answers every write with ENOSPC: a private /dev/full for root (a test that
    regressed must not replace the system's), the system's for others (who cannot replace it)."""
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    if not IS_ROOT:
        return Path("/dev/full")
    import stat

    node = tmp_path / "full"
    full = os.stat("/dev/full")
    os.mknod(node, stat.S_IFCHR | 0o666, full.st_rdev)
    try:
        with open(node, "wb", buffering=0) as f:  # noqa: PTH123
            f.write(b"x")
    except OSError as err:
        if err.errno != errno.ENOSPC:  # a file system mounted nodev
            pytest.skip(f"cannot use a device node here: {err}")
    return node


def test_a_full_device_is_an_output_error_naming_it(tmp_path, capsys):
    from rankframe._cli.main import main

    full = _full_device(tmp_path)
    left = "no space is left on its device"
    with pytest.raises(rf.OutputError, match=rf"Cannot write '{full}': {left}\. Free"):
        rf.evaluate(QRELS, BM25, ["AP"], per_query=True, output=full)
    with pytest.raises(rf.OutputError, match="no space is left"):
        rf.compare(QRELS, [BM25, BM25], ["AP"]).to_json(full)
    assert main(["evaluate", str(QRELS), str(BM25), "-m", "AP", "-o", str(full)]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert "Traceback" not in err
    fix = "Free some space, or write to another disk."
    assert err == f"rankframe: Cannot write '{full}' (-o): {left}. {fix}\n"
    assert full.is_char_device()


def test_a_file_past_the_size_limit_is_an_output_error_and_no_temporary_file(tmp_path):
    """ulimit -f: the write fails with EFBIG (Python ignores SIGXFSZ), from Polars and Python."""
    resource = pytest.importorskip("resource")
    previous = tmp_path / "previous.csv"
    previous.write_text("old")

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))

    api = (
        "import rankframe as rf\n"
        f"rf.evaluate({str(QRELS)!r}, {str(BM25)!r}, ['official'], per_query=True, "
        f"output={str(tmp_path / 'api.parquet')!r})\n"
    )
    runs = {
        "api": [sys.executable, "-c", api],
        "cli": _cli_argv(
            "evaluate", str(QRELS), str(BM25), "-m", "official", "--per-query", "-o", str(previous)
        ),
    }
    said = {}
    for name, argv in runs.items():
        done = subprocess.run(argv, capture_output=True, text=True, preexec_fn=limit, timeout=120)
        assert done.returncode == 1, (name, done.stderr)
        said[name] = done.stderr
    assert said["cli"] == (
        f"rankframe: Cannot write '{previous}' (-o): the file would be larger than this process may "
        "write (the file-size limit, ulimit -f). Raise the limit, or write a smaller output.\n"
    )
    last = said["api"].strip().splitlines()[-1]
    api_out = tmp_path / "api.parquet"
    assert last.startswith(f"rankframe._errors.OutputError: Cannot write '{api_out}': the file"), last
    assert previous.read_text() == "old"  # the previous file is kept
    assert not (tmp_path / "api.parquet").exists()
    assert _leftovers(tmp_path) == []


def _tmpfs(folder: Path, options: str):
    """Mount a tmpfs with these options on ``folder`` while inside (skip where it cannot be)."""
    mount = ["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(folder)]
    mounted = subprocess.run(mount, capture_output=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs ({options}): {mounted.stderr.decode().strip()}")
    yield folder
    subprocess.run(["umount", str(folder)], check=True)


@pytest.fixture
def small_disk(tmp_path):
    """A 16 KiB tmpfs (root, where mounting is allowed), unmounted after the test."""
    if not IS_ROOT or not sys.platform.startswith("linux"):
        pytest.skip("mounting a tmpfs needs root on Linux")
    folder = tmp_path / "disk"
    folder.mkdir()
    yield from _tmpfs(folder, "size=16k")


def test_a_full_disk_is_an_output_error_naming_the_path(small_disk, capsys):
    from rankframe._cli.main import main

    previous = small_disk / "table.csv"
    previous.write_text("old")
    report = small_disk / "report.html"
    with pytest.raises(rf.OutputError, match=rf"Cannot write '{report}': no space is left on its device"):
        rf.compare(QRELS, [BM25, BM25], ["AP"]).to_html(report)  # ~200 KiB of HTML
    argv = ["evaluate", str(QRELS), str(BM25), "-m", "official", "--per-query", "-o", str(previous)]
    assert main(argv) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert "Traceback" not in err
    assert err.startswith(f"rankframe: Cannot write '{previous}' (-o): no space is left on its device"), err
    assert previous.read_text() == "old"
    assert sorted(os.listdir(small_disk)) == ["table.csv"]  # no temporary file, no report


@pytest.fixture
def read_only_folder(tmp_path):
    """A folder this process cannot write to: read-only mounted for root, mode 0o555 for others."""
    folder = tmp_path / "ro"
    folder.mkdir()
    if not IS_ROOT:
        folder.chmod(0o555)
        yield folder
        folder.chmod(0o755)
        return
    yield from _tmpfs(folder, "ro,size=64k")


def test_an_unwritable_folder_is_refused_before_the_evaluation(read_only_folder, monkeypatch, capsys):
    import rankframe._cli.compare as cli_compare
    import rankframe._cli.evaluate as cli_evaluate
    from rankframe._cli.main import main

    def not_now(*args, **kwargs):
        raise AssertionError("the evaluation ran before the output was checked")

    monkeypatch.setattr(cli_evaluate, "evaluate", not_now)
    monkeypatch.setattr("rankframe._compare.comparison.compare", not_now)
    dest = read_only_folder / "out.csv"
    cause = "the file system is read-only" if IS_ROOT else "permission denied"
    for argv in (
        ["evaluate", str(QRELS), str(BM25), "-o", str(dest)],
        ["compare", str(QRELS), str(BM25), str(BM25), "--html", str(dest)],
        ["compare", str(QRELS), str(BM25), str(BM25), "--figures", str(read_only_folder / "figs")],
    ):
        assert main(argv) == 1, argv
        out, err = capsys.readouterr()
        assert out == ""
        assert "Traceback" not in err
        said = rf"rankframe: Cannot write '[^']*' \((-o|--html|--figures)\): {cause}\. Give .*\n"
        assert re.fullmatch(said, err), err
    with pytest.raises(rf.OutputError, match=rf"Cannot write '{dest}': {cause}"):
        rf.evaluate(QRELS, BM25, ["AP"], output=dest, engine="not even checked")
    assert cli_compare is not None


# SIGTERM and SIGHUP end a process without clean-up by default: atomic_path removes its temporary
# file first. A child holds a temporary file and tells its name; the parent sends the signal.
_HOLD = """
import signal, sys, time
from rankframe._io.atomic import atomic_path
# a process started by a job that ignores SIGHUP (nohup, a background job) inherits that, and
# the handler keeps what it finds: the default dispositions, as in a terminal
signal.signal(signal.SIGHUP, signal.SIG_DFL)
signal.signal(signal.SIGTERM, signal.SIG_DFL)
with atomic_path(sys.argv[1]) as tmp:
    tmp.write_text("half")
    print(tmp, flush=True)
    time.sleep(60)
"""


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
@pytest.mark.parametrize("previous", [False, True], ids=["new", "replacing"])
def test_a_terminating_signal_removes_the_temporary_file(tmp_path, signum, previous):
    dest = tmp_path / "out.txt"
    if previous:
        dest.write_text("old")
    proc = subprocess.Popen([sys.executable, "-c", _HOLD, str(dest)], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    tmp = Path(proc.stdout.readline().strip())
    assert tmp.exists()
    proc.send_signal(signum)
    proc.wait(timeout=30)
    assert proc.returncode == -signum  # ended by the signal, as without the handler
    assert _leftovers(tmp_path) == []
    assert (dest.read_text() if previous else dest.exists()) == ("old" if previous else False)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_signal_between_partitions_leaves_no_temporary_file(data, tmp_path, signum):
    """The API writes its output partition by partition: the temporary file exists throughout."""
    qrels, run, _ = data
    out = tmp_path / "out.parquet"
    proc = _start_and_wait_for_a_partition(_api(qrels, run, out))
    assert _temp_files(tmp_path, out.name)  # being written
    proc.send_signal(signum)
    _, err = proc.communicate(timeout=120)
    if proc.returncode == 0:  # pragma: no cover - it finished first
        pytest.skip("the evaluation finished before the signal")
    if signum == signal.SIGTERM:
        assert proc.returncode == -signum, err  # ended by the signal, as without the handler
    else:  # Python raises KeyboardInterrupt wherever the main thread is: in a callback from
        # Polars' Rust code, Polars reports it as its own error (exit 1); at the top, Python
        # re-raises an uncaught Ctrl-C as SIGINT. Either way the process ends and cleans up.
        assert proc.returncode in (-signum, 1), err
    assert not out.exists()
    assert _temp_files(tmp_path, out.name) == []


def test_the_signal_handler_is_there_only_while_a_temporary_file_is(tmp_path):
    import threading

    from rankframe._io import atomic

    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
    with atomic_path(tmp_path / "a.txt") as tmp, atomic_path(tmp_path / "b.txt"):
        tmp.write_text("a")
        assert signal.getsignal(signal.SIGTERM) is atomic._on_signal
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL  # the default is back

    def mine(signum, frame):  # an application's own handler is left as it is
        pass

    for handler in (mine, signal.SIG_IGN):
        signal.signal(signal.SIGTERM, handler)
        try:
            with atomic_path(tmp_path / "c.txt"):
                assert signal.getsignal(signal.SIGTERM) is handler
            assert signal.getsignal(signal.SIGTERM) is handler
        finally:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
    errors: list[BaseException] = []

    def in_a_thread() -> None:  # handlers belong to the main thread: none installed, no error
        try:
            write_atomic(tmp_path / "d.txt", "d")
        except BaseException as err:  # pragma: no cover - the failure shown below
            errors.append(err)

    thread = threading.Thread(target=in_a_thread)
    thread.start()
    thread.join()
    assert errors == []
    assert (tmp_path / "d.txt").read_text() == "d"
    assert _leftovers(tmp_path) == []
