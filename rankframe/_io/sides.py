"""The side inputs of recommender evaluation: training interactions, the item catalogue, a reference run.

Recommendation data is the evaluation's frame under other names (user = query, item =
document, DESIGN.md §8); its side inputs are tables read by the same readers as qrels and runs
(paths, frames, object storage, Delta, Iceberg, ecosystem objects), all carried in one
:class:`Sides` from ``evaluate`` to the planner:

- ``interactions``: the training history, ``query_id, doc_id`` and an optional ``weight``
  (item popularity and each user's seen items come from it);
- ``items``: the catalogue, ``doc_id`` and optional ``features`` (a list or array of floats),
  ``popularity`` (a number); every other column is a category column;
- ``reference``: another run (``query_id, doc_id, score``), for unexpectedness.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from rankframe._errors import InputError
from rankframe._io.columns import LINE, D, Q, Source, describe, own_columns
from rankframe._io.readers import _read

#: Optional columns of the side inputs and the names they are found under.
WEIGHT, FEATURES, POPULARITY = "weight", "features", "popularity"
_WEIGHT_NAMES = ("weight", "rating", "count", "value", "clicks", "relevance")
_FEATURE_NAMES = ("features", "feature_vector", "embedding", "vector")

ROLES = ("interactions", "items", "reference")
#: The seed of the users' 64-bit hashes (see :func:`exact_user_hashes`).
USER_HASH_SEED = 0x5EED0


def exact_user_hashes(constants: Mapping[str, Any]) -> bool:
    """Whether the history's users' 64-bit hashes are one per user (:func:`history_constants`).

    Then counting distinct hashes counts users exactly, about twice as fast on text ids.
    """
    return constants.get("n_user_hashes") is not None and constants["n_user_hashes"] == constants["n_users"]


def history_constants(history: pl.LazyFrame, names: set[str]) -> dict[str, Any]:
    """The constants of the training history that ``names`` asks for, in one scan.

    ``n_users``, ``n_items`` (distinct), ``n_interactions`` (the weights' sum: rows when none
    was given) and ``n_user_hashes`` (distinct 64-bit hashes of the users, see
    :func:`exact_user_hashes`).
    """
    exprs = {
        "n_users": pl.col(Q).n_unique(), "n_items": pl.col(D).n_unique(),
        "n_interactions": pl.col(WEIGHT).sum(),
        "n_user_hashes": pl.col(Q).hash(seed=USER_HASH_SEED).n_unique(),
    }
    wanted = [n for n in exprs if n in names]
    if not wanted:
        return {}
    return history.select(exprs[n].alias(n) for n in wanted).collect().row(0, named=True)


@dataclass(frozen=True)
class Sides:
    """The side inputs, read and checked, as LazyFrames with canonical column names.

    ``interactions``: ``query_id, doc_id, weight`` (Float64; 1.0 when not given);
    ``items``: ``doc_id``, the category columns (:attr:`categories`), ``features`` (a list of
    Float64) and ``popularity`` (Float64) when the catalogue has them; ``reference``:
    ``query_id, doc_id, score``. ``where``: role -> the source as messages name it.
    """

    interactions: pl.LazyFrame | None = None
    items: pl.LazyFrame | None = None
    reference: pl.LazyFrame | None = None
    categories: tuple[str, ...] = ()
    #: The length of the catalogue's feature vectors (0: no features).
    features: int = 0
    has_popularity: bool = False
    where: Mapping[str, str] = field(default_factory=dict)
    #: Read in the checks' scans: ``n_catalogue`` (the catalogue's rows), ``user_dtype`` (the
    #: history's user ids as read).
    constants: Mapping[str, Any] = field(default_factory=dict)
    #: The whole history's per-item counts, computed elsewhere, when ``interactions`` holds only
    #: some users' rows (a Spark task's): ``doc_id, _item_interactions, _item_rows`` and, where
    #: the measures read them, ``_item_users`` and ``_item_place`` (see
    #: :func:`rankframe._engine.sides_plan.item_counts`). None: counted from ``interactions``.
    item_counts: pl.LazyFrame | None = None

    def given(self) -> set[str]:
        """The roles given."""
        return {r for r in ROLES if getattr(self, r) is not None}


def read_sides(
    interactions: Source | None = None,
    items: Source | None = None,
    reference: Source | None = None,
    *,
    storage_options: Mapping[str, str] | None = None,
) -> Sides:
    """Read the side inputs (each optional) and check them; see :class:`Sides`.

    Column names are mapped as for qrels and runs (``user_id``/``item_id``, ``qid``/``docno``
    ... are recognised). Raises :class:`rankframe.InputError` naming the input, the column and
    the row for a missing column, a null id, a catalogue item listed twice, a null category,
    feature vectors of unequal length or with NaN/inf, a negative or non-finite weight or
    popularity, and a (user, item) listed twice in the reference run.

    Examples
    --------
    >>> import polars as pl
    >>> sides = read_sides(
    ...     interactions=pl.DataFrame({"user_id": [1, 1, 2], "item_id": [7, 8, 7]}),
    ...     items=pl.DataFrame({"item_id": [7, 8], "genre": ["a", "b"]}),
    ... )
    >>> sides.interactions.collect().columns, sides.categories
    (['query_id', 'doc_id', 'weight'], ('genre',))
    """
    where: dict[str, str] = {}
    constants: dict[str, Any] = {}
    inter = cat = ref = None
    categories: tuple[str, ...] = ()
    features, has_popularity = 0, False
    if interactions is not None:
        where["interactions"] = describe(interactions, "interactions")
        lf = _read(interactions, "interactions", (Q, D), None, storage_options)
        inter, stats = _interactions(lf, where["interactions"])
        constants.update(stats)
    if items is not None:
        where["items"] = describe(items, "items")
        lf = _read(items, "items", (D,), None, storage_options)
        cat, categories, features, has_popularity, found = _catalogue(lf, where["items"])
        constants["n_catalogue"] = found["n_catalogue"]
        constants["one_per_item"] = tuple(  # category columns holding a distinct value per item
            c for j, c in enumerate(categories) if found[f"_distinct_{j}"] == found["n_catalogue"]
        )
    if reference is not None:
        where["reference"] = describe(reference, "reference run")
        ref = _read(reference, "reference", (Q, D, "score"), None, storage_options)
        ref = _reference(ref, where["reference"])
    return Sides(inter, cat, ref, categories, features, has_popularity, where, constants)


def _names(lf: pl.LazyFrame, role: str, where: str) -> list[str]:
    try:
        return lf.collect_schema().names()
    except (pl.exceptions.PolarsError, OSError) as exc:
        raise InputError.unreadable(role, where, exc) from exc


def _find(names: list[str], candidates: tuple[str, ...]) -> str | None:
    lowered = {n.lower(): n for n in names}
    return next((lowered[c] for c in candidates if c in lowered), None)


def _bad_row(lf: pl.LazyFrame, condition: pl.Expr) -> dict[str, Any] | None:
    """The first row (with its 1-based position) where ``condition`` holds, else None."""
    rows = _first_two(lf, condition)
    return rows[0] if rows else None


def _at(row: dict[str, Any]) -> str:
    line = row.get(LINE)
    return f"line {line}" if line is not None else f"row {row['_row']}"


def _ids_present(lf: pl.LazyFrame, cols: tuple[str, ...], role: str, where: str) -> None:
    for col in cols:
        row = _bad_row(lf, pl.col(col).is_null())
        if row is not None:
            msg = (
                f"{where}: {role} {_at(row)} has a null {col!r}. Every {role} row needs one; "
                f"drop such rows first (e.g. df.drop_nulls({col!r}))."
            )
            raise InputError(msg)


def _finite_non_negative(lf: pl.LazyFrame, col: str, role: str, where: str) -> None:
    value = pl.col(col).cast(pl.Float64)
    row = _bad_row(lf, value.is_null() | ~value.is_finite() | (value < 0))
    if row is not None:
        msg = (
            f"{where}: {role} {_at(row)} has the {col} {row[col]!r}; a {col} must be a finite "
            "number >= 0. Fix or drop that row."
        )
        raise InputError(msg)


def _screen(lf: pl.LazyFrame, conditions: list[pl.Expr], stats: dict[str, pl.Expr]) -> tuple[bool, dict]:
    """One scan: whether any row meets any of ``conditions`` (a bad row), and ``stats``."""
    row = lf.select(
        pl.any_horizontal(*(c.fill_null(True).any() for c in conditions)).alias("_bad")
        if conditions else pl.lit(False).alias("_bad"),
        *(e.alias(n) for n, e in stats.items()),
    ).collect().row(0, named=True)
    return bool(row.pop("_bad")), row


def weight_column(names: list[str]) -> str | None:
    """The interactions' weight column among ``names`` (canonical ids already), or None."""
    return _find([n for n in names if n not in (Q, D)], _WEIGHT_NAMES)


