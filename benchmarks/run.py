"""End-to-end benchmark: Parquet files to the means of 5 measures, one fresh process per timing.

Tools (``--tools``, comma-separated):

* ``rankframe``: ``rankframe.evaluate(qrels_path, run_path, MEASURES)`` on the Parquet paths.
* ``pytrec_eval``: read the Parquet files with Polars, build the dicts of dicts, a
  ``RelevanceEvaluator`` with map, ndcg_cut.10, P.10, recall.100, recip_rank, then the means
  over queries: what users write.
* ``ir_measures``: ``ir_measures.calc_aggregate`` on pandas frames read from the Parquet files
  (it runs pytrec_eval underneath).
* ``rankframe-duckdb``: ``rankframe.evaluate(qrels_path, run_path, MEASURES, engine="duckdb")``:
  the compiled query in embedded DuckDB, after the engine's check query (``rankframe.sql.checks``)
  and coverage query; DuckDB reads the Parquet files itself.
* ``rankframe-duckdb-cli``: the command ``rankframe evaluate QRELS RUN -m ... --engine duckdb
  -f json -o FILE`` (its ``main``, in the worker process), which names its run: runs passed as a
  dict. Only when asked.
* ``duckdb-sql``: the compiled query alone (``rankframe.sql.query`` over ``read_parquet`` of the
  two files) in DuckDB, no checks: the price of the checks is rankframe-duckdb's time over it.
* ``duckdb-handwritten``: ``benchmarks/handwritten.sql``, the query an analyst writes by hand for
  these 5 measures (read_parquet, ROW_NUMBER over score and doc id, an inner join with the
  relevant judgments, the ideal DCG from the qrels' grades), in DuckDB.
* ``floor``: one Polars scan of the run columns, one inner join with the relevant judgments, one
  group_by sum: a lower bound for any plan that reads and joins the same data.
* ``minimal``: the hand-written exact plan of ``benchmarks/experiments/lower_bound.py``, for
  exactly these 5 measures and nothing else (Polars only): the floor's work plus what every
  exact evaluator must add (the rank by score and doc id, the input checks, the judgments'
  statistics). Only when asked: a lower bound for rankframe's general planner, not a tool.
* ``minimal-positions``: the same plan ranking from row positions (issue 27's lever, for runs
  that arrive ranked; exact but for the queries with a tied stretch of more than 4 rows, which
  an engine would plan again, not counted). Only when asked: a lower bound for ordered input.
* ``ranx``: only when asked (not installed by default).
* ``rankframe_1t``: rankframe with ``POLARS_MAX_THREADS=1`` (only when asked).
* ``rankframe_ref``: rankframe imported from the source tree ``--ref DIR`` (a git worktree of
  another commit: ``git worktree add /tmp/before COMMIT``), for before/after comparisons.

The DuckDB tools run with DuckDB's defaults (a thread per core, as Polars uses by default) in an
in-memory database, and time the query's Parquet reads with it.

Each measurement is a fresh ``python`` subprocess (interpreter start and imports included in the
wall time); its peak RSS comes from ``os.wait4`` (``ru_maxrss`` of that child alone). Rounds are
interleaved (every tool once per round; the starting tool rotates between rounds unless
``--order fixed``). The means of all tools are checked against pytrec_eval (relative tolerance
1e-6), or against rankframe when pytrec_eval is not run; the DuckDB tools' means are also held to
rankframe's to 1e-12 (SQL engines add in no fixed order). The markdown table is printed and
appended, with the machine and the command, to ``benchmarks/RESULTS.md``; raw measurements go to
``benchmarks/out/``.

Examples
--------
    python benchmarks/run.py --rows 1000000 --rounds 3
    python benchmarks/run.py --rows 10000000 --rounds 2
    python benchmarks/run.py --data benchmarks/data/mydir --tools rankframe,floor
    python benchmarks/run.py --data benchmarks/data/mydir \
        --tools rankframe,rankframe-duckdb,duckdb-sql,duckdb-handwritten
"""

from __future__ import annotations

