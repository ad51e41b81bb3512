"""Recommender shape: rankframe's one call for seven measures against RePlay's ``OfflineMetrics``.

What is measured (issue 39): the seven measures at 10 that RePlay (``replay-rec`` 0.22.0) computes
together, NDCG, MAP, Recall, Coverage, Novelty, Surprisal and CategoricalDiversity, on a
synthetic recommender data set (``generate`` below, seeded): ``--users`` users x 100 recommended
items (100k users = 10M run rows ``user_id, item_id, score``, distinct scores within a user), a
catalogue of 20k items with a ``category`` string column (300 categories, Zipf-like), ~5M
training interactions ``user_id, item_id`` (popular items Zipf-like, the 5% least popular items
never interacted with) and a test truth ``user_id, item_id, relevance`` (relevance 1: ~10
positives per user, about a third of them drawn from the user's recommendations, mostly near the
top). String ids (``u000123``, ``i00042``) or integers (``--ids int``). Every user is in the run,
the truth and the training history, so that every measure averages over the same users in both
tools. Written as Parquet to ``benchmarks/data/recsys-<ids>-<users>/`` (gitignored) when missing.

Tools, each timed in a fresh process (interpreter start and imports included; peak RSS from
``os.wait4``, that child's own ``ru_maxrss``), rounds interleaved with the starting tool rotating:

* ``rankframe``: ONE call ``rf.evaluate(truth, run, MEASURES, interactions=train, items=catalogue)``
  on the four Parquet paths. RePlay's MAP is ``AP(norm='min_k_num_rel')@10``; its NDCG is binary
  (the truth's relevance is 1 throughout).
* ``rankframe-accuracy``: the three accuracy measures alone (no side inputs).
* ``rankframe-beyond``: the four beyond-accuracy measures alone, ``qrels=None``.
* ``replay``: in RePlay's own venv (it pins polars 1.x; ``$RANKFRAME_REPLAY_VENV``, default
  ``/tmp/rankframe-oracles/replay``, created with ``pip install replay-rec==0.22.0`` when
  missing): the four files read with ``pl.read_parquet``, the catalogue's category joined to the
  recommendations (RePlay's ``CategoricalDiversity`` reads the category from the recommendations
  frame), then ``OfflineMetrics([NDCG(10), MAP(10), Recall(10), Coverage(10), Novelty(10),
  Surprisal(10), CategoricalDiversity(10)], query_column="user_id", item_column="item_id",
  rating_column="score", category_column="category")(recs, truth, train)``: one call takes all
  seven (it computes CategoricalDiversity apart, from ``recs``). Its phases (read, join,
  OfflineMetrics) are timed in the process.

rankframe's seven values are checked against every RePlay round's (absolute difference <= 1e-9;
RePlay's own means vary by ~1e-16 between rounds), and every rankframe call (each round, the
accuracy-only and beyond-only calls) against the one call, bit for bit. The data are generated
in a child process: Linux carries a process's peak RSS into its children's ``ru_maxrss``.

The table gives medians of ``--rounds``: process wall time, the in-process time (rankframe:
``evaluate`` on the paths; RePlay: read + join + OfflineMetrics), ratios to rankframe's one call
and peak RSS; then how much the four beyond-accuracy measures add to the accuracy-only call.
``--record`` appends a dated section to ``benchmarks/RESULTS.md``; raw measurements go to
``benchmarks/out/recsys-*.json``, which ``--from-records FILE`` prints again (and appends with
``--record``).

Commands (project venv active)::

    python benchmarks/bench_recsys.py --users 10000 --ids string --rounds 3            # 1M rows
    python benchmarks/bench_recsys.py --users 100000 --ids string --rounds 3 --record  # 10M rows
    python benchmarks/bench_recsys.py --users 100000 --ids int --rounds 3 --record
    python benchmarks/bench_recsys.py --users 10000 --generate-only                    # data only
"""

from __future__ import annotations

