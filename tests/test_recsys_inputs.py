"""Recommender evaluation's side inputs and conventions: bad input, query sets, plans, properties.

The measures' values are checked against RePlay, Recommenders and TorchMetrics in
``test_recsys.py``; here: one-line errors for bad side inputs, the query sets and empty
rankings, breakdowns, partitions and runs given apart (the same numbers), and a hypothesis
property test against a direct Python transcription of each definition, on frames with score
ties, one item, users without history and items the catalogue lacks.
"""

from __future__ import annotations

import math
import warnings
from collections import Counter

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankframe as rf

RUN = pl.DataFrame({
    "user_id": ["u1", "u1", "u1", "u2", "u2", "u3"],
    "item_id": ["a", "b", "c", "a", "d", "e"],
    "score": [3.0, 2.0, 1.0, 2.0, 1.0, 1.0],
})
HISTORY = pl.DataFrame({"user_id": ["u1", "u2", "u4", "u4"], "item_id": ["b", "a", "a", "c"]})
ITEMS = pl.DataFrame({
    "item_id": ["a", "b", "c", "d"], "genre": ["x", "x", "y", "z"],
    "features": [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [2.0, 1.0]],
})


def _value(result: pl.DataFrame, measure: str) -> float:
    return result.filter(pl.col("measure") == measure)["value"].item()


# ----------------------------------------------------------------------------- bad side inputs
@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"interactions": pl.DataFrame({"user": ["u1"], "thing": ["a"]})},
         "has no interactions column 'doc_id'"),
        ({"interactions": pl.DataFrame({"user_id": ["u1", None], "item_id": ["a", "b"]})},
         "row 2 has a null 'query_id'"),
        ({"interactions": HISTORY.with_columns(pl.lit(-1.0).alias("weight"))}, "finite number >= 0"),
        ({"interactions": HISTORY.with_columns(pl.lit("x").alias("weight"))}, "not numeric"),
        ({"items": pl.DataFrame({"item_id": ["a", "a"], "genre": ["x", "y"]})}, "lists the item 'a' twice"),
        ({"items": pl.DataFrame({"item_id": ["a", "b"], "genre": ["x", None]})}, "null category 'genre'"),
        ({"items": pl.DataFrame({"item_id": ["a", "b"], "features": [[1.0], [1.0, 2.0]]})},
         "unequal lengths"),
        ({"items": pl.DataFrame({"item_id": ["a", "b"], "features": [[1.0, math.nan], [1.0, 2.0]]})},
         "NaN or infinite"),
        ({"items": pl.DataFrame({"item_id": ["a", "b"], "features": [[0.0, 0.0], [1.0, 2.0]]})},
         "vector of zeros"),
        ({"items": pl.DataFrame({"item_id": ["a"], "features": ["1,2"]})}, "list or array of numbers"),
        ({"reference": pl.DataFrame({"user_id": ["u1", "u1"], "item_id": ["a", "a"], "score": [1.0, 2.0]})},
         "lists the item 'a' twice for the user 'u1'"),
        ({"reference": pl.DataFrame({"user_id": ["u1"], "item_id": ["a"], "score": [math.nan]})},
         "scores must be numbers"),
    ],
)
def test_bad_side_inputs_are_one_line_errors(kwargs: dict, match: str) -> None:
    with pytest.raises(rf.InputError, match=match) as err:
        rf.evaluate(None, RUN, ["DistributionalCoverage"], **kwargs)
    assert "\n" not in str(err.value)


def test_a_side_input_file_is_named_with_its_line(tmp_path) -> None:
    path = tmp_path / "train.tsv"
    path.write_text("user_id\titem_id\nu1\ta\n\tb\n")
    with pytest.raises(rf.InputError, match=r"train\.tsv.*null 'query_id'"):
        rf.evaluate(None, RUN, ["Novelty@2"], interactions=str(path))


@pytest.mark.parametrize(
    ("measure", "match"),
    [
        ("Novelty@2", r"needs interactions=\.\.\."),
        ("Coverage@2", r"needs interactions=\.\.\."),
        ("CategoricalDiversity@2", r"needs items=\.\.\."),
        ("IntraListDiversity@2", r"needs items=\.\.\."),
        ("Unexpectedness@2", r"needs reference=\.\.\."),
        ("Gini@2", r"needs interactions=\.\.\."),
    ],
)
def test_a_missing_side_input_is_named(measure: str, match: str) -> None:
    with pytest.raises(rf.InputError, match=match):
        rf.evaluate(None, RUN, [measure])


