"""Input checks: dtypes, bad rows, duplicates, fractional grades; errors that name the place."""

from __future__ import annotations

import contextlib
import math
import os
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import polars as pl

from rankframe._engine import memory
from rankframe._engine.options import (
    REL,
    D,
    Q,
    S,
)
from rankframe._errors import InputError, at, quote
from rankframe._io.columns import FILE, LINE, own_columns, position_columns

if TYPE_CHECKING:
    from rankframe._engine.options import Prepared


def _first_unparsable(
    lf: pl.LazyFrame, col: str, dtype: pl.DataType
) -> tuple[dict[str, Any] | None, int, int]:
    """The first row whose ``col`` does not convert to ``dtype`` (line if known), then counts.

    The counts: of the column's values (not null), and of the rows.
    """
    pos = position_columns(lf.collect_schema().names())
    bad, count = pl.collect_all([
        lf.filter(pl.col(col).is_not_null() & pl.col(col).cast(dtype, strict=False).is_null())
        .select(*pos, col)
        .head(1),
        lf.select(pl.col(col).is_not_null().sum().alias("_n"), pl.len().alias("_rows")),
    ])
    return (bad.row(0, named=True) if bad.height else None), int(count["_n"][0]), int(count["_rows"][0])


def _wrong_dtype(lf: pl.LazyFrame, role: str, where: str, col: str, dt: pl.DataType) -> InputError:
    kind = {S: "scores must be numbers", REL: "grades must be integers"}.get(
        col, "ids must be strings, bytes or integers"
    )
    target = {S: pl.Float64, REL: pl.Int64}.get(col, pl.String)
    detail = ""
    if dt == pl.String and col in (S, REL):
        try:
            row, values, rows = _first_unparsable(lf, col, pl.Float64)
        except (pl.exceptions.PolarsError, OSError) as exc:  # a CSV malformed past its header
            return InputError.unreadable(role, where, exc)
        if row is not None:
            place = f" ({at(row.get(FILE) or where, row[LINE])})" if row.get(LINE) is not None else ""
            detail = f" First value that is not a number: {quote(row[col])}{place}."
        elif not rows:
            detail = (
                f" The column holds no value: {where} has no data rows (a header only?), so its "
                "type could not be inferred, and there is nothing to evaluate."
            )
        elif not values:
            detail = " The column holds no value (only nulls), so its type could not be inferred."
        else:
            detail = " Every value looks like a number stored as text."
    elif dt == pl.Null:
        detail = " The column holds only nulls."
    param = "run" if role == "judged" else role  # a judged frame's mapping: either one
    msg = (
        f"The {role} column {col!r} in {where} has dtype {dt}; {kind}.{detail} Map the right "
        f"column ({param}_columns={{{col!r}: ...}}) or cast it, e.g. pl.col({col!r}).cast(pl.{target})."
    )
    return InputError(msg)


def _check_dtypes(lf: pl.LazyFrame, role: str, where: str) -> pl.LazyFrame:
    """Check the dtypes of the canonical columns; cast categorical ids to strings."""
    schema = lf.collect_schema()
    casts = []
    for col in (Q, D):
        if col not in schema:
            continue
        dt = schema[col]
        if isinstance(dt, pl.Categorical | pl.Enum):
            casts.append(pl.col(col).cast(pl.String))
        elif not (dt in (pl.String, pl.Binary) or dt.is_integer()):
            raise _wrong_dtype(lf, role, where, col, dt)
    if S in schema and not (schema[S].is_numeric() and schema[S] != pl.Boolean):
        raise _wrong_dtype(lf, role, where, S, schema[S])
    if REL in schema:
        dt = schema[REL]
        if not (dt.is_integer() or dt.is_float() or dt == pl.Boolean):
            raise _wrong_dtype(lf, role, where, REL, dt)
    return lf.with_columns(casts) if casts else lf


