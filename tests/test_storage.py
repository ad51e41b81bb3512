"""Object storage and table formats: each remote or table source evaluates as its local data does.

A real S3 API (moto's server, on 127.0.0.1, started once for the module and stopped after it)
holds TREC text, Parquet, CSV, a hive-partitioned folder, a judged frame and a Delta table;
Polars reads them with ``storage_options``. A local Delta table and an Iceberg table in a SQLite
catalog are read through ``polars.scan_delta`` / ``polars.scan_iceberg``. Every test compares
``rankframe.evaluate`` on the remote or table source with ``rankframe.evaluate`` on the same
local data, exactly. Nothing here needs the network.
"""

from __future__ import annotations

import gzip
import io
import socket
import sys
import urllib.request
import warnings
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import rankframe as rf
from rankframe._cli.main import main

moto_server = pytest.importorskip("moto.server", reason="moto is not installed (the test extra)")
boto3 = pytest.importorskip("boto3", reason="boto3 is not installed (it comes with moto)")

DATA = Path(__file__).parent / "data" / "trec_runs" / "dl19_dl20_passage"
QRELS = str(DATA / "qrels.dl20-passage.txt")
BM25 = str(DATA / "run.rank_llm.BM25.dl20.txt")
SPLADE = str(DATA / "run.rank_llm.SPLADE_P_P_ENSEMBLE_DISTIL.dl20.txt")
MEASURES = ["nDCG@10", "AP", "P@5", "R@100", "RR", "Rprec", "NumRel"]
BUCKET = "rankframe-test"
S3 = f"s3://{BUCKET}"


def _local_run(path: str = BM25) -> pl.DataFrame:
    return rf.read_run(path).drop("line_no").collect()


def _local_qrels() -> pl.DataFrame:
    return rf.read_qrels(QRELS).drop("line_no").collect()


def _judged() -> pl.DataFrame:
    """The judged frame of the BM25 run: a null score for a judged document it did not retrieve."""
    run = _local_run().drop("run_tag")
    judged = run.join(_local_qrels(), on=["query_id", "doc_id"], how="full", coalesce=True)
    return judged.sort("query_id", "doc_id")  # a join leaves no fixed order


def _parquet(frame: pl.DataFrame) -> bytes:
    buf = io.BytesIO()
    frame.write_parquet(buf)
    return buf.getvalue()


def _part(frame: pl.DataFrame) -> pl.DataFrame:
    """The run with a breakdown column ``part`` (a or b by query), for hive folders."""
    return frame.with_columns(
        pl.when(pl.col("query_id").str.len_bytes() % 2 == 0).then(pl.lit("a")).otherwise(pl.lit("b"))
        .alias("part")
    )


