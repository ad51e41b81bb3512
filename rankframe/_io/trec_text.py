"""TREC text files (qrels and runs, compressed too), parsed fast, with errors that name the line."""

from __future__ import annotations

import bz2
import codecs
import contextlib
import gzip
import io
import lzma
import mmap
import os
import re
import zlib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import polars as pl

from rankframe._errors import InputError, at, quote
from rankframe._io.columns import LINE, REL, TREC_QRELS_COLS, TREC_RUN_COLS, D, Q, S
from rankframe._io.storage import read_text, scheme

#: Called as ``before_parse(data, path, role, regular)`` with a text input's bytes before they are
#: parsed by Polars' CSV reader (``regular``) or line by line, to refuse one whose parsing cannot
#: fit in memory (Polars aborts the process on an allocation it cannot make): the engine sets it
#: to :func:`rankframe._engine.memory_guard.check_text`.
before_parse: Callable[[bytes, str, str, bool], None] | None = None

#: Compressed data, by its first bytes: ``(magic, signature, suffix, open)``. A file is read
#: as compressed when it starts with the whole signature (gzip's magic and deflate method;
#: bzip2's magic, block size and the magic of its first block or of an empty stream's end;
#: xz's magic), or with the magic alone when its name ends with the suffix: a text file whose
#: first id starts with ``BZh`` is text.
_MAGIC = (
    (b"\x1f\x8b", re.compile(rb"\x1f\x8b\x08"), ".gz", gzip.open),
    (b"BZh", re.compile(rb"BZh[1-9](?:1AY&SY|\x17rE8P\x90)"), ".bz2", bz2.open),
    (b"\xfd7zXZ\x00", re.compile(rb"\xfd7zXZ\x00"), ".xz", lzma.open),
)
#: First bytes that make Polars' CSV reader decompress its input (gzip, zlib, zstd): a text file
#: starting so (a first query id ``x^1``) is split without it.
_SNIFFED = (b"\x1f\x8b", b"\x78\x01", b"\x78\x5e", b"\x78\x9c", b"\x78\xda", b"\x28\xb5\x2f\xfd")
# Separator bytes for reading a file as one column of whole lines (one absent from the data).
_LINE_SEPARATORS = ("\x1f", "\x1e", "\x1d", "\x1c", "\x01", "\x02")
#: The longest line the TREC readers take: no TREC record comes near (ids are tens of bytes),
#: so a longer line is a file of another kind (a line of a 1 GB file with no line feed would
#: otherwise be read whole, then quoted whole).
MAX_LINE = 1 << 20
#: Fields parsed as numbers: the others (ids, groups, run tags) are kept as bytes in a file
#: that is not UTF-8.
_NUMBERS = frozenset({REL, S, "rank", "rel_level"})


class _NotUtf8(Exception):
    """The data is not UTF-8: parse it again, byte for byte (:func:`_split_fields`)."""


