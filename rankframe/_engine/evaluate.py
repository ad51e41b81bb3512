"""The public entry point: ``evaluate`` (and ``explain``), built on the planner."""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

import polars as pl

from rankframe._engine import memory
from rankframe._engine.checks import refuse_duplicates, scans_storage
from rankframe._engine.collect import _long, per_query_wide, warn_population_per_query, warn_skipped_groups
from rankframe._engine.collect import aggregate as _aggregate
from rankframe._engine.hits import JudgmentCache, hits_level
from rankframe._engine.memory_guard import check_text, converts_memory_error
from rankframe._engine.options import SMALL_ROWS, Prepared, Q
from rankframe._engine.plan import per_query_plan
from rankframe._engine.prepare import MeasureSpec, _describe, _named_runs, _qrels_keys, _read_run, prepare
from rankframe._engine.sides_plan import run_only
from rankframe._engine.subtopics_plan import evaluate_subtopics, is_subtopic
from rankframe._errors import InputError, warn
from rankframe._io import trec_text
from rankframe._io.atomic import atomic_path, check_destination
from rankframe._io.ecosystem import resolve, resolve_runs
from rankframe._io.sides import read_sides
from rankframe._io.storage import require_local_files, with_storage
from rankframe._measures._names import parse_measures

if TYPE_CHECKING:
    from rankframe._io.columns import Source
    from rankframe._measures import Measure

# text inputs are parsed whole: the readers ask the memory plan first (they cannot import it)
trec_text.before_parse = check_text


