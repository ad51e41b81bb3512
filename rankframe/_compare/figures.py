"""The figures of a comparison: which are drawn, under which keys, and saving them to files."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from rankframe._compare.frames import _groups, _in_group, _prepare, _require, _strings
from rankframe._compare.plots import (
    _PALETTE,
    _cutoff_figure,
    _diff_figure,
    _dist_figure,
    _mpl,
    _pr_figure,
)
from rankframe._io.atomic import atomic_path, check_folder

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: At most this many per-query difference figures are drawn by :func:`figures`: one per row of
#: ``pairs`` (a measure and two runs), in the order of the rows, over all groups; the rest are
#: left out (save or plot them yourself from ``per_query``).
MAX_DIFF_FIGURES = 12


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

    Each figure is sized from its text, for any run names and number of runs: titles and names
    wrap (a distribution figure's tick labels on at most three lines, ending in "…" where cut;
    its legend names each run whole), legends lie under the axes in as many columns as fit, and
    a figure is at most 11 in wide (the HTML report's column). No text leaves the figure or
    overlaps another, on screen, in the report's SVG or in :func:`save_figures`' files.
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
    check_folder(out_dir)  # a file in the way, a read-only folder: OutputError naming it
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
            with atomic_path(path) as tmp:  # complete at the destination, or absent
                fig.savefig(tmp, **kwargs)
            paths.append(path)
    return paths
