"""Atomic outputs: a file rankframe writes appears complete at its destination, or not at all.

Every writer writes to a temporary name beside the destination (same folder, so the same file
system) and renames it into place only when the file is complete (``os.replace``: atomic on
POSIX and Windows). A run that fails or is interrupted leaves the destination as it was, absent
or the previous complete file, and removes its temporary file (``.NAME.<pid>.<random>.tmp``):

* an error, Ctrl-C (``KeyboardInterrupt``): the temporary file is removed on the way out;
* SIGTERM and SIGHUP, whose default ends the process without any clean-up: while a temporary
  file exists (and the signal has its default action, in the main thread), a handler removes
  it, puts the default back and ends the process by the same signal, as it would have ended.
  Python runs the handler between two bytecodes, so a signal that arrives while Polars writes
  takes effect when that write returns;
* SIGKILL (the out-of-memory killer) cannot be handled: it may leave the temporary file, never
  a half-written destination.

The destination keeps what ``open`` would keep: replacing a file keeps its permissions (and its
owner and group where the process may set them); a new file gets the mode ``open`` gives
(``0o666`` less the umask); a symbolic link is followed (its target is replaced, the link
stays); a character device or a FIFO (``/dev/stdout``, ``/dev/null``, a named pipe) is written
in place, since it cannot be renamed over. Whatever cannot be written (a missing or read-only
folder, a full disk, a file larger than ``ulimit -f``) is an :class:`OutputError` naming the
destination and the cause; :func:`check_destination` says so before an evaluation starts.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import secrets
import signal
import stat
import threading
from collections.abc import Iterator
from pathlib import Path
from types import FrameType

from rankframe._errors import OutputError, RankframeError

#: The signals whose default action ends the process without a clean-up: handled while a
#: temporary file exists (SIGINT already raises KeyboardInterrupt, which unwinds).
_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))
#: What a failed write's errno means, and the way out.
_CAUSES = {
    errno.ENOSPC: "no space is left on its device. Free some space, or write to another disk",
    errno.EDQUOT: "the disk quota is exhausted. Free some space, or write to another disk",
    errno.EFBIG: (
        "the file would be larger than this process may write (the file-size limit, ulimit -f). "
        "Raise the limit, or write a smaller output"
    ),
    errno.EROFS: "the file system is read-only. Give a path on a writable file system",
    errno.EACCES: "permission denied. Give a path in a folder you may write to",
    errno.EPERM: "permission denied. Give a path in a folder you may write to",
}
#: The process's own streams (``-o /dev/stdout``): written in place, whatever they point to.
_STREAMS = ("/dev/stdout", "/dev/stderr", "/dev/fd/", "/proc/self/fd/")
#: Errors that Polars, pyarrow and the OS give about a write, and how they spell the errno.
_ERRNO_TEXT = re.compile(r"(?:os error|errno|Errno)\s*(\d+)")

# the temporary files that exist now (removed by the signal handler), and the handlers installed
_LIVE: set[Path] = set()
_LOCK = threading.Lock()
_INSTALLED: list[int] = []
_DEPTH = 0


def temp_beside(dest: str | os.PathLike[str]) -> Path:
    """A fresh temporary path in the destination's folder (hidden, unique to this process).

    Examples
    --------
    >>> temp_beside("out/result.parquet").name.startswith(".result.parquet.")
    True
    """
    dest = Path(dest)
    return dest.with_name(f".{dest.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")


def _cannot(dest: str | os.PathLike[str], option: str | None, why: str) -> OutputError:
    named = f"{os.fspath(dest)!r}" + (f" ({option})" if option else "")
    return OutputError(f"Cannot write {named}: {why}.")


def _resolve(dest: str | os.PathLike[str], option: str | None) -> tuple[Path, os.stat_result | None]:
    """The file to write (a symbolic link's target) and its status; None for a new file.

    A status that is not a regular file's means "write in place": a character device, a FIFO,
    or the process's own streams (``/dev/stdout``, ``/dev/fd/N``), whatever they point to.
    Raises :class:`OutputError` for a folder, a block device or socket, a link that loops, or a
    missing folder.
    """
    if os.fspath(dest) == "":
        raise _cannot(dest, option, "the path is empty. Give a file path")
    path = Path(dest)
    try:
        st: os.stat_result | None = os.stat(path)  # follows symbolic links
    except (FileNotFoundError, NotADirectoryError):  # a folder on the way that is a file: below
        st = None
    except OSError as err:  # a link that loops (ELOOP), a folder that may not be searched
        raise _cannot(dest, option, f"{err.strerror or err}. Give another path") from None
    if st is not None:
        if stat.S_ISDIR(st.st_mode):
            raise _cannot(dest, option, "it is a folder. Give a file path")
        if os.fspath(path).startswith(_STREAMS):
            return path, os.stat(os.devnull)  # in place: the stream is not renamed over
        if not (stat.S_ISREG(st.st_mode) or stat.S_ISCHR(st.st_mode) or stat.S_ISFIFO(st.st_mode)):
            kind = "a block device" if stat.S_ISBLK(st.st_mode) else "not a regular file"
            raise _cannot(dest, option, f"it is {kind}. Give a file path")
        if not stat.S_ISREG(st.st_mode):
            return path, st
    target = Path(os.path.realpath(path)) if path.is_symlink() else path
    folder = target.parent
    if folder.exists() and not folder.is_dir():
        raise _cannot(dest, option, f"{os.fspath(folder)!r} is a file, not a folder. Give a path in a folder")
    if not folder.exists():
        link = f"it is a symbolic link to {os.fspath(target)!r}, whose " if target != path else "the "
        why = f"{link}folder {os.fspath(folder)!r} does not exist"
        raise _cannot(dest, option, f"{why}. Create it, or give a path in a folder that exists")
    return target, st


def _create(tmp: Path, st: os.stat_result | None, option: str | None, dest: object) -> None:
    """Create the temporary file ``tmp``, with the mode the destination will have.

    A new file gets ``0o666`` less the umask (as ``open``); a replaced file its own mode,
    owner and group (the owner where the process may set it). Writers truncate the file and
    keep its mode.
    """
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666 if st is None else 0o600)
    except OSError as err:
        raise _cannot(dest, option, _why(err)) from None
    try:
        if st is not None and hasattr(os, "fchmod"):
            _same_owner(fd, st)
            os.fchmod(fd, stat.S_IMODE(st.st_mode))
    finally:
        os.close(fd)


def _same_owner(fd: int, st: os.stat_result) -> None:
    mine = os.fstat(fd)
    if (mine.st_uid, mine.st_gid) != (st.st_uid, st.st_gid):
        with contextlib.suppress(OSError):  # only root sets another owner; a group if a member
            os.fchown(fd, st.st_uid, st.st_gid)


def _errno(err: BaseException) -> int | None:
    """The errno of an OS error, or the one Polars and pyarrow write in their messages."""
    number = getattr(err, "errno", None)
    if number is None:
        found = _ERRNO_TEXT.search(str(err))
        number = int(found.group(1)) if found else None
    return number


def _why(err: BaseException) -> str:
    """The cause of a failed write and the way out."""
    number = _errno(err)
    if number in _CAUSES:
        return _CAUSES[number]
    lines = str(err).strip().splitlines()
    detail = getattr(err, "strerror", None) or (lines[0] if lines else type(err).__name__)
    return f"{detail}. Give another path"


def _write_failure(err: BaseException, tmp: Path | None) -> bool:
    """Whether ``err`` is the write's own failure (not an input error raised while writing)."""
    if isinstance(err, RankframeError) or not isinstance(err, Exception):
        return False
    number = _errno(err)
    if number in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EROFS):
        return True
    return isinstance(err, OSError) and tmp is not None and tmp.name in str(err)


