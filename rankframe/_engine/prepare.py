"""Inputs read, mapped, aligned and validated; measures and options parsed (:class:`Prepared`)."""

from __future__ import annotations

import difflib
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import polars as pl

from rankframe._engine.checks import _check_dtypes, _check_target, _validate
from rankframe._engine.options import REL, D, Options, Prepared, Q, S
from rankframe._engine.pairs import preference_pairs
from rankframe._engine.sides_plan import (
    check_sides,
    no_judgments_needed,
    population_ctx,
    refuse_qrels_free,
    run_only,
)
from rankframe._errors import InputError, warn
from rankframe._io.columns import FILE, LINE, Source, cast_id, check_mapping, describe, own_columns
from rankframe._io.prefs import read_prefs_source
from rankframe._io.readers import read_judged, read_qrels, read_run
from rankframe._io.sides import ROLES, Sides
from rankframe._measures import Measure, PopulationCtx
from rankframe._measures._names import parse_measures

MeasureSpec = str | Measure


def _describe(source: Any, role: str = "input") -> str:
    return describe(source, role)


def _named_runs(run: Any) -> list[tuple[str, Any]] | None:
    """``(name, source)`` of each run of a dict or list of runs; ``None`` for a single run."""
    if isinstance(run, Mapping):
        return [(str(k), v) for k, v in run.items()]
    if not isinstance(run, list | tuple):
        return None
    items = []
    for i, src in enumerate(run):
        name = Path(os.fspath(src)).name if isinstance(src, str | os.PathLike) else f"run_{i}"
        items.append((name, src))
    names = [n for n, _ in items]
    if len(set(names)) != len(names):
        items = [(f"{n}#{i}", s) for i, (n, s) in enumerate(items)]
    return items


def _read_run(source: Source, columns: Mapping[str, str] | None) -> pl.LazyFrame:
    """One run, its columns mapped and their dtypes checked (TREC text is parsed here)."""
    return _check_dtypes(read_run(source, columns=columns), "run", _describe(source, "run"))


def _runs_input(
    run: Any, columns: Mapping[str, str] | None
) -> tuple[pl.LazyFrame, str, dict[str, str]]:
    """Read one run, or several (a list or a dict name -> source) stacked with a ``run`` column.

    Returns the frame, a description of the source(s) and, for several runs, run name -> source.
    """
    items = _named_runs(run)
    if items is None:
        where = _describe(run, "run")
        return _check_dtypes(read_run(run, columns=columns), "run", where), where, {}
    if not items:
        msg = "The run list is empty; pass at least one run (a path or a frame)."
        raise InputError(msg)
    frames = []
    for name, src in items:
        lf = _read_run(src, columns)
        tag = pl.lit(name)
        if "run" in lf.collect_schema().names():  # a frame of several runs: keep their names
            tag = pl.concat_str([tag, pl.lit("/"), pl.col("run").cast(pl.String)])
        frames.append(lf.with_columns(tag.alias("run")))
    sources = {name: _describe(src, "run") for name, src in items}
    stacked = pl.concat(_align_ids(*frames), how="diagonal_relaxed")
    return stacked, ", ".join(sources.values()), sources


def _align_ids(*frames: pl.LazyFrame) -> tuple[pl.LazyFrame, ...]:
    """Give ids one dtype in every frame: Int64 if all are integers, Binary if any holds bytes, else String.

    Integers stay integers (faster to rank and join); a String on any side turns the others'
    integers into their decimal text, which is also what trec_eval compares. Ids read as
    bytes (Binary: a TREC file that is not UTF-8, a Parquet binary column) make the others'
    ids bytes too: text as its UTF-8 bytes, integers as the bytes of their decimal text, so
    that equal bytes match, as in trec_eval.
    """
    schemas = [f.collect_schema() for f in frames]
    out = list(frames)
    for col in (Q, D):
        dtypes = [s[col] for s in schemas if col in s]
        if len(set(dtypes)) <= 1:
            continue
        ints = all(dt.is_integer() for dt in dtypes) and pl.UInt64 not in dtypes
        target = pl.Int64 if ints else pl.Binary if pl.Binary in dtypes else pl.String
        out = [
            f.with_columns(cast_id(col, s[col], target)) if col in s and s[col] != target else f
            for f, s in zip(out, schemas, strict=True)
        ]
    return tuple(out)


