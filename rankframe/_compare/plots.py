"""The report's matplotlib drawings: per-query differences, distributions, PR curves, cutoffs.

matplotlib (``pip install 'rankframe[report]'``) is imported only when a figure is drawn; each
figure gets an Agg canvas of its own (no pyplot, nothing registered globally).
"""

from __future__ import annotations

import math
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


def _style(ax: Any) -> None:
    ax.grid(True, axis="y", color="#e3e3e3", linewidth=0.8)
    ax.set_axisbelow(True)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    ax.tick_params(labelsize=9)


def _title(ax: Any, text: str, size: float = 11) -> None:
    ax.set_title(text, fontsize=size, fontweight="bold", pad=8)


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
