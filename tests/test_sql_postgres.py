"""rankframe.sql in PostgreSQL: the postgres text, run by a real server, equals rankframe.evaluate.

Where PostgreSQL's server programs are installed (``initdb`` and ``pg_ctl`` on PATH or in
Debian's ``/usr/lib/postgresql/<version>/bin``, the ``psql`` client beside them), a module
fixture creates a cluster in a temporary directory and starts it listening on a unix socket in
that directory only (no TCP port), then stops it. Tables are loaded with ``COPY ... FROM
STDIN`` from CSV written by Polars, with the types a warehouse would give them (text ids,
double precision scores, integer grades, text breakdowns); the query runs through ``psql
--csv`` with ``extra_float_digits = 3``, so doubles come back exact.

Shown: the text of ``rf.sql.query(..., dialect="postgres")`` runs, and every compiled measure
per query and in the aggregate agrees with ``evaluate`` to 1e-12 relative on the
hypothesis-drawn edge cases of test_sql.py (ties among "9"/"10"/"b"/"B", grades -1..3,
unjudged documents, queries on one side only; complete, depth, relevance_level,
judged_only), on the sample run, and with breakdowns. The cluster's default collation is a
linguistic one where the machine has one (libc ``en_US.UTF-8``, else ICU ``en-US``, where "b"
sorts before "B"), so the ties test shows that the text's ``COLLATE "C"`` is what gives
trec_eval's byte order.

Skipped, with the reason, where the server programs are missing or the server does not start
(initdb refuses to run as root: as root the server runs as the ``postgres`` user, if there
is one).
"""

from __future__ import annotations

import glob
import io
import math
import os
import pwd
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankframe as rf
from rankframe import sql as rsql
from tests.test_edge_matrix import judged_runs
from tests.test_sql import (
    BREAKDOWN_MEASURES,
    COMPILED,
    DATA,
    LAYOUTS,
    _evaluate,
    assert_same,
    breakdown_tables,
)

#: Where Debian installs the server programs (not on PATH there).
DEBIAN_BINDIRS = "/usr/lib/postgresql/*/bin"
#: The cluster's superuser (initdb -U), reached without a password over the private socket.
SUPERUSER = "rankframe"
#: Column types by name; any other column (a breakdown) is text.
TYPES = {"relevance": "integer", "score": "double precision"}


def _bindir() -> Path | None:
    """The first directory holding both initdb and pg_ctl: PATH's, then Debian's (newest first)."""
    candidates = [Path(p).resolve().parent for p in (shutil.which("initdb"), shutil.which("pg_ctl")) if p]
    candidates += [Path(p) for p in sorted(glob.glob(DEBIAN_BINDIRS), key=_version, reverse=True)]
    for d in candidates:
        if all(os.access(d / name, os.X_OK) for name in ("initdb", "pg_ctl")):
            return d
    return None


def _version(path: str) -> tuple[int, ...]:
    return tuple(int(n) for n in re.findall(r"\d+", path))


def _locales() -> list[list[str]]:
    """initdb's locale options, tried in turn: a linguistic default collation first, C last."""
    try:
        available = subprocess.run(["locale", "-a"], capture_output=True, text=True, check=False).stdout
    except OSError:
        available = ""
    names = {n.lower().replace("-", "") for n in available.split()}
    out = []
    if "en_us.utf8" in names:
        out.append(["--locale=en_US.UTF-8"])
    base = "C.UTF-8" if "c.utf8" in names else "C"
    out.append([f"--locale={base}", "--locale-provider=icu", "--icu-locale=en-US"])
    out.append([f"--locale={base}"])
    return out


@dataclass
class Postgres:
    """A running server, reached by ``psql`` over the unix socket in ``socket``."""

    psql: str
    socket: str
    collation: str  # the cluster's default collation, in words

    def _psql(self, script: str, *options: str) -> str:
        env = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
        env["PGOPTIONS"] = "-c extra_float_digits=3"  # shortest exact doubles (the default since 12)
        command = [self.psql, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", self.socket, "-U", SUPERUSER,
                   "-d", "postgres", *options, "-f", "-"]
        done = subprocess.run(command, input=script, capture_output=True, text=True, env=env, check=False)
        if done.returncode != 0:
            raise AssertionError(f"psql failed ({done.returncode}): {done.stderr.strip()}")
        return done.stdout

    def load(self, **tables: pl.DataFrame) -> None:
        """(Re)create each table from its frame, typed as TYPES says."""
        script = []
        for name, frame in tables.items():
            columns = ", ".join(f'"{c}" {TYPES.get(c, "text")}' for c in frame.columns)
            script += [
                f'DROP TABLE IF EXISTS "{name}";',
                f'CREATE TABLE "{name}" ({columns});',
                f'COPY "{name}" FROM STDIN WITH (FORMAT csv, HEADER true);',
                frame.write_csv(float_precision=None).rstrip("\n"),
                "\\.",
            ]
        self._psql("\n".join(script) + "\n")

    def query(self, text: str) -> pl.DataFrame:
        """The rows of ``text``: ``value`` a double, the other columns strings (null as null)."""
        out = self._psql(text + ";\n", "--csv")
        frame = pl.read_csv(io.StringIO(out), infer_schema=False)
        return frame.with_columns(pl.col("value").cast(pl.Float64))

    def scalar(self, text: str) -> str:
        return self._psql(text + ";\n", "-A", "-t").strip()


