"""Comparison tables: the table model and its text, Markdown, LaTeX and HTML renderers.

Tables work on plain Polars frames (see :func:`format_table` for their schemas), so they can render
results computed elsewhere, and need nothing beyond Polars.

Significance markers: each run gets a letter (``a``, ``b``, ``c``... in the order in which the runs
first appear in ``summary``), shown next to its name; a cell carries the letters of the runs that
this run is significantly better than on that measure.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import polars as pl

from rankframe._compare.frames import _group_label, _groups, _in_group, _num, _prepare, _significant, _unique

TableFormat = Literal["text", "markdown", "latex", "html"]


# --------------------------------------------------------------------------------------------
# Table model
# --------------------------------------------------------------------------------------------


@dataclass
class _Cell:
    mean: float | None
    low: float | None
    high: float | None
    markers: list[str] = field(default_factory=list)
    best: bool = False


@dataclass
class _Table:
    group: list[tuple[str, Any]]
    runs: list[str]
    letters: dict[str, str]
    measures: list[str]
    cells: dict[tuple[str, str], _Cell]
    tests: list[str]
    corrections: list[str]
    n: list[int]
    has_pairs: bool


def _letter(i: int) -> str:
    """``0 -> a``, ``25 -> z``, ``26 -> aa``... (spreadsheet-style, lower case)."""
    out = ""
    i += 1
    while i:
        i, r = divmod(i - 1, 26)
        out = chr(ord("a") + r) + out
    return out


def _build_tables(
    summary: pl.DataFrame,
    pairs: pl.DataFrame | None,
    by: str | Sequence[str],
    digits: int,
    alpha: float,
) -> list[_Table]:
    summary, pairs, by_cols = _prepare(summary, pairs, by)
    all_runs = summary["run"].unique(maintain_order=True).to_list()
    letters = {r: _letter(i) for i, r in enumerate(all_runs)}
    all_measures = summary["measure"].unique(maintain_order=True).to_list()
    has_ci = "ci_low" in summary.columns and "ci_high" in summary.columns
    tables = []
    for group in _groups(summary, by_cols):
        sub = _in_group(summary, group)
        present = set(sub["run"].to_list())
        runs = [r for r in all_runs if r in present]
        present_m = set(sub["measure"].to_list())
        measures = [m for m in all_measures if m in present_m]
        cells: dict[tuple[str, str], _Cell] = {}
        for row in sub.iter_rows(named=True):
            cells[(row["run"], row["measure"])] = _Cell(
                _num(row["mean"]),
                _num(row["ci_low"]) if has_ci else None,
                _num(row["ci_high"]) if has_ci else None,
            )
        gp = None if pairs is None else _in_group(pairs, group)
        if gp is not None and gp.height:
            sig = gp.filter(_significant(gp, alpha) & pl.col("diff").is_not_nan())
            for row in sig.iter_rows(named=True):
                diff = row["diff"]
                if diff is None or diff == 0:
                    continue
                winner, loser = (row["run"], row["baseline"]) if diff > 0 else (row["baseline"], row["run"])
                cell = cells.get((winner, row["measure"]))
                if cell is not None and loser in letters and letters[loser] not in cell.markers:
                    cell.markers.append(letters[loser])
        order = {letters[r]: i for i, r in enumerate(all_runs)}
        for cell in cells.values():
            cell.markers.sort(key=order.__getitem__)
        if len(runs) > 1:
            for m in measures:
                vals = [
                    round(c.mean, digits) for r in runs if (c := cells.get((r, m))) and c.mean is not None
                ]
                if vals:
                    top = max(vals)
                    for r in runs:
                        c = cells.get((r, m))
                        if c is not None and c.mean is not None and round(c.mean, digits) == top:
                            c.best = True
        n = [int(v) for v in _unique(sub, "n")] if "n" in sub.columns else []
        tables.append(
            _Table(
                group=group,
                runs=runs,
                letters=letters,
                measures=measures,
                cells=cells,
                tests=[str(v) for v in _unique(gp, "test")],
                corrections=[str(v) for v in _unique(gp, "correction")],
                n=n,
                has_pairs=gp is not None and gp.height > 0,
            )
        )
    return tables


def _fmt(x: float | None, digits: int) -> str:
    return "–" if x is None else f"{x:.{digits}f}"


def _legend(t: _Table, alpha: float, show_ci: bool, *, alpha_name: str = "alpha") -> list[str]:
    """The pieces of a table's one-line legend, plain text (to be escaped by the renderer)."""
    if t.has_pairs:
        test = ", ".join(t.tests) or "significance test"
        corr = ", ".join(t.corrections) or "none"
        corr = "no correction" if corr.lower() == "none" else f"{corr} correction"
        head = "Letters: significantly better than the run with that letter"
        parts = [f"{head} ({test}, {corr}, {alpha_name} = {alpha:g})"]
    else:
        parts = ["No significance tests"]
    if show_ci:
        parts.append("[low, high]: confidence interval")
    if len(t.n) == 1:
        parts.append(f"n = {t.n[0]} queries")
    elif t.n:
        parts.append(f"n = {min(t.n)}–{max(t.n)} queries")
    return parts


