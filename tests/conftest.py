"""Shared test configuration: hypothesis profiles.

Pick a profile with ``HYPOTHESIS_PROFILE=<name>`` (default ``ci``):

* ``ci``: a modest number of examples, no deadline (polars' first call compiles plans, so
  per-example timings are noisy), derandomised so that CI runs are reproducible;
* ``dev``: fewer examples, for a quick local loop;
* ``thorough``: many examples, for a nightly or a pre-release run;
* ``lowest``: half of ``ci``'s examples, derandomised: CI's second run of the suite, at the
  lowest declared versions (``.ci/check-install``), which checks versions more than data.

Test modules share helpers by importing each other (``from tests.test_sql import COMPILED``). Under
``--import-mode=importlib`` a plain ``pytest`` (pytest 8.0) finds such a module only once collected,
so the repository's root is put on ``sys.path`` here: ``tests`` is then importable (a namespace
package) whatever the order of collection, and when the imported module is not collected at all
(``--ignore``, ``-k``, one file run alone).

Tests that want more examples than the default ask for a multiple of the profile's number
(``settings.default.max_examples * 30 // 20``), so that every profile scales them.
"""

from __future__ import annotations

import os
import shutil
import sys
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

_COMMON = {
    "deadline": None,
    "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large],
    "print_blob": True,
}

settings.register_profile("ci", max_examples=5, derandomize=True, **_COMMON)  # CI under 30 min
settings.register_profile("dev", max_examples=10, **_COMMON)
settings.register_profile("thorough", max_examples=500, **_COMMON)
settings.register_profile("lowest", max_examples=4, derandomize=True, **_COMMON)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

#: The peers' vendored test suites are run by tests/peer_suites.py against the drop-ins, in a
#: subprocess with the import redirected: never collected here (they import the real libraries)
collect_ignore_glob = ["data/*"]

#: The test files that take longest (worker seconds of a full run, 2026-11-28, longest first).
#: pytest -q runs files in two processes (``--dist loadfile``), handing out the next file as a
#: process frees: these go out first, so that the run does not end on one long file while the
#: other process idles (xdist's own reordering, by number of tests, put the Spark files last).
LONGEST_FIRST = (
    "test_sql_spark_engine.py", "test_report.py", "test_spark.py", "test_sql_engines.py",
    "test_partitions.py", "test_sql.py", "test_memory.py", "test_compat_ranx.py",
    "test_determinism.py", "test_storage.py", "test_rank_compare.py", "test_peer_suite_ranx.py",
    "test_edge_matrix.py", "test_sql_postgres.py", "test_sql_duckdb_engine.py",
    "test_atomic_outputs.py", "test_sql_families.py", "test_spark_recsys.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The files of :data:`LONGEST_FIRST` first, in that order; the others after, as collected."""
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))  # stable: a file's order kept


_ROOT = str(Path(__file__).resolve().parent.parent)
if _ROOT not in sys.path:
    sys.path.append(_ROOT)  # after site-packages: the installed rankframe stays the one imported


@pytest.fixture(scope="session")
def spark_session():  # noqa: ANN201
    """One local[2] Spark session for every module that needs one (each start costs 6-25 s).

    Skipped, with the reason, where pyspark or a Java runtime is missing. Modules set their own
    runtime settings on it (``spark.sql.shuffle.partitions``).
    """
    pytest.importorskip("pyspark", reason="pyspark is not installed (pip install 'rankframe[spark]')")
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        pytest.skip("no Java runtime (java not on PATH, JAVA_HOME unset): Spark cannot start")
    from pyspark.sql import SparkSession

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # pyspark's note on pandas 3
        session = (
            SparkSession.builder.master("local[2]").appName("rankframe-tests")
            .config("spark.ui.enabled", "false")
            .config("spark.ui.showConsoleProgress", "false")
            .config("spark.driver.memory", "1g")
            .getOrCreate()
        )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()