def _warn_unmatched_side_ids(
    run: pl.LazyFrame, sides: Sides, cast: Mapping[str, Mapping[str, pl.DataType]], run_schema: pl.Schema
) -> None:
    """Warn of a side input whose ids, cast to the run's dtype, match none of the run's.

    Only for the columns ``cast`` names (their dtypes differed: integers and zero-padded text
    never match after the cast, as qrels and runs do not), so that inputs of one dtype cost
    no scan.
    """
    for role, columns in cast.items():
        side = getattr(sides, role)
        for col in columns:
            if run.select(col).join(side.select(col).unique(), on=col, how="semi").head(1).collect().height:
                continue
            what = "user" if col == Q else "item"
            warn(
                f"{sides.where[role]}: none of its {what} ids is among the run's (read as "
                f"{cast[role][col]} there, as {run_schema[col]} in the run): check that they "
                "match (e.g. '001' vs 1)."
            )


#: A catalogue of more items than this whose category column holds a distinct value per item
#: is warned of (:func:`_warn_identifying_categories`).
_FEW_ITEMS = 10


def _warn_identifying_categories(sides: Sides, measures: list[Measure]) -> None:
    """Warn of catalogue columns that name each item apart, when a measure reads categories.

    Every catalogue column beside the id, ``features`` and ``popularity`` is a category; a
    title or a URL then makes each item a category of its own (MovieLens' movies table).
    """
    columns = sides.constants.get("one_per_item") or ()
    n = sides.constants.get("n_catalogue") or 0
    if not columns or n <= _FEW_ITEMS or not any("category" in m.SIDE_COLUMNS for m in measures):
        return
    for col in columns:
        warn(
            f"{sides.where['items']}: the column {col!r} has a different value for each of its "
            f"{n:,} items; as a category column (every column beside the item id, 'features' and "
            f"'popularity' is one) it makes each item a category of its own for "
            f"CategoricalDiversity. Drop it if it is not a category (e.g. df.drop({col!r}))."
        )


#: The side columns that sum the history's weights (item popularity in interactions).
_WEIGHTED = frozenset({"item_interactions", "n_interactions", "item_head"})


def _warn_weight_by_another_name(sides: Sides, measures: list[Measure]) -> None:
    """Warn when a history column not named ``weight`` (``rating``, ``count``...) weighs the rows.

    For the measures that sum weights only (ARP, APLT, SelfInformation): RePlay and
    Recommenders count rows, and their train frames carry a ``rating`` column.
    """
    col = sides.constants.get("weight_column")
    if col is None or col.lower() == "weight":
        return
    reading = [repr(m) for m in measures if m.SIDE_COLUMNS & _WEIGHTED]
    if reading:
        warn(
            f"{sides.where['interactions']}: the column {col!r} is read as each row's weight, "
            f"which {', '.join(reading)} sum{'s' if len(reading) == 1 else ''} as item "
            "popularity (RePlay and Recommenders count rows). Drop it to count rows, or name it "
            "'weight' to say so."
        )


def judged_columns(
    qrels_columns: Mapping[str, str] | None, run_columns: Mapping[str, str] | None
) -> dict[str, str]:
    """The column mapping of a judged frame: both mappings read one frame, so they must agree.

    Examples
    --------
    >>> judged_columns({"relevance": "click"}, {"score": "model_score"})
    {'relevance': 'click', 'score': 'model_score'}
    >>> judged_columns({"query_id": "session"}, {"query_id": "user"})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    rankframe._errors.InputError: The judged frame's query_id is mapped twice: to 'session' by ...
    """
    for mapping, name in ((qrels_columns, "qrels_columns"), (run_columns, "run_columns")):
        if mapping is not None and not isinstance(mapping, Mapping):
            check_mapping(mapping, name)  # (raises: not a dict; keys are checked as it is read)
    qrels_columns, run_columns = dict(qrels_columns or {}), dict(run_columns or {})
    for key, value in qrels_columns.items():
        other = run_columns.get(key, value)
        if other != value:
            msg = (
                f"The judged frame's {key} is mapped twice: to {value!r} by the qrels mapping "
                f"(qrels_columns, --qrels-column) and to {other!r} by the run mapping (run_columns, "
                "--run-column). A judged frame is one table: map its column once."
            )
            raise InputError(msg)
    return {**qrels_columns, **run_columns}


