"""Measures as Polars expressions for your own ``group_by`` on a judged frame.

Every registered measure can be turned into a ``pl.Expr`` with :func:`measure`; a few common
ones have short builders. The expression ranks each group's rows by score (ties by doc id
descending, as trec_eval does, when a doc column is given) and reads grades from the label column.
Inside a group, the ideal ranking comes from the group's own labels.

Examples
--------
>>> import polars as pl
>>> from rankframe import expr as rfx
>>> df = pl.DataFrame({"qid": ["q1"] * 3 + ["q2"] * 2, "score": [0.9, 0.5, 0.1, 0.7, 0.2],
...                    "label": [0, 1, 1, 1, 0]})
>>> out = df.group_by("qid", maintain_order=True).agg(
...     rfx.ndcg(10).alias("ndcg@10"), rfx.reciprocal_rank().alias("rr"))
>>> out["rr"].to_list()
[0.5, 1.0]
"""

from __future__ import annotations

import polars as pl

from rankframe._measures import Ctx, Measure
from rankframe._names import parse_measure

__all__ = ["average_precision", "measure", "ndcg", "precision", "recall", "reciprocal_rank"]


def _col(c: str | pl.Expr) -> pl.Expr:
    return pl.col(c) if isinstance(c, str) else c


def _ctx(
    score: str | pl.Expr, label: str | pl.Expr, doc: str | pl.Expr | None, relevance_level: int
) -> Ctx:
    s = _col(score)
    if doc is None:
        rank = s.rank("ordinal", descending=True)
    else:
        rank = pl.struct(s.alias("s"), _col(doc).cast(pl.String).alias("d")).rank(
            "ordinal", descending=True
        )
    rank = pl.when(s.is_not_null()).then(rank)
    return Ctx(rank=rank, rel=_col(label).cast(pl.Int64), relevance_level=relevance_level)


def measure(
    spec: str | Measure,
    *,
    score: str | pl.Expr = "score",
    label: str | pl.Expr = "label",
    doc: str | pl.Expr | None = None,
    relevance_level: int = 1,
) -> pl.Expr:
    """Return the aggregation expression of any measure, for ``group_by(query).agg(...)``.

    Parameters
    ----------
    spec
        One measure: a name in any dialect (``"nDCG@10"``, ``"P_5"``) or a measure object.
    score, label
        The score and grade columns (names or expressions).
    doc
        Optional doc id column, used to break score ties as trec_eval does (doc id descending);
        without it ties keep the row order.
    relevance_level
        Minimum grade counted as relevant by binary measures.

    Returns
    -------
    polars.Expr
        A Float64 scalar per group.

    Examples
    --------
    >>> import polars as pl
    >>> df = pl.DataFrame({"q": [1, 1, 1], "score": [3, 2, 1], "label": [0, 1, 1]})
    >>> df.group_by("q").agg(measure("AP")).item(0, "AP")  # (1/2 + 2/3) / 2
    0.5833333333333333
    """
    parsed = parse_measure(spec)
    if len(parsed) != 1:
        msg = f"{spec!r} names {len(parsed)} measures; build one expression per measure."
        raise ValueError(msg)
    m = parsed[0]
    return m.aggregation(_ctx(score, label, doc, relevance_level))


def ndcg(k: int | None = None, **kwargs: object) -> pl.Expr:
    """nDCG (at ``k``), linear gain; see :func:`measure` for the keyword arguments.

    Examples
    --------
    >>> import polars as pl
    >>> df = pl.DataFrame({"q": [1, 1], "score": [2.0, 1.0], "label": [0, 1]})
    >>> round(df.group_by("q").agg(ndcg(10)).item(0, 1), 4)  # (1/log2(3)) / 1
    0.6309
    """
    return measure("nDCG" if k is None else f"nDCG@{k}", **kwargs)  # type: ignore[arg-type]


def precision(k: int, **kwargs: object) -> pl.Expr:
    """Precision at ``k``; see :func:`measure`.

    Examples
    --------
    >>> import polars as pl
    >>> df = pl.DataFrame({"q": [1, 1], "score": [2.0, 1.0], "label": [0, 1]})
    >>> df.group_by("q").agg(precision(1)).item(0, 1)
    0.0
    """
    return measure(f"P@{k}", **kwargs)  # type: ignore[arg-type]


def recall(k: int, **kwargs: object) -> pl.Expr:
    """Recall at ``k``; see :func:`measure`.

    Examples
    --------
    >>> import polars as pl
    >>> df = pl.DataFrame({"q": [1, 1], "score": [2.0, 1.0], "label": [1, 1]})
    >>> df.group_by("q").agg(recall(1)).item(0, 1)
    0.5
    """
    return measure(f"R@{k}", **kwargs)  # type: ignore[arg-type]


def average_precision(**kwargs: object) -> pl.Expr:
    """Average precision; see :func:`measure`.

    Examples
    --------
    >>> import polars as pl
    >>> df = pl.DataFrame({"q": [1, 1], "score": [2.0, 1.0], "label": [0, 1]})
    >>> df.group_by("q").agg(average_precision()).item(0, 1)
    0.5
    """
    return measure("AP", **kwargs)  # type: ignore[arg-type]


def reciprocal_rank(**kwargs: object) -> pl.Expr:
    """Reciprocal rank; see :func:`measure`.

    Examples
    --------
    >>> import polars as pl
    >>> df = pl.DataFrame({"q": [1, 1], "score": [2.0, 1.0], "label": [0, 1]})
    >>> df.group_by("q").agg(reciprocal_rank()).item(0, 1)
    0.5
    """
    return measure("RR", **kwargs)  # type: ignore[arg-type]
