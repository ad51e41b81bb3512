"""The ``rankframe evaluate`` subcommand: runs side by side, as a table or a tidy frame.

``rankframe evaluate QRELS RUN [RUN...] [-m MEASURE...]`` evaluates the runs with
:func:`rankframe.evaluate` (nDCG@10 without ``-m``, as the library) and writes an aligned table
for people or the tidy frame (csv, tsv, json, jsonl, parquet) for pipelines, through
:data:`rankframe._cli.writers.WRITERS`. The format is ``-f``, or the one the extension of
``-o PATH`` names (:data:`EVALUATE_EXTENSIONS`).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

import polars as pl

from rankframe._cli.common import (
    DEFAULT_MEASURES,
    EXTENSIONS,
    PROG,
    UsageError,
    _add_run_options,
    _check_outputs,
    _fail_without_common_queries,
    _files_in_measures_hint,
    _int_in,
    _output_format,
    _run_names,
    _some_run_empty,
    _storage_options,
    _warnings_to_stderr,
)
from rankframe._cli.writers import BINARY_FORMATS, WRITERS, _emit
from rankframe._engine.evaluate import evaluate
from rankframe._engine.options import TIE_POLICIES
from rankframe._measures._names import parse_measures

#: The extensions of ``-o PATH`` that ``evaluate`` writes, and the format each implies.
EVALUATE_EXTENSIONS = {ext: fmt for ext, fmt in EXTENSIONS.items() if fmt in WRITERS}
#: The most partitions ``--partitions N`` takes: each one reads the inputs once ('auto' takes
#: up to 256), so more only takes longer.
MAX_PARTITIONS = 65_536
#: The options that ``--engine duckdb`` does not implement: the flag of each, by its ``dest``.
_NOT_IN_DUCKDB = {
    "ties": "--ties", "score_dtype": "--score-dtype", "target": "--target", "prefs": "--prefs",
    "partitions": "--partitions",
}


def _partitions_arg(text: str) -> int | str:
    if text in ("files", "auto"):
        return text
    try:
        return _int_in(1, MAX_PARTITIONS)(text)
    except argparse.ArgumentTypeError:
        msg = (
            f"expected an int >= 1, 'auto' or 'files', got {text!r} (at most {MAX_PARTITIONS:,}: "
            "each partition reads the inputs once)"
        )
        raise argparse.ArgumentTypeError(msg) from None


def _check_engine(args: argparse.Namespace) -> None:
    """A usage error for the options that ``--engine duckdb`` does not implement."""
    if args.engine != "duckdb":
        return
    from rankframe._engine.in_duckdb import UNSUPPORTED

    given = [
        f"{flag} {getattr(args, dest)}" for dest, flag in _NOT_IN_DUCKDB.items()
        if getattr(args, dest) != UNSUPPORTED[dest]
    ]
    if given:
        msg = (
            f"--engine duckdb does not implement {', '.join(given)}: leave "
            f"{'it' if len(given) == 1 else 'them'} out, or evaluate with the default engine "
            "(--engine polars)."
        )
        raise UsageError(msg)


def _cmd_evaluate(args: argparse.Namespace) -> int:
    if args.no_qrels and args.target is None:
        msg = "--no-qrels needs --target COLUMN: the target column then judges the runs."
        raise UsageError(msg)
    no_qrels = args.no_qrels or args.prefs is not None
    if args.no_qrels and args.prefs is not None:
        msg = "--no-qrels and --prefs exclude each other: the target is a column or the preferences."
        raise UsageError(msg)
    if len(args.inputs) < (1 if no_qrels else 2):
        hint = _files_in_measures_hint(args)
        need = "at least one RUN file" if no_qrels else "a QRELS file and at least one RUN file"
        msg = f"evaluate needs {need}{hint}."
        raise UsageError(msg)
    fmt = _output_format(
        "evaluate", args.format, args.output, EVALUATE_EXTENSIONS, binary=BINARY_FORMATS
    )
    if fmt in BINARY_FORMATS and args.output in (None, "-"):
        msg = f"--format {fmt} writes a binary file: give its path with -o PATH."
        raise UsageError(msg)
    _check_engine(args)
    wanted = args.measures or list(DEFAULT_MEASURES)
    parsed = parse_measures(wanted)
    measures = [m for m in parsed if m.DTYPE == pl.Float64]
    textual = ", ".join(repr(m) for m in parsed if m.DTYPE != pl.Float64)
    if textual:
        note = f"{textual} is not a number; 'rankframe trec_eval -q' prints it per query."
        if not measures:
            raise UsageError(note)
        print(f"{PROG}: warning: {note} It is left out here.", file=sys.stderr)
    qrels, *runs = [None, *args.inputs] if no_qrels else args.inputs
    names = _run_names(runs)
    storage = _storage_options(args.storage_options)
    _check_outputs({"-o": args.output}, inputs=[*args.inputs, args.prefs])  # before the evaluation
    with _warnings_to_stderr() as caught:
        frame = evaluate(
            qrels, names, wanted, per_query=args.per_query, by=args.by,
            complete=args.complete, depth=args.depth, relevance_level=args.relevance_level,
            judged_only=args.judged_only, ties=args.ties, score_dtype=args.score_dtype,
            target=args.target, target_order=args.target_order, prefs=args.prefs,
            partitions=args.partitions, progress=args.progress, engine=args.engine,
            storage_options=storage,
        )
        _fail_without_common_queries(
            qrels, names, caught, some_run_empty=_some_run_empty(frame, names), storage_options=storage
        )
    _emit(WRITERS[fmt](frame, measures), args.output)
    return 0


def add_evaluate_parser(subparsers: Any) -> None:
    """Add the ``evaluate`` subcommand (its ``func`` and ``parser`` defaults) to ``subparsers``."""
    ev = subparsers.add_parser(
        "evaluate",
        help="evaluate one or several runs side by side",
        usage=(
            f"{PROG} evaluate QRELS RUN [RUN ...] [-m MEASURE [MEASURE ...]]\n"
            "         [--per-query] [--by COLUMN [COLUMN ...]] [--format {" + ",".join(WRITERS) + "}]\n"
            "         [-o PATH]"
            " [-c | --incomplete] [-M N] [-l N] [-J] [--ties {" + ",".join(TIE_POLICIES) + "}]\n"
            "         [--score-dtype {float64,float32}] [--engine {polars,duckdb}]"
        ),
        description=(
            "Evaluate runs against judgments. The table format puts the runs side by side (one "
            "column per run, named by its file name); csv, tsv, json, jsonl and parquet write "
            "the tidy frame: run, [query_id,] measure, value. Without -m: nDCG@10. With -o PATH "
            "the extension picks the format (" + ", ".join(EVALUATE_EXTENSIONS) + ") unless -f "
            "names it."
        ),
        epilog=(
            "examples:\n"
            f"  {PROG} evaluate qrels.txt bm25.txt splade.txt -m nDCG@10 AP R@1000\n"
            f"  {PROG} evaluate qrels.txt run.txt -m ndcg_cut.10 P_5 --per-query --format csv\n"
            f"  {PROG} evaluate qrels.parquet runs/*.parquet -m RR@10 -o out.parquet\n"
            f"  {PROG} evaluate qrels.parquet logs.parquet -m nDCG@10 RR --by locale date\n"
            f"  {PROG} evaluate qrels.txt run.txt -m KendallTauB CIndex AUC Footrule\n"
            f"  {PROG} evaluate --no-qrels ranked.parquet --target rank_b --target-order asc "
            "-m KendallTauB SpearmanRho\n"
            f"  {PROG} evaluate --prefs prefs.txt run.txt -m KendallDist Gamma CIndex\n"
            f"  {PROG} evaluate s3://bucket/qrels.txt s3://bucket/runs/ -m nDCG@10 "
            "--storage-option aws_region=us-east-1"
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ev.add_argument("inputs", nargs="*", metavar="FILE", help="QRELS, then one or more RUN files")
    ev.add_argument(
        "-q", "--per-query", dest="per_query", action="store_true",
        help="one row per query and measure instead of aggregates",
    )
    ev.add_argument(
        "--by", nargs="+", metavar="COLUMN",
        help="breakdown columns of the runs (e.g. locale date): each group evaluated and "
        "aggregated apart, with --per-query one row per group and query",
    )
    ev.add_argument(
        "-f", "--format", choices=list(WRITERS), default=None,
        help="output format (default: the extension of -o, else table)",
    )
    ev.add_argument(
        "-o", "--output", metavar="PATH",
        help="write to PATH instead of stdout, in the format its extension names: "
        + ", ".join(f"{ext} ({fmt})" for ext, fmt in EVALUATE_EXTENSIONS.items()),
    )
    _add_run_options(ev, complete=False)
    ev.add_argument(
        "--target", metavar="COLUMN",
        help="a run column holding the target ranking for the measures that compare two "
        "rankings (KendallTauB, SpearmanRho, Footrule, CIndex...); default: the grades",
    )
    ev.add_argument(
        "--target-order", choices=("desc", "asc"), default="desc",
        help="desc: larger target values rank first (a score); asc: smaller first (a rank)",
    )
    ev.add_argument(
        "--no-qrels", action="store_true",
        help="every FILE is a run, judged by its --target column only",
    )
    ev.add_argument(
        "--prefs", metavar="PREFS",
        help="preference pairs (trec_eval prefs file or a table) as the target of KendallDist, "
        "Gamma, SomersD, CIndex, PrefJaccard; every FILE is then a run",
    )
    ev.add_argument(
        "--partitions", metavar="N|auto|files", type=_partitions_arg, default="auto",
        help="evaluate query partition by partition (memory bounded by one): N hash buckets of "
        "the query ids, 'files' when no query spans two of the run's Parquet files, or 'auto' "
        "(default): one plan when it fits in the memory available, else the fewest buckets that fit",
    )
    ev.add_argument(
        "--progress", action="store_true", help="report each partition or run (or the one plan) on stderr",
    )
    ev.add_argument(
        "--engine", choices=("polars", "duckdb"), default="polars",
        help="polars (default), or duckdb: the compiled SQL query in embedded DuckDB (the duckdb "
        "extra), which reads Parquet itself and spills to disk",
    )
    ev.set_defaults(func=_cmd_evaluate, parser=ev)
