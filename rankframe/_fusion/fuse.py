""":func:`fuse`: several runs combined into one, as one Polars plan per step."""

from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import polars as pl

from rankframe._engine.options import D, Q, S
from rankframe._errors import InputError
from rankframe._fusion import condorcet as _condorcet  # registers condorcet, w_condorcet
from rankframe._fusion import methods as _methods
from rankframe._fusion import norms as _norms
from rankframe._fusion import trained as _trained
from rankframe._fusion.inputs import RUN, check_wide, read_runs
from rankframe._fusion.methods import Aligned, Method, get_method
from rankframe._fusion.norms import POS, WINDOW, Norm, borda_norm, get_norm


@dataclass(frozen=True)
class Words:
    """How the argument errors name the method, a parameter and the weights (the API's or a CLI's)."""

    method: str = "fuse(method={!r})"
    param: str = "pass params={{{!r}: ...}}"
    weights: str = "weights=[...]"
    weighted: str = "the weighted methods"


#: :func:`fuse`'s own words; ``rankframe fuse`` passes its flags (``--method x``, ``--param``).
API = Words()


def _check_params(method: Method, params: Mapping[str, Any] | None, words: Words = API) -> dict[str, Any]:
    """The method's parameters: the defaults, overridden by ``params``; required ones present."""
    given = dict(params or {})
    given.pop("weights", None)
    if method.trained:
        given.pop(_trained.LEARNT[method.name], None)
    unknown = sorted(set(given) - set(method.params))
    if unknown:
        valid = ", ".join(method.params) or "none"
        msg = f"{words.method.format(method.name)} has no parameter {unknown[0]!r}; its parameters: {valid}."
        raise InputError(msg)
    out = {**method.params, **given}
    learnt = method.trained and _trained.LEARNT[method.name] in (params or {})
    for name, value in out.items():
        if value is None and learnt and name == "n_segments":  # probfuse's is the probs' length
            continue
        if value is None:
            named, how = words.method.format(method.name), words.param.format(name)
            msg = f"{named} needs the parameter {name!r}: {how}."
            raise InputError(msg)
        if not isinstance(value, numbers.Real) or isinstance(value, bool):
            kind = type(value).__name__
            msg = f"The parameter {name!r} of {method.name} must be a number. Got {value!r} ({kind})."
            raise InputError(msg)
    if "sigma" in out and not 0.0 <= out["sigma"] <= 1.0:
        msg = f"The parameter 'sigma' of logn_isr must be in [0, 1]. Got {out['sigma']!r}."
        raise InputError(msg)
    return out


def _check_weights(
    method: Method, weights: Sequence[float] | None, runs: int, words: Words = API
) -> list[float] | None:
    named = words.method.format(method.name)
    if not method.weighted:
        if weights is not None:
            weighted = ", ".join(n for n, m in _methods.METHODS.items() if m.weighted)
            msg = f"{named} takes no weights; {words.weighted}: {weighted}."
            raise InputError(msg)
        return None
    if weights is None:
        msg = f"{named} needs {words.weights}, one number per run ({runs} runs)."
        raise InputError(msg)
    out = list(weights)
    if len(out) != runs or not all(isinstance(w, numbers.Real) and not isinstance(w, bool) for w in out):
        msg = f"{named} needs one weight per run: {runs} numbers. Got {weights!r}."
        raise InputError(msg)
    return [float(w) for w in out]


def check_arguments(
    method: str,
    norm: str | None,
    params: Mapping[str, Any] | None,
    weights: Sequence[float] | None,
    runs: int | None = None,
    *,
    words: Words = API,
) -> tuple[Method, Norm | None, dict[str, Any]]:
    """The method, the normalisation and the parameters, checked (the weights too given ``runs``).

    ``words``: how the errors name the arguments (:data:`API`, or a command line's flags).
    """
    m = get_method(method)
    nm = get_norm(norm)
    p = _check_params(m, params, words)
    if nm is not None and nm.expr is None and m.reads_position:
        msg = (
            f"norm='borda' lists every candidate in each run in no defined order, so "
            f"{m.name!r}, which reads ranks, would be arbitrary; use norm=None with it."
        )
        raise InputError(msg)
    if runs is not None:
        _check_weights(m, weights, runs, words)
    elif weights is not None and not m.weighted:
        _check_weights(m, weights, 0, words)
    return m, nm, p