def prepare(
    qrels: Source | None,
    run: Source | None,
    measures: MeasureSpec | Iterable[MeasureSpec] | None,
    *,
    judged: Source | None = None,
    by: Sequence[str] | None = None,
    qrels_columns: Mapping[str, str] | None = None,
    run_columns: Mapping[str, str] | None = None,
    validate: bool = True,
    prefs: Source | None = None,
    cast_grades: bool = True,
    sides: Sides | None = None,
    constants: PopulationCtx | None = None,
    **options: Any,
) -> Prepared:
    """Read, map, align and validate inputs; parse measures and options.

    ``cast_grades=False`` leaves the grades' dtype for a later :func:`_validate` (which refuses
    fractional grades) and :func:`_cast_grades`. ``constants``: the side inputs' constants when
    a first ``prepare`` of the same evaluation counted them (runs evaluated apart, partitions),
    instead of a scan of the history each time.
    """
    opts = Options(**options)
    parsed = [] if measures is None else parse_measures(measures)
    sources: dict[str, str] = {}
    prefs_lf = None
    if prefs is not None:
        if qrels is not None or judged is not None or opts.target is not None:
            msg = (
                "prefs=... is the target of the comparison; pass it instead of qrels, a judged "
                "frame or a target column, not with them."
            )
            raise InputError(msg)
        if run is None:
            msg = "evaluate(prefs=...) needs a run to compare with the preferences."
            raise InputError(msg)
        prefs_lf = read_prefs_source(prefs)
        run_lf, run_where, sources = _runs_input(run, run_columns)
        qrels_where = _describe(prefs, "prefs")
        qrels_lf = prefs_lf.select(Q, D).unique().with_columns(pl.lit(0, pl.Int64).alias(REL))
    elif judged is not None:
        if qrels is not None or run is not None:
            msg = "Pass either qrels and run, or judged=..., not both."
            raise InputError(msg)
        run_where = qrels_where = _describe(judged, "judged")
        frame = read_judged(judged, columns=judged_columns(qrels_columns, run_columns))
        frame = _check_dtypes(frame, "judged", run_where)
        if opts.dedupe is not None:  # one row per impression: its score and its label, together
            names = frame.collect_schema().names()
            wanted = ["run", *([] if isinstance(by, str) else by or ())]
            frame = _dedupe(frame, [k for k in wanted if k in names], opts.dedupe)
        run_lf = frame.filter(pl.col(S).is_not_null())
        qrels_lf = frame.filter(pl.col(REL).is_not_null())
    elif qrels is None and run is not None and opts.target is None and no_judgments_needed(parsed):
        # coverage, novelty, diversity...: the run's rankings and the side inputs alone
        run_lf, run_where, sources = _runs_input(run, run_columns)
        qrels_where = "no qrels (measures of the run alone)"
        schema = run_lf.collect_schema()
        qrels_lf = pl.LazyFrame(schema={Q: schema[Q], D: schema[D], REL: pl.Int64})
    else:
        if qrels is None and run is not None and opts.target is None and parsed:
            refuse_qrels_free(parsed)
        if run is None or (qrels is None and opts.target is None):
            msg = (
                "evaluate needs qrels and a run (or a judged frame: evaluate(judged=df, ...), "
                "or a run with a target column: evaluate(run=df, target='column', ...))."
            )
            raise InputError(msg)
        run_lf, run_where, sources = _runs_input(run, run_columns)
        if qrels is None:
            qrels_where = "no qrels (target column)"
            schema = run_lf.collect_schema()
            qrels_lf = pl.LazyFrame(schema={Q: schema[Q], D: schema[D], REL: pl.Int64})
        else:
            qrels_where = _describe(qrels, "qrels")
            qrels_lf = _check_dtypes(read_qrels(qrels, columns=qrels_columns), "qrels", qrels_where)
    given = [] if sides is None else [r for r in ROLES if getattr(sides, r) is not None]
    side_frames = [getattr(sides, r) for r in given]
    run_schema = run_lf.collect_schema()
    cast = {  # the side inputs' id columns whose dtype is not the run's (cast below): their dtype
        r: {c: s[c] for c in (Q, D) if c in (s := f.collect_schema()) and s[c] != run_schema[c]}
        for r, f in zip(given, side_frames, strict=True)
    }
    if prefs_lf is not None:
        run_lf, qrels_lf, prefs_lf, *side_frames = _align_ids(run_lf, qrels_lf, prefs_lf, *side_frames)
    else:
        run_lf, qrels_lf, *side_frames = _align_ids(run_lf, qrels_lf, *side_frames)
    if sides is not None:  # ids of one dtype in every input, the side inputs' too
        sides = replace(sides, **dict(zip(given, side_frames, strict=True)))
        if constants is None:  # (the first preparation of the evaluation: the whole run)
            _warn_unmatched_side_ids(run_lf, sides, cast, run_schema)
            _warn_identifying_categories(sides, parsed)
            _warn_weight_by_another_name(sides, parsed)
    names = run_lf.collect_schema().names()
    keys = ["run"] if "run" in names else []
    if isinstance(by, str):  # by="locale" would be read as the columns 'l', 'o', 'c'...
        msg = f"by=... takes a list of column names, e.g. by=[{by!r}]. Got {by!r} (str)."
        raise InputError(msg)
    for col in by or ():
        if col in (Q, D, S, REL, "measure", "value"):  # as rankframe.sql says
            msg = (
                f"The breakdown column {col!r} (by=...) is a column of the result or of the "
                "evaluation; breakdowns are other columns of the run, such as 'locale'."
            )
            raise InputError(msg)
        if col not in names:
            mapped = judged_columns(qrels_columns, run_columns) if judged is not None else (
                run_columns or {}
            )
            canon = next((k for k, v in mapped.items() if v == col), None)
            if canon is not None:
                msg = (
                    f"The breakdown column {col!r} (by=...) is the run's {canon} column (mapped: "
                    f"{canon}={col}); breakdowns are other columns of the run, such as 'locale'."
                )
                raise InputError(msg)
            close = difflib.get_close_matches(col, own_columns(names), n=1, cutoff=0.6) or [
                n for n in own_columns(names) if n.lower() == col.lower()
            ]
            hint = f" Did you mean {close[0]!r}?" if close else ""
            msg = (
                f"The breakdown column {col!r} (by=...) is not in the run ({run_where}).{hint} "
                f"Available columns: {', '.join(map(repr, own_columns(names)))}."
            )
            raise InputError(msg)
        if col not in keys:
            keys.append(col)
    if opts.target is not None:
        _check_target(run_lf, opts.target, run_where)
    if opts.dedupe is not None and judged is None:  # (a judged frame: deduplicated whole, above)
        run_lf = _dedupe(run_lf, keys, opts.dedupe)
    if opts.ties == "input":
        run_lf = run_lf.with_row_index("_order")
    prep = Prepared(
        run_lf, qrels_lf, keys, parsed, opts, run_where, qrels_where, sources,
        qrels_given=qrels is not None or judged is not None or prefs is not None,
        pairs=None if prefs_lf is None else preference_pairs(prefs_lf),
        sides=sides,
    )
    apart = run_only(parsed)
    if apart:
        check_sides(apart, sides)
        prep.constants = population_ctx(sides, apart) if constants is None else constants
    if validate:
        _validate(prep)  # before the cast below, so that fractional grades are caught
    return _cast_grades(prep) if cast_grades else prep


