"""The output layer of comparisons: tables, matplotlib figures and a self-contained HTML report.

Everything here works on plain Polars frames (see :func:`format_table` for their schemas), so it
can render results computed elsewhere. Tables need nothing beyond Polars; figures and the HTML
report need matplotlib (``pip install 'rankframe[report]'``), imported only when they are drawn.

Significance markers: each run gets a letter (``a``, ``b``, ``c``... in the order in which the runs
first appear in ``summary``), shown next to its name; a cell carries the letters of the runs that
this run is significantly better than on that measure.
"""

from __future__ import annotations

import html
import io
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import polars as pl

from rankframe._errors import InputError

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: At most this many per-query difference figures are drawn by :func:`figures`: one per row of
#: ``pairs`` (a measure and two runs), in the order of the rows, over all groups; the rest are
#: left out (save or plot them yourself from ``per_query``).
MAX_DIFF_FIGURES = 12

_INSTALL_HINT = "rankframe's figures need matplotlib: pip install 'rankframe[report]'"

#: One colour per run (by its position in ``summary``), the same in every figure.
_PALETTE = (
    "#1f77b4",
    "#ff7f0e",
    "#2ca02c",
    "#d62728",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#7f7f7f",
    "#bcbd22",
    "#17becf",
)
_POSITIVE, _NEGATIVE, _TIE = "#2e8b57", "#c0392b", "#9e9e9e"

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


def _as_by(by: str | Sequence[str]) -> list[str]:
    return [by] if isinstance(by, str) else list(by)


def _require(df: pl.DataFrame, name: str, columns: Iterable[str]) -> None:
    missing = [c for c in columns if c not in df.columns]
    if missing:
        msg = (
            f"The {name} frame has no column {', '.join(map(repr, missing))}. "
            f"Available columns: {', '.join(map(repr, df.columns)) or '(none)'}."
        )
        raise InputError(msg)


def _strings(df: pl.DataFrame, columns: Iterable[str]) -> pl.DataFrame:
    casts = [pl.col(c).cast(pl.String) for c in columns if c in df.columns]
    return df.with_columns(casts) if casts else df


def _in_group(df: pl.DataFrame, group: Sequence[tuple[str, Any]]) -> pl.DataFrame:
    """The rows of ``df`` in one ``by`` group (columns that ``df`` lacks are not filtered on)."""
    conds = [pl.col(c).eq_missing(pl.lit(v)) for c, v in group if c in df.columns]
    return df.filter(*conds) if conds else df


def _groups(df: pl.DataFrame, by: list[str]) -> list[list[tuple[str, Any]]]:
    if not by:
        return [[]]
    return [list(zip(by, row, strict=True)) for row in df.select(by).unique(maintain_order=True).rows()]


def _group_label(group: Sequence[tuple[str, Any]]) -> str:
    return ", ".join(f"{c} = {v}" for c, v in group)


def _num(x: Any) -> float | None:
    if x is None:
        return None
    x = float(x)
    return None if math.isnan(x) else x


def _significant(pairs: pl.DataFrame, alpha: float) -> pl.Expr:
    """The ``significant`` column, or ``p_adjusted`` (or ``p_value``) below ``alpha`` without it."""
    if "significant" in pairs.columns:
        return pl.col("significant").fill_null(False)
    p = "p_adjusted" if "p_adjusted" in pairs.columns else "p_value"
    return (pl.col(p) < alpha).fill_null(False)


def _unique(df: pl.DataFrame | None, column: str) -> list[Any]:
    if df is None or column not in df.columns or df.height == 0:
        return []
    return [v for v in df[column].unique(maintain_order=True).to_list() if v is not None]


def _prepare(
    summary: pl.DataFrame, pairs: pl.DataFrame | None, by: str | Sequence[str]
) -> tuple[pl.DataFrame, pl.DataFrame | None, list[str]]:
    by_cols = _as_by(by)
    _require(summary, "summary", [*by_cols, "measure", "run", "mean"])
    summary = _strings(summary, ["run", "measure"])
    if pairs is not None:
        _require(pairs, "pairs", ["measure", "baseline", "run", "diff"])
        pairs = _strings(pairs, ["run", "baseline", "measure"])
    return summary, pairs, by_cols


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


