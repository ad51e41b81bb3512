"""Rank distances and correlations between the predicted and the target ranking.

Spearman's footrule, Spearman's distance and rho, Kendall's distance and tau (and tau-b),
Goodman-Kruskal gamma, Somers' d, the Kendall-tau loss of Shalev-Shwartz & Ben-David (2014), and
the Jaccard coefficient of the two sets of binary preferences; most of them as Fürnkranz &
Hüllermeier's preference-learning tutorial defines them. Items, target and prediction are
described in ``rankframe._measures._pairs``: the target is the relevance grades by default (a
multipartite target whose grades are ties), or a run column with ``evaluate(target=...)``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from rankframe._measures._arith import safe_div
from rankframe._measures._pairs import F64, Comparison, items
from rankframe._measures._params import JUDGED_ONLY, Param
from rankframe._measures._registry import register

if TYPE_CHECKING:
    from rankframe._measures._ctx import Ctx

#: The source of most of these measures: Fürnkranz & Hüllermeier's preference-learning tutorial.


def _when_pairs(n: pl.Expr, value: pl.Expr) -> pl.Expr:
    """``value`` where there is at least one pair, else 0 (the undefined case)."""
    return pl.when(n > 0).then(value).otherwise(0.0)


@register
class Footrule(Comparison):
    r"""Spearman's footrule: the summed absolute rank differences.

    Parameters
    ----------
    judged_only : bool
        Drop unjudged documents first (trec_eval ``-J``).

    Notes
    -----
    .. math:: D_{SF}(r, \hat r) = \sum_{i=1}^{c} |r(x_i) - \hat r(x_i)|

    with :math:`r` the target rank and :math:`\hat r` the predicted rank of item :math:`x_i`
    (mid-ranks for ties: Diaconis & Graham's footrule on tied rankings). Defined for every
    query (0 with fewer than two items). Cost: two ranks per query, :math:`O(c \log c)`.

    References
    ----------
    Spearman, C. (1904). The proof and measurement of association between two things.
    American Journal of Psychology 15, 72-101.
    Fürnkranz, J. and Hüllermeier, E. Preference learning: loss functions. Slides of their
    *Preference Learning* tutorial, slide "Spearman's Footrule".

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> # Fürnkranz & Hüllermeier's example: target E > B > C > A > D, prediction A > B > E > C > D
    >>> run = pl.DataFrame({"query_id": "q", "doc_id": list("ABCDE"),
    ...                     "score": [5.0, 4.0, 2.0, 1.0, 3.0], "target": [2, 4, 3, 1, 5]})
    >>> rf.evaluate(run=run, target="target",
    ...             measures=["Footrule", "SpearmanDist", "KendallDist", "PosError"])["value"].to_list()
    [6.0, 14.0, 4.0, 2.0]
    """

    NAME = "Footrule"

    def expr(self, ctx: Ctx) -> pl.Expr:
        """Return the per-query expression."""
        it = items(ctx)
        return it.partial("footrule", (it.target_rank() - it.pred_rank()).abs().sum().cast(F64))


@register
class SpearmanDist(Comparison):
    r"""Spearman's distance: the summed squared rank differences.

    Parameters
    ----------
    judged_only : bool
        Drop unjudged documents first (trec_eval ``-J``).

    Notes
    -----
    .. math:: D_S(r, \hat r) = \sum_{i=1}^{c} (r(x_i) - \hat r(x_i))^2

    (mid-ranks for ties). Between 0 and :math:`c(c^2-1)/3` for total orders. Cost
    :math:`O(c \log c)` per query.

    References
    ----------
    Fürnkranz, J. and Hüllermeier, E. Preference learning: loss functions. Slides of their
    *Preference Learning* tutorial, slide "Spearman Distance".

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> run = pl.DataFrame({"query_id": "q", "doc_id": ["a", "b", "c"], "score": [3.0, 2, 1],
    ...                     "target": [1.0, 2, 3]})
    >>> rf.evaluate(run=run, target="target", measures=["SpearmanDist"]).item(0, "value")
    8.0
    """

    NAME = "SpearmanDist"

    def expr(self, ctx: Ctx) -> pl.Expr:
        """Return the per-query expression."""
        it = items(ctx)
        return it.partial("spearman", (it.target_rank() - it.pred_rank()).pow(2).sum().cast(F64))


@register
class SpearmanRho(Comparison):
    r"""Spearman's rank correlation coefficient.

    Parameters
    ----------
    judged_only : bool
        Drop unjudged documents first (trec_eval ``-J``).

    Notes
    -----
    Pearson's correlation of the target and predicted mid-ranks, as ``scipy.stats.spearmanr``;
    without ties it equals Fürnkranz & Hüllermeier's

    .. math:: \rho = 1 - \frac{6\, D_S(r, \hat r)}{c\,(c^2 - 1)} \in [-1, 1].

    Undefined (scored 0) with fewer than two items or when either ranking ties every item.
    Cost :math:`O(c \log c)` per query.

    References
    ----------
    Spearman, C. (1904). American Journal of Psychology 15, 72-101.
    Fürnkranz, J. and Hüllermeier, E. Preference learning: loss functions. Slides of their
    *Preference Learning* tutorial.

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> run = pl.DataFrame({"query_id": "q", "doc_id": ["a", "b", "c"], "score": [3.0, 2, 1],
    ...                     "target": [1.0, 2, 3]})
    >>> rf.evaluate(run=run, target="target", measures=["SpearmanRho"]).item(0, "value")
    -1.0
    """

    NAME = "SpearmanRho"
    BOUNDS = (-1.0, 1.0)

    def expr(self, ctx: Ctx) -> pl.Expr:
        """Return the per-query expression."""
        it = items(ctx)
        middle = (it.t.len().cast(F64) + 1.0) / 2.0
        rt = it.target_rank() - middle
        rp = it.pred_rank() - middle
        num = it.partial("rho_tp", (rt * rp).sum())
        den = it.partial("rho_tt", rt.pow(2).sum()) * it.partial("rho_pp", rp.pow(2).sum())
        return safe_div(num, den.sqrt(), costly_den=True)


@register
class KendallDist(Comparison):
    r"""Kendall's distance: the number of item pairs the prediction inverts.

    Parameters
    ----------
    normalize : bool
        Divide by the number of pairs the target orders (:math:`N - T_t`), the normalisation
        for partial (e.g. graded) targets; 0 when the target orders no pair.
    judged_only : bool
        Drop unjudged documents first (trec_eval ``-J``).

    Notes
    -----
    .. math:: D_\tau(r, \hat r) = |\{(i, j) : r(x_i) < r(x_j) \wedge \hat r(x_i) > \hat r(x_j)\}|

    Pairs tied in either ranking are not inversions, so on a partial target (grades) only the
    pairs it orders count ("Kendall's distance on partial targets"). Between 0 and
    :math:`c(c-1)/2`. Cost :math:`O(c \log c)` per query (a prefix rank of the targets in
    predicted order).

    References
    ----------
    Kendall, M. (1938). A new measure of rank correlation. Biometrika 30, 81-89.
    Fürnkranz, J. and Hüllermeier, E. Preference learning: loss functions. Slides of their
    *Preference Learning* tutorial.

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> # Fürnkranz & Hüllermeier's bipartite example: 2 relevant, 3 not, 2 of 6 pairs inverted
    >>> run = pl.DataFrame({"query_id": "q", "doc_id": list("abcde"),
    ...                     "score": [5.0, 4, 3, 2, 1]})
    >>> qrels = pl.DataFrame({"query_id": "q", "doc_id": list("abcde"),
    ...                       "relevance": [1, 0, 0, 1, 0]})
    >>> rf.evaluate(qrels, run, ["KendallDist", "AUC"])["value"].round(4).to_list()
    [2.0, 0.6667]
    """

    NAME = "KendallDist"
    PAIRWISE_TARGET = True
    PARAMS = (Param("normalize", "bool", False), JUDGED_ONLY)

    def expr(self, ctx: Ctx) -> pl.Expr:
        """Return the per-query expression."""
        it = items(ctx)
        if self.normalize:
            return safe_div(it.discordant, it.pairs - it.tied_target, costly_den=True)
        return it.discordant


@register
class KendallTau(Comparison):
    r"""Kendall's tau as Fürnkranz & Hüllermeier define it: one minus the normalised distance.

    Parameters
    ----------
    judged_only : bool
        Drop unjudged documents first (trec_eval ``-J``).

    Notes
    -----
    .. math:: \tau = 1 - \frac{4\, D_\tau(r, \hat r)}{c\,(c-1)} \in [-1, 1]

    For total orders this is Kendall's tau-a, :math:`(C - D)/N`; with ties it counts tied pairs
    as agreements (use :class:`KendallTauB` for the tie-corrected coefficient). Undefined
    (scored 0) with fewer than two items. Cost :math:`O(c \log c)` per query.

    References
    ----------
    Kendall, M. (1938). Biometrika 30, 81-89.
    Fürnkranz, J. and Hüllermeier, E. Preference learning: loss functions. Slides of their
    *Preference Learning* tutorial, slide "Kendall's Distance".

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> run = pl.DataFrame({"query_id": "q", "doc_id": list("abcd"), "score": [4.0, 3, 2, 1],
    ...                     "target": [4.0, 2, 3, 1]})
    >>> rf.evaluate(run=run, target="target", measures=["KendallTau"]).item(0, "value")
    0.6666666666666667
    """

    NAME = "KendallTau"
    BOUNDS = (-1.0, 1.0)

    def expr(self, ctx: Ctx) -> pl.Expr:
        """Return the per-query expression."""
        it = items(ctx)
        n = it.pairs
        return _when_pairs(n, 1.0 - 2.0 * it.discordant / n)


@register
class KendallTauB(Comparison):
    r"""Kendall's tau-b, the tie-corrected rank correlation.

    Parameters
    ----------
    judged_only : bool
        Drop unjudged documents first (trec_eval ``-J``).

    Notes
    -----
    .. math:: \tau_b = \frac{C - D}{\sqrt{(N - T_p)(N - T_t)}}

    with :math:`C, D` the concordant and discordant pairs, :math:`N = c(c-1)/2` and
    :math:`T_p, T_t` the pairs tied in the prediction, in the target. Equals
    ``scipy.stats.kendalltau`` (variant "b"); equals :class:`KendallTau` without ties.
    Undefined (scored 0) when either ranking ties every pair. Cost :math:`O(c \log c)` per
    query.

    References
    ----------
    Kendall, M. (1945). The treatment of ties in ranking problems. Biometrika 33, 239-251.

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> run = pl.DataFrame({"query_id": "q", "doc_id": list("abcd"), "score": [4.0, 3, 2, 1],
    ...                     "target": [1.0, 1, 0, 0]})
    >>> round(rf.evaluate(run=run, target="target", measures=["KendallTauB"]).item(0, "value"), 6)
    0.816497
    """

    NAME = "KendallTauB"
    BOUNDS = (-1.0, 1.0)

    def expr(self, ctx: Ctx) -> pl.Expr:
        """Return the per-query expression."""
        it = items(ctx)
        n = it.pairs
        return safe_div(
            it.concordant - it.discordant,
            ((n - it.tied_pred) * (n - it.tied_target)).sqrt(),
            costly_den=True,
        )


@register
class Gamma(Comparison):
    r"""Goodman and Kruskal's gamma: agreement among the pairs both rankings order.

    Parameters
    ----------
    judged_only : bool
        Drop unjudged documents first (trec_eval ``-J``).

    Notes
    -----
    .. math:: \gamma = \frac{C - D}{C + D} \in [-1, 1]

    with :math:`C` the concordant and :math:`D` the discordant pairs; pairs tied in either
    ranking are left out, so it applies to partial targets. (Fürnkranz & Hüllermeier's slide
    labels the two counts the wrong way round; its example, :math:`(2 - 1)/(2 + 1) = 1/3`, is this formula.)
    Identical to Kendall's tau when both rankings are total. Undefined (scored 0) when no pair
    is ordered by both. Cost :math:`O(c \log c)` per query.

    References
    ----------
    Goodman, L. and Kruskal, W. (1979). *Measures of Association for Cross Classifications*.
    Springer.
    Fürnkranz, J. and Hüllermeier, E. Preference learning: loss functions. Slides of their
    *Preference Learning* tutorial, slide "Gamma Coefficient".

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> # target a > b, a > c, c ~ b (tied); prediction c > a > b: C = 1 (a>b), D = 1 (a>c)
    >>> run = pl.DataFrame({"query_id": "q", "doc_id": list("abc"), "score": [2.0, 1, 3],
    ...                     "target": [1.0, 0, 0]})
    >>> rf.evaluate(run=run, target="target", measures=["Gamma"]).item(0, "value")
    0.0
    """

    NAME = "Gamma"
    BOUNDS = (-1.0, 1.0)
    PAIRWISE_TARGET = True

    def expr(self, ctx: Ctx) -> pl.Expr:
        """Return the per-query expression."""
        it = items(ctx)
        c, d = it.concordant, it.discordant
        return safe_div(c - d, c + d, costly_den=True)


@register
class SomersD(Comparison):
    r"""Somers' d of the prediction given the target.

    Parameters
    ----------
    judged_only : bool
        Drop unjudged documents first (trec_eval ``-J``).

    Notes
    -----
    .. math:: d = \frac{C - D}{N - T_t}

    over the pairs the target orders; equals ``scipy.stats.somersd(target, prediction)`` and
    :math:`2\,\mathrm{CIndex} - 1` (the Gini coefficient of a bipartite target). Undefined
    (scored 0) when the target ties every pair. Cost :math:`O(c \log c)` per query.

    References
    ----------
    Somers, R. H. (1962). A new asymmetric measure of association for ordinal variables.
    American Sociological Review 27(6), 799-811.

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> run = pl.DataFrame({"query_id": "q", "doc_id": list("abc"), "score": [3.0, 2, 1]})
    >>> qrels = pl.DataFrame({"query_id": "q", "doc_id": list("abc"), "relevance": [1, 0, 1]})
    >>> rf.evaluate(qrels, run, ["SomersD"]).item(0, "value")  # (1 - 1) / 2
    0.0
    """

    NAME = "SomersD"
    BOUNDS = (-1.0, 1.0)
    PAIRWISE_TARGET = True

    def expr(self, ctx: Ctx) -> pl.Expr:
        """Return the per-query expression."""
        it = items(ctx)
        return safe_div(
            it.concordant - it.discordant, it.pairs - it.tied_target, costly_den=True
        )


@register
class KendallLoss(Comparison):
    r"""The Kendall-tau loss of Shalev-Shwartz & Ben-David (2014): the fraction of pairs whose order differs.

    Parameters
    ----------
    judged_only : bool
        Drop unjudged documents first (trec_eval ``-J``).

    Notes
    -----
    .. math::
        \Delta(y', y) = \frac{2}{r(r-1)} \sum_{i<j}
        \mathbb{1}[\operatorname{sign}(y'_i - y'_j) \ne \operatorname{sign}(y_i - y_j)]

    A pair tied in exactly one of the rankings counts as a disagreement (the signs differ), so
    on a graded target a prediction must tie exactly the equal grades to reach 0. In [0, 1];
    undefined (scored 0) with fewer than two items. Cost :math:`O(c \log c)` per query.

    References
    ----------
    Shalev-Shwartz, S. and Ben-David, S. (2014). *Understanding Machine Learning: From Theory to
    Algorithms*. Cambridge University Press, §17.4 "Learning to rank", pp. 202-204.

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> run = pl.DataFrame({"query_id": "q", "doc_id": list("abc"), "score": [3.0, 2, 1],
    ...                     "target": [3.0, 1, 2]})
    >>> rf.evaluate(run=run, target="target", measures=["KendallLoss"]).item(0, "value")
    0.3333333333333333
    """

    NAME = "KendallLoss"
    BOUNDS = (0.0, 1.0)

    def expr(self, ctx: Ctx) -> pl.Expr:
        """Return the per-query expression."""
        it = items(ctx)
        n = it.pairs
        return _when_pairs(n, (n - it.concordant - it.tied_both) / n)


@register
class PrefJaccard(Comparison):
    r"""Jaccard coefficient of the predicted and the target sets of binary preferences.

    Parameters
    ----------
    judged_only : bool
        Drop unjudged documents first (trec_eval ``-J``).

    Notes
    -----
    Each ranking is the set of the ordered pairs it strictly prefers
    (:math:`\hat P = \{(x, y) : \hat r(x) < \hat r(y)\}`, :math:`P` likewise); then

    .. math::
        J = \frac{|\hat P \cap P|}{|\hat P \cup P|} = \frac{C}{(N - T_p) + (N - T_t) - C}.

    In [0, 1]; undefined (scored 0) when neither ranking prefers anything. Cost
    :math:`O(c \log c)` per query.

    References
    ----------
    Fürnkranz, J. and Hüllermeier, E. Preference learning: loss functions. Slides of their
    *Preference Learning* tutorial, slide "Evaluating Partial Structures in the Predicted Ranking".

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> run = pl.DataFrame({"query_id": "q", "doc_id": list("abc"), "score": [3.0, 2, 1]})
    >>> qrels = pl.DataFrame({"query_id": "q", "doc_id": list("abc"), "relevance": [1, 0, 0]})
    >>> rf.evaluate(qrels, run, ["PrefJaccard"]).item(0, "value")  # {a>b, a>c} of 3 pairs
    0.6666666666666666
    """

    NAME = "PrefJaccard"
    BOUNDS = (0.0, 1.0)
    PAIRWISE_TARGET = True

    def expr(self, ctx: Ctx) -> pl.Expr:
        """Return the per-query expression."""
        it = items(ctx)
        n, c = it.pairs, it.concordant
        return safe_div(c, (n - it.tied_pred) + (n - it.tied_target) - c, costly_den=True)
