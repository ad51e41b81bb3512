"""Tests of rankframe._compare.stats against scipy, statsmodels and brute-force numpy oracles."""

from __future__ import annotations

import inspect
import itertools
import math
import warnings

import numpy as np
import pytest
import scipy.stats as st
from hypothesis import given, settings
from hypothesis import strategies as hs
from hypothesis.extra import numpy as hnp

from rankframe._compare import stats as S

# scipy's resampling functions take the generator as rng= from 1.15 (random_state= before; the
# runtime bound is scipy>=1.11 and CI runs these oracles at that bound too)
_RNG = "rng" if "rng" in inspect.signature(st.bootstrap).parameters else "random_state"

# ---------------------------------------------------------------------------------------------
# data


@hs.composite
def matrices(draw, min_rows: int = 1, max_rows: int = 30, max_cols: int = 4, grid: bool | None = None):
    """A (n, m) float matrix: either on a coarse grid (ties and zeros) or continuous."""
    n = draw(hs.integers(min_rows, max_rows))
    m = draw(hs.integers(1, max_cols))
    if grid is None:
        grid = draw(hs.booleans())
    if grid:
        ints = draw(hnp.arrays(np.int64, (n, m), elements=hs.integers(-4, 4)))
        return ints * 0.25
    # Continuous-looking values on a 1e-6 grid (no underflow or overflow in the oracles).
    ints = draw(hnp.arrays(np.int64, (n, m), elements=hs.integers(-1_000_000, 1_000_000)))
    return ints * 1e-6


def _rng_matrix(seed: int, n: int, m: int, *, grid: bool = False, shift: float = 0.0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if grid:
        return rng.integers(-4, 5, size=(n, m)) * 0.25 + shift
    return rng.normal(shift, 0.3, size=(n, m))


def _nonconstant(x: np.ndarray) -> np.ndarray:
    return ~np.all(x == x[:1], axis=0)


# ---------------------------------------------------------------------------------------------
# bad input


BAD_CALLS = [
    lambda a: S.mean_ci(a),
    lambda a: S.paired_t(a),
    lambda a: S.wilcoxon(a),
    lambda a: S.permutation(a, 10),
    lambda a: S.bootstrap(a, 10),
    lambda a: S.tukey_hsd(a),
    lambda a: S.effect_size(a),
    lambda a: S.wins_ties_losses(a),
]


@pytest.mark.parametrize("call", BAD_CALLS)
def test_nan_is_rejected_with_its_position(call):
    a = np.ones((4, 3))
    a[2, 1] = np.nan
    with pytest.raises(ValueError, match=r"NaN at row 2, column 1"):
        call(a)


@pytest.mark.parametrize("call", BAD_CALLS)
def test_inf_is_rejected(call):
    a = np.ones((4, 2))
    a[0, 1] = -np.inf
    with pytest.raises(ValueError, match="infinite"):
        call(a)


@pytest.mark.parametrize("call", BAD_CALLS)
@pytest.mark.parametrize("shape", [(5,), (2, 3, 4), ()])
def test_wrong_ndim_is_rejected(call, shape):
    with pytest.raises(ValueError, match="2-D array"):
        call(np.zeros(shape))


@pytest.mark.parametrize("call", BAD_CALLS)
def test_no_rows_and_non_numeric_are_rejected(call):
    with pytest.raises(ValueError, match="no rows"):
        call(np.zeros((0, 2)))
    with pytest.raises(ValueError, match="numeric"):
        call([["a", "b"]])


def test_bad_parameters():
    d = np.ones((5, 2))
    with pytest.raises(ValueError, match="method"):
        S.wilcoxon(d, method="exakt")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="confidence"):
        S.mean_ci(d, confidence=1.0)
    with pytest.raises(ValueError, match="confidence"):
        S.bootstrap(d, 10, confidence=0.0)
    with pytest.raises(ValueError, match="n_permutations"):
        S.permutation(d, 0)
    with pytest.raises(ValueError, match="n_bootstrap"):
        S.bootstrap(d, 2.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="batch"):
        S.permutation(d, 100, batch=0)
    with pytest.raises(ValueError, match="design"):
        S.tukey_hsd(d, design="blocked")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="tol"):
        S.wins_ties_losses(d, tol=-0.1)
    with pytest.raises(ValueError, match="method"):
        S.correct([0.1], "fdr")
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        S.correct([0.1, 1.5], "holm")
    with pytest.raises(ValueError, match="1-D"):
        S.correct([[0.1, 0.2]], "holm")


