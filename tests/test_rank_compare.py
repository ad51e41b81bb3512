"""Measures comparing the predicted ranking with a target ranking, against independent oracles.

The families of ``rank_distance.py`` and ``rank_weighted.py`` (Footrule ... PairAcc, MAUC) are
checked

* against scipy / scikit-learn where those define the same statistic (``ties="average"``);
* against slow brute-force oracles written here from the documented semantics: the items of a
  query, the predicted order (trec_eval's tie rule or score ties kept), mid-ranks by counting,
  pair counts by a double loop, expectations over predicted ties by enumerating their orders;
* the expression builder ``rfx.measure`` against ``rf.evaluate``;
* a few hand-made cases (perfect, reversed, fully tied target, ``judged_only``, no item).

Nothing here reads rankframe internals: the oracles rebuild every quantity from the raw rows.
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from sklearn.metrics import roc_auc_score

import rankframe as rf
from rankframe import expr as rfx

# The profile (conftest.py) sets the scale; these properties are cheap enough for 2x its count
# (3x took ~2.5 min of CI's 20).
EXAMPLES = 2 * settings.default.max_examples

#: ASCII doc ids whose byte order differs from any numeric order ("d9" > "d10", "X" < "a").
DOC_POOL = ["d9", "d10", "d1", "d0", "a", "B", "b", "X", "x", "zz", "doc_2", "doc_10", "e", "f", "g", "h"]
SCORES = [-1.5, 0.0, 0.25, 0.5, 1.0, 2.0]
TARGETS = (0.0, 0.5, 1.0, 2.0, 3.0)
BINARY = (0.0, 1.0)
NEG_INF = -math.inf
TOL = 1e-9


# --------------------------------------------------------------------------------------------
# random data
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Doc:
    doc: str
    score: float | None  # None: the run did not return it
    grade: int | None  # None: not in the qrels
    target: float | None  # the run's target column (run rows only)


Query = tuple[str, tuple[Doc, ...]]


@st.composite
def queries(
    draw: st.DrawFn, *, judged: bool, targets: tuple[float, ...] = TARGETS, max_docs: int = 12
) -> list[Query]:
    """1-4 queries of 1..max_docs retrieved docs (+ up to 3 judged unretrieved ones if judged)."""
    out = []
    for qi in range(draw(st.integers(1, 4))):
        n = draw(st.integers(1, max_docs))
        n_extra = draw(st.integers(0, 3)) if judged else 0
        names = draw(st.permutations(DOC_POOL))[: n + n_extra]
        docs = []
        for j, name in enumerate(names):
            if j < n:
                score = draw(st.sampled_from(SCORES))
                target = draw(st.sampled_from(targets))
                grade = draw(st.none() | st.integers(-1, 3)) if judged else None
            else:
                score, target, grade = None, None, draw(st.integers(-1, 3))
            docs.append(Doc(name, score, grade, target))
        if judged and all(d.grade is None for d in docs):  # every evaluated query has qrels
            d = docs[0]
            docs[0] = Doc(d.doc, d.score, draw(st.integers(-1, 3)), d.target)
        out.append((f"q{qi}", tuple(docs)))
    return out


def frames(qs: list[Query]) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The run (with target column ``t``) and the qrels of ``qs``."""
    run = pl.DataFrame(
        [(q, d.doc, d.score, d.target) for q, docs in qs for d in docs if d.score is not None],
        schema={"query_id": pl.String, "doc_id": pl.String, "score": pl.Float64, "t": pl.Float64},
        orient="row",
    )
    qrels = pl.DataFrame(
        [(q, d.doc, d.grade) for q, docs in qs for d in docs if d.grade is not None],
        schema={"query_id": pl.String, "doc_id": pl.String, "relevance": pl.Int64},
        orient="row",
    )
    return run, qrels


def canonical(spec: str) -> str:
    return repr(rf.parse_measure(spec)[0])


def evaluate(qs: list[Query], specs: list[str], *, mode: str, ties: str, **kw: object) -> dict:
    """``{(query, spec): value}`` from rf.evaluate; mode: grades, target, target+qrels."""
    run, qrels = frames(qs)
    if mode == "grades":
        out = rf.evaluate(qrels, run, specs, per_query=True, ties=ties, **kw)
    elif mode == "target":
        out = rf.evaluate(run=run, target="t", measures=specs, per_query=True, ties=ties, **kw)
    else:
        out = rf.evaluate(qrels, run, specs, per_query=True, ties=ties, target="t", **kw)
    names = {canonical(s): s for s in specs}
    return {(q, names[m]): v for q, m, v in out.select("query_id", "measure", "value").iter_rows()}


