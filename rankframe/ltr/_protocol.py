"""The learning-to-rank evaluation protocol: train, select on validation, test once.

For every loss and every configuration of a small grid, a :class:`LinearRanker` is trained on
the training queries (with early stopping on the validation queries), then scored on the
validation queries with :func:`rankframe.evaluate`. Per loss, the configuration with the best
validation measure is selected. Only then are the selected models scored on the test queries,
in a single evaluation: the test split plays no part in any choice.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
import polars as pl

from rankframe._engine.evaluate import evaluate
from rankframe._errors import MeasureError
from rankframe._measures._names import parse_measure
from rankframe.ltr._data import LetorData, to_frames
from rankframe.ltr._linear import TRAINABLE, LinearRanker

__all__ = ["DEFAULT_CONFIGS", "Config", "LearnReport", "learn"]


@dataclass(frozen=True, order=True)
class Config:
    """One training configuration of the grid.

    Attributes
    ----------
    lr : float
        Adam step size.
    l2 : float
        L2 penalty on the weights.
    epochs : int
        Maximum number of epochs (early stopping may end sooner).

    Examples
    --------
    >>> str(Config(0.01, 0.001, 30))
    'lr=0.01 l2=0.001 epochs=30'
    """

    lr: float
    l2: float = 0.0
    epochs: int = 30

    def __str__(self) -> str:
        return f"lr={self.lr:g} l2={self.l2:g} epochs={self.epochs}"


#: The default grid: two step sizes times two L2 penalties, at most 40 epochs each.
DEFAULT_CONFIGS: tuple[Config, ...] = tuple(
    Config(lr, l2, 40) for lr in (0.003, 0.03) for l2 in (0.0, 0.1)
)


def _canonical(spec: str) -> str:
    found = parse_measure(spec)
    if len(found) != 1:
        msg = f"{spec!r} names {len(found)} measures; name a single measure (e.g. 'nDCG@10')."
        raise MeasureError(msg)
    return repr(found[0])


def _table_text(frame: pl.DataFrame, *, markdown: bool, digits: int = 4) -> str:
    def cell(value: object) -> str:
        if isinstance(value, float):
            return "-" if math.isnan(value) else f"{value:.{digits}f}"
        return "-" if value is None else str(value)

    header = list(frame.columns)
    body = [[cell(v) for v in row] for row in frame.iter_rows()]
    widths = [max(len(h), *(len(r[i]) for r in body)) if body else len(h) for i, h in enumerate(header)]
    numeric = [dt.is_numeric() for dt in frame.dtypes]

    def line(cells: list[str]) -> str:
        parts = [c.rjust(w) if num else c.ljust(w) for c, w, num in zip(cells, widths, numeric, strict=True)]
        return "| " + " | ".join(parts) + " |" if markdown else "  ".join(parts).rstrip()

    rows = [line(header)]
    if markdown:
        rows.append("|" + "|".join(("-" * (w + 1) + ":") if num else ("-" * (w + 2))
                                   for w, num in zip(widths, numeric, strict=True)) + "|")
    else:
        rows.append("  ".join("-" * w for w in widths))
    rows.extend(line(r) for r in body)
    return "\n".join(rows)


@dataclass
class LearnReport:
    """Result of :func:`learn`.

    Attributes
    ----------
    table : polars.DataFrame
        One row per loss (the selected configuration): ``loss, config, validation <m>...,
        test <m>..., train seconds, best epoch``.
    grid : polars.DataFrame
        Every (loss, configuration) tried: validation measures, train seconds, best epoch.
    test_per_query : polars.DataFrame
        ``loss, query_id, measure, value`` on the test queries for the selected models.
    models : dict of str to LinearRanker
        The selected model of every loss.
    configs : dict of str to Config
        The selected configuration of every loss.
    measure : str
        The selection measure (canonical name).
    measures : list of str
        Selection measure then the extra measures.
    sizes : dict of str to int
        Number of queries of the train, validation and test splits.
    """

    table: pl.DataFrame
    grid: pl.DataFrame
    test_per_query: pl.DataFrame
    models: dict[str, LinearRanker]
    configs: dict[str, Config]
    measure: str
    measures: list[str]
    sizes: dict[str, int] = field(default_factory=dict)

    def paired_tests(self, baseline: str = "pointwise", measure: str | None = None) -> pl.DataFrame:
        """Paired t tests of every loss against ``baseline`` over the test queries.

        Parameters
        ----------
        baseline
            The loss to compare with (must be in the report).
        measure
            Measure to test; defaults to the selection measure.

        Returns
        -------
        polars.DataFrame
            ``loss, mean, baseline mean, difference, t, p`` (two-sided, as
            ``scipy.stats.ttest_rel``), one row per other loss.
        """
        name = self.measure if measure is None else _canonical(measure)
        per = self.test_per_query.filter(pl.col("measure") == name)
        wide = per.pivot(on="loss", index="query_id", values="value").sort("query_id")
        if baseline not in wide.columns:
            msg = f"paired_tests: baseline {baseline!r} is not among the losses {list(self.models)}."
            raise ValueError(msg)
        others = [c for c in wide.columns if c not in ("query_id", baseline)]
        base = wide[baseline].to_numpy()
        rows = []
        if others:
            diffs = np.column_stack([wide[c].to_numpy() - base for c in others])
            from rankframe._compare.paired import paired_t  # scipy.stats, imported when needed

            t, p = paired_t(diffs)
            for j, c in enumerate(others):
                rows.append((c, float(wide[c].mean()), float(base.mean()), float(diffs[:, j].mean()),
                             float(t[j]), float(p[j])))
        schema = {"loss": pl.String, "mean": pl.Float64, "baseline mean": pl.Float64,
                  "difference": pl.Float64, "t": pl.Float64, "p": pl.Float64}
        return pl.DataFrame(rows, schema=schema, orient="row")

    def caption(self) -> str:
        """One line: split sizes and the selection rule."""
        s = self.sizes
        return (
            f"train {s.get('train', '?')} queries, validation {s.get('validation', '?')}, "
            f"test {s.get('test', '?')}; configuration selected per loss by validation {self.measure}; "
            "test evaluated once, at the end."
        )

    def to_text(self, digits: int = 4) -> str:
        """The table as aligned plain text."""
        return _table_text(self.table, markdown=False, digits=digits)

    def to_markdown(self, digits: int = 4) -> str:
        """The table as a Markdown pipe table, with a caption line."""
        return _table_text(self.table, markdown=True, digits=digits) + f"\n\n{self.caption()}\n"

    def __str__(self) -> str:
        return self.to_text()


def _evaluate_models(
    data: LetorData, scores: dict[str, np.ndarray], measures: list[str], *, per_query: bool
) -> pl.DataFrame:
    """Evaluate several score vectors on one split in a single :func:`rankframe.evaluate` call."""
    qrels, _ = to_frames(data, next(iter(scores.values())))
    runs = {name: to_frames(data, s)[1] for name, s in scores.items()}
    out = evaluate(qrels, runs, measures, per_query=per_query)
    if "run" not in out.columns:  # a single run may come back without the run column
        out = out.with_columns(pl.lit(next(iter(runs))).alias("run"))
    return out


def learn(
    train: LetorData,
    validation: LetorData,
    test: LetorData,
    *,
    losses: Sequence[str] = TRAINABLE,
    configs: Iterable[Config] = DEFAULT_CONFIGS,
    measure: str = "nDCG@10",
    extra_measures: Sequence[str] = ("AP",),
    batch_queries: int = 8,
    patience: int = 8,
    early_stopping: bool = True,
    k: int | None = None,
    seed: int = 0,
    standardize: bool = True,
    progress: Callable[[str], object] | None = None,
) -> LearnReport:
    """Run the train / validate / test protocol for several losses.

    Parameters
    ----------
    train, validation, test
        Disjoint query sets (see :func:`split_by_query`).
    losses
        Losses to train with (each in :data:`TRAINABLE`).
    configs
        The grid of :class:`Config` tried for every loss.
    measure
        Selection measure, higher is better (any rankframe name, e.g. ``"nDCG@10"``); used for
        early stopping and for choosing the configuration of every loss.
    extra_measures
        Further measures reported (not used for any choice), e.g. ``("AP",)``.
    batch_queries, patience, seed, standardize
        Passed to :class:`LinearRanker` / :meth:`LinearRanker.fit`. Every model uses ``seed``.
    early_stopping
        Stop each fit when the validation measure has not improved for ``patience`` epochs
        (and keep the best epoch).
    k
        Cutoff given to the losses; by default the cutoff of ``measure`` (10 for ``nDCG@10``).
    progress
        Called with a short message after every fit (e.g. ``print``).

    Returns
    -------
    LearnReport
        The selected configuration and the validation and test measures of every loss.

    Notes
    -----
    Measures follow trec_eval: every query counts, and a query with no relevant document
    scores 0 on nDCG and AP. A fit whose gradient overflows gets NaN validation measures and
    is never selected (unless every configuration of the loss failed, which raises).
    """
    losses = list(losses)
    configs = list(configs)
    if not losses or not configs:
        msg = "learn: give at least one loss and one configuration."
        raise ValueError(msg)
    bad = [x for x in losses if x not in TRAINABLE]
    if bad:
        msg = f"learn: cannot train with {bad}; trainable losses are {', '.join(TRAINABLE)}."
        raise ValueError(msg)
    sel = _canonical(measure)
    measures = list(dict.fromkeys([sel, *(_canonical(m) for m in extra_measures)]))
    if k is None:
        cutoff = parse_measure(sel)[0].params.get("cutoff")
        k = int(cutoff) if isinstance(cutoff, int) else None

    grid_rows: list[dict[str, object]] = []
    best: dict[str, tuple[float, Config, LinearRanker, dict[str, object]]] = {}
    for loss in losses:
        for cfg in configs:
            model = LinearRanker(standardize=standardize)
            t0 = time.perf_counter()
            try:
                model.fit(
                    train, loss, epochs=cfg.epochs, batch_queries=batch_queries, lr=cfg.lr, l2=cfg.l2,
                    seed=seed, k=k, validation=validation if early_stopping else None, measure=sel,
                    patience=patience,
                )
                failed = False
            except FloatingPointError:
                failed = True
            seconds = time.perf_counter() - t0
            if failed:
                values = {m: math.nan for m in measures}
            else:
                res = _evaluate_models(validation, {loss: model.predict(validation.X)}, measures,
                                       per_query=False)
                values = dict(zip(res["measure"].to_list(), res["value"].to_list(), strict=True))
            row: dict[str, object] = {"loss": loss, "config": str(cfg)}
            row.update({f"validation {m}": float(values[m]) for m in measures})
            row.update({"train seconds": seconds, "best epoch": model.history_.best_epoch})
            grid_rows.append(row)
            score = float(values[sel])
            if not math.isnan(score) and (loss not in best or score > best[loss][0]):
                best[loss] = (score, cfg, model, row)
            if progress is not None:
                progress(f"{loss:<12} {cfg}: validation {sel} = {score:.4f} ({seconds:.1f} s)")
        if loss not in best:
            msg = f"learn: every configuration of the {loss} loss diverged; try smaller learning rates."
            raise FloatingPointError(msg)

    # the only look at the test split: every selected model, one evaluation
    test_scores = {loss: best[loss][2].predict(test.X) for loss in losses}
    per_query = _evaluate_models(test, test_scores, measures, per_query=True).rename({"run": "loss"})
    per_query = per_query.select("loss", "query_id", "measure", "value")
    means = per_query.group_by("loss", "measure").agg(pl.col("value").mean())
    test_mean = {(r["loss"], r["measure"]): r["value"] for r in means.iter_rows(named=True)}

    rows = []
    for loss in losses:
        row = dict(best[loss][3])
        seconds, epoch = row.pop("train seconds"), row.pop("best epoch")
        row.update({f"test {m}": float(test_mean[(loss, m)]) for m in measures})
        row.update({"train seconds": seconds, "best epoch": epoch})
        rows.append(row)
    return LearnReport(
        table=pl.DataFrame(rows),
        grid=pl.DataFrame(grid_rows),
        test_per_query=per_query,
        models={loss: best[loss][2] for loss in losses},
        configs={loss: best[loss][1] for loss in losses},
        measure=sel,
        measures=measures,
        sizes={"train": train.n_queries, "validation": validation.n_queries, "test": test.n_queries},
    )
