"""Preference pairs as the target of the pairwise comparisons (``evaluate(prefs=...)``).

Checked against a slow oracle written here (pairs per judgment group, transitive closure by
repeated composition, every pair compared one by one) and against the grades target: a prefs
table holding each query's grades as one judgment group states exactly the pairs the grades
order, so it must give the numbers of ``judged_only=True`` with qrels.
"""

from __future__ import annotations

import itertools
import math
import warnings
from pathlib import Path

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankframe as rf
from rankframe import InputError, MeasureError

MEASURES = [
    "KendallDist", "KendallDist(normalize=True)", "Gamma", "SomersD", "CIndex", "PairAcc",
    "PrefJaccard",
]
DOCS = [f"d{i}" for i in range(7)]


# ---- the oracle ---------------------------------------------------------------------------


def _pairs(lines: list[tuple[str, str, str, str, float]]) -> dict[str, set[tuple[str, str]]]:
    """Query -> set of (preferred, other), from (query, jg, jsg, doc, level) lines."""
    groups: dict[tuple[str, str], list[tuple[str, str, float]]] = {}
    for q, jg, jsg, d, lvl in lines:
        groups.setdefault((q, jg), []).append((jsg, d, lvl))
    out: dict[str, set[tuple[str, str]]] = {}
    for (q, _), rows in groups.items():
        edges = {
            (a, b)
            for (sa, a, la), (sb, b, lb) in itertools.product(rows, rows)
            if sa == sb and la > lb and a != b
        }
        if len({s for s, _, _ in rows}) > 1:  # several subgroups: transitive closure
            while True:
                more = {(a, d) for a, b in edges for c, d in edges if b == c and a != d}
                if more <= edges:
                    break
                edges |= more
        out.setdefault(q, set()).update(edges)
    return out


def _prediction(run: list[tuple[str, str, float]], q: str, average: bool) -> dict[str, float]:
    rows = [(d, s) for qq, d, s in run if qq == q]
    if average:  # minus the min-rank: equal scores tie
        return {d: -(1 + sum(t > s for _, t in rows)) for d, s in rows}
    order = sorted(rows, key=lambda r: (r[1], r[0]), reverse=True)  # score, doc id descending
    return {d: -(i + 1) for i, (d, _) in enumerate(order)}


def oracle(lines: list, run: list, average: bool = False) -> dict[tuple[str, str], float]:
    """(query, measure) -> value for the queries in both the preferences and the run."""
    pairs = _pairs(lines)
    out = {}
    for q in sorted({ln[0] for ln in lines} & {r[0] for r in run}):
        items = {ln[3] for ln in lines if ln[0] == q}
        pred = _prediction(run, q, average)
        p = {d: pred.get(d, -math.inf) for d in items}
        prs = pairs.get(q, set())
        c = sum(p[a] > p[b] for a, b in prs)
        d = sum(p[a] < p[b] for a, b in prs)
        t = sum(p[a] == p[b] for a, b in prs)
        n = len(prs)
        ordered = sum(p[x] != p[y] for x, y in itertools.combinations(items, 2))
        jac_den = ordered + n - c
        out[q, "KendallDist"] = float(d)
        out[q, "KendallDist(normalize=True)"] = d / n if n else 0.0
        out[q, "Gamma"] = (c - d) / (c + d) if c + d else 0.0
        out[q, "SomersD"] = (c - d) / n if n else 0.0
        out[q, "CIndex"] = out[q, "PairAcc"] = (c + t / 2) / n if n else 0.0
        out[q, "PrefJaccard"] = c / jac_den if jac_den else 0.0
    return out


def _frames(lines: list, run: list) -> tuple[pl.DataFrame, pl.DataFrame]:
    prefs = pl.DataFrame(
        lines, schema=["query_id", "jg", "jsg", "doc_id", "rel_level"], orient="row"
    )
    run_df = pl.DataFrame(run, schema=["query_id", "doc_id", "score"], orient="row")
    return prefs, run_df


def _got(prefs: pl.DataFrame, run: pl.DataFrame, **kw: object) -> dict[tuple[str, str], float]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = rf.evaluate(run=run, prefs=prefs, measures=MEASURES, per_query=True, **kw)
    return {(q, m): v for q, m, v in res.iter_rows()}


