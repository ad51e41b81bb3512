"""The ``rankframe sql`` subcommand: the evaluation as one SQL query, printed for your engine.

``rankframe sql -m MEASURE... [--dialect D] [--qrels-table T] [--run-table T] [--per-query]
[--by COL...] [-c] [-M N] [-l N]`` prints :func:`rankframe.sql.query`'s text, ready to paste
into a warehouse console; ``--checks`` prints :func:`rankframe.sql.checks`'s instead (the input
checks the query trusts were run).
"""

from __future__ import annotations

import argparse
from typing import Any

from rankframe._cli.common import (
    DEFAULT_MEASURES,
    PROG,
    UsageError,
    _add_column_options,
    _check_outputs,
    _mapping,
    _positive_int,
)
from rankframe._cli.writers import _emit
from rankframe._errors import InputError
from rankframe._sql.dialects import table
from rankframe.sql import DIALECTS, checks, query


def _tables(args: argparse.Namespace) -> None:
    """A usage error naming the option when a table is not one in the dialect's syntax."""
    for option, spelling in (("--qrels-table", args.qrels_table), ("--run-table", args.run_table)):
        try:
            table(spelling, args.dialect, option)
        except InputError as err:
            raise UsageError(str(err)) from None


def _cmd_sql(args: argparse.Namespace) -> int:
    _tables(args)
    _check_outputs({"-o": args.output})
    tables = {
        "qrels": args.qrels_table, "run": args.run_table, "dialect": args.dialect,
        "by": args.by or (), "qrels_by": args.qrels_by or (),
        "qrels_columns": _mapping(args.qrels_column, "--qrels-column"),
        "run_columns": _mapping(args.run_column, "--run-column"),
    }
    if args.checks:
        if args.measures:
            msg = "--checks prints the input checks, for every measure: leave -m out."
            raise UsageError(msg)
        text = checks(**tables)
    else:
        text = query(
            args.measures or list(DEFAULT_MEASURES), per_query=args.per_query, complete=args.complete,
            depth=args.depth, relevance_level=args.relevance_level, judged_only=args.judged_only,
            **tables,
        )
    _emit(text.rstrip("\n") + ";\n", args.output)
    return 0


def add_sql_parser(subparsers: Any) -> None:
    """Add the ``sql`` subcommand (its ``func`` and ``parser`` defaults) to ``subparsers``."""
    p = subparsers.add_parser(
        "sql",
        help="print the evaluation as one SQL query for your engine",
        description=(
            "Print one SELECT statement that evaluates the measures over a qrels table "
            "(query_id, doc_id, relevance) and a run table (query_id, doc_id, score) in your "
            "SQL engine, with rankframe's semantics: the same query set, trec_eval's tie order, "
            "means as evaluate aggregates. The query trusts its input: run the --checks query "
            "first (duplicates, null or non-finite scores, fractional grades)."
        ),
        epilog=(
            "examples:\n"
            f"  {PROG} sql -m nDCG@10 AP P@10 --dialect bigquery --qrels-table ds.qrels "
            "--run-table ds.run\n"
            f"  {PROG} sql -m official -c --per-query --dialect spark\n"
            f"  {PROG} sql -m RR@10 --by locale day --run-column query_id=qid --run-column score=sim\n"
            f"  {PROG} sql --checks --dialect snowflake --run-table db.s.run"
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "-m", "--measures", dest="measures", action="extend", nargs="+", metavar="MEASURE",
        help=f"measures that compile to SQL (default {' '.join(DEFAULT_MEASURES)})",
    )
    p.add_argument("--dialect", choices=DIALECTS, default="duckdb", help="the SQL dialect (default duckdb)")
    p.add_argument(
        "--qrels-table", default="qrels", metavar="T",
        help="table, view or (subquery) of the judgments, in the dialect's own syntax",
    )
    p.add_argument(
        "--run-table", default="run", metavar="T",
        help="table, view or (subquery) of the run, in the dialect's own syntax",
    )
    p.add_argument(
        "-q", "--per-query", dest="per_query", action="store_true",
        help="one row per query and measure instead of aggregates",
    )
    p.add_argument("--by", nargs="+", metavar="COLUMN", help="breakdown columns of the run")
    p.add_argument(
        "--qrels-by", nargs="+", metavar="COLUMN", help="those of --by that the qrels table carries too",
    )
    _add_column_options(p)
    p.add_argument(
        "-c", "--complete", action="store_true", help="score judged queries missing from the run as 0",
    )
    p.add_argument("-M", "--depth", type=_positive_int, metavar="N", help="keep only the top N documents")
    p.add_argument(
        "-l", "--relevance-level", type=int, default=1, metavar="N",
        help="minimum grade counted as relevant by binary measures (default 1)",
    )
    p.add_argument(
        "-J", "--judged-only", action="store_true", help="drop unjudged documents from every ranking",
    )
    p.add_argument("--checks", action="store_true", help="print the input checks query instead")
    p.add_argument("-o", "--output", metavar="PATH", help="write the query to PATH instead of stdout")
    p.set_defaults(func=_cmd_sql, parser=p)
