"""Query-partitioned evaluation: peak memory bounded by one partition, not by the inputs.

Every measure is a per-query value, so an evaluation splits exactly along queries: each
partition is planned, validated and collected on its own, and only its per-query rows (one per
query, not per document) are kept, or written straight to Parquet. Two ways to split:

- ``partitions=N``: buckets by a hash of the query id. Each bucket re-scans the inputs with a
  filter (the streaming engine holds only the bucket's rows), so N buckets cost N scans: choose
  the smallest N whose bucket fits in memory.
- ``partitions="files"``: the run is a set of Parquet files (a glob or a folder) in which no
  query spans two files (data written partitioned by query), or no (group, query) with the
  run's breakdowns (one file per day, ``by=["day"]``): one scan of the files' ids finds each
  (group,) query's file (one in two files is an error), one streaming pass splits the
  judgments the same way into temporary Parquet files, then the files are evaluated one by
  one. Judged queries that no file holds are evaluated in a last, run-less pass (scored 0
  under ``complete``, reported missing otherwise).

The per-query frames are concatenated (queries x measures, small) for the coverage warnings
and the aggregation, so the result is the one an unpartitioned evaluation gives.
"""

from __future__ import annotations

import contextlib
import glob as globlib
import os
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from rankframe._engine.collect import _evaluated, _long, _raw_wide, _warn_coverage, report_progress
from rankframe._engine.options import Q
from rankframe._errors import InputError
from rankframe._io.atomic import atomic_path, write_errors

if TYPE_CHECKING:
    from rankframe._engine.options import Prepared

#: The seed of the query hash that assigns buckets (fixed: buckets are reproducible).
HASH_SEED = 0x5EED
_PART = "_part_index"


def run_files(run: Any) -> list[str]:
    """The Parquet files of a run given as a path, a glob or a folder."""
    if not isinstance(run, str | os.PathLike):
        msg = (
            "partitions='files' needs the run as a path: a glob ('runs/part-*.parquet') or a "
            "folder of Parquet files in which no query spans two files. For frames, use "
            "partitions=N (hash buckets)."
        )
        raise InputError(msg)
    path = os.fspath(run)
    if os.path.isdir(path):
        pattern = os.path.join(path, "**", "*.parquet")
    else:
        pattern = path
    files = sorted(globlib.glob(pattern, recursive=True))
    if not files:
        msg = f"No Parquet file matches the run {path!r} (partitions='files')."
        raise InputError(msg)
    return files


def is_count(partitions: Any) -> bool:
    """Whether ``partitions`` is a number of partitions (an int >= 1, not a bool)."""
    return isinstance(partitions, int) and not isinstance(partitions, bool) and partitions >= 1


def bucket(prep: Prepared, i: int, n: int) -> Prepared:
    """The queries of hash bucket ``i`` of ``n``: the inputs filtered (scanned in full)."""
    part = pl.col(Q).hash(seed=HASH_SEED) % n == i
    return replace(
        prep,
        run=prep.run.filter(part),
        qrels=prep.qrels.filter(part),
        pairs=None if prep.pairs is None else prep.pairs.filter(part),
    )


def _hash_parts(prep: Prepared, n: int) -> Iterator[tuple[str, Prepared]]:
    for i in range(n):
        yield f"bucket {i + 1}/{n}", bucket(prep, i, n)


def query_owners(
    runs: list[pl.LazyFrame], files: list[str], keys: list[str] | None = None, why: str | None = None
) -> pl.DataFrame:
    """``keys..., query_id, _part_index``: the run file holding each (group, query).

    ``keys``: the run's group keys (its ``run`` column and breakdowns): a query may then be in
    several files as long as each of its groups is in one (one file per day, with the day a
    breakdown). One scan of the files' ids. Raises :class:`InputError` when a (group,) query
    is in two files; ``why`` ends its message in place of the hint to pass a breakdown.
    """
    on = [*(keys or []), Q]
    held = pl.collect_all([run.select(on).unique() for run in runs])
    owner = pl.concat(
        [q.with_columns(pl.lit(i, pl.Int32).alias(_PART)) for i, q in enumerate(held)]
    )
    twice = owner.filter(pl.struct(on).is_duplicated()).sort([*on, _PART], nulls_last=True).head(2)
    if twice.height:
        a, b = (files[i] for i in twice[_PART])
        group = "".join(f", {k} {twice[k][0]!r}" for k in keys or [])
        by = (
            "" if keys else f" {why}" if why else " When each file holds whole groups of a "
            "breakdown (one file per day), pass that breakdown (by=['day'], --by day): the groups "
            "then need one file each."
        )
        msg = (
            f"Query {twice[Q][0]!r}{group} is in two run files, {a!r} and {b!r}: "
            f"partitions='files' needs every {'(group, query)' if keys else 'query'} in one "
            f"file. Write the run partitioned by query, or use partitions=N (hash buckets).{by}"
        )
        raise InputError(msg)
    return owner


