r"""``ranx.fusion``: ranx 0.3.21's fusion functions, each computed by :func:`rankframe.fuse`.

Each takes a list of ``Run``\s (ranked as stored: ranx's order, ties included) and returns a
``Run`` named as ranx names it (``comb_sum``, ``rrf``, ``weighted_sum`` for :func:`wsum`...),
over the first run's queries. The ``*_train`` functions return what ranx's do (``probs``: one
array per run; ``map_scores``: one float per run; ``log_odds``: one array per run), learnt by
``rankframe.fuse``'s training; pass them to the matching fusion function.

Examples
--------
>>> from rankframe.compat.ranx import Run
>>> from rankframe.compat.ranx.fusion import comb_sum, rrf
>>> a, b = Run({"q1": {"d1": 2.0, "d2": 1.0}}), Run({"q1": {"d2": 3.0}})
>>> comb_sum([a, b]).run
{'q1': {'d2': 4.0, 'd1': 2.0}}
>>> rrf([a, b], k=60).name
'rrf'
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from rankframe._errors import InputError
from rankframe.compat.ranx._fusing import fuse_runs, train
from rankframe.compat.ranx.fusion.bayesfuse import bayesfuse, bayesfuse_train
from rankframe.compat.ranx.fusion.condorcet import condorcet

if TYPE_CHECKING:
    from rankframe.compat.ranx.data_structures import Qrels, Run

__all__ = [
    "bayesfuse", "bayesfuse_train", "bordafuse", "comb_anz", "comb_gmnz", "comb_max", "comb_med",
    "comb_min", "comb_mnz", "comb_sum", "condorcet", "fusion_switch", "isr", "log_isr", "logn_isr",
    "mapfuse", "mapfuse_train", "mixed", "posfuse", "posfuse_train", "probfuse", "probfuse_train",
    "rbc", "rrf", "segfuse", "segfuse_train", "slidefuse", "slidefuse_train", "train_switch",
    "weighted_bordafuse", "weighted_condorcet", "wmnz", "wsum",
]


def comb_sum(runs: list[Run], name: str = "comb_sum") -> Run:
    """CombSUM (Fox & Shaw 1993): the sum of a document's scores."""
    return fuse_runs(runs, "sum", name)


def comb_max(runs: list[Run], name: str = "comb_max") -> Run:
    """CombMAX (Fox & Shaw 1993): a document's highest score."""
    return fuse_runs(runs, "max", name)


def comb_min(runs: list[Run], name: str = "comb_min") -> Run:
    """CombMIN (Fox & Shaw 1993): a document's lowest score over the runs retrieving it."""
    return fuse_runs(runs, "min", name)


def comb_med(runs: list[Run], name: str = "comb_med") -> Run:
    """CombMED (Fox & Shaw 1993): the median of a document's scores."""
    return fuse_runs(runs, "med", name)


def comb_anz(runs: list[Run], name: str = "comb_anz") -> Run:
    """CombANZ (Fox & Shaw 1993): the sum over the number of runs retrieving the document."""
    return fuse_runs(runs, "anz", name)


def comb_mnz(runs: list[Run], name: str = "comb_mnz") -> Run:
    """CombMNZ (Fox & Shaw 1993): the sum times the number of runs retrieving the document."""
    return fuse_runs(runs, "mnz", name)


def comb_gmnz(runs: list[Run], gamma: float, name: str = "comb_gmnz") -> Run:
    """CombGMNZ (Joon Ho Lee 1997): the sum times (runs retrieving it) ** ``gamma``."""
    return fuse_runs(runs, "gmnz", name, params={"gamma": gamma})


def isr(runs: list[Run], name: str = "isr") -> Run:
    """ISR (Mourão et al. 2014): n times the sum of 1 / rank**2."""
    return fuse_runs(runs, "isr", name)


def log_isr(runs: list[Run], name: str = "log_isr") -> Run:
    """Log-ISR (Mourão et al. 2014): log n times the sum of 1 / rank**2."""
    return fuse_runs(runs, "log_isr", name)


def logn_isr(runs: list[Run], sigma: float = 0.01, name: str = "logn_isr") -> Run:
    """LogN-ISR (Mourão et al. 2014): log(n + ``sigma``) times the sum of 1 / rank**2."""
    return fuse_runs(runs, "logn_isr", name, params={"sigma": sigma})


def rrf(runs: list[Run], k: int = 60, name: str = "rrf") -> Run:
    """Reciprocal rank fusion (Cormack et al. 2009): the sum of 1 / (``k`` + rank)."""
    return fuse_runs(runs, "rrf", name, params={"k": k})


def rbc(runs: list[Run], phi: float, name: str = "rbc") -> Run:
    """Rank-biased centroids (Bailey et al. 2017): the sum of (1 - ``phi``) ``phi`` ** (rank - 1)."""
    return fuse_runs(runs, "rbc", name, params={"phi": phi})


def bordafuse(runs: list[Run], name: str = "bordafuse") -> Run:
    """BordaFuse (Aslam & Montague 2001): the Borda counts' sum over the runs."""
    return fuse_runs(runs, "bordafuse", name)


def weighted_bordafuse(runs: list[Run], weights: Sequence[float], name: str = "weighted_bordafuse") -> Run:
    """Weighted BordaFuse (Aslam & Montague 2001): the Borda counts' weighted sum."""
    return fuse_runs(runs, "w_bordafuse", name, weights=weights)


def weighted_condorcet(runs: list[Run], weights: Sequence[float], name: str = "weighted_condorcet") -> Run:
    """Weighted Condorcet (Montague & Aslam 2002): pairwise weighted majorities, Copeland's score."""
    return fuse_runs(runs, "w_condorcet", name, weights=weights)