def test_constants():
    assert S.TESTS == ("t", "wilcoxon", "permutation", "bootstrap")
    assert S.CORRECTIONS == ("none", "bonferroni", "holm", "bh")


# ---------------------------------------------------------------------------------------------
# mean_ci, paired_t, effect_size, wins/ties/losses


@given(x=matrices(min_rows=2), conf=hs.sampled_from([0.5, 0.9, 0.95, 0.99]))
def test_mean_ci_matches_scipy(x, conf):
    mean, low, high = S.mean_ci(x, conf)
    np.testing.assert_allclose(mean, x.mean(axis=0), rtol=1e-12, atol=1e-15)
    for j in np.flatnonzero(_nonconstant(x)):
        col = x[:, j]
        lo, hi = st.t.interval(conf, len(col) - 1, loc=col.mean(), scale=st.sem(col))
        np.testing.assert_allclose([low[j], high[j]], [lo, hi], rtol=1e-10, atol=1e-13)


def test_mean_ci_edge_cases():
    mean, low, high = S.mean_ci([[0.3, 1.0]])
    assert mean.tolist() == [0.3, 1.0]
    assert np.isnan(low).all()
    assert np.isnan(high).all()
    mean, low, high = S.mean_ci([[0.5], [0.5], [0.5]])
    assert (low[0], mean[0], high[0]) == (0.5, 0.5, 0.5)


@given(d=matrices(min_rows=2))
def test_paired_t_matches_scipy(d):
    stat, p = S.paired_t(d)
    base = np.zeros(d.shape[0])
    for j in np.flatnonzero(_nonconstant(d)):
        ref = st.ttest_rel(d[:, j], base)
        np.testing.assert_allclose([stat[j], p[j]], [ref.statistic, ref.pvalue], rtol=1e-9, atol=1e-14)
        ref1 = st.ttest_1samp(d[:, j], 0.0)
        np.testing.assert_allclose(p[j], ref1.pvalue, rtol=1e-9, atol=1e-14)


def test_paired_t_as_difference_of_systems():
    x = _rng_matrix(3, 25, 2)
    stat, p = S.paired_t(x[:, [1]] - x[:, [0]])
    ref = st.ttest_rel(x[:, 1], x[:, 0])
    np.testing.assert_allclose([stat[0], p[0]], [ref.statistic, ref.pvalue], rtol=1e-12)


def test_paired_t_degenerate_columns():
    d = np.array([[0.0, 0.2, -0.1, 0.1], [0.0, 0.2, -0.1, -0.1], [0.0, 0.2, -0.1, 0.3]])
    stat, p = S.paired_t(d)
    assert stat[:3].tolist() == [0.0, np.inf, -np.inf]
    assert p[:3].tolist() == [1.0, 0.0, 0.0]
    assert 0.0 < p[3] < 1.0
    stat, p = S.paired_t([[0.4, 0.0]])
    assert np.isnan(stat).all()
    assert np.isnan(p).all()


@given(d=matrices(min_rows=2))
def test_effect_size_is_t_over_sqrt_n(d):
    dz = S.effect_size(d)
    n = d.shape[0]
    for j in np.flatnonzero(_nonconstant(d)):
        t = st.ttest_1samp(d[:, j], 0.0).statistic
        np.testing.assert_allclose(dz[j], t / math.sqrt(n), rtol=1e-9, atol=1e-14)


def test_effect_size_degenerate():
    assert S.effect_size([[0.0, 0.5, -0.5], [0.0, 0.5, -0.5]]).tolist() == [0.0, np.inf, -np.inf]
    assert np.isnan(S.effect_size([[0.1, 0.0]])).all()
    np.testing.assert_allclose(S.effect_size([[1.0], [2.0], [3.0]]), [2.0])


