"""The map of what rankframe refuses: malformed inputs, each with what its error must name.

Every :class:`Case` is one bad input a user could produce, grouped by family (TREC qrels text,
TREC run text, compressed files, paths, CSV/TSV, Parquet and Arrow files, frames, preferences,
LETOR files, measure names, options). ``tests/test_fuzz.py`` feeds each one to the API and to the
command line: the API raises a :class:`rankframe.RankframeError` (a ``ValueError`` where the case
says so) whose message matches ``names``; the command exits 1 (input error) or 2 (usage error)
with that message on stderr, no traceback and nothing on stdout.

A case's ``bad`` builds the input in a folder: :func:`text`, :func:`gz` and :func:`raw` write a
file, :func:`parquet`, :func:`ipc` and :func:`csv_gz` write a table, :func:`frame` returns an
object as is. ``feeds`` says where it goes:

* ``qrels``, ``run``: ``evaluate(bad, run)`` / ``evaluate(qrels, bad)`` and ``rankframe evaluate``
  (TREC text also ``rankframe trec_eval``), against the good inputs :data:`QRELS` and :data:`RUN`;
* ``judged``: ``evaluate(judged=bad)``; ``compare``: ``compare(qrels, [run, bad])`` and
  ``rankframe compare``;
* ``prefs``: ``evaluate(run=run, prefs=bad)`` and ``rankframe evaluate --prefs`` (a prefs text
  file also ``rankframe trec_eval -R prefs``);
* ``letor``: ``rankframe.ltr.read_svmlight(bad)`` and ``rankframe learn``; ``groups``: a LightGBM
  ``.query`` file for rows without ``qid:``;
* ``measure``: ``evaluate(qrels, run, [bad])`` and ``rankframe evaluate -m`` (trec_eval names
  also ``rankframe trec_eval -m``);
* ``option``: ``evaluate(qrels, run, **bad)`` and ``rankframe evaluate`` with the flags in ``argv``;
  ``compare-option``: ``compare(qrels, [run, run2], **bad)`` and ``rankframe compare``;
  ``trec_eval-option``: ``rankframe trec_eval`` with ``argv`` (``{file}``: the file ``bad`` writes);
* ``output``: a destination that cannot be written (``bad`` builds its path): ``evaluate(...,
  output=bad)`` and ``Comparison.to_csv(bad)``; ``rankframe evaluate -o``, ``compare --html``,
  ``sql -o`` and ``learn -o``, each refused before any work;
* ``command``: a whole command line, ``argv``, with the good inputs as ``{qrels}``, ``{run}``,
  ``{run2}``, ``{letor}`` and ``bad``'s path as ``{file}`` (and ``env`` set while it runs): the
  arguments of every subcommand, their numbers out of range and their combinations.

Measure names also go through ``rankframe sql -m``. A case with a ``defect`` is a known bug
outside the corpus's reach, an expected failure until it is fixed.

In ``names``, ``{path}`` stands for the input file's path, the good run's for an option (the
command line may add the run's name after it: ``run.txt (run 'run.txt'), line 3``).
"""

from __future__ import annotations

import datetime
import gzip
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

QRELS = "q1 0 a 1\nq1 0 b 0\nq2 0 c 2\n"
RUN = "q1 Q0 a 1 2.0 t\nq1 Q0 b 2 1.0 t\nq2 Q0 c 1 3.0 t\n"
PREFS = "q1 0 0 a 2\nq1 0 0 b 1\nq2 0 0 c 1\nq2 0 0 d 0\n"
LETOR = "2 qid:1 1:0.5 2:1 # docid = A\n0 qid:1 1:0.1 2:0.3 # docid = B\n1 qid:2 1:1 2:0 # docid = C\n"
#: LETOR rows without ``qid:``: the groups come from a ``.query`` file.
LETOR_NO_QID = "2 1:0.5 2:1\n0 1:0.1 2:0.3\n1 1:1 2:0\n"

Builder = Callable[[Path, str], Any]


@dataclass(frozen=True)
class Case:
    """One malformed input and what its error must name."""

    id: str
    family: str
    feeds: str
    bad: Builder | str | dict[str, Any] | None
    names: str
    #: The command-line flags of an ``option`` case (None: the option has no flag).
    argv: Sequence[str] | None = None
    #: What the command line must name when it differs from the API (argparse's own words).
    cli_names: str | None = None
    #: The exception the API raises (a RankframeError unless the case says otherwise).
    raises: str = "RankframeError"
    #: Whether the input has a command-line form (a frame has none; its file twin has).
    cli: bool = True
    #: Whether ``rankframe trec_eval`` takes the input too (TREC text, trec_eval measure names).
    trec_eval: bool = False
    #: A known defect outside this corpus's reach: the case is an expected failure until fixed.
    defect: str | None = None
    #: Environment variables set while the command runs (``command`` cases).
    env: dict[str, str] | None = None


# ----------------------------------------------------------------------------- builders
def text(content: str, suffix: str = ".txt") -> Builder:
    """A text file holding ``content``."""
    return raw(content.encode(), suffix)


def gz(content: str | bytes, suffix: str = ".txt.gz") -> Builder:
    """A gzip file of ``content``."""
    data = content.encode() if isinstance(content, str) else content
    return raw(gzip.compress(data, mtime=0), suffix)


def raw(data: bytes, suffix: str = ".txt") -> Builder:
    """A file of these bytes."""

    def build(folder: Path, name: str) -> Path:
        path = folder / f"{name}{suffix}"
        path.write_bytes(data)
        return path

    return build


def csv_gz(content: str) -> Builder:
    """A gzip-compressed CSV file."""
    return gz(content, ".csv.gz")


def written(make: Callable[[], Any], suffix: str, write: str) -> Builder:
    """A file of the Polars frame ``make()`` returns, by its ``write`` method."""

    def build(folder: Path, name: str) -> Path:
        path = folder / f"{name}{suffix}"
        getattr(make(), write)(path)
        return path

    return build


def parquet(make: Callable[[], Any]) -> Builder:
    """A Parquet file of the Polars frame ``make()`` returns."""
    return written(make, ".parquet", "write_parquet")


def ipc(make: Callable[[], Any]) -> Builder:
    """An Arrow IPC file of the Polars frame ``make()`` returns."""
    return written(make, ".arrow", "write_ipc")


def truncated(builder: Builder, keep: float = 0.5) -> Builder:
    """The file ``builder`` writes, cut to its first ``keep`` share of bytes."""

    def build(folder: Path, name: str) -> Path:
        path = builder(folder, name)
        data = path.read_bytes()
        path.write_bytes(data[: int(len(data) * keep)])
        return path

    return build


def frame(make: Callable[[], Any]) -> Builder:
    """An object (a frame, a dict...) passed as is; no file."""
    return lambda folder, name: make()


def missing(name: str) -> Builder:
    """A path that does not exist."""
    return lambda folder, _: folder / name


def folder_with(*files: str) -> Builder:
    """A folder holding these (empty) files."""

    def build(folder: Path, name: str) -> Path:
        path = folder / name
        path.mkdir()
        for f in files:
            (path / f).write_text("")
        return path

    return build


def glob_of(pattern: str) -> Builder:
    """A glob pattern in the case's folder (matching nothing)."""
    return lambda folder, name: str(folder / name / pattern)


def line(n: int) -> str:
    """The regex of ``{path}, line n`` (``{path} (run 'x'), line n`` on the command line)."""
    return r"{path}, line " + str(n) + r"\b"


# Polars, pandas and Arrow are imported when a builder runs, not with the corpus.
def _pl() -> Any:
    import polars as pl

    return pl


def _pd() -> Any:
    import pandas as pd

    return pd


def _pa() -> Any:
    import pyarrow as pa

    return pa


