"""trec_eval 10.0's own conformance suite: ``rankframe trec_eval`` must print the same bytes.

The command lines are those of trec_eval's ``make quicktest`` (test/ folder of trec_eval at tag
v10.0), run in-process through ``main(argv)``; the inputs and expected outputs are trec_eval's
files, unchanged. Preference (``-R prefs``, ``qrels_prefs``, ``qrels_jg``) and z-score (``-Z``)
lines are not supported yet and not listed.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from rankframe._cli import main

#: ../shared beside the repository (trec_eval's suite, peer fixtures, real runs).
SHARED = Path(__file__).resolve().parents[2] / "shared"

_CANDIDATES = [
    os.environ.get("RANKFRAME_TREC_EVAL_TEST", ""),
    str(Path(__file__).parent / "data" / "trec_eval_test"),
    f"{SHARED}/conformance/trec_eval_test",
]
SUITE = next((Path(p) for p in _CANDIDATES if p and (Path(p) / "out.test").is_file()), None)

pytestmark = pytest.mark.skipif(
    SUITE is None,
    reason="trec_eval's test/ folder not found (set RANKFRAME_TREC_EVAL_TEST to its path)",
)

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
}


def _argv(command: str) -> list[str]:
    assert SUITE is not None
    return [
        str(SUITE / word.removeprefix("test/")) if word.startswith("test/") else word
        for word in shlex.split(command)
    ]


@pytest.mark.parametrize("expected", list(COMMANDS))
def test_quicktest_output_is_byte_identical(expected, capsys):
    assert SUITE is not None
    want = (SUITE / expected.split(" ")[0]).read_text()
    code = main(["trec_eval", *_argv(COMMANDS[expected])])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert err == ""
    assert out == want


def test_python_m_rankframe_trec_eval():
    assert SUITE is not None
    proc = subprocess.run(
        [sys.executable, "-m", "rankframe", "trec_eval", *_argv(COMMANDS["out.test"])],
        capture_output=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    assert proc.stdout == (SUITE / "out.test").read_bytes()
