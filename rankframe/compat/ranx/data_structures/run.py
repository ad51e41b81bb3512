"""ranx's ``Run``: a system's scores ``{query: {doc: score}}``, and the metric values it keeps."""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Any

from rankframe.compat.ranx.data_structures._base import RankedDict, get_file_kind, read_json, read_trec

if TYPE_CHECKING:
    from rankframe.compat.ranx.data_structures.qrels import Qrels

__all__ = ["Run", "get_file_kind"]


class Run(RankedDict):
    """A run as ranx holds it: ``Run({"q1": {"d1": 0.5}}, name="bm25")``, ``.run["q1"]["d1"]``.

    Scores are floats; queries are kept sorted by id and documents by score in ranx's tie order.
    After :func:`~rankframe.compat.ranx.evaluate`, ``mean_scores``, ``scores`` (per query) and
    ``std_scores`` hold the values, as in ranx.

    Examples
    --------
    >>> run = Run({"q1": {"a": 1.0, "b": 2.0, "c": 1.0}}, name="bm25")
    >>> list(run.run["q1"]), run.name
    (['b', 'a', 'c'], 'bm25')
    """

    _cast = float

    def __init__(self, run: Any = None, name: str | None = None) -> None:
        super().__init__(run, name=name)
        self.scores: defaultdict[str, dict[str, float]] = defaultdict(dict)
        self.mean_scores: dict[str, float] = {}
        self.std_scores: dict[str, float] = {}

    @property
    def run(self) -> dict[str, dict[str, float]]:
        """The scores, ``{query: {doc: score}}`` (live: edits are kept)."""
        return self._data

    @run.setter
    def run(self, value: dict[str, dict[str, float]]) -> None:
        self._data = value

    def make_comparable(self, qrels: Qrels) -> Run:
        """Give the queries of ``qrels`` the run lacks an empty ranking and drop the others."""
        self._data = {q: self._data.get(q, {}) for q in qrels.qrels}
        self.sort()
        return self

    def save(self, path: str = "run.json", kind: str | None = None) -> None:
        """Write as JSON, LZ4, Parquet or a TREC run (``q Q0 doc rank score name``)."""
        self._save(path, kind, lambda q, d, rank, s: f"{q} Q0 {d} {rank} {s} {self.name}")

    @staticmethod
    def from_file(path: str, kind: str | None = None, name: str | None = None) -> Run:
        """Read a TREC run (also ``.gz``; its tag is the name unless given), JSON, LZ4 or Parquet."""
        kind = get_file_kind(path, kind)
        if kind == "parquet":
            return Run.from_parquet(path, name=name)
        if kind in ("json", "lz4"):
            return Run(read_json(path, kind), name=name)
        data, tag = read_trec(path, kind, 6, float)
        return Run(data, name=name if name is not None else tag)

    @staticmethod
    def from_ranxhub(id: str) -> Run:  # noqa: A002 (ranx's parameter name)
        """Not in the drop-in: ranx downloads the run ``id`` from ranxhub.ai."""
        msg = (f"Run.from_ranxhub({id!r}): downloads from ranxhub are not in rankframe.compat.ranx; "
               "download the run and read it with Run.from_file")
        raise NotImplementedError(msg)
