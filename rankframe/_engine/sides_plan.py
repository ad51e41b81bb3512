"""The run-only plan: measures that read the top of each ranking and the side inputs, no judgments.

Coverage, novelty, diversity and popularity measures (:attr:`Measure.NEEDS_JUDGMENTS` false)
read each query's top ``k`` documents and, per document, columns of the side inputs (the
training history, the catalogue, a reference run: :class:`rankframe._io.sides.Sides`):

1. rank the run once (trec_eval's order) and keep the rows of rank <= the largest cutoff;
2. join to those rows only the side columns the measures name (:attr:`Measure.SIDE_COLUMNS`):
   per (user, item) whether the history holds it, per item its users and interactions in the
   history, its categories, features and popularity in the catalogue, per (user, item) its rank
   in the reference run;
3. one ``group_by`` per (group, query) evaluates the measures (for population measures, their
   per-query state, reduced per group by :func:`population_values`).

The result joins the judgment plan's per-query frame on (group, query); without judgments it
is the per-query frame itself (every query of the run is evaluated).
"""

from __future__ import annotations

import polars as pl

from rankframe._engine.hits import ranked_run
from rankframe._engine.options import (
    BAD_QRELS,
    BAD_RUN,
    DUP,
    HAS_QRELS,
    HAS_RUN,
    N_RET,
    RANK,
    D,
    Options,
    Q,
    S,
)
from rankframe._engine.rank import rank_expr, tie_key
from rankframe._errors import InputError, MeasureError
from rankframe._io.sides import (
    FEATURES,
    POPULARITY,
    USER_HASH_SEED,
    WEIGHT,
    Sides,
    exact_user_hashes,
    history_constants,
)
from rankframe._measures import Ctx, Measure, PopulationCtx

#: What a user passes for each side input.
_PASS = {
    "interactions": "interactions=... (the training history: user, item)",
    "items": "items=... (the catalogue: item and its columns)",
    "reference": "reference=... (another run)",
}


#: The side inputs' constants a measure may name in its side columns (:class:`PopulationCtx`).
CONSTANTS = frozenset({"n_users", "n_items", "n_interactions", "n_catalogue"})

#: A column of the run-only plan's rows: the query has recommendations (see :func:`sides_plan`).
SIDE_ROW = "_side_row"


def run_only(measures: list[Measure]) -> list[Measure]:
    """The measures of the run-only plan (they read no judgments)."""
    return [m for m in measures if not m.NEEDS_JUDGMENTS]


def check_sides(measures: list[Measure], sides: Sides | None) -> None:
    """Raise an InputError naming each measure whose side inputs were not given."""
    given = set() if sides is None else sides.given()
    for m in measures:
        missing = sorted(m.side_inputs(given) - given)
        if missing:
            msg = f"{m!r} needs {' and '.join(_PASS[r] for r in missing)}."
            raise InputError(msg)
        if "category" in m.SIDE_COLUMNS and not sides.categories:  # type: ignore[union-attr]
            msg = (
                f"{m!r} needs category columns in the catalogue ({sides.where['items']}): "  # type: ignore[union-attr]
                "every column of items=... beside the item id, 'features' and 'popularity' is one."
            )
            raise InputError(msg)
        if "features" in m.SIDE_COLUMNS and not sides.features:  # type: ignore[union-attr]
            msg = (
                f"{m!r} needs item feature vectors: a 'features' column (a list of floats per "
                f"item) in the catalogue ({sides.where['items']})."  # type: ignore[union-attr]
            )
            raise InputError(msg)


def refuse_average_ties(measures: list[Measure]) -> None:
    """Raise a MeasureError naming the run-only measures whose value ``ties="average"`` leaves undefined.

    They read each user's top ``k`` items, which items tied across the cutoff leave open (the
    trec_eval order would decide, silently). Order-free ones are accepted: a population
    measure without a cutoff (the whole list) and those declaring
    :attr:`Measure.SUPPORTS_AVERAGE_TIES` (``UserCoverage``: it counts the items).
    """
    unsupported = [
        repr(m) for m in measures
        if not (m.SUPPORTS_AVERAGE_TIES or (m.KIND == "population" and getattr(m, "cutoff", None) is None))
    ]
    if unsupported:
        msg = (
            f"The 'average' tie policy is not defined for {', '.join(unsupported)}: they read "
            "each user's top k items, which tied scores at the cutoff leave undefined. Use "
            "ties='trec_eval' (default) or ties='input' for them (the population measures "
            "also without a cutoff)."
        )
        raise MeasureError(msg)


