"""What the ``rankframe`` subcommands share: the program name, usage errors, warnings, run names.

Also the evaluation options (``-c``, ``-M``, ``-l``, ``-J``) that ``trec_eval`` and ``evaluate``
both take, spelled as trec_eval spells them in the one and with long names in the other.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path

PROG = "rankframe"


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


@contextlib.contextmanager
def _warnings_to_stderr() -> Iterator[None]:
    """Print the warnings raised inside as ``rankframe: warning: ...`` lines, once each."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            yield
        finally:
            for message in dict.fromkeys(str(w.message) for w in caught):
                print(f"{PROG}: warning: {message}", file=sys.stderr)


def _run_names(paths: Sequence[str]) -> dict[str, str]:
    """Name each run by its file name (its path as given when two file names clash)."""
    names = [Path(p).name for p in paths]
    if len(set(names)) != len(names):
        names = list(paths)
    out: dict[str, str] = {}
    for i, (name, path) in enumerate(zip(names, paths, strict=True)):
        out[name if name not in out else f"{name}#{i + 1}"] = path
    return out


def _files_in_measures_hint(args: argparse.Namespace) -> str:
    """A hint when files were swallowed by ``-m`` (it takes every word after it)."""
    if any(os.path.exists(m) for m in args.measures or ()):
        return (
            " (-m takes every word after it as a measure: put -m after the files, "
            "or end its list with --)"
        )
    return ""


def _add_semantics(p: argparse.ArgumentParser, *, trec: bool) -> None:
    """Options shared by both evaluation commands, spelled as trec_eval spells them."""
    count = {"action": "count", "default": 0} if trec else {"action": "store_true"}
    p.add_argument(
        "-c", *(["--complete_rel_info_wanted"] if trec else ["--complete"]), dest="complete",
        **count, help="score judged queries that are missing from the run as 0",
    )
    p.add_argument(
        "-M", *(["--Max_retrieved_per_topic"] if trec else ["--depth"]), dest="depth", type=int,
        metavar="N", help="keep only the top N documents of each query",
    )
    p.add_argument(
        "-l", *(["--level_for_rel"] if trec else ["--relevance-level"]), dest="relevance_level",
        type=int, default=1, metavar="N",
        help="minimum grade counted as relevant by binary measures (default 1)",
    )
    p.add_argument(
        "-J", *(["--Judged_docs_only"] if trec else ["--judged-only"]), dest="judged_only",
        **count, help="drop unjudged documents from every ranking (after the -M cut)",
    )
