"""The ``rankframe compare`` subcommand: paired significance tests between runs.

``rankframe compare QRELS RUN RUN... [-m MEASURE...]`` tests the runs against each other (see
:func:`rankframe.compare`; nDCG@10 without ``-m``, as ``evaluate`` and the library) and prints a
table (text, markdown, LaTeX), csv, json or the HTML report, optionally with an HTML report and
the plots besides. The format is ``-f``, or the one the extension of ``-o PATH`` names
(:data:`COMPARE_EXTENSIONS`). ``--baseline`` takes a run's name or its path.
"""

from __future__ import annotations

import argparse
import os
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
    _mapping,
    _output_format,
    _run_names,
    _some_run_empty,
    _storage_options,
    _warnings_to_stderr,
)
from rankframe._cli.writers import _emit
from rankframe._measures._names import parse_measures

COMPARE_FORMATS = ("table", "markdown", "latex", "csv", "json", "html")
#: The extensions of ``-o PATH`` that ``compare`` writes, and the format each implies.
COMPARE_EXTENSIONS = {ext: fmt for ext, fmt in EXTENSIONS.items() if fmt in COMPARE_FORMATS}
#: The most resamples of ``--permutations`` and ``--bootstrap``: p-values to 1e-8; more only
#: take longer (each resample is a pass over the queries).
MAX_RESAMPLES = 100_000_000
_digits = _int_in(0, 17, " (a float64 holds 17 significant digits)")
_resamples = _int_in(1, MAX_RESAMPLES, " (p-values to 1e-8; more only take longer)")
_seed = _int_in(0, None, " (the seed of the resampling tests)")


def _baseline_name(baseline: str | None, names: dict[str, str]) -> str | None:
    """The run that ``--baseline`` names: by its name, its path as given or the same file."""
    if baseline is None or baseline in names:
        return baseline
    for name, path in names.items():
        if path == baseline:
            return name
    if os.path.exists(baseline):
        for name, path in names.items():
            if os.path.exists(path) and os.path.samefile(path, baseline):
                return name
    runs = "; ".join(name if name == path else f"{name} ({path})" for name, path in names.items())
    msg = f"--baseline {baseline!r} is neither the name nor the path of a run; the runs are: {runs}."
    raise UsageError(msg)


def _refuse_side_inputs(measures: list[str]) -> None:
    """A UsageError naming the measures that read side inputs, which the command cannot take.

    (``compare()`` takes them as ``interactions=``, ``items=``, ``reference=``; the command has
    no flag for them, so the API's "needs interactions=..." would name nothing it accepts.)
    """
    reading = [repr(m) for m in parse_measures(measures) if m.SIDE_COLUMNS and m.KIND != "population"]
    if reading:
        names = ", ".join(reading)
        msg = (
            f"{names} read{'s' if len(reading) == 1 else ''} side inputs (the training history, "
            "the catalogue or a reference run), which rankframe compare does not take: compare "
            f"them in Python, rf.compare(qrels, runs, [...], interactions=..., items=..., "
            "reference=...), or evaluate them with rankframe evaluate --interactions/--items/"
            "--reference-run."
        )
        raise UsageError(msg)