def _file_parts(
    prep: Prepared, files: list[str], reprepare: Callable[[str], Prepared], tmp: str
) -> Iterator[tuple[str, Prepared]]:
    parts = [reprepare(path) for path in files]
    qkeys = [k for k in prep.keys if k in prep.qrels.collect_schema().names()]
    # a query may span files by its groups when every key is a breakdown of the run alone (a
    # group's queries are those it holds: no file scores another's); with a breakdown of the
    # qrels, or several runs under complete=True, each group (run) is owed its judged queries
    # that it lacks, which each file holding the query would score again: one file each. One
    # run (the command names it: a constant 'run' key) is owed those only in the last part.
    own = bool(prep.keys) and not qkeys
    owner = query_owners([p.run for p in parts], files, prep.keys if own else None)
    if own and "run" in prep.keys and prep.opts.complete and owner["run"].n_unique() > 1:
        why = (
            "Several runs under complete=True (-c) are each owed the judged queries they lack, "
            "which every file holding the query would score again: without -c, or with "
            "partitions=N, the files may share queries by their breakdown groups."
        )
        owner = query_owners([p.run for p in parts], files, None, why)
    # the judgments split the same way in one pass (not one scan of them per file): a query's
    # judgments go to each file holding it; those of queries no file holds to a part of their
    # own (-1)
    owners = owner.select(Q, _PART).unique().lazy()
    qrels = prep.qrels.join(owners, on=Q, how="left", nulls_equal=True).with_columns(
        pl.col(_PART).fill_null(-1)
    )
    with write_errors(tmp, "the partitions' scratch folder: TMPDIR chooses where it is"):
        qrels.sink_parquet(pl.PartitionBy(tmp, key=_PART, include_key=False), mkdir=True)
    empty = prep.qrels.head(0).collect()

    def split_qrels(i: int) -> pl.LazyFrame:
        folder = os.path.join(tmp, f"{_PART}={i}")
        return pl.scan_parquet(folder) if os.path.isdir(folder) else empty.lazy()

    for i, (path, part) in enumerate(zip(files, parts, strict=True)):
        yield f"file {i + 1}/{len(files)} ({os.path.basename(path)})", replace(
            part,
            qrels=split_qrels(i),
            pairs=None if prep.pairs is None else prep.pairs.join(
                owner.lazy().filter(pl.col(_PART) == i).select(Q), on=Q, how="semi"
            ),
            qrels_where=prep.qrels_where,
            qrels_given=prep.qrels_given,
            groups=prep.groups,
        )
    # the judged queries that no file holds: a run-less pass (missing, or 0 under complete)
    yield "judged queries without results", replace(
        prep, run=prep.run.head(0), qrels=split_qrels(-1),
        pairs=None if prep.pairs is None else prep.pairs.head(0),
    )


class _Sink:
    """Per-query rows appended to one Parquet file (``path``; None: nothing written), part by part.

    The path is the temporary file of :func:`rankframe._io.atomic.atomic_path`, which moves it
    into place once every part is written, or removes it when the evaluation fails.
    """

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.writer: Any = None

    def write(self, frame: pl.DataFrame) -> None:
        if self.path is None or frame.height == 0:
            return
        import pyarrow.parquet as pq

        table = frame.to_arrow()
        if self.writer is None:
            self.writer = pq.ParquetWriter(self.path, table.schema)
        self.writer.write_table(table.cast(self.writer.schema))

    def finish(self, empty: pl.DataFrame) -> None:
        """Complete the file: ``empty`` (the layout without rows) when no part had rows."""
        if self.path is not None and self.writer is None:
            empty.write_parquet(self.path)
        self.close()

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            self.writer = None


