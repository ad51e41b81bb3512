"""The ``rankframe`` command: a thin shell over the library.

Seven subcommands:

* ``rankframe trec_eval [-q] [-c] [-n] [-J] [-M N] [-l N] [-m MEASURE]... [-R FORMAT]
  [-Z ZSCORES] QRELS RUN`` prints exactly what trec_eval 10.0 prints (see
  :mod:`rankframe._trec_eval.driver`);
* ``rankframe evaluate QRELS RUN [RUN...] [-m MEASURE...]`` compares runs side by side, as an
  aligned table for people or as a tidy frame (csv, tsv, json, jsonl, parquet) for pipelines;
* ``rankframe compare QRELS RUN RUN... [-m MEASURE...]`` tests the runs against each other (see
  :func:`rankframe.compare`);
* ``rankframe fuse RUN RUN... [--method M] [--norm N] [-o OUT]`` fuses runs into one run file
  (see :mod:`rankframe._cli.fuse`);
* ``rankframe learn DATA --test FILE ...`` trains linear rankers per loss, selects each on
  validation and tests once (see :mod:`rankframe._cli.learn`);
* ``rankframe sql -m MEASURE... [--dialect D]`` prints the evaluation as one SQL query for a
  warehouse (see :mod:`rankframe._cli.sql`);
* ``rankframe measures`` lists the registered measures.

Each subcommand has its module, with its ``add_<name>_parser`` and ``_cmd_<name>``
(:mod:`rankframe._cli.trec_eval`, :mod:`rankframe._cli.evaluate`, :mod:`rankframe._cli.compare`,
:mod:`rankframe._cli.learn`, :mod:`rankframe._cli.sql`, :mod:`rankframe._cli.measures`); the
output writers are in :mod:`rankframe._cli.writers`. This module builds the parser and runs the command.

Measure names are parsed by the library's parser and the list of measures comes from the
registry. ``evaluate`` and ``compare`` share their options and defaults (nDCG@10 without ``-m``,
as the library), take the output format from the extension of ``-o PATH`` unless ``-f`` names
it, and stop with an input error when the qrels and a run have no query in common. Usage errors
exit with status 2, input errors (and outputs that cannot be written) print
``rankframe: <message>`` and exit with status 1; neither prints a traceback. The environment
variables that would end in one are checked first (:func:`_check_environment`).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Sequence

import polars as pl

from rankframe._cli.common import PROG, UsageError
from rankframe._cli.compare import add_compare_parser
from rankframe._cli.evaluate import add_evaluate_parser
from rankframe._cli.fuse import add_fuse_parser
from rankframe._cli.learn import add_learn_parser
from rankframe._cli.measures import add_measures_parser
from rankframe._cli.sql import add_sql_parser
from rankframe._cli.trec_eval import add_trec_eval_parser
from rankframe._errors import MeasureError, RankframeError
from rankframe._version import __version__

#: The subcommands, in the order of the help, each with the function that adds its parser.
SUBCOMMANDS = {
    "trec_eval": add_trec_eval_parser,
    "evaluate": add_evaluate_parser,
    "compare": add_compare_parser,
    "fuse": add_fuse_parser,
    "learn": add_learn_parser,
    "sql": add_sql_parser,
    "measures": add_measures_parser,
}


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """Build the argument parser of the ``rankframe`` command.

    ``command``: the first argument; when it names a subcommand, only that subcommand's parser
    is built (the others' options cannot appear; a short command pays for one parser).
    """
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Evaluate rankings exactly like trec_eval 10.0, with Polars.",
    )
    parser.add_argument(
        "--version", action="version",
        version=f"{PROG} {__version__} (polars {pl.__version__}, Python {sys.version.split()[0]})",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, add in SUBCOMMANDS.items():
        if command not in SUBCOMMANDS or name == command:
            add(sub)
    return parser


# ----------------------------------------------------------------------------- entry point
def _check_environment() -> str | None:
    """What is wrong with the environment variables the command depends on (None: nothing).

    ``POLARS_MAX_THREADS=0`` makes Polars panic at its first query (a traceback); any value
    that is not a positive int is refused here, naming the variable and the fix.
    """
    threads = os.environ.get("POLARS_MAX_THREADS")
    if threads is not None and not (threads.isascii() and threads.isdigit() and int(threads) >= 1):
        return (
            f"the environment variable POLARS_MAX_THREADS must be a number of threads >= 1. "
            f"Got {threads!r}: unset it (Polars then uses every core) or set it to 1 or more."
        )
    return None


def _exit_code(exc: SystemExit) -> int:
    if exc.code is None:
        return 0
    return exc.code if isinstance(exc.code, int) else 1


_API_HINT = re.compile(
    r"e\.g\. evaluate\(\.\.\., (?:qrels_columns=\{\.\.\.\} and/or )?(qrels|run)_columns="
    r"\{'(\w+)': ('[^']*'|'<column>')\}\) or read_\w+\(\.\.\., columns=\{\.\.\.\}\)"
)
#: The dtype errors' hint (rankframe._engine.checks): ``(run_columns={'score': ...})``.
_DTYPE_HINT = re.compile(r"\((qrels|run)_columns=\{'(\w+)': \.\.\.\}\)")


def _in_flags(message: str) -> str:
    """An error's hint in the command line's terms: ``--run-column query_id=qid``, not Python.

    A judged log reads either flag; the hints name ``--run-column``.
    """
    message = _API_HINT.sub(lambda m: f"e.g. --{m[1]}-column {m[2]}={m[3].strip(chr(39))}", message)
    return _DTYPE_HINT.sub(lambda m: f"(--{m[1]}-column {m[2]}=COLUMN)", message)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``rankframe`` command and return its exit status.

    Parameters
    ----------
    argv
        Arguments without the program name; ``sys.argv[1:]`` when None.

    Returns
    -------
    int
        0 on success, 1 for an input error, 2 for a usage error.
    """
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(argv[0] if argv else None)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return _exit_code(exc)
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    problem = _check_environment()
    if problem is not None:
        print(f"{PROG}: {problem}", file=sys.stderr)
        return 2
    try:
        return int(args.func(args))
    except (UsageError, MeasureError) as err:
        args.parser.print_usage(sys.stderr)
        print(f"{args.parser.prog}: error: {err}", file=sys.stderr)
        return 2
    except ImportError as err:  # an optional extra is missing (the message says which)
        print(f"{PROG}: {err}", file=sys.stderr)
        return 1
    except (RankframeError, pl.exceptions.PolarsError, OSError) as err:
        if isinstance(err, BrokenPipeError):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())  # silence the flush at exit
            return 1
        print(f"{PROG}: {_in_flags(str(err))}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:  # Ctrl-C: one line, no traceback; outputs are atomic (none half-written)
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
