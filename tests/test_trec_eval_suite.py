"""trec_eval 10.0's own conformance suite: ``rankframe trec_eval`` must print the same bytes.

The 15 command lines are those of trec_eval's ``make quicktest`` (test/ folder of trec_eval at
tag v10.0), run in-process through ``main(argv)``; the inputs and expected outputs are trec_eval's
files, unchanged, in ``tests/data/trec_eval_test/`` (origin and licence in its README).
"""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from rankframe._cli.main import main

#: The test data that travels with the tests (origin and licence: tests/data/README.md).
TEST_DATA = Path(__file__).resolve().parent / "data"
#: trec_eval's test/ folder at tag v10.0 (tests/data/trec_eval_test/README.md).
SUITE = TEST_DATA / "trec_eval_test"

#: expected file -> the trec_eval command line that produces it (Makefile target quicktest)
COMMANDS = {
    "out.test": "test/qrels.test test/results.test",
    "out.test (qrels with comments)": "test/qrels.test.with-comments test/results.test",
    "out.comment.test": "test/qrels.comment.test test/results.comment.test",
    "out.test.a": "-m all_trec test/qrels.test test/results.test",
    "out.test.aq": "-m all_trec -q test/qrels.test test/results.test",
    "out.test.aqc": "-m all_trec -q -c test/qrels.test test/results.trunc",
    "out.test.aqcM": "-m all_trec -q -c -M100 test/qrels.test test/results.trunc",
    "out.test.aql": "-m all_trec -mrelstring.20 -q -l2 test/qrels.rel_level test/results.test",
    "out.test.meas_params": (
        "-q -miprec_at_recall..10,.20,.25,.75,.50 -m P.5,7,3 -m recall.20,2000 "
        "-m Rprec_mult.5.0,0.2,0.35 -mutility.2,-1,0,0 -m 11pt_avg..25,.5,.75 "
        "-mndcg.1=3,2=9,4=4.5 -mndcg_cut.10,20,23.4 -msuccess.2,5,20 "
        "test/qrels.test test/results.test"
    ),
    "out.test.aqZ": "-q -m all_trec -Z test/zscores_file test/qrels.test test/results.test",
    "out.test.qrels_jg": "-m qrels_jg -q -R qrels_jg test/qrels.123 test/results.test",
    "out.test.qrels_jg (qrels with comments)": (
        "-m qrels_jg -q -R qrels_jg test/qrels.comments.123 test/results.test"
    ),
    "out.test.prefs": "-m all_prefs -q -R prefs test/prefs.test test/prefs.results.test",
    "out.test.prefs (prefs with comments)": (
        "-m all_prefs -q -R prefs test/prefs.comment.test test/prefs.results.test"
    ),
    "out.test.qrels_prefs": "-m all_prefs -q -R qrels_prefs test/qrels.test test/results.test",
}


def _argv(command: str) -> list[str]:
    return [
        str(SUITE / word.removeprefix("test/")) if word.startswith("test/") else word
        for word in shlex.split(command)
    ]


@pytest.mark.parametrize("expected", list(COMMANDS))
def test_quicktest_output_is_byte_identical(expected, capsys):
    want = (SUITE / expected.split(" ")[0]).read_text()
    code = main(["trec_eval", *_argv(COMMANDS[expected])])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert err == ""
    assert out == want


def test_python_m_rankframe_trec_eval():
    proc = subprocess.run(
        [sys.executable, "-m", "rankframe", "trec_eval", *_argv(COMMANDS["out.test"])],
        capture_output=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    assert proc.stdout == (SUITE / "out.test").read_bytes()


def _rows(text: str) -> dict[tuple[str, str], str]:
    return {(r[0].strip(), r[1]): r[2] for r in (line.split("\t") for line in text.splitlines())}


def test_zscores_of_mean_0_stddev_1_are_the_raw_values(tmp_path, capsys):
    """-Z with mean 0 and stddev 1 everywhere prints each raw value (as %6.4f), labelled Z..."""
    raw = _rows((SUITE / "out.test.aq").read_text())
    zs = tmp_path / "zscores"
    zs.write_text("".join(f"{q} {m} 0 1\n" for (m, q) in raw if q != "all"))
    code = main(["trec_eval", "-q", "-m", "all_trec", "-c", "-Z", str(zs),
                 *_argv("test/qrels.test test/results.test")])
    out, err = capsys.readouterr()
    assert code == 0, err
    got = _rows(out)
    for (m, q), value in raw.items():
        if q == "all" or m == "relstring":
            continue
        assert got[("Z" + m, q)] == f"{float(value):6.4f}", (m, q)
    assert got[("Znum_q", "all")] == "3.0000"
    assert got[("Znum_rel", "all")] == "561.0000"  # -c: trec_eval recounts num_rel, even with -Z


def test_one_judgment_group_gives_the_plain_measures(tmp_path, capsys):
    """qrels_jg with a single group: map_avgjg, P_avgjg, Rprec_mult_avgjg equal map, P, Rprec_mult."""
    raw = _rows((SUITE / "out.test.aq").read_text())
    jg = tmp_path / "qrels_jg"
    jg.write_text((SUITE / "qrels.test").read_text())  # the iteration column "0" is the group
    code = main(["trec_eval", "-q", "-m", "qrels_jg", "-R", "qrels_jg", str(jg),
                 *_argv("test/results.test")])
    out, err = capsys.readouterr()
    assert code == 0, err
    got = _rows(out)
    assert len(got) == 3 * 20 + 22
    for (m, q), value in got.items():
        plain = m.replace("_avgjg", "")
        assert raw[(plain, q)] == value, (m, q)


def test_judgment_group_measures_need_qrels_jg(capsys):
    code = main(["trec_eval", "-m", "P_avgjg", *_argv("test/qrels.test test/results.test")])
    _, err = capsys.readouterr()
    assert code == 2
    assert "-R qrels_jg" in err
    code = main(["trec_eval", "-R", "qrels_jg", "-m", "map", *_argv("test/qrels.123 test/results.test")])
    _, err = capsys.readouterr()
    assert code == 2
    assert "map_avgjg" in err
