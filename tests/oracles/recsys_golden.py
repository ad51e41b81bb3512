"""Golden values for recommender-system measures, computed by RePlay, Recommenders and TorchMetrics.

This is an oracle script, not a test: it writes ``tests/data/recsys/golden.json`` (and
``tests/data/recsys/docstring_cases.json``) so that rankframe's tests can compare against three
recommender-evaluation libraries without installing them. rankframe itself never imports them.

Run it with one command from the repository root::

    python tests/oracles/recsys_golden.py

The driver needs only the standard library and numpy. On first run it creates one virtual
environment per oracle under ``/tmp/rankframe-oracles/<name>`` (``RANKFRAME_ORACLES_DIR`` moves
them), pip-installs the pinned versions in ``ORACLES`` and then runs this same file inside each
environment as a worker (``python recsys_golden.py --worker NAME CASES.json OUT.json``). The
cases are made from fixed numpy seeds, so two runs write the same bytes.

Oracles (see ``tests/data/recsys/README.md``):

* RePlay (PyPI ``replay-rec``): ``replay.metrics`` classes, called with pandas frames;
* Microsoft Recommenders (PyPI ``recommenders``): ``recommenders.evaluation.python_evaluation``,
  installed without its (heavy, unused here) dependency set, with the pandas < 3 it needs;
* TorchMetrics (PyPI ``torchmetrics``): the ``torchmetrics.retrieval`` classes, on the CPU build of
  torch 2.13.0 that this machine keeps on disk.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
OUT_DIR = REPO / "tests" / "data" / "recsys"
GOLDEN = OUT_DIR / "golden.json"
DOCSTRINGS = OUT_DIR / "docstring_cases.json"
ORACLE_ROOT = Path(os.environ.get("RANKFRAME_ORACLES_DIR", "/tmp/rankframe-oracles"))

KS = (1, 3, 5, 10)

#: Each oracle's pip install steps (run in order in its own venv), pinned. Recommenders is
#: installed with --no-deps: its python_evaluation module imports only numpy, pandas and
#: scikit-learn (its full dependency set brings jupyter, transformers, cornac, lightgbm, ...).
#: torch is installed alone first, so that torchmetrics finds it and pip pulls no other build.
ORACLES: dict[str, dict[str, Any]] = {
    "replay": {
        "steps": [
            [
                "replay-rec==0.22.0",
                "polars==1.44.2",
                "pandas==2.3.3",
                "numpy==2.4.6",
                "scipy==1.17.1",
                "scikit-learn==1.8.0",
                "pyarrow==23.0.1",
            ]
        ],
        "versions": ["replay-rec", "polars", "pandas", "numpy", "scipy"],
    },
    "recommenders": {
        "steps": [
            ["--no-deps", "recommenders==1.2.1"],
            ["pandas==2.3.3", "numpy==2.4.6", "scipy==1.17.1", "scikit-learn==1.9.1"],
        ],
        "versions": ["recommenders", "pandas", "numpy", "scikit-learn"],
    },
    "torchmetrics": {
        "steps": [["torch==2.13.0"], ["torchmetrics==1.9.0", "numpy==2.4.6"]],
        "versions": ["torchmetrics", "torch", "numpy"],
    },
}

#: The cases: (seed, users, items, flags). Flags: int_ids (integer user and item ids),
#: two_categories (a second category column), negative_scores (scores on both sides of 0),
#: overlap (recommended (user, item) pairs may also be training rows), repeats (duplicate
#: training rows), weights (a weight per training row; null otherwise), sparse_positives (many
#: ground-truth users without a positive grade).
CASES: list[tuple[int, int, int, frozenset[str]]] = [
    (1001, 3, 5, frozenset()),
    (1002, 8, 12, frozenset({"weights"})),
    (1003, 15, 25, frozenset({"weights"})),
    (1004, 10, 20, frozenset({"int_ids"})),
    (1005, 40, 60, frozenset({"weights"})),
    (1006, 20, 30, frozenset({"two_categories"})),
    (1007, 12, 20, frozenset({"negative_scores"})),
    (1008, 18, 30, frozenset({"overlap", "weights"})),
    (1009, 25, 40, frozenset({"int_ids", "overlap", "repeats"})),
    (1010, 30, 45, frozenset({"repeats", "weights"})),
    (1011, 20, 50, frozenset({"overlap"})),
    (1012, 18, 35, frozenset({"sparse_positives"})),
]


# --------------------------------------------------------------------------------------------
# Case generation (driver side: numpy)
# --------------------------------------------------------------------------------------------


def _scores(rng: Any, n: int, negative: bool) -> list[float]:
    """n distinct scores with 4 decimals (distinct in float32 too: TorchMetrics casts to it)."""
    if negative:
        pool = [v for v in range(1, 10000) if v != 5000]
        vals = rng.choice(pool, size=n, replace=False)
        return [round((int(v) - 5000) / 10000, 4) for v in vals]
    vals = rng.choice(range(1, 10000), size=n, replace=False)
    return [round(int(v) / 10000, 4) for v in vals]


def make_case(seed: int, n_users: int, n_items: int, flags: frozenset[str]) -> dict[str, Any]:
    """One deterministic case: run, truth, interactions, item catalogue and reference run."""
    import numpy as np

    rng = np.random.default_rng(seed)
    int_ids = "int_ids" in flags
    users: list[Any] = (
        [1000 + 7 * j for j in range(n_users)] if int_ids else [f"u{j:02d}" for j in range(n_users)]
    )
    items: list[Any] = (
        [3 * j + 1 for j in range(n_items)] if int_ids else [f"i{j:03d}" for j in range(n_items)]
    )

    # roles: both (run and truth), run_only, truth_only; the first three users take one each
    roles = [
        str(r) for r in rng.choice(["both", "run_only", "truth_only"], size=n_users, p=[0.65, 0.15, 0.2])
    ]
    roles[0] = "both"
    if n_users >= 3:
        roles[1], roles[2] = "run_only", "truth_only"
    n_cold = max(1, n_items // 5)
    cold = set(int(i) for i in rng.choice(n_items, size=n_cold, replace=False))  # never in training
    warm = [i for i in range(n_items) if i not in cold]

    run: list[list[Any]] = []
    run_items: dict[int, list[int]] = {}
    single_done = False
    for u in range(n_users):
        if roles[u] == "truth_only":
            continue
        n = int(rng.integers(1, min(15, n_items) + 1))
        if not single_done and u >= 1:
            n, single_done = 1, True  # a user with a single recommendation
        chosen = [int(i) for i in rng.choice(n_items, size=n, replace=False)]
        run_items[u] = chosen
        for i, s in zip(chosen, _scores(rng, n, "negative_scores" in flags), strict=True):
            run.append([users[u], items[i], s])
    # at least one recommended item that never appears in training
    if not any(i in cold for lst in run_items.values() for i in lst):
        u0 = next(iter(run_items))
        c = min(cold)
        if c not in run_items[u0]:
            taken = {r[2] for r in run if r[0] == users[u0]}
            s = _scores(rng, 1, "negative_scores" in flags)[0]
            while s in taken:
                s = _scores(rng, 1, "negative_scores" in flags)[0]
            run_items[u0].append(c)
            run.append([users[u0], items[c], s])

    truth: list[list[Any]] = []
    zero_users = set()
    truth_users = [u for u in range(n_users) if roles[u] != "run_only"]
    p_zero = 0.45 if "sparse_positives" in flags else 0.2
    for idx, u in enumerate(truth_users):
        n = int(rng.integers(1, min(8, n_items) + 1))
        pool = set(run_items.get(u, []))
        chosen: list[int] = []
        for i in rng.permutation(n_items):
            i = int(i)
            if len(chosen) == n:
                break
            if i in pool and rng.random() < 0.8 or i not in pool and rng.random() < 0.35:
                chosen.append(i)
        if not chosen:
            chosen = [int(rng.integers(n_items))]
        # users without positives: the second truth user and about p_zero of the others
        no_pos = idx == 1 or rng.random() < p_zero
        if no_pos:
            zero_users.add(u)
        grades = [0 if no_pos else int(g) for g in rng.integers(0, 4, size=len(chosen))]
        if not no_pos and max(grades) == 0:
            grades[0] = int(rng.integers(1, 4))
        for i, g in zip(chosen, grades, strict=True):
            truth.append([users[u], items[i], g])

    interactions: list[list[Any]] = []
    overlap = "overlap" in flags
    for u in range(n_users):
        if u != 0 and rng.random() < 0.15 or u == n_users - 1:
            continue  # users without training rows (the last one always)
        excluded = set() if overlap else set(run_items.get(u, []))
        pool_u = [i for i in warm if i not in excluded]
        if not pool_u:
            continue
        n = int(rng.integers(1, min(12, len(pool_u)) + 1))
        chosen = [int(i) for i in rng.choice(pool_u, size=n, replace=False)]
        if overlap and u in run_items:  # make sure some recommended items were already seen
            seen = [i for i in run_items[u] if i not in cold]
            if seen and seen[0] not in chosen:
                chosen.append(seen[0])
        for i in chosen:
            w = round(float(rng.uniform(0.5, 5.0)), 2) if "weights" in flags else None
            interactions.append([users[u], items[i], w])
            if "repeats" in flags and rng.random() < 0.25:
                w2 = round(float(rng.uniform(0.5, 5.0)), 2) if "weights" in flags else None
                interactions.append([users[u], items[i], w2])  # a repeated interaction

    n_cat = max(2, n_items // 4)
    item_rows: list[list[Any]] = []
    for i in range(n_items):
        cat = f"c{int(rng.integers(n_cat))}"
        feats = [round(float(x), 4) for x in rng.normal(size=4)]
        if "two_categories" in flags:
            item_rows.append([items[i], cat, f"g{int(rng.integers(max(2, n_cat // 2)))}", feats])
        else:
            item_rows.append([items[i], cat, feats])

    reference: list[list[Any]] = []
    for u in range(n_users):
        if rng.random() < 0.2 and u != 0:
            continue  # users without a reference list
        n = int(rng.integers(1, min(15, n_items) + 1))
        base = run_items.get(u, [])
        chosen = [i for i in base if rng.random() < 0.5][:n]
        for i in rng.permutation(n_items):
            if len(chosen) >= n:
                break
            if int(i) not in chosen:
                chosen.append(int(i))
        for i, s in zip(chosen, _scores(rng, len(chosen), False), strict=True):
            reference.append([users[u], items[i], s])

    def order(rows: list[list[Any]]) -> list[list[Any]]:
        return sorted(
            rows, key=lambda r: (str(r[0]) if not int_ids else r[0], -r[2] if r[2] is not None else 0)
        )

    return {
        "seed": seed,
        "spec": {
            "users": n_users,
            "items": n_items,
            "flags": sorted(flags),
            "user_roles": {str(users[u]): roles[u] for u in range(n_users)},
            "truth_users_without_positives": sorted(str(users[u]) for u in zero_users),
            "items_never_in_training": sorted(str(items[i]) for i in cold),
        },
        "inputs": {
            "run": order(run),
            "truth": sorted(truth, key=lambda r: (r[0], r[1])),
            "interactions": interactions,
            "items": item_rows,
            "item_columns": (
                ["item", "category", "category2", "features"]
                if "two_categories" in flags
                else ["item", "category", "features"]
            ),
            "reference": order(reference),
        },
    }


# --------------------------------------------------------------------------------------------
# Workers (run inside each oracle's venv)
# --------------------------------------------------------------------------------------------


def _clean(v: Any) -> tuple[float | None, str | None]:
    """A float, or None and the reason (NaN, inf, not a number)."""
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None, f"returned {v!r}, not a number"
    if math.isnan(f) or math.isinf(f):
        return None, f"returned {f!r}"
    return f, None


class Recorder:
    """Collects values, calls, per-user values and errors of one case for one library."""

    def __init__(self) -> None:
        self.values: dict[str, float | None] = {}
        self.calls: dict[str, str] = {}
        self.errors: dict[str, str] = {}
        self.per_user: dict[str, dict[str, float | None]] = {}

    def put(self, key: str, value: Any, call: str) -> None:
        f, why = _clean(value)
        self.values[key] = f
        self.calls[key] = call
        if why is not None:
            self.errors[key] = why

    def fail(self, key: str, exc: BaseException, call: str) -> None:
        self.values[key] = None
        self.calls[key] = call
        self.errors[key] = f"{type(exc).__name__}: {exc}".strip()[:300]

    def users(self, key: str, mapping: dict[Any, Any]) -> None:
        self.per_user[key] = {
            str(u): _clean(v)[0] for u, v in sorted(mapping.items(), key=lambda kv: str(kv[0]))
        }

    def result(self) -> dict[str, Any]:
        return {"values": self.values, "calls": self.calls, "errors": self.errors, "per_user": self.per_user}


def worker_replay(cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """RePlay's metric classes on pandas frames (built through Polars)."""
    import warnings

    import polars as pl
    from replay import metrics as rm

    warnings.simplefilter("ignore")

    def one(case: dict[str, Any]) -> dict[str, Any]:
        inp = case["inputs"]
        rec = Recorder()
        recs = pl.DataFrame(
            {
                "query_id": [r[0] for r in inp["run"]],
                "item_id": [r[1] for r in inp["run"]],
                "rating": [float(r[2]) for r in inp["run"]],
            }
        )
        pos = [r for r in inp["truth"] if r[2] > 0]
        gt = pl.DataFrame(
            {"query_id": [r[0] for r in pos], "item_id": [r[1] for r in pos]},
            schema={"query_id": recs.schema["query_id"], "item_id": recs.schema["item_id"]},
        )
        train = pl.DataFrame(
            {"query_id": [r[0] for r in inp["interactions"]], "item_id": [r[1] for r in inp["interactions"]]},
            schema={"query_id": recs.schema["query_id"], "item_id": recs.schema["item_id"]},
        )
        base = pl.DataFrame(
            {
                "query_id": [r[0] for r in inp["reference"]],
                "item_id": [r[1] for r in inp["reference"]],
                "rating": [float(r[2]) for r in inp["reference"]],
            },
            schema=recs.schema,
        )
        # RePlay's Polars path groups users with an unordered group_by, so its float sums change
        # order (last bit) from run to run: the pandas path (sorted groupby) is deterministic
        schema = recs.schema
        recs, gt, train, base = (f.to_pandas() for f in (recs, gt, train, base))
        ks = list(KS)
        modes = [("Mean()", rm.Mean()), ("Median()", rm.Median()), ("ConfidenceInterval(alpha=0.95)", None)]

        def run(name: str, cls: Any, args: tuple[Any, ...], argtext: str, with_modes: bool = True) -> None:
            for mode_text, mode in modes if with_modes else modes[:1]:
                m_obj = rm.ConfidenceInterval(alpha=0.95) if mode is None else mode
                call = f"replay.metrics.{name}({ks}, mode={mode_text})({argtext})"
                try:
                    res = cls(ks, mode=m_obj)(*args) if with_modes else cls(ks)(*args)
                except Exception as exc:  # noqa: BLE001 - recorded as the case's error
                    for k in ks:
                        suffix = "" if mode_text == "Mean()" else "-" + mode_text.split("(")[0]
                        rec.fail(f"{name}{suffix}@{k}", exc, call)
                    continue
                for key, v in res.items():
                    rec.put(key, v, call)
            if with_modes:
                try:
                    res = cls(ks, mode=rm.PerUser())(*args)
                    for key, d in res.items():
                        rec.users(key, d)
                except Exception:  # noqa: BLE001 - per-user values are a convenience
                    pass

        for name in ("MAP", "NDCG", "Precision", "Recall", "MRR", "HitRate", "RocAuc"):
            run(name, getattr(rm, name), (recs, gt), "recs, gt")
        # the dict input can carry truth users without positives (an empty list): the
        # Polars/pandas frames cannot; users = list(ground_truth)
        gt_dict: dict[Any, list[Any]] = {}
        for r in inp["truth"]:
            gt_dict.setdefault(r[0], [])
            if r[2] > 0:
                gt_dict[r[0]].append(r[1])
        rec_dict: dict[Any, list[tuple[Any, float]]] = {}
        for r in inp["run"]:
            rec_dict.setdefault(r[0], []).append((r[1], float(r[2])))
        for name in ("MAP", "NDCG", "Precision", "Recall", "MRR", "HitRate", "RocAuc"):
            call = f"replay.metrics.{name}({ks})(recs_dict, gt_dict_with_empty)"
            try:
                res = getattr(rm, name)(ks)(rec_dict, gt_dict)
                for key, v in res.items():
                    rec.put(key + "/gt_with_empty_users", v, call)
            except Exception as exc:  # noqa: BLE001
                for k in ks:
                    rec.fail(f"{name}@{k}/gt_with_empty_users", exc, call)
        call = f"replay.metrics.Coverage({ks})(recs, train)"
        try:
            for key, v in rm.Coverage(ks)(recs, train).items():
                rec.put(key, v, call)
        except Exception as exc:  # noqa: BLE001
            for k in ks:
                rec.fail(f"Coverage@{k}", exc, call)
        run("Novelty", rm.Novelty, (recs, train), "recs, train")
        run("Surprisal", rm.Surprisal, (recs, train), "recs, train")
        run("Unexpectedness", rm.Unexpectedness, (recs, base), "recs, reference")
        cat_cols = [c for c in inp["item_columns"] if c.startswith("category")]
        for col in cat_cols:
            ci = inp["item_columns"].index(col)
            cat_of = {row[0]: row[ci] for row in inp["items"]}
            cat_recs = pl.DataFrame(
                {
                    "query_id": [r[0] for r in inp["run"]],
                    "category_id": [cat_of[r[1]] for r in inp["run"]],
                    "rating": [float(r[2]) for r in inp["run"]],
                },
                schema={"query_id": schema["query_id"], "category_id": pl.String, "rating": pl.Float64},
            ).to_pandas()
            for mode_text, mode in modes:
                m_obj = rm.ConfidenceInterval(alpha=0.95) if mode is None else mode
                call = f"replay.metrics.CategoricalDiversity({ks}, mode={mode_text})(category_recs[{col}])"
                try:
                    res = rm.CategoricalDiversity(ks, mode=m_obj)(cat_recs)
                    for key, v in res.items():
                        rec.put(key if col == "category" else f"{key}/{col}", v, call)
                except Exception as exc:  # noqa: BLE001
                    for k in ks:
                        rec.fail(f"CategoricalDiversity@{k}/{col}", exc, call)
            try:
                res = rm.CategoricalDiversity(ks, mode=rm.PerUser())(cat_recs)
                for key, d in res.items():
                    rec.users(key if col == "category" else f"{key}/{col}", d)
            except Exception:  # noqa: BLE001
                pass
        return rec.result()

    return [one(case) for case in cases]