@contextlib.contextmanager
def write_errors(
    dest: str | os.PathLike[str], option: str | None = None, *, every_os_error: bool = False
) -> Iterator[None]:
    """Raise a failed write to ``dest`` as :class:`OutputError` naming it, the cause and the fix.

    A full disk or quota, ``ulimit -f`` and a read-only file system are the write's failures
    (in Python's, Polars' and pyarrow's words); with ``every_os_error``, every ``OSError``
    (``dest`` is the only file written). Other errors pass unchanged: an input error raised
    while a partitioned output is written stays an input error.
    """
    try:
        yield
    except Exception as err:
        if not (_write_failure(err, None) or (every_os_error and isinstance(err, OSError))):
            raise
        raise _cannot(dest, option, _why(err)) from err


def check_destination(dest: str | os.PathLike[str], option: str | None = None) -> None:
    """Raise :class:`OutputError` now when ``dest`` cannot be written, before the work starts.

    The folder must exist and take a new file (one is created and removed: a read-only or
    full file system, a folder without write permission are found); a symbolic link's target
    folder likewise. ``option`` names where the path came from in messages (``"-o"``,
    ``"output=..."``).

    Examples
    --------
    >>> import tempfile
    >>> check_destination(f"{tempfile.mkdtemp()}/out.csv")
    >>> try:
    ...     check_destination("/no/such/folder/out.csv", "-o")
    ... except OutputError as err:
    ...     print(str(err)[:70])
    Cannot write '/no/such/folder/out.csv' (-o): the folder '/no/such/fold
    """
    target, st = _resolve(dest, option)
    if st is not None and not stat.S_ISREG(st.st_mode):
        if not os.access(target, os.W_OK):
            raise _cannot(dest, option, _CAUSES[errno.EACCES])
        return
    probe = temp_beside(target)
    _create(probe, None, option, dest)
    with contextlib.suppress(OSError):
        probe.unlink()