def _fmt_p(p: Any, digits: int = 4) -> str:
    p = _num(p)
    if p is None:
        return "–"
    if p != 0 and p < 10.0 ** -(digits - 1):
        return f"{p:.1e}"
    return f"{p:.{digits}f}"


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


def _pairs_html(pairs: pl.DataFrame | None, by: list[str], alpha: float, digits: int) -> str:
    if pairs is None or pairs.height == 0:
        return "<p>No pairs were compared.</p>"
    e = html.escape
    pairs = pairs.with_columns(_significant(pairs, alpha).alias("_sig"))
    cols = [c for c in by if c in pairs.columns]
    text_cols = [*cols, "measure", "run", "baseline"]
    head = [*text_cols, "n", "Δ mean", "CI", "p", "p adj.", "effect size", "W/T/L", "sig."]
    out = ['<div class="wrap"><table class="pairs"><thead><tr>']
    out += [
        f'<th scope="col"{" class=t" if i < len(text_cols) else ""}>{e(h)}</th>' for i, h in enumerate(head)
    ]
    out.append("</tr></thead><tbody>")
    for row in pairs.iter_rows(named=True):
        diff = _num(row["diff"])
        lo, hi = _num(row.get("ci_low")), _num(row.get("ci_high"))
        es = _num(row.get("effect_size"))
        wtl = [row.get(k) for k in ("wins", "ties", "losses")]
        cells = [f"<td class=t>{e(str(row[c]))}</td>" for c in text_cols]
        num = [
            "" if row.get("n") is None else e(str(row["n"])),
            "–" if diff is None else f"{diff:+.{digits}f}",
            f"[{lo:+.{digits}f}, {hi:+.{digits}f}]" if lo is not None and hi is not None else "–",
            _fmt_p(row.get("p_value"), digits),
            _fmt_p(row.get("p_adjusted"), digits),
            "–" if es is None else f"{es:.3f}",
            "/".join("–" if v is None else str(v) for v in wtl),
            "✓" if row["_sig"] else "",
        ]
        cells += [f"<td>{c}</td>" for c in num]
        out.append(f"<tr{' class=sig' if row['_sig'] else ''}>" + "".join(cells) + "</tr>")
    out.append("</tbody></table></div>")
    tests = ", ".join(map(str, _unique(pairs, "test"))) or "significance test"
    corrs = ", ".join(map(str, _unique(pairs, "correction"))) or "none"
    out.append(
        f'<p class="legend">Δ mean: mean of run − baseline per query; CI: its confidence interval; '
        f"p adj.: p-value after the {e(corrs)} correction ({e(tests)}). Highlighted rows (✓) are "
        f"significant at α = {alpha:g}. W/T/L: queries where the run wins, ties, loses.</p>"
    )
    return "\n".join(out)


# --------------------------------------------------------------------------------------------
# Figures
# --------------------------------------------------------------------------------------------


def _mpl() -> tuple[type, type]:
    """``(Figure, FigureCanvasAgg)``, or an ImportError that says what to install."""
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError as exc:
        raise ImportError(_INSTALL_HINT) from exc
    return Figure, FigureCanvasAgg


def _new_figure(size: tuple[float, float]) -> Figure:
    figure_cls, canvas_cls = _mpl()
    fig = figure_cls(figsize=size, layout="constrained", dpi=100)
    canvas_cls(fig)  # an Agg canvas of its own: no pyplot, no global figure manager
    return fig


def _style(ax: Any) -> None:
    ax.grid(True, axis="y", color="#e3e3e3", linewidth=0.8)
    ax.set_axisbelow(True)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    ax.tick_params(labelsize=9)


def _title(ax: Any, text: str, size: float = 11) -> None:
    ax.set_title(text, fontsize=size, fontweight="bold", pad=8)


_SLUG_RE = re.compile(r"[^\w@.+=-]+")


def _slug(*parts: Any) -> str:
    return "-".join(_SLUG_RE.sub("_", str(p)).strip("_") or "_" for p in parts if str(p) != "")