@given(d=matrices(), tol=hs.sampled_from([0.0, 0.25, 0.3]))
def test_wins_ties_losses_brute_force(d, tol):
    wins, ties, losses = S.wins_ties_losses(d, tol)
    for j in range(d.shape[1]):
        col = d[:, j].tolist()
        assert wins[j] == sum(1 for v in col if v > tol)
        assert losses[j] == sum(1 for v in col if v < -tol)
        assert ties[j] == sum(1 for v in col if -tol <= v <= tol)
    assert wins.dtype == np.int64
    assert ties.dtype == np.int64


# ---------------------------------------------------------------------------------------------
# Wilcoxon


def _scipy_wilcoxon(col: np.ndarray, method: str) -> tuple[float, float]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # zero_method="wilcox" discards zero differences; scipy 1.11 drops them only after
        # giving up on method="exact" (it warns and switches to the normal approximation),
        # so the oracle drops them first: the same test by definition, on every scipy.
        r = st.wilcoxon(col[col != 0.0], zero_method="wilcox", correction=False, method=method)
    return float(r.statistic), float(r.pvalue)


def _auto_is_exact(col: np.ndarray) -> bool:
    nz = np.abs(col[col != 0.0])
    return len(nz) <= 50 and len(np.unique(nz)) == len(nz)


def _check_wilcoxon_auto(d: np.ndarray) -> None:
    stat, p = S.wilcoxon(d)
    for j in range(d.shape[1]):
        col = d[:, j]
        if not np.any(col != 0.0):
            assert (stat[j], p[j]) == (0.0, 1.0)
            continue
        ref = _scipy_wilcoxon(col, "exact" if _auto_is_exact(col) else "approx")
        np.testing.assert_allclose([stat[j], p[j]], ref, rtol=1e-12, atol=0)


@given(d=matrices(max_rows=60))
def test_wilcoxon_auto_matches_scipy(d):
    _check_wilcoxon_auto(d)


@pytest.mark.parametrize(
    ("n", "grid"), [(1, False), (2, True), (12, False), (50, False), (51, False), (400, True)]
)
def test_wilcoxon_auto_sizes(n, grid):
    _check_wilcoxon_auto(_rng_matrix(n, n, 5, grid=grid, shift=0.1))


@given(d=matrices(max_rows=60))
def test_wilcoxon_approx_matches_scipy(d):
    stat, p = S.wilcoxon(d, method="approx")
    for j in np.flatnonzero(np.any(d != 0.0, axis=0)):
        np.testing.assert_allclose([stat[j], p[j]], _scipy_wilcoxon(d[:, j], "approx"), rtol=1e-12)


def _tie_free(col: np.ndarray) -> bool:
    nz = np.abs(col[col != 0.0])
    return len(np.unique(nz)) == len(nz)


@given(d=matrices(max_rows=70, grid=False))
def test_wilcoxon_exact_matches_scipy(d):
    d = d.copy()
    d[::4] = 0.0  # zeros are dropped before the exact distribution is used
    d = d[:, [j for j in range(d.shape[1]) if _tie_free(d[:, j])]]
    if d.shape[1] == 0:
        return
    stat, p = S.wilcoxon(d, method="exact")
    for j in range(d.shape[1]):
        if not np.any(d[:, j] != 0.0):
            assert (stat[j], p[j]) == (0.0, 1.0)
            continue
        np.testing.assert_allclose([stat[j], p[j]], _scipy_wilcoxon(d[:, j], "exact"), rtol=1e-12)


def test_wilcoxon_exact_rejects_ties_and_all_zero_gives_one():
    with pytest.raises(ValueError, match="column 1 has tied"):
        S.wilcoxon(np.array([[0.1, 0.2], [0.3, -0.2], [0.2, 0.5]]), method="exact")
    for method in ("auto", "exact", "approx"):
        stat, p = S.wilcoxon(np.zeros((6, 2)), method=method)  # type: ignore[arg-type]
        assert stat.tolist() == [0.0, 0.0]
        assert p.tolist() == [1.0, 1.0]


