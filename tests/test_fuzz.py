"""What rankframe refuses, and how: the fuzz corpus through the API and the command line.

Each case of ``tests/fuzz_corpus.py`` (the readable map of malformed inputs) goes through the
API, which must raise a :class:`rankframe.RankframeError` naming the file and line, the column
or the parameter, and through ``rankframe`` in-process, which must exit 1 or 2 with that message
on stderr, no traceback and nothing on stdout (no number printed). Then hypothesis mixes garbage
lines into valid TREC qrels and runs: comments and blank lines change nothing; any other line is
either read or refused by an :class:`rankframe.InputError` that names the file and one of the
lines added.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import rankframe as rf
from rankframe._cli.main import main
from rankframe.ltr import read_svmlight
from tests.fuzz_corpus import CASES, LETOR_NO_QID, QRELS, RUN, Case

#: LETOR rows with ``qid:``, 10 queries: enough to split into train, validation and test.
LETOR_QUERIES = "".join(
    f"{g} qid:{q} 1:{g / 2} 2:{q} # docid = D{q}{g}\n" for q in range(10) for g in (2, 1, 0)
)

#: The run's name the command line adds after a run's path (``run.txt (run 'run.txt'), line 3``).
_RUN_NAME = r"(?: \(run '[^']*'\))?"


@pytest.fixture
def good(tmp_path: Path) -> dict[str, Path]:
    """Valid inputs to pair a bad one with."""
    paths = {"qrels": tmp_path / "good-qrels.txt", "run": tmp_path / "good-run.txt"}
    paths["qrels"].write_text(QRELS)
    paths["run"].write_text(RUN)
    paths["run2"] = tmp_path / "good-run2.txt"
    paths["run2"].write_text(RUN.replace(" 2.0 ", " 0.5 "))
    paths["letor"] = tmp_path / "good-letor.txt"
    paths["letor"].write_text(LETOR_NO_QID)
    paths["letor_qid"] = tmp_path / "good-letor-qid.txt"
    paths["letor_qid"].write_text(LETOR_QUERIES)
    return paths


def _pattern(names: str, path: object) -> str:
    """``names`` with ``{path}`` replaced by the path, as messages write it (quoted or not)."""
    if path is None:
        return names
    return names.replace("{path}", "'?" + re.escape(str(path)) + "'?" + _RUN_NAME)


def _input(case: Case, folder: Path) -> Any:
    return case.bad(folder, case.id) if callable(case.bad) else case.bad


def _named_path(case: Case, bad: Any, good: dict[str, Path]) -> object:
    """The path ``{path}`` stands for: the bad file, or the good run for an option."""
    if case.feeds in ("option", "compare-option"):
        return good["run"]
    return bad if isinstance(bad, str | Path) and case.feeds != "measure" else None


def _has_api(case: Case) -> bool:
    return case.feeds not in ("trec_eval-option", "command") and case.bad is not None


def _has_cli(case: Case) -> bool:
    return case.cli and (case.argv is not None or not case.feeds.endswith("option"))


def _placed(argv: Any, bad: Any, good: dict[str, Path]) -> list[str]:
    """A ``command`` case's argv with its placeholders replaced by paths."""
    places = {
        "{qrels}": good["qrels"], "{run}": good["run"], "{run2}": good["run2"],
        "{letor}": good["letor_qid"], "{file}": bad,
    }
    return [str(places[a]) if a in places else a for a in argv]


def _marks(case: Case) -> Any:
    marks = [pytest.mark.xfail(strict=True, reason=case.defect)] if case.defect else []
    return pytest.param(case, id=case.id, marks=marks)


