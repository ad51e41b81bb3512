"""Object storage and table formats: URIs read by Polars, Delta Lake and Apache Iceberg tables.

A path such as ``s3://bucket/run.parquet`` (``gs://``, ``az://``, ``abfss://``, ``hf://``,
``https://``...) is read by Polars' own object-store client, with the ``storage_options`` given
(credentials, region, endpoint; the keys Polars documents for ``scan_parquet``) or, without
them, the environment's credentials. TREC text is read as lines by Polars (gzip and zstd
decompressed) and parsed as a local file is (:mod:`rankframe._io.trec_text`).

A Delta Lake table (a folder holding ``_delta_log``, local or in object storage) is read by
``polars.scan_delta`` (the ``delta`` extra: ``deltalake``); an Apache Iceberg table, as a
``pyiceberg`` Table object or the path of its ``.../metadata/*.metadata.json`` file, by
``polars.scan_iceberg`` (the ``iceberg`` extra). Neither library is imported before a table
is read.

The public functions wrap each path source once (:func:`with_storage`) into a
:class:`StoragePath` that carries the options; :func:`rankframe._io.readers._to_lazy` scans
it. Every failure becomes an :class:`InputError` that names the path and the fix
(:func:`guard`).
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import unquote, urlparse

import polars as pl

from rankframe._errors import InputError, RankframeError

#: URI schemes that Polars reads (``file://`` is read as a local path).
SCHEMES = frozenset({
    "s3", "s3a", "gs", "gcs", "gcp", "az", "azure", "abfs", "abfss", "adl", "hf", "http", "https",
    "file",
})
#: Schemes whose "folders" can be listed (Delta tables, folders of Parquet files, globs).
LISTABLE = SCHEMES - {"http", "https", "file"}
#: Suffixes of files that are TREC text, never a folder or a table: no listing to find out.
TEXT_SUFFIXES = frozenset({".txt", ".gz", ".zst", ".bz2", ".xz", ".trec", ".qrels", ".run"})
#: Polars' own settings among the storage options, which it takes as numbers.
_NUMERIC_KEYS = frozenset({
    "file_cache_ttl", "max_retries", "retry_timeout_ms", "retry_init_backoff_ms",
    "retry_max_backoff_ms", "retry_base_multiplier", "rate_read_init", "rate_read_floor",
    "rate_read_ceiling", "rate_write_init", "rate_write_floor", "rate_write_ceiling",
})
#: The credential keys to suggest, per scheme (object_store's names, as Polars takes them).
_KEYS = {
    "s3": "aws_access_key_id, aws_secret_access_key, aws_region (and aws_endpoint_url for an "
    "S3-compatible store such as MinIO)",
    "gs": "google_service_account (a key file) or google_service_account_key (its JSON)",
    "az": "account_name with account_key or sas_token",
    "hf": "token",
}
_SCHEME_FAMILY = {
    "s3": "s3", "s3a": "s3", "gs": "gs", "gcs": "gs", "gcp": "gs", "az": "az", "azure": "az",
    "abfs": "az", "abfss": "az", "adl": "az", "hf": "hf",
}
_FIX = "storage_options={...} in Python or --storage-option KEY=VALUE (repeated) on the command line"


def scheme(path: str) -> str | None:
    """The URI scheme of ``path`` that Polars reads (``"s3"``, ``"https"``...), else None.

    Examples
    --------
    >>> scheme("s3://bucket/run.parquet"), scheme("runs/run.txt"), scheme("C:/runs/run.txt")
    ('s3', None, None)
    """
    head, sep, _ = path.partition("://")
    return head.lower() if sep and head.lower() in SCHEMES else None


def is_uri(source: Any) -> bool:
    """Whether ``source`` is a path in object storage (a URI Polars reads, or a :class:`StoragePath`)."""
    if isinstance(source, StoragePath):
        return scheme(source.path) not in (None, "file")
    return isinstance(source, str | os.PathLike) and scheme(os.fspath(source)) not in (None, "file")


def file_uri_path(path: str) -> str:
    """A ``file://`` URI as a local path (``file:///tmp/x`` -> ``/tmp/x``); other paths unchanged."""
    if scheme(path) != "file":
        return path
    return unquote(urlparse(path).path)


@dataclass(frozen=True, eq=False)
class StoragePath:
    """A path with the storage options to read it with (credentials, region, endpoint).

    It is ``os.PathLike``: messages, run names and descriptions see the path as given. Its
    ``repr`` shows the option keys, never their values (they hold secrets).
    """

    path: str
    options: Mapping[str, Any] | None = None

    def __fspath__(self) -> str:
        return self.path

    def __str__(self) -> str:
        return self.path

    def __repr__(self) -> str:
        keys = ", ".join(sorted(self.options or {}))
        return f"StoragePath({self.path!r}, options with keys [{keys}])"