import argparse
import datetime as dt
import functools
import importlib.util
import json
import os
import platform
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
MEASURES = ["nDCG@10", "AP", "P@10", "R@100", "RR"]
PYTREC = {"nDCG@10": "ndcg_cut_10", "AP": "map", "P@10": "P_10", "R@100": "recall_100", "RR": "recip_rank"}
RANX = {"nDCG@10": "ndcg@10", "AP": "map", "P@10": "precision@10", "R@100": "recall@100", "RR": "mrr"}
DEFAULT_TOOLS = "rankframe,rankframe-duckdb,duckdb-sql,duckdb-handwritten,pytrec_eval,ir_measures,floor"
# The tools that need DuckDB (the duckdb extra): left out of the default set when it is missing.
DUCKDB_TOOLS = ("rankframe-duckdb", "rankframe-duckdb-cli", "duckdb-sql", "duckdb-handwritten")
# ir_measures (pytrec_eval behind pandas itertuples) took 118-800 s at 10M rows: by default it
# only runs up to this many rows; name it in --tools to run it anyway.
IR_MEASURES_MAX_ROWS = 2_000_000
REF = "pytrec_eval"
RTOL = 1e-6
# The reference when pytrec_eval is not run, and the tools held to it more tightly: the DuckDB
# tools evaluate rankframe's definitions in SQL, equal to 1e-12 relative.
EXACT_REF = "rankframe"
EXACT = {t: 1e-12 for t in DUCKDB_TOOLS}
HANDWRITTEN_SQL = HERE / "handwritten.sql"


# --------------------------------------------------------------------------- workers


def _ids_as_str(df):  # noqa: ANN001, ANN202
    import polars as pl

    return df.with_columns(pl.col("query_id", "doc_id").cast(pl.String))


def work_rankframe(data: Path, phases: dict) -> dict:
    t = time.perf_counter()
    import rankframe

    phases["import"] = time.perf_counter() - t
    t = time.perf_counter()
    res = rankframe.evaluate(data / "qrels.parquet", data / "run.parquet", MEASURES)
    phases["evaluate"] = time.perf_counter() - t
    return dict(zip(res["measure"].to_list(), res["value"].to_list(), strict=True))


def work_pytrec_eval(data: Path, phases: dict) -> dict:
    t = time.perf_counter()
    import polars as pl
    import pytrec_eval

    phases["import"] = time.perf_counter() - t
    t = time.perf_counter()
    run_df = _ids_as_str(pl.read_parquet(data / "run.parquet", columns=["query_id", "doc_id", "score"]))
    qrels_df = _ids_as_str(
        pl.read_parquet(data / "qrels.parquet", columns=["query_id", "doc_id", "relevance"])
    )
    phases["read"] = time.perf_counter() - t
    t = time.perf_counter()
    qrels: dict[str, dict[str, int]] = {}
    for q, d, r in zip(*(qrels_df[c].to_list() for c in qrels_df.columns), strict=True):
        qrels.setdefault(q, {})[d] = r
    run: dict[str, dict[str, float]] = {}
    for q, d, s in zip(*(run_df[c].to_list() for c in run_df.columns), strict=True):
        run.setdefault(q, {})[d] = s
    del run_df, qrels_df
    phases["dicts"] = time.perf_counter() - t
    t = time.perf_counter()
    ev = pytrec_eval.RelevanceEvaluator(qrels, {"map", "ndcg_cut.10", "P.10", "recall.100", "recip_rank"})
    per_query = ev.evaluate(run)
    phases["evaluate"] = time.perf_counter() - t
    t = time.perf_counter()
    n = len(per_query)
    means = {m: sum(v[k] for v in per_query.values()) / n for m, k in PYTREC.items()}
    phases["means"] = time.perf_counter() - t
    return means


def work_ir_measures(data: Path, phases: dict) -> dict:
    t = time.perf_counter()
    import ir_measures
    import polars as pl

    phases["import"] = time.perf_counter() - t
    t = time.perf_counter()
    run = _ids_as_str(pl.read_parquet(data / "run.parquet")).to_pandas()
    qrels = _ids_as_str(pl.read_parquet(data / "qrels.parquet")).to_pandas()
    phases["read"] = time.perf_counter() - t
    t = time.perf_counter()
    res = ir_measures.calc_aggregate([ir_measures.parse_measure(m) for m in MEASURES], qrels, run)
    phases["evaluate"] = time.perf_counter() - t
    return {str(k): float(v) for k, v in res.items()}


