"""Ids are bytes, as trec_eval reads them (DESIGN.md §8).

Two ids that differ in any byte are two ids, whatever their encoding: a TREC file that is not
UTF-8 gives Binary ids (never U+FFFD replacements, which merged queries), every reader keeps
them, ties among them break in byte order, and the outputs print each id's own bytes.

The repro of issue 38: two queries whose ids differ in one byte that is not UTF-8
(``q\\xe9``, ``q\\xe8``), one relevant document each::

    # query q\\xe9: rel = d1 | ranked d1 (2.0), d3 (1.0)  -> P@1 = 1, AP = 1
    # query q\\xe8: rel = d2 | ranked d4 (2.0), d2 (1.0)  -> P@1 = 0, AP = 1/2
    # means over two queries: P@1 = 1/2, AP = 3/4 (merged into one query: P@1 0, NumQ 1)
"""

from __future__ import annotations

import bz2
import gzip
import json
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankframe as rf
from rankframe._cli.main import main
from rankframe._io.columns import printable_ids
from rankframe._io.prefs import read_prefs
from rankframe._trec_eval.driver import trec_eval

QRELS = b"q\xe9 0 d1 1\nq\xe8 0 d2 1\n"
RUN = b"q\xe9 Q0 d1 1 2.0 r\nq\xe9 Q0 d3 2 1.0 r\nq\xe8 Q0 d4 1 2.0 r\nq\xe8 Q0 d2 2 1.0 r\n"
#: The repro's means, by hand (module docstring).
MEANS = {"P@1": 1 / 2, "AP": (1 + 1 / 2) / 2, "NumQ": 2.0}
PER_QUERY = {(b"q\xe9", "P@1"): 1.0, (b"q\xe8", "P@1"): 0.0, (b"q\xe9", "AP"): 1.0, (b"q\xe8", "AP"): 0.5}


def _files(folder: Path, qrels: bytes = QRELS, run: bytes = RUN, suffix: str = "") -> tuple[Path, Path]:
    q, r = folder / f"qrels{suffix}", folder / f"run{suffix}"
    q.write_bytes(qrels)
    r.write_bytes(run)
    return q, r


def _means(result: pl.DataFrame) -> dict[str, float]:
    return dict(zip(result["measure"], result["value"], strict=True))


def _per_query(result: pl.DataFrame) -> dict[tuple[Any, str], float]:
    return {(q, m): v for q, m, v in result.select("query_id", "measure", "value").iter_rows()}


# ----------------------------------------------------------------------------- the repro
def test_the_repro_counts_two_queries_through_the_api(tmp_path: Path) -> None:
    q, r = _files(tmp_path)
    assert _means(rf.evaluate(q, r, ["P@1", "AP", "NumQ"])) == MEANS
    per_query = rf.evaluate(q, r, ["P@1", "AP"], per_query=True)
    assert per_query.schema["query_id"] == pl.Binary
    assert _per_query(per_query) == PER_QUERY


