"""Judgment groups: trec_eval's ``-R qrels_jg`` and its ``*_avgjg`` measures.

A ``qrels_jg`` file is a qrels file whose second column names a judgment group (a "user")
instead of the ignored iteration: ``qid ujg docno rel``. Each judgment group of a query is a
complete set of judgments on its own: a document judged by another group only is not in this
group's pool. trec_eval 10.0 computes three measures from it, each averaged over the judgment
groups of the query (then over queries, as usual):

* ``map_avgjg``: average precision (``map``) per group;
* ``P_avgjg``: precision at cutoffs (``P``) per group;
* ``Rprec_mult_avgjg``: precision at multiples of each group's R (``Rprec_mult``).

Here every judgment group is evaluated as its own qrels: the run is replicated once per group
of its query (a ``jg`` key) and the planner evaluates the (group, query) pairs in one lazy plan;
the per-query values are then the mean over the query's groups.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import polars as pl

from rankframe._engine.checks import _validate
from rankframe._engine.collect import per_query_wide
from rankframe._engine.prepare import prepare
from rankframe._errors import InputError
from rankframe._io.columns import LINE, REL, D, Q, Source, cast_id, text_dtype
from rankframe._io.readers import read_qrels
from rankframe._io.trec_text import _read_bytes, _split_fields, _to_number
from rankframe._measures._trec import TrecParser, double_cutoffs, long_cutoffs, single
from rankframe._measures.ap import AP
from rankframe._measures.precision import P
from rankframe._measures.rprec import RprecMult

if TYPE_CHECKING:
    from rankframe._measures import Measure

#: Column of the judgment group (the second field of a ``qrels_jg`` line).
JG = "jg"

#: trec_eval's ``qrels_jg`` nickname.
JG_NICKNAME: tuple[str, ...] = ("runid", "num_q", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg")

#: Measures that need no judgments at all, so they are computed from any judgment format.
FORMAT_FREE = frozenset({"runid", "num_q"})

#: trec_eval name -> parser of its parameters into ``(label, per-group measure)`` pairs.
JG_TREC_NAMES: dict[str, TrecParser] = {
    "map_avgjg": single("map_avgjg", lambda: AP()),
    "P_avgjg": long_cutoffs(
        "P_avgjg", (5, 10, 15, 20, 30, 100, 200, 500, 1000), lambda k: P(cutoff=k)
    ),
    "Rprec_mult_avgjg": double_cutoffs(
        "Rprec_mult_avgjg",
        (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0),
        lambda x: RprecMult(cutoff=x),
    ),
}

_JG_COLS = (Q, JG, D, REL)


def read_qrels_jg(source: Source) -> pl.LazyFrame:
    """Read judgments with judgment groups.

    Parameters
    ----------
    source
        A ``qrels_jg`` text file (``qid ujg docno rel``; lines starting with ``#`` are comments,
        fields after the fourth are ignored), or a frame with ``query_id, doc_id, relevance``
        (or their well-known names) and a ``jg`` column.

    Returns
    -------
    polars.LazyFrame
        ``query_id``, ``jg``, ``doc_id`` (String), ``relevance`` (Int64) and, for text files,
        ``line_no``.
    """
    if isinstance(source, str | os.PathLike):
        path = os.fspath(source)
        df = _split_fields(_read_bytes(path, "qrels"), _JG_COLS, path, "qrels")
        df = _to_number(df, REL, pl.Int64, path, "relevance grade")
        return df.select(Q, JG, D, REL, LINE).lazy()
    lf = read_qrels(source)
    if JG not in lf.collect_schema().names():
        msg = (
            "Judgments with judgment groups (-R qrels_jg) need a 'jg' column naming the group "
            "of each judgment."
        )
        raise InputError(msg)
    dtype = lf.collect_schema()[JG]
    return lf.with_columns(cast_id(JG, dtype, text_dtype(dtype)))


def per_query_jg(
    qrels: Source,
    run: pl.LazyFrame,
    measures: list[Measure],
    *,
    complete: bool,
    depth: int | None,
    relevance_level: int,
    judged_only: bool,
    run_where: str,
) -> tuple[pl.DataFrame, pl.LazyFrame, pl.LazyFrame, str]:
    """Evaluate each judgment group as its own qrels and average the groups of each query.

    Parameters
    ----------
    qrels
        ``qrels_jg`` judgments (see :func:`read_qrels_jg`).
    run
        The run, as read by :func:`rankframe._io.readers.read_run`.
    measures
        Per-group measures (from :data:`JG_TREC_NAMES`, plus format-free ones such as
        ``NumQ``).
    complete, depth, relevance_level, judged_only
        trec_eval's ``-c``, ``-M``, ``-l`` and ``-J``, applied within every group.
    run_where
        How to name the run in messages.

    Returns
    -------
    tuple
        The per-query frame (``query_id`` and one column per measure, the mean over the
        query's judgment groups, for the evaluated queries), the judgments (one row per
        judgment, with ``jg``), the run and a description of the judgments.
    """
    qrels_lf = read_qrels_jg(qrels)
    qrels_where = (
        f"the qrels_jg file {os.fspath(qrels)}" if isinstance(qrels, str | os.PathLike)
        else "the qrels_jg frame"
    )
    # Replicate each run row for every judgment group of its query; run queries without
    # judgments keep one row (null group) so that the run is still checked as a whole.
    q_dtype, r_dtype = qrels_lf.collect_schema()[Q], run.collect_schema()[Q]
    text = text_dtype(q_dtype, r_dtype)  # bytes when either side's ids are
    qrels_lf = qrels_lf.with_columns(cast_id(Q, q_dtype, text))
    groups = qrels_lf.select(Q, JG).unique()
    run_x = run.with_columns(cast_id(Q, r_dtype, text)).join(groups, on=Q, how="left")
    prep = prepare(
        qrels_lf, run_x, measures, by=[JG],
        complete=complete, depth=depth, relevance_level=relevance_level,
        judged_only=judged_only, validate=False,
    )
    prep.run_where, prep.qrels_where = run_where, qrels_where
    _validate(prep)  # duplicates are checked within each (group, query), as trec_eval does
    wide = per_query_wide(prep, warn=False)
    names = [repr(m) for m in prep.measures]
    # mean over the groups, summed in trec_eval's order (groups in byte order of their names)
    per_query = (
        wide.sort(Q, JG)
        .group_by(Q, maintain_order=True)
        .agg(pl.col(n).mean() for n in names)
    )
    return per_query, qrels_lf, prep.run, qrels_where
