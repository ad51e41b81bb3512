"""The grades of the top of a ranking as a string (``RelString@k``; trec_eval ``relstring``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from rankframe._measures._measure import Measure
from rankframe._measures._params import ANY_GRADE, Param
from rankframe._measures._registry import register, register_trec
from rankframe._measures._trec import double_params

if TYPE_CHECKING:
    from rankframe._measures._ctx import Ctx

DEFAULT_LENGTH = 10


@register
class RelString(Measure):
    r"""The grades of the top ``k`` retrieved documents, one character each (trec_eval ``relstring``).

    Parameters
    ----------
    cutoff : int
        ``k``, the number of documents shown (10).

    Returns
    -------
    str
        One character per retrieved document in rank order, at most ``k``: the grade when it
        is 0-9, ``>`` above 9, ``-`` for a document absent from the qrels ("not in the pool")
        and ``.`` for a negative grade ("in the pool but unjudged").

    Notes
    -----
    A per-query diagnostic, not a number: it has no aggregate and appears in per-query wide
    output only (``evaluate``'s long output holds numbers). A query with nothing retrieved
    gives the empty string.

    References
    ----------
    Buckley, C. (2008). trec_eval, measure ``relstring`` (``m_relstring.c``), National
    Institute of Standards and Technology. https://github.com/usnistgov/trec_eval

    Examples
    --------
    >>> import polars as pl
    >>> from rankframe._measures import Ctx
    >>> frame = pl.DataFrame({"q": ["q1"] * 5, "rank": [2, 1, 3, None, 4],
    ...                       "rel": [12, 0, None, 1, -1]},
    ...                      schema_overrides={"rank": pl.UInt32})
    >>> ctx = Ctx(rank=pl.col("rank"), rel=pl.col("rel"))
    >>> frame.group_by("q").agg(RelString(cutoff=3).expr(ctx).alias("s"))["s"].to_list()
    ['0>-']
    """

    NAME = "RelString"
    PARAMS = (Param("cutoff", "int", DEFAULT_LENGTH, (lambda k: k >= 0, "an int >= 0")),)
    AGGREGATE = "none"
    DTYPE = pl.String
    HITS_ONLY = True
    HIT_FLOOR = ANY_GRADE  # "." marks a negative grade, "-" a document absent from the qrels

    def expr(self, ctx: Ctx) -> pl.Expr:
        """Return the per-query expression."""
        rel = ctx.rel
        char = (
            pl.when(rel.is_null()).then(pl.lit("-"))
            .when(rel < 0).then(pl.lit("."))
            .when(rel > 9).then(pl.lit(">"))
            .otherwise(rel.cast(pl.String))
        )
        keep = ctx.retrieved
        if not ctx.hits_only:
            top = char.filter(keep).sort_by(ctx.rank.filter(keep)).head(self.cutoff)
            return top.str.join("")
        # the hits plan holds the judged documents only: theirs, then "-" (absent from the
        # qrels) at every other rank up to k, merged after the group_by (first per rank). As
        # numbers until the last step: 16 * rank + a code per character (FILLER for the "-"
        # filled in, above the others, so a judged document comes first at its rank)
        keep = keep & (ctx.rank <= self.cutoff).fill_null(False)
        code = (
            pl.when(rel.is_null()).then(pl.lit(12))
            .when(rel < 0).then(pl.lit(11))
            .when(rel > 9).then(pl.lit(10))
            .otherwise(rel)
        ).cast(pl.Int64)
        judged = (ctx.rank.cast(pl.Int64) * 16 + code).filter(keep)
        judged = ctx.partial(f"relstring_{self.cutoff}", judged.implode())
        n = ctx.num_ret_partial()
        shown = pl.min_horizontal(n, pl.lit(self.cutoff, pl.Int64))
        absent = pl.int_ranges(1, shown + 1, dtype=pl.Int64) * 16 + FILLER
        ordered = pl.element().sort()
        codes = ordered.filter((ordered // 16).is_first_distinct()) % 16
        chars = pl.element().replace_strict(list(CHARS), list(CHARS.values()), return_dtype=pl.String)
        # (mapped in a list.eval of its own: one elementwise step over every list at once)
        return pl.concat_list(judged, absent).list.eval(codes).list.eval(chars).list.join("")


#: The characters of :class:`RelString` by code (grades 0-9, then ">", ".", "-"; FILLER "-").
FILLER = 15
CHARS = {**{g: str(g) for g in range(10)}, 10: ">", 11: ".", 12: "-", FILLER: "-"}


def _relstring(values: tuple[float, ...] | None) -> RelString:
    if not values:
        return RelString()
    return RelString(cutoff=max(int(values[0]), 0))  # trec_eval truncates, negative shows none


register_trec("relstring", double_params("relstring", _relstring))
