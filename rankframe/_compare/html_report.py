"""The self-contained HTML report: results table, pairwise tests and figures as inline SVG, inline CSS."""

from __future__ import annotations

import html
import io
import math
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import polars as pl

from rankframe._compare.figures import figures
from rankframe._compare.frames import _fmt_p, _num, _prepare, _significant, _unique
from rankframe._compare.tables import format_table
from rankframe._version import __version__

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def _pairs_html(pairs: pl.DataFrame | None, by: list[str], alpha: float, digits: int) -> str:
    if pairs is None or pairs.height == 0:
        return "<p>No pairs were compared.</p>"
    e = html.escape
    pairs = pairs.with_columns(_significant(pairs, alpha).alias("_sig"))
    cols = [c for c in by if c in pairs.columns]
    text_cols = [*cols, "measure", "run", "baseline"]
    head = [*text_cols, "n", "Δ mean", "CI", "p", "p adj.", "effect size", "W/T/L", "sig."]
    out = ['<div class="wrap"><table class="pairs"><thead><tr>']
    names = {"run", "baseline"}  # wrap anywhere: a name may have no space or hyphen to wrap at
    kinds = [' class="t name"' if c in names else " class=t" for c in text_cols]
    out += [f'<th scope="col"{kinds[i] if i < len(kinds) else ""}>{e(h)}</th>' for i, h in enumerate(head)]
    out.append("</tr></thead><tbody>")
    for row in pairs.iter_rows(named=True):
        diff = _num(row["diff"])
        lo, hi = _num(row.get("ci_low")), _num(row.get("ci_high"))
        es = _num(row.get("effect_size"))
        wtl = [row.get(k) for k in ("wins", "ties", "losses")]
        cells = [f"<td{kind}>{e(str(row[c]))}</td>" for kind, c in zip(kinds, text_cols, strict=True)]
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
.wrap { overflow-x: auto; }  /* a last resort: the tables below wrap to fit the page */
table { border-collapse: collapse; margin: .4em 0; font-variant-numeric: tabular-nums; font-size: .92em; }
caption { caption-side: top; text-align: left; font-weight: 600; padding: 4px 0; }
th, td { padding: 4px 8px; text-align: right; white-space: nowrap; border-bottom: 1px solid #e1e4e8; }
thead th { border-bottom: 2px solid #1f2328; font-weight: 600; white-space: normal; }
th[scope=row], th.t, td.t { text-align: left; }
/* text wraps rather than widen the page; run names at a hyphen, or anywhere when they have none */
th[scope=row], td.t { white-space: normal; }
th[scope=row], td.name { overflow-wrap: anywhere; min-width: 7em; }
table.results td { white-space: normal; }
table.results td .ci { white-space: nowrap; }
table.results th[scope=row] { font-weight: 600; }
tbody tr:nth-child(even) { background: #f6f8fa; }
table.pairs tr.sig { background: #e9f6ec; }
.letter { color: #57606a; font-weight: 400; white-space: nowrap; }
sup.sig { color: #1a7f37; font-weight: 700; margin-left: 1px; }
.ci { color: #6e7781; font-size: .86em; }
td.best b { color: #000000; }
.legend { color: #57606a; font-size: .85em; margin: .2em 0 1em; }
.figs { display: grid; grid-template-columns: repeat(auto-fill, minmax(min(100%, 420px), 1fr));
  gap: 18px 22px; align-items: start; }
figure { margin: 0; padding: 8px; border: 1px solid #e1e4e8; border-radius: 6px; background: #ffffff;
  min-width: 0; }
figure.wide { grid-column: 1 / -1; }
/* a figure at its natural size (the max-width set on each), smaller where the page is narrower */
figure svg { display: block; width: 100%; height: auto; margin: 0 auto; }
figcaption { color: #57606a; font-size: .85em; margin-top: 4px; overflow-wrap: anywhere; }
footer { margin-top: 3em; color: #8c959f; font-size: .8em; }
"""

_SVG_META_RE = re.compile(r"<metadata>.*?</metadata>\s*", re.DOTALL)


#: A figure wider than this (CSS px) takes a row of the report's grid to itself.
_WIDE_PX = 520


def _width_px(fig: Figure) -> int:
    """The figure's natural width in CSS pixels (96 per inch; its SVG's width is in points)."""
    return math.ceil(fig.get_figwidth() * 96)


def _svg(fig: Figure, label: str, prefix: str) -> str:
    """The figure as an ``<svg>`` element for inlining, its ids prefixed to stay unique in the page.

    Its ``max-width`` is its natural width: it shrinks with the page, never grows past its size.
    """
    buf = io.StringIO()
    fig.savefig(buf, format="svg", metadata={"Date": None})
    text = buf.getvalue()
    text = text[text.find("<svg") :]
    text = _SVG_META_RE.sub("", text, count=1)
    text = re.sub(r'\bid="([^"]+)"', lambda m: f'id="{prefix}{m.group(1)}"', text)
    text = re.sub(r"url\(#([^)]+)\)", lambda m: f"url(#{prefix}{m.group(1)})", text)
    text = re.sub(r'href="#([^"]+)"', lambda m: f'href="#{prefix}{m.group(1)}"', text)
    attrs = f'role="img" aria-label="{html.escape(label)}" style="max-width: {_width_px(fig)}px"'
    return text.replace("<svg", f"<svg {attrs}", 1)


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
            "runs": ", ".join(map(str, summary["run"].unique(maintain_order=True).to_list())),
            "measures": ", ".join(summary["measure"].unique(maintain_order=True).to_list()),
        }
        if pairs is not None and pairs.height:
            meta["test"] = ", ".join(map(str, _unique(pairs, "test"))) or "–"
            meta["correction"] = ", ".join(map(str, _unique(pairs, "correction"))) or "–"
        meta["alpha"] = f"{alpha:g}"
    version = __version__

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
        label = " ".join(fig.axes[0].get_title().split()) if fig.axes else key  # titles wrap
        wide = ' class="wide"' if _width_px(fig) > _WIDE_PX else ""
        parts.append(
            f'<figure id="{e(key)}"{wide}>{_svg(fig, label, f"fig{index}-")}'
            f"<figcaption><b>{e(key)}</b>: {e(caption)}</figcaption></figure>"
        )
    if section is not None:
        parts.append("</div>")
    parts.append(f"<footer>Generated by rankframe {e(version)}.</footer>")
    parts.append("</main></body></html>")
    return "\n".join(parts) + "\n"