def check_folder(folder: str | os.PathLike[str], option: str | None = None) -> None:
    """Raise :class:`OutputError` when files cannot be written into ``folder`` (created if missing).

    ``folder`` must be a folder, or not exist with a writable folder above it.
    """
    path = Path(folder)
    if os.fspath(folder) == "":
        raise _cannot(folder, option, "the path is empty. Give a folder")
    if path.exists() and not path.is_dir():
        raise _cannot(folder, option, "it is a file, not a folder. Give a folder")
    above = path
    while not above.exists() and above != above.parent:
        above = above.parent
    if not above.is_dir():
        raise _cannot(folder, option, f"{os.fspath(above)!r} is a file, not a folder. Give a folder")
    kwargs = {"effective_ids": True} if os.access in os.supports_effective_ids else {}
    if not os.access(above, os.W_OK | os.X_OK, **kwargs):
        cause = _CAUSES[errno.EROFS if _read_only(above) else errno.EACCES]
        raise _cannot(folder, option, cause)


def _read_only(path: Path) -> bool:
    try:
        return bool(os.statvfs(path).f_flag & os.ST_RDONLY)
    except (AttributeError, OSError):  # pragma: no cover - Windows
        return False


def _on_signal(signum: int, frame: FrameType | None) -> None:
    """Remove the temporary files, then end the process by ``signum`` as its default would."""
    for path in list(_LIVE):
        with contextlib.suppress(OSError):
            os.unlink(path)
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)
    os._exit(128 + signum)  # pragma: no cover - the signal ends the process first


@contextlib.contextmanager
def _removed_on_signals(tmp: Path) -> Iterator[None]:
    """While inside, SIGTERM/SIGHUP remove ``tmp`` before they end the process.

    The handler is installed by the main thread (Python runs handlers there) over the default
    action only: a handler of the application's, or an ignored signal, is left as it is (a
    handler that raises unwinds through :func:`atomic_path`, which removes the file). The
    previous handlers are back when the last temporary file of the main thread is gone.
    """
    global _DEPTH
    main = threading.current_thread() is threading.main_thread()
    with _LOCK:
        _LIVE.add(tmp)
    if main:
        if _DEPTH == 0:
            for signum in _SIGNALS:
                if signal.getsignal(signum) is signal.SIG_DFL:
                    signal.signal(signum, _on_signal)
                    _INSTALLED.append(signum)
        _DEPTH += 1
    try:
        yield
    finally:
        if main:
            _DEPTH -= 1
            if _DEPTH == 0:
                while _INSTALLED:
                    signum = _INSTALLED.pop()
                    if signal.getsignal(signum) is _on_signal:
                        signal.signal(signum, signal.SIG_DFL)
        with _LOCK:
            _LIVE.discard(tmp)


@contextlib.contextmanager
def atomic_path(dest: str | os.PathLike[str], option: str | None = None) -> Iterator[Path]:
    """Yield a temporary path to write; on success it replaces ``dest``, on failure it is removed.

    ``option`` names where ``dest`` came from in error messages (``"-o"``). A character device
    or FIFO is yielded itself (written in place); see the module's notes for links and modes.

    Examples
    --------
    >>> import tempfile
    >>> folder = tempfile.mkdtemp()
    >>> with atomic_path(f"{folder}/a.txt") as tmp:
    ...     _ = tmp.write_text("done")
    >>> sorted(os.listdir(folder)), Path(f"{folder}/a.txt").read_text()
    (['a.txt'], 'done')
    """
    target, st = _resolve(dest, option)
    if st is not None and not stat.S_ISREG(st.st_mode):
        with write_errors(dest, option, every_os_error=True):
            yield target
        return
    tmp = temp_beside(target)
    with _removed_on_signals(tmp):  # from before the file exists
        _create(tmp, st, option, dest)
        try:
            yield tmp
            if st is not None and hasattr(os, "fchmod"):  # a writer that made a new file
                os.chmod(tmp, stat.S_IMODE(st.st_mode))
            os.replace(tmp, target)
        except BaseException as err:  # KeyboardInterrupt too: never leave a half-written file
            with contextlib.suppress(OSError):
                tmp.unlink()
            if _write_failure(err, tmp):
                raise _cannot(dest, option, _why(err)) from err
            raise


def write_atomic(dest: str | os.PathLike[str], data: str | bytes, option: str | None = None) -> None:
    """Write text (UTF-8) or bytes to ``dest`` atomically (see :func:`atomic_path`)."""
    with atomic_path(dest, option) as tmp, open(tmp, "wb") as f:  # noqa: PTH123
        f.write(data if isinstance(data, bytes) else data.encode("utf-8"))


__all__ = ["atomic_path", "check_destination", "check_folder", "temp_beside", "write_atomic", "write_errors"]
