"""The measure base class, its parameter declarations and the registry.

A measure family (``P``, ``AP``, ``nDCG``...) is a subclass of :class:`Measure` that declares its
parameters as data and builds one aggregation expression from a :class:`Ctx`. An instance is one
fully parametrised measure (``P@5``); its ``repr`` is the canonical ir_measures-style name.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

import polars as pl

from rankframe._errors import MeasureError

Aggregation = Literal["mean", "sum", "gmean", "none"]

#: A :meth:`Measure.hit_level` below every grade: the measure reads every judgment of the
#: retrieved documents, negative grades included (but not unjudged documents).
ANY_GRADE = -(2**62)

#: The column of :attr:`Ctx.grade_position` in the planner's qrels-side statistics.
GRADE_POSITION = "_grade_pos"

#: Floor applied to per-query values before a geometric mean (trec_eval's MIN_GEO_MEAN).
MIN_GEO_MEAN = 1e-5


@dataclass(frozen=True)
class Param:
    """Declaration of one measure parameter.

    Parameters
    ----------
    name
        Keyword used in ir_measures syntax (``rel`` in ``P(rel=2)@5``). ``cutoff`` is printed
        as ``@k``.
    kind
        One of ``"int"``, ``"float"``, ``"str"``, ``"gains"`` (a mapping grade -> gain),
        ``"floats"`` (a tuple of floats) or ``"bool"``.
    default
        Default value; a parameter equal to its default is left out of the canonical name.
    check
        Optional predicate with the text of its domain, e.g. ``(lambda k: k >= 1, "an int >= 1")``.
    """

    name: str
    kind: str
    default: Any = None
    check: tuple[Callable[[Any], bool], str] | None = None
    doc: str = ""


def _coerce(measure: str, p: Param, value: Any) -> Any:
    """Coerce and validate one parameter value."""
    if value is None:
        return None
    try:
        if p.kind == "int":
            if isinstance(value, bool):
                raise TypeError
            if isinstance(value, float) and not value.is_integer():
                raise TypeError
            if isinstance(value, str):
                value = int(value)
            value = int(value)
        elif p.kind == "float":
            if isinstance(value, bool):
                raise TypeError
            value = float(value)
            if not math.isfinite(value):
                raise TypeError
        elif p.kind == "str":
            if not isinstance(value, str):
                raise TypeError
        elif p.kind == "bool":
            if isinstance(value, str):
                if value.lower() not in ("true", "false"):
                    raise TypeError
                value = value.lower() == "true"
            elif not isinstance(value, bool):
                raise TypeError
        elif p.kind == "gains":
            if not isinstance(value, Mapping):
                raise TypeError
            value = tuple(sorted((int(k), float(v)) for k, v in value.items()))
        elif p.kind == "floats":
            value = tuple(float(v) for v in value)
    except (TypeError, ValueError):
        expected = p.check[1] if p.check else f"of kind {p.kind}"
        raise MeasureError.bad_param(measure, p.name, expected, value) from None
    if p.check is not None and not p.check[0](value):
        raise MeasureError.bad_param(measure, p.name, p.check[1], value)
    return value


POSITIVE_INT = (lambda k: k >= 1, "an int >= 1")

#: ir_measures' ``judged_only``: drop unjudged documents and re-rank before the measure
#: (trec_eval ``-J`` for one measure). Declaring it is enough: :meth:`Measure.aggregation`
#: applies it.
JUDGED_ONLY = Param("judged_only", "bool", False)


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
                   relevance_level=self.relevance_level, grade_position=pl.col(GRADE_POSITION))

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
        return self.rank.is_not_null()

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
        return self.rank.count() if self.n_ret is None else self.n_ret

    def num_rel_ret(self, rel: int | None = None, cutoff: int | None = None) -> pl.Expr:
        """Number of relevant retrieved documents, optionally within the top ``cutoff``."""
        hit = self.relevant(rel) & self.retrieved
        if cutoff is not None:
            hit = hit & (self.rank <= cutoff).fill_null(False)
        return hit.sum()

    def hit_ranks(self, rel: int | None = None, cutoff: int | None = None) -> tuple[pl.Expr, pl.Expr]:
        """Ranks of the relevant retrieved documents in rank order, and ``1, 2, ...`` beside them.

        The second is the number of relevant documents found so far at each of those ranks
        (their precision is its ratio to the rank): AP, interpolated precision, binG.
        """
        hit = self.relevant(rel) & self.retrieved
        if cutoff is not None:
            hit = hit & (self.rank <= cutoff).fill_null(False)
        ranks = self.rank.filter(hit).sort().cast(pl.Int64)
        return ranks, pl.int_range(1, ranks.len() + 1, dtype=pl.Int64)

    def hit_rank_lists(self, rel: int | None = None) -> tuple[pl.Expr, pl.Expr]:
        """:meth:`hit_ranks` as list columns for the arithmetic after the planner's group_by.

        The ranks (as floats) are one per-query partial, sorted once and shared by every
        measure that reads them (AP, Rprec, RprecMult, IPrec, binG); the second list is ``1.0,
        2.0, ...`` beside them. Only in the planner (:attr:`partials`).
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