# ---- strategies ---------------------------------------------------------------------------


@st.composite
def preferences(draw: st.DrawFn) -> list:
    """Judgment groups per query; the subgroups of a group follow one hidden order (no cycles
    within a group), different groups may contradict each other."""
    lines = []
    for q in draw(st.lists(st.sampled_from(["q1", "q2", "q3"]), min_size=1, max_size=3, unique=True)):
        for g in range(draw(st.integers(1, 3))):
            hidden = {d: draw(st.integers(0, 3)) for d in DOCS}
            for s in range(draw(st.integers(1, 3))):
                docs = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=5, unique=True))
                lines += [(q, f"g{g}", f"s{s}", d, float(hidden[d])) for d in docs]
    return lines


@st.composite
def runs(draw: st.DrawFn) -> list:
    run = []
    for q in ["q1", "q2", "q4"]:
        docs = draw(st.lists(st.sampled_from(DOCS), max_size=len(DOCS), unique=True))
        run += [(q, d, float(draw(st.integers(0, 3)))) for d in docs]
    if not run:
        run = [("q1", "d0", 1.0)]
    return run


# ---- tests --------------------------------------------------------------------------------


def _assert_close(got: dict, want: dict) -> None:
    assert got.keys() == want.keys()
    for key, value in want.items():
        assert got[key] == pytest.approx(value, abs=1e-12), key


@settings(max_examples=60, deadline=None)
@given(lines=preferences(), run=runs(), average=st.booleans())
def test_prefs_match_the_oracle(lines: list, run: list, average: bool) -> None:
    prefs, run_df = _frames(lines, run)
    got = _got(prefs, run_df, ties="average" if average else "trec_eval")
    _assert_close(got, oracle(lines, run, average))


@settings(max_examples=40, deadline=None)
@given(
    grades=st.lists(st.tuples(st.sampled_from(DOCS), st.integers(0, 3)), min_size=1, max_size=7,
                    unique_by=lambda x: x[0]),
    run=runs(),
    average=st.booleans(),
)
def test_prefs_from_grades_equal_the_grades_target(grades: list, run: list, average: bool) -> None:
    qrels = pl.DataFrame(
        [("q1", d, g) for d, g in grades], schema=["query_id", "doc_id", "relevance"], orient="row"
    )
    prefs = qrels.select(
        "query_id", pl.lit("g").alias("jg"), pl.lit("s").alias("jsg"), "doc_id",
        pl.col("relevance").cast(pl.Float64).alias("rel_level"),
    )
    run_df = pl.DataFrame(run, schema=["query_id", "doc_id", "score"], orient="row")
    ties = "average" if average else "trec_eval"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = rf.evaluate(qrels, run_df, MEASURES, per_query=True, judged_only=True, ties=ties)
    got = _got(prefs, run_df, ties=ties)
    _assert_close(got, {(q, m): v for q, m, v in want.iter_rows()})


def test_worked_example_by_hand() -> None:
    # one group with two subgroups: {a:2, b:1} and {b:1, c:0} -> a>b, b>c, closure a>c;
    # a second group states c>a (a contradiction across groups is kept both ways)
    lines = [
        ("q", "g", "s1", "a", 2.0), ("q", "g", "s1", "b", 1.0),
        ("q", "g", "s2", "b", 1.0), ("q", "g", "s2", "c", 0.0),
        ("q", "h", "s", "c", 1.0), ("q", "h", "s", "a", 0.0),
    ]
    run = [("q", "b", 3.0), ("q", "a", 2.0), ("q", "x", 1.0)]  # c not retrieved
    prefs, run_df = _frames(lines, run)
    got = _got(prefs, run_df)
    # P = {a>b, b>c, a>c, c>a}; prediction b > a > c: a>b discordant, b>c, a>c concordant,
    # c>a discordant: C = 2, D = 2, |P| = 4; items {a, b, c}: 3 predicted pairs, C of them in P
    assert got["q", "KendallDist"] == 2.0
    assert got["q", "KendallDist(normalize=True)"] == 0.5
    assert got["q", "Gamma"] == 0.0
    assert got["q", "CIndex"] == 0.5
    assert got["q", "PrefJaccard"] == pytest.approx(2 / (3 + 4 - 2))


