"""The ``rankframe`` command: evaluate's formats, runs side by side, trec_eval's options, errors."""

from __future__ import annotations

import io
import json
import os
import sys
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import rankframe as rf
from rankframe._cli.main import main
from rankframe._cli.writers import WRITERS
from rankframe._measures import families

DATA = Path(__file__).parent.parent / "data"
QRELS = str(DATA / "qrels.dl19-passage.txt")
BM25 = str(DATA / "run.dl19.bm25.txt")
SPLADE = str(DATA / "run.dl19.splade.txt")
MEASURES = ["nDCG@10", "AP", "R@1000", "NumRet"]


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


@pytest.fixture(scope="module")
def expected() -> pl.DataFrame:
    """What the library returns for the two sample runs, named by file name."""
    runs = {"run.dl19.bm25.txt": BM25, "run.dl19.splade.txt": SPLADE}
    return rf.evaluate(QRELS, runs, MEASURES)


@pytest.fixture(scope="module")
def expected_per_query() -> pl.DataFrame:
    runs = {"run.dl19.bm25.txt": BM25, "run.dl19.splade.txt": SPLADE}
    return rf.evaluate(QRELS, runs, MEASURES, per_query=True)


# ----------------------------------------------------------------------------- evaluate
def test_table_puts_runs_side_by_side(capsys, expected):
    code, out, err = run_cli(capsys, "evaluate", QRELS, BM25, SPLADE, "-m", *MEASURES)
    assert code == 0, err
    header, rule, *rows = out.splitlines()
    assert header.split() == ["measure", "run.dl19.bm25.txt", "run.dl19.splade.txt"]
    assert set(rule.replace(" ", "")) == {"-"}
    assert [r.split()[0] for r in rows] == MEASURES  # in the order asked
    # every cell: the library's value with 4 decimals (counts as integers)
    for row in rows:
        measure, *cells = row.split()
        for run, cell in zip(("run.dl19.bm25.txt", "run.dl19.splade.txt"), cells, strict=True):
            value = expected.filter(run=run, measure=measure)["value"].item()
            assert cell == (str(int(value)) if measure == "NumRet" else f"{value:.4f}")
    # aligned: every line of the table has the same width
    assert len({len(line) for line in out.splitlines()}) == 1


def test_table_known_values(capsys):
    # BM25 and SPLADE on TREC DL 2019 passage (43 judged queries)
    code, out, _ = run_cli(capsys, "evaluate", QRELS, BM25, SPLADE, "-m", "nDCG@10", "NumQ")
    assert code == 0
    assert out.splitlines()[2].split() == ["nDCG@10", "0.5058", "0.7308"]
    assert out.splitlines()[3].split() == ["NumQ", "43", "43"]


def test_table_per_query_rows_are_query_and_measure(capsys, expected_per_query):
    code, out, _ = run_cli(capsys, "evaluate", QRELS, BM25, SPLADE, "-m", "nDCG@10", "AP", "--per-query")
    assert code == 0
    header, _, *rows = out.splitlines()
    assert header.split() == ["query_id", "measure", "run.dl19.bm25.txt", "run.dl19.splade.txt"]
    n_queries = expected_per_query["query_id"].n_unique()
    assert len(rows) == 2 * n_queries
    assert [r.split()[1] for r in rows[:4]] == ["nDCG@10", "AP", "nDCG@10", "AP"]
    first_query = rows[0].split()[0]
    value = expected_per_query.filter(run="run.dl19.splade.txt", query_id=first_query, measure="AP")[
        "value"
    ].item()
    assert rows[1].split()[3] == f"{value:.4f}"


@pytest.mark.parametrize("fmt", ["csv", "tsv"])
def test_csv_and_tsv_hold_the_tidy_frame(capsys, expected, fmt):
    code, out, _ = run_cli(capsys, "evaluate", QRELS, BM25, SPLADE, "-m", *MEASURES, "--format", fmt)
    assert code == 0
    got = pl.read_csv(io.StringIO(out), separator="\t" if fmt == "tsv" else ",")
    assert_frame_equal(got, expected)


def test_json_is_a_list_of_records(capsys, expected):
    code, out, _ = run_cli(capsys, "evaluate", QRELS, BM25, SPLADE, "-m", *MEASURES, "-f", "json")
    assert code == 0
    records = json.loads(out)
    assert list(records[0]) == ["run", "measure", "value"]
    assert_frame_equal(pl.DataFrame(records), expected)


def test_jsonl_is_one_record_per_line(capsys, expected_per_query):
    code, out, _ = run_cli(
        capsys, "evaluate", QRELS, BM25, SPLADE, "-m", *MEASURES, "--per-query", "-f", "jsonl"
    )
    assert code == 0
    records = [json.loads(line) for line in out.splitlines()]
    assert list(records[0]) == ["run", "query_id", "measure", "value"]
    assert_frame_equal(pl.DataFrame(records), expected_per_query)


def test_parquet_round_trip(capsys, tmp_path, expected_per_query):
    path = tmp_path / "out.parquet"
    code, out, _ = run_cli(
        capsys,
        "evaluate",
        QRELS,
        BM25,
        SPLADE,
        "-m",
        *MEASURES,
        "--per-query",
        "--format",
        "parquet",
        "-o",
        str(path),
    )
    assert code == 0
    assert out == ""
    assert_frame_equal(pl.read_parquet(path), expected_per_query)


def test_output_file_for_text_formats(capsys, tmp_path):
    path = tmp_path / "table.txt"
    code, out, _ = run_cli(capsys, "evaluate", QRELS, BM25, "-m", "nDCG@10", "-o", str(path))
    assert code == 0
    assert out == ""
    assert path.read_text().splitlines()[2].split() == ["nDCG@10", "0.5058"]


