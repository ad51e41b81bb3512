"""Diversity within each recommendation list: categories (RePlay) and feature similarity (Recommenders).

``CategoricalDiversity@k`` and ``IntraListDiversity@k`` read the top ``k`` of each ranking and
the item catalogue (``items=``), no judgments; per user, averaged.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import polars as pl

from rankframe._measures._params import POSITIVE_INT, Param
from rankframe._measures._registry import register
from rankframe._measures.novelty import _TopK

if TYPE_CHECKING:
    from rankframe._measures._ctx import Ctx


@register
class CategoricalDiversity(_TopK):
    r"""Categorical diversity: distinct categories of the top ``k`` items, over ``k``.

    Parameters
    ----------
    cutoff : int
        ``k``.

    Notes
    -----
    .. math:: CategoricalDiversity@k(u) = \frac{\big|\bigcup_{i \in \mathrm{top}_k(u)}
        C(i)\big|}{k}

    with :math:`C(i)` the categories of item :math:`i` in the catalogue (``items=``): the
    values of its category columns (every column beside the item id, ``features`` and
    ``popularity``; several columns give multi-label items). An item the catalogue lacks adds
    no category. Divided by ``k`` even when fewer items are recommended; averaged over the
    evaluated users (RePlay's ``CategoricalDiversity``, whose rows are the categories of the
    recommended items). At most 1 with one category column; with ``c`` of them an item brings
    up to ``c`` categories and the value may reach ``c``.

    References
    ----------
    Ziegler, C.-N., McNee, S. M., Konstan, J. A. & Lausen, G. (2005). Improving recommendation
    lists through topic diversification. WWW 2005. RePlay's ``CategoricalDiversity``.

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> run = pl.DataFrame({"user_id": [1, 1, 1], "item_id": [10, 11, 12], "score": [3.0, 2.0, 1.0]})
    >>> items = pl.DataFrame({"item_id": [10, 11, 12], "genre": ["a", "a", "b"]})
    >>> rf.evaluate(None, run, ["CategoricalDiversity@2", "CategoricalDiversity@3"], items=items)[
    ...     "value"].round(4).to_list()
    [0.5, 0.6667]
    """

    NAME = "CategoricalDiversity"
    #: up to the number of category columns (multi-label items): not bounded by 1
    BOUNDS = (0.0, math.inf)
    SIDE_COLUMNS = frozenset({"category"})

    def expr(self, ctx: Ctx) -> pl.Expr:
        """Return the per-query expression."""
        cats = ctx.side("category").filter(self.top_rows(ctx))
        distinct = cats.list.explode(keep_nulls=False, empty_as_null=False).drop_nulls().n_unique()
        return distinct.cast(pl.Float64) / float(self.cutoff)


SIMILARITIES = ("cosine",)


@register
class IntraListDiversity(_TopK):
    r"""Intra-list diversity: 1 - the mean similarity of the pairs of items in the top ``k``.

    Parameters
    ----------
    cutoff : int
        ``k``.
    similarity : str
        ``"cosine"``: the cosine of the items' feature vectors (the catalogue's ``features``
        column, ``items=``).

    Notes
    -----
    .. math:: ILD@k(u) = 1 - \frac{2}{n(n - 1)} \sum_{i < j \in \mathrm{top}_k(u)}
        \cos(f_i, f_j), \quad n = |\mathrm{top}_k(u)|

    Computed from the sum :math:`S` of the unit vectors as
    :math:`1 - (|S|^2 - n) / (n(n - 1))`. Between 0 and 2: feature vectors with negative
    components may point apart (a cosine of -1 gives 2). A user with fewer than 2 items has
    no pair: its value is null and the mean over users leaves it out (as Microsoft
    Recommenders' ``diversity`` does); an item the catalogue lacks has no features and is
    left out of its list.

    References
    ----------
    Ziegler, C.-N., McNee, S. M., Konstan, J. A. & Lausen, G. (2005). Improving recommendation
    lists through topic diversification. WWW 2005. Microsoft Recommenders' ``diversity`` with
    ``item_sim_measure="item_feature_vector"``.

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> run = pl.DataFrame({"user_id": [1, 1], "item_id": [10, 11], "score": [2.0, 1.0]})
    >>> items = pl.DataFrame({"item_id": [10, 11], "features": [[1.0, 0.0], [1.0, 1.0]]})
    >>> round(rf.evaluate(None, run, ["IntraListDiversity@2"], items=items).item(0, "value"), 6)
    0.292893
    """

    NAME = "IntraListDiversity"
    PARAMS = (
        Param("cutoff", "int", None, POSITIVE_INT),
        Param("similarity", "str", "cosine", (lambda v: v in SIMILARITIES, "'cosine'")),
    )
    #: 1 - a mean cosine in [-1, 1]
    BOUNDS = (0.0, 2.0)
    SIDE_COLUMNS = frozenset({"features"})
    EMPTY = None  # no pair: undefined, left out of the mean

    def expr(self, ctx: Ctx) -> pl.Expr:
        """Return the per-query expression."""
        units = ctx.unit_features()
        keep = self.top_rows(ctx) & units[0].is_not_null()
        n = units[0].filter(keep).len().cast(pl.Float64)
        squared = pl.sum_horizontal(u.filter(keep).sum() ** 2 for u in units)
        value = 1.0 - (squared - n) / (n * (n - 1.0))
        return pl.when(n >= 2).then(value)