def _cmd_compare(args: argparse.Namespace) -> int:
    from rankframe._compare.comparison import compare

    if len(args.inputs) < 3:
        msg = f"compare needs a QRELS file and at least two RUN files{_files_in_measures_hint(args)}."
        raise UsageError(msg)
    fmt = _output_format("compare", args.format, args.output, COMPARE_EXTENSIONS)
    _refuse_side_inputs(args.measures or list(DEFAULT_MEASURES))
    qrels, *runs = args.inputs
    names = _run_names(runs)
    baseline = _baseline_name(args.baseline, names)
    storage = _storage_options(args.storage_options)
    # before the evaluation and the tests, not after them
    _check_outputs(
        {"-o": args.output, "--html": args.html}, {"--figures": args.figures},
        inputs=[qrels, *names.values()],
    )
    with _warnings_to_stderr() as caught:
        result = compare(
            qrels, names, args.measures or list(DEFAULT_MEASURES), baseline=baseline,
            test=args.test, correction=args.correction, alpha=args.alpha,
            confidence=args.confidence, by=args.by, complete=args.complete,
            paired={"auto": None, "yes": True, "no": False}[args.paired],
            n_permutations=args.permutations, n_bootstrap=args.bootstrap, seed=args.seed,
            progress=args.progress, depth=args.depth, relevance_level=args.relevance_level,
            judged_only=args.judged_only, ties=args.ties, score_dtype=args.score_dtype,
            storage_options=storage, qrels_columns=_mapping(args.qrels_column, "--qrels-column"),
            run_columns=_mapping(args.run_column, "--run-column"), dedupe=args.dedupe,
        )
        scored = result.summary.filter(pl.col("n") > 0)
        _fail_without_common_queries(
            qrels, names, caught, some_run_empty=_some_run_empty(scored, names, "mean"),
            storage_options=storage,
            columns=(
                _mapping(args.qrels_column, "--qrels-column"), _mapping(args.run_column, "--run-column")
            ),
        )
        if fmt == "table":
            text = result.table("text", digits=args.digits) + "\n"
        elif fmt in ("markdown", "latex"):
            text = result.table(fmt, digits=args.digits) + "\n"
        elif fmt == "csv":
            text = result.to_csv() or ""
        elif fmt == "html":
            text = result.to_html() or ""
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
    """Add the ``compare`` subcommand (its ``func`` and ``parser`` defaults) to ``subparsers``."""
    from rankframe._compare import CORRECTIONS, TESTS  # (the statistics when the command runs)

    cp = subparsers.add_parser(
        "compare",
        help="compare runs with paired significance tests (table, HTML report, plots)",
        usage=(
            f"{PROG} compare QRELS RUN RUN [RUN ...] [-m MEASURE [MEASURE ...]] [-b RUN]\n"
            "         [-t {" + ",".join(TESTS) + "}] [--correction {" + ",".join(CORRECTIONS) + "}]\n"
            "         [--format {" + ",".join(COMPARE_FORMATS) + "}] [-o PATH] [--html PATH]\n"
            "         [--figures DIR] [-c | --incomplete] [-M N] [-l N] [-J] [...]"
        ),
        description=(
            "Evaluate the runs per query and test each run against the baseline (or every pair) "
            "with a paired test (unpaired where the runs' query sets differ: see --paired), "
            "corrected for multiple comparisons. A run's cell in the table "
            "carries the letters of the runs it is significantly better than, then the "
            "confidence interval of its mean. Without -m: nDCG@10. With -o PATH the extension "
            "picks the format (" + ", ".join(COMPARE_EXTENSIONS) + ") unless -f names it."
        ),
        epilog=(
            "examples:\n"
            f"  {PROG} compare qrels.txt bm25.txt splade.txt -m nDCG@10 AP --html report.html\n"
            f"  {PROG} compare qrels.txt runs/bm25.txt runs/splade.txt --baseline runs/bm25.txt -o table.md\n"
            f"  {PROG} compare qrels.txt a.txt b.txt c.txt -m AP --test permutation --correction bh\n"
            f"  {PROG} compare qrels.txt a.txt b.txt c.txt -m nDCG@10 --test tukey --format latex\n"
            f"  {PROG} compare qrels.parquet a.parquet b.parquet -m RR@10 --by locale --format csv"
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    cp.add_argument("inputs", nargs="*", metavar="FILE", help="QRELS, then two or more RUN files")
    cp.add_argument(
        "-b", "--baseline", metavar="RUN",
        help="compare every run with this one (its path as given, or its name in the table); "
        "default: every pair",
    )
    cp.add_argument("-t", "--test", choices=TESTS, default="t", help="paired test (default t)")
    cp.add_argument("--correction", choices=CORRECTIONS, default="holm",
                    help="multiple-comparison correction (default holm)")
    cp.add_argument("--alpha", type=float, default=0.05, help="significance level (default 0.05)")
    cp.add_argument("--confidence", type=float, default=0.95,
                    help="confidence level of the intervals (default 0.95)")
    cp.add_argument("--by", nargs="+", metavar="COLUMN", help="compare within breakdown groups")
    cp.add_argument("--permutations", type=_resamples, default=10_000, metavar="B",
                    help="random sign flips of the permutation test (default 10000)")
    cp.add_argument("--bootstrap", type=_resamples, default=10_000, metavar="B",
                    help="resamples of the bootstrap test (default 10000)")
    cp.add_argument("--seed", type=_seed, default=0, help="seed of the resampling tests (default 0)")
    cp.add_argument("--digits", type=_digits, default=4,
                    help="digits shown in tables, 0 to 17 (default 4)")
    cp.add_argument("-f", "--format", choices=COMPARE_FORMATS, default=None,
                    help="output format (default: the extension of -o, else table)")
    cp.add_argument(
        "-o", "--output", metavar="PATH",
        help="write to PATH instead of stdout, in the format its extension names: "
        + ", ".join(f"{ext} ({fmt})" for ext, fmt in COMPARE_EXTENSIONS.items()),
    )
    cp.add_argument("--html", metavar="PATH", help="also write a self-contained HTML report")
    cp.add_argument("--figures", metavar="DIR", help="also write every plot as PNG and SVG")
    cp.add_argument("--progress", action="store_true", help="progress bar while resampling")
    cp.add_argument(
        "--paired", choices=("auto", "yes", "no"), default="auto",
        help="runs whose query sets differ (without -c): compared unpaired (auto, the default: "
        "Welch's t, Mann-Whitney...), on the queries every run has (yes), or always unpaired (no)",
    )
    _add_run_options(cp)
    cp.set_defaults(func=_cmd_compare, parser=cp)
