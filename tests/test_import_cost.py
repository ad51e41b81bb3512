"""``import rankframe`` and a small evaluation load only what evaluating needs (issue 41).

The statistics (numpy, scipy), SQL (sqlglot), reports (matplotlib), other engines (DuckDB,
Spark) and Arrow are imported on first use of the features that need them, so that a short
command or a training loop's validation pays for Polars alone. Checked in a fresh interpreter
(``sys.modules`` after the import and after an evaluation), never timed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: Packages that no evaluation of frames or TREC files needs.
HEAVY = {
    "numpy",
    "pyarrow",
    "pandas",
    "scipy",
    "sqlglot",
    "matplotlib",
    "pyspark",
    "duckdb",
    "cloudpickle",
    "sklearn",
}

LOADED = f"""
import json, sys
print(json.dumps(sorted({{m.split(".")[0] for m in sys.modules}} & set({sorted(HEAVY)!r}))))
"""


def _heavy_loaded(code: str) -> list[str]:
    """The packages of :data:`HEAVY` loaded after running ``code`` in a fresh interpreter."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run(
        [sys.executable, "-c", code + LOADED],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_import_loads_no_heavy_dependency() -> None:
    assert _heavy_loaded("import rankframe") == []


def test_public_attributes_still_load_on_demand() -> None:
    # the lazy attributes resolve (compare pulls in the statistics, as it should)
    code = (
        "import rankframe as rf\n"
        "assert rf.sql.query and rf.expr and rf.measures.AP and rf.Comparison and rf.compare\n"
    )
    assert "numpy" in _heavy_loaded(code)


def test_evaluating_frames_and_files_loads_no_heavy_dependency() -> None:
    code = """
import polars as pl, rankframe as rf
qrels = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "relevance": [1, 0]})
run = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "score": [1.0, 2.0]})
rf.evaluate(qrels, run, ["nDCG@10", "AP", "RR", "P@10", "R@100"])
rf.evaluate("data/qrels.dl19-passage.txt", "data/run.dl19.bm25.txt", ["AP"], per_query=True)
"""
    assert _heavy_loaded(code) == []


def test_trec_eval_command_loads_no_heavy_dependency() -> None:
    code = """
import contextlib, io
from rankframe._cli.main import main
with contextlib.redirect_stdout(io.StringIO()):
    assert main(["trec_eval", "-m", "all_trec", "data/qrels.dl19-passage.txt",
                 "data/run.dl19.bm25.txt"]) == 0
"""
    assert _heavy_loaded(code) == []