def _group_slug(group: Sequence[tuple[str, Any]]) -> str:
    return "_".join(f"{c}={v}" for c, v in group)


def _add(figs: dict[str, Figure], key: str, fig: Figure) -> None:
    k, i = key, 2
    while k in figs:
        k, i = f"{key}-{i}", i + 1
    figs[k] = fig


def _diff_figure(
    per_query: pl.DataFrame,
    row: Mapping[str, Any],
    group: Sequence[tuple[str, Any]],
) -> Figure | None:
    import numpy as np
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    run, base, measure = row["run"], row["baseline"], row["measure"]
    sub = _in_group(per_query, group)
    sub = sub.filter(pl.col("measure") == measure)
    a = sub.filter(pl.col("run") == run).select("query_id", pl.col("value").alias("_a"))
    b = sub.filter(pl.col("run") == base).select("query_id", pl.col("value").alias("_b"))
    joined = (
        a.join(b, on="query_id", how="inner")
        .with_columns((pl.col("_a") - pl.col("_b")).alias("_d"))
        .sort("_d", "query_id")
    )
    if joined.height == 0:
        return None
    d = joined["_d"].to_numpy()
    qids = joined["query_id"].to_list()
    n = len(d)
    wins, ties, losses = (row.get(k) for k in ("wins", "ties", "losses"))
    if wins is None or ties is None or losses is None:
        wins, ties, losses = int((d > 0).sum()), int((d == 0).sum()), int((d < 0).sum())

    fig = _new_figure((5.8, 3.6))
    ax = fig.add_subplot()
    _style(ax)
    bar_colors = [_POSITIVE if v > 0 else _NEGATIVE if v < 0 else _TIE for v in d]
    x = np.arange(n)
    if n <= 300:
        ax.bar(x, d, width=0.9, color=bar_colors, linewidth=0)
    else:  # one area per sign instead of thousands of bars (keeps the SVG small)
        ax.fill_between(x, d, 0, where=d > 0, color=_POSITIVE, step="mid", linewidth=0)
        ax.fill_between(x, d, 0, where=d < 0, color=_NEGATIVE, step="mid", linewidth=0)
    ax.axhline(0, color="#333333", linewidth=0.8)
    if (d == 0).any():  # ties have no bar: mark them on the zero line
        ax.plot(x[d == 0], d[d == 0], linestyle="", marker="o", markersize=3, color=_TIE, zorder=3)
    mean = float(np.mean(d))
    ax.axhline(mean, color="#333333", linewidth=1.2, linestyle="--")
    title = f"{measure}: {run} vs {base}"
    if group:
        title += f" ({_group_label(group)})"
    _title(ax, title)
    ax.set_xlabel(f"queries, sorted by difference (n = {n})")
    ax.set_ylabel(f"Δ {measure} ({run} − {base})")
    ax.set_xlim(-0.7, n - 0.3)
    if n <= 30:
        ax.set_xticks(x, labels=qids, rotation=90, fontsize=7)
    else:  # too many to label: name the query at each end instead
        ax.set_xticks([])
        ax.margins(y=0.1)
        style = {"fontsize": 7, "color": "#444444"}
        if d[0] < 0:
            ax.annotate(
                f"q {qids[0]}",
                (0, d[0]),
                xytext=(6, 0),
                textcoords="offset points",
                ha="left",
                va="center",
                **style,
            )
        if d[-1] > 0:
            ax.annotate(
                f"q {qids[-1]}",
                (n - 1, d[-1]),
                xytext=(-6, 0),
                textcoords="offset points",
                ha="right",
                va="center",
                **style,
            )
    handles = [
        Patch(color=_POSITIVE, label=f"{run} better: {wins}"),
        Patch(color=_NEGATIVE, label=f"{base} better: {losses}"),
        Patch(color=_TIE, label=f"ties: {ties}"),
        Line2D([], [], color="#333333", linestyle="--", label=f"mean Δ = {mean:+.4f}"),
    ]
    ax.legend(handles=handles, loc="upper left", fontsize=8, frameon=True, framealpha=0.9)
    p = row.get("p_adjusted", row.get("p_value"))
    if _num(p) is not None:
        sig = row.get("significant")
        note = f"W/T/L {wins}/{ties}/{losses}   p adj. = {_fmt_p(p)}"
        if sig is not None:
            note += "  (significant)" if sig else "  (not significant)"
        ax.text(
            0.99,
            0.03,
            note,
            transform=ax.transAxes,
            ha="right",
            va="bottom",
            fontsize=8,
            bbox={"boxstyle": "round,pad=0.3", "facecolor": "white", "edgecolor": "#cccccc"},
        )
    return fig


