"""Refusals before an allocation fails: inputs parsed whole, and ``MemoryError``.

The memory plan (:mod:`rankframe._engine.memory`) sizes the evaluation of scanned inputs. Two
things happen outside it:

- **Text inputs** (TREC qrels and runs) are parsed whole, before the plan, by Polars, which
  aborts the process on an allocation it cannot make. The reader asks first
  (:func:`check_text`, which :mod:`rankframe._engine.evaluate` installs as
  :data:`rankframe._io.trec_text.before_parse`: the inputs layer cannot import the engine), and
  under a limit a file whose parsing cannot fit is an :class:`~rankframe.InputError` naming it.
- **MemoryError**: an allocation that Python itself cannot make (a file's bytes, objects
  converted) raises it; in an API entry point (:func:`converts_memory_error`) it becomes an
  :class:`~rankframe.InputError` with the ways out, which the command line prints as one line.

Like :mod:`rankframe._engine.memory`, this module imports only the standard library at the top.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, ParamSpec, TypeVar

from rankframe._engine.memory import _SOFT, LIMIT_VARIABLE, SHARE, MiB, _gib, available

if TYPE_CHECKING:
    from collections.abc import Callable

P = ParamSpec("P")
R = TypeVar("R")


# --- an allocation refused ----------------------------------------------------------------


def memory_error() -> Exception:
    """The :class:`~rankframe.InputError` that a ``MemoryError`` becomes: the budget and the ways out."""
    from rankframe._errors import InputError

    try:
        left = f"; this process may still use {available().describe()}"
    except Exception:  # noqa: BLE001 - the message must not fail on a bad RANKFRAME_MEMORY_LIMIT
        left = ""
    msg = (
        f"Not enough memory: an allocation was refused (MemoryError){left}. Nothing was "
        "written. Ways out: raise the limit (ulimit -v, the container's memory, "
        f"{LIMIT_VARIABLE}); give large inputs as Parquet rather than text or in-memory objects, "
        "which evaluate scans in query partitions (partitions='auto'); or engine='duckdb' "
        "(--engine duckdb), which spills to disk."
    )
    return InputError(msg)


def converts_memory_error(func: Callable[P, R]) -> Callable[P, R]:
    """Decorate an API entry point: a ``MemoryError`` inside it becomes :func:`memory_error`'s.

    Python raises it where an allocation of its own is refused (reading a file's bytes,
    converting objects); an allocation refused to Polars aborts the process instead, which the
    memory plan exists to avoid.
    """

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return func(*args, **kwargs)
        except MemoryError:
            raise memory_error() from None

    return wrapper


# --- inputs parsed whole: text files ---------------------------------------------------------

#: Parsing TREC text takes, beyond its bytes, a floor, so much per byte and per line: a regular
#: file (one separator, no comments) through Polars' CSV reader, any other line by line.
#: Fitted to the peaks measured (VmPeak) at 0.4M-10M lines of 18-45 bytes, 7-435 MB, each within
#: 10% (line by line: 10% more, its peaks vary more); allowed 15% more, as the plan's estimate.
_TEXT_COST = {True: (60 * MiB, 0.5, 125), False: (88 * MiB, 6.2, 76)}
_TEXT_SAMPLE = 1 << 20


def text_need(data: bytes, *, regular: bool) -> tuple[int, int]:
    """``(lines, bytes)``: a text input's lines (estimated from its first MiB), what parsing takes.

    The bytes are those allocated beyond ``data`` itself, resident and address space alike, by
    the reader's path for ``regular`` files or the other.
    """
    sample = data[:_TEXT_SAMPLE]
    lines = max(round(sample.count(b"\n") * len(data) / max(len(sample), 1)), 1)
    fixed, per_byte, per_line = _TEXT_COST[regular]
    return lines, int(1.15 * (fixed + per_byte * len(data) + per_line * lines))


def check_text(data: bytes, path: str, role: str, regular: bool) -> None:
    """Refuse a text input whose parsing cannot fit the memory this process may still use.

    Called by the text reader (:data:`rankframe._io.trec_text.before_parse`) with the file's
    bytes, already read (and decompressed), before each of its two ways of parsing them
    (``regular``: Polars' CSV reader; else line by line, which takes more): Python reports an
    allocation it cannot make as a ``MemoryError``; Polars, which parses, aborts the process.
    Only a limit refuses (a cgroup's, ``ulimit``'s, ``RANKFRAME_MEMORY_LIMIT``); free memory
    that is short is left to the system.

    Raises
    ------
    InputError
        Naming the file, what parsing it takes, what is left and the ways out.
    """
    budget = available()
    if not budget.hard:
        return
    lines, need = text_need(data, regular=regular)
    limits = [budget.address, None if budget.resident_from in _SOFT else budget.resident]
    if all(limit is None or need <= SHARE * limit for limit in limits):
        return
    from rankframe._errors import InputError

    msg = (
        f"Not enough memory to read the {role} file {path}: parsing its {_gib(len(data))} of "
        f"text (about {lines:,} lines) takes up to {_gib(need)} more, and this process may "
        f"still use {budget.describe()}. Nothing was evaluated. Ways out: raise the limit; or "
        "give the input as Parquet, which evaluate scans in query partitions within the limit: "
        "convert the file once, where memory allows (rf.read_run(path).sink_parquet(...)) or "
        "by Polars' streaming CSV reader (the guide 'Larger than memory' shows how)."
    )
    raise InputError(msg)


__all__ = ["check_text", "converts_memory_error", "memory_error", "text_need"]
