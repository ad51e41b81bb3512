"""Memory-aware evaluation: what the process may still use, what a plan needs, how to split it.

An evaluation that outgrows the memory the process may use does not fail cleanly: the Rust
allocator aborts the interpreter ("memory allocation of N bytes failed", exit 134), or the
kernel's OOM killer ends it. Both are foreseeable from the inputs, so ``partitions="auto"``
(the default) looks before it plans:

- **What is available** (:func:`available`): two budgets, since limits count two things.
  *Resident* memory: the cgroup's ``memory.max`` (v2) or ``memory.limit_in_bytes`` (v1) less
  what the cgroup holds (page cache it may drop not counted), and the machine's
  ``MemAvailable``. *Address space*: ``RLIMIT_AS`` (``ulimit -v``) less the process's mapped
  size, ``RLIMIT_DATA`` less its data segment. ``RANKFRAME_MEMORY_LIMIT`` (e.g. ``4GiB``) adds
  a resident limit of the user's own where none is detected (a shared notebook server); a
  value that is not a size is an :class:`~rankframe.InputError` (:func:`user_limit`).
- **What a plan needs** (:func:`estimate`): from the row counts of the prepared inputs (Parquet
  metadata; frames already in memory) and their row width (8 bytes a number, 16 a string view
  plus the bytes of strings longer than 12, from a sample), one plan's share
  ``V = 2 * bytes + 16 * rows``: a part of ``n`` partitions needs ``80 MiB + 0.05 V + V / n``
  resident and ``1.15 (144 MiB + 0.04 V + V / n)`` of address space (each part scans every
  input, hence the floor), ``1.15 (96 MiB + 0.2 V + V / n)`` where Polars' allocator keeps the
  address space it frees, which then grows part after part (:data:`ADDRESS_FLOOR`). Only the
  columns the plan reads count (a log's label is not read as the run, its score not as the
  qrels). Calibrated on the benchmark data (1M-10M rows, string and integer ids, 1-128
  partitions), on the log scenario's 2M and 20M rows and on the 5M rows of
  ``tests/test_memory.py`` (``benchmarks/memory_calibration.py``): the address space of one
  part measures 1.3-2.4 times under the estimate (many parts of few rows: 1.3-1.5), the resident
  peak 1.2-2.6 times; many measures count up to 1.5 times, measures comparing rankings twice.
- **The decision** (:func:`choose_partitions`): one plan when it fits in 90% of both budgets,
  else the fewest hash partitions (2, 4, ... 256, and under a limit on to 4096 before
  refusing) whose part fits; when none fits a limit,
  :class:`~rankframe.InputError` before anything runs, naming the ways out (when only free
  memory is short, 256 partitions: the system may page or reclaim).
- **The largest query** (:func:`largest_query`, one scan of the query ids, only where it may
  matter): a partition holds each query whole, and a query's group holds its rows whole, so
  the partition holding the largest query holds it (counted twice) beside its share of the
  rest; a query that no partition can hold is refused by name before anything runs.
- Inputs parsed whole before the plan (TREC text) and ``MemoryError``: see
  :mod:`rankframe._engine.memory_guard`.

Under an address-space limit the allocators' reservations count: see
:mod:`rankframe._engine.allocator` (set when rankframe is imported).

This module imports only the standard library at the top.
"""

from __future__ import annotations

import contextlib
import math
import os
import re
import resource
import threading
import time
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from rankframe._engine.allocator import returns_address_space, soft_limit

if TYPE_CHECKING:
    import polars as pl

    from rankframe._engine.options import Prepared

