"""ranx's ``fuse`` and ``normalize``: a normalisation, then a fusion method, by name."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from rankframe._errors import InputError
from rankframe.compat.ranx.fusion import fusion_switch
from rankframe.compat.ranx.normalization import norm_switch

if TYPE_CHECKING:
    from rankframe.compat.ranx.data_structures import Run


def normalize(run: Run, norm: str = "min-max") -> Run:
    """``run`` normalised per query by ``norm`` (see :mod:`rankframe.compat.ranx.normalization`).

    Examples
    --------
    >>> from rankframe.compat.ranx import Run
    >>> normalize(Run({"q1": {"d1": 2.0, "d2": 4.0}}), "max").run
    {'q1': {'d2': 1.0, 'd1': 0.5}}
    """
    return norm_switch(norm)(run)


def fuse(
    runs: list[Run], norm: str | None = "min-max", method: str = "wsum",
    params: Mapping[str, Any] | None = None,
) -> Run:
    """ranx's ``fuse``: each run normalised by ``norm``, then fused by ``method`` with ``params``.

    ``norm``: ranx's default ``"min-max"``, ``None`` for the scores as given; ``method``: ranx's
    short names (``"wsum"``, its default, ``"rrf"``, ``"mnz"``...); ``params``: the method's
    arguments (``{"weights": [...]}`` for ``wsum``, ``{"k": 60}`` for ``rrf``). The normalised
    runs are re-sorted (ties in ranx's order) before a method reads their ranks, as in ranx.

    Examples
    --------
    >>> from rankframe.compat.ranx import Run
    >>> a, b = Run({"q1": {"d1": 2.0, "d2": 1.0}}), Run({"q1": {"d2": 3.0, "d1": 1.0}})
    >>> fuse([a, b], params={"weights": [0.5, 0.5]}).run
    {'q1': {'d1': 0.5, 'd2': 0.5}}
    >>> fuse([a, b], norm=None, method="sum").name
    'comb_sum'
    """
    runs = list(runs)
    if len(runs) < 2:
        msg = f"fuse: runs: only {len(runs)} run provided; fusion needs at least 2"
        raise InputError(msg)
    for i, run in enumerate(runs[1:], 1):
        if run.keys() != runs[0].keys():
            msg = f"fuse: runs 0 and {i} query ids do not match (ranx fuses runs over the same queries)"
            raise InputError(msg)
    return fusion_switch(method)(normalize_runs(runs, norm), **dict(params or {}))


def normalize_runs(runs: list[Run], norm: str | None) -> list[Run]:
    """Each run normalised by ``norm`` (borda: the runs together; None: as given), as ``fuse`` does.

    Examples
    --------
    >>> from rankframe.compat.ranx import Run
    >>> [r.run for r in normalize_runs([Run({"q1": {"d1": 2.0, "d2": 4.0}})], "max")]
    [{'q1': {'d2': 1.0, 'd1': 0.5}}]
    """
    if norm is None:
        return runs
    if norm == "borda":
        return norm_switch(norm)(runs)
    return [norm_switch(norm)(run) for run in runs]
