"""ir_measures' measure objects (``ir_measures.measures``) on rankframe's measure families.

Each name is rankframe's family under ir_measures' spelling, with ir_measures' methods: a
measure computes itself (``(P @ 5).calc_aggregate(qrels, run)``, ``.iter_calc``, ``.calc``, by
ir_measures' default choice of provider). The objects are subclasses of rankframe's, equal to
them and hashed alike (``compat.P @ 5 == rankframe.measures.P @ 5``), so either may key a
result. ir_measures' spellings that rankframe names otherwise:

* aliases ``MAP``, ``MRR``, ``NDCG``, ``Precision``, ``Recall``, ``RPrec``, ``BPref``;
* ``SetRelP`` is ``SetP(relative=True)`` and ``NumRelRet`` is ``NumRet(rel=1)`` (their
  repr, as ir_measures prints them);
* ``IPrec(recall=x)`` is ``IPrec @ x``;
* ``SetP @ k`` and ``SetR @ k`` (the set of the top ``k``) are ``P @ k`` and ``R @ k``.

Families ir_measures has and rankframe does not (yet) are placeholders (:class:`Unsupported`):
they print and compare like ir_measures' objects, and computing one raises
:class:`rankframe.MeasureError` naming the family.

Examples
--------
>>> from rankframe.compat.ir_measures.measures import AP, MAP, P, SetRelP
>>> MAP == AP, P(rel=2) @ 5, SetRelP
(True, P(rel=2)@5, SetP(relative=True))
>>> (P @ 1).calc_aggregate({"q1": {"d1": 1}}, {"q1": {"d1": 2.0, "d2": 1.0}})
1.0
"""

from __future__ import annotations

from typing import Any

from rankframe._errors import MeasureError
from rankframe._measures import REGISTRY, Measure, load_all
from rankframe.compat.ir_measures._runtime import SelfComputing
from rankframe.measures import MeasureFamily

load_all()


class IrMeasure(SelfComputing):
    """ir_measures' methods for rankframe's measures (mixed into each family's subclass)."""

    __slots__ = ()
    #: The value ir_measures gives a judged query that the run lacks.
    DEFAULT = 0.0

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Measure)
            and other.NAME == self.NAME  # type: ignore[attr-defined]
            and other.params == self.params  # type: ignore[attr-defined]
        )

    def __hash__(self) -> int:
        return Measure.__hash__(self)  # type: ignore[arg-type]

    def __call__(self, **params: Any) -> Measure:
        """``P(rel=2)``: a copy with some parameters changed (``IPrec(recall=x)`` is ``IPrec@x``)."""
        if "recall" in params and self.NAME == "IPrec":  # type: ignore[attr-defined]
            params["cutoff"] = params.pop("recall")
        return as_compat(self.replace(**params))  # type: ignore[attr-defined]

    def __matmul__(self, cutoff: Any) -> Measure:
        """``P @ 5``; ``SetP @ k`` and ``SetR @ k`` are ``P @ k`` and ``R @ k`` (ranx reads them so)."""
        name, params = self.NAME, self.params  # type: ignore[attr-defined]
        if name in ("SetP", "SetR") and not params.get("relative"):
            params.pop("relative", None)
            return as_compat(REGISTRY[name[3:]](**params, cutoff=cutoff))
        return as_compat(self.replace(cutoff=cutoff))  # type: ignore[attr-defined]



#: Families ir_measures leaves out for a judged query the run lacks (undefined there).
UNDEFINED_WITHOUT_RUN = frozenset({"Accuracy"})

#: rankframe's family -> its subclass with ir_measures' methods.
_COMPAT: dict[type[Measure], type[Measure]] = {
    cls: type(
        cls.__name__,
        (IrMeasure, cls),
        {
            "__slots__": (),
            "__doc__": cls.__doc__,
            "DEFAULT": None if cls.NAME in UNDEFINED_WITHOUT_RUN else IrMeasure.DEFAULT,
        },
    )
    for cls in REGISTRY.values()
}


def as_compat(measure: Measure) -> Measure:
    """rankframe's measure as this module's object (ir_measures' spelling and methods).

    Examples
    --------
    >>> from rankframe.measures import NumRelRet, P
    >>> m = as_compat(P @ 5)
    >>> m == P @ 5, hasattr(m, "iter_calc"), as_compat(NumRelRet)
    (True, True, NumRet(rel=1))
    """
    if isinstance(measure, IrMeasure):
        return measure
    params = measure.params
    if measure.NAME == "SetRelP":
        measure = REGISTRY["SetP"](**params, relative=True)
    elif measure.NAME == "NumRelRet":
        measure = REGISTRY["NumRet"](rel=params.get("rel") or 1)
    family = next(c for c in type(measure).__mro__ if c in _COMPAT)
    return _COMPAT[family](**measure.params)


def as_rankframe(measure: Measure) -> Measure:
    """The same measure as rankframe's own object (what :func:`rankframe.evaluate` receives).

    A measure of no registered family (cwl_eval's forms of ``P``, ``RR``...) is returned as is.
    """
    base = next((c for c in type(measure).__mro__ if c in REGISTRY.values()), None)
    return measure if base is None else base(**measure.params)


