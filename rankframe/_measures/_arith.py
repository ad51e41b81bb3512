"""Exact arithmetic on expressions: sums in a fixed order, list arithmetic, C's log2, safe division.

Every per-query value is added in trec_eval's order so that engines and partitionings agree bit
for bit; these helpers are the one place that order is written down.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable

import polars as pl


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


def running_at(running: pl.Expr, count: pl.Expr | int | None = None) -> pl.Expr:
    """The sum of the first ``count`` terms from a running list led by ``0.0`` (all for ``None``).

    ``running`` comes from :func:`list_running_from_zero`: its ``i``-th value is the sum of the
    first ``i`` terms added one by one. ``count`` past the end reads the last value; ``count``
    <= 0 reads ``0.0``.
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
    """:func:`list_running` led by ``0.0`` (read with :func:`running_at`)."""
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
    keys, values = _log2_table()
    return x.replace_strict(keys, values, default=x.log(2), return_dtype=pl.Float64)


@functools.cache
def _log2_table() -> tuple[pl.Expr, pl.Expr]:
    """The table of :func:`c_log2` as literals, built once (from lists it costs ~5 ms a use).

    Scalar list literals, as ``replace_strict`` makes of Python lists: a Series literal would
    be a column, and inside an aggregation turn a scalar's replacement into a list.
    """
    return pl.lit(_LOG2_KEYS, dtype=pl.List(pl.Float64)), pl.lit(_LOG2_VALUES, dtype=pl.List(pl.Float64))


def log2p1(n: pl.Expr) -> pl.Expr:
    """``log2(n + 1)`` for a rank ``n``: the DCG discount, as trec_eval computes it."""
    return c_log2(n.cast(pl.Float64) + 1.0)


def true_div(num: pl.Expr, den: pl.Expr | float) -> pl.Expr:
    """``num / den`` correctly rounded (IEEE division, as trec_eval divides) per row.

    Polars divides a column by a broadcast value (a constant, a per-query scalar) as a
    multiplication by its reciprocal when a chunk holds two or more values: 3 / 10 then gives
    0.30000000000000004 (not 0.3), 1.5 / 2.5 gives 0.6000000000000001, and the last bit depends
    on the plan and how the rows were chunked. Dividing by a column of ``den`` divides for real.
    ``num`` is a float column, or a list column of floats (the division then runs per element).
    """
    return num / (num * 0.0 + den)


def div_const(num: pl.Expr, k: float) -> pl.Expr:
    """``num / k`` for a constant ``k``, correctly rounded (see :func:`true_div`)."""
    return true_div(num.cast(pl.Float64), float(k))


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