def _dist_figure(
    per_query: pl.DataFrame,
    measure: str,
    runs: list[str],
    group: Sequence[tuple[str, Any]],
    colors: Mapping[str, str],
) -> Figure | None:
    import numpy as np
    from matplotlib.lines import Line2D

    sub = _in_group(per_query, group)
    sub = sub.filter(pl.col("measure") == measure)
    data = [(r, sub.filter(pl.col("run") == r)["value"].drop_nulls().drop_nans().to_numpy()) for r in runs]
    data = [(r, v) for r, v in data if len(v)]
    if not data:
        return None
    fig = _new_figure((max(4.6, 0.95 * len(data) + 2.9), 3.6))
    ax = fig.add_subplot()
    _style(ax)
    pos = np.arange(1, len(data) + 1)
    box = ax.boxplot(
        [v for _, v in data],
        positions=pos,
        widths=0.5,
        showfliers=False,
        patch_artist=True,
        medianprops={"color": "#222222", "linewidth": 1.4},
        whiskerprops={"color": "#555555"},
        capprops={"color": "#555555"},
    )
    rng = np.random.default_rng(0)
    handles = []
    for i, ((r, v), patch) in enumerate(zip(data, box["boxes"], strict=True)):
        c = colors.get(r, _PALETTE[i % len(_PALETTE)])
        patch.set_facecolor(c)
        patch.set_alpha(0.22)
        patch.set_edgecolor(c)
        xs = pos[i] + rng.uniform(-0.17, 0.17, len(v))
        ax.scatter(
            xs,
            v,
            s=14 if len(v) <= 500 else 5,
            color=c,
            alpha=0.75 if len(v) <= 500 else 0.35,
            edgecolors="none",
            zorder=3,
            rasterized=len(v) > 500,
        )
        ax.scatter(
            [pos[i]],
            [float(np.mean(v))],
            marker="D",
            s=36,
            color="white",
            edgecolors="#222222",
            linewidths=1.2,
            zorder=4,
        )
        handles.append(Line2D([], [], marker="o", linestyle="", color=c, label=f"{r} (n = {len(v)})"))
    handles.append(
        Line2D(
            [], [], marker="D", linestyle="", markerfacecolor="white", markeredgecolor="#222222", label="mean"
        )
    )
    ax.set_xticks(pos, labels=[r for r, _ in data])
    ax.set_xlim(0.4, len(data) + 0.6)
    title = f"Per-query {measure} by run"
    if group:
        title += f" ({_group_label(group)})"
    _title(ax, title)
    ax.set_xlabel("run")
    ax.set_ylabel(measure)
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, frameon=False)
    return fig


def _pr_figure(curves: pl.DataFrame, runs: list[str], colors: Mapping[str, str]) -> Figure | None:
    _require(curves, "curves", ["run", "recall", "precision"])
    curves = _strings(curves, ["run"])
    order = runs + [r for r in curves["run"].unique(maintain_order=True).to_list() if r not in runs]
    fig = _new_figure((5.8, 3.9))
    ax = fig.add_subplot()
    _style(ax)
    ax.grid(True, axis="x", color="#e3e3e3", linewidth=0.8)
    drawn = 0
    for i, r in enumerate(order):
        sub = curves.filter(pl.col("run") == r).sort("recall")
        if sub.height == 0:
            continue
        ax.plot(
            sub["recall"].to_numpy(),
            sub["precision"].to_numpy(),
            marker="o",
            markersize=4,
            linewidth=1.8,
            color=colors.get(r, _PALETTE[i % len(_PALETTE)]),
            label=r,
        )
        drawn += 1
    if not drawn:
        return None
    ax.set_xlim(-0.02, 1.02)
    ax.set_ylim(0, 1.02)
    ax.set_xticks([i / 10 for i in range(11)])
    _title(ax, "Interpolated precision–recall (11 points)")
    ax.set_xlabel("recall")
    ax.set_ylabel("interpolated precision")
    ax.legend(loc="upper right", fontsize=9)
    return fig


