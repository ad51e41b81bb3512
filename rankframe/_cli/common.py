"""What the ``rankframe`` subcommands share: the program name, usage errors, warnings, run names.

Also the evaluation options (``-c``, ``-M``, ``-l``, ``-J``) that ``trec_eval`` takes spelled as
trec_eval spells them (:func:`_add_semantics`), the options ``evaluate`` and ``compare`` share with
the same names, help and defaults (:func:`_add_run_options`), the output format that ``-o PATH``
implies (:func:`_output_format`), the storage options of inputs in object storage
(``--storage-option KEY=VALUE``, :func:`_storage_options`), the check that the qrels and each
run have a query in common (:func:`_check_common_queries`), the bounded numbers of the options
(:func:`_int_in`, :func:`_float_in`), and the check that the outputs can be written before the
work starts (:func:`_check_outputs`).
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import sys
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path

import polars as pl

from rankframe._engine.options import TIE_POLICIES
from rankframe._errors import InputError, NoQueryInCommonWarning
from rankframe._io.atomic import check_destination, check_folder
from rankframe._io.columns import printable_ids
from rankframe._io.readers import read_qrels, read_run

PROG = "rankframe"
#: The measures of ``evaluate`` and ``compare`` without ``-m``: the defaults of
#: :func:`rankframe.evaluate` and :func:`rankframe.compare`.
DEFAULT_MEASURES = ("nDCG@10",)
#: Known output extensions and the format each names (a command writes a subset of them).
EXTENSIONS: dict[str, str] = {
    ".txt": "table", ".csv": "csv", ".tsv": "tsv", ".json": "json", ".jsonl": "jsonl",
    ".ndjson": "jsonl", ".parquet": "parquet", ".md": "markdown", ".tex": "latex", ".html": "html",
}
#: The generic text extension: it takes any text format that ``-f`` names.
TEXT_EXTENSION = ".txt"


class UsageError(Exception):
    """A bad combination of command-line arguments (exit status 2)."""


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        msg = f"expected a positive integer, got {text!r}"
        raise argparse.ArgumentTypeError(msg)
    return value


def _int_in(low: int, high: int | None = None, why: str = "") -> Callable[[str], int]:
    """An argparse type: an int from ``low`` to ``high`` (no bound when None); ``why`` says the bound.

    Examples
    --------
    >>> _int_in(0, 17)("4")
    4
    >>> _int_in(0, 17, " (a float64 holds 17 significant digits)")("18")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: expected an int from 0 to 17 (a float64 holds 17 significant digits), got '18'
    """

    def parse(text: str) -> int:
        try:
            value: int | None = int(text)
        except ValueError:
            value = None
        if value is None or value < low or (high is not None and value > high):
            bound = f"an int >= {low}" if high is None else f"an int from {low} to {high:,}"
            msg = f"expected {bound}{why}, got {text!r}"
            raise argparse.ArgumentTypeError(msg)
        return value

    return parse


def _float_in(low: float, *, above: bool = False, why: str = "") -> Callable[[str], float]:
    """An argparse type: a finite float ``>= low`` (``> low`` with ``above``).

    Examples
    --------
    >>> _float_in(0.0, above=True)("0.03")
    0.03
    >>> _float_in(0.0, above=True)("nan")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: expected a finite number > 0.0, got 'nan'
    """

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not math.isfinite(value) or value < low or (above and value == low):
            msg = f"expected a finite number {'>' if above else '>='} {low}{why}, got {text!r}"
            raise argparse.ArgumentTypeError(msg)
        return value

    return parse


def _check_outputs(
    outputs: Mapping[str, str | None],
    folders: Mapping[str, str | None] | None = None,
    inputs: Sequence[str | None] = (),
) -> None:
    """Raise before the work when an output cannot be written, or would replace an input.

    ``outputs`` maps an option (``"-o"``, ``"--html"``) to its file path (None or ``-``: not
    given, or standard output); ``folders`` an option to a folder the command creates
    (``--figures``); ``inputs`` are the files the command reads, which an output must not
    replace (a usage error). Otherwise a :class:`rankframe.OutputError` names the option, the
    path and the fix.
    """
    for option, path in outputs.items():
        if path is None or path == "-":
            continue
        for source in inputs:
            if _same_file(source, path):
                msg = f"{option} {path} is the input {source}: it would be replaced. Give another path."
                raise UsageError(msg)
        check_destination(path, option)
    for option, path in (folders or {}).items():
        if path is not None:
            check_folder(path, option)


def _same_file(source: str | None, path: str) -> bool:
    """Whether ``path`` is the local file ``source`` (under another name or through a link)."""
    if source is None or not os.path.isfile(source) or not os.path.exists(path):
        return False
    return os.path.samefile(source, path)


def _storage_option(text: str) -> tuple[str, str]:
    """One ``--storage-option KEY=VALUE`` as ``(key, value)``."""
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        msg = f"expected KEY=VALUE (e.g. aws_region=us-east-1), got {text!r}"
        raise argparse.ArgumentTypeError(msg)
    return key.strip(), value


def _storage_options(pairs: Sequence[tuple[str, str]] | None) -> dict[str, str] | None:
    """The ``--storage-option`` pairs as a dict (the last value of a key wins); None without any."""
    return dict(pairs) if pairs else None


@contextlib.contextmanager
def _warnings_to_stderr() -> Iterator[list[warnings.WarningMessage]]:
    """Print the warnings raised inside as ``rankframe: warning: ...`` lines, once each.

    Yields the list of caught warnings: the caller may look at it, or clear it when an error it
    raises says more than they do.
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            yield caught
        finally:
            for message in dict.fromkeys(str(w.message) for w in caught):
                print(f"{PROG}: warning: {message}", file=sys.stderr)