def test_several_runs_equal_each_run_alone() -> None:
    lines = [("q1", "g", "s", d, float(i % 3)) for i, d in enumerate(DOCS)]
    lines += [("q2", "g", "s", d, float(i % 2)) for i, d in enumerate(DOCS[:4])]
    prefs = _frames(lines, [("q1", "d0", 1.0)])[0]
    runs_ = {
        "a": pl.DataFrame({"query_id": ["q1"] * 4 + ["q2"] * 2, "doc_id": DOCS[:4] + DOCS[:2],
                           "score": [1.0, 2, 2, 3, 1, 0]}),
        "b": pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": DOCS[3:6], "score": [0.5, 1, 2]}),
    }
    with pytest.warns(rf.RankframeWarning, match="query 'q2' in the run 'b'"):
        together = rf.evaluate(run=runs_, prefs=prefs, measures=MEASURES, per_query=True)
    for name, run in runs_.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            alone = rf.evaluate(run=run, prefs=prefs, measures=MEASURES, per_query=True)
        mine = together.filter(pl.col("run") == name).drop("run")
        assert mine.equals(alone)


def test_trec_eval_prefs_file(tmp_path: Path) -> None:
    lines = [("q", "g", "s1", "a", 2.0), ("q", "g", "s1", "b", 1.0), ("q", "g", "s2", "c", 1.0),
             ("q", "g", "s2", "b", 0.0)]
    path = tmp_path / "prefs.txt"
    path.write_text("".join(f"{q} {g} {s} {d} {lvl:g}\n" for q, g, s, d, lvl in lines))
    run = [("q", "c", 3.0), ("q", "b", 2.0), ("q", "a", 1.0)]
    _, run_df = _frames(lines, run)
    res = rf.evaluate(run=run_df, prefs=str(path), measures=MEASURES, per_query=True)
    _assert_close({(q, m): v for q, m, v in res.iter_rows()}, oracle(lines, run))


def test_cli_prefs(tmp_path: Path) -> None:
    from rankframe._cli.main import main

    prefs = tmp_path / "prefs.txt"
    prefs.write_text("q g s a 1\nq g s b 0\n")
    run = tmp_path / "run.txt"
    run.write_text("q Q0 b 1 2.0 r\nq Q0 a 2 1.0 r\n")
    out = tmp_path / "out.csv"
    assert main(["evaluate", "--prefs", str(prefs), str(run), "-m", "KendallDist", "CIndex",
                 "-f", "csv", "-o", str(out)]) == 0
    got = pl.read_csv(out)
    assert got["value"].to_list() == [1.0, 0.0]


def test_bad_prefs_inputs() -> None:
    run = pl.DataFrame({"query_id": ["q"], "doc_id": ["a"], "score": [1.0]})
    prefs = pl.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "b"], "rel_level": [1.0, 0.0]})
    with pytest.raises(MeasureError, match="not for nDCG@10"):
        rf.evaluate(run=run, prefs=prefs, measures=["nDCG@10"])
    qrels = pl.DataFrame({"query_id": ["q"], "doc_id": ["a"], "relevance": [1]})
    with pytest.raises(InputError, match="instead of qrels"):
        rf.evaluate(qrels, run, ["Gamma"], prefs=prefs)
    with pytest.raises(InputError, match="'rel_level'"):
        rf.evaluate(run=run, prefs=prefs.drop("rel_level"), measures=["Gamma"])
    nulls = prefs.with_columns(pl.Series("rel_level", [1.0, None]))
    with pytest.raises(InputError, match="column 'rel_level'"):
        rf.evaluate(run=run, prefs=nulls, measures=["Gamma"])
    cyclic = pl.DataFrame({
        "query_id": ["q"] * 4, "jg": ["g"] * 4, "jsg": ["s1", "s1", "s2", "s2"],
        "doc_id": ["a", "b", "b", "a"], "rel_level": [1.0, 0.0, 1.0, 0.0],
    })
    with pytest.raises(InputError, match="inconsistent"):
        rf.evaluate(run=run, prefs=cyclic, measures=["Gamma"])
