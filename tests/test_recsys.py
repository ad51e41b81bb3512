"""Recommender measures against RePlay, Microsoft Recommenders and TorchMetrics themselves.

The golden values in ``tests/data/recsys/golden.json`` were computed by those libraries
(``tests/oracles/recsys_golden.py``, versions in the file) on random cases with distinct
scores, users without positives, users only in the run or only in the truth, items the
history lacks. Each test maps an oracle's call to its rankframe spelling and options, the
mapping the recommender guide documents:

- RePlay's accuracy metrics: the truth's positives as binary judgments, ``complete=True``
  (truth users without recommendations score 0) and ``empty_queries="skip"`` (RePlay's
  ground truth holds no user without a positive);
- Recommenders' ranking metrics likewise (binary relevance unless said);
- the beyond-accuracy measures: no qrels, the history as ``interactions=``, the catalogue as
  ``items=``, the reference run as ``reference=``; Recommenders' functions cut at ``k``.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import rankframe as rf

GOLDEN = json.loads((Path(__file__).parent / "data" / "recsys" / "golden.json").read_text())
CASES = GOLDEN["cases"]
KS = GOLDEN["ks"]
TOL = 1e-9


def _frames(case: dict[str, Any]) -> dict[str, pl.DataFrame]:
    """The case's inputs as rankframe reads them."""
    inputs = case["inputs"]
    uid = pl.Int64 if isinstance(inputs["run"][0][0], int) else pl.String
    iid = pl.Int64 if isinstance(inputs["run"][0][1], int) else pl.String
    ids = {"user_id": uid, "item_id": iid}
    run = pl.DataFrame(inputs["run"], schema={**ids, "score": pl.Float64}, orient="row")
    truth = pl.DataFrame(inputs["truth"], schema={**ids, "rel": pl.Int64}, orient="row")
    history = pl.DataFrame(
        [r[:2] for r in inputs["interactions"]], schema={"user_id": uid, "item_id": iid}, orient="row"
    )
    ref = pl.DataFrame(
        inputs["reference"], schema={"user_id": uid, "item_id": iid, "score": pl.Float64}, orient="row"
    )
    columns = inputs["item_columns"]
    rows = [dict(zip(columns, r, strict=True)) for r in inputs["items"]]
    items = pl.DataFrame(rows).rename({"item": "item_id"})
    if "features" in items.columns:
        items = items.with_columns(pl.col("features").cast(pl.List(pl.Float64)))
    return {"run": run, "truth": truth, "history": history, "reference": ref, "items": items}


def _values(result: pl.DataFrame) -> dict[str, float]:
    return dict(zip(result["measure"].to_list(), result["value"].to_list(), strict=True))


def _check(
    got: dict[str, float], expected: dict[str, float | None], mapping: dict[str, str], tol: float = TOL
) -> int:
    """Compare each oracle value with rankframe's; return how many were compared."""
    compared = 0
    for oracle, ours in mapping.items():
        want = expected.get(oracle)
        if want is None or (isinstance(want, float) and math.isnan(want)):
            continue  # the oracle returned NaN or failed: its reason is in the golden file
        assert got[ours] == pytest.approx(want, abs=tol), f"{oracle} vs {ours}: {want} != {got[ours]}"
        compared += 1
    return compared


