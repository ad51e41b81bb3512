"""ranx's ``Qrels``: relevance judgments ``{query: {doc: grade}}``."""

from __future__ import annotations

from typing import Any

from rankframe.compat.ranx.data_structures._base import RankedDict, get_file_kind, read_json, read_trec

__all__ = ["Qrels", "get_file_kind"]


class Qrels(RankedDict):
    """Judgments as ranx holds them: ``Qrels({"q1": {"d1": 1}})``, ``.qrels["q1"]["d1"]``.

    Grades are ints; queries are kept sorted by id and documents by grade (ranx's order).

    Examples
    --------
    >>> qrels = Qrels({"q2": {"a": 1}, "q1": {"b": 1, "c": 2}}, name="judged")
    >>> qrels.size, list(qrels.qrels), list(qrels.qrels["q1"])
    (2, ['q1', 'q2'], ['c', 'b'])
    """

    _cast = int

    @property
    def qrels(self) -> dict[str, dict[str, int]]:
        """The judgments, ``{query: {doc: grade}}`` (live: edits are kept)."""
        return self._data

    @qrels.setter
    def qrels(self, value: dict[str, dict[str, int]]) -> None:
        self._data = value

    def set_relevance_level(self, rel_lvl: int = 1) -> None:
        """Shift every grade down by ``rel_lvl - 1`` (ranx's way of raising the relevance level)."""
        self._data = {q: {d: g - (rel_lvl - 1) for d, g in docs.items()} for q, docs in self._data.items()}

    def save(self, path: str = "qrels.json", kind: str | None = None) -> None:
        """Write as JSON, LZ4, Parquet or TREC qrels (``q 0 doc grade``), by extension or ``kind``."""
        self._save(path, kind, lambda q, d, _rank, g: f"{q} 0 {d} {g}")

    @staticmethod
    def from_file(path: str, kind: str | None = None) -> Qrels:
        """Read TREC qrels (also ``.gz``), JSON, LZ4 or Parquet, by extension or ``kind``."""
        kind = get_file_kind(path, kind)
        if kind == "parquet":
            return Qrels.from_parquet(path)
        data: Any = read_json(path, kind) if kind in ("json", "lz4") else read_trec(path, kind, 4, int)[0]
        return Qrels(data)
