"""The fusion methods that need no training, as ranx 0.3.21 defines them.

Each combines the aligned runs of one (query, document) row: ``v[r]`` is run ``r``'s
(normalised) score of the document and ``p[r]`` its 0-based position in run ``r``, both null
where run ``r`` did not retrieve it. The arithmetic runs in ranx's order (runs in list order,
left to right), so that the fused scores are ranx's to the last bit.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import reduce
from typing import Any

import polars as pl

from rankframe._engine.options import Q
from rankframe._errors import InputError
from rankframe._fusion.inputs import lookup

#: ranx's stand-ins for a missing score in CombMIN and CombMAX.
_MISSING_MIN, _MISSING_MAX = 1e9, -1e9


@dataclass(frozen=True)
class Aligned:
    """The aligned runs' columns and the method's arguments."""

    v: list[pl.Expr]
    p: list[pl.Expr]
    weights: list[float] | None
    params: Mapping[str, Any]
    #: Whether the runs were aligned on their positions ``p`` (else on their scores ``v``).
    reads_position: bool = False

    @property
    def candidates(self) -> pl.Expr:
        """The number of documents any run retrieved for the query."""
        return pl.len().over(Q).cast(pl.Int64)


@dataclass(frozen=True)
class Method:
    """A fusion method: what it reads, its parameters (``None``: required) and its combination."""

    name: str
    combine: Callable[[Aligned], pl.Expr]
    reads_position: bool = False
    weighted: bool = False
    params: Mapping[str, float | None] = field(default_factory=dict)
    doc: str = ""
    trained: bool = False


def _fold(exprs: Sequence[pl.Expr]) -> pl.Expr:
    """Left-to-right sum (ranx's order), nulls counting 0."""
    return reduce(lambda a, b: a + b, [e.fill_null(0.0) for e in exprs])


def _count(a: Aligned) -> pl.Expr:
    """The number of runs that retrieved the document."""
    present = a.p if a.reads_position else a.v
    return pl.sum_horizontal([x.is_not_null() for x in present]).cast(pl.Float64)


def _weights(a: Aligned) -> list[float]:
    assert a.weights is not None  # checked by get_method's caller  # noqa: S101
    return a.weights


def _median(values: Sequence[pl.Expr], count: pl.Expr) -> pl.Expr:
    """numpy's median of the non-null values: the middle one, or the mean of the middle two."""
    ranked = pl.concat_list(values).list.drop_nulls().list.sort()
    n = count.cast(pl.Int64)
    upper = ranked.list.get(n // 2, null_on_oob=True)
    lower = ranked.list.get((n - 1) // 2, null_on_oob=True)
    return pl.when(n % 2 == 1).then(upper).otherwise((lower + upper) / 2)


def _isr_scores(a: Aligned) -> list[pl.Expr]:
    return [1.0 / (p + 1).pow(2).cast(pl.Float64) for p in a.p]


def _borda_points(a: Aligned) -> list[pl.Expr]:
    c = a.candidates
    return [pl.when(p.is_not_null()).then(c - p).otherwise((c - p.count().over(Q) + 1) / 2) for p in a.p]


def _rrf(a: Aligned) -> pl.Expr:
    k = a.params["k"]
    return _fold([1.0 / (k + p + 1) for p in a.p])


def _int_power(base: float, exponent: pl.Expr, bits: int = 32) -> pl.Expr:
    """``base ** exponent`` for an integer exponent by repeated squaring, as numba computes it.

    The product runs over the exponent's set bits from the lowest, each factor the base squared
    that many times: the same roundings as numba's loop (``pow`` differs in the last bit).
    """
    out: pl.Expr = pl.lit(1.0)
    square = float(base)
    for bit in range(bits):
        out = out * pl.when((exponent & (1 << bit)) != 0).then(pl.lit(square)).otherwise(pl.lit(1.0))
        square *= square
    return out


def _rbc(a: Aligned) -> pl.Expr:
    phi = a.params["phi"]
    return _fold([pl.when(p.is_not_null()).then((1 - phi) * _int_power(phi, p)) for p in a.p])


def _wsum_of(values: list[pl.Expr], weights: list[float]) -> pl.Expr:
    return _fold([w * v for w, v in zip(weights, values, strict=True)])


def _wmnz(a: Aligned) -> pl.Expr:
    w = _weights(a)
    weight_sum = _fold([pl.when(v.is_not_null()).then(wi) for wi, v in zip(w, a.v, strict=True)])
    return _fold(a.v) * weight_sum


def _mixed(a: Aligned) -> pl.Expr:
    return _wsum_of(a.v, _weights(a)) * _count(a).sqrt()


def _comb(count_factor: Callable[[pl.Expr, Aligned], pl.Expr]) -> Callable[[Aligned], pl.Expr]:
    return lambda a: _fold(a.v) * count_factor(_count(a), a)


def _isr_like(count_factor: Callable[[pl.Expr, Aligned], pl.Expr]) -> Callable[[Aligned], pl.Expr]:
    def combine(a: Aligned) -> pl.Expr:
        return _fold(_isr_scores(a)) * count_factor(_count(a), a)

    return combine


METHODS: dict[str, Method] = {
    m.name: m
    for m in (
        Method(
            "min",
            lambda a: pl.min_horizontal([v.fill_null(_MISSING_MIN) for v in a.v]),
            doc="CombMIN: the lowest score (1e9 for a run without the document, as ranx)",
        ),
        Method(
            "max",
            lambda a: pl.max_horizontal([v.fill_null(_MISSING_MAX) for v in a.v]),
            doc="CombMAX: the highest score (-1e9 for a run without the document, as ranx)",
        ),
        Method("med", lambda a: _median(a.v, _count(a)), doc="CombMED: the median score"),
        Method("sum", lambda a: _fold(a.v), doc="CombSUM: the sum of the scores"),
        Method("anz", lambda a: _fold(a.v) / _count(a), doc="CombANZ: the sum over the runs retrieving it"),
        Method("mnz", _comb(lambda n, a: n), doc="CombMNZ: the sum times the runs retrieving it"),
        Method(
            "gmnz",
            _comb(lambda n, a: n.pow(a.params["gamma"])),
            params={"gamma": None},
            doc="CombGMNZ: the sum times (runs retrieving it) ** gamma",
        ),
        Method(
            "isr",
            _isr_like(lambda n, a: n),
            reads_position=True,
            doc="ISR: sum of 1 / rank ** 2, times the runs retrieving it",
        ),
        Method(
            "log_isr",
            _isr_like(lambda n, a: n.log()),
            reads_position=True,
            doc="Log_ISR: sum of 1 / rank ** 2, times log(runs retrieving it)",
        ),
        Method(
            "logn_isr",
            _isr_like(lambda n, a: (n + a.params["sigma"]).log()),
            reads_position=True,
            params={"sigma": 0.01},
            doc="LogN_ISR: sum of 1 / rank ** 2, times log(runs retrieving it + sigma)",
        ),
        Method(
            "rrf",
            _rrf,
            reads_position=True,
            params={"k": 60},
            doc="Reciprocal rank fusion: sum of 1 / (k + rank)",
        ),
        Method(
            "rbc",
            _rbc,
            reads_position=True,
            params={"phi": None},
            doc="Rank-biased centroid: sum of (1 - phi) phi ** (rank - 1)",
        ),
        Method(
            "bordafuse",
            lambda a: _fold(_borda_points(a)),
            reads_position=True,
            doc="Borda count: c - rank + 1 points, (c - n + 1) / 2 to each unretrieved candidate",
        ),
        Method(
            "w_bordafuse",
            lambda a: _wsum_of(_borda_points(a), _weights(a)),
            reads_position=True,
            weighted=True,
            doc="Weighted Borda count: the runs' Borda points, weighted",
        ),
        Method(
            "wsum",
            lambda a: _wsum_of(a.v, _weights(a)),
            weighted=True,
            doc="Weighted sum of the scores",
        ),
        Method(
            "wmnz",
            _wmnz,
            weighted=True,
            doc="Weighted MNZ: the sum of the scores times the sum of the retrieving runs' weights",
        ),
        Method(
            "mixed",
            _mixed,
            weighted=True,
            doc="Weighted sum of the scores times sqrt(runs retrieving it)",
        ),
    )
}
#: ranx's other spellings of the methods' names.
ALIASES = {"weighted_bordafuse": "w_bordafuse", "weighted_condorcet": "w_condorcet"}


def register(method: Method) -> None:
    """Add a method (the pairwise and trained ones register from their modules)."""
    METHODS[method.name] = method


def get_method(name: str) -> Method:
    """The method called ``name``, or an InputError listing the valid ones and the closest."""
    if not isinstance(name, str):
        msg = f"The 'method' of fuse must be a str. Got {name!r} ({type(name).__name__})."
        raise InputError(msg)
    return lookup(METHODS, ALIASES, name, "fusion method", ", ".join(sorted(METHODS)))
