"""Deciding between systems: paired significance tests over per-query results.

:func:`compare` evaluates every run on the same queries (one plan, :func:`rankframe.evaluate`
with ``per_query=True``), lays each measure out as a query x run matrix and runs the requested
paired test on every compared pair at once (:mod:`rankframe._compare.stats`). The result,
:class:`Comparison`, holds tidy frames and renders them as a terminal table, Markdown, LaTeX,
CSV, JSON, plots and a self-contained HTML report.
"""

from __future__ import annotations

import json
import math
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl

from rankframe._compare import CORRECTIONS, TESTS
from rankframe._compare.bounds import clip_interval, measure_bounds
from rankframe._compare.pairs import UNPAIRED, _Bar, _pairs_schema, _test_pairs, _test_unpaired
from rankframe._engine.evaluate import evaluate
from rankframe._engine.prepare import MeasureSpec, _named_runs
from rankframe._errors import MeasureError, warn
from rankframe._io.atomic import write_atomic
from rankframe._io.ecosystem import resolve, resolve_runs
from rankframe._measures._names import parse_measures

if TYPE_CHECKING:
    from rankframe._io.columns import Source

TEST_NAMES = {
    "t": "paired t-test",
    "wilcoxon": "Wilcoxon signed-rank test",
    "permutation": "Fisher's randomization test",
    "bootstrap": "paired bootstrap test",
    "tukey": "Tukey's HSD (two-way ANOVA)",
    "welch": "Welch's t-test (unpaired)",
    "mann-whitney": "Mann-Whitney U test (unpaired)",
    "permutation-unpaired": "permutation test (unpaired)",
    "bootstrap-unpaired": "two-sample bootstrap test (unpaired)",
}
CORRECTION_NAMES = {
    "holm": "Holm-Bonferroni",
    "bh": "Benjamini-Hochberg",
    "bonferroni": "Bonferroni",
    "none": "none",
    "tukey": "family-wise (Tukey HSD)",
}
#: Recall levels of the interpolated precision-recall curves in the report.
RECALL_LEVELS = tuple(round(0.1 * i, 1) for i in range(11))
#: Cutoffs of the measure-vs-cutoff plots in the report.
CUTOFFS = (1, 3, 5, 10, 20, 50, 100, 200, 500, 1000)

_EVALUATE_OPTIONS = (
    "depth", "relevance_level", "ties", "score_dtype", "judged_only", "qrels_columns", "run_columns",
    "interactions", "items", "reference", "empty_queries", "dedupe",
)


