"""Ranking losses of rankframe.ltr (_loss_numpy, _loss_polars): values, gradients, Polars plans, edge cases.

The formulas come from the seed notes (000/001: Understanding Machine Learning sec. 17.4, the
Kendall-tau and NDCG losses and the structured surrogate eq. 17.8; 002: the pairwise hinge and
exponential losses; 003: pointwise, RankNet, LambdaRank); the reference values here are
computed independently of the module (hand-worked numbers, brute force over permutations).
"""

from __future__ import annotations

import math
from itertools import permutations

import numpy as np
import polars as pl
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from rankframe._errors import RankframeError
from rankframe.ltr._loss_common import FRAME_LOSSES, LOSSES
from rankframe.ltr._loss_numpy import loss_and_grad
from rankframe.ltr._loss_polars import gradient_frame, loss_frame

PIECEWISE = ("kendall", "ndcg")
NDCG_LIKE = ("lambdarank", "ndcg", "structured")
EPS = 1e-6


# --------------------------------------------------------------------------------------------
# strategies and independent references
# --------------------------------------------------------------------------------------------
@st.composite
def batches(draw, max_size=8, ties=False):
    """Groups of 1..max_size documents, labels 0..3 (with ties); scores tie-free or tie-prone."""
    sizes = draw(st.lists(st.integers(1, max_size), min_size=1, max_size=4))
    n = sum(sizes)
    labels = np.array(draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)), dtype=np.float64)
    if ties:
        values = st.sampled_from([-1.0, 0.0, 0.5, 1.0, 2.0])
        scores = np.array(draw(st.lists(values, min_size=n, max_size=n)))
    else:
        seed = draw(st.integers(0, 2**32 - 1))
        scale = draw(st.sampled_from([0.3, 1.0, 2.5]))
        scores = np.random.default_rng(seed).normal(scale=scale, size=n)
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    return scores, labels, offsets


def groups(offsets):
    return [slice(int(a), int(b)) for a, b in zip(offsets[:-1], offsets[1:], strict=True)]


def seed_discount(r, k):
    """Seed 000: D(i) = 1 / log2(r - i + 2) for i in {r - k + 1, ..., r}, else 0 (i = 1..r)."""
    k = r if k is None else min(k, r)
    return np.array([1.0 / math.log2(r - i + 2) if i >= r - k + 1 else 0.0 for i in range(1, r + 1)])


def bottom_up(keys):
    """pi(keys): 1 for the smallest key tuple, r for the largest."""
    order = sorted(range(len(keys)), key=lambda i: keys[i])
    pi = np.empty(len(keys))
    pi[order] = np.arange(1, len(keys) + 1)
    return pi


def pi_labels(h, y):
    """pi(y) with label ties broken by score, then by input order (the earlier row higher)."""
    return bottom_up([(y[i], h[i], -i) for i in range(len(y))])


def pi_scores(h):
    """pi(h) with score ties broken by input order."""
    return bottom_up([(h[i], -i) for i in range(len(h))])


def brute_structured(h, y, k):
    """Eq. 17.8 by enumeration: (value, argmax v, gap to the runner-up)."""
    r = len(h)
    d = seed_discount(r, k)
    perms = np.array(list(permutations(range(1, r + 1))), dtype=np.int64)
    dcg = d[perms - 1] @ y
    ideal = dcg.max()  # G(y, y) by brute force too
    if r < 2 or ideal <= 0:
        return 0.0, pi_labels(h, y), math.inf
    obj = 1.0 - dcg / ideal + (perms - pi_labels(h, y)) @ h
    top = np.argsort(obj)[::-1]
    gap = obj[top[0]] - obj[top[1]]
    return float(obj[top[0]]), perms[top[0]].astype(np.float64), float(gap)


def seed_ndcg_loss(h, y, k):
    """Seed 000: (1 / G(y, y)) sum_i (D(pi(y)_i) - D(pi(h)_i)) y_i, 0 when G(y, y) = 0."""
    d = seed_discount(len(h), k)
    ideal = d[pi_labels(h, y).astype(int) - 1] @ y
    if ideal <= 0:
        return 0.0
    return float((d[pi_labels(h, y).astype(int) - 1] - d[pi_scores(h).astype(int) - 1]) @ y / ideal)