import argparse
import datetime as dt
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
K = 10
ACCURACY = ["nDCG@10", "AP(norm='min_k_num_rel')@10", "R@10"]
BEYOND = ["Coverage@10", "Novelty@10", "Surprisal@10", "CategoricalDiversity@10"]
MEASURES = ACCURACY + BEYOND
# rankframe's canonical name -> RePlay's result key
REPLAY_NAMES = dict(
    zip(
        MEASURES,
        ["NDCG@10", "MAP@10", "Recall@10", "Coverage@10", "Novelty@10", "Surprisal@10",
         "CategoricalDiversity@10"],
        strict=True,
    )
)
TOOLS = ["rankframe", "replay", "rankframe-accuracy", "rankframe-beyond"]
REPLAY_VERSION = "0.22.0"
REPLAY_VENV = Path(os.environ.get("RANKFRAME_REPLAY_VENV", "/tmp/rankframe-oracles/replay"))
ATOL = 1e-9
FILES = ("run", "truth", "train", "items")


# --------------------------------------------------------------------------- data


def _zipf(n: int, a: float):  # noqa: ANN202
    import numpy as np

    w = 1.0 / np.arange(1, n + 1, dtype=np.float64) ** a
    return w / w.sum()


def generate(
    users: int,
    ids: str = "string",
    seed: int = 0,
    n_items: int = 20_000,
    k: int = 100,
    categories: int = 300,
    train_mean: int = 53,
    positives_mean: int = 10,
):  # noqa: ANN201
    """Return ``(run, truth, train, items)`` Polars frames (see the module docstring)."""
    import numpy as np
    import polars as pl

    rng = np.random.default_rng(seed)
    # Popularity: item by_rank[r] has popularity rank r; the last 5% are cold (never trained on).
    by_rank = rng.permutation(n_items)
    warm = n_items - n_items // 20
    item_cat = rng.choice(categories, n_items, p=_zipf(categories, 1.0))

    # Training interactions: Poisson(train_mean) per user (>= 1), Zipf(0.8) over the warm items,
    # one row per (user, item).
    n_train = np.maximum(1, rng.poisson(train_mean, users))
    train = pl.DataFrame(
        {
            "u": np.repeat(np.arange(users, dtype=np.int64), n_train),
            "i": by_rank[rng.choice(warm, int(n_train.sum()), p=_zipf(warm, 0.8))].astype(np.int64),
        }
    ).unique(maintain_order=True)

    # Recommendations: the first k distinct of 2k draws from Zipf(0.6) over all items, ranked in
    # draw order; users left short (rare) are topped up with items they lack.
    draws = by_rank[rng.choice(n_items, (users, 2 * k), p=_zipf(n_items, 0.6))].astype(np.int64)
    cand = (
        pl.DataFrame({"u": np.repeat(np.arange(users, dtype=np.int64), 2 * k), "i": draws.ravel()})
        .unique(maintain_order=True)
        .with_columns(pl.int_range(pl.len()).over("u").alias("rank"))
        .filter(pl.col("rank") < k)
    )
    short = cand.group_by("u").len().filter(pl.col("len") < k)
    if short.height:
        extra = []
        have = cand.filter(pl.col("u").is_in(short["u"].implode())).group_by("u").agg("i")
        for u, items in have.iter_rows():
            lack = np.setdiff1d(rng.permutation(n_items)[: 2 * k], items, assume_unique=True)
            extra += [(u, int(i), len(items) + j) for j, i in enumerate(lack[: k - len(items)])]
        cand = pl.concat([cand, pl.DataFrame(extra, schema=cand.schema, orient="row")]).sort(
            "u", "rank", maintain_order=True
        )
    assert cand.height == users * k
    # Scores: rank r's score lies in (1 - (r + 1) / k, 1 - r / k): distinct within a user.
    noise = rng.uniform(0.01, 0.99, users * k)
    run = cand.with_columns(score=1.0 - (pl.col("rank").cast(pl.Float64) + noise) / k).drop("rank")

    # Truth: 1 + Poisson(positives_mean - 1) positives per user; each one of the user's
    # recommendations with probability 1/3 (rank floor(k * U^2): likelier near the top), else a
    # Zipf(0.6) draw over all items; one row per (user, item).
    n_pos = np.minimum(1 + rng.poisson(positives_mean - 1, users), 4 * positives_mean)
    tu = np.repeat(np.arange(users, dtype=np.int64), n_pos)
    from_recs = rng.random(tu.size) < 1 / 3
    rank = np.minimum((k * rng.random(tu.size) ** 2).astype(np.int64), k - 1)
    rec_items = run["i"].to_numpy()[tu * k + rank]
    other = by_rank[rng.choice(n_items, tu.size, p=_zipf(n_items, 0.6))]
    truth = pl.DataFrame({"u": tu, "i": np.where(from_recs, rec_items, other).astype(np.int64)}).unique(
        maintain_order=True
    )

    if ids == "string":
        uid = pl.format("u{}", pl.col("u").cast(pl.String).str.zfill(6)).alias("user_id")
        iid = pl.format("i{}", pl.col("i").cast(pl.String).str.zfill(5)).alias("item_id")
    else:
        uid, iid = pl.col("u").alias("user_id"), pl.col("i").alias("item_id")
    run = run.select(uid, iid, "score")
    truth = truth.select(uid, iid, pl.lit(1, pl.Int32).alias("relevance"))
    train = train.select(uid, iid)
    items = pl.DataFrame({"i": np.arange(n_items, dtype=np.int64), "c": item_cat}).select(
        iid, pl.format("c{}", pl.col("c").cast(pl.String).str.zfill(3)).alias("category")
    )
    return run, truth, train, items