# --------------------------------------------------------------------------------------------
# brute-force oracle
# --------------------------------------------------------------------------------------------
def items_of(
    docs: tuple[Doc, ...],
    *,
    mode: str,
    ties: str,
    judged_only: bool = False,
    rel: int | None = None,
    sign: float = 1.0,
) -> list[tuple[float, float]]:
    """``(target, prediction)`` of every item, both higher-is-better.

    Items: with grades every retrieved row and every judged one (grade >= 0; an unretrieved
    row with a negative grade is no item), the run rows with a target column; judged_only
    keeps the documents with a grade >= 0. Prediction: minus the trec_eval position (score desc,
    then doc id descending in byte order), or the score itself under "average" ties; documents
    the run did not return are tied below all retrieved ones. ``rel``: binarise the target.
    """
    if mode == "grades":  # retrieved, or judged with a grade >= 0
        keep = [d for d in docs if d.score is not None or (d.grade is not None and d.grade >= 0)]
    else:
        keep = [d for d in docs if d.score is not None]
    if judged_only:
        keep = [d for d in keep if d.grade is not None and d.grade >= 0]
    retrieved = [d for d in keep if d.score is not None]
    order = sorted(retrieved, key=lambda d: (d.score, d.doc.encode()), reverse=True)
    position = {d.doc: i + 1 for i, d in enumerate(order)}
    out = []
    for d in keep:
        if d.score is None:
            p = NEG_INF
        else:
            p = d.score if ties == "average" else -float(position[d.doc])
        if mode == "grades":
            raw = d.grade
            t = float(max(d.grade, 0)) if d.grade is not None else 0.0
        else:
            raw = t = sign * d.target
        if rel is not None:
            t = 1.0 if raw is not None and raw >= rel else 0.0
        out.append((t, p))
    return out


def midranks(values: list[float]) -> list[float]:
    """1 = largest; equal values share the mean of their positions."""
    return [1.0 + sum(w > v for w in values) + (sum(w == v for w in values) - 1) / 2.0 for v in values]


def div(a: float, b: float) -> float:
    return a / b if b != 0 else 0.0


class Stats:
    """Everything the oracles need about one list of items, counted the slow way."""

    def __init__(self, items: list[tuple[float, float]]) -> None:
        self.t = [t for t, _ in items]
        self.p = [p for _, p in items]
        self.c = len(items)
        self.rt = midranks(self.t)
        self.rp = midranks(self.p)
        self.C = self.D = self.Tp = self.Tt = self.Tpt = 0
        for (t1, p1), (t2, p2) in itertools.combinations(items, 2):
            self.Tt += t1 == t2
            self.Tp += p1 == p2
            self.Tpt += t1 == t2 and p1 == p2
            if t1 != t2 and p1 != p2:
                if (t1 > t2) == (p1 > p2):
                    self.C += 1
                else:
                    self.D += 1
        self.N = self.c * (self.c - 1) // 2
        assert self.C + self.D + self.Tp + self.Tt - self.Tpt == self.N

    def groups(self) -> list[list[int]]:
        """Item indices in predicted order, grouped by predicted ties."""
        values = sorted(set(self.p), reverse=True)
        return [[i for i in range(self.c) if self.p[i] == v] for v in values]

    def concordance(self) -> float:
        return div(self.C + (self.Tp - self.Tpt) / 2.0, self.N - self.Tt)

    def spearman_rho(self) -> float:
        mt = sum(self.rt) / self.c
        mp = sum(self.rp) / self.c
        num = sum((a - mt) * (b - mp) for a, b in zip(self.rt, self.rp, strict=True))
        den = math.sqrt(sum((a - mt) ** 2 for a in self.rt) * sum((b - mp) ** 2 for b in self.rp))
        return div(num, den)

    def pos_error(self) -> float:
        if not self.c:
            return 0.0
        best = max(self.t)
        before = 0
        for g in self.groups():
            top = [self.t[i] == best for i in g]
            if not any(top):
                before += len(g)
                continue
            if len(g) <= 7:  # expected over every order of the tie group
                perms = itertools.permutations(range(len(g)))
                firsts = [[top[k] for k in perm].index(True) for perm in perms]
                return before + sum(firsts) / len(firsts)
            return before + top.count(False) / (top.count(True) + 1)
        raise AssertionError  # pragma: no cover

    def gains(self, gain: str) -> list[float]:
        return list(self.t) if gain == "level" else [self.c - r for r in self.rt]

    def dcg(self, gain: str, k: int | None) -> float:
        g = self.gains(gain)
        total, start = 0.0, 1
        for group in self.groups():
            m = len(group)
            if m <= 6:  # the mean over every order of the predicted ties
                orders = list(itertools.permutations(group))
                total += sum(
                    sum(g[i] * discount(start + j, k) for j, i in enumerate(order)) for order in orders
                ) / len(orders)
            else:  # each member is equally likely at each of the group's positions
                total += sum(g[i] for i in group) * sum(discount(start + j, k) for j in range(m)) / m
            start += m
        return total

    def idcg(self, gain: str, k: int | None) -> float:
        return sum(x * discount(i + 1, k) for i, x in enumerate(sorted(self.gains(gain), reverse=True)))

    def ndcg(self, gain: str, k: int | None) -> float:
        return div(self.dcg(gain, k), self.idcg(gain, k))

    def mauc(self) -> float:
        """Mean over the pairs of target levels present of the AUC between the two levels."""
        levels = sorted(set(self.t))
        aucs = []
        for i, low in enumerate(levels):
            for high in levels[i + 1 :]:
                ph = [p for t, p in zip(self.t, self.p, strict=True) if t == high]
                pl_ = [p for t, p in zip(self.t, self.p, strict=True) if t == low]
                wins = sum(1.0 if a > b else 0.5 if a == b else 0.0 for a in ph for b in pl_)
                aucs.append(wins / (len(ph) * len(pl_)))
        return div(sum(aucs), len(aucs))