def _file_name(path: str) -> str:
    """A run's name from its path: its file name, or a glob's folder (``logs/day=*.parquet``: logs)."""
    name = Path(path).name
    if any(c in name for c in "*?[") and Path(path).parent.name:
        return Path(path).parent.name
    return name


def _run_names(specs: Sequence[str]) -> dict[str, str]:
    """Name each run: ``NAME=PATH`` names it, else its file name (its path when two clash).

    ``NAME=PATH`` when the whole argument is not an existing path and ``NAME`` holds no path
    separator (``s3://bucket/run?x=1`` stays a path).
    """
    given: list[str | None] = []
    paths: list[str] = []
    for spec in specs:
        name, sep, path = spec.partition("=")
        if sep and name and path and not any(c in name for c in "/\\:") and not os.path.exists(spec):
            given.append(name)
            paths.append(path)
        else:
            given.append(None)
            paths.append(spec)
    explicit = [n for n in given if n is not None]
    twice = sorted({n for n in explicit if explicit.count(n) > 1})
    if twice:
        msg = f"Two runs are named {twice[0]!r} (NAME=PATH): give each run its own name."
        raise UsageError(msg)
    files = [_file_name(p) for p, n in zip(paths, given, strict=True) if n is None]
    clash = len(set(files)) != len(files)
    out: dict[str, str] = {}
    for i, (name, path) in enumerate(zip(given, paths, strict=True)):
        if name is None:
            name = path if clash else _file_name(path)
            if name in out or name in explicit:
                name = f"{name}#{i + 1}"
        out[name] = path
    return out


def _mapping(pairs: list[str] | None, option: str) -> dict[str, str] | None:
    """``["query_id=qid", ...]`` as ``{"query_id": "qid"}``."""
    if not pairs:
        return None
    out = {}
    for pair in pairs:
        canonical, sep, column = pair.partition("=")
        if not sep or not canonical or not column:
            msg = f"{option} takes CANONICAL=COLUMN (e.g. query_id=qid), got {pair!r}."
            raise UsageError(msg)
        out[canonical] = column
    return out


def _add_column_options(p: argparse.ArgumentParser) -> None:
    """``--qrels-column`` and ``--run-column``: the user's column names (every data command)."""
    p.add_argument(
        "--qrels-column", action="append", metavar="CANONICAL=COLUMN",
        help="your name of a qrels column, e.g. relevance=label (repeatable)",
    )
    p.add_argument(
        "--run-column", action="append", metavar="CANONICAL=COLUMN",
        help="your name of a run column, e.g. score=sim or query_id=session (repeatable); "
        "rank=position for a logged position (1 = top) instead of a score",
    )


def _files_in_measures_hint(args: argparse.Namespace) -> str:
    """A hint when files were swallowed by ``-m`` (it takes every word after it)."""
    if any(os.path.exists(m) for m in args.measures or ()):
        return (
            " (-m takes every word after it as a measure: put -m after the files, "
            "or end its list with --)"
        )
    return ""