def _api_calls(case: Case, bad: Any, good: dict[str, Path]) -> list[Callable[[], object]]:
    """The calls that must refuse ``bad``."""
    qrels, run = good["qrels"], good["run"]
    match case.feeds:
        case "qrels":  # one run alone, one by name (a plan with a run column), two (plans sharing
            # the judgments' statistics): each plan shape must reach the checks
            return [
                lambda: rf.evaluate(bad, run, ["AP"]),
                lambda: rf.evaluate(bad, {"run.txt": run}, ["AP"]),
                lambda: rf.evaluate(bad, [run, good["run2"]], ["AP"]),
            ]
        case "run":
            return [lambda: rf.evaluate(qrels, bad, ["AP"])]
        case "judged":
            return [lambda: rf.evaluate(judged=bad, measures=["AP"])]
        case "compare":
            return [lambda: rf.compare(qrels, [run, bad], ["AP"])]
        case "prefs":
            return [lambda: rf.evaluate(run=run, prefs=bad, measures=["KendallDist"])]
        case "letor":
            return [lambda: read_svmlight(bad)]
        case "groups":
            return [lambda: read_svmlight(good["letor"], query_file=bad)]
        case "measure":
            return [lambda: rf.evaluate(qrels, run, [bad])]
        case "option":
            return [lambda: rf.evaluate(qrels, run, **{"measures": ["AP"], **bad})]
        case "compare-option":
            return [lambda: rf.compare(qrels, [run, good["run2"]], ["AP"], **bad)]
        case "interactions":  # alone, and beside the judgment plan
            return [
                lambda: rf.evaluate(None, run, ["Novelty@2", "Coverage@2"], interactions=bad),
                lambda: rf.evaluate(qrels, run, ["AP", "Surprisal@2"], interactions=bad),
            ]
        case "items":
            return [lambda: rf.evaluate(None, run, ["DistributionalCoverage@2"], items=bad)]
        case "reference":
            return [lambda: rf.evaluate(None, run, ["Unexpectedness@2"], reference=bad)]
        case "output":  # refused before the evaluation; a report written after compare()
            return [
                lambda: rf.evaluate(qrels, run, ["AP"], per_query=True, output=bad),
                lambda: rf.compare(qrels, [run, good["run2"]], ["AP"]).to_csv(bad),
            ]
    raise AssertionError(case.feeds)  # pragma: no cover - a new kind of case needs a line here


def _commands(case: Case, bad: Any, good: dict[str, Path]) -> list[list[str]]:
    if case.feeds == "command":
        return [_placed(case.argv, bad, good)]
    qrels, run, bad = str(good["qrels"]), str(good["run"]), str(bad)
    learn = ["--losses", "pointwise", "--epochs", "1", "--lr", "0.1", "--l2", "0"]
    match case.feeds:
        case "qrels":
            commands = [["evaluate", bad, run, str(good["run2"]), "-m", "AP"], ["trec_eval", bad, run]]
        case "run":
            commands = [["evaluate", qrels, bad, "-m", "AP"], ["trec_eval", qrels, bad]]
        case "compare":
            commands = [["compare", qrels, run, bad, "-m", "AP"]]
        case "prefs":
            commands = [
                ["evaluate", "--prefs", bad, run, "-m", "KendallDist"],
                ["trec_eval", "-R", "prefs", "-m", "prefs", bad, run],
            ]
        case "letor":
            commands = [["learn", bad, *learn]]
        case "groups":
            commands = [["learn", str(good["letor"]), "--query-file", bad, *learn]]
        case "measure":
            commands = [
                ["evaluate", qrels, run, "-m", bad], ["sql", "-m", bad], ["trec_eval", "-m", bad, qrels, run],
            ]
        case "option":
            commands = [["evaluate", qrels, run, *(case.argv or ())]]
        case "compare-option":
            commands = [["compare", qrels, run, str(good["run2"]), "-m", "AP", *(case.argv or ())]]
        case "trec_eval-option":
            argv = [a.replace("{file}", bad).replace("{run}", run) for a in case.argv or ()]
            commands = [["trec_eval", *argv] + ([] if "{run}" in (case.argv or ()) else [qrels, run])]
        case "interactions" | "items" | "reference":
            flag = {"interactions": "--interactions", "items": "--items", "reference": "--reference-run"}
            measure = {"interactions": "Novelty@2", "items": "DistributionalCoverage@2",
                       "reference": "Unexpectedness@2"}[case.feeds]
            commands = [["evaluate", "--no-qrels", run, "-m", measure, flag[case.feeds], bad]]
        case "output":  # every command's output option, each refused before any work
            letor = str(good["letor_qid"])
            return [
                ["evaluate", qrels, run, "-m", "AP", "-o", bad],
                ["compare", qrels, run, str(good["run2"]), "-m", "AP", "--html", bad],
                ["sql", "-m", "AP", "-o", bad],
                ["learn", letor, "--losses", "pointwise", "--epochs", "1", "-o", bad],
            ]
        case _:  # pragma: no cover
            raise AssertionError(case.feeds)
    if case.feeds == "measure" and not case.trec_eval:
        return commands[:2]
    return commands if case.trec_eval else commands[:1]


