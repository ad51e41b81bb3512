"""Measure parameters declared as data, their coercion and checks, and shared constants."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from rankframe._errors import MeasureError

Aggregation = Literal["mean", "sum", "gmean", "none"]

#: A :meth:`Measure.hit_level` below every grade: the measure reads every judgment of the
#: retrieved documents, negative grades included (but not unjudged documents).
ANY_GRADE = -(2**62)

#: The column of :attr:`Ctx.grade_position` in the planner's qrels-side statistics.
GRADE_POSITION = "_grade_pos"

#: Floor applied to per-query values before a geometric mean (trec_eval's MIN_GEO_MEAN).
MIN_GEO_MEAN = 1e-5


@dataclass(frozen=True)
class Param:
    """Declaration of one measure parameter.

    Parameters
    ----------
    name
        Keyword used in ir_measures syntax (``rel`` in ``P(rel=2)@5``). ``cutoff`` is printed
        as ``@k``.
    kind
        One of ``"int"``, ``"float"``, ``"str"``, ``"gains"`` (a mapping grade -> gain),
        ``"floats"`` (a tuple of floats) or ``"bool"``.
    default
        Default value; a parameter equal to its default is left out of the canonical name.
    check
        Optional predicate with the text of its domain, e.g. ``(lambda k: k >= 1, "an int >= 1")``.
    """

    name: str
    kind: str
    default: Any = None
    check: tuple[Callable[[Any], bool], str] | None = None
    doc: str = ""


def _coerce(measure: str, p: Param, value: Any) -> Any:
    """Coerce and validate one parameter value."""
    if value is None:
        return None
    try:
        if p.kind == "int":
            if isinstance(value, bool):
                raise TypeError
            if isinstance(value, float) and not value.is_integer():
                raise TypeError
            if isinstance(value, str):
                value = int(value)
            value = int(value)
        elif p.kind == "float":
            if isinstance(value, bool):
                raise TypeError
            value = float(value)
            if not math.isfinite(value):
                raise TypeError
        elif p.kind == "str":
            if not isinstance(value, str):
                raise TypeError
        elif p.kind == "bool":
            if isinstance(value, str):
                if value.lower() not in ("true", "false"):
                    raise TypeError
                value = value.lower() == "true"
            elif not isinstance(value, bool):
                raise TypeError
        elif p.kind == "gains":
            # a mapping, or the (grade, gain) pairs a measure stores (``replace`` passes them)
            if not isinstance(value, Mapping | tuple):
                raise TypeError
            pairs = value.items() if isinstance(value, Mapping) else value
            value = tuple(sorted((int(k), float(v)) for k, v in dict(pairs).items()))
        elif p.kind == "floats":
            value = tuple(float(v) for v in value)
    except (TypeError, ValueError):
        expected = p.check[1] if p.check else f"of kind {p.kind}"
        raise MeasureError.bad_param(measure, p.name, expected, value) from None
    if p.check is not None and not p.check[0](value):
        raise MeasureError.bad_param(measure, p.name, p.check[1], value)
    if p.kind == "int" and not -(2**63) <= value < 2**63:  # Polars takes it as a 64-bit literal
        raise MeasureError.bad_param(measure, p.name, "an int of 64 bits at most", value)
    return value


POSITIVE_INT = (lambda k: k >= 1, "an int >= 1")

#: ir_measures' ``judged_only``: drop unjudged documents and re-rank before the measure
#: (trec_eval ``-J`` for one measure). Declaring it is enough: :meth:`Measure.aggregation`
#: applies it.
JUDGED_ONLY = Param("judged_only", "bool", False)




def _format_number(v: Any) -> str:
    if isinstance(v, float) and v.is_integer() and abs(v) < 1e15:
        return repr(v)  # keep floats visibly floats, e.g. 0.5 / 1.0
    return repr(v) if not isinstance(v, str) else v


def _format_value(p: Param, v: Any) -> str:
    if p.kind == "gains":
        return "{" + ", ".join(f"{k}: {_format_number(g)}" for k, g in v) + "}"
    if p.kind == "floats":
        return "(" + ", ".join(_format_number(x) for x in v) + ("," if len(v) == 1 else "") + ")"
    if p.kind == "str":
        return repr(v)
    return _format_number(v)