@dataclass(frozen=True)
class Comparison:
    """The outcome of :func:`compare`: tidy frames and their renderings.

    Attributes
    ----------
    summary
        One row per (breakdown..., measure, run): ``n`` queries, ``mean`` and its
        ``ci_low``/``ci_high`` (Student-t interval at ``confidence``, clipped to the measure's
        range when it has one by definition: [0, 1] for RR, AP, P, nDCG..., [-1, 1] for the
        rank correlations; see :mod:`rankframe._compare.bounds`).
    pairs
        One row per (breakdown..., measure, compared pair): ``baseline``, ``run``, ``n``,
        ``diff`` (mean of run minus baseline) and its interval, the test's ``statistic``,
        ``p_value``, ``p_adjusted`` (within the pairs of one measure and breakdown group),
        ``significant`` (``p_adjusted < alpha``), ``effect_size`` (Cohen's d_z of the per-query
        differences), per-query ``wins``/``ties``/``losses`` of run against baseline.
    per_query
        The per-query values the tests saw: ``breakdown..., run, query_id, measure, value``.
    """

    summary: pl.DataFrame
    pairs: pl.DataFrame
    per_query: pl.DataFrame
    by: tuple[str, ...]
    test: str
    correction: str
    alpha: float
    confidence: float
    meta: dict[str, str]
    _rerun: Callable[[list[str]], pl.DataFrame] | None = field(default=None, repr=False, compare=False)

    # ------------------------------------------------------------------ tables
    def table(self, fmt: str = "text", *, digits: int = 4, show_ci: bool = True) -> str:
        """Runs x measures, significance markers and intervals, as ``text``, ``markdown`` or ``latex``.

        A run's cell carries the letters of the runs it is significantly better than.
        """
        from rankframe._compare import tables as _tables

        return _tables.format_table(
            self.summary, self.pairs, fmt=fmt, by=self.by, digits=digits, alpha=self.alpha,
            show_ci=show_ci,
        )

    def __str__(self) -> str:
        return self.table("text")

    def to_markdown(self, **options: Any) -> str:
        """The table as GitHub Markdown (see :meth:`table`)."""
        return self.table("markdown", **options)

    def to_latex(self, **options: Any) -> str:
        """The table as a LaTeX ``tabular`` with booktabs rules (see :meth:`table`)."""
        return self.table("latex", **options)

    def frame(self) -> pl.DataFrame:
        """One row per run and measure (and pair): the summary joined with the pairs.

        A run compared with several others (no baseline) has one row per comparison in which it
        is the ``run``; a run that is only ever the baseline has its row with null pair columns.
        """
        keys = [*self.by, "measure", "run"]
        pairs = self.pairs.rename(
            {c: f"diff_{c}" for c in ("ci_low", "ci_high")} | {"n": "n_paired"}
        )
        out = self.summary.join(pairs, on=keys, how="left", nulls_equal=True, maintain_order="left")
        return out

    def to_csv(self, path: str | Path | None = None) -> str | None:
        """:meth:`frame` as CSV: returned as text, or written to ``path``."""
        out = self.frame()
        if path is None:
            return out.write_csv()
        write_atomic(path, out.write_csv())
        return None

    def to_json(self, path: str | Path | None = None) -> str | None:
        """Summary, pairs and settings as one JSON document: returned as text or written to ``path``."""
        doc = {
            "test": self.test, "correction": self.correction, "alpha": self.alpha,
            "confidence": self.confidence, "by": list(self.by), "meta": self.meta,
            "summary": self.summary.to_dicts(), "pairs": self.pairs.to_dicts(),
        }
        # JSON has no NaN or Infinity: an undefined value (one query's interval) is null, as
        # in evaluate's JSON
        text = json.dumps(_finite(doc), indent=2, default=_json_default, allow_nan=False)
        if path is None:
            return text
        write_atomic(path, text)
        return None

    # ------------------------------------------------------------------ pictures
    def curves(self) -> pl.DataFrame | None:
        """Mean interpolated precision at recall 0.0, 0.1, ..., 1.0 of each run (for the report)."""
        if self._rerun is None:
            return None
        names = [f"IPrec@{r}" for r in RECALL_LEVELS]
        out = self._rerun(names)
        return out.select(
            "run",
            pl.col("measure").str.strip_prefix("IPrec@").cast(pl.Float64).alias("recall"),
            pl.col("value").alias("precision"),
        ).sort("run", "recall", maintain_order=True)

    def cutoffs(self) -> pl.DataFrame | None:
        """Mean of each requested cutoff measure at cutoffs 1 ... 1000 (for the report)."""
        if self._rerun is None:
            return None
        measures = parse_measures(list(self.summary["measure"].unique(maintain_order=True)))
        families: dict[str, Any] = {}
        for m in measures:
            cutoff = m.params.get("cutoff")
            if isinstance(cutoff, int) and not isinstance(cutoff, bool):
                families.setdefault(repr(m.replace(cutoff=1)).removesuffix("@1"), m)
        if not families:
            return None
        wanted = {repr(m.replace(cutoff=k)): (name, k) for name, m in families.items() for k in CUTOFFS}
        out = self._rerun(list(wanted))
        return out.select(
            "run",
            pl.col("measure").replace_strict({k: v[0] for k, v in wanted.items()}).alias("measure"),
            pl.col("measure").replace_strict({k: v[1] for k, v in wanted.items()}).alias("k"),
            "value",
        )

    def figures(self) -> dict[str, Any]:
        """The report's plots as matplotlib figures, by name (needs ``rankframe[report]``)."""
        from rankframe._compare import figures as _figures

        return _figures.figures(
            self.summary, self.pairs, self.per_query, curves=self.curves(), cutoffs=self.cutoffs(),
            by=self.by,
        )

    def save_figures(self, directory: str | Path, formats: Sequence[str] = ("png", "svg")) -> list[Path]:
        """Write every plot of :meth:`figures` to ``directory`` as PNG and SVG files."""
        from rankframe._compare import figures as _figures

        Path(directory).mkdir(parents=True, exist_ok=True)
        return _figures.save_figures(self.figures(), Path(directory), formats=tuple(formats))

    def to_html(self, path: str | Path | None = None, *, title: str = "rankframe comparison") -> str | None:
        """A self-contained HTML report (tables and inline SVG plots, nothing fetched at view time)."""
        from rankframe._compare import html_report as _html_report

        text = _html_report.html_report(
            self.summary, self.pairs, self.per_query, curves=self.curves(), cutoffs=self.cutoffs(),
            by=self.by, title=title, alpha=self.alpha, meta=self.meta,
        )
        if path is None:
            return text
        write_atomic(path, text)
        return None