def test_the_catalogue_columns_a_measure_needs() -> None:
    with pytest.raises(rf.InputError, match="needs category columns"):
        rf.evaluate(None, RUN, ["CategoricalDiversity@2"], items=ITEMS.select("item_id", "features"))
    with pytest.raises(rf.InputError, match="needs item feature vectors"):
        rf.evaluate(None, RUN, ["IntraListDiversity@2"], items=ITEMS.select("item_id", "genre"))


def test_qrels_are_needed_by_measures_that_read_judgments() -> None:
    with pytest.raises(rf.InputError, match=r"nDCG@10 reads judgments: pass qrels"):
        rf.evaluate(None, RUN, ["nDCG@10", "Coverage@2"], interactions=HISTORY)


def test_other_engines_refuse_side_inputs() -> None:
    with pytest.raises(ValueError, match="does not read side inputs"):
        rf.evaluate(None, RUN, ["Novelty@2"], interactions=HISTORY, engine="duckdb")


@pytest.mark.parametrize(("option", "value"), [("empty_queries", "drop"), ("aggregate", "ci100"),
                                               ("aggregate", "mode"), ("aggregate", 95)])
def test_bad_conventions_are_refused(option: str, value: object) -> None:
    qrels = pl.DataFrame({"query_id": ["u1"], "doc_id": ["a"], "relevance": [1]})
    run = RUN.rename({"user_id": "query_id", "item_id": "doc_id"})
    with pytest.raises(rf.MeasureError, match=option):
        rf.evaluate(qrels, run, ["P@1"], **{option: value})


# ----------------------------------------------------------------------------- query sets
def test_population_measures_are_left_out_per_query_with_a_warning() -> None:
    with pytest.warns(rf.RankframeWarning, match="Coverage@2 is a population measure"):
        out = rf.evaluate(None, RUN, ["Coverage@2", "Novelty@2"], interactions=HISTORY, per_query=True)
    assert set(out["measure"]) == {"Novelty@2"}
    assert out["query_id"].to_list() == ["u1", "u2", "u3"]


def test_without_qrels_every_run_user_is_evaluated() -> None:
    out = rf.evaluate(None, RUN, ["Novelty@2"], interactions=HISTORY, per_query=True)
    # u1: b seen of a, b; u2: a seen of a, d; u3: no history
    assert out["value"].to_list() == [0.5, 0.5, 1.0]


