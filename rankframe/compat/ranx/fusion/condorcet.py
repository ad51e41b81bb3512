"""``ranx.fusion.condorcet``: Condorcet fusion (Montague & Aslam 2002), through :func:`rankframe.fuse`.

``get_candidates`` and ``get_results`` are ranx's helpers over the runs' ``.run`` dicts: the
documents each query's runs retrieve, and each run's ranking per query.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from rankframe.compat.ranx._fusing import fuse_runs

if TYPE_CHECKING:
    from rankframe.compat.ranx.data_structures import Run

__all__ = ["condorcet", "get_candidates", "get_results"]


def condorcet(runs: list[Run], name: str = "condorcet") -> Run:
    """Condorcet fusion: pairwise majorities of the runs, scored ``1 + wins + ties / 2`` (Copeland).

    That is ranx's score wherever the majorities order the documents.
    """
    return fuse_runs(runs, "condorcet", name)


def get_candidates(runs: Sequence[Mapping[str, Mapping[str, Any]]]) -> list[list[str]]:
    """Per query of the first run, the documents any run retrieves (each once)."""
    return [
        list(dict.fromkeys(d for run in runs for d in run.get(q, {})))
        for q in runs[0]
    ]


def get_results(runs: Sequence[Mapping[str, Mapping[str, Any]]]) -> list[list[list[str]]]:
    """Per query of the first run, each run's doc ids in its ranking order."""
    return [[list(run.get(q, {})) for run in runs] for q in runs[0]]
