"""Worked examples from the course material, reproduced through every face of a measure.

Each test is a literal case: its inputs and the numbers it expects are written here, and its
docstring cites the document they come from (``SOURCES``), with the slide or section. The
documents are not read. Where a slide gives only counts, the inputs are reconstructed here and
the construction is said in the test.
"""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

import rankframe as rf
from rankframe import expr as rfx

#: The documents the worked examples come from, by author and title.
SOURCES = {
    "FH": "Fürnkranz & Hüllermeier, Preference learning: loss functions (tutorial slides)",
    "SSBD": "Shalev-Shwartz & Ben-David, Understanding Machine Learning (2014), section 17.4, p. 202",
    "DE": "Abir De, CS 419M Introduction to Machine Learning (Spring 2021-22), Lecture 4 "
    "'Evaluation protocol and Ranking losses' (scribe notes)",
    "WIKI": "Russian-language wiki article on learning to rank, sections on AP@k/MAP@k and 'DCG' "
    "(the text names no author or title; its listed source is K. V. Vorontsov's lecture course "
    "on machine learning, machinelearning.ru)",
}

# FH, slide 'Ranking Errors': items A..E, target E > B > C > A > D, prediction A > B > E > C > D
TARGET_RANK = {"E": 1, "B": 2, "C": 3, "A": 4, "D": 5}
PRED_RANK = {"A": 1, "B": 2, "E": 3, "C": 4, "D": 5}


def seed_run() -> pl.DataFrame:
    docs = list("ABCDE")
    return pl.DataFrame({
        "query_id": "q",
        "doc_id": docs,
        "score": [float(10 - PRED_RANK[d]) for d in docs],
        "target_rank": [TARGET_RANK[d] for d in docs],
    })


def values(frame: pl.DataFrame) -> dict[str, float]:
    return dict(zip(frame["measure"], frame["value"], strict=True))


def test_every_worked_example_cites_its_source() -> None:
    tests = [f for name, f in globals().items() if name.startswith("test_") and callable(f)]
    assert len(tests) >= 15
    for f in tests:
        if f is test_every_worked_example_cites_its_source:
            continue
        doc = f.__doc__ or ""
        assert any(f"{key}," in doc or f"{key}:" in doc for key in SOURCES), f.__name__


def test_rank_distances() -> None:
    """FH, slides 'Spearman's Footrule', 'Spearman Distance', 'Kendall's Distance', 'Position Error'.

    Footrule 6, Spearman distance 14, Kendall distance 4, position error 2; Spearman's rho
    1 - 6 D_S / (c (c^2 - 1)), Kendall's tau 1 - 4 D_tau / (c (c - 1)); slide 'Gamma
    Coefficient': identical to Kendall's tau if both rankings are total.
    """
    got = values(rf.evaluate(
        run=seed_run(), target="target_rank", target_order="asc",
        measures=["Footrule", "SpearmanDist", "KendallDist", "PosError", "SpearmanRho",
                  "KendallTau", "KendallTauB", "Gamma"],
    ))
    assert got["Footrule"] == 6.0
    assert got["SpearmanDist"] == 14.0
    assert got["KendallDist"] == 4.0
    assert got["PosError"] == 2.0
    c = 5
    assert got["SpearmanRho"] == pytest.approx(1 - 6 * 14 / (c * (c * c - 1)), abs=1e-15)
    assert got["KendallTau"] == pytest.approx(1 - 4 * 4 / (c * (c - 1)), abs=1e-15)
    # both rankings total: tau-b and gamma equal the slides' tau
    assert got["KendallTauB"] == pytest.approx(got["KendallTau"], abs=1e-15)
    assert got["Gamma"] == pytest.approx(got["KendallTau"], abs=1e-15)