def population_ctx(sides: Sides | None, measures: list[Measure]) -> PopulationCtx:
    """The side inputs' constants that ``measures`` read (one scan of the history, if any)."""
    if sides is None:
        return PopulationCtx()
    columns = set().union(*(m.SIDE_COLUMNS for m in measures))
    needed = columns & CONSTANTS
    if "n_catalogue" in needed and sides.items is None:
        needed.add("n_items")  # the history's items are the catalogue
    if "item_users" in columns:
        needed |= {"n_users", "n_user_hashes"}  # (distinct users per item by their hashes)
    c: dict = {}
    if sides.interactions is not None:
        c = history_constants(sides.interactions, needed)
    n_catalogue = sides.constants.get("n_catalogue", c.get("n_items"))
    return PopulationCtx(
        c.get("n_users"), c.get("n_items"), n_catalogue, c.get("n_interactions"),
        exact_user_hashes=exact_user_hashes(c) and sides.constants.get("user_dtype") is not None,
    )


def sides_plan(
    run: pl.LazyFrame,
    sides: Sides | None,
    measures: list[Measure],
    keys: list[str],
    opts: Options,
    constants: PopulationCtx,
    *,
    alone: bool,
    ranked: pl.LazyFrame | None = None,
    checks: bool = False,
) -> pl.LazyFrame:
    """Per (group, query): the run-only ``measures`` (states for population measures).

    ``alone``: no judgment plan beside it; the flags ``HAS_RUN``, ``HAS_QRELS`` (every query of
    the run is evaluated) and ``N_RET`` are added. ``ranked``: the run ranked by
    :func:`rankframe._engine.hits.ranked_run` (shared with the judgment plan; else ranked here).
    ``checks`` (alone): the ranked rows carry the run's check flags (``BAD_RUN``, ``DUP``);
    the result has ``BAD_RUN``, ``BAD_QRELS`` (false: no judgments) and ``DUP`` per query, and
    bad rows below the cutoff are kept so that their flag reaches the ``group_by``.
    """
    group = [*keys, Q]
    score_dtype = pl.Float32 if opts.score_dtype == "float32" else pl.Float64
    if ranked is None:
        ranked = ranked_run(run, keys, opts)
    tops = [m.top for m in measures]
    cut = None if any(t is None for t in tops) else max(tops)  # type: ignore[type-var]
    keep = None if cut is None else pl.col(RANK) <= cut
    if keep is not None and checks:
        keep = keep | pl.col(BAD_RUN)
    rows = ranked if keep is None else ranked.filter(keep)
    needed = set().union(*(m.SIDE_COLUMNS for m in measures))
    columns: dict[str, pl.Expr] = {"doc": pl.col(D)}
    history = None if sides is None else sides.interactions
    if needed & {"seen"}:
        assert history is not None
        # the history's pairs among the top rows: a semi join hashes the top rows (not the
        # history, often larger), the few pairs found are joined back
        shown = rows.select(Q, D)
        seen = history.select(Q, D).join(shown, on=[Q, D], how="semi", nulls_equal=True).unique()
        seen = seen.with_columns(pl.lit(True).alias("_seen"))
        rows = rows.join(seen, on=[Q, D], how="left", nulls_equal=True)
        columns["seen"] = pl.col("_seen").fill_null(False)
    in_catalogue = "in_catalogue" in needed and sides is not None
    if in_catalogue and sides.items is not None:  # type: ignore[union-attr]
        needed = needed - {"in_catalogue"}
        catalogue = sides.items.select(D).with_columns(pl.lit(True).alias("_in_catalogue"))  # type: ignore[union-attr]
        rows = rows.join(catalogue, on=D, how="left", nulls_equal=True)
        columns["in_catalogue"] = pl.col("_in_catalogue").fill_null(False)
    elif in_catalogue:  # the history's items are the catalogue
        needed = needed | {"item_interactions"}
    if needed & {"item_users", "item_interactions", "item_head", "item_known"}:
        assert history is not None
        counts = sides.item_counts  # type: ignore[union-attr]
        if counts is None:
            counts = item_counts(history, needed, constants, sides.constants.get("user_dtype"))  # type: ignore[union-attr]
        if "item_head" in needed:
            columns["item_head"] = pl.col("_item_place")
        rows = rows.join(counts, on=D, how="left", nulls_equal=True)
        if "item_users" in needed:
            columns["item_users"] = pl.col("_item_users").fill_null(0)
        columns["item_interactions"] = pl.col("_item_interactions").fill_null(0.0)
        columns["item_known"] = pl.col("_item_rows").is_not_null()
        if in_catalogue and "in_catalogue" not in columns:
            columns["in_catalogue"] = columns["item_known"]
    if needed & {"category", "features", "popularity"}:
        assert sides is not None
        assert sides.items is not None
        item_cols: list[pl.Expr] = []
        catalogue = sides.items
        if "category" in needed:  # the categories of every column, as one list per item
            value = pl.concat_list(pl.col(c).cast(pl.String) for c in sides.categories)
            item_cols.append(value.alias("_category"))
            columns["category"] = pl.col("_category")
        if "features" in needed:  # the unit vector's components, one column each
            vec = pl.col(FEATURES)
            # over the largest |component| first (> 0: the catalogue has no zero vector), so
            # that the squares neither overflow (1e200) nor underflow (1e-200)
            scaled = pl.col("_scaled")
            norm = scaled.list.eval(pl.element() * pl.element()).list.sum().sqrt()
            catalogue = catalogue.with_columns(
                (vec / vec.list.eval(pl.element().abs()).list.max()).alias("_scaled")
            ).with_columns((scaled / norm).alias("_unit"))
            for j in range(sides.features):
                item_cols.append(pl.col("_unit").list.get(j).alias(f"_unit_{j}"))
                columns[f"unit_{j}"] = pl.col(f"_unit_{j}")
        if "popularity" in needed:
            item_cols.append(pl.col(POPULARITY).alias("_popularity"))
            columns["popularity"] = pl.col("_popularity")
        rows = rows.join(catalogue.select(D, *item_cols), on=D, how="left", nulls_equal=True)
    if "user_known" in needed:
        users = sides.interactions.select(Q).unique().with_columns(pl.lit(True).alias("_user_known"))  # type: ignore[union-attr]
        rows = rows.join(users, on=Q, how="left", nulls_equal=True)
        columns["user_known"] = pl.col("_user_known").fill_null(False)
    if "history_similarity" in needed:
        rows = rows.join(_history_similarity(rows, sides), on=[Q, D], how="left", nulls_equal=True)
        columns["history_similarity"] = pl.col("_history_similarity")
    if needed & {"ref_rank", "ref_count"}:
        assert sides is not None
        assert sides.reference is not None
        ref = sides.reference.select(Q, D, pl.col(S).cast(score_dtype))
        ref = ref.with_columns(rank_expr([Q], ref.collect_schema()[D], "trec_eval").alias("_ref_rank"))
        if "ref_count" in needed:
            counts = ref.group_by(Q).agg(pl.len().alias("_ref_count"))
            rows = rows.join(counts, on=Q, how="left", nulls_equal=True)
            columns["ref_count"] = pl.col("_ref_count").fill_null(0)
        if cut is not None:
            ref = ref.filter(pl.col("_ref_rank") <= cut)
        rows = rows.join(ref.select(Q, D, "_ref_rank"), on=[Q, D], how="left", nulls_equal=True)
        columns["ref_rank"] = pl.col("_ref_rank")
    for name in sorted(CONSTANTS):
        value = getattr(constants, name)
        if value is not None:
            columns[name] = pl.lit(value, dtype=pl.Float64)
    ctx = Ctx(rank=pl.col(RANK), rel=pl.lit(None, dtype=pl.Int64), sides=columns)
    flags = [pl.lit(True).alias(SIDE_ROW)]
    if alone:
        flags = [
            pl.lit(True).alias(HAS_RUN), pl.lit(True).alias(HAS_QRELS),
            pl.col(N_RET).first().cast(pl.UInt32).alias(N_RET),
        ]
        if checks:
            flags += [
                pl.col(BAD_RUN).any().alias(BAD_RUN), pl.lit(False).alias(BAD_QRELS),
                pl.col(DUP).any().alias(DUP),
            ]
    return rows.group_by(group).agg(*flags, *(m.aggregation(ctx) for m in measures))


