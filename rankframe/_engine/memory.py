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
  a resident limit of the user's own where none is detected (a shared notebook server).
- **What a plan needs** (:func:`estimate`): from the row counts of the prepared inputs (Parquet
  metadata; frames already in memory) and their row width (8 bytes a number, 16 a string view
  plus the bytes of strings longer than 12, from a sample), one plan's share
  ``V = 2 * bytes + 16 * rows``: a part of ``n`` partitions needs ``64 MiB + 0.05 V + V / n``
  resident and ``1.15 (96 MiB + 0.1 V + V / n)`` of address space (each part scans every input,
  hence the floor). Calibrated on the benchmark data (1M-10M rows, string and integer ids, 1-128
  partitions), where it over-states the measured peak by 10-60%; many measures count up to 1.5
  times, measures comparing rankings twice.
- **The decision** (:func:`choose_partitions`): one plan when it fits in 90% of both budgets,
  else the fewest hash partitions (2, 4, ... 256) whose part fits; when none fits a limit,
  :class:`~rankframe.InputError` before anything runs, naming the ways out (when only free
  memory is short, 256 partitions: the system may page or reclaim).

Under an address-space limit glibc's malloc is a hazard of its own: each thread that allocates
gets an arena that reserves 64 MiB of address space (8 per core), so a limit of a few GiB is
spent on reservations before the data arrives. :func:`cap_malloc_arenas` (called when
rankframe is imported, and only when such a limit is set) caps them at 2 (``mallopt
M_ARENA_MAX``): Polars allocates through its own allocator, so nothing is slower.