def data_dir(ids: str, users: int) -> Path:
    size = f"{users // 1000}k" if users % 1000 == 0 else str(users)
    return HERE / "data" / f"recsys-{ids}-{size}"


def ensure_data(ids: str, users: int, seed: int, force: bool) -> Path:
    out = data_dir(ids, users)
    if not force and all((out / f"{f}.parquet").exists() for f in FILES) and (out / "info.json").exists():
        return out
    t0 = time.perf_counter()
    frames = dict(zip(FILES, generate(users, ids, seed), strict=True))
    out.mkdir(parents=True, exist_ok=True)
    for name, df in frames.items():
        df.write_parquet(out / f"{name}.parquet")
    run, truth = frames["run"], frames["truth"]
    info = {
        "users": users,
        "ids": ids,
        "seed": seed,
        "rows": run.height,
        "truth": truth.height,
        "train": frames["train"].height,
        "items": frames["items"].height,
        "categories": frames["items"]["category"].n_unique(),
        "truth_in_run": truth.join(run, on=["user_id", "item_id"], how="semi").height,
        "seconds": round(time.perf_counter() - t0, 1),
    }
    (out / "info.json").write_text(json.dumps(info, indent=2) + "\n")
    print(f"generated {out.relative_to(REPO)}: {json.dumps(info)}", flush=True)
    return out


# --------------------------------------------------------------------------- workers


def work_rankframe(data: Path, phases: dict, which: str) -> dict:
    t = time.perf_counter()
    import rankframe as rf

    phases["import"] = time.perf_counter() - t
    p = {f: data / f"{f}.parquet" for f in FILES}
    t = time.perf_counter()
    if which == "all":
        res = rf.evaluate(p["truth"], p["run"], MEASURES, interactions=p["train"], items=p["items"])
    elif which == "accuracy":
        res = rf.evaluate(p["truth"], p["run"], ACCURACY)
    else:
        res = rf.evaluate(None, p["run"], BEYOND, interactions=p["train"], items=p["items"])
    phases["compute"] = time.perf_counter() - t
    return dict(zip(res["measure"].to_list(), res["value"].to_list(), strict=True))