def _spread(ks: list[int], ratio: float = 3.0) -> set[int]:
    """Cutoffs to label on a log axis without touching labels.

    The last one, then going down, each at most ``1/ratio`` of the one labelled before it.
    """
    shown = [ks[-1]]
    for k in reversed(ks[:-1]):
        if k * ratio <= shown[-1]:
            shown.append(k)
    return set(shown)


def _cutoff_figure(cutoffs: pl.DataFrame, runs: list[str], colors: Mapping[str, str]) -> Figure | None:
    _require(cutoffs, "cutoffs", ["run", "measure", "k", "value"])
    cutoffs = _strings(cutoffs, ["run", "measure"])
    families = cutoffs["measure"].unique(maintain_order=True).to_list()
    if not families:
        return None
    order = runs + [r for r in cutoffs["run"].unique(maintain_order=True).to_list() if r not in runs]
    ncols = min(3, len(families))
    nrows = math.ceil(len(families) / ncols)
    fig = _new_figure((3.4 * ncols + 1.2, 3.0 * nrows + 0.5))
    axes = fig.subplots(nrows, ncols, squeeze=False).ravel()
    handles: dict[str, Any] = {}
    for ax, fam in zip(axes, families, strict=False):
        _style(ax)
        ax.grid(True, axis="x", color="#eeeeee", linewidth=0.6)
        sub = cutoffs.filter(pl.col("measure") == fam)
        ks = sorted(sub["k"].unique().drop_nulls().to_list())
        for i, r in enumerate(order):
            s = sub.filter(pl.col("run") == r).sort("k")
            if s.height == 0:
                continue
            (line,) = ax.plot(
                s["k"].to_numpy(),
                s["value"].to_numpy(),
                marker="o",
                markersize=4,
                linewidth=1.8,
                color=colors.get(r, _PALETTE[i % len(_PALETTE)]),
                label=r,
            )
            handles.setdefault(r, line)
        if ks and min(ks) > 0 and max(ks) / min(ks) >= 8:
            ax.set_xscale("log")
            ax.minorticks_off()
        if ks:
            ax.set_xticks(ks, labels=[str(k) if k in _spread(ks) else "" for k in ks])
        _title(ax, fam, size=10.5)
        ax.set_xlabel("cutoff k")
        ax.set_ylabel(f"mean {fam}@k")
    for ax in axes[len(families) :]:
        fig.delaxes(ax)
    fig.suptitle("Mean measure by cutoff", fontsize=12, fontweight="bold")
    fig.legend(
        handles=list(handles.values()),
        labels=list(handles),
        loc="outside right upper",
        fontsize=9,
        frameon=False,
    )
    return fig