# --------------------------------------------------------------------------------------------
# Renderers
# --------------------------------------------------------------------------------------------


def _text_table(t: _Table, digits: int, alpha: float, show_ci: bool) -> str:
    header = ["run", *t.measures]
    rows = [[f"{r} ({t.letters[r]})"] for r in t.runs]
    for m in t.measures:
        cells = [t.cells.get((r, m)) for r in t.runs]
        means = [_fmt(c.mean if c else None, digits) for c in cells]
        marks = ["".join(c.markers) if c else "" for c in cells]
        cis = [
            f"[{_fmt(c.low, digits)}, {_fmt(c.high, digits)}]" if c and c.low is not None else ""
            for c in cells
        ]
        wm, wk, wc = (max(map(len, xs), default=0) for xs in (means, marks, cis))
        for row, mean, mark, ci in zip(rows, means, marks, cis, strict=True):
            s = mean.rjust(wm)
            if wk:
                s += " " + mark.ljust(wk)
            if show_ci and wc:
                s += "  " + ci
            row.append(s)
    widths = [max(len(x) for x in col) for col in zip(header, *rows, strict=True)]

    def line(cells: Sequence[str]) -> str:
        return " | ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)).rstrip()

    out = []
    if t.group:
        out.append(_group_label(t.group))
    out.append(line(header))
    out.append("-+-".join("-" * w for w in widths))
    out.extend(line(r) for r in rows)
    out.append("; ".join(_legend(t, alpha, show_ci)) + ".")
    return "\n".join(out)


def _md_escape(s: str) -> str:
    return html.escape(str(s), quote=False).replace("|", "\\|")


def _cell_text(
    c: _Cell, digits: int, show_ci: bool, *, bold: str, sup: str, ci: str, missing: str = "–"
) -> str:
    """One cell: the mean (``bold`` around the best), the markers (``sup``), the interval (``ci``).

    ``bold``, ``sup`` and ``ci`` are format strings of the markup: ``{}`` is the text it wraps.
    """
    s = missing if c.mean is None else _fmt(c.mean, digits)
    s = bold.format(s) if c.best else s
    if c.markers:
        s += sup.format("".join(c.markers))
    if show_ci and c.low is not None:
        s += ci.format(f"[{_fmt(c.low, digits)}, {_fmt(c.high, digits)}]")
    return s


def _markdown_table(t: _Table, digits: int, alpha: float, show_ci: bool) -> str:
    out = []
    if t.group:
        out += [f"**{_md_escape(_group_label(t.group))}**", ""]
    out.append("| " + " | ".join(["run", *map(_md_escape, t.measures)]) + " |")
    out.append("| :-- |" + " --: |" * len(t.measures))
    for r in t.runs:
        cells = [f"{_md_escape(r)} ({t.letters[r]})"]
        for m in t.measures:
            c = t.cells.get((r, m))
            if c is None:
                cells.append("–")
                continue
            cells.append(_cell_text(c, digits, show_ci, bold="**{}**", sup="<sup>{}</sup>", ci=" {}"))
        out.append("| " + " | ".join(cells) + " |")
    out += ["", _md_escape("; ".join(_legend(t, alpha, show_ci, alpha_name="α")) + ".")]
    return "\n".join(out)


_LATEX_SPECIALS = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}
_LATEX_RE = re.compile("|".join(re.escape(k) for k in _LATEX_SPECIALS))


def latex_escape(text: str) -> str:
    r"""Escape LaTeX's special characters in ``text``.

    Parameters
    ----------
    text
        Plain text (a run or measure name).

    Returns
    -------
    str
        The text, safe inside a LaTeX document.

    Examples
    --------
    >>> latex_escape("bm25_rm3 & 10% #1 $x$")
    'bm25\\_rm3 \\& 10\\% \\#1 \\$x\\$'
    """
    return _LATEX_RE.sub(lambda m: _LATEX_SPECIALS[m.group()], str(text))


def _latex_table(t: _Table, digits: int, alpha: float, show_ci: bool) -> str:
    ncol = 1 + len(t.measures)
    out = [rf"\begin{{tabular}}{{l{'c' * len(t.measures)}}}", r"\toprule"]
    if t.group:
        label = latex_escape(_group_label(t.group))
        out += [rf"\multicolumn{{{ncol}}}{{l}}{{\textit{{{label}}}}} \\", r"\midrule"]
    out.append(" & ".join(["Run", *map(latex_escape, t.measures)]) + r" \\")
    out.append(r"\midrule")
    for r in t.runs:
        cells = [f"{latex_escape(r)} ({t.letters[r]})"]
        for m in t.measures:
            c = t.cells.get((r, m))
            if c is None:
                cells.append("--")
                continue
            cells.append(_cell_text(
                c, digits, show_ci, bold=r"\textbf{{{}}}", sup="$^{{{}}}$", ci=" {}", missing="--"
            ))
        out.append(" & ".join(cells) + r" \\")
    out += [r"\bottomrule", r"\end{tabular}"]
    legend = latex_escape("; ".join(_legend(t, alpha, show_ci, alpha_name="\x00")) + ".")
    legend = legend.replace("\x00", r"$\alpha$").replace("–", "--")
    out += ["", rf"{{\footnotesize {legend}}}"]
    return "\n".join(out)