def _finite(value: Any) -> Any:
    """``value`` (dicts and lists of them) with every non-finite float as None."""
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    if isinstance(value, float | np.floating) and not math.isfinite(value):
        return None
    return value


def _json_default(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    return str(value)


def compare(
    qrels: Source | None,
    runs: Any,
    measures: MeasureSpec | Iterable[MeasureSpec] = ("nDCG@10",),
    *,
    baseline: str | None = None,
    test: str = "t",
    correction: str = "holm",
    alpha: float = 0.05,
    confidence: float = 0.95,
    by: Sequence[str] | None = None,
    complete: bool = False,
    paired: bool | None = None,
    n_permutations: int = 10_000,
    n_bootstrap: int = 10_000,
    seed: int = 0,
    progress: bool = False,
    storage_options: Mapping[str, str] | None = None,
    **options: Any,
) -> Comparison:
    r"""Compare runs on the same queries with a paired significance test.

    Every run is evaluated per query (one plan); for each measure (and breakdown group) the
    per-query values form a matrix :math:`X` of queries x runs. For a compared pair (baseline
    :math:`b`, run :math:`r`) the differences :math:`d_q = X_{qr} - X_{qb}` are tested for a
    zero mean:

    - ``"t"``: paired t-test, :math:`t = \bar d / (s_d/\sqrt n)` with :math:`n-1` degrees of
      freedom;
    - ``"wilcoxon"``: Wilcoxon signed-rank test (zeros dropped; exact null distribution up to
      50 queries without ties, else the normal approximation);
    - ``"permutation"``: Fisher's randomization test, ``n_permutations`` random sign flips of
      the differences (the same flips for every pair), :math:`p = (1 + \#\{|\bar d^*| \ge
      |\bar d|\})/(1 + B)`;
    - ``"bootstrap"``: paired bootstrap over queries (``n_bootstrap`` resamples, the same for every
      pair), percentile interval and the null-centred two-sided p-value;
    - ``"tukey"``: Tukey's HSD over all runs, with the residual variance of the two-way
      (run + query) ANOVA; intervals and p-values are simultaneous, so no further correction.

    The p-values of the pairs of one measure and group are corrected for multiple comparisons
    (``correction``: Holm-Bonferroni, Benjamini-Hochberg, Bonferroni or none). Intervals are
    at ``confidence``: Student-t for means and mean differences (percentile for the bootstrap,
    simultaneous for Tukey). For a measure bounded by definition (RR, AP, P, R, nDCG with its
    default gains... in [0, 1]; Kendall's and Spearman's correlations in [-1, 1]) the interval of
    a mean is clipped to that range and the interval of a difference to [-(b - a), b - a]: the
    mean cannot lie outside, so clipping keeps the coverage and only drops impossible values (a
    t interval around RR = 0.973 no longer reaches 1.012). Other measures (DCG, counts, gain
    maps) are not clipped.

    Parameters
    ----------
    qrels, runs
        As for :func:`rankframe.evaluate`; ``runs`` holds at least two runs (a dict
        ``{name: source}``, a list of sources named by their file names, or a frame with a
        ``run`` column).
    measures
        Measures to compare on (any names :func:`rankframe.evaluate` accepts).
    baseline
        The run every other run is compared with; ``None`` compares every pair.
    test, correction, alpha, confidence
        See above. ``significant`` means ``p_adjusted < alpha``.
    by
        Breakdown columns of the runs: the comparison is made within each group.
    complete
        Score judged queries a run misses as 0 (within breakdown groups, the queries that some
        run retrieved in the group). Default False, as :func:`rankframe.evaluate` (trec_eval
        without ``-c``): each run's mean is then over the queries it was scored on, as
        ``evaluate`` gives it.
    paired
        How runs whose query sets differ (``complete=False`` and a run missing judged queries)
        are compared. ``None`` (default): paired where every run has every query of the
        (group, measure), else unpaired: each run's mean over its own queries, and the pairs
        tested as independent samples (``"t"`` becomes Welch's t-test, ``"wilcoxon"`` the
        Mann-Whitney U test, ``"permutation"`` and ``"bootstrap"`` their two-sample forms;
        said in the ``test`` column and with a warning); ``True``: pair the queries every run
        has, leaving the others out with a warning; ``False``: unpaired everywhere.
    n_permutations, n_bootstrap, seed
        Resamples of the randomization and bootstrap tests, and the seed that fixes them.
    progress
        Draw a progress bar on stderr during resampling.
    storage_options
        For inputs in object storage (``s3://``, ``gs://``, ``az://``, ``hf://``, ``https://``...),
        the options Polars reads them with (credentials, region, endpoint), as for
        :func:`rankframe.evaluate`.
    **options
        Passed to :func:`rankframe.evaluate`: ``depth``, ``relevance_level``, ``ties``,
        ``score_dtype``, ``judged_only``, ``qrels_columns``, ``run_columns``.

    Returns
    -------
    Comparison
        Frames ``summary``, ``pairs``, ``per_query``; renders with ``str()``,
        ``to_markdown()``, ``to_latex()``, ``to_csv()``, ``to_json()``, ``to_html()``,
        ``figures()``.

    References
    ----------
    Smucker, Allan & Carterette (2007), "A comparison of statistical significance tests for
    information retrieval evaluation", CIKM. Sakai (2014), "Statistical reform in information
    retrieval?", SIGIR Forum 48(1). Carterette (2012), "Multiple testing in statistical analysis
    of systems-based information retrieval experiments", TOIS 30(1).

    Examples
    --------
    >>> import polars as pl
    >>> import rankframe as rf
    >>> qrels = pl.DataFrame({"query_id": ["1", "2", "3", "4"], "doc_id": ["a"] * 4, "relevance": [1] * 4})
    >>> run_a = pl.DataFrame({"query_id": ["1", "2", "3", "4"], "doc_id": ["a"] * 4, "score": [1.0] * 4})
    >>> run_b = run_a.with_columns(doc_id=pl.Series(["a", "x", "x", "x"]))
    >>> c = rf.compare(qrels, {"a": run_a, "b": run_b}, ["RR"], baseline="a")
    >>> c.pairs.select("baseline", "run", "diff", "wins", "losses").row(0)
    ('a', 'b', -0.75, 0, 3)
    """
    from rankframe._compare import stats as _stats  # scipy.stats: imported when a comparison is made (0.5 s)

    if test not in TESTS:
        msg = f"Unknown test {test!r}; choose one of {', '.join(TESTS)}."
        raise MeasureError(msg)
    if correction not in CORRECTIONS:
        msg = f"Unknown correction {correction!r}; choose one of {', '.join(CORRECTIONS)}."
        raise MeasureError(msg)
    for name, value in (("alpha", alpha), ("confidence", confidence)):
        if isinstance(value, bool) or not isinstance(value, int | float):
            msg = f"{name} must be a number strictly between 0 and 1; got {value!r}."
            raise MeasureError(msg)
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        msg = f"seed must be an int or None; got {seed!r}."
        raise MeasureError(msg)
    if not 0.0 < alpha < 1.0 or not 0.0 < confidence < 1.0:
        msg = f"alpha and confidence must lie strictly between 0 and 1; got {alpha} and {confidence}."
        raise MeasureError(msg)
    for name, value in (("n_permutations", n_permutations), ("n_bootstrap", n_bootstrap)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            msg = f"{name} must be a positive int; got {value!r}."
            raise MeasureError(msg)
    unknown = set(options) - set(_EVALUATE_OPTIONS)
    if unknown:
        msg = (
            f"compare() got unexpected options {', '.join(sorted(unknown))}; it passes on "
            f"{', '.join(_EVALUATE_OPTIONS)} to evaluate()."
        )
        raise TypeError(msg)
    by = tuple(by or ())
    # pytrec_eval dicts, ir_measures records, ranx objects, Arrow streams: read once as frames
    qrels, runs = resolve(qrels, "qrels"), resolve_runs(runs)
    if isinstance(runs, Mapping | list | tuple):
        runs = dict(_named_runs(runs) or ())

    def rerun(
        names: list[str], *, per_query: bool = False, keys: Sequence[str] | None = None
    ) -> pl.DataFrame:
        return evaluate(
            qrels, runs, names, per_query=per_query, by=keys, complete=complete,
            storage_options=storage_options, **options,
        )

    single = isinstance(measures, str) or not isinstance(measures, Iterable)  # one measure object
    wanted = [measures] if single else list(measures)  # type: ignore[arg-type]
    population = [repr(m) for m in parse_measures(wanted) if m.KIND == "population"]
    if population:
        msg = (
            f"{', '.join(population)}: population measures have one value per run, no per-query "
            "values to pair: compare() cannot test them. rankframe.evaluate gives their values "
            "run by run."
        )
        raise MeasureError(msg)
    extra = ["num_ret"] if by and complete else []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        per_query = rerun(wanted + extra, per_query=True, keys=by or None)
    for w in caught:  # evaluate's coverage warning counts every group; said below per group
        if not (extra and "missing from some" in str(w.message)):
            warn(w.message, w.category)
    if extra:
        # complete=True scores the judged queries a run misses in every breakdown group; a
        # group compares only the queries some run retrieved in it (a query of locale 'en' is
        # not a zero of locale 'de')
        ret = per_query.filter(pl.col("measure") == "NumRet")
        per_group = ret.group_by(*by, "query_id").agg(
            (pl.col("value") > 0).any().alias("some"), (pl.col("value") > 0).all().alias("all")
        )
        present = per_group.filter("some")
        gaps = present.filter(~pl.col("all")).height
        if gaps:
            warn(
                f"{gaps} (group, query) pairs are missing from some runs and scored 0 for them "
                "(complete=True)."
            )
        per_query = per_query.filter(pl.col("measure") != "NumRet").join(
            present.select(*by, "query_id"), on=[*by, "query_id"], how="semi", nulls_equal=True,
        )
    if "run" not in per_query.columns:
        msg = "compare() needs at least two runs: a dict or list of runs, or a frame with a 'run' column."
        raise MeasureError(msg)
    run_names = list(per_query["run"].unique(maintain_order=True))
    if isinstance(runs, dict):  # (a run scored on no query is still a run of the comparison)
        run_names = [*runs, *(n for n in run_names if n not in runs)]
    if len(run_names) < 2:
        msg = f"compare() needs at least two runs; got {len(run_names)} ({', '.join(run_names)})."
        raise MeasureError(msg)
    if baseline is not None and baseline not in run_names:
        msg = f"The baseline {baseline!r} is not one of the runs: {', '.join(run_names)}."
        raise MeasureError(msg)
    per_query = per_query.filter(pl.col("value").is_not_null())
    measure_names = list(per_query["measure"].unique(maintain_order=True))

    wide = per_query.pivot(on="run", index=[*by, "measure", "query_id"], values="value")
    for name in run_names:
        if name not in wide.columns:
            wide = wide.with_columns(pl.lit(None, pl.Float64).alias(name))
    incomplete = wide.filter(pl.any_horizontal(pl.col(run_names).is_null() | pl.col(run_names).is_nan()))
    unpaired_groups: set[tuple] = set()
    if paired is False:
        unpaired_groups = {tuple(k) for k in wide.select(*by, "measure").unique().iter_rows()}
    elif incomplete.height and paired is None:
        unpaired_groups = {tuple(k) for k in incomplete.select(*by, "measure").unique().iter_rows()}
    if incomplete.height:
        sample = ", ".join(map(str, incomplete["query_id"].unique(maintain_order=True).head(5).to_list()))
        missing = (
            f"{incomplete.height} (query, measure) rows are not scored for every run "
            f"(e.g. queries {sample})"
        )
        if paired:
            warn(
                f"{missing} and are left out of the comparison (paired=True: a paired test needs "
                "every run on every query). complete=True scores judged queries a run misses as 0."
            )
            wide = wide.join(incomplete.select(*by, "measure", "query_id"),
                             on=[*by, "measure", "query_id"], how="anti", nulls_equal=True)
        else:
            if test == "tukey":
                msg = (
                    f"{missing}: Tukey's HSD needs every run on every query. Pass complete=True "
                    "(judged queries a run misses score 0), paired=True (the queries every run "
                    "has), or another test."
                )
                raise MeasureError(msg)
            warn(
                f"{missing}: the runs' query sets differ, so each run's mean is over its own "
                f"queries (as evaluate gives it) and the runs are compared unpaired "
                f"({TEST_NAMES[UNPAIRED[test]]}). complete=True scores judged queries a run "
                "misses as 0; paired=True pairs the queries every run has."
            )
    kept = wide.unpivot(index=[*by, "measure", "query_id"], on=run_names, variable_name="run")
    kept = kept.filter(pl.col("value").is_not_null() & ~pl.col("value").is_nan())
    pq = per_query.join(kept.select(*by, "measure", "query_id", "run"),
                        on=[*by, "measure", "query_id", "run"], how="semi", nulls_equal=True)

    if baseline is None:
        pairs_idx = [(i, j) for i in range(len(run_names)) for j in range(i + 1, len(run_names))]
    else:
        b = run_names.index(baseline)
        pairs_idx = [(b, j) for j in range(len(run_names)) if j != b]
    groups = (
        wide.partition_by([*by, "measure"], as_dict=True, maintain_order=True)
        if wide.height else {}
    )
    bar = None
    resamples = {"permutation": n_permutations, "bootstrap": n_bootstrap}.get(test)
    if progress and resamples:
        bar = _Bar(resamples * len(groups), TEST_NAMES[test])

    summary_rows: list[dict[str, Any]] = []
    pair_rows: list[dict[str, Any]] = []
    order = {m: i for i, m in enumerate(measure_names)}
    for key, frame in sorted(groups.items(), key=lambda kv: (order[kv[0][-1]],)):
        labels = dict(zip([*by, "measure"], key, strict=True))
        x = frame.select(run_names).to_numpy().astype(np.float64)
        n = x.shape[0]
        bounds = measure_bounds(labels["measure"])
        if tuple(key) in unpaired_groups:  # each run's own queries
            counts = [int(np.isfinite(x[:, j]).sum()) for j in range(len(run_names))]
            stats = [_stats.mean_ci(x[np.isfinite(x[:, j]), j][:, None], confidence) if c
                     else (np.full(1, np.nan),) * 3 for j, c in enumerate(counts)]
            mean, low, high = (np.array([float(s[k][0]) for s in stats]) for k in range(3))
        else:
            counts = [n] * len(run_names)
            mean, low, high = _stats.mean_ci(x, confidence) if n else (np.full(len(run_names), np.nan),) * 3
        low, high = clip_interval(low, high, bounds)
        for j, name in enumerate(run_names):
            summary_rows.append({**labels, "run": name, "n": counts[j], "mean": float(mean[j]),
                                 "ci_low": float(low[j]), "ci_high": float(high[j])})
        if n == 0:
            continue
        tester = _test_unpaired if tuple(key) in unpaired_groups else partial(_test_pairs, bar=bar)
        rows = tester(
            x, pairs_idx, run_names, labels, test=test, correction=correction, alpha=alpha,
            confidence=confidence, n_permutations=n_permutations, n_bootstrap=n_bootstrap, seed=seed,
        )
        if bounds is not None:  # a difference of two means in [a, b] lies in [a - b, b - a]
            width = bounds[1] - bounds[0]
            for row in rows:
                row["ci_low"] = min(max(row["ci_low"], -width), width)
                row["ci_high"] = min(max(row["ci_high"], -width), width)
        pair_rows.extend(rows)
    summary = pl.DataFrame(summary_rows, schema=_summary_schema(per_query, by))
    pairs = pl.DataFrame(pair_rows, schema=_pairs_schema(per_query, by))
    meta = {
        "runs": ", ".join(run_names),
        "baseline": baseline or "(every pair)",
        "test": TEST_NAMES[test] if not unpaired_groups else (
            f"{TEST_NAMES[UNPAIRED[test]]} where the runs' query sets differ"
            + ("" if paired is False else f", else {TEST_NAMES[test]}")
        ),
        "correction": CORRECTION_NAMES["tukey" if test == "tukey" else correction],
        "alpha": str(alpha),
        "confidence": str(confidence),
        "queries": str(wide["query_id"].n_unique()) if wide.height else "0",
    }
    if isinstance(qrels, str | Path):
        meta = {"qrels": str(qrels), **meta}
    if test in ("permutation", "bootstrap"):
        meta["resamples"] = f"{resamples} (seed {seed})"
    return Comparison(
        summary=summary, pairs=pairs, per_query=pq.sort([*by, "run", "measure", "query_id"]),
        by=by, test=test, correction="tukey" if test == "tukey" else correction, alpha=alpha,
        confidence=confidence, meta=meta,
        _rerun=None if by else (lambda names: rerun(names)),
    )


def _summary_schema(per_query: pl.DataFrame, by: tuple[str, ...]) -> dict[str, pl.DataType]:
    return {
        **{c: per_query.schema[c] for c in by}, "measure": pl.String(), "run": pl.String(),
        "n": pl.Int64(), "mean": pl.Float64(), "ci_low": pl.Float64(), "ci_high": pl.Float64(),
    }