def _write_file(path: Path, body: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(body)


def _write_hive(frame: pl.DataFrame, put) -> None:  # noqa: ANN001
    for (part,), rows in _part(frame).partition_by("part", as_dict=True, include_key=False).items():
        put(f"run_hive/part={part}/data.parquet", _parquet(rows))


@pytest.fixture(scope="module")
def s3():  # noqa: ANN201
    """moto's S3 server on a free local port, a bucket with the test data, and the options to read it."""
    server = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    endpoint = f"http://{host}:{port}"
    client = boto3.client(
        "s3", endpoint_url=endpoint, aws_access_key_id="testing", aws_secret_access_key="testing",
        region_name="us-east-1",
    )
    client.create_bucket(Bucket=BUCKET)

    def put(key: str, body: bytes) -> None:
        client.put_object(Bucket=BUCKET, Key=key, Body=body)

    run = _local_run()
    put("qrels.txt", Path(QRELS).read_bytes())
    put("run.txt.gz", gzip.compress(Path(BM25).read_bytes()))
    put("splade.txt", Path(SPLADE).read_bytes())
    put("qrels.parquet", _parquet(_local_qrels()))
    put("run.parquet", _parquet(run))
    put("run.csv", run.write_csv().encode())
    put("judged.parquet", _parquet(_judged()))
    _write_hive(run, put)
    options = {
        "aws_access_key_id": "testing", "aws_secret_access_key": "testing", "aws_region": "us-east-1",
        "aws_endpoint_url": endpoint, "aws_allow_http": "true",
    }
    yield {"endpoint": endpoint, "options": options, "client": client}
    server.stop()
    with pytest.raises(ConnectionRefusedError), socket.create_connection((host, port), timeout=1):
        pass  # the server is gone: nothing listens on its port any more


@pytest.fixture
def auth(s3):  # noqa: ANN001, ANN201
    """moto checks signatures and keys while the test runs (the test keys are unknown to it)."""

    def reset(count: str) -> None:
        request = urllib.request.Request(
            f"{s3['endpoint']}/moto-api/reset-auth", data=count.encode(), method="POST",
            headers={"Content-Type": "text/plain"},
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            assert response.status == 200

    reset("0")
    yield
    reset("inf")


def _eval(qrels, run, **kw) -> pl.DataFrame:  # noqa: ANN001
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # coverage warnings: the same on both sides
        return rf.evaluate(qrels, run, MEASURES, **kw)


def _same(remote_qrels, remote_run, local_qrels, local_run, **kw) -> None:  # noqa: ANN001
    """Per query and aggregated, the remote sources give the local sources' frame exactly."""
    for per_query in (True, False):
        got = _eval(remote_qrels, remote_run, per_query=per_query, **kw)
        want = _eval(local_qrels, local_run, per_query=per_query, **{k: v for k, v in kw.items()
                                                                      if k != "storage_options"})
        assert_frame_equal(got, want)
        assert got.height > 0


# ----------------------------------------------------------------------------- object storage
def test_trec_text_read_from_s3_as_from_disk(s3):
    """TREC qrels and a gzip-compressed run over S3: the same rows and line numbers as on disk."""
    so = s3["options"]
    assert_frame_equal(rf.read_qrels(f"{S3}/qrels.txt", storage_options=so).collect(),
                       rf.read_qrels(QRELS).collect())
    assert_frame_equal(rf.read_run(f"{S3}/run.txt.gz", storage_options=so).collect(),
                       rf.read_run(BM25).collect())
    _same(f"{S3}/qrels.txt", f"{S3}/run.txt.gz", QRELS, BM25, storage_options=so)


@pytest.mark.parametrize("run", ["run.parquet", "run.csv", "run_hive", "run_hive/", "run_hive/*/*.parquet"])
def test_tables_read_from_s3(s3, run, tmp_path):
    """Parquet, CSV, a hive-partitioned folder (with and without '/') and a glob over S3."""
    local = _local_run()
    if run.startswith("run_hive"):
        _write_hive(local, lambda key, body: _write_file(tmp_path / key, body))
        local_path = str(tmp_path / run)
        by = {"by": ["part"]}  # the hive column is there, as a breakdown
    else:
        local_path, by = str(tmp_path / run), {}
        local.write_parquet(local_path) if run.endswith(".parquet") else local.write_csv(local_path)
    _same(f"{S3}/qrels.parquet", f"{S3}/{run}", QRELS, local_path, storage_options=s3["options"], **by)


def test_judged_frame_from_s3(s3):
    so = s3["options"]
    assert_frame_equal(rf.read_judged(f"{S3}/judged.parquet", storage_options=so).collect(),
                       rf.read_judged(_judged()).collect())
    for per_query in (True, False):
        assert_frame_equal(
            _eval(None, None, judged=f"{S3}/judged.parquet", per_query=per_query, storage_options=so),
            _eval(None, None, judged=_judged(), per_query=per_query),
        )


def test_several_runs_partitions_and_compare(s3):
    so = s3["options"]
    remote = {"bm25": f"{S3}/run.parquet", "splade": f"{S3}/splade.txt"}
    local = {"bm25": BM25, "splade": SPLADE}
    _same(f"{S3}/qrels.txt", remote, QRELS, local, storage_options=so)
    # a list of runs is named by the file names, as local paths are
    named = {"run.parquet": BM25, "splade.txt": SPLADE}
    _same(f"{S3}/qrels.txt", list(remote.values()), QRELS, named, storage_options=so)
    _same(f"{S3}/qrels.txt", f"{S3}/run.txt.gz", QRELS, BM25, storage_options=so, partitions=3)
    got = rf.compare(f"{S3}/qrels.txt", remote, ["nDCG@10", "AP"], storage_options=so)
    want = rf.compare(QRELS, local, ["nDCG@10", "AP"])
    assert_frame_equal(got.summary, want.summary)
    assert_frame_equal(got.pairs, want.pairs)


def test_explain_reads_s3_with_the_options(s3):
    plan = rf.explain(f"{S3}/qrels.parquet", f"{S3}/run.parquet", ["AP"], storage_options=s3["options"])
    assert "AGGREGATE" in plan
    assert "s3://" in plan  # the scans read the bucket


def test_partitions_files_needs_local_files(s3):
    with pytest.raises(rf.InputError, match=r"object storage\. Use partitions=N"):
        rf.evaluate(f"{S3}/qrels.txt", f"{S3}/run_hive", partitions="files", storage_options=s3["options"])


def test_duckdb_engine_reads_s3_through_polars(s3):
    pytest.importorskip("duckdb")
    so = s3["options"]
    got = rf.evaluate(f"{S3}/qrels.parquet", f"{S3}/run.parquet", MEASURES, per_query=True,
                      storage_options=so, engine="duckdb")
    want = rf.evaluate(QRELS, BM25, MEASURES, per_query=True, engine="duckdb")
    assert_frame_equal(got, want, rel_tol=1e-12, abs_tol=0)


def test_cli_evaluate_and_compare(s3, capsys, tmp_path):
    options = [x for k, v in s3["options"].items() for x in ("--storage-option", f"{k}={v}")]
    for command, inputs, local in (
        ("evaluate", [f"{S3}/qrels.txt", f"{S3}/run.txt.gz"], [QRELS, BM25]),
        ("compare", [f"{S3}/qrels.txt", f"{S3}/run.parquet", f"{S3}/splade.txt"], [QRELS, BM25, SPLADE]),
    ):
        got_csv, want_csv = tmp_path / f"{command}-s3.csv", tmp_path / f"{command}-local.csv"
        assert main([command, *inputs, "-m", "nDCG@10", "AP", "-o", str(got_csv), *options]) == 0
        assert main([command, *local, "-m", "nDCG@10", "AP", "-o", str(want_csv)]) == 0
        got, want = pl.read_csv(got_csv), pl.read_csv(want_csv)
        if command == "evaluate":  # the run is named by its file name: run.txt.gz on S3
            got = got.with_columns(pl.col("run").str.replace("run.txt.gz", Path(BM25).name, literal=True))
        else:
            got = got.with_columns(pl.col("run", "baseline").str.replace("run.parquet", Path(BM25).name)
                                   .str.replace("splade.txt", Path(SPLADE).name))
        assert_frame_equal(got, want)
    capsys.readouterr()


def test_cli_errors_name_the_option(s3, capsys):
    code = main(["evaluate", f"{S3}/qrels.txt", f"{S3}/missing.txt", "--storage-option",
                 f"aws_endpoint_url={s3['endpoint']}", "--storage-option", "aws_region=us-east-1",
                 "--storage-option", "aws_access_key_id=testing", "--storage-option",
                 "aws_secret_access_key=testing"])
    out, err = capsys.readouterr()
    assert code == 1
    assert out == ""
    assert err.startswith(f"rankframe: Cannot read the run input {S3}/missing.txt: no such object")
    assert "--storage-option KEY=VALUE" in err
    assert "Traceback" not in err
    code = main(["evaluate", QRELS, BM25, "--storage-option", "aws_region"])
    assert code == 2
    assert "expected KEY=VALUE" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("path", "change", "expected"),
    [
        (f"{S3}/nothing.parquet", {}, r"no such object \(NoSuchKey"),
        (f"{S3}/nothing.txt", {}, r"no such object \(NoSuchKey"),
        ("s3://no-such-bucket/run.parquet", {}, "the bucket 'no-such-bucket' does not exist"),
        (f"{S3}/none/*.parquet", {}, "No file matches the run pattern"),
        (f"{S3}/run.parquet", {"aws_endpoint_url": "http://127.0.0.1:9", "max_retries": "0"},
         "the store cannot be reached"),
        (f"{S3}/run.parquet", {"max_retries": "many"}, "The storage option 'max_retries' takes a number"),
    ],
)
def test_errors_name_the_path_and_the_fix(s3, path, change, expected):
    with pytest.raises(rf.InputError, match=expected) as info:
        rf.read_run(path, storage_options={**s3["options"], **change}).collect()
    message = str(info.value)
    assert path in message or "max_retries" in message
    if "No file" not in message and "takes a number" not in message:
        assert "storage_options=" in message
        assert "--storage-option KEY=VALUE" in message


@pytest.mark.usefixtures("auth")
def test_wrong_credentials(s3):
    for path in (f"{S3}/run.parquet", f"{S3}/run.txt.gz"):
        with pytest.raises(rf.InputError, match="access denied: missing or wrong credentials") as info:
            rf.evaluate(f"{S3}/qrels.parquet", path, storage_options=s3["options"])
        assert "InvalidAccessKeyId" in str(info.value)
        assert "aws_access_key_id, aws_secret_access_key" in str(info.value)


# ----------------------------------------------------------------------------- table formats
@pytest.fixture(scope="module")
def delta_table(tmp_path_factory, s3):  # noqa: ANN001, ANN201
    """The run as a Delta table, locally and on S3, in two versions (the first one overwritten)."""
    deltalake = pytest.importorskip("deltalake", reason="deltalake is not installed (the delta extra)")
    run = _local_run().drop("run_tag")
    stale = run.with_columns(pl.col("score") * -1.0)  # version 0: replaced, must not be read
    local = tmp_path_factory.mktemp("delta") / "run"
    for version, mode in ((stale, "error"), (run, "overwrite")):
        deltalake.write_deltalake(str(local), version.to_arrow(), mode=mode)
    # the same files on S3 (deltalake's own writer waits forever on some of moto's list replies)
    for path in local.rglob("*"):
        if path.is_file():
            s3["client"].upload_file(str(path), BUCKET, f"delta_run/{path.relative_to(local).as_posix()}")
    return str(local), f"{S3}/delta_run"


def test_delta_tables(s3, delta_table):
    local, remote = delta_table
    _same(QRELS, local, QRELS, BM25)
    _same(f"{S3}/qrels.txt", remote, QRELS, BM25, storage_options=s3["options"])
    with pytest.raises(rf.InputError, match="Delta table .* Use partitions=N"):
        rf.evaluate(QRELS, local, partitions="files")


def test_delta_without_the_extra(delta_table, monkeypatch):
    monkeypatch.setitem(sys.modules, "deltalake", None)  # as if it were not installed
    with pytest.raises(rf.InputError, match=r"Delta Lake table .* pip install 'rankframe\[delta\]'"):
        rf.read_run(delta_table[0])


@pytest.fixture(scope="module")
def iceberg_table(tmp_path_factory):  # noqa: ANN001, ANN201
    """The run as an Iceberg table of a SQLite-backed catalog with a local warehouse."""
    pytest.importorskip("pyiceberg", reason="pyiceberg is not installed (the iceberg extra)")
    from pyiceberg.catalog.sql import SqlCatalog

    folder = tmp_path_factory.mktemp("iceberg")
    catalog = SqlCatalog("rankframe", uri=f"sqlite:///{folder}/catalog.db", warehouse=f"file://{folder}")
    catalog.create_namespace("eval")
    run = _local_run()
    table = catalog.create_table("eval.run", schema=run.to_arrow().schema)
    # written by Polars (pyiceberg's own writer needs a newer pyarrow than rankframe's lowest)
    run.with_columns(pl.col("score") * -1.0).lazy().sink_iceberg(table, mode="append")
    # the first snapshot's rows are replaced, as in a real table's life
    run.lazy().sink_iceberg(catalog.load_table("eval.run"), mode="overwrite")
    return catalog.load_table("eval.run")


def test_iceberg_tables(iceberg_table):
    metadata = iceberg_table.metadata_location  # file:///.../metadata/00002-....metadata.json
    for source in (iceberg_table, metadata, metadata.removeprefix("file://")):
        _same(QRELS, source, QRELS, BM25)
    folder = Path(metadata.removeprefix("file://")).parent.parent
    with pytest.raises(rf.InputError, match="looks like an Apache Iceberg table: pass its current metadata"):
        rf.read_run(str(folder))


def test_iceberg_without_the_extra(iceberg_table, monkeypatch):
    monkeypatch.setitem(sys.modules, "pyiceberg", None)
    with pytest.raises(rf.InputError, match=r"Iceberg table; .* pip install 'rankframe\[iceberg\]'"):
        rf.read_run(iceberg_table.metadata_location)


# ----------------------------------------------------------------------------- Spark
def test_spark_tasks_read_s3_with_the_options(s3, spark_session):
    """rankframe.spark's polars engine: each task reads its queries from S3 with the options."""
    import rankframe.spark as rfs

    spark = spark_session
    so = s3["options"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = rfs.evaluate(f"{S3}/qrels.txt", f"{S3}/run.parquet", MEASURES, per_query=True,
                           partitions=2, spark=spark, storage_options=so)
        got = pl.from_arrow(out.toArrow())
    want = _eval(QRELS, BM25, per_query=True)
    key = ["query_id", "measure"]
    assert_frame_equal(got.sort(key), want.sort(key), check_dtypes=False)
    with pytest.raises(rf.InputError, match="not storage_options"):
        rfs.evaluate(f"{S3}/qrels.parquet", f"{S3}/run.parquet", ["AP"], spark=spark,
                     storage_options=so, engine="sql")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # seen in CI: the digits of the request's duration are not an HTTP status
        ("Generic S3 error: Error performing GET http://127.0.0.1:9/b/run.parquet in 403.095µs - "
         "HTTP error: error sending request", "the store cannot be reached"),
        ("Error performing GET http://127.0.0.1:9/b/r in 401µs - HTTP error: error sending request",
         "the store cannot be reached"),
        ("Client error with status 403 Forbidden: <Error><Code>AccessDenied</Code>", "access denied"),
        ("Received HTTP status (401) from the server", "access denied"),
    ],
)
def test_an_http_status_is_told_from_a_duration(text: str, expected: str) -> None:
    from rankframe._io.storage import storage_error

    message = str(storage_error("run", "s3://b/run.parquet", OSError(text)))
    assert expected in message, message
