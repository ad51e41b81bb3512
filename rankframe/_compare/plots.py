"""The report's matplotlib drawings: per-query differences, distributions, PR curves, cutoffs.

matplotlib (``pip install 'rankframe[report]'``) is imported only when a figure is drawn; each
figure gets an Agg canvas of its own (no pyplot, nothing registered globally). Figures are sized
from their texts, so that any run names and number of runs fit (see the layout notes below).
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import polars as pl

from rankframe._compare.frames import _fmt_p, _group_label, _in_group, _num, _require, _strings

if TYPE_CHECKING:
    from matplotlib.figure import Figure

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


# Layout. Sizes are in inches, font sizes in points. Each figure is sized from its texts'
# measured widths (run names, titles, legend entries): names wrap to the room they have, legends
# sit under the axes in as many columns as fit, and the figure grows by what it holds, so that
# no text leaves the figure or runs into another whatever the runs' names and number
# (tests/test_report.py checks every drawn text's extent). Constrained layout places the parts.
_WIDTH = 5.2  # a figure of the report's two-column grid: 499 CSS px
_MAX_WIDTH = 11.0  # the report's column: 1056 CSS px
_AXES_HEIGHT = 2.2  # about the axes' height in a figure of _WIDTH
_TICK_SIZE, _LABEL_SIZE, _TITLE_SIZE, _LEGEND_SIZE = 9.0, 10.0, 11.0, 8.0
_BREAK_RE = re.compile(r"(?<=[\s\-_/=,:;|+])|(?<=\.)(?!\d)")  # after separators; not in 0.75
_ELLIPSIS = "…"
_MEASURE_DPI = 300  # fine enough that hinting (whole pixels per glyph) barely changes a width


@functools.cache
def _renderer() -> Any:
    from matplotlib.backends.backend_agg import RendererAgg

    return RendererAgg(1, 1, _MEASURE_DPI)


@functools.cache
def _text_width(text: str, size: float, weight: str = "normal") -> float:
    """Width in inches of ``text`` (its longest line) in the default font at ``size`` points."""
    from matplotlib.font_manager import FontProperties

    prop = FontProperties(size=size, weight=weight)
    widths = (_renderer().get_text_width_height_descent(s, prop, ismath=False)[0] for s in text.split("\n"))
    return max(widths) / _MEASURE_DPI


def _wrap(text: str, width: float, size: float, weight: str = "normal", max_lines: int = 0) -> str:
    """``text`` broken into lines no wider than ``width`` inches.

    Lines break after spaces and separators (``-``, ``_``, ``/``, ``=``...), inside a word only
    where one is wider than a line. With ``max_lines``, the last line kept ends in an ellipsis.
    """
    if _text_width(text, size, weight) <= width:
        return text
    pieces = []
    for piece in (p for p in _BREAK_RE.split(text) if p):
        while _text_width(piece, size, weight) > width and len(piece) > 1:  # a long word: split it
            cut = 1
            while cut < len(piece) and _text_width(piece[: cut + 1], size, weight) <= width:
                cut += 1
            pieces.append(piece[:cut])
            piece = piece[cut:]
        pieces.append(piece)
    lines = [""]
    for piece in pieces:
        if lines[-1] and _text_width(lines[-1] + piece.rstrip(), size, weight) > width:
            lines.append(piece.lstrip())
        else:
            lines[-1] += piece
    lines = [line.rstrip() for line in lines]
    if max_lines and len(lines) > max_lines:
        last = lines[max_lines - 1]
        while last and _text_width(last + _ELLIPSIS, size, weight) > width:
            last = last[:-1]
        lines = [*lines[: max_lines - 1], last.rstrip() + _ELLIPSIS]
    return "\n".join(lines)


def _lines(text: str) -> int:
    return text.count("\n") + 1


def _extra_height(texts: Sequence[str], size: float, leading: float = 1.25) -> float:
    """Inches that the lines of the tallest of ``texts`` take beyond its first."""
    return (max(map(_lines, texts)) - 1) * size * leading / 72


def _legend_below(
    fig: Figure, handles: Sequence[Any], labels: Sequence[str] | None = None, *, title: str | None = None
) -> float:
    """A figure legend under the axes, in as many columns as fit its width; its height in inches.

    ``labels``: the handles' own by default. Labels wider than the figure are wrapped. Entries
    fill columns first, as matplotlib's do.
    """
    if labels is None:
        labels = [h.get_label() for h in handles]
    size = _LEGEND_SIZE
    em = size / 72
    width = fig.get_figwidth() - 4 * em  # borderpad and a margin on each side
    marker = (2.0 + 0.8) * em  # handlelength + handletextpad
    labels = [_wrap(label, width - marker, size) for label in labels]
    column = max(_text_width(label, size) for label in labels) + marker
    spacing = 2.0 * em  # columnspacing
    ncols = max(1, min(len(labels), int((width + spacing) // (column + spacing))))
    rows = math.ceil(len(labels) / ncols)
    ncols = math.ceil(len(labels) / rows)
    if title:
        title = _wrap(title, width, size)
    fig.legend(
        handles=list(handles),
        labels=labels,
        loc="outside lower center",
        ncols=ncols,
        fontsize=size,
        title=title,
        title_fontsize=size,
        frameon=False,
    )
    columns, start = [], 0  # matplotlib's split: the first len % ncols columns one entry longer
    for j in range(ncols):
        count = len(labels) // ncols + (j < len(labels) % ncols)
        columns.append(labels[start : start + count])
        start += count
    lines = sum(max(_lines(c[r]) for c in columns if r < len(c)) for r in range(rows))
    lines += _lines(title) if title else 0
    # a line is about 1.25 em; 0.5 em between rows (labelspacing); padding and margin 1.2 em
    return (lines * 1.25 + (rows - 1) * 0.5 + 1.2) * em


def _style(ax: Any) -> None:
    ax.grid(True, axis="y", color="#e3e3e3", linewidth=0.8)
    ax.set_axisbelow(True)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    ax.tick_params(labelsize=_TICK_SIZE)


def _title(ax: Any, text: str, size: float = _TITLE_SIZE) -> None:
    ax.set_title(text, fontsize=size, fontweight="bold", pad=8)


def _title_lines(*parts: str, width: float, size: float = _TITLE_SIZE) -> str:
    """A bold title on one line when it fits in ``width`` inches, else each part wrapped on its own."""
    parts = tuple(p for p in parts if p)
    one = " ".join(parts)
    if _text_width(one, size, "bold") <= width:
        return one
    return "\n".join(_wrap(p, width, size, "bold") for p in parts)


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

    fig = _new_figure((_WIDTH, 3.3))
    ax = fig.add_subplot()
    _style(ax)
    bar_colors = [_POSITIVE if v > 0 else _NEGATIVE if v < 0 else _TIE for v in d]
    x = np.arange(n)
    if n <= 300:  # the bars as one collection: ax.bar adds a patch per query (~10 ms each)
        from matplotlib.collections import PolyCollection

        edges = np.column_stack([x - 0.45, x + 0.45])
        bars = PolyCollection(
            [[(x0, 0.0), (x0, v), (x1, v), (x1, 0.0)] for (x0, x1), v in zip(edges, d, strict=True)],
            facecolors=bar_colors,
            linewidths=0,
        )
        bars.sticky_edges.y.append(0.0)  # as a bar's base: no margin below zero
        ax.add_collection(bars, autolim=True)
        ax.autoscale_view()
    else:  # one area per sign instead of thousands of bars (keeps the SVG small)
        ax.fill_between(x, d, 0, where=d > 0, color=_POSITIVE, step="mid", linewidth=0)
        ax.fill_between(x, d, 0, where=d < 0, color=_NEGATIVE, step="mid", linewidth=0)
    ax.axhline(0, color="#333333", linewidth=0.8)
    if (d == 0).any():  # ties have no bar: mark them on the zero line
        ax.plot(x[d == 0], d[d == 0], linestyle="", marker="o", markersize=3, color=_TIE, zorder=3)
    mean = float(np.mean(d))
    ax.axhline(mean, color="#333333", linewidth=1.2, linestyle="--")
    title = _title_lines(
        f"{measure}: {run}", f"vs {base}", f"({_group_label(group)})" if group else "", width=_WIDTH - 1.0
    )
    _title(ax, title)
    ax.set_xlabel(f"queries, sorted by difference (n = {n})")
    ylabel = f"Δ {measure} ({run} − {base})"
    if _text_width(ylabel, _LABEL_SIZE) > _AXES_HEIGHT:  # the runs are named in the title
        ylabel = _wrap(f"Δ {measure} (run − baseline)", _AXES_HEIGHT, _LABEL_SIZE)
    ax.set_ylabel(ylabel)
    ax.set_xlim(-0.7, n - 0.3)
    ids_height = 0.0
    if n <= 30:
        ax.set_xticks(x, labels=qids, rotation=90, fontsize=7)
        ids_height = max(_text_width(str(q), 7) for q in qids) - 0.15  # the ids stand upright
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
    note = None
    p = row.get("p_adjusted", row.get("p_value"))
    if _num(p) is not None:
        sig = row.get("significant")
        note = f"W/T/L {wins}/{ties}/{losses}, p adj. = {_fmt_p(p)}"
        if sig is not None:
            note += " (significant)" if sig else " (not significant)"
    legend = _legend_below(fig, handles, title=note)
    fig.set_size_inches(_WIDTH, 3.3 + _extra_height([title], _TITLE_SIZE) + legend + max(0.0, ids_height))
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
    # Each run's slot is as wide as its name, within limits: up to 4 runs, the figure keeps to
    # the report's grid (_WIDTH, slots of 1 in or more); with more, slots go up to 1.4 in and
    # the figure up to the report's column. Names wrap to their slot, on 3 lines at most (the
    # legend has them whole).
    k = len(data)
    longest = max(_text_width(r, _TICK_SIZE) for r, _ in data)
    grid = (_WIDTH - 0.95) / (k + 0.2)
    slot = min(max(longest + 0.15, 0.7), grid if grid >= 1.0 else 1.4)
    width = min(max(0.95 + (k + 0.2) * slot, 4.2), _MAX_WIDTH)
    slot = (width - 0.95) / (k + 0.2)
    ticks = [_wrap(r, slot - 0.12, _TICK_SIZE, max_lines=3) for r, _ in data]
    fig = _new_figure((width, 3.3))
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
    ax.set_xticks(pos, labels=ticks)
    ax.set_xlim(0.4, k + 0.6)
    title = _title_lines(
        f"Per-query {measure} by run", f"({_group_label(group)})" if group else "", width=width - 1.0
    )
    _title(ax, title)
    ax.set_xlabel("run")
    ax.set_ylabel(_wrap(measure, _AXES_HEIGHT, _LABEL_SIZE))
    legend = _legend_below(fig, handles)
    extra = _extra_height(ticks, _TICK_SIZE, 1.2) + _extra_height([title], _TITLE_SIZE)
    fig.set_size_inches(width, 3.3 + extra + legend)
    return fig


def _pr_figure(curves: pl.DataFrame, runs: list[str], colors: Mapping[str, str]) -> Figure | None:
    _require(curves, "curves", ["run", "recall", "precision"])
    curves = _strings(curves, ["run"])
    order = runs + [r for r in curves["run"].unique(maintain_order=True).to_list() if r not in runs]
    fig = _new_figure((_WIDTH, 3.5))
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
    handles, labels = ax.get_legend_handles_labels()
    fig.set_size_inches(_WIDTH, 3.5 + _legend_below(fig, handles, labels))
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
    width = max(3.0 * ncols + 0.4, 4.2)
    fig = _new_figure((width, 2.8 * nrows + 0.5))
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
    fig.suptitle("Mean measure by cutoff", fontsize=_TITLE_SIZE + 1, fontweight="bold")
    legend = _legend_below(fig, list(handles.values()), list(handles))
    fig.set_size_inches(width, 2.8 * nrows + 0.5 + legend)
    return fig
