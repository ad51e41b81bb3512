"""Reading comparison frames for the tables, figures and HTML report: column checks, groups, numbers."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

import polars as pl

from rankframe._errors import InputError
from rankframe._io.columns import printable_ids


def _as_by(by: str | Sequence[str]) -> list[str]:
    return [by] if isinstance(by, str) else list(by)


def _require(df: pl.DataFrame, name: str, columns: Iterable[str]) -> None:
    missing = [c for c in columns if c not in df.columns]
    if missing:
        msg = (
            f"The {name} frame has no column {', '.join(map(repr, missing))}. "
            f"Available columns: {', '.join(map(repr, df.columns)) or '(none)'}."
        )
        raise InputError(msg)


def _strings(df: pl.DataFrame, columns: Iterable[str]) -> pl.DataFrame:
    """These columns as text: ids of bytes (Binary) one to one, through :func:`printable_ids`."""
    casts = [
        printable_ids(df[c]) if df.schema[c] == pl.Binary else pl.col(c).cast(pl.String)
        for c in columns if c in df.columns
    ]
    return df.with_columns(casts) if casts else df


def _in_group(df: pl.DataFrame, group: Sequence[tuple[str, Any]]) -> pl.DataFrame:
    """The rows of ``df`` in one ``by`` group (columns that ``df`` lacks are not filtered on)."""
    conds = [pl.col(c).eq_missing(pl.lit(v)) for c, v in group if c in df.columns]
    return df.filter(*conds) if conds else df


def _groups(df: pl.DataFrame, by: list[str]) -> list[list[tuple[str, Any]]]:
    if not by:
        return [[]]
    return [list(zip(by, row, strict=True)) for row in df.select(by).unique(maintain_order=True).rows()]


def _group_label(group: Sequence[tuple[str, Any]]) -> str:
    return ", ".join(f"{c} = {v}" for c, v in group)


def _num(x: Any) -> float | None:
    if x is None:
        return None
    x = float(x)
    return None if math.isnan(x) else x


def _significant(pairs: pl.DataFrame, alpha: float) -> pl.Expr:
    """The ``significant`` column, or ``p_adjusted`` (or ``p_value``) below ``alpha`` without it."""
    if "significant" in pairs.columns:
        return pl.col("significant").fill_null(False)
    p = "p_adjusted" if "p_adjusted" in pairs.columns else "p_value"
    return (pl.col(p) < alpha).fill_null(False)


def _unique(df: pl.DataFrame | None, column: str) -> list[Any]:
    if df is None or column not in df.columns or df.height == 0:
        return []
    return [v for v in df[column].unique(maintain_order=True).to_list() if v is not None]


def _prepare(
    summary: pl.DataFrame, pairs: pl.DataFrame | None, by: str | Sequence[str]
) -> tuple[pl.DataFrame, pl.DataFrame | None, list[str]]:
    by_cols = _as_by(by)
    _require(summary, "summary", [*by_cols, "measure", "run", "mean"])
    summary = _strings(summary, ["run", "measure"])
    if pairs is not None:
        _require(pairs, "pairs", ["measure", "baseline", "run", "diff"])
        pairs = _strings(pairs, ["run", "baseline", "measure"])
    return summary, pairs, by_cols


def _fmt_p(p: Any, digits: int = 4) -> str:
    p = _num(p)
    if p is None:
        return "–"
    if p != 0 and p < 10.0 ** -(digits - 1):
        return f"{p:.1e}"
    return f"{p:.{digits}f}"
