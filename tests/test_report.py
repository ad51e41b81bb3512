"""The output layer of comparisons: tables, figures, the HTML report and its screenshot."""

from __future__ import annotations

import html.parser
import importlib.util
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import polars as pl
import pytest

import rankframe as rf
from rankframe._compare.figures import MAX_DIFF_FIGURES, figures, save_figures
from rankframe._compare.html_report import html_report
from rankframe._compare.tables import format_table

ROOT = Path(__file__).resolve().parents[1]


def screenshot_module() -> ModuleType:
    """``docs/screenshot.py`` (headless Chromium: finding it, page heights, screenshots)."""
    path = ROOT / "docs" / "screenshot.py"
    spec = importlib.util.spec_from_file_location("rankframe_docs_screenshot", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


CHROMIUM = screenshot_module().chromium_path()
DATA = ROOT / "data"
QRELS = DATA / "qrels.dl19-passage.txt"
MEASURES = ["nDCG@10", "AP", "RR"]
RUN_ORDER = ["bm25", "splade", "rrf"]


# --------------------------------------------------------------------------------------------
# Input frames
# --------------------------------------------------------------------------------------------


def _ranked(name: str) -> pl.DataFrame:
    """A sample run (``"bm25"``, ``"splade"``) with each document's ``rank`` in its query."""
    return (
        rf.read_run(DATA / f"run.dl19.{name}.txt")
        .select("query_id", "doc_id", "score")
        .collect()
        .with_columns(pl.col("score").rank("ordinal", descending=True).over("query_id").alias("rank"))
    )


def _fusion_run() -> pl.DataFrame:
    """Reciprocal-rank fusion (k = 60) of the two sample runs: a plausible third system."""
    ranked = [_ranked(name) for name in ("bm25", "splade")]
    return (
        pl.concat(ranked)
        .group_by("query_id", "doc_id")
        .agg((1.0 / (60 + pl.col("rank"))).sum().alias("score"))
        .sort("query_id", "doc_id")
    )


def _stats_frames(per_query: pl.DataFrame, baseline: str | None, by: list[str]) -> tuple[pl.DataFrame, ...]:
    """``summary`` and ``pairs`` with scipy: t intervals, paired t-tests, Bonferroni."""
    from scipy import stats

    keys = [*by, "measure"]
    runs = [r for r in RUN_ORDER if r in set(per_query["run"].to_list())]
    summary_rows, pair_rows = [], []
    for key, grp in per_query.group_by(keys, maintain_order=True):
        vals = {r: grp.filter(pl.col("run") == r).sort("query_id")["value"].to_numpy() for r in runs}
        base = dict(zip(keys, key, strict=True))
        for r, v in vals.items():
            half = stats.t.ppf(0.975, len(v) - 1) * v.std(ddof=1) / np.sqrt(len(v))
            summary_rows.append(
                {
                    **base,
                    "run": r,
                    "n": len(v),
                    "mean": v.mean(),
                    "ci_low": v.mean() - half,
                    "ci_high": v.mean() + half,
                }
            )
        combos = (
            [(baseline, r) for r in runs if r != baseline]
            if baseline
            else [(a, b) for i, a in enumerate(runs) for b in runs[i + 1 :]]
        )
        for b, r in combos:
            d = vals[r] - vals[b]
            half = stats.t.ppf(0.975, len(d) - 1) * d.std(ddof=1) / np.sqrt(len(d))
            p = float(stats.ttest_rel(vals[r], vals[b]).pvalue)
            pair_rows.append(
                {
                    **base,
                    "baseline": b,
                    "run": r,
                    "n": len(d),
                    "diff": d.mean(),
                    "ci_low": d.mean() - half,
                    "ci_high": d.mean() + half,
                    "p_value": p,
                    "p_adjusted": min(1.0, p * len(combos)),
                    "effect_size": d.mean() / d.std(ddof=1),
                    "wins": int((d > 0).sum()),
                    "ties": int((d == 0).sum()),
                    "losses": int((d < 0).sum()),
                    "test": "paired t-test",
                    "correction": "bonferroni",
                }
            )
    summary = pl.DataFrame(summary_rows)
    pairs = pl.DataFrame(pair_rows).with_columns(significant=pl.col("p_adjusted") < 0.05)
    order = [
        *by,
        "measure",
        "baseline",
        "run",
        "n",
        "diff",
        "ci_low",
        "ci_high",
        "p_value",
        "p_adjusted",
        "significant",
        "effect_size",
        "wins",
        "ties",
        "losses",
        "test",
        "correction",
    ]
    return summary, pairs.select(order)


def real_frames(baseline: str | None = "bm25") -> dict[str, pl.DataFrame]:
    """All inputs of the report, from the repository's sample data (three runs)."""
    runs = {
        "bm25": DATA / "run.dl19.bm25.txt",
        "splade": DATA / "run.dl19.splade.txt",
        "rrf": _fusion_run(),
    }
    per_query = rf.evaluate(QRELS, runs, MEASURES, per_query=True, complete=True)
    summary, pairs = _stats_frames(per_query, baseline, [])
    iprec = rf.evaluate(QRELS, runs, [f"IPrec@{i / 10:.1f}" for i in range(11)])
    curves = iprec.select(
        "run",
        pl.col("measure").str.split("@").list.get(1).cast(pl.Float64).alias("recall"),
        pl.col("value").alias("precision"),
    )
    names = [f"{m}@{k}" for m in ("nDCG", "P") for k in (5, 10, 20, 100)] + ["R@10", "R@20", "R@100"]
    cut = rf.evaluate(QRELS, runs, names)
    parts = pl.col("measure").str.split("@")
    cutoffs = cut.select(
        "run", parts.list.get(0).alias("measure"), parts.list.get(1).cast(pl.Int64).alias("k"), "value"
    )
    return {"summary": summary, "pairs": pairs, "per_query": per_query, "curves": curves, "cutoffs": cutoffs}


@pytest.fixture(scope="module")
def frames() -> dict[str, pl.DataFrame]:
    return real_frames()


def constructed() -> tuple[pl.DataFrame, pl.DataFrame]:
    """Three runs a, b, c on two measures; only c beats a (significantly), on nDCG@10."""
    summary = pl.DataFrame(
        {
            "measure": ["nDCG@10"] * 3 + ["AP"] * 3,
            "run": ["base_1", "mid", "top"] * 2,
            "n": [50] * 6,
            "mean": [0.41234, 0.43456, 0.51789, 0.3, 0.25, 0.31],
            "ci_low": [0.35, 0.37, 0.45, 0.25, 0.2, 0.26],
            "ci_high": [0.47, 0.49, 0.58, 0.35, 0.3, 0.36],
        }
    )
    pairs = pl.DataFrame(
        {
            "measure": ["nDCG@10", "nDCG@10", "AP", "AP"],
            "baseline": ["base_1"] * 4,
            "run": ["mid", "top", "mid", "top"],
            "n": [50] * 4,
            "diff": [0.02222, 0.10555, -0.05, 0.01],
            "ci_low": [-0.01, 0.05, -0.09, -0.02],
            "ci_high": [0.05, 0.16, -0.01, 0.04],
            "p_value": [0.2, 0.001, 0.01, 0.5],
            "p_adjusted": [0.4, 0.002, 0.02, 1.0],
            "significant": [False, True, True, False],
            "effect_size": [0.1, 0.6, -0.4, 0.05],
            "wins": [20, 35, 10, 22],
            "ties": [10, 5, 12, 8],
            "losses": [20, 10, 28, 20],
            "test": ["t-test"] * 4,
            "correction": ["holm"] * 4,
        }
    )
    return summary, pairs


# --------------------------------------------------------------------------------------------
# Tables
# --------------------------------------------------------------------------------------------


def _text_rows(text: str) -> dict[str, list[str]]:
    """Run label -> its cells, from a text table."""
    rows = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.split("|")]
        if len(cells) > 1 and "(" in cells[0]:
            rows[cells[0]] = cells[1:]
    return rows