@converts_memory_error
def evaluate(
    qrels: Source | None = None,
    run: Source | None = None,
    measures: MeasureSpec | Iterable[MeasureSpec] = ("nDCG@10",),
    *,
    judged: Source | None = None,
    per_query: bool = False,
    by: Sequence[str] | None = None,
    complete: bool = False,
    depth: int | None = None,
    relevance_level: int = 1,
    ties: str = "trec_eval",
    score_dtype: str = "float64",
    judged_only: bool = False,
    target: str | None = None,
    target_order: str = "desc",
    prefs: Source | None = None,
    partitions: int | str | None = "auto",
    progress: bool = False,
    output: str | os.PathLike[str] | None = None,
    qrels_columns: Mapping[str, str] | None = None,
    run_columns: Mapping[str, str] | None = None,
    engine: str = "polars",
    storage_options: Mapping[str, str] | None = None,
    interactions: Source | None = None,
    items: Source | None = None,
    reference: Source | None = None,
    empty_queries: str = "zero",
    aggregate: str = "mean",
    dedupe: str | None = None,
) -> pl.DataFrame:
    """Evaluate one or several runs against judgments.

    Parameters
    ----------
    qrels
        Judgments: a path (TREC qrels, Parquet, CSV/TSV...), a Polars/pandas/Arrow frame with
        ``query_id, doc_id, relevance`` (well-known names such as ``qid``, ``docno``, ``rel``
        are recognised; others via ``qrels_columns``). For ndeval's intent-aware measures
        (``alpha_nDCG@20``, ``ERR_IA@20``...), diversity qrels: one row per (query, subtopic,
        doc) with a ``subtopic`` column (or ``iteration``, as ir_measures names the TREC qrels'
        second field, which is read as the subtopic from a TREC file); the other measures then
        read each document's largest grade over its subtopics.
    run
        A run (path or frame with ``query_id, doc_id, score``), or several: a list of sources or
        a dict ``{name: source}``; a frame with a ``run`` column holds several runs at once.
        The IR ecosystem's objects are read too (see :func:`read_qrels`, :func:`read_run`):
        pytrec_eval dicts (``{query: {doc: score}}`` is one run, told apart from ``{name: run}``
        by its values), ir_measures ``Qrel``/``ScoredDoc`` iterables, ranx ``Qrels``/``Run``
        (a list of ``Run`` objects is named by their names), PyTerrier frames, DuckDB relations
        and other Arrow C streams.
    measures
        Measure names in ir_measures (``nDCG@10``, ``P(rel=2)@5``), trec_eval (``ndcg_cut.10``,
        ``P_5``, ``official``) or ranx (``ndcg@10``) syntax, or measure objects (rankframe's
        or ir_measures').
    judged
        Instead of ``qrels`` and ``run``: one frame holding ``score`` and ``relevance``.
    per_query
        Return one row per (run, breakdowns..., query, measure) instead of aggregates.
    by
        Breakdown columns of the run (e.g. ``["date", "locale"]``): evaluated and aggregated
        separately. With the columns in the run only, a group's queries are the judged queries
        it holds (``complete`` scores a judged query no group holds 0 once, in a group of its
        own with null breakdown values); with the columns in the qrels too, each group's
        judgments and queries come from them (``complete`` scores a group's judged queries
        missing from its run 0).
    complete
        Score queries of the qrels that are missing from the run as 0 (trec_eval ``-c``).
    depth
        Keep only the top ``depth`` documents of each query after ordering (``-M``).
    relevance_level
        Minimum grade counted as relevant by binary measures (``-l``).
    ties
        ``"trec_eval"``: score descending, then doc id descending in byte order (default);
        ``"input"``: score descending, then the order of the input rows;
        ``"average"``: the expected value over every order of the tied documents (McSherry &
        Najork 2008, as scikit-learn's ``ndcg_score``), for the measures that are rank-weighted
        sums or order-free (P, R, nDCG, DCG-like hits, set measures, counts); others raise.
    score_dtype
        ``"float64"`` (trec_eval 10) or ``"float32"`` (trec_eval 9 / pytrec_eval, which store
        scores as float32, so that nearby scores tie).
    judged_only
        Drop unjudged documents from every ranking before evaluating (trec_eval ``-J``).
    target
        A column of the run (or judged frame) holding the *target ranking* that the measures
        comparing two rankings (``KendallTau``, ``SpearmanRho``, ``Footrule``, ``CIndex``...)
        compare the scores with: a second score, or a rank with ``target_order="asc"``. Without
        it their target is the relevance grades (items of one grade are tied). With it the
        qrels may be omitted: queries with target values are then the evaluated ones.
    target_order
        ``"desc"``: larger target values rank first (default); ``"asc"``: smaller first.
    prefs
        Instead of qrels: explicit preference pairs as the target, a trec_eval ``prefs`` file
        (``qid jg jsg docno rel_level``) or a table with those columns (``query_id, jg, jsg,
        doc_id, rel_level``; the groups optional). Within a judgment subgroup a document is
        preferred to those with a lower level (closed transitively across the subgroups of a
        group, as in trec_eval). The items are the documents the preferences name; the
        measures defined on a set of pairs accept it (``KendallDist``, ``Gamma``,
        ``SomersD``, ``CIndex``/``PairAcc``, ``PrefJaccard``). For trec_eval's own preference
        measures use ``rankframe trec_eval -R prefs``.
    partitions
        Evaluate query partition by query partition, so that peak memory is bounded by one
        partition instead of the inputs (the numbers are the same): ``N`` hash buckets of the
        query ids (each re-scans the inputs with a filter: N scans), or ``"files"`` when the
        run is a glob or folder of Parquet files in which no query spans two files (one scan).
        ``"auto"`` (default): one plan when its estimated working set (from the inputs' row
        counts and widths) fits in the memory the process may use (cgroup limit, ``ulimit -v``,
        available memory, ``RANKFRAME_MEMORY_LIMIT``), else the fewest hash partitions that
        fit (a note under ``progress``); an :class:`InputError` before anything runs when even
        256 do not. ``1`` or ``None``: one plan whatever the estimate (a warning when it
        exceeds the memory). Inputs read into memory (TREC text) are not bounded by it.
    progress
        Report each partition or run evaluated apart, or else the one plan when it is done
        (ranked rows, queries, seconds), on stderr; quiet by default.
    output
        A Parquet file to write the per-query values to as they are computed, in the
        ``per_query=True`` layout (with ``partitions``, rows are grouped by partition and
        sorted within each). Checked before the evaluation starts (its folder exists and takes
        a file; else :class:`rankframe.OutputError`); written atomically, keeping an existing
        file's mode and a symbolic link.
    qrels_columns, run_columns
        Column mappings, e.g. ``{"query_id": "qid", "score": "sim"}``.
    engine
        ``"polars"``: rankframe's lazy Polars plan (default). ``"duckdb"``: the query of
        :func:`rankframe.sql.query` run in embedded DuckDB (``pip install 'rankframe[duckdb]'``),
        which reads local Parquet paths itself and spills to disk past its memory limit; frames
        and paths in object storage (read by Polars) reach it through Arrow. The same numbers
        (to 1e-12: sums in another order), the same input errors and warnings (DuckDB runs
        rankframe's checks as a query first). It evaluates the measures that compile to SQL
        (:func:`rankframe.sql.compiles`), without ``ties``, ``score_dtype``, ``target``,
        ``prefs`` or ``partitions``.
    storage_options
        For inputs in object storage (``s3://``, ``gs://``, ``az://``, ``abfss://``, ``hf://``,
        ``https://``... paths of any format above, Delta tables, Iceberg metadata files): the
        options Polars reads them with, e.g. ``{"aws_access_key_id": ..., "aws_secret_access_key":
        ..., "aws_region": "us-east-1"}`` (and ``aws_endpoint_url`` for an S3-compatible store);
        the keys of ``polars.scan_parquet``'s ``storage_options``. Applied to ``qrels``, every
        run, ``judged`` and ``prefs``; without them, the environment's credentials. Such runs
        take ``partitions=N``, not ``"files"``.
    interactions
        For recommender measures (coverage, novelty, popularity): the training history, a
        table of ``query_id, doc_id`` (``user_id, item_id``...) with an optional ``weight``,
        read like the qrels (any source above; TREC qrels text too). Item popularity and each
        user's seen items come from it; its items are the catalogue when ``items`` is not
        given.
    items
        The item catalogue: ``doc_id`` (``item_id``), optional ``features`` (a list or array of
        floats per item, for :class:`~rankframe.measures.IntraListDiversity`), optional
        ``popularity``; every other column is a category (``CategoricalDiversity``).
    reference
        Another run (``query_id, doc_id, score``) that ``Unexpectedness`` compares with.
    empty_queries
        Queries without a relevant judgment (none of grade >= ``relevance_level``):
        ``"zero"``, evaluated and scored 0 by every measure (trec_eval, default), or
        ``"skip"``, left out of the evaluation and its means (TorchMetrics'
        ``empty_target_action="skip"``; RePlay and Microsoft Recommenders, which drop the users
        without positives; click logs' MRR over the clicked queries).
    aggregate
        How per-query values become one per run or group: ``"mean"`` (default; counts are
        summed, ``GMAP``-like measures take a geometric mean whatever this says),
        ``"median"`` (RePlay's ``Median``), or ``"ciNN"``, the half-width of the normal NN%
        confidence interval of the mean, ``z * sd / sqrt(n)`` (RePlay's
        ``ConfidenceInterval(alpha=0.NN)``; ``"ci95"``). Population measures are one value
        already.
    dedupe
        Duplicate (query, doc) rows of a run (logs often hold the same impression twice):
        ``None`` (default) refuses them, naming how many and the first ones with their rows,
        as trec_eval does (for a run read from storage, before the evaluation: a read of its id
        columns); ``"best"`` keeps the highest-scoring row of each (run, breakdowns..., query,
        doc), ``"first"`` the first one (in file order for text files, whose lines are known;
        else in the frame's order). Rows with a missing or non-finite score are kept, so that
        the checks name them. A judged frame is deduplicated whole: the row kept brings its
        own grade.

    Returns
    -------
    polars.DataFrame
        ``[run, breakdowns...,] measure, value`` (Float64), or with ``per_query=True``
        ``[run, breakdowns...,] query_id, measure, value``. ``measure`` holds canonical names.

    Notes
    -----
    Queries in both the qrels and the run are evaluated; run queries without judgments are
    ignored, qrels queries without results are skipped unless ``complete`` (a warning gives the
    counts). Aggregates are arithmetic means over evaluated queries, sums for counts, geometric
    means (floored at 1e-5) for ``GMAP``-like measures.

    Runs given apart (a list or dict) are evaluated one plan per run against judgments read
    once; a frame with a ``run`` column is one plan. Both give the numbers of evaluating each
    run alone, bit for bit (per-query sums are taken in a fixed order).

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> qrels = pl.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "c"],
    ...                       "relevance": [1, 0, 2]})
    >>> run = pl.DataFrame({"query_id": ["q1", "q1", "q2", "q2"], "doc_id": ["a", "b", "d", "c"],
    ...                     "score": [2.0, 1.0, 2.0, 1.0]})
    >>> rf.evaluate(qrels, run, ["P@1", "RR"])
    shape: (2, 2)
    ┌─────────┬───────┐
    │ measure ┆ value │
    │ ---     ┆ ---   │
    │ str     ┆ f64   │
    ╞═════════╪═══════╡
    │ P@1     ┆ 0.5   │
    │ RR      ┆ 0.75  │
    └─────────┴───────┘
    """
    memory.user_limit()  # a malformed RANKFRAME_MEMORY_LIMIT is refused before anything is read
    # paths in object storage carry their storage options from here on (rankframe._io.storage)
    if output is not None:  # a missing or read-only folder is said now, not after the evaluation
        check_destination(output)
    qrels, run, judged, prefs = (with_storage(x, storage_options) for x in (qrels, run, judged, prefs))
    sides = None
    if interactions is not None or items is not None or reference is not None:
        if engine != "polars":
            msg = (
                f"engine={engine!r} does not read side inputs (interactions, items, reference): "
                "evaluate with the default engine ('polars') for them."
            )
            raise ValueError(msg)
        sides = read_sides(interactions, items, reference, storage_options=storage_options)
    if partitions == "files" and judged is not None:
        msg = (
            "partitions='files' splits the run's files (qrels and a run); a judged frame is "
            "split by partitions=N (hash buckets of the query ids) or 'auto'."
        )
        raise InputError(msg)
    if partitions == "files":
        require_local_files(run)
    # the IR ecosystem's objects (pytrec_eval dicts, ir_measures records, ranx, Arrow streams)
    # read once, as frames that each pass of the plan can scan again
    qrels, run, judged = resolve(qrels, "qrels"), resolve_runs(run), resolve(judged, "judged")
    parsed = parse_measures(measures)
    if any(is_subtopic(m) for m in parsed):  # ndeval's measures, over qrels with subtopics
        done = evaluate_subtopics(
            qrels, run, parsed, evaluate, judged=judged, per_query=per_query, by=by,
            complete=complete, depth=depth, relevance_level=relevance_level, ties=ties,
            score_dtype=score_dtype, judged_only=judged_only, target=target, prefs=prefs,
            output=output, qrels_columns=qrels_columns, run_columns=run_columns, engine=engine,
            interactions=interactions, items=items, reference=reference,
            empty_queries=empty_queries, aggregate=aggregate, dedupe=dedupe,
        )
        if done is not None:
            return done
    if engine != "polars":
        return _other_engine(
            engine, qrels, run, measures, judged=judged, per_query=per_query, by=by, complete=complete,
            depth=depth, relevance_level=relevance_level, judged_only=judged_only, progress=progress,
            output=output, qrels_columns=qrels_columns, run_columns=run_columns,
            unsupported={
                "ties": ties, "score_dtype": score_dtype, "target": target, "prefs": prefs,
                "empty_queries": empty_queries, "aggregate": aggregate, "dedupe": dedupe,
                "partitions": "auto" if partitions is None else partitions,
            },
        )
    options: dict[str, Any] = {
        "complete": complete, "depth": depth, "relevance_level": relevance_level, "ties": ties,
        "score_dtype": score_dtype, "judged_only": judged_only, "target": target,
        "target_order": target_order, "empty_queries": empty_queries, "aggregate": aggregate,
        "dedupe": dedupe,
    }
    named = _named_runs(run) if judged is None else None
    read = None
    if partitions in (None, 1, "auto") and named is not None and len(named) > 1:
        # runs given apart are evaluated apart: read (parse) each once, for both uses below
        read = {name: _read_run(src, run_columns) for name, src in named}
        sources = {name: _describe(src, "run") for name, src in named}
    prep = prepare(
        qrels, run if read is None else read, parsed, judged=judged, by=by,
        qrels_columns=qrels_columns, run_columns=run_columns if read is None else None,
        prefs=prefs, validate=False, cast_grades=False, sides=sides, **options,
    )
    if read is not None:
        prep.run_sources, prep.run_where = sources, ", ".join(sources.values())
    inputs = [qrels, run] if judged is None else [judged]
    # every input a frame in memory (nothing else joined): their sizes bound the memory plan
    in_memory = prefs is None and sides is None and by is None
    in_memory = in_memory and all(isinstance(f, pl.DataFrame) for f in inputs)
    partitions, note = _memory_plan(
        prep, partitions, None if read is None else list(read.values()), inputs if in_memory else None
    )
    if in_memory and partitions is None:
        prep.engine = _engine(prep, inputs)
        if judged is None and read is None and prep.engine == "in-memory":
            prep.judgment_cache = kept_judgments(qrels, prep, qrels_columns)
    if progress and note:
        print(note, file=sys.stderr, flush=True)
    if partitions is None and scans_storage(prep.run):
        # a run read from storage as the plan runs: its duplicates said before it (a read of
        # its ids); the plan's own screen counts the judgments whole
        refuse_duplicates(prep, qrels=False)
    if read is not None and partitions is None:
        # several runs given apart: one plan per run against judgments read once (faster than
        # one plan over the stacked runs, and memory bounded by one run); when even one run's
        # plan does not fit, the memory plan's partitions take the runs stacked (below)
        from rankframe._engine.partition import evaluate_runs

        def prepare_run(name: str) -> Prepared:
            part = prepare(
                qrels_once, read[name], prep.measures, by=by, validate=False,
                cast_grades=False, sides=sides, constants=prep.constants, **options,
            )
            part.run_where = f"{sources[name]} (run {name!r})"
            return part

        qrels_once = prep.qrels.collect().lazy()
        wide = evaluate_runs(prep, list(read), prepare_run, progress=progress, output=output)
    elif partitions is None:
        wide = per_query_wide(prep, validate=True, progress=progress)
        if output is not None:
            with atomic_path(output) as tmp:  # complete at the destination, or absent
                _long(wide, prep.measures, [*prep.keys, Q]).write_parquet(tmp)
    else:
        from rankframe._engine.partition import evaluate_parts, run_files

        # one named run ({name: path}, as the CLI passes it) keeps its name in each file
        run_name, run_path = None, run
        if isinstance(run, Mapping) and len(run) == 1:
            run_name, run_path = next(iter(run.items()))

        def reprepare(path: str) -> Prepared:
            return prepare(
                prep.qrels, path if run_name is None else {run_name: path}, prep.measures, by=by,
                run_columns=run_columns, validate=False, cast_grades=False, sides=sides,
                constants=prep.constants, **options,
            )

        # duplicates are said before the partitions' evaluation, counted over the whole input
        if partitions == "files":
            files = [(reprepare(f).run, f) for f in run_files(run_path)]
            refuse_duplicates(prep, files=files)
        else:
            refuse_duplicates(prep)
        wide = evaluate_parts(
            prep, partitions, run=run_path, reprepare=reprepare, progress=progress, output=output
        )
    warn_skipped_groups(prep, wide)
    if per_query:
        warn_population_per_query(prep.measures)
        return _long(wide, prep.measures, [*prep.keys, Q])
    aggregated = _aggregate(
        wide, prep.measures, prep.keys, prep.constants, prep.opts.aggregate, lazy=True
    )
    return _long(aggregated, prep.measures, prep.keys)


