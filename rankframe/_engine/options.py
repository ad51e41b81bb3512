"""What a plan is given: the column names it shares, the options (trec_eval's defaults), the inputs."""

from __future__ import annotations

import operator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

import polars as pl

from rankframe._errors import MeasureError

if TYPE_CHECKING:
    from collections.abc import MutableMapping

    from rankframe._io.sides import Sides
    from rankframe._measures import Measure, PopulationCtx

Q, D, S, REL, RANK = "query_id", "doc_id", "score", "relevance", "_rank"
TARGET = "_target"
HAS_RUN, HAS_QRELS = "_has_run", "_has_qrels"
#: Retrieved documents of each (group, query) row of the plan's result (for progress reports).
N_RET = "_n_ret"
#: In-plan input checks (see :func:`per_query_plan`'s ``checks``): a bad run row, a bad
#: judgment, a (query, doc) pair seen twice in a group.
BAD_RUN, BAD_QRELS, DUP = "_bad_run", "_bad_qrels", "_dup"
CHECKS = (BAD_RUN, BAD_QRELS, DUP)

#: The largest ``depth``: ranks are UInt32.
MAX_DEPTH = 2**32 - 1

TiePolicy = Literal["trec_eval", "average", "input"]
TIE_POLICIES = ("trec_eval", "average", "input")


def confidence(aggregate: object) -> float | None:
    """The confidence level of an ``aggregate="ciNN"`` option (0.95 for ``"ci95"``), else None.

    Examples
    --------
    >>> confidence("ci95"), confidence("ci99"), confidence("mean"), confidence("ci100")
    (0.95, 0.99, None, None)
    """
    if not isinstance(aggregate, str) or not aggregate.startswith("ci"):
        return None
    try:
        level = float(aggregate[2:]) / 100.0
    except ValueError:
        return None
    return level if 0.0 < level < 1.0 else None


@dataclass(frozen=True)
class Options:
    """Evaluation options (trec_eval's defaults)."""

    complete: bool = False
    depth: int | None = None
    relevance_level: int = 1
    ties: TiePolicy = "trec_eval"
    score_dtype: Literal["float64", "float32"] = "float64"
    judged_only: bool = False
    #: A run column holding the target ranking (a second score or a rank), for the measures
    #: that compare two rankings; ``None``: the relevance grades are the target.
    target: str | None = None
    #: ``"desc"``: larger target values rank first (scores); ``"asc"``: smaller first (ranks).
    target_order: Literal["desc", "asc"] = "desc"
    #: Queries without a relevant judgment (grade >= ``relevance_level``): ``"zero"``, scored
    #: 0 by every measure (trec_eval); ``"skip"``, left out of the evaluation (TorchMetrics'
    #: ``empty_target_action="skip"``, RePlay and Recommenders dropping users without positives).
    empty_queries: Literal["zero", "skip"] = "zero"
    #: How per-query values become one per group: ``"mean"`` (measures that sum or take a
    #: geometric mean keep theirs), ``"median"``, or ``"ciNN"``: the half-width of the normal
    #: NN% confidence interval of the mean, z * sd / sqrt(n) (RePlay's ``ConfidenceInterval``).
    aggregate: str = "mean"
    #: Duplicate (query, doc) rows of a run: ``None`` refuses them (trec_eval); ``"best"`` keeps
    #: the highest-scoring row, ``"first"`` the first (in file order where lines are known).
    dedupe: Literal["best", "first"] | None = None

    def __post_init__(self) -> None:
        if self.dedupe not in (None, "best", "first"):
            msg = f"The 'dedupe' option must be None, 'best' or 'first'. Got {self.dedupe!r}."
            raise MeasureError(msg)
        if self.empty_queries not in ("zero", "skip"):
            msg = f"The 'empty_queries' option must be 'zero' or 'skip'. Got {self.empty_queries!r}."
            raise MeasureError(msg)
        if confidence(self.aggregate) is None and self.aggregate not in ("mean", "median"):
            msg = (
                "The 'aggregate' option must be 'mean', 'median' or 'ciNN' (the half-width of "
                f"the NN% confidence interval of the mean, e.g. 'ci95'). Got {self.aggregate!r}."
            )
            raise MeasureError(msg)
        if self.target is not None and not isinstance(self.target, str):
            msg = f"The 'target' option must be a column name. Got {self.target!r}."
            raise MeasureError(msg)
        if self.target_order not in ("desc", "asc"):
            msg = f"The 'target_order' option must be 'desc' or 'asc'. Got {self.target_order!r}."
            raise MeasureError(msg)
        if self.depth is not None:
            try:  # an int (numpy's too), not a float, a string or a bool
                depth = operator.index(self.depth) if not isinstance(self.depth, bool) else 0
            except TypeError:
                depth = 0
            if not 1 <= depth <= MAX_DEPTH:  # ranks are UInt32
                msg = (
                    f"The 'depth' option must be an int >= 1 (at most {MAX_DEPTH}) or None. "
                    f"Got {self.depth!r} ({type(self.depth).__name__})."
                )
                raise MeasureError(msg)
        for name in ("complete", "judged_only"):
            if getattr(self, name) not in (True, False):
                value = getattr(self, name)
                msg = f"The {name!r} option must be True or False. Got {value!r} ({type(value).__name__})."
                raise MeasureError(msg)
        if self.ties not in TIE_POLICIES:
            msg = f"The 'ties' option must be one of {TIE_POLICIES}. Got {self.ties!r}."
            raise MeasureError(msg)
        if self.score_dtype not in ("float64", "float32"):
            msg = f"The 'score_dtype' option must be 'float64' or 'float32'. Got {self.score_dtype!r}."
            raise MeasureError(msg)
        if isinstance(self.relevance_level, bool) or not isinstance(self.relevance_level, int):
            msg = (
                "The 'relevance_level' option must be an int. "
                f"Got {self.relevance_level!r} ({type(self.relevance_level).__name__})."
            )
            raise MeasureError(msg)


