"""ranx's ``OptimizationReport``: every candidate's score of a fusion grid search, as a table."""

from __future__ import annotations

from typing import Any

import numpy as np

from rankframe.compat.ranx.data_structures.report import format_score

METHOD_LABELS = {
    "logn_isr": "LogN_ISR", "gmnz": "GMNZ", "mixed": "Mixed", "probfuse": "ProbFuse", "rbc": "RBC",
    "rrf": "RRF", "slidefuse": "SlideFuse", "w_bordafuse": "Weighted BordaFuse",
    "w_condorcet": "Weighted Condorcet", "wmnz": "WMNZ", "wsum": "Weighted SUM",
}
HYPERPARAMS_LABELS = {
    "logn_isr": "Sigma", "gmnz": "Gamma", "mixed": "Weights", "probfuse": "# Segments", "rbc": "phi",
    "rrf": "k", "slidefuse": "w", "w_bordafuse": "Weights", "w_condorcet": "Weights",
    "wmnz": "Weights", "wsum": "Weights",
}
METRIC_LABELS = {
    "hits": "Hits", "hit_rate": "Hit_Rate", "precision": "P", "recall": "Recall", "f1": "F1",
    "r-precision": "R-Prec", "mrr": "MRR", "map": "MAP", "ndcg": "NDCG", "ndcg_burges": "NDCG_Burges",
}


class OptimizationReport:
    """The candidates (``configs``, as strings) and their mean scores (``results``) of a search.

    ``str(report)`` is a table, the best candidate (the first highest score) marked with ``*``
    (ranx prints it bold green).

    Examples
    --------
    >>> report = OptimizationReport("rrf", ["10", "20"], [0.5, 0.625], "ndcg@10")
    >>> print(report)
    RRF
     k   | NDCG@10
    -----+--------
     10  |  0.500
     20* |  0.625*
    """

    def __init__(
        self, method: str, configs: list[str], results: list[float], metric: str,
        rounding_digits: int = 3, show_percentages: bool = False,
    ) -> None:
        self.method = method
        self.configs = configs
        self.results = results
        self.metric = metric
        self.rounding_digits = rounding_digits
        self.show_percentages = show_percentages

    def get_metric_label(self, m: str) -> str:
        """ranx's label of a metric name (``NDCG@10``); an unlabelled name as given."""
        name, _, cutoff = m.partition("@")
        label = METRIC_LABELS.get(name, name)
        return f"{label}@{cutoff}" if cutoff else label

    def format_score(self, score: float) -> str:
        """The score rounded to ``rounding_digits`` (as a percentage with 2 digits fewer)."""
        return format_score(score, self.rounding_digits, self.show_percentages)

    def to_table(self) -> str:
        """The table: a column of candidates, a column of scores, the best one marked ``*``."""
        best = int(np.argmax(self.results)) if len(self.results) else -1
        cells = [
            (f" {c}{'*' if i == best else ''}", f" {self.format_score(s)}{'*' if i == best else ' '}")
            for i, (c, s) in enumerate(zip(self.configs, self.results, strict=True))
        ]
        head = (f" {HYPERPARAMS_LABELS.get(self.method, 'Params')}", f" {self.get_metric_label(self.metric)}")
        left = max(len(x) for x, _ in [head, *cells]) + 1
        right = max(len(y) for _, y in [head, *cells])
        lines = [METHOD_LABELS.get(self.method, self.method), f"{head[0]:<{left}}|{head[1]}",
                 f"{'-' * left}+{'-' * right}"]
        lines += [f"{x:<{left}}|{y:>{right}}".rstrip() for x, y in cells]
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.to_table()

    def __repr__(self) -> str:
        return self.to_table()

    def to_dict(self) -> dict[str, Any]:
        """``{config: score}``."""
        return dict(zip(self.configs, self.results, strict=True))
