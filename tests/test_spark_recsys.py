"""rankframe.spark with side inputs: the recommender measures on Spark equal rankframe.evaluate.

``rankframe.spark.evaluate(..., interactions=, items=, reference=)`` (the polars engine on
Spark DataFrames): the history's and the reference run's rows travel with their users' run
rows, the history's per-item counts are a Spark ``groupBy`` joined to the run rows, the
catalogue is checked on the driver and joined; population measures are reduced on the driver
from the per-user states. On score ties, two runs in a ``run`` column, a breakdown, users
without history, items the catalogue lacks and empty partitions, every run-only family (and an
accuracy measure beside them) agrees with ``evaluate`` to 1e-12 relative, per user and in the
aggregate; bad side inputs are evaluate's one-line errors. One Spark session for the module;
skipped where pyspark or Java is missing.
"""

from __future__ import annotations

import os
import shutil
import warnings
from typing import Any

import polars as pl
import pytest

import rankframe as rf
from rankframe._measures._registry import families
from tests.test_recsys_inputs import _big, _sides

pyspark = pytest.importorskip("pyspark", reason="pyspark is not installed (pip install 'rankframe[spark]')")
if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
    pytest.skip("no Java runtime (java not on PATH, JAVA_HOME unset): Spark cannot start",
                allow_module_level=True)

import rankframe.spark as rfs  # noqa: E402

#: One measure of every family that reads no judgments, but Serendipity (refused: see below).
RUN_ONLY = [
    f"{cls.NAME}@3" for cls in families()
    if not cls.NEEDS_JUDGMENTS and cls.NAME not in ("Serendipity", "FallOut")
]


@pytest.fixture(scope="module")
def spark(spark_session):  # noqa: ANN001, ANN201
    spark_session.conf.set("spark.sql.shuffle.partitions", "3")
    return spark_session


def _sdf(spark, frame: pl.DataFrame):  # noqa: ANN001, ANN202
    return spark.createDataFrame(frame.to_arrow())


def _data() -> tuple[pl.DataFrame, pl.DataFrame, dict[str, pl.DataFrame]]:
    """Two runs (score ties, a locale), their judgments, the history, catalogue and a reference."""
    a, b = _big(0, users=60), _big(3, users=60)
    run = pl.concat([a.with_columns(pl.lit("a").alias("run")), b.with_columns(pl.lit("b").alias("run"))])
    qrels = a.filter(pl.col("score") >= 2).select("user_id", "item_id", pl.lit(1).alias("relevance"))
    sides = _sides()
    sides["reference"] = _big(7, users=50).drop("locale")
    return qrels, run, sides


def _one(run: pl.DataFrame) -> pl.DataFrame:
    return run.filter(pl.col("run") == "a").drop("run")


def _both(spark, qrels, run, sides: dict, measures: list[str], **kw: Any) -> None:  # noqa: ANN001
    """Per user and aggregated, the Spark values are evaluate's (1e-12 relative)."""
    spark_sides = {k: _sdf(spark, v) for k, v in sides.items()}
    s_qrels = None if qrels is None else _sdf(spark, qrels)
    for per_query in (True, False):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = rf.evaluate(qrels, run, measures, per_query=per_query, **sides, **kw)
            got = rfs.evaluate(s_qrels, _sdf(spark, run), measures, per_query=per_query, **spark_sides, **kw)
            got = pl.from_arrow(got.toArrow())
        assert isinstance(got, pl.DataFrame)
        assert got.columns == want.columns
        ids = [c for c in want.columns if c != "value"]
        assert got.select(ids).equals(want.select(ids))  # the rows, in evaluate's order
        assert got["value"].is_null().to_list() == want["value"].is_null().to_list()
        g, w = (x["value"].fill_null(0.0).to_list() for x in (got, want))
        assert g == pytest.approx(w, rel=1e-12, nan_ok=True)


def test_every_run_only_family_equals_evaluate(spark) -> None:  # noqa: ANN001
    qrels, run, sides = _data()
    _both(spark, qrels, run, sides, ["nDCG@3", *RUN_ONLY], by=["locale"])


