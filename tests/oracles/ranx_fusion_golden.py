"""Golden values for rank fusion, computed by ranx (``ranx.fuse``).

This is an oracle script, not a test: it writes ``tests/data/fusion/ranx_golden.json`` so that
``tests/test_fusion.py`` compares :func:`rankframe.fuse` with ranx without paying ranx's numba
compilation (minutes on first call). rankframe itself never imports ranx.

Run it from the repository root with the ranx the tests name (0.3.21)::

    python tests/oracles/ranx_fusion_golden.py

The cases are small runs made from fixed seeds (scores drawn from a few values, so that ties are
common; documents and queries missing from some runs), plus the fixtures of ranx's own unit
tests. Every method x normalisation ranx has is recorded, except the combinations whose ranx
result is not defined: rank-reading methods after ``norm="borda"`` (ranx lists the added
candidates in Python's set order), and Condorcet on queries where the runs' pairwise majorities
do not order the documents (ranx's result then depends on that order too: such queries are
listed under ``undefined``). Each run ranks at most 15 documents per query, where numba's sort,
which orders ranx's runs, is stable (ties in input order).
"""

from __future__ import annotations

import json
import random
from importlib.metadata import version
from itertools import combinations
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "data" / "fusion" / "ranx_golden.json"

METHODS = [
    "min",
    "max",
    "med",
    "sum",
    "anz",
    "mnz",
    "gmnz",
    "isr",
    "log_isr",
    "logn_isr",
    "rrf",
    "rbc",
    "bordafuse",
    "w_bordafuse",
    "condorcet",
    "w_condorcet",
    "wsum",
    "wmnz",
    "mixed",
]
NORMS = [None, "min-max", "min-max-inverted", "max", "sum", "zmuv", "rank", "borda"]
READS_RANKS = {
    "isr",
    "log_isr",
    "logn_isr",
    "rrf",
    "rbc",
    "bordafuse",
    "w_bordafuse",
    "condorcet",
    "w_condorcet",
}


def params_for(method: str, runs: int) -> dict:
    """The parameters each case passes (the tests pass the same)."""
    if method == "gmnz":
        return {"gamma": 0.7}
    if method == "rbc":
        return {"phi": 0.8}
    if method == "logn_isr":
        return {"sigma": 0.05}
    if method == "rrf":
        return {"k": 10}
    if method in {"w_bordafuse", "w_condorcet", "wsum", "wmnz", "mixed"}:
        return {"weights": [0.5, 1.0, 2.0, 0.25][:runs]}
    return {}


def random_case(seed: int, runs: int = 3, queries: int = 3) -> list[dict]:
    rng = random.Random(seed)
    out = []
    for r in range(runs):
        run = {}
        for q in range(queries):
            if r > 0 and rng.random() < 0.2:
                continue  # a query this run retrieved nothing for
            docs = rng.sample(range(12), rng.randint(1, 8))
            run[f"q{q}"] = {f"d{d}": rng.choice([3.0, 2.0, 2.0, 1.5, 1.0, 0.5, -1.0]) for d in docs}
        out.append(run)
    return out


UNIT_CASES = {
    # ranx's tests/unit/ranx/fusion/condorcet_test.py and normalization/borda_norm_test.py
    "ranx_condorcet": [
        {"q1": {"d1": 1, "d2": 2, "d3": 3}, "q2": {"d1": 1, "d2": 2}},
        {"q1": {"d1": 2, "d2": 3}, "q2": {"d1": 1, "d3": 3}},
        {"q1": {"d3": 3}, "q2": {"d2": 2, "d3": 3}},
    ],
    "ranx_borda_norm": [
        {"q1": {"d1": 1, "d2": 2, "d3": 3}, "q2": {"d1": 1, "d2": 2}},
        {"q1": {"d1": 3, "d2": 2}, "q2": {"d1": 1, "d3": 3}},
        {"q1": {"d3": 1}, "q2": {"d2": 2, "d3": 3}},
    ],
    # ranx's tests/unit/ranx/fusion/rbc_test.py
    "ranx_rbc": [
        {"q1": {"A": 7, "B": 6, "C": 5, "D": 4, "E": 3, "F": 2, "G": 1}},
        {"q1": {"B": 7, "A": 6, "E": 5, "C": 4, "D": 3}},
        {"q1": {"D": 7, "G": 6, "B": 5, "A": 4, "F": 3, "E": 2, "C": 1}},
        {"q1": {"A": 7, "D": 6, "C": 5, "B": 4, "G": 3, "F": 2}},
    ],
}


def all_cases() -> dict[str, list[dict]]:
    """The untrained cases' runs, in the order ranx reads them (the JSON sorts their keys)."""
    cases = {f"seed{s}": random_case(s) for s in range(4)}
    cases["four_runs"] = random_case(10, runs=4, queries=2)
    cases.update(UNIT_CASES)
    return cases