MiB = 1 << 20
#: The share of a budget a plan may take (the rest: the caller's objects, the output frames).
SHARE = 0.9
#: The most hash partitions ``partitions="auto"`` uses where it need not (each re-scans the
#: inputs): past them, only free memory short, it lets the system page or reclaim.
MAX_PARTITIONS = 256
#: Under a limit, the most it tries before refusing (a part's share of the rows still falls).
MAX_TRIED = 4096
#: Each part's address space beyond its share of the rows: a fixed part (thread stacks, the
#: allocators' arenas, scan buffers of every input) and a share of one plan, by whether Polars'
#: allocator returns the address space it frees (:mod:`rankframe._engine.allocator`, which sets
#: it under a limit). Measured (``benchmarks/memory_calibration.py``, RESULTS.md 2026-11-28):
#:
#: - it returns it: the address space stays level part after part (the 5M-row test data in 8
#:   parts: 426 MiB ``VmPeak`` after the first, 447 after the last), and one part's peak above
#:   the imports falls to a floor that grows with the inputs: 150-160 MiB for the 2M-row log in
#:   32 and 128 parts (one plan estimated at 755 MiB), 441 and 453 MiB for the 20M-row log in
#:   16 and 64 (7543 MiB): about 135 MiB and 4% of one plan; taken as 144 MiB and 4%, then
#:   15% more (the 20M-row log's 64 parts: 649 MiB estimated).
#: - it keeps it (Polars imported before rankframe, or ``retain`` set otherwise): the address
#:   space grows part after part, by up to 17% of one plan on the test data (4 parts: 286 MiB
#:   after the first, 406 after the last); 128 parts of the 20M-row log planned with 7%
#:   aborted after the last one, and the test's 2 parts planned with 10% aborted in the second
#:   (a CI flake): 96 MiB and 20%.
ADDRESS_FLOOR = {True: (144 * MiB, 0.04), False: (96 * MiB, 0.2)}
#: Rows sampled for the width of string columns.
SAMPLE = 4096
# resident overhead of one plan (scan buffers, thread-local state): one part of the 2M-row log
# in 128 measured 118 MiB (VmHWM) where 64 MiB + 5% of one plan made 108
_FIXED = 80 * MiB


# --- what is available ---------------------------------------------------------------------

_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}
_SIZE = re.compile(r"\s*([0-9]+(?:\.[0-9]*)?(?:e[+-]?[0-9]+)?)\s*([kmgt]?)(?:i?b)?\s*")
#: The environment variable that sets a memory limit of the user's own.
LIMIT_VARIABLE = "RANKFRAME_MEMORY_LIMIT"
_ACCEPTS = (
    "a positive number of bytes, or of K, M, G or T (1024-based; KiB, KB and k mean the same), "
    "e.g. 4GiB, 512M, 1.5G, 1e9; unset it (or 'none') for no limit of your own"
)


def parse_size(text: str, name: str = LIMIT_VARIABLE) -> int:
    """Bytes from ``"4GiB"``, ``"512M"``, ``"1.5 g"``, ``"1e9"`` (units are powers of 1024).

    Raises :class:`~rankframe.InputError` naming ``name`` for anything else, and for sizes
    under 1 MiB (a unit forgotten: ``"512"`` is 512 bytes, no evaluation fits in it).

    Examples
    --------
    >>> parse_size("4GiB"), parse_size("512m"), parse_size("2000000"), parse_size("1e9")
    (4294967296, 536870912, 2000000, 1000000000)
    """
    from rankframe._errors import InputError

    match = _SIZE.fullmatch(text.lower())
    value = float(match.group(1)) * _UNITS[match.group(2)] if match else float("nan")
    if not math.isfinite(value):
        msg = f"{name}={text!r} is not a memory size: it takes {_ACCEPTS}."
        raise InputError(msg)
    if value < MiB:
        msg = (
            f"{name}={text!r} is {int(value):,} bytes, under 1 MiB, which no evaluation fits in: "
            f"it takes {_ACCEPTS}."
        )
        raise InputError(msg)
    return int(value)


def user_limit() -> int | None:
    """The limit ``RANKFRAME_MEMORY_LIMIT`` sets, in bytes; None when unset, empty or ``none``.

    Raises :class:`~rankframe.InputError` (one line: the variable, what it takes, what came)
    when it is set to anything else than a size (:func:`parse_size`).
    """
    given = os.environ.get(LIMIT_VARIABLE, "").strip()
    if given.lower() in ("", "none"):
        return None
    return parse_size(given)


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="ascii", errors="replace") as f:
            return f.read()
    except OSError:
        return None