def _place(row: Mapping[str, Any], where: str, sources: Mapping[str, str], column: str) -> str:
    """Where a bad row is: the file and line for text inputs, else the source and the column."""
    if "run" in row and row["run"] in sources:
        where = f"{sources[row['run']]} (run {quote(row['run'])})"
    if row.get(LINE) is not None:  # (one file of several: that file)
        return at(row.get(FILE) or where, row[LINE])
    return f"{where}, column {column!r}"


def _bad_rows_message(row: Mapping[str, Any], place: str, role: str) -> str:
    ids = f"query {quote(row[Q])}, doc {quote(row[D])}"
    for col, what in ((Q, "query id"), (D, "doc id")):
        if row[col] is None:
            other = f"doc {quote(row[D])}" if col == Q else f"query {quote(row[Q])}"
            return (
                f"{place}: the {what} is null ({other}). Ids must not be null; drop such rows "
                "first, e.g. df.drop_nulls(['query_id', 'doc_id'])."
            )
    if role == "qrels":
        return (
            f"{place}: the relevance grade of {ids} is null. Drop such rows or fill them "
            "(pl.col('relevance').fill_null(0))."
        )
    if row[S] is None:
        return (
            f"{place}: the score of {ids} is null. Scores must be finite numbers; drop such rows "
            "(in a judged frame a null score means 'not retrieved')."
        )
    value = row[S]
    nan = isinstance(value, float) and math.isnan(value)
    # (clip keeps the order: an infinite score above, or below, every finite one)
    fix = "pl.col('score').fill_nan(...)" if nan else "pl.col('score').clip(-1e300, 1e300)"
    return (
        f"{place}: the score of {ids} is {quote(value)}, which is not a finite number, so the "
        f"ranking is undefined. Replace it (e.g. {fix}) or drop the row."
    )


def _fractional_message(row: Mapping[str, Any], place: str) -> str:
    grade, pair = row[REL], f"({quote(row[Q])}, {quote(row[D])})"
    if isinstance(grade, int) or (math.isfinite(grade) and grade == round(grade)):
        return (
            f"{place}: the relevance grade {quote(grade)} of {pair} is too large: "
            "grades are 64-bit integers (Int64). Check the column (a score or an id?) or map the "
            "grades first."
        )
    return (
        f"{place}: the relevance grade {quote(grade)} of {pair} is not an "
        "integer. Grades must be integers; round or map them first "
        "(pl.col('relevance').round().cast(pl.Int64))."
    )


def _duplicates_message(
    frame: pl.DataFrame,
    where: str,
    sources: Mapping[str, str],
    role: str,
    total: tuple[int, int] | None = None,
    runs: int = 1,
) -> str:
    """The error for duplicate (query, doc) rows: the first ones, and ``total`` (pairs, extra rows).

    ``frame``: keys, ``query_id``, ``doc_id``, ``_n`` (the pair's rows) and, where known, the
    first lines (``LINE``, text files) or row indexes (``ROW``, from 0) of each pair.
    ``runs``: how many runs hold duplicates (``total`` counts them all).
    """
    first = frame.row(0, named=True)
    path = where
    if "run" in first and first["run"] in sources:
        path = sources[first["run"]]
        where = f"{path} (run {quote(first['run'])})"
    if runs > 1:
        where = f"{where} and {runs - 1} other run{'s' if runs > 2 else ''}"
        role = f"{role}s"
        frame = frame.filter(pl.col("run") == first["run"])  # the examples: the run named
    parts = []
    for r in frame.iter_rows(named=True):
        if r.get(FILE) is not None:  # several files: each line with its file
            place = " (" + "; ".join(at(f, n) for f, n in zip(r[FILE], r[LINE], strict=True)) + ")"
        elif r.get(LINE) is not None:
            place = f" (lines {', '.join(map(str, r[LINE]))})"
        elif r.get(ROW) is not None:
            place = f" (row index {', '.join(map(str, r[ROW]))})"
        else:
            place = ""
        parts.append(f"({quote(r[Q])}, {quote(r[D])}) x{r['_n']}{place}")
    col = "relevance" if role == "qrels" else "score"
    count = ""
    if total is not None and total[0] > len(parts):
        count = f"{total[0]:,} (query, doc) pairs listed more than once ({total[1]:,} extra rows), e.g. "
    keep = (
        "dedupe='best' (the highest-scoring row; --dedupe best) or 'first' (the first row), or "
        if role != "qrels" else ""
    )
    # files of a glob or a folder (one a day): a query that comes back another day
    files = any(c in path for c in "*?[") or os.path.isdir(path)
    by = (
        " Where a query comes back in another file (another day), make the column that tells "
        "them apart a breakdown: by=['day'] (--by day)."
        if files and role != "qrels" else ""
    )
    return (
        f"{where}: duplicate (query, doc) rows in the {role}: {count}{'; '.join(parts)}. trec_eval "
        f"refuses them too; keep one row per (query, doc): {keep}e.g. "
        f"df.group_by('query_id', 'doc_id').agg(pl.col({col!r}).max()).{by}"
    )