def trained_runs(seed: int) -> tuple[list[dict], dict]:
    """A trained case's runs and judgments."""
    runs = random_case(100 + seed)
    return runs, random_qrels(seed, runs)


def condorcet_undefined(runs: list[dict], weights: list[float] | None) -> list[str]:
    """The queries where ranx's Condorcet comparator does not define one order."""
    w = weights or [1.0] * len(runs)
    undefined = []
    for q in runs[0]:
        ranked = [sorted(r.get(q, {}), key=lambda d, r=r: -r[q][d]) for r in runs]  # stable: input order
        pos = [{d: i for i, d in enumerate(lst)} for lst in ranked]
        docs = sorted({d for lst in ranked for d in lst})
        wins = dict.fromkeys(docs, 0)
        ok = True
        for x, y in combinations(docs, 2):
            a = sum(wi for wi, p in zip(w, pos, strict=True) if p.get(x, 10**6) < p.get(y, 10**6))
            b = sum(wi for wi, p in zip(w, pos, strict=True) if p.get(y, 10**6) < p.get(x, 10**6))
            total = sum(w)
            x_first = a >= total - a  # ranx's _compare(x, y)
            y_first = b >= total - b  # ranx's _compare(y, x)
            if x_first == y_first:
                ok = False
            wins[x if x_first else y] += 1
        if not ok or sorted(wins.values()) != list(range(len(docs))):
            undefined.append(q)
    return undefined


TRAINED = {
    "posfuse": {},
    "probfuse": {"n_segments": 3},
    "segfuse": {},
    "slidefuse": {"w": 1},
    "mapfuse": {},
    "bayesfuse": {},
}


def random_qrels(seed: int, runs: list[dict]) -> dict:
    """Judgments of every query of the runs (ranx pairs qrels and runs query by query)."""
    rng = random.Random(seed)
    queries = sorted({q for r in runs for q in r})
    return {q: {f"d{d}": rng.choice([0, 0, 1, 2]) for d in range(0, 12, 2)} for q in queries}


def trained_cases(ranx, Run, Qrels) -> dict:  # noqa: ANN001, N803
    """ranx's learnt values and fused runs for the trained methods (norm None and min-max)."""
    from ranx import fusion

    out = {}
    for seed in range(3):
        runs, qrels = trained_runs(seed)
        queries = sorted({q for r in runs for q in r})
        padded = [{q: r.get(q, {}) for q in queries} for r in runs]
        results, learnt = {}, {}
        for method, extra in TRAINED.items():
            ranx_runs = [Run(r, name=f"r{i}") for i, r in enumerate(padded)]
            trainer = getattr(fusion, f"{method}_train")
            args = [extra["n_segments"]] if method == "probfuse" else []
            values = trainer(Qrels(qrels), ranx_runs, *args)
            key = {"mapfuse": "map_scores", "bayesfuse": "log_odds"}.get(method, "probs")
            values = (
                [float(v) for v in values] if key == "map_scores" else [list(map(float, v)) for v in values]
            )
            learnt[method] = {key: values}
            params = {key: values, **{k: v for k, v in extra.items() if k != "n_segments"}}
            for norm in (None, "min-max"):
                fused = ranx.fuse(ranx_runs, norm=norm, method=method, params=params)
                results[f"{method}|{norm}"] = {q: dict(d) for q, d in fused.run.items() if len(d)}
        out[f"trained{seed}"] = {"runs": runs, "qrels": qrels, "learnt": learnt, "results": results}
    return out


def main() -> None:
    import ranx
    from ranx import Qrels, Run

    cases = all_cases()
    out = {"ranx_version": version("ranx"), "cases": {}}
    for name, runs in cases.items():
        queries = sorted({q for r in runs for q in r})
        padded = [{q: r.get(q, {}) for q in queries} for r in runs]
        results = {}
        undefined = {}
        for method in METHODS:
            params = params_for(method, len(runs))
            for norm in NORMS:
                if norm == "borda" and method in READS_RANKS:
                    continue
                ranx_runs = [Run(r, name=f"r{i}") for i, r in enumerate(padded)]
                fused = ranx.fuse(ranx_runs, norm=norm, method=method, params=params)
                key = f"{method}|{norm}"
                results[key] = {q: dict(docs) for q, docs in fused.run.items() if len(docs)}
                if method in {"condorcet", "w_condorcet"}:
                    # the order the comparator sees is the normalised runs' (inverted for min-max-inverted)
                    if norm == "min-max-inverted":
                        normed = [
                            {q: {d: -s for d, s in docs.items()} for q, docs in r.items()} for r in padded
                        ]
                    else:
                        normed = padded
                    undefined[key] = condorcet_undefined(normed, params.get("weights"))
        out["cases"][name] = {"runs": runs, "results": results, "condorcet_undefined": undefined}
        print(name, flush=True)
    out["trained"] = trained_cases(ranx, Run, Qrels)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(out, sort_keys=True) + "\n")
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