def _interactions(lf: pl.LazyFrame, where: str) -> tuple[pl.LazyFrame, dict]:
    names = _names(lf, "interactions", where)
    weight = weight_column(names)
    if weight is not None:
        if not lf.collect_schema()[weight].is_numeric():
            msg = (
                f"{where}: the interactions' weight column {weight!r} is not numeric "
                f"({lf.collect_schema()[weight]}). Cast it, or drop it (every row then weighs 1)."
            )
            raise InputError(msg)
        w = pl.col(weight).cast(pl.Float64)
    else:
        w = pl.lit(1.0)
    conditions = [pl.col(Q).is_null(), pl.col(D).is_null()]
    if weight is not None:
        conditions.append(w.is_null() | ~w.is_finite() | (w < 0))
    # the checks and the constants of the population measures in one scan; the exact error
    # (first bad row) only when a check fails
    bad, stats = _screen(lf, conditions, {})
    stats["user_dtype"] = lf.collect_schema()[Q]
    stats["weight_column"] = weight  # (its name as given: 'rating' is read as a weight too)
    if bad:
        _ids_present(lf, (Q, D), "interactions", where)
        if weight is not None:
            _finite_non_negative(lf, weight, "interactions", where)
    return lf.select(Q, D, w.alias(WEIGHT)), stats