def test_text_markers_and_means():
    summary, pairs = constructed()
    out = format_table(summary, pairs, digits=3)
    rows = _text_rows(out)
    assert list(rows) == ["base_1 (a)", "mid (b)", "top (c)"]
    # nDCG@10: only top (c) is significantly better than base_1 (a)
    assert rows["top (c)"][0] == "0.518 a  [0.450, 0.580]"
    assert rows["mid (b)"][0].startswith("0.435 ")
    assert " a " not in rows["mid (b)"][0]
    assert rows["base_1 (a)"][0] == "0.412    [0.350, 0.470]"
    # AP: mid is significantly *worse* than base_1, so base_1's cell gets mid's letter
    assert rows["base_1 (a)"][1].startswith("0.300 b")
    assert rows["mid (b)"][1].startswith("0.250 ")
    assert "a" not in rows["mid (b)"][1]
    assert rows["top (c)"][1] == "0.310    [0.260, 0.360]"
    header = out.splitlines()[0]
    assert header.index("nDCG@10") < header.index("AP")
    assert "t-test" in out
    assert "holm correction" in out
    assert "alpha = 0.05" in out


def test_text_columns_are_aligned():
    summary, pairs = constructed()
    lines = format_table(summary, pairs).splitlines()[:5]
    bars = {tuple(i for i, ch in enumerate(line) if ch in "|+") for line in lines}
    assert len(bars) == 1


