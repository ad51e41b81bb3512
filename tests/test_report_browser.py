"""The HTML report in a real browser (headless Chromium): laid out for any run names and runs.

Two reports, two runs named with 40 characters and eight runs, are loaded at 1400 and 1024 CSS
px with a script that reports, into the DOM that ``--dump-dom`` prints, what a reader would see
as broken: a page wider than the window, an element past its right edge, a table scrolling
sideways, the pairwise table's "sig." column out of view, a figure drawn larger than its natural
size. Then each report is photographed, full page, by ``docs/screenshot.py``'s functions; with
``RANKFRAME_UPDATE_SCREENSHOTS=1`` the pictures go to the docs::

    RANKFRAME_UPDATE_SCREENSHOTS=1 pytest tests/test_report_browser.py

Chromium is Debian's ``chromium`` package; without it the module is skipped.
"""

from __future__ import annotations

import html
import json
import os
import re
import tempfile
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

import rankframe as rf
from tests.test_report import CHROMIUM, QRELS, ROOT, eight_runs, long_name_runs, screenshot_module

pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="Chromium is not installed (Debian: apt-get install -y chromium)"
)

WIDTHS = (1400, 1024)
CASES = {
    "two-long-names": long_name_runs,
    "eight-runs": eight_runs,
}
SCREENSHOTS = ROOT / "docs" / "screenshots"
UPDATE = os.environ.get("RANKFRAME_UPDATE_SCREENSHOTS") == "1"

# Runs once the page is parsed (everything is inline: styles and figures are laid out by then).
# Elements inside an <svg> are left out: the figure clips them, and the <svg> itself is checked.
_PROBE = """<script>document.addEventListener('DOMContentLoaded', function () {
  var root = document.documentElement, width = root.clientWidth;
  function name(el) {
    var s = el.tagName.toLowerCase();
    if (el.id) s += '#' + el.id;
    if (el.classList.length) s += '.' + Array.prototype.join.call(el.classList, '.');
    return s + ' "' + (el.textContent || '').trim().slice(0, 40) + '"';
  }
  var out = {width: width, scrollWidth: root.scrollWidth, height: Math.ceil(root.scrollHeight),
             outside: [], scrolling: [], sig: [], figures: []};
  document.querySelectorAll('body *').forEach(function (el) {
    if (el.tagName.toLowerCase() !== 'svg' && el.closest('svg')) return;
    var r = el.getBoundingClientRect();
    if (r.width > 0 && r.right > width + 0.5) out.outside.push(name(el) + ' right=' + r.right);
  });
  document.querySelectorAll('.wrap').forEach(function (el) {
    if (el.scrollWidth > el.clientWidth) {
      out.scrolling.push(name(el) + ' ' + el.scrollWidth + '>' + el.clientWidth);
    }
  });
  document.querySelectorAll('th').forEach(function (th) {
    var r = th.getBoundingClientRect();
    if (th.textContent.trim() === 'sig.') out.sig.push([r.left, r.right]);
  });
  document.querySelectorAll('figure svg').forEach(function (svg) {
    var r = svg.getBoundingClientRect();
    out.figures.push([svg.closest('figure').id, r.width, parseFloat(svg.style.maxWidth)]);
  });
  var pre = document.createElement('pre');
  pre.textContent = 'LAYOUT:' + JSON.stringify(out) + ':LAYOUT';
  document.body.appendChild(pre);
});</script>"""
_LAYOUT_RE = re.compile(r"LAYOUT:(\{.*?\}):LAYOUT", re.DOTALL)  # not the script's own text


@pytest.fixture(scope="module")
def shots() -> ModuleType:
    return screenshot_module()


@pytest.fixture(scope="module")
def reports(tmp_path_factory) -> dict[str, Path]:
    """The two reports, as ``rankframe compare ... --html`` writes them (qrels named relatively)."""
    pytest.importorskip("matplotlib")
    folder = tmp_path_factory.mktemp("reports")
    paths = {}
    for case, make in CASES.items():
        runs = make()
        qrels = os.path.relpath(QRELS)  # as the report names it: data/... from the repository
        comparison = rf.compare(qrels, runs, ["nDCG@10", "AP", "RR"], baseline=next(iter(runs)))
        paths[case] = folder / f"report-{case}.html"
        comparison.to_html(paths[case])
    return paths


@pytest.fixture(scope="module")
def layout(reports, shots):
    """``layout(case, width)``: what the probe found, one Chromium call per case and width."""
    found: dict[tuple[str, int], dict] = {}

    def get(case: str, width: int) -> dict:
        if (case, width) not in found:
            found[case, width] = _layout(shots, reports[case], width)
        return found[case, width]

    return get


