"""Measures as Polars expressions for your own ``group_by`` on a judged frame.

Every registered measure can be turned into a ``pl.Expr`` with :func:`measure`; a few common
ones have short builders. The expression ranks each group's rows by score (ties by doc id
descending, as trec_eval does) and reads the grades from the relevance column; the ideal
ranking and the number of relevant documents come from the group's own rows.

So the group must hold every judged document of its query, retrieved or not. Build the frame
from a run and its qrels with :func:`rankframe.judged_frame` (the full join: a null score for a
judged document the run did not retrieve, a null relevance for an unjudged one); its columns
``score``, ``relevance`` and ``doc_id`` are what the builders read by default, and per query
they then give :func:`rankframe.evaluate`'s values. A run left-joined with its qrels is not that
frame: it loses the judged documents the run did not retrieve, and nDCG's ideal DCG, recall,
R-precision and AP's denominator come out wrong. A frame that is complete by construction
(logged impressions with their clicks or grades, nothing relevant outside it) is right as it
is: map its columns with ``score=``, ``label=`` and ``doc=``.

Examples
--------
>>> import polars as pl
>>> import rankframe as rf
>>> from rankframe import expr as rfx
>>> qrels = pl.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "c"],
...                       "relevance": [1, 1, 1]})
>>> run = pl.DataFrame({"query_id": ["q1", "q1", "q2", "q2"], "doc_id": ["x", "a", "c", "y"],
...                     "score": [0.9, 0.5, 0.7, 0.2]})
>>> judged = rf.judged_frame(qrels, run)  # b: judged relevant, not retrieved
>>> out = judged.group_by("query_id").agg(rfx.reciprocal_rank(), rfx.recall(10)).sort("query_id")
>>> out.collect().rows()
[('q1', 0.5, 0.5), ('q2', 1.0, 1.0)]
"""

from __future__ import annotations

import polars as pl

from rankframe._measures import Ctx, Measure
from rankframe._measures._names import parse_measure

__all__ = [
    "auc",
    "average_precision",
    "c_index",
    "kendall_tau",
    "measure",
    "ndcg",
    "precision",
    "recall",
    "reciprocal_rank",
    "spearman_rho",
]


def _col(c: str | pl.Expr) -> pl.Expr:
    return pl.col(c) if isinstance(c, str) else c


def _ctx(
    score: str | pl.Expr,
    label: str | pl.Expr,
    doc: str | pl.Expr | None,
    relevance_level: int,
    target: str | pl.Expr | None = None,
    average: bool = False,
) -> Ctx:
    s = _col(score)
    if doc is None:
        rank = s.rank("ordinal", descending=True)
    else:
        # as bytes: text and integer ids compare as their text (trec_eval's strcmp), ids of bytes
        # that are not UTF-8 as they are
        rank = pl.struct(s.alias("s"), _col(doc).cast(pl.Binary).alias("d")).rank(
            "ordinal", descending=True
        )
    rank = pl.when(s.is_not_null()).then(rank)
    # the helpers sort by these once rather than rank (each reference to a rank ranks again)
    order = (s,) if doc is None else (s, _col(doc).cast(pl.Binary))
    return Ctx(
        rank=rank, rel=_col(label).cast(pl.Int64), relevance_level=relevance_level, order=order,
        target=None if target is None else _col(target).cast(pl.Float64),
        score=s if average else None,
    )


