"""Score normalisations, per run and query, as ranx 0.3.21 defines them.

Each is an expression over one run's rows of one query (the window ``_r, query_id``): ``s`` the
score, ``p`` the 0-based position in the run's ranking (score descending, ties in input order),
``n`` the number of documents the run retrieved for the query. ``borda`` also scores the
documents other runs retrieved (the candidates), so it is applied after the runs are aligned
(:func:`borda_norm`). The guard ``1e-9`` on every denominator is ranx's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import polars as pl

from rankframe._engine.options import Q, S
from rankframe._errors import InputError
from rankframe._fusion.inputs import RUN, lookup

#: The window of a normalisation: one run's results for one query.
WINDOW = (RUN, Q)
#: ranx's floor under every denominator.
EPS = 1e-9
#: The 0-based position of a row in its run's ranking (computed where a method or norm reads it).
POS = "_p"


@dataclass(frozen=True)
class Norm:
    """A normalisation: its expression (``None`` for borda, applied on the aligned runs)."""

    name: str
    expr: Callable[[], pl.Expr] | None
    reads_position: bool = False
    #: Reverses the order: the runs' rankings are then re-read from the normalised scores.
    inverts: bool = False
    doc: str = ""


def _over(e: pl.Expr) -> pl.Expr:
    return e.over(WINDOW)


def _denominator(e: pl.Expr) -> pl.Expr:
    return pl.max_horizontal(e, pl.lit(EPS))


def _min_max() -> pl.Expr:
    s = pl.col(S)
    return (s - _over(s.min())) / _denominator(_over(s.max()) - _over(s.min()))


def _min_max_inverted() -> pl.Expr:
    s = pl.col(S)
    return (_over(s.max()) - s) / _denominator(_over(s.max()) - _over(s.min()))


def _max() -> pl.Expr:
    return pl.col(S) / _denominator(_over(pl.col(S).max()))


def _sum() -> pl.Expr:
    s = pl.col(S)
    low = _over(s.min())
    return (s - low) / _denominator(_over(s.sum()) - low * _over(pl.len()))


def _zmuv() -> pl.Expr:
    s = pl.col(S)
    return (s - _over(s.mean())) / _denominator(_over(s.std(ddof=0)))


def _rank() -> pl.Expr:
    return 1 - pl.col(POS) / _over(pl.len())


NORMS: dict[str, Norm] = {
    n.name: n
    for n in (
        Norm("min-max", _min_max, doc="(s - min) / max(max - min, 1e-9)"),
        Norm(
            "min-max-inverted",
            _min_max_inverted,
            inverts=True,
            doc="(max - s) / max(max - min, 1e-9); for runs of distances",
        ),
        Norm("max", _max, doc="s / max(max, 1e-9)"),
        Norm("sum", _sum, doc="(s - min) / max(sum - n min, 1e-9)"),
        Norm("zmuv", _zmuv, doc="(s - mean) / max(std, 1e-9), std with ddof=0"),
        Norm("rank", _rank, reads_position=True, doc="1 - p / n"),
        Norm(
            "borda",
            None,
            reads_position=True,
            doc="1 - p / c for a retrieved document, 0.5 - (n - 1) / (2 c) for the other "
            "candidates, c the documents any run retrieved",
        ),
    )
}
#: ranx's other spellings.
ALIASES = {"min_max": "min-max", "min_max_inverted": "min-max-inverted"}


def get_norm(name: str | None) -> Norm | None:
    """The normalisation called ``name`` (``None``: none), or an InputError listing them."""
    if name is None or name == "none":
        return None
    if not isinstance(name, str):
        msg = f"The 'norm' of fuse must be a str or None. Got {name!r} ({type(name).__name__})."
        raise InputError(msg)
    return lookup(NORMS, ALIASES, name, "normalisation", f"{', '.join(NORMS)} or None")


def borda_norm(p: pl.Expr, candidates: pl.Expr) -> pl.Expr:
    """Borda's normalised score from a run's position column on the aligned frame (ranx's ``borda``).

    ``p`` is null where the run did not retrieve the document; ``candidates`` counts the
    query's documents over all runs.
    """
    retrieved = p.count().over(Q).cast(pl.Float64)
    return (
        pl.when(p.is_not_null()).then(1 - p / candidates).otherwise(0.5 - (retrieved - 1) / (2 * candidates))
    )
