"""trec_eval 10.0's preference measures (``-m all_prefs`` with ``-R prefs`` or ``-R qrels_prefs``).

Judgments are preferences: within a judgment subgroup ``(query, jg, jsg)`` a document with a
higher ``rel_level`` is preferred to one with a lower level. A judgment group (JG) with a single
subgroup holds complete preferences between its levels ("equivalence classes", counted with
multiplicity, one per pair of judgment lines); a JG with several subgroups holds the union of
their preferences, closed under transitivity, each ordered document pair counted once.

Every document of a query's preferences gets a *docid rank*: the judged documents the run
retrieved come first, in ranking order (score descending, ties by doc id ascending in byte
order: the rule of trec_eval's ``form_prefs_counts.c``, unlike its other measures), then the
judged documents not retrieved, by doc id. A preference ``A > B`` is

* fulfilled (retrieved) when both were retrieved and A ranks above B;
* fulfilled (implied) when only A was retrieved;
* failed (retrieved) when both were retrieved and B ranks above A;
* failed (implied) when only B was retrieved;
* "not occurring" when neither was retrieved.

Pairs are built with a self-join of the (small) preference data per judgment subgroup and the
ranks come from a join with the ranked run; the transitive closure of multi-subgroup JGs is a
fixed-point iteration of joins over all queries at once (iterations, not queries, are looped).
"""

from __future__ import annotations

import polars as pl

from rankframe._engine.pairs import transitive_closure
from rankframe._errors import InputError
from rankframe._io.columns import D, Q, S, cast_id, text_dtype
from rankframe._io.prefs import JG, JSG, LEVEL

#: trec_eval's labels for ``-m all_prefs`` (``runid`` and ``num_q`` aside), in print order.
PREFS_LABELS: tuple[str, ...] = (
    "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret", "prefs_simp",
    "prefs_pair", "prefs_avgjg", "prefs_avgjg_Rnonrel", "prefs_simp_ret", "prefs_pair_ret",
    "prefs_avgjg_ret", "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp", "prefs_pair_imp",
    "prefs_avgjg_imp",
)

#: Labels that are counts: printed as integers and summed over queries in ``all``; the other
#: labels are averaged over the evaluated queries.
PREFS_COUNTS: frozenset[str] = frozenset(
    {"prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret"}
)

_DID, _NJR, _RANK = "_did", "_njr", "_rank"


def _ratio(num: pl.Expr, den: pl.Expr) -> pl.Expr:
    """``num / den`` as Float64, 0 where ``den`` is 0 (trec_eval leaves such values at 0)."""
    return pl.when(den > 0).then(num.cast(pl.Float64) / den.cast(pl.Float64)).otherwise(0.0)


def _jg_mean(ratio: pl.Expr) -> pl.Expr:
    """Mean of per-JG ratios as trec_eval computes it: 0 unless the sum is a positive number."""
    total = ratio.sum()
    return pl.when(total.is_nan() | (total <= 0)).then(0.0).otherwise(total / pl.len())


def _ranked_docs(
    prefs: pl.LazyFrame, run: pl.LazyFrame, complete: bool, depth: int | None
) -> tuple[pl.LazyFrame, pl.LazyFrame]:
    """The evaluated queries and every judged document's docid rank.

    Returns ``(queries, docs)``: ``queries`` holds ``query_id``; ``docs`` holds ``query_id,
    doc_id, _did`` (0-based docid rank) and ``_njr`` (the number of judged documents retrieved
    in that query).
    """
    judged = prefs.select(Q, D).unique()
    queries = prefs.select(Q).unique()
    if not complete:
        queries = queries.join(run.select(Q).unique(), on=Q, how="semi")
    ranked = (
        run.join(queries, on=Q, how="semi")
        .sort([Q, S, D], descending=[False, True, False])
        .with_columns(pl.int_range(1, pl.len() + 1, dtype=pl.Int64).over(Q).alias(_RANK))
    )
    if depth is not None:
        ranked = ranked.filter(pl.col(_RANK) <= depth)
    docs = (
        judged.join(queries, on=Q, how="semi")
        .join(ranked.select(Q, D, _RANK), on=[Q, D], how="left")
        .sort([Q, _RANK, D], nulls_last=True)
        .with_columns(
            pl.int_range(pl.len(), dtype=pl.Int64).over(Q).alias(_DID),
            pl.col(_RANK).is_not_null().sum().over(Q).cast(pl.Int64).alias(_NJR),
        )
        .select(Q, D, _DID, _NJR)
    )
    return queries, docs



