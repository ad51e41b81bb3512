"""The context a measure reads: the columns of one query group and the planner's shared values."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import polars as pl

from rankframe._errors import InputError, MeasureError
from rankframe._measures._arith import list_positions
from rankframe._measures._params import GRADE_POSITION


@dataclass(frozen=True)
class Ctx:
    """The columns a measure expression reads, inside one query group.

    Parameters
    ----------
    rank
        1-based rank of a retrieved document, null for a judged document that was not retrieved
        (or fell below the depth).
    rel
        The judgment of the document, null when it is not in the qrels (trec_eval's "nonpool");
        negative values are "in pool but unjudged".
    relevance_level
        Minimum grade counted as relevant by binary measures when the measure's own ``rel`` is
        not given (trec_eval's ``-l``).
    average_ties
        The "average" tie policy is in force: :meth:`tie_mean` then replaces a row-level value
        by its mean over the row's tie group (same query, same score), which turns every measure
        that is a rank-weighted sum into its expected value over all orders of the ties
        (McSherry & Najork 2008).
    """

    rank: pl.Expr
    rel: pl.Expr
    relevance_level: int = 1
    average_ties: bool = False
    #: Row-level expressions that the planner must average over tie groups (filled by measures).
    tie_columns: dict[str, pl.Expr] = field(default_factory=dict, compare=False)
    #: The target ranking's values (higher is better) when it is a column of the run rather
    #: than the relevance grades; null on rows that are not items (judged documents the run
    #: did not return).
    target: pl.Expr | None = None
    #: The run's score, where predicted ties must stay ties (the "average" tie policy).
    score: pl.Expr | None = None
    #: Per-query partial sums shared between measures (see :meth:`partial`); ``None`` inlines
    #: them (a single expression for users' own ``group_by``).
    partials: dict[str, pl.Expr] | None = field(default=None, compare=False)
    #: Per-query values that the planner computes once after the group_by from partials (see
    #: :meth:`derived`), before the measures that read them.
    derived_columns: dict[str, pl.Expr] | None = field(default=None, compare=False)
    #: Distinguishes the partials of derived contexts (``judged_only``).
    variant: str = ""
    #: Whether the rolling ranks that compare rankings may take a window of rows, which Polars
    #: reserves up front (96 GiB of address space per query, untouched): faster, and harmless
    #: unless reserved address space is refused (``ulimit -v``). The planner sets it where it is
    #: not; otherwise (expressions in a user's ``group_by``) a window of positions, which
    #: reserves nothing (see :mod:`rankframe._measures._pairs`).
    reserve: bool = False
    #: The distinct target values of the evaluation (grades, or a target column's values),
    #: for measures that need the levels up front (``MAUC``); filled by the planner.
    levels: tuple[float, ...] | None = None
    #: With preference pairs as the target (``evaluate(prefs=...)``): per item, the number of
    #: the target's pairs ``item > other`` that the prediction orders the same way, the other
    #: way, and ties: ``(concordant, discordant, tied)``; filled by the planner.
    pref_counts: tuple[pl.Expr, pl.Expr, pl.Expr] | None = None
    #: Per-query statistics of the judgments (see :meth:`judgments`) that the planner computes
    #: on the qrels alone; ``None``: computed from the rows of the group (the default).
    judgment_stats: dict[str, pl.Expr] | None = field(default=None, compare=False)
    #: Per-query list statistics of the judgments (see :meth:`judgment_list`) that the
    #: planner's hits-only plan computes on the qrels alone and joins after the group_by.
    judgment_lists: dict[str, pl.Expr] | None = field(default=None, compare=False)
    #: The number of retrieved documents when the group holds only some of them (the planner's
    #: hits-only plan); ``None``: counted from the rows.
    n_ret: pl.Expr | None = None
    #: Inside :meth:`judgments` statistics of the hits-only plan: each judgment's 1-based
    #: position when the query's judgments are sorted by grade, highest first (ties in any
    #: order), computed by a window before the group_by (cheaper than ranking inside it).
    grade_position: pl.Expr | None = None
    #: The groups hold few rows per query (the hits-only plan with the relevant documents
    #: alone): a sum over the first ranks may be one plain aggregation per rank
    #: (:func:`unrolled_sum`) rather than a sorted list.
    few_rows: bool = False
    #: The side inputs' columns of the rows (the top of each ranking, :attr:`Measure.SIDES`)
    #: and their constants, by name (see :meth:`side`); filled by the planner's side plan.
    sides: Mapping[str, pl.Expr] | None = field(default=None, compare=False)
    #: Inline (:mod:`rankframe.expr`): the keys that rank the rows, highest first (the score,
    #: then the doc id as bytes), null for a row not retrieved. The helpers then sort values by
    #: them once (:meth:`in_rank_order`) instead of reading :attr:`rank`: inside an
    #: aggregation each reference to the rank ranks the group again (a struct rank is ~7 times
    #: a ``sort_by``), and nDCG@10 read it 11 times.
    order: tuple[pl.Expr, ...] | None = None
    #: Row-level values that the planner computes as columns before the group_by (the
    #: hits-only plan; see :meth:`row_column`); ``None``: each stays inside the aggregation.
    row_columns: dict[str, pl.Expr] | None = field(default=None, compare=False)
    #: :attr:`row_columns` of the judgments' side (the context of :meth:`judgments`).
    judgment_rows: dict[str, pl.Expr] | None = field(default=None, compare=False)

    def side(self, name: str) -> pl.Expr:
        """A column (or constant) of the side inputs, inside a query group of the side plan.

        Columns: ``doc`` (the item), ``seen`` (the user interacted with the item in the
        training history), ``item_users`` and ``item_interactions`` (the item's distinct users
        and interactions (rows, or summed weights) in the history, 0 for items it lacks),
        ``item_known`` (the history holds the item),
        ``item_head`` (the item's place by popularity in the history: 1 for the most
        interacted, null for items it lacks), ``in_catalogue`` (the item is in ``items=``, else
        in the history), ``category`` (the list of the catalogue's category values of the
        item, null for items it lacks), ``features`` (the item's feature vector),
        ``popularity`` (the catalogue's), ``ref_rank`` (the item's rank in the reference run,
        null if absent) and ``ref_count`` (the user's items in the reference run). Constants
        (Float64 literals): ``n_users``, ``n_items`` and ``n_interactions`` of the history,
        ``n_catalogue``.
        """
        if self.sides is None or name not in self.sides:
            msg = f"the side input column {name!r} is not planned for this measure"
            raise MeasureError(msg)
        return self.sides[name]

    def unit_features(self) -> list[pl.Expr]:
        """The components of each item's feature vector scaled to length 1 (side plan)."""
        units = []
        while self.sides is not None and f"unit_{len(units)}" in self.sides:
            units.append(self.sides[f"unit_{len(units)}"])
        if not units:
            msg = "the item features are not planned for this measure"
            raise MeasureError(msg)
        return units

    def tie_mean(self, value: pl.Expr, name: str) -> pl.Expr:
        r"""Return ``value``, or under the "average" tie policy its mean over the tie group.

        Use it only for the per-position summand of a rank-weighted sum,
        :math:`\sum_d w(\mathrm{rank}(d))\, f(d)`: with ``f`` replaced by its tie-group mean the
        sum is its expectation over every order of the tied documents.
        """
        if not self.average_ties:
            return value
        column = f"_tie_{name}"
        self.tie_columns[column] = value
        return pl.col(column)

    def partial(self, name: str, value: pl.Expr) -> pl.Expr:
        """Return a per-query aggregation that several measures may share.

        In the planner, ``value`` is evaluated once in the ``group_by`` under a name derived
        from ``name`` (equal names must mean equal expressions) and the returned column
        reference is combined after it; a measure that uses partials must build its whole
        result from them. Elsewhere ``value`` itself is returned.
        """
        if self.partials is None:
            return value
        return _shared(self.partials, f"_part{self.variant}_{name}", value)

    def derived(self, name: str, value: pl.Expr) -> pl.Expr:
        """Return a per-query value computed after the group_by from partials, once.

        ``value`` reads :meth:`partial` columns and derived values registered before it (list
        arithmetic, say); in the planner it is computed once under a name derived from ``name``
        (equal names must mean equal expressions) and every measure reading it reads that
        column: Polars does not share a sub-expression that several measures repeat, each would
        compute it again. Elsewhere ``value`` itself is returned.
        """
        if self.partials is None or self.derived_columns is None:
            return value
        return _shared(self.derived_columns, f"_part{self.variant}_derived_{name}", value)

    def row_column(self, name: str, value: pl.Expr) -> pl.Expr:
        """Return a row-level value that the planner computes once, as a column, before the group_by.

        Inside an aggregation Polars evaluates each copy of an expression: a value that several
        aggregations read (a DCG term, read by one sum per rank) costs one evaluation as a
        column. In the hits-only plan the column is added to the rows (or, in
        :meth:`judgments` statistics, to the judgments) under a name derived from ``name``
        (equal names must mean equal expressions); elsewhere ``value`` itself is returned.
        """
        if self.row_columns is None:
            return value
        return _shared(self.row_columns, f"_row{self.variant}_{name}", value)

    def judgments(self, name: str, stat: Callable[[Ctx], pl.Expr]) -> pl.Expr:
        """Return a per-query statistic of the query's judgments, retrieved or not.

        ``stat(ctx)`` must read ``ctx.rel`` only (through :attr:`judged`, :meth:`relevant`,
        :meth:`gain`...) and be a sum over the judged rows to which the judgments below the
        measure's :meth:`Measure.hit_level` add nothing (0 for a query without any), like the
        number of relevant documents or the ideal DCG. Where the planner joins only the
        relevant judgments to the run (:attr:`Measure.HITS_ONLY`), it evaluates ``stat`` on
        those judgments alone, once per query under a name derived from ``name`` (equal names
        must mean equal statistics), and the returned expression reads it; elsewhere it is
        ``stat(self)``.
        """
        if self.judgment_stats is None:
            return stat(self)
        column = f"_qs_{name}"
        if column not in self.judgment_stats:
            self.judgment_stats[column] = stat(self._of_judgments())
        return pl.col(column).first()

    def judgment_list(self, name: str, stat: Callable[[Ctx], pl.Expr]) -> pl.Expr:
        """Return a per-query list of the query's judgments (retrieved or not), as a partial.

        ``stat(ctx)`` is an aggregation to a list (``implode``) that reads ``ctx.rel`` only and
        to which the judgments below the measure's :meth:`Measure.hit_level` add nothing: the
        ideal gains, say. The returned column is read after the group_by, like
        :meth:`partial`'s: the partial itself in the planner's general plan; in the hits-only
        plan, computed once on the judgments alone and joined to each query's row after the
        group_by (a list carried on every row to the aggregation would cost more).
        """
        if self.judgment_lists is None:
            return self.partial(name, stat(self))
        return _shared(
            self.judgment_lists, f"_part{self.variant}_qs_{name}", stat(self._of_judgments())
        )

    def _of_judgments(self) -> Ctx:
        """The context of :meth:`judgments` statistics: the judgments alone, none retrieved."""
        return Ctx(rank=pl.lit(None, dtype=pl.UInt32), rel=self.rel,
                   relevance_level=self.relevance_level, grade_position=pl.col(GRADE_POSITION),
                   row_columns=self.judgment_rows)

    # helpers used by measure modules -------------------------------------------------
    def level(self, rel: int | None) -> int:
        """Return the relevance level in force for a measure parameter ``rel``."""
        return self.relevance_level if rel is None else rel

    @property
    def hits_only(self) -> bool:
        """The group holds only the judged retrieved rows (and each query's rank-1 row).

        The planner's hits-only plan: the judgments' statistics come from :meth:`judgments`
        and :meth:`judgment_list`; :attr:`few_rows` says whether per-rank sums pay there.
        """
        return self.judgment_stats is not None

    @property
    def retrieved(self) -> pl.Expr:
        """Boolean: the row was retrieved (within the depth)."""
        if self.order is not None:
            return self.order[0].is_not_null()
        return self.rank.is_not_null()

    def in_rank_order(
        self, values: pl.Expr, keep: pl.Expr | None = None, cutoff: int | None = None
    ) -> pl.Expr:
        """``values`` of the retrieved rows (and ``keep``), in rank order, the top ``cutoff``.

        With :attr:`order` (inline) one ``sort_by`` of the kept rows, stable (rows tied on
        every key keep their order, as the ordinal rank does), then the first ``cutoff``;
        otherwise sorted by :attr:`rank`. ``keep`` must not drop rows within the cutoff's
        reach that the cutoff should count (filter the values after, for that).
        """
        keep = self.retrieved if keep is None else self.retrieved & keep
        if self.order is None:
            if cutoff is not None:
                keep = keep & (self.rank <= cutoff).fill_null(False)
            return values.filter(keep).sort_by(self.rank.filter(keep))
        ordered = values.filter(keep).sort_by(
            [k.filter(keep) for k in self.order], descending=True, maintain_order=True
        )
        return ordered if cutoff is None else ordered.head(cutoff)

    @property
    def judged(self) -> pl.Expr:
        """Boolean: the row has a judgment >= 0."""
        return (self.rel >= 0).fill_null(False)

    def relevant(self, rel: int | None = None) -> pl.Expr:
        """Boolean: the row is judged relevant at the level in force."""
        return (self.rel >= self.level(rel)).fill_null(False)

    def num_rel(self, rel: int | None = None) -> pl.Expr:
        """Number of judged relevant documents of the query (retrieved or not)."""
        level = self.level(rel)
        return self.judgments(f"num_rel_{level}", lambda c: c.relevant(level).sum())

    def num_rel_partial(self, rel: int | None = None) -> pl.Expr:
        """:meth:`num_rel` as the per-query partial that list arithmetic after the group_by reads.

        One column per level, shared by every measure built from partials; elsewhere
        :meth:`num_rel` itself.
        """
        return self.partial(f"num_rel_{self.level(rel)}", self.num_rel(rel))

    def num_ret_partial(self) -> pl.Expr:
        """:attr:`num_ret` (Int64) as the per-query partial that list arithmetic reads."""
        return self.partial("num_ret", self.num_ret.cast(pl.Int64))

    @property
    def num_ret(self) -> pl.Expr:
        """Number of retrieved documents."""
        if self.n_ret is not None:
            return self.n_ret
        return self.order[0].count() if self.order is not None else self.rank.count()

    def num_rel_ret(self, rel: int | None = None, cutoff: int | None = None) -> pl.Expr:
        """Number of relevant retrieved documents, optionally within the top ``cutoff``."""
        if self.order is not None and cutoff is not None:
            return self.in_rank_order(self.relevant(rel), cutoff=cutoff).sum()
        hit = self.relevant(rel) & self.retrieved
        if cutoff is not None:
            hit = hit & (self.rank <= cutoff).fill_null(False)
        return hit.sum()

    def hit_ranks(self, rel: int | None = None, cutoff: int | None = None) -> tuple[pl.Expr, pl.Expr]:
        """Ranks of the relevant retrieved documents in rank order, and ``1, 2, ...`` beside them.

        The second is the number of relevant documents found so far at each of those ranks
        (their precision is its ratio to the rank): AP's inline form.
        """
        if self.order is not None:
            ranks = self.in_rank_order(self.relevant(rel), cutoff=cutoff).arg_true().cast(pl.Int64) + 1
            return ranks, pl.int_range(1, self.num_rel_ret(rel, cutoff) + 1, dtype=pl.Int64)
        hit = self.relevant(rel) & self.retrieved
        if cutoff is not None:
            hit = hit & (self.rank <= cutoff).fill_null(False)
        ranks = self.rank.filter(hit).sort().cast(pl.Int64)
        return ranks, pl.int_range(1, ranks.len() + 1, dtype=pl.Int64)

    def first_hit_rank(self, rel: int | None = None, cutoff: int | None = None) -> pl.Expr:
        """The rank of the first relevant retrieved document (within ``cutoff``); null if none."""
        if self.order is not None:  # inline: one sort (see order)
            return self.hit_ranks(rel, cutoff)[0].first()
        hit = self.relevant(rel) & self.retrieved
        if cutoff is not None:
            hit = hit & (self.rank <= cutoff).fill_null(False)
        return self.rank.filter(hit).min()

    def hit_rank_lists(self, rel: int | None = None) -> tuple[pl.Expr, pl.Expr]:
        """:meth:`hit_ranks` as list columns for the arithmetic after the planner's group_by.

        The ranks (as floats) are one per-query partial, sorted once and shared by every
        measure that reads them (AP, Rprec, RprecMult, IPrec, binG); the second list is ``1.0,
        2.0, ...`` beside them. Inline (no :attr:`partials`) the same lists are built inside the
        one aggregation (IPrec and binG read them there too).
        """
        level = self.level(rel)
        hit = self.relevant(level) & self.retrieved
        ranks = self.partial(
            f"hit_ranks_{level}", self.rank.filter(hit).sort().cast(pl.Float64).implode()
        )
        found = list_positions(ranks) + 1.0
        return ranks, found

    def only_judged(self) -> Ctx:
        """Drop unjudged documents (absent or negative grade) and re-rank the rest (``-J``)."""
        if self.average_ties:
            msg = "judged_only cannot be combined with the 'average' tie policy."
            raise MeasureError(msg)
        if self.judgment_stats is not None or self.n_ret is not None:
            msg = "judged_only needs every judgment of the query (not a hits-only plan)."
            raise ValueError(msg)
        keep = self.judged
        return Ctx(
            rank=self.rank.filter(keep).rank("ordinal"),
            order=None if self.order is None else tuple(k.filter(keep) for k in self.order),
            rel=self.rel.filter(keep),
            relevance_level=self.relevance_level,
            target=None if self.target is None else self.target.filter(keep),
            partials=self.partials,
            derived_columns=self.derived_columns,
            variant=self.variant + "J",
            levels=self.levels,
            pref_counts=None if self.pref_counts is None else tuple(  # type: ignore[arg-type]
                e.filter(keep) for e in self.pref_counts
            ),
        )

    def expected_hits(self, rel: int | None = None, cutoff: int | None = None) -> pl.Expr:
        """Relevant retrieved documents within ``cutoff`` (expected count under average ties)."""
        if not self.average_ties:
            return self.num_rel_ret(rel, cutoff)
        level = self.level(rel)
        value = self.tie_mean(self.relevant(level).cast(pl.Float64), f"rel_ge_{level}")
        keep = self.retrieved
        if cutoff is not None:
            keep = keep & (self.rank <= cutoff).fill_null(False)
        return value.filter(keep).sum()

    def gain(self, gains: tuple[tuple[int, float], ...] | None = None) -> pl.Expr:
        """Gain of each row: the grade (negative and missing grades give 0) or a gain map."""
        if gains is None:
            return self.rel.clip(lower_bound=0).fill_null(0).cast(pl.Float64)
        mapping = dict(gains)
        expr = pl.when(self.rel.is_null() | (self.rel < 0)).then(pl.lit(0.0))
        for grade, gain in mapping.items():
            expr = expr.when(self.rel == grade).then(pl.lit(gain))
        # grades absent from the map keep their own value as gain (trec_eval's rule)
        return expr.otherwise(self.rel.clip(lower_bound=0).cast(pl.Float64))


@dataclass(frozen=True)
class PopulationCtx:
    """What a population measure's reduction reads beside the states: the side inputs' constants.

    ``n_users``, ``n_items``: distinct users and items of the training history
    (``interactions=``); ``n_catalogue``: the items of the catalogue (``items=``), else of the
    history. ``None`` where the input was not given.
    """

    n_users: int | None = None
    n_items: int | None = None
    n_catalogue: int | None = None
    #: The history's interactions: its rows, or the sum of its weights.
    n_interactions: float | None = None
    #: The users' 64-bit hashes are one per user (distinct users may be counted by them).
    exact_user_hashes: bool = False

    def need(self, name: str, measure: str, source: str) -> int:
        """The constant ``name``, or a MeasureError naming the input ``measure`` needs.

        An InputError when the constant is 0 (an empty history or catalogue): the measures
        divide by it, and a NaN or an infinity would be returned silently.
        """
        value = getattr(self, name)
        if value is None:
            msg = f"{measure} needs {source}."
            raise MeasureError(msg)
        if value == 0:
            what = {"n_users": "users", "n_items": "items", "n_catalogue": "items"}.get(name, name)
            msg = (
                f"{measure} divides by the number of {what} of {source}, which has no rows: "
                "give a non-empty one."
            )
            raise InputError(msg)
        return value


def _shared(columns: dict[str, pl.Expr], column: str, value: pl.Expr) -> pl.Expr:
    """Register ``value`` under ``column`` (a shared partial or derived value) and read it."""
    known = columns.setdefault(column, value)
    if not known.meta.eq(value):
        msg = f"two different expressions share the name {column!r}"
        raise AssertionError(msg)
    return pl.col(column)
