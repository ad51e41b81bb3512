"""``rankframe evaluate`` on the recommender sample (data/recsys): side inputs, no qrels, conventions.

The command (its ``main``, in this process; once in a child process, as users run it) must give
the numbers of :func:`rankframe.evaluate` on the same inputs.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import subprocess
import sys
import warnings
from pathlib import Path

import polars as pl
import pytest

import rankframe as rf
from rankframe._cli.main import main

ROOT = Path(__file__).parent.parent
DATA = ROOT / "data" / "recsys"
TRUTH, RUN, POPULAR = (str(DATA / n) for n in ("truth.tsv", "run.tsv", "run.popular.tsv"))
INTERACTIONS, ITEMS = str(DATA / "interactions.tsv"), str(DATA / "items.tsv")
RUNS = {"run.tsv": RUN, "run.popular.tsv": POPULAR}
SIDES = {"interactions": INTERACTIONS, "items": ITEMS, "reference": POPULAR}
SIDE_FLAGS = ["--interactions", INTERACTIONS, "--items", ITEMS, "--reference-run", POPULAR]
JUDGED = ["nDCG@10", "AP(norm='min_k_num_rel')@10"]
UNJUDGED = [
    "Coverage@10", "Novelty@10", "Surprisal@10", "CategoricalDiversity@10", "Unexpectedness@10",
    "SelfInformation@10", "Gini@10",
]
POPULATION = {"Coverage@10", "SelfInformation@10", "Gini@10"}


def cli(*argv: str) -> subprocess.CompletedProcess[str]:
    """``rankframe ARGV``, in this process (``main``, its streams captured): 2 s less per call
    than a child process; the README examples run in one (:func:`child`)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), warnings.catch_warnings():
        code = main(list(argv))
    done = subprocess.CompletedProcess(["rankframe", *argv], code, out.getvalue(), err.getvalue())
    assert "Traceback" not in done.stderr, done.stderr
    return done


def child(*argv: str) -> subprocess.CompletedProcess[str]:
    """``rankframe ARGV`` in a child process, from the repository root, as users run it."""
    done = subprocess.run(
        [sys.executable, "-m", "rankframe", *argv], capture_output=True, text=True, timeout=120, cwd=ROOT
    )
    assert "Traceback" not in done.stderr, done.stderr
    return done


def values(frame: pl.DataFrame) -> dict[tuple, float]:
    keys = [c for c in frame.columns if c != "value"]
    return {tuple(str(v) for v in row[:-1]): row[-1] for row in frame.select(*keys, "value").iter_rows()}


def table_cells(out: str) -> dict[tuple[str, str], str]:
    """The aggregated table as {(run, measure): cell}."""
    header, rule, *rows = out.splitlines()
    assert set(rule.replace(" ", "")) == {"-"}
    runs = header.split()[1:]
    cells = {}
    for row in rows:
        measure, *numbers = row.split()
        cells |= {(run, measure): n for run, n in zip(runs, numbers, strict=True)}
    return cells


def error_line(done: subprocess.CompletedProcess[str]) -> str:
    """A usage error: exit 2, nothing on stdout, the usage then exactly one error line."""
    assert (done.returncode, done.stdout) == (2, ""), done.stderr
    said = [line for line in done.stderr.splitlines() if "error:" in line]
    assert len(said) == 1, done.stderr
    assert done.stderr.rstrip("\n").splitlines()[-1] == said[0]
    return said[0]


@pytest.fixture(scope="module")
def expected() -> pl.DataFrame:
    return rf.evaluate(TRUTH, RUNS, JUDGED + UNJUDGED, **SIDES)


@pytest.fixture(scope="module")
def expected_without_qrels() -> pl.DataFrame:
    return rf.evaluate(None, RUNS, UNJUDGED, **SIDES)


def test_the_sample_is_small_and_whole() -> None:
    names = {p.name for p in DATA.iterdir()}
    assert {"interactions.tsv", "truth.tsv", "items.tsv", "run.tsv", "run.popular.tsv", "README.md",
            "make_sample.py"} <= names
    assert sum(p.stat().st_size for p in DATA.iterdir() if p.is_file()) < 2_000_000
    for name in ("run.tsv", "run.popular.tsv"):
        run = pl.read_csv(DATA / name, separator="\t")
        assert run.columns == ["user_id", "item_id", "score"]
        assert run.group_by("user_id").len()["len"].max() == 20
        # no recommendation of an item the user has in the training history
        seen = pl.read_csv(INTERACTIONS, separator="\t")
        assert run.join(seen, on=["user_id", "item_id"], how="semi").is_empty()