def _add_semantics(p: argparse.ArgumentParser) -> None:
    """The evaluation options of ``trec_eval``, spelled as trec_eval spells them."""
    p.add_argument(
        "-c", "--complete_rel_info_wanted", dest="complete", action="count", default=0,
        help="score judged queries that are missing from the run as 0",
    )
    p.add_argument(
        "-M", "--Max_retrieved_per_topic", dest="depth", type=int, metavar="N",
        help="keep only the top N documents of each query",
    )
    p.add_argument(
        "-l", "--level_for_rel", dest="relevance_level", type=int, default=1, metavar="N",
        help="minimum grade counted as relevant by binary measures (default 1)",
    )
    p.add_argument(
        "-J", "--Judged_docs_only", dest="judged_only", action="count", default=0,
        help="drop unjudged documents from every ranking (after the -M cut)",
    )


def _add_run_options(p: argparse.ArgumentParser) -> None:
    """The options ``evaluate`` and ``compare`` share: same names, help and defaults.

    ``-m`` defaults to :data:`DEFAULT_MEASURES` in both; both average over the queries a run
    was scored on (trec_eval's default, the library's ``complete=False``) unless ``-c``.
    """
    _add_column_options(p)
    p.add_argument(
        "--dedupe", choices=("best", "first"), default=None,
        help="keep one row of each duplicate (query, doc) of a run (of a --judged log: with its "
        "label): the highest-scoring (best) or the first; without it duplicates are an error "
        "naming how many",
    )
    p.add_argument(
        "-m", "--measures", dest="measures", action="extend", nargs="+", metavar="MEASURE",
        help="measures in any dialect: nDCG@10, P(rel=2)@5, ndcg_cut.10, map, official, ndcg@10 "
        f"(default {' '.join(DEFAULT_MEASURES)})",
    )
    group = p.add_mutually_exclusive_group()
    group.add_argument(
        "-c", "--complete", dest="complete", action="store_true", default=False,
        help="score judged queries that are missing from a run as 0",
    )
    group.add_argument(
        "--incomplete", dest="complete", action="store_false",
        help="leave judged queries that a run misses out (the default)",
    )
    p.add_argument(
        "-M", "--depth", dest="depth", type=_positive_int, metavar="N",
        help="keep only the top N documents of each query",
    )
    p.add_argument(
        "-l", "--relevance-level", dest="relevance_level", type=int, default=1, metavar="N",
        help="minimum grade counted as relevant by binary measures (default 1)",
    )
    p.add_argument(
        "-J", "--judged-only", dest="judged_only", action="store_true",
        help="drop unjudged documents from every ranking (after the -M cut)",
    )
    p.add_argument(
        "--ties", choices=TIE_POLICIES, default="trec_eval",
        help="tie policy (default trec_eval: score desc, then doc id desc)",
    )
    p.add_argument(
        "--score-dtype", choices=("float64", "float32"), default="float64",
        help="float32 reproduces trec_eval 9 / pytrec_eval ties (default float64)",
    )
    p.add_argument(
        "--storage-option", dest="storage_options", action="append", type=_storage_option,
        metavar="KEY=VALUE",
        help="for inputs in object storage (s3://, gs://, az://, hf://, https://...): an option "
        "Polars reads them with, e.g. aws_region=us-east-1 aws_access_key_id=... "
        "aws_secret_access_key=... aws_endpoint_url=http://localhost:9000 (repeat the flag); "
        "default: the environment's credentials",
    )


def _extension_list(extensions: Mapping[str, str]) -> str:
    return ", ".join(f"{ext} ({fmt})" for ext, fmt in extensions.items())