def discount(position: int, k: int | None) -> float:
    return 0.0 if k is not None and position > k else 1.0 / math.log2(position + 1)


Oracle = Callable[[Stats, Stats, Stats], float]  # graded, binary at level 1, binary at level 2

ORACLES: dict[str, Oracle] = {
    "Footrule": lambda s, b1, b2: sum(abs(a - b) for a, b in zip(s.rt, s.rp, strict=True)),
    "SpearmanDist": lambda s, b1, b2: sum((a - b) ** 2 for a, b in zip(s.rt, s.rp, strict=True)),
    "SpearmanRho": lambda s, b1, b2: s.spearman_rho(),
    "KendallDist": lambda s, b1, b2: float(s.D),
    "KendallDist(normalize=true)": lambda s, b1, b2: div(s.D, s.N - s.Tt),
    "KendallTau": lambda s, b1, b2: 1.0 - div(2.0 * s.D, s.N) if s.N else 0.0,
    "KendallTauB": lambda s, b1, b2: div(s.C - s.D, math.sqrt((s.N - s.Tp) * (s.N - s.Tt))),
    "Gamma": lambda s, b1, b2: div(s.C - s.D, s.C + s.D),
    "SomersD": lambda s, b1, b2: div(s.C - s.D, s.N - s.Tt),
    "KendallLoss": lambda s, b1, b2: div(s.D + (s.Tp - s.Tpt) + (s.Tt - s.Tpt), s.N),
    "PrefJaccard": lambda s, b1, b2: div(s.C, (s.N - s.Tp) + (s.N - s.Tt) - s.C),
    "CIndex": lambda s, b1, b2: s.concordance(),
    "PairAcc": lambda s, b1, b2: s.concordance(),
    "AUC": lambda s, b1, b2: b1.concordance(),
    "AUC(rel=2)": lambda s, b1, b2: b2.concordance(),
    "MAUC": lambda s, b1, b2: s.mauc(),
    "PosError": lambda s, b1, b2: s.pos_error(),
    "DiscError": lambda s, b1, b2: sum(
        abs(a - b) / math.log2(a + 1) for a, b in zip(s.rt, s.rp, strict=True)
    ),
    "RankDCG": lambda s, b1, b2: s.dcg("rank", None),
    "RankNDCG": lambda s, b1, b2: s.ndcg("rank", None),
    "RankDCG(gain=level)": lambda s, b1, b2: s.dcg("level", None),
    "RankNDCG(gain=level)": lambda s, b1, b2: s.ndcg("level", None),
    "RankDCG@3": lambda s, b1, b2: s.dcg("rank", 3),
    "RankNDCG@3": lambda s, b1, b2: s.ndcg("rank", 3),
    "RankNDCG(gain=rank)@1": lambda s, b1, b2: s.ndcg("rank", 1),
    "RankDCG(gain=level)@2": lambda s, b1, b2: s.dcg("level", 2),
    "RankNDCG(gain=level)@2": lambda s, b1, b2: s.ndcg("level", 2),
    "nDCGLoss": lambda s, b1, b2: 1.0 - s.ndcg("level", None) if s.idcg("level", None) else 0.0,
    "nDCGLoss@1": lambda s, b1, b2: 1.0 - s.ndcg("level", 1) if s.idcg("level", 1) else 0.0,
    "nDCGLoss@3": lambda s, b1, b2: 1.0 - s.ndcg("level", 3) if s.idcg("level", 3) else 0.0,
}
#: judged_only variants: the same oracles over the judged items only.
JUDGED_ONLY: dict[str, Oracle] = {
    "Footrule(judged_only=true)": ORACLES["Footrule"],
    "KendallTauB(judged_only=true)": ORACLES["KendallTauB"],
    "KendallDist(normalize=true,judged_only=true)": ORACLES["KendallDist(normalize=true)"],
    "CIndex(judged_only=true)": ORACLES["CIndex"],
    "AUC(judged_only=true)": ORACLES["AUC"],
    "PosError(judged_only=true)": ORACLES["PosError"],
    "RankNDCG(gain=level,judged_only=true)@3": lambda s, b1, b2: s.ndcg("level", 3),
    "nDCGLoss(judged_only=true)": ORACLES["nDCGLoss"],
    "MAUC(judged_only=true)": ORACLES["MAUC"],
    "Gamma(judged_only=true)": ORACLES["Gamma"],
    "KendallLoss(judged_only=true)": ORACLES["KendallLoss"],
}