def total(loss, h, y, off, k):
    return float(loss_and_grad(loss, h, y, off, k=k)[0].sum())


def min_score_gap(h, off):
    gaps = [np.min(np.diff(np.sort(h[s]))) for s in groups(off) if s.stop - s.start > 1]
    return min(gaps, default=math.inf)


# --------------------------------------------------------------------------------------------
# gradients = central finite differences
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("loss", LOSSES)
@given(batch=batches(), k=st.sampled_from([None, 2, 10]))
def test_gradient_matches_finite_differences(loss, batch, k):
    h, y, off = batch
    # piecewise losses: stay away from the kinks / jumps (score ties, hinge margins of 1)
    assume(min_score_gap(h, off) > 1e3 * EPS)
    if loss == "hinge":
        for s in groups(off):
            hs, ys = h[s], y[s]
            m = hs[:, None] - hs[None, :]
            assume(np.all(np.abs(1.0 - m[ys[:, None] > ys[None, :]]) > 1e3 * EPS))
    if loss == "structured":  # the maximiser must be unique (and stay so within +-EPS)
        for s in groups(off):
            _, _, gap = brute_structured(h[s], y[s], k)
            assume(gap > 1e3 * EPS * (s.stop - s.start))
    values, grad = loss_and_grad(loss, h, y, off, k=k)
    assert values.shape == (off.size - 1,)
    assert grad.shape == h.shape
    scale = max(1.0, float(np.abs(values).sum()))
    fd = np.empty_like(h)
    for i in range(h.size):
        up, down = h.copy(), h.copy()
        up[i] += EPS
        down[i] -= EPS
        fd[i] = (total(loss, up, y, off, k) - total(loss, down, y, off, k)) / (2 * EPS)
    np.testing.assert_allclose(grad, fd, rtol=1e-6, atol=1e-8 * scale)
    if loss in PIECEWISE:
        assert np.all(grad == 0.0)
        assert np.all(fd == 0.0)


# --------------------------------------------------------------------------------------------
# the structured surrogate: assignment == brute force, and it bounds the NDCG loss
# --------------------------------------------------------------------------------------------
@given(batch=batches(max_size=7), k=st.sampled_from([None, 1, 3]))
def test_structured_assignment_equals_brute_force(batch, k):
    h, y, off = batch
    values, grad = loss_and_grad("structured", h, y, off, k=k)
    ndcg, _ = loss_and_grad("ndcg", h, y, off, k=k)
    for g, s in enumerate(groups(off)):
        best, v, gap = brute_structured(h[s], y[s], k)
        assert values[g] == pytest.approx(best, rel=1e-12, abs=1e-12)
        if gap > 1e-9:  # unique maximiser: the gradient is v* - pi(y)
            np.testing.assert_array_equal(grad[s], v - pi_labels(h[s], y[s]))
        assert ndcg[g] == pytest.approx(seed_ndcg_loss(h[s], y[s], k), abs=1e-12)
        assert ndcg[g] <= values[g] + 1e-12  # eq. 17.8: the surrogate upper-bounds the loss


@given(batch=batches(max_size=6, ties=True), k=st.sampled_from([None, 2]))
def test_structured_bound_with_score_ties(batch, k):
    h, y, off = batch
    values, _ = loss_and_grad("structured", h, y, off, k=k)
    ndcg, _ = loss_and_grad("ndcg", h, y, off, k=k)
    for g, s in enumerate(groups(off)):
        assert values[g] == pytest.approx(brute_structured(h[s], y[s], k)[0], abs=1e-12)
        assert ndcg[g] == pytest.approx(seed_ndcg_loss(h[s], y[s], k), abs=1e-12)
        assert ndcg[g] <= values[g] + 1e-12


def test_structured_row_order_does_not_matter():
    h = np.array([0.3, -0.2, 1.1, 0.7, 0.0])
    y = np.array([1.0, 1.0, 2.0, 0.0, 1.0])
    perm = np.array([3, 0, 4, 2, 1])
    a, ga = loss_and_grad("structured", h, y, [0, 5])
    b, gb = loss_and_grad("structured", h[perm], y[perm], [0, 5])
    assert a[0] == pytest.approx(b[0], abs=1e-15)
    np.testing.assert_array_equal(ga[perm], gb)