def _fields(text: str | None, unit: int = 1, names: tuple[str, ...] | None = None) -> dict[str, int]:
    """``name value`` (``memory.stat``) or ``Name:  value kB`` (``/proc``) lines as a dict.

    ``names``: only those fields, found directly (``/proc/self/status`` and ``/proc/meminfo``
    hold ~50 lines each: parsing them all took ~0.4 ms of a small evaluation).
    """
    out: dict[str, int] = {}
    if names is not None:
        for name in names:
            found = re.search(rf"^{re.escape(name)}:?[ \t]+(\d+)\b", text or "", re.MULTILINE)
            if found is not None:
                out[name] = int(found.group(1)) * unit
        return out
    for line in (text or "").splitlines():
        parts = line.replace(":", " ").split()
        if len(parts) >= 2 and parts[1].isdigit():
            out[parts[0]] = int(parts[1]) * unit
    return out


def cgroup_headroom(proc: str = "/proc/self/cgroup", root: str = "/sys/fs/cgroup") -> int | None:
    """Bytes the process's cgroup may still make resident, or None without a limit.

    The tightest ``memory.max`` (v2) or ``memory.limit_in_bytes`` (v1) on the way from the
    process's cgroup to the root, less that cgroup's usage; inactive page cache, which the
    kernel drops before it counts against the limit, is not counted as used.
    """
    best: int | None = None
    for line in (_read(proc) or "").splitlines():
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        _, controllers, path = parts
        if controllers == "":  # v2: one unified hierarchy
            base, limit_name, usage_name, cache = root, "memory.max", "memory.current", "inactive_file"
        elif "memory" in controllers.split(","):  # v1: the memory controller's hierarchy
            base = os.path.join(root, "memory")
            limit_name, usage_name = "memory.limit_in_bytes", "memory.usage_in_bytes"
            cache = "total_inactive_file"
        else:
            continue
        path = path.strip().strip("/")
        steps = path.split("/") if path else []
        for depth in range(len(steps), -1, -1):
            folder = os.path.join(base, *steps[:depth])
            limit_text = (_read(os.path.join(folder, limit_name)) or "").strip()
            if not limit_text.isdigit() or int(limit_text) >= 1 << 60:  # "max" or v1's "no limit"
                continue
            usage_text = (_read(os.path.join(folder, usage_name)) or "0").strip()
            used = int(usage_text) if usage_text.isdigit() else 0
            stat = _fields(_read(os.path.join(folder, "memory.stat")))
            used -= min(stat.get(cache, 0), used)
            room = max(int(limit_text) - used, 0)
            best = room if best is None else min(best, room)
    return best


_SOFT = ("MemAvailable", "physical memory", "")


@dataclass(frozen=True)
class Budget:
    """What the process may still use, in bytes (None: no limit found), and where it comes from."""

    resident: int | None
    resident_from: str
    address: int | None
    address_from: str

    @property
    def known(self) -> bool:
        """Whether any budget was found (on Linux, free memory always is)."""
        return self.resident is not None or self.address is not None

    @property
    def hard(self) -> bool:
        """Whether a limit binds (a cgroup's, an rlimit, the user's), not only free memory.

        Past free memory the system pages or reclaims; past a limit the process ends.
        """
        return self.address is not None or self.resident_from not in _SOFT

    def describe(self) -> str:
        """``"1.3 GiB of address space (RLIMIT_AS), 20.1 GiB resident (MemAvailable)"``."""
        parts = []
        if self.address is not None:
            parts.append(f"{_gib(self.address)} of address space ({self.address_from})")
        if self.resident is not None:
            parts.append(f"{_gib(self.resident)} of memory ({self.resident_from})")
        return ", ".join(parts) or "no limit found"


