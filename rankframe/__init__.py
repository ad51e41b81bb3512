"""rankframe: trec_eval-exact ranking evaluation as lazy Polars expressions.

Examples
--------
>>> import polars as pl
>>> import rankframe as rf
>>> qrels = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "relevance": [1, 0]})
>>> run = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "score": [1.0, 2.0]})
>>> rf.evaluate(qrels, run, ["nDCG@10", "RR"])["value"].round(4).to_list()
[0.6309, 0.5]
"""

# ruff: noqa: E402 (the malloc cap below runs before the imports that start Polars)
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rankframe._engine.allocator import configure as _configure_allocators

# before Polars loads and starts its threads: under ulimit -v, glibc's per-thread malloc arenas
# would reserve 64 MiB of address space each, and Polars' jemalloc would keep every mapping it
# has made (see rankframe._engine.allocator)
_configure_allocators()

from rankframe import expr, measures, sql
from rankframe._engine.evaluate import evaluate, explain
from rankframe._engine.judged import judged_frame
from rankframe._errors import InputError, MeasureError, OutputError, RankframeError, RankframeWarning
from rankframe._io.readers import read_judged, read_qrels, read_run
from rankframe._measures import Measure, load_all
from rankframe._measures._names import parse_measure, valid_names
from rankframe._version import __version__ as __version__

if TYPE_CHECKING:
    from rankframe._compare.comparison import Comparison, compare
    from rankframe._fusion.fuse import fuse

load_all()


def __getattr__(name: str) -> Any:
    # significance tests pull in numpy: imported on first use, not with the package
    if name in ("compare", "Comparison"):
        from rankframe._compare import comparison as _compare

        return getattr(_compare, name)
    if name == "fuse":  # the fusion plans, imported on first use too
        from rankframe._fusion.fuse import fuse

        return fuse
    msg = f"module 'rankframe' has no attribute {name!r}"
    raise AttributeError(msg)


__all__ = [
    "Comparison",
    "InputError",
    "Measure",
    "MeasureError",
    "OutputError",
    "RankframeError",
    "RankframeWarning",
    "compare",
    "evaluate",
    "explain",
    "expr",
    "fuse",
    "judged_frame",
    "measures",
    "parse_measure",
    "read_judged",
    "read_qrels",
    "read_run",
    "sql",
    "valid_names",
]


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