@pytest.mark.parametrize("fmt", ["table", "json"])
@pytest.mark.parametrize("qrels", [True, False], ids=["qrels", "no-qrels"])
def test_the_command_gives_the_library_numbers(fmt, qrels, expected, expected_without_qrels) -> None:
    measures, want = (JUDGED + UNJUDGED, expected) if qrels else (UNJUDGED, expected_without_qrels)
    inputs = [TRUTH, RUN, POPULAR] if qrels else ["--no-qrels", RUN, POPULAR]
    done = cli("evaluate", *inputs, *SIDE_FLAGS, "-m", *measures, "-f", fmt)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    if fmt == "json":
        got = values(pl.DataFrame(json.loads(done.stdout)))
        assert got.keys() == values(want).keys()
        for key, value in values(want).items():
            assert got[key] == pytest.approx(value, rel=1e-12, abs=1e-15), key
    else:
        cells = table_cells(done.stdout)
        assert {m for _, m in cells} == set(measures)  # population measures included
        for (run, measure), value in values(want).items():
            assert cells[(run, measure)] == f"{value:.4f}", (run, measure)


@pytest.mark.parametrize("fmt", ["csv", "tsv", "parquet"])
def test_the_tidy_formats_hold_the_population_measures(fmt, tmp_path, expected) -> None:
    out = tmp_path / f"out.{fmt}"
    done = cli("evaluate", TRUTH, RUN, POPULAR, *SIDE_FLAGS, "-m", *JUDGED, *UNJUDGED, "-o", str(out))
    assert done.returncode == 0, done.stderr
    if fmt == "parquet":
        frame = pl.read_parquet(out)
    else:
        frame = pl.read_csv(out, separator="\t" if fmt == "tsv" else ",")
    got = values(frame)
    assert got.keys() == values(expected).keys()
    assert {m for _, m in got} >= POPULATION
    for key, value in values(expected).items():
        assert got[key] == pytest.approx(value, rel=1e-12, abs=1e-15), key


@pytest.mark.parametrize(
    ("flags", "options"),
    [
        (["--empty-queries", "skip"], {"empty_queries": "skip"}),
        (["--aggregate", "median"], {"aggregate": "median"}),
        (["--aggregate", "ci95"], {"aggregate": "ci95"}),
        (["--empty-queries", "skip", "--aggregate", "median"],
         {"empty_queries": "skip", "aggregate": "median"}),
    ],
    ids=["skip", "median", "ci95", "skip-median"],
)
def test_conventions_give_the_library_numbers(flags, options) -> None:
    measures = [*JUDGED, "Surprisal@10", "CategoricalDiversity@10", "Gini@10"]
    want = values(rf.evaluate(TRUTH, RUNS, measures, **SIDES, **options))
    done = cli("evaluate", TRUTH, RUN, POPULAR, *SIDE_FLAGS, "-m", *measures, "-f", "json", *flags)
    assert done.returncode == 0, done.stderr
    got = values(pl.DataFrame(json.loads(done.stdout)))
    assert got.keys() == want.keys()
    for key, value in want.items():
        assert got[key] == pytest.approx(value, rel=1e-12, abs=1e-15), key
    if options == {"empty_queries": "skip"}:  # 4 of the 150 users have no relevant judgment
        default = values(rf.evaluate(TRUTH, RUNS, ["nDCG@10"], **SIDES))
        assert got[("run.tsv", "nDCG@10")] > default[("run.tsv", "nDCG@10")]


def test_per_query_leaves_population_measures_out_with_a_warning() -> None:
    measures = ["nDCG@10", "Coverage@10", "Novelty@10", "Gini@10", "SelfInformation@10"]
    sides = {"interactions": INTERACTIONS, "items": ITEMS}
    with pytest.warns(UserWarning, match="population measures"):
        want = rf.evaluate(TRUTH, RUNS, measures, per_query=True, **sides)
    done = cli(
        "evaluate", TRUTH, RUN, POPULAR, "--interactions", INTERACTIONS, "--items", ITEMS, "-m", *measures,
        "-q", "-f", "json",
    )
    assert done.returncode == 0, done.stderr
    got = pl.DataFrame(json.loads(done.stdout))
    assert set(got["measure"]) == {"nDCG@10", "Novelty@10"}
    assert values(got) == pytest.approx(values(want), rel=1e-12, abs=1e-15)
    warning = done.stderr.splitlines()
    assert len(warning) == 1, done.stderr
    assert warning[0].startswith(
        "rankframe: warning: Coverage@10, Gini@10, SelfInformation@10 are population measures"
    )
    assert "-q/--per-query leaves them out" in warning[0]
    # only population measures: nothing to write, a usage error
    said = error_line(cli("evaluate", TRUTH, RUN, "--interactions", INTERACTIONS, "-m", "Gini@10", "-q"))
    assert "Gini@10 is a population measure" in said


