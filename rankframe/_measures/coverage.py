"""Coverage of the catalogue by the recommendations: population measures (one value per run or group).

``Coverage@k`` (RePlay), ``CatalogCoverage@k`` and ``DistributionalCoverage@k`` (Microsoft
Recommenders), ``Gini@k`` (inequality of exposure). Each query contributes its top ``k``
items (its per-query state); the measure reduces the states of a run's (or breakdown
group's) evaluated queries at once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from rankframe._measures._measure import Measure
from rankframe._measures._params import POSITIVE_INT, Param
from rankframe._measures._registry import register

if TYPE_CHECKING:
    from rankframe._measures._ctx import Ctx, PopulationCtx

_HISTORY = "interactions=... (the training history, whose items are the catalogue)"


def _top_items(ctx: Ctx, cutoff: int | None, among: str | None = None) -> pl.Expr:
    """The query's items of rank <= ``cutoff`` (all of them without one), as its state.

    ``among``: a boolean side column the items must hold (``"item_known"``: in the history).
    """
    keep = None if among is None else ctx.side(among)
    if cutoff is not None:
        top = ctx.rank <= cutoff
        keep = top if keep is None else keep & top
    doc = ctx.side("doc")
    return doc if keep is None else doc.filter(keep)


def _items(state: pl.Expr) -> pl.Expr:
    """Every item of the group's states, once per query that shows it."""
    return state.list.explode(keep_nulls=False, empty_as_null=False)


class _Population(Measure):
    KIND = "population"
    NEEDS_JUDGMENTS = False
    AGGREGATE = "mean"  # (unused: population measures are reduced, not averaged)
    PARAMS = (Param("cutoff", "int", None, POSITIVE_INT),)

    def expr(self, ctx: Ctx) -> pl.Expr:
        """Return the per-query state: the top ``k`` items."""
        return _top_items(ctx, self.cutoff)


@register
class Coverage(_Population):
    r"""Coverage of the training items: the share of them recommended in some top ``k``.

    Parameters
    ----------
    cutoff : int, optional
        ``k``: the items of rank <= ``k`` of each ranking (all without it).

    Notes
    -----
    .. math:: Coverage@k = \frac{\big|\bigcup_{u} \mathrm{top}_k(u) \cap I_{train}\big|}{|I_{train}|}

    with :math:`I_{train}` the distinct items of ``interactions=`` (the training history) and
    :math:`u` the evaluated queries (users) of the run or breakdown group. Recommended items
    that the history lacks count for nothing (RePlay's ``Coverage``). A population measure:
    one value per run or group, no per-query values.

    References
    ----------
    Ge, M., Delgado-Battenfeld, C. & Jannach, D. (2010). Beyond accuracy: evaluating
    recommender systems by coverage and serendipity. RecSys 2010. RePlay's ``Coverage``.

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> run = pl.DataFrame({"user_id": [1, 1, 2, 2], "item_id": [10, 11, 10, 12],
    ...                     "score": [2.0, 1.0, 2.0, 1.0]})
    >>> train = pl.DataFrame({"user_id": [1, 2, 3, 3], "item_id": [10, 11, 12, 13]})
    >>> # top 1: item 10 only, 1 of 4 training items; top 2: 10, 11, 12
    >>> rf.evaluate(None, run, ["Coverage@1", "Coverage@2"], interactions=train)["value"].to_list()
    [0.25, 0.75]
    """

    NAME = "Coverage"
    BOUNDS = (0.0, 1.0)
    #: the state keeps the items the history holds (an item of no user is not counted)
    SIDE_COLUMNS = frozenset({"item_known", "n_items"})

    def expr(self, ctx: Ctx) -> pl.Expr:
        """Return the per-query state: the top ``k`` items that the history holds."""
        return _top_items(ctx, self.cutoff, among="item_known")

    def population(self, state: pl.Expr, ctx: PopulationCtx) -> pl.Expr:
        """Return the group's coverage from the queries' top items."""
        n = ctx.need("n_items", repr(self), _HISTORY)
        return _items(state).n_unique().cast(pl.Float64) / n