def prefs_per_query(
    prefs: pl.LazyFrame,
    run: pl.LazyFrame,
    *,
    relevance_level: int = 1,
    complete: bool = False,
    depth: int | None = None,
) -> pl.DataFrame:
    """trec_eval 10.0's preference measures (``-m all_prefs``) for each evaluated query.

    Parameters
    ----------
    prefs
        Preferences: ``query_id, jg, jsg, doc_id, rel_level`` (as :func:`read_prefs` and
        :func:`read_qrels_prefs` return them).
    run
        The run: ``query_id, doc_id, score``.
    relevance_level
        Accepted for symmetry with the other measures; trec_eval's preference measures do not
        use ``-l`` (a level of 0 means nonrelevant, above 0 relevant).
    complete
        Evaluate every query of ``prefs``, those without results as an empty ranking (``-c``).
        Otherwise only queries with both preferences and results are evaluated.
    depth
        Keep only the top ``depth`` documents of each ranking (``-M``).

    Returns
    -------
    pl.DataFrame
        One row per evaluated query, sorted by ``query_id`` in byte order: ``query_id`` then
        one Float64 column per label of :data:`PREFS_LABELS`, in that order. The labels in
        :data:`PREFS_COUNTS` are counts (summed in trec_eval's ``all``), the others are
        averaged over queries.

    Raises
    ------
    InputError
        For a document twice in one query of the run, or inconsistent preferences within one
        judgment group.

    Examples
    --------
    >>> prefs = pl.LazyFrame({"query_id": ["q"] * 2, "jg": ["g"] * 2, "jsg": ["s"] * 2,
    ...                       "doc_id": ["a", "b"], "rel_level": [1.0, 0.0]})
    >>> run = pl.LazyFrame({"query_id": ["q"] * 2, "doc_id": ["a", "b"], "score": [1.0, 2.0]})
    >>> prefs_per_query(prefs, run)["prefs_simp"].to_list()
    [0.0]
    """
    del relevance_level  # not used by trec_eval's preference measures
    # ids as text, or as bytes when any is (a file that is not UTF-8): equal bytes match
    p_schema, r_schema = prefs.collect_schema(), run.collect_schema()
    dtypes = [p_schema[c] for c in (Q, JG, JSG, D)] + [r_schema[c] for c in (Q, D)]
    text = text_dtype(*dtypes)
    prefs = prefs.select(
        *(cast_id(c, p_schema[c], text) for c in (Q, JG, JSG, D)), pl.col(LEVEL).cast(pl.Float64),
    )
    run = run.select(*(cast_id(c, r_schema[c], text) for c in (Q, D)), pl.col(S).cast(pl.Float64))
    dup = run.filter(pl.struct(Q, D).is_duplicated()).select(Q, D).head(1).collect()
    if dup.height:
        msg = (
            f"The run retrieves document {dup[D][0]!r} twice for query {dup[Q][0]!r} "
            "(trec_eval stops there). Remove the duplicate line."
        )
        raise InputError(msg)
    queries, docs = _ranked_docs(prefs, run, complete, depth)
    keys = [Q, JG]
    rows = (
        prefs.join(docs, on=[Q, D], how="inner")
        .with_columns(
            (pl.col(JSG).n_unique().over(keys) > 1).alias("_pa"),
            (pl.col(_DID) < pl.col(_NJR)).alias("_ret"),
        )
    )
    ret = pl.col("_ret")

    # ---- equivalence-class JGs (one subgroup): pairs of judgment lines, with multiplicity
    ec = rows.filter(~pl.col("_pa")).with_columns(
        (pl.col(LEVEL) == pl.col(LEVEL).min().over(keys)).alias("_last")
    )
    ec_pairs = (
        ec.join(ec.select(*keys, LEVEL, _DID, "_last"), on=keys, suffix="_b")
        .filter(pl.col(LEVEL) > pl.col(f"{LEVEL}_b"))
        .select(*keys, _NJR, pl.col(_DID).alias("a"), pl.col(f"{_DID}_b").alias("b"),
                pl.col("_last_b"))
        .with_columns(
            (pl.col("a") < pl.col(_NJR)).alias("_ra"), (pl.col("b") < pl.col(_NJR)).alias("_rb")
        )
    )

    # ---- preference-array JGs (several subgroups): distinct pairs, transitively closed
    pa = rows.filter(pl.col("_pa"))
    direct = (
        pa.join(pa.select(*keys, JSG, LEVEL, _DID), on=[*keys, JSG], suffix="_b")
        .filter(pl.col(LEVEL) > pl.col(f"{LEVEL}_b"))
        .select(*keys, pl.col(_DID).alias("a"), pl.col(f"{_DID}_b").alias("b"))
        .collect()
    )
    njr = docs.select(Q, _NJR).unique()
    pa_pairs = transitive_closure(direct).lazy().join(njr, on=Q, how="left")

    pairs = pl.concat(
        [ec_pairs.select(*keys, _NJR, "a", "b"), pa_pairs.select(*keys, _NJR, "a", "b")],
        how="vertical",
    ).with_columns(
        (pl.col("a") < pl.col(_NJR)).alias("_ra"), (pl.col("b") < pl.col(_NJR)).alias("_rb")
    )
    a, b, ra, rb = pl.col("a"), pl.col("b"), pl.col("_ra"), pl.col("_rb")
    counts = pairs.group_by(keys).agg(
        (a.lt(b) & rb).sum().alias("ful_ret"),
        (a.gt(b) & ra).sum().alias("unful_ret"),
        (ra & ~rb).sum().alias("ful_imp"),
        (~ra & rb).sum().alias("unful_imp"),
        (~ra & ~rb).sum().alias("notoccur"),
    )

    # ---- relevant / nonrelevant documents per JG (lines for EC JGs, documents for PA JGs)
    pa_docs = (
        pa.group_by([*keys, D]).agg(
            pl.col(LEVEL).sort_by([JSG, LEVEL, _DID], descending=[False, True, False]).last(),
            pl.col(_DID).first(), ret.first(),
        )
        .sort([*keys, _DID])
        .with_columns(
            (pl.col(LEVEL) == 0).cast(pl.Int64).cum_sum().over(keys).alias("_nth_nonrel"),
            ((pl.col(LEVEL) == 0) & ret).cast(pl.Int64).cum_sum().over(keys).alias("_nth_nonrel_ret"),
        )
    )
    units = pl.concat([
        ec.select(*keys, LEVEL, "_ret", pl.col(LEVEL).le(0).alias("_nonrel")),
        pa_docs.select(*keys, LEVEL, "_ret", pl.col(LEVEL).eq(0).alias("_nonrel")),
    ])
    rel = pl.col(LEVEL) > 0
    jgs = units.group_by(keys).agg(
        rel.sum().alias("R"), (rel & ret).sum().alias("RR"),
        pl.col("_nonrel").sum().alias("N"), (pl.col("_nonrel") & ret).sum().alias("NR"),
    )

    # ---- prefs_avgjg_Rnonrel(_ret) recalculation when nonrelevant docs outnumber relevant ones
    fulfilled = a.lt(b) & ra
    ec_part1 = ec_pairs.filter(~pl.col("_last_b")).group_by(keys).agg(
        fulfilled.sum().alias("p1_ful"), pl.len().alias("p1_n"),
        (fulfilled & rb).sum().alias("p1r_ful"), (ra & rb).sum().alias("p1r_n"),
    )
    last_ec = (
        ec.filter(pl.col("_last"))
        .join(jgs.select(*keys, "R", "RR"), on=keys)
        .with_columns(pl.col(_DID).rank("ordinal").over(keys).alias("_pos"))
        .filter(pl.col("_pos") <= pl.col("R"))
        .select(
            *keys, pl.col(_DID).alias("b"), ((pl.col("_pos") <= pl.col("RR")) & ret).alias("_in_ret")
        )
    )
    ec_part2 = (
        ec.select(*keys, _NJR, pl.col(_DID).alias("a"), pl.col("_ret").alias("_ra"))
        .join(last_ec, on=keys)
        .group_by(keys).agg(
            fulfilled.sum().alias("p2_ful"), pl.len().alias("p2_n"),
            (fulfilled & ra & pl.col("_in_ret")).sum().alias("p2r_ful"),
            (ra & pl.col("_in_ret")).sum().alias("p2r_n"),
        )
    )
    kept = (
        pa_docs.join(jgs.select(*keys, "R"), on=keys)
        .select(
            *keys, _DID,
            ~((pl.col(LEVEL) == 0) & (pl.col("_nth_nonrel") > pl.col("R"))).alias("_k"),
            ~((pl.col(LEVEL) == 0) & (~ret | (pl.col("_nth_nonrel_ret") > pl.col("R"))))
            .alias("_kr"),
        )
    )
    both = pl.col("_k") & pl.col("_k_b")
    both_r = pl.col("_kr") & pl.col("_kr_b") & ra & rb
    pa_recalc = (
        pa_pairs.with_columns(
            (pl.col("a") < pl.col(_NJR)).alias("_ra"), (pl.col("b") < pl.col(_NJR)).alias("_rb")
        )
        .join(kept.rename({_DID: "a"}), on=[*keys, "a"])
        .join(kept.rename({_DID: "b", "_k": "_k_b", "_kr": "_kr_b"}), on=[*keys, "b"])
        .group_by(keys).agg(
            (fulfilled & both).sum().alias("pa_ful"), both.sum().alias("pa_n"),
            (a.lt(b) & both_r).sum().alias("par_ful"), both_r.sum().alias("par_n"),
        )
    )

    # ---- per-JG values
    per_jg = jgs
    for part in (counts, ec_part1, ec_part2, pa_recalc):
        per_jg = per_jg.join(part, on=keys, how="left")
    per_jg = per_jg.with_columns(pl.exclude(keys).fill_null(0).cast(pl.Int64))
    c = pl.col
    ful_all = c("ful_ret") + c("ful_imp")
    poss_ret = c("ful_ret") + c("unful_ret")
    poss_imp = poss_ret + c("ful_imp") + c("unful_imp")
    poss_all = poss_imp + c("notoccur")
    excess, excess_ret = c("R") - c("N"), c("RR") - c("NR")

    def div(num: pl.Expr, den: pl.Expr) -> pl.Expr:  # 0/0 is NaN, as in C
        return num.cast(pl.Float64) / den.cast(pl.Float64)

    per_jg = per_jg.select(
        *keys,
        poss_all.alias("poss"), ful_all.alias("ful"), c("ful_ret"), poss_ret.alias("poss_ret"),
        (ful_all - c("ful_ret")).alias("ful_imp"), (poss_imp - poss_ret).alias("poss_imp"),
        _ratio(ful_all, poss_all).alias("avgjg"),
        _ratio(c("ful_ret"), poss_ret).alias("avgjg_ret"),
        _ratio(ful_all, poss_imp).alias("avgjg_imp"),
        pl.when(excess >= 0)
        .then(div(ful_all + c("RR") * excess, poss_all + c("R") * excess))
        .otherwise(div(c("p1_ful") + c("p2_ful") + c("pa_ful"), c("p1_n") + c("p2_n") + c("pa_n")))
        .alias("rnonrel"),
        pl.when(excess_ret >= 0)
        .then(div(c("ful_ret") + c("RR") * excess_ret, poss_ret + c("R") * excess_ret))
        .otherwise(div(
            c("p1r_ful") + c("p2r_ful") + c("par_ful"), c("p1r_n") + c("p2r_n") + c("par_n")
        ))
        .alias("rnonrel_ret"),
    )
    per_q_jg = per_jg.group_by(Q).agg(
        c("poss").sum(), c("ful").sum(), c("ful_ret").sum(), c("poss_ret").sum(),
        c("ful_imp").sum(), c("poss_imp").sum(),
        _jg_mean(c("avgjg")).alias("prefs_avgjg"),
        _jg_mean(c("avgjg_ret")).alias("prefs_avgjg_ret"),
        _jg_mean(c("avgjg_imp")).alias("prefs_avgjg_imp"),
        _jg_mean(c("rnonrel")).alias("prefs_avgjg_Rnonrel"),
        _jg_mean(c("rnonrel_ret")).alias("prefs_avgjg_Rnonrel_ret"),
    )

    # ---- prefs_pair*: each document pair scored by the share of JGs that order it rightly
    lo, hi = pl.min_horizontal("a", "b"), pl.max_horizontal("a", "b")
    doc_pairs = (
        pairs.group_by(Q, lo.alias("lo"), hi.alias("hi")).agg(
            (c("a").lt(c("b")).sum() / pl.len()).alias("_share"), c(_NJR).first()
        )
        .with_columns((c("lo") < c(_NJR)).alias("_rlo"), (c("hi") < c(_NJR)).alias("_rhi"))
    )
    share = c("_share")
    per_q_pair = doc_pairs.group_by(Q).agg(
        _ratio(share.filter(c("_rlo")).sum(), pl.len()).alias("prefs_pair"),
        _ratio(share.filter(c("_rhi")).sum(), c("_rhi").sum()).alias("prefs_pair_ret"),
        _ratio(share.filter(c("_rlo")).sum(), c("_rlo").sum()).alias("prefs_pair_imp"),
    )

    out = (
        queries.join(per_q_jg, on=Q, how="left").join(per_q_pair, on=Q, how="left")
        .with_columns(
            c("poss").alias("prefs_num_prefs_poss"), c("ful").alias("prefs_num_prefs_ful"),
            c("ful_ret").alias("prefs_num_prefs_ful_ret"),
            _ratio(c("ful"), c("poss")).alias("prefs_simp"),
            _ratio(c("ful_ret"), c("poss_ret")).alias("prefs_simp_ret"),
            _ratio(c("ful"), c("poss_ret") + c("poss_imp")).alias("prefs_simp_imp"),
        )
        .select(Q, *[c(name).cast(pl.Float64).fill_null(0.0) for name in PREFS_LABELS])
        .sort(Q)
    )
    return out.collect()


def prefs_summary(per_query: pl.DataFrame) -> pl.DataFrame:
    """trec_eval's ``all`` values of :func:`prefs_per_query`: counts summed, the rest averaged.

    Parameters
    ----------
    per_query
        The frame :func:`prefs_per_query` returns.

    Returns
    -------
    pl.DataFrame
        One row, one Float64 column per label of :data:`PREFS_LABELS`.
    """
    return per_query.select(
        pl.col(name).sum() if name in PREFS_COUNTS else pl.col(name).mean()
        for name in PREFS_LABELS
    )