def _shared(columns: dict[str, pl.Expr], column: str, value: pl.Expr) -> pl.Expr:
    """Register ``value`` under ``column`` (a shared partial or derived value) and read it."""
    known = columns.setdefault(column, value)
    if not known.meta.eq(value):
        msg = f"two different expressions share the name {column!r}"
        raise AssertionError(msg)
    return pl.col(column)


def fsum(values: pl.Expr) -> pl.Expr:
    """Sum of float values in a fixed order (ascending), whatever order the rows arrive in.

    Float addition is not associative and the rows of a group reach an aggregation in no fixed
    order (joins and the streaming engine do not keep it), so a plain ``sum`` may differ in the
    last bit between runs, engines and partitionings. Sorting first makes every per-query value
    reproducible; filter to the contributing rows before, the sort is then small. (A
    sequential ``cum_sum``: the optimiser drops a sort in front of a plain ``sum``.)
    """
    return values.sort().cum_sum().last().fill_null(0.0)


def ordered_sum(values: pl.Expr, order: pl.Expr) -> pl.Expr:
    """Sum of float values added one by one in the order of ``order``.

    ``order`` is unique within a query (a rank, an ideal position): this is the order trec_eval
    adds in, so per-query values are its bits, and reproducible whatever order the rows arrive
    in (see :func:`fsum`).
    """
    return values.sort_by(order).cum_sum().last().fill_null(0.0)


def running_list(terms: pl.Expr) -> pl.Expr:
    """The running sums of ``terms`` (in their order) as one list per query, led by ``0.0``.

    Its ``i``-th value is the sum of the first ``i`` terms added one by one: for a per-query
    list partial (:meth:`Ctx.partial`) that several values read (:func:`running_at`), where each
    would otherwise sort and sum again. ``terms`` come in a fixed order (sorted by rank or
    ideal position), so every value has :func:`ordered_sum`'s bits.
    """
    return pl.lit(0.0).append(terms.cast(pl.Float64).cum_sum()).implode()


def running_at(running: pl.Expr, count: pl.Expr | int | None = None) -> pl.Expr:
    """The sum of the first ``count`` terms from a :func:`running_list` (all of them for ``None``).

    ``count`` past the end reads the last value; ``count`` <= 0 reads ``0.0``.
    """
    terms = running.list.len().cast(pl.Int64) - 1
    if count is not None:
        count = pl.lit(count, pl.Int64) if isinstance(count, int) else count.cast(pl.Int64)
        terms = pl.min_horizontal(terms, count.clip(lower_bound=0))
    return running.list.get(terms)


def list_running(values: pl.Expr) -> pl.Expr:
    """Per query, the running sums of a list column's values, added one by one in list order.

    For the list arithmetic that measures do after the group_by on their list partials: it runs
    over every query at once, where the same steps inside the aggregation run query by query.
    """
    return values.list.eval(pl.element().cum_sum())


def list_positions(values: pl.Expr) -> pl.Expr:
    """Per query, each value's position in its list from 0, as floats (``0.0, 1.0, ...``).

    The running count of a list's values less one, without a running sum (which runs list by
    list).
    """
    return pl.int_ranges(0, values.list.len()).cast(pl.List(pl.Float64))


def list_running_from_zero(values: pl.Expr) -> pl.Expr:
    """:func:`list_running` led by ``0.0``, as :func:`running_list` is (read with :func:`running_at`)."""
    return pl.concat_list(pl.lit(0.0), list_running(values))


