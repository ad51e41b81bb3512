"""ranx's ``compare``: every run's per-query values from one plan, then ranx's tests and counts."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import polars as pl

from rankframe._compare.stats import paired_t, permutation, tukey_hsd
from rankframe._errors import InputError
from rankframe.compat.ranx._evaluate import as_frame
from rankframe.compat.ranx._scoring import parse, per_query
from rankframe.compat.ranx.data_structures import Qrels, Report, Run
from rankframe.compat.ranx.data_structures.report import FrozensetDict

_TESTS = ("student", "fisher", "tukey")


def _p_values(x: np.ndarray, stat_test: str, n_permutations: int, seed: int) -> dict[tuple[int, int], float]:
    """Two-sided p-value of each pair of columns of ``x`` (queries x models).

    Typed as ranx's: numpy ``float64`` for the t-test and Tukey's (scipy's), ``float`` for the
    randomization test.
    """
    k = x.shape[1]
    pairs = [(i, j) for i in range(k) for j in range(i + 1, k)]
    if stat_test == "tukey":
        idx, _diff, p, _low, _high = tukey_hsd(x, design="independent")  # as ranx (scipy's)
        return {(int(a), int(b)): np.float64(v) for (a, b), v in zip(idx, p, strict=True)}
    d = np.column_stack([x[:, j] - x[:, i] for i, j in pairs]) if pairs else np.empty((x.shape[0], 0))
    if stat_test == "student":
        p = paired_t(d)[1]
        p = np.where(np.all(d == 0, axis=0), 1.0, p)  # identical columns: no difference
    else:
        p = permutation(d, n_permutations=n_permutations, seed=seed)[1]
    kind = np.float64 if stat_test == "student" else float
    return {pair: kind(v) for pair, v in zip(pairs, p, strict=True)}


def compare(
    qrels: Qrels,
    runs: Sequence[Run],
    metrics: str | Sequence[str],
    stat_test: str = "student",
    n_permutations: int = 1000,
    max_p: float = 0.01,
    random_seed: int = 42,
    threads: int = 0,
    rounding_digits: int = 3,
    show_percentages: bool = False,
    make_comparable: bool = False,
) -> Report:
    r"""Evaluate several runs and test every pair for a significant difference, as ``ranx.compare``.

    The per-query values of all runs come from one :func:`rankframe.evaluate` plan (ranx's
    names, order and conventions: see :mod:`rankframe.compat.ranx`); the tests are rankframe's
    (:mod:`rankframe._compare.stats`): ``"student"``, the paired t-test
    :math:`t = \bar d / (s_d / \sqrt n)`; ``"fisher"``, the randomization (sign-flip) test
    with ``n_permutations`` draws seeded by ``random_seed`` (its draws are not ranx's, so
    p-values near ``max_p`` may land on the other side); ``"tukey"``, Tukey's HSD with the
    one-way (independent samples) mean square, as ranx (``scipy.stats.tukey_hsd``). A pair is
    significant when :math:`p \le` ``max_p``. Win/tie/loss counts the queries each model
    beats, ties or loses to each other one.

    Parameters
    ----------
    qrels : Qrels
        The judgments.
    runs : list of Run
        The models; unnamed runs are ``run_1``, ``run_2``...
    metrics : str or list of str
        ranx metric names.
    stat_test : {"student", "fisher", "tukey"}
        The test.
    n_permutations, random_seed
        The randomization test's draws and seed.
    max_p : float
        Significance threshold.
    threads : int
        Accepted for compatibility.
    rounding_digits, show_percentages
        How the report prints means.
    make_comparable : bool
        Align each run's queries with the judgments first.

    Returns
    -------
    Report

    Examples
    --------
    >>> qrels = Qrels({"q1": {"a": 1}, "q2": {"b": 1}, "q3": {"c": 1}})
    >>> good = Run({"q1": {"a": 2.0, "x": 1.0}, "q2": {"b": 2.0, "x": 1.0}, "q3": {"c": 2.0}}, name="good")
    >>> poor = Run({"q1": {"a": 1.0, "x": 2.0}, "q2": {"b": 1.0, "x": 2.0}, "q3": {"c": 2.0}}, name="poor")
    >>> report = compare(qrels, [good, poor], ["mrr"])
    >>> report.results
    {'good': {'mrr': 1.0}, 'poor': {'mrr': 0.6666666666666666}}
    >>> report.win_tie_loss["good", "poor"]["mrr"]
    {'W': 2, 'T': 1, 'L': 0}
    """
    del threads
    metrics = [metrics] if isinstance(metrics, str) else list(metrics)
    for m in metrics:
        parse(m)
    if stat_test not in _TESTS:
        msg = f"stat_test: {stat_test!r} is not one of {', '.join(map(repr, _TESTS))}"
        raise InputError(msg)
    runs = list(runs)
    if not runs:
        msg = "runs: no run to compare; pass a list of Run"
        raise InputError(msg)
    names = [r.name if r.name is not None else f"run_{i + 1}" for i, r in enumerate(runs)]
    if len(set(names)) != len(names):
        msg = f"runs: the names {names} are not distinct; give each Run its own name"
        raise InputError(msg)
    frames = []
    for name, run in zip(names, runs, strict=True):
        if make_comparable and isinstance(qrels, Qrels):
            run.make_comparable(qrels)
        if set(run.keys()) != set(qrels.keys()):
            msg = (f"qrels and run {name!r}: the query ids do not match; pass make_comparable=True "
                   "to add empty results and drop unjudged queries")
            raise InputError(msg)
        frames.append(as_frame(run, "run")[0].with_columns(run=pl.lit(name)))
    qdf, queries = as_frame(qrels, "qrels")
    values = per_query(qdf, pl.concat(frames), queries or [], metrics)
    results = {n: {m: float(np.mean(values[n, m])) for m in metrics} for n in names}
    comparisons = FrozensetDict()
    for m in metrics:
        x = np.column_stack([values[n, m] for n in names])
        for (i, j), p in _p_values(x, stat_test, n_permutations, random_seed).items():
            entry = comparisons.get(frozenset((names[i], names[j])), {})
            entry[m] = {"p_value": p, "significant": p <= max_p}  # (numpy bool where p is numpy, as ranx)
            comparisons[names[i], names[j]] = entry
    wtl: dict[tuple[str, str], dict[str, dict[str, Any]]] = {}
    for a in names:
        for b in names:
            if a != b:
                wtl[a, b] = {m: {"W": int(np.sum(values[a, m] > values[b, m])),
                                 "T": int(np.sum(values[a, m] == values[b, m])),
                                 "L": int(np.sum(values[a, m] < values[b, m]))} for m in metrics}
    return Report(names, results, comparisons, metrics, max_p, wtl, rounding_digits=rounding_digits,
                  show_percentages=show_percentages, stat_test=stat_test)
