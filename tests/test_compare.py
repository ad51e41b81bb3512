"""rankframe.compare: paired tests over per-query results, checked against scipy and statsmodels.

The per-query values come from pytrec_eval (an independent evaluator) where it has the measure,
and the tests, intervals and corrections from scipy.stats / statsmodels on those values.
"""

from __future__ import annotations

import json
import math
import warnings
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import rankframe as rf
from rankframe._cli.main import main

DATA = Path(__file__).resolve().parents[1] / "data"
QRELS = str(DATA / "qrels.dl19-passage.txt")
BM25 = str(DATA / "run.dl19.bm25.txt")
SPLADE = str(DATA / "run.dl19.splade.txt")


@pytest.fixture(scope="module")
def noisy(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A third run: BM25 with seeded noise on the scores (reorders some documents)."""
    run = rf.read_run(BM25).collect()
    rng = np.random.default_rng(7)
    run = run.with_columns(pl.col("score") + pl.Series(rng.normal(0, 1.5, run.height)))
    path = tmp_path_factory.mktemp("runs") / "noisy.txt"
    lines = [f"{q} Q0 {d} 0 {s!r} noisy" for q, d, s in run.select("query_id", "doc_id", "score").iter_rows()]
    path.write_text("\n".join(lines) + "\n")
    return str(path)


@pytest.fixture(scope="module")
def runs(noisy: str) -> dict[str, str]:
    return {"bm25": BM25, "splade": SPLADE, "noisy": noisy}


def _pytrec_matrix(runs: dict[str, str], measure: str) -> tuple[list[str], np.ndarray]:
    """Queries x runs of one pytrec_eval measure, over the judged queries (0 where a run has none)."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels: dict[str, dict[str, int]] = {}
    for q, d, r in rf.read_qrels(QRELS).collect().select("query_id", "doc_id", "relevance").iter_rows():
        qrels.setdefault(q, {})[d] = int(r)
    cols = {}
    for name, path in runs.items():
        run: dict[str, dict[str, float]] = {}
        for q, d, s in rf.read_run(path).collect().select("query_id", "doc_id", "score").iter_rows():
            run.setdefault(q, {})[d] = float(s)
        res = pytrec_eval.RelevanceEvaluator(qrels, {measure}).evaluate(run)
        cols[name] = res
    queries = sorted(qrels)
    x = np.array([[cols[n].get(q, {}).get(measure, 0.0) for n in runs] for q in queries])
    return queries, x


def _row(frame: pl.DataFrame, **where: str) -> dict:
    out = frame.filter(*[pl.col(k) == v for k, v in where.items()])
    assert out.height == 1, out
    return out.row(0, named=True)


@pytest.mark.parametrize(("measure", "trec"), [("nDCG@10", "ndcg_cut_10"), ("AP", "map")])
def test_t_test_intervals_and_holm_equal_scipy_and_statsmodels(runs, measure, trec):
    multitest = pytest.importorskip("statsmodels.stats.multitest")
    c = rf.compare(QRELS, runs, [measure], test="t", correction="holm", score_dtype="float32")
    _, x = _pytrec_matrix(runs, trec)
    names = list(runs)
    n = x.shape[0]
    for j, name in enumerate(names):
        row = _row(c.summary, run=name)
        low, high = stats.t.interval(0.95, n - 1, loc=x[:, j].mean(), scale=stats.sem(x[:, j]))
        assert row["n"] == n
        assert row["mean"] == pytest.approx(x[:, j].mean(), abs=1e-6)
        assert (row["ci_low"], row["ci_high"]) == pytest.approx((low, high), abs=1e-6)
    pairs = [(i, j) for i in range(3) for j in range(i + 1, 3)]
    assert c.pairs.height == len(pairs)
    p_raw = []
    for i, j in pairs:
        row = _row(c.pairs, baseline=names[i], run=names[j])
        d = x[:, j] - x[:, i]
        ref = stats.ttest_rel(x[:, j], x[:, i])
        p_raw.append(ref.pvalue)
        assert row["diff"] == pytest.approx(d.mean(), abs=1e-6)
        assert row["statistic"] == pytest.approx(ref.statistic, rel=1e-5)
        assert row["p_value"] == pytest.approx(ref.pvalue, rel=1e-5, abs=1e-12)
        low, high = stats.t.interval(0.95, n - 1, loc=d.mean(), scale=stats.sem(d))
        assert (row["ci_low"], row["ci_high"]) == pytest.approx((low, high), abs=1e-6)
        assert row["effect_size"] == pytest.approx(d.mean() / d.std(ddof=1), rel=1e-5)
        assert (row["wins"], row["ties"], row["losses"]) == (
            int((d > 1e-9).sum()), int((np.abs(d) <= 1e-9).sum()), int((d < -1e-9).sum())
        )
    holm = multitest.multipletests(p_raw, method="holm")[1]
    got = [_row(c.pairs, baseline=names[i], run=names[j])["p_adjusted"] for i, j in pairs]
    assert got == pytest.approx(list(holm), rel=1e-5, abs=1e-12)
    sig = [_row(c.pairs, baseline=names[i], run=names[j])["significant"] for i, j in pairs]
    assert sig == [bool(p < 0.05) for p in holm]


def test_wilcoxon_and_bh_against_a_baseline(runs):
    multitest = pytest.importorskip("statsmodels.stats.multitest")
    c = rf.compare(QRELS, runs, ["nDCG@10"], baseline="bm25", test="wilcoxon", correction="bh",
                   score_dtype="float32")
    _, x = _pytrec_matrix(runs, "ndcg_cut_10")
    p_raw = []
    for j, name in ((1, "splade"), (2, "noisy")):
        d = x[:, j] - x[:, 0]
        nz = np.round(d[d != 0], 9)
        method = "exact" if len(nz) <= 50 and len(np.unique(np.abs(nz))) == len(nz) else "approx"
        # zero_method="wilcox" discards zeros; scipy 1.11 does so only after leaving "exact"
        ref = stats.wilcoxon(d[d != 0], zero_method="wilcox", correction=False, method=method)
        p_raw.append(ref.pvalue)
        row = _row(c.pairs, run=name)
        assert row["baseline"] == "bm25"
        assert row["statistic"] == pytest.approx(ref.statistic)
        assert row["p_value"] == pytest.approx(ref.pvalue, rel=1e-6)
    bh = multitest.multipletests(p_raw, method="fdr_bh")[1]
    assert c.pairs.sort("run", descending=True)["p_adjusted"].to_list() == pytest.approx(list(bh), rel=1e-6)


def test_permutation_and_bootstrap_within_monte_carlo_error_of_scipy(runs):
    _, x = _pytrec_matrix(runs, "map")
    d = x[:, 2] - x[:, 0]  # noisy - bm25: a small difference, p far from 0
    b = 4000
    perm = rf.compare(QRELS, runs, ["AP"], baseline="bm25", test="permutation",
                      n_permutations=b, seed=3, score_dtype="float32")
    row = _row(perm.pairs, run="noisy")
    ref = stats.permutation_test(
        (x[:, 2], x[:, 0]), lambda a, c: np.mean(a - c), permutation_type="samples",
        n_resamples=b, alternative="two-sided", random_state=1,
    ).pvalue
    tol = 4 * math.sqrt(ref * (1 - ref) / b) + 2 / b
    assert abs(row["p_value"] - ref) < tol
    again = rf.compare(QRELS, runs, ["AP"], baseline="bm25", test="permutation",
                       n_permutations=b, seed=3, score_dtype="float32")
    assert again.pairs.equals(perm.pairs)  # a fixed seed reproduces every number

    boot = rf.compare(QRELS, runs, ["AP"], baseline="bm25", test="bootstrap",
                      n_bootstrap=b, seed=5, score_dtype="float32")
    row = _row(boot.pairs, run="noisy")
    ref = stats.bootstrap((d,), np.mean, method="percentile", n_resamples=b, random_state=2)
    sd = ref.standard_error
    assert row["ci_low"] == pytest.approx(ref.confidence_interval.low, abs=0.5 * sd)
    assert row["ci_high"] == pytest.approx(ref.confidence_interval.high, abs=0.5 * sd)
    assert row["diff"] == pytest.approx(d.mean(), abs=1e-6)


def test_tukey_pairs_are_oriented_run_minus_baseline(runs):
    c = rf.compare(QRELS, runs, ["nDCG@10"], baseline="splade", test="tukey")
    means = dict(zip(c.summary["run"], c.summary["mean"], strict=True))
    assert c.pairs.height == 2
    for row in c.pairs.iter_rows(named=True):
        assert row["baseline"] == "splade"
        assert row["diff"] == pytest.approx(means[row["run"]] - means["splade"])
        assert row["statistic"] == pytest.approx(row["diff"])
        assert row["ci_low"] <= row["diff"] <= row["ci_high"]
        assert row["p_adjusted"] == row["p_value"]
        assert row["correction"] == "tukey"
    assert _row(c.pairs, run="bm25")["significant"]  # 0.51 vs 0.73 on 43 queries


def test_breakdowns_compare_within_each_group(runs):
    frames = {n: rf.read_run(p).collect() for n, p in list(runs.items())[:2]}
    qrels = rf.read_qrels(QRELS).collect().select("query_id", "doc_id", "relevance")
    qids = sorted(qrels["query_id"].unique())
    half = pl.DataFrame({"query_id": qids, "half": [i % 2 for i in range(len(qids))]})
    with_half = {n: f.join(half, on="query_id", how="inner") for n, f in frames.items()}
    both = rf.compare(qrels, with_half, ["AP", "RR"], baseline="bm25", by=["half"])
    assert set(both.pairs["half"]) == {0, 1}
    for h in (0, 1):
        mine = half.filter(pl.col("half") == h).select("query_id")
        alone = rf.compare(
            qrels.join(mine, on="query_id", how="semi"),
            {n: f.filter(pl.col("half") == h) for n, f in with_half.items()}, ["AP", "RR"],
            baseline="bm25",
        )
        group = both.pairs.filter(pl.col("half") == h).drop("half")
        assert group["n"].to_list() == [mine.height] * 2
        assert alone.pairs.equals(group)
        assert alone.summary.equals(both.summary.filter(pl.col("half") == h).drop("half"))


def test_runs_whose_query_sets_differ(tmp_path):
    qrels = pl.DataFrame({"query_id": ["1", "2", "3"], "doc_id": ["a"] * 3, "relevance": [1] * 3})
    a = pl.DataFrame({"query_id": ["1", "2", "3"], "doc_id": ["a"] * 3, "score": [1.0] * 3})
    b = pl.DataFrame({"query_id": ["1", "2"], "doc_id": ["a", "x"], "score": [1.0, 1.0]})
    # by default (complete=False, paired=None): each run over its own queries, as evaluate gives
    # them, and an unpaired test, said in the warning, the test column and the meta
    with pytest.warns(rf.RankframeWarning, match=r"compared unpaired \(Welch's t-test"):
        c = rf.compare(qrels, {"a": a, "b": b}, ["RR"])
    means = rf.evaluate(qrels, {"a": a, "b": b}, ["RR"])
    assert c.summary["mean"].to_list() == means["value"].to_list() == [1.0, 0.5]
    assert c.summary["n"].to_list() == [3, 2]
    assert c.pairs["test"].item() == "welch"
    assert c.pairs["n"].item() == 5
    assert c.pairs["diff"].item() == pytest.approx(-0.5)
    assert "Welch's t-test (unpaired)" in c.meta["test"]
    assert c.per_query.height == 5
    # paired=True: the queries every run has
    with pytest.warns(rf.RankframeWarning, match="left out of the comparison"):
        c = rf.compare(qrels, {"a": a, "b": b}, ["RR"], paired=True)
    assert c.pairs["n"].item() == 2
    assert c.pairs["test"].item() == "t"
    assert c.pairs["diff"].item() == pytest.approx(-0.5)
    c = rf.compare(qrels, {"a": a, "b": b}, ["RR"], complete=True)  # query 3 scores 0 for b
    assert c.pairs["n"].item() == 3
    assert c.pairs["diff"].item() == pytest.approx(-2 / 3)
    with pytest.raises(rf.MeasureError, match="Tukey's HSD needs every run on every query"):
        rf.compare(qrels, {"a": a, "b": b}, ["RR"], test="tukey")


def test_integer_query_ids_with_a_run_missing_a_query(tmp_path):
    # the repro of the crash: the warning's sample of query ids joined ints as strings
    qrels = pl.DataFrame({"query_id": [1, 2], "doc_id": ["a", "b"], "relevance": [1, 1]})
    a = pl.DataFrame({"query_id": [1, 2], "doc_id": ["a", "b"], "score": [1.0, 1.0]})
    b = pl.DataFrame({"query_id": [1], "doc_id": ["a"], "score": [1.0]})
    with pytest.warns(rf.RankframeWarning, match=r"e\.g\. queries 2\)"):
        c = rf.compare(qrels, {"a": a, "b": b}, ["RR"])
    assert c.summary["mean"].to_list() == [1.0, 1.0]


@settings(max_examples=settings.default.max_examples, deadline=None)
@given(data=st.data(), test=st.sampled_from(["t", "wilcoxon", "permutation", "bootstrap"]))
def test_unpaired_comparisons_agree_with_evaluate_and_scipy(data, test):
    from scipy import stats as st_

    qrels, runs = data.draw(_random_runs())
    names = list(runs)
    # some runs miss some queries
    for name in names[1:]:
        queries = sorted(set(runs[name]["query_id"]))
        if queries:
            keep = data.draw(st.lists(st.sampled_from(queries), unique=True, min_size=1))
            runs[name] = runs[name].filter(pl.col("query_id").is_in(keep))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        c = rf.compare(qrels, runs, ["AP"], test=test, paired=False, n_permutations=200, n_bootstrap=200)
        per_query = rf.evaluate(qrels, runs, ["AP"], per_query=True)
    values = {n: per_query.filter(pl.col("run") == n)["value"].to_numpy() for n in names}
    for row in c.summary.iter_rows(named=True):  # evaluate's means over each run's own queries
        assert row["n"] == len(values[row["run"]])
        v = values[row["run"]]
        assert row["mean"] == pytest.approx(v.mean() if len(v) else math.nan, nan_ok=True)
    for row in c.pairs.iter_rows(named=True):
        a, b = values[row["baseline"]], values[row["run"]]
        diff = b.mean() - a.mean() if len(a) and len(b) else math.nan
        assert row["diff"] == pytest.approx(diff, nan_ok=True)
        assert row["test"] == {"t": "welch", "wilcoxon": "mann-whitney",
                               "permutation": "permutation-unpaired", "bootstrap": "bootstrap-unpaired"}[test]
        if test == "t" and len(a) > 1 and len(b) > 1 and (a.std() > 0 or b.std() > 0):
            ref = st_.ttest_ind(b, a, equal_var=False)
            assert row["statistic"] == pytest.approx(ref.statistic)
            assert row["p_value"] == pytest.approx(ref.pvalue)
            low, high = ref.confidence_interval(0.95)  # clipped to AP's range of differences
            assert (row["ci_low"], row["ci_high"]) == pytest.approx((max(low, -1.0), min(high, 1.0)))
        if test == "wilcoxon":  # U: pairs where the run beats the baseline, ties half
            u = sum((y > x) + 0.5 * (y == x) for x in a for y in b)
            assert row["statistic"] == pytest.approx(u)
        for p in (row["p_value"], row["p_adjusted"]):
            assert math.isnan(p) or 0.0 <= p <= 1.0


def test_unpaired_permutation_p_is_the_exact_one_within_its_error():
    # the exact two-sample permutation p-value, by enumerating every split, vs 20,000 draws
    import itertools

    from rankframe._compare import unpaired

    a, b = [0.1, 0.35, 0.2, 0.4], [0.5, 0.3, 0.6, 0.9, 0.45]
    pooled = a + b
    diff = sum(b) / len(b) - sum(a) / len(a)
    splits = list(itertools.combinations(range(len(pooled)), len(a)))
    extreme = 0
    for idx in splits:
        xa = [pooled[i] for i in idx]
        xb = [pooled[i] for i in range(len(pooled)) if i not in idx]
        extreme += abs(sum(xb) / len(xb) - sum(xa) / len(xa)) >= abs(diff) - 1e-12
    exact = extreme / len(splits)
    got_diff, p = unpaired.permutation(a, b, 20_000, seed=3)
    assert got_diff == pytest.approx(diff)
    assert p == pytest.approx(exact, abs=0.01)
    p_boot, low, high = unpaired.bootstrap(a, b, 20_000, seed=3)
    assert low < diff < high
    assert 0.0 < p_boot < 0.2
    # Cohen's d with the pooled standard deviation
    import statistics

    sp = math.sqrt((3 * statistics.variance(a) + 4 * statistics.variance(b)) / 7)
    assert unpaired.effect_size(a, b) == pytest.approx(diff / sp)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"test": "z"}, "Unknown test"),
        ({"correction": "sidak"}, "Unknown correction"),
        ({"baseline": "nope"}, "not one of the runs"),
        ({"alpha": 1.5}, "between 0 and 1"),
        ({"n_permutations": 0}, "positive int"),
    ],
)
def test_bad_arguments_are_named(kwargs, match):
    with pytest.raises(rf.MeasureError, match=match):
        rf.compare(QRELS, {"bm25": BM25, "splade": SPLADE}, ["AP"], **kwargs)