def stream_limit() -> int:
    """How many bytes a source of unknown size may give: a quarter of the memory.

    A pipe, a device (``/dev/stdin``, ``/dev/zero``) or a compressed file's content has no size
    to check first; parsing text takes about four times its size, so a quarter of the physical
    memory (or of the address-space limit, ``ulimit -v``, when lower) is the most that can be
    evaluated. At least 64 MiB.
    """
    limits = []
    with contextlib.suppress(ValueError, OSError, AttributeError):
        limits.append(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    with contextlib.suppress(ImportError, ValueError, OSError):
        import resource

        soft, _ = resource.getrlimit(resource.RLIMIT_AS)
        if soft not in (resource.RLIM_INFINITY, -1) and soft > 0:
            limits.append(soft)
    return max(min(limits) // 4, 64 << 20) if limits else 16 << 30


def _read_bytes(path: str, role: str, storage_options: Mapping[str, Any] | None = None) -> bytes:
    """The file's bytes, decompressed; a clear error for missing, unreadable or empty files.

    A URI (``s3://``, ``gs://``, ``https://``...) is read by Polars with ``storage_options``
    (:func:`rankframe._io.storage.read_text`); the bytes are then parsed as a local file's.
    A regular file is read whole; a source of unknown size (a pipe, a device such as
    ``/dev/stdin``, a compressed file's content) is read in blocks, each checked
    (:func:`_read_stream`), up to :func:`stream_limit`. NUL bytes (binary data: ``/dev/zero``,
    ``/dev/urandom``, a Parquet file under another name) and a first line longer than
    :data:`MAX_LINE` are refused before the rest is read.
    """
    if scheme(path) not in (None, "file"):
        return _checked(read_text(path, role, storage_options), path, role)
    p = Path(path)
    if not p.exists():
        msg = (
            f"The {role} file {path!r} does not exist (working directory: {os.getcwd()}). "
            "Check the path."
        )
        raise InputError(msg)
    if p.is_dir():
        tables = " (or a folder of Parquet files)" if role in ("qrels", "run") else ""
        msg = f"The {role} path {path!r} is a folder; pass a file{tables}."
        raise InputError(msg)
    try:
        if p.is_file():
            with open(p, "rb") as f:
                head = f.read(MAX_LINE + 1)
            decompress = _decompressor(head, path)
            if decompress is None:
                _check_block(head, 0, 0, path, role, limit=None)
                data = head if len(head) <= MAX_LINE else p.read_bytes()
                if b"\x00" in data:  # memchr: as fast as the read
                    raise _binary(path, role, data.index(b"\x00"), head)
            else:
                with decompress(p) as f:
                    data = _read_stream(f, path, role)
        else:  # a pipe, a device, a socket: no size to trust
            with open(p, "rb") as f:
                data = read_unsized(f, path, role)
    except (OSError, EOFError, lzma.LZMAError, zlib.error, MemoryError) as exc:
        raise InputError.unreadable(role, path, exc) from exc
    return _checked(data, path, role)


def read_unsized(f: Any, path: str, role: str) -> bytes:
    """The text of a stream of unknown size (a pipe, a device, standard input), decompressed.

    Read in checked blocks (:func:`_read_stream`): at most :func:`stream_limit` bytes, no NUL
    byte, no line longer than :data:`MAX_LINE`. ``path`` names the stream in errors.
    """
    try:
        head = f.read(MAX_LINE)
        decompress = _decompressor(head)
        data = _read_stream(f, path, role, head=head, text=decompress is None)
        if decompress is not None:
            with decompress(io.BytesIO(data)) as text:
                data = _read_stream(text, path, role)
    except (OSError, EOFError, lzma.LZMAError, zlib.error, MemoryError) as exc:
        raise InputError.unreadable(role, path, exc) from exc
    return data


def _decompressor(head: bytes, path: str = "") -> Callable[[Any], Any] | None:
    """The opener that decompresses data starting with ``head`` (from ``path``), or None for text."""
    return next((
        opener for magic, signature, suffix, opener in _MAGIC
        if signature.match(head) or (head.startswith(magic) and path.lower().endswith(suffix))
    ), None)


def _read_stream(f: Any, path: str, role: str, *, head: bytes = b"", text: bool = True) -> bytes:
    """Read ``f`` (after ``head``, already read from it) to its end in blocks of :data:`MAX_LINE` bytes.

    Refuses more than :func:`stream_limit` bytes in all and, for ``text``, NUL bytes and a
    line longer than :data:`MAX_LINE`, each as soon as the block that holds it is read.
    """
    limit = stream_limit()
    blocks: list[bytes] = []
    total = since = 0  # bytes read, bytes since the last line feed
    block = head or f.read(MAX_LINE)
    while block:
        if text:
            first = blocks[0] if blocks else block
            since = _check_block(block, total, since, path, role, limit=limit, head=first)
        elif total + len(block) > limit:
            raise _too_much(path, role, limit)
        total += len(block)
        blocks.append(block)
        block = f.read(MAX_LINE)
    return b"".join(blocks)


def _check_block(
    block: bytes, offset: int, since: int, path: str, role: str, *, limit: int | None, head: bytes = b""
) -> int:
    """Check a block read at ``offset``; return the bytes since its last line feed.

    ``since`` is the length of the line that the previous blocks left open. A line longer than
    :data:`MAX_LINE` is caught in the block where it passes the limit (blocks are no longer
    than that, so a line within one block is shorter).
    """
    nul = block.find(b"\x00")
    if nul >= 0:
        raise _binary(path, role, offset + nul, head or block)
    first = block.find(b"\n")
    if first < 0:
        since += len(block)
    elif since + first > MAX_LINE:
        since += first
    else:
        since = len(block) - 1 - block.rfind(b"\n")
    if since > MAX_LINE:
        msg = (
            f"The {role} file {path} has a line longer than {MAX_LINE // (1 << 20)} MiB "
            f"(near byte {offset + len(block)}), so it is not text of one {_UNIT[role]} per "
            "line: check the file (a binary or compressed file under another name, or one "
            "whose line ends were lost?)."
        )
        raise InputError(msg)
    if limit is not None and offset + len(block) > limit:
        raise _too_much(path, role, limit)
    return since


def _too_much(path: str, role: str, limit: int) -> InputError:
    msg = (
        f"The {role} input {path} gave more than {limit >> 20} MiB without ending (a pipe, a "
        "device or a compressed file, whose size is not known first): more than a quarter of "
        "the memory, which parsing it would need. Is it the right file (/dev/zero, "
        "/dev/urandom, a stream that never ends)? Save it to a file, or convert it to "
        "Parquet, first."
    )
    return InputError(msg)


def _binary(path: str, role: str, position: int, head: bytes) -> InputError:
    """The error for a NUL byte at ``position``: UTF-16 text (``head`` has a BOM), or binary data."""
    if _is_utf16(head):
        return _utf16(path, role)
    msg = (
        f"The {role} file {path} holds a NUL byte (byte {position}), so it is binary data, not "
        f"text of one {_UNIT[role]} per line: check the path (/dev/zero or /dev/urandom, a "
        "Parquet or Arrow file under another name: name it .parquet or .arrow, a file "
        "compressed twice?)."
    )
    return InputError(msg)


def _is_utf16(head: bytes) -> bool:
    """UTF-16 text: a byte order mark, then the NUL bytes of ASCII characters (not an id's bytes)."""
    return head.startswith((b"\xff\xfe", b"\xfe\xff")) and b"\x00" in head[2:64]


def _utf16(path: str, role: str) -> InputError:
    msg = (
        f"The {role} file {path} is UTF-16 text (it starts with a byte order mark); rankframe "
        "reads UTF-8. Convert it, e.g. iconv -f UTF-16 -t UTF-8 (Windows PowerShell 5 writes "
        "UTF-16 with '>': use Out-File -Encoding utf8)."
    )
    return InputError(msg)


def _checked(data: bytes, path: str, role: str) -> bytes:
    r"""Refuse an empty file, UTF-16 text, and lines that end with carriage returns alone (classic Mac OS).

    A bare ``\r`` is whitespace to trec_eval: a file of one line feed at most in which a ``\r``
    is followed by more data would be read as one line holding every record, of which the first
    would be kept silently.
    """
    if not data or data.isspace():  # no copy of the data (strip() would make one)
        msg = f"The {role} file {path} is empty; it needs one line per {_UNIT[role]}."
        raise InputError(msg)
    if _is_utf16(data):  # a byte order mark: NUL bytes in every field
        raise _utf16(path, role)
    if b"\r" in data and data.count(b"\n", 0, len(data) - 1) == 0 and _CR_RECORD.search(data):
        msg = (
            f"The {role} file {path} ends its lines with carriage returns alone (\\r, classic "
            "Mac OS), so it would be read as one line. Convert the line ends to \\n (e.g. "
            "tr '\\r' '\\n' < old > new)."
        )
        raise InputError(msg)
    return data


#: A carriage return followed by more data on the same line.
_CR_RECORD = re.compile(rb"\r[^\s]")


_UNIT = {
    "qrels": "judgment ('qid iter docno rel')",
    "run": "result ('qid Q0 docno rank score tag')",
    "prefs": "preference ('qid jg jsg docno rel_level')",
    "z-score": "reference ('qid measure mean stddev')",
    "LETOR/SVMlight": "row ('label qid:q 1:v 2:v ...')",
}


def _first_data_line(data: bytes) -> tuple[int, bytes] | None:
    """The number and text of the first line that is neither blank nor a comment."""
    start, number = 0, 1
    while start < len(data):
        end = data.find(b"\n", start)
        end = len(data) if end < 0 else end
        line = data[start:end]
        if not line.startswith(b"#") and line.strip(b" \t\r\f\v"):
            return number, line
        start, number = end + 1, number + 1
    return None


def _refuse_a_run(data: bytes, path: str) -> None:
    """Refuse qrels whose first data line is a run line (6+ fields, a rank and a score).

    The qrels reader ignores fields after the fourth, so a run given as qrels would otherwise
    be read as judgments graded by rank (trec_eval refuses any qrels line of more than 4 fields).
    """
    first = _first_data_line(data)
    if first is None:
        return
    number, line = first
    fields = line.split()  # ASCII whitespace, as trec_eval's isspace()
    if len(fields) < len(TREC_RUN_COLS):
        return
    try:
        int(fields[3]), float(fields[4])
    except ValueError:
        return
    text = line.decode("utf-8", errors="backslashreplace")
    msg = (
        f"{at(path, number)}: a qrels line has 4 fields (qid iter docno rel), found {len(fields)}: "
        f"{quote(text)}. It looks like a run line (qid Q0 docno rank score tag): are the qrels and the "
        "run swapped?"
    )
    raise InputError(msg)


def _count_lines(data: bytes) -> int:
    return data.count(b"\n") + (0 if data.endswith(b"\n") else 1)


def _fast_fields(data: bytes, names: tuple[str, ...]) -> pl.DataFrame | None:
    """Parse with the CSV reader when the file is regular: one separator, no comments or blanks.

    Returns None when the file is not regular or any line is short, so that the general path
    (which reports exact line numbers) takes over. Only single-byte searches run on the raw
    bytes (memchr speed); the rest is checked on the parsed columns: a blank line, a doubled or
    leading separator or a short line leaves a null in the first fields, a comment line starts
    the first field with ``#``. Raises :class:`_NotUtf8` for data that is not UTF-8.
    """
    has_tab, has_space = b"\t" in data, b" " in data
    if has_tab == has_space or b"\x0b" in data or b"\x0c" in data:
        return None
    if data.startswith((b"\n", b"\r", *_SNIFFED)):
        return None
    try:
        df = pl.read_csv(
            data, has_header=False, separator="\t" if has_tab else " ",
            quote_char=None, new_columns=list(names), infer_schema=False,
            truncate_ragged_lines=True, extra_columns="ignore", raise_if_empty=False,
        )
    except (pl.exceptions.PolarsError, ValueError):
        if not is_utf8(data):
            raise _NotUtf8 from None
        return None
    if df.width != len(names) or df.height == 0:
        return None
    irregular = pl.any_horizontal(pl.all().is_null()).any()
    if b"#" in data:
        irregular = irregular | pl.col(names[0]).str.starts_with("#").any()
    if df.select(irregular).item():
        return None
    return df.with_row_index(LINE, offset=1)


def is_utf8(data: bytes | memoryview | mmap.mmap) -> bool:
    """Whether ``data`` is UTF-8: blocks of ASCII are skipped, the others decoded (no copy kept)."""
    if isinstance(data, bytes) and data.isascii():
        return True
    decoder = codecs.getincrementaldecoder("utf-8")()
    view = memoryview(data)
    try:
        for start in range(0, len(view), 1 << 24):
            block = bytes(view[start:start + (1 << 24)])
            if not (block.isascii() and not decoder.getstate()[0]):
                decoder.decode(block)
        decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        return False
    finally:
        view.release()
    return True


def is_utf8_file(path: str) -> bool:
    """Whether the local file at ``path`` is UTF-8 (mapped, not read into memory)."""
    with open(path, "rb") as f:
        if os.fstat(f.fileno()).st_size == 0:
            return True
        with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
            return is_utf8(data)


def _lines(data: bytes, path: str, role: str) -> pl.DataFrame:
    """The file as ``line_no, line`` (1-based, every physical line kept, blank ones null).

    Raises :class:`_NotUtf8` for data that is not UTF-8.
    """
    sep = next((s for s in _LINE_SEPARATORS if s.encode() not in data), None)
    if data.startswith(_SNIFFED):  # Polars would take it for compressed data
        sep = None
    lines = None
    if sep is not None:
        try:
            lines = pl.read_csv(
                data, has_header=False, separator=sep, quote_char=None,
                new_columns=["line"], infer_schema=False, raise_if_empty=False,
            )
        except pl.exceptions.PolarsError:
            lines = None
    if lines is None or lines.height != _count_lines(data):
        # Unusual bytes or a reader that merged lines: split in Python (exact, slower).
        try:
            text = data.decode("utf-8").split("\n")
        except UnicodeDecodeError:
            raise _NotUtf8 from None
        if text and text[-1] == "":
            text.pop()
        lines = pl.DataFrame({"line": text}, schema={"line": pl.String})
    if lines.height != _count_lines(data):  # pragma: no cover - defensive
        msg = f"Cannot split the {role} file {path} into lines."
        raise InputError(msg)
    return lines.with_row_index(LINE, offset=1)


def _split_fields(data: bytes, names: tuple[str, ...], path: str, role: str) -> pl.DataFrame:
    """``line_no`` and the first ``len(names)`` whitespace-separated fields of every data line.

    Lines whose first byte is ``#`` are comments (trec_eval 10); a ``#`` inside a field is data.
    Blank lines are skipped; fields after the last named one are ignored.

    Fields are String when the file is UTF-8 (or ASCII). In a file that is not, ids are
    bytes, as trec_eval reads them: the fields other than numbers become Binary columns that
    hold each field's own bytes (two ids that differ in any byte stay two ids, and sort in
    byte order); the file is parsed as Latin-1 text (one character per byte, the separators
    unchanged), then each field is given back its bytes.
    """
    try:
        return _split_text(data, names, path, role, raw=False)
    except _NotUtf8:
        pass
    df = _split_text(data.decode("latin-1").encode(), names, path, role, raw=True)
    return df.with_columns(
        _latin1_numbers(df[c]) if c in _NUMBERS else latin1_bytes(df[c]) for c in names
    )


def latin1_bytes(text: pl.Series) -> pl.Series:
    """Latin-1 text back to its bytes (a Binary series): one byte per character.

    In the text's UTF-8, a character of U+0080-U+00FF is a lead byte (0xC2 or 0xC3) and a
    continuation byte: the lead is dropped and the continuation is the byte (plus 0x40 after
    0xC3). Done on the Arrow buffers with numpy: a few passes over the ids' bytes.
    """
    if text.null_count():  # pragma: no cover - the parser leaves no null field
        return pl.Series(text.name, [None if v is None else v.encode("latin-1") for v in text], pl.Binary)
    import numpy as np  # (on first use: not with the package)
    import pyarrow as pa

    arr = text.to_arrow(compat_level=pl.CompatLevel.oldest())
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    arr = arr.cast(pa.large_string())
    offsets = np.frombuffer(arr.buffers()[1], dtype=np.int64)[arr.offset:arr.offset + len(arr) + 1]
    raw = np.frombuffer(arr.buffers()[2], dtype=np.uint8)[offsets[0]:offsets[-1]]
    offsets = offsets - offsets[0]
    leads = np.flatnonzero(raw >= 0xC0)
    if leads.size == 0:
        return text.cast(pl.Binary)
    out = raw.copy()
    out[leads + 1] += np.where(raw[leads] == 0xC3, 0x40, 0).astype(np.uint8)
    out = np.delete(out, leads)
    offsets = offsets - np.searchsorted(leads, offsets)
    binary = pa.Array.from_buffers(
        pa.large_binary(), len(arr), [None, pa.py_buffer(offsets), pa.py_buffer(out)]
    )
    return pl.Series(text.name, binary, dtype=pl.Binary)


def _latin1_numbers(text: pl.Series) -> pl.Series:
    r"""A number field of Latin-1 text as UTF-8 text; bytes that are not UTF-8 as ``\xNN``.

    A number is ASCII: only a field that is not a number changes, for its error message.
    """
    wide = text.filter(text.str.contains(r"[^\x00-\x7F]")).unique()
    if wide.len() == 0:
        return text
    shown = [v.encode("latin-1").decode("utf-8", errors="backslashreplace") for v in wide]
    return text.replace(wide, pl.Series(shown, dtype=pl.String))


def _split_text(data: bytes, names: tuple[str, ...], path: str, role: str, *, raw: bool) -> pl.DataFrame:
    """:func:`_split_fields` on UTF-8 text (``raw``: Latin-1 text standing for bytes)."""
    if before_parse is not None:
        before_parse(data, path, role, True)
    fast = _fast_fields(data, names)
    if fast is not None:
        return fast
    if before_parse is not None:
        before_parse(data, path, role, False)
    n = len(names)
    body = _lines(data, path, role).filter(
        pl.col("line").is_not_null()
        & ~pl.col("line").str.starts_with("#")
        & (pl.col("line").str.strip_chars(" \t\r\f\v") != "")
    )
    if body.height == 0:
        msg = (
            f"The {role} file {path} holds no data lines (only comments or blank lines); "
            f"it needs one line per {_UNIT[role]}."
        )
        raise InputError(msg)
    ws = r"[ \t\r\f\v]"  # trec_eval's isspace(), ASCII only
    pattern = f"^{ws}*" + f"{ws}+".join([r"([^ \t\r\f\v]+)"] * n) + f"(?:{ws}|$)"
    fields = body.with_columns(pl.col("line").str.extract_groups(pattern).alias("_f"))
    bad = fields.filter(pl.col("_f").struct.field("1").is_null())
    if bad.height:
        row = bad.row(0, named=True)
        line: str | bytes = row["line"]
        if raw:
            line = line.encode("latin-1")
        found = len(line.split(None))
        swapped = " It looks like a qrels line: are the qrels and the run swapped?" if (
            role == "run" and found == len(TREC_QRELS_COLS)
        ) else ""
        msg = (
            f"{at(path, row[LINE])}: expected at least {n} whitespace-separated fields "
            f"({' '.join(names)}), found {found}: {quote(line)}. Fix or remove the line "
            f"(lines starting with '#' are comments).{swapped}"
        )
        raise InputError(msg)
    return fields.select(
        LINE, *[pl.col("_f").struct.field(str(i + 1)).alias(name) for i, name in enumerate(names)]
    )


def _to_number(df: pl.DataFrame, col: str, dtype: pl.DataType, path: str, what: str) -> pl.DataFrame:
    num = pl.col(col).cast(dtype, strict=False)
    if dtype.is_integer():
        # Accept integral decimals such as "1.0" (trec_eval reads grades with atol).
        as_float = pl.col(col).cast(pl.Float64, strict=False)
        whole = as_float.is_finite() & (as_float == as_float.round())
        num = pl.coalesce(num, pl.when(whole).then(as_float.cast(dtype, strict=False)))
    converted = df.with_columns(num.alias("_num"))
    bad = converted.filter(pl.col("_num").is_null())
    if bad.height:
        row = bad.row(0, named=True)
        kind = "an integer" if dtype.is_integer() else "a number"
        msg = (
            f"{at(path, row[LINE])}: the {what} {quote(row[col])} is not {kind}"
            f"{' (grades are integers such as 0, 1, 2 or -1)' if dtype.is_integer() else ''}. "
            "Fix the line or check the column order (query, iteration, document, ...)."
        )
        raise InputError(msg)
    return converted.with_columns(pl.col("_num").alias(col)).drop("_num")


def read_trec_qrels(
    path: str | os.PathLike[str], storage_options: Mapping[str, Any] | None = None
) -> pl.LazyFrame:
    """Read a TREC qrels file (``qid iter docno rel``; ``iter`` and extra fields are ignored).

    Returns ``query_id, doc_id`` (String; Binary, each id's own bytes, when the file is not
    UTF-8), ``relevance`` (Int64) and ``line_no``. A URI is read with ``storage_options``
    (credentials, region, endpoint).
    """
    path = os.fspath(path)
    data = _read_bytes(path, "qrels", storage_options)
    _refuse_a_run(data, path)
    df = _split_fields(data, TREC_QRELS_COLS, path, "qrels")
    df = _to_number(df, REL, pl.Int64, path, "relevance grade")
    return df.select(Q, D, REL, LINE).lazy()


def read_trec_run(
    path: str | os.PathLike[str], storage_options: Mapping[str, Any] | None = None
) -> pl.LazyFrame:
    """Read a TREC run file (``qid iter docno rank score tag``; rank and extra fields ignored).

    Returns ``query_id, doc_id`` (String; Binary, each id's own bytes, when the file is not
    UTF-8), ``score`` (Float64), ``run_tag`` and ``line_no``. A URI is read with
    ``storage_options`` (credentials, region, endpoint).
    """
    path = os.fspath(path)
    df = _split_fields(_read_bytes(path, "run", storage_options), TREC_RUN_COLS, path, "run")
    df = _to_number(df, S, pl.Float64, path, "score")
    return df.select(Q, D, S, "run_tag", LINE).lazy()