def list_sorted(values: pl.Expr) -> pl.Expr:
    """Per query, a list column's values sorted ascending.

    (Polars 2.1's ``list.sort()`` builds a series per list: ~10x slower than the same sort as a
    ``list.eval``, measured on 50,000 lists of 30 floats.)
    """
    return values.list.eval(pl.element().sort())


def list_ordered_sum(values: pl.Expr) -> pl.Expr:
    """Per query, the sum of a list column's values added one by one in list order (0 if empty)."""
    return list_running(values).list.last().fill_null(0.0)


def list_count_at_most(values: pl.Expr, most: pl.Expr) -> pl.Expr:
    """Per query, how many of a list column's values are at most ``most``, as a float.

    For whole numbers (ranks; ``most`` one per query): list arithmetic after the group_by, where
    each value adds ``clip(most + 1 - value, 0, 1)``. (An empty list sums to ``-0.0``, which
    ``abs`` makes ``0.0``: Polars' in-memory engine drops a ``+ 0.0``.)
    """
    return (most + 1.0 - values).list.eval(pl.element().clip(0.0, 1.0)).list.sum().abs()


def list_at_most(values: pl.Expr, most: pl.Expr) -> pl.Expr:
    """A list column's values, each at most ``most`` (one number per query), as list arithmetic."""
    return values - (values - most).list.eval(pl.element().clip(lower_bound=0))


def falling_sum(values: pl.Expr) -> pl.Expr:
    """:func:`ordered_sum` for terms that never grow along the order (an ideal DCG, bpref).

    Sorted descending they come in that order (equal terms are interchangeable): one plain
    sort instead of a sort by the rank.
    """
    return values.sort(descending=True).cum_sum().last().fill_null(0.0)


#: Whole numbers up to this read ``log2`` from a table of C's ``log2`` (see :func:`c_log2`).
LOG2_TABLE = 1 << 14
_LOG2_KEYS = [float(n) for n in range(1, LOG2_TABLE + 1)]
_LOG2_VALUES = [math.log2(n) for n in _LOG2_KEYS]  # CPython's math.log2 is C's log2


def c_log2(x: pl.Expr) -> pl.Expr:
    """``log2(x)`` as trec_eval's C ``log2`` gives it, for the whole numbers it takes (ranks).

    Polars' ``log(2)`` divides natural logarithms, a last bit away from C's ``log2`` for about
    a third of the integers; whole numbers up to :data:`LOG2_TABLE` read a table computed by
    C's ``log2``, other values fall back to ``log(2)``.
    """
    x = x.cast(pl.Float64)
    return x.replace_strict(_LOG2_KEYS, _LOG2_VALUES, default=x.log(2), return_dtype=pl.Float64)


def log2p1(n: pl.Expr) -> pl.Expr:
    """``log2(n + 1)`` for a rank ``n``: the DCG discount, as trec_eval computes it."""
    return c_log2(n.cast(pl.Float64) + 1.0)


def div_const(num: pl.Expr, k: float) -> pl.Expr:
    """``num / k`` for a constant ``k``, correctly rounded (IEEE division, as trec_eval divides).

    Polars divides a column by a scalar as a multiplication by ``1 / k`` when a chunk holds two
    or more values: 3 / 10 then gives 0.30000000000000004 (not 0.3), and the last bit depends
    on how the rows were chunked. Dividing by a column of ``k`` divides for real.
    """
    return num.cast(pl.Float64) / (num.cast(pl.Float64) * 0.0 + float(k))


def unrolled_sum(term: Callable[[int], pl.Expr], n: int) -> pl.Expr:
    """``term(1) + term(2) + ... + term(n)``, added left to right.

    An :func:`ordered_sum` over the positions ``1..n`` known up front: for a sum over the first
    ``n`` ranks with one plain aggregation per rank (a rank is unique within a query), which
    costs less than sorting each query's terms for small ``n`` (:data:`UNROLL_MAX`). Absent
    positions add ``0.0``, which leaves the sum's bits alone.
    """
    total = term(1)
    for i in range(2, n + 1):
        total = total + term(i)
    return total


#: The longest prefix of ranks summed by :func:`unrolled_sum` (beyond it, a sort per query).
UNROLL_MAX = 20