# --------------------------------------------------------------------------------------------
# Polars plans == numpy
# --------------------------------------------------------------------------------------------
def frame_of(h, y, off, ids):
    qid = np.repeat(np.asarray(ids), np.diff(off))
    return pl.DataFrame({"qid": qid, "s": h, "rel": y})


@given(batch=batches(), ties=st.booleans(), k=st.sampled_from([None, 1, 3]), data=st.data())
def test_loss_frame_and_gradient_frame_equal_numpy(batch, ties, k, data):
    h, y, off = batch
    if ties:  # tie-prone scores: the ordinal ranks must break ties by input order in both
        h = np.round(h * 2) / 2
    ids = data.draw(st.permutations(list(range(10, 10 + off.size - 1))))
    frame = frame_of(h, y, off, ids).lazy()
    out = loss_frame(frame, FRAME_LOSSES, query="qid", score="s", label="rel", k=k)
    grads = gradient_frame(frame, FRAME_LOSSES, query="qid", score="s", label="rel", k=k)
    assert isinstance(out, pl.LazyFrame)
    assert isinstance(grads, pl.LazyFrame)
    out, grads = out.collect(), grads.collect()
    assert out.columns == ["qid", *FRAME_LOSSES]
    assert out["qid"].to_list() == list(ids)
    assert grads.columns == ["qid", "s", "rel", *FRAME_LOSSES]
    for loss in FRAME_LOSSES:
        values, grad = loss_and_grad(loss, h, y, off, k=k)
        np.testing.assert_allclose(out[loss].to_numpy(), values, rtol=1e-10, atol=1e-12, err_msg=loss)
        np.testing.assert_allclose(grads[loss].to_numpy(), grad, rtol=1e-10, atol=1e-12, err_msg=loss)