def _ids(case: dict[str, Any]) -> str:
    return f"seed{case['seed']}"


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_replay_accuracy(case: dict[str, Any]) -> None:
    f = _frames(case)
    positives = f["truth"].filter(pl.col("rel") > 0).with_columns(pl.lit(1).alias("rel"))
    expected = case["values"]["replay"]
    mapping = {}
    for k in KS:
        mapping |= {
            f"MAP@{k}": f"AP(norm='min_k_num_rel')@{k}", f"NDCG@{k}": f"nDCG@{k}",
            f"Precision@{k}": f"P@{k}", f"Recall@{k}": f"R@{k}", f"MRR@{k}": f"RR@{k}",
            f"HitRate@{k}": f"Success@{k}", f"RocAuc@{k}": f"AUC@{k}",
        }
    if positives.is_empty():
        pytest.skip("no user with a positive")
    got = _values(rf.evaluate(positives, f["run"], list(mapping.values()), complete=True,
                              empty_queries="skip"))
    assert _check(got, expected, mapping) > 0
    # the users without a positive scored 0 (RePlay's dict input with empty ground truths)
    every = f["truth"].with_columns((pl.col("rel") > 0).cast(pl.Int64).alias("rel"))
    with_empty = {f"{o}/gt_with_empty_users": m for o, m in mapping.items()}
    got = _values(rf.evaluate(every, f["run"], list(mapping.values()), complete=True))
    _check(got, expected, with_empty)


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_replay_aggregations(case: dict[str, Any]) -> None:
    f = _frames(case)
    positives = f["truth"].filter(pl.col("rel") > 0).with_columns(pl.lit(1).alias("rel"))
    if positives.is_empty():
        pytest.skip("no user with a positive")
    expected = case["values"]["replay"]
    for mode, how in (("Median", "median"), ("ConfidenceInterval", "ci95")):
        mapping = {f"NDCG-{mode}@{k}": f"nDCG@{k}" for k in KS}
        mapping |= {f"Precision-{mode}@{k}": f"P@{k}" for k in KS}
        got = _values(rf.evaluate(positives, f["run"], list(set(mapping.values())), complete=True,
                                  empty_queries="skip", aggregate=how))
        # (RePlay's pandas path gives NaN for the interval of one user, its Polars path 0 as here)
        assert _check(got, expected, mapping) > 0 or (mode == "ConfidenceInterval" and len(got) > 0)


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_replay_beyond_accuracy(case: dict[str, Any]) -> None:
    f = _frames(case)
    expected = case["values"]["replay"]
    mapping = {}
    for k in KS:
        mapping |= {
            f"Coverage@{k}": f"Coverage@{k}", f"Novelty@{k}": f"Novelty@{k}",
            f"Surprisal@{k}": f"Surprisal@{k}", f"Unexpectedness@{k}": f"Unexpectedness@{k}",
            f"CategoricalDiversity@{k}": f"CategoricalDiversity@{k}",
        }
    sides = {"interactions": f["history"], "items": f["items"].select("item_id", "category"),
             "reference": f["reference"]}
    novelty = {o: m for o, m in mapping.items() if o.startswith("Novelty")}
    others = {o: m for o, m in mapping.items() if o not in novelty}
    got = _values(rf.evaluate(None, f["run"], list(others.values()), **sides))
    assert _check(got, expected, others) > 0
    # RePlay's Novelty averages over the history's users, 1 for those without recommendations:
    # the history as judgments, complete=True (an empty ranking's novelty is 1)
    seen = f["history"].unique().with_columns(pl.lit(1).alias("rel"))
    got = _values(rf.evaluate(seen, f["run"], list(novelty.values()), complete=True, **sides))
    assert _check(got, expected, novelty) > 0
    medians = {f"{o.split('@')[0]}-Median@{o.split('@')[1]}": m for o, m in others.items()
               if not o.startswith("Coverage")}
    got = _values(rf.evaluate(None, f["run"], list(medians.values()), aggregate="median", **sides))
    assert _check(got, expected, medians) > 0


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_recommenders_beyond_accuracy(case: dict[str, Any]) -> None:
    f = _frames(case)
    expected = case["values"]["recommenders"]
    if expected.get("catalog_coverage") is None:  # it refuses recommendations of seen items
        pytest.skip(case["errors"]["recommenders"]["catalog_coverage"])
    mapping = {}
    for k in KS:
        mapping |= {
            f"catalog_coverage@{k}": f"CatalogCoverage@{k}",
            f"distributional_coverage@{k}": f"DistributionalCoverage@{k}",
            f"novelty@{k}": f"SelfInformation@{k}",
            f"diversity(item_feature_vector)@{k}": f"IntraListDiversity@{k}",
            f"serendipity@{k}": f"Serendipity@{k}",
        }
    mapping |= {
        "catalog_coverage": "CatalogCoverage", "distributional_coverage": "DistributionalCoverage",
        "novelty": "SelfInformation",
    }
    got = _values(rf.evaluate(
        None, f["run"], list(mapping.values()), interactions=f["history"],
        items=f["items"].select("item_id", "features"),
    ))
    assert _check(got, expected, {o: m for o, m in mapping.items() if not o.startswith("catalog")}) > 0
    # catalog_coverage divides by the history's items: no items=
    cov = {o: m for o, m in mapping.items() if o.startswith("catalog")}
    got = _values(rf.evaluate(None, f["run"], list(cov.values()), interactions=f["history"]))
    assert _check(got, expected, cov) > 0


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_torchmetrics(case: dict[str, Any]) -> None:
    f = _frames(case)
    expected = case["values"]["torchmetrics"]
    # TorchMetrics evaluates every user of the run, its items being the candidates: judge each
    # run user (a grade-0 row for those the truth lacks); truth users outside the run are unseen
    binary = f["truth"].with_columns((pl.col("rel") > 0).cast(pl.Int64).alias("rel"))
    # its judgments are the candidates' labels: the truth items the run lacks are unseen
    binary = binary.join(f["run"].select("user_id", "item_id"), on=["user_id", "item_id"], how="semi")
    unseen = f["run"].select("user_id").unique().join(binary, on="user_id", how="anti")
    none = -1 if binary["item_id"].dtype == pl.Int64 else "__none__"
    unseen = unseen.with_columns(
        pl.lit(none, binary["item_id"].dtype).alias("item_id"), pl.lit(0, pl.Int64).alias("rel")
    )
    qrels = pl.concat([binary, unseen])
    mapping = {}
    for k in KS:
        mapping |= {
            f"RetrievalFallOut@{k}/neg": f"FallOut@{k}",
            f"RetrievalPrecision(adaptive_k=True)@{k}/neg": f"P(adaptive_k=True)@{k}",
            f"RetrievalPrecision(adaptive_k=False)@{k}/neg": f"P@{k}",
            f"RetrievalRecall@{k}/neg": f"R@{k}",
            f"RetrievalHitRate@{k}/neg": f"Success@{k}",
            f"RetrievalMRR@{k}/neg": f"RR@{k}",
        }
    if (f["run"]["score"] <= 0).any():
        # RetrievalPrecision, Recall, MRR and MAP (1.9) count no hit whose score is <= 0
        quirk = ("Precision", "Recall", "MRR", "MAP")
        mapping = {o: m for o, m in mapping.items() if not any(q in o for q in quirk)}
    # TorchMetrics computes in float32: its means agree to ~1e-8
    got = _values(rf.evaluate(qrels, f["run"], list(mapping.values())))
    assert _check(got, expected, mapping, tol=1e-6) > 0
    skip = {o.replace("/neg", "/skip"): m for o, m in mapping.items() if "FallOut" not in o}
    got = _values(rf.evaluate(qrels, f["run"], list(skip.values()), empty_queries="skip"))
    assert _check(got, expected, skip, tol=1e-6) > 0


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_recommenders_ranking(case: dict[str, Any]) -> None:
    f = _frames(case)
    expected = case["values"]["recommenders"]
    positives = f["truth"].filter(pl.col("rel") > 0).with_columns(pl.lit(1).alias("rel"))
    if positives.is_empty():
        pytest.skip("no user with a positive")
    mapping = {}
    for k in KS:
        mapping |= {
            f"map_at_k@{k}": f"AP(norm='min_k_num_rel')@{k}", f"precision_at_k@{k}": f"P@{k}",
            f"recall_at_k@{k}": f"R@{k}",
        }
    # the users of both the truth's positives and the recommendations
    got = _values(rf.evaluate(positives, f["run"], list(mapping.values())))
    assert _check(got, expected, mapping) > 0
    # ndcg_at_k averages over every user of the truth (an outer merge): complete=True
    ndcg = {f"ndcg_at_k(score_type=binary,discfun_type=log2)@{k}": f"nDCG@{k}" for k in KS}
    ndcg |= {f"ndcg_at_k(score_type=raw,discfun_type=log2)@{k}": f"nDCG@{k}" for k in KS}
    graded = f["truth"].filter(pl.col("rel") > 0)
    got = _values(rf.evaluate(positives, f["run"], list(ndcg.values()), complete=True))
    assert _check(got, expected, {o: m for o, m in ndcg.items() if "binary" in o}) > 0
    got = _values(rf.evaluate(graded, f["run"], list(ndcg.values()), complete=True))
    assert _check(got, expected, {o: m for o, m in ndcg.items() if "binary" not in o}) > 0


