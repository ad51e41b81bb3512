"""The ``rankframe compare`` subcommand: paired significance tests between runs.

``rankframe compare QRELS RUN RUN... -m MEASURE...`` tests the runs against each other (see
:func:`rankframe.compare`) and prints a table (text, markdown, LaTeX), csv or json, optionally
with an HTML report and the plots.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from rankframe._cli.common import PROG, UsageError, _files_in_measures_hint, _run_names, _warnings_to_stderr
from rankframe._cli.writers import _emit
from rankframe._engine.options import TIE_POLICIES

COMPARE_FORMATS = ("table", "markdown", "latex", "csv", "json")


def _cmd_compare(args: argparse.Namespace) -> int:
    from rankframe._compare.comparison import compare

    if len(args.inputs) < 3:
        msg = f"compare needs a QRELS file and at least two RUN files{_files_in_measures_hint(args)}."
        raise UsageError(msg)
    qrels, *runs = args.inputs
    with _warnings_to_stderr():
        result = compare(
            qrels, _run_names(runs), args.measures or ["nDCG@10"], baseline=args.baseline,
            test=args.test, correction=args.correction, alpha=args.alpha,
            confidence=args.confidence, by=args.by, complete=not args.incomplete,
            n_permutations=args.permutations, n_bootstrap=args.bootstrap, seed=args.seed,
            progress=args.progress, depth=args.depth, relevance_level=args.relevance_level,
            judged_only=args.judged_only, ties=args.ties,
        )
        if args.format == "table":
            text = result.table("text", digits=args.digits) + "\n"
        elif args.format in ("markdown", "latex"):
            text = result.table(args.format, digits=args.digits) + "\n"
        elif args.format == "csv":
            text = result.to_csv() or ""
        else:
            text = (result.to_json() or "") + "\n"
        _emit(text, args.output)
        if args.html:
            result.to_html(args.html)
            print(f"{PROG}: wrote {args.html}", file=sys.stderr)
        if args.figures:
            paths = result.save_figures(args.figures)
            print(f"{PROG}: wrote {len(paths)} figure files to {args.figures}", file=sys.stderr)
    return 0


def add_compare_parser(subparsers: Any) -> None:
    """Add the ``compare`` subcommand to an argparse subparsers object.

    It sets the ``func`` (returns an exit status) and ``parser`` defaults that the ``rankframe``
    command runs.

    Parameters
    ----------
    subparsers
        What ``ArgumentParser.add_subparsers()`` returned.
    """
    from rankframe._compare.comparison import CORRECTIONS, TESTS

    cp = subparsers.add_parser(
        "compare",
        help="compare runs with paired significance tests (table, HTML report, plots)",
        description=(
            "Evaluate the runs per query and test each run against the baseline (or every pair) "
            "with a paired test, corrected for multiple comparisons. A run's cell in the table "
            "carries the letters of the runs it is significantly better than, then the "
            "confidence interval of its mean."
        ),
        epilog=(
            "examples:\n"
            f"  {PROG} compare qrels.txt bm25.txt splade.txt -m nDCG@10 AP --html report.html\n"
            f"  {PROG} compare qrels.txt a.txt b.txt c.txt -m AP --test permutation --correction bh\n"
            f"  {PROG} compare qrels.txt a.txt b.txt c.txt -m nDCG@10 --test tukey --format latex\n"
            f"  {PROG} compare qrels.parquet a.parquet b.parquet -m RR@10 --by locale --format csv"
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    cp.add_argument("inputs", nargs="*", metavar="FILE", help="QRELS, then two or more RUN files")
    cp.add_argument(
        "-m", "--measures", dest="measures", action="extend", nargs="+", metavar="MEASURE",
        help="measures to compare on (default nDCG@10)",
    )
    cp.add_argument("-b", "--baseline", metavar="RUN", help="compare every run with this one "
                    "(its file name); default: every pair")
    cp.add_argument("-t", "--test", choices=TESTS, default="t", help="paired test (default t)")
    cp.add_argument("--correction", choices=CORRECTIONS, default="holm",
                    help="multiple-comparison correction (default holm)")
    cp.add_argument("--alpha", type=float, default=0.05, help="significance level (default 0.05)")
    cp.add_argument("--confidence", type=float, default=0.95,
                    help="confidence level of the intervals (default 0.95)")
    cp.add_argument("--by", nargs="+", metavar="COLUMN", help="compare within breakdown groups")
    cp.add_argument("--permutations", type=int, default=10_000, metavar="B",
                    help="random sign flips of the permutation test (default 10000)")
    cp.add_argument("--bootstrap", type=int, default=10_000, metavar="B",
                    help="resamples of the bootstrap test (default 10000)")
    cp.add_argument("--seed", type=int, default=0, help="seed of the resampling tests (default 0)")
    cp.add_argument("--digits", type=int, default=4, help="digits shown in tables (default 4)")
    cp.add_argument("-f", "--format", choices=COMPARE_FORMATS, default="table",
                    help="output format (default: table)")
    cp.add_argument("-o", "--output", metavar="PATH", help="write to PATH instead of stdout")
    cp.add_argument("--html", metavar="PATH", help="also write a self-contained HTML report")
    cp.add_argument("--figures", metavar="DIR", help="also write every plot as PNG and SVG")
    cp.add_argument("--progress", action="store_true", help="progress bar while resampling")
    cp.add_argument("--incomplete", action="store_true",
                    help="do not score judged queries a run misses as 0 (they are left out)")
    cp.add_argument("-M", "--depth", type=int, metavar="N", help="keep the top N of each query")
    cp.add_argument("-l", "--relevance-level", dest="relevance_level", type=int, default=1,
                    metavar="N", help="minimum grade counted as relevant (default 1)")
    cp.add_argument("-J", "--judged-only", dest="judged_only", action="store_true",
                    help="drop unjudged documents from every ranking")
    cp.add_argument("--ties", choices=TIE_POLICIES, default="trec_eval", help="tie policy")
    cp.set_defaults(func=_cmd_compare, parser=cp)
