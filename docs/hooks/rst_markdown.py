r"""The reStructuredText of rankframe's numpydoc docstrings, as the site's Markdown.

The docstrings use a little reStructuredText: ``.. math::`` directives, ``:math:`` and
cross-reference roles (``:class:``, ``:func:``...) and double backquotes. Markdown renders none
of it, so the measure catalogue (``catalogue.py``) and the API reference (``griffe_rst.py``)
convert it: ``.. math::`` becomes a ``$$`` block and ``:math:`x``` becomes ``\(x\)`` (both
typeset by ``pymdownx.arithmatex`` and MathJax), roles become code spans or links, double
backquotes single ones. Indentation is kept, so numpydoc sections still parse afterwards.
"""

from __future__ import annotations

import re
from collections.abc import Callable

_ROLE = r":(?:py:)?(?P<role>\w+):`(?P<tilde>~?)(?P<target>[^`]+)`"
_LITERAL = r"``(?P<code>.+?)``"
_INLINE = re.compile(f"{_ROLE}|{_LITERAL}", re.DOTALL)
_MATH_DIRECTIVE = re.compile(r"^(?P<indent>[ ]*)\.\. math::[ ]*(?P<rest>.*)$")


def code(text: str) -> str:
    """``text`` as a Markdown code span (fenced by two backquotes when it holds one)."""
    fence = "``" if "`" in text else "`"
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _inline(text: str, link: Callable[[str], str | None] | None) -> str:
    """Roles and double-backquoted literals of ``text`` as Markdown."""
    out = []
    pos = 0
    for m in _INLINE.finditer(text):
        out.append(text[pos : m.start()])
        pos = m.end()
        if m.group("code") is not None:
            out.append(code(" ".join(m.group("code").split())))
            continue
        role, target = m.group("role"), " ".join(m.group("target").split())
        if role == "math":
            out.append(r"\(" + target + r"\)")
            continue
        shown = target.rsplit(".", 1)[-1] if m.group("tilde") else target
        url = link(target) if link is not None else None
        out.append(f"[{code(shown)}]({url})" if url else code(shown))
    out.append(text[pos:])
    return "".join(out)


def rst_to_markdown(text: str, link: Callable[[str], str | None] | None = None) -> str:
    r"""Convert the reStructuredText of a docstring (or of one of its sections) to Markdown.

    Parameters
    ----------
    text
        Docstring text.
    link
        Maps the target of a cross-reference role (``:class:`AP```) to a URL, or to ``None``
        for a plain code span.

    Returns
    -------
    str
        The text in Markdown; lines keep their indentation.

    Examples
    --------
    >>> print(rst_to_markdown("Gain :math:`2^g - 1`, see :class:`~pkg.nDCG`.\n\n.. math:: x = 1"))
    Gain \(2^g - 1\), see `nDCG`.
    <BLANKLINE>
    $$
    x = 1
    $$
    """
    lines = text.splitlines()
    out: list[str] = []
    i = 0
    while i < len(lines):
        m = _MATH_DIRECTIVE.match(lines[i])
        if m is None:
            out.append(lines[i])
            i += 1
            continue
        indent = m.group("indent")
        body = [m.group("rest").strip()] if m.group("rest").strip() else []
        i += 1
        while i < len(lines) and (
            not lines[i].strip() or len(lines[i]) - len(lines[i].lstrip()) > len(indent)
        ):
            if lines[i].strip():
                body.append(lines[i].strip())
            i += 1
        # a blank line after the block, unless the block ends the text
        out += ["", *(indent + line for line in ["$$", *body, "$$"]), ""]
    parts = re.split(r"(^[ ]*\$\$\n.*?\n[ ]*\$\$$)", "\n".join(out), flags=re.DOTALL | re.MULTILINE)
    converted = [p if p.lstrip().startswith("$$") else _inline(p, link) for p in parts]
    markdown = re.sub(r"\n{3,}", "\n\n", "".join(converted))
    return markdown.strip("\n").rstrip()