def item_counts(
    history: pl.LazyFrame, needed: set[str], constants: PopulationCtx, user_dtype: pl.DataType | None
) -> pl.LazyFrame:
    """Per item of the history, its counts.

    ``_item_interactions`` (the weights' sum), ``_item_rows``, and where ``needed`` names them
    ``_item_users`` (distinct users) and ``_item_place`` (1 for the most interacted item; ties:
    item id descending, in byte order).
    """
    # the interactions (a sum: cheap), and only where a measure reads it the distinct users (a
    # distinct count per item: the costly part)
    counts_by = [pl.col(WEIGHT).sum().alias("_item_interactions"), pl.len().alias("_item_rows")]
    if "item_users" in needed:
        users = pl.col(Q)
        if constants.exact_user_hashes and user_dtype == history.collect_schema()[Q]:
            users = users.hash(seed=USER_HASH_SEED)  # no two users share a hash: exact
        counts_by.append(users.n_unique().alias("_item_users"))
    counts = history.group_by(D).agg(counts_by)
    if "item_head" in needed:
        doc_key = tie_key(pl.col(D), history.collect_schema()[D])
        place = pl.struct(pl.col("_item_interactions"), doc_key).rank("ordinal", descending=True)
        counts = counts.with_columns(place.alias("_item_place"))
    return counts