def work_ranx(data: Path, phases: dict) -> dict:
    t = time.perf_counter()
    import polars as pl
    from ranx import Qrels, Run, evaluate

    phases["import"] = time.perf_counter() - t
    t = time.perf_counter()
    run_df = _ids_as_str(pl.read_parquet(data / "run.parquet")).to_pandas()
    qrels_df = _ids_as_str(pl.read_parquet(data / "qrels.parquet")).to_pandas()
    for df in (run_df, qrels_df):  # ranx asserts object (not pandas 3 "str") id columns
        for col in ("query_id", "doc_id"):
            df[col] = df[col].astype(object)
    qrels_df["relevance"] = qrels_df["relevance"].astype("int64")
    phases["read"] = time.perf_counter() - t
    t = time.perf_counter()
    qrels = Qrels.from_df(qrels_df, q_id_col="query_id", doc_id_col="doc_id", score_col="relevance")
    run = Run.from_df(run_df, q_id_col="query_id", doc_id_col="doc_id", score_col="score")
    phases["build"] = time.perf_counter() - t
    t = time.perf_counter()
    res = evaluate(qrels, run, list(RANX.values()))
    phases["evaluate"] = time.perf_counter() - t
    return {m: float(res[k]) for m, k in RANX.items()}


def _literal(path: Path) -> str:
    """A path as a SQL string literal."""
    return "'" + str(path).replace("'", "''") + "'"


def work_rankframe_duckdb(data: Path, phases: dict) -> dict:
    t = time.perf_counter()
    import duckdb  # noqa: F401 (imported by the engine: timed as an import, as the others' are)

    import rankframe

    phases["import"] = time.perf_counter() - t
    t = time.perf_counter()
    res = rankframe.evaluate(data / "qrels.parquet", data / "run.parquet", MEASURES, engine="duckdb")
    phases["evaluate"] = time.perf_counter() - t
    return dict(zip(res["measure"].to_list(), res["value"].to_list(), strict=True))


def work_rankframe_duckdb_cli(data: Path, phases: dict) -> dict:
    t = time.perf_counter()
    import duckdb  # noqa: F401

    from rankframe._cli.main import main

    phases["import"] = time.perf_counter() - t
    t = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "means.json"
        args = [str(data / "qrels.parquet"), str(data / "run.parquet"), "-m", *MEASURES]
        rc = main(["evaluate", *args, "--engine", "duckdb", "-f", "json", "-o", str(out)])
        phases["evaluate"] = time.perf_counter() - t
        if rc:
            msg = f"rankframe evaluate exited {rc}"
            raise SystemExit(msg)
        rows = json.loads(out.read_text())
    return {r["measure"]: r["value"] for r in rows}


def work_duckdb_sql(data: Path, phases: dict) -> dict:
    t = time.perf_counter()
    import duckdb

    import rankframe.sql

    phases["import"] = time.perf_counter() - t
    t = time.perf_counter()
    text = rankframe.sql.query(
        MEASURES,
        qrels=f"(SELECT * FROM read_parquet({_literal(data / 'qrels.parquet')}))",
        run=f"(SELECT * FROM read_parquet({_literal(data / 'run.parquet')}))",
    )
    phases["compile"] = time.perf_counter() - t
    t = time.perf_counter()
    with duckdb.connect() as con:
        rows = con.sql(text).fetchall()
    phases["evaluate"] = time.perf_counter() - t
    return {m: float(v) for m, v in rows}


def work_duckdb_handwritten(data: Path, phases: dict) -> dict:
    t = time.perf_counter()
    import duckdb

    phases["import"] = time.perf_counter() - t
    t = time.perf_counter()
    text = HANDWRITTEN_SQL.read_text()
    for name in ("run", "qrels"):  # the file's '{run}' and '{qrels}'
        text = text.replace(f"'{{{name}}}'", _literal(data / f"{name}.parquet"))
    with duckdb.connect() as con:
        cur = con.execute(text)
        row = cur.fetchone()
        names = [c[0] for c in cur.description]
    phases["evaluate"] = time.perf_counter() - t
    return {m: float(v) for m, v in zip(names, row, strict=True)}


