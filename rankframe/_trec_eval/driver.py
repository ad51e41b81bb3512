"""The trec_eval dialect: which measures a ``-m`` list selects, and trec_eval 10.0's output table.

trec_eval prints one line per value (the label padded to 22 characters, a tab, the query id, a
tab, the value) in the order of its own measure table, whatever the order of the ``-m``
options: with ``-q`` every evaluated query (sorted by query id in byte order), then the ``all``
block of aggregates. Counts print as
integers, ``relstring`` as a quoted string (per query only), everything else as ``%6.4f``.
``runid`` (the run tag of the run file's last line), ``num_q`` and the geometric means print in
the ``all`` block only.

With ``-Z`` (z-scores) every per-query value is replaced by its distance to a reference mean in
reference standard deviations, and the ``all`` block aggregates those z-scores (see
:func:`zscore_values`). With ``-R qrels_jg`` the judgments carry judgment groups and only the
``*_avgjg`` measures (plus ``runid`` and ``num_q``) are computed (see :mod:`rankframe._trec_eval.qrels_jg`).

The numbers come from the library (:func:`rankframe._engine.evaluate.prepare` and the planner); this
module only selects, orders and formats.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from rankframe._engine.evaluate import aggregate, per_query_wide, prepare
from rankframe._errors import InputError, MeasureError, at, warn
from rankframe._io.prefs import read_prefs, read_qrels_prefs
from rankframe._io.readers import REL, Q, Source, _lines, describe, read_run
from rankframe._measures import MIN_GEO_MEAN, TREC_NAMES, Measure, load_all
from rankframe._measures._names import NICKNAMES, trec_split
from rankframe._measures.counts import NumQ
from rankframe._trec_eval.prefs import PREFS_COUNTS, PREFS_LABELS, prefs_per_query, prefs_summary
from rankframe._trec_eval.qrels_jg import FORMAT_FREE, JG_NICKNAME, JG_TREC_NAMES, per_query_jg

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

#: trec_eval's nicknames of the preference measures (measures.c ``prefs_names`` and
#: ``prefs_off_name``); they need ``-R prefs`` or ``-R qrels_prefs`` judgments.
PREFS_NICKNAMES: dict[str, tuple[str, ...]] = {
    "all_prefs": ("runid", "num_q", *PREFS_LABELS),
    "prefs": ("runid", "num_q", *PREFS_LABELS[:6]),
}

#: Judgment formats holding preferences, for the measures of :data:`PREFS_NICKNAMES`.
PREFS_FORMATS = ("prefs", "qrels_prefs")

#: trec_eval nicknames: rankframe's, plus the judgment-group one.
TREC_NICKNAMES: dict[str, tuple[str, ...]] = {**NICKNAMES, "qrels_jg": JG_NICKNAME}

#: Judgment formats of trec_eval's ``-R`` and results formats of its ``-T``.
REL_FORMATS = ("qrels", "qrels_jg", *PREFS_FORMATS)
RESULTS_FORMATS = ("trec_results",)

#: Column of the TREC run reader that keeps each line's run tag.
RUN_TAG = "run_tag"

#: trec_eval's z-score for a (query, measure) the z-score file does not describe.
MISSING_ZSCORE = -1000000.0

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
    names
        The trec_eval measure names selected (``runid`` included), in printing order.
    """

    runid: bool
    rows: tuple[tuple[str, Measure], ...]
    summary_only: frozenset[str] = frozenset()
    names: tuple[str, ...] = ()

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
        return Selection(self.runid, rows, self.summary_only, self.names)