def _html_table(t: _Table, digits: int, alpha: float, show_ci: bool) -> str:
    e = html.escape
    out = ['<div class="wrap"><table class="results">']
    if t.group:
        out.append(f"<caption>{e(_group_label(t.group))}</caption>")
    out.append(
        '<thead><tr><th scope="col" class=t>run</th>'
        + "".join(f'<th scope="col">{e(m)}</th>' for m in t.measures)
        + "</tr></thead><tbody>"
    )
    for r in t.runs:
        cells = [f'<th scope="row">{e(r)} <span class="letter">({t.letters[r]})</span></th>']
        for m in t.measures:
            c = t.cells.get((r, m))
            if c is None:
                cells.append("<td>–</td>")
                continue
            s = _cell_text(
                c, digits, show_ci, bold="<b>{}</b>", sup='<sup class="sig">{}</sup>',
                ci=' <span class="ci">{}</span>',
            )
            cells.append(f"<td{' class=best' if c.best else ''}>{s}</td>")
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</tbody></table></div>")
    legend = [*_legend(t, alpha, show_ci, alpha_name="α"), "best value per column in bold"]
    out.append(f'<p class="legend">{e("; ".join(legend))}.</p>')
    return "\n".join(out)


_RENDERERS = {
    "text": (_text_table, "\n\n"),
    "markdown": (_markdown_table, "\n\n"),
    "latex": (_latex_table, "\n\n\\bigskip\n\n"),
    "html": (_html_table, "\n"),
}


def format_table(
    summary: pl.DataFrame,
    pairs: pl.DataFrame | None,
    *,
    fmt: TableFormat = "text",
    by: str | Sequence[str] = (),
    digits: int = 4,
    alpha: float = 0.05,
    show_ci: bool = True,
) -> str:
    r"""Render comparison results as a table: runs as rows, measures as columns.

    Parameters
    ----------
    summary
        One row per (group, measure, run): ``[*by], measure, run, n, mean, ci_low, ci_high``
        (``n``, ``ci_low`` and ``ci_high`` may be absent).
    pairs
        One row per compared pair: ``[*by], measure, baseline, run, diff, significant`` (also read:
        ``test``, ``correction``; without ``significant``, ``p_adjusted < alpha``). ``None`` or an
        empty frame: no markers.
    fmt
        ``"text"`` (aligned plain-text columns for a terminal), ``"markdown"`` (a GitHub pipe table;
        markers as ``<sup>ab</sup>``, best value in bold), ``"latex"`` (a ``booktabs`` ``tabular``;
        markers as ``$^{ab}$``, best value in ``\textbf``, specials escaped) or ``"html"`` (a
        ``<table>`` fragment, as in :func:`html_report`).
    by
        Group columns: one table per group, headed by the group's values.
    digits
        Decimals of means and confidence bounds.
    alpha
        The significance level named in the legend (markers come from ``significant``).
    show_ci
        Whether to show the confidence interval ``[ci_low, ci_high]`` after each mean.

    Returns
    -------
    str
        The table(s), each followed by a one-line legend (test, correction, alpha).

    Notes
    -----
    Each run gets a letter (``a``, ``b``, ... in order of first appearance in ``summary``), shown
    after its name. A cell carries the letters of the runs that its run is significantly better
    than on that measure: a significant pair row with ``diff > 0`` marks ``run`` over ``baseline``,
    one with ``diff < 0`` marks ``baseline`` over ``run``. Higher values are taken as better, for
    the bold "best" value of each column (ties are all bold; not in ``"text"``).

    Examples
    --------
    >>> import polars as pl
    >>> summary = pl.DataFrame({
    ...     "measure": ["nDCG@10", "nDCG@10"], "run": ["bm25", "splade"], "n": [43, 43],
    ...     "mean": [0.50576, 0.73112], "ci_low": [0.44, 0.68], "ci_high": [0.57, 0.78]})
    >>> pairs = pl.DataFrame({
    ...     "measure": ["nDCG@10"], "baseline": ["bm25"], "run": ["splade"], "diff": [0.22536],
    ...     "p_adjusted": [0.0001], "significant": [True], "test": ["paired t-test"],
    ...     "correction": ["holm"]})
    >>> print(format_table(summary, pairs, digits=3))
    run        | nDCG@10
    -----------+------------------------
    bm25 (a)   | 0.506    [0.440, 0.570]
    splade (b) | 0.731 a  [0.680, 0.780]
    Letters: significantly better than the run with that letter (paired t-test, holm correction, alpha = 0.05); [low, high]: confidence interval; n = 43 queries.
    """  # noqa: E501
    if fmt not in _RENDERERS:
        msg = f"fmt must be one of {', '.join(map(repr, _RENDERERS))}, not {fmt!r}."
        raise ValueError(msg)
    render, sep = _RENDERERS[fmt]
    tables = _build_tables(summary, pairs, by, digits, alpha)
    return sep.join(render(t, digits, alpha, show_ci) for t in tables)