def floor_plan(data: Path):  # -> polars.LazyFrame (Polars is imported in the workers)
    """The floor: one scan of the run columns, one inner join with the relevant judgments, one sum."""
    import polars as pl

    run = pl.scan_parquet(data / "run.parquet").select("query_id", "doc_id", "score")
    rel = (
        pl.scan_parquet(data / "qrels.parquet")
        .select("query_id", "doc_id", "relevance")
        .filter(pl.col("relevance") > 0)
    )
    return (
        run.join(rel, on=["query_id", "doc_id"], how="inner")
        .group_by("query_id")
        .agg(pl.col("score").sum(), pl.col("relevance").sum())
    )


def work_floor(data: Path, phases: dict) -> dict:
    t = time.perf_counter()
    import polars  # noqa: F401

    phases["import"] = time.perf_counter() - t
    t = time.perf_counter()
    out = floor_plan(data).collect()
    phases["collect"] = time.perf_counter() - t
    phases["groups"] = out.height
    return {}


def work_minimal(data: Path, phases: dict, *, positions: bool = False) -> dict:
    t = time.perf_counter()
    sys.path.insert(0, str(HERE / "experiments"))
    import lower_bound

    phases["import"] = time.perf_counter() - t
    t = time.perf_counter()
    means = lower_bound.means(data, positions=positions)
    phases["collect"] = time.perf_counter() - t
    return means


WORKERS = {
    "rankframe": work_rankframe,
    "pytrec_eval": work_pytrec_eval,
    "ir_measures": work_ir_measures,
    "ranx": work_ranx,
    "floor": work_floor,
    "minimal": work_minimal,
    "minimal-positions": functools.partial(work_minimal, positions=True),
    "rankframe-duckdb": work_rankframe_duckdb,
    "rankframe-duckdb-cli": work_rankframe_duckdb_cli,
    "duckdb-sql": work_duckdb_sql,
    "duckdb-handwritten": work_duckdb_handwritten,
    # rankframe with a single Polars thread (POLARS_MAX_THREADS=1): its CPU cost without
    # parallelism, and how it fares on an oversubscribed machine.
    "rankframe_1t": work_rankframe,
    # rankframe from another source tree (--ref DIR, e.g. a git worktree of an older commit):
    # before/after comparisons of a change, side by side in the same rounds.
    "rankframe_ref": work_rankframe,
}
ENV = {"rankframe_1t": {"POLARS_MAX_THREADS": "1"}}


def worker_main(tool: str, data: Path) -> None:
    t0 = time.perf_counter()
    phases: dict = {}
    means = WORKERS[tool](data, phases)
    work = time.perf_counter() - t0 - phases.get("import", 0.0)
    print("RESULT " + json.dumps({"tool": tool, "means": means, "phases": phases, "work": work}))


# --------------------------------------------------------------------------- driver


def meminfo() -> dict[str, int]:
    out = {}
    with open("/proc/meminfo") as f:
        for line in f:
            k, v = line.split(":", 1)
            out[k] = int(v.split()[0]) * 1024
    return out


def wait_for_memory(min_free: float, log) -> float:  # noqa: ANN001
    """Wait (up to 2 minutes) until MemAvailable >= min_free GiB; return what is available."""
    deadline = time.monotonic() + 120
    while True:
        avail = meminfo()["MemAvailable"] / 2**30
        if avail >= min_free or time.monotonic() > deadline:
            if avail < min_free:
                log(f"  warning: only {avail:.1f} GiB available (wanted {min_free})")
            return avail
        time.sleep(5)


def pressure() -> dict[str, float]:
    """Seconds of 'some' CPU and memory stall since boot (Linux PSI), if available."""
    out = {}
    for kind in ("cpu", "memory"):
        try:
            with open(f"/proc/pressure/{kind}") as f:
                line = f.readline()
            out[kind] = int(line.rsplit("total=", 1)[1]) / 1e6
        except (OSError, IndexError, ValueError):
            pass
    return out


def cpu_times() -> tuple[int, int]:
    """(steal, total) clock ticks of all CPUs since boot (Linux /proc/stat), or (0, 0)."""
    try:
        with open("/proc/stat") as f:
            fields = [int(x) for x in f.readline().split()[1:]]
    except (OSError, ValueError):
        return 0, 0
    # user nice system idle iowait irq softirq steal [guest guest_nice: counted in user/nice]
    return (fields[7] if len(fields) > 7 else 0), sum(fields[:8])


