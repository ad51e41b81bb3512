"""rankframe.compat.ranx against the real ranx 0.3.21 (installed in the test environment).

Per-query values of every ranx metric (cutoffs, ``-l2``, ``rbp``) agree to 1e-9 on
hypothesis-drawn judgments and runs whose scores tie on purpose (three score values over up to
40 documents, past the 16 where numba's quicksort stops keeping insertion order), through each
input ranx's ``evaluate`` takes: ``Qrels``/``Run``, plain dicts (sorted another way), and the
per-query arrays of ``to_typed_list()`` given to ``ranx.metrics`` functions. ``bpref`` is
compared query by query: ranx 0.3.21's value for a query may change with the other queries
evaluated beside it (a query without judged non-relevant documents gives NaN alone, 0 next to
another), so the drop-in reproduces the query-by-query values. ``compare``: the same means, win/tie/loss
counts and t-test/Tukey p-values as ranx's Report (the randomization test draws differently);
the report's layouts. Fusion and normalisation: ``fuse``/``normalize`` against ranx's (values,
names, the order of tied documents), the trainings and slidefuse bit for bit. Then files,
frames, bad input and the import hygiene.
"""

from __future__ import annotations

import subprocess
import sys
import warnings
from typing import Any

import numpy as np
import polars as pl
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import rankframe as rf
import rankframe.compat.ranx as compat

ranx = pytest.importorskip("ranx", reason="the oracle: pip install ranx")
numba = pytest.importorskip("numba")


@pytest.fixture(autouse=True, scope="module")
def _one_numba_thread() -> None:
    """ranx in one thread: its parallel loops (from 10 queries on) may race on a loaded machine."""
    numba.set_num_threads(1)

METRICS = [
    "hits@3", "hit_rate@2", "precision@5", "precision", "recall@3", "recall", "f1@4", "f1",
    "r-precision", "mrr", "mrr@3", "map", "map@5", "dcg@5", "dcg", "dcg_burges@4", "ndcg@5",
    "ndcg", "ndcg_burges@10", "ndcg_burges", "rbp.8", "rbp.95", "precision@5-l2", "ndcg@5-l2",
    "map-l2", "rbp.8-l2", "mrr-l3", "dcg_burges@3-l2",
]
TIED = st.sampled_from([0.1, 0.2, 0.3])