def test_loss_frame_interleaved_rows_and_default_columns():
    h = np.array([0.1, 0.9, -0.3, 0.4, 1.2, 0.0, 0.5])
    y = np.array([1.0, 0.0, 2.0, 3.0, 1.0, 0.0, 2.0])
    off = np.array([0, 3, 7])
    perm = np.array([3, 0, 4, 1, 5, 2, 6])  # the two queries' rows interleaved
    qid = np.repeat(["b", "a"], [3, 4])
    frame = pl.DataFrame({"query_id": qid[perm], "score": h[perm], "label": y[perm]})
    out = loss_frame(frame, FRAME_LOSSES, k=3).collect()
    grads = gradient_frame(frame, FRAME_LOSSES, k=3).collect()
    assert out["query_id"].to_list() == ["a", "b"]  # order of first appearance
    for loss in FRAME_LOSSES:
        values, grad = loss_and_grad(loss, h, y, off, k=3)
        np.testing.assert_allclose(out[loss].to_numpy(), values[::-1], rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(grads[loss].to_numpy(), grad[perm], rtol=1e-12, atol=1e-14)


def test_frame_rejects_structured_and_unknown_names():
    frame = pl.DataFrame({"query_id": [1, 1], "score": [0.0, 1.0], "label": [1, 0]})
    with pytest.raises(RankframeError, match="loss_and_grad"):
        loss_frame(frame, ["ranknet", "structured"])
    with pytest.raises(RankframeError, match="loss_and_grad"):
        gradient_frame(frame, ["structured"])
    with pytest.raises(RankframeError, match="Unknown loss"):
        loss_frame(frame, ["listnet"])
    with pytest.raises(RankframeError, match="no column 'qid'"):
        loss_frame(frame, ["hinge"], query="qid")


# --------------------------------------------------------------------------------------------
# hand-computed examples (h = scores, y = labels)
# --------------------------------------------------------------------------------------------
H3 = np.array([0.5, 2.0, 1.0])
Y3 = np.array([2.0, 0.0, 1.0])
OFF3 = np.array([0, 3])


def sig(x):
    return 1.0 / (1.0 + math.exp(-x))


def check(loss, value, grad, h=H3, y=Y3, off=OFF3, k=None):
    values, g = loss_and_grad(loss, h, y, off, k=k)
    assert values.tolist() == pytest.approx([value], rel=1e-13, abs=1e-15)
    np.testing.assert_allclose(g, grad, rtol=1e-13, atol=1e-15)


def test_pointwise_by_hand():
    # (0.5 - 2)^2 + (2 - 0)^2 + (1 - 1)^2; gradient 2 (h - y)
    check("pointwise", 6.25, [-3.0, 4.0, 0.0])


def test_hinge_by_hand():
    # pairs y_i > y_j: (0, 1) margin -1.5 -> 2.5; (0, 2) margin -0.5 -> 1.5; (2, 1) margin -1 -> 2
    check("hinge", 6.0, [-2.0, 2.0, 0.0])
    # margin >= 1: no loss, no gradient
    check("hinge", 0.0, [0.0, 0.0], h=np.array([3.0, 1.5]), y=np.array([1.0, 0.0]), off=np.array([0, 2]))


def test_exponential_by_hand():
    e = math.exp
    # (0,1): exp(-(0.5-2)(2-0)) = e^3; (0,2): exp(-(0.5-1)(2-1)) = e^0.5; (1,2): exp(-(2-1)(0-1)) = e^1
    value = e(3) + e(0.5) + e(1)
    grad = [-2 * e(3) - e(0.5), 2 * e(3) + e(1), e(0.5) - e(1)]
    check("exponential", value, grad)
    # a pair with equal labels adds exp(0) = 1 and no gradient
    check(
        "exponential", 1.0, [0.0, 0.0], h=np.array([0.2, 0.7]), y=np.array([1.0, 1.0]), off=np.array([0, 2])
    )


def test_ranknet_by_hand():
    sp = lambda m: math.log1p(math.exp(-m))  # noqa: E731
    value = sp(-1.5) + sp(-0.5) + sp(-1.0)
    grad = [-sig(1.5) - sig(0.5), sig(1.5) + sig(1.0), sig(0.5) - sig(1.0)]
    check("ranknet", value, grad)
    # large margins: no overflow, the value is the margin itself
    big, g = loss_and_grad("ranknet", [-800.0, 0.0], [1.0, 0.0], [0, 2])
    assert big[0] == 800.0
    assert g.tolist() == [-1.0, 1.0]


def test_lambdarank_by_hand():
    sp = lambda m: math.log1p(math.exp(-m))  # noqa: E731
    # ranks by score: doc1 1st, doc2 2nd, doc0 3rd; gains 2^y - 1: 3, 0, 1; discounts 1/log2(1+rank)
    d = {0: 1 / math.log2(4), 1: 1.0, 2: 1 / math.log2(3)}
    gain = {0: 3.0, 1: 0.0, 2: 1.0}
    idcg = 3.0 + 1.0 / math.log2(3)
    pairs = {(0, 1): -1.5, (0, 2): -0.5, (2, 1): -1.0}
    w = {p: abs(gain[p[0]] - gain[p[1]]) * abs(d[p[0]] - d[p[1]]) / idcg for p in pairs}
    value = sum(w[p] * sp(m) for p, m in pairs.items())
    grad = np.zeros(3)
    for (i, j), m in pairs.items():
        grad[i] -= w[(i, j)] * sig(-m)
        grad[j] += w[(i, j)] * sig(-m)
    check("lambdarank", value, grad)
    # k = 1: only rank 1 is discounted (1), IDCG@1 = 3; the weights: (0,1) 3*1/3, (0,2) 0, (2,1) 1*1/3
    value = 1.0 * sp(-1.5) + sp(-1.0) / 3
    grad = [-sig(1.5), sig(1.5) + sig(1.0) / 3, -sig(1.0) / 3]
    check("lambdarank", value, grad, k=1)


def test_lambdarank_ties_ranked_by_input_order():
    # equal scores: the first row ranks 1st; the swap of ranks 1 and 2 changes DCG by (3-0)(1-1/log2 3)
    h, y = np.array([0.0, 0.0]), np.array([0.0, 2.0])
    w = 3.0 * (1 - 1 / math.log2(3)) / 3.0
    check("lambdarank", w * math.log(2), [0.5 * w, -0.5 * w], h=h, y=y, off=np.array([0, 2]))
    out = loss_frame(pl.DataFrame({"query_id": [1, 1], "score": h, "label": y}), ["lambdarank"]).collect()
    assert out["lambdarank"][0] == pytest.approx(w * math.log(2), rel=1e-14)


def test_kendall_by_hand():
    # every pair of H3 is ordered against its labels: 3 of 3 -> 1
    check("kendall", 1.0, [0.0, 0.0, 0.0])
    two = np.array([0, 2])
    check("kendall", 0.0, [0, 0], h=np.array([2.0, 1.0]), y=np.array([1.0, 0.0]), off=two)
    # seed 000's sign rule: tied labels with distinct scores disagree, tied scores and labels agree
    check("kendall", 1.0, [0, 0], h=np.array([1.0, 2.0]), y=np.array([1.0, 1.0]), off=two)
    check("kendall", 0.0, [0, 0], h=np.array([1.0, 1.0]), y=np.array([1.0, 1.0]), off=two)
    check("kendall", 1.0, [0, 0], h=np.array([1.0, 1.0]), y=np.array([2.0, 1.0]), off=two)
    # 4 items, 1 swapped pair of 6: 2 / (4 * 3) * 1
    h4, y4 = np.array([4.0, 2.0, 3.0, 1.0]), np.array([3.0, 2.0, 1.0, 0.0])
    check("kendall", 1 / 6, [0, 0, 0, 0], h=h4, y=y4, off=np.array([0, 4]))


def test_ndcg_by_hand():
    # seed 000 (bottom-up positions): pi(h) = (1, 3, 2), pi(y) = (3, 1, 2);
    # D(3) = 1, D(2) = 1/log2 3, D(1) = 1/log2 4; G(y, y) = 2*1 + 0 + 1/log2 3
    dd = {1: 0.5, 2: 1 / math.log2(3), 3: 1.0}
    ideal = 2 * dd[3] + 0 * dd[1] + 1 * dd[2]
    got = 2 * dd[1] + 0 * dd[3] + 1 * dd[2]
    check("ndcg", 1 - got / ideal, [0.0, 0.0, 0.0])
    # k = 1: only the top position counts: G(y, y) = 2, G(h, y) = 0 (label 0 on top)
    check("ndcg", 1.0, [0.0, 0.0, 0.0], k=1)
    # a perfect ranking has loss exactly 0
    check("ndcg", 0.0, [0.0, 0.0, 0.0], h=Y3 * 0.1)


def test_structured_by_hand():
    # r = 2, y = (1, 0): pi(y) = (2, 1), D(2) = 1, D(1) = 1/log2 3, G(y, y) = 1.
    # v = (2, 1) gives 0; v = (1, 2) gives 1 - 1/log2 3 + (h_1 - h_0): a hinge with margin 1 - 1/log2 3
    two, y = np.array([0, 2]), np.array([1.0, 0.0])
    c = 1 - 1 / math.log2(3)
    check("structured", c + 0.1 - 0.3, [-1.0, 1.0], h=np.array([0.3, 0.1]), y=y, off=two)
    check("structured", 0.0, [0.0, 0.0], h=np.array([1.0, 0.0]), y=y, off=two)
    # H3: brute force by hand over the 6 bottom-up permutations v of (1, 2, 3);
    # pi(y) = (3, 1, 2); objective 1 - sum_i D(v_i) y_i / G + sum_i (v_i - pi_i) h_i
    dd = {1: 0.5, 2: 1 / math.log2(3), 3: 1.0}
    ideal = 2 + dd[2]
    pi = (3, 1, 2)
    obj = {
        v: 1 - (2 * dd[v[0]] + 1 * dd[v[2]]) / ideal + sum((v[i] - pi[i]) * H3[i] for i in range(3))
        for v in permutations((1, 2, 3))
    }
    v_best = max(obj, key=obj.get)
    assert v_best == (1, 3, 2)  # the score order itself
    check("structured", obj[v_best], np.subtract(v_best, pi))


# --------------------------------------------------------------------------------------------
# edge cases
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("loss", LOSSES)
def test_single_document_groups(loss):
    h, y, off = np.array([0.5, -1.0, 2.0]), np.array([2.0, 0.0, 1.0]), np.array([0, 1, 2, 3])
    values, grad = loss_and_grad(loss, h, y, off, k=10)
    if loss == "pointwise":
        np.testing.assert_allclose(values, (h - y) ** 2)
        np.testing.assert_allclose(grad, 2 * (h - y))
    else:
        assert values.tolist() == [0.0, 0.0, 0.0]
        assert grad.tolist() == [0.0, 0.0, 0.0]


@pytest.mark.parametrize("label", [0.0, 2.0])
@pytest.mark.parametrize("loss", LOSSES)
def test_all_equal_labels(loss, label):
    h = np.array([0.3, -1.2, 0.8, 2.0])
    y = np.full(4, label)
    values, grad = loss_and_grad(loss, h, y, [0, 4])
    expected = {"pointwise": float(((h - y) ** 2).sum()), "exponential": 6.0, "kendall": 1.0}
    assert values[0] == pytest.approx(expected.get(loss, 0.0), rel=1e-14)
    if loss == "pointwise":
        np.testing.assert_allclose(grad, 2 * (h - y))
    else:
        assert np.all(grad == 0.0)


@pytest.mark.parametrize("loss", NDCG_LIKE)
def test_zero_ideal_dcg_contributes_zero(loss):
    h = np.array([0.3, -1.2, 0.8, 2.0, 0.1])
    y = np.array([0.0, 0.0, 0.0, 1.0, 2.0])
    values, grad = loss_and_grad(loss, h, y, [0, 3, 5])
    assert values[0] == 0.0
    assert np.all(grad[:3] == 0.0)
    assert values[1] > 0.0  # the second group (labels 1, 2 ranked the wrong way) still counts
    if loss != "structured":
        frame = pl.DataFrame({"query_id": [1, 1, 1, 2, 2], "score": h, "label": y})
        assert loss_frame(frame, [loss]).collect()[loss][0] == 0.0


@pytest.mark.parametrize("loss", LOSSES)
def test_empty_input(loss):
    values, grad = loss_and_grad(loss, np.zeros(0), np.zeros(0), np.array([0]))
    assert values.shape == (0,)
    assert grad.shape == (0,)
    values, grad = loss_and_grad(loss, [], [], [0, 0, 0])  # two empty groups
    assert values.tolist() == [0.0, 0.0]
    assert grad.shape == (0,)
    values, _ = loss_and_grad(loss, [1.0, 0.0], [0.0, 1.0], [0, 0, 2, 2])  # empty groups around one
    assert values[0] == 0.0
    assert values[2] == 0.0
    if loss in FRAME_LOSSES:
        empty = pl.DataFrame(schema={"query_id": pl.Int64, "score": pl.Float64, "label": pl.Float64})
        assert loss_frame(empty, [loss]).collect().height == 0
        assert gradient_frame(empty, [loss]).collect().height == 0


def test_bad_inputs():
    with pytest.raises(RankframeError, match="Unknown loss"):
        loss_and_grad("listnet", [0.0], [0.0], [0, 1])
    with pytest.raises(RankframeError, match="offsets"):
        loss_and_grad("ranknet", [0.0, 1.0], [0.0, 1.0], [0, 1])
    with pytest.raises(RankframeError, match="offsets"):
        loss_and_grad("ranknet", [0.0, 1.0], [0.0, 1.0], [0, 2, 1, 2])
    with pytest.raises(RankframeError, match="differ in length"):
        loss_and_grad("ranknet", [0.0, 1.0], [0.0], [0, 2])
    with pytest.raises(RankframeError, match="non-negative"):
        loss_and_grad("ndcg", [0.0, 1.0], [-1.0, 1.0], [0, 2])
    with pytest.raises(RankframeError, match="cutoff"):
        loss_and_grad("lambdarank", [0.0, 1.0], [0.0, 1.0], [0, 2], k=0)


def test_batch_of_groups_equals_groups_one_by_one():
    rng = np.random.default_rng(7)
    sizes = rng.integers(1, 30, size=40)
    off = np.concatenate([[0], np.cumsum(sizes)])
    h, y = rng.normal(size=off[-1]), rng.integers(0, 5, size=off[-1]).astype(float)
    for loss in LOSSES:
        values, grad = loss_and_grad(loss, h, y, off, k=10)
        for g, s in enumerate(groups(off)):
            v1, g1 = loss_and_grad(loss, h[s], y[s], [0, s.stop - s.start], k=10)
            assert values[g] == pytest.approx(v1[0], rel=1e-12, abs=1e-14)
            np.testing.assert_allclose(grad[s], g1, rtol=1e-12, atol=1e-14)
