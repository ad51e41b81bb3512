"""Helpers that map trec_eval parameter strings to measures (shared by measure modules).

trec_eval has four parameter shapes (``meas_init.c``): a list of integer cutoffs (``P.5,10``),
a list of float cutoffs (``iprec_at_recall.0.1,0.2``), a list of floats (``utility.1,-1,0,0``)
and ``name=value`` pairs (``ndcg.1=3,2=9``). Each helper returns a parser for
:func:`register_trec` that yields ``(trec_eval output label, measure)`` pairs in the order
trec_eval prints them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rankframe._errors import MeasureError
from rankframe._measures._measure import Measure

TrecParser = Callable[[str | None], list[tuple[str, Measure]]]


def _split(base: str, params: str) -> list[str]:
    parts = params.split(",")
    if any(p.strip() == "" for p in parts):
        msg = f"Malformed trec_eval parameters {params!r} for {base!r}: empty item in the list."
        raise MeasureError(msg)
    return parts


def _atol(base: str, text: str) -> int:
    try:
        return int(float(text))  # atol("23.4") == 23
    except ValueError:
        msg = f"The trec_eval parameter {text!r} of {base!r} is not a number."
        raise MeasureError(msg) from None


def _atof(base: str, text: str) -> float:
    try:
        return float(text)
    except ValueError:
        msg = f"The trec_eval parameter {text!r} of {base!r} is not a number."
        raise MeasureError(msg) from None


def long_cutoffs(
    base: str, default: Sequence[int], make: Callable[[int], Measure]
) -> TrecParser:
    """Parser for ``base.k1,k2`` (sorted ascending, positive, distinct), labels ``base_k``."""

    def parse(params: str | None) -> list[tuple[str, Measure]]:
        cutoffs = list(default) if params is None else [_atol(base, p) for p in _split(base, params)]
        cutoffs.sort()
        if cutoffs[0] <= 0:
            msg = f"Cutoffs of trec_eval measure {base!r} must be positive. Got {params!r}."
            raise MeasureError(msg)
        if len(set(cutoffs)) != len(cutoffs):
            msg = f"Duplicate cutoffs in trec_eval measure {base!r}: {params!r}."
            raise MeasureError(msg)
        return [(f"{base}_{k}", make(k)) for k in cutoffs]

    return parse


def double_cutoffs(
    base: str, default: Sequence[float], make: Callable[[float], Measure]
) -> TrecParser:
    """Parser for ``base.x1,x2`` (floats sorted ascending, distinct), labels ``base_%3.2f``."""

    def parse(params: str | None) -> list[tuple[str, Measure]]:
        values = list(default) if params is None else [_atof(base, p) for p in _split(base, params)]
        values.sort()
        if len(set(values)) != len(values):
            msg = f"Duplicate cutoffs in trec_eval measure {base!r}: {params!r}."
            raise MeasureError(msg)
        return [(f"{base}_{x:3.2f}", make(x)) for x in values]

    return parse


def double_params(
    base: str, make: Callable[[tuple[float, ...] | None], Measure]
) -> TrecParser:
    """Parser for ``base.a,b,c`` (one measure), label ``base`` or ``base_<params as given>``."""

    def parse(params: str | None) -> list[tuple[str, Measure]]:
        if params is None:
            return [(base, make(None))]
        values = tuple(_atof(base, p) for p in _split(base, params))
        return [(f"{base}_{params}", make(values))]

    return parse


def pair_params(base: str, make: Callable[[dict[str, float] | None], Measure]) -> TrecParser:
    """Parser for ``base.name=value,...`` (one measure), label ``base`` or ``base_<params>``."""

    def parse(params: str | None) -> list[tuple[str, Measure]]:
        if params is None:
            return [(base, make(None))]
        pairs: dict[str, float] = {}
        for item in _split(base, params):
            name, eq, value = item.partition("=")
            if not eq or not name:
                msg = (
                    f"Malformed trec_eval parameters {params!r} for {base!r}: expected "
                    "comma-separated name=value pairs, e.g. 'ndcg.1=3,2=9'."
                )
                raise MeasureError(msg)
            pairs[name] = _atof(base, value)
        return [(f"{base}_{params}", make(pairs))]

    return parse


def single(base: str, make: Callable[[], Measure]) -> TrecParser:
    """Parser for a measure without parameters."""

    def parse(params: str | None) -> list[tuple[str, Measure]]:
        if params is not None:
            msg = f"The trec_eval measure {base!r} takes no parameters. Got {params!r}."
            raise MeasureError(msg)
        return [(base, make())]

    parse.takes_no_parameters = True  # type: ignore[attr-defined]  # read by rankframe.compat
    return parse


def gains_from_pairs(base: str, pairs: dict[str, float] | None) -> dict[int, float] | None:
    """Keep the integer-named pairs of a pair parameter string as a gain map."""
    if pairs is None:
        return None
    gains = {}
    for name, value in pairs.items():
        try:
            gains[int(name)] = value
        except ValueError:
            continue  # trec_eval skips non-integer names (e.g. rbp's p=)
    return gains or None
