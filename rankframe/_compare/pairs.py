"""Testing the compared pairs of one measure's query x run matrix, with a progress bar on stderr."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import polars as pl


class _Bar:
    """A progress bar on stderr for resampling tests (one line, redrawn at most 10 times a second)."""

    def __init__(self, total: int, label: str) -> None:
        self.total, self.label, self.done, self.last = total, label, 0, 0.0

    def advance(self, step: int) -> None:
        self.done += step
        now = time.monotonic()
        if now - self.last < 0.1 and self.done < self.total:
            return
        self.last = now
        width = 30
        filled = int(width * self.done / max(self.total, 1))
        print(
            f"\r{self.label} [{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total}",
            end="" if self.done < self.total else "\n", file=sys.stderr, flush=True,
        )


def _follow(bar: _Bar) -> Callable[[int, int], None]:
    """A ``progress(done, total)`` callback of one resampling run that advances ``bar``."""
    seen = [0]

    def progress(done: int, total: int) -> None:
        bar.advance(done - seen[0])
        seen[0] = done

    return progress


def _pairs_schema(per_query: pl.DataFrame, by: tuple[str, ...]) -> dict[str, pl.DataType]:
    f, i = pl.Float64(), pl.Int64()
    return {
        **{c: per_query.schema[c] for c in by}, "measure": pl.String(), "baseline": pl.String(),
        "run": pl.String(), "n": i, "diff": f, "ci_low": f, "ci_high": f, "statistic": f,
        "p_value": f, "p_adjusted": f, "significant": pl.Boolean(), "effect_size": f,
        "wins": i, "ties": i, "losses": i, "test": pl.String(), "correction": pl.String(),
    }


def _test_pairs(
    x: np.ndarray,
    pairs_idx: list[tuple[int, int]],
    run_names: list[str],
    labels: dict[str, Any],
    *,
    test: str,
    correction: str,
    alpha: float,
    confidence: float,
    n_permutations: int,
    n_bootstrap: int,
    seed: int,
    bar: _Bar | None,
) -> list[dict[str, Any]]:
    """Test every pair of one (group, measure) matrix at once; rows of the pairs frame."""
    from rankframe._compare import stats as _stats

    base = np.array([i for i, _ in pairs_idx])
    other = np.array([j for _, j in pairs_idx])
    d = x[:, other] - x[:, base]
    n = x.shape[0]
    progress = None if bar is None else _follow(bar)
    diff = d.mean(axis=0)
    _, low, high = _stats.mean_ci(d, confidence)
    if test == "t":
        stat, p = _stats.paired_t(d)
    elif test == "wilcoxon":
        stat, p = _stats.wilcoxon(d)
    elif test == "permutation":
        stat, p = _stats.permutation(d, n_permutations, seed, progress=progress)
    elif test == "bootstrap":
        p, low, high = _stats.bootstrap(d, n_bootstrap, seed, confidence, progress=progress)
        stat = diff
    else:  # tukey: all pairs of the matrix, then those asked for, oriented run - baseline
        pairs, t_diff, t_p, t_low, t_high = _stats.tukey_hsd(x, confidence=confidence)
        where = {(int(a), int(b)): k for k, (a, b) in enumerate(np.asarray(pairs))}
        stat, p = np.empty(len(pairs_idx)), np.empty(len(pairs_idx))
        low, high = np.empty(len(pairs_idx)), np.empty(len(pairs_idx))
        for k, (i, j) in enumerate(pairs_idx):
            kk, sign = (where[(i, j)], 1.0) if (i, j) in where else (where[(j, i)], -1.0)
            # tukey_hsd's diff is column b minus column a for its pair (a, b)
            stat[k], p[k] = sign * t_diff[kk], t_p[kk]
            low[k], high[k] = sorted((sign * t_low[kk], sign * t_high[kk]))
    adjusted = p if test == "tukey" else _stats.correct(p, correction)
    return _rows(
        pairs_idx, run_names, labels, alpha=alpha, test=test,
        correction="tukey" if test == "tukey" else correction, n=np.full(len(pairs_idx), n),
        diff=diff, low=low, high=high, stat=stat, p=p, adjusted=adjusted,
        effect=_stats.effect_size(d), counts=_stats.wins_ties_losses(d),
    )


def _rows(
    pairs_idx: list[tuple[int, int]],
    run_names: list[str],
    labels: dict[str, Any],
    *,
    alpha: float,
    test: str,
    correction: str,
    counts: tuple[np.ndarray, np.ndarray, np.ndarray],
    **values: np.ndarray,
) -> list[dict[str, Any]]:
    """The pairs frame's rows, one per pair of ``pairs_idx``.

    ``values`` (n, diff, low, high, stat, p, adjusted, effect) and ``counts`` (wins, ties,
    losses) hold one entry per pair.
    """
    v = values
    wins, ties, losses = counts
    return [
        {
            **labels, "baseline": run_names[i], "run": run_names[j], "n": int(v["n"][k]),
            "diff": float(v["diff"][k]), "ci_low": float(v["low"][k]), "ci_high": float(v["high"][k]),
            "statistic": float(v["stat"][k]), "p_value": float(v["p"][k]),
            "p_adjusted": float(v["adjusted"][k]), "significant": bool(v["adjusted"][k] < alpha),
            "effect_size": float(v["effect"][k]), "wins": int(wins[k]), "ties": int(ties[k]),
            "losses": int(losses[k]), "test": test, "correction": correction,
        }
        for k, (i, j) in enumerate(pairs_idx)
    ]


#: The unpaired test of each paired test's name (runs whose query sets differ).
UNPAIRED = {"t": "welch", "wilcoxon": "mann-whitney", "permutation": "permutation-unpaired",
            "bootstrap": "bootstrap-unpaired"}


def _test_unpaired(
    x: np.ndarray,
    pairs_idx: list[tuple[int, int]],
    run_names: list[str],
    labels: dict[str, Any],
    *,
    test: str,
    correction: str,
    alpha: float,
    confidence: float,
    n_permutations: int,
    n_bootstrap: int,
    seed: int,
) -> list[dict[str, Any]]:
    """Test every pair of one (group, measure) matrix whose runs miss queries (NaN), unpaired.

    Each run's sample: its scored queries (the finite values of its column). The interval of
    the difference is Welch's (the bootstrap's percentile interval for ``"bootstrap"``); the
    effect size Cohen's d; wins, ties and losses count the queries both runs scored.
    """
    from rankframe._compare import stats as _stats
    from rankframe._compare import unpaired as _u

    kind = UNPAIRED[test]
    cols = [x[np.isfinite(x[:, j]), j] for j in range(x.shape[1])]
    names = ("n", "diff", "low", "high", "stat", "p", "effect", "wins", "ties", "losses")
    out: dict[str, list[float]] = {name: [] for name in names}
    for i, j in pairs_idx:
        a, b = cols[i], cols[j]
        diff = float(b.mean() - a.mean()) if len(a) and len(b) else float("nan")
        stat, p, low, high = _u.welch(a, b, confidence)
        if kind == "mann-whitney":
            stat, p = _u.mann_whitney(a, b)
        elif kind == "permutation-unpaired":
            stat, p = _u.permutation(a, b, n_permutations, seed)
        elif kind == "bootstrap-unpaired":
            p, low, high = _u.bootstrap(a, b, n_bootstrap, seed, confidence)
            stat = diff
        both = np.isfinite(x[:, i]) & np.isfinite(x[:, j])
        d = (x[both, j] - x[both, i])[:, None]
        wtl = [int(c[0]) for c in _stats.wins_ties_losses(d)] if both.any() else [0, 0, 0]
        for name, value in zip(names, [len(a) + len(b), diff, low, high, stat, p,
                                       _u.effect_size(a, b), *wtl], strict=True):
            out[name].append(value)
    values = {name: np.asarray(v, dtype=np.float64) for name, v in out.items()}
    p = values["p"]
    adjusted = _stats.correct(np.where(np.isfinite(p), p, 1.0), correction) if len(p) else p
    values["adjusted"] = np.where(np.isfinite(p), adjusted, np.nan)
    counts = (values.pop("wins"), values.pop("ties"), values.pop("losses"))
    return _rows(pairs_idx, run_names, labels, alpha=alpha, test=kind, correction=correction,
                 counts=counts, **values)
