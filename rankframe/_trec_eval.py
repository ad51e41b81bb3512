"""The trec_eval dialect: which measures a ``-m`` list selects, and trec_eval 10.0's output table.

trec_eval prints one line per value (the label padded to 22 characters, a tab, the query id, a
tab, the value) in the order of its own measure table, whatever the order of the ``-m``
options: with ``-q`` every evaluated query (sorted by query id in byte order), then the ``all``
block of aggregates. Counts print as
integers, ``relstring`` as a quoted string (per query only), everything else as ``%6.4f``.
``runid`` (the run tag of the run file's last line), ``num_q`` and the geometric means print in
the ``all`` block only.

The numbers come from the library (:func:`rankframe._evaluate.prepare` and the planner); this
module only selects, orders and formats.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import polars as pl

from rankframe._errors import InputError, MeasureError, RankframeWarning
from rankframe._evaluate import aggregate, per_query_wide, prepare
from rankframe._io import REL, Q, Source
from rankframe._measures import TREC_NAMES, Measure, load_all
from rankframe._measures.counts import NumQ
from rankframe._names import NICKNAMES, trec_split

#: trec_eval 10.0's measure table, in the order it evaluates and prints measures.
TABLE_ORDER: tuple[str, ...] = (
    "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
    "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "infAP", "gm_bpref",
    "Rprec_mult", "utility", "11pt_avg", "binG", "G", "dcg", "ideal_dcg", "ndcg", "ndcg_rel",
    "Rndcg", "ndcg_cut", "map_cut", "relative_P", "success", "set_P", "set_relative_P",
    "set_recall", "set_map", "set_F", "num_nonrel_judged_ret",
    "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret", "prefs_simp",
    "prefs_pair", "prefs_avgjg", "prefs_avgjg_Rnonrel", "prefs_simp_ret", "prefs_pair_ret",
    "prefs_avgjg_ret", "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp", "prefs_pair_imp",
    "prefs_avgjg_imp", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg", "yaap", "rbp", "rbp_resid",
    "unj",
)

#: Measures trec_eval prints in the ``all`` block only, never per query.
SUMMARY_ONLY = frozenset({"runid", "num_q", "gm_map", "gm_bpref"})

#: Nicknames of trec_eval that need preference or judgment-group judgments (not supported yet).
UNSUPPORTED_NICKNAMES = ("all_prefs", "prefs", "qrels_jg")

#: Judgment formats of trec_eval's ``-R`` and results formats of its ``-T``.
REL_FORMATS = ("qrels",)
UNSUPPORTED_REL_FORMATS = ("prefs", "qrels_prefs", "qrels_jg")
RESULTS_FORMATS = ("trec_results",)

#: Column of the TREC run reader that keeps each line's run tag.
RUN_TAG = "run_tag"

_ORDER = {name: i for i, name in enumerate(TABLE_ORDER)}


@dataclass(frozen=True)
class Selection:
    """The measures a list of trec_eval ``-m`` arguments selects.

    Parameters
    ----------
    runid
        Whether the ``runid`` line is printed.
    rows
        ``(trec_eval label, measure)`` pairs in trec_eval's printing order; several labels may
        share one measure.
    summary_only
        The labels printed in the ``all`` block only.
    """

    runid: bool
    rows: tuple[tuple[str, Measure], ...]
    summary_only: frozenset[str] = frozenset()

    @property
    def measures(self) -> list[Measure]:
        """The distinct measures to compute, in printing order."""
        return list(dict.fromkeys(m for _, m in self.rows))

    def with_num_docs(self, num_docs: int) -> Selection:
        """Give the collection size to every measure that declares a ``num_docs`` parameter."""
        rows = tuple(
            (label, m.replace(num_docs=num_docs) if "num_docs" in m.params else m)
            for label, m in self.rows
        )
        return Selection(self.runid, rows, self.summary_only)


def _split(spec: str) -> tuple[str, str | None]:
    """Split ``name.params`` at the first dot, as trec_eval does; ``P_5`` is accepted too."""
    name, dot, params = spec.partition(".")
    if dot and not params:
        msg = f"The trec_eval measure {spec!r} has an empty parameter list after the '.'."
        raise MeasureError(msg)
    if name in TREC_NAMES or name in NICKNAMES or name in _ORDER or name in UNSUPPORTED_NICKNAMES:
        return name, params if dot else None
    split = trec_split(spec)  # rankframe also accepts the printed labels, e.g. P_5, ndcg_cut_10
    if split is not None:
        return split
    return name, params if dot else None


def _trec_names() -> list[str]:
    return sorted({*TREC_NAMES, *NICKNAMES, "runid"}, key=str.lower)


def select(specs: Sequence[str]) -> Selection:
    """Resolve trec_eval ``-m`` arguments into the measures to compute and their labels.

    Parameters
    ----------
    specs
        ``-m`` arguments as trec_eval takes them: a measure (``map``), a measure with parameters
        after the first dot (``P.5,10``, ``ndcg.1=3,2=9``), or a nickname (``official``,
        ``all_trec``, ``set``). Empty means ``official``.

    Returns
    -------
    Selection
        Labels and measures in trec_eval's table order. When a measure is named several times,
        the first parameter list given wins (trec_eval's rule); a bare name keeps the defaults
        unless some other ``-m`` gives parameters.

    Raises
    ------
    MeasureError
        For an unknown name, a preference nickname, or a trec_eval measure rankframe lacks.

    Examples
    --------
    >>> [label for label, _ in select(["P.10,5", "map"]).rows]
    ['map', 'P_5', 'P_10']
    """
    load_all()
    marked: dict[str, str | None] = {}  # base name -> first parameter string given
    origin: dict[str, str] = {}
    for spec in specs or ["official"]:
        spec = spec.strip()
        name, params = _split(spec)
        if name in UNSUPPORTED_NICKNAMES:
            msg = (
                f"The trec_eval nickname {name!r} selects preference / judgment-group measures, "
                "which need '-R prefs', '-R qrels_prefs' or '-R qrels_jg' judgments; rankframe "
                "does not support them yet."
            )
            raise MeasureError(msg)
        members = NICKNAMES.get(name, (name,))
        for member in members:
            if member != "runid" and member not in TREC_NAMES:
                if member in _ORDER:
                    via = f" (selected by {spec!r})" if member != name else ""
                    msg = f"The trec_eval measure {member!r}{via} is not available in rankframe yet."
                    raise MeasureError(msg)
                raise MeasureError.unknown(spec, _trec_names())
            marked.setdefault(member, None)
            origin.setdefault(member, spec)
        if name not in NICKNAMES and params is not None and marked[name] is None:
            marked[name] = params
    runid = marked.pop("runid", "absent") != "absent"
    extra = len(_ORDER)
    order = sorted(marked, key=lambda n: _ORDER.get(n, extra))
    rows: list[tuple[str, Measure]] = []
    summary_only: set[str] = set()
    for name in order:
        try:
            pairs = TREC_NAMES[name](marked[name])
        except MeasureError as err:
            msg = f"In the trec_eval measure {origin[name]!r}: {err}"
            raise MeasureError(msg) from None
        rows.extend(pairs)
        if name in SUMMARY_ONLY:
            summary_only.update(label for label, _ in pairs)
    return Selection(runid=runid, rows=tuple(rows), summary_only=frozenset(summary_only))


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
    return "-" if value is None else str(value)


def _warn_skipped(qrels: pl.LazyFrame, run: pl.LazyFrame, run_where: str) -> None:
    """Warn about judged queries without results (trec_eval 10.0 stops there, 9.x skipped them)."""
    skipped = (
        qrels.select(Q).unique().join(run.select(Q).unique(), on=Q, how="anti")
        .sort(pl.col(Q).cast(pl.String)).collect()[Q]
    )
    if skipped.len():
        n = skipped.len()
        msg = (
            f"{n} judged quer{'y has' if n == 1 else 'ies have'} no results in {run_where} and "
            f"{'is' if n == 1 else 'are'} skipped, e.g. {skipped[0]!r} (trec_eval 10.0 stops with "
            "an error there; -c scores them 0)."
        )
        warnings.warn(msg, RankframeWarning, stacklevel=3)


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

    Returns
    -------
    str
        The text trec_eval prints on stdout.

    Raises
    ------
    MeasureError
        For a measure name or option trec_eval would reject.
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
    sel = select(measures)
    if num_docs is not None:
        sel = sel.with_num_docs(num_docs)
    # -J can leave a query of the run with no document at all: trec_eval still evaluates it
    # (num_ret 0), so it is computed like a -c query and kept if the run has it.
    prep = prepare(  # NumQ: the evaluated queries, whether or not num_q is printed
        qrels, run, [*sel.measures, NumQ()], complete=complete or judged_only, depth=depth,
        relevance_level=relevance_level, judged_only=judged_only,
    )
    if prep.keys:
        msg = (
            f"{prep.run_where} holds several runs (column 'run'); trec_eval evaluates one run. "
            "Use 'rankframe evaluate' to compare runs side by side."
        )
        raise InputError(msg)
    wide = per_query_wide(prep, warn=False)
    if judged_only and not complete:
        wide = wide.join(prep.run.select(Q).unique().collect(), on=Q, how="semi")
    if wide.height == 0:
        msg = (
            f"No query has both judgments in {prep.qrels_where} and results in {prep.run_where} "
            "(trec_eval stops here too). Check that the query ids match."
        )
        raise InputError(msg)
    if not complete:
        _warn_skipped(prep.qrels, prep.run, prep.run_where)
    wide = wide.sort(pl.col(Q).cast(pl.String))  # strcmp order of the query ids
    out: list[str] = []
    if per_query:
        printed = [(label, m, repr(m)) for label, m in sel.rows if label not in sel.summary_only]
        for row in wide.iter_rows(named=True):
            query = str(row[Q])
            out.extend(_line(label, query, _format(m, row[col])) for label, m, col in printed)
    if summary:
        summed = [m for m in sel.measures if m.AGGREGATE != "none"]
        totals = aggregate(wide, summed, []).row(0, named=True) if summed else {}
        if complete:
            # trec_eval -c sums num_rel over every judged query, counting grades > 0
            n_rel = prep.qrels.select((pl.col(REL) > 0).sum()).collect().item()
            totals.update({repr(m): float(n_rel) for lbl, m in sel.rows if lbl == "num_rel"})
        if sel.runid:
            out.append(_line("runid", "all", _run_id(prep.run)))
        for label, m in sel.rows:
            if m.AGGREGATE == "none":
                continue
            out.append(_line(label, "all", _format(m, totals[repr(m)])))
    return "".join(out)

