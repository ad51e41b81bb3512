"""The ``rankframe fuse`` subcommand: several runs fused into one run file.

``rankframe fuse RUN RUN... [--method rrf] [--norm NORM] [--param NAME=VALUE...]
[--weights W...] [--qrels QRELS] [-o OUT] [--tag TAG]`` writes the fused run (see :func:`rankframe.fuse`) as
a TREC run file (``query Q0 doc rank score tag``; to standard output without ``-o``), or as
Parquet when ``OUT`` ends in ``.parquet``.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

import polars as pl

from rankframe._cli.common import PROG, UsageError, _check_outputs, _mapping, _run_names
from rankframe._errors import RankframeError
from rankframe._io.atomic import atomic_path


def _param(text: str) -> tuple[str, float]:
    """One ``--param NAME=VALUE`` as ``(name, number)``."""
    name, sep, value = text.partition("=")
    try:
        number = float(value)
    except ValueError:
        number = None
    if not sep or not name.strip() or number is None:
        msg = f"expected NAME=NUMBER (e.g. k=60), got {text!r}"
        raise argparse.ArgumentTypeError(msg)
    return name.strip(), int(number) if number.is_integer() and "." not in value else number


def add_fuse_parser(subparsers: Any) -> None:
    """Add the ``fuse`` subcommand (its ``func`` and ``parser`` defaults) to ``subparsers``."""
    from rankframe._fusion.fuse import method_names, norm_names

    fp = subparsers.add_parser(
        "fuse",
        help="fuse runs into one (rrf, CombMNZ, Borda, Condorcet... as ranx)",
        usage=(
            f"{PROG} fuse RUN RUN [RUN ...] [--method METHOD] [--norm NORM]\n"
            "         [--param NAME=VALUE ...] [--weights W [W ...]] [--qrels QRELS]\n"
            "         [-o OUT] [--tag TAG]"
        ),
        description=(
            "Fuse the runs into one with one of ranx's fusion methods, after an optional "
            "normalisation of each run's scores per query. Writes a TREC run file (standard "
            "output without -o), or Parquet when OUT ends in .parquet."
        ),
        epilog=(
            "examples:\n"
            f"  {PROG} fuse bm25.txt splade.txt --method rrf -o fused.txt\n"
            f"  {PROG} fuse bm25.txt splade.txt --method mnz --norm min-max -o fused.parquet\n"
            f"  {PROG} fuse a.txt b.txt c.txt --method wsum --norm zmuv --weights 0.5 0.3 0.2\n"
            f"  {PROG} fuse a.txt b.txt --method rbc --param phi=0.8 --tag rbc08\n"
            f"  {PROG} fuse a.txt b.txt --method probfuse --param n_segments=10 --qrels train-qrels.txt"
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    fp.add_argument("runs", nargs="*", metavar="RUN", help="two or more runs (NAME=PATH names one)")
    fp.add_argument(
        "--method",
        default="rrf",
        metavar="METHOD",
        help="fusion method (default rrf): " + ", ".join(method_names()),
    )
    fp.add_argument(
        "--norm",
        default=None,
        metavar="NORM",
        help="normalisation per run and query (default none): " + ", ".join(norm_names()),
    )
    fp.add_argument(
        "--param",
        type=_param,
        action="append",
        metavar="NAME=VALUE",
        help="a parameter of the method, e.g. k=60 (rrf), phi=0.8 (rbc), gamma=1 (gmnz)",
    )
    fp.add_argument(
        "--weights",
        type=float,
        nargs="+",
        metavar="W",
        help="one weight per run (wsum, wmnz, mixed, w_bordafuse, w_condorcet)",
    )
    fp.add_argument(
        "--qrels",
        metavar="QRELS",
        help="judgments of training queries, for the trained methods (probfuse, segfuse, "
        "slidefuse, posfuse, mapfuse, bayesfuse)",
    )
    fp.add_argument(
        "-o", "--output", metavar="OUT", help="write here (.parquet: Parquet; else TREC run text)"
    )
    fp.add_argument("--tag", default=None, help="the run tag of the TREC file (default: the method)")
    fp.add_argument(
        "--run-column",
        action="append",
        metavar="CANONICAL=COLUMN",
        help="your name of a run column, e.g. score=sim (repeatable)",
    )
    fp.set_defaults(func=_cmd_fuse, parser=fp)


def _trec_lines(fused: pl.DataFrame, tag: str) -> pl.DataFrame:
    """The fused run as TREC run columns: query, Q0, document, rank, score, tag."""
    return fused.select(
        pl.col("query_id").cast(pl.String),
        pl.lit("Q0").alias("q0"),
        pl.col("doc_id").cast(pl.String),
        (pl.int_range(pl.len()).over("query_id") + 1).alias("rank"),
        pl.col("score").cast(pl.String),
        pl.lit(tag).alias("tag"),
    )


def _check_flags(args: argparse.Namespace, runs: int) -> None:
    """The method, normalisation, parameters and weights: a usage error when they do not fit."""
    from rankframe._fusion.fuse import Words, check_arguments
    from rankframe._fusion.methods import get_method

    flags = Words("--method {}", "give --param {}=VALUE", "--weights W [W ...]", "the weighted ones")
    try:
        check_arguments(args.method, args.norm, dict(args.param or ()), args.weights, runs, words=flags)
    except RankframeError as err:
        raise UsageError(str(err)) from None
    if get_method(args.method).trained and args.qrels is None:
        msg = f"--method {args.method} learns from judgments: give --qrels QRELS (training queries)."
        raise UsageError(msg)


def _cmd_fuse(args: argparse.Namespace) -> int:
    from rankframe._fusion.fuse import fuse

    if len(args.runs) < 2:
        msg = f"fuse needs two or more RUN files; got {len(args.runs)}."
        raise UsageError(msg)
    names = _run_names(args.runs)
    _check_flags(args, len(names))
    _check_outputs({"-o": args.output}, inputs=list(names.values()))
    tag = args.tag or args.method
    if any(c.isspace() for c in tag) or not tag:
        msg = f"--tag must be one word without spaces (a TREC run tag); got {tag!r}."
        raise UsageError(msg)
    fused = fuse(
        names,
        args.method,
        norm=args.norm,
        weights=args.weights,
        params=dict(args.param or ()),
        qrels=args.qrels,
        columns=_mapping(args.run_column, "--run-column"),
    )
    if args.output is not None and args.output.endswith(".parquet"):
        with atomic_path(args.output, "-o") as tmp:
            fused.write_parquet(tmp)
        return 0
    lines = _trec_lines(fused, tag)
    if args.output is None or args.output == "-":
        sys.stdout.write(lines.write_csv(separator=" ", include_header=False, quote_style="never"))
        return 0
    with atomic_path(args.output, "-o") as tmp:
        lines.write_csv(tmp, separator=" ", include_header=False, quote_style="never")
    return 0
