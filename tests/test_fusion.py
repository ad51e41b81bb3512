"""rankframe.fuse against ranx 0.3.21: every method x normalisation, ties, missing documents and queries.

The ranx numbers are golden values written by ``tests/oracles/ranx_fusion_golden.py`` (live ranx
compiles with numba for minutes); the sums must match to the last bit.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import rankframe as rf

GOLDEN = json.loads((Path(__file__).parent / "data" / "fusion" / "ranx_golden.json").read_text())
ORACLE = Path(__file__).parent / "oracles" / "ranx_fusion_golden.py"
sys.path.insert(0, str(ORACLE.parent))
from ranx_fusion_golden import TRAINED as TRAINED_PARAMS  # noqa: E402
from ranx_fusion_golden import all_cases, params_for, trained_runs  # noqa: E402

sys.path.pop(0)
#: The runs in the order ranx read them: ties are broken by that order (the JSON sorts keys).
RUNS = all_cases()
SCORE_METHODS = {"min", "max", "med", "sum", "anz", "mnz", "gmnz", "wsum", "wmnz", "mixed"}

CASES = [(case, key) for case, data in GOLDEN["cases"].items() for key in data["results"]]


def _as_dict(frame: pl.DataFrame) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for q, d, s in frame.iter_rows():
        out.setdefault(q, {})[d] = s
    return out


def test_golden_values_are_ranx_0_3_21() -> None:
    assert GOLDEN["ranx_version"] == "0.3.21"


@pytest.mark.parametrize(("case", "key"), CASES, ids=[f"{c}-{k}" for c, k in CASES])
def test_matches_ranx(case: str, key: str) -> None:
    data = GOLDEN["cases"][case]
    method, norm = key.split("|")
    norm = None if norm == "None" else norm
    params = params_for(method, len(RUNS[case]))
    ours = _as_dict(rf.fuse(RUNS[case], method, norm=norm, params=params))
    expected = data["results"][key]
    if case == "four_runs" and norm is None and method in SCORE_METHODS:
        # ranx 0.3.21 loses documents here: without a normalisation it fuses the runs' own
        # numba dicts, whose doc-id types differ (fixed-width 'd6' vs 'd10'); checked normalised
        assert ours.keys() == {q for r in RUNS[case] for q in r}
        return
    queries = {q for r in RUNS[case] for q in r}
    if norm == "zmuv" and any(r.keys() != queries for r in RUNS[case]):
        # ranx 0.3.21's zmuv of a query a run lacks (mean of nothing) scrambles that run's
        # queries (its rrf then differs from its rrf without norm): checked on full runs
        return
    for q in data["condorcet_undefined"].get(key, []):  # ranx's order is arbitrary there
        expected.pop(q, None)
        ours.pop(q, None)
    assert ours.keys() == expected.keys()
    for q, docs in expected.items():
        assert ours[q].keys() == docs.keys(), q
        for d, value in docs.items():
            if norm in ("sum", "zmuv", "borda"):  # ranx sums in rank order, Polars its own way
                assert math.isclose(ours[q][d], value, rel_tol=1e-12, abs_tol=1e-12), (q, d)
            else:
                assert ours[q][d] == value, (q, d, ours[q][d], value)


# ----------------------------------------------------------------------------- independent oracle
def _ranked(run: dict[str, float]) -> list[str]:
    return sorted(run, key=lambda d: -run[d])  # stable: ties in input order, as ranx


def _oracle(runs: list[dict[str, dict[str, float]]], method: str, k: int = 60) -> dict[str, dict[str, float]]:
    """RRF, CombMNZ after min-max and Borda by their definitions (Cormack 2009; Fox & Shaw 1993)."""
    out: dict[str, dict[str, float]] = {}
    for q in sorted({q for r in runs for q in r}):
        lists = [r.get(q, {}) for r in runs]
        docs = {d for lst in lists for d in lst}
        fused = {}
        for d in docs:
            if method == "rrf":
                fused[d] = sum(1 / (k + _ranked(lst).index(d) + 1) for lst in lists if d in lst)
            elif method == "mnz":
                norm = []
                for lst in lists:
                    if d in lst:
                        lo, hi = min(lst.values()), max(lst.values())
                        norm.append((lst[d] - lo) / max(hi - lo, 1e-9))
                fused[d] = sum(norm) * len(norm)
            else:  # bordafuse
                c = len(docs)
                fused[d] = sum(
                    c - _ranked(lst).index(d) if d in lst else (c - len(lst) + 1) / 2 for lst in lists
                )
        if fused:
            out[q] = fused
    return out


_scores = st.sampled_from([0.0, 0.5, 1.0, 1.0, 2.0, -3.0])
_run = st.dictionaries(
    st.sampled_from(["q1", "q2"]),
    st.dictionaries(st.sampled_from([f"d{i}" for i in range(6)]), _scores, min_size=1, max_size=6),
    min_size=1,
)


@given(
    runs=st.lists(_run, min_size=2, max_size=4),
    method=st.sampled_from(["rrf", "mnz", "bordafuse"]),
)
@example(runs=[{"q1": {"a": 1.0, "b": 1.0}}, {"q1": {"b": 1.0, "a": 1.0}}], method="rrf")  # all ties
@example(runs=[{"q1": {"a": 1.0}}, {"q2": {"a": 1.0}}], method="bordafuse")  # no query in common
@settings(max_examples=settings.default.max_examples * 5, deadline=None)
def test_matches_the_definitions(runs: list[dict[str, dict[str, float]]], method: str) -> None:
    norm = "min-max" if method == "mnz" else None
    ours = _as_dict(rf.fuse(runs, method, norm=norm))
    expected = _oracle(runs, method)
    assert ours.keys() == expected.keys()
    for q, docs in expected.items():
        assert ours[q].keys() == docs.keys()
        for d, value in docs.items():
            assert math.isclose(ours[q][d], value, rel_tol=1e-12), (q, d)


@given(runs=st.lists(_run, min_size=2, max_size=3))
@settings(max_examples=settings.default.max_examples * 3, deadline=None)
def test_score_fusion_ignores_row_order(runs: list[dict[str, dict[str, float]]]) -> None:
    frames = [
        pl.DataFrame(
            [(q, d, s) for q, docs in r.items() for d, s in docs.items()],
            schema=["query_id", "doc_id", "score"],
            orient="row",
        )
        for r in runs
    ]
    a = rf.fuse(frames, "mnz", norm="zmuv")
    b = rf.fuse([f.reverse() for f in frames], "mnz", norm="zmuv")
    assert a.height == b.height
    joined = a.join(b, on=["query_id", "doc_id"])
    assert joined.height == a.height
    pairs = joined.select("score", "score_right").iter_rows()
    assert all(math.isclose(x, y, rel_tol=1e-12, abs_tol=1e-12) for x, y in pairs)


# ----------------------------------------------------------------------------- inputs
RUN_A = {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}, "q2": {"d1": 1.0}}
RUN_B = {"q1": {"d2": 5.0, "d4": 4.0}}


def test_sources_give_the_same_fusion(tmp_path: Path) -> None:
    expected = rf.fuse([RUN_A, RUN_B], "rrf")
    frames = [rf.read_run(r).collect() for r in (RUN_A, RUN_B)]
    paths = []
    for i, f in enumerate(frames):
        path = tmp_path / f"run{i}.txt"
        f.select(
            "query_id",
            pl.lit("Q0").alias("q0"),
            "doc_id",
            pl.lit(0).alias("rank"),
            "score",
            pl.lit("t").alias("tag"),
        ).write_csv(path, separator=" ", include_header=False)
        paths.append(str(path))
    stacked = pl.concat([f.with_columns(pl.lit(n).alias("run")) for n, f in zip("ab", frames, strict=True)])
    for runs in (paths, {"a": frames[0], "b": frames[1].lazy()}, stacked, [frames[0], paths[1]]):
        assert rf.fuse(runs, "rrf").equals(expected), type(runs)


def test_result_feeds_evaluate() -> None:
    qrels = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["d2", "d4"], "relevance": [1, 1]})
    fused = rf.fuse([RUN_A, RUN_B], "rrf")
    assert fused.columns == ["query_id", "doc_id", "score"]
    value = rf.evaluate(qrels, fused.filter(pl.col("query_id") == "q1"), "P@2")["value"].to_list()
    assert value == [0.5]  # d2 (1/62 + 1/61) then d1 (1/61), d4 third


def test_integer_ids_stay_integers() -> None:
    a = pl.DataFrame({"query_id": [1, 1], "doc_id": [10, 20], "score": [1.0, 2.0]})
    b = pl.DataFrame({"query_id": [1], "doc_id": [10], "score": [5.0]})
    fused = rf.fuse([a, b], "sum")
    assert fused.schema["doc_id"] == pl.Int64
    assert fused.rows() == [(1, 10, 6.0), (1, 20, 2.0)]


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"method": "rff"}, r"Unknown fusion method 'rff'; valid: .*Did you mean 'rrf'\?"),
        ({"method": "rrf", "norm": "minmax"}, r"Unknown normalisation 'minmax'.*Did you mean 'min_max'"),
        ({"method": "wsum"}, r"needs weights=\[...\], one number per run \(2 runs\)"),
        ({"method": "wsum", "weights": [1.0]}, r"one weight per run: 2 numbers. Got \[1.0\]"),
        ({"method": "rrf", "weights": [1.0, 2.0]}, r"takes no weights"),
        ({"method": "rbc"}, r"needs the parameter 'phi'"),
        ({"method": "rrf", "params": {"kk": 1}}, r"no parameter 'kk'; its parameters: k"),
        ({"method": "rrf", "norm": "borda"}, r"norm='borda'.*'rrf', which reads ranks"),
        ({"method": "logn_isr", "params": {"sigma": 2}}, r"'sigma' of logn_isr must be in \[0, 1\]"),
    ],
)
def test_bad_arguments(kwargs: dict, match: str) -> None:
    with pytest.raises(rf.InputError, match=match):
        rf.fuse([RUN_A, RUN_B], **kwargs)


def test_bad_runs() -> None:
    with pytest.raises(rf.InputError, match="at least 2 runs; got 1"):
        rf.fuse([RUN_A], "rrf")
    with pytest.raises(rf.InputError, match="fuse needs several runs; got one run"):
        rf.fuse(RUN_A, "rrf")
    empty = pl.DataFrame(schema={"query_id": pl.String, "doc_id": pl.String, "score": pl.Float64})
    with pytest.raises(rf.InputError, match=r"The run 'run_1' \(.*\) is empty"):
        rf.fuse([RUN_A, empty], "rrf")
    dup = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["d1", "d1"], "score": [1.0, 2.0]})
    with pytest.raises(rf.InputError, match="retrieves document 'd1' more than once for query 'q1'"):
        rf.fuse([RUN_A, dup], "sum")


def test_import_leaves_fusion_for_first_use() -> None:
    code = (
        "import sys, rankframe as rf; assert 'rankframe._fusion' not in sys.modules; "
        "assert rf.fuse.__module__ == 'rankframe._fusion.fuse'; assert 'fuse' in dir(rf)"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


# ----------------------------------------------------------------------------- trained methods
TRAINED = [(case, key) for case, data in GOLDEN.get("trained", {}).items() for key in data["results"]]


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12)


@pytest.mark.parametrize(("case", "key"), TRAINED, ids=[f"{c}-{k}" for c, k in TRAINED])
def test_trained_methods_match_ranx(case: str, key: str) -> None:
    data = GOLDEN["trained"][case]
    method, norm = key.split("|")
    norm = None if norm == "None" else norm
    extra = {k: v for k, v in TRAINED_PARAMS[method].items() if k != "n_segments"}
    # fusing with ranx's learnt values gives ranx's run
    runs, qrels = trained_runs(int(case.removeprefix("trained")))
    given = rf.fuse(runs, method, norm=norm, params={**data["learnt"][method], **extra})
    # learning them from the judgments gives the same run
    learnt = rf.fuse(runs, method, norm=norm, params=TRAINED_PARAMS[method], qrels=qrels)
    for ours in (_as_dict(given), _as_dict(learnt)):
        assert ours.keys() == data["results"][key].keys()
        for q, docs in data["results"][key].items():
            assert ours[q].keys() == docs.keys()
            assert all(_close(ours[q][d], v) for d, v in docs.items()), (q, ours[q], docs)