def figures(
    summary: pl.DataFrame,
    pairs: pl.DataFrame | None,
    per_query: pl.DataFrame,
    *,
    curves: pl.DataFrame | None = None,
    cutoffs: pl.DataFrame | None = None,
    by: str | Sequence[str] = (),
) -> dict[str, Figure]:
    """Draw the comparison's figures with matplotlib.

    Parameters
    ----------
    summary
        As in :func:`format_table` (gives the order of runs and measures, and the groups).
    pairs
        As in :func:`format_table`; each row gives a per-query difference figure.
    per_query
        ``[*by], run, query_id, measure, value``: one value per query, run and measure.
    curves
        ``run, recall, precision``: mean interpolated precision at the 11 recall levels, or
        ``None`` (no precision–recall figure).
    cutoffs
        ``run, measure, k, value``: mean of a measure family (``"nDCG"``, ``"P"``...) at several
        cutoffs ``k``, or ``None`` (no cutoff figure).
    by
        Group columns: with groups, the difference and distribution figures are drawn per group.

    Returns
    -------
    dict[str, matplotlib.figure.Figure]
        Figures by stable key, in this order:

        * ``"diff-<measure>-<run>-vs-<baseline>"``: per-query differences, sorted, for each pair
          row (groups: ``"diff-<col>=<value>-<measure>-..."``), at most :data:`MAX_DIFF_FIGURES`
          (12) in the order of the ``pairs`` rows;
        * ``"dist-<measure>"``: per-query distribution of each measure per run (box plot with
          jittered points and the mean), one per measure (and group);
        * ``"pr-curves"``: interpolated precision–recall curves, when ``curves`` is given;
        * ``"cutoffs"``: measure vs cutoff, one panel per measure family, when ``cutoffs`` is given.

    Raises
    ------
    ImportError
        When matplotlib is not installed.

    Notes
    -----
    Figures are plain :class:`matplotlib.figure.Figure` objects with an Agg canvas: pyplot is
    not used, so nothing is registered globally and no figure needs closing. Each run keeps its
    colour in every figure.
    """
    _mpl()
    summary, pairs, by_cols = _prepare(summary, pairs, by)
    _require(per_query, "per_query", ["run", "query_id", "measure", "value"])
    per_query = _strings(per_query, ["run", "query_id", "measure"])
    runs = summary["run"].unique(maintain_order=True).to_list()
    runs += [r for r in per_query["run"].unique(maintain_order=True).to_list() if r not in runs]
    colors = {r: _PALETTE[i % len(_PALETTE)] for i, r in enumerate(runs)}
    measures = summary["measure"].unique(maintain_order=True).to_list()
    groups = _groups(summary, by_cols)

    figs: dict[str, Figure] = {}
    count = 0
    for group in groups if pairs is not None else []:
        for row in _in_group(pairs, group).iter_rows(named=True):
            if count >= MAX_DIFF_FIGURES:
                break
            fig = _diff_figure(per_query, row, group)
            if fig is not None:
                _add(
                    figs,
                    _slug("diff", _group_slug(group), row["measure"], row["run"], "vs", row["baseline"]),
                    fig,
                )
                count += 1
    for group in groups:
        sub = _in_group(summary, group)
        present = set(sub["run"].to_list())
        group_runs = [r for r in runs if r in present]
        for m in measures:
            if m not in set(sub["measure"].to_list()):
                continue
            fig = _dist_figure(per_query, m, group_runs, group, colors)
            if fig is not None:
                _add(figs, _slug("dist", _group_slug(group), m), fig)
    if curves is not None and curves.height:
        fig = _pr_figure(curves, runs, colors)
        if fig is not None:
            _add(figs, "pr-curves", fig)
    if cutoffs is not None and cutoffs.height:
        fig = _cutoff_figure(cutoffs, runs, colors)
        if fig is not None:
            _add(figs, "cutoffs", fig)
    return figs


_UNSAFE_FILE_RE = re.compile(r'[<>:"/\\|?*\x00-\x1f\s]+')


def _file_stem(key: str) -> str:
    stem = _UNSAFE_FILE_RE.sub("_", key).strip(" ._")
    return stem[:200] or "figure"


def save_figures(
    figs: Mapping[str, Figure],
    directory: str | Path,
    formats: str | Sequence[str] = ("png", "svg"),
) -> list[Path]:
    """Write figures to files named after their keys.

    Parameters
    ----------
    figs
        Figures by key, as returned by :func:`figures`.
    directory
        Where to write (created when missing).
    formats
        File formats (extensions) matplotlib can write: ``"png"`` (150 dpi), ``"svg"``, ``"pdf"``...

    Returns
    -------
    list[pathlib.Path]
        The written files, figure by figure and format by format. A key's characters that file
        systems do not accept (``/``, ``:``, spaces...) become ``_``.
    """
    formats = [formats] if isinstance(formats, str) else list(formats)
    out_dir = Path(directory)
    out_dir.mkdir(parents=True, exist_ok=True)
    paths: list[Path] = []
    used: set[str] = set()
    for key, fig in figs.items():
        stem, i = _file_stem(key), 2
        while stem.lower() in used:
            stem, i = f"{_file_stem(key)}-{i}", i + 1
        used.add(stem.lower())
        for ext in formats:
            ext = ext.lower().lstrip(".")
            path = out_dir / f"{stem}.{ext}"
            kwargs: dict[str, Any] = {"format": ext}
            if ext == "png":
                kwargs["dpi"] = 150
            if ext == "svg":
                kwargs["metadata"] = {"Date": None}
            fig.savefig(path, **kwargs)
            paths.append(path)
    return paths


