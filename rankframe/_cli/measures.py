"""The ``rankframe measures`` subcommand: the registered measures, their trec_eval names, a summary.

One line per measure family, read from the catalogue the documentation site shows too
(:func:`rankframe._measures._catalogue.entries`): its signature, the trec_eval names that
select it, its summary; then the name dialects and trec_eval's nicknames.
"""

from __future__ import annotations

import argparse
import re
from typing import Any

from rankframe._cli.writers import _emit
from rankframe._measures._catalogue import entries
from rankframe._measures._names import NICKNAMES


def _summary(text: str) -> str:
    """A docstring summary without reStructuredText markup."""
    return re.sub(r":\w+:`([^`]*)`", r"\1", text).replace("``", "")


def _cmd_measures(args: argparse.Namespace) -> int:
    rows = [
        (e.signature, ", ".join(t.name for t in e.trec_names) or "-", _summary(e.summary))
        for e in entries()
    ]
    header = ("measure", "trec_eval", "summary")
    w0 = max(len(header[0]), *(len(r[0]) for r in rows))
    w1 = max(len(header[1]), *(len(r[1]) for r in rows))
    lines = [f"{a:<{w0}}  {b:<{w1}}  {c}".rstrip() for a, b, c in [header, *rows]]
    nick = ", ".join(sorted(NICKNAMES))
    lines += [
        "",
        "Names: ir_measures style NAME(param=value)@k (nDCG@10, P(rel=2)@5), trec_eval names "
        "(ndcg_cut.10, P_5, map) and ranx names (ndcg@10).",
        f"trec_eval nicknames: {nick}.",
    ]
    _emit("\n".join(lines) + "\n", None)
    return 0


def add_measures_parser(subparsers: Any) -> None:
    """Add the ``measures`` subcommand (its ``func`` and ``parser`` defaults) to ``subparsers``."""
    ms = subparsers.add_parser("measures", help="list the measures rankframe knows")
    ms.set_defaults(func=_cmd_measures, parser=ms)