def oracle(docs: tuple[Doc, ...], spec: str, *, mode: str, ties: str, sign: float = 1.0) -> float:
    judged_only = spec in JUDGED_ONLY
    kw = {"mode": mode, "ties": ties, "judged_only": judged_only, "sign": sign}
    s, b1, b2 = (Stats(items_of(docs, rel=rel, **kw)) for rel in (None, 1, 2))
    return (JUDGED_ONLY if judged_only else ORACLES)[spec](s, b1, b2)


def assert_matches(got: dict, expected: dict, context: object) -> None:
    assert set(got) == set(expected), (sorted(got), sorted(expected))
    bad = []
    for key, want in expected.items():
        value = got[key]
        if math.isnan(value) or not math.isclose(value, want, rel_tol=TOL, abs_tol=TOL):
            bad.append((key, value, want))
    assert not bad, f"(key, rankframe, oracle): {bad}\ninput: {context}"


# --------------------------------------------------------------------------------------------
# 1a. scipy / scikit-learn, ties="average"
# --------------------------------------------------------------------------------------------
def _scipy(fn: Callable, x: list[float], y: list[float]) -> float:
    if len(x) < 2:
        return 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        value = float(fn(x, y).statistic)
    return 0.0 if math.isnan(value) else value


def _auc(y: list[bool], score: list[float]) -> float:
    return float(roc_auc_score(y, score)) if 0 < sum(y) < len(y) else 0.0


LIBRARY_SPECS = ["KendallTauB", "SpearmanRho", "SomersD", "CIndex", "AUC", "AUC(rel=2)"]


def _library_expected(t: list[float], p: list[float], bin1: list[bool], bin2: list[bool]) -> dict:
    out = {
        "KendallTauB": _scipy(stats.kendalltau, t, p),
        "SpearmanRho": _scipy(stats.spearmanr, t, p),
        # Somers' d of the prediction given the target: scipy's D(Y|X) with X the target
        "SomersD": _scipy(stats.somersd, t, p),
        "AUC": _auc(bin1, p),
        "AUC(rel=2)": _auc(bin2, p),
    }
    levels = sorted(set(t))
    if len(levels) <= 2:  # a bipartite (or constant) target: the C-index is the AUC
        out["CIndex"] = _auc([x == levels[-1] for x in t], p)
    return out


@settings(max_examples=EXAMPLES)
@given(qs=st.one_of(queries(judged=False), queries(judged=False, targets=BINARY)))
def test_target_column_matches_scipy_and_sklearn(qs: list[Query]) -> None:
    got = evaluate(qs, LIBRARY_SPECS, mode="target", ties="average")
    expected = {}
    for q, docs in qs:
        t = [d.target for d in docs]
        p = [d.score for d in docs]
        values = _library_expected(t, p, [x >= 1 for x in t], [x >= 2 for x in t])
        expected.update({(q, k): v for k, v in values.items()})
    got = {k: v for k, v in got.items() if k in expected}
    bad = [(k, got[k], v) for k, v in expected.items() if not math.isclose(got[k], v, abs_tol=1e-12)]
    assert not bad, bad


