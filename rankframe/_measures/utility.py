"""Set utility, a weighted contingency table (``Utility``; trec_eval ``utility``)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import polars as pl

from rankframe._errors import MeasureError
from rankframe._measures._measure import Measure
from rankframe._measures._params import Param
from rankframe._measures._registry import register, register_trec
from rankframe._measures._trec import double_params

if TYPE_CHECKING:
    from rankframe._measures._ctx import Ctx

_FINITE = (math.isfinite, "a finite float")


@register
class Utility(Measure):
    r"""Linear utility of the retrieved set: a weighted sum of the contingency table.

    Parameters
    ----------
    a : float
        Worth of each relevant retrieved document (default 1).
    b : float
        Worth of each non-relevant retrieved document (default -1).
    c : float
        Worth of each relevant document not retrieved (default 0).
    d : float
        Worth of each non-relevant document not retrieved (default 0).
    num_docs : int
        Number of documents in the collection (trec_eval ``-N``, default 0), needed for ``d``.
    rel : int, optional
        Minimum relevant grade; defaults to the evaluation's ``relevance_level``.

    Notes
    -----
    With :math:`n_{rr}` relevant retrieved, :math:`n_{ret}` retrieved, :math:`R` relevant and
    :math:`N` documents in the collection,

    .. math::
        U = a\,n_{rr} + b\,(n_{ret} - n_{rr}) + c\,(R - n_{rr}) + d\,(N + n_{rr} - n_{ret} - R)

    Unjudged retrieved documents count as non-relevant. Always defined; averaged over queries
    (trec_eval's choice, not a sum). With ``complete=True`` a query missing from the run has
    :math:`n_{ret} = 0`; trec_eval 10 scores it 0 with the default weights, but with explicit
    weights it counts one phantom non-relevant retrieved document, which is not reproduced.

    References
    ----------
    Hull, D. A. and Robertson, S. (1999). The TREC-8 Filtering Track Final Report. TREC-8.

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> run = pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": ["a", "b", "c"],
    ...                     "score": [3.0, 2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": ["a", "b", "z"],
    ...                       "relevance": [1, 0, 1]})
    >>> # 1 relevant and 2 non-relevant retrieved, 1 relevant missed
    >>> rf.evaluate(qrels, run, ["Utility", "Utility(a=2,c=-0.5)"])["value"].to_list()
    [-1.0, -0.5]
    """

    NAME = "Utility"
    SUPPORTS_AVERAGE_TIES = True  # does not depend on the order of the ranking
    PARAMS = (
        Param("a", "float", 1.0, _FINITE),
        Param("b", "float", -1.0, _FINITE),
        Param("c", "float", 0.0, _FINITE),
        Param("d", "float", 0.0, _FINITE),
        Param("num_docs", "int", 0, (lambda n: n >= 0, "an int >= 0")),
        Param("rel", "int", None),
    )

    HITS_ONLY = True

    def expr(self, ctx: Ctx) -> pl.Expr:
        """Return the per-query expression."""
        rel_ret = ctx.num_rel_ret(self.rel).cast(pl.Float64)
        ret = ctx.num_ret.cast(pl.Float64)
        num_rel = ctx.num_rel(self.rel).cast(pl.Float64)
        return (
            self.a * rel_ret
            + self.b * (ret - rel_ret)
            + self.c * (num_rel - rel_ret)
            + self.d * (self.num_docs + rel_ret - ret - num_rel)
        )


def _from_trec(weights: tuple[float, ...] | None) -> Utility:
    if weights is None:
        return Utility()
    if len(weights) != 4:
        msg = (
            "trec_eval's 'utility' takes exactly 4 coefficients (a, b, c, d), e.g. "
            f"'utility.1,-1,0,0'. Got {len(weights)}."
        )
        raise MeasureError(msg)
    a, b, c, d = weights
    return Utility(a=a, b=b, c=c, d=d)


register_trec("utility", double_params("utility", _from_trec))