def test_rank_distances_per_item_differences() -> None:
    """FH, slides 'Notation', 'Spearman's Footrule' and 'Spearman Distance'.

    R(1) = r(r^-1(1)) = 4; d_x = 3 + 0 + 1 + 0 + 2 = 6 (A..E), squared 3^2 + 0 + 1^2 + 0 + 2^2 = 14.
    """
    first = min(PRED_RANK, key=PRED_RANK.__getitem__)
    assert first == "A"
    assert TARGET_RANK[first] == 4
    d = {x: abs(TARGET_RANK[x] - PRED_RANK[x]) for x in "ABCDE"}
    assert [d[x] for x in "ABCDE"] == [3, 0, 1, 0, 2]
    assert sum(d.values()) == 6
    assert sum(v * v for v in d.values()) == 14


def test_discounted_error_by_hand() -> None:
    """FH, slide 'Discounted Error': w_i = 1/log(r(x_i) + 1), r the target rank (base 2), by hand.

    The slide's own example (3/log 2 + 0 + 1/log 4 + 0 + 2/log 6) does not follow from its
    formula; the formula gives A: 3/log2(4+1), C: 1/log2(3+1), E: 2/log2(1+1).
    """
    got = values(rf.evaluate(run=seed_run(), target="target_rank", target_order="asc",
                             measures=["DiscError"]))
    by_hand = 3 / math.log2(5) + 1 / math.log2(4) + 2 / math.log2(2)
    assert got["DiscError"] == pytest.approx(by_hand, abs=1e-12)
    slide = 3 / math.log(2) + 1 / math.log(4) + 2 / math.log(6)
    assert abs(got["DiscError"] - slide) > 0.1  # documented deviation from the slide's example


def test_dcg_with_rank_gains() -> None:
    """FH, slide '(Normalized) Discounted Cumulative Gain'.

    DCG = sum (c - R(i)) / log(i + 1), IDCG = sum (c - i) / log(i + 1): R = 4, 2, 1, 3, 5
    along A > B > E > C > D.
    """
    got = values(rf.evaluate(run=seed_run(), target="target_rank", target_order="asc",
                             measures=["RankDCG", "RankNDCG"]))
    c = 5
    dcg = sum((c - r) / math.log2(i + 1) for i, r in enumerate([4, 2, 1, 3, 5], start=1))
    idcg = sum((c - i) / math.log2(i + 1) for i in range(1, c + 1))
    assert got["RankDCG"] == pytest.approx(dcg, abs=1e-12)
    assert got["RankNDCG"] == pytest.approx(dcg / idcg, abs=1e-12)


def test_dcg_with_level_gains_is_jarvelin_kekalainen() -> None:
    """FH, slide 'Normalized Discounted Cumulative Gain [Jarvelin & Kekalainen, 2002]'.

    DCG = sum l(i) / log(i + 1): with grades as levels and every judged document retrieved,
    DCG(level) is trec nDCG's.
    """
    run = pl.DataFrame({"query_id": "q", "doc_id": list("abcd"), "score": [4.0, 3, 2, 1]})
    qrels = pl.DataFrame({"query_id": "q", "doc_id": list("abcd"), "relevance": [1, 3, 0, 2]})
    got = values(rf.evaluate(qrels, run, ["RankDCG(gain='level')", "RankNDCG(gain='level')",
                                          "DCG", "nDCG"]))
    by_hand = 1 / math.log2(2) + 3 / math.log2(3) + 0 + 2 / math.log2(5)
    assert got["RankDCG(gain='level')"] == pytest.approx(by_hand, abs=1e-12)
    assert got["RankDCG(gain='level')"] == pytest.approx(got["DCG"], abs=1e-12)
    assert got["RankNDCG(gain='level')"] == pytest.approx(got["nDCG"], abs=1e-12)


def bipartite() -> tuple[pl.DataFrame, pl.DataFrame]:
    """Two relevant (a, d), three not; prediction a > b > c > d > e.

    Reconstructed from the slide's counts: a beats its 3 negatives, d beats e only, so 4 of the
    c1 * c0 = 6 (positive, negative) pairs are ordered right and 2 are inverted.
    """
    run = pl.DataFrame({"query_id": "q", "doc_id": list("abcde"), "score": [5.0, 4, 3, 2, 1]})
    qrels = pl.DataFrame({"query_id": "q", "doc_id": list("abcde"), "relevance": [1, 0, 0, 1, 0]})
    return qrels, run


