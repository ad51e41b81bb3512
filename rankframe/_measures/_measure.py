"""The measure base class: a parametrised, immutable, hashable family whose ``repr`` is its name.

A measure family (``P``, ``AP``, ``nDCG``...) is a subclass of :class:`Measure` that declares its
parameters as data and builds one aggregation expression from a :class:`Ctx`. An instance is one
fully parametrised measure (``P@5``); its ``repr`` is the canonical ir_measures-style name.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import TYPE_CHECKING, Any, ClassVar, Literal

import polars as pl

from rankframe._errors import MeasureError
from rankframe._measures._params import Aggregation, Param, _coerce, _format_number, _format_value

if TYPE_CHECKING:
    from rankframe._measures._ctx import Ctx, PopulationCtx
    from rankframe._measures._sql import SqlCtx


#: The side input (``evaluate``'s keyword) each side column of :meth:`Ctx.side` comes from.
SIDE_ROLES: dict[str, str] = {
    "seen": "interactions", "item_users": "interactions", "item_interactions": "interactions",
    "item_head": "interactions", "item_known": "interactions", "user_known": "interactions",
    "history_similarity": "interactions", "n_users": "interactions", "n_items": "interactions",
    "n_interactions": "interactions", "category": "items", "features": "items",
    "popularity": "items", "ref_rank": "reference", "ref_count": "reference",
    # the catalogue: items=... when given, else the history's items
    "in_catalogue": "items or interactions", "n_catalogue": "items or interactions",
}


class Measure:
    """A parametrised ranking measure (base class of every measure family).

    Subclasses set ``NAME`` (ir_measures-style name), ``PARAMS`` (declarations),
    ``AGGREGATE`` (how per-query values combine), ``UNDEFINED`` (documented value on undefined
    queries) and implement :meth:`expr`. Instances are immutable and hashable; ``repr`` is the
    canonical name and parses back to an equal object.
    """

    NAME: ClassVar[str]
    PARAMS: ClassVar[tuple[Param, ...]] = ()
    AGGREGATE: ClassVar[Aggregation] = "mean"
    DTYPE: ClassVar[type[pl.DataType] | pl.DataType] = pl.Float64
    #: Extra names accepted by the parser (ranx-style, lower-case), mapped to default params.
    ALIASES: ClassVar[Mapping[str, Mapping[str, Any]]] = {}
    #: Whether the "average" tie policy is supported (see the planner).
    SUPPORTS_AVERAGE_TIES: ClassVar[bool] = False
    #: Whether the measure compares the predicted ranking with a target ranking (accepts
    #: ``target=`` columns and keeps predicted ties under ``ties="average"`` by itself).
    COMPARES_RANKINGS: ClassVar[bool] = False
    #: Whether the measure needs :attr:`Ctx.levels` (the planner then scans the targets).
    NEEDS_LEVELS: ClassVar[bool] = False
    #: Whether the measure is defined on a set of target preference pairs alone (it may then
    #: be evaluated against ``evaluate(prefs=...)``).
    PAIRWISE_TARGET: ClassVar[bool] = False
    #: Whether the value depends only on the retrieved documents judged at or above the
    #: measure's level (:meth:`hit_level`), their ranks and grades, :attr:`Ctx.num_ret` and
    #: :meth:`Ctx.judgments` statistics: other rows contribute nothing. The planner then joins
    #: only those judgments to the run (a far smaller group_by, DESIGN.md §4). A test evaluates
    #: every such family both ways and compares the bits.
    HITS_ONLY: ClassVar[bool] = False
    #: For a hits-only measure that also reads judgments below its level: the lowest grade it
    #: reads whatever its level, ``0`` (the judged non-relevant documents: bpref) or
    #: :data:`ANY_GRADE` (every judgment, negative grades included: Judged, infAP).
    HIT_FLOOR: ClassVar[int | None] = None
    #: The range every per-query value lies in by definition (``(0.0, 1.0)`` for precisions,
    #: recalls, reciprocal ranks, AUCs; ``(-1.0, 1.0)`` for rank correlations), or ``None``
    #: (DCG, counts, utilities). Read through :meth:`bounds`: comparisons clip the intervals of
    #: means and differences to it.
    BOUNDS: ClassVar[tuple[float, float] | None] = None
    #: ``"query"``: a value per query, aggregated across queries (:attr:`AGGREGATE`);
    #: ``"population"``: one value per run (or breakdown group) computed from every query's
    #: top documents at once (catalogue coverage, Gini of exposure...). For a population
    #: measure :meth:`expr` gives a per-query *state* (e.g. the list of the top ``k`` items) and
    #: :meth:`population` reduces the states of a group's evaluated queries to its value;
    #: ``per_query=True`` leaves such measures out (with a warning), comparisons have no
    #: per-query values to pair for them.
    KIND: ClassVar[Literal["query", "population"]] = "query"
    #: The side-input columns the measure reads (:meth:`Ctx.side`): ``"seen"``,
    #: ``"item_users"``, ``"item_interactions"`` (from ``interactions=``, the training
    #: history), ``"category"``, ``"features"``, ``"popularity"`` (from ``items=``, the
    #: catalogue), ``"ref_rank"`` (from ``reference=``, another run). The planner joins them to
    #: the top of each ranking only (the rows of rank <= :attr:`top`).
    SIDE_COLUMNS: ClassVar[frozenset[str]] = frozenset()
    #: Whether the value reads judgments. Measures that do not (coverage, novelty, diversity)
    #: are computed from the run's rankings and side inputs alone: ``qrels`` may then be
    #: omitted, and every query of the run is evaluated.
    NEEDS_JUDGMENTS: ClassVar[bool] = True
    #: For a measure that reads no judgments: its value on a query without recommendations
    #: (a judged query missing from the run, ``complete=True``); ``None``: undefined, left
    #: out of the mean.
    EMPTY: ClassVar[float | None] = 0.0

    __slots__ = ("_params",)

    def __init__(self, **params: Any) -> None:
        declared = {p.name: p for p in self.PARAMS}
        unknown = set(params) - set(declared)
        if unknown:
            allowed = ", ".join(declared) or "none"
            msg = (
                f"{self.NAME} has no parameter {', '.join(sorted(unknown))}. "
                f"Allowed parameters: {allowed}."
            )
            raise MeasureError(msg)
        values = {}
        for name, p in declared.items():
            values[name] = _coerce(self.NAME, p, params.get(name, p.default))
        object.__setattr__(self, "_params", values)
        self.validate()

    def validate(self) -> None:
        """Check cross-parameter constraints (override in families that need it)."""

    def __setattr__(self, name: str, value: Any) -> None:
        msg = f"{type(self).__name__} objects are immutable"
        raise AttributeError(msg)

    def __getattr__(self, name: str) -> Any:
        try:
            return object.__getattribute__(self, "_params")[name]
        except KeyError:
            raise AttributeError(name) from None

    @property
    def params(self) -> dict[str, Any]:
        """The parameter values, defaults included."""
        return dict(self._params)

    def replace(self, **params: Any) -> Measure:
        """Return a copy with some parameters changed."""
        return type(self)(**{**self._params, **params})

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other._params == self._params  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((type(self).__name__, tuple(sorted(self._params.items(), key=str))))

    def __repr__(self) -> str:
        parts = []
        for p in self.PARAMS:
            if p.name == "cutoff":
                continue
            v = self._params[p.name]
            if v == p.default:
                continue
            parts.append(f"{p.name}={_format_value(p, v)}")
        s = self.NAME + (f"({','.join(parts)})" if parts else "")
        cutoff = self._params.get("cutoff")
        if cutoff is not None:
            s += f"@{_format_number(cutoff)}"
        return s

    __str__ = __repr__

    def __matmul__(self, cutoff: Any) -> Measure:
        """``P @ 5`` is ``P@5`` (ir_measures style)."""
        return self.replace(cutoff=cutoff)

    def __call__(self, **params: Any) -> Measure:
        """``P(rel=2)`` returns a new measure with ``rel=2``."""
        return self.replace(**params)

    def aggregation(self, ctx: Ctx) -> pl.Expr:
        """Return the per-query expression, named by ``repr``, with ``judged_only`` applied."""
        if self._params.get("judged_only"):
            ctx = ctx.only_judged()
        return self.expr(ctx).alias(repr(self))

    def expr(self, ctx: Ctx) -> pl.Expr:
        """Return the per-query aggregation expression of this measure (subclasses)."""
        raise NotImplementedError

    @classmethod
    def side_inputs(cls, given: Collection[str]) -> set[str]:
        """The side inputs the family reads (:attr:`SIDE_COLUMNS`), ``given`` those passed.

        The catalogue's columns come from ``items`` when it is given, else from the history.

        Examples
        --------
        >>> from rankframe._measures import REGISTRY, load_all
        >>> load_all()
        >>> sorted(REGISTRY["Gini"].side_inputs(set())), sorted(REGISTRY["Gini"].side_inputs({"items"}))
        (['interactions'], ['items'])
        """
        either = "items" if "items" in given else "interactions"
        roles = (SIDE_ROLES[c] for c in cls.SIDE_COLUMNS)
        return {either if role == "items or interactions" else role for role in roles}

    def population(self, state: pl.Expr, ctx: PopulationCtx) -> pl.Expr:
        """Reduce the per-query states (:meth:`expr`) of a group's queries to its value.

        Population measures (:attr:`KIND`) only: ``state`` is the column of the states inside
        the ``group_by`` of the (run, breakdown) groups; ``ctx`` holds the side inputs'
        constants (catalogue size, number of users).
        """
        msg = f"{self.NAME} is not a population measure"
        raise NotImplementedError(msg)

    @property
    def top(self) -> int | None:
        """The ranks a side-input measure reads: its cutoff (None: the whole ranking)."""
        return self._params.get("cutoff")

    def sql(self, q: SqlCtx) -> str:
        """Return the per-query value as SQL over the aggregates ``q`` registers.

        Families that compile to SQL override it (``rankframe.sql``); it raises
        NotImplementedError where the family, or one of this measure's parameters, has no SQL.
        """
        msg = f"{self.NAME} has no SQL form"
        raise NotImplementedError(msg)

    def bounds(self) -> tuple[float, float] | None:
        """The range of this measure's per-query values by definition (:attr:`BOUNDS`), or None."""
        return self.BOUNDS

    def hit_level(self, relevance_level: int) -> int | None:
        """The lowest grade whose retrieved documents the value reads (see :attr:`HITS_ONLY`).

        ``None``: the measure needs every row (not hits-only, or ``judged_only``). The default
        is the measure's ``rel`` parameter, else the evaluation's relevance level, lowered to
        :attr:`HIT_FLOOR` when the measure has one.
        """
        if not self.HITS_ONLY or self._params.get("judged_only"):
            return None
        rel = self._params.get("rel")
        level = relevance_level if rel is None else rel
        return level if self.HIT_FLOOR is None else min(self.HIT_FLOOR, level)