def _long_plan(frames: list[pl.LazyFrame], norm: Norm | None, positions: bool) -> pl.LazyFrame:
    """The runs stacked, each row's normalised score ``_v`` and, if needed, its position ``_p``."""
    long = pl.concat([lf.with_columns(pl.lit(r, pl.UInt32).alias(RUN)) for r, lf in enumerate(frames)])
    rank = pl.col(S).rank("ordinal", descending=True).over(WINDOW).cast(pl.Int64) - 1
    if positions or (norm is not None and norm.reads_position):
        long = long.with_columns(rank.alias(POS))
    value = norm.expr() if norm is not None and norm.expr is not None else pl.col(S)
    long = long.with_columns(value.alias("_v"))
    if positions and norm is not None and norm.inverts:  # ranx re-sorts a run after inverting it
        long = long.with_columns(
            (pl.col("_v").rank("ordinal", descending=True).over(WINDOW).cast(pl.Int64) - 1).alias(POS)
        )
    return long


def _wide_plan(long: pl.LazyFrame, runs: int, column: str) -> pl.LazyFrame:
    """One row per (query, document): run ``r``'s ``column`` in ``{column}{r}`` (null if absent).

    Each run's column is spread out before the group_by, whose aggregations are then the plain
    ``max`` (one value or none per group and run) and the row count ``_n``, which exposes
    documents retrieved twice.
    """
    source = "_v" if column == "v" else POS
    spread = [pl.when(pl.col(RUN) == r).then(pl.col(source)).alias(f"{column}{r}") for r in range(runs)]
    aggs = [pl.len().alias("_n"), *(pl.col(f"{column}{r}").max() for r in range(runs))]
    return long.with_columns(spread).group_by(Q, D).agg(aggs)


def _trained_long(
    m: Method, long: pl.LazyFrame, runs: int, given: Mapping[str, Any], p: dict[str, Any], qrels: Any
) -> pl.LazyFrame:
    """A trained method's per-row scores, from the learnt values given or learnt from ``qrels``."""
    key = _trained.LEARNT[m.name]
    if key in given:
        learnt = {key: [list(map(float, v)) if key != "map_scores" else float(v) for v in given[key]]}
        if len(learnt[key]) != runs:
            msg = f"params[{key!r}] of {m.name} must hold one entry per run ({runs}). Got {len(learnt[key])}."
            raise InputError(msg)
    elif qrels is None:
        msg = (
            f"fuse(method={m.name!r}) learns from judgments: pass qrels=... (the training queries' "
            f"judgments) or the learnt params={{{key!r}: ...}}."
        )
        raise InputError(msg)
    else:
        from rankframe._engine.prepare import _check_dtypes
        from rankframe._io.readers import read_qrels

        judged = _check_dtypes(read_qrels(qrels), "qrels", "qrels")
        long = long.collect().lazy()  # read once, for the training and the fusion
        learnt = _trained.train(m.name, long, judged, runs, p)
    return _trained.per_row(m.name, long, learnt, p)