def _catalogue(lf: pl.LazyFrame, where: str) -> tuple[pl.LazyFrame, tuple[str, ...], int, bool, dict]:
    schema = lf.collect_schema()
    names = own_columns(schema.names())
    features = _find(names, _FEATURE_NAMES)
    popularity = _find(names, (POPULARITY,))
    categories = tuple(n for n in names if n not in (D, features, popularity))
    vec = None
    if features is not None and _numeric_list(schema[features]):
        vec = pl.col(features).cast(pl.List(pl.Float64))
    conditions = [pl.col(D).is_null(), pl.col(D).is_duplicated(), *(pl.col(c).is_null() for c in categories)]
    stats = {"n_catalogue": pl.len()}
    stats.update({f"_distinct_{j}": pl.col(c).n_unique() for j, c in enumerate(categories)})
    if vec is not None:
        conditions += [
            vec.list.len() != vec.list.len().first(),
            ~vec.list.eval(pl.element().is_finite()).list.all(),
            vec.list.eval(pl.element().abs()).list.sum() == 0,
        ]
        stats["dim"] = vec.list.len().max()
    if popularity is not None:
        value = pl.col(popularity).cast(pl.Float64)
        conditions.append(~value.is_finite() | (value < 0))
    bad, found = _screen(lf, conditions, stats)
    if bad or (features is not None and vec is None):
        _name_the_bad_item(lf, where, categories, features, popularity)
    out = [pl.col(D), *(pl.col(c) for c in categories)]
    if vec is not None:
        out.append(vec.alias(FEATURES))
    if popularity is not None:
        out.append(pl.col(popularity).cast(pl.Float64).alias(POPULARITY))
    return lf.select(out), categories, found.get("dim") or 0, popularity is not None, found