def test_the_repro_counts_two_queries_on_the_command_line(
    tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    q, r = _files(tmp_path)
    assert main(["evaluate", str(q), str(r), "-m", "P@1", "AP", "num_q", "-f", "json"]) == 0
    rows = json.loads(capsysbinary.readouterr().out)
    assert {row["measure"]: row["value"] for row in rows} == MEANS


def test_trec_eval_q_prints_each_query_ids_own_bytes(
    tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    q, r = _files(tmp_path)
    assert main(["trec_eval", "-q", "-m", "P.1", "-m", "num_q", str(q), str(r)]) == 0
    out = capsysbinary.readouterr().out
    # trec_eval: queries in strcmp order (0xe8 before 0xe9), each id's bytes as read
    assert out == (
        b"P_1                   \tq\xe8\t0.0000\n"
        b"P_1                   \tq\xe9\t1.0000\n"
        b"num_q                 \tall\t2\n"
        b"P_1                   \tall\t0.5000\n"
    )


def test_the_api_trec_eval_text_gives_the_bytes_back_by_surrogateescape(tmp_path: Path) -> None:
    q, r = _files(tmp_path)
    text = trec_eval(q, r, ["P.1"], per_query=True, summary=False)
    assert text.encode("utf-8", "surrogateescape") == (
        b"P_1                   \tq\xe8\t0.0000\nP_1                   \tq\xe9\t1.0000\n"
    )


def test_evaluate_q_table_prints_the_ids_own_bytes(
    tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    q, r = _files(tmp_path)
    assert main(["evaluate", "-q", str(q), str(r), "-m", "P@1"]) == 0
    lines = capsysbinary.readouterr().out.splitlines()
    assert lines[2].split() == [b"q\xe8", b"P@1", b"0.0000"]
    assert lines[3].split() == [b"q\xe9", b"P@1", b"1.0000"]


# ----------------------------------------------------------------------------- outputs
@pytest.mark.parametrize(("fmt", "sep"), [("csv", b","), ("tsv", b"\t")])
def test_csv_and_tsv_write_the_ids_own_bytes(
    tmp_path: Path, fmt: str, sep: bytes, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    q, r = _files(tmp_path)
    assert main(["evaluate", "-q", str(q), str(r), "-m", "P@1", "-f", fmt]) == 0
    rows = [line.split(sep) for line in capsysbinary.readouterr().out.splitlines()[1:]]
    assert sorted((row[1], float(row[3])) for row in rows) == [(b"q\xe8", 0.0), (b"q\xe9", 1.0)]


def test_csv_quotes_an_id_of_bytes_holding_the_separator_as_polars_quotes_text(
    tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    qrels = b'q,\xe9" 0 d1 1\nq\xe8 0 d2 1\n'
    run = RUN.replace(b"q\xe9", b'q,\xe9"')
    q, r = _files(tmp_path, qrels, run)
    out = str(tmp_path / "o.csv")
    assert main(["evaluate", "-q", str(q), str(r), "-m", "P@1", "-f", "csv", "-o", out]) == 0
    written = (tmp_path / "o.csv").read_bytes()
    assert b'"q,\xe9"""' in written  # quoted, its quote doubled
    # read back by rankframe's own CSV reader: the same bytes
    back = rf.read_run(tmp_path / "o.csv", columns={"doc_id": "measure", "score": "value"}).collect()
    assert sorted(back["query_id"].to_list()) == [b'q,\xe9"', b"q\xe8"]


@pytest.mark.parametrize("fmt", ["json", "jsonl"])
def test_json_writes_bytes_as_surrogate_escapes_that_python_reads_back(
    tmp_path: Path, fmt: str, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    q, r = _files(tmp_path)
    assert main(["evaluate", "-q", str(q), str(r), "-m", "P@1", "-f", fmt]) == 0
    out = capsysbinary.readouterr().out
    assert b"q\\udce9" in out
    out.decode("utf-8")  # JSON is UTF-8 text
    text = out.decode()
    rows = json.loads(text) if fmt == "json" else [json.loads(line) for line in text.splitlines()]
    ids = {row["query_id"].encode("utf-8", "surrogateescape"): row["value"] for row in rows}
    assert ids == {b"q\xe9": 1.0, b"q\xe8": 0.0}


def test_parquet_keeps_a_binary_column(tmp_path: Path) -> None:
    q, r = _files(tmp_path)
    out = tmp_path / "o.parquet"
    assert main(["evaluate", "-q", str(q), str(r), "-m", "P@1", "-o", str(out)]) == 0
    back = pl.read_parquet(out)
    assert back.schema["query_id"] == pl.Binary
    assert _per_query(back) == {k: v for k, v in PER_QUERY.items() if k[1] == "P@1"}


def test_printable_ids_are_one_to_one() -> None:
    ids = pl.Series([b"q\xe9", b"q\\xe9", b"q\\\\xe9", b"q\xc3\xa9", None])
    shown = printable_ids(ids)
    assert shown.drop_nulls().n_unique() == 4
    assert shown.to_list() == ["q\\xe9", "q\\\\xe9", "q\\\\\\\\xe9", "q\u00e9", None]


# ----------------------------------------------------------------------------- ties
def test_ties_break_in_byte_order_among_ids_that_are_not_utf8(tmp_path: Path) -> None:
    """All scores tie: trec_eval ranks by doc id descending, by strcmp (unsigned bytes)."""
    # byte order descending: \xff, \xe9, \xc3\xa9 (UTF-8 e-acute), \x80x, a ; relevant: \x80x
    docs = [b"a", b"\x80x", b"\xc3\xa9", b"\xe9", b"\xff"]
    run = b"".join(b"q Q0 %s 1 1.0 r\n" % d for d in docs)
    q, r = _files(tmp_path, b"q 0 \x80x 1\nq 0 \xe9 0\n", run)
    result = _means(rf.evaluate(q, r, ["RR", "P@3", "AP", "Judged@2"]))
    # the relevant document is 4th: RR = 1/4, P@3 = 0, AP = 1/4; judged among the top 2: \xe9
    assert result == {"RR": 1 / 4, "P@3": 0.0, "AP": 1 / 4, "Judged@2": 1 / 2}


def test_ties_match_pytrec_eval_on_the_same_ids_hex_encoded(tmp_path: Path) -> None:
    """pytrec_eval (trec_eval's code) breaks ties by strcmp: hex keeps the byte order."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    docs = [b"\xff", b"\xfe\x01", b"\x80", b"\x7f", b"z\xe9", b"z\xe8", b"\xc3\xa9", b"\xc3"]
    grades = [0, 1, 0, 2, 1, 0, 1, 0]
    qrels = b"".join(b"q 0 %s %d\n" % (d, g) for d, g in zip(docs, grades, strict=True))
    run = b"".join(b"q Q0 %s 1 %.1f r\n" % (d, 1.0 + (i % 2)) for i, d in enumerate(docs))
    q, r = _files(tmp_path, qrels, run)
    ours = _means(rf.evaluate(q, r, ["AP", "RR", "nDCG@3", "P@3"]))
    evaluator = pytrec_eval.RelevanceEvaluator(
        {"q": {d.hex(): g for d, g in zip(docs, grades, strict=True)}},
        {"map", "recip_rank", "ndcg_cut_3", "P_3"},
    )
    theirs = evaluator.evaluate({"q": {d.hex(): 1.0 + (i % 2) for i, d in enumerate(docs)}})["q"]
    names = {"AP": "map", "RR": "recip_rank", "nDCG@3": "ndcg_cut_3", "P@3": "P_3"}
    assert ours == pytest.approx({ours_: theirs[name] for ours_, name in names.items()}, rel=1e-12)


# ----------------------------------------------------------------------------- each reader
def _repro(qrels: Any, run: Any, **kw: Any) -> None:
    assert _means(rf.evaluate(qrels, run, ["P@1", "AP", "NumQ"], **kw)) == MEANS


@pytest.mark.parametrize(
    ("suffix", "pack"),
    [(".txt", bytes), (".txt.gz", lambda b: gzip.compress(b, mtime=0)), (".txt.bz2", bz2.compress)],
)
def test_trec_text_plain_and_compressed(tmp_path: Path, suffix: str, pack: Any) -> None:
    q, r = _files(tmp_path, pack(QRELS), pack(RUN), suffix)
    assert rf.read_run(r).collect()["query_id"].to_list() == [b"q\xe9"] * 2 + [b"q\xe8"] * 2
    _repro(q, r)


def test_trec_text_irregular_lines_keep_bytes_and_line_numbers(tmp_path: Path) -> None:
    """Comments, blank lines and mixed separators (the general parser) keep the bytes too."""
    run = b"# a run\n\n" + RUN.replace(b" Q0 d3", b"\tQ0\td3")
    q, r = _files(tmp_path, b"# judged\n" + QRELS, run)
    frame = rf.read_run(r).collect()
    assert frame["doc_id"].to_list() == [b"d1", b"d3", b"d4", b"d2"]
    assert frame["line_no"].to_list() == [3, 4, 5, 6]
    _repro(q, r)
    bad = tmp_path / "bad"
    bad.write_bytes(run + b"q\xe7 Q0 d9 1 high\xff r\n")
    with pytest.raises(rf.InputError, match=r"line 7: the score 'high\\\\xff' is not a number"):
        rf.evaluate(q, bad, ["P@1"])
    bad.write_bytes(run + b"q\xe7 Q0 d9\n")
    with pytest.raises(rf.InputError, match=r"line 7: expected at least 6 .* found 3: b'q\\xe7 Q0 d9'"):
        rf.evaluate(q, bad, ["P@1"])


@pytest.mark.parametrize(
    "first", [b"BZh", b"BZh9", b"\xff\xfe", b"\xfe\xffq", b"\x1f\x8b", b"x^1", b"x\x9c", b"(\xb5/\xfd"]
)
def test_a_first_query_id_that_starts_like_a_signature_is_text(tmp_path: Path, first: bytes) -> None:
    """Only the whole signature of bzip2 (or gzip), or UTF-16's NUL bytes, make a file not text.

    ``x^`` is a zlib header and ``(\\xb5/\\xfd`` zstd's magic, which Polars' CSV reader would
    decompress.
    """
    q, r = _files(tmp_path, QRELS.replace(b"q\xe9", first), RUN.replace(b"q\xe9", first))
    assert rf.read_run(r).collect()["query_id"].to_list()[0] == first
    _repro(q, r)


def test_a_valid_utf8_file_keeps_string_ids(tmp_path: Path) -> None:
    def utf8(b: bytes) -> bytes:
        return b.replace(b"\xe9", "é".encode()).replace(b"\xe8", "è".encode())

    q, r = _files(tmp_path, utf8(QRELS), utf8(RUN))
    assert rf.read_run(r).collect().schema["query_id"] == pl.String
    assert rf.read_qrels(q).collect()["query_id"].to_list() == ["qé", "qè"]
    _repro(q, r)


@pytest.mark.parametrize(("suffix", "sep"), [(".csv", b","), (".tsv", b"\t"), (".csv.gz", b",")])
def test_csv_and_tsv_that_are_not_utf8(tmp_path: Path, suffix: str, sep: bytes) -> None:
    qrels = b"qid,docno,rel\n" + b"".join(
        b",".join([f[0], f[2], f[3]]) + b"\n" for f in map(bytes.split, QRELS.splitlines())
    )
    run = b"qid,docno,score,tag\n" + b"".join(
        b",".join([f[0], f[2], f[4], b"caf\xc3\xa9"]) + b"\n" for f in map(bytes.split, RUN.splitlines())
    )
    qrels, run = qrels.replace(b",", sep), run.replace(b",", sep)
    if suffix.endswith(".gz"):
        qrels, run = gzip.compress(qrels), gzip.compress(run)
    q, r = _files(tmp_path, qrels, run, suffix)
    frame = rf.read_run(r).collect()
    assert frame.schema["query_id"] == pl.Binary
    assert frame.schema["tag"] == pl.String  # a column that is UTF-8 stays text
    assert frame["tag"][0] == "café"
    _repro(q, r)


@pytest.mark.parametrize("write", ["write_parquet", "write_ipc"])
def test_parquet_and_arrow_binary_columns(tmp_path: Path, write: str) -> None:
    qrels = pl.DataFrame({"query_id": [b"q\xe9", b"q\xe8"], "doc_id": [b"d1", b"d2"], "relevance": [1, 1]})
    run = pl.DataFrame({
        "query_id": [b"q\xe9", b"q\xe9", b"q\xe8", b"q\xe8"], "doc_id": ["d1", "d3", "d4", "d2"],
        "score": [2.0, 1.0, 2.0, 1.0],
    })
    ext = ".parquet" if write == "write_parquet" else ".arrow"
    getattr(qrels, write)(tmp_path / f"q{ext}")
    getattr(run, write)(tmp_path / f"r{ext}")
    _repro(tmp_path / f"q{ext}", tmp_path / f"r{ext}")


def test_arrow_tables_with_binary_and_large_binary_ids() -> None:
    pa = pytest.importorskip("pyarrow")
    qrels = pa.table({
        "query_id": pa.array([b"q\xe9", b"q\xe8"], pa.large_binary()), "doc_id": ["d1", "d2"],
        "relevance": [1, 1],
    })
    run = pa.table({
        "query_id": pa.array([b"q\xe9", b"q\xe9", b"q\xe8", b"q\xe8"], pa.binary()),
        "doc_id": ["d1", "d3", "d4", "d2"], "score": [2.0, 1.0, 2.0, 1.0],
    })
    _repro(qrels, run)


def test_pandas_bytes_objects() -> None:
    pd = pytest.importorskip("pandas")
    qrels = pd.DataFrame({"qid": [b"q\xe9", b"q\xe8"], "docno": [b"d1", b"d2"], "label": [1, 1]})
    run = pd.DataFrame({
        "qid": [b"q\xe9", b"q\xe9", b"q\xe8", b"q\xe8"], "docno": ["d1", "d3", "d4", "d2"],
        "score": [2.0, 1.0, 2.0, 1.0],
    })
    _repro(qrels, run)


def test_dicts_with_bytes_keys_alone_or_mixed_with_text() -> None:
    qrels = {b"q\xe9": {b"d1": 1}, b"q\xe8": {"d2": 1}}
    run = {b"q\xe9": {"d1": 2.0, "d3": 1.0}, b"q\xe8": {"d4": 2.0, b"d2": 1.0}}
    _repro(qrels, run)
    # text keys are their UTF-8 bytes: "q1" in the run matches b"q1" in the qrels
    assert _means(rf.evaluate({b"q1": {"a": 1}}, {"q1": {b"a": 1.0}}, ["P@1"])) == {"P@1": 1.0}


@pytest.mark.parametrize(
    ("qrels_ids", "run_ids"),
    [
        ([b"1", b"2"], ["1", "2"]),  # bytes against text
        ([b"1", b"2"], [1, 2]),  # bytes against integers: their decimal text
        (["1", "2"], [b"1", b"2"]),
    ],
)
def test_bytes_align_with_text_and_integer_ids_by_their_bytes(
    qrels_ids: list[Any], run_ids: list[Any]
) -> None:
    qrels = pl.DataFrame({"query_id": qrels_ids, "doc_id": ["a", "b"], "relevance": [1, 1]})
    run = pl.DataFrame({"query_id": run_ids, "doc_id": ["a", "c"], "score": [1.0, 1.0]})
    assert _means(rf.evaluate(qrels, run, ["P@1", "NumQ"])) == {"P@1": 1 / 2, "NumQ": 2.0}


def test_prefs_files_keep_bytes_in_evaluate_and_trec_eval(tmp_path: Path) -> None:
    prefs = tmp_path / "prefs"
    # q\xe9: d1 preferred to d3 (ranked so: right); q\xe8: d2 preferred to d4 (ranked d4 first: wrong)
    prefs.write_bytes(b"q\xe9 g s d1 2\nq\xe9 g s d3 1\nq\xe8 g s d4 1\nq\xe8 g s d2 2\n")
    _, r = _files(tmp_path)
    assert read_prefs(prefs).collect_schema()["query_id"] == pl.Binary
    per_query = _per_query(rf.evaluate(run=r, prefs=prefs, measures=["PairAcc"], per_query=True))
    assert per_query == {(b"q\xe9", "PairAcc"): 1.0, (b"q\xe8", "PairAcc"): 0.0}
    text = trec_eval(prefs, r, ["prefs_simp"], per_query=True, rel_format="prefs")
    assert text.encode("utf-8", "surrogateescape").splitlines() == [
        b"prefs_simp            \tq\xe8\t0.0000",
        b"prefs_simp            \tq\xe9\t1.0000",
        b"prefs_simp            \tall\t0.5000",
    ]


def test_zscores_match_query_ids_of_bytes(tmp_path: Path) -> None:
    q, r = _files(tmp_path)
    z = tmp_path / "z"
    z.write_bytes(b"q\xe9 P_1 0.5 0.25\nq\xe8 P_1 0.5 0.25\n")
    text = trec_eval(q, r, ["P.1"], per_query=True, summary=False, zscores=z)
    assert text.encode("utf-8", "surrogateescape").splitlines() == [
        b"ZP_1                   \tq\xe8\t-2.0000", b"ZP_1                   \tq\xe9\t2.0000",
    ]


# ----------------------------------------------------------------------------- property
#: An id field of a TREC line: any bytes but whitespace and NUL (a query id not starting a comment).
_ID = st.binary(min_size=1, max_size=6).filter(
    lambda b: not any(c in b for c in b" \t\n\r\x0b\x0c\x00")
)


@st.composite
def _collections(draw: st.DrawFn) -> tuple[list[tuple[bytes, bytes, int]], list[tuple[bytes, bytes, float]]]:
    # a file starting with gzip's signature is gzip (\x1f\x8b\x08); with '#', a comment
    qid = _ID.filter(lambda b: not b.startswith((b"#", b"\x1f\x8b\x08")))
    queries = draw(st.lists(qid, min_size=1, max_size=3, unique=True))
    qrels, run = [], []
    for q in queries:
        docs = draw(st.lists(_ID, min_size=1, max_size=6, unique=True))
        for d in docs:
            if draw(st.booleans()):
                qrels.append((q, d, draw(st.integers(0, 2))))
            if draw(st.booleans()) or not run:
                run.append((q, d, float(draw(st.integers(0, 2)))))  # few scores: many ties
    if not qrels:
        qrels.append((run[0][0], run[0][1], 1))
    return qrels, run


def _write(folder: Path, name: str, rows: list[tuple[bytes, ...]], run: bool) -> Path:
    path = folder / name
    if run:
        path.write_bytes(b"".join(b"%s Q0 %s 0 %r t\n" % (q, d, s) for q, d, s in rows))
    else:
        path.write_bytes(b"".join(b"%s 0 %s %d\n" % (q, d, g) for q, d, g in rows))
    return path


def _hex_rows(rows: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    return [(q.hex().encode(), d.hex().encode(), v) for q, d, v in rows]


@pytest.mark.filterwarnings("ignore::rankframe.RankframeWarning")
@settings(max_examples=settings.default.max_examples * 2)
@given(_collections())
def test_byte_ids_give_the_values_of_the_same_ids_hex_encoded(
    tmp_path_factory: pytest.TempPathFactory,
    data: tuple[list[tuple[bytes, bytes, int]], list[tuple[bytes, bytes, float]]],
) -> None:
    """Hex keeps every id distinct and the byte order (ties), in ASCII: the same numbers."""
    qrels, run = data
    folder = tmp_path_factory.mktemp("ids")
    measures = ["P@2", "AP", "RR", "nDCG@3", "Bpref", "Rprec", "Judged@2", "NumRet", "NumQ"]
    ours = rf.evaluate(
        _write(folder, "q", qrels, run=False), _write(folder, "r", run, run=True), measures,
        per_query=True, complete=True,
    )
    hexed = rf.evaluate(
        _write(folder, "qh", _hex_rows(qrels), run=False), _write(folder, "rh", _hex_rows(run), run=True),
        measures, per_query=True, complete=True,
    )
    as_hex = ours["query_id"].cast(pl.Binary).bin.encode("hex")  # a UTF-8 file gives text ids
    assert _per_query(ours.with_columns(as_hex.alias("query_id"))) == _per_query(hexed)


def test_mixed_dict_keys_never_become_their_repr() -> None:
    """A bytes key was written as ``"b'q\\xe9'"`` when text keys came with it."""
    frame = rf.read_run({b"q\xe9": {"d": 1.0}, "q2": {"d": 1.0}}).collect()
    assert frame["query_id"].to_list() == [b"q\xe9", b"q2"]


# ----------------------------------------------------------------------------- other paths
def test_judged_frame_and_expressions_keep_bytes_and_byte_order(tmp_path: Path) -> None:
    """rankframe.expr's tie key is the doc id's bytes (it was cast to text, which failed)."""
    docs = [b"a", b"\x80x", b"\xc3\xa9", b"\xe9", b"\xff"]
    run = b"".join(b"q Q0 %s 1 1.0 r\n" % d for d in docs) + b"p Q0 \xe9 1 1.0 r\n"
    q, r = _files(tmp_path, b"q 0 \x80x 1\nq 0 \xe9 0\np 0 \xe9 1\n", run)
    from rankframe import expr as rfx

    judged = rf.judged_frame(q, r).collect()
    assert judged.schema["query_id"] == pl.Binary
    assert judged.schema["doc_id"] == pl.Binary
    got = judged.group_by("query_id").agg(rfx.measure("RR"), rfx.measure("AP"), rfx.precision(3))
    want = _per_query(rf.evaluate(q, r, ["RR", "AP", "P@3"], per_query=True))
    # q: all scores tie, the relevant \x80x is 4th in byte order (RR = 1/4); p: RR = 1
    rows = got.iter_rows(named=True)
    assert {(row["query_id"], m): row[m] for row in rows for m in got.columns[1:]} == want
    assert dict(got.select("query_id", "RR").iter_rows()) == {b"q": 1 / 4, b"p": 1.0}


def test_the_duckdb_engine_keeps_bytes(tmp_path: Path) -> None:
    pytest.importorskip("duckdb")
    q, r = _files(tmp_path)
    _repro(q, r, engine="duckdb")