def safe_div(
    num: pl.Expr, den: pl.Expr, undefined: float = 0.0, *, costly_den: bool = False
) -> pl.Expr:
    """``num / den`` with ``undefined`` where ``den`` is 0.

    ``den`` is referenced twice (the test for 0 and the division): inside an aggregation Polars
    does not share repeated sub-expressions, so for a cheap one (a count, a column's first
    value) that costs a second sum, while a one-reference form that maps 0 to infinity with
    ``replace`` runs group by group (measured ~0.7 us per query, 4-5x a count). With
    ``costly_den`` (an ideal DCG computed in the aggregation, pair counts) and ``undefined ==
    0``, ``den`` is evaluated once: a zero denominator becomes infinite and a finite numerator
    over it gives 0. ``+ 0.0`` turns ``-0.0`` into ``0.0`` under the streaming engine (Polars'
    in-memory engine drops it: a numerator that may be ``-0.0`` needs its own care, see
    :func:`list_count_at_most`).
    """
    if undefined == 0.0:
        if costly_den:
            safe_den = den.cast(pl.Float64).replace(0.0, math.inf)
        else:
            safe_den = pl.when(den == 0).then(math.inf).otherwise(den.cast(pl.Float64))
        return num.cast(pl.Float64) / safe_den + 0.0
    return pl.when(den != 0).then(num.cast(pl.Float64) / den).otherwise(pl.lit(undefined))


class Measure:
    """A parametrised ranking measure (base class of every measure family).

    Subclasses set ``NAME`` (ir_measures-style name), ``PARAMS`` (declarations),
    ``AGGREGATE`` (how per-query values combine), ``UNDEFINED`` (documented value on undefined
    queries) and implement :meth:`expr`. Instances are immutable and hashable; ``repr`` is the
    canonical name and parses back to an equal object.
    """

    NAME: ClassVar[str]
    PARAMS: ClassVar[tuple[Param, ...]] = ()
    AGGREGATE: ClassVar[Aggregation] = "mean"
    DTYPE: ClassVar[type[pl.DataType] | pl.DataType] = pl.Float64
    #: Extra names accepted by the parser (ranx-style, lower-case), mapped to default params.
    ALIASES: ClassVar[Mapping[str, Mapping[str, Any]]] = {}
    #: Whether the "average" tie policy is supported (see the planner).
    SUPPORTS_AVERAGE_TIES: ClassVar[bool] = False
    #: Whether the measure compares the predicted ranking with a target ranking (accepts
    #: ``target=`` columns and keeps predicted ties under ``ties="average"`` by itself).
    COMPARES_RANKINGS: ClassVar[bool] = False
    #: Whether the measure needs :attr:`Ctx.levels` (the planner then scans the targets).
    NEEDS_LEVELS: ClassVar[bool] = False
    #: Whether the measure is defined on a set of target preference pairs alone (it may then
    #: be evaluated against ``evaluate(prefs=...)``).
    PAIRWISE_TARGET: ClassVar[bool] = False
    #: Whether the value depends only on the retrieved documents judged at or above the
    #: measure's level (:meth:`hit_level`), their ranks and grades, :attr:`Ctx.num_ret` and
    #: :meth:`Ctx.judgments` statistics: other rows contribute nothing. The planner then joins
    #: only those judgments to the run (a far smaller group_by, DESIGN.md §4). A test evaluates
    #: every such family both ways and compares the bits.
    HITS_ONLY: ClassVar[bool] = False
    #: For a hits-only measure that also reads judgments below its level: the lowest grade it
    #: reads whatever its level, ``0`` (the judged non-relevant documents: bpref) or
    #: :data:`ANY_GRADE` (every judgment, negative grades included: Judged, infAP).
    HIT_FLOOR: ClassVar[int | None] = None

    __slots__ = ("_params",)

    def __init__(self, **params: Any) -> None:
        declared = {p.name: p for p in self.PARAMS}
        unknown = set(params) - set(declared)
        if unknown:
            allowed = ", ".join(declared) or "none"
            msg = (
                f"{self.NAME} has no parameter {', '.join(sorted(unknown))}. "
                f"Allowed parameters: {allowed}."
            )
            raise MeasureError(msg)
        values = {}
        for name, p in declared.items():
            values[name] = _coerce(self.NAME, p, params.get(name, p.default))
        object.__setattr__(self, "_params", values)
        self.validate()

    def validate(self) -> None:
        """Check cross-parameter constraints (override in families that need it)."""

    def __setattr__(self, name: str, value: Any) -> None:
        msg = f"{type(self).__name__} objects are immutable"
        raise AttributeError(msg)

    def __getattr__(self, name: str) -> Any:
        try:
            return object.__getattribute__(self, "_params")[name]
        except KeyError:
            raise AttributeError(name) from None

    @property
    def params(self) -> dict[str, Any]:
        """The parameter values, defaults included."""
        return dict(self._params)

    def replace(self, **params: Any) -> Measure:
        """Return a copy with some parameters changed."""
        return type(self)(**{**self._params, **params})

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other._params == self._params  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((type(self).__name__, tuple(sorted(self._params.items(), key=str))))

    def __repr__(self) -> str:
        parts = []
        for p in self.PARAMS:
            if p.name == "cutoff":
                continue
            v = self._params[p.name]
            if v == p.default:
                continue
            parts.append(f"{p.name}={_format_value(p, v)}")
        s = self.NAME + (f"({','.join(parts)})" if parts else "")
        cutoff = self._params.get("cutoff")
        if cutoff is not None:
            s += f"@{_format_number(cutoff)}"
        return s

    __str__ = __repr__

    def __matmul__(self, cutoff: Any) -> Measure:
        """``P @ 5`` is ``P@5`` (ir_measures style)."""
        return self.replace(cutoff=cutoff)

    def __call__(self, **params: Any) -> Measure:
        """``P(rel=2)`` returns a new measure with ``rel=2``."""
        return self.replace(**params)

    def aggregation(self, ctx: Ctx) -> pl.Expr:
        """Return the per-query expression, named by ``repr``, with ``judged_only`` applied."""
        if self._params.get("judged_only"):
            ctx = ctx.only_judged()
        return self.expr(ctx).alias(repr(self))

    def expr(self, ctx: Ctx) -> pl.Expr:
        """Return the per-query aggregation expression of this measure (subclasses)."""
        raise NotImplementedError

    def hit_level(self, relevance_level: int) -> int | None:
        """The lowest grade whose retrieved documents the value reads (see :attr:`HITS_ONLY`).

        ``None``: the measure needs every row (not hits-only, or ``judged_only``). The default
        is the measure's ``rel`` parameter, else the evaluation's relevance level, lowered to
        :attr:`HIT_FLOOR` when the measure has one.
        """
        if not self.HITS_ONLY or self._params.get("judged_only"):
            return None
        rel = self._params.get("rel")
        level = relevance_level if rel is None else rel
        return level if self.HIT_FLOOR is None else min(self.HIT_FLOOR, level)