def fuse(
    runs: Any,
    method: str = "rrf",
    *,
    norm: str | None = None,
    weights: Sequence[float] | None = None,
    params: Mapping[str, Any] | None = None,
    qrels: Any = None,
    columns: Mapping[str, str] | None = None,
) -> pl.DataFrame:
    r"""Fuse several runs into one, with any of ranx's fusion methods and normalisations.

    Parameters
    ----------
    runs
        The runs: a list or dict ``{name: run}`` of anything :func:`rankframe.read_run` reads
        (paths to TREC run files or Parquet, Polars frames, pytrec_eval dicts, ranx ``Run``\s),
        or one frame whose ``run`` column names the runs. A query missing from a run is a query
        the run retrieved nothing for.
    method
        ``"rrf"`` (default), ``"min"``, ``"max"``, ``"med"``, ``"sum"``, ``"anz"``, ``"mnz"``,
        ``"gmnz"``, ``"isr"``, ``"log_isr"``, ``"logn_isr"``, ``"rbc"``, ``"bordafuse"``,
        ``"w_bordafuse"``, ``"condorcet"``, ``"w_condorcet"``, ``"wsum"``, ``"wmnz"``,
        ``"mixed"``; ranx's names (``weighted_bordafuse``, ``weighted_condorcet``) are accepted.
    norm
        Per run and query, before fusing: ``None`` (default: the scores as given; ranx's
        ``fuse`` defaults to ``"min-max"``), ``"min-max"``, ``"min-max-inverted"``, ``"max"``,
        ``"sum"``, ``"zmuv"``, ``"rank"`` or ``"borda"``.
    weights
        One number per run, for the weighted methods (``wsum``, ``wmnz``, ``mixed``,
        ``w_bordafuse``, ``w_condorcet``).
    params
        The method's parameters: ``k`` of ``rrf`` (60), ``phi`` of ``rbc`` (required),
        ``gamma`` of ``gmnz`` (required), ``sigma`` of ``logn_isr`` (0.01); ``n_segments`` of
        ``probfuse`` and ``w`` of ``slidefuse`` (required). The trained methods' learnt values
        under ranx's names: ``probs`` (probfuse, segfuse, slidefuse, posfuse), ``map_scores``
        (mapfuse), ``log_odds`` (bayesfuse), one entry per run.
    qrels
        Judgments of training queries, for the trained methods (``probfuse``, ``segfuse``,
        ``slidefuse``, ``posfuse``, ``mapfuse``, ``bayesfuse``) when ``params`` does not hold
        their learnt values: they learn from the runs' rankings of the judged queries (relevance
        >= 1 is relevant), then fuse every query.
    columns
        Map canonical name -> column name of the runs, as :func:`rankframe.read_run`.

    Returns
    -------
    polars.DataFrame
        ``query_id``, ``doc_id``, ``score`` (Float64), one row per document any run retrieved
        for a query, sorted by query and descending score: a run for
        :func:`rankframe.evaluate`.

    Raises
    ------
    InputError
        An unknown method or normalisation (the valid ones listed), a missing parameter,
        weights that are not one per run, fewer than 2 runs, an empty run, or a run that
        retrieves a document twice for a query.

    See Also
    --------
    rankframe.evaluate : Evaluate the fused run.

    Notes
    -----
    The definitions and numbers are ranx 0.3.21's (Bassani & Romelli 2022), to the last bit for
    the sums. Ranks (``r = p + 1``) order each run by descending score, ties in input order, as
    ranx does for up to 15 documents per query (beyond that ranx's quicksort is not stable).
    Reciprocal rank fusion, for instance:

    .. math:: \mathrm{RRF}(d) = \sum_{i:\, d \in R_i} \frac{1}{k + r_i(d)}

    and CombMNZ is :math:`|\{i : d \in R_i\}| \sum_i s_i(d)`. ``condorcet`` scores a document
    ``1 + wins + ties / 2`` in pairwise majorities (Copeland), which is ranx's score wherever
    the majority relation orders the documents (ranx's order is arbitrary otherwise).
    ``norm="borda"`` gives each run every candidate in an arbitrary order in ranx, so it is
    refused with methods that read ranks.

    References
    ----------
    Fox, E. A. & Shaw, J. A. (1993). Combination of multiple searches. TREC-2.
    Cormack, G. V., Clarke, C. L. A. & Buettcher, S. (2009). Reciprocal rank fusion outperforms
    Condorcet and individual rank learning methods. SIGIR.
    Montague, M. & Aslam, J. A. (2002). Condorcet fusion for improved retrieval. CIKM.
    Bassani, E. & Romelli, L. (2022). ranx.fuse: A Python library for metasearch. CIKM.

    Examples
    --------
    >>> import rankframe as rf
    >>> bm25 = {"q1": {"d1": 2.0, "d2": 1.0}}
    >>> dense = {"q1": {"d2": 0.9, "d3": 0.8}}
    >>> fused = rf.fuse([bm25, dense], "rrf", params={"k": 60})
    >>> fused["doc_id"].to_list()
    ['d2', 'd1', 'd3']
    >>> round(fused["score"][0], 6) == round(1 / 62 + 1 / 61, 6)  # d2: rank 2 and rank 1
    True
    >>> rf.fuse([bm25, dense], "mnz", norm="min-max")["score"].to_list()
    [2.0, 1.0, 0.0]
    """
    if weights is None and params is not None and "weights" in params:
        weights = params["weights"]
    m, nm, p = check_arguments(method, norm, params, weights)
    names, frames, wheres = read_runs(runs, columns)
    w = _check_weights(m, weights, len(frames))
    positions = m.reads_position or (nm is not None and nm.expr is None)
    column = "p" if positions else "v"
    long = _long_plan(frames, nm, positions)
    if m.trained:
        long = _trained_long(m, long, len(frames), params or {}, p, qrels)
        column = "v"
    wide = _wide_plan(long, len(frames), column).collect()
    check_wide(wide, column, names, wheres)
    lazy = wide.lazy()
    if nm is not None and nm.expr is None:
        lazy = lazy.with_columns(
            borda_norm(pl.col(f"p{r}"), pl.len().over(Q).cast(pl.Float64)).alias(f"v{r}")
            for r in range(len(frames))
        )
    if m.name in ("condorcet", "w_condorcet"):
        fused = _condorcet.condorcet_plan(lazy, len(frames), w)
    else:
        aligned = Aligned(
            v=[pl.col(f"v{r}") for r in range(len(frames))],
            p=[pl.col(f"p{r}") for r in range(len(frames))],
            weights=w,
            params=p,
            reads_position=m.reads_position,
        )
        fused = lazy.select(Q, D, m.combine(aligned).cast(pl.Float64).alias(S))
    return fused.sort([Q, S, D], descending=[False, True, False]).collect()


def method_names() -> list[str]:
    """The fusion methods' names, sorted (ranx's spellings)."""
    return sorted(_methods.METHODS)


def norm_names() -> list[str]:
    """The normalisations' names."""
    return list(_norms.NORMS)