def test_one_run_is_not_a_comparison():
    with pytest.raises(rf.MeasureError, match="at least two runs"):
        rf.compare(QRELS, BM25, ["AP"])


def test_renderings(runs, tmp_path):
    c = rf.compare(QRELS, runs, ["nDCG@10", "AP"], baseline="bm25")
    text = str(c)
    mean = _row(c.summary, measure="AP", run="splade")["mean"]
    assert f"{mean:.4f}" in text
    assert "tabular" in c.to_latex()
    assert "|" in c.to_markdown()
    frame = pl.read_csv(c.to_csv().encode())
    assert frame.height == 6  # 3 runs x 2 measures, each run's row with its pair vs bm25
    assert frame.filter(pl.col("run") == "bm25")["p_value"].is_null().all()
    doc = json.loads(c.to_json())
    assert {r["run"] for r in doc["pairs"]} == {"splade", "noisy"}
    assert doc["test"] == "t"
    pytest.importorskip("matplotlib")
    html = c.to_html()
    assert html.count("<svg") >= 4
    parser = HTMLParser()
    parser.feed(html)
    paths = c.save_figures(tmp_path / "figs", formats=("png",))
    assert paths
    assert all(p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for p in paths)


def test_progress_bar_on_stderr(capsys):
    rf.compare(QRELS, {"bm25": BM25, "splade": SPLADE}, ["AP", "RR"], test="permutation",
               n_permutations=2000, progress=True)
    err = capsys.readouterr().err
    assert "Fisher's randomization test" in err
    assert "4000/4000" in err