def _output_format(
    command: str,
    explicit: str | None,
    output: str | None,
    extensions: Mapping[str, str],
    *,
    default: str = "table",
    binary: frozenset[str] = frozenset(),
) -> str:
    """The format a command writes: ``-f`` when given, else the one the extension of ``-o`` names.

    Without ``-o`` (or with ``-o -``, or a path without extension such as ``/dev/stdout``) the
    format is ``-f`` or ``default``. Without ``-f`` the extension decides; an extension the command
    cannot write is a usage error that lists those it can. With ``-f``, an extension that names
    another format (``-f table -o out.parquet``) is a usage error; ``.txt`` takes any text format
    and an extension rankframe does not know takes whatever ``-f`` names.
    """
    suffix = Path(output).suffix.lower() if output not in (None, "-") else ""
    if not suffix:
        return explicit or default
    accepted = f"-o takes {_extension_list(extensions)}"
    named = EXTENSIONS.get(suffix)
    if explicit is None:
        if suffix in extensions:
            return extensions[suffix]
        if named is not None:
            msg = (
                f"{command} cannot write {named} ({suffix}): {accepted}; or name the format "
                "with -f."
            )
        else:
            msg = (
                f"cannot tell the format of -o {output} from its extension {suffix!r}: "
                f"{accepted}; or name the format with -f."
            )
        raise UsageError(msg)
    if named is None or named == explicit or (suffix == TEXT_EXTENSION and explicit not in binary):
        return explicit
    what = "a binary file" if explicit in binary else "text"
    msg = (
        f"-f {explicit} writes {what} but -o {output} names a {named} file: drop -f (the "
        f"extension then picks the format) or give a path that ends as -f says ({accepted})."
    )
    raise UsageError(msg)


def _some_run_empty(frame: pl.DataFrame, names: Mapping[str, str], value: str = "value") -> bool:
    """Whether a run has no value in ``frame``, or only zeros (as with ``-c`` and no query in common).

    A run file that holds several runs (a ``run`` column) shows as ``name/inner`` in ``frame``.
    """
    if "run" not in frame.columns or not frame.height:
        return True
    scored = frame.group_by("run").agg(
        (pl.col(value).fill_nan(0.0).fill_null(0.0) != 0.0).any().alias("some")
    )
    for name in names:
        rows = scored.filter((pl.col("run") == name) | pl.col("run").str.starts_with(f"{name}/"))
        if not rows.height or not rows["some"].all():
            return True
    return False


def _first_ids(ids: Sequence[str], n: int = 3) -> str:
    shown = ", ".join(repr(q) for q in ids[:n])
    return (shown + ", ..." if len(ids) > n else shown) or "none"


def _query_ids(frame: pl.LazyFrame) -> list[str]:
    ids = frame.select(pl.col("query_id")).unique().collect()["query_id"]
    return sorted(printable_ids(ids).drop_nulls().to_list())


def _check_common_queries(
    qrels: str,
    runs: Mapping[str, str],
    storage_options: Mapping[str, str] | None = None,
    columns: tuple[Mapping[str, str] | None, Mapping[str, str] | None] = (None, None),
) -> None:
    """Raise an input error when the qrels and a run have no query id in common.

    The message shows the first query ids (sorted) of both sides, where the mismatch is usually
    plain to see (``'1'`` against ``'q1'``, ``'001'`` against ``'1'``). It reads the query ids
    again: callers check only when the evaluation hints at it (warnings, a run with no value).
    ``columns``: the qrels' and the runs' column mappings (``--qrels-column``, ``--run-column``).
    """
    judged = _query_ids(read_qrels(qrels, columns=columns[0], storage_options=storage_options))
    judged_set = set(judged)
    for name, path in runs.items():
        ran = _query_ids(read_run(path, columns=columns[1], storage_options=storage_options))
        if judged_set.isdisjoint(ran):
            which = "the run" if len(runs) == 1 else f"the run {name}"
            msg = (
                f"The qrels and {which} have no query in common (qrels {qrels}: {_first_ids(judged)}; "
                f"run {path}: {_first_ids(ran)}); check the query id column and its format."
            )
            raise InputError(msg)


def _fail_without_common_queries(
    qrels: str | None,
    runs: Mapping[str, str],
    caught: list[warnings.WarningMessage],
    *,
    some_run_empty: bool,
    storage_options: Mapping[str, str] | None = None,
    columns: tuple[Mapping[str, str] | None, Mapping[str, str] | None] = (None, None),
) -> None:
    """Exit 1 (an :class:`InputError`) when the qrels and a run have no query in common.

    The inputs are read again only when the evaluation says so: its warning that no judged query
    has results, or a run with no value (or only zeros, under ``-c``), which is how a run without
    a query in common shows beside runs that have some. The caught warnings are dropped then:
    the error says what they would.
    """
    if qrels is None:
        return
    said = any(issubclass(w.category, NoQueryInCommonWarning) for w in caught)
    if not (said or some_run_empty):
        return
    try:
        _check_common_queries(qrels, runs, storage_options, columns)
    except InputError:
        caught.clear()
        raise
