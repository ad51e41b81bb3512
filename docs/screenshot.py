"""Take a full-page screenshot of an HTML file with headless Chromium.

Usage::

    python docs/screenshot.py report.html docs/report.png [--width 1280] [--height N] [--scale 1]

Without ``--height`` the page's height is measured first (Chromium loads a copy of the page with
a one-line script that writes ``document.documentElement.scrollHeight`` into the DOM, which
``--dump-dom`` then prints), so the screenshot holds the whole page and nothing more. Chromium is
Debian's ``chromium`` package (``apt-get install -y chromium``). Only the standard library is used.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

DEFAULT_HEIGHT = 6000
MAX_HEIGHT = 16384  # Chromium's largest texture: taller screenshots come out blank or clipped
_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
]
_MEASURE = (
    "<script>document.addEventListener('DOMContentLoaded',function(){"
    "var p=document.createElement('pre');p.id='__page_height__';"
    "p.textContent='PAGEHEIGHT:'+Math.ceil(document.documentElement.scrollHeight)+':';"
    "document.body.appendChild(p);});</script>"
)
_HEIGHT_RE = re.compile(r"PAGEHEIGHT:(\d+):")


def chromium_path() -> str | None:
    """Path of the Chromium binary (on PATH, or Debian's /usr/bin/chromium); None without one."""
    for name in ("chromium", "chromium-browser", "google-chrome", "chrome"):
        path = shutil.which(name)
        if path:
            return path
    return "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None


def find_chromium() -> str:
    """Path of the Chromium binary, or exit with a message that says how to install it."""
    path = chromium_path()
    if path:
        return path
    sys.exit("error: Chromium not found; install it (Debian: apt-get install -y chromium) or put it on PATH.")


def _chromium(binary: str, args: list[str], timeout: float) -> subprocess.CompletedProcess[str]:
    with tempfile.TemporaryDirectory(prefix="chromium-profile-") as profile:
        cmd = [binary, *_FLAGS, f"--user-data-dir={profile}", *args]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)


def measure_height(binary: str, page: Path, width: int, timeout: float = 120) -> int | None:
    """The page's full height in CSS pixels at ``width``, or ``None`` when it cannot be measured."""
    text = page.read_text(encoding="utf-8", errors="replace")
    base = f'<base href="{page.parent.as_uri()}/">'
    with tempfile.TemporaryDirectory(prefix="screenshot-") as tmp:
        copy = Path(tmp) / "page.html"
        head = re.search(r"<head[^>]*>", text, re.IGNORECASE)
        injected = base + _MEASURE
        text = text[: head.end()] + injected + text[head.end() :] if head else injected + text
        copy.write_text(text, encoding="utf-8")
        proc = _chromium(binary, [f"--window-size={width},800", "--dump-dom", copy.as_uri()], timeout)
    match = _HEIGHT_RE.search(proc.stdout)
    return int(match.group(1)) if match else None


def screenshot(
    page: Path, out: Path, *, width: int = 1280, height: int | None = None, scale: float = 1.0
) -> tuple[Path, int]:
    """Save a PNG screenshot of ``page`` to ``out``; return the path and the height used."""
    binary = find_chromium()
    page, out = page.resolve(), out.resolve()
    if not page.is_file():
        sys.exit(f"error: {page} is not a file.")
    if height is None:
        height = measure_height(binary, page, width) or DEFAULT_HEIGHT
    if height * scale > MAX_HEIGHT:
        print(
            f"warning: the page is {height} px tall; the screenshot stops at {MAX_HEIGHT}.", file=sys.stderr
        )
        height = int(MAX_HEIGHT / scale)
    out.parent.mkdir(parents=True, exist_ok=True)
    if out.exists():
        out.unlink()
    args = [f"--window-size={width},{height}", f"--screenshot={out}"]
    if scale != 1:
        args.append(f"--force-device-scale-factor={scale}")
    proc = _chromium(binary, [*args, page.as_uri()], timeout=180)
    if not out.exists() or out.stat().st_size == 0:
        sys.exit(f"error: Chromium wrote no screenshot (exit {proc.returncode}):\n{proc.stderr[-2000:]}")
    return out, height


def main(argv: list[str] | None = None) -> int:
    """Command line: ``screenshot.py PAGE.html OUT.png [--width W] [--height H] [--scale S]``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("page", type=Path, help="the HTML file")
    parser.add_argument("out", type=Path, help="the PNG file to write")
    parser.add_argument("--width", type=int, default=1280, help="window width in CSS pixels (1280)")
    parser.add_argument(
        "--height", type=int, default=None, help=f"window height (default: the page's, else {DEFAULT_HEIGHT})"
    )
    parser.add_argument(
        "--scale", type=float, default=1.0, help="device scale factor (1; 2 for a sharper PNG)"
    )
    args = parser.parse_args(argv)
    os.environ.setdefault("CHROME_LOG_FILE", os.devnull)
    out, height = screenshot(args.page, args.out, width=args.width, height=args.height, scale=args.scale)
    print(f"{out} ({args.width}x{height})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
