"""Measure objects in ir_measures style: ``nDCG@10``, ``P(rel=2)@5``, ``AP``.

One name per registered family (generated from the registry). A family whose parameters all
have defaults is a measure object already (``AP``, ``nDCG``); ``@`` sets the cutoff and a call
sets other parameters, each returning a new object. Families that need a cutoff (``IPrec``,
``Success``, ``RelP``, ``RprecMult``) become measures once ``@`` gives it.

Examples
--------
>>> import polars as pl
>>> import rankframe as rf
>>> from rankframe.measures import AP, P, Success, nDCG
>>> [nDCG @ 10, P(rel=2) @ 5, AP, Success @ 1]
[nDCG@10, P(rel=2)@5, AP, Success@1]
>>> qrels = pl.DataFrame({"query_id": ["q"], "doc_id": ["a"], "relevance": [2]})
>>> run = pl.DataFrame({"query_id": ["q", "q"], "doc_id": ["b", "a"], "score": [2.0, 1.0]})
>>> rf.evaluate(qrels, run, [P(rel=2) @ 2, Success @ 1])["value"].to_list()
[0.5, 0.0]
"""

from __future__ import annotations

from typing import Any

from rankframe._errors import MeasureError
from rankframe._measures import REGISTRY, Measure, load_all


class MeasureFamily:
    """A measure family that still needs its cutoff: ``Success @ 10``, ``IPrec(rel=2) @ 0.5``."""

    __slots__ = ("_cls", "_params")

    def __init__(self, cls: type[Measure], **params: Any) -> None:
        self._cls = cls
        self._params = params

    def __matmul__(self, cutoff: Any) -> Measure:
        return self._cls(**{**self._params, "cutoff": cutoff})

    def __call__(self, **params: Any) -> MeasureFamily:
        return MeasureFamily(self._cls, **{**self._params, **params})

    def build(self) -> Measure:
        """Return the measure, or raise the family's error for the missing cutoff."""
        try:
            return self._cls(**self._params)
        except MeasureError:
            raise
        except Exception as exc:  # pragma: no cover - defensive
            raise MeasureError(str(exc)) from exc

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self._params.items())
        return f"{self._cls.NAME}({args})" if args else self._cls.NAME


def _objects() -> dict[str, Measure | MeasureFamily]:
    load_all()
    out: dict[str, Measure | MeasureFamily] = {}
    for name, cls in REGISTRY.items():
        try:
            out[name] = cls()
        except MeasureError:
            out[name] = MeasureFamily(cls)
    return out


_OBJECTS = _objects()
globals().update(_OBJECTS)
__all__ = sorted(_OBJECTS, key=str.lower)  # generated from the registry