def available() -> Budget:
    """The memory this process may still use: resident and address-space budgets (see module)."""
    resident: list[tuple[int, str]] = []
    address: list[tuple[int, str]] = []
    status = _fields(_read("/proc/self/status"), 1024, ("VmRSS", "VmSize", "VmData"))
    rss = status.get("VmRSS", 0)
    given = user_limit()
    if given is not None:
        resident.append((max(given - rss, 0), LIMIT_VARIABLE))
    room = cgroup_headroom()
    if room is not None:
        resident.append((room, "cgroup memory limit"))
    meminfo = _fields(_read("/proc/meminfo"), 1024, ("MemAvailable",))
    if "MemAvailable" in meminfo:
        resident.append((meminfo["MemAvailable"], "MemAvailable"))
    else:
        try:
            physical = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
            resident.append((max(physical - rss, 0), "physical memory"))
        except (ValueError, OSError, AttributeError):  # pragma: no cover - no sysconf
            pass
    if "VmSize" in status:  # the address-space limits need the current size (Linux)
        limit = soft_limit(resource.RLIMIT_AS)
        if limit is not None:
            address.append((max(limit - status["VmSize"], 0), "RLIMIT_AS, ulimit -v"))
        limit = soft_limit(resource.RLIMIT_DATA)
        if limit is not None and "VmData" in status:
            address.append((max(limit - status["VmData"], 0), "RLIMIT_DATA, ulimit -d"))
    r = min(resident) if resident else (None, "")
    a = min(address) if address else (None, "")
    return Budget(r[0], r[1], a[0], a[1])


#: How long a reading of :func:`available` answers for a small evaluation in memory (seconds).
RECENT = 1.0
_recent: list[tuple[float, tuple, Budget]] = []  # (time.monotonic(), key, budget): the last one
_recent_lock = threading.Lock()


def recent_budget() -> tuple[Budget, bool]:
    """A reading of :func:`available` at most :data:`RECENT` seconds old, and whether it is new.

    Reading the budget (``/proc``, the cgroup hierarchy's files) takes ~0.3 ms, a tenth of a
    small evaluation: a loop of small calls (a drop-in query by query, a training loop's
    validation) reads it once a second. The limits a caller sets are honoured at once: a
    reading is reused only under the same ``RANKFRAME_MEMORY_LIMIT``, ``RLIMIT_AS`` and
    ``RLIMIT_DATA`` (and the same :func:`available`, which tests replace). Only
    :func:`partitions_for`'s bound for frames in memory reads it, and an old reading only
    answers when that bound takes a quarter of what it allows (else a new reading decides).
    """
    key = (
        os.environ.get(LIMIT_VARIABLE), soft_limit(resource.RLIMIT_AS), soft_limit(resource.RLIMIT_DATA),
        available,
    )
    now = time.monotonic()
    with _recent_lock:
        if _recent and _recent[0][1] == key and now - _recent[0][0] < RECENT:
            return _recent[0][2], False
    budget = available()
    with _recent_lock:
        _recent[:] = [(now, key, budget)]
    return budget, True


def _gib(n: float) -> str:
    return f"{n / (1 << 30):.1f} GiB" if n >= 1 << 30 else f"{n / MiB:.0f} MiB"


# --- what a plan needs ------------------------------------------------------------------------