def steal_now(seconds: float = 2.0) -> float:
    """The share of CPU time stolen by the hypervisor while every core spins for ``seconds``.

    (An idle guest shows little steal: the hypervisor takes the cores from a guest that wants
    them, so the probe keeps them busy, one spinning process per core.)
    """
    spin = f"import time\nt = time.monotonic() + {seconds}\nwhile time.monotonic() < t: pass"
    s0, t0 = cpu_times()
    procs = [subprocess.Popen([sys.executable, "-c", spin]) for _ in range(os.cpu_count() or 1)]
    for proc in procs:
        proc.wait()
    s1, t1 = cpu_times()
    return (s1 - s0) / max(t1 - t0, 1)


def wait_for_quiet(max_load: float, max_steal: float, max_wait: float, log) -> float:  # noqa: ANN001
    """Wait (up to max_wait s) until the 1-minute load average is <= max_load and the CPU
    steal over 2 s is <= max_steal."""
    deadline = time.monotonic() + max_wait
    while True:
        load = os.getloadavg()[0]
        steal = steal_now() if load <= max_load else 1.0
        if (load <= max_load and steal <= max_steal) or time.monotonic() > deadline:
            if load > max_load or steal > max_steal:
                log(
                    f"  note: load {load:.1f} (max {max_load}), steal {steal:.0%} (max "
                    f"{max_steal:.0%}) after waiting {max_wait:.0f} s; measuring anyway"
                )
            return load
        time.sleep(3)


def measure(tool: str, data: Path, timeout: float) -> dict:
    """Run one worker in a fresh process; wall time and its own peak RSS (os.wait4)."""
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", tool, "--data", str(data)]
    env = dict(os.environ, PYTHONWARNINGS="ignore", **ENV.get(tool, {}))
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        load = os.getloadavg()[0]
        psi0 = pressure()
        cpu0 = cpu_times()
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, env=env, cwd=REPO)
        deadline = t0 + timeout
        while True:
            pid, status, ru = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() > deadline:
                proc.kill()
                pid, status, ru = os.wait4(proc.pid, 0)
                break
            time.sleep(0.005)
        wall = time.perf_counter() - t0
        psi1 = pressure()
        cpu1 = cpu_times()
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read().decode(), err.read().decode()
    rec = {
        "tool": tool,
        "wall": wall,
        "rss": ru.ru_maxrss * 1024,
        "user": ru.ru_utime,
        "sys": ru.ru_stime,
        "rc": proc.returncode,
        "load1_before": load,
        "cpu_stall": psi1.get("cpu", 0) - psi0.get("cpu", 0),
        "mem_stall": psi1.get("memory", 0) - psi0.get("memory", 0),
        # the share of the machine's CPU time the hypervisor gave to other guests
        "steal": (cpu1[0] - cpu0[0]) / max(cpu1[1] - cpu0[1], 1),
    }
    lines = [ln for ln in stdout.splitlines() if ln.startswith("RESULT ")]
    if proc.returncode == 0 and lines:
        rec.update(json.loads(lines[-1][len("RESULT ") :]))
    else:
        rec["error"] = (stderr.strip().splitlines() or ["(no output)"])[-1][:300]
        if time.perf_counter() > deadline:
            rec["error"] = f"timed out after {timeout:.0f} s"
    return rec


def agree(means: dict, ref: dict, rtol: float = RTOL) -> tuple[bool, float]:
    worst = 0.0
    for m in MEASURES:
        a, b = means.get(m), ref.get(m)
        if a is None or b is None:
            return False, float("inf")
        err = abs(a - b) / max(abs(b), 1e-300) if b != 0 else abs(a)
        worst = max(worst, err)
    return worst <= rtol, worst


def reference(records: list[dict]) -> tuple[str | None, dict | None]:
    """The tool the means are checked against (pytrec_eval, else rankframe) and its means."""
    for name in (REF, EXACT_REF):
        means = next((r["means"] for r in records if r["tool"] == name and "means" in r), None)
        if means is not None:
            return name, means
    return None, None