def measure(
    spec: str | Measure,
    *,
    score: str | pl.Expr = "score",
    label: str | pl.Expr = "relevance",
    doc: str | pl.Expr | None = "doc_id",
    relevance_level: int = 1,
    target: str | pl.Expr | None = None,
    ties: str = "trec_eval",
) -> pl.Expr:
    """Return the aggregation expression of any measure, for ``group_by(query).agg(...)``.

    Parameters
    ----------
    spec
        One measure: a name in any dialect (``"nDCG@10"``, ``"P_5"``) or a measure object.
    score, label
        The score and grade columns (names or expressions); the defaults are the columns of
        :func:`rankframe.judged_frame`. A null score is a document not retrieved, a null grade
        an unjudged one.
    doc
        The doc id column, which breaks score ties as trec_eval does (doc id descending);
        ``None`` for a frame without one: ties then keep the row order, which a join or a
        streaming engine does not fix.
    relevance_level
        Minimum grade counted as relevant by binary measures.
    target
        For the measures comparing two rankings (``KendallTauB``, ``CIndex``, ``Footrule``...):
        a column whose values (higher is better) are the target ranking; by default the
        label grades are.
    ties
        ``"trec_eval"`` (default): score ties are broken (by ``doc`` descending, else by row
        order); ``"average"``: they stay ties, for the measures comparing two rankings only.

    Returns
    -------
    polars.Expr
        A Float64 scalar per group.

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> qrels = pl.DataFrame({"query_id": ["q"] * 3, "doc_id": ["a", "b", "c"],
    ...                       "relevance": [0, 1, 1]})
    >>> run = qrels.select("query_id", "doc_id", score=pl.Series([3.0, 2.0, 1.0]))
    >>> judged = rf.judged_frame(qrels, run)
    >>> judged.group_by("query_id").agg(measure("AP")).collect().item(0, "AP")  # (1/2 + 2/3) / 2
    0.5833333333333333
    >>> judged.group_by("query_id").agg(measure("KendallTauB", ties="average")).collect().item(0, 1)
    -0.8164965809277261

    A frame with other column names, here without doc ids (ties keep the row order):

    >>> df = pl.DataFrame({"q": [1, 1, 1], "pred": [3, 2, 1], "clicked": [0, 1, 1]})
    >>> df.group_by("q").agg(measure("AP", score="pred", label="clicked", doc=None)).item(0, 1)
    0.5833333333333333
    """
    parsed = parse_measure(spec)
    if len(parsed) != 1:
        msg = f"{spec!r} names {len(parsed)} measures; build one expression per measure."
        raise ValueError(msg)
    m = parsed[0]
    if ties not in ("trec_eval", "average"):
        msg = f"ties must be 'trec_eval' or 'average'. Got {ties!r}."
        raise ValueError(msg)
    if ties == "average" and not m.COMPARES_RANKINGS:
        msg = (
            f"ties='average' in an expression is supported for the measures comparing two "
            f"rankings only, not {m!r}; use rankframe.evaluate(..., ties='average') for it."
        )
        raise ValueError(msg)
    if target is not None and not m.COMPARES_RANKINGS:
        msg = f"{m!r} does not compare two rankings; target= applies to e.g. KendallTauB, CIndex."
        raise ValueError(msg)
    return m.aggregation(_ctx(score, label, doc, relevance_level, target, ties == "average"))


def ndcg(k: int | None = None, **kwargs: object) -> pl.Expr:
    """nDCG (at ``k``), linear gain; see :func:`measure` for the keyword arguments.

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> qrels = pl.DataFrame({"query_id": "q", "doc_id": ["a", "b"], "relevance": [0, 1]})
    >>> run = pl.DataFrame({"query_id": "q", "doc_id": ["a", "b"], "score": [2.0, 1.0]})
    >>> judged = rf.judged_frame(qrels, run)
    >>> judged.group_by("query_id").agg(ndcg(10)).collect().item(0, 1)  # (1/log2(3)) / 1
    0.6309297535714575
    """
    return measure("nDCG" if k is None else f"nDCG@{k}", **kwargs)  # type: ignore[arg-type]


def precision(k: int, **kwargs: object) -> pl.Expr:
    """Precision at ``k``; see :func:`measure`.

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> qrels = pl.DataFrame({"query_id": "q", "doc_id": ["a", "b"], "relevance": [0, 1]})
    >>> run = pl.DataFrame({"query_id": "q", "doc_id": ["a", "b"], "score": [2.0, 1.0]})
    >>> judged = rf.judged_frame(qrels, run)
    >>> judged.group_by("query_id").agg(precision(1)).collect().item(0, 1)
    0.0
    """
    return measure(f"P@{k}", **kwargs)  # type: ignore[arg-type]


def recall(k: int, **kwargs: object) -> pl.Expr:
    """Recall at ``k``; see :func:`measure`.

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> qrels = pl.DataFrame({"query_id": "q", "doc_id": ["a", "b"], "relevance": [1, 1]})
    >>> run = pl.DataFrame({"query_id": "q", "doc_id": ["a", "b"], "score": [2.0, 1.0]})
    >>> judged = rf.judged_frame(qrels, run)
    >>> judged.group_by("query_id").agg(recall(1)).collect().item(0, 1)
    0.5
    """
    return measure(f"R@{k}", **kwargs)  # type: ignore[arg-type]