def _format_number(v: Any) -> str:
    if isinstance(v, float) and v.is_integer() and abs(v) < 1e15:
        return repr(v)  # keep floats visibly floats, e.g. 0.5 / 1.0
    return repr(v) if not isinstance(v, str) else v


def _format_value(p: Param, v: Any) -> str:
    if p.kind == "gains":
        return "{" + ", ".join(f"{k}: {_format_number(g)}" for k, g in v) + "}"
    if p.kind == "floats":
        return "(" + ", ".join(_format_number(x) for x in v) + ("," if len(v) == 1 else "") + ")"
    if p.kind == "str":
        return repr(v)
    return _format_number(v)


# ----------------------------------------------------------------------------- registry
REGISTRY: dict[str, type[Measure]] = {}

#: trec_eval measure names -> parser returning the measures for a parameter string.
TREC_NAMES: dict[str, Callable[[str | None], list[Measure]]] = {}


def register(cls: type[Measure]) -> type[Measure]:
    """Class decorator adding a measure family to the registry."""
    old = REGISTRY.get(cls.NAME)
    if old is not None and old.__qualname__ + old.__module__ != cls.__qualname__ + cls.__module__:
        msg = f"measure {cls.NAME!r} registered twice ({old.__module__} and {cls.__module__})"
        raise RuntimeError(msg)
    REGISTRY[cls.NAME] = cls
    return cls


def register_trec(name: str, parse: Callable[[str | None], list[Measure]]) -> None:
    """Register a trec_eval measure name and how its parameter string maps to measures."""
    TREC_NAMES[name] = parse


def families() -> Iterator[type[Measure]]:
    """Iterate over registered measure families in name order."""
    for name in sorted(REGISTRY, key=str.lower):
        yield REGISTRY[name]