def _run(command: list[str], *, user: pwd.struct_passwd | None, cwd: str) -> subprocess.CompletedProcess:
    if user is not None:  # as root: initdb and the server refuse root
        command = ["runuser", "-u", user.pw_name, "--", *command]
    return subprocess.run(command, capture_output=True, text=True, cwd=cwd, check=False)


def _start(bindir: Path, base: str, user: pwd.struct_passwd | None) -> tuple[str, str]:
    """initdb into ``base``/data and start the server; return (data dir, collation in words)."""
    data = os.path.join(base, "data")
    failures = []
    for locale in _locales():
        shutil.rmtree(data, ignore_errors=True)
        command = [str(bindir / "initdb"), "-D", data, "-U", SUPERUSER, "--auth=trust", "-E", "UTF8", *locale]
        done = _run(command, user=user, cwd=base)
        if done.returncode == 0:
            break
        failures.append(f"initdb {' '.join(locale)}: {done.stderr.strip()[-300:]}")
    else:
        pytest.skip(f"initdb fails here: {'; '.join(failures)}")
    options = f"-k {base} -c listen_addresses='' -c fsync=off"
    command = [str(bindir / "pg_ctl"), "-D", data, "-l", os.path.join(base, "log"), "-w", "-t", "60",
               "-o", options, "start"]
    done = _run(command, user=user, cwd=base)
    if done.returncode != 0:
        log = Path(base, "log").read_text(errors="replace") if Path(base, "log").exists() else ""
        pytest.skip(f"the PostgreSQL server does not start: {done.stderr.strip()} {log[-500:]}")
    return data, " ".join(locale)


@pytest.fixture(scope="module")
def postgres(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Postgres]:
    bindir = _bindir()
    if bindir is None:
        pytest.skip(f"PostgreSQL's server programs (initdb, pg_ctl) are not on PATH nor in {DEBIAN_BINDIRS}")
    psql = shutil.which("psql") or (str(bindir / "psql") if (bindir / "psql").exists() else None)
    if psql is None:
        pytest.skip(f"initdb is in {bindir} but the psql client is nowhere (PATH, {bindir})")
    user = None
    if os.geteuid() == 0:
        try:
            user = pwd.getpwnam("postgres")
        except KeyError:
            pytest.skip("running as root, which initdb refuses, and no 'postgres' user to run it as")
        if shutil.which("runuser") is None:
            pytest.skip("running as root, which initdb refuses, and no runuser to run it as 'postgres'")
    # pytest's temporary root is private to its owner: the server's own user needs a directory
    # it can reach (and unix socket paths must stay under ~100 bytes)
    base = str(tmp_path_factory.mktemp("postgres")) if user is None else ""
    private = user is not None or len(base) > 80
    if private:
        base = tempfile.mkdtemp(prefix="rankframe-pg-")
        if user is not None:
            os.chown(base, user.pw_uid, user.pw_gid)
    data = None
    try:
        data, locale = _start(bindir, base, user)
        yield Postgres(psql=psql, socket=base, collation=locale)
    finally:
        if data is not None:
            _run([str(bindir / "pg_ctl"), "-D", data, "-m", "immediate", "-w", "stop"], user=user, cwd=base)
        if private:
            shutil.rmtree(base, ignore_errors=True)


def _compare(postgres: Postgres, qrels: pl.DataFrame, run: pl.DataFrame, measures: list[str],
             **options: Any) -> None:
    """evaluate and the postgres text, per query and aggregated, on the same tables."""
    by = list(options.get("by", ()))
    postgres.load(qrels=qrels, run=run)
    for per_query in (True, False):
        evaluate_options = {k: v for k, v in options.items() if k != "qrels_by"}
        want = _evaluate(qrels, run, measures, per_query=per_query, **evaluate_options)
        got = postgres.query(rsql.query(measures, dialect="postgres", per_query=per_query, **options))
        assert got.columns[: len(by)] == by
        assert_same(want, got, [*by, "query_id", "measure"] if per_query else [*by, "measure"])


