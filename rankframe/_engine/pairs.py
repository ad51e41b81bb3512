"""Preference pairs: the binary preferences ``a > b`` that a preferences table states.

The target of the measures defined on a set of pairs (``evaluate(prefs=...)``) and the
transitive closure that trec_eval's preference measures share.
"""

from __future__ import annotations

import polars as pl

from rankframe._errors import InputError
from rankframe._io.columns import D, Q
from rankframe._io.prefs import JG, JSG, LEVEL


def transitive_closure(edges: pl.DataFrame) -> pl.DataFrame:
    """Transitive closure of preference edges ``(query_id, jg, a, b)``, without self-pairs.

    Raises
    ------
    InputError
        When a judgment group prefers two documents to each other (trec_eval aborts there).
    """
    keys = [Q, JG]
    edges = edges.filter(pl.col("a") != pl.col("b")).unique()
    while True:
        longer = edges.join(edges, left_on=[*keys, "b"], right_on=[*keys, "a"]).select(
            *keys, "a", pl.col("b_right").alias("b")
        )
        grown = pl.concat([edges, longer]).unique()
        if grown.height == edges.height:
            break
        edges = grown
    cycles = edges.filter(pl.col("a") == pl.col("b"))
    conflict = edges.join(edges, left_on=[*keys, "a", "b"], right_on=[*keys, "b", "a"], how="semi")
    if cycles.height or conflict.height:
        row = (cycles if cycles.height else conflict).row(0, named=True)
        msg = (
            f"The preferences of query {row[Q]!r}, judgment group {row[JG]!r} are inconsistent: "
            "two documents are each preferred to the other (directly or through other "
            "documents). Put conflicting judgments in different judgment groups."
        )
        raise InputError(msg)
    return edges.filter(pl.col("a") != pl.col("b"))


def preference_pairs(prefs: pl.LazyFrame) -> pl.LazyFrame:
    """The set of binary preferences ``a > b`` that a preferences table states, per query.

    Within a judgment group with a single subgroup every document is preferred to those with a
    lower ``rel_level`` (already transitive); a group with several subgroups holds the union of
    its subgroups' preferences, closed under transitivity (as in trec_eval). The result is the
    union over the judgment groups of a query, each ordered pair once: a pair stated one way in
    one group and the other way in another is kept both ways.

    Parameters
    ----------
    prefs
        ``query_id, jg, jsg, doc_id, rel_level`` (as :func:`read_prefs` returns them).

    Returns
    -------
    pl.LazyFrame
        ``query_id, _a, _b``: document ``_a`` is preferred to ``_b``. The transitive closure of
        multi-subgroup groups is computed eagerly (a few joins over the preferences only).

    Raises
    ------
    InputError
        When a judgment group prefers two documents to each other.

    Examples
    --------
    >>> prefs = pl.LazyFrame({"query_id": ["q"] * 3, "jg": ["g"] * 3, "jsg": ["s"] * 3,
    ...                       "doc_id": ["a", "b", "c"], "rel_level": [2.0, 1.0, 1.0]})
    >>> preference_pairs(prefs).sort("_b").collect().rows()
    [('q', 'a', 'b'), ('q', 'a', 'c')]
    """
    keys = [Q, JG]
    rows = prefs.select(Q, JG, JSG, D, LEVEL).with_columns(
        (pl.col(JSG).n_unique().over(keys) > 1).alias("_pa")
    )
    direct = (
        rows.join(rows.select(*keys, JSG, LEVEL, pl.col(D).alias("_b")), on=[*keys, JSG])
        .filter(pl.col(LEVEL) > pl.col(f"{LEVEL}_right"), pl.col(D) != pl.col("_b"))
        .select(*keys, "_pa", pl.col(D).alias("_a"), "_b")
    )
    single = direct.filter(~pl.col("_pa")).select(Q, "_a", "_b")
    multi = direct.filter(pl.col("_pa")).select(*keys, pl.col("_a").alias("a"), pl.col("_b").alias("b"))
    multi_df = multi.collect()
    parts = [single]
    if multi_df.height:
        closed = transitive_closure(multi_df).select(Q, pl.col("a").alias("_a"), pl.col("b").alias("_b"))
        parts.append(closed.lazy())
    return pl.concat(parts, how="vertical_relaxed").unique()