def test_no_ci_and_digits():
    summary, pairs = constructed()
    out = format_table(summary, pairs, digits=2, show_ci=False)
    assert "[" not in out.split("\n")[2]
    assert "0.41" in out
    assert "0.412" not in out


def test_markdown():
    summary, pairs = constructed()
    out = format_table(summary, pairs, fmt="markdown")
    lines = out.splitlines()
    assert lines[0] == "| run | nDCG@10 | AP |"
    assert lines[1] == "| :-- | --: | --: |"
    top = next(line for line in lines if line.startswith("| top (c)"))
    assert "**0.5179**<sup>a</sup> [0.4500, 0.5800]" in top
    base = next(line for line in lines if line.startswith("| base_1 (a)"))
    assert "0.4123 [0.3500, 0.4700]" in base
    assert "<sup>" in base.split("|")[3]
    assert sum(line.count("**") for line in lines) == 4  # one bold value per column
    assert "holm" in lines[-1]


def test_latex_escaping_and_bold():
    summary, pairs = constructed()
    summary = summary.with_columns(pl.col("run").replace({"mid": "a&b 10% #1 $"}))
    pairs = pairs.with_columns(pl.col("run").replace({"mid": "a&b 10% #1 $"}))
    out = format_table(summary, pairs, fmt="latex")
    assert out.startswith(r"\begin{tabular}{lcc}")
    for rule in (r"\toprule", r"\midrule", r"\bottomrule", r"\end{tabular}"):
        assert rule in out
    assert r"base\_1 (a)" in out
    assert r"a\&b 10\% \#1 \$ (b)" in out
    assert r"\textbf{0.5179}$^{a}$ [0.4500, 0.5800]" in out
    assert r"\textbf{0.3100}" in out
    assert r"\textbf{0.3000}" not in out
    assert r"0.3000$^{b}$" in out
    assert "base_1" not in out


def test_ties_bold_and_unknown_format():
    summary, pairs = constructed()
    tied = summary.with_columns(
        pl.when(pl.col("measure") == "AP").then(0.3).otherwise(pl.col("mean")).alias("mean")
    )
    out = format_table(tied, pairs, fmt="latex")
    assert out.count(r"\textbf{0.3000}") == 3
    with pytest.raises(ValueError, match="fmt"):
        format_table(summary, pairs, fmt="rst")  # type: ignore[arg-type]


def test_no_pairs_and_missing_columns():
    summary, _ = constructed()
    out = format_table(summary, None)
    assert "No significance tests" in out
    assert "0.5179" in out
    with pytest.raises(rf.InputError, match="mean"):
        format_table(summary.drop("mean"), None)