def test_bipartite_auc() -> None:
    """FH, slides 'Bipartite Rankings' and 'Evaluating Partial Target Rankings'.

    c1 (c - c1) = 6 preferences; D_tau = 2, AUC = 4/6 = 1 - normalised Kendall's distance.
    """
    qrels, run = bipartite()
    c, c1 = 5, 2
    assert c1 * (c - c1) == 6
    got = values(rf.evaluate(qrels, run, ["AUC", "KendallDist", "KendallDist(normalize=true)",
                                          "CIndex"]))
    assert got["AUC"] == pytest.approx(4 / 6, abs=1e-15)
    assert got["KendallDist"] == 2.0
    # AUC = 1 - Kendall's distance normalised over the c1 * c0 preferences
    assert got["KendallDist(normalize=True)"] == pytest.approx(2 / 6, abs=1e-15)
    assert got["CIndex"] == pytest.approx(got["AUC"], abs=1e-15)


def multipartite() -> tuple[pl.DataFrame, pl.DataFrame]:
    """Levels 2: {b, d}, 1: {a}, 0: {c, e}; prediction a > b > c > d > e.

    Reconstructed from the slide's counts: 2*1 + 2*2 + 1*2 = 8 preferences, of which the
    prediction inverts 3 (a above b, a above d, c above d): C-index 5/8, D_tau 3.
    """
    run = pl.DataFrame({"query_id": "q", "doc_id": list("abcde"), "score": [5.0, 4, 3, 2, 1]})
    qrels = pl.DataFrame({"query_id": "q", "doc_id": list("abcde"), "relevance": [1, 2, 0, 2, 0]})
    return qrels, run


def test_multipartite_c_index() -> None:
    """FH, slides 'Evaluating Multipartite Rankings' (two of them).

    D_tau = 3, C-Index = 5/8; # of preferences sum c_i c_j <= c^2/2 (1 - 1/l); the C-index as
    the c_i c_j-weighted sum of pairwise AUCs; m-AUC = 2/(l (l - 1)) sum of pairwise AUCs.
    """
    qrels, run = multipartite()
    sizes = {2: 2, 1: 1, 0: 2}
    c, levels = 5, 3
    assert 2 * 1 + 2 * 2 + 1 * 2 == 8 <= c * c / 2 * (1 - 1 / levels)
    got = values(rf.evaluate(qrels, run, ["CIndex", "KendallDist", "MAUC", "PairAcc"]))
    assert got["CIndex"] == pytest.approx(5 / 8, abs=1e-15)
    assert got["KendallDist"] == 3.0
    assert got["PairAcc"] == got["CIndex"]
    # pairwise AUCs: (2 vs 1) 0/2, (2 vs 0) 3/4, (1 vs 0) 2/2
    aucs = {(2, 1): 0 / 2, (2, 0): 3 / 4, (1, 0): 2 / 2}
    weighted = sum(sizes[i] * sizes[j] * a for (i, j), a in aucs.items()) / 8
    assert got["CIndex"] == pytest.approx(weighted, abs=1e-15)  # the slide's rewriting
    assert got["MAUC"] == pytest.approx(2 / (levels * (levels - 1)) * sum(aucs.values()), abs=1e-15)
    assert got["MAUC"] == pytest.approx(sum(aucs.values()) / 3, abs=1e-15)


def test_gamma() -> None:
    """FH, slide 'Gamma Coefficient': gamma = (2 - 1) / (2 + 1) = 1/3.

    Reconstructed: a partial target ordering three pairs, a above b, c and d (a one-vs-three
    bipartite target), and a prediction b > a > c > d: two pairs agree (a>c, a>d), one is
    inverted (a>b); the pairs among b, c, d are tied in the target and left out.
    """
    run = pl.DataFrame({"query_id": "q", "doc_id": list("abcd"), "score": [3.0, 4, 2, 1]})
    qrels = pl.DataFrame({"query_id": "q", "doc_id": list("abcd"), "relevance": [1, 0, 0, 0]})
    got = values(rf.evaluate(qrels, run, ["Gamma", "KendallDist"]))
    assert got["Gamma"] == pytest.approx(1 / 3, abs=1e-15)
    assert got["KendallDist"] == 1.0