def _history_similarity(rows: pl.LazyFrame, sides: Sides | None) -> pl.LazyFrame:
    """Per recommended (user, item): the item's mean co-occurrence similarity to the user's history.

    Over the user's history rows t (repeats count): ``sim(i, t) = C(i, t) / sqrt(n_i n_t)``
    with ``n_i`` the item's rows in the history and ``C(i, j) = sum_v n_v(i) n_v(j)`` the pairs
    of rows of one user holding both (Microsoft Recommenders' co-occurrence similarity); 0 for
    items that never co-occur. Null for a user without history. Cost: the history's rows of
    the users who hold a recommended item, times their histories (a self-join by user).
    """
    assert sides is not None
    assert sides.interactions is not None
    per_user = sides.interactions.group_by(Q, D).agg(pl.len().cast(pl.Float64).alias("_n"))
    per_item = per_user.group_by(D).agg(pl.col("_n").sum().alias("_n_item"))
    shown = rows.select(Q, D).unique()
    # C(i, j) for the recommended items i: the users holding i, joined to their histories
    holders = per_user.join(shown.select(D).unique(), on=D, how="semi")
    pairs = holders.join(per_user.rename({D: "_j", "_n": "_n_j"}), on=Q, how="inner").group_by(D, "_j").agg(
        (pl.col("_n") * pl.col("_n_j")).sum().alias("_c")
    )
    # each recommended (u, i) with the user's history items j (n_u(j) rows each)
    history = per_user.rename({D: "_j", "_n": "_n_uj"})
    sims = (
        shown.join(history, on=Q, how="inner")
        .join(pairs, on=[D, "_j"], how="left")
        .join(per_item, on=D, how="left")
        .join(per_item.rename({D: "_j", "_n_item": "_n_item_j"}), on="_j", how="left")
    )
    sim = (pl.col("_c").fill_null(0.0) / (pl.col("_n_item") * pl.col("_n_item_j")).sqrt()).fill_nan(0.0)
    sim = pl.when(pl.col("_c").is_null()).then(0.0).otherwise(sim)
    return sims.group_by(Q, D).agg(
        ((sim * pl.col("_n_uj")).sum() / pl.col("_n_uj").sum()).alias("_history_similarity")
    )


def population_values(
    wide: pl.DataFrame, measures: list[Measure], keys: list[str], ctx: PopulationCtx
) -> pl.DataFrame:
    """Per group of ``keys``: each population measure's value from its per-query states."""
    exprs = [m.population(pl.col(repr(m)), ctx).cast(pl.Float64).alias(repr(m)) for m in measures]
    if keys:
        return wide.group_by(keys, maintain_order=True).agg(exprs)
    return wide.select(exprs)


def no_judgments_needed(measures: list[Measure]) -> bool:
    """Whether every measure reads the run and side inputs only (qrels may be omitted)."""
    return bool(measures) and all(not m.NEEDS_JUDGMENTS for m in measures)


def refuse_qrels_free(measures: list[Measure]) -> None:
    """The InputError for ``qrels=None`` with measures that read judgments."""
    needs = [repr(m) for m in measures if m.NEEDS_JUDGMENTS]
    msg = (
        f"{', '.join(needs)} read{'s' if len(needs) == 1 else ''} judgments: pass qrels (or a "
        "judged frame). Only measures that read the run and side inputs alone (Coverage, "
        "Novelty, diversity, popularity...) are evaluated without qrels."
    )
    raise InputError(msg)