def test_wilcoxon_exact_null_distribution_brute_force():
    # The exact p-value is the share of the 2**n sign patterns whose W+ is at least as extreme.
    n = 9
    d = np.array([[0.3], [-0.1], [0.25], [0.7], [-0.45], [0.05], [0.9], [0.6], [0.15]])
    ranks = st.rankdata(np.abs(d[:, 0]))
    w_obs = ranks[d[:, 0] > 0].sum()
    total = n * (n + 1) / 2
    extreme = min(w_obs, total - w_obs)
    hits = 0
    for signs in itertools.product([0, 1], repeat=n):
        w = ranks[np.array(signs, dtype=bool)].sum()
        hits += min(w, total - w) <= extreme
    stat, p = S.wilcoxon(d, method="exact")
    assert stat[0] == extreme
    assert p[0] == pytest.approx(hits / 2**n, rel=1e-12)


# ---------------------------------------------------------------------------------------------
# permutation test


def _oracle_signs(seed: int, b: int, n: int) -> np.ndarray:
    """The documented sign stream, drawn in one piece: bit i % 64 of uint64 draw i // 64."""
    words = np.random.default_rng(seed).integers(0, 2**64, size=(b, -(-n // 64)), dtype=np.uint64)
    signs = np.empty((b, n))
    for i in range(n):
        bit = (words[:, i // 64] >> np.uint64(i % 64)) & np.uint64(1)
        signs[:, i] = np.where(bit == 1, 1.0, -1.0)
    return signs


@pytest.mark.parametrize("scale", [8.0, 10.0])
@pytest.mark.parametrize(("n", "batch"), [(20, 7), (70, 64), (150, None)])
def test_permutation_same_signs_as_brute_force(n, batch, scale):
    # d = k / scale with integer k: the oracle works on the integers, exactly. With scale 10 the
    # float sums carry rounding noise, and ties |T*| == |T| must still count (the tolerance).
    b, seed = 300, 11
    k = np.random.default_rng(n).integers(-6, 9, size=(n, 4))
    k[:, 3] = 0
    d = k / scale
    stat, p = S.permutation(d, b, seed=seed, batch=batch)
    signs = _oracle_signs(seed, b, n).astype(np.int64)
    for j in range(d.shape[1]):
        s_obs = abs(int(k[:, j].sum()))
        hits = sum(abs(int(np.dot(row, k[:, j]))) >= s_obs for row in signs)
        assert p[j] == (1 + hits) / (1 + b)
        assert stat[j] == pytest.approx(k[:, j].sum() / (n * scale), rel=1e-12, abs=1e-15)
    assert p[3] == 1.0


@pytest.mark.parametrize("seed", range(4))
def test_permutation_exact_enumeration_decimal_ties_match_scipy(seed):
    # Decimal data: many sign patterns tie with the observed sum up to float rounding.
    d = np.random.default_rng(seed).integers(-9, 10, size=(10, 6)) / 10.0
    _, p = S.permutation(d, 2**10)
    for j in range(d.shape[1]):
        k = np.rint(d[:, j] * 10).astype(np.int64)
        signs = np.array(list(itertools.product([-1, 1], repeat=10)))
        exact = np.count_nonzero(np.abs(signs @ k) >= abs(k.sum())) / 2**10
        assert p[j] == exact
        assert p[j] == pytest.approx(_scipy_paired_permutation(d[:, j], np.inf), rel=1e-12)


def test_permutation_continuous_data_same_signs():
    n, b = 40, 400
    d = _rng_matrix(2, n, 3, shift=0.05)
    _, p = S.permutation(d, b, seed=5)
    signs = _oracle_signs(5, b, n)
    for j in range(3):
        t = np.array([np.sum(row * d[:, j]) / n for row in signs])
        hits = np.count_nonzero(np.abs(t) >= abs(d[:, j].mean()) * (1 - 1e-9))
        assert p[j] == (1 + hits) / (1 + b)


def test_permutation_batch_invariance_and_progress():
    d = _rng_matrix(4, 100, 3, shift=0.03)
    calls: list[tuple[int, int]] = []
    ref = S.permutation(d, 1000, seed=3, batch=7, progress=lambda done, total: calls.append((done, total)))
    assert calls[0] == (7, 1000)
    assert calls[-1] == (1000, 1000)
    assert len(calls) == math.ceil(1000 / 7)
    for batch in (1, 333, None):
        np.testing.assert_array_equal(S.permutation(d, 1000, seed=3, batch=batch)[1], ref[1])
    assert not np.array_equal(S.permutation(d, 1000, seed=4)[1], ref[1])
    # Each column's p does not depend on the other columns.
    np.testing.assert_array_equal(S.permutation(d[:, [1]], 1000, seed=3)[1], ref[1][[1]])


def _scipy_paired_permutation(col: np.ndarray, n_resamples: float, seed: int = 0) -> float:
    res = st.permutation_test(
        (col, np.zeros_like(col)),
        lambda a, b, axis: np.mean(a - b, axis=axis),
        permutation_type="samples",
        n_resamples=n_resamples,
        alternative="two-sided",
        vectorized=True,
        **{_RNG: np.random.default_rng(seed)},
    )
    return float(res.pvalue)


@settings(max_examples=25)
@given(d=matrices(min_rows=2, max_rows=12))
def test_permutation_exact_enumeration_matches_scipy(d):
    # 2**n <= n_permutations: all sign vectors are enumerated, as scipy does with n_resamples=inf.
    stat, p = S.permutation(d, 2 ** d.shape[0])
    np.testing.assert_allclose(stat, d.mean(axis=0), rtol=1e-12, atol=1e-15)
    for j in range(d.shape[1]):
        assert p[j] == pytest.approx(_scipy_paired_permutation(d[:, j], np.inf), rel=1e-12)


def test_permutation_exact_enumeration_brute_force_single_query():
    assert S.permutation([[0.3, 0.0]])[1].tolist() == [1.0, 1.0]


@pytest.mark.parametrize("seed", [0, 1])
def test_permutation_monte_carlo_close_to_scipy(seed):
    b = 4000
    d = _rng_matrix(seed + 20, 30, 3, shift=0.08)
    _, p = S.permutation(d, b, seed=seed)
    for j in range(3):
        ref = _scipy_paired_permutation(d[:, j], b, seed)
        pm = (p[j] + ref) / 2
        assert abs(p[j] - ref) < 4 * math.sqrt(2 * pm * (1 - pm) / b) + 2 / b


def test_permutation_smoke_defaults():
    rng = np.random.default_rng(7)
    d = np.column_stack([rng.normal(0.0, 0.2, 3000), rng.normal(0.1, 0.2, 3000), np.zeros(3000)])
    stat, p = S.permutation(d)
    assert p[1] == 1 / 10_001
    assert p[2] == 1.0
    assert 0.01 < p[0] <= 1.0
    np.testing.assert_allclose(p[0], S.paired_t(d)[1][0], atol=0.03)


# ---------------------------------------------------------------------------------------------
# bootstrap


@pytest.mark.parametrize("scale", [8.0, 10.0])
@pytest.mark.parametrize(
    ("n", "batch", "conf"), [(16, 7, 0.95), (32, None, 0.9), (2, 3, 0.95), (23, 50, 0.8)]
)
def test_bootstrap_same_draws_as_brute_force(n, batch, conf, scale):
    # d = k / scale with integer k: the oracle's test counts are exact integer comparisons.
    b, seed = 500, 9
    k = np.random.default_rng(n).integers(-6, 9, size=(n, 3))
    k[:, 2] = 2
    d = k / scale
    p, low, high = S.bootstrap(d, b, seed=seed, confidence=conf, batch=batch)
    idx = np.random.default_rng(seed).integers(0, n, size=(b, n))
    for j in range(3):
        sums = np.array([int(k[row, j].sum()) for row in idx])
        means = sums / (n * scale)
        lo, hi = np.quantile(means, [(1 - conf) / 2, (1 + conf) / 2])
        np.testing.assert_allclose([low[j], high[j]], [lo, hi], rtol=1e-12, atol=1e-15)
        total = int(k[:, j].sum())
        assert p[j] == (1 + np.count_nonzero(np.abs(sums - total) >= abs(total))) / (1 + b)
    assert p[2] == 1 / (b + 1)
    np.testing.assert_allclose([low[2], high[2]], 2 / scale, rtol=1e-14)


def test_bootstrap_continuous_data_same_draws():
    n, b = 37, 300
    d = _rng_matrix(8, n, 2, shift=0.05)
    p, low, high = S.bootstrap(d, b, seed=2, batch=11)
    idx = np.random.default_rng(2).integers(0, n, size=(b, n))
    means = d[idx].mean(axis=1)
    np.testing.assert_allclose(np.quantile(means, [0.025, 0.975], axis=0), [low, high], rtol=1e-12)
    shifted = np.abs(means - d.mean(axis=0))
    np.testing.assert_array_equal(p, (1 + (shifted >= np.abs(d.mean(axis=0))).sum(axis=0)) / (1 + b))


@pytest.mark.parametrize("conf", [0.9, 0.95])
def test_bootstrap_ci_close_to_scipy(conf):
    b, n = 20_000, 40
    d = _rng_matrix(31, n, 2, shift=0.05)
    _, low, high = S.bootstrap(d, b, seed=1, confidence=conf)
    for j in range(2):
        ref = st.bootstrap(
            (d[:, j],),
            np.mean,
            method="percentile",
            confidence_level=conf,
            n_resamples=b,
            **{_RNG: np.random.default_rng(2)},
        ).confidence_interval
        sd = d[:, j].std() / math.sqrt(n)
        assert abs(low[j] - ref.low) < 0.15 * sd
        assert abs(high[j] - ref.high) < 0.15 * sd


def test_bootstrap_p_close_to_t_test_for_large_n():
    rng = np.random.default_rng(12)
    d = rng.normal([0.0, 0.02, 0.04], 0.2, size=(300, 3))
    p, _, _ = S.bootstrap(d, 5000, seed=0)
    np.testing.assert_allclose(p, S.paired_t(d)[1], atol=0.03)


def test_bootstrap_edge_cases_and_progress():
    p, low, high = S.bootstrap([[0.2, 0.0]], 100)
    assert np.isnan(p).all()
    assert np.isnan(low).all()
    assert np.isnan(high).all()
    p, low, high = S.bootstrap(np.zeros((5, 1)), 100)
    assert (p[0], low[0], high[0]) == (1.0, 0.0, 0.0)
    calls: list[tuple[int, int]] = []
    S.bootstrap(np.ones((5, 1)), 10, batch=4, progress=lambda done, total: calls.append((done, total)))
    assert calls == [(4, 10), (8, 10), (10, 10)]


# ---------------------------------------------------------------------------------------------
# Tukey HSD


@settings(max_examples=15)
@given(x=matrices(min_rows=2, max_rows=20, max_cols=5), conf=hs.sampled_from([0.9, 0.95]))
def test_tukey_independent_matches_scipy(x, conf):
    if x.shape[1] < 2 or not np.any(_nonconstant(x)):
        return
    pairs, diff, p, low, high = S.tukey_hsd(x, design="independent", confidence=conf)
    assert pairs.tolist() == [list(c) for c in itertools.combinations(range(x.shape[1]), 2)]
    ref = st.tukey_hsd(*x.T)
    ci = ref.confidence_interval(conf)
    i, j = pairs.T
    # scipy's statistic[a, b] is mean_a - mean_b; ours is mean_j - mean_i.
    np.testing.assert_allclose(diff, ref.statistic[j, i], rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(p, ref.pvalue[j, i], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(low, ci.low[j, i], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(high, ci.high[j, i], rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize(("n", "k", "seed"), [(2, 2, 0), (5, 3, 1), (25, 4, 2), (60, 6, 3)])
def test_tukey_paired_matches_statsmodels_anova(n, k, seed):
    pd = pytest.importorskip("pandas")
    pytest.importorskip("statsmodels")
    from statsmodels.formula.api import ols
    from statsmodels.stats.anova import anova_lm

    rng = np.random.default_rng(seed)
    x = rng.normal(0.0, 0.1, (n, k)) + rng.normal(0.0, 0.3, (n, 1)) + np.linspace(0, 0.1, k)
    long = pd.DataFrame(
        {
            "y": x.ravel(),
            "query": np.repeat(np.arange(n), k).astype(str),
            "system": np.tile(np.arange(k), n).astype(str),
        }
    )
    table = anova_lm(ols("y ~ C(system) + C(query)", data=long).fit())
    df = table.loc["Residual", "df"]
    mse = table.loc["Residual", "sum_sq"] / df
    assert df == (n - 1) * (k - 1)
    pairs, diff, p, low, high = S.tukey_hsd(x)
    grouped = long.groupby("system")["y"].mean()
    means = np.array([grouped[str(c)] for c in range(k)])
    se = math.sqrt(mse / n)
    ref_diff = means[pairs[:, 1]] - means[pairs[:, 0]]
    crit = st.studentized_range.ppf(0.95, k, df)
    np.testing.assert_allclose(diff, ref_diff, rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(
        p, st.studentized_range.sf(np.abs(ref_diff) / se, k, df), rtol=1e-8, atol=1e-12
    )
    np.testing.assert_allclose(low, ref_diff - crit * se, rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(high, ref_diff + crit * se, rtol=1e-8, atol=1e-12)


def test_tukey_paired_is_more_powerful_with_query_effects():
    rng = np.random.default_rng(0)
    x = rng.normal(0.0, 0.5, (30, 1)) + rng.normal(0.0, 0.05, (30, 3)) + [0.0, 0.05, 0.1]
    _, _, p_paired, _, _ = S.tukey_hsd(x)
    _, _, p_indep, _, _ = S.tukey_hsd(x, design="independent")
    assert p_paired[1] < 0.01 < p_indep[1]


def test_tukey_edge_cases():
    pairs, diff, p, low, high = S.tukey_hsd(np.ones((4, 1)))
    assert pairs.shape == (0, 2)
    assert diff.size == p.size == low.size == high.size == 0
    _, diff, p, low, _ = S.tukey_hsd([[0.1, 0.2, 0.4]])
    np.testing.assert_allclose(diff, [0.1, 0.3, 0.2])
    assert np.isnan(p).all()
    assert np.isnan(low).all()
    # Pure shifts of dyadic data: the residual mean square is exactly 0.
    x = np.array([0.0, 1.0, 0.25, 0.5])[:, None] + np.array([0.0, 0.5, 0.0, 0.25])
    _, diff, p, low, high = S.tukey_hsd(x)
    assert p.tolist() == [0.0, 1.0, 0.0, 0.0, 0.0, 0.0]
    np.testing.assert_array_equal(low, diff)
    np.testing.assert_array_equal(high, diff)


# ---------------------------------------------------------------------------------------------
# multiple comparisons


P_VALUES = hs.lists(
    hs.one_of(
        hs.floats(0.0, 1.0, allow_nan=False),
        hs.sampled_from([0.0, 0.01, 0.05, 0.05, 1.0]),
    ),
    min_size=1,
    max_size=25,
)


@given(p=P_VALUES, nan_at=hs.lists(hs.integers(0, 30), max_size=3))
def test_correct_matches_statsmodels(p, nan_at):
    pytest.importorskip("statsmodels")
    from statsmodels.stats.multitest import multipletests

    arr = np.array(p)
    for i in nan_at:
        if i < arr.size:
            arr[i] = np.nan
    ok = ~np.isnan(arr)
    for ours, theirs in [("bonferroni", "bonferroni"), ("holm", "holm"), ("bh", "fdr_bh")]:
        adj = S.correct(arr, ours)
        assert np.array_equal(np.isnan(adj), ~ok)
        if ok.any():
            ref = multipletests(arr[ok], method=theirs)[1]
            np.testing.assert_allclose(adj[ok], ref, rtol=1e-12, atol=0)
    np.testing.assert_array_equal(S.correct(arr, "none"), arr)


def test_correct_keeps_input_and_handles_empty():
    p = np.array([0.02, 0.01])
    S.correct(p, "holm")
    assert p.tolist() == [0.02, 0.01]
    assert S.correct([], "bh").size == 0
    assert np.isnan(S.correct([np.nan, np.nan], "bh")).all()
    assert S.correct([0.01, 0.02, 0.03], "bh").tolist() == pytest.approx([0.03, 0.03, 0.03])