def _layout(shots: ModuleType, page: Path, width: int) -> dict:
    """What the probe found in ``page`` at ``width`` CSS px."""
    text = page.read_text(encoding="utf-8")
    head = re.search(r"<head[^>]*>", text)
    assert head is not None
    with tempfile.TemporaryDirectory(prefix="report-probe-") as tmp:
        copy = Path(tmp) / page.name
        copy.write_text(text[: head.end()] + _PROBE + text[head.end() :], encoding="utf-8")
        proc = shots._chromium(CHROMIUM, [f"--window-size={width},900", "--dump-dom", copy.as_uri()], 60)
    match = _LAYOUT_RE.search(proc.stdout)
    assert match, f"no layout report from Chromium (exit {proc.returncode}):\n{proc.stderr[-2000:]}"
    return json.loads(html.unescape(match.group(1)))


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("case", list(CASES))
def test_report_fits_the_window_regression_long_names_many_runs(layout, case, width):
    found = layout(case, width)
    assert found["width"] == width
    assert found["scrollWidth"] <= width, "the page scrolls sideways"
    assert found["outside"] == [], "elements past the window's right edge"
    assert found["scrolling"] == [], "tables that scroll sideways"
    assert len(found["sig"]) == 1
    left, right = found["sig"][0]
    assert 0 <= left < right <= width, "the pairwise table's 'sig.' column is out of view"
    assert len(found["figures"]) >= 6
    for key, drawn, natural in found["figures"]:
        assert 100 < drawn <= natural + 0.5, f"{key} drawn {drawn:.0f} px wide, natural {natural:.0f} px"
    cutoffs = {key: (drawn, natural) for key, drawn, natural in found["figures"]}["cutoffs"]
    assert cutoffs[0] == pytest.approx(cutoffs[1], abs=0.5)  # at its natural size, not the page's


def _png_size(data: bytes) -> tuple[int, int]:
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def _palette_png(path: Path) -> float:
    """Rewrite a screenshot with 256 colours (a third of Chromium's bytes); the mean error.

    The palette holds the 96 most frequent colours (page, text, the runs' colours and fills),
    kept exactly, and 160 spread over the others (anti-aliased edges) by Pillow's max-coverage
    quantizer; each pixel takes the nearest, without dithering. Returns the mean difference per
    pixel, the largest of its three channels (0-255).
    """
    from PIL import Image

    with Image.open(path) as shot:
        image = shot.convert("RGB")
    rgb = np.asarray(image).astype(np.int64)
    packed = (rgb[..., 0] << 16) | (rgb[..., 1] << 8) | rgb[..., 2]
    colours, inverse, counts = np.unique(packed.ravel(), return_inverse=True, return_counts=True)
    frequent = colours[np.argsort(counts)[::-1][:96]]
    frequent = np.stack([frequent >> 16, (frequent >> 8) & 255, frequent & 255], axis=1)
    spread = image.quantize(colors=160, method=Image.Quantize.MAXCOVERAGE, dither=Image.Dither.NONE)
    palette = np.concatenate([frequent, np.array(spread.getpalette()[: 160 * 3]).reshape(-1, 3)])
    unpacked = np.stack([colours >> 16, (colours >> 8) & 255, colours & 255], axis=1)
    nearest = np.concatenate(
        [((c[:, None] - palette[None]) ** 2).sum(axis=2).argmin(axis=1) for c in np.array_split(unpacked, 64)]
    )
    index = nearest[inverse].reshape(rgb.shape[:2]).astype(np.uint8)
    out = Image.frombytes("P", image.size, index.tobytes())
    out.putpalette(palette.astype(np.uint8).ravel().tolist())
    out.save(path, optimize=True)
    return float(np.abs(palette[index] - rgb).max(axis=2).mean())


@pytest.mark.parametrize("case", list(CASES))
def test_report_screenshot(reports, shots, layout, case, tmp_path):
    """Full-page screenshots at 1400 px: the docs' pictures (written there on request)."""
    pytest.importorskip("PIL")  # matplotlib's dependency
    out = (SCREENSHOTS if UPDATE else tmp_path) / f"report-{case}.png"
    height = layout(case, 1400)["height"]
    path, used = shots.screenshot(reports[case], out, width=1400, height=height, scale=1)
    assert _png_size(path.read_bytes()) == (1400, used)
    assert 2500 < used < shots.MAX_HEIGHT
    assert _palette_png(path) < 1  # out of 255: the picture as Chromium drew it, near enough
    data = path.read_bytes()
    assert _png_size(data) == (1400, used)
    assert 100_000 < len(data) < 600_000
