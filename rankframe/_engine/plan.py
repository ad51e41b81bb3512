"""The planner: any set of measures over a run and qrels, composed into one lazy plan.

Shape of the plan (DESIGN.md §4):

1. read only the needed run columns; rank each query's documents once (score descending, ties
   by doc id descending in byte order, trec_eval's rule) and cut at the depth;
2. join relevance once: a full join with the qrels, so judged documents that were not retrieved
   are rows with a null rank (they feed the number of relevant documents and the ideal DCG);
3. one ``group_by`` over (run, breakdowns..., query) that evaluates every measure's aggregation;
4. the cross-query aggregation happens on the small per-query frame.

When every requested measure is hits-only (:attr:`Measure.HITS_ONLY`: it reads the retrieved
documents judged relevant and per-query statistics of the judgments), :func:`hits_plan` replaces
steps 2-3: a LEFT join with the relevant judgments only, the statistics from the judgments alone,
and a ``group_by`` over about a tenth of the rows; the values are the same, bit for bit.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from rankframe._engine.allocator import reservations_refused
from rankframe._engine.combine import _combine, _uses_partials
from rankframe._engine.hits import hits_level, hits_plan, ranked_run
from rankframe._engine.options import (
    BAD_QRELS,
    BAD_RUN,
    DUP,
    HAS_QRELS,
    HAS_RUN,
    N_RET,
    RANK,
    REL,
    TARGET,
    D,
    Options,
    Q,
)
from rankframe._engine.rank import PC, PD, PT, doc_hash, ranked_join, target_levels, with_pair_counts
from rankframe._engine.sides_plan import SIDE_ROW, check_sides, refuse_average_ties, run_only, sides_plan
from rankframe._errors import MeasureError
from rankframe._measures import REGISTRY, Ctx, Measure, PopulationCtx

if TYPE_CHECKING:
    from collections.abc import MutableMapping

    from rankframe._io.sides import Sides


def keeps_every_row(
    opts: Options,
    keys: list[str],
    qrels_keys: list[str] | None,
    pairs: pl.LazyFrame | None,
    measures: list[Measure] | None = None,
) -> bool:
    """Whether every run and qrels row reaches the plan's checks (so they can ride in it).

    Not with a depth cut or judged-only filtering (run rows dropped), preference pairs, or,
    in the general plan, judgments replicated into (run, breakdown) groups (qrels rows of
    unheld queries dropped); the hits-only plan screens the judgments once, whatever the
    groups.
    """
    if opts.depth is not None or opts.judged_only or pairs is not None:
        return False
    if measures is not None and run_only(measures):
        # the run-only plan shares the hits plan's ranked rows, which carry the checks' flags
        main = [m for m in measures if m.NEEDS_JUDGMENTS]
        return hits_level(main, opts, pairs) is not None
    if len(qrels_keys or []) == len(keys):
        return True
    return measures is not None and hits_level(measures, opts, pairs) is not None


def per_query_plan(
    run: pl.LazyFrame,
    qrels: pl.LazyFrame,
    measures: list[Measure],
    keys: list[str],
    opts: Options,
    qrels_keys: list[str] | None = None,
    *,
    qrels_given: bool = True,
    pairs: pl.LazyFrame | None = None,
    groups: pl.LazyFrame | None = None,
    checks: bool = False,
    judgment_cache: MutableMapping | None = None,
    sides: Sides | None = None,
    constants: PopulationCtx | None = None,
) -> pl.LazyFrame:
    """One lazy plan giving a wide per-query frame: keys, query, flags, one column per measure.

    When every measure reads only the retrieved documents judged relevant (:func:`hits_level`),
    the plan is :func:`hits_plan`.

    ``qrels_given=False``: the qrels are empty because only a ``target`` column judges the run.
    ``checks``: the run and qrels carry boolean columns ``BAD_RUN`` / ``BAD_QRELS`` (a row the
    validation would refuse); the result then has ``BAD_RUN``, ``BAD_QRELS`` and ``DUP`` (a doc
    twice in a (group, query): a duplicate in either input, or a 64-bit hash collision) per
    (group, query), computed in the same ``group_by`` instead of separate scans. Only for plans
    that keep every input row (no depth, not judged-only, judgments joined directly).
    ``judgment_cache``: see :func:`hits_plan`.
    ``pairs``: preference pairs ``query_id, _a, _b`` are the target (``qrels`` then lists the
    documents they name); only measures defined on pairs alone are accepted.
    ``sides``, ``constants``: the side inputs and their constants, for the measures that read
    no judgments (:mod:`rankframe._engine.sides_plan`, joined on (group, query)).
    """
    apart = run_only(measures)
    if apart:
        check_sides(apart, sides)
        if opts.ties == "average":
            refuse_average_ties(apart)
        constants = constants or PopulationCtx()
        alone = len(apart) == len(measures) and not qrels_given and opts.target is None
        main = [m for m in measures if m.NEEDS_JUDGMENTS]
        level = hits_level(main, opts, pairs)
        if checks and level is None:
            msg = "In-plan checks need a plan that keeps every input row."
            raise ValueError(msg)
        # the run ranked once (a cache) when both plans read its ranks; the checks' flags ride
        # in it (the hits plan's screen, or the run-only plan's when it is alone)
        ranked = None
        if alone or level is not None:
            ranked = ranked_run(run, keys, opts, checks=checks)
            ranked = ranked if alone else ranked.cache()
        side = sides_plan(
            run, sides, apart, keys, opts, constants, alone=alone, ranked=ranked, checks=checks and alone
        )
        if alone:
            return side
        if level is not None:
            out = hits_plan(
                run, qrels, main, keys, opts, level, qrels_keys, groups, cache=judgment_cache,
                ranked=ranked, checks=checks,
            )
        else:
            out = per_query_plan(
                run, qrels, main, keys, opts, qrels_keys, qrels_given=qrels_given, pairs=pairs,
                groups=groups, judgment_cache=judgment_cache,
            )
        out = out.join(side, on=[*keys, Q], how="left", nulls_equal=True)
        # queries without recommendations (complete=True): each measure's empty-ranking value
        empty = pl.col(SIDE_ROW).is_null()
        return out.with_columns(
            pl.when(empty).then(pl.lit(m.EMPTY, pl.Float64)).otherwise(pl.col(repr(m))).alias(repr(m))
            for m in apart if m.KIND == "query"
        ).drop(SIDE_ROW)
    if pairs is not None:
        unsupported = [repr(m) for m in measures if not m.PAIRWISE_TARGET]
        if unsupported:
            ok = sorted(n for n, cls in REGISTRY.items() if cls.PAIRWISE_TARGET)
            msg = (
                f"Preference pairs (prefs=...) are a target for the measures defined on a set "
                f"of pairs: {', '.join(ok)}; not for {', '.join(unsupported)}. Evaluate those "
                "against qrels (grades) or a target column."
            )
            raise MeasureError(msg)
    average = opts.ties == "average"
    if average:
        unsupported = [repr(m) for m in measures if not m.SUPPORTS_AVERAGE_TIES]
        if unsupported:
            msg = (
                f"The 'average' tie policy is defined for rank-weighted sums only; not for "
                f"{', '.join(unsupported)}. Use ties='trec_eval' (default) or ties='input' for them."
            )
            raise MeasureError(msg)
    if checks and not keeps_every_row(opts, keys, qrels_keys, pairs, measures):
        msg = "In-plan checks need a plan that keeps every input row."
        raise ValueError(msg)
    level = hits_level(measures, opts, pairs)
    if level is not None:
        return hits_plan(
            run, qrels, measures, keys, opts, level, qrels_keys, groups, checks=checks,
            cache=judgment_cache,
        )
    frame = ranked_join(run, qrels, keys, opts, qrels_keys, groups, checks=checks)
    if pairs is not None:
        frame = with_pair_counts(frame, pairs, keys, average=average)
    levels = None
    if any(m.NEEDS_LEVELS and getattr(m, "levels", None) is None for m in measures):
        levels = target_levels(run, qrels, opts)
    partials: dict[str, pl.Expr] = {}
    derived: dict[str, pl.Expr] = {}
    ctx = Ctx(
        rank=pl.col(RANK), rel=pl.col(REL), relevance_level=opts.relevance_level,
        average_ties=average, partials=partials, derived_columns=derived,
        # the rolling ranks of the measures comparing rankings reserve their window unless that
        # is refused (an address-space limit): then a window of positions, 20% slower
        reserve=not reservations_refused(),
        target=pl.col(TARGET) if opts.target is not None else None,
        score=pl.col("_score") if average else None, levels=levels,
        pref_counts=None if pairs is None else (pl.col(PC), pl.col(PD), pl.col(PT)),
    )
    exprs, post = [], []
    for m in measures:
        if opts.target is not None and opts.target_order == "asc" and getattr(m, "levels", None):
            # explicit levels are in the column's units; the plan negates an ascending target
            flipped = m.replace(levels=tuple(-v for v in m.levels))
            e = flipped.aggregation(ctx).alias(repr(m))
        else:
            e = m.aggregation(ctx)
        # a measure built from shared partial sums is combined after the group_by
        (post if _uses_partials(e) else exprs).append(e)
    if ctx.tie_columns:
        # the tie group of a retrieved document: its query and its score (_score kept for this)
        group = [*keys, Q, "_score"]
        frame = frame.with_columns(e.mean().over(group).alias(n) for n, e in ctx.tie_columns.items())
    if checks:  # the group_by keeps 64-bit hashes of the doc ids, not the strings
        frame = frame.with_columns(doc_hash(pl.col(D)).alias(DUP))
    judged = pl.col(REL).is_not_null().any()
    if opts.target is not None and not qrels_given:
        judged = pl.col(TARGET).is_not_null().any()  # no qrels: the target column judges
    out = frame.group_by([*keys, Q]).agg(
        pl.col(RANK).is_not_null().any().alias(HAS_RUN),
        pl.col(RANK).count().alias(N_RET),
        judged.alias(HAS_QRELS),
        *exprs,
        *(e.alias(n) for n, e in partials.items()),
        *([
            pl.col(BAD_RUN).any().alias(BAD_RUN), pl.col(BAD_QRELS).any().alias(BAD_QRELS),
            (pl.col(DUP).n_unique() < pl.len()).alias(DUP),
        ] if checks else []),
    )
    if post:
        out = _combine(out, partials, derived, post)
    if opts.judged_only:
        # -J may empty a ranking; the query was still in the run and is evaluated (num_ret 0)
        present = run.select(*keys, Q).unique().with_columns(pl.lit(True).alias("_present"))
        out = out.join(present, on=[*keys, Q], how="left", nulls_equal=True).with_columns(
            (pl.col(HAS_RUN) | pl.col("_present").fill_null(False)).alias(HAS_RUN)
        ).drop("_present")
    return out