def _engine(
    prep: Prepared, frames: list[pl.DataFrame], rows: int | None = None
) -> Literal["auto", "in-memory"]:
    """The Polars engine for one plan over ``frames`` in memory (:attr:`Prepared.engine`).

    The in-memory engine for small frames (:data:`SMALL_ROWS`) whose measures are never negative
    (:meth:`Measure.bounds`): it skips a ``+ 0.0`` that the streaming engine computes, so a
    negative value divided by an infinite denominator (a gain map's nDCG where the ideal DCG is
    0) stays ``-0.0`` there; a measure bounded below by 0 has no negative value to keep.
    ``rows``: the rows the plan reads, when not all of the frames' (a restricted call).
    """
    if (sum(f.height for f in frames) if rows is None else rows) > SMALL_ROWS:
        return "auto"
    bounded = all((b := m.bounds()) is not None and b[0] >= 0.0 for m in prep.measures)
    return "in-memory" if bounded else "auto"


#: The judgments of the last small evaluation in memory (a copy: a frame changed in place is
#: not them), the key of their preparation and their :class:`JudgmentCache`.
_KEPT: list[tuple[pl.DataFrame, tuple, JudgmentCache]] = []
_KEPT_LOCK = threading.Lock()


def kept_judgments(
    qrels: pl.DataFrame, prep: Prepared, columns: Mapping[str, str] | None
) -> JudgmentCache:
    """The hits plan's judgment-side frames kept for ``qrels``, when the last call had equal ones.

    A small evaluation repeated on the same judgments (a training loop's validation, a run
    compared with others one call at a time) computes their per-query statistics once, on the
    second call (the first computes them in its plan, as without a cache: a one-off call pays
    no separate collect); later plans read a frame of one row per query instead of grouping
    the judgments again.
    Only for frames in memory collected on the in-memory engine (``prep.engine``); reused
    when the judgments are equal, value for value (``DataFrame.equals``, ~20 us for 10k rows),
    with the same schema, column mapping, breakdown keys and prepared schema (ids cast to
    the run's dtype); otherwise a new cache replaces the kept one (one is kept).
    """
    key = (
        tuple(qrels.schema.items()), tuple(sorted((columns or {}).items())), tuple(prep.keys),
        tuple(prep.qrels.collect_schema().items()),
    )
    with _KEPT_LOCK:
        if _KEPT and _KEPT[0][1] == key and _KEPT[0][0].equals(qrels):
            _KEPT[0][2].fill = True  # seen twice: kept from now on
            return _KEPT[0][2]
        # a first sighting keeps nothing (its plan computes the statistics as without a cache)
        cache = JudgmentCache(prep.engine, fill=False)
        _KEPT[:] = [(qrels.clone(), key, cache)]
        return cache