class Family(MeasureFamily):
    """A family that needs its cutoff (``IPrec``, ``Success``): ``IPrec(rel=2) @ 0.5``."""

    __slots__ = ()

    def __call__(self, **params: Any) -> Any:
        if "recall" in params and self._cls.NAME == "IPrec":
            params["cutoff"] = params.pop("recall")
        merged = {**self._params, **params}
        if "cutoff" in merged:
            return as_compat(self._cls(**merged))
        return Family(self._cls, **merged)

    def __matmul__(self, cutoff: Any) -> Measure:
        return as_compat(self._cls(**{**self._params, "cutoff": cutoff}))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Family) and (other._cls, other._params) == (self._cls, self._params)

    def __hash__(self) -> int:
        return hash((self._cls.NAME, tuple(sorted(self._params.items(), key=str))))


class Unsupported:
    """A family of ir_measures that rankframe does not have yet: printed, compared, not computed.

    Parameters
    ----------
    name : str
        ir_measures' name (``"alpha_nDCG"``).
    provider : str
        The ir_measures provider that computes it (named in the error).
    **params
        Parameters, as ir_measures prints them.

    Examples
    --------
    >>> Compat(p=0.8), Compat(p=0.8) == Compat(p=0.8)
    (Compat(p=0.8), True)
    """

    __slots__ = ("_name", "_params", "_provider")
    DEFAULT = 0.0

    def __init__(self, name: str, provider: str, **params: Any) -> None:
        self._name, self._provider, self._params = name, provider, params

    @property
    def NAME(self) -> str:  # noqa: N802 - ir_measures' attribute
        """ir_measures' name of the family."""
        return self._name

    @property
    def params(self) -> dict[str, Any]:
        """The parameters given."""
        return dict(self._params)

    def error(self) -> MeasureError:
        """The error raised when the measure is computed."""
        msg = (
            f"rankframe has no {self._name} measure family yet (ir_measures computes it with its "
            f"{self._provider} provider); choose one of rankframe's measures, e.g. nDCG@10, AP."
        )
        return MeasureError(msg)

    def __call__(self, **params: Any) -> Unsupported:
        return Unsupported(self._name, self._provider, **{**self._params, **params})

    def __matmul__(self, cutoff: Any) -> Unsupported:
        return self(cutoff=cutoff)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Unsupported) and (other._name, other._params) == (self._name, self._params)

    def __hash__(self) -> int:
        return hash((self._name, tuple(sorted(self._params.items(), key=str))))

    def __repr__(self) -> str:
        params = {k: v for k, v in self._params.items() if k != "cutoff"}
        text = self._name + (f"({','.join(f'{k}={v!r}' for k, v in params.items())})" if params else "")
        return text + (f"@{self._params['cutoff']}" if "cutoff" in self._params else "")

    def calc_aggregate(self, qrels: Any, run: Any) -> float:
        """Raise :class:`rankframe.MeasureError`: rankframe cannot compute it."""
        raise self.error()

    iter_calc = calc = calc_aggregate


def _objects() -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, cls in REGISTRY.items():
        try:
            out[name] = as_compat(cls())
        except MeasureError:
            out[name] = Family(_COMPAT[cls])
    return out


_OBJECTS = _objects()
globals().update(_OBJECTS)

# ir_measures' aliases and names for parameter settings
MAP, MRR, NDCG, Precision, Recall = AP, RR, nDCG, P, R  # type: ignore[name-defined] # noqa: F821
RPrec, BPref = Rprec, Bpref  # type: ignore[name-defined] # noqa: F821
MAP_IA = AP_IA  # type: ignore[name-defined] # noqa: F821
SetRelP = as_compat(REGISTRY["SetP"](relative=True))
NumRelRet = as_compat(REGISTRY["NumRet"](rel=1))
ALIASES = {
    "MAP": "AP",
    "MRR": "RR",
    "NDCG": "nDCG",
    "Precision": "P",
    "Recall": "R",
    "RPrec": "Rprec",
    "BPref": "Bpref",
    "MAP_IA": "AP_IA",
}

#: ir_measures' families rankframe lacks, with the provider that computes each.
UNSUPPORTED: dict[str, str] = {}
globals().update({name: Unsupported(name, provider) for name, provider in UNSUPPORTED.items()})
#: ir_measures' Greek spellings of the alpha families.
GREEK = {"\u03b1_nDCG": "alpha_nDCG", "\u03b1_DCG": "alpha_DCG"}
globals().update({greek: globals()[name] for greek, name in GREEK.items()})

__all__ = sorted(  # noqa: PLE0605 - generated from the registry
    [
        *_OBJECTS,
        *ALIASES,
        "SetRelP",
        "NumRelRet",
        *UNSUPPORTED,
        *GREEK,
        "Family",
        "IrMeasure",
        "Unsupported",
        "as_compat",
        "as_rankframe",
    ],
    key=str.lower,
)
