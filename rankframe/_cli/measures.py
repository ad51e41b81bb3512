"""The ``rankframe measures`` subcommand: the registered measures, their trec_eval names, a summary.

One line per measure family of the registry (its signature, the trec_eval names that select it,
the first line of its docstring), then the name dialects and trec_eval's nicknames.
"""

from __future__ import annotations

import argparse
import re
from typing import Any

from rankframe._cli.writers import _emit
from rankframe._errors import RankframeError
from rankframe._measures import TREC_NAMES, Measure, families, load_all
from rankframe._measures._names import NICKNAMES


def _signature(cls: type[Measure]) -> str:
    params = [p.name for p in cls.PARAMS if p.name != "cutoff"]
    text = cls.NAME + (f"({', '.join(params)})" if params else "")
    if any(p.name == "cutoff" for p in cls.PARAMS):
        text += "@k"
    return text


def _summary(cls: type[Measure]) -> str:
    """First line of the docstring, without reStructuredText markup."""
    doc = (cls.__doc__ or "").strip()
    line = doc.splitlines()[0].strip() if doc else ""
    return re.sub(r":\w+:`([^`]*)`", r"\1", line).replace("``", "")


def _trec_names_by_family() -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for name, parse in TREC_NAMES.items():
        try:
            pairs = parse(None)
        except RankframeError:
            continue
        for family in dict.fromkeys(type(m).NAME for _, m in pairs):
            out.setdefault(family, []).append(name)
    return out


def _cmd_measures(args: argparse.Namespace) -> int:
    load_all()
    trec = _trec_names_by_family()
    rows = [
        (_signature(cls), ", ".join(trec.get(cls.NAME, [])) or "-", _summary(cls))
        for cls in families()
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
    """Add the ``measures`` subcommand to an argparse subparsers object.

    It sets the ``func`` (returns an exit status) and ``parser`` defaults that the ``rankframe``
    command runs.

    Parameters
    ----------
    subparsers
        What ``ArgumentParser.add_subparsers()`` returned.
    """
    ms = subparsers.add_parser("measures", help="list the measures rankframe knows")
    ms.set_defaults(func=_cmd_measures, parser=ms)