@settings(max_examples=EXAMPLES)
@given(qs=queries(judged=True))
def test_grades_match_scipy_and_sklearn(qs: list[Query]) -> None:
    # items: every retrieved doc and every judged one (grade >= 0); unretrieved judged docs
    # score below the whole run
    got = evaluate(qs, LIBRARY_SPECS, mode="grades", ties="average")
    bottom = min(SCORES) - 1.0
    expected = {}
    for q, docs in qs:
        docs = tuple(d for d in docs if d.score is not None or (d.grade is not None and d.grade >= 0))
        t = [float(max(d.grade, 0)) if d.grade is not None else 0.0 for d in docs]
        p = [d.score if d.score is not None else bottom for d in docs]
        grades = [d.grade if d.grade is not None else -1 for d in docs]
        values = _library_expected(t, p, [g >= 1 for g in grades], [g >= 2 for g in grades])
        expected.update({(q, k): v for k, v in values.items()})
    got = {k: v for k, v in got.items() if k in expected}
    bad = [(k, got[k], v) for k, v in expected.items() if not math.isclose(got[k], v, abs_tol=1e-12)]
    assert not bad, bad


# --------------------------------------------------------------------------------------------
# 1b. brute force, both tie policies, grades or a target column
# --------------------------------------------------------------------------------------------
MODES = ["grades", "target", "target+qrels"]


@pytest.mark.parametrize("ties", ["trec_eval", "average"])
@pytest.mark.parametrize("mode", MODES)
@settings(max_examples=EXAMPLES)
@given(data=st.data())
def test_brute_force_oracles(mode: str, ties: str, data: st.DataObject) -> None:
    qs = data.draw(queries(judged=mode != "target"))
    items_mode = "grades" if mode == "grades" else "target"
    specs = list(ORACLES)
    if ties == "trec_eval" and mode != "target":  # judged_only needs qrels and total orders
        specs += list(JUDGED_ONLY)  # including queries it leaves without any item
    got = evaluate(qs, specs, mode=mode, ties=ties)
    expected = {(q, spec): oracle(docs, spec, mode=items_mode, ties=ties) for q, docs in qs for spec in specs}
    assert_matches(got, expected, qs)


@settings(max_examples=EXAMPLES)
@given(qs=queries(judged=False), ties=st.sampled_from(["trec_eval", "average"]))
def test_target_order_asc(qs: list[Query], ties: str) -> None:
    # target_order="asc": smaller target values rank first (a rank column)
    run, _ = frames(qs)
    specs = list(ORACLES)
    out = rf.evaluate(run=run, target="t", target_order="asc", measures=specs, per_query=True, ties=ties)
    names = {canonical(s): s for s in specs}
    got = {(q, names[m]): v for q, m, v in out.select("query_id", "measure", "value").iter_rows()}
    expected = {
        (q, spec): oracle(docs, spec, mode="target", ties=ties, sign=-1.0) for q, docs in qs for spec in specs
    }
    assert_matches(got, expected, qs)


# --------------------------------------------------------------------------------------------
# 1c. the expression builder agrees with evaluate
# --------------------------------------------------------------------------------------------
MAUC_LEVELS = "MAUC(levels=(0,0.5,1,2,3))"


def judged_df(qs: list[Query]) -> pl.DataFrame:
    return pl.DataFrame(
        [(q, d.doc, d.score, d.grade, d.target) for q, docs in qs for d in docs],
        schema={"q": pl.String, "doc": pl.String, "score": pl.Float64, "label": pl.Int64, "t": pl.Float64},
        orient="row",
    )