def test_cli_compare_prints_a_table_and_writes_a_report(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    html = tmp_path / "report.html"
    code = main(["compare", QRELS, BM25, SPLADE, "-m", "nDCG@10", "AP", "--html", str(html),
                 "--baseline", "run.dl19.bm25.txt"])
    out = capsys.readouterr().out
    assert code == 0
    assert "run.dl19.splade.txt (b)" in out
    assert html.read_text().count("<svg") >= 4
    assert main(["compare", QRELS, BM25, SPLADE, "-m", "AP", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert len(doc["pairs"]) == 1
    assert main(["compare", QRELS, BM25, "-m", "AP"]) == 2  # one run: a usage error


def test_significance_follows_the_adjusted_p_value():
    run = rf.read_run(BM25).collect().select("query_id", "doc_id", "score")
    runs = {"bm25": run}
    for i, sd in enumerate([0.3, 0.6, 1.0, 1.5]):
        noise = np.random.default_rng(i).normal(0, sd, run.height)
        runs[f"n{i}"] = run.with_columns(pl.col("score") + pl.Series(noise))
    c = rf.compare(QRELS, runs, ["AP"], correction="bonferroni")
    assert c.pairs.height == 10
    p = np.array(c.pairs["p_value"])
    assert c.pairs["p_adjusted"].to_list() == pytest.approx(list(np.minimum(1.0, 10 * p)))
    assert c.pairs["significant"].to_list() == [bool(a < 0.05) for a in c.pairs["p_adjusted"]]
    # the data has pairs significant before the correction and not after it
    assert c.pairs.filter((pl.col("p_value") < 0.05) & ~pl.col("significant")).height >= 2


def test_cli_without_matplotlib_says_which_extra(tmp_path, capsys, monkeypatch):
    import builtins

    real = builtins.__import__

    def no_matplotlib(name, *args, **kwargs):
        if name.split(".")[0] == "matplotlib":
            raise ImportError("No module named 'matplotlib'")
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    code = main(["compare", QRELS, BM25, SPLADE, "-m", "AP", "--html", str(tmp_path / "r.html")])
    captured = capsys.readouterr()
    assert code == 1
    assert "run.dl19.splade.txt (b)" in captured.out  # the table is printed before the report
    assert "rankframe[report]" in captured.err
    assert "Traceback" not in captured.err


@st.composite
def _random_runs(draw):
    n_q = draw(st.integers(1, 8))
    n_runs = draw(st.integers(2, 4))
    docs = [f"d{i}" for i in range(6)]
    qrels_rows = []
    for q in range(n_q):
        for d in draw(st.lists(st.sampled_from(docs), min_size=1, max_size=4, unique=True)):
            qrels_rows.append((f"q{q}", d, draw(st.integers(-1, 3))))
    runs = {}
    for r in range(n_runs):
        rows = []
        for q in range(draw(st.integers(0, n_q))):  # some runs miss the last queries
            for d in draw(st.lists(st.sampled_from(docs), min_size=1, max_size=5, unique=True)):
                rows.append((f"q{q}", d, float(draw(st.integers(0, 3)))))  # score ties
        runs[f"r{r}"] = pl.DataFrame(rows, schema={"query_id": pl.String, "doc_id": pl.String,
                                                   "score": pl.Float64}, orient="row")
    qrels = pl.DataFrame(qrels_rows, schema={"query_id": pl.String, "doc_id": pl.String,
                                             "relevance": pl.Int64}, orient="row")
    return qrels, runs


@settings(max_examples=25, deadline=None)
@given(data=_random_runs(), test=st.sampled_from(["t", "wilcoxon", "permutation", "bootstrap", "tukey"]))
def test_any_data_gives_a_coherent_comparison(data, test):
    qrels, runs = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        c = rf.compare(qrels, runs, ["AP", "nDCG@10"], test=test, n_permutations=200, n_bootstrap=200,
                       complete=True)
        per_query = rf.evaluate(qrels, runs, ["AP", "nDCG@10"], per_query=True, complete=True)
    k = len(runs)
    judged = qrels["query_id"].n_unique()
    assert c.pairs.height == 2 * k * (k - 1) // 2
    assert set(c.summary["n"]) == {judged}  # complete=True: every judged query, every run
    means = per_query.group_by("run", "measure").agg(pl.col("value").mean())
    joined = c.summary.join(means, on=["run", "measure"])
    assert joined["mean"].to_list() == pytest.approx(joined["value"].to_list())
    for row in c.pairs.iter_rows(named=True):
        assert row["wins"] + row["ties"] + row["losses"] == judged
        for p in (row["p_value"], row["p_adjusted"]):
            assert math.isnan(p) or 0.0 <= p <= 1.0
        if row["p_adjusted"] == row["p_adjusted"]:
            assert row["significant"] == (row["p_adjusted"] < 0.05)
        if math.isfinite(row["ci_low"]) and math.isfinite(row["ci_high"]) and test != "bootstrap":
            assert row["ci_low"] - 1e-12 <= row["diff"] <= row["ci_high"] + 1e-12


# ----------------------------------------------------------------------------- bounded intervals
def test_interval_of_a_bounded_measure_stays_in_its_range():
    # issue 29: splade's RR is 0.9729 over 43 queries; its t interval reached 1.0115
    c = rf.compare(QRELS, {"bm25": BM25, "splade": SPLADE}, ["RR", "DCG@10"])
    x = c.per_query.filter(measure="RR").pivot(on="run", index="query_id", values="value")
    for name in ("bm25", "splade"):
        v = x[name].to_numpy()
        low, high = stats.t.interval(0.95, len(v) - 1, loc=v.mean(), scale=stats.sem(v))
        row = _row(c.summary, measure="RR", run=name)
        assert (row["ci_low"], row["ci_high"]) == pytest.approx((max(low, 0.0), min(high, 1.0)), abs=1e-12)
        assert 0.0 <= row["ci_low"] <= row["mean"] <= row["ci_high"] <= 1.0
    assert high > 1.0  # splade: the unclipped interval passes the maximum, the clipped one stops at it
    assert _row(c.summary, measure="RR", run="splade")["ci_high"] == 1.0
    # DCG has no upper bound: its interval is Student's, untouched
    x = c.per_query.filter(measure="DCG@10").pivot(on="run", index="query_id", values="value")
    v = x["splade"].to_numpy()
    low, high = stats.t.interval(0.95, len(v) - 1, loc=v.mean(), scale=stats.sem(v))
    row = _row(c.summary, measure="DCG@10", run="splade")
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((low, high), abs=1e-9)


def test_interval_of_a_difference_stays_within_the_widest_difference():
    # three queries: run b finds the relevant document at rank 1, 1 and 2, run a never
    qrels = pl.DataFrame({"query_id": ["1", "2", "3"], "doc_id": ["r"] * 3, "relevance": [1] * 3})
    run_a = pl.DataFrame({"query_id": ["1", "2", "3"], "doc_id": ["x"] * 3, "score": [1.0] * 3})
    run_b = pl.DataFrame({
        "query_id": ["1", "2", "3", "3"], "doc_id": ["r", "r", "x", "r"], "score": [1.0, 1.0, 2.0, 1.0],
    })
    c = rf.compare(qrels, {"a": run_a, "b": run_b}, ["RR"], baseline="a")
    d = np.array([1.0, 1.0, 0.5])
    low, high = stats.t.interval(0.95, 2, loc=d.mean(), scale=stats.sem(d))
    assert high > 1.0
    row = _row(c.pairs, baseline="a", run="b")
    assert row["diff"] == pytest.approx(d.mean())
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((low, 1.0))
    assert _row(c.summary, run="b")["ci_high"] == 1.0
    assert _row(c.summary, run="a")["ci_low"] == 0.0


def test_measure_bounds_come_from_the_definitions():
    from rankframe._compare.bounds import measure_bounds

    assert measure_bounds("RR") == measure_bounds("AP@100") == measure_bounds("P(rel=2)@5") == (0.0, 1.0)
    assert measure_bounds("nDCG@10") == (0.0, 1.0)
    assert measure_bounds("KendallTauB") == (-1.0, 1.0)
    assert measure_bounds("nDCG(gains={0:-1,1:1})@10") is None  # a gain map may go below 0
    for unbounded in ("DCG@10", "NumRet", "Utility", "not a measure"):
        assert measure_bounds(unbounded) is None