def _cast_grades(prep: Prepared) -> Prepared:
    """Grades as Int64 (after validation: fractional grades are refused there)."""
    if prep.qrels.collect_schema()[REL] != pl.Int64:
        prep.qrels = prep.qrels.with_columns(pl.col(REL).cast(pl.Int64))
    return prep


def _qrels_keys(prep: Prepared) -> list[str]:
    return [k for k in prep.keys if k in prep.qrels.collect_schema().names()]


def _dedupe(run: pl.LazyFrame, keys: list[str], how: str) -> pl.LazyFrame:
    """One row per (keys..., query, doc): the highest-scoring (``"best"``) or the first.

    Rows whose score is missing or not finite are all kept, for the checks to name them.
    """
    pair = [*keys, Q, D]
    odd = pl.col(S).cast(pl.Float64).is_finite().not_().fill_null(True)
    names = run.collect_schema().names()
    # the input's order where lines are known: (file, line) for several files (a CSV glob)
    line = pl.col(LINE).cast(pl.UInt64)
    if FILE in names:
        line = pl.col(FILE).to_physical().cast(pl.UInt64) * (1 << 32) + line
    if how == "best":
        score = pl.col(S).cast(pl.Float64)
        best = score == score.max().over(pair)
        # of tied best rows, one: the first line where lines are known
        one = (line == line.filter(best).min().over(pair)) if LINE in names else (
            best.cum_sum().over(pair) == 1
        )
        return run.filter(odd | (best & one))
    if LINE in names:  # the first line of the files
        return run.filter(odd | (line == line.min().over(pair)))
    order = pl.int_range(pl.len()).over(pair)
    return run.filter(odd | (order == 0))