@dataclass(frozen=True)
class Need:
    """The estimated working set of one plan over ``rows`` input rows of ``width`` bytes in all.

    ``scale`` weighs the measures (pairwise measures keep more per row). A query partition of
    ``n`` holds about ``1/n`` of the rows, and every query whole: the one holding the largest
    query (``largest`` input rows, its run rows and judgments; 0 when not looked at) holds at
    least that query and its share of the rest. A query's rows are also held whole by its
    group, which the streaming engine cannot split: the largest query's share counts twice
    (measured: one query of 2.4M of 3.6M rows took 1.4 times the plan's estimate without it).
    """

    rows: int
    width: int
    scale: float = 1.0
    largest: int = 0
    #: The largest query's id (for messages).
    largest_id: object = None

    @property
    def _var(self) -> float:
        return (2 * self.width + 16 * self.rows) * self.scale

    @property
    def _floor(self) -> float:
        """The largest query's share of the inputs."""
        return min(self.largest / self.rows, 1.0) if self.rows else 0.0

    def share(self, n: int | None = 1) -> float:
        """The share of the inputs in the largest of ``n`` query partitions (None: as many as queries)."""
        return self._floor + (1.0 - self._floor) / n if n else self._floor

    def resident(self, n: int | None = 1) -> int:
        """Resident bytes of the largest of ``n`` query partitions."""
        # each part scans every input: a floor that grows with them (about 5% of one plan)
        return int(_FIXED + 0.05 * self._var + self._var * (self.share(n) + self._floor))

    def address(self, n: int | None = 1) -> int:
        """Address space of the largest of ``n`` query partitions."""
        # a fixed part and a share of one plan, by the allocator (ADDRESS_FLOOR), and the
        # part's rows; allowed 15% more
        fixed, share = ADDRESS_FLOOR[returns_address_space()]
        part = self._var * (self.share(n) + self._floor)
        return int(1.15 * (fixed + share * self._var + part))

    def fits(self, budget: Budget, n: int | None = 1, share: float = SHARE) -> bool:
        """Whether the largest of ``n`` partitions fits in ``share`` of both budgets."""
        return (budget.resident is None or self.resident(n) <= share * budget.resident) and (
            budget.address is None or self.address(n) <= share * budget.address
        )

    def describe(self, budget: Budget, n: int | None = 1) -> str:
        """The need that binds, in the budget's terms: ``"2.1 GiB of address space"``."""
        if budget.address is not None and self.address(n) > SHARE * budget.address:
            return f"{_gib(self.address(n))} of address space"
        return f"{_gib(self.resident(n))} of memory"


def _frame_need(lf: pl.LazyFrame) -> tuple[int, int]:
    """``(rows, bytes)`` of a prepared input: its row count and an estimate of its size."""
    import polars as pl

    schema = lf.collect_schema()
    strings = [name for name, dtype in schema.items() if dtype == pl.String]
    # strings of up to 12 bytes live in their 16-byte view
    lengths = {name: pl.col(name).str.len_bytes().cast(pl.Float64) for name in strings}
    longer = [pl.when(n > 12).then(n).otherwise(0.0).mean().alias(name) for name, n in lengths.items()]
    # one after the other: collect_all runs both at once, and near an address-space limit its
    # second query's allocations were measured to abort where two in turn fit
    rows = int(lf.select(pl.len()).collect().item())
    sample = lf.head(SAMPLE).select(longer).collect()
    per_row = 8.0 * (len(schema) - len(strings))
    per_row += sum(16.0 + (sample.item(0, name) or 0.0) for name in strings) if sample.height else 0.0
    return rows, int(rows * per_row)


def estimate(prep: Prepared, runs: list[pl.LazyFrame] | None = None) -> Need | None:
    """The working set of evaluating ``prep`` in one plan; None when the inputs do not say.

    ``runs``: runs evaluated apart (one plan each against the same judgments): the largest
    counts, not their sum. An input that cannot be counted (a CSV file that does not parse)
    gives None: the evaluation's own checks then report it, with its line.
    """
    import polars as pl

    try:
        return _estimate(prep, runs)
    except (pl.exceptions.PolarsError, OSError):
        return None


def _read_columns(lf: pl.LazyFrame, wanted: list[str]) -> pl.LazyFrame:
    """``lf`` with only the columns the plan reads (those of ``wanted`` it has)."""
    names = lf.collect_schema().names()
    return lf.select([c for c in names if c in wanted])