def average_precision(**kwargs: object) -> pl.Expr:
    """Average precision; see :func:`measure`.

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> qrels = pl.DataFrame({"query_id": "q", "doc_id": ["a", "b"], "relevance": [0, 1]})
    >>> run = pl.DataFrame({"query_id": "q", "doc_id": ["a", "b"], "score": [2.0, 1.0]})
    >>> judged = rf.judged_frame(qrels, run)
    >>> judged.group_by("query_id").agg(average_precision()).collect().item(0, 1)
    0.5
    """
    return measure("AP", **kwargs)  # type: ignore[arg-type]


def reciprocal_rank(**kwargs: object) -> pl.Expr:
    """Reciprocal rank; see :func:`measure`.

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> qrels = pl.DataFrame({"query_id": "q", "doc_id": ["a", "b"], "relevance": [0, 1]})
    >>> run = pl.DataFrame({"query_id": "q", "doc_id": ["a", "b"], "score": [2.0, 1.0]})
    >>> judged = rf.judged_frame(qrels, run)
    >>> judged.group_by("query_id").agg(reciprocal_rank()).collect().item(0, 1)
    0.5
    """
    return measure("RR", **kwargs)  # type: ignore[arg-type]


def kendall_tau(*, variant: str = "b", **kwargs: object) -> pl.Expr:
    """Kendall's tau between the scores and the target; see :func:`measure`.

    ``variant="b"``: tau-b (tie-corrected, as scipy); ``"seed"``: the definition of
    Fürnkranz & Hüllermeier's preference-learning tutorial, :math:`1 - 4D/(c(c-1))`
    (``KendallTau``).

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> qrels = pl.DataFrame({"query_id": "q", "doc_id": ["a", "b", "c"], "relevance": [1, 3, 2]})
    >>> run = pl.DataFrame({"query_id": "q", "doc_id": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})
    >>> judged = rf.judged_frame(qrels, run)
    >>> judged.group_by("query_id").agg(kendall_tau()).collect().item(0, 1)  # target: the grades
    -0.3333333333333333
    """
    names = {"b": "KendallTauB", "seed": "KendallTau"}
    if variant not in names:
        msg = f"variant must be 'b' or 'seed'. Got {variant!r}."
        raise ValueError(msg)
    return measure(names[variant], **kwargs)  # type: ignore[arg-type]


def spearman_rho(**kwargs: object) -> pl.Expr:
    """Spearman's rank correlation between the scores and the target; see :func:`measure`.

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> qrels = pl.DataFrame({"query_id": "q", "doc_id": ["a", "b", "c"], "relevance": [1, 3, 2]})
    >>> run = pl.DataFrame({"query_id": "q", "doc_id": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})
    >>> judged = rf.judged_frame(qrels, run)
    >>> judged.group_by("query_id").agg(spearman_rho()).collect().item(0, 1)  # target: the grades
    -0.5
    """
    return measure("SpearmanRho", **kwargs)  # type: ignore[arg-type]


def auc(rel: int | None = None, **kwargs: object) -> pl.Expr:
    """Area under the ROC curve of the labels (relevant: grade >= ``rel``); see :func:`measure`.

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> qrels = pl.DataFrame({"query_id": "q", "doc_id": ["a", "b", "c"], "relevance": [0, 1, 1]})
    >>> run = pl.DataFrame({"query_id": "q", "doc_id": ["a", "b", "c"], "score": [0.9, 0.8, 0.3]})
    >>> judged = rf.judged_frame(qrels, run)
    >>> judged.group_by("query_id").agg(auc()).collect().item(0, 1)
    0.0
    """
    return measure("AUC" if rel is None else f"AUC(rel={rel})", **kwargs)  # type: ignore[arg-type]


def c_index(**kwargs: object) -> pl.Expr:
    """Concordance index of the scores against graded labels (or a target); see :func:`measure`.

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> qrels = pl.DataFrame({"query_id": "q", "doc_id": ["a", "b", "c"], "relevance": [2, 0, 1]})
    >>> run = pl.DataFrame({"query_id": "q", "doc_id": ["a", "b", "c"], "score": [0.9, 0.8, 0.3]})
    >>> judged = rf.judged_frame(qrels, run)
    >>> judged.group_by("query_id").agg(c_index()).collect().item(0, 1)  # 2 of 3 pairs
    0.6666666666666666
    """
    return measure("CIndex", **kwargs)  # type: ignore[arg-type]
