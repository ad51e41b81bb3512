"""One root exception and a few subclasses, with message builders."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


class RankframeError(ValueError):
    """Root of every error rankframe raises on bad input."""


class InputError(RankframeError):
    """A qrels or run input is malformed (a file, a line, a column)."""

    @classmethod
    def missing_columns(
        cls, role: str, missing: Iterable[str], available: Iterable[str], source: str | None = None
    ) -> InputError:
        """Build the error for columns that are needed but absent."""
        where = f" in {source}" if source else ""
        msg = (
            f"The {role} input{where} has no column {', '.join(repr(m) for m in missing)}. "
            f"Available columns: {', '.join(repr(a) for a in available) or '(none)'}. "
            f"Hint: name the column explicitly, e.g. evaluate(..., {role}_columns="
            "{'query_id': 'qid', 'doc_id': 'docno', ...})."
        )
        return cls(msg)


class MeasureError(RankframeError):
    """A measure name, parameter or combination is invalid."""

    @classmethod
    def unknown(cls, name: str, valid: Iterable[str]) -> MeasureError:
        """Build the error for an unknown measure name, listing the closest valid ones."""
        valid = sorted(set(valid))
        close = difflib.get_close_matches(name, valid, n=3, cutoff=0.5)
        if not close:
            lowered = {v.lower(): v for v in valid}
            close = [lowered[c] for c in difflib.get_close_matches(name.lower(), list(lowered), n=3)]
        hint = f" Did you mean {', '.join(repr(c) for c in close)}?" if close else ""
        msg = (
            f"Unknown measure {name!r}.{hint} "
            f"Valid measure names: {', '.join(valid)}."
        )
        return cls(msg)

    @classmethod
    def bad_param(cls, measure: str, param: str, expected: str, got: object) -> MeasureError:
        """Build the error for a parameter outside its domain."""
        msg = (
            f"The {param!r} parameter of {measure} must be {expected}. "
            f"Got {got!r} ({type(got).__name__})."
        )
        return cls(msg)


class RankframeWarning(UserWarning):
    """A semantic choice changes the numbers (missing queries, unjudged runs)."""