def test_by_groups_one_table_each():
    summary, pairs = constructed()
    s2 = pl.concat([summary.with_columns(year=pl.lit(2019)), summary.with_columns(year=pl.lit(2020))])
    s2 = s2.select("year", *summary.columns)
    p2 = pl.concat(
        [
            pairs.with_columns(year=pl.lit(2019)),
            pairs.with_columns(year=pl.lit(2020), significant=pl.lit(False)),
        ]
    )
    out = format_table(s2, p2, by="year")
    tables = out.split("\n\n")
    assert len(tables) == 2
    assert tables[0].startswith("year = 2019")
    assert tables[1].startswith("year = 2020")
    assert _text_rows(tables[0])["top (c)"][0].startswith("0.5179 a")
    assert " a " not in _text_rows(tables[1])["top (c)"][0]
    md = format_table(s2, p2, by=["year"], fmt="markdown")
    assert md.count("| run |") == 2
    assert "**year = 2020**" in md
    assert format_table(s2, p2, by="year", fmt="latex").count(r"\begin{tabular}") == 2


# --------------------------------------------------------------------------------------------
# Figures
# --------------------------------------------------------------------------------------------


def test_figures_keys_and_labels(frames):
    pytest.importorskip("matplotlib")
    figs = figures(**frames)
    expected = [f"diff-{m}-{r}-vs-bm25" for m in MEASURES for r in ("splade", "rrf")]
    expected += [f"dist-{m}" for m in MEASURES] + ["pr-curves", "cutoffs"]
    assert list(figs) == expected
    for key, fig in figs.items():
        ax = fig.axes[0]
        assert ax.get_title(), key
        assert ax.get_xlabel(), key
        assert ax.get_ylabel(), key
    assert "nDCG@10" in figs["diff-nDCG@10-splade-vs-bm25"].axes[0].get_title()
    assert "splade" in figs["diff-nDCG@10-splade-vs-bm25"].axes[0].get_title()
    for key, fig in figs.items():  # each legend below the axes, none over them
        assert len(fig.legends) == 1, key
        assert all(ax.get_legend() is None for ax in fig.axes), key
    legend = figs["diff-nDCG@10-splade-vs-bm25"].legends[0]
    texts = [t.get_text() for t in legend.get_texts()]
    row = frames["pairs"].row(0, named=True)
    assert f"splade better: {row['wins']}" in texts
    assert f"ties: {row['ties']}" in texts
    wtl = f"{row['wins']}/{row['ties']}/{row['losses']}"
    assert legend.get_title().get_text().startswith(f"W/T/L {wtl}, p adj. = ")
    labels = [t.get_text() for t in figs["pr-curves"].legends[0].get_texts()]
    assert labels == ["bm25", "splade", "rrf"]
    cut = figs["cutoffs"]
    assert [ax.get_title() for ax in cut.axes] == ["nDCG", "P", "R"]
    assert cut.legends
    assert [t.get_text() for t in cut.legends[0].get_texts()] == ["bm25", "splade", "rrf"]
    dist_legend = [t.get_text() for t in figs["dist-AP"].legends[0].get_texts()]
    assert dist_legend[:3] == ["bm25 (n = 43)", "splade (n = 43)", "rrf (n = 43)"]


def test_figures_cap_and_optional_inputs(frames):
    pytest.importorskip("matplotlib")
    summary, pairs = _stats_frames(frames["per_query"], None, [])
    many = pl.concat([pairs] * 5)  # 45 pair rows
    figs = figures(summary, many, frames["per_query"])
    assert sum(k.startswith("diff-") for k in figs) == MAX_DIFF_FIGURES
    assert "pr-curves" not in figs
    assert "cutoffs" not in figs
    assert "diff-nDCG@10-rrf-vs-splade" in figs


