"""ranx's ``Report``: the means, p-values and win/tie/loss counts of a comparison, as tables."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable
from typing import Any

_CHARS = "abcdefghijklmnopqrstuvwxyz"
_SUPER = "ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖ۹ʳˢᵗᵘᵛʷˣʸᶻ"
_LABELS = {
    "hits": "Hits", "hit_rate": "Hit Rate", "precision": "P", "recall": "Recall", "f1": "F1",
    "r-precision": "R-Prec", "mrr": "MRR", "map": "MAP", "dcg": "DCG", "dcg_burges": "DCG Burges",
    "ndcg": "NDCG", "ndcg_burges": "NDCG Burges", "bpref": "BPref",
}
_TESTS = {
    "fisher": "Fisher's randomization test",
    "student": "paired Student's t-test",
    "tukey": "Tukey's HSD test",
}


def format_score(score: float, rounding_digits: int, show_percentages: bool) -> str:
    """``score`` rounded to ``rounding_digits``, or as a percentage with 2 digits fewer (ranx's tables).

    >>> format_score(0.12345, 3, False), format_score(0.12345, 3, True)
    ('0.123', '12.3')
    """
    if show_percentages:
        digits = max(0, rounding_digits - 2)
        return f"{round(score * 100, digits):.{digits}f}"
    return f"{round(score, rounding_digits):.{rounding_digits}f}"


#: tabulate's numbers with thousands separators ("1,234.5").
_THOUSANDS = re.compile(r"^(([+-]?[0-9]{1,3})(?:,([0-9]{3}))*)?(?(1)\.[0-9]*|\.[0-9]+)?$")


def _converts(kind: type, text: str) -> bool:
    try:
        kind(text)
    except (ValueError, TypeError):
        return False
    return True


def _is_number(text: str) -> bool:
    """tabulate's ``_isnumber`` on a string: a float, but not one that overflows to inf."""
    if not _converts(float, text):
        return False
    value = float(text)
    return not (math.isinf(value) or math.isnan(value)) or text.lower() in ("inf", "-inf", "nan")


def _kind(text: str) -> int:
    """tabulate's ``_type`` of a cell, ranked as its ``_more_generic``: 0 empty ... 5 text."""
    if not text:
        return 0
    if text in ("True", "False"):
        return 1
    if _converts(int, text) or (_THOUSANDS.match(text) and "." not in text):
        return 2
    if _is_number(text) or _THOUSANDS.match(text):
        return 3
    return 5


def _after_point(text: str) -> int:
    """tabulate's ``_afterpoint``: the digits after the decimal point (or exponent), -1 for none."""
    if not (_is_number(text) or _THOUSANDS.match(text)) or _converts(int, text):
        return -1
    pos = text.rfind(".")
    pos = text.lower().rfind("e") if pos < 0 else pos
    return len(text) - pos - 1 if pos >= 0 else -1


def _general(text: str) -> str:
    """tabulate's ``_format`` of a float column's cell: ``"g"`` (a cell that is no number stays)."""
    try:
        return format(float(text.replace(",", "")), "g") if text else text
    except ValueError:
        return text


def simple_table(headers: list[str], rows: list[list[str]]) -> str:
    """``tabulate(rows, headers=headers)`` ("simple" layout) on string cells, as ranx prints.

    tabulate parses the cells: a column whose cells are all numbers is numeric, printed with
    ``format(float(cell), "g")`` (``"0.500"`` is ``0.5``; integers as they are written),
    aligned on the decimal point and to the right, its title too; other columns are text, to
    the left. A column is as wide as its widest cell or its title + 2; lines lose trailing
    spaces.

    Examples
    --------
    >>> print(simple_table(["#", "Model", "MRR"], [["a", "bm25", "0.500"], ["b", "dense", "0.250ᵃ"]]))
    #    Model    MRR
    ---  -------  ------
    a    bm25     0.500
    b    dense    0.250ᵃ
    >>> print(simple_table(["#", "Model", "MRR"], [["a", "bm25", "0.500"], ["b", "dense", "0.125"]]))
    #    Model      MRR
    ---  -------  -----
    a    bm25     0.5
    b    dense    0.125
    """
    columns = []
    for header, cells in zip(headers, zip(*rows, strict=True), strict=True):
        kind = max((_kind(c) for c in cells), default=1)  # (tabulate's reduce starts at bool)
        if kind == 3:
            cells = tuple(_general(c) for c in cells)
        numeric = kind in (2, 3)
        if numeric:  # "decimal": the decimal points in one column, then to the right
            points = [_after_point(c) for c in cells]
            cells = tuple(c + " " * (max(points) - p) for c, p in zip(cells, points, strict=True))
        else:  # (text, to the left, without its own outer spaces)
            cells = tuple(c.strip() for c in cells)
        width = max(len(header) + 2, *(len(c) for c in cells))
        pad = str.rjust if numeric else str.ljust
        columns.append((pad(header, width), "-" * width, [pad(c, width) for c in cells]))
    lines = ["  ".join(c[0] for c in columns), "  ".join(c[1] for c in columns)]
    lines += ["  ".join(c[2][i] for c in columns) for i in range(len(rows))]
    return "\n".join(line.rstrip() for line in lines)


class FrozensetDict(dict):  # type: ignore[type-arg]
    """A dict keyed by unordered pairs: ``d["a", "b"] is d[{"b", "a"}]``."""

    def __getitem__(self, key: Iterable[str]) -> Any:
        return super().__getitem__(frozenset(key))

    def __setitem__(self, key: Iterable[str], value: Any) -> None:
        super().__setitem__(frozenset(key), value)


class Report:
    """The outcome of :func:`~rankframe.compat.ranx.compare`, rendered as ranx renders it.

    ``str(report)`` is the table (a superscript letter marks a significantly better model),
    :meth:`to_latex` the LaTeX table, :meth:`to_dict`/:meth:`save` the JSON layout,
    :meth:`to_dataframe` a pandas frame of the means.

    Examples
    --------
    >>> pairs = FrozensetDict()
    >>> pairs["a", "b"] = {"mrr": {"p_value": 0.001, "significant": True}}
    >>> report = Report(["a", "b"], {"a": {"mrr": 0.75}, "b": {"mrr": 0.5}}, pairs, ["mrr"], 0.01,
    ...                 {("a", "b"): {"mrr": {"W": 1, "T": 0, "L": 0}},
    ...                  ("b", "a"): {"mrr": {"W": 0, "T": 0, "L": 1}}})
    >>> print(report)
    #    Model    MRR
    ---  -------  ------
    a    a        0.750ᵇ
    b    b        0.500
    """

    def __init__(self, model_names: list[str], results: dict[str, dict[str, float]],
                 comparisons: FrozensetDict, metrics: list[str], max_p: float,
                 win_tie_loss: dict[tuple[str, str], dict[str, dict[str, int]]],
                 rounding_digits: int = 3, show_percentages: bool = False,
                 stat_test: str = "student") -> None:
        self.model_names = model_names
        self.results = results
        self.comparisons = comparisons
        self.metrics = metrics
        self.max_p = max_p
        self.win_tie_loss = win_tie_loss
        self.rounding_digits = rounding_digits
        self.show_percentages = show_percentages
        self.stat_test = stat_test

    def format_score(self, score: float) -> str:
        """A mean rounded to ``rounding_digits`` (as a percentage with ``show_percentages``)."""
        return format_score(score, self.rounding_digits, self.show_percentages)

    def get_metric_label(self, m: str) -> str:
        """A metric's column title: ``ndcg@10`` -> ``NDCG@10``, ``rbp.95`` -> ``RBP.95``."""
        base, _, level = m.partition("-l")
        name, sep, cutoff = base.partition("@")
        label = _LABELS.get(name, name.upper())
        return f"{label}{sep}{cutoff}" + (f"-l{level}" if level else "")

    def get_stat_test_label(self, stat_test: str) -> str:
        """The test's name in words (``"student"`` -> ``"paired Student's t-test"``)."""
        return _TESTS[stat_test]

    def _better(self, model: str, metric: str) -> list[int]:
        return [
            j for j, other in enumerate(self.model_names)
            if other != model and self.comparisons[model, other][metric]["significant"]
            and self.results[model][metric] > self.results[other][metric]
        ]

    def to_table(self) -> str:
        """The plain-text table: one row per model, one column per metric."""
        rows = [[_CHARS[i], model] + [
            self.format_score(self.results[model][m]) + "".join(_SUPER[j] for j in self._better(model, m))
            for m in self.metrics] for i, model in enumerate(self.model_names)]
        headers = ["#", "Model", *[self.get_metric_label(m) for m in self.metrics]]
        return simple_table(headers, [[str(c) for c in row] for row in rows])

    def __str__(self) -> str:
        return self.to_table()

    def __repr__(self) -> str:
        return self.to_table()

    def print_results(self) -> None:
        """Print the means and p-values as JSON."""
        print(json.dumps(self.to_dict(), indent=4, default=str))

    def to_latex(self) -> str:
        """The LaTeX table (booktabs), the best mean of each metric in bold."""
        best = {}
        for m in self.metrics:
            rounded = {name: round(self.results[name][m], self.rounding_digits) for name in self.model_names}
            top = max(self.model_names, key=rounded.__getitem__)
            best[m] = top if rounded[top] > 0 else None
        head = (
            "========================\n% Add in preamble\n\\usepackage{graphicx}\n\\usepackage{booktabs}\n"
            "========================\n\n\n% To change the table size, act on the resizebox argument `0.8`.\n"
            "\\begin{table*}[ht]\n\\centering\n\\caption{\nOverall effectiveness of the models.\n"
            "The best results are highlighted in boldface.\n"
            "Superscripts denote significant differences in "
            f"{self.get_stat_test_label(self.stat_test)} with $p \\le {self.max_p}$.\n}}\n"
            "\\resizebox{0.8\\textwidth}{!}{\n\\begin{tabular}{c|l" + "|c" * len(self.metrics)
            + "}\n\\toprule\n"
            "\\textbf{\\#}\n& \\textbf{Model}"
            + "".join(f"\n& \\textbf{{{self.get_metric_label(m)}}}" for m in self.metrics)
            + " \\\\ \n\\midrule"
        )
        body = []
        for i, model in enumerate(self.model_names):
            cells = []
            for m in self.metrics:
                score = self.format_score(self.results[model][m])
                score = f"\\textbf{{{score}}}" if best[m] == model else score
                sup = "".join(_CHARS[j] for j in self._better(model, m))
                ph = "".join(_CHARS[j] for j, o in enumerate(self.model_names)
                             if o != model and j not in self._better(model, m))
                cells.append(f"{score}$^{{{sup}}}$\\hphantom{{$^{{{ph}}}$}} &")
            cells[-1] = cells[-1][:-1]  # the last cell ends the row
            body.append(f"{_CHARS[i]} &\n{model} &\n" + "\n".join(cells) + "\\\\")
        text = "\n".join(body).replace("_", "\\_").replace("$^{}$", "")
        tail = "\\bottomrule\n\\end{tabular}\n}\n\\label{tab:results}\n\\end{table*}"
        return f"{head}\n{text}\n{tail}"

    def to_dict(self) -> dict[str, Any]:
        """ranx's JSON layout: ``stat_test``, ``metrics``, ``model_names``, then per model.

        Each model's ``scores``, and its ``comparisons`` (p-values) and ``win_tie_loss`` against
        every other model.
        """
        d: dict[str, Any] = {
            "stat_test": self.stat_test, "metrics": self.metrics, "model_names": self.model_names,
        }
        for m1 in self.model_names:
            others = [m2 for m2 in self.model_names if m2 != m1]
            p = {m2: {m: self.comparisons[m1, m2][m]["p_value"] for m in self.metrics} for m2 in others}
            wtl = {m2: {m: self.win_tie_loss[m1, m2][m] for m in self.metrics} for m2 in others}
            d[m1] = {"scores": self.results[m1], "comparisons": p, "win_tie_loss": wtl}
        return d

    def to_dataframe(self) -> Any:
        """A pandas frame: ``model_names`` and one column of means per metric (needs pandas)."""
        import pandas as pd  # noqa: PLC0415 (only when a DataFrame is asked for)

        data: dict[str, list[Any]] = {"model_names": list(self.model_names)}
        for m in self.metrics:
            data[m] = [self.results[name][m] for name in self.model_names]
        return pd.DataFrame(data)

    def save(self, path: str) -> None:
        """Write :meth:`to_dict` as JSON."""
        with open(path, "w") as f:
            f.write(json.dumps(self.to_dict(), indent=4))
