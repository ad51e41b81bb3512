r"""Intent-aware (subtopic) measures of the TREC Web track's ``ndeval``, as pyndeval computes them.

``alpha_DCG``, ``alpha_nDCG``, ``ERR_IA``, ``nERR_IA``, ``NRBP``, ``nNRBP``, ``AP_IA``,
``P_IA``, ``StRecall``: judgments are given per **subtopic** (diversity qrels: ``query
subtopic doc grade``, the subtopic in the TREC qrels' second column), a document is relevant to
subtopic :math:`j` when its grade there is at least the level :math:`\ell` (``rel``, default the
evaluation's ``relevance_level``), and the query's subtopics :math:`S` are those with at least
one relevant document (ndeval's "actual subtopics"). With :math:`c_j(r)` the documents ranked
above rank :math:`r` that are relevant to :math:`j`, the document at rank :math:`r` gains

.. math:: g(r) = \sum_{j \ni d_r} (1 - \alpha)^{c_j(r)}

(its *novelty*: each subtopic is worth less every time it is seen again). Every value is a sum
over the relevant (document, subtopic) pairs of the ranking, so it is computed from the
retrieved documents' relevant subtopics, ranked once: one lazy plan, no loop over queries
(:mod:`rankframe._engine.subtopics_plan`). The normalised forms divide by the value of ndeval's
ideal ranking, built greedily (at each rank the judged document of largest gain, ties to the
larger doc id: finding the true ideal is NP-hard), a loop over ranks across all queries at once.

Qrels without a subtopic column are one subtopic per query (as ir_measures' pyndeval provider
reads them): the measures then run in the ordinary planner, the greedy ideal being
:math:`(1 - \alpha)^{t - 1}` at rank :math:`t` up to the number of relevant documents.

ndeval's conventions are kept: the cutoffs' values at rank 1 are not normalised (``alpha_DCG@1``
and ``ERR_IA@1`` are the gain at rank 1, which may exceed 1), ``ERR_IA`` is ndeval's (its
redundancy :math:`\alpha` = 0.5, discount :math:`1/r`), and a query without a relevant subtopic
scores 0 in every measure (ndeval's nNRBP divides 0 by 0 there; rankframe says 0, as for every
query without a relevant document). ndeval stops at rank 20; rankframe's cutoffs may go deeper.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, ClassVar

import polars as pl

from rankframe._errors import MeasureError
from rankframe._measures._measure import Measure
from rankframe._measures._params import JUDGED_ONLY, POSITIVE_INT, Param
from rankframe._measures._registry import register

if TYPE_CHECKING:
    from rankframe._measures._ctx import Ctx

#: ndeval's default redundancy intolerance (and ERR-IA's, which has no parameter for it).
ALPHA = 0.5
_LN2 = math.log(2.0)
_UNIT = (lambda v: 0.0 <= v <= 1.0, "a float in [0, 1]")
CUTOFF = Param("cutoff", "int", None, POSITIVE_INT)
REL = Param("rel", "int", None)


class Subtopic(Measure):
    """A measure over subtopic judgments (base class of ndeval's families).

    The value is :meth:`finish` of three per-query parts: :meth:`numerator`, a sum over the
    retrieved (document, subtopic) pairs judged relevant; the number of the query's subtopics;
    and, for the normalised forms, :meth:`ideal`, a sum over the greedy ideal ranking's gains.
    """

    #: Read by the planner: computed from subtopic judgments where the qrels carry them.
    SUBTOPICS: ClassVar[bool] = True
    BOUNDS = (0.0, 1.0)

    def validate(self) -> None:
        """Require a cutoff where the family takes one (ndeval has none without)."""
        if "cutoff" in self.params and self.cutoff is None:
            msg = f"{self.NAME} needs a cutoff after '@', e.g. '{self.NAME}@20' (ndeval's 5, 10 or 20)."
            raise MeasureError(msg)

    @property
    def alpha(self) -> float:
        r"""The redundancy intolerance :math:`\alpha` (0.5 where the family has no parameter)."""
        return self._params.get("alpha", ALPHA)

    @property
    def ideal_steps(self) -> int | None:
        """The ranks of the ideal ranking the value reads (None: it reads none)."""
        return None

    def numerator(self, rank: pl.Expr, hit: pl.Expr, subtopic: pl.Expr, nrel: pl.Expr) -> pl.Expr:
        """Aggregate the relevant (document, subtopic) pairs of one query's ranking.

        ``rank``: the document's rank; ``hit``: the pair's position among the subtopic's
        relevant retrieved documents (1, 2, ...); ``subtopic``: its id; ``nrel``: the
        subtopic's relevant documents, retrieved or not.
        """
        raise NotImplementedError

    def ideal(self, step: pl.Expr, gain: pl.Expr) -> pl.Expr:
        """Aggregate the ideal ranking's gains (``gain`` at rank ``step``); normalised forms only."""
        raise NotImplementedError

    def finish(self, num: pl.Expr, n_sub: pl.Expr, ideal: pl.Expr | None) -> pl.Expr:
        """The value from the parts (``n_sub`` > 0; a query without subtopics scores 0)."""
        raise NotImplementedError

    def novelty(self, hit: pl.Expr) -> pl.Expr:
        r""":math:`(1 - \alpha)^{c}` for the ``hit``-th relevant document of a subtopic."""
        return pl.lit(1.0 - self.alpha).pow(hit.cast(pl.Float64) - 1.0)

    def expr(self, ctx: Ctx) -> pl.Expr:
        """Return the per-query expression for one subtopic per query (qrels without subtopics)."""
        level = ctx.level(self.rel)
        ranks, found = ctx.hit_ranks(level)
        nrel = ctx.num_rel(level)
        num = self.numerator(ranks, found, ranks * 0, nrel.cast(pl.Float64))
        ideal = None
        if self.ideal_steps is not None:
            steps = pl.int_range(1, pl.min_horizontal(nrel, self.ideal_steps) + 1, dtype=pl.Int64)
            ideal = self.ideal(steps, self.novelty(steps))
        value = self.finish(num, (nrel > 0).cast(pl.Float64), ideal)
        return pl.when(nrel > 0).then(value).otherwise(0.0)


class _Cumulated(Subtopic):
    """alpha-DCG and ERR-IA: novelty-weighted gains, discounted, cumulated to the cutoff.

    Not bounded by 1: at rank 1 ndeval leaves the gain (up to the number of subtopics) as it is.
    """

    BOUNDS = None

    def discount(self, rank: pl.Expr) -> pl.Expr:
        """The rank discount."""
        raise NotImplementedError

    def numerator(self, rank: pl.Expr, hit: pl.Expr, subtopic: pl.Expr, nrel: pl.Expr) -> pl.Expr:
        """The discounted novelty-weighted gains of the top ``k``."""
        return (self.novelty(hit) * self.discount(rank)).filter(rank <= self.cutoff).sum()

    def ideal_ideal(self) -> float:
        r"""ndeval's "ideal ideal" per subtopic: :math:`\sum_{t < k} (1 - \alpha)^t w(t + 1)`.

        Summed in rank order, as ndeval does, to the rank past which the terms no longer
        change a double (:math:`(1 - \alpha)^t < 2^{-64}`; every rank when :math:`\alpha = 0`).
        """
        g = 1.0 - self.alpha
        k = self.cutoff
        if 0.0 < g < 1.0:
            k = min(k, 64 + math.ceil(64 * _LN2 / -math.log(g)))
        total, chunk = 0.0, 1 << 20
        for start in range(0, k if g > 0.0 else 1, chunk):
            t = pl.int_range(start, min(k, start + chunk), dtype=pl.Int64, eager=True).cast(pl.Float64)
            terms = pl.select((pl.lit(g).pow(t) * self.discount(t + 1.0)).cum_sum()).to_series()
            total += terms[-1]
        return total

    def finish(self, num: pl.Expr, n_sub: pl.Expr, ideal: pl.Expr | None) -> pl.Expr:
        """Divided by the ideal ideal of the query's subtopics (except at rank 1, as ndeval)."""
        return num if self.cutoff == 1 else num / (n_sub * self.ideal_ideal())


class _Normalised(Subtopic):
    """A measure divided by its value on ndeval's greedy ideal ranking.

    Not bounded by 1: the greedy ideal is an approximation, which a ranking may beat.
    """

    BOUNDS = None

    BASE: ClassVar[type[Subtopic]]

    @property
    def _base(self) -> Subtopic:
        keep = {k: v for k, v in self.params.items() if k in {p.name for p in self.BASE.PARAMS}}
        return self.BASE(**keep)

    @property
    def ideal_steps(self) -> int | None:
        """The cutoff's ranks."""
        return self.cutoff

    def numerator(self, rank: pl.Expr, hit: pl.Expr, subtopic: pl.Expr, nrel: pl.Expr) -> pl.Expr:
        """The unnormalised form's numerator."""
        return self._base.numerator(rank, hit, subtopic, nrel)

    def ideal(self, step: pl.Expr, gain: pl.Expr) -> pl.Expr:
        """The same sum over the ideal ranking's gains."""
        return (gain * self._base.discount(step)).filter(step <= self.cutoff).sum()  # type: ignore[attr-defined]

    def finish(self, num: pl.Expr, n_sub: pl.Expr, ideal: pl.Expr | None) -> pl.Expr:
        """The ratio (0 when nothing relevant is retrieved)."""
        return pl.when(num > 0).then(num / ideal).otherwise(0.0)


_CLARKE_2008 = """Clarke, C. L. A., Kolla, M., Cormack, G. V., Vechtomova, O., Ashkan, A., Büttcher, S.
    and MacKinnon, I. (2008). Novelty and diversity in information retrieval evaluation.
    SIGIR 2008, 659-666."""
_CHAPELLE_2009 = """Chapelle, O., Metzler, D., Zhang, Y. and Grinspan, P. (2009). Expected reciprocal
    rank for graded relevance. CIKM 2009, 621-630."""
_CLARKE_2009 = """Clarke, C. L. A., Kolla, M. and Vechtomova, O. (2009). An effectiveness measure for
    ambiguous and underspecified queries. ICTIR 2009, 188-199."""
_AGRAWAL_2009 = """Agrawal, R., Gollapudi, S., Halverson, A. and Ieong, S. (2009). Diversifying search
    results. WSDM 2009, 5-14."""

#: Subtopic qrels of the examples: q1 has subtopics 1 (docs a, b) and 2 (doc b).
_EXAMPLE = """>>> import polars as pl
    >>> import rankframe as rf
    >>> qrels = pl.DataFrame({"query_id": ["q1"] * 3, "subtopic": [1, 1, 2],
    ...                       "doc_id": ["a", "b", "b"], "relevance": [1, 1, 1]})
    >>> run = pl.DataFrame({"query_id": ["q1"] * 2, "doc_id": ["a", "b"], "score": [2.0, 1.0]})"""


@register
class alpha_DCG(_Cumulated):  # noqa: N801 (ir_measures' name)
    r"""alpha-DCG: novelty-weighted DCG over subtopics (Clarke et al. 2008), ndeval's normalisation.

    Parameters
    ----------
    {parameters}

    Notes
    -----
    .. math:: \alpha\text{-}DCG@k = \frac{\sum_{r \le k} g(r) / \log_2(r + 1)}
        {|S| \sum_{t < k} (1 - \alpha)^t / \log_2(t + 2)}

    with the novelty gain :math:`g(r)` of :mod:`rankframe._measures.subtopics`; the
    denominator is ndeval's collection-independent "ideal ideal" (every subtopic covered at
    every rank), except at :math:`k = 1`, where ndeval leaves the gain as it is.

    References
    ----------
    {clarke2008}

    Examples
    --------
    {example}
    >>> # g = 1 at rank 1 (subtopic 1), 0.5 + 1 at rank 2 (subtopic 1 again, subtopic 2)
    >>> # (1 + 1.5 / log2(3)) / (2 * (1 + 0.5 / log2(3)))
    >>> rf.evaluate(qrels, run, ["alpha_DCG@2"])["value"].round(4).to_list()
    [0.7398]
    """

    NAME = "alpha_DCG"
    PARAMS = (CUTOFF, Param("alpha", "float", ALPHA, _UNIT), REL, JUDGED_ONLY)

    def discount(self, rank: pl.Expr) -> pl.Expr:
        r"""ndeval's :math:`\ln 2 / \ln(r + 1)`."""
        return _LN2 / (rank.cast(pl.Float64) + 1.0).log()


@register
class alpha_nDCG(_Normalised):  # noqa: N801 (ir_measures' name)
    r"""alpha-nDCG: alpha-DCG over that of ndeval's greedy ideal ranking (Clarke et al. 2008).

    Parameters
    ----------
    {parameters}

    Notes
    -----
    .. math:: \alpha\text{-}nDCG@k = \frac{\sum_{r \le k} g(r) / \log_2(r + 1)}
        {\sum_{t \le k} g^*(t) / \log_2(t + 1)}

    :math:`g^*(t)` is the gain at rank :math:`t` of ndeval's ideal ranking: greedily, the
    judged document of largest gain given those above it, ties to the larger doc id (the true
    ideal is NP-hard to find; ndeval's approximation is kept so that the numbers are its).
    0 when nothing relevant is retrieved in the top ``k`` or the query has no relevant subtopic.

    References
    ----------
    {clarke2008}

    Examples
    --------
    {example}
    >>> # the ideal ranks b (gain 2) then a (0.5): (1 + 1.5 / log2(3)) / (2 + 0.5 / log2(3))
    >>> rf.evaluate(qrels, run, ["alpha_nDCG@2"])["value"].round(4).to_list()
    [0.8406]
    """

    NAME = "alpha_nDCG"
    PARAMS = alpha_DCG.PARAMS
    BASE = alpha_DCG


@register
class ERR_IA(_Cumulated):  # noqa: N801 (ir_measures' name)
    r"""Intent-aware ERR as ndeval computes it (Chapelle et al. 2009), collection-independent.

    Parameters
    ----------
    {parameters}

    Notes
    -----
    .. math:: ERR\text{-}IA@k = \frac{\sum_{r \le k} g(r) / r}{|S| \sum_{t < k} (1 - \alpha)^t / (t + 1)}

    ndeval's form of ERR-IA for binary judgments: the novelty gain :math:`g(r)` with
    :math:`\alpha = 0.5` (the chance that a relevant document satisfies the user), discounted
    by :math:`1/r` and divided by the "ideal ideal"; at :math:`k = 1` the gain itself.

    References
    ----------
    {chapelle2009}
    {agrawal2009}

    Examples
    --------
    {example}
    >>> # (1 + 1.5 / 2) / (2 * (1 + 0.5 / 2))
    >>> rf.evaluate(qrels, run, ["ERR_IA@2"])["value"].round(4).to_list()
    [0.7]
    """

    NAME = "ERR_IA"
    PARAMS = (CUTOFF, REL, JUDGED_ONLY)

    def discount(self, rank: pl.Expr) -> pl.Expr:
        """:math:`1 / r`."""
        return 1.0 / rank.cast(pl.Float64)


@register
class nERR_IA(_Normalised):  # noqa: N801 (ir_measures' name)
    r"""Intent-aware ERR over that of ndeval's greedy ideal ranking (Chapelle et al. 2009).

    Parameters
    ----------
    {parameters}

    Notes
    -----
    .. math:: nERR\text{-}IA@k = \frac{\sum_{r \le k} g(r) / r}{\sum_{t \le k} g^*(t) / t}

    with :math:`\alpha = 0.5` and ndeval's greedy ideal gains :math:`g^*` (see ``alpha_nDCG``).

    References
    ----------
    {chapelle2009}

    Examples
    --------
    {example}
    >>> # (1 + 1.5 / 2) / (2 + 0.5 / 2)
    >>> rf.evaluate(qrels, run, ["nERR_IA@2"])["value"].round(4).to_list()
    [0.7778]
    """

    NAME = "nERR_IA"
    PARAMS = ERR_IA.PARAMS
    BASE = ERR_IA


@register
class NRBP(Subtopic):
    r"""Novelty- and rank-biased precision (Clarke et al. 2009), collection-independent.

    Parameters
    ----------
    {parameters}

    Notes
    -----
    .. math:: NRBP = \frac{1 - (1 - \alpha)\beta}{|S|} \sum_{r \ge 1} \beta^{r - 1} g(r)

    over the whole ranking.

    References
    ----------
    {clarke2009}

    Examples
    --------
    {example}
    >>> # (1 - 0.25) / 2 * (1 + 0.5 * 1.5)
    >>> rf.evaluate(qrels, run, ["NRBP"])["value"].round(4).to_list()
    [0.6562]
    """

    NAME = "NRBP"
    PARAMS = (Param("alpha", "float", ALPHA, _UNIT), Param("beta", "float", 0.5, _UNIT), REL)

    def numerator(self, rank: pl.Expr, hit: pl.Expr, subtopic: pl.Expr, nrel: pl.Expr) -> pl.Expr:
        """The rank-biased novelty gains."""
        return (self.novelty(hit) * pl.lit(self.beta).pow(rank.cast(pl.Float64) - 1.0)).sum()

    def ideal(self, step: pl.Expr, gain: pl.Expr) -> pl.Expr:
        """The same sum over the ideal ranking."""
        return (gain * pl.lit(self.beta).pow(step.cast(pl.Float64) - 1.0)).sum()

    def finish(self, num: pl.Expr, n_sub: pl.Expr, ideal: pl.Expr | None) -> pl.Expr:
        r"""Scaled by :math:`(1 - (1 - \alpha)\beta) / |S|`."""
        return num * (1.0 - (1.0 - self.alpha) * self.beta) / n_sub


@register
class nNRBP(NRBP):  # noqa: N801 (ir_measures' name)
    r"""NRBP over that of ndeval's greedy ideal ranking (Clarke et al. 2009).

    Parameters
    ----------
    {parameters}

    Notes
    -----
    .. math:: nNRBP = \frac{\sum_{r \ge 1} \beta^{r - 1} g(r)}{\sum_{t \ge 1} \beta^{t - 1} g^*(t)}

    with ndeval's greedy ideal gains :math:`g^*` (see ``alpha_nDCG``), to the rank where the
    remaining terms cannot change a double (:math:`\beta^t < 2^{-64}`). ndeval gives NaN (0/0)
    for a query without a relevant subtopic; rankframe 0.

    References
    ----------
    {clarke2009}

    Examples
    --------
    {example}
    >>> # (1 + 0.5 * 1.5) / (2 + 0.5 * 0.5)
    >>> rf.evaluate(qrels, run, ["nNRBP"])["value"].round(4).to_list()
    [0.7778]
    """

    NAME = "nNRBP"
    BOUNDS = None  # over the greedy ideal, which a ranking may beat

    @property
    def ideal_steps(self) -> int | None:
        """The ranks whose terms still count in a double."""
        if self.beta <= 0.0:
            return 1
        if self.beta >= 1.0:
            return 2**31 - 1
        return min(2**31 - 1, math.ceil(64 * math.log(2.0) / -math.log(self.beta)) + 1)

    def finish(self, num: pl.Expr, n_sub: pl.Expr, ideal: pl.Expr | None) -> pl.Expr:
        """The ratio (0 when nothing relevant is retrieved)."""
        return pl.when(num > 0).then(num / ideal).otherwise(0.0)


@register
class AP_IA(Subtopic):  # noqa: N801 (ir_measures' name)
    r"""Intent-aware average precision: the mean over subtopics of AP (ndeval's MAP-IA).

    Parameters
    ----------
    {parameters}

    Notes
    -----
    .. math:: AP\text{-}IA = \frac{1}{|S|} \sum_{j \in S} \frac{1}{R_j}
        \sum_{i} \frac{i}{r_{j,i}}

    with :math:`r_{j,i}` the rank of the :math:`i`-th retrieved document relevant to subtopic
    :math:`j` and :math:`R_j` its relevant documents (retrieved or not), over the whole ranking.

    References
    ----------
    {agrawal2009}

    Examples
    --------
    {example}
    >>> # subtopic 1: (1/1 + 2/2) / 2; subtopic 2: (1/2) / 1
    >>> rf.evaluate(qrels, run, ["AP_IA"])["value"].round(4).to_list()
    [0.75]
    """

    NAME = "AP_IA"
    PARAMS = (REL, JUDGED_ONLY)

    def numerator(self, rank: pl.Expr, hit: pl.Expr, subtopic: pl.Expr, nrel: pl.Expr) -> pl.Expr:
        """Each subtopic's AP summands."""
        return (hit.cast(pl.Float64) / rank.cast(pl.Float64) / nrel).sum()

    def finish(self, num: pl.Expr, n_sub: pl.Expr, ideal: pl.Expr | None) -> pl.Expr:
        """The mean over subtopics."""
        return num / n_sub


@register
class P_IA(Subtopic):  # noqa: N801 (ir_measures' name)
    r"""Intent-aware precision at ``k``: the mean over subtopics of P@k.

    Parameters
    ----------
    {parameters}

    Notes
    -----
    .. math:: P\text{-}IA@k = \frac{1}{|S|\,k} \sum_{r \le k} |\{j \in S : d_r \text{ relevant to } j\}|

    divided by ``k`` even when fewer documents are retrieved.

    References
    ----------
    {agrawal2009}

    Examples
    --------
    {example}
    >>> # 3 relevant (document, subtopic) pairs in the top 2, over 2 subtopics x 2 ranks
    >>> rf.evaluate(qrels, run, ["P_IA@2"])["value"].round(4).to_list()
    [0.75]
    """

    NAME = "P_IA"
    PARAMS = (CUTOFF, REL, JUDGED_ONLY)

    def numerator(self, rank: pl.Expr, hit: pl.Expr, subtopic: pl.Expr, nrel: pl.Expr) -> pl.Expr:
        """The relevant pairs in the top ``k``."""
        return (rank <= self.cutoff).sum().cast(pl.Float64)

    def finish(self, num: pl.Expr, n_sub: pl.Expr, ideal: pl.Expr | None) -> pl.Expr:
        """Over ``k`` times the subtopics."""
        return num / (n_sub * float(self.cutoff))


@register
class StRecall(Subtopic):
    r"""Subtopic recall at ``k``: the fraction of the query's subtopics covered by the top ``k``.

    Parameters
    ----------
    {parameters}

    Notes
    -----
    .. math:: S\text{-}recall@k = \frac{|\{j \in S : \exists r \le k,\ d_r
        \text{ relevant to } j\}|}{|S|}

    References
    ----------
    Zhai, C., Cohen, W. W. and Lafferty, J. (2003). Beyond independent relevance: methods and
    evaluation metrics for subtopic retrieval. SIGIR 2003, 10-17.

    Examples
    --------
    {example}
    >>> rf.evaluate(qrels, run, ["StRecall@1", "StRecall@2"])["value"].to_list()
    [0.5, 1.0]
    """

    NAME = "StRecall"
    PARAMS = (CUTOFF, REL)

    def numerator(self, rank: pl.Expr, hit: pl.Expr, subtopic: pl.Expr, nrel: pl.Expr) -> pl.Expr:
        """The distinct subtopics in the top ``k``."""
        return subtopic.filter(rank <= self.cutoff).n_unique().cast(pl.Float64)

    def finish(self, num: pl.Expr, n_sub: pl.Expr, ideal: pl.Expr | None) -> pl.Expr:
        """Over the subtopics."""
        return num / n_sub


#: The docstrings' parameter entries (type, description), listed from each family's PARAMS.
_PARAMETERS = {
    "cutoff": ("int", "``k`` (required; ndeval's are 5, 10 and 20)."),
    "alpha": ("float", r"Redundancy intolerance :math:`\alpha` in [0, 1] (default 0.5)."),
    "beta": ("float", r"Patience :math:`\beta` in [0, 1] (default 0.5)."),
    "rel": ("int, optional",
            "Minimum grade relevant to a subtopic; defaults to the evaluation's ``relevance_level``."),
    "judged_only": ("bool", "Drop unjudged documents from the ranking first."),
}
_REFERENCES = {
    "{clarke2008}": _CLARKE_2008, "{chapelle2009}": _CHAPELLE_2009, "{clarke2009}": _CLARKE_2009,
    "{agrawal2009}": _AGRAWAL_2009, "{example}": _EXAMPLE,
}
for _family in (alpha_DCG, alpha_nDCG, ERR_IA, nERR_IA, NRBP, nNRBP, AP_IA, P_IA, StRecall):
    _listed = "\n    ".join(
        f"{p.name} : {_PARAMETERS[p.name][0]}\n        {_PARAMETERS[p.name][1]}" for p in _family.PARAMS
    )
    for _key, _text in {**_REFERENCES, "{parameters}": _listed}.items():
        _family.__doc__ = _family.__doc__.replace(_key, _text)