def wsum(runs: list[Run], weights: Sequence[float], name: str = "weighted_sum") -> Run:
    """The weighted sum of a document's scores."""
    return fuse_runs(runs, "wsum", name, weights=weights)


def wmnz(runs: list[Run], weights: Sequence[float], name: str = "wmnz") -> Run:
    """WMNZ (Wu 2012): the sum times the retrieving runs' weights."""
    return fuse_runs(runs, "wmnz", name, weights=weights)


def mixed(runs: list[Run], weights: Sequence[float], name: str = "mixed") -> Run:
    """Mixed (Wu 2012): the weighted sum times the square root of the retrieving runs' number."""
    return fuse_runs(runs, "mixed", name, weights=weights)


def _learnt(values: Sequence[Any]) -> list[list[float]]:
    return [np.asarray(v, dtype=np.float64).tolist() for v in values]


def probfuse(runs: list[Run], probs: Sequence[Any], name: str = "probfuse") -> Run:
    """ProbFuse (Lillis et al. 2006): P(relevant | segment) / segment number, ``probs`` learnt."""
    return fuse_runs(runs, "probfuse", name, params={"probs": _learnt(probs)})


def probfuse_train(qrels: Qrels, runs: list[Run], n_segments: int) -> list[np.ndarray]:
    """ProbFuse's ``probs``: per run, P(relevant) in each of ``n_segments`` segments."""
    return train("probfuse", qrels, runs, n_segments=n_segments)


def segfuse(runs: list[Run], probs: Sequence[Any], name: str = "segfuse") -> Run:
    """SegFuse (Shokouhi 2007): P(relevant | segment) * (score + 1), ``probs`` learnt."""
    return fuse_runs(runs, "segfuse", name, params={"probs": _learnt(probs)})


def segfuse_train(qrels: Qrels, runs: list[Run]) -> list[np.ndarray]:
    """SegFuse's ``probs``: per run, P(relevant) in each of the 10 growing segments."""
    return train("segfuse", qrels, runs)


def slidefuse(runs: list[Run], probs: Sequence[Any], w: int, name: str = "slidefuse") -> Run:
    """SlideFuse (Lillis et al. 2008): P(relevant) averaged over ranks rank - ``w``..rank + ``w``."""
    return fuse_runs(runs, "slidefuse", name, params={"probs": _learnt(probs), "w": w})


def slidefuse_train(qrels: Qrels, runs: list[Run]) -> list[np.ndarray]:
    """SlideFuse's ``probs``: per run, P(relevant | rank)."""
    return train("slidefuse", qrels, runs)


def posfuse(runs: list[Run], probs: Sequence[Any], name: str = "posfuse") -> Run:
    """PosFuse (Lillis et al. 2010): P(relevant | rank), ``probs`` learnt."""
    return fuse_runs(runs, "posfuse", name, params={"probs": _learnt(probs)})


def posfuse_train(qrels: Qrels, runs: list[Run]) -> list[np.ndarray]:
    """PosFuse's ``probs``: per run, P(relevant | rank)."""
    return train("posfuse", qrels, runs)


def mapfuse(runs: list[Run], map_scores: Sequence[float], name: str = "mapfuse") -> Run:
    """MAPFuse (Lillis et al. 2010): the run's MAP / rank, ``map_scores`` learnt."""
    return fuse_runs(runs, "mapfuse", name, params={"map_scores": [float(m) for m in map_scores]})


def mapfuse_train(qrels: Qrels, runs: list[Run]) -> list[float]:
    """MAPFuse's ``map_scores``: each run's MAP on ``qrels``."""
    return train("mapfuse", qrels, runs)


_METHODS: dict[str, Callable[..., Run]] = {
    "bayesfuse": bayesfuse, "bordafuse": bordafuse, "anz": comb_anz, "gmnz": comb_gmnz,
    "max": comb_max, "med": comb_med, "min": comb_min, "mnz": comb_mnz, "sum": comb_sum,
    "condorcet": condorcet, "isr": isr, "log_isr": log_isr, "logn_isr": logn_isr,
    "mapfuse": mapfuse, "mixed": mixed, "posfuse": posfuse, "probfuse": probfuse, "rbc": rbc,
    "rrf": rrf, "segfuse": segfuse, "slidefuse": slidefuse, "w_bordafuse": weighted_bordafuse,
    "w_condorcet": weighted_condorcet, "wmnz": wmnz, "wsum": wsum,
}
_TRAIN: dict[str, Callable[..., list[Any]]] = {
    "bayesfuse": bayesfuse_train, "mapfuse": mapfuse_train, "posfuse": posfuse_train,
    "probfuse": probfuse_train, "segfuse": segfuse_train, "slidefuse": slidefuse_train,
}


def fusion_switch(method: str) -> Callable[..., Run]:
    """The fusion function called ``method`` (ranx's short names: ``"sum"``, ``"w_condorcet"``...).

    Examples
    --------
    >>> fusion_switch("sum").__name__
    'comb_sum'
    """
    if method not in _METHODS:
        msg = f"Fusion method {method} not supported; valid: {', '.join(sorted(_METHODS))}."
        raise InputError(msg)
    return _METHODS[method]


def train_switch(method: str) -> Callable[..., list[Any]]:
    """The training function of the trained method ``method`` (``"probfuse"``...).

    Examples
    --------
    >>> train_switch("posfuse").__name__
    'posfuse_train'
    """
    if method not in _TRAIN:
        msg = f"Fusion method {method} learns nothing; the trained ones: {', '.join(sorted(_TRAIN))}."
        raise InputError(msg)
    return _TRAIN[method]
