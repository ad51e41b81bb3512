"""Novelty of the recommendations against the training history, and unexpectedness against another run.

``Novelty@k``, ``Surprisal@k``, ``Unexpectedness@k`` (RePlay; per user, averaged),
``Serendipity@k`` (Microsoft Recommenders' ``serendipity``), ``SelfInformation@k`` (its
``novelty``; a population measure). They read the top ``k`` of each ranking and the side
inputs, no judgments.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import polars as pl

from rankframe._errors import MeasureError
from rankframe._measures._measure import Measure
from rankframe._measures._params import POSITIVE_INT, Param
from rankframe._measures._registry import register

if TYPE_CHECKING:
    from rankframe._measures._ctx import Ctx, PopulationCtx


class _TopK(Measure):
    """A per-query measure of the top ``k`` items and the side inputs (needs the cutoff)."""

    NEEDS_JUDGMENTS = False
    BOUNDS = (0.0, 1.0)
    PARAMS = (Param("cutoff", "int", None, POSITIVE_INT),)

    def validate(self) -> None:
        """Require the cutoff."""
        if self.cutoff is None:
            msg = f"{self.NAME} needs a cutoff after '@', e.g. '{self.NAME}@10'."
            raise MeasureError(msg)

    def top_rows(self, ctx: Ctx) -> pl.Expr:
        """Whether a row is in the top ``k``."""
        return ctx.rank <= self.cutoff


@register
class Novelty(_TopK):
    r"""Novelty: the share of the top ``k`` that the user has not interacted with in the history.

    Parameters
    ----------
    cutoff : int
        ``k``.

    Notes
    -----
    .. math:: Novelty@k(u) = 1 - \frac{|\mathrm{top}_k(u) \cap H_u|}{|\mathrm{top}_k(u)|}

    with :math:`H_u` the items of user :math:`u` in ``interactions=`` (the training history)
    and :math:`|\mathrm{top}_k(u)| = \min(k, n_u)`. A user without history scores 1, and so
    does a user without recommendations (a judged query missing from the run, with
    ``complete=True``). Averaged over the evaluated users. RePlay's ``Novelty`` averages over
    the users of the history: judge the run by the history (``qrels=`` the interactions)
    with ``complete=True`` for its number.

    References
    ----------
    Castells, P., Hurley, N. J. & Vargas, S. (2015). Novelty and diversity in recommender
    systems. Recommender Systems Handbook, 881-918. RePlay's ``Novelty``.

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> run = pl.DataFrame({"user_id": [1, 1, 2], "item_id": [10, 11, 10], "score": [2.0, 1.0, 1.0]})
    >>> train = pl.DataFrame({"user_id": [1], "item_id": [11]})
    >>> # user 1: 11 seen of 2 -> 0.5; user 2: no history -> 1
    >>> rf.evaluate(None, run, ["Novelty@2"], interactions=train, per_query=True)["value"].to_list()
    [0.5, 1.0]
    """

    NAME = "Novelty"
    SIDE_COLUMNS = frozenset({"seen"})
    EMPTY = 1.0  # nothing recommended is nothing seen (RePlay's rule)

    def expr(self, ctx: Ctx) -> pl.Expr:
        """Return the per-query expression."""
        top = self.top_rows(ctx)
        seen = ctx.side("seen").filter(top)
        return 1.0 - seen.sum().cast(pl.Float64) / seen.len().cast(pl.Float64)


@register
class Surprisal(_TopK):
    r"""Surprisal: the mean normalised self-information of the top ``k`` items.

    Parameters
    ----------
    cutoff : int
        ``k``.

    Notes
    -----
    With :math:`N` the users of ``interactions=`` and :math:`u_i` those who interacted with
    item :math:`i`:

    .. math:: Surprisal@k(u) = \frac{1}{k} \sum_{i \in \mathrm{top}_k(u)}
        \frac{\log_2 (N / u_i)}{\log_2 N}

    An item the history lacks weighs 1 (the most surprising); the sum is divided by ``k``
    even when fewer items are recommended. With a history of one user every known item weighs
    0. Averaged over the evaluated users (RePlay's ``Surprisal``).

    References
    ----------
    Kaminskas, M. & Bridge, D. (2016). Diversity, serendipity, novelty, and coverage: a survey
    and empirical analysis of beyond-accuracy objectives in recommender systems. ACM TiiS 7(1).
    RePlay's ``Surprisal``.

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> run = pl.DataFrame({"user_id": [1, 1], "item_id": [10, 11], "score": [2.0, 1.0]})
    >>> train = pl.DataFrame({"user_id": [1, 2, 3, 4], "item_id": [10, 10, 10, 10]})
    >>> # item 10: every user, weight 0; item 11 unknown, weight 1: (0 + 1) / 2
    >>> rf.evaluate(None, run, ["Surprisal@2"], interactions=train).item(0, "value")
    0.5
    """

    NAME = "Surprisal"
    SIDE_COLUMNS = frozenset({"item_users", "n_users"})

    def expr(self, ctx: Ctx) -> pl.Expr:
        """Return the per-query expression."""
        n = ctx.side("n_users")
        users = ctx.side("item_users").cast(pl.Float64)
        known = (n / users).log(2) / n.log(2)
        weight = (
            pl.when(users == 0).then(1.0).when(n <= 1).then(0.0).otherwise(known)
        )
        return weight.filter(self.top_rows(ctx)).sum() / float(self.cutoff)


@register
class Unexpectedness(_TopK):
    r"""Unexpectedness: the share of the top ``k`` that the reference run's top ``k`` lacks.

    Parameters
    ----------
    cutoff : int
        ``k``.

    Notes
    -----
    .. math:: Unexpectedness@k(u) = 1 - \frac{|\mathrm{top}_k(u) \cap
        \mathrm{top}_k^{ref}(u)|}{k}

    with :math:`\mathrm{top}_k^{ref}(u)` the top ``k`` of ``reference=`` for the same user
    (ordered as runs are: score descending, ties by item id descending). A user the reference
    run lacks scores 0 (RePlay's rule). Averaged over the evaluated users.

    References
    ----------
    Adamopoulos, P. & Tuzhilin, A. (2014). On unexpectedness in recommender systems. ACM TIST
    5(4). RePlay's ``Unexpectedness``.

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> run = pl.DataFrame({"user_id": [1, 1], "item_id": [10, 11], "score": [2.0, 1.0]})
    >>> ref = pl.DataFrame({"user_id": [1, 1], "item_id": [11, 12], "score": [2.0, 1.0]})
    >>> rf.evaluate(None, run, ["Unexpectedness@2"], reference=ref).item(0, "value")
    0.5
    """

    NAME = "Unexpectedness"
    SIDE_COLUMNS = frozenset({"ref_rank", "ref_count"})

    def expr(self, ctx: Ctx) -> pl.Expr:
        """Return the per-query expression."""
        top = self.top_rows(ctx)
        common = (ctx.side("ref_rank").filter(top) <= self.cutoff).fill_null(False).sum()
        value = 1.0 - common.cast(pl.Float64) / float(self.cutoff)
        return pl.when(ctx.side("ref_count").first() > 0).then(value).otherwise(0.0)


@register
class SelfInformation(Measure):
    r"""Self-information of the recommendations: the mean novelty of a recommended item (bits).

    Parameters
    ----------
    cutoff : int, optional
        ``k``: the items of rank <= ``k`` of each ranking (all without it).

    Notes
    -----
    With :math:`c_i` the interactions of item :math:`i` in ``interactions=`` (rows, or summed
    weights) and :math:`C = \sum_i c_i`, over every recommendation :math:`(u, i)` of the
    top-``k`` lists:

    .. math:: SelfInformation@k = \frac{1}{|R_k|} \sum_{(u, i) \in R_k,\ c_i > 0}
        -\log_2 \frac{c_i}{C}

    Items the history lacks add nothing to the sum but count in :math:`|R_k|` (Microsoft
    Recommenders' ``novelty``, the item choice model of Castells et al.). A population
    measure: a mean over recommendations, not over users.

    References
    ----------
    Castells, P., Vargas, S. & Wang, J. (2011). Novelty and diversity metrics for recommender
    systems: choice, discovery and relevance. ECIR 2011. Microsoft Recommenders' ``novelty``.

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> run = pl.DataFrame({"user_id": [1, 2], "item_id": [10, 11], "score": [1.0, 1.0]})
    >>> train = pl.DataFrame({"user_id": [1, 2, 3, 3], "item_id": [10, 11, 11, 12]})
    >>> # item 10: -log2(1/4) = 2; item 11: -log2(2/4) = 1
    >>> rf.evaluate(None, run, ["SelfInformation"], interactions=train).item(0, "value")
    1.5
    """

    NAME = "SelfInformation"
    KIND = "population"
    NEEDS_JUDGMENTS = False
    PARAMS = (Param("cutoff", "int", None, POSITIVE_INT),)
    SIDE_COLUMNS = frozenset({"item_interactions", "n_interactions"})

    def expr(self, ctx: Ctx) -> pl.Expr:
        """Return the per-query state: the sum of the top items' self-information, and their count."""
        c = ctx.side("item_interactions")
        info = pl.when(c > 0).then(-(c / ctx.side("n_interactions")).log(2)).otherwise(0.0)
        if self.cutoff is not None:
            info = info.filter(ctx.rank <= self.cutoff)
        return pl.struct(info.sum().alias("sum"), info.len().cast(pl.Float64).alias("n"))

    def population(self, state: pl.Expr, ctx: PopulationCtx) -> pl.Expr:
        """Return the group's mean self-information per recommendation."""
        n = state.struct.field("n").sum()
        return pl.when(n > 0).then(state.struct.field("sum").sum() / n)


@register
class Serendipity(_TopK):
    r"""Serendipity: how unlike the user's history the top ``k`` items are (co-occurrence similarity).

    Parameters
    ----------
    cutoff : int
        ``k``.

    Notes
    -----
    .. math:: Serendipity@k(u) = \frac{1}{|\mathrm{top}_k(u)|} \sum_{i \in \mathrm{top}_k(u)}
        \Big(1 - \frac{1}{|H_u|} \sum_{t \in H_u} \frac{C(i, t)}{\sqrt{n_i n_t}}\Big)

    over the rows :math:`t` of user :math:`u` in ``interactions=`` (repeats count), with
    :math:`n_i` the history's rows of item :math:`i` and :math:`C(i, j)` the pairs of rows of
    one user holding both items (the co-occurrence cosine similarity). An item the history
    lacks is similar to nothing (1). A user without history has no value and is left out of
    the mean (Microsoft Recommenders' ``serendipity`` with its default co-occurrence
    similarity and every recommendation relevant). Cost: a self-join of the history by user.
    At most 1, and at least 0 when no (user, item) pair repeats in the history; repeats raise
    :math:`C(i, i)` above :math:`n_i` (a user holding an item 3 times adds 9 pairs), so a
    similarity may exceed 1 and the value go below 0, as Recommenders' does: no lower bound.

    References
    ----------
    Zhang, Y. C., Séaghdha, D. Ó., Quercia, D. & Jambor, T. (2012). Auralist: introducing
    serendipity into music recommendation. WSDM 2012. Microsoft Recommenders' ``serendipity``.

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> run = pl.DataFrame({"user_id": [1, 1], "item_id": [10, 11], "score": [2.0, 1.0]})
    >>> train = pl.DataFrame({"user_id": [1, 2, 2], "item_id": [12, 10, 12]})
    >>> # 10 and 12 co-occur once (user 2): sim = 1 / sqrt(1 * 2); 11 is unknown: 1
    >>> round(rf.evaluate(None, run, ["Serendipity@2"], interactions=train).item(0, "value"), 6)
    0.646447
    """

    NAME = "Serendipity"
    #: 1 - a similarity >= 0, which repeated history rows may take above 1 (see Notes)
    BOUNDS = (-math.inf, 1.0)
    SIDE_COLUMNS = frozenset({"history_similarity"})
    EMPTY = None  # without recommendations: no value

    def expr(self, ctx: Ctx) -> pl.Expr:
        """Return the per-query expression."""
        sim = ctx.side("history_similarity").filter(self.top_rows(ctx))
        return (1.0 - sim).mean()