def _name_the_bad_item(
    lf: pl.LazyFrame, where: str, categories: tuple[str, ...], features: str | None, popularity: str | None
) -> None:
    """Raise the InputError for the catalogue's first problem (the screen found one)."""
    _ids_present(lf, (D,), "items", where)
    rows = _first_two(lf, pl.col(D).is_duplicated())
    if rows:
        msg = (
            f"{where}: the catalogue lists the item {rows[0][D]!r} twice ({_at(rows[0])} and "
            f"{_at(rows[1])}). One row per item: drop the duplicates (df.unique('{D}'))."
        )
        raise InputError(msg)
    for col in categories:
        row = _bad_row(lf, pl.col(col).is_null())
        if row is not None:
            msg = (
                f"{where}: items {_at(row)} (item {row[D]!r}) has a null category {col!r}. "
                "Give every item a category (e.g. fill_null('unknown')), or drop the column."
            )
            raise InputError(msg)
    if features is not None:
        dtype = lf.collect_schema()[features]
        if not _numeric_list(dtype):
            msg = (
                f"{where}: the feature column {features!r} is {dtype}; it must hold a list or "
                "array of numbers per item."
            )
            raise InputError(msg)
        vec = pl.col(features).cast(pl.List(pl.Float64))
        lengths = lf.select(vec.list.len().alias("n")).unique().head(3).collect()["n"].to_list()
        if len(lengths) > 1:
            row = _bad_row(lf, vec.list.len() != lengths[0])
            msg = (
                f"{where}: the feature vectors have unequal lengths (e.g. {lengths[0]} and "
                f"{len(row[features]) if row and row[features] is not None else None} at items "
                f"{_at(row) if row else '?'}, item {row[D] if row else '?'!r}). Every item needs "
                "a vector of the same length."
            )
            raise InputError(msg)
        row = _bad_row(lf, vec.is_null() | ~vec.list.eval(pl.element().is_finite()).list.all())
        if row is not None:
            msg = (
                f"{where}: items {_at(row)} (item {row[D]!r}) has a feature vector with a null, "
                "NaN or infinite value. Feature vectors must be finite numbers."
            )
            raise InputError(msg)
        row = _bad_row(lf, vec.list.eval(pl.element().abs()).list.sum() == 0)
        if row is not None:
            msg = (
                f"{where}: items {_at(row)} (item {row[D]!r}) has a feature vector of zeros, whose "
                "cosine similarity to any item is undefined. Give it a non-zero vector."
            )
            raise InputError(msg)
    if popularity is not None:
        _finite_non_negative(lf, popularity, "items", where)


def _first_two(lf: pl.LazyFrame, condition: pl.Expr) -> list[dict[str, Any]]:
    """The first two rows (with their 1-based positions) where ``condition`` holds."""
    return lf.with_row_index("_row", offset=1).filter(condition).head(2).collect().rows(named=True)


def _numeric_list(dtype: pl.DataType) -> bool:
    inner = getattr(dtype, "inner", None)
    return isinstance(dtype, pl.List | pl.Array) and inner is not None and inner.is_numeric()


def _reference(lf: pl.LazyFrame, where: str) -> pl.LazyFrame:
    score = pl.col("score").cast(pl.Float64)
    conditions = [
        pl.col(Q).is_null(), pl.col(D).is_null(), pl.struct(Q, D).is_duplicated(), score.is_nan(),
        score.is_null(),
    ]
    if not _screen(lf, conditions, {})[0]:
        return lf.select(Q, D, score.alias("score"))
    _ids_present(lf, (Q, D), "reference run", where)
    rows = _first_two(lf, pl.struct(Q, D).is_duplicated())
    if rows:
        msg = (
            f"{where}: the reference run lists the item {rows[0][D]!r} twice for the user "
            f"{rows[0][Q]!r} ({_at(rows[0])} and {_at(rows[1])}). One row per (user, item)."
        )
        raise InputError(msg)
    row = _bad_row(lf, score.is_null() | score.is_nan())
    if row is not None:
        msg = (
            f"{where}: the reference run's {_at(row)} has the score {row['score']!r}; "
            "scores must be numbers."
        )
        raise InputError(msg)
    return lf.select(Q, D, score.alias("score"))