# ----------------------------------------------------------------------------- RePlay's docstrings
DOCSTRINGS = json.loads((Path(__file__).parent / "data" / "recsys" / "docstring_cases.json").read_text())
REPLAY_DOCS = [c for c in DOCSTRINGS["cases"] if c["library"] == "replay-rec"]
#: RePlay's metric -> rankframe's spelling (``{k}``: the cutoff) and how its inputs are passed
SPELLING = {
    "MAP": "AP(norm='min_k_num_rel')@{k}", "NDCG": "nDCG@{k}", "Precision": "P@{k}", "Recall": "R@{k}",
    "MRR": "RR@{k}", "HitRate": "Success@{k}", "RocAuc": "AUC@{k}", "Coverage": "Coverage@{k}",
    "Novelty": "Novelty@{k}", "Surprisal": "Surprisal@{k}", "Unexpectedness": "Unexpectedness@{k}",
    "CategoricalDiversity": "CategoricalDiversity@{k}",
}
MODES = {"Median": "median", "ConfidenceInterval": "ci95", "PerUser": None}


def _frame(case: dict[str, Any], name: str) -> pl.DataFrame:
    spec = case["frames"][name]
    return pl.DataFrame(spec["rows"], schema=spec["columns"], orient="row").rename(
        {"query_id": "user_id", "rating": "score"}, strict=False
    )