This module imports only the standard library at the top: ``import rankframe`` calls
:func:`cap_malloc_arenas` before Polars starts its threads.
"""

from __future__ import annotations

import contextlib
import os
import re
import resource
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import polars as pl

    from rankframe._engine.options import Prepared

#: The share of a budget a plan may take (the rest: the caller's objects, the output frames).
SHARE = 0.9
#: The most hash partitions ``partitions="auto"`` uses (each re-scans the inputs).
MAX_PARTITIONS = 256
#: Rows sampled for the width of string columns.
SAMPLE = 4096
MiB = 1 << 20
_FIXED = 64 * MiB  # resident overhead of one plan (scan buffers, thread-local state)
_FIXED_ADDRESS = 96 * MiB  # address space of one plan (thread stacks, allocator arenas)
_M_ARENA_MAX = -8  # glibc's mallopt parameter


def _limit(which: int) -> int | None:
    try:
        soft, _ = resource.getrlimit(which)
    except (ValueError, OSError):  # pragma: no cover - unsupported on this platform
        return None
    return None if soft == resource.RLIM_INFINITY or soft < 0 else soft


def address_limited() -> bool:
    """Whether an address-space limit is set (``RLIMIT_AS``, ``RLIMIT_DATA``).

    What the process reserves then counts, whether or not it is ever touched.
    """
    return _limit(resource.RLIMIT_AS) is not None or _limit(resource.RLIMIT_DATA) is not None


def cap_malloc_arenas() -> bool:
    """Cap glibc's malloc arenas at 2 when an address-space limit is set; return whether done.

    Each arena reserves 64 MiB of address space, which ``RLIMIT_AS`` and ``RLIMIT_DATA`` count
    although nothing is resident. A no-op without such a limit, on other C libraries (musl's
    ``mallopt`` ignores the parameter) and on other systems.
    """
    if not sys.platform.startswith("linux"):
        return False
    if not address_limited():
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None)
        return bool(libc.mallopt(_M_ARENA_MAX, 2))
    except (OSError, AttributeError):  # pragma: no cover - no mallopt (not glibc)
        return False


# --- what is available ---------------------------------------------------------------------

_UNITS = {"": 1, "b": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}


def parse_size(text: str) -> int:
    """Bytes from ``"4GiB"``, ``"512M"``, ``"1.5 g"``, ``"2000000000"`` (binary units).

    Examples
    --------
    >>> parse_size("4GiB"), parse_size("512m"), parse_size("1024")
    (4294967296, 536870912, 1024)
    """
    match = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([kmgt]?)(?:i?b)?\s*", text.lower())
    if match is None:
        msg = (
            f"RANKFRAME_MEMORY_LIMIT={text!r} is not a size: write bytes or a number with a unit, "
            "e.g. 4GiB, 512MiB, 2G."
        )
        raise ValueError(msg)
    return int(float(match.group(1)) * _UNITS[match.group(2)])


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="ascii", errors="replace") as f:
            return f.read()
    except OSError:
        return None


def _fields(text: str | None, unit: int = 1) -> dict[str, int]:
    """``name value`` (``memory.stat``) or ``Name:  value kB`` (``/proc``) lines as a dict."""
    out: dict[str, int] = {}
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
    status = _fields(_read("/proc/self/status"), 1024)
    rss = status.get("VmRSS", 0)
    given = os.environ.get("RANKFRAME_MEMORY_LIMIT", "").strip()
    if given and given.lower() not in ("none", "0"):
        resident.append((max(parse_size(given) - rss, 0), "RANKFRAME_MEMORY_LIMIT"))
    room = cgroup_headroom()
    if room is not None:
        resident.append((room, "cgroup memory limit"))
    meminfo = _fields(_read("/proc/meminfo"), 1024)
    if "MemAvailable" in meminfo:
        resident.append((meminfo["MemAvailable"], "MemAvailable"))
    else:
        try:
            physical = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
            resident.append((max(physical - rss, 0), "physical memory"))
        except (ValueError, OSError, AttributeError):  # pragma: no cover - no sysconf
            pass
    if "VmSize" in status:  # the address-space limits need the current size (Linux)
        limit = _limit(resource.RLIMIT_AS)
        if limit is not None:
            address.append((max(limit - status["VmSize"], 0), "RLIMIT_AS, ulimit -v"))
        limit = _limit(resource.RLIMIT_DATA)
        if limit is not None and "VmData" in status:
            address.append((max(limit - status["VmData"], 0), "RLIMIT_DATA, ulimit -d"))
    r = min(resident) if resident else (None, "")
    a = min(address) if address else (None, "")
    return Budget(r[0], r[1], a[0], a[1])


def _gib(n: float) -> str:
    return f"{n / (1 << 30):.1f} GiB" if n >= 1 << 30 else f"{n / MiB:.0f} MiB"


# --- what a plan needs ------------------------------------------------------------------------


@dataclass(frozen=True)
class Need:
    """The estimated working set of one plan over ``rows`` input rows of ``width`` bytes in all.

    ``scale`` weighs the measures (pairwise measures keep more per row). A query partition of
    ``n`` holds about ``1/n`` of the rows.
    """

    rows: int
    width: int
    scale: float = 1.0

    @property
    def _var(self) -> float:
        return (2 * self.width + 16 * self.rows) * self.scale

    def resident(self, n: int = 1) -> int:
        """Resident bytes of one of ``n`` query partitions."""
        # each part scans every input: a floor that grows with them (about 5% of one plan)
        return int(_FIXED + 0.05 * self._var + self._var / n)

    def address(self, n: int = 1) -> int:
        """Address space of one of ``n`` query partitions."""
        # measured: 80 MiB + 7% of one plan + its part; allowed 15% more
        return int(1.15 * (_FIXED_ADDRESS + 0.1 * self._var + self._var / n))

    def fits(self, budget: Budget, n: int = 1, share: float = SHARE) -> bool:
        """Whether one of ``n`` partitions fits in ``share`` of both budgets."""
        return (budget.resident is None or self.resident(n) <= share * budget.resident) and (
            budget.address is None or self.address(n) <= share * budget.address
        )

    def describe(self, budget: Budget, n: int = 1) -> str:
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


def _estimate(prep: Prepared, runs: list[pl.LazyFrame] | None) -> Need:
    frames = [prep.qrels] if prep.qrels_given else []
    if prep.pairs is not None:
        frames.append(prep.pairs)
    rows = width = 0
    for lf in frames:
        r, w = _frame_need(lf)
        rows, width = rows + r, width + w
    sides = [_frame_need(lf) for lf in runs] if runs else [_frame_need(prep.run)]
    r, w = max(sides, key=lambda rw: rw[1])
    # many measures keep more columns a row (up to 1.4x for trec_eval's whole catalogue);
    # measures comparing rankings keep sorted copies (about 1.8x)
    scale = min(1.5, 1.0 + 0.01 * len(prep.measures))
    if any(m.COMPARES_RANKINGS or m.PAIRWISE_TARGET for m in prep.measures):
        scale *= 2.0
    return Need(rows + r, width + w, scale)


def choose_partitions(need: Need, budget: Budget) -> int:
    """The fewest query partitions (1 = one plan) whose part fits the budget.

    Raises :class:`~rankframe.InputError` when even :data:`MAX_PARTITIONS` do not fit a
    limit; when only the machine's free memory is short, returns :data:`MAX_PARTITIONS`.
    """
    if need.fits(budget):
        return 1
    n = 2
    while n <= MAX_PARTITIONS:
        if need.fits(budget, n):
            return n
        n *= 2
    if not budget.hard:  # only free memory is short: the most partitions, and the system pages
        return MAX_PARTITIONS
    from rankframe._errors import InputError

    msg = (
        f"Not enough memory to evaluate {need.rows:,} input rows: one plan needs about "
        f"{need.describe(budget)} and even {MAX_PARTITIONS} query partitions need "
        f"{need.describe(budget, MAX_PARTITIONS)} each; this process may still use "
        f"{budget.describe()}. Nothing was started. Ways out: raise the limit; evaluate a run "
        "written as Parquet files partitioned by query with partitions='files' (--partitions "
        "files), which holds one file at a time; engine='duckdb' (--engine duckdb), which "
        "spills to disk; or set partitions=N yourself to try a number of hash partitions."
    )
    raise InputError(msg)


def partitions_for(prep: Prepared, runs: list[pl.LazyFrame] | None = None) -> tuple[int, str | None]:
    """``partitions="auto"``: the number of query partitions, and the note that explains it.

    The note (None for one plan) is printed under ``progress``.
    """
    budget = available()
    need = estimate(prep, runs) if budget.known else None
    if need is None:
        return 1, None
    n = choose_partitions(need, budget)
    if n == 1:
        return 1, None
    note = (
        f"rankframe: {n} query partitions: one plan over {need.rows:,} input rows needs about "
        f"{need.describe(budget)}; this process may use {budget.describe()}"
    )
    return n, note


def unlikely_to_fit(prep: Prepared, n: int) -> str | None:
    """With ``partitions=n`` given: a warning when even the plain estimate exceeds the budget."""
    budget = available()
    need = estimate(prep) if budget.known else None
    # the estimate over-states by 10-60%: warn only past a quarter more than the budget
    if need is None or need.fits(budget, n, share=1.25):
        return None
    fewest = None
    with contextlib.suppress(ValueError):  # InputError: not even 256 partitions fit
        fewest = choose_partitions(need, budget)
    advice = (
        f" partitions={fewest} (or 'auto') should fit." if fewest
        else " Not even 256 partitions would: partitions='files' or engine='duckdb' may."
    )
    return (
        f"partitions={n} may not fit in memory: each part needs about {need.describe(budget, n)} "
        f"and this process may use {budget.describe()}; the evaluation may be ended by the "
        f"allocator.{advice}"
    )


__all__ = ["available", "cap_malloc_arenas", "choose_partitions", "estimate", "partitions_for"]
