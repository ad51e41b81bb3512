"""trec_eval's z-scores (``-Z``): the reference file, and the values it turns into z-scores.

With ``-Z`` (z-scores) every per-query value is replaced by its distance to a reference mean in
reference standard deviations, and the ``all`` block aggregates those z-scores (see
:func:`zscore_values`). :func:`read_zscores` reads the reference, lines ``qid measure mean
stddev``; :func:`rankframe._trec_eval.output._print_zscores` prints the result.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import polars as pl

from rankframe._errors import InputError, at, quote
from rankframe._io.columns import Q, cast_id, text_dtype
from rankframe._io.trec_text import _lines, _read_bytes, is_utf8, latin1_bytes
from rankframe._measures import MIN_GEO_MEAN, Measure

#: trec_eval's z-score for a (query, measure) the z-score file does not describe.
MISSING_ZSCORE = -1000000.0


_WS = r"[ \t\r\f\v]"  # trec_eval's isspace(), ASCII only
_FIELD = r"([^ \t\r\f\v]+)"
_ZSCORE_LINE = f"^{_WS}*" + f"{_WS}+".join([_FIELD] * 4) + f"{_WS}*$"


def read_zscores(source: str | os.PathLike[str] | pl.DataFrame) -> pl.DataFrame:
    """Read a trec_eval z-score file: lines ``qid measure mean stddev``.

    Parameters
    ----------
    source
        A path, or a frame with columns ``query_id, measure, mean, stddev``.

    Returns
    -------
    polars.DataFrame
        ``query_id``, ``measure`` (String), ``mean``, ``stddev`` (Float64), one row per
        (query, measure): the first line wins when a pair is repeated.

    Raises
    ------
    InputError
        For a missing or empty file, or a line that is not four fields with numeric mean and
        standard deviation (blank lines are skipped).
    """
    cols = [Q, "measure", "mean", "stddev"]
    if isinstance(source, pl.DataFrame):
        missing = [c for c in cols if c not in source.columns]
        if missing:
            msg = f"The z-score frame lacks the column(s) {missing}; it needs {cols}."
            raise InputError(msg)
        q_dtype = source.schema[Q]
        frame = source.select(
            cast_id(Q, q_dtype, text_dtype(q_dtype)), pl.col("measure").cast(pl.String),
            pl.col("mean").cast(pl.Float64), pl.col("stddev").cast(pl.Float64),
        )
        return frame.unique([Q, "measure"], keep="first", maintain_order=True)
    path = os.fspath(source)
    data = _read_bytes(path, "z-score")  # checked: NUL bytes, endless streams, empty files
    raw = not is_utf8(data)  # query ids as bytes: each byte read as one Latin-1 character
    if raw:
        data = data.decode("latin-1").encode()
    lines = _lines(data, path, "zscores").filter(
        pl.col("line").is_not_null() & (pl.col("line").str.strip_chars(" \t\r\f\v") != "")
    )
    fields = lines.with_columns(pl.col("line").str.extract_groups(_ZSCORE_LINE).alias("_f"))
    fields = fields.select(
        "line_no", "line",
        *[pl.col("_f").struct.field(str(i + 1)).alias(c) for i, c in enumerate(cols)],
    ).with_columns(
        pl.col("mean").cast(pl.Float64, strict=False).alias("_mean"),
        pl.col("stddev").cast(pl.Float64, strict=False).alias("_stddev"),
    )
    bad = fields.filter(pl.col("_mean").is_null() | pl.col("_stddev").is_null()).head(1)
    if bad.height:
        row = bad.row(0, named=True)
        msg = (
            f"{at(path, row['line_no'])}: expected 'qid measure mean stddev' (four fields, the "
            f"last two numbers), found {quote(row['line'].encode('latin-1') if raw else row['line'])}."
        )
        raise InputError(msg)
    frame = fields.select(
        Q, "measure", pl.col("_mean").alias("mean"), pl.col("_stddev").alias("stddev")
    )
    if raw:
        frame = frame.with_columns(latin1_bytes(frame[Q]))
    return frame.unique([Q, "measure"], keep="first", maintain_order=True)


def zscore_values(
    wide: pl.DataFrame, rows: Sequence[tuple[str, Measure]], zscores: pl.DataFrame
) -> tuple[pl.DataFrame, dict[str, float]]:
    """Per-query z-scores and their ``all`` aggregates, as trec_eval ``-Z`` computes them.

    Each per-query value ``v`` of a printed label becomes ``(v - mean) / stddev`` with the
    reference mean and standard deviation of that query and label; ``0`` when the standard
    deviation is 0 and ``v`` equals the mean; :data:`MISSING_ZSCORE` when the file has no entry
    or the standard deviation is 0 and ``v`` differs. Geometric means (``gm_map``,
    ``gm_bpref``) convert ``log(max(v, MIN_GEO_MEAN))``, the per-query value trec_eval keeps.

    The ``all`` values aggregate the z-scores: counts are summed, geometric means are
    ``exp(mean(z))``, the rest are means over the evaluated queries.

    Parameters
    ----------
    wide
        One row per evaluated query: ``query_id`` and one column per measure (``repr``).
    rows
        ``(label, measure)`` pairs to convert (numeric ones).
    zscores
        The reference (see :func:`read_zscores`).

    Returns
    -------
    tuple
        The frame ``query_id`` + one column per label (same row order as ``wide``), and
        label -> aggregate.
    """
    cols = []
    for label, m in rows:
        v = pl.col(repr(m)).cast(pl.Float64)
        if m.AGGREGATE == "gmean":
            v = v.clip(lower_bound=MIN_GEO_MEAN).log()
        cols.append(v.alias(label))
    labels = [label for label, _ in rows]
    text = text_dtype(wide.schema[Q], zscores.schema[Q])  # bytes when either side's ids are
    zscores = zscores.with_columns(cast_id(Q, zscores.schema[Q], text))
    qids = wide.select(cast_id(Q, wide.schema[Q], text))
    long = (
        wide.select(cast_id(Q, wide.schema[Q], text), *cols)
        .unpivot(index=Q, on=labels, variable_name="measure", value_name="value")
        .join(zscores, on=[Q, "measure"], how="left")
    )
    v, mean, sd = pl.col("value"), pl.col("mean"), pl.col("stddev")
    z = (
        pl.when(mean.is_null()).then(MISSING_ZSCORE)
        .when(sd != 0).then((v - mean) / sd)
        .when(v == mean).then(0.0)
        .otherwise(MISSING_ZSCORE)
    )
    zwide = long.with_columns(z.alias("z")).pivot(on="measure", index=Q, values="z")
    zwide = qids.join(zwide, on=Q, how="left", maintain_order="left")
    aggs = []
    for label, m in rows:
        c = pl.col(label)
        agg = c.sum() if m.AGGREGATE == "sum" else c.mean().exp() if m.AGGREGATE == "gmean" else c.mean()
        aggs.append(agg.alias(label))
    totals = zwide.select(aggs).row(0, named=True) if aggs else {}
    return zwide.select(Q, *labels), totals