@pytest.mark.parametrize("case", REPLAY_DOCS, ids=lambda c: c["object"].rsplit(".", 1)[1])
def test_replay_docstring_examples(case: dict[str, Any]) -> None:
    import ast

    name = case["object"].rsplit(".", 1)[1]
    compared = 0
    for example in case["examples"]:
        if not example["source"].startswith(name + "("):
            continue
        want = ast.literal_eval(example["want"].replace("<BLANKLINE>", "").strip())
        call = ast.parse(example["source"], mode="eval").body.func  # Metric(ks, mode=...)
        ks = ast.literal_eval(call.args[0])
        ks = ks if isinstance(ks, list) else [ks]
        mode = next((kw.value.func.id for kw in call.keywords if kw.arg == "mode"), None)
        options: dict[str, Any] = {} if mode is None else {"aggregate": MODES[mode]}
        if mode == "PerUser":
            options = {"per_query": True}
        measures = [SPELLING[name].format(k=k) for k in ks]
        source = "category_recommendations" if name == "CategoricalDiversity" else "recommendations"
        recs = _frame(case, source)
        if name in ("Coverage", "Novelty", "Surprisal"):
            kwargs: dict[str, Any] = {"interactions": _frame(case, "train")}
            qrels = None
            if name == "Novelty":  # averaged over the history's users (test_replay_beyond_accuracy)
                qrels = kwargs["interactions"].unique().with_columns(pl.lit(1).alias("rel"))
                options["complete"] = True
        elif name == "Unexpectedness":
            kwargs, qrels = {"reference": _frame(case, "base_rec")}, None
        elif name == "CategoricalDiversity":  # its rows are the categories of the recommended items
            recs = recs.with_row_index("item_id").with_columns(pl.col("item_id").cast(pl.Int64))
            kwargs, qrels = {"items": recs.select("item_id", "category_id")}, None
        else:
            kwargs = {}
            qrels = _frame(case, "groundtruth").with_columns(pl.lit(1).alias("rel"))
            options |= {"complete": True}
        got = rf.evaluate(qrels, recs, measures, **kwargs, **options)
        for key, value in want.items():
            k = int(key.rsplit("@", 1)[1])
            ours = got.filter(pl.col("measure") == SPELLING[name].format(k=k))
            if mode == "PerUser":
                per_user = dict(zip(ours["query_id"], ours["value"], strict=True))
                assert per_user == pytest.approx(value, abs=TOL)
            else:
                assert ours["value"].item() == pytest.approx(value, abs=TOL), f"{example['source']}: {key}"
            compared += 1
    assert compared > 0


# ----------------------------------------------------------------------------- the guide
GUIDE = (Path(__file__).parents[1] / "docs" / "guides" / "recommender-systems.md").read_text()


def test_the_guide_spellings_parse_and_its_list_covers_the_recommender_families() -> None:
    import re

    from rankframe._measures import REGISTRY

    rows = [line.split("|")[1:-1] for line in GUIDE.splitlines() if line.startswith("| `")]
    spellings = {s for row in rows for s in re.findall(r"`([^`]+)`", row[1]) if "@k" in s or "(" in s}
    assert len(spellings) > 15
    for spelling in spellings:
        rf.parse_measure(spelling.replace("@k", "@10"))  # a typo in the guide raises
    listed = set(re.findall(r"^\| `(\w+)@k` \| (?:run|user) \|", GUIDE, flags=re.MULTILINE))
    recsys = {n for n, c in REGISTRY.items() if not c.NEEDS_JUDGMENTS}
    assert recsys <= listed, f"the guide's measure list lacks {sorted(recsys - listed)}"