@register
class CatalogCoverage(_Population):
    r"""Catalogue coverage: distinct items recommended in some top ``k``, over the catalogue's size.

    Parameters
    ----------
    cutoff : int, optional
        ``k``: the items of rank <= ``k`` of each ranking (all without it).

    Notes
    -----
    .. math:: CatalogCoverage@k = \frac{\big|\bigcup_{u} \mathrm{top}_k(u)\big|}{|I|}

    with :math:`I` the catalogue: the items of ``items=``, else the distinct items of
    ``interactions=``. Every recommended item counts, in the catalogue or not (Microsoft
    Recommenders' ``catalog_coverage``, which may exceed 1 so); :class:`Coverage` counts
    only the history's items.

    References
    ----------
    Shani, G. & Gunawardana, A. (2011). Evaluating recommendation systems. Recommender Systems
    Handbook, 257-297. Microsoft Recommenders' ``catalog_coverage``.

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> run = pl.DataFrame({"user_id": [1, 1, 2], "item_id": [10, 11, 99], "score": [2.0, 1.0, 2.0]})
    >>> catalogue = pl.DataFrame({"item_id": [10, 11, 12, 13]})
    >>> rf.evaluate(None, run, ["CatalogCoverage@1"], items=catalogue).item(0, "value")
    0.5
    """

    NAME = "CatalogCoverage"
    SIDE_COLUMNS = frozenset({"in_catalogue", "n_catalogue"})

    def population(self, state: pl.Expr, ctx: PopulationCtx) -> pl.Expr:
        """Return the group's catalogue coverage."""
        n = ctx.need("n_catalogue", repr(self), "items=... (the catalogue) or " + _HISTORY)
        return _items(state).n_unique().cast(pl.Float64) / n


@register
class DistributionalCoverage(_Population):
    r"""Distributional coverage: the entropy (bits) of the items' shares of the recommendations.

    Parameters
    ----------
    cutoff : int, optional
        ``k``: the items of rank <= ``k`` of each ranking (all without it).

    Notes
    -----
    .. math:: DistributionalCoverage@k = -\sum_{i} p(i) \log_2 p(i), \quad
        p(i) = \frac{|\{u : i \in \mathrm{top}_k(u)\}|}{\sum_u |\mathrm{top}_k(u)|}

    0 when every recommendation is the same item, :math:`\log_2 n` when ``n`` items are
    recommended equally often. It reads the run alone (no side input).

    References
    ----------
    Shani, G. & Gunawardana, A. (2011). Evaluating recommendation systems. Recommender Systems
    Handbook, 257-297 (eq. 21). Microsoft Recommenders' ``distributional_coverage``.

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> run = pl.DataFrame({"user_id": [1, 1, 2, 2], "item_id": [10, 11, 10, 12],
    ...                     "score": [2.0, 1.0, 2.0, 1.0]})
    >>> # top 2: item 10 twice, 11 and 12 once: -(0.5 log2 0.5 + 2 * 0.25 log2 0.25)
    >>> rf.evaluate(None, run, ["DistributionalCoverage@2"]).item(0, "value")
    1.5
    """

    NAME = "DistributionalCoverage"

    def population(self, state: pl.Expr, ctx: PopulationCtx) -> pl.Expr:
        """Return the group's entropy of recommendations."""
        counts = _items(state).unique_counts().cast(pl.Float64)
        p = counts / counts.sum()
        return (-(p * p.log(2)).sum()).abs()  # (every term is <= 0: abs turns -0.0 into 0.0)