def work_replay(data: Path, phases: dict) -> dict:
    t = time.perf_counter()
    import polars as pl
    from replay.metrics import (
        MAP,
        NDCG,
        CategoricalDiversity,
        Coverage,
        Novelty,
        OfflineMetrics,
        Recall,
        Surprisal,
    )

    phases["import"] = time.perf_counter() - t
    t0 = t = time.perf_counter()
    run = pl.read_parquet(data / "run.parquet")
    truth = pl.read_parquet(data / "truth.parquet")
    truth = truth.filter(pl.col("relevance") > 0).select("user_id", "item_id")
    train = pl.read_parquet(data / "train.parquet")
    items = pl.read_parquet(data / "items.parquet")
    phases["read"] = time.perf_counter() - t
    t = time.perf_counter()
    recs = run.join(items, on="item_id", how="left")
    phases["join"] = time.perf_counter() - t
    t = time.perf_counter()
    metrics = [NDCG(K), MAP(K), Recall(K), Coverage(K), Novelty(K), Surprisal(K), CategoricalDiversity(K)]
    res = OfflineMetrics(
        metrics, query_column="user_id", item_column="item_id", rating_column="score",
        category_column="category",
    )(recs, truth, train)
    phases["metrics"] = time.perf_counter() - t
    phases["compute"] = time.perf_counter() - t0
    return {m: float(res[r]) for m, r in REPLAY_NAMES.items()}


def worker_main(tool: str, data: Path) -> None:
    phases: dict = {}
    if tool == "replay":
        values = work_replay(data, phases)
    else:
        values = work_rankframe(data, phases, {"rankframe": "all"}.get(tool, tool.split("-")[-1]))
    print("RESULT " + json.dumps({"values": values, "phases": phases}), flush=True)


# --------------------------------------------------------------------------- driver


def replay_python() -> Path:
    """RePlay's interpreter, its venv created (``pip install replay-rec==0.22.0``) when missing."""
    py = REPLAY_VENV / "bin" / "python"
    probe = [str(py), "-c", f"import replay, sys; sys.exit(replay.__version__ != '{REPLAY_VERSION}')"]
    if py.exists() and subprocess.run(probe, capture_output=True, check=False).returncode == 0:
        return py
    print(f"creating {REPLAY_VENV} with replay-rec=={REPLAY_VERSION} (pins polars 1.x)", flush=True)
    subprocess.run([sys.executable, "-m", "venv", str(REPLAY_VENV)], check=True)
    subprocess.run([str(py), "-m", "pip", "install", "-q", f"replay-rec=={REPLAY_VERSION}"], check=True)
    return py


def measure(tool: str, data: Path, py: Path, timeout: float) -> dict:
    """One worker in a fresh process: wall seconds, peak RSS of that child (os.wait4), results."""
    cmd = [str(py), str(Path(__file__).resolve()), "--worker", tool, "--data", str(data)]
    env = dict(os.environ, PYTHONWARNINGS="ignore")
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        load = os.getloadavg()[0]
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, env=env, cwd=REPO)
        while True:
            pid, status, ru = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() - t0 > timeout:
                proc.kill()
                pid, status, ru = os.wait4(proc.pid, 0)
                break
            time.sleep(0.005)
        wall = time.perf_counter() - t0
        rc = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read().decode(), err.read().decode()
    rec = {
        "tool": tool, "wall": wall, "rss_mib": ru.ru_maxrss / 1024, "cpu": ru.ru_utime + ru.ru_stime,
        "rc": rc, "load1_before": load,
    }
    lines = [ln for ln in stdout.splitlines() if ln.startswith("RESULT ")]
    if rc == 0 and lines:
        rec.update(json.loads(lines[-1][len("RESULT "):]))
    else:
        rec["error"] = (stderr.strip().splitlines() or [f"rc {rc}, no output"])[-1][:300]
    return rec