def _split(spec: str) -> tuple[str, str | None]:
    """Split ``name.params`` at the first dot, as trec_eval does; ``P_5`` is accepted too."""
    name, dot, params = spec.partition(".")
    if dot and not params:
        msg = f"The trec_eval measure {spec!r} has an empty parameter list after the '.'."
        raise MeasureError(msg)
    if (
        name in TREC_NAMES or name in TREC_NICKNAMES or name in _ORDER
        or name in PREFS_NICKNAMES
    ):
        return name, params if dot else None
    split = trec_split(spec)  # rankframe also accepts the printed labels, e.g. P_5, ndcg_cut_10
    if split is not None:
        return split
    return name, params if dot else None


def _trec_names() -> list[str]:
    return sorted(
        {*TREC_NAMES, *JG_TREC_NAMES, *TREC_NICKNAMES, *PREFS_NICKNAMES, "runid"}, key=str.lower
    )


def select(specs: Sequence[str]) -> Selection:
    """Resolve trec_eval ``-m`` arguments into the measures to compute and their labels.

    Parameters
    ----------
    specs
        ``-m`` arguments as trec_eval takes them: a measure (``map``), a measure with parameters
        after the first dot (``P.5,10``, ``ndcg.1=3,2=9``), or a nickname (``official``,
        ``all_trec``, ``set``, ``qrels_jg``). Empty means ``official``.

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
    parsers = {**TREC_NAMES, **JG_TREC_NAMES}
    marked: dict[str, str | None] = {}  # base name -> first parameter string given
    origin: dict[str, str] = {}
    for spec in specs or ["official"]:
        spec = spec.strip()
        name, params = _split(spec)
        if name in PREFS_NICKNAMES or name in PREFS_LABELS:
            msg = (
                f"The trec_eval measure {name!r} is a preference measure: it needs "
                "'-R prefs' (qid ujg ujsubg docno rel_level) or '-R qrels_prefs' judgments."
            )
            raise MeasureError(msg)
        members = TREC_NICKNAMES.get(name, (name,))
        for member in members:
            if member != "runid" and member not in parsers:
                if member in _ORDER:
                    via = f" (selected by {spec!r})" if member != name else ""
                    msg = f"The trec_eval measure {member!r}{via} is not available in rankframe yet."
                    raise MeasureError(msg)
                raise MeasureError.unknown(spec, _trec_names())
            marked.setdefault(member, None)
            origin.setdefault(member, spec)
        if name not in TREC_NICKNAMES and params is not None and marked[name] is None:
            marked[name] = params
    extra = len(_ORDER)
    names = tuple(sorted(marked, key=lambda n: _ORDER.get(n, extra)))
    runid = marked.pop("runid", "absent") != "absent"
    order = [n for n in names if n != "runid"]
    rows: list[tuple[str, Measure]] = []
    summary_only: set[str] = set()
    for name in order:
        try:
            pairs = parsers[name](marked[name])
        except MeasureError as err:
            msg = f"In the trec_eval measure {origin[name]!r}: {err}"
            raise MeasureError(msg) from None
        rows.extend(pairs)
        if name in SUMMARY_ONLY:
            summary_only.update(label for label, _ in pairs)
    return Selection(
        runid=runid, rows=tuple(rows), summary_only=frozenset(summary_only), names=names
    )


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
        warn(msg)


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
        frame = source.select(
            pl.col(Q).cast(pl.String), pl.col("measure").cast(pl.String),
            pl.col("mean").cast(pl.Float64), pl.col("stddev").cast(pl.Float64),
        )
        return frame.unique([Q, "measure"], keep="first", maintain_order=True)
    path = os.fspath(source)
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        msg = f"Cannot read the z-score file {path!r}: {exc.strerror or exc}."
        raise InputError(msg) from exc
    if not data.strip():
        msg = f"The z-score file {path} is empty; it needs lines 'qid measure mean stddev'."
        raise InputError(msg)
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
            f"last two numbers), found {row['line']!r}."
        )
        raise InputError(msg)
    frame = fields.select(
        Q, "measure", pl.col("_mean").alias("mean"), pl.col("_stddev").alias("stddev")
    )
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
    qids = wide.select(pl.col(Q).cast(pl.String))
    long = (
        wide.select(pl.col(Q).cast(pl.String), *cols)
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


def _check_format(sel: Selection, rel_format: str) -> None:
    """trec_eval computes the *_avgjg measures from qrels_jg only, and the others from qrels."""
    if rel_format == "qrels_jg":
        other = [n for n in sel.names if n not in JG_TREC_NAMES and n not in FORMAT_FREE]
        if other:
            msg = (
                f"-R qrels_jg: the measure {other[0]!r} is not supported yet with judgment "
                f"groups; from qrels_jg judgments trec_eval 10.0 computes only "
                f"{', '.join(JG_NICKNAME)} (-m qrels_jg)."
            )
            raise MeasureError(msg)
    else:
        jg = [n for n in sel.names if n in JG_TREC_NAMES]
        if jg:
            msg = (
                f"The measure {jg[0]!r} averages over judgment groups: it needs '-R qrels_jg' "
                "judgments (qid ujg docno rel)."
            )
            raise MeasureError(msg)


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
        The text trec_eval prints on stdout.

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
    wide = wide.sort(pl.col(Q).cast(pl.String))  # strcmp order of the query ids
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


def select_prefs(specs: Sequence[str]) -> tuple[str, ...]:
    """Resolve ``-m`` arguments given with preference judgments into trec_eval labels.

    Only the preference measures (``all_prefs``, ``prefs`` or single labels such as
    ``prefs_simp``), ``runid`` and ``num_q`` can be computed from preferences; the result is
    in trec_eval's printing order.
    """
    allowed = {"runid", "num_q", *PREFS_LABELS}
    marked: set[str] = set()
    for spec in specs or ["official"]:
        spec = spec.strip()
        name, params = _split(spec)
        members = PREFS_NICKNAMES.get(name) or TREC_NICKNAMES.get(name, (name,))
        bad = [m for m in members if m not in allowed]
        if bad and bad[0] not in _ORDER:
            raise MeasureError.unknown(spec, _trec_names())
        if bad:
            via = f" (selected by {spec!r})" if bad[0] != name else ""
            msg = (
                f"-R prefs / -R qrels_prefs: the measure {bad[0]!r}{via} needs qrels "
                "judgments; from preferences trec_eval 10.0 computes only the preference "
                f"measures (-m {' / -m '.join(PREFS_NICKNAMES)}: {', '.join(PREFS_LABELS)}), "
                "runid and num_q."
            )
            raise MeasureError(msg)
        if params is not None:
            msg = f"The trec_eval measure {name!r} takes no parameters; got {spec!r}."
            raise MeasureError(msg)
        marked.update(members)
    return tuple(sorted(marked, key=lambda n: _ORDER[n]))


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
            query = str(row[Q])
            out.extend(_line(label, query, fmt(label, row[label])) for label in shown)
    if summary:
        totals = prefs_summary(wide).row(0, named=True)
        if "runid" in labels:
            out.append(_line("runid", "all", _run_id(run_lf)))
        if "num_q" in labels:
            out.append(_line("num_q", "all", str(wide.height)))
        out.extend(_line(label, "all", fmt(label, totals[label])) for label in shown)
    return "".join(out)


def _several_runs(run_where: str) -> InputError:
    msg = (
        f"{run_where} holds several runs (column 'run'); trec_eval evaluates one run. "
        "Use 'rankframe evaluate' to compare runs side by side."
    )
    return InputError(msg)


def _print_raw(
    sel: Selection, wide: pl.DataFrame, totals: dict[str, float], *, per_query: bool,
    summary: bool, run: pl.LazyFrame,
) -> str:
    out: list[str] = []
    if per_query:
        printed = [(label, m, repr(m)) for label, m in sel.rows if label not in sel.summary_only]
        for row in wide.iter_rows(named=True):
            query = str(row[Q])
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
            query = str(row[Q])
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