#: Row indexes (from 0) of duplicated pairs, in their error.
ROW = "_row"
_HASH = "_pair_hash"


def _pair_hash(keys: list[str]) -> pl.Expr:
    return pl.struct(*keys, Q, D).hash().alias(_HASH)


def _repeated_hashes(lf: pl.LazyFrame, keys: list[str], parts: int = 1) -> pl.Series:
    """The 64-bit hashes of (keys, query, doc) that ``lf`` holds more than once.

    Every duplicated pair's hash is among them (and, rarely, a collision's). Null ids are left
    to the bad-row checks. The hashes are sorted and compared with their neighbours: 8 bytes a
    row and ~2x faster than a group_by or ``n_unique`` on them (a hash table of every row;
    measured at 10M rows: 3.6-3.9 s vs 6.2-7.1 s, 300 vs 610 MiB, the read of the two id
    columns 1.5 s of it). ``parts``: screened ``hash % parts`` by ``hash % parts``, one scan
    of the key columns each, so that each holds ``1/parts`` of the hashes
    (:func:`screen_parts`).
    """
    hashed = lf.filter(pl.col(Q).is_not_null() & pl.col(D).is_not_null()).select(_pair_hash(keys))
    found = []
    for i in range(parts):
        part = hashed if parts == 1 else hashed.filter(pl.col(_HASH) % parts == i)
        h = part.collect(engine="streaming").get_column(_HASH).sort()
        found.append(h.filter(h == h.shift(1)).unique())
    return pl.concat(found) if len(found) > 1 else found[0]


def _duplicated_pairs(
    lf: pl.LazyFrame, keys: list[str], hashes: pl.Series, rows: bool = True
) -> pl.DataFrame:
    """Every pair of ``lf`` listed more than once, among those of ``hashes``, in input order.

    Keys, ``query_id``, ``doc_id``, ``_n`` and the first three lines (text files) or row
    indexes (``rows``) of each pair; an exact lookup of the few candidate rows (one scan).
    """
    on = [*keys, Q, D]
    names = lf.collect_schema().names()
    pos = LINE if LINE in names else ROW if rows else None
    if pos == ROW:
        lf = lf.with_row_index(ROW)  # (before the filter: the rows of the whole input)
    # several files (a CSV glob): each line with its file, in the files' order
    cols = position_columns(names) if pos == LINE else [pos] if pos else []
    firsts = [pl.col(c).sort_by(cols).head(3) for c in cols]
    found = (
        lf.filter(_pair_hash(keys).is_in(hashes.implode()))
        .select(*on, *cols)
        .group_by(on)
        .agg(pl.len().alias("_n"), *firsts)
        .filter(pl.col("_n") > 1)
    )
    order = [pl.col(c).list.first() for c in cols] if pos else pl.col(on)
    return found.sort(order, nulls_last=True).collect()


