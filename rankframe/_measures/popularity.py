"""Popularity bias of the recommendations: average popularity and the long tail's share.

``ARP@k`` (average recommendation popularity) and ``APLT@k`` (average percentage of long-tail
items) read the top ``k`` of each ranking and the training history (``interactions=``), no
judgments; per user, averaged.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from rankframe._measures._params import POSITIVE_INT, Param
from rankframe._measures._registry import register
from rankframe._measures.novelty import _TopK

if TYPE_CHECKING:
    from rankframe._measures._ctx import Ctx


@register
class ARP(_TopK):
    r"""Average recommendation popularity: the mean popularity of the top ``k`` items.

    Parameters
    ----------
    cutoff : int
        ``k``.

    Notes
    -----
    .. math:: ARP@k(u) = \frac{1}{|\mathrm{top}_k(u)|} \sum_{i \in \mathrm{top}_k(u)} \phi(i)

    with :math:`\phi(i)` the interactions of item :math:`i` in ``interactions=`` (rows, or
    summed weights; 0 for items the history lacks) and :math:`|\mathrm{top}_k(u)| = \min(k,
    n_u)`. Averaged over the evaluated users. Not bounded: it is in the history's units.

    References
    ----------
    Abdollahpouri, H., Burke, R. & Mobasher, B. (2019). Managing popularity bias in
    recommender systems with personalized re-ranking. FLAIRS 2019.

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> run = pl.DataFrame({"user_id": [1, 1], "item_id": [10, 11], "score": [2.0, 1.0]})
    >>> train = pl.DataFrame({"user_id": [1, 2, 3], "item_id": [10, 10, 12]})
    >>> rf.evaluate(None, run, ["ARP@2"], interactions=train).item(0, "value")
    1.0
    """

    NAME = "ARP"
    BOUNDS = None
    SIDE_COLUMNS = frozenset({"item_interactions"})

    def expr(self, ctx: Ctx) -> pl.Expr:
        """Return the per-query expression."""
        return ctx.side("item_interactions").filter(self.top_rows(ctx)).mean()


@register
class APLT(_TopK):
    r"""Average percentage of long-tail items: the share of the top ``k`` outside the popular head.

    Parameters
    ----------
    cutoff : int
        ``k``.
    head : float
        The short head's share of the history's items: its ``ceil(head * n)`` most interacted
        items (ties: item id descending), 0.2 by default.

    Notes
    -----
    .. math:: APLT@k(u) = \frac{|\mathrm{top}_k(u) \setminus H|}{|\mathrm{top}_k(u)|}

    with :math:`H` the short head of ``interactions=`` and :math:`|\mathrm{top}_k(u)| =
    \min(k, n_u)`. Items the history lacks are in the long tail. Averaged over the evaluated
    users.

    References
    ----------
    Abdollahpouri, H., Burke, R. & Mobasher, B. (2017). Controlling popularity bias in
    learning-to-rank recommendation. RecSys 2017.

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> run = pl.DataFrame({"user_id": [1, 1], "item_id": [10, 11], "score": [2.0, 1.0]})
    >>> train = pl.DataFrame({"user_id": [1, 2, 3, 1, 2], "item_id": [10, 10, 10, 11, 12]})
    >>> # 3 items, head: the ceil(0.2 * 3) = 1 most popular (10); 11 is in the tail
    >>> rf.evaluate(None, run, ["APLT@2"], interactions=train).item(0, "value")
    0.5
    """

    NAME = "APLT"
    PARAMS = (
        Param("cutoff", "int", None, POSITIVE_INT),
        Param("head", "float", 0.2, (lambda v: 0.0 <= v <= 1.0, "a share between 0 and 1")),
    )
    SIDE_COLUMNS = frozenset({"item_head", "n_items"})

    def expr(self, ctx: Ctx) -> pl.Expr:
        """Return the per-query expression."""
        n_head = (ctx.side("n_items") * self.head).ceil()
        in_head = (ctx.side("item_head").cast(pl.Float64) <= n_head).fill_null(False)
        tail = (~in_head).filter(self.top_rows(ctx))
        return tail.sum().cast(pl.Float64) / tail.len().cast(pl.Float64)