@settings(max_examples=12)
@given(data=judged_runs(), depth=st.sampled_from((None, None, 1, 3)))
def test_postgres_text_equals_evaluate(postgres: Postgres, data: tuple, depth: int | None) -> None:
    # test_sql's differential on the edge-matrix frames, in PostgreSQL
    qrels, run, options = data
    _compare(postgres, qrels, run, COMPILED, **options, depth=depth)


@pytest.mark.parametrize("options", [{}, {"complete": True, "depth": 20, "relevance_level": 2}])
def test_postgres_text_on_the_sample(postgres: Postgres, options: dict[str, Any]) -> None:
    qrels = rf.read_qrels(DATA / "qrels.dl19-passage.txt").collect().select("query_id", "doc_id", "relevance")
    run = rf.read_run(DATA / "run.dl19.bm25.txt").collect().select("query_id", "doc_id", "score")
    _compare(postgres, qrels, run, COMPILED, **options)


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_postgres_breakdowns(postgres: Postgres, layout: str) -> None:
    # the corners of evaluate's query-set rule (test_sql.breakdown_tables), null groups included
    by, qrels_by = LAYOUTS[layout]
    qrels, run = breakdown_tables(by, qrels_by)
    for complete in (False, True):
        _compare(postgres, qrels, run, BREAKDOWN_MEASURES, by=by, qrels_by=qrels_by, complete=complete)


def test_postgres_ties_in_byte_order(postgres: Postgres) -> None:
    # trec_eval: equal scores, doc ids descending by strcmp: "b" > "B" > "9" > "10" > "1"
    run = pl.DataFrame({"query_id": ["q"] * 5, "doc_id": ["10", "9", "1", "b", "B"], "score": [1.0] * 5})
    text = rsql.query(["RR"], per_query=True, dialect="postgres")
    assert 'COLLATE "C"' in text

    def rr_of(relevant: str, query: str) -> list[float]:
        qrels = pl.DataFrame({"query_id": ["q"], "doc_id": [relevant], "relevance": [1]})
        postgres.load(qrels=qrels, run=run)
        return postgres.query(query)["value"].to_list()

    for relevant, rr in [("b", 1.0), ("B", 1 / 2), ("9", 1 / 3), ("10", 1 / 4), ("1", 1 / 5)]:
        assert rr_of(relevant, text) == [rr], (relevant, postgres.collation)
    if postgres.scalar("SELECT 'b' < 'B'") == "t":  # a linguistic default collation: en_US, ICU en-US
        # the same query without its collation ranks "B" above "b": COLLATE "C" is what gives byte order
        assert rr_of("b", text.replace(' COLLATE "C"', "")) == [1 / 2]


def test_postgres_names_as_postgres_reads_them(postgres: Postgres) -> None:
    # CREATE TABLE (QID text, ...) stores the column as qid: the name QID finds it, as it does
    # in PostgreSQL's own SQL, while '"QID"' asks for exactly "QID" (absent); a table of a
    # schema in PostgreSQL's quotes; grades stored as text are cast
    postgres._psql(
        'DROP SCHEMA IF EXISTS "Eval" CASCADE; CREATE SCHEMA "Eval";\n'
        'CREATE TABLE "Eval"."Qrels" (QID text, Doc text, Grade text);\n'
        "INSERT INTO \"Eval\".\"Qrels\" VALUES ('q', 'a', '1'), ('q', 'b', '0'), ('r', 'a', '2');\n"
        "CREATE TABLE \"Eval\".run (QID text, Doc text, Sim double precision);\n"
        "INSERT INTO \"Eval\".run VALUES ('q', 'a', 1.0), ('q', 'b', 2.0), ('r', 'a', 1.0);\n"
    )
    names = {
        "qrels": '"Eval"."Qrels"', "run": '"Eval".RUN',
        "qrels_columns": {"query_id": "QID", "doc_id": "DOC", "relevance": "Grade"},
        "run_columns": {"query_id": "QID", "doc_id": "Doc", "score": "SIM"},
    }
    got = postgres.query(rsql.query(["RR", "nDCG@2"], dialect="postgres", per_query=True, **names))
    want = {("q", "RR"): 0.5, ("q", "nDCG@2"): 1 / math.log2(3), ("r", "RR"): 1.0, ("r", "nDCG@2"): 1.0}
    assert {(q, m): v for q, m, v in got.rows()} == pytest.approx(want, rel=1e-15)
    exact = {**names, "run_columns": {**names["run_columns"], "query_id": '"QID"'}}
    with pytest.raises(AssertionError, match='column "QID" does not exist'):
        postgres.query(rsql.query(["RR"], dialect="postgres", **exact))
