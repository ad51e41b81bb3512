"""The ``rankframe evaluate`` subcommand: runs side by side, as a table or a tidy frame.

``rankframe evaluate QRELS RUN [RUN...] [-m MEASURE...]`` evaluates the runs with
:func:`rankframe.evaluate` (nDCG@10 without ``-m``, as the library) and writes an aligned table
for people or the tidy frame (csv, tsv, json, jsonl, parquet) for pipelines, through
:data:`rankframe._cli.writers.WRITERS`. The format is ``-f``, or the one the extension of
``-o PATH`` names (:data:`EVALUATE_EXTENSIONS`).

Recommender evaluation passes the side inputs (``--interactions``, ``--items``,
``--reference-run``) and the conventions (``--empty-queries``, ``--aggregate``) to
:func:`rankframe.evaluate`; ``--no-qrels`` takes every FILE as a run when the measures read no
judgments (or ``--target`` judges them). Missing side inputs, and a measure whose side input is
not given, are usage errors that name the flag; population measures (one value per run) are
left out of ``-q`` with a warning in the command's terms.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING, Any

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
from rankframe._cli.writers import BINARY_FORMATS, WRITERS, _emit
from rankframe._engine.evaluate import evaluate
from rankframe._engine.options import TIE_POLICIES, confidence
from rankframe._errors import InputError, RankframeError
from rankframe._io.readers import read_judged
from rankframe._io.storage import file_uri_path, scheme
from rankframe._measures import REGISTRY
from rankframe._measures._names import parse_measures

if TYPE_CHECKING:
    from rankframe._measures import Measure

#: The extensions of ``-o PATH`` that ``evaluate`` writes, and the format each implies.
EVALUATE_EXTENSIONS = {ext: fmt for ext, fmt in EXTENSIONS.items() if fmt in WRITERS}
#: The most partitions ``--partitions N`` takes: each one reads the inputs once ('auto' takes
#: up to 256), so more only takes longer.
MAX_PARTITIONS = 65_536
#: The families that read no judgments (the help lists them from the registry), and those of
#: them that are population measures.
_RUN_ONLY = [n for n, cls in REGISTRY.items() if not cls.NEEDS_JUDGMENTS]
_POPULATION = [n for n in _RUN_ONLY if REGISTRY[n].KIND == "population"]


def _listed(names: list[str]) -> str:
    """``"A, B and C"``."""
    return ", ".join(names[:-1]) + " and " + names[-1] if len(names) > 1 else "".join(names)
#: The options that ``--engine duckdb`` does not implement: the flag of each, by its ``dest``.
_NOT_IN_DUCKDB = {
    "ties": "--ties", "score_dtype": "--score-dtype", "target": "--target", "prefs": "--prefs",
    "partitions": "--partitions", "empty_queries": "--empty-queries", "aggregate": "--aggregate",
    "dedupe": "--dedupe",
}
#: The side inputs of the recommender measures: the flag of each, by its ``dest`` (the role).
SIDE_INPUTS = {"interactions": "--interactions", "items": "--items", "reference": "--reference-run"}
#: What each side input holds, as a usage error says it.
_SIDE_WHAT = {
    "interactions": "the training history: user, item",
    "items": "the catalogue: item and its category columns",
    "reference": "another run",
}


def _fail_on_empty_judged(
    frame: pl.DataFrame, judged: str, args: argparse.Namespace, storage: dict[str, str] | None
) -> None:
    """Exit 1 (an :class:`InputError`) when the judged log holds no row, rather than print nan.

    Read again (its row count) only when the evaluation has no value but zeros or nan.
    """
    values = frame.get_column("value").fill_nan(None).drop_nulls() if "value" in frame.columns else None
    if values is not None and (values != 0).any():
        return
    columns = {**(_mapping(args.qrels_column, "--qrels-column") or {}),
               **(_mapping(args.run_column, "--run-column") or {})}
    try:
        rows = read_judged(judged, columns=columns, storage_options=storage).select(pl.len()).collect().item()
    except (RankframeError, pl.exceptions.PolarsError, OSError):
        return  # (the evaluation read it: not to be said here)
    if rows == 0:
        msg = (
            f"The judged input {judged} holds no rows: there is nothing to evaluate. Check the "
            "job that wrote it, or leave it out of the files given."
        )
        raise InputError(msg)


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


def _aggregate_arg(text: str) -> str:
    """``--aggregate``: ``mean``, ``median`` or ``ciNN`` (a confidence level in percent).

    Examples
    --------
    >>> _aggregate_arg("median"), _aggregate_arg("ci95"), _aggregate_arg("ci99.9")
    ('median', 'ci95', 'ci99.9')
    >>> _aggregate_arg("ci100")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: expected mean, median or ciNN with NN a confidence level ... got 'ci100'
    """
    if text in ("mean", "median") or confidence(text) is not None:
        return text
    msg = (
        "expected mean, median or ciNN with NN a confidence level in percent, above 0 and below "
        f"100 (e.g. ci95), got {text!r}"
    )
    raise argparse.ArgumentTypeError(msg)


def _check_side_inputs(args: argparse.Namespace) -> None:
    """A usage error, naming the flag, for a side input that is a local path to nothing.

    A path in object storage (``s3://...``) is left to the reader, and so is a glob that
    matches files; a folder is taken as the readers take it (Parquet files, a Delta table).
    """
    import glob

    for dest, flag in SIDE_INPUTS.items():
        path = getattr(args, dest)
        if path is None or scheme(file_uri_path(path)) is not None:
            continue
        local = file_uri_path(path)
        if any(c in local for c in "*?["):
            if not glob.glob(local, recursive=True):
                msg = f"{flag} {path}: no file matches this pattern (working directory: {os.getcwd()})."
                raise UsageError(msg)
        elif not os.path.exists(local):
            msg = f"{flag} {path}: no such file (working directory: {os.getcwd()})."
            raise UsageError(msg)


def _check_side_flags(args: argparse.Namespace, measures: list[Measure]) -> None:
    """A usage error for a measure whose side input was not given; a warning for one no measure reads.

    A measure that reads the catalogue (Gini, CatalogCoverage) takes ``--items``, else the items
    of ``--interactions`` (:meth:`Measure.side_inputs`, the planner's rule).
    """
    given = {dest for dest in SIDE_INPUTS if getattr(args, dest) is not None}
    read: set[str] = set()
    for m in measures:
        roles = m.side_inputs(given)
        read |= roles
        missing = [r for r in SIDE_INPUTS if r in roles - given]
        if missing:
            needs = " and ".join(f"{SIDE_INPUTS[r]} FILE ({_SIDE_WHAT[r]})" for r in missing)
            msg = f"{m!r} needs {needs}."
            raise UsageError(msg)
    unread = [SIDE_INPUTS[r] for r in SIDE_INPUTS if r in given - read]
    if unread:
        print(
            f"{PROG}: warning: no measure asked reads {', '.join(unread)}: "
            f"{'it is' if len(unread) == 1 else 'they are'} read for nothing.",
            file=sys.stderr,
        )


def _check_engine(args: argparse.Namespace) -> None:
    """A usage error for the options that ``--engine duckdb`` does not implement."""
    if args.engine != "duckdb":
        return
    from rankframe._engine.in_duckdb import UNSUPPORTED

    given = [
        f"{flag} {getattr(args, dest)}" for dest, flag in _NOT_IN_DUCKDB.items()
        if getattr(args, dest) != UNSUPPORTED[dest]
    ] + [f"{flag} {getattr(args, dest)}" for dest, flag in SIDE_INPUTS.items() if getattr(args, dest)]
    if given:
        msg = (
            f"--engine duckdb does not implement {', '.join(given)}: leave "
            f"{'it' if len(given) == 1 else 'them'} out, or evaluate with the default engine "
            "(--engine polars)."
        )
        raise UsageError(msg)


def _check_qrels(args: argparse.Namespace) -> tuple[bool, list[Measure]]:
    """Whether every FILE is a run (no qrels), and the measures; a usage error when that cannot be.

    Without ``--no-qrels`` (or ``--prefs``, which stands for the qrels) the first FILE is the
    qrels, whatever the measures. ``--no-qrels`` judges the runs by ``--target COLUMN``, or
    else takes only measures that read no judgments (coverage, novelty, diversity,
    popularity: their values come from the runs and the side inputs).
    """
    if args.no_qrels and args.prefs is not None:
        msg = "--no-qrels and --prefs exclude each other: the target is a column or the preferences."
        raise UsageError(msg)
    if args.judged is not None:
        if args.inputs or args.no_qrels or args.prefs is not None:
            given = " ".join([*args.inputs, *(["--no-qrels"] if args.no_qrels else []),
                              *(["--prefs"] if args.prefs is not None else [])])
            msg = (
                f"--judged FILE holds the scores and the labels (the run and its judgments): give "
                f"no QRELS or RUN files, --no-qrels or --prefs beside it (got {given})."
            )
            raise UsageError(msg)
        if args.partitions == "files":
            msg = (
                "--partitions files splits the RUN files of QRELS RUN (a query, or a --by group, "
                "in one file each); a --judged log is split by --partitions N (hash buckets of "
                "the query ids) or auto (the default)."
            )
            raise UsageError(msg)
        return False, parse_measures(args.measures or list(DEFAULT_MEASURES))
    no_qrels = args.no_qrels or args.prefs is not None
    need = "at least one RUN file" if no_qrels else "a QRELS file and at least one RUN file"
    enough = len(args.inputs) >= (1 if no_qrels else 2)
    hint = _files_in_measures_hint(args)
    if not enough and hint:  # before the measures: the files swallowed by -m are not measures
        msg = f"evaluate needs {need}{hint}."
        raise UsageError(msg)
    parsed = parse_measures(args.measures or list(DEFAULT_MEASURES))
    judging = [repr(m) for m in parsed if m.NEEDS_JUDGMENTS]
    if args.no_qrels and args.target is None and judging:
        msg = (
            f"--no-qrels needs --target COLUMN (the runs are then judged by it) when a measure "
            f"reads judgments, as {', '.join(judging)} {'does' if len(judging) == 1 else 'do'}: "
            "give --target COLUMN, a QRELS file, or only measures that read no judgments "
            "(Coverage, Novelty, CategoricalDiversity...)."
        )
        raise UsageError(msg)
    if not enough:
        if not no_qrels and not judging and len(args.inputs) == 1:
            hint = (
                f" ({', '.join(repr(m) for m in parsed)} read{'s' if len(parsed) == 1 else ''} no "
                f"judgments: give --no-qrels to evaluate {args.inputs[0]} as a run without qrels)"
            )
        msg = f"evaluate needs {need}{hint}."
        raise UsageError(msg)
    if args.no_qrels and args.empty_queries == "skip":
        msg = (
            "--empty-queries skip leaves out the queries without a relevant judgment: with "
            "--no-qrels that is every query. Leave --empty-queries out, or give a QRELS file."
        )
        raise UsageError(msg)
    if args.per_query and args.aggregate != "mean":
        msg = (
            f"--aggregate {args.aggregate} aggregates the per-query values, which -q/--per-query "
            "writes as they are: leave one of them out."
        )
        raise UsageError(msg)
    return no_qrels, parsed


def _cmd_evaluate(args: argparse.Namespace) -> int:
    no_qrels, parsed = _check_qrels(args)
    wanted = args.measures or list(DEFAULT_MEASURES)
    fmt = _output_format(
        "evaluate", args.format, args.output, EVALUATE_EXTENSIONS, binary=BINARY_FORMATS
    )
    if fmt in BINARY_FORMATS and args.output in (None, "-"):
        msg = f"--format {fmt} writes a binary file: give its path with -o PATH."
        raise UsageError(msg)
    _check_engine(args)
    _check_side_inputs(args)
    _check_side_flags(args, parsed)
    measures = [m for m in parsed if m.DTYPE == pl.Float64]
    textual = ", ".join(repr(m) for m in parsed if m.DTYPE != pl.Float64)
    if textual:
        note = f"{textual} is not a number; 'rankframe trec_eval -q' prints it per query."
        if not measures:
            raise UsageError(note)
        print(f"{PROG}: warning: {note} It is left out here.", file=sys.stderr)
    population = [repr(m) for m in measures if m.KIND == "population"]
    if args.per_query and population:
        # said here in the command's terms; the library's warning names per_query=True
        kind, it, its = (
            ("is a population measure", "it", "its value") if len(population) == 1
            else ("are population measures", "them", "their values")
        )
        note = (
            f"{', '.join(population)} {kind} (one value per run or --by group, not a mean over "
            f"queries): -q/--per-query leaves {it} out; evaluate without -q for {its}."
        )
        measures = [m for m in measures if m.KIND != "population"]
        if not measures:
            raise UsageError(note)
        print(f"{PROG}: warning: {note}", file=sys.stderr)
        wanted = measures
    if args.by and not args.per_query and not any(m.NAME == "NumQ" for m in measures):
        # the query count of each group, beside its means (the number they are means over)
        numq = parse_measures(["NumQ"])
        measures, wanted = [*measures, *numq], [*wanted, *numq]
    judged = judged_name = None
    if args.judged is not None:  # a log holding score and label: the run and its judgments
        ((judged_name, judged),) = _run_names([args.judged]).items()
        qrels, names = None, None
    else:
        qrels, *runs = [None, *args.inputs] if no_qrels else args.inputs
        names = _run_names(runs)
    storage = _storage_options(args.storage_options)
    sides = {dest: getattr(args, dest) for dest in SIDE_INPUTS}
    # before the evaluation
    inputs = [qrels, *(names or {}).values(), judged, args.prefs, *sides.values()]
    _check_outputs({"-o": args.output}, inputs=inputs)
    with _warnings_to_stderr() as caught:
        frame = evaluate(
            qrels, names, wanted, judged=judged, per_query=args.per_query, by=args.by,
            complete=args.complete, depth=args.depth, relevance_level=args.relevance_level,
            judged_only=args.judged_only, ties=args.ties, score_dtype=args.score_dtype,
            target=args.target, target_order=args.target_order, prefs=args.prefs,
            partitions=args.partitions, progress=_progress(args), engine=args.engine,
            storage_options=storage, empty_queries=args.empty_queries, aggregate=args.aggregate,
            qrels_columns=_mapping(args.qrels_column, "--qrels-column"),
            run_columns=_mapping(args.run_column, "--run-column"), dedupe=args.dedupe, **sides,
        )
        if names is not None:
            _fail_without_common_queries(
                qrels, names, caught, some_run_empty=_some_run_empty(frame, names),
                storage_options=storage,
                columns=(
                    _mapping(args.qrels_column, "--qrels-column"), _mapping(args.run_column, "--run-column")
                ),
            )
    if judged is not None:
        _fail_on_empty_judged(frame, judged, args, storage)
    if judged is not None and "run" not in frame.columns:
        # one run: named NAME=FILE, else by the file (a glob by its folder: _run_names)
        frame = frame.select(pl.lit(judged_name).alias("run"), pl.all())
    if args.wide and fmt != "table":  # one row per run (group, query), a column per measure
        frame = _wide(frame, measures)
    _emit(WRITERS[fmt](frame, measures), args.output)
    return 0


def _progress(args: argparse.Namespace) -> bool:
    """``--progress`` / ``--no-progress``, else on when stderr is a terminal."""
    return args.progress if args.progress is not None else sys.stderr.isatty()


def _wide(frame: pl.DataFrame, measures: list[Measure]) -> pl.DataFrame:
    """The long result as one row per (run, breakdowns..., query) and a column per measure.

    Counts (``NumQ``, ``NumRet``...: summed, whole numbers) are integer columns.
    """
    index = [c for c in frame.columns if c not in ("measure", "value")]
    order = frame["measure"].unique(maintain_order=True).to_list()
    if not index:  # (the command names every run: a 'run' column is always there)
        return pl.DataFrame({m: frame.filter(pl.col("measure") == m)["value"] for m in order})
    wide = frame.pivot(on="measure", index=index, values="value")
    counts = {repr(m) for m in measures if m.AGGREGATE == "sum"}
    whole = [m for m in order if m in counts and (wide[m].drop_nulls() % 1 == 0).all()]
    return wide.select(*index, *order).with_columns(pl.col(whole).cast(pl.Int64))


def add_evaluate_parser(subparsers: Any) -> None:
    """Add the ``evaluate`` subcommand (its ``func`` and ``parser`` defaults) to ``subparsers``."""
    ev = subparsers.add_parser(
        "evaluate",
        help="evaluate one or several runs side by side",
        usage=(
            f"{PROG} evaluate QRELS RUN [RUN ...] [-m MEASURE [MEASURE ...]]\n"
            f"       {PROG} evaluate --no-qrels RUN [RUN ...] [-m MEASURE [MEASURE ...]]\n"
            f"       {PROG} evaluate --judged FILE [-m MEASURE [MEASURE ...]]\n"
            "         [--interactions FILE] [--items FILE] [--reference-run FILE]\n"
            "         [--empty-queries {zero,skip}] [--aggregate {mean,median,ciNN}]\n"
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
            "names it.\n\n"
            "Recommender evaluation: users are queries and items documents (user_id and item_id "
            f"columns are read as query_id and doc_id). {_listed(_RUN_ONLY)} read no judgments, "
            "only the run and side inputs (--interactions, --items, --reference-run). When every "
            "measure is of them, --no-qrels evaluates the FILEs as runs, each on all its users; "
            "without --no-qrels the first FILE is always the QRELS, and only its queries are "
            f"evaluated. {_listed(_POPULATION)} are population measures (one value per run): "
            "--per-query leaves them out, with a warning."
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
            f"  {PROG} evaluate truth.tsv run.tsv --interactions train.tsv --items items.tsv "
            "-m nDCG@10 Coverage@10 Novelty@10 CategoricalDiversity@10\n"
            f"  {PROG} evaluate --no-qrels run.tsv --interactions train.tsv -m Coverage@10 Gini@10 "
            "Surprisal@10\n"
            f"  {PROG} evaluate truth.tsv run.tsv -m nDCG@10 RR@10 --empty-queries skip "
            "--aggregate median\n"
            f"  {PROG} evaluate s3://bucket/qrels.txt s3://bucket/runs/ -m nDCG@10 "
            "--storage-option aws_region=us-east-1"
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ev.add_argument(
        "inputs", nargs="*", metavar="FILE",
        help="QRELS, then one or more RUN files; with --no-qrels or --prefs, RUN files only",
    )
    ev.add_argument(
        "-q", "--per-query", dest="per_query", action="store_true",
        help="one row per query and measure instead of aggregates",
    )
    ev.add_argument(
        "--wide", action="store_true",
        help="csv, tsv, json, jsonl, parquet: one row per run (group, query), a column per measure",
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
    _add_run_options(ev)
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
        "--judged", metavar="FILE",
        help="one table of scores and labels (an impression log: query_id, doc_id, score, "
        "relevance; a null score: judged, not retrieved) instead of QRELS and RUN files",
    )
    ev.add_argument(
        "--no-qrels", action="store_true",
        help="every FILE is a run, without judgments: judged by its --target column, or (without "
        "--target) evaluated by measures that read no judgments only (Coverage, Novelty...)",
    )
    ev.add_argument(
        "--prefs", metavar="PREFS",
        help="preference pairs (trec_eval prefs file or a table) as the target of KendallDist, "
        "Gamma, SomersD, CIndex, PrefJaccard; every FILE is then a run",
    )
    side = ev.add_argument_group(
        "recommender inputs and conventions",
        "Side inputs are tables read as the qrels and runs are (CSV/TSV with a header, Parquet,\n"
        "object storage...). The options apply to every measure.",
    )
    side.add_argument(
        "--interactions", metavar="FILE",
        help="the training history: user_id (query_id), item_id (doc_id) and an optional weight "
        "column (weight, rating, count, clicks...; each row weighs 1 without one). Item "
        "popularity and the users' seen items come from it (Coverage, Novelty, Surprisal, "
        "SelfInformation, ARP, APLT...); its items are the catalogue without --items",
    )
    side.add_argument(
        "--items", metavar="FILE",
        help="the item catalogue: item_id (doc_id), an optional features column (a list of "
        "floats per item, as Parquet holds it: IntraListDiversity), an optional popularity "
        "column; every other column is a category (CategoricalDiversity)",
    )
    side.add_argument(
        "--reference-run", dest="reference", metavar="FILE",
        help="another run (user_id, item_id, score) that Unexpectedness compares each run with",
    )
    side.add_argument(
        "--empty-queries", choices=("zero", "skip"), default="zero",
        help="queries without a relevant judgment (none of grade >= -l): zero, evaluated and "
        "scored 0 (trec_eval; default), or skip, left out of the evaluation and its means "
        "(RePlay, Recommenders and TorchMetrics drop users without positives)",
    )
    side.add_argument(
        "--aggregate", type=_aggregate_arg, default="mean", metavar="{mean,median,ciNN}",
        help="how per-query values become one per run: mean (default; counts are summed, GMAP "
        "takes a geometric mean), median, or ciNN, the half-width of the NN%% normal confidence "
        "interval of the mean (e.g. ci95); population measures are one value already. Not "
        "with --per-query",
    )
    ev.add_argument(
        "--partitions", metavar="N|auto|files", type=_partitions_arg, default="auto",
        help="evaluate query partition by partition (memory bounded by one): N hash buckets of "
        "the query ids, 'files' when no query spans two of the run's Parquet files, or 'auto' "
        "(default): one plan when it fits in the memory available, else the fewest buckets that fit",
    )
    ev.add_argument(
        "--progress", action=argparse.BooleanOptionalAction, default=None,
        help="on stderr: the elapsed time while a plan runs, then each partition or run (or the "
        "one plan) when done (default: on when stderr is a terminal)",
    )
    ev.add_argument(
        "--engine", choices=("polars", "duckdb"), default="polars",
        help="polars (default), or duckdb: the compiled SQL query in embedded DuckDB (the duckdb "
        "extra), which reads Parquet itself and spills to disk",
    )
    ev.set_defaults(func=_cmd_evaluate, parser=ev)
