"""trec_eval 10.0's output table: one line per value, in the order of its measure table.

trec_eval prints one line per value (the label padded to 22 characters, a tab, the query id, a
tab, the value) in the order of its own measure table, whatever the order of the ``-m``
options: with ``-q`` every evaluated query (sorted by query id in byte order), then the ``all``
block of aggregates. Counts print as integers, ``relstring`` as a quoted string (per query
only), everything else as ``%6.4f``. ``runid`` (the run tag of the run file's last line),
``num_q`` and the geometric means print in the ``all`` block only.

The lines follow a :class:`rankframe._trec_eval.selection.Selection`. With ``-Z`` the numbers
print as z-scores labelled ``Z<label>`` (see :mod:`rankframe._trec_eval.zscores`).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import polars as pl

from rankframe._io.columns import Q, id_text
from rankframe._measures.counts import NumQ
from rankframe._trec_eval.zscores import zscore_values

if TYPE_CHECKING:
    from rankframe._measures import Measure
    from rankframe._trec_eval.selection import Selection

#: Column of the TREC run reader that keeps each line's run tag.
RUN_TAG = "run_tag"


def _is_count(measure: Measure) -> bool:
    return measure.AGGREGATE == "sum"


def _format(measure: Measure, value: object) -> str:
    if measure.DTYPE == pl.String:
        return f"'{'' if value is None else value}'"
    if value is None:
        value = math.nan
    if _is_count(measure) and math.isfinite(float(value)):  # type: ignore[arg-type]
        return str(int(value))  # type: ignore[call-overload]
    return f"{float(value):6.4f}"  # type: ignore[arg-type]


def _line(label: str, query: str, text: str) -> str:
    return f"{label:<22}\t{query}\t{text}\n"


def _run_id(prep_run: pl.LazyFrame) -> str:
    """The run tag of the last line of the run file (trec_eval keeps the last one it reads)."""
    names = prep_run.collect_schema().names()
    if RUN_TAG not in names:
        return "-"
    tag = pl.col(RUN_TAG)
    if "line_no" in names:
        tag = tag.sort_by("line_no")
    value = prep_run.select(tag.last()).collect().item()
    return "-" if value is None else id_text(value)


def _print_raw(
    sel: Selection, wide: pl.DataFrame, totals: dict[str, float], *, per_query: bool,
    summary: bool, run: pl.LazyFrame,
) -> str:
    out: list[str] = []
    if per_query:
        printed = [(label, m, repr(m)) for label, m in sel.rows if label not in sel.summary_only]
        for row in wide.iter_rows(named=True):
            query = id_text(row[Q])
            out.extend(_line(label, query, _format(m, row[col])) for label, m, col in printed)
    if summary:
        if sel.runid:
            out.append(_line("runid", "all", _run_id(run)))
        for label, m in sel.rows:
            if m.AGGREGATE == "none":
                continue
            out.append(_line(label, "all", _format(m, totals[repr(m)])))
    return "".join(out)


def _print_zscores(
    sel: Selection, wide: pl.DataFrame, totals: dict[str, float], zscores: pl.DataFrame, *,
    per_query: bool, summary: bool, run: pl.LazyFrame, raw_all: frozenset[str] = frozenset(),
) -> str:
    """trec_eval -Z: numbers print as ``%6.4f`` z-scores, labelled ``Z<label>``.

    ``relstring`` (text) and ``runid`` print unchanged; ``num_q`` is the number of queries.
    The ``all`` value of a label in ``raw_all`` is the raw total, not an aggregate of z-scores.
    """
    numeric = [
        (label, m) for label, m in sel.rows
        if m.DTYPE != pl.String and not isinstance(m, NumQ)
    ]
    zwide, ztotals = zscore_values(wide, numeric, zscores)
    zlabels = {label for label, _ in numeric}

    def zline(label: str, query: str, value: object) -> str:
        return f"Z{label:<22}\t{query}\t{float(value):6.4f}\n"  # type: ignore[arg-type]

    out: list[str] = []
    if per_query:
        printed = [(label, m) for label, m in sel.rows if label not in sel.summary_only]
        for row, zrow in zip(
            wide.iter_rows(named=True), zwide.iter_rows(named=True), strict=True
        ):
            query = id_text(row[Q])
            for label, m in printed:
                if label in zlabels:
                    out.append(zline(label, query, zrow[label]))
                else:
                    out.append(_line(label, query, _format(m, row[repr(m)])))
    if summary:
        if sel.runid:
            out.append(_line("runid", "all", _run_id(run)))
        for label, m in sel.rows:
            if m.AGGREGATE == "none":
                continue
            if label in zlabels and label not in raw_all:
                out.append(zline(label, "all", ztotals[label]))
            elif m.DTYPE != pl.String:  # num_q
                out.append(zline(label, "all", totals[repr(m)]))
            else:
                out.append(_line(label, "all", _format(m, totals[repr(m)])))
    return "".join(out)