def _run_frame(**cols: Any) -> Any:
    base = {"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "score": [2.0, 1.0]}
    return _pl().DataFrame({**base, **cols}, strict=False)


def _qrels_frame(**cols: Any) -> Any:
    base = {"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "relevance": [1, 0]}
    return _pl().DataFrame({**base, **cols}, strict=False)


def _typed(make: Callable[[], Any], col: str, dtype: str) -> Callable[[], Any]:
    return lambda: make().with_columns(_pl().col(col).cast(getattr(_pl(), dtype)))


CASES: list[Case] = []


def cases(family: str, feeds: str, rows: Sequence[tuple[Any, ...]], **kw: Any) -> None:
    """Add one case per ``(id, bad, names)`` row."""
    for row in rows:
        CASES.append(Case(row[0], family, feeds, row[1], row[2], **kw))


# ----------------------------------------------------------------------------- TREC qrels text
# Each malformation in a plain file and in a gzip file: the message is the same.
QRELS_TEXT = [
    ("too-few-fields", "q1 0 a 1\n\n\nq1 0 b\n", line(4) + ": expected at least 4 .* found 3"),
    ("one-field", "q1 0 a 1\nq1\n", line(2) + ": expected at least 4"),
    ("grade-word", "q1 0 a 1\nq1 0 b rel\n", line(2) + ": the relevance grade 'rel' is not an integer"),
    ("grade-fraction", "q1 0 a 1\nq1 0 b 0.5\n", line(2) + ": the relevance grade '0.5' is not an integer"),
    ("grade-comma", "q1 0 a 1,0\n", line(1) + ": the relevance grade '1,0' is not an integer"),
    ("grade-nan", "q1 0 a 1\nq1 0 b nan\n", line(2) + ": the relevance grade 'nan'"),
    ("grade-inf", "q1 0 a inf\n", line(1) + ": the relevance grade 'inf'"),
    ("grade-1e400", "q1 0 a 1\nq1 0 b 1e400\n", line(2) + ": the relevance grade '1e400'"),
    ("grade-20-digits", "q1 0 a 99999999999999999999\n", line(1) + ": the relevance grade '9+'"),
    ("grade-hex", "q1 0 a 0x1\n", line(1) + ": the relevance grade '0x1'"),
    ("duplicate-pair", "q1 0 a 1\nq1 0 b 0\nq1 0 a 2\n",
     r"{path}: duplicate \(query, doc\) rows in the qrels: \('q1', 'a'\) x2 \(lines 1, 3\)"),
    ("duplicate-in-a-query-the-run-lacks", "q9 0 z 1\nq9 0 z 0\n" + QRELS,
     r"{path}: duplicate \(query, doc\) rows in the qrels: \('q9', 'z'\) x2 \(lines 1, 2\)"),
    ("grade-fraction-in-a-query-the-run-lacks", QRELS + "q9 0 z 0.5\n",
     line(4) + ": the relevance grade '0.5'"),
    ("empty", "", r"The qrels file {path} is empty"),
    ("blank-lines-only", "\n  \n\t\n", r"The qrels file {path} is empty"),
    ("comments-only", "# judgments\n\n# none yet\n", r"The qrels file {path} holds no data lines"),
    ("indented-comment", "q1 0 a 1\n  # by A\n", line(2) + ": expected at least 4 .* found 3"),
    ("run-given-as-qrels", "# a run\n" + RUN, line(2) + r": a qrels line has 4 fields .* swapped"),
    ("carriage-returns-only", QRELS.replace("\n", "\r"),
     r"The qrels file {path} ends its lines with carriage"),
    ("mixed-whitespace-bad-grade", "q1\t0 a\t1\n\nq1 0\tb\tx\n", line(3) + ": the relevance grade 'x'"),
    ("bad-line-after-blanks-and-comments", "\n# c\nq1 0 a 1\n\n\nq1 0 b high\n", line(6)),
    ("binary-garbage", bytes(range(1, 256)).decode("latin-1"), line(1) + ": expected at least 4"),
]
QRELS_TEXT.append(("utf16", QRELS.encode("utf-16"), r"The qrels file {path} is UTF-16 text"))
for _id, _text, _names in QRELS_TEXT:
    _plain = text(_text) if isinstance(_text, str) else raw(_text)
    CASES.append(Case(f"qrels-{_id}", "TREC qrels text", "qrels", _plain, _names, trec_eval=True))
    CASES.append(Case(f"qrels-{_id}-gz", "TREC qrels text", "qrels", gz(_text), _names, trec_eval=True))

# ----------------------------------------------------------------------------- TREC run text
RUN_TEXT = [
    ("four-fields-qrels-line", "q1 Q0 a 1 2.0 t\nq1 0 b 0\n", line(2) + r": expected at least 6 .* swapped"),
    ("five-fields", "q1 Q0 a 1 2.0 t\nq1 Q0 b 2 1.0\n", line(2) + ": expected at least 6 .* found 5"),
    ("score-word", "q1 Q0 a 1 2.0 t\n\n# x\nq1 Q0 b 2 high t\n",
     line(4) + ": the score 'high' is not a number"),
    ("score-comma", "q1 Q0 a 1 1,5 t\n", line(1) + ": the score '1,5' is not a number"),
    ("score-hex", "q1 Q0 a 1 0x10 t\n", line(1) + ": the score '0x10' is not a number"),
    ("score-nan", "q1 Q0 a 1 2.0 t\nq1 Q0 b 2 nan t\n",
     line(2) + ": the score of query 'q1', doc 'b' is nan"),
    ("score-NaN", "q1 Q0 a 1 NaN t\n", line(1) + ": the score of query 'q1', doc 'a' is nan"),
    ("score-inf", "q1 Q0 a 1 2.0 t\nq1 Q0 b 2 inf t\n", line(2) + ": the score .* is inf"),
    ("score-minus-infinity", "q1 Q0 a 1 -Infinity t\n", line(1) + ": the score .* is -inf"),
    ("score-1e400", "q1 Q0 a 1 1e400 t\n", line(1) + ": the score .* is inf, which is not a finite"),
    ("score-minus-1e400", "q1 Q0 a 1 2.0 t\nq1 Q0 b 2 -1e400 t\n", line(2) + ": the score .* is -inf"),
    ("duplicate-pair", "q1 Q0 a 1 2.0 t\nq1 Q0 b 2 1.0 t\n# c\nq1 Q0 a 3 0.5 t\n",
     r"{path}( \(run '[^']*'\))?: duplicate \(query, doc\) rows in the run: \('q1', 'a'\) x2 \(lines 1, 4\)"),
    ("empty", "", r"The run file {path} is empty"),
    ("blank-lines-only", "\n\n   \n", r"The run file {path} is empty"),
    ("comments-only", "# nothing\n\n# here\n", r"The run file {path} holds no data lines"),
    ("indented-comment", "q1 Q0 a 1 2.0 t\n # run by me\n", line(2) + ": expected at least 6 .* found 4"),
    ("qrels-given-as-run", QRELS, line(1) + r": expected at least 6 .* swapped"),
    ("carriage-returns-only", RUN.replace("\n", "\r"), r"The run file {path} ends its lines with carriage"),
    ("mixed-whitespace-bad-score", "q1\tQ0 a\t1 2.0 t\n\nq1 Q0\tb 2 1,5 t\n", line(3) + ": the score '1,5'"),
    ("nan-after-blank-lines", "q1\tQ0\ta\t1\t2.0\tt\n\t\nq1\tQ0\tb\t2\tinf\tt\n", line(3)),
    ("binary-garbage", bytes(range(1, 256)).decode("latin-1"), line(1) + ": expected at least 6"),
    ("csv-content-in-txt", "qid,docno,score\nq1,a,1.0\n", line(1) + ": expected at least 6 .* found 1"),
]
RUN_TEXT.append(("utf16", RUN.encode("utf-16"), r"The run file {path} is UTF-16 text"))
for _id, _text, _names in RUN_TEXT:
    _plain = text(_text) if isinstance(_text, str) else raw(_text)
    CASES.append(Case(f"run-{_id}", "TREC run text", "run", _plain, _names, trec_eval=True))
    CASES.append(Case(f"run-{_id}-gz", "TREC run text", "run", gz(_text), _names, trec_eval=True))

# ----------------------------------------------------------------------------- compressed files
_GZ = gzip.compress(RUN.encode(), mtime=0)
COMPRESSED = [
    ("gzip-truncated", raw(_GZ[:-6], ".txt.gz"), r"Cannot read the {role} input {path}"),
    ("gzip-cut-in-half", raw(_GZ[: len(_GZ) // 2], ".txt.gz"), r"Cannot read the {role} input {path}"),
    ("gzip-magic-then-garbage", raw(b"\x1f\x8bgarbage", ".txt.gz"), r"Cannot read the {role} input {path}"),
    ("bzip2-magic-then-garbage", raw(b"BZhgarbage", ".txt.bz2"), r"Cannot read the {role} input {path}"),
    ("xz-magic-then-garbage", raw(b"\xfd7zXZ\x00garbage", ".txt.xz"), r"Cannot read the {role} input {path}"),
    ("gzip-of-nothing", gz(b""), r"The {role} file {path} is empty"),
    ("gzip-of-binary", gz(bytes(range(1, 256))), line(1) + ": expected at least"),
    ("gzip-of-gzip", gz(_GZ), r"The {role} file {path} holds a NUL byte .* compressed twice"),
]
for _role in ("qrels", "run"):
    for _id, _bad, _names in COMPRESSED:
        _names = _names.replace("{role}", _role)
        CASES.append(Case(f"{_role}-{_id}", "compressed files", _role, _bad, _names, trec_eval=True))

# ----------------------------------------------------------------------------- paths
PATHS = [
    ("missing-txt", missing("nope.txt"), r"The {role} file {path} does not exist"),
    ("missing-gz", missing("nope.txt.gz"), r"The {role} file {path} does not exist"),
    ("missing-parquet", missing("nope.parquet"), r"The {role} file {path} does not exist"),
    ("missing-csv", missing("nope.csv"), r"The {role} file {path} does not exist"),
    ("missing-tsv", missing("nope.tsv"), r"The {role} file {path} does not exist"),
    ("missing-arrow", missing("nope.arrow"), r"The {role} file {path} does not exist"),
    ("folder-without-parquet", folder_with("notes.txt"), r"The {role} folder {path} holds no '\*\.parquet'"),
    ("empty-folder", folder_with(), r"The {role} folder {path} holds no '\*\.parquet'"),
    ("glob-matching-nothing", glob_of("*.parquet"), r"No file matches the {role} pattern {path}"),
]
for _role in ("qrels", "run"):
    for _id, _bad, _names in PATHS:
        CASES.append(Case(f"{_role}-{_id}", "paths", _role, _bad, _names.replace("{role}", _role)))

# ----------------------------------------------------------------------------- bounded inputs
# Devices and pipes of unknown size, endless or binary data, absurd lines (issue 38): refused
# at once, naming the path, and quoting at most 200 characters of a line.
def device(path: str) -> Builder:
    """A device file (``/dev/zero``...), passed by its path."""
    return lambda folder, name: path


def fifo(suffix: str) -> Builder:
    """A named pipe that nobody writes to: refused before it is opened (opening would block)."""

    def build(folder: Path, name: str) -> Path:
        import os

        path = folder / f"{name}{suffix}"
        os.mkfifo(path)
        return path

    return build


_HUGE_LINE = b"x" * (2 << 20)  # 2 MiB with no line feed
_NUL = r"The {role} file {path} holds a NUL byte .* binary data"
BOUNDED = [
    ("dev-zero", device("/dev/zero"), _NUL),
    ("dev-urandom", device("/dev/urandom"), _NUL),
    ("nul-byte-in-a-line", raw(RUN.encode() + b"q2 Q0 c\x00 2 1.0 t\n"), _NUL),
    ("line-of-2-mib", raw(_HUGE_LINE), r"The {role} file {path} has a line longer than 1 MiB"),
    ("line-of-2-mib-gz", gz(_HUGE_LINE), r"The {role} file {path} has a line longer than 1 MiB"),
    ("line-of-100k-quoted-in-200", text("x" * 100_000 + " 0 a\n"),
     line(1) + r": expected at least \d .* found 3: 'x{200}'\.\.\. \(100004 characters in all\)\. Fix"),
]
for _role in ("qrels", "run"):
    for _id, _bad, _names in BOUNDED:
        CASES.append(Case(
            f"{_role}-{_id}", "bounded inputs", _role, _bad, _names.replace("{role}", _role), trec_eval=True,
        ))
cases("bounded inputs", "prefs", [
    ("prefs-dev-zero", device("/dev/zero"), _NUL.replace("{role}", "prefs")),
    ("prefs-line-of-2-mib", raw(_HUGE_LINE), r"The prefs file {path} has a line longer than 1 MiB"),
], trec_eval=True)
cases("bounded inputs", "letor", [
    ("letor-dev-zero", device("/dev/zero"), r"The LETOR/SVMlight file /dev/zero holds a NUL byte"),
    ("letor-line-of-2-mib", raw(_HUGE_LINE),
     line(1) + r": expected a numeric label first, got 'x{200}'\.\.\. \(2097152 characters in all\)"),
])
cases("bounded inputs", "run", [
    ("run-csv-named-pipe", fifo(".csv"), r"The run path {path} is not a regular file .* Save it to a file"),
    ("run-parquet-named-pipe", fifo(".parquet"), r"The run path {path} is not a regular file"),
])

# ----------------------------------------------------------------------------- CSV / TSV
_LATE = "".join(f"q1,d{i},{i}.5\n" for i in range(300))
cases("CSV/TSV", "run", [
    ("run-csv-no-header", text("q1,a,1.0\nq1,b,2.0\n", ".csv"), r"{path} has no run column 'query_id'"),
    ("run-csv-semicolons", text("qid;docno;score\nq1;a;1.0\n", ".csv"),
     r"{path} has no run column .* Available columns: 'qid;docno;score'\."),
    ("run-tsv-with-commas", text("qid,docno,score\nq1,a,1.0\n", ".tsv"), r"{path} has no run column"),
    ("run-csv-renamed-columns", text("topic,document,score\nq1,a,1.0\n", ".csv"),
     r"{path} has no run column 'doc_id'.*'document'"),
    ("run-csv-missing-score-field", text("qid,docno,score\nq1,a,1.0\nq1,b\n", ".csv"),
     line(3) + ": the score of query 'q1', doc 'b' is null"),
    ("run-csv-empty-score", text("qid,docno,score\nq1,a,1.0\nq1,b,\n", ".csv"),
     line(3) + ": the score .* is null"),
    ("run-csv-extra-field", text("qid,docno,score\nq1,a,1.0,9\n", ".csv"),
     r"Cannot read the run input {path}"),
    ("run-csv-unclosed-quote", text('qid,docno,score\nq1,"a,1.0\n', ".csv"),
     r"Cannot read the run input {path}"),
    ("run-csv-unclosed-quote-late", text('qid,docno,score\nq1,a,1.0\nq1,"b,2.0\n', ".csv"),
     r"Cannot read the run input {path}"),
    ("run-csv-nan-score", text("qid,docno,score\nq1,a,1.0\nq1,b,nan\n", ".csv"),
     r"The run column 'score' in {path} has dtype String"),
    ("run-csv-inf-score", text("qid,docno,score\nq1,a,1.0\nq1,b,inf\n", ".csv"),
     line(3) + ": the score .* is inf"),
    ("run-csv-1e400-score", text("qid,docno,score\nq1,a,1.0\nq1,b,1e400\n", ".csv"), line(3)),
    ("run-csv-word-score-late", text(f"qid,docno,score\n{_LATE}q1,z,n/a\n", ".csv"),
     r"column 'score' in {path} has dtype String.*'n/a' \({path}, line 302\)"),
    ("run-csv-null-query", text("qid,docno,score\nq1,a,1.0\n,b,2.0\n", ".csv"),
     line(3) + ": the query id is null"),
    ("run-csv-null-doc", text("qid,docno,score\nq1,a,1.0\nq1,,2.0\n", ".csv"),
     line(3) + ": the doc id is null"),
    ("run-csv-duplicate-pair", text("qid,docno,score\nq1,a,1.0\nq1,a,2.0\n", ".csv"),
     r"{path}.*duplicate \(query, doc\) rows in the run: \('q1', 'a'\) x2 \(lines 2, 3\)"),
    ("run-csv-header-only", text("qid,docno,score\n", ".csv"),
     r"The run column 'score' in {path} has dtype String; .* holds no value: {path} has no data rows"),
    ("run-csv-null-scores", text("qid,docno,score\nq1,a,\nq1,b,\n", ".csv"),
     r"The run column 'score' in {path} has dtype String; .* holds no value \(only nulls\)"),
    ("run-csv-empty-file", text("", ".csv"), r"Cannot read the run input {path}"),
    # not UTF-8: read byte for byte (ids of bytes), where its header of control bytes fails
    ("run-csv-binary-garbage", raw(bytes(range(256)), ".csv"), r"Cannot read the run input {path}"),
    ("run-csv-gz-truncated", truncated(csv_gz("qid,docno,score\nq1,a,1\n" * 50), 0.6),
     r"Cannot read the run input {path}"),
    ("run-tsv-boolean-score", text("qid\tdocno\tscore\nq1\ta\ttrue\n", ".tsv"),
     r"The run column 'score' in {path} has dtype Boolean"),
    ("run-tsv-float-query-ids", text("qid\tdocno\tscore\n1.5\ta\t1.0\n", ".tsv"),
     r"The run column 'query_id' in {path} has dtype Float64"),
])
cases("CSV/TSV", "qrels", [
    ("qrels-csv-word-grade", text("qid,docno,rel\nq1,a,1\nq1,b,high\n", ".csv"),
     r"The qrels column 'relevance' in {path} has dtype String.*'high' \({path}, line 3\)"),
    ("qrels-csv-fractional-grade", text("qid,docno,rel\nq1,a,1\nq1,b,0.5\n", ".csv"),
     line(3) + ": the relevance grade 0.5 .* is not an integer"),
    ("qrels-csv-null-grade", text("qid,docno,rel\nq1,a,1\nq1,b,\n", ".csv"),
     line(3) + ": the relevance grade .* is null"),
    ("qrels-csv-huge-grade", text("qid,docno,rel\nq1,a,1\nq1,b,1e300\n", ".csv"),
     line(3) + ": .* is too large"),
    ("qrels-csv-inf-grade", text("qid,docno,rel\nq1,a,1\nq1,b,inf\n", ".csv"),
     line(3) + ": .* inf .* not an integer"),
    ("qrels-csv-duplicate-pair", text("qid,docno,rel\nq1,a,1\nq1,a,0\n", ".csv"), r"\(lines 2, 3\)"),
    ("qrels-csv-fraction-in-a-query-the-run-lacks", text("qid,docno,rel\nq1,a,1\nq9,z,0.5\n", ".csv"),
     line(3) + ": the relevance grade 0.5 of \\('q9', 'z'\\) is not an integer"),
    ("qrels-csv-null-grade-in-a-query-the-run-lacks", text("qid,docno,rel\nq9,z,\nq1,a,1\n", ".csv"),
     line(2) + ": the relevance grade of query 'q9', doc 'z' is null"),
    ("qrels-csv-no-grade-column", text("qid,docno\nq1,a\n", ".csv"),
     r"{path} has no qrels column 'relevance'"),
    ("qrels-tsv-no-header", text("q1\ta\t1\n", ".tsv"), r"{path} has no qrels column"),
])

# ----------------------------------------------------------------------------- Parquet and Arrow
cases("Parquet/Arrow files", "run", [
    ("run-parquet-string-scores", parquet(lambda: _run_frame(score=["high", "1.0"])),
     r"The run column 'score' in {path} has dtype String.*'high'"),
    ("run-parquet-numbers-as-text", parquet(lambda: _run_frame(score=["2.0", "1.0"])),
     r"column 'score' in {path} has dtype String.*stored as text"),
    ("run-parquet-null-query-id", parquet(lambda: _run_frame(query_id=["q1", None])),
     r"{path}.*, column 'query_id': the query id is null"),
    ("run-parquet-null-doc-id", parquet(lambda: _run_frame(doc_id=[None, "b"])),
     r"{path}.*, column 'doc_id': the doc id is null"),
    ("run-parquet-null-score", parquet(lambda: _run_frame(score=[1.0, None])),
     r"{path}.*, column 'score': the score of query 'q1', doc 'b' is null"),
    ("run-parquet-nan-score", parquet(lambda: _run_frame(score=[1.0, math.nan])),
     r"{path}.*column 'score'.* nan"),
    ("run-parquet-inf-score", parquet(lambda: _run_frame(score=[math.inf, 1.0])),
     r"{path}.*column 'score'.* inf"),
    ("run-parquet-float32-nan-score",
     parquet(_typed(lambda: _run_frame(score=[math.nan, 1.0]), "score", "Float32")),
     r"{path}.*column 'score'.* nan"),
    ("run-parquet-all-null-score", parquet(lambda: _run_frame(score=[None, None])),
     r"The run column 'score' in {path} has dtype Null"),
    ("run-parquet-missing-doc-column", parquet(lambda: _run_frame().drop("doc_id")),
     r"{path} has no run column 'doc_id'.*Available columns: 'query_id', 'score'"),
    ("run-parquet-list-scores", parquet(lambda: _run_frame(score=[[1.0], [2.0]])),
     r"The run column 'score' in {path} has dtype List"),
    ("run-parquet-list-query-ids", parquet(lambda: _run_frame(query_id=[["q1"], ["q1"]])),
     r"The run column 'query_id' in {path} has dtype List"),
    ("run-parquet-struct-doc-ids", parquet(lambda: _run_frame(doc_id=[{"x": 1}, {"x": 2}])),
     r"The run column 'doc_id' in {path} has dtype Struct"),
    ("run-parquet-date-scores", parquet(lambda: _run_frame(score=[datetime.date(2020, 1, 1)] * 2)),
     r"The run column 'score' in {path} has dtype Date"),
    ("run-parquet-boolean-scores", parquet(lambda: _run_frame(score=[True, False])),
     r"The run column 'score' in {path} has dtype Boolean"),
    ("run-parquet-float-query-ids", parquet(lambda: _run_frame(query_id=[1.0, 1.0])),
     r"The run column 'query_id' in {path} has dtype Float64"),
    ("run-parquet-duplicate-pair", parquet(lambda: _run_frame(doc_id=["a", "a"])),
     r"{path}.*duplicate \(query, doc\) rows in the run: \('q1', 'a'\) x2"),
    ("run-parquet-truncated", truncated(parquet(lambda: _run_frame())), r"Cannot read the run input {path}"),
    ("run-parquet-garbage", raw(b"not a parquet file", ".parquet"), r"Cannot read the run input {path}"),
    ("run-parquet-zero-bytes", raw(b"", ".parquet"), r"Cannot read the run input {path}"),
    ("run-parquet-that-is-csv", text("qid,docno,score\nq1,a,1\n", ".parquet"),
     r"Cannot read the run input {path}"),
    ("run-arrow-garbage", raw(b"garbage", ".arrow"), r"Cannot read the run input {path}"),
    ("run-feather-zero-bytes", raw(b"", ".feather"), r"Cannot read the run input {path}"),
    ("run-arrow-string-scores", ipc(lambda: _run_frame(score=["x", "y"])),
     r"The run column 'score' in {path}.*'x'"),
    ("run-arrow-nan-score", ipc(lambda: _run_frame(score=[math.nan, 1.0])), r"{path}.*column 'score'.* nan"),
])
cases("Parquet/Arrow files", "qrels", [
    ("qrels-parquet-string-grades", parquet(lambda: _qrels_frame(relevance=["high", "0"])),
     r"The qrels column 'relevance' in {path} has dtype String.*'high'"),
    ("qrels-parquet-fractional-grade", parquet(lambda: _qrels_frame(relevance=[1.5, 0.0])),
     r"{path}, column 'relevance': the relevance grade 1.5 .* is not an integer"),
    ("qrels-parquet-null-grade", parquet(lambda: _qrels_frame(relevance=[None, 1])),
     r"{path}, column 'relevance': the relevance grade of query 'q1', doc 'a' is null"),
    ("qrels-parquet-nan-grade", parquet(lambda: _qrels_frame(relevance=[math.nan, 1.0])),
     r"{path}, column 'relevance'.*nan .* not an integer"),
    ("qrels-parquet-huge-grade", parquet(lambda: _qrels_frame(relevance=[1e300, 1.0])),
     r"{path}, column 'relevance'.* is too large"),
    ("qrels-parquet-uint64-grade",
     parquet(_typed(lambda: _qrels_frame(relevance=[2**64 - 1, 0]), "relevance", "UInt64")),
     r"{path}, column 'relevance': the relevance grade 18446744073709551615 .* too large"),
    ("qrels-parquet-null-doc-id", parquet(lambda: _qrels_frame(doc_id=["a", None])),
     r"{path}, column 'doc_id': the doc id is null"),
    ("qrels-parquet-missing-grades", parquet(lambda: _qrels_frame().drop("relevance")),
     r"{path} has no qrels column 'relevance'"),
    ("qrels-parquet-list-grades", parquet(lambda: _qrels_frame(relevance=[[1], [0]])),
     r"The qrels column 'relevance' in {path} has dtype List"),
    ("qrels-parquet-duplicate-pair", parquet(lambda: _qrels_frame(doc_id=["a", "a"])),
     r"{path}: duplicate \(query, doc\) rows in the qrels"),
    ("qrels-parquet-garbage", raw(b"PAR1 but not really", ".parquet"), r"Cannot read the qrels input {path}"),
])
cases("Parquet/Arrow files", "judged", [
    ("judged-parquet-missing-grades", parquet(lambda: _run_frame()),
     r"{path} has no judged column 'relevance'"),
    ("judged-parquet-string-scores", parquet(lambda: _run_frame(score=["x", "1"], relevance=[1, 0])),
     r"column 'score' in {path} has dtype String"),
    ("judged-trec-text", text(RUN), r"Cannot read a judged frame from {path}: .* needs a tabular format"),
], cli=False)


# ----------------------------------------------------------------------------- frames
cases("frames", "run", [
    ("run-polars-null-doc-id", frame(lambda: _run_frame(doc_id=["a", None])),
     r"the run DataFrame, column 'doc_id': the doc id is null"),
    ("run-polars-nan-score", frame(lambda: _run_frame(score=[1.0, math.nan])),
     r"the run DataFrame, column 'score': the score of query 'q1', doc 'b' is nan"),
    ("run-polars-inf-score", frame(lambda: _run_frame(score=[math.inf, 1.0])),
     r"the run DataFrame, column 'score'"),
    ("run-polars-null-score", frame(lambda: _run_frame(score=[None, 1.0])),
     r"the run DataFrame, column 'score'.* null"),
    ("run-polars-text-scores", frame(lambda: _run_frame(score=["1.5", "2"])),
     r"The run column 'score' in the run DataFrame has dtype String"),
    ("run-polars-missing-score", frame(lambda: _run_frame().rename({"score": "bm25"})),
     r"The run DataFrame has no run column 'score'.*'bm25'"),
    ("run-polars-no-columns", frame(lambda: _pl().DataFrame()), r"The run DataFrame has no run column"),
    ("run-polars-duplicate-pair", frame(lambda: _run_frame(doc_id=["a", "a"])),
     r"the run DataFrame: duplicate \(query, doc\) rows .*\('q1', 'a'\) x2"),
    ("run-lazyframe-failing-cast", frame(
        lambda: _run_frame(score=["x", "1"]).lazy().with_columns(_pl().col("score").cast(_pl().Float64))),
     r"Cannot read the run input the run LazyFrame"),
    ("run-polars-categorical-scores",
     frame(_typed(lambda: _run_frame(score=["1", "2"]), "score", "Categorical")),
     r"The run column 'score' in the run DataFrame has dtype Categorical"),
    ("run-pandas-mixed-scores", frame(lambda: _pd().DataFrame(
        {"qid": ["q1", "q1"], "docno": ["a", "b"], "score": [1.0, "x"]})),
     r"The run pandas DataFrame's column 'score' mixes value types \(float, str\).*pd.to_numeric"),
    ("run-pandas-object-scores",
     frame(lambda: _pd().DataFrame({"qid": ["q1"], "docno": ["a"], "score": [object()]})),
     r"Cannot read the run input the run pandas DataFrame"),
    ("run-pandas-duplicate-column-names", frame(lambda: _pd().DataFrame(
        [["q1", "a", 1.0, 2.0]], columns=["qid", "docno", "score", "score"])),
     r"Cannot read the run input the run pandas DataFrame: .*non-unique"),
    ("run-pandas-nan-query-id", frame(lambda: _pd().DataFrame(
        {"qid": ["q1", math.nan], "docno": ["a", "b"], "score": [1.0, 2.0]})),
     r"the run pandas DataFrame, column 'query_id': the query id is null"),
    ("run-pandas-multiindex-columns", frame(lambda: _pd().DataFrame(
        [["q1", "a", 1.0]],
        columns=_pd().MultiIndex.from_tuples([("x", "qid"), ("x", "docno"), ("x", "score")]))),
     r"The run pandas DataFrame has no run column"),
    ("run-arrow-dictionary-scores", frame(lambda: _pa().table(
        {"qid": ["q1"], "docno": ["a"], "score": _pa().array(["1"]).dictionary_encode()})),
     r"The run column 'score' in the run pyarrow Table has dtype Categorical"),
    ("run-arrow-null-type-scores",
     frame(lambda: _pa().table({"qid": ["q1"], "docno": ["a"], "score": _pa().nulls(1)})),
     r"The run column 'score' in the run pyarrow Table has dtype Null"),
    ("run-arrow-stream-text-scores", frame(lambda: _pa().table(
        {"qid": ["q1"], "docno": ["a"], "score": ["zz"]}).to_reader()),
     r"The run column 'score' .* has dtype String.*'zz'"),
    ("run-pytrec-eval-dict-text-score", frame(lambda: {"q1": {"a": "x"}}),
     r"Cannot read run from a dict object"),
    ("run-pytrec-eval-dict-nan-score", frame(lambda: {"q1": {"a": math.nan}}), r"column 'score'.* nan"),
    ("run-an-int", frame(lambda: 42), r"Cannot read run from a int object"),
    ("run-bytes", frame(lambda: RUN.encode()), r"Cannot read run from a bytes object"),
    ("run-list-of-ints", frame(lambda: [1, 2]), r"Cannot read run from a int object"),
    ("run-none", frame(lambda: None), r"evaluate needs qrels and a run"),
    ("run-empty-list", frame(lambda: []), r"The run list is empty"),
], cli=False)
cases("frames", "qrels", [
    ("qrels-polars-text-grades", frame(lambda: _qrels_frame(relevance=["high", "0"])),
     r"qrels column 'relevance'.*'high'"),
    ("qrels-polars-fractional-grade", frame(lambda: _qrels_frame(relevance=[1.5, 0.0])),
     r"the qrels DataFrame, column 'relevance': the relevance grade 1.5 .* not an integer"),
    ("qrels-polars-nan-grade", frame(lambda: _qrels_frame(relevance=[1.0, math.nan])),
     r"the qrels DataFrame, column 'relevance'.* nan"),
    ("qrels-polars-huge-grade", frame(lambda: _qrels_frame(relevance=[1e300, 0.0])),
     r"the qrels DataFrame, column 'relevance'.* too large"),
    ("qrels-polars-uint64-grade",
     frame(_typed(lambda: _qrels_frame(relevance=[2**64 - 1, 0]), "relevance", "UInt64")),
     r"the qrels DataFrame, column 'relevance'.* too large"),
    ("qrels-polars-float-query-ids", frame(lambda: _qrels_frame(query_id=[1.0, 1.0])),
     r"The qrels column 'query_id' in the qrels DataFrame has dtype Float64"),
    ("qrels-pandas-nan-grade",
     frame(lambda: _pd().DataFrame({"qid": ["q1", "q1"], "docno": ["a", "b"], "rel": [1, math.nan]})),
     r"the qrels pandas DataFrame, column 'relevance': the relevance grade of query 'q1', doc 'b' is null"),
    ("qrels-pytrec-eval-dict-fractional-grade", frame(lambda: {"q1": {"a": 0.5}}),
     r"column 'relevance': the relevance grade 0.5 .* not an integer"),
    ("qrels-pytrec-eval-dict-word-grade", frame(lambda: {"q1": {"a": "rel"}}),
     r"Cannot read qrels from a dict object"),
    ("qrels-dict-of-lists", frame(lambda: {"q1": ["a"]}), r"Cannot read qrels from a dict object"),
], cli=False)
cases("frames", "judged", [
    ("judged-polars-missing-grades", frame(lambda: _run_frame()),
     r"The judged DataFrame has no judged column 'relevance'"),
], cli=False)
cases("frames", "compare", [
    ("compare-second-run-nan", frame(lambda: _run_frame(score=[1.0, math.nan])), r"column 'score'.* nan"),
], cli=False)
cases("TREC run text", "compare", [
    ("compare-second-run-short-line", text("q1 Q0 a 1 2.0 t\nq1 Q0 b 2\n"),
     line(2) + ": expected at least 6"),
    ("compare-second-run-missing", missing("nope.txt"), r"The run file {path} does not exist"),
])

# ----------------------------------------------------------------------------- preferences
cases("prefs", "prefs", [
    ("prefs-short-line", text("q1 0 0 a 2\nq1 0 0 b\n"), line(2) + r": expected at least 5 .* found 4"),
    ("prefs-level-word", text("q1 0 0 a 2\nq1 0 0 b high\n"),
     line(2) + ": the rel_level 'high' is not a number"),
    ("prefs-level-nan", text("q1 0 0 a 2\nq1 0 0 b nan\n"),
     line(2) + ": the rel_level nan .* not a finite number"),
    ("prefs-level-inf", text("q1 0 0 a inf\nq1 0 0 b 1\n"), line(1) + ": the rel_level inf"),
    ("prefs-level-1e400", gz("q1 0 0 a 1\nq1 0 0 b -1e400\n"), line(2) + ": the rel_level -inf"),
    ("prefs-empty", text(""), r"The prefs file {path} is empty"),
    ("prefs-comments-only", text("# none\n"), r"The prefs file {path} holds no data lines"),
    ("prefs-missing", missing("nope.prefs"), r"The prefs file {path} does not exist"),
    ("prefs-gzip-truncated", raw(gzip.compress(PREFS.encode(), mtime=0)[:-5], ".txt.gz"),
     r"Cannot read the prefs input {path}"),
    ("prefs-folder", folder_with("a.txt"), r"The prefs (path|folder) {path} (is a folder|holds no)"),
    ("prefs-utf16", raw(PREFS.encode("utf-16")), r"The prefs file {path} is UTF-16 text"),
], trec_eval=True)
cases("prefs", "prefs", [
    ("prefs-csv-missing-level", text("query_id,doc_id\nq1,a\n", ".csv"),
     r"The preferences \({path}\) lack the column\(s\) 'rel_level'"),
    ("prefs-csv-null-doc", text("query_id,jg,jsg,doc_id,rel_level\nq1,0,0,a,1\nq1,0,0,,2\n", ".csv"),
     line(3) + ", column 'doc_id'"),
    ("prefs-csv-inf-level", text("query_id,jg,jsg,doc_id,rel_level\nq1,0,0,a,1\nq1,0,0,b,inf\n", ".csv"),
     line(3) + ", column 'rel_level': inf is not valid"),
    ("prefs-csv-word-level", text("query_id,jg,jsg,doc_id,rel_level\nq1,0,0,a,1\nq1,0,0,b,x\n", ".csv"),
     r"The preferences column 'rel_level' in {path} has dtype String.*'x' \({path}, line 3\)"),
    ("prefs-parquet-float-doc-ids", parquet(lambda: _pl().DataFrame(
        {"query_id": ["q1"], "doc_id": [1.5], "rel_level": [1.0]})),
     r"The preferences column 'doc_id' in {path} has dtype Float64"),
])
cases("prefs", "prefs", [
    ("prefs-polars-nan-level", frame(lambda: _pl().DataFrame(
        {"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "rel_level": [1.0, math.nan]})),
     r"the prefs DataFrame, column 'rel_level': nan is not valid"),
    ("prefs-polars-word-level", frame(lambda: _pl().DataFrame(
        {"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "rel_level": ["1", "x"]})),
     r"The preferences column 'rel_level' in the prefs DataFrame has dtype String.*'x'"),
    ("prefs-polars-list-level",
     frame(lambda: _pl().DataFrame({"query_id": ["q1"], "doc_id": ["a"], "rel_level": [[1.0]]})),
     r"The preferences column 'rel_level' in the prefs DataFrame has dtype List"),
    ("prefs-polars-null-query", frame(lambda: _pl().DataFrame(
        {"query_id": [None, "q1"], "doc_id": ["a", "b"], "rel_level": [1.0, 0.0]})),
     r"the prefs DataFrame, column 'query_id'"),
], cli=False)

# ----------------------------------------------------------------------------- LETOR / SVMlight
LETOR_FILES = [
    ("label-word", "x qid:1 1:0.5\n", line(1) + ": expected a numeric label first, got 'x'"),
    ("label-nan", "1 qid:1 1:0.5\nnan qid:1 1:0.5\n", line(2) + ": the label 'nan' is not finite"),
    ("label-inf", "inf qid:1 1:0.5\n", line(1) + ": the label 'inf' is not finite"),
    ("label-1e400", "1e400 qid:1 1:0.5\n", line(1) + ": the label '1e400' is not finite"),
    ("feature-value-word", "1 qid:1 1:abc\n", line(1) + ": expected a feature 'id:value', got '1:abc'"),
    ("feature-without-id", "1 qid:1 :0.5\n", line(1) + ": expected a feature 'id:value'"),
    ("feature-without-value", "1 qid:1 1:\n", line(1) + ": expected a feature 'id:value', got '1:'"),
    ("feature-two-colons", "1 qid:1 1:2:3\n", line(1) + ": expected a feature 'id:value', got '1:2:3'"),
    ("feature-equals-sign", "1 qid:1 1:1\n0 qid:1 1:1\n\n1 qid:1 3=0.5\n", line(4) + ": .*'3=0.5'"),
    ("feature-hex-value", "1 qid:1 1:0x10\n", line(1) + ": expected a feature 'id:value'"),
    ("feature-id-zero", "1 qid:1 0:0.5\n", line(1) + ": feature ids are integers from 1"),
    ("feature-id-negative", "1 qid:1 -1:0.5\n", line(1) + ": feature ids are integers from 1"),
    ("feature-id-fraction", "1 qid:1 1.5:0.5\n", line(1) + ": feature ids are integers from 1"),
    ("feature-id-twice", "1 qid:1 1:0.5 2:1 1:0.7\n", line(1) + ": feature id 1 appears twice"),
    ("feature-id-huge", "1 qid:1 1:1\n0 qid:1 99999999999:1\n", line(2) + ": feature id 99999999999 is past"),
    ("feature-value-nan", "1 qid:1 1:nan\n", line(1) + ": the feature value in '1:nan' is not finite"),
    ("feature-value-inf", "1 qid:1 1:0.5\n0 qid:1 1:-inf\n", line(2) + ": the feature value in '1:-inf'"),
    ("feature-value-1e400", "1 qid:1 1:1e400\n", line(1) + ": the feature value in '1:1e400' is not finite"),
    ("empty-query-id", "1 qid: 1:0.5\n", line(1) + ": empty query id after 'qid:'"),
    ("some-rows-without-qid", "1 qid:1 1:0.5\n0 1:0.5\n",
     line(2) + ": some rows have 'qid:' and others do not"),
    ("no-qid-no-group-file", "1 1:0.5\n0 1:0.3\n",
     r"The rows of {path} have no 'qid:' and there is no group file"),
    ("empty", "", r"{path} holds no data lines"),
    ("comments-only", "# docs\n\n# to come\n", r"{path} holds no data lines"),
    ("trec-run-given", RUN, line(1) + ": expected a numeric label first, got 'q1'"),
]
cases("LETOR/SVMlight", "letor", [(f"letor-{i}", text(t), n) for i, t, n in LETOR_FILES])
cases("LETOR/SVMlight", "letor", [
    ("letor-binary-garbage", raw(bytes(range(256))), r"Cannot read the LETOR/SVMlight file {path}"),
    ("letor-utf16", raw(LETOR.encode("utf-16")), r"Cannot read the LETOR/SVMlight file {path}"),
    ("letor-gzip", gz(LETOR), r"Cannot read the LETOR/SVMlight file {path}"),
    ("letor-missing", missing("nope.letor"), r"Cannot read the LETOR/SVMlight file {path}"),
])
CASES.append(Case(
    "letor-folder", "LETOR/SVMlight", "letor", folder_with("a.txt"),
    r"Cannot read the LETOR/SVMlight file {path}",
    cli_names=r"DATA {path} is a folder: give a LETOR/SVMlight file",
))
cases("LETOR/SVMlight", "groups", [
    ("groups-word", text("2\nx\n", ".query"), line(2) + ": expected a positive group size"),
    ("groups-zero", text("0\n3\n", ".query"), line(1) + ": expected a positive group size"),
    ("groups-negative", text("-1\n4\n", ".query"), line(1) + ": expected a positive group size"),
    ("groups-too-few-rows", text("1\n1\n", ".query"), r"The group sizes of {path} add up to 2 rows"),
    ("groups-too-many-rows", text("2\n5\n", ".query"), r"The group sizes of {path} add up to 7 rows"),
])

# ----------------------------------------------------------------------------- measure names
MEASURES = [
    ("nDCG@0", r"The 'cutoff' parameter of nDCG must be an int >= 1\. Got 0"),
    ("nDCG@-1", r"The 'cutoff' parameter of nDCG must be an int >= 1\. Got -1"),
    ("nDCG@1.5", r"The 'cutoff' parameter of nDCG must be an int >= 1\. Got 1.5"),
    ("nDCG@abc", r"The cutoff of 'nDCG@abc' must be a number"),
    ("nDCG@inf", r"The cutoff of 'nDCG@inf' must be a number"),
    ("P@nan", r"The cutoff of 'P@nan' must be a number"),
    ("nDCG@１０", r"The cutoff of 'nDCG@１０' must be a number"),  # noqa: RUF001 - fullwidth digits
    ("nDCG@99999999999999999999", r"The 'cutoff' parameter of nDCG must be an int of 64 bits at most"),
    ("ERR@0", r"The 'cutoff' parameter of ERR must be an int >= 1"),
    ("Rprec@5", r"Rprec has no parameter cutoff"),
    ("nDCG(foo=1)@10", r"nDCG has no parameter foo"),
    ("RBP(p=2)", r"The 'p' parameter of RBP must be a float strictly between 0 and 1"),
    ("RBP(p=0)", r"The 'p' parameter of RBP"),
    ("RBP(p=nan)", r"The 'p' parameter of RBP"),
    ("RBP(p=inf)", r"The 'p' parameter of RBP"),
    ("P(rel=x)@5", r"The 'rel' parameter of P must be of kind int\. Got 'x'"),
    ("P(rel=1.5)@5", r"The 'rel' parameter of P must be of kind int\. Got 1.5"),
    ("P(rel=99999999999999999999)@5", r"The 'rel' parameter of P must be an int of 64 bits at most"),
    ("P(rel=1,rel=2)@5", r"The parameter 'rel' is given twice in measure 'P\(rel=1,rel=2\)@5'"),
    ("AP(rel=)", r"Malformed parameters in measure 'AP\(rel=\)'"),
    ("P(2)@5", r"Parameters of 'P\(2\)@5' must be named"),
    ("Nope", r"Unknown measure 'Nope'"),
    ("P@", r"Unknown measure 'P@'\. Did you mean 'P'"),
    ("AP@", r"Unknown measure 'AP@'"),
    ("P@10@10", r"Unknown measure 'P@10@10'"),
    ("nDCG@10)", r"Unknown measure 'nDCG@10\)'"),
    ("(nDCG@10", r"Unknown measure '\(nDCG@10'"),
    ("bpref@-3", r"Unknown measure 'bpref@-3'"),
    ("", r"A measure name cannot be empty"),
    (" ", r"A measure name cannot be empty"),
    ("\x00", r"Unknown measure '\\x00'"),
]
cases("measure names", "measure", [(f"measure-{i}", name, names) for i, (name, names) in enumerate(MEASURES)])
TREC_MEASURES = [
    ("ndcg_cut.x", r"The trec_eval parameter 'x' of 'ndcg_cut' is not a number"),
    ("ndcg_cut.0", r"Cutoffs of trec_eval measure 'ndcg_cut' must be positive\. Got '0'"),
    ("ndcg_cut.10,x", r"The trec_eval parameter 'x' of 'ndcg_cut' is not a number"),
    ("P.0", r"Cutoffs of trec_eval measure 'P' must be positive"),
    ("P_0", r"Cutoffs of trec_eval measure 'P' must be positive"),
    ("recall.-5", r"Cutoffs of trec_eval measure 'recall' must be positive\. Got '-5'"),
    ("success.0", r"Cutoffs of trec_eval measure 'success' must be positive"),
    ("map_cut.", r"'map_cut\.?'.* empty"),  # the API and trec_eval say it in their words
    ("P.5,", r"Malformed trec_eval parameters '5,' for 'P'"),
    ("P.5,,10", r"Malformed trec_eval parameters '5,,10' for 'P'"),
    ("utility.a", r"The trec_eval parameter 'a' of 'utility' is not a number"),
    ("set_F.x", r"The trec_eval parameter 'x' of 'set_F' is not a number"),
    ("gm_map.5", r"The trec_eval measure 'gm_map' takes no parameters\. Got '5'"),
    ("bpref.0", r"The trec_eval measure 'bpref' takes no parameters"),
    ("P.99999999999999999999", r"The 'cutoff' parameter of P must be an int of 64 bits at most"),
]
cases("measure names", "measure", [(f"trec-measure-{n}", n, r) for n, r in TREC_MEASURES], trec_eval=True)

# ----------------------------------------------------------------------------- options
DEPTH = r"The 'depth' option must be an int >= 1"
OPTIONS = [
    # (id, evaluate's keyword arguments, the command's flags, names, the command's names)
    ("depth-zero", {"depth": 0}, ["-M", "0"], DEPTH,
     r"argument -M/--depth: expected a positive integer, got '0'"),
    ("depth-negative", {"depth": -1}, ["-M", "-1"], DEPTH, r"argument -M/--depth"),
    ("depth-fraction", {"depth": 1.5}, ["-M", "1.5"], DEPTH + r" .* Got 1.5 \(float\)",
     r"argument -M/--depth"),
    ("depth-text", {"depth": "10"}, None, DEPTH + r" .* Got '10' \(str\)", None),
    ("depth-bool", {"depth": True}, None, DEPTH + r" .* Got True \(bool\)", None),
    ("depth-nan", {"depth": math.nan}, ["-M", "nan"], DEPTH + r" .* Got nan", r"argument -M/--depth"),
    ("depth-past-uint32", {"depth": 2**40}, ["-M", str(2**40)], DEPTH + r" \(at most 4294967295\)", None),
    ("depth-20-digits", {"depth": 10**20}, ["-M", "99999999999999999999"], DEPTH, None),
    ("relevance-level-fraction", {"relevance_level": 1.5}, ["-l", "1.5"],
     r"The 'relevance_level' option must be an int\. Got 1.5",
     r"argument -l/--relevance-level: invalid int value"),
    ("relevance-level-text", {"relevance_level": "1"}, ["-l", "one"],
     r"The 'relevance_level' option must be an int\. Got '1'", r"argument -l/--relevance-level"),
    ("relevance-level-none", {"relevance_level": None}, None, r"The 'relevance_level' option must be an int",
     None),
    ("ties-unknown", {"ties": "random"}, ["--ties", "random"], r"The 'ties' option must be one of",
     r"argument --ties: invalid choice: 'random'"),
    ("score-dtype-float16", {"score_dtype": "float16"}, ["--score-dtype", "float16"],
     r"The 'score_dtype' option must be 'float64' or 'float32'\. Got 'float16'", r"argument --score-dtype"),
    ("target-not-a-name", {"target": 3}, None, r"The 'target' option must be a column name\. Got 3", None),
    ("target-missing-column", {"target": "nope", "measures": ["KendallTau"]},
     ["--target", "nope", "-m", "KendallTau"],
     r"The target column 'nope' \(target=\.\.\.\) is not in the run", None),
    ("target-order-unknown", {"target_order": "up"}, ["--target-order", "up"],
     r"The 'target_order' option must be 'desc' or 'asc'\. Got 'up'", r"argument --target-order"),
    ("by-a-string", {"by": "locale"}, None, r"by=\.\.\. takes a list of column names, e.g\. by=\['locale'\]",
     None),
    ("by-missing-column", {"by": ["locale"]}, ["--by", "locale"],
     r"The breakdown column 'locale' \(by=\.\.\.\) is not in the run", None),
    ("partitions-zero", {"partitions": 0}, ["--partitions", "0"],
     r"partitions must be an int >= 1, 'auto' or 'files'\. Got 0",
     r"argument --partitions: expected an int >= 1, 'auto' or 'files', got '0'"),
    ("partitions-text", {"partitions": "x"}, ["--partitions", "x"], r"partitions must be .* Got 'x'",
     r"argument --partitions"),
    ("partitions-fraction", {"partitions": 1.5}, ["--partitions", "1.5"], r"partitions must be .* Got 1.5",
     r"argument --partitions"),
    ("engine-unknown", {"engine": "spark"}, ["--engine", "spark"], r"Unknown engine 'spark'",
     r"argument --engine: invalid choice: 'spark'"),
    ("run-columns-a-list", {"run_columns": ["score"]}, None,
     r"The run column mapping \(run_columns=\.\.\. or columns=\.\.\.\) must be a dict", None),
    ("qrels-columns-a-string", {"qrels_columns": "qid"}, None,
     r"The qrels column mapping \(qrels_columns=\.\.\. or columns=\.\.\.\) must be a dict", None),
    ("run-columns-unknown-key", {"run_columns": {"sc0re": "score"}}, None,
     r"Unknown canonical column 'sc0re' in the run column mapping", None),
    ("run-columns-missing-column", {"run_columns": {"score": "bm25"}}, None,
     r"{path} has no run column 'bm25'", None),
    ("complete-a-string", {"complete": "yes"}, None,
     r"The 'complete' option must be True or False\. Got 'yes'", None),
    ("judged-only-two", {"judged_only": 2}, None, r"The 'judged_only' option must be True or False\. Got 2",
     None),
    ("measures-an-int", {"measures": 42}, None,
     r"measures must be a name, a Measure object or a list of them", None),
    ("measures-empty", {"measures": []}, None, r"No measures were requested", None),
    ("measures-none-inside", {"measures": [None]}, None,
     r"A measure must be a name or a Measure object\. Got None", None),
    ("format-unknown", None, ["-f", "xlsx"], None, r"argument -f/--format: invalid choice: 'xlsx'"),
    ("output-unknown-extension", None, ["-o", "out.xlsx"], None, r"cannot tell the format of -o out\.xlsx"),
    ("output-binary-to-stdout", None, ["-f", "parquet"], None, r"--format parquet writes a binary file"),
    ("storage-option-without-value", None, ["--storage-option", "region"], None,
     r"argument --storage-option: expected KEY=VALUE"),
    ("no-qrels-without-target", None, ["--no-qrels"], None, r"--no-qrels needs --target COLUMN"),
]
for _id, _kwargs, _argv, _names, _cli_names in OPTIONS:
    CASES.append(Case(
        f"option-{_id}", "options", "option", _kwargs, _names or "", argv=_argv, cli_names=_cli_names,
        raises="ValueError" if _id == "engine-unknown" else "RankframeError", cli=_argv is not None,
    ))

COMPARE_OPTIONS = [
    # (id, compare's keyword arguments, the command's flags, names, the command's names)
    ("alpha-above-one", {"alpha": 2}, ["--alpha", "2"],
     r"alpha and confidence must lie strictly between 0 and 1", None),
    ("alpha-nan", {"alpha": math.nan}, ["--alpha", "nan"], r"alpha and confidence .* got nan", None),
    ("confidence-zero", {"confidence": 0}, ["--confidence", "0"], r"alpha and confidence .* got 0\.05 and 0",
     None),
    ("test-unknown", {"test": "ttest"}, ["--test", "ttest"], r"Unknown test 'ttest'",
     r"argument -t/--test: invalid choice: 'ttest'"),
    ("correction-unknown", {"correction": "sidak"}, ["--correction", "sidak"], r"Unknown correction 'sidak'",
     r"argument --correction: invalid choice: 'sidak'"),
    ("baseline-unknown", {"baseline": "bm25"}, ["--baseline", "bm25"], r"baseline 'bm25' is n", None),
    ("permutations-zero", {"n_permutations": 0, "test": "permutation"},
     ["--permutations", "0", "-t", "permutation"],
     r"n_permutations must be a positive int; got 0",
     r"argument --permutations: expected an int from 1 to 100,000,000 .*, got '0'"),
    ("bootstrap-negative", {"n_bootstrap": -1, "test": "bootstrap"}, ["--bootstrap", "-1", "-t", "bootstrap"],
     r"n_bootstrap must be a positive int; got -1",
     r"argument --bootstrap: expected an int from 1 .*, got '-1'"),
]
for _id, _kwargs, _argv, _names, _cli_names in COMPARE_OPTIONS:
    CASES.append(Case(
        f"compare-{_id}", "options", "compare-option", _kwargs, _names, argv=_argv, cli_names=_cli_names,
    ))
CASES.append(Case(
    "compare-alpha-text", "options", "compare-option", {"alpha": "0.05"},
    r"alpha must be a number strictly between 0 and 1; got '0\.05'", argv=None,
))
CASES.append(Case(
    "compare-seed-text", "options", "compare-option", {"seed": "x"}, r"seed must be an int or None; got 'x'",
    argv=None,
))

TREC_EVAL_OPTIONS = [
    ("rel-format-unknown", None, ["-R", "trec"], r"unknown -R format 'trec'; supported: qrels, qrels_jg"),
    ("results-format-unknown", None, ["-T", "csv"], r"unknown -T format 'csv'; supported: trec_results"),
    ("depth-zero", None, ["-M", "0"], r"-M must be a number of documents >= 1\. Got 0"),
    ("level-word", None, ["-l", "two"], r"argument -l/--level_for_rel: invalid int value: 'two'"),
    ("num-docs-negative", None, ["-N", "-5", "-m", "utility"],
     r"The 'num_docs' parameter of Utility must be"),
    ("prefs-measure-on-qrels", None, ["-m", "prefs"],
     r"The trec_eval measure 'prefs' is a preference measure"),
    ("zscores-short-line", text("q1 map 0.5\n"), ["-Z", "{file}"],
     r"{path}, line 1: expected 'qid measure mean stddev'"),
    ("zscores-word", text("q1 map 0.5 0.1\nq2 map x 0.1\n"), ["-Z", "{file}"], r"{path}, line 2: expected"),
    ("zscores-empty", text(""), ["-Z", "{file}"], r"The z-score file {path} is empty"),
    ("zscores-missing", missing("nope.zscores"), ["-Z", "{file}"], r"The z-score file {path} does not exist"),
    ("qrels-jg-short-line", text("q1 0 a\n"), ["-R", "qrels_jg", "-m", "qrels_jg", "{file}", "{run}"],
     line(1) + ": expected at least 4"),
    ("qrels-jg-word-grade", text("q1 0 a x\n"), ["-R", "qrels_jg", "-m", "qrels_jg", "{file}", "{run}"],
     line(1) + ": the relevance grade 'x'"),
    ("qrels-prefs-nan-grade", text("q1 0 a 1\nq1 0 b nan\n"),
     ["-R", "qrels_prefs", "-m", "prefs", "{file}", "{run}"],
     line(2) + ": the grade nan .* not a finite number"),
]
for _id, _bad, _argv, _names in TREC_EVAL_OPTIONS:
    CASES.append(Case(f"trec_eval-{_id}", "options", "trec_eval-option", _bad, _names, argv=_argv))

# ----------------------------------------------------------------------------- command line (issue 38)
# Every argument of every subcommand: its numbers out of range, its paths that are folders or
# files, its combinations, the outputs that cannot be written and the environment. The command
# must exit 1 or 2 naming the argument (or the variable) and what it takes, with nothing on
# standard output and no traceback.
def file_then(name: str) -> Builder:
    """``FILE/name``: a path whose folder is a file."""

    def build(folder: Path, case: str) -> Path:
        blocker = folder / f"{case}-file"
        blocker.write_text("")
        return blocker / name

    return build


def link_to(target: str, suffix: str = ".csv") -> Builder:
    """A symbolic link (named after the case) to ``target``, relative to the case's folder."""

    def build(folder: Path, case: str) -> Path:
        path = folder / f"{case}{suffix}"
        path.symlink_to(target)
        return path

    return build


def link_loop(folder: Path, case: str) -> Path:
    """Two symbolic links to each other."""
    a, b = folder / f"{case}-a.csv", folder / f"{case}-b.csv"
    a.symlink_to(b.name)
    b.symlink_to(a.name)
    return a


def empty_path(folder: Path, case: str) -> str:
    """An empty path (``-o ''``)."""
    return ""


#: ``Cannot write PATH (OPTION): ...``: the command names the option, the API may not.
_OPTION = r"(?: \((?:-o|--html|output=\.\.\.)\))?"
cases("command line: outputs", "output", [
    ("output-a-folder", folder_with("x.csv"),
     r"Cannot write {path}" + _OPTION + r": it is a folder\. Give a file path"),
    ("output-in-a-missing-folder", missing("no/such/out.csv"),
     r"Cannot write {path}" + _OPTION + r": the folder '.*such' does not exist\. Create it"),
    ("output-in-a-file", file_then("out.csv"),
     r"Cannot write {path}" + _OPTION + r": '[^']*-file' is a file, not a folder\. Give a path in a folder"),
    ("output-empty-path", empty_path,
     r"Cannot write ''" + _OPTION + r": the path is empty\. Give a file path"),
    ("output-dangling-link", link_to("gone/out.csv"),
     r"Cannot write {path}" + _OPTION + r": it is a symbolic link to '.*gone/out\.csv', whose folder "
     r"'.*gone' does not exist\. Create it"),
    ("output-link-loop", link_loop,
     r"Cannot write {path}" + _OPTION + r": .*symbolic links\. Give another path"),
])

_LEARN = ["--losses", "pointwise", "--epochs", "1"]
COMMANDS = [
    # (id, argv, names: the argument and what it takes)
    # evaluate
    ("evaluate-partitions-too-many", ["evaluate", "{qrels}", "{run}", "--partitions", "100000"],
     r"argument --partitions: expected an int >= 1, 'auto' or 'files', got '100000' \(at most 65,536"),
    ("evaluate-partitions-20-digits", ["evaluate", "{qrels}", "{run}", "--partitions", "9" * 20],
     r"argument --partitions: .* \(at most 65,536: each partition reads the inputs once\)"),
    ("evaluate-duckdb-partitions",
     ["evaluate", "{qrels}", "{run}", "--engine", "duckdb", "--partitions", "4"],
     r"--engine duckdb does not implement --partitions 4: leave it out, or evaluate with the default engine"),
    ("evaluate-duckdb-ties-and-dtype",
     ["evaluate", "{qrels}", "{run}", "--engine", "duckdb", "--ties", "average", "--score-dtype", "float32"],
     r"--engine duckdb does not implement --ties average, --score-dtype float32: leave them out"),
    ("evaluate-duckdb-target",
     ["evaluate", "--no-qrels", "{run}", "--target", "score", "-m", "KendallTau", "--engine", "duckdb"],
     r"--engine duckdb does not implement --target score"),
    ("evaluate-duckdb-prefs", ["evaluate", "--prefs", "{qrels}", "{run}", "--engine", "duckdb"],
     r"--engine duckdb does not implement --prefs .*: leave it out"),
    ("evaluate-no-inputs", ["evaluate"], r"evaluate needs a QRELS file and at least one RUN file"),
    ("evaluate-measures-swallow-the-run", ["evaluate", "{qrels}", "-m", "AP", "{run}"],
     r"evaluate needs a QRELS file .* \(-m takes every word after it as a measure: put -m after the files"),
    ("evaluate-measures-without-a-name", ["evaluate", "{qrels}", "{run}", "-m"],
     r"argument -m/--measures: expected at least one argument"),
    ("evaluate-text-measure-name", ["evaluate", "{qrels}", "{run}", "-m", "runid"],
     r"Unknown measure 'runid'"),
    ("evaluate-depth-word", ["evaluate", "{qrels}", "{run}", "-M", "ten"],
     r"argument -M/--depth: expected a positive integer, got 'ten'"),
    ("evaluate-relevance-level-empty", ["evaluate", "{qrels}", "{run}", "-l", ""],
     r"argument -l/--relevance-level: invalid int value: ''"),
    ("evaluate-storage-option-empty-key", ["evaluate", "{qrels}", "{run}", "--storage-option", "=x"],
     r"argument --storage-option: expected KEY=VALUE \(e\.g\. aws_region=us-east-1\), got '=x'"),
    ("evaluate-storage-option-empty", ["evaluate", "{qrels}", "{run}", "--storage-option", ""],
     r"argument --storage-option: expected KEY=VALUE"),
    ("evaluate-complete-and-incomplete", ["evaluate", "{qrels}", "{run}", "-c", "--incomplete"],
     r"argument --incomplete: not allowed with argument -c/--complete"),
    ("evaluate-no-qrels-and-prefs",
     ["evaluate", "--no-qrels", "--target", "score", "--prefs", "{qrels}", "{run}"],
     r"--no-qrels and --prefs exclude each other"),
    ("evaluate-format-and-extension", ["evaluate", "{qrels}", "{run}", "-f", "csv", "-o", "out.parquet"],
     r"-f csv writes text but -o out\.parquet names a parquet file: drop -f"),
    ("evaluate-table-to-an-unknown-extension", ["evaluate", "{qrels}", "{run}", "-o", "out.xls"],
     r"cannot tell the format of -o out\.xls from its extension '\.xls'.*or name the format with -f"),
    ("evaluate-report-extension", ["evaluate", "{qrels}", "{run}", "-o", "out.html"],
     r"evaluate cannot write html \(\.html\): -o takes"),
    ("evaluate-target-order-without-value", ["evaluate", "{qrels}", "{run}", "--target-order"],
     r"argument --target-order: expected one argument"),
    # compare
    ("compare-digits-negative", ["compare", "{qrels}", "{run}", "{run2}", "--digits", "-1"],
     r"argument --digits: expected an int from 0 to 17 \(a float64 holds 17 significant digits\), got '-1'"),
    ("compare-digits-20-digits", ["compare", "{qrels}", "{run}", "{run2}", "--digits", "9" * 20],
     r"argument --digits: expected an int from 0 to 17"),
    ("compare-seed-negative", ["compare", "{qrels}", "{run}", "{run2}", "-t", "permutation", "--seed", "-1"],
     r"argument --seed: expected an int >= 0 \(the seed of the resampling tests\), got '-1'"),
    ("compare-permutations-past-1e8",
     ["compare", "{qrels}", "{run}", "{run2}", "--permutations", "1000000000"],
     r"argument --permutations: expected an int from 1 to 100,000,000 \(p-values to 1e-8"),
    ("compare-bootstrap-20-digits", ["compare", "{qrels}", "{run}", "{run2}", "--bootstrap", "9" * 20],
     r"argument --bootstrap: expected an int from 1 to 100,000,000"),
    ("compare-alpha-word", ["compare", "{qrels}", "{run}", "{run2}", "--alpha", "five"],
     r"argument --alpha: invalid float value: 'five'"),
    ("compare-one-run", ["compare", "{qrels}", "{run}"],
     r"compare needs a QRELS file and at least two RUN files"),
    ("compare-baseline-a-file-not-given", ["compare", "{qrels}", "{run}", "{run2}", "-b", "{qrels}"],
     r"--baseline '[^']*good-qrels\.txt' is neither the name nor the path of a run; the runs are"),
    ("compare-by-the-query-id", ["compare", "{qrels}", "{run}", "{run2}", "--by", "query_id"],
     r"The breakdown column 'query_id' \(by=\.\.\.\) is a column of the result .*such as 'locale'"),
    ("compare-format-parquet", ["compare", "{qrels}", "{run}", "{run2}", "-o", "out.parquet"],
     r"compare cannot write parquet \(\.parquet\): -o takes"),
    # learn
    ("learn-lr-zero", ["learn", "{letor}", *_LEARN, "--lr", "0"],
     r"argument --lr: expected a finite number > 0\.0 \(a learning rate\), got '0'"),
    ("learn-lr-nan", ["learn", "{letor}", *_LEARN, "--lr", "nan"],
     r"argument --lr: expected a finite number > 0"),
    ("learn-lr-negative", ["learn", "{letor}", *_LEARN, "--lr", "0.1", "-1"], r"argument --lr: .* got '-1'"),
    ("learn-l2-negative", ["learn", "{letor}", *_LEARN, "--l2", "-0.5"],
     r"argument --l2: expected a finite number >= 0\.0 \(an L2 penalty\), got '-0\.5'"),
    ("learn-l2-inf", ["learn", "{letor}", *_LEARN, "--l2", "inf"], r"argument --l2: .* got 'inf'"),
    ("learn-seed-negative", ["learn", "{letor}", *_LEARN, "--seed", "-3"],
     r"argument --seed: expected an int >= 0 \(the seed of the split and of training\), got '-3'"),
    ("learn-epochs-zero", ["learn", "{letor}", "--losses", "pointwise", "--epochs", "0"],
     r"argument --epochs: expected a positive integer, got '0'"),
    ("learn-batch-queries-word", ["learn", "{letor}", *_LEARN, "--batch-queries", "all"],
     r"argument --batch-queries: expected a positive integer, got 'all'"),
    ("learn-patience-negative", ["learn", "{letor}", *_LEARN, "--patience", "-2"],
     r"argument --patience: expected a positive integer"),
    ("learn-validation-fraction-one", ["learn", "{letor}", *_LEARN, "--validation-fraction", "1"],
     r"argument --validation-fraction: expected a fraction strictly between 0 and 1, got '1'"),
    ("learn-test-fraction-nan", ["learn", "{letor}", *_LEARN, "--test-fraction", "nan"],
     r"argument --test-fraction: expected a fraction strictly between 0 and 1, got 'nan'"),
    ("learn-fractions-leave-no-training", ["learn", "{letor}", *_LEARN, "--validation-fraction", "0.6",
                                           "--test-fraction", "0.4"],
     r"the validation and test fractions leave no training queries"),
    ("learn-unknown-loss", ["learn", "{letor}", "--losses", "softmax"],
     r"argument --losses: invalid choice: 'softmax'"),
    ("learn-baseline-not-trained", ["learn", "{letor}", *_LEARN, "--baseline", "hinge"],
     r"--baseline hinge is not one of --losses pointwise"),
    ("learn-measure-unknown", ["learn", "{letor}", *_LEARN, "--measure", "nDCG@0"],
     r"The 'cutoff' parameter of nDCG must be an int >= 1"),
    ("learn-test-a-folder", ["learn", "{letor}", *_LEARN, "--test", "{file}"],
     r"--test {path} is a folder: give a LETOR/SVMlight file"),
    ("learn-validation-a-folder", ["learn", "{letor}", *_LEARN, "--validation", "{file}"],
     r"--validation {path} is a folder: give a LETOR/SVMlight file"),
    ("learn-query-file-a-folder", ["learn", "{letor}", *_LEARN, "--query-file", "{file}"],
     r"--query-file {path} is a folder: give a LETOR/SVMlight file"),
    # sql
    ("sql-depth-zero", ["sql", "-M", "0"], r"argument -M/--depth: expected a positive integer, got '0'"),
    ("sql-level-word", ["sql", "-l", "high"], r"argument -l/--relevance-level: invalid int value: 'high'"),
    ("sql-dialect-unknown", ["sql", "--dialect", "oracle"], r"argument --dialect: invalid choice: 'oracle'"),
    ("sql-checks-with-measures", ["sql", "--checks", "-m", "AP"],
     r"--checks prints the input checks.*leave -m out"),
    ("sql-column-without-equals", ["sql", "--run-column", "score"],
     r"--run-column takes CANONICAL=COLUMN \(e\.g\. query_id=qid\), got 'score'"),
    ("sql-measure-without-sql", ["sql", "-m", "KendallTau"], r"No SQL form for KendallTau"),
    # trec_eval
    ("trec_eval-num-docs-word", ["trec_eval", "-N", "many", "{qrels}", "{run}"],
     r"argument -N/--Number_docs_in_coll: invalid int value: 'many'"),
    ("trec_eval-depth-negative", ["trec_eval", "-M", "-5", "{qrels}", "{run}"],
     r"-M must be a number of documents >= 1\. Got -5"),
    ("trec_eval-one-file", ["trec_eval", "{qrels}"], r"the following arguments are required: RUN"),
    ("trec_eval-zscores-a-folder", ["trec_eval", "-Z", "{file}", "{qrels}", "{run}"],
     r"The z-score path {path} is a folder; pass a file\."),
    # an output that would replace an input
    ("evaluate-output-is-the-run", ["evaluate", "{qrels}", "{run}", "-m", "AP", "-o", "{run}"],
     r"-o \S*good-run\.txt is the input \S*good-run\.txt: it would be replaced\. Give another path"),
    ("compare-html-is-the-qrels", ["compare", "{qrels}", "{run}", "{run2}", "--html", "{qrels}"],
     r"--html \S*good-qrels\.txt is the input \S*good-qrels\.txt: it would be replaced"),
    ("learn-output-is-the-data", ["learn", "{letor}", *_LEARN, "-o", "{letor}"],
     r"-o \S*good-letor-qid\.txt is the input \S*good-letor-qid\.txt: it would be replaced"),
    # the command itself
    ("unknown-command", ["evaluat", "{qrels}", "{run}"], r"argument COMMAND: invalid choice: 'evaluat'"),
    ("measures-with-an-argument", ["measures", "AP"], r"unrecognized arguments: AP"),
]
for _id, _argv, _names in COMMANDS:
    _bad = folder_with("a.txt") if "{file}" in _argv else None
    CASES.append(Case(_id, "command line: arguments", "command", _bad, _names, argv=_argv))
for _column in ("query_id", "doc_id", "score"):  # the API's twin: evaluate(..., by=[...])
    CASES.append(Case(
        f"option-by-the-{_column.replace('_', '-')}", "command line: arguments", "option", {"by": [_column]},
        rf"The breakdown column '{_column}' \(by=\.\.\.\) is a column of the result or of the "
        r"evaluation; breakdowns are other columns of the run, such as 'locale'",
        argv=["--by", _column],
    ))
CASES.append(Case(
    "compare-figures-a-file", "command line: outputs", "command", text("not a folder"),
    r"Cannot write {path} \(--figures\): it is a file, not a folder\. Give a folder",
    argv=["compare", "{qrels}", "{run}", "{run2}", "--figures", "{file}"],
))
for _value in ("0", "-2", "two", ""):
    CASES.append(Case(
        f"environment-polars-max-threads-{_value or 'empty'}", "command line: environment", "command", None,
        r"the environment variable POLARS_MAX_THREADS must be a number of threads >= 1\. "
        f"Got '{_value}': unset it",
        argv=["evaluate", "{qrels}", "{run}", "-m", "AP"], env={"POLARS_MAX_THREADS": _value},
    ))


# ----------------------------------------------------------------------------- integer ids
# Ids of logs and recommender data are often integers (Parquet int64): beside the good inputs'
# text ids they are read as text (the ids of all inputs share one type), and errors name them.
def _int_ids(**cols: Any) -> Builder:
    return parquet(lambda: _pl().DataFrame(cols))


cases("integer ids", "run", [
    ("int-ids-run-duplicate", _int_ids(query_id=[1, 1, 2], doc_id=["a", "a", "c"], score=[1.0, 2.0, 1.0]),
     r"duplicate \(query, doc\) rows in the run: \('?1'?, 'a'\) x2"),
    ("int-ids-run-null-query", _int_ids(query_id=[1, None], doc_id=["a", "b"], score=[1.0, 2.0]),
     r"column 'query_id': the query id is null \(doc 'b'\)"),
    ("int-ids-run-int-docs-nan-score", _int_ids(query_id=[1, 2], doc_id=[7, 8], score=[1.0, math.nan]),
     r"column 'score'.* nan"),
])
cases("integer ids", "qrels", [
    ("int-ids-qrels-duplicate", _int_ids(query_id=[1, 1], doc_id=[7, 7], relevance=[1, 0]),
     r"duplicate \(query, doc\) rows in the qrels: \('?1'?, '?7'?\) x2"),
    ("int-ids-qrels-fractional-grade", _int_ids(query_id=[1, 2], doc_id=[7, 8], relevance=[1.0, 0.5]),
     r"column 'relevance': the relevance grade 0.5 of \('?2'?, '?8'?\) is not an integer"),
])
cases("integer ids", "compare", [
    ("int-ids-compare-second-run-duplicate",
     _int_ids(query_id=[1, 1], doc_id=["a", "a"], score=[1.0, 2.0]),
     r"duplicate \(query, doc\) rows in the run: \('?1'?, 'a'\) x2"),
])
cases("integer ids", "run", [
    ("int-ids-run-pandas-mixed", frame(lambda: _pd().DataFrame(
        {"query_id": [1, "q2"], "doc_id": ["a", "c"], "score": [1.0, 2.0]})),
     r"The run pandas DataFrame's column 'query_id' mixes value types \(int, str\)"),
    ("int-ids-run-pandas-mixed-docs", frame(lambda: _pd().DataFrame(
        {"query_id": ["q1", "q1"], "doc_id": [7, "c"], "score": [1.0, 2.0]})),
     r"column 'doc_id' mixes value types \(int, str\)"),
], cli=False)
cases("integer ids", "qrels", [
    ("int-ids-qrels-pandas-mixed", frame(lambda: _pd().DataFrame(
        {"query_id": [1, "q2"], "doc_id": ["a", "c"], "relevance": [1, 0]})),
     r"The qrels pandas DataFrame's column 'query_id' mixes value types \(int, str\)"),
], cli=False)


# ----------------------------------------------------------------------------- recommender side inputs
# Fed to evaluate(None, run, [measures that read them], interactions=/items=/reference=bad) and
# to rankframe evaluate --no-qrels RUN --interactions/--items/--reference-run bad.
def _items_parquet(**cols: Any) -> Builder:
    return parquet(lambda: _pl().DataFrame(cols))


cases("recommender side inputs: interactions", "interactions", [
    ("interactions-no-item-column", text("user_id\tthing\nq1\ta\n", ".tsv"),
     r"{path} has no interactions column 'doc_id' .*Available columns: 'user_id', 'thing'"),
    ("interactions-null-user", text("user_id\titem_id\nq1\ta\n\tb\n", ".tsv"),
     r"{path}: interactions line 3 has a null 'query_id'"),
    ("interactions-null-item", text("user_id,item_id\nq1,a\nq2,b\nq2,\n", ".csv"),
     r"{path}: interactions line 4 has a null 'doc_id'"),
    ("interactions-negative-weight", text("user_id,item_id,weight\nq1,a,1\nq1,b,-2\n", ".csv"),
     r"{path}: interactions line 3 has the weight -2.*finite number >= 0"),
    ("interactions-weight-words", text("user_id,item_id,rating\nq1,a,good\n", ".csv"),
     r"{path}: the interactions' weight column 'rating' is not numeric"),
    ("interactions-infinite-weight", parquet(lambda: _pl().DataFrame(
        {"user_id": ["q1", "q2"], "item_id": ["a", "b"], "weight": [1.0, math.inf]})),
     r"{path}: interactions row 2 has the weight inf"),
])
cases("recommender side inputs: items", "items", [
    ("items-duplicate", text("item_id\tgenre\na\tx\nb\ty\na\tz\n", ".tsv"),
     r"{path}: the catalogue lists the item 'a' twice \(line 2 and line 4\)"),
    ("items-null-category", text("item_id,genre\na,x\nb,\n", ".csv"),
     r"{path}: items line 3 \(item 'b'\) has a null category 'genre'"),
    ("items-null-id", text("item_id,genre\na,x\n,y\n", ".csv"), r"{path}: items line 3 has a null 'doc_id'"),
    ("items-features-unequal", _items_parquet(item_id=["a", "b"], features=[[1.0, 2.0], [1.0]]),
     r"{path}: the feature vectors have unequal lengths"),
    ("items-features-nan", _items_parquet(item_id=["a", "b"], features=[[1.0, 2.0], [math.nan, 1.0]]),
     r"{path}: items row 2 \(item 'b'\) has a feature vector with a null, NaN or infinite value"),
    ("items-features-zero", _items_parquet(item_id=["a", "b"], features=[[0.0, 0.0], [1.0, 1.0]]),
     r"{path}: items row 1 \(item 'a'\) has a feature vector of zeros"),
    ("items-features-text", _items_parquet(item_id=["a"], features=["1,2"]),
     r"{path}: the feature column 'features' is String; it must hold a list or array of numbers"),
    ("items-negative-popularity", _items_parquet(item_id=["a"], popularity=[-1.0]),
     r"{path}: items row 1 has the popularity -1.0.*finite number >= 0"),
])
cases("recommender side inputs: reference run", "reference", [
    ("reference-duplicate", text("q1 Q0 a 1 2.0 t\nq1 Q0 b 2 1.0 t\nq1 Q0 a 3 0.5 t\n"),
     r"{path}: the reference run lists the item 'a' twice for the user 'q1' \(line 1 and line 3\)"),
    ("reference-no-score", text("user_id,item_id\nq1,a\n", ".csv"),
     r"{path} has no reference column 'score'"),
])
for _feeds, _family, _flag, _name in (  # a path to nothing: the API's words, then the flag's
    ("interactions", "interactions", "--interactions", "train.parquet"),
    ("items", "items", "--items", "items.tsv"),
    ("reference", "reference run", "--reference-run", "base.txt"),
):
    _escaped = _name.replace(".", r"\.")
    CASES.append(Case(
        f"{_feeds}-missing", f"recommender side inputs: {_family}", _feeds, missing(_name),
        rf"The {_feeds} file '\S*{_escaped}' does not exist",
        cli_names=rf"{_flag} \S*{_escaped}: no such file",
    ))

FAMILIES = sorted({c.family for c in CASES})