@converts_memory_error
def per_query_frame(
    qrels: pl.DataFrame,
    run: pl.DataFrame,
    measures: list[Measure],
    *,
    kept: tuple[JudgmentCache, pl.Series] | None = None,
    **options: Any,
) -> pl.DataFrame:
    """:func:`evaluate`'s per-query values of two frames in memory, wide, without warnings.

    ``query_id`` and one Float64 column per measure (named ``repr(measure)``; null for a
    measure without a number per query), one row per evaluated query, sorted: the layout the
    drop-in modules read, without the long layout and its pivot back (~2 ms of a small call).
    ``options`` are :func:`evaluate`'s evaluation options (``complete``, ``ties``...); the
    memory plan is :func:`evaluate`'s, which evaluates the frames when they need partitions.

    ``kept``: ``(cache, queries)``: ``qrels`` are judgments kept between calls (a drop-in's),
    of which only those of ``queries`` are evaluated; the hits plan reads their per-query
    statistics from ``cache`` (computed once over every judgment, :class:`JudgmentCache`),
    the other plans the judgments of ``queries``.
    """
    memory.user_limit()  # a malformed RANKFRAME_MEMORY_LIMIT is refused before anything is read
    wide = None
    if not any(is_subtopic(m) for m in measures):  # ndeval's: evaluate's subtopic plan
        prep = prepare(qrels, run, measures, validate=False, cast_grades=False, **options)
        partitions, _ = _memory_plan(prep, "auto", None, [qrels, run])
        measures = prep.measures
        if partitions is None:  # one plan
            rows = None
            if kept is not None and kept[0].counts is not None:  # the call's judgments, not all
                rows = run.height + sum(kept[0].counts.get(q, 0) for q in kept[1].to_list())
            prep.engine = _engine(prep, [qrels, run], rows)
            if kept is not None:
                cache, queries = kept
                if hits_level(prep.measures, prep.opts, prep.pairs) is None or run_only(prep.measures):
                    prep.qrels = prep.qrels.filter(pl.col(Q).is_in(pl.lit(queries).implode()))
                else:  # the judgments whole, their statistics kept and read for ``queries``
                    prep.judgment_cache = cache.restricted(queries, prep.engine)
            wide = per_query_wide(prep, warn=False, validate=True)
    if wide is None and kept is not None:
        qrels = qrels.filter(pl.col(Q).is_in(pl.lit(kept[1]).implode()))
    if wide is None:  # query partitions or subtopics: evaluate's own path, its long layout back to wide
        long = evaluate(qrels, run, measures, per_query=True, **options)
        wide = long.pivot(on="measure", index=Q, values="value")
    names = [repr(m) for m in measures]
    numbers = {repr(m) for m in measures if m.DTYPE == pl.Float64 and m.KIND != "population"}
    return wide.select(Q, *[
        pl.col(n).cast(pl.Float64) if n in numbers and n in wide.columns
        else pl.lit(None, pl.Float64).alias(n) for n in names
    ])