# --------------------------------------------------------------------------------------------
# HTML report
# --------------------------------------------------------------------------------------------

_CSS = """
:root { color-scheme: light; }
* { box-sizing: border-box; }
body { margin: 0; background: #ffffff; color: #1f2328;
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", Arial, sans-serif; }
main { max-width: 1120px; margin: 0 auto; padding: 28px 32px 56px; }
h1 { font-size: 1.75em; margin: 0 0 .4em; }
h2 { font-size: 1.3em; margin: 2em 0 .6em; padding-bottom: .25em; border-bottom: 1px solid #d0d7de; }
h3 { font-size: 1.05em; margin: 1.4em 0 .4em; }
dl.meta { display: grid; grid-template-columns: max-content 1fr; gap: 2px 18px; margin: 0;
  padding: 10px 16px; background: #f6f8fa; border: 1px solid #d8dee4; border-radius: 6px; font-size: .9em; }
dl.meta dt { font-weight: 600; color: #57606a; }
dl.meta dd { margin: 0; overflow-wrap: anywhere; }
.wrap { overflow-x: auto; }
table { border-collapse: collapse; margin: .4em 0; font-variant-numeric: tabular-nums; font-size: .92em; }
caption { caption-side: top; text-align: left; font-weight: 600; padding: 4px 0; }
th, td { padding: 5px 12px; text-align: right; white-space: nowrap; border-bottom: 1px solid #e1e4e8; }
thead th { border-bottom: 2px solid #1f2328; font-weight: 600; }
th[scope=row], th.t, td.t { text-align: left; }
table.results th[scope=row] { font-weight: 600; }
tbody tr:nth-child(even) { background: #f6f8fa; }
table.pairs tr.sig { background: #e9f6ec; }
.letter { color: #57606a; font-weight: 400; }
sup.sig { color: #1a7f37; font-weight: 700; margin-left: 1px; }
.ci { color: #6e7781; font-size: .86em; }
td.best b { color: #000000; }
.legend { color: #57606a; font-size: .85em; margin: .2em 0 1em; }
.figs { display: grid; grid-template-columns: repeat(auto-fill, minmax(500px, 1fr)); gap: 18px 22px; }
figure { margin: 0; padding: 8px; border: 1px solid #e1e4e8; border-radius: 6px; background: #ffffff; }
figure.wide { grid-column: 1 / -1; }
figure svg { display: block; width: 100%; height: auto; }
figcaption { color: #57606a; font-size: .85em; margin-top: 4px; }
footer { margin-top: 3em; color: #8c959f; font-size: .8em; }
"""

_SVG_META_RE = re.compile(r"<metadata>.*?</metadata>\s*", re.DOTALL)


def _svg(fig: Figure, label: str, prefix: str) -> str:
    """The figure as an ``<svg>`` element for inlining, its ids prefixed to stay unique in the page."""
    buf = io.StringIO()
    fig.savefig(buf, format="svg", metadata={"Date": None})
    text = buf.getvalue()
    text = text[text.find("<svg") :]
    text = _SVG_META_RE.sub("", text, count=1)
    text = re.sub(r'\bid="([^"]+)"', lambda m: f'id="{prefix}{m.group(1)}"', text)
    text = re.sub(r"url\(#([^)]+)\)", lambda m: f"url(#{prefix}{m.group(1)})", text)
    text = re.sub(r'href="#([^"]+)"', lambda m: f'href="#{prefix}{m.group(1)}"', text)
    return text.replace("<svg", f'<svg role="img" aria-label="{html.escape(label)}"', 1)


