"""No abort under a memory limit (issue 26): ``partitions="auto"`` fits the plan to the memory.

The main test runs an evaluation of 5M generated run rows (Parquet) in child processes under an
address-space limit (``RLIMIT_AS``, what ``ulimit -v`` sets) derived from the peak a single plan
measures in a first child: at 65% of that peak, the single plan (``partitions=1``) is ended by
the allocator, while the default ``partitions="auto"`` completes, through the API and the CLI,
with the means of the unlimited run; at a limit too small for anything, both refuse before
starting with the message that names the ways out, never an allocator abort. The rest checks
the pieces: the cgroup files (v1 and v2, as the kernel writes them), sizes, the estimate against
the inputs, the choice of partitions and its errors.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import rankframe as rf
from rankframe._engine import memory
from rankframe._engine.memory import Budget, Need
from rankframe._engine.prepare import prepare

MEASURES = ["nDCG@10", "AP"]
N_QUERIES, DEPTH = 50_000, 100
MiB = 1 << 20

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS and /proc")

# A child evaluation: prints its address space before evaluating, its peak, and the means.
CHILD = textwrap.dedent(
    """
    import json, sys
    import rankframe as rf

    def vm(key):
        for line in open("/proc/self/status"):
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024

    qrels, run, partitions = sys.argv[1], sys.argv[2], sys.argv[3]
    partitions = int(partitions) if partitions.isdigit() else partitions
    before = vm("VmSize")
    try:
        frame = rf.evaluate(qrels, run, {measures!r}, partitions=partitions, progress=True)
    except rf.InputError as exc:
        print(json.dumps({{"error": str(exc)}}))
        sys.exit(1)
    means = dict(zip(frame["measure"], frame["value"]))
    print(json.dumps({{"before": before, "peak": vm("VmPeak"), "means": means}}))
    """
).format(measures=MEASURES)


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> tuple[Path, Path]:
    """5M run rows with string ids (50,000 queries of 100) and about 1.5M graded judgments."""
    folder = tmp_path_factory.mktemp("memory")
    rng = np.random.default_rng(26)
    q = np.repeat(np.arange(N_QUERIES), DEPTH)
    run = pl.DataFrame({
        "query_id": pl.Series(q).cast(pl.String),
        "doc_id": pl.Series(rng.integers(0, 10_000_000, q.size)).cast(pl.String).str.pad_start(8, "d"),
        "score": rng.integers(0, 1 << 20, q.size) / 1024.0,
    }).unique(["query_id", "doc_id"], maintain_order=True)
    qrels = run.sample(fraction=0.3, seed=1).select(
        "query_id", "doc_id", pl.Series("relevance", rng.integers(0, 4, int(run.height * 0.3)))
    )
    run_path, qrels_path = folder / "run.parquet", folder / "qrels.parquet"
    run.write_parquet(run_path)
    qrels.write_parquet(qrels_path)
    return qrels_path, run_path


def _limited(args: list[str], limit: int | None, timeout: float = 240) -> subprocess.CompletedProcess:
    """Run ``args`` under an address-space limit of ``limit`` bytes (a kill after ``timeout``)."""
    import resource

    def preexec() -> None:
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # an abort leaves no core file behind
        if limit is not None:
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    env = {**os.environ, "POLARS_MAX_THREADS": "2"}
    try:
        return subprocess.run(
            args, capture_output=True, text=True, timeout=timeout, preexec_fn=preexec, env=env
        )
    except subprocess.TimeoutExpired as exc:  # a stuck allocation failure: not a completion
        return subprocess.CompletedProcess(args, -9, exc.stdout or "", exc.stderr or "")


def _child(inputs: tuple[Path, Path], partitions: str, limit: int | None) -> subprocess.CompletedProcess:
    qrels, run = inputs
    return _limited([sys.executable, "-c", CHILD, str(qrels), str(run), partitions], limit)


def _result(proc: subprocess.CompletedProcess) -> dict:
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def unlimited(inputs) -> dict:
    """The single plan's means, address space before it and peak, under a limit far above it
    (the same malloc arenas as under a tight limit: rankframe caps them whenever an
    address-space limit is set)."""
    probe = _child(inputs, "1", 1 << 40)
    assert probe.returncode == 0, probe.stderr
    return _result(probe)


@linux_only
def test_auto_partitions_complete_where_one_plan_aborts(inputs, unlimited) -> None:
    before, peak = unlimited["before"], unlimited["peak"]
    assert peak - before > 400 * MiB  # a plan that needs the memory the test is about
    limit = before + int(0.65 * (peak - before))

    # today's single plan does not fit: the allocator ends it (or it never completes)
    one_plan = _child(inputs, "1", limit)
    assert one_plan.returncode != 0
    assert "Traceback" not in one_plan.stderr or "MemoryError" in one_plan.stderr

    # partitions="auto" (the default) completes with the same means, and says why it split
    auto = _child(inputs, "auto", limit)
    assert auto.returncode == 0, auto.stderr
    got = _result(auto)
    assert got["means"] == pytest.approx(unlimited["means"], rel=1e-12, abs=1e-15)
    note = auto.stderr.splitlines()[0]
    assert "query partitions" in note, auto.stderr
    assert "RLIMIT_AS" in note
    assert "bucket 1/" in auto.stderr

    # the CLI's default is the same
    qrels, run = inputs
    cli = _limited(
        [sys.executable, "-m", "rankframe", "evaluate", str(qrels), str(run), "-m", *MEASURES,
         "--format", "json"], limit,
    )
    assert cli.returncode == 0, cli.stderr
    rows = json.loads(cli.stdout)
    values = {row["measure"]: row["value"] for row in rows}
    assert values == pytest.approx(unlimited["means"], abs=1e-12)


@linux_only
def test_a_limit_too_small_for_anything_gives_the_message(inputs, unlimited) -> None:
    before = unlimited["before"]
    limit = before + 150 * MiB  # room for reading the inputs' metadata, not for a plan
    qrels, run = inputs
    for args in (
        [sys.executable, "-c", CHILD, str(qrels), str(run), "auto"],
        [sys.executable, "-m", "rankframe", "evaluate", str(qrels), str(run), "-m", *MEASURES],
    ):
        proc = _limited(args, limit)
        assert proc.returncode == 1, proc.stderr
        text = proc.stdout + proc.stderr
        assert "Not enough memory to evaluate" in text, text
        for way_out in ("partitions='files'", "engine='duckdb'", "raise the limit"):
            assert way_out in text
        assert "Traceback" not in proc.stderr
        assert "memory allocation" not in proc.stderr  # the Rust allocator never got there


# --- the pieces ------------------------------------------------------------------------------


def test_sizes_parse() -> None:
    assert memory.parse_size("4GiB") == 4 << 30
    assert memory.parse_size("1.5 g") == 3 << 29
    assert memory.parse_size("512MB") == 512 << 20
    assert memory.parse_size("2000000") == 2_000_000
    with pytest.raises(ValueError, match="RANKFRAME_MEMORY_LIMIT='lots' is not a size"):
        memory.parse_size("lots")


def _tree(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_cgroup_v2_takes_the_tightest_limit_on_the_path(tmp_path) -> None:
    proc = tmp_path / "cgroup"
    proc.write_text("0::/user.slice/job\n")
    _tree(tmp_path / "fs", {
        "memory.max": "max\n",
        "user.slice/memory.max": str(8 << 30),
        "user.slice/memory.current": str(1 << 30),
        "user.slice/memory.stat": "anon 123\nfile 999\ninactive_file 0\n",
        "user.slice/job/memory.max": str(2 << 30),
        "user.slice/job/memory.current": str(1 << 30),
        # page cache the kernel drops before it counts: not in use
        "user.slice/job/memory.stat": f"anon 5\ninactive_file {256 << 20}\n",
    })
    assert memory.cgroup_headroom(str(proc), str(tmp_path / "fs")) == (1 << 30) + (256 << 20)


def test_cgroup_v1_and_no_limit(tmp_path) -> None:
    proc = tmp_path / "cgroup"
    proc.write_text("12:cpu,cpuacct:/docker/x\n11:memory:/docker/x\n")
    _tree(tmp_path / "fs", {
        "memory/docker/x/memory.limit_in_bytes": str(3 << 30),
        "memory/docker/x/memory.usage_in_bytes": str(1 << 30),
        "memory/docker/x/memory.stat": "cache 1\ntotal_inactive_file 0\n",
    })
    assert memory.cgroup_headroom(str(proc), str(tmp_path / "fs")) == 2 << 30
    # v1's "no limit" is a huge number; v2's is "max": both mean none
    _tree(tmp_path / "fs", {"memory/docker/x/memory.limit_in_bytes": str(0x7FFFFFFFFFFFF000)})
    assert memory.cgroup_headroom(str(proc), str(tmp_path / "fs")) is None
    assert memory.cgroup_headroom(str(tmp_path / "absent"), str(tmp_path / "fs")) is None


def test_the_environment_limit_binds(monkeypatch) -> None:
    monkeypatch.setenv("RANKFRAME_MEMORY_LIMIT", "64GiB")
    loose = memory.available()
    monkeypatch.setenv("RANKFRAME_MEMORY_LIMIT", "1GiB")
    tight = memory.available()
    assert tight.resident is not None
    assert tight.resident < 1 << 30
    assert tight.resident_from == "RANKFRAME_MEMORY_LIMIT"
    assert loose.resident is None or loose.resident >= tight.resident


def test_the_estimate_reads_rows_and_widths(inputs) -> None:
    qrels, run = inputs
    prep = prepare(qrels, run, MEASURES, validate=False)
    need = memory.estimate(prep)
    assert need is not None
    n_run, n_qrels = pl.scan_parquet(run).select(pl.len()).collect().item(), pl.scan_parquet(
        qrels).select(pl.len()).collect().item()
    assert need.rows == n_run + n_qrels
    # ids of up to 8 bytes live in their 16-byte views; score and grade are 8 bytes
    assert need.width == (n_run + n_qrels) * (16 + 16 + 8)
    # measures comparing rankings keep more
    pairwise = memory.estimate(prepare(qrels, run, ["KendallTau"], validate=False))
    assert pairwise is not None
    assert pairwise.resident() > need.resident()


def test_the_fewest_partitions_that_fit() -> None:
    need = Need(rows=10_000_000, width=400_000_000)
    roomy = Budget(64 << 30, "MemAvailable", None, "")
    assert memory.choose_partitions(need, roomy) == 1
    tight = Budget(64 << 30, "MemAvailable", 1 << 30, "RLIMIT_AS, ulimit -v")
    n = memory.choose_partitions(need, tight)
    assert n > 1
    assert need.fits(tight, n)
    assert not need.fits(tight, n // 2)
    resident_only = Budget(700 << 20, "cgroup memory limit", None, "")
    n = memory.choose_partitions(need, resident_only)
    assert need.resident(n) <= 0.9 * (700 << 20) < need.resident(n // 2)
    with pytest.raises(rf.InputError, match=r"Not enough memory to evaluate 10,000,000 input rows") as info:
        memory.choose_partitions(need, Budget(100 << 20, "cgroup memory limit", None, ""))
    assert "100 MiB of memory (cgroup memory limit)" in str(info.value)
    # free memory alone is no limit: the most partitions, never a refusal
    assert memory.choose_partitions(need, Budget(100 << 20, "MemAvailable", None, "")) == 256


def test_an_explicit_single_plan_that_cannot_fit_warns(inputs, monkeypatch) -> None:
    qrels, run = inputs
    monkeypatch.setenv("RANKFRAME_MEMORY_LIMIT", "200MiB")
    with pytest.warns(ResourceWarning, match=r"partitions=1 may not fit in memory: each part needs about"):
        rf.evaluate(qrels, run, MEASURES, partitions=1)


def test_an_unparsable_input_is_left_to_the_checks(tmp_path) -> None:
    run = tmp_path / "run.csv"
    run.write_text('qid,docno,score\nq1,a,1.0\nq1,"b,2.0\n')  # the fuzz corpus's
    prep = prepare(pl.DataFrame({"query_id": ["q"], "doc_id": ["a"], "relevance": [1]}), run,
                   MEASURES, validate=False)
    assert memory.estimate(prep) is None


# Measures that compare rankings count, per item, the earlier items with a smaller target by a
# rolling rank; unbounded, its window makes Polars reserve 96 GiB of address space per query.
PAIRWISE = textwrap.dedent(
    """
    import json
    import polars as pl
    import rankframe as rf

    run = pl.DataFrame({"query_id": ["q1"] * 6 + ["q2"] * 4, "doc_id": list("abcdefabcd"),
                        "score": [6.0, 5, 4, 3, 2, 1, 1, 2, 3, 4]})
    qrels = pl.DataFrame({"query_id": ["q1"] * 4 + ["q2"] * 3, "doc_id": list("acdfabd"),
                          "relevance": [3, 1, 2, 0, 1, 2, 0]})
    out = rf.evaluate(qrels, run, ["KendallTau", "AUC", "CIndex"], per_query=True)
    print(json.dumps(out["value"].to_list()))
    """
)


@linux_only
def test_measures_that_compare_rankings_run_under_an_address_space_limit() -> None:
    # it was a Rust allocation abort ("memory allocation of 103079215104 bytes failed") under
    # any ulimit -v: the window is now bounded by the longest query when such a limit is set
    limited = _limited([sys.executable, "-c", PAIRWISE], 3 << 30)
    assert limited.returncode == 0, limited.stderr[-500:]
    free = _limited([sys.executable, "-c", PAIRWISE], None)
    assert free.returncode == 0, free.stderr[-500:]
    values = [json.loads(proc.stdout.strip().splitlines()[-1]) for proc in (limited, free)]
    assert values[0] == values[1]