def _run_parts(
    prep: Prepared, names: list[str], prepare_run: Callable[[str], Prepared]
) -> Iterator[tuple[str, Prepared]]:
    """One part per run, planned as a single run.

    Without a ``run`` key the plan takes the plain join path; the run's name is put on its
    per-query rows afterwards (see :func:`_name_run`).
    """
    cache: dict = {}  # the same judgments for every run: their statistics are computed once
    for i, name in enumerate(names):
        yield f"run {i + 1}/{len(names)} ({name})", replace(
            prepare_run(name), pairs=prep.pairs, qrels_where=prep.qrels_where,
            qrels_given=prep.qrels_given, run_name=name, judgment_cache=cache,
        )  # groups: the run's own (complete=True scores its missing queries, not other runs')


def _name_run(raw: pl.DataFrame, part: Prepared, keys: list[str]) -> pl.DataFrame:
    """Give a single run's per-query rows its name, as the stacked runs would have it."""
    if part.run_name is None:
        return raw
    name = pl.lit(part.run_name)
    if "run" in part.keys:  # a frame of several runs: "name/its run"
        name = pl.concat_str([name, pl.lit("/"), pl.col("run").cast(pl.String)])
    return raw.with_columns(name.alias("run")).select(*keys, pl.exclude(keys))


def evaluate_runs(
    prep: Prepared,
    names: list[str],
    prepare_run: Callable[[str], Prepared],
    *,
    progress: bool,
    output: str | os.PathLike[str] | None,
) -> pl.DataFrame:
    """Evaluate several runs, one plan each (``prepare_run(name)``).

    The result is that of one plan over the stacked runs.
    """
    return _collect_parts(
        prep, lambda p, _: _run_parts(p, names, prepare_run), progress, output, all_groups=False
    )


def evaluate_parts(
    prep: Prepared,
    partitions: int | str,
    *,
    run: Any,
    reprepare: Callable[[str], Prepared],
    progress: bool,
    output: str | os.PathLike[str] | None,
) -> pl.DataFrame:
    """Evaluate partition by partition; return the per-query frame of the evaluated queries.

    ``reprepare(path)``: the preparation of one run file (``partitions="files"``). Coverage
    warnings are given once, for the whole evaluation.
    """
    if partitions == "files":
        files = run_files(run)

        def split(p: Prepared, tmp: str) -> Iterator[tuple[str, Prepared]]:
            return _file_parts(p, files, reprepare, tmp)
    elif is_count(partitions):

        def split(p: Prepared, tmp: str) -> Iterator[tuple[str, Prepared]]:
            return _hash_parts(p, partitions)
    else:
        msg = f"partitions must be an int >= 1, 'auto' or 'files'. Got {partitions!r}."
        raise InputError(msg)
    return _collect_parts(prep, split, progress, output)


def _collect_parts(
    prep: Prepared,
    split: Callable[[Prepared, str], Iterator[tuple[str, Prepared]]],
    progress: bool,
    output: str | os.PathLike[str] | None,
    *,
    all_groups: bool = True,
) -> pl.DataFrame:
    """Validate, plan and collect each part ``split(prep, tmp_dir)`` yields; keep per-query rows.

    ``all_groups``: each part must know every (run, breakdown) group (query partitions);
    ``False`` when a part holds whole groups (runs evaluated apart).
    """
    if prep.keys and all_groups:
        # complete=True scores the missing judged queries for every group: all groups are
        # needed in each partition (one scan of the key columns)
        prep = replace(prep, groups=prep.run.select(*prep.keys).unique().collect().lazy())
    raws: list[pl.DataFrame] = []
    start = time.perf_counter()
    with contextlib.ExitStack() as stack:
        # the output is complete at its destination, or absent (a failure, an interrupt)
        tmp = stack.enter_context(tempfile.TemporaryDirectory(prefix="rankframe-"))
        sink = _Sink(None if output is None else stack.enter_context(atomic_path(output)))
        stack.callback(sink.close)
        for label, part in split(prep, tmp):
            t0 = time.perf_counter()
            raw = _raw_wide(part, validate=True, progress=label if progress else None)
            raw = _name_run(raw, part, prep.keys)
            raws.append(raw)
            wide = _evaluated(prep, raw)
            sink.write(_long(wide, prep.measures, [*prep.keys, Q]))
            if progress:
                now = time.perf_counter()
                report_progress(label, raw, now - t0, now - start)
        sink.finish(_long(_evaluated(prep, raws[0].head(0)), prep.measures, [*prep.keys, Q]))
    raw = pl.concat(raws, how="vertical_relaxed")
    _warn_coverage(prep, raw)
    return _evaluated(prep, raw)


__all__ = ["evaluate_parts", "evaluate_runs"]