def test_figures_with_groups(frames):
    pytest.importorskip("matplotlib")
    pq = frames["per_query"].with_columns(
        half=pl.when(pl.col("query_id").cast(pl.Int64) % 2 == 0).then(pl.lit("even")).otherwise(pl.lit("odd"))
    )
    pq = pq.filter(pl.col("measure") == "AP")
    summary, pairs = _stats_frames(pq, "bm25", ["half"])
    figs = figures(summary, pairs, pq, by=["half"])
    groups = [g for g in ("even", "odd") if g in pq["half"].to_list()]
    assert [k for k in figs if k.startswith("dist-")] == [f"dist-half={g}-AP" for g in groups]
    assert f"diff-half={groups[0]}-AP-splade-vs-bm25" in figs
    assert "half = " in figs[f"dist-half={groups[0]}-AP"].axes[0].get_title()
    tables = format_table(summary, pairs, by="half", fmt="html")
    assert tables.count("<table") == len(groups)


def test_save_figures(frames, tmp_path):
    pytest.importorskip("matplotlib")
    figs = figures(frames["summary"], frames["pairs"].head(1), frames["per_query"], cutoffs=frames["cutoffs"])
    figs["odd/name: x?"] = figs["cutoffs"]
    paths = save_figures(figs, tmp_path / "out")
    assert len(paths) == 2 * len(figs)
    assert {p.name for p in paths} >= {"cutoffs.png", "cutoffs.svg", "odd_name_x.png", "dist-nDCG@10.svg"}
    for p in paths:
        assert p.parent == tmp_path / "out"
        assert p.stat().st_size > 1000
        head = p.read_bytes()[:200]
        if p.suffix == ".png":
            assert head.startswith(b"\x89PNG\r\n\x1a\n")
        else:
            assert b"<svg" in head or b"<?xml" in head
    assert save_figures({}, tmp_path / "none") == []


