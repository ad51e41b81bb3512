"""The ``trec_eval()`` entry of the trec_eval dialect: evaluate one run, return trec_eval's output.

:func:`trec_eval` reads the judgments and the run, evaluates the measures that
:func:`rankframe._trec_eval.selection.select` picks and prints them as trec_eval 10.0 does
(:mod:`rankframe._trec_eval.output`, z-scores: :mod:`rankframe._trec_eval.zscores`). With
``-R qrels_jg`` the judgments carry judgment groups and only the ``*_avgjg`` measures (plus
``runid`` and ``num_q``) are computed (see :mod:`rankframe._trec_eval.qrels_jg`); with ``-R prefs``
or ``-R qrels_prefs`` only the preference measures (:mod:`rankframe._trec_eval.prefs`, by
:func:`_trec_eval_prefs`).

The numbers come from the library (:func:`rankframe._engine.prepare.prepare` and the planner); the
trec_eval dialect only selects, orders and formats.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence

import polars as pl

from rankframe._engine.collect import aggregate, per_query_wide
from rankframe._engine.memory_guard import converts_memory_error
from rankframe._engine.prepare import prepare
from rankframe._errors import InputError, MeasureError, quote, warn
from rankframe._io.columns import REL, Q, Source, describe, id_order, id_text
from rankframe._io.prefs import read_prefs, read_qrels_prefs
from rankframe._io.readers import read_run
from rankframe._measures.counts import NumQ
from rankframe._trec_eval.output import _line, _print_raw, _print_zscores, _run_id
from rankframe._trec_eval.prefs import PREFS_COUNTS, PREFS_LABELS, prefs_per_query, prefs_summary
from rankframe._trec_eval.qrels_jg import per_query_jg
from rankframe._trec_eval.selection import _check_format, select, select_prefs
from rankframe._trec_eval.zscores import read_zscores

#: Judgment formats holding preferences, for the preference measures (``-m all_prefs``, ``-m prefs``).
PREFS_FORMATS = ("prefs", "qrels_prefs")

#: Judgment formats of trec_eval's ``-R`` and results formats of its ``-T``.
REL_FORMATS = ("qrels", "qrels_jg", *PREFS_FORMATS)
RESULTS_FORMATS = ("trec_results",)


def _warn_skipped(qrels: pl.LazyFrame, run: pl.LazyFrame, run_where: str) -> None:
    """Warn about judged queries without results (trec_eval 10.0 stops there, 9.x skipped them)."""
    skipped = qrels.select(Q).unique().join(run.select(Q).unique(), on=Q, how="anti")
    skipped = skipped.sort(id_order(pl.col(Q), skipped.collect_schema()[Q])).collect()[Q]
    if skipped.len():
        n = skipped.len()
        msg = (
            f"{n} judged quer{'y has' if n == 1 else 'ies have'} no results in {run_where} and "
            f"{'is' if n == 1 else 'are'} skipped, e.g. {quote(skipped[0])} (trec_eval 10.0 stops with "
            "an error there; -c scores them 0)."
        )
        warn(msg)


def _several_runs(run_where: str) -> InputError:
    msg = (
        f"{run_where} holds several runs (column 'run'); trec_eval evaluates one run. "
        "Use 'rankframe evaluate' to compare runs side by side."
    )
    return InputError(msg)


@converts_memory_error
def trec_eval(
    qrels: Source,
    run: Source,
    measures: Sequence[str] = (),
    *,
    per_query: bool = False,
    summary: bool = True,
    complete: bool = False,
    depth: int | None = None,
    relevance_level: int = 1,
    judged_only: bool = False,
    num_docs: int | None = None,
    rel_format: str = "qrels",
    zscores: str | os.PathLike[str] | pl.DataFrame | None = None,
) -> str:
    """Evaluate one run and return trec_eval 10.0's output, byte for byte.

    Parameters
    ----------
    qrels, run
        Judgments and one run (paths or frames, as :func:`rankframe.evaluate` reads them).
    measures
        trec_eval ``-m`` arguments; empty means ``official``.
    per_query
        Print each query's values before the ``all`` block (``-q``).
    summary
        Print the ``all`` block (``-n`` turns it off).
    complete
        Score judged queries missing from the run as 0 and print them (``-c``).
    depth
        Keep only the top ``depth`` documents of each query (``-M``).
    relevance_level
        Minimum grade counted as relevant (``-l``).
    judged_only
        Drop unjudged documents before evaluating (``-J``).
    num_docs
        Number of documents in the collection (``-N``), given to the measures that declare a
        ``num_docs`` parameter (trec_eval's ``utility`` with a fourth coefficient).
    rel_format
        Judgment format (``-R``): ``qrels`` (``qid iter docno rel``) or ``qrels_jg``
        (``qid ujg docno rel``, judgment groups; for ``-m qrels_jg`` and the ``*_avgjg``
        measures), or preferences for ``-m all_prefs`` / ``-m prefs``: ``prefs`` (``qid ujg
        ujsubg docno rel_level``) or ``qrels_prefs`` (a qrels file read as preferences).
    zscores
        A z-score file (``-Z``; lines ``qid measure mean stddev``) or frame (see
        :func:`read_zscores`): print z-scores instead of raw values.

    Returns
    -------
    str
        The text trec_eval prints on stdout. A query id read as bytes that are not UTF-8 (a
        TREC file in another encoding) holds them as lone surrogates (PEP 383):
        ``text.encode("utf-8", "surrogateescape")`` gives trec_eval's bytes.

    Raises
    ------
    MeasureError
        For a measure name or option trec_eval would reject, or a measure that the judgment
        format cannot give.
    InputError
        For malformed inputs, several runs in one input, or no query with both judgments and
        results.

    Warns
    -----
    RankframeWarning
        When judged queries have no results and ``complete`` is off: they are skipped, as
        trec_eval 9 did (trec_eval 10.0 stops with an error instead).

    Examples
    --------
    >>> import polars as pl
    >>> qrels = pl.DataFrame({"query_id": ["q1"], "doc_id": ["a"], "relevance": [1]})
    >>> run = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "score": [1.0, 2.0]})
    >>> trec_eval(qrels, run, ["num_ret", "recip_rank"]).split()
    ['num_ret', 'all', '2', 'recip_rank', 'all', '0.5000']
    """
    if rel_format not in REL_FORMATS:
        msg = f"Unknown judgment format {rel_format!r}; supported: {', '.join(REL_FORMATS)}."
        raise MeasureError(msg)
    if rel_format in PREFS_FORMATS:
        return _trec_eval_prefs(
            qrels, run, measures, rel_format=rel_format, per_query=per_query, summary=summary,
            complete=complete, depth=depth, zscores=zscores,
        )
    sel = select(measures)
    _check_format(sel, rel_format)
    if num_docs is not None:
        sel = sel.with_num_docs(num_docs)
    zs = None if zscores is None else read_zscores(zscores)
    # -J can leave a query of the run with no document at all: the planner still evaluates it
    # (num_ret 0), as trec_eval does.
    options = {
        "complete": complete, "depth": depth,
        "relevance_level": relevance_level, "judged_only": judged_only,
    }
    # NumQ: the evaluated queries, whether or not num_q is printed
    needed = [*sel.measures, NumQ()]
    if rel_format == "qrels_jg":
        run_where = describe(run, "run")
        run_lf = read_run(run)
        if "run" in run_lf.collect_schema().names():
            raise _several_runs(run_where)
        wide, qrels_lf, run_lf, qrels_where = per_query_jg(
            qrels, run_lf, needed, run_where=run_where, **options
        )
    else:
        prep = prepare(qrels, run, needed, **options)
        if prep.keys:
            raise _several_runs(prep.run_where)
        wide = per_query_wide(prep, warn=False)
        qrels_lf, run_lf = prep.qrels, prep.run
        run_where, qrels_where = prep.run_where, prep.qrels_where
    if wide.height == 0:
        msg = (
            f"No query has both judgments in {qrels_where} and results in {run_where} "
            "(trec_eval stops here too). Check that the query ids match."
        )
        raise InputError(msg)
    if not complete:
        _warn_skipped(qrels_lf, run_lf, run_where)
    wide = wide.sort(id_order(pl.col(Q), wide.schema[Q]))  # strcmp order of the query ids
    summed = [m for m in sel.measures if m.AGGREGATE != "none"]
    totals = aggregate(wide, summed, []).row(0, named=True) if summed and summary else {}
    if complete and summary:
        # trec_eval -c sums num_rel over every judged query, counting grades > 0
        n_rel = qrels_lf.select((pl.col(REL) > 0).sum()).collect().item()
        totals.update({repr(m): float(n_rel) for lbl, m in sel.rows if lbl == "num_rel"})
    if zs is None:
        return _print_raw(sel, wide, totals, per_query=per_query, summary=summary, run=run_lf)
    # with -c, trec_eval recounts num_rel from the judgments, even for -Z
    raw_all = frozenset({"num_rel"}) if complete else frozenset()
    return _print_zscores(
        sel, wide, totals, zs, per_query=per_query, summary=summary, run=run_lf, raw_all=raw_all
    )


def _trec_eval_prefs(
    qrels: Source, run: Source, measures: Sequence[str], *, rel_format: str, per_query: bool,
    summary: bool, complete: bool, depth: int | None,
    zscores: str | os.PathLike[str] | pl.DataFrame | None,
) -> str:
    """trec_eval with ``-R prefs`` or ``-R qrels_prefs`` (-l, -J and -N do not apply there)."""
    labels = select_prefs(measures)
    if zscores is not None:
        msg = "-Z is not supported with preference judgments (-R prefs, -R qrels_prefs)."
        raise MeasureError(msg)
    if isinstance(qrels, (pl.DataFrame, pl.LazyFrame)):  # already query_id, jg, jsg, ...
        prefs_lf = qrels.lazy()
    elif isinstance(qrels, (str, os.PathLike)):
        prefs_lf = read_prefs(qrels) if rel_format == "prefs" else read_qrels_prefs(qrels)
    else:
        msg = f"-R {rel_format}: give the judgments as a file path or a Polars frame."
        raise InputError(msg)
    qrels_where = describe(qrels, "qrels")
    run_where = describe(run, "run")
    run_lf = read_run(run)
    if "run" in run_lf.collect_schema().names():
        raise _several_runs(run_where)
    wide = prefs_per_query(prefs_lf, run_lf, complete=complete, depth=depth)
    if wide.height == 0:
        msg = (
            f"No query has both judgments in {qrels_where} and results in {run_where} "
            "(trec_eval stops here too). Check that the query ids match."
        )
        raise InputError(msg)
    if not complete:
        _warn_skipped(prefs_lf, run_lf, run_where)

    def fmt(label: str, value: float) -> str:
        if label in PREFS_COUNTS and math.isfinite(value):
            return str(int(value))
        return f"{value:6.4f}"

    shown = [label for label in labels if label in PREFS_LABELS]
    out: list[str] = []
    if per_query:
        for row in wide.iter_rows(named=True):
            query = id_text(row[Q])
            out.extend(_line(label, query, fmt(label, row[label])) for label in shown)
    if summary:
        totals = prefs_summary(wide).row(0, named=True)
        if "runid" in labels:
            out.append(_line("runid", "all", _run_id(run_lf)))
        if "num_q" in labels:
            out.append(_line("num_q", "all", str(wide.height)))
        out.extend(_line(label, "all", fmt(label, totals[label])) for label in shown)
    return "".join(out)
