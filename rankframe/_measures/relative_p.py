"""Relative precision at a cutoff (``RelP@k``; trec_eval ``relative_P``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from rankframe._errors import MeasureError
from rankframe._measures._measure import Measure
from rankframe._measures._params import POSITIVE_INT, Param
from rankframe._measures._registry import register, register_trec
from rankframe._measures._trec import long_cutoffs

if TYPE_CHECKING:
    from rankframe._measures._ctx import Ctx


@register
class RelP(Measure):
    r"""Relative precision at ``k``: precision at ``k`` over the best precision possible at ``k``.

    Parameters
    ----------
    cutoff : int
        ``k``.
    rel : int, optional
        Minimum relevant grade; defaults to the evaluation's ``relevance_level``.

    Notes
    -----
    .. math::
        RelP@k = \frac{|\{d : \mathrm{rank}(d) \le k,\ \mathrm{rel}(d) \ge \ell\}|}{\min(k, R)}

    with :math:`R` the number of judged relevant documents. It equals ``P@k`` while
    :math:`k \le R` and ``R@k`` beyond. Undefined when :math:`R = 0`: the query scores 0.

    References
    ----------
    Buckley, C. and Voorhees, E. M. (2005). Retrieval System Evaluation. In *TREC: Experiment
    and Evaluation in Information Retrieval*, MIT Press.

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> run = pl.DataFrame({"query_id": ["q1"] * 4, "doc_id": ["a", "b", "c", "d"],
    ...                     "score": [4.0, 3.0, 2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": ["q1"] * 2, "doc_id": ["b", "d"], "relevance": [1, 1]})
    >>> # rel = 0, 1, 0, 1 and R = 2: 0/1, 1/2, then 2/2 at k = 4
    >>> rf.evaluate(qrels, run, ["RelP@1", "RelP@3", "RelP@4"])["value"].to_list()
    [0.0, 0.5, 1.0]
    """

    NAME = "RelP"
    BOUNDS = (0.0, 1.0)
    PARAMS = (Param("cutoff", "int", None, POSITIVE_INT), Param("rel", "int", None))

    def validate(self) -> None:
        """Require the cutoff."""
        if self.cutoff is None:
            msg = "RelP needs a cutoff after '@', e.g. 'RelP@10'; SetRelP is the uncut version."
            raise MeasureError(msg)

    HITS_ONLY = True

    def expr(self, ctx: Ctx) -> pl.Expr:
        """Return the per-query expression."""
        hits = ctx.num_rel_ret(self.rel, self.cutoff).cast(pl.Float64)
        num_rel = ctx.num_rel(self.rel)
        best = num_rel.clip(upper_bound=self.cutoff).cast(pl.Float64)
        return pl.when(num_rel > 0).then(hits / best).otherwise(0.0)


register_trec(
    "relative_P",
    long_cutoffs("relative_P", (5, 10, 15, 20, 30, 100, 200, 500, 1000), lambda k: RelP(cutoff=k)),
)