@pytest.mark.parametrize("case", [_marks(c) for c in CASES if _has_api(c)])
def test_the_api_refuses_it_naming_the_place(case: Case, good: dict[str, Path], tmp_path: Path) -> None:
    bad = _input(case, tmp_path)
    expected = ValueError if case.raises == "ValueError" else rf.RankframeError
    names = _pattern(case.names, _named_path(case, bad, good))
    for call in _api_calls(case, bad, good):
        with pytest.raises(expected) as info:
            call()
        assert re.search(names, str(info.value), re.S), str(info.value)


@pytest.mark.parametrize("case", [_marks(c) for c in CASES if _has_cli(c)])
def test_the_command_refuses_it_without_a_traceback(
    case: Case,
    good: dict[str, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    bad = _input(case, tmp_path)
    names = _pattern(case.cli_names or case.names, _named_path(case, bad, good))
    for key, value in (case.env or {}).items():
        monkeypatch.setenv(key, value)
    for argv in _commands(case, bad, good):
        code = main(argv)
        out, err = capsys.readouterr()
        assert code in (1, 2), (argv, code, out, err)
        assert out == "", (argv, out)  # no number printed
        assert "Traceback" not in err, err
        assert re.search(names, err, re.S), (argv, err)
        if case.family == "bounded inputs":  # the input is never quoted whole
            assert err.count("\n") == 1, err[:500]
            assert len(err) < 1000, (len(err), err[:500])


def test_the_corpus_is_a_map_of_at_least_200_inputs() -> None:
    assert len({c.id for c in CASES}) == len(CASES), "case ids must be unique"
    per_family = Counter(c.family for c in CASES)
    print(f"\nfuzz corpus: {len(CASES)} malformed inputs")  # noqa: T201 - the number to quote
    for family, n in sorted(per_family.items()):
        print(f"  {family}: {n}")  # noqa: T201
    assert len(CASES) >= 200
    assert sum(c.cli for c in CASES) >= 150


# ----------------------------------------------------------------------------- garbage lines
_WHITESPACE = " \t\r\f\v"  # trec_eval's isspace() without the line feed
_CHARS = st.characters(codec="utf-8", exclude_characters="\n")
#: Lines the readers skip: blank ones, and comments ('#' as the first byte).
SKIPPED = st.one_of(
    st.text(alphabet=_WHITESPACE, max_size=6),
    st.text(_CHARS, max_size=30).map(lambda s: "#" + s),
).map(str.encode)
#: Anything else: text, bytes, or near misses built from a line's usual words.
_WORDS = ["q1", "q2", "Q0", "0", "a", "b", "zz", "1", "2", "-1", "2.0", "0.5", "nan", "inf", "1e400", "#"]
GARBAGE = st.one_of(
    st.text(_CHARS, min_size=1, max_size=40).map(str.encode),
    st.binary(min_size=1, max_size=40).map(lambda b: b.replace(b"\n", b" ")),
    st.lists(st.sampled_from(_WORDS), min_size=1, max_size=8).map(lambda w: " ".join(w).encode()),
)


def _garbage_file(tmp_path: Path, role: str, lines: list[tuple[int, bytes]]) -> tuple[Path, set[int]]:
    """A valid file with ``lines`` inserted, and the line numbers of those (1-based).

    A line equal to one of the file's is counted where it comes last (either would do).
    """
    original = (QRELS if role == "qrels" else RUN).encode().splitlines()
    body = list(original)
    for pos, line in lines:
        body.insert(min(pos, len(body)), line)
    numbers, seen = set(), Counter(original)
    for i, line in enumerate(body, 1):
        if seen[line]:
            seen[line] -= 1
        else:
            numbers.add(i)
    path = tmp_path / f"garbage-{role}.txt"
    path.write_bytes(b"\n".join(body) + b"\n")
    return path, numbers


def _evaluate(role: str, path: Path, tmp_path: Path) -> Any:
    """Evaluate ``path`` (qrels or run) against the good other side, per query."""
    good = tmp_path / ("good-run.txt" if role == "qrels" else "good-qrels.txt")
    good.write_text(RUN if role == "qrels" else QRELS)
    qrels, run = (path, good) if role == "qrels" else (good, path)
    return rf.evaluate(qrels, run, ["AP", "P@2"], per_query=True)


_POSITIONS = st.integers(min_value=0, max_value=4)
#: The tmp_path of a hypothesis test is shared by its examples: each writes the same files anew.
_FIXTURES = [HealthCheck.function_scoped_fixture]


@pytest.mark.filterwarnings("ignore::rankframe.RankframeWarning")
@pytest.mark.parametrize("role", ["qrels", "run"])
@settings(max_examples=settings.default.max_examples, suppress_health_check=_FIXTURES)
@given(lines=st.lists(st.tuples(_POSITIONS, SKIPPED), min_size=1, max_size=5))
@example(lines=[(0, b"#"), (2, b""), (9, b" \t\r")])
def test_comments_and_blank_lines_change_nothing(
    role: str, lines: list[tuple[int, bytes]], tmp_path: Path
) -> None:
    path, _ = _garbage_file(tmp_path, role, lines)
    clean = tmp_path / f"clean-{role}.txt"
    clean.write_text(QRELS if role == "qrels" else RUN)
    got = _evaluate(role, path, tmp_path)
    expected = _evaluate(role, clean, tmp_path)
    assert got.equals(expected)


@pytest.mark.filterwarnings("ignore::rankframe.RankframeWarning")
@pytest.mark.parametrize("role", ["qrels", "run"])
@settings(max_examples=settings.default.max_examples, suppress_health_check=_FIXTURES)
@given(lines=st.lists(st.tuples(_POSITIONS, GARBAGE), min_size=1, max_size=4))
@example(lines=[(1, b"q1 Q0 a 9 nan t")])  # a bad score
@example(lines=[(3, b"q1 0 a 1")])  # a duplicate judgment, or a qrels line in a run
@example(lines=[(0, b"\x1f\x8b\x08")])  # gzip's magic number in a text file
@example(lines=[(2, "h\u00e9 \u2028 \x00".encode())])  # not ASCII
def test_garbage_lines_are_read_or_refused_naming_file_and_line(
    role: str, lines: list[tuple[int, bytes]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, added = _garbage_file(tmp_path, role, lines)
    try:
        _evaluate(role, path, tmp_path)
    except rf.InputError as err:
        message = str(err)
        assert str(path) in message, message
        named = {int(n) for n in re.findall(r"\bline (\d+)", message)}
        for group in re.findall(r"\(lines ([\d, ]+)\)", message):
            named |= {int(n) for n in group.split(", ")}
        assert not named or named & added, (message, added)
        refused = True
    else:
        refused = False
    # the command agrees: it refuses what the API refuses (exit 1, the file named), reads the rest
    other = tmp_path / ("good-run.txt" if role == "qrels" else "good-qrels.txt")
    qrels, run = (path, other) if role == "qrels" else (other, path)
    code = main(["evaluate", str(qrels), str(run), "-m", "AP"])
    out, err_text = capsys.readouterr()
    assert "Traceback" not in err_text
    if refused:
        assert (code, out) == (1, ""), (code, out, err_text)
        assert str(path) in err_text
    else:
        assert code == 0, err_text