def machine() -> str:
    import importlib.metadata as md

    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True, check=False
    ).stdout.strip()
    dirty = subprocess.run(
        ["git", "status", "--porcelain", "--", "rankframe"], cwd=REPO, capture_output=True, text=True,
        check=False,
    ).stdout.strip()
    cpu = "?"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return (
        f"{len(os.sched_getaffinity(0))} cores ({cpu}), Python {platform.python_version()}, polars "
        f"{md.version('polars')} (RePlay's venv: replay-rec {REPLAY_VERSION}, its polars 1.x), rankframe @ "
        f"{commit}{' + uncommitted changes in rankframe/' if dirty else ''}"
    )


def report(records: list[dict], info: dict, rounds: int) -> tuple[str, bool]:
    """The markdown block (tables and figures) and whether the values agree."""
    ok = [r for r in records if "error" not in r]
    by: dict[str, list[dict]] = {}
    for r in ok:
        by.setdefault(r["tool"], []).append(r)

    def med(tool: str, key: str) -> float | None:
        rs = by.get(tool)
        if not rs:
            return None
        return statistics.median(r[key] if key in r else r["phases"][key] for r in rs)

    base_wall, base_in, base_rss = med("rankframe", "wall"), med("rankframe", "compute"), med(
        "rankframe", "rss_mib"
    )
    label = {
        "rankframe": "rankframe, one call (7 measures)",
        "replay": "RePlay OfflineMetrics (7 measures)",
        "rankframe-accuracy": "rankframe, accuracy only (nDCG, AP, R)",
        "rankframe-beyond": "rankframe, beyond-accuracy only (Coverage, Novelty, Surprisal, CatDiv)",
    }
    lines = [
        "| tool | runs | wall median (s) | wall min (s) | in-process median (s) | wall vs rankframe "
        "| in-process vs rankframe | peak RSS median (MiB) | RSS vs rankframe |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]

    def ratio(a: float | None, b: float | None) -> str:
        return f"{a / b:.2f}x" if a is not None and b else "-"

    for tool in TOOLS:
        if tool not in by:
            continue
        wall, rin, rss = med(tool, "wall"), med(tool, "compute"), med(tool, "rss_mib")
        lines.append(
            f"| {label[tool]} | {len(by[tool])} | {wall:.2f} | {min(r['wall'] for r in by[tool]):.2f} "
            f"| {rin:.2f} | {ratio(wall, base_wall)} | {ratio(rin, base_in)} | {rss:.0f} "
            f"| {ratio(rss, base_rss)} |"
        )
    parts = ["\n".join(lines)]
    if "replay" in by:
        parts.append(
            "RePlay in-process phases (medians): "
            + ", ".join(f"{ph} {med('replay', ph):.2f} s" for ph in ("import", "read", "join", "metrics"))
            + f"; rankframe's one call: import {med('rankframe', 'import'):.2f} s, evaluate "
            f"{med('rankframe', 'compute'):.2f} s (reading the Parquet files included)."
            if "rankframe" in by
            else ""
        )
    acc, allm, bey = (med(t, "compute") for t in ("rankframe-accuracy", "rankframe", "rankframe-beyond"))
    accw, allw = med("rankframe-accuracy", "wall"), med("rankframe", "wall")
    if acc and allm:
        parts.append(
            f"Beyond-accuracy measures in rankframe: the one call for 7 measures takes {allm:.2f} s in "
            f"process against {acc:.2f} s for the 3 accuracy measures alone: the 4 beyond-accuracy "
            f"measures add {100 * (allm - acc) / acc:.0f}% ({allw:.2f} vs {accw:.2f} s process wall, "
            f"+{100 * (allw - accw) / accw:.0f}%)"
            + (
                f"; alone (qrels=None) they take {bey:.2f} s, so the one call saves "
                f"{acc + bey - allm:.2f} s over two calls ({acc + bey:.2f} s)."
                if bey
                else "."
            )
        )
    # values: every RePlay round against rankframe's one call (RePlay's means vary in the last bits
    # between rounds: Polars' multithreaded sums), every rankframe call bit for bit against it
    agree = True
    ref = by.get("rankframe", [{}])[0].get("values", {})
    vl = [
        "| measure (rankframe) | RePlay | rankframe | RePlay (round 1) "
        "| max abs. difference (all RePlay rounds) |",
        "|---|---|---:|---:|---:|",
    ]
    worst_all = 0.0
    for m in MEASURES:
        a = ref.get(m)
        bs = [r["values"].get(m) for r in by.get("replay", [])]
        diff = max((abs(a - b) for b in bs), default=None) if a is not None and None not in bs else None
        agree &= diff is not None and diff <= ATOL
        worst_all = max(worst_all, diff or 0.0)
        fa = f"{a:.12f}" if a is not None else "-"
        fb = f"{bs[0]:.12f}" if bs and bs[0] is not None else "-"
        vl.append(f"| {m} | {REPLAY_NAMES[m]} | {fa} | {fb} | {f'{diff:.1e}' if diff is not None else '-'} |")
    mismatch = [
        f"{tool} {m}: {v!r} vs {ref.get(m)!r}"
        for tool, rs in by.items()
        if tool != "replay"
        for r in rs
        for m, v in r["values"].items()
        if v != ref.get(m)
    ]
    spread = max(
        (
            max(r["values"][m] for r in by["replay"]) - min(r["values"][m] for r in by["replay"])
            for m in MEASURES
        ),
        default=0.0,
    ) if "replay" in by else 0.0
    agree &= not mismatch
    parts.append("\n".join(vl))
    parts.append(
        f"Values: rankframe vs RePlay {'agree' if agree else 'DIFFER'} (largest difference {worst_all:.1e}, "
        f"tolerance {ATOL:g} absolute; RePlay's own rounds differ by up to {spread:.1e}); "
        + (
            "every rankframe call (each round, the accuracy-only and beyond-only calls) gives the one "
            "call's values bit for bit."
            if not mismatch
            else "rankframe mismatches: " + "; ".join(mismatch[:10])
        )
    )
    failed = [f"{r['tool']} (round {r['round']}): {r['error']}" for r in records if "error" in r]
    if failed:
        parts.append("Failed: " + "; ".join(failed))
    loads = [r["load1_before"] for r in records]
    parts.append(
        f"Data: {info['rows']:,} run rows ({info['users']:,} users x 100, {info['ids']} ids), "
        f"{info['truth']:,} truth rows ({info['truth_in_run']:,} of them recommended), "
        f"{info['train']:,} training interactions, {info['items']:,} items in {info['categories']} "
        f"categories. {rounds} interleaved rounds, fresh process per measurement (wall: interpreter "
        f"start + imports + reading Parquet + measures; in-process: without the imports); 1-minute "
        f"load before measurements: median {statistics.median(loads):.1f}, max {max(loads):.1f}."
    )
    return "\n\n".join(p for p in parts if p), agree


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--users", type=int, default=100_000, help="users (x 100 run rows); default 100000")
    p.add_argument("--ids", choices=["string", "int"], default="string")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--tools", default=",".join(TOOLS), help=f"comma-separated, of {','.join(TOOLS)}")
    p.add_argument("--timeout", type=float, default=1800, help="per measurement (s)")
    p.add_argument("--regenerate", action="store_true", help="write the data even if present")
    p.add_argument("--generate-only", action="store_true")
    p.add_argument("--record", action="store_true", help="append a dated section to benchmarks/RESULTS.md")
    p.add_argument("--note", default="", help="a line under the section in RESULTS.md")
    p.add_argument(
        "--from-records", type=Path,
        help="print (and with --record append) the section of a saved benchmarks/out/recsys-*.json",
    )
    p.add_argument("--worker", help=argparse.SUPPRESS)
    p.add_argument("--data", type=Path, help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.worker:
        worker_main(a.worker, a.data)
        return
    if a.from_records:
        finish(json.loads(a.from_records.read_text()), a.record, a.note)
        return
    tools = [t.strip() for t in a.tools.split(",") if t.strip()]
    if set(tools) - set(TOOLS):
        p.error(f"unknown tools {sorted(set(tools) - set(TOOLS))}")
    if a.generate_only:
        ensure_data(a.ids, a.users, a.seed, a.regenerate)
        return
    # Generated in a child process: Linux carries a process's peak RSS over fork and exec into its
    # children's ru_maxrss, so the driver must stay small for the measured children's to be theirs.
    data = data_dir(a.ids, a.users)
    gen = [
        sys.executable, str(Path(__file__).resolve()), "--generate-only", "--users", str(a.users),
        "--ids", a.ids, "--seed", str(a.seed), *(["--regenerate"] if a.regenerate else []),
    ]
    subprocess.run(gen, check=True)
    info = json.loads((data / "info.json").read_text())
    rpy = replay_python() if "replay" in tools else None
    start = dt.datetime.now(dt.UTC)
    mach = machine()
    load0 = os.getloadavg()
    for f in FILES:  # the files in the page cache before the first measurement (read by chunks)
        with (data / f"{f}.parquet").open("rb") as fh:
            while fh.read(1 << 24):
                pass
    records = []
    for rnd in range(a.rounds):
        shift = rnd % len(tools)
        for tool in tools[shift:] + tools[:shift]:
            rec = measure(tool, data, rpy if tool == "replay" else Path(sys.executable), a.timeout)
            rec["round"] = rnd
            records.append(rec)
            if "error" in rec:
                print(f"round {rnd} {tool:20s} FAILED: {rec['error']}", flush=True)
            else:
                ph = " ".join(f"{k}={v:.2f}" for k, v in rec["phases"].items())
                print(
                    f"round {rnd} {tool:20s} wall {rec['wall']:7.2f} s  cpu {rec['cpu']:7.2f} s  rss "
                    f"{rec['rss_mib']:6.0f} MiB  load {rec['load1_before']:.1f}  [{ph}]",
                    flush=True,
                )
    cmd = "python " + " ".join(shlex.quote(x) for x in [os.path.relpath(__file__, REPO), *sys.argv[1:]])
    raw = {
        "command": cmd, "data": os.path.relpath(data, REPO), "info": info, "rounds": a.rounds,
        "start": start.strftime("%Y-%m-%d %H:%M UTC"), "machine": mach,
        "load_start": [round(x, 2) for x in load0], "load_end": round(os.getloadavg()[0], 2),
        "records": records,
    }
    out = HERE / "out"
    out.mkdir(exist_ok=True)
    (out / f"recsys-{start.strftime('%Y%m%d-%H%M%S')}.json").write_text(json.dumps(raw) + "\n")
    finish(raw, a.record, a.note)


def finish(raw: dict, record: bool, note: str) -> None:
    """Print the section (and append it to RESULTS.md with ``record``); exit 1 if values differ."""
    md, agree = report(raw["records"], raw["info"], raw["rounds"])
    info = raw["info"]
    block = "\n\n".join(
        x
        for x in [
            f"## Recommender shape vs RePlay {REPLAY_VERSION}: {info['rows'] / 1e6:g}M run rows, "
            f"{info['ids']} ids, {raw['rounds']} round(s): {raw['start']}",
            f"`{raw['command']}` (data: `{raw['data']}`)",
            md,
            f"Machine: {raw['machine']}; load {raw['load_start']} at start, {raw['load_end']} at end.",
            note,
        ]
        if x
    )
    print()
    print(block)
    if record:
        with (HERE / "RESULTS.md").open("a") as f:
            f.write("\n" + block + "\n")
    if not agree:
        sys.exit(1)


if __name__ == "__main__":
    main()
