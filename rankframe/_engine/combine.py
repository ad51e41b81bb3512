"""Measures built from shared partial sums: combined after the group_by, derived values first."""

from __future__ import annotations

import polars as pl


def _combine(
    out: pl.LazyFrame, partials: dict[str, pl.Expr], derived: dict[str, pl.Expr], post: list[pl.Expr]
) -> pl.LazyFrame:
    """The measures built from partials, after the group_by: the derived values once, then them.

    A derived value may read the ones registered before it: those that read none of them are
    one step, those that read only the first step the next one, and so on (expressions of one
    step run in parallel).
    """
    depth: dict[str, int] = {}
    for n, e in derived.items():
        depth[n] = 1 + max((depth.get(r, 0) for r in e.meta.root_names()), default=0)
    for step in sorted(set(depth.values())):
        out = out.with_columns(e.alias(n) for n, e in derived.items() if depth[n] == step)
    return out.with_columns(post).drop([*partials, *derived])


def _uses_partials(e: pl.Expr) -> bool:
    """Whether an expression reads a partial-sum column (``_part...``)."""
    return any(name.startswith("_part") for name in e.meta.root_names())