def test_no_matplotlib_message(monkeypatch, frames):
    import builtins

    real_import = builtins.__import__

    def fake_import(name, *args, **kwargs):
        if name.startswith("matplotlib"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", fake_import)
    with pytest.raises(ImportError, match=r"pip install 'rankframe\[report\]'"):
        figures(frames["summary"], frames["pairs"], frames["per_query"])


# --------------------------------------------------------------------------------------------
# HTML report
# --------------------------------------------------------------------------------------------


class _Collector(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.links: list[str] = []
        self.text: list[str] = []
        self.open: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.links += [v or "" for k, v in attrs if k in ("src", "href", "xlink:href", "action")]

    def handle_data(self, data):
        self.text.append(data)


def test_html_report(frames, tmp_path):
    pytest.importorskip("matplotlib")
    meta = {"qrels": str(QRELS), "runs": "bm25, splade, rrf", "note": "<b>&co</b>"}
    doc = html_report(**frames, title="DL19 <passage>", meta=meta)
    parser = _Collector()
    parser.feed(doc)
    parser.close()
    figs = figures(**frames)
    assert doc.startswith("<!DOCTYPE html>")
    assert parser.tags.count("svg") == len(figs) == doc.count("<svg")
    assert "script" not in parser.tags
    assert "link" not in parser.tags
    assert "img" not in parser.tags
    assert all(link.startswith("#") for link in parser.links), parser.links[:5]
    for bad in ('src="http', "src='http", 'href="http', "href='http", "<script", "url(http", "@import"):
        assert bad not in doc
    assert "DL19 &lt;passage&gt;" in doc
    assert "&lt;b&gt;&amp;co&lt;/b&gt;" in doc
    text = "".join(parser.text)
    summary = frames["summary"]
    for row in summary.iter_rows(named=True):
        assert f"{row['mean']:.4f}" in text
    best = summary.filter(pl.col("measure") == "nDCG@10").sort("mean")["mean"][-1]
    assert f"<b>{best:.4f}</b>" in doc
    assert doc.count('<table class="results"') == 1
    assert doc.count('<table class="pairs"') == 1
    pair = frames["pairs"].row(0, named=True)
    assert f"{pair['diff']:+.4f}" in text
    assert f"{pair['wins']}/{pair['ties']}/{pair['losses']}" in text
    assert "Per-query differences" in text
    assert "Precision–recall" in text
    assert len(doc) < 3_000_000
    ids = re.findall(r'\sid="([^"]+)"', doc)
    assert len(ids) == len(set(ids)) > 100
    refs = set(re.findall(r'(?:url\(#|href="#)([^)"]+)', doc))
    assert refs
    assert refs <= set(ids)


def test_html_report_groups_and_default_meta(frames):
    pytest.importorskip("matplotlib")
    pq = frames["per_query"].filter(pl.col("measure") == "RR")
    pq = pq.with_columns(split=pl.when(pl.col("query_id") < "5").then(pl.lit("A")).otherwise(pl.lit("B")))
    summary, pairs = _stats_frames(pq, "bm25", ["split"])
    doc = html_report(summary, pairs, pq, by="split")
    assert doc.count('<table class="results"') == 2
    assert "<caption>split = A</caption>" in doc
    assert "<caption>split = B</caption>" in doc
    assert "<dt>runs</dt><dd>bm25, splade, rrf</dd>" in doc
    assert "<dt>correction</dt><dd>bonferroni</dd>" in doc


# --------------------------------------------------------------------------------------------
# Screenshot (headless Chromium)
# --------------------------------------------------------------------------------------------


@pytest.mark.skipif(
    CHROMIUM is None, reason="Chromium is not installed (Debian: apt-get install -y chromium)"
)
def test_screenshot_script(frames, tmp_path):
    pytest.importorskip("matplotlib")
    report = tmp_path / "report.html"
    report.write_text(html_report(**frames), encoding="utf-8")
    png = tmp_path / "shot.png"
    proc = subprocess.run(
        [sys.executable, str(ROOT / "docs" / "screenshot.py"), str(report), str(png)],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert proc.returncode == 0, proc.stderr
    data = png.read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    assert width == 1280
    assert 1500 < height < 16384
    assert len(data) > 100_000


# --------------------------------------------------------------------------------------------
# Layout for any run-name length and number of runs (issue 40, deliverable 9)
# --------------------------------------------------------------------------------------------

#: Two runs named with 40 characters each (no spaces: names wrap at hyphens, or anywhere).
LONG_NAMES = ("bm25-okapi-k1.2-b0.75-msmarco-passage-v1", "splade-cocondenser-ensembledistil-top-1k")


def long_name_runs() -> dict[str, pl.DataFrame]:
    """The two sample runs under 40-character names."""
    return {name: _ranked(src).drop("rank") for name, src in zip(LONG_NAMES, ("bm25", "splade"), strict=True)}


def eight_runs() -> dict[str, pl.DataFrame]:
    """Eight runs of 21-character names: reciprocal-rank fusions weighting bm25 by 0, 1/7, ..., 1."""
    bm25, splade = _ranked("bm25"), _ranked("splade")
    runs = {}
    for i in range(8):
        w = i / 7
        parts = [
            bm25.select("query_id", "doc_id", (w / (60 + pl.col("rank"))).alias("score")),
            splade.select("query_id", "doc_id", ((1 - w) / (60 + pl.col("rank"))).alias("score")),
        ]
        fused = pl.concat(parts).group_by("query_id", "doc_id").agg(pl.col("score").sum())
        runs[f"rrf-w{w:.2f}-bm25-splade"] = fused.sort("query_id", "doc_id")
    return runs


def unbroken_names_runs() -> dict[str, pl.DataFrame]:
    """Three runs named with 100 characters and nothing to wrap them at: lines break inside."""
    return {f"{'X' * 95}{i:05d}": run for i, run in enumerate(list(eight_runs().values())[:3])}


def _halves(runs: dict[str, pl.DataFrame]) -> dict[str, pl.DataFrame]:
    """A breakdown column ``half``: the query id's parity."""
    even = pl.col("query_id").cast(pl.Int64) % 2 == 0
    half = pl.when(even).then(pl.lit("even")).otherwise(pl.lit("odd"))
    return {k: v.with_columns(half=half) for k, v in runs.items()}


def text_problems(fig, dpi: float | None = None) -> list[str]:
    """What is wrong with a figure's text once drawn (Agg) at ``dpi``: ``[]`` when nothing.

    Every drawn, non-empty :class:`~matplotlib.text.Text` (titles, axis labels, tick labels,
    legend entries and titles, annotations) must lie inside the figure, no two may overlap by
    1 px or more both ways, and none may lie on a legend it is not part of; legends (their
    markers too) must lie inside the figure. The texts are the ones drawn, recorded while
    drawing (tick labels outside the view limits exist but are not drawn).
    """
    from unittest import mock

    from matplotlib.text import Text

    drawn: dict[int, Text] = {}
    draw = Text.draw

    def record(self, renderer):
        draw(self, renderer)
        if self.get_visible() and self.get_text().strip():
            drawn[id(self)] = self

    old = fig.get_dpi()
    if dpi is not None:
        fig.set_dpi(dpi)
    try:
        with mock.patch.object(Text, "draw", record):
            fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        texts = [(t, t.get_window_extent(renderer)) for t in drawn.values()]
        legends = [*fig.legends, *(ax.get_legend() for ax in fig.axes)]
        frames = [
            (leg.get_window_extent(renderer), {id(t) for t in [*leg.get_texts(), leg.get_title()]})
            for leg in legends
            if leg is not None and leg.get_visible()
        ]
        width, height = fig.bbox.width, fig.bbox.height
    finally:
        fig.set_dpi(old)

    def name(t: Text) -> str:
        s = t.get_text().replace("\n", " ")
        return repr(s if len(s) <= 50 else s[:47] + "...")

    def overlap(a, b) -> bool:
        return min(a.x1, b.x1) - max(a.x0, b.x0) >= 1 and min(a.y1, b.y1) - max(a.y0, b.y0) >= 1

    problems = [
        f"a legend leaves the figure: [{box.x0:.0f}, {box.x1:.0f}] x [{box.y0:.0f}, {box.y1:.0f}]"
        for box, _ in frames
        if box.x0 < -1 or box.y0 < -1 or box.x1 > width + 1 or box.y1 > height + 1
    ]
    for t, box in texts:
        if box.x0 < -1 or box.y0 < -1 or box.x1 > width + 1 or box.y1 > height + 1:
            problems.append(
                f"{name(t)} leaves the figure: [{box.x0:.0f}, {box.x1:.0f}] x [{box.y0:.0f}, {box.y1:.0f}]"
                f" outside {width:.0f} x {height:.0f}"
            )
    for i, (a, box_a) in enumerate(texts):
        for b, box_b in texts[i + 1 :]:
            if overlap(box_a, box_b):
                problems.append(f"{name(a)} overlaps {name(b)}")
    for frame, own in frames:
        problems += [
            f"{name(t)} lies on a legend" for t, box in texts if id(t) not in own and overlap(box, frame)
        ]
    return problems


def test_text_problems_finds_clipped_and_overlapping_text():
    pytest.importorskip("matplotlib")
    from rankframe._compare.plots import _new_figure

    fig = _new_figure((3, 2))
    ax = fig.add_subplot()
    ax.set_title("a title", fontsize=10)
    ax.set_ylabel("a y label far too long to stand beside axes this short " * 2)
    ax.text(0.5, 0.5, "one", transform=ax.transAxes, fontsize=12)
    ax.text(0.52, 0.5, "two", transform=ax.transAxes, fontsize=12)
    ax.legend(handles=ax.plot([0, 1], label="a line"), loc="upper center", bbox_to_anchor=(0.5, 1.2))
    problems = text_problems(fig)
    assert any(p.startswith("'a y label far") and "leaves the figure" in p for p in problems), problems
    assert "'one' overlaps 'two'" in problems
    assert "'a title' lies on a legend" in problems
    assert text_problems(_new_figure((3, 2))) == []


#: Cases of the layout tests: runs, measures, breakdown.
LAYOUT_CASES = {
    "two-long-names-one-measure": (long_name_runs, ["nDCG@10"], None),
    "two-long-names-measures": (long_name_runs, ["nDCG@10", "AP", "RR", "P@10"], None),
    "two-long-names-groups": (long_name_runs, ["AP", "RR"], ["half"]),
    "eight-runs-one-measure": (eight_runs, ["nDCG@10"], None),
    "eight-runs-measures": (eight_runs, ["AP", "RR", "R@100"], None),
    "eight-runs-groups": (eight_runs, ["nDCG@10"], ["half"]),
    "three-unbroken-100-char-names": (unbroken_names_runs, ["nDCG@10"], None),
}


def layout_comparison(case: str) -> rf.Comparison:
    make, measures, by = LAYOUT_CASES[case]
    runs = make()
    baseline = next(iter(runs))
    if by:
        runs = _halves(runs)
    return rf.compare(QRELS, runs, measures, baseline=baseline, by=by)


@pytest.mark.parametrize("case", list(LAYOUT_CASES))
def test_figure_text_fits_regression_long_names_many_runs(case):
    pytest.importorskip("matplotlib")
    comparison = layout_comparison(case)
    figs = comparison.figures()
    names = comparison.summary["run"].unique(maintain_order=True).to_list()
    assert len(names) == {"two": 2, "eight": 8, "three": 3}[case.split("-")[0]]
    assert any(k.startswith("dist-") for k in figs)
    if "groups" not in case:
        assert {"pr-curves", "cutoffs"} <= set(figs)
    problems = {key: text_problems(fig, dpi=72) for key, fig in figs.items()}  # 72: the SVG's
    assert not {k: v for k, v in problems.items() if v}
    for key, fig in figs.items():
        width, height = fig.get_size_inches()
        assert 3 <= width <= 11, (key, width)  # 11 in = 1056 px: the report's column
        assert 2.5 <= height <= 12, (key, height)
    dist = next(fig for k, fig in figs.items() if k.startswith("dist-"))
    legend = [t.get_text() for leg in dist.legends for t in leg.get_texts()]
    whole = ["".join(t.rsplit(" (n = ", 1)[0].split()) for t in legend[:-1]]  # wrapped, never cut
    assert whole == ["".join(name.split()) for name in names]


@pytest.mark.parametrize("case", ["two-long-names-one-measure", "eight-runs-one-measure"])
def test_saved_figure_files_fit_regression_long_names_many_runs(case, tmp_path):
    """``save_figures`` (``--figures DIR``): PNG at 150 dpi, SVG at 72, text laid out at each."""
    pytest.importorskip("matplotlib")
    import xml.etree.ElementTree as ET

    from matplotlib.image import imread

    figs = layout_comparison(case).figures()
    paths = save_figures(figs, tmp_path)
    assert [p.suffix for p in paths] == [".png", ".svg"] * len(figs)
    for (key, fig), png, svg in zip(figs.items(), paths[::2], paths[1::2], strict=True):
        width, height = fig.get_size_inches()
        assert text_problems(fig, dpi=150) == [], key  # the PNG's resolution
        pixels = imread(png)
        assert abs(pixels.shape[0] - height * 150) <= 1, key
        assert abs(pixels.shape[1] - width * 150) <= 1, key
        assert pixels.shape[1] <= 11 * 150, key
        edges = np.concatenate([pixels[:2].reshape(-1, 4), pixels[-2:].reshape(-1, 4)])
        edges = np.concatenate([edges, pixels[:, :2].reshape(-1, 4), pixels[:, -2:].reshape(-1, 4)])
        assert (edges == 1).all(), f"{key}: something drawn at the PNG's edge, cut by it"
        assert (pixels[..., :3] < 0.5).any(), key  # not blank
        root = ET.parse(svg).getroot()
        assert root.tag == "{http://www.w3.org/2000/svg}svg", key
        assert float(root.get("width").removesuffix("pt")) == pytest.approx(width * 72, abs=0.1), key
        assert float(root.get("height").removesuffix("pt")) == pytest.approx(height * 72, abs=0.1), key
        assert text_problems(fig, dpi=72) == [], key  # the SVG's