def duplicates_error(
    lf: pl.LazyFrame,
    keys: list[str],
    where: str,
    sources: Mapping[str, str],
    role: str,
    *,
    parts: int = 1,
    rows: bool = True,
) -> InputError | None:
    """The error naming ``lf``'s duplicate (keys, query, doc) rows, or None when there is none.

    The error counts every duplicated pair and names the first three with their lines or row
    indexes. Two scans of the key columns: the hashes seen twice (:func:`_repeated_hashes`, in
    ``parts``), then the exact lookup of their rows; no group_by on the ids of every row.
    ``rows``: name the row indexes (not where they would mislead: runs stacked from several
    sources).
    """
    return _pairs_error([(_found_pairs(lf, keys, parts, rows), where)], sources, role)


def _found_pairs(lf: pl.LazyFrame, keys: list[str], parts: int = 1, rows: bool = True) -> pl.DataFrame | None:
    """:func:`_duplicated_pairs` of ``lf`` screened by :func:`_repeated_hashes`; None when none."""
    hashes = _repeated_hashes(lf, keys, parts)
    found = _duplicated_pairs(lf, keys, hashes, rows) if hashes.len() else None
    return found if found is not None and found.height else None  # (empty: a mere hash collision)


def _pairs_error(
    found: Sequence[tuple[pl.DataFrame | None, str]], sources: Mapping[str, str], role: str
) -> InputError | None:
    """The error for the duplicated pairs of one input or of its files, or None when none.

    The first place that has some is named, with its first three pairs; the count is over all.
    """
    found = [(f, where) for f, where in found if f is not None]
    if not found:
        return None
    total = sum(f.height for f, _ in found), sum(int(f["_n"].sum()) - f.height for f, _ in found)
    first, where = found[0]
    runs = pl.concat([f.select("run") for f, _ in found])["run"].n_unique() if "run" in first.columns else 1
    return InputError(_duplicates_message(first.head(3), where, sources, role, total, runs))


def scans_storage(lf: pl.LazyFrame) -> bool:
    """Whether ``lf`` reads a file or a table as the plan runs (a Parquet, CSV, IPC... scan).

    Its duplicates are then looked for before the plan (:func:`refuse_duplicates`, a read of the
    key columns), not after it; frames in memory (TREC text, parsed whole, and frames given)
    keep the plan's own screen.
    """
    return re.search(r"\bSCAN\b", lf.explain(optimized=False)) is not None


#: The duplicate screen's width per input row, as :class:`~rankframe._engine.memory.Need`
#: weighs it (``2 * 4 + 16`` = 24 bytes a row): its 64-bit hash of (query, doc) and the sort's
#: copy (measured at 10M rows: 300 MiB peak, ~200 MiB over the interpreter's, with the read of
#: the id columns).
SCREEN_WIDTH = 4


def screen_parts(prep: Prepared) -> int:
    """The fewest hash parts (a power of 2) in which the run's duplicate screen fits the memory.

    Each part re-reads the key columns (:func:`refuse_duplicates`).
    """
    try:
        rows = int(prep.run.select(pl.len()).collect().item())
    except (pl.exceptions.PolarsError, OSError):
        return 1  # unreadable: the checks say where
    budget = memory.available()
    need = memory.Need(rows, SCREEN_WIDTH * rows)
    n = 1
    # (parts of under 16 MiB of hashes: the fixed cost of a scan dominates, more gain nothing)
    while budget.known and not need.fits(budget, n) and (2 * SCREEN_WIDTH + 16) * rows / n > 16 << 20:
        n *= 2
    return n


