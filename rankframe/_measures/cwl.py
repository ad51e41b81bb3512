r"""The C/W/L framework's adaptive measures, as cwl_eval computes them.

``INST``, ``INSQ``, ``BPM``, ``SDCG``, ``NERR8``, ``NERR9``, ``NERR10``, ``NERR11``: each is a user
model given by its *continuation* probability :math:`C_i`, the chance that a user who looked at
rank :math:`i` goes on to rank :math:`i + 1` (Moffat et al. 2013; Azzopardi, Thomas and Moffat
2019). The value is the **expected rate of gain** per document looked at:

.. math::
    ERG = \frac{\sum_{i=1}^{N} P_i\, g_i}{\sum_{i=1}^{N} P_i}, \qquad P_i = \prod_{j < i} C_j

over the first :math:`N = 1000` ranks, the ranking padded with gain 0 past its end and cut at
:math:`N` (cwl_eval's ``max_n``, as ir_measures runs it), computed as cwl_eval does: the
weights :math:`W_i = P_i \cdot (1 / \sum_j P_j)`, then :math:`\sum_i W_i g_i`. The gains are graded in
:math:`[0, 1]`: the grade, negative grades as 0, clipped to ``[min_rel, max_rel]`` and scaled,
:math:`g = (\min(\max(r, m), M) - m) / (M - m)`; unjudged documents gain 0. ``max_rel`` (the top
of the grade scale) defaults to 1, binary gains (every grade >= 1 gains 1); ir_measures requires
it, so its names always carry it. Set it to the top of a graded scale (``INST(max_rel=3)``).

``expect`` picks which of the framework's expectations the value is (cwl_eval reports all
five; every document costs 1): ``"EU"``, the expected utility per document above (the
default); ``"ETU"``, the expected total utility :math:`\sum_i L_i \sum_{j \le i} g_j`;
``"EC"``, the expected cost per document :math:`\sum_i W_i`; ``"ETC"``, the expected total
cost :math:`\sum_i L_i\, i`; ``"EI"``, the expected number of documents looked at
:math:`1 / W_1`, with :math:`L_i = P_i (1 - C_i)` the chance of stopping at rank :math:`i`.
Only ``"EU"`` lies in [0, 1].
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from rankframe._errors import MeasureError
from rankframe._measures._measure import Measure
from rankframe._measures._params import POSITIVE_INT, Param
from rankframe._measures._registry import register

if TYPE_CHECKING:
    from rankframe._measures._ctx import Ctx

#: The depth of cwl_eval's rankings (``max_n``): padded with gain 0 to it, cut at it.
DEPTH = 1000

_POSITIVE = (lambda v: v > 0.0, "a float > 0")
_PERSISTENCE = (lambda p: 0.0 <= p <= 1.0, "a float in [0, 1]")
MIN_REL = Param("min_rel", "int", 0)
MAX_REL = Param("max_rel", "int", 1)
#: The C/W/L framework's expectations (cwl_eval's columns), by the name ``expect`` takes.
EXPECTATIONS = ("EU", "ETU", "EC", "ETC", "EI")
EXPECT = Param(
    "expect", "str", "EU", (lambda v: v in EXPECTATIONS, "one of 'EU', 'ETU', 'EC', 'ETC', 'EI'")
)


class _CWL(Measure):
    """A C/W/L measure: :meth:`continuation` gives :math:`C_i`; the rest is shared."""

    BOUNDS = (0.0, 1.0)

    def validate(self) -> None:
        """Require ``max_rel`` above ``min_rel`` (and a cutoff where the family needs one)."""
        if self.max_rel <= self.min_rel:
            msg = (
                f"The 'max_rel' parameter of {self.NAME} must be greater than min_rel "
                f"({self.min_rel}). Got {self.max_rel}."
            )
            raise MeasureError(msg)
        if "cutoff" in self.params and self.cutoff is None:
            msg = f"{self.NAME} needs a cutoff after '@', e.g. '{self.NAME}(max_rel=3)@10'."
            raise MeasureError(msg)

    def bounds(self) -> tuple[float, float] | None:
        """[0, 1] for the expected utility per document; the other expectations are unbounded."""
        return self.BOUNDS if self.expect == "EU" else None

    def continuation(self, rank: pl.Expr, gained: pl.Expr, gain: pl.Expr) -> pl.Expr:
        """:math:`C_i` at each rank (floats), given the gain there and the gain up to it."""
        raise NotImplementedError

    def gains(self, ctx: Ctx) -> pl.Expr:
        """The gain of each document, in [0, 1]: the grade scaled from [min_rel, max_rel]."""
        low, high = float(self.min_rel), float(self.max_rel)
        grade = ctx.rel.clip(lower_bound=0).cast(pl.Float64).clip(low, high)
        return ((grade - low) / (high - low)).fill_null(0.0)

    def expr(self, ctx: Ctx) -> pl.Expr:
        """Return the per-query expression: the expectation ``expect`` over ranks 1..1000."""
        ranked = ctx.in_rank_order(self.gains(ctx), cutoff=DEPTH)
        gain = ranked.extend_constant(0.0, DEPTH - ranked.len())
        rank = pl.int_range(1, DEPTH + 1, dtype=pl.Int64).cast(pl.Float64)
        gained = gain.cum_sum()
        stay = self.continuation(rank, gained, gain)
        reach = stay.cum_prod().shift(1, fill_value=1.0)
        weight = reach * (1.0 / reach.sum())  # W_i, as cwl_eval forms them
        stop = reach * (1.0 - stay)  # L_i
        return {
            "EU": (weight * gain).sum(),
            "ETU": (stop * gained).sum(),
            "EC": weight.sum(),
            "ETC": (stop * rank).sum(),
            "EI": 1.0 / weight.first(),
        }[self.expect]


def _within(rank: pl.Expr, cutoff: int, value: pl.Expr) -> pl.Expr:
    """``value`` before rank ``cutoff``, 0 from it on (the user stops at ``cutoff``)."""
    return pl.when(rank < cutoff).then(value).otherwise(0.0)


@register
class INST(_CWL):
    r"""INST: an adaptive user who wants :math:`T` units of gain (Moffat et al. 2015).

    Parameters
    ----------
    T : float
        The gain the user wants (default 1.0).
    min_rel, max_rel : int
        The grade scale (default 0 and 1: binary gains).
    expect : str
        The expectation reported: ``"EU"`` (default), ``"ETU"``, ``"EC"``, ``"ETC"`` or ``"EI"``
        (see :mod:`rankframe._measures.cwl`).

    Notes
    -----
    .. math:: C_i = \left(\frac{i + T + T_i - 1}{i + T + T_i}\right)^2, \qquad T_i = T - \sum_{j \le i} g_j

    as the expected rate of gain over 1000 ranks (see :mod:`rankframe._measures.cwl`), as
    cwl_eval computes it.

    References
    ----------
    Moffat, A., Bailey, P., Scholer, F. and Thomas, P. (2015). INST: an adaptive metric for
    information retrieval evaluation. ADCS 2015, 5:1-5:4.

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> run = pl.DataFrame({"query_id": ["q1"] * 2, "doc_id": ["a", "b"], "score": [2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": ["q1"], "doc_id": ["a"], "relevance": [1]})
    >>> rf.evaluate(qrels, run, ["INST"])["value"].round(4).to_list()
    [0.6083]
    """

    NAME = "INST"
    PARAMS = (Param("T", "float", 1.0, _POSITIVE), MIN_REL, MAX_REL, EXPECT)

    def continuation(self, rank: pl.Expr, gained: pl.Expr, gain: pl.Expr) -> pl.Expr:
        """:math:`C_i` of INST."""
        wanted = self.T - gained
        return ((rank + self.T + wanted - 1.0) / (rank + self.T + wanted)).pow(2.0)


@register
class INSQ(_CWL):
    r"""INSQ: a user who expects :math:`T` units of gain, whatever is found (Moffat et al. 2012).

    Parameters
    ----------
    T : float
        The gain the user expects (default 1.0).
    min_rel, max_rel : int
        The grade scale (default 0 and 1: binary gains).
    expect : str
        The expectation reported: ``"EU"`` (default), ``"ETU"``, ``"EC"``, ``"ETC"`` or ``"EI"``
        (see :mod:`rankframe._measures.cwl`).

    Notes
    -----
    .. math:: C_i = \left(\frac{i + 2T - 1}{i + 2T}\right)^2

    as the expected rate of gain over 1000 ranks (see :mod:`rankframe._measures.cwl`).

    References
    ----------
    Moffat, A., Scholer, F. and Thomas, P. (2012). Models and metrics: IR evaluation as a user
    process. ADCS 2012, 47-54.

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> run = pl.DataFrame({"query_id": ["q1"] * 2, "doc_id": ["a", "b"], "score": [2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": ["q1"], "doc_id": ["a"], "relevance": [1]})
    >>> # P_i = (2 / (i + 1))^2: 1 / sum_i P_i, about 1 / (4 (pi^2 / 6 - 1))
    >>> rf.evaluate(qrels, run, ["INSQ"])["value"].round(4).to_list()
    [0.3882]
    """

    NAME = "INSQ"
    PARAMS = (Param("T", "float", 1.0, _POSITIVE), MIN_REL, MAX_REL, EXPECT)

    def continuation(self, rank: pl.Expr, gained: pl.Expr, gain: pl.Expr) -> pl.Expr:
        """:math:`C_i` of INSQ."""
        return ((rank + 2.0 * self.T - 1.0) / (rank + 2.0 * self.T)).pow(2.0)


@register
class BPM(_CWL):
    r"""The static Bejeweled Player Model: stop at :math:`T` gain or :math:`k` documents.

    Parameters
    ----------
    cutoff : int
        The documents the user is willing to look at (:math:`K`, required).
    T : float
        The gain the user wants (default 1.0).
    min_rel, max_rel : int
        The grade scale (default 0 and 1: binary gains).
    expect : str
        The expectation reported: ``"EU"`` (default), ``"ETU"``, ``"EC"``, ``"ETC"`` or ``"EI"``
        (see :mod:`rankframe._measures.cwl`).

    Notes
    -----
    .. math:: C_i = [\textstyle\sum_{j \le i} g_j < T] \cdot [i < k]

    as the expected rate of gain (see :mod:`rankframe._measures.cwl`), every document costing 1.

    References
    ----------
    Zhang, F., Liu, Y., Li, X., Zhang, M., Xu, Y. and Ma, S. (2017). Evaluating web search with
    a bejeweled player model. SIGIR 2017, 425-434.

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> run = pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": ["q1"], "doc_id": ["b"], "relevance": [1]})
    >>> # the user looks at a (gain 0), then b (gain 1 = T): 1 gain over 2 documents
    >>> rf.evaluate(qrels, run, ["BPM@10"])["value"].to_list()
    [0.5]
    """

    NAME = "BPM"
    PARAMS = (
        Param("cutoff", "int", None, POSITIVE_INT),
        Param("T", "float", 1.0, _POSITIVE),
        MIN_REL,
        MAX_REL,
        EXPECT,
    )

    def continuation(self, rank: pl.Expr, gained: pl.Expr, gain: pl.Expr) -> pl.Expr:
        """:math:`C_i` of BPM (1 or 0)."""
        return ((gained < self.T) & (rank < self.cutoff)).cast(pl.Float64)


@register
class SDCG(_CWL):
    r"""Scaled DCG: DCG at :math:`k` divided by the DCG of :math:`k` fully relevant documents.

    Parameters
    ----------
    cutoff : int
        The depth :math:`k` (required).
    min_rel, max_rel : int
        The grade scale (default 0 and 1: binary gains).
    expect : str
        The expectation reported: ``"EU"`` (default), ``"ETU"``, ``"EC"``, ``"ETC"`` or ``"EI"``
        (see :mod:`rankframe._measures.cwl`).

    Notes
    -----
    .. math:: C_i = [i < k]\, \frac{\log_2(i + 1)}{\log_2(i + 2)}

    as the expected rate of gain (see :mod:`rankframe._measures.cwl`): the weights are DCG's
    discounts normalised to sum to 1, so this is nDCG whose ideal has :math:`k` documents of gain 1.

    References
    ----------
    Järvelin, K. and Kekäläinen, J. (2002). Cumulated gain-based evaluation of IR techniques.
    ACM TOIS 20(4), 422-446. Azzopardi, L., Thomas, P. and Moffat, A. (2019). cwl_eval: an
    evaluation tool for information retrieval. SIGIR 2019, 1321-1324.

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> run = pl.DataFrame({"query_id": ["q1"] * 2, "doc_id": ["a", "b"], "score": [2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": ["q1"], "doc_id": ["a"], "relevance": [1]})
    >>> # 1 / (1 + 1 / log2(3))
    >>> rf.evaluate(qrels, run, ["SDCG@2"])["value"].round(4).to_list()
    [0.6131]
    """

    NAME = "SDCG"
    PARAMS = (Param("cutoff", "int", None, POSITIVE_INT), MIN_REL, MAX_REL, EXPECT)

    def continuation(self, rank: pl.Expr, gained: pl.Expr, gain: pl.Expr) -> pl.Expr:
        """:math:`C_i` of SDCG."""
        return _within(rank, self.cutoff, (rank + 1.0).log(2) / (rank + 2.0).log(2))


_NERR_REFERENCE = """Azzopardi, L., Mackenzie, J. and Moffat, A. (2021). ERR is not C/W/L: exploring the
    relationship between expected reciprocal rank and other metrics. ICTIR 2021, 231-237."""


@register
class NERR8(_CWL):
    r"""Not-(but-nearly)-ERR, equation 8 (Azzopardi et al. 2021): ERR's stopping, cut at :math:`k`.

    Parameters
    ----------
    cutoff : int
        The depth :math:`k` (required).
    min_rel, max_rel : int
        The grade scale (default 0 and 1: binary gains).
    expect : str
        The expectation reported: ``"EU"`` (default), ``"ETU"``, ``"EC"``, ``"ETC"`` or ``"EI"``
        (see :mod:`rankframe._measures.cwl`).

    Notes
    -----
    .. math:: C_i = [i < k]\,(1 - g_i)

    as the expected rate of gain (see :mod:`rankframe._measures.cwl`).

    References
    ----------
    {reference}

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> run = pl.DataFrame({"query_id": ["q1"] * 2, "doc_id": ["a", "b"], "score": [2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": ["q1"], "doc_id": ["b"], "relevance": [1]})
    >>> # C = 1, 0: the user looks at a and b, finding 1 gain in 2 documents
    >>> rf.evaluate(qrels, run, ["NERR8@10"])["value"].to_list()
    [0.5]
    """

    NAME = "NERR8"
    PARAMS = (Param("cutoff", "int", None, POSITIVE_INT), MIN_REL, MAX_REL, EXPECT)

    def continuation(self, rank: pl.Expr, gained: pl.Expr, gain: pl.Expr) -> pl.Expr:
        """:math:`C_i` of NERR8."""
        return _within(rank, self.cutoff, 1.0 - gain)


@register
class NERR9(_CWL):
    r"""Not-(but-nearly)-ERR, equation 9 (Azzopardi et al. 2021): ERR's rank discount, cut at :math:`k`.

    Parameters
    ----------
    cutoff : int
        The depth :math:`k` (required).
    min_rel, max_rel : int
        The grade scale (default 0 and 1: binary gains).
    expect : str
        The expectation reported: ``"EU"`` (default), ``"ETU"``, ``"EC"``, ``"ETC"`` or ``"EI"``
        (see :mod:`rankframe._measures.cwl`).

    Notes
    -----
    .. math:: C_i = [i < k]\,\frac{i}{i + 1}\,(1 - g_i)

    as the expected rate of gain (see :mod:`rankframe._measures.cwl`).

    References
    ----------
    {reference}

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> run = pl.DataFrame({"query_id": ["q1"] * 2, "doc_id": ["a", "b"], "score": [2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": ["q1"], "doc_id": ["b"], "relevance": [1]})
    >>> # P = 1, 1/2: (1/2 * 1) / (1 + 1/2)
    >>> rf.evaluate(qrels, run, ["NERR9@10"])["value"].round(4).to_list()
    [0.3333]
    """

    NAME = "NERR9"
    PARAMS = (Param("cutoff", "int", None, POSITIVE_INT), MIN_REL, MAX_REL, EXPECT)

    def continuation(self, rank: pl.Expr, gained: pl.Expr, gain: pl.Expr) -> pl.Expr:
        """:math:`C_i` of NERR9."""
        return _within(rank, self.cutoff, rank / (rank + 1.0) * (1.0 - gain))


@register
class NERR10(_CWL):
    r"""Not-(but-nearly)-ERR, equation 10 (Azzopardi et al. 2021): ERR's stopping with RBP's persistence.

    Parameters
    ----------
    p : float
        The persistence :math:`\phi` (default 0.9).
    min_rel, max_rel : int
        The grade scale (default 0 and 1: binary gains).
    expect : str
        The expectation reported: ``"EU"`` (default), ``"ETU"``, ``"EC"``, ``"ETC"`` or ``"EI"``
        (see :mod:`rankframe._measures.cwl`).

    Notes
    -----
    .. math:: C_i = \phi\,(1 - g_i)

    as the expected rate of gain over 1000 ranks (see :mod:`rankframe._measures.cwl`).

    References
    ----------
    {reference}

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> run = pl.DataFrame({"query_id": ["q1"] * 2, "doc_id": ["a", "b"], "score": [2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": ["q1"], "doc_id": ["a"], "relevance": [1]})
    >>> # C_1 = 0: the user stops at a, having found 1 gain in 1 document
    >>> rf.evaluate(qrels, run, ["NERR10"])["value"].to_list()
    [1.0]
    """

    NAME = "NERR10"
    PARAMS = (Param("p", "float", 0.9, _PERSISTENCE), MIN_REL, MAX_REL, EXPECT)

    def continuation(self, rank: pl.Expr, gained: pl.Expr, gain: pl.Expr) -> pl.Expr:
        """:math:`C_i` of NERR10."""
        return self.p * (1.0 - gain)


@register
class NERR11(_CWL):
    r"""Not-(but-nearly)-ERR, equation 11 (Azzopardi et al. 2021): ERR's stopping with INSQ's patience.

    Parameters
    ----------
    T : float
        The gain the user expects (default 1.0).
    min_rel, max_rel : int
        The grade scale (default 0 and 1: binary gains).
    expect : str
        The expectation reported: ``"EU"`` (default), ``"ETU"``, ``"EC"``, ``"ETC"`` or ``"EI"``
        (see :mod:`rankframe._measures.cwl`).

    Notes
    -----
    .. math:: C_i = \left(\frac{i + 2T - 1}{i + 2T}\right)^2 (1 - g_i)

    as the expected rate of gain over 1000 ranks (see :mod:`rankframe._measures.cwl`).

    References
    ----------
    {reference}

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> run = pl.DataFrame({"query_id": ["q1"] * 2, "doc_id": ["a", "b"], "score": [2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": ["q1"], "doc_id": ["a"], "relevance": [1]})
    >>> rf.evaluate(qrels, run, ["NERR11"])["value"].to_list()
    [1.0]
    """

    NAME = "NERR11"
    PARAMS = (Param("T", "float", 1.0, _POSITIVE), MIN_REL, MAX_REL, EXPECT)

    def continuation(self, rank: pl.Expr, gained: pl.Expr, gain: pl.Expr) -> pl.Expr:
        """:math:`C_i` of NERR11."""
        patience = ((rank + 2.0 * self.T - 1.0) / (rank + 2.0 * self.T)).pow(2.0)
        return patience * (1.0 - gain)


for _family in (NERR8, NERR9, NERR10, NERR11):
    _family.__doc__ = _family.__doc__.replace("{reference}", _NERR_REFERENCE)


class _Binary(_CWL):
    r"""cwl_eval's C/W/L form of a trec_eval measure (``P``, ``RR``, ``AP``, ``RBP``).

    Not registered: rankframe's own ``P``, ``RR``, ``AP`` and ``RBP`` are trec_eval's; these
    are what ir_measures' cwl_eval provider computes under those names, with cwl_eval's
    arithmetic and all five expectations. The gain is binary: 1 for a judged document whose
    grade (negative read as 0) is >= ``rel``, else 0.
    """

    def validate(self) -> None:
        """Nothing to check (binary gains need no grade scale)."""

    def gains(self, ctx: Ctx) -> pl.Expr:
        """1.0 for a judged document of grade >= ``rel`` (negative grades as 0), else 0.0."""
        return (ctx.rel.clip(lower_bound=0) >= self.rel).fill_null(False).cast(pl.Float64)


_REL = Param("rel", "int", 1)


class CwlP(_Binary):
    r"""Precision at :math:`k` as a C/W/L measure: :math:`C_i = [i < k]` (cwl_eval's ``P@k``).

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> run = pl.DataFrame({"query_id": ["q1"] * 5, "doc_id": list("abcde"),
    ...                     "score": [5.0, 4.0, 3.0, 2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": list("bcd"), "relevance": [1] * 3})
    >>> # W_i = 1/5 for i <= 5: 0.2 + 0.2 + 0.2, as cwl_eval adds them; 3 gains in 5 documents
    >>> [rf.evaluate(qrels, run, [CwlP(cutoff=5, expect=e)]).item(0, "value") for e in ("EU", "ETU", "EI")]
    [0.6000000000000001, 3.0, 5.0]
    """

    NAME = "cwl_eval.P"
    PARAMS = (Param("cutoff", "int", None, POSITIVE_INT), _REL, EXPECT)

    def continuation(self, rank: pl.Expr, gained: pl.Expr, gain: pl.Expr) -> pl.Expr:
        """:math:`C_i` of P@k."""
        return (rank < self.cutoff).cast(pl.Float64)


class CwlRR(_Binary):
    r"""Reciprocal rank as a C/W/L measure: :math:`C_i = [\sum_{j \le i} g_j = 0]` (cwl_eval's ``RR``)."""

    NAME = "cwl_eval.RR"
    PARAMS = (_REL, EXPECT)

    def continuation(self, rank: pl.Expr, gained: pl.Expr, gain: pl.Expr) -> pl.Expr:
        """:math:`C_i` of RR: go on until the first relevant document."""
        return (gained == 0.0).cast(pl.Float64)


class CwlAP(_Binary):
    r"""Average precision as a C/W/L measure (cwl_eval's ``AP``).

    .. math:: C_i = \frac{\sum_{j > i} g_j / j}{\sum_{j \ge i} g_j / j} \quad (0 \text{ where the top is } 0)
    """

    NAME = "cwl_eval.AP"
    PARAMS = (_REL, EXPECT)

    def continuation(self, rank: pl.Expr, gained: pl.Expr, gain: pl.Expr) -> pl.Expr:
        """:math:`C_i` of AP, from the sums of :math:`g_j / j` from rank :math:`i` on."""
        below = (gain / rank).reverse().cum_sum().reverse()
        beyond = below.shift(-1, fill_value=0.0)
        return pl.when(beyond > 0.0).then(beyond / below).otherwise(0.0)


class CwlRBP(_Binary):
    r"""Rank-biased precision as a C/W/L measure: :math:`C_i = p` (cwl_eval's ``RBP``)."""

    NAME = "cwl_eval.RBP"
    PARAMS = (Param("p", "float", 0.8, _PERSISTENCE), _REL, EXPECT)

    def continuation(self, rank: pl.Expr, gained: pl.Expr, gain: pl.Expr) -> pl.Expr:
        """:math:`C_i` of RBP."""
        return rank * 0.0 + self.p


#: cwl_eval's forms of trec_eval's families, by the family's name.
CWL_FORMS: dict[str, type[_Binary]] = {"P": CwlP, "RR": CwlRR, "AP": CwlAP, "RBP": CwlRBP}