@dataclass
class Prepared:
    """Inputs after reading, mapping and validation, ready for the planner."""

    run: pl.LazyFrame
    qrels: pl.LazyFrame
    keys: list[str]
    measures: list[Measure]
    opts: Options
    run_where: str
    qrels_where: str
    #: For several runs: run name -> the source it came from (for error messages).
    run_sources: dict[str, str] = field(default_factory=dict)
    #: Whether qrels were given (else a target column judges the run).
    qrels_given: bool = True
    #: Preference pairs ``query_id, _a, _b`` when they are the target (``prefs=...``).
    pairs: pl.LazyFrame | None = None
    #: Every (run, breakdown) group, when ``run`` is one query partition of the evaluation.
    groups: pl.LazyFrame | None = None
    #: The name of the run when it is one of several evaluated apart (a ``run`` column is then
    #: added to its per-query rows).
    run_name: str | None = None
    #: Shared by runs evaluated apart against the same judgments: the judgment-side per-query
    #: frames of the hits plan, computed for the first run only (see :func:`hits_plan`).
    judgment_cache: MutableMapping | None = None
    #: The side inputs (training interactions, catalogue, reference run), read and aligned.
    sides: Sides | None = None
    #: The side inputs' constants (catalogue size, users...), computed once in ``prepare``.
    constants: PopulationCtx | None = None
    #: The Polars engine the per-query plan is collected with: ``"auto"`` (Polars' default,
    #: streaming), or ``"in-memory"`` for small frames already in memory (:data:`SMALL_ROWS`)
    #: whose measures are never negative.
    engine: Literal["auto", "in-memory"] = "auto"


#: Input rows (run and judgments, frames in memory) up to which the plan runs on Polars'
#: in-memory engine when its measures are never negative (``evaluate._engine``): its fixed
#: cost per node is lower than the streaming engine's, which wins past ~100k rows (2-core
#: machine, five measures: 10k rows 25 vs 33-53 ms, 100k rows even, 1M rows 0.89-0.95 vs
#: 0.76-0.81 s; benchmarks/RESULTS.md, issue 41). Same values, bit for bit.
SMALL_ROWS = 100_000