def refuse_duplicates(
    prep: Prepared,
    files: Sequence[tuple[pl.LazyFrame, str]] | None = None,
    *,
    qrels: bool = True,
) -> None:
    """Before the evaluation: raise the duplicate (query, doc) rows of the run and the qrels.

    The run is skipped when deduplicated (``dedupe``); the qrels without ``qrels`` (one plan,
    whose own screen sees every judgment, counted whole). The run's screen runs in as many
    hash parts as the memory needs (:func:`screen_parts`). ``files``: the run as its
    files (``partitions="files"``, where a (group,) query is in one file), each screened on its
    own; the error names the first file with duplicates, its rows, and the count over all files.
    Reading only the key columns, this costs a fraction of the evaluation, which then runs only
    on inputs without duplicates (its own checks find the rest).
    """
    qrels_keys = [k for k in prep.keys if k in prep.qrels.collect_schema().names()]
    try:
        error = None
        if prep.opts.dedupe is None and files is not None:
            error = _pairs_error([(_found_pairs(lf, prep.keys), where) for lf, where in files], {}, "run")
        elif prep.opts.dedupe is None:
            error = duplicates_error(
                prep.run, prep.keys, prep.run_where, prep.run_sources, "run", parts=screen_parts(prep),
                rows=len(prep.run_sources) <= 1,
            )
        if error is not None:
            raise error
    except (pl.exceptions.PolarsError, OSError):
        return  # unreadable: the evaluation's own checks say where
    if qrels and prep.qrels_given:
        error = None
        with contextlib.suppress(pl.exceptions.PolarsError, OSError):
            error = duplicates_error(prep.qrels, qrels_keys, prep.qrels_where, {}, "qrels")
        if error is not None:
            raise error


def _collect_checks(checks: list[pl.LazyFrame], role: str, where: str) -> list[pl.DataFrame]:
    try:
        return pl.collect_all(checks)
    except (pl.exceptions.PolarsError, OSError) as exc:
        raise InputError.unreadable(role, where, exc) from exc


def _bad_run_row(prep: Prepared) -> pl.Expr:
    """True for a run row :func:`_validate` refuses: a null id or score, a non-finite score/target."""
    bad = (
        pl.col(Q).is_null() | pl.col(D).is_null() | pl.col(S).is_null()
        | ~pl.col(S).cast(pl.Float64).is_finite()
    )
    if prep.opts.target is not None:
        bad = bad | ~pl.col(prep.opts.target).cast(pl.Float64).is_finite().fill_null(False)
    return bad


def _fits_int64(dtype: pl.DataType) -> pl.Expr | None:
    """True for a grade that is a whole number within Int64; None when every grade of ``dtype`` is.

    NaN and infinities are not whole (NaN == NaN in Polars); a float of 1e300 or a UInt64 past
    2**63 - 1 is whole but would fail the cast to Int64.
    """
    grade = pl.col(REL)
    if dtype.is_float():
        return grade.is_finite() & (grade == grade.round()) & (grade.abs() < 2.0**63)
    if dtype == pl.UInt64:
        return grade <= 2**63 - 1
    return None


def _bad_judgment(prep: Prepared) -> pl.Expr:
    """True for a judgment :func:`_validate` refuses: a null id or grade, a fractional grade."""
    bad = pl.col(Q).is_null() | pl.col(D).is_null() | pl.col(REL).is_null()
    fits = _fits_int64(prep.qrels.collect_schema()[REL])
    if fits is not None:
        bad = bad | ~fits.fill_null(True)
    return bad


