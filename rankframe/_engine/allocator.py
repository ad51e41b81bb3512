"""The allocators under an address-space limit: what ``import rankframe`` sets before Polars loads.

Under ``ulimit -v`` (``RLIMIT_AS``), ``RLIMIT_DATA`` or the kernel's strict overcommit, what the
process *reserves* counts, touched or not, and two allocators reserve freely:

- **glibc's malloc** gives each thread that allocates an arena that reserves 64 MiB of address
  space (8 per core): a limit of a few GiB is spent on reservations before the data arrives.
  :func:`cap_malloc_arenas` caps them at 2 (``mallopt M_ARENA_MAX``): Polars allocates through
  its own allocator, so nothing is slower.
- **jemalloc**, Polars' allocator on Linux, keeps the address space it has mapped when it gives
  freed memory back (``opt.retain``): :func:`return_address_space` turns that off.

Both are called when rankframe is imported (:func:`configure`), and act only under such a limit.
This module imports only the standard library: it runs before Polars starts its threads.
"""

from __future__ import annotations

import os
import re
import resource
import sys

_M_ARENA_MAX = -8  # glibc's mallopt parameter


def soft_limit(which: int) -> int | None:
    """The soft resource limit ``which`` (``resource.RLIMIT_AS``...) in bytes; None when unlimited.

    Examples
    --------
    >>> import resource
    >>> soft_limit(resource.RLIMIT_AS) is None or soft_limit(resource.RLIMIT_AS) > 0
    True
    """
    try:
        soft, _ = resource.getrlimit(which)
    except (ValueError, OSError):  # pragma: no cover - unsupported on this platform
        return None
    return None if soft == resource.RLIM_INFINITY or soft < 0 else soft


def address_limited() -> bool:
    """Whether an address-space limit is set (``RLIMIT_AS``, ``RLIMIT_DATA``).

    What the process reserves then counts, whether or not it is ever touched.
    """
    return soft_limit(resource.RLIMIT_AS) is not None or soft_limit(resource.RLIMIT_DATA) is not None


def reservations_refused() -> bool:
    """Whether address space reserved and never touched may be refused.

    Under an address-space limit (:func:`address_limited`), or the kernel's strict overcommit
    accounting (``vm.overcommit_memory = 2``), which counts every reservation.
    """
    if address_limited():
        return True
    try:
        with open("/proc/sys/vm/overcommit_memory", encoding="ascii") as f:
            return f.read().strip() == "2"
    except OSError:
        return False


#: The variable that configures Polars' allocator (jemalloc, prefixed ``_rjem_``): Polars adds
#: its own settings in front of what it holds when it is imported, and jemalloc reads it once.
JEMALLOC_CONF = "_RJEM_MALLOC_CONF"
#: Whether Polars' allocator returns freed address space (``retain:false``): see
#: :func:`return_address_space`, which sets it when rankframe is imported.
_returns_address_space = False


def _retain_off(conf: str) -> bool:
    """Whether a jemalloc configuration string ends with ``retain`` off (the last one counts)."""
    found = re.findall(r"(?:^|,)\s*retain:(\w+)", conf)
    return bool(found) and found[-1] == "false"


def return_address_space() -> bool:
    """Make Polars' allocator unmap freed memory under an address-space limit; return whether it does.

    jemalloc (Polars' allocator on Linux) keeps the address space it has mapped once freed
    memory is purged (``opt.retain``, on by default): only resident memory goes back, and its
    mappings grow geometrically, so the process's size (``VmSize``, what ``ulimit -v`` counts)
    only rises. Measured on the 5M-row test evaluation (nDCG@10 and AP, two threads): one plan
    1203 -> 839 MiB ``VmPeak``; in 4 hash partitions 676 -> 487 MiB, and where ``VmSize`` had
    grown part after part (556, 610, 632, 676 MiB after each) it stays (478, 484, 487, 487):
    the growth that made a late part abort (``benchmarks/RESULTS.md``, 2026-11-28). Sets
    ``retain:false`` in :data:`JEMALLOC_CONF` when such a limit (or strict overcommit) is set and
    Polars is not yet imported (jemalloc reads it once, when Polars loads); a ``retain`` the
    user set wins. Without a limit, nothing changes: reserved address space costs nothing there.
    """
    global _returns_address_space  # noqa: PLW0603 - the allocator's state, set once at import
    conf = os.environ.get(JEMALLOC_CONF, "")
    if "polars" not in sys.modules and reservations_refused() and "retain:" not in conf:
        os.environ[JEMALLOC_CONF] = f"{conf},retain:false" if conf else "retain:false"
        conf = os.environ[JEMALLOC_CONF]
    _returns_address_space = sys.platform.startswith("linux") and _retain_off(conf)
    return _returns_address_space


def returns_address_space() -> bool:
    """Whether Polars' allocator unmaps what it frees (:func:`return_address_space` did it)."""
    return _returns_address_space


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


def configure() -> None:
    """Both allocators set for the limits found (called when rankframe is imported)."""
    cap_malloc_arenas()
    return_address_space()


__all__ = [
    "address_limited", "cap_malloc_arenas", "configure", "reservations_refused",
    "return_address_space", "returns_address_space", "soft_limit",
]