def test_every_format_has_a_writer():
    assert set(WRITERS) == {"table", "csv", "tsv", "json", "jsonl", "parquet"}


def test_measures_in_every_dialect(capsys):
    # trec_eval names expand to several measures; ranx names map to canonical names
    code, out, _ = run_cli(capsys, "evaluate", QRELS, BM25, "-m", "ndcg_cut.5,10", "map", "ndcg@20")
    assert code == 0
    assert [r.split()[0] for r in out.splitlines()[2:]] == ["nDCG@5", "nDCG@10", "AP", "nDCG@20"]


def test_options_reach_the_library(capsys):
    code, out, _ = run_cli(capsys, "evaluate", QRELS, BM25, "-m", "P@10", "-l", "2", "-M", "5", "-f", "csv")
    assert code == 0
    want = rf.evaluate(QRELS, {"run.dl19.bm25.txt": BM25}, ["P@10"], relevance_level=2, depth=5)
    assert_frame_equal(pl.read_csv(io.StringIO(out)), want)


def test_same_file_name_twice_uses_the_paths(capsys, tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    for d in ("a", "b"):
        (tmp_path / d / "run.txt").write_bytes(Path(BM25).read_bytes())
    code, out, _ = run_cli(
        capsys,
        "evaluate",
        QRELS,
        str(tmp_path / "a" / "run.txt"),
        str(tmp_path / "b" / "run.txt"),
        "-m",
        "AP",
        "-f",
        "csv",
    )
    assert code == 0
    runs = pl.read_csv(io.StringIO(out))["run"].to_list()
    assert runs == [str(tmp_path / "a" / "run.txt"), str(tmp_path / "b" / "run.txt")]


def test_warnings_are_one_line_on_stderr(capsys, tmp_path):
    partial = tmp_path / "partial.txt"
    lines = Path(BM25).read_text().splitlines(keepends=True)
    first = lines[0].split()[0]
    partial.write_text("".join(line for line in lines if line.split()[0] != first))
    code, out, err = run_cli(capsys, "evaluate", QRELS, str(partial), "-m", "AP")
    assert code == 0
    assert err.startswith("rankframe: warning: 1 judged query is missing")
    assert err.count("\n") == 1
    assert out.splitlines()[0].split() == ["measure", "partial.txt"]


# ----------------------------------------------------------------------------- measures
def test_measures_lists_the_registry(capsys):
    code, out, _ = run_cli(capsys, "measures")
    assert code == 0
    listed = [line.split()[0] for line in out.splitlines()[1:] if line and line[0] != " "]
    names = {entry.split("(")[0].split("@")[0] for entry in listed}
    assert {cls.NAME for cls in families()} <= names
    assert "Average precision" in out
    assert "map, map_cut" in out


# ----------------------------------------------------------------------------- errors
def test_unknown_measure_is_a_usage_error_with_the_closest_names(capsys):
    code, out, err = run_cli(capsys, "evaluate", QRELS, BM25, "-m", "nDGC@10")
    assert code == 2
    assert out == ""
    assert "usage: rankframe evaluate" in err
    assert "Unknown measure 'nDGC@10'. Did you mean 'nDCG'" in err


def test_missing_file_is_an_input_error(capsys):
    code, out, err = run_cli(capsys, "evaluate", QRELS, "no/such/run.txt", "-m", "AP")
    assert code == 1
    assert out == ""
    assert err.startswith("rankframe: ")
    assert "'no/such/run.txt'" in err
    assert err.count("\n") == 1


def test_malformed_run_names_the_line(capsys, tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("q1 Q0 d1 1 1.5 tag\nq1 Q0 d2 2 not-a-number tag\n")
    code, _, err = run_cli(capsys, "evaluate", QRELS, str(bad), "-m", "AP")
    assert code == 1
    assert err.startswith("rankframe: ")
    assert "line 2" in err


def test_measures_before_the_files_get_a_hint(capsys):
    code, _, err = run_cli(capsys, "evaluate", "-m", "AP", QRELS, BM25)
    assert code == 2
    assert "put -m after the files" in err




def test_parquet_needs_an_output_path(capsys):
    code, _, err = run_cli(capsys, "evaluate", QRELS, BM25, "-m", "AP", "--format", "parquet")
    assert code == 2
    assert "-o PATH" in err


def test_bad_choice_and_bad_number_are_usage_errors(capsys):
    assert run_cli(capsys, "evaluate", QRELS, BM25, "-m", "AP", "--format", "xml")[0] == 2
    assert run_cli(capsys, "evaluate", QRELS, BM25, "-m", "AP", "-M", "ten")[0] == 2
    assert run_cli(capsys, "evaluate", QRELS, BM25, "-m", "AP", "-M", "0")[0] == 2


def test_no_command_and_help(capsys):
    code, _, err = run_cli(capsys)
    assert code == 2
    assert "evaluate" in err
    code, out, _ = run_cli(capsys, "--help")
    assert code == 0
    assert "trec_eval" in out


# ----------------------------------------------------------------------------- trec_eval
def trec(capsys, *argv: str) -> tuple[int, str, str]:
    return run_cli(capsys, "trec_eval", *argv)


def test_trec_eval_prints_in_table_order_whatever_the_m_order(capsys):
    code, out, _ = trec(capsys, "-m", "P.5", "-m", "map", "-m", "num_q", QRELS, BM25)
    assert code == 0
    assert [line.split("\t")[0].strip() for line in out.splitlines()] == ["num_q", "map", "P_5"]
    assert out.splitlines()[0] == f"{'num_q':<22}\tall\t43"


def test_trec_eval_first_parameters_win(capsys):
    _, out, _ = trec(capsys, "-m", "P.5", "-m", "P.10,20", QRELS, BM25)
    assert [line.split()[0] for line in out.splitlines()] == ["P_5"]
    _, out, _ = trec(capsys, "-m", "P", "-m", "P.20", QRELS, BM25)  # a bare name takes no params
    assert [line.split()[0] for line in out.splitlines()] == ["P_20"]


def test_trec_eval_per_query_then_all(capsys):
    code, out, _ = trec(capsys, "-q", "-m", "num_q", "-m", "recip_rank", "-m", "runid", QRELS, BM25)
    assert code == 0
    lines = out.splitlines()
    queries = [line.split("\t")[1] for line in lines if line.startswith("recip_rank")]
    assert queries[-1] == "all"
    assert queries[:-1] == sorted(queries[:-1])  # byte order of the ids
    assert len(queries) == 44
    assert not any(line.startswith(("num_q", "runid")) and "\tall\t" not in line for line in lines)
    assert lines[-3] == f"{'runid':<22}\tall\trank"


def test_trec_eval_nosummary(capsys):
    _, out, _ = trec(capsys, "-q", "-n", "-m", "map", QRELS, BM25)
    assert "\tall\t" not in out
    assert len(out.splitlines()) == 43


def test_trec_eval_reads_the_run_from_stdin(capsys, monkeypatch):
    data = Path(BM25).read_bytes()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    code, out, _ = trec(capsys, "-m", "map", QRELS, "-")
    assert code == 0
    want = rf.evaluate(QRELS, BM25, ["AP"])["value"].item()
    assert out == f"{'map':<22}\tall\t{want:6.4f}\n"


def test_trec_eval_names_standard_input_not_its_copy(capsys, monkeypatch):
    for data, said in ((b"", "is empty"), (b"q1 Q0 a 1 high t\n", "line 1: the score 'high'")):
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
        code, out, err = trec(capsys, "-m", "map", QRELS, "-")
        assert (code, out) == (1, "")
        assert "standard input (-)" in err
        assert said in err
        assert "/stdin" not in err  # the temporary copy it reads


@pytest.mark.parametrize("fmt", ["prefs", "qrels_prefs", "qrels_jg"])
def test_trec_eval_other_formats_reject_the_official_measures(capsys, fmt):
    # trec_eval computes map & co. from qrels only; these formats give other measures
    code, out, err = trec(capsys, "-R", fmt, QRELS, BM25)
    assert code == 2
    assert out == ""
    assert "'num_ret'" in err


def test_trec_eval_qrels_prefs(capsys):
    code, out, err = trec(capsys, "-m", "prefs", "-R", "qrels_prefs", QRELS, BM25)
    assert code == 0, err
    labels = [line.split("\t")[0].strip() for line in out.splitlines()]
    assert labels == [
        "runid", "num_q", "prefs_num_prefs_poss", "prefs_num_prefs_ful",
        "prefs_num_prefs_ful_ret", "prefs_simp", "prefs_pair", "prefs_avgjg",
    ]
    code, out, err = trec(capsys, "-m", "prefs_simp", "-q", "-R", "qrels_prefs", QRELS, BM25)
    assert code == 0, err
    assert out.splitlines()[-1].startswith("prefs_simp            \tall\t0.")


def test_trec_eval_preference_measures_need_preference_judgments(capsys):
    for measure in ("all_prefs", "prefs", "prefs_simp"):
        code, _, err = trec(capsys, "-m", measure, QRELS, BM25)
        assert code == 2
        assert "-R prefs" in err


def test_trec_eval_preference_judgments_reject_other_measures(capsys):
    code, _, err = trec(capsys, "-m", "all_prefs", "-m", "ndcg", "-R", "qrels_prefs", QRELS, BM25)
    assert code == 2
    assert "'ndcg'" in err


def test_trec_eval_unknown_measure(capsys):
    code, out, err = trec(capsys, "-m", "mapp", QRELS, BM25)
    assert code == 2
    assert out == ""
    assert "Unknown measure 'mapp'. Did you mean 'map'" in err


def test_trec_eval_empty_parameters(capsys):
    code, _, err = trec(capsys, "-m", "P.", QRELS, BM25)
    assert code == 2
    assert "empty parameter list" in err


def test_trec_eval_missing_file(capsys):
    code, out, err = trec(capsys, QRELS, "missing.run")
    assert (code, out) == (1, "")
    assert err.startswith("rankframe: ")
    assert "'missing.run'" in err


def test_trec_eval_no_common_query(capsys, tmp_path):
    run = tmp_path / "run.txt"
    run.write_text("nope Q0 d1 1 1.0 tag\n")
    code, _, err = trec(capsys, QRELS, str(run))
    assert code == 1
    assert err.startswith("rankframe: No query has both judgments")


def test_trec_eval_missing_positional(capsys):
    code, _, err = trec(capsys, QRELS)
    assert code == 2
    assert "RUN" in err


def _write(path: Path, lines: list[str]) -> str:
    path.write_text("".join(line + "\n" for line in lines))
    return str(path)


def _rows(out: str) -> list[tuple[str, str, str]]:
    return [tuple(part.strip() for part in line.split("\t")) for line in out.splitlines()]


def test_trec_eval_cuts_at_depth_before_dropping_unjudged(capsys, tmp_path):
    # ranking d1 (rel 1), d2 (unjudged), d3 (rel 1): -M2 keeps d1 d2, then -J drops d2
    qrels = _write(tmp_path / "qrels", ["q1 0 d1 1", "q1 0 d3 1"])
    run = _write(tmp_path / "run", ["q1 Q0 d1 1 3.0 t", "q1 Q0 d2 2 2.0 t", "q1 Q0 d3 3 1.0 t"])
    code, out, _ = trec(capsys, "-J", "-M2", "-m", "num_ret", "-m", "num_rel_ret", qrels, run)
    assert code == 0
    assert _rows(out) == [("num_ret", "all", "1"), ("num_rel_ret", "all", "1")]


def test_trec_eval_judged_only_keeps_a_query_left_empty(capsys, tmp_path):
    # q2 retrieved only an unjudged document: -J empties it, trec_eval still evaluates it
    qrels = _write(tmp_path / "qrels", ["q1 0 d1 1", "q2 0 d9 1"])
    run = _write(tmp_path / "run", ["q1 Q0 d1 1 2.0 t", "q1 Q0 d2 2 1.0 t", "q2 Q0 dX 1 1.0 t"])
    code, out, _ = trec(capsys, "-J", "-q", "-m", "num_q", "-m", "num_ret", qrels, run)
    assert code == 0
    assert _rows(out) == [
        ("num_ret", "q1", "1"),
        ("num_ret", "q2", "0"),
        ("num_q", "all", "2"),
        ("num_ret", "all", "1"),
    ]


def test_trec_eval_complete_sums_num_rel_over_the_qrels(capsys, tmp_path):
    # with -c, trec_eval's 'all' num_rel counts every grade > 0 of the qrels, whatever -l says
    qrels = _write(tmp_path / "qrels", ["q1 0 d1 1", "q1 0 d2 2", "q2 0 d3 1"])
    run = _write(tmp_path / "run", ["q1 Q0 d1 1 2.0 t", "q1 Q0 d2 2 1.0 t"])
    code, out, _ = trec(capsys, "-c", "-l2", "-q", "-m", "num_rel", "-m", "num_q", qrels, run)
    assert code == 0
    assert _rows(out) == [
        ("num_rel", "q1", "1"),
        ("num_rel", "q2", "0"),
        ("num_q", "all", "2"),
        ("num_rel", "all", "3"),
    ]


def test_trec_eval_skips_judged_queries_without_results_with_a_warning(capsys, tmp_path):
    qrels = _write(tmp_path / "qrels", ["q1 0 d1 1", "q2 0 d3 1"])
    run = _write(tmp_path / "run", ["q1 Q0 d1 1 2.0 t"])
    code, out, err = trec(capsys, "-m", "num_q", "-m", "relstring", "-q", qrels, run)
    assert code == 0
    assert _rows(out) == [("relstring", "q1", "'1'"), ("num_q", "all", "1")]
    assert err.startswith("rankframe: warning: 1 judged query has no results")
    code, out, err = trec(capsys, "-c", "-m", "num_q", "-m", "relstring", "-q", qrels, run)
    assert _rows(out) == [("relstring", "q1", "'1'"), ("relstring", "q2", "''"), ("num_q", "all", "2")]
    assert err == ""


def test_string_measures_are_left_out_of_evaluate(capsys):
    code, _, err = run_cli(capsys, "evaluate", QRELS, BM25, "-m", "relstring")
    assert code == 2
    assert "is not a number" in err
    code, out, err = run_cli(capsys, "evaluate", QRELS, BM25, "-m", "relstring", "AP")
    assert code == 0
    assert [r.split()[0] for r in out.splitlines()[2:]] == ["AP"]
    assert err.startswith("rankframe: warning: RelString@10 is not a number")


# ----------------------------------------------------------------------------- issue 29: papercuts
# Each one retried as a new user would: the README's files, `--help`, no reading of the code.
def _tidy(out: Path, fmt: str) -> pl.DataFrame:
    if fmt == "parquet":
        return pl.read_parquet(out)
    if fmt in ("csv", "tsv"):
        return pl.read_csv(out, separator="\t" if fmt == "tsv" else ",")
    if fmt == "json":
        return pl.DataFrame(json.loads(out.read_text()))
    return pl.DataFrame([json.loads(line) for line in out.read_text().splitlines()])


@pytest.mark.parametrize(
    ("name", "fmt"),
    [("out.parquet", "parquet"), ("out.csv", "csv"), ("out.tsv", "tsv"), ("out.json", "json"),
     ("out.jsonl", "jsonl"), ("OUT.PARQUET", "parquet")],
)
def test_output_extension_picks_the_format(capsys, tmp_path, expected, name, fmt):
    out = tmp_path / name
    code, stdout, err = run_cli(capsys, "evaluate", QRELS, BM25, SPLADE, "-m", *MEASURES, "-o", str(out))
    assert (code, stdout, err) == (0, "", "")
    assert_frame_equal(_tidy(out, fmt), expected)


def test_output_txt_and_no_extension_are_the_table(capsys, tmp_path):
    for name in ("table.txt", "table"):
        code, _, _ = run_cli(capsys, "evaluate", QRELS, BM25, "-o", str(tmp_path / name))
        assert code == 0
        assert (tmp_path / name).read_text().splitlines()[2].split() == ["nDCG@10", "0.5058"]


@pytest.mark.parametrize("name", ["out.md", "out.html", "out.xlsx", "out.csv.gz"])
def test_output_extension_evaluate_cannot_write_is_a_usage_error(capsys, tmp_path, name):
    out = tmp_path / name
    code, stdout, err = run_cli(capsys, "evaluate", QRELS, BM25, "-o", str(out))
    assert (code, stdout) == (2, "")
    assert "usage: rankframe evaluate" in err
    assert ".parquet (parquet)" in err
    assert ".csv (csv)" in err
    assert "-f" in err
    assert not out.exists()


def test_explicit_format_wins_but_a_mismatch_is_refused(capsys, tmp_path):
    out = tmp_path / "x.parquet"
    code, _, err = run_cli(capsys, "evaluate", QRELS, BM25, "-f", "table", "-o", str(out))
    assert code == 2
    assert f"-f table writes text but -o {out} names a parquet file" in err
    assert not out.exists()
    code, _, err = run_cli(capsys, "evaluate", QRELS, BM25, "-f", "parquet", "-o", str(tmp_path / "x.csv"))
    assert code == 2
    assert "-f parquet writes a binary file" in err
    # .txt takes any text format; an extension rankframe does not know takes what -f says
    for name in ("x.txt", "x.dat"):
        code, _, _ = run_cli(capsys, "evaluate", QRELS, BM25, "-f", "csv", "-o", str(tmp_path / name))
        assert code == 0
        assert pl.read_csv(tmp_path / name)["measure"].to_list() == ["nDCG@10"]
    code, _, _ = run_cli(capsys, "evaluate", QRELS, BM25, "-f", "parquet", "-o", str(tmp_path / "x.bin"))
    assert code == 0
    assert pl.read_parquet(tmp_path / "x.bin")["measure"].to_list() == ["nDCG@10"]


def test_evaluate_defaults_to_the_library_measures(capsys):
    import inspect

    from rankframe._cli.common import DEFAULT_MEASURES

    assert inspect.signature(rf.evaluate).parameters["measures"].default == DEFAULT_MEASURES
    assert inspect.signature(rf.compare).parameters["measures"].default == DEFAULT_MEASURES
    code, out, err = run_cli(capsys, "evaluate", QRELS, BM25)
    assert (code, err) == (0, "")
    assert out.splitlines()[2].split() == ["nDCG@10", "0.5058"]


def test_evaluate_and_compare_share_their_options():
    from rankframe._cli.main import build_parser

    parser = build_parser()
    common = ["-m", "AP", "-M", "100", "-l", "2", "-J", "--ties", "average", "--score-dtype", "float32"]
    ev = parser.parse_args(["evaluate", "q", "r", *common])
    cp = parser.parse_args(["compare", "q", "r", "s", *common])
    keys = ("measures", "depth", "relevance_level", "judged_only", "ties", "score_dtype")
    assert [getattr(ev, k) for k in keys] == [getattr(cp, k) for k in keys]
    defaults = {k: getattr(parser.parse_args(["evaluate"]), k) for k in keys}
    assert defaults == {k: getattr(parser.parse_args(["compare"]), k) for k in keys}
    # complete: one default for both commands (trec_eval's average over the queries a run was
    # scored on, the library's complete=False), and both take -c and --incomplete
    assert parser.parse_args(["evaluate"]).complete is False
    assert parser.parse_args(["compare"]).complete is False
    for cmd in ("evaluate", "compare"):
        assert parser.parse_args([cmd, "-c"]).complete is True
        assert parser.parse_args([cmd, "--incomplete"]).complete is False


def _prefixed_run(tmp_path: Path) -> Path:
    """BM25 with every query id written 'q<id>': the qrels' ids never match."""
    run = tmp_path / "qrun.txt"
    run.write_text("".join("q" + line for line in Path(BM25).read_text().splitlines(keepends=True)))
    return run


@pytest.mark.parametrize("extra", [[], ["-c"], ["-q", "-f", "csv"]])
def test_no_query_in_common_is_an_input_error(capsys, tmp_path, extra):
    run = _prefixed_run(tmp_path)
    code, out, err = run_cli(capsys, "evaluate", QRELS, str(run), *extra)
    assert (code, out) == (1, "")
    assert err == (
        f"rankframe: The qrels and the run have no query in common (qrels {QRELS}: '1037798', "
        f"'104861', '1063750', ...; run {run}: 'q1037798', 'q104861', 'q1063750', ...); check the "
        "query id column and its format.\n"
    )


def test_no_query_in_common_names_the_run(capsys, tmp_path):
    run = _prefixed_run(tmp_path)
    code, out, err = run_cli(capsys, "evaluate", QRELS, BM25, str(run))
    assert (code, out) == (1, "")
    assert err.startswith("rankframe: The qrels and the run qrun.txt have no query in common")
    code, out, err = run_cli(capsys, "compare", QRELS, BM25, str(run))
    assert (code, out) == (1, "")
    assert err.startswith("rankframe: The qrels and the run qrun.txt have no query in common")
    assert "'q1037798'" in err
    assert err.count("\n") == 1


def test_a_partial_run_still_evaluates(capsys, tmp_path):
    # some queries in common: a warning, not the error
    run = tmp_path / "half.txt"
    lines = Path(BM25).read_text().splitlines(keepends=True)
    run.write_text("".join(("q" + line) if i % 2 else line for i, line in enumerate(lines)))
    code, out, err = run_cli(capsys, "evaluate", QRELS, str(run))
    assert code == 0
    assert "no query in common" not in err
    assert out.splitlines()[2].split()[0] == "nDCG@10"


def test_paths_in_messages_are_as_given(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad").mkdir()
    pl.DataFrame({"qid": ["1"], "document": ["d"], "s": [1.0]}).write_parquet("bad/wrongcols.parquet")
    code, _, err = run_cli(capsys, "evaluate", QRELS, "bad/wrongcols.parquet", "-m", "AP")
    assert code == 1
    assert err.startswith("rankframe: bad/wrongcols.parquet has no run column 'doc_id', 'score'")
    with pytest.raises(rf.InputError, match=r"^bad/wrongcols\.parquet has no run column"):
        rf.evaluate(QRELS, "bad/wrongcols.parquet", ["AP"])
    # a frame is still named at the start of a sentence
    with pytest.raises(rf.InputError, match=r"^The run DataFrame has no run column"):
        rf.evaluate(QRELS, pl.DataFrame({"qid": ["1"], "document": ["d"], "s": [1.0]}), ["AP"])


# --------------------------------------------------------------------- compare: baseline, -o, defaults
def test_compare_baseline_takes_the_path_or_the_name(capsys, monkeypatch):
    monkeypatch.chdir(DATA.parent)
    tables = []
    for baseline in ("data/run.dl19.bm25.txt", "./data/run.dl19.bm25.txt", "run.dl19.bm25.txt"):
        code, out, err = run_cli(capsys, "compare", "data/qrels.dl19-passage.txt", "data/run.dl19.bm25.txt",
                                 "data/run.dl19.splade.txt", "--baseline", baseline, "-f", "json")
        assert (code, err) == (0, "")
        doc = json.loads(out)
        pairs = [(p["baseline"], p["run"]) for p in doc["pairs"]]
        assert pairs == [("run.dl19.bm25.txt", "run.dl19.splade.txt")]
        tables.append(doc["pairs"])
    assert tables[0] == tables[1] == tables[2]
    code, out, err = run_cli(capsys, "compare", QRELS, BM25, SPLADE, "--baseline", "bm25")
    assert (code, out) == (2, "")
    assert "--baseline 'bm25' is neither the name nor the path of a run" in err
    assert f"run.dl19.bm25.txt ({BM25})" in err
    assert f"run.dl19.splade.txt ({SPLADE})" in err


def test_compare_defaults_to_ndcg10(capsys):
    code, out, _ = run_cli(capsys, "compare", QRELS, BM25, SPLADE, "-f", "csv")
    assert code == 0
    assert set(pl.read_csv(io.StringIO(out))["measure"]) == {"nDCG@10"}


def test_compare_output_extension_picks_the_format(capsys, tmp_path):
    md, tex = tmp_path / "table.md", tmp_path / "table.tex"
    assert run_cli(capsys, "compare", QRELS, BM25, SPLADE, "-o", str(md))[0] == 0
    assert md.read_text().startswith("| run | nDCG@10 |")
    assert run_cli(capsys, "compare", QRELS, BM25, SPLADE, "-m", "AP", "-o", str(tex))[0] == 0
    assert "\\begin{tabular}" in tex.read_text()
    csv = tmp_path / "table.csv"
    assert run_cli(capsys, "compare", QRELS, BM25, SPLADE, "-o", str(csv))[0] == 0
    assert set(pl.read_csv(csv)["measure"]) == {"nDCG@10"}
    out = tmp_path / "x.parquet"
    code, _, err = run_cli(capsys, "compare", QRELS, BM25, SPLADE, "-o", str(out))
    assert code == 2
    assert "compare cannot write parquet (.parquet)" in err
    assert ".md (markdown)" in err
    assert not out.exists()
    md = tmp_path / "t.md"
    code, _, err = run_cli(capsys, "compare", QRELS, BM25, SPLADE, "-f", "table", "-o", str(md))
    assert code == 2
    assert "names a markdown file" in err


def test_compare_output_html_is_the_report(capsys, tmp_path):
    pytest.importorskip("matplotlib")
    html = tmp_path / "report.html"
    code, out, _ = run_cli(capsys, "compare", QRELS, BM25, SPLADE, "-o", str(html))
    assert (code, out) == (0, "")
    assert html.read_text().startswith("<!DOCTYPE html>")


def test_help_names_no_internal_documents(capsys):
    for cmd in ("evaluate", "compare", "trec_eval", "learn", "measures"):
        code, out, _ = run_cli(capsys, cmd, "--help")
        assert code == 0
        assert "seed 00" not in out.lower()


def test_sql_prints_the_query_that_evaluate_computes(capsys, tmp_path):
    # rankframe sql: the printed query, run in DuckDB over the sample's tables, gives
    # evaluate's numbers; with breakdowns and column names mapped; --checks prints the checks
    duckdb = pytest.importorskip("duckdb")
    qrels = rf.read_qrels(QRELS).collect().rename({"relevance": "label"})
    run = rf.read_run(BM25).collect().select("query_id", "doc_id", pl.col("score").alias("sim"))
    run = run.with_columns(half=pl.col("query_id").str.slice(-1).is_in(["0", "2", "4", "6", "8"]))
    code, out, _ = run_cli(
        capsys, "sql", "-m", "nDCG@10", "AP", "-c", "-M", "100", "--by", "half", "--qrels-table", "q",
        "--run-table", "r", "--qrels-column", "relevance=label", "--run-column", "score=sim",
    )
    assert code == 0
    assert out.rstrip().endswith(";")
    con = duckdb.connect()
    con.register("q", qrels.to_arrow())
    con.register("r", run.to_arrow())
    got = con.sql(out.rstrip().rstrip(";")).pl().sort("half", "measure")
    want = rf.evaluate(
        qrels.rename({"label": "relevance"}), run.rename({"sim": "score"}), ["nDCG@10", "AP"],
        complete=True, depth=100, by=["half"],
    ).sort("half", "measure")
    assert got.select("half", "measure").equals(want.select("half", "measure"))
    assert (got["value"] - want["value"]).abs().max() < 1e-12
    code, out, _ = run_cli(capsys, "sql", "--checks", "--dialect", "spark", "-o", str(tmp_path / "c.sql"))
    assert code == 0
    assert "run query not judged" in (tmp_path / "c.sql").read_text()


def test_sql_usage_errors(capsys):
    code, _, err = run_cli(capsys, "sql", "-m", "KendallTau")
    assert code == 2
    assert "No SQL form for KendallTau" in err
    code, _, err = run_cli(capsys, "sql", "--run-column", "score")
    assert code == 2
    assert "--run-column takes CANONICAL=COLUMN (e.g. query_id=qid), got 'score'" in err
    code, _, err = run_cli(capsys, "sql", "--checks", "-m", "AP")
    assert code == 2
    assert "--checks prints the input checks, for every measure: leave -m out" in err


def test_evaluate_engine_duckdb(capsys):
    pytest.importorskip("duckdb")
    args = ("evaluate", QRELS, BM25, SPLADE, "-m", "nDCG@10", "AP", "official", "-f", "csv")
    code, polars_out, _ = run_cli(capsys, *args)
    code_duckdb, duckdb_out, _ = run_cli(capsys, *args, "--engine", "duckdb")
    assert code == code_duckdb == 0
    a, b = pl.read_csv(io.StringIO(polars_out)), pl.read_csv(io.StringIO(duckdb_out))
    assert a.drop("value").equals(b.drop("value"))
    assert ((a["value"] - b["value"]).abs() <= 1e-9 * a["value"].abs()).all()


def _breakdown_files(tmp_path: Path) -> tuple[str, str, str]:
    """The sample qrels, and the two runs as Parquet with a ``half`` column (odd/even query)."""
    qrels = rf.read_qrels(QRELS).collect()
    paths = []
    for src, name in ((BM25, "bm25.parquet"), (SPLADE, "splade.parquet")):
        run = rf.read_run(src).collect().select("query_id", "doc_id", "score")
        run = run.with_columns(
            pl.when(pl.col("query_id").cast(pl.Int64) % 2 == 0).then(pl.lit("even"))
            .otherwise(pl.lit("odd")).alias("half")
        )
        run.write_parquet(tmp_path / name)
        paths.append(str(tmp_path / name))
    qrels_path = tmp_path / "qrels.parquet"
    qrels.select("query_id", "doc_id", "relevance").write_parquet(qrels_path)
    return str(qrels_path), *paths


@pytest.mark.parametrize("per_query", [False, True])
def test_evaluate_by_breakdown_columns_equals_the_library(capsys, tmp_path, per_query):
    qrels, bm25, splade = _breakdown_files(tmp_path)
    out_file = tmp_path / "out.parquet"
    argv = ["evaluate", qrels, bm25, splade, "-m", "nDCG@10", "AP", "--by", "half", "-o", str(out_file)]
    code, _, err = run_cli(capsys, *argv, *(["--per-query"] if per_query else []))
    assert code == 0, err
    runs = {"bm25.parquet": bm25, "splade.parquet": splade}
    # aggregated, each group's query count (NumQ) comes beside its means
    wanted = ["nDCG@10", "AP"] + ([] if per_query else ["NumQ"])
    want = rf.evaluate(qrels, runs, wanted, by=["half"], per_query=per_query)
    got = pl.read_parquet(out_file)
    assert set(got["half"]) == {"odd", "even"}
    assert_frame_equal(got, want, check_row_order=False)
    code, table, _ = run_cli(capsys, "evaluate", qrels, bm25, splade, "-m", "AP", "--by", "half")
    header, _, *rows = table.splitlines()
    assert header.split() == ["half", "measure", "bm25.parquet", "splade.parquet"]
    assert [r.split()[:2] for r in rows] == [["even", "AP"], ["even", "NumQ"], ["odd", "AP"], ["odd", "NumQ"]]
    # wide: a column per measure
    code, out, _ = run_cli(capsys, "evaluate", qrels, bm25, splade, "-m", "AP", "--by", "half",
                           "--wide", "-f", "csv")
    wide = pl.read_csv(io.StringIO(out))
    assert wide.columns == ["run", "half", "AP", "NumQ"]
    long = want.filter(pl.col("measure") == "AP").sort("run", "half")["value"] if not per_query else None
    if long is not None:
        assert wide.sort("run", "half")["AP"].to_list() == pytest.approx(long.to_list())


def test_evaluate_by_unknown_column_names_it(capsys, tmp_path):
    qrels, bm25, _ = _breakdown_files(tmp_path)
    code, _, err = run_cli(capsys, "evaluate", qrels, bm25, "--by", "lang")
    assert code == 1
    assert "'lang'" in err
    assert "'half'" in err


def test_version(capsys):
    code, out, _ = run_cli(capsys, "--version")
    assert code == 0
    assert out.startswith(f"rankframe {rf.__version__} (polars {pl.__version__}")


# ----------------------------------------------------------------------------- unreadable inputs
def _as_a_user_who_cannot_read(argv: list[str]) -> list[str]:
    """``rankframe argv`` in a child that file permissions apply to (root loses its override)."""
    import shutil

    command = [sys.executable, "-m", "rankframe", *argv]
    if not (hasattr(os, "geteuid") and os.geteuid() == 0):
        return command
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("root reads every file; setpriv (util-linux) drops that")
    return [setpriv, "--bounding-set=-dac_override,-dac_read_search", *command]


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions")
def test_an_unreadable_input_names_it_and_the_permissions(tmp_path):
    import subprocess

    run = tmp_path / "run.txt"
    run.write_bytes(Path(BM25).read_bytes())
    groups = tmp_path / "train.query"
    groups.write_text("1\n1\n1\n")
    letor = tmp_path / "train.txt"
    letor.write_text("2 1:1\n0 1:0\n1 1:1\n")
    for path in (run, groups):
        path.chmod(0)
    cases = {
        ("evaluate", QRELS, str(run), "-m", "AP"): (
            f"rankframe: Cannot read the run input {run}: permission denied ([Errno 13] Permission "
            f"denied: '{run}'). Check the permissions of the file and its folders"
        ),
        ("learn", str(letor), "--query-file", str(groups), "--losses", "pointwise", "--epochs", "1"): (
            f"rankframe: Cannot read --query-file '{groups}': Permission denied. Check the permissions"
        ),
    }
    for argv, said in cases.items():
        command = _as_a_user_who_cannot_read(list(argv))
        done = subprocess.run(command, capture_output=True, text=True, timeout=60)
        assert (done.returncode, done.stdout) == (1, ""), done.stderr
        assert done.stderr.startswith(said), done.stderr
        assert "Traceback" not in done.stderr


def test_compare_with_integer_ids_and_a_run_missing_a_query(capsys, tmp_path):
    # issue 40's repro: a TypeError traceback from the warning's wording; and evaluate and
    # compare agree by default (one default for complete)
    q, a = [1, 2], ["a", "b"]
    pl.DataFrame({"query_id": q, "doc_id": a, "relevance": [1, 1]}).write_parquet(tmp_path / "tq.parquet")
    run_a = {"query_id": q, "doc_id": ["a", "x"], "score": [1.0, 1.0]}
    pl.DataFrame(run_a).write_parquet(tmp_path / "ta.parquet")
    pl.DataFrame({"query_id": [1], "doc_id": ["a"], "score": [1.0]}).write_parquet(tmp_path / "tb.parquet")
    files = [str(tmp_path / f) for f in ("tq.parquet", "ta.parquet", "tb.parquet")]
    for flags in ([], ["--incomplete"]):
        rc, out, err = run_cli(capsys, "compare", *files, "-m", "RR", *flags, "-f", "csv")
        assert rc == 0, err
        assert "Traceback" not in err
        assert "compared unpaired (Welch's t-test (unpaired))" in err
    rc, ev_out, err = run_cli(capsys, "evaluate", *files, "-m", "RR", "-f", "csv")
    assert rc == 0
    assert "missing from 1 of the 2 runs ('tb.parquet': 1)" in err
    evaluated = pl.read_csv(io.StringIO(ev_out))
    assert evaluated["value"].to_list() == [0.5, 1.0]  # ta: 1 and 0; tb: its one query
    c = rf.compare(files[0], {"ta": files[1], "tb": files[2]}, ["RR"])
    assert c.summary["mean"].to_list() == evaluated["value"].to_list()


def test_logs_column_names_and_run_names(capsys, tmp_path):
    # a log's own column names, mapped on the command line; runs named NAME=PATH
    q = tmp_path / "labels.parquet"
    pl.DataFrame({"session": [1, 1, 2], "item": ["a", "b", "c"], "label": [1, 0, 1]}).write_parquet(q)
    for name, scores in (("a", [2.0, 1.0, 1.0]), ("b", [1.0, 2.0, 1.0])):
        frame = {"session": [1, 1, 2], "item": ["a", "b", "c"], "sim": scores}
        pl.DataFrame(frame).write_parquet(tmp_path / f"{name}.parquet")
    cols = ["--qrels-column", "query_id=session", "--qrels-column", "doc_id=item",
            "--qrels-column", "relevance=label", "--run-column", "query_id=session",
            "--run-column", "doc_id=item", "--run-column", "score=sim"]
    runs = [f"bm25={tmp_path / 'a.parquet'}", f"splade={tmp_path / 'b.parquet'}"]
    rc, out, err = run_cli(capsys, "evaluate", str(q), *runs, "-m", "RR", *cols, "-f", "csv")
    assert rc == 0, err
    got = pl.read_csv(io.StringIO(out))
    assert got["run"].to_list() == ["bm25", "splade"]
    assert got["value"].to_list() == [1.0, 0.75]
    rc, out, err = run_cli(capsys, "compare", str(q), *runs, "-m", "RR", *cols, "-f", "csv")
    assert rc == 0, err
    assert set(pl.read_csv(io.StringIO(out))["run"]) == {"bm25", "splade"}
    # without the mapping: the hint names the flag, not a Python argument
    rc, _, err = run_cli(capsys, "evaluate", str(q), *runs, "-m", "RR", *cols[:6])
    assert rc == 1
    assert "e.g. --run-column query_id=" in err
    assert "run_columns=" not in err
    # two runs of one name
    rc, _, err = run_cli(capsys, "evaluate", str(q), f"x={tmp_path / 'a.parquet'}",
                         f"x={tmp_path / 'b.parquet'}", *cols)
    assert rc == 2
    assert "Two runs are named 'x'" in err


def test_judged_log_in_one_file(capsys, tmp_path):
    # a log holding score and label: read once, the run rows and the judgments split from it
    log = tmp_path / "log.parquet"
    frame = pl.DataFrame({
        "query_id": ["1", "1", "1", "2", "2"], "doc_id": ["a", "b", "z", "c", "d"],
        "score": [2.0, 1.0, None, 1.0, 3.0], "relevance": [0, 1, 2, None, 1],
        "day": ["mon", "mon", "mon", "tue", "tue"],
    })
    frame.write_parquet(log)
    rc, out, err = run_cli(capsys, "evaluate", "--judged", str(log), "-m", "RR", "nDCG@10",
                           "--by", "day", "-f", "csv")
    assert rc == 0, err
    got = pl.read_csv(io.StringIO(out))
    want = rf.evaluate(judged=frame, measures=["RR", "nDCG@10", "NumQ"], by=["day"])
    assert got["run"].unique().to_list() == ["log.parquet"]
    assert got.drop("run").equals(want.select(got.drop("run").columns))
    rc, _, err = run_cli(capsys, "evaluate", "--judged", str(log), str(log))
    assert rc == 2
    assert "--judged FILE holds the scores and the labels" in err
