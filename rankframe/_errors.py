"""One root exception and a few subclasses, with message builders."""

from __future__ import annotations

import difflib
import os
import sys
import warnings
from collections.abc import Iterable, Sequence

_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep


def at(where: str, line: int | None = None, *, row: int | None = None) -> str:
    """Name a place in an input: ``"run.txt, line 7"``, ``"the run DataFrame, row 3"``."""
    if line is not None:
        return f"{where}, line {line}"
    if row is not None:
        return f"{where}, row {row}"
    return where


#: The most characters of a line or a field that an error message quotes.
QUOTE_LIMIT = 200


def quote(value: object, limit: int = QUOTE_LIMIT) -> str:
    r"""A value from the input as an error message quotes it: its ``repr``, at most ``limit`` long.

    A longer text (or bytes) is cut and says how long it was, so that a file of one
    100 MB line gives a one-line error, not 100 MB on stderr. Bytes (ids that are not UTF-8)
    keep their ``b'...'`` form, so that the quoted id shows its own bytes.

    Examples
    --------
    >>> quote("q1"), quote(b"q\xe9")
    ("'q1'", "b'q\\xe9'")
    >>> quote("x" * 1000, limit=10)
    "'xxxxxxxxxx'... (1000 characters in all)"
    """
    if isinstance(value, str | bytes) and len(value) > limit:
        unit = "bytes" if isinstance(value, bytes) else "characters"
        return f"{value[:limit]!r}... ({len(value)} {unit} in all)"
    text = repr(value)
    if len(text) > 2 * limit:  # a row or a list of values
        return f"{text[:limit]}... ({len(text)} characters in all)"
    return text


class RankframeError(ValueError):
    """Root of every error rankframe raises on bad input."""


class InputError(RankframeError):
    """A qrels or run input is malformed (a file, a line, a column)."""

    @classmethod
    def missing_columns(
        cls,
        role: str,
        missing: Iterable[str],
        available: Iterable[str],
        source: str | None = None,
        *,
        tried: Sequence[str] = (),
        canonical: str | None = None,
    ) -> InputError:
        """Build the error for columns that are needed but absent.

        Lists the missing and the available columns, the well-known names that were tried, and a
        hint that maps the missing column (to the closest available one when there is one).
        ``canonical``: the canonical name that the (missing) column was mapped to, which the
        hint maps instead.
        """
        missing, available = list(missing), list(available)
        # a path stays exactly as given ("bad/x.parquet"); "the run DataFrame" starts a sentence
        if not source:
            subject = f"The {role} input"
        elif source.startswith("the "):
            subject = f"The {source[4:]}"
        else:
            subject = source
        tried_txt = f" (tried the well-known names {', '.join(map(repr, tried))})" if tried else ""
        guess = difflib.get_close_matches(missing[0], available, n=1, cutoff=0.4) if missing else []
        example = repr(guess[0]) if guess else "'<column>'"
        param = "qrels_columns={...} and/or run_columns" if role == "judged" else f"{role}_columns"
        first = canonical or (missing[0] if missing else "query_id")
        hint = (
            f"Hint: name the column explicitly, e.g. evaluate(..., {param}="
            f"{{{first!r}: {example}}}) or read_{role}(..., columns={{...}})."
        )
        if role in ("interactions", "items", "reference"):  # side inputs: renamed by the user
            hint = f"Hint: rename the column first, e.g. df.rename({{{example}: {first!r}}})."
        seps = [c for c in (";", "\t", "|") if len(available) == 1 and c in available[0]]
        if seps:  # one column holding the whole header: a file of another separator
            sep = "a tab" if seps[0] == "\t" else repr(seps[0])
            hint = (
                f"Hint: its fields look separated by {sep}: a .csv file is read as comma-separated "
                "and a .tsv file as tab-separated; rename a tab-separated file to .tsv, or write "
                "the file with commas."
            )
        msg = (
            f"{subject} has no {role} column {', '.join(map(repr, missing))}{tried_txt}. "
            f"Available columns: {', '.join(map(repr, available)) or '(none)'}. {hint}"
        )
        return cls(msg)

    @classmethod
    def unreadable(cls, role: str, where: str, error: BaseException) -> InputError:
        """Build the error for a source that the underlying reader could not read."""
        detail = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        if isinstance(error, MemoryError) or "os error 12" in detail or "Cannot allocate memory" in detail:
            msg = (
                f"Not enough memory to read the {role} input {where}: {detail}. The process is "
                "at its memory limit (ulimit -v, a container's limit) before the evaluation "
                "starts: raise the limit."
            )
            return cls(msg)
        if isinstance(error, PermissionError) or "os error 13" in detail:
            msg = (
                f"Cannot read the {role} input {where}: permission denied ({detail}). Check the "
                "permissions of the file and its folders, or run as a user who may read it."
            )
            return cls(msg)
        msg = (
            f"Cannot read the {role} input {where}: {detail}. Check that the file is complete and in "
            "the format its name says (TREC text, Parquet, CSV/TSV, Arrow IPC)."
        )
        return cls(msg)


class OutputError(RankframeError):
    """An output cannot be written: its folder is missing or read-only, the disk is full..."""


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


class NoQueryInCommonWarning(RankframeWarning):
    """No judged query has results: the query ids of the qrels and the run likely differ in form."""


def warn(message: str | Warning, category: type[Warning] = RankframeWarning) -> None:
    """Issue a warning attributed to the first caller outside rankframe (the user's line).

    The depth of rankframe's own calls differs between paths (one plan, partitions, runs
    evaluated apart, the CLI), so the stack level is found, not counted.
    """
    frame, level = sys._getframe(1), 2
    while frame.f_back is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, category, stacklevel=level)
