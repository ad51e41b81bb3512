"""The ``rankframe fuse`` command: TREC and Parquet outputs, usage and input errors."""

from __future__ import annotations

from pathlib import Path

import pytest

import rankframe as rf
from rankframe._cli.main import main

DATA = Path(__file__).resolve().parent.parent / "data"
BM25, SPLADE = str(DATA / "run.dl19.bm25.txt"), str(DATA / "run.dl19.splade.txt")


@pytest.fixture
def runs(tmp_path: Path) -> list[str]:
    a = tmp_path / "a.txt"
    a.write_text("q1 Q0 d1 1 3.0 a\nq1 Q0 d2 2 2.0 a\nq2 Q0 d1 1 1 a\n")
    b = tmp_path / "b.txt"
    b.write_text("q1 Q0 d2 1 5 b\nq1 Q0 d4 2 4 b\n")
    return [str(a), str(b)]


def test_writes_a_trec_run(runs: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["fuse", *runs, "--method", "rbc", "--param", "phi=0.5", "--tag", "x"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "q1 Q0 d2 1 0.75 x",  # (1 - 0.5) 0.5 + (1 - 0.5)
        "q1 Q0 d1 2 0.5 x",
        "q1 Q0 d4 3 0.25 x",
        "q2 Q0 d1 1 0.5 x",
    ]


def test_output_reads_back_as_the_fused_run(runs: list[str], tmp_path: Path) -> None:
    expected = rf.fuse(runs, "mnz", norm="min-max")
    for name in ("out.txt", "out.parquet"):
        out = tmp_path / name
        assert main(["fuse", *runs, "--method", "mnz", "--norm", "min-max", "-o", str(out)]) == 0
        back = rf.read_run(str(out)).select("query_id", "doc_id", "score").collect()
        assert back.equals(expected), name


def test_trained_method_with_qrels(tmp_path: Path) -> None:
    out = tmp_path / "fused.txt"
    args = ["fuse", BM25, SPLADE, "--method", "posfuse", "--qrels", str(DATA / "qrels.dl19-passage.txt")]
    assert main([*args, "-o", str(out)]) == 0
    fused = rf.fuse([BM25, SPLADE], "posfuse", qrels=str(DATA / "qrels.dl19-passage.txt"))
    assert rf.read_run(str(out)).select("query_id", "doc_id", "score").collect().equals(fused)


@pytest.mark.parametrize(
    ("extra", "code", "message"),
    [
        (["--method", "rff"], 2, "Did you mean 'rrf'?"),
        (["--norm", "zmvu"], 2, "Did you mean 'zmuv'?"),
        (["--method", "wsum", "--weights", "1"], 2, "one weight per run: 2 numbers"),
        # the API's errors in the command's words: flags, not Python arguments
        (["--method", "rbc"], 2, "--method rbc needs the parameter 'phi': give --param phi=VALUE."),
        (["--method", "wsum"], 2, "--method wsum needs --weights W [W ...], one number per run (2 runs)."),
        (["--weights", "1", "2"], 2, "--method rrf takes no weights"),
        (["--param", "k"], 2, "expected NAME=NUMBER"),
        (["--method", "probfuse", "--param", "n_segments=2"], 2, "give --qrels QRELS"),
        (["--tag", "a b"], 2, "--tag must be one word"),
    ],
)
def test_usage_errors(runs: list[str], extra: list[str], code: int, message: str, capsys) -> None:  # noqa: ANN001
    assert main(["fuse", *runs, *extra]) == code
    err = capsys.readouterr().err
    assert message in err
    assert "Traceback" not in err


def test_input_errors(runs: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["fuse", runs[0]]) == 2
    assert "two or more RUN files" in capsys.readouterr().err
    assert main(["fuse", runs[0], str(tmp_path / "nope.txt")]) == 1
    assert capsys.readouterr().err.startswith("rankframe: The run file")
    dup = tmp_path / "dup.txt"
    dup.write_text("q1 Q0 d1 1 3.0 a\nq1 Q0 d1 2 2.0 a\n")
    assert main(["fuse", runs[0], str(dup)]) == 1
    assert "retrieves document 'd1' more than once for query 'q1'" in capsys.readouterr().err
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    assert main(["fuse", runs[0], str(empty)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("rankframe: ")
    assert "Traceback" not in err