def worker_recommenders(cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Recommenders' python_evaluation functions on pandas frames."""
    import warnings

    import numpy as np
    import pandas as pd
    from recommenders.evaluation import python_evaluation as pe

    warnings.simplefilter("ignore")

    def clear_caches() -> None:
        # lru_cache_df hashes object columns by their pointers: start every call afresh
        for obj in vars(pe).values():
            if callable(getattr(obj, "cache_clear", None)):
                obj.cache_clear()

    def one(case: dict[str, Any]) -> dict[str, Any]:
        inp = case["inputs"]
        rec = Recorder()
        int_ids = isinstance(inp["run"][0][0], int)
        id_dtype = "int64" if int_ids else "object"
        run = pd.DataFrame(inp["run"], columns=["userID", "itemID", "prediction"]).astype(
            {"userID": id_dtype, "itemID": id_dtype, "prediction": "float64"}
        )
        truth_all = pd.DataFrame(inp["truth"], columns=["userID", "itemID", "rating"]).astype(
            {"userID": id_dtype, "itemID": id_dtype, "rating": "int64"}
        )
        truth_pos = truth_all[truth_all["rating"] > 0].reset_index(drop=True)
        train = pd.DataFrame([r[:2] for r in inp["interactions"]], columns=["userID", "itemID"]).astype(
            {"userID": id_dtype, "itemID": id_dtype}
        )
        feats = pd.DataFrame(
            {
                "itemID": pd.Series([row[0] for row in inp["items"]], dtype=id_dtype),
                "features": [np.array(row[-1], dtype=float) for row in inp["items"]],
            }
        )

        def call(key: str, text: str, fn: Any, *args: Any, **kwargs: Any) -> Any:
            clear_caches()
            try:
                v = fn(*args, **kwargs)
            except Exception as exc:  # noqa: BLE001 - recorded as the case's error
                rec.fail(key, exc, text)
                return None
            if isinstance(v, pd.DataFrame):
                return v
            rec.put(key, v, text)
            return v

        for tname, truth in (("truth_pos", truth_pos), ("truth_all", truth_all)):
            suffix = "" if tname == "truth_pos" else "/truth_all_rows"
            for k in KS:
                common = "col_user='userID', col_item='itemID', col_prediction='prediction', "
                common += f"relevancy_method='top_k', k={k}"
                for fname in ("map_at_k", "map", "precision_at_k", "recall_at_k", "r_precision_at_k"):
                    call(
                        f"{fname}@{k}{suffix}",
                        f"recommenders.evaluation.python_evaluation.{fname}({tname}, run, {common})",
                        getattr(pe, fname),
                        truth.copy(),
                        run.copy(),
                        col_user="userID",
                        col_item="itemID",
                        col_prediction="prediction",
                        relevancy_method="top_k",
                        k=k,
                    )
                for score_type in ("binary", "raw", "exp"):
                    for disc in ("loge", "log2"):
                        key = (
                            "ndcg_at_k"
                            if (score_type, disc) == ("binary", "loge")
                            else (f"ndcg_at_k(score_type={score_type},discfun_type={disc})")
                        )
                        call(
                            f"{key}@{k}{suffix}",
                            f"recommenders.evaluation.python_evaluation.ndcg_at_k({tname}, run, {common}, "
                            f"col_rating='rating', score_type='{score_type}', discfun_type='{disc}')",
                            pe.ndcg_at_k,
                            truth.copy(),
                            run.copy(),
                            col_user="userID",
                            col_item="itemID",
                            col_rating="rating",
                            col_prediction="prediction",
                            relevancy_method="top_k",
                            k=k,
                            score_type=score_type,
                            discfun_type=disc,
                        )

        # beyond-accuracy: the whole run as given, then the run cut to each user's top k by score
        recos = [("", run[["userID", "itemID"]])]
        for k in KS:
            top = run.sort_values(["userID", "prediction"], ascending=[True, False]).groupby("userID").head(k)
            recos.append((f"@{k}", top[["userID", "itemID"]].reset_index(drop=True)))
        for sfx, reco in recos:
            reco_text = "run[['userID', 'itemID']]" if not sfx else f"top{sfx[1:]}(run)[['userID', 'itemID']]"
            cu = "col_user='userID', col_item='itemID'"
            for fname in ("catalog_coverage", "distributional_coverage", "novelty"):
                call(
                    f"{fname}{sfx}",
                    f"{PE}.{fname}(train_df=train, reco_df={reco_text}, {cu})",
                    getattr(pe, fname),
                    train_df=train.copy(),
                    reco_df=reco.copy(),
                    col_user="userID",
                    col_item="itemID",
                )
            for sim, extra in (
                ("item_cooccurrence_count", {}),
                ("item_feature_vector", {"item_feature_df": feats, "col_item_features": "features"}),
            ):
                extra_text = (
                    ", item_feature_df=items[['itemID', 'features']], col_item_features='features'"
                    if extra
                    else ""
                )
                for fname in ("diversity", "serendipity", "user_diversity", "user_serendipity"):
                    tag = "" if sim == "item_cooccurrence_count" else "(item_feature_vector)"
                    key = f"{fname}{tag}{sfx}"
                    text = (
                        f"{PE}.{fname}(train_df=train, reco_df={reco_text}, "
                        f"item_sim_measure='{sim}'{extra_text}, {cu})"
                    )
                    res = call(
                        key,
                        text,
                        getattr(pe, fname),
                        train_df=train.copy(),
                        reco_df=reco.copy(),
                        item_sim_measure=sim,
                        col_user="userID",
                        col_item="itemID",
                        **{kk: (vv.copy() if hasattr(vv, "copy") else vv) for kk, vv in extra.items()},
                    )
                    if res is None and fname.startswith("user_"):
                        rec.values.pop(key, None)  # per-user answers live in per_user; the error stays
                    if isinstance(res, pd.DataFrame):
                        col = res.columns[-1]
                        rec.users(key, dict(zip(res["userID"].tolist(), res[col].tolist(), strict=True)))
                        rec.calls[key] = text
        return rec.result()

    return [one(case) for case in cases]


def worker_torchmetrics(cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """TorchMetrics' retrieval classes on the run joined with the truth."""
    import warnings

    import torch
    from torchmetrics import retrieval as tr

    warnings.simplefilter("ignore")

    def one(case: dict[str, Any]) -> dict[str, Any]:
        inp = case["inputs"]
        rec = Recorder()
        grade = {(r[0], r[1]): r[2] for r in inp["truth"]}
        users = sorted({r[0] for r in inp["run"]}, key=lambda u: (str(type(u)), u))
        uidx = {u: j for j, u in enumerate(users)}
        preds = torch.tensor([float(r[2]) for r in inp["run"]], dtype=torch.float64)
        target = torch.tensor([int(grade.get((r[0], r[1]), 0) > 0) for r in inp["run"]], dtype=torch.long)
        graded = torch.tensor([int(grade.get((r[0], r[1]), 0)) for r in inp["run"]], dtype=torch.long)
        indexes = torch.tensor([uidx[r[0]] for r in inp["run"]], dtype=torch.long)

        def per_user(values: torch.Tensor, dim: int | None = None) -> torch.Tensor:
            return values

        specs: list[tuple[str, Any, dict[str, Any], torch.Tensor, str]] = []
        for k in KS:
            specs += [
                (f"RetrievalFallOut@{k}", tr.RetrievalFallOut, {"top_k": k}, target, "target"),
                (
                    f"RetrievalPrecision(adaptive_k=True)@{k}",
                    tr.RetrievalPrecision,
                    {"top_k": k, "adaptive_k": True},
                    target,
                    "target",
                ),
                (
                    f"RetrievalPrecision(adaptive_k=False)@{k}",
                    tr.RetrievalPrecision,
                    {"top_k": k, "adaptive_k": False},
                    target,
                    "target",
                ),
                (f"RetrievalNormalizedDCG@{k}", tr.RetrievalNormalizedDCG, {"top_k": k}, target, "target"),
                (
                    f"RetrievalNormalizedDCG(graded)@{k}",
                    tr.RetrievalNormalizedDCG,
                    {"top_k": k},
                    graded,
                    "graded",
                ),
                (f"RetrievalMAP@{k}", tr.RetrievalMAP, {"top_k": k}, target, "target"),
                (f"RetrievalRecall@{k}", tr.RetrievalRecall, {"top_k": k}, target, "target"),
                (f"RetrievalMRR@{k}", tr.RetrievalMRR, {"top_k": k}, target, "target"),
                (f"RetrievalHitRate@{k}", tr.RetrievalHitRate, {"top_k": k}, target, "target"),
            ]
        for name, cls, kwargs, tgt, tgt_name in specs:
            base = name.split("(")[0].split("@")[0]
            args = ", ".join(f"{a}={v!r}" for a, v in kwargs.items())
            for action in ("neg", "skip", "pos"):
                key = f"{name}/{action}"
                text = (
                    f"m = torchmetrics.retrieval.{base}({args}, empty_target_action='{action}'); "
                    f"m.update(preds, {tgt_name}, indexes=indexes); m.compute()"
                )
                try:
                    m = cls(empty_target_action=action, **kwargs)
                    m.update(preds, tgt, indexes=indexes)
                    rec.put(key, m.compute().item(), text)
                except Exception as exc:  # noqa: BLE001
                    rec.fail(key, exc, text)
            try:
                m = cls(empty_target_action="neg", aggregation=per_user, **kwargs)
                m.update(preds, tgt, indexes=indexes)
                vals = m.compute().tolist()
                rec.users(f"{name}/neg", dict(zip(users, vals, strict=True)))
            except Exception:  # noqa: BLE001
                pass
        return rec.result()

    return [one(case) for case in cases]


#: The module the Recommenders calls name.
PE = "recommenders.evaluation.python_evaluation"

WORKERS = {"replay": worker_replay, "recommenders": worker_recommenders, "torchmetrics": worker_torchmetrics}


def worker_versions(name: str) -> dict[str, str]:
    """Versions of the oracle's packages in this venv."""
    from importlib.metadata import version

    out = {p: version(p) for p in ORACLES[name]["versions"]}
    out["python"] = sys.version.split()[0]
    return out


# --------------------------------------------------------------------------------------------
# Docstring examples (worker side)
# --------------------------------------------------------------------------------------------


def _parse_frame(text: str) -> dict[str, Any]:
    """A pandas frame as printed in a docstring: columns and rows (the index dropped)."""
    lines = [ln for ln in text.strip("\n").splitlines() if ln.strip()]
    columns = lines[0].split()
    rows = []
    for ln in lines[1:]:
        cells = ln.split()[1:]
        rows.append([int(c) if c.lstrip("-").isdigit() else float(c) for c in cells])
    return {"columns": columns, "rows": rows}


def docs_worker(name: str) -> list[dict[str, Any]]:
    """The library's own docstring examples for the measures, parsed with doctest."""
    import doctest
    import importlib
    import inspect
    from importlib.metadata import version

    parser = doctest.DocTestParser()
    targets: list[tuple[str, str]]
    if name == "replay":
        targets = [
            ("replay.metrics", n)
            for n in (
                "MAP",
                "NDCG",
                "Precision",
                "Recall",
                "MRR",
                "HitRate",
                "RocAuc",
                "Coverage",
                "Novelty",
                "Surprisal",
                "Unexpectedness",
                "CategoricalDiversity",
            )
        ]
        pkg = "replay-rec"
    elif name == "recommenders":
        targets = [
            ("recommenders.evaluation.python_evaluation", n)
            for n in (
                "map_at_k",
                "map",
                "ndcg_at_k",
                "precision_at_k",
                "recall_at_k",
                "catalog_coverage",
                "distributional_coverage",
                "novelty",
                "serendipity",
                "diversity",
                "user_diversity",
                "user_serendipity",
            )
        ]
        pkg = "recommenders"
    else:
        targets = []
        for n in (
            "RetrievalFallOut",
            "RetrievalPrecision",
            "RetrievalNormalizedDCG",
            "RetrievalMAP",
            "RetrievalRecall",
            "RetrievalMRR",
            "RetrievalHitRate",
        ):
            targets.append(("torchmetrics.retrieval", n))
        for n in (
            "retrieval_fall_out",
            "retrieval_precision",
            "retrieval_normalized_dcg",
            "retrieval_average_precision",
            "retrieval_recall",
            "retrieval_reciprocal_rank",
            "retrieval_hit_rate",
        ):
            targets.append(("torchmetrics.functional.retrieval", n))
        pkg = "torchmetrics"
    out = []
    for mod_name, obj_name in targets:
        obj = getattr(importlib.import_module(mod_name), obj_name)
        src = inspect.getsourcefile(inspect.unwrap(obj)) or ""
        rel = src[src.find("site-packages/") + len("site-packages/") :] if "site-packages/" in src else src
        doc = inspect.getdoc(obj) or ""
        examples = []
        frames: dict[str, Any] = {}
        for ex in parser.get_examples(doc):
            if ".. plot::" in doc and "plot(" in ex.source:
                continue  # the plotting examples (random data, a figure) are no measure cases
            if "fig" in ex.source or "plot" in ex.source:
                continue
            item = {"source": ex.source.rstrip("\n"), "want": ex.want.rstrip("\n")}
            if name == "replay" and ex.source.strip().isidentifier() and ex.want:
                frames[ex.source.strip()] = _parse_frame(ex.want)
            examples.append(item)
        entry: dict[str, Any] = {
            "library": pkg,
            "version": version(pkg),
            "object": f"{mod_name}.{obj_name}",
            "source_file": rel,
            "examples": examples,
        }
        if frames:
            entry["frames"] = frames
            entry["frames_note"] = (
                "inputs as printed in the docstring (pandas frames; the doctest namespace defines them in "
                "RePlay's test conftest); rows without the printed index"
            )
            entry["reproduced"] = _rerun_replay_doc(obj_name, examples, frames)
        if not examples:
            entry["note"] = "the docstring has no example"
        out.append(entry)
    if name == "recommenders":
        out.append(_recommenders_notebook())
    return out


#: Recommenders' documentation example: the dummy data and printed outputs of
#: examples/03_evaluate/evaluation.ipynb (repository recommenders-team/recommenders, file version
#: at commit 20cc85bc03b47250eee2af6e645588bb6edba886; executed with pandas 0.23.4 / PySpark 2.3.1),
#: transcribed. Its ranking values come from SparkRankingEvaluation(k=3, relevancy_method="top_k"),
#: not from python_evaluation: the worker computes python_evaluation on the same frames beside them.
NOTEBOOK = {
    "df_true": {
        "UserId": [1, 1, 1, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3],
        "MovieId": [1, 2, 3, 1, 4, 5, 6, 7, 2, 5, 6, 8, 9, 10, 11, 12, 13, 14],
        "Rating": [5, 4, 3, 5, 5, 3, 3, 1, 5, 5, 5, 4, 4, 3, 3, 3, 2, 1],
    },
    "df_pred": {
        "UserId": [1, 1, 1, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3],
        "MovieId": [3, 10, 12, 10, 3, 5, 11, 13, 4, 10, 7, 13, 1, 3, 5, 2, 11, 14],
        "Rating": [14, 13, 12, 14, 13, 12, 11, 10, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5],
    },
    "outputs": [
        ("spark_rank_eval.precision_at_k()", "precision_at_k", "The precision at k is 0.3333333333333333"),
        ("spark_rank_eval.recall_at_k()", "recall_at_k", "The recall at k is 0.2111111111111111"),
        ("spark_rank_eval.ndcg_at_k()", "ndcg_at_k", "The ndcg at k is 0.3333333333333333"),
        ("spark_rank_eval.map_at_k()", "map_at_k", "The map at k is 0.15"),
    ],
}


def _recommenders_notebook() -> dict[str, Any]:
    """The notebook example, with python_evaluation's values on the same frames."""
    import pandas as pd
    from recommenders.evaluation import python_evaluation as pe

    true = pd.DataFrame(NOTEBOOK["df_true"])
    pred = pd.DataFrame(NOTEBOOK["df_pred"])
    cols = {"col_user": "UserId", "col_item": "MovieId", "col_prediction": "Rating"}
    examples = []
    for call, fname, printed in NOTEBOOK["outputs"]:
        for obj in vars(pe).values():
            if callable(getattr(obj, "cache_clear", None)):
                obj.cache_clear()
        extra = {"col_rating": "Rating"} if fname == "ndcg_at_k" else {}
        try:
            got: Any = float(
                getattr(pe, fname)(true.copy(), pred.copy(), relevancy_method="top_k", k=3, **cols, **extra)
            )
        except Exception as exc:  # noqa: BLE001
            got = f"{type(exc).__name__}: {exc}"
        rating = ", col_rating='Rating'" if extra else ""
        examples.append(
            {
                "source": f'print("...".format({call}))',
                "want": printed,
                "python_evaluation": f"{fname}(df_true, df_pred, col_user='UserId', col_item='MovieId', "
                f"col_prediction='Rating'{rating}, relevancy_method='top_k', k=3) = {got!r}",
            }
        )
    return {
        "library": "recommenders",
        "version": "notebook file at commit 20cc85bc03b47250eee2af6e645588bb6edba886 (pre-1.2.1 run)",
        "object": "recommenders.evaluation.spark_evaluation.SparkRankingEvaluation(dfs_true, dfs_pred, k=3, "
        "relevancy_method='top_k', col_user='UserId', col_item='MovieId', col_rating='Rating', "
        "col_prediction='Rating')",
        "source_file": "examples/03_evaluate/evaluation.ipynb (recommenders-team/recommenders)",
        "frames": {k: NOTEBOOK[k] for k in ("df_true", "df_pred")},
        "frames_note": "every df_true row counts as relevant (ratings are not thresholded for these metrics)",
        "examples": examples,
    }


def _rerun_replay_doc(
    obj_name: str, examples: list[dict[str, str]], frames: dict[str, Any]
) -> dict[str, Any]:
    """Runs the docstring's calls again on the transcribed pandas frames; which outputs match."""
    import pandas as pd
    from replay import metrics as rm

    ns: dict[str, Any] = {n: pd.DataFrame(f["rows"], columns=f["columns"]) for n, f in frames.items()}
    ns.update({n: getattr(rm, n) for n in dir(rm) if not n.startswith("_")})
    result = {}
    for ex in examples:
        src = ex["source"]
        if src.strip() in frames or src.startswith("from "):
            continue
        try:
            got = eval(src, ns)  # noqa: S307 - the library's own docstring call
            want = ex["want"].replace("<BLANKLINE>", "")  # the docstrings end on a blank output line
            result[src] = " ".join(repr(got).split()) == " ".join(want.split())
        except Exception as exc:  # noqa: BLE001
            result[src] = f"{type(exc).__name__}: {exc}"
    return result


# --------------------------------------------------------------------------------------------
# Driver
# --------------------------------------------------------------------------------------------


def ensure_venv(name: str) -> Path:
    """The oracle's venv, created and installed on first use; its python."""
    env = ORACLE_ROOT / name
    py = env / "bin" / "python"
    stamp = env / ".rankframe-installed"
    want = json.dumps(ORACLES[name]["steps"])
    if stamp.exists() and stamp.read_text() == want:
        return py
    ORACLE_ROOT.mkdir(parents=True, exist_ok=True)
    if not py.exists():
        subprocess.run([sys.executable, "-m", "venv", str(env)], check=True)
    for step in ORACLES[name]["steps"]:
        print(f"[{name}] pip install {' '.join(step)}", file=sys.stderr)
        subprocess.run([str(py), "-m", "pip", "install", "--quiet", *step], check=True)
    stamp.write_text(want)
    return py


def run_worker(name: str, py: Path, payload: dict[str, Any], mode: str) -> Any:
    """Runs this file in the oracle's venv; its JSON answer."""
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "in.json"
        dst = Path(tmp) / "out.json"
        src.write_text(json.dumps(payload))
        env = dict(os.environ, PYTHONHASHSEED="0", CUDA_VISIBLE_DEVICES="", OMP_NUM_THREADS="1")
        subprocess.run(
            [str(py), str(Path(__file__).resolve()), mode, name, str(src), str(dst)], check=True, env=env
        )
        return json.loads(dst.read_text())


def _dump(obj: Any, path: Path) -> None:
    """JSON with one line per case row (short lines, stable bytes)."""
    text = json.dumps(obj, indent=1, ensure_ascii=False, allow_nan=False)
    path.write_text(text + "\n")


def main() -> None:
    """Build the cases, run the three oracles, write the two JSON files."""
    cases = [make_case(seed, nu, ni, flags) for seed, nu, ni, flags in CASES]
    payload = {"cases": [{"inputs": c["inputs"]} for c in cases]}
    versions: dict[str, Any] = {}
    results: dict[str, list[dict[str, Any]] | None] = {}
    docs: list[dict[str, Any]] = []
    failures: dict[str, str] = {}
    for name in ORACLES:
        try:
            py = ensure_venv(name)
        except subprocess.CalledProcessError as exc:
            failures[name] = f"could not be installed: {exc}"
            results[name] = None
            continue
        answer = run_worker(name, py, payload, "--worker")
        versions[name] = answer["versions"]
        results[name] = answer["results"]
        docs += run_worker(name, py, {}, "--docs")
    versions["python"] = sys.version.split()[0]
    out_cases = []
    for j, c in enumerate(cases):
        entry: dict[str, Any] = {"seed": c["seed"], "spec": c["spec"], "inputs": c["inputs"]}
        entry["values"] = {n: (r[j]["values"] if r else None) for n, r in results.items()}
        entry["calls"] = {n: (r[j]["calls"] if r else None) for n, r in results.items()}
        entry["errors"] = {n: (r[j]["errors"] if r else failures.get(n)) for n, r in results.items()}
        entry["per_user"] = {n: (r[j]["per_user"] if r else None) for n, r in results.items()}
        out_cases.append(entry)
    golden = {
        "versions": versions,
        "generated_by": "tests/oracles/recsys_golden.py",
        "ks": list(KS),
        "oracle_inputs": ORACLE_INPUTS,
        "install_failures": failures,
        "cases": out_cases,
    }
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    _dump(golden, GOLDEN)
    _dump({"generated_by": "tests/oracles/recsys_golden.py", "cases": docs}, DOCSTRINGS)
    n_values = sum(len(v) for c in out_cases for v in c["values"].values() if v)
    print(f"wrote {GOLDEN.relative_to(REPO)}: {len(out_cases)} cases, {n_values} values", file=sys.stderr)


#: What each library was given, named as in the calls.
ORACLE_INPUTS = {
    "replay": {
        "recs": "pandas.DataFrame(query_id=user, item_id=item, rating=score) of the whole run "
        "(RePlay sorts it)",
        "gt": "pandas.DataFrame(query_id, item_id) of the truth rows with rel > 0 "
        "(users without a positive are absent)",
        "recs_dict": "{user: [(item, score), ...]} of the whole run",
        "gt_dict_with_empty": "{user: [items with rel > 0]} with every truth user, "
        "[] for those without a positive",
        "train": "pandas.DataFrame(query_id, item_id) of all interaction rows "
        "(weights ignored, repeats kept)",
        "reference": "pandas.DataFrame(query_id, item_id, rating=score) of the reference run",
        "category_recs[col]": "pandas.DataFrame(query_id, category_id=items[col] of the item, rating=score), "
        "one row per run row",
    },
    "recommenders": {
        "truth_pos": "pandas.DataFrame(userID, itemID, rating=rel) of the truth rows with rel > 0",
        "truth_all": "pandas.DataFrame(userID, itemID, rating=rel) of all truth rows (rel 0 rows included)",
        "run": "pandas.DataFrame(userID, itemID, prediction=score) of the whole run",
        "train": "pandas.DataFrame(userID, itemID) of all interaction rows (weights dropped, repeats kept)",
        "topK(run)": "the run cut to each user's K highest scores (cut here, before the call: Recommenders' "
        "beyond-accuracy functions take the recommendations as given)",
        "items": "pandas.DataFrame(itemID, features=numpy array of the 4 floats) of the catalogue",
        "note": "ids keep their type (object strings or int64); every call is made with cleared lru caches",
    },
    "torchmetrics": {
        "preds": "float64 tensor of the run's scores (TorchMetrics casts it to float32)",
        "target": "long tensor: 1 where the truth has the (user, item) with rel > 0, else 0 (run items "
        "missing from the truth are non-relevant; truth items missing from the run are not seen)",
        "graded": "long tensor of the truth grade of the (user, item), 0 where missing",
        "indexes": "long tensor: the user's position in the sorted list of the run's users",
        "per_user": "per-user values from aggregation=lambda values, dim=None: values with "
        "empty_target_action='neg'",
    },
}


def cli() -> None:
    """Entry point: the driver, or a worker inside an oracle venv."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--worker", nargs=3, metavar=("NAME", "IN", "OUT"))
    p.add_argument("--docs", nargs=3, metavar=("NAME", "IN", "OUT"))
    a = p.parse_args()
    if a.worker:
        name, src, dst = a.worker
        payload = json.loads(Path(src).read_text())
        res = {"versions": worker_versions(name), "results": WORKERS[name](payload["cases"])}
        Path(dst).write_text(json.dumps(res, allow_nan=True))
    elif a.docs:
        name, _src, dst = a.docs
        Path(dst).write_text(json.dumps(docs_worker(name)))
    else:
        main()


if __name__ == "__main__":
    cli()
