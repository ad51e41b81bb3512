"""Griffe extension: rankframe's docstrings in the site's Markdown, for the API reference.

mkdocstrings renders docstrings as Markdown, where the reStructuredText roles and ``.. math::``
directives of rankframe's numpydoc docstrings would show as typed. This extension converts them
(:func:`rst_markdown.rst_to_markdown`) when griffe loads an object, before the numpydoc sections
are parsed. The source files are not changed.

Configured in ``mkdocs.yml`` under the python handler's ``extensions``.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import griffe

HOOKS = Path(__file__).resolve().parent
ROOT = HOOKS.parents[1]
for path in (ROOT, HOOKS):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

from rst_markdown import rst_to_markdown  # noqa: E402


class RstToMarkdown(griffe.Extension):
    """Convert the reStructuredText markup of every rankframe docstring to Markdown."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        """Rewrite the docstring of ``obj`` as soon as griffe has created it."""
        docstring = obj.docstring
        if docstring is not None and obj.path.split(".", 1)[0] == "rankframe":
            docstring.value = rst_to_markdown(docstring.value)