@st.composite
def judged_runs(
    draw: st.DrawFn, max_queries: int = 6, min_grade: int = 0
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Judgments (grades ``min_grade``-3) and a run over 1-40 documents whose scores tie."""
    n = draw(st.integers(1, max_queries))
    qrels, run = {}, {}
    for i in range(n):
        docs = draw(st.lists(st.integers(0, 44), min_size=1, max_size=12, unique=True))
        qrels[f"q{i}"] = {f"d{d}": draw(st.integers(min_grade, 3)) for d in docs}
        ranked = draw(st.lists(st.integers(0, 44), min_size=1, max_size=40, unique=True))
        run[f"q{i}"] = {f"d{d}": draw(TIED) for d in ranked}
    return qrels, run


def _assert_same(ours: dict[str, Any], theirs: dict[str, Any]) -> None:
    for m in theirs:
        np.testing.assert_allclose(ours[m], theirs[m], rtol=1e-9, atol=1e-12, equal_nan=True, err_msg=m)


@settings(max_examples=settings.default.max_examples)
@given(judged_runs())
def test_qrels_and_run_objects_on_tied_scores(case: tuple[dict[str, Any], dict[str, Any]]) -> None:
    qrels, run = case
    theirs = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), METRICS, return_mean=False)
    ours = compat.evaluate(compat.Qrels(qrels), compat.Run(run), METRICS, return_mean=False)
    _assert_same(ours, theirs)


@settings(max_examples=settings.default.max_examples * 3 // 4)
@given(judged_runs())
def test_plain_dicts_on_tied_scores(case: tuple[dict[str, Any], dict[str, Any]]) -> None:
    qrels, run = case  # a dict run is sorted by argsort(scores)[::-1]: another tie order
    theirs = ranx.evaluate(qrels, run, METRICS, return_mean=False)
    ours = compat.evaluate(qrels, run, METRICS, return_mean=False)
    _assert_same(ours, theirs)


@settings(max_examples=settings.default.max_examples // 2)
@given(judged_runs())
def test_metric_functions_on_typed_lists(case: tuple[dict[str, Any], dict[str, Any]]) -> None:
    qrels, run = case
    tq, tr = ranx.Qrels(qrels).to_typed_list(), ranx.Run(run).to_typed_list()
    cq, cr = compat.Qrels(qrels).to_typed_list(), compat.Run(run).to_typed_list()
    for name, k in [("hits", 3), ("hit_rate", 2), ("precision", 0), ("precision", 3), ("recall", 3),
                    ("f1", 0), ("reciprocal_rank", 3), ("average_precision", 0), ("dcg", 3),
                    ("ndcg", 0), ("dcg_burges", 0), ("ndcg_burges", 3)]:
        np.testing.assert_allclose(getattr(compat.metrics, name)(cq, cr, k),
                                       getattr(ranx.metrics, name)(tq, tr, k), rtol=1e-9, err_msg=name)
    np.testing.assert_allclose(compat.metrics.r_precision(cq, cr), ranx.metrics.r_precision(tq, tr))
    for i in range(len(tq)):  # bpref query by query (see the module's docstring)
        np.testing.assert_allclose(compat.metrics.bpref(cq[i:i + 1], cr[i:i + 1]),
                                   ranx.metrics.bpref(tq[i:i + 1], tr[i:i + 1]), equal_nan=True)
    np.testing.assert_allclose(compat.metrics.interpolated_precision_at_recall(cq, cr),
                               ranx.metrics.interpolated_precision_at_recall(tq, tr))
    np.testing.assert_allclose(compat.metrics.rank_biased_precision(cq, cr, 0.8),
                               ranx.metrics.rank_biased_precision(tq, tr, 0.8))
    for got, want in zip(compat.metrics.get_hit_lists(cq, cr, 3), ranx.metrics.get_hit_lists(tq, tr, 3),
                         strict=True):
        np.testing.assert_array_equal(got, want)


@settings(max_examples=settings.default.max_examples)
@given(judged_runs(max_queries=1))
def test_bpref_query_by_query(case: tuple[dict[str, Any], dict[str, Any]]) -> None:
    qrels, run = case
    for metric in ("bpref", "bpref-l2"):
        want = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), metric)
        got = compat.evaluate(compat.Qrels(qrels), compat.Run(run), metric)
        np.testing.assert_allclose(got, want, equal_nan=True, err_msg=metric)


@settings(max_examples=settings.default.max_examples * 2)
@given(judged_runs(max_queries=1, min_grade=-2))
@example(({"q": {"a": -1, "b": 1}}, {"q": {"a": 0.2, "b": 0.1}}))
@example(({"q": {"a": -2, "b": 0, "c": 3}}, {"q": {"a": 0.3, "b": 0.2, "c": 0.1}}))
def test_negative_grades_are_judged_non_relevant_as_in_ranx(case: tuple[dict[str, Any], ...]) -> None:
    # ranx counts every judgment below the level as judged non-relevant, negative ones too
    # (rankframe's Bpref, as trec_eval, skips them): Qrels({"q": {"a": -1, "b": 1}}) with the run
    # a, b is bpref 0 in ranx
    qrels, run = case
    metrics = [*METRICS, "bpref", "bpref-l2", "bpref-l0", "precision@3-l0", "ndcg-l0"]
    theirs = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), metrics, return_mean=False)
    ours = compat.evaluate(compat.Qrels(qrels), compat.Run(run), metrics, return_mean=False)
    _assert_same(ours, theirs)
    tq, tr = ranx.Qrels(qrels).to_typed_list(), ranx.Run(run).to_typed_list()
    cq, cr = compat.Qrels(qrels).to_typed_list(), compat.Run(run).to_typed_list()
    np.testing.assert_allclose(compat.metrics.bpref(cq, cr), ranx.metrics.bpref(tq, tr), equal_nan=True)


def test_the_real_ranx_objects_are_read_in_their_order() -> None:
    scores = {f"d{i:02d}": float(i % 3) for i in range(40)}
    qrels = {"q": {f"d{i:02d}": 1 for i in range(0, 40, 7)}}
    want = ranx.evaluate(ranx.Qrels(qrels), ranx.Run({"q": scores}), ["mrr", "precision@10"])
    assert compat.evaluate(ranx.Qrels(qrels), ranx.Run({"q": scores}), ["mrr", "precision@10"]) == want


def test_the_sort_order_is_ranxs_past_16_tied_documents() -> None:
    scores = {f"d{i:02d}": float(i % 3) for i in range(40)}
    assert list(compat.Run({"q": scores}).run["q"]) == list(ranx.Run({"q": scores}).run["q"])
    assert list(compat.Qrels({"q": {d: int(s) for d, s in scores.items()}}).qrels["q"]) == list(
        ranx.Qrels({"q": {d: int(s) for d, s in scores.items()}}).qrels["q"])


@pytest.mark.parametrize("n", [5, 40])
def test_nan_scores_sort_as_in_ranx(n: int) -> None:
    # regression: a NaN score compared as neither above nor below the others, so a Run put
    # {"a": nan, "b": 1.0} as a, b; numba's float sort (lt_floats) puts NaN after every number
    nan = float("nan")
    docs = {f"d{i:02d}": [nan, 0.5, 1.0, nan, 2.0][i % 5] for i in range(n)}
    for scores in ({"a": nan, "b": 1.0}, {"b": 1.0, "a": nan}, docs):
        assert list(compat.Run({"q": scores}).run["q"]) == list(ranx.Run({"q": scores}).run["q"])
    # a plain dict given to evaluate is sorted by argsort(scores)[::-1]: NaN first
    rows = compat._evaluate.dict_frame({"q": docs}, "run").get_column("doc_id").to_list()
    order = numba.njit(lambda x: np.argsort(x))(np.array(list(docs.values())))[::-1]
    assert rows == [list(docs)[i] for i in order]


def test_non_finite_scores_evaluate_as_in_ranx() -> None:
    # regression: a NaN or infinite score raised InputError ("not a finite number"); ranx ranks
    # the documents as its sort leaves them (inf first, -inf then NaN last) and evaluates them
    inf, nan = float("inf"), float("nan")
    qrels = {"q1": {"a": 1, "b": 0, "c": 2, "d": 1}, "q2": {"e": 1}}
    metrics = ["mrr", "map", "ndcg@2", "precision@1", "bpref", "recall@3"]
    for run in (
        {"q1": {"a": nan, "b": 1.0, "c": inf, "d": -inf}, "q2": {"e": nan, "f": 0.5}},
        {"q1": {"b": inf, "a": inf, "c": -inf, "d": nan}, "q2": {"f": -inf, "e": -inf}},
    ):
        theirs = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), metrics, return_mean=False)
        ours = compat.evaluate(compat.Qrels(qrels), compat.Run(run), metrics, return_mean=False)
        _assert_same(ours, theirs)
        _assert_same(compat.evaluate(qrels, run, metrics, return_mean=False),
                     ranx.evaluate(qrels, run, metrics, return_mean=False))


def test_rankframe_evaluate_breaks_the_same_tie_by_doc_id() -> None:
    """What the drop-in is for: ``rf.evaluate`` on ranx objects ranks ties as trec_eval does."""
    qrels = ranx.Qrels({"q1": {"a": 1}})
    run = ranx.Run({"q1": {"a": 1.0, "b": 1.0}})
    assert ranx.evaluate(qrels, run, "mrr") == 1.0  # insertion order: a first
    assert compat.evaluate(compat.Qrels(qrels.to_dict()), compat.Run(run.to_dict()), "mrr") == 1.0
    assert rf.evaluate(qrels, run, ["RR"])["value"].to_list() == [0.5]  # doc id descending: b first


def test_evaluate_stores_the_scores_in_the_run_as_ranx() -> None:
    qrels = {"q1": {"a": 1, "b": 2}, "q2": {"c": 1}}
    run = {"q1": {"b": 0.5, "x": 0.9}, "q2": {"c": 0.3, "y": 0.3, "z": 0.1}}
    theirs, ours = ranx.Run(run), compat.Run(run)
    want = ranx.evaluate(ranx.Qrels(qrels), theirs, ["map@5", "ndcg"], return_std=True)
    got = compat.evaluate(compat.Qrels(qrels), ours, ["map@5", "ndcg"], return_std=True)
    assert {m: pytest.approx(v) for m, v in got.items()} == want
    assert ours.mean_scores == pytest.approx(theirs.mean_scores)
    assert ours.std_scores == pytest.approx(theirs.std_scores)
    assert ours.scores.keys() == theirs.scores.keys()
    for m, per_query in theirs.scores.items():
        assert ours.scores[m] == pytest.approx(dict(per_query))


def test_no_metric_evaluates_to_an_empty_dict_as_ranx() -> None:
    # regression: evaluate(qrels, run, []) raised MeasureError("No measures were requested");
    # ranx returns {} (after its query-id check) and stores nothing in the run
    qrels, run = {"q1": {"a": 1}}, {"q1": {"a": 1.0}}
    theirs, ours = ranx.Run(run), compat.Run(run)
    want = ranx.evaluate(ranx.Qrels(qrels), theirs, [])
    assert compat.evaluate(compat.Qrels(qrels), ours, []) == want == {}
    want = ranx.evaluate(qrels, run, [], return_mean=False)
    assert compat.evaluate(qrels, run, [], return_mean=False) == want
    assert ours.mean_scores == dict(theirs.mean_scores) == {}
    with pytest.raises(rf.InputError, match="query ids do not match"):
        compat.evaluate(compat.Qrels(qrels), compat.Run({"q2": {"a": 1.0}}), [])


def test_make_comparable_scores_missing_queries_zero() -> None:
    qrels = {"q1": {"a": 1}, "q2": {"b": 1}}
    run = {"q1": {"a": 1.0}, "q3": {"b": 1.0}}
    want = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), ["mrr", "precision"], make_comparable=True)
    got = compat.evaluate(compat.Qrels(qrels), compat.Run(run), ["mrr", "precision"], make_comparable=True)
    assert got == pytest.approx(want) == {"mrr": 0.5, "precision": 0.5}


# ----------------------------------------------------------------------------- compare / Report
@pytest.fixture(scope="module")
def three_runs() -> tuple[Any, ...]:
    rng = np.random.default_rng(7)
    qrels = {f"q{i}": {f"d{j}": int(rng.integers(0, 3)) for j in range(int(rng.integers(1, 8)))}
             for i in range(40)}
    runs = [{q: {f"d{j}": float(rng.integers(0, 4)) for j in range(int(rng.integers(1, 20)))} for q in qrels}
            for _ in range(3)]
    return qrels, runs


@pytest.mark.parametrize("stat_test", ["student", "tukey", "fisher"])
def test_compare_matches_ranx_report(three_runs: tuple[Any, ...], stat_test: str) -> None:
    qrels, runs = three_runs
    metrics = ["map@10", "mrr", "ndcg@5"]
    # ranx's randomization test is not reproducible (numba's per-thread generators ignore its seed:
    # p varies by ~0.02 between runs at its 1,000 draws); 20,000 draws on both sides bring the
    # Monte Carlo error of the difference to ~0.005, and ties of |mean difference| that float
    # rounding decides differently move it by up to ~0.005 more
    n = 20_000
    theirs = ranx.compare(ranx.Qrels(qrels), [ranx.Run(r, name=f"m{i}") for i, r in enumerate(runs)],
                          metrics, stat_test=stat_test, max_p=0.05, n_permutations=n)
    ours = compat.compare(compat.Qrels(qrels), [compat.Run(r, name=f"m{i}") for i, r in enumerate(runs)],
                          metrics, stat_test=stat_test, max_p=0.05, n_permutations=n)
    want, got = theirs.to_dict(), ours.to_dict()
    assert got.keys() == want.keys()
    for name in ours.model_names:
        assert got[name]["scores"] == pytest.approx(want[name]["scores"], rel=1e-12)
        assert got[name]["win_tie_loss"] == want[name]["win_tie_loss"]
        tol = 0.03 if stat_test == "fisher" else 1e-6  # ~5 standard errors (see above)
        for other, p in want[name]["comparisons"].items():
            assert got[name]["comparisons"][other] == pytest.approx(p, abs=tol)
    assert ours.get_stat_test_label(stat_test) in ours.to_latex()
    assert ours.to_latex().splitlines()[-12:] == theirs.to_latex().splitlines()[-12:] or stat_test == "fisher"


@pytest.mark.parametrize("stat_test", ["student", "tukey", "fisher"])
def test_report_values_have_ranxs_types(three_runs: tuple[Any, ...], stat_test: str) -> None:
    # regression: the t-test's and Tukey's p-values were Python floats; ranx's are numpy
    # float64s (its randomization test's a float), which to_dict() and print_results() show
    qrels, runs = three_runs
    reports = [lib.compare(lib.Qrels(qrels), [lib.Run(r, name=f"m{i}") for i, r in enumerate(runs)],
                           ["mrr", "map@10"], stat_test=stat_test, n_permutations=100)
               for lib in (compat, ranx)]
    ours, theirs = (r.to_dict() for r in reports)

    def types(d: Any) -> Any:
        return {k: types(v) for k, v in d.items()} if isinstance(d, dict) else type(d)

    assert types(ours) == types(theirs)
    pairs = [{k: v for k, v in r.comparisons.items() if len(k) == 2} for r in reports]  # (ranx's
    assert types(pairs[0]) == types(pairs[1])  # Tukey also holds each model against itself)


def test_report_renders_as_ranx(three_runs: tuple[Any, ...]) -> None:
    qrels, runs = three_runs
    metrics = ["map@10", "ndcg@5-l2", "rbp.95"]
    theirs = ranx.compare(ranx.Qrels(qrels), [ranx.Run(r, name=f"m{i}") for i, r in enumerate(runs)],
                          metrics)
    ours = compat.compare(compat.Qrels(qrels), [compat.Run(r, name=f"m{i}") for i, r in enumerate(runs)],
                          metrics)
    assert str(ours).splitlines()[1] == str(theirs).splitlines()[1]  # tabulate's column widths
    assert [row.split() for row in str(ours).splitlines()] == [r.split() for r in str(theirs).splitlines()]
    assert ours.to_latex() == theirs.to_latex()
    frame = ours.to_dataframe()
    assert frame.columns.tolist() == ["model_names", *metrics]
    want = theirs.to_dataframe()
    assert frame["model_names"].tolist() == want["model_names"].tolist()
    assert frame[metrics].to_numpy() == pytest.approx(want[metrics].to_numpy())


@pytest.mark.parametrize(
    "options",
    [{}, {"show_percentages": True}, {"rounding_digits": 5}, {"names": ["1", "22"]}, {"runs": 1},
     {"three": True}],
)
def test_report_table_is_ranxs_byte_for_byte(three_runs: tuple[Any, ...], options: dict[str, Any]) -> None:
    # regression: a column without superscripts (all its cells numbers) is a numeric column for
    # tabulate: "%g" values ("0.5", not "0.500") aligned on the decimal point, the title to the
    # right; the drop-in printed every column as text
    if options.pop("three", False):
        qrels, runs = three_runs
    else:
        qrels = {"q1": {"a": 1, "b": 2}, "q2": {"c": 1}, "q3": {"d": 1}}
        runs = [{"q1": {"a": 0.5, "x": 0.9}, "q2": {"c": 0.9}, "q3": {"d": 0.1, "e": 0.2}},
                {"q1": {"b": 0.7, "a": 0.2}, "q2": {"z": 0.9, "c": 0.1}, "q3": {"e": 0.3}}]
    names = options.pop("names", [f"m{i}" for i in range(len(runs))])[:options.pop("runs", len(runs))]
    metrics = ["ndcg@10", "mrr", "map@10", "precision@1"]
    pairs = list(zip(runs, names, strict=False))
    theirs = ranx.compare(ranx.Qrels(qrels), [ranx.Run(r, name=n) for r, n in pairs], metrics, **options)
    ours = compat.compare(compat.Qrels(qrels), [compat.Run(r, name=n) for r, n in pairs], metrics, **options)
    assert str(ours) == str(theirs)


_CELLS = ["0.500", "0.125", "62.4", "50.0", "1", "22", "007", "-3", "1e-05", "1.000ᵃ", "0.1ᵇᶜ", "bm25",
          "True", "1,234.5", "nan", "inf", " 5", "", "a b "]


@settings(max_examples=settings.default.max_examples * 20)
@given(st.integers(1, 5).flatmap(lambda n: st.tuples(
    st.lists(st.sampled_from(["#", "Model", "NDCG@10", "P@1"]), min_size=n, max_size=n),
    st.lists(st.lists(st.sampled_from(_CELLS), min_size=n, max_size=n), min_size=1, max_size=4))))
def test_report_layout_is_tabulates(table: tuple[list[str], list[list[str]]]) -> None:
    tabulate = pytest.importorskip("tabulate")  # ranx prints its Report with tabulate
    headers, rows = table
    ours = compat.data_structures.report.simple_table(headers, rows)
    assert ours == tabulate.tabulate(rows, headers=headers)


# ----------------------------------------------------------------------------- files and frames
@pytest.mark.parametrize("name", ["run.trec", "run.txt", "run.json", "run.lz4", "run.parquet"])
def test_saved_runs_read_back_in_ranx(tmp_path: Any, name: str) -> None:
    run = compat.Run({"q1": {"a": 0.5, "b": 0.25}, "q2": {"c": 1.0}}, name="bm25")
    path = str(tmp_path / name)
    run.save(path)
    back = ranx.Run.from_file(path) if not name.endswith("parquet") else ranx.Run.from_parquet(path)
    assert back.to_dict() == run.to_dict()
    assert compat.Run.from_file(path).to_dict() == run.to_dict()


def test_qrels_files_and_frames(tmp_path: Any) -> None:
    qrels = {"q1": {"a": 1, "b": 0}, "q2": {"c": 2}}
    ranx.Qrels(qrels).save(str(tmp_path / "q.trec"))
    assert compat.Qrels.from_file(str(tmp_path / "q.trec")).to_dict() == qrels
    df = pl.DataFrame({"q_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "c"], "score": [1, 0, 2]})
    assert compat.Qrels.from_df(df).to_dict() == qrels
    assert compat.Qrels.from_df(df.to_pandas()).to_dataframe().equals(ranx.Qrels(qrels).to_dataframe())


def test_frames_keep_nan_scores_and_refuse_what_ranx_refuses() -> None:
    # regression: Run.from_df read a pandas NaN score as None (TypeError from float(None)),
    # where ranx keeps NaN; Qrels.from_df truncated a grade of 1.5 to 1 and a None id became
    # the doc 'None', where ranx refuses both (AssertionError, TypeError)
    pd = pytest.importorskip("pandas")
    nan = pd.DataFrame({"q_id": ["1", "1"], "doc_id": ["a", "b"], "score": [np.nan, 1.0]})
    theirs, ours = ranx.Run.from_df(nan), compat.Run.from_df(nan)
    assert set(ours.run["1"]) == set(theirs.run["1"]) == {"a", "b"}
    assert np.isnan(ours.run["1"]["a"])
    assert ours.run["1"]["b"] == 1.0
    half = pd.DataFrame({"q_id": ["1"], "doc_id": ["a"], "score": [1.5]})
    with pytest.raises(AssertionError):
        ranx.Qrels.from_df(half)
    with pytest.raises(rf.InputError, match="1.5.*integer"):
        compat.Qrels.from_df(half)
    with pytest.raises(rf.InputError, match="integer"):
        compat.Qrels.from_df(half.assign(score=[np.nan]))
    none = pd.DataFrame({"q_id": ["1", "1"], "doc_id": ["a", None], "score": [2.0, 1.0]})
    with pytest.raises(TypeError):
        ranx.Run.from_df(none)
    with pytest.raises(rf.InputError, match="doc_id.*missing"):
        compat.Run.from_df(none)


# ----------------------------------------------------------------------------- bad input
QRELS, RUN = {"q": {"a": 1}}, {"q": {"a": 1.0}}


@pytest.mark.parametrize(
    ("call", "error", "words"),
    [
        (lambda: compat.evaluate(QRELS, RUN, "ndcg@x"), rf.MeasureError, "not a ranx metric"),
        (lambda: compat.evaluate(QRELS, RUN, "rbp"), rf.MeasureError, "persistence"),
        (lambda: compat.evaluate(QRELS, {"p": {"a": 1.0}}, "mrr"), rf.InputError, "make_comparable"),
        (lambda: compat.evaluate({"q": {"a": 1}}, 42, "mrr"), rf.InputError, "run: expected"),
        (lambda: compat.Run.from_file("run.csv"), rf.InputError, "kind"),
        (lambda: compat.Run.from_file("/nonexistent/run.trec"), rf.InputError, "cannot read"),
        (lambda: compat.Run({"q": [1, 2]}), rf.InputError, "query 'q'"),
        (lambda: compat.Run.from_df(pl.DataFrame({"q": ["a"]})), rf.InputError, "q_id_col"),
        (lambda: compat.metrics.precision([np.ones((1, 2))], [np.ones((1, 2))], -1), rf.InputError, "k"),
        (lambda: compat.compare(compat.Qrels({"q": {"a": 1}}), [compat.Run({"q": {"a": 1.0}})], "mrr",
                                stat_test="wilcoxon"), rf.InputError, "stat_test"),
    ],
)
def test_bad_input_is_one_line(call: Any, error: type[Exception], words: str) -> None:
    with pytest.raises(error) as info:
        call()
    assert words in str(info.value)
    assert "\n" not in str(info.value)


_FUSE_A = {"q1": {"d1": 3.0, "d2": 2.0, "d3": 2.0, "d4": 0.5}, "q2": {"d1": 1.0, "d5": 1.0}}
_FUSE_B = {"q1": {"d3": 0.9, "d1": 0.9, "d5": 0.1}, "q2": {"d5": 2.0, "d2": 0.4}}
_FUSE_QRELS = {"q1": {"d1": 1, "d3": 1}, "q2": {"d5": 1}}


@pytest.mark.parametrize(
    ("norm", "method", "params"),
    [
        ("min-max", "wsum", {"weights": [0.3, 0.7]}),
        (None, "rrf", {"k": 2}),
        ("rank", "mnz", {}),
        ("zmuv", "isr", {}),
        ("max", "rbc", {"phi": 0.8}),
        ("min-max-inverted", "wmnz", {"weights": [1.0, 2.0]}),
    ],
)
def test_fuse_matches_ranx(norm: str | None, method: str, params: dict[str, Any]) -> None:
    """Tied scores on purpose: the ranks (ties in ranx's order) decide rrf, isr, rbc, bordafuse."""
    ours = compat.fuse([compat.Run(_FUSE_A), compat.Run(_FUSE_B)], norm=norm, method=method, params=params)
    theirs = ranx.fuse([ranx.Run(_FUSE_A), ranx.Run(_FUSE_B)], norm=norm, method=method, params=params)
    assert ours.name == theirs.name
    assert ours.keys() == theirs.keys()
    for q in theirs.keys():
        assert ours[q] == pytest.approx(dict(theirs[q]), abs=1e-12)
        assert list(ours.run[q]) == list(theirs.run[q])  # tied fused scores in ranx's order


def test_tied_fused_scores_keep_ranx_insertion_order() -> None:
    a, b = {"q": {"b": 1.0, "a": 1.0}}, {"q": {"c": 2.0}}
    ours = compat.fusion.comb_sum([compat.Run(a), compat.Run(b)])
    theirs = ranx.fusion.comb_sum([ranx.Run(a), ranx.Run(b)])
    assert list(ours.run["q"]) == list(theirs.run["q"]) == ["c", "b", "a"]


@pytest.mark.parametrize(("method", "extra"), [("probfuse", {"n_segments": 2}), ("posfuse", {}),
                                                ("mapfuse", {}), ("bayesfuse", {})])
def test_trained_fusion_matches_ranx(method: str, extra: dict[str, Any]) -> None:
    from ranx import fusion as real

    from rankframe.compat.ranx import fusion as ours

    runs = [compat.Run(_FUSE_A), compat.Run(_FUSE_B)]
    ranx_runs = [ranx.Run(_FUSE_A), ranx.Run(_FUSE_B)]
    learnt = getattr(ours, f"{method}_train")(compat.Qrels(_FUSE_QRELS), runs, **extra)
    expected = getattr(real, f"{method}_train")(ranx.Qrels(_FUSE_QRELS), ranx_runs, **extra)
    for a, b in zip(learnt, expected, strict=True):
        assert np.asarray(a) == pytest.approx(np.asarray(b), abs=0)
    fused = getattr(ours, method)(runs, learnt)
    truth = getattr(real, method)(ranx_runs, expected)
    assert fused.name == truth.name
    for q in truth.keys():
        assert fused[q] == pytest.approx(dict(truth[q]), abs=1e-12)


@pytest.mark.parametrize("method", ["segfuse", "bayesfuse", "probfuse"])
def test_training_sums_as_ranx_does(method: str) -> None:
    """2, 1 and 4 hits at ranks 6-15 of three queries: 0.2 + 0.1 + 0.4 then / 3, exactly as ranx."""
    from ranx import fusion as real

    from rankframe.compat.ranx import fusion as ours

    run = {q: {f"d{p}": 20.0 - p for p in range(15)} for q in ("q0", "q1", "q2")}
    judged = {q: {f"d{p}": 1 for p in range(5, 5 + h)} for q, h in (("q0", 2), ("q1", 1), ("q2", 4))}
    extra = {"n_segments": 3} if method == "probfuse" else {}
    learnt = getattr(ours, f"{method}_train")(compat.Qrels(judged), [compat.Run(run)], **extra)
    expected = getattr(real, f"{method}_train")(ranx.Qrels(judged), [ranx.Run(run)], **extra)
    assert np.array_equal(learnt[0], expected[0])


def test_slidefuse_sums_each_window_as_ranx_does() -> None:
    """Windows summed left to right (a difference of prefix sums differs in the last bit)."""
    from ranx import fusion as real

    from rankframe.compat.ranx import fusion as ours

    run = {"q": {f"d{p}": 9.0 - p for p in range(6)}}
    probs = [np.array([2 / 3, 0.7, 2 / 3, 0.7, 0.1, 0.3]), np.array([0.3, 0.1, 0.2])]
    mine = ours.slidefuse([compat.Run(run), compat.Run(run)], probs, w=1)
    theirs = real.slidefuse([ranx.Run(run), ranx.Run(run)], probs, w=1)
    assert mine["q"] == dict(theirs["q"])


def test_normalisations_leave_the_run_and_match_ranx() -> None:
    run = compat.Run(_FUSE_A, name="bm25")
    for norm in ("min-max", "min-max-inverted", "max", "sum", "zmuv", "rank"):
        ours, theirs = compat.normalize(run, norm), ranx.normalize(ranx.Run(_FUSE_A), norm)
        assert ours.name == "bm25"
        for q in theirs.keys():
            assert ours[q] == pytest.approx(dict(theirs[q]), abs=1e-12)
    assert run.run == compat.Run(_FUSE_A).run


def test_fusion_errors_are_one_line() -> None:
    from rankframe.compat.ranx.fusion import fusion_switch, rrf

    with pytest.raises(rf.InputError, match="at least 2"):
        rrf([compat.Run(_FUSE_A)])
    with pytest.raises(rf.InputError, match="not supported"):
        fusion_switch("nope")
    with pytest.raises(rf.InputError, match="query ids do not match"):
        compat.fuse([compat.Run(_FUSE_A), compat.Run({"q1": {"d1": 1.0}})], method="sum")


def test_importing_the_drop_in_loads_neither_ranx_numba_nor_pandas() -> None:
    code = ("import sys, rankframe.compat.ranx as r; r.Run({'q': {'a': 1.0}}); "
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'ranx', 'numba', 'pandas'}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# ----------------------------------------------------------------------------- optimize_fusion / plot
def _tied_runs(seed: int, queries: int, docs: int, runs: int) -> tuple[Any, ...]:
    """Judgments (grades 0-2) and runs scored 1-4 (ties) over up to ``docs`` documents a query."""
    rng = np.random.default_rng(seed)
    qrels = {f"q{i}": {f"d{j}": int(rng.integers(0, 3)) for j in rng.choice(docs, 6, replace=False)}
             for i in range(queries)}
    ranked = [{q: {f"d{j}": float(rng.integers(1, 5))
                   for j in rng.choice(docs, int(rng.integers(1, docs + 1)), replace=False)} for q in qrels}
              for _ in range(runs)]
    return qrels, ranked


@pytest.fixture(scope="module")
def short_runs() -> tuple[Any, ...]:
    """Up to 15 documents a query: ranx keeps tied fused scores in insertion order."""
    return _tied_runs(3, 6, 15, 3)


@pytest.fixture(scope="module")
def long_runs() -> tuple[Any, ...]:
    """Up to 40 tied documents a query: numba's quicksort permutes the ties."""
    return _tied_runs(5, 5, 40, 2)


def _optimized(qrels: Any, runs: list[Any], **kw: Any) -> tuple[Any, Any]:
    trains = kw.get("method") in ("bayesfuse", "mapfuse", "posfuse", "segfuse")
    quiet = {} if trains else {"show_progress": False}
    theirs = ranx.optimize_fusion(ranx.Qrels(qrels), [ranx.Run(r) for r in runs], **quiet, **kw)
    ours = compat.optimize_fusion(compat.Qrels(qrels), [compat.Run(r) for r in runs], **kw)
    return theirs, ours


def _assert_same_params(got: dict[str, Any], want: dict[str, Any]) -> None:
    assert got.keys() == want.keys()
    for key, value in want.items():
        if key in ("probs", "log_odds"):
            assert len(got[key]) == len(value)
            for a, b in zip(got[key], value, strict=True):
                np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-15)
        elif key == "map_scores":
            assert got[key] == pytest.approx(list(value), rel=1e-12)
        else:
            assert got[key] == value


_GRID = {"step": 0.2}
OPTIMIZED = [
    ("wsum", {"step": 0.5}, "min-max", "ndcg@5"),
    ("wmnz", {"step": 0.5}, "rank", "map@10"),
    ("mixed", {"step": 0.5}, None, "mrr"),
    ("rrf", {}, "min-max", "ndcg@5"),
    ("gmnz", {"min_gamma": 0.2, "max_gamma": 1.0, **_GRID}, "max", "map@10"),
    ("logn_isr", {"min_sigma": 0.2, "max_sigma": 1.0, **_GRID}, None, "ndcg@5"),
    ("rbc", {"min_phi": 0.2, "max_phi": 1.0, **_GRID}, "min-max", "mrr"),
    ("probfuse", {"max_n_segments": 6}, "min-max", "ndcg@5"),
    ("slidefuse", {"max_w": 5}, "min-max", "map@10"),
]


@pytest.mark.parametrize(("method", "options", "norm", "metric"), OPTIMIZED)
def test_optimize_fusion_matches_ranx(
    short_runs: tuple[Any, ...], method: str, options: dict[str, Any], norm: str | None, metric: str
) -> None:
    qrels, runs = short_runs
    (want, theirs), (got, ours) = _optimized(qrels, runs, norm=norm, method=method, metric=metric,
                                             return_optimization_report=True, **options)
    assert ours.configs == theirs.configs
    assert ours.results == pytest.approx(theirs.results, rel=1e-12, abs=1e-15)
    _assert_same_params(got, want)
    assert (ours.method, ours.metric) == (theirs.method, theirs.metric)


@pytest.mark.parametrize("method", ["bayesfuse", "mapfuse", "posfuse", "segfuse"])
def test_optimize_fusion_of_a_trained_method_is_its_training(
    short_runs: tuple[Any, ...], method: str
) -> None:
    qrels, runs = short_runs
    want, got = _optimized(qrels, runs, method=method)
    _assert_same_params(got, want)


@pytest.mark.parametrize(("method", "options", "metric"), [
    ("wsum", {"step": 0.25}, "map"), ("wsum", {"step": 0.5}, "mrr@3"),
    ("rrf", {"min_k": 1, "step": 33}, "map"),
])
def test_optimize_fusion_orders_long_ties_as_ranx(
    long_runs: tuple[Any, ...], method: str, options: dict[str, Any], metric: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from rankframe.compat.ranx import _optimize

    calls: list[int] = []
    order = _optimize.ranx_order
    monkeypatch.setattr(_optimize, "ranx_order", lambda s: calls.append(len(s)) or order(s))
    qrels, runs = long_runs
    (want, theirs), (got, ours) = _optimized(qrels, runs, method=method, metric=metric, norm="rank",
                                             return_optimization_report=True, **options)
    assert ours.results == pytest.approx(theirs.results, rel=1e-12, abs=1e-15)
    _assert_same_params(got, want)
    assert calls  # numba's order was needed...
    assert min(calls) > 15  # ...for long rankings only (and where a tie starts above the cutoff)


@pytest.mark.parametrize("within", [None, 3, 0])
def test_candidates_are_ranked_in_numba_order_where_it_matters(within: int | None) -> None:
    """20 documents, a tie at the top mixing grades: numba's order unless the metric cannot tell."""
    from rankframe.compat.ranx._optimize import ranx_ranked
    from rankframe.compat.ranx._order import ranx_order

    scores = [1.0] * 12 + [0.5] * 8
    rows = pl.DataFrame({
        "_c": [0] * 20, "_q": [1] * 20, "query_id": ["q"] * 20, "doc_id": [f"d{i}" for i in range(20)],
        "_k": list(range(20)), "_g": [None, 1] * 10, "score": scores,
    }, schema_overrides={"_c": pl.UInt32, "_q": pl.UInt32, "_g": pl.Int64})
    got = ranx_ranked(rows, within)["doc_id"].to_list()
    numba = [f"d{i}" for i in ranx_order(scores)]
    assert got == (numba if within != 0 else [f"d{i}" for i in range(20)])
    assert numba != [f"d{i}" for i in range(20)]  # the case is one where the orders differ


@settings(deadline=None)
@given(data=st.data())
def test_optimize_fusion_wsum_matches_ranx_on_drawn_runs(data: st.DataObject) -> None:
    qrels, run = data.draw(judged_runs(max_queries=3))
    _, other = data.draw(judged_runs(max_queries=3))
    other = {q: other.get(q, {"d0": 0.5}) for q in run}
    (want, theirs), (got, ours) = _optimized(qrels, [run, other], metric="ndcg@5", step=0.5,
                                             return_optimization_report=True)
    assert ours.results == pytest.approx(theirs.results, rel=1e-9, abs=1e-12)
    assert got == want


@pytest.mark.parametrize("method", ["w_bordafuse", "w_condorcet"])
def test_optimize_fusion_scores_what_fuse_gives(long_runs: tuple[Any, ...], method: str) -> None:
    """ranx's order of these methods' tied documents is arbitrary: the drop-in's own fuse is the reference."""
    qrels, runs = long_runs
    q, rs = compat.Qrels(qrels), [compat.Run(r) for r in runs]
    _, report = compat.optimize_fusion(q, rs, method=method, metric="ndcg@5", step=0.5,
                                       return_optimization_report=True)
    weights = [(0.0, 1.0), (0.5, 0.5), (1.0, 0.0)]
    fused = [compat.fuse(rs, method=method, params={"weights": w}) for w in weights]
    want = [compat.evaluate(q, run, "ndcg@5") for run in fused]
    assert report.results == pytest.approx(want, rel=1e-12)


def test_optimize_fusion_errors_are_one_line(short_runs: tuple[Any, ...]) -> None:
    qrels, runs = short_runs
    q, rs = compat.Qrels(qrels), [compat.Run(r) for r in runs]
    cases = [
        (rf.InputError, "does not support optimization", {"method": "sum"}),
        (rf.InputError, "optimization report", {"method": "posfuse", "return_optimization_report": True}),
        (rf.InputError, "no option 'steps'", {"steps": 0.5}),
        (rf.MeasureError, "not a ranx metric", {"metric": "ndgc"}),
        (rf.InputError, "Normalization method", {"norm": "minmax"}),
    ]
    for error, match, kwargs in cases:
        with pytest.raises(error, match=match):
            compat.optimize_fusion(q, rs, **kwargs)
    with pytest.raises(rf.InputError, match="at least 2"):
        compat.optimize_fusion(q, rs[:1])
    with pytest.raises(rf.InputError, match="query ids do not match"):
        compat.optimize_fusion(q, [rs[0], compat.Run({"q0": {"d1": 1.0}})])
    with pytest.raises(NotImplementedError, match="Run.from_file"):
        compat.Run.from_ranxhub("msmarco-passage/bm25")


def test_plot_draws_ranx_curves(short_runs: tuple[Any, ...]) -> None:
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    qrels, runs = short_runs
    want = ranx.plot(ranx.Qrels(qrels), [ranx.Run(r, name=f"m{i}") for i, r in enumerate(runs)],
                     return_graph=False)
    mine = [compat.Run(r, name=f"m{i}") for i, r in enumerate(runs)]
    got = compat.plot(compat.Qrels(qrels), mine, return_graph=False)
    assert got["Model"].tolist() == want["Model"].tolist()
    np.testing.assert_allclose(got["recall"], want["recall"])
    np.testing.assert_allclose(got["precision"], want["precision"], rtol=1e-12)
    with warnings.catch_warnings():  # plt.show() on Agg may say it shows nothing
        warnings.simplefilter("ignore", UserWarning)
        ax = compat.plot(compat.Qrels(qrels), mine)
    lines = ax.get_lines()
    assert [line.get_label() for line in lines] == ["m0", "m1", "m2"]
    np.testing.assert_allclose(lines[1].get_ydata(), want["precision"][11:22], rtol=1e-12)
    plt.close("all")