def _estimate(prep: Prepared, runs: list[pl.LazyFrame] | None) -> Need:
    from rankframe._engine.options import REL, D, Q, S

    qrels_cols = [*prep.keys, Q, D, REL]
    run_cols = [*prep.keys, Q, D, S, "_order"]
    if prep.opts.target is not None:
        run_cols.append(prep.opts.target)
    frames = [_read_columns(prep.qrels, qrels_cols)] if prep.qrels_given else []
    if prep.pairs is not None:
        frames.append(prep.pairs)
    rows = width = 0
    for lf in frames:
        r, w = _frame_need(lf)
        rows, width = rows + r, width + w
    runs = [_read_columns(lf, run_cols) for lf in (runs or [prep.run])]
    sides = [_frame_need(lf) for lf in runs]
    r, w = max(sides, key=lambda rw: rw[1])
    # many measures keep more columns a row (up to 1.4x for trec_eval's whole catalogue);
    # measures comparing rankings keep sorted copies (about 1.8x)
    scale = min(1.5, 1.0 + 0.01 * len(prep.measures))
    if any(m.COMPARES_RANKINGS or m.PAIRWISE_TARGET for m in prep.measures):
        scale *= 2.0
    return Need(rows + r, width + w, scale)


def largest_query(prep: Prepared) -> tuple[object, int]:
    """The query with the most input rows (run rows of every run and judgments) and that count.

    A scan of the query ids of the inputs: a hash partition holds each query whole, with the
    rows of every run stacked in ``prep.run``.
    """
    import polars as pl

    from rankframe._engine.options import Q

    run = prep.run.group_by(Q).agg(pl.len().alias("_run"))
    judged = prep.qrels.group_by(Q).agg(pl.len().alias("_judged"))
    rows = pl.col("_run").fill_null(0) + pl.col("_judged").fill_null(0)
    top = (
        run.join(judged, on=Q, how="full", coalesce=True, nulls_equal=True)
        .select(Q, rows.alias("_rows"))
        .top_k(1, by="_rows")
        .collect()
    )
    return (top.item(0, Q), int(top.item(0, "_rows"))) if top.height else (None, 0)


def choose_partitions(need: Need, budget: Budget) -> int:
    """The fewest query partitions (1 = one plan) whose largest part fits the budget.

    Raises :class:`~rankframe.InputError` when even :data:`MAX_TRIED` do not fit a limit,
    naming the largest query when it alone does not. When only the machine's free
    memory is short, returns :data:`MAX_PARTITIONS`, or fewer when the largest query makes
    more of them useless.
    """
    if need.fits(budget):
        return 1
    # under a limit, more partitions before refusing: slower (each re-scans the inputs) but
    # each holds less of the rows
    most = MAX_TRIED if budget.hard else MAX_PARTITIONS
    n = 2
    while n <= most:
        if need.fits(budget, n):
            return n
        n *= 2
    if not budget.hard:  # only free memory is short: the system may page or reclaim
        n = 2  # partitions beyond the point where the largest query dominates gain nothing
        while n < MAX_PARTITIONS and need.share(n) > 1.25 * need.share(None):
            n *= 2
        return n
    from rankframe._errors import InputError

    if need.largest and replace(need, largest=0).fits(budget, most):
        # not the inputs' size: the query that every partition count leaves whole
        msg = (
            f"Not enough memory to evaluate query {need.largest_id!r}: it holds {need.largest:,} "
            f"of the {need.rows:,} input rows (run rows and judgments), and query partitions hold "
            f"each query whole: the partition holding it needs about {need.describe(budget, None)}"
            f", however many there are; this process may still use {budget.describe()}. Nothing "
            "was started. Ways out: raise the limit; engine='duckdb' (--engine duckdb), which "
            "spills to disk; or evaluate that query apart where more memory is available."
        )
        raise InputError(msg)
    msg = (
        f"Not enough memory to evaluate {need.rows:,} input rows: one plan needs about "
        f"{need.describe(budget)} and even {most:,} query partitions need "
        f"{need.describe(budget, most)} each; this process may still use "
        f"{budget.describe()}. Nothing was started. Ways out: raise the limit; evaluate a run "
        "written as Parquet files partitioned by query with partitions='files' (--partitions "
        "files), which holds one file at a time; engine='duckdb' (--engine duckdb), which "
        "spills to disk; or set partitions=N yourself to try a number of hash partitions."
    )
    raise InputError(msg)