@register
class Gini(_Population):
    r"""Gini index of the catalogue items' exposure in the top ``k`` (0: equal, near 1: concentrated).

    Parameters
    ----------
    cutoff : int, optional
        ``k``: the items of rank <= ``k`` of each ranking (all without it).

    Notes
    -----
    With :math:`x_{(1)} \le \dots \le x_{(n)}` the number of top-``k`` lists showing each of
    the :math:`n` catalogue items (never-shown items count 0):

    .. math:: Gini@k = \frac{\sum_{j=1}^{n} (2j - n - 1)\, x_{(j)}}{n \sum_j x_{(j)}}

    The catalogue is ``items=``, else the items of ``interactions=``; recommended items
    outside it are not counted. 0 when nothing of the catalogue is shown.

    References
    ----------
    Fleder, D. & Hosanagar, K. (2009). Blockbuster culture's next rise or fall: the impact of
    recommender systems on sales diversity. Management Science 55(5).

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> run = pl.DataFrame({"user_id": [1, 2], "item_id": [10, 10], "score": [1.0, 1.0]})
    >>> catalogue = pl.DataFrame({"item_id": [10, 11]})
    >>> # exposures (0, 2): (-1 * 0 + 1 * 2) / (2 * 2)
    >>> rf.evaluate(None, run, ["Gini@1"], items=catalogue).item(0, "value")
    0.5
    """

    NAME = "Gini"
    BOUNDS = (0.0, 1.0)
    SIDE_COLUMNS = frozenset({"in_catalogue", "n_catalogue"})

    def expr(self, ctx: Ctx) -> pl.Expr:
        """Return the per-query state: the top ``k`` items of the catalogue."""
        return _top_items(ctx, self.cutoff, among="in_catalogue")

    def population(self, state: pl.Expr, ctx: PopulationCtx) -> pl.Expr:
        """Return the group's Gini index of exposure."""
        n = float(ctx.need("n_catalogue", repr(self), "items=... (the catalogue) or " + _HISTORY))
        x = _items(state).unique_counts().cast(pl.Float64).sort()
        # the shown items take the top places j = n - m + 1 ... n (never-shown items are zeros)
        m = x.len().cast(pl.Float64)
        j = n - m + pl.int_range(1, x.len() + 1, dtype=pl.Int64).cast(pl.Float64)
        total = x.sum()
        value = ((2.0 * j - n - 1.0) * x).sum() / (n * total)
        return pl.when(total > 0).then(value).otherwise(0.0)


@register
class UserCoverage(_Population):
    r"""User coverage: the share of the history's users who get at least ``k`` recommendations.

    Parameters
    ----------
    cutoff : int, optional
        ``k``: the users with ``k`` recommended items or more count (1 without it).

    Notes
    -----
    .. math:: UserCoverage@k = \frac{|\{u \in U : n_u \ge k\}|}{|U|}

    with :math:`U` the users of ``interactions=`` (the training history) and :math:`n_u` the
    items the run recommends to :math:`u` (after ``depth``). Users the history lacks do not
    count. Elliot's ``UserCoverage`` (without a cutoff) and ``UserCoverageAtN``.

    References
    ----------
    Ge, M., Delgado-Battenfeld, C. & Jannach, D. (2010). Beyond accuracy: evaluating
    recommender systems by coverage and serendipity. RecSys 2010.

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> run = pl.DataFrame({"user_id": [1, 1, 2, 9], "item_id": [10, 11, 10, 12], "score": [2.0, 1, 2, 1]})
    >>> train = pl.DataFrame({"user_id": [1, 2, 3, 4], "item_id": [10, 11, 12, 13]})
    >>> # users 1 and 2 of the 4 in the history get a recommendation; only user 1 gets two
    >>> rf.evaluate(None, run, ["UserCoverage", "UserCoverage@2"], interactions=train)["value"].to_list()
    [0.5, 0.25]
    """

    NAME = "UserCoverage"
    BOUNDS = (0.0, 1.0)
    SUPPORTS_AVERAGE_TIES = True  # counts the items: does not depend on their order
    SIDE_COLUMNS = frozenset({"user_known", "n_users"})

    def expr(self, ctx: Ctx) -> pl.Expr:
        """Return the per-query state: whether the user is in the history and gets ``k`` items."""
        return ctx.side("user_known").first() & (ctx.rank.count() >= (self.cutoff or 1))

    @property
    def top(self) -> int | None:
        """The ranks read: ``k`` of them tell whether a user gets ``k`` items."""
        return self.cutoff or 1

    def population(self, state: pl.Expr, ctx: PopulationCtx) -> pl.Expr:
        """Return the group's user coverage."""
        n = ctx.need("n_users", repr(self), "interactions=... (the training history, whose users count)")
        return state.fill_null(False).sum().cast(pl.Float64) / n
