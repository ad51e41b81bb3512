r"""Items, target and predicted values, and the pair counts behind the rank comparisons.

The measures that compare the predicted ranking with a *target ranking* (the rank distances,
correlations, AUC, C-index, gamma... of Fürnkranz & Hüllermeier's preference-learning tutorial)
see each query as a set of items with two values, both "higher is better":

- the **target** ``t``: the relevance grade (negative and missing grades count as 0, so
  unjudged retrieved documents are items of grade 0: a multipartite target whose grades are
  tied), or a target column of the run (``evaluate(target=...)``: a total order or any other);
  with grades the items are the retrieved documents and the judged ones (grade >= 0; a
  document with a negative grade that was not retrieved is not an item);
- the **prediction** ``p``: minus the rank under the tie policy in force, so that the
  trec_eval order is a total order of the retrieved documents; under ``ties="average"`` equal
  scores stay tied. Judged documents the run did not return (or that fell below the depth)
  are items too, tied with each other below every retrieved one.

Pair counts over the :math:`N = c(c-1)/2` unordered pairs of the ``c`` items:

- :math:`C`: concordant (both values strictly ordered, the same way),
- :math:`D`: discordant (both strictly ordered, opposite ways),
- :math:`T_p`, :math:`T_t`: tied in the prediction, in the target (pairs tied in both are in
  both counts), :math:`T_{pt}`: tied in both.

With **preference pairs** as the target (``evaluate(prefs=...)``) the items are the
documents the preferences name and the target is the set :math:`P` of stated pairs
``a > b``: the planner counts, per preferred document, its pairs the prediction orders alike,
the other way or ties (two joins of the pair table with the ranked rows), and
:math:`C, D` and :math:`N - T_t = |P|` are sums of those counts. Only the measures defined on
a set of pairs (``PAIRWISE_TARGET``) accept it.

Otherwise they come from ranks, in :math:`O(c \log c)` per query: sort the targets by prediction
(descending, target descending within predicted ties), then the rank of each target among the
ones before it counts the earlier items with a smaller target (discordant) and with a larger or
equal one. That expanding rank is a rolling rank over a window longer than any query. Where the
planner allows it (``Ctx.reserve``), a window of :math:`2^{31}-1` rows, which Polars reserves up
front: 96 GiB of address space per query, untouched, free without an address-space limit and an
abort under one. Elsewhere (expressions, plans under such a limit), ``rolling_rank_by`` over the
items' positions, whose window Polars sizes by the data: the same ranks, 20% slower at 10M rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import polars as pl

from rankframe._measures._arith import safe_div
from rankframe._measures._measure import Measure
from rankframe._measures._params import JUDGED_ONLY

if TYPE_CHECKING:
    from rankframe._measures._ctx import Ctx

#: Windows longer than any query, over which a rolling rank ranks each prefix: in rows
#: (``rolling_rank``, reserved up front) and in positions (``rolling_rank_by``, sized by the data).
_ROWS, _POSITIONS = 2**31 - 1, f"{2**62}i"
F64 = pl.Float64


@dataclass(frozen=True)
class Items:
    """The items of a query with their target and predicted values (see the module)."""

    ctx: Ctx
    t: pl.Expr
    p: pl.Expr
    #: Identifies the target (grades, binarised grades, a column) in partial-sum names.
    key: str
    #: Whether retrieved items may tie in the prediction ("average" ties); else only the
    #: unretrieved items (prediction -inf) tie, which makes several counts cheaper.
    pred_ties: bool = False
    #: Preference pairs as the target: per item, its pairs' (concordant, discordant, tied)
    #: counts (see :attr:`Ctx.pref_counts`); ``t`` is then meaningless.
    prefs: tuple[pl.Expr, pl.Expr, pl.Expr] | None = None

    def partial(self, name: str, value: pl.Expr) -> pl.Expr:
        """A per-query sum shared by every measure over the same items."""
        return self.ctx.partial(f"{self.key}_{name}", value)

    # --- counts --------------------------------------------------------------------------
    @property
    def c(self) -> pl.Expr:
        """The number of items."""
        return self.partial("c", self.t.len().cast(F64))

    @property
    def pairs(self) -> pl.Expr:
        """:math:`N = c(c-1)/2`."""
        c = self.c
        return c * (c - 1.0) / 2.0

    @property
    def _prefix_smaller(self) -> pl.Expr:
        """Sum over the items of the earlier items (in predicted order) with a smaller target."""
        # a -inf sentinel at the end (its rank is 1, it precedes nothing) keeps the sequence
        # non-empty: Polars 2.1 panics on a rolling rank over an empty group
        seq = self.t.sort_by([self.p, self.t], descending=[True, True]).extend_constant(float("-inf"), 1)
        # the rank of each target among those up to it, over a window that holds every earlier
        # item (see the module)
        if self.ctx.reserve:
            ranks = seq.rolling_rank(_ROWS, method="min", min_samples=1)
        else:
            position = pl.int_range(seq.len(), dtype=pl.Int64)
            ranks = seq.rolling_rank_by(position, _POSITIONS, method="min")
        return self.partial("prefix_min", ranks.cast(F64).sum() - 1.0 - self.t.len().cast(F64))

    def _tie_pairs(self, name: str, value: pl.Expr) -> pl.Expr:
        # sum of max-ranks = c(c+1)/2 + sum over tie groups of m(m-1)/2
        total = value.rank("max").cast(F64).sum() - value.len().cast(F64) * (value.len() + 1) / 2.0
        return self.partial(name, total)

    @property
    def _unretrieved(self) -> pl.Expr:
        return self.p == float("-inf")

    def _pref_sum(self, i: int, name: str) -> pl.Expr:
        assert self.prefs is not None
        return self.partial(name, self.prefs[i].sum().cast(F64))

    @property
    def discordant(self) -> pl.Expr:
        """:math:`D`: pairs ordered one way by the prediction and the other by the target."""
        if self.prefs is not None:
            return self._pref_sum(1, "pref_d")
        # the prediction's ties were put in target-descending order: none is counted here
        return self._prefix_smaller

    @property
    def tied_target(self) -> pl.Expr:
        """:math:`T_t`: pairs tied in the target (with preference pairs: not in the target)."""
        if self.prefs is not None:
            stated = self._pref_sum(0, "pref_c") + self.discordant + self.tied_pred_only
            return self.pairs - stated
        return self._tie_pairs("tied_t", self.t)

    @property
    def tied_pred(self) -> pl.Expr:
        """:math:`T_p`: pairs tied in the prediction."""
        if self.pred_ties:
            return self._tie_pairs("tied_p", self.p)
        u = self.partial("unretrieved", self._unretrieved.sum().cast(F64))
        return u * (u - 1.0) / 2.0

    @property
    def tied_both(self) -> pl.Expr:
        """:math:`T_{pt}`: pairs tied in both."""
        if self.pred_ties:
            return self._tie_pairs("tied_pt", pl.struct(self.p.alias("p"), self.t.alias("t")))
        return self._tie_pairs("tied_pt", self.t.filter(self._unretrieved))

    @property
    def tied_pred_only(self) -> pl.Expr:
        """:math:`T_p - T_{pt}`: pairs the target orders and the prediction ties."""
        if self.prefs is not None:
            return self._pref_sum(2, "pref_t")
        return self.tied_pred - self.tied_both

    @property
    def concordant(self) -> pl.Expr:
        """:math:`C`: pairs ordered the same way by both."""
        if self.prefs is not None:
            return self._pref_sum(0, "pref_c")
        # N = C + D + T_t + (T_p - T_pt)
        return self.pairs - self.discordant - self.tied_target - (self.tied_pred - self.tied_both)

    # --- ranks ---------------------------------------------------------------------------
    def target_rank(self) -> pl.Expr:
        """Target rank of each item, 1 = best, mid-ranks for ties (row level)."""
        return self.t.rank("average", descending=True)

    def pred_rank(self) -> pl.Expr:
        """Predicted rank of each item, 1 = best, mid-ranks for ties (row level)."""
        return self.p.rank("average", descending=True)

    def concordance(self) -> pl.Expr:
        """The share of the pairs the target orders that the prediction orders alike.

        Predicted ties count 1/2 (AUC, C-index); 0 when the target orders no pair.
        """
        num = self.concordant + self.tied_pred_only / 2.0
        return safe_div(num, self.pairs - self.tied_target, costly_den=True)


def _prediction(ctx: Ctx) -> pl.Expr:
    """Minus the predicted rank; -inf for judged documents not retrieved (tied at the bottom)."""
    if ctx.score is not None:  # "average" ties: equal scores stay tied
        p = -ctx.score.rank("min", descending=True).cast(F64)
    else:
        p = -ctx.rank.cast(F64)
    return p.fill_null(float("-inf"))


def items(ctx: Ctx, *, binary: bool = False, rel: int | None = None) -> Items:
    """The items of each query, their target and predicted values (see the module).

    ``binary``: the target is "relevant" (grade, or target value, >= ``rel`` or the
    evaluation's relevance level) vs not: a bipartite target.
    """
    level = ctx.level(rel)
    if ctx.pref_counts is not None:
        # preference pairs: the items are the documents the preferences name
        keep = ctx.rel.is_not_null()
        p = _prediction(ctx).filter(keep)
        counts = tuple(e.filter(keep) for e in ctx.pref_counts)
        return Items(ctx, p, p, "P", pred_ties=ctx.score is not None, prefs=counts)  # type: ignore[arg-type]
    if ctx.target is not None:
        t, key = ctx.target, "T"
        if binary:
            t, key = (t >= level).cast(F64), f"T{level}"
    elif binary:
        t, key = ctx.relevant(rel).cast(F64), f"R{level}"
    else:
        t, key = ctx.rel.clip(lower_bound=0).fill_null(0).cast(F64), "G"
    p = _prediction(ctx)
    # items: with a target column its rows; with grades the retrieved documents and the judged
    # ones (grade >= 0; a negative grade not retrieved is neither, as under judged_only)
    keep = ctx.target.is_not_null() if ctx.target is not None else ctx.retrieved | ctx.judged
    t, p = t.filter(keep), p.filter(keep)
    return Items(ctx, t, p, key, pred_ties=ctx.score is not None)


class Comparison(Measure):
    """Base of the measures comparing the predicted ranking with a target ranking.

    They accept ``judged_only``, a ``target`` column and keep predicted ties under the
    "average" tie policy by themselves (through :func:`items`).
    """

    PARAMS = (JUDGED_ONLY,)
    SUPPORTS_AVERAGE_TIES = True
    COMPARES_RANKINGS = True