def _validate(prep: Prepared, *, flagged: bool = False) -> None:
    """The cheap sanity checks, in one pass per input: nulls, non-finite scores, duplicates.

    ``flagged``: the plan's own screen saw duplicates (or a hash collision): they are looked
    up without screening the inputs again.
    """
    run_cols = prep.run.collect_schema().names()
    qrels_cols = prep.qrels.collect_schema().names()
    rpos, qpos = position_columns(run_cols), position_columns(qrels_cols)
    qkeys = [k for k in prep.keys if k in qrels_cols]

    def maybe_dups(keys: list[str]) -> pl.Expr:
        # A screen: distinct 64-bit hashes of (keys, query, doc) vs rows, ~3x cheaper than a
        # group_by on string ids. Duplicates (or, rarely, a hash collision) are then looked up
        # exactly, with their lines, by duplicates_error.
        seen = pl.lit(True) if flagged else pl.struct(*keys, Q, D).hash().n_unique() < pl.len()
        return seen.alias("_maybe_dups")

    bad_score = _bad_run_row(prep)
    target = prep.opts.target
    # one scan of the run: the duplicate screen and whether any row is bad
    screen = prep.run.select(
        maybe_dups(prep.keys),
        bad_score.any().alias("_bad"),
    )
    run_checks = [screen]
    qrels_checks = [
        prep.qrels.filter(pl.col(Q).is_null() | pl.col(D).is_null() | pl.col(REL).is_null())
        .select(*qkeys, Q, D, REL, *qpos).head(1),
        prep.qrels.select(maybe_dups(qkeys)),
    ]
    fits = _fits_int64(prep.qrels.collect_schema()[REL])
    if fits is not None:
        qrels_checks.append(prep.qrels.filter(~fits).select(Q, D, REL, *qpos).head(1))
    try:
        run_screen, bad_qrels, dup_qrels, *frac = pl.collect_all(run_checks + qrels_checks)
    except (pl.exceptions.PolarsError, OSError):  # find out which input failed, then say so
        (run_screen,) = _collect_checks(run_checks, "run", prep.run_where)
        bad_qrels, dup_qrels, *frac = _collect_checks(qrels_checks, "qrels", prep.qrels_where)
    dup_run = run_screen.select("_maybe_dups")
    bad_run = pl.DataFrame()
    if run_screen["_bad"].item():  # rare: find the first bad row, with its line
        tcol = [target] if target is not None and target not in (Q, D, S) else []
        bad_run = prep.run.filter(bad_score).select(*prep.keys, Q, D, S, *tcol, *rpos).head(1).collect()
    if bad_run.height:
        row = bad_run.row(0, named=True)
        col = Q if row[Q] is None else D if row[D] is None else S
        if target is not None and col == S and row[S] is not None and math.isfinite(row[S]):
            place = _place(row, prep.run_where, prep.run_sources, target)
            msg = (
                f"{place}: the target {target!r} of query {quote(row[Q])}, doc {quote(row[D])} is "
                f"{quote(row[target])}, not a finite number. Every ranked row needs a target value; "
                f"fill or drop such rows (pl.col({target!r}).fill_null(...))."
            )
            raise InputError(msg)
        place = _place(row, prep.run_where, prep.run_sources, col)
        raise InputError(_bad_rows_message(row, place, "run"))
    if bad_qrels.height:
        row = bad_qrels.row(0, named=True)
        col = Q if row[Q] is None else D if row[D] is None else REL
        place = _place(row, prep.qrels_where, {}, col)
        raise InputError(_bad_rows_message(row, place, "qrels"))
    for lf, screen, keys, where, sources, role in (
        (prep.run, dup_run, prep.keys, prep.run_where, prep.run_sources, "run"),
        (prep.qrels, dup_qrels, qkeys, prep.qrels_where, {}, "qrels"),
    ):
        if screen.item():
            error = duplicates_error(lf, keys, where, sources, role, rows=len(sources) <= 1)
            if error is not None:
                raise error
    if frac and frac[0].height:
        row = frac[0].row(0, named=True)
        raise InputError(_fractional_message(row, _place(row, prep.qrels_where, {}, REL)))


def _check_target(run: pl.LazyFrame, target: str, where: str) -> None:
    schema = run.collect_schema()
    if target not in schema:
        msg = (
            f"The target column {target!r} (target=...) is not in the run ({where}). "
            f"Available columns: {', '.join(map(repr, own_columns(schema.names())))}."
        )
        raise InputError(msg)
    if not (schema[target].is_numeric() or schema[target] == pl.Boolean):
        msg = (
            f"The target column {target!r} of {where} has type {schema[target]}; it must be "
            f"numeric (a score or a rank). Cast it first, e.g. pl.col({target!r}).cast(pl.Float64)."
        )
        raise InputError(msg)