@pytest.mark.parametrize("flag", ["--interactions", "--items", "--reference-run"])
def test_a_missing_side_input_names_the_flag_and_the_path(flag, tmp_path) -> None:
    missing = str(tmp_path / "nope.tsv")
    argv = list(SIDE_FLAGS)
    argv[argv.index(flag) + 1] = missing
    said = error_line(cli("evaluate", TRUTH, RUN, *argv, "-m", *UNJUDGED))
    assert said == f"rankframe evaluate: error: {flag} {missing}: no such file (working directory: {ROOT})."


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--aggregate", "mode"], "argument --aggregate: expected mean, median or ciNN"),
        (["--aggregate", "ci100"], "got 'ci100'"),
        (["--empty-queries", "drop"], "argument --empty-queries: invalid choice: 'drop'"),
        (["-q", "--aggregate", "median"], "--aggregate median aggregates the per-query values"),
        (["--items", str(DATA / "no*.tsv")], "no file matches this pattern"),
        (["--interactions"], "argument --interactions: expected one argument"),
    ],
    ids=["aggregate", "ci100", "empty-queries", "per-query-median", "items-glob", "no-value"],
)
def test_bad_values_are_usage_errors(argv, said) -> None:
    assert said in error_line(cli("evaluate", TRUTH, RUN, "-m", "nDCG@10", *argv))


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--no-qrels", RUN, "-m", "nDCG@10", "Coverage@10"],
         "--no-qrels needs --target COLUMN (the runs are then judged by it) when a measure reads "
         "judgments, as nDCG@10 does"),
        ([RUN, "--interactions", INTERACTIONS, "-m", "Coverage@10"],
         f"Coverage@10 reads no judgments: give --no-qrels to evaluate {RUN} as a run without qrels"),
        ([TRUTH, RUN, "-m", "Novelty@10"], "Novelty@10 needs --interactions FILE"),
        ([TRUTH, RUN, "--interactions", INTERACTIONS, "-m", "Unexpectedness@10"],
         "Unexpectedness@10 needs --reference-run FILE"),
        (["--no-qrels", RUN, "--interactions", INTERACTIONS, "-m", "Novelty@10", "--empty-queries", "skip"],
         "with --no-qrels that is every query"),
        ([TRUTH, RUN, "--interactions", INTERACTIONS, "-m", "Coverage@10", "--engine", "duckdb"],
         "--engine duckdb does not implement --interactions"),
    ],
    ids=["no-qrels-judged", "one-file", "no-interactions", "no-reference", "no-qrels-skip", "duckdb"],
)
def test_bad_combinations_are_usage_errors(argv, said) -> None:
    assert said in error_line(cli("evaluate", *argv))


def test_a_side_input_no_measure_reads_is_said() -> None:
    done = cli("evaluate", TRUTH, RUN, "--items", ITEMS, "-m", "nDCG@10")
    assert done.returncode == 0, done.stderr
    assert done.stderr == "rankframe: warning: no measure asked reads --items: it is read for nothing.\n"


def test_help_names_the_flags() -> None:
    done = cli("evaluate", "--help")
    assert done.returncode == 0
    text = " ".join(done.stdout.split())
    for flag in ("--interactions FILE", "--items FILE", "--reference-run FILE",
                 "--empty-queries {zero,skip}", "--aggregate {mean,median,ciNN}",
                 "rankframe evaluate --no-qrels RUN [RUN ...]"):
        assert flag in text


def test_the_data_readme_shows_what_the_command_prints() -> None:
    text = (DATA / "README.md").read_text()
    command, output = re.search(
        r"checks that they agree -->\n```sh\n(.*?)```\n\n```text\n(.*?)```", text, flags=re.DOTALL
    ).groups()
    argv = re.findall(r"\"[^\"]*\"|\S+", command.replace("\\\n", " "))
    assert argv[:2] == ["rankframe", "evaluate"]
    done = child(*(a.strip('"') for a in argv[1:]))
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == output


def test_the_readme_example_equals_the_command(monkeypatch) -> None:
    text = (ROOT / "README.md").read_text()
    section = text[text.index("### Recommender evaluation"):]
    command = re.search(r"```bash\n(.*?)```", section, flags=re.DOTALL).group(1)
    block = re.search(r"```python\n(.*?)```", section, flags=re.DOTALL).group(1)
    done = child(*command.replace("\\\n", " ").split()[1:], "-f", "json")
    assert done.returncode == 0, done.stderr
    # the Python lines, as a user runs them from the repository root, the call's value kept
    start = block.rindex("\nrf.evaluate(") + 1
    scope: dict = {"rf": rf}
    monkeypatch.chdir(ROOT)
    exec(block[:start] + "result = " + block[start:], scope)
    got = values(pl.DataFrame(json.loads(done.stdout)))
    assert got == pytest.approx(values(scope["result"]), rel=1e-12, abs=1e-15)
    assert {m for _, m in got} == set(scope["measures"])


def test_the_catalogue_measures_take_items_alone() -> None:
    """Gini and CatalogCoverage read the catalogue's items: --items suffices, as in the API."""
    measures = ["Gini@10", "CatalogCoverage@10"]
    done = cli("evaluate", "--no-qrels", str(DATA / "run.tsv"), "--items", str(DATA / "items.tsv"),
               "-m", *measures, "-f", "json")
    assert done.returncode == 0, done.stderr
    run, items = {"run.tsv": str(DATA / "run.tsv")}, str(DATA / "items.tsv")
    want = values(rf.evaluate(None, run, measures, items=items))
    got = values(pl.DataFrame(json.loads(done.stdout)))
    assert got.keys() == want.keys()
    for key, value in want.items():
        assert got[key] == pytest.approx(value, rel=1e-12, abs=1e-15), key