def test_jaccard_of_preferences() -> None:
    """FH, slide 'Evaluating Partial Structures in the Predicted Ranking': Jaccard coefficient.

    Size of intersection over size of union of the binary preferences in both sets: predicted
    {a>b, a>c, b>c} vs target {a>b, a>c}: 2 shared of 3 -> 2/3; by hand (the slide has no number).
    """
    run = pl.DataFrame({"query_id": "q", "doc_id": list("abc"), "score": [3.0, 2, 1]})
    qrels = pl.DataFrame({"query_id": "q", "doc_id": list("abc"), "relevance": [1, 0, 0]})
    assert rf.evaluate(qrels, run, ["PrefJaccard"]).item(0, "value") == pytest.approx(2 / 3)


def test_kendall_tau_loss() -> None:
    """SSBD, 'Kendall-Tau Loss': 2/(r(r-1)) * #pairs in different order.

    y' = (3, 2, 1), y = (3, 1, 2): 1 of 3 pairs.
    """
    run = pl.DataFrame({"query_id": "q", "doc_id": list("abc"), "score": [3.0, 2, 1],
                        "y": [3.0, 1, 2]})
    got = rf.evaluate(run=run, target="y", measures=["KendallLoss"]).item(0, "value")
    assert got == pytest.approx(2 / (3 * 2) * 1, abs=1e-15)


def test_ndcg_loss_with_top_k_discount() -> None:
    """SSBD, 'Normalized Discounted Cumulative Gain (NDCG)': 1 - G(y', y)/G(y, y), by hand.

    D(i) = 1/log2(r - i + 2) if i in {r - k + 1, ..., r}, else 0. r = 4 items with relevance
    y = (0, 2, 1, 3) and prediction order 1 > 2 > 3 > 4. With pi(y')_i the bottom-up position
    (4, 3, 2, 1), D(pi) = 1/log2(r - pi + 2) = 1/log2(top + 1).
    """
    y = [0, 2, 1, 3]
    r, k = 4, 2
    pi_pred = [4, 3, 2, 1]  # item 1 predicted best: position r from the bottom
    pi_true = [1, 3, 2, 4]  # sorted by y: item 4 best

    def discount(i: int) -> float:
        return 1 / math.log2(r - i + 2) if i >= r - k + 1 else 0.0

    g_pred = sum(discount(p) * yi for p, yi in zip(pi_pred, y, strict=True))
    g_true = sum(discount(p) * yi for p, yi in zip(pi_true, y, strict=True))
    run = pl.DataFrame({"query_id": "q", "doc_id": list("abcd"), "score": [4.0, 3, 2, 1]})
    qrels = pl.DataFrame({"query_id": "q", "doc_id": list("abcd"), "relevance": y})
    got = rf.evaluate(qrels, run, [f"nDCGLoss@{k}"]).item(0, "value")
    assert got == pytest.approx(1 - g_pred / g_true, abs=1e-12)
    assert rf.evaluate(qrels, run.with_columns(score=pl.Series([1.0, 3, 2, 4])),
                       [f"nDCGLoss@{k}"]).item(0, "value") == 0.0  # the ideal order


def precision_ap_dcg_frames() -> tuple[pl.DataFrame, pl.DataFrame]:
    """Two queries; q1 top 5 relevance 1,0,1,0,0 and one more relevant below; q2 y = 2,0,1."""
    run = pl.DataFrame({
        "query_id": ["q1"] * 7 + ["q2"] * 3,
        "doc_id": [f"d{i}" for i in range(7)] + ["e0", "e1", "e2"],
        "score": [7.0, 6, 5, 4, 3, 2, 1, 3, 2, 1],
    })
    qrels = pl.DataFrame({
        "query_id": ["q1"] * 7 + ["q2"] * 3,
        "doc_id": [f"d{i}" for i in range(7)] + ["e0", "e1", "e2"],
        "relevance": [1, 0, 1, 0, 0, 0, 1, 2, 0, 1],
    })
    return qrels, run