def _memory_plan(
    prep: Prepared,
    partitions: int | str | None,
    runs: list[pl.LazyFrame] | None,
    frames: list[pl.DataFrame] | None = None,
) -> tuple[int | str | None, str | None]:
    """``partitions`` as the plan takes it (None: one plan), and a note for ``progress``.

    ``"auto"`` chooses from the estimated working set and the memory available
    (:mod:`rankframe._engine.memory`; ``frames``: the inputs, when all are in memory); an
    explicit number of partitions (one plan too) is checked with a warning.
    """
    from rankframe._engine.partition import is_count

    if partitions == "auto":
        n, note = memory.partitions_for(prep, runs, frames)
        return (None if n == 1 else n), note
    if partitions is None or partitions == 1 or is_count(partitions):
        n = 1 if partitions is None or partitions == 1 else int(partitions)
        warning = memory.unlikely_to_fit(prep, n)
        if warning is not None:
            warn(warning, ResourceWarning)
        return (None if n == 1 else n), None
    return partitions, None


def _other_engine(
    engine: str, *args: Any, unsupported: dict[str, Any], **kwargs: Any
) -> pl.DataFrame:
    """``evaluate`` by another engine than Polars (``"duckdb"``), after checking the options."""
    from rankframe._engine.in_duckdb import UNSUPPORTED, evaluate_duckdb

    if engine != "duckdb":
        msg = f"Unknown engine {engine!r}: 'polars' (default) or 'duckdb'."
        raise ValueError(msg)
    given = [f"{k}={v!r}" for k, v in unsupported.items() if v != UNSUPPORTED[k]]
    if given:
        msg = (
            f"engine='duckdb' does not implement {', '.join(given)}: evaluate with the default "
            "engine ('polars') for it."
            + (" DuckDB spills to disk by itself; partitions are not needed."
               if "partitions" in given[0] else "")
        )
        raise ValueError(msg)
    return evaluate_duckdb(*args, **kwargs)


@converts_memory_error
def explain(
    qrels: Source | None,
    run: Source,
    measures: MeasureSpec | Iterable[MeasureSpec],
    *,
    storage_options: Mapping[str, str] | None = None,
    **options: Any,
) -> str:
    """Return the optimised lazy plan that :func:`evaluate` runs for the per-query values.

    The inputs, ``storage_options`` and other options are :func:`evaluate`'s.

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> qrels = pl.DataFrame({"query_id": ["q"], "doc_id": ["a"], "relevance": [1]})
    >>> run = pl.DataFrame({"query_id": ["q"], "doc_id": ["a"], "score": [1.0]})
    >>> "AGGREGATE" in rf.explain(qrels, run, ["AP"])
    True
    """
    qrels, run = with_storage(qrels, storage_options), with_storage(run, storage_options)
    prep = prepare(resolve(qrels, "qrels"), resolve_runs(run), measures, validate=False, **options)
    return per_query_plan(
        prep.run, prep.qrels, prep.measures, prep.keys, prep.opts, _qrels_keys(prep),
        qrels_given=prep.qrels_given, pairs=prep.pairs,
    ).explain()