def check_options(storage_options: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The storage options as Polars takes them; raises :class:`InputError` on a bad mapping.

    Values are strings (as the command line gives them); Polars' own numeric settings
    (``max_retries``, ``retry_timeout_ms``...) are converted to numbers, booleans and numbers
    elsewhere to strings (``True`` -> ``"true"``).

    Examples
    --------
    >>> check_options({"aws_region": "us-east-1", "max_retries": "2", "aws_allow_http": True})
    {'aws_region': 'us-east-1', 'max_retries': 2, 'aws_allow_http': 'true'}
    """
    if storage_options is None:
        return None
    if not isinstance(storage_options, Mapping):
        msg = (
            "storage_options must be a mapping of option names to values, e.g. "
            "{'aws_region': 'us-east-1'}. Got "
            f"{type(storage_options).__name__}."
        )
        raise InputError(msg)
    out: dict[str, Any] = {}
    for key, value in storage_options.items():
        if not isinstance(key, str) or not key:
            msg = f"storage_options keys must be option names (str). Got {key!r} ({type(key).__name__})."
            raise InputError(msg)
        if key.lower() in _NUMERIC_KEYS and isinstance(value, str):
            try:
                value = int(value)
            except ValueError:
                try:
                    value = float(value)
                except ValueError:
                    msg = f"The storage option {key!r} takes a number. Got {value!r}."
                    raise InputError(msg) from None
        elif isinstance(value, bool):
            value = "true" if value else "false"
        elif isinstance(value, int | float) and key.lower() not in _NUMERIC_KEYS:
            value = str(value)
        out[key] = value
    return out


def with_storage(source: Any, storage_options: Mapping[str, Any] | None) -> Any:
    """``source`` with every URI in it wrapped as a :class:`StoragePath` holding the options.

    A list or tuple of sources, or a dict ``{name: source}`` (several runs), is wrapped item
    by item; local paths, frames and other objects are returned unchanged, as is everything
    when ``storage_options`` is None.

    Examples
    --------
    >>> with_storage({"bm25": "s3://b/bm25.parquet", "local": "run.txt"}, {"aws_region": "eu-west-1"})
    {'bm25': StoragePath('s3://b/bm25.parquet', options with keys [aws_region]), 'local': 'run.txt'}
    """
    options = check_options(storage_options)
    if options is None:
        return source

    def wrap(x: Any) -> Any:
        if isinstance(x, str | os.PathLike) and not isinstance(x, StoragePath) and is_uri(x):
            return StoragePath(os.fspath(x), options)
        return x

    if isinstance(source, Mapping):
        return {name: wrap(x) for name, x in source.items()}
    if isinstance(source, list | tuple):
        return type(source)(wrap(x) for x in source)
    return wrap(source)


def split(source: Any) -> tuple[str, dict[str, Any] | None]:
    """The path and the storage options of a path source (a str, os.PathLike or StoragePath)."""
    if isinstance(source, StoragePath):
        return source.path, check_options(source.options)
    return os.fspath(source), None


# ----------------------------------------------------------------------------- errors
def _detail(error: BaseException) -> str:
    """The useful part of an object-store error: its S3-style code, or its first line, short."""
    text = str(error).strip()
    code = re.search(r"<Code>([^<]+)</Code>", text)
    first = text.splitlines()[0] if text else type(error).__name__
    first = re.sub(r"\s+", " ", re.sub(r"<[^>]*>", " ", first)).strip()
    if len(first) > 240:
        first = first[:237] + "..."
    return f"{code.group(1)}: {first}" if code and code.group(1) not in first else first


def _keys_hint(path: str) -> str:
    family = _SCHEME_FAMILY.get(scheme(path) or "", "")
    keys = _KEYS.get(family)
    return f" (for {scheme(path)}:// e.g. {keys})" if keys else ""


#: An HTTP status 401 or 403 in an error's text, not the digits of a duration or a size
#: ("Error performing GET ... in 403.095µs - HTTP error: error sending request" is a store
#: that cannot be reached)
_DENIED = re.compile(r"(?<![\w.])40[13](?![\w.])")


def storage_error(kind: str, path: str, error: BaseException) -> InputError:
    """The :class:`InputError` for a failure to read ``path``: what went wrong and the fix."""
    text = str(error)
    lowered = text.lower()
    detail = _detail(error)
    fix = _FIX
    bucket = urlparse(path).netloc
    if isinstance(error, ImportError):
        msg = f"Cannot read the {kind} input {path}: {detail}."
    elif "nosuchbucket" in lowered:
        msg = (
            f"Cannot read the {kind} input {path}: the bucket {bucket!r} does not exist (or the "
            f"endpoint is another store's). Check the path, and the endpoint with {fix}."
        )
    elif isinstance(error, FileNotFoundError) or "nosuchkey" in lowered or "not found" in lowered:
        msg = (
            f"Cannot read the {kind} input {path}: no such object ({detail}). Check the path "
            "(a folder needs Parquet files or a Delta table in it) and that the endpoint is the "
            f"store that holds it ({fix})."
        )
    elif isinstance(error, PermissionError) or _DENIED.search(text) or any(
        s in lowered for s in (
            "forbidden", "accessdenied", "access denied", "invalidaccesskeyid",
            "signaturedoesnotmatch", "credential", "unauthorized", "169.254.169.254",
        )
    ):
        msg = (
            f"Cannot read the {kind} input {path}: access denied: missing or wrong credentials "
            f"({detail}). Pass them with {fix}{_keys_hint(path)}; without them the "
            "environment's credentials are used."
        )
    elif isinstance(error, ConnectionError | TimeoutError) or any(
        s in lowered for s in ("error sending request", "timed out", "dns error", "connection refused")
    ):
        msg = (
            f"Cannot read the {kind} input {path}: the store cannot be reached ({detail}). Check "
            f"the network and the endpoint (e.g. aws_endpoint_url) with {fix}."
        )
    elif "expanded paths were empty" in lowered:
        msg = f"No file matches the {kind} pattern {path!r}. Check the path and the pattern."
    else:
        msg = (
            f"Cannot read the {kind} input {path}: {detail}. Check the path, that the file is "
            "in the format its name says (TREC text, Parquet, CSV/TSV, Arrow IPC, a Delta or "
            f"Iceberg table), and the storage options ({fix})."
        )
    return InputError(msg)


@contextlib.contextmanager
def guard(kind: str, path: str) -> Iterator[None]:
    """Turn any failure to read ``path`` into :func:`storage_error`'s :class:`InputError`."""
    try:
        yield
    except RankframeError:
        raise
    except Exception as exc:  # noqa: BLE001 - object stores and table libraries raise many types
        raise storage_error(kind, path, exc) from exc


def checked(lf: pl.LazyFrame, kind: str, path: str) -> pl.LazyFrame:
    """``lf`` once its schema is read: a missing object or bad credentials fail here, clearly."""
    with guard(kind, path):
        lf.collect_schema()
    return lf


# ----------------------------------------------------------------------------- table formats
def require(module: str, extra: str, what: str, kind: str, path: str) -> None:
    """Raise an :class:`InputError` naming the extra to install when ``module`` is missing."""
    if importlib.util.find_spec(module) is None:
        msg = (
            f"The {kind} input {path} is {what}; reading it needs {module}: "
            f"pip install 'rankframe[{extra}]'."
        )
        raise InputError(msg)


def _base(path: str) -> str:
    return path.rstrip("/")


def is_delta(path: str, options: Mapping[str, Any] | None, kind: str) -> bool:
    """Whether the folder ``path`` (local or listable URI) holds a Delta table (``_delta_log``).

    In object storage, one listing (``_delta_log/*.json``; the first line of the first commit
    is read): neither deltalake nor a guess from the name is needed.
    """
    if scheme(path) is None:
        return os.path.isdir(os.path.join(path, "_delta_log"))
    if scheme(path) not in LISTABLE:
        return False
    with guard(kind, path):
        probe = pl.scan_lines(f"{_base(path)}/_delta_log/*.json", storage_options=options, n_rows=1)
        return probe.collect().height > 0


def scan_delta(path: str, options: Mapping[str, Any] | None, kind: str) -> pl.LazyFrame:
    """A Delta Lake table (its current version) through ``polars.scan_delta``."""
    require("deltalake", "delta", "a Delta Lake table (a folder with _delta_log)", kind, path)
    with guard(kind, path):
        return checked(pl.scan_delta(path, storage_options=dict(options) if options else None), kind, path)


def is_iceberg_metadata(path: str) -> bool:
    """Whether ``path`` names an Iceberg table's metadata file (``.../metadata/*.metadata.json``)."""
    return path.lower().endswith(".metadata.json")


def is_iceberg_table(source: Any) -> bool:
    """A ``pyiceberg`` Table (``Table``, ``StaticTable``), recognised without importing pyiceberg."""
    return any(
        cls.__module__.split(".")[:2] == ["pyiceberg", "table"] and cls.__name__ == "Table"
        for cls in type(source).__mro__
    )


def iceberg_folder(path: str) -> bool:
    """Whether the local folder ``path`` looks like an Iceberg table (``metadata/*.metadata.json``)."""
    folder = os.path.join(path, "metadata")
    return os.path.isdir(folder) and any(is_iceberg_metadata(f) for f in os.listdir(folder))


def scan_iceberg(source: Any, options: Mapping[str, Any] | None, kind: str, where: str) -> pl.LazyFrame:
    """An Iceberg table (a pyiceberg Table or a metadata file path) through ``polars.scan_iceberg``.

    A Table object is read with its own file IO settings (those of its catalog) unless
    ``options`` are given.
    """
    require("pyiceberg", "iceberg", "an Apache Iceberg table", kind, where)
    with guard(kind, where):
        lf = pl.scan_iceberg(source, storage_options=dict(options) if options else None)
        return checked(lf, kind, where)


# ----------------------------------------------------------------------------- files and folders
def suffixes(path: str) -> list[str]:
    """The lower-case suffixes of the last part of a path or URI (``run.txt.gz`` -> ``.txt, .gz``)."""
    if scheme(path) is not None:
        return [s.lower() for s in PurePosixPath(urlparse(path).path).suffixes]
    return [s.lower() for s in Path(path).suffixes]


def may_be_folder(path: str) -> bool:
    """Whether a URI may name a folder: listable, and no suffix that only files have."""
    if scheme(path) not in LISTABLE:
        return False
    if path.endswith("/"):
        return True
    sfx = suffixes(path)
    return not sfx or sfx[-1] not in TEXT_SUFFIXES


def parquet_folder(path: str, options: Mapping[str, Any] | None, kind: str) -> pl.LazyFrame | None:
    """The Parquet files under the URI folder ``path`` (hive partitions), or None if it holds none."""
    lf = pl.scan_parquet(
        f"{_base(path)}/**/*.parquet", hive_partitioning=True, storage_options=options
    )
    try:
        lf.collect_schema()
    except pl.exceptions.ComputeError as exc:
        if "expanded paths were empty" in str(exc):
            return None
        raise storage_error(kind, path, exc) from exc
    except Exception as exc:  # noqa: BLE001 - see guard
        raise storage_error(kind, path, exc) from exc
    return lf


def read_text(path: str, role: str, options: Mapping[str, Any] | None) -> bytes:
    """The bytes of a text file in object storage, as lines joined by newlines (gzip, zstd decoded).

    Every physical line is kept (blank ones too), so that line numbers in errors are the
    file's; a carriage return before a line end is dropped (whitespace to the TREC parser).
    """
    sfx = suffixes(path)
    if sfx and sfx[-1] in (".bz2", ".xz"):
        msg = (
            f"The {role} file {path} is {sfx[-1][1:]}-compressed: rankframe decompresses bz2 and "
            "xz files on local disk only. Download it, or store it uncompressed, gzip- or "
            "zstd-compressed."
        )
        raise InputError(msg)
    try:
        lines = pl.scan_lines(path, storage_options=options, glob=False).collect()["line"]
    except pl.exceptions.ComputeError as exc:
        if "utf8" in str(exc).lower():
            msg = (
                f"The {role} file {path} is not UTF-8 text (or is compressed other than with gzip "
                "or zstd). Store it as UTF-8 text, gzip- or zstd-compressed."
            )
            raise InputError(msg) from exc
        raise storage_error(role, path, exc) from exc
    except Exception as exc:  # noqa: BLE001 - see guard
        raise storage_error(role, path, exc) from exc
    if lines.len() == 0:
        return b""
    return (lines.str.join("\n").item() + "\n").encode()


def require_local_files(run: Any) -> None:
    """``partitions="files"`` lists a local folder or glob: a clear error for a URI or a table."""
    if isinstance(run, Mapping):
        items = list(run.values())
    else:
        items = list(run) if isinstance(run, list | tuple) else [run]
    for x in items:
        if not isinstance(x, str | os.PathLike):
            continue
        path = file_uri_path(os.fspath(x))
        if is_uri(x):
            msg = (
                f"partitions='files' lists the Parquet files of a local folder or glob; the run "
                f"{path} is in object storage. Use partitions=N (N hash buckets of the query ids, "
                "each a filtered scan of the run)."
            )
            raise InputError(msg)
        if os.path.isdir(path) and is_delta(path, None, "run"):
            msg = (
                f"partitions='files' cannot split the Delta table {path}: its folder holds the "
                "files of every version. Use partitions=N (N hash buckets of the query ids)."
            )
            raise InputError(msg)