def test_without_qrels_and_with_integer_ids(spark) -> None:  # noqa: ANN001
    _, run, sides = _data()

    def ints(frame: pl.DataFrame) -> pl.DataFrame:
        ids = [c for c in ("user_id", "item_id") if c in frame.columns]
        return frame.with_columns(pl.col(c).str.slice(1).cast(pl.Int64) for c in ids)

    run = ints(run.filter(pl.col("run") == "a").drop("run", "locale"))
    sides = {k: ints(v) for k, v in sides.items()}
    # a catalogue of some items only: the others count as outside it
    sides["items"] = sides["items"].filter(pl.col("item_id") < 20)
    _both(spark, None, run, sides, RUN_ONLY)


def test_one_side_input_alone(spark) -> None:  # noqa: ANN001
    # Gini and CatalogCoverage with the catalogue alone; Coverage with the history alone
    _, run, sides = _data()
    _both(spark, None, _one(run), {"items": sides["items"]}, ["Gini@3", "CatalogCoverage@3"])
    _both(spark, None, _one(run), {"interactions": sides["interactions"]}, ["Coverage@3", "APLT@2"])


@pytest.mark.parametrize(
    ("role", "frame", "match"),
    [
        ("reference", pl.DataFrame({"user_id": ["u1", "u1"], "item_id": ["i1", "i1"], "score": [1.0, 2.0]}),
         "lists the item 'i1' twice for the user 'u1'"),
        ("items", pl.DataFrame({"item_id": ["i1", "i2"], "genre": ["x", None]}), "null category 'genre'"),
        ("interactions",
         pl.DataFrame({"user_id": ["u1", "u2"], "item_id": ["i1", "i2"], "weight": [1.0, -2.0]}),
         "finite number >= 0"),
        ("interactions", pl.DataFrame({"user_id": ["u1", None], "item_id": ["i1", "i2"]}), "null 'query_id'"),
    ],
)
def test_bad_side_inputs_are_evaluates_errors(spark, role: str, frame: pl.DataFrame, match: str) -> None:  # noqa: ANN001
    _, run, _ = _data()
    measure = {"reference": "Unexpectedness@3", "items": "CategoricalDiversity@3",
               "interactions": "Surprisal@3"}[role]
    with pytest.raises(rf.InputError, match=match):
        rf.evaluate(None, _one(run), [measure], **{role: frame})
    with pytest.raises(rf.InputError, match=match):
        rfs.evaluate(None, _sdf(spark, _one(run)), [measure], **{role: _sdf(spark, frame)}).collect()


def test_what_spark_does_not_evaluate_is_named(spark, tmp_path) -> None:  # noqa: ANN001
    _, run, sides = _data()
    srun, history = _sdf(spark, _one(run)), _sdf(spark, sides["interactions"])
    with pytest.raises(rf.MeasureError, match="Serendipity@3 compares .* does not evaluate it"):
        rfs.evaluate(None, srun, ["Serendipity@3"], interactions=history)
    with pytest.raises(rf.MeasureError, match="engine='polars' on Spark DataFrames"):
        rfs.evaluate(None, srun, ["Novelty@3"], interactions=history, engine="sql")
    path = tmp_path / "run.parquet"
    run.write_parquet(path)
    with pytest.raises(rf.MeasureError, match="read the paths with spark.read first"):
        rfs.evaluate(None, str(path), ["Novelty@3"], interactions=history, spark=spark)
    with pytest.raises(rf.InputError, match="nDCG@3 reads judgments"):
        rfs.evaluate(None, srun, ["nDCG@3", "Novelty@3"], interactions=history)
    with pytest.raises(rf.InputError, match=r"Novelty@3 needs interactions=\.\.\."):
        rfs.evaluate(None, srun, ["Novelty@3"])


def test_population_measures_per_user_are_left_out_with_evaluates_warning(spark) -> None:  # noqa: ANN001
    _, run, sides = _data()
    srun = _sdf(spark, _one(run))
    with pytest.warns(rf.RankframeWarning, match="Coverage@3 is a population measure"):
        got = rfs.evaluate(None, srun, ["Coverage@3", "ARP@3"], per_query=True,
                           interactions=_sdf(spark, sides["interactions"]))
    assert set(got.toPandas()["measure"]) == {"ARP@3"}