def machine_info() -> dict:
    import importlib.metadata as md

    def version(pkg: str) -> str:
        try:
            return md.version(pkg)
        except md.PackageNotFoundError:
            return "-"

    cpu = "?"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name"))
    except (OSError, StopIteration):
        pass
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=REPO,
            capture_output=True,
            text=True,
            check=False,
        ).stdout.strip()
    except OSError:
        commit = "?"
    # Other work may change the package between commits: fingerprint the sources measured.
    import hashlib

    h = hashlib.sha256()
    for f in sorted((REPO / "rankframe").rglob("*.py")):
        h.update(str(f.relative_to(REPO)).encode() + b"\0" + f.read_bytes())
    dirty = subprocess.run(
        ["git", "status", "--porcelain", "--", "rankframe"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    commit += f" (+ uncommitted changes, sources sha256 {h.hexdigest()[:12]})" if dirty else ""
    mem = meminfo()
    return {
        "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "nproc": len(os.sched_getaffinity(0)),
        "cpu": cpu,
        "mem_total_gib": round(mem["MemTotal"] / 2**30, 1),
        "mem_available_gib": round(mem["MemAvailable"] / 2**30, 1),
        "load_avg": [round(x, 2) for x in os.getloadavg()],
        "python": platform.python_version(),
        "polars": version("polars"),
        "pyarrow": version("pyarrow"),
        "pytrec_eval": version("pytrec-eval-terrier"),
        "ir_measures": version("ir-measures"),
        "duckdb": version("duckdb"),
        "rankframe": version("rankframe"),
        "commit": commit,
    }


def fmt_rows(n: int) -> str:
    for unit, div in (("M", 1_000_000), ("k", 1_000)):
        if n >= div and n % div == 0:
            return f"{n // div}{unit}"
    return str(n)


def table(records: list[dict], tools: list[str]) -> tuple[str, dict]:
    ok = {t: [r for r in records if r["tool"] == t and "error" not in r] for t in tools}
    summary = {}
    for t in tools:
        rs = ok[t]
        if not rs:
            continue
        summary[t] = {
            "n": len(rs),
            "wall": statistics.median(r["wall"] for r in rs),
            "wall_min": min(r["wall"] for r in rs),
            "work": statistics.median(r["work"] for r in rs),
            "rss": statistics.median(r["rss"] for r in rs),
            "cpu": statistics.median(r["user"] + r["sys"] for r in rs),
            "load": statistics.median(r["load1_before"] for r in rs),
            "mem_stall": max(r["mem_stall"] for r in rs),
            "steal": max(r.get("steal", 0.0) for r in rs),
        }
    ref_name, ref_means = reference([r for rs in ok.values() for r in rs])
    exact_means = next((r["means"] for r in ok.get(EXACT_REF, [])), None)
    head = (
        "| tool | runs | wall median (s) | wall min (s) | in-process median (s) | CPU median (s) "
        "| peak RSS median (MiB) | speed vs pytrec_eval | RSS vs pytrec_eval | wall vs floor "
        "| means agree | load before (median) | max mem stall (s) | max CPU steal |\n"
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|"
    )
    lines = [head]
    ref = summary.get(REF)
    fl = summary.get("floor")
    for t in tools:
        errs = [r for r in records if r["tool"] == t and "error" in r]
        if t not in summary:
            msg = errs[0]["error"] if errs else "not run"
            lines.append(f"| {t} | 0 | - | - | - | - | - | - | - | - | failed: {msg} | - | - | - |")
            continue
        s = summary[t]
        speed = f"{ref['wall'] / s['wall']:.2f}x" if ref else "-"
        rss = f"{s['rss'] / ref['rss']:.2f}" if ref else "-"
        vs_floor = f"{s['wall'] / fl['wall']:.2f}x" if fl else "-"
        if t == "floor":
            verdict = "n/a (no measures)"
        elif ref_means is None:
            verdict = "no reference"
        else:
            tests = []  # (what the difference is to, reference means, relative tolerance)
            if t in EXACT and exact_means is not None:
                tests.append((f" vs {EXACT_REF}, tol {EXACT[t]:.0e}", exact_means, EXACT[t]))
            if ref_name != EXACT_REF or not tests:
                tests.insert(0, ("" if ref_name == REF else f" vs {ref_name}", ref_means, RTOL))
            passed, diffs = True, []
            for label, means, rtol in tests:
                checks = [agree(r["means"], means, rtol) for r in ok[t]]
                passed = passed and all(c for c, _ in checks)
                diffs.append(f"{max(w for _, w in checks):.1e}{label}")
            verdict = ("yes" if passed else "**NO**") + f" (max rel. diff {'; '.join(diffs)})"
        if errs:
            verdict += f"; {len(errs)} failed run(s)"
        lines.append(
            f"| {t} | {s['n']} | {s['wall']:.2f} | {s['wall_min']:.2f} | {s['work']:.2f} | "
            f"{s['cpu']:.2f} | {s['rss'] / 2**20:.0f} | {speed} | {rss} | {vs_floor} | {verdict} | "
            f"{s['load']:.1f} | {s['mem_stall']:.1f} | {s['steal']:.0%} |"
        )
    return "\n".join(lines), summary


def ensure_data(args: argparse.Namespace) -> Path:
    if args.data:
        return args.data.resolve()
    d = HERE / "data" / f"{args.ids}-{fmt_rows(args.rows)}-k{args.docs_per_query}-s{args.seed}"
    if not (d / "run.parquet").exists() or not (d / "qrels.parquet").exists():
        print(f"generating {d.relative_to(REPO)} ...", flush=True)
        subprocess.run(
            [
                sys.executable,
                str(HERE / "generate.py"),
                "--rows",
                str(args.rows),
                "--docs-per-query",
                str(args.docs_per_query),
                "--seed",
                str(args.seed),
                "--ids",
                args.ids,
                "--out",
                str(d),
            ],
            check=True,
        )
    return d


def warm_cache(data: Path) -> None:
    for name in ("run.parquet", "qrels.parquet"):
        with open(data / name, "rb") as f:
            while f.read(1 << 24):
                pass


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rows", type=int, default=1_000_000, help="run rows of generated data")
    p.add_argument("--docs-per-query", type=int, default=100)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--ids", choices=["string", "int"], default="string")
    p.add_argument("--data", type=Path, help="a directory with run.parquet and qrels.parquet")
    p.add_argument(
        "--tools",
        default=None,
        help=f"comma-separated, from {sorted(WORKERS)}; default {DEFAULT_TOOLS} "
        f"(ir_measures only up to {IR_MEASURES_MAX_ROWS:,} rows)",
    )
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--ref", type=Path, help="source tree of the rankframe_ref tool (its PYTHONPATH)")
    p.add_argument("--order", choices=["rotate", "fixed"], default="rotate")
    p.add_argument("--timeout", type=float, default=900, help="seconds per measurement")
    p.add_argument(
        "--min-free-gib",
        type=float,
        default=6.0,
        help="wait for this much available memory before each measurement",
    )
    p.add_argument(
        "--max-load",
        type=float,
        default=1.5,
        help="wait for the 1-minute load average to drop to this before each measurement",
    )
    p.add_argument(
        "--max-steal",
        type=float,
        default=0.2,
        help="and for the CPU steal (the hypervisor's share, over 2 s) to drop to this fraction",
    )
    p.add_argument(
        "--max-wait", type=float, default=180, help="longest wait for --max-load/--max-steal (s)"
    )
    p.add_argument("--no-append", action="store_true", help="do not append to RESULTS.md")
    p.add_argument("--note", default="", help="a line to add under the table in RESULTS.md")
    p.add_argument("--worker", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.worker:
        worker_main(args.worker, args.data)
        return

    tools = [t.strip() for t in (args.tools or DEFAULT_TOOLS).split(",") if t.strip()]
    unknown = set(tools) - set(WORKERS)
    if unknown:
        p.error(f"unknown tools {sorted(unknown)}; choose from {sorted(WORKERS)}")
    if "rankframe_ref" in tools:
        if args.ref is None:
            p.error("the rankframe_ref tool needs --ref DIR (a source tree with rankframe/)")
        ENV["rankframe_ref"] = {"PYTHONPATH": str(args.ref.resolve())}
    data = ensure_data(args)
    info_file = data / "info.json"
    data_info = json.loads(info_file.read_text()) if info_file.exists() else {}
    if args.tools is None and data_info.get("rows", 0) > IR_MEASURES_MAX_ROWS:
        tools.remove("ir_measures")
        print(f"skipping ir_measures above {IR_MEASURES_MAX_ROWS:,} rows (name it in --tools to run it)")
    if args.tools is None and importlib.util.find_spec("duckdb") is None:
        tools = [t for t in tools if t not in DUCKDB_TOOLS]
        print(f"skipping {', '.join(DUCKDB_TOOLS)}: no DuckDB (pip install 'rankframe[duckdb]')")
    machine = machine_info()
    warm_cache(data)

    def log(msg: str) -> None:
        print(msg, flush=True)

    out_dir = HERE / "out"
    out_dir.mkdir(exist_ok=True)
    stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    partial = out_dir / f"bench-{stamp}.records.jsonl"  # kept even if the run is interrupted
    records = []
    for rnd in range(args.rounds):
        shift = rnd % len(tools) if args.order == "rotate" else 0
        for tool in tools[shift:] + tools[:shift]:
            avail = wait_for_memory(args.min_free_gib, log)
            wait_for_quiet(args.max_load, args.max_steal, args.max_wait, log)
            rec = measure(tool, data, args.timeout)
            rec["round"] = rnd
            rec["mem_available_gib"] = round(avail, 1)
            records.append(rec)
            with partial.open("a") as f:
                f.write(json.dumps(rec) + "\n")
            if "error" in rec:
                log(f"round {rnd} {tool:18s} FAILED: {rec['error']}")
            else:
                ph = " ".join(f"{k}={v:.2f}" for k, v in rec["phases"].items() if isinstance(v, float))
                log(
                    f"round {rnd} {tool:18s} wall {rec['wall']:6.2f} s  cpu "
                    f"{rec['user'] + rec['sys']:6.2f} s  rss {rec['rss'] / 2**20:6.0f} MiB  load "
                    f"{rec['load1_before']:.1f}  mem stall {rec['mem_stall']:.1f} s  steal "
                    f"{rec['steal']:.0%}  [{ph}]"
                )

    md, summary = table(records, tools)
    ref_name, ref_means = reference(records)
    cmd = "python " + " ".join(shlex.quote(a) for a in [os.path.relpath(__file__, REPO), *sys.argv[1:]])
    rows = data_info.get("rows")
    title = (
        f"## {fmt_rows(rows) if rows else data.name} run rows, "
        f"{data_info.get('queries', '?')} queries, {data_info.get('qrels', '?')} qrels "
        f"({data_info.get('args', {}).get('ids', args.ids)} ids), {args.rounds} round(s): "
        f"{machine['date']}"
    )
    means_line = (
        f"Means ({ref_name}): " + ", ".join(f"{m} {ref_means[m]:.6f}" for m in MEASURES) if ref_means else ""
    )
    mach = (
        f"Machine: {machine['nproc']} cores ({machine['cpu']}), {machine['mem_total_gib']} GiB "
        f"({machine['mem_available_gib']} GiB available at start), load {machine['load_avg']} at "
        f"start, {os.getloadavg()[0]:.2f} at end. Python {machine['python']}, polars "
        f"{machine['polars']}, pyarrow {machine['pyarrow']}, pytrec_eval(-terrier) "
        f"{machine['pytrec_eval']}, ir_measures {machine['ir_measures']}, duckdb {machine['duckdb']}, "
        f"rankframe {machine['rankframe']} @ {machine['commit']}."
    )
    block = "\n\n".join(
        x
        for x in [
            title,
            f"`{cmd}` (data: `{os.path.relpath(data, REPO)}`)",
            md,
            "Wall: fresh process, interpreter start + imports + reading Parquet + means. "
            "In-process: the same without the imports. CPU: user + sys of the child. Wall vs "
            "floor: the tool's median wall time over the floor's (issue 5 asks for <= 2x). Load: "
            "1-minute load average before each measurement (other work on the machine); mem "
            "stall: seconds some task waited on memory during the measurement (PSI), a sign of "
            "memory pressure from elsewhere; CPU steal: the share of the machine's CPU time "
            "the hypervisor gave to other guests during the measurement (/proc/stat), which "
            "slows every tool measured then.",
            means_line,
            mach,
            args.note,
        ]
        if x
    )
    print()
    print(block)
    raw = {
        "command": cmd,
        "data": str(data),
        "data_info": data_info,
        "machine": machine,
        "records": records,
        "summary": summary,
    }
    (out_dir / f"bench-{stamp}.json").write_text(json.dumps(raw, indent=1) + "\n")
    if not args.no_append:
        res = HERE / "RESULTS.md"
        if not res.exists():
            res.write_text(
                "# Benchmark results\n\nAppended by `benchmarks/run.py` (one section per run; "
                "newest last). Data from `benchmarks/generate.py`.\n"
            )
        with res.open("a") as f:
            f.write("\n" + block + "\n")


if __name__ == "__main__":
    main()
