"""Atomic outputs: a file rankframe writes appears complete at its destination, or not at all.

Every writer writes to a temporary name beside the destination (same folder, so the same file
system) and renames it into place only when the file is complete (``os.replace``: atomic on
POSIX and Windows). A run that fails or is interrupted leaves the destination as it was, absent
or the previous complete file, and removes its temporary file; a killed process (SIGKILL) may
leave the hidden temporary file (``.NAME.<pid>.<random>.tmp``), never a half-written
destination.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Iterator
from pathlib import Path


def temp_beside(dest: str | os.PathLike[str]) -> Path:
    """A fresh temporary path in the destination's folder (hidden, unique to this process).

    Examples
    --------
    >>> temp_beside("out/result.parquet").name.startswith(".result.parquet.")
    True
    """
    dest = Path(dest)
    return dest.with_name(f".{dest.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")


@contextlib.contextmanager
def atomic_path(dest: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield a temporary path to write; on success it replaces ``dest``, on failure it is removed.

    Examples
    --------
    >>> import tempfile
    >>> folder = tempfile.mkdtemp()
    >>> with atomic_path(f"{folder}/a.txt") as tmp:
    ...     _ = tmp.write_text("done")
    >>> sorted(os.listdir(folder)), Path(f"{folder}/a.txt").read_text()
    (['a.txt'], 'done')
    """
    dest = Path(dest)
    if dest.is_dir():
        msg = f"Cannot write {os.fspath(dest)!r}: it is a folder. Give a file path."
        raise IsADirectoryError(msg)
    if not dest.parent.is_dir():
        msg = f"Cannot write {os.fspath(dest)!r}: the folder {os.fspath(dest.parent)!r} does not exist."
        raise FileNotFoundError(msg)
    tmp = temp_beside(dest)
    try:
        yield tmp
        os.replace(tmp, dest)
    except BaseException:  # KeyboardInterrupt too: never leave a half-written file behind
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


def write_atomic(dest: str | os.PathLike[str], data: str | bytes) -> None:
    """Write text (UTF-8) or bytes to ``dest`` atomically."""
    with atomic_path(dest) as tmp:
        if isinstance(data, bytes):
            tmp.write_bytes(data)
        else:
            tmp.write_text(data, encoding="utf-8")
