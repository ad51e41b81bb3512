"""The ``rankframe`` command: a thin shell over the library.

Five subcommands:

* ``rankframe trec_eval [-q] [-c] [-n] [-J] [-M N] [-l N] [-m MEASURE]... [-R FORMAT]
  [-Z ZSCORES] QRELS RUN`` prints exactly what trec_eval 10.0 prints (see
  :mod:`rankframe._trec_eval.driver`);
* ``rankframe evaluate QRELS RUN [RUN...] -m MEASURE...`` compares runs side by side, as an
  aligned table for people or as a tidy frame (csv, tsv, json, jsonl, parquet) for pipelines;
* ``rankframe compare QRELS RUN RUN... -m MEASURE...`` tests the runs against each other (see
  :func:`rankframe.compare`);
* ``rankframe learn DATA --test FILE ...`` trains linear rankers per loss, selects each on
  validation and tests once (see :mod:`rankframe._cli.learn`);
* ``rankframe measures`` lists the registered measures.

Measure names are parsed by the library's parser and the list of measures comes from the
registry. Usage errors exit with status 2, input errors print ``rankframe: <message>`` and exit
with status 1; neither prints a traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import re
import sys
import tempfile
import warnings
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import polars as pl

from rankframe._cli.learn import _positive_int, add_learn_parser
from rankframe._engine.evaluate import evaluate
from rankframe._engine.plan import TIE_POLICIES
from rankframe._errors import MeasureError, RankframeError
from rankframe._measures import TREC_NAMES, Measure, families, load_all
from rankframe._measures._names import NICKNAMES, parse_measures
from rankframe._trec_eval.driver import (
    PREFS_NICKNAMES,
    REL_FORMATS,
    RESULTS_FORMATS,
    TREC_NICKNAMES,
    trec_eval,
)

PROG = "rankframe"


class UsageError(Exception):
    """A bad combination of command-line arguments (exit status 2)."""


# ----------------------------------------------------------------------------- writers
def _format_number(value: float | None, count: bool) -> str:
    if value is None:
        return "-"
    if count and value == value and abs(value) != float("inf"):
        return str(int(value))
    return f"{value:.4f}"


def _write_table(frame: pl.DataFrame, measures: list[Measure]) -> str:
    """Runs side by side: one row per measure (or query and measure), one column per run."""
    counts = {repr(m) for m in measures if m.AGGREGATE == "sum"}
    runs = list(dict.fromkeys(frame["run"].to_list()))
    index = [c for c in frame.columns if c not in ("run", "value")]
    order = {repr(m): i for i, m in enumerate(measures)}
    wide = (
        frame.pivot(on="run", index=index, values="value")
        .with_columns(pl.col("measure").replace_strict(order, default=len(order)).alias("_m"))
        .sort([*[c for c in index if c != "measure"], "_m"])
        .drop("_m")
    )
    for name in runs:
        if name not in wide.columns:
            wide = wide.with_columns(pl.lit(None, pl.Float64).alias(name))
    header = [*index, *runs]
    rows = []
    for row in wide.iter_rows(named=True):
        count = row["measure"] in counts
        rows.append(
            [str(row[c]) for c in index] + [_format_number(row[r], count) for r in runs]
        )
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(header)]
    n_left = len(index)

    def line(cells: list[str]) -> str:
        parts = [
            c.ljust(w) if i < n_left else c.rjust(w)
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        ]
        return "  ".join(parts).rstrip() + "\n"

    rule = ["-" * w for w in widths]
    return "".join([line(header), line(rule), *(line(r) for r in rows)])


def _write_parquet(frame: pl.DataFrame, measures: list[Measure]) -> bytes:
    buffer = io.BytesIO()
    frame.write_parquet(buffer)
    return buffer.getvalue()


#: ``--format`` -> writer of the result frame (text, or bytes for binary formats).
WRITERS: dict[str, Callable[[pl.DataFrame, list[Measure]], str | bytes]] = {
    "table": _write_table,
    "csv": lambda frame, _: frame.write_csv(),
    "tsv": lambda frame, _: frame.write_csv(separator="\t"),
    "json": lambda frame, _: frame.write_json() + "\n",
    "jsonl": lambda frame, _: frame.write_ndjson(),
    "parquet": _write_parquet,
}
BINARY_FORMATS = frozenset({"parquet"})


def _emit(data: str | bytes, output: str | None) -> None:
    if output is not None and output != "-":
        path = Path(output)
        if isinstance(data, bytes):
            path.write_bytes(data)
        else:
            path.write_text(data, encoding="utf-8")
        return
    if isinstance(data, bytes):
        sys.stdout.buffer.write(data)
    else:
        sys.stdout.write(data)
    sys.stdout.flush()


# ----------------------------------------------------------------------------- commands
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


def _partitions_arg(text: str) -> int | str:
    if text == "files":
        return text
    try:
        return _positive_int(text)
    except argparse.ArgumentTypeError:
        msg = f"expected an int >= 1 or 'files', got {text!r}"
        raise argparse.ArgumentTypeError(msg) from None


def _files_in_measures_hint(args: argparse.Namespace) -> str:
    """A hint when files were swallowed by ``-m`` (it takes every word after it)."""
    if any(os.path.exists(m) for m in args.measures or ()):
        return (
            " (-m takes every word after it as a measure: put -m after the files, "
            "or end its list with --)"
        )
    return ""


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
    if not args.measures:
        msg = "name at least one measure with -m, e.g. -m nDCG@10 AP R@1000 (see 'rankframe measures')."
        raise UsageError(msg)
    if args.format in BINARY_FORMATS and args.output in (None, "-"):
        msg = f"--format {args.format} writes a binary file: give its path with -o PATH."
        raise UsageError(msg)
    parsed = parse_measures(args.measures)
    measures = [m for m in parsed if m.DTYPE == pl.Float64]
    textual = ", ".join(repr(m) for m in parsed if m.DTYPE != pl.Float64)
    if textual:
        note = f"{textual} is not a number; 'rankframe trec_eval -q' prints it per query."
        if not measures:
            raise UsageError(note)
        print(f"{PROG}: warning: {note} It is left out here.", file=sys.stderr)
    qrels, *runs = [None, *args.inputs] if no_qrels else args.inputs
    with _warnings_to_stderr():
        frame = evaluate(
            qrels, _run_names(runs), args.measures, per_query=args.per_query,
            complete=args.complete, depth=args.depth, relevance_level=args.relevance_level,
            judged_only=args.judged_only, ties=args.ties, score_dtype=args.score_dtype,
            target=args.target, target_order=args.target_order, prefs=args.prefs,
            partitions=args.partitions, progress=args.progress,
        )
    _emit(WRITERS[args.format](frame, measures), args.output)
    return 0


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
            Path(run).write_bytes(sys.stdin.buffer.read())
        text = trec_eval(
            args.qrels, run, args.measures or (), per_query=args.query > 0,
            summary=args.summary, complete=args.complete > 0, depth=args.depth,
            relevance_level=args.relevance_level, judged_only=args.judged_only > 0,
            num_docs=args.num_docs, rel_format=args.rel_format, zscores=args.zscores,
        )
    _emit(text, None)
    return 0


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


# ----------------------------------------------------------------------------- parser
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


def build_parser() -> argparse.ArgumentParser:
    """Build the argument parser of the ``rankframe`` command."""
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Evaluate rankings exactly like trec_eval 10.0, with Polars.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    te = sub.add_parser(
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
    _add_semantics(te, trec=True)
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

    ev = sub.add_parser(
        "evaluate",
        help="evaluate one or several runs side by side",
        usage=(
            f"{PROG} evaluate QRELS RUN [RUN ...] -m MEASURE [MEASURE ...]\n"
            "         [--per-query] [--format {" + ",".join(WRITERS) + "}] [-o PATH]\n"
            "         [-c] [-M N] [-l N] [-J] [--ties {" + ",".join(TIE_POLICIES) + "}]\n"
            "         [--score-dtype {float64,float32}]"
        ),
        description=(
            "Evaluate runs against judgments. The table format puts the runs side by side (one "
            "column per run, named by its file name); csv, tsv, json, jsonl and parquet write "
            "the tidy frame: run, [query_id,] measure, value."
        ),
        epilog=(
            "examples:\n"
            f"  {PROG} evaluate qrels.txt bm25.txt splade.txt -m nDCG@10 AP R@1000\n"
            f"  {PROG} evaluate qrels.txt run.txt -m ndcg_cut.10 P_5 --per-query --format csv\n"
            f"  {PROG} evaluate qrels.parquet runs/*.parquet -m RR@10 --format parquet -o out.parquet\n"
            f"  {PROG} evaluate qrels.txt run.txt -m KendallTauB CIndex AUC Footrule\n"
            f"  {PROG} evaluate --no-qrels ranked.parquet --target rank_b --target-order asc "
            "-m KendallTauB SpearmanRho\n"
            f"  {PROG} evaluate --prefs prefs.txt run.txt -m KendallDist Gamma CIndex"
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ev.add_argument("inputs", nargs="*", metavar="FILE", help="QRELS, then one or more RUN files")
    ev.add_argument(
        "-m", "--measures", dest="measures", action="extend", nargs="+", metavar="MEASURE",
        help="measures in any dialect: nDCG@10, P(rel=2)@5, ndcg_cut.10, map, official, ndcg@10",
    )
    ev.add_argument(
        "-q", "--per-query", dest="per_query", action="store_true",
        help="one row per query and measure instead of aggregates",
    )
    ev.add_argument(
        "-f", "--format", choices=list(WRITERS), default="table",
        help="output format (default: table)",
    )
    ev.add_argument("-o", "--output", metavar="PATH", help="write to PATH instead of stdout")
    _add_semantics(ev, trec=False)
    ev.add_argument(
        "--ties", choices=TIE_POLICIES, default="trec_eval",
        help="tie policy (default trec_eval: score desc, then doc id desc)",
    )
    ev.add_argument(
        "--score-dtype", choices=("float64", "float32"), default="float64",
        help="float32 reproduces trec_eval 9 / pytrec_eval ties (default float64)",
    )
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
        "--partitions", metavar="N|files", type=_partitions_arg,
        help="evaluate query partition by partition (memory bounded by one): N hash buckets of "
        "the query ids, or 'files' when no query spans two of the run's Parquet files",
    )
    ev.add_argument(
        "--progress", action="store_true", help="report each partition or run (or the one plan) on stderr",
    )
    ev.set_defaults(func=_cmd_evaluate, parser=ev)

    _add_compare(sub)
    add_learn_parser(sub)

    ms = sub.add_parser("measures", help="list the measures rankframe knows")
    ms.set_defaults(func=_cmd_measures, parser=ms)
    return parser


def _add_compare(sub: Any) -> None:
    from rankframe._compare.comparison import CORRECTIONS, TESTS

    cp = sub.add_parser(
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


# ----------------------------------------------------------------------------- entry point
def _exit_code(exc: SystemExit) -> int:
    if exc.code is None:
        return 0
    return exc.code if isinstance(exc.code, int) else 1


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``rankframe`` command and return its exit status.

    Parameters
    ----------
    argv
        Arguments without the program name; ``sys.argv[1:]`` when None.

    Returns
    -------
    int
        0 on success, 1 for an input error, 2 for a usage error.
    """
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return _exit_code(exc)
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        return int(args.func(args))
    except (UsageError, MeasureError) as err:
        args.parser.print_usage(sys.stderr)
        print(f"{args.parser.prog}: error: {err}", file=sys.stderr)
        return 2
    except ImportError as err:  # an optional extra is missing (the message says which)
        print(f"{PROG}: {err}", file=sys.stderr)
        return 1
    except (RankframeError, pl.exceptions.PolarsError, OSError) as err:
        if isinstance(err, BrokenPipeError):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())  # silence the flush at exit
            return 1
        print(f"{PROG}: {err}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