def partitions_for(
    prep: Prepared, runs: list[pl.LazyFrame] | None = None, frames: list[pl.DataFrame] | None = None
) -> tuple[int, str | None]:
    """``partitions="auto"``: the number of query partitions, and the note that explains it.

    The note (None for one plan) is printed under ``progress``. ``frames``: every input, when
    all are frames in memory: a bound on the estimate from their sizes (no query) decides
    first, one plan when it fits (a small evaluation then pays no row count or sample).
    """
    if frames is not None:
        # each row's bytes at most twice its buffers, a number column at most 16 bytes, every
        # measure's weight at its highest: never under the estimate
        rows = sum(f.height for f in frames)
        width = sum(2 * f.estimated_size() + 16 * f.height * f.width for f in frames)
        bound = Need(rows, width, 3.0, largest=rows)
        budget, new = recent_budget()
        if not new and budget.known and bound.fits(budget, share=SHARE / 4):
            return 1, None  # (a reading up to a second old: a quarter of what it allows)
        budget = budget if new else available()
        if budget.known and bound.fits(budget):
            return 1, None
    else:
        budget = available()
    need = estimate(prep, runs) if budget.known else None
    if need is None or replace(need, largest=need.rows).fits(budget):
        return 1, None  # one plan fits, even were all the rows one query
    if not budget.hard and need.fits(budget):
        return 1, None  # only free memory is short, were there a large query: the system pages
    choose_partitions(need, budget)  # refuses (nothing scanned) when no count fits
    # the largest query, held whole by its group and its partition (a scan of the query ids)
    query, rows = largest_query(prep)
    need = replace(need, largest=min(rows, need.rows), largest_id=query)
    n = choose_partitions(need, budget)
    if n == 1:
        return 1, None
    note = (
        f"rankframe: {n} query partitions: one plan over {need.rows:,} input rows needs about "
        f"{need.describe(budget)}; this process may use {budget.describe()}"
    )
    if need.share(n) > 1.5 / n:  # the largest query, not the share of the rows, sets n
        note += f"; the largest query, {query!r}, holds {rows:,} of the rows"
    return n, note


def unlikely_to_fit(prep: Prepared, n: int) -> str | None:
    """With ``partitions=n`` given: a warning when even the plain estimate exceeds the budget.

    Under a limit, when one plan does not fit, the part holding the largest query counts.
    """
    budget = available()
    need = estimate(prep) if budget.known else None
    # the estimate over-states by 10-60%: warn only past a quarter more than the budget
    if need is None or replace(need, largest=need.rows).fits(budget, n, share=1.25):
        return None  # fits, even were all the rows one query
    if budget.hard and need.fits(budget, n, share=1.25):  # fits, but for a large query?
        query, rows = largest_query(prep)
        need = replace(need, largest=min(rows, need.rows), largest_id=query)
    if need.fits(budget, n, share=1.25):
        return None
    part = "one plan needs" if n == 1 else "each part needs"
    if need.largest and need.share(n) > 1.5 / n:
        holding = "one plan, holding" if n == 1 else "the part holding"
        part = f"{holding} query {need.largest_id!r} ({need.largest:,} input rows), needs"
    fewest = None
    with contextlib.suppress(ValueError):  # InputError: no count fits
        fewest = choose_partitions(need, budget)
    advice = (
        f" partitions={fewest} (or 'auto') should fit." if fewest
        else f" Not even {MAX_TRIED:,} partitions would: partitions='files' or engine='duckdb' may."
    )
    return (
        f"partitions={n} may not fit in memory: {part} about {need.describe(budget, n)} "
        f"and this process may use {budget.describe()}; the evaluation may be ended by the "
        f"allocator.{advice}"
    )


__all__ = [
    "available", "choose_partitions", "estimate", "largest_query",
    "partitions_for", "user_limit",
]
