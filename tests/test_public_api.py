"""The public surface is small, frozen here, and documented."""

from __future__ import annotations

import inspect
import subprocess
import sys

import rankframe as rf
from rankframe import expr as rfx
from rankframe._measures import REGISTRY

PUBLIC = {
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
}


def test_public_names_are_frozen() -> None:
    assert set(rf.__all__) == PUBLIC


def test_every_public_name_has_a_docstring() -> None:
    for name in rf.__all__:
        obj = getattr(rf, name)
        assert inspect.getdoc(obj), name
    for name in rfx.__all__:
        assert inspect.getdoc(getattr(rfx, name)), name


def test_every_measure_documents_formula_and_reference() -> None:
    for name, cls in REGISTRY.items():
        doc = inspect.getdoc(cls) or ""
        assert doc, name
        assert "Notes" in doc or "math::" in doc or "References" in doc, f"{name}: no formula/reference"


def test_errors_are_value_errors() -> None:
    assert issubclass(rf.InputError, rf.RankframeError)
    assert issubclass(rf.MeasureError, rf.RankframeError)
    assert issubclass(rf.OutputError, rf.RankframeError)
    assert issubclass(rf.RankframeError, ValueError)


def test_measure_objects_cover_the_registry_and_round_trip() -> None:
    from rankframe import measures

    assert set(measures.__all__) == set(REGISTRY)
    for name in measures.__all__:
        obj = getattr(measures, name)
        m = obj @ 3 if isinstance(obj, measures.MeasureFamily) else obj
        assert rf.parse_measure(repr(m)) == [m], name


def test_family_without_cutoff_explains_itself() -> None:
    import pytest

    from rankframe.measures import Success

    with pytest.raises(rf.MeasureError, match="cutoff"):
        rf.parse_measure(Success)


def test_import_leaves_the_significance_tests_for_first_use() -> None:
    # `import rankframe` stays light (numpy comes with rf.compare, on first use)
    code = (
        "import sys, rankframe as rf; assert 'rankframe._compare.comparison' not in sys.modules; "
        "assert rf.compare.__module__ == 'rankframe._compare.comparison'; "
        "assert 'compare' in dir(rf) and rf.Comparison.__name__ == 'Comparison'; "
        "from rankframe import compare"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