def test_with_qrels_and_complete_a_user_without_recommendations_gets_the_empty_value() -> None:
    qrels = pl.DataFrame({"user_id": ["u1", "u4"], "item_id": ["a", "a"], "rel": [1, 1]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = rf.evaluate(qrels, RUN, ["Novelty@2", "Surprisal@2", "P@1"], interactions=HISTORY,
                          per_query=True, complete=True)
    got = {(r["query_id"], r["measure"]): r["value"] for r in out.iter_rows(named=True)}
    assert got[("u4", "Novelty@2")] == 1.0  # nothing recommended, nothing seen (RePlay)
    assert got[("u4", "Surprisal@2")] == 0.0
    assert got[("u4", "P@1")] == 0.0
    assert got[("u1", "P@1")] == 1.0


def test_empty_queries_skip_leaves_out_queries_without_a_positive() -> None:
    run = RUN.rename({"user_id": "query_id", "item_id": "doc_id"})
    qrels = pl.DataFrame({"query_id": ["u1", "u2"], "doc_id": ["a", "a"], "relevance": [1, 0]})
    zero = rf.evaluate(qrels, run, ["P@1", "NumQ"])
    skip = rf.evaluate(qrels, run, ["P@1", "NumQ"], empty_queries="skip")
    assert _value(zero, "P@1") == 0.5
    assert _value(zero, "NumQ") == 2
    assert _value(skip, "P@1") == 1.0
    assert _value(skip, "NumQ") == 1


def test_median_and_confidence_interval() -> None:
    run = RUN.rename({"user_id": "query_id", "item_id": "doc_id"})
    qrels = pl.DataFrame({"query_id": ["u1", "u2", "u3"], "doc_id": ["a", "d", "x"], "relevance": [1, 1, 1]})
    per_query = rf.evaluate(qrels, run, ["RR"], per_query=True)["value"].to_list()
    assert per_query == [1.0, 0.5, 0.0]
    assert _value(rf.evaluate(qrels, run, ["RR"], aggregate="median"), "RR") == 0.5
    from scipy import stats

    half = stats.norm.ppf(0.975) * stats.sem(per_query)
    assert _value(rf.evaluate(qrels, run, ["RR"], aggregate="ci95"), "RR") == pytest.approx(half, rel=1e-12)


# ----------------------------------------------------------------------------- plans agree
MEASURES = [
    "Coverage@2", "CatalogCoverage@2", "DistributionalCoverage@2", "Gini@2", "SelfInformation@2",
    "Novelty@2", "Surprisal@2", "CategoricalDiversity@2", "IntraListDiversity@2", "ARP@2", "APLT@2",
    "Serendipity@2", "UserCoverage@2",
]


def _big(seed: int = 0, users: int = 200) -> pl.DataFrame:
    import numpy as np

    rng = np.random.default_rng(seed)
    rows = []
    for u in range(users):
        for i in rng.choice(40, size=int(rng.integers(1, 8)), replace=False):
            rows.append((f"u{u}", f"i{i}", float(rng.integers(0, 4)), ["de", "fr"][u % 2]))
    return pl.DataFrame(rows, schema=["user_id", "item_id", "score", "locale"], orient="row")


def _sides() -> dict[str, pl.DataFrame]:
    import numpy as np

    rng = np.random.default_rng(1)
    history = pl.DataFrame({
        "user_id": [f"u{u}" for u in rng.integers(0, 250, 600)],
        "item_id": [f"i{i}" for i in rng.zipf(1.5, 600) % 45],
    })
    items = pl.DataFrame({
        "item_id": [f"i{i}" for i in range(35)], "genre": [f"g{i % 5}" for i in range(35)],
        "features": [[float(i % 3 + 1), float(i % 7)] for i in range(35)],
    })
    return {"interactions": history, "items": items}


def test_partitions_and_breakdowns_give_the_numbers_of_one_plan() -> None:
    run, sides = _big(), _sides()
    one = rf.evaluate(None, run, MEASURES, partitions=1, **sides)
    parts = rf.evaluate(None, run, MEASURES, partitions=4, **sides)
    assert parts.equals(one)
    by = rf.evaluate(None, run, MEASURES, by=["locale"], **sides)
    for locale in ("de", "fr"):
        alone = rf.evaluate(None, run.filter(pl.col("locale") == locale), MEASURES, **sides)
        got = by.filter(pl.col("locale") == locale).drop("locale")
        assert got["measure"].to_list() == alone["measure"].to_list()
        assert got["value"].to_list() == pytest.approx(alone["value"].to_list(), rel=1e-12, nan_ok=True)


def test_runs_given_apart_equal_each_run_alone() -> None:
    sides = _sides()
    a, b = _big(0), _big(3)
    both = rf.evaluate(None, {"a": a, "b": b}, MEASURES, **sides)
    # and one frame holding both runs in a run column: one plan
    stacked = pl.concat([a.with_columns(pl.lit("a").alias("run")), b.with_columns(pl.lit("b").alias("run"))])
    one_plan = rf.evaluate(None, stacked, MEASURES, **sides)
    for name, run in (("a", a), ("b", b)):
        alone = rf.evaluate(None, run, MEASURES, **sides)
        for result in (both, one_plan):
            got = result.filter(pl.col("run") == name)
            assert got["measure"].to_list() == alone["measure"].to_list()
            assert got["value"].to_list() == pytest.approx(alone["value"].to_list(), rel=1e-12, nan_ok=True)


# ----------------------------------------------------------------------------- definitions
def _ranked(run: list[tuple[str, str, float]]) -> dict[str, list[str]]:
    """Each user's items in trec_eval's order: score descending, then item id descending."""
    by_user: dict[str, list[tuple[float, str]]] = {}
    for u, i, s in run:
        by_user.setdefault(u, []).append((s, i))
    return {u: [i for _, i in sorted(v, key=lambda t: (t[0], t[1].encode()), reverse=True)]
            for u, v in by_user.items()}


def _reference(run, history, genres, k):  # noqa: ANN001, ANN202 - a transcription of the docstrings
    ranked = _ranked(run)
    users = sorted({u for u, _ in history})
    n_users = len(users)
    item_users: dict[str, set[str]] = {}
    for u, i in history:
        item_users.setdefault(i, set()).add(u)
    counts = Counter(i for _, i in history)
    seen = {(u, i) for u, i in history}
    out: dict[str, float] = {}
    tops = {u: items[:k] for u, items in ranked.items()}
    shown = [i for t in tops.values() for i in t]
    out[f"Coverage@{k}"] = len(set(shown) & set(item_users)) / len(item_users)
    catalogue = set(genres) or set(item_users)  # items=, else the history's items
    out[f"CatalogCoverage@{k}"] = len(set(shown)) / len(catalogue)
    n = Counter(shown)
    total = sum(n.values())
    out[f"DistributionalCoverage@{k}"] = -sum(c / total * math.log2(c / total) for c in n.values())
    info = [-math.log2(counts[i] / len(history)) if counts[i] else 0.0 for i in shown]
    out[f"SelfInformation@{k}"] = sum(info) / len(shown)

    def mean(f):  # noqa: ANN001, ANN202
        return sum(f(u, t) for u, t in tops.items()) / len(tops)

    out[f"Novelty@{k}"] = mean(lambda u, t: 1 - sum((u, i) in seen for i in t) / len(t))

    def surprisal(i: str) -> float:
        if i not in item_users:
            return 1.0
        return 0.0 if n_users <= 1 else math.log2(n_users / len(item_users[i])) / math.log2(n_users)

    out[f"Surprisal@{k}"] = mean(lambda u, t: sum(surprisal(i) for i in t) / k)
    out[f"CategoricalDiversity@{k}"] = mean(lambda u, t: len({genres[i] for i in t if i in genres}) / k)
    out[f"ARP@{k}"] = mean(lambda u, t: sum(counts[i] for i in t) / len(t))
    head_n = math.ceil(0.2 * len(item_users))
    order = sorted(counts, key=lambda i: (counts[i], i.encode()), reverse=True)
    head = set(order[:head_n])
    out[f"APLT@{k}"] = mean(lambda u, t: sum(i not in head for i in t) / len(t))
    out[f"UserCoverage@{k}"] = sum(len(ranked.get(u, [])) >= k for u in users) / n_users
    return out


@st.composite
def recsys_data(draw: st.DrawFn):  # noqa: ANN201
    items = [f"i{j}" for j in range(draw(st.integers(1, 12)))]
    users = [f"u{j}" for j in range(draw(st.integers(1, 6)))]
    run = []
    for u in users:
        chosen = draw(st.lists(st.sampled_from(items), min_size=1, max_size=len(items), unique=True))
        run += [(u, i, float(draw(st.integers(0, 3)))) for i in chosen]  # score ties
    history = draw(st.lists(st.tuples(st.sampled_from([*users, "h0", "h1"]), st.sampled_from(items)),
                            min_size=1, max_size=20))
    genres = {i: draw(st.sampled_from("xyz")) for i in items if draw(st.booleans())}
    k = draw(st.sampled_from([1, 2, 3, 100]))
    return run, history, genres, k


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(recsys_data())
def test_values_equal_the_definitions(data) -> None:  # noqa: ANN001
    run, history, genres, k = data
    expected = _reference(run, history, genres, k)
    frame = pl.DataFrame(run, schema=["user_id", "item_id", "score"], orient="row")
    hist = pl.DataFrame(history, schema=["user_id", "item_id"], orient="row")
    items = pl.DataFrame({"item_id": list(genres), "genre": list(genres.values())},
                         schema={"item_id": pl.String, "genre": pl.String})
    measures = [m for m in expected if not (m.startswith("CategoricalDiversity") and not genres)]
    got = rf.evaluate(None, frame, measures, interactions=hist, **({"items": items} if genres else {}))
    values = dict(zip(got["measure"], got["value"], strict=True))
    for m in measures:
        assert values[m] == pytest.approx(expected[m], abs=1e-12), m