def _caption(key: str) -> tuple[str, str]:
    """``(section, caption)`` for a figure key."""
    if key.startswith("diff-"):
        return "Per-query differences", (
            "Difference per query (run − baseline), queries sorted by difference; green: the run is "
            "better, red: the baseline is better; dashed line: mean difference."
        )
    if key.startswith("dist-"):
        return "Distributions", "Per-query values by run: box (quartiles, median), points (queries), ◇ mean."
    if key == "pr-curves":
        return "Precision–recall", "Mean interpolated precision at the 11 standard recall levels."
    if key == "cutoffs":
        return "Cutoffs", "Mean measure at each cutoff k, one panel per measure family."
    return "Figures", ""


def html_report(
    summary: pl.DataFrame,
    pairs: pl.DataFrame | None,
    per_query: pl.DataFrame,
    *,
    curves: pl.DataFrame | None = None,
    cutoffs: pl.DataFrame | None = None,
    by: str | Sequence[str] = (),
    title: str = "rankframe comparison",
    alpha: float = 0.05,
    meta: Mapping[str, str] | None = None,
    digits: int = 4,
) -> str:
    """Build one self-contained HTML document with the results table, pair tests and figures.

    Parameters
    ----------
    summary, pairs, per_query, curves, cutoffs, by
        As in :func:`format_table` and :func:`figures`.
    title
        The document's title and heading.
    alpha
        The significance level named in the legends (and used for rows without ``significant``).
    meta
        Facts shown under the title as a definition list (qrels path, runs, test, date...). When
        ``None``: the runs, measures, tests and corrections found in the frames.
    digits
        Decimals of means, differences and confidence bounds.

    Returns
    -------
    str
        The HTML document. It loads nothing: CSS is inline and each figure is inline SVG (no
        script, no external ``src`` or ``href``), so it can be opened offline or mailed.

    Raises
    ------
    ImportError
        When matplotlib is not installed.
    """
    figs = figures(summary, pairs, per_query, curves=curves, cutoffs=cutoffs, by=by)
    summary, pairs, by_cols = _prepare(summary, pairs, by)
    e = html.escape
    if meta is None:
        meta = {
            "runs": ", ".join(summary["run"].unique(maintain_order=True).to_list()),
            "measures": ", ".join(summary["measure"].unique(maintain_order=True).to_list()),
        }
        if pairs is not None and pairs.height:
            meta["test"] = ", ".join(map(str, _unique(pairs, "test"))) or "–"
            meta["correction"] = ", ".join(map(str, _unique(pairs, "correction"))) or "–"
        meta["alpha"] = f"{alpha:g}"
    try:
        from rankframe import __version__ as version
    except ImportError:  # pragma: no cover - only while the package is half-imported
        version = ""

    parts = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{e(title)}</title>",
        f"<style>{_CSS}</style>",
        "</head>",
        "<body><main>",
        f"<h1>{e(title)}</h1>",
    ]
    if meta:
        parts.append('<dl class="meta">')
        parts += [f"<dt>{e(str(k))}</dt><dd>{e(str(v))}</dd>" for k, v in meta.items()]
        parts.append("</dl>")
    parts.append("<h2>Results</h2>")
    parts.append(format_table(summary, pairs, fmt="html", by=by_cols, digits=digits, alpha=alpha))
    parts.append("<h2>Pairwise tests</h2>")
    parts.append(_pairs_html(pairs, by_cols, alpha, digits))

    section = None
    for index, (key, fig) in enumerate(figs.items()):
        sec, caption = _caption(key)
        if sec != section:
            if section is not None:
                parts.append("</div>")
            parts += [f"<h2>{e(sec)}</h2>", '<div class="figs">']
            section = sec
        label = fig.axes[0].get_title() if fig.axes else key
        wide = ' class="wide"' if key in {"cutoffs"} else ""
        parts.append(
            f'<figure id="{e(key)}"{wide}>{_svg(fig, label, f"fig{index}-")}'
            f"<figcaption><b>{e(key)}</b>: {e(caption)}</figcaption></figure>"
        )
    if section is not None:
        parts.append("</div>")
    parts.append(f"<footer>Generated by rankframe {e(version)}.</footer>")
    parts.append("</main></body></html>")
    return "\n".join(parts) + "\n"