def test_precision_ap_at_k_map_at_k_dcg_at_k() -> None:
    """WIKI: AP@k = sum_{i<=k} y_i Precision@i / sum_{i<=k} y_i; MAP@k; DCG@k = sum (2^y - 1)/log(i+1)."""
    qrels, run = precision_ap_dcg_frames()
    per_q = rf.evaluate(qrels, run, ["P@5", "AP(norm='num_rel_ret')@5", "AP@5",
                                     "DCG(dcg='exp-log2')@3"], per_query=True)
    got = {(r["query_id"], r["measure"]): r["value"] for r in per_q.iter_rows(named=True)}
    assert got["q1", "P@5"] == pytest.approx(2 / 5)
    # AP@k = sum_{i<=k} y_i P@i / sum_{i<=k} y_i: (1/1 + 2/3) / 2
    assert got["q1", "AP(norm='num_rel_ret')@5"] == pytest.approx((1 + 2 / 3) / 2, abs=1e-15)
    # trec_eval's map_cut divides by every relevant document (3), not by those in the top k
    assert got["q1", "AP@5"] == pytest.approx((1 + 2 / 3) / 3, abs=1e-15)
    # DCG@k = sum (2^y - 1)/log2(i + 1): q2 y = 2, 0, 1 -> 3/1 + 0 + 1/2
    assert got["q2", "DCG(dcg='exp-log2')@3"] == pytest.approx(3.5, abs=1e-15)
    # MAP@k: the mean of AP@k over queries; q2's AP@5 = (1/1 + 2/3)/2
    means = values(rf.evaluate(qrels, run, ["AP(norm='num_rel_ret')@5"]))
    assert means["AP(norm='num_rel_ret')@5"] == pytest.approx(((1 + 2 / 3) / 2 + (1 + 2 / 3) / 2) / 2)


def test_pairwise_accuracy() -> None:
    """DE, section 4.2.5 'Evaluation of Ranking'.

    Sum over y_i > y_j of 1[h_i > h_j] + 1/2 1[h_i = h_j], over the number of such pairs.
    y = (2, 1, 0), h = (0.5, 0.5, 0.9): pairs (1,2) tie -> 1/2, (1,3) wrong, (2,3) wrong: 0.5 / 3.
    """
    df = pl.DataFrame({"q": 1, "h": [0.5, 0.5, 0.9], "y": [2, 1, 0]})
    # no doc ids: the tie between items 1 and 2 is averaged, not broken
    got = df.group_by("q").agg(rfx.measure("PairAcc", score="h", label="y", doc=None, ties="average"))
    assert got.item(0, "PairAcc") == pytest.approx(0.5 / 3, abs=1e-15)


def test_three_faces_agree_on_the_rank_distance_example(tmp_path: Path) -> None:
    """FH, slide 'Kendall's Distance': evaluate, the expression builder and the CLI give D_tau = 4."""
    run = seed_run()
    api = rf.evaluate(run=run, target="target_rank", target_order="asc",
                      measures=["KendallDist"]).item(0, "value")
    neg = run.with_columns(t=-pl.col("target_rank").cast(pl.Float64))
    built = neg.group_by("query_id").agg(
        rfx.measure("KendallDist", score="score", target="t", doc="doc_id")
    ).item(0, "KendallDist")
    path = tmp_path / "run.parquet"
    run.write_parquet(path)
    out = subprocess.run(
        [sys.executable, "-m", "rankframe", "evaluate", "--no-qrels", str(path),
         "--target", "target_rank", "--target-order", "asc", "-m", "KendallDist", "-f", "csv"],
        capture_output=True, text=True, check=True,
    ).stdout
    cli = float(out.strip().splitlines()[-1].split(",")[-1])
    assert api == built == cli == 4.0