@pytest.mark.parametrize("ties", ["trec_eval", "average"])
@pytest.mark.parametrize("mode", ["grades", "target"])
@settings(max_examples=EXAMPLES // 2)  # (the profile's number: each example evaluates a plan)
@given(data=st.data())
def test_expression_builder_matches_evaluate(mode: str, ties: str, data: st.DataObject) -> None:
    qs = data.draw(queries(judged=mode == "grades"))
    target = "t" if mode == "target" else None
    # an expression needs MAUC's levels: every grade and every target value
    specs = [MAUC_LEVELS if s == "MAUC" else s for s in ORACLES]
    if ties == "trec_eval" and mode == "grades":  # the builder's judged_only path (all: above)
        some = ("CIndex(", "Footrule(", "PosError(", "RankNDCG(", "MAUC(")
        specs += [s.replace("MAUC(", MAUC_LEVELS[:-1] + ",") for s in JUDGED_ONLY if s.startswith(some)]
    mine = (
        judged_df(qs)
        .group_by("q")
        .agg(
            rfx.measure(s, score="score", label="label", doc="doc", target=target, ties=ties).alias(s)
            for s in specs
        )
    )
    got = {(row["q"], s): row[s] for row in mine.iter_rows(named=True) for s in specs}
    ref = evaluate(qs, specs, mode=mode, ties=ties)
    assert set(got) == set(ref)
    bad = [(k, got[k], v) for k, v in ref.items() if not math.isclose(got[k], v, rel_tol=TOL, abs_tol=TOL)]
    assert not bad, f"(key, builder, evaluate): {bad}\ninput: {qs}"


# --------------------------------------------------------------------------------------------
# 2. hand-made cases
# --------------------------------------------------------------------------------------------
def _one_query(score: list[float], target: list[float], **kw: object) -> dict[str, float]:
    run = pl.DataFrame(
        {
            "query_id": "q",
            "doc_id": [f"d{i}" for i in range(len(score))],
            "score": [float(x) for x in score],
            "t": [float(x) for x in target],
        }
    )
    specs = list(ORACLES)
    out = rf.evaluate(run=run, target="t", measures=specs, per_query=True, **kw)
    names = {canonical(s): s for s in specs}
    values = {names[m]: v for m, v in out.select("measure", "value").iter_rows()}
    assert not any(math.isnan(v) for v in values.values()), values
    return values


@pytest.mark.parametrize("ties", ["trec_eval", "average"])
def test_perfect_prediction(ties: str) -> None:
    v = _one_query([5, 4, 3, 2, 1], [4, 3, 2, 1, 0], ties=ties)
    for name in [
        "KendallTauB",
        "KendallTau",
        "SpearmanRho",
        "Gamma",
        "SomersD",
        "CIndex",
        "PairAcc",
        "PrefJaccard",
        "RankNDCG",
        "RankNDCG(gain=level)",
        "RankNDCG@3",
        "RankNDCG(gain=level)@2",
    ]:
        assert v[name] == pytest.approx(1.0, abs=1e-12), name
    for name in [
        "Footrule",
        "SpearmanDist",
        "KendallDist",
        "KendallDist(normalize=true)",
        "KendallLoss",
        "PosError",
        "DiscError",
        "nDCGLoss",
        "nDCGLoss@1",
        "nDCGLoss@3",
    ]:
        assert v[name] == pytest.approx(0.0, abs=1e-12), name
    assert v["AUC"] == 1.0  # positives: target >= 1


@pytest.mark.parametrize("ties", ["trec_eval", "average"])
def test_reversed_prediction(ties: str) -> None:
    v = _one_query([1, 2, 3, 4, 5], [4, 3, 2, 1, 0], ties=ties)
    for name in ["KendallTauB", "KendallTau", "SpearmanRho", "Gamma", "SomersD"]:
        assert v[name] == pytest.approx(-1.0, abs=1e-12), name
    for name in ["CIndex", "PairAcc", "PrefJaccard"]:
        assert v[name] == 0.0, name
    assert v["KendallLoss"] == 1.0
    assert v["KendallDist"] == 10.0
    assert v["KendallDist(normalize=true)"] == 1.0
    assert v["PosError"] == 4.0
    assert v["Footrule"] == 12.0  # |1-5| + |2-4| + 0 + |4-2| + |5-1|
    assert v["SpearmanDist"] == 40.0
    assert v["AUC"] == 0.0  # the one negative (target 0) is ranked first
    assert v["RankNDCG"] < 1.0


@pytest.mark.parametrize("ties", ["trec_eval", "average"])
def test_target_ties_everything(ties: str) -> None:
    v = _one_query([3, 1, 2, 2], [1, 1, 1, 1], ties=ties)
    for name in [
        "KendallTauB",
        "SpearmanRho",
        "Gamma",
        "SomersD",
        "CIndex",
        "PairAcc",
        "KendallDist",
        "KendallDist(normalize=true)",
        "AUC",
        "PosError",
    ]:
        assert v[name] == 0.0, name
    assert v["RankNDCG(gain=level)"] == pytest.approx(1.0)  # every order is ideal
    assert v["nDCGLoss"] == pytest.approx(0.0, abs=1e-12)
    # gains c - R = 4 - 2.5 for every item: every order is ideal too
    assert v["RankNDCG"] == pytest.approx(1.0)


def test_prediction_ties_everything_under_average() -> None:
    v = _one_query([1, 1, 1, 1], [4, 3, 2, 1], ties="average")
    for name in ["KendallTauB", "SpearmanRho", "Gamma", "SomersD"]:
        assert v[name] == 0.0, name
    for name in ["CIndex", "PairAcc"]:
        assert v[name] == 0.5, name
    assert v["PosError"] == 1.5  # the best item is equally likely at each of 4 positions
    assert v["KendallLoss"] == 1.0  # every pair tied in the prediction only
    assert v["PrefJaccard"] == 0.0


def test_single_item() -> None:
    # no pair: every pair-based value is 0; the level DCG is the item's target (2) at position 1
    v = _one_query([1.0], [2.0])
    level = {
        "RankNDCG(gain=level)": 1.0,
        "RankNDCG(gain=level)@2": 1.0,
        "RankDCG(gain=level)": 2.0,
        "RankDCG(gain=level)@2": 2.0,
    }
    for name, value in v.items():
        assert value == level.get(name, 0.0), name


def _qrels_run() -> tuple[pl.DataFrame, pl.DataFrame]:
    run = pl.DataFrame(
        {
            "query_id": ["q1"] * 6 + ["q2"] * 3,
            "doc_id": ["a", "b", "c", "d", "e", "f", "a", "b", "c"],
            "score": [6.0, 5, 4, 3, 3, 1, 1, 2, 3],
        }
    )
    qrels = pl.DataFrame(
        {
            "query_id": ["q1"] * 5 + ["q2"] * 3,
            "doc_id": ["a", "c", "e", "f", "g", "a", "b", "z"],
            "relevance": [0, 2, 1, 3, 2, 1, 0, 2],
        }
    )
    return run, qrels


JO_SPECS = ["CIndex", "KendallTauB", "Footrule", "AUC", "PosError", "RankNDCG(gain=level)@3"]


def judged_only(spec: str) -> str:
    """``X(p)@k`` -> ``X(p,judged_only=true)@k``."""
    name, at, cutoff = spec.partition("@")
    name = name[:-1] + ",judged_only=true)" if name.endswith(")") else name + "(judged_only=true)"
    return name + at + cutoff


def test_judged_only_param_equals_judged_restriction() -> None:
    # judged_only drops the documents without a grade >= 0: evaluating the plain measures on
    # the run restricted to the judged documents (and the qrels to the grades >= 0) agrees
    run, qrels = _qrels_run()
    qrels = qrels.vstack(pl.DataFrame({"query_id": ["q1"], "doc_id": ["b"], "relevance": [-1]}))
    judged = qrels.filter(pl.col("relevance") >= 0)
    restricted = run.join(judged, on=["query_id", "doc_id"], how="semi")
    a = rf.evaluate(qrels, run, [judged_only(s) for s in JO_SPECS])
    b = rf.evaluate(judged, restricted, JO_SPECS)
    assert a["value"].to_list() == pytest.approx(b["value"].to_list(), abs=1e-12)
    c = rf.evaluate(qrels, run, JO_SPECS)
    assert a["value"].to_list() != pytest.approx(c["value"].to_list())  # it does change something
    # by hand: q1's judged items in predicted order a(0) c(2) e(1) f(3), then g(2) unretrieved
    # (b: grade -1, d: unjudged, both dropped); of the 9 pairs the target orders (c ~ g tied)
    # the prediction agrees on c>e and f>g only
    one = rf.evaluate(qrels, run, ["CIndex(judged_only=true)"], per_query=True)
    assert one.filter(pl.col("query_id") == "q1")["value"].item() == pytest.approx(2 / 9)


def test_judged_only_option_equals_param_without_negative_grades() -> None:
    run, qrels = _qrels_run()
    a = rf.evaluate(qrels, run, JO_SPECS, judged_only=True, per_query=True)
    b = rf.evaluate(qrels, run, [judged_only(s) for s in JO_SPECS], per_query=True)
    assert a["value"].to_list() == pytest.approx(b["value"].to_list(), abs=1e-12)


def test_judged_only_option_equals_param_with_negative_grades() -> None:
    # the option drops b from the run; its qrels row (grade -1, not retrieved) is then no item
    run = pl.DataFrame({"query_id": "q", "doc_id": ["a", "b"], "score": [2.0, 1.0]})
    qrels = pl.DataFrame({"query_id": "q", "doc_id": ["a", "b"], "relevance": [1, -1]})
    option = rf.evaluate(qrels, run, ["CIndex"], judged_only=True)["value"].item()
    param = rf.evaluate(qrels, run, ["CIndex(judged_only=true)"])["value"].item()
    assert option == param


def test_trec_eval_tie_order_is_byte_order_of_doc_ids() -> None:
    # equal scores: trec_eval ranks doc ids descending as strings, "d9" before "d10"
    run = pl.DataFrame({"query_id": "q", "doc_id": ["d10", "d9"], "score": [1.0, 1.0], "t": [2.0, 1.0]})
    v = rf.evaluate(run=run, target="t", measures=["KendallTauB", "CIndex", "PosError"])
    assert v["value"].to_list() == [-1.0, 0.0, 1.0]
    avg = rf.evaluate(run=run, target="t", measures=["KendallTauB", "CIndex", "PosError"], ties="average")
    assert avg["value"].to_list() == [0.0, 0.5, 0.5]


def test_relevance_level_sets_the_auc_default() -> None:
    run, qrels = _qrels_run()
    a = rf.evaluate(qrels, run, ["AUC"], relevance_level=2, per_query=True)
    b = rf.evaluate(qrels, run, ["AUC(rel=2)"], per_query=True)
    assert a["value"].to_list() == b["value"].to_list()


# --------------------------------------------------------------------------------------------
# a query without items (every value is then undefined: 0)
# --------------------------------------------------------------------------------------------
PAIR_SPECS = ["KendallDist", "KendallTauB", "Gamma", "SomersD", "PrefJaccard", "CIndex", "AUC", "MAUC"]


def _judged_only_param() -> list[float]:
    run = pl.DataFrame({"query_id": ["q"], "doc_id": ["a"], "score": [1.0]})
    qrels = pl.DataFrame({"query_id": ["q"], "doc_id": ["a"], "relevance": [-1]})
    return rf.evaluate(qrels, run, [f"{m}(judged_only=true)" for m in PAIR_SPECS])["value"].to_list()


def _complete_with_target() -> list[float]:
    run = pl.DataFrame({"query_id": ["r"], "doc_id": ["a"], "score": [1.0], "t": [1.0]})
    qrels = pl.DataFrame({"query_id": ["q", "r"], "doc_id": ["a", "a"], "relevance": [1, 1]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rf.RankframeWarning)
        out = rf.evaluate(qrels, run, PAIR_SPECS, target="t", complete=True, per_query=True)
    assert out.height == 2 * len(PAIR_SPECS)
    return out["value"].to_list()


def _judged_only_option_with_target() -> list[float]:
    run = pl.DataFrame({"query_id": ["q"], "doc_id": ["z"], "score": [1.0], "t": [1.0]})
    qrels = pl.DataFrame({"query_id": ["q"], "doc_id": ["a"], "relevance": [1]})
    out = rf.evaluate(qrels, run, PAIR_SPECS, target="t", judged_only=True, per_query=True)
    assert out.height == len(PAIR_SPECS)
    return out["value"].to_list()


def _builder_all_null_target() -> tuple[float, ...]:
    df = pl.DataFrame(
        {"q": ["q"], "score": [1.0], "label": [1], "t": [None]}, schema_overrides={"t": pl.Float64}
    )
    specs = [*PAIR_SPECS[:-1], "MAUC(levels=(0,1))"]
    builders = (rfx.measure(m, label="label", doc=None, target="t") for m in specs)
    return df.group_by("q").agg(builders).drop("q").row(0)


@pytest.mark.parametrize(
    "make",
    [_judged_only_param, _complete_with_target, _judged_only_option_with_target, _builder_all_null_target],
)
def test_empty_item_set(make: Callable[[], Sequence[float]]) -> None:
    # pair counts over no item once made Polars panic (rolling rank over an empty group)
    assert all(v == 0.0 for v in make())


def test_mauc_explicit_levels_follow_an_ascending_target() -> None:
    # levels given in the column's units (ranks) must mean the same as the scanned levels
    run = pl.DataFrame({"query_id": "q", "doc_id": list("abcde"), "score": [5.0, 4, 3, 2, 1],
                        "r": [2, 1, 3, 1, 3]})
    got = rf.evaluate(run=run, target="r", target_order="asc",
                      measures=["MAUC", "MAUC(levels=(1,2,3))"])["value"].to_list()
    # ascending ranks: level 1 {b, d} > level 2 {a} > level 3 {c, e}; AUCs 0/2, 3/4, 2/2
    assert got == pytest.approx([(0 + 0.75 + 1) / 3] * 2)
