"""The ``rankframe trec_eval`` subcommand: a drop-in for trec_eval 10.0, same options, same output.

``rankframe trec_eval [-q] [-c] [-n] [-J] [-M N] [-l N] [-m MEASURE]... [-R FORMAT] [-Z ZSCORES]
QRELS RUN`` prints exactly what trec_eval 10.0 prints: the options are trec_eval's, the text
comes from :func:`rankframe._trec_eval.driver.trec_eval`.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from rankframe._cli.common import UsageError, _add_semantics, _warnings_to_stderr
from rankframe._cli.writers import _emit
from rankframe._errors import InputError
from rankframe._io.atomic import write_errors
from rankframe._io.trec_text import read_unsized
from rankframe._trec_eval.driver import REL_FORMATS, RESULTS_FORMATS, trec_eval
from rankframe._trec_eval.selection import PREFS_NICKNAMES, TREC_NICKNAMES


def _cmd_trec_eval(args: argparse.Namespace) -> int:
    if args.rel_format not in REL_FORMATS:
        msg = f"unknown -R format {args.rel_format!r}; supported: {', '.join(REL_FORMATS)}."
        raise UsageError(msg)
    if args.results_format not in RESULTS_FORMATS:
        msg = (
            f"unknown -T format {args.results_format!r}; supported: {', '.join(RESULTS_FORMATS)}."
        )
        raise UsageError(msg)
    if args.depth is not None and args.depth < 1:
        msg = f"-M must be a number of documents >= 1. Got {args.depth}."
        raise UsageError(msg)
    run = args.run
    with tempfile.TemporaryDirectory() as tmp, _warnings_to_stderr():
        if run == "-":  # trec_eval reads the results from stdin
            run = os.path.join(tmp, "stdin")
            with write_errors(run, "the copy of standard input; TMPDIR chooses its folder"):
                Path(run).write_bytes(read_unsized(sys.stdin.buffer, "standard input (-)", "run"))
        try:
            text = trec_eval(
                args.qrels, run, args.measures or (), per_query=args.query > 0,
                summary=args.summary, complete=args.complete > 0, depth=args.depth,
                relevance_level=args.relevance_level, judged_only=args.judged_only > 0,
                num_docs=args.num_docs, rel_format=args.rel_format, zscores=args.zscores,
            )
        except InputError as err:  # name standard input, not the copy of it
            if run == args.run:
                raise
            raise InputError(str(err).replace(run, "standard input (-)")) from None
    _emit(text, None)
    return 0


def add_trec_eval_parser(subparsers: Any) -> None:
    """Add the ``trec_eval`` subcommand (its ``func`` and ``parser`` defaults) to ``subparsers``."""
    te = subparsers.add_parser(
        "trec_eval",
        help="drop-in for trec_eval 10.0 (same options, byte-identical output)",
        description=(
            "Evaluate RUN against QRELS and print what trec_eval 10.0 prints. Without -m, "
            "the 'official' measures. Nicknames: "
            f"{', '.join(sorted(TREC_NICKNAMES))}; with -R prefs or -R qrels_prefs: "
            f"{', '.join(PREFS_NICKNAMES)}."
        ),
    )
    te.add_argument("qrels", metavar="QRELS", help="relevance judgments (TREC qrels)")
    te.add_argument("run", metavar="RUN", help="results (TREC run; '-' reads stdin)")
    te.add_argument(
        "-q", "--query_eval_wanted", dest="query", action="count", default=0,
        help="also print each query's values",
    )
    te.add_argument(
        "-m", "--measure", dest="measures", action="append", metavar="MEASURE",
        help="measure[.params] or nickname; repeatable (default: official)",
    )
    te.add_argument(
        "-n", "--nosummary", dest="summary", action="store_false",
        help="do not print the 'all' summary",
    )
    _add_semantics(te)
    te.add_argument(
        "-N", "--Number_docs_in_coll", dest="num_docs", type=int, metavar="N",
        help="number of documents in the collection (utility's fourth coefficient)",
    )
    te.add_argument(
        "-R", "--Rel_info_format", dest="rel_format", default="qrels", metavar="FORMAT",
        help=(
            "judgment format: qrels (default), qrels_jg (qid ujg docno rel, for -m qrels_jg), "
            "prefs (qid ujg ujsubg docno rel_level) or qrels_prefs (qrels read as preferences), "
            "both for -m all_prefs / -m prefs"
        ),
    )
    te.add_argument(
        "-T", "--Results_format", dest="results_format", default="trec_results",
        metavar="FORMAT", help="results format: trec_results (default)",
    )
    te.add_argument(
        "-Z", "--Zscore", dest="zscores", metavar="FILE",
        help="print z-scores against the means and standard deviations in FILE "
        "(lines: qid measure mean stddev; -1000000 where FILE has no entry)",
    )
    te.set_defaults(func=_cmd_trec_eval, parser=te)
